"""Readable text for --human; the JSON envelope stays the default and the contract.

Stored text can never drive the terminal, hide in it or pose as output of its own: every control
character but newline and tab, every line or paragraph separator and bidi control, every invisible
format character (a zero-width space, a soft hyphen, a tag character…) and every byte that was not
UTF-8 is shown as an escape (\\x1b, \\u202e, \\u200b) — but for a zero-width joiner between two
pictographs, which makes one emoji of them (👩‍💻); and a value of several lines is indented under
its field, so none of its lines can read as another field. Values other than text are shown as
JSON shows them (true, null, ["a,b", "c"]), so none is ambiguous. A count agrees with its noun
(`1 item`, `2 items`), and a field the app names as a duration in milliseconds is shown by its
label and read as one (`elapsedMs 503901` is `elapsed  8m 23s`). An instant (a stored timestamp)
is shown as the user's clock reads it, in the user's zone (zones.py): 2026-11-30 20:00:00 -05:00.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from datetime import datetime
from functools import cache
from typing import Any

from . import zones
from .dates import STORED_INSTANT_PATTERN
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
_UNSAFE = rf"[\x00-\x08\x0b-\x1f\x7f-\x9f{LAYOUT_CONTROLS}{_INVISIBLE}\ud800-\udfff]"
# Pictographs a zero-width joiner joins into one emoji (the emoji blocks, symbols and dingbats);
# before the joiner may stand the emoji variation selector.
_PICTOGRAPH = r"[\u2600-\u27bf\u2b00-\u2bff\U0001f000-\U0001faff]"
_JOINER = "\u200d"


@cache
def _compiled(pattern: str) -> re.Pattern[str]:
    """The pattern, compiled when first used: the runner imports this module in every run, only
    --human needs these, and compiling them costs more than importing the rest of it."""
    return re.compile(pattern)


def render(envelope: Envelope, summary: Mapping[str, str], durations: Mapping[str, str] | None = None) -> str:
    """The envelope as text. A list shows each item on one line: the fields `summary` names, in its
    order, each as its format shows it (`{"status": "[{}]"}`); a field the item lacks, or holds
    empty, is left out. `durations` maps each field that holds milliseconds to the label it is
    shown by (`{"elapsedMs": "elapsed"}`). Each app names its own (`new_app(...,
    summary=..., durations=...)`)."""
    durations = durations or {}
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
        count = envelope["count"]
        lines = [_summary(item, summary, durations) for item in envelope["items"]]
        if "total" in envelope:
            lines.append(f"({count} of {plural(envelope['total'], 'item')})")
        else:
            lines.append(f"({plural(count, 'item')})")
        text = "\n".join(lines)
    elif "item" in envelope:
        text = _details(envelope["item"], durations)
    else:  # an answer of its own fields only (to-do's import: a count and the ids)
        text = f"({plural(envelope['count'], 'item')})" if "count" in envelope else ""
    more = [_more(key, value, summary, durations) for key, value in envelope.items() if key not in _SHOWN]
    return "\n\n".join([text, *more]) if text else "\n\n".join(more)


# The envelope's keys the text above shows; an app's own (to-do's `next`, `ids`) follow it.
_SHOWN = frozenset({"ok", "command", "item", "items", "count", "total"})


def _more(key: str, value: Any, summary: Mapping[str, str], durations: Mapping[str, str]) -> str:
    """A key an app adds to its answer, under its name: an item, or items, one line each (an
    object of them each by its key: `td_0001  td_0004  [open]  …`); an object of plain values one
    `key → value` a line (import's `ids`); a plain value beside its name."""
    if _is_item(value):
        return f"{key}:\n{_summary(value, summary, durations)}"
    if isinstance(value, list) and all(_is_item(each) for each in value):
        return "\n".join([f"{key}:", *(_summary(each, summary, durations) for each in value)])
    if isinstance(value, dict) and value and all(_is_item(each) for each in value.values()):
        lines = [f"{safe(name)}  {_summary(each, summary, durations)}" for name, each in value.items()]
        return "\n".join([f"{key}:", *lines])
    if isinstance(value, dict) and not any(isinstance(each, dict | list) for each in value.values()):
        return "\n".join([f"{key}:", *(f"{safe(name)} → {_plain(each)}" for name, each in value.items())])
    if not isinstance(value, dict | list):
        return f"{key}  {_plain(value)}"
    return f"{key}:\n{_plain(value)}"


def _is_item(value: Any) -> bool:
    return isinstance(value, dict) and "id" in value


def plural(count: int, noun: str) -> str:
    """`1 item`, `2 items`, `0 items`: the count with its noun, which agrees with it."""
    return f"{count} {noun}" if count == 1 else f"{count} {noun}s"


def duration(milliseconds: int) -> str:
    """Milliseconds as a person reads them, cut (never rounded) to the two largest units shown:
    `0s`, `750ms`, `45s`, `8m 23s`, `1h 02m`, `3d 04h`."""
    sign, ms = ("-", -milliseconds) if milliseconds < 0 else ("", milliseconds)
    seconds, minutes, hours = ms // 1000, ms // 60_000, ms // 3_600_000
    if ms == 0:
        text = "0s"
    elif ms < 1000:
        text = f"{ms}ms"
    elif seconds < 60:
        text = f"{seconds}s"
    elif minutes < 60:
        text = f"{minutes}m {seconds % 60:02d}s"
    elif hours < 24:
        text = f"{hours}h {minutes % 60:02d}m"
    else:
        text = f"{hours // 24}d {hours % 24:02d}h"
    return sign + text


def _field(key: str, value: Any, durations: Mapping[str, str]) -> tuple[str, Any]:
    """A field as shown: a duration by its label, read as one; any other as it is."""
    if key not in durations:
        return key, value
    # By its label even when null (a stopwatch's remaining), so one field keeps one name.
    is_count = isinstance(value, int) and not isinstance(value, bool)
    return durations[key], duration(value) if is_count else value


def _one_line(text: str) -> str:
    """A message on its one line: a newline or tab in it (from a path it names) is escaped too."""
    return safe(text).replace("\n", "\\n").replace("\t", "\\t")


def _summary(item: Mapping[str, Any], fields: Mapping[str, str], durations: Mapping[str, str]) -> str:
    """The item on one line: the fields the app names; an item of another shape (notes' tag
    counts) shows each of its fields by its name."""
    if not fields.keys() & item.keys():
        fields = {key: f"{key} {{}}" for key in item}
    parts = []
    for field, shown in fields.items():
        value = item.get(field)
        if value in (None, "") or value == []:
            continue
        if isinstance(value, list):  # tags: each shown as the app names it (`#home #urgent`)
            parts.append(" ".join(shown.format(safe(str(each))) for each in value))
            continue
        _, value = _field(field, value, durations)
        parts.append(shown.format(safe(_local(str(value))).replace("\n", " ")))  # a summary stays on one line
    return "  ".join(parts)


def _details(item: Mapping[str, Any], durations: Mapping[str, str]) -> str:
    """One field a line, its name first; the further lines of a value are indented under the
    value, where no field's name ever starts."""
    fields = [_field(key, value, durations) for key, value in item.items()]
    width = max((len(key) for key, _ in fields), default=0)
    indent = " " * (width + 2)
    lines = []
    for key, value in fields:
        first, *more = _plain(value).split("\n")
        lines.append(f"{key.ljust(width)}  {first}")
        lines.extend(indent + line if line else "" for line in more)
    return "\n".join(lines)


def _plain(value: Any) -> str:
    """Text as it is; anything else as JSON writes it: true, null, 3, ["a,b", "c"], and an object
    or a list of them over several lines."""
    if isinstance(value, str):
        return safe(_local(value))
    nested = isinstance(value, dict | list) and any(
        isinstance(part, dict | list) for part in (value.values() if isinstance(value, dict) else value)
    )
    return safe(json.dumps(value, ensure_ascii=False, indent=2 if nested else None))


def _local(text: str) -> str:
    """A stored instant in the user's zone; any other text as it is."""
    return (
        zones.shown(datetime.fromisoformat(text)) if _compiled(STORED_INSTANT_PATTERN).match(text) else text
    )


def safe(text: str) -> str:
    """Text with every character that could drive the terminal, reorder the text or hide in it
    shown as an escape (\\x1b, \\u009b, \\u202e, \\u200b…). Newlines and tabs stay: they are
    how text is laid out; so does a zero-width joiner inside an emoji."""
    return _compiled(_UNSAFE).sub(_escaped, text)


def _escaped(match: re.Match[str]) -> str:
    char, at, text = match.group(), match.start(), match.string
    if (
        char == _JOINER
        and 0 < at < len(text) - 1
        and (_compiled(_PICTOGRAPH).match(text, at - 1) or (text[at - 1] == "\ufe0f" and at > 1))
        and _compiled(_PICTOGRAPH).match(text, at + 1)
    ):
        return char
    return char.encode("unicode_escape").decode("ascii")
