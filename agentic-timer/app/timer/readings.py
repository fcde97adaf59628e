"""What a timer reads at a moment: elapsed and remaining time, due time, and whether it is due.

All in whole milliseconds from the stored timestamps, so AGENTIC_NOW makes every figure exact.
"""

from __future__ import annotations

from datetime import datetime

from agentic_kit.dates import format_timestamp, from_ms, to_ms

from .models import Timer, TimerView


def ms(timestamp: str) -> int:
    # Stored timestamps are always the kit's own UTC form, which fromisoformat reads directly
    # (no need for the user-input parser's checks: a list computes this for every timer).
    return to_ms(datetime.fromisoformat(timestamp))


def due_ms(timer: Timer) -> int | None:
    """A countdown fires after its duration of running time: later by every ended pause."""
    if timer.duration_ms is None:
        return None
    return ms(timer.started_at) + timer.duration_ms + timer.paused_ms


def elapsed_ms(timer: Timer, now_ms: int) -> int:
    """Running time so far: a paused timer reads as at its pause, a stopped one as at its stop."""
    until = now_ms
    if timer.status == "paused" and timer.paused_at is not None:
        until = ms(timer.paused_at)
    elif timer.status == "stopped" and timer.stopped_at is not None:
        until = ms(timer.stopped_at)
    return max(0, until - ms(timer.started_at) - timer.paused_ms)


def is_due(timer: Timer, now_ms: int) -> bool:
    due = due_ms(timer)
    return timer.status == "running" and due is not None and now_ms >= due


def view(timer: Timer, now_ms: int) -> TimerView:
    elapsed = elapsed_ms(timer, now_ms)
    due = due_ms(timer)
    # Built from a timer already validated, so no second validation (a list shows thousands).
    return TimerView.model_construct(
        id=timer.id,
        label=timer.label,
        kind=timer.kind,
        status=timer.status,
        duration_ms=timer.duration_ms,
        due_at=format_timestamp(from_ms(due)) if due is not None else None,
        started_at=timer.started_at,
        paused_at=timer.paused_at,
        stopped_at=timer.stopped_at,
        created_at=timer.created_at,
        updated_at=timer.updated_at,
        elapsed_ms=elapsed,
        remaining_ms=max(0, timer.duration_ms - elapsed) if timer.duration_ms is not None else None,
        is_due=is_due(timer, now_ms),
    )
