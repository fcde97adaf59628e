"""agentic-to-do as a runtime runs it: real processes, entry.command from the package root."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from agentapps.harness import AppRunner
from agentapps.runtime import check_output

NOW = {"AGENTIC_NOW": "2026-04-01T00:00:00Z"}


def test_a_session_of_commands_gives_exact_envelopes(todo: AppRunner) -> None:
    added = todo.run_subprocess("add", "Write docs", "--due-at", "2026-04-05", env=NOW)
    assert added.stdout == (
        '{"ok":true,"command":"add","item":{"id":"td_0001","title":"Write docs","description":"",'
        '"status":"open","dueAt":"2026-04-05","createdAt":"2026-04-01T00:00:00.000Z",'
        '"updatedAt":"2026-04-01T00:00:00.000Z","completedAt":null}}\n'
    )
    done = todo.run_subprocess("complete", "td_0001", env={"AGENTIC_NOW": "2026-04-02T12:30:00.250+02:00"})
    assert done.item["completedAt"] == "2026-04-02T10:30:00.250Z"
    listed = todo.run_subprocess("list", "--status", "completed", "--limit", "5")
    assert (listed.envelope["count"], listed.envelope["total"]) == (1, 1)
    refused = todo.run_subprocess("remove", "td_0001")
    assert (refused.exit_status, refused.error_code) == (5, "CONFIRMATION_REQUIRED")
    assert todo.run_subprocess("remove", "td_0001", "--confirm").item["id"] == "td_0001"
    assert todo.run_subprocess("list").envelope == {"ok": True, "command": "list", "count": 0, "items": []}


def test_agentic_now_without_an_offset_means_utc(todo: AppRunner) -> None:
    item = todo.run_subprocess("add", "x", env={"AGENTIC_NOW": "2026-04-01T08:00:00"}).item
    assert item["createdAt"] == "2026-04-01T08:00:00.000Z"


def test_errors_print_one_envelope_and_no_traceback(todo: AppRunner) -> None:
    result = todo.run_subprocess("add", "x", "--due-at", "2026-02-30")
    assert (result.exit_status, result.error_code) == (3, "VALIDATION_ERROR")
    assert result.stdout.count("\n") == 1
    assert result.stderr == ""


def test_usage_errors_print_no_usage_panel(todo: AppRunner) -> None:
    result = todo.run_subprocess("add", "--bogus")
    assert (result.exit_status, result.error_code) == (2, "USAGE_ERROR")
    assert result.stderr == ""


def test_unicode_survives_a_real_process(todo: AppRunner) -> None:
    todo.run_subprocess("add", "naïve ☕ 日本語", "--description", "line 1\nline 2 🧪")
    item = todo.run_subprocess("get", "td_0001").item
    assert (item["title"], item["description"]) == ("naïve ☕ 日本語", "line 1\nline 2 🧪")


def test_the_entry_script_runs_from_any_working_directory(todo: AppRunner, tmp_path: Path) -> None:
    script = todo.package.root / "app" / "cli.py"
    completed = subprocess.run(
        [sys.executable, str(script), "add", "from elsewhere"],
        cwd=tmp_path,
        env={"AGENTIC_STATE_DIR": str(todo.state_dir), "PATH": ""},
        capture_output=True,
        text=True,
        check=False,
    )
    invocation = check_output(todo.package, ["add"], completed.returncode, completed.stdout, completed.stderr)
    assert invocation.violations == []
    assert json.loads(completed.stdout)["item"]["title"] == "from elsewhere"
    assert todo.run("list").items[0]["title"] == "from elsewhere"
