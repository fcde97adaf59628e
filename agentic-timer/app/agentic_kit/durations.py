"""Durations: the one parser, to whole milliseconds.

Accepted: compact `90s`, `25m`, `1h30m`, `2h`, `1d12h` (units d, h, m, s, each at most once,
in that order) and ISO-8601 `PT25M`, `PT1H30M`, `P1DT2H`, `PT0.5S`; case does not matter.
ASCII only: digits from other scripts, or letters that only case-fold to d, h, m or s, are not.

`read_as_duration` is looser on purpose: it tells whether a free text (a timer's label) reads as
a duration in any common phrasing (`25 min`, `2 hours`, `1.5h`, `1:30`, a bare `5`), so that a
caller can refuse it as a likely mistake and suggest the accepted form (`format_duration`).
"""

from __future__ import annotations

import re
from decimal import Decimal

_UNIT_MS = {"d": 86_400_000, "h": 3_600_000, "m": 60_000, "s": 1_000}
_COMPACT = re.compile(r"(?:(?P<d>[0-9]+)d)?(?:(?P<h>[0-9]+)h)?(?:(?P<m>[0-9]+)m)?(?:(?P<s>[0-9]+)s)?")
_ISO = re.compile(
    r"P(?:(?P<d>[0-9]+)D)?(?:T(?:(?P<h>[0-9]+)H)?(?:(?P<m>[0-9]+)M)?(?:(?P<s>[0-9]+(?:[.,][0-9]{1,3})?)S)?)?"
)

_FINE_SECONDS = re.compile(r"[0-9][.,][0-9]{4,}s$")  # PT0.0001S: finer than a millisecond

DURATION_FORMATS = "like 90s, 25m, 1h30m, 2h or ISO-8601 PT25M"

# English unit words and abbreviations, each read as the compact unit it means.
_UNIT_WORDS = {
    **dict.fromkeys(("s", "sec", "secs", "second", "seconds"), "s"),
    **dict.fromkeys(("m", "min", "mins", "minute", "minutes"), "m"),
    **dict.fromkeys(("h", "hr", "hrs", "hour", "hours"), "h"),
    **dict.fromkeys(("d", "day", "days"), "d"),
}
_NUMBER = r"[0-9]+(?:[.,][0-9]+)?|[.,][0-9]+"
_UNIT = "|".join(sorted(_UNIT_WORDS, key=len, reverse=True))
_PART = re.compile(rf"({_NUMBER})\s*({_UNIT})(?![a-z])")
# Each part's separator reads one way (`\s*,?\s*` could split a space two ways: a phrase that
# failed at its end was tried 2**n ways, 27 s at 24 parts).
_PHRASE = re.compile(rf"(?:(?:{_NUMBER})\s*(?:{_UNIT})(?![a-z])(?:\s*(?:,\s*)?(?:and\s+)?|$))+")
_CLOCK = re.compile(r"([0-9]+):([0-5][0-9])(?::([0-5][0-9]))?")
_BARE = re.compile(_NUMBER)


class Reading:
    """What a text reads as: `ms` the milliseconds when it names them (None when it does not, as
    a bare number without a unit); `bare` when it is a number alone."""

    def __init__(self, ms: int | None, *, bare: bool = False) -> None:
        self.ms = ms
        self.bare = bare


def parse_duration(text: str) -> int:
    """Milliseconds in the duration; ValueError, saying what is wrong, when it is not one of the
    accepted forms.

    Zero is returned as 0: whether zero is allowed is the caller's rule.
    """
    if not text.isascii():
        raise ValueError("holds characters that are not ASCII (only ASCII digits count)")
    cleaned = text.strip().lower()
    match = _COMPACT.fullmatch(cleaned) if not cleaned.startswith("p") else _ISO.fullmatch(cleaned.upper())
    if not cleaned or match is None or not any(match.groupdict().values()) or cleaned.endswith("t"):
        if _FINE_SECONDS.search(cleaned):
            raise ValueError("has more than 3 decimals of a second: durations count whole milliseconds")
        raise ValueError("is not a duration")
    total = Decimal(0)
    for unit, value in match.groupdict().items():
        if value is not None:
            total += Decimal(value.replace(",", ".")) * _UNIT_MS[unit.lower()]
    return int(total)


def read_as_duration(text: str) -> Reading | None:
    """How `text` reads as a duration in any common phrasing, or None when it does not: the
    accepted forms, a number and an English unit word with or without a space (`25 min`,
    `2 hours 30 minutes`, `1.5h`), a clock length H:MM or H:MM:SS (`1:30`), or a bare number.
    A length finer than a millisecond reads with no milliseconds (`ms` None)."""
    cleaned = " ".join(text.strip().lower().split())
    if not cleaned.isascii():
        return None
    try:
        return Reading(parse_duration(cleaned))
    except ValueError:
        pass
    if _BARE.fullmatch(cleaned):
        return Reading(None, bare=True)
    clock = _CLOCK.fullmatch(cleaned)
    if clock is not None:
        hours, minutes, seconds = (int(part or 0) for part in clock.groups())
        return Reading((hours * 3600 + minutes * 60 + seconds) * 1000)
    if not _PHRASE.fullmatch(cleaned):
        return None
    total = Decimal(0)
    for number, unit in _PART.findall(cleaned):
        total += Decimal(number.replace(",", ".")) * _UNIT_MS[_UNIT_WORDS[unit]]
    return Reading(int(total) if total == total.to_integral_value() else None)


def format_duration(milliseconds: int) -> str:
    """The compact form `parse_duration` reads back to `milliseconds` (`1h30m`, `90s`); ISO-8601
    (`PT1.5S`) when a part of a second remains, which the compact form cannot say."""
    if milliseconds % 1000:
        seconds = Decimal(milliseconds) / 1000
        return f"PT{seconds.normalize():f}S"
    rest = milliseconds
    parts = []
    for unit, size in _UNIT_MS.items():
        count, rest = divmod(rest, size)
        if count:
            parts.append(f"{count}{unit}")
    return "".join(parts) or "0s"
