"""Operations on the to-do state: plain functions, no I/O; the CLI runs each in one transaction."""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import datetime, tzinfo

from agentic_kit import clock, zones
from agentic_kit.changes import apply_changes, moment_of_change
from agentic_kit.dates import deadline, due_start, format_timestamp
from agentic_kit.errors import validation_error
from agentic_kit.ids import find_by_id, format_id
from agentic_kit.search import search
from agentic_kit.tags import carries, merged_tags, tag_key

from .models import ID_PREFIX, Priority, Status, TodoItem, TodoState
from .repeats import next_due


def add_item(
    state: TodoState,
    *,
    title: str,
    description: str,
    due_at: str | None,
    now: str,
    tags: Sequence[str] = (),
    priority: Priority | None = None,
    repeat: str | None = None,
) -> TodoItem:
    item = TodoItem(
        id=format_id(ID_PREFIX, state.take_id()),
        title=title,
        description=description,
        due_at=due_at,
        created_at=now,
        updated_at=now,
        tags=merged_tags([], tags, "An item"),
        priority=priority,
        repeat=repeat,
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
    tags: Sequence[str] = (),
    priority: Priority | None = None,
) -> list[TodoItem]:
    """Items in creation order that pass every filter given.

    A due is a deadline: a date-only one lasts through the end of its day in the user's zone.
    due_before: its deadline strictly before that instant. due_after: its day (or instant) begins
    strictly after that instant. overdue_at: open and its deadline strictly before that instant.
    tags: carrying every one of them.
    """
    wanted = set(tags)
    selected = []
    for item in state.items:
        if status is not None and item.status != status:
            continue
        if priority is not None and item.priority != priority:
            continue
        if not carries(item.tags, wanted):
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


def search_items(
    state: TodoState, terms: list[str], *, status: Status | None, tags: Sequence[str]
) -> list[TodoItem]:
    """Items whose title, description or tags hold every term (ignoring case and accents),
    ranked as notes ranks: more terms in the title first, then more in the tags, then newest."""
    newest_first = reversed(select_items(state, status=status, due_before=None, overdue_at=None, tags=tags))
    return search(newest_first, terms, lambda item: item.description)


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


def due_moments() -> Callable[[TodoItem], datetime | None]:
    """due_moment for one sort, reading each distinct due once: a list holds few distinct dates
    (a sort at 10,000 items stays near list's cost). Made per sort, as the zone is the call's."""
    deadlines = functools.cache(deadline)
    return lambda item: None if item.due_at is None else deadlines(item.due_at)


_PRIORITY_RANK: dict[Priority | None, int] = {"high": 0, "medium": 1, "low": 2, None: 3}


def priority_rank(item: TodoItem) -> int:
    """Where an item sorts by priority: high, medium, low, then none."""
    return _PRIORITY_RANK[item.priority]


@dataclass(frozen=True)
class Update:
    """What `update` was given; None (or empty, or False) leaves a field as it is."""

    title: str | None = None
    description: str | None = None
    due_at: str | None = None
    clear_due_at: bool = False
    tag: list[str] = field(default_factory=list)
    untag: list[str] = field(default_factory=list)
    priority: Priority | None = None
    clear_priority: bool = False
    repeat: str | None = None
    clear_repeat: bool = False


def update_item(item: TodoItem, update: Update, *, now: str) -> None:
    """Apply the changes given; updatedAt moves only when a value really changed."""
    changes: dict[str, object] = {}
    if update.title is not None:
        changes["title"] = update.title
    if update.description is not None:
        changes["description"] = update.description
    if update.due_at is not None or update.clear_due_at:
        changes["due_at"] = update.due_at
    if update.tag or update.untag:
        kept = [tag for tag in item.tags if tag_key(tag) not in update.untag]
        changes["tags"] = merged_tags(kept, update.tag, "An item")
    if update.priority is not None or update.clear_priority:
        changes["priority"] = update.priority
    repeat, due_at = item.repeat, item.due_at
    if update.repeat is not None or update.clear_repeat:
        changes["repeat"] = repeat = update.repeat
    if update.due_at is not None or update.clear_due_at:
        due_at = update.due_at
    check_repeats_from_a_due(item, repeat, due_at)
    apply_changes(item, changes, now)


def _today() -> str:
    """The user's today: the first due of a rule that starts now. A later example (a week out)
    was a value no one gave, and it left the first occurrence out; today is never overdue, as a
    date-only due lasts through its day."""
    return clock.now().astimezone(zones.zone()).date().isoformat()


def check_repeats_from_a_due(item: TodoItem | None, repeat: str | None, due_at: str | None) -> None:
    """A repeating item needs a due: the next one is due a step after it. `item`: the item an
    update changes; None for a new one."""
    if repeat is None or due_at is not None:
        return
    if item is None:
        raise validation_error(
            f"--repeat {repeat} needs a due to repeat from.",
            f"Give --due-at too, the first due: from today, --due-at {_today()}.",
        )
    if item.repeat is not None and item.due_at is not None:  # the update clears the due
        raise validation_error(
            f"{item.id} repeats {item.repeat}, and a repeating item needs a due.",
            "Give --clear-repeat too to stop it repeating, or give a new --due-at instead.",
        )
    raise validation_error(
        f"{item.id} has no due, and --repeat {repeat} needs one to repeat from.",
        "Give --due-at with --repeat.",
    )


def complete_item(item: TodoItem, *, now: str) -> None:
    """Completing a completed item changes nothing, so a retried call is harmless. A clock before
    the item's last change completes it at that change (completedAt <= updatedAt holds)."""
    if item.status != "completed":
        moment = moment_of_change(item, now)
        apply_changes(item, {"status": "completed", "completed_at": moment}, moment)


def complete_items(
    state: TodoState, items: Sequence[TodoItem], *, now: str, zone: tzinfo
) -> dict[str, TodoItem]:
    """Complete each item; each repeating one that was open gets its next (a new open item, one
    step of its rule later, added at the end). Returns the items made, by the id of the item each
    follows, in the order of those items. An item already completed makes none, so a retried call
    makes none. One reopened and completed again names the next it made, while that still exists,
    instead of making a second one."""
    made = {}
    for item in items:
        was_open = item.status == "open"
        complete_item(item, now=now)
        if was_open and item.repeat is not None:
            # The next is made when its item was completed: at completedAt, as recorded.
            assert item.completed_at is not None
            made[item.id] = _existing_next(state, item, zone) or _next_of(
                state, item, now=item.completed_at, zone=zone
            )
    return made


def _existing_next(state: TodoState, item: TodoItem, zone: tzinfo) -> TodoItem | None:
    """The next this item made before it was reopened: an item added after it (a higher id) with
    what a next is made of (its title, description, tags, priority and rule, and the due one step
    after its due), never changed since but for its completion (updatedAt its createdAt, or its
    completedAt: found by an outside review, a next already completed was not it, and the chore
    was made twice). Nothing on the item records it, so it is found so: an edited or removed
    next is no longer it, nor is an item a user added with a description, tags or priority of
    its own."""
    if item.repeat is None or item.due_at is None:
        return None
    made = (item.title, item.description, item.tags, item.priority, item.repeat)
    due = next_due(item.due_at, item.repeat, zone)
    number = _number(item.id)
    return next(
        (
            other
            for other in state.items
            if _number(other.id) > number
            and other.due_at == due
            and other.updated_at in (other.created_at, other.completed_at)
            and (other.title, other.description, other.tags, other.priority, other.repeat) == made
        ),
        None,
    )


def _number(item_id: str) -> int:
    return int(item_id.rpartition("_")[2])


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
