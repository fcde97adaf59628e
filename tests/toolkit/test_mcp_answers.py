"""`agentapps mcp`: every tool answer fits the documented bound (MAX_ANSWER_BYTES), list-like
tools page, and an answer that cannot be paged is refused saying whether the call took effect."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from mcp import ClientSession

from agentapps.mcp_server import MAX_ANSWER_BYTES, PAGE_LIMIT
from tests.states import document, encode, open_todo
from tests.toolkit.conftest import SUITE
from tests.toolkit.test_mcp import run

TODO = [str(SUITE / "agentic-to-do")]
NOTES = [str(SUITE / "agentic-notes")]
MOMENT = "2026-03-01T00:00:00.000Z"


def todo_state(tmp_path: Path, count: int, description: str = "") -> None:
    """`count` open to-dos, each with `description`, written as the state file the app keeps."""
    items = [
        open_todo(number, f"Write section {number}", MOMENT) | {"description": description}
        for number in range(1, count + 1)
    ]
    (tmp_path / "state").mkdir()
    (tmp_path / "state" / "todos.json").write_bytes(encode(document("agentic-to-do", items)))


async def answer(session: ClientSession, tool: str, arguments: dict[str, Any]) -> tuple[bool, Any, int]:
    """(isError, structured content, bytes of the text) of one call."""
    result = await session.call_tool(tool, arguments)
    text = result.content[0].text  # type: ignore[union-attr]
    if not result.is_error:  # an answer's text is its document; an error's is `CODE: message`
        assert json.loads(text) == result.structured_content
    return bool(result.is_error), result.structured_content, len(text.encode())


def test_a_988_item_list_pages_within_the_bound_and_every_item_is_reached(tmp_path: Path) -> None:
    """At 988 to-dos the app's whole list is far over any client's cap: over MCP a list answers
    PAGE_LIMIT items with excerpts, the total, and the next offset; following nextOffset reaches
    every item once, in order."""
    todo_state(tmp_path, 988, "A long description, said again and again. " * 40)

    async def scenario(session: ClientSession) -> None:
        failed, first, size = await answer(session, "agentic_to_do__list", {})
        assert not failed
        assert size <= MAX_ANSWER_BYTES
        assert (first["count"], first["total"], first["offset"], first["nextOffset"]) == (
            PAGE_LIMIT,
            988,
            0,
            50,
        )
        assert "agentic_to_do__list" in first["hint"]
        assert "offset: 50" in first["hint"]
        assert all(len(item["description"]) <= 161 for item in first["items"])  # excerpts by default
        ids, offset = [], 0
        while True:
            failed, page, size = await answer(
                session, "agentic_to_do__list", {"offset": offset, "limit": 200}
            )
            assert not failed
            assert size <= MAX_ANSWER_BYTES
            assert page["total"] == 988
            ids += [item["id"] for item in page["items"]]
            if "nextOffset" not in page:
                break
            offset = page["nextOffset"]
        assert ids == [f"td_{number:04d}" for number in range(1, 989)]

    run(tmp_path, scenario, TODO)


def test_a_page_asked_for_past_the_bound_is_cut_to_fit_and_says_where_to_go_on(tmp_path: Path) -> None:
    """Full descriptions and a limit past the total: the page holds what fits, and the rest is
    one nextOffset away; a limit of 1e16 is a whole number, read as one, never a schema error."""
    todo_state(tmp_path, 300, "x" * 600)

    async def scenario(session: ClientSession) -> None:
        for limit in (1000, 1e16):
            failed, page, size = await answer(
                session, "agentic_to_do__list", {"excerpt": False, "limit": limit}
            )
            assert not failed
            assert size <= MAX_ANSWER_BYTES
            assert 0 < page["count"] < 300
            assert page["nextOffset"] == page["count"]
            assert all(len(item["description"]) == 600 for item in page["items"])  # not cut
        failed, last, _ = await answer(session, "agentic_to_do__list", {"offset": 290})
        assert not failed
        assert (last["count"], last["total"]) == (10, 300)
        assert "nextOffset" not in last
        assert "hint" not in last
        failed, past, _ = await answer(session, "agentic_to_do__list", {"offset": 5000})
        assert not failed
        assert (past["count"], past["items"], past["total"]) == (0, [], 300)

    run(tmp_path, scenario, TODO)


def test_search_pages_too(tmp_path: Path) -> None:
    todo_state(tmp_path, 120)

    async def scenario(session: ClientSession) -> None:
        failed, found, _ = await answer(session, "agentic_to_do__search", {"words": "section", "offset": 100})
        assert not failed
        assert (found["count"], found["total"], found["offset"]) == (20, 120, 100)

    run(tmp_path, scenario, TODO)


def test_an_export_is_whole_never_a_page_of_a_backup(tmp_path: Path) -> None:
    """An export is a backup: over MCP it answers every item, as the CLI would, with no paging
    arguments (a page of a backup restores as a smaller list without a word)."""
    todo_state(tmp_path, 60)

    async def scenario(session: ClientSession) -> None:
        tools = {tool.name: tool for tool in (await session.list_tools()).tools}
        assert tools["agentic_to_do__export"].input_schema.get("properties", {}) == {}
        failed, exported, size = await answer(session, "agentic_to_do__export", {})
        assert not failed
        assert size <= MAX_ANSWER_BYTES
        assert [item["id"] for item in exported["items"]] == [f"td_{n:04d}" for n in range(1, 61)]
        assert (exported["schemaVersion"], exported["nextId"]) == (2, 61)
        assert not {"offset", "nextOffset", "total", "hint"} & set(exported)
        failed, refused, _ = await answer(session, "agentic_to_do__export", {"offset": 50})
        assert failed
        assert refused["error"]["code"] == "VALIDATION_ERROR"

    run(tmp_path, scenario, TODO)


def test_an_export_over_the_bound_is_refused_pointing_at_the_cli(tmp_path: Path) -> None:
    """An export too large for one tool answer is refused whole, as ANSWER_TOO_LARGE, with a hint
    to run it through the CLI to a file; nothing changed, and it is never silently cut."""
    todo_state(tmp_path, 300, "A long description, said again and again. " * 10)
    before = (tmp_path / "state" / "todos.json").read_bytes()

    async def scenario(session: ClientSession) -> None:
        failed, refused, size = await answer(session, "agentic_to_do__export", {})
        assert failed
        assert size <= MAX_ANSWER_BYTES
        error = refused["error"]
        assert error["code"] == "ANSWER_TOO_LARGE"
        assert error["details"]["mayHaveTakenEffect"] is False
        assert error["details"]["bytes"] > MAX_ANSWER_BYTES
        assert f"agentapps run {SUITE / 'agentic-to-do'} -- export > export.json" in error["hint"]
        assert "items" not in refused

    run(tmp_path, scenario, TODO)
    assert (tmp_path / "state" / "todos.json").read_bytes() == before


def test_a_negative_offset_or_limit_is_refused_naming_the_argument(tmp_path: Path) -> None:
    todo_state(tmp_path, 3)

    async def scenario(session: ClientSession) -> None:
        for name in ("offset", "limit"):
            failed, refused, _ = await answer(session, "agentic_to_do__list", {name: -1})
            assert failed
            assert refused["error"]["code"] == "VALIDATION_ERROR"
            assert refused["error"]["message"].startswith(f"{name}: -1")

    run(tmp_path, scenario, TODO)


def test_an_answer_over_the_bound_that_cannot_be_paged_says_whether_it_took_effect(tmp_path: Path) -> None:
    """A write whose answer is too large took effect (the app said ok): it is a success, never a
    tool error a client would retry into a second item (found by an outside review), with the
    values that do not fit left out and said to be; the item is there, once. A read that is too
    large is refused as ANSWER_TOO_LARGE and changed nothing."""

    async def scenario(session: ClientSession) -> None:
        body = "é" * 20_000  # the app's longest description, 40,000 bytes of UTF-8
        failed, added, size = await answer(
            session, "agentic_to_do__add", {"title": "Big", "description": body}
        )
        assert not failed, added
        assert size <= MAX_ANSWER_BYTES
        assert (added["ok"], added["command"]) == (True, "add")
        assert added["cut"]["leftOut"] == ["item"]
        assert added["cut"]["bound"] == MAX_ANSWER_BYTES
        assert added["cut"]["bytes"] > MAX_ANSWER_BYTES
        assert "agentic_to_do__get" in added["cut"]["hint"]
        failed, listed, _ = await answer(session, "agentic_to_do__list", {})
        assert [item["title"] for item in listed["items"]] == ["Big"]
        failed, read, _ = await answer(session, "agentic_to_do__get", {"id": listed["items"][0]["id"]})
        assert failed
        assert read["error"]["code"] == "ANSWER_TOO_LARGE"
        assert read["error"]["details"]["mayHaveTakenEffect"] is False

    run(tmp_path, scenario, TODO)


def test_a_write_of_many_items_too_large_to_answer_is_a_success_not_an_error(tmp_path: Path) -> None:
    """Found by an outside review: `complete` of 150 items succeeded but answered isError, and a
    retry errored the same way. It answers ok, with what fits (the count) and the items left out."""
    todo_state(tmp_path, 150, description="d" * 200)

    async def scenario(session: ClientSession) -> None:
        ids = [f"td_{number:04d}" for number in range(1, 151)]
        failed, done, size = await answer(session, "agentic_to_do__complete", {"id": ids})
        assert not failed, done
        assert size <= MAX_ANSWER_BYTES
        assert done["ok"] is True
        assert "items" in done["cut"]["leftOut"]
        _, listed, _ = await answer(session, "agentic_to_do__list", {"status": "completed", "limit": 200})
        assert listed["total"] == 150

    run(tmp_path, scenario, TODO)


def test_a_refused_argument_of_any_size_is_answered_within_the_bound(tmp_path: Path) -> None:
    """Found by an outside review: the input-schema refusals repeated the value or key in full
    (a 300,000-character priority, an array of 100,000 titles, 5,000 unknown keys): answers of up
    to 1.4 MB. Each now names what was given, shortened, well within the bound; nothing is added."""

    async def scenario(session: ClientSession) -> None:
        calls: list[dict[str, Any]] = [
            {"title": "x", "k" * 200_000: 1},
            {"title": "x", **{f"key{number}": 1 for number in range(5_000)}},
            {"title": list(range(100_000))},
            {"title": "x", "priority": "p" * 300_000},
        ]
        for arguments in calls:
            failed, refused, size = await answer(session, "agentic_to_do__add", arguments)
            assert failed
            assert refused["error"]["code"] == "VALIDATION_ERROR"
            assert size <= 2_000, (size, refused["error"]["message"][:200])
            assert len(json.dumps(refused)) <= 2_000
        failed, listed, _ = await answer(session, "agentic_to_do__list", {})
        assert listed["count"] == 0

    run(tmp_path, scenario, TODO)


@pytest.mark.parametrize("mode", [[], ["--cold"]])
def test_a_nul_in_an_argument_is_refused_naming_it_warm_and_cold(tmp_path: Path, mode: list[str]) -> None:
    """Found by an outside review: no command line can carry a NUL, yet over MCP one came through
    to the app warm (to-do stored it; notes answered INTERNAL_ERROR), and cold it was a Python
    ValueError relayed as INTERNAL_ERROR. It is VALIDATION_ERROR naming the argument, both ways,
    and nothing is added."""

    async def scenario(session: ClientSession) -> None:
        for tool, arguments, name in [
            ("agentic_to_do__add", {"title": "x", "description": "a\x00b"}, "description"),
            ("agentic_notes__add", {"title": "x", "body": "a\x00b"}, "body"),
            ("agentic_to_do__add", {"title": "a\x00b"}, "title"),
        ]:
            failed, refused, _ = await answer(session, tool, arguments)
            assert failed
            assert refused["error"]["code"] == "VALIDATION_ERROR", refused
            assert refused["error"]["message"].startswith(f"{name}: "), refused
            assert "NUL" in refused["error"]["message"]
        for tool in ("agentic_to_do__list", "agentic_notes__list"):
            _, listed, _ = await answer(session, tool, {})
            assert listed["count"] == 0

    run(tmp_path, scenario, [*mode, *TODO, *NOTES])


def test_a_word_too_long_for_a_command_line_is_refused_cold_not_blamed_on_the_package(tmp_path: Path) -> None:
    """Found by an outside review: cold, a 200 KB note body (the app takes 1 MiB) could not start
    the app ("Argument list too long") and was CONTRACT_VIOLATION, blaming the package. It is
    VALIDATION_ERROR saying the word is too long for a command line; warm, the body is saved."""

    async def scenario(session: ClientSession) -> None:
        failed, refused, _ = await answer(
            session, "agentic_notes__add", {"title": "x", "body": "b" * 200_000}
        )
        assert failed
        assert refused["error"]["code"] == "VALIDATION_ERROR", refused
        assert "command line" in refused["error"]["message"]
        _, listed, _ = await answer(session, "agentic_notes__list", {})
        assert listed["count"] == 0

    run(tmp_path, scenario, ["--cold", *NOTES])


def test_an_unknown_argument_given_null_is_refused_as_unknown(tmp_path: Path) -> None:
    """Found by an outside review: `export` given `{"limit": null}` was answered, though export
    takes no limit: null meant "not given" for every name, known or not. A known argument given
    null is still not given (a strict-schema client sends one for each it leaves out); an unknown
    one is refused, as it is with any other value."""

    async def scenario(session: ClientSession) -> None:
        failed, refused, _ = await answer(session, "agentic_to_do__export", {"limit": None})
        assert failed
        assert refused["error"]["code"] == "VALIDATION_ERROR"
        assert refused["error"]["message"].startswith("limit: not an argument of export"), refused
        failed, added, _ = await answer(
            session, "agentic_to_do__add", {"title": "x", "due_at": None, "tag": None}
        )
        assert not failed, added
        assert (added["item"]["title"], added["item"]["dueAt"]) == ("x", None)

    run(tmp_path, scenario, TODO)
