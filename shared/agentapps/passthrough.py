"""The toolkit's own app: the kit's AgenticApp, plus the one outcome an app never has — a
document printed as it is, with an exit status of its own (`agentapps run` relays an app's
answer this way) — and the toolkit's --human text (human.py)."""

from __future__ import annotations

from typing import NamedTuple

from agentic_kit.app import AgenticApp
from agentic_kit.envelope import Envelope


class Passthrough(NamedTuple):
    """An envelope printed as it is, with its exit status: what a runtime relays from an app."""

    envelope: Envelope
    exit_status: int


class ToolkitApp(AgenticApp):
    """`agentapps`'s typer app."""

    program = "agentapps"  # however it was started (the console script, `python -m`)
    version_help = "Print the toolkit's version (agentapps, as installed) and exit."

    def outcome(self, command: str | None, result: object) -> tuple[Envelope, int]:
        if isinstance(result, Passthrough):
            return result.envelope, result.exit_status
        return super().outcome(command, result)

    def version(self) -> str:
        """The toolkit's own version: the suite's, as installed (it has no APP.md)."""
        from importlib.metadata import PackageNotFoundError, version

        try:
            return version("agentic-applications-suite")
        except PackageNotFoundError:
            return "unknown"

    def render_human(self, envelope: Envelope, sorted_by: str | None = None) -> str:
        from .human import render

        return render(envelope)
