"""Each broken package in tests/fixtures/, one fault each: the exact finding of `check`, and
exactly what `catalog` and `run` do with it. Runtime authors can point their own runtime at the
same folders."""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.toolkit.conftest import FIXTURES, ToolkitResult


@dataclass(frozen=True)
class Expected:
    rules: set[str]  # the rules of check's error findings; there are no warnings
    catalog: str | None  # the catalog status; None when it is not a package at all
    run: str | None  # the error code of `run PKG -- list`; None when it relays the app's success


EXPECTED: dict[str, Expected] = {
    "valid-package": Expected(set(), "ok", None),
    "no-app-md": Expected({"files.app-md"}, None, "NOT_FOUND"),
    "no-skills-folder": Expected({"files.skills"}, "ok", None),
    "unclosed-frontmatter": Expected({"frontmatter.parse"}, "broken", "PACKAGE_INVALID"),
    "missing-required-field": Expected({"frontmatter.fields"}, "broken", "PACKAGE_INVALID"),
    "wrong-field-type": Expected({"frontmatter.fields"}, "broken", "PACKAGE_INVALID"),
    "unresolved-skill": Expected({"skills.resolve"}, "ok", None),
    "invalid-skill": Expected({"skills.valid"}, "ok", None),
    "prints-text": Expected({"output.json"}, "ok", "CONTRACT_VIOLATION"),
    "prints-two-documents": Expected({"output.json"}, "ok", "CONTRACT_VIOLATION"),
    "exits-zero-on-error": Expected({"output.exit-status"}, "ok", None),
    "hangs": Expected({"entry.timeout"}, "ok", "TIMEOUT"),
    "deletes-without-confirmation": Expected({"confirmation.refuses"}, "ok", None),
}


def test_every_fixture_folder_has_an_expectation() -> None:
    assert sorted(path.name for path in FIXTURES.iterdir() if path.is_dir()) == sorted(EXPECTED)


def findings(result: ToolkitResult) -> list[dict[str, str]]:
    reports = (
        result.envelope["items"] if result.envelope["ok"] else result.envelope["error"]["details"]["items"]
    )
    assert len(reports) == 1
    return reports[0]["findings"]  # type: ignore[no-any-return]


@pytest.mark.parametrize("name", EXPECTED)
def test_check_finds_exactly_the_fault(agentapps: Callable[..., ToolkitResult], name: str) -> None:
    result = agentapps("check", str(FIXTURES / name), "--timeout", "2")
    found = findings(result)
    assert {finding["rule"] for finding in found} == EXPECTED[name].rules
    assert all(finding["severity"] == "error" for finding in found)
    if EXPECTED[name].rules:
        assert (result.exit_status, result.error_code) == (13, "CHECK_FAILED")
    else:
        assert result.exit_status == 0


def test_catalog_reports_each_fixture_and_never_stops_the_scan(
    agentapps: Callable[..., ToolkitResult],
) -> None:
    result = agentapps("catalog", str(FIXTURES))
    assert result.exit_status == 0
    listed = {Path(entry["source"]).name: entry for entry in result.envelope["items"]}
    assert {name: entry["status"] for name, entry in listed.items()} == {
        name: expected.catalog for name, expected in EXPECTED.items() if expected.catalog is not None
    }
    for entry in listed.values():
        assert (entry["problem"] is None) == (entry["status"] == "ok")
        assert entry["trust"] == "bundled"


@pytest.mark.parametrize("name", EXPECTED)
def test_run_relays_success_or_reports_the_fault(agentapps: Callable[..., ToolkitResult], name: str) -> None:
    result = agentapps("run", str(FIXTURES / name), "--timeout", "1", "--", "list")
    assert result.error_code == EXPECTED[name].run
    if EXPECTED[name].run is None:
        assert result.envelope["command"] == "list"
        assert result.exit_status == 0


def test_run_reports_an_exit_status_that_disagrees_with_ok(agentapps: Callable[..., ToolkitResult]) -> None:
    result = agentapps("run", str(FIXTURES / "exits-zero-on-error"), "--", "nope")
    assert (result.exit_status, result.error_code) == (11, "CONTRACT_VIOLATION")
    assert result.envelope["error"]["details"]["violations"] == ["`ok` is false but the exit status is 0."]


@pytest.mark.parametrize("name", ["unresolved-skill", "invalid-skill"])
def test_activate_refuses_a_package_whose_skill_is_broken(
    agentapps: Callable[..., ToolkitResult], name: str
) -> None:
    result = agentapps("activate", str(FIXTURES / name))
    assert (result.exit_status, result.error_code) == (10, "PACKAGE_INVALID")


def test_the_runtime_gate_stops_a_confirmation_command_the_app_would_not(
    agentapps: Callable[..., ToolkitResult], tmp_path: Path
) -> None:
    package = str(FIXTURES / "deletes-without-confirmation")
    assert agentapps("run", package, "--", "add", "keep me").envelope["item"]["id"] == "it_1"
    refused = agentapps("run", package, "--", "remove", "it_1")
    assert (refused.exit_status, refused.error_code) == (5, "CONFIRMATION_REQUIRED")
    assert json.loads((tmp_path / "state" / "items.json").read_text()) == [{"id": "it_1", "title": "keep me"}]
    approved = agentapps("run", package, "--approve", "--", "remove", "it_1")
    assert approved.envelope["ok"] is True
    assert json.loads((tmp_path / "state" / "items.json").read_text()) == []
