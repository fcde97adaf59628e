"""agentic-to-do, command by command, in-process with the clock frozen by freezegun."""

from __future__ import annotations

import json

import pytest
from freezegun import freeze_time

from agentapps.harness import AppRunner

START = "2026-04-01T00:00:00.000Z"


def add(todo: AppRunner, *args: str) -> str:
    result = todo.run("add", *args)
    assert result.exit_status == 0
    return str(result.item["id"])


@freeze_time(START)
def test_add_returns_the_item_with_every_field(todo: AppRunner) -> None:
    result = todo.run("add", "Write docs", "--due-at", "2026-04-05")
    assert result.exit_status == 0
    assert result.envelope == {
        "ok": True,
        "command": "add",
        "item": {
            "id": "td_0001",
            "title": "Write docs",
            "description": "",
            "status": "open",
            "dueAt": "2026-04-05",
            "createdAt": START,
            "updatedAt": START,
            "completedAt": None,
        },
    }


@freeze_time(START)
def test_add_persists_the_item_in_the_state_file(todo: AppRunner) -> None:
    add(todo, "Write docs", "--description", "all of them")
    state = json.loads(todo.state_file("todos.json").read_text())
    assert state["schemaVersion"] == 1
    assert state["nextId"] == 2
    assert [item["title"] for item in state["items"]] == ["Write docs"]
    assert todo.run("get", "td_0001").item["description"] == "all of them"


@pytest.mark.parametrize(
    ("given", "stored"),
    [
        ("2026-04-05", "2026-04-05"),
        ("2026-04-05T09:30:00Z", "2026-04-05T09:30:00.000Z"),
        ("2026-04-05T09:30:00+02:00", "2026-04-05T07:30:00.000Z"),
        ("2026-04-05T23:30:00.5-01:00", "2026-04-06T00:30:00.500Z"),
        ("2026-04-05T09:30Z", "2026-04-05T09:30:00.000Z"),
    ],
)
def test_due_at_keeps_dates_and_stores_instants_in_utc(todo: AppRunner, given: str, stored: str) -> None:
    assert todo.run("add", "x", "--due-at", given).item["dueAt"] == stored


def test_ids_count_up_and_are_never_reused_after_a_remove(todo: AppRunner) -> None:
    assert [add(todo, title) for title in ("a", "b", "c")] == ["td_0001", "td_0002", "td_0003"]
    assert todo.run("remove", "td_0003", "--confirm").ok
    assert add(todo, "d") == "td_0004"


def test_ids_grow_past_four_digits(todo: AppRunner) -> None:
    todo.state_dir.mkdir()
    todo.state_file("todos.json").write_text('{"schemaVersion": 1, "nextId": 9999, "items": []}')
    assert add(todo, "a") == "td_9999"
    assert add(todo, "b") == "td_10000"
    assert todo.run("get", "td_10000").item["title"] == "b"


def test_list_defaults_to_all_items_in_creation_order(todo: AppRunner) -> None:
    for title in ("first", "second", "third"):
        add(todo, title)
    todo.run("complete", "td_0002")
    result = todo.run("list")
    assert set(result.envelope) == {"ok", "command", "count", "items"}
    assert result.envelope["count"] == 3
    assert [item["title"] for item in result.items] == ["first", "second", "third"]


@pytest.mark.parametrize(
    ("status", "titles"),
    [("all", ["first", "second", "third"]), ("open", ["first", "third"]), ("completed", ["second"])],
)
def test_list_filters_by_status(todo: AppRunner, status: str, titles: list[str]) -> None:
    for title in ("first", "second", "third"):
        add(todo, title)
    todo.run("complete", "td_0002")
    assert [item["title"] for item in todo.run("list", "--status", status).items] == titles


@pytest.mark.parametrize(("limit", "shown"), [("0", []), ("2", ["a", "b"]), ("10", ["a", "b", "c"])])
def test_list_limit_returns_at_most_n_and_says_the_total(
    todo: AppRunner, limit: str, shown: list[str]
) -> None:
    for title in ("a", "b", "c"):
        add(todo, title)
    result = todo.run("list", "--limit", limit)
    assert [item["title"] for item in result.items] == shown
    assert result.envelope["count"] == len(shown)
    assert result.envelope["total"] == 3


def test_list_on_an_empty_state_is_an_empty_list(todo: AppRunner) -> None:
    assert todo.run("list").envelope == {"ok": True, "command": "list", "count": 0, "items": []}
    assert not todo.state_dir.exists()  # a read creates nothing


@pytest.mark.parametrize(
    ("bound", "titles"),
    [
        ("2026-04-05", ["due 04-04", "due 04-04 23:59Z"]),
        ("2026-04-06", ["due 04-04", "due 04-04 23:59Z", "due 04-05"]),
        ("2026-04-05T00:00:00Z", ["due 04-04", "due 04-04 23:59Z"]),
        ("2026-04-04T23:59:30Z", ["due 04-04 23:59Z"]),
    ],
)
def test_list_due_before_keeps_items_due_strictly_before(
    todo: AppRunner, bound: str, titles: list[str]
) -> None:
    add(todo, "due 04-04", "--due-at", "2026-04-04")
    add(todo, "due 04-04 23:59Z", "--due-at", "2026-04-04T23:59:00Z")
    add(todo, "due 04-05", "--due-at", "2026-04-05")
    add(todo, "no due")
    assert [item["title"] for item in todo.run("list", "--due-before", bound).items] == titles


@pytest.mark.parametrize(
    ("now", "overdue"),
    [
        ("2026-04-05T23:59:59.999Z", ["instant"]),
        ("2026-04-06T00:00:00.000Z", ["date", "instant"]),
        ("2026-04-05T11:59:59.999Z", []),
    ],
)
def test_overdue_means_open_and_past_due_with_dates_lasting_the_utc_day(
    todo: AppRunner, now: str, overdue: list[str]
) -> None:
    with freeze_time(START):
        add(todo, "date", "--due-at", "2026-04-05")
        add(todo, "instant", "--due-at", "2026-04-05T12:00:00Z")
        add(todo, "done", "--due-at", "2026-04-01")
        add(todo, "no due")
        todo.run("complete", "td_0003")
    with freeze_time(now):
        assert [item["title"] for item in todo.run("list", "--overdue").items] == overdue


def test_get_returns_the_item(todo: AppRunner) -> None:
    add(todo, "a")
    result = todo.run("get", "td_0001")
    assert result.envelope["command"] == "get"
    assert result.item["title"] == "a"


def test_update_changes_the_given_fields_and_moves_updated_at(todo: AppRunner) -> None:
    with freeze_time(START):
        add(todo, "old", "--due-at", "2026-04-05")
    with freeze_time("2026-04-02T10:00:00Z"):
        item = todo.run("update", "td_0001", "--title", "new", "--description", "more").item
    assert (item["title"], item["description"], item["dueAt"]) == ("new", "more", "2026-04-05")
    assert (item["createdAt"], item["updatedAt"]) == (START, "2026-04-02T10:00:00.000Z")
    assert todo.run("get", "td_0001").item == item


def test_update_clear_due_at_sets_due_to_null(todo: AppRunner) -> None:
    add(todo, "a", "--due-at", "2026-04-05")
    assert todo.run("update", "td_0001", "--clear-due-at").item["dueAt"] is None


def test_update_to_the_same_values_changes_nothing(todo: AppRunner) -> None:
    with freeze_time(START):
        add(todo, "same")
    before = todo.state_file("todos.json").read_bytes()
    with freeze_time("2026-04-02T10:00:00Z"):
        assert todo.run("update", "td_0001", "--title", "same").item["updatedAt"] == START
    assert todo.state_file("todos.json").read_bytes() == before


def test_complete_sets_status_and_completed_at(todo: AppRunner) -> None:
    with freeze_time(START):
        add(todo, "a")
    with freeze_time("2026-04-03T08:00:00Z"):
        item = todo.run("complete", "td_0001").item
    assert (item["status"], item["completedAt"], item["updatedAt"]) == (
        "completed",
        "2026-04-03T08:00:00.000Z",
        "2026-04-03T08:00:00.000Z",
    )


def test_completing_again_succeeds_and_changes_nothing(todo: AppRunner) -> None:
    with freeze_time(START):
        add(todo, "a")
        first = todo.run("complete", "td_0001").item
    before = todo.state_file("todos.json").read_bytes()
    with freeze_time("2026-04-09T00:00:00Z"):
        again = todo.run("complete", "td_0001")
    assert again.exit_status == 0
    assert again.item == first
    assert todo.state_file("todos.json").read_bytes() == before


def test_reopen_undoes_complete(todo: AppRunner) -> None:
    with freeze_time(START):
        add(todo, "a")
        todo.run("complete", "td_0001")
    with freeze_time("2026-04-02T00:00:00Z"):
        item = todo.run("reopen", "td_0001").item
    assert (item["status"], item["completedAt"], item["updatedAt"]) == (
        "open",
        None,
        "2026-04-02T00:00:00.000Z",
    )


def test_reopening_an_open_item_changes_nothing(todo: AppRunner) -> None:
    with freeze_time(START):
        item = todo.run("add", "a").item
    before = todo.state_file("todos.json").read_bytes()
    with freeze_time("2026-04-02T00:00:00Z"):
        assert todo.run("reopen", "td_0001").item == item
    assert todo.state_file("todos.json").read_bytes() == before


def test_remove_with_confirm_returns_the_item_and_deletes_it(todo: AppRunner) -> None:
    add(todo, "a")
    add(todo, "b")
    removed = todo.run("remove", "td_0001", "--confirm")
    assert removed.envelope["command"] == "remove"
    assert removed.item["title"] == "a"
    assert todo.run("get", "td_0001").error_code == "NOT_FOUND"
    assert [item["id"] for item in todo.run("list").items] == ["td_0002"]


@pytest.mark.parametrize(
    ("title", "description"),
    [
        ("Café ☕ — naïve 日本語", 'multi\nline\n\ttabbed "quotes" `backticks` and \\ backslash'),
        ("emoji 🧪🚀", "trailing newline\n"),
    ],
)
def test_unicode_and_multiline_text_round_trips_exactly(
    todo: AppRunner, title: str, description: str
) -> None:
    add(todo, title, "--description", description)
    item = todo.run("get", "td_0001").item
    assert (item["title"], item["description"]) == (title, description)


def test_title_is_trimmed(todo: AppRunner) -> None:
    assert todo.run("add", "  padded  ").item["title"] == "padded"


def test_a_title_starting_with_a_dash_goes_after_double_dash(todo: AppRunner) -> None:
    assert todo.run("add", "--", "-1 regression").item["title"] == "-1 regression"


def test_human_flag_prints_text_instead_of_json(todo: AppRunner) -> None:
    add(todo, "Write docs", "--due-at", "2026-04-05")
    out = todo.run_human("list")
    assert out.exit_status == 0
    assert out.stdout == "td_0001  [open]  Write docs  due 2026-04-05\n(1 item)\n"


def test_human_flag_keeps_the_error_exit_status(todo: AppRunner) -> None:
    out = todo.run_human("get", "td_0404")
    assert out.exit_status == 4
    assert out.stdout.startswith("Error NOT_FOUND: No to-do with id td_0404.\nHint: ")


@pytest.mark.parametrize("args", [["add", "--help"], ["--help"]])
def test_help_comes_back_inside_the_envelope(todo: AppRunner, args: list[str]) -> None:
    result = todo.run(*args)
    assert set(result.envelope) == {"ok", "command", "help"}
    assert result.envelope["command"] == (args[0] if args[0] != "--help" else None)
    assert "Usage:" in result.envelope["help"]
