"""`agentapps`: the reference runtime and checker on the command line.

Same envelope rules as the apps: one JSON document on stdout, `--human` for text, the exit
status from the code table (the apps' codes plus the toolkit's, in errors.py).

  catalog [ROOT]... [--tag T]... [--fixtures]
                                    tier 1: every package under the roots, from frontmatter only
  activate PKG                      tier 2: the APP.md frontmatter and body, every listed skill
  run PKG [OPTIONS] -- COMMAND ARGS...
                                    tier 3: run the package's entry command, relay its document
  check PKG... [OPTIONS]            conformance findings for each package
  new SLUG [--name] [--description] [--dir]
                                    a new, conformant package to start from
  sync PKG... [--approve]           refresh a package's vendored kit, schemas/, APP.md's Commands
  replay [--runtime warm|cold|CMD] [--level seed|suite] [OPTIONS] PATH...
                                    replay scenarios (replay.py) and say, per step, what differs
  conformance --runtime CMD [--required] [CASES...]
                                    run the runtime conformance cases through an adapter
                                    (conformance/) and say, per case, pass or what differs
  mcp [OPTIONS] [--cold] [--strict-schemas] [--only TOOL] [--http [HOST:]PORT] [ROOT]...
                                    serve the packages over MCP on stdio (mcp_server.py), or
                                    Streamable HTTP with a bearer token (mcp_http.py); Python
                                    packages run warm (warm.py) unless --cold

OPTIONS of every command that runs package code: --approve, --env NAME, --timeout SECONDS,
--max-output BYTES. Before anything runs, each applies the same gates (gates.py: trust, and
for run and mcp the confirmation gate) and checks its numbers."""

from __future__ import annotations

import contextlib
import enum
import math
import os
import re
import shlex
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from agentic_kit import runner
from agentic_kit.envelope import Payload, item_payload, list_payload
from agentic_kit.errors import AppError, ErrorCode, validation_error
from agentic_kit.hints import shell_word
from agentic_kit.human import safe
from agentic_kit.text import quoted, shortened, undecodable_byte

from .catalog import activate, catalog_entry, discover
from .environment import check_names, package_environment
from .errors import (
    CHECK_FAILED,
    CONFORMANCE_FAILED,
    PACKAGE_INVALID,
    SCENARIO_FAILED,
    SUITE_CASES_FAILED,
    ToolkitError,
    toolkit_error,
)
from .gates import missing_confirm_flag, require_confirmation, require_trust
from .manifest import ManifestError
from .package import Package
from .passthrough import Passthrough, ToolkitApp
from .process import Interrupted, end_by
from .run_options import (
    DESCRIBE,
    command_entry,
    mentions_runtime_options,
    misplaced_options,
    refused_as_usage,
    runtime_hint,
    with_runtime_hint,
)
from .runtime import DEFAULT_MAX_OUTPUT, DEFAULT_TIMEOUT, MAX_TIMEOUT, RunOptions, run_and_relay
from .suite import default_packages, state_dir_for, state_overrides, suite_apps
from .warm import WarmRuntime

if TYPE_CHECKING:
    from .mcp_http import HttpListen

PROGRAM = "agentapps"
DESCRIBE_TIMEOUT = 10.0  # seconds for the describe a refused call reads its hint from


app = ToolkitApp(
    "agentapps: discover, activate, run, check and create Agent Applications packages. "
    "`agentapps mcp [ROOT]...` serves them over MCP on stdio."
)

MIN_TIMEOUT = 0.1
# `replay --runtime` names the built-in runtime's two ways of running a package by these words.
WARM, COLD = "warm", "cold"
MAX_OUTPUT_LIMIT = 1024 * 1024 * 1024


class ScenarioLevel(enum.StrEnum):
    """`replay --level`: a scenario's `level` (scenario.schema.json)."""

    SEED = "seed"
    SUITE = "suite"


# Seconds as --timeout takes them: ASCII digits, with a decimal point or not (not 1e3, 1_0, ` 30`,
# which Python's float reads too: found by an outside review, `--timeout 1_0` ran as 10).
_SECONDS = re.compile(r"[0-9]+(?:\.[0-9]*)?|\.[0-9]+")


def _seconds(value: str | float) -> float:
    """Checked before anything runs: digits with a decimal point or not, finite, and within
    [MIN_TIMEOUT, MAX_TIMEOUT]. The parser of every --timeout, so a refusal shows the value as
    given (a default arrives as a float)."""
    seconds = float(value) if not isinstance(value, str) or _SECONDS.fullmatch(value) else math.nan
    if not math.isfinite(seconds) or not MIN_TIMEOUT <= seconds <= MAX_TIMEOUT:
        raise _bad_value(
            "--timeout",
            value,
            f"is not a number of seconds from {MIN_TIMEOUT:g} to {MAX_TIMEOUT:g}.",
            "Give --timeout a number of seconds (a decimal point is allowed): --timeout 30.",
        )
    return seconds


def _bytes(value: str | int) -> int:
    """Checked before anything runs: a whole number written in ASCII digits (not 10.0, 1e3 or
    1_000), within [1, MAX_OUTPUT_LIMIT]. The parser of every --max-output, so a refusal shows the
    value as given."""
    text = str(value)
    number = int(text) if text.isascii() and text.isdigit() else 0
    if not 1 <= number <= MAX_OUTPUT_LIMIT:
        raise _bad_value(
            "--max-output",
            value,
            f"is not a whole number of bytes from 1 to {MAX_OUTPUT_LIMIT}.",
            "Give --max-output a whole number of bytes in digits alone: --max-output 1048576.",
        )
    return number


def _bad_value(option: str, value: object, problem: str, hint: str) -> AppError:
    """VALIDATION_ERROR in click's words for a bad value, and a hint, which click's refusal cannot
    carry; the value as the kit echoes one, cut short and with control characters escaped."""
    return validation_error(f"Invalid value for '{option}': {safe(shortened(str(value)))} {problem}", hint)


PackagePath = Annotated[
    Path, typer.Argument(metavar="PKG", help="A package folder (it holds APP.md), or a slug `catalog` lists.")
]
Approve = Annotated[
    bool,
    typer.Option(
        "--approve",
        help="The user approved this call: running an untrusted package's code, and a command "
        "listed in confirmationRequired.",
    ),
]
EnvNames = Annotated[
    list[str] | None,
    typer.Option(
        "--env",
        metavar="NAME",
        help="Pass this variable of the environment on to the package too (repeatable); it sees "
        "only PATH, HOME, USER, LANG, LC_*, TZ, TMPDIR, TERM, SHELL and AGENTIC_* otherwise.",
    ),
]
MaxOutput = Annotated[
    int,
    typer.Option(
        "--max-output",
        parser=_bytes,
        metavar="BYTES",
        help="Bytes the app may write to stdout, and to stderr; past them it is killed.",
    ),
]


def timeout_option(default_help: str) -> Any:
    return typer.Option(parser=_seconds, metavar="SECONDS", help=default_help)


def package_folder(given: Path) -> Path:
    """A package argument as a folder: the folder itself, or — when no such folder holds an APP.md
    and the argument is one word — the package with that slug among those `catalog` lists with no
    root, else among the suite's three apps (from any folder of the checkout). CONFLICT when two
    packages there have that slug."""
    text = str(given)
    if os.path.lexists(given / "APP.md") or os.sep in text or text in (".", ".."):
        return given
    matches = [root for root in default_packages(Path(".")) if catalog_entry(root).get("slug") == text]
    if not matches:  # in a folder of the checkout with no such package: the suite's own apps
        matches = [root for root in suite_apps() if catalog_entry(root).get("slug") == text]
    if len(matches) > 1:
        raise ToolkitError(
            ErrorCode.CONFLICT,
            f"{len(matches)} packages have the slug {text!r}: {', '.join(str(root) for root in matches)}.",
            "Give the package's folder instead of its slug.",
            details={"slug": text, "packages": [str(root) for root in matches]},
        )
    return matches[0] if matches else given


def load_package(path: Path) -> Package:
    path = package_folder(path)
    if not os.path.lexists(path / "APP.md"):
        # A path is told as a path (found by an outside review: `/nonexistent` was "no slug").
        what = "it has no APP.md" if path.is_dir() else "there is no such folder"
        slug = "" if os.sep in str(path) else ", and no package listed by `catalog` has that slug"
        raise AppError(
            ErrorCode.NOT_FOUND,
            f"No package at {path}: {what}{slug}.",
            "Run `agentapps catalog` to find packages; give a package's folder or its slug.",
        )
    resolved = path.resolve()
    byte = undecodable_byte(str(resolved))
    if byte is not None:
        raise validation_error(
            f"The package's path is not UTF-8 text (it holds the byte {byte}).",
            "Rename its folder with UTF-8 text; a runtime reports paths in JSON.",
        )
    package = Package(resolved)
    try:
        package.manifest  # noqa: B018 - parse now, so a broken package is reported here
    except ManifestError as error:
        raise toolkit_error(PACKAGE_INVALID, str(error), "Run `check` on it for every problem.") from None
    return package


@app.command()
def catalog(
    roots: Annotated[
        list[Path] | None,
        typer.Argument(
            metavar="ROOT...",
            help="Folders to search (default: . inside the suite's checkout, else the suite's own apps).",
        ),
    ] = None,
    tags: Annotated[
        list[str] | None,
        typer.Option("--tag", metavar="TAG", help="Only packages tagged TAG (repeatable: every tag given)."),
    ] = None,
    fixtures: Annotated[
        bool,
        typer.Option(
            "--fixtures", help="With no root, list the checkout's test fixtures too (broken on purpose)."
        ),
    ] = False,
) -> Payload:
    """List every package under the roots from its frontmatter alone; broken ones say why."""
    for root in roots or []:
        if not root.is_dir():
            raise AppError(ErrorCode.NOT_FOUND, f"{root} is not a folder.")
    found = discover(roots) if roots else default_packages(Path("."), fixtures)
    entries = [_with_state_dir(catalog_entry(path)) for path in found]
    wanted = set(tags or [])
    return list_payload([entry for entry in entries if wanted <= _tags_of(entry)])


def _with_state_dir(entry: dict[str, Any]) -> dict[str, Any]:
    """An installed app's entry says where its state lives (the user's data folder)."""
    folder = state_dir_for(Path(entry["source"]), os.environ)
    return entry if folder is None else {**entry, "stateDir": str(folder)}


def _tags_of(entry: dict[str, Any]) -> set[str]:
    # An unsupported manifest's tags are shown as written, so they may be anything.
    tags = entry["tags"]
    return {tag for tag in tags if isinstance(tag, str)} if isinstance(tags, list) else set()


@app.command("activate")
def activate_package(package: PackagePath) -> Payload:
    """Load the full contract of one package: its APP.md body and every listed skill."""
    try:
        return item_payload(activate(load_package(package)))
    except ManifestError as error:
        raise toolkit_error(PACKAGE_INVALID, str(error), "Run `check` on it for every problem.") from None


def argv_without_approve(argv: list[str]) -> list[str]:
    """The app's arguments without a runtime's --approve typed among them by mistake."""
    return [word for word in argv if word != "--approve"]


@app.command()
def run(
    package: PackagePath,
    args: Annotated[
        list[str] | None, typer.Argument(metavar="-- ARGS...", help="The command line for the app.")
    ] = None,
    approve: Approve = False,
    timeout: Annotated[float, timeout_option("Seconds before the run is killed.")] = DEFAULT_TIMEOUT,
    max_output: MaxOutput = DEFAULT_MAX_OUTPUT,
    env: EnvNames = None,
) -> Passthrough:
    """Run the package's entry command with ARGS and relay its envelope, if it keeps the contract.

    ARGS start with the command (all its words, for a command path). Needs --approve for a
    command listed in confirmationRequired, and for any run of an untrusted package.
    """
    names = check_names(env or [])
    loaded = load_package(package)
    argv = args or []
    # The approved call: --approve before `--` (typed after it, it is the app's argument).
    approved_args = argv_without_approve(argv)
    approved_call = _approved_call(package, approved_args)
    require_trust([loaded.root], approve, approved_call)
    try:
        require_confirmation(argv, loaded.manifest, approve, approved_call)
    except ToolkitError as error:
        # The hint is the whole call that works: with the app's own --confirm when it takes one.
        gated = (error.details or {}).get("command") if error.code == "CONFIRMATION_REQUIRED" else None
        if isinstance(gated, str) and error.hint:
            flag = missing_confirm_flag(approved_args, _describe_entry(loaded, gated, names))
            if flag is not None:
                whole = _approved_call(package, _with_option(approved_args, flag))
                error.hint = error.hint.replace(f"`{approved_call}`", f"`{whole}`")
        raise
    environment = package_environment(names, overrides=state_overrides(loaded.root, os.environ))
    document, status = run_and_relay(
        loaded, argv, env=environment, stdin=_own_stdin(), timeout=timeout, max_output=max_output
    )
    if refused_as_usage(document, status) and mentions_runtime_options(argv):
        given: list[tuple[str, str | None]] = [("--approve", None)] if approve else []
        given += [("--timeout", f"{timeout:g}")] if timeout != DEFAULT_TIMEOUT else []
        given += [("--max-output", str(max_output))] if max_output != DEFAULT_MAX_OUTPUT else []
        given += [("--env", name) for name in names]
        hint = _runtime_options_hint(loaded, str(package), argv, given, environment, timeout)
        document = document if hint is None else with_runtime_hint(document, hint)
    return Passthrough(document, status)


def _runtime_options_hint(
    loaded: Package,
    package: str,
    argv: list[str],
    given: list[tuple[str, str | None]],
    env: dict[str, str],
    timeout: float,
) -> str | None:
    """The hint for run's own options typed after `--` (run_options.py), when the app's describe
    says its command takes none of that name; None when it takes one, or cannot be told. `given`:
    run's options as given before `--`, which the hint's call keeps."""
    commands = _described_commands(loaded, env, min(timeout, DESCRIBE_TIMEOUT))
    entry = command_entry(argv, commands) if commands is not None else None
    found = misplaced_options(argv, entry) if entry is not None else []
    return runtime_hint(PROGRAM, package, argv, str(entry["name"]), found, given) if entry and found else None


def _approved_call(package: Path, argv: list[str]) -> str:
    return " ".join([PROGRAM, "run", shell_word(str(package)), "--approve", "--", *map(shell_word, argv)])


def _with_option(argv: list[str], flag: str) -> list[str]:
    """The arguments with `flag` added where the app reads it as an option: before any `--`."""
    if "--" in argv:
        at = argv.index("--")
        return [*argv[:at], flag, *argv[at:]]
    return [*argv, flag]


def _describe_entry(loaded: Package, command: str, names: list[str]) -> dict[str, Any] | None:
    """The command's entry in the package's describe (the package is trusted by now, and only a
    refused call asks); None when there is none or it does not answer."""
    env = package_environment(names, overrides=state_overrides(loaded.root, os.environ))
    found = [
        entry
        for entry in _described_commands(loaded, env, DESCRIBE_TIMEOUT) or ()
        if entry.get("name") == command
    ]
    return found[0] if found else None


def _described_commands(loaded: Package, env: dict[str, str], timeout: float) -> list[dict[str, Any]] | None:
    """The commands of the package's describe, read for a refused call's hint; None when the
    package declares no describe or it does not answer as one."""
    from .runtime import invoke

    if DESCRIBE not in loaded.manifest.commands:
        return None
    try:
        invocation = invoke(loaded, [DESCRIBE], env=env, timeout=timeout)
    except Exception:  # noqa: BLE001 - the hint falls back to what the refusal said
        return None
    item = (invocation.envelope or {}).get("item") if invocation.ok and not invocation.violations else None
    entries = item.get("commands") if isinstance(item, dict) else None
    return [entry for entry in entries if isinstance(entry, dict)] if isinstance(entries, list) else None


def _own_stdin() -> int | None:
    """This process's stdin, for the app to read as it is (`--body-file -`); none (an empty stream)
    when it is a terminal, which no one would type an app's input into, or has no descriptor."""
    try:
        descriptor = sys.stdin.fileno()
    except (AttributeError, OSError, ValueError):
        return None
    return None if os.isatty(descriptor) else descriptor


@app.command()
def check(
    given: Annotated[
        list[Path],
        typer.Argument(metavar="PKG...", help="Package folders (or slugs `catalog` lists) to check."),
    ],
    timeout: Annotated[float, timeout_option("Seconds each run of a package may take.")] = 30.0,
    max_output: MaxOutput = DEFAULT_MAX_OUTPUT,
    approve: Approve = False,
    env: EnvNames = None,
) -> Payload:
    """Check packages against the v1 contract; any error fails the check.

    Check runs each package (a temporary copy, with a temporary state folder): it is not a
    sandbox, so an untrusted package is checked only with --approve.
    """
    from .check import check_package

    options = RunOptions(timeout, max_output, tuple(check_names(env or [])))
    packages = [package_folder(path) for path in given]
    require_trust([path for path in packages if os.path.lexists(path / "APP.md")], approve)
    reports = [check_package(path.resolve(), options).as_dict() for path in packages]
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
    approve: Approve = False,
) -> Payload:
    """Refresh each package's vendored kit (app/agentic_kit/), schemas/ and, where APP.md marks it,
    its Commands section; say what it wrote, what it removed (only files it wrote itself, unchanged
    since) and what it kept. It loads each app's code to build the schemas, so the trust rule
    applies."""
    from .sync import SyncRefused, sync

    loaded = [load_package(package) for package in packages]
    require_trust([package.root for package in loaded], approve)
    results = []
    for package in loaded:
        try:
            done = sync(package.root)
        except SyncRefused as error:
            raise toolkit_error(PACKAGE_INVALID, str(error), error.hint) from None
        except Exception as error:  # noqa: BLE001 - the package's own code may raise anything
            raise toolkit_error(
                PACKAGE_INVALID,
                f"{package.root}: its schemas cannot be built from app/cli.py "
                f"({type(error).__name__}: {error}).",
                "sync serves packages built on the kit: `python3 app/cli.py` whose `app` is the kit's "
                "`new_app(...)`. "
                "Nothing was written for this package.",
            ) from None
        results.append(
            {
                "source": str(package.root),
                "written": [str(path) for path in done.write],
                "removed": [str(path) for path in done.remove],
                "kept": [str(path) for path in done.kept],
            }
        )
    return list_payload(results)


def check_runtime_command(command: str | None) -> None:
    """--runtime CMD as the words a shell would make of it: VALIDATION_ERROR for a quote left
    open (found by an outside review: an INTERNAL_ERROR) or no word at all (it ran the package
    folder itself, or every case failed)."""
    try:
        words = shlex.split(command or "")
    except ValueError as error:
        raise AppError(
            ErrorCode.VALIDATION_ERROR,
            f"--runtime {quoted(command or '')} cannot be read as a command ({error}).",
            "Quote it as a shell would: --runtime 'node adapter.mjs'.",
        ) from None
    if not words:
        raise AppError(
            ErrorCode.VALIDATION_ERROR,
            "--runtime is empty: it names the runtime's command.",
            "Give the command that runs it: --runtime 'node adapter.mjs'.",
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
            help="`warm` (the default: the built-in runtime, a Python package's calls forked "
            "from its warm process), `cold` (the built-in runtime, a new process for every "
            "call), or another runtime as a command: it is run as `CMD PACKAGE_PATH ARG...` "
            "with each step's stdin and environment, and must relay the app's stdout and exit "
            "status.",
        ),
    ] = None,
    packages: Annotated[
        Path | None,
        typer.Option(help="The folder holding the packages (default: the package that holds the scenarios)."),
    ] = None,
    timeout: Annotated[float, timeout_option("Seconds each step may take.")] = DEFAULT_TIMEOUT,
    max_output: MaxOutput = DEFAULT_MAX_OUTPUT,
    jobs: Annotated[int, typer.Option(min=1, max=64, help="Scenarios replayed side by side.")] = 1,
    level: Annotated[
        ScenarioLevel | None,
        typer.Option(
            help="Only the scenarios of this level: `seed` (what the seed's Agentic To-Do fixes, "
            "for any implementation of it) or `suite` (this suite's own contract).",
        ),
    ] = None,
    approve: Approve = False,
    env: EnvNames = None,
) -> Payload:
    """Replay scenarios step by step; any difference fails the replay and says where and what.

    Replaying runs the packages the scenarios name, so the trust rule applies to each of them.
    """
    from .replay import replay_all
    from .runtimes import builtin_runtime, command_runtime
    from .scenarios import ScenarioError, find_package, load_scenario, scenario_files

    options = RunOptions(timeout, max_output, tuple(check_names(env or [])))
    if runtime not in (None, WARM, COLD):
        check_runtime_command(runtime)
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
    if level is not None:
        scenarios = [scenario for scenario in scenarios if scenario.level == level.value]
        if not scenarios:
            raise AppError(ErrorCode.NOT_FOUND, f"No {level.value}-level scenario under the paths given.")
    roots = set()
    for scenario in scenarios:
        with contextlib.suppress(ScenarioError):  # a missing package is that scenario's report
            roots.add(find_package(scenario, packages))
    require_trust(sorted(roots), approve)
    with WarmRuntime() as warm:
        if runtime in (None, WARM):
            chosen = builtin_runtime(options, warm)
        elif runtime == COLD:
            chosen = builtin_runtime(options)
        else:
            chosen = command_runtime(runtime, options)
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


@app.command()
def conformance(
    runtime: Annotated[
        str,
        typer.Option(
            metavar="CMD",
            help="The runtime's adapter, run as `CMD catalog [--tag TAG]... ROOT...`, `CMD activate PKG` "
            "and `CMD run PKG [--approve] [--timeout SECONDS] -- ARGS...` (`agentapps` is one).",
        ),
    ],
    cases: Annotated[
        list[Path] | None,
        typer.Argument(
            metavar="CASES...",
            help="Case files, or folders of them (default: this suite's conformance/cases).",
        ),
    ] = None,
    required: Annotated[
        bool, typer.Option("--required", help="Only the cases the seed requires of every runtime.")
    ] = False,
    jobs: Annotated[int, typer.Option(min=1, max=64, help="Cases run side by side.")] = 1,
    approve: Annotated[
        bool,
        typer.Option(
            "--approve",
            help="The user approved running the packages of cases from outside this suite and its "
            "trusted folders.",
        ),
    ] = False,
    keep: Annotated[
        bool,
        typer.Option(
            "--keep",
            help="Leave each case's folder (its packages and state) in place for debugging; each "
            "result says where (`folder`).",
        ),
    ] = False,
) -> Payload:
    """Run the conformance cases through a runtime's adapter: per case, pass or every difference
    by JSON path, and a summary line. A failed case the seed requires is CONFORMANCE_FAILED (15);
    when every required case passed, a failed case of this suite's own conventions is
    SUITE_CASES_FAILED (17).

    The adapter runs the packages the cases name (copies, in a fresh folder per case), so the
    trust rule applies to the suite the cases come from.
    """
    from .conformance import SUITE_COLLECTION, CaseError, case_files, command_adapter, load_case, run_cases

    check_runtime_command(runtime)
    paths = cases or [SUITE_COLLECTION]
    for path in paths:
        if not path.exists():
            raise AppError(ErrorCode.NOT_FOUND, f"No case at {path}.")
    files = case_files(paths)
    if not files:
        raise AppError(ErrorCode.NOT_FOUND, "No case files (*.json) under the paths given.")
    try:
        loaded = [load_case(path) for path in files]
    except CaseError as error:
        raise AppError(ErrorCode.VALIDATION_ERROR, str(error), "Check it against case.schema.json.") from None
    chosen = [case for case in loaded if case.level == "required" or not required]
    if not chosen:
        raise AppError(ErrorCode.NOT_FOUND, "None of the cases given is required by the seed.")
    require_trust(sorted({case.suite_root.resolve() for case in chosen}), approve)
    run = run_cases(chosen, command_adapter(runtime), runtime, jobs=jobs, keep=keep)
    results = [result.as_dict() for result in run.results]
    details: dict[str, object] = {"summary": run.as_dict(), "items": results}
    if run.required_failed:
        first = run.required_failed[0]
        raise toolkit_error(
            CONFORMANCE_FAILED,
            f"{run.summary}. First failed of the seed's required cases: {first.case.name}.",
            "Each failed case names its step and every difference; --human prints them all.",
            details=details,
        )
    if run.failed:
        # Every required case passed: what failed is this suite's own conventions, not the seed's.
        raise toolkit_error(
            SUITE_CASES_FAILED,
            f"{run.summary}: "
            + (
                "every case the seed requires passed"
                if run.counts()["required"]
                else "no case the seed requires ran"
            )
            + f"; {len(run.failed)} of this suite's own conventions did not. First failed: "
            f"{run.failed[0].case.name}.",
            "A runtime need not keep this suite's conventions (level `suite`); `--required` runs only "
            "the seed's cases. Each failed case names its step and every difference.",
            details=details,
        )
    return {"summary": run.as_dict(), **list_payload(results)}


# `mcp` speaks the protocol on stdout, so it cannot run inside the envelope runner: the command
# checks its options like any other (a bad one is an error envelope) and leaves them here; main()
# then starts the server with them.
@dataclass
class McpRequest:
    roots: list[Path]
    approve: bool
    options: RunOptions
    cold: bool = False
    strict: bool = False
    only: tuple[str, ...] = ()
    http: HttpListen | None = None  # --http: the bound listener and its token; None for stdio


_mcp_requests: list[McpRequest] = []


@app.command("mcp")
def mcp_command(
    roots: Annotated[
        list[Path] | None,
        typer.Argument(
            metavar="ROOT...",
            help="Folders to serve packages from (default: . inside the suite's checkout, else the "
            "suite's own apps).",
        ),
    ] = None,
    approve: Annotated[
        bool,
        typer.Option(
            "--approve",
            help="The user approved running the untrusted packages under the roots (left out otherwise).",
        ),
    ] = False,
    timeout: Annotated[float, timeout_option("Seconds each tool call may take.")] = DEFAULT_TIMEOUT,
    max_output: MaxOutput = DEFAULT_MAX_OUTPUT,
    env: EnvNames = None,
    cold: Annotated[
        bool,
        typer.Option(
            "--cold",
            help="Start a new process for every tool call, as `run` does, instead of forking it "
            "from the package's warm process (Python packages only; the result is the same).",
        ),
    ] = False,
    strict_schemas: Annotated[
        bool,
        typer.Option(
            "--strict-schemas",
            help="List each tool's schema in OpenAI's strict form: every argument required, an "
            "optional one nullable (null is not given). Without it, the form every client accepts.",
        ),
    ] = False,
    only: Annotated[
        list[str] | None,
        typer.Option(
            "--only",
            metavar="TOOL",
            help="Serve only the tools this names, a tool name or a pattern (agentic_to_do__*); "
            "repeat for more. Without it, every command of every package.",
        ),
    ] = None,
    http: Annotated[
        str | None,
        typer.Option(
            "--http",
            metavar="[HOST:]PORT",
            help="Serve over Streamable HTTP at http://HOST:PORT/mcp instead of stdio, each request "
            "with a bearer token; HOST is 127.0.0.1 unless given (0 as PORT: any free port).",
        ),
    ] = None,
    token_env: Annotated[
        str | None,
        typer.Option(
            "--token-env",
            metavar="NAME",
            help="With --http: the bearer token is this variable's value (otherwise one is "
            "generated and printed on stderr).",
        ),
    ] = None,
    allow_remote: Annotated[
        bool,
        typer.Option(
            "--allow-remote",
            help="With --http: allow a HOST that is not loopback, reachable from other machines "
            "over plain HTTP.",
        ),
    ] = False,
) -> Payload:
    """Serve every package under the roots over MCP on stdio (or over HTTP with --http): each
    command a tool, each APP.md and skill a resource. Needs the `mcp` extra."""
    # With no root, the packages catalog lists (the checkout's test fixtures left out).
    chosen = roots or default_packages(Path(".")) or [Path(".")]
    for root in chosen:
        check_mcp_root(root)
    if http is None and (token_env is not None or allow_remote):
        raise AppError(
            ErrorCode.USAGE_ERROR,
            f"{'--token-env' if token_env is not None else '--allow-remote'} is an option of --http.",
            "Give --http [HOST:]PORT to serve over HTTP; over stdio the client starts the server itself.",
        )
    from .mcp_http import check_http

    request = McpRequest(
        [root.resolve() for root in chosen],
        approve,
        RunOptions(timeout, max_output, tuple(check_names(env or []))),
        cold,
        strict_schemas,
        tuple(only or []),
        # Bound here, before anything is served: a port in use is this command's CONFLICT envelope.
        None if http is None else check_http(http, token_env, allow_remote),
    )
    _mcp_requests.append(request)
    return item_payload(
        {
            "roots": [str(root) for root in request.roots],
            "approve": approve,
            "timeout": timeout,
            "maxOutput": max_output,
            "env": list(request.options.env_names),
            "cold": cold,
            "strictSchemas": strict_schemas,
            "only": list(request.only),
            "http": None if request.http is None else request.http.url,
        }
    )


def check_mcp_root(root: Path) -> None:
    """NOT_FOUND, before anything is served, for a root that is not a folder or holds no package:
    a server with no tools would say nothing to the client that started it (and a client starts it
    from a folder of its own choosing, so a relative root is shown resolved)."""
    where = str(root) if root.is_absolute() else f"{root} (from {Path.cwd()}: {root.resolve()})"
    if not root.is_dir():
        raise AppError(
            ErrorCode.NOT_FOUND,
            f"{where} is not a folder.",
            "Give each root as an absolute path to a folder holding packages (a client starts the "
            "server from a folder of its own choosing).",
        )
    if not discover([root]):
        raise AppError(
            ErrorCode.NOT_FOUND,
            f"{where} holds no package (no APP.md in it or under it).",
            "Give a package's folder or a folder holding packages; `agentapps catalog ROOT` lists them.",
        )


def _refusal(answer: str) -> str:
    """An error envelope as one line, its message and hint (with --human, the text as printed)."""
    import json

    try:
        error = json.loads(answer)["error"]
        return " ".join(part for part in (error["message"], error.get("hint")) if part)
    except (ValueError, KeyError, TypeError):
        return " ".join(answer.split())


def read_mcp_request(args: list[str]) -> tuple[int, str, McpRequest | None]:
    """`agentapps mcp ARGS` read as the console script reads it: the exit status and the envelope
    printed, and the request to serve, None where nothing is served (a bad option, --help)."""
    import io

    answer = io.StringIO()
    with contextlib.redirect_stdout(answer):
        status = runner.run(app, ["mcp", *args])
    request = _mcp_requests.pop() if _mcp_requests else None
    _mcp_requests.clear()
    return status, answer.getvalue(), request if status == 0 else None


def main() -> None:
    """The console script."""
    if sys.argv[1:2] == ["mcp"]:
        status, answer, request = read_mcp_request(sys.argv[2:])
        if request is None:  # a bad option, or --help: the answer is the envelope
            sys.stdout.write(answer)
            if status != 0:  # said on stderr too: an MCP client logs stderr, stdout is its protocol
                print(f"agentapps mcp: {_refusal(answer)}", file=sys.stderr)
            sys.exit(status)
        serve_mcp(request)
        return
    try:
        runner.main(app)
    except Interrupted as interrupted:  # an app's group ended first (process.ends_with_this_process)
        end_by(interrupted)


def serve_mcp(request: McpRequest) -> None:
    """Serve over MCP on stdio (see mcp_server.py), or over HTTP with --http (mcp_http.py)."""
    import anyio

    from .mcp_server import serve

    if request.http is not None:
        from .mcp_http import run

        run(
            request.roots,
            request.http,
            approve=request.approve,
            options=request.options,
            cold=request.cold,
            strict=request.strict,
            only=request.only,
        )
        return

    try:
        stopped_by = anyio.run(
            serve, request.roots, request.approve, request.options, request.cold, request.strict, request.only
        )
        if stopped_by is not None:
            # Every call has ended. The read of the client's stdin, abandoned, may still wait for
            # a line that never comes: the process ends without waiting for it.
            sys.stdout.flush()
            sys.stderr.flush()
            os._exit(0)
    except* (BrokenPipeError, ConnectionResetError):
        # The client closed the pipe: the session is over, and there is no one to tell.
        with contextlib.suppress(OSError, ValueError):
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, sys.stdout.fileno())  # nor can the interpreter's last flush fail
            os.close(devnull)
