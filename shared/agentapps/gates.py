"""The runtime's two gates, passed before any package code runs.

Trust: running a package's code is the user's decision. A package is `bundled` (it lies in this
suite's own checkout), `trusted` (under a folder named in AGENTAPPS_TRUSTED) or `untrusted`.
Every command that executes a package — run, check, replay, mcp, sync — runs an untrusted one only
when this call is approved (`--approve`); otherwise it refuses before anything runs.

Confirmation: a command listed in confirmationRequired needs the user's approval too. The command
is found by matching the declared `commands` and `confirmationRequired` entries — one word or
several (`items remove`) — against the leading words of the arguments, never by guessing how the
app parses options: an argument list that does not start with the command is refused.
"""

from __future__ import annotations

import os
import unicodedata
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from agentic_kit.errors import AppError, ErrorCode

from .errors import ToolkitError
from .manifest import AppManifest

SUITE_ROOT = Path(__file__).resolve().parents[2]
TRUSTED_ROOTS_ENV = "AGENTAPPS_TRUSTED"
HELP_FLAGS = ("--help", "-h")
# The flag by which an app's own command asks for confirmation (the kit's `Confirm`), as its
# describe names it; the runtime's approval does not pass it for the app.
APP_CONFIRM_FLAG = "--confirm"
# What an app may be given alone, with no command: it runs nothing (help text, the version).
LONE_FLAGS = (*HELP_FLAGS, "--version")


def in_checkout() -> bool:
    """Whether this toolkit runs from the suite's own checkout (not an installed wheel)."""
    return (SUITE_ROOT / "shared" / "agentapps").is_dir()


def trust_level(package_root: Path) -> str:
    """bundled: ships in this suite's checkout (its test fixtures excepted: some are broken on
    purpose), or is one of the apps an installed suite carries;
    trusted: under a folder named in AGENTAPPS_TRUSTED; untrusted: anywhere else, until the user
    approves a call."""
    from .suite import is_fixture, is_installed_app

    resolved = package_root.resolve()
    in_suite = resolved.is_relative_to(SUITE_ROOT) and in_checkout() and not is_fixture(resolved)
    if in_suite or is_installed_app(resolved):
        return "bundled"
    # Only absolute folders count: `.` would trust wherever the command happens to run.
    trusted = [
        Path(entry).resolve()
        for entry in os.environ.get(TRUSTED_ROOTS_ENV, "").split(os.pathsep)
        if os.path.isabs(entry)
    ]
    if any(resolved.is_relative_to(root) for root in trusted):
        return "trusted"
    return "untrusted"


def _approval_hint(then: str, approved_call: str | None) -> str:
    """How to approve: the call itself when the caller can say it (`run`'s --approve goes before
    `--`; after it, it is the app's own argument and approves nothing)."""
    if approved_call is None:
        return f"Ask the user, then run again with {then}."
    return f"Ask the user, then run again with --approve before `--`: `{approved_call}`."


def require_trust(package_roots: Iterable[Path], approved: bool, approved_call: str | None = None) -> None:
    """The trust rule, for every command that runs package code: CONFIRMATION_REQUIRED, before
    anything runs, when a package is untrusted and the call is not approved. `approved_call`:
    the same call approved, for the hint."""
    untrusted = [str(root) for root in package_roots if trust_level(root) == "untrusted"]
    if untrusted and not approved:
        raise ToolkitError(
            ErrorCode.CONFIRMATION_REQUIRED,
            f"{', '.join(untrusted)}: untrusted, so running its code needs the user's approval.",
            _approval_hint(f"--approve (or add its folder to {TRUSTED_ROOTS_ENV})", approved_call),
            details={"gate": "trust", "untrusted": untrusted},
        )


def needs_confirmation(args: Sequence[str], manifest: AppManifest) -> str | None:
    """The confirmationRequired entry that gates these arguments, if any. An entry gates the
    arguments when its words are their leading words, in any case (`items REMOVE` too, for an app
    that matches commands loosely), so `items` gates `items remove` too.

    USAGE_ERROR, before anything runs, when the arguments cannot be read without guessing how the
    app parses options: an option (`--` included) before the command; an option inside a
    declared command path (`items --all remove`), unless the words before it are a whole declared
    command and no later word continues a gated path (`items --limit 5` is fine); a command word
    holding whitespace (`"items remove"` as one argument); and `--human` before any `--`, which
    asks for text the runtime cannot relay. A lone `--help`, `-h` or `--version` (the app's
    version: nothing runs), or a lone `--help` or `-h` after the leading words, is not refused,
    but a gated command stays gated whatever follows it: the runtime does not guess that the app
    reads it as help."""
    if args and args[0].startswith("-") and list(args) not in ([flag] for flag in LONE_FLAGS):
        raise _put_the_command_first(args[0])
    words = _leading_words(args)
    rest = list(args[len(words) :])
    declared = [_fold(entry) for entry in {*manifest.commands, *manifest.confirmation_required}]
    gates = [_fold(entry) for entry in manifest.confirmation_required]
    folded = [_fold_word(word) for word in words]
    for index, word in enumerate(words):
        in_a_command = index == 0 or any(
            len(path) > index and path[:index] == folded[:index] for path in declared
        )
        if in_a_command and (not word or any(character.isspace() for character in word)):
            raise AppError(
                ErrorCode.USAGE_ERROR,
                f"{word!r} is not a command word: a command word is one argument, without whitespace.",
                'Give each word of the command as its own argument: `items remove`, not `"items remove"`.',
            )
    # A lone help flag after the leading words is not refused as ambiguous, but it is still gated:
    # whether the app reads it as help, or ignores it and runs the command, is the app's own.
    lone_help = len(rest) == 1 and rest[0] in (HELP_FLAGS if words else LONE_FLAGS)
    options = rest[: rest.index("--")] if "--" in rest else rest
    if "--human" in options:
        raise AppError(
            ErrorCode.USAGE_ERROR,
            "--human asks the app for text, which the runtime cannot relay: it passes on JSON only.",
            "Leave --human out; a value that reads --human goes after `--` or as `--option=--human`.",
        )
    if rest and not lone_help:
        whole = any(path == folded[: len(path)] for path in declared)
        inside = any(len(path) > len(folded) and path[: len(folded)] == folded for path in declared)
        continues_a_gate = any(
            len(path) > len(folded)
            and path[: len(folded)] == folded
            and path[len(folded)] in [_fold_word(word) for word in rest]
            for path in gates
        )
        if (inside and not whole) or continues_a_gate:
            raise _put_the_command_first(rest[0])
    gated = [
        entry
        for entry, path in zip(manifest.confirmation_required, gates, strict=True)
        if folded[: len(path)] == path
    ]
    return gated[0] if gated else None


def require_confirmation(
    args: Sequence[str], manifest: AppManifest, approved: bool, approved_call: str | None = None
) -> None:
    """The confirmation gate: CONFIRMATION_REQUIRED when the arguments run a command listed in
    confirmationRequired and the user did not approve it. `approved_call`: the same call
    approved, for the hint."""
    gated = needs_confirmation(args, manifest)
    if gated is not None and not approved:
        raise ToolkitError(
            ErrorCode.CONFIRMATION_REQUIRED,
            f"{gated} is in confirmationRequired: the runtime needs the user's approval.",
            _approval_hint("--approve (the app may want its own flag too)", approved_call),
            details={"gate": "confirmation", "command": gated},
        )


def missing_confirm_flag(args: Sequence[str], entry: Mapping[str, Any] | None) -> str | None:
    """The app's own confirmation flag when the gated command's describe `entry` has one and the
    arguments lack it (before any `--`, where it would be a value): the approved call then needs
    it too, or the app refuses what the runtime approved. None without a describe entry."""
    options = entry.get("options") if entry is not None else None
    if not isinstance(options, list):
        return None
    has_flag = any(
        isinstance(option, dict) and option.get("name") == APP_CONFIRM_FLAG and option.get("type") == "flag"
        for option in options
    )
    given = args[: list(args).index("--")] if "--" in args else args
    return APP_CONFIRM_FLAG if has_flag and APP_CONFIRM_FLAG not in given else None


def _fold(command: str) -> list[str]:
    """A command (path) as words compared without case."""
    return [_fold_word(word) for word in command.split(" ")]


def _fold_word(word: str) -> str:
    """A word as the gate compares it: NFKC, case-folded, NFKC again (Unicode's NFKC_Casefold,
    near enough), so `ＳTOP` (fullwidth) is `stop`, as `ſtop` and `STOP` are: an app that
    normalises its input could read any of them as the command."""
    return unicodedata.normalize("NFKC", unicodedata.normalize("NFKC", word).casefold())


def _leading_words(args: Sequence[str]) -> list[str]:
    words = []
    for arg in args:
        if arg.startswith("-"):
            break
        words.append(arg)
    return words


def _put_the_command_first(found: str) -> AppError:
    return AppError(
        ErrorCode.USAGE_ERROR,
        f"{found!r} comes before the command: put the command first.",
        "Give the command (all its words, for a command path) first, then its arguments and options.",
    )
