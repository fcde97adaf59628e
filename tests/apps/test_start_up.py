"""What a command loads at start-up, and in what order: structural facts only (speed itself is
measured by `nox -s bench`, never asserted in a test)."""

from __future__ import annotations

import ast
import json
import subprocess
import sys
from pathlib import Path

import pytest

from agentapps.harness import AppRunner
from tests.packages import APPS, AppFacts

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


ENTRY_SCRIPTS = [
    *(Path(__file__).resolve().parents[2] / facts.package / "app" / "cli.py" for facts in APPS),
    Path(__file__).resolve().parents[2] / "shared" / "agentapps" / "templates" / "package" / "app" / "cli.py",
]


@pytest.mark.parametrize("script", ENTRY_SCRIPTS, ids=lambda path: str(path.parents[1].name))
def test_sigint_is_set_to_end_the_run_quietly_before_any_other_import(script: Path) -> None:
    """Whatever runs before it is a window in which a SIGINT is Python's (a KeyboardInterrupt on
    stderr): nothing but the docstring and the import of the signal module itself (`_signal`: no
    Python code to load) may come first — not even `from __future__ import annotations`."""
    docstring, first, second = ast.parse(script.read_text()).body[:3]
    assert isinstance(docstring, ast.Expr)
    assert isinstance(docstring.value, ast.Constant)
    assert isinstance(first, ast.Import)
    assert [alias.name for alias in first.names] == ["_signal"]
    assert isinstance(second, ast.If)
    assert "_signal.signal(_signal.SIGINT, _signal.SIG_DFL)" in ast.unparse(second)
