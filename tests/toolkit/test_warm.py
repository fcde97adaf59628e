"""The warm runtime (warm.py): the same result as a cold call, byte for byte, under the same rules;
every call its own process; a warm process that holds nothing between calls and comes back when
it dies."""

from __future__ import annotations

import asyncio
import contextlib
import functools
import json
import os
import signal
import subprocess
import sys
import textwrap
import threading
import time
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any, TypeVar

import pytest

from agentapps.environment import package_environment
from agentapps.errors import ToolkitError
from agentapps.output import Invocation
from agentapps.package import Package
from agentapps.replay import replay
from agentapps.runtime import RunTimedOut, invoke, run_and_relay
from agentapps.runtimes import Runtime, builtin_runtime
from agentapps.scenarios import Scenario, load_scenario, scenario_files
from agentapps.warm import SERVER_SCRIPT, WarmRuntime, python_entry

from .conftest import (
    FIXTURES,
    SUITE,
    RecordedReplay,
    StepOutcome,
    StepOutcomes,
    ToolkitResult,
    recording,
)
from .test_mcp import in_this_process

SCENARIOS = [SUITE / package / "scenarios" for package in ("agentic-to-do", "agentic-notes", "agentic-timer")]
PACKAGES = ["agentic-to-do", "agentic-notes", "agentic-timer"]
T = TypeVar("T")


@pytest.fixture
def warm() -> Iterator[WarmRuntime]:
    with WarmRuntime() as runtime:
        yield runtime


def replay_recorded(scenarios: list[Scenario], runtime: Runtime) -> StepOutcomes:
    """Replay each scenario (two side by side) and keep what each step gave, by scenario and step:
    its exit status, stdout and stderr, with its own state folder's path made neutral."""

    def one(scenario: Scenario) -> list[StepOutcome]:
        steps: list[StepOutcome] = []
        report = replay(scenario, recording(runtime, steps))
        assert report.passed, report.summary()
        return steps

    with ThreadPoolExecutor(max_workers=2) as pool:
        outcomes = list(pool.map(one, scenarios))
    return {
        (str(scenario.path), number): step
        for scenario, steps in zip(scenarios, outcomes, strict=True)
        for number, step in enumerate(steps, start=1)
    }


# The identity test in slices, each its own test, so the slices run on every core (xdist); every
# sixth scenario, so each slice holds as many scenarios of each package.
SLICES = 6


@functools.cache
def suite_scenarios() -> dict[Path, Scenario]:
    """The suite-level scenarios, each loaded once per test process: a seed-level one pins no
    clock, so its bytes differ run to run."""
    loaded = {path: load_scenario(path) for path in scenario_files(SCENARIOS)}
    return {path: scenario for path, scenario in loaded.items() if scenario.level == "suite"}


def suite_scenario_files() -> list[Path]:
    return list(suite_scenarios())


def scenario_slice(number: int) -> list[Scenario]:
    return list(suite_scenarios().values())[number::SLICES]


def test_the_slices_hold_every_scenario_once() -> None:
    files = suite_scenario_files()
    sliced = [scenario.path for number in range(SLICES) for scenario in scenario_slice(number)]
    assert sorted(sliced) == sorted(files)
    assert len(sliced) == len(set(sliced)) >= 150
    assert sum(len(suite_scenarios()[path].steps) for path in files) >= 800


@pytest.mark.parametrize("number", range(SLICES))
def test_every_scenario_gives_the_same_bytes_warm_and_cold(
    warm_replay_of_every_scenario: RecordedReplay, number: int
) -> None:
    """Identity, proven: every step of every scenario (this slice of them), through a cold process
    and through a child of the warm one, passes and gives the same exit status, stdout and stderr.
    The warm steps are those of `agentapps replay` (the default, warm path), which the replay test
    checks passed; the cold ones are replayed here."""
    assert warm_replay_of_every_scenario.result.error_code is None  # every warm step passed
    scenarios = scenario_slice(number)
    assert len(scenarios) >= 150 // SLICES
    cold = replay_recorded(scenarios, builtin_runtime())
    paths = {str(scenario.path) for scenario in scenarios}
    hot = {key: step for key, step in warm_replay_of_every_scenario.steps.items() if key[0] in paths}
    assert len(hot) == sum(len(scenario.steps) for scenario in scenarios) >= 800 // SLICES
    assert cold.keys() == hot.keys()
    differing = [key for key in cold if cold[key] != hot[key]]
    assert not differing, [(key, cold[key], hot[key]) for key in differing[:3]]


@pytest.mark.parametrize("runtime", ["warm", "cold"])
def test_replay_names_either_path_of_the_built_in_runtime(
    agentapps: Callable[..., ToolkitResult], runtime: str
) -> None:
    path = SUITE / "agentic-notes" / "scenarios" / "add-reads-the-body-from-stdin-byte-for-byte.json"
    result = agentapps("replay", "--runtime", runtime, str(path))
    assert result.error_code is None, result.envelope
    assert [report["passed"] for report in result.envelope["items"]] == [True]


def import_time_reads(roots: list[str]) -> list[str]:
    """Every read of os.environ and every clock call made by code under the roots (each an app/
    folder) while a fresh interpreter imports its entry script (not as __main__) and the whole
    kit, under a profiler."""
    probe = textwrap.dedent(
        """
        import datetime, importlib, importlib.util, json, os, pkgutil, sys, time
        roots = sys.argv[1:]
        clock = {time.time, time.time_ns, time.localtime, time.gmtime, time.ctime, time.strftime,
                 datetime.datetime.now, datetime.datetime.utcnow, datetime.datetime.today,
                 datetime.date.today}
        environ = {os._Environ.__getitem__.__code__, os._Environ.__iter__.__code__,
                   os._Environ.__contains__.__code__ if "__contains__" in vars(os._Environ) else None}
        found = []
        def ours(frame):
            # The code that asked: the first frame outside os and the abstract collections.
            skipped = ("os.py", "_collections_abc.py", " os>", "_collections_abc>")
            while frame is not None and frame.f_code.co_filename.endswith(skipped):
                frame = frame.f_back
            name = frame.f_code.co_filename if frame is not None else ""
            return f"{name}:{frame.f_lineno}" if any(name.startswith(root) for root in roots) else None
        def profile(frame, event, arg):
            if event == "c_call" and arg in clock:
                where = ours(frame)
                if where:
                    found.append(f"clock {arg.__name__} from {where}")
            elif event == "call" and frame.f_code in environ:
                where = ours(frame.f_back)
                if where:
                    found.append(f"environment from {where}")
        for number, root in enumerate(roots):
            sys.path.insert(0, root)
            spec = importlib.util.spec_from_file_location(f"entry_{number}", os.path.join(root, "cli.py"))
            module = importlib.util.module_from_spec(spec)
            sys.setprofile(profile)
            spec.loader.exec_module(module)
            import agentic_kit
            for info in pkgutil.iter_modules(agentic_kit.__path__, "agentic_kit."):
                importlib.import_module(info.name)
            sys.setprofile(None)
            apps = ("agentic_kit", "todo", "notes", "timer")
            for name in [name for name in sys.modules if name.split(".")[0] in apps]:
                del sys.modules[name]
            sys.path.remove(root)
        print(json.dumps(found))
        """
    )
    completed = subprocess.run(
        [sys.executable, "-c", probe, *roots], capture_output=True, text=True, check=True, cwd=SUITE
    )
    reads: list[str] = json.loads(completed.stdout)
    return reads


def test_the_kit_and_the_apps_read_neither_environment_nor_clock_at_import() -> None:
    """What a warm process imports once serves every call: anything read from the environment or
    the clock while importing would be that of the first call, so the kit reads them only when a
    command runs."""
    assert import_time_reads([str(SUITE / package / "app") + os.sep for package in PACKAGES]) == []


def test_the_probe_of_import_time_reads_sees_one(tmp_path: Path) -> None:
    """The probe above can fail: a module that reads AGENTIC_NOW and the clock at import is caught."""
    app = tmp_path / "app"
    (app / "agentic_kit").mkdir(parents=True)
    (app / "agentic_kit" / "__init__.py").write_text("")
    (app / "agentic_kit" / "eager.py").write_text(
        "import os, datetime\nNOW = os.environ.get('AGENTIC_NOW')\nSTARTED = datetime.datetime.now()\n"
    )
    (app / "cli.py").write_text("from agentic_kit import eager\n")
    reads = import_time_reads([str(app) + os.sep])
    assert [read.split(" from ")[0] for read in reads] == ["environment", "clock now"]


# What a call builds beyond its script's body: typer makes, on a parameter's first value, the
# pydantic adapter that converts it. Counted in a process that runs an app's body as a warm
# process does (`agentapps_warm` present, or not: a cold run), then one call.
TYPE_ADAPTERS_OF_A_CALL = textwrap.dedent(
    """
    import contextlib, io, os, runpy, sys, types
    script, path, args = sys.argv[1], sys.argv[2], sys.argv[3:]
    if path == "warm":
        warm = types.ModuleType("agentapps_warm")
        warm.when_idle = lambda *ask: None
        sys.modules["agentapps_warm"] = warm
    sys.argv = [script]
    sys.path.insert(0, os.path.dirname(script))
    body = runpy.run_path(script, run_name="body")  # all but the main guard: app.prepare() last
    import pydantic
    built = []
    made = pydantic.TypeAdapter.__init__
    def counted(self, *given, **named):
        built.append(1)
        made(self, *given, **named)
    pydantic.TypeAdapter.__init__ = counted
    from agentic_kit import runner
    answer = io.StringIO()
    with contextlib.redirect_stdout(answer):
        status = runner.run(body["app"], args)
    print(status, len(built), answer.getvalue().startswith('{"ok":true'))
    """
)


@pytest.mark.parametrize("package", PACKAGES)
def test_a_warm_process_builds_every_commands_conversions_once_for_all_calls(
    tmp_path: Path, package: str
) -> None:
    """Each warm call's child built its command's value converters anew (typer builds them on a
    parameter's first value, some 3 ms a call): the warm process now builds them for every command
    as it runs the body, and a cold run still builds only its own command's."""
    counts = {}
    for path in ("warm", "cold"):
        probe = subprocess.run(
            [
                sys.executable,
                "-c",
                TYPE_ADAPTERS_OF_A_CALL,
                str(SUITE / package / "app" / "cli.py"),
                path,
                "list",
            ],
            capture_output=True,
            text=True,
            env={**os.environ, "AGENTIC_STATE_DIR": str(tmp_path / path)},
            timeout=60,
        )
        assert probe.returncode == 0, probe.stderr
        status, built, ok = probe.stdout.split()
        assert (status, ok) == ("0", "True"), probe.stdout
        counts[path] = int(built)
    assert counts["warm"] == 0
    assert counts["cold"] > 0  # what the warm process builds ahead is what a call would build


# Small packages whose app/cli.py is the script given: what warm must do whatever a script does.


def python_package(tmp_path: Path, script: str, name: str = "probe", module: str = "") -> Package:
    root = tmp_path / name
    (root / "app").mkdir(parents=True)
    (root / "APP.md").write_text(
        f"---\nschema: agentapplications/v1\nkind: app\nslug: {name}\nname: Probe\n"
        "description: A probe.\nversion: 1.0.0\nentry:\n  command: python3 app/cli.py\n"
        "commands: [echo]\nconfirmationRequired: []\nskills: []\n---\n# Probe\n"
    )
    (root / "app" / "cli.py").write_text(textwrap.dedent(script))
    if module:
        (root / "app" / "helper.py").write_text(textwrap.dedent(module))
    return Package(root)


def both(package: Package, args: list[str], warm: WarmRuntime, **options: object) -> tuple[Invocation, ...]:
    cold = invoke(package, args, **options)  # type: ignore[arg-type]
    hot = invoke(package, args, warm=warm, **options)  # type: ignore[arg-type]
    return cold, hot


def same(cold: Invocation, hot: Invocation) -> None:
    if isinstance(cold.document, dict) and isinstance(hot.document, dict):  # say which field differs
        assert {key: hot.document.get(key) for key in cold.document} == cold.document
    assert (hot.exit_status, hot.stdout, hot.stderr) == (cold.exit_status, cold.stdout, cold.stderr)


def test_what_a_process_starts_with_is_the_same_warm_and_cold(tmp_path: Path, warm: WarmRuntime) -> None:
    """argv, sys.path[0], __file__, the working folder, the environment, the signal dispositions
    and mask, and how the standard streams are set up."""
    package = python_package(
        tmp_path,
        """
        import json, os, signal, sys
        handlers = {int(n): repr(signal.getsignal(n)) for n in signal.valid_signals()}
        print(json.dumps({
            "argv": sys.argv, "path0": sys.path[0], "file": __file__, "cwd": os.getcwd(),
            "name": __name__, "spec": repr(__spec__), "environ": sorted(os.environ.items()),
            "handlers": handlers, "mask": sorted(signal.pthread_sigmask(signal.SIG_BLOCK, ())),
            "streams": [[s.name, s.mode, s.encoding, s.errors, s.line_buffering, s.write_through]
                        for s in (sys.stdin, sys.stdout, sys.stderr)],
            "stdin": sys.stdin.read(), "executable": sys.executable,
        }))
        print("to stderr", file=sys.stderr)
        """,
    )
    env = package_environment(overrides={"AGENTIC_NOW": "2026-04-01T00:00:00Z"}, inherit_agentic=False)
    cold, hot = both(package, ["echo", "a b", "--flag", "ü"], warm, env=env, stdin="line 1\nline 2")
    same(cold, hot)
    assert ["AGENTIC_NOW", "2026-04-01T00:00:00Z"] in json.loads(hot.stdout)["environ"]
    # Another call's AGENTIC_* settings are that call's own, in the same warm process.
    env["AGENTIC_NOW"] = "2027-01-01T00:00:00Z"
    cold, hot = both(package, ["echo"], warm, env=env)
    same(cold, hot)


def test_a_crash_an_exit_or_a_changed_global_dies_with_its_call(tmp_path: Path, warm: WarmRuntime) -> None:
    package = python_package(
        tmp_path,
        """
        import os, sys
        import helper
        helper.calls.append(sys.argv[1])
        print('{"ok": true, "calls": %d}' % len(helper.calls), flush=True)
        if sys.argv[1] == "exit":
            os._exit(7)
        if sys.argv[1] == "raise":
            raise RuntimeError("boom")
        if sys.argv[1] == "kill":
            os.kill(os.getpid(), 9)
        """,
        module="calls = []\n",
    )
    for args in (["exit"], ["raise"], ["kill"], ["echo"]):
        cold, hot = both(package, args, warm)
        same(cold, hot)
        assert json.loads(hot.stdout) == {"ok": True, "calls": 1}
    assert "RuntimeError: boom" in both(package, ["raise"], warm)[1].stderr


def serving_processes(root: Path) -> dict[int, int]:
    """pid -> parent pid of each interpreter running warm_server.py from the package root (not the
    shell that started it): its warm process, and the relays and children forked from it."""
    serving: dict[int, int] = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            command = (entry / "cmdline").read_bytes().split(b"\0")
            if command[1:2] == [str(SERVER_SCRIPT).encode()] and os.readlink(entry / "cwd") == str(root):
                serving[int(entry.name)] = int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1])
        except OSError:
            continue  # ended meanwhile
    return serving


def warm_process(root: Path) -> int:
    """The pid of the package's warm process, found as a person finds it with ps: the one of the
    serving processes whose parent is not one (a call's processes are forked from it, and hold
    the same command line)."""
    serving = serving_processes(root)
    found = [pid for pid, parent in serving.items() if parent not in serving]
    assert len(found) == 1, serving
    return found[0]


def test_a_warm_process_that_died_is_started_again(tmp_path: Path, warm: WarmRuntime) -> None:
    package = python_package(tmp_path, "print('{\"ok\": true}')\n")
    assert invoke(package, ["echo"], warm=warm).ok
    first = warm_process(package.root)
    os.kill(first, signal.SIGKILL)
    time.sleep(0.1)
    assert invoke(package, ["echo"], warm=warm).ok
    assert warm_process(package.root) != first


def test_a_warm_process_killed_while_it_starts_leaves_the_package_warm(
    tmp_path: Path, warm: WarmRuntime
) -> None:
    """Killed from outside while it imports, a warm process is no verdict on the package: that
    call runs cold (the same answer) and the next is served by a new warm process. Only one that
    fails on its own (no pidfd, say) leaves its package cold for good."""
    marker = tmp_path / "killed-once"
    package = python_package(
        tmp_path,
        "import helper\nprint('{\"ok\": true}')\n",
        module=f"""
            import os, pathlib, signal
            if not pathlib.Path({str(marker)!r}).exists():
                pathlib.Path({str(marker)!r}).touch()
                os.kill(os.getpid(), signal.SIGKILL)  # as `kill -9` would, mid-import
        """,
    )
    first = invoke(package, ["echo"], warm=warm, timeout=20)
    assert (first.exit_status, first.stdout, first.violations) == (0, '{"ok": true}\n', [])
    assert marker.exists()
    second = invoke(package, ["echo"], warm=warm, timeout=20)
    assert (second.exit_status, second.stdout, second.violations) == (0, '{"ok": true}\n', [])
    assert warm_process(package.root) > 0  # served warm again, not cold from now on


def test_a_call_made_just_after_the_warm_process_was_killed_is_answered(
    tmp_path: Path, warm: WarmRuntime
) -> None:
    """Killed, a warm process is not gone at once: a call made in the next few milliseconds
    must not be handed to it, or must be handed again — never answered as the app's failure."""
    package = python_package(tmp_path, "print('{\"ok\": true}')\n")
    assert invoke(package, ["echo"], warm=warm).ok
    for _ in range(10):
        os.kill(warm_process(package.root), signal.SIGKILL)
        call = invoke(package, ["echo"], warm=warm, timeout=20)
        assert (call.exit_status, call.stdout, call.violations) == (0, '{"ok": true}\n', [])


def test_a_call_handed_to_a_warm_process_that_dies_before_starting_it_is_handed_again(
    tmp_path: Path, warm: WarmRuntime
) -> None:
    """The warm process is stopped, so the call is handed to it and waits; then it is killed.
    The call's child never started: the call goes to a new warm process, within its timeout."""
    package = python_package(tmp_path, "print('{\"ok\": true}')\n")
    assert invoke(package, ["echo"], warm=warm).ok
    stopped = warm_process(package.root)
    os.kill(stopped, signal.SIGSTOP)
    with ThreadPoolExecutor(max_workers=1) as pool:
        pending = pool.submit(invoke, package, ["echo"], warm=warm, timeout=20)
        time.sleep(0.5)
        assert not pending.done()
        os.kill(stopped, signal.SIGKILL)
        call = pending.result(timeout=25)
    assert (call.exit_status, call.stdout, call.violations) == (0, '{"ok": true}\n', [])
    assert warm_process(package.root) != stopped


# A write that waits for a `go` file in the folder it is given, so that a test can kill processes
# under it while it runs; `die` saves, then ends by SIGTERM instead of answering.
SLOW_WRITE = """
    import json, os, signal, sys, time
    if sys.argv[1] == "echo":
        print('{"ok": true}')
        sys.exit(0)
    folder = sys.argv[2]
    with open(os.path.join(folder, "started"), "w") as handle:
        handle.write(str(os.getppid()))
    while not os.path.exists(os.path.join(folder, "go")):
        time.sleep(0.01)
    with open(os.path.join(folder, "saved"), "w") as handle:
        handle.write("saved")
    if sys.argv[1] == "die":
        os.kill(os.getpid(), signal.SIGTERM)
    print(json.dumps({"ok": True, "saved": True}))
    """


def killed_during_a_call(
    run: Callable[[list[str]], T], package: Package, args: list[str], folder: Path, *, also_parent: bool
) -> Callable[[], T]:
    """Start `run(args + [folder])` (warm), kill the package's warm process while the call's child
    runs (and the child's parent, with `also_parent`), then let the child finish. Returns what
    gives the call's outcome (or raises what it raised)."""
    folder.mkdir()
    pool = ThreadPoolExecutor(max_workers=1)
    pending = pool.submit(run, [*args, str(folder)])
    started = folder / "started"
    while not started.exists() or not started.read_text():
        time.sleep(0.01)
    os.kill(warm_process(package.root), signal.SIGKILL)
    if also_parent:
        os.kill(int(started.read_text()), signal.SIGKILL)
    time.sleep(0.3)  # what the runtime does when it sees them die, it has done
    (folder / "go").touch()
    pool.shutdown()
    return pending.result


@pytest.mark.parametrize("command", ["add", "die"])
def test_a_call_whose_warm_process_is_killed_while_it_runs_ends_as_its_child_does(
    tmp_path: Path, warm: WarmRuntime, command: str
) -> None:
    """The child is not killed with the warm process (it leads its own session; no death signal
    ties it to it) and its own exit status is relayed, 128 + N when signal N ends it, exactly as
    a cold call of the same command."""
    package = python_package(tmp_path, SLOW_WRITE)
    (tmp_path / "cold").mkdir()
    (tmp_path / "cold" / "go").touch()
    cold = invoke(package, [command, str(tmp_path / "cold")])
    assert invoke(package, ["echo"], warm=warm).ok
    outcome = killed_during_a_call(
        lambda args: invoke(package, args, warm=warm, timeout=20),
        package,
        [command],
        tmp_path / "warm",
        also_parent=False,
    )
    hot = outcome()
    assert (hot.exit_status, hot.stdout, hot.stderr, hot.violations) == (
        cold.exit_status,
        cold.stdout,
        cold.stderr,
        cold.violations,
    )
    assert hot.exit_status == (0 if command == "add" else 128 + signal.SIGTERM)
    assert (tmp_path / "warm" / "saved").read_text() == "saved"
    assert invoke(package, ["echo"], warm=warm).ok  # and the next call has a new warm process


def test_a_call_whose_exit_status_is_lost_is_said_to_be_the_runtimes_failure(
    tmp_path: Path, warm: WarmRuntime
) -> None:
    """With the warm process and the child's own parent both killed, nothing can know how the
    child ends: it is left to finish its write, and the call is the runtime's INTERNAL_ERROR
    saying it may have taken effect — not the app's failure, not a contract violation."""
    package = python_package(tmp_path, SLOW_WRITE)
    assert invoke(package, ["echo"], warm=warm).ok
    outcome = killed_during_a_call(
        lambda args: run_and_relay(package, args, warm=warm, timeout=20),
        package,
        ["add"],
        tmp_path / "warm",
        also_parent=True,
    )
    with pytest.raises(ToolkitError) as raised:
        outcome()
    assert (raised.value.code, raised.value.exit_status) == ("INTERNAL_ERROR", 1)
    assert raised.value.details is not None
    assert raised.value.details["mayHaveTakenEffect"] is True
    assert raised.value.details["stdout"] == '{"ok": true, "saved": true}\n'
    assert (tmp_path / "warm" / "saved").read_text() == "saved"


def test_two_calls_at_once_are_two_children(tmp_path: Path, warm: WarmRuntime) -> None:
    """Each call waits for the other to have started: served one after the other, both would
    time out."""
    package = python_package(
        tmp_path,
        """
        import os, sys, time
        here = os.path.join(sys.argv[2], sys.argv[1])
        open(here, "w").close()
        other = os.path.join(sys.argv[2], "b" if sys.argv[1] == "a" else "a")
        while not os.path.exists(other):
            time.sleep(0.01)
        print('{"ok": true, "pid": %d}' % os.getpid())
        """,
    )
    results: dict[str, Invocation] = {}

    def call(name: str) -> None:
        results[name] = invoke(package, [name, str(tmp_path)], warm=warm, timeout=20)

    threads = [threading.Thread(target=call, args=(name,)) for name in ("a", "b")]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert results["a"].ok
    assert results["b"].ok
    assert json.loads(results["a"].stdout)["pid"] != json.loads(results["b"].stdout)["pid"]


@pytest.mark.parametrize(
    "fixture", ["hangs", "hangs-in-a-new-session", "holds-stdout-in-a-new-session", "child-holds-stdout"]
)
# its time bound is seconds wide, far more than a test on the other core adds: not serial
def test_a_hostile_package_is_bounded_warm_as_it_is_cold(
    fixture: str, warm: WarmRuntime, tmp_path: Path
) -> None:
    package = Package(FIXTURES / fixture)
    outcomes: list[tuple[object, ...]] = []
    for runtime in (None, warm):
        started = time.monotonic()
        try:
            invocation = invoke(package, ["echo"], timeout=2, warm=runtime)
            outcomes.append((invocation.exit_status, invocation.stdout, invocation.violations))
        except RunTimedOut:
            outcomes.append(("timeout",))
        assert time.monotonic() - started < 2 + 5
    assert outcomes[0] == outcomes[1]


def test_the_output_cap_holds_warm(warm: WarmRuntime) -> None:
    package = Package(FIXTURES / "writes-forever")
    cold, hot = both(package, ["echo"], warm, max_output=4096)
    assert [problem.rule for problem in hot.violations] == ["output.size"]
    assert [str(problem) for problem in hot.violations] == [str(problem) for problem in cold.violations]


def test_a_descriptor_given_as_stdin_is_read_as_it_is(tmp_path: Path, warm: WarmRuntime) -> None:
    package = python_package(
        tmp_path, 'import json, sys\nprint(json.dumps({"ok": True, "in": sys.stdin.read()}))\n'
    )
    source = tmp_path / "input"
    source.write_bytes(b"streamed \xc3\xbc\n")
    outputs = []
    for runtime in (None, warm):
        with source.open("rb") as handle:
            outputs.append(invoke(package, ["echo"], stdin=handle.fileno(), warm=runtime).stdout)
    assert outputs[0] == outputs[1] == '{"ok": true, "in": "streamed \\u00fc\\n"}\n'


def test_only_a_plain_python_script_entry_runs_warm() -> None:
    assert python_entry("python3 app/cli.py") == ("python3", "app/cli.py")
    assert python_entry("python3.11 app/cli.py") == ("python3.11", "app/cli.py")
    assert python_entry(".venv/bin/python app/main.py") == (".venv/bin/python", "app/main.py")
    for command in (
        "node app/cli.js",
        "python3 -X importtime app/cli.py",
        "cd app && python3 cli.py",
        "python3 $HOME/cli.py",
        "python3 'app/cli.py'",
        "python3 app/cli.py extra",
        "FOO=1 python3 app/cli.py",
        "pythonista app/cli.py",
    ):
        assert python_entry(command) is None, command


def test_a_shell_command_entry_runs_cold_with_the_same_result(warm: WarmRuntime) -> None:
    package = Package(FIXTURES / "entry-is-a-shell-command")
    cold, hot = both(package, ["echo", "x"], warm)
    same(cold, hot)
    assert hot.ok


def test_mcp_gives_the_same_tool_results_warm_and_cold(tmp_path: Path) -> None:
    """mcp serves Python packages warm by default; --cold gives the same results."""

    async def results(*options: str) -> list[tuple[object, object]]:
        seen: list[tuple[object, object]] = []
        async with in_this_process(
            tmp_path / ("cold" if options else "warm"), [*options, str(SUITE / "agentic-to-do")]
        ) as session:
            for name, arguments in (
                ("agentic_to_do__add", {"title": "Write docs", "due_at": "2026-05-01"}),
                ("agentic_to_do__list", {}),
                ("agentic_to_do__get", {"id": "td_0001"}),
                ("agentic_to_do__get", {"id": "nope"}),
            ):
                result = await session.call_tool(name, arguments)
                seen.append((result.is_error, result.structured_content))
        return seen

    warm_results = asyncio.run(results())
    assert warm_results == asyncio.run(results("--cold"))
    assert [is_error for is_error, _ in warm_results] == [False, False, False, True]


def test_a_changed_package_file_is_served_as_cold_serves_it(tmp_path: Path, warm: WarmRuntime) -> None:
    """Reproduced: after an upgrade the warm process kept the old module under the new cli.py,
    INTERNAL_ERROR (AttributeError) warm, success cold."""
    package = python_package(
        tmp_path, 'import helper\nprint(\'{"ok": true, "v": %d}\' % helper.VERSION)\n', module="VERSION = 1\n"
    )
    cold, hot = both(package, ["echo"], warm)
    same(cold, hot)
    first = warm_process(package.root)
    (package.root / "app" / "helper.py").write_text("VERSION = 2\ndef new():\n    return 2\n")
    (package.root / "app" / "cli.py").write_text(
        'import helper\nprint(\'{"ok": true, "v": %d}\' % helper.new())\n'
    )
    cold, hot = both(package, ["echo"], warm)
    same(cold, hot)
    assert json.loads(hot.stdout) == {"ok": True, "v": 2}
    assert warm_process(package.root) != first  # a new warm process, with the new modules


def test_a_generator_made_without_a_seed_is_fresh_in_every_call(tmp_path: Path, warm: WarmRuntime) -> None:
    """Reproduced: a module-level random.Random() gave the same value on every warm call. One
    seeded with a value gives that value's sequence, warm as cold."""
    package = python_package(
        tmp_path,
        'import helper\nprint(\'{"ok": true, "fresh": %d, "seeded": %d}\' % helper.draw())\n',
        module="""
            import random
            fresh, seeded = random.Random(), random.Random(42)
            def draw():
                return fresh.getrandbits(60), seeded.getrandbits(60)
            """,
    )
    cold = invoke(package, ["echo"]).document
    answers = [invoke(package, ["echo"], warm=warm).document for _ in range(3)]
    assert len({answer["fresh"] for answer in answers}) == 3
    assert {answer["seeded"] for answer in answers} == {cold["seeded"]}


@pytest.mark.parametrize(
    "code", ["2**63", "2**63 - 1", "-2**63", "-2**63 - 1", "2**64 + 3", "256", "True", "-1"]
)
def test_an_exit_code_of_any_size_is_the_status_a_cold_run_gives(
    tmp_path: Path, warm: WarmRuntime, code: str
) -> None:
    """Reproduced: sys.exit(2**63) was exit 0 warm, 255 cold."""
    package = python_package(tmp_path, f"import sys\nsys.exit({code})\n")
    cold, hot = both(package, ["echo"], warm)
    same(cold, hot)


def test_a_package_whose_warm_start_is_slow_runs_cold_until_it_is_ready(
    tmp_path: Path, warm: WarmRuntime
) -> None:
    """Reproduced: a command that lazily imports something slow made the warm process's start
    (which imports it) outlast start-up's describe, and the package was dropped; cold served it.
    Here the warm start waits on a file the test holds back: the call meanwhile runs cold, within
    its timeout, and once the warm process is ready the calls are served by it."""
    gate = tmp_path / "let-it-start"
    package = python_package(
        tmp_path,
        """
        import os, sys
        print('{"ok": true, "warm": %s}' % ("true" if "helper" in sys.modules else "false"))
        def rarely_used():
            import helper
        """,
        module=f"""
            import pathlib, time
            while not pathlib.Path({str(gate)!r}).exists():  # a slow import, for as long as the test says
                time.sleep(0.01)
            """,
    )
    answer = invoke(package, ["echo"], warm=warm, timeout=4.0)
    assert (answer.ok, answer.document) == (True, {"ok": True, "warm": False})  # served cold
    gate.touch()
    # Once ready (it is released now), the warm process serves: its child has helper imported.
    # Each call until then is cold and answers the same; none waits for the warm process.
    served: list[Any] = []
    while len(served) < 500 and {"ok": True, "warm": True} not in served:
        served.append(invoke(package, ["echo"], warm=warm).document)
    assert served[-1] == {"ok": True, "warm": True}
    assert set(map(json.dumps, served[:-1])) <= {json.dumps({"ok": True, "warm": False})}


# A script with a main guard: the warm process runs its body once and each call the guarded part.

GUARDED = '''
"""The probe's own docstring."""
import json, os, sys
import helper
BODY_PID = os.getpid()
calls = []
def answer():
    import __main__
    calls.append(sys.argv[1:])
    return {
        "argv": sys.argv, "name": __name__, "doc": __doc__, "file": __file__, "calls": len(calls),
        "main": __main__.answer is answer, "helper": helper.VERSION, "spec": repr(__spec__),
        "path": sys.path[:2],
    }
sys.path.insert(0, os.path.dirname(os.path.realpath(__file__)))
if __name__ == "__main__" and sys.argv[1] == "probe":  # what differs warm: see held()
    print(json.dumps({"body in this process": BODY_PID == os.getpid()}))
if __name__ == "__main__" and sys.argv[1] == "echo":
    print(json.dumps(answer()))
if __name__ == "__main__" and sys.argv[1] == "raise":
    raise RuntimeError("from the guarded part")
'''


def held(package: Package, warm: WarmRuntime) -> Any:
    """A warm call's answer once the warm process serves it (the first call may run cold while it
    starts): the guarded part prints whether the body ran in the call's own process."""
    for _ in range(500):
        answer = invoke(package, ["probe"], warm=warm).document
        if not answer["body in this process"]:
            return answer
    raise AssertionError("the body was run in every call")


def test_a_guarded_script_answers_warm_as_cold(tmp_path: Path, warm: WarmRuntime) -> None:
    """Its name, docstring, file, argv, sys.path, the `__main__` module it sees, a global a call
    changes (gone by the next call), a traceback from the guarded part: all as a cold run has them."""
    package = python_package(tmp_path, GUARDED, module="VERSION = 1\n")
    held(package, warm)  # from here on the warm process serves, holding the body
    for args in (["echo", "a b"], ["echo", "--flag"], ["raise"], ["raise"]):
        cold, hot = both(package, args, warm)
        same(cold, hot)
    assert 'line 21, in <module>\n    raise RuntimeError("from the guarded part")' in hot.stderr
    document = invoke(package, ["echo", "x"], warm=warm).document
    assert (document["calls"], document["main"], document["doc"]) == (1, True, "The probe's own docstring.")


def test_the_body_of_a_guarded_script_runs_once_in_the_warm_process(
    tmp_path: Path, warm: WarmRuntime
) -> None:
    """What a call no longer pays for: compiling the script and running its body (the app and its
    commands); the guarded part runs in every call, in a process of its own."""
    package = python_package(
        tmp_path,
        """
        import json, os
        BODY_PID = os.getpid()
        if __name__ == "__main__":
            print(json.dumps({"body in this process": BODY_PID == os.getpid(), "pid": os.getpid()}))
        """,
    )
    assert invoke(package, ["probe"]).document["body in this process"]  # cold: one process does all
    first = held(package, warm)
    second = invoke(package, ["probe"], warm=warm).document
    assert second["body in this process"] is False
    assert second["pid"] != first["pid"]


def test_a_changed_guarded_script_alone_is_served_as_cold_serves_it(
    tmp_path: Path, warm: WarmRuntime
) -> None:
    """The held body is the script's as it was read: a new cli.py (and no other file) restarts the
    warm process, which holds the new one."""
    package = python_package(
        tmp_path,
        """
        import json, os
        BODY_PID = os.getpid()
        if __name__ == "__main__":
            print(json.dumps({"body in this process": BODY_PID == os.getpid(), "v": 1}))
        """,
    )
    assert held(package, warm)["v"] == 1
    first = warm_process(package.root)
    script = package.root / "app" / "cli.py"
    script.write_text(script.read_text().replace('"v": 1', '"v": 22'))
    cold, hot = both(package, ["probe"], warm)
    assert json.loads(hot.stdout)["v"] == json.loads(cold.stdout)["v"] == 22
    assert held(package, warm)["v"] == 22
    assert warm_process(package.root) != first


def test_a_guarded_script_whose_body_needs_a_call_runs_cold(tmp_path: Path, warm: WarmRuntime) -> None:
    """A body that reads what only a call has (an AGENTIC_* setting) fails in the warm process:
    the package runs cold, with the answer a cold call gives."""
    package = python_package(
        tmp_path,
        """
        import json, os
        SETTING = os.environ["AGENTIC_PROBE"]
        if __name__ == "__main__":
            print(json.dumps({"setting": SETTING}))
        """,
    )
    env = package_environment(overrides={"AGENTIC_PROBE": "first"}, inherit_agentic=False)
    for value in ("first", "second", "third"):
        env["AGENTIC_PROBE"] = value
        cold, hot = both(package, ["probe"], warm, env=env)
        same(cold, hot)
        assert hot.document == {"setting": value}


@pytest.mark.parametrize(
    ("body", "module"),
    [
        # Found by a runtime author's seed-only to-do: a setting read once, with a default, at start.
        ("STATE = os.environ.get('AGENTIC_PROBE') or 'none'\n", ""),
        ("STATE = os.getenv('AGENTIC_PROBE', 'none')\n", ""),
        ("STATE = 'AGENTIC_PROBE' in os.environ and os.environ['AGENTIC_PROBE']\n", ""),
        ("STATE = dict(os.environ).get('AGENTIC_PROBE')\n", ""),
        ("STATE = sys.argv[1:]\n", ""),
        # Found by a review of that fix: reads the first watch missed.
        ("from sys import argv\nSTATE = None\ndef state():\n    return argv[1:]\n", ""),
        ("STATE = 'second' in sys.argv\n", ""),
        ("STATE = sys.argv.copy()[1:]\n", ""),
        ("STATE = sys.argv == [sys.argv[0], 'second']\n", ""),
        ("STATE = len(os.environ)\n", ""),
        (
            "from helper import state\nSTATE = None\n",
            "from sys import argv\ndef state():\n    return argv[1:]\n",
        ),
        # The same read in a module of the package's own, imported by the script.
        ("from helper import STATE\n", "import os\nSTATE = os.environ.get('AGENTIC_PROBE') or 'none'\n"),
    ],
)
def test_a_script_that_reads_a_calls_settings_or_arguments_at_start_answers_warm_as_cold(
    tmp_path: Path, warm: WarmRuntime, body: str, module: str
) -> None:
    """What a script's body (or a module of its package) reads at start-up that only a call has,
    an AGENTIC_* setting or the arguments, is read in every call: warm answers as cold does."""
    package = python_package(
        tmp_path,
        "import json, os, sys\n"
        + body
        + 'if __name__ == "__main__":\n'
        + '    print(json.dumps({"state": STATE if STATE is not None else state()}))\n',
        module=module,
    )
    env = package_environment(overrides={"AGENTIC_PROBE": "first"}, inherit_agentic=False)
    for value in ("first", "second", "third", "fourth"):
        env["AGENTIC_PROBE"] = value
        env["AGENTIC_PROBE_" + value.upper()] = value  # the environment grows: len() reads it
        cold, hot = both(package, [value], warm, env=env)
        same(cold, hot)


def test_the_suites_apps_read_nothing_of_a_call_at_start() -> None:
    """The warm process holds each suite app's body: none reads a setting or its arguments there."""
    for package in PACKAGES:
        probe = subprocess.run(
            [sys.executable, str(SUITE / "shared" / "agentapps" / "warm_server.py"), "--reads", "app/cli.py"],
            cwd=SUITE / package,
            capture_output=True,
            text=True,
            check=True,
        )
        assert json.loads(probe.stdout) == [], (package, probe.stdout)


# What a call imports that the warm process lacks: learnt by the warm process for the next calls.

LAZY = """
import importlib, json, os, sys
module = importlib.import_module("help" + "er")  # a name no import statement gives the preimport
print(json.dumps({"imported in this call": module.IMPORTED_IN == os.getpid(), **module.answer()}))
"""


def learnt(package: Package, warm: WarmRuntime, **options: object) -> Any:
    """The first warm answer whose helper module was imported before the call (by the warm
    process, once it has learnt it from an earlier call)."""
    for _ in range(200):
        answer = invoke(package, ["echo"], warm=warm, **options).document  # type: ignore[arg-type]
        if not answer["imported in this call"]:
            return answer
        time.sleep(0.02)  # the warm process learns when no call waits
    raise AssertionError("the module a call imports was imported anew in every call")


def test_a_module_a_call_imports_is_imported_by_the_warm_process_for_the_next_calls(
    tmp_path: Path, warm: WarmRuntime
) -> None:
    """As the preimport's, a learnt module's unseeded generator is fresh in every call, and its
    file is watched: a new version on disk is served as cold serves it."""
    helper = """
        import os, random
        IMPORTED_IN = os.getpid()
        VERSION = 1
        fresh = random.Random()
        def answer():
            return {"version": VERSION, "draw": fresh.getrandbits(60)}
        """
    package = python_package(tmp_path, LAZY, module=helper)
    assert invoke(package, ["echo"]).document["imported in this call"]  # cold: the call imports it
    assert learnt(package, warm)["version"] == 1
    draws = {invoke(package, ["echo"], warm=warm).document["draw"] for _ in range(3)}
    assert len(draws) == 3
    # Another size: a rewrite within the same second as the first is otherwise read from the
    # bytecode cached for the first (whose header holds the source's size and mtime in seconds).
    new = textwrap.dedent(helper).replace("VERSION = 1", "VERSION = 22")
    (package.root / "app" / "helper.py").write_text(new)
    cold, hot = both(package, ["echo"], warm)
    assert json.loads(hot.stdout)["version"] == json.loads(cold.stdout)["version"] == 22
    assert learnt(package, warm)["version"] == 22


def test_a_module_whose_import_fails_in_the_warm_process_is_imported_by_each_call(
    tmp_path: Path, warm: WarmRuntime
) -> None:
    """One that needs what only a call has (an AGENTIC_* setting) fails in the warm process,
    which goes on serving: each call imports it itself, with the answer a cold call gives."""
    package = python_package(
        tmp_path,
        LAZY,
        module="""
            import os
            IMPORTED_IN, SETTING = os.getpid(), os.environ["AGENTIC_PROBE"]
            def answer():
                return {"setting": SETTING}
            """,
    )
    env = package_environment(overrides={"AGENTIC_PROBE": "first"}, inherit_agentic=False)
    for value in ("first", "second", "third", "fourth", "fifth"):
        env["AGENTIC_PROBE"] = value
        cold, hot = both(package, ["echo"], warm, env=env)
        same(cold, hot)
        assert hot.document == {"imported in this call": True, "setting": value}
        time.sleep(0.05)  # time enough for the warm process to try it
    first = warm_process(package.root)
    assert invoke(package, ["echo"], warm=warm, env=env).exit_status == 0
    assert warm_process(package.root) == first


def test_a_module_the_warm_process_would_find_elsewhere_is_not_learnt(
    tmp_path: Path, warm: WarmRuntime
) -> None:
    """A call that puts a folder first on sys.path imports its module from there; the warm process,
    without that folder, would find another of the same name: it is not imported, and every call
    gets the one a cold call gets."""
    shadow = """
        import os
        IMPORTED_IN = os.getpid()
        def answer():
            return {"from": %r}
        """
    package = python_package(
        tmp_path,
        'import os, sys\nsys.path.insert(0, os.path.join(os.path.dirname(__file__), "plugins"))\n' + LAZY,
        module=shadow % "app",
    )
    (package.root / "app" / "plugins").mkdir()
    (package.root / "app" / "plugins" / "helper.py").write_text(textwrap.dedent(shadow % "plugins"))
    for _ in range(5):
        cold, hot = both(package, ["echo"], warm)
        same(cold, hot)
        assert hot.document == {"imported in this call": True, "from": "plugins"}
        time.sleep(0.05)


PID_PROBE = 'import os\nprint(\'{"ok": true, "pid": %d}\' % os.getpid())\n'


def pair_waiting(root: Path) -> int:
    """The child of the pair forked ahead: its parent is the relay, whose parent is the warm process."""
    give_up = time.monotonic() + 10
    while time.monotonic() < give_up:
        serving, server = serving_processes(root), warm_process(root)
        children = [pid for pid, parent in serving.items() if serving.get(parent) == server]
        if children:
            return children[0]
        time.sleep(0.01)
    raise AssertionError("no pair was forked ahead of the next call")


def test_the_next_calls_processes_are_forked_ahead_and_end_with_the_warm_process(
    tmp_path: Path, warm: WarmRuntime
) -> None:
    """Idle, the warm process forks the next call's relay and child, which wait for the call: the
    call is then served by that child. Killed, the warm process takes an idle pair with it (it
    has no call), and the next call starts a new warm process."""
    package = python_package(tmp_path, PID_PROBE)
    assert invoke(package, ["echo"], warm=warm, timeout=20).exit_status == 0
    waiting = pair_waiting(package.root)
    assert invoke(package, ["echo"], warm=warm).document == {"ok": True, "pid": waiting}
    pair_waiting(package.root)
    os.kill(warm_process(package.root), signal.SIGKILL)
    give_up = time.monotonic() + 10
    while serving_processes(package.root) and time.monotonic() < give_up:
        time.sleep(0.01)
    assert serving_processes(package.root) == {}
    answer = invoke(package, ["echo"], warm=warm, timeout=20)
    assert (answer.exit_status, answer.violations) == (0, [])


def test_a_call_whose_waiting_child_was_killed_is_run_by_a_new_child(
    tmp_path: Path, warm: WarmRuntime
) -> None:
    """The child forked ahead, killed as it waits, has run nothing of a call: its relay forks
    another (as soon as it sees it gone), which takes the call, in the same warm process."""
    package = python_package(tmp_path, PID_PROBE)
    assert invoke(package, ["echo"], warm=warm, timeout=20).exit_status == 0
    waiting, server = pair_waiting(package.root), warm_process(package.root)
    os.kill(waiting, signal.SIGKILL)
    # Dead once it is a zombie or reaped: a kill still under way as the call is handed over would
    # kill the call's own child, as it would a cold one's.
    stat = Path(f"/proc/{waiting}/stat")
    give_up = time.monotonic() + 10
    while time.monotonic() < give_up:
        # Reaped before the open (no file) or between the open and the read (ESRCH): gone either way.
        with contextlib.suppress(FileNotFoundError, ProcessLookupError):
            if stat.read_text().rsplit(")", 1)[1].split()[0] != "Z":
                time.sleep(0.01)
                continue
        break
    answer = invoke(package, ["echo"], warm=warm, timeout=20)
    assert (answer.exit_status, answer.stderr, answer.violations) == (0, "", [])
    assert answer.document["pid"] != waiting
    assert warm_process(package.root) == server


# What a call may ask of its warm process once idle (agentapps_warm.when_idle), and the kit's one
# ask: the state the call read, parsed in the warm process for the calls after it.


def test_a_call_asks_the_next_calls_children_for_a_hook_they_run_before_their_call(
    tmp_path: Path, warm: WarmRuntime
) -> None:
    """The hook runs in the next call's child, forked ahead, before that call comes (never in the
    warm process, which a call would wait on); an ask for what no module it holds names in
    WARM_HOOKS is ignored, and a hook that fails leaves the call as it is. A cold run has no
    agentapps_warm, and asks nothing."""
    notes = tmp_path / "notes.txt"
    package = python_package(
        tmp_path,
        """
        import json, os, sys
        import helper
        warm = sys.modules.get("agentapps_warm")
        if warm is not None:
            warm.when_idle("helper", "fails", sys.argv[1])
            warm.when_idle("helper", "note", sys.argv[1])
            warm.when_idle("helper", "not_a_hook", sys.argv[1])
            warm.when_idle("json", "dumps", sys.argv[1])  # a module that names no hooks
            warm.when_idle("not_imported_here", "note", sys.argv[1])
        print(json.dumps({"ok": True, "pid": os.getpid(), "warm": warm is not None}))
        """,
        module="""
            import os
            def note(path):
                with open(path, "a") as file:
                    file.write(f"{os.getpid()}\\n")
            def fails(path):
                raise RuntimeError("a hook that fails")
            WARM_HOOKS = {"note": note, "fails": fails}
            """,
    )
    cold = invoke(package, [str(notes)])
    assert cold.document["warm"] is False
    assert not notes.exists()
    calls = []
    for _ in range(3):
        calls.append(invoke(package, [str(notes)], warm=warm).document)
        time.sleep(0.5)  # idle, as between an agent's calls: the next child is forked ahead, asked
    assert [call["warm"] for call in calls] == [True, True, True]
    ran_in = [int(pid) for pid in notes.read_text().split()]
    assert calls[2]["pid"] in ran_in  # the third call's child, before its call
    assert calls[0]["pid"] not in ran_in  # nothing was asked before the first call
    assert warm_process(package.root) not in ran_in
    # Only what the last two calls both asked for is done ahead: calls that each ask for another
    # file (another state folder each) have nothing done ahead for them.
    others = [tmp_path / f"other-{number}.txt" for number in range(3)]
    for other in others:
        assert invoke(package, [str(other)], warm=warm).document["warm"] is True
        time.sleep(0.5)
    assert [other.exists() for other in others] == [False, False, False]


# The processors a warm process may be given here: one, and two where the machine has them.
CORES = sorted(os.sched_getaffinity(0))


@pytest.mark.parametrize("cores", [1, 2] if len(CORES) > 1 else [1], ids=lambda n: f"{n}-core")
def test_the_next_calls_child_is_forked_beside_a_call_where_a_core_is_free(
    tmp_path: Path, warm: WarmRuntime, cores: int
) -> None:
    """Calls one after another each find a child ready. With a second core, the next call's child
    is forked as soon as a call is handed over, does the work the last two calls asked for while
    that call runs, and again once it has ended (on the state as the call left it: a write's);
    with one core, it is forked only once the call has ended (its forks would take the call's
    own core). Either way the child that did the work is the one the next call runs in."""
    notes, release = tmp_path / "notes.txt", tmp_path / "release"
    package = python_package(
        tmp_path,
        """
        import json, os, sys, time
        import helper
        warm = sys.modules.get("agentapps_warm")
        if warm is not None:
            warm.when_idle("helper", "note", sys.argv[1])
        while sys.argv[2:3] == ["wait"] and not os.path.exists(sys.argv[3]):
            time.sleep(0.01)
        print(json.dumps({"ok": True, "pid": os.getpid()}))
        """,
        module="""
            import os
            def note(path):
                with open(path, "a") as file:
                    file.write(f"{os.getpid()}\\n")
            WARM_HOOKS = {"note": note}
            """,
    )

    def noted() -> list[str]:
        return notes.read_text().split() if notes.exists() else []

    def wait_for(count: int, seconds: float = 20) -> None:
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline and len(noted()) < count:
            time.sleep(0.02)
        time.sleep(0.2)  # the child says it is done just after its work (a call then would not wait)

    given = os.sched_getaffinity(0)
    os.sched_setaffinity(0, CORES[:cores])  # the warm process, started by the first call, keeps it
    try:
        for _ in range(2):  # two calls ask for the same work: the next children do it ahead
            assert invoke(package, [str(notes)], warm=warm).ok
            time.sleep(0.5)
    finally:
        os.sched_setaffinity(0, given)
    ready = noted()  # the child forked once the second call ended has done it, idle
    with ThreadPoolExecutor(max_workers=1) as pool:
        running = pool.submit(invoke, package, [str(notes), "wait", str(release)], warm=warm)
        try:
            wait_for(len(ready) + 1, 20 if cores > 1 else 1)  # with one core, nothing comes
            beside = noted()[len(ready) :]  # done while the call runs
            assert not running.done()
        finally:
            release.touch()
        assert running.result(timeout=20).document["pid"] == int(ready[-1])
    if cores > 1:
        # The next call's child, forked beside the call, did the work then and again after it.
        assert len(beside) == 1, beside
        wait_for(len(ready) + 2)
        assert noted()[len(ready) :] == beside * 2
    else:
        assert beside == []
        wait_for(len(ready) + 1)  # forked once the call ended, it does the work then
        beside = noted()[len(ready) :]
        assert len(beside) == 1
    assert invoke(package, [str(notes)], warm=warm).document["pid"] == int(beside[0])


def test_a_call_never_waits_on_work_done_ahead_for_it(tmp_path: Path, warm: WarmRuntime) -> None:
    """A call that comes while the child forked for it works ahead (here a hook that would take
    30 s) is run at once by another child, within its timeout: it neither waits on that work nor
    runs after the runtime has given up on it (found by an outside review: the call waited on the
    hook, was reported timed out, then ran)."""
    started, release, effects = tmp_path / "started", tmp_path / "release", tmp_path / "effects"
    package = python_package(
        tmp_path,
        f"""
        import json, os, sys
        import helper
        warm = sys.modules.get("agentapps_warm")
        if warm is not None and sys.argv[1] == "ask":
            warm.when_idle("helper", "slow", {str(started)!r})
        with open({str(effects)!r}, "a") as file:
            file.write(sys.argv[1] + "\\n")
        print(json.dumps({{"ok": True, "pid": os.getpid()}}))
        """,
        module=f"""
            import os, time
            def slow(path):
                with open(path, "a") as file:
                    file.write(f"{{os.getpid()}}\\n")
                deadline = time.monotonic() + 30
                while not os.path.exists({str(release)!r}) and time.monotonic() < deadline:
                    time.sleep(0.01)
            WARM_HOOKS = {{"slow": slow}}
            """,
    )
    try:
        for _ in range(2):  # two calls ask for the slow work: the next child starts it
            assert invoke(package, ["ask"], warm=warm).ok
            time.sleep(0.3)
        deadline = time.monotonic() + 20
        while not started.exists() and time.monotonic() < deadline:
            time.sleep(0.02)
        [working] = started.read_text().split()
        answered = invoke(package, ["plain"], warm=warm, timeout=5)
        assert answered.ok
        assert answered.document["pid"] != int(working)
        assert effects.read_text().split() == ["ask", "ask", "plain"]
    finally:
        release.touch()


def test_calls_one_after_another_answer_as_cold_ones_do(tmp_path: Path, warm: WarmRuntime) -> None:
    """Writes and reads at once one after another, each child forked beside the call before it
    and working ahead on the state it left: the same bytes and the same state file as cold calls
    (an early version of that work lost calls: a child asking for work ahead as its call came
    met its relay's closed socket, and the call answered nothing with status 0)."""
    package = Package(SUITE / "agentic-to-do")
    calls = [["add", f"task {number}"] if number % 3 == 0 else ["list"] for number in range(24)]
    outcomes = []
    for runtime in (warm, None):
        state = tmp_path / ("warm" if runtime else "cold")
        env = {
            **package_environment(),
            "AGENTIC_STATE_DIR": str(state),
            "AGENTIC_NOW": "2026-04-01T00:00:00Z",
        }
        answers = [invoke(package, args, env=env, warm=runtime) for args in calls]
        outcomes.append(
            (
                [(answer.exit_status, answer.stdout, answer.stderr) for answer in answers],
                (state / "todos.json").read_bytes(),
            )
        )
    assert outcomes[0][0][0][1]  # an answer, not nothing
    assert outcomes[0] == outcomes[1]


def test_a_state_a_warm_process_keeps_parsed_never_hides_what_the_file_holds(
    tmp_path: Path, warm: WarmRuntime
) -> None:
    """After a call, the warm process parses the state it read, for the next calls. An edit that
    keeps the file's size and time, or one that breaks it, is what the next call sees, as a cold
    call does; a write after it starts from the file as it is."""
    package = Package(SUITE / "agentic-to-do")
    env = {**package_environment(), "AGENTIC_STATE_DIR": str(tmp_path), "AGENTIC_NOW": "2026-04-01T00:00:00Z"}
    for title in ("first", "second"):
        assert invoke(package, ["add", title], env=env, warm=warm).ok
    state = tmp_path / "todos.json"

    def served(args: list[str]) -> Invocation:
        # Alternated with calls that read the file as it is: each one asks it kept anew.
        cold, hot = both(package, args, warm, env=env)
        same(cold, hot)
        return hot

    assert served(["get", "td_0002"]).document["item"]["title"] == "second"
    time.sleep(0.2)  # the next call's child parses the file as it waits: let it hold the bytes edited next
    before = os.stat(state)
    state.write_bytes(state.read_bytes().replace(b'"second"', b'"sekond"'))
    os.utime(state, ns=(before.st_atime_ns, before.st_mtime_ns))
    assert os.stat(state).st_size == before.st_size
    assert served(["get", "td_0002"]).document["item"]["title"] == "sekond"
    assert invoke(package, ["update", "td_0001", "--title", "renamed"], env=env, warm=warm).ok
    assert [item["title"] for item in served(["list"]).document["items"]] == ["renamed", "sekond"]
    state.write_bytes(state.read_bytes().replace(b'"nextId":3', b'"nextId":2'))
    refused = served(["get", "td_0001"])
    assert refused.document["error"]["code"] == "STATE_CORRUPT"
    assert "nextId 2 is not above the highest id" in refused.document["error"]["message"]


def test_a_module_outside_the_scripts_folder_that_reads_a_setting_is_let_go(
    tmp_path: Path, warm: WarmRuntime
) -> None:
    """Found by a review of the fix above: a module of the package outside app/ (put on the path
    by the script) that read an AGENTIC_* setting was seen but kept: only app/'s modules were let
    go. Every module under the package root is."""
    package = python_package(
        tmp_path,
        "import json, os, sys\n"
        "sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'lib'))\n"
        "import conf\n"
        'if __name__ == "__main__":\n    print(json.dumps({"state": conf.X}))\n',
    )
    (package.root / "lib").mkdir()
    (package.root / "lib" / "conf.py").write_text("import os\nX = os.environ.get('AGENTIC_PROBE')\n")
    env = package_environment(overrides={"AGENTIC_PROBE": "first"}, inherit_agentic=False)
    for value in ("first", "second", "third"):
        env["AGENTIC_PROBE"] = value
        cold, hot = both(package, ["x"], warm, env=env)
        same(cold, hot)
        assert hot.document == {"state": value}


def test_a_module_a_call_imports_that_reads_through_a_kept_environ_is_not_learnt(
    tmp_path: Path, warm: WarmRuntime
) -> None:
    """Found by the same review: a module imported at start-up kept `environ` (`from os import
    environ`); one a call imported later read a setting through it, which noted the read into the
    start-up's watch, long over, so the later module was learnt with the warm process's value."""
    package = python_package(
        tmp_path,
        "import importlib, json, os, sys\nimport settings\n"
        'if __name__ == "__main__":\n'
        "    lazy = importlib.import_module('la' + 'zy')\n"
        '    print(json.dumps({"state": lazy.X}))\n',
    )
    (package.root / "app" / "settings.py").write_text(
        "from os import environ\ndef probe():\n    return environ.get('AGENTIC_PROBE')\n"
    )
    (package.root / "app" / "lazy.py").write_text("import settings\nX = settings.probe()\n")
    env = package_environment(overrides={"AGENTIC_PROBE": "first"}, inherit_agentic=False)
    for number in range(6):
        env["AGENTIC_PROBE"] = f"value {number}"
        cold, hot = both(package, ["x"], warm, env=env)
        same(cold, hot)
        assert hot.document == {"state": f"value {number}"}
        time.sleep(0.05)  # the warm process learns when no call waits
