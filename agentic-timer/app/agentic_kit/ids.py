"""IDs: a prefix and a counter kept in the state, so an ID is never handed out twice."""

from __future__ import annotations

import re

from .errors import validation_error


def format_id(prefix: str, number: int) -> str:
    """td_0001 … td_9999, then td_10000: four digits at least, more when needed."""
    return f"{prefix}_{number:04d}"


def check_id(prefix: str, text: str) -> str:
    """The ID as given, or VALIDATION_ERROR when it cannot be an ID of this app."""
    if not re.fullmatch(rf"{re.escape(prefix)}_\d{{4,}}", text):
        raise validation_error(
            f"{text!r} is not a valid id; ids look like {format_id(prefix, 1)}.",
            "Use an id exactly as a previous command returned it.",
        )
    return text
