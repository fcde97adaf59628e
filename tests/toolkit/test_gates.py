"""The runtime's gates (gates.py) and the environment a package sees (environment.py), as data:
which argument lists a confirmation gate stops, which it refuses, and which variables pass."""

from __future__ import annotations

from pathlib import Path

import pytest

from agentapps.environment import check_names, package_environment
from agentapps.errors import ToolkitError
from agentapps.gates import needs_confirmation, require_trust, trust_level
from agentapps.manifest import AppManifest
from agentic_kit.errors import AppError

from .conftest import FIXTURES, SUITE


def manifest(commands: list[str], confirmation: list[str]) -> AppManifest:
    return AppManifest.model_validate(
        {
            "name": "Gate",
            "description": "A manifest for the gate tests.",
            "version": "1",
            "entry": "true",
            "commands": commands,
            "skills": [],
            "confirmationRequired": confirmation,
        }
    )


FLAT = manifest(["add", "list", "remove"], ["remove"])
PATHS = manifest(["items add", "items list", "items remove", "items"], ["items remove"])
GROUP = manifest(["items add", "items remove"], ["items"])


@pytest.mark.parametrize(
    ("declared", "args", "gated"),
    [
        (FLAT, ["remove", "td_0001", "--confirm"], "remove"),
        (FLAT, ["remove"], "remove"),
        (FLAT, ["list", "remove"], None),  # "remove" is list's argument here, not the command
        (FLAT, ["add", "--title", "remove"], None),
        (FLAT, ["nope", "remove"], None),
        (FLAT, [], None),
        (PATHS, ["items", "remove", "it_1", "--confirm"], "items remove"),
        (PATHS, ["items", "list"], None),
        (PATHS, ["items"], None),
        (GROUP, ["items", "add", "x"], "items"),  # an entry gates every path it begins
        (FLAT, ["REMOVE", "td_0001"], "remove"),  # an app may match commands in any case
        (PATHS, ["items", "Remove", "it_1"], "items remove"),
        # Compatibility forms too (NFKC, then casefold), as ſ already folds to s: fullwidth
        # letters, ligatures.
        (FLAT, ["ＲＥＭＯＶＥ", "td_0001"], "remove"),
        (PATHS, ["ｉｔｅｍｓ", "remove", "it_1"], "items remove"),
        (PATHS, ["items", "ｒｅｍｏｖｅ"], "items remove"),
        (manifest(["stop", "list"], ["stop"]), ["ＳTOP"], "stop"),
        (manifest(["stop", "list"], ["stop"]), ["ſtop"], "stop"),
        (manifest(["stop", "list"], ["stop"]), ["ﬆop"], "stop"),
        (FLAT, ["add", "Buy milk"], None),  # whitespace in an argument, not in a command word
        (PATHS, ["items", "--limit", "5"], None),  # an option after a whole declared command
        (FLAT, ["list", "--limit", "5"], None),
        (FLAT, ["--help"], None),  # no command: nothing to gate
        (FLAT, ["-h"], None),
        (FLAT, ["--version"], None),  # the app's version: nothing runs
        # A gated command needs approval whatever follows it: an app that ignores a stray flag
        # would run it, and the runtime never guesses how the app parses options.
        (FLAT, ["remove", "--help"], "remove"),
        (FLAT, ["remove", "-h"], "remove"),
        (FLAT, ["REMOVE", "--help"], "remove"),
        (PATHS, ["items", "remove", "-h"], "items remove"),
        (PATHS, ["items", "--help"], None),
        (GROUP, ["items", "--help"], "items"),
        (manifest(["items add", "items remove"], ["items remove"]), ["items", "--help"], None),
        (FLAT, ["add", "--", "--human"], None),  # after `--` it is a value
        (GROUP, ["items", "--all", "add"], "items"),  # whatever follows, "items" gates it
    ],
)
def test_the_confirmation_gate_keys_on_the_leading_words(
    declared: AppManifest, args: list[str], gated: str | None
) -> None:
    assert needs_confirmation(args, declared) == gated


@pytest.mark.parametrize(
    ("declared", "args", "first"),
    [
        (FLAT, ["--", "remove", "td_0001", "--confirm"], "--"),
        (FLAT, ["--human", "remove", "td_0001", "--confirm"], "--human"),
        (FLAT, ["-v", "list"], "-v"),
        (PATHS, ["items", "--all", "remove", "it_1"], "--all"),
        (PATHS, ["items", "--", "remove", "it_1"], "--"),
        (PATHS, ["items", "--limit", "5", "remove", "it_1"], "--limit"),  # "remove" may continue the path
        (PATHS, ["items", "--limit", "5", "ＲＥＭＯＶＥ", "it_1"], "--limit"),
        (FLAT, ["--help", "remove"], "--help"),
        (FLAT, ["-h", "remove"], "-h"),
        (FLAT, ["--version", "remove", "td_0001"], "--version"),
    ],
)
def test_anything_before_the_command_is_refused(declared: AppManifest, args: list[str], first: str) -> None:
    with pytest.raises(AppError) as raised:
        needs_confirmation(args, declared)
    assert (raised.value.code, raised.value.exit_status) == ("USAGE_ERROR", 2)
    assert raised.value.message == f"{first!r} comes before the command: put the command first."


def test_trust_is_where_the_package_is(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("AGENTAPPS_TRUSTED")
    assert trust_level(SUITE / "agentic-to-do") == "bundled"
    # A test fixture stands for someone else's package, some broken on purpose: never bundled.
    assert trust_level(FIXTURES / "valid-package") == "untrusted"
    assert trust_level(FIXTURES / "deletes-without-confirmation") == "untrusted"
    assert trust_level(tmp_path / "pkg") == "untrusted"
    monkeypatch.setenv("AGENTAPPS_TRUSTED", f"/nowhere:{tmp_path}")
    assert trust_level(tmp_path / "pkg") == "trusted"


def test_the_trust_gate_names_every_untrusted_package(tmp_path: Path) -> None:
    require_trust([FIXTURES / "valid-package", tmp_path / "a"], approved=True)
    with pytest.raises(ToolkitError) as raised:
        require_trust([FIXTURES / "valid-package", tmp_path / "a", tmp_path / "b"], approved=False)
    assert (raised.value.code, raised.value.exit_status) == ("CONFIRMATION_REQUIRED", 5)
    assert raised.value.details == {"gate": "trust", "untrusted": [str(tmp_path / "a"), str(tmp_path / "b")]}


CALLER = {
    "PATH": "/usr/bin",
    "HOME": "/home/u",
    "USER": "u",
    "LANG": "C.UTF-8",
    "LC_ALL": "C.UTF-8",
    "LC_TIME": "en_GB.UTF-8",
    "TZ": "Europe/Paris",
    "TMPDIR": "/tmp/u",
    "TERM": "xterm",
    "SHELL": "/bin/sh",
    "AGENTIC_STATE_DIR": "/state",
    "AWS_SECRET_ACCESS_KEY": "secret",
    "GITHUB_TOKEN": "ghp_secret",
    "PYTHONPATH": "/evil",
    "LD_PRELOAD": "/evil.so",
}


def test_a_package_sees_the_allow_list_and_nothing_else() -> None:
    assert package_environment(source=CALLER) == {
        key: CALLER[key]
        for key in ("PATH", "HOME", "USER", "LANG", "LC_ALL", "LC_TIME", "TZ", "TMPDIR", "TERM", "SHELL")
    } | {"AGENTIC_STATE_DIR": "/state"}


def test_named_variables_pass_and_unset_ones_are_left_out() -> None:
    chosen = package_environment(["GITHUB_TOKEN", "NOT_SET"], source=CALLER)
    assert chosen["GITHUB_TOKEN"] == "ghp_secret"
    assert "NOT_SET" not in chosen
    assert "AWS_SECRET_ACCESS_KEY" not in chosen


def test_check_and_replay_pin_their_own_agentic_settings() -> None:
    chosen = package_environment(
        source=CALLER, inherit_agentic=False, overrides={"AGENTIC_NOW": "2026-04-01"}
    )
    assert "AGENTIC_STATE_DIR" not in chosen
    assert chosen["AGENTIC_NOW"] == "2026-04-01"


@pytest.mark.parametrize("name", ["A=b", "", "1ABC", "A B", "-x"])
def test_env_takes_names_only(name: str) -> None:
    with pytest.raises(AppError) as raised:
        check_names([name])
    assert (raised.value.code, raised.value.exit_status) == ("VALIDATION_ERROR", 3)


@pytest.mark.parametrize(
    ("declared", "args", "word"),
    [
        (FLAT, ["rm x"], "rm x"),
        (PATHS, ["items remove", "it_1"], "items remove"),
        (PATHS, ["items", "remove x"], "remove x"),
    ],
)
def test_a_command_word_holding_whitespace_is_refused(
    declared: AppManifest, args: list[str], word: str
) -> None:
    """The app's parser may split it, or not: the gate cannot know which command would run."""
    with pytest.raises(AppError) as raised:
        needs_confirmation(args, declared)
    assert (raised.value.code, raised.value.exit_status) == ("USAGE_ERROR", 2)
    assert raised.value.message.startswith(f"{word!r} is not a command word")


@pytest.mark.parametrize("args", [["add", "x", "--human"], ["add", "--human", "x", "--", "y"]])
def test_human_before_the_end_of_options_is_refused(args: list[str]) -> None:
    """The runtime relays JSON: text would break the contract after the command had run."""
    with pytest.raises(AppError) as raised:
        needs_confirmation(args, FLAT)
    assert (raised.value.code, raised.value.exit_status) == ("USAGE_ERROR", 2)
    assert raised.value.message.startswith("--human asks the app for text")


def test_only_absolute_folders_in_agentapps_trusted_count(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("AGENTAPPS_TRUSTED", ".:pkg:")
    assert trust_level(tmp_path / "pkg") == "untrusted"
