"""agentic-timer: every state transition with the clock moved between commands (freezegun),
and every computed figure checked to the millisecond."""

from __future__ import annotations

from typing import Any

import pytest
from freezegun import freeze_time

from agentapps.harness import AppRunner

T0 = "2026-04-01T00:00:00.000Z"


def at(timer: AppRunner, instant: str, *args: str) -> dict[str, Any]:
    """Run a command with the clock at `instant`; return its item."""
    with freeze_time(instant):
        result = timer.run(*args)
    assert result.exit_status == 0, result.envelope
    return result.item


def figures(item: dict[str, Any]) -> tuple[Any, ...]:
    return item["status"], item["elapsedMs"], item["remainingMs"], item["dueAt"], item["isDue"]


def test_start_a_countdown_returns_every_field(timer: AppRunner) -> None:
    assert at(timer, T0, "start", "tea", "--duration", "5m") == {
        "id": "tm_0001",
        "label": "tea",
        "kind": "countdown",
        "status": "running",
        "durationMs": 300_000,
        "dueAt": "2026-04-01T00:05:00.000Z",
        "startedAt": T0,
        "pausedAt": None,
        "stoppedAt": None,
        "createdAt": T0,
        "updatedAt": T0,
        "elapsedMs": 0,
        "remainingMs": 300_000,
        "isDue": False,
    }


def test_start_without_duration_is_a_stopwatch(timer: AppRunner) -> None:
    item = at(timer, T0, "start")
    assert (item["kind"], item["label"], item["durationMs"], item["dueAt"], item["remainingMs"]) == (
        "stopwatch",
        "",
        None,
        None,
        None,
    )
    assert at(timer, "2026-04-01T01:02:03.456Z", "get", "tm_0001")["elapsedMs"] == 3_723_456


def test_start_with_due_at_counts_down_to_that_instant(timer: AppRunner) -> None:
    item = at(timer, "2026-04-01T00:00:00.250Z", "start", "call", "--due-at", "2026-04-01T02:30:00+02:00")
    assert (item["kind"], item["durationMs"], item["dueAt"]) == (
        "countdown",
        1_799_750,
        "2026-04-01T00:30:00.000Z",
    )


@pytest.mark.parametrize(
    ("duration", "ms"),
    [
        ("90s", 90_000),
        ("25m", 1_500_000),
        ("1h30m", 5_400_000),
        ("2h", 7_200_000),
        ("PT25M", 1_500_000),
        ("pt1h30m", 5_400_000),
        ("P1DT2H", 93_600_000),
        ("PT0.5S", 500),
        ("1d12h", 129_600_000),
    ],
)
def test_durations_in_every_documented_form(timer: AppRunner, duration: str, ms: int) -> None:
    assert at(timer, T0, "start", "--duration", duration)["durationMs"] == ms


@pytest.mark.parametrize(
    ("instant", "expected"),
    [
        ("2026-04-01T00:00:00.001Z", ("running", 1, 299_999, "2026-04-01T00:05:00.000Z", False)),
        ("2026-04-01T00:04:59.999Z", ("running", 299_999, 1, "2026-04-01T00:05:00.000Z", False)),
        ("2026-04-01T00:05:00.000Z", ("running", 300_000, 0, "2026-04-01T00:05:00.000Z", True)),
        ("2026-04-01T01:00:00.000Z", ("running", 3_600_000, 0, "2026-04-01T00:05:00.000Z", True)),
    ],
)
def test_a_running_countdown_reads_the_clock(
    timer: AppRunner, instant: str, expected: tuple[Any, ...]
) -> None:
    at(timer, T0, "start", "--duration", "5m")
    assert figures(at(timer, instant, "get", "tm_0001")) == expected


def test_pause_keeps_the_remaining_time_and_resume_moves_the_due_time(timer: AppRunner) -> None:
    at(timer, T0, "start", "--duration", "5m")
    paused = at(timer, "2026-04-01T00:01:00.000Z", "pause", "tm_0001")
    assert figures(paused) == ("paused", 60_000, 240_000, "2026-04-01T00:05:00.000Z", False)
    assert (paused["pausedAt"], paused["updatedAt"]) == (
        "2026-04-01T00:01:00.000Z",
        "2026-04-01T00:01:00.000Z",
    )
    # Time passes while paused: nothing moves, and it is not due even past its old due time.
    later = at(timer, "2026-04-01T00:09:00.000Z", "get", "tm_0001")
    assert figures(later) == ("paused", 60_000, 240_000, "2026-04-01T00:05:00.000Z", False)
    resumed = at(timer, "2026-04-01T00:09:00.000Z", "resume", "tm_0001")
    assert figures(resumed) == ("running", 60_000, 240_000, "2026-04-01T00:13:00.000Z", False)
    assert resumed["pausedAt"] is None
    assert figures(at(timer, "2026-04-01T00:12:59.999Z", "get", "tm_0001"))[2:] == (
        1,
        "2026-04-01T00:13:00.000Z",
        False,
    )
    assert figures(at(timer, "2026-04-01T00:13:00.000Z", "get", "tm_0001"))[2:] == (
        0,
        "2026-04-01T00:13:00.000Z",
        True,
    )


def test_several_pauses_add_up(timer: AppRunner) -> None:
    at(timer, T0, "start", "--duration", "10m")
    at(timer, "2026-04-01T00:01:00.000Z", "pause", "tm_0001")
    at(timer, "2026-04-01T00:02:30.000Z", "resume", "tm_0001")  # 90 s paused
    at(timer, "2026-04-01T00:04:00.000Z", "pause", "tm_0001")
    at(timer, "2026-04-01T00:04:00.500Z", "resume", "tm_0001")  # 0.5 s paused
    item = at(timer, "2026-04-01T00:06:00.000Z", "get", "tm_0001")
    # 6 min since start, 90.5 s of it paused.
    assert figures(item) == ("running", 269_500, 330_500, "2026-04-01T00:11:30.500Z", False)


def test_a_stopwatch_leaves_pauses_out_and_freezes_at_stop(timer: AppRunner) -> None:
    at(timer, T0, "start", "work")
    at(timer, "2026-04-01T00:10:00.000Z", "pause", "tm_0001")
    at(timer, "2026-04-01T00:30:00.000Z", "resume", "tm_0001")
    stopped = at(timer, "2026-04-01T00:35:00.000Z", "stop", "tm_0001")
    assert (stopped["status"], stopped["elapsedMs"], stopped["stoppedAt"]) == (
        "stopped",
        900_000,
        "2026-04-01T00:35:00.000Z",
    )
    assert at(timer, "2026-04-02T00:00:00.000Z", "get", "tm_0001")["elapsedMs"] == 900_000


def test_stopping_a_paused_timer_ends_the_pause_at_the_stop(timer: AppRunner) -> None:
    at(timer, T0, "start", "--duration", "5m")
    at(timer, "2026-04-01T00:02:00.000Z", "pause", "tm_0001")
    stopped = at(timer, "2026-04-01T00:03:00.000Z", "stop", "tm_0001")
    assert figures(stopped) == ("stopped", 120_000, 180_000, "2026-04-01T00:06:00.000Z", False)
    assert (stopped["pausedAt"], stopped["stoppedAt"]) == (None, "2026-04-01T00:03:00.000Z")


def test_a_stopped_countdown_is_no_longer_due(timer: AppRunner) -> None:
    at(timer, T0, "start", "--duration", "1m")
    stopped = at(timer, "2026-04-01T00:02:00.000Z", "stop", "tm_0001")
    assert figures(stopped) == ("stopped", 120_000, 0, "2026-04-01T00:01:00.000Z", False)


def test_stopping_a_stopped_timer_succeeds_and_changes_nothing(timer: AppRunner) -> None:
    at(timer, T0, "start", "--duration", "1m")
    first = at(timer, "2026-04-01T00:00:30.000Z", "stop", "tm_0001")
    before = timer.state_file("timers.json").read_bytes()
    again = at(timer, "2026-04-01T00:05:00.000Z", "stop", "tm_0001")
    assert again == first
    assert timer.state_file("timers.json").read_bytes() == before


@pytest.mark.parametrize(
    ("setup", "command", "status"),
    [
        ([], "resume", "running"),
        (["pause"], "pause", "paused"),
        (["stop"], "pause", "stopped"),
        (["stop"], "resume", "stopped"),
        (["pause", "stop"], "resume", "stopped"),
    ],
)
def test_impossible_transitions_are_conflicts_and_change_nothing(
    timer: AppRunner, setup: list[str], command: str, status: str
) -> None:
    at(timer, T0, "start", "--duration", "5m")
    for step in setup:
        at(timer, "2026-04-01T00:01:00.000Z", step, "tm_0001")
    before = timer.state_file("timers.json").read_bytes()
    with freeze_time("2026-04-01T00:02:00.000Z"):
        result = timer.run(command, "tm_0001")
    assert (result.error_code, result.exit_status) == ("CONFLICT", 6)
    assert result.envelope["error"]["message"] == f"Cannot {command} timer tm_0001: it is {status}."
    assert timer.state_file("timers.json").read_bytes() == before


def test_due_lists_running_countdowns_that_have_fired_oldest_first(timer: AppRunner) -> None:
    at(timer, T0, "start", "late", "--duration", "10m")  # due 00:10
    at(timer, T0, "start", "early", "--duration", "5m")  # due 00:05
    at(timer, T0, "start", "not yet", "--duration", "1h")
    at(timer, T0, "start", "stopwatch")
    at(timer, T0, "start", "paused", "--duration", "1m")
    at(timer, "2026-04-01T00:00:30.000Z", "pause", "tm_0005")
    at(timer, T0, "start", "stopped", "--duration", "1m")
    at(timer, "2026-04-01T00:02:00.000Z", "stop", "tm_0006")
    with freeze_time("2026-04-01T00:10:00.000Z"):
        items = timer.run("due").items
    assert [(item["label"], item["isDue"], item["remainingMs"]) for item in items] == [
        ("early", True, 0),
        ("late", True, 0),
    ]


def test_stop_acknowledges_a_fired_timer(timer: AppRunner) -> None:
    at(timer, T0, "start", "--duration", "1m")
    at(timer, "2026-04-01T00:05:00.000Z", "stop", "tm_0001")
    with freeze_time("2026-04-01T00:06:00.000Z"):
        assert timer.run("due").items == []


@pytest.mark.parametrize(
    ("status", "labels"),
    [
        (None, ["running", "paused"]),
        ("active", ["running", "paused"]),
        ("running", ["running"]),
        ("paused", ["paused"]),
        ("stopped", ["stopped"]),
        ("all", ["running", "paused", "stopped"]),
    ],
)
def test_list_filters_by_status_in_creation_order(
    timer: AppRunner, status: str | None, labels: list[str]
) -> None:
    for label in ("running", "paused", "stopped"):
        at(timer, T0, "start", label)
    at(timer, T0, "pause", "tm_0002")
    at(timer, T0, "stop", "tm_0003")
    args = ["list"] if status is None else ["list", "--status", status]
    with freeze_time(T0):
        assert [item["label"] for item in timer.run(*args).items] == labels


def test_list_limit_says_the_total(timer: AppRunner) -> None:
    for label in "abc":
        at(timer, T0, "start", label)
    with freeze_time(T0):
        result = timer.run("list", "--limit", "1")
    assert ([item["label"] for item in result.items], result.envelope["total"]) == (["a"], 3)


def test_remove_with_confirm_deletes_and_ids_are_never_reused(timer: AppRunner) -> None:
    at(timer, T0, "start", "a")
    removed = at(timer, T0, "remove", "tm_0001", "--confirm")
    assert removed["label"] == "a"
    with freeze_time(T0):
        assert timer.run("get", "tm_0001").error_code == "NOT_FOUND"
    assert at(timer, T0, "start", "b")["id"] == "tm_0002"
