"""One process, run the way a runtime must run code it did not write: bounded in time and in
output, whatever the process does.

- It starts in a session of its own, so its whole process group can be killed at once.
- The call waits for the entry process, never for its pipes to close: a child sharing the group,
  or a grandchild that called setsid(), can keep stdout open but cannot hold the call.
- Past the deadline the group is killed and the call raises TimedOut.
- Past `max_output` bytes on stdout or on stderr the group is killed; the result names the stream.
- Once the entry process has exited, output still arriving is read for EXIT_GRACE seconds at
  most; then whatever in its group still holds the pipes is killed, and the pipes are closed.
"""

from __future__ import annotations

import contextlib
import os
import selectors
import signal
import subprocess
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

# How long output may keep arriving after the entry process exited (from children holding its
# pipes); everything the entry process itself wrote is already in the pipe when it exits.
EXIT_GRACE = 0.5
# How often the entry process is polled while its pipes stay open.
_POLL = 0.05
_CHUNK = 64 * 1024


class TimedOut(Exception):
    """The entry process ran past its deadline; its process group was killed."""


@dataclass
class Finished:
    """What a bounded run gave back."""

    exit_status: int  # as subprocess reports it: -N when signal N ended the process
    stdout: bytes
    stderr: bytes
    over_cap: str | None = None  # "stdout" or "stderr": that stream passed max_output, the run was killed


def relayed_status(exit_status: int) -> int:
    """An exit status as a shell reports it: 128 + N for a process that signal N ended."""
    return 128 - exit_status if exit_status < 0 else exit_status


def run_bounded(
    argv: Sequence[str],
    *,
    cwd: Path,
    env: Mapping[str, str],
    stdin: bytes | int,
    timeout: float,
    max_output: int,
) -> Finished:
    """Run argv from cwd with env, feed it stdin, and collect stdout and stderr within the bounds.
    `stdin` is bytes to feed, or a file descriptor the process reads itself (the runtime's own
    stdin, passed on as it is, streamed, never held in memory).

    Raises TimedOut past `timeout` seconds, and OSError when the program cannot start.
    """
    process = subprocess.Popen(
        list(argv),
        cwd=cwd,
        env=dict(env),
        stdin=stdin if isinstance(stdin, int) else subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        start_new_session=True,
    )
    try:
        return _collect(
            process, b"" if isinstance(stdin, int) else stdin, time.monotonic() + timeout, max_output
        )
    finally:
        for pipe in (process.stdin, process.stdout, process.stderr):
            if pipe is not None:
                pipe.close()
        if process.returncode is None:  # only when collecting itself failed
            _kill_group(process)
            process.wait()


def _collect(process: subprocess.Popen[bytes], stdin: bytes, deadline: float, max_output: int) -> Finished:
    assert process.stdout is not None
    assert process.stderr is not None
    stdin_fd = process.stdin.fileno() if process.stdin is not None else -1
    names = {process.stdout.fileno(): "stdout", process.stderr.fileno(): "stderr"}
    received = {descriptor: bytearray() for descriptor in names}
    pending = memoryview(stdin)
    with selectors.DefaultSelector() as selector:
        for descriptor in names:
            os.set_blocking(descriptor, False)
            selector.register(descriptor, selectors.EVENT_READ)
        if pending:
            os.set_blocking(stdin_fd, False)
            selector.register(stdin_fd, selectors.EVENT_WRITE)
        elif process.stdin is not None:
            process.stdin.close()
        exited_at: float | None = None
        over_cap: str | None = None
        while selector.get_map() and over_cap is None:
            now = time.monotonic()
            if exited_at is None and process.poll() is not None:
                exited_at = now
            limit = deadline if exited_at is None else exited_at + EXIT_GRACE
            if now >= limit:
                break
            for key, _ in selector.select(min(limit - now, _POLL)):
                descriptor = key.fd
                if descriptor == stdin_fd:
                    pending = _feed(descriptor, pending)
                    if not pending and process.stdin is not None:
                        selector.unregister(descriptor)
                        process.stdin.close()
                    continue
                chunk = _read(descriptor)
                if chunk is None:
                    continue
                if not chunk:
                    selector.unregister(descriptor)
                    continue
                received[descriptor] += chunk
                if len(received[descriptor]) > max_output:
                    over_cap = names[descriptor]
                    break
        holders_left = bool(selector.get_map())
    if over_cap is not None:
        _kill_group(process)
        process.wait()
    elif exited_at is None:
        # The pipes closed (or the deadline passed) before the entry process exited.
        try:
            process.wait(max(deadline - time.monotonic(), 0))
        except subprocess.TimeoutExpired:
            _kill_group(process)
            process.wait()
            raise TimedOut from None
    if holders_left and over_cap is None:
        _kill_group(process)  # what is left of its group still holds the pipes
    stdout, stderr = (bytes(received[descriptor]) for descriptor in names)
    return Finished(process.returncode, stdout, stderr, over_cap)


def _feed(descriptor: int, pending: memoryview) -> memoryview:
    """Write what the pipe takes now; a process that stopped reading gets no more."""
    try:
        written = os.write(descriptor, pending[:_CHUNK])
    except BlockingIOError:
        return pending
    except (BrokenPipeError, ConnectionResetError):
        return pending[len(pending) :]
    return pending[written:]


def _read(descriptor: int) -> bytes | None:
    try:
        return os.read(descriptor, _CHUNK)
    except BlockingIOError:
        return None


def _kill_group(process: subprocess.Popen[bytes]) -> None:
    # The entry process leads its own session and group, so its pid names the group.
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(process.pid, signal.SIGKILL)
