"""noxfile.py's test sessions: every test runs once, the independent ones on every core and those
marked serial alone after them; a pass that collects nothing fails; every session logs its time."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import tomllib
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any, cast

import nox
import pytest

from tests.test_readme import quick_start_commands

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def noxfile() -> ModuleType:
    sys.path.insert(0, str(ROOT))
    try:
        import noxfile
    finally:
        sys.path.remove(str(ROOT))
    return noxfile


class RecordingSession:
    """What a session asks nox for, kept: each command run, with its keyword arguments, and each
    line logged. A command named in `failing` fails as nox's run does, with an exception."""

    def __init__(self, name: str, posargs: list[str] | None = None, failing: str | None = None) -> None:
        self.name = name
        self.posargs = posargs or []
        self.failing = failing
        self.runs: list[tuple[tuple[str, ...], dict[str, Any]]] = []
        self.logged: list[str] = []
        self.installs: list[tuple[str, ...]] = []
        self.env: dict[str, str] = {}

    def install(self, *args: str) -> None:
        self.installs.append(args)

    def run(self, *args: str, **options: Any) -> None:
        self.runs.append((args, options))
        if args[0] == self.failing:
            raise nox.command.CommandFailed(f"{args[0]} failed")

    def log(self, message: str) -> None:
        self.logged.append(message)


def took(session: RecordingSession) -> list[str]:
    return [line for line in session.logged if re.fullmatch(rf"{session.name} took \d+\.\d s", line)]


def test_tests_runs_the_parallel_pass_then_the_serial_pass(noxfile: ModuleType) -> None:
    session = RecordingSession("tests")
    noxfile.tests(cast(nox.Session, session))
    assert [args for args, _ in session.runs] == [
        ("pytest", "-n", "auto", "--dist", "worksteal", "--durations=50", "-m", "not serial"),
        ("pytest", "--durations=50", "-m", "serial"),
    ]
    # No success_codes: nox fails a session on any non-zero status, pytest's 5 (no test) included.
    assert [options for _, options in session.runs] == [{}, {}]
    assert len(took(session)) == 1


def test_a_contract_session_runs_its_paths_in_the_same_two_passes(noxfile: ModuleType) -> None:
    session = RecordingSession("contract-3.12")
    noxfile.run_tests(cast(nox.Session, session), noxfile.CONTRACT_TESTS)
    [(parallel, _), (serial, _)] = session.runs
    assert parallel[-len(noxfile.CONTRACT_TESTS) - 2 :] == ("-m", "not serial", *noxfile.CONTRACT_TESTS)
    assert serial[-len(noxfile.CONTRACT_TESTS) - 2 :] == ("-m", "serial", *noxfile.CONTRACT_TESTS)


def test_arguments_given_to_tests_go_to_one_pytest_as_they_are(noxfile: ModuleType) -> None:
    session = RecordingSession("tests", posargs=["agentic-to-do/tests", "-k", "todo"])
    noxfile.tests(cast(nox.Session, session))
    assert [args for args, _ in session.runs] == [("pytest", "agentic-to-do/tests", "-k", "todo")]


def test_a_failing_session_still_logs_its_time_and_fails(noxfile: ModuleType) -> None:
    session = RecordingSession("tests", failing="pytest")
    with pytest.raises(nox.command.CommandFailed):
        noxfile.tests(cast(nox.Session, session))
    assert len(session.runs) == 1  # the serial pass does not hide the parallel pass's failure
    assert len(took(session)) == 1


def test_every_session_logs_its_time(noxfile: ModuleType) -> None:
    sessions = nox.registry.get()
    assert {"tests", "lint", "typecheck", "check", "coverage", "demo"} <= set(sessions)
    wrapper = noxfile.timed(lambda session: None).__code__
    for name, registered in sessions.items():
        assert registered.func.__code__ is wrapper, f"{name} is not wrapped by timed"


def test_the_serial_pass_of_every_test_session_has_tests(noxfile: ModuleType) -> None:
    """A pass with no test fails its session (pytest exits 5): the serial pass of each contract
    session collects some of CONTRACT_TESTS, and so the serial pass of `tests`, which runs every
    test, does too. Each parallel pass is its serial pass's complement, thousands of tests."""
    completed = subprocess.run(
        [sys.executable, "-m", "pytest", "--collect-only", "-q", "-m", "serial", *noxfile.CONTRACT_TESTS],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=False,
    )
    assert completed.returncode == 0, completed.stdout + completed.stderr
    serial = [line.split("::")[0] for line in completed.stdout.splitlines() if "::" in line]
    assert serial
    assert all(path.startswith(tuple(noxfile.CONTRACT_TESTS)) for path in serial)


def test_newest_typer_upgrades_typer_then_replays_every_package_s_scenarios(noxfile: ModuleType) -> None:
    session = RecordingSession("newest-typer")
    noxfile.newest_typer(cast(nox.Session, session))
    assert session.installs == [("-e", "."), ("--upgrade", "typer")]
    replays = [args for args, _ in session.runs if args[:2] == ("agentapps", "replay")]
    assert len(replays) == 1
    assert {word for word in replays[0] if word.endswith("/scenarios")} == {
        f"{path.name}/scenarios" for path in ROOT.glob("agentic-*") if (path / "APP.md").is_file()
    }
    assert "newest-typer" not in noxfile.nox.options.sessions  # it replays through processes: not a default
    assert took(session)


def test_the_long_tests_are_collected_first_and_each_named_one_exists() -> None:
    """The parallel pass's order (tests/conftest.py): every test LONG_FIRST names comes before
    every other test, in the list's order, whatever order the files are given in; with one worker,
    WAIT_EARLY's come right after them; and each name still finds a test (a renamed test would
    otherwise silently go back to its collected place)."""
    from tests.conftest import LONG_FIRST, WAIT_EARLY

    files = sorted({name.split("::")[0] for name in (*LONG_FIRST, *WAIT_EARLY)})
    completed = subprocess.run(
        [sys.executable, "-m", "pytest", "--collect-only", "-q", "tests/test_noxfile.py", *files],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=False,
    )
    assert completed.returncode == 0, completed.stdout + completed.stderr
    collected = [line for line in completed.stdout.splitlines() if "::" in line]
    long = [index for index, node in enumerate(collected) if node.startswith(LONG_FIRST)]
    assert long == list(range(len(long)))
    ranks = [
        next(r for r, name in enumerate(LONG_FIRST) if node.startswith(name))
        for node in collected[: len(long)]
    ]
    assert ranks == sorted(ranks)  # longest first, as LONG_FIRST lists them
    waiting = [index for index, node in enumerate(collected) if node.startswith(WAIT_EARLY)]
    assert waiting == list(range(len(long), len(long) + len(waiting)))
    assert all(any(node.startswith(name) for node in collected) for name in (*LONG_FIRST, *WAIT_EARLY))
    assert any(node.startswith("tests/test_noxfile.py::") for node in collected[len(long) + len(waiting) :])


@dataclass(frozen=True)
class StandIn:
    """A test as the ordering sees it: its node id alone."""

    nodeid: str


@pytest.mark.parametrize("workers", [2, 3])
def test_the_waiting_tests_head_the_second_workers_stretch(workers: int) -> None:
    """Under worksteal the first worker is handed the first len // workers tests: LONG_FIRST's
    lead them, WAIT_EARLY's start the next stretch, and the rest keep their collected order."""
    from tests.conftest import LONG_FIRST, WAIT_EARLY, parallel_order

    others = [StandIn(f"tests/apps/test_other.py::test_{number}") for number in range(40)]
    waiting = [StandIn(f"{name}[{case}]") for name in WAIT_EARLY for case in range(2)]
    long = [StandIn(name) for name in reversed(LONG_FIRST)]
    given = [*others[:20], *waiting, *long, *others[20:]]
    ordered = parallel_order(given, workers)
    second = len(given) // workers
    assert sorted(item.nodeid for item in ordered) == sorted(item.nodeid for item in given)
    assert ordered[: len(long)] == list(reversed(long))
    assert ordered[second : second + len(waiting)] == waiting
    assert [item for item in ordered if item in others] == others


def test_tests_runs_alone_and_the_light_sessions_two_at_a_time(noxfile: ModuleType) -> None:
    """The serial pass measures time, so `tests` never shares the machine with another session;
    the default sessions that measure nothing may run two at a time."""
    from nox import registry

    sessions = registry.get()
    assert noxfile.nox.options.parallel == 2
    assert sessions["tests"].allow_parallel in (None, False)
    assert noxfile.nox.options.allow_parallel is False  # a session not marked runs alone
    light = [name for name in noxfile.nox.options.sessions if name != "tests"]
    assert light
    assert all(sessions[name].allow_parallel for name in light)


def test_every_session_caches_bytecode_whatever_the_machine_says(noxfile: ModuleType) -> None:
    """With PYTHONDONTWRITEBYTECODE set outside (this machine and CI's set it), a session's
    processes would compile every module of the suite anew at each start: every session gives
    its commands the variable empty, which Python reads as not set."""
    for name in ("tests", "lint"):
        session = RecordingSession(name)
        getattr(noxfile, name)(cast(nox.Session, session))
        assert session.env == {"PYTHONDONTWRITEBYTECODE": "", "UV_COMPILE_BYTECODE": "1"}
    completed = subprocess.run(
        [sys.executable, "-c", "import sys; print(sys.flags.dont_write_bytecode)"],
        env={**os.environ, "PYTHONDONTWRITEBYTECODE": ""},
        capture_output=True,
        text=True,
        check=True,
    )
    assert completed.stdout.strip() == "0"


def test_sessions_are_made_by_uv_where_the_test_command_installs_it(noxfile: ModuleType) -> None:
    """uv makes each session's virtualenv and installs into it where nox finds it (the README's
    commands install it beside nox), and the standard venv and pip otherwise; the test extra
    brings uv of its own, which the install tests run as this interpreter's module."""
    assert noxfile.nox.options.default_venv_backend == "uv|venv"
    assert all(
        command.startswith("python3 -m pip install --quiet nox uv && ") for command in quick_start_commands()
    )
    test_extra = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["optional-dependencies"][
        "test"
    ]
    assert "uv" in test_extra
