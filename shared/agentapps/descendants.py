"""Every process a call started, ended when the call ends: those in its process group, and those
that left it with setsid() (a daemon's double fork included).

On Linux the runtime makes itself a child subreaper (prctl PR_SET_CHILD_SUBREAPER): a process
whose parent exits is re-parented to the runtime instead of to init, so nothing a call started
gets out of reach. While a call runs, its descendants are found by walking
/proc/<pid>/task/<tid>/children from its entry process at every poll. When the call ends (it
answered, it timed out, it passed the output cap) every one of them still alive is killed, and
so is every orphan re-parented to the runtime that started after the call began and that no other
call still running could own (one that began before the orphan did): in `run`, `check` and
`replay` that is every orphan of the call; in a long-lived `mcp` server whose calls overlap, an
orphan that escaped between two walks is killed when the last call that could own it ends. The
runtime's own children among the killed are reaped, so no zombies build up.

Processes the runtime starts for itself (a warm process: warm.py) are registered with `keep` and
never taken for orphans. Where there is no /proc or no prctl (not Linux), only the call's process
group is killed, as process.py always does.
"""

from __future__ import annotations

import contextlib
import itertools
import os
import signal
import sys
import threading
import time
from pathlib import Path

_PR_SET_CHILD_SUBREAPER = 36
_lock = threading.Lock()
_kept: set[int] = set()
_running: dict[int, float] = {}  # a running call's number → when it began, in clock ticks
_numbers = itertools.count()
_subreaper: bool | None = None


def keep(pid: int) -> None:
    """A child the runtime started for itself and keeps (a warm process): never an orphan."""
    with _lock:
        _kept.add(pid)


def reaches_everything() -> bool:
    """Whether a call's end kills every process it started (Linux), or only its group."""
    return _become_subreaper()


def _become_subreaper() -> bool:
    global _subreaper
    with _lock:
        if _subreaper is None:
            _subreaper = False
            if sys.platform == "linux" and Path("/proc/self/task").is_dir():
                import ctypes  # here: only a call that runs a process pays for importing it

                with contextlib.suppress(OSError, AttributeError):
                    # The interpreter's own symbols hold libc's prctl; nothing is searched for.
                    libc = ctypes.CDLL(None, use_errno=True)
                    _subreaper = libc.prctl(_PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) == 0
        return _subreaper


def _ticks_now() -> float:
    """Now, in the unit of /proc/<pid>/stat's start time: clock ticks since boot."""
    return time.clock_gettime(time.CLOCK_BOOTTIME) * os.sysconf("SC_CLK_TCK")


def _stat(pid: int) -> tuple[int, int, str] | None:
    """(parent pid, start time in ticks, state) of a process; None when it is gone."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except (OSError, IndexError):
        return None
    return int(fields[1]), int(fields[19]), fields[0]


def _children(pid: int) -> list[int]:
    found: list[int] = []
    try:
        tasks = os.listdir(f"/proc/{pid}/task")
    except OSError:
        return found
    for task in tasks:
        with contextlib.suppress(OSError, ValueError):
            found += map(int, Path(f"/proc/{pid}/task/{task}/children").read_text().split())
    return found


class Tracker:
    """The processes of one call: `watch(pid)` at every poll while it runs, `end()` once after."""

    def __init__(self) -> None:
        self.enabled = _become_subreaper()
        self.began = _ticks_now() - 1  # start times are whole ticks: one tick of slack
        self.known: dict[int, int] = {}  # pid → its start time (a reused pid is another process)
        self.number = next(_numbers)
        if self.enabled:
            with _lock:
                _running[self.number] = self.began

    def watch(self, root: int | None) -> None:
        """Note every descendant of `root` (the entry process) and of those already noted."""
        if not self.enabled:
            return
        frontier = [pid for pid in (root, *self.known) if pid is not None]
        seen = set(frontier)
        while frontier:
            for child in _children(frontier.pop()):
                if child in seen:
                    continue
                seen.add(child)
                stat = _stat(child)
                if stat is not None:
                    self.known.setdefault(child, stat[1])
                    frontier.append(child)

    def end(self, root: int | None) -> None:
        """Kill every process of the call still alive, and reap those that are the runtime's."""
        if not self.enabled:
            return
        try:
            for _ in range(100):  # each round kills what the last one's victims had started
                self.watch(root)
                victims = [pid for pid, started in self.known.items() if self._alive(pid, started)]
                victims += self._orphans(root)
                for pid in victims:
                    with contextlib.suppress(ProcessLookupError, PermissionError):
                        os.kill(pid, signal.SIGKILL)
                self._reap()
                if not victims:
                    break
        finally:
            with _lock:
                _running.pop(self.number, None)

    def _alive(self, pid: int, started: int) -> bool:
        stat = _stat(pid)
        return stat is not None and stat[2] != "Z" and stat[1] == started

    def _orphans(self, root: int | None) -> list[int]:
        """The runtime's children that are no one's it started, that began after this call did,
        and that no other running call could own."""
        with _lock:
            others = [began for number, began in _running.items() if number != self.number]
            kept = set(_kept)
        found = []
        for pid in _children(os.getpid()):
            stat = _stat(pid)
            if pid in kept or pid == root or stat is None or stat[1] < self.began:
                continue
            if any(began <= stat[1] for began in others):
                continue
            self.known[pid] = stat[1]  # a zombie already: only to be reaped
            if stat[2] != "Z":
                found.append(pid)
        return found

    def _reap(self) -> None:
        """Wait for the killed that are the runtime's children (SIGKILL ends them at once)."""
        for pid, started in list(self.known.items()):
            stat = _stat(pid)
            if stat is not None and stat[0] == os.getpid() and stat[1] == started:
                with contextlib.suppress(ChildProcessError):
                    os.waitpid(pid, 0)
