"""The cases as data: each one valid, named as its rule, citing what requires it, and able to fail;
and the harness that runs them: what it tells an adapter, what it builds, how it reads answers."""

from __future__ import annotations

import json
import re
import shutil
import stat
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest

from agentapps.conformance import (
    Case,
    CaseError,
    Reply,
    case_files,
    command_adapter,
    load_case,
    run_case,
)
from agentapps.conformance.cases import (
    CASE_SCHEMA,
    OPERATIONS,
    PROTOCOL_SCHEMA,
    SEED_PASSAGES,
    operation_of,
    seed_passages,
)

from .conftest import CASES, COLLECTION, SUITE

# A suite case cites "README, <section>": the suite's documentation, the README and the docs/ pages
# it links to, where each section now stands.
DOCUMENTS = [SUITE / "README.md", *sorted((SUITE / "docs").rglob("*.md"))]
README = "\n".join(path.read_text(encoding="utf-8") for path in DOCUMENTS)


def test_every_case_file_is_a_case() -> None:
    assert len(CASES) == len(list((COLLECTION / "cases").rglob("*.json"))) >= 60
    assert sum(case.level == "required" for case in CASES) >= 20


def test_the_schemas_are_json_schemas() -> None:
    from jsonschema import Draft202012Validator

    for name in (CASE_SCHEMA, PROTOCOL_SCHEMA):
        Draft202012Validator.check_schema(json.loads((COLLECTION / name).read_text(encoding="utf-8")))


@pytest.mark.parametrize("case", CASES, ids=[case.name for case in CASES])
def test_a_case_is_named_as_its_rule_in_the_tier_of_its_operation(case: Case) -> None:
    assert re.fullmatch(r"[a-z0-9]+(-[a-z0-9]+)+", case.path.stem)
    assert case.tier in OPERATIONS
    assert case.tier in {operation_of(step) for step in case.steps}


@pytest.mark.parametrize("case", CASES, ids=[case.name for case in CASES])
def test_a_suite_case_cites_the_readme_rule_it_keeps(case: Case) -> None:
    """A required case cites the seed's words; a suite case the README section (and rule) that
    states it, which must be there."""
    cite = case.data["cite"]
    if case.level == "required":
        assert not cite.startswith("README")
        return
    match = re.fullmatch(r"README, ([^,(]+?)(?:, (\d+)\. ([^(]+?))?(?: \(.*\))?", cite)
    assert match, cite
    section, number, rule = match.groups()
    heading = section.split(":")[0]
    assert re.search(rf"^#+ {re.escape(heading)}", README, flags=re.MULTILINE), heading
    if number:
        assert f"{number}. **{rule}" in README


def test_every_package_of_the_collection_is_used_by_a_case() -> None:
    used = {package["from"] for case in CASES for package in case.packages.values() if "from" in package}
    written = {f"conformance/packages/{path.name}" for path in (COLLECTION / "packages").iterdir()}
    assert written <= used


def refusing(argv: list[str], env: Mapping[str, str], stdin: bytes, limit: float) -> Reply:
    error = {"code": "USAGE_ERROR", "message": "no"}
    return Reply(2, json.dumps({"ok": False, "error": error}).encode(), b"")


def agreeing(argv: list[str], env: Mapping[str, str], stdin: bytes, limit: float) -> Reply:
    item = {"frontmatter": {}, "body": "", "skills": []}
    return Reply(0, json.dumps({"ok": True, "items": [], "item": item}).encode(), b"")


@pytest.mark.parametrize("case", CASES, ids=[case.name for case in CASES])
def test_no_case_passes_for_an_adapter_that_ignores_what_it_is_asked(case: Case) -> None:
    """A case must be able to fail: one that refuses everything, or agrees to everything with
    nothing in it, fails it."""
    assert not (run_case(case, refusing).passed and run_case(case, agreeing).passed)


# The harness, on cases written here.


@pytest.fixture
def collection(tmp_path: Path) -> Path:
    """A collection of cases beside a copy of valid-package, as a suite of its own."""
    folder = tmp_path / "conformance"
    (folder / "cases" / "run").mkdir(parents=True)
    for name in (CASE_SCHEMA, PROTOCOL_SCHEMA):
        shutil.copy(COLLECTION / name, folder / name)
    shutil.copytree(SUITE / "tests" / "fixtures" / "valid-package", tmp_path / "fixtures" / "valid-package")
    return folder


def write_case(collection: Path, steps: list[dict[str, Any]], **fields: Any) -> Path:
    data = {
        "description": "A case written by a test.",
        "level": "suite",
        "cite": "README, The toolkit",
        "packages": {"valid-package": {"from": "fixtures/valid-package"}},
        **fields,
        "steps": steps,
    }
    path = collection / "cases" / "run" / "written-by-a-test.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


LIST = {"run": {"package": "valid-package", "args": ["list"]}, "expect": {"exit": 0, "answer": {"ok": True}}}


class Recorder:
    """An adapter that answers what it is told to and keeps what it was asked."""

    def __init__(self, answer: object, status: int = 0, stdout: bytes | None = None) -> None:
        self.stdout = json.dumps(answer).encode() if stdout is None else stdout
        self.status = status
        self.calls: list[tuple[list[str], dict[str, str], bytes, float]] = []
        self.package_seen = False  # the package the adapter was given was there, built

    def __call__(self, argv: list[str], env: Mapping[str, str], stdin: bytes, limit: float) -> Reply:
        self.calls.append((argv, dict(env), stdin, limit))
        if argv[0] != "catalog":
            self.package_seen = (Path(argv[1]) / "APP.md").is_file()
        return Reply(self.status, self.stdout, b"")


def test_the_adapter_is_asked_for_each_operation_with_its_inputs(collection: Path) -> None:
    steps = [
        {"catalog": {"roots": [".", "valid-package"], "tags": ["a", "b"]}, "expect": {"exit": 0}},
        {"activate": {"package": "valid-package"}, "expect": {"exit": 0}},
        {
            "run": {"package": "valid-package", "args": ["x", "--", ["a", {"repeat": "b", "times": 3}]],
                    "approve": True, "timeout": 2.5, "stdin": "in"},
            "expect": {"exit": 0},
        },
        {"run": {"package": "valid-package", "args": []}, "expect": {"exit": 0}},
    ]  # fmt: skip
    adapter = Recorder({"ok": True, "items": [], "item": {"frontmatter": {}, "body": "", "skills": []}})
    assert run_case(load_case(write_case(collection, steps)), adapter).passed
    packages = adapter.calls[0][1]["AGENTIC_STATE_DIR"].removesuffix("/state") + "/packages"
    argvs = [[arg.replace(packages, "P") for arg in call[0]] for call in adapter.calls]
    assert argvs == [
        ["catalog", "--tag", "a", "--tag", "b", "P", "P/valid-package"],
        ["activate", "P/valid-package"],
        ["run", "P/valid-package", "--approve", "--timeout", "2.5", "--", "x", "--", "abbb"],
        ["run", "P/valid-package", "--"],
    ]
    assert [call[2] for call in adapter.calls] == [b"", b"", b"in", b""]
    assert [call[3] for call in adapter.calls] == [30.0, 30.0, 12.5, 30.0]
    assert adapter.package_seen


def test_the_adapter_is_told_what_is_trusted_and_where_state_goes_and_nothing_of_the_callers(
    collection: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("AGENTAPPS_TRUSTED", "/")
    monkeypatch.setenv("AGENTIC_STATE_DIR", "/somewhere/else")
    monkeypatch.setenv("AGENTIC_NOW", "2026-01-01T00:00:00Z")
    monkeypatch.setenv("KEPT_FOR_THE_ADAPTER", "yes")
    shutil.copytree(
        collection.parent / "fixtures" / "valid-package", collection.parent / "fixtures" / "other"
    )
    two = {"valid-package": {"from": "fixtures/valid-package"}, "other": {"from": "fixtures/other"}}
    for trusted, expected in ((None, ["valid-package", "other"]), (["other"], ["other"]), ([], [])):
        fields: dict[str, Any] = {"packages": two, "env": {"CASE_SETTING": "1"}}
        if trusted is not None:
            fields["trusted"] = trusted
        adapter = Recorder({"ok": True})
        run_case(load_case(write_case(collection, [LIST], **fields)), adapter)
        env = adapter.calls[0][1]
        root = Path(env["AGENTIC_STATE_DIR"]).parent
        assert env["AGENTAPPS_TRUSTED"] == ":".join(str(root / "packages" / name) for name in expected)
        assert (env["CASE_SETTING"], env["KEPT_FOR_THE_ADAPTER"]) == ("1", "yes")
        assert "AGENTIC_NOW" not in env
        assert not root.exists()  # the case folder went with the case


def test_answers_are_compared_with_the_case_folder_written_as_a_token(collection: Path) -> None:
    expect = {"exit": 0, "answer": {"ok": True, "item": {"cwd": "{case}/packages/valid-package"}}}

    def answer_with_the_path(argv: list[str], env: Mapping[str, str], stdin: bytes, limit: float) -> Reply:
        return Reply(0, json.dumps({"ok": True, "item": {"cwd": argv[1]}}).encode(), b"")

    case = load_case(write_case(collection, [{**LIST, "expect": expect}]))
    assert run_case(case, answer_with_the_path).passed


@pytest.mark.parametrize(
    ("stdout", "status", "difference"),
    [
        (
            b"not json",
            0,
            "protocol: the adapter's stdout is not exactly one JSON document (Expecting value): not json",
        ),
        (b"{} {}", 0, "protocol: the adapter's stdout is not exactly one JSON document (Extra data): {} {}"),
        (b"\xff", 0, "protocol: the adapter's stdout is not UTF-8 text"),
        # read strictly, as the runtime reads an app: the difference names the rule broken
        (
            b'{"ok": true, "ok": true, "items": []}',
            0,
            "protocol: the adapter's stdout is not exactly one JSON document (an object repeats the key",
        ),
        (b'{"ok": true, "items": ["\\ud800"]}', 0, "protocol: the adapter's stdout holds \\ud800, a lone"),
        (b"[" * 101 + b"]" * 101, 0, "protocol: the adapter's stdout is nested deeper than 100 levels"),
        (b'{"ok": false}', 3, 'protocol: (top): missing "error"'),
        (
            b'{"ok": true, "items": [{"source": "/p", "status": "broken"}]}',
            0,
            'protocol: items/0: missing "trust"',
        ),
        (  # JSON values, never Python's: null, not None
            b'{"ok": true, "items": [{"source": "/p", "trust": "t", "status": "ok", "slug": null,'
            b' "name": "n", "description": "d", "version": "1", "kind": null, "scheduling": null,'
            b' "commands": [], "confirmationRequired": null}]}',
            0,
            "protocol: items/0/confirmationRequired: expected an array, got null",
        ),
    ],
)
def test_an_answer_that_breaks_the_protocol_is_a_difference(
    collection: Path, stdout: bytes, status: int, difference: str
) -> None:
    catalog = {"catalog": {}, "expect": {"exit": status}}
    result = run_case(load_case(write_case(collection, [catalog])), Recorder(None, status, stdout))
    assert result.failure is not None
    [found] = result.failure.differences
    assert found.startswith(difference)


def test_a_protocol_problem_shows_the_case_folder_as_a_token(collection: Path) -> None:
    def prints_its_root(argv: list[str], env: Mapping[str, str], stdin: bytes, limit: float) -> Reply:
        return Reply(0, f"scanning {argv[-1]}".encode(), b"")

    result = run_case(
        load_case(write_case(collection, [{"catalog": {}, "expect": {"exit": 0}}])), prints_its_root
    )
    assert result.failure is not None
    assert result.failure.differences == [
        "protocol: the adapter's stdout is not exactly one JSON document (Expecting value): "
        "scanning {case}/packages"
    ]
    assert result.failure.stdout == "scanning {case}/packages"


def test_absent_types_and_catalog_entries_say_where_they_differ(collection: Path) -> None:
    entry = {"source": "{case}", "trust": "trusted", "status": "broken"}
    expect = {
        "exit": 0,
        "packages": {"valid-package": {"trust": "untrusted"}, "gone": None, "missing": {"status": "broken"}},
        "absent": ["/answer/items/0/secret"],
        "types": {"/packages/valid-package/problem": "string", "/answer/count": "number"},
    }

    def catalog(argv: list[str], env: Mapping[str, str], stdin: bytes, limit: float) -> Reply:
        packages = argv[-1]
        items = [
            {**entry, "source": f"{packages}/valid-package", "secret": "s", "problem": None},
            {**entry, "source": f"{packages}/gone"},
        ]
        return Reply(0, json.dumps({"ok": True, "count": True, "items": items}).encode(), b"")

    packages = {
        "valid-package": {"from": "fixtures/valid-package"},
        "gone": {"files": {"APP.md": "---\n---\n"}},
        "missing": {"files": {"APP.md": "---\n---\n"}},
    }
    case = load_case(write_case(collection, [{"catalog": {}, "expect": expect}], packages=packages))
    result = run_case(case, catalog)
    assert result.failure is not None
    assert result.failure.differences == [
        'packages.valid-package.trust: expected "untrusted", got "trusted"',
        'packages.gone: expected not listed, got {"source": "{case}/packages/gone", "trust": "trusted", '
        '"status": "broken"}',
        'packages.missing: not listed (expected {"status": "broken"})',
        'answer.items[0].secret: expected absent, got "s"',
        "packages.valid-package.problem: expected a string, got null",
        "answer.count: expected a number, got true",
    ]


def test_unchanged_names_every_file_a_step_changed(collection: Path) -> None:
    def writes(argv: list[str], env: Mapping[str, str], stdin: bytes, limit: float) -> Reply:
        Path(env["AGENTIC_STATE_DIR"], "items.json").write_text("[]")
        (Path(argv[1]) / "APP.md").unlink()
        return Reply(5, b'{"ok": false, "error": {"code": "CONFIRMATION_REQUIRED", "message": "m"}}', b"")

    expect = {"exit": 5, "unchanged": True}
    result = run_case(load_case(write_case(collection, [{**LIST, "expect": expect}])), writes)
    assert result.failure is not None
    assert result.failure.differences == [
        "files: expected no change in the case folder, got changes to "
        "{case}/packages/valid-package/APP.md, {case}/state/items.json"
    ]


def test_a_case_writes_files_and_makes_fifos_in_its_packages(collection: Path) -> None:
    seen: dict[str, Any] = {}

    def look(argv: list[str], env: Mapping[str, str], stdin: bytes, limit: float) -> Reply:
        package = Path(argv[1])
        seen["fifo"] = stat.S_ISFIFO(
            (package / "skills" / "valid-package-usage" / "SKILL.md").lstat().st_mode
        )
        seen["written"] = (package / "app" / "new" / "file.txt").read_text()
        seen["made"] = sorted(path.name for path in (package.parent / "made").iterdir())
        return Reply(0, b'{"ok": true}', b"")

    packages = {
        "valid-package": {
            "from": "fixtures/valid-package",
            "files": {"app/new/file.txt": ["a", {"repeat": "b", "times": 2}]},
            "fifos": ["skills/valid-package-usage/SKILL.md"],
        },
        "made": {"files": {"APP.md": "---\n---\n"}},
    }
    assert run_case(load_case(write_case(collection, [LIST], packages=packages)), look).passed
    assert seen == {"fifo": True, "written": "abb", "made": ["APP.md"]}


def test_an_adapter_that_does_not_answer_is_killed_at_its_limit(
    collection: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from agentapps.conformance import protocol

    monkeypatch.setattr(protocol, "CALL_MARGIN", 0.5)
    step = {"run": {"package": "valid-package", "args": ["list"], "timeout": 0.5}, "expect": {"exit": 0}}
    adapter = command_adapter(f"{sys.executable} -c 'import time; time.sleep(60)'")
    result = run_case(load_case(write_case(collection, [step])), adapter)
    assert result.failure is not None
    [difference] = result.failure.differences
    assert difference.startswith("the adapter did not answer `run` within 1 s (killed): ")
    assert difference.endswith("run {case}/packages/valid-package --timeout 0.5 -- list")


def test_an_adapter_that_cannot_start_is_the_cases_problem(collection: Path) -> None:
    result = run_case(load_case(write_case(collection, [LIST])), command_adapter("/no/such/adapter"))
    assert result.problem == "the adapter cannot start: /no/such/adapter: No such file or directory"


@pytest.mark.parametrize(
    ("change", "problem"),
    [
        ({"level": "maybe"}, 'level: expected one of "required", "suite", got "maybe"'),
        ({"packages": {"p": {"from": "fixtures/nowhere"}}}, "packages/p/from: no folder fixtures/nowhere in"),
        (
            {"packages": {"p": {"from": "../outside"}}},
            'packages/p/from: "../outside" is not a relative path with / between its parts, none of them '
            "empty, `.` or `..`",
        ),
        ({"packages": {"p": {"files": {"/etc/x": "x"}}}}, 'packages/p/files: "/etc/x" is not a relative'),
        ({"packages": {"P q": {"from": "fixtures/valid-package"}}}, 'packages: "P q" is not a package name:'),
        ({"trusted": ["nobody"]}, 'trusted: "nobody" is not one of the case\'s packages'),
        ({"steps": [{"run": {"package": "nobody", "args": []}, "expect": {}}]}, 'steps/0: "nobody" is not'),
        ({"env": {"AGENTAPPS_TRUSTED": "/"}}, 'env: "AGENTAPPS_TRUSTED" is not allowed: AGENTAPPS_* (trust'),
        ({"env": {"AGENTIC_STATE_DIR": "/"}}, 'env: "AGENTIC_STATE_DIR" is not allowed:'),
        # the state stays in {case}/state: no app's state file may be pointed elsewhere
        ({"env": {"AGENTIC_TODO_STATE_FILE": "/x"}}, 'env: "AGENTIC_TODO_STATE_FILE" is not allowed:'),
        ({"env": {"1X": "/x"}}, 'env: "1X" is not an environment variable\'s name'),
        (
            {"steps": [{"catalog": {}, "run": {}, "expect": {}}]},
            "steps/0: fits none of the forms allowed here; expected a step holding exactly one operation",
        ),
        ({"steps": []}, "steps: expected at least 1 item, got []"),
        ({"level": None}, "level: expected one of"),
        ({"extra": 1}, '(top): 1 key not allowed here: "extra"'),
    ],
)
def test_a_file_that_is_not_a_case_is_refused_saying_where(
    collection: Path, change: dict[str, Any], problem: str
) -> None:
    path = write_case(collection, [LIST])
    path.write_text(json.dumps({**json.loads(path.read_text()), **change}))
    with pytest.raises(CaseError, match=re.escape(problem)):
        load_case(path)


def test_a_case_outside_any_collection_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "loose.json"
    path.write_text("{}")
    with pytest.raises(CaseError, match=re.escape("no case.schema.json in any folder above it")):
        load_case(path)


def test_the_case_files_of_a_collection_are_the_json_files_under_its_cases(collection: Path) -> None:
    path = write_case(collection, [LIST])
    package_file = collection / "packages" / "p" / "app" / "data.json"
    package_file.parent.mkdir(parents=True)
    package_file.write_text("{}")
    assert case_files([collection]) == case_files([collection / "cases"]) == [path]
    assert case_files([collection / "packages"]) == [package_file]  # named, it is taken at its word


# What the harness holds the cases to: the seed's words, and expectations of absence that name
# what the case builds.


def test_every_passage_a_required_case_may_cite_is_the_seeds_where_this_suite_holds_it() -> None:
    passages = json.loads((COLLECTION / SEED_PASSAGES).read_text(encoding="utf-8"))["passages"]
    held = [passage for passage in passages if "in" in passage]
    assert held  # the seed's complete APP.md example is in tests/fixtures/seed-agentic-to-do
    for passage in held:
        assert passage["text"] in (SUITE / passage["in"]).read_text(encoding="utf-8"), passage
    texts = seed_passages(COLLECTION)
    assert texts is not None
    for case in CASES:
        if case.level == "required":
            assert any(case.data["cite"] in text for text in texts), case.name


def test_a_required_case_citing_words_the_seed_does_not_hold_is_refused(collection: Path) -> None:
    shutil.copy(COLLECTION / SEED_PASSAGES, collection / SEED_PASSAGES)
    cite = "Do not load the body during the catalog phase"
    path = write_case(collection, [LIST], level="required", cite=cite)
    with pytest.raises(CaseError, match=re.escape(f'cite: "{cite}" is not the seed\'s words')):
        load_case(path)
    path = write_case(collection, [LIST], level="required", cite="do not open any SKILL.md files")
    assert load_case(path).level == "required"


@pytest.mark.parametrize(
    ("expect", "problem"),
    [
        (
            {"packages": {"valid-package/app/vendored/tol": None}},
            "steps/0/expect/packages/valid-package/app/vendored/tol: expected not listed, but the case "
            "puts no APP.md there",
        ),
        ({"packages": {"valid-pakcage": None}}, 'steps/0/expect/packages: "valid-pakcage" is in none of'),
        ({"packages": {"valid-pakcage": {"status": "ok"}}}, 'packages: "valid-pakcage" is in none of'),
        ({"absent": ["/packages/valid-pakcage/body"]}, 'absent: "/packages/valid-pakcage/body" names none'),
        ({"types": {"/packages/valid-pakcage/trust": "string"}}, 'types: "/packages/valid-pakcage/trust"'),
    ],
)
def test_an_expectation_that_names_what_the_case_does_not_build_is_refused(
    collection: Path, expect: dict[str, Any], problem: str
) -> None:
    path = write_case(collection, [{"catalog": {}, "expect": {"exit": 0, **expect}}])
    with pytest.raises(CaseError, match=re.escape(problem)):
        load_case(path)


def test_a_folder_expected_unlisted_may_be_one_the_case_writes_or_copies(collection: Path) -> None:
    packages = {
        "valid-package": {"from": "fixtures/valid-package", "files": {"app/tool/APP.md": "---\n---\n"}}
    }
    expect = {"exit": 0, "packages": {"valid-package/app/tool": None, "valid-package": {"status": "ok"}}}
    assert load_case(write_case(collection, [{"catalog": {}, "expect": expect}], packages=packages))


def test_an_absence_whose_parent_is_missing_too_is_a_difference(collection: Path) -> None:
    expect = {"exit": 0, "absent": ["/answer/item/environment/SECRET", "/answer/items"]}
    result = run_case(load_case(write_case(collection, [{**LIST, "expect": expect}])), Recorder({"ok": True}))
    assert result.failure is not None
    assert result.failure.differences == [
        "answer.item.environment.SECRET: expected absent from answer.item.environment, which is missing too"
    ]


def test_a_sparse_file_is_a_hole_the_harness_makes_and_never_reads(collection: Path) -> None:
    seen: dict[str, int] = {}

    def look(argv: list[str], env: Mapping[str, str], stdin: bytes, limit: float) -> Reply:
        info = (Path(argv[1]) / "APP.md").stat()
        seen.update(size=info.st_size, blocks=info.st_blocks)
        return Reply(0, b'{"ok": true}', b"")

    terabyte = 1 << 40
    packages = {"valid-package": {"from": "fixtures/valid-package", "sparse": {"APP.md": terabyte}}}
    step = {**LIST, "expect": {"exit": 0, "unchanged": True}}  # the snapshot must not read it either
    assert run_case(load_case(write_case(collection, [step], packages=packages)), look).passed
    assert seen["size"] == terabyte
    assert seen["blocks"] * 512 < 1024 * 1024
    packages = {"valid-package": {"from": "fixtures/valid-package", "sparse": {"nothing-here": 10}}}
    result = run_case(load_case(write_case(collection, [LIST], packages=packages)), look)
    assert result.problem == "nothing-here: sparse names no file the package holds."


def test_a_package_not_listed_is_said_once_and_counts_read_as_words(collection: Path) -> None:
    expect = {
        "exit": 0,
        "answer": {"items": [{}]},
        "packages": {"valid-package": {"status": "ok"}},
        "types": {"/packages/valid-package/trust": "string", "/packages/valid-package/name": "string"},
    }
    result = run_case(
        load_case(write_case(collection, [{"catalog": {}, "expect": expect}])),
        Recorder({"ok": True, "items": []}),
    )
    assert result.failure is not None
    assert result.failure.differences == [
        "answer.items: expected 1 element, got 0: []",
        'packages.valid-package: not listed (expected {"status": "ok"})',
    ]


def test_keep_leaves_the_case_folder_and_says_where(collection: Path) -> None:
    from agentapps.conformance.report import human_report

    from .conftest import agentapps_main, in_process

    case = load_case(write_case(collection, [LIST]))
    kept = run_case(case, in_process(agentapps_main), keep=True)
    assert kept.passed, kept.as_dict()
    assert kept.folder is not None
    folder = Path(kept.folder)
    try:
        assert (folder / "packages" / "valid-package" / "APP.md").is_file()
        assert (folder / "state").is_dir()
        assert kept.as_dict()["folder"] == str(folder)
        report = human_report({"summary": "s"}, [kept.as_dict()])
        assert f"kept in {folder}" in report
    finally:
        shutil.rmtree(folder)
    plain = run_case(case, in_process(agentapps_main))
    assert plain.folder is None
    assert "folder" not in plain.as_dict()
