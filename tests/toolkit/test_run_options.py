"""`agentapps run PKG -- list --timeout 5`: the runtime's own options typed after `--` reach the
app, which refuses them; the refusal the agent gets names the call that works, with them before
`--`, and following it does what was meant. An app whose command takes an option of that name
still gets it. Every run is a real `agentapps run` process."""

from __future__ import annotations

import json
import os
import re
import shlex
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.toolkit.conftest import SUITE

AGENTAPPS = str(Path(sys.executable).with_name("agentapps"))
NOW = "2026-04-01T00:00:00Z"


def agentapps(
    *args: str, state: Path, cwd: Path = SUITE, env: dict[str, str] | None = None
) -> tuple[int, Any]:
    environ = {**os.environ, "AGENTIC_STATE_DIR": str(state), "AGENTIC_NOW": NOW, **(env or {})}
    done = subprocess.run(
        [AGENTAPPS, *args], capture_output=True, text=True, cwd=cwd, env=environ, timeout=120
    )
    return done.returncode, json.loads(done.stdout)


def follow(hint: str, state: Path) -> tuple[int, Any]:
    """Run the hint's call as a shell would: leading NAME=VALUE words set the environment."""
    calls = re.findall(r"`([^`]+)`", hint)
    assert calls, hint
    words = shlex.split(calls[-1])
    assignments = {}
    while words and re.fullmatch(r"[A-Za-z_]\w*=.*", words[0]):
        name, _, value = words.pop(0).partition("=")
        assignments[name] = value
    assert words[:2] == ["agentapps", "run"], words
    return agentapps(*words[1:], state=state, env=assignments)


@pytest.mark.parametrize(
    ("typed", "call"),
    [
        (["list", "--timeout", "5"], "agentapps run agentic-to-do --timeout 5 -- list"),
        (
            ["list", "--status", "all", "--timeout=5"],
            "agentapps run agentic-to-do --timeout 5 -- list --status all",
        ),
        (["list", "--max-output", "100000"], "agentapps run agentic-to-do --max-output 100000 -- list"),
        (["list", "--env", "TODO_X=1"], "TODO_X=1 agentapps run agentic-to-do --env TODO_X -- list"),
        (["list", "--env", "LANG"], "agentapps run agentic-to-do --env LANG -- list"),
        (
            ["add", "call plumber", "--approve", "--tag", "home"],
            'agentapps run agentic-to-do --approve -- add "call plumber" --tag home',
        ),
    ],
)
def test_a_runtime_option_after_dashes_hints_the_runtime_call(
    tmp_path: Path, typed: list[str], call: str
) -> None:
    status, refused = agentapps("run", "agentic-to-do", "--", *typed, state=tmp_path)
    assert (status, refused["error"]["code"]) == (2, "USAGE_ERROR"), refused
    assert refused["command"] == typed[0]  # the app's own refusal, relayed
    hint = refused["error"]["hint"]
    assert "of agentapps run, not of" in hint
    assert re.findall(r"`([^`]+)`", hint)[-1] == call
    assert (
        agentapps("run", "agentic-to-do", "--", "list", "--status", "all", state=tmp_path)[1]["items"] == []
    )
    followed_status, followed = follow(hint, tmp_path)
    assert (followed_status, followed["ok"]) == (0, True), followed
    if typed[0] == "add":
        assert (followed["item"]["title"], followed["item"]["tags"]) == ("call plumber", ["home"])


def test_the_hints_call_keeps_the_runtime_options_given_before_dashes(tmp_path: Path) -> None:
    """The call keeps what was given before `--` (--approve, --env, --max-output), and one typed
    on both sides keeps the value typed after it."""
    status, refused = agentapps(
        "run",
        "agentic-to-do",
        "--approve",
        "--env",
        "LANG",
        "--timeout",
        "30",
        "--",
        "add",
        "x",
        "--timeout",
        "5",
        state=tmp_path,
    )
    assert status == 2
    hint = refused["error"]["hint"]
    call = re.findall(r"`([^`]+)`", hint)[-1]
    assert call == "agentapps run agentic-to-do --approve --env LANG --timeout 5 -- add x"
    followed_status, followed = follow(hint, tmp_path)
    assert (followed_status, followed["item"]["title"]) == (0, "x")


def test_a_runtime_option_without_its_value_is_said_in_words(tmp_path: Path) -> None:
    status, refused = agentapps("run", "agentic-timer", "--", "list", "--timeout", state=tmp_path)
    assert status == 2
    assert refused["error"]["hint"] == (
        "--timeout is an option of agentapps run, not of list: give it before `--`, with its value."
    )


def test_a_runtime_option_word_the_app_reads_as_a_value_is_left_alone(tmp_path: Path) -> None:
    """`add -- --timeout` is the title `--timeout`, and `--tag --timeout` a tag: no refusal."""
    status, added = agentapps("run", "agentic-to-do", "--", "add", "--", "--timeout", state=tmp_path)
    assert (status, added["item"]["title"]) == (0, "--timeout")
    status, tagged = agentapps("run", "agentic-to-do", "--", "add", "x", "--tag", "--timeout", state=tmp_path)
    assert (status, tagged["item"]["tags"]) == (0, ["--timeout"])
    status, listed = agentapps("run", "agentic-to-do", "--", "list", "--tag", "--timeout", state=tmp_path)
    assert (status, [item["title"] for item in listed["items"]]) == (0, ["x"])


def test_another_refusal_keeps_the_apps_own_hint(tmp_path: Path) -> None:
    """A usage error of the app's own (an unknown option that is no runtime's) is relayed as is."""
    status, refused = agentapps("run", "agentic-to-do", "--", "list", "--stat", "all", state=tmp_path)
    assert status == 2
    assert "agentapps run" not in refused["error"]["hint"]


WAITER_APP_MD = """---
name: Waiter
description: A command that takes a --timeout of its own.
version: 0.0.1
entry: python3 app/cli.py
commands: [wait, describe]
skills: []
---
"""
WAITER = """import json, sys
args = sys.argv[1:]
if args == ["describe"]:
    option = {"name": "--timeout", "type": "string", "required": False, "repeatable": False,
              "default": None, "choices": None, "help": "Seconds to wait."}
    command = {"name": "wait", "summary": "Wait.", "mutatesState": False, "confirmationRequired": False,
               "arguments": [], "options": [option]}
    print(json.dumps({"ok": True, "command": "describe", "item": {"commands": [command], "errors": []}}))
elif args[:1] == ["wait"] and args[1:2] == ["--timeout"] and len(args) == 3:
    print(json.dumps({"ok": True, "command": "wait", "item": {"timeout": args[2]}}))
else:
    error = {"code": "USAGE_ERROR", "message": "wait cannot read " + " ".join(args), "hint": "its own"}
    print(json.dumps({"ok": False, "command": "wait", "error": error}))
    sys.exit(2)
"""


def test_an_app_that_takes_the_option_gets_it(tmp_path: Path) -> None:
    root = tmp_path / "waiter"
    (root / "app").mkdir(parents=True)
    (root / "APP.md").write_text(WAITER_APP_MD)
    (root / "app" / "cli.py").write_text(WAITER)
    state = tmp_path / "state"
    status, answer = agentapps("run", str(root), "--approve", "--", "wait", "--timeout", "5", state=state)
    assert (status, answer["item"]) == (0, {"timeout": "5"})
    # Its own refusal, with an option of that name its command has, keeps its own hint.
    status, refused = agentapps(
        "run", str(root), "--approve", "--", "wait", "--timeout", "5", "x", state=state
    )
    assert (status, refused["error"]["hint"]) == (2, "its own")
