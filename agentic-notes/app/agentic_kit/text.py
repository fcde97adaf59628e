"""What text may hold, and how any text is made printable.

The character classes are written as regex escapes that Python's `re`, pydantic's (Rust) regex
and JSON Schema all read the same way.
"""

from __future__ import annotations

import re

# Characters that change how the text around them is laid out or ordered on screen: line and
# paragraph separators, and the bidi controls (ALM, LRM, RLM, LRE…RLO, LRI…PDI).
LAYOUT_CONTROLS = r"\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069"

# The control characters: C0 (newline and tab included), DEL and C1 — Unicode's category Cc.
CONTROLS = r"\x00-\x1f\x7f-\x9f"

# What a one-line field (a title, a label) refuses: every control character, newline included,
# and the layout controls above, which could make one line pose as several or read backwards.
NOT_ONE_LINE = re.compile(rf"[{CONTROLS}{LAYOUT_CONTROLS}]")

# What str.strip() removes from a one-line field, controls aside: the spaces and separators.
SPACES = r"\x20\xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000"

# A one-line field as stored: what every version's input check left (trimmed, not empty, no control
# character). Today's check refuses the layout controls inside a line too; a file an older
# version wrote may hold them, and it still loads.
_STORED_LINE = rf"[^{CONTROLS}{SPACES}](?:[^{CONTROLS}]*[^{CONTROLS}{SPACES}])?"
STORED_LINE_PATTERN = rf"^{_STORED_LINE}$"
STORED_LINE_OR_EMPTY_PATTERN = rf"^(?:{_STORED_LINE})?$"

# A byte that was not UTF-8 (in argv, a path or the environment) reaches Python as a lone
# surrogate, which no UTF-8 output can carry.
_LONE_SURROGATE = re.compile(r"[\ud800-\udfff]")

# How much of a value a message echoes: enough to recognise it, never the whole of a 40 KB one.
ECHO_MAX_CHARS = 60
# In repr's text: an escaped backslash (kept as it is), or a byte that was not UTF-8 (\udcff).
_REPR_OF_A_BYTE = re.compile(r"(\\\\)|\\udc([89a-f][0-9a-f])")


def undecodable_byte(text: str) -> str | None:
    """The first byte in the text that was not UTF-8, as `0xff`; None when there is none."""
    # A surrogate is the one code point UTF-8 cannot encode, so the encoder finds the first, at
    # C speed: a runtime asks this of every answer, a list of megabytes among them.
    if text.isascii():
        return None
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as error:
        code = ord(text[error.start])
    else:
        return None
    return f"0x{code - 0xDC00:02x}" if 0xDC80 <= code <= 0xDCFF else f"U+{code:04X}"


def printable(text: str) -> str:
    """The text with every byte that was not UTF-8 shown as \\xNN, so it can always be printed."""
    return _LONE_SURROGATE.sub(_show_surrogate, text)


def _show_surrogate(match: re.Match[str]) -> str:
    code = ord(match.group())
    return f"\\x{code - 0xDC00:02x}" if 0xDC80 <= code <= 0xDCFF else f"\\u{code:04x}"


def shortened(text: str, max_chars: int = ECHO_MAX_CHARS) -> str:
    """The text, cut to `max_chars` characters with … when it is longer."""
    return text if len(text) <= max_chars else text[: max_chars - 1] + "…"


def quoted(value: str, max_chars: int = ECHO_MAX_CHARS) -> str:
    """A value the user gave, as every message echoes it: quoted, with control characters escaped
    (as repr does), a byte that was not UTF-8 shown as \\xNN, and, past `max_chars`, cut short
    with its length said: `'td_1111…' (40003 characters)`."""
    shown = _REPR_OF_A_BYTE.sub(_byte_in_repr, repr(shortened(value, max_chars)))
    return shown if len(value) <= max_chars else f"{shown} ({len(value)} characters)"


def _byte_in_repr(match: re.Match[str]) -> str:
    return match.group(1) or f"\\x{match.group(2)}"
