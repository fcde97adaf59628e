"""`--sort KEY`: one set of keys and one order for every app's `list` and `due`.

The shared keys are `created` (creation order, the state's own), `due` (soonest first; items
without a due last) and `updated` (least recently changed first). Every key sorts earliest (or
first) first and is stable: items that tie keep their creation order. An app adds keys of its
own (to-do's `priority`) by listing them in its own StrEnum beside these and passing how to read
each to `sort_items`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from datetime import datetime
from enum import StrEnum
from typing import Any, TypeVar

import typer

from .dates import EARLIEST

T = TypeVar("T")

SORT_HELP = "created (creation order), due (soonest first, none last), updated (least recent first)."


class SortKey(StrEnum):
    """The keys every app's `--sort` takes."""

    created = "created"
    due = "due"
    updated = "updated"


# What each command's order without `--sort` is called in its help: the order of that key.
DEFAULT_ORDER = {
    SortKey.created: "creation order",
    SortKey.due: "soonest due first",
    SortKey.updated: "least recently changed first",
}
NEWEST_FIRST = "newest first"  # creation order reversed (notes' list)
# What a --human list sorted by a key shows of each item for it, when the app's summary does not
# already: `created` is the ids' order and `due` every app shows.
SHOWN_FOR_KEY = {SortKey.updated.value: ("updatedAt", "updated {}")}


def sort_option(default: SortKey, *, newest_first: bool = False, own_keys: str = "") -> Any:
    """`--sort KEY`; its help says the order the command gives without it: the order of `default`
    (`newest_first`: creation order reversed). The command must sort by what it passes here.
    `own_keys`: the app's own keys and their orders, said after the shared ones (to-do:
    "priority (high first, none last)")."""
    order = NEWEST_FIRST if newest_first else DEFAULT_ORDER[default]
    keys = f"{SORT_HELP.removesuffix('.')}, {own_keys}." if own_keys else SORT_HELP
    return typer.Option(metavar="KEY", help=f"Order by {keys} Without it: {order}.")


def sort_items(
    items: Iterable[T],
    key: str,
    *,
    due: Callable[[T], datetime | None],
    updated: Callable[[T], str],
    own: Mapping[str, Callable[[T], Any]] | None = None,
) -> list[T]:
    """`items`, given in creation order, in the order of `key`. `due` is the moment an item's due
    sorts at (each app's meaning of its date: a deadline, a reminder, an instant), None for none;
    `updated` its stored updatedAt (stored timestamps compare as text in time order); `own` reads
    the app's own keys."""
    if key == SortKey.created:
        return list(items)
    if key == SortKey.updated:
        return sorted(items, key=updated)
    if key == SortKey.due:
        return sorted(items, key=lambda item: _none_last(due(item)))
    if own is None or key not in own:
        raise ValueError(f"no sort key {key!r}")  # the option's choices let no other through
    return sorted(items, key=own[key])


def _none_last(moment: datetime | None) -> tuple[bool, datetime]:
    return (moment is None, moment or EARLIEST)
