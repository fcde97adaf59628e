"""Checks on the to-do's own fields; the kit's `inputs` has the shared ones (dates, files)."""

from __future__ import annotations

from agentic_kit.ids import check_id
from agentic_kit.inputs import check_text

from .models import DESCRIPTION_MAX_CHARS, ID_PREFIX, TITLE_MAX_CHARS


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
