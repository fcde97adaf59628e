"""Scenarios: a package's behaviour as data, replayed through any runtime.

A scenario (one JSON file, format in scenario.schema.json) names a package and lists steps:
arguments, optional stdin, clock (`now`), environment and lock files held by "another writer",
and the exit status and envelope each step must give, exactly or as a subset. `replay` runs
the steps in order from a fresh state folder and reports, per step, every difference from what
was expected:
- the exit status and the envelope (by JSON path: `item.body: expected "a", got "b"`),
- contract violations in the output (not one JSON document, `ok` against the exit status,
  an envelope that does not match the package's schemas/),
- a failing step that changed the state folder (a failure must change nothing).

A runtime is anything that runs a package's command line: the built-in one (`invoke`, cold or
warm), an external command (`command_runtime`: `CMD PACKAGE_PATH ARG...`), or the harness's in-process one.
"""

from __future__ import annotations

import contextlib
import json
import re
import shlex
import tempfile
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any

from .environment import admitted, package_environment
from .manifest import ManifestError, load_app_manifest
from .process import TimedOut, run_bounded
from .runtime import (
    MAX_NESTING,
    NOT_JSON,
    Invocation,
    Package,
    RunOptions,
    RunTimedOut,
    finished_invocation,
    invoke,
    nesting,
)
from .warm import WarmRuntime

SCHEMA_PATH = Path(__file__).with_name("scenario.schema.json")
STATE_DIR_ENV = "AGENTIC_STATE_DIR"
NOW_ENV = "AGENTIC_NOW"
# All the texts of a scenario (arguments, stdin, files) together are at most this many characters
# once their repeats are expanded: a scenario is checked against it before anything is built or run.
MAX_TEXT_CHARS = 64 * 1024 * 1024
# A scenario file is read only up to this size, and nested at most this deep (an expected envelope
# sits five levels in, and an app's document may nest MAX_NESTING levels).
MAX_SCENARIO_BYTES = 16 * 1024 * 1024
MAX_SCENARIO_NESTING = MAX_NESTING + 10
# A scenario's env never moves the state out of its own folder, nor sets the clock (`now` does).
STATE_FILE_ENV = re.compile(r"AGENTIC_.*_STATE_FILE")

# (package root, args, stdin, environment overrides) -> what came back.
Runtime = Callable[[Path, list[str], str, dict[str, str]], Invocation]


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
    def steps(self) -> list[dict[str, Any]]:
        return list(self.data["steps"])

    @property
    def name(self) -> str:
        """`<package slug>/<file stem>`: how tests and reports name a scenario."""
        return f"{self.package}/{self.path.stem}"


@dataclass
class StepReport:
    step: int  # 1-based
    args: list[str]
    differences: list[str]
    exit_status: int | None = None
    stdout: str = ""
    stderr: str = ""

    def as_dict(self) -> dict[str, Any]:
        return {
            "step": self.step,
            "args": [_shorten(arg) for arg in self.args],
            "differences": self.differences,
            "exitStatus": self.exit_status,
            "stdout": _shorten(self.stdout, 2000),
            "stderr": _shorten(self.stderr, 2000),
        }


@dataclass
class ScenarioReport:
    path: Path
    package: str
    steps: int
    failure: StepReport | None = None
    problem: str | None = None  # the scenario could not be replayed at all
    passed_steps: int = 0

    @property
    def passed(self) -> bool:
        return self.failure is None and self.problem is None

    def as_dict(self) -> dict[str, Any]:
        return {
            "path": str(self.path),
            "package": self.package,
            "passed": self.passed,
            "steps": self.steps,
            "passedSteps": self.passed_steps,
            "problem": self.problem,
            "failure": None if self.failure is None else self.failure.as_dict(),
        }

    def summary(self) -> str:
        """One readable paragraph: what failed, where, and why."""
        if self.problem is not None:
            return f"{self.path}: {self.problem}"
        if self.failure is None:
            return f"{self.path}: passed ({self.steps} steps)"
        lines = [f"{self.path}, step {self.failure.step} of {self.steps}: {shlex.join(self.failure.args)}"]
        lines += [f"  {difference}" for difference in self.failure.differences]
        return "\n".join(_shorten(line, 400) for line in lines)


# Loading.


@cache
def _validator() -> Any:
    from jsonschema import Draft202012Validator

    return Draft202012Validator(json.loads(SCHEMA_PATH.read_text(encoding="utf-8")))


def schema_problems(data: object) -> list[str]:
    """Where `data` breaks the scenario schema, one line each (empty when it fits)."""
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
    contradiction = _contradiction(data)
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
    """The .json files named, and every .json file under the folders named, sorted."""
    found: list[Path] = []
    for path in paths:
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


def builtin_runtime(options: RunOptions | None = None, warm: WarmRuntime | None = None) -> Runtime:
    """The reference runtime (runtime.invoke): entry.command from the package root; with `warm`, a
    Python package runs in a child of its warm process (warm.py), with the same result."""
    chosen = options or RunOptions()

    def run(root: Path, args: list[str], stdin: str, overrides: dict[str, str]) -> Invocation:
        return invoke(
            Package(root),
            args,
            env=_environment(overrides, chosen),
            stdin=stdin,
            timeout=chosen.timeout,
            max_output=chosen.max_output,
            warm=warm,
        )

    return run


def command_runtime(command: str, options: RunOptions | None = None) -> Runtime:
    """Another runtime, as a command line: `COMMAND PACKAGE_PATH ARG...`, given the step's stdin
    and environment, bounded like a package run; it must relay the app's stdout and exit status."""
    prefix = shlex.split(command)
    chosen = options or RunOptions()

    def run(root: Path, args: list[str], stdin: str, overrides: dict[str, str]) -> Invocation:
        try:
            finished = run_bounded(
                [*prefix, str(root), *args],
                cwd=Path.cwd(),
                env=_environment(overrides, chosen),
                stdin=stdin.encode(),
                timeout=chosen.timeout,
                max_output=chosen.max_output,
            )
        except TimedOut:
            raise RunTimedOut(f"{shlex.join(prefix)} ran past {chosen.timeout:g} s") from None
        return finished_invocation(Package(root), args, finished, chosen.max_output)

    return run


def _environment(overrides: Mapping[str, str], options: RunOptions) -> dict[str, str]:
    """The allow-listed environment without this process's own AGENTIC_* settings, the variables
    named with --env, then the scenario's and the step's (which load_scenario has held to the
    allow-list; held again here, for a scenario built in code)."""
    admitted_overrides = {name: value for name, value in overrides.items() if admitted(name)}
    return package_environment(options.env_names, overrides=admitted_overrides, inherit_agentic=False)


# Replay.


def replay(scenario: Scenario, runtime: Runtime, *, packages: Path | None = None) -> ScenarioReport:
    """Run every step from a fresh state folder; stop at the first step that differs."""
    report = ScenarioReport(scenario.path, scenario.package, len(scenario.steps))
    try:
        root = find_package(scenario, packages)
    except ScenarioError as error:
        report.problem = str(error)
        return report
    with tempfile.TemporaryDirectory(prefix="agentapps-scenario-") as temp:
        state_dir = Path(temp) / "state"
        state_dir.mkdir()
        for name in scenario.data.get("folders", []):
            (state_dir / name).mkdir(exist_ok=True)
        for name, content in scenario.data.get("files", {}).items():
            (state_dir / name).write_bytes(text(content).encode("utf-8"))
        for number, step in enumerate(scenario.steps, start=1):
            failure = replay_step(scenario, step, number, root, state_dir, runtime)
            if failure is not None:
                report.failure = failure
                return report
            report.passed_steps = number
    return report


def replay_step(
    scenario: Scenario, step: dict[str, Any], number: int, root: Path, state_dir: Path, runtime: Runtime
) -> StepReport | None:
    """One step: run it and compare. None when it gave what was expected."""
    args = [text(arg) for arg in step["args"]]
    overrides = {**scenario.data.get("env", {}), **step.get("env", {}), STATE_DIR_ENV: str(state_dir)}
    now = step.get("now", scenario.data.get("now"))
    if now is not None:
        overrides[NOW_ENV] = now
    expect = step["expect"]
    before = _snapshot(state_dir) if expect["exit"] != 0 else None
    try:
        with _held_locks([state_dir / name for name in step.get("locked", [])]):
            invocation = runtime(root, args, text(step.get("stdin", "")), overrides)
    except (RunTimedOut, OSError) as error:
        return StepReport(number, args, [f"the runtime failed: {error}"])
    differences = [f"contract: {violation}" for violation in invocation.violations]
    if invocation.exit_status != expect["exit"]:
        differences.append(f"exit status: expected {expect['exit']}, got {invocation.exit_status}")
    if invocation.document is NOT_JSON:
        if not invocation.violations:  # a failure may print text; the scenario expects an envelope
            differences.append(f"envelope: expected a JSON document, got {_show(invocation.stdout)}")
    else:
        differences += envelope_differences(
            expect["envelope"], invocation.document, expect["match"] == "subset"
        )
    if before is not None and _snapshot(state_dir) != before:
        differences.append("state: a failing step changed the state folder; a failure must change nothing")
    if not differences:
        return None
    return StepReport(number, args, differences, invocation.exit_status, invocation.stdout, invocation.stderr)


@contextlib.contextmanager
def _held_locks(paths: list[Path]) -> Iterator[None]:
    """Hold an exclusive flock on each file while the step runs, as another writer would. flock
    locks belong to the open file, so the app conflicts with them even in this process."""
    import fcntl

    with contextlib.ExitStack() as stack:
        for path in paths:
            handle = stack.enter_context(path.open("a"))
            fcntl.flock(handle, fcntl.LOCK_EX)
            stack.callback(fcntl.flock, handle, fcntl.LOCK_UN)
        yield


def _snapshot(state_dir: Path) -> dict[str, bytes]:
    """Every file in the state folder and its bytes. Lock files are left out: taking the lock is
    not a change of state."""
    return {
        str(path.relative_to(state_dir)): path.read_bytes()
        for path in sorted(state_dir.rglob("*"))
        if path.is_file() and not path.name.endswith(".lock")
    }


def envelope_differences(expected: Any, actual: Any, subset: bool, where: str = "envelope") -> list[str]:
    """Every place `actual` differs from `expected`, by JSON path. In a subset match objects may
    hold more keys; arrays always have the same length. `true` never equals `1`."""
    if isinstance(expected, dict):
        if not isinstance(actual, dict):
            return [f"{where}: expected an object, got {_show(actual)}"]
        differences = []
        for key, value in expected.items():
            if key not in actual:
                differences.append(f"{where}.{key}: missing (expected {_show(value)})")
            else:
                differences += envelope_differences(value, actual[key], subset, f"{where}.{key}")
        if not subset:
            differences += [
                f"{where}.{key}: not expected, got {_show(actual[key])}"
                for key in actual
                if key not in expected
            ]
        return differences
    if isinstance(expected, list):
        if not isinstance(actual, list):
            return [f"{where}: expected an array, got {_show(actual)}"]
        if len(expected) != len(actual):
            count = f"{len(expected)} element" + ("" if len(expected) == 1 else "s")
            return [f"{where}: expected {count}, got {len(actual)}: {_show(actual)}"]
        differences = []
        for index, (wanted, got) in enumerate(zip(expected, actual, strict=True)):
            differences += envelope_differences(wanted, got, subset, f"{where}[{index}]")
        return differences
    if type(expected) is not type(actual) and not (_is_number(expected) and _is_number(actual)):
        return [f"{where}: expected {_show(expected)}, got {_show(actual)}"]
    if expected != actual:
        return [f"{where}: expected {_show(expected)}, got {_show(actual)}"]
    return []


def _is_number(value: object) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def _show(value: object) -> str:
    return _shorten(json.dumps(value, ensure_ascii=False), 200)


def _shorten(value: str, limit: int = 200) -> str:
    return value if len(value) <= limit else f"{value[: limit - 20]}… ({len(value)} characters)"


@dataclass
class ReplayRun:
    """Several scenarios replayed: their reports, in order."""

    reports: list[ScenarioReport] = field(default_factory=list)

    @property
    def failed(self) -> list[ScenarioReport]:
        return [report for report in self.reports if not report.passed]


def replay_all(
    scenarios: Sequence[Scenario], runtime: Runtime, *, packages: Path | None = None, jobs: int = 1
) -> ReplayRun:
    """Replay each scenario (each from its own state folder, so they may run side by side)."""
    if jobs <= 1:
        return ReplayRun([replay(scenario, runtime, packages=packages) for scenario in scenarios])
    from concurrent.futures import ThreadPoolExecutor

    with ThreadPoolExecutor(max_workers=jobs) as pool:
        return ReplayRun(
            list(pool.map(lambda scenario: replay(scenario, runtime, packages=packages), scenarios))
        )
