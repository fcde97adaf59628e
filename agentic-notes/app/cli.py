# /// script
# requires-python = ">=3.11"
# dependencies = ["typer>=0.29", "filelock>=3.12", "pydantic>=2.7", "tzdata; sys_platform == 'win32'"]
# ///
"""Agentic Notes: persistent notes agents can search, tag and schedule for follow-up.

Run from the package root as `python3 app/cli.py <command> ...`. Each command checks its
input, runs one operation inside one store transaction (or one lock-free read), and returns a
payload that the kit's runner prints as exactly one JSON envelope.
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

from typing import Annotated

import typer

from agentic_kit import (
    Confirm,
    Moment,
    Payload,
    SortKey,
    backup,
    change_one,
    check_after_bound,
    check_bound,
    check_due,
    check_query,
    exclusive,
    file_path,
    item_payload,
    limit_option,
    limited_payload,
    list_payload,
    new_app,
    normalise_tags,
    now,
    read_text_source,
    remove_one,
    sort_items,
    sort_option,
    validation_error,
)
from notes import inputs, operations
from notes.envelopes import ENVELOPES
from notes.models import (
    BODY_MAX_BYTES,
    ID_PREFIX,
    Note,
    NotesState,
    NoteSummary,
    SearchHit,
    TagCount,
    note_problem,
)

PACKAGE = "agentic-notes"  # named in its exports, so another app's import says whose it is

app = new_app(
    "Agentic Notes: persistent notes to search, tag and follow up, with a JSON-first CLI.",
    state=NotesState,
    state_file="notes.json",  # in AGENTIC_STATE_DIR, else app/state/
    state_env="AGENTIC_NOTES_STATE_FILE",  # a file of its own, instead
    entity=Note,
    entity_name="note",  # schemas/note.schema.json
    list_items=(NoteSummary, SearchHit, TagCount),  # what list/due, search and tags print
    item_models=(NoteSummary,),  # what every write prints: the note as list shows it, no body
    envelopes=ENVELOPES,  # export, import
    summary={"id": "{}", "title": "{}", "dueAt": "due {}", "tags": "#{}"},  # list --tag filters by tags
)

NoteId = Annotated[str, typer.Argument(metavar="ID", help="An id such as nt_0001.")]
Tags = Annotated[list[str] | None, typer.Option("--tag", help="A tag; repeat for more.")]
Limit = Annotated[int | None, limit_option("notes")]
BodyText = Annotated[str | None, typer.Option("--body", help="The body text.")]
BodyFile = Annotated[
    str | None,
    typer.Option(
        "--body-file", parser=file_path, metavar="PATH", help="Read the body from a file; - for stdin."
    ),
]
DueAt = Annotated[str | None, typer.Option(help="Follow-up: YYYY-MM-DD or an ISO date-time with offset.")]


@app.command(mutates=True)
@exclusive(("--body", "--body-file"))
def add(
    title: Annotated[str, typer.Argument(help="The note's title (one line).")],
    body: BodyText = None,
    body_file: BodyFile = None,
    tag: Tags = None,
    due_at: DueAt = None,
) -> Payload:
    """Create a note; answers with it as list shows it (an excerpt, not the body)."""
    title = inputs.check_title(title)
    text = inputs.body_from(body, body_file, text_option="--body", file_option="--body-file")
    tags = normalise_tags(tag or [])
    due = check_due("--due-at", due_at) if due_at is not None else None
    moment = Moment()
    with app.store().transaction() as state:  # the clock is read under the lock (clock.Moment)
        note = operations.add_note(
            state, title=title, body=text or "", tags=tags, due_at=due, now=moment.stamp()
        )
        shown = operations.summarise(note)
    return item_payload(shown)


Sort = Annotated[SortKey | None, sort_option(SortKey.created, newest_first=True)]
DueSort = Annotated[SortKey | None, sort_option(SortKey.due)]
DueBefore = Annotated[
    str | None,
    typer.Option(help="Only notes whose follow-up comes before this date (a date: before its day)."),
]
DueAfter = Annotated[
    str | None,
    typer.Option(help="Only notes whose follow-up comes after this date (a date: from the next day)."),
]


@app.command("list")
def list_notes(
    tag: Tags = None,
    due_before: DueBefore = None,
    due_after: DueAfter = None,
    sort: Sort = None,
    limit: Limit = None,
) -> Payload:
    """List notes newest first, with an excerpt of each body; filter by tags (all must match)."""
    tags = normalise_tags(tag or [])
    bound = check_bound("--due-before", due_before) if due_before is not None else None
    after = check_after_bound("--due-after", due_after) if due_after is not None else None
    state = app.store().load()
    inputs.check_filter_tags(tags, state)
    notes = operations.tagged(state, tags)
    if bound is not None:
        notes = [note for note in notes if operations.follow_up_comes(note, bound, inclusive=False)]
    if after is not None:
        notes = [note for note in notes if operations.follow_up_after(note, after)]
    notes = _sorted(notes, sort) if sort is not None else notes[::-1]
    return limited_payload(notes, limit, operations.summarise)


@app.command()
def get(note_id: NoteId) -> Payload:
    """Fetch one whole note."""
    note_id = inputs.check_note_id(note_id)
    return item_payload(operations.find_note(app.store().load(), note_id))


@app.command(mutates=True)
@exclusive(("--body", "--body-file"), ("--due-at", "--clear-due-at"))
def update(
    note_id: NoteId,
    title: Annotated[str | None, typer.Option(help="New title.")] = None,
    body: BodyText = None,
    body_file: BodyFile = None,
    due_at: DueAt = None,
    clear_due_at: Annotated[bool, typer.Option("--clear-due-at", help="Remove the follow-up date.")] = False,
) -> Payload:
    """Replace the title, the body or the follow-up date; answers with the note as list shows it."""
    note_id = inputs.check_note_id(note_id)
    if due_at is not None and clear_due_at:
        raise validation_error(
            "Give --due-at or --clear-due-at, not both.",
            "Give --due-at to set the date, --clear-due-at to remove it.",
        )
    new_title = inputs.check_title(title) if title is not None else None
    new_body = inputs.body_from(body, body_file, text_option="--body", file_option="--body-file")
    new_due = check_due("--due-at", due_at) if due_at is not None else None
    if new_title is None and new_body is None and new_due is None and not clear_due_at:
        raise validation_error(
            "update needs at least one change.",
            "Give --title, --body, --body-file, --due-at or --clear-due-at.",
        )
    moment = Moment()
    return change_one(
        app.store(),
        note_id,
        operations.find_note,
        lambda note: operations.update_note(
            note,
            title=new_title,
            body=new_body,
            due_at=new_due,
            clear_due_at=clear_due_at,
            now=moment.stamp(),
        ),
        shown=operations.summarise,
    )


@app.command(mutates=True)
def append(
    note_id: NoteId,
    text: Annotated[str | None, typer.Argument(help="Text to add at the end of the body.")] = None,
    text_file: Annotated[
        str | None,
        typer.Option(parser=file_path, metavar="PATH", help="Read the text from a file; - for stdin."),
    ] = None,
) -> Payload:
    """Add text to the end of the body, on a new line; answers with the note as list shows it."""
    note_id = inputs.check_note_id(note_id)
    if (text is None) == (text_file is None):
        # Said in words: a call here would hold a placeholder or an invented text, appended as meant.
        hint = (
            f"Type the text after append {note_id}, quoted as one argument, or give --text-file with "
            "a file's path (- for stdin)."
            if text is None
            else "Keep the one that holds the text meant, and leave the other out."
        )
        raise validation_error("Give the text to append, or --text-file, (exactly one).", hint)
    if text_file is not None:
        text = read_text_source("--text-file", text_file, max_bytes=BODY_MAX_BYTES)
    if not text:
        raise validation_error("The text to append is empty.", "Give at least one character to add.")
    moment = Moment()
    return change_one(
        app.store(),
        note_id,
        operations.find_note,
        lambda note: operations.append_text(note, text, now=moment.stamp()),
        shown=operations.summarise,
    )


@app.command(mutates=True)
def tag(
    note_id: NoteId, tags: Annotated[list[str], typer.Argument(metavar="TAG...", help="Tags to add.")]
) -> Payload:
    """Add tags (lowercased, trimmed; kept unique and sorted); answers with the note as list shows it."""
    note_id = inputs.check_note_id(note_id)
    clean = normalise_tags(tags, None)  # TAG arguments: no option to name
    moment = Moment()
    return change_one(
        app.store(),
        note_id,
        operations.find_note,
        lambda note: operations.add_tags(note, clean, now=moment.stamp()),
        shown=operations.summarise,
    )


@app.command(mutates=True)
def untag(
    note_id: NoteId, tags: Annotated[list[str], typer.Argument(metavar="TAG...", help="Tags to remove.")]
) -> Payload:
    """Remove tags (one the note does not carry is ignored); answers with the note as list shows it."""
    note_id = inputs.check_note_id(note_id)
    clean = normalise_tags(tags, None)  # TAG arguments: no option to name
    moment = Moment()
    return change_one(
        app.store(),
        note_id,
        operations.find_note,
        lambda note: operations.remove_tags(note, clean, now=moment.stamp()),
        shown=operations.summarise,
    )


@app.command()
def search(
    query: Annotated[list[str], typer.Argument(metavar="QUERY...", help="Words that must all match.")],
    tag: Tags = None,
    limit: Limit = None,
) -> Payload:
    """Find notes whose title, body or tags contain every word; title matches rank first."""
    terms = check_query(query)
    tags = normalise_tags(tag or [])
    state = app.store().load()
    inputs.check_filter_tags(tags, state)
    hits = operations.search_notes(state, terms, tags)
    return limited_payload(hits, limit, lambda note: operations.found(note, terms))


@app.command()
def due(
    before: Annotated[
        str | None, typer.Option(help="Notes due before this date or instant instead of by now.")
    ] = None,
    sort: DueSort = None,
    limit: Limit = None,
) -> Payload:
    """Notes whose follow-up has come (a date: from the start of its day), soonest first."""
    if before is not None:
        notes = operations.due_notes(app.store().load(), check_bound("--before", before), inclusive=False)
    else:
        notes = operations.due_notes(app.store().load(), now(), inclusive=True)
    return limited_payload(_sorted(notes, sort or SortKey.due), limit, operations.summarise)


def _sorted(notes: list[Note], key: str) -> list[Note]:
    return sort_items(notes, key, due=operations.follow_up_moment, updated=lambda note: note.updated_at)


@app.command(mutates=True, confirmation=True)
def remove(note_id: NoteId, confirm: Confirm = False) -> Payload:
    """Delete a note; answers with it as list showed it. The --confirm flag is required because the
    operation is destructive."""
    note_id = inputs.check_note_id(note_id)
    return remove_one(
        app.store(),
        note_id,
        confirm=confirm,
        find=operations.find_note,
        remove=operations.remove_note,
        shown=operations.summarise,
    )


@app.command()
def tags() -> Payload:
    """Every tag in use with how many notes carry it: most used first, then by name."""
    return list_payload(operations.tag_counts(app.store().load()))


@app.command()
def export() -> Payload:
    """Print every note whole, for `import`."""
    state = app.store().load()
    return backup.export_payload(state, state.notes, app=PACKAGE)


@app.command("import", mutates=True)
def import_notes(
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
        Note.model_validate,
        NotesState.SCHEMA_VERSION,
        note_problem,
        app=PACKAGE,
        id_prefix=ID_PREFIX,
    )
    with app.store().transaction() as state:
        return backup.import_items(state, state.notes, read, id_prefix=ID_PREFIX, kind="notes")


app.prepare()  # built once here: a warm process, which runs this body once, holds it

if __name__ == "__main__":
    app.main()
