"""`agentapps mcp`: serve Agent Applications packages over the Model Context Protocol (stdio).

Progressive disclosure, mapped onto MCP:
- catalog → tool listing: one tool per command, named `<slug>.<command>`, described from the
  package, its input schema built from the app's `describe`;
- activation → resources: each package's APP.md body (`agentapp://<slug>/APP.md`) and each
  skill (`agentapp://<slug>/skills/<name>`);
- resources → tool calls: the runtime's `invoke`, whose envelope is the tool's structured result.

Commands in confirmationRequired are marked destructive and run only with `confirm: true`
(which also passes the app's own `--confirm`); read-only commands are marked read-only. A failing
envelope is a tool error carrying its code and message; a broken package never stops the server.
Needs the optional extra: pip install -e ".[mcp]".
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from mcp import types
from mcp.server.lowlevel import Server
from mcp.server.stdio import stdio_server

from .manifest import ManifestError, read_body, skill_path
from .runtime import Package, RunTimedOut, discover, invoke

URI_SCHEME = "agentapp"


@dataclass
class Command:
    package: Package
    name: str
    description: dict[str, Any]  # this command's entry in the app's describe

    @property
    def destructive(self) -> bool:
        return self.name in self.package.manifest.confirmation_required


def load_commands(roots: list[Path]) -> dict[str, Command]:
    """Tool name → command, for every package that loads and describes itself."""
    commands: dict[str, Command] = {}
    for root in discover(roots):
        package = Package(root)
        try:
            slug = package.manifest.slug or root.name
            described = invoke(package, ["describe"], timeout=30).envelope or {}
        except (ManifestError, RunTimedOut, OSError):
            continue  # a broken package is left out; the others are served
        for entry in (described.get("item") or {}).get("commands", []):
            if entry["name"] in package.manifest.commands:
                commands[f"{slug}.{entry['name']}"] = Command(package, entry["name"], entry)
    return commands


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


def input_schema(command: Command) -> dict[str, Any]:
    arguments = command.description.get("arguments", [])
    options = command.description.get("options", [])
    properties = {argument["name"]: _json_type(argument) for argument in arguments}
    properties |= {_property(option["name"]): _json_type(option) for option in options}
    if command.destructive:
        properties["confirm"] = {"type": "boolean", "description": "True only after the user agreed."}
    required = [argument["name"] for argument in arguments if argument["required"]]
    return {"type": "object", "properties": properties, "required": required, "additionalProperties": False}


def command_line(command: Command, arguments: dict[str, Any]) -> list[str]:
    """The CLI arguments for a tool call: options first, then `--` and the positionals."""
    argv = [command.name]
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


def _error(code: str, message: str, envelope: dict[str, Any] | None = None) -> types.CallToolResult:
    body = envelope or {"ok": False, "command": None, "error": {"code": code, "message": message}}
    return types.CallToolResult(
        content=[types.TextContent(type="text", text=f"{code}: {message}")],
        structured_content=body,
        is_error=True,
    )


def call(command: Command, arguments: dict[str, Any]) -> types.CallToolResult:
    if command.destructive and arguments.get("confirm") is not True:
        return _error("CONFIRMATION_REQUIRED", f"{command.name} needs confirm: true, after the user agreed.")
    try:
        invocation = invoke(
            command.package, command_line(command, arguments), env=dict(os.environ), timeout=60
        )
    except RunTimedOut as error:
        return _error("TIMEOUT", str(error))
    except OSError as error:
        return _error("CONTRACT_VIOLATION", f"entry.command cannot start: {error}")
    envelope = invocation.envelope
    if invocation.violations or envelope is None:
        return _error("CONTRACT_VIOLATION", " ".join(invocation.violations))
    if not envelope["ok"]:
        failure = envelope.get("error", {})
        return _error(str(failure.get("code")), str(failure.get("message")), envelope)
    text = json.dumps(envelope, ensure_ascii=False)
    return types.CallToolResult(
        content=[types.TextContent(type="text", text=text)], structured_content=envelope
    )


def resources(commands: dict[str, Command]) -> dict[str, tuple[str, str, Path]]:
    """URI → (name, description, file) for each package's APP.md and skills."""
    found: dict[str, tuple[str, str, Path]] = {}
    for command in commands.values():
        package = command.package
        slug = package.manifest.slug or package.root.name
        found[f"{URI_SCHEME}://{slug}/APP.md"] = (
            f"{slug} APP.md",
            package.manifest.description,
            package.root / "APP.md",
        )
        for skill in package.manifest.skills:
            found[f"{URI_SCHEME}://{slug}/skills/{skill}"] = (
                skill,
                f"Skill of {slug}",
                skill_path(package.root, skill),
            )
    return found


def build_server(roots: list[Path]) -> Server[Any]:
    commands = load_commands(roots)
    documents = resources(commands)

    async def list_tools(context: Any, params: Any) -> types.ListToolsResult:
        tools = []
        for name, command in commands.items():
            mutates = bool(command.description.get("mutatesState"))
            summary = command.description.get("summary") or command.name
            tools.append(
                types.Tool(
                    name=name,
                    description=f"{command.package.manifest.name}: {summary}",
                    input_schema=input_schema(command),
                    annotations=types.ToolAnnotations(
                        read_only_hint=not mutates, destructive_hint=command.destructive
                    ),
                )
            )
        return types.ListToolsResult(tools=tools)

    async def call_tool(context: Any, params: types.CallToolRequestParams) -> types.CallToolResult:
        command = commands.get(params.name)
        if command is None:
            return _error("NOT_FOUND", f"No tool named {params.name}.")
        try:
            return call(command, dict(params.arguments or {}))
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
        _, _, path = documents[uri]
        text = read_body(path)
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


async def serve(roots: list[Path]) -> None:
    server = build_server(roots)
    async with stdio_server() as (read_stream, write_stream):
        await server.run(read_stream, write_stream, server.create_initialization_options())
