"""Excerpts: the start of a long text, whitespace collapsed and cut, for answers that must stay
small (a note's body in notes' lists, a to-do's description under `list --excerpt`)."""

from __future__ import annotations

import re

EXCERPT_CHARS = 160

_WORD = re.compile(r"\S+")
_COLLAPSIBLE = re.compile(r"\s\s|[^\S ]")  # a run of whitespace, or any but a plain space


def excerpt(text: str, chars: int = EXCERPT_CHARS) -> str:
    """The text with every run of whitespace made one space and trimmed; when longer than `chars`,
    cut to its first `chars` characters (a trailing space dropped) followed by `…`."""
    head = text[:chars]
    # Every whitespace character but the plain space is unprintable, so a printable head with no
    # two spaces in a row has nothing to collapse: a test many times cheaper than the pattern's.
    plain = head.isprintable() and "  " not in head
    if (plain or _COLLAPSIBLE.search(head) is None) and not head.startswith(" "):
        # Nothing to collapse in the part shown: the common case, and a list shows thousands.
        rest = text[chars:]
        return head.rstrip(" ") if not rest or rest.isspace() else head.rstrip() + "…"
    words: list[str] = []
    length = -1
    for match in _WORD.finditer(text):  # lazily: a 1 MiB text costs no more than a short one
        words.append(match.group())
        length += len(words[-1]) + 1
        if length > chars:
            return " ".join(words)[:chars].rstrip() + "…"
    return " ".join(words)
