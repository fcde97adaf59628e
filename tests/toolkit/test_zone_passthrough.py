"""The user's zone (`TZ`, `AGENTIC_TZ`) reaches the app through every path of the runtime:
`agentapps run`, `replay` warm and cold, and `mcp` warm and cold. What shows it: at 20:00 in New
York on 2026-11-30 (01:00Z on 12-01), a to-do due 2026-11-30 is not yet overdue; in UTC it is."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from agentapps.environment import without_agentic
from agentapps.replay import replay
from agentapps.runtimes import builtin_runtime
from agentapps.scenarios import load_scenario
from agentapps.warm import WarmRuntime
from tests.toolkit.conftest import SUITE
from tests.toolkit.test_mcp import in_this_process

NOW = "2026-12-01T01:00:00Z"
AGENTAPPS = str(Path(sys.executable).parent / "agentapps")
# (zone settings, how many to-dos are overdue): New York by either setting, else UTC.
ZONES = [
    ({"AGENTIC_TZ": "America/New_York"}, 0),
    ({"TZ": "America/New_York", "AGENTIC_TZ": ""}, 0),
    ({"TZ": "UTC", "AGENTIC_TZ": ""}, 1),
    ({"TZ": "America/New_York", "AGENTIC_TZ": "UTC"}, 1),
]


def environment(state: Path, zone: dict[str, str]) -> dict[str, str]:
    return {**without_agentic(), "AGENTIC_STATE_DIR": str(state), "AGENTIC_NOW": NOW, **zone}


def agentapps_run(env: dict[str, str], *args: str) -> dict[str, Any]:
    completed = subprocess.run(
        [AGENTAPPS, "run", str(SUITE / "agentic-to-do"), "--", *args],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    document: dict[str, Any] = json.loads(completed.stdout)
    return document


@pytest.mark.parametrize(("zone", "overdue"), ZONES)
def test_agentapps_run_passes_the_zone(tmp_path: Path, zone: dict[str, str], overdue: int) -> None:
    env = environment(tmp_path, zone)
    assert agentapps_run(env, "add", "pay rent", "--due-at", "2026-11-30")["ok"] is True
    assert agentapps_run(env, "list", "--overdue")["count"] == overdue


@pytest.mark.parametrize("warm", [True, False], ids=["warm", "cold"])
def test_replay_passes_a_scenarios_zone_and_pins_utc_otherwise(tmp_path: Path, warm: bool) -> None:
    """The scenario's AGENTIC_TZ reaches the app; without one, replay sets UTC, whatever the
    caller's TZ."""
    scenario = load_scenario(
        SUITE / "agentic-to-do/scenarios/a-date-due-lasts-through-the-users-day-west-of-utc.json"
    )
    pinned = load_scenario(
        SUITE
        / "agentic-to-do/scenarios/list-overdue-lets-a-date-due-last-its-whole-day-in-the-users-zone.json"
    )
    saved = os.environ.get("TZ")
    os.environ["TZ"] = "Pacific/Kiritimati"  # UTC+14: a caller's zone that would move every day
    try:
        with WarmRuntime() as runtime:
            chosen = builtin_runtime(warm=runtime if warm else None)
            reports = [replay(scenario, chosen), replay(pinned, chosen)]
    finally:
        if saved is None:
            del os.environ["TZ"]
        else:
            os.environ["TZ"] = saved
    assert [report.passed for report in reports] == [True, True], [report.summary() for report in reports]


@pytest.mark.parametrize("cold", [False, True], ids=["warm", "cold"])
@pytest.mark.parametrize(("zone", "overdue"), ZONES[:3])
def test_mcp_passes_the_zone(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, cold: bool, zone: dict[str, str], overdue: int
) -> None:
    args = [*(["--cold"] if cold else []), str(SUITE / "agentic-to-do")]
    for name in set(os.environ) - set(without_agentic()):
        monkeypatch.delenv(name)  # the server's environment: this test's zone and clock, no other setting

    async def main() -> int:
        async with in_this_process(tmp_path, args, {"AGENTIC_NOW": NOW, **zone}) as session:
            await session.call_tool("agentic_to_do__add", {"title": "pay rent", "due_at": "2026-11-30"})
            listed: Any = (
                await session.call_tool("agentic_to_do__list", {"overdue": True})
            ).structured_content
            return int(listed["count"])

    assert asyncio.run(asyncio.wait_for(main(), timeout=120)) == overdue
