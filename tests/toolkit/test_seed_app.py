"""The format's own reference app, run by a runtime that did not write it: the seed's Agentic To-Do
APP.md, verbatim, over a minimal Node.js app (tests/fixtures/seed-agentic-to-do), through every
tier — catalog, activate, check, run — and over MCP."""

from __future__ import annotations

import asyncio
import json
import os
import re
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from mcp import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client
from mcp.types import ToolAnnotations

from tests.toolkit.conftest import FIXTURES, ToolkitResult

SEED = FIXTURES / "seed-agentic-to-do"
# The frontmatter as the format's APP.md reference prints it, in "Full example: Agentic To-Do".
SEED_FRONTMATTER = """\
---
schema: agentapplications/v1
kind: app
slug: agentic-to-do
name: Agentic To-Do
description: Self-contained persistent to-do list operated through a JSON-first CLI
version: 0.1.0
entry:
  command: node app/cli.js
commands:
  - add
  - list
  - get
  - update
  - complete
  - remove
skills:
  - agentic-to-do-usage
scheduling: supported
confirmationRequired:
  - remove
---
"""
# The seed's app has the system's clock (the seed defines no other): an instant is checked by form.
INSTANT = re.compile(r"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z")


def test_the_app_md_is_the_seeds_own() -> None:
    text = (SEED / "APP.md").read_text()
    assert text.startswith(SEED_FRONTMATTER + "\n# Agentic To-Do\n\n## Purpose\n")


def test_catalog_and_activate(agentapps: Callable[..., ToolkitResult]) -> None:
    [entry] = agentapps("catalog", str(SEED)).envelope["items"]
    assert {
        key: entry[key] for key in ("status", "slug", "scheduling", "commands", "confirmationRequired")
    } == {
        "status": "ok",
        "slug": "agentic-to-do",
        "scheduling": "supported",
        "commands": ["add", "list", "get", "update", "complete", "remove"],
        "confirmationRequired": ["remove"],
    }
    item = agentapps("activate", str(SEED)).envelope["item"]
    assert item["body"].startswith("# Agentic To-Do\n\n## Purpose")
    assert [skill["name"] for skill in item["skills"]] == ["agentic-to-do-usage"]


def test_check_passes_with_what_a_describe_less_package_in_another_folder_gets(
    agentapps: Callable[..., ToolkitResult],
) -> None:
    result = agentapps("check", str(SEED))
    assert result.exit_status == 0
    [report] = result.envelope["items"]
    assert [(finding["rule"], finding["severity"]) for finding in report["findings"]] == [
        ("package.folder-name", "warning"),  # the folder is not named agentic-to-do
        ("commands.unverified", "warning"),  # the seed's app has no describe
    ]  # and `list` succeeded with JSON, and `remove td_0001`, aimed at the to-do `add` made, was refused


def test_run_every_command(agentapps: Callable[..., ToolkitResult], monkeypatch: Any, tmp_path: Path) -> None:
    state_file = tmp_path / "todos.json"
    monkeypatch.setenv("AGENTIC_TODO_STATE_FILE", str(state_file))  # the seed's own override
    package = str(SEED)
    added = agentapps("run", package, "--", "add", "Write docs", "--due-at", "2026-04-05")
    stamp = added.envelope["item"]["createdAt"]
    assert INSTANT.fullmatch(stamp), stamp
    assert (added.exit_status, added.envelope) == (
        0,
        {
            "ok": True,
            "command": "add",
            "item": {
                "id": "td_0001",
                "title": "Write docs",
                "description": "",
                "status": "open",
                "dueAt": "2026-04-05",
                "createdAt": stamp,
                "updatedAt": stamp,
                "completedAt": None,
            },
        },
    )
    assert state_file.is_file()
    listed = agentapps("run", package, "--", "list", "--status", "open")
    assert (listed.envelope["count"], listed.envelope["items"][0]["id"]) == (1, "td_0001")
    updated = agentapps("run", package, "--", "update", "td_0001", "--clear-due-at", "--title", "Docs")
    assert (updated.envelope["item"]["title"], updated.envelope["item"]["dueAt"]) == ("Docs", None)
    assert agentapps("run", package, "--", "complete", "td_0001").envelope["item"]["status"] == "completed"
    missing = agentapps("run", package, "--", "get", "td_0404")
    assert (missing.exit_status, missing.error_code) == (4, "NOT_FOUND")
    gated = agentapps("run", package, "--", "remove", "td_0001", "--confirm")
    assert (gated.exit_status, gated.error_code, gated.envelope["command"]) == (
        5,
        "CONFIRMATION_REQUIRED",
        "run",
    )
    removed = agentapps("run", package, "--approve", "--", "remove", "td_0001", "--confirm")
    assert (removed.exit_status, removed.envelope["item"]["id"]) == (0, "td_0001")
    assert agentapps("run", package, "--", "list").envelope["count"] == 0


def test_served_over_mcp(tmp_path: Path) -> None:
    server = StdioServerParameters(
        command=str(Path(sys.executable).parent / "agentapps"),
        args=["mcp", str(SEED)],
        env={**os.environ, "AGENTIC_TODO_STATE_FILE": str(tmp_path / "todos.json")},
    )

    async def main() -> None:
        async with stdio_client(server) as (read, write), ClientSession(read, write) as session:
            await session.initialize()
            tools = {tool.name: tool for tool in (await session.list_tools()).tools}
            assert sorted(tools) == sorted(
                f"agentic_to_do__{name}" for name in ("add", "list", "get", "update", "complete", "remove")
            )
            assert tools["agentic_to_do__remove"].annotations == ToolAnnotations(
                read_only_hint=False, destructive_hint=True
            )
            added = await session.call_tool(
                "agentic_to_do__add", {"args": ["From MCP", "--due-at", "2026-05-01"]}
            )
            assert added.structured_content is not None
            assert added.structured_content["item"]["dueAt"] == "2026-05-01"
            refused = await session.call_tool("agentic_to_do__remove", {"args": ["td_0001", "--confirm"]})
            assert refused.is_error is True
            removed = await session.call_tool(
                "agentic_to_do__remove", {"args": ["td_0001", "--confirm"], "confirm": True}
            )
            assert removed.is_error is not True
            listed = await session.call_tool("agentic_to_do__list", {})
            assert json.loads(listed.content[0].text)["count"] == 0  # type: ignore[union-attr]
            body: Any = await session.read_resource("agentapp://agentic-to-do/APP.md")
            assert body.contents[0].text.startswith("# Agentic To-Do")

    asyncio.run(asyncio.wait_for(main(), timeout=120))
