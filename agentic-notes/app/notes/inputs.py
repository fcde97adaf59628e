"""Checks on a note's own fields; the kit's `inputs` has the shared ones (dates, files)."""

from __future__ import annotations

from agentic_kit.errors import validation_error
from agentic_kit.ids import check_id
from agentic_kit.inputs import check_text, read_text_source
from agentic_kit.tags import check_filter_tags as check_tags_carried

from .models import BODY_MAX_BYTES, ID_PREFIX, TITLE_MAX_CHARS, NotesState


def check_title(title: str) -> str:
    return check_text(
        "title", title, max_chars=TITLE_MAX_CHARS, required=True, single_line=True, longer_text="--body"
    )


def check_body_size(field: str, body: str) -> str:
    size = len(body.encode("utf-8"))
    if size > BODY_MAX_BYTES:
        raise validation_error(
            f"{field} is {size} bytes; a note's body is limited to {BODY_MAX_BYTES} bytes.",
            "Split it into several notes.",
        )
    return body


def check_appended_size(body: str) -> str:
    """The body an append would make; refused, saying its size, past the limit."""
    size = len(body.encode("utf-8"))
    if size > BODY_MAX_BYTES:
        raise validation_error(
            f"The body after append would be {size} bytes; a note's body is limited to "
            f"{BODY_MAX_BYTES} bytes.",
            "Append less, or put the rest in a new note (add).",
        )
    return body


def body_from(text: str | None, file: str | None, *, text_option: str, file_option: str) -> str | None:
    """The text given inline or read from a file (`-`: stdin); None when neither was given."""
    if text is not None and file is not None:
        raise validation_error(
            f"Give {text_option} or {file_option}, not both.",
            f"Give the text inline with {text_option}, or read it with {file_option} "
            "(a path, or - for stdin).",
        )
    if file is not None:
        return read_text_source(file_option, file, max_bytes=BODY_MAX_BYTES)
    if text is not None:
        return check_body_size(text_option, text)
    return None


def check_note_id(note_id: str) -> str:
    return check_id(ID_PREFIX, note_id)


def check_filter_tags(tags: list[str], state: NotesState) -> None:
    """A filter's tag that starts with `-` and that no note carries is refused (the kit's check)."""
    check_tags_carried(tags, (note.tags for note in state.notes), "notes")
