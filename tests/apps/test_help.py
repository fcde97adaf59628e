"""--help comes back inside the envelope. The help text is typer's, worded by its version, so the
scenarios check only that the envelope is a success; this checks its shape and its text."""

from __future__ import annotations

import pytest

from agentapps.harness import AppRunner
from tests.packages import AppFacts


@pytest.mark.parametrize("where", ["app", "command"])
def test_help_is_a_success_envelope_with_the_usage_text(app: AppRunner, facts: AppFacts, where: str) -> None:
    args = ["--help"] if where == "app" else [facts.write[0], "--help"]
    result = app.run(*args)
    assert set(result.envelope) == {"ok", "command", "help"}
    assert result.envelope["command"] == (None if where == "app" else facts.write[0])
    assert result.envelope["help"].startswith("Usage: app/cli.py ")
    assert not app.state_dir.exists()
