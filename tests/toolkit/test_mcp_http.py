"""`agentapps mcp --http`: the server over Streamable HTTP on loopback, driven by the MCP SDK's own
client and by plain HTTP requests for what it must refuse."""

from __future__ import annotations

import asyncio
import json
import os
import queue
import re
import shutil
import signal
import socket
import subprocess
import sys
import threading
import urllib.error
import urllib.request
from collections.abc import AsyncIterator, Callable, Iterator
from contextlib import asynccontextmanager, contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx2
import pytest
from mcp import ClientSession
from mcp.client.streamable_http import streamable_http_client

from agentapps.mcp_http import HttpListen, announce, parse_address
from tests.toolkit.conftest import FIXTURES, SUITE, ToolkitResult

AGENTAPPS = str(Path(sys.executable).parent / "agentapps")
TO_DO = str(SUITE / "agentic-to-do")
START_UP = 60.0  # seconds to wait for the URL on stderr: a bound, not a measured time
TOKEN = "a-token-of-the-user-s-own-choosing"  # what --token-env passes in the tests that give one


@dataclass
class Served:
    process: subprocess.Popen[str]
    url: str
    token: str | None  # the generated token printed on stderr; None when --token-env gave one
    stderr: list[str] = field(default_factory=list)

    def said(self) -> str:
        return "".join(self.stderr)


@contextmanager
def served(
    tmp_path: Path, *args: str, env: dict[str, str] | None = None, address: str = "0"
) -> Iterator[Served]:
    """`agentapps mcp --http ADDRESS ARGS` until the block ends: its URL and token read from stderr."""
    process = subprocess.Popen(
        [AGENTAPPS, "mcp", "--http", address, *args],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={
            **os.environ,
            "AGENTIC_STATE_DIR": str(tmp_path / "state"),
            "AGENTIC_NOW": "2026-04-01T00:00:00Z",
            **(env or {}),
        },
    )
    lines: queue.Queue[str] = queue.Queue()
    said: list[str] = []

    def read() -> None:
        assert process.stderr is not None
        for line in process.stderr:
            said.append(line)
            lines.put(line)
        lines.put("")  # end of stderr

    threading.Thread(target=read, daemon=True).start()
    url = token = None
    try:
        while True:
            line = lines.get(timeout=START_UP)
            assert line, f"the server ended before serving: {''.join(said)}"
            found = re.search(r"serving MCP over HTTP at (http://\S+)", line)
            url = found[1] if found else url
            found = re.search(r"--token-env NAME\): (\S+)$", line)
            token = found[1] if found else token
            if "clients send the header" in line:
                break
        assert url is not None
        yield Served(process, url, token, said)
    finally:
        if process.poll() is None:
            process.terminate()
        process.wait(timeout=START_UP)
        assert process.stdout is not None
        process.stdout.close()


@asynccontextmanager
async def session_of(url: str, token: str, terminate_on_close: bool = True) -> AsyncIterator[ClientSession]:
    async with (
        httpx2.AsyncClient(headers={"Authorization": f"Bearer {token}"}, timeout=60) as client,
        streamable_http_client(url, http_client=client, terminate_on_close=terminate_on_close) as (
            read,
            write,
        ),
        ClientSession(read, write) as session,
    ):
        await session.initialize()
        yield session


def with_session(url: str, token: str, scenario: Callable[[ClientSession], Any]) -> Any:
    async def main() -> Any:
        async with session_of(url, token) as session:
            return await asyncio.wait_for(scenario(session), timeout=120)

    return asyncio.run(main())


def post(url: str, message: dict[str, Any], headers: dict[str, str]) -> tuple[int, dict[str, str], bytes]:
    """One JSON-RPC message POSTed as a plain HTTP client would: status, headers, body."""
    request = urllib.request.Request(
        url,
        data=json.dumps(message).encode(),
        headers={
            "Content-Type": "application/json",
            "Accept": "application/json, text/event-stream",
            **headers,
        },
        method="POST",
    )
    try:
        with urllib.request.urlopen(request, timeout=60) as answer:
            return answer.status, {k.lower(): v for k, v in answer.headers.items()}, answer.read()
    except urllib.error.HTTPError as refused:
        return refused.code, {k.lower(): v for k, v in refused.headers.items()}, refused.read()


def refusal(body: bytes) -> str:
    """The message of a refusal: a JSON-RPC error with no id, as the SDK answers at the HTTP level."""
    document = json.loads(body)
    assert document["jsonrpc"] == "2.0"
    assert document["id"] is None
    return str(document["error"]["message"])


def items_listed(url: str, token: str) -> list[str]:
    async def scenario(session: ClientSession) -> list[str]:
        listed: Any = (await session.call_tool("agentic_to_do__list", {})).structured_content
        return [item["title"] for item in listed["items"]]

    return list(with_session(url, token, scenario))


def test_a_remote_client_lists_the_tools_and_a_call_writes_under_the_rules_of_stdio(tmp_path: Path) -> None:
    untrusted = tmp_path / "downloads" / "valid-package"
    shutil.copytree(FIXTURES / "valid-package", untrusted)
    echo = str(FIXTURES / "entry-is-a-shell-command")
    roots = [TO_DO, echo, str(untrusted)]

    async def scenario(session: ClientSession) -> None:
        tools = {tool.name for tool in (await session.list_tools()).tools}
        assert "agentic_to_do__add" in tools
        assert "entry_is_a_shell_command__echo" in tools
        assert not any(name.startswith("valid_package__") for name in tools)  # untrusted: left out
        written = await session.call_tool(
            "agentic_to_do__add", {"title": "From afar", "due_at": "2026-05-01"}
        )
        assert written.is_error is not True
        assert written.structured_content is not None
        assert written.structured_content["item"]["createdAt"] == "2026-04-01T00:00:00.000Z"
        refused = await session.call_tool("agentic_to_do__remove", {"id": ["td_0001"]})
        assert refused.structured_content is not None
        assert refused.structured_content["error"]["code"] == "CONFIRMATION_REQUIRED"
        seen: Any = (await session.call_tool("entry_is_a_shell_command__echo", {})).structured_content
        assert "SERVER_TOKEN" not in seen["item"]["environment"]  # the token is never the package's

    with served(tmp_path, "--token-env", "SERVER_TOKEN", *roots, env={"SERVER_TOKEN": TOKEN}) as server:
        assert re.fullmatch(r"http://127\.0\.0\.1:\d+/mcp", server.url)
        with_session(server.url, TOKEN, scenario)
        assert items_listed(server.url, TOKEN) == ["From afar"]  # on disk: a new session reads it
        said = server.said()
        assert TOKEN not in said  # given by variable: never printed
        assert "bearer token: the value of SERVER_TOKEN" in said
        assert f"{untrusted} is not served: untrusted" in said


def test_a_refused_request_is_answered_before_the_session_and_changes_nothing(tmp_path: Path) -> None:
    with served(tmp_path, TO_DO) as server:
        assert server.token is not None
        assert len(server.token) >= 32
        right = {"Authorization": f"Bearer {server.token}"}
        status, headers, _ = post(
            server.url,
            {
                "jsonrpc": "2.0",
                "id": 1,
                "method": "initialize",
                "params": {
                    "protocolVersion": "2025-06-18",
                    "capabilities": {},
                    "clientInfo": {"name": "plain-http", "version": "1"},
                },
            },
            right,
        )
        assert status == 200
        session = {"mcp-session-id": headers["mcp-session-id"], "mcp-protocol-version": "2025-06-18"}
        assert (
            post(server.url, {"jsonrpc": "2.0", "method": "notifications/initialized"}, {**right, **session})[
                0
            ]
            == 202
        )
        add = {
            "jsonrpc": "2.0",
            "id": 2,
            "method": "tools/call",
            "params": {"name": "agentic_to_do__add", "arguments": {"title": "Refused"}},
        }
        port = server.url.split(":")[2].split("/")[0]
        refused = {
            "no token": ({}, 401),
            "a wrong token": ({"Authorization": "Bearer " + "x" * 43}, 401),
            "the token cut short": ({"Authorization": f"Bearer {server.token[:-1]}"}, 401),
            "another scheme": ({"Authorization": f"Basic {server.token}"}, 401),
            "a foreign Origin": ({**right, "Origin": "http://attacker.example"}, 403),
            "a rebinding Origin": ({**right, "Origin": f"http://attacker.example:{port}"}, 403),
            "an opaque Origin": ({**right, "Origin": "null"}, 403),
            "the server's Origin on another port": ({**right, "Origin": "http://127.0.0.1:1"}, 403),
        }
        for why, (extra, expected) in refused.items():
            status, headers, body = post(server.url, add, {**session, **extra})
            assert status == expected, why
            if expected == 401:
                assert headers["www-authenticate"].startswith("Bearer"), why
                assert "Authorization: Bearer" in refusal(body), why
            else:
                assert "may not call this server" in refusal(body), why
        assert items_listed(server.url, server.token) == []  # nothing refused reached the app
        # The same request with the token, from the server's own origin, is served: so the refusals
        # above were the token's and the Origin's, not the request's.
        status, _, body = post(server.url, add, {**right, **session, "Origin": f"http://localhost:{port}"})
        assert status == 200
        assert b'"isError":false' in body.replace(b" ", b"")
        assert items_listed(server.url, server.token) == ["Refused"]


@pytest.mark.parametrize(
    ("stop", "address", "url"),
    [
        (signal.SIGTERM, "0", r"http://127\.0\.0\.1:\d+/mcp"),
        (signal.SIGINT, "[::1]:0", r"http://\[::1\]:\d+/mcp"),  # IPv6: the address in brackets
    ],
    ids=["SIGTERM", "SIGINT-on-IPv6"],
)
def test_a_signal_ends_the_server_cleanly_with_a_session_open(
    tmp_path: Path, stop: signal.Signals, address: str, url: str
) -> None:
    with served(tmp_path, TO_DO, address=address) as server:
        assert re.fullmatch(url, server.url)
        assert server.token is not None

        async def main() -> None:
            # The client keeps its session (and its GET stream) open while the server is stopped.
            async with session_of(server.url, str(server.token), terminate_on_close=False) as session:
                await session.call_tool("agentic_to_do__add", {"title": "Before the signal"})
                server.process.send_signal(stop)
                status = await asyncio.to_thread(server.process.wait, START_UP)
                assert status == 0

        asyncio.run(main())
        said = server.said()
        assert f"stopped by {stop.name}" in said
        assert "Traceback" not in said
        assert "ERROR" not in said
    # What was written before the signal is on disk.
    stored = [path.read_text() for path in (tmp_path / "state").rglob("*") if path.is_file()]
    assert any("Before the signal" in text for text in stored)


WAITS_CLI = """import json, pathlib, sys, time
if sys.argv[1] == "wait":  # says it started, then waits until the test lets it go
    pathlib.Path(sys.argv[-1] + ".started").touch()
    while not pathlib.Path(sys.argv[-1]).exists():
        time.sleep(0.01)
print(json.dumps({"ok": True, "command": sys.argv[1], "item": {"said": sys.argv[-1]}}))
"""


def waiting_package(tmp_path: Path) -> Path:
    """A package whose `wait` ends when a file it is given exists (a call as slow as the test wants)."""
    package = tmp_path / "waits"
    (package / "app").mkdir(parents=True)
    app_md = (FIXTURES / "command-paths" / "APP.md").read_text()
    app_md = app_md.replace("slug: command-paths", "slug: waits").replace(
        "  - items add\n  - items list\n  - items remove\n", "  - wait\n"
    )
    (package / "APP.md").write_text(app_md.replace("confirmationRequired:\n  - items remove\n", ""))
    shutil.copytree(FIXTURES / "command-paths" / "skills", package / "skills")
    (package / "app" / "cli.py").write_text(WAITS_CLI)
    return package


def test_a_call_already_made_at_sigterm_is_answered_before_the_server_ends(tmp_path: Path) -> None:
    release = tmp_path / "release"
    with served(tmp_path, "--approve", str(waiting_package(tmp_path))) as server:
        assert server.token is not None

        async def main() -> None:
            async with session_of(server.url, str(server.token), terminate_on_close=False) as session:
                # Listed first, as a client does: the SDK's client lists the tools to check an
                # answer against its tool's schema, which it could not once the server stops.
                await session.list_tools()
                slow = asyncio.ensure_future(session.call_tool("waits__wait", {"args": [str(release)]}))
                while not Path(f"{release}.started").exists():
                    await asyncio.sleep(0.01)
                server.process.terminate()
                await asyncio.sleep(0.5)  # the server has the signal before the call may end
                release.touch()
                answer: Any = (await asyncio.wait_for(slow, timeout=START_UP)).structured_content
                assert answer["item"]["said"] == str(release)
                assert await asyncio.to_thread(server.process.wait, START_UP) == 0

        asyncio.run(main())
        assert "stopped by SIGTERM" in server.said()


def test_a_port_in_use_is_a_conflict_before_anything_is_served(
    agentapps: Callable[..., ToolkitResult],
) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        result = agentapps("mcp", "--http", f"127.0.0.1:{port}", TO_DO)
    assert (result.exit_status, result.error_code) == (6, "CONFLICT")
    assert result.envelope["error"]["message"] == f"Port {port} on 127.0.0.1 is already in use."
    assert "--http 0" in result.envelope["error"]["hint"]


def test_a_port_in_use_is_said_on_stderr_by_the_console_script(tmp_path: Path) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        done = subprocess.run(
            [AGENTAPPS, "mcp", "--http", str(port), TO_DO],
            capture_output=True,
            text=True,
            timeout=START_UP,
            env={**os.environ, "AGENTIC_STATE_DIR": str(tmp_path / "state")},
        )
    assert done.returncode == 6
    assert f"agentapps mcp: Port {port} on 127.0.0.1 is already in use." in done.stderr
    assert json.loads(done.stdout)["error"]["code"] == "CONFLICT"


@pytest.mark.parametrize(
    ("args", "env", "code", "said"),
    [
        (["--http", "eighty"], {}, "VALIDATION_ERROR", "the port is not a whole number"),
        (["--http", "127.0.0.1:65536"], {}, "VALIDATION_ERROR", "the port is not a whole number"),
        (["--http", "127.0.0.1:"], {}, "VALIDATION_ERROR", "the port is not a whole number"),
        (["--http", "-1"], {}, "VALIDATION_ERROR", "the port is not a whole number"),
        (["--http", ":8000"], {}, "VALIDATION_ERROR", "the host is empty"),
        (["--http", "::1:8000"], {}, "VALIDATION_ERROR", "in brackets"),
        (["--http", "0.0.0.0:0"], {}, "VALIDATION_ERROR", "0.0.0.0 is not a loopback address"),
        (["--http", "example.com:0"], {}, "VALIDATION_ERROR", "example.com is not a loopback address"),
        # Allowed off loopback, but 192.0.2.1 (TEST-NET-1) is no address of this machine.
        (["--http", "192.0.2.1:0", "--allow-remote"], {}, "VALIDATION_ERROR", "Cannot listen on 192.0.2.1:0"),
        (["--token-env", "T"], {"T": TOKEN}, "USAGE_ERROR", "--token-env is an option of --http"),
        (["--allow-remote"], {}, "USAGE_ERROR", "--allow-remote is an option of --http"),
        (["--http", "0", "--token-env", "UNSET_TOKEN"], {}, "VALIDATION_ERROR", "the variable is not set"),
        (["--http", "0", "--token-env", "T"], {"T": ""}, "VALIDATION_ERROR", "the variable is not set"),
        (["--http", "0", "--token-env", "T"], {"T": "short"}, "VALIDATION_ERROR", "at least 16"),
        (
            ["--http", "0", "--token-env", "T"],
            {"T": "has spaces in it, sixteen+"},
            "VALIDATION_ERROR",
            "at least 16",
        ),
        (["--http", "0", "--token-env", "T"], {"T": "é" * 20}, "VALIDATION_ERROR", "at least 16"),
    ],
)
def test_a_bad_http_option_is_refused_before_anything_listens(
    agentapps: Callable[..., ToolkitResult],
    monkeypatch: pytest.MonkeyPatch,
    args: list[str],
    env: dict[str, str],
    code: str,
    said: str,
) -> None:
    monkeypatch.delenv("UNSET_TOKEN", raising=False)
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    result = agentapps("mcp", *args, TO_DO)
    assert result.error_code == code
    assert result.exit_status == {"VALIDATION_ERROR": 3, "USAGE_ERROR": 2}[code]
    assert said in result.envelope["error"]["message"]
    assert result.envelope["error"]["hint"]


@pytest.mark.parametrize(
    ("given", "address"),
    [
        ("8000", ("127.0.0.1", 8000)),
        ("0", ("127.0.0.1", 0)),
        ("localhost:8000", ("localhost", 8000)),
        ("127.0.0.1:65535", ("127.0.0.1", 65535)),
        ("[::1]:8000", ("::1", 8000)),
    ],
)
def test_the_address_is_a_port_on_loopback_or_host_and_port(given: str, address: tuple[str, int]) -> None:
    assert parse_address(given) == address


def test_a_host_off_loopback_is_warned_of_plain_http(capsys: pytest.CaptureFixture[str]) -> None:
    with socket.socket() as listener:
        listener.bind(("127.0.0.1", 0))
        said: list[str] = []
        announce(HttpListen(listener, "192.0.2.7", TOKEN, "T"), said.append)
        announce(HttpListen(listener, "127.0.0.1", TOKEN, "T"), said.append)
    warnings = [line for line in said if line.startswith("warning:")]
    assert len(warnings) == 1
    assert "192.0.2.7 is reachable from other machines over plain HTTP" in warnings[0]
