"""Operations on the state: plain functions, no I/O; the CLI runs each in one transaction."""

from __future__ import annotations

from agentic_kit.ids import find_by_id, format_id

from .models import ID_PREFIX, EntriesState, Entry


def add_entry(state: EntriesState, *, text: str, now: str) -> Entry:
    entry = Entry(id=format_id(ID_PREFIX, state.take_id()), text=text, created_at=now)
    state.entries.append(entry)
    return entry


def find_entry(state: EntriesState, entry_id: str) -> Entry:
    return find_by_id(state.entries, entry_id, "entry")


def remove_entry(state: EntriesState, entry: Entry) -> None:
    # The ID counter is untouched, so a removed entry's ID is never handed out again.
    state.entries = [kept for kept in state.entries if kept is not entry]
