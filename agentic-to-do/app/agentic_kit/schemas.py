"""JSON Schema for an app's item and envelopes, generated from the pydantic models.

Only the schema generator imports this module; no command pays for it at start-up.
"""

from __future__ import annotations

from typing import Annotated, Any, Generic, Literal, NotRequired, TypeVar, Union

from pydantic import BaseModel, ConfigDict, StringConstraints, TypeAdapter
from typing_extensions import TypedDict  # pydantic needs this TypedDict on Python 3.11

from .describe import AppDescription
from .errors import ErrorCode

ItemT = TypeVar("ItemT")

JSON_SCHEMA_DIALECT = "https://json-schema.org/draft/2020-12/schema"
_CLOSED = ConfigDict(extra="forbid")


class ItemEnvelope(TypedDict, Generic[ItemT]):
    __pydantic_config__ = _CLOSED  # type: ignore[misc]
    ok: Literal[True]
    command: str
    item: ItemT


class ListEnvelope(TypedDict, Generic[ItemT]):
    __pydantic_config__ = _CLOSED  # type: ignore[misc]
    ok: Literal[True]
    command: str
    count: int
    items: list[ItemT]
    total: NotRequired[int]  # only when --limit was given: how many matched in all


class HelpEnvelope(TypedDict):
    __pydantic_config__ = _CLOSED  # type: ignore[misc]
    ok: Literal[True]
    command: str | None
    help: str


class VersionEnvelope(TypedDict):
    __pydantic_config__ = _CLOSED  # type: ignore[misc]
    ok: Literal[True]
    command: None
    version: str


class ErrorBody(TypedDict):
    __pydantic_config__ = _CLOSED  # type: ignore[misc]
    code: ErrorCode
    message: str
    # Every error says how to fix the call (the harness holds every app to it).
    hint: Annotated[str, StringConstraints(min_length=1)]


class ErrorEnvelope(TypedDict):
    __pydantic_config__ = _CLOSED  # type: ignore[misc]
    ok: Literal[False]
    command: str | None
    error: ErrorBody


def envelope_schemas(
    entity_model: type[BaseModel],
    entity_name: str,
    commands: list[str],
    list_item_models: tuple[type[BaseModel], ...] = (),
    item_models: tuple[type[BaseModel], ...] = (),
    own_envelopes: tuple[Any, ...] = (),
) -> dict[str, dict[str, Any]]:
    """File name → schema, for the app's schemas/ folder.

    `list_item_models` are the shapes list commands print, when they are not the entity itself
    (a summary instead of the whole note, say); `item_models` the other shapes item commands
    print besides the entity (a write that answers with that summary); `own_envelopes` the app's
    own success shapes (closed TypedDicts with `ok` and `command`), beyond an item and a list.
    """
    list_envelopes = [ListEnvelope[model] for model in list_item_models or (entity_model,)]  # type: ignore[valid-type]
    item_envelopes = [ItemEnvelope[model] for model in item_models]  # type: ignore[valid-type]
    describe_envelope = ItemEnvelope[AppDescription]
    entity_envelope: Any = ItemEnvelope[entity_model]  # type: ignore[valid-type]
    success: Any = Union[
        entity_envelope,
        *item_envelopes,
        describe_envelope,
        *list_envelopes,
        *own_envelopes,
        HelpEnvelope,
        VersionEnvelope,
    ]
    schemas = {
        f"{entity_name}.schema.json": entity_model.model_json_schema(mode="serialization"),
        "success-envelope.schema.json": TypeAdapter(success).json_schema(mode="serialization"),
        "error-envelope.schema.json": TypeAdapter(ErrorEnvelope).json_schema(mode="serialization"),
    }
    _name_commands(schemas["success-envelope.schema.json"], commands)
    _name_commands(schemas["error-envelope.schema.json"], commands)
    titles = {
        f"{entity_name}.schema.json": f"One {entity_name} as every command returns it",
        "success-envelope.schema.json": "What a command prints on stdout when it succeeds (exit 0)",
        "error-envelope.schema.json": "What a command prints on stdout when it fails (exit > 0)",
    }
    return {
        name: {"$schema": JSON_SCHEMA_DIALECT, **schema, "title": titles[name]}
        for name, schema in schemas.items()
    }


def _name_commands(schema: dict[str, Any], commands: list[str]) -> None:
    """Narrow every envelope's `command` from any string to the app's own command names."""
    definitions = [schema, *schema.get("$defs", {}).values()]
    for definition in definitions:
        command = definition.get("properties", {}).get("command")
        if command is None:
            continue
        if command.get("type") == "string":
            command.pop("type")
            command["enum"] = commands
        elif "anyOf" in command:
            command["anyOf"] = [{"enum": commands}, {"type": "null"}]
