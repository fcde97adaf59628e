"""Every notes write answers with the note as `list` shows it, never its body: an answer sized for
a context window however long the note is. `get` alone returns the body."""

from __future__ import annotations

import pytest

from agentapps.harness import AppRunner

MIB = 1024 * 1024
# A note as list shows it: id, a title, a 160-character excerpt, tags, dates. The body of 1 MiB
# must not show in it; 2 KiB leaves room for the rest and none for even a small part of the body.
ANSWER_BOUND = 2048
WRITES = [
    ["tag", "nt_0001", "big"],
    ["untag", "nt_0001", "big"],
    ["update", "nt_0001", "--title", "Still big"],
    ["update", "nt_0001", "--due-at", "2026-05-01"],
    ["update", "nt_0001", "--clear-due-at"],
    ["append", "nt_0001", "tail"],
    ["remove", "nt_0001", "--confirm"],
]


def _add_big_note(notes: AppRunner) -> int:
    body = "x" * (MIB - 5) + "\n"  # 1 MiB less the room `append tail` takes
    added = notes.run("add", "Big", "--body-file", "-", stdin=body)
    assert added.ok
    return len(added.stdout.encode())


def test_add_of_a_1_mib_note_answers_without_the_body(notes: AppRunner) -> None:
    assert _add_big_note(notes) < ANSWER_BOUND
    whole = notes.run("get", "nt_0001")
    assert len(whole.item["body"]) == MIB - 4  # get still returns the body, whole


@pytest.mark.parametrize("args", WRITES, ids=[" ".join(args) for args in WRITES])
def test_a_write_on_a_1_mib_note_answers_in_a_few_hundred_bytes(notes: AppRunner, args: list[str]) -> None:
    _add_big_note(notes)
    answer = notes.run(*args)
    assert answer.ok
    assert len(answer.stdout.encode()) < ANSWER_BOUND
    assert "body" not in answer.item
    assert answer.item["excerpt"].endswith("…")


def test_a_real_process_tagging_a_1_mib_note_prints_a_small_answer(notes: AppRunner) -> None:
    _add_big_note(notes)
    answer = notes.run_subprocess("tag", "nt_0001", "big")
    assert answer.envelope["item"]["tags"] == ["big"]
    assert len(answer.stdout.encode()) < ANSWER_BOUND
