"""The suite's three packages and what the tests need to know of each, in one place. Tests
import these names from here; conftest.py builds its per-package fixtures on them."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

SUITE = Path(__file__).resolve().parents[1]


@dataclass(frozen=True)
class AppFacts:
    """What the cross-package tests need to know of each package."""

    package: str
    state_file: str  # its name inside AGENTIC_STATE_DIR
    state_file_env: str
    write: tuple[str, ...]  # a command that creates the first entity
    read: tuple[str, ...]  # a command that only reads
    first_id: str
    schema_version: int = 1  # the schemaVersion its state files are written with

    @property
    def root(self) -> Path:
        return SUITE / self.package

    @property
    def scenarios(self) -> Path:
        """Its scenario files, kept inside the package as `agentapps new` lays one out."""
        return self.root / "scenarios"


APPS = [
    AppFacts("agentic-to-do", "todos.json", "AGENTIC_TODO_STATE_FILE", ("add", "x"), ("list",), "td_0001", 2),
    AppFacts("agentic-notes", "notes.json", "AGENTIC_NOTES_STATE_FILE", ("add", "x"), ("list",), "nt_0001"),
    AppFacts(
        "agentic-timer", "timers.json", "AGENTIC_TIMER_STATE_FILE", ("start", "x"), ("list",), "tm_0001"
    ),
]
FACTS = {facts.package: facts for facts in APPS}
PACKAGES = [facts.package for facts in APPS]
SCENARIO_FOLDERS = [facts.scenarios for facts in APPS]
