"""State files for the tests: valid documents of each app, written by the rules the app keeps, and
the ways to break exactly one invariant of one.

`valid_states(package)` is a hypothesis strategy; `BREAKS` maps a name to what it breaks. A break
returns the broken file's bytes, or None when the state has nothing it applies to (no entities, no
paused timer). The tests feed both to the apps: every valid state loads as it is, every broken
one is STATE_CORRUPT and left byte for byte.
"""

from __future__ import annotations

import codecs
import copy
import json
from collections.abc import Callable
from datetime import datetime, timedelta
from typing import Any

from hypothesis import strategies as st

from agentic_kit.dates import to_ms

Document = dict[str, Any]
ENTITIES = {"agentic-to-do": "items", "agentic-notes": "notes", "agentic-timer": "timers"}
MAX_ID = 2**53 - 1
# The schemaVersion each app writes today (to-do's 2 added tags, priority and repeat).
SCHEMA_VERSIONS = {"agentic-to-do": 2, "agentic-notes": 1, "agentic-timer": 1}
TIMESTAMP = "2026-04-01T00:00:00.000Z"
FIRST_MOMENT = "0001-01-01T00:00:00.000Z"


def encode(document: Document) -> bytes:
    return json.dumps(document, ensure_ascii=False).encode()


def document(package: str, entities: list[Document], next_id: int | None = None) -> Document:
    numbers = [int(entity["id"].split("_")[1]) for entity in entities]
    return {
        "schemaVersion": SCHEMA_VERSIONS[package],
        "nextId": next_id if next_id is not None else max(numbers, default=0) + 1,
        ENTITIES[package]: entities,
    }


# --- Valid documents -------------------------------------------------------------------------

FIRST, LAST = datetime(1, 1, 1), datetime(9997, 12, 31, 23, 59, 59, 999_000)
instants = st.datetimes(FIRST, LAST).map(lambda moment: moment.isoformat(timespec="milliseconds") + "Z")
dues = st.one_of(st.none(), instants, instants.map(lambda instant: instant[:10]))
# A title or label as every version wrote it: trimmed, not empty, no control character. (Layout
# controls inside are allowed: older versions took them.)
one_line = (
    st.text(st.characters(blacklist_categories=["Cc", "Cs"]), min_size=1, max_size=30)
    .map(str.strip)
    .filter(bool)
)


def open_todo(number: int, title: str, moment: str, due_at: str | None = None) -> Document:
    """One open to-do item of schema version 2 as the state and an export keep it, created and
    last changed at `moment`: the plain data the tests build exports and lists from."""
    return {
        "id": f"td_{number:04d}",
        "title": title,
        "description": "",
        "status": "open",
        "dueAt": due_at,
        "createdAt": moment,
        "updatedAt": moment,
        "completedAt": None,
        "tags": [],
        "priority": None,
        "repeat": None,
    }


def todo_items(number: int) -> st.SearchStrategy[Document]:
    """An item's moments in order: created, then completed, then last changed."""
    return st.builds(
        lambda title, description, completed, due, moments, tags, priority, repeat: {
            "id": f"td_{number:04d}",
            "title": title,
            "description": description,
            "status": "completed" if completed else "open",
            "dueAt": due,
            "createdAt": moments[0],
            "updatedAt": moments[2],
            "completedAt": moments[1] if completed else None,
            "tags": sorted(tags),
            "priority": priority,
            "repeat": repeat if due is not None else None,  # only an item with a due repeats
        },
        one_line,
        st.text(max_size=40),
        st.booleans(),
        dues,
        st.lists(instants, min_size=3, max_size=3).map(sorted),
        st.sets(st.text("abcdefghij-ß", min_size=1, max_size=8), max_size=5),
        st.sampled_from([None, "high", "medium", "low"]),
        st.sampled_from([None, "daily", "weekly", "monthly", "yearly", "every:1d", "every:3650d"]),
    )


def notes(number: int) -> st.SearchStrategy[Document]:
    return st.builds(
        lambda title, body, tags, due, moments: {
            "id": f"nt_{number:04d}",
            "title": title,
            "body": body,
            "tags": sorted(tags),
            "dueAt": due,
            "createdAt": moments[0],
            "updatedAt": moments[1],
        },
        one_line,
        st.text(st.characters(codec="utf-8", blacklist_characters="\x00"), max_size=60),  # no NUL, as input
        st.sets(st.text("abcdefghij-ß", min_size=1, max_size=8), max_size=5),
        dues,
        st.lists(instants, min_size=2, max_size=2).map(sorted),
    )


def timers(number: int) -> st.SearchStrategy[Document]:
    """A timer as start, pause, resume and stop leave it: its moments in order, its pauses within
    its life."""

    @st.composite
    def timer(draw: st.DrawFn) -> Document:
        moments = sorted(draw(st.lists(instants, min_size=3, max_size=3)))
        started, resumed_by, last = moments
        status = draw(st.sampled_from(["running", "paused", "stopped"]))
        duration = draw(st.one_of(st.none(), st.integers(1, 366 * 86_400_000)))
        paused = draw(st.integers(0, max(0, ms(resumed_by) - ms(started))))
        return {
            "id": f"tm_{number:04d}",
            "label": draw(st.one_of(st.just(""), one_line)),
            "kind": "stopwatch" if duration is None else "countdown",
            "status": status,
            "durationMs": duration,
            "startedAt": started,
            "pausedAt": last if status == "paused" else None,
            "stoppedAt": last if status == "stopped" else None,
            "createdAt": started,
            "updatedAt": last,
            "pausedMs": paused,
        }

    return timer()


def ms(instant: str) -> int:
    return to_ms(datetime.fromisoformat(instant))


ENTITY_STRATEGY: dict[str, Callable[[int], st.SearchStrategy[Document]]] = {
    "agentic-to-do": todo_items,
    "agentic-notes": notes,
    "agentic-timer": timers,
}


@st.composite
def valid_states(draw: st.DrawFn, package: str) -> Document:
    """A state of up to four entities with ids in order (gaps allowed: some were removed)."""
    numbers = sorted(draw(st.sets(st.integers(1, 20_000), max_size=4)))
    entities = [draw(ENTITY_STRATEGY[package](number)) for number in numbers]
    next_id = draw(st.integers(max(numbers, default=0) + 1, max(numbers, default=0) + 3))
    return document(package, entities, next_id)


# --- One invariant broken at a time -----------------------------------------------------------

Break = Callable[[str, Document], bytes | None]
EVERY_APP = tuple(ENTITIES)


def whole_file(make: Callable[[Document], bytes]) -> Break:
    """A break of the file itself: its bytes."""
    return lambda package, document: make(document)


def top_level(**fields: Any) -> Break:
    """A break of the version or the counter: set these keys of the document."""
    return lambda package, document: encode({**document, **fields})


def any_entity(target: Document) -> bool:
    return True


def entity(
    apps: tuple[str, ...] = EVERY_APP, when: Callable[[Document], bool] = any_entity, **fields: Any
) -> Break:
    """A break of one entity: the first one (of these apps, for which `when` holds) gets `fields`;
    a value may be a function of the entity."""

    def apply(package: str, document: Document) -> bytes | None:
        if package not in apps:
            return None
        broken = copy.deepcopy(document)
        for target in broken[ENTITIES[package]]:
            if when(target):
                for key, value in fields.items():
                    target[key] = value(target) if callable(value) else value
                return encode(broken)
        return None

    return apply


def entities(change: Callable[[list[Document], Document], bool]) -> Break:
    """A break of the list of entities as a whole (`change` says whether it applied)."""

    def apply(package: str, document: Document) -> bytes | None:
        broken = copy.deepcopy(document)
        return encode(broken) if change(broken[ENTITIES[package]], broken) else None

    return apply


def _repeat_first(kept: list[Document], document: Document) -> bool:
    kept.extend(copy.deepcopy(kept[:1]))
    return len(kept) > 1


def _reverse(kept: list[Document], document: Document) -> bool:
    kept.reverse()
    return len(kept) > 1


def _counter_at_highest(kept: list[Document], document: Document) -> bool:
    if kept:
        document["nextId"] = int(kept[-1]["id"].split("_")[1])
    return bool(kept)


def _huge_counter(document: Document) -> bytes:
    return encode({**document, "nextId": 0}).replace(b'"nextId": 0', b'"nextId": ' + b"9" * 5000)


def _before(timestamp: str) -> str:
    """The moment a millisecond earlier, in the stored form."""
    earlier = datetime.fromisoformat(timestamp) - timedelta(milliseconds=1)
    return earlier.isoformat(timespec="milliseconds").replace("+00:00", "Z")


def _after_the_first_moment(field: str) -> Callable[[Document], bool]:
    """Whether the entity's moment can have one before it (0001-01-01T00:00:00.000Z has none)."""
    return lambda target: target.get(field) is not None and target[field] > FIRST_MOMENT


def _other_digits(target: Document) -> str:
    return str(target["id"]).split("_")[0] + "_٠٠٠١"


def _with_prefix(number: str) -> Callable[[Document], str]:
    return lambda target: str(target["id"]).split("_")[0] + "_" + number


TEXT_APPS = ("agentic-to-do", "agentic-notes")
TODO, NOTES, TIMER = ("agentic-to-do",), ("agentic-notes",), ("agentic-timer",)
TAGGED = ("agentic-to-do", "agentic-notes")

BREAKS: dict[str, Break] = {
    # The file itself
    "nested 100,000 levels deep": whole_file(lambda document: b"[" * 100_000 + b"]" * 100_000),
    "a 5,000-digit number": whole_file(_huge_counter),
    "a byte-order mark": whole_file(lambda document: codecs.BOM_UTF8 + encode(document)),
    "UTF-16": whole_file(lambda document: json.dumps(document).encode("utf-16")),
    "UTF-16 without a byte-order mark": whole_file(lambda document: json.dumps(document).encode("utf-16-le")),
    # The version and the counter, each of its exact type
    "schemaVersion 0": top_level(schemaVersion=0),
    "schemaVersion -1": top_level(schemaVersion=-1),
    "schemaVersion true": top_level(schemaVersion=True),
    'nextId "2", a string': top_level(nextId="2"),
    "nextId 2.0, a float": top_level(nextId=2.0),
    "nextId 0": top_level(nextId=0),
    "nextId -5": top_level(nextId=-5),
    "nextId past 2**53": top_level(nextId=MAX_ID + 2),
    "an unknown key": top_level(extra=1),
    # IDs
    "an id twice": entities(_repeat_first),
    "ids out of order": entities(_reverse),
    "nextId not above the highest id": entities(_counter_at_highest),
    "an id of another app": entity(id="xx_0001"),
    "an id in other digits": entity(id=_other_digits),
    "an id with an extra zero": entity(id=_with_prefix("00001")),
    "an id of 17 digits": entity(id=_with_prefix(str(10**16))),
    "an id of 0000 (the counter starts at 1)": entity(id=_with_prefix("0000")),
    # Timestamps and dues
    "a timestamp without an offset": entity(createdAt="2026-04-01T00:00:00"),
    "a timestamp with an offset other than Z": entity(createdAt="2026-04-01T00:00:00.000+00:00"),
    "a timestamp on 30 February": entity(createdAt="2026-02-30T00:00:00.000Z"),
    "a timestamp in 9998": entity(createdAt="9998-01-01T00:00:00.000Z"),
    'dueAt "garbage"': entity(TEXT_APPS, dueAt="garbage"),
    "dueAt 0000-12-31": entity(TEXT_APPS, dueAt="0000-12-31"),
    "a title of 501 characters": entity(TEXT_APPS, title="t" * 501),
    "an empty title": entity(TEXT_APPS, title=""),
    # What no version's input check let into a title: it could pose as a field, drive the
    # terminal, or hide in the text.
    "a title of two lines": entity(TEXT_APPS, title="looks done\nstatus  completed"),
    "a title with a terminal escape": entity(TEXT_APPS, title="a\x1b[2Jb"),
    "a title with a NUL": entity(TEXT_APPS, title="a\x00b"),
    "a title of spaces only": entity(TEXT_APPS, title="   "),
    "a title with a leading space": entity(TEXT_APPS, title=" a"),
    "a title with a trailing line separator": entity(TEXT_APPS, title="a\u2028"),
    "updatedAt before createdAt": entity(
        TEXT_APPS, _after_the_first_moment("createdAt"), updatedAt=lambda target: _before(target["createdAt"])
    ),
    # To-do
    "completed without completedAt": entity(TODO, status="completed", completedAt=None),
    "open with a completedAt": entity(TODO, status="open", completedAt=TIMESTAMP),
    "completedAt before createdAt": entity(
        TODO,
        lambda item: item["completedAt"] is not None and _after_the_first_moment("createdAt")(item),
        completedAt=lambda item: _before(item["createdAt"]),
    ),
    "completedAt after updatedAt": entity(
        TODO,
        lambda item: item["completedAt"] is not None and item["updatedAt"] < "9997",
        completedAt="9997-12-31T23:59:59.999Z",
    ),
    "a repeat without a due": entity(TODO, dueAt=None, repeat="weekly"),
    "a repeat of no known rule": entity(TODO, dueAt="2026-04-05", repeat="fortnightly"),
    "a repeat of every 0 days": entity(TODO, dueAt="2026-04-05", repeat="every:0d"),
    "a repeat of every 3651 days": entity(TODO, dueAt="2026-04-05", repeat="every:3651d"),
    "a priority of no known level": entity(TODO, priority="urgent"),
    "tags that are not a list": entity(TODO, tags="a"),
    # Tags: notes and to-do keep them alike
    "tags out of order": entity(TAGGED, tags=["b", "a"]),
    "a tag twice": entity(TAGGED, tags=["a", "a"]),
    "51 tags": entity(TAGGED, tags=[f"t{n:02d}" for n in range(51)]),
    "a tag in capitals": entity(TAGGED, tags=["Work"]),
    "a tag with a space": entity(TAGGED, tags=["a b"]),
    "a tag with a no-break space": entity(TAGGED, tags=["a\xa0b"]),
    "a tag of two lines": entity(TAGGED, tags=["a\nb"]),
    "a tag with a bidi control": entity(TAGGED, tags=["a\u202eb"]),
    "a tag with a zero-width space": entity(TAGGED, tags=["a\u200bb"]),
    "a tag with a soft hyphen": entity(TAGGED, tags=["a\xadb"]),
    "a tag with a private-use character": entity(TAGGED, tags=["a\ue000b"]),
    # Notes
    "a body with a NUL": entity(NOTES, body="a\x00b"),
    "a body over 1 MiB": entity(NOTES, body="é" * (512 * 1024 + 1)),
    # Timers
    "a countdown without durationMs": entity(TIMER, kind="countdown", durationMs=None),
    "a stopwatch with durationMs": entity(TIMER, kind="stopwatch", durationMs=60_000),
    "durationMs 0": entity(TIMER, kind="countdown", durationMs=0),
    "durationMs over 366 days": entity(TIMER, kind="countdown", durationMs=366 * 86_400_000 + 1),
    "paused without pausedAt": entity(TIMER, status="paused", pausedAt=None, stoppedAt=None),
    "running with a stoppedAt": entity(
        TIMER, lambda timer: timer["status"] == "running", stoppedAt=TIMESTAMP
    ),
    "startedAt after its last change": entity(
        TIMER, lambda timer: timer["updatedAt"] < "9997", startedAt="9997-12-31T23:59:59.999Z"
    ),
    "pausedMs -1": entity(TIMER, pausedMs=-1),
    "a label of two lines": entity(TIMER, label="a\nb"),
    "a label with a trailing space": entity(TIMER, label="a "),
    "createdAt other than startedAt": entity(
        TIMER, _after_the_first_moment("startedAt"), createdAt=lambda timer: _before(timer["startedAt"])
    ),
    # A rename or an extend after the pause moves updatedAt past pausedAt; before it, never.
    "a paused timer changed before its pause": entity(
        TIMER, lambda timer: timer["status"] == "paused", updatedAt=lambda timer: _before(timer["pausedAt"])
    ),
    "paused for longer than it has existed": entity(
        TIMER, pausedMs=lambda timer: ms(timer["updatedAt"]) - ms(timer["startedAt"]) + 1
    ),
}


def example(package: str) -> Document:
    """A small valid state with one of each kind of entity the app has, so every break applies."""
    entities: list[Document]
    if package == "agentic-to-do":
        entities = [
            {
                "id": "td_0001",
                "title": "a",
                "description": "",
                "status": "open",
                "dueAt": "2026-04-05",
                "createdAt": TIMESTAMP,
                "updatedAt": TIMESTAMP,
                "completedAt": None,
                "tags": ["a", "b"],
                "priority": "high",
                "repeat": "weekly",
            },
            {
                "id": "td_0003",
                "title": "b",
                "description": "",
                "status": "completed",
                "dueAt": None,
                "createdAt": TIMESTAMP,
                "updatedAt": TIMESTAMP,
                "completedAt": TIMESTAMP,
                "tags": [],
                "priority": None,
                "repeat": None,
            },
        ]
    elif package == "agentic-notes":
        entities = [
            {
                "id": "nt_0001",
                "title": "a",
                "body": "",
                "tags": ["a", "b"],
                "dueAt": "2026-04-05",
                "createdAt": TIMESTAMP,
                "updatedAt": TIMESTAMP,
            },
            {
                "id": "nt_0003",
                "title": "b",
                "body": "x",
                "tags": [],
                "dueAt": None,
                "createdAt": TIMESTAMP,
                "updatedAt": TIMESTAMP,
            },
        ]
    else:
        entities = [
            {
                "id": "tm_0001",
                "label": "",
                "kind": "countdown",
                "status": "running",
                "durationMs": 60_000,
                "startedAt": TIMESTAMP,
                "pausedAt": None,
                "stoppedAt": None,
                "createdAt": TIMESTAMP,
                "updatedAt": TIMESTAMP,
                "pausedMs": 0,
            },
            {
                "id": "tm_0003",
                "label": "b",
                "kind": "stopwatch",
                "status": "paused",
                "durationMs": None,
                "startedAt": TIMESTAMP,
                "pausedAt": "2026-04-01T00:10:00.000Z",
                "stoppedAt": None,
                "createdAt": TIMESTAMP,
                "updatedAt": "2026-04-01T00:10:00.000Z",
                "pausedMs": 0,
            },
        ]
    return document(package, entities)
