"""Search: every term must match an entity's title, tags or text; title matches rank first.

Rank, best first: more terms found in the title, then more terms found in the tags, then the
order the entities come in (each app gives them newest first). Every app matches the same way:
case, accents and compatibility forms are folded out of both the terms and the texts (`fold`), so
"jose" finds "José", "café" finds "CAFE", "abc" finds full-width "ＡＢＣ" and "soren" "Søren".
`snippet` shortens a long text around a hit (excerpts.py the start of one, for a list).
"""

from __future__ import annotations

import unicodedata
from collections.abc import Callable, Iterable, Sequence
from functools import lru_cache
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


def search(entities: Iterable[EntityT], terms: list[str], text: Callable[[EntityT], str]) -> list[EntityT]:
    """The entities in which every folded term is found in the folded title, tags or `text`,
    ranked. Each text is folded once and each term looked for in it with `in`, which at 10,000
    entities costs a fraction of a regex search."""
    keys = [fold(term) for term in terms]
    ranked: list[tuple[tuple[int, int], EntityT]] = []
    for entity in entities:
        title = fold(entity.title)
        tags = fold(" ".join(entity.tags)) if entity.tags else ""
        # One pass over the terms counts the title's and the tags' hits and keeps the rest.
        in_title = in_tags = 0
        missing: list[str] = []
        for key in keys:
            found_in_title, found_in_tags = key in title, key in tags
            in_title += found_in_title
            in_tags += found_in_tags
            if not (found_in_title or found_in_tags):
                missing.append(key)
        if missing:  # only then is the text folded and read (a note's body may be a megabyte)
            body = fold(text(entity))
            if any(key not in body for key in missing):
                continue
        ranked.append(((-in_title, -in_tags), entity))
    ranked.sort(key=lambda pair: pair[0])  # stable: the order given within a rank
    return [entity for _, entity in ranked]


# Latin letters that carry their mark in the letter itself, so no decomposition drops it: each
# is read as the plain letters a person without the key types ("Søren" is found by "soren").
_LETTERS_WITHOUT_A_MARK = str.maketrans(
    {"ø": "o", "æ": "ae", "œ": "oe", "đ": "d", "ð": "d", "ł": "l", "ħ": "h", "ı": "i", "þ": "th", "ŧ": "t"}
)


def fold(text: str) -> str:
    """The text with case, accents and compatibility forms taken out (NFKC, case folding, then
    the combining marks of its decomposition dropped, then the letters whose mark is their own
    read as plain ones): "Crème BRÛLÉE" → "creme brulee", "ＡＢＣ" → "abc", "Søren" → "soren"."""
    if text.isascii():
        return text.lower()  # the common case, and a search reads thousands
    decomposed = unicodedata.normalize("NFKD", unicodedata.normalize("NFKC", text).casefold())
    return "".join(char for char in decomposed if not unicodedata.combining(char)).translate(
        _LETTERS_WITHOUT_A_MARK
    )


@lru_cache(maxsize=4096)
def _fold_char(char: str) -> str:
    return fold(char)


def _text_index(text: str, folded_index: int) -> int:
    """The index in `text` of the character whose fold holds `folded_index` of `fold(text)`
    (folding may drop or add characters: a combining accent, "ß" → "ss"); read only up to it."""
    reached = 0
    for index, char in enumerate(text):
        reached += len(_fold_char(char))
        if reached > folded_index:
            return index
    return len(text)


def snippet(body: str, terms: list[str]) -> str:
    """About SNIPPET_CHARS of the body around its first match (folded as `search` folds); the
    start when nothing in it matched."""
    folded = fold(body)
    found = [at for term in terms if (at := folded.find(fold(term))) >= 0]
    starts = found if body.isascii() else [_text_index(body, min(found))] if found else []
    if not starts:
        return excerpt(body)
    start = max(0, min(starts) - _LEAD_CHARS)
    end = min(len(body), start + SNIPPET_CHARS)
    text = " ".join(body[start:end].split())
    return ("…" if start > 0 else "") + text + ("…" if end < len(body) else "")
