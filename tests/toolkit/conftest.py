"""Run the agentapps CLI in-process, the way the console script does, and read its envelope."""

from __future__ import annotations

import contextlib
import io
import json
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from agentapps import cli
from agentic_kit import runner

SUITE = Path(__file__).resolve().parents[2]
FIXTURES = SUITE / "tests" / "fixtures"


@dataclass
class ToolkitResult:
    exit_status: int
    envelope: dict[str, Any]

    @property
    def error_code(self) -> str | None:
        """The error's code; None for a success (a relayed app document may lack `ok`)."""
        failed = isinstance(self.envelope, dict) and self.envelope.get("ok") is False
        return self.envelope["error"]["code"] if failed else None


@pytest.fixture
def agentapps(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Callable[..., ToolkitResult]:
    """`agentapps(*args)`: one run of the CLI; apps it runs keep their state in a temp folder."""
    monkeypatch.setenv("AGENTIC_STATE_DIR", str(tmp_path / "state"))

    def run(*args: str) -> ToolkitResult:
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            status = runner.run(cli.app, list(args))
        return ToolkitResult(status, json.loads(out.getvalue()))

    return run
