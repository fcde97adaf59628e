"""A write that changes no value succeeds without rewriting the state file.

The scenarios show that such a command returns the entity with its old `updatedAt`; only the
bytes on disk can show that nothing was written at all, so this part stays in Python.
"""

from __future__ import annotations

import pytest

from agentapps.harness import AppRunner
from tests.packages import FACTS

NOW = {"AGENTIC_NOW": "2026-04-01T00:00:00Z"}
LATER = {"AGENTIC_NOW": "2026-04-09T00:00:00Z"}

CASES = [
    ("agentic-to-do", [["add", "same"]], ["update", "td_0001", "--title", "same"]),
    ("agentic-to-do", [["add", "a"], ["complete", "td_0001"]], ["complete", "td_0001"]),
    ("agentic-to-do", [["add", "a"]], ["reopen", "td_0001"]),
    ("agentic-notes", [["add", "same", "--body", "b"]], ["update", "nt_0001", "--body", "b"]),
    ("agentic-notes", [["add", "t", "--tag", "a"]], ["tag", "nt_0001", "A"]),
    ("agentic-notes", [["add", "t", "--tag", "a"]], ["untag", "nt_0001", "zzz"]),
    ("agentic-timer", [["start"], ["stop", "tm_0001"]], ["stop", "tm_0001"]),
]


@pytest.mark.parametrize(
    ("package", "setup", "again"),
    CASES,
    ids=[" ".join(case[2][:1] + case[2][2:]) for case in CASES],
)
def test_a_write_that_changes_nothing_leaves_the_file_untouched(
    app_runner: object, package: str, setup: list[list[str]], again: list[str]
) -> None:
    app: AppRunner = app_runner(package)  # type: ignore[operator]
    for args in setup:
        assert app.run(*args, env=NOW).ok
    path = app.state_file(FACTS[package].state_file)
    before, modified = path.read_bytes(), path.stat().st_mtime_ns
    result = app.run(*again, env=LATER)
    assert result.exit_status == 0
    assert result.item["updatedAt"] == "2026-04-01T00:00:00.000Z"
    assert (path.read_bytes(), path.stat().st_mtime_ns) == (before, modified)
