"""The stdio wire of `agentapps mcp`: each line the client sends is read here first, as the suite
reads JSON everywhere else, before the SDK sees it. A line that cannot be read — not JSON, a batch
(the protocol has none since 2025-06-18), a repeated key (which the SDK would read last-wins), a
string with a lone surrogate, a number of more than MAX_DIGITS digits, nesting deeper than
MAX_DEPTH — gets a JSON-RPC error at once, where the protocol allows one (a request, or a line
whose id cannot be told), and is never passed on: the SDK would drop it without a reply and the
client would wait forever."""

from __future__ import annotations

import json
import math
import os
import select
import sys
from collections.abc import AsyncIterator, Iterator
from contextlib import contextmanager, suppress
from io import TextIOWrapper
from typing import Any

import anyio
import anyio.to_thread

from agentic_kit.text import quoted

PARSE_ERROR = -32700
INVALID_REQUEST = -32600
INVALID_PARAMS = -32602
MAX_DEPTH = 64  # no tool argument nests so deep; a 1,000-deep array would exhaust the SDK's parser
MAX_DIGITS = 100  # a longer number is no id, count or limit; int() refuses 4,300 digits anyway
SHOWN_CHARS = 60  # how much of a refused key or word a refusal shows (cut with its length after)


class _Unreadable(ValueError):
    pass


def _pairs(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    seen: dict[str, Any] = {}
    for key, value in pairs:
        if key in seen:
            raise _Unreadable(f"the key {quoted(key, SHOWN_CHARS)} is given twice")
        seen[key] = value
    return seen


def _integer(text: str) -> int:
    if len(text.lstrip("-")) > MAX_DIGITS:
        raise _Unreadable(f"a number of {len(text.lstrip('-'))} digits (at most {MAX_DIGITS})")
    return int(text)


def _float(text: str) -> float:
    value = float(text)
    if len(text) > MAX_DIGITS or not math.isfinite(value):
        raise _Unreadable(f"the number {text[:20]}… is too large or too long")
    return value


def _constant(text: str) -> Any:
    raise _Unreadable(f"{quoted(text, SHOWN_CHARS)} is not JSON")


def _check(value: Any, depth: int = 0) -> None:
    """Nesting and text as the suite accepts them: MAX_DEPTH levels, every string UTF-8."""
    if depth > MAX_DEPTH:
        raise _Unreadable(f"nested deeper than {MAX_DEPTH} levels")
    if isinstance(value, str):
        try:
            value.encode("utf-8")
        except UnicodeEncodeError:
            raise _Unreadable("a string holds a lone surrogate (\\ud800-\\udfff), not text") from None
    elif isinstance(value, dict):
        for key, item in value.items():
            _check(key, depth + 1)
            _check(item, depth + 1)
    elif isinstance(value, list):
        for item in value:
            _check(item, depth + 1)


def _id(message: Any) -> str | int | None:
    found = message.get("id") if isinstance(message, dict) else None
    return found if isinstance(found, str | int) and not isinstance(found, bool) else None


def refusal(line: str) -> dict[str, Any] | None:
    """The JSON-RPC error answering a line that cannot be read; None for a readable line. A
    notification that cannot be read is refused with no answer (the protocol allows none): the
    `error` then has the id None and a `"silent": True` the caller does not send."""
    from mcp_types import jsonrpc_message_adapter

    if not line.strip():
        return {"silent": True}
    try:
        line.encode("utf-8")  # the wire decodes with surrogateescape: a byte not UTF-8 shows here
    except UnicodeEncodeError:
        return _answer(None, PARSE_ERROR, "Parse error: the line is not UTF-8 text.")
    try:
        message = json.loads(
            line, object_pairs_hook=_pairs, parse_int=_integer, parse_float=_float, parse_constant=_constant
        )
    except _Unreadable as error:
        keys = top_level(line)  # read only to tell its id, and whether it is a notification
        silent = keys is not None and "id" not in keys
        return _answer(_id(keys), INVALID_REQUEST, f"Invalid request: {error}.", silent)
    except RecursionError:
        keys = top_level(line)
        silent = keys is not None and "id" not in keys
        return _answer(
            _id(keys), INVALID_REQUEST, f"Invalid request: nested deeper than {MAX_DEPTH} levels.", silent
        )
    except ValueError as error:
        return _answer(None, PARSE_ERROR, f"Parse error: {type(error).__name__}: {str(error)[:200]}")
    if isinstance(message, list):
        return _answer(None, INVALID_REQUEST, "Invalid request: a batch; send each message on its own line.")
    if not isinstance(message, dict):
        return _answer(None, INVALID_REQUEST, "Invalid request: a message is a JSON object.")
    if "id" in message and _id(message) is None:  # JSON-RPC ids are strings or whole numbers
        return _answer(None, INVALID_REQUEST, "Invalid request: an id is a string or a whole number.")
    try:
        _check(message)
        jsonrpc_message_adapter.validate_python(message, by_name=False)
    except _Unreadable as error:
        return _answer(_id(message), INVALID_REQUEST, f"Invalid request: {error}.", "id" not in message)
    except ValueError as error:  # pydantic's ValidationError: not a JSON-RPC message of the protocol
        first = str(error).splitlines()
        said = first[0] if first else "not a JSON-RPC message"
        return _answer(_id(message), INVALID_REQUEST, f"Invalid request: {said}.", "id" not in message)
    return None


class _Unshown:
    """A value top_level does not read: a nested one, or a number too long to be any id."""


UNSHOWN = _Unshown()


def top_level(line: str) -> dict[str, Any] | None:
    """The top-level keys of a JSON object on the line, each with its value when that is a string,
    a short number, true, false or null (a nested value or a longer number is UNSHOWN); None when
    the line is no JSON object. It reads without recursion and converts no long number, so a line
    nested 100,000 deep, or holding a 5,000-digit number, still tells its id and whether it is a
    notification."""
    scalar = json.JSONDecoder(
        parse_int=lambda text: int(text) if len(text.lstrip("-")) <= MAX_DIGITS else UNSHOWN,
        parse_float=lambda text: float(text) if len(text) <= MAX_DIGITS else UNSHOWN,
    )
    space = " \t\n\r"
    text = line.strip(space)
    found: dict[str, Any] = {}
    try:
        if not text.startswith("{"):
            return None
        at = _skip(text, 1, space)
        if text[at] == "}":
            return found
        while True:
            if text[at] != '"':
                return None
            key, at = scalar.raw_decode(text, at)
            at = _skip(text, at, space)
            if text[at] != ":":
                return None
            at = _skip(text, at + 1, space)
            if text[at] in "[{":
                found[key], at = UNSHOWN, _past_nested(text, at, scalar)
            else:
                found[key], at = scalar.raw_decode(text, at)
            at = _skip(text, at, space)
            if text[at] == "}":
                return found
            if text[at] != ",":
                return None
            at = _skip(text, at + 1, space)
    except (ValueError, IndexError):
        return None


def _skip(text: str, at: int, space: str) -> int:
    while text[at] in space:
        at += 1
    return at


def _past_nested(text: str, at: int, scalar: json.JSONDecoder) -> int:
    """The index past the array or object opening at `at`: brackets counted, strings skipped."""
    depth = 0
    while True:
        char = text[at]
        if char == '"':
            _, at = scalar.raw_decode(text, at)  # a string, escapes and all: no bracket in it counts
            continue
        if char in "[{":
            depth += 1
        elif char in "]}":
            depth -= 1
            if depth == 0:
                return at + 1
        at += 1


def _lenient(line: str) -> Any:
    try:
        return json.loads(line)
    except (ValueError, RecursionError):
        return None


def _answer(id_: str | int | None, code: int, message: str, silent: bool = False) -> dict[str, Any]:
    answer: dict[str, Any] = {"jsonrpc": "2.0", "id": id_, "error": {"code": code, "message": message}}
    return {**answer, "silent": True} if silent else answer


_GONE_POLL_SECONDS = 0.2  # how often the drain looks whether the client's end of stdout is gone


class Wire:
    """The client's lines, the unreadable ones answered on stdout and held back; and stdout,
    one whole line per write (the SDK's writer and these answers never interleave).

    At the end of the client's input the wire waits, up to `drain_seconds`, for an answer to
    every request it passed on (a cancelled one excepted): a client may close its side as soon
    as it has written, and a call already made is still answered, not cut off. Unless the
    client has gone whole, its end of stdout closed too (`out_fd` then polls as an error): no
    answer can reach it, so the wait ends and `gone` is set (the server interrupts the calls)."""

    def __init__(
        self, stdin: Any, stdout: Any, drain_seconds: float = 0.0, out_fd: int | None = None
    ) -> None:
        self._stdin = stdin
        self._stdout = stdout
        self._lock = anyio.Lock()
        self.drain_seconds = drain_seconds
        self._pending: set[str] = set()  # the ids of requests passed on and not yet answered
        self._answered = anyio.Event()
        self._out_fd = out_fd
        self.gone = anyio.Event()

    async def write(self, text: str) -> None:
        async with self._lock:
            await self._stdout.write(text)
        self._settle(_lenient(text), "id")

    async def flush(self) -> None:
        async with self._lock:
            await self._stdout.flush()

    def __aiter__(self) -> AsyncIterator[str]:
        return self._lines()

    async def _lines(self) -> AsyncIterator[str]:
        while True:
            # Abandoned when the server stops (a signal): a read of the client's stdin would
            # otherwise hold the process until the client writes or closes it.
            line = await anyio.to_thread.run_sync(self._stdin.readline, abandon_on_cancel=True)
            if not line:
                break
            answer = refusal(line)
            if answer is None:
                self._track(_lenient(line))
                yield line
            elif not answer.pop("silent", False):
                async with self._lock:
                    await self._stdout.write(json.dumps(answer) + "\n")
                    await self._stdout.flush()
        with anyio.move_on_after(self.drain_seconds):
            while self._pending:
                if self._reader_gone():
                    self.gone.set()
                    return
                with anyio.move_on_after(_GONE_POLL_SECONDS):
                    await self._answered.wait()
                    self._answered = anyio.Event()

    def _reader_gone(self) -> bool:
        """Whether the client's end of stdout is closed: a pipe whose reader has gone polls as an
        error (POLLERR), never only as writable."""
        if self._out_fd is None or not hasattr(select, "poll"):
            return False
        poller = select.poll()
        poller.register(self._out_fd, select.POLLOUT)
        return any(events & (select.POLLERR | select.POLLHUP) for _, events in poller.poll(0))

    def _track(self, message: Any) -> None:
        if not isinstance(message, dict):
            return
        if "method" in message and "id" in message:
            self._pending.add(json.dumps(message["id"]))
        elif message.get("method") == "notifications/cancelled":
            self._settle(message.get("params"), "requestId")  # a cancelled request gets no answer

    def _settle(self, message: Any, key: str) -> None:
        if isinstance(message, dict) and key in message:
            self._pending.discard(json.dumps(message[key]))
            self._answered.set()


@contextmanager
def claimed_stdio(drain_seconds: float = 0.0) -> Iterator[Wire]:
    """The protocol's stdin and stdout on private descriptors, fd 0 then reading the null device
    and fd 1 writing to stderr, as the SDK's stdio transport does: a package's stray read or
    output never touches the protocol. Both are put back on exit."""
    wire_in, wire_out = os.dup(0), os.dup(1)
    sys.stdout.flush()
    null = os.open(os.devnull, os.O_RDONLY)
    os.dup2(null, 0)
    os.close(null)
    os.dup2(2, 1)
    # surrogateescape, not replace: a byte that is not UTF-8 is refused (refusal), never stored as U+FFFD
    reader = TextIOWrapper(
        os.fdopen(wire_in, "rb", closefd=False), encoding="utf-8", errors="surrogateescape"
    )
    writer = TextIOWrapper(os.fdopen(wire_out, "wb", closefd=False), encoding="utf-8")
    try:
        yield Wire(reader, anyio.wrap_file(writer), drain_seconds, wire_out)
    finally:
        with suppress(OSError):  # the client has gone: nothing left to say
            writer.flush()
        os.dup2(wire_in, 0)
        os.dup2(wire_out, 1)
        os.close(wire_in)
        os.close(wire_out)
