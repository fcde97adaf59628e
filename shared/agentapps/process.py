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
import math
import os
import selectors
import signal
import subprocess
import threading
import time
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Protocol

# How long output may keep arriving after the entry process exited (from children holding its
# pipes); everything the entry process itself wrote is already in the pipe when it exits.
EXIT_GRACE = 0.5
# How long an interrupted call's group has to end (or to finish the commit it has begun) before
# it is killed.
INTERRUPT_GRACE = 5.0
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


class Child(Protocol):
    """What the collector needs of a running entry process: a subprocess.Popen, or a call served by
    a warm process (warm.py), which is bounded by exactly the same rules."""

    @property
    def returncode(self) -> int | None: ...

    def poll(self) -> int | None: ...

    def wait(self, timeout: float | None = None) -> int:
        """The exit status; subprocess.TimeoutExpired past `timeout` seconds."""
        ...

    def kill_group(self) -> None:
        """SIGKILL to the entry process's whole group (it leads a session of its own)."""
        ...

    def interrupt_group(self) -> None:
        """SIGTERM to the entry process's whole group: an app of the kit ends at once before its
        commit, changing nothing, and from its commit finishes (agentic_kit.interrupts)."""
        ...


class _Spawned:
    """A subprocess.Popen as a Child."""

    def __init__(self, process: subprocess.Popen[bytes]) -> None:
        self.process = process

    @property
    def returncode(self) -> int | None:
        return self.process.returncode

    def poll(self) -> int | None:
        return self.process.poll()

    def wait(self, timeout: float | None = None) -> int:
        return self.process.wait(timeout)

    def kill_group(self) -> None:
        # The entry process leads its own session and group, so its pid names the group.
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(self.process.pid, signal.SIGKILL)

    def interrupt_group(self) -> None:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(self.process.pid, signal.SIGTERM)


class Interrupted(BaseException):
    """This process was sent a signal that ends it (SIGINT, SIGTERM or SIGHUP at their default
    action) while an entry process ran: that process's group is ended, and this one unwinds (its
    temporary folders removed) to end by the signal (`end_by`), as it would have at once."""

    def __init__(self, number: int) -> None:
        super().__init__(number)
        self.number = number


def end_by(interrupted: Interrupted) -> None:
    """End this process by the signal that interrupted it, at its default action: the exit status a
    shell shows (130, 143, 129), nothing printed. Never returns."""
    signal.signal(interrupted.number, signal.SIG_DFL)
    signal.raise_signal(interrupted.number)
    os._exit(128 + interrupted.number)  # a platform where it did not end the process


# The signals whose default action ends a runtime: a run's app is ended first, a server's calls.
ENDING = (signal.SIGINT, signal.SIGTERM, *((signal.SIGHUP,) if hasattr(signal, "SIGHUP") else ()))


class Watch:
    """The child that a signal ending this process must end first (`ends_with_this_process`),
    once it exists."""

    def __init__(self, child: Child | None, taken: list[int]) -> None:
        self.child = child
        self.taken = taken
        self.pending: int | None = None  # a signal that came while the child was being started

    def attach(self, child: Child) -> None:
        """The child now exists: a signal that came while it was being started ends it now."""
        self.child = child
        if self.pending is not None:
            self.end(self.pending)

    def end(self, number: int) -> None:
        assert self.child is not None
        # A second signal (Ctrl-C pressed twice) must not end this process before the child's
        # group is killed: it would be left running (found by an outside review).
        for each in self.taken:
            signal.signal(each, signal.SIG_IGN)
        self.child.interrupt_group()
        # The whole grace, then SIGKILL to what is left: the entry process may be a shell that
        # ends at once while what it started ignores SIGTERM (found by an outside review).
        time.sleep(EXIT_GRACE)
        self.child.kill_group()
        for each in self.taken:
            signal.signal(each, signal.SIG_DFL)
        raise Interrupted(number)


@contextlib.contextmanager
def ends_with_this_process(child: Child | None = None) -> Iterator[Watch]:
    """While `child` runs: a SIGINT, SIGTERM or SIGHUP that would end this process at once (its
    default action: the agentapps program's, as an app's) first ends the child's group — SIGTERM,
    then SIGKILL past EXIT_GRACE, any further such signal ignored meanwhile — then raises
    Interrupted. The child leads a session of its own, so neither a terminal's Ctrl-C nor a
    signal to this process alone reaches it, and it would outlive its runtime with no bound left.
    A signal the host handles or ignores stays its own, and only the main thread, where handlers
    run, sets any.

    Entered before the child is started (no `child`; `Watch.attach` it once it exists), a signal
    that comes while it is being started is held until then: at its default action it would end
    this process between the child's fork and the handler, and leave the child running (found by
    a review of this code). Should the child never start, the signal ends this process on the way
    out."""
    if threading.current_thread() is not threading.main_thread():
        yield Watch(child, [])
        return
    watch = Watch(child, [number for number in ENDING if signal.getsignal(number) is signal.SIG_DFL])

    def end_the_child_first(number: int, frame: object) -> None:
        if watch.child is None:
            if watch.pending is None:
                watch.pending = number
            return
        watch.end(number)

    for number in watch.taken:
        signal.signal(number, end_the_child_first)
    try:
        yield watch
    finally:
        for number in watch.taken:
            signal.signal(number, signal.SIG_DFL)
        if watch.child is None and watch.pending is not None:
            raise Interrupted(watch.pending)  # no child started to end first


def run_bounded(
    argv: Sequence[str],
    *,
    cwd: Path,
    env: Mapping[str, str],
    stdin: bytes | int,
    timeout: float,
    max_output: int,
    interrupt: threading.Event | None = None,
    end_the_group: bool = False,
) -> Finished:
    """Run argv from cwd with env, feed it stdin, and collect stdout and stderr within the bounds.
    `stdin` is bytes to feed, or a file descriptor the process reads itself (the runtime's own
    stdin, passed on as it is, streamed, never held in memory). With `end_the_group`, whatever
    is left running in the process's group once it has ended is killed too (a runtime under
    test that returned without killing the app it ran).

    Raises TimedOut past `timeout` seconds, and OSError when the program cannot start.
    """
    deadline = time.monotonic() + timeout
    # Watched from before the fork: a signal while Popen runs ends the child once it exists.
    with ends_with_this_process() as watch:
        process = subprocess.Popen(
            list(argv),
            cwd=cwd,
            env=dict(env),
            stdin=stdin if isinstance(stdin, int) else subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            start_new_session=True,
        )
        child = _Spawned(process)
        assert process.stdout is not None
        assert process.stderr is not None
        try:
            watch.attach(child)
            return collect(
                child,
                stdin_pipe=process.stdin,
                stdout=process.stdout.fileno(),
                stderr=process.stderr.fileno(),
                feed=b"" if isinstance(stdin, int) else stdin,
                deadline=deadline,
                max_output=max_output,
                interrupt=interrupt,
            )
        finally:
            for pipe in (process.stdin, process.stdout, process.stderr):
                if pipe is not None:
                    with contextlib.suppress(OSError):
                        pipe.close()
            if process.returncode is None:  # only when collecting itself failed
                child.kill_group()
                process.wait()
            elif end_the_group:
                child.kill_group()


def collect(
    child: Child,
    *,
    stdin_pipe: IO[bytes] | None,
    stdout: int,
    stderr: int,
    feed: bytes,
    deadline: float,
    max_output: int,
    interrupt: threading.Event | None = None,
) -> Finished:
    """Feed `feed` into stdin_pipe (then close it) and read the stdout and stderr pipes until the
    child exits (then for EXIT_GRACE at most), the deadline passes (TimedOut), or a stream passes
    `max_output` bytes. The caller owns and closes stdout and stderr; stdin_pipe is closed here
    (closing it again is harmless). Once `interrupt` is set the child's group gets SIGTERM, once,
    and is collected as before: it ends, or finishes what it has begun to commit."""
    stdin_fd = stdin_pipe.fileno() if stdin_pipe is not None else -1
    names = {stdout: "stdout", stderr: "stderr"}
    received = {descriptor: bytearray() for descriptor in names}
    pending = memoryview(feed)
    with selectors.DefaultSelector() as selector, ends_with_this_process(child):
        for descriptor in names:
            os.set_blocking(descriptor, False)
            selector.register(descriptor, selectors.EVENT_READ)
        if stdin_pipe is not None and pending:
            os.set_blocking(stdin_fd, False)
            selector.register(stdin_fd, selectors.EVENT_WRITE)
        elif stdin_pipe is not None:
            stdin_pipe.close()
        exited_at: float | None = None
        over_cap: str | None = None
        interrupted_at: float | None = None
        while selector.get_map() and over_cap is None:
            if interrupt is not None and interrupt.is_set() and interrupted_at is None and exited_at is None:
                child.interrupt_group()
                interrupted_at = time.monotonic()
            now = time.monotonic()
            if exited_at is None and child.poll() is not None:
                exited_at = now
            limit = deadline if exited_at is None else exited_at + EXIT_GRACE
            if exited_at is None and interrupted_at is not None and now >= interrupted_at + INTERRUPT_GRACE:
                # Found by an outside review: an app that ignores SIGTERM held a cancelled call,
                # and a server whose client had gone, until the call's timeout.
                child.kill_group()
                interrupted_at = math.inf  # killed: collected as any ended call is
            if now >= limit:
                break
            for key, _ in selector.select(min(limit - now, _POLL)):
                descriptor = key.fd
                if descriptor == stdin_fd:
                    pending = _feed(descriptor, pending)
                    if not pending and stdin_pipe is not None:
                        selector.unregister(descriptor)
                        stdin_pipe.close()
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
        holders_left = any(descriptor in names for descriptor in selector.get_map())
    if stdin_pipe is not None:
        with contextlib.suppress(OSError):
            stdin_pipe.close()
    if over_cap is not None:
        child.kill_group()
        child.wait()
    elif exited_at is None:
        # The pipes closed (or the deadline passed) before the entry process exited.
        try:
            child.wait(max(deadline - time.monotonic(), 0))
        except subprocess.TimeoutExpired:
            child.kill_group()
            child.wait()
            raise TimedOut from None
    if holders_left and over_cap is None:
        child.kill_group()  # what is left of its group still holds the pipes
    status = child.returncode
    assert status is not None
    out, err = (bytes(received[descriptor]) for descriptor in names)
    return Finished(status, out, err, over_cap)


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
