"""A list command's payload: `--limit` answers the first items and says how many matched, and a
command that renders its items (a timer's figures, a note's excerpt) renders only those answered."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from agentic_kit.envelope import limited_payload


def recording_render() -> tuple[Callable[[int], dict[str, int]], list[int]]:
    """A render that notes each item it is given, and the list it notes them in."""
    rendered: list[int] = []

    def render(number: int) -> dict[str, int]:
        rendered.append(number)
        return {"n": number}

    return render, rendered


def test_without_a_limit_every_item_is_rendered_and_no_total_is_said() -> None:
    render, rendered = recording_render()
    assert limited_payload([3, 1, 2], None, render) == {"count": 3, "items": [{"n": 3}, {"n": 1}, {"n": 2}]}
    assert rendered == [3, 1, 2]


@pytest.mark.parametrize(("limit", "answered"), [(0, []), (2, [5, 4]), (5, [5, 4, 3]), (9, [5, 4, 3])])
def test_under_a_limit_only_the_items_answered_are_rendered(limit: int, answered: list[int]) -> None:
    render, rendered = recording_render()
    payload = limited_payload([5, 4, 3], limit, render)
    assert payload == {"count": len(answered), "items": [{"n": n} for n in answered], "total": 3}
    assert rendered == answered


def test_items_given_as_they_are_printed_need_no_render() -> None:
    assert limited_payload([{"id": "a"}, {"id": "b"}], 1) == {"count": 1, "items": [{"id": "a"}], "total": 2}
