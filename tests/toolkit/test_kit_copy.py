"""`check`'s kit.copy rule: a package's vendored kit is the kit this agentapps carries, as `agentapps
sync` wrote it. A copy edited by hand, synced from an older kit, or without its record is flagged
(a warning: the package may still work); a package without app/agentic_kit/ is not."""

from __future__ import annotations

import hashlib
import json
import re
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from agentapps.sync import KIT_FOLDER, RECORD, kit_copy_problems, kit_record, sync

from .conftest import FIXTURES, SUITE, ToolkitResult

APPS = ["agentic-to-do", "agentic-notes", "agentic-timer"]


def _copy(package: str, tmp_path: Path) -> Path:
    target = tmp_path / package
    shutil.copytree(SUITE / package, target, ignore=shutil.ignore_patterns("state", "__pycache__"))
    return target


def _kit_findings(result: ToolkitResult) -> list[dict[str, Any]]:
    findings: list[dict[str, Any]] = result.envelope["items"][0]["findings"]
    return [finding for finding in findings if finding["rule"] == "kit.copy"]


@pytest.mark.parametrize("package", APPS)
def test_each_apps_copy_is_the_kit_as_synced(package: str) -> None:
    assert kit_copy_problems(SUITE / package) == []


def test_an_edited_copy_is_flagged_and_sync_mends_it(
    agentapps: Callable[..., ToolkitResult], tmp_path: Path
) -> None:
    package = _copy("agentic-to-do", tmp_path)
    with (package / KIT_FOLDER / "store.py").open("a") as file:
        file.write("# a local fix\n")
    result = agentapps("check", str(package), "--approve")
    assert result.exit_status == 0  # a warning: the package still keeps the contract
    assert [(finding["severity"], finding["where"]) for finding in _kit_findings(result)] == [
        ("warning", str(KIT_FOLDER))
    ]
    assert "app/agentic_kit/store.py was edited since sync wrote it" in _kit_findings(result)[0]["message"]
    sync(package)
    assert kit_copy_problems(package) == []


def test_a_removed_kit_file_is_flagged(tmp_path: Path) -> None:
    package = _copy("agentic-notes", tmp_path)
    (package / KIT_FOLDER / "dates.py").unlink()
    assert kit_copy_problems(package) == [
        "app/agentic_kit/dates.py is missing or not a regular file; sync wrote it."
    ]


def test_a_copy_synced_from_an_older_kit_is_stale(tmp_path: Path) -> None:
    """What an older sync left: its own files, recorded faithfully, under an older version."""
    package = _copy("agentic-timer", tmp_path)
    older = b'"""The kit as it was."""\n'
    (package / KIT_FOLDER / "clock.py").write_bytes(older)
    record = json.loads((package / RECORD).read_text())
    record["files"]["app/agentic_kit/clock.py"] = hashlib.sha256(older).hexdigest()
    record["kit"] = {"version": "1.9", "sha256": "0" * 64}
    (package / RECORD).write_text(json.dumps(record))
    carried = kit_record()
    assert kit_copy_problems(package) == [
        f"app/agentic_kit/ holds kit 1.9 (000000000000); this agentapps carries kit "
        f"{carried['version']} ({carried['sha256'][:12]})."
    ]


def test_a_copy_from_before_versions_were_recorded_is_stale(tmp_path: Path) -> None:
    package = _copy("agentic-to-do", tmp_path)
    record = json.loads((package / RECORD).read_text())
    del record["kit"]
    (package / RECORD).write_text(json.dumps(record))
    [problem] = kit_copy_problems(package)
    assert problem.startswith("app/agentic_kit/ holds a kit whose version is not recorded;")


def test_a_copy_without_its_record_is_flagged(tmp_path: Path) -> None:
    package = _copy("agentic-to-do", tmp_path)
    (package / RECORD).unlink()
    assert kit_copy_problems(package) == [
        "app/agentic_kit/ has no readable sync-record.json: whether it is the kit, and which, cannot be told."
    ]


def test_a_package_without_the_kit_has_no_finding(agentapps: Callable[..., ToolkitResult]) -> None:
    package = FIXTURES / "valid-package"
    assert not (package / KIT_FOLDER).exists()
    assert kit_copy_problems(package) == []
    assert _kit_findings(agentapps("check", str(package), "--approve")) == []


def test_a_third_party_package_made_by_new_is_checked_too(
    agentapps: Callable[..., ToolkitResult], tmp_path: Path
) -> None:
    assert agentapps("new", "my-bookmarks", "--dir", str(tmp_path)).exit_status == 0
    package = tmp_path / "my-bookmarks"
    assert kit_copy_problems(package) == []
    (package / KIT_FOLDER / "ids.py").write_text("# rewritten\n")
    assert kit_copy_problems(package) == [
        "app/agentic_kit/ids.py was edited since sync wrote it; the next sync replaces it."
    ]


@pytest.mark.parametrize("package", APPS)
def test_a_copy_holds_every_module_the_app_imports_and_no_toolkit_only_one(package: str) -> None:
    """Schema generation runs in the toolkit, at sync time: the copy leaves it out, and every kit
    module a vendored file or the app's own code imports is in the copy."""
    copied = {path.name for path in (SUITE / package / KIT_FOLDER).glob("*.py")}
    assert "schemas.py" not in copied
    app_files = [path for path in (SUITE / package / "app").rglob("*.py") if "__pycache__" not in path.parts]
    imported = set()
    for path in app_files:
        text = path.read_text(encoding="utf-8")
        imported |= (
            set(re.findall(r"^\s*from \.(\w+) import", text, re.MULTILINE))
            if KIT_FOLDER.name in path.parts
            else set()
        )
        imported |= set(re.findall(r"^\s*from agentic_kit\.(\w+) import", text, re.MULTILINE))
    assert imported, "the app imports the kit"
    assert {f"{module}.py" for module in imported} <= copied


def test_the_copies_are_marked_generated_for_reviews() -> None:
    attributes = (SUITE / ".gitattributes").read_text(encoding="utf-8").splitlines()
    assert "*/app/agentic_kit/** linguist-generated=true -diff" in attributes
