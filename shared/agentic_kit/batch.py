"""Commands over several ids at once (`complete ID...`, `remove ID... --confirm`): all or nothing.

Every id is checked for its form before the lock is taken; under the lock every one is found
before any is changed, so one unknown id is NOT_FOUND (naming every unknown one) and nothing
changes. An id given twice counts once, in the place it was first given.

The answer keeps the one-id shape of `commands.change_one`: given one id, `item`; given several,
`count` and `items` in the order given (one each, repeats left out), as a list answers.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any, TypeVar

from pydantic import BaseModel

from .envelope import Payload, item_payload, list_payload
from .errors import AppError, ErrorCode, confirmation_required
from .store import StateStore, StateT

EntityT = TypeVar("EntityT", bound=BaseModel)
Shown = Mapping[str, Any] | BaseModel


def checked_ids(given: Sequence[str], check: Callable[[str], str]) -> list[str]:
    """Each id checked for its form (VALIDATION_ERROR for the first that is not one), each once,
    in the order first given."""
    return list(dict.fromkeys(check(entity_id) for entity_id in given))


def find_all(
    state: StateT, entity_ids: Sequence[str], find: Callable[[StateT, str], EntityT], noun: str
) -> list[EntityT]:
    """Every entity, or NOT_FOUND naming each id that is missing (`find`'s own error when only
    one is); `noun` names the kind of entity in that message."""
    found: list[EntityT] = []
    missing: list[str] = []
    first_error: AppError | None = None
    for entity_id in entity_ids:
        try:
            found.append(find(state, entity_id))
        except AppError as error:
            if error.code != ErrorCode.NOT_FOUND:
                raise
            missing.append(entity_id)
            first_error = first_error or error
    if first_error is None:
        return found
    if len(missing) == 1:
        raise first_error
    raise AppError(
        ErrorCode.NOT_FOUND,
        f"No {noun} with id {', '.join(missing[:-1])} or {missing[-1]}; nothing was changed.",
        first_error.hint,
    )


def answer(given: Sequence[str], shown: Sequence[Shown]) -> Payload:
    """`item` for one id given, `count` and `items` for several."""
    return item_payload(shown[0]) if len(given) == 1 else list_payload(shown)


def change_each(
    store: StateStore[StateT],
    given: Sequence[str],
    entity_ids: Sequence[str],
    find: Callable[[StateT, str], EntityT],
    noun: str,
    change: Callable[[EntityT], None],
    shown: Callable[[EntityT], Shown] | None = None,
) -> Payload:
    """Find every entity under the lock, then change each, in one write; answer with each (or
    `shown` of each, computed before the commit). `given` is the ids as typed, `entity_ids` as
    `checked_ids` returned them."""
    with store.transaction() as state:
        entities = find_all(state, entity_ids, find, noun)
        for entity in entities:
            change(entity)
        answers = [entity if shown is None else shown(entity) for entity in entities]
    return answer(given, answers)


def remove_each(
    store: StateStore[StateT],
    given: Sequence[str],
    entity_ids: Sequence[str],
    *,
    confirm: bool,
    find: Callable[[StateT, str], EntityT],
    noun: str,
    remove: Callable[[StateT, EntityT], None],
    shown: Callable[[EntityT], Shown] | None = None,
    command: str = "remove",
) -> Payload:
    """Remove every entity in one write, only with --confirm; an unknown id is NOT_FOUND first,
    and without --confirm nothing is locked or changed (CONFIRMATION_REQUIRED)."""
    if not confirm:
        find_all(store.load(), entity_ids, find, noun)
        raise confirmation_required(command)
    with store.transaction() as state:
        entities = find_all(state, entity_ids, find, noun)
        answers = [entity if shown is None else shown(entity) for entity in entities]
        for entity in entities:
            remove(state, entity)
    return answer(given, answers)
