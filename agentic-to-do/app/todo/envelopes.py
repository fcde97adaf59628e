"""The to-do's own success shapes, beyond an item and a list: what `complete` answers when it made
the next item of a repeating one; `export` and `import` answer the kit's, for an item. schemas/
describes them (`new_app(envelopes=...)`)."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import ConfigDict, Field, StringConstraints
from typing_extensions import TypedDict

from agentic_kit import backup
from agentic_kit.ids import id_pattern

from .models import ID_PREFIX, TodoItem

_CLOSED = ConfigDict(extra="forbid")
NextOf = Annotated[str, StringConstraints(pattern=id_pattern(ID_PREFIX))]  # the id a next item follows


class CompletedWithNext(TypedDict):
    """`complete ID` of a repeating item: the item completed, and `next`, the one it made."""

    __pydantic_config__ = _CLOSED  # type: ignore[misc]
    ok: Literal[True]
    command: str
    item: TodoItem
    next: TodoItem


class CompletedManyWithNext(TypedDict):
    """`complete ID ID...`: the items completed, and `next`, each item their repeats made by the id
    of the item it follows."""

    __pydantic_config__ = _CLOSED  # type: ignore[misc]
    ok: Literal[True]
    command: str
    count: int
    items: list[TodoItem]
    next: Annotated[dict[NextOf, TodoItem], Field(json_schema_extra={"additionalProperties": False})]


Export = backup.export_envelope(TodoItem, "every item")

ENVELOPES = (CompletedWithNext, CompletedManyWithNext, Export, backup.Imported)
