"""What the runtime makes of a package's own output schemas (schemas/): the draft a schema names,
what its patterns mean, a `$ref` it will not fetch, and how much a mismatch can cost or say. Each
envelope is judged in-process, as `run`, `check`, `replay` and `mcp` judge one."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from agentapps.output import check_output
from agentapps.package import Package
from tests.toolkit.hostile import write_package


def judged(folder: Path, schema: dict[str, Any], document: dict[str, Any]) -> list[str]:
    """The violations' messages when a package whose success schema is `schema` answers
    `document` (with `ok` and `command` added) with exit status 0."""
    package = write_package(folder, "")
    (package / "schemas").mkdir()
    (package / "schemas" / "success-envelope.schema.json").write_text(json.dumps(schema))
    envelope = {"ok": True, "command": "list", **document}
    return [
        problem.message
        for problem in check_output(Package(package), ["list"], 0, json.dumps(envelope), "").violations
    ]


DRAFT_07 = "http://json-schema.org/draft-07/schema#"
DRAFT_04 = "http://json-schema.org/draft-04/schema#"


@pytest.mark.parametrize(
    ("schema", "document", "expected"),
    [
        # The draft the schema names is the one that judges: draft-07's `dependencies`, draft-04's
        # boolean `exclusiveMaximum` (which 2020-12's metaschema would refuse).
        (
            {"$schema": DRAFT_07, "dependencies": {"a": ["b"]}},
            {"a": 1},
            'at (top): "b" is a required property',
        ),
        (
            {"$schema": DRAFT_04, "properties": {"v": {"maximum": 5, "exclusiveMaximum": True}}},
            {"v": 5},
            "at v: 5 is greater than or equal to the maximum of 5",
        ),
        # A pattern is ECMA-262's: `\p{L}` is a letter, and `$` is the end of the text.
        (
            {"properties": {"v": {"pattern": "^\\p{L}+$"}}},
            {"v": "é1"},
            'at v: "é1" does not match "^\\p{L}+$"',
        ),
        ({"properties": {"v": {"pattern": "^a$"}}}, {"v": "a\n"}, 'at v: "a\\n" does not match "^a$"'),
        # A `$ref` never fetched refers to the empty schema: that part is not applied, the rest is.
        (
            {"properties": {"x": {"$ref": "https://example.com/defs.json"}, "v": {"type": "string"}}},
            {"x": 1, "v": 5},
            'at v: 5 is not of type "string"',
        ),
    ],
    ids=["draft-07", "draft-04", "unicode-class", "end-of-text", "unfetched-ref"],
)
def test_a_schema_judges_as_its_draft_and_json_schema_say(
    tmp_path: Path, schema: dict[str, Any], document: dict[str, Any], expected: str
) -> None:
    assert judged(tmp_path / "judged", schema, document) == [f"envelope does not match its schema {expected}"]


@pytest.mark.parametrize(
    ("schema", "document"),
    [
        ({"$schema": DRAFT_07, "dependencies": {"a": ["b"]}}, {"a": 1, "b": 2}),
        ({"properties": {"v": {"pattern": "^\\p{L}+$"}}}, {"v": "é"}),
        (
            {"properties": {"x": {"$ref": "https://example.com/defs.json"}, "v": {"type": "string"}}},
            {"x": 1, "v": "5"},
        ),
    ],
    ids=["draft-07", "unicode-class", "unfetched-ref"],
)
def test_what_fits_is_relayed(tmp_path: Path, schema: dict[str, Any], document: dict[str, Any]) -> None:
    assert judged(tmp_path / "fits", schema, document) == []


def test_an_answer_unfit_everywhere_costs_one_mismatch(tmp_path: Path) -> None:
    """100,000 items, each unfit, against an enum of 20,000 values: the first place is said, and
    listing every mismatch (each quoting the whole enum: gigabytes) is not attempted."""
    schema = {"properties": {"items": {"items": {"enum": list(range(20_000))}}}}
    messages = judged(tmp_path / "unfit", schema, {"items": list(range(20_000, 120_000))})
    assert len(messages) == 1
    assert messages[0].startswith("envelope does not match its schema at items/0: 20000 is not one of")
    assert len(messages[0]) < 600


def test_a_mismatch_that_quotes_a_long_value_or_path_is_cut_short(tmp_path: Path) -> None:
    """The message says its first 500 characters and how long it was."""
    key = "k" + "x" * 200_000
    schema = {"properties": {"ok": {}, "command": {}}, "additionalProperties": {"type": "string"}}
    whole = f'envelope does not match its schema at {key}: 1 is not of type "string"'
    assert judged(tmp_path / "key", schema, {key: 1}) == [f"{whole[:500]}… ({len(whole):,} characters)"]
    note = "n" * 100_000
    whole = f'envelope does not match its schema at note: "{note}" is longer than 10 characters'
    cut = f"{whole[:500]}… ({len(whole):,} characters)"
    assert judged(tmp_path / "value", {"properties": {"note": {"maxLength": 10}}}, {"note": note}) == [cut]
