"""The README's quick start stays true: two one-line commands, and CI runs the second verbatim."""

from __future__ import annotations

import re
from pathlib import Path

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
