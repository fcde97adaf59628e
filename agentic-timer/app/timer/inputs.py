"""Checks on a timer's own inputs; the kit's `inputs` has the shared ones."""

from __future__ import annotations

from datetime import datetime

from agentic_kit.dates import DateError, OutOfRange, format_timestamp, parse_instant, to_ms
from agentic_kit.durations import DURATION_FORMATS, format_duration, parse_duration, read_as_duration
from agentic_kit.errors import AppError, validation_error
from agentic_kit.hints import BadValue
from agentic_kit.ids import check_id
from agentic_kit.inputs import check_text, near_hint
from agentic_kit.text import quoted

from .models import ID_PREFIX, LABEL_MAX_CHARS, MAX_DURATION_MS


def check_label(label: str) -> str:
    return check_text("label", label, max_chars=LABEL_MAX_CHARS, single_line=True)


def check_not_a_duration(label: str) -> None:
    """`start 25m` (or `25 min`, `1:30`, `5`) with neither --duration nor --stopwatch: the label
    reads as a duration, so the caller most likely meant a countdown; a stopwatch labelled so is
    made only on purpose. The hint names only a --duration that start would take."""
    reading = read_as_duration(label)
    if reading is None:
        return
    keep = f"to keep {quoted(label)} as a stopwatch's label, add --stopwatch"
    if reading.bare:
        fits = [f"--duration {value}" for value in _bare_lengths(label)]
        fix = (
            f"A number alone has no unit: for a countdown give one, {' or '.join(fits)}"
            if fits
            else f"A number alone has no unit, and no unit makes it a length start takes: {_RANGE}"
        )
    elif reading.ms is not None and 0 < reading.ms <= MAX_DURATION_MS:
        value = format_duration(reading.ms)
        # A call that works as it is: no LABEL placeholder, which start would store as the label.
        fix = f"For a countdown give --duration {value} (`start --duration {value}`, a label after it)"
    else:
        fix = f"No countdown has that length: {_RANGE}"
    raise validation_error(
        f"The label {quoted(label)} reads as a duration, but start was given neither --duration "
        "nor --stopwatch.",
        f"{fix}; {keep}.",
    )


def length_in_word(word: str) -> str | None:
    """The --duration a word of start's label stands for (`10m` of `start 10m tea time`), as start
    takes it; None for a word that reads as no length start takes, or as a number alone."""
    reading = read_as_duration(word)
    if reading is None or reading.bare or reading.ms is None or not 0 < reading.ms <= MAX_DURATION_MS:
        return None
    return format_duration(reading.ms)


_RANGE = "a --duration is above zero and at most 366 days (366d)"


def _bare_lengths(number: str) -> list[str]:
    """The accepted --duration values the bare `number` makes in seconds, minutes and hours."""
    values = []
    for unit in "smh":
        reading = read_as_duration(f"{number.strip()}{unit}")
        if reading is not None and reading.ms is not None and 0 < reading.ms <= MAX_DURATION_MS:
            values.append(format_duration(reading.ms))
    return values


def time_to_add(text: str) -> str:
    """extend's DURATION, refused when it starts with - (`extend tm_0001 -5m`): a countdown only
    grows, so no hint offers `-- -5m`, which would be refused again. A dash before no length
    (`--foo`), or before one of none (`-0m`, which takes nothing away), is refused here as no
    duration; the rest is check_duration's, in the command."""
    stripped = text.lstrip()
    if not stripped.startswith("-"):
        return text
    after = read_as_duration(stripped[1:])
    some = after is not None and (
        any(digit in "123456789" for digit in stripped[1:]) if after.bare else bool(after.ms)
    )
    if some:
        raise BadValue(
            f"{quoted(text)} would take time away.",
            "extend only adds time: give a positive length, such as 5m. A countdown cannot be "
            "shortened: to end it sooner, stop it and start one with the --duration left.",
        )
    try:
        parse_duration(text)
    except ValueError as error:  # check_duration's words for a text that reads as no length
        raise BadValue(f"{quoted(text)} {error}.", f"Write it {DURATION_FORMATS}.") from None
    return text


def check_duration(text: str, name: str = "--duration", capped: bool = True) -> int:
    """`capped`: refuse a length past 366 days here; extend leaves that to the timer, whose hint
    gives the most that timer can still take (366d itself would be refused for the total)."""
    try:
        duration = parse_duration(text)
    except ValueError as error:
        raise _not_a_duration(text, name, str(error), capped) from None
    if not capped and duration > MAX_DURATION_MS:
        return duration
    return _check_length(duration, f"{name} {quoted(text)}")


def duration_until(text: str, now: datetime) -> int:
    """The countdown length that ends at --due-at; it must be a date-time in the future."""
    try:
        due = parse_instant(text.strip() if text.isascii() else text)
    except DateError as error:
        written = "Write it like YYYY-MM-DDTHH:MM:SSZ, or with an offset (+02:00)."
        near = None if isinstance(error, OutOfRange) else near_hint("--due-at", text, now, instant_only=True)
        hint = OutOfRange.hint if isinstance(error, OutOfRange) else near or written
        raise validation_error(f"--due-at {quoted(text)} {error}.", hint) from None
    what = f"--due-at {quoted(text)}"
    if to_ms(due) <= to_ms(now):
        # The clock the app read (AGENTIC_NOW when set) is said: it may be the one that is wrong.
        raise validation_error(
            f"{what} is not in the future: the app's clock reads {format_timestamp(now)}.",
            "Give a later --due-at, or a length with --duration (25m); if the clock is wrong, check "
            "it (or AGENTIC_NOW).",
        )
    return _check_length(to_ms(due) - to_ms(now), what)


def _not_a_duration(text: str, name: str, error: str, capped: bool) -> AppError:
    """The refusal of a length not in an accepted form; its hint the accepted form of the length
    meant when the text reads as one (`15min` is 15m), and for a number alone, which has no unit,
    the length in minutes first (`extend tm_0001 5`: most likely 5m)."""
    given = f"{name} " if name.startswith("--") else ""
    reading = read_as_duration(text)
    if reading is not None and reading.bare:
        fits = {unit: _in_unit(text, unit, capped) for unit in "msh"}
        if fits["m"] is not None:
            others = [
                f"{fits[unit]} for {word}" for unit, word in (("s", "seconds"), ("h", "hours")) if fits[unit]
            ]
            rest = f"; {' or '.join(others)}" if others else ""
            hint = f"For minutes give {given}{fits['m']}{rest}."
        else:
            hint = f"Give a unit, {DURATION_FORMATS}."
        return validation_error(f"{name} {quoted(text)} has no unit.", hint)
    message = f"{name} {quoted(text)} {error}."
    if reading is not None and reading.ms is not None and reading.ms > 0:
        if capped and reading.ms > MAX_DURATION_MS:
            return validation_error(message, f"It reads as more than the limit: {_RANGE}.")
        return validation_error(message, f"Did you mean {given}{format_duration(reading.ms)}?")
    return validation_error(message, f"Write it {DURATION_FORMATS}.")


def _in_unit(number: str, unit: str, capped: bool) -> str | None:
    """The bare `number` as a length in `unit`, in the accepted form, when it is one to take."""
    reading = read_as_duration(f"{number.strip()}{unit}")
    if reading is None or reading.ms is None or reading.ms <= 0 or (capped and reading.ms > MAX_DURATION_MS):
        return None
    return format_duration(reading.ms)


def _check_length(duration: int, what: str) -> int:
    if duration <= 0:
        raise validation_error(
            f"{what} must be longer than zero.",
            "Give a length above zero, such as 90s or 25m"
            + ("; for a stopwatch leave --duration out." if what.startswith("--duration") else "."),
        )
    if duration > MAX_DURATION_MS:
        raise validation_error(
            f"{what} is longer than the limit of 366 days.", "Give a length of at most 366 days (366d)."
        )
    return duration


def check_timer_id(timer_id: str) -> str:
    return check_id(ID_PREFIX, timer_id)
