"""`agentapps mcp`: serve Agent Applications packages over the Model Context Protocol (stdio).

Progressive disclosure, mapped onto MCP:
- catalog → tool listing: one tool per declared command, named `<slug>__<command>` in the
  characters every client accepts (tool_names: `agentic_to_do__add`, `command_paths__items_remove`),
  described from the package. A package with `describe` gets
  each tool's input schema from it; one without gets an `args` array of strings: the words after
  the command, as the user would type them;
- activation → resources: each package's APP.md body (`agentapp://<slug>/APP.md`) and each
  skill (`agentapp://<slug>/skills/<name>`); a package named by its folder (no slug) has that
  name percent-encoded, so every URI is one a URI parser accepts;
- resources → tool calls: the runtime's `invoke`, whose relayed document is the tool's result.
  A Python package runs warm (warm.py: a child forked from a process that has done its imports,
  under the same rules and with the same result as a cold call) unless the server was started
  with --cold.

The runtime's rules hold here as in `agentapps run`: an untrusted package is served only when the
server was started with --approve (otherwise it is left out, before any of its code runs); a
command gated by confirmationRequired is marked destructive and runs only with `"confirm": true`
(for a described command that also passes the app's own `--confirm`); the package sees the
allow-listed environment plus the variables named with --env; every call is bounded by
--timeout and --max-output. A failure is a tool error: its structured content the failing
envelope as it came, its text `CODE: message` and the hint on a line of its own (error_text), with
options named as the tool's arguments; a broken package is left out, never fatal. Needs the
optional extra: pip install -e ".[mcp]".
"""

from __future__ import annotations

import contextlib
import fnmatch
import functools
import hashlib
import json
import os
import re
import shlex
import signal
import sys
import threading
import time
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, cast
from urllib.parse import quote

import anyio
import anyio.to_thread
from mcp import MCPError, types
from mcp.server.lowlevel import Server
from mcp.server.stdio import stdio_server
from mcp_types import INVALID_PARAMS

from agentic_kit.envelope import Envelope, error_envelope, to_json
from agentic_kit.errors import AppError, ErrorCode
from agentic_kit.text import printable, shortened

from .catalog import discover
from .describe_cache import cached_describe, describe_key, keep_describe
from .environment import package_environment
from .errors import ANSWER_TOO_LARGE, APP_FAILED, ToolkitError
from .gates import needs_confirmation, require_confirmation, trust_level
from .manifest import ManifestError, read_body, skill_path
from .mcp_wire import claimed_stdio
from .package import Package
from .process import ENDING
from .runtime import RunOptions, RunTimedOut, invoke, run_and_relay
from .suite import state_dir_for, state_overrides
from .warm import WarmRuntime

URI_SCHEME = "agentapp"
# Start-up runs the packages' describe side by side, at most this many at once, all under one
# deadline this far away (or --timeout, if shorter): a describe that has not answered by then
# leaves its package out, never the rest, and start-up as a whole is bounded by the deadline.
STARTUP_WORKERS = 32
STARTUP_DESCRIBE_TIMEOUT = 10.0

# Tool names every client accepts: Claude Desktop rejects the whole tool list, and OpenAI-compatible
# APIs the request, when one name does not match ^[a-zA-Z0-9_-]{1,64}$ (the spec also allows `.`
# and `/`, and 128 characters). tool_names keeps to letters, digits and `_`, and to this length.
MAX_TOOL_NAME = 64
HASH_DIGITS = 8  # hex digits of the suffix that keeps a too-long or shared name unique
MIN_PACKAGE_PART = 16  # a name cut to fit keeps at least this much of the package's part
DESCRIBE = "describe"  # read at start-up for the schemas; not a tool, as tools/list says it all
INSTRUCTIONS = (
    "Each tool is one command of an Agent Applications package, named <package>__<command>. "
    "Read a package's APP.md resource (agentapp://<package>/APP.md) before its first use: it says "
    "what the app acts on. A tool marked destructive runs only with confirm: true, after the user "
    "agreed. Leave out an argument you do not need (null also means not given)."
)
CONFIRM_HINT = 'Ask the user; if they agree, call the tool again with "confirm": true.'
# Every tool answer's text is at most this many bytes of UTF-8 JSON by default: Claude Code refuses
# a tool result over 25,000 tokens, and even text of about 1.3 bytes a token (accented or CJK)
# stays under that; ASCII JSON is nearer 3 bytes a token, about 11,000 tokens.
MAX_ANSWER_BYTES = 32_000
# How much of a refused argument's value or name a refusal shows, and how many unknown names.
ARGUMENT_SHOWN_CHARS = 60
UNKNOWN_NAMED = 5
PAGE_LIMIT = 50  # items a list-like tool answers when its call gives no `limit`


@dataclass
class Command:
    package: Package
    words: list[str]  # the declared command: one word, or a command path
    description: dict[str, Any] | None  # its entry in the app's describe; None without describe
    tool: str = ""  # its tool name, once every tool is named (tool_names)
    # Every tool of its package, by command name: a hint naming a command names its tool.
    package_tools: dict[str, str] = field(default_factory=dict)

    @property
    def name(self) -> str:
        return " ".join(self.words)

    @property
    def destructive(self) -> bool:
        return needs_confirmation(self.words, self.package.manifest) is not None


def load_commands(
    roots: list[Path], approve: bool, options: RunOptions, warm: WarmRuntime | None = None
) -> dict[str, Command]:
    """Tool name → command, for every package that loads (and describes itself, if it declares
    describe). A package left out is named on stderr, with why; whatever one package holds, the
    others are served. The packages' describe runs side by side under one deadline
    (STARTUP_DESCRIBE_TIMEOUT, or --timeout if shorter): start-up never waits longer, however
    many packages there are or hang."""
    packages = []
    for root in discover(roots):
        package = Package(root)
        try:
            manifest = package.manifest
        except ManifestError as error:
            _leave_out(root, str(error))
            continue
        except Exception as error:  # noqa: BLE001 - one package never stops the server
            _leave_out(root, f"its APP.md cannot be read ({type(error).__name__}: {error})")
            continue
        if not approve and trust_level(root) == "untrusted":
            _leave_out(root, "untrusted; start the server with --approve to serve it")
            continue
        packages.append(package)
    described_packages = [package for package in packages if DESCRIBE in package.manifest.commands]
    bound = min(options.timeout, STARTUP_DESCRIBE_TIMEOUT)
    deadline = time.monotonic() + bound
    with ThreadPoolExecutor(max_workers=max(1, min(STARTUP_WORKERS, len(described_packages)))) as pool:
        descriptions = dict(
            zip(
                [package.root for package in described_packages],
                pool.map(
                    lambda package: _described(package, options, warm, deadline, bound),
                    described_packages,
                ),
                strict=True,
            )
        )
    served: dict[tuple[str, str], Command] = {}
    for package in packages:
        manifest = package.manifest
        described = descriptions.get(package.root, {})
        if described is None:
            continue
        if any(name == package.name for name, _ in served):
            _leave_out(package.root, f"another package already serves {package.name} (the same slug)")
            continue
        for declared in manifest.commands:
            if declared == DESCRIBE:
                continue  # tools/list already says what describe would
            if DESCRIBE in manifest.commands and declared not in described:
                # The app's describe is its own word on what it runs: a tool for a command it does
                # not know would fail every call. Left out, never silently.
                _say(
                    f"{package.root}: `{declared}` is declared in APP.md but its describe does not "
                    f"list it, so it is not a tool; `agentapps check {package.root}` names the mismatch"
                )
                continue
            served[(package.name, declared)] = Command(package, declared.split(" "), described.get(declared))
    names = tool_names(list(served))
    readable = Counter(readable_tool_name(*key) for key in served)
    for key, command in served.items():
        plain = readable_tool_name(*key)
        if names[key] == plain:
            continue
        # Never silent: a client shows the name, so stderr says which command it is, and why.
        if readable[plain] > 1:
            why = "as another command would"
        elif len(plain) > MAX_TOOL_NAME:
            why = f"{len(plain)} characters (clients accept {MAX_TOOL_NAME})"
        else:
            why = "with no letter or digit in its package or command part"
        _say(
            f"{command.package.root}: `{command.name}` would be the tool {plain}, {why}; "
            f"it is served as {names[key]}"
        )
    for key, command in served.items():
        command.tool = names[key]
        command.package_tools = {
            declared: names[(name, declared)] for name, declared in served if name == key[0]
        }
    return {names[key]: command for key, command in served.items()}


def _name_part(text: str) -> str:
    """ASCII letters and digits as they are; every run of anything else one `_`, none at either
    end (so a part never holds `__`, the separator)."""
    return re.sub(r"[^A-Za-z0-9]+", "_", text).strip("_")


def _package_part(package: str) -> str:
    """The package's name part, with a `_` before it when it starts with a digit (a slug may:
    `2do`): Gemini on Vertex AI takes only a name that starts with a letter or an underscore."""
    part = _name_part(package)
    return f"_{part}" if part[:1].isdigit() else part


def readable_tool_name(package: str, command: str) -> str:
    """`<package>__<command>`: `agentic-to-do` `add` → `agentic_to_do__add`, a command path's words
    joined by `_` (`items remove` → `items_remove`); `2do` `list` → `_2do__list`."""
    return f"{_package_part(package)}__{_name_part(command)}"


def _hashed(package: str, command: str, digits: int) -> str:
    """`<package part>__<command part>_<hash>`, at most MAX_TOOL_NAME characters: the parts of the
    readable name, cut to fit (_cut), then `digits` hex digits of the SHA-256 of the package's
    name and the command (UTF-8; a name that was not UTF-8 hashes as given)."""
    digest = hashlib.sha256(f"{package}\n{command}".encode("utf-8", "surrogatepass")).hexdigest()
    package_part, command_part = _cut(_package_part(package), _name_part(command), MAX_TOOL_NAME - 3 - digits)
    return f"{package_part}__{command_part}_{digest[:digits]}"


def _cut(package: str, command: str, room: int) -> tuple[str, str]:
    """The two parts in `room` characters, both still readable: the package part is cut first,
    down to MIN_PACKAGE_PART characters, so the command (what a model must tell apart) keeps as
    much as fits. A part never ends in `_`, so `__` stays the one separator."""
    kept = max(min(len(package), MIN_PACKAGE_PART), room - len(command))
    package = package[:kept].rstrip("_")
    return package, command[: room - len(package)].rstrip("_")


def tool_names(commands: list[tuple[str, str]]) -> dict[tuple[str, str], str]:
    """(package name, command) → its tool name, one per command, in the characters every client
    accepts. The readable name (readable_tool_name) when it fits in 64 characters, has both parts
    and no other command makes it too; otherwise it is hashed (_hashed) — every command sharing a
    readable name is, so which gets which name never depends on the order packages are found in,
    and a collision never drops or merges a tool."""
    readable = {key: readable_tool_name(*key) for key in commands}
    shared = Counter(readable.values())
    plain = {
        key
        for key, name in readable.items()
        if shared[name] == 1 and len(name) <= MAX_TOOL_NAME and all(map(_name_part, key))
    }
    digits = HASH_DIGITS
    while True:
        names = {key: name if key in plain else _hashed(*key, digits) for key, name in readable.items()}
        # A hashed name equal to another name (vanishingly rare): a longer hash, until each is unique.
        if len(set(names.values())) == len(names) or digits >= 4 * HASH_DIGITS:
            return names
        digits += HASH_DIGITS


def _described(
    package: Package, options: RunOptions, warm: WarmRuntime | None, deadline: float, bound: float
) -> dict[str, dict[str, Any]] | None:
    """Command name → its describe entry; None (and the package left out) when describe fails
    or has not answered by start-up's deadline (`bound` seconds after start-up began)."""
    late = f"describe failed: it did not answer within start-up's {bound:g} s"
    remaining = deadline - time.monotonic()
    if remaining <= 0:  # its turn came after the deadline: it is not started at all
        _leave_out(package.root, late)
        return None
    env = package_environment(options.env_names, overrides=state_overrides(package.root, os.environ))
    # Kept from an earlier start-up when nothing it depends on has changed (describe_cache).
    key = describe_key(package.root, env, _version())
    kept = cached_describe(package.root, key) if key is not None else None
    if kept is not None:
        return _by_name(kept)
    try:
        invocation = invoke(
            package,
            ["describe"],
            env=env,
            timeout=remaining,
            max_output=options.max_output,
            warm=warm,
        )
    except RunTimedOut:
        _leave_out(package.root, late)
        return None
    except OSError as error:
        _leave_out(package.root, f"describe failed: {error}")
        return None
    except ToolkitError as error:  # the runtime could not check what describe printed
        _leave_out(package.root, f"describe failed: {error.message}")
        return None
    item = (invocation.envelope or {}).get("item") if invocation.ok and not invocation.violations else None
    entries = item.get("commands") if isinstance(item, dict) else None
    if not isinstance(entries, list):
        _leave_out(package.root, "describe is declared but did not give its commands")
        return None
    if key is not None:
        keep_describe(package.root, key, entries)
    return _by_name(entries)


def _by_name(entries: list[Any]) -> dict[str, dict[str, Any]]:
    return {
        entry["name"]: entry
        for entry in entries
        if isinstance(entry, dict) and isinstance(entry.get("name"), str)
    }


def say_where_state_lives(roots: list[Path]) -> None:
    """Names the data folder the installed apps were given: it is nowhere a user would look."""
    folders = {state_dir_for(root, os.environ) for root in discover(roots)} - {None}
    for folder in sorted(str(folder) for folder in folders):
        _say(f"the installed apps keep their state in {folder} (set AGENTIC_STATE_DIR to choose another).")


def _leave_out(root: Path, reason: str) -> None:
    _say(f"{root} is not served: {reason}")


def _say(message: str) -> None:
    print(printable(f"agentapps mcp: {message}"), file=sys.stderr)


def _json_type(parameter: dict[str, Any]) -> dict[str, Any]:
    base = {"integer": "integer", "number": "number", "flag": "boolean", "boolean": "boolean"}.get(
        parameter["type"], "string"
    )
    schema: dict[str, Any] = {"type": base}
    if parameter.get("choices"):
        schema["enum"] = parameter["choices"]
    if parameter.get("repeatable"):
        schema = {"type": "array", "items": schema}
    if parameter.get("help"):
        schema["description"] = parameter["help"]
    return schema


def _property(option: str) -> str:
    return option.lstrip("-").replace("-", "_")


ARGS_PROPERTY = {
    "type": "array",
    "items": {"type": "string"},
    "description": "The words after the command, as the user would type them: positional "
    "arguments and flags (`--due-at 2026-05-01`).",
}


def _inline(options: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The options a tool takes as they are: not those whose value is a path (`--body-file`). A
    path would be read on the server's machine — a file the client never saw, or the server's own
    stdin (`-`), which holds the protocol; the client passes text (`body`, or _as_text's)."""
    return [option for option in options if option.get("type") != "path"]


def _as_text(command: Command) -> list[dict[str, Any]]:
    """The path options a tool takes as text: those with no inline twin. A `path` option reads a
    file, or stdin for `-`; one whose command takes the same text inline (`--body-file` beside
    `--body`) stays out, and any other (to-do's `import --file`) is a string parameter holding the
    text itself, which the server gives the app as its stdin, with the option's value `-`."""
    if command.description is None:
        return []
    options = command.description.get("options", [])
    inline = {_property(option["name"]) for option in _inline(options)}
    inline |= {argument["name"] for argument in command.description.get("arguments", [])}
    return [
        option
        for option in options
        if option.get("type") == "path" and _property(option["name"]).removesuffix("_file") not in inline
    ]


def _text_property(option: dict[str, Any]) -> dict[str, Any]:
    """The option's help without what it says of `-` (the call's text is stdin), then how to give it."""
    help_text = re.sub(r"[;,]? *- for stdin\.?", ".", option.get("help") or "").strip(" .")
    said = f"Give the text itself, not a path: the app reads it from stdin (`{option['name']} -`)."
    return {"type": "string", "description": f"{help_text}. {said}" if help_text else said}


def stdin_text(command: Command, arguments: dict[str, Any]) -> str | None:
    """The text a call gives the app as stdin: its one path option given as text (stdin is one
    stream, so two are refused)."""
    given = [option for option in _as_text(command) if arguments.get(_property(option["name"])) is not None]
    if len(given) > 1:
        names = ", ".join(_property(option["name"]) for option in given)
        raise AppError(
            ErrorCode.VALIDATION_ERROR,
            f"{names}: only one text read from stdin per call.",
            "Give one of them; call the tool again for the other.",
        )
    return str(arguments[_property(given[0]["name"])]) if given else None


def input_schema(command: Command) -> dict[str, Any]:
    """The tool's input schema as listed: the form every major client accepts (SCHEMA RULES in
    tests/toolkit/test_mcp_schemas.py). No `additionalProperties` (google-genai's MCP adapter fails
    on a boolean one and Gemini's OpenAPI form refuses the key), no empty `properties` or
    `required` (refused by Gemini for an object). The server still refuses an unknown argument:
    it checks each call against checked_schema."""
    schema = checked_schema(command)
    del schema["additionalProperties"]
    for key in ("properties", "required"):
        if not schema[key]:
            del schema[key]
    return schema


def strict_schema(command: Command) -> dict[str, Any]:
    """The form OpenAI's strict function calling takes (`--schemas strict`): every property
    required, an optional one also `null` (which the server reads as not given), no other key."""
    schema = checked_schema(command)
    required = set(schema["required"])
    schema["properties"] = {
        name: prop if name in required else _nullable(prop) for name, prop in schema["properties"].items()
    }
    schema["required"] = list(schema["properties"])
    return schema


def _nullable(prop: dict[str, Any]) -> dict[str, Any]:
    """The property, `null` also allowed (an enum lists it, or strict mode refuses the schema)."""
    nullable = {**prop, "type": [prop["type"], "null"]}
    if "enum" in prop:
        nullable["enum"] = [*prop["enum"], None]
    return nullable


def paging(command: Command) -> bool:
    """Whether the tool pages over MCP: a command with `--limit` (the server adds `offset` and a
    default limit). Any other answer is whole or refused (bounded): an `export` is a backup, and
    a page of one would restore as a smaller list without a word."""
    if command.description is None:
        return False
    options = {option["name"] for option in command.description.get("options", [])}
    return "--limit" in options and "--offset" not in options  # with --offset the app pages itself


def checked_schema(command: Command) -> dict[str, Any]:
    """The schema each call is checked against: an unknown argument is refused."""
    if command.description is None:
        properties: dict[str, Any] = {"args": ARGS_PROPERTY}
        required: list[str] = []
    else:
        arguments = command.description.get("arguments", [])
        options = command.description.get("options", [])
        properties = {argument["name"]: _json_type(argument) for argument in arguments}
        properties |= {_property(option["name"]): _json_type(option) for option in _inline(options)}
        properties |= {_property(option["name"]): _text_property(option) for option in _as_text(command)}
        required = [argument["name"] for argument in arguments if argument["required"]]
        required += [_property(option["name"]) for option in _as_text(command) if option.get("required")]
    if paging(command):
        properties["limit"] = {
            **properties["limit"],
            "description": f"{properties['limit'].get('description', 'Show at most N items.')} "
            f"Over MCP {PAGE_LIMIT} when not given.",
        }
        if "excerpt" in properties:
            properties["excerpt"] = {
                **properties["excerpt"],
                "description": f"{properties['excerpt'].get('description', '')} "
                "Over MCP true when not given.".strip(),
            }
        properties["offset"] = {
            "type": "integer",
            "description": "Skip this many items first: give an answer's nextOffset for the next page.",
        }
    if command.destructive:
        properties["confirm"] = {"type": "boolean", "description": "True only after the user agreed."}
    return {"type": "object", "properties": properties, "required": required, "additionalProperties": False}


def command_line(command: Command, arguments: dict[str, Any]) -> list[str]:
    """The CLI arguments for a tool call: the command's words first; then the `args` array as
    given, or (described) options, each `--name=value` (option_words), then `--` and the
    positionals."""
    if command.description is None:
        args = arguments.get("args", [])
        if not isinstance(args, list) or not all(isinstance(arg, str) for arg in args):
            raise AppError(ErrorCode.VALIDATION_ERROR, "args must be an array of strings.")
        return [*command.words, *args]
    argv = list(command.words)
    for option in _inline(command.description.get("options", [])):
        value = arguments.get(_property(option["name"]))
        if value is None or value is False:
            continue
        if option["type"] == "flag":
            argv.append(option["name"])
        else:
            for item in value if isinstance(value, list) else [value]:
                argv += option_words(option["name"], str(item))
    for option in _as_text(command):
        if arguments.get(_property(option["name"])) is not None:
            argv += option_words(option["name"], "-")  # its text is the app's stdin (stdin_text)
    positionals: list[str] = []
    for argument in command.description.get("arguments", []):
        value = arguments.get(argument["name"])
        if value is not None:
            positionals += [str(item) for item in value] if isinstance(value, list) else [str(value)]
    return [*argv, "--", *positionals] if positionals else argv


def option_words(name: str, value: str) -> list[str]:
    """An option and its value as CLI words: one word, `--name=value`, for a long option, so no
    value (`--human`, `--`, `-x`) can ever be read as an option; a short one as two words."""
    return [f"{name}={value}"] if name.startswith("--") else [name, value]


def argument_names(command: Command | None) -> dict[str, str]:
    """CLI option → the tool argument it is (`--due-at` → `due_at`), for a described command's
    options the tool takes; a tool taking `args` is given CLI words, so it keeps CLI terms."""
    if command is None or command.description is None:
        return {}
    return {
        option["name"]: _property(option["name"])
        for option in [*_inline(command.description.get("options", [])), *_as_text(command)]
        if option["name"].startswith("--")
    }


def error_text(error: dict[str, Any], names: dict[str, str]) -> str:
    """A failing call's text, for the many clients that hand the model only the text:
    `CODE: message`, then `Hint: hint` on a line of its own when there is one. An option named in
    either is named as the tool's argument (`--due-at` → `due_at`): the client sent `due_at`."""
    said = f"{error['code']}: {error['message']}"
    if isinstance(error.get("hint"), str) and error["hint"]:
        said += f"\nHint: {error['hint']}"
    return options_as_arguments(said, names)


def options_as_arguments(text: str, names: dict[str, str]) -> str:
    """The text with each CLI option the tool takes named as its argument (`--due-at` → `due_at`)."""
    if not names:
        return text
    options = "|".join(re.escape(option) for option in sorted(names, key=len, reverse=True))
    return re.sub(rf"(?<![\w-])({options})(?![\w-])", lambda found: names[found[1]], text)


def in_tool_terms(text: str, command: Command | None) -> str:
    """An app's message or hint as a tool's caller reads it: "Run `list --status all`" is "Call
    agentic_timer__list with status: all", and an option the tool takes is named as its argument
    (options_as_arguments). A command line it cannot read as a call of a served tool stays."""
    if command is None or command.description is None:
        return text

    def as_call(found: re.Match[str]) -> str:
        called = _as_tool_call(found[2], command)
        if called is None:
            return found[0]
        verb = "read" if called.endswith("'s input schema") else "call"
        return f"{verb.capitalize() if found[1] == 'Run' else verb} {called}"

    said = re.sub(r"\b(Run|run) `([^`]+)`", as_call, text)
    return options_as_arguments(said, argument_names(command))


def _as_tool_call(line: str, command: Command) -> str | None:
    """`list --status all` → `agentic_timer__list with status: all`, for a command of the
    package that is a tool; None for anything else."""
    try:
        words = shlex.split(line)
    except ValueError:
        return None
    for length in range(len(words), 0, -1):
        tool = command.package_tools.get(" ".join(words[:length]))
        if tool is not None:
            break
    else:
        return None
    rest, given = words[length:], []
    if rest == ["--help"]:
        return f"{tool}'s input schema"
    while rest:
        word = rest.pop(0)
        if not word.startswith("--"):
            return None  # a positional: its argument's name is not said here
        name, _, value = word[2:].partition("=")
        if not value and rest and not rest[0].startswith("--"):
            value = rest.pop(0)
        given.append(f"{name.replace('-', '_')}: {value}" if value else f"{name.replace('-', '_')}: true")
    return f"{tool} with {', '.join(given)}" if given else tool


def _error(
    document: Envelope, command: Command | None = None, text: str | None = None
) -> types.CallToolResult:
    """A tool error: the failing envelope as structured content, exactly; its text (error_text)
    unless `text` is given."""
    # An app's output quoted in details may hold bytes that were not UTF-8: printable, or the
    # protocol's own serialisation would fail and end the session.
    structured = json.loads(to_json(document))
    error = structured.get("error")
    if isinstance(error, dict):
        # The app speaks of its command line; the caller of the tool sent arguments and calls tools.
        for key in ("message", "hint"):
            if isinstance(error.get(key), str):
                error[key] = in_tool_terms(error[key], command)
    said = text if text is not None else error_text(structured["error"], argument_names(command))
    return types.CallToolResult(
        content=[types.TextContent(type="text", text=printable(said))],
        structured_content=structured,
        is_error=True,
    )


def lone_values_listed(command: Command, arguments: dict[str, Any]) -> dict[str, Any]:
    """The call's arguments with a lone string given for a repeatable parameter made a list of one:
    `{"id": "td_0001"}` for remove's ids, as the tool took before it took several. The input
    schema still says array, what every client can send; this only forgives the single value."""
    if command.description is None:
        return arguments
    parameters = [
        *command.description.get("arguments", []),
        *(
            {**option, "name": _property(option["name"])}
            for option in _inline(command.description.get("options", []))
        ),
    ]
    repeatable = {parameter["name"] for parameter in parameters if parameter.get("repeatable")}
    return {
        name: [value] if name in repeatable and isinstance(value, str) else value
        for name, value in arguments.items()
    }


def given_arguments(command: Command, arguments: dict[str, Any]) -> dict[str, Any]:
    """The arguments as the call means them: `null` for an argument of the tool is not given (a
    client converting the schema to OpenAI's strict form sends it for each argument it leaves
    out), while an unknown name stays, for check_arguments to refuse whatever its value; and a
    whole-number float for an integer argument is that integer (`"limit": 5.0`, as JSON numbers
    are read by some clients). Any other float for an integer is left to check_arguments to refuse."""
    properties = checked_schema(command)["properties"]
    integers = {name for name, prop in properties.items() if prop.get("type") == "integer"}
    return {
        # Any whole float is the integer it equals (`1e16` too): the app then says its own bound.
        name: int(value) if name in integers and isinstance(value, float) and value.is_integer() else value
        for name, value in arguments.items()
        if value is not None or name not in properties
    }


def check_arguments(command: Command, arguments: dict[str, Any]) -> None:
    """VALIDATION_ERROR naming the argument, when the call does not fit the tool's input schema
    (an unknown property, a list for a single value, a number for a string)."""
    from jsonschema import Draft202012Validator

    schema = checked_schema(command)
    for error in sorted(
        Draft202012Validator(schema).iter_errors(arguments), key=lambda error: list(error.path)
    ):
        # What was given is named, never repeated whole: a value or key of any size is answered
        # within the bound, as the apps' own refusals quote a value (`quoted`).
        where = shortened(".".join(str(part) for part in error.absolute_path), ARGUMENT_SHOWN_CHARS)
        if error.validator == "additionalProperties":
            unknown = sorted(set(arguments) - set(schema["properties"]))
            named = ", ".join(shortened(name, ARGUMENT_SHOWN_CHARS) for name in unknown[:UNKNOWN_NAMED])
            more = f" and {len(unknown) - UNKNOWN_NAMED:,} more" if len(unknown) > UNKNOWN_NAMED else ""
            message = f"{named}{more}: not an argument of {command.name} (see its input schema)."
        else:
            said = error.message
            given = repr(error.instance)
            if given in said and len(given) > ARGUMENT_SHOWN_CHARS:
                said = said.replace(
                    given, f"{shortened(given, ARGUMENT_SHOWN_CHARS)} ({len(given):,} characters)"
                )
            message = f"{where or 'arguments'}: {shortened(said, 4 * ARGUMENT_SHOWN_CHARS)}."
        raise AppError(
            ErrorCode.VALIDATION_ERROR, message, "Call the tool with the arguments its input schema lists."
        )


def refuse_a_nul(command: Command, arguments: dict[str, Any]) -> None:
    """VALIDATION_ERROR naming the argument that holds a NUL character and goes on the app's
    command line, which cannot carry one (a cold start fails; a warm call would hand the app what
    no shell could). Text given as the app's stdin (`_as_text`) is the app's to judge, as a file's is."""
    as_stdin = {_property(option["name"]) for option in _as_text(command)}
    for name, value in arguments.items():
        values = value if isinstance(value, list) else [value]
        if name not in as_stdin and any(isinstance(each, str) and "\x00" in each for each in values):
            raise AppError(
                ErrorCode.VALIDATION_ERROR,
                f"{name}: holds a NUL character, which no command line can carry.",
                "Remove it: the app takes no text with one.",
            )


class EndedBeforeItsCommit(Exception):
    """A call interrupted (cancelled) that ended before its commit: it changed nothing."""


def call(
    command: Command,
    arguments: dict[str, Any],
    options: RunOptions,
    warm: WarmRuntime | None = None,
    interrupt: threading.Event | None = None,
) -> types.CallToolResult:
    """The tool's answer to one call. Once `interrupt` is set the app is interrupted as Ctrl-C
    would: ended before its commit (EndedBeforeItsCommit), or finished from it."""
    try:
        arguments = lone_values_listed(command, given_arguments(command, arguments))
        check_arguments(command, arguments)
        paged = paging(command)
        page = Page(arguments.pop("offset", 0), arguments.get("limit", PAGE_LIMIT)) if paged else Page(0, 0)
        if paged:
            page.check()
            arguments = page.app_arguments(command, arguments)
        argv = command_line(command, arguments)
        stdin = stdin_text(command, arguments)
        refuse_a_nul(command, arguments)
        try:
            require_confirmation(argv, command.package.manifest, approved=arguments.get("confirm") is True)
        except AppError as error:
            if error.code == ErrorCode.CONFIRMATION_REQUIRED:  # not the gate's other refusals (--human)
                error.hint = CONFIRM_HINT  # over MCP the approval is the tool's `confirm`, not --approve
            raise
        document, _ = run_and_relay(
            command.package,
            argv,
            env=package_environment(
                options.env_names, overrides=state_overrides(command.package.root, os.environ)
            ),
            timeout=options.timeout,
            max_output=options.max_output,
            warm=warm,
            stdin=stdin,
            interrupt=interrupt,
        )
    except AppError as error:
        if interrupt is not None and interrupt.is_set() and _ended_by_the_interrupt(error):
            raise EndedBeforeItsCommit from None
        return _error(error_envelope(command.name, error), command)
    if isinstance(document, dict) and document.get("ok") is False:
        failure = document.get("error")
        if (
            isinstance(failure, dict)
            and isinstance(failure.get("code"), str)
            and isinstance(failure.get("message"), str)
        ):
            return _error(document, command)
        # The format only recommends a structured error: show what the app printed.
        return _error(
            document, text=f"{APP_FAILED}: The app failed without a structured error: {to_json(document)}"
        )
    try:
        document = bounded(command, document, page if paged else None)
    except AppError as error:
        return _error(error_envelope(command.name, error), command)
    text = json.dumps(document, ensure_ascii=False)
    structured = document if isinstance(document, dict) else None
    return types.CallToolResult(
        content=[types.TextContent(type="text", text=text)], structured_content=structured
    )


def _ended_by_the_interrupt(error: AppError) -> bool:
    """The app died by the interrupt's signal with nothing on stdout: before its commit (an app
    holds the signal from its commit on, and then prints its whole answer)."""
    details = getattr(error, "details", None) or {}
    return (
        error.code == APP_FAILED
        and details.get("exitStatus") in (128 + signal.SIGTERM, -signal.SIGTERM)
        and not details.get("stdout")
    )


@dataclass
class Page:
    """The page a list-like call asks for: `limit` items after the first `offset`."""

    offset: int
    limit: int

    def check(self) -> None:
        for name, value in (("offset", self.offset), ("limit", self.limit)):
            if value < 0:
                raise AppError(
                    ErrorCode.VALIDATION_ERROR,
                    f"{name}: {value} is less than 0.",
                    f"Give {name} as a whole number >= 0, or leave it out.",
                )

    def app_arguments(self, command: Command, arguments: dict[str, Any]) -> dict[str, Any]:
        """The arguments the app is run with: its own `--limit` covering the page and all before
        it (the server cuts off the first `offset`); an excerpt, where the app has one and the
        call did not say (`"excerpt": false` for all)."""
        given = dict(arguments)
        given["limit"] = self.offset + self.limit
        if "excerpt" in checked_schema(command)["properties"]:
            given.setdefault("excerpt", True)
        return given


def answer_bytes(document: Any) -> int:
    return len(json.dumps(document, ensure_ascii=False).encode("utf-8", "surrogatepass"))


def bounded(command: Command, document: Any, page: Page | None) -> Any:
    """The answer as the client gets it: a list-like tool's page (`offset`, `total`, and
    `nextOffset` with a hint when more follow), cut to fit MAX_ANSWER_BYTES; any other answer as
    it is, or ANSWER_TOO_LARGE when it does not fit (saying whether the call took effect)."""
    items = document.get("items") if isinstance(document, dict) else None
    if page is not None and isinstance(items, list):
        if isinstance(document.get("total"), int):  # the app cut at offset + limit and counted all
            total, shown = document["total"], items[page.offset :]
        else:
            total, shown = len(items), items[page.offset : page.offset + page.limit]
        fits = _fitting(document, shown, page.offset, total, command)
        if fits is not None:
            return fits
    elif answer_bytes(document) <= MAX_ANSWER_BYTES:
        return document
    mutates = command.description is None or bool(command.description.get("mutatesState"))
    if mutates and isinstance(document, dict) and document.get("ok") is True:
        return _cut_success(command, document)
    raise ToolkitError(
        ANSWER_TOO_LARGE,
        f"The answer is {answer_bytes(document):,} bytes, over the {MAX_ANSWER_BYTES:,} bytes a tool "
        "answer may take"
        + (
            "; the command ran and may have taken effect."
            if mutates
            else "; the command only reads, so nothing changed."
        ),
        "Do not retry it blindly: read the state back with a list tool (its excerpts stay small)."
        if mutates
        else "Over MCP it cannot be answered whole; run it through the CLI to a file: "
        f"agentapps run {shlex.quote(str(command.package.root))} -- {shlex.join(command.words)} > "
        f"{_name_part(command.name) or 'answer'}.json",
        details={"mayHaveTakenEffect": mutates, "bytes": answer_bytes(document), "bound": MAX_ANSWER_BYTES},
    )


CUT_VALUE_BYTES = 2_000  # a top-level value of a write's answer past this is left out when it is cut


def _cut_success(command: Command, document: dict[str, Any]) -> dict[str, Any]:
    """A write the app answered ok (it took effect) whose answer is over the bound: a success,
    never a tool error a client would retry into a second write (found by an outside review), with
    each top-level value past CUT_VALUE_BYTES left out and said to be in `cut` (the first names
    left out, each cut short, and how many), with how to read the state back."""
    kept = {key: value for key, value in document.items() if answer_bytes(value) <= CUT_VALUE_BYTES}
    if answer_bytes(kept) > MAX_ANSWER_BYTES // 2:  # many small values (or a huge name): the envelope's own
        kept = {key: document[key] for key in ("ok", "command") if answer_bytes(document.get(key)) <= 200}
    left = [key for key in document if key not in kept]
    get, listed = command.package_tools.get("get"), command.package_tools.get("list")
    read_back = " or ".join(tool for tool in (get, listed) if tool) or "the package's read tools"
    kept["cut"] = {
        "bytes": answer_bytes(document),
        "bound": MAX_ANSWER_BYTES,
        "leftOut": [shortened(key, ARGUMENT_SHOWN_CHARS) for key in left[:UNKNOWN_NAMED]],
        "hint": f"It took effect; its answer was too large to show whole: read it back with {read_back}.",
    }
    if len(left) > UNKNOWN_NAMED:
        kept["cut"]["leftOutMore"] = len(left) - UNKNOWN_NAMED
    return kept


def _fitting(
    document: dict[str, Any], shown: list[Any], offset: int, total: int, command: Command
) -> dict[str, Any] | None:
    """The page with as many of `shown` as fit in MAX_ANSWER_BYTES (found by halving); None when
    not even one item fits."""

    def page_of(count: int) -> dict[str, Any]:
        answer = {**document, "count": count, "items": shown[:count], "total": total, "offset": offset}
        following = offset + count
        if following < total and count:
            answer["nextOffset"] = following
            answer["hint"] = (
                f"{total - following:,} more: call {command.tool} again with the same "
                f"arguments and offset: {following}."
            )
        return answer

    low, high = 0, len(shown)  # page_of(low) fits (or low is 0); find the largest count that fits
    if answer_bytes(page_of(high)) <= MAX_ANSWER_BYTES:
        return page_of(high)
    while high - low > 1:
        middle = (low + high) // 2
        if answer_bytes(page_of(middle)) <= MAX_ANSWER_BYTES:
            low = middle
        else:
            high = middle
    if low == 0 and shown:
        return None
    return page_of(low)


def chosen_tools(commands: dict[str, Command], only: tuple[str, ...]) -> dict[str, Command]:
    """The tools --only names (shell-style patterns of tool names: `agentic_to_do__*` is one
    package, `agentic_notes__get` one command); all without --only. A pattern naming no tool is
    said on stderr, as a client would otherwise see a tool missing without a word."""
    if not only:
        return commands
    for pattern in only:
        if not any(fnmatch.fnmatchcase(name, pattern) for name in commands):
            _say(f"--only {pattern} names no tool; the tools are named <package>__<command>")
    return {
        name: command
        for name, command in commands.items()
        if any(fnmatch.fnmatchcase(name, pattern) for pattern in only)
    }


def resources(commands: dict[str, Command]) -> dict[str, tuple[str, str, Path]]:
    """URI → (name, description, file) for each package's APP.md and skills."""
    found: dict[str, tuple[str, str, Path]] = {}
    for command in commands.values():
        package = command.package
        # A slug is already URI text; a folder's name may not be (a space, é): percent-encoded.
        where = f"{URI_SCHEME}://{quote(package.name, safe='')}"
        found[f"{where}/APP.md"] = (
            f"{package.name} APP.md",
            package.manifest.description,
            package.root / "APP.md",
        )
        for skill in package.manifest.skills:
            found[f"{where}/skills/{skill}"] = (
                skill,
                f"Skill of {package.name}",
                skill_path(package.root, skill),
            )
    return found


def resource_notes(commands: dict[str, Command]) -> dict[str, str]:
    """URI → the line each of a described package's resources starts with over MCP: its APP.md
    and skills say to run the CLI, and the client has the tools instead."""
    notes: dict[str, str] = {}
    for command in commands.values():
        if command.description is None:
            continue  # a tool of `args` takes the CLI's words: the documents say them right
        example = command.package_tools.get("list") or command.tool
        note = (
            f"> Over MCP each command below is a tool: `{command.package.name} <command>` is "
            f"`{example.rsplit('__', 1)[0]}__<command>` (`{example}`), its options are the tool's "
            "arguments (`--due-at` is `due_at`, `--confirm` is `confirm: true`). Call the tools; "
            "do not run `python3 app/cli.py`.\n\n"
        )
        where = f"{URI_SCHEME}://{quote(command.package.name, safe='')}"
        notes[f"{where}/APP.md"] = note
        for skill in command.package.manifest.skills:
            notes[f"{where}/skills/{skill}"] = note
    return notes


def build_server(
    roots: list[Path],
    approve: bool = False,
    options: RunOptions | None = None,
    warm: WarmRuntime | None = None,
    strict: bool = False,
    only: tuple[str, ...] = (),
) -> Server[Any]:
    """The server; with `warm`, Python packages run warm (warm.py), the rest cold; with `strict`,
    tools list OpenAI's strict form of their schemas (strict_schema)."""
    schema_of = strict_schema if strict else input_schema
    chosen = options or RunOptions()
    commands = chosen_tools(load_commands(roots, approve, chosen, warm), only)
    documents = resources(commands)
    tools_note = resource_notes(commands)

    async def list_tools(context: Any, params: Any) -> types.ListToolsResult:
        tools = []
        for name, command in commands.items():
            described = command.description or {}
            summary = described.get("summary") or command.name
            tools.append(
                types.Tool(
                    name=name,
                    title=f"{command.package.name} {command.name}",  # the command as the package names it
                    description=f"{command.package.manifest.name}: {summary}",
                    input_schema=schema_of(command),
                    annotations=types.ToolAnnotations(
                        # Without describe nothing says a command only reads.
                        read_only_hint=command.description is not None and not described.get("mutatesState"),
                        destructive_hint=command.destructive,
                    ),
                )
            )
        return types.ListToolsResult(tools=tools)

    async def call_tool(context: Any, params: types.CallToolRequestParams) -> types.CallToolResult:
        command = commands.get(params.name)
        if command is None:
            return _error(
                error_envelope(
                    None,
                    AppError(
                        ErrorCode.NOT_FOUND,
                        f"No tool named {shortened(params.name, ARGUMENT_SHOWN_CHARS)}.",
                        "List the tools for their names: <package>__<command>, as agentic_to_do__add.",
                    ),
                )
            )
        interrupt = threading.Event()
        ran = Ran()

        def in_thread() -> None:
            try:
                ran.result = call(command, dict(params.arguments or {}), chosen, warm, interrupt)
            except BaseException as error:  # noqa: BLE001 - said to the client, never lost
                ran.error = error
            finally:
                ran.over.set()

        try:
            # In a worker thread: the call waits on its own process, and the event loop goes on
            # answering pings and other calls (each request is its own task in the SDK). Left to
            # run when the request is cancelled, which interrupts it instead.
            await anyio.to_thread.run_sync(in_thread, abandon_on_cancel=True)
        except anyio.get_cancelled_exc_class():
            interrupt.set()
            with anyio.CancelScope(shield=True):
                await anyio.to_thread.run_sync(ran.over.wait)
                await _say_how_it_ended(context, params.name, command, ran)
            raise
        if isinstance(ran.error, EndedBeforeItsCommit):  # interrupted, though not by the client
            ran.error = AppError(ErrorCode.INTERNAL_ERROR, "The call was interrupted before its commit.")
        if ran.error is not None or ran.result is None:
            error = ran.error or RuntimeError("no answer")
            return _error(
                error_envelope(
                    command.name, AppError(ErrorCode.INTERNAL_ERROR, f"{type(error).__name__}: {error}")
                )
            )
        return ran.result

    async def list_resources(context: Any, params: Any) -> types.ListResourcesResult:
        return types.ListResourcesResult(
            resources=[
                types.Resource(uri=uri, name=name, description=about, mime_type="text/markdown")
                for uri, (name, about, _) in documents.items()
            ]
        )

    async def read_resource(
        context: Any, params: types.ReadResourceRequestParams
    ) -> types.ReadResourceResult:
        uri = str(params.uri)
        if uri not in documents:
            raise MCPError(INVALID_PARAMS, f"No resource {uri}; list_resources names every one.")
        try:
            text = tools_note.get(uri, "") + read_body(documents[uri][2])
        except ManifestError as error:
            raise MCPError(INVALID_PARAMS, f"{uri} cannot be read: {error}") from None
        return types.ReadResourceResult(
            contents=[types.TextResourceContents(uri=uri, mime_type="text/markdown", text=text)]
        )

    async def list_resource_templates(context: Any, params: Any) -> types.ListResourceTemplatesResult:
        return types.ListResourceTemplatesResult(resource_templates=[])  # every resource is listed

    async def list_prompts(context: Any, params: Any) -> types.ListPromptsResult:
        return types.ListPromptsResult(prompts=[])

    return Server(
        "agentapps",
        version=_version(),
        instructions=INSTRUCTIONS,
        on_list_resource_templates=list_resource_templates,
        on_list_prompts=list_prompts,
        on_list_tools=list_tools,
        on_call_tool=call_tool,
        on_list_resources=list_resources,
        on_read_resource=read_resource,
    )


@dataclass
class Ran:
    """What a call's worker thread gave: its answer or the error it raised, once `over` is set."""

    result: types.CallToolResult | None = None
    error: BaseException | None = None
    over: threading.Event = field(default_factory=threading.Event)


CANCELLED_LOGGER = "agentapps.cancelled"


def how_it_ended(tool: str, command: Command, ran: Ran) -> dict[str, Any]:
    """What the client is told of a cancelled call, which gets no answer of its own (the protocol
    says so): whether it took effect and, when it ran to its end, its answer — so a retried `add`
    is never a silent duplicate."""
    if isinstance(ran.error, EndedBeforeItsCommit):
        return {
            "tool": tool,
            "tookEffect": False,
            "message": f"The cancelled call of {tool} ended before its commit: nothing changed.",
        }
    answer = ran.result.structured_content if ran.result is not None else None
    mutates = command.description is None or bool(command.description.get("mutatesState"))
    took: bool | None
    if ran.result is not None and not ran.result.is_error:
        took = mutates
        said = (
            "it had begun its commit, so it finished and took effect; its answer is here: do not call "
            "it again for the same change."
            if mutates
            else "it finished; it only reads."
        )
    else:
        error = (answer or {}).get("error") if isinstance(answer, dict) else None
        details = (error or {}).get("details") if isinstance(error, dict) else None
        took = None if isinstance(details, dict) and details.get("mayHaveTakenEffect") else False
        said = (
            "it failed and may have taken effect: read the state back before calling it again."
            if took is None
            else "it failed: nothing changed."
        )
    return {
        "tool": tool,
        "tookEffect": took,
        "message": f"The cancelled call of {tool}: {said}",
        "answer": answer,
    }


async def _say_how_it_ended(context: Any, tool: str, command: Command, ran: Ran) -> None:
    """A log message (notifications/message, logger CANCELLED_LOGGER) with how_it_ended, naming
    the cancelled request's id."""
    data = {"requestId": getattr(context, "request_id", None), **how_it_ended(tool, command, ran)}
    with contextlib.suppress(Exception):  # the client may have gone: nothing left to tell
        await context.session.send_notification(
            types.LoggingMessageNotification(
                params=types.LoggingMessageNotificationParams(
                    level="warning" if data["tookEffect"] is not False else "info",
                    data=data,
                    logger=CANCELLED_LOGGER,
                )
            )
        )


@functools.cache
def _version() -> str:
    """The toolkit's version, for serverInfo (a client shows it; empty says nothing)."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("agentic-applications-suite")
    except PackageNotFoundError:  # run from a source tree that was never installed
        return "0+unknown"


async def serve(
    roots: list[Path],
    approve: bool = False,
    options: RunOptions | None = None,
    cold: bool = False,
    strict: bool = False,
    only: tuple[str, ...] = (),
) -> int | None:
    """Serve on stdio until the client leaves, or SIGTERM, SIGINT or SIGHUP (then the signal's
    number is returned, once every call has ended); Python packages run warm unless `cold`."""
    stopped_by: list[int] = []
    with contextlib.ExitStack() as stack:
        # From the start, and held until every call has ended: a signal during start-up (its
        # describes) is read once start-up has ended what it ran, within its deadline (found by
        # an outside review: it ended the server at once and left a describe running); a second
        # signal while the first's calls end is read here too, never left to end the server.
        signals = stack.enter_context(anyio.open_signal_receiver(*ENDING))
        warm = None if cold else stack.enter_context(WarmRuntime())
        server = build_server(roots, approve, options, warm, strict, only)
        say_where_state_lives(roots)
        # The wire reads each line first (mcp_wire): an unreadable one is answered, not dropped.
        # At the client's end of input, calls already made are answered: they take at most the
        # run's timeout, and a warm call's wait for its process at most as long again.
        wire = stack.enter_context(claimed_stdio(drain_seconds=2 * (options or RunOptions()).timeout + 5))
        async with anyio.create_task_group() as group:

            async def end_when_the_client_is_gone() -> None:
                # Found by an outside review: a client killed with a call in flight left the server
                # (and the call's app) running until the call's timeout. Cancelled, each call in
                # flight interrupts its app, as a cancellation from the client does.
                await wire.gone.wait()
                group.cancel_scope.cancel()

            async def end_on_a_signal() -> None:
                # Found by an outside review: SIGTERM or SIGHUP (a client stopping its server, a
                # closed terminal) ended the server at once and left a call's app running, with no
                # bound, and a warm one to change the state after. Ended as when the client is gone.
                async for number in signals:
                    _say(f"stopped by {signal.Signals(number).name}.")
                    stopped_by.append(number)
                    group.cancel_scope.cancel()
                    return

            group.start_soon(end_when_the_client_is_gone)
            group.start_soon(end_on_a_signal)
            async with stdio_server(cast(Any, wire), cast(Any, wire)) as (read_stream, write_stream):
                await server.run(read_stream, write_stream, server.create_initialization_options())
            group.cancel_scope.cancel()  # served to the end: the watches end too
    return stopped_by[0] if stopped_by else None
