"""The runtime's invoke: it passes a good envelope on and reports every contract violation."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
from pathlib import Path

import pytest

from agentapps.errors import ToolkitError
from agentapps.harness import AppRunner, ContractViolation
from agentapps.output import nesting
from agentapps.package import Package
from agentapps.runtime import invoke, relay
from tests.states import open_todo

AGENTAPPS = str(Path(sys.executable).with_name("agentapps"))  # the console script beside this Python
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
        ("hello\n", 0, "stdout is not exactly one JSON document (Expecting value)."),
        ('{"ok": true}\n{"ok": true}\n', 0, "stdout is not exactly one JSON document (Extra data)."),
        ("", 0, "stdout is empty, not exactly one JSON document."),
        ('{"n": NaN}\n', 0, "stdout is not exactly one JSON document (NaN is not JSON)."),
        # A number past the largest finite double: JSON readers turn it into Infinity.
        (
            '{"ok": true, "v": 1e999}\n',
            0,
            "stdout is not exactly one JSON document (1e999 is not a finite double).",
        ),
        (
            '{"ok": true, "v": [-1E+400]}\n',
            0,
            "stdout is not exactly one JSON document (-1E+400 is not a finite double).",
        ),
        (
            '{"ok": true, "v": ' + "9" * 400 + "}\n",
            0,
            f"stdout is not exactly one JSON document ({'9' * 20}… is not a finite double).",
        ),
        ('{"ok": "yes"}\n', 0, "`ok` is not a boolean."),
        ('{"ok": "no"}\n', 1, "`ok` is not a boolean."),
        (
            '{"ok": false, "error": {"code": "X", "message": "m"}}\n',
            0,
            "`ok` is false but the exit status is 0.",
        ),
        ('{"ok": true}\n', 3, "`ok` is true but the exit status is 3."),
        (
            '{"ok": true, "command": "go", "x": "\\ud800"}\n',
            0,
            "stdout holds \\ud800, a lone surrogate escape: not valid Unicode.",
        ),
        (
            '{"ok": false, "ok": true}\n',
            0,
            "stdout is not exactly one JSON document (an object repeats the key 'ok').",
        ),
        (
            '{"ok": true, "x": {"a": 1, "a": 2}}\n',
            0,
            "stdout is not exactly one JSON document (an object repeats the key 'a').",
        ),
        ("[" * 200_000 + "]" * 200_000, 0, "stdout is nested deeper than 100 levels."),
        ('{"ok": true, "x": ' + "[" * 100 + "]" * 100 + "}", 0, "stdout is nested deeper than 100 levels."),
    ],
    ids=lambda value: value[:24] if isinstance(value, str) else str(value),
)
def test_what_the_format_forbids_is_a_violation_never_passed_on(
    tmp_path: Path, stdout: str, status: int, violation: str
) -> None:
    invocation = invoke(fake_package(tmp_path, prints(stdout, status)), ["echo"])
    assert [str(found) for found in invocation.violations] == [violation]
    assert not invocation.succeeded


@pytest.mark.parametrize(
    ("stdout", "status", "warning"),
    [
        ('{"items": []}\n', 0, "the success output has no boolean `ok`."),
        ("[1, 2]\n", 0, "the success output has no boolean `ok`."),
        ("", 3, "a failure without a structured JSON error on stdout."),
        ("disk on fire\n", 3, "a failure without a structured JSON error on stdout."),
        ('{"error": "boom"}\n', 1, "a failure without a structured JSON error on stdout."),
    ],
)
def test_what_the_format_only_recommends_is_a_warning(
    tmp_path: Path, stdout: str, status: int, warning: str
) -> None:
    """The seed: parseable JSON on success and a non-zero exit on failure are musts; `ok` and a
    structured error are "strongly recommended but not strictly required"."""
    invocation = invoke(fake_package(tmp_path, prints(stdout, status)), ["echo"])
    assert invocation.violations == []
    assert [str(found) for found in invocation.warnings] == [warning]
    assert invocation.succeeded == (status == 0)


def test_a_success_without_ok_is_relayed_as_the_app_wrote_it(tmp_path: Path) -> None:
    invocation = invoke(fake_package(tmp_path, prints('{"items": [], "count": 0}\n', 0)), ["echo"])
    assert relay(invocation) == ({"items": [], "count": 0}, 0)


@pytest.mark.parametrize(
    ("script", "status", "stdout", "stderr"),
    [
        (prints("disk on fire\n", 3), 3, "disk on fire\n", ""),
        ("import sys\nsys.stderr.write('no such list\\n')\nsys.exit(70)\n", 70, "", "no such list\n"),
        # sh reports the signal on stderr in its own words ("Terminated"), and exits 128 + 15.
        ("import os, signal\nos.kill(os.getpid(), signal.SIGTERM)\n", 128 + 15, "", None),
    ],
    ids=["text-on-stdout", "text-on-stderr", "killed-by-a-signal"],
)
def test_a_failure_without_a_structured_error_is_app_failed_with_the_apps_exit_status(
    tmp_path: Path, script: str, status: int, stdout: str, stderr: str | None
) -> None:
    with pytest.raises(ToolkitError) as raised:
        relay(invoke(fake_package(tmp_path, script), ["echo"]))
    error = raised.value
    assert (error.code, error.exit_status) == ("APP_FAILED", status)
    assert error.details is not None
    assert (error.details["exitStatus"], error.details["stdout"]) == (status, stdout)
    if stderr is not None:
        assert error.details["stderr"] == stderr


def test_an_entry_command_that_cannot_run_is_app_failed_with_the_shells_status(tmp_path: Path) -> None:
    package = fake_package(tmp_path, prints("{}", 0))
    (package.root / "APP.md").write_text(APP_MD.replace("python3 app/cli.py", "no-such-program app/cli.py"))
    with pytest.raises(ToolkitError) as raised:
        relay(invoke(Package(package.root), ["echo"]))
    assert (raised.value.code, raised.value.exit_status) == ("APP_FAILED", 127)
    assert raised.value.details is not None
    assert "not found" in str(raised.value.details["stderr"])


def test_stdout_that_is_not_utf8_is_a_violation_never_replaced(tmp_path: Path) -> None:
    script = 'import sys\nsys.stdout.buffer.write(b\'{"ok": true, "x": "\\xff"}\')\n'
    invocation = invoke(fake_package(tmp_path, script), ["echo"])
    assert [str(found) for found in invocation.violations] == [
        "stdout is not UTF-8 text (it holds the byte 0xff)."
    ]


@pytest.mark.parametrize(
    ("document", "depth"),
    [
        ("text", 0),
        ([], 1),
        ({"a": [1, "[[[", {"b": []}]}, 4),
        ([{"x": 1}] * 1000 + [[[[]]]], 4),  # the deepest among many shallow ones
        ([[[]], {"a": {"b": {"c": {}}}}], 5),
        (json.loads("[" * 150 + "]" * 150), 101),  # past the limit: one more
    ],
)
def test_nesting_is_how_deep_arrays_and_objects_go(document: object, depth: int) -> None:
    assert nesting(document) == depth


def test_nesting_up_to_the_limit_is_a_document(tmp_path: Path) -> None:
    nested = '{"ok": true, "x": ' + "[" * 99 + "]" * 99 + "}\n"
    invocation = invoke(fake_package(tmp_path, prints(nested, 0)), ["echo"])
    assert (invocation.violations, invocation.ok) == ([], True)


def test_an_integer_past_4300_digits_is_a_documented_violation(tmp_path: Path) -> None:
    invocation = invoke(fake_package(tmp_path, prints('{"ok": true, "n": 1' + "0" * 5000 + "}", 0)), ["echo"])
    [violation] = invocation.violations
    assert violation.message.startswith(
        "stdout is not exactly one JSON document (Exceeds the limit (4300 digits)"
    )


def test_a_structured_failure_is_relayed_with_its_exit_status(tmp_path: Path) -> None:
    envelope = {"ok": False, "command": "echo", "error": {"code": "NOT_FOUND", "message": "m"}}
    invocation = invoke(fake_package(tmp_path, prints(json.dumps(envelope), 4)), ["echo"])
    assert relay(invocation) == (envelope, 4)


def test_a_contract_violation_is_never_relayed(tmp_path: Path) -> None:
    with pytest.raises(ToolkitError) as raised:
        relay(invoke(fake_package(tmp_path, prints("hello\n", 0)), ["echo"]))
    assert (raised.value.code, raised.value.exit_status) == ("CONTRACT_VIOLATION", 11)
    assert raised.value.details == {
        "violations": ["stdout is not exactly one JSON document (Expecting value)."],
        "mayHaveTakenEffect": True,
        "exitStatus": 0,
        "stdout": "hello\n",
        "stderr": "",
    }


def test_a_violation_after_exit_zero_says_the_command_ran(tmp_path: Path) -> None:
    """The app exited 0: whatever it did is done. An agent told only "contract violation" would
    retry and do it twice."""
    with pytest.raises(ToolkitError) as raised:
        relay(invoke(fake_package(tmp_path, prints("added\n", 0)), ["echo"]))
    assert raised.value.message.endswith("The command ran (exit status 0) and may have taken effect.")
    assert (
        raised.value.hint == "Do not retry blindly: read the state back (a list or get) to see what happened."
    )


def test_a_violation_after_a_failure_does_not_say_it_ran(tmp_path: Path) -> None:
    with pytest.raises(ToolkitError) as raised:
        relay(invoke(fake_package(tmp_path, prints('{"ok": true}', 3)), ["echo"]))
    assert "may have taken effect" not in raised.value.message
    assert "mayHaveTakenEffect" not in (raised.value.details or {})


def test_an_envelope_that_breaks_the_package_schema_is_a_violation(tmp_path: Path) -> None:
    package = fake_package(tmp_path, prints('{"ok": true, "command": "echo", "extra": 1}\n', 0))
    (package.root / "schemas").mkdir()
    closed = {"type": "object", "properties": {"ok": {}, "command": {}}, "additionalProperties": False}
    (package.root / "schemas" / "success-envelope.schema.json").write_text(json.dumps(closed))
    [violation] = invoke(package, ["echo"]).violations
    assert violation.rule == "schemas.outputs"
    assert violation.message.startswith("envelope does not match its schema at (top)")


@pytest.mark.parametrize(
    "schema",
    [
        "not JSON",
        '{"type": 12}',
        '{"$ref": "https://example.org/never-fetched.json"}',
        '{"$ref": "other.json"}',
    ],
    ids=["not-json", "not-a-schema", "remote-ref", "relative-ref"],
)
def test_a_schema_that_cannot_be_applied_is_left_to_check(tmp_path: Path, schema: str) -> None:
    """schemas/ is optional and its format the package's own: a runtime never crashes on it."""
    package = fake_package(tmp_path, prints('{"ok": true, "command": "echo"}\n', 0))
    (package.root / "schemas").mkdir()
    (package.root / "schemas" / "success-envelope.schema.json").write_text(schema)
    invocation = invoke(package, ["echo"])
    assert (invocation.violations, invocation.succeeded) == ([], True)


def test_the_harness_fails_a_test_on_a_violation(tmp_path: Path) -> None:
    package = fake_package(tmp_path, prints("not json\n", 0))
    with pytest.raises(ContractViolation, match="not exactly one JSON document"):
        AppRunner(package.root, tmp_path / "state").run_subprocess("echo")


def test_the_harness_holds_the_suite_to_what_the_format_only_recommends(tmp_path: Path) -> None:
    package = fake_package(tmp_path, prints("disk on fire\n", 3))
    with pytest.raises(ContractViolation, match="a failure without a structured JSON error"):
        AppRunner(package.root, tmp_path / "state").run_subprocess("echo")


def test_the_harness_fails_a_test_when_an_error_code_has_the_wrong_exit_status(tmp_path: Path) -> None:
    envelope = {"ok": False, "command": "echo", "error": {"code": "NOT_FOUND", "message": "m"}}
    package = fake_package(tmp_path, prints(json.dumps(envelope), 3))
    with pytest.raises(ContractViolation, match="NOT_FOUND must exit 4, not 3"):
        AppRunner(package.root, tmp_path / "state").run_subprocess("echo")


def test_a_schema_ref_is_never_fetched_over_the_network_or_from_the_disk(tmp_path: Path) -> None:
    """A listener that takes connections but never answers: a fetch would hang the run past any
    --timeout (the app is not what is waiting). A FIFO outside the package: reading it would hang too."""
    outside = tmp_path / "outside.json"
    os.mkfifo(outside)
    with socket.socket() as listener:
        listener.bind(("127.0.0.1", 0))
        listener.listen()
        listener.setblocking(False)
        port = listener.getsockname()[1]
        package = fake_package(tmp_path, prints('{"ok": true, "command": "echo"}\n', 0))
        (package.root / "schemas").mkdir()
        for name, ref in (
            ("success-envelope.schema.json", f"http://127.0.0.1:{port}/item.json"),
            ("error-envelope.schema.json", outside.as_uri()),
        ):
            (package.root / "schemas" / name).write_text(json.dumps({"$ref": ref}))
        completed = subprocess.run(
            [AGENTAPPS, "run", str(package.root), "--approve", "--", "echo"],
            capture_output=True,
            text=True,
            timeout=30,
            check=False,
        )
        with pytest.raises(BlockingIOError):
            listener.accept()  # nobody connected
    assert (completed.returncode, json.loads(completed.stdout)) == (0, {"ok": True, "command": "echo"})


TODO_PACKAGE = Package(Path(__file__).resolve().parents[2] / "agentic-to-do")


def todo_list(changed: dict[str, object]) -> dict[str, object]:
    """A list envelope of 1,000 valid to-dos whose 700th has `changed` applied."""
    moment = "2026-04-01T00:00:00.000Z"
    items = [open_todo(i, f"Write section {i}", moment, due_at="2024-02-29") for i in range(1, 1001)]
    items[699] |= changed
    return {"ok": True, "command": "list", "count": 1000, "items": items, "total": 1000}


@pytest.mark.parametrize(
    ("changed", "valid"),
    [
        ({}, True),
        ({"title": "Trailing space "}, False),
        ({"title": "Tab\tinside"}, False),
        ({"title": "No-break space\u00a0"}, False),
        ({"title": "\u2028Line separator first"}, False),
        ({"title": "Ends in a wide letter \u00e9"}, True),
        ({"dueAt": "2026-02-29"}, False),
        ({"dueAt": "2000-02-29T23:59:59.000Z"}, True),
        ({"dueAt": "2026-04-31"}, False),
        ({"id": "td_00001"}, False),
        ({"status": "done"}, False),
        ({"extra": 1}, False),
        ({"description": "x" * 20_001}, False),
    ],
)
def test_every_item_of_a_long_list_is_held_to_the_package_schema(
    changed: dict[str, object], valid: bool
) -> None:
    """The runtime judges with jsonschema-rs, which says quickly whether a document fits and, when
    it does not, the first place where and why: on the patterns and bounds the suite's schemas
    use, its verdict is jsonschema's own."""
    from jsonschema import Draft202012Validator

    from agentapps.output import check_output

    document = todo_list(changed)
    schema = json.loads((TODO_PACKAGE.root / "schemas" / "success-envelope.schema.json").read_text())
    reference = [error.message for error in Draft202012Validator(schema).iter_errors(document)]
    violations = check_output(TODO_PACKAGE, ["list"], 0, json.dumps(document), "").violations
    assert (not reference, not violations) == (valid, valid)
    assert [violation.rule for violation in violations] == ([] if valid else ["schemas.outputs"])


@pytest.mark.parametrize("changed", [{"dueAt": "2024-02-29\n"}, {"id": "td_0700\n"}])
def test_a_pattern_means_what_json_schema_says_not_what_pythons_re_says(changed: dict[str, object]) -> None:
    """A schema's `pattern` is an ECMA-262 regular expression, whose `$` is the end of the string.
    Python's `re` lets `$` match before a last newline too, so jsonschema alone relays a date or an
    id that ends in one; the runtime does not."""
    from jsonschema import Draft202012Validator

    from agentapps.output import check_output

    document = todo_list(changed)
    schema = json.loads((TODO_PACKAGE.root / "schemas" / "success-envelope.schema.json").read_text())
    assert list(Draft202012Validator(schema).iter_errors(document)) == []
    [violation] = check_output(TODO_PACKAGE, ["list"], 0, json.dumps(document), "").violations
    assert violation.rule == "schemas.outputs"
    # The envelope fits none of the commands' envelopes (the schema's anyOf); unchanged, it fits.
    assert violation.message.startswith('envelope does not match its schema at (top): {"command":"list"')
