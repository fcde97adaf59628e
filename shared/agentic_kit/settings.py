"""The settings of one run (AGENTIC_NOW, AGENTIC_LOCK_TIMEOUT, AGENTIC_TZ) and what the run did.

The runner opens a `Run` for each command line. The first store the command opens reads the
settings, checks them all (a wrong one is a VALIDATION_ERROR whether or not this command uses
it, so that it never passes unseen in a read and fails only in a write) and keeps them for the
rest of the run; the store takes them from there rather than reading the environment itself. A
command that opens no store (describe, --help, a refused command line) never reads them. The
run also counts the writes its stores committed, which the runner reads to tell a failure after
a commit from one before it.
"""

from __future__ import annotations

import contextlib
import contextvars
import os
from collections.abc import Iterator
from dataclasses import dataclass

from . import clock, zones
from .errors import validation_error
from .text import quoted

LOCK_TIMEOUT_ENV = "AGENTIC_LOCK_TIMEOUT"
DEFAULT_LOCK_TIMEOUT = 10.0
MAX_LOCK_TIMEOUT = 3600.0  # an hour: past it a writer is stuck, not busy


def lock_timeout() -> float:
    raw = os.environ.get(LOCK_TIMEOUT_ENV)
    if not raw:
        return DEFAULT_LOCK_TIMEOUT
    try:
        seconds = float(raw) if raw.isascii() else -1.0  # float() would take digits of any script
    except ValueError:
        seconds = -1.0
    if not 0 <= seconds <= MAX_LOCK_TIMEOUT:  # also refuses NaN and inf: a write never waits forever
        raise validation_error(
            f"{LOCK_TIMEOUT_ENV}={quoted(raw)} is not a number of seconds from 0 to {MAX_LOCK_TIMEOUT:g}.",
            f"Unset {LOCK_TIMEOUT_ENV} or set it like 10.",
        )
    return seconds


@dataclass(frozen=True)
class Settings:
    """The settings a store works with, each checked."""

    lock_timeout: float

    @classmethod
    def read(cls) -> Settings:
        """Read and check every setting, in this order: AGENTIC_NOW, AGENTIC_LOCK_TIMEOUT, AGENTIC_TZ."""
        clock.now()
        timeout = lock_timeout()
        zones.check_zone()
        return cls(lock_timeout=timeout)


class Run:
    """One command line's run: its settings, read once when first asked for, and its commits."""

    def __init__(self) -> None:
        self._settings: Settings | None = None
        self.commits = 0

    def settings(self) -> Settings:
        if self._settings is None:
            self._settings = Settings.read()
        return self._settings


_CURRENT: contextvars.ContextVar[Run | None] = contextvars.ContextVar("agentic_kit.run", default=None)


def current_run() -> Run:
    """The run under way; outside one (a tool or a test using a store directly), a new one, so
    nothing read or counted carries from one use to the next."""
    return _CURRENT.get() or Run()


@contextlib.contextmanager
def one_run() -> Iterator[Run]:
    """The runner's run of one command line: the settings and commits of this run alone."""
    run = Run()
    token = _CURRENT.set(run)
    try:
        yield run
    finally:
        _CURRENT.reset(token)
