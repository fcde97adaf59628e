"""agentic-notes and files on disk: --body-file and --text-file read real files byte for byte,
and refuse what is not text, and a stdin that cannot be read. Scenarios cannot carry files of their
own, nor a closed stdin, so these stay here."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from agentapps.harness import AppRunner
from tests.packages import FACTS
from tests.reliability.conftest import child_environment

NOTES = FACTS["agentic-notes"]

BODIES = [
    "line 1\nline 2\n",
    "windows\r\nline endings\r\n",
    "  leading and trailing spaces  \n\n\n",
    "unicode: naïve café ☕ 日本語 🧪 \u200b zero-width",
    "",
]


@pytest.mark.parametrize("body", BODIES)
def test_a_body_from_a_file_round_trips_byte_for_byte(notes: AppRunner, tmp_path: Path, body: str) -> None:
    source = tmp_path / "body.txt"
    source.write_bytes(body.encode())
    assert notes.run("add", "t", "--body-file", str(source)).ok
    out = tmp_path / "out.txt"
    out.write_bytes(notes.run("get", "nt_0001").item["body"].encode())
    assert out.read_bytes() == source.read_bytes()


def test_append_reads_a_text_file(notes: AppRunner, tmp_path: Path) -> None:
    source = tmp_path / "more.txt"
    source.write_bytes(b"more\r\n")
    assert notes.run("add", "t", "--body", "start").ok
    assert notes.run("append", "nt_0001", "--text-file", str(source)).ok
    assert notes.run("get", "nt_0001").item["body"] == "start\nmore\r\n"


@pytest.mark.parametrize("option", ["--body-file", "--text-file"])
def test_a_relative_path_that_is_not_there_says_where_it_was_looked_for(
    notes: AppRunner, option: str
) -> None:
    """A runtime runs the app from its package root, so a relative path is read from there: the
    hint shows that resolved path and says what to give instead."""
    args = ["add", "x", option, "notes/today.md"] if option == "--body-file" else []
    if option == "--text-file":
        assert notes.run("add", "x").ok
        args = ["append", "nt_0001", option, "notes/today.md"]
    result = notes.run(*args)
    assert (result.error_code, result.exit_status) == ("VALIDATION_ERROR", 3)
    assert result.envelope["error"]["message"] == f"{option} notes/today.md: no such file."
    hint = result.envelope["error"]["hint"]
    assert f"here {notes.package.root / 'notes' / 'today.md'}." in hint
    assert "Give an absolute path, or - and pipe the text on stdin." in hint


def test_an_absolute_path_that_is_not_there_names_the_fix(notes: AppRunner, tmp_path: Path) -> None:
    result = notes.run("add", "x", "--body-file", str(tmp_path / "missing.md"))
    assert result.envelope["error"]["hint"] == "Check the path, or give - and pipe the text on stdin."


@pytest.mark.parametrize(
    ("content", "problem"),
    [(b"\xff\xfe\x00binary", "not UTF-8 text"), (b"text\x00with NUL", "binary, not text")],
)
@pytest.mark.parametrize("command", ["add", "append"])
def test_a_file_that_is_not_text_is_refused(
    notes: AppRunner, tmp_path: Path, content: bytes, problem: str, command: str
) -> None:
    assert notes.run("add", "first", "--body", "body").ok
    before = notes.state_file(NOTES.state_file).read_bytes()
    source = tmp_path / "data.bin"
    source.write_bytes(content)
    args = (
        ["add", "x", "--body-file", str(source)]
        if command == "add"
        else ["append", "nt_0001", "--text-file", str(source)]
    )
    result = notes.run(*args)
    assert (result.error_code, result.exit_status) == ("VALIDATION_ERROR", 3)
    assert problem in result.envelope["error"]["message"]
    assert notes.state_file(NOTES.state_file).read_bytes() == before


def test_a_huge_body_lists_in_a_few_hundred_bytes(notes: AppRunner) -> None:
    assert notes.run("add", "huge", "--body-file", "-", stdin="x" * (1024 * 1024 - 1) + "\n").ok
    assert len(notes.run("list").stdout) < 1000


# How each case hands the app a stdin it cannot read: closed (`<&-`), or open only for writing.
UNREADABLE_STDINS = {
    "closed": ('exec "$@" <&-', "it is closed"),
    "write-only": ('exec "$@" 0>>"$STDIN_FILE"', "Bad file descriptor"),
}


@pytest.mark.parametrize("stdin", sorted(UNREADABLE_STDINS))
@pytest.mark.parametrize("command", ["add", "append"])
def test_a_stdin_that_cannot_be_read_is_a_validation_error(
    notes: AppRunner, tmp_path: Path, stdin: str, command: str
) -> None:
    assert notes.run("add", "first", "--body", "body").ok
    before = notes.state_file(NOTES.state_file).read_bytes()
    args = ["add", "x", "--body-file", "-"] if command == "add" else ["append", "nt_0001", "--text-file", "-"]
    script, reason = UNREADABLE_STDINS[stdin]
    completed = subprocess.run(
        ["sh", "-c", script, "sh", sys.executable, "app/cli.py", *args],
        cwd=notes.package.root,
        env=child_environment(notes.state_dir, STDIN_FILE=str(tmp_path / "stdin")),
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert (completed.returncode, completed.stderr) == (3, "")
    error = json.loads(completed.stdout)["error"]
    assert error["code"] == "VALIDATION_ERROR"
    assert error["message"] == f"{args[-2]} -: stdin cannot be read: {reason}."
    assert notes.state_file(NOTES.state_file).read_bytes() == before
