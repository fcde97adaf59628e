"""The runtime's gates (gates.py) and the environment a package sees (environment.py), as data:
which argument lists a confirmation gate stops, which it refuses, and which variables pass."""

from __future__ import annotations

from pathlib import Path

import pytest

from agentapps.environment import check_names, package_environment
from agentapps.gates import needs_confirmation, require_trust, trust_level
from agentapps.manifest import AppManifest
from agentic_kit.errors import AppError

from .conftest import FIXTURES


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
    ],
)
def test_anything_before_the_command_is_refused(declared: AppManifest, args: list[str], first: str) -> None:
    with pytest.raises(AppError) as raised:
        needs_confirmation(args, declared)
    assert (raised.value.code, raised.value.exit_status) == ("USAGE_ERROR", 2)
    assert raised.value.message == f"{first!r} comes before the command: put the command first."


def test_trust_is_where_the_package_is(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    assert trust_level(FIXTURES / "valid-package") == "bundled"
    assert trust_level(tmp_path / "pkg") == "untrusted"
    monkeypatch.setenv("AGENTAPPS_TRUSTED", f"/nowhere:{tmp_path}")
    assert trust_level(tmp_path / "pkg") == "trusted"


def test_the_trust_gate_names_every_untrusted_package(tmp_path: Path) -> None:
    require_trust([FIXTURES / "valid-package", tmp_path / "a"], approved=True)
    with pytest.raises(AppError) as raised:
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
