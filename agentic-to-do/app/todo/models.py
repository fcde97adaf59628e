"""The to-do item and the state file that holds the items.

Every field's rule is checked on each load, in the model (pydantic's one pass): its exact type,
the id form, the length limits, a title and tags as every version has written them, and dates and timestamps
as the app writes them. What ties fields together is checked by `TodoState.problems`.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import ClassVar, Literal

from pydantic import Field

from agentic_kit.ids import id_pattern
from agentic_kit.store import CamelModel, StoredDue, StoredInstant, VersionedState, empty_list
from agentic_kit.tags import Tags, tag_problem
from agentic_kit.text import STORED_LINE_PATTERN

ID_PREFIX = "td"
TITLE_MAX_CHARS = 500
DESCRIPTION_MAX_CHARS = 20_000

Status = Literal["open", "completed"]
Priority = Literal["high", "medium", "low"]
PRIORITIES: tuple[Priority, ...] = ("high", "medium", "low")  # most important first
REPEAT_MAX_DAYS = 3650  # every:<N>d up to ten years
# The rule as given: one of the four words, or every:<N>d with N from 1 to REPEAT_MAX_DAYS in
# ASCII digits without a leading zero.
REPEAT_PATTERN = (
    r"^(?:daily|weekly|monthly|yearly"
    r"|every:(?:[1-9][0-9]{0,2}|[1-2][0-9]{3}|3[0-5][0-9]{2}|36[0-4][0-9]|3650)d)$"
)


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
    # Added in schema version 2; a version-1 file's items load with these defaults.
    tags: Tags = Field(default_factory=empty_list)
    priority: Priority | None = Field(None, description="high, medium or low; null when not set.")
    repeat: str | None = Field(
        None,
        pattern=REPEAT_PATTERN,
        description=f"daily, weekly, monthly, yearly or every:<N>d (N from 1 to {REPEAT_MAX_DAYS}); "
        "null when it does not repeat. Only an item with a due repeats.",
    )


class TodoState(VersionedState):
    SCHEMA_VERSION: ClassVar[int] = 2  # 2 added tags, priority and repeat to every item

    items: list[TodoItem] = Field(default_factory=empty_list)

    def entities(self) -> Sequence[TodoItem]:
        return self.items

    def problems(self) -> Iterator[str]:
        yield from super().problems()
        for item in self.items:
            problem = item_problem(item)
            if problem is not None:
                yield problem
                return


def item_problem(item: TodoItem) -> str | None:
    """What ties one item's fields together that the item breaks, in words; None when it keeps it
    all. The state checks it for each item; import for each item it reads (whose id it replaces)."""
    if (item.status == "completed") != (item.completed_at is not None):
        return f"{item.id} is {item.status} but its completedAt is {item.completed_at or 'null'}"
    # Timestamps of the stored form compare as text in the order of their instants.
    if item.updated_at < item.created_at or (item.completed_at or item.created_at) < item.created_at:
        return f"{item.id} has moments out of order (updatedAt or completedAt before createdAt)"
    if (item.completed_at or item.updated_at) > item.updated_at:  # completing is a change
        return f"{item.id} has moments out of order (completedAt after updatedAt)"
    if item.repeat is not None and item.due_at is None:
        return f"{item.id} repeats {item.repeat} but has no due to repeat from"
    return tag_problem(item.id, item.tags)
