"""What text may hold, and how any text is made printable.

The character classes are written as regex escapes that Python's `re`, pydantic's (Rust) regex
and JSON Schema all read the same way.
"""

from __future__ import annotations

import re

# Characters that change how the text around them is laid out or ordered on screen: line and
# paragraph separators, and the bidi controls (ALM, LRM, RLM, LRE…RLO, LRI…PDI).
LAYOUT_CONTROLS = r"\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069"

# What a one-line field (a title, a label) refuses: every control character, newline included,
# and the layout controls above, which could make one line pose as several or read backwards.
NOT_ONE_LINE = re.compile(rf"[\x00-\x1f\x7f-\x9f{LAYOUT_CONTROLS}]")

# A byte that was not UTF-8 (in argv, a path or the environment) reaches Python as a lone
# surrogate, which no UTF-8 output can carry.
_LONE_SURROGATE = re.compile(r"[\ud800-\udfff]")


def undecodable_byte(text: str) -> str | None:
    """The first byte in the text that was not UTF-8, as `0xff`; None when there is none."""
    match = _LONE_SURROGATE.search(text)
    if match is None:
        return None
    code = ord(match.group())
    return f"0x{code - 0xDC00:02x}" if 0xDC80 <= code <= 0xDCFF else f"U+{code:04X}"


def printable(text: str) -> str:
    """The text with every byte that was not UTF-8 shown as \\xNN, so it can always be printed."""
    return _LONE_SURROGATE.sub(_show_surrogate, text)


def _show_surrogate(match: re.Match[str]) -> str:
    code = ord(match.group())
    return f"\\x{code - 0xDC00:02x}" if 0xDC80 <= code <= 0xDCFF else f"\\u{code:04x}"
