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

Items that pass are added at the end, in the document's order, each with a new id; every other
field is kept as exported (timestamps too). Importing the same export twice adds its items twice.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from pydantic import ValidationError

from agentic_kit.errors import validation_error
from agentic_kit.ids import format_id
from agentic_kit.store import RepeatedKey, read_json

from .models import ID_PREFIX, TodoItem, TodoState, item_problem

_HINT = "Give a file that `export` printed, unchanged."


def parse_export(option: str, text: str) -> list[TodoItem]:
    """The items of an export, each checked as the state checks it; VALIDATION_ERROR otherwise."""
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
    items = [_item(option, position, raw) for position, raw in enumerate(document["items"], start=1)]
    seen: set[str] = set()
    for item in items:
        if item.id in seen:
            raise validation_error(f"{option} holds id {item.id} twice.", _HINT)
        seen.add(item.id)
    return items


def _item(option: str, position: int, raw: Any) -> TodoItem:
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
    return item


def import_items(state: TodoState, items: Sequence[TodoItem]) -> dict[str, str]:
    """Add the items at the end with new ids, in order; the mapping from each old id to its new."""
    mapping: dict[str, str] = {}
    for item in items:
        new_id = format_id(ID_PREFIX, state.take_id())
        mapping[item.id] = new_id
        state.items.append(item.model_copy(update={"id": new_id}))
    return mapping
