"""Operations on the to-do state: plain functions, no I/O; the CLI runs each in one transaction."""

from __future__ import annotations

from datetime import datetime

from agentic_kit.changes import apply_changes
from agentic_kit.dates import deadline, due_start
from agentic_kit.errors import AppError, ErrorCode
from agentic_kit.ids import find_by_id, format_id

from .models import ID_PREFIX, Status, TodoItem, TodoState


def add_item(state: TodoState, *, title: str, description: str, due_at: str | None, now: str) -> TodoItem:
    item = TodoItem(
        id=format_id(ID_PREFIX, state.take_id()),
        title=title,
        description=description,
        due_at=due_at,
        created_at=now,
        updated_at=now,
    )
    state.items.append(item)
    return item


def find_item(state: TodoState, item_id: str) -> TodoItem:
    return find_by_id(state.items, item_id, "to-do")


def select_items(
    state: TodoState,
    *,
    status: Status | None,
    due_before: datetime | None,
    overdue_at: datetime | None,
    due_after: datetime | None = None,
) -> list[TodoItem]:
    """Items in creation order that pass every filter given.

    A due is a deadline: a date-only one lasts through the end of its day in the user's zone.
    due_before: its deadline strictly before that instant. due_after: its day (or instant) begins
    strictly after that instant. overdue_at: open and its deadline strictly before that instant.
    """
    selected = []
    for item in state.items:
        if status is not None and item.status != status:
            continue
        if due_before is not None or overdue_at is not None or due_after is not None:
            if item.due_at is None:
                continue
            item_deadline = deadline(item.due_at)
            if due_before is not None and not item_deadline < due_before:
                continue
            if due_after is not None and not due_start(item.due_at) > due_after:
                continue
            if overdue_at is not None and (item.status != "open" or not item_deadline < overdue_at):
                continue
        selected.append(item)
    return selected


def due_items(state: TodoState, instant: datetime, *, inclusive: bool) -> list[TodoItem]:
    """Open items whose due has come by `instant` (or before it, when not inclusive), in creation
    order: a date-only due comes at the start of its day in the user's zone, so an item due today
    is due all day and overdue only from tomorrow."""
    come = []
    for item in state.items:
        if item.status != "open" or item.due_at is None:
            continue
        start = due_start(item.due_at)
        if start <= instant if inclusive else start < instant:
            come.append(item)
    return come


def due_moment(item: TodoItem) -> datetime | None:
    """Where an item sorts by due: its deadline (the end of a date-only due's day)."""
    return None if item.due_at is None else deadline(item.due_at)


def update_item(
    item: TodoItem,
    *,
    title: str | None,
    description: str | None,
    due_at: str | None,
    clear_due_at: bool,
    now: str,
) -> None:
    """Apply the changes given; updatedAt moves only when a value really changed."""
    changes: dict[str, object] = {}
    if title is not None:
        changes["title"] = title
    if description is not None:
        changes["description"] = description
    if due_at is not None or clear_due_at:
        changes["due_at"] = due_at
    if item.completed_at is not None and now < item.completed_at and _changes_any(item, changes):
        # Completing was a change: the next one cannot come before it (completedAt <= updatedAt).
        raise AppError(
            ErrorCode.CONFLICT,
            f"Cannot change {item.id}: the clock reads {now}, "
            f"before it was completed at {item.completed_at}.",
            "Check the clock (AGENTIC_NOW), or reopen the item first.",
        )
    apply_changes(item, changes, now)


def _changes_any(item: TodoItem, changes: dict[str, object]) -> bool:
    """Whether apply_changes would change a field (an update that changes nothing is no change)."""
    return any(getattr(item, field) != value for field, value in changes.items())


def complete_item(item: TodoItem, *, now: str) -> None:
    """Completing a completed item changes nothing, so a retried call is harmless."""
    if item.status != "completed":
        apply_changes(item, {"status": "completed", "completed_at": now}, now)


def reopen_item(item: TodoItem, *, now: str) -> None:
    """Reopening an open item changes nothing."""
    apply_changes(item, {"status": "open", "completed_at": None}, now)


def remove_item(state: TodoState, item: TodoItem) -> None:
    # The ID counter is untouched, so the removed item's ID is never handed out again.
    state.items = [kept for kept in state.items if kept is not item]
