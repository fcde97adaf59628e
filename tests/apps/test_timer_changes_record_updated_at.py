"""Found from outside: timer `rename` and `extend` left `updatedAt` as it was, while every other
change of every app records its moment there (and `list --sort updated` reads it)."""

from __future__ import annotations

from agentapps.harness import AppRunner


def at(moment: str) -> dict[str, str]:
    return {"AGENTIC_NOW": moment}


def test_rename_and_extend_record_their_moment_and_keep_the_figures(timer: AppRunner) -> None:
    assert timer.run("start", "tea", "--duration", "10m", env=at("2026-04-01T00:00:00Z")).ok
    paused = timer.run("pause", "tm_0001", env=at("2026-04-01T00:01:00Z")).item
    renamed = timer.run("rename", "tm_0001", "green tea", env=at("2026-04-01T00:02:00Z"))
    assert renamed.ok, renamed.envelope
    assert (renamed.item["updatedAt"], renamed.item["pausedAt"]) == (
        "2026-04-01T00:02:00.000Z",
        "2026-04-01T00:01:00.000Z",
    )
    assert renamed.item["remainingMs"] == paused["remainingMs"] == 540_000  # a pause stays a pause
    extended = timer.run("extend", "tm_0001", "5m", env=at("2026-04-01T00:03:00Z")).item
    assert (extended["updatedAt"], extended["remainingMs"]) == ("2026-04-01T00:03:00.000Z", 840_000)
    # The state written so is valid: it reads back, and resuming counts the whole pause.
    resumed = timer.run("resume", "tm_0001", env=at("2026-04-01T00:04:00Z")).item
    assert (resumed["status"], resumed["remainingMs"], resumed["updatedAt"]) == (
        "running",
        840_000,
        "2026-04-01T00:04:00.000Z",
    )


def test_a_rename_at_a_clock_behind_keeps_updated_at_from_going_back(timer: AppRunner) -> None:
    assert timer.run("start", "tea", env=at("2026-04-01T00:05:00Z")).ok
    assert timer.run("stop", "tm_0001", env=at("2026-04-01T00:06:00Z")).ok
    renamed = timer.run("rename", "tm_0001", "green tea", env=at("2026-04-01T00:00:00Z"))
    assert renamed.ok, renamed.envelope
    assert (renamed.item["label"], renamed.item["updatedAt"]) == ("green tea", "2026-04-01T00:06:00.000Z")


def test_list_sorted_by_updated_puts_the_renamed_timer_last(timer: AppRunner) -> None:
    assert timer.run("start", "a", env=at("2026-04-01T00:00:00Z")).ok
    assert timer.run("start", "b", env=at("2026-04-01T00:01:00Z")).ok
    assert timer.run("rename", "tm_0001", "a2", env=at("2026-04-01T00:02:00Z")).ok
    listed = timer.run("list", "--sort", "updated", env=at("2026-04-01T00:03:00Z")).items
    assert [each["id"] for each in listed] == ["tm_0002", "tm_0001"]  # least recently changed first
