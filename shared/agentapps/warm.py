"""The warm runtime: a call of a Python package without paying for its imports again.

For a package whose entry command is `<python> <script>.py` (python3, python, python3.X, or a
path to one; plain words only, nothing a shell would expand), `WarmRuntime` keeps one warm
process (warm_server.py) per package, interpreter word, script and environment less its
AGENTIC_* settings. It is started exactly as a cold call starts: from the package root, through
the same `sh -c`, the same interpreter word (so the same interpreter), the same environment. It
imports what the script imports (and what the package's own modules import, lazily too), then
serves each call with a child of its own: a relay (the call's shell, in effect) that forks the
child and waits for it, the pair forked ahead of the call it will serve (beside the call before
it, where a second core is free). What modules its calls import beyond its own, the warm process
imports between calls. The child leads a session of its own, takes the call's stdin, stdout and
stderr (passed as descriptors over a Unix socket, so the bytes are the app's own), its arguments
and AGENTIC_* settings, a cold process's signal state, and runs the script as `__main__` (of a
script with a main guard, only the guarded statements: the warm process has run its body, the
app and its commands, once). Whatever the child does — crash, os._exit, leak a handle, change a
global — dies with it.

The call is bounded by process.collect, the very code that bounds a cold call: the same timeout
for the whole call (the wait for a warm process to start included), the same output cap, the
same grace and group kill. Two calls at once are two children. The warm process holds no lock and
no state between calls, and nothing of a call once it has handed it to the relay. When it dies:
- between calls, it is started again on the next call (one found dead, or dying: a call handed
  to it that no child has started is handed to a new one, once, within the same deadline);
- during a call, the call goes on: its child is not killed, and its relay says its exit status;
  only if the relay is killed too is that status lost, and the call is then the runtime's
  INTERNAL_ERROR (it may have taken effect), once the child has ended.
One killed while it starts leaves that call cold and the next starts one again; one that cannot
start (an interpreter older than 3.9, no pidfd) leaves its package cold for good. `run`
returns None when the package cannot be served warm: the caller then runs it cold.
"""

from __future__ import annotations

import array
import contextlib
import json
import os
import re
import select
import signal
import socket
import struct
import subprocess
import threading
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

from agentic_kit.errors import ErrorCode

from .errors import ToolkitError
from .process import Finished, TimedOut, collect, ends_with_this_process

SERVER_SCRIPT = Path(__file__).with_name("warm_server.py")
SHELL = "/bin/sh"
_WORD = re.compile(r"[A-Za-z0-9_./+-]+")
_PYTHON = re.compile(r"python(\d+(\.\d+)*)?")
_HEADER = struct.Struct("!Q")
# How long a call waits for its child to say its pid before it kills the warm process instead.
_PID_WAIT = 2.0
_AGENTIC = "AGENTIC_"
_EXCERPT_CHARS = 2000  # of stdout and stderr in an error's details, as runtime.py's excerpts


class _NotStarted(Exception):
    """The warm process died after it was handed the call and before the call's child said its
    pid: nothing of the call ran, and it can be handed to a new warm process."""


def python_entry(command: str) -> tuple[str, str] | None:
    """(interpreter word, script) when the entry command runs a Python script and nothing else."""
    words = command.split()
    if len(words) != 2 or not all(_WORD.fullmatch(word) and not word.startswith("-") for word in words):
        return None
    interpreter, script = words
    if not _PYTHON.fullmatch(os.path.basename(interpreter)) or not script.endswith(".py"):
        return None
    return interpreter, script


@dataclass
class _Server:
    """One warm process and the socket its calls arrive on."""

    process: subprocess.Popen[bytes]
    control: socket.socket
    send_lock: threading.Lock = field(default_factory=threading.Lock)
    ready: bool = False  # it said `R`: its imports are done and it serves calls

    def alive(self) -> bool:
        """Not exited, and its end of the control socket not closed: a warm process that is dying
        closes its descriptors before it can be reaped."""
        if self.process.poll() is not None:
            return False
        readable, _, _ = select.select([self.control], [], [], 0)
        return not readable  # it never writes there after `R`: readable means closed

    def stop(self) -> None:
        with contextlib.suppress(OSError):
            self.control.close()
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(self.process.pid, signal.SIGKILL)  # it leads a session of its own
        with contextlib.suppress(subprocess.TimeoutExpired):
            self.process.wait(5)


@dataclass
class _Slot:
    """Where the warm process of one key lives; its lock is held while it starts."""

    lock: threading.Lock = field(default_factory=threading.Lock)
    server: _Server | None = None
    cold: bool = False  # it could not start: this key runs cold from now on


class WarmRuntime:
    """Warm processes for the packages it is asked to run; `close()` stops them (and so does this
    process's end: each warm process ends when its control socket closes)."""

    def __init__(self) -> None:
        self._slots: dict[tuple[Any, ...], _Slot] = {}
        self._lock = threading.Lock()

    def __enter__(self) -> WarmRuntime:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        with self._lock:
            slots, self._slots = list(self._slots.values()), {}
        for slot in slots:
            with slot.lock:
                if slot.server is not None:
                    slot.server.stop()
                    slot.server = None

    def run(
        self,
        root: Path,
        entry_command: str,
        args: list[str],
        *,
        env: Mapping[str, str],
        stdin: bytes | int,
        deadline: float,
        max_output: int,
        interrupt: threading.Event | None = None,
    ) -> Finished | None:
        """Run one call warm, bounded like run_bounded; None when this package cannot be served
        warm (nothing of the call has run then). Raises TimedOut past the deadline."""
        entry = python_entry(entry_command)
        if entry is None:
            return None
        interpreter, script = entry
        base_env = {name: value for name, value in env.items() if not name.startswith(_AGENTIC)}
        key = (root, interpreter, script, tuple(sorted(base_env.items())))
        with self._lock:
            slot = self._slots.setdefault(key, _Slot())
        # A warm process that died since the last call, or that dies before the call's child has
        # started, is started again, once, within the same deadline.
        for _ in range(2):
            server = self._server(slot, root, interpreter, script, base_env, deadline)
            if server is None:
                return None
            call = self._send(server, root, args, env, stdin, deadline, max_output, interrupt)
            if call is not None:
                return call
            with slot.lock:
                if slot.server is server:
                    server.stop()
                    slot.server = None
        return None

    def _server(
        self,
        slot: _Slot,
        root: Path,
        interpreter: str,
        script: str,
        base_env: dict[str, str],
        deadline: float,
    ) -> _Server | None:
        with slot.lock:
            if slot.cold:
                return None
            if slot.server is not None and not slot.server.ready:
                # Still starting when an earlier call gave up waiting: serve warm only once it is
                # ready; until then every call runs cold, never waiting for it.
                return self._ready(slot, slot.server, 0.0, deadline)
            if slot.server is not None and slot.server.alive():
                return slot.server
            if slot.server is not None:
                slot.server.stop()
                slot.server = None
            ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
            try:
                process = subprocess.Popen(
                    [
                        SHELL,
                        "-c",
                        f'{interpreter} "$@"',
                        root.name,
                        str(SERVER_SCRIPT),
                        script,
                        str(theirs.fileno()),
                    ],
                    cwd=root,
                    env=base_env,
                    stdin=subprocess.DEVNULL,
                    stdout=subprocess.DEVNULL,
                    stderr=subprocess.DEVNULL,
                    pass_fds=(theirs.fileno(),),
                    start_new_session=True,
                )
            except OSError:
                ours.close()
                slot.cold = True
                return None
            finally:
                theirs.close()
            server = _Server(process, ours)
            slot.server = server
            # A call waits for the imports half its time at most, then runs cold: a package whose
            # rarely used command imports something slow is served as cold serves it meanwhile.
            return self._ready(slot, server, max((deadline - time.monotonic()) / 2, 0.001), deadline)

    @staticmethod
    def _ready(slot: _Slot, server: _Server, wait: float, deadline: float) -> _Server | None:
        """The server once it has said `R` within `wait` seconds (0: only if it has already);
        None when it has not yet (it goes on starting) or has died starting."""
        try:
            server.control.settimeout(wait if wait > 0 else 0.0)
            ready = server.control.recv(1)
        except (TimeoutError, BlockingIOError):
            return None  # still importing: this call runs cold, a later one finds it ready
        except OSError:
            ready = b""
        if ready != b"R":
            # Killed from outside while it started (a signal: the shell says 128+N, or dies of
            # it) is no verdict on the package: this call runs cold, the next starts one
            # again. One that ended on its own (no pidfd, say) leaves the package cold.
            with contextlib.suppress(subprocess.TimeoutExpired):
                server.process.wait(max(min(deadline - time.monotonic(), 1.0), 0.001))
            status = server.process.returncode
            server.stop()
            slot.server = None
            slot.cold = status is None or 0 <= status <= 128
            return None
        server.control.settimeout(None)
        server.ready = True
        return server

    def _send(
        self,
        server: _Server,
        root: Path,
        args: list[str],
        env: Mapping[str, str],
        stdin: bytes | int,
        deadline: float,
        max_output: int,
        interrupt: threading.Event | None = None,
    ) -> Finished | None:
        """Hand the call to the warm process and collect it; None when the warm process is gone
        before the call's child started. Raises ToolkitError when the call ran but how it ended
        cannot be known."""
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
        stdout_r, stdout_w = os.pipe()
        stderr_r, stderr_w = os.pipe()
        stdin_w: IO[bytes] | None = None
        if isinstance(stdin, int):
            stdin_r = stdin
        else:
            stdin_r, stdin_fd = os.pipe()
            stdin_w = open(stdin_fd, "wb", buffering=0)  # noqa: SIM115 - collect() closes it
        given = [theirs.fileno(), stdin_r, stdout_w, stderr_w]
        call = _Call(ours, server)
        try:
            # Watched from before the call is handed over: a signal that ended this process between
            # then and collect() left the call's app running (process.ends_with_this_process).
            with ends_with_this_process() as watch:
                try:
                    with server.send_lock:
                        server.control.sendmsg(
                            [b"C"], [(socket.SOL_SOCKET, socket.SCM_RIGHTS, array.array("i", given))]
                        )
                except OSError:
                    return None
                finally:
                    theirs.close()
                    for descriptor in (stdout_w, stderr_w, *([stdin_r] if stdin_w is not None else [])):
                        os.close(descriptor)
                watch.attach(call)
                request = json.dumps(
                    {
                        "args": args,
                        "cwd": str(root),
                        "agentic": {name: value for name, value in env.items() if name.startswith(_AGENTIC)},
                    }
                ).encode()
                try:
                    ours.settimeout(max(deadline - time.monotonic(), 0.001))
                    ours.sendall(_HEADER.pack(len(request)) + request)
                    ours.settimeout(None)
                except TimeoutError:
                    call.kill_group()
                    raise TimedOut from None
                except OSError:
                    pass  # the child is gone already; its status says how
                try:
                    finished = collect(
                        call,
                        stdin_pipe=stdin_w,
                        stdout=stdout_r,
                        stderr=stderr_r,
                        feed=b"" if isinstance(stdin, int) else stdin,
                        deadline=deadline,
                        max_output=max_output,
                        interrupt=interrupt,
                    )
                except _NotStarted:
                    if time.monotonic() >= deadline:
                        raise TimedOut from None
                    return None
                if call.lost:
                    raise _lost(finished)
                return finished
        finally:
            call.close()
            if stdin_w is not None:
                with contextlib.suppress(OSError):
                    stdin_w.close()
            for descriptor in (stdout_r, stderr_r):
                with contextlib.suppress(OSError):
                    os.close(descriptor)
            ours.close()


def _lost(finished: Finished) -> ToolkitError:
    """The runtime's own failure, said as such: the call ran, its exit status is lost."""
    return ToolkitError(
        ErrorCode.INTERNAL_ERROR,
        "The warm runtime lost this call's exit status: the process that waits for the call was "
        "killed while the app ran. The app ran to its end and may have taken effect.",
        "Read the state back (a list or get) before retrying.",
        details={
            "mayHaveTakenEffect": True,
            "stdout": finished.stdout.decode("utf-8", errors="replace")[:_EXCERPT_CHARS],
            "stderr": finished.stderr.decode("utf-8", errors="replace")[:_EXCERPT_CHARS],
        },
    )


class _Call:
    """One call served by a warm process, as process.Child: its child says its pid on the call's
    socket, and the child's relay (warm_server.relay, the child's parent) says its exit status
    there. The warm process holds none of it: its death does not touch a call that has started."""

    def __init__(self, sock: socket.socket, server: _Server) -> None:
        self.sock = sock
        self.server = server
        self.pid: int | None = None
        self.returncode: int | None = None
        self.lost = False  # the relay died unanswered: the child's exit status cannot be known
        self._child: int | None = None  # a pidfd of the child: readable once it has exited
        self._closed = False  # the call's socket said all it will
        self._killed = False  # the runtime killed the call itself
        self._buffer = b""

    def close(self) -> None:
        if self._child is not None:
            os.close(self._child)
            self._child = None

    def _pump(self, timeout: float | None) -> None:
        """Read what the call's socket says within `timeout` seconds (None: until it says more);
        once it is closed unanswered, wait for the child itself to exit."""
        if self.returncode is not None:
            return
        if self._closed:
            if self._child is None or select.select([self._child], [], [], timeout)[0]:
                self._unanswered()
            return
        ready, _, _ = select.select([self.sock], [], [], timeout)
        if not ready:
            return
        try:
            data = self.sock.recv(4096)
        except OSError:
            data = b""
        if not data:
            self._closed = True
            if self.pid is None and not self._killed:
                raise _NotStarted
            # The relay is gone before it said how the call ended. The child is not killed for
            # that: it may be in the middle of a write, and is left to finish.
            self._pump(0)
            return
        self._buffer += data
        while b"\n" in self._buffer:
            line, self._buffer = self._buffer.split(b"\n", 1)
            if line[:1] == b"P":
                self.pid = int(line[1:])
                with contextlib.suppress(OSError):  # gone already: it has exited
                    self._child = os.pidfd_open(self.pid)
            elif line[:1] == b"S":
                self.returncode = int(line[1:])

    def _unanswered(self) -> None:
        """The call is over and nothing said its exit status: the runtime's own kill if it killed
        the call (as a cold call's status would be), otherwise lost."""
        self.lost = not self._killed
        self.returncode = -signal.SIGKILL if self._killed else 1  # when lost, never relayed

    def poll(self) -> int | None:
        self._pump(0)
        return self.returncode

    def wait(self, timeout: float | None = None) -> int:
        deadline = None if timeout is None else time.monotonic() + timeout
        while self.returncode is None:
            remaining = None if deadline is None else deadline - time.monotonic()
            if remaining is not None and remaining <= 0:
                raise subprocess.TimeoutExpired("warm call", timeout or 0)
            self._pump(remaining)
        return self.returncode

    def kill_group(self) -> None:
        give_up = time.monotonic() + _PID_WAIT
        while self.pid is None and self.returncode is None and time.monotonic() < give_up:
            self._pump(give_up - time.monotonic())
        self._killed = True
        if self.pid is not None:
            self._killpg()
        elif self.returncode is None:
            self.server.stop()  # no child has said its pid: the warm process itself is stuck

    def interrupt_group(self) -> None:
        give_up = time.monotonic() + _PID_WAIT
        while self.pid is None and self.returncode is None and time.monotonic() < give_up:
            self._pump(give_up - time.monotonic())
        if self.pid is not None and self.returncode is None:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(self.pid, signal.SIGTERM)

    def _killpg(self) -> None:
        assert self.pid is not None
        with contextlib.suppress(OSError):
            self.sock.send(b"K")  # the runtime's own kill: the warm process reports it as such
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(self.pid, signal.SIGKILL)
