"""The case format: finding case files, loading them, and refusing any that do not fit.

A collection of cases is a folder holding `case.schema.json` and `protocol.schema.json` (this
suite's is `conformance/`); its cases are the other JSON files under it, one behaviour each, in a
folder per tier (`cases/catalog/…`). A case's `from` paths are relative to the suite's root: the
folder that holds the collection's folder.
"""

from __future__ import annotations

import itertools
import json
import os
from collections.abc import Iterable
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

from ..scenarios import MAX_TEXT_CHARS, text_length

CASE_SCHEMA = "case.schema.json"
PROTOCOL_SCHEMA = "protocol.schema.json"
# The seed's words a required case may cite, verbatim; a collection without this file cites freely.
SEED_PASSAGES = "seed-passages.json"
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


# At most this many schema errors are read from one document, and this many problems reported:
# an answer of millions of entries costs the harness linear time and a bounded list, never more.
MAX_SCHEMA_ERRORS = 1000
MAX_PROBLEMS = 20


def schema_problems(validator: Any, data: object) -> list[str]:
    """Where `data` breaks the schema, one line each (empty when it fits): the JSON path, then the
    rule in words with JSON values (`null`, never Python's `None`). At most MAX_PROBLEMS lines, the
    last saying that more were left out."""
    errors = list(itertools.islice(validator.iter_errors(data), MAX_SCHEMA_ERRORS + 1))
    more = len(errors) > MAX_SCHEMA_ERRORS
    found: dict[str, None] = {}  # a dict keeps the order and finds a repeat in constant time
    for error in sorted(errors[:MAX_SCHEMA_ERRORS], key=lambda error: list(error.absolute_path)):
        where = "/".join(str(part) for part in error.absolute_path) or "(top)"
        found.setdefault(f"{where}: {_in_words(error)}")  # `required` repeats a problem per key
    problems = list(found)
    if more or len(problems) > MAX_PROBLEMS:
        problems = [*problems[: MAX_PROBLEMS - 1], "(more problems left out)"]
    return problems


def _in_words(error: Any) -> str:
    """One schema error as a reader would say it. Patterns are named by the description the schema
    gives them, never shown as regular expressions."""
    rule, wanted, value = error.validator, error.validator_value, error.instance
    schema = error.schema if isinstance(error.schema, dict) else {}
    shown = _json(value)
    if rule == "type":
        kinds = [wanted] if isinstance(wanted, str) else list(wanted)
        return f"expected {' or '.join(_a(kind) for kind in kinds)}, got {shown}"
    if rule == "required":
        missing = [key for key in wanted if isinstance(value, dict) and key not in value]
        return "missing " + ", ".join(_json(key) for key in missing)
    if rule == "const":
        return f"expected {_json(wanted)}, got {shown}"
    if rule == "enum":
        return f"expected one of {', '.join(_json(item) for item in wanted)}, got {shown}"
    if rule == "additionalProperties" and wanted is False and isinstance(value, dict):
        known = schema.get("properties", {})
        extra = [key for key in value if key not in known]
        return f"{_plural(len(extra), 'key')} not allowed here: {', '.join(_json(key) for key in extra)}"
    if rule == "pattern":
        described = schema.get("description")
        return f"{shown} is not {described}" if described else f"{shown} does not have the form required"
    if rule == "not":
        described = wanted.get("description", "refused here") if isinstance(wanted, dict) else "refused here"
        return f"{shown} is not allowed: {described}"
    if rule == "oneOf":
        described = schema.get("description", "one of the forms allowed here")
        fits = "more than one" if not error.context else "none"
        return f"fits {fits} of the forms allowed here; expected {described}"
    if rule in ("minItems", "maxItems", "minProperties", "maxProperties", "minLength", "maxLength"):
        bound = "at least" if rule.startswith("min") else "at most"
        unit = {"Items": "item", "Properties": "key", "Length": "character"}[rule[3:]]
        return f"expected {bound} {_plural(wanted, unit)}, got {shown}"
    if rule in ("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum"):
        bound = {"minimum": "at least", "maximum": "at most"}.get(
            rule, "more than" if "Min" in rule else "less than"
        )
        return f"expected {bound} {_json(wanted)}, got {shown}"
    if rule == "uniqueItems":
        return f"expected no item twice, got {shown}"
    return f"{shown} breaks the schema's `{rule}` rule ({_json(wanted)})"


def _json(value: object) -> str:
    shown = json.dumps(value, ensure_ascii=False)
    return shown if len(shown) <= 120 else f"{shown[:100]}… ({len(shown)} characters)"


def _a(kind: str) -> str:
    return f"an {kind}" if kind[0] in "aeiou" else ("null" if kind == "null" else f"a {kind}")


def _plural(count: int, noun: str) -> str:
    return f"{count} {noun}" if count == 1 else f"{count} {noun}s"


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
    if case.level == "required":
        problems += _cite_problems(case)
    for name in case.data.get("trusted", []):
        if name not in named:
            problems.append(f"trusted: {_json(name)} is not one of the case's packages")
    for number, step in enumerate(case.steps):
        operation = step[operation_of(step)]
        if "package" in operation and operation["package"] not in named:
            problems.append(
                f"steps/{number}: {_json(operation['package'])} is not one of the case's packages"
            )
        texts = [*operation.get("args", []), *([operation["stdin"]] if "stdin" in operation else [])]
        if any(text_length(value) > MAX_TEXT_CHARS for value in texts):
            problems.append(f"steps/{number}: a text is longer than {MAX_TEXT_CHARS} characters")
        problems += _absence_problems(case, number, step["expect"])
    return problems


def seed_passages(collection: Path) -> list[str] | None:
    """The passages of the seed that the collection's required cases may cite (None: no list)."""
    path = collection / SEED_PASSAGES
    if not path.is_file():
        return None
    return [passage["text"] for passage in json.loads(path.read_text(encoding="utf-8"))["passages"]]


def _cite_problems(case: Case) -> list[str]:
    passages = seed_passages(case.collection)
    cite = case.data["cite"]
    if passages is None or any(cite in passage for passage in passages):
        return []
    return [f"cite: {_json(cite)} is not the seed's words: it is part of no passage in {SEED_PASSAGES}"]


def _absence_problems(case: Case, number: int, expect: dict[str, Any]) -> list[str]:
    """An expectation that something is not there passes whatever a typo names, so it must name
    what the case builds: a folder `packages` expects unlisted holds an APP.md in the case, and a
    pointer into `packages` names one of the case's packages."""
    problems = []
    for key, wanted in expect.get("packages", {}).items():
        name, _, inside = key.partition("/")
        if name not in case.packages:
            problems.append(f"steps/{number}/expect/packages: {_json(key)} is in none of the case's packages")
        elif wanted is None and not _builds(case, name, f"{inside}/APP.md" if inside else "APP.md"):
            problems.append(
                f"steps/{number}/expect/packages/{key}: expected not listed, but the case puts no APP.md"
                " there, so no runtime would list it (a typo?)"
            )
    for field in ("absent", "types"):
        pointers = expect.get(field, {})
        for pointer in pointers:
            tokens = [token.replace("~1", "/").replace("~0", "~") for token in pointer.split("/")[1:]]
            if tokens[0] == "packages" and len(tokens) > 1 and tokens[1].split("/")[0] not in case.packages:
                problems.append(
                    f"steps/{number}/expect/{field}: {_json(pointer)} names none of the case's packages"
                )
    return problems


def _builds(case: Case, name: str, relative: str) -> bool:
    """Whether the case's folder for the package will hold `relative`: copied, written or made."""
    package = case.packages[name]
    if relative in package.get("files", {}) or relative in package.get("fifos", []):
        return True
    return "from" in package and os.path.lexists(case.suite_root / package["from"] / relative)
