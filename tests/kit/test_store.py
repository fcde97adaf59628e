"""The kit's store, directly: transactions that fail write nothing, unchanged state is not rewritten."""

from __future__ import annotations

import errno
import gc
import os
import time
from collections.abc import Callable
from pathlib import Path

import pytest
from pydantic import Field

from agentapps.harness import AppRunner
from agentic_kit.errors import AppError
from agentic_kit.settings import Settings
from agentic_kit.store import CamelModel, StateStore, VersionedState


class CounterState(VersionedState):
    values: list[int] = Field(default_factory=list)


def store_at(tmp_path: Path) -> StateStore[CounterState]:
    return StateStore(tmp_path / "state.json", CounterState, Settings.read())


def test_a_missing_file_reads_as_an_empty_state(tmp_path: Path) -> None:
    state = store_at(tmp_path).load()
    assert (state.schema_version, state.next_id, state.values) == (1, 1, [])


def test_a_transaction_writes_what_the_caller_changed(tmp_path: Path) -> None:
    store = store_at(tmp_path)
    with store.transaction() as state:
        state.values.append(state.take_id())
    assert (tmp_path / "state.json").read_text() == '{"schemaVersion":1,"nextId":2,"values":[1]}\n'


def test_a_transaction_that_raises_writes_nothing(tmp_path: Path) -> None:
    store = store_at(tmp_path)
    with store.transaction() as state:
        state.values.append(1)
    before = (tmp_path / "state.json").read_bytes()

    def fail_half_way() -> None:
        with store.transaction() as state:
            state.values.append(2)
            raise RuntimeError("the operation failed half way")

    with pytest.raises(RuntimeError, match="half way"):
        fail_half_way()
    assert (tmp_path / "state.json").read_bytes() == before


def test_an_unchanged_state_is_not_rewritten(tmp_path: Path) -> None:
    store = store_at(tmp_path)
    with store.transaction() as state:
        state.values.append(1)
    inode = (tmp_path / "state.json").stat().st_ino
    with store.transaction():
        pass
    assert (tmp_path / "state.json").stat().st_ino == inode


def test_a_transaction_that_leaves_no_file_empty_makes_none(tmp_path: Path) -> None:
    """Found by an outside review: `purge --confirm` with no state file made one (empty), where
    the contract says nothing is written. A change that leaves it empty makes none; one that
    changes anything (an id taken) does."""
    store = store_at(tmp_path)
    with store.transaction() as state:
        state.values.clear()
    assert not (tmp_path / "state.json").exists()
    with store.transaction() as state:
        state.take_id()
    assert (tmp_path / "state.json").read_bytes() == b'{"schemaVersion":1,"nextId":2,"values":[]}\n'


def test_a_purge_of_nothing_with_no_state_file_writes_none(todo: AppRunner) -> None:
    purged = todo.run("purge", "--confirm")
    assert (purged.exit_status, purged.envelope["count"]) == (0, 0)
    assert not (todo.state_dir / "todos.json").exists()


OWN_FORM = b'{"schemaVersion":1,"nextId":2,"values":[1]}\n'


@pytest.mark.parametrize(
    "other_form",
    [
        OWN_FORM[:-1],  # no final newline
        OWN_FORM[:-1] + b" ",  # another last byte
        OWN_FORM + b"\n",  # one more
        OWN_FORM.replace(b'"values":[1]', b'"values":[1],"values":[1]'),  # repeated key, as long
    ],
)
def test_only_the_apps_own_bytes_are_taken_for_its_own_form(tmp_path: Path, other_form: bytes) -> None:
    """A file a byte away from the form the app writes is another form: it is checked for repeated
    keys, and a write that changes nothing puts it in the app's form."""
    (tmp_path / "state.json").write_bytes(other_form)
    store = store_at(tmp_path)
    if b'"values":[1],' in other_form:
        with pytest.raises(AppError, match="repeats the key 'values'"):
            store.load()
        return
    assert store.load().values == [1]
    with store.transaction():
        pass
    assert (tmp_path / "state.json").read_bytes() == OWN_FORM


def test_a_change_undone_in_the_same_transaction_writes_nothing(tmp_path: Path) -> None:
    (tmp_path / "state.json").write_bytes(OWN_FORM)
    inode = (tmp_path / "state.json").stat().st_ino
    with store_at(tmp_path).transaction() as state:
        state.values.append(2)
        state.values.pop()
    assert (tmp_path / "state.json").stat().st_ino == inode


def test_the_lock_is_released_after_a_failed_transaction(tmp_path: Path) -> None:
    store = store_at(tmp_path)
    (tmp_path / "state.json").write_text("{")
    with pytest.raises(AppError), store.transaction():
        pass
    (tmp_path / "state.json").unlink()
    with store.transaction() as state:  # would wait for the lock if it were still held
        state.values.append(1)
    assert store.load().values == [1]


@pytest.mark.serial  # its time bound is measured
def test_a_lock_file_that_cannot_be_made_is_a_state_io_error_without_waiting(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A folder that looks writable but takes no new file (a filesystem that refuses it, a folder
    removed meanwhile): the lock cannot be waited for, because nobody holds it."""
    monkeypatch.setenv("AGENTIC_LOCK_TIMEOUT", "30")
    store = store_at(tmp_path)
    real_open = os.open

    def no_lock_file(path: str | os.PathLike[str], flags: int, mode: int = 0o777) -> int:
        if str(path).endswith(".lock"):
            raise FileNotFoundError(errno.ENOENT, "No such file or directory", str(path))
        return real_open(path, flags, mode)

    monkeypatch.setattr(os, "open", no_lock_file)
    started = time.monotonic()
    with pytest.raises(AppError) as refused, store.transaction():
        pass
    assert time.monotonic() - started < 30  # it did not wait for the lock
    assert (refused.value.code, refused.value.exit_status) == ("STATE_IO_ERROR", 9)
    assert refused.value.message == (
        f"Cannot create the lock file of state file {tmp_path / 'state.json'}: No such file or directory."
    )
    assert list(tmp_path.iterdir()) == []


class Entry(CamelModel):
    id: str
    tags: list[str] = Field(default_factory=list)


class EntriesState(VersionedState):
    entries: list[Entry] = Field(default_factory=list)


def _collections_during(action: Callable[[], object]) -> list[int]:
    """The generation of each run of the cycle collector while `action` runs."""
    generations: list[int] = []

    def record(phase: str, info: dict[str, int]) -> None:
        if phase == "start":
            generations.append(info["generation"])

    gc.callbacks.append(record)
    try:
        action()
    finally:
        gc.callbacks.remove(record)
    return generations


def test_a_large_state_is_read_without_the_cycle_collector_running_through_it(tmp_path: Path) -> None:
    """Each of a large state's new containers counts toward the next collection: 10,000 entities
    set off dozens as they were built (a full pass over every object among them), for a state that
    holds no cycles. The collector is paused while it is built and runs again after."""
    path = tmp_path / "state.json"
    entries = ",".join(f'{{"id":"e_{n}","tags":["a"]}}' for n in range(10_000))
    path.write_text(f'{{"schemaVersion":1,"nextId":1,"entries":[{entries}]}}\n')
    store = StateStore(path, EntriesState, Settings.read())
    loaded: list[EntriesState] = []
    assert gc.isenabled()
    generations = _collections_during(lambda: loaded.append(store.load()))
    assert len(loaded[0].entries) == 10_000
    assert len(generations) <= 1, generations
    assert gc.isenabled()


def test_the_cycle_collector_runs_again_after_a_state_it_refuses(tmp_path: Path) -> None:
    path = tmp_path / "state.json"
    path.write_text('{"schemaVersion":1,"nextId":1,"entries":[{"id":1}]}\n')
    with pytest.raises(AppError) as refused:
        StateStore(path, EntriesState, Settings.read()).load()
    assert refused.value.code == "STATE_CORRUPT"
    assert gc.isenabled()


def test_a_cycle_collector_paused_by_the_caller_stays_paused(tmp_path: Path) -> None:
    gc.disable()
    try:
        store_at(tmp_path).load()
        (tmp_path / "state.json").write_text('{"schemaVersion":1,"nextId":1,"values":[]}\n')
        store_at(tmp_path).load()
        assert not gc.isenabled()
    finally:
        gc.enable()
