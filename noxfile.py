"""Every task of the suite. `nox` runs the whole test suite on the Python that runs nox, the
contract and scenario tests on every other supported Python, lint, typecheck, check and docs; see README
for the rest."""

from __future__ import annotations

import functools
import os
import shutil
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import nox

# uv makes each session's virtualenv and installs into it, where it is installed (the README's test
# command installs it beside nox): some 2 s against pip's 28 for the tests session's install, on
# every session. Without uv, the standard library's venv and pip, with the same result.
nox.options.default_venv_backend = "uv|venv"
nox.options.error_on_missing_interpreters = True
nox.options.download_python = "never"  # an interpreter is found on this machine, never fetched
# Two sessions at a time where both allow it (`allow_parallel=True`: those that measure nothing):
# the light ones share the two cores while `tests`, whose serial pass needs the machine to itself,
# runs alone. Each session's output is printed whole when it ends.
nox.needs_version = ">=2026.8.10"  # the first nox that runs sessions in parallel
nox.options.parallel = 2

ROOT = Path(__file__).parent
PACKAGES = sorted(path.name for path in ROOT.glob("agentic-*") if (path / "APP.md").is_file())
PYTHONS = ("3.11", "3.12", "3.13")  # every Python the suite supports (requires-python >= 3.11)
RUNNING = f"{sys.version_info.major}.{sys.version_info.minor}"
# What every supported Python runs at least: the envelope contract, the scenarios' coverage of it,
# each package's own tests (its scenarios replayed in-process), the kit, the layout.
CONTRACT_TESTS = [
    "tests/contract",
    "tests/scenarios",
    "tests/kit",
    "tests/test_package_layout.py",
    *(f"{package}/tests" for package in PACKAGES),
]
# The floor of `nox -s coverage`, just under the figure measured on a full run (84% of lines and
# branches, 2,171 tests, 53 minutes on 2 loaded cores).
COVERAGE_FLOOR = 83
# The tests' own marker for those that measure concurrency, kills or time (pyproject's markers):
# they run in a pass of their own after the parallel one, with the machine to themselves.
SERIAL = "serial"
# Each test pass: both cores where tests are independent, and the 50 slowest tests named.
PARALLEL = ["-n", "auto", "--dist", "worksteal", "--durations=50"]


def timed(function: Callable[[nox.Session], None]) -> Callable[[nox.Session], None]:
    """A session that logs how long it took, in seconds, whether it passed or failed (nox's own
    summary rounds to words and says nothing under a second), and whose commands cache bytecode."""

    @functools.wraps(function)
    def run(session: nox.Session) -> None:
        # A machine may set PYTHONDONTWRITEBYTECODE (this one and CI's do): every process of the
        # session would then compile the kit, the apps, the toolkit and the tests anew at each
        # start. Empty, it is unset for Python: bytecode is cached beside each module (in
        # __pycache__/, which git ignores), as by default.
        session.env["PYTHONDONTWRITEBYTECODE"] = ""
        # uv, unlike pip, installs without compiling: compiled at install (on every core), the
        # first processes of a session do not each compile the same libraries at once.
        session.env["UV_COMPILE_BYTECODE"] = "1"
        started = time.monotonic()
        try:
            function(session)
        finally:
            session.log(f"{session.name} took {time.monotonic() - started:.1f} s")

    return run


def run_tests(session: nox.Session, paths: list[str]) -> None:
    """pytest over `paths` in two passes that between them run every test once: the independent
    tests on every core, then those marked serial alone. With arguments, pytest gets exactly those
    (one pass). Every pass must collect a test: pytest exits 5 when it collects none, and nox fails
    a session on any non-zero status, so an empty pass can never pass silently."""
    if session.posargs:
        session.run("pytest", *session.posargs)
        return
    session.run("pytest", *PARALLEL, "-m", f"not {SERIAL}", *paths)
    session.run("pytest", "--durations=50", "-m", SERIAL, *paths)


def find_python(version: str) -> str | None:
    """An interpreter of `version` that runs: python<version> on PATH first, then each of
    pyenv's versions/<version>.* (pyenv's shims on PATH fail for a version not selected)."""
    name = f"python{version}"
    candidates = [shutil.which(name)]
    pyenv = shutil.which("pyenv")
    root = os.environ.get("PYENV_ROOT") or (
        subprocess.run([pyenv, "root"], capture_output=True, text=True).stdout.strip() if pyenv else ""
    )
    root_path = Path(root) if root else Path.home() / ".pyenv"
    candidates += [str(path) for path in sorted((root_path / "versions").glob(f"{version}.*/bin/{name}"))]
    for candidate in candidates:
        if candidate and _runs_as(candidate, version):
            return candidate
    return None


def _runs_as(interpreter: str, version: str) -> bool:
    probe = "import sys; print('%d.%d' % sys.version_info[:2])"
    try:
        ran = subprocess.run([interpreter, "-c", probe], capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.SubprocessError):
        return False
    return ran.returncode == 0 and ran.stdout.strip() == version


def _contract_session(version: str) -> Callable[[nox.Session], None]:
    interpreter = find_python(version)

    def contract(session: nox.Session) -> None:
        if interpreter is None:
            # Never a quiet pass: CI (CI set) fails; elsewhere the summary says what was not covered.
            message = (
                f"Python {version} NOT COVERED: no python{version} that runs, on PATH or under pyenv's "
                f"versions/{version}.*; install one (for example `pyenv install {version}`)."
            )
            if os.environ.get("CI"):
                session.error(message)
            session.skip(message)
        session.install("-e", ".[test]")
        run_tests(session, CONTRACT_TESTS)

    contract.__doc__ = (
        f"The contract and scenario tests on Python {version} ({interpreter or 'not found here'})."
    )
    return nox.session(name=f"contract-{version}", python=interpreter or False, allow_parallel=True)(
        timed(contract)
    )


OTHER_PYTHONS = [version for version in PYTHONS if version != RUNNING]
CONTRACT_SESSIONS = [f"contract-{version}" for version in OTHER_PYTHONS]
for _version in OTHER_PYTHONS:
    _contract_session(_version)
nox.options.sessions = ["tests", *CONTRACT_SESSIONS, "lint", "typecheck", "check", "docs"]


@nox.session
@timed
def tests(session: nox.Session) -> None:
    """Every test, on the Python that runs nox: kit, harness, contract, each app in-process and as
    real processes, each package's own tests, and the conformance cases through agentapps, the
    minimal Node.js runtime and the wrong adapters."""
    session.install("-e", ".[test]")
    run_tests(session, [])  # no path: pyproject's testpaths, every test of the suite


@nox.session
@timed
def coverage(session: nox.Session) -> None:
    """The whole suite under coverage.py, on the Python that runs nox: the toolkit's and the kit's
    lines and branches run in the test process, held to COVERAGE_FLOOR. Not a default session: it
    runs every test again, slower."""
    session.install("-e", ".[test]")
    session.run("coverage", "erase")
    session.run("coverage", "run", "-m", "pytest", *session.posargs)
    session.run("coverage", "report", f"--fail-under={COVERAGE_FLOOR}")


@nox.session(allow_parallel=True)
@timed
def lint(session: nox.Session) -> None:
    """ruff check and ruff format --check (the vendored kit copies are excluded: they are generated)."""
    session.install(".[lint]")
    session.run("ruff", "check", ".")
    session.run("ruff", "format", "--check", ".")


@nox.session(allow_parallel=True)
@timed
def typecheck(session: nox.Session) -> None:
    """mypy --strict on the shared code, the tests (the suite's and each package's), the benchmark
    and this file, then on each package's app/ on its own path."""
    session.install("-e", ".[test,typecheck]")  # the tests' and the benchmark's imports need types too
    session.run(
        "mypy", "shared", "tests", "bench", "noxfile.py", *(f"{package}/tests" for package in PACKAGES)
    )
    for package in PACKAGES:
        app_dir = ROOT / package / "app"
        session.run("mypy", str(app_dir), env={"MYPYPATH": str(app_dir)})


@nox.session(allow_parallel=True)
@timed
def check(session: nox.Session) -> None:
    """`agentapps check` on every package: no errors and no warnings allowed."""
    session.install("-e", ".")
    session.run("agentapps", "check", *PACKAGES, "--human")


@nox.session(allow_parallel=True)
@timed
def docs(session: nox.Session) -> None:
    """The docs/ pages built as a site with mkdocs (mkdocs.yml), strict: a broken link or anchor,
    or a page left out of the navigation, fails. The site lands in .site/ (git-ignored). Never
    --quiet: it hides the warnings strict mode counts, and the build would pass."""
    session.install(".[docs]")
    session.run("mkdocs", "build", "--strict", env={"NO_MKDOCS_2_WARNING": "1"})


@nox.session
@timed
def replay(session: nox.Session) -> None:
    """Replay every package's scenarios (<package>/scenarios/) through real processes; arguments go
    to `agentapps replay` (for example `-- --runtime "node my-runtime.js"` to replay through another
    runtime)."""
    session.install("-e", ".")
    folders = [f"{package}/scenarios" for package in PACKAGES]
    session.run("agentapps", "replay", *folders, "--jobs", "2", "--human", *session.posargs)


@nox.session(name="newest-typer")
@timed
def newest_typer(session: nox.Session) -> None:
    """Install the newest typer the registry serves (pyproject bounds it below only) and replay
    every package's scenarios through real processes on it. Not a default session: it replays
    every scenario through a process, as `replay` does."""
    session.install("-e", ".")
    session.install("--upgrade", "typer")
    session.run("python", "-c", "import typer; print('typer', typer.__version__)")
    folders = [f"{package}/scenarios" for package in PACKAGES]
    session.run("agentapps", "replay", *folders, "--jobs", "2", "--human", *session.posargs)


@nox.session
@timed
def conformance(session: nox.Session) -> None:
    """The runtime conformance cases through agentapps (every case) and through the minimal Node.js
    runtime (every case the seed requires); arguments go to `agentapps conformance` instead (for
    example `-- --runtime "node my-adapter.mjs"` for another runtime's adapter)."""
    session.install("-e", ".")
    if session.posargs:
        session.run("agentapps", "conformance", "--jobs", "2", "--human", *session.posargs)
        return
    session.run("agentapps", "conformance", "--runtime", "agentapps", "--jobs", "2", "--human")
    node = "node conformance/adapters/minimal-runtime.mjs"
    session.run("agentapps", "conformance", "--runtime", node, "--required", "--jobs", "2", "--human")


@nox.session
@timed
def sync(session: nox.Session) -> None:
    """Re-copy shared/agentic_kit into every package and regenerate every schemas/ folder."""
    session.install("-e", ".")
    session.run("agentapps", "sync", *PACKAGES, "--human")


@nox.session
@timed
def bench(session: nox.Session) -> None:
    """Time every app against the stack's floor T (bench/floor.py), cold and through MCP (warm and
    --cold); writes bench/results.md. Not a default session: it measures, it asserts nothing."""
    session.install(".[mcp]")
    session.run("python", "bench/run.py", *session.posargs)


@nox.session
@timed
def demo(session: nox.Session) -> None:
    """Run agentic-to-do for real: add a to-do, then list it, printing each JSON envelope. Each run
    starts from an empty state folder, so a second run shows what the first did, not both."""
    session.install(".")
    state_dir = Path(session.create_tmp()).resolve() / "demo-state"
    shutil.rmtree(state_dir, ignore_errors=True)  # nox keeps its tmp folder from run to run
    env = {"AGENTIC_STATE_DIR": str(state_dir)}
    session.chdir(ROOT / "agentic-to-do")  # a runtime runs entry.command from the package root
    session.log(f"state folder: {state_dir}")
    session.run("python3", "app/cli.py", "add", "Write the docs", "--due-at", "2026-12-31", env=env)
    session.run("python3", "app/cli.py", "list", env=env)
