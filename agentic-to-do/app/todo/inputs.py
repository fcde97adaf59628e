"""Checks on what the user typed; each returns the clean value or raises VALIDATION_ERROR.

They run before the state is touched, so bad input never even takes the lock.
"""

from __future__ import annotations

from datetime import datetime

from agentic_kit.dates import DUE_FORMATS, parse_bound, parse_due
from agentic_kit.errors import validation_error
from agentic_kit.ids import check_id
from agentic_kit.text import check_text

from .models import DESCRIPTION_MAX_CHARS, ID_PREFIX, TITLE_MAX_CHARS


def check_title(title: str) -> str:
    return check_text("title", title, max_chars=TITLE_MAX_CHARS, required=True, single_line=True)


def check_description(description: str) -> str:
    return check_text("description", description, max_chars=DESCRIPTION_MAX_CHARS)


def check_due(due_at: str) -> str:
    try:
        return parse_due(due_at)
    except ValueError:
        raise validation_error(f"--due-at {due_at!r} is not a valid date.", f"Use {DUE_FORMATS}.") from None


def check_bound(option: str, value: str) -> datetime:
    try:
        return parse_bound(value)
    except ValueError:
        raise validation_error(f"{option} {value!r} is not a valid date.", f"Use {DUE_FORMATS}.") from None


def check_item_id(item_id: str) -> str:
    return check_id(ID_PREFIX, item_id)
