"""A writer killed with SIGKILL at random moments, many times: the state always parses, and every
write whose success envelope was printed is there. Each writer is forked from one that has loaded
the app, so it is writing at once (writer.py)."""

from __future__ import annotations

import random
import time
from pathlib import Path

import pytest

from agentapps.harness import AppRunner
from tests.packages import AppFacts
from tests.reliability.conftest import acknowledged, child_environment, stored_entities, writer_forks

pytestmark = pytest.mark.serial  # kills at random moments of a write: a loaded core changes which moments

KILLS = 25
MOST_WRITES = 100_000  # more than a writer can make before it is killed


def test_sigkill_never_loses_an_acknowledged_write(app: AppRunner, facts: AppFacts, tmp_path: Path) -> None:
    state_file = app.state_file(facts.state_file)
    env = child_environment(app.state_dir)
    rng = random.Random(20261130)
    total_acknowledged = 0
    with writer_forks(app.package.root, env, tmp_path) as start:
        for kill in range(KILLS):
            writer = start(seed=kill, count=MOST_WRITES, mode="add-update")
            first = writer.stdout.readline()  # it is writing now
            time.sleep(rng.uniform(0, 0.12))
            writes = acknowledged(first + writer.kill())  # once it is gone
            total_acknowledged += len(writes)

            listed = app.run(*facts.read)  # parses, through the app itself
            assert listed.ok
            _, stored = stored_entities(state_file)
            for write in writes:
                assert write["envelope"]["ok"]
                item = write["envelope"]["item"]
                assert item["id"] in stored, f"kill {kill}: acknowledged {write['args']} is lost"
                if write["args"][0] == "update":  # that update, or a later one by the same writer
                    assert int(stored[item["id"]]["title"].split()[-1]) >= int(item["title"].split()[-1])
                if write["args"][0] == "stop":
                    assert stored[item["id"]]["status"] == "stopped"
    assert total_acknowledged > KILLS  # the kills landed mid-run, not before any write

    # The next write clears whatever a killed writer left half-made.
    assert app.run(*facts.write).ok
    assert sorted(path.name for path in app.state_dir.iterdir()) == [
        facts.state_file,
        facts.state_file + ".lock",
    ]
