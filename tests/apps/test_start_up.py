"""What a command loads at start-up: structural facts only (speed itself is measured by
`nox -s bench`, never asserted in a test)."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from agentapps.harness import AppRunner
from tests.conftest import AppFacts

PROBE = """
import json, runpy, sys
sys.argv = ["app/cli.py", *sys.argv[1:]]
try:
    runpy.run_path("app/cli.py", run_name="__main__")
except SystemExit:
    pass
watched = {"filelock", "rich", "jsonschema", "yaml"}
print(json.dumps(sorted(name for name in sys.modules if name.split(".")[0] in watched)), file=sys.stderr)
"""


def modules_loaded(app: AppRunner, args: tuple[str, ...]) -> list[str]:
    completed = subprocess.run(
        [sys.executable, "-c", PROBE, *args],
        cwd=app.package.root,
        env={"AGENTIC_STATE_DIR": str(app.state_dir), "PATH": ""},
        capture_output=True,
        text=True,
        check=True,
    )
    loaded: list[str] = json.loads(completed.stderr.strip().splitlines()[-1])
    return loaded


@pytest.mark.parametrize("command", ["read", "write"])
def test_only_writes_import_filelock_and_nothing_imports_rich(
    app: AppRunner, facts: AppFacts, command: str
) -> None:
    app.run(*facts.write)
    loaded = modules_loaded(app, facts.read if command == "read" else facts.write)
    assert [name for name in loaded if name.split(".")[0] in {"rich", "jsonschema", "yaml"}] == []
    assert any(name.startswith("filelock") for name in loaded) == (command == "write")
