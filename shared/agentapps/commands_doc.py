"""The Commands section of a package's APP.md, written from what `describe` says of each command,
so the signatures an agent reads are the ones the CLI parses (as projects generate `--help` text
into their docs).

`agentapps sync` rewrites what stands between BEGIN and END; an APP.md without the two markers is
left alone (a package may write its Commands section by hand). A command's signature is its
arguments (`<id>`, `<id>...` when repeatable, `<a|b>` for a choice), then each option: `--flag`,
`--name <name>` (`<n>` for a number, `<path>|-` for a file or stdin), or `--name a|b|c` for a choice; in
brackets unless required, `...` when repeatable. A command that needs confirmation shows
`--confirm` bare, as it cannot run without it. Under it stands the command's summary.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

BEGIN = "<!-- commands: written from describe by agentapps sync -->"
END = "<!-- end of commands -->"

Command = Mapping[str, Any]
# How a value of each described type is shown; a string is shown by the option's name.
_METAVARS = {"integer": "<n>", "path": "<path>|-"}


def _option_word(option: Mapping[str, Any]) -> str:
    name = str(option["name"])
    if option["type"] == "flag":
        word = name
    elif option.get("choices"):
        word = f"{name} {'|'.join(str(choice) for choice in option['choices'])}"
    elif option["type"] in _METAVARS:
        word = f"{name} {_METAVARS[option['type']]}"
    else:
        word = f"{name} <{name.lstrip('-')}>"
    return word


def signature(command: Command) -> str:
    """`name <argument>... [--option <option>]...`, as described."""
    words = [str(command["name"])]
    for argument in command["arguments"]:
        shown = "|".join(str(choice) for choice in argument.get("choices") or ()) or argument["name"]
        word = f"<{shown}>" + ("..." if argument["repeatable"] else "")
        words.append(word if argument["required"] else f"[{word}]")
    for option in command["options"]:
        word = _option_word(option)
        bare = option["required"] or (command["confirmationRequired"] and option["name"] == "--confirm")
        word = word if bare else f"[{word}]"
        words.append(word + ("..." if option["repeatable"] else ""))
    return " ".join(words)


def commands_block(described: Sequence[Command], order: Sequence[str]) -> str:
    """The generated block, markers included: one subsection per command, in `order` (the
    frontmatter's `commands`), each a signature and its summary."""
    by_name = {str(command["name"]): command for command in described}
    parts = [BEGIN, ""]
    for name in order:
        command = by_name[name]
        parts += [f"### `{signature(command)}`", str(command["summary"]), ""]
    parts.append(END)
    return "\n".join(parts)


def with_commands(text: str, described: Sequence[Command], order: Sequence[str]) -> str | None:
    """`text` (an APP.md) with its generated block rewritten; None when it has no markers."""
    found = re.search(re.escape(BEGIN) + r".*?" + re.escape(END), text, flags=re.DOTALL)
    if found is None:
        return None
    return text[: found.start()] + commands_block(described, order) + text[found.end() :]


def named_in(text: str) -> dict[str, set[str]]:
    """What each `### \\`command ...\\`` heading of an APP.md names: its arguments and options."""
    named: dict[str, set[str]] = {}
    for heading in re.findall(r"^### `([^`]+)`", text, flags=re.MULTILINE):
        name, _, words = heading.partition(" ")
        # An option's value (`--limit <n>`, `--sort a|b`, `--file <path>|-`) is not an argument.
        words = re.sub(r"(--[a-z][a-z0-9-]*) (?:<[^>]+>(?:\|-)?|[\w-]+(?:\|[\w-]+)+)", r"\1", words)
        options = set(re.findall(r"(?<![\w-])--[a-z][a-z0-9-]*", words))
        arguments = {f"<{word}>" for word in re.findall(r"<([a-z][a-z0-9-]*)>", words)}
        named[name] = options | arguments
    return named


def described_names(described: Sequence[Command]) -> dict[str, set[str]]:
    """What `describe` says each command takes: `--option` and `<argument>`."""
    return {
        str(command["name"]): {str(option["name"]) for option in command["options"]}
        | {f"<{argument['name']}>" for argument in command["arguments"]}
        for command in described
    }
