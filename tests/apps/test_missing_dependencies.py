"""A Python without the apps' dependencies (typer, filelock, pydantic) gets one JSON error
envelope, not a traceback: INTERNAL_ERROR, exit status 1, `command` null as for arguments that
name no command, a message naming what is missing and the interpreter, a hint with the command
that installs them, and a state left as it was.

`python -S -I` runs the same interpreter without site-packages, so none of the three can be found.
"""

from __future__ import annotations

import json
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from agentapps.harness import AppRunner
from tests.packages import AppFacts


def run_without_site_packages(package: Path, state_dir: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-S", "-I", "app/cli.py", *args],
        cwd=package,
        env={"AGENTIC_STATE_DIR": str(state_dir), "PATH": ""},
        capture_output=True,
        text=True,
        timeout=60,
    )


def assert_the_missing_modules_envelope(completed: subprocess.CompletedProcess[str], args: list[str]) -> None:
    assert completed.returncode == 1, completed.stdout + completed.stderr
    assert completed.stderr == ""  # no traceback
    envelope = json.loads(completed.stdout)
    assert (envelope["ok"], envelope["command"], envelope["error"]["code"]) == (False, None, "INTERNAL_ERROR")
    message, hint = envelope["error"]["message"], envelope["error"]["hint"]
    assert sys.executable in message
    assert "typer, filelock, pydantic" in message
    assert f"`{shlex.quote(sys.executable)} -m pip install typer filelock pydantic`" in hint
    assert f"`{shlex.join(['uv', 'run', 'app/cli.py', *args])}`" in hint


def test_a_python_without_the_dependencies_gets_an_error_envelope_and_changes_nothing(
    app: AppRunner, facts: AppFacts
) -> None:
    assert app.run(*facts.write).ok
    state = app.state_file(facts.state_file)
    before, files = state.read_bytes(), sorted(app.state_dir.iterdir())
    completed = run_without_site_packages(app.package.root, app.state_dir, *facts.write)
    assert_the_missing_modules_envelope(completed, list(facts.write))
    assert state.read_bytes() == before
    assert sorted(app.state_dir.iterdir()) == files  # no backup, no temporary file


@pytest.mark.parametrize("needed", [("json",), ()])
def test_nothing_is_said_when_every_module_is_there(needed: tuple[str, ...]) -> None:
    from agentic_kit.requirements import exit_unless_installed, missing

    assert missing(needed) == []
    exit_unless_installed(needed)  # returns: no envelope, no exit
