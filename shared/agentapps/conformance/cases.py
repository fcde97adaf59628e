"""The case format: finding case files, loading them, and refusing any that do not fit.

A collection of cases is a folder holding `case.schema.json` and `protocol.schema.json` (this
suite's is `conformance/`); its cases are the other JSON files under it, one behaviour each, in a
folder per tier (`cases/catalog/…`). A case's `from` paths are relative to the suite's root: the
folder that holds the collection's folder.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

from ..scenarios import MAX_TEXT_CHARS, text_length

CASE_SCHEMA = "case.schema.json"
PROTOCOL_SCHEMA = "protocol.schema.json"
OPERATIONS = ("catalog", "activate", "run")
# This suite's own collection, in the checkout the toolkit runs from.
SUITE_COLLECTION = Path(__file__).resolve().parents[3] / "conformance"


class CaseError(ValueError):
    """The file is not a case: unreadable, not JSON, against the schema, or naming what is not there."""


@dataclass(frozen=True)
class Case:
    path: Path
    data: dict[str, Any]
    collection: Path  # the folder holding case.schema.json

    @property
    def tier(self) -> str:
        """The folder the case lies in: catalog, activate or run."""
        return self.path.parent.name

    @property
    def name(self) -> str:
        """`<tier>/<file stem>`: the rule, as reports name it."""
        return f"{self.tier}/{self.path.stem}"

    @property
    def level(self) -> str:
        return str(self.data["level"])

    @property
    def suite_root(self) -> Path:
        return self.collection.parent

    @property
    def packages(self) -> dict[str, dict[str, Any]]:
        return dict(self.data["packages"])

    @property
    def trusted(self) -> list[str]:
        """The packages the user trusts (default: all of them)."""
        return list(self.data.get("trusted", self.data["packages"]))

    @property
    def steps(self) -> list[dict[str, Any]]:
        return list(self.data["steps"])


def operation_of(step: dict[str, Any]) -> str:
    """catalog, activate or run: the one operation a step holds."""
    return next(name for name in OPERATIONS if name in step)


def case_files(paths: Iterable[Path]) -> list[Path]:
    """The .json files named, and every case file under the folders named (not the schemas), sorted;
    for a collection's own folder, the cases under its cases/ (not its packages' files)."""
    found: list[Path] = []
    for path in paths:
        if (path / CASE_SCHEMA).is_file():
            path = path / "cases"
        if path.is_dir():
            found += sorted(
                candidate for candidate in path.rglob("*.json") if not candidate.name.endswith(".schema.json")
            )
        else:
            found.append(path)
    return found


def collection_of(path: Path) -> Path:
    """The nearest folder at or above the case file that holds case.schema.json."""
    for folder in path.resolve().parents:
        if (folder / CASE_SCHEMA).is_file():
            return folder
    raise CaseError(f"{path}: no {CASE_SCHEMA} in any folder above it, so it belongs to no collection.")


@cache
def schema_validator(path: Path, definition: str | None = None) -> Any:
    """A validator for the schema file, or for one of its $defs."""
    from jsonschema import Draft202012Validator

    schema = json.loads(path.read_text(encoding="utf-8"))
    if definition is not None:
        schema = {"$ref": f"#/$defs/{definition}", "$defs": schema["$defs"]}
    return Draft202012Validator(schema)


def schema_problems(validator: Any, data: object) -> list[str]:
    """Where `data` breaks the schema, one line each (empty when it fits)."""
    problems = []
    for error in sorted(validator.iter_errors(data), key=lambda error: list(error.absolute_path)):
        where = "/".join(str(part) for part in error.absolute_path) or "(top)"
        problems.append(f"{where}: {error.message}")
    return problems


def load_case(path: Path) -> Case:
    """The case in the file, checked against its collection's schema and against the suite: every
    `from` folder exists inside the suite's root, every package a step or `trusted` names is the
    case's, and no text is longer than a harness builds."""
    if not path.is_file():  # a FIFO named like a case would be waited on forever
        raise CaseError(f"{path}: not a regular file.")
    collection = collection_of(path)
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError) as error:
        raise CaseError(f"{path}: cannot be read ({error}).") from None
    except json.JSONDecodeError as error:
        raise CaseError(f"{path}: not JSON ({error}).") from None
    problems = schema_problems(schema_validator(collection / CASE_SCHEMA), data)
    if problems:
        raise CaseError(f"{path}: not a case: " + "; ".join(problems))
    case = Case(path, data, collection)
    problems = _suite_problems(case)
    if problems:
        raise CaseError(f"{path}: " + "; ".join(problems))
    return case


def _suite_problems(case: Case) -> list[str]:
    problems = []
    root = case.suite_root.resolve()
    for name, package in case.packages.items():
        if "from" in package:
            source = (root / package["from"]).resolve()
            if not source.is_relative_to(root) or not source.is_dir():
                problems.append(f"packages/{name}/from: no folder {package['from']} in {root}")
        for where, value in package.get("files", {}).items():
            if text_length(value) > MAX_TEXT_CHARS:
                problems.append(f"packages/{name}/files/{where}: longer than {MAX_TEXT_CHARS} characters")
    named = set(case.packages)
    for name in case.data.get("trusted", []):
        if name not in named:
            problems.append(f"trusted: {name!r} is not one of the case's packages")
    for number, step in enumerate(case.steps):
        operation = step[operation_of(step)]
        if "package" in operation and operation["package"] not in named:
            problems.append(f"steps/{number}: {operation['package']!r} is not one of the case's packages")
        texts = [*operation.get("args", []), *([operation["stdin"]] if "stdin" in operation else [])]
        if any(text_length(value) > MAX_TEXT_CHARS for value in texts):
            problems.append(f"steps/{number}: a text is longer than {MAX_TEXT_CHARS} characters")
    return problems
