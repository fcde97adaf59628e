"""IDs: a prefix and a counter kept in the state, so an ID is never handed out twice; the one form
an ID takes; and finding an entity by its ID."""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Sequence
from typing import Protocol, TypeVar

from .errors import not_found, validation_error
from .text import quoted

# The largest integer every JSON reader keeps exactly (2**53 - 1): no ID counts past it.
MAX_ID = 9_007_199_254_740_991


class HasId(Protocol):
    @property
    def id(self) -> str: ...


EntityT = TypeVar("EntityT", bound=HasId)


def format_id(prefix: str, number: int) -> str:
    """td_0001 … td_9999, then td_10000: four digits at least, more when needed."""
    return f"{prefix}_{number:04d}"


def id_pattern(prefix: str) -> str:
    """The IDs format_id makes, and only those: ASCII digits, four at least (16 at most: MAX_ID
    has 16), no extra leading zero, and not 0000 (the counter starts at 1)."""
    four_digits = "000[1-9]|00[1-9][0-9]|0[1-9][0-9]{2}|[1-9][0-9]{3}"
    return rf"^{re.escape(prefix)}_(?:{four_digits}|[1-9][0-9]{{4,15}})$"


def check_id(prefix: str, text: str) -> str:
    """The ID as given, or VALIDATION_ERROR when it is not one format_id could have made: another
    prefix, digits of another script, an extra leading zero (td_00001), td_0000, or past MAX_ID."""
    if not re.fullmatch(id_pattern(prefix), text) or int(text.rpartition("_")[2]) > MAX_ID:
        other = _OTHER_ID.fullmatch(text.strip())
        if other is not None and other[1] != prefix and other[1] in OWNERS:
            raise validation_error(
                f"{quoted(text)} is an id of {OWNERS[other[1]]}, not of this app: this app's ids start "
                f"with {prefix}_ (like {format_id(prefix, 1)}).",
                f"Give it to {OWNERS[other[1]]}, or use an id this app returned (its list shows them).",
            )
        raise validation_error(
            f"{quoted(text)} is not a valid id; ids look like {format_id(prefix, 1)} "
            f"({prefix}_ and 4 to 16 digits, no extra leading zero, from {format_id(prefix, 1)} on).",
            _id_hint(prefix, text),
        )
    return text


# Whose ids these are, by prefix: an id of one app given to another is named as its own.
OWNERS = {
    "td": "the to-do list (agentic-to-do)",
    "nt": "the notes app (agentic-notes)",
    "tm": "the timer (agentic-timer)",
}
_OTHER_ID = re.compile(r"([a-z]{2})_[0-9]{1,16}")
_SHORT_ID = re.compile(r"([0-9]{1,20})")


def _id_hint(prefix: str, text: str) -> str:
    """The id written in full when the text is this app's prefix and a number it counts to
    (`tm_1`, `tm_00001`: tm_0001); else the rule."""
    number = text.strip().removeprefix(f"{prefix}_") if text.strip().startswith(f"{prefix}_") else None
    if number is not None and _SHORT_ID.fullmatch(number) and 1 <= int(number) <= MAX_ID:
        return f"Did you mean {format_id(prefix, int(number))} (the id written in full)?"
    return "Use an id exactly as a previous command returned it."


def find_by_id(
    entities: Iterable[EntityT],
    entity_id: str,
    entity: str,
    list_command: str = "list",
    search_command: str | None = None,
) -> EntityT:
    """The entity with that ID, or NOT_FOUND naming what kind of entity was looked for, and the
    command that lists every ID there is."""
    for candidate in entities:
        if candidate.id == entity_id:
            return candidate
    raise not_found(entity, entity_id, list_command, search_command)


def id_problems(entities: Sequence[HasId], next_id: int) -> Iterator[str]:
    """What is wrong with a state's IDs (already of id_pattern's form): each is new, so they grow
    in the order the entities are kept (the order they were made), and the counter is past them."""
    # In id_pattern's one form a longer number is a larger one, and equal lengths compare as text:
    # no int() for each of 10,000 IDs.
    previous, previous_length = "", 0
    for entity in entities:
        entity_id = entity.id
        length = len(entity_id)
        if length < previous_length or (length == previous_length and entity_id <= previous):
            yield f"id {entity_id} does not come after the id before it (ids are unique and kept in order)"
            return
        previous, previous_length = entity_id, length
    if entities and next_id <= int(previous.rpartition("_")[2]):
        yield f"nextId {next_id} is not above the highest id, {previous}"
