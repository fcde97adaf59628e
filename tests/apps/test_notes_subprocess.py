"""agentic-notes as a runtime runs it: real processes, bodies through stdin and files."""

from __future__ import annotations

from pathlib import Path

from agentapps.harness import AppRunner

NOW = {"AGENTIC_NOW": "2026-04-01T00:00:00Z"}
BODY = (
    'Multi-line body\nwith "quotes", `backticks`, $VARS and \\ backslashes\r\nand unicode: ☕ 日本語 🧪\n\n'
)


def test_a_body_on_stdin_round_trips_byte_for_byte_through_real_processes(
    notes: AppRunner, tmp_path: Path
) -> None:
    added = notes.run_subprocess("add", "From stdin", "--body-file", "-", stdin=BODY, env=NOW)
    assert added.item["createdAt"] == "2026-04-01T00:00:00.000Z"
    body = notes.run_subprocess("get", "nt_0001").item["body"]
    assert body.encode() == BODY.encode()


def test_a_session_of_commands_gives_exact_envelopes(notes: AppRunner) -> None:
    notes.run_subprocess("add", "Follow up", "--tag", "Ops", "--due-at", "2026-04-02", env=NOW)
    assert notes.run_subprocess("due", env=NOW).items == []
    due = notes.run_subprocess("due", env={"AGENTIC_NOW": "2026-04-02T08:00:00Z"})
    assert due.stdout == (
        '{"ok":true,"command":"due","count":1,"items":[{"id":"nt_0001","title":"Follow up","excerpt":"",'
        '"tags":["ops"],"dueAt":"2026-04-02","createdAt":"2026-04-01T00:00:00.000Z",'
        '"updatedAt":"2026-04-01T00:00:00.000Z"}]}\n'
    )
    hits = notes.run_subprocess("search", "follow")
    assert [hit["id"] for hit in hits.items] == ["nt_0001"]
    refused = notes.run_subprocess("remove", "nt_0001")
    assert (refused.exit_status, refused.error_code) == (5, "CONFIRMATION_REQUIRED")
    assert notes.run_subprocess("remove", "nt_0001", "--confirm").ok
    assert notes.run_subprocess("list").envelope == {"ok": True, "command": "list", "count": 0, "items": []}


def test_append_from_stdin_in_a_real_process(notes: AppRunner) -> None:
    notes.run_subprocess("add", "Log", "--body", "first")
    appended = notes.run_subprocess("append", "nt_0001", "--text-file", "-", stdin="second `line`\n")
    assert appended.item["body"] == "first\nsecond `line`\n"
