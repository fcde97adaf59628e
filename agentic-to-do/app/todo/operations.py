"""Operations on the to-do state: plain functions, no I/O; the CLI runs each in one transaction."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime, tzinfo

from agentic_kit.changes import apply_changes
from agentic_kit.dates import deadline, format_timestamp
from agentic_kit.errors import AppError, ErrorCode
from agentic_kit.ids import find_by_id, format_id

from .models import ID_PREFIX, Status, TodoItem, TodoState
from .repeats import next_due


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
) -> list[TodoItem]:
    """Items in creation order that pass every filter given.

    due_before: due strictly before that instant. overdue_at: open and due before that instant
    (a date-only due runs to the end of its UTC day).
    """
    selected = []
    for item in state.items:
        if status is not None and item.status != status:
            continue
        if due_before is not None or overdue_at is not None:
            if item.due_at is None:
                continue
            item_deadline = deadline(item.due_at)
            if due_before is not None and not item_deadline < due_before:
                continue
            if overdue_at is not None and (item.status != "open" or not item_deadline < overdue_at):
                continue
        selected.append(item)
    return selected


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


def complete_items(state: TodoState, items: Sequence[TodoItem], *, now: str, zone: tzinfo) -> list[TodoItem]:
    """Complete each item; each repeating one that was open gets its next (a new open item, one
    step of its rule later, added at the end). Returns the items made, in the order of the items
    they follow. An item already completed makes none, so a retried call makes none."""
    made = []
    for item in items:
        was_open = item.status == "open"
        complete_item(item, now=now)
        if was_open and item.repeat is not None:
            made.append(_next_of(state, item, now=now, zone=zone))
    return made


def _next_of(state: TodoState, item: TodoItem, *, now: str, zone: tzinfo) -> TodoItem:
    repeat = item.repeat
    assert repeat is not None
    following = TodoItem(
        id=format_id(ID_PREFIX, state.take_id()),
        title=item.title,
        description=item.description,
        due_at=next_due(item.due_at, repeat, zone) if item.due_at is not None else None,
        created_at=now,
        updated_at=now,
        tags=list(item.tags),
        priority=item.priority,
        repeat=repeat,
    )
    state.items.append(following)
    return following


def reopen_item(item: TodoItem, *, now: str) -> None:
    """Reopening an open item changes nothing."""
    apply_changes(item, {"status": "open", "completed_at": None}, now)


def remove_item(state: TodoState, item: TodoItem) -> None:
    # The ID counter is untouched, so the removed item's ID is never handed out again.
    state.items = [kept for kept in state.items if kept is not item]


def purge_items(state: TodoState, completed_before: datetime | None) -> list[TodoItem]:
    """Take out every completed item (completed strictly before the bound, when given), in one
    change; the items taken, in creation order."""
    bound = format_timestamp(completed_before) if completed_before is not None else None
    purged = [
        item
        for item in state.items
        if item.completed_at is not None and (bound is None or item.completed_at < bound)
    ]
    if purged:
        # The ID counter is untouched, so no purged item's ID is handed out again.
        taken = {id(item) for item in purged}
        state.items = [item for item in state.items if id(item) not in taken]
    return purged
