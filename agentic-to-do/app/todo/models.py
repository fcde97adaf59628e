"""The to-do item and the state file that holds the items."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from agentic_kit.store import CamelModel, VersionedState

ID_PREFIX = "td"
TITLE_MAX_CHARS = 500
DESCRIPTION_MAX_CHARS = 20_000

Status = Literal["open", "completed"]


class TodoItem(CamelModel):
    """One to-do; the field order here is the field order in every envelope."""

    id: str = Field(description="td_0001, td_0002, …; never reused, also after a remove.")
    title: str = Field(description=f"One line, 1 to {TITLE_MAX_CHARS} characters.")
    description: str = Field("", description=f"Free text up to {DESCRIPTION_MAX_CHARS} characters.")
    status: Status = Field("open", description="open or completed.")
    due_at: str | None = Field(
        None, description="YYYY-MM-DD as given, or a UTC instant like 2026-04-05T09:00:00.000Z."
    )
    created_at: str = Field(description="UTC instant with milliseconds, e.g. 2026-04-01T00:00:00.000Z.")
    updated_at: str = Field(description="When a field last changed (UTC, milliseconds).")
    completed_at: str | None = Field(None, description="When it was completed; null while open.")


class TodoState(VersionedState):
    items: list[TodoItem] = Field(default_factory=list)
