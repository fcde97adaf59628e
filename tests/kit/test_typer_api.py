"""What the kit takes from typer beyond its public names, held where a typer release that moves
it fails loudly, naming what moved; and the pin that keeps such a release out, the same in
pyproject.toml and in every package's PEP 723 block.

typer (0.29) carries its own click as the private `typer._click` and exports only BadParameter of
click's errors. The runner (agentic_kit/runner.py) must tell a command line that cannot be read
(UsageError, a USAGE_ERROR) and a missing argument (MissingParameter, also a USAGE_ERROR) from a
bad value (BadParameter, a VALIDATION_ERROR), and reads the parser's own view of a line (click's
`Command.make_parser(ctx).parse_args`) to find --human after --help and an option given twice.
"""

from __future__ import annotations

import re
import tomllib
from pathlib import Path
from typing import Annotated

import pytest
import typer
import typer.core
import typer.main

SUITE = Path(__file__).resolve().parents[2]
ENTRY_SCRIPTS = [
    *(SUITE / name / "app" / "cli.py" for name in ("agentic-to-do", "agentic-notes", "agentic-timer")),
    SUITE / "shared" / "agentapps" / "templates" / "package" / "app" / "cli.py",
]


def _moved(what: str) -> str:
    return (
        f"typer {typer.__version__} moved {what}, which agentic_kit/runner.py reads: adapt the "
        "runner to this release, then widen the typer pin in pyproject.toml and every PEP 723 block."
    )


def test_the_private_errors_the_runner_catches_are_where_it_imports_them() -> None:
    try:
        from typer._click.exceptions import MissingParameter, UsageError
    except ImportError:
        pytest.fail(_moved("typer._click.exceptions.UsageError or MissingParameter"))
    assert issubclass(typer.BadParameter, UsageError), _moved("BadParameter out from under UsageError")
    assert issubclass(MissingParameter, typer.BadParameter), _moved("MissingParameter out from BadParameter")


def test_the_parser_reads_a_line_as_the_runner_expects() -> None:
    app = typer.Typer()

    @app.command()
    def one(name: Annotated[str, typer.Option()] = "") -> None: ...

    @app.command()
    def two() -> None: ...

    group = typer.main.get_command(app)
    assert isinstance(group, typer.core.TyperGroup), _moved("typer.core.TyperGroup")
    command = group.commands["one"]
    assert isinstance(command, typer.core.TyperCommand), _moved("typer.core.TyperCommand")
    ctx = command.context_class(command, info_name="one")
    try:
        options, rest, order = command.make_parser(ctx).parse_args(args=["--name", "a", "--name", "b", "x"])
    except (AttributeError, TypeError, ValueError):
        pytest.fail(_moved("Command.make_parser(ctx).parse_args(args=...) -> (options, rest, order)"))
    assert (options, rest) == ({"name": "b"}, ["x"]), _moved("what the parser returns")
    assert [param.name for param in order] == ["name", "name"], _moved("the order of parsed parameters")
    assert all(
        hasattr(order[0], name) for name in ("param_type_name", "multiple", "is_flag", "count", "opts")
    )


def _package_requirements(script: Path) -> list[str]:
    block = re.search(r"^# /// script\n((?:#.*\n)+?)# ///$", script.read_text(), flags=re.MULTILINE)
    assert block is not None, f"{script}: no PEP 723 block"
    metadata = tomllib.loads("\n".join(line[2:] for line in block.group(1).splitlines()))
    requirements: list[str] = metadata["dependencies"]
    return requirements


def _name(requirement: str) -> str:
    return re.split(r"[<>=]", requirement)[0]


@pytest.mark.parametrize("script", ENTRY_SCRIPTS, ids=lambda path: path.parts[-3])
def test_every_pep_723_block_names_what_pyproject_names_for_packages(script: Path) -> None:
    project = tomllib.loads((SUITE / "pyproject.toml").read_text())["project"]
    pinned = {re.split(r"[<>=; ]", requirement)[0]: requirement for requirement in project["dependencies"]}
    package = {
        re.split(r"[<>=; ]", requirement)[0]: requirement for requirement in _package_requirements(script)
    }
    assert package == {name: pinned[name] for name in ("typer", "filelock", "pydantic", "tzdata")}


def test_the_installed_typer_is_one_the_pin_admits() -> None:
    version = tuple(int(part) for part in typer.__version__.split(".")[:2])
    assert (0, 29) <= version < (0, 30), _moved(f"(installed {typer.__version__}, outside the pin)")
