"""Readable text for --human; the JSON envelope stays the default and the contract.

Stored text can never drive the terminal, hide in it or pose as output of its own: every control
character but newline and tab, every line or paragraph separator and bidi control, every invisible
format character (a zero-width space, a soft hyphen, a tag character…) and every byte that was not
UTF-8 is shown as an escape (\\x1b, \\u202e, \\u200b) — but for a zero-width joiner between two
pictographs, which makes one emoji of them (👩‍💻); and a value of several lines is indented under
its field, so none of its lines can read as another field. Values other than text are shown as
JSON shows them (true, null, ["a,b", "c"]), so none is ambiguous.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from typing import Any

from .envelope import Envelope
from .text import LAYOUT_CONTROLS

# Characters that show nothing but change or hide text: soft hyphen, combining grapheme joiner,
# Hangul and Khmer fillers, Mongolian vowel separator, zero-width space, non-joiner and joiner,
# word joiner and invisible operators, deprecated format controls, byte-order mark, interlinear
# annotation, and the tag characters.
_INVISIBLE = (
    r"\xad\u034f\u115f\u1160\u17b4\u17b5\u180e\u200b-\u200d\u2060-\u2064\u206a-\u206f\u3164"
    r"\ufeff\uffa0\ufff9-\ufffb\U000e0000-\U000e007f"
)
# C0 and C1 controls and DEL (but not newline or tab), layout controls, invisible characters, and
# lone surrogates.
_UNSAFE = re.compile(rf"[\x00-\x08\x0b-\x1f\x7f-\x9f{LAYOUT_CONTROLS}{_INVISIBLE}\ud800-\udfff]")
# Pictographs a zero-width joiner joins into one emoji (the emoji blocks, symbols and dingbats);
# before the joiner may stand the emoji variation selector.
_PICTOGRAPH = re.compile(r"[\u2600-\u27bf\u2b00-\u2bff\U0001f000-\U0001faff]")
_JOINER = "\u200d"


def render(envelope: Envelope, summary: Mapping[str, str]) -> str:
    """The envelope as text. A list shows each item on one line: the fields `summary` names, in its
    order, each as its format shows it (`{"status": "[{}]"}`); a field the item lacks, or holds
    empty, is left out. Each app names its own (`runner.new_app(..., summary=...)`)."""
    if not envelope["ok"]:
        error = envelope["error"]
        lines = [f"Error {error['code']}: {_one_line(error['message'])}"]
        if "hint" in error:
            lines.append(f"Hint: {_one_line(error['hint'])}")
        return "\n".join(lines)
    if "help" in envelope:
        return safe(str(envelope["help"]).rstrip())
    if "version" in envelope:
        return safe(str(envelope["version"]))
    if "items" in envelope:
        shown = f"{envelope['count']} of {envelope['total']}" if "total" in envelope else None
        lines = [_summary(item, summary) for item in envelope["items"]]
        lines.append(f"({shown or envelope['count']} item{'s' if envelope['count'] != 1 else ''})")
        return "\n".join(lines)
    return _details(envelope["item"])


def _one_line(text: str) -> str:
    """A message on its one line: a newline or tab in it (from a path it names) is escaped too."""
    return safe(text).replace("\n", "\\n").replace("\t", "\\t")


def _summary(item: Mapping[str, Any], fields: Mapping[str, str]) -> str:
    parts = []
    for field, shown in fields.items():
        value = item.get(field)
        if value in (None, ""):
            continue
        parts.append(shown.format(safe(str(value)).replace("\n", " ")))  # a summary stays on one line
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
    """Text as it is; anything else as JSON writes it: true, null, 3, ["a,b", "c"], and an object
    or a list of them over several lines."""
    if isinstance(value, str):
        return safe(value)
    nested = isinstance(value, dict | list) and any(
        isinstance(part, dict | list) for part in (value.values() if isinstance(value, dict) else value)
    )
    return safe(json.dumps(value, ensure_ascii=False, indent=2 if nested else None))


def safe(text: str) -> str:
    """Text with every character that could drive the terminal, reorder the text or hide in it
    shown as an escape (\\x1b, \\u009b, \\u202e, \\u200b…). Newlines and tabs stay: they are
    how text is laid out; so does a zero-width joiner inside an emoji."""
    return _UNSAFE.sub(_escaped, text)


def _escaped(match: re.Match[str]) -> str:
    char, at, text = match.group(), match.start(), match.string
    if (
        char == _JOINER
        and 0 < at < len(text) - 1
        and (_PICTOGRAPH.match(text, at - 1) or (text[at - 1] == "\ufe0f" and at > 1))
        and _PICTOGRAPH.match(text, at + 1)
    ):
        return char
    return char.encode("unicode_escape").decode("ascii")
