"""The runner reads a command line once: the command is where the app's options end, the words
before it are the app's options and those after it the command's, and every answer, a refusal
too, names the command so found (null when the line names none of the app's)."""

from __future__ import annotations

import os

import pytest

from agentapps.harness import AppRunner
from agentapps.sync import package_app
from agentic_kit.model import Line, read_app_options
from agentic_kit.runner import command_at
from tests.packages import FACTS

NOT_UTF8 = os.fsdecode(b"a\xffb")
LINES = [
    [],
    ["list"],
    ["--human", "list", "--human"],
    ["--", "list"],
    ["--human", "--"],
    ["--", "--human", "list"],
    ["-", "list"],
    ["", "list"],
    ["-h", "list", "--help"],
    ["--version", "remove", "td_0001"],
    ["--human", "-h", "-", "--"],
]


@pytest.mark.parametrize("args", LINES, ids=[" ".join(args) or "(none)" for args in LINES])
def test_the_command_stands_where_the_app_options_reader_stops(args: list[str]) -> None:
    model = package_app(FACTS["agentic-to-do"].root).model()
    assert read_app_options(model, args, Line()) == args[command_at(args) :]


@pytest.mark.parametrize(
    ("args", "command", "code"),
    [
        (["--bogus", "list"], "list", "USAGE_ERROR"),  # the app's option is refused, the command read
        (["--human=1", "list"], "list", "USAGE_ERROR"),
        (["list", "--bogus"], "list", "USAGE_ERROR"),
        (["list", NOT_UTF8], "list", "VALIDATION_ERROR"),
        (["-" + NOT_UTF8, "list"], "list", "VALIDATION_ERROR"),
        ([NOT_UTF8, "list"], None, "VALIDATION_ERROR"),  # the word where the command stands is none
        (["-", "list"], None, "USAGE_ERROR"),  # `-` is a word: it stands where the command does
        (["--", "--human", "list"], None, "USAGE_ERROR"),  # after `--`, `--human` is that word
        (["lst"], None, "USAGE_ERROR"),
    ],
)
def test_every_answer_names_the_command_the_line_reads(
    todo: AppRunner, args: list[str], command: str | None, code: str
) -> None:
    envelope = todo.run(*args).envelope
    assert (envelope["command"], envelope["error"]["code"]) == (command, code)
    assert not todo.state_dir.exists()


@pytest.mark.parametrize(
    "args",
    [
        ["--version", "add", "x", "--description", "--help"],  # `--help` is the description here
        ["--version", "list", "--help"],
        ["--version", "nosuch", "-h"],
    ],
)
def test_version_before_the_command_answers_the_version_and_runs_nothing(
    todo: AppRunner, args: list[str]
) -> None:
    """The app's option is answered before any command is read: no word after it is looked at."""
    result = todo.run(*args)
    assert (result.exit_status, list(result.envelope), result.envelope["command"]) == (
        0,
        ["ok", "command", "version"],
        None,
    )
    assert not todo.state_dir.exists()


@pytest.mark.parametrize("args", [["--version", "--help"], ["-h", "--version"]])
def test_help_before_the_command_comes_before_the_version(todo: AppRunner, args: list[str]) -> None:
    envelope = todo.run(*args).envelope
    assert (envelope["command"], envelope["help"].startswith("Usage: app/cli.py [OPTIONS] COMMAND")) == (
        None,
        True,
    )
