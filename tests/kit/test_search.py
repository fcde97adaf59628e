"""The kit's search, shared by notes and to-do, and the excerpt every notes list shows (excerpts.py:
its fast path agrees with the plain definition on any text): matching with and without accents."""

from __future__ import annotations

from dataclasses import dataclass, field

from hypothesis import given, settings
from hypothesis import strategies as st

from agentic_kit import excerpts, search


def plain_excerpt(body: str) -> str:
    collapsed = " ".join(body.split())
    return collapsed if len(collapsed) <= 160 else collapsed[:160].rstrip() + "…"


@settings(max_examples=400, derandomize=True)
@given(
    st.lists(
        st.sampled_from(
            ["a", "bc", " ", "  ", "\n", "\t", "é", "☕", "\r\n", "word ", "\u00a0", "\u3000", "\x1c", "\x00"]
        ),
        max_size=120,
    ).map("".join)
    | st.text(max_size=300)
)
def test_the_excerpt_is_the_collapsed_body_cut_to_160_characters(body: str) -> None:
    assert excerpts.excerpt(body) == plain_excerpt(body)


def test_every_whitespace_character_but_the_space_is_unprintable() -> None:
    """What the excerpt's fast path stands on: a printable text holds no whitespace but spaces."""
    spaces = [chr(code) for code in range(0x110000) if chr(code).isspace()]
    assert [space for space in spaces if space.isprintable()] == [" "]


@dataclass
class Entity:
    title: str
    tags: list[str] = field(default_factory=list)
    text: str = ""


def found(entities: list[Entity], query: str) -> list[str]:
    hits = search.search(entities, query.split(), lambda entity: entity.text)
    return [hit.title for hit in hits]


def test_folding_accents_matches_both_ways_and_ignores_case() -> None:
    entities = [Entity("Café au lait"), Entity("CAFE noir"), Entity("Tea", text="crème brûlée")]
    assert found(entities, "cafe") == ["Café au lait", "CAFE noir"]
    assert found(entities, "CAFÉ") == ["Café au lait", "CAFE noir"]
    assert found(entities, "creme BRULEE") == ["Tea"]


def test_compatibility_forms_decomposed_accents_and_case_folding_all_match() -> None:
    entities = [Entity("ＡＢＣ report"), Entity("Jose\u0301 Nu\u0301n\u0303ez"), Entity("Straße 5")]
    assert found(entities, "abc") == ["ＡＢＣ report"]
    assert found(entities, "josé núñez") == ["Jose\u0301 Nu\u0301n\u0303ez"]
    assert found(entities, "strasse") == ["Straße 5"]
    assert found(entities, "ﬁve") == []  # the ligature folds to "five", found nowhere


def test_letters_whose_mark_is_their_own_match_their_plain_letters() -> None:
    """Found by a day trial: "soren" did not find "Søren", as ø has no decomposition to drop."""
    entities = [Entity("Call Søren"), Entity("Æsop's fables"), Entity("Łódź trip"), Entity("Þórr")]
    assert found(entities, "soren") == ["Call Søren"]
    assert found(entities, "SØREN") == ["Call Søren"]
    assert found(entities, "aesop") == ["Æsop's fables"]
    assert found(entities, "lodz") == ["Łódź trip"]
    assert found(entities, "thorr") == ["Þórr"]
    shown = search.snippet("x" * 100 + " ask Søren about the æther " + "y" * 300, ["aether"])
    assert "æther" in shown


def test_a_snippet_starts_before_a_match_found_only_once_folded() -> None:
    body = "x" * 100 + " Meet José Núñez tomorrow " + "y" * 300
    shown = search.snippet(body, ["nunez"])
    assert shown.startswith("…")
    assert "José Núñez" in shown


def test_every_term_must_match_and_title_matches_rank_before_tag_matches_before_text() -> None:
    entities = [
        Entity("plan", text="dentist appointment"),
        Entity("call", tags=["dentist"], text="appointment"),
        Entity("dentist appointment"),
        Entity("dentist", text="no"),
    ]
    assert found(entities, "dentist appointment") == [
        "dentist appointment",
        "call",
        "plan",
    ]


@settings(max_examples=300, derandomize=True)
@given(st.text(max_size=40), st.text(max_size=12))
def test_a_term_folded_is_found_in_any_text_that_holds_it(text: str, term: str) -> None:
    if term.strip() and " " not in term and term in text:
        assert found([Entity("t", text=text)], term) == ["t"]
