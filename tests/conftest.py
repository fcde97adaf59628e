"""Shared fixtures. The harness's own fixtures (`app_runner`) come from the `agentapps.harness`
pytest plugin, which the root pyproject registers; every app run gets its own state folder."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import Protocol, TypeVar

import pytest

from agentapps.harness import AppRunner

from .packages import APPS, AppFacts

FIXTURES = Path(__file__).resolve().parent / "fixtures"
# The parallel pass's order. xdist's worksteal hands each worker one stretch of the collected
# order (the first worker the first N // workers tests, the next its share of the rest) and a
# worker that runs out takes the last half of the longest queue left, never its head. The pass is
# bound by the CPU, so the order keeps both cores busy to the end.
#
# LONG_FIRST: the tests that take many seconds of CPU each (`--durations`), by node id or its
# start, at the head of the first stretch, longest first: the identity slices keep two processes
# busy one after another there, and short tests at the end even out the workers (a long test at
# the end would leave one core idle while the other runs it). Dealt out over both workers
# instead, the slices ran side by side first and the waiting tests after, and the pass took 380 s
# against 353 in a fresh-clone run each.
LONG_FIRST = (
    "tests/toolkit/test_warm.py::test_every_scenario_gives_the_same_bytes_warm_and_cold",
    "tests/toolkit/test_install.py",
    "tests/conformance/test_adapters.py::test_agentapps_passes_every_case_through_its_command_line",
    "tests/toolkit/test_replay.py::test_a_runtime_given_as_a_command_replays_the_same_scenarios",
    "tests/conformance/test_adapters.py::test_the_minimal_node_runtime_passes_every_required_case",
    "tests/toolkit/test_new.py::test_a_new_package_passes_check_and_its_own_test",
    "tests/toolkit/test_replay.py::test_every_scenario_passes_through_the_built_in_runtime_in_real_processes",
)
# WAIT_EARLY: the tests that spend seconds waiting out a bound (a hang, a timeout, a held stdout)
# and little CPU, at the head of the second stretch: they wait while the identity slices keep both
# cores busy. Left where they were collected, most of them ran last, and the last minute of the
# pass used about one core of two (a run timed test by test: 60 s at 1 core, 70 s of waiting).
WAIT_EARLY = (
    "tests/conformance/test_adapters.py::test_a_wrong_adapter_fails_exactly_the_cases_of_its_flaw",
    "tests/toolkit/test_mcp.py::test_start_up_runs_describe_side_by_side_and_survives_broken_packages",
    "tests/toolkit/test_warm.py::test_a_hostile_package_is_bounded_warm_as_it_is_cold",
    "tests/toolkit/test_hostile_packages.py::test_check_as_a_whole_is_bounded",
    "tests/toolkit/test_fixtures.py::test_check_finds_exactly_the_fault",
    "tests/toolkit/test_fixtures.py::test_run_relays_success_or_reports_the_fault",
    "tests/toolkit/test_mcp.py::test_start_up_is_bounded_by_the_timeout_however_many_describes_hang",
    "tests/toolkit/test_warm.py::test_a_package_whose_warm_start_is_slow_runs_cold_until_it_is_ready",
    "tests/reliability/test_saved_change_refusals.py::test_a_timed_out_change_says_it_may_have_taken_effect",
    "tests/toolkit/test_mcp.py::test_a_signal_with_a_call_in_flight_ends_the_call_then_the_server",
)


class Named(Protocol):
    """What ordering reads of a test: its node id."""

    @property
    def nodeid(self) -> str: ...


TestT = TypeVar("TestT", bound=Named)


def _rank(item: Named) -> int:
    """The place in LONG_FIRST of the name that finds `item`; any other test ranks after them all."""
    return next(
        (rank for rank, name in enumerate(LONG_FIRST) if item.nodeid.startswith(name)), len(LONG_FIRST)
    )


def parallel_order(items: list[TestT], workers: int) -> list[TestT]:
    """LONG_FIRST's tests first, longest first; WAIT_EARLY's at the head of the second worker's
    stretch (after LONG_FIRST's when there is one worker); every other test in its collected
    order. Only the order changes: the same tests, each once."""
    ordered = sorted(items, key=_rank)  # a stable sort
    waiting = [item for item in ordered if item.nodeid.startswith(WAIT_EARLY)]
    rest = [item for item in ordered if not item.nodeid.startswith(WAIT_EARLY)]
    long = sum(1 for item in rest if _rank(item) < len(LONG_FIRST))
    # worksteal's first worker gets len // workers of the tests: the second stretch starts there.
    second = max(len(items) // workers, long) if workers > 1 else long
    return rest[:second] + waiting + rest[second:]


@pytest.hookimpl(trylast=True)  # after `-m` has deselected: the stretches are of what runs
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    workers = getattr(config, "workerinput", {}).get("workercount", 1)
    items[:] = parallel_order(items, workers)


@pytest.fixture(autouse=True)
def fixtures_trusted(monkeypatch: pytest.MonkeyPatch) -> None:
    """The fixtures stand for other people's packages, so they are never `bundled`: the suite's
    tests run them as a user who trusts their folder (AGENTAPPS_TRUSTED) would. A test of the trust
    rule itself sets or clears the variable."""
    given = os.environ.get("AGENTAPPS_TRUSTED")
    monkeypatch.setenv("AGENTAPPS_TRUSTED", os.pathsep.join(filter(None, [str(FIXTURES), given])))


@pytest.fixture(scope="session")
def describe_cache_folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("describe-cache")


@pytest.fixture(autouse=True)
def describe_cache_kept_apart(monkeypatch: pytest.MonkeyPatch, describe_cache_folder: Path) -> None:
    """`agentapps mcp` keeps describes in the user's cache folder: the tests keep theirs in one of
    the session's own (AGENTAPPS_CACHE_DIR), never the user's."""
    monkeypatch.setenv("AGENTAPPS_CACHE_DIR", str(describe_cache_folder))


@pytest.fixture
def todo(app_runner: Callable[[str], AppRunner]) -> AppRunner:
    """agentic-to-do with a fresh, empty state folder."""
    return app_runner("agentic-to-do")


@pytest.fixture
def notes(app_runner: Callable[[str], AppRunner]) -> AppRunner:
    """agentic-notes with a fresh, empty state folder."""
    return app_runner("agentic-notes")


@pytest.fixture
def timer(app_runner: Callable[[str], AppRunner]) -> AppRunner:
    """agentic-timer with a fresh, empty state folder."""
    return app_runner("agentic-timer")


@pytest.fixture(params=APPS, ids=[facts.package for facts in APPS])
def facts(request: pytest.FixtureRequest) -> AppFacts:
    """Each package in turn, for the tests that hold for every package."""
    return request.param  # type: ignore[no-any-return]


@pytest.fixture
def app(facts: AppFacts, app_runner: Callable[[str], AppRunner]) -> AppRunner:
    """The package of `facts`, with a fresh, empty state folder."""
    return app_runner(facts.package)
