"""Every error says how to fix the call: each error code an app can give (its APP.md's table) is
produced here by a real call, and fails this test when its hint is missing or empty.

The calls are the scenarios' own (the first that expects each code), run in-process. The one code
no input can cause, INTERNAL_ERROR, has its hint checked by the test that plants a bug
(tests/apps/test_internal_error.py). The harness holds every other in-process run to the same
rule, so an error without a hint fails whichever test meets it.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from agentapps.harness import in_process_runtime
from agentapps.output import Invocation
from agentapps.replay import replay
from agentapps.scenarios import load_scenario
from tests.packages import PACKAGES, SUITE
from tests.scenarios.test_scenario_coverage import NOT_DATA, documented_codes


def first_scenario_expecting(package: str, code: str) -> Path | None:
    for path in sorted((SUITE / package / "scenarios").glob("*.json")):
        steps = load_scenario(path).steps
        if any(step["expect"]["envelope"].get("error", {}).get("code") == code for step in steps):
            return path
    return None


@pytest.mark.parametrize("package", PACKAGES)
def test_every_error_code_an_app_gives_comes_with_a_hint(package: str) -> None:
    codes = documented_codes(package) - set(NOT_DATA)
    assert {"USAGE_ERROR", "VALIDATION_ERROR", "NOT_FOUND", "STATE_CORRUPT"} <= codes  # the table was read
    hints: dict[str, list[Any]] = {}

    def listening(root: Path, args: list[str], stdin: str, env: dict[str, str]) -> Invocation:
        invocation = in_process_runtime(root, args, stdin, env)
        envelope = invocation.envelope
        if isinstance(envelope, dict) and envelope.get("ok") is False:
            error = envelope["error"]
            hints.setdefault(error["code"], []).append((args, error.get("hint")))
        return invocation

    for code in sorted(codes):
        path = first_scenario_expecting(package, code)
        assert path is not None, f"no scenario of {package} expects {code}"
        replay(load_scenario(path), listening)
    assert set(hints) >= codes, f"never produced: {sorted(codes - set(hints))}"
    without = [
        (code, args)
        for code, heard in hints.items()
        for args, hint in heard
        if not isinstance(hint, str) or not hint.strip()
    ]
    assert without == []
