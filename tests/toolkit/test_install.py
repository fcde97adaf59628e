"""The suite installed like any MCP server: a built wheel in a fresh virtual environment, nothing
of the checkout on the path, `agentapps mcp` started from an empty folder with a private HOME.

uv builds the wheel and installs it with its dependencies, as `uvx` (the README's configuration)
does; the upgrade is made with pip, the other installer docs/install.md names. One
session-scoped installation serves these tests.
"""

from __future__ import annotations

import asyncio
import functools
import json
import os
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from mcp import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client
from mcp.types import TextContent

from tests.toolkit.conftest import SUITE

APPS = ("agentic-to-do", "agentic-notes", "agentic-timer")
# The one place this test names tools: the to-do app's add (with the arguments it takes) and list.
ADD_TOOL, ADD_ARGUMENTS = "agentic_to_do__add", {"title": "Water the plants"}
LIST_TOOL = "agentic_to_do__list"
TITLE = ADD_ARGUMENTS["title"]
# Where platformdirs puts the suite's data on Linux for a HOME with no XDG_DATA_HOME set.
DATA_FOLDER = Path(".local", "share", "agentic-applications-suite")


@dataclass
class Installation:
    venv: Path
    wheel: Path

    @property
    def agentapps(self) -> Path:
        return self.venv / "bin" / "agentapps"


# uv, from the test extra: run as this interpreter's module, never whichever uv is on PATH.
UV = [sys.executable, "-m", "uv"]


def build_wheel(source: Path, into: Path) -> Path:
    subprocess.run([*UV, "build", "--quiet", "--wheel", "--out-dir", str(into), str(source)], check=True)
    (wheel,) = into.glob("*.whl")
    return wheel


def new_environment(target: Path, *requirements: str) -> None:
    """A fresh virtualenv at `target` with pip in it (for an upgrade made with pip), and the
    requirements installed by uv: some 2 s against pip's 20 for the mcp extra's dependencies."""
    run = functools.partial(subprocess.run, check=True, capture_output=True, cwd=target.parent)
    run([*UV, "venv", "--quiet", "--seed", "--python", sys.executable, str(target)])
    run([*UV, "pip", "install", "--quiet", "--python", str(target / "bin" / "python"), *requirements])


def pip_install(target: Path, *requirements: str) -> None:
    subprocess.run(
        [str(target / "bin" / "python"), "-m", "pip", "install", "-q", *requirements],
        check=True,
        capture_output=True,
        cwd=target,  # never the checkout: nothing of it may be picked up
    )


@pytest.fixture(scope="session")
def installation(tmp_path_factory: pytest.TempPathFactory) -> Installation:
    """The working tree's wheel, installed with the mcp extra into a fresh venv."""
    wheel = build_wheel(SUITE, tmp_path_factory.mktemp("wheel"))
    target = tmp_path_factory.mktemp("venv") / "env"
    new_environment(target, f"{wheel}[mcp]")
    return Installation(target, wheel)


@pytest.fixture
def user(tmp_path: Path) -> tuple[Path, Path]:
    """A private HOME and an empty folder to start from."""
    home, empty = tmp_path / "home", tmp_path / "empty"
    home.mkdir()
    empty.mkdir()
    return home, empty


def outsider_environment(home: Path) -> dict[str, str]:
    """What a client on a fresh machine gives the server: a PATH and a HOME, no setting of ours."""
    return {"PATH": os.defpath, "HOME": str(home), "LANG": "C.UTF-8"}


def test_the_wheel_carries_the_three_apps_and_no_tests_or_state(installation: Installation) -> None:
    import zipfile

    names = zipfile.ZipFile(installation.wheel).namelist()
    for app in APPS:
        base = f"agentapps/bundled/{app}/"
        for shipped in ("APP.md", "app/cli.py", "app/agentic_kit/store.py", f"skills/{app}-usage/SKILL.md"):
            assert base + shipped in names
        assert base + "schemas/success-envelope.schema.json" in names
        assert not [name for name in names if name.startswith((base + "tests/", base + "app/state/"))]
        assert not [name for name in names if name.startswith(base + "scenarios/")]
    assert not [name for name in names if "/fixtures/" in name]


def test_catalog_outside_a_checkout_lists_the_installed_apps_with_their_data_folder(
    installation: Installation, user: tuple[Path, Path]
) -> None:
    home, empty = user
    done = subprocess.run(
        [str(installation.agentapps), "catalog"],
        cwd=empty,
        env=outsider_environment(home),
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    items = json.loads(done.stdout)["items"]
    assert sorted(item["slug"] for item in items) == sorted(APPS)
    assert {item["trust"] for item in items} == {"bundled"}
    assert {item["stateDir"] for item in items} == {str(home / DATA_FOLDER)}
    assert all(Path(item["source"]).is_relative_to(installation.venv) for item in items)

    # The caller's AGENTIC_STATE_DIR wins: no data folder is named, none is used.
    chosen = subprocess.run(
        [str(installation.agentapps), "catalog"],
        cwd=empty,
        env={**outsider_environment(home), "AGENTIC_STATE_DIR": str(home / "mine")},
        capture_output=True,
        text=True,
        check=True,
    )
    assert not [item for item in json.loads(chosen.stdout)["items"] if "stateDir" in item]


async def _serve_and_add(agentapps: Path, home: Path, cwd: Path, errlog: Any) -> set[str]:
    server = StdioServerParameters(
        command=str(agentapps), args=["mcp"], env=outsider_environment(home), cwd=cwd
    )
    async with stdio_client(server, errlog) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        tools = {tool.name for tool in (await session.list_tools()).tools}
        result = await session.call_tool(ADD_TOOL, ADD_ARGUMENTS)
        assert not result.is_error, result.content
        (content,) = result.content
        assert isinstance(content, TextContent)
        assert json.loads(content.text)["ok"] is True
        return tools


async def _list_titles(agentapps: Path, home: Path, cwd: Path, errlog: Any) -> list[str]:
    server = StdioServerParameters(
        command=str(agentapps), args=["mcp"], env=outsider_environment(home), cwd=cwd
    )
    async with stdio_client(server, errlog) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        result = await session.call_tool(LIST_TOOL, {})
        (content,) = result.content
        assert isinstance(content, TextContent)
        return [item["title"] for item in json.loads(content.text)["items"]]


def test_mcp_from_an_empty_folder_serves_the_apps_and_keeps_state_in_the_users_data_folder(
    installation: Installation, user: tuple[Path, Path], tmp_path: Path
) -> None:
    home, empty = user
    log = tmp_path / "stderr.log"
    with log.open("w") as errlog:
        tools = asyncio.run(
            asyncio.wait_for(_serve_and_add(installation.agentapps, home, empty, errlog), timeout=180)
        )
    for app in APPS:
        assert [tool for tool in tools if tool.startswith(app.replace("-", "_") + "__")]
    data = home / DATA_FOLDER
    assert f"keep their state in {data}" in log.read_text()
    stored = json.loads((data / "todos.json").read_text())
    assert TITLE in json.dumps(stored)
    assert not list(empty.iterdir())  # nothing written where the server was started
    assert list(installation.venv.rglob("todos.json*")) == []  # no state file, no lock
    json_files = installation.venv.rglob("*.json")
    assert [path for path in json_files if TITLE in path.read_text(errors="replace")] == []


def test_an_upgrade_keeps_the_data(
    tmp_path_factory: pytest.TempPathFactory,
    installation: Installation,
    user: tuple[Path, Path],
    tmp_path: Path,
) -> None:
    """A user on an earlier build adds a to-do, upgrades to the working tree's build, and reads it."""
    home, empty = user
    # The earlier build: this tree's files with an earlier version, so pip sees an upgrade.
    source = tmp_path_factory.mktemp("earlier") / "suite"
    files = (
        subprocess.run(["git", "ls-files", "-z"], cwd=SUITE, capture_output=True, check=True)
        .stdout.decode()
        .split("\0")
    )
    for name in filter(None, files):
        if os.path.lexists(SUITE / name) and not os.path.isdir(SUITE / name):
            (source / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(SUITE / name, source / name, follow_symlinks=False)
    pyproject = source / "pyproject.toml"
    pyproject.write_text(pyproject.read_text().replace('version = "0.1.0"', 'version = "0.0.1"', 1))
    earlier = build_wheel(source, tmp_path_factory.mktemp("earlier-wheel"))
    target = tmp_path / "env"
    new_environment(target, f"{earlier}[mcp]")
    agentapps = target / "bin" / "agentapps"
    with (tmp_path / "stderr.log").open("w") as errlog:
        asyncio.run(asyncio.wait_for(_serve_and_add(agentapps, home, empty, errlog), timeout=180))
        pip_install(target, "--upgrade", "--no-deps", str(installation.wheel))
        version = subprocess.run(
            [str(target / "bin" / "python"), "-m", "pip", "show", "agentic-applications-suite"],
            capture_output=True,
            text=True,
            check=True,
        ).stdout
        assert "Version: 0.1.0" in version
        titles = asyncio.run(asyncio.wait_for(_list_titles(agentapps, home, empty, errlog), timeout=180))
    assert titles == [TITLE]
