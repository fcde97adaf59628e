"""`agentapps conformance`: its answer, pass or fail, and every refusal of what it is given."""

from __future__ import annotations

import json
import os
import shutil
import signal
import sys
from pathlib import Path

import pytest

from agentapps import cli, human
from agentapps.conformance import human_report
from agentapps.conformance.protocol import command_adapter
from agentic_kit import runner
from tests.toolkit.test_process import alive, ends_soon

from .conftest import AGENTAPPS, COLLECTION, conformance

CASES_DIR = COLLECTION / "cases"
TRUST_CASES = [
    CASES_DIR / "catalog" / "trust-follows-the-folders-the-user-trusts.json",
    CASES_DIR / "run" / "an-untrusted-package-runs-only-with-approval.json",
]
IGNORES_TRUST = f"{sys.executable} -m tests.conformance.adapters.ignores_trust"


def test_a_run_that_passes_lists_every_case_and_a_summary() -> None:
    status, envelope = conformance("--runtime", AGENTAPPS, *map(str, TRUST_CASES))
    assert (status, envelope["ok"], envelope["command"], envelope["count"]) == (0, True, "conformance", 2)
    assert envelope["summary"] == {
        "runtime": AGENTAPPS,
        "summary": f"{AGENTAPPS}: 2/2 cases, 0/0 required",
        "cases": 2,
        "passed": 2,
        "required": 0,
        "requiredPassed": 0,
        "suite": 2,
        "suitePassed": 2,
        "conforms": True,
    }
    assert envelope["items"][0] == {
        "case": "catalog/trust-follows-the-folders-the-user-trusts",
        "path": str(TRUST_CASES[0]),
        "tier": "catalog",
        "level": "suite",
        "description": json.loads(TRUST_CASES[0].read_text())["description"],
        "passed": True,
        "steps": 1,
        "problem": None,
        "failure": None,
    }


def test_a_run_whose_failed_cases_are_all_the_suites_is_suite_cases_failed_with_every_result(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.chdir(COLLECTION.parent)  # `-m tests...` finds the wrong adapter from there
    status, envelope = conformance("--runtime", IGNORES_TRUST, *map(str, TRUST_CASES))
    error = envelope["error"]
    assert (status, error["code"]) == (17, "SUITE_CASES_FAILED")
    first = "catalog/trust-follows-the-folders-the-user-trusts"
    assert error["message"] == (
        f"{IGNORES_TRUST}: 0/2 cases, 0/0 required: no case the seed requires ran; 2 of this "
        f"suite's own conventions did not. First failed: {first}."
    )
    assert error["details"]["summary"]["conforms"] is True
    assert (error["details"]["summary"]["suite"], error["details"]["summary"]["suitePassed"]) == (2, 0)
    [catalog, run] = error["details"]["items"]
    assert catalog["failure"] == {
        "step": 1,
        "operation": "AGENTAPPS_TRUSTED={case}/packages/valid-package catalog {case}/packages",
        "differences": ['packages.elsewhere.trust: expected "untrusted", got "trusted"'],
        "exitStatus": 0,
        "stdout": catalog["failure"]["stdout"],
        "stderr": "",
    }
    assert '"source":"{case}/packages/elsewhere"' in catalog["failure"]["stdout"]
    assert run["failure"]["operation"] == (
        "AGENTAPPS_TRUSTED='' run {case}/packages/writes-outside-its-folder -- list"
    )


def test_a_failed_required_case_is_conformance_failed_whatever_the_suites_cases_gave(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A runtime that lets a leading flag skip the gate breaks the seed: 15, even beside a suite
    case it fails too, and the message names the required case first."""
    monkeypatch.chdir(COLLECTION.parent)
    gate = CASES_DIR / "run" / "a-leading-option-never-skips-the-gate.json"
    adapter = f"{sys.executable} -m tests.conformance.adapters.lets_a_leading_flag_skip_the_gate"
    status, envelope = conformance("--runtime", adapter, str(gate))
    error = envelope["error"]
    assert (status, error["code"]) == (15, "CONFORMANCE_FAILED")
    assert error["message"] == (
        f"{adapter}: 0/1 cases, 0/1 required. First failed of the seed's required cases: "
        "run/a-leading-option-never-skips-the-gate."
    )
    assert error["details"]["summary"]["conforms"] is False


def test_required_runs_only_the_cases_the_seed_requires() -> None:
    status, envelope = conformance("--runtime", AGENTAPPS, "--required", str(CASES_DIR / "activate"))
    assert status == 0
    assert {item["level"] for item in envelope["items"]} == {"required"}
    assert envelope["summary"]["summary"] == f"{AGENTAPPS}: 3/3 cases, 3/3 required"


def test_cases_from_a_suite_nobody_trusts_run_only_with_approval(tmp_path: Path) -> None:
    """The adapter runs the packages the cases copy: the trust rule applies to where they come from."""
    shutil.copytree(COLLECTION, tmp_path / "conformance", ignore=shutil.ignore_patterns("cases"))
    case = tmp_path / "conformance" / "cases" / "run" / "talks-on-stderr.json"
    case.parent.mkdir(parents=True)
    step = {"run": {"package": "p", "args": ["list"]}, "expect": {"exit": 0, "answer": {"ok": True}}}
    data = {"description": "d", "level": "suite", "cite": "README, The toolkit", "steps": [step]}
    case.write_text(json.dumps({**data, "packages": {"p": {"from": "conformance/packages/talks-on-stderr"}}}))
    status, envelope = conformance("--runtime", AGENTAPPS, str(case))
    assert (status, envelope["error"]["code"]) == (5, "CONFIRMATION_REQUIRED")
    assert envelope["error"]["details"] == {"gate": "trust", "untrusted": [str(tmp_path)]}
    status, envelope = conformance("--runtime", AGENTAPPS, "--approve", str(case))
    assert (status, envelope["summary"]["passed"]) == (0, 1)


@pytest.mark.parametrize(
    ("args", "code", "message"),
    [
        ([], "USAGE_ERROR", "conformance needs its --runtime option."),
        (["--runtime", "x", "--jobs", "0"], "VALIDATION_ERROR", None),
        (["--runtime", "x", "no/such/cases"], "NOT_FOUND", "No case at no/such/cases."),
        (
            ["--runtime", "x", str(COLLECTION / "adapters")],
            "NOT_FOUND",
            "No case files (*.json) under the paths given.",
        ),
        (
            ["--runtime", "x", "--required", str(TRUST_CASES[0])],
            "NOT_FOUND",
            "None of the cases given is required by the seed.",
        ),
    ],
)
def test_what_cannot_run_is_refused_before_any_adapter_runs(
    args: list[str], code: str, message: str | None
) -> None:
    status, envelope = conformance(*args)
    assert envelope["error"]["code"] == code
    assert status == {"USAGE_ERROR": 2, "VALIDATION_ERROR": 3, "NOT_FOUND": 4}[code]
    if message is not None:
        assert envelope["error"]["message"] == message


def test_a_file_that_is_not_a_case_is_a_validation_error_naming_it(tmp_path: Path) -> None:
    shutil.copytree(COLLECTION, tmp_path / "conformance", ignore=shutil.ignore_patterns("cases"))
    bad = tmp_path / "conformance" / "cases" / "run" / "bad.json"
    bad.parent.mkdir(parents=True)
    bad.write_text('{"description": "no steps"}')
    status, envelope = conformance("--runtime", "x", str(bad))
    assert (status, envelope["error"]["code"]) == (3, "VALIDATION_ERROR")
    assert envelope["error"]["message"].startswith(f"{bad}: not a case: ")
    assert '(top): missing "level", "cite", "packages", "steps"' in envelope["error"]["message"]


def test_human_text_says_why_a_case_could_not_run(capsys: pytest.CaptureFixture[str]) -> None:
    args = ["conformance", "--human", "--runtime", "/no/such/adapter", str(TRUST_CASES[1])]
    assert (
        runner.run(cli.app, args, human.render) == 17
    )  # SUITE_CASES_FAILED: the one case given is the suite's
    assert capsys.readouterr().out == (
        "run\n"
        "  FAIL  suite     an-untrusted-package-runs-only-with-approval\n"
        "        the adapter cannot start: /no/such/adapter: No such file or directory\n"
        "/no/such/adapter: 0/1 cases, 0/0 required\n"
        "no case the seed requires ran; 1 of this suite's own conventions did not (a runtime need not "
        "keep them)\n"
    )


def test_human_text_keeps_every_line_of_a_difference_under_its_rule() -> None:
    """An adapter's stdout quoted in a difference may run over several lines."""
    failure = {
        "step": 1,
        "operation": "AGENTAPPS_TRUSTED='' catalog {case}/packages",
        "differences": [
            "protocol: the adapter's stdout is not exactly one JSON document (Extra data): {}\n{}"
        ],
    }
    result = {"tier": "catalog", "case": "catalog/x", "level": "suite", "passed": False, "problem": None}
    text = human_report(
        {"summary": "r: 0/1 cases, 0/0 required"}, [{**result, "failure": failure, "steps": 1}]
    )
    assert text.splitlines()[3:5] == [
        "        protocol: the adapter's stdout is not exactly one JSON document (Extra data): {}",
        "        {}",
    ]


def test_human_text_quotes_the_end_of_a_failed_steps_stderr() -> None:
    """Found from outside: an adapter that could not read its arguments said why only on stderr,
    which the JSON report held and the --human text left out."""
    failure = {
        "step": 1,
        "operation": "AGENTAPPS_TRUSTED='' catalog {case}/packages",
        "differences": ["exit status: 1, not 0"],
        "stderr": "Traceback (most recent call last):\n  ...\nError: cannot read /x/run/APP.md\n",
    }
    result = {"tier": "catalog", "case": "catalog/x", "level": "seed", "passed": False, "problem": None}
    text = human_report({"summary": "r"}, [{**result, "failure": failure, "steps": 1}])
    assert "        its stderr ends: Error: cannot read /x/run/APP.md" in text.splitlines()


@pytest.mark.parametrize(
    ("counts", "verdict"),
    [
        ((2, 1, 1, 0, 1, 1), "1 of the seed's required cases failed: the runtime breaks the seed"),
        (
            (2, 1, 1, 1, 1, 0),
            "every case the seed requires passed; 1 of this suite's own conventions did not (a runtime "
            "need not keep them)",
        ),
        ((2, 2, 1, 1, 1, 1), None),
    ],
    ids=["a required case failed", "only a suite case failed", "all passed"],
)
def test_human_text_ends_saying_which_tier_failed(counts: tuple[int, ...], verdict: str | None) -> None:
    keys = ("cases", "passed", "required", "requiredPassed", "suite", "suitePassed")
    text = human_report({"summary": "r: the line", **dict(zip(keys, counts, strict=True))}, [])
    assert text.splitlines()[-1] == (verdict or "r: the line")


def test_what_a_runtime_leaves_running_ends_with_its_step(tmp_path: Path) -> None:
    """A runtime under test that returns while something it started runs on (a timed-out app it
    did not kill, as the minimal runtime leaves it) leaves nothing running on the machine that
    runs the cases: the step's process group is ended with it."""
    leaves_a_sleeper = command_adapter("sh -c 'sleep 300 >/dev/null 2>&1 </dev/null & echo $!' runtime")
    reply = leaves_a_sleeper([], {"PATH": os.defpath}, b"", 30.0)
    sleeper = int(reply.stdout)
    try:
        assert ends_soon(sleeper)
    finally:
        if alive(sleeper):
            os.kill(sleeper, signal.SIGKILL)
