"""Every bad input to agentic-timer: its documented code, its exit status, and no change on disk."""

from __future__ import annotations

import pytest

from agentapps.harness import AppRunner

NOW = {"AGENTIC_NOW": "2026-04-01T00:00:00Z"}
BAD_INPUTS: list[tuple[list[str], str]] = [
    ([], "USAGE_ERROR"),
    (["nope"], "USAGE_ERROR"),
    (["pause"], "USAGE_ERROR"),
    (["start", "x", "--bogus"], "USAGE_ERROR"),
    (["start", "x", "--duration"], "USAGE_ERROR"),
    (["start", "a", "b"], "USAGE_ERROR"),
    (["start", "x", "--duration", "0s"], "VALIDATION_ERROR"),
    (["start", "x", "--duration", "PT0S"], "VALIDATION_ERROR"),
    (["start", "x", "--duration", "-5m"], "VALIDATION_ERROR"),
    (["start", "x", "--duration", "5"], "VALIDATION_ERROR"),
    (["start", "x", "--duration", "soon"], "VALIDATION_ERROR"),
    (["start", "x", "--duration", "1m30h"], "VALIDATION_ERROR"),
    (["start", "x", "--duration", "PT"], "VALIDATION_ERROR"),
    (["start", "x", "--duration", ""], "VALIDATION_ERROR"),
    (["start", "x", "--duration", "367d"], "VALIDATION_ERROR"),
    (["start", "x", "--due-at", "2026-03-31T23:59:59Z"], "VALIDATION_ERROR"),
    (["start", "x", "--due-at", "2026-04-01T00:00:00Z"], "VALIDATION_ERROR"),
    (["start", "x", "--due-at", "2026-04-02"], "VALIDATION_ERROR"),
    (["start", "x", "--due-at", "2026-04-02T10:00:00"], "VALIDATION_ERROR"),
    (["start", "x", "--due-at", "tomorrow"], "VALIDATION_ERROR"),
    (["start", "x", "--duration", "5m", "--due-at", "2026-04-02T00:00:00Z"], "VALIDATION_ERROR"),
    (["start", "l" * 201], "VALIDATION_ERROR"),
    (["start", "two\nlines"], "VALIDATION_ERROR"),
    (["list", "--status", "fired"], "VALIDATION_ERROR"),
    (["list", "--limit", "-2"], "VALIDATION_ERROR"),
    (["get", "tm_1"], "VALIDATION_ERROR"),
    (["stop", "nt_0001"], "VALIDATION_ERROR"),
    (["get", "tm_0404"], "NOT_FOUND"),
    (["pause", "tm_0404"], "NOT_FOUND"),
    (["resume", "tm_0404"], "NOT_FOUND"),
    (["stop", "tm_0404"], "NOT_FOUND"),
    (["remove", "tm_0404"], "NOT_FOUND"),
    (["remove", "tm_0404", "--confirm"], "NOT_FOUND"),
    (["remove", "tm_0001"], "CONFIRMATION_REQUIRED"),
    (["resume", "tm_0001"], "CONFLICT"),
    (["pause", "tm_0002"], "CONFLICT"),
]
EXIT = {"USAGE_ERROR": 2, "VALIDATION_ERROR": 3, "NOT_FOUND": 4, "CONFIRMATION_REQUIRED": 5, "CONFLICT": 6}


def seed(timer: AppRunner) -> bytes:
    assert timer.run("start", "countdown", "--duration", "5m", env=NOW).ok
    assert timer.run("start", "stopped", env=NOW).ok
    assert timer.run("stop", "tm_0002", env=NOW).ok
    return timer.state_file("timers.json").read_bytes()


@pytest.mark.parametrize(
    ("args", "code"), BAD_INPUTS, ids=[" ".join(a)[:40] or "(none)" for a, _ in BAD_INPUTS]
)
def test_bad_input_gives_its_code_and_exit_status_and_changes_nothing(
    timer: AppRunner, args: list[str], code: str
) -> None:
    before = seed(timer)
    result = timer.run(*args, env=NOW)
    assert result.envelope["ok"] is False
    assert (result.error_code, result.exit_status) == (code, EXIT[code])
    assert timer.state_file("timers.json").read_bytes() == before
