"""Agentic Timer through the agentapps harness: each run gets its own state folder.

The behaviour lives in ../scenarios/ as data, one behaviour per file; each replays here as its
own test (and `agentapps replay scenarios` replays them through real processes, or through any
other runtime). Python keeps what data cannot say.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from agentapps.harness import AppRunner, in_process_runtime
from agentapps.replay import replay
from agentapps.scenarios import load_scenario

PACKAGE = Path(__file__).resolve().parents[1]
SCENARIOS = sorted((PACKAGE / "scenarios").glob("*.json"))


@pytest.fixture
def app(app_runner: Callable[[str], AppRunner]) -> AppRunner:
    return app_runner(str(PACKAGE))


def test_there_are_scenarios_to_replay() -> None:
    assert SCENARIOS, f"no scenarios in {PACKAGE / 'scenarios'}"


@pytest.mark.parametrize("path", SCENARIOS, ids=[path.stem for path in SCENARIOS])
def test_scenario(path: Path) -> None:
    report = replay(load_scenario(path), in_process_runtime)
    assert report.passed, report.summary()


def test_a_real_process_speaks_the_same_envelope(app: AppRunner) -> None:
    assert app.run_subprocess("start", "From a process").item["id"] == "tm_0001"
