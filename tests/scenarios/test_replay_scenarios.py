"""Every scenario under scenarios/, replayed in this process, each as its own test."""

from __future__ import annotations

from pathlib import Path

import pytest

from agentapps.harness import in_process_runtime
from agentapps.scenarios import load_scenario, replay, scenario_name

from .conftest import FILES, PACKAGES


def test_every_package_has_its_scenarios() -> None:
    """A guard: an empty or misplaced folder must fail here, not leave nothing to replay."""
    for package in PACKAGES:
        assert len([path for path in FILES if path.parent.name == package]) >= 20, package


@pytest.mark.parametrize("path", FILES, ids=[scenario_name(path) for path in FILES])
def test_scenario(path: Path) -> None:
    report = replay(load_scenario(path), in_process_runtime)
    assert report.passed, report.summary()
