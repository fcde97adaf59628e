"""The entry and the state file that holds the entries."""

from __future__ import annotations

from collections.abc import Sequence

from pydantic import Field

from agentic_kit.store import CamelModel, VersionedState, empty_list

ID_PREFIX = "en"
TEXT_MAX_CHARS = 500


class Entry(CamelModel):
    """One entry; the field order here is the field order in every envelope."""

    id: str = Field(description="en_0001, en_0002, …; never reused.")
    text: str = Field(description=f"One line, 1 to {TEXT_MAX_CHARS} characters.")
    created_at: str = Field(description="UTC instant with milliseconds, e.g. 2026-04-01T00:00:00.000Z.")


class EntriesState(VersionedState):
    entries: list[Entry] = Field(default_factory=empty_list)

    def entities(self) -> Sequence[Entry]:
        """What the store checks on every load: ids unique, in order, and below nextId."""
        return self.entries
