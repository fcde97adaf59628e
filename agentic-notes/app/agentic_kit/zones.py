"""The user's time zone: where a day begins and ends for every day-based rule (a date-only due or
follow-up, a date given as a bound), and how `--human` shows an instant.

The zone is AGENTIC_TZ (an IANA name such as America/New_York) when it is set and not empty, else
the system's: TZ (an IANA name, `:Name`, or the path of a zone file), else /etc/localtime, else
UTC. A TZ that names no zone this system knows means UTC, as it does to the C library. A bad
AGENTIC_TZ is a VALIDATION_ERROR, checked by every command that reads the state (store.py), as
the other AGENTIC_* settings are. `UTC` never needs a zone database, so a fixture pinned to it
replays on any machine.

Stored and printed instants stay UTC; a date-only due stays the date the user gave. Only the
moment a date's day starts, in the user's zone, depends on the zone (`day_start`).
"""

from __future__ import annotations

import functools
import os
from datetime import UTC, date, datetime, time, tzinfo
from pathlib import Path
from zoneinfo import ZoneInfo

from .errors import validation_error
from .text import quoted

ZONE_ENV = "AGENTIC_TZ"
SYSTEM_ZONE_ENV = "TZ"
_LOCALTIME = Path("/etc/localtime")
_ZONE_FOLDER = "zoneinfo/"
_HINT = (
    f"Set {ZONE_ENV} to an IANA zone name like America/New_York or UTC, or unset it for the system's zone."
)


def zone() -> tzinfo:
    """The user's zone for this run (resolved once per setting)."""
    return _resolved(os.environ.get(ZONE_ENV, ""), os.environ.get(SYSTEM_ZONE_ENV))


def check_zone() -> None:
    """Refuse a bad AGENTIC_TZ (VALIDATION_ERROR), as the store checks every setting."""
    zone()


@functools.lru_cache(maxsize=16)
def _resolved(setting: str, system: str | None) -> tzinfo:
    if setting:
        found = _named(setting)
        if found is None:
            raise validation_error(
                f"{ZONE_ENV}={quoted(setting)} is not a time zone this system knows "
                "(an IANA name like Europe/Paris).",
                _HINT,
            )
        return found
    return _system_zone(system)


def _named(name: str) -> tzinfo | None:
    """The zone of an IANA name, or None. A name is ASCII; an absolute or relative path is not one."""
    if name == "UTC":
        return UTC
    if not name.isascii() or not name.strip() or name != name.strip() or name.startswith("/"):
        return None
    try:
        return ZoneInfo(name)
    except (KeyError, ValueError, OSError):  # ZoneInfoNotFoundError is a KeyError
        return None


def _system_zone(system: str | None) -> tzinfo:
    if system is not None:
        name = system.removeprefix(":")
        if name.startswith("/"):
            return _from_file(Path(name)) or UTC
        return _named(name) or UTC  # what the C library does with a TZ it cannot read
    try:
        # /etc/localtime is usually a link into the zone database: its name is the zone's key.
        target = os.path.realpath(_LOCALTIME)
        if _ZONE_FOLDER in target:
            named = _named(target.rsplit(_ZONE_FOLDER, 1)[1])
            if named is not None:
                return named
    except OSError:
        pass
    return _from_file(_LOCALTIME) or UTC


def _from_file(path: Path) -> tzinfo | None:
    try:
        with path.open("rb") as handle:
            return ZoneInfo.from_file(handle, key=str(path))
    except (OSError, ValueError):
        return None


def name() -> str:
    """The zone's name as the user would write it (America/New_York, UTC)."""
    current = zone()
    return str(getattr(current, "key", None) or current)


@functools.lru_cache(maxsize=4096)
def _day_start(day: date, where: tzinfo) -> datetime:
    return datetime.combine(day, time(), where).astimezone(UTC)


def day_start(day: date) -> datetime:
    """The first instant of the day in the user's zone, in UTC (a day that begins in a DST gap
    begins when the clocks jump). Raises OverflowError when it falls before year 1."""
    return _day_start(day, zone())


def shown(instant: datetime) -> str:
    """An instant as the user's clock reads it: `2026-11-30 20:00:00 -05:00`. An instant the
    calendar cannot hold in the zone (year 1 west of UTC) is shown in UTC."""
    try:
        local = instant.astimezone(zone())
    except OverflowError:
        local = instant.astimezone(UTC)
    written = local.isoformat(sep=" ", timespec="seconds")
    return f"{written[:19]} {written[19:]}"
