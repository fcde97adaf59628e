"""An import's answer is bounded whatever the export: the count and at most 100 old → new ids."""

from __future__ import annotations

import json
from pathlib import Path

from agentapps.harness import AppRunner
from tests.states import open_todo

NOW = {"AGENTIC_NOW": "2026-04-02T00:00:00Z"}


def export_of(count: int) -> str:
    moment = "2026-04-01T00:00:00.000Z"
    items = [open_todo(number, f"item {number}", moment) for number in range(1, count + 1)]
    return json.dumps({"schemaVersion": 2, "nextId": count + 1, "items": items})


def test_an_import_into_a_list_with_items_answers_at_most_100_ids(todo: AppRunner, tmp_path: Path) -> None:
    assert todo.run("add", "already here", env=NOW).ok
    backup = tmp_path / "export.json"
    backup.write_text(export_of(250))
    imported = todo.run("import", "--file", str(backup), env=NOW)
    assert imported.exit_status == 0
    assert (imported.envelope["count"], imported.envelope["restored"]) == (250, False)
    assert len(imported.envelope["ids"]) == 100
    assert imported.envelope["ids"]["td_0001"] == "td_0002"
    assert imported.envelope["idsOmitted"] == 150
    assert "items" not in imported.envelope
    listed = todo.run("list", "--limit", "1", env=NOW)
    assert listed.envelope["total"] == 251
    again = todo.run("import", "--file", str(backup), env=NOW)
    assert again.error_code == "CONFLICT"
    assert len(again.envelope["error"]["message"]) < 400  # names a few, not all 250
    assert todo.run("list", "--limit", "1", env=NOW).envelope["total"] == 251


def test_a_large_export_restored_into_an_empty_list_answers_in_a_few_bytes(
    todo: AppRunner, tmp_path: Path
) -> None:
    backup = tmp_path / "export.json"
    backup.write_text(export_of(2000))
    imported = todo.run("import", "--file", str(backup), env=NOW)
    assert imported.envelope == {"ok": True, "command": "import", "count": 2000, "restored": True, "ids": {}}
    assert todo.run("get", "td_2000", env=NOW).item["title"] == "item 2000"
    assert todo.run("add", "next", env=NOW).item["id"] == "td_2001"
