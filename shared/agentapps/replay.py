"""Replay: a scenario's steps run in order through a runtime (runtimes.py) from a fresh state
folder, and, per step, every difference from what was expected:
- the exit status and the envelope (by JSON path, differences.py),
- contract violations in the output (not one JSON document, `ok` against the exit status,
  an envelope that does not match the package's schemas/),
- a failing step that changed the state folder (a failure must change nothing).
"""

from __future__ import annotations

import contextlib
import shlex
import tempfile
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .differences import envelope_differences, shorten, show
from .errors import ToolkitError
from .output import NOT_JSON
from .runtime import RunTimedOut
from .runtimes import Runtime
from .scenarios import (
    NOW_ENV,
    PINNED_ZONE,
    STATE_DIR_ENV,
    ZONE_ENV,
    Scenario,
    ScenarioError,
    find_package,
    text,
)
from .seed_level import STATE_FILE_ENV as SEED_STATE_FILE_ENV
from .seed_level import STATE_FILE_NAME, seed_differences
from .snapshot import folder_snapshot


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
            "args": [shorten(arg) for arg in self.args],
            "differences": self.differences,
            "exitStatus": self.exit_status,
            "stdout": shorten(self.stdout, 2000),
            "stderr": shorten(self.stderr, 2000),
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
        if self.problem is not None:  # named once, where the problem names it already
            said = self.problem
            return said if said.startswith(f"{self.path}: ") else f"{self.path}: {said}"
        if self.failure is None:
            return f"{self.path}: passed ({self.steps} steps)"
        lines = [f"{self.path}, step {self.failure.step} of {self.steps}: {shlex.join(self.failure.args)}"]
        lines += [f"  {difference}" for difference in self.failure.differences]
        return "\n".join(shorten(line, 400) for line in lines)


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
        if scenario.level == "seed":
            return _replay_seed_level(scenario, report, root, state_dir / STATE_FILE_NAME, runtime)
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
    overrides = {
        ZONE_ENV: PINNED_ZONE,
        **scenario.data.get("env", {}),
        **step.get("env", {}),
        STATE_DIR_ENV: str(state_dir),
    }
    now = step.get("now", scenario.data.get("now"))
    if now is not None:
        overrides[NOW_ENV] = now
    expect = step["expect"]
    before = folder_snapshot(state_dir) if expect["exit"] != 0 else None
    try:
        with _held_locks([state_dir / name for name in step.get("locked", [])]):
            invocation = runtime(root, args, text(step.get("stdin", "")), overrides)
    except (RunTimedOut, OSError) as error:
        return StepReport(number, args, [f"the runtime failed: {error}"])
    except ToolkitError as error:  # the runtime's own failure once the app had run (runtime.invoke)
        return StepReport(number, args, [f"the runtime failed: {error.code}: {error.message}"])
    differences = [f"contract: {violation}" for violation in invocation.violations]
    if invocation.exit_status != expect["exit"]:
        differences.append(f"exit status: expected {expect['exit']}, got {invocation.exit_status}")
    if invocation.document is NOT_JSON:
        if not invocation.violations:  # a failure may print text; the scenario expects an envelope
            differences.append(f"envelope: expected a JSON document, got {show(invocation.stdout)}")
    else:
        differences += envelope_differences(
            expect["envelope"], invocation.document, expect["match"] == "subset"
        )
    if before is not None and folder_snapshot(state_dir) != before:
        differences.append("state: a failing step changed the state folder; a failure must change nothing")
    if not differences:
        return None
    return StepReport(number, args, differences, invocation.exit_status, invocation.stdout, invocation.stderr)


def _replay_seed_level(
    scenario: Scenario, report: ScenarioReport, root: Path, state_file: Path, runtime: Runtime
) -> ScenarioReport:
    """A seed-level scenario (seed_level.py): the state through the seed's own override only, no
    clock and no zone pinned, exit statuses as zero/non-zero, instants by form and order."""
    instants: dict[str, str] = {}
    for number, step in enumerate(scenario.steps, start=1):
        failure = _seed_step(step, number, root, state_file, runtime, instants)
        if failure is not None:
            report.failure = failure
            return report
        report.passed_steps = number
    return report


def _seed_step(
    step: dict[str, Any],
    number: int,
    root: Path,
    state_file: Path,
    runtime: Runtime,
    instants: dict[str, str],
) -> StepReport | None:
    args = [text(arg) for arg in step["args"]]
    try:
        invocation = runtime(root, args, text(step.get("stdin", "")), {SEED_STATE_FILE_ENV: str(state_file)})
    except (RunTimedOut, OSError) as error:
        return StepReport(number, args, [f"the runtime failed: {error}"])
    except ToolkitError as error:
        return StepReport(number, args, [f"the runtime failed: {error.code}: {error.message}"])
    differences = [f"contract: {violation}" for violation in invocation.violations]
    expect = step["expect"]
    if (invocation.exit_status == 0) != (expect["exit"] == 0):
        wanted = "0" if expect["exit"] == 0 else "a non-zero status"
        differences.append(f"exit status: expected {wanted}, got {invocation.exit_status}")
    if invocation.document is NOT_JSON:
        if not invocation.violations:
            differences.append(f"envelope: expected a JSON document, got {show(invocation.stdout)}")
    else:
        differences += seed_differences(expect["envelope"], invocation.document, instants)
    if "stateFile" in step and state_file.exists() != step["stateFile"]:
        differences.append(
            f"state: {SEED_STATE_FILE_ENV} names {state_file}, which "
            + ("does not exist; the state was not stored there" if step["stateFile"] else "exists")
        )
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
