# /// script
# requires-python = ">=3.11"
# dependencies = ["typer>=0.29", "filelock>=3.12", "pydantic>=2.7", "tzdata; sys_platform == 'win32'"]
# ///
"""Agentic To-Do: a persistent to-do list operated through a JSON-first CLI.

Run from the package root as `python3 app/cli.py <command> ...`. Each command parses its
arguments, runs one operation inside one store transaction (or one lock-free read), and returns
a payload that the kit's runner prints as exactly one JSON envelope.
"""

import _signal  # type: ignore[import-not-found]  # `signal`'s C core: it loads no Python code

# Before any other import, so that a SIGINT while they load ends the run quietly, as SIGTERM does
# (agentic_kit/interrupts.py), not with a traceback; hence no `from __future__`, which must come
# first. A background job's SIGINT stays ignored.
if __name__ == "__main__" and _signal.getsignal(_signal.SIGINT) is _signal.default_int_handler:
    _signal.signal(_signal.SIGINT, _signal.SIG_DFL)

import os
import sys

# No install step: the app's folder (the vendored kit, the app's package) goes first on the path.
sys.path.insert(0, os.path.dirname(os.path.realpath(__file__)))
# Then, before anything builds a model: pydantic's plugins off (agentic_kit/plugins_off.py says why).
import agentic_kit.plugins_off  # noqa: F401

# isort: split

import gc

# A run is one command in a process of its own, and no cycle it makes outlives it: the cycle
# collector stays off, sparing its passes over every object as the modules load and the state is
# read (about a twentieth of a call). A process that imports this script keeps its collector.
if __name__ == "__main__":
    gc.disable()

# Before typer: a Python without the app's dependencies answers with one JSON error, not a
# traceback (in an `if`, which ruff lets come before the imports; an importer gets ImportError).
from agentic_kit.requirements import exit_unless_installed

if __name__ == "__main__":
    exit_unless_installed()

from enum import StrEnum
from typing import Annotated, Literal

import typer

from agentic_kit import (
    Confirm,
    Moment,
    Payload,
    backup,
    batch,
    change_one,
    check_after_bound,
    check_bound,
    check_due,
    check_query,
    confirmation_required,
    excerpts,
    exclusive,
    file_path,
    item_payload,
    limit_option,
    limited_payload,
    list_payload,
    new_app,
    normalise_tags,
    now,
    quoted,
    sorting,
    validation_error,
    zones,
)
from todo import inputs, operations
from todo.envelopes import ENVELOPES
from todo.models import ID_PREFIX, Priority, Status, TodoItem, TodoState, item_problem

PACKAGE = "agentic-to-do"  # named in its exports, so another app's import says whose it is

app = new_app(
    "Agentic To-Do: a persistent to-do list with a JSON-first CLI.",
    state=TodoState,
    state_file="todos.json",  # in AGENTIC_STATE_DIR, else app/state/
    state_env="AGENTIC_TODO_STATE_FILE",  # a file of its own, instead
    entity=TodoItem,
    entity_name="todo-item",  # schemas/todo-item.schema.json
    envelopes=ENVELOPES,  # complete's `next`, export, import
    # What list's sorts and filters read is on the line, so a sorted list reads as sorted.
    summary={
        "id": "{}",
        "status": "[{}]",
        "priority": "!{}",
        "title": "{}",
        "dueAt": "due {}",
        "tags": "#{}",
    },
)

ItemId = Annotated[str, typer.Argument(metavar="ID", help="An id such as td_0001.")]
ItemIds = Annotated[
    list[str], typer.Argument(metavar="ID...", help="One or more ids such as td_0001; all or none.")
]
Tags = Annotated[list[str] | None, typer.Option("--tag", help="A tag; repeat for more.")]
Repeat = Annotated[
    str | None, typer.Option(help="daily, weekly, monthly, yearly or every:<N>d; needs a due.")
]


# The values `list --status` takes: typer reads a Literal's values as the option's choices.
StatusFilter = Literal["all", "open", "completed"]


STATUS_SELECTED: dict[StatusFilter, Status | None] = {"all": None, "open": "open", "completed": "completed"}


@app.command(mutates=True)
def add(
    title: Annotated[str, typer.Argument(help="What to do (one line).")],
    description: Annotated[str, typer.Option(help="Longer text.")] = "",
    due_at: Annotated[str | None, typer.Option(help="YYYY-MM-DD or an ISO date-time with offset.")] = None,
    tag: Tags = None,
    priority: Annotated[Priority | None, typer.Option(help="How much it matters.")] = None,
    repeat: Repeat = None,
) -> Payload:
    """Create an open to-do item."""
    title = inputs.check_title(title)
    description = inputs.check_description(description)
    due = check_due("--due-at", due_at) if due_at is not None else None
    tags = normalise_tags(tag or [])
    rule = inputs.check_repeat(repeat) if repeat is not None else None
    operations.check_repeats_from_a_due(None, rule, due)
    moment = Moment()
    with app.store().transaction() as state:
        item = operations.add_item(
            state,
            title=title,
            description=description,
            due_at=due,
            now=moment.stamp(),  # read under the lock (clock.Moment)
            tags=tags,
            priority=priority,
            repeat=rule,
        )
    return item_payload(item)


class TodoSortKey(StrEnum):
    """The kit's --sort keys (sorting.SortKey) and the to-do's own, priority."""

    created = sorting.SortKey.created.value
    due = sorting.SortKey.due.value
    updated = sorting.SortKey.updated.value
    priority = "priority"


PRIORITY_ORDER = "priority (high, medium, low, none last)"
Sort = Annotated[TodoSortKey | None, sorting.sort_option(sorting.SortKey.created, own_keys=PRIORITY_ORDER)]
DueSort = Annotated[TodoSortKey | None, sorting.sort_option(sorting.SortKey.due, own_keys=PRIORITY_ORDER)]
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
    status: Annotated[StatusFilter, typer.Option(help="Which items to show.")] = "all",
    due_before: Annotated[
        str | None, typer.Option(help="Only items due before this date (a date: before its day).")
    ] = None,
    due_after: Annotated[
        str | None, typer.Option(help="Only items due after this date (a date: from the next day).")
    ] = None,
    overdue: Annotated[bool, typer.Option("--overdue", help="Only open items past their due.")] = False,
    tag: Annotated[
        list[str] | None, typer.Option("--tag", help="Only items with this tag; all given must match.")
    ] = None,
    priority: Annotated[Priority | None, typer.Option(help="Only items of this priority.")] = None,
    sort: Sort = None,
    limit: Limit = None,
    excerpt: Excerpt = False,
) -> Payload:
    """List items in creation order, filtered by status. Defaults to all."""
    bound = check_bound("--due-before", due_before) if due_before is not None else None
    after = check_after_bound("--due-after", due_after) if due_after is not None else None
    tags = normalise_tags(tag or [])
    state = app.store().load()
    inputs.check_filter_tags(tags, state)
    selected = operations.select_items(
        state,
        status=STATUS_SELECTED[status],
        due_before=bound,
        due_after=after,
        overdue_at=now() if overdue else None,
        tags=tags,
        priority=priority,
    )
    return _limited(_sorted(selected, sort or sorting.SortKey.created), limit, excerpt)


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
        come = operations.due_items(app.store().load(), check_bound("--before", before), inclusive=False)
    else:
        come = operations.due_items(app.store().load(), now(), inclusive=True)
    return _limited(_sorted(come, sort or sorting.SortKey.due), limit, excerpt)


def _limited(items: list[TodoItem], limit: int | None, excerpt: bool) -> Payload:
    """The items as answered: at most `limit`; with `--excerpt`, each description cut to its
    excerpt, in a copy made of each item answered only (`list --limit 50` of 1,000 copies 50)."""
    return limited_payload(items, limit, _excerpted) if excerpt else limited_payload(items, limit)


def _excerpted(item: TodoItem) -> TodoItem:
    return item.model_copy(update={"description": excerpts.excerpt(item.description)})


def _sorted(items: list[TodoItem], key: str) -> list[TodoItem]:
    return sorting.sort_items(
        items,
        key,
        due=operations.due_moments(),
        updated=lambda item: item.updated_at,
        own={TodoSortKey.priority: operations.priority_rank},
    )


@app.command()
def get(item_id: ItemId) -> Payload:
    """Fetch a single to-do item."""
    item_id = inputs.check_item_id(item_id)
    return item_payload(operations.find_item(app.store().load(), item_id))


@app.command()
def search(
    query: Annotated[list[str], typer.Argument(metavar="WORDS...", help="Words that must all match.")],
    status: Annotated[StatusFilter, typer.Option(help="Which items to search.")] = "all",
    tag: Annotated[
        list[str] | None, typer.Option("--tag", help="Only items with this tag; all given must match.")
    ] = None,
    limit: Limit = None,
    excerpt: Excerpt = False,
) -> Payload:
    """Find items whose title, description or tags hold every word (ignoring case and accents);
    more words in the title rank first, then more in the tags, then the newest."""
    terms = check_query(query)
    tags = normalise_tags(tag or [])
    state = app.store().load()
    inputs.check_filter_tags(tags, state)
    found = operations.search_items(state, terms, status=STATUS_SELECTED[status], tags=tags)
    return _limited(found, limit, excerpt)


@app.command(mutates=True)
@exclusive(("--due-at", "--clear-due-at"), ("--priority", "--clear-priority"), ("--repeat", "--clear-repeat"))
def update(
    item_id: ItemId,
    title: Annotated[str | None, typer.Option(help="New title.")] = None,
    description: Annotated[str | None, typer.Option(help="New description.")] = None,
    due_at: Annotated[str | None, typer.Option(help="New due date.")] = None,
    clear_due_at: Annotated[bool, typer.Option("--clear-due-at", help="Remove the due date.")] = False,
    tag: Annotated[list[str] | None, typer.Option("--tag", help="A tag to add; repeat for more.")] = None,
    untag: Annotated[
        list[str] | None, typer.Option("--untag", help="A tag to remove; repeat for more.")
    ] = None,
    priority: Annotated[Priority | None, typer.Option(help="New priority.")] = None,
    clear_priority: Annotated[bool, typer.Option("--clear-priority", help="Remove the priority.")] = False,
    repeat: Repeat = None,
    clear_repeat: Annotated[bool, typer.Option("--clear-repeat", help="Stop it repeating.")] = False,
) -> Payload:
    """Update one or more mutable fields."""
    item_id = inputs.check_item_id(item_id)
    given = (title, description, due_at, tag, untag, priority, repeat)
    if all(value is None for value in given) and not (clear_due_at or clear_priority or clear_repeat):
        raise validation_error(
            "update needs at least one change.",
            "Give --title, --description, --due-at, --clear-due-at, --tag, --untag, --priority, "
            "--clear-priority, --repeat or --clear-repeat.",
        )
    for value, clear, name, what in (
        (due_at, clear_due_at, "due-at", "the date"),
        (priority, clear_priority, "priority", "the priority"),
        (repeat, clear_repeat, "repeat", "the rule"),
    ):
        if value is not None and clear:
            raise validation_error(
                f"Give --{name} or --clear-{name}, not both.",
                f"Give --{name} to set {what}, --clear-{name} to remove it.",
            )
    added, removed = normalise_tags(tag or []), normalise_tags(untag or [], "--untag")
    both = sorted(set(added) & set(removed))
    if both:
        raise validation_error(
            f"Give --tag or --untag for {quoted(both[0])}, not both.",
            "Add it with --tag, or remove it with --untag.",
        )
    change = operations.Update(
        title=inputs.check_title(title) if title is not None else None,
        description=inputs.check_description(description) if description is not None else None,
        due_at=check_due("--due-at", due_at) if due_at is not None else None,
        clear_due_at=clear_due_at,
        tag=added,
        untag=removed,
        priority=priority,
        clear_priority=clear_priority,
        repeat=inputs.check_repeat(repeat) if repeat is not None else None,
        clear_repeat=clear_repeat,
    )
    moment = Moment()
    return change_one(
        app.store(),
        item_id,
        operations.find_item,
        lambda item: operations.update_item(item, change, now=moment.stamp()),
    )


@app.command(mutates=True)
def complete(item_ids: ItemIds) -> Payload:
    """Mark items completed (again: no change); a repeating one makes one next, named after a reopen."""
    ids = batch.checked_ids(item_ids, inputs.check_item_id)
    moment = Moment()
    with app.store().transaction() as state:
        items = batch.find_all(state, ids, operations.find_item, "to-do")
        made = operations.complete_items(state, items, now=moment.stamp(), zone=zones.zone())
    payload = batch.answer(item_ids, items)
    if made:  # beside the completed: the one item made, or for several ids each by the id it follows
        payload["next"] = next(iter(made.values())) if len(item_ids) == 1 else made
    return payload


@app.command(mutates=True)
def reopen(item_ids: ItemIds) -> Payload:
    """Mark completed items as open again. Reopening an open item changes nothing."""
    ids = batch.checked_ids(item_ids, inputs.check_item_id)
    moment = Moment()
    return batch.change_each(
        app.store(),
        item_ids,
        ids,
        operations.find_item,
        noun="to-do",
        change=lambda item: operations.reopen_item(item, now=moment.stamp()),
    )


@app.command(mutates=True, confirmation=True)
def remove(item_ids: ItemIds, confirm: Confirm = False) -> Payload:
    """Delete items. The --confirm flag is required because the operation is destructive."""
    ids = batch.checked_ids(item_ids, inputs.check_item_id)
    return batch.remove_each(
        app.store(),
        item_ids,
        ids,
        confirm=confirm,
        find=operations.find_item,
        noun="to-do",
        remove=operations.remove_item,
    )


@app.command(mutates=True, confirmation=True)
def purge(
    completed_before: Annotated[
        str | None, typer.Option(help="Only items completed before this date or instant.")
    ] = None,
    confirm: Confirm = False,
) -> Payload:
    """Delete every completed item (or those completed before a date) in one write; needs --confirm."""
    bound = check_bound("--completed-before", completed_before) if completed_before is not None else None
    if not confirm:
        app.store().load()  # a state that cannot be read says so before the confirmation is asked for
        raise confirmation_required("purge")
    with app.store().transaction() as state:
        purged = operations.purge_items(state, bound)
    return list_payload(purged)


@app.command()
def export() -> Payload:
    """Print every item as the state keeps it, with its schemaVersion: a backup `import` reads."""
    state = app.store().load()
    return backup.export_payload(state, state.items, app=PACKAGE)


@app.command("import", mutates=True)
def import_items(
    file: Annotated[
        str,
        typer.Option(parser=file_path, metavar="PATH", help="An export to read; - for stdin."),
    ],
) -> Payload:
    """Restore an export: same ids if empty and none reused, else new ones; all or none."""
    # Read and checked before the lock: a writer queued behind it never waits on the parse.
    read = backup.read_export(
        "--file",
        file,
        TodoItem.model_validate,
        TodoState.SCHEMA_VERSION,
        item_problem,
        app=PACKAGE,
        id_prefix=ID_PREFIX,
    )
    with app.store().transaction() as state:
        return backup.import_items(
            state,
            state.items,
            read,
            id_prefix=ID_PREFIX,
            kind="items",
            place="the list",
            list_call="list --status all",
        )


app.prepare()  # built once here: a warm process, which runs this body once, holds it

if __name__ == "__main__":
    app.main()
