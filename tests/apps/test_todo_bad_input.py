"""Every bad input to agentic-to-do: its documented code, its exit status, and no change on disk."""

from __future__ import annotations

import pytest

from agentapps.harness import AppRunner
from agentapps.runtime import load_entry_module

SEEDED = [("add", "first", "--due-at", "2026-04-05"), ("add", "second")]

BAD_INPUTS: list[tuple[list[str], str]] = [
    ([], "USAGE_ERROR"),
    (["nope"], "USAGE_ERROR"),
    (["add"], "USAGE_ERROR"),
    (["add", "x", "--bogus"], "USAGE_ERROR"),
    (["add", "x", "--due-at"], "USAGE_ERROR"),
    (["get"], "USAGE_ERROR"),
    (["get", "td_0001", "extra"], "USAGE_ERROR"),
    (["remove"], "USAGE_ERROR"),
    (["add", ""], "VALIDATION_ERROR"),
    (["add", "   "], "VALIDATION_ERROR"),
    (["add", "a" * 501], "VALIDATION_ERROR"),
    (["add", "two\nlines"], "VALIDATION_ERROR"),
    (["add", "x", "--description", "d" * 20_001], "VALIDATION_ERROR"),
    (["add", "x", "--due-at", "2026-02-30"], "VALIDATION_ERROR"),
    (["add", "x", "--due-at", "tomorrow"], "VALIDATION_ERROR"),
    (["add", "x", "--due-at", "20260405"], "VALIDATION_ERROR"),
    (["add", "x", "--due-at", "2026-04-05T09:00"], "VALIDATION_ERROR"),
    (["add", "x", "--due-at", "2026-04-05T25:00Z"], "VALIDATION_ERROR"),
    (["add", "x", "--due-at", ""], "VALIDATION_ERROR"),
    (["list", "--status", "done"], "VALIDATION_ERROR"),
    (["list", "--limit", "-1"], "VALIDATION_ERROR"),
    (["list", "--limit", "ten"], "VALIDATION_ERROR"),
    (["list", "--due-before", "soon"], "VALIDATION_ERROR"),
    (["get", "bogus"], "VALIDATION_ERROR"),
    (["get", "td_1"], "VALIDATION_ERROR"),
    (["update", "td_0001"], "VALIDATION_ERROR"),
    (["update", "td_0001", "--due-at", "2026-04-06", "--clear-due-at"], "VALIDATION_ERROR"),
    (["update", "td_0001", "--title", ""], "VALIDATION_ERROR"),
    (["update", "td_0001", "--due-at", "2026-13-01"], "VALIDATION_ERROR"),
    (["get", "td_0404"], "NOT_FOUND"),
    (["update", "td_0404", "--title", "x"], "NOT_FOUND"),
    (["complete", "td_0404"], "NOT_FOUND"),
    (["reopen", "td_0404"], "NOT_FOUND"),
    (["remove", "td_0404", "--confirm"], "NOT_FOUND"),
    (["remove", "td_0404"], "NOT_FOUND"),
    (["remove", "td_0001"], "CONFIRMATION_REQUIRED"),
]
EXIT = {"USAGE_ERROR": 2, "VALIDATION_ERROR": 3, "NOT_FOUND": 4, "CONFIRMATION_REQUIRED": 5}


def seed(todo: AppRunner) -> bytes:
    for args in SEEDED:
        assert todo.run(*args).ok
    return todo.state_file("todos.json").read_bytes()


@pytest.mark.parametrize(
    ("args", "code"), BAD_INPUTS, ids=[" ".join(a)[:40] or "(none)" for a, _ in BAD_INPUTS]
)
def test_bad_input_gives_its_code_and_exit_status_and_changes_nothing(
    todo: AppRunner, args: list[str], code: str
) -> None:
    before = seed(todo)
    result = todo.run(*args)
    assert result.envelope["ok"] is False
    assert result.error_code == code
    assert result.exit_status == EXIT[code]
    assert result.envelope["error"]["message"]
    assert todo.state_file("todos.json").read_bytes() == before


@pytest.mark.parametrize(
    "args", [["add", ""], ["add", "x", "--due-at", "soon"], ["remove", "td_0001"], ["update", "td_0001"]]
)
def test_bad_input_on_an_empty_state_creates_no_file_or_folder(todo: AppRunner, args: list[str]) -> None:
    assert not todo.run(*args).ok
    assert not todo.state_dir.exists()


@pytest.mark.parametrize("setting", [{"AGENTIC_NOW": "yesterday"}, {"AGENTIC_LOCK_TIMEOUT": "soon"}])
def test_a_bad_setting_on_an_empty_state_creates_no_file_or_folder(
    todo: AppRunner, setting: dict[str, str]
) -> None:
    assert todo.run("add", "x", env=setting).error_code == "VALIDATION_ERROR"
    assert not todo.state_dir.exists()


def test_unknown_command_has_a_null_command_field(todo: AppRunner) -> None:
    assert todo.run("nope").envelope["command"] is None


def test_confirmation_required_says_what_to_do(todo: AppRunner) -> None:
    seed(todo)
    error = todo.run("remove", "td_0001").envelope["error"]
    assert error == {
        "code": "CONFIRMATION_REQUIRED",
        "message": "remove requires --confirm.",
        "hint": "Ask the user, then run `remove` again with --confirm.",
    }


@pytest.mark.parametrize("now", ["yesterday", "2026-13-01T00:00:00Z", "1712000000"])
def test_a_bad_agentic_now_is_a_validation_error_and_changes_nothing(todo: AppRunner, now: str) -> None:
    before = seed(todo)
    result = todo.run("add", "x", env={"AGENTIC_NOW": now})
    assert (result.error_code, result.exit_status) == ("VALIDATION_ERROR", 3)
    assert "AGENTIC_NOW" in result.envelope["error"]["message"]
    assert todo.state_file("todos.json").read_bytes() == before


@pytest.mark.parametrize("timeout", ["soon", "-1", "nan"])
def test_a_bad_lock_timeout_is_a_validation_error_and_changes_nothing(todo: AppRunner, timeout: str) -> None:
    before = seed(todo)
    result = todo.run("add", "x", env={"AGENTIC_LOCK_TIMEOUT": timeout})
    assert (result.error_code, result.exit_status) == ("VALIDATION_ERROR", 3)
    assert todo.state_file("todos.json").read_bytes() == before


def test_an_unexpected_failure_is_an_internal_error_without_a_traceback(
    todo: AppRunner, monkeypatch: pytest.MonkeyPatch
) -> None:
    before = seed(todo)
    operations = load_entry_module(todo.package).operations  # the in-process app's domain

    def broken(*args: object, **kwargs: object) -> None:
        raise RuntimeError("a bug")

    monkeypatch.setattr(operations, "complete_item", broken)
    result = todo.run("complete", "td_0001")
    assert (result.error_code, result.exit_status) == ("INTERNAL_ERROR", 1)
    assert result.envelope["error"]["message"] == "Unexpected internal error (RuntimeError)."
    assert result.stderr == "internal error: RuntimeError: a bug\n"
    assert todo.state_file("todos.json").read_bytes() == before
