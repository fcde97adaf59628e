"""Each package as a runtime runs it, in real processes: the bytes on stdout and stderr.

The scenarios replay every behaviour through real processes too (tests/toolkit/test_replay.py);
these check what they cannot see: the exact bytes printed, and an empty stderr.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from agentapps.harness import AppRunner
from agentapps.output import check_output
from tests.packages import AppFacts

NOW = {"AGENTIC_NOW": "2026-04-01T00:00:00Z"}


def test_stdout_is_one_line_of_compact_utf8_json(todo: AppRunner) -> None:
    added = todo.run_subprocess("add", "Café ☕", "--due-at", "2026-04-05", env=NOW)
    assert added.stdout == (
        '{"ok":true,"command":"add","item":{"id":"td_0001","title":"Café ☕","description":"",'
        '"status":"open","dueAt":"2026-04-05","createdAt":"2026-04-01T00:00:00.000Z",'
        '"updatedAt":"2026-04-01T00:00:00.000Z","completedAt":null,"tags":[],"priority":null,"repeat":null}}\n'
    )


def test_errors_print_one_envelope_and_nothing_on_stderr(app: AppRunner, facts: AppFacts) -> None:
    result = app.run_subprocess("get", facts.first_id.replace("0001", "0404"))
    assert (result.exit_status, result.error_code) == (4, "NOT_FOUND")
    assert result.stdout.count("\n") == 1
    assert result.stderr == ""


def test_usage_errors_print_no_usage_panel(app: AppRunner) -> None:
    result = app.run_subprocess("list", "--bogus")
    assert (result.exit_status, result.error_code) == (2, "USAGE_ERROR")
    assert result.stderr == ""


def test_the_entry_script_runs_from_any_working_directory(
    app: AppRunner, facts: AppFacts, tmp_path: Path
) -> None:
    script = app.package.root / "app" / "cli.py"
    completed = subprocess.run(
        [sys.executable, str(script), *facts.write],
        cwd=tmp_path,
        env={"AGENTIC_STATE_DIR": str(app.state_dir), "PATH": ""},
        capture_output=True,
        text=True,
        check=False,
    )
    invocation = check_output(
        app.package, list(facts.write), completed.returncode, completed.stdout, completed.stderr
    )
    assert invocation.violations == []
    assert json.loads(completed.stdout)["item"]["id"] == facts.first_id
    assert app.run(*facts.read).items[0]["id"] == facts.first_id


def test_a_reader_that_closed_stdout_gets_no_traceback(app: AppRunner, facts: AppFacts) -> None:
    """Nothing can be printed, so nothing is: no BrokenPipeError on stderr, and the exit status
    still tells the outcome (the write happened)."""
    read_end, write_end = os.pipe()
    os.close(read_end)
    try:
        completed = subprocess.run(
            [sys.executable, "app/cli.py", *facts.write],
            cwd=app.package.root,
            env={"AGENTIC_STATE_DIR": str(app.state_dir), "PATH": ""},
            stdout=write_end,
            stderr=subprocess.PIPE,
            check=False,
        )
    finally:
        os.close(write_end)
    assert (completed.returncode, completed.stderr) == (0, b"")
    assert app.run(*facts.read).items[0]["id"] == facts.first_id
