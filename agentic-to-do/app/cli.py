# /// script
# requires-python = ">=3.11"
# dependencies = ["typer>=0.29,<0.30", "filelock>=3.12", "pydantic>=2.7", "tzdata; sys_platform == 'win32'"]
# ///
"""Agentic To-Do: a persistent to-do list operated through a JSON-first CLI.

Run from the package root as `python3 app/cli.py <command> ...`. Each command parses its
arguments, runs one operation inside one store transaction (or one lock-free read), and returns
a payload that the kit's runner prints as exactly one JSON envelope.
"""

import _signal  # type: ignore[import-not-found]  # `signal` without its enums: this runs at once

# The first statement after the docstring (so no `from __future__` import, which would have to
# come first; Python 3.11 needs none): from here on a SIGINT ends the run quietly, by the kernel's
# default action, as SIGTERM does (agentic_kit/interrupts.py says what each prints). Only when run
# as the entry, and when Python's own handler is set (a background job's SIGINT stays ignored);
# the Python interpreter's start-up, before this line, is Python's.
if __name__ == "__main__" and _signal.getsignal(_signal.SIGINT) is _signal.default_int_handler:
    _signal.signal(_signal.SIGINT, _signal.SIG_DFL)

import os
import sys

# A runtime runs `python3 app/cli.py` with no install step: the app's own folder, which holds the
# vendored kit and the domain package, goes first on the import path, for the imports below.
sys.path.insert(0, os.path.dirname(os.path.realpath(__file__)))

from enum import StrEnum
from functools import partial
from pathlib import Path
from typing import Annotated

import typer

from agentic_kit import excerpts, runner
from agentic_kit.clock import now, timestamp
from agentic_kit.commands import Confirm, change_one, limit_option, remove_one
from agentic_kit.envelope import Payload, item_payload, limited_payload
from agentic_kit.errors import validation_error
from agentic_kit.inputs import check_after_bound, check_bound, check_due
from agentic_kit.sorting import SortKey, sort_items, sort_option
from agentic_kit.store import StateStore, resolve_state_path
from todo import inputs, operations
from todo.models import Status, TodoItem, TodoState

APP_DIR = Path(__file__).resolve().parent
STATE_FILE_ENV = "AGENTIC_TODO_STATE_FILE"
STATE_FILE_NAME = "todos.json"

app = runner.new_app(
    "Agentic To-Do: a persistent to-do list with a JSON-first CLI.",
    entity=TodoItem,
    entity_name="todo-item",  # schemas/todo-item.schema.json
    summary={"id": "{}", "status": "[{}]", "title": "{}", "dueAt": "due {}"},
)

ItemId = Annotated[str, typer.Argument(metavar="ID", help="An id such as td_0001.")]


class StatusFilter(StrEnum):
    all = "all"
    open = "open"
    completed = "completed"


STATUS_SELECTED: dict[StatusFilter, Status | None] = {
    StatusFilter.all: None,
    StatusFilter.open: "open",
    StatusFilter.completed: "completed",
}


def store() -> StateStore[TodoState]:
    return StateStore(resolve_state_path(STATE_FILE_ENV, STATE_FILE_NAME, APP_DIR), TodoState)


@app.command(mutates=True)
def add(
    title: Annotated[str, typer.Argument(help="What to do (one line).")],
    description: Annotated[str, typer.Option(help="Longer text.")] = "",
    due_at: Annotated[str | None, typer.Option(help="YYYY-MM-DD or an ISO date-time with offset.")] = None,
) -> Payload:
    """Create an open to-do item."""
    title = inputs.check_title(title)
    description = inputs.check_description(description)
    due = check_due("--due-at", due_at) if due_at is not None else None
    stamp = timestamp()
    with store().transaction() as state:
        item = operations.add_item(state, title=title, description=description, due_at=due, now=stamp)
    return item_payload(item)


Sort = Annotated[SortKey | None, sort_option(SortKey.created)]
DueSort = Annotated[SortKey | None, sort_option(SortKey.due)]
Limit = Annotated[int | None, limit_option("items")]
Excerpt = Annotated[
    bool,
    typer.Option(
        "--excerpt",
        help=f"Cut each description to an excerpt of {excerpts.EXCERPT_CHARS} characters, whitespace "
        "collapsed, … when cut: a long list stays small.",
    ),
]


@app.command("list")
def list_items(
    status: Annotated[StatusFilter, typer.Option(help="Which items to show.")] = StatusFilter.all,
    due_before: Annotated[
        str | None, typer.Option(help="Only items due before this date (a date: before its day).")
    ] = None,
    due_after: Annotated[
        str | None, typer.Option(help="Only items due after this date (a date: from the next day).")
    ] = None,
    overdue: Annotated[bool, typer.Option("--overdue", help="Only open items past their due.")] = False,
    sort: Sort = None,
    limit: Limit = None,
    excerpt: Excerpt = False,
) -> Payload:
    """List items in creation order, filtered by status. Defaults to all."""
    bound = check_bound("--due-before", due_before) if due_before is not None else None
    after = check_after_bound("--due-after", due_after) if due_after is not None else None
    selected = operations.select_items(
        store().load(),
        status=STATUS_SELECTED[status],
        due_before=bound,
        due_after=after,
        overdue_at=now() if overdue else None,
    )
    return limited_payload(_shown(_sorted(selected, sort or SortKey.created), excerpt), limit)


@app.command()
def due(
    before: Annotated[
        str | None, typer.Option(help="Items due before this date or instant instead of by now.")
    ] = None,
    sort: DueSort = None,
    limit: Limit = None,
    excerpt: Excerpt = False,
) -> Payload:
    """Open items whose due has come (a date: from the start of its day), soonest first."""
    if before is not None:
        come = operations.due_items(store().load(), check_bound("--before", before), inclusive=False)
    else:
        come = operations.due_items(store().load(), now(), inclusive=True)
    return limited_payload(_shown(_sorted(come, sort or SortKey.due), excerpt), limit)


def _shown(items: list[TodoItem], excerpt: bool) -> list[TodoItem]:
    """The items as answered: with `--excerpt`, each description cut to its excerpt."""
    if not excerpt:
        return items
    return [item.model_copy(update={"description": excerpts.excerpt(item.description)}) for item in items]


def _sorted(items: list[TodoItem], key: str) -> list[TodoItem]:
    return sort_items(items, key, due=operations.due_moment, updated=lambda item: item.updated_at)


@app.command()
def get(item_id: ItemId) -> Payload:
    """Fetch a single to-do item."""
    item_id = inputs.check_item_id(item_id)
    return item_payload(operations.find_item(store().load(), item_id))


@app.command(mutates=True)
def update(
    item_id: ItemId,
    title: Annotated[str | None, typer.Option(help="New title.")] = None,
    description: Annotated[str | None, typer.Option(help="New description.")] = None,
    due_at: Annotated[str | None, typer.Option(help="New due date.")] = None,
    clear_due_at: Annotated[bool, typer.Option("--clear-due-at", help="Remove the due date.")] = False,
) -> Payload:
    """Update one or more mutable fields."""
    item_id = inputs.check_item_id(item_id)
    if title is None and description is None and due_at is None and not clear_due_at:
        raise validation_error(
            "update needs at least one change.",
            "Give --title, --description, --due-at or --clear-due-at.",
        )
    if due_at is not None and clear_due_at:
        raise validation_error(
            "Give --due-at or --clear-due-at, not both.",
            "Give --due-at to set the date, --clear-due-at to remove it.",
        )
    new_title = inputs.check_title(title) if title is not None else None
    new_description = inputs.check_description(description) if description is not None else None
    new_due = check_due("--due-at", due_at) if due_at is not None else None
    stamp = timestamp()
    return change_one(
        store(),
        item_id,
        operations.find_item,
        lambda item: operations.update_item(
            item,
            title=new_title,
            description=new_description,
            due_at=new_due,
            clear_due_at=clear_due_at,
            now=stamp,
        ),
    )


@app.command(mutates=True)
def complete(item_id: ItemId) -> Payload:
    """Mark an item as completed. Completing it again changes nothing."""
    item_id = inputs.check_item_id(item_id)
    stamp = timestamp()
    return change_one(store(), item_id, operations.find_item, partial(operations.complete_item, now=stamp))


@app.command(mutates=True)
def reopen(item_id: ItemId) -> Payload:
    """Mark a completed item as open again. Reopening an open item changes nothing."""
    item_id = inputs.check_item_id(item_id)
    stamp = timestamp()
    return change_one(store(), item_id, operations.find_item, partial(operations.reopen_item, now=stamp))


@app.command(mutates=True, confirmation=True)
def remove(item_id: ItemId, confirm: Confirm = False) -> Payload:
    """Delete an item. The --confirm flag is required because the operation is destructive."""
    item_id = inputs.check_item_id(item_id)
    return remove_one(
        store(), item_id, confirm=confirm, find=operations.find_item, remove=operations.remove_item
    )


if __name__ == "__main__":
    runner.main(app)
