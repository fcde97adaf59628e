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

from tests.toolkit.conftest import FIXTURES

AGENTAPPS = str(Path(sys.executable).parent / "agentapps")
WAIT = 60.0  # seconds for a process to start or end on a loaded machine; the app itself never ends


def apps_running_under(folder: Path) -> set[int]:
    """The pids of the fixture's entry processes whose working folder is under `folder`."""
    found = set()
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            command = (entry / "cmdline").read_bytes()
            cwd = os.readlink(entry / "cwd")
        except OSError:
            continue
        if b"app/cli.py" in command and cwd.startswith(str(folder) + os.sep):
            found.add(int(entry.name))
    return found


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
