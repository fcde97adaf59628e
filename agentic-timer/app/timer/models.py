"""The timer as stored, the timer as every command prints it, and the state file.

Stored: what happened (started, paused, stopped, and the paused time so far). Printed: that plus
what it means at the moment of the command (due time, elapsed, remaining, due or not), so the
figures can never drift from the clock.
"""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from agentic_kit.store import CamelModel, VersionedState

ID_PREFIX = "tm"
LABEL_MAX_CHARS = 200
MAX_DURATION_MS = 366 * 86_400_000  # a year and a day: past that a timer is a calendar's job

Kind = Literal["countdown", "stopwatch"]
Status = Literal["running", "paused", "stopped"]


class Timer(CamelModel):
    """A timer as the state file keeps it."""

    id: str
    label: str = ""
    kind: Kind
    status: Status = "running"
    duration_ms: int | None = None
    started_at: str
    paused_at: str | None = None
    stopped_at: str | None = None
    created_at: str
    updated_at: str
    paused_ms: int = 0  # the paused spans that have ended, so elapsed time leaves them out


class TimerView(CamelModel):
    """A timer as every command prints it; the last four fields are computed at that moment."""

    id: str = Field(description="tm_0001, tm_0002, …; never reused, also after a remove.")
    label: str = Field(description=f'Free text, one line, up to {LABEL_MAX_CHARS} characters; "" when unset.')
    kind: Kind = Field(description="countdown (has a duration) or stopwatch (counts up).")
    status: Status = Field(description="running, paused or stopped (final).")
    duration_ms: int | None = Field(description="A countdown's full length; null for a stopwatch.")
    due_at: str | None = Field(
        description="When a countdown fires: start + duration + time spent paused so far. "
        "Null for a stopwatch."
    )
    started_at: str = Field(description="When it was started (UTC, milliseconds).")
    paused_at: str | None = Field(description="When the current pause began; null unless paused.")
    stopped_at: str | None = Field(description="When it was stopped; null until then.")
    created_at: str = Field(description="UTC instant with milliseconds, e.g. 2026-04-01T00:00:00.000Z.")
    updated_at: str = Field(description="When it last changed state (UTC, milliseconds).")
    elapsed_ms: int = Field(
        description="Time it has run, pauses left out, up to now (or to its pause or stop)."
    )
    remaining_ms: int | None = Field(
        description="A countdown's time left, never negative; null for a stopwatch."
    )
    is_due: bool = Field(description="True for a running countdown whose due time has come.")


class TimerState(VersionedState):
    timers: list[Timer] = Field(default_factory=list)
