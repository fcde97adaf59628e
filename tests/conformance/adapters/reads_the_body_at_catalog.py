"""A deliberately wrong adapter: agentapps, except that its catalog reads each APP.md whole, body
and all, and lists a package whose body it cannot read as broken."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any
from unittest import mock

from agentapps import cli, human
from agentapps.runtime import catalog_entry
from agentic_kit import runner


def entry_from_the_whole_file(package_root: Path) -> dict[str, Any]:
    entry = catalog_entry(package_root)
    if entry["status"] != "ok":
        return entry
    try:
        (package_root / "APP.md").read_text(encoding="utf-8")  # the flaw: the body is read too
    except (OSError, UnicodeDecodeError) as error:
        return {**entry, "status": "broken", "problem": f"APP.md cannot be read: {error}"}
    return entry


def main(argv: list[str]) -> int:
    with mock.patch.object(cli, "catalog_entry", entry_from_the_whole_file):
        return runner.run(cli.app, argv, human.render)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
