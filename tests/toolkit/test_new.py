"""`agentapps new` gives a package that passes check and its own test at once; bad input creates
nothing; `agentapps sync` refreshes the generated files and says what changed."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from agentapps.manifest import load_app_manifest, load_skill_manifest, skill_path
from tests.toolkit.conftest import ToolkitResult


def test_a_new_package_passes_check_and_its_own_test(
    agentapps: Callable[..., ToolkitResult], tmp_path: Path
) -> None:
    created = agentapps("new", "my-bookmarks", "--dir", str(tmp_path))
    assert created.exit_status == 0
    package = tmp_path / "my-bookmarks"
    assert created.envelope["item"]["source"] == str(package)
    assert {"APP.md", "app/cli.py", "app/my_bookmarks/models.py", "skills/my-bookmarks-usage/SKILL.md",
            "schemas/entry.schema.json", "tests/test_my_bookmarks.py", "app/agentic_kit/store.py",
            "scenarios/add-returns-the-new-entry.json"} <= set(
        created.envelope["item"]["files"]
    )  # fmt: skip
    checked = agentapps("check", str(package))
    assert checked.exit_status == 0
    assert [(report["errors"], report["warnings"]) for report in checked.envelope["items"]] == [(0, 0)]
    env = {key: value for key, value in os.environ.items() if not key.startswith("AGENTIC_")}
    tested = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", str(package / "tests")],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
    )
    assert tested.returncode == 0, tested.stdout + tested.stderr
    assert "5 passed" in tested.stdout  # three scenarios, the guard that there are some, a real process
    replayed = agentapps("replay", str(package / "scenarios"))  # found inside the package itself
    assert (replayed.exit_status, replayed.envelope["count"]) == (0, 3)


def test_name_and_description_with_quotes_and_colons_survive(
    agentapps: Callable[..., ToolkitResult], tmp_path: Path
) -> None:
    name, description = 'Links: "the good ones"', "Keeps links: read later, or \\ never # maybe."
    agentapps("new", "links", "--dir", str(tmp_path), "--name", name, "--description", description)
    manifest = load_app_manifest(tmp_path / "links")
    assert (manifest.name, manifest.description) == (name, description)
    assert name in load_skill_manifest(skill_path(tmp_path / "links", "links-usage")).description
    assert agentapps("check", str(tmp_path / "links")).exit_status == 0


@pytest.mark.parametrize("slug", ["My_App", "-x", "x-", "a--b", "1abc", "", "a b", "class", "x" * 59])
def test_a_bad_slug_is_refused_and_creates_nothing(
    agentapps: Callable[..., ToolkitResult], tmp_path: Path, slug: str
) -> None:
    result = agentapps("new", "--dir", str(tmp_path), "--", slug)  # after --, even "-x" is the slug
    assert (result.exit_status, result.error_code) == (3, "VALIDATION_ERROR")
    assert list(tmp_path.iterdir()) == []


def test_a_folder_that_exists_and_is_not_empty_is_refused(
    agentapps: Callable[..., ToolkitResult], tmp_path: Path
) -> None:
    (tmp_path / "taken").mkdir()
    (tmp_path / "taken" / "notes.txt").write_text("mine")
    result = agentapps("new", "taken", "--dir", str(tmp_path))
    assert (result.exit_status, result.error_code) == (6, "CONFLICT")
    assert [path.name for path in (tmp_path / "taken").iterdir()] == ["notes.txt"]


def test_an_empty_folder_is_filled(agentapps: Callable[..., ToolkitResult], tmp_path: Path) -> None:
    (tmp_path / "ready").mkdir()
    assert agentapps("new", "ready", "--dir", str(tmp_path)).exit_status == 0
    assert (tmp_path / "ready" / "APP.md").is_file()


def test_sync_refreshes_the_kit_and_says_what_changed(
    agentapps: Callable[..., ToolkitResult], tmp_path: Path
) -> None:
    agentapps("new", "synced", "--dir", str(tmp_path))
    package = tmp_path / "synced"
    (package / "app" / "agentic_kit" / "store.py").write_text("# edited by hand\n")
    (package / "app" / "agentic_kit" / "stray.py").write_text("")
    result = agentapps("sync", str(package))
    assert result.envelope["items"] == [
        {"source": str(package), "changed": ["app/agentic_kit/store.py", "app/agentic_kit/stray.py"]}
    ]
    assert not (package / "app" / "agentic_kit" / "stray.py").exists()
    assert agentapps("sync", str(package)).envelope["items"][0]["changed"] == []
