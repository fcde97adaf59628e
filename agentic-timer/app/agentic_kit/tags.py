"""Tags, as every app that keeps them keeps them: trimmed, in Unicode's compatibility form and
case-folded (NFKC, casefold: "Ｗork" and "WORK" are "work", a precomposed "é" and "e" with a
combining accent are one tag), one word each, unique and sorted, at most TAGS_MAX on one entity.
A tag an older version stored unnormalised is kept as it was and matched by `tag_key`.

`normalise_tags` checks what a command is given; `Tags` is the field's type in a model (what a
pattern can say, checked in pydantic's one pass); `tag_problem` is what no pattern can say for
all of Unicode (lowercase, printable, sorted), for a state's `problems`.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Iterable
from operator import ge
from typing import Annotated

from pydantic import Field

from .errors import validation_error
from .hints import OtherValue
from .text import CONTROLS, LAYOUT_CONTROLS, SPACES, quoted

TAG_MAX_CHARS = 64
TAGS_MAX = 50
# A tag as every version has written it: one word, no space, control, separator or bidi control.
TAG_PATTERN = rf"^[^{CONTROLS}{SPACES}{LAYOUT_CONTROLS}]+$"
Tags = Annotated[
    list[Annotated[str, Field(min_length=1, max_length=TAG_MAX_CHARS, pattern=TAG_PATTERN)]],
    Field(max_length=TAGS_MAX, description="Lowercase, trimmed, unique and sorted."),
]


def tag_key(tag: str) -> str:
    """The tag as it is compared and kept: NFKC, case-folded, NFKC again (case folding can leave
    a form NFKC would compose)."""
    if tag.isascii():
        return tag.lower()  # the common case, and a filter reads every entity's tags
    return unicodedata.normalize("NFKC", unicodedata.normalize("NFKC", tag).casefold())


def carries(entity_tags: Iterable[str], wanted: set[str]) -> bool:
    """Whether the entity's tags hold every wanted tag (each wanted one already a `tag_key`),
    reading a stored tag by its key so one an older version kept unnormalised still matches."""
    return not wanted or wanted <= {tag_key(tag) for tag in entity_tags}


def normalise_tags(tags: Iterable[str], option: str | None = "--tag") -> list[str]:
    """Trimmed and normalised (`tag_key`), in the order given; each one a single word of 1 to
    TAG_MAX_CHARS characters, or VALIDATION_ERROR. `option`: what the tags were given as, for a
    hint (None for an argument, as notes' `tag ID TAG...`)."""
    normalised = []
    for tag in tags:
        clean = tag_key(tag.strip()).strip()
        if not clean:
            raise validation_error("A tag must not be empty.", "Give each tag as a word, such as --tag work.")
        if any(char.isspace() for char in clean) or not clean.isprintable():
            raise validation_error(
                f"Tag {quoted(tag)} has spaces or control characters.", _hyphenated(clean, option)
            )
        if len(clean) > TAG_MAX_CHARS:
            raise validation_error(
                f"Tag {quoted(tag)} is {len(clean)} characters trimmed and lowercased, as it is kept; "
                f"the limit is {TAG_MAX_CHARS}.",
                f"Shorten the tag to at most {TAG_MAX_CHARS} characters.",
            )
        normalised.append(clean)
    return normalised


def check_filter_tags(wanted: Iterable[str], carried: Iterable[Iterable[str]], noun: str) -> None:
    """A filter's tag (`wanted`, normalised) that starts with `-` and that no entity carries
    (`carried`: each one's tags): `list --tag -home` most likely means "not home", which no
    filter says, or is a slip for `home`; an empty answer would say neither. Refused, with the
    call for the tag without its dashes. A dash tag some entity carries is filtered as any tag
    (a value after `--tag` may start with `-`). `noun`: what the app keeps, plural ("items")."""
    dashed = [tag for tag in wanted if tag.startswith("-")]
    if not dashed:
        return
    known = {tag_key(tag) for tags in carried for tag in tags}
    refused = next((tag for tag in dashed if tag not in known), None)
    if refused is None:
        return
    bare = refused.lstrip("-")
    message = (
        f"No {noun} carry the tag {quoted(refused)}; --tag matches a tag whole, and no filter "
        "leaves a tag out."
    )
    if not bare:
        raise validation_error(message, f"Give a tag some of the {noun} carry.")

    def same(typed: str) -> bool:
        return tag_key(typed.strip()).strip() == refused

    raise OtherValue(message, f"For the {noun} tagged {quoted(bare)}:", "--tag", bare, same)


def _hyphenated(clean: str, option: str | None) -> str:
    """The tag given, its words joined by hyphens, when that makes a tag (`grocery list` is
    grocery-list); the rule, with an example, when it does not (a control character)."""
    joined = "-".join(clean.split())
    # Not a value holding a backtick: it would break the backticks around a hint's call.
    if joined.isprintable() and len(joined) <= TAG_MAX_CHARS and "`" not in joined:
        return f"Use hyphens: {option + ' ' if option else ''}{joined}."
    return "Use hyphens between words (machine-learning), and no control characters."


def merged_tags(current: Iterable[str], added: Iterable[str], what: str) -> list[str]:
    """The tags of both, unique by `tag_key` and sorted (a stored tag an older version kept
    unnormalised gives way to its normalised form when it is given again); more than TAGS_MAX is
    VALIDATION_ERROR (`what`: "A note", "An item")."""
    by_key = {tag_key(tag): tag for tag in current}
    kept = len(by_key)
    by_key.update((tag_key(tag), tag) for tag in added)
    tags = sorted(by_key.values())
    if len(tags) > TAGS_MAX:
        raise validation_error(
            f"{what} carries at most {TAGS_MAX} tags; this would make {len(tags)}.",
            # A new one has none to remove: the call gives too many (found by an agent's day).
            "Remove tags it no longer needs first." if kept else f"Give at most {TAGS_MAX} tags.",
        )
    return tags


def tag_problem(entity_id: str, tags: list[str]) -> str | None:
    """What the stored tags of one entity break that their pattern cannot say; None when nothing.
    A state's `problems` asks it of each of thousands of entities, so tags all ASCII (the common
    case) are tested joined by spaces, one pass each: ASCII lowers character by character and a
    space is printable, so the joined text is lowercase and printable exactly when every tag is."""
    if not tags:
        return None
    if len(tags) > 1 and any(map(ge, tags, tags[1:])):  # some tag is not below the next
        return f"the tags of {entity_id} are not unique and sorted"
    joined = tags[0] if len(tags) == 1 else " ".join(tags)
    if joined.isascii():
        lowercase, printable = joined == joined.lower(), joined.isprintable()
    else:
        lowercase = all(tag == tag.lower() for tag in tags)
        printable = all(map(str.isprintable, tags))
    if not lowercase:
        return f"the tags of {entity_id} are not all lowercase"
    # What a tag given to a command could never hold (normalise_tags): a format character such
    # as a zero-width space, or any other that is not printable.
    if not printable:
        return (
            f"a tag of {entity_id} holds a character no tag may hold "
            "(a control, format or separator character)"
        )
    return None
