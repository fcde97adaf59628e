"""The envelope contract runtime authors rely on: exact keys, stable codes, stable exit statuses.

Changing anything asserted here is a breaking change of every package in the suite.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from agentapps.harness import AppRunner
from agentapps.sync import package_app
from agentic_kit.errors import EXIT_STATUS, ErrorCode
from tests.packages import PACKAGES, SUITE

STABLE_EXIT_STATUS = {
    "INTERNAL_ERROR": 1,
    "USAGE_ERROR": 2,
    "VALIDATION_ERROR": 3,
    "NOT_FOUND": 4,
    "CONFIRMATION_REQUIRED": 5,
    "CONFLICT": 6,
    "STATE_LOCKED": 7,
    "STATE_CORRUPT": 8,
    "STATE_IO_ERROR": 9,
}
ITEM_KEYS = ["ok", "command", "item"]
LIST_KEYS = ["ok", "command", "count", "items"]
LIMITED_LIST_KEYS = ["ok", "command", "count", "items", "total"]
HELP_KEYS = ["ok", "command", "help"]
ERROR_KEYS = ["ok", "command", "error"]


def test_error_codes_and_exit_statuses_are_stable() -> None:
    assert {code.value: status for code, status in EXIT_STATUS.items()} == STABLE_EXIT_STATUS
    assert {code.value for code in ErrorCode} == set(STABLE_EXIT_STATUS)


def test_every_exit_status_is_distinct_and_non_zero() -> None:
    statuses = list(EXIT_STATUS.values())
    assert len(set(statuses)) == len(statuses)
    assert 0 not in statuses


def test_item_envelope_keys_in_order(todo: AppRunner) -> None:
    assert list(todo.run("add", "x").envelope) == ITEM_KEYS


def test_list_envelope_keys_in_order(todo: AppRunner) -> None:
    assert list(todo.run("list").envelope) == LIST_KEYS
    assert list(todo.run("list", "--limit", "1").envelope) == LIMITED_LIST_KEYS


def test_help_envelope_keys_in_order(todo: AppRunner) -> None:
    assert list(todo.run("list", "--help").envelope) == HELP_KEYS


def test_version_envelope_keys_in_order(todo: AppRunner) -> None:
    assert list(todo.run("--version").envelope) == ["ok", "command", "version"]


@pytest.mark.parametrize("args", [["get", "td_0001"], ["list", "--status", "x"], ["nope"]])
def test_error_envelope_keys_in_order(todo: AppRunner, args: list[str]) -> None:
    """Every error of this suite's apps carries a hint (the harness holds each run to it)."""
    envelope = todo.run(*args).envelope
    assert list(envelope) == ERROR_KEYS
    assert envelope["ok"] is False
    assert list(envelope["error"]) == ["code", "message", "hint"]


def schema(package: str, name: str) -> dict[str, Any]:
    return json.loads((SUITE / package / "schemas" / name).read_text())  # type: ignore[no-any-return]


@pytest.mark.parametrize("package", PACKAGES)
def test_every_package_schema_knows_exactly_the_stable_codes(package: str) -> None:
    codes = schema(package, "error-envelope.schema.json")["$defs"]["ErrorCode"]["enum"]
    assert sorted(codes) == sorted(STABLE_EXIT_STATUS)


@pytest.mark.parametrize("package", PACKAGES)
def test_every_package_schema_closes_its_envelopes(package: str) -> None:
    error = schema(package, "error-envelope.schema.json")
    assert error["additionalProperties"] is False
    assert error["required"] == ERROR_KEYS
    success = schema(package, "success-envelope.schema.json")
    shapes = {name: definition for name, definition in success["$defs"].items() if "Envelope" in name}
    # Item shapes for the entity, for describe and for each other model an item command prints
    # (agentic-notes' writes print a note without its body), one help shape, one version shape, a list
    # shape per kind of list item.
    item_shapes = 2 + len(package_app(SUITE / package).item_models)
    required = [definition["required"] for definition in shapes.values()]
    assert required.count(ITEM_KEYS) == item_shapes
    assert required.count(HELP_KEYS) == 1
    assert required.count(["ok", "command", "version"]) == 1
    assert required.count(LIST_KEYS) >= 1
    assert len(required) == item_shapes + 2 + required.count(LIST_KEYS)
    assert all(definition["additionalProperties"] is False for definition in shapes.values())
