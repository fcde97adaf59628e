"""`agentapps mcp`'s tool names and resource URIs: what every client accepts.

Claude Desktop rejects the whole tool list, and OpenAI-compatible APIs the request, when one tool
name does not match `^[a-zA-Z0-9_-]{1,64}$`; a resource URI must parse as a URI."""

from __future__ import annotations

import re
import shutil
from pathlib import Path
from typing import Any

from mcp import ClientSession
from pydantic import AnyUrl, TypeAdapter

from agentapps.catalog import discover
from agentapps.manifest import ManifestError, load_app_manifest
from agentapps.mcp_server import tool_names
from agentapps.package import Package
from tests.toolkit.conftest import FIXTURES, SUITE
from tests.toolkit.test_mcp import run

CLIENTS_PATTERN = re.compile(r"^[a-zA-Z0-9_-]{1,64}$")
# Gemini on Vertex AI: a function declaration's name starts with a letter or an underscore.
VERTEX_PATTERN = re.compile(r"^[a-zA-Z_][a-zA-Z0-9_.:-]{0,63}$")


def served_keys() -> list[tuple[str, str]]:
    """(package name, command) for every declared command of every package the suite holds (the
    three apps, the fixture packages) whose APP.md loads; of two with one name, the first, as the
    server serves them."""
    keys: list[tuple[str, str]] = []
    names: set[str] = set()
    for root in discover(
        [SUITE / "agentic-to-do", SUITE / "agentic-notes", SUITE / "agentic-timer", FIXTURES]
    ):
        try:
            manifest = load_app_manifest(root)
        except ManifestError:
            continue
        name = Package(root).name
        if name not in names:
            names.add(name)
            keys += [(name, command) for command in manifest.commands]
    return keys


def test_every_tool_of_every_package_has_a_name_every_client_accepts() -> None:
    keys = served_keys()
    assert len(keys) > 40  # the apps and the fixtures, not an empty walk
    names = tool_names(keys)
    assert sorted(names) == sorted(keys)  # none dropped
    assert len(set(names.values())) == len(keys)  # none merged
    for key, name in names.items():
        assert CLIENTS_PATTERN.match(name), (key, name)
        assert VERTEX_PATTERN.match(name), (key, name)


def test_a_name_is_the_package_and_the_command_in_letters_digits_and_underscores() -> None:
    assert tool_names(
        [("agentic-to-do", "add"), ("command-paths", "items remove"), ("agentic-notes", "due")]
    ) == {
        ("agentic-to-do", "add"): "agentic_to_do__add",
        ("command-paths", "items remove"): "command_paths__items_remove",
        ("agentic-notes", "due"): "agentic_notes__due",
    }


def test_a_name_past_64_characters_is_cut_and_given_a_stable_hash() -> None:
    long_one, long_two = "export " + "x" * 80, "export " + "x" * 79 + "y"
    keys = [("agentic-to-do", long_one), ("agentic-to-do", long_two), ("agentic-to-do", "add")]
    names = tool_names(keys)
    for key in keys[:2]:
        assert len(names[key]) == 64
        assert re.fullmatch(r"agentic_to_do__export_x+_[0-9a-f]{8}", names[key])
    assert names[keys[0]] != names[keys[1]]  # the same first 55 characters, two tools
    assert names[keys[2]] == "agentic_to_do__add"
    assert tool_names(list(reversed(keys))) == names  # the same names, whatever the order
    assert tool_names(keys[:1]) == {keys[0]: names[keys[0]]}  # a long name does not depend on others


def test_names_that_would_collide_are_all_hashed_never_dropped_or_merged() -> None:
    """`a-b` (a slug) and `a_b` (a folder's name) both read as a_b__add: neither keeps that name,
    so which is which never depends on the order the roots are found in."""
    keys = [("a-b", "add"), ("a_b", "add"), ("a-b", "items remove"), ("a-b", "items.remove"), ("a-b", "list")]
    names = tool_names(keys)
    assert len(set(names.values())) == len(keys)
    for key in keys[:4]:
        assert re.fullmatch(r"a_b__(add|items_remove)_[0-9a-f]{8}", names[key]), names[key]
    assert names[("a-b", "list")] == "a_b__list"
    assert tool_names(list(reversed(keys))) == names


def test_a_name_with_nothing_readable_is_still_a_name() -> None:
    names = tool_names([("日本", "追加"), ("日本", "削除")])
    assert len(set(names.values())) == 2
    for name in names.values():
        assert CLIENTS_PATTERN.match(name), name


def test_a_package_named_by_its_folder_has_uris_a_parser_accepts(tmp_path: Path) -> None:
    """A package without a slug is named by its folder: `my apps` → agentapp://my%20apps/APP.md,
    which a client that parses URIs accepts, and reads back. Its tools' names hold no space."""
    package = tmp_path / "packages" / "My apps v2.0"
    shutil.copytree(FIXTURES / "command-paths", package)
    app_md = package / "APP.md"
    app_md.write_text(app_md.read_text().replace("slug: command-paths\n", "", 1))
    parse: TypeAdapter[AnyUrl] = TypeAdapter(AnyUrl)

    async def scenario(session: ClientSession) -> None:
        uris = sorted(str(resource.uri) for resource in (await session.list_resources()).resources)
        assert uris == [
            "agentapp://My%20apps%20v2.0/APP.md",
            "agentapp://My%20apps%20v2.0/skills/command-paths-usage",
        ]
        for uri in uris:
            assert str(parse.validate_python(uri)) == uri
        body: Any = await session.read_resource(uris[0])
        assert body.contents[0].text.startswith("# Command Paths")
        names = sorted(tool.name for tool in (await session.list_tools()).tools)
        assert names == ["My_apps_v2_0__items_add", "My_apps_v2_0__items_list", "My_apps_v2_0__items_remove"]
        added = await session.call_tool("My_apps_v2_0__items_add", {"args": ["keep me"]})
        assert added.is_error is not True

    run(tmp_path, scenario, ["--approve", str(package)])


def test_a_long_slug_is_cut_before_the_command_and_both_stay_readable() -> None:
    """A 71-character slug with `add`: the package part is cut, `__add` is kept whole, then the
    hash; a long slug with a long command: the package keeps its first 16 characters, the command
    what fits. Every such name holds `__` between the two parts."""
    slug = "s" * 71
    long_command = "c" * 80
    names = tool_names([(slug, "add"), (slug, long_command), ("longcmd", long_command)])
    assert re.fullmatch(r"s{50}__add_[0-9a-f]{8}", names[(slug, "add")])
    assert re.fullmatch(r"s{16}__c{37}_[0-9a-f]{8}", names[(slug, long_command)])
    assert re.fullmatch(r"longcmd__c{46}_[0-9a-f]{8}", names[("longcmd", long_command)])
    for name in names.values():
        assert len(name) == 64
        assert CLIENTS_PATTERN.match(name), name


def test_a_cut_never_leaves_a_run_of_underscores_at_either_side_of_the_separator() -> None:
    """A package part cut just after a `_` (`agentic_to_do_a_`) loses it, so `__` stays the one
    separator, and the command is given the character freed."""
    [name] = tool_names([("agentic-to-do-a-" + "b" * 40, "x" * 60)]).values()
    assert "___" not in name
    assert re.fullmatch(r"agentic_to_do_a__x{38}_[0-9a-f]{8}", name), name
    assert len(name) == 64


def test_a_package_whose_name_starts_with_a_digit_gets_names_vertex_accepts() -> None:
    """Found by an outside review: a slug may start with a digit (`2do`), and `2do__list` is
    refused by Vertex AI, whose names start with a letter or an underscore. Such a package part
    is given a leading `_`; a long one keeps its hash."""
    names = tool_names([("2do", "list"), ("2do", "remove"), ("9" * 70, "add"), ("agentic-to-do", "add")])
    assert names[("2do", "list")] == "_2do__list"
    assert names[("2do", "remove")] == "_2do__remove"
    assert names[("agentic-to-do", "add")] == "agentic_to_do__add"
    for key, name in names.items():
        assert CLIENTS_PATTERN.match(name), (key, name)
        assert VERTEX_PATTERN.match(name), (key, name)
