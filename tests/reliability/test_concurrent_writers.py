"""Several agents writing the same state at once, as they normally do: nothing is lost.

WORKERS processes each make WRITES mixed writes (create, update, finish, remove) on one state
file while a reader process reads it without a lock as fast as it can.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from agentapps.harness import AppRunner
from tests.packages import AppFacts
from tests.reliability.conftest import (
    HERE,
    acknowledged,
    child_environment,
    id_number,
    start_writer,
    stored_entities,
)

pytestmark = pytest.mark.serial  # writers racing for one state file: the race is the test

WORKERS = 8
WRITES = 50


def test_concurrent_writers_lose_nothing(app: AppRunner, facts: AppFacts, tmp_path: Path) -> None:
    state_file = app.state_file(facts.state_file)
    env = child_environment(app.state_dir, AGENTIC_LOCK_TIMEOUT="120")
    stop = tmp_path / "stop-reading"
    reader = subprocess.Popen(
        [sys.executable, str(HERE / "reader.py"), str(state_file), str(stop)],
        stdout=subprocess.PIPE,
        text=True,
    )
    writers = [start_writer(app.package.root, env, seed, WRITES, "mixed") for seed in range(WORKERS)]
    outputs = [writer.communicate(timeout=600) for writer in writers]
    stop.touch()
    reading, _ = reader.communicate(timeout=60)

    assert [writer.returncode for writer in writers] == [0] * WORKERS, [err for _, err in outputs]
    writes = [write for out, _ in outputs for write in acknowledged(out)]
    assert len(writes) == WORKERS * WRITES
    assert [write["args"] for write in writes if not write["envelope"]["ok"]] == []

    # What each entity must look like: its last acknowledged write (only its creator touches it).
    expected: dict[str, dict[str, Any] | None] = {}
    for write in writes:
        item = write["envelope"]["item"]
        expected[item["id"]] = None if write["args"][0] == "remove" else item
    document, stored = stored_entities(state_file)
    assert sorted(stored) == sorted(entity_id for entity_id, item in expected.items() if item is not None)
    for entity_id, item in expected.items():
        if item is not None:  # stored fields must equal what the agent was told (computed ones aside)
            assert {key: stored[entity_id][key] for key in item if key in stored[entity_id]} == {
                key: item[key] for key in item if key in stored[entity_id]
            }

    # IDs: unique, contiguous from 1, and the counter is just past them.
    created = sorted(id_number(entity_id) for entity_id in expected)
    assert created == list(range(1, len(created) + 1))
    assert document["nextId"] == len(created) + 1

    seen = json.loads(reading)
    assert seen["broken"] == []
    assert seen["whole"] > 0
