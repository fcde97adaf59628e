"""When stdout cannot be written — a full disk (/dev/full), or a process started with stdout
closed (`>&-`) — the answer cannot be printed. The run says so in one line on stderr, never a
traceback, and exits with its own status, which still tells the outcome: 0 means the command
succeeded and its change is saved. Real processes: only they have a stdout that can fail."""

from __future__ import annotations

import subprocess
import sys

import pytest

from agentapps.harness import AppRunner
from tests.packages import AppFacts
from tests.reliability.conftest import child_environment

# How each case hands the app its stdout: /dev/full fails every write with ENOSPC; `exec >&-`
# closes descriptor 1 before Python starts.
STDOUTS = {
    "a full disk": ["sh", "-c", 'exec "$@" >/dev/full', "sh"],
    "a closed stdout": ["sh", "-c", 'exec "$@" >&-', "sh"],
}


def run_without_stdout(app: AppRunner, how: str, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [*STDOUTS[how], sys.executable, "app/cli.py", *args],
        cwd=app.package.root,
        env=child_environment(app.state_dir),
        stderr=subprocess.PIPE,
        text=True,
        timeout=60,
        check=False,
    )


@pytest.mark.parametrize("how", sorted(STDOUTS))
def test_a_change_whose_answer_cannot_be_printed_is_saved_and_exits_0(
    app: AppRunner, facts: AppFacts, how: str
) -> None:
    completed = run_without_stdout(app, how, *facts.write)
    assert completed.returncode == 0, completed.stderr
    lines = completed.stderr.splitlines()
    assert len(lines) == 1, completed.stderr
    assert lines[0].startswith("The answer could not be written to stdout (")
    assert lines[0].endswith("exit status 0 is the command's.")
    assert [item["id"] for item in app.run(*facts.read).items] == [facts.first_id]


@pytest.mark.parametrize("how", sorted(STDOUTS))
def test_a_failure_whose_answer_cannot_be_printed_keeps_its_exit_status(
    app: AppRunner, facts: AppFacts, how: str
) -> None:
    completed = run_without_stdout(app, how, "get", facts.first_id)
    assert completed.returncode == 4, completed.stderr  # NOT_FOUND
    assert len(completed.stderr.splitlines()) == 1, completed.stderr
    assert "Traceback" not in completed.stderr
    assert not app.state_dir.exists()
