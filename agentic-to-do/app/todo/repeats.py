"""Repeating to-dos: the next due of a rule (`daily`, `weekly`, `monthly`, `yearly`, `every:<N>d`).

A date-only due steps by the calendar. An instant due steps its local date in the user's zone and
keeps its local wall-clock time, so 09:00 in New York stays 09:00 across a change of daylight
saving time. A month or year that has no such day clamps to its last day (Jan 31 monthly is
Feb 28 or 29; Feb 29 yearly is Feb 28). A local time that the zone skips that day (a spring
gap) comes out moved forward by the gap, and later steps keep the moved time: the item holds only
its due, and 03:30 on the day of the gap is the same instant as the skipped 02:30, so nothing
tells a moved 02:30 from a chosen 03:30. One that happens twice (the autumn fold) is its first.
"""

from __future__ import annotations

import re
from datetime import UTC, date, datetime, timedelta, tzinfo

from agentic_kit.dates import LATEST, format_timestamp, parse_instant
from agentic_kit.errors import AppError, ErrorCode

_DATE_ONLY = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}")
_EVERY_DAYS = re.compile(r"every:([1-9][0-9]{0,3})d")
_DAYS = {"daily": 1, "weekly": 7}
_MONTHS = {"monthly": 1, "yearly": 12}


def next_due(due: str, rule: str, zone: tzinfo) -> str:
    """The due one step of `rule` after the stored `due` (a date, or a UTC instant with
    milliseconds), in the stored form; a CONFLICT when it would pass the last date the apps keep."""
    if _DATE_ONLY.fullmatch(due):
        following = _step(date.fromisoformat(due), rule)
        if following > LATEST.date():
            raise _past_the_range(due)
        return following.isoformat()
    local = parse_instant(due).astimezone(zone)
    stepped = datetime.combine(_step(local.date(), rule), local.timetz().replace(tzinfo=None))
    try:
        instant = stepped.replace(tzinfo=zone, fold=0).astimezone(UTC)
    except OverflowError:
        raise _past_the_range(due) from None
    if instant > LATEST:
        raise _past_the_range(due)
    return format_timestamp(instant)


def _step(day: date, rule: str) -> date:
    if rule in _DAYS:
        return _add_days(day, _DAYS[rule])
    if rule in _MONTHS:
        return _add_months(day, _MONTHS[rule])
    match = _EVERY_DAYS.fullmatch(rule)
    if match is None:
        raise ValueError(f"not a repeat rule: {rule!r}")  # the model admits no other
    return _add_days(day, int(match[1]))


def _add_days(day: date, days: int) -> date:
    try:
        return day + timedelta(days=days)
    except OverflowError:
        return date.max  # past the range either way: the caller refuses it


def _add_months(day: date, months: int) -> date:
    index = day.year * 12 + day.month - 1 + months
    year, month = divmod(index, 12)
    if year > date.max.year:
        return date.max
    import calendar  # only a monthly or yearly step needs it: every other run is spared its import

    last = calendar.monthrange(year, month + 1)[1]
    return date(year, month + 1, min(day.day, last))


def _past_the_range(due: str) -> AppError:
    return AppError(
        ErrorCode.CONFLICT,
        f"The next due after {due} would pass 9997-12-31, the last date the apps keep.",
        "Remove the repeat (update --clear-repeat) and complete it again.",
    )
