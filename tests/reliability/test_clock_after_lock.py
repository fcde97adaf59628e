"""Every write reads the clock once it holds the store's lock. With real clocks (no AGENTIC_NOW),
writers queued behind a held lock each record a moment after the lock was let go, and none is a
CONFLICT: a timestamp taken before waiting would come before the change it waited for."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

import filelock
import pytest

from tests.reliability.conftest import child_environment
from tests.toolkit.conftest import SUITE

WAITERS = 4
# Per app: its state file, the command that makes the entity, and a change queued behind the lock.
CASES = {
    "agentic-to-do": ("todos.json", ["add", "x"], ["update", "td_0001", "--title", "y{}"]),
    "agentic-notes": ("notes.json", ["add", "x"], ["append", "nt_0001", "line {}"]),
    "agentic-timer": ("timers.json", ["start", "tea", "--duration", "1h"], ["extend", "tm_0001", "{}s"]),
}


def stamp_now() -> str:
    instant = datetime.now(UTC)
    return instant.strftime("%Y-%m-%dT%H:%M:%S.") + f"{instant.microsecond // 1000:03d}Z"


def waits_at_the_lock(pid: int) -> bool:
    """Whether the process sleeps between tries of the lock (filelock polls it; nothing else in
    a command sleeps), so it has passed everything a command does before the lock."""
    try:
        return Path(f"/proc/{pid}/wchan").read_text() in {"hrtimer_nanosleep", "do_nanosleep"}
    except (FileNotFoundError, ProcessLookupError):
        return False


@pytest.mark.parametrize("package", sorted(CASES))
def test_writers_queued_behind_the_lock_read_the_clock_after_it(package: str, tmp_path: Path) -> None:
    state_name, create, change = CASES[package]
    env = child_environment(tmp_path, AGENTIC_LOCK_TIMEOUT="120")
    cli = [sys.executable, str(SUITE / package / "app" / "cli.py")]
    subprocess.run([*cli, *create], env=env, check=True, capture_output=True)
    lock = filelock.FileLock(str(tmp_path / (state_name + ".lock")))
    lock.acquire()
    try:
        waiters = [
            subprocess.Popen(
                [*cli, *(arg.format(number + 1) for arg in change)],
                env=env,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                text=True,
            )
            for number in range(WAITERS)
        ]
        # Each waiter has its arguments checked and is at the lock before the lock is let go.
        waiting: set[int] = set()
        while len(waiting) < WAITERS:
            assert all(waiter.poll() is None for waiter in waiters), "a waiter ended before the lock"
            waiting |= {waiter.pid for waiter in waiters if waits_at_the_lock(waiter.pid)}
            time.sleep(0.01)  # only paces the polling; nothing is asserted about time
        released_at = stamp_now()
    finally:
        lock.release()
    answers = [json.loads(waiter.communicate(timeout=120)[0]) for waiter in waiters]
    assert [answer["ok"] for answer in answers] == [True] * WAITERS, answers
    assert [waiter.returncode for waiter in waiters] == [0] * WAITERS
    stored = json.loads((tmp_path / state_name).read_text())
    [entity] = next(value for value in stored.values() if isinstance(value, list))
    if package == "agentic-timer":  # extend leaves updatedAt: each answer's figures are as of its moment
        assert entity["durationMs"] == 3_600_000 + 1000 * sum(range(1, WAITERS + 1))
        started = datetime.fromisoformat(entity["startedAt"])
        least = min(answer["item"]["elapsedMs"] for answer in answers)
        assert least >= (datetime.fromisoformat(released_at) - started) // timedelta(milliseconds=1)
    else:
        recorded = sorted(answer["item"]["updatedAt"] for answer in answers)
        assert recorded[0] >= released_at, (recorded, released_at)
        assert entity["updatedAt"] == recorded[-1]
