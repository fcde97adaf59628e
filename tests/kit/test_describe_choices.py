"""A choice (a Literal or an Enum) is described as such wherever it stands: an argument's values
are in `describe`, in APP.md's generated signature and in the MCP tool's schema, as an option's
are. Found by a new package author, whose `update-status <id> <status>` lost its choices."""

from __future__ import annotations

from typing import Annotated, Literal

import typer
from pydantic import BaseModel

import agentic_kit
from agentapps.commands_doc import signature
from agentapps.mcp_server import _json_type  # a described parameter as a tool property
from agentic_kit.describe import describe_app
from agentic_kit.store import VersionedState


class _Shelf(VersionedState):
    pass


class _Book(BaseModel):
    id: str


def _described() -> dict[str, dict[str, object]]:
    app = agentic_kit.new_app(
        "A shelf.",
        state=_Shelf,
        state_file="shelf.json",
        state_env="SHELF_STATE_FILE",
        entity=_Book,
        entity_name="book",
        summary={"id": "{}"},
    )

    @app.command("set-status", mutates=True)
    def set_status(
        book_id: Annotated[str, typer.Argument(metavar="ID")],
        status: Annotated[Literal["want", "reading", "done"], typer.Argument()],
        shelf: Annotated[Literal["home", "work"], typer.Option()] = "home",
    ) -> agentic_kit.Payload:
        """Set a book's status."""
        return {"item": {"id": book_id}}

    described = describe_app(app.model().group, app.traits)
    return {str(command["name"]): dict(command) for command in described["commands"]}


def test_an_arguments_choices_are_described_as_an_options_are() -> None:
    command = _described()["set-status"]
    arguments = {argument["name"]: argument for argument in command["arguments"]}  # type: ignore[attr-defined]
    assert arguments["status"]["choices"] == ["want", "reading", "done"]
    assert arguments["id"]["choices"] is None
    options = {option["name"]: option for option in command["options"]}  # type: ignore[attr-defined]
    assert options["--shelf"]["choices"] == ["home", "work"]


def test_the_signature_and_the_tool_schema_name_an_arguments_choices() -> None:
    command = _described()["set-status"]
    assert signature(command) == "set-status <id> <want|reading|done> [--shelf home|work]"
    arguments = {argument["name"]: argument for argument in command["arguments"]}  # type: ignore[attr-defined]
    assert _json_type(arguments["status"])["enum"] == ["want", "reading", "done"]
    assert "enum" not in _json_type(arguments["id"])
