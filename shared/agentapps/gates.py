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
from collections.abc import Iterable, Sequence
from pathlib import Path

from agentic_kit.errors import AppError, ErrorCode

from .manifest import AppManifest

SUITE_ROOT = Path(__file__).resolve().parents[2]
TRUSTED_ROOTS_ENV = "AGENTAPPS_TRUSTED"


def trust_level(package_root: Path) -> str:
    """bundled: ships in this suite's checkout; trusted: under a folder named in AGENTAPPS_TRUSTED;
    untrusted: anywhere else, until the user approves a call."""
    resolved = package_root.resolve()
    if resolved.is_relative_to(SUITE_ROOT) and (SUITE_ROOT / "shared" / "agentapps").is_dir():
        return "bundled"
    trusted = [
        Path(entry).resolve() for entry in os.environ.get(TRUSTED_ROOTS_ENV, "").split(os.pathsep) if entry
    ]
    if any(resolved.is_relative_to(root) for root in trusted):
        return "trusted"
    return "untrusted"


def require_trust(package_roots: Iterable[Path], approved: bool) -> None:
    """The trust rule, for every command that runs package code: CONFIRMATION_REQUIRED, before
    anything runs, when a package is untrusted and the call is not approved."""
    untrusted = [str(root) for root in package_roots if trust_level(root) == "untrusted"]
    if untrusted and not approved:
        raise AppError(
            ErrorCode.CONFIRMATION_REQUIRED,
            f"{', '.join(untrusted)}: untrusted, so running its code needs the user's approval.",
            f"Ask the user, then run again with --approve (or add its folder to {TRUSTED_ROOTS_ENV}).",
            details={"gate": "trust", "untrusted": untrusted},
        )


def needs_confirmation(args: Sequence[str], manifest: AppManifest) -> str | None:
    """The confirmationRequired entry that gates these arguments, if any. An entry gates the
    arguments when its words are their leading words, so `items` gates `items remove` too.

    USAGE_ERROR when an option, `--` included, comes before the command or inside a declared
    command path: how the app would read that is its parser's business, not the gate's."""
    if args and args[0].startswith("-"):
        raise _put_the_command_first(args[0])
    words = _leading_words(args)
    for entry in {*manifest.commands, *manifest.confirmation_required}:
        path = entry.split(" ")
        if len(words) < len(path) and path[: len(words)] == words and len(args) > len(words):
            raise _put_the_command_first(args[len(words)])
    gated = [
        entry
        for entry in manifest.confirmation_required
        if words[: len(entry.split(" "))] == entry.split(" ")
    ]
    return gated[0] if gated else None


def require_confirmation(args: Sequence[str], manifest: AppManifest, approved: bool) -> None:
    """The confirmation gate: CONFIRMATION_REQUIRED when the arguments run a command listed in
    confirmationRequired and the user did not approve it."""
    gated = needs_confirmation(args, manifest)
    if gated is not None and not approved:
        raise AppError(
            ErrorCode.CONFIRMATION_REQUIRED,
            f"{gated} is in confirmationRequired: the runtime needs the user's approval.",
            "Ask the user, then run again with --approve (the app may want its own flag too).",
            details={"gate": "confirmation", "command": gated},
        )


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
