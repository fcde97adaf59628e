"""The conformance page (docs/conformance.md) stays true: the case it shows is a real one, the output it
shows is what that adapter gets, and its lists of cases are the cases."""

from __future__ import annotations

import os
import re
import subprocess
import sys

from .conftest import CASES, COLLECTION, SUITE

SECTION = (SUITE / "docs" / "conformance.md").read_text(encoding="utf-8")


def blocks(language: str) -> list[str]:
    """The section's fenced blocks of that language ("" for none), each as written."""
    found, current, inside = [], "", None
    for line in SECTION.splitlines(keepends=True):
        if line.startswith("```"):
            if inside is None:
                inside, current = line[3:].strip(), ""
                continue
            if inside == language:
                found.append(current)
            inside = None
        elif inside is not None:
            current += line
    return found


def test_the_case_shown_is_a_case_of_the_collection_as_it_is() -> None:
    [shown] = blocks("json")
    path = COLLECTION / "cases" / "catalog" / "no-skill-file-is-opened.json"
    assert shown == path.read_text(encoding="utf-8")


def test_the_human_output_shown_is_what_an_adapter_ignoring_trust_gets() -> None:
    [shown] = [block for block in blocks("") if block.startswith("catalog\n")]
    cases = [
        "conformance/cases/catalog/trust-follows-the-folders-the-user-trusts.json",
        "conformance/cases/run/an-untrusted-package-runs-only-with-approval.json",
        "conformance/cases/run/a-leading-option-never-skips-the-gate.json",
    ]
    interpreter_dir = os.path.dirname(sys.executable)
    completed = subprocess.run(
        [
            os.path.join(interpreter_dir, "agentapps"),
            *["conformance", "--human", "--runtime", "python3 -m tests.conformance.adapters.ignores_trust"],
            *cases,
        ],
        cwd=SUITE,
        env={**os.environ, "PATH": os.pathsep.join([interpreter_dir, os.environ["PATH"]])},
        capture_output=True,
        text=True,
        check=False,
    )
    assert completed.returncode == 17  # SUITE_CASES_FAILED: its one required case passed
    assert completed.stdout == shown


def test_the_summary_line_shown_for_agentapps_counts_every_case() -> None:
    required = sum(case.level == "required" for case in CASES)
    assert f"\nagentapps: {len(CASES)}/{len(CASES)} cases, {required}/{required} required\n" in SECTION


def test_the_lists_of_required_and_suite_cases_are_the_cases() -> None:
    required = SECTION.split("Required by the seed", 1)[1].split("This suite's choices", 1)[0]
    suite = SECTION.split("This suite's choices", 1)[1].split("Trust is among", 1)[0]
    for text, level in ((required, "required"), (suite, "suite")):
        listed = {
            f"{tier}/{name}"
            for tier, names in re.findall(r"- \*\*(\w+)\*\*: (.*?)(?=\n- |\Z)", text, flags=re.DOTALL)
            for name in re.findall(r"`([a-z0-9-]+)`", names)
        }
        assert listed == {case.name for case in CASES if case.level == level}
