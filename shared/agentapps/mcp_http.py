"""`agentapps mcp --http [HOST:]PORT`: the same MCP server over the SDK's Streamable HTTP transport.

What a remote client reaches is the server mcp_server.build_server makes for stdio: the same tools,
resources, trust, gates and limits. This module adds only what a network listener needs:
- a listener on loopback unless --allow-remote is given (plain HTTP: off this machine the token
  and every call would cross the network unencrypted, so that is the user's explicit choice);
- a bearer token on every request (Authorization: Bearer TOKEN), compared in constant time:
  generated with `secrets` and printed on stderr, or read from the variable --token-env names, so
  it never has to be on a command line (which other users of the machine can read);
- an Origin check against DNS rebinding: a request a browser sends from a page of another origin
  is refused with 403 before anything reads it; a request with no Origin (every non-browser client)
  passes to the token check.
A refused request never reaches the MCP session, so it runs and changes nothing. SIGTERM or SIGINT
ends the server cleanly (exit 0): it stops accepting, answers the calls already made (each bounded
by --timeout) and exits.

The checks of the address, the token and the port run before anything is served (check_http,
listen), so a bad value is an error envelope like any other option's; the SDK and uvicorn are
imported only when serving.
"""

from __future__ import annotations

import contextlib
import errno
import hmac
import ipaddress
import json
import os
import re
import secrets
import signal
import socket
import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from agentic_kit.errors import AppError, ErrorCode
from agentic_kit.text import printable

from .runtime import RunOptions

if TYPE_CHECKING:
    from starlette.types import ASGIApp, Message, Receive, Scope, Send

LOOPBACK_HOST = "127.0.0.1"  # the host of `--http PORT`
ENDPOINT = "/mcp"  # the SDK's path for the Streamable HTTP endpoint
MIN_TOKEN_LENGTH = 16
# RFC 6750's b64token: the characters a bearer token may hold in an Authorization header.
TOKEN_CHARACTERS = re.compile(r"[A-Za-z0-9\-._~+/]+=*")


@dataclass
class HttpListen:
    """Where and how `mcp --http` serves: the bound listener and the token every request carries."""

    listener: socket.socket
    host: str
    token: str
    token_source: str | None  # the variable the token came from; None when it was generated

    @property
    def port(self) -> int:
        return int(self.listener.getsockname()[1])

    @property
    def url(self) -> str:
        return f"http://{url_host(self.host)}:{self.port}{ENDPOINT}"


def url_host(host: str) -> str:
    """The host as a URL writes it: an IPv6 address in brackets."""
    return f"[{host}]" if ":" in host else host


def parse_address(text: str) -> tuple[str, int]:
    """`PORT`, `HOST:PORT` or `[IPv6]:PORT` → (host, port); a lone port is on LOOPBACK_HOST.
    Port 0 asks the system for a free one (the URL on stderr says which)."""
    host, port_text = LOOPBACK_HOST, text
    if text.startswith("["):
        found = re.fullmatch(r"\[([^\]]+)\]:(.*)", text)
        if found is None:
            raise _bad_address(text, "an IPv6 address is written in brackets, then its port: [::1]:8000.")
        host, port_text = found[1], found[2]
    elif ":" in text:
        host, _, port_text = text.rpartition(":")
        if ":" in host:
            raise _bad_address(text, "an IPv6 address is written in brackets, then its port: [::1]:8000.")
    if not host or host != host.strip():
        raise _bad_address(text, "the host is empty or has spaces.")
    if not (port_text.isascii() and port_text.isdigit() and int(port_text) <= 65535):
        raise _bad_address(text, "the port is not a whole number from 0 to 65535.")
    return host, int(port_text)


def _bad_address(text: str, problem: str) -> AppError:
    return AppError(
        ErrorCode.VALIDATION_ERROR,
        f"Invalid value for '--http': {printable(text)!r}: {problem}",
        "Give --http a port (on 127.0.0.1) or HOST:PORT: --http 8000, --http 127.0.0.1:8000.",
    )


def is_loopback(host: str) -> bool:
    """Only this machine can reach it: `localhost`, or an address in 127.0.0.0/8 or ::1."""
    if host.lower() == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False  # a host name other than localhost may resolve anywhere


def check_http(
    address: str, token_env: str | None, allow_remote: bool, environ: dict[str, str] | None = None
) -> HttpListen:
    """The checked options of `mcp --http`, with the listener bound: VALIDATION_ERROR for a bad
    address or token, for a host off loopback without --allow-remote; CONFLICT for a port in use."""
    host, port = parse_address(address)
    if not allow_remote and not is_loopback(host):
        raise AppError(
            ErrorCode.VALIDATION_ERROR,
            f"{host} is not a loopback address: the server would be reachable from other machines, "
            "over plain HTTP.",
            "Serve on 127.0.0.1 (--http PORT) and reach it through a TLS proxy or tunnel, or pass "
            "--allow-remote to serve on this address anyway.",
        )
    token, source = _token(token_env, os.environ if environ is None else environ)
    return HttpListen(listen(host, port), host, token, source)


def _token(token_env: str | None, environ: Any) -> tuple[str, str | None]:
    if token_env is None:
        return secrets.token_urlsafe(32), None
    value = environ.get(token_env)
    hint = (
        f"Set {token_env} to a token of at least {MIN_TOKEN_LENGTH} letters, digits or -._~+/ "
        f"(python3 -c 'import secrets; print(secrets.token_urlsafe(32))'), or leave out "
        "--token-env to have one generated."
    )
    if not value:
        raise AppError(ErrorCode.VALIDATION_ERROR, f"--token-env {token_env}: the variable is not set.", hint)
    if len(value) < MIN_TOKEN_LENGTH or not TOKEN_CHARACTERS.fullmatch(value):
        raise AppError(
            ErrorCode.VALIDATION_ERROR,
            f"--token-env {token_env}: the token must be at least {MIN_TOKEN_LENGTH} characters, "
            "each a letter, a digit or one of -._~+/ (as an Authorization header carries it).",
            hint,
        )
    return value, token_env


def listen(host: str, port: int) -> socket.socket:
    """A listening socket on host:port, bound before anything is served so a port in use is a
    CONFLICT envelope, and port 0 names the port it got."""
    try:
        family, kind, proto, _, where = socket.getaddrinfo(
            host, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE
        )[0]
    except socket.gaierror as error:
        raise AppError(
            ErrorCode.VALIDATION_ERROR,
            f"--http {host}: no such host ({error.strerror}).",
            "Give an address of this machine: 127.0.0.1, ::1 or localhost.",
        ) from None
    listener = socket.socket(family, kind, proto)
    try:
        if os.name != "nt":  # a restarted server may reuse its port at once; never two at a time
            listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        listener.bind(where)
        listener.listen(128)
    except OSError as error:
        listener.close()
        if error.errno == errno.EADDRINUSE:
            raise AppError(
                ErrorCode.CONFLICT,
                f"Port {port} on {host} is already in use.",
                "Stop what serves on it, or choose another port (--http 0 lets the system choose one "
                "and names it on stderr).",
            ) from None
        raise AppError(
            ErrorCode.VALIDATION_ERROR,
            f"Cannot listen on {url_host(host)}:{port}: {error.strerror}.",
            "Give an address of this machine and a port from 1024 up (--http 0 lets the system choose).",
        ) from None
    return listener


def own_origins(host: str, port: int) -> frozenset[str]:
    """The origins that name this server itself: a page it served (it serves none) could call it."""
    names = {host, "127.0.0.1", "localhost", "::1"}
    return frozenset(f"http://{url_host(name).lower()}:{port}" for name in names)


class Guard:
    """ASGI middleware in front of the SDK's app: the Origin check (403), then the bearer token
    (401). A refused request is answered here and never reaches an MCP session."""

    def __init__(self, app: ASGIApp, token: str, origins: frozenset[str]) -> None:
        self.app = app
        self.token = token.encode("ascii")
        self.origins = origins

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":  # the lifespan: start-up and shutdown of the SDK's manager
            await self.app(scope, receive, send)
            return
        headers = _headers(scope)
        origins = headers.get(b"origin", [])
        if origins and (len(origins) > 1 or origins[0].decode("latin-1").lower() not in self.origins):
            shown = printable(b", ".join(origins).decode("latin-1"))
            await _refuse(
                send,
                403,
                f"Origin {shown} may not call this server: a web page of another origin is refused "
                "(DNS rebinding).",
            )
            return
        if not self._authorised(headers.get(b"authorization", [])):
            given = bool(headers.get(b"authorization"))
            await _refuse(
                send,
                401,
                ("The bearer token is wrong." if given else "No bearer token.")
                + " Send the header Authorization: Bearer TOKEN, with the token agentapps mcp printed "
                "on stderr at start-up (or the value of the variable --token-env named).",
                {"www-authenticate": "Bearer" + (' error="invalid_token"' if given else "")},
            )
            return
        await self._served(scope, receive, send)

    async def _served(self, scope: Scope, receive: Receive, send: Send) -> None:
        """The SDK's answer, its end always sent: at shutdown the SDK ends a client's open GET
        stream without its last, empty chunk, which uvicorn would log as an error."""
        state = {"started": False, "ended": False}

        async def sending(message: Message) -> None:
            if message["type"] == "http.response.start":
                state["started"] = True
            elif message["type"] == "http.response.body" and not message.get("more_body", False):
                state["ended"] = True
            await send(message)

        await self.app(scope, receive, sending)
        if state["started"] and not state["ended"]:
            with contextlib.suppress(OSError, RuntimeError):  # the client may be gone already
                await send({"type": "http.response.body", "body": b"", "more_body": False})

    def _authorised(self, values: list[bytes]) -> bool:
        if len(values) != 1:
            return False
        scheme, _, given = values[0].partition(b" ")
        # Constant time, so the answer's timing says nothing of how much of a guess was right.
        return scheme.lower() == b"bearer" and hmac.compare_digest(given.strip(), self.token)


def _headers(scope: Scope) -> dict[bytes, list[bytes]]:
    found: dict[bytes, list[bytes]] = {}
    for name, value in scope["headers"]:
        found.setdefault(bytes(name).lower(), []).append(bytes(value))
    return found


async def _refuse(send: Send, status: int, message: str, extra: dict[str, str] | None = None) -> None:
    """A JSON-RPC error with no id, as the SDK answers an HTTP-level refusal."""
    body = json.dumps(
        {"jsonrpc": "2.0", "id": None, "error": {"code": -32600, "message": message}}, ensure_ascii=False
    ).encode()
    headers = [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]
    headers += [(name.encode(), value.encode()) for name, value in (extra or {}).items()]
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body})


def say(message: str) -> None:
    """A line on stderr, as the stdio server says what it does."""
    print(printable(f"agentapps mcp: {message}"), file=sys.stderr)


def announce(listen_on: HttpListen, say: Callable[[str], None]) -> None:
    """Where to connect and with what, on stderr (stdout is free, but clients log stderr)."""
    say(f"serving MCP over HTTP at {listen_on.url}")
    if listen_on.token_source is None:
        say(f"bearer token (generated for this run; give your own with --token-env NAME): {listen_on.token}")
    else:
        say(f"bearer token: the value of {listen_on.token_source}")
    say("clients send the header: Authorization: Bearer <token>; stop with Ctrl-C or SIGTERM.")
    if not is_loopback(listen_on.host):
        say(
            f"warning: {listen_on.host} is reachable from other machines over plain HTTP: the token "
            "and every call cross the network unencrypted; put a TLS proxy in front."
        )


async def serve_http(
    roots: list[Path],
    listen_on: HttpListen,
    approve: bool = False,
    options: RunOptions | None = None,
    cold: bool = False,
    strict: bool = False,
    only: tuple[str, ...] = (),
) -> None:
    """Serve the server mcp_server builds over Streamable HTTP until SIGTERM or SIGINT."""
    import uvicorn
    from mcp.server.transport_security import TransportSecuritySettings

    from .mcp_server import build_server, say_where_state_lives
    from .warm import WarmRuntime

    chosen = options or RunOptions()
    with contextlib.ExitStack() as stack:
        stack.callback(listen_on.listener.close)
        warm = None if cold else stack.enter_context(WarmRuntime())
        server = build_server(roots, approve=approve, options=chosen, warm=warm, strict=strict, only=only)
        say_where_state_lives(roots)
        app = server.streamable_http_app(
            streamable_http_path=ENDPOINT,
            # Each answer a JSON body, not an SSE stream: at a signal uvicorn waits for a response
            # in flight, where an SSE stream would be cut (sse-starlette ends them all at shutdown)
            # and a call already made would lose its answer. The server sends no notifications.
            json_response=True,
            # Guard checks the Origin (and the token); the SDK's own check would also pin the Host,
            # which a tunnel or proxy in front rewrites.
            transport_security=TransportSecuritySettings(enable_dns_rebinding_protection=False),
        )
        config = uvicorn.Config(
            Guard(app, listen_on.token, own_origins(listen_on.host, listen_on.port)),
            log_level="warning",
            access_log=False,
            lifespan="on",
            # At a signal, calls already made are answered: each takes at most --timeout, and a
            # warm call's wait for its process at most as long again.
            timeout_graceful_shutdown=int(2 * chosen.timeout + 5),
        )
        announce(listen_on, say)
        http = _server_class()(config)
        await http.serve(sockets=[listen_on.listener])
        if http.stopped_by is not None:
            say(f"stopped by {signal.Signals(http.stopped_by).name}.")


def _server_class() -> type[Any]:
    import uvicorn

    class Server(uvicorn.Server):
        """uvicorn's server, but a signal ends it with exit status 0: uvicorn would raise the
        signal again once it has shut down, so SIGTERM would read as a crash to whatever ran it."""

        stopped_by: int | None = None

        def handle_exit(self, sig: int, frame: Any) -> None:
            self.stopped_by = sig
            super().handle_exit(sig, frame)

        @contextlib.contextmanager
        def capture_signals(self) -> Iterator[None]:
            previous = {sig: signal.signal(sig, self.handle_exit) for sig in (signal.SIGINT, signal.SIGTERM)}
            try:
                yield
            finally:
                for sig, handler in previous.items():
                    signal.signal(sig, handler)

    return Server


def run(roots: list[Path], listen_on: HttpListen, **options: Any) -> None:
    """Serve until a signal (see serve_http)."""
    import anyio

    try:
        anyio.run(lambda: serve_http(roots, listen_on, **options))
    except KeyboardInterrupt:  # a second Ctrl-C during shutdown: stop at once, quietly
        say("stopped.")
