"""Scenarios: a package's behaviour as data, and how a scenario file is read.

A scenario (one JSON file, format in scenario.schema.json) names a package and lists steps:
arguments, optional stdin, clock (`now`), environment and lock files held by "another writer",
and the exit status and envelope each step must give, exactly or as a subset. `load_scenario`
checks a file whole before anything runs; `find_package` finds the package it names. Replaying
one is replay.py's, through a runtime of runtimes.py.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

from .environment import admitted
from .manifest import ManifestError, load_app_manifest
from .output import MAX_NESTING, nesting
from .package import failed_inside
from .seed_level import seed_problem

SCHEMA_PATH = Path(__file__).with_name("scenario.schema.json")
STATE_DIR_ENV = "AGENTIC_STATE_DIR"
NOW_ENV = "AGENTIC_NOW"
# Every step runs in this zone unless its scenario's or its own env sets AGENTIC_TZ, so that a
# scenario's days are the same on every machine and in every runtime.
ZONE_ENV = "AGENTIC_TZ"
PINNED_ZONE = "UTC"
# All the texts of a scenario (arguments, stdin, files) together are at most this many characters
# once their repeats are expanded: a scenario is checked against it before anything is built or run.
MAX_TEXT_CHARS = 64 * 1024 * 1024
# A scenario file is read only up to this size, and nested at most this deep (an expected envelope
# sits five levels in, and an app's document may nest MAX_NESTING levels).
MAX_SCENARIO_BYTES = 16 * 1024 * 1024
MAX_SCENARIO_NESTING = MAX_NESTING + 10
# A scenario's env never moves the state out of its own folder, nor sets the clock (`now` does).
STATE_FILE_ENV = re.compile(r"AGENTIC_.*_STATE_FILE")


class ScenarioError(ValueError):
    """The file is not a scenario: unreadable, not JSON, against the schema, or its package is missing."""


@dataclass
class Scenario:
    path: Path
    data: dict[str, Any]

    @property
    def package(self) -> str:
        return str(self.data["package"])

    @property
    def level(self) -> str:
        """`seed` (any implementation of the seed's to-do must pass it) or `suite` (the default)."""
        return str(self.data.get("level", "suite"))

    @property
    def steps(self) -> list[dict[str, Any]]:
        return list(self.data["steps"])

    @property
    def name(self) -> str:
        """`<package slug>/<file stem>`: how tests and reports name a scenario."""
        return f"{self.package}/{self.path.stem}"


# Loading.


@cache
def _schema() -> Any:
    return json.loads(SCHEMA_PATH.read_text(encoding="utf-8"))


@cache
def _fits() -> Any:
    """jsonschema-rs's verdict on the schema: a scenario that fits is told in microseconds, where
    jsonschema's walk took about a millisecond a scenario (a test run loads every scenario in
    each of its processes). The schema's patterns are plain ASCII classes; where the two read
    them apart (Python's `$` also matches before a final newline), jsonschema-rs is the
    stricter, and the walk decides."""
    import jsonschema_rs

    return jsonschema_rs.validator_for(_schema(), validate_formats=False)


@cache
def _validator() -> Any:
    from jsonschema import Draft202012Validator

    return Draft202012Validator(_schema())


def schema_problems(data: object) -> list[str]:
    """Where `data` breaks the scenario schema, one line each (empty when it fits). Only a
    scenario that does not fit, or that jsonschema-rs cannot judge (a string holding a lone
    surrogate, which JSON allows and Rust's strings cannot hold), is walked by jsonschema, whose
    verdict is the one that counts and whose messages say where and why."""
    try:
        if _fits().is_valid(data):
            return []
    except BaseException as unjudged:  # not judged here: the walk below judges it
        if not failed_inside(unjudged):
            raise
    problems = []
    for error in sorted(_validator().iter_errors(data), key=lambda error: list(error.absolute_path)):
        where = "/".join(str(part) for part in error.absolute_path) or "(top)"
        problems.append(f"{where}: {error.message}")
    return problems


def load_scenario(path: Path) -> Scenario:
    """A scenario file, checked whole before anything is built or run: readable, JSON, the
    schema, an environment a runtime would pass, and texts that expand to a bounded size."""
    if not path.is_file():  # a FIFO named like a scenario would be waited on forever
        raise ScenarioError(f"{path}: not a regular file.")
    try:
        with path.open("rb") as handle:
            raw = handle.read(MAX_SCENARIO_BYTES + 1)
        if len(raw) > MAX_SCENARIO_BYTES:
            raise ScenarioError(f"{path}: longer than {MAX_SCENARIO_BYTES} bytes.")
        data = json.loads(raw.decode("utf-8"))
    except (OSError, UnicodeDecodeError) as error:
        raise ScenarioError(f"{path}: cannot be read ({error}).") from None
    except json.JSONDecodeError as error:
        raise ScenarioError(f"{path}: not JSON ({error}).") from None
    except RecursionError:
        raise ScenarioError(f"{path}: nested deeper than {MAX_SCENARIO_NESTING} levels.") from None
    if nesting(data) > MAX_SCENARIO_NESTING:
        raise ScenarioError(f"{path}: nested deeper than {MAX_SCENARIO_NESTING} levels.")
    for where, name in _env_names(data):
        if not admitted(name):
            raise ScenarioError(
                f"{path}: {where} sets {name}, which a runtime does not pass to an app "
                "(only its environment allow-list and AGENTIC_* settings)."
            )
        if name in (STATE_DIR_ENV, NOW_ENV) or STATE_FILE_ENV.fullmatch(name):
            raise ScenarioError(
                f"{path}: {where} sets {name}: a scenario's state stays in its own state folder, "
                "and its clock is `now`."
            )
    problems = schema_problems(data)
    if problems:
        raise ScenarioError(f"{path}: not a scenario: " + "; ".join(problems))
    contradiction = _contradiction(data) or seed_problem(data)
    if contradiction:
        raise ScenarioError(f"{path}: {contradiction}")
    length = sum(text_length(value) for _, value in _texts(data))
    if length > MAX_TEXT_CHARS:
        raise ScenarioError(
            f"{path}: its texts would expand to {length} characters; a scenario's texts together "
            f"are at most {MAX_TEXT_CHARS}."
        )
    return Scenario(path, data)


def _contradiction(data: dict[str, Any]) -> str | None:
    """Why a (schema-valid) scenario contradicts itself, or None: one state name made both a
    folder and a file, or a lock asked on a name `folders` makes a folder (a lock is a file).
    State names are plain file names (the schema's fileName), so no file can lie inside another."""
    folders = set(data.get("folders", []))
    both = sorted(folders & set(data.get("files", {})))
    if both:
        return f"{both[0]!r} is in both `folders` and `files`: a state name is a folder or a file, not both."
    for number, step in enumerate(data["steps"]):
        locked = sorted(folders & set(step.get("locked", [])))
        if locked:
            return (
                f"steps/{number}/locked names {locked[0]!r}, which `folders` makes a folder: "
                "a lock is held on a file."
            )
    return None


def _env_names(data: object) -> Iterator[tuple[str, str]]:
    """Every variable a scenario's `env` (or a step's) sets, with where, whatever else it holds."""
    if not isinstance(data, dict):
        return
    places = [("env", data.get("env"))]
    steps = data.get("steps")
    if isinstance(steps, list):
        places += [
            (f"steps/{number}/env", step.get("env"))
            for number, step in enumerate(steps)
            if isinstance(step, dict)
        ]
    for where, env in places:
        if isinstance(env, dict):
            yield from ((where, str(name)) for name in env)


def _texts(data: dict[str, Any]) -> Iterator[tuple[str, str | list[Any]]]:
    """Every text of a scenario that fits the schema, with where it is."""
    for name, content in data.get("files", {}).items():
        yield f"files/{name}", content
    for number, step in enumerate(data["steps"]):
        for index, arg in enumerate(step["args"]):
            yield f"steps/{number}/args/{index}", arg
        if "stdin" in step:
            yield f"steps/{number}/stdin", step["stdin"]


def scenario_files(paths: Iterable[Path]) -> list[Path]:
    """The .json files named, and every .json file under the folders named, sorted. A package
    folder (one holding APP.md) means its `scenarios/` folder: its other JSON files (the kit's
    sync record, schemas/) are not scenarios."""
    found: list[Path] = []
    for path in paths:
        if path.is_dir() and (path / "APP.md").is_file():
            path = path / "scenarios"
            if not path.is_dir():
                continue
        if path.is_dir():
            found += sorted(
                candidate for candidate in path.rglob("*.json") if candidate.name != SCHEMA_PATH.name
            )
        else:
            found.append(path)
    return found


def find_package(scenario: Scenario, packages: Path | None = None) -> Path:
    """The package the scenario names, by its slug: under `packages` when given (or `packages`
    itself); otherwise the nearest folder above the scenario file that is that package (a
    package keeps its scenarios inside, in `scenarios/`)."""
    slug = scenario.package
    candidates = (
        [packages / slug, packages] if packages is not None else list(scenario.path.resolve().parents)
    )
    for candidate in candidates:
        if (candidate / "APP.md").is_file() and _slug_of(candidate) == slug:
            return candidate.resolve()
    where = f"in or under {packages}" if packages is not None else "in any folder above the scenario"
    raise ScenarioError(f"{scenario.path}: no package {slug!r} found {where}.")


def _slug_of(package_root: Path) -> str | None:
    try:
        return load_app_manifest(package_root).slug
    except ManifestError:
        return None


def text_length(value: str | list[Any]) -> int:
    """How long `text(value)` would be, without building it."""
    if isinstance(value, str):
        return len(value)
    return sum(
        len(piece) if isinstance(piece, str) else len(piece["repeat"]) * piece["times"] for piece in value
    )


def text(value: str | list[Any]) -> str:
    """A scenario's text: a string, or pieces joined, where {"repeat": S, "times": N} is S N times."""
    if isinstance(value, str):
        return value
    return "".join(piece if isinstance(piece, str) else piece["repeat"] * piece["times"] for piece in value)


# Runtimes.


# Replay.
