"""Every load checks the whole state file, strictly: a file that breaks one invariant — its
encoding, a value's exact type, a field's rule, or what ties values together — is STATE_CORRUPT
for every command, says what is wrong, and is left byte for byte.

Each case breaks exactly one invariant of a small valid state (tests/states.py); the property
test in tests/reliability/test_hostile_input.py does the same to generated states.
"""

from __future__ import annotations

from collections.abc import Callable

import pytest

from agentapps.harness import AppRunner
from tests.packages import APPS
from tests.states import BREAKS, encode, example

STATE_FILE = {facts.package: facts.state_file for facts in APPS}
COMMANDS = {
    "read": {"agentic-to-do": ["list"], "agentic-notes": ["search", "a"], "agentic-timer": ["due"]},
    "write": {"agentic-to-do": ["add", "x"], "agentic-notes": ["add", "x"], "agentic-timer": ["start", "x"]},
    "change": {
        "agentic-to-do": ["complete", "td_0001"],
        "agentic-notes": ["tag", "nt_0001", "z"],
        "agentic-timer": ["stop", "tm_0001"],
    },
}
CASES = [
    (package, name)
    for package in STATE_FILE
    for name, brk in BREAKS.items()
    if brk(package, example(package)) is not None
]
# What the message says, for the breaks whose wording matters most.
SAYS = {
    "a byte-order mark": "starts with a byte-order mark",
    "UTF-16": "is UTF-16 text",
    "UTF-16 without a byte-order mark": "holds NUL bytes",
    "nested 100,000 levels deep": "is not valid JSON (recursion limit exceeded",
    "a 5,000-digit number": "is not valid JSON (number out of range",
    "an id twice": "is inconsistent: id ",
    "nextId not above the highest id": "is inconsistent: nextId 3 is not above the highest id",
    'nextId "2", a string': "does not fit the state model (nextId: Input should be a valid integer)",
    "schemaVersion 0": "(schemaVersion: Input should be greater than or equal to 1)",
    "completed without completedAt": "is inconsistent: td_0001 is completed but its completedAt is null",
    "paused without pausedAt": "is inconsistent: timer tm_0001 is paused but its pausedAt is null",
    "a title of two lines": ".0.title: 'looks done\\nstatus  completed' is not in the form the app writes",
    "a tag in capitals": "_0001 are not all lowercase",
    "updatedAt before createdAt": "_0001 has moments out of order (updatedAt",
    "completedAt before createdAt": "is inconsistent: td_0003 has moments out of order",
    "completedAt after updatedAt": "td_0003 has moments out of order (completedAt after updatedAt)",
    "an id of 0000 (the counter starts at 1)": "_0000' is not in the form the app writes",
    "a tag with a zero-width space": "_0001 holds a character no tag may hold",
    "a repeat without a due": "is inconsistent: td_0001 repeats weekly but has no due to repeat from",
    "a repeat of every 0 days": ".0.repeat: 'every:0d' is not in the form the app writes",
    "a body with a NUL": "is inconsistent: the body of nt_0001 holds a NUL character",
    "createdAt other than startedAt": "timer tm_0001 has a createdAt other than its startedAt",
    "a paused timer changed before its pause": "timer tm_0003 has moments out of order",
}


@pytest.fixture
def runner_for(app_runner: Callable[[str], AppRunner]) -> Callable[[str], AppRunner]:
    return app_runner


def test_every_break_applies_to_some_example_state() -> None:
    assert {name for _, name in CASES} == set(BREAKS)


@pytest.mark.parametrize("package", sorted(STATE_FILE))
def test_the_unbroken_example_state_loads(runner_for: Callable[[str], AppRunner], package: str) -> None:
    app = runner_for(package)
    app.state_dir.mkdir()
    app.state_file(STATE_FILE[package]).write_bytes(encode(example(package)))
    listed = app.run("list", *(["--status", "all"] if package == "agentic-timer" else []))
    assert listed.ok
    assert listed.envelope["count"] == 2


@pytest.mark.parametrize("command", sorted(COMMANDS))
@pytest.mark.parametrize(("package", "name"), CASES, ids=[f"{package}-{name}" for package, name in CASES])
def test_a_state_that_breaks_one_invariant_is_state_corrupt_and_left_byte_for_byte(
    runner_for: Callable[[str], AppRunner], package: str, name: str, command: str
) -> None:
    app = runner_for(package)
    broken = BREAKS[name](package, example(package))
    assert broken is not None
    app.state_dir.mkdir()
    path = app.state_file(STATE_FILE[package])
    path.write_bytes(broken)
    result = app.run(*COMMANDS[command][package])
    assert (result.error_code, result.exit_status) == ("STATE_CORRUPT", 8), result.envelope
    message = result.envelope["error"]["message"]
    assert message.startswith(f"State file {path} ")
    assert SAYS.get(name, "") in message
    assert path.read_bytes() == broken
    assert {entry.name for entry in app.state_dir.iterdir()} <= {path.name, path.name + ".lock"}
