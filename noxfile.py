"""Every task of the suite. `nox` runs tests, lint and typecheck; see README for the rest."""

from __future__ import annotations

from pathlib import Path

import nox

nox.options.sessions = ["tests", "lint", "typecheck", "check"]
nox.options.default_venv_backend = "venv"
nox.options.error_on_missing_interpreters = True

ROOT = Path(__file__).parent
PACKAGES = sorted(path.name for path in ROOT.glob("agentic-*") if (path / "APP.md").is_file())


@nox.session
def tests(session: nox.Session) -> None:
    """Every test: kit, harness, contract, each app in-process and as real processes, and the
    conformance cases through agentapps, the minimal Node.js runtime and the wrong adapters."""
    session.install("-e", ".[test]")
    # pytest exits 5 when it collects nothing; nox fails on any non-zero status, so an empty run fails.
    session.run("pytest", *session.posargs)


@nox.session
def lint(session: nox.Session) -> None:
    """ruff check and ruff format --check (the vendored kit copies are excluded: they are generated)."""
    session.install(".[lint]")
    session.run("ruff", "check", ".")
    session.run("ruff", "format", "--check", ".")


@nox.session
def typecheck(session: nox.Session) -> None:
    """mypy --strict on the shared code and tests, then on each package's app/ on its own path."""
    session.install("-e", ".[test,typecheck]")  # the tests' own imports need types too
    session.run("mypy", "shared", "tests", "noxfile.py")
    for package in PACKAGES:
        app_dir = ROOT / package / "app"
        session.run("mypy", str(app_dir), env={"MYPYPATH": str(app_dir)})


@nox.session
def check(session: nox.Session) -> None:
    """`agentapps check` on every package: no errors and no warnings allowed."""
    session.install("-e", ".")
    session.run("agentapps", "check", *PACKAGES, "--human")


@nox.session
def replay(session: nox.Session) -> None:
    """Replay every package's scenarios (<package>/scenarios/) through real processes; arguments go
    to `agentapps replay` (for example `-- --runtime "node my-runtime.js"` to replay through another
    runtime)."""
    session.install("-e", ".")
    folders = [f"{package}/scenarios" for package in PACKAGES]
    session.run("agentapps", "replay", *folders, "--jobs", "2", "--human", *session.posargs)


@nox.session
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
def sync(session: nox.Session) -> None:
    """Re-copy shared/agentic_kit into every package and regenerate every schemas/ folder."""
    session.install("-e", ".")
    session.run("agentapps", "sync", *PACKAGES, "--human")


@nox.session
def bench(session: nox.Session) -> None:
    """Time every app against the stack's floor T (bench/floor.py), cold and through MCP (warm and
    --cold); writes bench/results.md. Not a default session: it measures, it asserts nothing."""
    session.install(".[mcp]")
    session.run("python", "bench/run.py", *session.posargs)


@nox.session
def demo(session: nox.Session) -> None:
    """Run agentic-to-do for real: add a to-do, then list it, printing each JSON envelope."""
    session.install(".")
    state_dir = Path(session.create_tmp()).resolve() / "demo-state"
    env = {"AGENTIC_STATE_DIR": str(state_dir)}
    session.chdir(ROOT / "agentic-to-do")  # a runtime runs entry.command from the package root
    session.log(f"state folder: {state_dir}")
    session.run("python3", "app/cli.py", "add", "Write the docs", "--due-at", "2026-12-31", env=env)
    session.run("python3", "app/cli.py", "list", env=env)
