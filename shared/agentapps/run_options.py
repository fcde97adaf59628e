"""The runtime's own options typed after `--` (`agentapps run PKG -- list --timeout 5`): every word
after `--` is the app's, so they reach the app, which refuses them as options it does not have.
When it does (a USAGE_ERROR), and its command, as its `describe` says, takes no option of that
name, the refusal's hint names the call that works: those options before `--`
(`agentapps run PKG --timeout 5 -- list`). The app's document is relayed with only its hint
changed. A command that takes an option of that name gets it as every argument after `--`, and
a package without `describe` gets its refusal relayed as it is: what it takes cannot be told.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from agentic_kit.errors import ErrorCode
from agentic_kit.hints import shell_word

from .environment import NAME

# Each option of `run` and whether it takes a value (`--human` has a gate of its own: gates.py).
REPEATABLE = {"--env"}
RUNTIME_OPTIONS: Mapping[str, bool] = {
    "--approve": False,
    "--timeout": True,
    "--max-output": True,
    "--env": True,
}
DESCRIBE = "describe"


@dataclass(frozen=True)
class Misplaced:
    """A runtime option typed among the app's arguments: where, as typed, and its value."""

    option: str
    start: int  # its index in the arguments
    end: int  # past its value
    value: str | None  # None: a flag, or no value followed


def mentions_runtime_options(args: Sequence[str]) -> bool:
    """Whether any word before a `--` of the app's reads as a runtime option (cheap: no describe)."""
    words = list(args)
    words = words[: words.index("--")] if "--" in words else words
    return any(word.split("=", 1)[0] in RUNTIME_OPTIONS for word in words)


def refused_as_usage(document: Any, status: int) -> bool:
    error = document.get("error") if isinstance(document, dict) and document.get("ok") is False else None
    return status == 2 and isinstance(error, dict) and error.get("code") == ErrorCode.USAGE_ERROR


def command_entry(args: Sequence[str], described: Sequence[Any]) -> Mapping[str, Any] | None:
    """The described command the arguments start with: the longest name whose words lead them."""
    entries = [each for each in described if isinstance(each, dict) and isinstance(each.get("name"), str)]
    matching = [each for each in entries if list(args[: len(each["name"].split())]) == each["name"].split()]
    return max(matching, key=lambda each: len(each["name"].split()), default=None)


def misplaced_options(args: Sequence[str], entry: Mapping[str, Any]) -> list[Misplaced]:
    """The runtime options among the command's words, as the command reads them: a value of one of
    its own options is skipped, `--` ends the reading, and an option the command has is its own."""
    own = {
        str(option.get("name")): option.get("type") != "flag"
        for option in entry.get("options") or []
        if isinstance(option, dict)
    }
    found: list[Misplaced] = []
    index = len(str(entry["name"]).split())
    while index < len(args):
        word = args[index]
        name, equals, value = word.partition("=")
        if word == "--":
            break
        if name in own:
            index += 2 if own[name] and not equals else 1
            continue
        if name in RUNTIME_OPTIONS and name not in own:
            takes = RUNTIME_OPTIONS[name]
            if takes and not equals:
                given = args[index + 1] if index + 1 < len(args) and args[index + 1] != "--" else None
                end = index + (2 if given is not None else 1)
            else:
                given, end = (value if equals else None), index + 1
            found.append(Misplaced(name, index, end, given))
            index = end
            continue
        index += 1
    return found


def runtime_hint(
    program: str,
    package: str,
    args: Sequence[str],
    command: str,
    found: Sequence[Misplaced],
    given: Sequence[tuple[str, str | None]] = (),
) -> str:
    """The hint naming the runtime's options and the call with them before `--`; in words only
    when one of them has no value (a call would hold a placeholder). `given`: the options the
    call gave before `--` (each with its value), which the call keeps; one that takes a single
    value and was typed after `--` too keeps the value typed there."""
    names = list(dict.fromkeys(each.option for each in found))
    one = len(names) == 1
    whose = (
        f"{' and '.join(names)} {'is an option' if one else 'are options'} of {program} run, not of {command}"
    )
    if any(RUNTIME_OPTIONS[each.option] and each.value is None for each in found):
        values = "its value" if one else "their values"
        return f"{whose}: give {'it' if one else 'them'} before `--`, with {values}."
    assignments: list[str] = []
    moved = {each.option for each in found}
    runtime: list[str] = []
    for option, value in given:
        if option in moved and option not in REPEATABLE:
            continue
        runtime += [option] if value is None else [option, value]
    for each in found:
        if each.value is None:
            runtime.append(each.option)
        elif each.option == "--env" and NAME.fullmatch(each.value.partition("=")[0]) and "=" in each.value:
            # `--env` names a variable; its value is set in the environment the call runs in.
            name, _, value = each.value.partition("=")
            assignments.append(f"{name}={shell_word(value)}")
            runtime += [each.option, name]
        else:
            runtime += [each.option, each.value]
    taken = {index for each in found for index in range(each.start, each.end)}
    rest = [word for index, word in enumerate(args) if index not in taken]
    call = " ".join(
        [
            *assignments,
            program,
            "run",
            shell_word(package),
            *map(shell_word, runtime),
            "--",
            *map(shell_word, rest),
        ]
    )
    return f"{whose}: give {'it' if one else 'them'} before `--`: `{call}`."


def with_runtime_hint(document: dict[str, Any], hint: str) -> dict[str, Any]:
    return {**document, "error": {**document["error"], "hint": hint}}
