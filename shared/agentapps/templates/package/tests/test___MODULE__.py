"""__NAME_PY__ through the agentapps harness: each run gets its own state folder."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from agentapps.harness import AppRunner

PACKAGE = Path(__file__).resolve().parents[1]


@pytest.fixture
def app(app_runner: Callable[[str], AppRunner]) -> AppRunner:
    return app_runner(str(PACKAGE))


def test_add_then_list(app: AppRunner) -> None:
    added = app.run("add", "First entry", env={"AGENTIC_NOW": "2026-04-01T00:00:00Z"})
    assert added.item == {"id": "en_0001", "text": "First entry", "createdAt": "2026-04-01T00:00:00.000Z"}
    assert app.run("list").items == [added.item]


def test_remove_needs_confirmation_and_changes_nothing_without_it(app: AppRunner) -> None:
    app.run("add", "Keep me")
    refused = app.run("remove", "en_0001")
    assert (refused.exit_status, refused.error_code) == (5, "CONFIRMATION_REQUIRED")
    assert len(app.run("list").items) == 1
    assert app.run("remove", "en_0001", "--confirm").ok
    assert app.run("list").items == []


def test_a_real_process_speaks_the_same_envelope(app: AppRunner) -> None:
    assert app.run_subprocess("add", "From a process").item["id"] == "en_0001"
