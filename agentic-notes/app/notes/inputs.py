"""Checks on a note's own fields; the kit's `inputs` has the shared ones (dates, files)."""

from __future__ import annotations

from agentic_kit.errors import validation_error
from agentic_kit.ids import check_id
from agentic_kit.inputs import check_text, read_text_source
from agentic_kit.text import quoted

from .models import BODY_MAX_BYTES, ID_PREFIX, TAG_MAX_CHARS, TITLE_MAX_CHARS


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


def normalise_tags(tags: list[str]) -> list[str]:
    """Lowercase and trimmed; each one a single word of 1 to TAG_MAX_CHARS characters."""
    normalised = []
    for tag in tags:
        clean = tag.strip().lower()
        if not clean:
            raise validation_error("A tag must not be empty.", "Give each tag as a word, such as --tag work.")
        if any(char.isspace() for char in clean) or not clean.isprintable():
            raise validation_error(
                f"Tag {quoted(tag)} has spaces or control characters.", "Use hyphens: machine-learning."
            )
        if len(clean) > TAG_MAX_CHARS:
            raise validation_error(
                f"Tag {quoted(tag)} is {len(clean)} characters trimmed and lowercased, as it is kept; "
                f"the limit is {TAG_MAX_CHARS}.",
                f"Shorten the tag to at most {TAG_MAX_CHARS} characters.",
            )
        normalised.append(clean)
    return normalised


def check_query(words: list[str]) -> list[str]:
    terms = " ".join(words).split()
    if not terms:
        raise validation_error("The search query is empty.", "Give one or more words to look for.")
    return terms


def check_note_id(note_id: str) -> str:
    return check_id(ID_PREFIX, note_id)
