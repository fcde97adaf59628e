"""Readable text for --human; the JSON envelope stays the default and the contract."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .envelope import Envelope

# The fields that make a one-line summary of any app's item, in the order they are shown.
_SUMMARY_FIELDS = ("id", "status", "kind", "title", "label", "dueAt")


def render(envelope: Envelope) -> str:
    if not envelope["ok"]:
        error = envelope["error"]
        lines = [f"Error {error['code']}: {error['message']}"]
        if "hint" in error:
            lines.append(f"Hint: {error['hint']}")
        return "\n".join(lines)
    if "help" in envelope:
        return str(envelope["help"]).rstrip()
    if "items" in envelope:
        shown = f"{envelope['count']} of {envelope['total']}" if "total" in envelope else None
        lines = [_summary(item) for item in envelope["items"]]
        lines.append(f"({shown or envelope['count']} item{'s' if envelope['count'] != 1 else ''})")
        return "\n".join(lines)
    return _details(envelope["item"])


def _summary(item: Mapping[str, Any]) -> str:
    parts = []
    for field in _SUMMARY_FIELDS:
        value = item.get(field)
        if value in (None, ""):
            continue
        parts.append(
            f"due {value}"
            if field == "dueAt"
            else f"[{value}]"
            if field in ("status", "kind")
            else str(value)
        )
    return "  ".join(parts)


def _details(item: Mapping[str, Any]) -> str:
    width = max((len(key) for key in item), default=0)
    return "\n".join(f"{key.ljust(width)}  {_plain(value)}" for key, value in item.items())


def _plain(value: Any) -> str:
    if value is None:
        return "-"
    if isinstance(value, list):
        return ", ".join(str(part) for part in value) or "-"
    return str(value)
