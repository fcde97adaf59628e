"""The timer's own success shapes, beyond a timer and a list: what `export` and `import` answer.
schemas/ describes them (`runner.new_app(envelopes=...)`)."""

from __future__ import annotations

from typing import Literal

from pydantic import ConfigDict
from typing_extensions import TypedDict

from agentic_kit.backup import Imported

from .models import Timer


class Export(TypedDict):
    """`export`: every timer as the state keeps it, the format and the id counter."""

    __pydantic_config__ = ConfigDict(extra="forbid")  # type: ignore[misc]
    ok: Literal[True]
    command: str
    schemaVersion: int  # the JSON key
    nextId: int  # the id counter, so an import into an empty state restores the ids exactly
    count: int
    items: list[Timer]


ENVELOPES = (Export, Imported)
