"""`check`'s sample arguments: a package whose create command validates its argument (here, an
email address) declares what check should give it under `metadata.agentapps.checkSamples`, so the
confirmation probe is aimed at a real entity; without them, `confirmation.unverified` says how to
declare them. The fixture `creates-from-an-email` refuses `add` of anything but an email."""

from __future__ import annotations

import re
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from .conftest import FIXTURES, ToolkitResult

FIXTURE = "creates-from-an-email"
SAMPLES = '    checkSamples:\n      add: ["ann@example.com"]\n'
HOW = 'metadata: {agentapps: {checkSamples: {"<command>": ["<argument>", ...]}}}'


@pytest.fixture
def package(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A trusted copy of the fixture, with its state nowhere near the fixture's own folder."""
    target = tmp_path / "packages" / FIXTURE
    shutil.copytree(FIXTURES / FIXTURE, target)
    monkeypatch.setenv("AGENTAPPS_TRUSTED", str(target.parent))
    return target


def declare(package: Path, samples: str) -> None:
    """Replace the fixture's declared samples (the lines under `agentapps:`) with `samples`."""
    app_md = package / "APP.md"
    text = app_md.read_text()
    assert SAMPLES in text
    app_md.write_text(text.replace(SAMPLES, samples))


def check(agentapps: Callable[..., ToolkitResult], package: Path, *extra: str) -> tuple[int, list[Any]]:
    result = agentapps("check", str(package), *extra)
    reports = (
        result.envelope["items"] if result.envelope["ok"] else result.envelope["error"]["details"]["items"]
    )
    return result.exit_status, [(f["rule"], f["severity"], f["message"]) for f in reports[0]["findings"]]


def test_declared_samples_aim_the_probe_at_a_created_entity(
    agentapps: Callable[..., ToolkitResult], package: Path
) -> None:
    assert check(agentapps, package) == (0, [])


def test_without_samples_the_refusal_is_unverified_and_the_finding_says_how_to_declare_them(
    agentapps: Callable[..., ToolkitResult], package: Path
) -> None:
    declare(package, "    other: {}\n")
    status, found = check(agentapps, package)
    assert status == 0
    assert [(rule, severity) for rule, severity, _ in found] == [("confirmation.unverified", "warning")]
    assert HOW in found[0][2]


def test_a_remove_that_ignores_confirm_is_caught_only_through_the_samples(
    agentapps: Callable[..., ToolkitResult], package: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("REMOVE_IGNORES_CONFIRM", "1")
    status, found = check(agentapps, package, "--env", "REMOVE_IGNORES_CONFIRM")
    assert status == 13
    assert {(rule, severity) for rule, severity, _ in found} == {("confirmation.refuses", "error")}
    assert any("remove succeeded without its confirmation" in message for _, _, message in found)
    # Without a contact to aim at, the same fault answers NOT_FOUND and stays unseen.
    declare(package, "    other: {}\n")
    status, found = check(agentapps, package, "--env", "REMOVE_IGNORES_CONFIRM")
    assert (status, [rule for rule, _, _ in found]) == (0, ["confirmation.unverified"])


def test_a_sample_the_app_refuses_is_named_in_the_finding(
    agentapps: Callable[..., ToolkitResult], package: Path
) -> None:
    declare(package, '    checkSamples:\n      add: ["not an email"]\n')
    status, found = check(agentapps, package)
    assert (status, [rule for rule, _, _ in found]) == (0, ["confirmation.unverified"])
    assert "The declared samples for add created nothing" in found[0][2]


@pytest.mark.parametrize(
    "samples",
    ['    checkSamples:\n      add: "ann@example.com"\n', "    checkSamples: [add]\n"],
    ids=["a string, not a list", "a list, not a mapping"],
)
def test_samples_of_another_shape_are_reported_and_not_used(
    agentapps: Callable[..., ToolkitResult], package: Path, samples: str
) -> None:
    declare(package, samples)
    status, found = check(agentapps, package)
    assert status == 0
    assert [(rule, severity) for rule, severity, _ in found] == [
        ("check.samples", "warning"),
        ("confirmation.unverified", "warning"),
    ]
    assert re.search(r"checkSamples must map each command to a list of strings", found[0][2])


@pytest.mark.parametrize("key", ["todo", "entry"])
def test_a_remove_without_confirmation_is_caught_whatever_key_holds_the_new_entity(
    agentapps: Callable[..., ToolkitResult], tmp_path: Path, monkeypatch: pytest.MonkeyPatch, key: str
) -> None:
    """Found by a runtime author's seed-only to-do, whose `add` answers the new item under `todo`
    (the seed names no key): check found no `item.id`, aimed remove at no entity, and passed an app
    that deletes without --confirm. The new entity's id is read from the one object of the answer
    that has one, whatever its key."""
    target = tmp_path / "packages" / "deletes-without-confirmation"
    shutil.copytree(FIXTURES / "deletes-without-confirmation", target)
    cli = target / "app" / "cli.py"
    source = cli.read_text()
    assert source.count('"command": "add", "item": item') == 1
    cli.write_text(source.replace('"command": "add", "item": item', f'"command": "add", "{key}": item'))
    monkeypatch.setenv("AGENTAPPS_TRUSTED", str(target.parent))
    status, found = check(agentapps, target)
    assert status == 13
    assert {(rule, severity) for rule, severity, _ in found} == {("confirmation.refuses", "error")}


@pytest.mark.parametrize(
    "answer",
    [
        '{"ok": True, "command": "add", "id": item["id"], "project": {"id": "inbox"}}',
        '{"ok": True, "command": "add", "item": item, "list": {"id": "inbox"}}',
    ],
)
def test_the_answers_own_id_is_taken_before_a_related_objects(
    agentapps: Callable[..., ToolkitResult], tmp_path: Path, monkeypatch: pytest.MonkeyPatch, answer: str
) -> None:
    """Found by a review of the fix above: an answer with its own `id` beside a related object
    that has one (`project.id`) aimed remove at the related id, NOT_FOUND, and passed a package
    that deletes without --confirm."""
    target = tmp_path / "packages" / "deletes-without-confirmation"
    shutil.copytree(FIXTURES / "deletes-without-confirmation", target)
    cli = target / "app" / "cli.py"
    source = cli.read_text()
    cli.write_text(source.replace('emit({"ok": True, "command": "add", "item": item})', f"emit({answer})"))
    assert cli.read_text() != source
    monkeypatch.setenv("AGENTAPPS_TRUSTED", str(target.parent))
    status, found = check(agentapps, target)
    assert status == 13
    assert {(rule, severity) for rule, severity, _ in found} == {("confirmation.refuses", "error")}


@pytest.mark.parametrize("made", ['"bad\\x00id"', '"x" * 200_000'])
def test_an_id_no_command_line_can_carry_is_no_target(
    agentapps: Callable[..., ToolkitResult], tmp_path: Path, monkeypatch: pytest.MonkeyPatch, made: str
) -> None:
    """Found by the same review: an id holding a NUL crashed check (ValueError), and one of 200 KB
    failed the package as `entry.runs`. Such an id is not aimed at: the refusal is unverified."""
    target = tmp_path / "packages" / "deletes-without-confirmation"
    shutil.copytree(FIXTURES / "deletes-without-confirmation", target)
    cli = target / "app" / "cli.py"
    source = cli.read_text()
    cli.write_text(
        source.replace(
            'emit({"ok": True, "command": "add", "item": item})',
            f'emit({{"ok": True, "command": "add", "item": {{"id": {made}}}}})',
        )
    )
    assert cli.read_text() != source
    monkeypatch.setenv("AGENTAPPS_TRUSTED", str(target.parent))
    status, found = check(agentapps, target)
    assert status == 0, found
    assert [rule for rule, _, _ in found] == ["confirmation.unverified"]
