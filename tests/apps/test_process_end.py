"""How a run ends. Run by the interpreter as the program, it ends as the interpreter ends a
script (threads joined, atexit handlers run, stdout and stderr flushed) but without the
interpreter's teardown of every object; run by a host (runpy here, a warm runtime's child), it
raises SystemExit with the status and the host ends the process its own way."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from agentapps.harness import AppRunner
from tests.packages import AppFacts

# What the probes watch: an atexit handler, a thread still running when the script ends, and an
# object that says when it is freed, kept by a module, so freed only by the teardown.
WATCHERS = """
import atexit, sys, threading, time
class Freed:
    def __del__(self):
        print("torn down", file=sys.stderr)
kept = Freed()
atexit.register(lambda: print("atexit ran", file=sys.stderr))
def late():
    time.sleep(0.2)
    print("thread done", file=sys.stderr)
threading.Thread(target=late).start()
sys.argv = ["app/cli.py", *sys.argv[1:]]
"""
# The script run in __main__'s own namespace, as `python3 app/cli.py` runs it.
AS_THE_PROGRAM = """
__file__ = "app/cli.py"
with open(__file__, "rb") as handle:
    exec(compile(handle.read(), __file__, "exec"))
"""
# The script run by a host that is given the SystemExit.
BY_A_HOST = """
import runpy
try:
    runpy.run_path("app/cli.py", run_name="__main__")
except SystemExit as exit_:
    print("host given", exit_.code, file=sys.stderr)
"""


def ran(app: AppRunner, probe: str, args: tuple[str, ...]) -> subprocess.CompletedProcess[str]:
    """`probe`, after the watchers, run by a fresh interpreter in the package's folder."""
    return subprocess.run(
        [sys.executable, "-c", WATCHERS + probe, *args],
        cwd=app.package.root,
        env={"AGENTIC_STATE_DIR": str(app.state_dir), "PATH": ""},
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


@pytest.mark.parametrize("command", ["read", "write", "refusal"])
def test_a_run_as_the_program_ends_as_the_interpreter_would_without_its_teardown(
    app: AppRunner, facts: AppFacts, command: str
) -> None:
    app.run(*facts.write)
    args = {"read": facts.read, "write": facts.write, "refusal": ("get", "nope")}[command]
    expected = app.run(*args)
    completed = ran(app, AS_THE_PROGRAM, args)
    assert completed.returncode == expected.exit_status
    assert json.loads(completed.stdout)["ok"] is (command != "refusal")
    assert completed.stdout.count("\n") == 1  # one document, flushed whole
    # The thread was joined before the atexit handlers ran, as the interpreter does; nothing
    # was torn down.
    assert completed.stderr.splitlines() == ["thread done", "atexit ran"]


def test_a_host_that_runs_the_script_is_given_the_status_and_ends_the_process_itself(
    app: AppRunner, facts: AppFacts
) -> None:
    completed = ran(app, BY_A_HOST, ("get", "nope"))
    assert json.loads(completed.stdout)["ok"] is False
    lines = completed.stderr.splitlines()
    assert lines[0].startswith("host given ")
    assert lines[0] != "host given 0"  # the refusal's own status
    assert lines[1:] == ["thread done", "atexit ran", "torn down"]
    assert completed.returncode == 0  # the host's own ending


FLUSH_FAILS = """
import io, sys
class Failing(io.TextIOWrapper):  # flushes until the answer is written, then never again
    written = False
    def write(self, text):
        Failing.written = True
        return super().write(text)
    def flush(self):
        if Failing.written:
            raise OSError(5, "Input/output error")
        super().flush()
sys.stdout = Failing(open(1, "wb", closefd=False), encoding="utf-8")
"""


def test_a_stdout_that_cannot_flush_ends_as_the_interpreter_ends_it(app: AppRunner, facts: AppFacts) -> None:
    """The answer's own flush failed and was said; the interpreter's last flush fails too, and
    it ends the process as it always has: its message, and status 120."""
    completed = ran(app, FLUSH_FAILS + AS_THE_PROGRAM, facts.read)
    assert completed.returncode == 120
    assert "The answer could not be written to stdout (Input/output error)" in completed.stderr
    assert "Exception ignored" in completed.stderr
