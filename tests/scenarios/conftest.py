"""The scenario files under scenarios/, loaded once for every test here."""

from __future__ import annotations

from functools import cache
from pathlib import Path

from agentapps.scenarios import Scenario, load_scenario, scenario_files

SCENARIOS = Path(__file__).resolve().parents[2] / "scenarios"
FILES = scenario_files([SCENARIOS])
PACKAGES = ["agentic-to-do", "agentic-notes", "agentic-timer"]


@cache
def loaded() -> tuple[Scenario, ...]:
    return tuple(load_scenario(path) for path in FILES)
