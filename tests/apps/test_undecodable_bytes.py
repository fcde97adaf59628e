"""Bytes that are not UTF-8, in an argument or in a path. An argument must be UTF-8 text: any
other is a VALIDATION_ERROR naming it, and nothing is saved. A path may hold any bytes the
filesystem allows; a message that names it shows each such byte as \\xNN. Either way stdout holds
one printable envelope. Bytes in argv are not data a scenario can hold (its text is UTF-8), so
these are Python tests, run as real processes, where the bytes really are bytes."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from agentapps.harness import AppRunner
from tests.packages import AppFacts

NOT_UTF8 = os.fsdecode(b"a\xffb")  # how Python hands such an argument or path to the app


@pytest.mark.parametrize("where", ["command", "argument", "option value", "after --"])
def test_an_argument_that_is_not_utf8_is_a_validation_error(
    app: AppRunner, facts: AppFacts, where: str
) -> None:
    args = {
        "command": [NOT_UTF8],
        "argument": [facts.write[0], NOT_UTF8],
        "option value": [*facts.read, "--limit", NOT_UTF8],
        "after --": [facts.write[0], "--", NOT_UTF8],
    }[where]
    result = app.run_subprocess(*args)
    number = args.index(NOT_UTF8) + 1
    assert (result.error_code, result.exit_status) == ("VALIDATION_ERROR", 3)
    message = f"Argument {number} is not UTF-8 text (it holds the byte 0xff)."
    assert result.envelope["error"]["message"] == message
    assert result.envelope["command"] == (None if where == "command" else args[0])
    assert not app.state_dir.exists()


def test_a_file_name_that_is_not_utf8_is_refused_like_any_argument(notes: AppRunner, tmp_path: Path) -> None:
    body = Path(os.fsdecode(os.fsencode(tmp_path) + b"/body-\xff.txt"))
    body.write_text("a body")
    result = notes.run_subprocess("add", "x", "--body-file", str(body))
    assert (result.error_code, result.exit_status) == ("VALIDATION_ERROR", 3)
    assert "byte 0xff" in result.envelope["error"]["message"]


def test_a_state_path_that_is_not_utf8_works_and_messages_show_its_bytes(
    app: AppRunner, facts: AppFacts, tmp_path: Path
) -> None:
    state = os.path.join(tmp_path, NOT_UTF8 + ".json")
    env = {facts.state_file_env: state}
    assert app.run_subprocess(*facts.write, env=env).ok
    assert app.run_subprocess(*facts.read, env=env).envelope["count"] == 1
    Path(state).write_bytes(b"{broken")
    for run in (app.run_subprocess, app.run):
        result = run(*facts.read, env=env)
        assert (result.error_code, result.exit_status) == ("STATE_CORRUPT", 8)
        assert f"State file {tmp_path}/a\\xffb.json is not valid JSON" in result.envelope["error"]["message"]
    shown = app.run_human(*facts.read, env=env)
    assert (shown.exit_status, f"{tmp_path}/a\\xffb.json" in shown.stdout) == (8, True)
    assert Path(state).read_bytes() == b"{broken"


@pytest.mark.parametrize(
    ("setting", "message"),
    [
        (
            "AGENTIC_NOW",
            "AGENTIC_NOW='a\\xffb' holds characters that are not ASCII (only ASCII digits count).",
        ),
        ("AGENTIC_LOCK_TIMEOUT", "AGENTIC_LOCK_TIMEOUT='a\\xffb' is not a number of seconds from 0 to 3600."),
    ],
)
def test_a_setting_that_is_not_utf8_is_shown_with_its_bytes(
    app: AppRunner, facts: AppFacts, setting: str, message: str
) -> None:
    result = app.run_subprocess(*facts.write, env={setting: NOT_UTF8})
    assert (result.error_code, result.exit_status) == ("VALIDATION_ERROR", 3)
    assert result.envelope["error"]["message"] == message
    assert not app.state_dir.exists()
