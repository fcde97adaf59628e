"""A catalog without traps: with no root, the checkout's test fixtures are neither listed nor
served nor bundled, and the commands that take a package take the slug `catalog` shows."""

from __future__ import annotations

import shutil
from collections.abc import Callable
from pathlib import Path

import pytest

from agentapps import suite

from .conftest import FIXTURES, SUITE, ToolkitResult

Agentapps = Callable[..., ToolkitResult]


def test_catalog_at_the_checkouts_root_leaves_the_fixtures_out_unless_asked(
    agentapps: Agentapps, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(SUITE)
    monkeypatch.delenv("AGENTAPPS_TRUSTED")
    listed = agentapps("catalog")
    assert listed.exit_status == 0
    sources = [Path(item["source"]) for item in listed.envelope["items"]]
    assert {SUITE / name for name in suite.SUITE_APPS} <= set(sources)
    assert not [source for source in sources if source.is_relative_to(SUITE / "tests")]
    # The conformance cases' packages misbehave on purpose (killed-by-a-signal): fixtures too.
    assert not [source for source in sources if source.is_relative_to(SUITE / "conformance")]
    assert {item["trust"] for item in listed.envelope["items"]} == {"bundled"}

    shown = agentapps("catalog", "--fixtures")
    fixtures = {
        item["slug"]: item["trust"]
        for item in shown.envelope["items"]
        if Path(item["source"]).is_relative_to(FIXTURES)
    }
    assert fixtures["deletes-without-confirmation"] == "untrusted"
    assert set(fixtures.values()) == {"untrusted"}
    conformance = {
        item["slug"]: item["trust"]
        for item in shown.envelope["items"]
        if Path(item["source"]).is_relative_to(SUITE / "conformance")
    }
    assert conformance["killed-by-a-signal"] == "untrusted"
    assert set(conformance.values()) == {"untrusted"}


def test_a_fixture_is_not_run_without_approval(agentapps: Agentapps, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("AGENTAPPS_TRUSTED")
    refused = agentapps("run", str(FIXTURES / "valid-package"), "--", "list")
    assert (refused.exit_status, refused.error_code) == (5, "CONFIRMATION_REQUIRED")
    assert refused.envelope["error"]["details"]["gate"] == "trust"


def test_mcp_with_no_root_in_the_checkout_serves_no_fixture(
    agentapps: Agentapps, monkeypatch: pytest.MonkeyPatch
) -> None:
    from agentapps import cli

    monkeypatch.chdir(SUITE)
    answer = agentapps("mcp")
    assert answer.exit_status == 0
    roots = [Path(root) for root in answer.envelope["item"]["roots"]]
    cli._mcp_requests.clear()  # the request is only recorded: nothing is served in-process
    assert {SUITE / name for name in suite.SUITE_APPS} <= set(roots)
    assert not [root for root in roots if root.is_relative_to(SUITE / "tests")]
    assert not [root for root in roots if root.is_relative_to(SUITE / "conformance")]


@pytest.mark.parametrize("command", ["activate", "run", "check"])
def test_a_slug_stands_for_its_package_from_any_folder(
    agentapps: Agentapps, monkeypatch: pytest.MonkeyPatch, tmp_path: Path, command: str
) -> None:
    monkeypatch.chdir(tmp_path)  # outside the checkout: the slug is one of the suite's apps
    args = {"activate": [], "run": ["--", "list"], "check": []}[command]
    done = agentapps(command, "agentic-to-do", *args)
    assert done.exit_status == 0, done.envelope
    if command == "activate":
        assert done.envelope["item"]["source"] == str(SUITE / "agentic-to-do")
    if command == "run":
        assert done.envelope["items"] == []


@pytest.mark.parametrize("folder", ["agentic-notes", "docs", "tests/fixtures"])
@pytest.mark.parametrize("command", ["activate", "run", "check"])
def test_a_slug_stands_for_a_suite_app_from_any_folder_of_the_checkout(
    agentapps: Agentapps, monkeypatch: pytest.MonkeyPatch, folder: str, command: str
) -> None:
    """Found by an adversary: in agentic-notes/ the catalog lists only agentic-notes, so
    `activate agentic-to-do` was NOT_FOUND, and in docs/ `check agentic-timer` read a folder
    docs/agentic-timer that is not there."""
    monkeypatch.chdir(SUITE / folder)
    args = {"activate": [], "run": ["--", "list"], "check": []}[command]
    done = agentapps(command, "agentic-timer", *args)
    assert done.exit_status == 0, done.envelope
    if command == "activate":
        assert done.envelope["item"]["source"] == str(SUITE / "agentic-timer")


def test_an_unknown_slug_is_not_found(
    agentapps: Agentapps, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.chdir(tmp_path)
    missing = agentapps("activate", "agentic-nothing")
    assert (missing.exit_status, missing.error_code) == (4, "NOT_FOUND")
    assert "slug" in missing.envelope["error"]["message"]


def test_two_packages_with_one_slug_are_a_refusal_naming_both(
    agentapps: Agentapps, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    for copy in ("one", "two"):
        shutil.copytree(
            SUITE / "agentic-to-do",
            tmp_path / copy / "agentic-to-do",
            ignore=shutil.ignore_patterns("tests", "state"),
        )
    monkeypatch.setattr(suite, "default_roots", lambda cwd: [tmp_path])
    monkeypatch.chdir(tmp_path)  # where no folder is named agentic-to-do: the slug is looked up
    for command, args in (("activate", []), ("run", ["--", "list"]), ("check", [])):
        refused = agentapps(command, "agentic-to-do", *args)
        assert (refused.exit_status, refused.error_code) == (6, "CONFLICT"), refused.envelope
        named = refused.envelope["error"]["details"]["packages"]
        assert named == [str(tmp_path / "one" / "agentic-to-do"), str(tmp_path / "two" / "agentic-to-do")]
        assert all(path in refused.envelope["error"]["message"] for path in named)
    assert not (tmp_path / "state").exists()  # nothing ran
