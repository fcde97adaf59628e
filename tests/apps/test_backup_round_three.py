"""Import, as an outside adversary found it after round two: a retried import after renumbering and
edits, stamps after the clock, another app's export, messages that quoted a regex or misnamed a
range, a count that does not match its items, and a read that held the limit's bytes to find it."""

from __future__ import annotations

import json
import os
import tracemalloc
from pathlib import Path
from typing import Any

import pytest

from agentapps.harness import AppRunner
from agentic_kit import inputs
from agentic_kit.errors import AppError
from tests.apps.test_backup import LATER, NOW, lived_a_day, state_bytes
from tests.packages import AppFacts
from tests.states import open_todo

EDIT = {
    "agentic-to-do": ("update", "td_0005", "--title", "pay the rent, edited"),
    "agentic-notes": ("append", "nt_0005", "Edited after the import."),
    "agentic-timer": ("resume", "tm_0005"),
}


def test_a_retried_import_after_renumbering_and_edits_adds_nothing(
    facts: AppFacts, app_runner: Any, tmp_path: Path
) -> None:
    """The finding: imported into a state with items (new ids), then edited, the same export
    imported again was added a second time: its items matched nothing by id or by content."""
    app: AppRunner = app_runner(facts.package)
    exported = json.dumps(lived_a_day(app, facts.package))
    folder = tmp_path / "target"
    # The other state's items were made at another moment: no id and createdAt of theirs is shared.
    now = {"AGENTIC_NOW": "2026-03-31T09:00:00Z", "AGENTIC_STATE_DIR": str(folder)}
    later = {**LATER, "AGENTIC_STATE_DIR": str(folder)}
    for call in DAY_OF_TARGET[facts.package]:
        assert app.run(*call, env=now).ok, call
    first = app.run("import", "--file", "-", stdin=exported, env=later)
    assert (first.exit_status, first.envelope["restored"]) == (0, False), first.envelope
    assert app.run(*EDIT[facts.package], env=later).ok  # the second exported item, now edited
    before = state_bytes(folder, facts)
    again = app.run("import", "--file", "-", stdin=exported, env=later)
    assert (again.exit_status, again.error_code) == (6, "CONFLICT")
    message = again.envelope["error"]["message"]
    assert "2 of the export's 2" in message
    prefix = first.envelope["ids"][next(iter(first.envelope["ids"]))].partition("_")[0]
    assert f"_0002 as {prefix}_0005" in message  # the edited one, named by its id here
    assert state_bytes(folder, facts) == before


DAY_OF_TARGET: dict[str, list[tuple[str, ...]]] = {
    "agentic-to-do": [("add", "a"), ("add", "b"), ("add", "c")],
    "agentic-notes": [("add", "a"), ("add", "b"), ("add", "c")],
    "agentic-timer": [
        ("start", "a", "--stopwatch"),
        ("start", "b", "--stopwatch"),
        ("start", "c", "--stopwatch"),
    ],
}


def test_an_imported_item_removed_since_can_be_imported_again(todo: AppRunner) -> None:
    """What an import remembers is where each item it still holds came from: one removed since is
    gone, and importing it again restores it rather than refusing it."""
    assert todo.run("add", "here first", env=NOW).ok
    document = json.dumps(
        {"schemaVersion": 2, "items": [open_todo(1, "from a backup", "2026-03-01T00:00:00.000Z")]}
    )
    assert todo.run("import", "--file", "-", stdin=document, env=NOW).envelope["ids"] == {
        "td_0001": "td_0002"
    }
    assert todo.run("remove", "td_0002", "--confirm", env=NOW).ok
    again = todo.run("import", "--file", "-", stdin=document, env=NOW)
    assert (again.exit_status, again.envelope["ids"]) == (0, {"td_0001": "td_0003"})


@pytest.mark.parametrize("field", ["createdAt", "updatedAt", "completedAt"])
def test_a_stamp_after_the_clock_is_refused_naming_the_item_and_field(todo: AppRunner, field: str) -> None:
    """The finding: createdAt 9997 was accepted, and the item could then never be changed or
    completed (a daily repeat could never be done). A due date far ahead stays fine."""
    item = open_todo(1, "from the future", "2026-03-01T00:00:00.000Z", due_at="9997-01-01")
    item.update(status="completed", completedAt="2026-03-01T00:00:00.000Z", repeat="daily")
    item[field] = "9997-01-01T00:00:00.000Z"
    if field == "createdAt":
        item.update(updatedAt=item[field], completedAt=item[field])
    elif field == "updatedAt":
        item["completedAt"] = "2026-03-01T00:00:00.000Z"
    else:
        item["updatedAt"] = item[field]
    document = json.dumps({"schemaVersion": 2, "items": [item]})
    refused = todo.run("import", "--file", "-", stdin=document, env=NOW)
    assert (refused.exit_status, refused.error_code) == (3, "VALIDATION_ERROR")
    message = refused.envelope["error"]["message"]
    assert message.startswith("--file item 1 (td_0001): ")
    # A stamp after the clock makes the ones it bounds late too (updatedAt is never before them).
    assert f"{field} 9997-01-01T00:00:00.000Z" in message
    assert " more than 366 days after the clock (2026-04-01T09:00:00.000Z)" in message
    assert not (todo.state_dir / "todos.json").exists()


@pytest.mark.parametrize(
    ("stamp", "kept"),
    [
        ("2026-04-08T09:00:00.000Z", True),  # a week ahead: a look-ahead with AGENTIC_NOW
        ("2027-04-02T09:00:00.000Z", True),  # 366 days ahead, the last moment kept
        ("2027-04-02T09:00:00.001Z", False),  # a millisecond more
    ],
)
def test_a_moment_less_than_a_year_after_the_clock_is_kept(todo: AppRunner, stamp: str, kept: bool) -> None:
    """Found by a day trial: after a change made with AGENTIC_NOW a week ahead, the app's own
    backup could not be restored at the real time, not even into an empty state, until the clock
    caught up. The apps' own states hold such moments (moments never go backwards), so an import
    keeps them up to 366 days after the clock; beyond that a stamp was typed wrong."""
    item = open_todo(1, "changed with the clock ahead", stamp)
    refused_or_kept = todo.run(
        "import", "--file", "-", stdin=json.dumps({"schemaVersion": 2, "items": [item]}), env=NOW
    )
    assert refused_or_kept.ok is kept, refused_or_kept.envelope
    if kept:
        assert todo.run("get", "td_0001", env=NOW).item["createdAt"] == stamp
        changed = todo.run("complete", "td_0001", env=NOW)
        assert changed.ok
        assert changed.item["completedAt"] == changed.item["updatedAt"] == stamp  # never backwards
    else:
        assert not (todo.state_dir / "todos.json").exists()


def test_a_clock_near_the_last_representable_year_still_reads_an_export(todo: AppRunner) -> None:
    """A year after a clock in the last year the apps keep is past it: every moment up to the last is kept."""
    item = open_todo(1, "at the end of time", "9997-12-31T00:00:00.000Z")
    late = {"AGENTIC_NOW": "9997-06-01T00:00:00Z"}
    imported = todo.run(
        "import", "--file", "-", stdin=json.dumps({"schemaVersion": 2, "items": [item]}), env=late
    )
    assert imported.ok, imported.envelope


def test_a_due_date_far_ahead_is_imported(todo: AppRunner) -> None:
    item = open_todo(1, "far ahead", "2026-03-01T00:00:00.000Z", due_at="9997-01-01")
    imported = todo.run(
        "import", "--file", "-", stdin=json.dumps({"schemaVersion": 2, "items": [item]}), env=NOW
    )
    assert imported.exit_status == 0
    assert todo.run("get", "td_0001", env=NOW).item["dueAt"] == "9997-01-01"


@pytest.mark.parametrize(
    ("source", "target"), [("agentic-notes", "agentic-to-do"), ("agentic-to-do", "agentic-timer")]
)
def test_another_apps_export_is_named_as_such(app_runner: Any, source: str, target: str) -> None:
    """The finding: a notes export imported into to-do was called "from a newer version"."""
    exported = lived_a_day(app_runner(source), source)
    into: AppRunner = app_runner(target)
    refused = into.run("import", "--file", "-", stdin=json.dumps(exported), env=LATER)
    assert (refused.exit_status, refused.error_code) == (3, "VALIDATION_ERROR")
    assert refused.envelope["error"]["message"] == f"--file is an export of {source}, not of {target}."
    # An export that does not name its app (an older one) is known by its items' ids.
    del exported["app"]
    unnamed = into.run("import", "--file", "-", stdin=json.dumps(exported), env=LATER)
    assert "is another app's export: its items' ids start" in unnamed.envelope["error"]["message"]
    assert not into.state_dir.exists() or not any(into.state_dir.iterdir())


def test_a_malformed_stamp_is_described_in_words_not_a_pattern(notes: AppRunner) -> None:
    note: dict[str, Any] = {"id": "nt_0001", "title": "t", "body": "", "tags": [], "dueAt": None}
    note.update(createdAt="2026-03-01 10:00", updatedAt="2026-03-01T10:00:00.000Z")
    refused = notes.run(
        "import", "--file", "-", stdin=json.dumps({"schemaVersion": 1, "items": [note]}), env=NOW
    )
    assert refused.error_code == "VALIDATION_ERROR"
    message = refused.envelope["error"]["message"]
    assert "pattern" not in message
    assert "^" not in message
    assert "createdAt" in message
    assert "2026-04-01T09:30:00.000Z" in message


def test_a_next_id_past_the_range_is_called_out_of_range(todo: AppRunner) -> None:
    document = json.dumps({"schemaVersion": 2, "nextId": 9999999999999999, "items": []})
    refused = todo.run("import", "--file", "-", stdin=document, env=NOW)
    assert refused.error_code == "VALIDATION_ERROR"
    message = refused.envelope["error"]["message"]
    assert "out of range" in message
    assert "from 1 to" in message
    assert "not a whole number" not in message


def test_an_export_whose_count_does_not_match_its_items_is_refused(todo: AppRunner) -> None:
    """A truncated or hand-edited export: `count` says 3, two items are there."""
    items = [open_todo(number, f"item {number}", "2026-03-01T00:00:00.000Z") for number in (1, 2)]
    document = json.dumps({"schemaVersion": 2, "count": 3, "items": items})
    refused = todo.run("import", "--file", "-", stdin=document, env=NOW)
    assert (refused.exit_status, refused.error_code) == (3, "VALIDATION_ERROR")
    assert "count 3" in refused.envelope["error"]["message"]
    assert "2 items" in refused.envelope["error"]["message"]
    assert not (todo.state_dir / "todos.json").exists()
    as_text = todo.run(
        "import", "--file", "-", stdin=json.dumps({"schemaVersion": 2, "count": "2", "items": items})
    )
    assert as_text.envelope["error"]["message"] == "--file has a count that is not a whole number."
    assert not (todo.state_dir / "todos.json").exists()


def test_a_file_past_the_limit_is_refused_without_reading_it(tmp_path: Path) -> None:
    """The finding: the limit was found by reading limit + 1 bytes into memory (512 MiB for an
    export). A file whose size is past the limit is refused by its size."""
    big = tmp_path / "big.json"
    with big.open("wb") as handle:
        handle.truncate(64 * 1024 * 1024 + 1)  # sparse: costs no disk
    tracemalloc.start()
    try:
        with pytest.raises(AppError, match="larger than the limit of 67108864 bytes"):
            inputs.read_text_source("--file", str(big), max_bytes=64 * 1024 * 1024)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 1024 * 1024, peak


class EndlessStdin:
    """A stdin that never ends (`yes |`): each read gives what was asked for, and counts it."""

    def __init__(self) -> None:
        self.largest = 0

    def read(self, size: int = -1) -> bytes:
        assert size > 0, "an unbounded read of an endless stream"
        self.largest = max(self.largest, size)
        return b"y" * size


def test_an_endless_stdin_is_read_in_bounded_chunks_and_refused_at_the_limit(monkeypatch: Any) -> None:
    stream = EndlessStdin()
    monkeypatch.setattr("sys.stdin", type("Stdin", (), {"buffer": stream})())
    limit = 8 * 1024 * 1024
    with pytest.raises(AppError, match="larger than the limit"):
        inputs.read_text_source("--file", "-", max_bytes=limit)
    assert stream.largest <= 1024 * 1024


@pytest.mark.parametrize("kind", ["fifo", "device"])
def test_a_fifo_or_a_device_as_a_file_is_refused_at_once(todo: AppRunner, tmp_path: Path, kind: str) -> None:
    """The finding: `--file` naming a FIFO waited forever for a writer, and /dev/zero was read up
    to the 512 MiB limit. A path names a regular file (stdin is `-`): anything else is refused
    before it is opened."""
    if kind == "fifo":
        source = tmp_path / "pipe"
        os.mkfifo(source)
    else:
        source = Path("/dev/zero")
    refused = todo.run("import", "--file", str(source), env=NOW)
    assert (refused.exit_status, refused.error_code) == (3, "VALIDATION_ERROR"), refused.envelope
    message = refused.envelope["error"]["message"]
    assert ("a FIFO" if kind == "fifo" else "a device") in message
    assert "not a regular file" in message
    assert not (todo.state_dir / "todos.json").exists()


def test_a_fifo_as_a_notes_body_file_is_refused(notes: AppRunner, tmp_path: Path) -> None:
    source = tmp_path / "pipe"
    os.mkfifo(source)
    refused = notes.run("add", "t", "--body-file", str(source), env=NOW)
    assert (refused.exit_status, refused.error_code) == (3, "VALIDATION_ERROR"), refused.envelope
    assert "a FIFO" in refused.envelope["error"]["message"]
    assert not (notes.state_dir / "notes.json").exists()


def test_a_fifo_swapped_in_after_the_check_is_not_waited_on(tmp_path: Path, monkeypatch: Any) -> None:
    """Between the stat and the open a FIFO may replace the file: the open does not block on it."""
    source = tmp_path / "pipe"
    os.mkfifo(source)
    regular = tmp_path / "file"
    regular.write_text("{}")
    real_stat = os.stat
    # The race: the stat saw a regular file, the open finds the FIFO.
    monkeypatch.setattr(os, "stat", lambda path, *args, **kwargs: real_stat(regular))
    with pytest.raises(AppError) as refused:
        inputs.read_text_source("--file", str(source), max_bytes=1000)
    assert "a FIFO" in refused.value.message


def _export(**fields: Any) -> str:
    """A one-item to-do export with `fields` set (a value of None removes the key)."""
    document: dict[str, Any] = {
        "app": "agentic-to-do",
        "schemaVersion": 2,
        "nextId": 2,
        "count": 1,
        "items": [open_todo(1, "one", "2026-03-01T00:00:00.000Z")],
    }
    document.update(fields)
    return json.dumps(document)


def _refused(todo: AppRunner, text: str) -> str:
    refused = todo.run("import", "--file", "-", stdin=text, env=NOW)
    assert (refused.exit_status, refused.error_code) == (3, "VALIDATION_ERROR"), refused.envelope
    assert not (todo.state_dir / "todos.json").exists()
    message: str = refused.envelope["error"]["message"]
    return message


@pytest.mark.parametrize(
    ("text", "length"),
    [
        (_export(app="x" * 100_000), "100000 characters"),
        (_export(nextId=10**400), "401 digits"),
        (_export(schemaVersion=10**4000), "4001 digits"),
        (_export(count=10**4000), "4001 digits"),
        (
            _export(items=[{**open_todo(1, "one", "2026-03-01T00:00:00.000Z"), "z" * 100_000: 1}]),
            "100000 characters",
        ),
    ],
    ids=["app", "nextId", "schemaVersion", "count", "an item's unknown key"],
)
def test_a_long_value_is_echoed_cut_short_with_its_length(todo: AppRunner, text: str, length: str) -> None:
    """The finding: a 100,000-character app printed 200 KB, a 401-digit nextId all its digits."""
    message = _refused(todo, text)
    assert length in message
    assert len(message) < 400, message


@pytest.mark.parametrize("app", [5, ["agentic-to-do"], None, "", True])
def test_an_app_that_is_not_a_named_app_is_refused(todo: AppRunner, app: Any) -> None:
    """The finding: `"app": ""` printed "an export of , not of …"; 5 or a list went unchecked."""
    text = json.dumps({**json.loads(_export()), "app": app})
    message = _refused(todo, text)
    assert "app" in message
    assert "an export of ," not in message


def test_an_unknown_top_level_key_is_refused_naming_it(todo: AppRunner) -> None:
    message = _refused(todo, _export(itemz=[]))
    assert "'itemz'" in message


def test_an_export_with_a_byte_order_mark_is_called_so(todo: AppRunner) -> None:
    message = _refused(todo, "\ufeff" + _export())
    assert "byte-order mark" in message


def test_a_lone_surrogate_is_called_so(todo: AppRunner) -> None:
    text = _export().replace('"one"', '"\\ud800"')
    assert "\\ud800" in text
    message = _refused(todo, text)
    assert "lone surrogate" in message


def test_two_equal_items_already_here_are_each_named_once(todo: AppRunner) -> None:
    """The finding: an export with two equal items (but the ids), imported again, was refused as
    "td_0001 as td_0003, td_0002 as td_0003": both named as one item here."""
    assert todo.run("add", "here first", env=NOW).ok
    item = open_todo(1, "twice", "2026-03-01T00:00:00.000Z")
    text = json.dumps({"schemaVersion": 2, "items": [item, {**item, "id": "td_0002"}]})
    first = todo.run("import", "--file", "-", stdin=text, env=NOW)
    assert first.envelope["ids"] == {"td_0001": "td_0002", "td_0002": "td_0003"}, first.envelope
    before = (todo.state_dir / "todos.json").read_bytes()
    again = todo.run("import", "--file", "-", stdin=text, env=NOW)
    assert (again.exit_status, again.error_code) == (6, "CONFLICT"), again.envelope
    assert "(td_0001 as td_0002, td_0002 as td_0003)" in again.envelope["error"]["message"]
    assert (todo.state_dir / "todos.json").read_bytes() == before


def test_equal_items_added_here_are_each_named_once(todo: AppRunner) -> None:
    assert todo.run("add", "milk", env=NOW).ok
    assert todo.run("add", "milk", env=NOW).ok
    document = json.loads(todo.run("export", env=NOW).stdout)
    for number, item in zip((7, 8), document["items"], strict=True):
        item["id"] = f"td_000{number}"
    before = (todo.state_dir / "todos.json").read_bytes()
    again = todo.run("import", "--file", "-", stdin=json.dumps(document), env=NOW)
    assert (again.exit_status, again.error_code) == (6, "CONFLICT"), again.envelope
    assert "(td_0007 as td_0001, td_0008 as td_0002)" in again.envelope["error"]["message"]
    assert (todo.state_dir / "todos.json").read_bytes() == before


def test_a_retried_import_after_a_backup_and_restore_adds_nothing(
    facts: AppFacts, app_runner: Any, tmp_path: Path
) -> None:
    """The finding: the state's importedFrom was not exported, so a restore lost it (the restored
    state differed from the original) and the first export, imported again, was added twice."""
    app: AppRunner = app_runner(facts.package)
    first_export = json.dumps(lived_a_day(app, facts.package))
    x, y = tmp_path / "x", tmp_path / "y"
    in_x = {"AGENTIC_NOW": "2026-03-31T09:00:00Z", "AGENTIC_STATE_DIR": str(x)}
    for call in DAY_OF_TARGET[facts.package]:
        assert app.run(*call, env=in_x).ok, call
    in_x = {**LATER, "AGENTIC_STATE_DIR": str(x)}
    assert app.run("import", "--file", "-", stdin=first_export, env=in_x).envelope["restored"] is False
    assert app.run(*EDIT[facts.package], env=in_x).ok
    backup = app.run("export", env=in_x)
    assert backup.envelope["importedFrom"], backup.envelope  # what a retry is known by
    in_y = {**LATER, "AGENTIC_STATE_DIR": str(y)}
    restored = app.run("import", "--file", "-", stdin=backup.stdout, env=in_y)
    assert restored.envelope["restored"] is True
    assert state_bytes(y, facts) == state_bytes(x, facts)  # the state rebuilt byte for byte
    for into, env in ((y, in_y), (x, in_x)):
        before = state_bytes(into, facts)
        for document in (first_export, backup.stdout):
            again = app.run("import", "--file", "-", stdin=document, env=env)
            assert (again.exit_status, again.error_code) == (6, "CONFLICT"), again.envelope
        assert state_bytes(into, facts) == before


def test_a_renumbered_import_of_a_backup_knows_the_first_export(todo: AppRunner, tmp_path: Path) -> None:
    """A backup imported into a third state with items (renumbered again): the first export, and
    the backup itself, imported there again are known, though the item was edited on the way."""
    first = json.dumps({"schemaVersion": 2, "items": [open_todo(1, "first", "2026-03-01T00:00:00.000Z")]})
    assert todo.run("add", "x's own", env=NOW).ok
    assert todo.run("import", "--file", "-", stdin=first, env=NOW).envelope["ids"] == {"td_0001": "td_0002"}
    assert todo.run("update", "td_0002", "--title", "edited in x", env=NOW).ok
    backup = todo.run("export", env=NOW).stdout
    z = {**LATER, "AGENTIC_STATE_DIR": str(tmp_path / "z")}
    assert todo.run("add", "z's own", env=z).ok  # made later: not x's td_0001 by id and createdAt
    assert todo.run("import", "--file", "-", stdin=backup, env=z).envelope["ids"] == {
        "td_0001": "td_0002",
        "td_0002": "td_0003",
    }
    assert todo.run("update", "td_0003", "--title", "edited in z", env=z).ok
    before = (tmp_path / "z" / "todos.json").read_bytes()
    for document in (first, backup):
        again = todo.run("import", "--file", "-", stdin=document, env=z)
        assert (again.exit_status, again.error_code) == (6, "CONFLICT"), again.envelope
    assert (tmp_path / "z" / "todos.json").read_bytes() == before


def test_an_export_without_imported_from_still_imports(todo: AppRunner) -> None:
    """An export made before importedFrom was exported (or of a state with none) imports as before."""
    imported = todo.run("import", "--file", "-", stdin=_export(), env=NOW)
    assert (imported.exit_status, imported.envelope["restored"]) == (0, True)
    assert "importedFrom" not in json.loads((todo.state_dir / "todos.json").read_text())


@pytest.mark.parametrize(
    "imported_from",
    [[], {"td_0001": 5}, {"td_0001": "x" * 1000}, {"td_0009": "td_0001 not-a-createdAt"}],
    ids=["not-an-object", "not-a-string", "not-an-origin", "no-such-item-nor-an-origin"],
)
def test_a_broken_imported_from_is_refused(todo: AppRunner, imported_from: Any) -> None:
    message = _refused(todo, _export(importedFrom=imported_from))
    assert "importedFrom" in message
    assert len(message) < 400, message


def test_an_imported_item_removed_since_leaves_a_backup_that_restores(
    facts: AppFacts, app_runner: Any, tmp_path: Path
) -> None:
    """The finding (all three apps): an item imported into a state with items, then removed, left
    its importedFrom entry in the state; export printed it, and import refused that export, which
    named no such item. Export now leaves out the origins of items it does not hold, and import
    drops such an entry (one an earlier export printed) instead of refusing the backup."""
    app: AppRunner = app_runner(facts.package)
    exported = json.dumps(lived_a_day(app, facts.package))
    x = {"AGENTIC_NOW": "2026-03-31T09:00:00Z", "AGENTIC_STATE_DIR": str(tmp_path / "x")}
    for call in DAY_OF_TARGET[facts.package]:
        assert app.run(*call, env=x).ok, call
    x = {**LATER, "AGENTIC_STATE_DIR": str(tmp_path / "x")}
    ids = app.run("import", "--file", "-", stdin=exported, env=x).envelope["ids"]
    removed, kept = sorted(ids.values())[:2]
    assert app.run("remove", removed, "--confirm", env=x).ok
    backup = app.run("export", env=x).envelope
    assert set(backup["importedFrom"]) == set(ids.values()) - {removed}
    assert kept in backup["importedFrom"]
    # What an earlier version printed: the removed item's origin too.
    stale = {
        **backup,
        "importedFrom": {**backup["importedFrom"], removed: "xx_0001 2026-03-01T00:00:00.000Z"},
    }
    for number, document in enumerate((backup, stale)):
        y = {**LATER, "AGENTIC_STATE_DIR": str(tmp_path / f"y{number}")}
        restored = app.run("import", "--file", "-", stdin=json.dumps(document), env=y)
        assert (restored.exit_status, restored.envelope["restored"]) == (0, True), restored.envelope
        assert app.run("export", env=y).envelope == backup
