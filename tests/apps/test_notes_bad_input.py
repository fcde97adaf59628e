"""Every bad input to agentic-notes: its documented code, its exit status, and no change on disk."""

from __future__ import annotations

from pathlib import Path

import pytest

from agentapps.harness import AppRunner

BAD_INPUTS: list[tuple[list[str], str]] = [
    ([], "USAGE_ERROR"),
    (["nope"], "USAGE_ERROR"),
    (["add"], "USAGE_ERROR"),
    (["add", "x", "--bogus"], "USAGE_ERROR"),
    (["tag", "nt_0001"], "USAGE_ERROR"),
    (["untag", "nt_0001"], "USAGE_ERROR"),
    (["search"], "USAGE_ERROR"),
    (["add", ""], "VALIDATION_ERROR"),
    (["add", " \t "], "VALIDATION_ERROR"),
    (["add", "t" * 501], "VALIDATION_ERROR"),
    (["add", "two\nlines"], "VALIDATION_ERROR"),
    (["add", "x", "--body", "b" * (1024 * 1024 + 1)], "VALIDATION_ERROR"),
    (["add", "x", "--body", "b", "--body-file", "-"], "VALIDATION_ERROR"),
    (["add", "x", "--body-file", "/nonexistent/body.txt"], "VALIDATION_ERROR"),
    (["add", "x", "--body-file", "/"], "VALIDATION_ERROR"),
    (["add", "x", "--tag", ""], "VALIDATION_ERROR"),
    (["add", "x", "--tag", "   "], "VALIDATION_ERROR"),
    (["add", "x", "--tag", "two words"], "VALIDATION_ERROR"),
    (["add", "x", "--tag", "t" * 65], "VALIDATION_ERROR"),
    (["add", "x", *[arg for n in range(51) for arg in ("--tag", f"t{n}")]], "VALIDATION_ERROR"),
    (["add", "x", "--due-at", "2026-02-30"], "VALIDATION_ERROR"),
    (["list", "--limit", "-1"], "VALIDATION_ERROR"),
    (["list", "--due-before", "someday"], "VALIDATION_ERROR"),
    (["list", "--tag", ""], "VALIDATION_ERROR"),
    (["get", "td_0001"], "VALIDATION_ERROR"),
    (["update", "nt_0001"], "VALIDATION_ERROR"),
    (["update", "nt_0001", "--due-at", "2026-04-05", "--clear-due-at"], "VALIDATION_ERROR"),
    (["update", "nt_0001", "--title", ""], "VALIDATION_ERROR"),
    (["update", "nt_0001", "--body", "a", "--body-file", "-"], "VALIDATION_ERROR"),
    (["append", "nt_0001"], "VALIDATION_ERROR"),
    (["append", "nt_0001", ""], "VALIDATION_ERROR"),
    (["append", "nt_0001", "text", "--text-file", "-"], "VALIDATION_ERROR"),
    (["append", "nt_0001", "--text-file", "/nonexistent"], "VALIDATION_ERROR"),
    (["tag", "nt_0001", "ok", ""], "VALIDATION_ERROR"),
    (["untag", "nt_0001", " "], "VALIDATION_ERROR"),
    (["search", "  "], "VALIDATION_ERROR"),
    (["search", "x", "--limit", "many"], "VALIDATION_ERROR"),
    (["due", "--before", "later"], "VALIDATION_ERROR"),
    (["get", "nt_0404"], "NOT_FOUND"),
    (["update", "nt_0404", "--title", "x"], "NOT_FOUND"),
    (["append", "nt_0404", "more"], "NOT_FOUND"),
    (["tag", "nt_0404", "a"], "NOT_FOUND"),
    (["untag", "nt_0404", "a"], "NOT_FOUND"),
    (["remove", "nt_0404"], "NOT_FOUND"),
    (["remove", "nt_0404", "--confirm"], "NOT_FOUND"),
    (["remove", "nt_0001"], "CONFIRMATION_REQUIRED"),
]
EXIT = {"USAGE_ERROR": 2, "VALIDATION_ERROR": 3, "NOT_FOUND": 4, "CONFIRMATION_REQUIRED": 5}


def seed(notes: AppRunner) -> bytes:
    assert notes.run("add", "first", "--body", "body", "--tag", "a", "--due-at", "2026-04-05").ok
    assert notes.run("add", "second").ok
    return notes.state_file("notes.json").read_bytes()


@pytest.mark.parametrize(
    ("args", "code"), BAD_INPUTS, ids=[" ".join(a)[:40] or "(none)" for a, _ in BAD_INPUTS]
)
def test_bad_input_gives_its_code_and_exit_status_and_changes_nothing(
    notes: AppRunner, args: list[str], code: str
) -> None:
    before = seed(notes)
    result = notes.run(*args, stdin="from stdin")
    assert result.envelope["ok"] is False
    assert (result.error_code, result.exit_status) == (code, EXIT[code])
    assert notes.state_file("notes.json").read_bytes() == before


@pytest.mark.parametrize(
    ("content", "problem"),
    [(b"\xff\xfe\x00binary", "not UTF-8 text"), (b"text\x00with NUL", "binary, not text")],
)
@pytest.mark.parametrize("command", ["add", "append"])
def test_a_file_that_is_not_text_is_refused(
    notes: AppRunner, tmp_path: Path, content: bytes, problem: str, command: str
) -> None:
    before = seed(notes)
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
    assert notes.state_file("notes.json").read_bytes() == before


def test_a_body_over_the_limit_on_stdin_is_refused(notes: AppRunner) -> None:
    before = seed(notes)
    result = notes.run("add", "x", "--body-file", "-", stdin="x" * (1024 * 1024 + 1))
    assert (result.error_code, result.exit_status) == ("VALIDATION_ERROR", 3)
    assert notes.state_file("notes.json").read_bytes() == before


def test_an_append_past_the_body_limit_is_refused(notes: AppRunner) -> None:
    notes.run("add", "x", "--body-file", "-", stdin="x" * (1024 * 1024 - 2))
    before = notes.state_file("notes.json").read_bytes()
    result = notes.run("append", "nt_0001", "yy")
    assert (result.error_code, result.exit_status) == ("VALIDATION_ERROR", 3)
    assert notes.state_file("notes.json").read_bytes() == before


def test_tagging_past_the_tag_limit_is_refused(notes: AppRunner) -> None:
    notes.run("add", "x", *[arg for n in range(50) for arg in ("--tag", f"t{n}")])
    before = notes.state_file("notes.json").read_bytes()
    assert notes.run("tag", "nt_0001", "one-more").error_code == "VALIDATION_ERROR"
    assert notes.state_file("notes.json").read_bytes() == before
