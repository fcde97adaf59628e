"""What `agentapps run` prints for whatever an app writes: one envelope (or its text with
--human), never a traceback, and never a crash of the runtime's own printing."""

from __future__ import annotations

import contextlib
import io
import json
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from agentapps import cli, human
from agentic_kit import runner
from tests.toolkit.conftest import SUITE, ToolkitResult

APP_MD = """---
name: Echo
description: Prints the file AGENTIC_PRINT names and exits with AGENTIC_EXIT.
version: 0.0.1
entry: python3 app/cli.py
commands: [go]
skills: []
---
"""
AGENTAPPS = str(Path(sys.executable).with_name("agentapps"))  # the console script beside this Python
SCRIPT = """import os, sys
sys.stdout.buffer.write(open(os.environ["AGENTIC_PRINT"], "rb").read())
sys.exit(int(os.environ.get("AGENTIC_EXIT", "0")))
"""


@pytest.fixture
def echo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Callable[[bytes, int], Path]:
    root = tmp_path / "echo"
    (root / "app").mkdir(parents=True)
    (root / "APP.md").write_text(APP_MD)
    (root / "app" / "cli.py").write_text(SCRIPT)

    def prints(stdout: bytes, status: int) -> Path:
        (tmp_path / "stdout").write_bytes(stdout)
        monkeypatch.setenv("AGENTIC_PRINT", str(tmp_path / "stdout"))
        monkeypatch.setenv("AGENTIC_EXIT", str(status))
        return root

    return prints


def run_text(*args: str) -> tuple[int, str]:
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        status = runner.run(cli.app, list(args), render=human.render)  # as the console script does
    return status, out.getvalue()


@pytest.mark.parametrize(
    ("stdout", "violation"),
    [
        (b'{"ok": true, "command": "go", "x": "\\ud800"}', "stdout holds \\ud800, a lone surrogate escape"),
        (b'{"ok": true, "command": "go", "x": "\xff"}', "stdout is not UTF-8 text (it holds the byte 0xff)"),
        (b"[" * 200_000 + b"]" * 200_000, "stdout is nested deeper than 100 levels"),
        (b'{"ok": false, "ok": true}', "an object repeats the key 'ok'"),
    ],
    ids=["lone-surrogate", "not-utf-8", "nested-200000-deep", "repeated-ok"],
)
def test_output_that_is_not_valid_json_text_is_a_contract_violation(
    agentapps: Callable[..., ToolkitResult], echo: Callable[[bytes, int], Path], stdout: bytes, violation: str
) -> None:
    package = echo(stdout, 0)
    result = agentapps("run", str(package), "--approve", "--", "go")
    assert (result.exit_status, result.error_code) == (11, "CONTRACT_VIOLATION")
    [found] = result.envelope["error"]["details"]["violations"]
    assert violation in found
    assert result.envelope["error"]["details"]["mayHaveTakenEffect"] is True
    status, text = run_text("run", str(package), "--approve", "--human", "--", "go")
    assert (status, text.splitlines()[0]) == (
        11,
        f"Error CONTRACT_VIOLATION: {result.envelope['error']['message']}",
    )


@pytest.mark.parametrize(
    "document",
    [
        {"ok": False},
        {"ok": False, "error": "boom"},
        {"ok": False, "error": {"code": 5, "message": 7}},
        {"ok": True, "command": "go"},
        {"ok": True, "items": [1, 2]},
        [1, "two"],
    ],
    ids=["no-error", "error-string", "error-numbers", "no-item", "items-not-objects", "array"],
)
def test_human_text_renders_any_relayed_document(
    echo: Callable[[bytes, int], Path], document: object
) -> None:
    failed = isinstance(document, dict) and document["ok"] is False
    package = echo(json.dumps(document).encode(), 1 if failed else 0)
    status, text = run_text("run", str(package), "--approve", "--human", "--", "go")
    assert (status, json.loads(text)) == (1 if failed else 0, document)


def test_human_is_refused_before_the_app_runs(agentapps: Callable[..., ToolkitResult]) -> None:
    """The app would write the to-do, then print text the runtime cannot relay; an agent told only
    "contract violation" would retry and write it twice. Refused first, nothing is written."""
    result = agentapps("run", str(SUITE / "agentic-to-do"), "--", "add", "x", "--human")
    assert (result.exit_status, result.error_code) == (2, "USAGE_ERROR")
    assert agentapps("run", str(SUITE / "agentic-to-do"), "--", "list").envelope["count"] == 0


def test_an_argument_that_is_not_utf8_is_a_validation_error_and_runs_nothing(
    agentapps: Callable[..., ToolkitResult],
) -> None:
    result = agentapps("run", str(SUITE / "agentic-to-do"), "--", "add", "caf\udce9")
    assert (result.exit_status, result.error_code) == (3, "VALIDATION_ERROR")
    assert result.envelope["error"]["message"] == "Argument 5 is not UTF-8 text (it holds the byte 0xe9)."
    assert agentapps("run", str(SUITE / "agentic-to-do"), "--", "list").envelope["count"] == 0


def test_run_passes_its_own_stdin_to_the_app(tmp_path: Path) -> None:
    completed = subprocess.run(
        [AGENTAPPS, "run", str(SUITE / "agentic-notes"), "--", "add", "t", "--body-file", "-"],
        input=b"line1\nline2\n",
        capture_output=True,
        env={**os.environ, "AGENTIC_STATE_DIR": str(tmp_path)},
        timeout=60,
        check=False,
    )
    assert completed.returncode == 0
    got = subprocess.run(
        [AGENTAPPS, "run", str(SUITE / "agentic-notes"), "--", "get", "nt_0001"],
        capture_output=True,
        env={**os.environ, "AGENTIC_STATE_DIR": str(tmp_path)},
        timeout=60,
        check=False,
    )
    assert json.loads(got.stdout)["item"]["body"] == "line1\nline2\n"
