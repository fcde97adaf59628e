"""What reads as a duration in a free text (read_as_duration), and the accepted form written back
(format_duration): the timer's refusal of a label that reads as one rests on both."""

from __future__ import annotations

import pytest

from agentic_kit.durations import format_duration, parse_duration, read_as_duration


@pytest.mark.parametrize(
    ("text", "ms"),
    [
        ("25m", 1_500_000),
        ("PT1H", 3_600_000),
        ("25 m", 1_500_000),
        ("25 MIN", 1_500_000),
        ("25 minutes", 1_500_000),
        ("2 hrs", 7_200_000),
        ("2 hours 30 minutes", 9_000_000),
        ("2 hours, and 30 minutes", 9_000_000),
        ("90 secs", 90_000),
        ("1 day", 86_400_000),
        ("1.5h", 5_400_000),
        ("0,5 s", 500),
        ("1:30", 5_400_000),
        ("1:30:15", 5_415_000),
        ("0s", 0),
    ],
)
def test_a_phrasing_reads_as_its_milliseconds(text: str, ms: int) -> None:
    reading = read_as_duration(text)
    assert reading is not None
    assert (reading.ms, reading.bare) == (ms, False)


def test_a_bare_number_reads_as_a_duration_without_a_unit() -> None:
    reading = read_as_duration(" 5 ")
    assert reading is not None
    assert (reading.ms, reading.bare) == (None, True)


@pytest.mark.parametrize(
    "text", ["tea", "5 a day", "call mom at 5pm", "Chapter 2", "25 minutes of reading", "10:75", "5m30", "٥m"]
)
def test_a_label_that_only_holds_a_number_does_not_read_as_one(text: str) -> None:
    assert read_as_duration(text) is None


@pytest.mark.parametrize("ms", [1, 500, 1_000, 90_000, 5_400_000, 86_400_000 + 1_000, 366 * 86_400_000])
def test_the_written_form_reads_back_to_the_same_length(ms: int) -> None:
    assert parse_duration(format_duration(ms)) == ms


def test_the_written_form_is_compact_when_it_can_be() -> None:
    assert [format_duration(ms) for ms in (5_400_000, 90_000, 1_500)] == ["1h30m", "1m30s", "PT1.5S"]
