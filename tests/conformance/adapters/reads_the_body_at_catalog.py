"""A deliberately wrong adapter: agentapps, except that its catalog reads each APP.md whole, body
and all, and lists a package whose body it cannot read as broken."""

from __future__ import annotations

import sys
from functools import partial
from pathlib import Path
from typing import Any
from unittest import mock

from agentapps import cli, human
from agentapps.catalog import catalog_entry
from agentic_kit import runner


def entry_from_the_whole_file(package_root: Path, *, lenient: bool = False) -> dict[str, Any]:
    entry = catalog_entry(package_root)
    if entry["status"] != "ok":
        return entry
    try:
        # the flaw: the body is read too (leniently: bytes that are not UTF-8 replaced)
        (package_root / "APP.md").read_bytes().decode("utf-8", "replace" if lenient else "strict")
    except (OSError, UnicodeDecodeError) as error:
        return {**entry, "status": "broken", "problem": f"APP.md cannot be read: {error}"}
    return entry


def reading_the_body(argv: list[str], *, lenient: bool) -> int:
    with mock.patch.object(cli, "catalog_entry", partial(entry_from_the_whole_file, lenient=lenient)):
        return runner.run(cli.app, argv, human.render)


def main(argv: list[str]) -> int:
    return reading_the_body(argv, lenient=False)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
