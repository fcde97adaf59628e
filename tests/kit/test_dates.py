"""The kit's one date parser: what it accepts, what it refuses, the range every instant lies in, the
forms a state file keeps, and how dues compare with now."""

from __future__ import annotations

import re
from datetime import UTC, date, datetime, timedelta

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from agentic_kit.dates import (
    EARLIEST,
    LATEST,
    LONG_FRACTION,
    NO_OFFSET,
    NOT_A_DUE,
    NOT_REAL,
    OUT_OF_RANGE,
    STORED_DUE_PATTERN,
    STORED_INSTANT_PATTERN,
    DateError,
    OutOfRange,
    deadline,
    format_ms,
    format_timestamp,
    from_ms,
    parse_bound,
    parse_due,
    parse_instant,
)
from agentic_kit.durations import parse_duration


@pytest.mark.parametrize(
    ("text", "due"),
    [
        ("2026-04-05", "2026-04-05"),
        ("2024-02-29", "2024-02-29"),
        (" 2026-04-05 ", "2026-04-05"),
        ("2026-04-05T09:00:00Z", "2026-04-05T09:00:00.000Z"),
        ("2026-04-05T09:00:00.123456+05:30", "2026-04-05T03:30:00.123Z"),
        ("2026-04-05T00:30-01:00", "2026-04-05T01:30:00.000Z"),
    ],
)
def test_parse_due_accepts_dates_and_instants_with_an_offset(text: str, due: str) -> None:
    assert parse_due(text) == due


@pytest.mark.parametrize(
    ("text", "why"),
    [
        ("", NOT_A_DUE),
        ("2026-02-30", "is not a real date (no such month or day)"),
        ("2025-02-29", "is not a real date (no such month or day)"),
        ("2026-4-5", NOT_A_DUE),
        ("20260405", NOT_A_DUE),
        ("2026-W14-3", NOT_A_DUE),
        ("2026-04-05T09:00:00", NO_OFFSET),
        ("2026-04-05 09:00Z", NOT_A_DUE),
        ("2026-04-05T24:00Z", NOT_REAL),
        ("tomorrow", NOT_A_DUE),
        ("2026-04-05T09:00:00+2", NOT_A_DUE),
        ("2026-04-05T09:00:00.1234567Z", LONG_FRACTION),
        ("9998-01-01T00:00:00Z", OUT_OF_RANGE),
    ],
)
def test_parse_due_refuses_anything_else_saying_what_is_wrong(text: str, why: str) -> None:
    with pytest.raises(DateError) as refused:
        parse_due(text)
    assert str(refused.value) == why


def test_the_range_holds_for_an_instant_as_kept_to_the_millisecond() -> None:
    """9997-12-31T23:59:59.9999Z is kept as …59.999Z, the range's last moment: it is in range."""
    assert parse_due("9997-12-31T23:59:59.9999Z") == "9997-12-31T23:59:59.999Z"
    assert parse_bound("9997-12-31T23:59:59.999999Z") > LATEST  # a bound keeps its precision
    with pytest.raises(OutOfRange):
        parse_due("9997-12-31T23:59:59.9999-00:01")


def test_parse_instant_can_assume_utc_for_a_missing_offset() -> None:
    assert parse_instant("2026-04-05T09:00:00", assume_utc=True) == datetime(2026, 4, 5, 9, tzinfo=UTC)


def test_a_date_bound_is_the_start_of_that_utc_day() -> None:
    assert parse_bound("2026-04-05") == datetime(2026, 4, 5, tzinfo=UTC)


def test_a_date_only_due_lasts_to_the_last_millisecond_of_its_utc_day() -> None:
    assert format_timestamp(deadline("2026-04-05")) == "2026-04-05T23:59:59.999Z"
    assert deadline("2026-04-05T09:00:00.000Z") == datetime(2026, 4, 5, 9, tzinfo=UTC)


def test_timestamps_have_milliseconds_and_z() -> None:
    assert format_timestamp(datetime(2026, 4, 1, 0, 0, 0, 999_999, tzinfo=UTC)) == "2026-04-01T00:00:00.999Z"


@pytest.mark.parametrize(
    "text",
    [
        "0001-01-01T00:00:00+01:00",  # year 0 in UTC
        "9999-12-31T23:00:00-05:00",  # year 10000 in UTC
        "9998-01-01",
        "9997-12-31T23:59:59.999-00:01",
        "0000-12-31",
    ],
)
def test_dates_outside_years_1_to_9997_are_refused(text: str) -> None:
    with pytest.raises(ValueError):  # noqa: PT011 - OutOfRange, or not a date at all (year 0)
        parse_due(text)
    with pytest.raises(ValueError):  # noqa: PT011
        parse_bound(text)


def test_the_first_and_last_moments_of_the_range_are_accepted() -> None:
    assert parse_due("0001-01-01") == "0001-01-01"
    assert parse_instant("0001-01-01T01:00:00+01:00") == EARLIEST
    assert parse_due("9997-12-31T23:59:59.999Z") == format_timestamp(LATEST)
    assert format_timestamp(deadline("9997-12-31")) == "9997-12-31T23:59:59.999Z"


def test_a_well_formed_instant_outside_the_range_says_so() -> None:
    with pytest.raises(OutOfRange):
        parse_instant("9999-12-31T23:00:00Z")


@pytest.mark.parametrize(
    "text", ["٢٠٢٦-٠٤-٠٥", "２０２６-04-05", "2026-04-05T09:00:00Z\u3000", "2026-04-0５"]
)
def test_only_ascii_digits_and_spaces_count(text: str) -> None:
    with pytest.raises(DateError, match="not ASCII"):
        parse_due(text)


@pytest.mark.parametrize("text", ["٥m", "pt5ſ", "5ｍ", "PT٥M", "١h"])
def test_durations_are_ascii_only(text: str) -> None:
    with pytest.raises(ValueError, match="not ASCII"):
        parse_duration(text)


def is_real_day_in_range(text: str) -> bool:
    try:
        return date(1, 1, 1) <= date.fromisoformat(text) <= date(9997, 12, 31)
    except ValueError:
        return False


def test_the_stored_forms_match_exactly_the_real_days_of_the_range() -> None:
    stored_instant, stored_due = re.compile(STORED_INSTANT_PATTERN), re.compile(STORED_DUE_PATTERN)
    # Every day of a whole 400-year cycle of the calendar and of the range's two ends…
    for first, last in ((date(1, 1, 1), date(3, 12, 31)), (date(1600, 1, 1), date(1999, 12, 31))):
        for n in range((last - first).days + 1):
            day = (first + timedelta(days=n)).isoformat()
            assert stored_due.fullmatch(day), day
            assert stored_instant.fullmatch(f"{day}T23:59:59.999Z"), day
    # …and every month and day number, real or not, of years around the calendar's rules and ends.
    for year in ("0000", "0001", "1900", "2000", "2024", "2100", "9996", "9997", "9998", "9999"):
        for month in range(14):
            for day_of_month in range(33):
                text = f"{year}-{month:02d}-{day_of_month:02d}"
                assert bool(stored_due.fullmatch(text)) == is_real_day_in_range(text), text


@pytest.mark.parametrize(
    "text",
    ["2026-04-01T00:00:00Z", "2026-04-01T00:00:00.000+00:00", "2026-04-01T24:00:00.000Z", "2026-04-01"],
)
def test_a_stored_instant_is_only_the_kits_own_utc_form(text: str) -> None:
    assert re.fullmatch(STORED_INSTANT_PATTERN, text) is None


def test_near_readings_read_by_the_users_clock_and_zone(monkeypatch: pytest.MonkeyPatch) -> None:
    from agentic_kit.dates import near_readings

    monkeypatch.setenv("AGENTIC_TZ", "America/New_York")
    now = datetime(2026, 12, 2, 3, 0, tzinfo=UTC)  # still the 1st in New York

    def read(text: str, **flags: bool) -> list[str]:
        return [reading.value for reading in near_readings(text, now, **flags)]

    assert read("tomorrow") == ["2026-12-02"]
    assert read("tomorrow", instant_only=True) == []
    assert read("2026-12-3") == ["2026-12-03"]
    assert read("02/03/2026") == ["2026-03-02", "2026-02-03"]
    assert read("2026-12-31T17:00") == ["2026-12-31T17:00:00-05:00"]
    assert read("13:00") == ["2026-12-01T13:00:00-05:00"]
    assert [read(text) for text in ("24:00", "2026-13-01", "x" * 50, "２０２６-12-3")] == [[], [], [], []]


# Every millisecond of the range: from 0001-01-01 to the last of 9999-12-31.
FIRST_MS, LAST_MS = -62_135_596_800_000, 253_402_300_799_999


@settings(max_examples=2000, derandomize=True)
@given(st.integers(FIRST_MS, LAST_MS) | st.sampled_from([FIRST_MS, LAST_MS, -1, 0, 999, 1000, -1000, -1001]))
def test_format_ms_writes_what_format_timestamp_writes(milliseconds: int) -> None:
    assert format_ms(milliseconds) == format_timestamp(from_ms(milliseconds))
