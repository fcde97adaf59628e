"""What an agent loads when it activates a package stays small, and the Commands section of each
APP.md says exactly what `describe` says: every command, argument and option, and no other."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from agentapps.commands_doc import BEGIN, END, described_names, named_in, signature, with_commands
from agentapps.harness import AppRunner
from agentapps.manifest import read_body
from agentapps.sync import stale_files, sync

SUITE = Path(__file__).resolve().parents[2]
PACKAGES = ["agentic-to-do", "agentic-notes", "agentic-timer"]
PACKAGE_BUDGET = 8192  # bytes of activation text per package (issue 28)
SUITE_BUDGET = 20_000  # the three packages together


def activation_bytes(package: str) -> int:
    """Bytes of the text `agentapps activate` hands an agent: the APP.md body and every listed
    SKILL.md body."""
    agentapps = os.path.join(os.path.dirname(sys.executable), "agentapps")
    completed = subprocess.run(
        [agentapps, "activate", str(SUITE / package)], capture_output=True, text=True, check=True
    )
    item = json.loads(completed.stdout)["item"]
    return len(item["body"].encode()) + sum(len(skill["body"].encode()) for skill in item["skills"])


def test_each_package_and_the_three_together_fit_the_budget() -> None:
    sizes = {package: activation_bytes(package) for package in PACKAGES}
    assert {package: size for package, size in sizes.items() if size > PACKAGE_BUDGET} == {}
    assert sum(sizes.values()) <= SUITE_BUDGET, sizes


def described(app: AppRunner) -> list[dict[str, Any]]:
    commands: list[dict[str, Any]] = app.run("describe").item["commands"]
    return commands


def test_app_md_names_exactly_what_describe_knows(app: AppRunner) -> None:
    named = named_in(read_body(app.package.root / "APP.md"))
    assert named == described_names(described(app))


RUNNER_OPTIONS = {"--human", "--help", "--version"}  # the runner's, on every command: not described


def test_every_option_app_md_names_anywhere_is_one_describe_knows(app: AppRunner) -> None:
    """Not only the headings: an option named in prose that no command takes would mislead too."""
    known = {option["name"] for command in described(app) for option in command["options"]}
    named = set(re.findall(r"(?<![\w-])--[a-z][a-z0-9-]*", read_body(app.package.root / "APP.md")))
    assert named - known - RUNNER_OPTIONS == set()


def test_the_commands_section_is_the_generated_one(app: AppRunner) -> None:
    text = (app.package.root / "APP.md").read_text(encoding="utf-8")
    assert BEGIN in text
    assert END in text
    assert Path("APP.md") not in stale_files(app.package.root), "run `agentapps sync` and commit"


OPTION = {"required": False, "repeatable": False, "choices": None}


def test_a_signature_shows_each_kind_of_argument_and_option() -> None:
    command = {
        "name": "remove",
        "confirmationRequired": True,
        "arguments": [{"name": "id", "required": True, "repeatable": True}],
        "options": [
            {**OPTION, "name": "--confirm", "type": "flag"},
            {**OPTION, "name": "--tag", "type": "string", "repeatable": True},
            {**OPTION, "name": "--sort", "type": "string", "choices": ["a", "b"]},
            {**OPTION, "name": "--limit", "type": "integer"},
            {**OPTION, "name": "--file", "type": "path", "required": True},
        ],
    }
    assert signature(command) == (
        "remove <id>... --confirm [--tag <tag>]... [--sort a|b] [--limit <n>] --file <path>|-"
    )
    assert named_in(f"### `{signature(command)}`\n") == described_names([command])


def test_a_heading_naming_an_unknown_option_or_missing_one_is_told_apart() -> None:
    known = described_names([{"name": "get", "arguments": [{"name": "id"}], "options": []}])
    assert named_in("### `get <id> --verbose`\n") != known
    assert named_in("### `get`\n") != known
    assert named_in("### `get <id>`\n") == known


@pytest.mark.parametrize("text", ["# APP\n", f"{BEGIN}\n", f"{END}\n{BEGIN}\n"])
def test_an_app_md_without_both_markers_in_order_is_left_alone(text: str) -> None:
    assert with_commands(text, [], []) is None


def test_the_generated_block_replaces_only_what_stands_between_the_markers() -> None:
    command = {
        "name": "get",
        "summary": "Fetch one.",
        "confirmationRequired": False,
        "arguments": [{"name": "id", "required": True, "repeatable": False}],
        "options": [],
    }
    text = f"# A\n\n## Commands\n\n{BEGIN}\nold text\n{END}\n\nafter\n"
    assert with_commands(text, [command], ["get"]) == (
        f"# A\n\n## Commands\n\n{BEGIN}\n\n### `get <id>`\nFetch one.\n\n{END}\n\nafter\n"
    )


def test_sync_rewrites_a_commands_section_edited_by_hand_and_nothing_else(tmp_path: Path) -> None:
    package = tmp_path / "agentic-timer"
    shutil.copytree(SUITE / "agentic-timer", package, ignore=shutil.ignore_patterns("state", "__pycache__"))
    app_md = package / "APP.md"
    original = app_md.read_text(encoding="utf-8")
    edited = original.replace("### `pause <id>`", "### `pause <id> [--force]`").replace(
        "## Purpose", "## Purpose\n\nA line of the author's own."
    )
    app_md.write_text(edited, encoding="utf-8")
    assert Path("APP.md") in stale_files(package)
    done = sync(package)
    assert list(done.write) == [Path("APP.md")]
    assert app_md.read_text(encoding="utf-8") == original.replace(
        "## Purpose", "## Purpose\n\nA line of the author's own."
    )
    assert stale_files(package) == []
