"""Readable text for --human; the JSON envelope stays the default and the contract.

Stored text can never drive the terminal or pose as output of its own: every control character
but newline and tab, every line or paragraph separator and bidi control, and every byte that was
not UTF-8 is shown as an escape (\\x1b, \\u202e); and a value of several lines is indented under
its field, so none of its lines can read as another field.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from .envelope import Envelope
from .text import LAYOUT_CONTROLS

# C0 and C1 controls and DEL (but not newline or tab), layout controls, and lone surrogates.
_UNSAFE = re.compile(rf"[\x00-\x08\x0b-\x1f\x7f-\x9f{LAYOUT_CONTROLS}\ud800-\udfff]")

# The fields that make a one-line summary of any app's item, in the order they are shown.
_SUMMARY_FIELDS = ("id", "status", "kind", "title", "label", "dueAt")


def render(envelope: Envelope) -> str:
    if not envelope["ok"]:
        error = envelope["error"]
        lines = [f"Error {error['code']}: {safe(error['message'])}"]
        if "hint" in error:
            lines.append(f"Hint: {safe(error['hint'])}")
        return "\n".join(lines)
    if "help" in envelope:
        return safe(str(envelope["help"]).rstrip())
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
        text = safe(str(value)).replace("\n", " ")  # a summary stays on one line
        if field == "dueAt":
            text = f"due {text}"
        elif field in ("status", "kind"):
            text = f"[{text}]"
        parts.append(text)
    return "  ".join(parts)


def _details(item: Mapping[str, Any]) -> str:
    """One field a line, its name first; the further lines of a value are indented under the
    value, where no field's name ever starts."""
    width = max((len(key) for key in item), default=0)
    indent = " " * (width + 2)
    lines = []
    for key, value in item.items():
        first, *more = _plain(value).split("\n")
        lines.append(f"{key.ljust(width)}  {first}")
        lines.extend(indent + line if line else "" for line in more)
    return "\n".join(lines)


def _plain(value: Any) -> str:
    if value is None:
        return "-"
    if isinstance(value, list):
        return ", ".join(safe(str(part)) for part in value) or "-"
    return safe(str(value))


def safe(text: str) -> str:
    """Text with every character that could drive the terminal or reorder the text shown as an
    escape (\\x1b, \\u009b, \\u202e…). Newlines and tabs stay: they are how text is laid out."""
    return _UNSAFE.sub(lambda match: match.group().encode("unicode_escape").decode("ascii"), text)
