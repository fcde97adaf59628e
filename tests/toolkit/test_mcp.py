"""`agentapps mcp`, driven by the MCP SDK's own client, as an agent client would: over stdio with
the server a process of its own (`connected`, `run_process`) where the process is what a test is
about (its stdin and stdout, its stderr, its start, its end), and in this process otherwise
(`in_this_process`, `run`), each start of a real server importing the SDK again (about a second)."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any, TextIO

import anyio
import pytest
from mcp import ClientSession, MCPError
from mcp.client.stdio import StdioServerParameters, stdio_client
from mcp.shared.memory import MessageStream, create_client_server_memory_streams
from mcp.shared.message import SessionMessage
from mcp.types import TextContent, ToolAnnotations, jsonrpc_message_adapter

from agentapps import cli
from agentapps.manifest import load_app_manifest
from agentapps.mcp_server import STARTUP_DESCRIBE_TIMEOUT, build_server, load_commands
from agentapps.runtime import RunOptions
from agentapps.warm import WarmRuntime
from tests.packages import PACKAGES
from tests.toolkit.conftest import FIXTURES, SUITE

WRITES: dict[str, tuple[str, dict[str, Any]]] = {
    "agentic-to-do": ("add", {"title": "From MCP", "due_at": "2026-05-01"}),
    "agentic-notes": ("add", {"title": "From MCP", "body": "line 1\nline 2", "tag": ["mcp"]}),
    "agentic-timer": ("start", {"label": "From MCP", "duration": "25m"}),
}


# A broken package among the roots: it is left out, and the others are served.
SUITE_ROOTS = [*(str(SUITE / name) for name in PACKAGES), str(FIXTURES / "prints-text")]


def server_variables(state_dir: Path, env: dict[str, str] | None) -> dict[str, str]:
    """What a test's server is given on top of this process's environment, in a process or not."""
    return {"AGENTIC_STATE_DIR": str(state_dir), "AGENTIC_NOW": "2026-04-01T00:00:00Z", **(env or {})}


@asynccontextmanager
async def connected(
    state_dir: Path, args: list[str], env: dict[str, str] | None = None, errlog: TextIO = sys.stderr
) -> AsyncIterator[ClientSession]:
    server = StdioServerParameters(
        command=str(Path(sys.executable).parent / "agentapps"),
        args=["mcp", *args],
        env={**os.environ, **server_variables(state_dir, env)},
    )
    async with stdio_client(server, errlog) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        yield session


@asynccontextmanager
async def in_this_process(
    state_dir: Path, args: list[str], env: dict[str, str] | None = None
) -> AsyncIterator[ClientSession]:
    """The server `agentapps mcp ARGS` serves, in this process: the options read by the console
    script's own reading, the environment `connected` gives its process, the server built as
    `serve` builds it, and the client talking to it over the SDK's in-memory streams, each message
    written as JSON and read back as the stdio transports do (`as_on_the_wire`). What differs is
    the pipe, and what `connected` is there to test."""
    with pytest.MonkeyPatch.context() as patch, contextlib.ExitStack() as stack:
        for name, value in server_variables(state_dir, env).items():
            patch.setenv(name, value)
        status, answer, request = cli.read_mcp_request(args)
        assert request is not None, (status, answer)
        warm = None if request.cold else stack.enter_context(WarmRuntime())
        server = build_server(
            request.roots, request.approve, request.options, warm, request.strict, request.only
        )
        options = server.create_initialization_options()
        async with (
            create_client_server_memory_streams() as (client, near),
            create_client_server_memory_streams() as (far, ends),
            anyio.create_task_group() as group,
        ):
            group.start_soon(as_on_the_wire, near, far)  # the client's messages to the server
            group.start_soon(as_on_the_wire, far, near)  # and the server's to the client
            group.start_soon(server.run, ends[0], ends[1], options)
            async with ClientSession(*client) as session:
                await session.initialize()
                yield session
            group.cancel_scope.cancel()


async def as_on_the_wire(source: MessageStream, target: MessageStream) -> None:
    """Each message of the source's stream passed on to the target's as the SDK's stdio transports
    carry it: written as a line of JSON and read back; the end of one stream is the other's."""
    receive, send = source[0], target[1]
    async with send:
        async for item in receive:
            if isinstance(item, SessionMessage):
                line = item.message.model_dump_json(by_alias=True, exclude_unset=True)
                item = SessionMessage(jsonrpc_message_adapter.validate_json(line, by_name=False))
            await send.send(item)


def tool_prefix(package: str) -> str:
    """A package's part of its tools' names: its slug, `-` read as `_`."""
    return package.replace("-", "_")


def run(
    tmp_path: Path,
    scenario: Callable[[ClientSession], Awaitable[None]],
    args: list[str] = SUITE_ROOTS,
    env: dict[str, str] | None = None,
) -> None:
    """The scenario against the server of `agentapps mcp ARGS`, served in this process."""

    async def main() -> None:
        async with in_this_process(tmp_path / "state", args, env) as session:
            await asyncio.wait_for(scenario(session), timeout=120)

    asyncio.run(main())


def run_process(
    tmp_path: Path,
    scenario: Callable[[ClientSession], Awaitable[None]],
    args: list[str] = SUITE_ROOTS,
    env: dict[str, str] | None = None,
    errlog: TextIO = sys.stderr,
) -> None:
    """The scenario against `agentapps mcp ARGS` started as a client starts it, its stderr to errlog."""

    async def main() -> None:
        async with connected(tmp_path / "state", args, env, errlog) as session:
            await asyncio.wait_for(scenario(session), timeout=120)

    asyncio.run(main())


def test_tools_are_the_packages_commands_with_their_effects(tmp_path: Path) -> None:
    async def scenario(session: ClientSession) -> None:
        tools = {tool.name: tool for tool in (await session.list_tools()).tools}
        declared = [
            f"{name.replace('-', '_')}__{command.replace(' ', '_')}"
            for name in PACKAGES
            for command in load_app_manifest(SUITE / name).commands
            if command != "describe"  # tools/list says what describe would: not a tool
        ]
        assert sorted(tools) == sorted(declared)
        remove, add = tools["agentic_to_do__remove"], tools["agentic_to_do__add"]
        hints = {name: tool.annotations for name, tool in tools.items()}
        assert hints["agentic_to_do__remove"] == ToolAnnotations(read_only_hint=False, destructive_hint=True)
        assert "confirm" in remove.input_schema["properties"]
        assert hints["agentic_to_do__list"] == ToolAnnotations(read_only_hint=True, destructive_hint=False)
        assert hints["agentic_to_do__add"] == ToolAnnotations(read_only_hint=False, destructive_hint=False)
        assert add.input_schema["required"] == ["title"]
        assert add.description == "Agentic To-Do: Create an open to-do item."
        assert add.title == "agentic-to-do add"  # the command as the package names it

    run(tmp_path, scenario)


@pytest.mark.parametrize("package", PACKAGES)
def test_a_write_then_a_read_on_each_package(tmp_path: Path, package: str) -> None:
    async def scenario(session: ClientSession) -> None:
        command, arguments = WRITES[package]
        written = await session.call_tool(f"{tool_prefix(package)}__{command}", arguments)
        assert written.is_error is not True
        assert written.structured_content is not None
        assert written.structured_content["ok"] is True
        assert written.structured_content["item"]["createdAt"] == "2026-04-01T00:00:00.000Z"
        listed = await session.call_tool(f"{tool_prefix(package)}__list", {})
        assert listed.structured_content is not None
        assert [item["id"] for item in listed.structured_content["items"]] == [
            written.structured_content["item"]["id"]
        ]

    run(tmp_path, scenario)


def test_a_destructive_tool_runs_only_with_confirm(tmp_path: Path) -> None:
    async def scenario(session: ClientSession) -> None:
        await session.call_tool("agentic_to_do__add", {"title": "Keep me"})
        refused = await session.call_tool("agentic_to_do__remove", {"id": ["td_0001"]})
        assert refused.is_error is True
        assert refused.structured_content is not None
        assert refused.structured_content["error"]["code"] == "CONFIRMATION_REQUIRED"
        still: Any = (await session.call_tool("agentic_to_do__list", {})).structured_content
        assert still["count"] == 1
        removed = await session.call_tool("agentic_to_do__remove", {"id": ["td_0001"], "confirm": True})
        assert removed.is_error is not True
        gone: Any = (await session.call_tool("agentic_to_do__list", {})).structured_content
        assert gone["count"] == 0

    run(tmp_path, scenario)


def test_a_tool_taking_several_ids_takes_one_as_a_string_too(tmp_path: Path) -> None:
    async def scenario(session: ClientSession) -> None:
        for title in ("a", "b", "c"):
            await session.call_tool("agentic_to_do__add", {"title": title})
        one = await session.call_tool("agentic_to_do__complete", {"id": "td_0001"})
        assert one.is_error is not True
        assert one.structured_content is not None
        assert one.structured_content["item"]["status"] == "completed"  # one id: `item`, as on the CLI
        removed = await session.call_tool("agentic_to_do__remove", {"id": "td_0002", "confirm": True})
        assert removed.structured_content is not None
        assert removed.structured_content["item"]["id"] == "td_0002"
        several = await session.call_tool("agentic_to_do__reopen", {"id": ["td_0001", "td_0003"]})
        assert several.structured_content is not None
        assert [item["id"] for item in several.structured_content["items"]] == ["td_0001", "td_0003"]
        tagged = await session.call_tool("agentic_to_do__add", {"title": "d", "tag": "home"})
        assert tagged.structured_content is not None
        assert tagged.structured_content["item"]["tags"] == ["home"]  # a repeatable option too
        wrong = await session.call_tool("agentic_to_do__remove", {"id": 7, "confirm": True})
        assert wrong.structured_content is not None
        assert wrong.structured_content["error"]["code"] == "VALIDATION_ERROR"  # not a string: refused
        left: Any = (await session.call_tool("agentic_to_do__list", {})).structured_content
        assert [item["id"] for item in left["items"]] == ["td_0001", "td_0003", "td_0004"]

    run(tmp_path, scenario)


@pytest.mark.parametrize(
    ("tool", "arguments", "code"),
    [
        ("agentic_to_do__get", {"id": "td_0404"}, "NOT_FOUND"),
        ("agentic_to_do__add", {"title": "x", "due_at": "2026-02-30"}, "VALIDATION_ERROR"),
        ("agentic_timer__resume", {"id": "tm_0404"}, "NOT_FOUND"),
        ("agentic_notes__search", {"query": ["  "]}, "VALIDATION_ERROR"),
        ("agentic_to_do__nope", {}, "NOT_FOUND"),
    ],
)
def test_a_failing_envelope_is_a_tool_error_with_its_code(
    tmp_path: Path, tool: str, arguments: dict[str, Any], code: str
) -> None:
    async def scenario(session: ClientSession) -> None:
        result = await session.call_tool(tool, arguments)
        assert result.is_error is True
        assert result.structured_content is not None
        assert result.structured_content["error"]["code"] == code
        assert result.content[0].text.startswith(f"{code}: ")  # type: ignore[union-attr]

    run(tmp_path, scenario)


def test_activation_is_resources_the_body_and_the_skills(tmp_path: Path) -> None:
    async def scenario(session: ClientSession) -> None:
        uris = sorted(str(resource.uri) for resource in (await session.list_resources()).resources)
        assert uris == sorted(
            [f"agentapp://{name}/APP.md" for name in PACKAGES]
            + [f"agentapp://{name}/skills/{name}-usage" for name in PACKAGES]
        )
        body: Any = await session.read_resource("agentapp://agentic-notes/APP.md")
        # Each document first points at the tools: it was written for the CLI.
        note, text = body.contents[0].text.split("\n\n", 1)
        assert note.startswith("> Over MCP each command below is a tool")
        assert "`agentic_notes__list`" in note
        assert "do not run `python3 app/cli.py`" in note
        assert text.startswith("# Agentic Notes\n\n## Purpose")
        skill: Any = await session.read_resource("agentapp://agentic-timer/skills/agentic-timer-usage")
        note, text = skill.contents[0].text.split("\n\n", 1)
        assert "`agentic_timer__list`" in note
        assert text.startswith("# Using Agentic Timer")

    run(tmp_path, scenario)


def test_the_readme_configuration_starts_a_working_server(tmp_path: Path) -> None:
    readme = (SUITE / "README.md").read_text().split("## Plug the apps into an agent", 1)[1]
    # The checkout's configuration (the installed one, by uvx, is tests/toolkit/test_install.py's).
    blocks = re.findall(r"```json\n(.*?)```", readme.split("\n## ", 1)[0], flags=re.DOTALL)
    [block] = [block for block in blocks if "/path/to/suite" in block]
    entry = json.loads(
        block.replace("/path/to/suite", str(SUITE)).replace("/path/to/your/state", str(tmp_path))
    )
    config = entry["mcpServers"]["agentic-apps"]
    server = StdioServerParameters(
        command=str(Path(sys.executable).parent / config["command"]),
        args=config["args"],
        env={**os.environ, **config["env"]},
    )

    async def main() -> None:
        async with stdio_client(server) as (read, write), ClientSession(read, write) as session:
            await session.initialize()
            added = await session.call_tool("agentic_notes__add", {"title": "Configured as the README says"})
            assert added.is_error is not True
        assert (tmp_path / "notes.json").is_file()

    asyncio.run(main())


def tool_text(result: Any) -> Any:
    return json.loads(result.content[0].text)


def test_a_package_without_describe_is_served_from_its_declared_commands(tmp_path: Path) -> None:
    """Each declared command (here command paths) is a tool taking `args`: the words after the
    command, as typed; the confirmation gate holds as for described commands."""

    async def scenario(session: ClientSession) -> None:
        tools = {tool.name: tool for tool in (await session.list_tools()).tools}
        assert sorted(tools) == [
            "command_paths__items_add",
            "command_paths__items_list",
            "command_paths__items_remove",
        ]
        remove = tools["command_paths__items_remove"]
        assert remove.input_schema["properties"]["args"]["type"] == "array"
        assert "confirm" in remove.input_schema["properties"]
        assert remove.annotations == ToolAnnotations(read_only_hint=False, destructive_hint=True)
        added = await session.call_tool("command_paths__items_add", {"args": ["keep me"]})
        assert added.structured_content == {
            "ok": True,
            "command": "items add",
            "item": {"id": "it_1", "title": "keep me"},
        }
        refused = await session.call_tool("command_paths__items_remove", {"args": ["it_1", "--confirm"]})
        assert refused.is_error is True
        assert refused.structured_content is not None
        assert refused.structured_content["error"]["code"] == "CONFIRMATION_REQUIRED"
        wrong = await session.call_tool("command_paths__items_list", {"args": "not a list"})
        assert wrong.structured_content is not None
        assert wrong.structured_content["error"]["code"] == "VALIDATION_ERROR"
        removed = await session.call_tool(
            "command_paths__items_remove", {"args": ["it_1", "--confirm"], "confirm": True}
        )
        assert removed.is_error is not True
        listed = await session.call_tool("command_paths__items_list", {})
        assert tool_text(listed) == {"ok": True, "command": "items list", "count": 0, "items": []}
        # Found by an outside review: --human among the words was refused with the confirmation
        # hint, which an agent following it repeats for ever (confirm given or not).
        for tool, arguments in (
            ("command_paths__items_list", {"args": ["--human"]}),
            ("command_paths__items_remove", {"args": ["it_2", "--human"], "confirm": True}),
        ):
            human = await session.call_tool(tool, arguments)
            assert human.structured_content is not None
            error = human.structured_content["error"]
            assert (error["code"], error["hint"]) == (
                "USAGE_ERROR",
                "Leave --human out; a value that reads --human goes after `--` or as `--option=--human`.",
            )

    run(tmp_path, scenario, [str(FIXTURES / "command-paths")])


def test_an_untrusted_package_is_served_only_with_approve(tmp_path: Path) -> None:
    package = tmp_path / "downloads" / "valid-package"
    shutil.copytree(FIXTURES / "valid-package", package)
    log = tmp_path / "server.log"

    async def nothing(session: ClientSession) -> None:
        assert (await session.list_tools()).tools == []

    async def served(session: ClientSession) -> None:
        assert [tool.name for tool in (await session.list_tools()).tools] == [
            "valid_package__list",
            "valid_package__remove",
        ]

    with log.open("w") as errlog:
        run_process(tmp_path, nothing, [str(package)], errlog=errlog)
    assert f"agentapps mcp: {package} is not served: untrusted" in log.read_text()
    run(tmp_path, served, ["--approve", str(package)])


def test_a_package_sees_only_the_allow_list_and_the_variables_named(tmp_path: Path) -> None:
    async def scenario(session: ClientSession) -> None:
        seen = (await session.call_tool("entry_is_a_shell_command__echo", {})).structured_content
        assert seen is not None
        environment = seen["item"]["environment"]
        assert "AWS_SECRET_ACCESS_KEY" not in environment
        assert environment["SERVICE_TOKEN"] == "named-on-purpose"

    env = {"AWS_SECRET_ACCESS_KEY": "do-not-leak", "SERVICE_TOKEN": "named-on-purpose"}
    run(tmp_path, scenario, ["--env", "SERVICE_TOKEN", str(FIXTURES / "entry-is-a-shell-command")], env)


def test_an_unknown_resource_is_an_error_not_a_traceback(tmp_path: Path) -> None:
    log = tmp_path / "server.log"

    async def scenario(session: ClientSession) -> None:
        with pytest.raises(MCPError, match="No resource agentapp://agentic-notes/nope"):
            await session.read_resource("agentapp://agentic-notes/nope")
        body: Any = await session.read_resource("agentapp://agentic-notes/APP.md")  # still serving
        assert "\n# Agentic Notes" in body.contents[0].text  # after the line pointing at the tools

    with log.open("w") as errlog:
        run_process(tmp_path, scenario, errlog=errlog)
    assert "Traceback" not in log.read_text()


@pytest.mark.parametrize(
    "option", [["--timeout", "inf"], ["--max-output", "0"], ["--env", "A=b"]], ids=["timeout", "cap", "env"]
)
def test_a_bad_option_is_an_error_envelope_and_no_server(tmp_path: Path, option: list[str]) -> None:
    completed = subprocess.run(
        [str(Path(sys.executable).parent / "agentapps"), "mcp", *option, str(SUITE / "agentic-to-do")],
        capture_output=True,
        text=True,
        stdin=subprocess.DEVNULL,
        timeout=60,
    )
    assert completed.returncode == 3
    error = json.loads(completed.stdout)["error"]
    assert error["code"] == "VALIDATION_ERROR"
    assert error["hint"].strip()  # each says how to give the value
    assert completed.stderr == f"agentapps mcp: {error['message']} {error['hint']}\n"


def test_a_second_package_with_the_same_slug_is_left_out(tmp_path: Path) -> None:
    log = tmp_path / "server.log"
    seed = FIXTURES / "seed-agentic-to-do"  # slug agentic-to-do, like the suite's own

    async def scenario(session: ClientSession) -> None:
        tools = {tool.name: tool for tool in (await session.list_tools()).tools}
        assert "agentic_to_do__reopen" in tools  # the suite's agentic-to-do, described
        assert "args" not in tools["agentic_to_do__add"].input_schema["properties"]

    with log.open("w") as errlog:
        run_process(tmp_path, scenario, [str(SUITE / "agentic-to-do"), str(seed)], errlog=errlog)
    assert (
        f"{seed} is not served: another package already serves agentic-to-do (the same slug)"
        in log.read_text()
    )


def test_path_options_are_not_tool_arguments(tmp_path: Path) -> None:
    """A tool client passes text inline: `body_file` would read a file on the server's machine (or
    the protocol's own stdin, for `-`), so it is not offered, and a call that gives it is refused."""

    async def scenario(session: ClientSession) -> None:
        tools = {tool.name: tool for tool in (await session.list_tools()).tools}
        for name, path, text in (
            ("add", "body_file", "body"),
            ("update", "body_file", "body"),
            ("append", "text_file", "text"),
        ):
            assert path not in tools[f"agentic_notes__{name}"].input_schema["properties"]
            assert text in tools[f"agentic_notes__{name}"].input_schema["properties"]
        for body_file in ("-", "/etc/hostname"):
            refused = await session.call_tool("agentic_notes__add", {"title": "t", "body_file": body_file})
            assert refused.is_error is True
            assert refused.structured_content is not None
            assert refused.structured_content["error"] == {
                "code": "VALIDATION_ERROR",
                "message": "body_file: not an argument of add (see its input schema).",
                "hint": "Call the tool with the arguments its input schema lists.",
            }
        listed = await session.call_tool("agentic_notes__list", {})
        assert tool_text(listed)["count"] == 0

    run(tmp_path, scenario, [str(SUITE / "agentic-notes")])


def test_a_path_option_with_no_inline_twin_takes_the_text_and_passes_it_as_stdin(tmp_path: Path) -> None:
    """to-do's `import --file` has no inline form: the tool's `file` is the export's text itself,
    which reaches the app on stdin (`--file -`); what the app refuses names `file`."""

    async def scenario(session: ClientSession) -> None:
        tools = {tool.name: tool for tool in (await session.list_tools()).tools}
        schema = tools["agentic_to_do__import"].input_schema
        assert schema["required"] == ["file"]
        assert schema["properties"]["file"]["type"] == "string"
        assert schema["properties"]["file"]["description"] == (
            "An export to read. Give the text itself, not a path: the app reads it from stdin (`--file -`)."
        )
        await session.call_tool("agentic_to_do__add", {"title": "water the plants", "tag": ["home"]})
        exported = tool_text(await session.call_tool("agentic_to_do__export", {}))
        # Another item than the one already here: same id and createdAt would be the same item.
        exported["items"][0].update(title="water the plants again", createdAt="2020-01-01T00:00:00.000Z")
        exported["items"][0]["updatedAt"] = "2020-01-01T00:00:00.000Z"
        imported = await session.call_tool("agentic_to_do__import", {"file": json.dumps(exported)})
        assert imported.is_error is not True, imported.content
        assert tool_text(imported)["ids"] == {"td_0001": "td_0002"}
        added = tool_text(await session.call_tool("agentic_to_do__get", {"id": "td_0002"}))
        assert added["item"]["tags"] == ["home"]
        refused = await session.call_tool("agentic_to_do__import", {"file": "-"})
        assert refused.is_error is True
        assert refused.structured_content is not None
        assert refused.structured_content["error"]["code"] == "VALIDATION_ERROR"
        assert isinstance(refused.content[0], TextContent)
        assert refused.content[0].text.startswith("VALIDATION_ERROR: file is not JSON")
        assert tool_text(await session.call_tool("agentic_to_do__list", {}))["count"] == 2

    run(tmp_path, scenario, [str(SUITE / "agentic-to-do")])


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        ({"title": "t", "colour": "red"}, "colour: not an argument of add (see its input schema)."),
        ({"title": ["a", "b"]}, "title: ['a', 'b'] is not of type 'string'."),
        ({"title": 5}, "title: 5 is not of type 'string'."),
        (
            {"title": "t", "due_at": ["2026-05-01", "2026-06-01"]},
            "due_at: ['2026-05-01', '2026-06-01'] is not of type 'string'.",
        ),
    ],
    ids=["unknown", "list-for-one-value", "number-for-text", "two-dues"],
)
def test_tool_arguments_must_fit_the_input_schema(
    tmp_path: Path, arguments: dict[str, Any], message: str
) -> None:
    async def scenario(session: ClientSession) -> None:
        refused = await session.call_tool("agentic_to_do__add", arguments)
        assert refused.structured_content is not None
        assert refused.structured_content["error"]["code"] == "VALIDATION_ERROR"
        assert refused.structured_content["error"]["message"] == message
        assert tool_text(await session.call_tool("agentic_to_do__list", {}))["count"] == 0

    run(tmp_path, scenario, [str(SUITE / "agentic-to-do")])


def test_a_failure_without_a_structured_error_reads_as_what_the_app_printed(tmp_path: Path) -> None:
    package = tmp_path / "packages" / "bare-failure"
    shutil.copytree(FIXTURES / "command-paths", package)
    script = "import sys\nsys.stdout.write('{\"ok\": false}')\nsys.exit(1)\n"
    (package / "app" / "cli.py").write_text(script)

    async def scenario(session: ClientSession) -> None:
        failed = await session.call_tool("command_paths__items_list", {})
        assert failed.is_error is True
        [content] = failed.content
        assert isinstance(content, TextContent)
        assert content.text == 'APP_FAILED: The app failed without a structured error: {"ok":false}'

    run(tmp_path, scenario, ["--approve", str(package)])


def test_two_declared_commands_with_one_tool_name_are_both_served_under_hashed_names(
    tmp_path: Path,
) -> None:
    """`items.remove` and `items remove` both read as command_paths__items_remove: neither keeps
    it, each is served under it with its own hash, stderr says so, and each runs its own command."""
    package = tmp_path / "packages" / "command-paths"
    shutil.copytree(FIXTURES / "command-paths", package)
    app_md = package / "APP.md"
    app_md.write_text(
        app_md.read_text().replace("  - items remove\n", "  - items remove\n  - items.remove\n", 1)
    )
    log = tmp_path / "server.log"

    async def scenario(session: ClientSession) -> None:
        tools = {tool.name: tool for tool in (await session.list_tools()).tools}
        hashed = sorted(name for name in tools if name.startswith("command_paths__items_remove"))
        assert len(hashed) == 2
        assert all(re.fullmatch(r"command_paths__items_remove_[0-9a-f]{8}", name) for name in hashed)
        assert sorted(tools[name].title or "" for name in hashed) == [
            "command-paths items remove",
            "command-paths items.remove",
        ]
        spaced = next(name for name in hashed if tools[name].title == "command-paths items remove")
        await session.call_tool("command_paths__items_add", {"args": ["keep me"]})
        removed = await session.call_tool(spaced, {"args": ["it_1", "--confirm"], "confirm": True})
        assert removed.structured_content is not None
        assert removed.structured_content["command"] == "items remove"

    with log.open("w") as errlog:
        run_process(tmp_path, scenario, ["--approve", str(package)], errlog=errlog)
    logged = log.read_text()
    for command in ("items remove", "items.remove"):
        assert re.search(
            rf"agentapps mcp: {re.escape(str(package))}: `{re.escape(command)}` would be the tool "
            r"command_paths__items_remove, as another command would; it is served as "
            r"command_paths__items_remove_[0-9a-f]{8}\n",
            logged,
        )


def test_each_name_cut_to_fit_is_named_on_stderr(tmp_path: Path) -> None:
    """A 71-character slug, and an 80-letter command in a package without describe: each tool is
    served under a name of 64 characters that keeps `__` and the command's start, and stderr
    says which command has which name, and why."""
    slug, command = "s" * 71, "c" * 80
    long_slug = tmp_path / "packages" / "long-slug"
    shutil.copytree(FIXTURES / "command-paths", long_slug)
    app_md = long_slug / "APP.md"
    app_md.write_text(app_md.read_text().replace("slug: command-paths\n", f"slug: {slug}\n", 1))
    long_command = tmp_path / "packages" / "longcmd"
    shutil.copytree(FIXTURES / "command-paths", long_command)
    app_md = long_command / "APP.md"
    app_md.write_text(
        app_md.read_text()
        .replace("slug: command-paths\n", "", 1)
        .replace("  - items remove\n", f"  - items remove\n  - {command}\n", 1)
    )
    unreadable = tmp_path / "packages" / "日本"  # named by its folder: nothing readable in it
    shutil.copytree(long_command, unreadable)
    log = tmp_path / "server.log"
    served: dict[str, str] = {}

    async def scenario(session: ClientSession) -> None:
        for tool in (await session.list_tools()).tools:
            served[tool.title or ""] = tool.name

    with log.open("w") as errlog:
        run_process(
            tmp_path,
            scenario,
            ["--approve", str(long_slug), str(long_command), str(unreadable)],
            errlog=errlog,
        )
    assert re.fullmatch(r"s{44}__items_add_[0-9a-f]{8}", served[f"{slug} items add"])
    assert re.fullmatch(r"longcmd__c{46}_[0-9a-f]{8}", served[f"longcmd {command}"])
    assert served["longcmd items add"] == "longcmd__items_add"
    logged = log.read_text()
    for root, title, words in (
        (long_slug, f"{slug} items add", "items add"),
        (long_slug, f"{slug} items remove", "items remove"),
        (long_command, f"longcmd {command}", command),
    ):
        name = served[title]
        assert len(name) == 64
        readable = f"{title.split(' ')[0]}__{'_'.join(words.split(' '))}"
        assert (
            f"agentapps mcp: {root}: `{words}` would be the tool {readable}, "
            f"{len(readable)} characters (clients accept 64); it is served as {name}\n"
        ) in logged
    assert "longcmd__items_add" not in logged  # a name that fits is not named
    assert re.fullmatch(r"__items_add_[0-9a-f]{8}", served["日本 items add"])
    assert (
        f"agentapps mcp: {unreadable}: `items add` would be the tool __items_add, with no letter or "
        f"digit in its package or command part; it is served as {served['日本 items add']}\n"
    ) in logged


def test_a_declared_command_its_describe_does_not_list_is_named_on_stderr(tmp_path: Path) -> None:
    """APP.md declares a command the app's describe does not know: no tool could run it, so it is
    left out — and named on stderr, with the way to find the mismatch; the others are served."""
    command = "e" * 80
    package = tmp_path / "packages" / "agentic-timer"
    shutil.copytree(SUITE / "agentic-timer", package, ignore=shutil.ignore_patterns("__pycache__"))
    app_md = package / "APP.md"
    app_md.write_text(app_md.read_text().replace("  - describe\n", f"  - describe\n  - {command}\n", 1))
    log = tmp_path / "server.log"
    names: list[str] = []

    async def scenario(session: ClientSession) -> None:
        names.extend(tool.name for tool in (await session.list_tools()).tools)

    with log.open("w") as errlog:
        run_process(tmp_path, scenario, ["--approve", str(package)], errlog=errlog)
    declared = load_app_manifest(package).commands
    assert sorted(names) == sorted(
        f"agentic_timer__{name}" for name in declared if name not in (command, "describe")
    )
    assert (
        f"agentapps mcp: {package}: `{command}` is declared in APP.md but its describe does not "
        f"list it, so it is not a tool; `agentapps check {package}` names the mismatch\n"
    ) in log.read_text()


def test_start_up_runs_describe_side_by_side_and_survives_broken_packages(tmp_path: Path) -> None:
    """Three packages whose describe hangs and one whose APP.md holds a 5,000-digit number: start-up
    still answers tools/list (within the harness's own timeout) with the one good package, and
    names each left out, the hanging ones as not answering within start-up's one deadline (how
    long start-up takes is the benchmark's row, never a clock here)."""
    roots = tmp_path / "packages"
    for number in range(3):
        shutil.copytree(FIXTURES / "hangs", roots / f"hangs-{number}")
    shutil.copytree(FIXTURES / "huge-number-in-frontmatter", roots / "huge-number-in-frontmatter")
    shutil.copytree(SUITE / "agentic-to-do", roots / "agentic-to-do", ignore=shutil.ignore_patterns("state"))
    log = tmp_path / "server.log"

    async def scenario(session: ClientSession) -> None:
        names = {tool.name.split("__")[0] for tool in (await session.list_tools()).tools}
        assert names == {"agentic_to_do"}

    with log.open("w") as errlog:
        run_process(tmp_path, scenario, ["--approve", str(roots)], errlog=errlog)
    logged = log.read_text()
    bound = f"{STARTUP_DESCRIBE_TIMEOUT:g} s"
    late = f"is not served: describe failed: it did not answer within start-up's {bound}"
    assert [f"{roots / f'hangs-{number}'} {late}" in logged for number in range(3)] == [True] * 3
    assert "huge-number-in-frontmatter/APP.md: frontmatter holds a number longer than 30 digits" in logged


@pytest.mark.parametrize("warm", [True, False], ids=["warm", "cold"])
def test_start_up_is_bounded_by_the_timeout_however_many_describes_hang(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], warm: bool
) -> None:
    """32 packages whose describe hangs, with --timeout 2: start-up returns (no package served)
    and names each left out as not answering within start-up's one 2 s deadline, the --timeout,
    not the longer STARTUP_DESCRIBE_TIMEOUT: all of them ran under that one deadline. The
    benchmark times start-up; a test never does."""
    roots = tmp_path / "packages"
    for number in range(32):
        shutil.copytree(FIXTURES / "hangs", roots / f"hangs-{number}")
    with WarmRuntime() as runtime:
        commands = load_commands([roots], True, RunOptions(2.0), runtime if warm else None)
    assert commands == {}
    logged = capsys.readouterr().err
    late = "is not served: describe failed: it did not answer within start-up's 2 s"
    assert [f"{roots / f'hangs-{number}'} {late}" in logged for number in range(32)] == [True] * 32


HELLO = {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}


class PipedServer:
    """`agentapps mcp ARGS` as a client starts it, spoken to line by line over its pipes."""

    def __init__(self, args: list[str], state_dir: Path) -> None:
        self.process = subprocess.Popen(
            [str(Path(sys.executable).parent / "agentapps"), "mcp", *args],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env={**os.environ, "AGENTIC_STATE_DIR": str(state_dir)},
        )
        assert self.process.stdin is not None
        assert self.process.stdout is not None
        assert self.process.stderr is not None
        self.stdin, self.stdout, self.stderr = self.process.stdin, self.process.stdout, self.process.stderr

    def send(self, *messages: dict[str, Any]) -> None:
        self.stdin.write("".join(json.dumps(message) + "\n" for message in messages).encode())
        self.stdin.flush()

    def initialize(self) -> None:
        self.send({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": HELLO})
        assert json.loads(self.stdout.readline())["id"] == 1
        self.send({"jsonrpc": "2.0", "method": "notifications/initialized"})


def test_a_client_that_closes_the_pipe_ends_the_server_quietly(tmp_path: Path) -> None:
    server = PipedServer([str(SUITE / "agentic-to-do")], tmp_path)
    server.initialize()
    server.stdout.close()  # the client goes away without a word
    server.send({"jsonrpc": "2.0", "id": 2, "method": "tools/list"})
    server.stdin.close()
    assert (server.process.wait(timeout=60), server.stderr.read().decode()) == (0, "")


def test_a_call_made_before_the_client_closes_its_stdin_is_answered(tmp_path: Path) -> None:
    """A client may close its stdin as soon as it has written: what it asked is still answered on
    stdout, which it still reads."""
    server = PipedServer([str(SUITE / "agentic-to-do")], tmp_path)
    server.initialize()
    call = {"name": "agentic_to_do__add", "arguments": {"title": "written, then the pipe closed"}}
    server.send({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": call})
    server.stdin.close()
    answers = [json.loads(line) for line in server.stdout]
    assert server.process.wait(timeout=60) == 0
    [answer] = [answer for answer in answers if answer.get("id") == 2]
    assert answer["result"]["structuredContent"]["item"]["title"] == "written, then the pipe closed"


def working_in(folder: Path) -> set[int]:
    """The pids of the processes whose working folder is `folder`."""
    found = set()
    for entry in Path("/proc").iterdir():
        with contextlib.suppress(OSError):
            if entry.name.isdigit() and os.readlink(entry / "cwd") == str(folder):
                found.add(int(entry.name))
    return found


class CallInFlight:
    """A server (warm or cold) with a call in flight whose app never answers: a copy of the
    hangs fixture whose `list` says it started, then sleeps, ignoring SIGTERM if `deaf`."""

    def __init__(self, tmp_path: Path, cold: bool, deaf: bool) -> None:
        self.package = package = tmp_path / "hangs"
        shutil.copytree(FIXTURES / "hangs", package, ignore=shutil.ignore_patterns("__pycache__"))
        script = package / "app" / "cli.py"
        # describe answers (the package is served); list says it started, then never answers.
        text = script.read_text().replace("time.sleep(3600)  # never answers\n", "")
        deafness = (
            "        signal.signal(signal.SIGTERM, signal.SIG_IGN)\n" if deaf else ""
        )  # killed after a grace
        listing = (
            '    if command == "list":\n        import signal\n'
            + deafness
            + '        open("started", "w").close()\n        time.sleep(3600)\n'
        )
        script.write_text(text.replace('    if command == "list":\n', listing))
        self.server = PipedServer(
            ["--approve", "--timeout", "600", *(["--cold"] if cold else []), str(package)], tmp_path / "state"
        )
        self.server.initialize()
        call = {"name": "hangs__list", "arguments": {}}
        self.server.send({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": call})
        deadline = time.monotonic() + 60
        while not (package / "started").exists():
            assert time.monotonic() < deadline, "the call started"
            time.sleep(0.05)
        self.apps = self.running()

    def running(self) -> set[int]:
        """The processes working in the package's folder (the call's app, and a warm process)."""
        return working_in(self.package) - {self.server.process.pid}

    def ended(self) -> int:
        """The server's exit status, within 60 s (not the call's 600 s), once the call's app and
        the warm process are gone too."""
        try:
            status = self.server.process.wait(timeout=60)
        finally:
            self.server.process.kill()
        deadline = time.monotonic() + 60
        while self.apps & self.running():
            assert time.monotonic() < deadline, self.apps & self.running()
            time.sleep(0.05)
        return status


@pytest.mark.parametrize("deaf", [False, True], ids=["ends-on-sigterm", "ignores-sigterm"])
@pytest.mark.parametrize("cold", [False, True], ids=["warm", "cold"])
def test_a_client_gone_whole_with_a_call_in_flight_ends_the_call_and_the_server(
    tmp_path: Path, cold: bool, deaf: bool
) -> None:
    """Found by an outside review: a client killed while a call ran left the server, and the
    call's app, running until the call's timeout. Its end of stdout closed too, no answer can
    reach it: the call is interrupted as a cancelled one is, and the server ends. (A client that
    closes only its stdin is still answered:
    test_a_call_made_before_the_client_closes_its_stdin_is_answered.)"""
    flight = CallInFlight(tmp_path, cold, deaf)
    flight.server.stdout.close()  # the client is gone whole: both its ends closed
    flight.server.stdin.close()
    assert flight.ended() == 0


@pytest.mark.parametrize("number", [signal.SIGTERM, signal.SIGINT], ids=lambda n: n.name)
def test_a_signal_during_start_up_ends_the_server_once_its_describes_have_ended(
    tmp_path: Path, number: signal.Signals
) -> None:
    """Found by an outside review: a signal while start-up ran the packages' describes ended the
    server at once (SIGINT: with a traceback) and left a hanging describe running. It is read
    once start-up has ended what it ran, within start-up's deadline (--timeout 3 here)."""
    package = tmp_path / "hangs"
    shutil.copytree(FIXTURES / "hangs", package, ignore=shutil.ignore_patterns("__pycache__"))
    server = PipedServer(["--approve", "--timeout", "3", str(package)], tmp_path / "state")

    def describes() -> set[int]:
        return working_in(package) - {server.process.pid}

    deadline = time.monotonic() + 60
    while not describes():
        assert time.monotonic() < deadline, "start-up ran the describe"
        time.sleep(0.05)
    started = describes()
    server.process.send_signal(number)
    try:
        status = server.process.wait(timeout=60)
    finally:
        server.process.kill()
    said = server.stderr.read().decode()
    assert (status, "Traceback" in said) == (0, False), said
    assert f"agentapps mcp: stopped by {number.name}." in said
    assert not started & describes()


@pytest.mark.parametrize(
    ("number", "cold", "deaf"),
    [
        (signal.SIGTERM, False, False),
        (signal.SIGTERM, True, True),
        (signal.SIGHUP, True, False),
        (signal.SIGINT, False, True),
    ],
    ids=["SIGTERM-warm", "SIGTERM-cold-app-ignores-it", "SIGHUP-cold", "SIGINT-warm-app-ignores-sigterm"],
)
def test_a_signal_with_a_call_in_flight_ends_the_call_then_the_server(
    tmp_path: Path, number: signal.Signals, cold: bool, deaf: bool
) -> None:
    """Found by an outside review: SIGTERM or SIGHUP (a client stopping its server, a terminal
    closed) ended the server at once and left the call's app running with no bound (a warm one
    finished and changed the state after the server was gone); SIGINT ended the calls but printed
    a traceback. Each now ends the server as its client leaving does: the call is interrupted and
    waited for (its group killed after the grace), the server says why it stopped and exits 0."""
    flight = CallInFlight(tmp_path, cold, deaf)
    flight.server.process.send_signal(number)
    assert flight.ended() == 0
    said = flight.server.stderr.read().decode()
    assert f"agentapps mcp: stopped by {number.name}." in said
    assert "Traceback" not in said


@pytest.mark.parametrize(
    "stdout",
    [b'{"ok": true, "command": "items list", "x": "\\ud800"}', b'{"ok": true, "x": "\xff"}'],
    ids=["lone-surrogate-escape", "not-utf-8"],
)
def test_output_that_is_not_valid_unicode_is_a_violation_and_the_server_lives_on(
    tmp_path: Path, stdout: bytes
) -> None:
    package = tmp_path / "packages" / "command-paths"
    shutil.copytree(FIXTURES / "command-paths", package)
    (tmp_path / "stdout").write_bytes(stdout)
    script = f"import sys\nsys.stdout.buffer.write(open({str(tmp_path / 'stdout')!r}, 'rb').read())\n"
    (package / "app" / "cli.py").write_text(script)

    async def scenario(session: ClientSession) -> None:
        for _ in range(2):  # the second call proves the session survived the first
            failed = await session.call_tool("command_paths__items_list", {})
            assert failed.is_error is True
            assert failed.structured_content is not None
            assert failed.structured_content["error"]["code"] == "CONTRACT_VIOLATION"

    run(tmp_path, scenario, ["--approve", str(package)])


def test_a_failing_call_s_text_carries_the_hint_and_names_the_tool_s_arguments(tmp_path: Path) -> None:
    """Many clients hand the model only the text: `CODE: message`, then the hint on its own line,
    an option named as the argument the client sent (`due_at`, not `--due-at`). The structured
    content is the app's envelope with its message and hint in the same tool terms."""

    async def scenario(session: ClientSession) -> None:
        refused = await session.call_tool("agentic_to_do__update", {"id": "td_0001", "due_at": "2026-02-30"})
        assert refused.is_error is True
        envelope = refused.structured_content
        assert envelope is not None
        error = envelope["error"]
        assert envelope["command"] == "update"
        assert error["message"].startswith("due_at ")  # the argument the client sent
        assert "--due-at" not in error["message"]
        assert error["hint"]
        [content] = refused.content
        assert isinstance(content, TextContent)
        assert content.text == f"VALIDATION_ERROR: {error['message']}\nHint: {error['hint']}"
        assert "--due-at" not in content.text

    run(tmp_path, scenario, [str(SUITE / "agentic-to-do")])


def test_a_destructive_call_without_confirm_says_to_pass_confirm(tmp_path: Path) -> None:
    async def scenario(session: ClientSession) -> None:
        refused = await session.call_tool("agentic_to_do__remove", {"id": ["td_0001"]})
        hint = 'Ask the user; if they agree, call the tool again with "confirm": true.'
        assert refused.structured_content is not None
        assert refused.structured_content["error"]["hint"] == hint
        [content] = refused.content
        assert isinstance(content, TextContent)
        assert content.text == (
            "CONFIRMATION_REQUIRED: remove is in confirmationRequired: the runtime needs the user's "
            f"approval.\nHint: {hint}"
        )

    run(tmp_path, scenario, [str(SUITE / "agentic-to-do")])


def test_an_unknown_tool_says_how_tools_are_named(tmp_path: Path) -> None:
    async def scenario(session: ClientSession) -> None:
        refused = await session.call_tool("agentic-to-do.add", {"title": "x"})
        [content] = refused.content
        assert isinstance(content, TextContent)
        assert content.text == (
            "NOT_FOUND: No tool named agentic-to-do.add.\n"
            "Hint: List the tools for their names: <package>__<command>, as agentic_to_do__add."
        )

    run(tmp_path, scenario, [str(SUITE / "agentic-to-do")])


def agentapps(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    """The toolkit as a client starts it: stdin a pipe left open, so a server that started would
    wait on it (and the wall-time bound would fail), where a refusal returns at once."""
    with subprocess.Popen(
        [str(Path(sys.executable).parent / "agentapps"), *args],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        cwd=cwd,
    ) as process:
        try:
            stdout, stderr = process.communicate(timeout=60)
        except subprocess.TimeoutExpired:
            process.kill()
            process.communicate()
            raise
        return subprocess.CompletedProcess(process.args, process.returncode, stdout, stderr)


@pytest.mark.parametrize("root", ["missing", "a-file", "empty", "relative"])
def test_a_bad_root_is_refused_on_stderr_before_serving(tmp_path: Path, root: str) -> None:
    (tmp_path / "a-file").write_text("not a folder\n")
    (tmp_path / "empty" / "nothing-here").mkdir(parents=True)
    given = {"relative": "agentic-to-do"}.get(root, str(tmp_path / root))  # relative to tmp_path
    shown = {
        "relative": f"agentic-to-do (from {tmp_path}: {tmp_path / 'agentic-to-do'})",
    }.get(root, given)
    problem = "holds no package" if root == "empty" else "is not a folder"
    completed = agentapps("mcp", str(SUITE / "agentic-notes"), given, cwd=tmp_path)
    assert completed.returncode == 4
    error = json.loads(completed.stdout)["error"]
    assert error["code"] == "NOT_FOUND"
    assert error["message"].startswith(f"{shown} {problem}")
    assert completed.stderr == f"agentapps mcp: {error['message']} {error['hint']}\n"


def test_no_root_outside_the_checkout_serves_the_suites_three_apps(tmp_path: Path) -> None:
    """A client starts the server from a folder of its own choosing: with no root, that folder is
    not searched; the suite's own apps are served (a folder holding no package is still refused
    when given as a root, above)."""
    server = StdioServerParameters(
        command=str(Path(sys.executable).parent / "agentapps"),
        args=["mcp"],
        env={**os.environ, "AGENTIC_STATE_DIR": str(tmp_path / "state")},
        cwd=tmp_path,
    )

    async def main() -> set[str]:
        async with stdio_client(server) as (read, write), ClientSession(read, write) as session:
            await session.initialize()
            return {tool.name.split("__")[0] for tool in (await session.list_tools()).tools}

    assert asyncio.run(asyncio.wait_for(main(), timeout=120)) == {tool_prefix(name) for name in PACKAGES}


def test_a_bad_option_is_said_on_stderr_too(tmp_path: Path) -> None:
    completed = agentapps("mcp", "--timeout", "0", str(SUITE / "agentic-to-do"))
    assert completed.returncode == 3
    assert json.loads(completed.stdout)["error"]["code"] == "VALIDATION_ERROR"
    assert completed.stderr.startswith("agentapps mcp: Invalid value for '--timeout'")


def test_an_unknown_option_is_a_usage_error_as_the_code_table_says(tmp_path: Path) -> None:
    """USAGE_ERROR's exit status is 2 in every command of the suite, mcp's too."""
    completed = agentapps("mcp", "--bogus", str(SUITE / "agentic-to-do"))
    assert completed.returncode == 2
    error = json.loads(completed.stdout)["error"]
    assert (error["code"], error["message"]) == ("USAGE_ERROR", "mcp has no option '--bogus'.")
    assert error["hint"].startswith("Options of mcp: --approve,")
    assert completed.stderr == f"agentapps mcp: {error['message']} {error['hint']}\n"


def test_a_timeout_that_is_not_a_number_says_how_to_give_one() -> None:
    completed = agentapps("mcp", "--timeout", "abc", str(SUITE / "agentic-to-do"))
    assert completed.returncode == 3
    error = json.loads(completed.stdout)["error"]
    assert error == {
        "code": "VALIDATION_ERROR",
        "message": "Invalid value for '--timeout': abc is not a number of seconds from 0.1 to 86400.",
        "hint": "Give --timeout a number of seconds (a decimal point is allowed): --timeout 30.",
    }
    assert completed.stderr == f"agentapps mcp: {error['message']} {error['hint']}\n"


@pytest.mark.parametrize("started", ["console script", "python -m agentapps"])
def test_help_names_the_program_agentapps_however_it_is_started(started: str) -> None:
    """Every help's usage line begins `agentapps`, as the user types it: not the kit's app/cli.py."""
    program = (
        [str(Path(sys.executable).parent / "agentapps")]
        if started == "console script"
        else [sys.executable, "-m", "agentapps"]
    )
    helped = json.loads(
        subprocess.run([*program, "--help"], capture_output=True, text=True, timeout=60, check=True).stdout
    )
    assert helped["help"].startswith("Usage: agentapps [OPTIONS] COMMAND [ARGS]...\n")
    commands = re.findall(r"^  ([a-z]+) ", helped["help"].split("Commands:")[1], flags=re.MULTILINE)
    assert {"mcp", "run", "catalog", "describe"} <= set(commands)
    for command in commands:
        completed = subprocess.run(
            [*program, command, "--help"], capture_output=True, text=True, timeout=60, check=True
        )
        text = json.loads(completed.stdout)["help"]
        assert text.startswith(f"Usage: agentapps {command} "), text.splitlines()[0]
        assert "app/cli.py" not in text.splitlines()[0]


def test_mcp_help_prints_help_and_serves_nothing() -> None:
    for args in (["mcp", "--help"], ["mcp", str(SUITE / "agentic-to-do"), "--help"]):
        completed = agentapps(*args)
        assert completed.returncode == 0
        envelope = json.loads(completed.stdout)
        assert envelope["command"] == "mcp"
        assert "Serve every package under the roots over MCP on stdio" in envelope["help"]
        assert completed.stderr == ""


def test_the_toolkit_s_help_and_describe_list_mcp() -> None:
    helped = json.loads(agentapps("--help").stdout)["help"]
    assert re.search(r"^  mcp +Serve every package", helped, flags=re.MULTILINE)
    described = json.loads(agentapps("describe").stdout)["item"]["commands"]
    [mcp] = [command for command in described if command["name"] == "mcp"]
    assert mcp["arguments"][0]["name"].lower().startswith("root")


def test_null_is_not_given_and_a_whole_number_float_is_a_whole_number(tmp_path: Path) -> None:
    """What a client converting the schemas to OpenAI's strict form sends: every argument, null
    for those it leaves out; and 5.0 for 5, as some clients' JSON numbers are floats."""

    async def scenario(session: ClientSession) -> None:
        added = await session.call_tool(
            "agentic_to_do__add",
            {
                "title": "a",
                "description": None,
                "due_at": None,
                "tag": None,
                "priority": None,
                "repeat": None,
            },
        )
        assert added.is_error is not True
        assert tool_text(added)["item"]["dueAt"] is None
        await session.call_tool("agentic_to_do__add", {"title": "b"})
        listed = tool_text(await session.call_tool("agentic_to_do__list", {"limit": 1.0, "status": None}))
        assert [item["title"] for item in listed["items"]] == ["a"]
        refused = await session.call_tool("agentic_to_do__list", {"limit": 1.5})
        assert refused.structured_content is not None
        assert refused.structured_content["error"]["code"] == "VALIDATION_ERROR"
        assert refused.structured_content["error"]["message"] == "limit: 1.5 is not of type 'integer'."
        still_required = await session.call_tool("agentic_to_do__add", {"title": None})
        assert still_required.structured_content is not None
        assert still_required.structured_content["error"]["code"] == "VALIDATION_ERROR"
        assert tool_text(await session.call_tool("agentic_to_do__list", {}))["count"] == 2

    run(tmp_path, scenario, [str(SUITE / "agentic-to-do")])


def test_the_server_names_its_version_and_instructions_and_answers_every_list(tmp_path: Path) -> None:
    """Clients such as Cline show a server as failed when a list it may ask for is not found."""

    async def scenario(session: ClientSession) -> None:
        assert (await session.list_prompts()).prompts == []
        assert (await session.list_resource_templates()).resource_templates == []
        assert len((await session.list_resources()).resources) > 0

    async def main() -> None:
        server = StdioServerParameters(
            command=str(Path(sys.executable).parent / "agentapps"),
            args=["mcp", str(SUITE / "agentic-to-do")],
            env={**os.environ, "AGENTIC_STATE_DIR": str(tmp_path)},
        )
        async with stdio_client(server) as (read, write), ClientSession(read, write) as session:
            hello = await session.initialize()
            assert hello.server_info.name == "agentapps"
            assert re.fullmatch(r"\d+\.\d+\.\d+.*", hello.server_info.version)
            assert hello.instructions is not None
            assert "confirm: true" in hello.instructions
            await asyncio.wait_for(scenario(session), timeout=120)

    asyncio.run(main())


def test_strict_schemas_list_every_argument_as_required_and_nullable(tmp_path: Path) -> None:
    async def scenario(session: ClientSession) -> None:
        tools = {tool.name: tool for tool in (await session.list_tools()).tools}
        add = tools["agentic_to_do__add"].input_schema
        assert add["additionalProperties"] is False
        assert sorted(add["required"]) == sorted(add["properties"])
        assert add["properties"]["title"]["type"] == "string"
        assert add["properties"]["priority"]["type"] == ["string", "null"]
        assert add["properties"]["priority"]["enum"][-1] is None
        everything = {name: None for name in add["properties"]} | {"title": "strict"}
        assert (
            tool_text(await session.call_tool("agentic_to_do__add", everything))["item"]["title"] == "strict"
        )

    run(tmp_path, scenario, ["--strict-schemas", str(SUITE / "agentic-to-do")])


WAITS_CLI = """import json, pathlib, sys
if sys.argv[1] == "wait":  # until the test lets it go: a call as slow as the test wants
    while not pathlib.Path(sys.argv[-1]).exists():
        pass
print(json.dumps({"ok": True, "command": sys.argv[1], "item": {"said": sys.argv[-1]}}))
"""


def test_a_slow_call_holds_up_neither_pings_nor_other_calls(tmp_path: Path) -> None:
    """A call that has not ended yet: a ping and another call are answered meanwhile; the slow
    one then ends with its own answer."""
    package = tmp_path / "waits"
    (package / "app").mkdir(parents=True)
    shutil.copy(FIXTURES / "command-paths" / "APP.md", package / "APP.md")
    app_md = (package / "APP.md").read_text()
    app_md = app_md.replace("slug: command-paths", "slug: waits").replace(
        "  - items add\n  - items list\n  - items remove\n", "  - wait\n  - now\n"
    )
    (package / "APP.md").write_text(app_md.replace("confirmationRequired:\n  - items remove\n", ""))
    shutil.copytree(FIXTURES / "command-paths" / "skills", package / "skills")
    (package / "app" / "cli.py").write_text(WAITS_CLI)
    release = tmp_path / "release"

    async def scenario(session: ClientSession) -> None:
        slow = asyncio.ensure_future(session.call_tool("waits__wait", {"args": [str(release)]}))
        await session.send_ping()
        quick = await session.call_tool("waits__now", {"args": ["meanwhile"]})
        assert tool_text(quick)["item"]["said"] == "meanwhile"
        assert not slow.done()
        release.touch()
        assert tool_text(await slow)["item"]["said"] == str(release)

    run(tmp_path, scenario, ["--approve", str(package)])


def test_only_serves_the_tools_it_names_and_says_a_pattern_naming_none(tmp_path: Path) -> None:
    log = tmp_path / "server.log"

    async def scenario(session: ClientSession) -> None:
        names = sorted(tool.name for tool in (await session.list_tools()).tools)
        assert names == sorted(
            ["agentic_notes__get", *(f"agentic_timer__{name}" for name in ("start", "list", "get"))]
        )
        refused = await session.call_tool("agentic_notes__add", {"title": "not served"})
        assert refused.structured_content is not None
        assert refused.structured_content["error"]["code"] == "NOT_FOUND"

    only = ["--only", "agentic_notes__get", "--only", "agentic_timer__[slg]*t", "--only", "nothing_*"]
    with log.open("w") as errlog:
        run_process(
            tmp_path,
            scenario,
            [*only, str(SUITE / "agentic-notes"), str(SUITE / "agentic-timer")],
            errlog=errlog,
        )
    assert "agentapps mcp: --only nothing_* names no tool" in log.read_text()
