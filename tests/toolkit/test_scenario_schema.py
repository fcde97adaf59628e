"""A scenario is judged against scenario.schema.json by jsonschema-rs first (whether it fits), and
by jsonschema only when it does not (where and why). The two must agree on every scenario: one
that jsonschema-rs let through and jsonschema would refuse would be replayed instead of refused."""

from __future__ import annotations

import copy
import json
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from agentapps.scenarios import ScenarioError, _fits, _validator, load_scenario, scenario_files
from tests.packages import SCENARIO_FOLDERS

from .conftest import SUITE, ToolkitResult

# Between them they lean on every part of the schema: a note, stdin, env, held locks, exit, match
# and envelope; a text repeated; files in the state folder; a seed-level scenario's level and cite,
# and a step's stateFile.
SAMPLES = [
    SUITE / "agentic-to-do" / "scenarios" / "import-checks-the-export-before-it-waits-for-the-lock.json",
    SUITE / "agentic-notes" / "scenarios" / "add-accepts-a-body-of-exactly-1-mib.json",
    SUITE / "agentic-notes" / "scenarios" / "a-state-file-an-older-version-wrote-still-loads.json",
    SUITE / "agentic-to-do" / "scenarios" / "seed-the-state-override-file-holds-the-state.json",
]
# What each value of a sample is replaced by in turn: every JSON type, and the edges of the
# schema's strings (empty, a name out of its pattern) and numbers (negative, past a maximum).
REPLACEMENTS: list[Any] = [None, True, 0, -1, 256, 1.5, "", "x", "Not A Name!", [], [""], {}, {"a": 1}]


def agree(document: Any) -> bool:
    fits = bool(_fits().is_valid(document))
    return fits == (next(_validator().iter_errors(document), None) is None)


def places(node: Any) -> list[tuple[Any, Any]]:
    """Every (container, key or index) of the document, depth first."""
    found: list[tuple[Any, Any]] = []
    keys = node.keys() if isinstance(node, dict) else range(len(node)) if isinstance(node, list) else []
    for key in list(keys):
        found.append((node, key))
        found += places(node[key])
    return found


def variants(value: Any) -> Iterator[Any]:
    """The document with each value, in turn, removed (from an object), replaced by each of
    REPLACEMENTS, or joined by an unknown key (in an object)."""
    for number in range(len(places(value))):
        for change in ("remove", "extra", *range(len(REPLACEMENTS))):
            document = copy.deepcopy(value)
            node, key = places(document)[number]
            if isinstance(change, int):
                node[key] = copy.deepcopy(REPLACEMENTS[change])
            elif not isinstance(node, dict):
                continue
            elif change == "remove":
                del node[key]
            else:
                node["unknownKey"] = 1
            yield document


def test_both_judges_agree_on_every_scenario_of_the_suite() -> None:
    files = scenario_files(SCENARIO_FOLDERS)
    assert len(files) >= 300
    for path in files:
        document = json.loads(path.read_text(encoding="utf-8"))
        assert _fits().is_valid(document), path
        assert agree(document), path


@pytest.mark.parametrize("sample", SAMPLES, ids=lambda path: path.stem)
def test_both_judges_agree_on_each_way_of_breaking_a_scenario(sample: Path) -> None:
    scenario = json.loads(sample.read_text(encoding="utf-8"))
    judged = list(variants(scenario))
    refused = [document for document in judged if not _fits().is_valid(document)]
    assert len(judged) > 500
    assert len(judged) > len(refused) > 300  # most changes break it; some do not
    disagreeing = [document for document in judged if not agree(document)]
    assert not disagreeing, json.dumps(disagreeing[0])[:500]


def test_a_scenario_that_does_not_fit_is_refused_saying_where(tmp_path: Path) -> None:
    bad = tmp_path / "bad.json"
    document = json.loads(SAMPLES[0].read_text(encoding="utf-8"))
    document["steps"][1]["expect"]["exit"] = 256
    bad.write_text(json.dumps(document), encoding="utf-8")
    with pytest.raises(ScenarioError) as raised:
        load_scenario(bad)
    assert (
        str(raised.value)
        == f"{bad}: not a scenario: steps/1/expect/exit: 256 is greater than the maximum of 255"
    )


def test_a_lone_surrogate_is_judged_as_before(
    agentapps: Callable[..., ToolkitResult], tmp_path: Path
) -> None:
    """JSON allows an unpaired surrogate escape, and jsonschema-rs cannot take one (a Rust string
    cannot hold it): such a scenario is judged by jsonschema alone. Refused where a pattern or an
    enum meets it, with jsonschema's message and before anything runs; replayed where the schema
    allows any text (here its expected envelope holds such a key, which the app never prints)."""
    refused = tmp_path / "refused.json"
    document = json.loads(SAMPLES[0].read_text(encoding="utf-8"))
    refused.write_text(json.dumps({**document, "package": "agentic-to-do\udc00"}), encoding="utf-8")
    result = agentapps("replay", "--packages", str(SUITE), str(refused))
    assert (result.exit_status, result.error_code) == (3, "VALIDATION_ERROR")
    assert result.envelope["error"]["message"] == (
        f"{refused}: not a scenario: "
        "package: 'agentic-to-do\\udc00' does not match '^[a-z0-9]+(-[a-z0-9]+)*$'"
    )
    assert not (tmp_path / "state").exists()  # nothing ran
    replayed = tmp_path / "replayed.json"
    document["steps"][0]["expect"]["envelope"]["\ud800"] = 1
    replayed.write_text(json.dumps(document), encoding="utf-8")
    result = agentapps("replay", "--packages", str(SUITE), str(replayed))
    assert (result.exit_status, result.error_code) == (14, "SCENARIO_FAILED")
    (report,) = result.envelope["error"]["details"]["items"]
    assert (report["passedSteps"], report["failure"]["step"]) == (0, 1)
