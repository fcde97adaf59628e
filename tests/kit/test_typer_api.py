"""The kit and the toolkit use typer's public API only, so typer is bounded below alone: no
private typer module (`typer._click`, `typer.core`) and no click of their own anywhere in shared/;
and the bound is the same in pyproject.toml and in every package's PEP 723 block. `nox -s
newest-typer` replays every scenario on the newest typer the registry serves."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

import pytest
import typer

SUITE = Path(__file__).resolve().parents[2]
ENTRY_SCRIPTS = [
    *(SUITE / name / "app" / "cli.py" for name in ("agentic-to-do", "agentic-notes", "agentic-timer")),
    SUITE / "shared" / "agentapps" / "templates" / "package" / "app" / "cli.py",
]
# An import of a private typer module, or of click itself (typer carries its own, privately).
PRIVATE = re.compile(
    r"^\s*(?:from|import)\s+(?:typer\.(?:_click|core)\b|click\b)|\btyper\._click\b|\btyper\.core\b"
)


def _python_files() -> list[Path]:
    """The kit, the toolkit, the package template and each package's app/ (its vendored kit too)."""
    folders = [
        SUITE / "shared",
        *(SUITE / name / "app" for name in ("agentic-to-do", "agentic-notes", "agentic-timer")),
    ]
    return [path for folder in folders for path in sorted(folder.rglob("*.py"))]


def test_no_source_of_the_kit_toolkit_or_apps_reaches_into_typer_or_click() -> None:
    found = [
        f"{path.relative_to(SUITE)}:{number}: {line.strip()}"
        for path in _python_files()
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1)
        if PRIVATE.search(line)
    ]
    assert found == []


def test_the_pattern_finds_what_it_is_meant_to_find() -> None:
    for line in (
        "from typer._click.exceptions import UsageError",
        "from typer.core import TyperGroup",
        "import click",
        "group = typer.core.TyperGroup",
    ):
        assert PRIVATE.search(line), line
    for line in ("import typer", "from typer.main import get_command", "typer.Context(command)"):
        assert not PRIVATE.search(line), line


def _package_requirements(script: Path) -> list[str]:
    block = re.search(r"^# /// script\n((?:#.*\n)+?)# ///$", script.read_text(), flags=re.MULTILINE)
    assert block is not None, f"{script}: no PEP 723 block"
    metadata = tomllib.loads("\n".join(line[2:] for line in block.group(1).splitlines()))
    requirements: list[str] = metadata["dependencies"]
    return requirements


@pytest.mark.parametrize("script", ENTRY_SCRIPTS, ids=lambda path: path.parts[-3])
def test_every_pep_723_block_names_what_pyproject_names_for_packages(script: Path) -> None:
    project = tomllib.loads((SUITE / "pyproject.toml").read_text())["project"]
    pinned = {re.split(r"[<>=; ]", requirement)[0]: requirement for requirement in project["dependencies"]}
    package = {
        re.split(r"[<>=; ]", requirement)[0]: requirement for requirement in _package_requirements(script)
    }
    assert package == {name: pinned[name] for name in ("typer", "filelock", "pydantic", "tzdata")}


def test_typer_is_bounded_below_only_and_the_installed_one_meets_the_bound() -> None:
    project = tomllib.loads((SUITE / "pyproject.toml").read_text())["project"]
    [requirement] = [each for each in project["dependencies"] if re.split(r"[<>=; ]", each)[0] == "typer"]
    assert re.fullmatch(r"typer>=(\d+)\.(\d+)", requirement), requirement
    floor = tuple(int(part) for part in requirement.removeprefix("typer>=").split("."))
    assert tuple(int(part) for part in typer.__version__.split(".")[:2]) >= floor
