"""`check`'s schemas.stale rule: a package built on the kit whose schemas/ are not what `agentapps
sync` would write from its app's models is told to sync (a warning: the seed leaves schemas/ to the
package; an output they fail to describe is schemas.outputs, an error). Check never writes them."""

from __future__ import annotations

import hashlib
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from .conftest import SUITE, ToolkitResult

ITEM_SCHEMA = "schemas/todo-item.schema.json"
MISSING = "schemas/error-envelope.schema.json"


@pytest.fixture
def package(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    target = tmp_path / "packages" / "agentic-to-do"
    shutil.copytree(
        SUITE / "agentic-to-do", target, ignore=shutil.ignore_patterns("todos.json*", "__pycache__")
    )
    monkeypatch.setenv("AGENTAPPS_TRUSTED", str(target.parent))
    return target


def digests(package: Path) -> dict[str, str]:
    return {
        str(path.relative_to(package)): hashlib.sha256(path.read_bytes()).hexdigest()
        for path in sorted(package.rglob("*"))
        if path.is_file() and "__pycache__" not in path.parts
    }


def check(agentapps: Callable[..., ToolkitResult], package: Path) -> tuple[int, list[dict[str, Any]]]:
    result = agentapps("check", str(package))
    return result.exit_status, result.envelope["items"][0]["findings"]


def test_an_edited_and_a_missing_schema_are_found_stale_and_nothing_is_written(
    agentapps: Callable[..., ToolkitResult], package: Path
) -> None:
    # The three apps as they are: no finding at all (test_cli's check of every suite package).
    schema = package / ITEM_SCHEMA
    schema.write_text(schema.read_text().replace('"description"', '"title"', 1))
    (package / MISSING).unlink()
    before = digests(package)
    status, found = check(agentapps, package)
    assert status == 0
    assert sorted((f["rule"], f["severity"], f["where"], f["basis"]) for f in found) == [
        ("schemas.stale", "warning", MISSING, "suite"),
        ("schemas.stale", "warning", ITEM_SCHEMA, "suite"),
    ]
    assert all("run `agentapps sync` on the package" in f["message"] for f in found)
    assert digests(package) == before
