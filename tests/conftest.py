"""Shared fixtures. The harness's own fixtures (`app_runner`) come from the `agentapps.harness`
pytest plugin, which the root pyproject registers; every app run gets its own state folder."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import pytest

from agentapps.harness import AppRunner


@dataclass(frozen=True)
class AppFacts:
    """What the cross-package tests need to know of each package."""

    package: str
    state_file: str  # its name inside AGENTIC_STATE_DIR
    state_file_env: str
    write: tuple[str, ...]  # a command that creates the first entity
    read: tuple[str, ...]  # a command that only reads
    first_id: str


APPS = [
    AppFacts("agentic-to-do", "todos.json", "AGENTIC_TODO_STATE_FILE", ("add", "x"), ("list",), "td_0001"),
    AppFacts("agentic-notes", "notes.json", "AGENTIC_NOTES_STATE_FILE", ("add", "x"), ("list",), "nt_0001"),
    AppFacts(
        "agentic-timer", "timers.json", "AGENTIC_TIMER_STATE_FILE", ("start", "x"), ("list",), "tm_0001"
    ),
]


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
