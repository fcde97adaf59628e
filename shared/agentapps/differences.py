"""How an envelope differs from the one expected, by JSON path (`item.body: expected "a", got
"b"`): what replay reports per step, and what conformance compares an answer with.
"""

from __future__ import annotations

import json
from typing import Any


def envelope_differences(expected: Any, actual: Any, subset: bool, where: str = "envelope") -> list[str]:
    """Every place `actual` differs from `expected`, by JSON path. In a subset match objects may
    hold more keys; arrays always have the same length. `true` never equals `1`."""
    if isinstance(expected, dict):
        if not isinstance(actual, dict):
            return [f"{where}: expected an object, got {show(actual)}"]
        differences = []
        for key, value in expected.items():
            if key not in actual:
                differences.append(f"{where}.{key}: missing (expected {show(value)})")
            else:
                differences += envelope_differences(value, actual[key], subset, f"{where}.{key}")
        if not subset:
            differences += [
                f"{where}.{key}: not expected, got {show(actual[key])}"
                for key in actual
                if key not in expected
            ]
        return differences
    if isinstance(expected, list):
        if not isinstance(actual, list):
            return [f"{where}: expected an array, got {show(actual)}"]
        if len(expected) != len(actual):
            count = f"{len(expected)} element" + ("" if len(expected) == 1 else "s")
            return [f"{where}: expected {count}, got {len(actual)}: {show(actual)}"]
        differences = []
        for index, (wanted, got) in enumerate(zip(expected, actual, strict=True)):
            differences += envelope_differences(wanted, got, subset, f"{where}[{index}]")
        return differences
    if type(expected) is not type(actual) and not (_is_number(expected) and _is_number(actual)):
        return [f"{where}: expected {show(expected)}, got {show(actual)}"]
    if expected != actual:
        return [f"{where}: expected {show(expected)}, got {show(actual)}"]
    return []


def _is_number(value: object) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def show(value: object) -> str:
    return shorten(json.dumps(value, ensure_ascii=False), 200)


def shorten(value: str, limit: int = 200) -> str:
    return value if len(value) <= limit else f"{value[: limit - 20]}… ({len(value)} characters)"
