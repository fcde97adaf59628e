"""Changing an entity's fields: updatedAt moves only when a value really changed, so a repeated
command leaves the entity (and the state file) exactly as it was."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Protocol


class Timestamped(Protocol):
    updated_at: str


def apply_changes(entity: Timestamped, changes: Mapping[str, object], now: str) -> bool:
    """Set each field that differs; stamp updated_at if any did. Says whether anything changed."""
    changed = False
    for field, value in changes.items():
        if getattr(entity, field) != value:
            setattr(entity, field, value)
            changed = True
    if changed:
        entity.updated_at = now
    return changed
