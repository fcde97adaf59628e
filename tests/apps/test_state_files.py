"""Every package's state file: where it lives, how it is written, and what happens when it is bad."""

from __future__ import annotations

import json
import os
import shutil
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from agentapps.harness import AppRunner
from tests.conftest import AppFacts

CORRUPT_STATES: dict[str, bytes] = {
    "empty file": b"",
    "truncated JSON": b'{"schemaVersion": 1, "nextId": 2, "items": [{"id": "td_0001", "ti',
    "JSON of the wrong shape": b'["td_0001", "td_0002"]',
    "entities of the wrong shape": b'{"schemaVersion": 1, "items": [{}], "notes": [{}], "timers": [{}]}',
    "binary garbage": bytes(range(256)) * 4,
    "a newer schema version": b'{"schemaVersion": 2, "nextId": 1, "items": [], "tags": []}',
}


def write_state(app: AppRunner, facts: AppFacts, data: bytes) -> Path:
    app.state_dir.mkdir(parents=True, exist_ok=True)
    path = app.state_file(facts.state_file)
    path.write_bytes(data)
    return path


def titles(path: Path) -> list[str]:
    """The title (a timer's label) of every entity in a state file."""
    state = json.loads(path.read_text())
    entities = next(value for key, value in state.items() if isinstance(value, list))
    return [entity.get("title", entity.get("label")) for entity in entities]


@pytest.mark.parametrize("content", CORRUPT_STATES.values(), ids=CORRUPT_STATES.keys())
@pytest.mark.parametrize("command", ["read", "write", "get", "remove"])
def test_a_corrupt_state_file_is_reported_by_path_and_left_byte_for_byte(
    app: AppRunner, facts: AppFacts, content: bytes, command: str
) -> None:
    args = {
        "read": facts.read,
        "write": facts.write,
        "get": ("get", facts.first_id),
        "remove": ("remove", facts.first_id, "--confirm"),
    }[command]
    path = write_state(app, facts, content)
    result = app.run(*args)
    assert (result.error_code, result.exit_status) == ("STATE_CORRUPT", 8)
    assert str(path) in result.envelope["error"]["message"]
    assert path.read_bytes() == content
    assert {p.name for p in app.state_dir.iterdir()} <= {facts.state_file, facts.state_file + ".lock"}


def test_a_newer_state_file_says_so(app: AppRunner, facts: AppFacts) -> None:
    write_state(app, facts, CORRUPT_STATES["a newer schema version"])
    assert "newer version" in app.run(*facts.read).envelope["error"]["message"]


@pytest.mark.parametrize("command", ["read", "write"])
def test_a_newer_state_of_exactly_todays_shape_is_refused_too(
    app: AppRunner, facts: AppFacts, command: str
) -> None:
    assert app.run(*facts.write).ok
    state = json.loads(app.state_file(facts.state_file).read_text())
    state["schemaVersion"] = 2  # same fields, so only the version says it is not ours
    newer = json.dumps(state).encode()
    write_state(app, facts, newer)
    result = app.run(*(facts.read if command == "read" else facts.write))
    assert (result.error_code, result.exit_status) == ("STATE_CORRUPT", 8)
    assert "newer version" in result.envelope["error"]["message"]
    assert app.state_file(facts.state_file).read_bytes() == newer


def test_writes_keep_refusing_after_a_corrupt_state_is_found(app: AppRunner, facts: AppFacts) -> None:
    path = write_state(app, facts, b"{oops")
    for _ in range(3):
        assert app.run(*facts.write).error_code == "STATE_CORRUPT"
    assert path.read_bytes() == b"{oops"


def test_a_lock_file_left_behind_does_not_block_the_next_write(app: AppRunner, facts: AppFacts) -> None:
    app.state_dir.mkdir()
    app.state_file(facts.state_file + ".lock").write_text("left by a killed process")
    assert app.run(*facts.write, env={"AGENTIC_LOCK_TIMEOUT": "0.5"}).ok


def test_a_write_leaves_no_temp_file_and_keeps_the_lock_file(app: AppRunner, facts: AppFacts) -> None:
    app.run(*facts.write)
    assert sorted(p.name for p in app.state_dir.iterdir()) == [facts.state_file, facts.state_file + ".lock"]


def test_a_write_removes_only_its_own_left_over_temp_files(
    app: AppRunner, facts: AppFacts, tmp_path: Path
) -> None:
    folder = tmp_path / "shared"
    folder.mkdir()
    own = folder / ".a.json.0123456789abcdef.tmp"  # what a killed writer of a.json leaves
    others = [
        folder / ".a.json.notes.json.0123456789abcdef.tmp",  # the live temp file of a state a.json.notes.json
        folder / ".a.json.0123456789ABCDEF.tmp",  # not the form of this state's temp names
        folder / ".a.json.x.tmp",
        folder / ".a.json.0123456789abcdef.tmp.bak",
    ]
    for path in [own, *others]:
        path.write_text("being written")
    assert app.run(*facts.write, env={facts.state_file_env: str(folder / "a.json")}).ok
    assert not own.exists()
    assert [path.read_text() for path in others] == ["being written"] * len(others)


def test_a_write_keeps_the_file_mode(app: AppRunner, facts: AppFacts) -> None:
    app.run(*facts.write)
    path = app.state_file(facts.state_file)
    path.chmod(0o640)
    app.run(*facts.write)
    assert stat.S_IMODE(path.stat().st_mode) == 0o640


def test_a_symlinked_state_file_is_written_through_and_stays_a_link(
    app: AppRunner, facts: AppFacts, tmp_path: Path
) -> None:
    target = tmp_path / "elsewhere" / "real.json"
    target.parent.mkdir()
    link = tmp_path / "link.json"
    link.symlink_to(target)
    env = {facts.state_file_env: str(link)}
    assert app.run(*facts.write, env=env).ok
    assert app.run(*facts.write, env=env).ok
    assert link.is_symlink()
    assert titles(target) == ["x", "x"]


@pytest.mark.parametrize("command", ["read", "write"])
def test_a_state_path_that_is_a_folder_is_a_state_io_error(
    app: AppRunner, facts: AppFacts, tmp_path: Path, command: str
) -> None:
    folder = tmp_path / "state.json"
    folder.mkdir()
    result = app.run(
        *(facts.read if command == "read" else facts.write), env={facts.state_file_env: str(folder)}
    )
    assert (result.error_code, result.exit_status) == ("STATE_IO_ERROR", 9)
    assert folder.is_dir()
    assert not any(folder.iterdir())


def test_a_state_path_under_a_file_is_a_state_io_error(
    app: AppRunner, facts: AppFacts, tmp_path: Path
) -> None:
    blocker = tmp_path / "not-a-folder"
    blocker.write_text("keep me")
    result = app.run(*facts.write, env={facts.state_file_env: str(blocker / "state.json")})
    assert (result.error_code, result.exit_status) == ("STATE_IO_ERROR", 9)
    assert str(blocker / "state.json") in result.envelope["error"]["message"]
    assert blocker.read_text() == "keep me"


def test_the_state_file_variable_wins_over_the_state_folder(
    app: AppRunner, facts: AppFacts, tmp_path: Path
) -> None:
    chosen = tmp_path / "deep" / "er" / "mine.json"
    assert app.run(*facts.write, env={facts.state_file_env: str(chosen)}).ok
    assert titles(chosen) == ["x"]
    assert not app.state_dir.exists()


def test_the_state_folder_variable_holds_the_named_file(app: AppRunner, facts: AppFacts) -> None:
    app.run(*facts.write)
    assert titles(app.state_file(facts.state_file)) == ["x"]


def test_the_state_file_records_its_version_and_the_next_id(app: AppRunner, facts: AppFacts) -> None:
    app.run(*facts.write)
    state = json.loads(app.state_file(facts.state_file).read_text())
    assert (state["schemaVersion"], state["nextId"]) == (1, 2)


@pytest.fixture
def package_copy(app: AppRunner, tmp_path: Path) -> AppRunner:
    """The package folder copied alone, state excluded, as an author would ship it."""
    copy = tmp_path / "copy" / app.package.root.name
    shutil.copytree(app.package.root, copy, ignore=shutil.ignore_patterns("state", "__pycache__"))
    return AppRunner(copy, app.state_dir)


def test_without_settings_the_state_lives_in_app_state(package_copy: AppRunner, facts: AppFacts) -> None:
    package_copy.env = {}
    assert package_copy.run_subprocess(*facts.write).ok
    assert titles(package_copy.package.root / "app" / "state" / facts.state_file) == ["x"]


def test_a_package_copied_alone_runs_with_only_its_pypi_dependencies(
    package_copy: AppRunner, facts: AppFacts
) -> None:
    # -S drops site-packages and with it the editable install of shared/; PYTHONPATH brings back
    # only the installed libraries, so the vendored kit in app/ is the only kit there is.
    site_packages = [path for path in sys.path if path.endswith("site-packages")]
    completed = subprocess.run(
        [sys.executable, "-S", "app/cli.py", *facts.write],
        cwd=package_copy.package.root,
        env={"PYTHONPATH": os.pathsep.join(site_packages), "AGENTIC_STATE_DIR": str(package_copy.state_dir)},
        capture_output=True,
        text=True,
        check=False,
    )
    assert completed.returncode == 0, completed.stdout + completed.stderr
    assert json.loads(completed.stdout)["item"]["id"] == facts.first_id
    probe = subprocess.run(
        [sys.executable, "-S", "-c", "import agentic_kit"],
        env={"PYTHONPATH": os.pathsep.join(site_packages)},
        capture_output=True,
        check=False,
    )
    assert probe.returncode != 0, "the shared kit must not be importable in this check"
