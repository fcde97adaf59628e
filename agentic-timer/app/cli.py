# /// script
# requires-python = ">=3.11"
# dependencies = ["typer>=0.29", "filelock>=3.12", "pydantic>=2.7", "tzdata; sys_platform == 'win32'"]
# ///
"""Agentic Timer: countdowns and stopwatches an agent can set, poll and act on.

Run from the package root as `python3 app/cli.py <command> ...`. Each command reads the clock
once, checks its input, runs one transition inside one store transaction (or one lock-free
read), and returns the timers as they read at that moment.
"""

import _signal  # type: ignore[import-not-found]  # `signal`'s C core: it loads no Python code

# Before any other import, so that a SIGINT while they load ends the run quietly, as SIGTERM does
# (agentic_kit/interrupts.py), not with a traceback; hence no `from __future__`, which must come
# first. A background job's SIGINT stays ignored.
if __name__ == "__main__" and _signal.getsignal(_signal.SIGINT) is _signal.default_int_handler:
    _signal.signal(_signal.SIGINT, _signal.SIG_DFL)

import os
import sys

# No install step: the app's folder (the vendored kit, the app's package) goes first on the path.
sys.path.insert(0, os.path.dirname(os.path.realpath(__file__)))
# Then, before anything builds a model: pydantic's plugins off (agentic_kit/plugins_off.py says why).
import agentic_kit.plugins_off  # noqa: F401

# isort: split

import gc

# A run is one command in a process of its own, and no cycle it makes outlives it: the cycle
# collector stays off, sparing its passes over every object as the modules load and the state is
# read (about a twentieth of a call). A process that imports this script keeps its collector.
if __name__ == "__main__":
    gc.disable()

# Before typer: a Python without the app's dependencies answers with one JSON error, not a
# traceback (in an `if`, which ruff lets come before the imports; an importer gets ImportError).
from agentic_kit.requirements import exit_unless_installed

if __name__ == "__main__":
    exit_unless_installed()

from typing import Annotated, Literal

import typer

from agentic_kit import (
    Confirm,
    Moment,
    Payload,
    SortKey,
    backup,
    change_one,
    check_bound,
    check_query,
    exclusive,
    file_path,
    format_timestamp,
    item_payload,
    limit_option,
    limited_payload,
    new_app,
    now,
    option_in_words,
    remove_one,
    sort_items,
    sort_option,
    to_ms,
    validation_error,
)
from timer import inputs, operations
from timer.envelopes import ENVELOPES
from timer.models import ID_PREFIX, Status, Timer, TimerState, TimerView, timer_problem
from timer.readings import ms, view

PACKAGE = "agentic-timer"  # named in its exports, so another app's import says whose it is

app = new_app(
    "Agentic Timer: countdowns and stopwatches with a JSON-first CLI.",
    state=TimerState,
    state_file="timers.json",  # in AGENTIC_STATE_DIR, else app/state/
    state_env="AGENTIC_TIMER_STATE_FILE",  # a file of its own, instead
    entity=TimerView,  # a timer as read at the moment of the command
    entity_name="timer-view",  # schemas/timer-view.schema.json
    summary={"id": "{}", "status": "[{}]", "kind": "[{}]", "label": "{}", "dueAt": "due {}"},
    # --human reads these as durations (`elapsed  8m 23s`), not as counts of milliseconds.
    durations={"durationMs": "duration", "elapsedMs": "elapsed", "remainingMs": "remaining"},
    envelopes=ENVELOPES,  # export, import
)

TimerId = Annotated[str, typer.Argument(metavar="ID", help="An id such as tm_0001.")]


# The values `list --status` takes: typer reads a Literal's values as the option's choices.
StatusFilter = Literal["active", "running", "paused", "stopped", "all"]

STATUSES_SHOWN: dict[StatusFilter, set[Status]] = {
    "active": {"running", "paused"},
    "running": {"running"},
    "paused": {"paused"},
    "stopped": {"stopped"},
    "all": {"running", "paused", "stopped"},
}


@app.command(mutates=True)
@exclusive(("--duration", "--due-at", "--stopwatch"))
@option_in_words("--duration", inputs.length_in_word)  # `start 10m tea time`: a 10m countdown
def start(
    label: Annotated[str, typer.Argument(help="What the timer is for (one line).")] = "",
    duration: Annotated[str | None, typer.Option(help="Countdown length: 90s, 25m, 1h30m, PT25M.")] = None,
    due_at: Annotated[str | None, typer.Option(help="Countdown end: an ISO date-time with offset.")] = None,
    stopwatch: Annotated[
        bool, typer.Option("--stopwatch", help="A stopwatch, even when the label reads as a duration.")
    ] = False,
) -> Payload:
    """Start a countdown (with --duration or --due-at) or a stopwatch (with neither)."""
    moment = Moment()
    label = inputs.check_label(label)
    if duration is not None and due_at is not None:
        raise validation_error(
            "Give --duration or --due-at, not both.",
            "A countdown takes its length (--duration 25m) or its end (--due-at); a stopwatch neither.",
        )
    if stopwatch and (duration is not None or due_at is not None):
        raise validation_error(
            "Give --stopwatch, or --duration or --due-at, not both.",
            "A countdown needs --duration or --due-at; a stopwatch has neither.",
        )
    if duration is None and due_at is None and not stopwatch:
        inputs.check_not_a_duration(label)
    length = inputs.check_duration(duration) if duration is not None else None
    if due_at is not None:
        inputs.duration_until(due_at, now())  # refused before the lock (and its file) is taken
    with app.store().transaction() as state:
        instant = moment.instant()  # read under the lock (clock.Moment)
        if due_at is not None:  # measured from the moment it starts: it ends at --due-at exactly
            length = inputs.duration_until(due_at, instant)
        timer = operations.start_timer(state, label=label, duration_ms=length, now=format_timestamp(instant))
        started = view(timer, to_ms(instant))  # computed before the commit: nothing can fail after it
    return item_payload(started)


@app.command("list")
def list_timers(
    status: Annotated[
        StatusFilter, typer.Option(help="active (running and paused), or one status, or all.")
    ] = "active",
    sort: Annotated[SortKey | None, sort_option(SortKey.created)] = None,
    limit: Annotated[int | None, limit_option("timers")] = None,
) -> Payload:
    """List timers in creation order; by default the running and paused ones."""
    now_ms = to_ms(now())
    selected = operations.select_timers(app.store().load(), STATUSES_SHOWN[status])
    return limited_payload(
        _sorted(selected, sort or SortKey.created), limit, lambda timer: view(timer, now_ms)
    )


@app.command()
def search(
    query: Annotated[list[str], typer.Argument(metavar="WORDS...", help="Words the label must all hold.")],
    status: Annotated[StatusFilter, typer.Option(help="Which timers to search.")] = "all",
    limit: Annotated[int | None, limit_option("timers")] = None,
) -> Payload:
    """Find timers whose label holds every word (folding case and accents), newest first."""
    terms = check_query(query)
    now_ms = to_ms(now())
    found = operations.search_timers(app.store().load(), terms, STATUSES_SHOWN[status])
    return limited_payload(found, limit, lambda timer: view(timer, now_ms))


@app.command()
def get(timer_id: TimerId) -> Payload:
    """Fetch one timer with its figures as of now."""
    timer_id = inputs.check_timer_id(timer_id)
    now_ms = to_ms(now())
    return item_payload(view(operations.find_timer(app.store().load(), timer_id), now_ms))


@app.command(mutates=True)
def pause(timer_id: TimerId) -> Payload:
    """Pause a running timer; a countdown keeps its remaining time."""
    return _transition(timer_id, operations.pause_timer)


@app.command(mutates=True)
def resume(timer_id: TimerId) -> Payload:
    """Resume a paused timer; a countdown's due time moves later by the paused span."""
    return _transition(timer_id, operations.resume_timer)


@app.command(mutates=True)
def stop(timer_id: TimerId) -> Payload:
    """Stop a timer for good (also acknowledges a fired countdown). Stopping again changes nothing."""
    return _transition(timer_id, operations.stop_timer)


@app.command()
def due(
    before: Annotated[
        str | None, typer.Option(help="Countdowns due before this date or instant instead of by now.")
    ] = None,
    sort: Annotated[SortKey | None, sort_option(SortKey.due)] = None,
    limit: Annotated[int | None, limit_option("timers")] = None,
) -> Payload:
    """Fired countdowns not yet stopped (running or paused), soonest first: poll this."""
    now_ms = to_ms(now())
    if before is not None:
        fired = operations.due_timers(
            app.store().load(), to_ms(check_bound("--before", before)), inclusive=False
        )
    else:
        fired = operations.due_timers(app.store().load(), now_ms)
    return limited_payload(_sorted(fired, sort or SortKey.due), limit, lambda timer: view(timer, now_ms))


@app.command(mutates=True, confirmation=True)
def remove(timer_id: TimerId, confirm: Confirm = False) -> Payload:
    """Delete a timer. The --confirm flag is required because the operation is destructive."""
    timer_id = inputs.check_timer_id(timer_id)
    moment = Moment()
    return remove_one(
        app.store(),
        timer_id,
        confirm=confirm,
        find=operations.find_timer,
        remove=operations.remove_timer,
        shown=lambda timer: view(timer, to_ms(moment.instant())),
    )


def _sorted(timers: list[Timer], key: str) -> list[Timer]:
    return sort_items(timers, key, due=operations.due_moment, updated=lambda timer: timer.updated_at)


def _transition(timer_id: str, change: operations.Transition) -> Payload:
    """One state change of one timer, under the lock, read back at the moment it recorded (before
    the commit, so that nothing can fail once the change is saved)."""
    timer_id = inputs.check_timer_id(timer_id)
    moment = Moment()
    return change_one(
        app.store(),
        timer_id,
        operations.find_timer,
        lambda timer: change(timer, now=moment.stamp()),
        shown=lambda timer: _view_at(timer, moment),
    )


def _view_at(timer: Timer, moment: Moment) -> dict[str, object]:
    """A changed timer read back as of its change: the clock's moment, or its last change when the
    clock read before it (operations.moment_of_change), so its figures agree with what it records."""
    return view(timer, max(to_ms(moment.instant()), ms(timer.updated_at)))


@app.command(mutates=True)
def extend(
    timer_id: TimerId,
    duration: Annotated[
        str, typer.Argument(parser=inputs.time_to_add, help="Time to add: 90s, 25m, 1h30m, PT25M.")
    ],
) -> Payload:
    """Add time to a running or paused countdown; one already due counts it from now (a snooze)."""
    timer_id = inputs.check_timer_id(timer_id)
    added = inputs.check_duration(duration, "DURATION", capped=False)
    moment = Moment()
    return change_one(
        app.store(),
        timer_id,
        operations.find_timer,
        lambda timer: operations.extend_timer(timer, duration_ms=added, now=moment.stamp()),
        shown=lambda timer: _view_at(timer, moment),
    )


@app.command(mutates=True)
def rename(
    timer_id: TimerId, label: Annotated[str, typer.Argument(help="The new label (one line).")]
) -> Payload:
    """Give a timer a new label, whatever its status."""
    timer_id = inputs.check_timer_id(timer_id)
    label = inputs.check_label(label)
    moment = Moment()
    return change_one(
        app.store(),
        timer_id,
        operations.find_timer,
        lambda timer: operations.rename_timer(timer, label=label, now=moment.stamp()),
        shown=lambda timer: _view_at(timer, moment),
    )


@app.command()
def export() -> Payload:
    """Print every timer whole, for `import`."""
    state = app.store().load()
    return backup.export_payload(state, state.timers, app=PACKAGE)


@app.command("import", mutates=True)
def import_timers(
    file: Annotated[
        str,
        typer.Option(parser=file_path, metavar="PATH", help="An export to read; - for stdin."),
    ],
) -> Payload:
    """Restore an export: same ids if empty and none reused, else new ones; all or none."""
    # Read and checked before the lock: a writer queued behind it never waits on the parse.
    read = backup.read_export(
        "--file",
        file,
        Timer.model_validate,
        TimerState.SCHEMA_VERSION,
        _timer_problem,
        app=PACKAGE,
        id_prefix=ID_PREFIX,
    )
    with app.store().transaction() as state:
        # `list` alone hides stopped timers: the hint names the call that shows every one.
        return backup.import_items(
            state, state.timers, read, id_prefix=ID_PREFIX, kind="timers", list_call="list --status all"
        )


def _timer_problem(timer: Timer) -> str | None:
    problem = timer_problem(timer)
    return None if problem is None else f"the timer {problem}"


app.prepare()  # built once here: a warm process, which runs this body once, holds it

if __name__ == "__main__":
    app.main()
