"""Every package's state file: where it lives, how it is written, and what happens when it is bad."""

from __future__ import annotations

import json
import os
import resource
import shutil
import stat
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from agentapps.harness import AppRunner
from tests.packages import APPS, AppFacts
from tests.reliability.conftest import child_environment

CORRUPT_STATES: dict[str, bytes] = {
    "empty file": b"",
    "truncated JSON": b'{"schemaVersion": 1, "nextId": 2, "items": [{"id": "td_0001", "ti',
    "JSON of the wrong shape": b'["td_0001", "td_0002"]',
    "entities of the wrong shape": b'{"schemaVersion": 1, "items": [{}], "notes": [{}], "timers": [{}]}',
    "binary garbage": bytes(range(256)) * 4,
    # Each app's own list is in it, as a newer version of the app would keep it (a file that holds
    # none of them, but another app's, is not this app's: test_another_apps_state_file_is_named_so).
    "a newer schema version": (
        b'{"schemaVersion": 9, "nextId": 1, "items": [], "notes": [], "timers": [], "tags": []}'
    ),
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


@pytest.mark.parametrize(
    ("reader", "writer"),
    [(reader, writer) for reader in APPS for writer in APPS if reader is not writer],
    ids=lambda facts: facts.package,
)
def test_another_apps_state_file_is_named_so(
    app_runner: Callable[[str], AppRunner], reader: AppFacts, writer: AppFacts
) -> None:
    """Found by an outside review: the notes and timer apps, pointed at the to-do's state file
    (its schemaVersion 2 past theirs), said it was written by a newer version and to upgrade; the
    to-do, at theirs, to repair the file or move it aside, which would hide the other app's
    data. Each says the file is not its own and to point it at its own; the file is untouched."""
    app, other = app_runner(reader.package), app_runner(writer.package)
    assert other.run(*writer.write).ok
    written = other.state_file(writer.state_file).read_bytes()
    path = write_state(app, reader, written)
    for args in (reader.read, reader.write):
        result = app.run(*args)
        assert (result.error_code, result.exit_status) == ("STATE_CORRUPT", 8)
        error = result.envelope["error"]
        assert error["message"].startswith(f"State file {path} is not a state file of this app: it holds no ")
        assert "another app's file" in error["hint"]
        assert "newer" not in error["message"] + error["hint"]
        assert "repair" not in error["hint"]
    assert path.read_bytes() == written


@pytest.mark.parametrize("command", ["read", "write"])
def test_a_newer_state_of_exactly_todays_shape_is_refused_too(
    app: AppRunner, facts: AppFacts, command: str
) -> None:
    assert app.run(*facts.write).ok
    state = json.loads(app.state_file(facts.state_file).read_text())
    state["schemaVersion"] = facts.schema_version + 1  # same fields: only the version says it is not ours
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


@pytest.mark.parametrize("name", [".a.json.0123456789abcdef.tmp", "a.json.lock"])
@pytest.mark.parametrize("command", ["read", "write"])
def test_a_state_file_named_like_a_lock_or_temp_file_is_refused(
    app: AppRunner, facts: AppFacts, tmp_path: Path, name: str, command: str
) -> None:
    """Another state's lock or temp file (which that state's writes would lock, or clean away) is
    never a state file: a VALIDATION_ERROR naming the setting, before anything is read or made.
    (A Python test: a scenario's state stays in its own folder.)"""
    folder = tmp_path / "named-like-the-stores-own-files"
    result = app.run(
        *(facts.read if command == "read" else facts.write), env={facts.state_file_env: str(folder / name)}
    )
    assert (result.error_code, result.exit_status) == ("VALIDATION_ERROR", 3)
    assert result.envelope["error"]["message"] == (
        f"{facts.state_file_env} names {name!r}, the form of the apps' own lock or temp files "
        "(`<state>.lock`, `.<state>.<16 hex digits>.tmp`)."
    )
    assert not folder.exists()


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
    assert app.run(*facts.write, env={facts.state_file_env: str(target)}).ok
    link = tmp_path / "link.json"
    link.symlink_to(target)
    env = {facts.state_file_env: str(link)}
    assert app.run(*facts.write, env=env).ok
    assert link.is_symlink()
    assert titles(target) == ["x", "x"]


@pytest.mark.parametrize("command", ["read", "write"])
@pytest.mark.parametrize("where", ["file", "folder", "AGENTIC_STATE_DIR"])
def test_a_dangling_symlink_on_the_state_path_is_refused_and_creates_nothing(
    app: AppRunner, facts: AppFacts, tmp_path: Path, command: str, where: str
) -> None:
    """Reproduced: a write through a dangling link made its target and every folder on the way,
    wherever it pointed (another user's choice, in a shared state folder)."""
    aimed = tmp_path / "chosen" / "by" / "someone"
    link = tmp_path / "link"
    link.symlink_to(aimed)
    if where == "file":
        env = {facts.state_file_env: str(link)}
    elif where == "folder":
        env = {facts.state_file_env: str(link / "state.json")}
    else:
        env = {"AGENTIC_STATE_DIR": str(link)}
    result = app.run(*(facts.read if command == "read" else facts.write), env=env)
    assert (result.error_code, result.exit_status) == ("STATE_IO_ERROR", 9)
    assert f"{link} is a symlink to {aimed}, which does not exist" in result.envelope["error"]["message"]
    assert sorted(path.name for path in tmp_path.iterdir()) == ["link"]
    assert link.is_symlink()


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
    assert (state["schemaVersion"], state["nextId"]) == (facts.schema_version, 2)


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


# --- What is not a state file: special files, huge files, the store's own names -----------------


def run_guarded(
    app: AppRunner, args: tuple[str, ...], env: dict[str, str]
) -> subprocess.CompletedProcess[str]:
    """A real run, bounded in time and in memory, so that an app that would wait on a FIFO forever
    or read /dev/zero until memory runs out fails the test instead of hanging the machine."""

    def limit_memory() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (2 << 30, 2 << 30))

    return subprocess.run(
        [sys.executable, "app/cli.py", *args],
        cwd=app.package.root,
        env=child_environment(app.state_dir, **env),
        preexec_fn=limit_memory,  # the child only lowers its own limit, then runs the app
        capture_output=True,
        text=True,
        timeout=30,
        check=False,
    )


def envelope_of(completed: subprocess.CompletedProcess[str]) -> dict[str, Any]:
    assert completed.stderr == "", completed.stderr
    envelope: dict[str, Any] = json.loads(completed.stdout)
    return envelope


@pytest.mark.parametrize("command", ["read", "write"])
def test_a_fifo_in_place_of_the_state_file_is_a_state_io_error_at_once(
    app: AppRunner, facts: AppFacts, command: str
) -> None:
    app.state_dir.mkdir()
    fifo = app.state_file(facts.state_file)
    os.mkfifo(fifo)
    completed = run_guarded(app, facts.read if command == "read" else facts.write, {})
    error = envelope_of(completed)["error"]
    assert (completed.returncode, error["code"]) == (9, "STATE_IO_ERROR")
    assert (
        error["message"] == f"Cannot read state file {fifo}: it is a FIFO (named pipe), not a regular file."
    )
    assert stat.S_ISFIFO(fifo.stat().st_mode)
    assert {path.name for path in app.state_dir.iterdir()} <= {fifo.name, fifo.name + ".lock"}


@pytest.mark.parametrize("device", ["/dev/zero", "/dev/null"])
def test_a_device_as_the_state_file_is_a_state_io_error(app: AppRunner, facts: AppFacts, device: str) -> None:
    for args in (facts.read, facts.write):
        completed = run_guarded(app, args, {facts.state_file_env: device})
        error = envelope_of(completed)["error"]
        assert (completed.returncode, error["code"]) == (9, "STATE_IO_ERROR")
        assert "it is a character device, not a regular file" in error["message"]


def test_a_state_file_over_the_size_limit_is_state_corrupt_and_left_as_it_was(
    app: AppRunner, facts: AppFacts
) -> None:
    app.state_dir.mkdir()
    huge = app.state_file(facts.state_file)
    with huge.open("wb") as sparse:  # 8 GB that take no disk: a hole, then one byte
        sparse.truncate(8 * 1024**3)
    before = huge.stat()
    for args in (facts.read, facts.write):
        completed = run_guarded(app, args, {})
        error = envelope_of(completed)["error"]
        assert (completed.returncode, error["code"]) == (8, "STATE_CORRUPT")
        assert error["message"] == (
            f"State file {huge} is larger than 512 MiB, the most a state file of the app can hold."
        )
    after = huge.stat()
    assert (after.st_size, after.st_mtime_ns, after.st_ino) == (
        before.st_size,
        before.st_mtime_ns,
        before.st_ino,
    )


def test_a_change_that_would_grow_the_state_past_the_limit_is_a_conflict(
    app: AppRunner, facts: AppFacts, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert app.run(*facts.write).ok
    path = app.state_file(facts.state_file)
    before = path.read_bytes()
    # The limit as it would stand once the state has grown to it (512 MiB is not built in a test).
    monkeypatch.setattr("agentic_kit.store.MAX_STATE_BYTES", len(before) + 10)
    result = app.run(*facts.write)
    assert (result.error_code, result.exit_status) == ("CONFLICT", 6)
    assert result.envelope["error"]["message"].startswith("The change would make the state file ")
    assert path.read_bytes() == before
    assert app.run(*facts.read).ok  # what is there still reads


def test_a_state_file_named_like_another_states_temp_file_is_refused_so_no_cleanup_can_take_it(
    app_runner: Callable[[str], AppRunner], tmp_path: Path
) -> None:
    todo, notes = app_runner("agentic-to-do"), app_runner("agentic-notes")
    shared = tmp_path / "shared"
    shared.mkdir()
    notes_state = shared / ".a.json.0123456789abcdef.tmp"  # the form of a temp file of a.json
    refused = notes.run("add", "x", env={"AGENTIC_NOTES_STATE_FILE": str(notes_state)})
    assert (refused.error_code, refused.exit_status) == ("VALIDATION_ERROR", 3)
    assert not notes_state.exists()
    assert todo.run("add", "x", env={"AGENTIC_TODO_STATE_FILE": str(shared / "a.json")}).ok
    assert sorted(path.name for path in shared.iterdir()) == ["a.json", "a.json.lock"]


# its time bound is seconds wide, far more than a test on the other core adds: not serial
def test_a_lock_file_that_cannot_be_made_is_a_state_io_error_at_once(app: AppRunner, facts: AppFacts) -> None:
    started = time.monotonic()
    # /proc/self exists and takes no new file; the wait for the lock would be 30 s.
    completed = run_guarded(
        app, facts.write, {"AGENTIC_STATE_DIR": "/proc/self", "AGENTIC_LOCK_TIMEOUT": "30"}
    )
    assert time.monotonic() - started < 30  # no wait for a lock nobody holds
    error = envelope_of(completed)["error"]
    assert (completed.returncode, error["code"]) == (9, "STATE_IO_ERROR")
    assert "/proc/self" in error["message"]
