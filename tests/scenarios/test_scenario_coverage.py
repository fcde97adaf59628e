"""The scenarios cover each app's whole contract: every command, every option, every error code
the app can give. One code cannot be written as data, and is covered in Python instead. Each
package replays its own scenarios in-process (its tests/), and `nox -s replay` through real
processes."""

from __future__ import annotations

import re
from collections import defaultdict
from typing import Any

import pytest

from agentapps.manifest import load_app_manifest
from agentapps.scenarios import Scenario, text
from agentic_kit.errors import EXIT_STATUS, ErrorCode
from tests.packages import PACKAGES, SUITE

from .conftest import FILES, loaded

# No input produces a bug: its test plants one.
NOT_DATA = {
    "INTERNAL_ERROR": "tests/apps/test_internal_error.py"
    "::test_an_unexpected_failure_is_an_internal_error_and_changes_nothing",
}
ERROR_ROW = re.compile(r"^\| `([A-Z_]+)` \| (\d+) \| (.*) \|$", re.MULTILINE)

SCENARIOS_BY_PACKAGE: dict[str, list[Scenario]] = defaultdict(list)
for _scenario in loaded():
    SCENARIOS_BY_PACKAGE[_scenario.package].append(_scenario)


def steps_of(package: str, *levels: str) -> list[dict[str, Any]]:
    """The steps of the package's scenarios (of the levels given, or all)."""
    return [
        step
        for scenario in SCENARIOS_BY_PACKAGE[package]
        if not levels or scenario.level in levels
        for step in scenario.steps
    ]


def documented_codes(package: str) -> set[str]:
    """The codes in the APP.md error table, except those it says the app does not use."""
    body = (SUITE / package / "APP.md").read_text(encoding="utf-8")
    return {code for code, _, when in ERROR_ROW.findall(body) if not when.startswith("not used")}


def described_options(package: str) -> dict[str, set[str]]:
    from agentapps.harness import in_process_runtime

    root = SUITE / package
    invocation = in_process_runtime(root, ["describe"], "", {"AGENTIC_STATE_DIR": str(root / "no-state")})
    assert invocation.envelope is not None
    return {
        command["name"]: {option["name"] for option in command["options"]}
        for command in invocation.envelope["item"]["commands"]
    }


def test_every_package_has_its_scenarios() -> None:
    """A guard: an empty or misplaced folder must fail here, not leave nothing to cover."""
    for package in PACKAGES:
        assert len([path for path in FILES if path.parents[1].name == package]) >= 20, package


@pytest.mark.parametrize("package", PACKAGES)
def test_every_command_appears_in_a_scenario(package: str) -> None:
    used = {text(step["args"][0]) for step in steps_of(package) if step["args"]}
    assert set(load_app_manifest(SUITE / package).commands) - used == set()


@pytest.mark.parametrize("package", PACKAGES)
def test_every_option_of_every_command_appears_in_a_scenario(package: str) -> None:
    used: dict[str, set[str]] = defaultdict(set)
    for step in steps_of(package):
        args = [text(arg) for arg in step["args"]]
        if args:
            used[args[0]].update(arg for arg in args[1:] if arg.startswith("--"))
    missing = {
        f"{command} {option}"
        for command, options in described_options(package).items()
        for option in options - used[command] - {"--help"}
    }
    assert missing == set()


@pytest.mark.parametrize("package", PACKAGES)
def test_every_error_code_appears_in_a_scenario_or_is_named_here(package: str) -> None:
    codes = documented_codes(package)
    assert codes >= {"USAGE_ERROR", "VALIDATION_ERROR", "NOT_FOUND", "STATE_CORRUPT"}  # the table was read
    expected = {
        step["expect"]["envelope"]["error"]["code"]
        for step in steps_of(package, "suite")  # a seed-level failure may name no code
        if not step["expect"]["envelope"]["ok"]
    }
    assert codes - expected == set(NOT_DATA)
    for where in NOT_DATA.values():
        path, name = where.split("::")
        assert f"def {name}(" in (SUITE / path).read_text(encoding="utf-8"), where


def test_every_expected_error_exits_with_its_code_from_the_table() -> None:
    """Seed-level scenarios aside: the seed fixes no statuses, so their 1 means any non-zero one."""
    for scenario in (scenario for scenario in loaded() if scenario.level == "suite"):
        for number, step in enumerate(scenario.steps, start=1):
            envelope, status = step["expect"]["envelope"], step["expect"]["exit"]
            if envelope["ok"]:
                assert status == 0, f"{scenario.name} step {number}"
            elif "error" in envelope and "code" in envelope["error"]:
                code = ErrorCode(envelope["error"]["code"])
                assert status == EXIT_STATUS[code], f"{scenario.name} step {number}"


def test_scenario_files_are_named_for_their_behaviour_in_their_package_folder() -> None:
    for scenario in loaded():
        assert scenario.path.parent == SUITE / scenario.package / "scenarios", scenario.path
        assert re.fullmatch(r"[a-z0-9]+(-[a-z0-9]+)+", scenario.path.stem), scenario.path


def test_the_scenario_schema_is_itself_a_valid_schema() -> None:
    import json

    from jsonschema import Draft202012Validator

    from agentapps.scenarios import SCHEMA_PATH

    Draft202012Validator.check_schema(json.loads(SCHEMA_PATH.read_text(encoding="utf-8")))


def test_every_scenario_points_editors_at_the_schema() -> None:
    from agentapps.scenarios import SCHEMA_PATH

    for scenario in loaded():
        pointer = scenario.data.get("$schema")
        assert pointer is not None, scenario.path
        assert (scenario.path.parent / str(pointer)).resolve() == SCHEMA_PATH, scenario.path
