"""How large agentic-to-do's `list` answer can be, as APP.md states it: at most 122,300 bytes an
item (a 500-character title of 4-byte characters, a 20,000-character description of control
characters that JSON writes as six bytes each), and 3,200 with `--excerpt`."""

from __future__ import annotations

from agentapps.harness import AppRunner

ENVELOPE_BYTES = 50  # {"ok":true,"command":"list","count":N,"items":[…]} around the items
ITEM_BYTES = 122_300
EXCERPT_ITEM_BYTES = 3_200
ITEMS = 3


def _add_worst_items(todo: AppRunner) -> None:
    for number in range(1, ITEMS + 1):
        title = "😀" * 500  # 2,000 bytes of UTF-8
        description = "\x01" * 20_000  # `\u0001` in JSON: 120,000 bytes
        assert todo.run("add", title, "--description", description, "--due-at", "2026-04-05T09:00:00Z").ok
        assert todo.run("complete", f"td_{number:04d}").ok


def test_a_list_of_the_largest_items_stays_within_the_documented_bound(todo: AppRunner) -> None:
    _add_worst_items(todo)
    size = len(todo.run("list").stdout.encode())
    assert ITEMS * 120_000 < size <= ENVELOPE_BYTES + ITEMS * ITEM_BYTES


def test_excerpt_keeps_a_list_of_the_largest_items_small(todo: AppRunner) -> None:
    _add_worst_items(todo)
    listed = todo.run("list", "--excerpt")
    assert len(listed.stdout.encode()) <= ENVELOPE_BYTES + ITEMS * EXCERPT_ITEM_BYTES
    assert [len(item["description"]) for item in listed.items] == [161] * ITEMS  # 160 and the …
