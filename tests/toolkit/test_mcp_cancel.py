"""`agentapps mcp`: a cancelled call (notifications/cancelled, as a client sends it on its own
timeout) is interrupted as Ctrl-C interrupts a run, and the client is told how it ended in a log
message, since the cancelled request itself gets no answer; driven by the SDK's own client."""

from __future__ import annotations

import asyncio
import os
import sys
from pathlib import Path
from typing import Any

import filelock
import pytest
from mcp import ClientSession, MCPError, types
from mcp.client.stdio import StdioServerParameters, stdio_client

from agentapps.mcp_server import CANCELLED_LOGGER, Command, EndedBeforeItsCommit, Ran, how_it_ended
from agentapps.package import Package
from tests.toolkit.conftest import SUITE

TODO = SUITE / "agentic-to-do"


@pytest.mark.parametrize("cold", [False, True], ids=["warm", "cold"])
def test_a_cancelled_add_waiting_for_the_lock_changes_nothing_and_the_client_is_told(
    tmp_path: Path, cold: bool
) -> None:
    """The test holds the state's lock, so the add waits before its commit; the client gives up
    (its timeout cancels the request): the add ends, nothing is written, a log message says so,
    and the retried add, once the lock is free, adds the one item."""
    state = tmp_path / "state"
    state.mkdir()
    told: list[Any] = []
    said = asyncio.Event()

    async def logged(params: types.LoggingMessageNotificationParams) -> None:
        if params.logger == CANCELLED_LOGGER:
            told.append(params.data)
            said.set()

    async def main() -> None:
        server = StdioServerParameters(
            command=str(Path(sys.executable).parent / "agentapps"),
            args=["mcp", *(["--cold"] if cold else []), str(TODO)],
            env={**os.environ, "AGENTIC_STATE_DIR": str(state), "AGENTIC_LOCK_TIMEOUT": "600"},
        )
        async with (
            stdio_client(server) as (read, write),
            ClientSession(read, write, logging_callback=logged) as session,
        ):
            await session.initialize()
            lock = filelock.FileLock(str(state / "todos.json.lock"))
            with lock:
                with pytest.raises(MCPError):
                    await session.call_tool("agentic_to_do__add", {"title": "Once"}, read_timeout_seconds=1)
                await asyncio.wait_for(said.wait(), timeout=60)
                assert not (state / "todos.json").exists()  # told after it ended, lock still held
            listed = await session.call_tool("agentic_to_do__list", {})
            assert listed.structured_content is not None
            assert listed.structured_content["items"] == []
            again = await session.call_tool("agentic_to_do__add", {"title": "Once"})
            assert not again.is_error
            listed = await session.call_tool("agentic_to_do__list", {})
            assert listed.structured_content is not None
            assert [item["title"] for item in listed.structured_content["items"]] == ["Once"]

    asyncio.run(asyncio.wait_for(main(), timeout=120))
    assert len(told) == 1
    assert told[0]["tool"] == "agentic_to_do__add"
    assert told[0]["tookEffect"] is False
    assert "nothing changed" in told[0]["message"]


def add_command(described: bool = True) -> Command:
    return Command(Package(TODO), ["add"], {"name": "add", "mutatesState": True} if described else None)


def test_a_cancelled_call_that_had_begun_its_commit_is_reported_with_its_answer() -> None:
    """From its commit a call finishes: the client is told it took effect, with its answer, so a
    retry is never a silent duplicate."""
    document = {"ok": True, "command": "add", "item": {"id": "td_0001", "title": "Once"}}
    ran = Ran(result=types.CallToolResult(content=[], structured_content=document))
    told = how_it_ended("agentic_to_do__add", add_command(), ran)
    assert told["tookEffect"] is True
    assert told["answer"] == document
    assert "do not call it again" in told["message"]


def test_a_cancelled_call_is_said_as_it_ended_before_its_commit_or_in_a_failure() -> None:
    before = how_it_ended("agentic_to_do__add", add_command(), Ran(error=EndedBeforeItsCommit()))
    assert before["tookEffect"] is False
    unknown = {"ok": False, "command": "add", "error": {"code": "TIMEOUT", "message": "m",
               "details": {"mayHaveTakenEffect": True}}}  # fmt: skip
    failed = Ran(result=types.CallToolResult(content=[], structured_content=unknown, is_error=True))
    told = how_it_ended("agentic_to_do__add", add_command(), failed)
    assert told["tookEffect"] is None
    assert "read the state back" in told["message"]
