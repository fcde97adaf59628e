"""Checks on text fields: required or not, single line or not, and a size limit."""

from __future__ import annotations

import unicodedata

from .errors import validation_error


def check_text(
    field: str,
    value: str,
    *,
    max_chars: int,
    required: bool = False,
    single_line: bool = False,
) -> str:
    """The value as given (a single-line field is trimmed), or VALIDATION_ERROR."""
    if single_line:
        value = value.strip()
        if any(unicodedata.category(char) == "Cc" for char in value):
            raise validation_error(f"{field} must be one line without control characters.")
    if required and not value.strip():
        raise validation_error(f"{field} must not be empty.")
    if len(value) > max_chars:
        raise validation_error(
            f"{field} is {len(value)} characters; the limit is {max_chars}.",
            f"Shorten {field}.",
        )
    return value
