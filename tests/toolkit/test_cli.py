"""`agentapps` on the suite's own packages: the three tiers, the runtime's gates, and check."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.toolkit.conftest import FIXTURES, SUITE, ToolkitResult

PACKAGES = ["agentic-to-do", "agentic-notes", "agentic-timer"]
CATALOG_KEYS = [
    "source", "trust", "status", "problem", "slug", "name", "description", "version", "kind", "scheduling",
    "commands", "confirmationRequired",
]  # fmt: skip


def test_catalog_lists_the_suite_packages_from_their_frontmatter(
    agentapps: Callable[..., ToolkitResult],
) -> None:
    result = agentapps("catalog", str(SUITE))
    ours = [entry for entry in result.envelope["items"] if Path(entry["source"]).parent == SUITE]
    assert [entry["slug"] for entry in ours] == sorted(PACKAGES)
    todo = next(entry for entry in ours if entry["slug"] == "agentic-to-do")
    assert list(todo) == CATALOG_KEYS
    assert (todo["status"], todo["trust"], todo["scheduling"], todo["confirmationRequired"]) == (
        "ok",
        "bundled",
        "supported",
        ["remove"],
    )


def test_catalog_reads_only_the_frontmatter(agentapps: Callable[..., ToolkitResult], tmp_path: Path) -> None:
    package = tmp_path / "huge-body"
    shutil.copytree(FIXTURES / "valid-package", package)
    frontmatter = (package / "APP.md").read_bytes().split(b"\n---\n", 1)[0] + b"\n---\n"
    (package / "APP.md").write_bytes(frontmatter + b"\xff\xfe not UTF-8 \x80" * (3 * 1024 * 1024))
    [entry] = agentapps("catalog", str(tmp_path)).envelope["items"]
    assert (entry["status"], entry["slug"]) == ("ok", "valid-package")


def test_catalog_searches_several_roots_and_refuses_a_missing_one(
    agentapps: Callable[..., ToolkitResult],
) -> None:
    both = agentapps("catalog", str(SUITE / "agentic-notes"), str(FIXTURES / "hangs"))
    assert [entry["slug"] for entry in both.envelope["items"]] == ["agentic-notes", "hangs"]
    missing = agentapps("catalog", str(SUITE / "no-such-folder"))
    assert (missing.exit_status, missing.error_code) == (4, "NOT_FOUND")


@pytest.mark.parametrize(
    ("trusted", "trust"), [(False, "untrusted"), (True, "trusted")], ids=["untrusted", "trusted"]
)
def test_trust_comes_from_where_the_package_is(
    agentapps: Callable[..., ToolkitResult],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    trusted: bool,
    trust: str,
) -> None:
    shutil.copytree(FIXTURES / "valid-package", tmp_path / "elsewhere" / "valid-package")
    if trusted:
        monkeypatch.setenv("AGENTAPPS_TRUSTED", str(tmp_path / "elsewhere"))
    [entry] = agentapps("catalog", str(tmp_path)).envelope["items"]
    assert entry["trust"] == trust


def test_an_untrusted_package_runs_only_with_approval(
    agentapps: Callable[..., ToolkitResult], tmp_path: Path
) -> None:
    package = tmp_path / "valid-package"
    shutil.copytree(FIXTURES / "valid-package", package)
    refused = agentapps("run", str(package), "--", "list")
    assert (refused.exit_status, refused.error_code) == (5, "CONFIRMATION_REQUIRED")
    assert agentapps("run", str(package), "--approve", "--", "list").envelope["ok"] is True


def test_activate_returns_the_body_and_every_skill(agentapps: Callable[..., ToolkitResult]) -> None:
    item = agentapps("activate", str(SUITE / "agentic-notes")).envelope["item"]
    assert item["body"].startswith("# Agentic Notes\n\n## Purpose")
    assert [skill["name"] for skill in item["skills"]] == ["agentic-notes-usage"]
    assert item["skills"][0]["frontmatter"]["name"] == "agentic-notes-usage"
    assert item["skills"][0]["body"].startswith("# Using Agentic Notes")


def test_activate_of_a_folder_without_app_md_is_not_found(agentapps: Callable[..., ToolkitResult]) -> None:
    assert agentapps("activate", str(FIXTURES / "no-app-md")).error_code == "NOT_FOUND"


def test_run_relays_the_apps_envelope_and_exit_status(agentapps: Callable[..., ToolkitResult]) -> None:
    added = agentapps(
        "run", str(SUITE / "agentic-to-do"), "--", "add", "Via the runtime", "--due-at", "2026-04-05"
    )
    assert (added.exit_status, added.envelope["command"], added.envelope["item"]["title"]) == (
        0,
        "add",
        "Via the runtime",
    )
    missing = agentapps("run", str(SUITE / "agentic-to-do"), "--", "get", "td_0404")
    assert (missing.exit_status, missing.error_code, missing.envelope["command"]) == (4, "NOT_FOUND", "get")


def test_run_gates_confirmation_commands_separately_from_the_apps_flag(
    agentapps: Callable[..., ToolkitResult],
) -> None:
    package = str(SUITE / "agentic-to-do")
    agentapps("run", package, "--", "add", "x")
    gated = agentapps("run", package, "--", "remove", "td_0001", "--confirm")
    assert (gated.exit_status, gated.error_code, gated.envelope["command"]) == (
        5,
        "CONFIRMATION_REQUIRED",
        "run",
    )
    app_refuses = agentapps("run", package, "--approve", "--", "remove", "td_0001")
    assert (app_refuses.error_code, app_refuses.envelope["command"]) == ("CONFIRMATION_REQUIRED", "remove")
    assert (
        agentapps("run", package, "--approve", "--", "remove", "td_0001", "--confirm").envelope["ok"] is True
    )


def test_check_passes_every_suite_package_with_no_errors_or_warnings(
    agentapps: Callable[..., ToolkitResult],
) -> None:
    result = agentapps("check", *(str(SUITE / name) for name in PACKAGES))
    assert result.exit_status == 0
    assert [(report["errors"], report["warnings"]) for report in result.envelope["items"]] == [(0, 0)] * 3


def test_check_never_touches_the_real_state(agentapps: Callable[..., ToolkitResult], tmp_path: Path) -> None:
    package = tmp_path / "agentic-to-do"
    shutil.copytree(SUITE / "agentic-to-do", package, ignore=shutil.ignore_patterns("todos.json*"))
    state = package / "app" / "state" / "todos.json"
    state.write_text('{"schemaVersion": 1, "nextId": 1, "items": []}\n')
    before = sorted(str(path) for path in package.rglob("*") if "__pycache__" not in path.parts)
    assert agentapps("check", str(package)).exit_status == 0
    assert state.read_text() == '{"schemaVersion": 1, "nextId": 1, "items": []}\n'
    assert sorted(str(path) for path in package.rglob("*") if "__pycache__" not in path.parts) == before


def test_the_console_script_speaks_the_envelope_and_human_text() -> None:
    script = Path(sys.executable).parent / "agentapps"
    as_json = subprocess.run(
        [script, "check", str(FIXTURES / "no-skills-folder")], capture_output=True, text=True
    )
    envelope = json.loads(as_json.stdout)
    assert (as_json.returncode, envelope["error"]["code"]) == (13, "CHECK_FAILED")
    as_text = subprocess.run(
        [script, "check", str(FIXTURES / "no-skills-folder"), "--human"], capture_output=True, text=True
    )
    assert as_text.returncode == 13
    assert as_text.stdout.startswith(
        f"FAIL  {FIXTURES / 'no-skills-folder'}  (1 errors, 0 warnings)\n  error"
    )
    assert "files.skills" in as_text.stdout
