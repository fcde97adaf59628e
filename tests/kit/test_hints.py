"""The kit's hints: the nearest command to a word that is none, and how a word is shown as typed."""

from __future__ import annotations

import shlex

import pytest

from agentic_kit.hints import SYNONYMS, nearest_command, shell_word, unknown_option
from tests.packages import SUITE

TODO = ["describe", "add", "list", "get", "update", "complete", "reopen", "remove"]
TIMER = ["describe", "start", "list", "get", "pause", "resume", "stop", "due", "remove"]


@pytest.mark.parametrize(
    ("word", "commands", "nearest"),
    [
        ("done", TODO, "complete"),
        ("done", TIMER, "stop"),  # the first of the word's meanings the app has
        ("cancel", TIMER, "stop"),
        ("delete", TODO, "remove"),
        ("RM", TODO, "remove"),
        ("LIST", TODO, "list"),  # itself, in another case
        ("lsit", TODO, "list"),  # the closest spelling
        ("complte", TODO, "complete"),
        ("find", TODO, "list"),  # no search in to-do
        ("xyzzy", TODO, None),
        ("", TODO, None),
    ],
)
def test_the_nearest_command(word: str, commands: list[str], nearest: str | None) -> None:
    assert nearest_command(word, commands) == nearest


def test_every_synonym_means_a_command_one_of_the_apps_has() -> None:
    """The table is data: a word pointing at a command no app has would never be suggested."""
    text = " ".join(
        (SUITE / package / "APP.md").read_text(encoding="utf-8") for package in SUITE.glob("agentic-*")
    )
    commands = {command for meanings in SYNONYMS.values() for command in meanings}
    assert {command for command in commands if f"  - {command}\n" not in text} == set()


@pytest.mark.parametrize(
    ("word", "shown"),
    [("-1bug", "-1bug"), ("Buy milk", '"Buy milk"'), ('say "hi"', "'say \"hi\"'"), ("a\tb", "'a\tb'")],
)
def test_a_word_is_shown_as_it_would_be_typed(word: str, shown: str) -> None:
    assert shell_word(word) == shown
    assert shlex.split(shown) == [word]  # a POSIX shell reads it back as typed


ELSEWHERE = {
    "due": ["--before", "--sort"],
    "remove": ["--confirm"],
    "purge": ["--confirm"],
    "start": ["--due-at"],
}


@pytest.mark.parametrize(
    ("given", "start"),
    [
        ("--due-before", "Did you mean `due --before`? "),  # ends in another command's option
        ("--due-after", "Options of list"),  # close to start's --due-at, but not meant
        ("--confirm", "--confirm is an option of remove and purge. "),  # another command's own
        ("--colour", "Options of list"),  # close to nothing anywhere: only this command's list
    ],
)
def test_an_unknown_option_points_at_the_command_that_has_it(given: str, start: str) -> None:
    error = unknown_option("list", given, ["--status", "--limit"], False, elsewhere=ELSEWHERE)
    assert error.hint is not None
    assert error.hint.startswith(start)
    assert error.hint.endswith("Options of list: --status, --limit.")
