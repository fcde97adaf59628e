"""What a hostile package or argument list must never achieve through the runtime, each package
written into the test's own folder (tests/toolkit/hostile.py)."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from mcp import ClientSession

from agentapps.check import DEADLINE_TIMEOUTS, MAX_PACKAGE_BYTES
from agentapps.mcp_server import MAX_ANSWER_BYTES
from tests.packages import PACKAGES
from tests.toolkit.conftest import SUITE, ToolkitResult
from tests.toolkit.hostile import WIPES_ON_RESET, write_package
from tests.toolkit.test_mcp import run as run_mcp


@pytest.fixture
def trusted(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A folder whose packages are trusted, so `--approve` means the confirmation gate only."""
    folder = tmp_path / "packages"
    folder.mkdir()
    monkeypatch.setenv("AGENTAPPS_TRUSTED", str(folder))
    return folder


@pytest.mark.parametrize("flag", ["--help", "-h"])
def test_a_help_flag_after_a_gated_command_does_not_skip_the_gate(
    agentapps: Callable[..., ToolkitResult], tmp_path: Path, trusted: Path, flag: str
) -> None:
    package = write_package(
        trusted / "wipe", WIPES_ON_RESET, commands=("list", "reset"), confirmation=("reset",)
    )
    kept = tmp_path / "state" / "kept.txt"
    kept.parent.mkdir()
    kept.write_text("data")
    refused = agentapps("run", str(package), "--", "reset", flag)
    assert (refused.error_code, refused.exit_status) == ("CONFIRMATION_REQUIRED", 5)
    assert refused.envelope["error"]["details"] == {"gate": "confirmation", "command": "reset"}
    assert kept.read_text() == "data"


def test_a_help_flag_after_a_gated_command_does_not_skip_the_gate_over_mcp(tmp_path: Path) -> None:
    package = write_package(
        tmp_path / "packages" / "wipe", WIPES_ON_RESET, commands=("list", "reset"), confirmation=("reset",)
    )
    kept = tmp_path / "state" / "kept.txt"
    kept.parent.mkdir()
    kept.write_text("data")

    async def scenario(session: ClientSession) -> None:
        for args in (["-h"], ["--help"]):
            refused = await session.call_tool("wipe__reset", {"args": args})
            assert refused.is_error is True
            assert refused.structured_content is not None
            assert refused.structured_content["error"]["code"] == "CONFIRMATION_REQUIRED"
        assert kept.read_text() == "data"

    run_mcp(tmp_path, scenario, [str(package)], env={"AGENTAPPS_TRUSTED": str(tmp_path / "packages")})


@pytest.mark.parametrize("number", ["1e999", "-1e999", "1" + "0" * 400])
def test_a_number_past_the_largest_double_is_a_violation_never_relayed(
    agentapps: Callable[..., ToolkitResult], trusted: Path, number: str
) -> None:
    package = write_package(
        trusted / "overflows", f'print(\'{{"ok": true, "command": "list", "v": {number}}}\')'
    )
    result = agentapps("run", str(package), "--", "list")
    assert (result.error_code, result.exit_status) == ("CONTRACT_VIOLATION", 11)
    assert "is not a finite double" in result.envelope["error"]["message"]


def test_an_option_value_that_reads_like_an_option_stays_its_value_over_mcp(tmp_path: Path) -> None:
    """mcp sends each option as one word, `--name=value`: a value of `--human`, `--` or `-x` is
    never read as an option, by the runtime's gate or by the app."""
    roots = [str(SUITE / name) for name in PACKAGES]

    async def scenario(session: ClientSession) -> None:
        for value in ("--human", "--", "-x", "--confirm", "a=b"):
            added = await session.call_tool("agentic_to_do__add", {"title": "x", "description": value})
            assert added.is_error is not True, added.structured_content
            assert added.structured_content is not None
            assert added.structured_content["item"]["description"] == value
        note = await session.call_tool(
            "agentic_notes__add", {"title": "n", "body": "--human", "tag": ["--", "-x"]}
        )
        assert note.is_error is not True, note.structured_content
        whole = await session.call_tool("agentic_notes__get", {"id": "nt_0001"})  # a write shows no body
        assert whole.structured_content is not None
        assert (whole.structured_content["item"]["body"], whole.structured_content["item"]["tags"]) == (
            "--human",
            ["--", "-x"],
        )
        # The app reads `--human` as the duration it is given, and refuses it as one.
        timer = await session.call_tool("agentic_timer__start", {"label": "t", "duration": "--human"})
        assert timer.structured_content is not None
        assert timer.structured_content["error"]["code"] == "VALIDATION_ERROR"

    run_mcp(tmp_path, scenario, roots)


def check_findings(result: ToolkitResult) -> dict[str, list[str]]:
    """rule → messages of the one package checked."""
    reports = (
        result.envelope["items"] if result.envelope["ok"] else result.envelope["error"]["details"]["items"]
    )
    [report] = reports
    found: dict[str, list[str]] = {}
    for finding in report["findings"]:
        found.setdefault(finding["rule"], []).append(finding["message"])
    return found


# its time bound is seconds wide, far more than a test on the other core adds: not serial
def test_check_refuses_a_package_larger_than_its_bound_before_copying_it(
    agentapps: Callable[..., ToolkitResult], trusted: Path
) -> None:
    """A sparse file costs nothing on disk but would be copied whole: apparent size counts."""
    package = write_package(trusted / "sparse", "print('{\"ok\": true}')")
    with (package / "app" / "data.bin").open("wb") as handle:
        handle.truncate(MAX_PACKAGE_BYTES + 1)
    started = time.monotonic()
    result = agentapps("check", str(package), "--timeout", "1")
    assert time.monotonic() - started < 10  # a bound that proves nothing was copied, not a speed
    assert (result.error_code, result.exit_status) == ("CHECK_FAILED", 13)
    found = check_findings(result)
    assert found["files.size"] == [
        f"the package's files hold more than {MAX_PACKAGE_BYTES} bytes (apparent size); check copies a "
        "package before running it, so it is neither copied nor run: every rule that runs the package "
        "was not run."
    ]
    assert not [rule for rule in found if rule.startswith(("entry.", "output.", "confirmation."))]


SLOW_REFUSALS = """
    import json, sys, time

    time.sleep(0.5)
    print(json.dumps({"ok": False, "error": {"code": "CONFIRMATION_REQUIRED", "message": "no"}}))
    sys.exit(5)
"""


# its time bound is seconds wide, far more than a test on the other core adds: not serial
def test_check_as_a_whole_is_bounded_and_what_it_did_not_run_is_not_passed(
    agentapps: Callable[..., ToolkitResult], trusted: Path
) -> None:
    """40 gated commands of 0.5 s each, with --timeout 1: the deadline (10 × --timeout) stops the
    check, which names the first run it did not make and fails."""
    gated = tuple(f"wipe{number}" for number in range(40))
    package = write_package(trusted / "slow", SLOW_REFUSALS, commands=gated, confirmation=gated)
    started = time.monotonic()
    result = agentapps("check", str(package), "--timeout", "1")
    assert time.monotonic() - started < DEADLINE_TIMEOUTS * 1 + 6
    assert (result.error_code, result.exit_status) == ("CHECK_FAILED", 13)
    [message] = check_findings(result)["check.deadline"]
    assert message.startswith(
        "the runs of this package together passed the check's deadline of 10 s (10 × --timeout): "
        "`entry.command wipe"
    )
    assert message.endswith("and the runs after it were not made, so the rules they check are not verified.")


# An app that saves each `add` (a line in a file of its state folder) and says so.
SAVES_EACH_ADD = """
    import json, os, sys
    from pathlib import Path

    folder = Path(os.environ["AGENTIC_STATE_DIR"])
    folder.mkdir(parents=True, exist_ok=True)
    with (folder / "added.txt").open("a") as added:
        added.write("one\\n")
    print(json.dumps({"ok": True, "command": "add"}))
"""
# Schemas the runtime cannot judge by: jsonschema-rs's recursion limit gives out in one nested this
# deep, and its regular expressions refuse a repetition this large. And one nested past what
# Python's JSON reader takes: not JSON the runtime can read.
UNJUDGEABLE_SCHEMAS = {
    "nested-too-deep": ('{"not":' * 600 + "{}" + "}" * 600, "schemas.valid"),
    "repetition-too-large": (
        '{"properties": {"command": {"type": "string", "pattern": "a{4294967296}"}}}',
        "schemas.valid",
    ),
    "nested-past-the-reader": ("[" * 100_000 + "]" * 100_000, "schemas.json"),
    # Patterns the linear-time kind does not run: a lookahead and Python's own comment syntax (whose
    # backtracking Python's `re` would have judged every answer by).
    "lookahead": ('{"properties": {"command": {"pattern": "^(?!x)(a+)+$"}}}', "schemas.valid"),
    "python-only-pattern": ('{"properties": {"command": {"pattern": "(?#c)^(a+)+$"}}}', "schemas.valid"),
    # jsonschema-rs panics building this one (pyo3's PanicException is no Exception).
    "panics-when-built": (
        '{"allOf": [{"$dynamicAnchor": "m", "$id": "s"}, {"$id": "s", "not": {"$dynamicRef": "#m"}}]}',
        "schemas.valid",
    ),
}


@pytest.mark.parametrize(("schema", "rule"), UNJUDGEABLE_SCHEMAS.values(), ids=list(UNJUDGEABLE_SCHEMAS))
def test_a_schema_the_runtime_cannot_judge_by_is_not_applied_and_check_names_it(
    agentapps: Callable[..., ToolkitResult], trusted: Path, tmp_path: Path, schema: str, rule: str
) -> None:
    """The runtime relays the app's answer (the schema judges nothing, as one that fails the
    metaschema), never an internal error saying nothing was saved; check reports the schema, as a
    warning: the seed fixes no format for schemas/, so a file the runtime cannot apply is this
    suite's concern, never a failed package."""
    package = write_package(trusted / "saves", SAVES_EACH_ADD, commands=("add",))
    (package / "schemas").mkdir()
    (package / "schemas" / "success-envelope.schema.json").write_text(schema)
    added = agentapps("run", str(package), "--", "add")
    assert (added.exit_status, added.envelope) == (0, {"ok": True, "command": "add"})
    assert (tmp_path / "state" / "added.txt").read_text() == "one\n"
    found = [
        (finding["rule"], finding["severity"], finding["basis"], finding["where"])
        for finding in every_finding(agentapps, package)
    ]
    assert (rule, "warning", "suite", "schemas/success-envelope.schema.json") in found
    assert not [each for each in found if each[0].startswith("schemas.") and each[1] == "error"], found


def every_finding(agentapps: Callable[..., ToolkitResult], package: Path) -> list[dict[str, Any]]:
    """Every finding of `agentapps check PACKAGE`, passed or not (this package's app has faults
    of its own: it answers an unknown command with success)."""
    checked = agentapps("check", str(package))
    reports = (
        checked.envelope["items"] if checked.envelope["ok"] else checked.envelope["error"]["details"]["items"]
    )
    findings: list[dict[str, Any]] = reports[0]["findings"]
    return findings


@pytest.mark.parametrize(
    ("content", "said"),
    [
        ('[{"name": "add", "mutatesState": true}]', [("warning", "suite")]),  # command metadata
        ("not json at all", [("warning", "suite")]),
        # A JSON Type Definition reads as a JSON Schema that asks nothing: nothing to say.
        ('{"elements": {"properties": {"id": {"type": "string"}}}}', []),
    ],
)
def test_a_schemas_file_of_another_format_is_a_warning_never_a_failed_package(
    agentapps: Callable[..., ToolkitResult], trusted: Path, content: str, said: list[tuple[str, str]]
) -> None:
    """Found by a runtime author: check failed a seed-conformant package whose schemas/ held
    command metadata as a JSON array, calling it "a rule of the seed", though the seed lists
    schemas/ as optional and fixes no format for its files. Such a file is not applied, and check
    says so as a warning of this suite's."""
    package = write_package(trusted / "saves", SAVES_EACH_ADD, commands=("add",))
    (package / "schemas").mkdir()
    (package / "schemas" / "commands.json").write_text(content)
    schema_findings = [f for f in every_finding(agentapps, package) if f["where"] == "schemas/commands.json"]
    assert [(f["severity"], f["basis"]) for f in schema_findings] == said, schema_findings


def test_a_runtime_that_fails_after_the_app_ran_says_it_may_have_taken_effect(
    agentapps: Callable[..., ToolkitResult],
    trusted: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Whatever goes wrong in the runtime's own check of an answer, the app has run by then: the
    error says so, never that nothing was saved."""
    package = write_package(trusted / "saves", SAVES_EACH_ADD, commands=("add",))

    def fails(*_: object, **__: object) -> None:
        raise RecursionError("maximum recursion depth exceeded")

    monkeypatch.setattr("agentapps.runtime.check_output", fails)
    added = agentapps("run", str(package), "--", "add")
    assert (tmp_path / "state" / "added.txt").read_text() == "one\n"  # the app saved
    error = added.envelope["error"]
    assert (added.exit_status, error["code"]) == (1, "INTERNAL_ERROR"), added.envelope
    assert "Nothing was saved" not in error["hint"]
    assert error["details"]["mayHaveTakenEffect"] is True
    assert error["details"]["exitStatus"] == 0


# A value that Python's backtracking `re` would take some 2**40 steps to find unfit for this
# pattern: the runtime's regular expressions (jsonschema-rs's, ECMA-262's) run in linear time.
BACKTRACKS = {"properties": {"v": {"type": "string", "pattern": "^(a+)+$"}}}
PRINTS_A_VALUE_THAT_BACKTRACKS = f'print(\'{{"ok": true, "command": "list", "v": "{"a" * 40}!"}}\')'


def test_a_backtracking_pattern_in_a_package_schema_cannot_hold_a_call(tmp_path: Path, trusted: Path) -> None:
    """A one-shot run (a process of its own, so a hang fails the test at its timeout) and an MCP
    call (in the server's worker thread, which no signal can interrupt) each answer
    CONTRACT_VIOLATION, naming the pattern."""
    package = write_package(trusted / "backtracks", PRINTS_A_VALUE_THAT_BACKTRACKS)
    (package / "schemas").mkdir()
    (package / "schemas" / "success-envelope.schema.json").write_text(json.dumps(BACKTRACKS))
    ran = subprocess.run(
        [sys.executable, "-m", "agentapps", "run", str(package), "--", "list"],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    error = json.loads(ran.stdout)["error"]
    assert (ran.returncode, error["code"]) == (11, "CONTRACT_VIOLATION"), ran.stdout
    assert f'at v: "{"a" * 40}!" does not match "^(a+)+$"' in error["message"]

    async def scenario(session: ClientSession) -> None:
        answer = await session.call_tool("backtracks__list", {})
        assert answer.is_error is True
        assert answer.structured_content is not None
        assert answer.structured_content["error"]["code"] == "CONTRACT_VIOLATION"

    run_mcp(tmp_path, scenario, [str(package)], env={"AGENTAPPS_TRUSTED": str(trusted)})


# A success schema whose `$ref` refers to itself: an object does not fit (it is no string), and
# the runtime says where (Python's jsonschema, which it asked before, ran past its recursion).
REFERS_TO_ITSELF = '{"$defs": {"a": {"$ref": "#/$defs/a"}}, "$ref": "#/$defs/a", "type": "string"}'


def test_a_mismatch_under_a_ref_to_itself_is_placed(
    agentapps: Callable[..., ToolkitResult], trusted: Path, tmp_path: Path
) -> None:
    """The answer is not relayed (it does not fit its schema) and the error says the app ran; check
    reports the same mismatch as a finding, never an internal error."""
    package = write_package(trusted / "saves", SAVES_EACH_ADD, commands=("add",))
    (package / "schemas").mkdir()
    (package / "schemas" / "success-envelope.schema.json").write_text(REFERS_TO_ITSELF)
    added = agentapps("run", str(package), "--", "add")
    assert (tmp_path / "state" / "added.txt").read_text() == "one\n"
    assert added.error_code == "CONTRACT_VIOLATION", added.envelope
    assert added.envelope["error"]["details"]["mayHaveTakenEffect"] is True
    assert (
        'at (top): {"command":"add","ok":true} is not of type "string"' in added.envelope["error"]["message"]
    )
    checked = agentapps("check", str(package))
    assert checked.error_code == "CHECK_FAILED", checked.envelope
    [report] = checked.envelope["error"]["details"]["items"]
    assert any(
        finding["rule"] == "schemas.outputs" and 'is not of type "string"' in finding["message"]
        for finding in report["findings"]
    ), report["findings"]


def test_check_and_mcp_start_up_go_on_when_the_runtime_cannot_check_an_answer(
    agentapps: Callable[..., ToolkitResult], trusted: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Whatever fails in the runtime's check of an answer: check reports it for that run and goes
    on to the next package; MCP start-up leaves the package out and serves the others."""
    from agentapps.mcp_server import load_commands
    from agentapps.runtime import RunOptions

    broken = write_package(trusted / "broken", SAVES_EACH_ADD, commands=("add",))

    def fails(*_: object, **__: object) -> None:
        raise RecursionError("maximum recursion depth exceeded")

    monkeypatch.setattr("agentapps.runtime.check_output", fails)
    checked = agentapps("check", str(broken))
    assert checked.error_code == "CHECK_FAILED", checked.envelope
    [report] = checked.envelope["error"]["details"]["items"]
    assert any(finding["rule"] == "schemas.outputs" for finding in report["findings"]), report
    todo = SUITE / "agentic-to-do"
    monkeypatch.setenv("AGENTAPPS_CACHE_DIR", str(tmp_path / "describes"))  # describe runs, not kept
    served = load_commands([todo], True, RunOptions(20.0))  # describe's answer cannot be checked
    assert served == {}
    monkeypatch.undo()
    assert "agentic_to_do__add" in load_commands([todo], True, RunOptions(20.0))


@pytest.mark.parametrize("loop", ["itself", "pair"])
def test_a_schema_that_is_a_symlink_loop_is_reported_never_a_crash(
    agentapps: Callable[..., ToolkitResult], trusted: Path, tmp_path: Path, loop: str
) -> None:
    """Found by a review of this round's fixes: a file in schemas/ that is a symlink loop made
    Path.resolve raise RuntimeError: check ended in INTERNAL_ERROR, and `run` reported every write
    as an internal error after it took effect. The file is named as one that cannot be read; the
    app's answer is relayed."""
    package = write_package(trusted / "saves", SAVES_EACH_ADD, commands=("add",))
    (package / "schemas").mkdir()
    if loop == "itself":
        (package / "schemas" / "success-envelope.schema.json").symlink_to("success-envelope.schema.json")
    else:
        (package / "schemas" / "a.json").symlink_to("b.json")
        (package / "schemas" / "b.json").symlink_to("a.json")
    added = agentapps("run", str(package), "--", "add")
    assert (added.exit_status, added.envelope) == (0, {"ok": True, "command": "add"})
    assert (tmp_path / "state" / "added.txt").read_text() == "one\n"
    checked = agentapps("check", str(package))
    assert checked.error_code in (None, "CHECK_FAILED"), checked.envelope
    assert any(finding["where"].startswith("schemas/") for finding in every_finding(agentapps, package))


# An `add` whose answer is over the MCP bound in two ways: 20,000 small keys, or one huge key name.
ANSWERS_TOO_MUCH = """
    import json, sys
    shape = sys.argv[2] if len(sys.argv) > 2 else ""
    answer = {"ok": True, "command": "add"}
    if shape == "many":
        answer.update({f"k{number}": number for number in range(20_000)})
    else:
        answer["k" * 100_000] = 1
    print(json.dumps(answer))
"""


@pytest.mark.parametrize("shape", ["many", "huge"])
def test_a_write_answered_ok_is_cut_within_the_bound_however_its_keys_are(
    tmp_path: Path, trusted: Path, shape: str
) -> None:
    """Found by a review of this round's fixes: a write answered ok was a success with its large
    values left out, but `cut.leftOut` listed every key left out in full: 200 KB for 20,000 keys,
    100 KB for one key of 100,000 characters. It names the first five, cut short, and counts the rest."""
    package = write_package(trusted / "bigwrite", ANSWERS_TOO_MUCH, commands=("add",))

    async def scenario(session: ClientSession) -> None:
        result = await session.call_tool("bigwrite__add", {"args": [shape]})
        assert result.is_error is not True, result.structured_content
        text = result.content[0].text  # type: ignore[union-attr]
        assert len(text.encode()) <= 2_000, text[:300]
        content = result.structured_content
        assert content is not None
        assert content["ok"] is True
        assert content["cut"]["bytes"] > MAX_ANSWER_BYTES
        assert len(content["cut"]["leftOut"]) <= 5

    run_mcp(tmp_path, scenario, [str(package)], env={"AGENTAPPS_TRUSTED": str(trusted)})
