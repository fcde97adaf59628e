"""The toolkit's caches (a package's schema validators, its parsed APP.md frontmatter) never hide
an edit: every step of a run reads the files again, and what a later step sees is what the files
say then, even when an edit keeps the file's size and modification time."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path
from typing import Any

import pytest

from agentapps.harness import in_process_runtime
from agentapps.output import Invocation
from agentapps.package import Package
from agentapps.replay import replay
from agentapps.scenarios import load_scenario

from .conftest import SUITE

TODO = SUITE / "agentic-to-do"


@pytest.fixture
def package(tmp_path: Path) -> Path:
    """A copy of agentic-to-do that a test may edit."""
    root = tmp_path / "agentic-to-do"
    shutil.copytree(TODO, root, ignore=shutil.ignore_patterns("state", "tests", "scenarios", "__pycache__"))
    return root


def rewrite_in_place(path: Path, old: str, new: str) -> None:
    """Replace every `old` with `new` (same length) and put the file's mtime back: only the bytes
    tell the edit apart."""
    assert len(old.encode()) == len(new.encode())
    before = path.stat()
    text = path.read_text(encoding="utf-8")
    assert old in text, f"{old!r} is not in {path}"
    path.write_text(text.replace(old, new), encoding="utf-8")
    os.utime(path, ns=(before.st_atime_ns, before.st_mtime_ns))
    after = path.stat()
    assert (after.st_size, after.st_mtime_ns) == (before.st_size, before.st_mtime_ns)


def tighten_success_schema(root: Path) -> None:
    """Every success envelope's `ok` must now be 1234: no success the app gives can fit it."""
    rewrite_in_place(root / "schemas" / "success-envelope.schema.json", '"const": true', '"const": 1234')


def test_an_edited_success_schema_is_what_the_next_package_load_checks(package: Path) -> None:
    first = in_process_runtime(package, ["list"], "", {"AGENTIC_STATE_DIR": str(package / "s1")})
    assert first.violations == []
    assert first.ok
    tighten_success_schema(package)
    second = in_process_runtime(package, ["list"], "", {"AGENTIC_STATE_DIR": str(package / "s2")})
    assert [problem.rule for problem in second.violations] == ["schemas.outputs"]
    assert "is not valid under any of the schemas listed in the 'anyOf' keyword" in str(second.violations[0])
    rewrite_in_place(package / "schemas" / "success-envelope.schema.json", '"const": 1234', '"const": true')
    third = in_process_runtime(package, ["list"], "", {"AGENTIC_STATE_DIR": str(package / "s3")})
    assert third.violations == []


def test_a_schema_edited_between_steps_of_one_replay_fails_the_later_step(
    package: Path, tmp_path: Path
) -> None:
    path = tmp_path / "scenario.json"
    step = {"args": ["list"], "expect": {"exit": 0, "match": "subset", "envelope": {"ok": True}}}
    path.write_text(
        json.dumps({"description": "two lists", "package": "agentic-to-do", "steps": [step, step, step]}),
        encoding="utf-8",
    )
    calls: list[list[str]] = []

    def runtime(root: Path, args: list[str], stdin: str, env: dict[str, str]) -> Invocation:
        calls.append(args)
        if len(calls) == 3:  # between the second step and the third
            tighten_success_schema(root)
        return in_process_runtime(root, args, stdin, env)

    report = replay(load_scenario(path), runtime, packages=package.parent)
    assert report.passed_steps == 2
    assert report.failure is not None
    assert report.failure.step == 3
    assert any("contract: envelope does not match its schema" in line for line in report.failure.differences)


def applied(package: Path) -> set[bool]:
    """The envelopes (ok or not) a fresh load of the package judges by a schema."""
    return {ok for ok, schema in Package(package).schema_validators.items() if schema.applies}


def test_a_schema_made_invalid_then_valid_again_is_judged_each_time(package: Path) -> None:
    schema = package / "schemas" / "success-envelope.schema.json"
    original = schema.read_bytes()
    assert applied(package) == {True, False}
    schema.write_text('{"type": 12}', encoding="utf-8")  # fails the metaschema: not applied
    assert applied(package) == {False}
    schema.write_bytes(original)
    assert applied(package) == {True, False}
    schema.unlink()
    assert applied(package) == {False}


@pytest.mark.parametrize(("title", "reported"), [('"a title"', True), ("12", False)])
def test_a_schema_that_fails_the_metaschema_judges_no_envelope(
    package: Path, title: str, reported: bool
) -> None:
    """A success schema that no envelope of the app fits: its mismatch is reported while the schema
    passes the metaschema, and nothing is once it does not (a title that is no string)."""
    schema = package / "schemas" / "success-envelope.schema.json"
    schema.write_text(f'{{"required": ["nope"], "title": {title}}}', encoding="utf-8")
    ran = in_process_runtime(package, ["list"], "", {"AGENTIC_STATE_DIR": str(package / "state")})
    assert ran.ok
    assert [problem.rule for problem in ran.violations] == (["schemas.outputs"] if reported else [])


def test_an_edited_app_md_is_what_the_next_package_load_reads(package: Path) -> None:
    app_md = package / "APP.md"
    assert Package(package).manifest.version == "0.1.0"
    rewrite_in_place(app_md, "version: 0.1.0", "version: 9.9.9")
    assert Package(package).manifest.version == "9.9.9"
    rewrite_in_place(app_md, "version: 9.9.9", "version: 0.1.0")
    assert Package(package).manifest.version == "0.1.0"


def test_an_app_md_edited_to_be_refused_is_refused_on_the_next_load(package: Path) -> None:
    from agentapps.manifest import ManifestError

    app_md = package / "APP.md"
    Package(package).manifest  # noqa: B018 - parsed, and so cached
    rewrite_in_place(app_md, "kind: app", "kind: [[[")
    with pytest.raises(ManifestError, match="not valid YAML"):
        Package(package).manifest  # noqa: B018
    with pytest.raises(ManifestError, match="not valid YAML"):  # a refusal is never cached away
        Package(package).manifest  # noqa: B018


def test_a_changed_manifest_does_not_change_what_the_next_load_reads(package: Path) -> None:
    first = Package(package).manifest
    commands: list[Any] = first.commands
    commands.append("not-a-command")
    first.tags = None
    second = Package(package).manifest
    assert "not-a-command" not in second.commands
    assert second.tags is not None


def test_the_schema_cache_keeps_at_most_one_largest_schemas_worth_of_bytes(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A validator holds some 50 times its file's size: the cache drops the oldest schemas once
    their files' bytes together pass the bound, and always keeps the newest."""
    from agentapps import package as package_module

    monkeypatch.setattr(package_module, "MAX_CACHED_SCHEMA_BYTES", 200)
    first, second = (json.dumps({"title": name * 120}).encode() for name in "ab")
    assert len(first) < 200 < len(first) + len(second)
    kept = package_module.output_schema(first)
    assert package_module.output_schema(first) is kept  # cached
    package_module.output_schema(second)
    assert package_module.output_schema(second) is package_module.output_schema(second)
    assert package_module.output_schema(first) is not kept  # dropped for the second, built anew
