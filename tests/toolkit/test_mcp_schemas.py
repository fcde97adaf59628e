"""Every tool's schema, as listed, against the published rules of the model APIs MCP clients
forward tools to: Anthropic's tools, OpenAI function calling (non-strict, and strict both as the
server's --strict-schemas form and as a client's usual conversion of the default form), and
Gemini function declarations (its JSON Schema form, as google-genai's MCP adapter reads it, and
its OpenAPI-subset `parameters` form).

SCHEMA RULES (encoded below, one function per client):
- Anthropic: name ^[a-zA-Z0-9_-]{1,64}$; input_schema a valid JSON Schema whose root is an object.
- OpenAI (non-strict): the same name rule; parameters an object schema with no anyOf/oneOf/allOf/
  enum/not at its root.
- OpenAI strict: every object schema has `properties`, `additionalProperties: false` and every
  property in `required`; only the keywords strict mode supports; an enum with a nullable type
  lists null.
- Gemini JSON Schema form: google-genai's adapter walks each schema-valued key with .items(), so
  every such value is an object (a boolean `additionalProperties` fails every tool).
- Gemini OpenAPI form: only the OpenAPI-subset keys (no `additionalProperties`), a type one of
  its six names, an object's `properties` non-empty when present, `required` naming properties.
"""

from __future__ import annotations

import re
from typing import Any

import pytest
from jsonschema import Draft202012Validator

from agentapps.mcp_server import Command, input_schema, load_commands, strict_schema
from agentapps.runtime import RunOptions
from tests.packages import PACKAGES
from tests.toolkit.conftest import FIXTURES, SUITE

TOOL_NAME = re.compile(r"^[a-zA-Z0-9_-]{1,64}$")
STRICT_KEYWORDS = {
    "type", "properties", "required", "additionalProperties", "items", "enum", "description",
    "anyOf", "const", "$ref", "$defs", "title",
}  # fmt: skip
GEMINI_KEYS = {
    "type", "format", "description", "nullable", "enum", "maxItems", "minItems", "properties",
    "required", "items", "minimum", "maximum", "anyOf", "propertyOrdering", "title", "example",
    "default", "minLength", "maxLength", "pattern", "minProperties", "maxProperties",
}  # fmt: skip
GEMINI_TYPES = {"string", "number", "integer", "boolean", "array", "object"}
SCHEMA_VALUED = ("properties", "items", "anyOf", "additionalProperties", "$defs")


def served() -> dict[str, Command]:
    """Every tool of every package the suite serves, and of a package without describe."""
    roots = [*(SUITE / name for name in PACKAGES), FIXTURES / "valid-package", FIXTURES / "command-paths"]
    return load_commands(roots, approve=True, options=RunOptions())


TOOLS = served()


def subschemas(schema: dict[str, Any]) -> list[dict[str, Any]]:
    """The schema and every schema nested in it."""
    found = [schema]
    for prop in schema.get("properties", {}).values():
        found += subschemas(prop)
    if isinstance(schema.get("items"), dict):
        found += subschemas(schema["items"])
    return found


def anthropic_refusals(name: str, schema: dict[str, Any]) -> list[str]:
    said = [] if TOOL_NAME.match(name) else [f"name {name!r}"]
    Draft202012Validator.check_schema(schema)
    if schema.get("type") != "object":
        said.append("root is not an object")
    return said


def openai_refusals(name: str, schema: dict[str, Any]) -> list[str]:
    said = [] if TOOL_NAME.match(name) else [f"name {name!r}"]
    if schema.get("type") != "object":
        said.append("root is not an object")
    said += [f"root has {key}" for key in ("anyOf", "oneOf", "allOf", "enum", "not") if key in schema]
    return said


def openai_strict_refusals(schema: dict[str, Any]) -> list[str]:
    said = []
    for sub in subschemas(schema):
        said += [f"keyword {key}" for key in set(sub) - STRICT_KEYWORDS]
        types = sub["type"] if isinstance(sub.get("type"), list) else [sub.get("type")]
        if "object" in types:
            if "properties" not in sub:
                said.append("an object without properties")
            if sub.get("additionalProperties") is not False:
                said.append("an object without additionalProperties: false")
            if sorted(sub.get("required", [])) != sorted(sub.get("properties", {})):
                said.append("a property not required")
        if "enum" in sub and "null" in types and None not in sub["enum"]:
            said.append("a nullable enum without null")
    return said


def usual_strict_conversion(schema: dict[str, Any]) -> dict[str, Any]:
    """What an agent SDK does to a schema before strict mode (openai-agents'
    ensure_strict_json_schema): `properties` added when missing, every property required,
    `additionalProperties: false` on each object."""
    converted = dict(schema)
    if converted.get("type") == "object":
        converted["properties"] = {
            key: usual_strict_conversion(prop) for key, prop in converted.get("properties", {}).items()
        }
        converted["required"] = list(converted["properties"])
        converted["additionalProperties"] = False
    if isinstance(converted.get("items"), dict):
        converted["items"] = usual_strict_conversion(converted["items"])
    return converted


def gemini_json_schema_refusals(schema: dict[str, Any]) -> list[str]:
    said = []
    for sub in subschemas(schema):
        for key in SCHEMA_VALUED:
            if key in sub and not isinstance(sub[key], dict | list):
                said.append(f"{key} is {type(sub[key]).__name__}, not a schema")
    return said


def gemini_openapi_refusals(schema: dict[str, Any]) -> list[str]:
    said = []
    for sub in subschemas(schema):
        said += [f"key {key}" for key in set(sub) - GEMINI_KEYS]
        if sub.get("type") not in GEMINI_TYPES:
            said.append(f"type {sub.get('type')!r}")
        if "properties" in sub and not sub["properties"]:
            said.append("empty properties")
        if "required" in sub and (
            not sub["required"] or set(sub["required"]) - set(sub.get("properties", {}))
        ):
            said.append("required names no property, or is empty")
        if "enum" in sub and sub.get("type") != "string":
            said.append("enum on a type other than string")
    return said


@pytest.mark.parametrize("name", sorted(TOOLS))
def test_each_listed_schema_passes_every_client_s_rules(name: str) -> None:
    schema = input_schema(TOOLS[name])
    assert anthropic_refusals(name, schema) == []
    assert openai_refusals(name, schema) == []
    assert openai_strict_refusals(usual_strict_conversion(schema)) == []
    assert gemini_json_schema_refusals(schema) == []
    assert gemini_openapi_refusals(schema) == []


@pytest.mark.parametrize("name", sorted(TOOLS))
def test_each_strict_schema_passes_openai_strict_mode(name: str) -> None:
    schema = strict_schema(TOOLS[name])
    Draft202012Validator.check_schema(schema)
    assert openai_strict_refusals(schema) == []
    assert openai_refusals(name, schema) == []


def test_the_rules_catch_what_clients_refused() -> None:
    """Each rule fails on the schema a client refused, so a passing check means something."""
    before = {"type": "object", "properties": {}, "required": [], "additionalProperties": False}
    assert gemini_json_schema_refusals(before) == ["additionalProperties is bool, not a schema"]
    assert set(gemini_openapi_refusals(before)) == {
        "key additionalProperties",
        "empty properties",
        "required names no property, or is empty",
    }
    optional = {"type": "object", "properties": {"limit": {"type": "integer"}}, "additionalProperties": False}
    assert openai_strict_refusals(optional) == ["a property not required"]
    nullable_enum = {"type": ["string", "null"], "enum": ["a"]}
    assert openai_strict_refusals(
        {
            "type": "object",
            "properties": {"e": nullable_enum},
            "required": ["e"],
            "additionalProperties": False,
        }
    ) == ["a nullable enum without null"]
    assert openai_refusals("a.b", {"type": "object", "anyOf": []}) == ["name 'a.b'", "root has anyOf"]


def test_no_describe_tool_is_listed_and_the_suite_s_tools_are_all_there() -> None:
    assert not [name for name in TOOLS if name.endswith("__describe")]
    assert {"agentic_to_do__list", "agentic_notes__tags", "agentic_timer__start"} <= set(TOOLS)
    assert input_schema(TOOLS["agentic_notes__tags"]) == {"type": "object"}  # takes no argument


def test_a_tool_without_arguments_has_an_empty_strict_schema() -> None:
    assert strict_schema(TOOLS["agentic_notes__tags"]) == {
        "type": "object",
        "properties": {},
        "required": [],
        "additionalProperties": False,
    }
