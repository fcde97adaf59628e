"""Backup for every app: what one app's `export` prints, its `import` restores exactly into an
empty state, refuses as already there, and never adds twice; the kit's reading of an export
lets each item's parsed JSON go as its model is made, so its memory is about that of the items."""

from __future__ import annotations

import json
import tracemalloc
from pathlib import Path
from typing import Any

import pytest

from agentapps.harness import AppRunner
from agentic_kit import backup
from agentic_kit.store import CamelModel
from tests.packages import AppFacts
from tests.states import open_todo

NOW = {"AGENTIC_NOW": "2026-04-01T09:00:00Z"}
LATER = {"AGENTIC_NOW": "2026-04-01T10:00:00Z"}

# A day's use of each app: entities made, changed and one removed, so ids have a gap and the
# counter is past the highest id that is left.
DAY: dict[str, list[tuple[str, ...]]] = {
    "agentic-to-do": [
        ("add", "call plumber", "--tag", "home", "--due-at", "2026-04-03"),
        ("add", "pay rent", "--repeat", "monthly", "--due-at", "2026-04-30"),
        ("add", "gone"),
        ("complete", "td_0001"),
        ("remove", "td_0003", "--confirm"),
    ],
    "agentic-notes": [
        ("add", "Lock choice", "--body", "We chose filelock.\nNo daemon.", "--tag", "decisions"),
        ("add", "José Núñez", "--due-at", "2026-04-10"),
        ("add", "gone"),
        ("append", "nt_0001", "Reviewed."),
        ("remove", "nt_0003", "--confirm"),
    ],
    "agentic-timer": [
        ("start", "--duration", "25m", "tea"),
        ("start", "--stopwatch", "standup"),
        ("start", "gone", "--stopwatch"),
        ("pause", "tm_0002"),
        ("stop", "tm_0001"),
        ("remove", "tm_0003", "--confirm"),
    ],
}


def lived_a_day(app: AppRunner, package: str) -> dict[str, Any]:
    for call in DAY[package]:
        assert app.run(*call, env=NOW).ok, call
    exported = app.run("export", env=NOW)
    assert exported.exit_status == 0
    return exported.envelope


def state_bytes(folder: Path, facts: AppFacts) -> bytes | None:
    path = folder / facts.state_file
    return path.read_bytes() if path.exists() else None


def test_an_export_restored_into_an_empty_state_is_the_same_state(
    facts: AppFacts, app_runner: Any, tmp_path: Path
) -> None:
    app: AppRunner = app_runner(facts.package)
    exported = lived_a_day(app, facts.package)
    backup_file = tmp_path / "export.json"
    backup_file.write_text(json.dumps(exported), encoding="utf-8")
    copy = tmp_path / "copy"
    in_copy = {**LATER, "AGENTIC_STATE_DIR": str(copy)}
    imported = app.run("import", "--file", str(backup_file), env=in_copy)
    assert imported.envelope == {
        "ok": True,
        "command": "import",
        "count": exported["count"],
        "restored": True,
        "ids": {},
    }
    # Same ids, same fields, same counter: the export of the copy is the export of the original.
    assert app.run("export", env=in_copy).envelope == exported
    assert state_bytes(copy, facts) == state_bytes(app.state_dir, facts)


REMOVE_FIRST = {"agentic-to-do": "td_0001", "agentic-notes": "nt_0001", "agentic-timer": "tm_0001"}


def test_an_emptied_state_renumbers_an_export_holding_an_id_it_handed_out(
    facts: AppFacts, app_runner: Any, tmp_path: Path
) -> None:
    """Found by an outside review: an emptied state restored an export's first id, which it had
    handed out for an item removed since, so that id named a second item. Where the state has
    handed out an id of the export, every item gets a new id (all or none), and the id handed
    out here names nothing."""
    app: AppRunner = app_runner(facts.package)
    exported = lived_a_day(app, facts.package)  # its first id is the first any state hands out
    here = {**LATER, "AGENTIC_STATE_DIR": str(tmp_path / "here")}
    assert app.run(*DAY[facts.package][0], env=here).ok
    assert app.run("remove", REMOVE_FIRST[facts.package], "--confirm", env=here).ok
    imported = app.run("import", "--file", "-", stdin=json.dumps(exported), env=here)
    assert (imported.exit_status, imported.envelope["restored"]) == (0, False), imported.envelope
    exported_ids = [item["id"] for item in exported["items"]]
    listed = [item["id"] for item in app.run("export", env=here).envelope["items"]]
    assert REMOVE_FIRST[facts.package] not in listed
    assert imported.envelope["ids"] == dict(zip(exported_ids, listed, strict=True))
    assert app.run("get", REMOVE_FIRST[facts.package], env=here).error_code == "NOT_FOUND"


def test_an_emptied_state_restores_an_export_whose_ids_it_never_reached(
    facts: AppFacts, app_runner: Any, tmp_path: Path
) -> None:
    """Emptied, but its counter below every id of the export: nothing it handed out is taken
    again, so the export is restored with its ids."""
    app: AppRunner = app_runner(facts.package)
    exported = lived_a_day(app, facts.package)
    moved = {**exported, "nextId": exported["nextId"] + 10}
    prefix = REMOVE_FIRST[facts.package].split("_")[0]
    moved["items"] = [
        {**item, "id": f"{prefix}_{int(item['id'].split('_')[1]) + 10:04d}"} for item in exported["items"]
    ]
    here = {**LATER, "AGENTIC_STATE_DIR": str(tmp_path / "here")}
    assert app.run(*DAY[facts.package][0], env=here).ok
    assert app.run("remove", REMOVE_FIRST[facts.package], "--confirm", env=here).ok
    imported = app.run("import", "--file", "-", stdin=json.dumps(moved), env=here)
    assert (imported.exit_status, imported.envelope["restored"], imported.envelope["ids"]) == (0, True, {})
    assert [item["id"] for item in app.run("export", env=here).envelope["items"]] == [
        item["id"] for item in moved["items"]
    ]


def test_an_export_listed_out_of_id_order_is_restored_with_its_ids(
    facts: AppFacts, app_runner: Any, tmp_path: Path
) -> None:
    """Found from outside: an export whose items were reversed was renumbered into an empty state,
    two items trading ids. The ids stay; the state keeps them in id order, as it made them."""
    app: AppRunner = app_runner(facts.package)
    exported = lived_a_day(app, facts.package)
    reversed_export = {**exported, "items": exported["items"][::-1]}
    in_copy = {**LATER, "AGENTIC_STATE_DIR": str(tmp_path / "copy")}
    imported = app.run("import", "--file", "-", stdin=json.dumps(reversed_export), env=in_copy)
    assert (imported.exit_status, imported.envelope["restored"], imported.envelope["ids"]) == (0, True, {})
    assert state_bytes(tmp_path / "copy", facts) == state_bytes(app.state_dir, facts)


def test_importing_ones_own_export_again_after_a_change_adds_nothing(
    facts: AppFacts, app_runner: Any
) -> None:
    """The finding: an item changed since its export was no longer equal, so it was added again."""
    app: AppRunner = app_runner(facts.package)
    exported = lived_a_day(app, facts.package)
    changed = {
        "agentic-to-do": ("update", "td_0002", "--title", "pay the rent"),
        "agentic-notes": ("append", "nt_0002", "Called back."),
        "agentic-timer": ("resume", "tm_0002"),
    }[facts.package]
    assert app.run(*changed, env=LATER).ok
    before = state_bytes(app.state_dir, facts)
    again = app.run("import", "--file", "-", stdin=json.dumps(exported), env=LATER)
    assert (again.exit_status, again.error_code) == (6, "CONFLICT")
    assert f"{exported['count']} of the export's {exported['count']}" in again.envelope["error"]["message"]
    assert state_bytes(app.state_dir, facts) == before


def test_an_export_of_one_app_is_refused_by_another_and_changes_nothing(app_runner: Any) -> None:
    notes: AppRunner = app_runner("agentic-notes")
    exported = lived_a_day(notes, "agentic-notes")
    timer: AppRunner = app_runner("agentic-timer")
    assert timer.run("start", "kept", "--stopwatch", env=NOW).ok
    refused = timer.run("import", "--file", "-", stdin=json.dumps(exported), env=LATER)
    assert (refused.exit_status, refused.error_code) == (3, "VALIDATION_ERROR")
    assert (
        refused.envelope["error"]["message"] == "--file is an export of agentic-notes, not of agentic-timer."
    )
    assert timer.run("list", "--status", "all", env=LATER).envelope["count"] == 1


def test_an_export_holding_one_item_already_there_adds_none_of_the_others(notes: AppRunner) -> None:
    assert notes.run("add", "kept", env=NOW).ok
    kept = notes.run("get", "nt_0001", env=NOW).item
    other = dict(kept, id="nt_0002", title="new", createdAt="2026-03-01T00:00:00.000Z")
    other["updatedAt"] = other["createdAt"]
    document = {"schemaVersion": 1, "items": [other, kept]}
    refused = notes.run("import", "--file", "-", stdin=json.dumps(document), env=LATER)
    assert refused.error_code == "CONFLICT"
    assert "nt_0001 as nt_0001" in refused.envelope["error"]["message"]
    assert [note["id"] for note in notes.run("list", env=LATER).envelope["items"]] == ["nt_0001"]


@pytest.mark.parametrize("placement", [("--file=-",), ("--file", "-")])
def test_import_takes_its_file_option_in_either_form(timer: AppRunner, placement: tuple[str, ...]) -> None:
    document = {"schemaVersion": 1, "nextId": 4, "items": []}
    imported = timer.run("import", *placement, stdin=json.dumps(document), env=NOW)
    assert imported.envelope == {"ok": True, "command": "import", "count": 0, "restored": True, "ids": {}}
    # No timers, but the counter is restored: ids the original handed out stay unused.
    assert timer.run("start", "first", "--stopwatch", env=NOW).item["id"] == "tm_0004"


def test_import_without_a_file_is_a_usage_error_that_creates_nothing(todo: AppRunner) -> None:
    refused = todo.run("import", env=NOW)
    assert (refused.exit_status, refused.error_code) == (2, "USAGE_ERROR")
    assert not (todo.state_dir / "todos.json").exists()


class Entry(CamelModel):
    """An item of a state, as small as the apps' (the kit reads any app's)."""

    id: str
    title: str
    description: str
    status: str
    due_at: str | None
    created_at: str
    updated_at: str
    completed_at: str | None
    tags: list[str]
    priority: str | None
    repeat: str | None


def test_reading_an_export_costs_about_the_memory_of_its_items() -> None:
    """The finding: the parsed document and a second parse for repeated keys were held together
    beside the items' models (a 100,000-item to-do import peaked above what a change of the state
    it made costs). Now each item's JSON is let go as its model is made: the peak while reading
    stays near what the items keep (it was about 1.46 times that)."""
    count = 5000
    moment = "2026-04-01T00:00:00.000Z"
    items = [open_todo(number, f"item {number}", moment) for number in range(1, count + 1)]
    text = json.dumps({"schemaVersion": 2, "items": items})
    del items
    tracemalloc.start()
    try:
        read = backup.parse_export("--file", text, Entry.model_validate, 2, lambda entry: None)
        kept, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert [entry.id for entry in read.items[:2]] == ["td_0001", "td_0002"]
    assert len(read.items) == count
    assert peak <= 1.25 * kept, (peak, kept)
