"""The to-do item and the state file that holds the items.

Every field's rule is checked on each load, in the model (pydantic's one pass): its exact type,
the id form, the length limits, a title as every version has written it, and dates and timestamps
as the app writes them. What ties fields together is checked by `TodoState.problems`.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Literal

from pydantic import Field

from agentic_kit.ids import id_pattern
from agentic_kit.store import CamelModel, StoredDue, StoredInstant, VersionedState
from agentic_kit.text import STORED_LINE_PATTERN

ID_PREFIX = "td"
TITLE_MAX_CHARS = 500
DESCRIPTION_MAX_CHARS = 20_000

Status = Literal["open", "completed"]
Priority = Literal["high", "medium", "low"]
# A repeat rule as kept: a calendar step, or a number of days (1 to 9999, no leading zero).
REPEAT_PATTERN = r"^(?:daily|weekly|monthly|yearly|every:[1-9][0-9]{0,3}d)$"


class TodoItem(CamelModel):
    """One to-do; the field order here is the field order in every envelope."""

    id: str = Field(
        pattern=id_pattern(ID_PREFIX), description="td_0001, td_0002, …; never reused, also after a remove."
    )
    title: str = Field(
        min_length=1,
        max_length=TITLE_MAX_CHARS,
        pattern=STORED_LINE_PATTERN,
        description=f"One line, 1 to {TITLE_MAX_CHARS} characters, trimmed.",
    )
    description: str = Field(
        "",
        max_length=DESCRIPTION_MAX_CHARS,
        description=f"Free text up to {DESCRIPTION_MAX_CHARS} characters.",
    )
    status: Status = Field("open", description="open or completed.")
    due_at: StoredDue | None = Field(
        None, description="YYYY-MM-DD as given, or a UTC instant like 2026-04-05T09:00:00.000Z."
    )
    created_at: StoredInstant = Field(
        description="UTC instant with milliseconds, e.g. 2026-04-01T00:00:00.000Z."
    )
    updated_at: StoredInstant = Field(description="When a field last changed (UTC, milliseconds).")
    completed_at: StoredInstant | None = Field(None, description="When it was completed; null while open.")
    tags: list[str] = Field(
        default_factory=list, description="Lowercase one-word tags, unique and sorted; [] when none."
    )
    priority: Priority | None = Field(None, description="high, medium or low; null when unset.")
    repeat: str | None = Field(
        None,
        pattern=REPEAT_PATTERN,
        description="daily, weekly, monthly, yearly or every:<N>d: completing the item makes the next "
        "one, due one step later; null when it does not repeat.",
    )


class TodoState(VersionedState):
    items: list[TodoItem] = Field(default_factory=list)

    def entities(self) -> Sequence[TodoItem]:
        return self.items

    def problems(self) -> Iterator[str]:
        yield from super().problems()
        for item in self.items:
            if (item.status == "completed") != (item.completed_at is not None):
                yield f"{item.id} is {item.status} but its completedAt is {item.completed_at or 'null'}"
                return
            # Timestamps of the stored form compare as text in the order of their instants.
            if item.updated_at < item.created_at or (item.completed_at or item.created_at) < item.created_at:
                yield f"{item.id} has moments out of order (updatedAt or completedAt before createdAt)"
                return
            if (item.completed_at or item.updated_at) > item.updated_at:  # completing is a change
                yield f"{item.id} has moments out of order (completedAt after updatedAt)"
                return
