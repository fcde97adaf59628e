"""The to-do item and the state file that holds the items."""

from __future__ import annotations

from typing import Literal

from agentic_kit.store import CamelModel, VersionedState

ID_PREFIX = "td"
TITLE_MAX_CHARS = 500
DESCRIPTION_MAX_CHARS = 20_000

Status = Literal["open", "completed"]


class TodoItem(CamelModel):
    """One to-do; the field order here is the field order in every envelope."""

    id: str
    title: str
    description: str = ""
    status: Status = "open"
    due_at: str | None = None
    created_at: str
    updated_at: str
    completed_at: str | None = None


class TodoState(VersionedState):
    items: list[TodoItem] = []
