"""Changing an entity's fields: updatedAt moves only when a value really changed, so a repeated
command leaves the entity (and the state file) exactly as it was; and never to before the entity
was created, so its moments stay in order (createdAt first) whatever the clock says."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Protocol

from .errors import AppError, ErrorCode


class Timestamped(Protocol):
    @property
    def id(self) -> str: ...

    @property
    def created_at(self) -> str: ...

    updated_at: str


def apply_changes(entity: Timestamped, changes: Mapping[str, object], now: str) -> bool:
    """Set each field that differs; stamp updated_at if any did. Says whether anything changed.

    A change at a clock before the entity was created is a CONFLICT, and nothing is set.
    """
    changed = {field: value for field, value in changes.items() if getattr(entity, field) != value}
    if not changed:
        return False
    # Both are timestamps of the stored form, which compare as text in the order of their instants.
    if now < entity.created_at:
        raise AppError(
            ErrorCode.CONFLICT,
            f"Cannot change {entity.id}: the clock reads {now}, before it was created at "
            f"{entity.created_at}.",
            "Check the clock (AGENTIC_NOW): nothing can change before it exists.",
        )
    for field, value in changed.items():
        setattr(entity, field, value)
    entity.updated_at = now
    return True
