"""A runtime refusal that can follow a commit never reads as "nothing happened": past the output
cap, past the timeout, or a broken answer after exit 0, the envelope says mayHaveTakenEffect and
how to check, so an agent reads the state back instead of retrying a change that is already saved."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

from tests.states import open_todo
from tests.toolkit.conftest import SUITE

AGENTAPPS = str(Path(sys.executable).with_name("agentapps"))
TODO = str(SUITE / "agentic-to-do")
READ_BACK = "read the state back (a list or get)"


def run(state: Path, *args: str, stdin: str = "") -> tuple[int, dict[str, Any]]:
    env = {**os.environ, "AGENTIC_STATE_DIR": str(state)}
    env.pop("AGENTIC_NOW", None)
    done = subprocess.run(
        [AGENTAPPS, *args], input=stdin, capture_output=True, text=True, env=env, check=False
    )
    return done.returncode, json.loads(done.stdout)


def export_of(count: int) -> str:
    moment = "2026-01-01T00:00:00.000Z"
    items = [open_todo(number, f"item {number}", moment) for number in range(1, count + 1)]
    document = {"ok": True, "command": "export", "schemaVersion": 2, "count": count, "items": items}
    return json.dumps(document)


def test_a_change_killed_at_the_output_cap_says_it_may_have_taken_effect(tmp_path: Path) -> None:
    """Reproduced with an import (2,000 items saved, then a bare CONTRACT_VIOLATION): any change
    whose answer passes the cap was saved before it spoke, so the refusal says so."""
    status, envelope = run(
        tmp_path, "run", "--max-output", "5000", TODO, "--", "add", "long", "--description", "x" * 20_000
    )
    error = envelope["error"]
    assert (status, error["code"]) == (11, "CONTRACT_VIOLATION")
    assert error["details"]["mayHaveTakenEffect"] is True
    assert "passed the output cap of 5000 bytes" in error["message"]
    assert READ_BACK in error["hint"]
    assert "--max-output" in error["hint"]
    # The flag is true to the state: the item was saved.
    status, listed = run(tmp_path, "run", TODO, "--", "list")
    assert (status, [item["title"] for item in listed["items"]]) == (0, ["long"])


def test_an_import_of_2000_items_answers_within_the_output_cap(tmp_path: Path) -> None:
    """The import of the finding now answers in a bounded form (counts and at most 100 ids), so
    the same call under the same cap succeeds instead of being reported as a failure."""
    status, envelope = run(
        tmp_path, "run", "--max-output", "100000", TODO, "--", "import", "--file", "-", stdin=export_of(2000)
    )
    # Into an empty list the export is restored with its own ids, so no id is mapped.
    assert (status, envelope) == (
        0,
        {"ok": True, "command": "import", "count": 2000, "restored": True, "ids": {}},
    )
    status, listed = run(tmp_path, "run", TODO, "--", "list", "--limit", "1")
    assert (status, listed["total"]) == (0, 2000)


def test_a_timed_out_change_says_it_may_have_taken_effect(tmp_path: Path) -> None:
    root = tmp_path / "slow"
    (root / "app").mkdir(parents=True)
    (root / "APP.md").write_text(
        "---\nname: Slow\ndescription: Saves, then hangs.\nversion: 0.0.1\n"
        "entry: python3 app/cli.py\ncommands: [go]\nskills: []\n---\n"
    )
    saved = tmp_path / "saved"
    (root / "app" / "cli.py").write_text(
        f"import pathlib, time\npathlib.Path({str(saved)!r}).write_text('done')\ntime.sleep(60)\n"
    )
    status, envelope = run(tmp_path, "run", "--approve", "--timeout", "2", str(root), "--", "go")
    error = envelope["error"]
    assert (status, error["code"]) == (12, "TIMEOUT")
    assert error["details"] == {"mayHaveTakenEffect": True}
    assert READ_BACK in error["hint"]
    assert saved.read_text() == "done"
