"""What a step's answer must contain, and every place it differs, by JSON path.

`answer` is compared as scenarios compare envelopes (differences.envelope_differences: a subset by
default, `true` never `1`). A catalog answer is also read by package folder (`packages`), so a case
can say that a folder is listed, and how, or that it is not listed, whatever else is. `absent` and
`types` hold JSON Pointers into {"answer": ..., "packages": ...}.
"""

from __future__ import annotations

import json
from pathlib import PurePosixPath
from typing import Any

from ..differences import envelope_differences
from ..output import NOT_JSON
from .workspace import Workspace

JSON_TYPES = {
    "string": (str,),
    "number": (int, float),
    "boolean": (bool,),
    "object": (dict,),
    "array": (list,),
    "null": (type(None),),
}


def catalog_view(answer: Any, space: Workspace) -> dict[str, Any]:
    """The catalog's entries by their folder relative to {case}/packages (an entry elsewhere, or
    without a `source`, by whatever it says)."""
    items = answer.get("items") if isinstance(answer, dict) else None
    view: dict[str, Any] = {}
    for entry in items if isinstance(items, list) else []:
        source = entry.get("source") if isinstance(entry, dict) else None
        if not isinstance(source, str):
            continue
        path = PurePosixPath(source)
        packages = PurePosixPath(space.packages)
        view[str(path.relative_to(packages)) if path.is_relative_to(packages) else source] = entry
    return view


def differences(
    expect: dict[str, Any], exit_status: int, answer: Any, view: dict[str, Any], changed: list[str]
) -> list[str]:
    """Every way the step's outcome differs from `expect` (empty when it gave what was expected).
    `answer` and `view` have the case folder written as {case}; `changed` names the files the step
    changed in it."""
    found = []
    if "exit" in expect and exit_status != expect["exit"]:
        found.append(f"exit status: expected {expect['exit']}, got {exit_status}")
    if "answer" in expect and answer is not NOT_JSON:
        found += envelope_differences(
            expect["answer"], answer, expect.get("match", "subset") == "subset", "answer"
        )
    unlisted = set()  # said once: what a pointer expects inside them is not listed either
    for key, wanted in expect.get("packages", {}).items():
        where = f"packages.{key}"
        if wanted is None:
            if key in view:
                found.append(f"{where}: expected not listed, got {_show(view[key])}")
        elif key not in view:
            unlisted.add(key)
            found.append(f"{where}: not listed (expected {_show(wanted)})")
        else:
            found += envelope_differences(wanted, view[key], True, where)
    document = {"answer": answer, "packages": view}

    def in_unlisted(pointer: str) -> bool:
        tokens = _tokens(pointer)
        return len(tokens) > 1 and tokens[0] == "packages" and tokens[1] in unlisted

    for pointer in expect.get("absent", []):
        present, value = _resolve(document, pointer)
        parent = pointer.rsplit("/", 1)[0]
        if present:
            found.append(f"{_dotted(pointer)}: expected absent, got {_show(value)}")
        elif parent.count("/") > 1 and not _resolve(document, parent)[0]:
            # An absence is checked where it could be: a missing parent (a typo, or an answer
            # without it) proves nothing.
            found.append(f"{_dotted(pointer)}: expected absent from {_dotted(parent)}, which is missing too")
    for pointer, kind in expect.get("types", {}).items():
        present, value = _resolve(document, pointer)
        if in_unlisted(pointer):
            continue
        if not present:
            found.append(f"{_dotted(pointer)}: missing (expected a {kind})")
        elif not _has_type(value, kind):
            found.append(f"{_dotted(pointer)}: expected a {kind}, got {_show(value)}")
    if expect.get("unchanged") and changed:
        found.append(f"files: expected no change in the case folder, got changes to {', '.join(changed)}")
    return found


def changed_paths(before: dict[str, object], after: dict[str, object]) -> list[str]:
    """The entries added, removed or changed between two snapshots, as {case}/…"""
    return [
        f"{{case}}/{name}"
        for name in sorted(before.keys() | after.keys())
        if before.get(name) != after.get(name)
    ]


def _resolve(document: Any, pointer: str) -> tuple[bool, Any]:
    """(found, value) at the JSON Pointer."""
    value = document
    for token in _tokens(pointer):
        if isinstance(value, dict) and token in value:
            value = value[token]
        elif isinstance(value, list) and token.isdigit() and int(token) < len(value):
            value = value[int(token)]
        else:
            return False, None
    return value is not NOT_JSON, value


def _tokens(pointer: str) -> list[str]:
    return [token.replace("~1", "/").replace("~0", "~") for token in pointer.split("/")[1:]]


def _dotted(pointer: str) -> str:
    """A pointer written the way the other differences name paths: answer.item.body, items[0]."""
    dotted = ""
    for token in _tokens(pointer):
        dotted += f"[{token}]" if token.isdigit() else f".{token}"
    return dotted.lstrip(".")


def _has_type(value: Any, kind: str) -> bool:
    if isinstance(value, bool) and kind != "boolean":
        return False
    return isinstance(value, JSON_TYPES[kind])


def _show(value: object) -> str:
    shown = json.dumps(value, ensure_ascii=False)
    return shown if len(shown) <= 200 else f"{shown[:180]}… ({len(shown)} characters)"
