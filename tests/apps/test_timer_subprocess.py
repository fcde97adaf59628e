"""agentic-timer as a runtime runs it: real processes, the clock set by AGENTIC_NOW."""

from __future__ import annotations

from agentapps.harness import AppRunner


def now(instant: str) -> dict[str, str]:
    return {"AGENTIC_NOW": instant}


def test_a_countdown_across_separate_processes(timer: AppRunner) -> None:
    started = timer.run_subprocess("start", "tea", "--duration", "PT5M", env=now("2026-04-01T00:00:00Z"))
    assert started.item["dueAt"] == "2026-04-01T00:05:00.000Z"
    timer.run_subprocess("pause", "tm_0001", env=now("2026-04-01T00:01:00.000Z"))
    resumed = timer.run_subprocess("resume", "tm_0001", env=now("2026-04-01T00:02:30.500Z"))
    assert (resumed.item["dueAt"], resumed.item["remainingMs"]) == ("2026-04-01T00:06:30.500Z", 240_000)
    assert timer.run_subprocess("due", env=now("2026-04-01T00:06:30.499Z")).items == []
    fired = timer.run_subprocess("due", env=now("2026-04-01T00:06:30.500Z"))
    assert fired.stdout == (
        '{"ok":true,"command":"due","count":1,"items":[{"id":"tm_0001","label":"tea","kind":"countdown",'
        '"status":"running","durationMs":300000,"dueAt":"2026-04-01T00:06:30.500Z",'
        '"startedAt":"2026-04-01T00:00:00.000Z","pausedAt":null,"stoppedAt":null,'
        '"createdAt":"2026-04-01T00:00:00.000Z","updatedAt":"2026-04-01T00:02:30.500Z",'
        '"elapsedMs":300000,"remainingMs":0,"isDue":true}]}\n'
    )
    stopped = timer.run_subprocess("stop", "tm_0001", env=now("2026-04-01T00:07:00Z"))
    assert (stopped.item["status"], stopped.item["elapsedMs"]) == ("stopped", 329_500)
    assert timer.run_subprocess("due", env=now("2026-04-01T00:08:00Z")).items == []


def test_a_conflict_in_a_real_process(timer: AppRunner) -> None:
    timer.run_subprocess("start", env=now("2026-04-01T00:00:00Z"))
    result = timer.run_subprocess("resume", "tm_0001", env=now("2026-04-01T00:00:01Z"))
    assert (result.exit_status, result.error_code) == (6, "CONFLICT")
    assert result.stderr == ""
