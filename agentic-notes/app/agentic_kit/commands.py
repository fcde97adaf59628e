"""The command shapes every app repeats, written once: `--limit N`, `--confirm`, one change to one
entity under the lock, and the confirmed removal of one.

Each keeps the rules the apps share: input is checked before the lock is taken; whatever the
answer shows is computed before the commit, so nothing can fail once the change is saved; an
unknown id is NOT_FOUND before a missing --confirm is CONFIRMATION_REQUIRED.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Annotated, Any, TypeVar

import typer
from pydantic import BaseModel

from .envelope import Payload, item_payload
from .errors import confirmation_required
from .inputs import count
from .store import StateStore, StateT

EntityT = TypeVar("EntityT", bound=BaseModel)

# `--confirm`: what a destructive command needs before it acts.
Confirm = Annotated[bool, typer.Option("--confirm", help="Required: the removal is final.")]


def limit_option(noun: str) -> Any:
    """`--limit N` of a list command (`Show at most N <noun>.`): a count of ASCII digits. Pair it
    with envelope.limited_payload, which adds `total` when it was given."""
    return typer.Option(parser=count, metavar="N", help=f"Show at most N {noun}.")


def change_one(
    store: StateStore[StateT],
    entity_id: str,
    find: Callable[[StateT, str], EntityT],
    change: Callable[[EntityT], None],
    shown: Callable[[EntityT], Mapping[str, Any] | BaseModel] | None = None,
) -> Payload:
    """Find one entity under the lock, change it, and answer with it (or with `shown` of it,
    computed before the commit)."""
    with store.transaction() as state:
        entity = find(state, entity_id)
        change(entity)
        answer: Mapping[str, Any] | BaseModel = entity if shown is None else shown(entity)
    return item_payload(answer)


def remove_one(
    store: StateStore[StateT],
    entity_id: str,
    *,
    confirm: bool,
    find: Callable[[StateT, str], EntityT],
    remove: Callable[[StateT, EntityT], None],
    shown: Callable[[EntityT], Mapping[str, Any] | BaseModel] | None = None,
    command: str = "remove",
) -> Payload:
    """Remove one entity, only with --confirm; without it, nothing is locked or changed and the
    answer is CONFIRMATION_REQUIRED (NOT_FOUND first, for an id that does not exist)."""
    if not confirm:
        find(store.load(), entity_id)  # an unknown id is NOT_FOUND first
        raise confirmation_required(command)
    with store.transaction() as state:
        entity = find(state, entity_id)
        remove(state, entity)
        answer: Mapping[str, Any] | BaseModel = entity if shown is None else shown(entity)
    return item_payload(answer)
