"""Seed-level scenarios: what a scenario may assert when any implementation of the seed's Agentic
To-Do must pass it, and how its envelopes are matched.

The seed fixes little beyond the shapes: successful commands print JSON and exit 0, failures exit
non-zero with `{"ok": false, "error": {"code", "message"}}`, `remove` without `--confirm` is
`CONFIRMATION_REQUIRED`, a list is `{"ok", "command", "count", "items"}` and an item has the eight
fields of its example. It defines no clock and no state folder, only `AGENTIC_TODO_STATE_FILE`. So
a seed-level scenario sets no clock, no environment and no state files; its exit statuses are 0 or
1 (any non-zero status); its envelopes are subsets; the one error code it names is
`CONFIRMATION_REQUIRED`; and an instant is written as a matcher, matched by form and by order:

- `{"$instant": "NAME"}`: an ISO 8601 instant with a zone (`2026-04-01T00:00:00.000Z`, in any
  layout of a calendar date and time: INSTANT); the first one named NAME binds it, and every
  later one of that name must be the same text.
- `{"$instant": "NAME", "notBefore": "OTHER"}`: and not earlier than the instant bound as OTHER.
- `{"$type": "string"}` (or `"null"`, `"number"`, `"boolean"`): any value of that JSON type.

Arrays named `items` match in any order (the seed fixes no list order), each expected element
against a different actual one; every other array matches element by element.
"""

from __future__ import annotations

import re
from datetime import datetime
from typing import Any

from .differences import show

SEED_PACKAGE = "agentic-to-do"
STATE_FILE_ENV = "AGENTIC_TODO_STATE_FILE"
STATE_FILE_NAME = "todos.json"
SEED_CODES = frozenset({"CONFIRMATION_REQUIRED"})
# An ISO 8601 calendar date and time of day with a zone, extended (2026-04-01T00:00:00.000Z) or
# basic (20260401T000000Z), to the hour, minute or second, a fraction after `.` or `,`, the zone
# `Z` or an offset in hours or hours and minutes: the seed shows one and fixes none.
INSTANT = re.compile(
    r"\d{4}-\d{2}-\d{2}T\d{2}(:\d{2}(:\d{2}([.,]\d{1,9})?)?)?(Z|[+-]([01]\d|2[0-3])(:[0-5]\d)?)"
    r"|\d{8}T\d{2}(\d{2}(\d{2}([.,]\d{1,9})?)?)?(Z|[+-]([01]\d|2[0-3])([0-5]\d)?)"
)
TYPES: dict[str, tuple[type, ...]] = {
    "string": (str,),
    "null": (type(None),),
    "number": (int, float),
    "boolean": (bool,),
}
# Keys a seed-level scenario may not set: the seed defines no clock, no state folder, no settings.
NOT_AT_SEED_LEVEL = ("now", "env", "files", "folders")
NOT_IN_A_SEED_STEP = ("now", "env", "locked")


def seed_problem(data: dict[str, Any]) -> str | None:
    """Why a (schema-valid) scenario may not be seed-level, or None. A suite-level one may not
    use `stateFile`, which only the seed's override gives a meaning."""
    if data.get("level", "suite") != "seed":
        for number, step in enumerate(data["steps"]):
            if "stateFile" in step:
                return f"steps/{number}/stateFile is for seed-level scenarios (the seed's state override)."
        return None
    if data["package"] != SEED_PACKAGE:
        return f"a seed-level scenario is about the seed's {SEED_PACKAGE}, not {data['package']!r}."
    for key in NOT_AT_SEED_LEVEL:
        if key in data:
            return (
                f"a seed-level scenario sets no `{key}`: the seed defines no clock, settings or state folder."
            )
    for number, step in enumerate(data["steps"]):
        for key in NOT_IN_A_SEED_STEP:
            if key in step:
                return f"steps/{number} sets `{key}`, which a seed-level scenario may not."
        expect = step["expect"]
        if expect["exit"] not in (0, 1):
            return (
                f"steps/{number}/expect/exit is {expect['exit']}: at seed level 0 or 1 (any non-zero status)."
            )
        if expect["match"] != "subset":
            return (
                f"steps/{number}/expect/match is exact: the seed allows more fields, "
                "so a seed level match is a subset."
            )
        if expect["envelope"]["ok"] != (expect["exit"] == 0):
            return f"steps/{number}/expect: `ok` must be true with exit 0 and false with a non-zero exit."
        error = expect["envelope"].get("error")
        code = error.get("code") if isinstance(error, dict) else None
        if code is not None and code not in SEED_CODES:
            return f"steps/{number} expects {code}: the only code the seed names is CONFIRMATION_REQUIRED."
    return None


def seed_differences(
    expected: Any, actual: Any, instants: dict[str, str], where: str = "envelope", key: str = ""
) -> list[str]:
    """Every place `actual` differs from the seed-level `expected` (always a subset), by JSON path.
    Instants first matched are bound in `instants`."""
    if isinstance(expected, dict) and "$instant" in expected:
        return _instant_differences(expected, actual, instants, where)
    if isinstance(expected, dict) and "$type" in expected:
        # JSON's true and false are no numbers, though Python's bool is an int.
        if isinstance(actual, TYPES[expected["$type"]]) and (expected["$type"] == "boolean") == isinstance(
            actual, bool
        ):
            return []
        return [f"{where}: expected a {expected['$type']}, got {show(actual)}"]
    if isinstance(expected, dict):
        if not isinstance(actual, dict):
            return [f"{where}: expected an object, got {show(actual)}"]
        differences = []
        for name, value in expected.items():
            if name not in actual:
                differences.append(f"{where}.{name}: missing (expected {show(value)})")
            else:
                differences += seed_differences(value, actual[name], instants, f"{where}.{name}", name)
        return differences
    if isinstance(expected, list):
        if not isinstance(actual, list):
            return [f"{where}: expected an array, got {show(actual)}"]
        if len(expected) != len(actual):
            return [f"{where}: expected {len(expected)} elements, got {len(actual)}: {show(actual)}"]
        if key == "items":
            return _unordered_differences(expected, actual, instants, where)
        differences = []
        for index, (wanted, got) in enumerate(zip(expected, actual, strict=True)):
            differences += seed_differences(wanted, got, instants, f"{where}[{index}]")
        return differences
    if type(expected) is not type(actual) or expected != actual:
        return [f"{where}: expected {show(expected)}, got {show(actual)}"]
    return []


def _instant_differences(
    expected: dict[str, Any], actual: Any, instants: dict[str, str], where: str
) -> list[str]:
    name = str(expected["$instant"])
    if not isinstance(actual, str) or not INSTANT.fullmatch(actual) or _moment(actual) is None:
        return [f"{where}: expected an ISO 8601 instant with a zone ({name}), got {show(actual)}"]
    bound = instants.get(name)
    if bound is not None and bound != actual:
        return [f"{where}: expected the instant {name} again ({bound}), got {show(actual)}"]
    earliest = expected.get("notBefore")
    if earliest is not None and earliest in instants and _before(actual, instants[earliest]):
        return [f"{where}: {actual} is before {earliest} ({instants[earliest]})"]
    instants[name] = actual
    return []


def _moment(instant: str) -> datetime | None:
    """An instant INSTANT matched as a comparable time, or None when it names no real moment
    (month 13). fromisoformat reads both layouts; it takes a `.` and at most six fraction digits."""
    text = instant.replace(",", ".")
    whole, dot, rest = text.partition(".")
    if dot:
        digits = re.match(r"\d+", rest)
        assert digits is not None  # INSTANT has matched
        text = f"{whole}.{digits.group()[:6].ljust(6, '0')}{rest[digits.end() :]}"
    try:
        return datetime.fromisoformat(text)
    except ValueError:
        return None


def _before(instant: str, earliest: str) -> bool:
    moment, bound = _moment(instant), _moment(earliest)
    return moment is not None and bound is not None and moment < bound


def _unordered_differences(
    expected: list[Any], actual: list[Any], instants: dict[str, str], where: str
) -> list[str]:
    """Each expected element against a different actual one, in any order (a small search: a
    list in a scenario holds a handful of items). When none fits, the differences in order."""
    matched = _assignment(expected, list(range(len(actual))), actual, instants)
    if matched is not None:
        instants.update(matched)
        return []
    differences = []
    for index, (wanted, got) in enumerate(zip(expected, actual, strict=True)):
        differences += seed_differences(wanted, got, dict(instants), f"{where}[{index}]")
    return [f"{where} (matched in any order): no order fits; in the order given:", *differences]


def _assignment(
    expected: list[Any], free: list[int], actual: list[Any], instants: dict[str, str]
) -> dict[str, str] | None:
    if not expected:
        return instants
    for index in free:
        trial = dict(instants)
        if not seed_differences(expected[0], actual[index], trial):
            found = _assignment(expected[1:], [other for other in free if other != index], actual, trial)
            if found is not None:
                return found
    return None
