"""The runtime's invoke: it passes a good envelope on and reports every contract violation."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from agentapps.harness import AppRunner, ContractViolation
from agentapps.runtime import Package, invoke

APP_MD = """---
name: Fake
description: A package whose entry prints whatever the test asks for.
version: 0.0.1
entry:
  command: python3 app/cli.py
commands:
  - echo
skills: []
---
"""


def fake_package(tmp_path: Path, script: str) -> Package:
    root = tmp_path / "fake"
    (root / "app").mkdir(parents=True)
    (root / "APP.md").write_text(APP_MD)
    (root / "app" / "cli.py").write_text(script)
    return Package(root)


def prints(stdout: str, status: int) -> str:
    return f"import sys\nsys.stdout.write({stdout!r})\nsys.exit({status})\n"


def test_a_good_run_has_no_violations(tmp_path: Path) -> None:
    package = fake_package(tmp_path, prints('{"ok": true, "command": "echo", "item": {}}\n', 0))
    invocation = invoke(package, ["echo"])
    assert invocation.violations == []
    assert invocation.ok
    assert invocation.envelope == {"ok": True, "command": "echo", "item": {}}


def test_the_entry_command_runs_from_the_package_root_with_the_arguments(tmp_path: Path) -> None:
    script = (
        "import json, os, sys\nprint(json.dumps({'ok': True, 'cwd': os.getcwd(), 'args': sys.argv[1:]}))\n"
    )
    package = fake_package(tmp_path, script)
    envelope = invoke(package, ["echo", "a b", "--flag"]).envelope
    assert envelope == {"ok": True, "cwd": str(package.root), "args": ["echo", "a b", "--flag"]}


@pytest.mark.parametrize(
    ("stdout", "status", "violation"),
    [
        ("hello\n", 0, "not exactly one JSON document"),
        ('{"ok": true}\n{"ok": true}\n', 0, "not exactly one JSON document"),
        ("", 0, "not exactly one JSON document"),
        ("[1, 2]\n", 0, "not an envelope"),
        ('{"ok": "yes"}\n', 0, "not an envelope"),
        (
            '{"ok": false, "error": {"code": "X", "message": "m"}}\n',
            0,
            "`ok` is false but the exit status is 0",
        ),
        ('{"ok": true}\n', 3, "`ok` is true but the exit status is 3"),
    ],
)
def test_contract_violations_are_reported_never_passed_on(
    tmp_path: Path, stdout: str, status: int, violation: str
) -> None:
    invocation = invoke(fake_package(tmp_path, prints(stdout, status)), ["echo"])
    assert any(violation in found for found in invocation.violations), invocation.violations


def test_an_envelope_that_breaks_the_package_schema_is_a_violation(tmp_path: Path) -> None:
    package = fake_package(tmp_path, prints('{"ok": true, "command": "echo", "extra": 1}\n', 0))
    (package.root / "schemas").mkdir()
    closed = {"type": "object", "properties": {"ok": {}, "command": {}}, "additionalProperties": False}
    (package.root / "schemas" / "success-envelope.schema.json").write_text(json.dumps(closed))
    violations = invoke(package, ["echo"]).violations
    assert len(violations) == 1
    assert violations[0].startswith("envelope does not match its schema")


def test_the_harness_fails_a_test_on_a_violation(tmp_path: Path) -> None:
    package = fake_package(tmp_path, prints("not json\n", 0))
    with pytest.raises(ContractViolation, match="not exactly one JSON document"):
        AppRunner(package.root, tmp_path / "state").run_subprocess("echo")


def test_the_harness_fails_a_test_when_an_error_code_has_the_wrong_exit_status(tmp_path: Path) -> None:
    envelope = {"ok": False, "command": "echo", "error": {"code": "NOT_FOUND", "message": "m"}}
    package = fake_package(tmp_path, prints(json.dumps(envelope), 3))
    with pytest.raises(ContractViolation, match="NOT_FOUND must exit 4, not 3"):
        AppRunner(package.root, tmp_path / "state").run_subprocess("echo")
