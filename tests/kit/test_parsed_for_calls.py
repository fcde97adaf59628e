"""What a warm process keeps parsed for its calls (store.keep_parsed): a call takes the kept state
only for the very bytes it was parsed from, once, and nothing the parse checks is skipped for
any other file. Here in one process, as the warm process and its forked child would run it."""

from __future__ import annotations

import os
import sys
import types
from collections.abc import Iterator, Sequence
from pathlib import Path

import pytest
from pydantic import Field

from agentic_kit import store as store_module
from agentic_kit.errors import AppError
from agentic_kit.settings import Settings
from agentic_kit.store import CamelModel, StateStore, VersionedState, keep_parsed

GOOD = b'{"schemaVersion":1,"nextId":3,"things":[{"id":"th_0001","name":"a"},{"id":"th_0002","name":"b"}]}\n'


class Thing(CamelModel):
    id: str
    name: str


class ThingsState(VersionedState):
    things: list[Thing] = Field(default_factory=list)

    def entities(self) -> Sequence[Thing]:
        return self.things


class NextThingsState(ThingsState):
    SCHEMA_VERSION = 2


NAME = f"{__name__}:ThingsState"


@pytest.fixture(autouse=True)
def nothing_kept() -> Iterator[None]:
    store_module._PARSED.clear()
    yield
    store_module._PARSED.clear()


def state_file(tmp_path: Path, data: bytes = GOOD) -> Path:
    path = tmp_path / "state.json"
    path.write_bytes(data)
    return path


def load(path: Path) -> ThingsState:
    return StateStore(path, ThingsState, Settings.read()).load()


def test_a_call_takes_the_state_kept_for_the_same_bytes_once(tmp_path: Path) -> None:
    path = state_file(tmp_path)
    assert keep_parsed(str(path), NAME) is True
    kept = store_module._PARSED[(str(path), NAME)][1]
    first = load(path)
    assert first is kept
    assert [thing.name for thing in first.things] == ["a", "b"]
    second = load(path)  # a second read in the same run parses anew: its own object
    assert second is not kept
    assert second == kept


def test_the_same_bytes_are_not_parsed_again(tmp_path: Path) -> None:
    path = state_file(tmp_path)
    assert keep_parsed(str(path), NAME) is True
    kept = store_module._PARSED[(str(path), NAME)][1]
    assert keep_parsed(str(path), NAME) is False  # nothing new: a spare forked before lacks nothing
    assert store_module._PARSED[(str(path), NAME)][1] is kept


def test_an_edit_that_keeps_the_size_and_time_is_read_from_the_file(tmp_path: Path) -> None:
    path = state_file(tmp_path)
    keep_parsed(str(path), NAME)
    before = os.stat(path)
    path.write_bytes(GOOD.replace(b'"b"', b'"c"'))
    os.utime(path, ns=(before.st_atime_ns, before.st_mtime_ns))
    assert os.stat(path).st_size == before.st_size
    assert [thing.name for thing in load(path).things] == ["a", "c"]


@pytest.mark.parametrize(
    ("data", "reason"),
    [
        (GOOD[:-3], "is not valid JSON"),
        (GOOD.replace(b'"nextId":3', b'"nextId":2'), "is inconsistent"),
        (GOOD.replace(b'"nextId":3', b'"nextId":3,"nextId":3'), "repeats the key 'nextId'"),
    ],
    ids=["truncated", "counter-behind", "repeated-key"],
)
def test_a_file_broken_after_it_was_kept_is_refused(tmp_path: Path, data: bytes, reason: str) -> None:
    path = state_file(tmp_path)
    keep_parsed(str(path), NAME)
    path.write_bytes(data)
    with pytest.raises(AppError) as refused:
        load(path)
    assert refused.value.code == "STATE_CORRUPT"
    assert reason in refused.value.message
    assert path.read_bytes() == data  # left as it is


@pytest.mark.parametrize(
    "data",
    [
        GOOD.replace(b'"nextId":3', b'"nextId":2'),  # inconsistent
        GOOD.replace(b'"schemaVersion":1', b'"schemaVersion":3'),  # a newer version's
        b"\xff\xfe not JSON",
    ],
    ids=["inconsistent", "newer", "not-json"],
)
def test_a_file_that_does_not_load_is_not_kept(tmp_path: Path, data: bytes) -> None:
    path = state_file(tmp_path, data)
    assert keep_parsed(str(path), NAME) is False
    assert store_module._PARSED == {}


def test_a_state_an_older_version_wrote_is_not_kept(tmp_path: Path) -> None:
    """Each call upgrades it as it reads it; a kept state would skip that."""
    path = state_file(tmp_path)
    assert keep_parsed(str(path), f"{__name__}:NextThingsState") is False
    assert store_module._PARSED == {}
    assert StateStore(path, NextThingsState, Settings.read()).load().schema_version == 2


def test_what_is_not_a_regular_file_is_not_kept_and_never_waited_for(tmp_path: Path) -> None:
    fifo = tmp_path / "fifo.json"
    os.mkfifo(fifo)  # opened without waiting for a writer
    assert keep_parsed(str(fifo), NAME) is False
    assert keep_parsed(str(tmp_path), NAME) is False  # a folder
    assert keep_parsed(str(tmp_path / "missing.json"), NAME) is False
    assert store_module._PARSED == {}


def test_a_file_gone_since_drops_what_was_kept(tmp_path: Path) -> None:
    path = state_file(tmp_path)
    keep_parsed(str(path), NAME)
    path.unlink()
    assert keep_parsed(str(path), NAME) is False
    assert store_module._PARSED == {}


@pytest.mark.parametrize(
    "name",
    [f"{__name__}:Nope", "no.such.module:ThingsState", f"{__name__}:GOOD", "agentic_kit.store:StateStore"],
)
def test_only_a_state_model_this_process_holds_is_parsed(tmp_path: Path, name: str) -> None:
    assert keep_parsed(str(state_file(tmp_path)), name) is False
    assert store_module._PARSED == {}


def test_a_state_kept_as_one_model_is_not_taken_as_another(tmp_path: Path) -> None:
    path = state_file(tmp_path)
    keep_parsed(str(path), NAME)
    other = StateStore(path, NextThingsState, Settings.read()).load()
    assert type(other) is NextThingsState


def test_at_most_four_states_are_kept_the_oldest_dropped_first(tmp_path: Path) -> None:
    paths = []
    for number in range(5):
        folder = tmp_path / str(number)
        folder.mkdir()
        paths.append(state_file(folder))
        assert keep_parsed(str(paths[-1]), NAME) is True
    assert [path for path, _ in store_module._PARSED] == [str(path) for path in paths[1:]]


def test_a_read_asks_a_warm_process_to_keep_it_and_a_cold_run_asks_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = state_file(tmp_path)
    load(path)  # no agentapps_warm here: nothing to ask, nothing fails
    asked: list[tuple[str, ...]] = []
    warm = types.ModuleType("agentapps_warm")
    warm.when_idle = lambda *ask: asked.append(ask)  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "agentapps_warm", warm)
    load(path)
    assert asked == [("agentic_kit.store", "keep_parsed", str(path.resolve()), NAME)]
    assert store_module.WARM_HOOKS["keep_parsed"] is keep_parsed
    asked.clear()
    path.write_bytes(b"{}")  # refused: nothing to keep
    with pytest.raises(AppError):
        load(path)
    assert asked == []
