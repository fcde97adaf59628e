"""The pytest harness: run a package the way a runtime does, with its own isolated state.

Every app test goes through `AppRunner`:
- `run(...)` runs the app in-process (fast; its clock is AGENTIC_NOW when set, else the wall
  clock, which a test may move with freezegun: tests/apps/test_clock.py),
- `run_subprocess(...)` runs `entry.command` for real through the runtime's `invoke`.
Both read the APP.md frontmatter first, parse stdout as the envelope, and fail the test on any
contract violation: not one JSON document, exit status disagreeing with `ok` or with the code
table, or an envelope that does not match the package's schemas/.

`in_process_runtime` is the same in-process run as a scenario runtime (see runtimes.py), so
scenario files replay in pytest as fast as hand-written tests, each as its own test.

Installing the suite registers it as a pytest plugin (entry point `pytest11`), so its fixtures
are there in any test run.
"""

from __future__ import annotations

import contextlib
import io
import os
import shlex
import sys
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from agentic_kit import runner
from agentic_kit.app import AgenticApp
from agentic_kit.errors import EXIT_STATUS, ErrorCode

from .environment import package_environment, without_agentic
from .output import Invocation, Problem, check_output
from .package import Package
from .runtime import invoke
from .scenarios import PINNED_ZONE, ZONE_ENV
from .sync import package_app


class ContractViolation(AssertionError):
    """The app broke the CLI contract; the test fails whatever it meant to check."""


@dataclass
class Result:
    """What a runtime sees of one run: exit status and envelope (plus raw streams)."""

    exit_status: int
    envelope: dict[str, Any]
    stdout: str
    stderr: str

    @property
    def ok(self) -> bool:
        return self.envelope["ok"] is True

    @property
    def item(self) -> dict[str, Any]:
        return self.envelope["item"]  # type: ignore[no-any-return]

    @property
    def items(self) -> list[dict[str, Any]]:
        return self.envelope["items"]  # type: ignore[no-any-return]

    @property
    def error_code(self) -> str | None:
        return self.envelope["error"]["code"] if not self.ok else None


@dataclass
class HumanOutput:
    exit_status: int
    stdout: str


class AppRunner:
    """One package with a private state folder; every call is checked against the contract."""

    def __init__(self, package_dir: Path, state_dir: Path) -> None:
        self.package = Package(package_dir)
        self.state_dir = state_dir
        # The zone is pinned like the state folder, so no test depends on the machine's own.
        self.env: dict[str, str] = {"AGENTIC_STATE_DIR": str(state_dir), ZONE_ENV: PINNED_ZONE}

    def state_file(self, name: str) -> Path:
        return self.state_dir / name

    def run(self, *args: str, stdin: str | None = None, env: Mapping[str, str] | None = None) -> Result:
        """Run in this process: the entry script's module is loaded once and called directly."""
        status, stdout, stderr = self._run_in_process(list(args), stdin, env)
        return self._checked(check_output(self.package, list(args), status, stdout, stderr))

    def run_human(self, *args: str, env: Mapping[str, str] | None = None) -> HumanOutput:
        """Run in-process with --human: the text and exit status, with no JSON to check."""
        return self.run_text(*args, "--human", env=env)

    def run_text(self, *args: str, env: Mapping[str, str] | None = None) -> HumanOutput:
        """Run in-process exactly these arguments (--human wherever the test puts it): the text
        and exit status, with no JSON to check."""
        status, stdout, stderr = self._run_in_process(list(args), None, env)
        if "Traceback (most recent call last)" in stderr:
            raise ContractViolation(f"stderr shows a Python traceback: {stderr}")
        return HumanOutput(status, stdout)

    def _run_in_process(
        self, args: list[str], stdin: str | None, env: Mapping[str, str] | None
    ) -> tuple[int, str, str]:
        return _run_app(self._app(), args, stdin, self._environment(env), cwd=self.package.root)

    def run_subprocess(
        self, *args: str, stdin: str | None = None, env: Mapping[str, str] | None = None
    ) -> Result:
        """Run `entry.command` from the package root as a real process, like a runtime (with the
        runtime's allow-listed environment)."""
        full_env = package_environment(overrides=self._environment(env), inherit_agentic=False)
        return self._checked(invoke(self.package, list(args), env=full_env, stdin=stdin))

    def _environment(self, extra: Mapping[str, str] | None) -> dict[str, str]:
        return {**self.env, **(extra or {})}

    def _app(self) -> AgenticApp:
        # In this process `agentic_kit` is already the installed shared/ one, so in-process runs
        # use it rather than the package's copy; the drift test keeps the two byte-identical, and
        # run_subprocess exercises the copy.
        try:
            return package_app(self.package.root)
        except ValueError as error:
            raise ContractViolation(str(error)) from None

    def _checked(self, invocation: Invocation) -> Result:
        violations = [*invocation.violations, *_suite_violations(invocation)]
        envelope = invocation.envelope
        if violations or envelope is None:
            raise ContractViolation(
                f"{shlex.join(invocation.args)}: "
                + " ".join(map(str, violations))
                + f"\nstdout: {invocation.stdout!r}"
            )
        return Result(invocation.exit_status, envelope, invocation.stdout, invocation.stderr)


def _suite_violations(invocation: Invocation) -> list[Problem]:
    """What this suite asks beyond the format: what the format only recommends (`ok` on success,
    a structured JSON error on failure), error codes from the shared table with their exit
    statuses, a hint on every error that says how to fix the call, and no Python traceback on
    stderr."""
    violations = list(invocation.warnings)
    envelope = invocation.envelope
    if envelope is not None and not envelope["ok"]:
        code = envelope.get("error", {}).get("code")
        expected = EXIT_STATUS.get(ErrorCode(code)) if code in ErrorCode.__members__ else None
        if expected is None:
            violations.append(Problem("suite.error-code", f"error code {code!r} is not in the code table."))
        elif invocation.exit_status != expected:
            violations.append(
                Problem("suite.error-code", f"{code} must exit {expected}, not {invocation.exit_status}.")
            )
        hint = envelope.get("error", {}).get("hint")
        if not isinstance(hint, str) or not hint.strip():
            violations.append(Problem("suite.error-hint", f"{code} has no hint saying how to fix the call."))
    if "Traceback (most recent call last)" in invocation.stderr:
        violations.append(Problem("suite.traceback", "stderr shows a Python traceback."))
    return violations


def in_process_runtime(root: Path, args: list[str], stdin: str, env: dict[str, str]) -> Invocation:
    """A scenario runtime (agentapps.runtimes.Runtime) that runs the package's entry script in this
    process: fast, and held to the suite's own checks as well as the format's."""
    package = Package(root)
    status, stdout, stderr = _run_app(package_app(root), args, stdin, env, cwd=root)
    invocation = check_output(package, args, status, stdout, stderr)
    invocation.violations += _suite_violations(invocation)
    return invocation


def _run_app(
    app: AgenticApp, args: list[str], stdin: str | None, env: Mapping[str, str], cwd: Path
) -> tuple[int, str, str]:
    """One run of a package's app from `cwd`, the package root, as a runtime runs it (relative
    paths in settings then mean what they mean there)."""
    out, err = io.StringIO(), io.StringIO()
    with (
        _environment(env),
        _stdin(stdin),
        contextlib.redirect_stdout(out),
        contextlib.redirect_stderr(err),
        contextlib.chdir(cwd),
    ):
        status = runner.run(app, args)
    return int(status), out.getvalue(), err.getvalue()


@contextlib.contextmanager
def _environment(values: Mapping[str, str]) -> Iterator[None]:
    saved = dict(os.environ)
    os.environ.clear()
    os.environ.update(without_agentic(saved))  # no AGENTIC_* setting leaks in from the test process
    os.environ.update(values)
    try:
        yield
    finally:
        os.environ.clear()
        os.environ.update(saved)


@contextlib.contextmanager
def _stdin(text: str | None) -> Iterator[None]:
    saved = sys.stdin
    # Like a real stdin: text on top of a byte buffer, so apps can read either.
    sys.stdin = io.TextIOWrapper(io.BytesIO((text or "").encode()), encoding="utf-8", newline="")
    try:
        yield
    finally:
        sys.stdin = saved


@pytest.fixture
def app_runner(request: pytest.FixtureRequest, tmp_path: Path) -> Callable[[str], AppRunner]:
    """A factory: `app_runner("agentic-to-do")` gives that package (a folder under the pytest
    root) with a fresh state folder of its own."""

    def make(package: str) -> AppRunner:
        root = request.config.rootpath / package  # an absolute path stays as it is
        return AppRunner(root, tmp_path / f"{root.name}-state")

    return make
