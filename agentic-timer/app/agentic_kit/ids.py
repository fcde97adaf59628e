"""IDs: a prefix and a counter kept in the state, so an ID is never handed out twice; and finding
an entity by its ID."""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Protocol, TypeVar

from .errors import not_found, validation_error


class HasId(Protocol):
    @property
    def id(self) -> str: ...


EntityT = TypeVar("EntityT", bound=HasId)


def format_id(prefix: str, number: int) -> str:
    """td_0001 … td_9999, then td_10000: four digits at least, more when needed."""
    return f"{prefix}_{number:04d}"


def check_id(prefix: str, text: str) -> str:
    """The ID as given, or VALIDATION_ERROR when it cannot be an ID of this app."""
    if not re.fullmatch(rf"{re.escape(prefix)}_\d{{4,}}", text):
        raise validation_error(
            f"{text!r} is not a valid id; ids look like {format_id(prefix, 1)}.",
            "Use an id exactly as a previous command returned it.",
        )
    return text


def find_by_id(entities: Iterable[EntityT], entity_id: str, entity: str) -> EntityT:
    """The entity with that ID, or NOT_FOUND naming what kind of entity was looked for."""
    for candidate in entities:
        if candidate.id == entity_id:
            return candidate
    raise not_found(entity, entity_id)
