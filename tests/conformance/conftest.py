"""The conformance cases, loaded once, and adapters that run in this process (fast: only the apps
they run are processes of their own)."""

from __future__ import annotations

import contextlib
import io
import json
import os
import sys
import tempfile
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from typing import Any

from agentapps import cli, human
from agentapps.conformance import Adapter, Reply, case_files, load_case
from agentic_kit import runner

SUITE = Path(__file__).resolve().parents[2]
COLLECTION = SUITE / "conformance"
CASES = [load_case(path) for path in case_files([COLLECTION / "cases"])]
NODE_ADAPTER = COLLECTION / "adapters" / "minimal-runtime.mjs"
AGENTAPPS = str(Path(sys.executable).parent / "agentapps")  # the console script, an adapter itself


def conformance(*args: str) -> tuple[int, dict[str, Any]]:
    """`agentapps conformance ...` in this process; the adapter it runs is a process of its own."""
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        status = runner.run(cli.app, ["conformance", *args], human.render)
    return status, json.loads(out.getvalue())


def results_of(envelope: dict[str, Any]) -> list[dict[str, Any]]:
    return envelope["items"] if envelope["ok"] else envelope["error"]["details"]["items"]  # type: ignore[no-any-return]


def agentapps_main(argv: list[str]) -> int:
    """The agentapps console script, in this process."""
    return runner.run(cli.app, argv, human.render)


def in_process(main: Callable[[list[str]], int]) -> Adapter:
    """An adapter that is a function of this process: its environment is swapped in for the call,
    its stdin is a file holding the step's, its stdout captured. Calls cannot overlap (the
    environment is the process's), so run its cases one at a time."""

    def call(argv: list[str], env: Mapping[str, str], stdin: bytes, limit: float) -> Reply:
        out = io.StringIO()
        with _environment(env), _stdin(stdin), contextlib.redirect_stdout(out):
            status = main(argv)
        return Reply(status, out.getvalue().encode("utf-8"), b"")

    return call


@contextlib.contextmanager
def _stdin(data: bytes) -> Iterator[None]:
    """sys.stdin a real file holding `data`: `run` passes its stdin's descriptor on to the app."""
    with tempfile.TemporaryFile() as file:
        file.write(data)
        file.seek(0)
        saved, sys.stdin = sys.stdin, io.TextIOWrapper(file, encoding="utf-8")
        try:
            yield
        finally:
            sys.stdin.detach()  # the file is closed by its own `with`
            sys.stdin = saved


@contextlib.contextmanager
def _environment(values: Mapping[str, str]) -> Iterator[None]:
    saved = dict(os.environ)
    os.environ.clear()
    os.environ.update(values)
    try:
        yield
    finally:
        os.environ.clear()
        os.environ.update(saved)
