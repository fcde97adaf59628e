"""Export and import, for every app: all of a state's items as one document, and that document
read back.

An export is the envelope `export` prints (export_envelope): an object with `app` (the package
that printed it), `schemaVersion` (the state's format), `nextId` (the id counter), `count`,
`items` (each item whole, as the state keeps it) and, once an import renumbered any, the state's
`importedFrom`; `ok` and `command` are not read, and any other key is refused. Import reads
and checks the whole document before it takes the state's lock, so a document it refuses changes
nothing and a writer waiting on the lock never waits on the parse:

- not JSON (read by the parser a state file is read with, with its limits: nesting, digits; NaN
  and Infinity are not JSON), a key given twice, not an object with `schemaVersion` and a list
  of `items`: refused;
- another app's export (its `app`, or for an older export without one, its items' id prefix):
  refused, naming it (before the version: another app's schemaVersion says nothing here);
- `schemaVersion` above this app's: from a newer version, refused (update the app first);
  below it: read, the fields a later version added get their defaults, as a state file's do;
- an item with a field this version does not know, or a value that breaks a field's rule or
  contradicts another: refused, naming the item;
- two items with the same id: refused;
- a `count` other than the number of items (a file cut short or edited), a `nextId` out of the
  counter's range: refused;
- a moment (a StoredInstant field: createdAt, updatedAt, completedAt, a timer's startedAt…) more
  than AHEAD_DAYS after the clock, read before the lock: refused, naming the item and the field.
  Not clamped: a moved stamp would misstate when something happened. A moment ahead of the clock
  by less is kept: the apps' own states hold such moments after a clock stepped back or a change
  made with AGENTIC_NOW ahead (moments never go backwards), and their backups must restore. A
  due date may be far ahead.
- no items: accepted; it adds nothing (into an empty state its nextId is kept, as below).

Into a state with no items that has handed out none of the export's ids (a new one, or one whose
items were all removed before it reached them), an export is restored exactly: each item keeps its id, its
`importedFrom` is the state's (so a retry of an import made before the backup is known after the
restore, and the state is rebuilt byte for byte; an export holds the origins of its items only, and
an entry naming no item in it, which an older export printed for an item removed since, is
dropped), and `nextId`
(an older export's is the one after its highest id) is kept, so ids remembered before the backup
still name the same items. Into any other state they are added at the end, in the document's
order, each with a new id: an id this state handed out may have named an item removed since, and
an id never names a second item. Either way every other field is kept as exported.

An item already in the state is a CONFLICT that adds nothing: one equal in every field but the id
(the same export imported twice, a retried import), one with the id and createdAt of an item
there (the same item, changed since the export), or one an earlier import renumbered into an item
still there (the state's `importedFrom`: each such item's id here → its exported id and createdAt,
written only once there is one), however it changed since. An item renumbered from an export that
has an importedFrom entry for it records that first origin, so the export it first came in is
known in every state it reaches. Import never adds an item twice. Every value a message quotes is
cut to 60 characters (a number to 60 digits) with its length said.

Memory: each item's parsed JSON is let go as soon as its model is made, and the key check keeps no
copy of the document, so reading an export peaks near what its items' models keep, and an import
costs no more than any change of the state it makes (a 100,000-item to-do import: 237 MB, where an
`add` to that state takes 306 MB; it took 316 MB before).
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import timedelta
from functools import cache
from typing import Any, Generic, Literal, NotRequired, Protocol, Self, TypeVar

from pydantic import BaseModel, ConfigDict, ValidationError
from pydantic_core import from_json
from typing_extensions import TypedDict

from .clock import timestamp
from .dates import STORED_DUE_PATTERN, STORED_INSTANT_PATTERN, DateError, format_timestamp, parse_instant
from .envelope import Payload, list_payload
from .errors import AppError, ErrorCode, validation_error
from .ids import MAX_ID, format_id, id_problems
from .inputs import read_text_source
from .store import MAX_STATE_BYTES, RepeatedKey, VersionedState
from .text import ECHO_MAX_CHARS, printable, quoted, shortened

# How many old → new ids an import's answer lists: the answer stays small whatever the export.
IDS_SHOWN = 100

_HINT = "Give a file that `export` printed, unchanged."

# The keys an export may have: any other is a mistake (or another format), refused as an item's is.
EXPORT_KEYS = frozenset({"ok", "command", "app", "schemaVersion", "nextId", "count", "items", "importedFrom"})
# The patterns below are compiled when first used: every command imports this module (the entry
# script names it), only import needs them, and compiling them costs more than importing the rest.


@cache
def _origin_pattern() -> re.Pattern[str]:
    """An origin as importedFrom keeps it: the exported id, a space, its createdAt."""
    return re.compile(r"[a-z]+_[0-9]+ " + STORED_INSTANT_PATTERN.strip("^$"))


@cache
def _lone_surrogate_pattern() -> re.Pattern[str]:
    """A \\uD800-\\uDFFF escape that is not half of a pair (an escaped backslash before it is text)."""
    return re.compile(
        r"(?<!\\)(?:\\\\)*(\\u[dD][89abAB][0-9a-fA-F]{2})(?!\\u[dD][c-fC-F][0-9a-fA-F]{2})"
        r"|(?<!\\)(?:\\\\)*(?<!\\u[dD][89abAB][0-9a-fA-F]{2})(\\u[dD][c-fC-F][0-9a-fA-F]{2})"
    )


class BackupItem(Protocol):
    """What import reads of an item (a pydantic model of the state): its id, when it was made."""

    @property
    def id(self) -> str: ...
    @property
    def created_at(self) -> str: ...
    def model_copy(self, *, update: Mapping[str, Any] | None = None, deep: bool = False) -> Self: ...
    def model_dump_json(self, *, exclude: set[str]) -> str: ...


ItemT = TypeVar("ItemT", bound=BackupItem)


def export_envelope(item: type[BaseModel], what: str) -> type:
    """`export`'s shape for an app whose items are `item` (`what`, as "every note"): every item as
    the state keeps it, the app that made them, the format and the id counter. Each app lists it
    in its ENVELOPES, so its schema names the app's own item model."""
    # Made per app, as only the item type differs (a TypedDict made at run time, so typed as Any).
    make: Any = TypedDict
    envelope: Any = make(
        "Export",
        {
            "ok": Literal[True],
            "command": str,
            "app": str,  # the package that exported it, so another app's import names it
            "schemaVersion": int,  # the JSON key
            "nextId": int,  # the id counter, so an import into an empty state restores the ids exactly
            "count": int,
            "items": list[item],  # type: ignore[valid-type]
            # Where each item an import renumbered came from (the state's), when any was.
            "importedFrom": NotRequired[dict[str, str]],
        },
    )
    envelope.__pydantic_config__ = ConfigDict(extra="forbid")
    envelope.__doc__ = f"`export`: {what} as the state keeps it, the app, the format and the id counter."
    return envelope  # type: ignore[no-any-return]  # a class, made above


class Imported(TypedDict):
    """`import`, bounded whatever the export's size: `count` items imported; `restored` when they
    kept their ids (an empty state), else `ids`, at most 100 exported ids each to its new one, and
    `idsOmitted`, how many more there were."""

    __pydantic_config__ = ConfigDict(extra="forbid")  # type: ignore[misc]
    ok: Literal[True]
    command: str
    count: int
    restored: bool
    ids: dict[str, str]
    idsOmitted: NotRequired[int]


@dataclass(frozen=True)
class ReadExport(Generic[ItemT]):
    """An export as read and checked: its items and its nextId (None when it gives none)."""

    items: list[ItemT]
    next_id: int | None
    imported_from: dict[str, str]  # an item's id in the export → where an import took it from


def export_payload(state: VersionedState, items: Sequence[BaseModel], *, app: str) -> Payload:
    """What `export` prints: the app (its package's name), every item, its format, and the
    counter, so that an import into an empty state restores the ids exactly."""
    payload: Payload = {"app": app, "schemaVersion": state.SCHEMA_VERSION, "nextId": state.next_id}
    payload.update(list_payload(items))
    # Of the state's origins, those of the items exported: one whose item was removed since (the
    # state drops it at its next import) says nothing of them. As the state writes it: only once
    # there is one.
    exported = {getattr(item, "id", None) for item in items}
    origins = {new: origin for new, origin in state.imported_from.items() if new in exported}
    if origins:
        payload["importedFrom"] = origins
    return payload


def read_export(
    option: str,
    source: str,
    validate: Callable[[Any], ItemT],
    schema_version: int,
    item_problem: Callable[[ItemT], str | None],
    *,
    app: str,
    id_prefix: str,
) -> ReadExport[ItemT]:
    """The export a file (or stdin, "-") holds, each item made by `validate` (the item model's
    model_validate) and checked as the state checks it (`item_problem` says what ties its fields
    together); VALIDATION_ERROR otherwise. `app` and `id_prefix` are this app's: an export of
    another app is named as that."""
    return parse_export(
        option,
        read_text_source(option, source, max_bytes=MAX_STATE_BYTES),
        validate,
        schema_version,
        item_problem,
        app=app,
        id_prefix=id_prefix,
    )


def parse_export(
    option: str,
    text: str,
    validate: Callable[[Any], ItemT],
    schema_version: int,
    item_problem: Callable[[ItemT], str | None],
    *,
    app: str | None = None,
    id_prefix: str | None = None,
    now: str | None = None,
) -> ReadExport[ItemT]:
    """The export `text` holds, checked as `read_export` says; no stamp may be more than AHEAD_DAYS
    after `now` (the clock's, when not given)."""
    document = _document(option, text)
    del text  # the items' models replace it (when the caller lets it go too)
    if (
        not isinstance(document, dict)
        or type(document.get("schemaVersion")) is not int
        or not isinstance(document.get("items"), list)
    ):
        raise validation_error(f"{option} is not an export: an object with schemaVersion and items.", _HINT)
    # Another app's export first: its schemaVersion is of another format, so "newer" would mislead.
    _refuse_another_apps(option, document, app, id_prefix)
    version = document["schemaVersion"]
    if version > schema_version:
        raise validation_error(
            f"{option} is an export from a newer version (schemaVersion {_number(version)}); this version "
            f"reads up to {schema_version}.",
            "Import it with the newer version of the app.",
        )
    if version < 1:
        raise validation_error(f"{option} has schemaVersion {_number(version)}; exports start at 1.", _HINT)
    unknown = sorted(key for key in document if key not in EXPORT_KEYS)
    if unknown:
        raise validation_error(
            f"{option} has the key {quoted(unknown[0])}, which an export does not have "
            f"(it has {', '.join(sorted(EXPORT_KEYS))}).",
            _HINT,
        )
    next_id = document.get("nextId")
    if next_id is not None and type(next_id) is not int:
        raise validation_error(f"{option} has a nextId that is not a whole number.", _HINT)
    if next_id is not None and not 1 <= next_id <= MAX_ID + 1:
        raise validation_error(
            f"{option} has nextId {_number(next_id)}, out of range: an id counter is from 1 to {MAX_ID + 1}.",
            _HINT,
        )
    raw_items: list[Any] = document.pop("items")
    # `export` prints how many items it wrote: fewer or more is a truncated or edited file.
    stated = document.get("count")
    if stated is not None and type(stated) is not int:
        raise validation_error(f"{option} has a count that is not a whole number.", _HINT)
    if stated is not None and stated != len(raw_items):
        raise validation_error(
            f"{option} says count {_number(stated)} but holds {len(raw_items)} items: "
            "it was cut short or edited.",
            "Export again and import that file unchanged (or remove its count if you edited it on purpose).",
        )
    imported_from = _imported_from(option, document.pop("importedFrom", {}), raw_items)
    del document
    clock = now if now is not None else timestamp()
    latest = _latest_moment(clock)
    # Popped from the end, so each item's parsed JSON is let go once its model is made.
    raw_items.reverse()
    items: list[ItemT] = []
    seen: set[str] = set()
    position = 0
    while raw_items:
        position += 1
        item = _item(option, position, raw_items.pop(), validate, item_problem, clock, latest)
        item_id: str = item.id
        if item_id in seen:
            raise validation_error(f"{option} holds id {item_id} twice.", _HINT)
        seen.add(item_id)
        items.append(item)
    return ReadExport(items, next_id, imported_from)


def _imported_from(option: str, value: Any, raw_items: list[Any]) -> dict[str, str]:
    """An export's importedFrom, checked: each value an origin; those of its items kept. An entry
    whose key is no item's id in it says nothing of them and is dropped: an export printed before
    export left such entries out carries one for each item removed after it was imported."""
    if not isinstance(value, dict):
        raise validation_error(f"{option} has an importedFrom that is {_shown(value)}, not an object.", _HINT)
    for key, origin in value.items():
        if not isinstance(origin, str) or not _origin_pattern().fullmatch(origin):
            raise validation_error(
                f"{option} has importedFrom {quoted(key)}: {_shown(origin)}, not an id and a createdAt "
                "apart by one space, as export writes them.",
                _HINT,
            )
    ids = {raw.get("id") for raw in raw_items if isinstance(raw, dict)}
    return {key: origin for key, origin in value.items() if key in ids}


def _refuse_another_apps(
    option: str, document: dict[str, Any], app: str | None, id_prefix: str | None
) -> None:
    """An export names its app; an older one, without that, is known by its items' ids."""
    if "app" in document:  # an older export has none; one that has it names a package
        named = document["app"]
        if not isinstance(named, str) or not named.strip():
            raise validation_error(
                f"{option} has an app that is not the name of an app ({_shown(named)}).",
                f"{_HINT} Its app names the package that printed it, such as {app or 'agentic-to-do'}.",
            )
        if app is not None and named != app:
            # A name as it is (the usual case reads plainly), cut with its length when long.
            name = printable(shortened(named))
            length = f" ({len(named)} characters)" if len(named) > ECHO_MAX_CHARS else ""
            raise validation_error(
                f"{option} is an export of {name}{length}, not of {app}.",
                f"Import it with {name}; give {app} an export that {app} printed.",
            )
    if id_prefix is None:
        return
    own = f"{id_prefix}_"
    for raw in document["items"][:1]:
        item_id = raw.get("id") if isinstance(raw, dict) else None
        if isinstance(item_id, str) and "_" in item_id and not item_id.startswith(own):
            other = item_id.partition("_")[0] + "_"
            raise validation_error(
                f"{option} is another app's export: its items' ids start {printable(other)}, "
                f"where this app's start {own}.",
                "Import it with the app whose export it is.",
            )


def _document(option: str, text: str) -> Any:
    """The parsed document, read as a state file is read (pydantic-core, its limits, no NaN)."""
    if text.startswith("\ufeff"):  # in the state file reader's words
        raise validation_error(
            f"{option} starts with a byte-order mark; exports are UTF-8 JSON without one.",
            f"{_HINT} Save it as UTF-8 without a byte-order mark.",
        )
    try:
        document = from_json(text, allow_inf_nan=False)
    except ValueError as error:
        lone = _lone_surrogate_pattern().search(text) if "hex escape" in str(error) else None
        if lone is not None:
            raise validation_error(
                f"{option} holds a lone surrogate, {lone.group(1) or lone.group(2)}: half of a UTF-16 "
                "pair, which is not text JSON can carry.",
                _HINT,
            ) from None
        raise validation_error(f"{option} is not JSON the app can read ({error}).", _HINT) from None
    try:
        # Only to find a key given twice: each object is checked and dropped, no second copy kept.
        json.loads(text, object_pairs_hook=_no_repeated_key)
    except RepeatedKey as repeated:
        raise validation_error(f"The export gives the key {repeated.key!r} twice.", _HINT) from None
    except (ValueError, RecursionError):
        pass  # pydantic-core read it; this parser's own limits say nothing about keys
    return document


def _number(value: int) -> str:
    """A whole number as a message shows it: past 60 digits, its first ones and how many."""
    try:
        digits = str(abs(value))
    except ValueError:  # past Python's own limit for turning an int into text
        return f"a number of more than {MAX_ECHO_DIGITS} digits"
    if len(digits) <= ECHO_MAX_CHARS:
        return str(value)
    sign = "-" if value < 0 else ""
    return f"{sign}{digits[: ECHO_MAX_CHARS - 1]}… ({len(digits)} digits)"


MAX_ECHO_DIGITS = 4300  # Python's default int → str limit


def _shown(value: Any) -> str:
    """Any JSON value as a message shows it, cut short as `quoted` cuts a string."""
    if isinstance(value, bool) or value is None:
        return json.dumps(value)
    if isinstance(value, int):
        return _number(value)
    if isinstance(value, str):
        return quoted(value)
    return "a list" if isinstance(value, list) else "an object" if isinstance(value, dict) else "a number"


def _no_repeated_key(pairs: list[tuple[str, Any]]) -> None:
    if len({key for key, _ in pairs}) != len(pairs):
        seen: set[str] = set()
        for key, _ in pairs:
            if key in seen:
                raise RepeatedKey(key)
            seen.add(key)


def _item(
    option: str,
    position: int,
    raw: Any,
    validate: Callable[[Any], ItemT],
    item_problem: Callable[[ItemT], str | None],
    now: str,
    latest: str,
) -> ItemT:
    where = f"{option} item {position}"
    try:
        item = validate(raw)
    except ValidationError as error:
        # A field this version does not know says the most: name it first.
        first = min(error.errors(), key=lambda problem: problem["type"] != "extra_forbidden")
        field = ".".join(_field_name(str(part)) for part in first["loc"]) or "the item"
        raise validation_error(f"{where}: {field}: {_in_words(first)}.", _HINT) from None
    # What ties the item's fields together, as the state checks it; not the state's id rules:
    # the item may get a new id, so its old one may be any of the id form.
    problem = item_problem(item)
    if problem is not None:
        raise validation_error(f"{where}: {problem}.", _HINT)
    # A moment far after the clock (a year typed wrong, 9997) is no moment that happened: refused,
    # not clamped, as a changed stamp is a lie about when it happened. One less far ahead is the
    # apps' own (a clock that stepped back) and is kept. A due date may be far ahead.
    late = [
        f"{alias} {stamp}"
        for field, alias in _instant_fields(type(item))
        if isinstance(stamp := getattr(item, field), str)
        and stamp > latest  # one form: text order is time order
    ]
    if late:
        raise validation_error(
            f"{where} ({item.id}): {_and(late)} {'is' if len(late) == 1 else 'are'} more than "
            f"{AHEAD_DAYS} days after the clock ({now}); a moment that happened cannot be so far ahead.",
            "Check the clock (or AGENTIC_NOW) where the export was made and here; "
            "correct the stamp, or import once this clock is within a year of it.",
        )
    return item


# How far after the clock an imported moment may be: a clock that stepped back (NTP, a second
# machine, a restored VM, a change made with AGENTIC_NOW ahead) leaves the apps' own states with
# moments ahead of it, and a backup of one restores; a year further is a stamp typed wrong.
AHEAD_DAYS = 366


def _latest_moment(clock: str) -> str:
    """The last moment an import keeps: AHEAD_DAYS after `clock`, or the last one a stamp can
    hold when that is past the year 9999."""
    try:
        return format_timestamp(parse_instant(clock) + timedelta(days=AHEAD_DAYS))
    except (OverflowError, DateError):
        return "9999-12-31T23:59:59.999Z"


def _and(parts: list[str]) -> str:
    return parts[0] if len(parts) == 1 else f"{', '.join(parts[:-1])} and {parts[-1]}"


# What a field's pattern asks for, in words, with an example (the pattern itself says little).
_PATTERN_WORDS = {
    STORED_INSTANT_PATTERN: "must be a UTC instant to the millisecond, such as 2026-04-01T09:30:00.000Z",
    STORED_DUE_PATTERN: "must be a date such as 2026-04-03, or a UTC instant like 2026-04-01T09:30:00.000Z",
}


def _field_name(part: str) -> str:
    """A field's name as a message gives it: as it is, or, when it is the user's own key (an unknown
    one) too long or not printable, quoted and cut as every echoed value is."""
    return part if part.isprintable() and len(part) <= ECHO_MAX_CHARS else quoted(part)


def _in_words(problem: Any) -> str:
    if problem["type"] == "string_pattern_mismatch":
        words = _PATTERN_WORDS.get(problem.get("ctx", {}).get("pattern", ""))
        if words is not None:
            return words
        return "is not of the form `export` writes"
    return str(problem["msg"])


@cache
def _instant_fields(model: type) -> tuple[tuple[str, str], ...]:
    """The fields of `model` that are moments (StoredInstant, or None), by name and JSON name."""
    fields: dict[str, Any] = getattr(model, "model_fields", {})
    found = []
    for name, info in fields.items():
        patterns = {getattr(part, "pattern", None) for part in _metadata(info)}
        if STORED_INSTANT_PATTERN in patterns:
            found.append((name, info.alias or name))
    return tuple(found)


def _metadata(info: Any) -> list[Any]:
    """A field's constraints, and those of its type inside an Optional (`StoredInstant | None`)."""
    parts = list(info.metadata)
    for arg in getattr(info.annotation, "__args__", ()):
        parts.extend(getattr(arg, "__metadata__", ()))
        for meta in getattr(arg, "__metadata__", ()):
            parts.extend(getattr(meta, "metadata", ()))
    return [item for part in parts for item in (part, *getattr(part, "metadata", ()))]


def import_items(
    state: VersionedState,
    kept: list[ItemT],
    export: ReadExport[ItemT],
    *,
    id_prefix: str,
    kind: str,
    place: str = "this state",
    list_call: str = "list",
) -> Payload:
    """Restore the export's items into an empty state (`kept`, the state's list of them) with
    their ids and nextId, or add them at the end with new ids; the bounded answer. Items already
    in the state are a CONFLICT that adds nothing (the message names them as `kind`, the state as
    `place`; its hint names `list_call`, the call that shows them all)."""
    items = export.items
    # Where each item an import renumbered came from, for those still here (one removed since is
    # gone, so importing it again restores it).
    here = {item.id for item in kept}
    state.imported_from = {new: origin for new, origin in state.imported_from.items() if new in here}
    origins = {origin: new for new, origin in state.imported_from.items()}
    _refuse_items_already_here(kept, items, origins, export.imported_from, kind, place, list_call)
    restored_next = _restored_next_id(items, export.next_id, state.next_id)
    # Restored only where the ids can stay: each once, within what the counter can hand out, and
    # none that this state has handed out already, which named an item removed since (an id names
    # one item, ever: found by an outside review). A state keeps its items in id order (the order
    # they were made): an export listed in another order is restored in that one, its ids unchanged.
    in_id_order = sorted(items, key=_id_number) if not kept else items
    restored = (
        not kept
        and restored_next <= MAX_ID + 1
        and all(_id_number(item) >= state.next_id for item in items)
        and not any(id_problems(in_id_order, restored_next))
    )
    mapping: dict[str, str] = {}
    if restored:
        kept.extend(in_id_order)
        state.next_id = restored_next
        state.imported_from = dict(export.imported_from)  # the state rebuilt exactly
    else:
        for item in items:
            new_id = format_id(id_prefix, state.take_id())
            mapping[item.id] = new_id
            # Its first origin: an item the export's own state imported is known by where that
            # import took it from, so the export it first came in is known here as well.
            state.imported_from[new_id] = export.imported_from.get(item.id) or _origin(item)
            kept.append(item.model_copy(update={"id": new_id}))
    shown = dict(list(mapping.items())[:IDS_SHOWN])
    answer: Payload = {"count": len(items), "restored": restored, "ids": shown}
    if len(shown) < len(mapping):
        answer["idsOmitted"] = len(mapping) - len(shown)
    return answer


def _id_number(item: BackupItem) -> int:
    return int(item.id.rpartition("_")[2])


def _restored_next_id(items: Sequence[BackupItem], next_id: int | None, current: int) -> int:
    """The counter after a restore: past every restored id and never below the state's own."""
    highest = max((_id_number(item) for item in items), default=0)
    return max(current, highest + 1, next_id or 0)


def _origin(item: BackupItem) -> str:
    """An exported item's identity, which its edits and its new id leave as it was."""
    return f"{item.id} {item.created_at}"


def _refuse_items_already_here(
    kept: Sequence[BackupItem],
    items: Sequence[BackupItem],
    origins: Mapping[str, str],
    exported_origins: Mapping[str, str],
    kind: str,
    place: str,
    list_call: str,
) -> None:
    """An item is here when one here has its id and createdAt (changed since), is equal to it but
    for the id, or was imported from it (renumbered, and maybe changed since)."""
    if not kept:
        return
    # Equal items here (two "buy milk"s) are each named once, in order, not all as the last one.
    present: dict[str, list[str]] = {}
    for item in kept:
        present.setdefault(_content(item), []).append(item.id)
    made = {(item.id, item.created_at) for item in kept}
    here: list[tuple[str, str]] = []
    for item in items:
        # Where an import put it first, then the same item (its id and createdAt), then its equal.
        first = exported_origins.get(item.id)
        if _origin(item) in origins:
            here.append((item.id, origins[_origin(item)]))
        elif first is not None and first in origins:
            here.append((item.id, origins[first]))
        elif (item.id, item.created_at) in made:
            here.append((item.id, item.id))
        elif equal := present.get(_content(item)):
            here.append((item.id, equal.pop(0) if len(equal) > 1 else equal[0]))
    if here:
        shown = ", ".join(f"{old} as {new}" for old, new in here[:5]) + (", …" if len(here) > 5 else "")
        raise AppError(
            ErrorCode.CONFLICT,
            f"{len(here)} of the export's {len(items)} {kind} are already in {place} ({shown}); "
            "importing them again would add them twice.",
            f"Nothing was imported: this export, or part of it, is already here (see `{list_call}`).",
        )


def _content(item: BackupItem) -> str:
    """The item without its id, as one comparable text."""
    return item.model_dump_json(exclude={"id"})
