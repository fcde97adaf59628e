"""Durations: the one parser, to whole milliseconds.

Accepted: compact `90s`, `25m`, `1h30m`, `2h`, `1d12h` (units d, h, m, s, each at most once,
in that order) and ISO-8601 `PT25M`, `PT1H30M`, `P1DT2H`, `PT0.5S`; case does not matter.
ASCII only: digits from other scripts, or letters that only case-fold to d, h, m or s, are not.
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
