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
# The tests that take many seconds each (`--durations`), longest first, by node id or its start.
# They start first, spread over the workers: the parallel pass (xdist's worksteal) hands each
# worker one stretch of the collected order at the start, and a worker with nothing left steals
# from the end of another's queue, never its head. So each worker's stretch begins with its share
# of these, and a long test never waits behind another on one worker while the others idle.
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
# A session fixture the workers share (tests/toolkit/conftest.py): the first worker to need it
# makes it, and any other that needs it meanwhile waits. So only the first worker's share starts
# with the long tests that use it; every other share starts with its other long tests.
SHARED_FIXTURE = "warm_replay_of_every_scenario"


def _rank(item: pytest.Item) -> int:
    """The place in LONG_FIRST of the name that finds `item`; any other test ranks after them all."""
    return next(
        (rank for rank, name in enumerate(LONG_FIRST) if item.nodeid.startswith(name)), len(LONG_FIRST)
    )


def _long_units(items: list[pytest.Item]) -> list[list[pytest.Item]]:
    """The LONG_FIRST tests in its order, each a unit of its own, but a module named whole is one
    unit: its tests share a session fixture (one installation), made once per worker."""
    units: dict[str, list[pytest.Item]] = {}
    for item in sorted((item for item in items if _rank(item) < len(LONG_FIRST)), key=_rank):
        name = LONG_FIRST[_rank(item)]
        units.setdefault(name if name.endswith(".py") else item.nodeid, []).append(item)
    return list(units.values())


@pytest.hookimpl(trylast=True)  # after -m and -k have deselected: the stretches are of what runs
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Only the order changes (the same tests run): the LONG_FIRST units dealt out in turn to as
    many shares as the pass has workers, each share at the head of the stretch its worker is
    handed at the start (the first worker N // workers of the N tests, the next the rest's share
    of what is left, as worksteal counts), filled up with the other tests in their collected
    order; in every share but the first, the tests on SHARED_FIXTURE come last. One worker (the
    serial pass, a plain run): the LONG_FIRST tests first, then the rest."""
    workers = max(1, int(os.environ.get("PYTEST_XDIST_WORKER_COUNT", "1")))
    shares: list[list[pytest.Item]] = [[] for _ in range(workers)]
    for number, unit in enumerate(_long_units(items)):
        shares[number % workers].extend(unit)
    for share in shares[1:]:
        share.sort(key=lambda item: SHARED_FIXTURE in getattr(item, "fixturenames", ()))  # stable
    rest = [item for item in items if _rank(item) == len(LONG_FIRST)]
    order: list[pytest.Item] = []
    for worker, share in enumerate(shares):
        stretch = (len(items) - len(order)) // (workers - worker)
        filler = max(0, stretch - len(share))
        order += share + rest[:filler]
        rest = rest[filler:]
    items[:] = order + rest


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
