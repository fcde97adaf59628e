"""What appears where the state would go when a read or a refused command runs on an empty state.

The scenarios check that a failing step leaves the state folder's files as they were; this
checks the folder itself. Reads create nothing. Arguments are checked before the state is touched,
so nothing appears; an id is looked up inside the write's lock, which may create the folder and
its empty lock file, but never a state file.
"""

from __future__ import annotations

from typing import Any

import pytest

from agentapps.harness import AppRunner
from tests.packages import AppFacts

BAD_ARGUMENTS = {
    "agentic-to-do": [["add", ""], ["add", "x", "--due-at", "soon"], ["update", "td_0001"], ["get", "td_1"]],
    "agentic-notes": [
        ["add", ""],
        ["append", "nt_0001", ""],
        ["tag", "nt_0001", " "],
        ["list", "--limit", "-1"],
    ],
    "agentic-timer": [["start", "--duration", "0s"], ["start", "x", "--due-at", "2020-01-01T00:00:00Z"]],
}
UNKNOWN_IDS = {
    "agentic-to-do": [["complete", "td_0001"], ["remove", "td_0001", "--confirm"]],
    "agentic-notes": [["append", "nt_0001", "x"], ["remove", "nt_0001"]],
    "agentic-timer": [["pause", "tm_0001"], ["remove", "tm_0001", "--confirm"]],
}


def test_bad_arguments_on_an_empty_state_create_nothing(app: AppRunner, facts: AppFacts) -> None:
    for args in BAD_ARGUMENTS[facts.package]:
        assert not app.run(*args).ok, args
        assert not app.state_dir.exists(), args


@pytest.mark.parametrize("setting", [{"AGENTIC_NOW": "yesterday"}, {"AGENTIC_LOCK_TIMEOUT": "soon"}])
def test_a_bad_setting_on_an_empty_state_creates_nothing(
    app: AppRunner, facts: AppFacts, setting: dict[str, str]
) -> None:
    assert app.run(*facts.write, env=setting).error_code == "VALIDATION_ERROR"
    assert not app.state_dir.exists()


def test_unknown_ids_on_an_empty_state_create_no_state_file(app: AppRunner, facts: AppFacts) -> None:
    for args in UNKNOWN_IDS[facts.package]:
        assert app.run(*args).error_code == "NOT_FOUND", args
        assert not app.state_file(facts.state_file).exists(), args


def test_reads_of_an_empty_state_create_nothing(app: AppRunner, facts: AppFacts) -> None:
    assert app.run(*facts.read).envelope["count"] == 0
    assert app.run("get", facts.first_id).error_code == "NOT_FOUND"
    assert not app.state_dir.exists()


@pytest.mark.parametrize(
    "title",
    ["\u200b", "\ufeff", "\u2800", "\u115f", "\u3164", "\u00ad", "\u0301", "\u200b\u2060 \u200d"],
    ids=[
        "zero-width-space",
        "byte-order-mark",
        "braille-blank",
        "hangul-filler",
        "hangul-filler-2",
        "soft-hyphen",
        "lone-combining-accent",
        "several",
    ],
)
@pytest.mark.parametrize("package", ["agentic-to-do", "agentic-notes"])
def test_a_title_of_invisible_characters_alone_is_empty(app_runner: Any, package: str, title: str) -> None:
    """Found by an outside review: such a title passed as not empty; one that shows anything
    beside them is kept as given."""
    app: AppRunner = app_runner(package)
    refused = app.run("add", title)
    assert (refused.exit_status, refused.error_code) == (3, "VALIDATION_ERROR")
    assert refused.envelope["error"]["message"] == "title must not be empty."
    assert "invisible" in refused.envelope["error"]["hint"]
    assert not app.state_dir.exists()
    assert app.run("add", f"a{title}").item["title"] == f"a{title}".strip()
