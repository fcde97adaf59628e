"""Bounded runs (process.py): whatever the process does, the call returns within its timeout plus
a short grace, holds at most the output cap, and an entry process that answered is heard."""

from __future__ import annotations

import contextlib
import os
import signal
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from agentapps.process import EXIT_GRACE, Finished, TimedOut, run_bounded

pytestmark = pytest.mark.serial  # kills and time bounds of run_bounded, measured

# Generous: the bound proves that nothing waits for the pipes, not how fast the machine is.
MARGIN = 5.0
CAP = 1024 * 1024

# A process left behind that keeps stdout open for 60 s, its pid written to argv[1].
LEAVE_A_HOLDER = """
import os, sys, time
if os.fork() == 0:
    if NEW_SESSION:
        os.setsid()
    with open(sys.argv[1], "a") as handle:
        handle.write(f"{os.getpid()}\\n")
    time.sleep(60)
    os._exit(0)
"""


@pytest.fixture
def pid_file(tmp_path: Path) -> Iterator[Path]:
    """Where the scripts write the pids they leave behind; each is ended after the test."""
    path = tmp_path / "pids"
    yield path
    for pid in path.read_text().split() if path.exists() else []:
        with contextlib.suppress(ProcessLookupError):
            os.kill(int(pid), signal.SIGKILL)


def run_python(script: str, *args: str, stdin: bytes = b"", timeout: float = 10.0) -> Finished:
    return run_bounded(
        [sys.executable, "-c", script, *args],
        cwd=Path.cwd(),
        env={"PATH": os.environ["PATH"]},
        stdin=stdin,
        timeout=timeout,
        max_output=CAP,
    )


def alive(pid: int) -> bool:
    """Running, and not a zombie waiting for a parent that does not reap."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (FileNotFoundError, ProcessLookupError):  # reaped before the open, or before the read
        return False
    return state != "Z"


def ends_soon(pid: int) -> bool:
    """Whether the process is gone within MARGIN seconds (a kill takes effect asynchronously)."""
    deadline = time.monotonic() + MARGIN
    while alive(pid) and time.monotonic() < deadline:
        time.sleep(0.05)
    return not alive(pid)


@pytest.mark.parametrize("new_session", [True, False], ids=["setsid-grandchild", "child-in-the-group"])
def test_an_answer_stands_though_something_left_behind_holds_stdout(
    pid_file: Path, new_session: bool
) -> None:
    script = LEAVE_A_HOLDER.replace("NEW_SESSION", str(new_session)) + "print('{\"ok\": true}')\n"
    started = time.monotonic()
    finished = run_python(script, str(pid_file))
    assert time.monotonic() - started < EXIT_GRACE + MARGIN
    assert (finished.exit_status, finished.stdout, finished.over_cap) == (0, b'{"ok": true}\n', None)
    [holder] = map(int, pid_file.read_text().split())
    # What is left in the group is killed; a process in a session of its own is out of reach.
    if new_session:
        time.sleep(0.5)
        assert alive(holder)
    else:
        assert ends_soon(holder)


def test_a_timeout_bounds_the_call_even_when_a_grandchild_holds_stdout(pid_file: Path) -> None:
    script = LEAVE_A_HOLDER.replace("NEW_SESSION", "True") + "time.sleep(3600)\n"
    started = time.monotonic()
    with pytest.raises(TimedOut):
        run_python(script, str(pid_file), timeout=1.0)
    assert time.monotonic() - started < 1.0 + MARGIN


def test_a_timeout_kills_the_whole_process_group(pid_file: Path) -> None:
    script = LEAVE_A_HOLDER.replace("NEW_SESSION", "False") + "time.sleep(3600)\n"
    with pytest.raises(TimedOut):
        run_python(script, str(pid_file), timeout=1.0)
    [child] = map(int, pid_file.read_text().split())
    assert ends_soon(child)


@pytest.mark.parametrize("stream", ["stdout", "stderr"])
def test_output_past_the_cap_kills_the_process_and_names_the_stream(stream: str) -> None:
    finished = run_python(f"import sys\nwhile True:\n    sys.{stream}.write('x' * 65536)\n")
    assert finished.over_cap == stream
    assert finished.exit_status == -signal.SIGKILL
    assert CAP < len(getattr(finished, stream)) <= CAP + 64 * 1024


def test_output_up_to_the_cap_is_whole() -> None:
    finished = run_python(f"import sys\nsys.stdout.write('x' * {CAP})\n")
    assert (finished.over_cap, len(finished.stdout), finished.exit_status) == (None, CAP, 0)


def test_stdin_larger_than_a_pipe_reaches_the_process_whole() -> None:
    data = os.urandom(3 * 1024 * 1024)
    finished = run_python(
        "import hashlib, sys\nprint(hashlib.sha256(sys.stdin.buffer.read()).hexdigest())\n", stdin=data
    )
    import hashlib

    assert finished.stdout.decode().strip() == hashlib.sha256(data).hexdigest()


def test_a_process_that_never_reads_stdin_still_answers() -> None:
    finished = run_python("print('answered')\n", stdin=b"x" * (4 * 1024 * 1024))
    assert (finished.exit_status, finished.stdout) == (0, b"answered\n")
