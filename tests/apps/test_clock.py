"""The clock an app reads when AGENTIC_NOW is unset is the wall clock (agentic_kit.clock.now).
Scenarios pin every step with AGENTIC_NOW; these in-process runs leave it unset and move the
wall clock itself with freezegun, so what the apps do with real time is held too: a timer paused
and resumed while the clock runs, timestamps taken as the clock reads."""

from __future__ import annotations

from datetime import timedelta

from freezegun import freeze_time

from agentapps.harness import AppRunner


def test_a_timer_paused_and_resumed_follows_the_wall_clock(timer: AppRunner) -> None:
    with freeze_time("2026-04-01T00:00:00Z") as clock:
        assert timer.run("start", "--duration", "5m").item["dueAt"] == "2026-04-01T00:05:00.000Z"
        clock.tick(timedelta(minutes=1))
        paused = timer.run("pause", "tm_0001").item
        assert (paused["status"], paused["remainingMs"]) == ("paused", 240_000)
        clock.tick(timedelta(minutes=8))
        assert timer.run("get", "tm_0001").item["remainingMs"] == 240_000  # a pause keeps the rest
        resumed = timer.run("resume", "tm_0001").item
        assert (resumed["dueAt"], resumed["remainingMs"]) == ("2026-04-01T00:13:00.000Z", 240_000)
        clock.tick(timedelta(minutes=4) - timedelta(milliseconds=1))
        assert timer.run("get", "tm_0001").item["isDue"] is False
        clock.tick(timedelta(milliseconds=1))
        assert [item["id"] for item in timer.run("due").items] == ["tm_0001"]


def test_timestamps_are_the_wall_clock_when_they_are_taken(todo: AppRunner) -> None:
    with freeze_time("2026-04-01T09:30:00Z") as clock:
        created = todo.run("add", "Write docs").item
        clock.tick(timedelta(hours=2))
        completed = todo.run("complete", "td_0001").item
    assert (created["createdAt"], created["updatedAt"]) == ("2026-04-01T09:30:00.000Z",) * 2
    assert completed["createdAt"] == "2026-04-01T09:30:00.000Z"
    assert completed["updatedAt"] == completed["completedAt"] == "2026-04-01T11:30:00.000Z"


def test_agentic_now_wins_over_the_wall_clock(todo: AppRunner) -> None:
    with freeze_time("2026-04-01T09:30:00Z"):
        created = todo.run("add", "x", env={"AGENTIC_NOW": "2030-01-01T00:00:00Z"}).item
    assert created["createdAt"] == "2030-01-01T00:00:00.000Z"


def test_after_a_clock_that_stepped_back_a_read_agrees_with_the_change(timer: AppRunner) -> None:
    """Found from outside: paused with the clock 30 minutes ahead, resumed at the real clock, the
    resume answered the figures at its recorded moment (the pause) while a get straight after
    read them at the clock, 30 minutes earlier, so elapsed went back."""
    with freeze_time("2026-04-01T00:00:00Z") as clock:
        timer.run("start", "--duration", "2h")
        clock.tick(timedelta(minutes=30))
        timer.run("pause", "tm_0001")
        clock.tick(-timedelta(minutes=30))  # the clock steps back
        resumed = timer.run("resume", "tm_0001").item
        read = timer.run("get", "tm_0001").item
    assert resumed["elapsedMs"] == read["elapsedMs"] == 30 * 60_000
    assert resumed["remainingMs"] == read["remainingMs"] == 90 * 60_000
