"""--human: readable text with the same exit status. Text is not an envelope, so it is not a scenario."""

from __future__ import annotations

from agentapps.harness import AppRunner

NOW = {"AGENTIC_NOW": "2026-04-01T00:00:00Z"}


def test_human_flag_prints_text_instead_of_json(todo: AppRunner) -> None:
    assert todo.run("add", "Write docs", "--due-at", "2026-04-05", env=NOW).ok
    out = todo.run_human("list")
    assert out.exit_status == 0
    assert out.stdout == "td_0001  [open]  Write docs  due 2026-04-05\n(1 item)\n"


def test_human_flag_keeps_the_error_exit_status(todo: AppRunner) -> None:
    out = todo.run_human("get", "td_0404")
    assert out.exit_status == 4
    assert out.stdout.startswith("Error NOT_FOUND: No to-do with id td_0404.\nHint: ")


def test_human_flag_after_double_dash_is_an_argument(todo: AppRunner) -> None:
    assert todo.run("add", "--", "--human").item["title"] == "--human"
