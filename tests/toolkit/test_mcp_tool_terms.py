"""`agentapps mcp` speaks in tool terms: an app's message or hint that names its command line
("Run `list`", `--due-at`) is said as the tool to call and its arguments, in the text and the
structured content alike."""

from __future__ import annotations

from pathlib import Path

import pytest
from mcp import ClientSession

from agentapps.mcp_server import in_tool_terms, input_schema, load_commands, strict_schema
from agentapps.runtime import RunOptions
from tests.packages import PACKAGES
from tests.toolkit.conftest import SUITE
from tests.toolkit.test_mcp import run

TOOLS = load_commands([SUITE / name for name in PACKAGES], approve=True, options=RunOptions())
UNKNOWN = {"agentic-to-do": ("get", "td_0042"), "agentic-notes": ("get", "nt_0042"),
           "agentic-timer": ("pause", "tm_0042")}  # fmt: skip


def test_a_not_found_hint_names_the_tool_to_call_in_every_package(tmp_path: Path) -> None:
    async def scenario(session: ClientSession) -> None:
        for package, (command, id_) in UNKNOWN.items():
            prefix = package.replace("-", "_")
            refused = await session.call_tool(f"{prefix}__{command}", {"id": id_})
            assert refused.is_error
            assert refused.structured_content is not None
            hint = refused.structured_content["error"]["hint"]
            assert hint.startswith(f"Call {prefix}__list")
            assert "Run `" not in hint
            assert f"Hint: {hint}" in refused.content[0].text  # type: ignore[union-attr]

    run(tmp_path, scenario, [str(SUITE / name) for name in PACKAGES])


@pytest.mark.parametrize(
    ("tool", "said", "meant"),
    [
        ("agentic_timer__pause", "Run `list --status all` to see the ids that exist.",
         "Call agentic_timer__list with status: all to see the ids that exist."),
        ("agentic_to_do__list", "Run `list --help` to see what --limit takes.",
         "Read agentic_to_do__list's input schema to see what limit takes."),
        ("agentic_to_do__remove", "Ask the user, then run `remove` again with --confirm.",
         "Ask the user, then call agentic_to_do__remove again with confirm."),
        ("agentic_to_do__list", "Run `list --due-before=2026-05-01 --overdue`.",
         "Call agentic_to_do__list with due_before: 2026-05-01, overdue: true."),
        # Not a command of the package, or not a call: left as the app said it.
        ("agentic_to_do__list", "Run `git status` first.", "Run `git status` first."),
        ("agentic_to_do__list", "Run `list 'unclosed` again.", "Run `list 'unclosed` again."),
        ("agentic_to_do__get", "Run `get td_0001` for one.", "Run `get td_0001` for one."),
    ],
)  # fmt: skip
def test_an_app_s_command_line_is_said_as_a_tool_call(tool: str, said: str, meant: str) -> None:
    assert in_tool_terms(said, TOOLS[tool]) == meant


def test_a_tool_without_arguments_lists_the_form_each_client_takes() -> None:
    """notes' `tags` takes nothing. Gemini refuses an empty `properties` for an object, so the
    default form has none (`{"type": "object"}`); OpenAI's strict form needs it, with
    `required` and `additionalProperties`, so --strict-schemas lists all three."""
    tags = TOOLS["agentic_notes__tags"]
    assert input_schema(tags) == {"type": "object"}
    assert strict_schema(tags) == {
        "type": "object", "properties": {}, "required": [], "additionalProperties": False
    }  # fmt: skip
