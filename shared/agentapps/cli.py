"""`agentapps`: the reference runtime and checker on the command line.

Same envelope rules as the apps: one JSON document on stdout, `--human` for text, the exit
status from the code table (the apps' codes plus the toolkit's, in errors.py).

  catalog [ROOT]...                 tier 1: every package under the roots, from frontmatter only
  activate PKG                      tier 2: the APP.md body and every listed skill
  run PKG [--approve] [--timeout S] -- ARGS...
                                    tier 3: run the package's entry command, relay its envelope
  check PKG...                      conformance findings for each package
  new SLUG [--name] [--description] [--dir]
                                    a new, conformant package to start from
  sync PKG...                       refresh a package's vendored kit and schemas/
  replay [--runtime CMD] PATH...    replay scenarios (scenarios.py) and say, per step, what differs
  mcp [ROOT]...                     serve the packages over MCP on stdio (mcp_server.py)
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from agentic_kit import runner
from agentic_kit.envelope import Passthrough, Payload, item_payload, list_payload
from agentic_kit.errors import AppError, ErrorCode

from . import human
from .errors import CHECK_FAILED, CONTRACT_VIOLATION, PACKAGE_INVALID, SCENARIO_FAILED, TIMEOUT, toolkit_error
from .manifest import ManifestError
from .runtime import Package, RunTimedOut, activate, catalog_entry, discover, invoke, trust_level

app = runner.new_app(
    "agentapps: discover, activate, run, check and create Agent Applications packages. "
    "`agentapps mcp [ROOT]...` serves them over MCP on stdio."
)

PackagePath = Annotated[Path, typer.Argument(metavar="PKG", help="A package folder (it holds APP.md).")]


def load_package(path: Path) -> Package:
    if not (path / "APP.md").is_file():
        raise AppError(
            ErrorCode.NOT_FOUND, f"No package at {path}: it has no APP.md.", "Run `catalog` to find packages."
        )
    package = Package(path.resolve())
    try:
        package.manifest  # noqa: B018 - parse now, so a broken package is reported here
    except ManifestError as error:
        raise toolkit_error(PACKAGE_INVALID, str(error), "Run `check` on it for every problem.") from None
    return package


@app.command()
def catalog(
    roots: Annotated[
        list[Path] | None, typer.Argument(metavar="ROOT...", help="Folders to search (default: .).")
    ] = None,
) -> Payload:
    """List every package under the roots from its frontmatter alone; broken ones say why."""
    for root in roots or []:
        if not root.is_dir():
            raise AppError(ErrorCode.NOT_FOUND, f"{root} is not a folder.")
    return list_payload([catalog_entry(path) for path in discover(roots or [Path(".")])])


@app.command("activate")
def activate_package(package: PackagePath) -> Payload:
    """Load the full contract of one package: its APP.md body and every listed skill."""
    try:
        return item_payload(activate(load_package(package)))
    except ManifestError as error:
        raise toolkit_error(PACKAGE_INVALID, str(error), "Run `check` on it for every problem.") from None


@app.command()
def run(
    package: PackagePath,
    args: Annotated[
        list[str] | None, typer.Argument(metavar="-- ARGS...", help="The command line for the app.")
    ] = None,
    approve: Annotated[bool, typer.Option("--approve", help="The user approved this run.")] = False,
    timeout: Annotated[float, typer.Option(min=0.1, help="Seconds before the run is killed.")] = 60.0,
) -> Passthrough:
    """Run the package's entry command with ARGS and relay its envelope, if it keeps the contract.

    Needs --approve for a command listed in confirmationRequired, and for any run of an
    untrusted package.
    """
    loaded = load_package(package)
    argv = args or []
    command = argv[0] if argv else None
    if not approve and trust_level(loaded.root) == "untrusted":
        raise AppError(
            ErrorCode.CONFIRMATION_REQUIRED,
            f"{loaded.root} is untrusted: running it needs the user's approval.",
            "Ask the user, then run again with --approve (or add its folder to AGENTAPPS_TRUSTED).",
        )
    if not approve and command in loaded.manifest.confirmation_required:
        raise AppError(
            ErrorCode.CONFIRMATION_REQUIRED,
            f"{command} is in confirmationRequired: the runtime needs the user's approval.",
            "Ask the user, then run again with --approve (the app may want its own flag too).",
        )
    try:
        invocation = invoke(loaded, argv, timeout=timeout)
    except RunTimedOut as error:
        raise toolkit_error(
            TIMEOUT, f"{error}; it was killed.", "Raise --timeout if the command is slow."
        ) from None
    except OSError as error:
        raise toolkit_error(CONTRACT_VIOLATION, f"entry.command cannot start: {error}.") from None
    if invocation.violations or invocation.envelope is None:
        raise toolkit_error(
            CONTRACT_VIOLATION,
            f"The app broke the CLI contract: {' '.join(invocation.violations)}",
            details={
                "violations": invocation.violations,
                "exitStatus": invocation.exit_status,
                "stdout": invocation.stdout[:2000],
                "stderr": invocation.stderr[:2000],
            },
        )
    return Passthrough(invocation.envelope, invocation.exit_status)


@app.command()
def check(
    packages: Annotated[list[Path], typer.Argument(metavar="PKG...", help="Package folders to check.")],
    timeout: Annotated[float, typer.Option(min=0.1, help="Seconds each run of a package may take.")] = 30.0,
) -> Payload:
    """Check packages against the v1 contract; any error fails the check."""
    from .check import check_package

    reports = [check_package(path.resolve(), timeout=timeout).as_dict() for path in packages]
    failed = [report for report in reports if not report["passed"]]
    if failed:
        errors = sum(report["errors"] for report in failed)
        raise toolkit_error(
            CHECK_FAILED,
            f"{errors} error{'s' if errors != 1 else ''} in {len(failed)} of {len(reports)} package(s).",
            "Each finding names its rule; see `agentapps check --help` and the README.",
            details={"items": reports},
        )
    return list_payload(reports)


@app.command(mutates=True)
def new(
    slug: Annotated[str, typer.Argument(help="The package's slug, kebab-case: my-bookmarks.")],
    name: Annotated[str | None, typer.Option(help="Display name (default: from the slug).")] = None,
    description: Annotated[str | None, typer.Option(help="One sentence: what it keeps and when.")] = None,
    directory: Annotated[Path, typer.Option("--dir", help="Where to create SLUG/ (default: .).")] = Path("."),
) -> Payload:
    """Create SLUG/: a conformant package with APP.md, app/, a skill, schemas/ and a test."""
    from .scaffold import create_package

    root, files = create_package(slug, name, description, directory)
    return item_payload({"source": str(root.resolve()), "files": [str(path) for path in files]})


@app.command("sync", mutates=True)
def sync_packages(
    packages: Annotated[list[Path], typer.Argument(metavar="PKG...", help="Package folders to refresh.")],
) -> Payload:
    """Refresh each package's vendored kit (app/agentic_kit/) and schemas/; say what changed."""
    from .sync import sync

    for package in packages:
        load_package(package)
    return list_payload(
        [
            {"source": str(package.resolve()), "changed": [str(path) for path in sync(package)]}
            for package in packages
        ]
    )


@app.command()
def replay(
    paths: Annotated[
        list[Path], typer.Argument(metavar="PATH...", help="Scenario files, or folders of them.")
    ],
    runtime: Annotated[
        str | None,
        typer.Option(
            metavar="CMD",
            help="Replay through this runtime instead of the built-in one: it is run as "
            "`CMD PACKAGE_PATH ARG...` with each step's stdin and environment, and must relay "
            "the app's stdout and exit status.",
        ),
    ] = None,
    packages: Annotated[
        Path | None,
        typer.Option(help="The folder holding the packages (default: found beside the scenarios)."),
    ] = None,
    timeout: Annotated[float, typer.Option(min=0.1, help="Seconds each step may take.")] = 60.0,
    jobs: Annotated[int, typer.Option(min=1, max=64, help="Scenarios replayed side by side.")] = 1,
) -> Payload:
    """Replay scenarios step by step; any difference fails the replay and says where and what."""
    from .scenarios import (
        ScenarioError,
        builtin_runtime,
        command_runtime,
        load_scenario,
        replay_all,
        scenario_files,
    )

    for path in paths:
        if not path.exists():
            raise AppError(ErrorCode.NOT_FOUND, f"No scenario at {path}.")
    files = scenario_files(paths)
    if not files:
        raise AppError(ErrorCode.NOT_FOUND, "No scenario files (*.json) under the paths given.")
    if packages is not None and not packages.is_dir():
        raise AppError(ErrorCode.NOT_FOUND, f"{packages} is not a folder.")
    try:
        scenarios = [load_scenario(path) for path in files]
    except ScenarioError as error:
        raise AppError(
            ErrorCode.VALIDATION_ERROR, str(error), "Check it against scenario.schema.json."
        ) from None
    chosen = builtin_runtime(timeout) if runtime is None else command_runtime(runtime, timeout)
    run = replay_all(scenarios, chosen, packages=packages, jobs=jobs)
    reports = [report.as_dict() for report in run.reports]
    if run.failed:
        first = run.failed[0].summary()
        raise toolkit_error(
            SCENARIO_FAILED,
            f"{len(run.failed)} of {len(reports)} scenarios failed. First: {first}",
            "Each failed scenario names its step and every difference; --human prints them all.",
            details={"items": reports},
        )
    return list_payload(reports)


def serve_mcp(roots: list[Path]) -> None:
    """Serve the packages under the roots over MCP on stdio (see mcp_server.py). It speaks the
    protocol on stdout, so it runs outside the envelope runner."""
    import anyio

    from .mcp_server import serve

    anyio.run(serve, roots or [Path(".")])


def main() -> None:
    """The console script."""
    import sys

    if sys.argv[1:2] == ["mcp"]:  # `agentapps mcp [ROOT]...`: stdout belongs to the protocol
        serve_mcp([Path(root) for root in sys.argv[2:]])
        return
    runner.main(app, render=human.render)
