"""The excerpt every list shows: its fast path agrees with the plain definition on any text."""

from __future__ import annotations

import sys
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from agentapps.package import Package, load_entry_module

load_entry_module(Package(Path(__file__).resolve().parents[2] / "agentic-notes"))
search = sys.modules["notes.search"]


def plain_excerpt(body: str) -> str:
    collapsed = " ".join(body.split())
    return collapsed if len(collapsed) <= 160 else collapsed[:160].rstrip() + "…"


@settings(max_examples=400, derandomize=True)
@given(
    st.lists(
        st.sampled_from(["a", "bc", " ", "  ", "\n", "\t", "é", "☕", "\r\n", "word "]), max_size=120
    ).map("".join)
    | st.text(max_size=300)
)
def test_the_excerpt_is_the_collapsed_body_cut_to_160_characters(body: str) -> None:
    assert search.excerpt(body) == plain_excerpt(body)
