"""The stored tags' own rules (tag_problem), as a state's load applies them to every entity: one
word each, unique and sorted, lowercase and printable, in ASCII and beyond it alike."""

from __future__ import annotations

import pytest

from agentic_kit.tags import tag_problem

UNSORTED = "the tags of td_0001 are not unique and sorted"
NOT_LOWERCASE = "the tags of td_0001 are not all lowercase"
NOT_PRINTABLE = (
    "a tag of td_0001 holds a character no tag may hold (a control, format or separator character)"
)


@pytest.mark.parametrize(
    ("tags", "problem"),
    [
        ([], None),
        (["work"], None),
        (["2026", "a-b", "work"], None),
        (["a", "straße", "éclair"], None),
        (["b", "a"], UNSORTED),
        (["a", "a"], UNSORTED),
        (["Work"], NOT_LOWERCASE),
        (["Work", "a"], NOT_LOWERCASE),  # a capital among several (sorted: "W" comes before "a")
        (["a", "École"], NOT_LOWERCASE),  # beyond ASCII
        (["a", "ǅ"], NOT_LOWERCASE),  # a titlecase letter lowers to another
        (["A\u200b"], NOT_LOWERCASE),  # lowercase is said before printable, as it always was
        (["a", "b\u200bc"], NOT_PRINTABLE),  # a zero-width space beside an ASCII tag
        (["a", "b\xadc"], NOT_PRINTABLE),
        (["a\ue000"], NOT_PRINTABLE),
    ],
)
def test_each_rule_of_the_stored_tags_is_said_in_its_order(tags: list[str], problem: str | None) -> None:
    assert tag_problem("td_0001", tags) == problem
