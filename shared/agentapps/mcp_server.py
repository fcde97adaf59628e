"""`agentapps mcp`: serve Agent Applications packages over the Model Context Protocol (stdio).

Progressive disclosure, mapped onto MCP:
- catalog → tool listing: one tool per declared command, named `<slug>.<command>` (the words of
  a command path joined by dots), described from the package. A package with `describe` gets
  each tool's input schema from it; one without gets an `args` array of strings: the words after
  the command, as the user would type them;
- activation → resources: each package's APP.md body (`agentapp://<slug>/APP.md`) and each
  skill (`agentapp://<slug>/skills/<name>`);
- resources → tool calls: the runtime's `invoke`, whose relayed document is the tool's result.

The runtime's rules hold here as in `agentapps run`: an untrusted package is served only when the
server was started with --approve (otherwise it is left out, before any of its code runs); a
command gated by confirmationRequired is marked destructive and runs only with `"confirm": true`
(for a described command that also passes the app's own `--confirm`); the package sees the
allow-listed environment plus the variables named with --env; every call is bounded by
--timeout and --max-output. A failure is a tool error carrying its code; a broken package is left
out, never fatal. Needs the optional extra: pip install -e ".[mcp]".
"""

from __future__ import annotations

import json
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from mcp import MCPError, types
from mcp.server.lowlevel import Server
from mcp.server.stdio import stdio_server
from mcp_types import INVALID_PARAMS

from agentic_kit.errors import AppError, ErrorCode

from .environment import package_environment
from .gates import needs_confirmation, require_confirmation, trust_level
from .manifest import ManifestError, read_body, skill_path
from .runtime import Package, RunOptions, RunTimedOut, discover, invoke, run_and_relay

URI_SCHEME = "agentapp"


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


def load_commands(roots: list[Path], approve: bool, options: RunOptions) -> dict[str, Command]:
    """Tool name → command, for every package that loads (and describes itself, if it declares
    describe). A package left out is named on stderr, with why."""
    commands: dict[str, Command] = {}
    for root in discover(roots):
        package = Package(root)
        try:
            manifest = package.manifest
        except ManifestError as error:
            _leave_out(root, str(error))
            continue
        if not approve and trust_level(root) == "untrusted":
            _leave_out(root, "untrusted; start the server with --approve to serve it")
            continue
        described = _described(package, options) if "describe" in manifest.commands else {}
        if described is None:
            continue
        tools = {
            f"{package.name}.{declared.replace(' ', '.')}": Command(
                package, declared.split(" "), described.get(declared)
            )
            for declared in manifest.commands
            # A described package is served as it describes itself.
            if "describe" not in manifest.commands or declared in described
        }
        taken = sorted(set(tools) & set(commands))
        if taken:
            _leave_out(root, f"another package already serves {', '.join(taken)} (the same slug)")
            continue
        commands |= tools
    return commands


def _described(package: Package, options: RunOptions) -> dict[str, dict[str, Any]] | None:
    """Command name → its describe entry; None (and the package left out) when describe fails."""
    try:
        invocation = invoke(
            package,
            ["describe"],
            env=package_environment(options.env_names),
            timeout=options.timeout,
            max_output=options.max_output,
        )
    except (RunTimedOut, OSError) as error:
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
    print(f"agentapps mcp: {root} is not served: {reason}", file=sys.stderr)


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


def input_schema(command: Command) -> dict[str, Any]:
    if command.description is None:
        properties: dict[str, Any] = {"args": ARGS_PROPERTY}
        required: list[str] = []
    else:
        arguments = command.description.get("arguments", [])
        options = command.description.get("options", [])
        properties = {argument["name"]: _json_type(argument) for argument in arguments}
        properties |= {_property(option["name"]): _json_type(option) for option in options}
        required = [argument["name"] for argument in arguments if argument["required"]]
    if command.destructive:
        properties["confirm"] = {"type": "boolean", "description": "True only after the user agreed."}
    return {"type": "object", "properties": properties, "required": required, "additionalProperties": False}


def command_line(command: Command, arguments: dict[str, Any]) -> list[str]:
    """The CLI arguments for a tool call: the command's words first; then the `args` array as
    given, or (described) options, then `--` and the positionals."""
    if command.description is None:
        args = arguments.get("args", [])
        if not isinstance(args, list) or not all(isinstance(arg, str) for arg in args):
            raise AppError(ErrorCode.VALIDATION_ERROR, "args must be an array of strings.")
        return [*command.words, *args]
    argv = list(command.words)
    for option in command.description.get("options", []):
        value = arguments.get(_property(option["name"]))
        if value is None or value is False:
            continue
        if option["type"] == "flag":
            argv.append(option["name"])
        else:
            for item in value if isinstance(value, list) else [value]:
                argv += [option["name"], str(item)]
    positionals: list[str] = []
    for argument in command.description.get("arguments", []):
        value = arguments.get(argument["name"])
        if value is not None:
            positionals += [str(item) for item in value] if isinstance(value, list) else [str(value)]
    return [*argv, "--", *positionals] if positionals else argv


def _error(code: str, message: str, document: dict[str, Any] | None = None) -> types.CallToolResult:
    body = document or {"ok": False, "command": None, "error": {"code": code, "message": message}}
    return types.CallToolResult(
        content=[types.TextContent(type="text", text=f"{code}: {message}")],
        structured_content=body,
        is_error=True,
    )


def call(command: Command, arguments: dict[str, Any], options: RunOptions) -> types.CallToolResult:
    try:
        argv = command_line(command, arguments)
        require_confirmation(argv, command.package.manifest, approved=arguments.get("confirm") is True)
        document, _ = run_and_relay(
            command.package,
            argv,
            env=package_environment(options.env_names),
            timeout=options.timeout,
            max_output=options.max_output,
        )
    except AppError as error:
        body = {
            "code": error.code,
            "message": error.message,
            **({"details": error.details} if error.details else {}),
        }
        return _error(error.code, error.message, {"ok": False, "command": command.name, "error": body})
    if isinstance(document, dict) and document.get("ok") is False:
        failure = document.get("error")
        code, message = (
            (failure.get("code"), failure.get("message")) if isinstance(failure, dict) else (None, None)
        )
        return _error(str(code), str(message), document)
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


def build_server(roots: list[Path], approve: bool = False, options: RunOptions | None = None) -> Server[Any]:
    chosen = options or RunOptions()
    commands = load_commands(roots, approve, chosen)
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
            return call(command, dict(params.arguments or {}), chosen)
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


async def serve(roots: list[Path], approve: bool = False, options: RunOptions | None = None) -> None:
    server = build_server(roots, approve, options)
    async with stdio_server() as (read_stream, write_stream):
        await server.run(read_stream, write_stream, server.create_initialization_options())
