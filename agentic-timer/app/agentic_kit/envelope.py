"""Envelopes: the one JSON document every run prints on stdout.

success: {"ok": true, "command": NAME, "item": {...}}
list:    {"ok": true, "command": NAME, "count": N, "items": [...]}   (+ "total" when --limit was given)
help:    {"ok": true, "command": NAME or null, "help": TEXT}
version: {"ok": true, "command": null, "version": VERSION}           (`--version`: APP.md's version)
failure: {"ok": false, "command": NAME or null, "error": {"code", "message"[, "hint"]}}

Commands return a payload (`item_payload`, `list_payload`); the runner adds `ok` and `command`,
so no command can forget them or spell them differently.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from typing import Any, TypeVar, overload

from pydantic import BaseModel
from pydantic_core import PydanticSerializationError
from pydantic_core import to_json as to_json_bytes

from .errors import AppError
from .text import printable

Envelope = dict[str, Any]
Payload = dict[str, Any]
ItemT = TypeVar("ItemT")


def item_payload(item: Mapping[str, Any] | BaseModel) -> Payload:
    return {"item": item}


def list_payload(items: Sequence[Mapping[str, Any] | BaseModel], total: int | None = None) -> Payload:
    payload: Payload = {"count": len(items), "items": list(items)}
    if total is not None:
        payload["total"] = total
    return payload


@overload
def limited_payload(items: Sequence[Mapping[str, Any] | BaseModel], limit: int | None) -> Payload: ...


@overload
def limited_payload(
    items: Sequence[ItemT], limit: int | None, render: Callable[[ItemT], Mapping[str, Any] | BaseModel]
) -> Payload: ...


def limited_payload(
    items: Sequence[Any],
    limit: int | None,
    render: Callable[[Any], Mapping[str, Any] | BaseModel] | None = None,
) -> Payload:
    """A list command's payload under `--limit`: at most `limit` items, and `total`, how many
    matched, only when a limit was given. With `render`, the items are the matches in order and
    only those answered are rendered: `list --limit 10` of 10,000 notes makes ten excerpts."""
    shown = items if limit is None else items[:limit]
    if render is not None:
        shown = [render(item) for item in shown]
    return list_payload(shown) if limit is None else list_payload(shown, total=len(items))


def success_envelope(command: str | None, payload: Payload) -> Envelope:
    return {"ok": True, "command": command, **payload}


def help_envelope(command: str | None, text: str) -> Envelope:
    return {"ok": True, "command": command, "help": text}


def version_envelope(version: str) -> Envelope:
    return {"ok": True, "command": None, "version": version}


def error_envelope(command: str | None, error: AppError) -> Envelope:
    return {"ok": False, "command": command, "error": error.body()}


def to_json(envelope: Envelope) -> str:
    """Compact UTF-8 JSON: agents pay for every byte, and text must round-trip unchanged.

    Items may be pydantic models (printed by their JSON names): pydantic-core serialises the
    whole envelope in one pass, several times faster than building dicts for `json.dumps`.
    A string no UTF-8 can carry (a lone surrogate: a path or an argument whose bytes were not
    UTF-8, or a `\\ud800` escape another program printed) is shown with escapes instead
    (`printable`), so every envelope can be printed.
    """
    try:
        return to_json_bytes(envelope, by_alias=True).decode("utf-8")
    except PydanticSerializationError:
        # Rare, so the common path pays nothing: make every string printable, then serialise.
        return to_json_bytes(_printable_strings(envelope), by_alias=True).decode("utf-8")


def _printable_strings(value: Any) -> Any:
    if isinstance(value, str):
        return printable(value)
    if isinstance(value, BaseModel):
        value = value.model_dump(by_alias=True)
    if isinstance(value, Mapping):
        return {_printable_strings(key): _printable_strings(item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [_printable_strings(item) for item in value]
    return value


def to_plain(envelope: Envelope) -> Envelope:
    """The envelope as plain dicts and lists, models included (for --human and in-process use)."""
    plain: Envelope = json.loads(to_json(envelope))
    return plain
