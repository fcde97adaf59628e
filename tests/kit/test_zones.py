"""The user's zone (zones.py): what it resolves to, and where a date's day begins and ends in it."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest

from agentic_kit import zones
from agentic_kit.dates import EARLIEST, deadline, due_start, parse_after_bound, parse_bound
from agentic_kit.errors import AppError, ErrorCode


@pytest.fixture(autouse=True)
def zone_settings(monkeypatch: pytest.MonkeyPatch) -> pytest.MonkeyPatch:
    monkeypatch.delenv("AGENTIC_TZ", raising=False)
    monkeypatch.delenv("TZ", raising=False)
    return monkeypatch


def test_the_test_environment_has_a_zone_database() -> None:
    """Every zone scenario needs one: fail loudly here, not as a puzzling scenario failure."""
    assert ZoneInfo("America/New_York").utcoffset(datetime(2026, 11, 30)) is not None


def test_agentic_tz_wins_over_tz(zone_settings: pytest.MonkeyPatch) -> None:
    zone_settings.setenv("TZ", "Asia/Tokyo")
    zone_settings.setenv("AGENTIC_TZ", "America/New_York")
    assert zones.name() == "America/New_York"


@pytest.mark.parametrize(
    ("tz", "expected"),
    [("Asia/Tokyo", "Asia/Tokyo"), (":Europe/Paris", "Europe/Paris"), ("Not/AZone", "UTC"), ("", "UTC")],
)
def test_without_agentic_tz_the_system_zone_is_tz(
    zone_settings: pytest.MonkeyPatch, tz: str, expected: str
) -> None:
    zone_settings.setenv("TZ", tz)
    zone_settings.setenv("AGENTIC_TZ", "")  # empty means unset
    assert zones.name() == expected


def test_without_tz_the_system_zone_is_etc_localtime(
    zone_settings: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    link = tmp_path / "localtime"
    link.symlink_to("/usr/share/zoneinfo/Asia/Tokyo")
    zone_settings.setattr(zones, "_LOCALTIME", link)
    zones._resolved.cache_clear()
    assert zones.name() == "Asia/Tokyo"
    zone_settings.setattr(zones, "_LOCALTIME", tmp_path / "missing")
    zones._resolved.cache_clear()
    assert zones.name() == "UTC"
    zones._resolved.cache_clear()


@pytest.mark.parametrize(
    "bad", ["Mars/Olympus_Mons", "/etc/localtime", "../zoneinfo/UTC", " UTC", "Europe/Parîs"]
)
def test_a_bad_agentic_tz_is_a_validation_error_with_a_hint(
    zone_settings: pytest.MonkeyPatch, bad: str
) -> None:
    zone_settings.setenv("AGENTIC_TZ", bad)
    with pytest.raises(AppError) as raised:
        zones.check_zone()
    assert raised.value.code == ErrorCode.VALIDATION_ERROR
    assert raised.value.hint
    assert "AGENTIC_TZ" in raised.value.hint


def test_a_date_s_day_is_the_user_s(zone_settings: pytest.MonkeyPatch) -> None:
    zone_settings.setenv("AGENTIC_TZ", "America/New_York")
    assert due_start("2026-11-30") == datetime(2026, 11, 30, 5, tzinfo=UTC)
    assert deadline("2026-11-30") == datetime(2026, 12, 1, 4, 59, 59, 999_000, tzinfo=UTC)
    assert parse_bound("2026-03-09") == datetime(2026, 3, 9, 4, tzinfo=UTC)  # EDT from 2026-03-08
    assert parse_after_bound("2026-11-01") == datetime(
        2026, 11, 2, 4, 59, 59, 999_000, tzinfo=UTC
    )  # 25 hours
    assert parse_bound("2026-03-09T12:00:00Z") == datetime(2026, 3, 9, 12, tzinfo=UTC)  # an instant is itself


def test_the_first_day_east_of_utc_starts_at_the_range_s_first_instant(
    zone_settings: pytest.MonkeyPatch,
) -> None:
    zone_settings.setenv("AGENTIC_TZ", "Asia/Tokyo")
    assert due_start("0001-01-01") == EARLIEST
    assert deadline("9997-12-31") == datetime(9997, 12, 31, 14, 59, 59, 999_000, tzinfo=UTC)


def test_human_text_shows_an_instant_in_the_user_s_zone(zone_settings: pytest.MonkeyPatch) -> None:
    zone_settings.setenv("AGENTIC_TZ", "America/New_York")
    assert zones.shown(datetime(2026, 12, 1, 1, tzinfo=UTC)) == "2026-11-30 20:00:00 -05:00"
    assert (
        zones.shown(datetime(1, 1, 1, tzinfo=UTC)) == "0001-01-01 00:00:00 +00:00"
    )  # cannot go west of year 1
    zone_settings.setenv("AGENTIC_TZ", "UTC")
    assert zones.shown(datetime(2026, 4, 1, tzinfo=UTC)) == "2026-04-01 00:00:00 +00:00"


def test_human_text_of_an_envelope_shows_its_instants_in_the_user_s_zone(
    zone_settings: pytest.MonkeyPatch,
) -> None:
    from agentic_kit.human import render

    zone_settings.setenv("AGENTIC_TZ", "America/New_York")
    item = {"id": "td_0001", "dueAt": "2026-11-30", "createdAt": "2026-12-01T01:00:00.000Z"}
    assert render({"ok": True, "command": "get", "item": item}, {}).splitlines() == [
        "id         td_0001",
        "dueAt      2026-11-30",  # a date stays the date given
        "createdAt  2026-11-30 20:00:00 -05:00",
    ]
    listed = {
        "ok": True,
        "command": "list",
        "count": 1,
        "items": [{**item, "dueAt": "2026-12-01T01:00:00.000Z"}],
    }
    assert (
        render(listed, {"id": "{}", "dueAt": "due {}"}).splitlines()[0]
        == "td_0001  due 2026-11-30 20:00:00 -05:00"
    )


@pytest.mark.parametrize(
    ("tz", "winter", "summer"),
    [
        ("UTC+5", "-05:00", "-05:00"),  # POSIX: the sign is west of Greenwich
        ("<-05>5", "-05:00", "-05:00"),
        ("<+0530>-5:30", "+05:30", "+05:30"),
        ("CET-1CEST,M3.5.0,M10.5.0/3", "+01:00", "+02:00"),  # with its DST rules
    ],
)
def test_a_posix_tz_is_read_as_the_system_reads_it(
    zone_settings: pytest.MonkeyPatch, tz: str, winter: str, summer: str
) -> None:
    zone_settings.setenv("TZ", tz)
    assert zones.name() == tz
    assert zones.shown(datetime(2026, 1, 15, 12, tzinfo=UTC)).endswith(winter)
    assert zones.shown(datetime(2026, 7, 15, 12, tzinfo=UTC)).endswith(summer)


def test_a_date_s_day_follows_a_posix_tz(zone_settings: pytest.MonkeyPatch) -> None:
    zone_settings.setenv("TZ", "UTC+5")
    assert zones.day_start(datetime(2026, 11, 30).date()) == datetime(2026, 11, 30, 5, tzinfo=UTC)


def test_a_tz_that_is_neither_a_zone_nor_a_posix_rule_means_utc(zone_settings: pytest.MonkeyPatch) -> None:
    zone_settings.setenv("TZ", "not a zone")
    assert zones.name() == "UTC"


@pytest.mark.parametrize("special", ["localtime", "posixrules", "UTC+5"])
def test_agentic_tz_takes_only_an_iana_name(zone_settings: pytest.MonkeyPatch, special: str) -> None:
    """`localtime` and `posixrules` are files of some systems' databases, not zones: their meaning
    varies by machine (unset AGENTIC_TZ already means the system's zone); a POSIX rule is TZ's."""
    zone_settings.setenv("AGENTIC_TZ", special)
    with pytest.raises(AppError) as refused:
        zones.check_zone()
    assert refused.value.code == ErrorCode.VALIDATION_ERROR


def test_agentic_tz_takes_factory_the_iana_zone_of_no_place(zone_settings: pytest.MonkeyPatch) -> None:
    zone_settings.setenv("AGENTIC_TZ", "Factory")
    assert zones.name() == "Factory"
    assert zones.shown(datetime(2026, 7, 15, 12, tzinfo=UTC)).endswith("+00:00")
