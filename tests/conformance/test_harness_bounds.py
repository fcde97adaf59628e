"""The harness bounds its own work by what it reads: a hostile adapter's answer or files cost it
at most linear time and a bounded memory, whatever their size."""

from __future__ import annotations

import os
from pathlib import Path

from jsonschema import Draft202012Validator

from agentapps.conformance.cases import MAX_PROBLEMS, schema_problems
from agentapps.conformance.expectations import changed_paths
from agentapps.conformance.workspace import SNAPSHOT_TOTAL_CAP, Workspace

STRINGS = Draft202012Validator({"type": "array", "items": {"type": "string"}})


def test_a_catalog_of_many_bad_entries_reports_a_bounded_list() -> None:
    """Reproduced: 30,000 bad entries cost 41 s (each problem searched for in the list so far)."""
    problems = schema_problems(STRINGS, [0] * 30_000)
    assert len(problems) == MAX_PROBLEMS
    assert problems[0] == "0: expected a string, got 0"
    assert problems[-1] == "(more problems left out)"


def test_a_few_problems_are_all_reported_once_each() -> None:
    required = Draft202012Validator({"type": "object", "required": ["a", "b"]})
    assert schema_problems(required, {}) == ['(top): missing "a", "b"']
    assert schema_problems(STRINGS, ["x", 1, "y", None]) == [
        "1: expected a string, got 1",
        "3: expected a string, got null",
    ]


def test_a_snapshot_holds_hashes_and_reads_a_bounded_total(tmp_path: Path) -> None:
    """Reproduced: twenty 60 MiB sparse files took 1.27 GB, each read whole into memory."""
    space = Workspace(tmp_path)
    size = 60 * 1024 * 1024
    for number in range(20):
        with (tmp_path / f"big-{number:02d}").open("wb") as stream:
            stream.truncate(size)
    (tmp_path / "small").write_bytes(b"abc")
    before = space.snapshot()
    hashed = [value for value in before.values() if isinstance(value, tuple) and value[0] == "file"]
    assert all(len(value) == 3 and isinstance(value[2], str) for value in hashed)
    assert sum(value[1] for value in hashed) <= SNAPSHOT_TOTAL_CAP
    assert not any(isinstance(value, bytes) for value in before.values())
    assert len(before) == 21
    # Still a change is seen wherever it is: in a file it hashed, and in one it only measured.
    (tmp_path / "small").write_bytes(b"abd")
    measured = next(
        name for name, value in before.items() if isinstance(value, tuple) and value[0] == "large"
    )
    with (tmp_path / measured).open("r+b") as stream:
        stream.truncate(size + 1)
    assert changed_paths(before, space.snapshot()) == sorted(["{case}/small", f"{{case}}/{measured}"])


def test_a_snapshot_never_reads_through_a_link(tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    outside.write_bytes(b"secret")
    inside = tmp_path / "case"
    inside.mkdir()
    os.symlink(outside, inside / "link")
    assert Workspace(inside).snapshot() == {"link": ("link", str(outside))}
