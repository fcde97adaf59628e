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
