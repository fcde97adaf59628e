"""The warm runtime (warm.py): the same result as a cold call, byte for byte, under the same rules;
every call its own process; a warm process that holds nothing between calls and comes back when
it dies."""

from __future__ import annotations

import asyncio
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

import pytest

from agentapps.environment import package_environment
from agentapps.output import Invocation
from agentapps.package import Package
from agentapps.replay import replay
from agentapps.runtime import RunTimedOut, invoke
from agentapps.runtimes import Runtime, builtin_runtime
from agentapps.scenarios import Scenario, load_scenario, scenario_files
from agentapps.warm import WarmRuntime, python_entry

from .conftest import FIXTURES, SUITE, ToolkitResult
from .test_mcp import connected

SCENARIOS = [SUITE / package / "scenarios" for package in ("agentic-to-do", "agentic-notes", "agentic-timer")]
PACKAGES = ["agentic-to-do", "agentic-notes", "agentic-timer"]


@pytest.fixture
def warm() -> Iterator[WarmRuntime]:
    with WarmRuntime() as runtime:
        yield runtime


def replay_recorded(scenarios: list[Scenario], runtime: Runtime) -> dict[tuple[str, int], tuple[object, ...]]:
    """Replay each scenario (two side by side) and keep what each step gave, by scenario and step:
    its exit status, stdout and stderr, with its own state folder's path made neutral."""

    def one(scenario: Scenario) -> list[tuple[object, ...]]:
        steps: list[tuple[object, ...]] = []

        def run(root: Path, args: list[str], stdin: str, overrides: dict[str, str]) -> Invocation:
            invocation = runtime(root, args, stdin, overrides)
            state = overrides["AGENTIC_STATE_DIR"]
            steps.append(
                (
                    invocation.exit_status,
                    invocation.stdout.replace(state, "<state>"),
                    invocation.stderr.replace(state, "<state>"),
                )
            )
            return invocation

        report = replay(scenario, run)
        assert report.passed, report.summary()
        return steps

    with ThreadPoolExecutor(max_workers=2) as pool:
        outcomes = list(pool.map(one, scenarios))
    return {
        (str(scenario.path), number): step
        for scenario, steps in zip(scenarios, outcomes, strict=True)
        for number, step in enumerate(steps, start=1)
    }


def test_every_scenario_gives_the_same_bytes_warm_and_cold(warm: WarmRuntime) -> None:
    """Identity, proven: every step of every scenario, through a cold process and through a child
    of the warm one, passes and gives the same exit status, stdout and stderr."""
    scenarios = [load_scenario(path) for path in scenario_files(SCENARIOS)]
    assert len(scenarios) >= 150
    cold = replay_recorded(scenarios, builtin_runtime())
    hot = replay_recorded(scenarios, builtin_runtime(warm=warm))
    assert len(hot) == sum(len(scenario.steps) for scenario in scenarios) >= 800
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


def test_a_warm_process_that_died_is_started_again(tmp_path: Path, warm: WarmRuntime) -> None:
    package = python_package(tmp_path, 'import os\nprint(\'{"ok": true, "parent": %d}\' % os.getppid())\n')
    first = json.loads(invoke(package, ["echo"], warm=warm).stdout)["parent"]
    os.kill(first, signal.SIGKILL)
    time.sleep(0.1)
    second = invoke(package, ["echo"], warm=warm)
    assert second.ok
    assert json.loads(second.stdout)["parent"] != first


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
        async with connected(
            tmp_path / ("cold" if options else "warm"), [*options, str(SUITE / "agentic-to-do")]
        ) as session:
            for name, arguments in (
                ("agentic-to-do.add", {"title": "Write docs", "due_at": "2026-05-01"}),
                ("agentic-to-do.list", {}),
                ("agentic-to-do.get", {"id": "td_0001"}),
                ("agentic-to-do.get", {"id": "nope"}),
            ):
                result = await session.call_tool(name, arguments)
                seen.append((result.is_error, result.structured_content))
        return seen

    warm_results = asyncio.run(results())
    assert warm_results == asyncio.run(results("--cold"))
    assert [is_error for is_error, _ in warm_results] == [False, False, False, True]
