"""`agentapps mcp` keeps each package's describe between start-ups (describe_cache) and never
serves a stale one: an edit to the package's code, even one that keeps a file's size and
modification time, is seen at the next start-up."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path
from typing import Any

from mcp import ClientSession

from tests.toolkit.conftest import SUITE
from tests.toolkit.test_mcp import run

CLI_LINE = '    excerpt: Excerpt = False,\n) -> Payload:\n    """List items'


def list_tool(tmp_path: Path, package: Path, cache: Path) -> dict[str, Any]:
    """agentic_to_do__list as one new server's tools/list gives it."""
    found: dict[str, Any] = {}

    async def scenario(session: ClientSession) -> None:
        tools = {tool.name: tool for tool in (await session.list_tools()).tools}
        listed = tools["agentic_to_do__list"]
        found.update(description=listed.description, properties=listed.input_schema["properties"])

    run(tmp_path, scenario, ["--approve", str(package)], env={"AGENTAPPS_CACHE_DIR": str(cache)})
    return found


def test_an_edited_cli_is_described_again_at_the_next_start_up(tmp_path: Path) -> None:
    package = tmp_path / "agentic-to-do"
    shutil.copytree(SUITE / "agentic-to-do", package, ignore=shutil.ignore_patterns("state", "__pycache__"))
    cache = tmp_path / "cache"
    first = list_tool(tmp_path, package, cache)
    assert "flagged" not in first["properties"]
    kept = list((cache / "describe").glob("*.json"))
    assert len(kept) == 1

    # The next start-up reads the kept describe instead of running it: what the file says is served.
    stored = json.loads(kept[0].read_text(encoding="utf-8"))
    for entry in stored["commands"]:
        if entry["name"] == "list":
            entry["summary"] = "Kept from the last start-up."
    kept[0].write_text(json.dumps(stored), encoding="utf-8")
    assert list_tool(tmp_path, package, cache)["description"] == "Agentic To-Do: Kept from the last start-up."

    # An option added to cli.py: the next start-up runs describe again and lists it.
    cli = package / "app" / "cli.py"
    text = cli.read_text(encoding="utf-8")
    assert CLI_LINE in text
    flagged = '    flagged: Annotated[bool, typer.Option("--flagged", help="Only flagged items.")] = False,\n'
    cli.write_text(text.replace(CLI_LINE, flagged + CLI_LINE, 1), encoding="utf-8")
    edited = list_tool(tmp_path, package, cache)
    assert edited["properties"]["flagged"]["type"] == "boolean"
    assert edited["description"] != "Agentic To-Do: Kept from the last start-up."
    assert len(list((cache / "describe").glob("*.json"))) == 1  # the earlier describe replaced

    # An edit that keeps cli.py's size and modification time is seen too: the key hashes the bytes.
    before = cli.stat()
    text = cli.read_text(encoding="utf-8")
    cli.write_text(text.replace("Only flagged items.", "Only starred items."), encoding="utf-8")
    os.utime(cli, ns=(before.st_atime_ns, before.st_mtime_ns))
    assert cli.stat().st_size == before.st_size
    same_size = list_tool(tmp_path, package, cache)
    assert same_size["properties"]["flagged"]["description"].startswith("Only starred items.")


def test_an_unreadable_cache_file_is_a_miss_not_a_failure(tmp_path: Path) -> None:
    package = tmp_path / "agentic-to-do"
    shutil.copytree(SUITE / "agentic-to-do", package, ignore=shutil.ignore_patterns("state", "__pycache__"))
    cache = tmp_path / "cache"
    first = list_tool(tmp_path, package, cache)
    (kept,) = (cache / "describe").glob("*.json")
    kept.write_text('{"key": "trunc', encoding="utf-8")
    assert list_tool(tmp_path, package, cache) == first
    assert json.loads(kept.read_text(encoding="utf-8"))["commands"]  # written whole again
