"""Search: every term must match an entity's title, tags or text; title matches rank first.

Rank, best first: more terms found in the title, then more terms found in the tags, then the
order the entities come in (each app gives them newest first). Matching ignores case; with
`fold_accents` it ignores accents too, both ways ("cafe" finds "Café", "café" finds "CAFE").
`snippet` shortens a long text around a hit (excerpts.py the start of one, for a list).
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable, Iterable, Sequence
from typing import Protocol, TypeVar

from .errors import validation_error
from .excerpts import excerpt

SNIPPET_CHARS = 160
# How much of the snippet comes before the match: enough to read it in context.
_LEAD_CHARS = 40


class Searchable(Protocol):
    @property
    def title(self) -> str: ...

    @property
    def tags(self) -> Sequence[str]: ...


EntityT = TypeVar("EntityT", bound=Searchable)


def check_query(words: list[str]) -> list[str]:
    """The query's terms: the words given, split at whitespace; none is VALIDATION_ERROR."""
    terms = " ".join(words).split()
    if not terms:
        raise validation_error("The search query is empty.", "Give one or more words to look for.")
    return terms


def search(
    entities: Iterable[EntityT],
    terms: list[str],
    text: Callable[[EntityT], str],
    *,
    fold_accents: bool = False,
) -> list[EntityT]:
    """The entities in which every term is found in the title, the tags or `text`, ranked."""
    if fold_accents:
        return _search_folded(entities, [fold(term) for term in terms], text)
    patterns = [re.compile(re.escape(term), re.IGNORECASE) for term in terms]
    ranked: list[tuple[tuple[int, int], EntityT]] = []
    for entity in entities:
        tags = " ".join(entity.tags)
        in_title = [pattern.search(entity.title) is not None for pattern in patterns]
        in_tags = [pattern.search(tags) is not None for pattern in patterns]
        missing = [pattern for pattern, t, g in zip(patterns, in_title, in_tags, strict=True) if not (t or g)]
        if missing:  # only then is the text read (a note's body may be a megabyte)
            body = text(entity)
            if not all(pattern.search(body) for pattern in missing):
                continue
        ranked.append(((-sum(in_title), -sum(in_tags)), entity))
    ranked.sort(key=lambda pair: pair[0])  # stable: the order given within a rank
    return [entity for _, entity in ranked]


def _search_folded(
    entities: Iterable[EntityT], keys: list[str], text: Callable[[EntityT], str]
) -> list[EntityT]:
    """search with fold_accents: each text folded once, and each folded term looked for in it
    with `in`, which at 10,000 entities costs a fraction of a regex search."""
    ranked: list[tuple[tuple[int, int], EntityT]] = []
    for entity in entities:
        title = fold(entity.title)
        tags = fold(" ".join(entity.tags)) if entity.tags else ""
        missing = [key for key in keys if key not in title and key not in tags]
        if missing:  # only then is the text folded and read
            body = fold(text(entity))
            if any(key not in body for key in missing):
                continue
        ranked.append(((-sum(key in title for key in keys), -sum(key in tags for key in keys)), entity))
    ranked.sort(key=lambda pair: pair[0])  # stable: the order given within a rank
    return [entity for _, entity in ranked]


def fold(text: str) -> str:
    """The text with case and accents taken out: "Crème BRÛLÉE" → "creme brulee"."""
    if text.isascii():
        return text.lower()  # the common case, and a search reads thousands
    decomposed = unicodedata.normalize("NFKD", text.casefold())
    return "".join(char for char in decomposed if not unicodedata.combining(char))


def snippet(body: str, terms: list[str]) -> str:
    """About SNIPPET_CHARS of the body around its first match (ignoring case); the start when
    nothing in it matched."""
    patterns = [re.compile(re.escape(term), re.IGNORECASE) for term in terms]
    starts = [match.start() for pattern in patterns if (match := pattern.search(body))]
    if not starts:
        return excerpt(body)
    start = max(0, min(starts) - _LEAD_CHARS)
    end = min(len(body), start + SNIPPET_CHARS)
    text = " ".join(body[start:end].split())
    return ("…" if start > 0 else "") + text + ("…" if end < len(body) else "")
