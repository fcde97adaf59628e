"""Every command with `--sort` gives, without it, the order its help (in describe) says: the
help names the order, and the command's answer is that order, for every app."""

from __future__ import annotations

import re
from typing import Any

import pytest

from agentapps.harness import AppRunner

from ..packages import AppFacts

CREATED_AT = {"AGENTIC_NOW": "2026-11-01T00:00:00Z"}
ASKED_AT = {"AGENTIC_NOW": "2026-12-10T00:00:00Z"}  # every item below is due by then

# What a help's "Without it: …" may say, as the --sort key it is and whether reversed.
ORDERS = {
    "creation order": ("created", False),
    "newest first": ("created", True),
    "soonest due first": ("due", False),
    "least recently changed first": ("updated", False),
}

# Three items created a, b, c, due b, c, a: creation, newest and due orders all differ.
SEEDS = {
    "agentic-to-do": [
        ("add", "a", "--due-at", "2026-11-03T00:00:00Z"),
        ("add", "b", "--due-at", "2026-11-01T12:00:00Z"),
        ("add", "c", "--due-at", "2026-11-02"),
    ],
    "agentic-notes": [
        ("add", "a", "--due-at", "2026-11-03T00:00:00Z"),
        ("add", "b", "--due-at", "2026-11-01T12:00:00Z"),
        ("add", "c", "--due-at", "2026-11-02"),
    ],
    "agentic-timer": [
        ("start", "a", "--duration", "3h"),
        ("start", "b", "--duration", "1h"),
        ("start", "c", "--duration", "2h"),
    ],
}


def _sorted_commands(app: AppRunner) -> list[tuple[str, str]]:
    """Each command with a --sort option, with the order its help says it gives without it."""
    commands: list[dict[str, Any]] = app.run("describe").item["commands"]
    found = []
    for command in commands:
        for option in command["options"]:
            if option["name"] == "--sort":
                said = re.search(r"Without it: ([^.]+)\.", option["help"])
                assert said is not None, f"{command['name']} --sort does not say its default order"
                found.append((command["name"], said.group(1)))
    return found


def _ids(app: AppRunner, *args: str) -> list[str]:
    answer = app.run(*args, env=ASKED_AT)
    assert answer.ok, answer.stdout
    return [item["id"] for item in answer.items]


def test_every_app_sorts_its_list_and_due(app: AppRunner) -> None:
    assert {name for name, _ in _sorted_commands(app)} >= {"list", "due"}


def test_the_order_without_sort_is_the_order_the_help_states(app: AppRunner, facts: AppFacts) -> None:
    for seed in SEEDS[facts.package]:
        assert app.run(*seed, env=CREATED_AT).ok
    created = _ids(app, "list", "--sort", "created")
    assert created != _ids(app, "list", "--sort", "due")  # the seeds tell the orders apart
    for command, stated in _sorted_commands(app):
        assert stated in ORDERS, f"{command}: unknown order {stated!r}"
        key, reverse = ORDERS[stated]
        expected = _ids(app, command, "--sort", key)
        assert len(expected) == 3, f"{command} should answer every seeded item"
        if reverse:
            expected.reverse()
        assert _ids(app, command) == expected, f"{facts.package} {command}: help says {stated!r}"


@pytest.mark.parametrize("stated", sorted(ORDERS))
def test_each_stated_order_is_a_key_sort_takes(stated: str) -> None:
    from agentic_kit.sorting import DEFAULT_ORDER, NEWEST_FIRST, SortKey

    assert stated in {*DEFAULT_ORDER.values(), NEWEST_FIRST}
    assert ORDERS[stated][0] in set(SortKey)
