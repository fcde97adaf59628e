"""The seed stays whole: every invocation of the Agentic To-Do example in the format's APP.md
reference gives what it gave before items grew tags, priority and repeat — the same keys with the
same values in the same order, new keys only after them — and a state file that version wrote
loads unchanged and is upgraded on its first write.

tests/fixtures/seed-example-session.json and tests/fixtures/todos-written-by-schema-version-1.json
were written by agentic-to-do at schema version 1 (before tags, priority and repeat), and are kept
as they came out.
"""

from __future__ import annotations

import json
import re
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from agentapps.harness import AppRunner
from tests.packages import FACTS

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
SEED_APP_MD = FIXTURES / "seed-agentic-to-do" / "APP.md"  # the seed's example, verbatim
SESSION = json.loads((FIXTURES / "seed-example-session.json").read_text())["steps"]
WRITTEN_BY_VERSION_1 = FIXTURES / "todos-written-by-schema-version-1.json"
# What schema version 2 added to every item, after the seed's keys, and their values on an item
# that never set them.
ADDED_ITEM_KEYS: dict[str, Any] = {"tags": [], "priority": None, "repeat": None}


@pytest.fixture
def todo(app_runner: Callable[[str], AppRunner]) -> AppRunner:
    return app_runner(str(FACTS["agentic-to-do"].root))


def seed_commands() -> dict[str, set[str]]:
    """Each command of the seed's example and the options its heading names."""
    headings = re.findall(r"^### `(\w+)([^`]*)`$", SEED_APP_MD.read_text(), re.MULTILINE)
    return {name: set(re.findall(r"--[a-z-]+", rest)) for name, rest in headings}


def test_the_session_runs_every_command_and_option_of_the_seeds_example() -> None:
    commands = seed_commands()
    assert set(commands) == {"add", "list", "get", "update", "complete", "remove"}
    for name, options in commands.items():
        used = {arg for step in SESSION if step["args"][0] == name for arg in step["args"]}
        assert options <= used, f"{name}: the session never gives {sorted(options - used)}"


def held(before: Any, now: Any, where: str, *, item: bool = False) -> list[str]:
    """How `now` departs from `before`: every key of before, with its value, in its order; after
    them only the keys schema version 2 added to an item, with the values of an item that never
    set them."""
    if isinstance(before, dict) and isinstance(now, dict):
        keys = list(now)
        problems = []
        if keys[: len(before)] != list(before):
            problems.append(f"{where}: keys {keys}, the seed's {list(before)} first")
        for key, value in before.items():
            if key in now:
                problems += held(value, now[key], f"{where}.{key}", item=key in ("item",))
        added = {key: now[key] for key in keys[len(before) :]}
        allowed = ADDED_ITEM_KEYS if item else {}
        if added != allowed:
            problems.append(f"{where}: after the seed's keys {added}, expected {allowed}")
        return problems
    if isinstance(before, list) and isinstance(now, list) and len(before) == len(now):
        return [
            problem
            for index, (old, new) in enumerate(zip(before, now, strict=True))
            for problem in held(old, new, f"{where}[{index}]", item=where.endswith("items"))
        ]
    return [] if before == now else [f"{where}: {now!r}, the seed's {before!r}"]


def test_every_invocation_of_the_seeds_example_still_gives_its_keys_values_and_order(todo: AppRunner) -> None:
    problems = []
    for number, step in enumerate(SESSION, 1):
        result = todo.run(*step["args"], env={"AGENTIC_NOW": step["now"]})
        where = f"step {number} ({' '.join(step['args'])})"
        if result.exit_status != step["exit"]:
            problems.append(f"{where}: exit {result.exit_status}, the seed's {step['exit']}")
        problems += held(step["envelope"], result.envelope, where)
    assert not problems, "\n".join(problems)


def test_the_comparison_sees_a_key_moved_changed_or_added() -> None:
    before = {"ok": True, "item": {"id": "td_0001", "title": "a"}}
    assert not held(before, {"ok": True, "item": {"id": "td_0001", "title": "a", **ADDED_ITEM_KEYS}}, "e")
    assert held(before, {"item": {"id": "td_0001", "title": "a", **ADDED_ITEM_KEYS}, "ok": True}, "e")
    assert held(before, {"ok": True, "item": {"title": "a", "id": "td_0001", **ADDED_ITEM_KEYS}}, "e")
    assert held(before, {"ok": True, "item": {"id": "td_0001", "title": "b", **ADDED_ITEM_KEYS}}, "e")
    assert held(before, {"ok": True, "item": {"id": "td_0001", "title": "a", "tags": ["x"]}}, "e")
    assert held(before, {"ok": True, "item": {"id": "td_0001", "title": "a"}, "extra": 1}, "e")


def install_version_1_state(todo: AppRunner) -> Path:
    todo.state_dir.mkdir(parents=True, exist_ok=True)
    path = todo.state_file("todos.json")
    shutil.copyfile(WRITTEN_BY_VERSION_1, path)
    return path


def test_a_state_file_of_version_1_loads_unchanged_and_a_read_leaves_it_as_it_is(todo: AppRunner) -> None:
    path = install_version_1_state(todo)
    written = json.loads(WRITTEN_BY_VERSION_1.read_text())
    assert written["schemaVersion"] == 1
    listed = todo.run("list")
    assert listed.ok
    assert listed.envelope["items"] == [{**item, **ADDED_ITEM_KEYS} for item in written["items"]]
    assert todo.run("get", "td_0002").item == {**written["items"][1], **ADDED_ITEM_KEYS}
    assert path.read_bytes() == WRITTEN_BY_VERSION_1.read_bytes()


def test_the_first_write_to_a_version_1_state_saves_it_as_version_2_keeping_every_item(
    todo: AppRunner,
) -> None:
    path = install_version_1_state(todo)
    written = json.loads(WRITTEN_BY_VERSION_1.read_text())
    changed = todo.run("update", "td_0003", "--tag", "Dessert", env={"AGENTIC_NOW": "2026-04-03T00:00:00Z"})
    assert changed.ok
    saved = json.loads(path.read_text())
    assert (saved["schemaVersion"], saved["nextId"]) == (2, written["nextId"])
    expected = [{**item, **ADDED_ITEM_KEYS} for item in written["items"]]
    expected[2] |= {"tags": ["dessert"], "updatedAt": "2026-04-03T00:00:00.000Z"}
    assert saved["items"] == expected
    assert [list(item) for item in saved["items"]] == [list(item) for item in expected]
    assert todo.run("add", "next").item["id"] == "td_0005"  # the counter came through too


@pytest.mark.parametrize(
    "args",
    [
        ("complete", "td_0002"),  # already completed
        ("reopen", "td_0001"),  # already open
        ("update", "td_0003", "--untag", "absent"),
        ("purge", "--completed-before", "2000-01-01", "--confirm"),  # nothing that old
    ],
    ids=lambda args: " ".join(args),
)
def test_a_command_that_changes_nothing_leaves_a_version_1_state_as_it_is(
    todo: AppRunner, args: tuple[str, ...]
) -> None:
    path = install_version_1_state(todo)
    assert todo.run(*args).ok
    assert path.read_bytes() == WRITTEN_BY_VERSION_1.read_bytes()
