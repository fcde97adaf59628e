"""Dates: the one parser for due dates and bounds, and how a due compares with now.

A due is either a calendar date `YYYY-MM-DD` (kept as written) or an instant (an ISO-8601
date-time with an offset, kept in UTC). A date-only due has come at 00:00:00Z of its day
(`due_start`) and lasts through the end of that day in UTC: it is overdue from 00:00:00Z of
the next day (`deadline`).
"""

from __future__ import annotations

import re
from datetime import UTC, date, datetime, time, timedelta

_DATE = re.compile(r"\d{4}-\d{2}-\d{2}")
_DATETIME = re.compile(
    r"(?P<date>\d{4}-\d{2}-\d{2})T\d{2}:\d{2}(:\d{2}(\.\d{1,6})?)?(?P<zone>Z|[+-]\d{2}:\d{2})?"
)
_LAST_MILLISECOND = timedelta(days=1, milliseconds=-1)
_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)

DUE_FORMATS = "a date YYYY-MM-DD or a date-time with an offset like 2026-04-05T09:00:00Z"


def format_timestamp(instant: datetime) -> str:
    """UTC with milliseconds and Z, e.g. 2026-04-01T00:00:00.000Z."""
    return instant.astimezone(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def to_ms(instant: datetime) -> int:
    """Whole milliseconds since the epoch, truncated like the timestamps we print (exact: no floats)."""
    delta = instant - _EPOCH
    return (delta.days * 86_400 + delta.seconds) * 1000 + delta.microseconds // 1000


def from_ms(milliseconds: int) -> datetime:
    return _EPOCH + timedelta(milliseconds=milliseconds)


def parse_date(text: str) -> date:
    """A calendar date written exactly YYYY-MM-DD; raises ValueError otherwise."""
    if not _DATE.fullmatch(text):
        raise ValueError(text)
    return date.fromisoformat(text)


def parse_instant(text: str, *, assume_utc: bool = False) -> datetime:
    """An ISO-8601 date-time with Z or an offset, returned in UTC; raises ValueError otherwise.

    Without an offset it is refused, unless `assume_utc` says what it means.
    """
    match = _DATETIME.fullmatch(text)
    if not match or (match["zone"] is None and not assume_utc):
        raise ValueError(text)
    parsed = datetime.fromisoformat(text.replace("Z", "+00:00"))
    if parsed.tzinfo is None:
        parsed = parsed.replace(tzinfo=UTC)
    return parsed.astimezone(UTC)


def parse_due(text: str) -> str:
    """Normalise a --due-at value: a date stays as written, an instant becomes UTC ms Z."""
    text = text.strip()
    try:
        if _DATE.fullmatch(text):
            parse_date(text)
            return text
        return format_timestamp(parse_instant(text))
    except ValueError:
        raise ValueError(f"not a due date: {text!r}") from None


def parse_bound(text: str) -> datetime:
    """A bound like --due-before: a date means 00:00:00Z of that day; an instant is itself."""
    text = text.strip()
    if _DATE.fullmatch(text):
        return datetime.combine(parse_date(text), time(), UTC)
    return parse_instant(text)


def due_start(due: str) -> datetime:
    """The first instant a stored due has come: 00:00:00Z of the day for a date-only due."""
    if _DATE.fullmatch(due):
        return datetime.combine(date.fromisoformat(due), time(), UTC)
    return parse_instant(due)


def deadline(due: str) -> datetime:
    """The last instant a stored due allows: the end of the day (UTC) for a date-only due."""
    if _DATE.fullmatch(due):
        return datetime.combine(date.fromisoformat(due), time(), UTC) + _LAST_MILLISECOND
    return parse_instant(due)
