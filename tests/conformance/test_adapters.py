"""The cases through runtimes: agentapps passes every one, the minimal Node.js runtime every one
the seed requires, and each deliberately wrong adapter fails exactly the cases of its flaw, saying
what differs."""

from __future__ import annotations

import contextlib
import json
import os
import sys
from collections.abc import Callable

import pytest

from agentapps.conformance import Case, CaseResult, run_case, run_cases

from .adapters import (
    ignores_trust,
    lets_a_leading_flag_skip_the_gate,
    reads_the_body_at_catalog,
    reads_the_body_leniently_at_catalog,
)
from .conftest import (
    AGENTAPPS,
    CASES,
    NODE_ADAPTER,
    SUITE,
    agentapps_main,
    conformance,
    in_process,
    results_of,
)

# What the minimal runtime leaves out on purpose (its header says so): all suite cases.
NODE_LEAVES_OUT = {
    "activate/a-document-past-1-mib-is-package-invalid": "answer.ok: expected false, got true",
    "activate/a-skill-that-breaks-agent-skills-is-package-invalid": "answer.ok: expected false, got true",
    "activate/all-that-activation-returns-is-at-most-4-mib": "exit status: expected 10, got 0",
    "catalog/a-byte-order-mark-and-spaced-fences-are-tolerated": (
        'packages.byte-order-mark-and-spaced-fences.status: expected "ok", got "broken"'
    ),
    "catalog/a-key-given-twice-is-broken": (
        'packages.repeated-frontmatter-key.status: expected "broken", got "ok"'
    ),
    "catalog/a-skill-is-a-shortname-never-a-path": (
        'packages.skill-outside-the-package.status: expected "broken", got "ok"'
    ),
    "catalog/tags-filter-the-catalog-when-asked": "exit status: expected 0, got 2",
    "run/a-child-left-holding-stdout-cannot-hold-the-call": "exit status: expected 0, got 12",
    "run/a-command-word-holding-whitespace-is-a-usage-error": "exit status: expected 2, got 0",
    "run/a-key-given-twice-in-one-object-is-a-contract-violation": "exit status: expected 11, got 0",
    "run/a-lone-surrogate-escape-is-a-contract-violation": "exit status: expected 11, got 0",
    "run/a-process-in-a-new-session-holding-stdout-cannot-hold-the-call": "exit status: expected 0, got 12",
    "run/an-entry-command-ending-in-an-operator-is-package-invalid": "exit status: expected 10, got 127",
    "run/an-envelope-that-breaks-the-packages-own-schemas-is-a-contract-violation": (
        "exit status: expected 11, got 0"
    ),
    "run/an-option-after-a-whole-command-runs-unless-a-later-word-continues-a-gated-path": (
        "exit status: expected 0, got 2"
    ),
    "run/help-after-a-gated-command-needs-approval-too": "exit status: expected 0, got 2",
    "run/human-text-is-refused-before-it-runs": "exit status: expected 0, got 2",
    "run/ok-false-with-exit-status-0-is-a-contract-violation": "exit status: expected 11, got 0",
    "run/output-nested-past-100-levels-is-a-contract-violation": "exit status: expected 11, got 0",
    "run/output-that-is-not-utf-8-is-a-contract-violation": "exit status: expected 11, got 0",
    "run/the-app-reads-the-runtimes-stdin-as-it-is": (
        'answer.stdin: expected "line 1\\nline 2 — ünïcode\\n\\n", got ""'
    ),
    "run/the-app-sees-only-the-allowed-environment": (
        'answer.item.environment.CONFORMANCE_SECRET: expected absent, got "do-not-leak"'
    ),
    "run/the-gate-matches-command-words-in-any-case": "exit status: expected 5, got 0",
}
TERABYTE_UNREAD = 'packages.valid-package: not listed (expected {"status": "ok", "name": "Valid Package"})'
# Each wrong adapter: the cases it must fail, each with a difference it must show.
WRONG_ADAPTERS: dict[Callable[[list[str]], int], dict[str, str]] = {
    reads_the_body_at_catalog.main: {
        "catalog/the-body-is-never-read": 'packages.body-not-utf-8.status: expected "ok", got "broken"',
        "catalog/a-body-of-a-terabyte-is-never-read": TERABYTE_UNREAD,
    },
    # Lenient decoding hides a body read from the case whose body is not UTF-8, not from this one.
    reads_the_body_leniently_at_catalog.main: {"catalog/a-body-of-a-terabyte-is-never-read": TERABYTE_UNREAD},
    ignores_trust.main: {
        "catalog/trust-follows-the-folders-the-user-trusts": (
            'packages.elsewhere.trust: expected "untrusted", got "trusted"'
        ),
        "run/an-untrusted-package-runs-only-with-approval": "exit status: expected 5, got 0",
    },
    lets_a_leading_flag_skip_the_gate.main: {
        "run/a-leading-option-never-skips-the-gate": (
            "files: expected no change in the case folder, got changes to {case}/state/items.json"
        ),
        "run/an-option-before-the-command-is-a-usage-error": "exit status: expected 2, got 0",
    },
}


def explain(result: CaseResult) -> str:
    failure = result.failure.as_dict() if result.failure else None
    return json.dumps({"problem": result.problem, "failure": failure}, indent=2)


@pytest.mark.parametrize("case", CASES, ids=[case.name for case in CASES])
def test_agentapps_passes_the_case(case: Case) -> None:
    result = run_case(case, in_process(agentapps_main))
    assert result.passed, explain(result)


def test_agentapps_passes_every_case_through_its_command_line() -> None:
    """The protocol for real: every call a process of the agentapps console script."""
    status, envelope = conformance("--runtime", AGENTAPPS, "--jobs", "2", str(SUITE / "conformance"))
    failed = [result for result in results_of(envelope) if not result["passed"]]
    assert (status, failed) == (0, [])
    required = sum(case.level == "required" for case in CASES)
    assert envelope["summary"]["summary"] == (
        f"{AGENTAPPS}: {len(CASES)}/{len(CASES)} cases, {required}/{required} required"
    )


def test_the_minimal_node_runtime_passes_every_required_case_and_leaves_out_the_suites() -> None:
    status, envelope = conformance("--runtime", f"node {NODE_ADAPTER}", "--jobs", "2")
    results = {result["case"]: result for result in results_of(envelope)}
    assert (status, envelope["error"]["code"]) == (17, "SUITE_CASES_FAILED")  # only the suite's failed
    assert {name for name, result in results.items() if not result["passed"]} == set(NODE_LEAVES_OUT)
    assert all(results[name]["level"] == "suite" for name in NODE_LEAVES_OUT)
    for name, difference in NODE_LEAVES_OUT.items():
        assert difference in results[name]["failure"]["differences"], results[name]
    passed, required = len(CASES) - len(NODE_LEAVES_OUT), sum(case.level == "required" for case in CASES)
    node = "node conformance/adapters/minimal-runtime.mjs"
    badge = f"{node}: {passed}/{len(CASES)} cases, {required}/{required} required"
    assert f"\n{badge}\n" in (SUITE / "docs" / "conformance.md").read_text(encoding="utf-8")  # quoted there


@pytest.mark.parametrize(
    "main", WRONG_ADAPTERS, ids=[main.__module__.rsplit(".", 1)[-1] for main in WRONG_ADAPTERS]
)
def test_a_wrong_adapter_fails_exactly_the_cases_of_its_flaw(main: Callable[[list[str]], int]) -> None:
    run = run_cases(CASES, in_process(main), "wrong")
    failed = {result.case.name: result for result in run.failed}
    assert set(failed) == set(WRONG_ADAPTERS[main])
    for name, difference in WRONG_ADAPTERS[main].items():
        failure = failed[name].failure
        assert failure is not None, explain(failed[name])
        assert difference in failure.differences, explain(failed[name])


def test_a_wrong_adapter_runs_as_a_command_too() -> None:
    case = SUITE / "conformance" / "cases" / "run" / "an-untrusted-package-runs-only-with-approval.json"
    adapter = f"{sys.executable} -m tests.conformance.adapters.ignores_trust"
    with contextlib.chdir(SUITE):
        status, envelope = conformance("--runtime", adapter, str(case))
    [result] = results_of(envelope)
    assert (status, result["failure"]["step"]) == (17, 1)  # a suite case: SUITE_CASES_FAILED
    assert "exit status: expected 5, got 0" in result["failure"]["differences"]
    assert os.environ.get("AGENTAPPS_TRUSTED") != os.sep  # the flaw stayed in its process
