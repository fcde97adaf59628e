"""Operations on the notes state: plain functions, no I/O; the CLI runs each in one transaction."""

from __future__ import annotations

from collections import Counter
from datetime import datetime

from agentic_kit.changes import apply_changes
from agentic_kit.dates import due_start
from agentic_kit.excerpts import excerpt
from agentic_kit.ids import find_by_id, format_id
from agentic_kit.search import search, snippet
from agentic_kit.tags import carries, merged_tags, tag_key

from .inputs import check_appended_size
from .models import ID_PREFIX, Note, NotesState, TagCount


def add_note(
    state: NotesState, *, title: str, body: str, tags: list[str], due_at: str | None, now: str
) -> Note:
    note = Note(
        id=format_id(ID_PREFIX, state.take_id()),
        title=title,
        body=body,
        tags=merged_tags([], tags, "A note"),
        due_at=due_at,
        created_at=now,
        updated_at=now,
    )
    state.notes.append(note)
    return note


def find_note(state: NotesState, note_id: str) -> Note:
    return find_by_id(state.notes, note_id, "note", search_command="search")


def newest_first(state: NotesState, tags: list[str]) -> list[Note]:
    """Notes carrying every tag given, newest first (IDs grow with creation)."""
    return tagged(state, tags)[::-1]


def tagged(state: NotesState, tags: list[str]) -> list[Note]:
    """Notes carrying every tag given, in creation order."""
    wanted = set(tags)
    return [note for note in state.notes if carries(note.tags, wanted)]


def follow_up_comes(note: Note, instant: datetime, *, inclusive: bool) -> bool:
    """Whether the note's follow-up comes before `instant` (or at it, when inclusive).

    A follow-up is a reminder: a date-only one comes at the start of its day in the user's zone.
    """
    if note.due_at is None:
        return False
    start = due_start(note.due_at)
    return start <= instant if inclusive else start < instant


def follow_up_after(note: Note, instant: datetime) -> bool:
    """Whether the note's follow-up comes strictly after `instant`."""
    return note.due_at is not None and due_start(note.due_at) > instant


def follow_up_moment(note: Note) -> datetime | None:
    """Where a note sorts by due: when its follow-up comes."""
    return None if note.due_at is None else due_start(note.due_at)


def due_notes(state: NotesState, instant: datetime, *, inclusive: bool) -> list[Note]:
    """Notes whose follow-up has come by `instant`, in creation order."""
    return [note for note in state.notes if follow_up_comes(note, instant, inclusive=inclusive)]


def search_notes(state: NotesState, terms: list[str], tags: list[str]) -> list[Note]:
    """Matching notes in the order `search` answers them (`found` renders each)."""
    return search(newest_first(state, tags), terms, lambda note: note.body)


def found(note: Note, terms: list[str]) -> dict[str, object]:
    """A note as `search` prints it (SearchHit's fields, in its order)."""
    return _shown(note, "snippet", snippet(note.body, terms))


def summarise(note: Note) -> dict[str, object]:
    """The note as `list` and `due` print it (NoteSummary's fields, in its order)."""
    return _shown(note, "excerpt", excerpt(note.body))


def update_note(
    note: Note,
    *,
    title: str | None,
    body: str | None,
    due_at: str | None,
    clear_due_at: bool,
    now: str,
) -> None:
    """Apply the changes given; updatedAt moves only when a value really changed."""
    changes: dict[str, object] = {}
    if title is not None:
        changes["title"] = title
    if body is not None:
        changes["body"] = body
    if due_at is not None or clear_due_at:
        changes["due_at"] = due_at
    apply_changes(note, changes, now)


def append_text(note: Note, text: str, *, now: str) -> None:
    """Add text at the end of the body, on a new line when the body does not end with one."""
    separator = "\n" if note.body and not note.body.endswith("\n") else ""
    apply_changes(note, {"body": check_appended_size(note.body + separator + text)}, now)


def add_tags(note: Note, tags: list[str], *, now: str) -> None:
    apply_changes(note, {"tags": merged_tags(note.tags, tags, "A note")}, now)


def remove_tags(note: Note, tags: list[str], *, now: str) -> None:
    """Tags the note does not carry are ignored, so untag is safe to repeat."""
    removed = set(tags)
    apply_changes(note, {"tags": [tag for tag in note.tags if tag_key(tag) not in removed]}, now)


def remove_note(state: NotesState, note: Note) -> None:
    # The ID counter is untouched, so the removed note's ID is never handed out again.
    state.notes = [kept for kept in state.notes if kept is not note]


def _shown(note: Note, text_field: str, text: str) -> dict[str, object]:
    """A note with its body replaced by a shorter text. A plain dict, not a model: a list builds
    thousands, and the schemas (generated from NoteSummary and SearchHit) check every output."""
    return {
        "id": note.id,
        "title": note.title,
        text_field: text,
        "tags": note.tags,
        "dueAt": note.due_at,
        "createdAt": note.created_at,
        "updatedAt": note.updated_at,
    }


def tag_counts(state: NotesState) -> list[TagCount]:
    """Every tag in use with how many notes carry it: the most used first (the ones to reuse),
    ties by name, so the order never changes between two reads of the same state."""
    counts = Counter(tag for note in state.notes for tag in note.tags)  # a note's tags are unique
    return [
        TagCount(tag=tag, count=count)
        for tag, count in sorted(counts.items(), key=lambda pair: (-pair[1], pair[0]))
    ]
