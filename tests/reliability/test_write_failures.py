"""Writes that the disk or the permissions refuse: STATE_IO_ERROR, the previous state intact,
no temp file left behind."""

from __future__ import annotations

import resource
import stat
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from agentapps.harness import AppRunner
from agentapps.output import check_output
from tests.packages import AppFacts
from tests.reliability.conftest import child_environment


def seeded(app: AppRunner, facts: AppFacts) -> bytes:
    assert app.run(*facts.write).ok
    return app.state_file(facts.state_file).read_bytes()


def test_a_full_disk_is_a_state_io_error_and_leaves_the_state_whole(app: AppRunner, facts: AppFacts) -> None:
    before = seeded(app, facts)
    limit = len(before) + 20  # one more entity does not fit

    def limit_file_size() -> None:
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))

    completed = subprocess.run(
        [sys.executable, "app/cli.py", *facts.write],
        cwd=app.package.root,
        env=child_environment(app.state_dir),
        preexec_fn=limit_file_size,  # the child only sets a limit, then runs the app
        capture_output=True,
        text=True,
        check=False,
    )
    invocation = check_output(
        app.package, [facts.write[0]], completed.returncode, completed.stdout, completed.stderr
    )
    assert invocation.violations == []
    assert invocation.envelope is not None
    assert (invocation.exit_status, invocation.envelope["error"]["code"]) == (9, "STATE_IO_ERROR")
    assert app.state_file(facts.state_file).read_bytes() == before
    assert sorted(path.name for path in app.state_dir.iterdir()) == [
        facts.state_file,
        facts.state_file + ".lock",
    ]


@pytest.fixture
def read_only(app: AppRunner, facts: AppFacts, request: pytest.FixtureRequest) -> Iterator[Path]:
    """The state file, or its folder, with every write bit removed (restored afterwards)."""
    seeded(app, facts)
    path = app.state_file(facts.state_file) if request.param == "file" else app.state_dir
    mode = stat.S_IMODE(path.stat().st_mode)
    path.chmod(mode & ~0o222)
    yield path
    path.chmod(mode)


@pytest.mark.parametrize("read_only", ["file", "folder"], indirect=True)
def test_a_read_only_state_is_a_state_io_error_and_changes_nothing(
    app: AppRunner, facts: AppFacts, read_only: Path
) -> None:
    state_file = app.state_file(facts.state_file)
    before = state_file.read_bytes()
    result = app.run(*facts.write)
    assert (result.error_code, result.exit_status) == ("STATE_IO_ERROR", 9)
    assert "read-only" in result.envelope["error"]["message"]
    assert state_file.read_bytes() == before
    assert sorted(path.name for path in app.state_dir.iterdir()) == [
        facts.state_file,
        facts.state_file + ".lock",
    ]
    assert app.run(*facts.read).ok  # reading a read-only state is fine


@pytest.fixture
def read_only_folder(tmp_path: Path) -> Iterator[Path]:
    """An empty folder with every write bit removed (restored afterwards)."""
    folder = tmp_path / "read-only"
    folder.mkdir()
    folder.chmod(0o555)
    yield folder
    folder.chmod(0o755)


def test_a_read_only_folder_gets_no_lock_file_and_no_state(
    app: AppRunner, facts: AppFacts, read_only_folder: Path
) -> None:
    result = app.run(*facts.write, env={"AGENTIC_STATE_DIR": str(read_only_folder)})
    assert (result.error_code, result.exit_status) == ("STATE_IO_ERROR", 9)
    assert result.envelope["error"]["message"] == (
        f"Cannot write state file {read_only_folder / facts.state_file}: "
        f"the folder {read_only_folder} is read-only."
    )
    assert list(read_only_folder.iterdir()) == []  # not even a lock file


def test_a_state_folder_is_not_made_inside_a_read_only_one(
    app: AppRunner, facts: AppFacts, read_only_folder: Path
) -> None:
    result = app.run(*facts.write, env={"AGENTIC_STATE_DIR": str(read_only_folder / "sub" / "state")})
    assert (result.error_code, result.exit_status) == ("STATE_IO_ERROR", 9)
    assert f"the folder {read_only_folder} is read-only" in result.envelope["error"]["message"]
    assert list(read_only_folder.iterdir()) == []
