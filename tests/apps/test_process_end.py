"""How a run ends. Run by the interpreter as the program (`python3 app/cli.py`), it ends as the
interpreter ends a script (threads joined, atexit handlers run, stdout and stderr flushed) but
without the interpreter's teardown of every object; run by a host (runpy, a program that execs
the script, a test that calls `app.main()`, a warm runtime's child), it raises SystemExit with
the status and the host goes on as it will."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from agentapps.harness import AppRunner
from tests.packages import AppFacts

# What every probe watches, loaded by the interpreter at start-up (as sitecustomize, from
# PYTHONPATH): an atexit handler, a thread still running when the script ends (it waits for the
# main thread, so it ends only once the ending joins threads, however slow a loaded machine is),
# and an object that says when it is freed, kept by a module, so freed only by the teardown.
WATCHERS = """
import atexit, sys, threading
class Freed:
    def __del__(self):
        print("torn down", file=sys.stderr)
kept = Freed()
atexit.register(lambda: print("atexit ran", file=sys.stderr))
def late():
    threading.main_thread().join()  # marked done as the interpreter's ending joins threads
    print("thread done", file=sys.stderr)
threading.Thread(target=late).start()
"""
HOSTS = {
    "runpy": """
import runpy, sys
sys.argv = ["app/cli.py", *sys.argv[1:]]
try:
    runpy.run_path("app/cli.py", run_name="__main__")
except SystemExit as exit_:
    print("host given", exit_.code, file=sys.stderr)
""",
    "exec in __main__": """
import sys
sys.argv = ["app/cli.py", *sys.argv[1:]]
__file__ = "app/cli.py"
try:
    exec(compile(open(__file__, "rb").read(), __file__, "exec"))
except SystemExit as exit_:
    print("host given", exit_.code, file=sys.stderr)
""",
    "a function calling app.main()": """
import runpy, sys
sys.argv = ["app/cli.py", *sys.argv[1:]]
def test_main():
    script = runpy.run_path("app/cli.py", run_name="imported")
    try:
        script["app"].main()
    except SystemExit as exit_:
        print("host given", exit_.code, file=sys.stderr)
test_main()
""",
}


def ran(
    app: AppRunner, tmp_path: Path, args: tuple[str, ...], host: str | None = None, site: str = WATCHERS
) -> subprocess.CompletedProcess[str]:
    """`python3 app/cli.py ARGS` (or the host program, given ARGS) in the package's folder, by a
    fresh interpreter that loads `site` first."""
    (tmp_path / "site").mkdir(exist_ok=True)
    (tmp_path / "site" / "sitecustomize.py").write_text(site)
    return subprocess.run(
        [sys.executable, *(["-c", host] if host else ["app/cli.py"]), *args],
        cwd=app.package.root,
        env={"AGENTIC_STATE_DIR": str(app.state_dir), "PATH": "", "PYTHONPATH": str(tmp_path / "site")},
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


@pytest.mark.parametrize("command", ["read", "write", "refusal"])
def test_a_run_as_the_program_ends_as_the_interpreter_would_without_its_teardown(
    app: AppRunner, facts: AppFacts, tmp_path: Path, command: str
) -> None:
    app.run(*facts.write)
    args = {"read": facts.read, "write": facts.write, "refusal": ("get", "nope")}[command]
    expected = app.run(*args)
    completed = ran(app, tmp_path, args)
    assert completed.returncode == expected.exit_status
    assert json.loads(completed.stdout)["ok"] is (command != "refusal")
    assert completed.stdout.count("\n") == 1  # one document, flushed whole
    # The thread was joined before the atexit handlers ran, as the interpreter does; nothing
    # was torn down.
    assert completed.stderr.splitlines() == ["thread done", "atexit ran"]


@pytest.mark.parametrize("host", list(HOSTS))
def test_a_host_that_runs_the_script_is_given_the_status_and_goes_on(
    app: AppRunner, tmp_path: Path, host: str
) -> None:
    completed = ran(app, tmp_path, ("get", "nope"), HOSTS[host])
    assert json.loads(completed.stdout)["ok"] is False
    lines = completed.stderr.splitlines()
    assert lines[0].startswith("host given ")
    assert lines[0] != "host given 0"  # the refusal's own status
    assert lines[1:] == ["thread done", "atexit ran", "torn down"]
    assert completed.returncode == 0  # the host's own ending


# A stdout that flushes until something is written after `arm` is set, then never again.
FAILING_STDOUT = """
import io, sys
class Failing(io.TextIOWrapper):
    armed = written = False
    def write(self, text):
        Failing.written = Failing.armed
        return super().write(text)
    def flush(self):
        if Failing.written:
            raise OSError(5, "Input/output error")
        super().flush()
sys.stdout = Failing(open(1, "wb", closefd=False), encoding="utf-8")
"""


def test_a_stdout_that_cannot_flush_ends_as_the_interpreter_ends_it(
    app: AppRunner, facts: AppFacts, tmp_path: Path
) -> None:
    """The answer's own flush failed and was said; the interpreter's last flush fails too, and
    it ends the process as it always has: its message, and status 120."""
    completed = ran(app, tmp_path, facts.read, site=WATCHERS + FAILING_STDOUT + "Failing.armed = True\n")
    assert completed.returncode == 120
    assert "The answer could not be written to stdout (Input/output error)" in completed.stderr
    assert "Exception ignored" in completed.stderr


def test_what_an_atexit_handler_cannot_flush_ends_the_process_as_the_interpreter_does(
    app: AppRunner, facts: AppFacts, tmp_path: Path
) -> None:
    """The answer went out whole; a line an atexit handler writes cannot be flushed: the handlers
    ran once, and the interpreter says why the flush failed, with status 120."""
    late_write = "\natexit.register(lambda: (setattr(Failing, 'armed', True), print('late')))\n"
    completed = ran(app, tmp_path, facts.read, site=WATCHERS + FAILING_STDOUT + late_write)
    assert json.loads(completed.stdout)["ok"] is True
    assert completed.returncode == 120
    assert completed.stderr.count("atexit ran") == 1
    assert "Exception ignored" in completed.stderr
