"""agentic-notes, command by command, in-process with the clock frozen by freezegun."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from freezegun import freeze_time

from agentapps.harness import AppRunner

START = "2026-04-01T00:00:00.000Z"
TRICKY_BODIES = [
    "line 1\nline 2\n",
    "quotes \"double\" 'single' `backticks` $HOME \\backslash",
    "windows\r\nline endings\r\n",
    "  leading and trailing spaces  \n\n\n",
    "unicode: naïve café ☕ 日本語 🧪 \u200b zero-width",
    "",
]


def add(notes: AppRunner, title: str, *args: str) -> str:
    result = notes.run("add", title, *args)
    assert result.exit_status == 0
    return str(result.item["id"])


@freeze_time(START)
def test_add_returns_the_whole_note(notes: AppRunner) -> None:
    result = notes.run(
        "add", "Lock choice", "--body", "We chose filelock.", "--tag", "Decisions", "--due-at", "2026-04-05"
    )
    assert result.envelope == {
        "ok": True,
        "command": "add",
        "item": {
            "id": "nt_0001",
            "title": "Lock choice",
            "body": "We chose filelock.",
            "tags": ["decisions"],
            "dueAt": "2026-04-05",
            "createdAt": START,
            "updatedAt": START,
        },
    }
    assert json.loads(notes.state_file("notes.json").read_text())["notes"][0]["body"] == "We chose filelock."


@pytest.mark.parametrize("body", TRICKY_BODIES)
def test_a_body_from_stdin_round_trips_exactly(notes: AppRunner, body: str) -> None:
    add(notes, "t", "--body-file", "-")
    note_id = notes.run("add", "t", "--body-file", "-", stdin=body).item["id"]
    assert notes.run("get", note_id).item["body"] == body


@pytest.mark.parametrize("body", TRICKY_BODIES[:-1])
def test_update_takes_the_body_from_stdin_exactly(notes: AppRunner, body: str) -> None:
    add(notes, "t", "--body", "old")
    assert notes.run("update", "nt_0001", "--body-file", "-", stdin=body).item["body"] == body


@pytest.mark.parametrize("body", TRICKY_BODIES)
def test_a_body_from_a_file_round_trips_byte_for_byte(notes: AppRunner, tmp_path: Path, body: str) -> None:
    source = tmp_path / "body.txt"
    source.write_bytes(body.encode())
    add(notes, "t", "--body-file", str(source))
    out = tmp_path / "out.txt"
    out.write_bytes(notes.run("get", "nt_0001").item["body"].encode())
    assert out.read_bytes() == source.read_bytes()


def test_a_body_of_exactly_the_limit_is_accepted(notes: AppRunner) -> None:
    body = "é" * (512 * 1024)  # two bytes each: exactly 1 MiB
    assert notes.run("add", "big", "--body-file", "-", stdin=body).ok
    assert len(notes.run("get", "nt_0001").item["body"].encode()) == 1024 * 1024


def test_list_is_newest_first_with_excerpts_not_bodies(notes: AppRunner) -> None:
    add(notes, "old", "--body", "short body")
    add(notes, "new", "--body", "word " * 100)
    items = notes.run("list").items
    assert [item["title"] for item in items] == ["new", "old"]
    assert set(items[0]) == {"id", "title", "excerpt", "tags", "dueAt", "createdAt", "updatedAt"}
    assert items[1]["excerpt"] == "short body"
    assert items[0]["excerpt"] == ("word " * 32).strip() + "…"
    assert len(items[0]["excerpt"]) == 160


def test_an_excerpt_collapses_whitespace(notes: AppRunner) -> None:
    add(notes, "t", "--body", "first line\n\n  second\tline\n")
    assert notes.run("list").items[0]["excerpt"] == "first line second line"


def test_a_huge_body_lists_as_a_short_excerpt(notes: AppRunner) -> None:
    notes.run("add", "huge", "--body-file", "-", stdin="x" * (1024 * 1024 - 1) + "\n")
    listed = notes.run("list")
    assert len(listed.stdout) < 1000


@pytest.mark.parametrize(
    ("tags", "titles"), [(["a"], ["ab", "a"]), (["a", "b"], ["ab"]), (["c"], []), ([" A "], ["ab", "a"])]
)
def test_list_by_tag_keeps_notes_with_every_tag(notes: AppRunner, tags: list[str], titles: list[str]) -> None:
    add(notes, "a", "--tag", "a")
    add(notes, "ab", "--tag", "a", "--tag", "b")
    add(notes, "none")
    args = [arg for tag in tags for arg in ("--tag", tag)]
    assert [item["title"] for item in notes.run("list", *args).items] == titles


def test_list_limit_says_the_total(notes: AppRunner) -> None:
    for title in "abc":
        add(notes, title)
    result = notes.run("list", "--limit", "2")
    assert ([item["title"] for item in result.items], result.envelope["total"]) == (["c", "b"], 3)


def test_list_due_before_keeps_follow_ups_strictly_before(notes: AppRunner) -> None:
    add(notes, "04-04", "--due-at", "2026-04-04")
    add(notes, "04-05", "--due-at", "2026-04-05")
    add(notes, "04-05 06:00", "--due-at", "2026-04-05T06:00:00Z")
    add(notes, "none")
    assert [i["title"] for i in notes.run("list", "--due-before", "2026-04-05").items] == ["04-04"]
    assert [i["title"] for i in notes.run("list", "--due-before", "2026-04-05T06:00:00.001Z").items] == [
        "04-05 06:00",
        "04-05",
        "04-04",
    ]


def test_update_replaces_fields_and_moves_updated_at(notes: AppRunner) -> None:
    with freeze_time(START):
        add(notes, "old", "--body", "old body", "--due-at", "2026-04-05")
    with freeze_time("2026-04-02T00:00:00Z"):
        item = notes.run("update", "nt_0001", "--title", "new", "--body", "new body", "--clear-due-at").item
    assert (item["title"], item["body"], item["dueAt"], item["updatedAt"]) == (
        "new",
        "new body",
        None,
        "2026-04-02T00:00:00.000Z",
    )


def test_update_with_the_same_values_changes_nothing(notes: AppRunner) -> None:
    with freeze_time(START):
        add(notes, "same", "--body", "b")
    before = notes.state_file("notes.json").read_bytes()
    with freeze_time("2026-04-02T00:00:00Z"):
        assert notes.run("update", "nt_0001", "--body", "b").item["updatedAt"] == START
    assert notes.state_file("notes.json").read_bytes() == before


@pytest.mark.parametrize(
    ("body", "text", "result"),
    [
        ("", "first", "first"),
        ("a", "b", "a\nb"),
        ("a\n", "b", "a\nb"),
        ("a", "multi\nline\n", "a\nmulti\nline\n"),
    ],
)
def test_append_adds_the_text_on_a_new_line(notes: AppRunner, body: str, text: str, result: str) -> None:
    add(notes, "t", "--body", body)
    assert notes.run("append", "nt_0001", text).item["body"] == result


def test_append_reads_the_text_from_stdin(notes: AppRunner) -> None:
    add(notes, "t", "--body", "start")
    assert (
        notes.run("append", "nt_0001", "--text-file", "-", stdin='`x` "y"\n').item["body"]
        == 'start\n`x` "y"\n'
    )


@pytest.mark.parametrize(
    ("given", "tags"),
    [(["B", "a"], ["a", "b"]), (["a", " A ", "a"], ["a"]), (["Machine-Learning"], ["machine-learning"])],
)
def test_tags_are_normalised_unique_and_sorted(notes: AppRunner, given: list[str], tags: list[str]) -> None:
    add(notes, "t")
    assert notes.run("tag", "nt_0001", *given).item["tags"] == tags


def test_untag_removes_tags_and_ignores_absent_ones(notes: AppRunner) -> None:
    add(notes, "t", "--tag", "a", "--tag", "b")
    assert notes.run("untag", "nt_0001", "A", "zzz").item["tags"] == ["b"]


def test_tagging_with_tags_it_has_changes_nothing(notes: AppRunner) -> None:
    with freeze_time(START):
        add(notes, "t", "--tag", "a")
    before = notes.state_file("notes.json").read_bytes()
    with freeze_time("2026-04-02T00:00:00Z"):
        assert notes.run("tag", "nt_0001", "A").item["updatedAt"] == START
        assert notes.run("untag", "nt_0001", "zzz").item["updatedAt"] == START
    assert notes.state_file("notes.json").read_bytes() == before


def seed_search(notes: AppRunner) -> None:
    add(notes, "Filelock decision", "--body", "We use a lock file beside the state.", "--tag", "storage")
    add(notes, "Storage notes", "--body", "Atomic writes with os.replace and a filelock.", "--tag", "design")
    add(notes, "Unrelated", "--body", "Nothing here about it.")
    add(notes, "Newest body match", "--body", "Mentions FILELOCK in capitals.", "--tag", "misc")


def test_search_ranks_title_matches_before_body_matches(notes: AppRunner) -> None:
    seed_search(notes)
    hits = notes.run("search", "filelock").items
    assert [hit["title"] for hit in hits] == ["Filelock decision", "Newest body match", "Storage notes"]
    assert set(hits[0]) == {"id", "title", "snippet", "tags", "dueAt", "createdAt", "updatedAt"}


def test_search_needs_every_term_to_match_somewhere(notes: AppRunner) -> None:
    seed_search(notes)
    assert [hit["title"] for hit in notes.run("search", "filelock", "atomic").items] == ["Storage notes"]
    # Both have one term in the title; "Filelock decision" also has one in its tags.
    assert [hit["title"] for hit in notes.run("search", "storage filelock").items] == [
        "Filelock decision",
        "Storage notes",
    ]
    assert notes.run("search", "filelock", "nowhere").items == []


def test_search_matches_tags_and_ranks_them_after_titles(notes: AppRunner) -> None:
    seed_search(notes)
    assert [hit["title"] for hit in notes.run("search", "design").items] == ["Storage notes"]
    assert [hit["title"] for hit in notes.run("search", "storage").items] == [
        "Storage notes",
        "Filelock decision",
    ]


def test_search_filters_by_tag_and_limits(notes: AppRunner) -> None:
    seed_search(notes)
    assert [hit["title"] for hit in notes.run("search", "filelock", "--tag", "design").items] == [
        "Storage notes"
    ]
    limited = notes.run("search", "filelock", "--limit", "1")
    assert (limited.envelope["count"], limited.envelope["total"]) == (1, 3)


def test_search_snippets_surround_the_first_match(notes: AppRunner) -> None:
    body = (
        "Intro sentence that goes on for quite a while before anything. " * 3
        + "The NEEDLE is here. "
        + "tail " * 60
    )
    add(notes, "haystack", "--body", body)
    snippet = notes.run("search", "needle").items[0]["snippet"]
    assert snippet.startswith("…")
    assert snippet.endswith("…")
    assert "NEEDLE is here" in snippet
    assert len(snippet) <= 162


def test_search_without_a_body_match_gives_the_start_of_the_body(notes: AppRunner) -> None:
    add(notes, "Needle in the title", "--body", "Body text.")
    assert notes.run("search", "needle").items[0]["snippet"] == "Body text."


@pytest.mark.parametrize(
    ("now", "titles"),
    [
        ("2026-04-04T23:59:59.999Z", ["04-04"]),
        ("2026-04-05T00:00:00.000Z", ["04-04", "04-05"]),
        ("2026-04-05T12:00:00.000Z", ["04-04", "04-05", "04-05 12:00"]),
    ],
)
def test_due_lists_follow_ups_that_have_come_oldest_first(
    notes: AppRunner, now: str, titles: list[str]
) -> None:
    add(notes, "04-05 12:00", "--due-at", "2026-04-05T12:00:00Z")
    add(notes, "04-05", "--due-at", "2026-04-05")
    add(notes, "04-04", "--due-at", "2026-04-04")
    add(notes, "none")
    with freeze_time(now):
        items = notes.run("due").items
    assert [item["title"] for item in items] == titles
    assert all("excerpt" in item for item in items)


def test_due_before_looks_ahead(notes: AppRunner) -> None:
    add(notes, "04-10", "--due-at", "2026-04-10")
    add(notes, "04-20", "--due-at", "2026-04-20")
    with freeze_time(START):
        assert [i["title"] for i in notes.run("due", "--before", "2026-04-11").items] == ["04-10"]


def test_remove_with_confirm_deletes_and_ids_are_never_reused(notes: AppRunner) -> None:
    add(notes, "a")
    add(notes, "b")
    assert notes.run("remove", "nt_0002", "--confirm").item["title"] == "b"
    assert notes.run("get", "nt_0002").error_code == "NOT_FOUND"
    assert add(notes, "c") == "nt_0003"
