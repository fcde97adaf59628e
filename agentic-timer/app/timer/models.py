"""The timer as stored, the timer as every command prints it, and the state file.

Stored: what happened (started, paused, stopped, and the paused time so far). Printed: that plus
what it means at the moment of the command (due time, elapsed, remaining, due or not), so the
figures can never drift from the clock.

Every field's rule is checked on each load, in the model (pydantic's one pass); what ties a
timer's fields together — its kind and duration, its status and pause or stop, the order of its
moments — by `TimerState.problems`. Together they keep every figure computed from a timer inside
the calendar.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from datetime import datetime
from typing import Annotated, Literal

from pydantic import Field

from agentic_kit.dates import to_ms
from agentic_kit.ids import id_pattern
from agentic_kit.store import CamelModel, StoredInstant, VersionedState, empty_list
from agentic_kit.text import STORED_LINE_OR_EMPTY_PATTERN

ID_PREFIX = "tm"
LABEL_MAX_CHARS = 200
MAX_DURATION_MS = 366 * 86_400_000  # a year and a day: past that a timer is a calendar's job

Kind = Literal["countdown", "stopwatch"]
Status = Literal["running", "paused", "stopped"]
TimerId = Annotated[str, Field(pattern=id_pattern(ID_PREFIX))]
Label = Annotated[str, Field(max_length=LABEL_MAX_CHARS, pattern=STORED_LINE_OR_EMPTY_PATTERN)]
DurationMs = Annotated[int, Field(ge=1, le=MAX_DURATION_MS)]


class Timer(CamelModel):
    """A timer as the state file keeps it."""

    id: TimerId
    label: Label = ""
    kind: Kind
    status: Status = "running"
    duration_ms: DurationMs | None = None
    started_at: StoredInstant
    paused_at: StoredInstant | None = None
    stopped_at: StoredInstant | None = None
    created_at: StoredInstant
    updated_at: StoredInstant
    paused_ms: int = Field(0, ge=0)  # the paused spans that have ended, so elapsed time leaves them out

    def last_moment(self) -> str:
        """When it last ran: at its pause or stop, or (running) at its last change (a rename or an
        extend, after a pause or stop, leaves it at the pause or stop)."""
        return self.paused_at or self.stopped_at or self.updated_at


class TimerView(CamelModel):
    """A timer as every command prints it; the last four fields are computed at that moment."""

    id: TimerId = Field(description="tm_0001, tm_0002, …; never reused, also after a remove.")
    label: Label = Field(
        description=f'Free text, one line, up to {LABEL_MAX_CHARS} characters; "" when unset.'
    )
    kind: Kind = Field(description="countdown (has a duration) or stopwatch (counts up).")
    status: Status = Field(description="running, paused or stopped (final).")
    duration_ms: DurationMs | None = Field(description="A countdown's full length; null for a stopwatch.")
    due_at: str | None = Field(
        description="When a countdown fires: start + duration + time spent paused so far (UTC, "
        "milliseconds). Null for a stopwatch."
    )
    started_at: StoredInstant = Field(description="When it was started (UTC, milliseconds).")
    paused_at: StoredInstant | None = Field(description="When the current pause began; null unless paused.")
    stopped_at: StoredInstant | None = Field(description="When it was stopped; null until then.")
    created_at: StoredInstant = Field(
        description="UTC instant with milliseconds, e.g. 2026-04-01T00:00:00.000Z."
    )
    updated_at: StoredInstant = Field(description="When it last changed, by any command (UTC, milliseconds).")
    elapsed_ms: int = Field(
        description="Time it has run, pauses left out, up to now (or to its pause or stop)."
    )
    remaining_ms: int | None = Field(
        description="A countdown's time left, never negative; null for a stopwatch."
    )
    is_due: bool = Field(
        description="True for a countdown that has fired and is not stopped: running past its due "
        "time, or paused after it."
    )


class TimerState(VersionedState):
    timers: list[Timer] = Field(default_factory=empty_list)

    def entities(self) -> Sequence[Timer]:
        return self.timers

    def problems(self) -> Iterator[str]:
        yield from super().problems()
        for timer in self.timers:
            # One cheap test a timer; only a timer that may be wrong gets the full look.
            paused_at, stopped_at, updated_at = timer.paused_at, timer.stopped_at, timer.updated_at
            if (
                timer.paused_ms
                or (timer.kind == "countdown") is (timer.duration_ms is None)
                or (timer.status == "paused") is (paused_at is None)
                or (timer.status == "stopped") is (stopped_at is None)
                or timer.created_at != timer.started_at
                or (paused_at or stopped_at or updated_at) > updated_at
                or not timer.started_at <= updated_at
            ):
                problem = timer_problem(timer)
                if problem is not None:
                    yield f"timer {timer.id} {problem}"
                    return


def timer_problem(timer: Timer) -> str | None:
    """What contradicts itself in a timer. Timestamps of the stored form compare as text in the
    order of their instants, so only a timer with pauses needs any arithmetic."""
    if (timer.kind == "countdown") != (timer.duration_ms is not None):
        return "is a countdown without a durationMs, or a stopwatch with one"
    if (timer.status == "paused") != (timer.paused_at is not None):
        return f"is {timer.status} but its pausedAt is {timer.paused_at or 'null'}"
    if (timer.status == "stopped") != (timer.stopped_at is not None):
        return f"is {timer.status} but its stoppedAt is {timer.stopped_at or 'null'}"
    if timer.created_at != timer.started_at:
        return "has a createdAt other than its startedAt (a timer starts when it is made)"
    last = timer.last_moment()
    if not timer.started_at <= last <= timer.updated_at:
        return "has moments out of order (startedAt, then pausedAt or stoppedAt, then updatedAt)"
    if timer.paused_ms and _ms(last) - _ms(timer.started_at) < timer.paused_ms:
        return "has been paused for longer than it has existed (pausedMs)"
    return None


def _ms(timestamp: str) -> int:
    return to_ms(datetime.fromisoformat(timestamp))
