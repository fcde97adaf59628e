"""`agentapps new` gives a package that passes check and its own test at once; bad input creates
nothing; `agentapps sync` refreshes the generated files and says what changed."""

from __future__ import annotations

import hashlib
import json
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from agentapps.environment import without_agentic
from agentapps.manifest import load_app_manifest, load_skill_manifest, skill_path
from tests.apps.test_missing_dependencies import (
    assert_the_missing_modules_envelope,
    run_without_site_packages,
)
from tests.toolkit.conftest import FIXTURES, ToolkitResult


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
    # A package kept in a repository of its own commits neither the user's state nor bytecode.
    assert {".gitignore", "app/state/.gitkeep"} <= set(created.envelope["item"]["files"])
    ignored = (package / ".gitignore").read_text(encoding="utf-8").splitlines()
    assert {"app/state/*", "!app/state/.gitkeep", "__pycache__/"} <= set(ignored)
    checked = agentapps("check", str(package), "--approve")  # a new folder is not trusted yet
    assert checked.exit_status == 0
    assert [(report["errors"], report["warnings"]) for report in checked.envelope["items"]] == [(0, 0)]
    env = without_agentic()
    tested = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", str(package / "tests")],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
    )
    assert tested.returncode == 0, tested.stdout + tested.stderr
    assert "5 passed" in tested.stdout  # three scenarios, the guard that there are some, a real process
    replayed = agentapps("replay", str(package / "scenarios"), "--approve")  # found inside the package
    assert (replayed.exit_status, replayed.envelope["count"]) == (0, 3)


def test_name_and_description_with_quotes_and_colons_survive(
    agentapps: Callable[..., ToolkitResult], tmp_path: Path
) -> None:
    name, description = 'Links: "the good ones"', "Keeps links: read later, or \\ never # maybe."
    agentapps("new", "links", "--dir", str(tmp_path), "--name", name, "--description", description)
    manifest = load_app_manifest(tmp_path / "links")
    assert (manifest.name, manifest.description) == (name, description)
    assert name in load_skill_manifest(skill_path(tmp_path / "links", "links-usage")).description
    assert agentapps("check", str(tmp_path / "links"), "--approve").exit_status == 0


@pytest.mark.parametrize("slug", ["true", "on", "null", "no"])
def test_a_slug_yaml_would_read_as_something_else_is_quoted(
    agentapps: Callable[..., ToolkitResult], tmp_path: Path, slug: str
) -> None:
    assert agentapps("new", slug, "--dir", str(tmp_path)).exit_status == 0
    assert load_app_manifest(tmp_path / slug).slug == slug
    checked = agentapps("check", str(tmp_path / slug), "--approve")
    assert (checked.exit_status, checked.envelope["items"][0]["findings"]) == (0, [])


@pytest.mark.parametrize(
    ("slug", "problem"),
    [
        *[
            (slug, "is not a valid slug")
            for slug in ["My_App", "-x", "x-", "a--b", "1abc", "", "a b", "x" * 59]
        ],
        ("class", "is a Python keyword"),
        *[
            (slug, "which shadows the module")
            for slug in ["json", "typer", "pydantic", "agentic-kit", "filelock"]
        ],
    ],
)
def test_a_bad_slug_is_refused_and_creates_nothing(
    agentapps: Callable[..., ToolkitResult], tmp_path: Path, slug: str, problem: str
) -> None:
    result = agentapps("new", "--dir", str(tmp_path), "--", slug)  # after --, even "-x" is the slug
    assert (result.exit_status, result.error_code) == (3, "VALIDATION_ERROR")
    assert problem in result.envelope["error"]["message"]
    assert list(tmp_path.iterdir()) == []


def test_a_name_whose_skill_description_would_pass_the_limit_is_refused(
    agentapps: Callable[..., ToolkitResult], tmp_path: Path
) -> None:
    # The skill's description is "Operate NAME through its JSON CLI. Use when …" (915 characters
    # besides the name, at most 1,024 in all).
    longest = "N" * (
        1024
        - len(
            " through its JSON CLI. Use when the user wants to add, list or remove "
            "entries that must persist between conversations."
        )
        - len("Operate ")
    )
    refused = agentapps("new", "long", "--dir", str(tmp_path), "--name", longest + "N")
    assert (refused.exit_status, refused.error_code) == (3, "VALIDATION_ERROR")
    assert refused.envelope["error"]["hint"] == f"Give a name of at most {len(longest)} characters."
    assert list(tmp_path.iterdir()) == []
    assert agentapps("new", "long", "--dir", str(tmp_path), "--name", longest).exit_status == 0
    assert agentapps("check", str(tmp_path / "long"), "--approve").exit_status == 0


def test_dir_naming_a_file_is_refused(agentapps: Callable[..., ToolkitResult], tmp_path: Path) -> None:
    (tmp_path / "a-file").write_text("mine")
    result = agentapps("new", "links", "--dir", str(tmp_path / "a-file"))
    assert (result.exit_status, result.error_code) == (3, "VALIDATION_ERROR")
    assert (tmp_path / "a-file").read_text() == "mine"


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


def record(package: Path, *paths: str) -> None:
    """Add files to the package's sync record, as if sync had written them as they are now."""
    path = package / "app" / "agentic_kit" / "sync-record.json"
    data = json.loads(path.read_text())
    for name in paths:
        data["files"][name] = hashlib.sha256((package / name).read_bytes()).hexdigest()
    path.write_text(json.dumps(data))


def test_sync_refreshes_the_kit_and_says_what_it_wrote_removed_and_kept(
    agentapps: Callable[..., ToolkitResult], tmp_path: Path
) -> None:
    agentapps("new", "synced", "--dir", str(tmp_path))
    package = tmp_path / "synced"
    (package / "app" / "agentic_kit" / "store.py").write_text("# edited by hand\n")
    (package / "app" / "agentic_kit" / "gone.py").write_text("")  # a module the kit had once
    generated = (package / "schemas" / "entry.schema.json").read_text()
    (package / "schemas" / "old-entry.schema.json").write_text(generated)  # generated once, no longer
    record(package, "app/agentic_kit/gone.py", "schemas/old-entry.schema.json")
    (package / "app" / "agentic_kit" / "stray.py").write_text("")  # never written by sync
    result = agentapps("sync", str(package), "--approve")
    assert result.envelope["items"] == [
        {
            "source": str(package),
            "written": ["app/agentic_kit/store.py", "app/agentic_kit/sync-record.json"],
            "removed": ["app/agentic_kit/gone.py", "schemas/old-entry.schema.json"],
            "kept": ["app/agentic_kit/stray.py"],
        }
    ]
    assert not (package / "app" / "agentic_kit" / "gone.py").exists()
    again = agentapps("sync", str(package), "--approve").envelope["items"][0]
    assert (again["written"], again["removed"], again["kept"]) == ([], [], ["app/agentic_kit/stray.py"])


def test_sync_never_removes_what_it_did_not_make(
    agentapps: Callable[..., ToolkitResult], tmp_path: Path
) -> None:
    agentapps("new", "synced", "--dir", str(tmp_path))
    package = tmp_path / "synced"
    generated = (package / "schemas" / "entry.schema.json").read_text()
    hand_written = {
        package / "schemas" / "webhook-payload.schema.json": '{"type": "object"}\n',
        package / "app" / "agentic_kit" / "README.txt": "notes\n",
        package / "app" / "agentic_kit" / "myclock.py": "NOW = 0\n",  # a module of the user's own
        # A copy of a generated schema, edited, still carrying the generated `$comment`.
        package / "schemas" / "entry-v2.schema.json": generated.replace(
            '"title"', '"x-note": "mine", "title"'
        ),
        package / "app" / "agentic_kit" / "retired.py": "edited after sync wrote it\n",
    }
    (package / "app" / "agentic_kit" / "retired.py").write_text("as sync wrote it\n")
    record(package, "app/agentic_kit/retired.py")
    for path, text in hand_written.items():
        path.write_text(text)
    result = agentapps("sync", str(package), "--approve").envelope["items"][0]
    # The record no longer lists retired.py: edited, it is the user's now.
    assert (result["written"], result["removed"]) == (["app/agentic_kit/sync-record.json"], [])
    assert sorted(result["kept"]) == sorted(str(path.relative_to(package)) for path in hand_written)
    assert {path: path.read_text() for path in hand_written} == hand_written


def test_sync_never_writes_through_a_symlinked_folder(
    agentapps: Callable[..., ToolkitResult], tmp_path: Path
) -> None:
    agentapps("new", "synced", "--dir", str(tmp_path))
    package = tmp_path / "synced"
    outside = tmp_path / "outside"
    shutil.move(package / "app" / "agentic_kit", outside)
    (outside / "clock.py").write_text("# someone else's file\n")
    (package / "app" / "agentic_kit").symlink_to(outside)
    before = {path.name: path.read_bytes() for path in outside.iterdir() if path.is_file()}
    result = agentapps("sync", str(package), "--approve")
    assert (result.exit_status, result.error_code) == (10, "PACKAGE_INVALID")
    assert result.envelope["error"]["message"] == (
        f"{package / 'app' / 'agentic_kit'} is a symlink; sync never writes or removes through one."
    )
    assert {path.name: path.read_bytes() for path in outside.iterdir() if path.is_file()} == before
    assert result.envelope["error"]["hint"] == "Make it a real folder inside the package, then sync again."


def test_sync_never_writes_through_a_symlinked_file(
    agentapps: Callable[..., ToolkitResult], tmp_path: Path
) -> None:
    agentapps("new", "synced", "--dir", str(tmp_path))
    package = tmp_path / "synced"
    outside = tmp_path / "outside.py"
    outside.write_text("# someone else's file\n")
    (package / "app" / "agentic_kit" / "clock.py").unlink()
    (package / "app" / "agentic_kit" / "clock.py").symlink_to(outside)
    result = agentapps("sync", str(package), "--approve")
    assert (result.exit_status, result.error_code) == (10, "PACKAGE_INVALID")
    link = package / "app" / "agentic_kit" / "clock.py"
    assert result.envelope["error"]["message"] == (
        f"{link} is a symlink; sync never writes or removes through one."
    )
    assert result.envelope["error"]["hint"] == (
        "Remove the symlink (sync writes the file itself) or make it a real file, then sync again."
    )
    assert outside.read_text() == "# someone else's file\n"


def test_sync_of_a_package_not_built_on_the_kit_is_refused_and_writes_nothing(
    agentapps: Callable[..., ToolkitResult], tmp_path: Path
) -> None:
    package = tmp_path / "seed"
    shutil.copytree(FIXTURES / "seed-agentic-to-do", package)
    result = agentapps("sync", str(package), "--approve")
    assert (result.exit_status, result.error_code) == (10, "PACKAGE_INVALID")
    assert not (package / "schemas").exists()
    assert not (package / "app" / "agentic_kit").exists()


def test_a_path_given_as_the_slug_hints_the_slug_and_dir_apart(
    agentapps: Callable[..., ToolkitResult], tmp_path: Path
) -> None:
    """Found from outside: `new /tmp/x/my-app` was refused with only "For example: my-bookmarks"."""
    result = agentapps("new", str(tmp_path / "my-app"))
    assert (result.exit_status, result.error_code) == (3, "VALIDATION_ERROR")
    hint = result.envelope["error"]["hint"]
    assert hint == f"Give the slug and the folder apart: new my-app --dir {tmp_path}"
    followed = agentapps(*hint.removeprefix("Give the slug and the folder apart: ").split())
    assert followed.exit_status == 0, followed.envelope
    assert (tmp_path / "my-app" / "APP.md").is_file()


def test_check_says_why_an_app_that_fails_at_start_up_gave_no_describe(
    agentapps: Callable[..., ToolkitResult], tmp_path: Path
) -> None:
    """Found from outside: a misspelt new_app option (a TypeError as the script starts) was reported
    only as "describe ... did not give its commands", with the TypeError nowhere in check's answer."""
    assert agentapps("new", "typo-app", "--dir", str(tmp_path)).exit_status == 0
    cli = tmp_path / "typo-app" / "app" / "cli.py"
    cli.write_text(cli.read_text().replace("    summary=", "    sumary=", 1))  # new_app refuses it
    checked = agentapps("check", str(tmp_path / "typo-app"), "--approve")
    assert checked.exit_status != 0
    findings = checked.envelope["error"]["details"]["items"][0]["findings"]
    runs = [finding for finding in findings if finding["rule"] == "entry.runs"]
    assert len(runs) == 1, findings
    assert "its stderr ends: TypeError: " in runs[0]["message"], runs[0]


def test_a_new_package_answers_the_same_without_its_dependencies(
    agentapps: Callable[..., ToolkitResult], tmp_path: Path
) -> None:
    assert agentapps("new", "my-bookmarks", "--dir", str(tmp_path)).exit_status == 0
    state_dir = tmp_path / "state"
    state_dir.mkdir()
    completed = run_without_site_packages(tmp_path / "my-bookmarks", state_dir, "list")
    assert_the_missing_modules_envelope(completed, ["list"])
    assert list(state_dir.iterdir()) == []
