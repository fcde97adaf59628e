"""A deliberately wrong adapter: agentapps, except that its confirmation gate reads the command
from the first argument alone, so an option there (`--verbose items remove it_1`) leaves nothing
to gate."""

from __future__ import annotations

import sys
from collections.abc import Sequence
from unittest import mock

from agentapps import cli, gates, human
from agentapps.manifest import AppManifest
from agentic_kit import runner


def gate_after_the_first_argument(
    args: Sequence[str], manifest: AppManifest, approved: bool, approved_call: str | None = None
) -> None:
    if args and args[0].startswith("-"):
        return  # the flaw: no command word first, so no command is gated
    gates.require_confirmation(args, manifest, approved, approved_call)


def main(argv: list[str]) -> int:
    with mock.patch.object(cli, "require_confirmation", gate_after_the_first_argument):
        return runner.run(cli.app, argv, human.render)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
