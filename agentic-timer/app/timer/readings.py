"""What a timer reads at a moment: elapsed and remaining time, due time, and whether it is due.

All in whole milliseconds from the stored timestamps, so AGENTIC_NOW makes every figure exact.
"""

from __future__ import annotations

from datetime import datetime

from agentic_kit.dates import format_ms, to_ms

from .models import Timer


def ms(timestamp: str) -> int:
    # Stored timestamps are always the kit's own UTC form, which fromisoformat reads directly
    # (no need for the user-input parser's checks: a list computes this for every timer).
    return to_ms(datetime.fromisoformat(timestamp))


def due_ms(timer: Timer) -> int | None:
    """A countdown fires after its duration of running time: later by every ended pause."""
    if timer.duration_ms is None:
        return None
    return ms(timer.started_at) + timer.duration_ms + timer.paused_ms


def is_due(timer: Timer, now_ms: int) -> bool:
    """Whether a countdown has fired and is not yet stopped: running past its due time, or paused
    after it (a paused one's due time is where its running time reached its duration). Read at
    no moment before its last change, as `view` reads it: a clock that stepped back changes
    neither."""
    due = due_ms(timer)
    if due is None or timer.status == "stopped":
        return False
    if timer.status == "paused" and timer.paused_at is not None:
        return due <= ms(timer.paused_at)
    return now_ms >= due or ms(timer.updated_at) >= due  # the stored moment read only when needed


def view(timer: Timer, now_ms: int) -> dict[str, object]:
    """The timer as printed (TimerView's fields, in its order), its figures as of now_ms.

    A plain dict, not a TimerView: a list builds thousands, and the schema in schemas/ (generated
    from TimerView) is what every output is checked against.
    """
    # Read at no moment before its last change: after a clock that stepped back, a change is
    # recorded at that last change (changes.moment_of_change), and every read agrees with it.
    updated_at = timer.updated_at
    updated = ms(updated_at)
    now_ms = max(now_ms, updated)
    # The stored form has one text per instant, so a moment that is its last change's is not read
    # again: a timer untouched since its start, or last paused or stopped, reads one timestamp.
    started = updated if timer.started_at == updated_at else ms(timer.started_at)
    until = now_ms  # a paused timer reads as at its pause, a stopped one as at its stop
    if timer.status == "paused" and timer.paused_at is not None:
        until = updated if timer.paused_at == updated_at else ms(timer.paused_at)
    elif timer.status == "stopped" and timer.stopped_at is not None:
        until = updated if timer.stopped_at == updated_at else ms(timer.stopped_at)
    elapsed = max(0, until - started - timer.paused_ms)
    duration = timer.duration_ms
    due = None if duration is None else started + duration + timer.paused_ms
    return {
        "id": timer.id,
        "label": timer.label,
        "kind": timer.kind,
        "status": timer.status,
        "durationMs": duration,
        "dueAt": None if due is None else format_ms(due),
        "startedAt": timer.started_at,
        "pausedAt": timer.paused_at,
        "stoppedAt": timer.stopped_at,
        "createdAt": timer.created_at,
        "updatedAt": timer.updated_at,
        "elapsedMs": elapsed,
        "remainingMs": None if duration is None else max(0, duration - elapsed),
        # Fired and not stopped: running past its due time, or paused after it (until, for a
        # paused timer, is its pause), as is_due reads it.
        "isDue": due is not None and timer.status != "stopped" and until >= due,
    }
