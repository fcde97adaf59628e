"""The user's time zone: where a day begins and ends for every day-based rule (a date-only due or
follow-up, a date given as a bound), and how `--human` shows an instant.

The zone is AGENTIC_TZ (an IANA name such as America/New_York) when it is set and not empty, else
the system's: TZ (an IANA name, `:Name`, the path of a zone file, or a POSIX rule such as
`UTC+5`, `<-05>5` or `CET-1CEST,M3.5.0,M10.5.0/3`, read with its DST rules as the C library reads
it), else /etc/localtime, else UTC. A TZ that is none of these means UTC, as it does to the C
library. AGENTIC_TZ takes IANA names only: not a POSIX rule, and not `localtime` or `posixrules`,
files some databases hold whose meaning varies by machine (`Factory`, an IANA zone, is taken). A bad
AGENTIC_TZ is a VALIDATION_ERROR, checked by every command that reads the state (store.py), as
the other AGENTIC_* settings are. `UTC` never needs a zone database, so a fixture pinned to it
replays on any machine.

Stored and printed instants stay UTC; a date-only due stays the date the user gave. Only the
moment a date's day starts, in the user's zone, depends on the zone (`day_start`).
"""

from __future__ import annotations

import functools
import io
import os
import struct
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


_NOT_ZONES = {"localtime", "posixrules"}


def _named(name: str) -> tzinfo | None:
    """The zone of an IANA name, or None. A name is ASCII; an absolute or relative path is not one."""
    if name == "UTC":
        return UTC
    if not name.isascii() or not name.strip() or name != name.strip() or name.startswith("/"):
        return None
    if name in _NOT_ZONES:
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
        # what the C library does with a TZ it cannot read: UTC
        return _named(name) or _posix_rule(name) or UTC
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


def _posix_rule(rule: str) -> tzinfo | None:
    """The zone a POSIX TZ rule (`UTC+5`: five hours west; `CET-1CEST,M3.5.0,M10.5.0/3`) gives,
    or None. zoneinfo reads such a rule as the footer of a zone file, so the rule is wrapped in a
    TZif file with no transitions: it then decides every instant, DST included."""
    if not rule or not rule.isascii() or not rule.isprintable():  # one line of ASCII, as a footer is
        return None
    no_transitions = b"\0" * 15 + struct.pack(">6l", 0, 0, 0, 0, 1, 1) + struct.pack(">lbb", 0, 0, 0) + b"\0"
    data = b"TZif2" + no_transitions + b"TZif2" + no_transitions + b"\n" + rule.encode() + b"\n"
    try:
        return ZoneInfo.from_file(io.BytesIO(data), key=rule)
    except ValueError:
        return None


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
