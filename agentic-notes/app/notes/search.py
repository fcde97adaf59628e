"""Search: every term must match the title, body or tags (case-insensitive); title matches rank first.

Rank, best first: more terms found in the title, then more terms found in the tags, then newest.
Each hit carries a snippet of the body around the first match.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from agentic_kit import excerpts

from .models import EXCERPT_CHARS, SNIPPET_CHARS, Note

# How much of the snippet comes before the match: enough to read it in context.
_LEAD_CHARS = 40


def search(notes: Iterable[Note], terms: list[str]) -> list[tuple[Note, str]]:
    """Matching notes, ranked, each with its snippet. `notes` come newest first."""
    patterns = [re.compile(re.escape(term), re.IGNORECASE) for term in terms]
    ranked: list[tuple[tuple[int, int], Note]] = []
    for note in notes:
        tags = " ".join(note.tags)
        in_title = [bool(pattern.search(note.title)) for pattern in patterns]
        in_tags = [bool(pattern.search(tags)) for pattern in patterns]
        if all(
            title or tag or pattern.search(note.body)
            for title, tag, pattern in zip(in_title, in_tags, patterns, strict=True)
        ):
            ranked.append(((-sum(in_title), -sum(in_tags)), note))
    ranked.sort(key=lambda pair: pair[0])  # stable: newest first within a rank
    return [(note, snippet(note.body, patterns)) for _, note in ranked]


def snippet(body: str, patterns: list[re.Pattern[str]]) -> str:
    """About SNIPPET_CHARS of the body around its first match; the start when nothing in it matched."""
    starts = [match.start() for pattern in patterns if (match := pattern.search(body))]
    if not starts:
        return excerpt(body)
    start = max(0, min(starts) - _LEAD_CHARS)
    end = min(len(body), start + SNIPPET_CHARS)
    text = " ".join(body[start:end].split())
    return ("…" if start > 0 else "") + text + ("…" if end < len(body) else "")


def excerpt(body: str) -> str:
    """The body with its whitespace collapsed, cut to EXCERPT_CHARS characters; … when cut."""
    return excerpts.excerpt(body, EXCERPT_CHARS)
