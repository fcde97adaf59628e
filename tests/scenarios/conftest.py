"""The scenario files of every package (each in its own scenarios/), loaded once for every test here."""

from __future__ import annotations

from functools import cache

from agentapps.scenarios import Scenario, load_scenario, scenario_files
from tests.packages import SCENARIO_FOLDERS

FILES = scenario_files(SCENARIO_FOLDERS)


@cache
def loaded() -> tuple[Scenario, ...]:
    return tuple(load_scenario(path) for path in FILES)
