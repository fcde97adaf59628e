"""Export and import: every item of a state as one document, and that document read back.

An export is the envelope `export` prints: an object with `schemaVersion` (the state's format)
and `items` (each item whole, as the state keeps it); its other keys (`ok`, `command`, `count`)
are not read. Import checks the whole document before anything is added, so a document it
refuses changes nothing:

- not JSON (read by the parser a state file is read with, with its limits: nesting, digits; NaN
  and Infinity are not JSON), a key given twice, not an object with `schemaVersion` and a list
  of `items`: refused;
- `schemaVersion` above this app's: from a newer version, refused (update the app first);
- `schemaVersion` 1 (before tags, priority and repeat): read, its items get those fields'
  defaults (`[]`, null, null), as a version-1 state file's items do;
- an item with a field this version does not know, or a value that breaks a field's rule or
  contradicts another (a completed item without completedAt): refused, naming the item;
- two items with the same id: refused;
- no items: accepted, and nothing changes.

- a timestamp (createdAt, updatedAt, completedAt) after the clock: refused, naming the item (an
  item changed "in the future" could not be changed again until the clock caught up).

Into a list with no items, an export is restored exactly: each item keeps its id, and `nextId`
(written by export since round three; an older export's is the one after its highest id) is
kept, so ids remembered before the backup still name the same items. Into a list that has items,
they are added at the end, in the document's order, each with a new id. Either way every other
field is kept as exported. An export whose items are already in the list (equal in every field
but the id: the same export imported twice, a retried import) is a CONFLICT that adds nothing.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from pydantic import ValidationError

from agentic_kit.errors import AppError, ErrorCode, validation_error
from agentic_kit.ids import MAX_ID, format_id, id_problems
from agentic_kit.store import RepeatedKey, read_json

from .models import ID_PREFIX, TodoItem, TodoState, item_problem

_HINT = "Give a file that `export` printed, unchanged."


# How many old → new ids an import's answer lists: the answer stays small whatever the export.
IDS_SHOWN = 100


def parse_export(option: str, text: str, now: str) -> tuple[list[TodoItem], int | None]:
    """The items of an export, each checked as the state checks it and none with a timestamp
    after `now`, and its nextId (None when it gives none); VALIDATION_ERROR otherwise."""
    try:
        document = read_json(text)  # the parser and limits a state file is read with
    except RepeatedKey as repeated:
        raise validation_error(f"The export gives the key {repeated.key!r} twice.", _HINT) from None
    except ValueError as error:
        raise validation_error(f"{option} is not JSON the app can read ({error}).", _HINT) from None
    if (
        not isinstance(document, dict)
        or type(document.get("schemaVersion")) is not int
        or not isinstance(document.get("items"), list)
    ):
        raise validation_error(f"{option} is not an export: an object with schemaVersion and items.", _HINT)
    version = document["schemaVersion"]
    if version > TodoState.SCHEMA_VERSION:
        raise validation_error(
            f"{option} is an export from a newer version (schemaVersion {version}); this version "
            f"reads up to {TodoState.SCHEMA_VERSION}.",
            "Import it with the newer version of the app.",
        )
    if version < 1:
        raise validation_error(f"{option} has schemaVersion {version}; exports start at 1.", _HINT)
    items = [_item(option, position, raw, now) for position, raw in enumerate(document["items"], start=1)]
    seen: set[str] = set()
    for item in items:
        if item.id in seen:
            raise validation_error(f"{option} holds id {item.id} twice.", _HINT)
        seen.add(item.id)
    next_id = document.get("nextId")
    if next_id is not None and (type(next_id) is not int or not 1 <= next_id <= MAX_ID + 1):
        raise validation_error(f"{option} has a nextId that is not a whole number from 1.", _HINT)
    return items, next_id


def _item(option: str, position: int, raw: Any, now: str) -> TodoItem:
    where = f"{option} item {position}"
    try:
        item = TodoItem.model_validate(raw)
    except ValidationError as error:
        # A field this version does not know says the most: name it first.
        first = min(error.errors(), key=lambda problem: problem["type"] != "extra_forbidden")
        field = ".".join(str(part) for part in first["loc"]) or "the item"
        raise validation_error(f"{where}: {field}: {first['msg']}.", _HINT) from None
    # What ties the item's fields together, as the state checks it; not the state's id rules:
    # the item gets a new id, so its old one may be any of the id form.
    problem = item_problem(item)
    if problem is not None:
        raise validation_error(f"{where}: {problem}.", _HINT)
    # Timestamps share one fixed form (years 0001-9997), so text order is time order.
    for field, moment in (
        ("createdAt", item.created_at),
        ("updatedAt", item.updated_at),
        ("completedAt", item.completed_at),
    ):
        if moment is not None and moment > now:
            raise validation_error(
                f"{where}: {field} {moment} is after the clock ({now}).",
                "Check the clock (AGENTIC_NOW) or the file: an export holds only moments that have passed.",
            )
    return item


def import_items(
    state: TodoState, items: Sequence[TodoItem], next_id: int | None
) -> tuple[dict[str, str], bool]:
    """Restore the items into an empty list with their ids and nextId, or add them at the end
    with new ids; the mapping from each old id to its new (empty when restored) and whether they
    were restored. Items already in the list are a CONFLICT that adds nothing."""
    _refuse_items_already_here(state, items)
    restored_next = _restored_next_id(items, next_id, state.next_id)
    # Restored only where the ids can stay: in order, and within what the counter can hand out.
    if not state.items and restored_next <= MAX_ID + 1 and not any(id_problems(items, restored_next)):
        state.items.extend(items)
        state.next_id = restored_next
        return {}, True
    mapping: dict[str, str] = {}
    for item in items:
        new_id = format_id(ID_PREFIX, state.take_id())
        mapping[item.id] = new_id
        state.items.append(item.model_copy(update={"id": new_id}))
    return mapping, False


def _restored_next_id(items: Sequence[TodoItem], next_id: int | None, current: int) -> int:
    """The counter after a restore: past every restored id and never below the list's own."""
    highest = max((int(item.id.rpartition("_")[2]) for item in items), default=0)
    return max(current, highest + 1, next_id or 0)


def _refuse_items_already_here(state: TodoState, items: Sequence[TodoItem]) -> None:
    present = {_content(item): item.id for item in state.items}
    here = [(item.id, present[key]) for item in items if (key := _content(item)) in present]
    if here:
        shown = ", ".join(f"{old} as {new}" for old, new in here[:5]) + (", …" if len(here) > 5 else "")
        raise AppError(
            ErrorCode.CONFLICT,
            f"{len(here)} of the export's {len(items)} items are already in the list ({shown}); "
            "importing them again would add them twice.",
            "Nothing was imported: this export, or part of it, is already here (see `list --status all`).",
        )


def _content(item: TodoItem) -> str:
    """The item without its id, as one comparable text."""
    return item.model_dump_json(exclude={"id"})
