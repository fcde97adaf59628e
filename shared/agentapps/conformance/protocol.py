"""The adapter protocol: how a runtime is asked, and how its answer is read.

An adapter is one command a runtime's author writes once (protocol.schema.json has the answers):

    ADAPTER catalog [--tag TAG]... ROOT...
    ADAPTER activate PKG
    ADAPTER run PKG [--approve] [--timeout SECONDS] -- ARGS...

The harness runs it with the step's stdin and the case's environment (workspace.py), bounded in
time and output like any process it did not write (process.py), and reads exactly one JSON
document from its stdout.
"""

from __future__ import annotations

import shlex
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..output import NOT_JSON, read_document
from ..process import TimedOut, relayed_status, run_bounded
from ..scenarios import text
from .cases import PROTOCOL_SCHEMA, Case, operation_of, schema_problems, schema_validator
from .workspace import TOKEN, Workspace

# What a call may take beyond the timeout it gives the app (or, with none, in all): the adapter's
# own start-up and its grace after the app exits. A bound that proves a hang, not a speed goal.
CALL_MARGIN = 10.0
DEFAULT_CALL_LIMIT = 30.0
ANSWER_CAP = 64 * 1024 * 1024  # bytes an adapter may print on stdout, and on stderr


@dataclass(frozen=True)
class Reply:
    """What one call of an adapter gave back."""

    exit_status: int
    stdout: bytes
    stderr: bytes
    over_cap: bool = False


class AdapterTimedOut(Exception):
    """The adapter did not answer within its limit; it was killed."""


class AdapterCannotStart(Exception):
    """The adapter's command cannot be started (not found, not executable)."""


# (arguments after the adapter's own command, environment, stdin, limit in seconds) -> its reply.
Adapter = Callable[[list[str], Mapping[str, str], bytes, float], Reply]


def command_adapter(command: str) -> Adapter:
    """An adapter given as a command line, run from the current folder in a session of its own,
    which ends with each call: an app it left running (timed out, not killed) is killed then."""
    prefix = shlex.split(command)

    def call(argv: list[str], env: Mapping[str, str], stdin: bytes, limit: float) -> Reply:
        try:
            finished = run_bounded(
                [*prefix, *argv],
                cwd=Path.cwd(),
                env=env,
                stdin=stdin,
                timeout=limit,
                max_output=ANSWER_CAP,
                end_the_group=True,
            )
        except TimedOut:
            raise AdapterTimedOut from None
        except OSError as error:
            raise AdapterCannotStart(f"{shlex.join(prefix)}: {error.strerror or error}") from None
        return Reply(
            relayed_status(finished.exit_status),
            finished.stdout,
            finished.stderr,
            finished.over_cap is not None,
        )

    return call


def operation_argv(step: dict[str, Any], space: Workspace) -> list[str]:
    """The adapter's arguments for the step: its operation and that operation's inputs."""
    operation = operation_of(step)
    inputs = step[operation]
    if operation == "catalog":
        tags = [word for tag in inputs.get("tags", []) for word in ("--tag", tag)]
        roots = [
            str(space.packages if root == "." else space.packages / root)
            for root in inputs.get("roots", ["."])
        ]
        return ["catalog", *tags, *roots]
    if operation == "activate":
        return ["activate", str(space.package(inputs["package"]))]
    options = ["--approve"] if inputs.get("approve") else []
    if "timeout" in inputs:
        options += ["--timeout", f"{inputs['timeout']:g}"]
    args = [text(arg) for arg in inputs["args"]]
    return ["run", str(space.package(inputs["package"])), *options, "--", *args]


def step_stdin(step: dict[str, Any]) -> bytes:
    inputs = step[operation_of(step)]
    return text(inputs["stdin"]).encode("utf-8") if "stdin" in inputs else b""


def call_limit(step: dict[str, Any]) -> float:
    """How long the harness waits for the adapter: the app's timeout plus a margin, or a default."""
    inputs = step[operation_of(step)]
    return float(inputs["timeout"]) + CALL_MARGIN if "timeout" in inputs else DEFAULT_CALL_LIMIT


def shown(argv: list[str], space: Workspace) -> str:
    """The adapter's arguments as a reader should see them: the case folder as {case}."""
    return shlex.join(argv).replace(str(space.root), TOKEN)


def read_answer(case: Case, step: dict[str, Any], reply: Reply) -> tuple[Any, list[str]]:
    """The answer on stdout, and every way it breaks the protocol (the answer is NOT_JSON when it
    is not exactly one JSON document)."""
    if reply.over_cap:
        return NOT_JSON, [f"protocol: the adapter printed more than {ANSWER_CAP} bytes and was killed"]
    try:
        stdout = reply.stdout.decode("utf-8")
    except UnicodeDecodeError:
        return NOT_JSON, ["protocol: the adapter's stdout is not UTF-8 text"]
    # Read as strictly as the runtime reads an app: the reason names the rule broken (a key given
    # twice, a lone surrogate escape, nesting past 100 levels, more than one document, ...).
    document, reason = read_document(stdout)
    if document is NOT_JSON:
        excerpt = stdout.strip()[:200] or "(nothing)"
        return NOT_JSON, [f"protocol: the adapter's {reason}: {excerpt}"]
    operation = operation_of(step)
    refused = isinstance(document, dict) and document.get("ok") is False
    # A run relays the app's own document, whatever its shape, so only a catalog or an
    # activation is known to be the runtime's refusal.
    definition = "refusal" if refused and operation != "run" else operation
    validator = schema_validator(case.collection / PROTOCOL_SCHEMA, definition)
    return document, [f"protocol: {problem}" for problem in schema_problems(validator, document)]
