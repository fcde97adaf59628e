"""`agentapps mcp`: serve Agent Applications packages over the Model Context Protocol (stdio).

Progressive disclosure, mapped onto MCP:
- catalog → tool listing: one tool per declared command, named `<slug>.<command>` (the words of
  a command path joined by dots), described from the package. A package with `describe` gets
  each tool's input schema from it; one without gets an `args` array of strings: the words after
  the command, as the user would type them;
- activation → resources: each package's APP.md body (`agentapp://<slug>/APP.md`) and each
  skill (`agentapp://<slug>/skills/<name>`);
- resources → tool calls: the runtime's `invoke`, whose relayed document is the tool's result.
  A Python package runs warm (warm.py: a child forked from a process that has done its imports,
  under the same rules and with the same result as a cold call) unless the server was started
  with --cold.

The runtime's rules hold here as in `agentapps run`: an untrusted package is served only when the
server was started with --approve (otherwise it is left out, before any of its code runs); a
command gated by confirmationRequired is marked destructive and runs only with `"confirm": true`
(for a described command that also passes the app's own `--confirm`); the package sees the
allow-listed environment plus the variables named with --env; every call is bounded by
--timeout and --max-output. A failure is a tool error carrying its code; a broken package is left
out, never fatal. Needs the optional extra: pip install -e ".[mcp]".
"""

from __future__ import annotations

import contextlib
import json
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from mcp import MCPError, types
from mcp.server.lowlevel import Server
from mcp.server.stdio import stdio_server
from mcp_types import INVALID_PARAMS

from agentic_kit.envelope import to_json
from agentic_kit.errors import AppError, ErrorCode
from agentic_kit.text import printable

from .catalog import discover
from .environment import package_environment
from .errors import APP_FAILED
from .gates import needs_confirmation, require_confirmation, trust_level
from .manifest import ManifestError, read_body, skill_path
from .package import Package
from .runtime import RunOptions, RunTimedOut, invoke, run_and_relay
from .warm import WarmRuntime

URI_SCHEME = "agentapp"
# Start-up runs the packages' describe side by side, at most this many at once, all under one
# deadline this far away (or --timeout, if shorter): a describe that has not answered by then
# leaves its package out, never the rest, and start-up as a whole is bounded by the deadline.
STARTUP_WORKERS = 32
STARTUP_DESCRIBE_TIMEOUT = 10.0


@dataclass
class Command:
    package: Package
    words: list[str]  # the declared command: one word, or a command path
    description: dict[str, Any] | None  # its entry in the app's describe; None without describe

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
    described_packages = [package for package in packages if "describe" in package.manifest.commands]
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
    commands: dict[str, Command] = {}
    for package in packages:
        manifest = package.manifest
        described = descriptions.get(package.root, {})
        if described is None:
            continue
        tools: dict[str, Command] = {}
        for declared in manifest.commands:
            if "describe" in manifest.commands and declared not in described:
                continue  # a described package is served as it describes itself
            name = f"{package.name}.{declared.replace(' ', '.')}"
            if name in tools:
                _say(
                    f"{package.root}: `{declared}` and `{tools[name].name}` are both the tool {name}; "
                    f"only `{tools[name].name}` is served"
                )
                continue
            tools[name] = Command(package, declared.split(" "), described.get(declared))
        taken = sorted(set(tools) & set(commands))
        if taken:
            _leave_out(package.root, f"another package already serves {', '.join(taken)} (the same slug)")
            continue
        commands |= tools
    return commands


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
    try:
        invocation = invoke(
            package,
            ["describe"],
            env=package_environment(options.env_names),
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
    item = (invocation.envelope or {}).get("item") if invocation.ok and not invocation.violations else None
    entries = item.get("commands") if isinstance(item, dict) else None
    if not isinstance(entries, list):
        _leave_out(package.root, "describe is declared but did not give its commands")
        return None
    return {
        entry["name"]: entry
        for entry in entries
        if isinstance(entry, dict) and isinstance(entry.get("name"), str)
    }


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
    """The options a tool takes: not those whose value is a path (`--body-file`). A tool client
    passes text inline; a path would be read on the server's machine — a file the client never
    saw, or the server's own stdin (`-`), which holds the protocol, not the text."""
    return [option for option in options if option.get("type") != "path"]


def input_schema(command: Command) -> dict[str, Any]:
    if command.description is None:
        properties: dict[str, Any] = {"args": ARGS_PROPERTY}
        required: list[str] = []
    else:
        arguments = command.description.get("arguments", [])
        options = command.description.get("options", [])
        properties = {argument["name"]: _json_type(argument) for argument in arguments}
        properties |= {_property(option["name"]): _json_type(option) for option in _inline(options)}
        required = [argument["name"] for argument in arguments if argument["required"]]
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


def _error(code: str, message: str, document: dict[str, Any] | None = None) -> types.CallToolResult:
    body = document or {"ok": False, "command": None, "error": {"code": code, "message": message}}
    # An app's output quoted in details may hold bytes that were not UTF-8: printable, or the
    # protocol's own serialisation would fail and end the session.
    return types.CallToolResult(
        content=[types.TextContent(type="text", text=printable(f"{code}: {message}"))],
        structured_content=json.loads(to_json(body)),
        is_error=True,
    )


def check_arguments(command: Command, arguments: dict[str, Any]) -> None:
    """VALIDATION_ERROR naming the argument, when the call does not fit the tool's input schema
    (an unknown property, a list for a single value, a number for a string)."""
    from jsonschema import Draft202012Validator

    schema = input_schema(command)
    for error in sorted(
        Draft202012Validator(schema).iter_errors(arguments), key=lambda error: list(error.path)
    ):
        where = ".".join(str(part) for part in error.absolute_path)
        if error.validator == "additionalProperties":
            unknown = sorted(set(arguments) - set(schema["properties"]))
            message = f"{', '.join(unknown)}: not an argument of {command.name} (see its input schema)."
        else:
            message = f"{where or 'arguments'}: {error.message}."
        raise AppError(
            ErrorCode.VALIDATION_ERROR, message, "Call the tool with the arguments its input schema lists."
        )


def call(
    command: Command, arguments: dict[str, Any], options: RunOptions, warm: WarmRuntime | None = None
) -> types.CallToolResult:
    try:
        check_arguments(command, arguments)
        argv = command_line(command, arguments)
        require_confirmation(argv, command.package.manifest, approved=arguments.get("confirm") is True)
        document, _ = run_and_relay(
            command.package,
            argv,
            env=package_environment(options.env_names),
            timeout=options.timeout,
            max_output=options.max_output,
            warm=warm,
        )
    except AppError as error:
        message = printable(error.message)
        body = {
            "code": error.code,
            "message": message,
            **({"details": error.details} if error.details else {}),
        }
        return _error(error.code, message, {"ok": False, "command": command.name, "error": body})
    if isinstance(document, dict) and document.get("ok") is False:
        failure = document.get("error")
        said = (failure.get("code"), failure.get("message")) if isinstance(failure, dict) else (None, None)
        if isinstance(said[0], str) and isinstance(said[1], str):
            return _error(said[0], said[1], document)
        # The format only recommends a structured error: show what the app printed.
        return _error(APP_FAILED, f"The app failed without a structured error: {to_json(document)}", document)
    text = json.dumps(document, ensure_ascii=False)
    structured = document if isinstance(document, dict) else None
    return types.CallToolResult(
        content=[types.TextContent(type="text", text=text)], structured_content=structured
    )


def resources(commands: dict[str, Command]) -> dict[str, tuple[str, str, Path]]:
    """URI → (name, description, file) for each package's APP.md and skills."""
    found: dict[str, tuple[str, str, Path]] = {}
    for command in commands.values():
        package = command.package
        found[f"{URI_SCHEME}://{package.name}/APP.md"] = (
            f"{package.name} APP.md",
            package.manifest.description,
            package.root / "APP.md",
        )
        for skill in package.manifest.skills:
            found[f"{URI_SCHEME}://{package.name}/skills/{skill}"] = (
                skill,
                f"Skill of {package.name}",
                skill_path(package.root, skill),
            )
    return found


def build_server(
    roots: list[Path],
    approve: bool = False,
    options: RunOptions | None = None,
    warm: WarmRuntime | None = None,
) -> Server[Any]:
    """The server; with `warm`, Python packages run warm (warm.py), the rest cold."""
    chosen = options or RunOptions()
    commands = load_commands(roots, approve, chosen, warm)
    documents = resources(commands)

    async def list_tools(context: Any, params: Any) -> types.ListToolsResult:
        tools = []
        for name, command in commands.items():
            described = command.description or {}
            summary = described.get("summary") or command.name
            tools.append(
                types.Tool(
                    name=name,
                    description=f"{command.package.manifest.name}: {summary}",
                    input_schema=input_schema(command),
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
            return _error("NOT_FOUND", f"No tool named {params.name}.")
        try:
            return call(command, dict(params.arguments or {}), chosen, warm)
        except Exception as error:  # noqa: BLE001 - one package's failure never takes the server down
            return _error("INTERNAL_ERROR", f"{type(error).__name__}: {error}")

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
            text = read_body(documents[uri][2])
        except ManifestError as error:
            raise MCPError(INVALID_PARAMS, f"{uri} cannot be read: {error}") from None
        return types.ReadResourceResult(
            contents=[types.TextResourceContents(uri=uri, mime_type="text/markdown", text=text)]
        )

    return Server(
        "agentapps",
        on_list_tools=list_tools,
        on_call_tool=call_tool,
        on_list_resources=list_resources,
        on_read_resource=read_resource,
    )


async def serve(
    roots: list[Path], approve: bool = False, options: RunOptions | None = None, cold: bool = False
) -> None:
    """Serve on stdio until the client leaves; Python packages run warm unless `cold`."""
    with contextlib.ExitStack() as stack:
        warm = None if cold else stack.enter_context(WarmRuntime())
        server = build_server(roots, approve, options, warm)
        async with stdio_server() as (read_stream, write_stream):
            await server.run(read_stream, write_stream, server.create_initialization_options())
