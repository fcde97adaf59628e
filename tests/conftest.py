"""Shared fixtures. The harness's own fixtures (`app_runner`) come from the `agentapps.harness`
pytest plugin, which the root pyproject registers; every app run gets its own state folder."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

import pytest

from agentapps.harness import AppRunner

from .packages import APPS, AppFacts

FIXTURES = Path(__file__).resolve().parent / "fixtures"
# The tests that take many seconds each (`--durations`), by node id or its start. They run first:
# the parallel pass hands out tests in collection order and a worker with nothing left steals from
# the other's queue, so short tests at the end even out the workers; a long test at the end would
# leave one core idle while the other runs it. They all start in the first worker's stretch (xdist
# worksteal hands each worker one stretch of the order, and steals from a queue's end), and that
# is what the pass wants: the identity slices keep two processes busy one after another there,
# while the other worker runs tests that mostly wait on processes. Dealt out over both workers,
# the slices ran side by side first and the waiting tests after, and the pass took 380 s against
# 353 in a fresh-clone run each.
LONG_FIRST = (
    "tests/toolkit/test_warm.py::test_every_scenario_gives_the_same_bytes_warm_and_cold",
    "tests/toolkit/test_install.py",
    "tests/conformance/test_adapters.py::test_agentapps_passes_every_case_through_its_command_line",
    "tests/toolkit/test_replay.py::test_a_runtime_given_as_a_command_replays_the_same_scenarios",
    "tests/conformance/test_adapters.py::test_the_minimal_node_runtime_passes_every_required_case",
    "tests/toolkit/test_new.py::test_a_new_package_passes_check_and_its_own_test",
    "tests/toolkit/test_replay.py::test_every_scenario_passes_through_the_built_in_runtime_in_real_processes",
    "tests/toolkit/test_hostile_packages.py::test_check_as_a_whole_is_bounded",
)


def _rank(item: pytest.Item) -> int:
    """The place in LONG_FIRST of the name that finds `item`; any other test ranks after them all."""
    return next(
        (rank for rank, name in enumerate(LONG_FIRST) if item.nodeid.startswith(name)), len(LONG_FIRST)
    )


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """The LONG_FIRST tests first, longest first; every other test after them, in its collected
    order. Only the order changes: the same tests run (a sort in place, and a stable one)."""
    items.sort(key=_rank)


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
