"""Changing an entity's fields: updatedAt moves only when a value really changed, so a repeated
command leaves the entity (and the state file) exactly as it was; and never backwards: a change
whose clock reads before the entity's last change (a clock stepped back by NTP or a restored VM,
another machine's clock, a look-ahead with AGENTIC_NOW) is recorded at that last change, so its
moments stay in order (createdAt first) and no clock locks anyone out."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Protocol


class Timestamped(Protocol):
    @property
    def id(self) -> str: ...

    @property
    def created_at(self) -> str: ...

    updated_at: str


def moment_of_change(entity: Timestamped, now: str) -> str:
    """The moment a change of `entity` records: the clock's, or the entity's last change when the
    clock reads before it. updatedAt is never before any other moment the entity holds."""
    # Both are timestamps of the stored form, which compare as text in the order of their instants.
    return max(now, entity.updated_at)


def apply_changes(entity: Timestamped, changes: Mapping[str, object], now: str) -> bool:
    """Set each field that differs; stamp updated_at (at moment_of_change) if any did. Says
    whether anything changed."""
    changed = {field: value for field, value in changes.items() if getattr(entity, field) != value}
    if not changed:
        return False
    for field, value in changed.items():
        setattr(entity, field, value)
    entity.updated_at = moment_of_change(entity, now)
    return True
