"""What some folders hold, to tell whether a run changed them: replay holds a failing step to
changing nothing, and check holds a refused confirmation to the same."""

from __future__ import annotations

import hashlib
from collections.abc import Collection
from pathlib import Path


def folder_snapshot(*folders: Path, skip: Collection[str] = ()) -> dict[str, str]:
    """Path → SHA-256 of every file under the folders. Lock files are left out (taking a lock is
    not a change of state), and so is everything under a folder named in `skip`."""
    hashes = {}
    for folder in folders:
        for path in sorted(folder.rglob("*")):
            if path.is_file() and not path.name.endswith(".lock") and set(path.parts).isdisjoint(skip):
                hashes[str(path)] = hashlib.sha256(path.read_bytes()).hexdigest()
    return hashes
