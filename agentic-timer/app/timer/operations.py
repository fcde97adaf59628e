"""The timer state machine, as plain functions over the state; the CLI runs each in one transaction.

    start ──► running ──pause──► paused ──resume──► running
                 │                  │
                 └──────stop────────┴──► stopped (final)

Pausing a paused timer, resuming a running one, and pausing or resuming a stopped one are
CONFLICTs. Stopping a stopped timer succeeds and changes nothing. A timer's moments only move
forward: a change at a clock before its last change (updatedAt) is made at that last change
(changes.moment_of_change), so no paused span is negative, every figure computed from the timer
stays inside the calendar, and a clock that stepped back locks no one out.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Protocol

from agentic_kit.changes import moment_of_change
from agentic_kit.dates import from_ms
from agentic_kit.durations import format_duration
from agentic_kit.errors import AppError, ErrorCode, validation_error
from agentic_kit.ids import find_by_id, format_id
from agentic_kit.search import search

from .models import ID_PREFIX, MAX_DURATION_MS, Status, Timer, TimerState
from .readings import due_ms, is_due, ms


class Transition(Protocol):
    def __call__(self, timer: Timer, *, now: str) -> None: ...


def start_timer(state: TimerState, *, label: str, duration_ms: int | None, now: str) -> Timer:
    timer = Timer(
        id=format_id(ID_PREFIX, state.take_id()),
        label=label,
        kind="stopwatch" if duration_ms is None else "countdown",
        duration_ms=duration_ms,
        started_at=now,
        created_at=now,
        updated_at=now,
    )
    state.timers.append(timer)
    return timer


def find_timer(state: TimerState, timer_id: str) -> Timer:
    # `list` shows only running and paused timers by default: the hint names the way to all.
    return find_by_id(state.timers, timer_id, "timer", list_command="list --status all")


def select_timers(state: TimerState, statuses: set[Status]) -> list[Timer]:
    """Timers in creation order with one of the statuses."""
    return [timer for timer in state.timers if timer.status in statuses]


@dataclass(frozen=True)
class _Labelled:
    """A timer as the kit's search reads an entity: its label is its title; it has no tags."""

    timer: Timer
    tags: tuple[str, ...] = ()

    @property
    def title(self) -> str:
        return self.timer.label


def search_timers(state: TimerState, terms: list[str], statuses: set[Status]) -> list[Timer]:
    """Timers whose label holds every term, folded as every app's search folds (case, accents,
    compatibility forms), newest first."""
    newest_first = [_Labelled(timer) for timer in reversed(select_timers(state, statuses))]
    return [hit.timer for hit in search(newest_first, terms, lambda _: "")]


def due_timers(state: TimerState, now_ms: int, *, inclusive: bool = True) -> list[Timer]:
    """Countdowns that have fired and are not stopped (running past their due time, or paused
    after it: `is_due`), whose due time has come by now_ms (or before it, when not inclusive), in
    creation order."""
    if inclusive:
        return [timer for timer in state.timers if is_due(timer, now_ms)]
    return [
        timer
        for timer in state.timers
        if (due := due_ms(timer)) is not None and due < now_ms and is_due(timer, now_ms)
    ]


def due_moment(timer: Timer) -> datetime | None:
    """Where a timer sorts by due: a countdown's due time; a stopwatch has none."""
    due = due_ms(timer)
    return None if due is None else from_ms(due)


def pause_timer(timer: Timer, *, now: str) -> None:
    if timer.status == "paused":  # not "resume it": that would set it running, the opposite
        raise AppError(
            ErrorCode.CONFLICT,
            f"Cannot pause timer {timer.id}: it is paused.",
            "It is already paused, so nothing needs doing.",
        )
    if timer.status != "running":
        raise _conflict(timer, "pause", None)
    now = moment_of_change(timer, now)
    timer.status = "paused"
    timer.paused_at = now
    timer.updated_at = now


def resume_timer(timer: Timer, *, now: str) -> None:
    if timer.status != "paused" or timer.paused_at is None:
        if timer.status == "running":  # not "pause it first": pause then resume gets nowhere
            raise AppError(
                ErrorCode.CONFLICT,
                f"Cannot resume timer {timer.id}: it is running.",
                "It is already running, so nothing needs doing.",
            )
        raise _conflict(timer, "resume", None)
    now = moment_of_change(timer, now)
    timer.paused_ms += ms(now) - ms(timer.paused_at)  # the due time moves by the paused span
    timer.status = "running"
    timer.paused_at = None
    timer.updated_at = now


def stop_timer(timer: Timer, *, now: str) -> None:
    """Final. Stopping a stopped timer changes nothing, so a retried stop is harmless."""
    if timer.status == "stopped":
        return
    now = moment_of_change(timer, now)
    if timer.paused_at is not None:
        timer.paused_ms += ms(now) - ms(timer.paused_at)  # a pause ends where the timer stops
        timer.paused_at = None
    timer.status = "stopped"
    timer.stopped_at = now
    timer.updated_at = now


def remove_timer(state: TimerState, timer: Timer) -> None:
    # The ID counter is untouched, so the removed timer's ID is never handed out again.
    state.timers = [kept for kept in state.timers if kept is not timer]


def _conflict(timer: Timer, action: str, fix: str | None) -> AppError:
    hint = f"It is {timer.status}; {fix}." if fix else "A stopped timer is final; start a new one."
    return AppError(ErrorCode.CONFLICT, f"Cannot {action} timer {timer.id}: it is {timer.status}.", hint)


def extend_timer(timer: Timer, *, duration_ms: int, now: str) -> None:
    """Add time to a running or paused countdown: its due time moves later by that much, and its
    updatedAt is the moment of the change, as every change's is. One already due (no time left)
    gets the time from the moment of the extend: a snooze of a reminder that fired long ago
    makes it due that much later than now, not still due at once."""
    if timer.kind != "countdown" or timer.duration_ms is None:
        raise AppError(
            ErrorCode.CONFLICT,
            f"Cannot extend timer {timer.id}: it is a stopwatch, which has no end to move.",
            "Start a countdown with --duration instead.",
        )
    if timer.status == "stopped":
        raise _conflict(timer, "extend", None)
    now = moment_of_change(timer, now)
    # Its running time so far (a paused one's, up to its pause): past its duration, it is due.
    until = ms(timer.paused_at) if timer.paused_at is not None else ms(now)
    ran = until - ms(timer.started_at) - timer.paused_ms
    base = max(timer.duration_ms, ran)
    total = base + duration_ms
    if total > MAX_DURATION_MS:
        room = max(MAX_DURATION_MS - base, 0)
        # The hint's figure is a DURATION extend takes (above zero), or says that none fits.
        hint = (
            f"Extend it by {format_duration(room)} at most (`extend {timer.id} {format_duration(room)}`), "
            "or start another timer."
            if room
            else "It is already 366 days long, the most a timer can run, so no extend fits; start "
            "another timer for the time past its dueAt."
            if base == timer.duration_ms
            else f"It has run {format_duration(ran)}, past 366 days, the most a countdown can be long, so "
            "no extend fits; start another timer."
        )
        raise validation_error(
            f"Extending timer {timer.id} by {format_duration(duration_ms)} would make it "
            f"{format_duration(total)} long; a countdown is at most 366 days "
            f"({format_duration(MAX_DURATION_MS)}).",
            hint,
        )
    timer.duration_ms = total
    timer.updated_at = now


def rename_timer(timer: Timer, *, label: str, now: str) -> None:
    """Give a timer a new label, in any status (a stopped one too), at the moment of the change."""
    timer.label = label
    timer.updated_at = moment_of_change(timer, now)
