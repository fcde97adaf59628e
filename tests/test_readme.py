"""The README's quick start stays true: two one-line commands, and CI runs the second verbatim;
the pages of docs/ the README links to show what the suite does."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import tomllib
from pathlib import Path
from typing import Any, cast

import nox

ROOT = Path(__file__).resolve().parents[1]


def quick_start_commands() -> list[str]:
    readme = (ROOT / "README.md").read_text()
    section = readme.split("## Quick start", 1)[1].split("\n## ", 1)[0]
    return [block.strip() for block in re.findall(r"```sh\n(.*?)```", section, flags=re.DOTALL)]


def test_the_quick_start_is_two_one_line_commands() -> None:
    commands = quick_start_commands()
    assert len(commands) == 2
    assert all("\n" not in command for command in commands)
    assert commands[0].endswith("nox -s demo")


def test_ci_runs_the_readme_test_command_verbatim() -> None:
    ci_lines = [
        line for line in (ROOT / ".ci" / "run").read_text().splitlines() if line and line[0] not in "#"
    ]
    assert ci_lines[-1] == quick_start_commands()[1]


def docs_page(name: str) -> str:
    return (ROOT / "docs" / name).read_text()


def test_the_scenario_shown_in_the_readme_is_valid_and_passes(tmp_path: Path) -> None:
    from agentapps.harness import in_process_runtime
    from agentapps.replay import replay
    from agentapps.scenarios import load_scenario

    (shown,) = re.findall(r"```json\n(.*?)```", docs_page("scenarios.md"), flags=re.DOTALL)
    path = tmp_path / "agentic-to-do" / "shown.json"
    path.parent.mkdir()
    path.write_text(shown)
    report = replay(load_scenario(path), in_process_runtime, packages=ROOT)
    assert report.passed, report.summary()


def test_the_replay_failure_shown_in_the_readme_is_what_a_runtime_dropping_stdin_gets() -> None:
    (shown,) = re.findall(r"```\n(FAIL .*?)```", docs_page("scenarios.md"), flags=re.DOTALL)
    path = "agentic-notes/scenarios/add-reads-the-body-from-stdin-byte-for-byte.json"
    interpreter_dir = os.path.dirname(sys.executable)
    completed = subprocess.run(
        [
            os.path.join(interpreter_dir, "agentapps"),
            *["replay", "--human", "--runtime", "sh tests/runtimes/drops-stdin.sh", path],
        ],
        cwd=ROOT,
        env={**os.environ, "PATH": os.pathsep.join([interpreter_dir, os.environ["PATH"]])},
        capture_output=True,
        text=True,
        check=False,
    )
    assert completed.returncode == 14
    assert completed.stdout == shown


class _DemoSession:
    """What the demo asks of a nox session, done here: `python3` is this Python (which has the
    suite installed) and every envelope printed is kept."""

    name = "demo"

    def __init__(self, tmp: Path) -> None:
        self.tmp = tmp
        self.cwd = ROOT
        self.printed: list[dict[str, Any]] = []
        self.env: dict[str, str] = {}  # the session's own variables, as nox's session.env

    def install(self, *args: str) -> None:
        pass  # this Python has the suite installed already

    def create_tmp(self) -> str:
        self.tmp.mkdir(exist_ok=True)
        return str(self.tmp)  # as nox does: the same folder on every run of the session

    def chdir(self, folder: Path) -> None:
        self.cwd = folder

    def log(self, message: str) -> None:
        pass

    def run(self, program: str, *args: str, env: dict[str, str]) -> None:
        command = [sys.executable if program == "python3" else program, *args]
        out = subprocess.run(
            command,
            cwd=self.cwd,
            env={**os.environ, **self.env, **env},
            capture_output=True,
            text=True,
            check=True,
        )
        self.printed.append(json.loads(out.stdout))


def test_the_demo_starts_fresh_every_time_it_runs(tmp_path: Path) -> None:
    sys.path.insert(0, str(ROOT))
    try:
        import noxfile
    finally:
        sys.path.remove(str(ROOT))
    for _ in range(2):
        session = _DemoSession(tmp_path / "nox-tmp")
        noxfile.demo(cast(nox.Session, session))
        added, listed = session.printed
        assert added["item"]["id"] == "td_0001"  # ids start over: the old state is gone
        assert (listed["count"], [item["title"] for item in listed["items"]]) == (1, ["Write the docs"])


def test_the_line_that_puts_agentapps_on_path_installs_the_command_and_the_test_extra() -> None:
    section = docs_page("toolkit.md")
    [line] = [block.strip() for block in re.findall(r"```sh\n(.*?)```", section, flags=re.DOTALL)]
    assert "\n" not in line
    assert line.startswith("python3 -m venv .venv && . .venv/bin/activate && ")
    assert line.endswith("python3 -m pip install --quiet -e '.[test]'")
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    assert project["scripts"]["agentapps"] == "agentapps.console:main"  # what the install puts on PATH
    assert any(requirement.startswith("pytest") for requirement in project["optional-dependencies"]["test"])
