"""The clock: every app asks `now()`, so AGENTIC_NOW (or freezegun) decides what time it is."""

from __future__ import annotations

import os
from datetime import UTC, datetime

from .dates import DateError, format_timestamp, parse_instant
from .errors import validation_error
from .text import quoted

NOW_ENV = "AGENTIC_NOW"


def now() -> datetime:
    """The current instant in UTC, or AGENTIC_NOW when it is set (within the dates' range)."""
    override = os.environ.get(NOW_ENV)
    if override:
        try:
            return parse_instant(override, assume_utc=True)
        except DateError as error:
            raise validation_error(
                f"{NOW_ENV}={quoted(override)} {error}.",
                f"Unset {NOW_ENV}, or set it like YYYY-MM-DDTHH:MM:SSZ.",
            ) from None
    return datetime.now(UTC)


def timestamp() -> str:
    return format_timestamp(now())


class Moment:
    """The instant one command acts at, read from the clock once, when first asked for.

    A command that writes asks for it under the store's lock, so writers queued behind the lock
    each read the clock after the one before them has saved: their moments keep the order of
    their writes. Made before the lock, it checks AGENTIC_NOW then, so a bad setting is refused
    before anything is created."""

    def __init__(self) -> None:
        now()  # a bad AGENTIC_NOW is refused here, before the lock (and its file) is taken
        self._instant: datetime | None = None

    def instant(self) -> datetime:
        if self._instant is None:
            self._instant = now()
        return self._instant

    def stamp(self) -> str:
        return format_timestamp(self.instant())
