"""The note, the shorter shapes lists and searches print, and the state file that holds the notes."""

from __future__ import annotations

from pydantic import Field

from agentic_kit.store import CamelModel, VersionedState

ID_PREFIX = "nt"
TITLE_MAX_CHARS = 500
BODY_MAX_BYTES = 1024 * 1024  # UTF-8 bytes
TAG_MAX_CHARS = 64
TAGS_MAX = 50
EXCERPT_CHARS = 160
SNIPPET_CHARS = 160

_ID = "nt_0001, nt_0002, …; never reused, also after a remove."
_TAGS = "Lowercase, trimmed, unique and sorted."
_DUE = "Follow-up date: YYYY-MM-DD as given, or a UTC instant like 2026-04-05T09:00:00.000Z; or null."
_CREATED = "UTC instant with milliseconds, e.g. 2026-04-01T00:00:00.000Z."
_UPDATED = "When the note last changed (UTC, milliseconds)."


class Note(CamelModel):
    """One whole note, as add, get, update, append, tag, untag and remove return it."""

    id: str = Field(description=_ID)
    title: str = Field(description=f"One line, 1 to {TITLE_MAX_CHARS} characters.")
    body: str = Field("", description=f"Any UTF-8 text up to {BODY_MAX_BYTES} bytes, kept byte for byte.")
    tags: list[str] = Field(default_factory=list, description=_TAGS)
    due_at: str | None = Field(None, description=_DUE)
    created_at: str = Field(description=_CREATED)
    updated_at: str = Field(description=_UPDATED)


class NoteSummary(CamelModel):
    """A note in `list` and `due`: the body shortened to an excerpt."""

    id: str = Field(description=_ID)
    title: str
    excerpt: str = Field(
        description=f"The body's first {EXCERPT_CHARS} characters, whitespace collapsed; … when cut."
    )
    tags: list[str] = Field(description=_TAGS)
    due_at: str | None = Field(description=_DUE)
    created_at: str = Field(description=_CREATED)
    updated_at: str = Field(description=_UPDATED)


class SearchHit(CamelModel):
    """A note in `search`: a snippet of the body around the first match instead of the body."""

    id: str = Field(description=_ID)
    title: str
    snippet: str = Field(
        description="Up to about 160 characters of the body around the first match (or its start "
        "when only the title or tags matched), whitespace collapsed; … where cut."
    )
    tags: list[str] = Field(description=_TAGS)
    due_at: str | None = Field(description=_DUE)
    created_at: str = Field(description=_CREATED)
    updated_at: str = Field(description=_UPDATED)


class NotesState(VersionedState):
    notes: list[Note] = Field(default_factory=list)
