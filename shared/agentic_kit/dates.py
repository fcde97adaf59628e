"""Dates: the one parser for due dates and bounds, the range every instant must lie in, and how a
due compares with now.

A due is either a calendar date `YYYY-MM-DD` (kept as written) or an instant (an ISO-8601
date-time with an offset, kept in UTC). A date's day is the user's (zones.py): a date-only due
has come at the start of its day in the user's zone (`due_start`) and lasts through the end of
that day: as a deadline it is overdue from the start of the next day (`deadline`). A date given
as a bound means the start of its day (`parse_bound`), or, for an "after" bound, its end
(`parse_after_bound`).

Every date and instant the apps accept — given, read from AGENTIC_NOW, or kept in a state file —
lies between 0001-01-01T00:00:00.000Z and 9997-12-31T23:59:59.999Z. The calendar Python can
count in ends with 9999; the last two years are left free so that what is computed from an
accepted instant (a day's end, a countdown of up to 366 days, its pauses) always fits in it.
Only ASCII digits count as digits. The apps keep instants to the millisecond, so the range applies
to an instant as kept: 9997-12-31T23:59:59.9999Z is on the range's last day.

A text that is not accepted raises a `DateError` whose message says what is wrong with it, in words
that follow the text in a sentence ("'2026-02-30' is not a real date"), so that a message never
sends an agent to fix what was right.
"""

from __future__ import annotations

import re
from datetime import UTC, date, datetime, time, timedelta, tzinfo

from . import zones

_DATE = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}")
_DATETIME = re.compile(
    r"(?P<date>[0-9]{4}-[0-9]{2}-[0-9]{2})T[0-9]{2}:[0-9]{2}(:[0-9]{2}(\.(?P<fraction>[0-9]+))?)?"
    r"(?P<zone>Z|[+-][0-9]{2}:[0-9]{2})?"
)
_MAX_FRACTION_DIGITS = 6  # microseconds: what a date-time can hold
_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
_NAIVE_EPOCH = datetime(1970, 1, 1)  # format_ms's: read as UTC

EARLIEST = datetime(1, 1, 1, tzinfo=UTC)
LATEST = datetime(9997, 12, 31, 23, 59, 59, 999_000, tzinfo=UTC)
RANGE = "0001-01-01 to 9997-12-31 (UTC)"
DUE_FORMATS = "a date YYYY-MM-DD or a date-time with an offset like YYYY-MM-DDTHH:MM:SSZ"

# The forms a state file keeps, as patterns the models check in one pass (pydantic's regex
# engine, so a file of 10,000 entities costs no Python per value): a real calendar day in the
# range above, and an instant in the kit's own UTC form with milliseconds.
_YEAR = r"(?:000[1-9]|00[1-9][0-9]|0[1-9][0-9]{2}|[1-8][0-9]{3}|9[0-8][0-9]{2}|99[0-8][0-9]|999[0-7])"
_LEAP_YEAR = r"(?:[0-9]{2}(?:0[48]|[2468][048]|[13579][26])|(?:0[48]|[2468][048]|[13579][26])00)"
_MONTH_AND_DAY = (
    r"(?:(?:0[13578]|1[02])-(?:0[1-9]|[12][0-9]|3[01])"
    r"|(?:0[469]|11)-(?:0[1-9]|[12][0-9]|30)"
    r"|02-(?:0[1-9]|1[0-9]|2[0-8]))"
)
_DAY = rf"(?:{_YEAR}-{_MONTH_AND_DAY}|{_LEAP_YEAR}-02-29)"
_TIME = r"T(?:[01][0-9]|2[0-3]):[0-5][0-9]:[0-5][0-9]\.[0-9]{3}Z"
STORED_INSTANT_PATTERN = rf"^{_DAY}{_TIME}$"
STORED_DUE_PATTERN = rf"^{_DAY}(?:{_TIME})?$"


# What is wrong with a text, said after it: "'tomorrow' is not a date YYYY-MM-DD or …".
NOT_ASCII = "holds characters that are not ASCII (only ASCII digits count)"
NOT_A_DATE_TIME = "is not an ISO-8601 date-time like YYYY-MM-DDTHH:MM:SSZ"
NOT_A_DUE = "is not a date YYYY-MM-DD or a date-time like YYYY-MM-DDTHH:MM:SSZ"
NO_TIME = "is a date without a time"
NO_OFFSET = "has no offset (add Z for UTC, or one like +02:00)"
LONG_FRACTION = f"has more than {_MAX_FRACTION_DIGITS} digits after the seconds' decimal point"
NOT_REAL = "is not a real date and time (no such month, day, hour, minute or second)"
OUT_OF_RANGE = f"is outside the dates the apps keep ({RANGE})"


class DateError(ValueError):
    """A text that is not a date or instant the apps accept; the message says why."""


class OutOfRange(DateError):
    """A well-formed date or instant outside EARLIEST…LATEST."""

    hint = f"Give a date or instant from {RANGE}."

    def __init__(self) -> None:
        super().__init__(OUT_OF_RANGE)


def format_timestamp(instant: datetime) -> str:
    """UTC with milliseconds and Z, e.g. 2026-04-01T00:00:00.000Z."""
    return instant.astimezone(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def to_ms(instant: datetime) -> int:
    """Whole milliseconds since the epoch, truncated like the timestamps we print (exact: no floats)."""
    delta = instant - _EPOCH
    return (delta.days * 86_400 + delta.seconds) * 1000 + delta.microseconds // 1000


def from_ms(milliseconds: int) -> datetime:
    return _EPOCH + timedelta(milliseconds=milliseconds)


def format_ms(milliseconds: int) -> str:
    """`format_timestamp(from_ms(milliseconds))` in two thirds of the time (a timer list formats a
    due for every countdown it shows): a naive datetime of whole seconds prints as the stored form
    without its fraction, and the milliseconds are written after it."""
    seconds, millis = divmod(milliseconds, 1000)
    return f"{(_NAIVE_EPOCH + timedelta(0, seconds)).isoformat()}.{millis:03d}Z"


def parse_date(text: str) -> date:
    """A calendar date written exactly YYYY-MM-DD in the range; raises DateError otherwise."""
    if not _DATE.fullmatch(text):
        raise DateError(NOT_ASCII if not text.isascii() else "is not a date YYYY-MM-DD")
    try:
        day = date.fromisoformat(text)
    except ValueError:
        raise DateError("is not a real date (no such month or day)") from None
    _check_range(datetime.combine(day, time(), UTC))
    return day


def parse_instant(text: str, *, assume_utc: bool = False) -> datetime:
    """An ISO-8601 date-time with Z or an offset, returned in UTC; raises DateError otherwise
    (OutOfRange when it is well formed but outside the range).

    Without an offset it is refused, unless `assume_utc` says what it means.
    """
    match = _DATETIME.fullmatch(text)
    if not match:
        if not text.isascii():
            raise DateError(NOT_ASCII)
        raise DateError(NO_TIME if _DATE.fullmatch(text) else NOT_A_DATE_TIME)
    if match["zone"] is None and not assume_utc:
        raise DateError(NO_OFFSET)
    if match["fraction"] is not None and len(match["fraction"]) > _MAX_FRACTION_DIGITS:
        raise DateError(LONG_FRACTION)
    try:
        parsed = datetime.fromisoformat(text.replace("Z", "+00:00"))  # 25:00, 02-30…
    except ValueError:
        raise DateError(NOT_REAL) from None
    if parsed.tzinfo is None:
        parsed = parsed.replace(tzinfo=UTC)
    try:
        instant = parsed.astimezone(UTC)
    except OverflowError:  # 0001-01-01T00:00:00+01:00 is in year 0
        raise OutOfRange from None
    # The range holds for the instant as the apps keep it, to the millisecond.
    _check_range(instant.replace(microsecond=instant.microsecond // 1000 * 1000))
    return instant


def parse_due(text: str) -> str:
    """Normalise a --due-at value: a date stays as written, an instant becomes UTC ms Z."""
    text = _trimmed(text)
    if _DATE.fullmatch(text):
        parse_date(text)
        return text
    return format_timestamp(_instant_or_date(text))


def parse_bound(text: str) -> datetime:
    """A bound like --due-before: a date means the start of that day in the user's zone; an
    instant is itself."""
    text = _trimmed(text)
    if _DATE.fullmatch(text):
        return start_of(parse_date(text))
    return _instant_or_date(text)


def parse_after_bound(text: str) -> datetime:
    """A bound like --due-after: a date means the last millisecond of that day in the user's zone
    (after the 5th is from the 6th on); an instant is itself."""
    text = _trimmed(text)
    if _DATE.fullmatch(text):
        return start_of(parse_date(text) + timedelta(days=1)) - timedelta(milliseconds=1)
    return _instant_or_date(text)


def start_of(day: date) -> datetime:
    """The first instant of a day in the user's zone, in UTC; the range's first instant for a day
    that began before it (0001-01-01 east of UTC)."""
    try:
        return max(zones.day_start(day), EARLIEST)
    except OverflowError:
        return EARLIEST


def due_start(due: str) -> datetime:
    """The first instant a stored due has come: the start of its day, in the user's zone, for a
    date-only due (a reminder is due from then)."""
    if _DATE.fullmatch(due):
        return start_of(date.fromisoformat(due))
    return parse_instant(due)


def deadline(due: str) -> datetime:
    """The last instant a stored due allows: the end of its day, in the user's zone, for a
    date-only due (a deadline lasts through it)."""
    if _DATE.fullmatch(due):
        return start_of(date.fromisoformat(due) + timedelta(days=1)) - timedelta(milliseconds=1)
    return parse_instant(due)


def _instant_or_date(text: str) -> datetime:
    """An instant, where a date would have done too: a text of neither form says both."""
    try:
        return parse_instant(text)
    except DateError as error:
        if str(error) == NOT_A_DATE_TIME:
            raise DateError(NOT_A_DUE) from None
        raise


def _trimmed(text: str) -> str:
    """ASCII only: a value that is not ASCII cannot be a date, whatever Unicode says of its
    digits and spaces."""
    if not text.isascii():
        raise DateError(NOT_ASCII)
    return text.strip()


def _check_range(instant: datetime) -> datetime:
    if not EARLIEST <= instant <= LATEST:
        raise OutOfRange
    return instant


# What a text nearly right most likely means, for a hint: the accepted value and, in words, which
# reading it is. Only readings that take nothing from outside the text but the user's clock and
# zone: `tomorrow`, `2026-12-3`, `03/12/2026` (both ways), `2026-12-31T17:00` (the zone's offset
# then), `13:00` (today). Nothing here is ever stored: the caller puts them in a hint.
_DAY_WORDS = {"yesterday": -1, "today": 0, "tomorrow": 1}
_UNPADDED = re.compile(r"(?P<y>[0-9]{4})[-/.](?P<m>[0-9]{1,2})[-/.](?P<d>[0-9]{1,2})(?P<rest>[t ].*)?")
_DAY_MONTH_YEAR = re.compile(r"(?P<a>[0-9]{1,2})[/.](?P<b>[0-9]{1,2})[/.](?P<y>[0-9]{4})")
_LOCAL = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}[T ][0-9]{2}:[0-9]{2}(:[0-9]{2}(\.[0-9]{1,6})?)?")
_CLOCK_TIME = re.compile(r"(?P<h>[0-9]{1,2}):(?P<m>[0-9]{2})(:(?P<s>[0-9]{2}))?")
_MONTHS = ("January", "February", "March", "April", "May", "June", "July", "August", "September",
           "October", "November", "December")  # fmt: skip


class NearReading:
    """One accepted value a text nearly right may mean: `value` as the option takes it, `words`
    which reading it is ("tomorrow in Europe/Berlin", "day first: 3 December 2026")."""

    def __init__(self, value: str, words: str) -> None:
        self.value = value
        self.words = words


def near_readings(text: str, now: datetime, *, instant_only: bool = False) -> list[NearReading]:
    """The values `text` most likely means, read by the user's clock (`now`) and zone; none when
    it reads as none of them. `instant_only`: the option takes an instant (a timer's end), so a
    date alone is no reading."""
    cleaned = " ".join(text.strip().lower().split())
    if not cleaned.isascii() or len(cleaned) > 40:
        return []
    where = zones.zone()
    today = now.astimezone(where).date()
    if cleaned in _DAY_WORDS and not instant_only:
        try:
            day = today + timedelta(days=_DAY_WORDS[cleaned])
        except OverflowError:  # `yesterday` on the first day Python has: no reading
            return []
        return _dates([_real(day.isoformat())], [f"{cleaned} in {zones.name()}"])
    unpadded = _UNPADDED.fullmatch(cleaned)
    if unpadded is not None:
        written = f"{unpadded['y']}-{int(unpadded['m']):02d}-{int(unpadded['d']):02d}"
        rest = unpadded["rest"]
        if rest is None:
            return [] if instant_only else _dates([_real(written)], ["the date written in full"])
        full = f"{written}T{rest[1:].upper()}"
        if _accepted_instant(full):
            return [NearReading(full, "the date written in full")]
        return _local_readings(full, where, "that time") if _LOCAL.fullmatch(full) else []
    both = _DAY_MONTH_YEAR.fullmatch(cleaned)
    if both is not None and not instant_only:
        year, first, second = int(both["y"]), int(both["a"]), int(both["b"])
        day_first, month_first = _real_day(year, second, first), _real_day(year, first, second)
        if day_first is not None and day_first == month_first:
            return _dates([day_first], ["the date written in full"])
        return _dates(
            [day_first, month_first],
            [f"day first: {_spoken(day_first)}", f"month first: {_spoken(month_first)}"],
        )
    clock_time = _CLOCK_TIME.fullmatch(cleaned)
    if clock_time is not None:
        hour, minute, second = (int(clock_time[part] or 0) for part in "hms")
        if hour > 23 or minute > 59 or second > 59:
            return []
        at = time(hour, minute, second)
        said = at.isoformat(timespec="minutes" if not second else "seconds")
        return _local_readings(datetime.combine(today, at).isoformat(), where, f"today at {said}")
    return []


def _dates(days: list[date | None], words: list[str]) -> list[NearReading]:
    return [NearReading(day.isoformat(), said) for day, said in zip(days, words, strict=True) if day]


def _real(written: str) -> date | None:
    try:
        return parse_date(written)
    except DateError:
        return None


def _real_day(year: int, month: int, day: int) -> date | None:
    return _real(f"{year:04d}-{month:02d}-{day:02d}") if 1 <= month <= 12 and 1 <= day <= 31 else None


def _spoken(day: date | None) -> str:
    return f"{day.day} {_MONTHS[day.month - 1]} {day.year}" if day is not None else ""


def _local_readings(written: str, where: tzinfo, said: str) -> list[NearReading]:
    """A local date-time without an offset (`said` in words: "that time", "today at 13:00"),
    with the zone's offset at that moment. A time the zone's clocks skip (they go forward) is
    said to be skipped, given as the moment it would be, with the offset the clocks then show (an
    agent's hint said "that time" of one an hour off); one they show twice (they go back) is
    both moments, for the user to choose."""
    try:
        naive = datetime.fromisoformat(written)
        first, second = naive.replace(tzinfo=where, fold=0), naive.replace(tzinfo=where, fold=1)
        shown = first.astimezone(UTC).astimezone(where)
    except (ValueError, OverflowError):
        return []
    zone = zones.name()
    if first.utcoffset() == second.utcoffset():
        readings = [(first, f"{said} in {zone}")]
    elif shown.replace(tzinfo=None) != naive:  # never on the zone's clocks
        clock = naive.time().isoformat(timespec="minutes")
        skipped = f"there is no {clock} that day, as its clocks go forward; this is that moment"
        readings = [(shown, f"{said} in {zone}: {skipped}")]
    else:
        readings = [
            (first, f"{said} in {zone}, the first time: before its clocks go back"),
            (second, f"{said} in {zone}, the second time: after its clocks go back"),
        ]
    values = [(_instant_text(local), words) for local, words in readings]
    return [NearReading(value, words) for value, words in values if value is not None]


def _instant_text(local: datetime) -> str | None:
    """A zoned moment as an accepted instant, or None when it is not one (out of range)."""
    try:
        value = local.isoformat(timespec="seconds" if not local.microsecond else "milliseconds")
    except (ValueError, OverflowError):
        return None
    return value if _accepted_instant(value) else None


def _accepted_instant(value: str) -> bool:
    try:
        parse_instant(value)
    except DateError:
        return False
    return True
