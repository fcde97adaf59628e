"""The reference runtime: invoke a package the way Agent Applications v1 says, and relay what it
gave back.

`invoke` runs `entry.command` (package.py) from the package root through POSIX `sh -c`, the
arguments passed as positional parameters ("$@", never spliced into the command string), with a
chosen environment (environment.py), a timeout and an output cap (process.py), cold or in a child
of the package's warm process (warm.py). It reads stdout only, and output.py sorts what came back
into violations and warnings. `relay` turns an invocation into what a runtime passes on: the
app's document and exit status, APP_FAILED for a failure without a structured error, or
CONTRACT_VIOLATION. Finding packages and showing them to an agent is catalog.py's.
"""

from __future__ import annotations

import errno
import os
import shlex
import sys
import threading
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from agentic_kit.errors import ErrorCode

from .errors import APP_FAILED, CONTRACT_VIOLATION, TIMEOUT, ToolkitError, toolkit_error
from .output import Invocation, Problem, check_output
from .package import Package
from .process import Finished, TimedOut, relayed_status, run_bounded
from .warm import WarmRuntime

DEFAULT_TIMEOUT = 60.0
MAX_TIMEOUT = 24 * 60 * 60.0
DEFAULT_MAX_OUTPUT = 16 * 1024 * 1024  # bytes, on stdout and on stderr each
# The most one command-line word holds on Linux (MAX_ARG_STRLEN, with its final NUL): past it, or
# past the whole line's limit, the program cannot start (E2BIG).
MAX_WORD_BYTES = 131_071
# The violation of a run the runtime killed for passing its output cap.
OUTPUT_CAP_RULE = "output.size"
# How much of an app's stdout and stderr a failure envelope carries.
EXCERPT_CHARS = 2000


@dataclass(frozen=True)
class RunOptions:
    """How every run of a package is bounded and what it sees beyond the allow-list: the CLI's
    --timeout, --max-output and --env."""

    timeout: float = DEFAULT_TIMEOUT
    max_output: int = DEFAULT_MAX_OUTPUT
    env_names: tuple[str, ...] = ()


class RunTimedOut(Exception):
    """The entry command ran past its timeout; it and its process group were killed."""


def invoke(
    package: Package,
    args: Sequence[str],
    *,
    env: Mapping[str, str] | None = None,
    stdin: str | int | None = None,
    timeout: float = DEFAULT_TIMEOUT,
    max_output: int = DEFAULT_MAX_OUTPUT,
    warm: WarmRuntime | None = None,
    interrupt: threading.Event | None = None,
) -> Invocation:
    """Run the package's entry command from its root with `args` and check what comes back.

    With `warm`, a Python entry runs in a child of the package's warm process (warm.py), under
    the same rules and with the same result; anything else runs cold.

    `stdin` is text to feed the app (default: an empty stream), or a file descriptor it reads
    itself (`agentapps run` passes its own stdin on).

    `env` is the whole environment the package sees (default: environment.package_environment());
    the folder of this runtime's interpreter goes first on its PATH, so `python3` in an entry
    command is the interpreter the runtime runs under. Raises RunTimedOut past `timeout` seconds
    (the call returns within it plus process.EXIT_GRACE), and OSError when the shell cannot start.
    Setting `interrupt` while it runs interrupts it as Ctrl-C would (process.collect).
    """
    from .environment import package_environment

    run_env = dict(package_environment() if env is None else env)
    run_env["PATH"] = os.pathsep.join([str(Path(sys.executable).parent), run_env.get("PATH", os.defpath)])
    given = stdin if isinstance(stdin, int) else (stdin or "").encode()
    deadline = time.monotonic() + timeout
    try:
        finished = None
        if warm is not None:
            finished = warm.run(
                package.root,
                package.manifest.entry.command,
                list(args),
                env=run_env,
                stdin=given,
                deadline=deadline,
                max_output=max_output,
                interrupt=interrupt,
            )
        if finished is None:  # run cold: not a Python script, or no warm process could start
            finished = run_bounded(
                package.entry_argv(args),
                cwd=package.root,
                env=run_env,
                stdin=given,
                timeout=max(deadline - time.monotonic(), 0.0),
                max_output=max_output,
                interrupt=interrupt,
            )
    except TimedOut:
        raise RunTimedOut(
            f"{package.manifest.entry.command} {shlex.join(args)} ran past {timeout:g} s"
        ) from None
    return finished_invocation(package, args, finished, max_output)


def finished_invocation(
    package: Package, args: Sequence[str], finished: Finished, max_output: int
) -> Invocation:
    """What a bounded run gave back, checked; output past the cap is a violation of its own. The
    app has run by now: should the check itself fail, the error says it may have taken effect
    (INTERNAL_ERROR), never that nothing was saved."""
    try:
        return _checked(package, args, finished, max_output)
    except Exception as error:  # noqa: BLE001 - the app has run: never say that nothing was saved
        raise toolkit_error(
            ErrorCode.INTERNAL_ERROR,
            f"The app ran (exit status {relayed_status(finished.exit_status)}), but checking what it "
            f"printed failed ({type(error).__name__}).",
            "It may have taken effect: read the state back (a list or get) before retrying. Please "
            "report it with the package and the arguments used.",
            details={"mayHaveTakenEffect": True, "exitStatus": relayed_status(finished.exit_status)},
        ) from None


def _checked(package: Package, args: Sequence[str], finished: Finished, max_output: int) -> Invocation:
    # Bytes that are not UTF-8 become lone surrogates (shown as \\xNN when printed): stdout's are
    # named as a violation, stderr is only an excerpt.
    stdout, stderr = (
        stream.decode("utf-8", errors="surrogateescape") for stream in (finished.stdout, finished.stderr)
    )
    if finished.over_cap is not None:
        message = f"{finished.over_cap} passed the output cap of {max_output} bytes; the app was killed."
        return Invocation(
            list(args), finished.exit_status, stdout, stderr, violations=[Problem(OUTPUT_CAP_RULE, message)]
        )
    return check_output(package, list(args), finished.exit_status, stdout, stderr)


def relay(invocation: Invocation) -> tuple[Any, int]:
    """What a runtime passes on: the app's document and exit status, when the format's musts hold
    and the app succeeded or failed with a structured error. Otherwise an AppError:
    CONTRACT_VIOLATION (exit 11), or APP_FAILED for a failure without a structured JSON error,
    exiting with the app's own status (128 + N when signal N ended it)."""
    if invocation.violations:
        broken = f"The app broke the CLI contract: {' '.join(map(str, invocation.violations))}"
        violations = [str(problem) for problem in invocation.violations]
        if any(problem.rule == OUTPUT_CAP_RULE for problem in invocation.violations):
            # The runtime killed it mid-answer: a command writes its state before it prints, so
            # whatever it did may be done, whatever the exit status of the kill.
            raise toolkit_error(
                CONTRACT_VIOLATION,
                f"{broken} The command may have taken effect before it was killed.",
                "Do not retry blindly: read the state back (a list or get) to see what happened; "
                "raise --max-output if the answer is that large.",
                details=_excerpts(invocation, violations=violations, mayHaveTakenEffect=True),
            )
        if invocation.exit_status == 0:
            # The app said it succeeded: whatever it did is done, only its answer is unusable.
            raise toolkit_error(
                CONTRACT_VIOLATION,
                f"{broken} The command ran (exit status 0) and may have taken effect.",
                "Do not retry blindly: read the state back (a list or get) to see what happened.",
                details=_excerpts(invocation, violations=violations, mayHaveTakenEffect=True),
            )
        raise toolkit_error(CONTRACT_VIOLATION, broken, details=_excerpts(invocation, violations=violations))
    if invocation.exit_status != 0 and invocation.envelope is None:
        status = relayed_status(invocation.exit_status)
        raise ToolkitError(
            APP_FAILED,
            f"The app failed with exit status {status} and no structured JSON error.",
            "Its stdout and stderr are in error.details; the app's own message is there.",
            exit_status=status,
            details=_excerpts(invocation),
        )
    return invocation.document, relayed_status(invocation.exit_status)


def run_and_relay(package: Package, args: Sequence[str], **options: Any) -> tuple[Any, int]:
    """`invoke` (with its keyword options) then `relay`; a timeout is TIMEOUT, a shell that cannot
    start is CONTRACT_VIOLATION."""
    try:
        invocation = invoke(package, args, **options)
    except RunTimedOut as error:
        raise toolkit_error(
            TIMEOUT,
            f"{error}; it was killed.",
            "It may have taken effect before it was killed: read the state back (a list or get) before "
            "retrying; raise --timeout if the command is slow.",
            details={"mayHaveTakenEffect": True},
        ) from None
    except OSError as error:
        if error.errno == errno.E2BIG:  # the call's fault, not the package's: nothing ran
            sizes = [len(word.encode(errors="surrogateescape")) + 1 for word in args]
            raise toolkit_error(
                ErrorCode.VALIDATION_ERROR,
                f"The call is too long for a command line: its words come to {sum(sizes):,} bytes, the "
                f"longest {max(sizes, default=1) - 1:,} (one word holds at most {MAX_WORD_BYTES:,}, and "
                "all of them, with the environment, a limit of the system's), so the app was not started.",
                "Shorten it; a runtime that passes words without a command line (the warm one) "
                "takes it whole.",
            ) from None
        raise toolkit_error(CONTRACT_VIOLATION, f"entry.command cannot start: {error}.") from None
    return relay(invocation)


def _excerpts(invocation: Invocation, **extra: object) -> dict[str, object]:
    return {
        **extra,
        "exitStatus": relayed_status(invocation.exit_status),
        "stdout": invocation.stdout[:EXCERPT_CHARS],
        "stderr": invocation.stderr[:EXCERPT_CHARS],
    }


# Catalog and activation: the first two tiers of progressive disclosure.
