"""agentapps itself interrupted while an app runs: the app leads a session of its own, so neither a
terminal's Ctrl-C nor a signal to agentapps alone reaches it. Found by an outside review: SIGINT,
SIGTERM or SIGHUP ended agentapps at once and left the app running with no bound (check's
temporary copy too). Now agentapps ends the app's group first, then itself by that signal."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.toolkit.conftest import FIXTURES, SUITE

AGENTAPPS = str(Path(sys.executable).parent / "agentapps")
WAIT = 60.0  # seconds for a process to start or end on a loaded machine; the app itself never ends


def apps_running_under(folder: Path, command: bytes = b"app/cli.py") -> set[int]:
    """The pids of the processes whose command line holds `command` (the fixture's entry, by
    default) and whose working folder is under `folder`."""
    found = set()
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            line = (entry / "cmdline").read_bytes()
            cwd = os.readlink(entry / "cwd")
        except OSError:
            continue
        if command in line and cwd.startswith(str(folder) + os.sep):
            found.add(int(entry.name))
    return found


def ignores(pid: int, number: int) -> bool:
    """Whether the process ignores the signal now (its SigIgn mask in /proc)."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("SigIgn:"):
            return bool(int(line.split()[1], 16) >> (number - 1) & 1)
    return False


def until(condition: Callable[[], object], what: str) -> None:
    deadline = time.monotonic() + WAIT
    while not condition():
        assert time.monotonic() < deadline, what
        time.sleep(0.05)


# An app that ignores the signals and leaves a child that does too: found by an outside review,
# they outlived the runtime, which waited only for the shell that started them.
DEAF = """import os, signal, time
for number in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
    signal.signal(number, signal.SIG_IGN)
os.fork()
"""


@pytest.mark.parametrize("deaf", [False, True], ids=["ends-on-sigterm", "ignores-it-and-forks"])
@pytest.mark.parametrize("number", [signal.SIGINT, signal.SIGTERM, signal.SIGHUP], ids=lambda n: n.name)
@pytest.mark.parametrize("command", ["run", "check"])
def test_a_signal_to_agentapps_ends_the_app_it_runs_then_agentapps(
    tmp_path: Path, command: str, number: signal.Signals, deaf: bool
) -> None:
    package = tmp_path / "hangs"
    shutil.copytree(FIXTURES / "hangs", package, ignore=shutil.ignore_patterns("__pycache__"))
    if deaf:
        script = package / "app" / "cli.py"
        script.write_text(script.read_text().replace("time.sleep(3600)", DEAF + "time.sleep(3600)"))
    temp = tmp_path / "temp"
    temp.mkdir()
    args = [AGENTAPPS, command, str(package), "--approve", "--timeout", "600"]
    started = subprocess.Popen(
        [*args, *(["--", "list"] if command == "run" else [])],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env={**os.environ, "TMPDIR": str(temp)},
    )
    try:
        until(lambda: apps_running_under(tmp_path), "the app started")
        apps = apps_running_under(tmp_path)
        started.send_signal(number)
        stdout, stderr = started.communicate(timeout=WAIT)
    finally:
        started.kill()
        started.wait()
    assert (started.returncode, stdout, stderr) == (-number, b"", b"")  # as it would end at once
    until(lambda: not (apps & apps_running_under(tmp_path)), "the app ended")
    assert list(temp.iterdir()) == []  # check's temporary copy is removed


@pytest.mark.parametrize(
    ("first", "second"),
    [(signal.SIGTERM, signal.SIGTERM), (signal.SIGINT, signal.SIGHUP)],
    ids=lambda n: n.name,
)
def test_a_second_signal_during_the_grace_still_ends_the_app_first(
    tmp_path: Path, first: signal.Signals, second: signal.Signals
) -> None:
    """Found by an outside review: agentapps went back to the signals' default action before its
    grace, so a second signal within it (Ctrl-C pressed twice) ended agentapps before the app's
    group was killed, and an app that ignores SIGTERM was left running. The second is ignored:
    agentapps ends the app, then itself by the first."""
    package = tmp_path / "hangs"
    shutil.copytree(FIXTURES / "hangs", package, ignore=shutil.ignore_patterns("__pycache__"))
    script = package / "app" / "cli.py"
    script.write_text(script.read_text().replace("time.sleep(3600)", DEAF + "time.sleep(3600)"))
    started = subprocess.Popen(
        [AGENTAPPS, "run", str(package), "--approve", "--timeout", "600", "--", "list"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    try:
        # The app and the child it forked once it ignored the signals (the shell, if any, aside).
        until(lambda: len(apps_running_under(tmp_path, b"python3\x00app/cli.py")) == 2, "the app forked")
        apps = apps_running_under(tmp_path)
        started.send_signal(first)
        until(lambda: ignores(started.pid, second), "agentapps is ending the app")  # its grace began
        started.send_signal(second)
        stdout, stderr = started.communicate(timeout=WAIT)
    finally:
        started.kill()
        started.wait()
    assert (started.returncode, stdout, stderr) == (-first, b"", b"")
    until(lambda: not (apps & apps_running_under(tmp_path)), "the app ended")


def test_check_interrupted_while_it_reads_the_schemas_an_app_would_write_leaves_nothing(
    tmp_path: Path,
) -> None:
    """Found by an outside review: check's own child that imports the package (to tell stale
    schemas) was a plain child of check, outside the bound: interrupted then, check left its copy
    and that child running. Here the package's modules take long to import in that child only."""
    package = tmp_path / "agentic-to-do"
    shutil.copytree(SUITE / "agentic-to-do", package, ignore=shutil.ignore_patterns("__pycache__", "state"))
    modules = package / "app" / "todo" / "__init__.py"
    slow = (
        "import sys, time\n"
        "if sys.argv[:1] == ['-c']:\n"
        "    open('importing', 'w').close()\n"
        "    time.sleep(600)\n"
    )
    modules.write_text(slow + modules.read_text())
    temp = tmp_path / "temp"
    temp.mkdir()
    started = subprocess.Popen(
        [AGENTAPPS, "check", str(package), "--approve", "--timeout", "600"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env={**os.environ, "TMPDIR": str(temp)},
    )
    try:
        until(lambda: any(temp.rglob("importing")), "the child importing the package")
        helpers = apps_running_under(temp, b"agentapps.sync")
        assert helpers
        started.send_signal(signal.SIGTERM)
        stdout, stderr = started.communicate(timeout=WAIT)
    finally:
        started.kill()
        started.wait()
    assert (started.returncode, stdout, stderr) == (-signal.SIGTERM, b"", b"")
    until(lambda: not (helpers & apps_running_under(temp, b"agentapps.sync")), "the child ended")
    assert list(temp.iterdir()) == []


# A runtime that a signal reaches while it starts the app, from inside the step that starts it and
# before the runtime has begun to wait for it: cold, as Popen returns (the app's process exists);
# warm, once the call's request is sent (the warm process's child runs the app on reading it).
SIGNALLED_WHILE_STARTING = """
import os, signal, socket, subprocess, sys
from pathlib import Path
from agentapps import process, warm
from agentapps.package import Package
from agentapps.runtime import invoke

number, path, how = int(sys.argv[1]), Path(sys.argv[2]), sys.argv[3]
signal.signal(signal.SIGINT, signal.SIG_DFL)  # as the agentapps program runs (agentic_kit.runner)
if how == "cold":
    class SignalledWhileStarting(subprocess.Popen):
        def __init__(self, *args, **kwargs):
            super().__init__(*args, **kwargs)
            os.kill(os.getpid(), number)
    subprocess.Popen = SignalledWhileStarting
elif how == "cold-cannot-start":
    class SignalledThenFailing(subprocess.Popen):
        def __init__(self, *args, **kwargs):
            os.kill(os.getpid(), number)
            raise OSError("no such program")
    subprocess.Popen = SignalledThenFailing
else:
    sendall = socket.socket.sendall
    def signalled_once_sent(self, data, *args):
        sendall(self, data, *args)  # the warm runtime's one sendall: the call's request
        os.kill(os.getpid(), number)
    socket.socket.sendall = signalled_once_sent
try:
    with warm.WarmRuntime() as runtime:
        invoke(Package(path), ["list"], timeout=600, warm=runtime if how == "warm" else None)
except process.Interrupted as interrupted:
    process.end_by(interrupted)
print("the call returned")
"""


def processes_in(folder: Path) -> set[int]:
    """Every process whose working folder is under `folder`, whatever its command line."""
    return apps_running_under(folder, b"")


@pytest.mark.parametrize("number", [signal.SIGINT, signal.SIGTERM, signal.SIGHUP], ids=lambda n: n.name)
@pytest.mark.parametrize("how", ["cold", "cold-cannot-start", "warm"])
def test_a_signal_while_the_app_is_being_started_ends_the_app_then_the_runtime(
    tmp_path: Path, how: str, number: signal.Signals
) -> None:
    """Found by a review of process.py: a run watched for these signals only once it had begun to
    collect the app, so one that came between the app's fork (cold) or the call's hand-over to
    the warm process (warm) and then ended the runtime at once, and left the app running in its
    own session with no bound (warm: about one run in three here). Now the signal is held until
    the app's process exists (the call is handed over), which is ended first; should it never
    start, this process ends by the signal on its way out, not by the start's error."""
    package = tmp_path / "hangs"
    shutil.copytree(FIXTURES / "hangs", package, ignore=shutil.ignore_patterns("__pycache__"))
    driver = subprocess.run(
        [sys.executable, "-c", SIGNALLED_WHILE_STARTING, str(int(number)), str(package), how],
        capture_output=True,
        timeout=WAIT,
        cwd=SUITE,
    )
    assert (driver.returncode, driver.stdout, driver.stderr) == (-number, b"", b"")
    until(lambda: not processes_in(tmp_path), "every process started in the package ended")
