"""A bug in a command is INTERNAL_ERROR: one envelope, no traceback, and a true word on what was
saved: nothing, or (a failure after the commit) the change.

No input can cause it (that would be a bug to fix), so it cannot be a scenario: the test plants
the bug in the in-process app, inside the write's transaction, after the operation has started.
"""

from __future__ import annotations

import pytest

from agentapps.harness import AppRunner
from agentapps.package import load_entry_module
from tests.packages import AppFacts
from tests.states import ENTITIES

WRITE_OPERATION = {"agentic-to-do": "add_item", "agentic-notes": "add_note", "agentic-timer": "start_timer"}


def test_an_unexpected_failure_is_an_internal_error_and_changes_nothing(
    app: AppRunner, facts: AppFacts, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert app.run(*facts.write).ok
    before = app.state_file(facts.state_file).read_bytes()
    operations = load_entry_module(app.package).operations  # the in-process app's domain
    name = WRITE_OPERATION[facts.package]
    real = getattr(operations, name)

    def broken(state: object, **kwargs: object) -> None:
        real(state, **kwargs)  # the state is changed in memory first…
        raise RuntimeError("a bug")  # …then the command fails

    monkeypatch.setattr(operations, name, broken)
    result = app.run(*facts.write)
    assert (result.error_code, result.exit_status) == ("INTERNAL_ERROR", 1)
    assert result.envelope["error"] == {
        "code": "INTERNAL_ERROR",
        "message": "Unexpected internal error (RuntimeError).",
        "hint": "Nothing was saved by this command. Please report it with the arguments used.",
    }
    assert result.stderr == "internal error: RuntimeError: a bug\n"
    assert app.state_file(facts.state_file).read_bytes() == before


def test_a_failure_after_the_commit_says_the_change_was_saved(
    app: AppRunner, facts: AppFacts, monkeypatch: pytest.MonkeyPatch
) -> None:
    module = load_entry_module(app.package)

    def broken(item: object) -> None:  # runs once the transaction has committed
        raise RuntimeError("a bug after the write")

    monkeypatch.setattr(module, "item_payload", broken)
    result = app.run(*facts.write)
    assert (result.error_code, result.exit_status) == ("INTERNAL_ERROR", 1)
    assert result.envelope["error"]["hint"] == (
        "The change was saved before the error: read it back before trying again. "
        "Please report it with the arguments used."
    )
    monkeypatch.undo()
    assert app.run("get", facts.first_id).ok


def test_a_bug_that_would_break_an_invariant_saves_nothing(
    app: AppRunner, facts: AppFacts, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert app.run(*facts.write).ok
    before = app.state_file(facts.state_file).read_bytes()
    operations = load_entry_module(app.package).operations
    name = WRITE_OPERATION[facts.package]
    real = getattr(operations, name)

    def duplicating(state: object, **kwargs: object) -> object:
        made = real(state, **kwargs)
        getattr(state, ENTITIES[facts.package]).append(made)  # the same id twice
        return made

    monkeypatch.setattr(operations, name, duplicating)
    result = app.run(*facts.write)
    assert (result.error_code, result.exit_status) == ("INTERNAL_ERROR", 1)
    message = result.envelope["error"]["message"]
    assert message.startswith("The change would leave the state inconsistent (id ")
    assert app.state_file(facts.state_file).read_bytes() == before
