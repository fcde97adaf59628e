"""How large agentic-to-do's `list` answer can be, as APP.md states it: at most 135,300 bytes an
item (a 500-character title of 4-byte characters, a 20,000-character description of control
characters that JSON writes as six bytes each, 50 tags of 64 4-byte characters, the longest
priority and repeat rule), and 16,200 with `--excerpt`."""

from __future__ import annotations

from agentapps.harness import AppRunner

ENVELOPE_BYTES = 50  # {"ok":true,"command":"list","count":N,"items":[…]} around the items
ITEM_BYTES = 135_300
EXCERPT_ITEM_BYTES = 16_200
ITEMS = 3


def _add_worst_items(todo: AppRunner) -> None:
    for _ in range(ITEMS):
        title = "😀" * 500  # 2,000 bytes of UTF-8
        description = "\x01" * 20_000  # `\u0001` in JSON: 120,000 bytes
        # 50 tags of 64 four-byte characters each (unique), the longest priority and repeat rule.
        tags = [word for k in range(50) for word in ("--tag", "😀" * 63 + chr(0x1F600 + k))]
        extra = ["--priority", "medium", "--repeat", "every:3650d", *tags]
        added = todo.run(
            "add", title, "--description", description, "--due-at", "2026-04-05T09:00:00Z", *extra
        )
        assert todo.run("complete", added.item["id"]).ok  # and its next, as large


def test_a_list_of_the_largest_items_stays_within_the_documented_bound(todo: AppRunner) -> None:
    _add_worst_items(todo)
    listed = todo.run("list")
    count, size = listed.envelope["count"], len(listed.stdout.encode())
    assert count == 2 * ITEMS
    assert count * 130_000 < size <= ENVELOPE_BYTES + count * ITEM_BYTES


def test_excerpt_keeps_a_list_of_the_largest_items_small(todo: AppRunner) -> None:
    _add_worst_items(todo)
    listed = todo.run("list", "--excerpt")
    count = listed.envelope["count"]
    assert count * 16_000 < len(listed.stdout.encode()) <= ENVELOPE_BYTES + count * EXCERPT_ITEM_BYTES
    assert [len(item["description"]) for item in listed.items] == [161] * count  # 160 and the …
