"""Fixtures for the app tests: each app with its own empty state folder."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from agentapps.harness import AppRunner


@pytest.fixture
def todo(app_runner: Callable[[str], AppRunner]) -> AppRunner:
    return app_runner("agentic-to-do")
