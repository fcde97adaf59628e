"""A deliberately wrong adapter: agentapps, except that it trusts every package, whatever folders
the user trusts (AGENTAPPS_TRUSTED)."""

from __future__ import annotations

import os
import sys
from unittest import mock

from agentapps import cli, human
from agentic_kit import runner


def main(argv: list[str]) -> int:
    with mock.patch.dict(os.environ, {"AGENTAPPS_TRUSTED": os.sep}):  # the flaw: every folder is trusted
        return runner.run(cli.app, argv, human.render)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
