"""A reader process for the concurrency test: it reads the state file as fast as it can, without
a lock (as the apps' read commands do), until told to stop, and reports what it saw.

    python reader.py STATE_FILE STOP_FILE

Prints one JSON line: how many reads found a whole file, and every read that did not.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path


def main(state_file: Path, stop_file: Path) -> None:
    whole, broken = 0, []
    while not stop_file.exists():
        try:
            data = state_file.read_bytes()
        except FileNotFoundError:
            continue  # not written yet
        try:
            document = json.loads(data)
        except ValueError as error:
            broken.append(f"{type(error).__name__}: {data[:80]!r}")
            continue
        if isinstance(document, dict) and isinstance(document.get("schemaVersion"), int):
            whole += 1
        else:
            broken.append(f"not a state document: {data[:80]!r}")
    print(json.dumps({"whole": whole, "broken": broken}))


if __name__ == "__main__":
    main(Path(sys.argv[1]), Path(sys.argv[2]))
