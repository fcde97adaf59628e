"""Agentic To-Do through the agentapps harness: each run gets its own state folder.

The behaviour lives in ../scenarios/ as data, one behaviour per file; each replays here as its
own test (and `agentapps replay scenarios` replays them through real processes, or through any
other runtime). Python keeps what data cannot say.
"""

from __future__ import annotations

import importlib
import itertools
import json
from collections.abc import Callable
from pathlib import Path
from types import ModuleType
from zoneinfo import ZoneInfo

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from agentapps.harness import AppRunner, in_process_runtime
from agentapps.replay import replay
from agentapps.scenarios import load_scenario
from agentapps.sync import package_app
from agentic_kit.errors import AppError

PACKAGE = Path(__file__).resolve().parents[1]
SCENARIOS = sorted((PACKAGE / "scenarios").glob("*.json"))


@pytest.fixture
def app(app_runner: Callable[[str], AppRunner]) -> AppRunner:
    return app_runner(str(PACKAGE))


def test_there_are_scenarios_to_replay() -> None:
    assert SCENARIOS, f"no scenarios in {PACKAGE / 'scenarios'}"


@pytest.mark.parametrize("path", SCENARIOS, ids=[path.stem for path in SCENARIOS])
def test_scenario(path: Path) -> None:
    report = replay(load_scenario(path), in_process_runtime)
    assert report.passed, report.summary()


def test_a_real_process_speaks_the_same_envelope(app: AppRunner) -> None:
    assert app.run_subprocess("add", "From a process").item["id"] == "td_0001"


# Export and import: what one list exports, another imports whole.


def test_an_export_imports_whole_into_another_list_new_fields_too(
    app: AppRunner, app_runner: Callable[[str], AppRunner], tmp_path: Path
) -> None:
    app.run(
        "add", "water the plants", "--due-at", "2026-04-06T09:00:00Z", "--tag", "home", "--repeat", "weekly"
    )
    app.run("add", "dentist", "--description", "call first", "--priority", "high", "--tag", "health")
    app.run("complete", "td_0001")  # makes td_0003, its next
    exported = app.run("export")
    assert exported.envelope["schemaVersion"] == 2
    assert exported.envelope["count"] == 3

    other = AppRunner(app.package.root, tmp_path / "other-state")
    other.run("add", "already there")
    imported = other.run("import", "--file", "-", stdin=exported.stdout)
    assert imported.envelope["ids"] == {"td_0001": "td_0002", "td_0002": "td_0003", "td_0003": "td_0004"}
    renamed = [{**item, "id": imported.envelope["ids"][item["id"]]} for item in exported.items]
    assert imported.envelope["restored"] is False  # the answer is bounded: ids, not the items
    assert other.run("list").items[1:] == renamed  # every field as exported


def test_a_version_1_export_imports_with_the_fields_version_2_added_empty(app: AppRunner) -> None:
    # What `export` printed before schema version 2: the seed's fields only.
    item = {
        "id": "td_0007",
        "title": "file taxes",
        "description": "",
        "status": "completed",
        "dueAt": "2026-04-15",
        "createdAt": "2026-04-01T00:00:00.000Z",
        "updatedAt": "2026-04-02T00:00:00.000Z",
        "completedAt": "2026-04-02T00:00:00.000Z",
    }
    export = {"ok": True, "command": "export", "schemaVersion": 1, "count": 1, "items": [item]}
    imported = app.run("import", "--file", "-", stdin=json.dumps(export))
    assert imported.ok, imported.envelope
    assert imported.envelope["restored"] is True  # into an empty list: the id is kept
    exported = app.run("export")
    assert exported.items == [{**item, "tags": [], "priority": None, "repeat": None}]
    assert (exported.envelope["schemaVersion"], exported.envelope["nextId"]) == (2, 8)


DEEP = "[" * 100_000 + "]" * 100_000


@pytest.mark.parametrize(
    "text",
    [
        DEEP,
        '{"schemaVersion": 2, "items": [], "count": ' + DEEP + "}",
        '{"schemaVersion": 2, "items": [], "count": ' + "9" * 5000 + "}",
        '{"schemaVersion": ' + "9" * 5000 + ', "items": []}',
    ],
    ids=["nested", "nested-in-an-ignored-key", "huge-count", "huge-schema-version"],
)
def test_a_file_past_the_state_readers_limits_is_refused_from_a_file_too(
    app: AppRunner, tmp_path: Path, text: str
) -> None:
    # The sizes found from outside, too large for a scenario file: no traceback, nothing added.
    app.run("add", "already here")
    before = app.run("export").stdout
    export = tmp_path / "export.json"
    export.write_text(text)
    refused = app.run_subprocess("import", "--file", str(export))
    assert (refused.exit_status, refused.stderr) == (3, "")
    assert refused.envelope["error"]["code"] == "VALIDATION_ERROR"
    assert refused.envelope["error"]["hint"]
    assert app.run("export").stdout == before


# Repeating to-dos: the next due, with the zone given explicitly, and completing in any order.


def _domain(module: str) -> ModuleType:
    """A module of the app's own package (`todo.…`): loading the entry puts app/ on the path."""
    package_app(PACKAGE)
    return importlib.import_module(f"todo.{module}")


NEW_YORK = ZoneInfo("America/New_York")


@pytest.mark.parametrize(
    ("due", "rule", "expected"),
    [
        ("2026-01-31", "monthly", "2026-02-28"),  # a month end clamps
        ("2028-01-31", "monthly", "2028-02-29"),  # to the 29th in a leap year
        ("2026-03-31", "monthly", "2026-04-30"),
        ("2026-12-15", "monthly", "2027-01-15"),
        ("2028-02-29", "yearly", "2029-02-28"),  # Feb 29 yearly: Feb 28 in a common year
        ("2027-02-28", "yearly", "2028-02-28"),
        ("2026-12-31", "daily", "2027-01-01"),
        ("2028-02-26", "weekly", "2028-03-04"),  # across a leap day
        ("2026-04-01", "every:10d", "2026-04-11"),
        ("2026-04-01", "every:9999d", "2053-08-16"),
    ],
)
def test_a_date_only_due_steps_by_the_calendar(due: str, rule: str, expected: str) -> None:
    next_due = _domain("repeats").next_due
    assert next_due(due, rule, NEW_YORK) == expected
    assert next_due(due, rule, ZoneInfo("Asia/Tokyo")) == expected  # a date has no zone


@pytest.mark.parametrize(
    ("due", "rule", "expected"),
    [
        # 09:00 New York (EST, -05:00) the day before the spring change stays 09:00 (EDT, -04:00).
        ("2026-03-07T14:00:00.000Z", "daily", "2026-03-08T13:00:00.000Z"),
        ("2026-03-01T14:00:00.000Z", "weekly", "2026-03-08T13:00:00.000Z"),
        # and back in autumn: 09:00 EDT to 09:00 EST.
        ("2026-10-31T13:00:00.000Z", "daily", "2026-11-01T14:00:00.000Z"),
        ("2026-10-15T13:00:00.000Z", "monthly", "2026-11-15T14:00:00.000Z"),
        # 02:30 does not exist on 2026-03-08 in New York: it comes out as 03:30 EDT.
        ("2026-03-07T07:30:00.000Z", "daily", "2026-03-08T07:30:00.000Z"),
        # 01:30 happens twice on 2026-11-01: the first, EDT.
        ("2026-10-31T05:30:00.000Z", "daily", "2026-11-01T05:30:00.000Z"),
        # A local date, not a UTC one: 20:00 on Jan 31 in New York is Feb 1 in UTC.
        ("2026-02-01T01:00:00.250Z", "monthly", "2026-03-01T01:00:00.250Z"),
        ("2028-03-01T04:59:00.000Z", "yearly", "2029-03-01T04:59:00.000Z"),  # Feb 29 23:59 local
    ],
)
def test_an_instant_due_keeps_its_wall_clock_time_in_the_zone(due: str, rule: str, expected: str) -> None:
    assert _domain("repeats").next_due(due, rule, NEW_YORK) == expected


def test_in_utc_an_instant_steps_by_whole_days() -> None:
    next_due = _domain("repeats").next_due
    assert next_due("2026-03-07T14:00:00.000Z", "daily", ZoneInfo("UTC")) == "2026-03-08T14:00:00.000Z"


@pytest.mark.parametrize("due", ["9997-12-31", "9997-12-31T12:00:00.000Z"])
def test_a_next_due_past_the_range_is_a_conflict(due: str) -> None:
    with pytest.raises(AppError) as raised:
        _domain("repeats").next_due(due, "daily", ZoneInfo("UTC"))
    assert raised.value.code == "CONFLICT"


RULES = st.sampled_from(["daily", "weekly", "monthly", "yearly", "every:3d", None])


@settings(max_examples=150, deadline=None)
@given(
    rules=st.lists(RULES, min_size=1, max_size=5),
    calls=st.lists(st.lists(st.integers(min_value=0, max_value=30), min_size=1, max_size=4), max_size=12),
)
def test_completing_repeating_items_in_any_order_never_loses_or_duplicates_one(
    rules: list[str | None], calls: list[list[int]]
) -> None:
    models, operations = _domain("models"), _domain("operations")
    state = models.TodoState(schema_version=models.TodoState.SCHEMA_VERSION)
    for number, rule in enumerate(rules):
        stamp = "2026-01-01T00:00:00.000Z"
        operations.add_item(
            state, title=f"t{number}", description="", due_at="2026-01-31", now=stamp, repeat=rule
        )
    completed_repeating = 0
    for step, picks in enumerate(calls):
        items = [state.items[pick % len(state.items)] for pick in picks]
        unique = list({id(item): item for item in items}.values())
        opening = sum(1 for item in unique if item.status == "open" and item.repeat is not None)
        before = len(state.items)
        made = operations.complete_items(
            state, unique, now=f"2026-02-{step + 1:02d}T00:00:00.000Z", zone=ZoneInfo("UTC")
        )
        assert len(made) == opening
        assert len(state.items) == before + opening
        completed_repeating += opening
    assert len(state.items) == len(rules) + completed_repeating  # none lost, none made twice
    assert list(state.problems()) == []  # ids unique, in order, the counter past them
    for number, rule in enumerate(rules):
        chain = [item for item in state.items if item.title == f"t{number}"]
        if rule is None:
            assert len(chain) == 1
            continue
        # Exactly one open item per repeating one: the last of its chain, one step after the one before.
        assert [item.status for item in chain] == ["completed"] * (len(chain) - 1) + ["open"]
        for earlier, later in itertools.pairwise(chain):
            assert later.due_at == _domain("repeats").next_due(earlier.due_at, rule, ZoneInfo("UTC"))
            assert (later.repeat, later.tags, later.priority) == (rule, earlier.tags, earlier.priority)


def test_completing_a_repeating_item_never_takes_an_item_added_by_hand_as_its_next(app: AppRunner) -> None:
    """Found by an outside review: the user added May's rent by hand, with a description and a
    priority of its own; completing April's took that item as its next and made none. A next
    it made before a reopen is still named (it is what a next is made of, never changed since)."""
    now = {"AGENTIC_NOW": "2026-03-20T09:00:00Z"}
    assert app.run("add", "Pay rent", "--due-at", "2026-04-01", "--repeat", "monthly", env=now).ok
    by_hand = ("Pay rent", "--due-at", "2026-05-01", "--repeat", "monthly", "--priority", "high")
    assert app.run("add", *by_hand, "--description", "New account", env=now).ok
    completed = app.run("complete", "td_0001", env=now).envelope
    assert completed["next"]["id"] == "td_0003"
    assert app.run("get", "td_0002", env=now).item["description"] == "New account"  # untouched
    assert app.run("reopen", "td_0001", env=now).ok
    again = app.run("complete", "td_0001", env=now).envelope
    assert again["next"]["id"] == "td_0003"  # the next it made: no second one
    assert [item["id"] for item in app.run("list", env=now).items] == ["td_0001", "td_0002", "td_0003"]
