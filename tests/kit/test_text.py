"""The kit's text rules: how a message echoes what the user gave, and the one-line form a state
file keeps, read the same by Python, pydantic's regex engine and the JSON Schemas."""

from __future__ import annotations

import os
import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import BaseModel, Field, ValidationError

from agentic_kit.text import (
    STORED_LINE_OR_EMPTY_PATTERN,
    STORED_LINE_PATTERN,
    quoted,
    shortened,
    undecodable_byte,
)


@pytest.mark.parametrize(
    ("value", "shown"),
    [
        ("td_1", "'td_1'"),
        ("it's", '"it\'s"'),
        ("\x1b[2J", "'\\x1b[2J'"),
        (os.fsdecode(b"a\xffb"), "'a\\xffb'"),  # a byte that was not UTF-8, as a path shows it
        ("a\\udcffb", "'a\\\\udcffb'"),  # the six characters \udcff typed as text stay as typed
        ("\ud800", "'\\ud800'"),  # a lone surrogate that was never a byte
    ],
)
def test_quoted_shows_a_value_as_repr_does_but_bytes_as_bytes(value: str, shown: str) -> None:
    assert quoted(value) == shown


def test_quoted_cuts_a_long_value_short_and_says_how_long_it_was() -> None:
    shown = quoted("td_" + "1" * 40_000)
    assert shown == "'td_" + "1" * 56 + "…' (40003 characters)"
    assert quoted("x" * 60) == "'" + "x" * 60 + "'"


def test_shortened_keeps_short_text_and_cuts_long_text_to_its_limit() -> None:
    assert shortened("abc", 3) == "abc"
    assert shortened("abcd", 3) == "ab…"


class Line(BaseModel):
    text: str = Field(pattern=STORED_LINE_PATTERN)


class LineOrEmpty(BaseModel):
    text: str = Field(pattern=STORED_LINE_OR_EMPTY_PATTERN)


def every_version_wrote(text: str) -> bool:
    """What every version's input check let into a one-line field: trimmed, not empty, no control
    character (Unicode's category Cc)."""
    return text == text.strip() != "" and not any(
        ord(char) < 0x20 or 0x7F <= ord(char) <= 0x9F for char in text
    )


def pydantic_accepts(model: type[BaseModel], text: str) -> bool:
    try:
        model(text=text)
    except ValidationError:
        return False
    return True


EDGES = st.sampled_from(
    [" ", "\t", "\n", "\x85", "\xa0", "\u2028", "\u3000", "\u202e", "\x1b", "a", "é", "\ufeff"]
)


@settings(max_examples=400, derandomize=True)
@given(st.lists(st.one_of(EDGES, st.characters()), max_size=6).map("".join))
def test_a_stored_line_is_what_every_version_wrote_for_python_and_pydantic_alike(text: str) -> None:
    expected = every_version_wrote(text)
    assert bool(re.fullmatch(STORED_LINE_PATTERN, text)) == expected
    assert pydantic_accepts(Line, text) == expected
    assert pydantic_accepts(LineOrEmpty, text) == (expected or text == "")


@pytest.mark.parametrize(
    ("text", "named"),
    [
        ("", None),
        ("plain ASCII", None),
        ("é, ✓ and 𝄞", None),  # non-ASCII, a character past the BMP too
        (os.fsdecode(b"a\xffb"), "0xff"),  # a byte that was not UTF-8
        ("é" + os.fsdecode(b"\x80"), "0x80"),
        ("\ud800x" + os.fsdecode(b"\xff"), "U+D800"),  # the first, a surrogate that was never a byte
        ("x\udfff", "U+DFFF"),
    ],
)
def test_undecodable_byte_names_the_first_byte_that_was_not_utf8(text: str, named: str | None) -> None:
    assert undecodable_byte(text) == named


@settings(max_examples=400, derandomize=True)
@given(st.text(st.one_of(st.characters(), st.characters(min_codepoint=0xD800, max_codepoint=0xDFFF))))
def test_undecodable_byte_finds_the_first_surrogate_wherever_it_is(text: str) -> None:
    """The encoder finds the first surrogate (the one code point UTF-8 cannot encode), as a search
    for one does."""
    first = next((character for character in text if 0xD800 <= ord(character) <= 0xDFFF), None)
    expected = None if first is None else undecodable_byte(first)
    assert undecodable_byte(text) == expected
    assert (expected is None) == (re.search("[\ud800-\udfff]", text) is None)
