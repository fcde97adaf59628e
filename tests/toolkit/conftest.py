"""Run the agentapps CLI in-process, the way the console script does, and read its envelope."""

from __future__ import annotations

import contextlib
import io
import json
import os
import sys
import threading
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from filelock import FileLock

from agentapps import cli
from agentapps import replay as replay_module
from agentapps.output import Invocation
from agentapps.replay import ScenarioReport
from agentapps.runtimes import Runtime
from agentapps.scenarios import Scenario
from agentic_kit import runner
from tests.packages import SCENARIO_FOLDERS

SUITE = Path(__file__).resolve().parents[2]
FIXTURES = SUITE / "tests" / "fixtures"


@dataclass
class ToolkitResult:
    exit_status: int
    envelope: dict[str, Any]

    @property
    def error_code(self) -> str | None:
        """The error's code; None for a success (a relayed app document may lack `ok`)."""
        failed = isinstance(self.envelope, dict) and self.envelope.get("ok") is False
        return self.envelope["error"]["code"] if failed else None


@pytest.fixture
def agentapps(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Callable[..., ToolkitResult]:
    """`agentapps(*args)`: one run of the CLI; apps it runs keep their state in a temp folder."""
    monkeypatch.setenv("AGENTIC_STATE_DIR", str(tmp_path / "state"))

    def run(*args: str) -> ToolkitResult:
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            status = runner.run(cli.app, list(args))
        return ToolkitResult(status, json.loads(out.getvalue()))

    return run


# What one step of a replay gave: its exit status, stdout and stderr, with its own state folder's
# path made neutral (each replay of a scenario has a state folder of its own).
StepOutcome = tuple[int, str, str]
# Each step's outcome, by scenario file and step number (from 1).
StepOutcomes = dict[tuple[str, int], StepOutcome]


def recording(runtime: Runtime, steps: list[StepOutcome]) -> Runtime:
    """`runtime`, unchanged, keeping what each call gave in `steps`."""

    def run(root: Path, args: list[str], stdin: str, overrides: dict[str, str]) -> Invocation:
        invocation = runtime(root, args, stdin, overrides)
        # A suite-level scenario's state folder, or the state file a seed-level one names.
        state = overrides.get("AGENTIC_STATE_DIR") or overrides.get("AGENTIC_TODO_STATE_FILE") or "\0"
        steps.append(
            (
                invocation.exit_status,
                invocation.stdout.replace(state, "<state>"),
                invocation.stderr.replace(state, "<state>"),
            )
        )
        return invocation

    return run


@dataclass(frozen=True)
class RecordedReplay:
    """One `agentapps replay` of every scenario, with what each of its steps gave."""

    result: ToolkitResult
    steps: StepOutcomes


@pytest.fixture(scope="session")
def warm_replay_of_every_scenario(tmp_path_factory: pytest.TempPathFactory) -> RecordedReplay:
    """`agentapps replay` of every package's scenarios through the built-in runtime's default (warm)
    path in real processes, two side by side, run once for the tests that read it: the replay test
    checks its envelope, the warm/cold identity test compares each step with a cold replay. Every
    runtime call is passed through as it is and only recorded on its way back. Under xdist the
    workers of one run share it: the first to need it makes it, holding a lock the others wait on,
    and leaves it in the run's own temp folder for them."""
    if os.environ.get("PYTEST_XDIST_WORKER") is None:
        return _replay_every_scenario(tmp_path_factory)
    shared = tmp_path_factory.getbasetemp().parent / "warm-replay-of-every-scenario.json"
    with FileLock(f"{shared}.lock"):
        if not shared.exists():
            made = _replay_every_scenario(tmp_path_factory)
            steps = [[path, number, *step] for (path, number), step in made.steps.items()]
            document = {"status": made.result.exit_status, "envelope": made.result.envelope, "steps": steps}
            shared.write_text(json.dumps(document), encoding="utf-8")
        document = json.loads(shared.read_text(encoding="utf-8"))
    return RecordedReplay(
        ToolkitResult(document["status"], document["envelope"]),
        {(path, number): (status, out, err) for path, number, status, out, err in document["steps"]},
    )


def _replay_every_scenario(tmp_path_factory: pytest.TempPathFactory) -> RecordedReplay:
    recorded: dict[str, list[StepOutcome]] = {}
    lock = threading.Lock()
    replay_one = replay_module.replay

    def replay_recording(
        scenario: Scenario, runtime: Runtime, *, packages: Path | None = None
    ) -> ScenarioReport:
        steps: list[StepOutcome] = []
        report = replay_one(scenario, recording(runtime, steps), packages=packages)
        with lock:
            recorded[str(scenario.path)] = steps
        return report

    fixtures = str(SUITE / "tests" / "fixtures")
    with pytest.MonkeyPatch.context() as patch:
        # What the replay test's own fixtures give a test: its state folder, the fixtures trusted
        # (tests/conftest.py), and this interpreter first on PATH (test_replay.py).
        patch.setenv("AGENTIC_STATE_DIR", str(tmp_path_factory.mktemp("warm-replay") / "state"))
        given = os.environ.get("AGENTAPPS_TRUSTED")
        patch.setenv("AGENTAPPS_TRUSTED", os.pathsep.join(filter(None, [fixtures, given])))
        patch.setenv("PATH", os.pathsep.join([str(Path(sys.executable).parent), os.environ["PATH"]]))
        patch.setattr(replay_module, "replay", replay_recording)
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            status = runner.run(cli.app, ["replay", *map(str, SCENARIO_FOLDERS), "--jobs", "2"])
    steps = {
        (path, number): step
        for path, outcomes in recorded.items()
        for number, step in enumerate(outcomes, start=1)
    }
    return RecordedReplay(ToolkitResult(status, json.loads(out.getvalue())), steps)
