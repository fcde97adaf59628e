"""A deliberately wrong adapter: agentapps, except that its catalog reads each APP.md whole,
decoding it leniently (bytes that are not UTF-8 replaced), so a body that is not UTF-8 does not give
it away; only a body too large to read does."""

from __future__ import annotations

import sys

from .reads_the_body_at_catalog import reading_the_body


def main(argv: list[str]) -> int:
    return reading_the_body(argv, lenient=True)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
