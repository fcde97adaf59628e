"""Scenario runtimes: anything that runs a package's command line for replay. The built-in one
(runtime.invoke, cold or warm), an external command (`command_runtime`: `CMD PACKAGE_PATH
ARG...`), or the harness's in-process one (harness.in_process_runtime).
"""

from __future__ import annotations

import shlex
from collections.abc import Callable, Mapping
from pathlib import Path

from .environment import admitted, package_environment
from .output import Invocation
from .package import Package
from .process import TimedOut, run_bounded
from .runtime import RunOptions, RunTimedOut, finished_invocation, invoke
from .warm import WarmRuntime

# (package root, args, stdin, environment overrides) -> what came back.
Runtime = Callable[[Path, list[str], str, dict[str, str]], Invocation]


def builtin_runtime(options: RunOptions | None = None, warm: WarmRuntime | None = None) -> Runtime:
    """The reference runtime (runtime.invoke): entry.command from the package root; with `warm`, a
    Python package runs in a child of its warm process (warm.py), with the same result."""
    chosen = options or RunOptions()

    def run(root: Path, args: list[str], stdin: str, overrides: dict[str, str]) -> Invocation:
        return invoke(
            Package(root),
            args,
            env=_environment(overrides, chosen),
            stdin=stdin,
            timeout=chosen.timeout,
            max_output=chosen.max_output,
            warm=warm,
        )

    return run


def command_runtime(command: str, options: RunOptions | None = None) -> Runtime:
    """Another runtime, as a command line: `COMMAND PACKAGE_PATH ARG...`, given the step's stdin
    and environment, bounded like a package run; it must relay the app's stdout and exit status."""
    prefix = shlex.split(command)
    chosen = options or RunOptions()

    def run(root: Path, args: list[str], stdin: str, overrides: dict[str, str]) -> Invocation:
        try:
            finished = run_bounded(
                [*prefix, str(root), *args],
                cwd=Path.cwd(),
                env=_environment(overrides, chosen),
                stdin=stdin.encode(),
                timeout=chosen.timeout,
                max_output=chosen.max_output,
            )
        except TimedOut:
            raise RunTimedOut(f"{shlex.join(prefix)} ran past {chosen.timeout:g} s") from None
        return finished_invocation(Package(root), args, finished, chosen.max_output)

    return run


def _environment(overrides: Mapping[str, str], options: RunOptions) -> dict[str, str]:
    """The allow-listed environment without this process's own AGENTIC_* settings, the variables
    named with --env, then the scenario's and the step's (which load_scenario has held to the
    allow-list; held again here, for a scenario built in code)."""
    admitted_overrides = {name: value for name, value in overrides.items() if admitted(name)}
    return package_environment(options.env_names, overrides=admitted_overrides, inherit_agentic=False)
