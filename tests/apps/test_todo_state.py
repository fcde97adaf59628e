"""agentic-to-do's state file: where it lives, how it is written, and what happens when it is bad."""

from __future__ import annotations

import json
import os
import shutil
import stat
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from agentapps.harness import AppRunner

CORRUPT_STATES: dict[str, bytes] = {
    "empty file": b"",
    "truncated JSON": b'{"schemaVersion": 1, "nextId": 2, "items": [{"id": "td_0001", "ti',
    "JSON of the wrong shape": b'["td_0001", "td_0002"]',
    "items of the wrong shape": b'{"schemaVersion": 1, "nextId": 2, "items": [{"id": 1}]}',
    "binary garbage": bytes(range(256)) * 4,
    "a newer schema version": b'{"schemaVersion": 2, "nextId": 1, "items": [], "tags": []}',
}


def write_state(todo: AppRunner, data: bytes) -> Path:
    todo.state_dir.mkdir(parents=True, exist_ok=True)
    path = todo.state_file("todos.json")
    path.write_bytes(data)
    return path


@pytest.mark.parametrize("content", CORRUPT_STATES.values(), ids=CORRUPT_STATES.keys())
@pytest.mark.parametrize(
    "args",
    [["list"], ["get", "td_0001"], ["add", "x"], ["complete", "td_0001"], ["remove", "td_0001", "--confirm"]],
)
def test_a_corrupt_state_file_is_reported_by_path_and_left_byte_for_byte(
    todo: AppRunner, content: bytes, args: list[str]
) -> None:
    path = write_state(todo, content)
    result = todo.run(*args)
    assert (result.error_code, result.exit_status) == ("STATE_CORRUPT", 8)
    assert str(path) in result.envelope["error"]["message"]
    assert path.read_bytes() == content
    assert sorted(p.name for p in todo.state_dir.iterdir()) in (
        ["todos.json"],
        ["todos.json", "todos.json.lock"],
    )


def test_a_newer_state_file_says_so(todo: AppRunner) -> None:
    write_state(todo, CORRUPT_STATES["a newer schema version"])
    assert "newer version" in todo.run("list").envelope["error"]["message"]


def test_writes_keep_refusing_after_a_corrupt_state_is_found(todo: AppRunner) -> None:
    path = write_state(todo, b"{oops")
    for _ in range(3):
        assert todo.run("add", "x").error_code == "STATE_CORRUPT"
    assert path.read_bytes() == b"{oops"


@pytest.fixture
def held_lock(todo: AppRunner) -> Iterator[None]:
    """Another process holding the state lock, as a slow writer would."""
    todo.state_dir.mkdir()
    lock_path = todo.state_file("todos.json.lock")
    holder = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import filelock, sys, time\n"
            "lock = filelock.FileLock(sys.argv[1]); lock.acquire()\n"
            "print('held', flush=True); time.sleep(60)",
            str(lock_path),
        ],
        stdout=subprocess.PIPE,
        text=True,
    )
    assert holder.stdout is not None
    assert holder.stdout.readline() == "held\n"
    yield
    holder.kill()
    holder.wait()


@pytest.mark.usefixtures("held_lock")
def test_a_lock_held_past_the_timeout_is_state_locked_and_changes_nothing(todo: AppRunner) -> None:
    result = todo.run("add", "x", env={"AGENTIC_LOCK_TIMEOUT": "0.2"})
    assert (result.error_code, result.exit_status) == ("STATE_LOCKED", 7)
    assert not todo.state_file("todos.json").exists()


@pytest.mark.usefixtures("held_lock")
def test_reads_need_no_lock(todo: AppRunner) -> None:
    assert todo.run("list", env={"AGENTIC_LOCK_TIMEOUT": "0.2"}).ok


def test_a_lock_file_left_behind_does_not_block_the_next_write(todo: AppRunner) -> None:
    todo.state_dir.mkdir()
    todo.state_file("todos.json.lock").write_text("left by a killed process")
    assert todo.run("add", "x", env={"AGENTIC_LOCK_TIMEOUT": "0.5"}).ok


def test_a_write_leaves_no_temp_file_and_keeps_the_lock_file(todo: AppRunner) -> None:
    todo.run("add", "x")
    assert sorted(p.name for p in todo.state_dir.iterdir()) == ["todos.json", "todos.json.lock"]


def test_a_write_keeps_the_file_mode(todo: AppRunner) -> None:
    todo.run("add", "x")
    path = todo.state_file("todos.json")
    path.chmod(0o640)
    todo.run("add", "y")
    assert stat.S_IMODE(path.stat().st_mode) == 0o640


def test_a_symlinked_state_file_is_written_through_and_stays_a_link(todo: AppRunner, tmp_path: Path) -> None:
    target = tmp_path / "elsewhere" / "real.json"
    target.parent.mkdir()
    link = tmp_path / "link.json"
    link.symlink_to(target)
    env = {"AGENTIC_TODO_STATE_FILE": str(link)}
    assert todo.run("add", "x", env=env).ok
    assert todo.run("add", "y", env=env).ok
    assert link.is_symlink()
    assert [item["title"] for item in json.loads(target.read_text())["items"]] == ["x", "y"]


@pytest.mark.parametrize("args", [["list"], ["add", "x"]])
def test_a_state_path_that_is_a_folder_is_a_state_io_error(
    todo: AppRunner, tmp_path: Path, args: list[str]
) -> None:
    folder = tmp_path / "todos.json"
    folder.mkdir()
    result = todo.run(*args, env={"AGENTIC_TODO_STATE_FILE": str(folder)})
    assert (result.error_code, result.exit_status) == ("STATE_IO_ERROR", 9)
    assert folder.is_dir()
    assert not any(folder.iterdir())


def test_a_state_path_under_a_file_is_a_state_io_error(todo: AppRunner, tmp_path: Path) -> None:
    blocker = tmp_path / "not-a-folder"
    blocker.write_text("keep me")
    result = todo.run("add", "x", env={"AGENTIC_TODO_STATE_FILE": str(blocker / "todos.json")})
    assert (result.error_code, result.exit_status) == ("STATE_IO_ERROR", 9)
    assert str(blocker / "todos.json") in result.envelope["error"]["message"]
    assert blocker.read_text() == "keep me"


def test_the_state_file_variable_wins_over_the_state_folder(todo: AppRunner, tmp_path: Path) -> None:
    chosen = tmp_path / "deep" / "er" / "mine.json"
    assert todo.run("add", "x", env={"AGENTIC_TODO_STATE_FILE": str(chosen)}).ok
    assert json.loads(chosen.read_text())["items"][0]["title"] == "x"
    assert not todo.state_dir.exists()


def test_the_state_folder_variable_holds_todos_json(todo: AppRunner) -> None:
    todo.run("add", "x")
    assert json.loads(todo.state_file("todos.json").read_text())["items"][0]["title"] == "x"


@pytest.fixture
def package_copy(todo: AppRunner, tmp_path: Path) -> AppRunner:
    """The package folder copied alone, state excluded, as an author would ship it."""
    copy = tmp_path / "copy" / "agentic-to-do"
    shutil.copytree(todo.package.root, copy, ignore=shutil.ignore_patterns("todos.json*", "__pycache__"))
    return AppRunner(copy, todo.state_dir)


def test_without_settings_the_state_lives_in_app_state(package_copy: AppRunner) -> None:
    package_copy.env = {}
    assert package_copy.run_subprocess("add", "x").ok
    state = package_copy.package.root / "app" / "state" / "todos.json"
    assert json.loads(state.read_text())["items"][0]["title"] == "x"


def test_a_package_copied_alone_runs_with_only_its_pypi_dependencies(package_copy: AppRunner) -> None:
    # -S drops site-packages and with it the editable install of shared/; PYTHONPATH brings back
    # only the installed libraries, so the vendored kit in app/ is the only kit there is.
    site_packages = [path for path in sys.path if path.endswith("site-packages")]
    completed = subprocess.run(
        [sys.executable, "-S", "app/cli.py", "add", "alone"],
        cwd=package_copy.package.root,
        env={"PYTHONPATH": os.pathsep.join(site_packages), "AGENTIC_STATE_DIR": str(package_copy.state_dir)},
        capture_output=True,
        text=True,
        check=False,
    )
    assert completed.returncode == 0, completed.stdout + completed.stderr
    assert json.loads(completed.stdout)["item"]["title"] == "alone"
    probe = subprocess.run(
        [sys.executable, "-S", "-c", "import agentic_kit"],
        env={"PYTHONPATH": os.pathsep.join(site_packages)},
        capture_output=True,
        check=False,
    )
    assert probe.returncode != 0, "the shared kit must not be importable in this check"
