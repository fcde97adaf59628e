"""`agentapps replay`: scenarios replayed through the built-in runtime or any other, with every
difference said per step."""

from __future__ import annotations

import contextlib
import io
import json
import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from agentapps import cli, human
from agentapps.differences import envelope_differences
from agentapps.scenarios import scenario_files, text
from agentic_kit import runner
from tests.packages import FACTS, SCENARIO_FOLDERS

from .conftest import SUITE, RecordedReplay, ToolkitResult

TODO, NOTES, TIMER = (
    FACTS[package].scenarios for package in ("agentic-to-do", "agentic-notes", "agentic-timer")
)
RUNTIMES = SUITE / "tests" / "runtimes"
STDIN_SCENARIO = NOTES / "add-reads-the-body-from-stdin-byte-for-byte.json"
# Scenarios that lean on each part of what a runtime must pass on: stdin, the clock, extra
# environment, the working directory, files in the state folder, a lock held, exit statuses.
TOUCHSTONES = [
    STDIN_SCENARIO,
    NOTES / "a-write-waits-for-a-held-lock-then-is-state-locked.json",
    TIMER / "a-countdown-fires-at-its-moved-due-time-and-stop-acknowledges-it.json",
    TODO / "a-state-file-that-is-a-folder-is-state-io-error.json",
    TODO / "ids-grow-past-four-digits.json",
    TODO / "remove-without-confirm-is-refused-and-removes-nothing.json",
]


@pytest.fixture(autouse=True)
def interpreter_first(monkeypatch: pytest.MonkeyPatch) -> None:
    """`python3` in the shell runtimes means this interpreter, which has the apps' libraries."""
    monkeypatch.setenv("PATH", os.pathsep.join([str(Path(sys.executable).parent), os.environ["PATH"]]))


def scenario(folder: Path, name: str, steps: list[dict[str, Any]], **fields: Any) -> Path:
    """A scenario file for agentic-to-do, written under `folder`."""
    path = folder / "agentic-to-do" / f"{name}.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    data = {"description": name, "package": "agentic-to-do", "now": "2026-04-01T00:00:00Z", **fields}
    path.write_text(json.dumps({**data, "steps": steps}), encoding="utf-8")
    return path


def expect(exit: int, envelope: dict[str, Any], match: str = "subset") -> dict[str, Any]:
    return {"exit": exit, "match": match, "envelope": envelope}


def test_every_scenario_passes_through_the_built_in_runtime_in_real_processes(
    warm_replay_of_every_scenario: RecordedReplay,
) -> None:
    """`agentapps replay <every package's scenarios folder> --jobs 2` (the replay is shared with the
    warm/cold identity test, which compares its steps with a cold replay's)."""
    files = scenario_files(SCENARIO_FOLDERS)
    result = warm_replay_of_every_scenario.result
    assert result.error_code is None, result.envelope["error"]["message"]
    assert result.envelope["count"] == len(files) >= 150
    assert all(
        report["passed"] and report["passedSteps"] == report["steps"] for report in result.envelope["items"]
    )


@pytest.mark.parametrize("runtime", ["sh relay.sh", "node relay.mjs"])
def test_a_runtime_given_as_a_command_replays_the_same_scenarios(
    agentapps: Callable[..., ToolkitResult], runtime: str
) -> None:
    """A shell script and a Node.js program, each a whole runtime of a dozen lines."""
    interpreter, script = runtime.split()
    result = agentapps("replay", "--runtime", f"{interpreter} {RUNTIMES / script}", *map(str, TOUCHSTONES))
    assert result.error_code is None, result.envelope["error"]["message"]
    assert [report["passed"] for report in result.envelope["items"]] == [True] * len(TOUCHSTONES)


def test_a_runtime_that_drops_stdin_fails_with_the_difference(
    agentapps: Callable[..., ToolkitResult],
) -> None:
    result = agentapps("replay", "--runtime", f"sh {RUNTIMES / 'drops-stdin.sh'}", str(STDIN_SCENARIO))
    assert (result.exit_status, result.error_code) == (14, "SCENARIO_FAILED")
    error = result.envelope["error"]
    assert error["message"] == (
        f"1 of 1 scenarios failed. First: {STDIN_SCENARIO}, step 1 of 15: add t --body-file -\n"
        '  envelope.item.excerpt: expected "line 1 line 2", got ""'
    )
    (report,) = error["details"]["items"]
    assert (report["passed"], report["passedSteps"]) == (False, 0)
    assert report["failure"]["step"] == 1
    assert report["failure"]["args"] == ["add", "t", "--body-file", "-"]
    assert report["failure"]["exitStatus"] == 0


def test_a_runtime_that_swallows_the_exit_status_fails_on_every_error_step(
    agentapps: Callable[..., ToolkitResult],
) -> None:
    path = TODO / "get-of-an-unknown-id-is-not-found.json"
    result = agentapps("replay", "--runtime", f"sh {RUNTIMES / 'swallows-exit-status.sh'}", str(path))
    failure = result.envelope["error"]["details"]["items"][0]["failure"]
    assert failure["step"] == 3
    assert failure["differences"] == [
        "contract: `ok` is false but the exit status is 0.",
        "exit status: expected 4, got 0",
    ]


def test_a_runtime_that_prints_its_own_line_breaks_the_contract(
    agentapps: Callable[..., ToolkitResult],
) -> None:
    path = TODO / "get-returns-one-item.json"
    result = agentapps("replay", "--runtime", f"sh {RUNTIMES / 'prints-a-banner.sh'}", str(path))
    (difference,) = result.envelope["error"]["details"]["items"][0]["failure"]["differences"]
    assert difference.startswith("contract: stdout is not exactly one JSON document")


def test_human_output_lists_each_failed_step_and_its_differences(tmp_path: Path) -> None:
    path = scenario(
        tmp_path,
        "wrong-title",
        [
            {
                "args": ["add", "a"],
                "expect": expect(0, {"ok": True, "item": {"title": "b", "status": "open"}}),
            },
            {"args": ["list"], "expect": expect(0, {"ok": True})},
        ],
    )
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        status = runner.run(cli.app, ["replay", "--human", "--packages", str(SUITE), str(path)], human.render)
    assert status == 14
    assert out.getvalue() == (
        f"FAIL  {path}  step 1 of 2: add a\n"
        '  envelope.item.title: expected "b", got "a"\n'
        "0 of 1 scenario passed.\n"
    )


def test_a_failing_step_that_changes_the_state_is_reported(
    agentapps: Callable[..., ToolkitResult], tmp_path: Path
) -> None:
    path = scenario(
        tmp_path,
        "add-wrongly-expected-to-fail",
        [{"args": ["add", "x"], "expect": expect(3, {"ok": False})}],
    )
    result = agentapps("replay", "--packages", str(SUITE), str(path))
    differences = result.envelope["error"]["details"]["items"][0]["failure"]["differences"]
    assert differences == [
        "exit status: expected 3, got 0",
        "envelope.ok: expected false, got true",
        "state: a failing step changed the state folder; a failure must change nothing",
    ]


def test_each_scenario_starts_from_an_empty_state_of_its_own(
    agentapps: Callable[..., ToolkitResult], tmp_path: Path
) -> None:
    steps = [{"args": ["add", "x"], "expect": expect(0, {"ok": True, "item": {"id": "td_0001"}})}]
    paths = [scenario(tmp_path, f"first-id-{n}", steps) for n in range(3)]
    result = agentapps("replay", "--packages", str(SUITE), "--jobs", "3", *map(str, paths))
    assert result.error_code is None
    assert result.envelope["count"] == 3


def test_a_file_that_is_not_a_scenario_is_refused_before_anything_runs(
    agentapps: Callable[..., ToolkitResult], tmp_path: Path
) -> None:
    good = scenario(tmp_path, "good", [{"args": ["add", "x"], "expect": expect(0, {"ok": True})}])
    bad = scenario(tmp_path, "bad", [{"args": ["add", "x"], "expect": {"exit": 0, "envelope": {"ok": True}}}])
    result = agentapps("replay", "--packages", str(SUITE), str(good), str(bad))
    assert (result.exit_status, result.error_code) == (3, "VALIDATION_ERROR")
    assert result.envelope["error"]["message"] == (
        f"{bad}: not a scenario: steps/0/expect: 'match' is a required property"
    )


@pytest.mark.parametrize(
    ("content", "problem"),
    [("{", "not JSON"), ('{"package": "agentic-to-do"}', "'description' is a required property")],
)
def test_broken_scenario_files_say_what_is_wrong(
    agentapps: Callable[..., ToolkitResult], tmp_path: Path, content: str, problem: str
) -> None:
    path = tmp_path / "broken.json"
    path.write_text(content)
    result = agentapps("replay", str(path))
    assert result.error_code == "VALIDATION_ERROR"
    assert problem in result.envelope["error"]["message"]


@pytest.mark.parametrize(
    ("fields", "locked", "problem"),
    [
        (
            {"folders": ["todos.json"], "files": {"todos.json": "[]"}},
            [],
            "'todos.json' is in both `folders` and `files`: a state name is a folder or a file, not both.",
        ),
        (
            {"folders": ["todos.json.lock"]},
            ["todos.json.lock"],
            "steps/0/locked names 'todos.json.lock', which `folders` makes a folder: "
            "a lock is held on a file.",
        ),
    ],
    ids=["folder-and-file", "lock-on-a-folder"],
)
def test_a_scenario_that_contradicts_itself_is_refused_naming_the_name(
    agentapps: Callable[..., ToolkitResult],
    tmp_path: Path,
    fields: dict[str, Any],
    locked: list[str],
    problem: str,
) -> None:
    step: dict[str, Any] = {"args": ["list"], "expect": expect(0, {"ok": True})}
    path = scenario(tmp_path, "contradicts", [step | ({"locked": locked} if locked else {})], **fields)
    result = agentapps("replay", "--packages", str(SUITE), str(path))
    assert (result.exit_status, result.error_code) == (3, "VALIDATION_ERROR")
    assert result.envelope["error"]["message"] == f"{path}: {problem}"


def test_missing_paths_and_packages_are_reported(
    agentapps: Callable[..., ToolkitResult], tmp_path: Path
) -> None:
    assert agentapps("replay", str(tmp_path / "nowhere")).error_code == "NOT_FOUND"
    assert agentapps("replay", str(tmp_path)).error_code == "NOT_FOUND"  # a folder with no scenario
    path = scenario(tmp_path, "lost", [{"args": ["list"], "expect": expect(0, {"ok": True})}])
    result = agentapps("replay", str(path))
    assert result.error_code == "SCENARIO_FAILED"
    assert result.envelope["error"]["details"]["items"][0]["problem"] == (
        f"{path}: no package 'agentic-to-do' found in any folder above the scenario."
    )
    assert result.envelope["error"]["message"].count(str(path)) == 1  # an outside review: it was twice


def test_subset_matching_allows_more_keys_but_not_more_elements() -> None:
    actual = {"ok": True, "items": [{"id": "a", "title": "x"}], "count": 1}
    assert envelope_differences({"ok": True, "items": [{"id": "a"}]}, actual, subset=True) == []
    assert envelope_differences({"items": []}, actual, subset=True) == [
        'envelope.items: expected 0 elements, got 1: [{"id": "a", "title": "x"}]'
    ]


def test_exact_matching_names_every_key_it_did_not_expect() -> None:
    actual = {"ok": True, "count": 1, "total": 1}
    assert envelope_differences({"ok": True, "count": 1}, actual, subset=False) == [
        "envelope.total: not expected, got 1"
    ]


def test_true_is_not_one_and_null_is_not_missing() -> None:
    assert envelope_differences({"n": 1}, {"n": True}, subset=True) == ["envelope.n: expected 1, got true"]
    assert envelope_differences({"due": None}, {}, subset=True) == ["envelope.due: missing (expected null)"]
    assert envelope_differences({"n": 1}, {"n": 1.0}, subset=False) == []


def test_text_pieces_join_and_repeat() -> None:
    assert text(["a", {"repeat": "xy", "times": 3}, "b"]) == "axyxyxyb"
    assert text("plain") == "plain"


@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("stdin", [{"repeat": "x" * 4096, "times": 16 * 1024 * 1024}]),
        ("args", ["add", [{"repeat": "0123456789abcdef", "times": 4 * 1024 * 1024 + 1}]]),
        # 778 bytes that would take gigabytes: six arguments of 64 MiB each.
        ("args", [[{"repeat": "a" * 64, "times": 1024 * 1024}] for _ in range(6)]),
    ],
    ids=["64-GiB-of-stdin", "an-argument-past-64-MiB", "six-arguments-of-64-MiB"],
)
def test_a_text_past_the_limit_is_refused_before_it_is_built(
    agentapps: Callable[..., ToolkitResult], tmp_path: Path, field: str, value: Any
) -> None:
    step: dict[str, Any] = {"args": ["list"], "expect": expect(0, {"ok": True})} | {field: value}
    path = scenario(tmp_path, "huge", [step])
    result = agentapps("replay", "--packages", str(SUITE), str(path))
    assert (result.exit_status, result.error_code) == (3, "VALIDATION_ERROR")
    assert (
        f"a scenario's texts together are at most {64 * 1024 * 1024}" in result.envelope["error"]["message"]
    )


@pytest.mark.parametrize(
    ("env", "where", "refused"),
    [
        ({"PYTHONWARNINGS": "ignore::antigravity.Foo"}, "env", "which a runtime does not pass to an app"),
        ({"BROWSER": "/bin/sh -c 'id > /tmp/x' #%s"}, "env", "which a runtime does not pass to an app"),
        ({"AGENTIC_TODO_STATE_FILE": "/tmp/real/todos.json"}, "env", "a scenario's state stays in its own"),
        ({"AGENTIC_STATE_DIR": "/tmp/real"}, "steps/0/env", "a scenario's state stays in its own"),
    ],
    ids=["code-through-python-warnings", "browser", "a-real-state-file", "a-real-state-folder"],
)
def test_a_scenario_environment_goes_through_the_allow_list(
    agentapps: Callable[..., ToolkitResult], tmp_path: Path, env: dict[str, str], where: str, refused: str
) -> None:
    """A scenario is data from anywhere: it cannot run code or reach real state through an app."""
    real = tmp_path / "real.json"
    real.write_text("untouched")
    env = {name: value.replace("/tmp/real/todos.json", str(real)) for name, value in env.items()}
    step: dict[str, Any] = {"args": ["remove", "td_0001", "--confirm"], "expect": expect(0, {"ok": True})}
    fields: dict[str, Any] = {"env": env} if where == "env" else {}
    if where != "env":
        step["env"] = env
    path = scenario(tmp_path, "hostile", [step], **fields)
    result = agentapps("replay", "--packages", str(SUITE), str(path))
    assert (result.exit_status, result.error_code) == (3, "VALIDATION_ERROR")
    [name] = env
    assert result.envelope["error"]["message"].startswith(f"{path}: {where} sets {name}")
    assert refused in result.envelope["error"]["message"]
    assert real.read_text() == "untouched"


def test_a_scenario_nested_100000_deep_is_a_validation_error(
    agentapps: Callable[..., ToolkitResult], tmp_path: Path
) -> None:
    path = tmp_path / "deep.json"
    path.write_text('{"description": ' + "[" * 100_000 + "]" * 100_000 + "}")
    result = agentapps("replay", str(path))
    assert (result.exit_status, result.error_code) == (3, "VALIDATION_ERROR")
    assert result.envelope["error"]["message"] == f"{path}: nested deeper than 110 levels."


def test_a_fifo_named_like_a_scenario_is_refused_not_waited_on(
    agentapps: Callable[..., ToolkitResult], tmp_path: Path
) -> None:
    os.mkfifo(tmp_path / "waits.json")
    result = agentapps("replay", str(tmp_path))
    assert (result.exit_status, result.error_code) == (3, "VALIDATION_ERROR")
    assert result.envelope["error"]["message"] == f"{tmp_path / 'waits.json'}: not a regular file."


def test_a_failure_in_plain_text_is_a_difference_not_a_pass(
    agentapps: Callable[..., ToolkitResult], tmp_path: Path
) -> None:
    path = tmp_path / "fails-with-plain-text" / "lists.json"
    path.parent.mkdir()
    expected = {"ok": False, "error": {"code": "UNAVAILABLE"}}
    step = {"args": ["list"], "expect": expect(3, expected)}
    path.write_text(
        json.dumps({"description": "list fails", "package": "fails-with-plain-text", "steps": [step]})
    )
    result = agentapps("replay", "--packages", str(SUITE / "tests" / "fixtures"), str(path))
    assert result.envelope["error"]["details"]["items"][0]["failure"]["differences"] == [
        'envelope: expected a JSON document, got ""'
    ]


@pytest.mark.parametrize(
    ("options", "code", "status"),
    [
        (["--packages", "no-such-folder"], "NOT_FOUND", 4),
        (["--jobs", "0"], "VALIDATION_ERROR", 3),
        (["--timeout", "0"], "VALIDATION_ERROR", 3),
    ],
)
def test_bad_options_are_refused_before_anything_runs(
    agentapps: Callable[..., ToolkitResult], tmp_path: Path, options: list[str], code: str, status: int
) -> None:
    """Refused as a whole: no scenario is replayed, so there are no reports."""
    path = scenario(tmp_path, "adds", [{"args": ["add", "x"], "expect": expect(0, {"ok": True})}])
    result = agentapps("replay", *options, str(path))
    assert (result.error_code, result.exit_status) == (code, status)
    assert "details" not in result.envelope["error"]


def test_a_package_folder_replays_its_scenarios_folder_only() -> None:
    """`replay my-package` means its scenarios: the kit's sync record, schemas/ and any other
    JSON in the package are not scenarios, and reading them as such refused the whole replay."""
    package = SUITE / "agentic-to-do"
    assert (package / "app" / "agentic_kit" / "sync-record.json").is_file()
    assert scenario_files([package]) == scenario_files([package / "scenarios"]) != []
    assert all(path.parent == package / "scenarios" for path in scenario_files([package]))


@pytest.mark.parametrize("runtime", ["cold", f"sh {RUNTIMES / 'relay.sh'}"])
def test_a_runtime_that_fails_after_the_app_ran_fails_that_step_and_says_so(
    agentapps: Callable[..., ToolkitResult], tmp_path: Path, monkeypatch: pytest.MonkeyPatch, runtime: str
) -> None:
    """The runtime's own failure once the app has run (runtime.finished_invocation, for the
    built-in runtime and for one given as a command) is that step's difference, named, never a
    crash of the whole replay."""

    def fails(*_: object, **__: object) -> None:
        raise RecursionError("maximum recursion depth exceeded")

    monkeypatch.setattr("agentapps.runtime.check_output", fails)
    path = scenario(tmp_path, "one-add", [{"args": ["add", "x"], "expect": expect(0, {"ok": True})}])
    result = agentapps("replay", "--packages", str(SUITE), "--runtime", runtime, str(path))
    assert (result.exit_status, result.error_code) == (14, "SCENARIO_FAILED"), result.envelope
    (report,) = result.envelope["error"]["details"]["items"]
    assert report["failure"]["step"] == 1, report
    [difference] = report["failure"]["differences"]
    assert difference.startswith("the runtime failed: INTERNAL_ERROR: The app ran (exit status 0)")
