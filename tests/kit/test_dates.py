"""The kit's one date parser: what it accepts, what it refuses, and how dues compare with now."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from agentic_kit.dates import deadline, format_timestamp, parse_bound, parse_due, parse_instant


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
    "text",
    [
        "",
        "2026-02-30",
        "2025-02-29",
        "2026-4-5",
        "20260405",
        "2026-W14-3",
        "2026-04-05T09:00:00",
        "2026-04-05 09:00Z",
        "2026-04-05T24:00Z",
        "tomorrow",
        "2026-04-05T09:00:00+2",
    ],
)
def test_parse_due_refuses_anything_else(text: str) -> None:
    with pytest.raises(ValueError, match="not a due date"):
        parse_due(text)


def test_parse_instant_can_assume_utc_for_a_missing_offset() -> None:
    assert parse_instant("2026-04-05T09:00:00", assume_utc=True) == datetime(2026, 4, 5, 9, tzinfo=UTC)


def test_a_date_bound_is_the_start_of_that_utc_day() -> None:
    assert parse_bound("2026-04-05") == datetime(2026, 4, 5, tzinfo=UTC)


def test_a_date_only_due_lasts_to_the_last_millisecond_of_its_utc_day() -> None:
    assert format_timestamp(deadline("2026-04-05")) == "2026-04-05T23:59:59.999Z"
    assert deadline("2026-04-05T09:00:00.000Z") == datetime(2026, 4, 5, 9, tzinfo=UTC)


def test_timestamps_have_milliseconds_and_z() -> None:
    assert format_timestamp(datetime(2026, 4, 1, 0, 0, 0, 999_999, tzinfo=UTC)) == "2026-04-01T00:00:00.999Z"
