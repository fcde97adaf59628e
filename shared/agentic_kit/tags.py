"""Tags, as every app that keeps them keeps them: lowercase, trimmed, one word each, unique and
sorted, at most TAGS_MAX on one entity.

`normalise_tags` checks what a command is given; `Tags` is the field's type in a model (what a
pattern can say, checked in pydantic's one pass); `tag_problems` is what no pattern can say for
all of Unicode (lowercase, printable, sorted), for a state's `problems`.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from operator import ge
from typing import Annotated

from pydantic import Field

from .errors import validation_error
from .text import CONTROLS, LAYOUT_CONTROLS, SPACES, quoted

TAG_MAX_CHARS = 64
TAGS_MAX = 50
# A tag as every version has written it: one word, no space, control, separator or bidi control.
TAG_PATTERN = rf"^[^{CONTROLS}{SPACES}{LAYOUT_CONTROLS}]+$"
Tags = Annotated[
    list[Annotated[str, Field(min_length=1, max_length=TAG_MAX_CHARS, pattern=TAG_PATTERN)]],
    Field(max_length=TAGS_MAX, description="Lowercase, trimmed, unique and sorted."),
]


def normalise_tags(tags: Iterable[str]) -> list[str]:
    """Lowercase and trimmed, in the order given; each one a single word of 1 to TAG_MAX_CHARS
    characters, or VALIDATION_ERROR."""
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


def merged_tags(current: Iterable[str], added: Iterable[str], what: str) -> list[str]:
    """The tags of both, unique and sorted; more than TAGS_MAX is VALIDATION_ERROR (`what`: "A
    note", "An item")."""
    tags = sorted(set(current) | set(added))
    if len(tags) > TAGS_MAX:
        raise validation_error(
            f"{what} carries at most {TAGS_MAX} tags; this would make {len(tags)}.",
            "Remove tags it no longer needs first.",
        )
    return tags


def tag_problems(entity_id: str, tags: list[str]) -> Iterator[str]:
    """What the stored tags of one entity break that their pattern cannot say."""
    if len(tags) > 1 and any(map(ge, tags, tags[1:])):  # some tag is not below the next
        yield f"the tags of {entity_id} are not unique and sorted"
    elif tags and any(tag != tag.lower() for tag in tags):
        yield f"the tags of {entity_id} are not all lowercase"
    # What a tag given to a command could never hold (normalise_tags): a format character such
    # as a zero-width space, or any other that is not printable.
    elif tags and not all(map(str.isprintable, tags)):
        yield (
            f"a tag of {entity_id} holds a character no tag may hold "
            "(a control, format or separator character)"
        )
