"""The note, the shorter shapes lists and searches print, and the state file that holds the notes.

Every field's rule is checked on each load, in the model (pydantic's one pass): its exact type,
the id form, the length limits, titles and tags as every version has written them, and dates and
timestamps as the app writes them. What ties values
together is checked by `NotesState.problems`.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Annotated

from pydantic import Field

from agentic_kit.excerpts import EXCERPT_CHARS
from agentic_kit.ids import id_pattern
from agentic_kit.store import CamelModel, StoredDue, StoredInstant, VersionedState, empty_list
from agentic_kit.tags import Tags, tag_problem
from agentic_kit.text import STORED_LINE_PATTERN

ID_PREFIX = "nt"
TITLE_MAX_CHARS = 500
BODY_MAX_BYTES = 1024 * 1024  # UTF-8 bytes

_ID = "nt_0001, nt_0002, …; never reused, also after a remove."
_DUE = "Follow-up date: YYYY-MM-DD as given, or a UTC instant like 2026-04-05T09:00:00.000Z; or null."
_CREATED = "UTC instant with milliseconds, e.g. 2026-04-01T00:00:00.000Z."
_UPDATED = "When the note last changed (UTC, milliseconds)."

NoteId = Annotated[str, Field(pattern=id_pattern(ID_PREFIX), description=_ID)]
Title = Annotated[str, Field(min_length=1, max_length=TITLE_MAX_CHARS, pattern=STORED_LINE_PATTERN)]


class Note(CamelModel):
    """One whole note, as get returns it (every write answers with a NoteSummary of it)."""

    id: NoteId
    title: Title = Field(description=f"One line, 1 to {TITLE_MAX_CHARS} characters, trimmed.")
    body: str = Field("", description=f"Any UTF-8 text up to {BODY_MAX_BYTES} bytes, kept byte for byte.")
    tags: Tags = Field(default_factory=empty_list)
    due_at: StoredDue | None = Field(None, description=_DUE)
    created_at: StoredInstant = Field(description=_CREATED)
    updated_at: StoredInstant = Field(description=_UPDATED)


class NoteSummary(CamelModel):
    """A note in `list` and `due`, and as every write answers with it: the body shortened to an excerpt."""

    id: NoteId
    title: Title
    excerpt: str = Field(
        description=f"The body's first {EXCERPT_CHARS} characters, whitespace collapsed; … when cut."
    )
    tags: Tags
    due_at: StoredDue | None = Field(description=_DUE)
    created_at: StoredInstant = Field(description=_CREATED)
    updated_at: StoredInstant = Field(description=_UPDATED)


class SearchHit(CamelModel):
    """A note in `search`: a snippet of the body around the first match instead of the body."""

    id: NoteId
    title: Title
    snippet: str = Field(
        description="Up to about 160 characters of the body around the first match (or its start "
        "when only the title or tags matched), whitespace collapsed; … where cut."
    )
    tags: Tags
    due_at: StoredDue | None = Field(description=_DUE)
    created_at: StoredInstant = Field(description=_CREATED)
    updated_at: StoredInstant = Field(description=_UPDATED)


class TagCount(CamelModel):
    """A tag in `tags`: the tag and how many notes carry it."""

    tag: str = Field(description="A tag as notes keep it: lowercase, one word.")
    count: int = Field(ge=1, description="How many notes carry it.")


class NotesState(VersionedState):
    notes: list[Note] = Field(default_factory=empty_list)

    def entities(self) -> Sequence[Note]:
        return self.notes

    def problems(self) -> Iterator[str]:
        yield from super().problems()
        for note in self.notes:
            problem = note_problem(note)
            if problem is not None:
                yield problem
                return


def note_problem(note: Note) -> str | None:
    """What one note breaks that its fields' rules cannot say; None when it keeps it all. The
    state checks it for each note; import for each note it reads."""
    problem = tag_problem(note.id, note.tags)
    if problem is not None:
        return problem
    # Timestamps of the stored form compare as text in the order of their instants.
    if note.updated_at < note.created_at:
        return f"{note.id} has moments out of order (updatedAt before createdAt)"
    if "\x00" in note.body:  # no argument can carry a NUL, and a body file with one is refused
        return f"the body of {note.id} holds a NUL character, which no note's body may hold"
    # Four bytes a character at most: only a long body needs encoding to be measured.
    if len(note.body) * 4 > BODY_MAX_BYTES and len(note.body.encode()) > BODY_MAX_BYTES:
        return f"the body of {note.id} is over {BODY_MAX_BYTES} bytes"
    return None
