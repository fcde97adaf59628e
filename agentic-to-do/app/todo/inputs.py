"""Checks on the to-do's own fields; the kit's `inputs` has the shared ones (dates, files)."""

from __future__ import annotations

import re

from agentic_kit.errors import validation_error
from agentic_kit.ids import check_id
from agentic_kit.inputs import check_text
from agentic_kit.tags import check_filter_tags as check_tags_carried
from agentic_kit.text import quoted

from .models import (
    DESCRIPTION_MAX_CHARS,
    ID_PREFIX,
    REPEAT_MAX_DAYS,
    REPEAT_PATTERN,
    TITLE_MAX_CHARS,
    TodoState,
)

_REPEAT = re.compile(REPEAT_PATTERN)


def check_title(title: str) -> str:
    return check_text(
        "title",
        title,
        max_chars=TITLE_MAX_CHARS,
        required=True,
        single_line=True,
        longer_text="--description",
    )


def check_description(description: str) -> str:
    return check_text("description", description, max_chars=DESCRIPTION_MAX_CHARS)


def check_item_id(item_id: str) -> str:
    return check_id(ID_PREFIX, item_id)


def check_repeat(rule: str) -> str:
    """A repeat rule exactly as the model keeps it: daily, weekly, monthly, yearly or every:<N>d."""
    if _REPEAT.fullmatch(rule) is None:  # fullmatch: `$` alone would let a final newline pass
        raise validation_error(
            f"--repeat {quoted(rule)} is not a rule: give daily, weekly, monthly, yearly or every:<N>d "
            f"(N days, 1 to {REPEAT_MAX_DAYS}, in ASCII digits).",
            _repeat_hint(rule),
        )
    return rule


def check_filter_tags(tags: list[str], state: TodoState) -> None:
    """A filter's tag that starts with `-` and that no item carries is refused (the kit's check)."""
    check_tags_carried(tags, (item.tags for item in state.items), "items")


# A count of days or weeks written another way: every:3, every 3 days, 3d, every 2 weeks.
_COUNTED = re.compile(r"(?:every)?[\s:_-]*([0-9]+)\s*(d|days?|w|wks?|weeks?)?", re.IGNORECASE)


def _repeat_hint(rule: str) -> str:
    """The rule meant, when the value holds its count (`every:3` is every:3d): a hint that keeps
    the user's number; otherwise an example of each form."""
    counted = _COUNTED.fullmatch(rule.strip()) if rule.isascii() else None
    if counted is not None and len(counted[1]) <= len(str(REPEAT_MAX_DAYS)):  # int() of any length is slow
        days = int(counted[1]) * (7 if (counted[2] or "d")[0].lower() == "w" else 1)
        if 1 <= days <= REPEAT_MAX_DAYS:
            return f"Give it as --repeat every:{days}d (every {days} day{'s' if days > 1 else ''})."
    return "For example --repeat weekly, or --repeat every:14d for every two weeks."
