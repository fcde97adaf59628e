"""Each package in tests/fixtures/, one fault (or one thing the format allows) each: exactly what
`check` finds, what `catalog` says and what `run` does with it, and that nothing outside the
package's own copy changes. Runtime authors can point their own runtime at the same folders.

Every run here is of a temporary copy, trusted through AGENTAPPS_TRUSTED, with HOME, TMPDIR and
the state folder inside the test's own folder, so "nothing outside changed" can be seen."""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import shutil
import signal
import tempfile
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from tests.toolkit.conftest import FIXTURES, ToolkitResult

# The runtime's grace after an exit (process.EXIT_GRACE) and then some: a bound that proves a
# hang is gone, not a measure of speed.
MARGIN = 6.0
TIMEOUT = 2.0
WRITTEN_BESIDE = "written-by-writes-outside-its-folder"


@dataclass(frozen=True)
class Expected:
    errors: frozenset[str] = frozenset()  # the rules of check's error findings
    warnings: frozenset[str] = frozenset()  # the rules of its warnings
    catalog: str | None = "ok"  # the catalog status; None when it is not a package at all
    run: tuple[str | None, int] = (None, 0)  # `run PKG -- ARGS`: error code (None: relayed) and exit
    args: tuple[str, ...] = ("list",)
    hang_risk: bool = False  # the run must return within its timeout plus a grace
    writes_beside: bool = False  # its fault is a write outside its folder (trust is the only guard)


def rules(*names: str) -> frozenset[str]:
    return frozenset(names)


# Most fixtures have no command that creates an entity, so check cannot aim `remove` at a real
# one: a refusal could be NOT_FOUND, which proves nothing, and check says so.
UNVERIFIED_RULE = "confirmation.unverified"
UNVERIFIED = rules(UNVERIFIED_RULE)
# No command check could run bare succeeded, so JSON on success was not seen.
NO_SUCCESS = "contract.no-success"


EXPECTED: dict[str, Expected] = {
    "valid-package": Expected(warnings=UNVERIFIED),
    "no-app-md": Expected(rules("files.app-md"), catalog=None, run=("NOT_FOUND", 4)),
    "no-skills-folder": Expected(warnings=UNVERIFIED),  # `skills: []` needs no skills/ folder
    "unclosed-frontmatter": Expected(
        rules("frontmatter.parse"), catalog="broken", run=("PACKAGE_INVALID", 10)
    ),
    "missing-required-field": Expected(
        rules("frontmatter.fields"), catalog="broken", run=("PACKAGE_INVALID", 10)
    ),
    "wrong-field-type": Expected(rules("frontmatter.fields"), catalog="broken", run=("PACKAGE_INVALID", 10)),
    "unresolved-skill": Expected(rules("skills.resolve"), warnings=UNVERIFIED),
    "invalid-skill": Expected(rules("skills.valid"), warnings=UNVERIFIED),
    "prints-text": Expected(
        rules("output.json"),
        rules("output.structured-error", UNVERIFIED_RULE),
        run=("CONTRACT_VIOLATION", 11),
    ),
    "prints-two-documents": Expected(
        rules("output.json"),
        rules("output.structured-error", UNVERIFIED_RULE),
        run=("CONTRACT_VIOLATION", 11),
    ),
    "exits-zero-on-error": Expected(rules("output.exit-status"), warnings=UNVERIFIED),
    "hangs": Expected(rules("entry.timeout"), run=("TIMEOUT", 12), hang_risk=True),
    "deletes-without-confirmation": Expected(rules("confirmation.refuses")),
    # Its add refuses anything but an email: check aims remove through the sample it declares.
    "creates-from-an-email": Expected(),
    # Safety: what a package must never achieve.
    "hangs-in-a-new-session": Expected(rules("entry.timeout"), run=("TIMEOUT", 12), hang_risk=True),
    "holds-stdout-in-a-new-session": Expected(hang_risk=True, warnings=UNVERIFIED),
    "child-holds-stdout": Expected(hang_risk=True, warnings=UNVERIFIED),
    "writes-forever": Expected(
        rules("output.size"),
        run=("CONTRACT_VIOLATION", 11),
        hang_risk=True,
        warnings=rules(UNVERIFIED_RULE, NO_SUCCESS),
    ),
    "alias-bomb": Expected(rules("frontmatter.parse"), catalog="broken", run=("PACKAGE_INVALID", 10)),
    "body-not-utf-8": Expected(rules("body.text"), warnings=UNVERIFIED),
    "skill-body-not-utf-8": Expected(rules("skills.valid"), warnings=UNVERIFIED),
    "skill-outside-the-package": Expected(
        rules("frontmatter.fields"), catalog="broken", run=("PACKAGE_INVALID", 10)
    ),
    "state": Expected(warnings=UNVERIFIED),  # a package folder named like the state folder check makes
    "writes-outside-its-folder": Expected(writes_beside=True, warnings=UNVERIFIED),
    # Fidelity: what the format allows, the runtime accepts.
    "schema-v2": Expected(rules("frontmatter.schema"), catalog="unsupported", run=("PACKAGE_INVALID", 10)),
    "unknown-frontmatter-keys": Expected(warnings=rules("frontmatter.unknown", UNVERIFIED_RULE)),
    "entry-is-a-string": Expected(warnings=UNVERIFIED),
    "entry-is-a-shell-command": Expected(warnings=UNVERIFIED),
    "fails-with-plain-text": Expected(  # its one bare command, list, always fails
        warnings=rules("output.structured-error", UNVERIFIED_RULE, NO_SUCCESS), run=("APP_FAILED", 3)
    ),
    "success-without-ok": Expected(warnings=rules("output.envelope", UNVERIFIED_RULE)),
    "two-sentence-description": Expected(warnings=rules("frontmatter.description", UNVERIFIED_RULE)),
    # No describe: check creates through `items add <word>`, the first command that answers an id.
    "command-paths": Expected(warnings=rules("commands.unverified"), args=("items", "list")),
    "seed-agentic-to-do": Expected(warnings=rules("package.folder-name", "commands.unverified")),
    # YAML 1.2: `on`, `NO` are text, `version: 1.0` is "1.0", `<<` is a key; a BOM and `--- ` too.
    "yaml-1-2-scalars": Expected(warnings=UNVERIFIED),
    "byte-order-mark-and-spaced-fences": Expected(warnings=UNVERIFIED),
    # Manifests a runtime must refuse.
    "huge-number-in-frontmatter": Expected(
        rules("frontmatter.parse"), catalog="broken", run=("PACKAGE_INVALID", 10)
    ),
    "repeated-frontmatter-key": Expected(
        rules("frontmatter.parse"), catalog="broken", run=("PACKAGE_INVALID", 10)
    ),
    "repeated-skill-frontmatter-key": Expected(rules("skills.valid"), warnings=UNVERIFIED),
    "repeats-a-skill": Expected(rules("frontmatter.fields"), catalog="broken", run=("PACKAGE_INVALID", 10)),
    "entry-ends-in-a-comment": Expected(
        rules("frontmatter.fields"), catalog="broken", run=("PACKAGE_INVALID", 10)
    ),
    # `python3 app/cli.py >`: the first argument would name a file to truncate.
    "entry-ends-in-a-redirection": Expected(
        rules("frontmatter.fields"), catalog="broken", run=("PACKAGE_INVALID", 10)
    ),
}


@dataclass
class Sandbox:
    """A test's folder laid out for fixture runs: packages/ (trusted), home/, tmp/, state/."""

    root: Path
    holders: Path = field(init=False)

    def __post_init__(self) -> None:
        self.holders = self.root / "holder-pids"

    @property
    def packages(self) -> Path:
        return self.root / "packages"

    def copy(self, name: str) -> Path:
        target = self.packages / name
        shutil.copytree(FIXTURES / name, target)
        return target

    def files_outside(self, package: Path) -> dict[str, str]:
        """Path → content hash of every file in the test's folder but the package copy, the
        state folder and the pid file the fixtures write for this test."""
        skipped = {package, self.root / "state", self.holders}
        found = {}
        for folder, subfolders, files in os.walk(self.root):
            subfolders[:] = [name for name in subfolders if Path(folder, name) not in skipped]
            for name in files:
                path = Path(folder, name)
                if path not in skipped and path.is_file():
                    found[str(path.relative_to(self.root))] = hashlib.sha256(path.read_bytes()).hexdigest()
        return found


@pytest.fixture
def sandbox(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Sandbox]:
    box = Sandbox(tmp_path)
    for folder in ("packages", "home", "tmp", "state"):
        (tmp_path / folder).mkdir()
    monkeypatch.setenv("AGENTAPPS_TRUSTED", str(box.packages))
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.setenv("TMPDIR", str(tmp_path / "tmp"))
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path / "tmp"))  # check's copies go there too
    monkeypatch.setenv("HOLDER_PID_FILE", str(box.holders))
    yield box
    # End what the stdout-holding fixtures left behind (they would end on their own in 20 s).
    for pid in box.holders.read_text().split() if box.holders.exists() else []:
        with contextlib.suppress(ProcessLookupError):
            os.kill(int(pid), signal.SIGKILL)


def test_every_fixture_folder_has_an_expectation() -> None:
    assert sorted(path.name for path in FIXTURES.iterdir() if path.is_dir()) == sorted(EXPECTED)


def findings(result: ToolkitResult) -> list[dict[str, str]]:
    reports = (
        result.envelope["items"] if result.envelope["ok"] else result.envelope["error"]["details"]["items"]
    )
    assert len(reports) == 1
    return reports[0]["findings"]  # type: ignore[no-any-return]


# Every run of check here has a 2 s bound (the hanging fixtures need a short one), and a
# well-behaved fixture's run passed it beside the warm/cold identity test in a fresh-clone CI run:
# serial. But the fixtures whose one run waits out the bound, however loaded the machine (it never
# answers, or answers at once and leaves stdout held), run in the parallel pass, where a wait
# costs no core: in the serial pass they were 2 s each of one core's time.
WAITS_OUT_THE_BOUND = {
    "hangs",
    "hangs-in-a-new-session",
    "child-holds-stdout",
    "holds-stdout-in-a-new-session",
}


def test_the_fixtures_kept_out_of_the_serial_pass_are_ones_that_wait_out_their_bound() -> None:
    assert {name for name, expected in EXPECTED.items() if expected.hang_risk} >= WAITS_OUT_THE_BOUND


@pytest.mark.parametrize(
    "name",
    [
        pytest.param(name, marks=() if name in WAITS_OUT_THE_BOUND else pytest.mark.serial)
        for name in EXPECTED
    ],
)
def test_check_finds_exactly_the_fault(
    agentapps: Callable[..., ToolkitResult], sandbox: Sandbox, name: str
) -> None:
    package = sandbox.copy(name)
    before = sandbox.files_outside(package)
    result = agentapps("check", str(package), "--timeout", str(TIMEOUT), "--env", "HOLDER_PID_FILE")
    found = findings(result)
    expected = EXPECTED[name]
    assert {finding["rule"] for finding in found if finding["severity"] == "error"} == expected.errors
    assert {finding["rule"] for finding in found if finding["severity"] == "warning"} == expected.warnings
    assert (result.exit_status, result.error_code) == ((13, "CHECK_FAILED") if expected.errors else (0, None))
    assert sandbox.files_outside(package) == before


def test_catalog_reports_each_fixture_and_never_stops_the_scan(
    agentapps: Callable[..., ToolkitResult], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("AGENTAPPS_TRUSTED")
    result = agentapps("catalog", str(FIXTURES))
    assert result.exit_status == 0
    listed = {Path(entry["source"]).name: entry for entry in result.envelope["items"]}
    assert {name: entry["status"] for name, entry in listed.items()} == {
        name: expected.catalog for name, expected in EXPECTED.items() if expected.catalog is not None
    }
    for entry in listed.values():
        assert (entry["problem"] is None) == (entry["status"] == "ok")
        assert entry["trust"] == "untrusted"  # a fixture stands for someone else's package


# its time bound is seconds wide, far more than a test on the other core adds: not serial
@pytest.mark.parametrize("name", EXPECTED)
def test_run_relays_success_or_reports_the_fault(
    agentapps: Callable[..., ToolkitResult], sandbox: Sandbox, name: str
) -> None:
    expected = EXPECTED[name]
    package = sandbox.copy(name)
    before = sandbox.files_outside(package)
    started = time.monotonic()
    result = agentapps(
        "run", str(package), "--timeout", str(TIMEOUT), "--env", "HOLDER_PID_FILE", "--", *expected.args
    )
    if expected.hang_risk:
        assert time.monotonic() - started < TIMEOUT + MARGIN
    assert (result.error_code, result.exit_status) == expected.run
    if expected.run == (None, 0):
        assert result.envelope.get("command") in (None, " ".join(expected.args))
    changed = set(sandbox.files_outside(package)) ^ set(before)
    assert changed == ({f"packages/{WRITTEN_BESIDE}"} if expected.writes_beside else set())


def test_output_past_the_cap_names_the_cap(agentapps: Callable[..., ToolkitResult]) -> None:
    result = agentapps("run", str(FIXTURES / "writes-forever"), "--max-output", "65536", "--", "list")
    assert (result.exit_status, result.error_code) == (11, "CONTRACT_VIOLATION")
    assert result.envelope["error"]["details"]["violations"] == [
        "stdout passed the output cap of 65536 bytes; the app was killed."
    ]


def test_run_reports_an_exit_status_that_disagrees_with_ok(agentapps: Callable[..., ToolkitResult]) -> None:
    result = agentapps("run", str(FIXTURES / "exits-zero-on-error"), "--", "nope")
    assert (result.exit_status, result.error_code) == (11, "CONTRACT_VIOLATION")
    assert result.envelope["error"]["details"]["violations"] == ["`ok` is false but the exit status is 0."]


def test_a_plain_text_failure_is_relayed_as_app_failed(agentapps: Callable[..., ToolkitResult]) -> None:
    result = agentapps("run", str(FIXTURES / "fails-with-plain-text"), "--", "list")
    assert (result.exit_status, result.error_code) == (3, "APP_FAILED")
    assert result.envelope["error"]["details"] == {
        "exitStatus": 3,
        "stdout": "",
        "stderr": "error: the list cannot be read right now.\n",
    }


def test_a_success_without_ok_is_relayed_as_written(agentapps: Callable[..., ToolkitResult]) -> None:
    result = agentapps("run", str(FIXTURES / "success-without-ok"), "--", "list")
    assert (result.exit_status, result.envelope) == (0, {"count": 0, "items": []})


@pytest.mark.parametrize(
    ("name", "problem"),
    [
        ("unresolved-skill", "skill 'not-there' does not resolve"),
        ("invalid-skill", "name: String should match pattern"),
        ("body-not-utf-8", "APP.md is not UTF-8 text"),
        ("skill-body-not-utf-8", "SKILL.md is not UTF-8 text"),
        ("repeated-skill-frontmatter-key", "frontmatter gives the key 'name' twice (line 3)"),
    ],
)
def test_activate_refuses_a_package_whose_documents_are_broken(
    agentapps: Callable[..., ToolkitResult], name: str, problem: str
) -> None:
    result = agentapps("activate", str(FIXTURES / name))
    assert (result.exit_status, result.error_code) == (10, "PACKAGE_INVALID")
    assert problem in result.envelope["error"]["message"]


def test_activate_shows_the_keys_the_format_does_not_define(agentapps: Callable[..., ToolkitResult]) -> None:
    item = agentapps("activate", str(FIXTURES / "unknown-frontmatter-keys")).envelope["item"]
    assert item["frontmatter"]["homepage"] == "https://example.org/unknown-frontmatter-keys"
    assert item["frontmatter"]["x-runtime-hints"] == {"warm": True}
    assert item["frontmatter"]["entry"] == {"command": "python3 app/cli.py", "shell": "posix"}


def test_the_runtime_gate_stops_a_confirmation_command_the_app_would_not(
    agentapps: Callable[..., ToolkitResult], tmp_path: Path
) -> None:
    package = str(FIXTURES / "deletes-without-confirmation")
    assert agentapps("run", package, "--", "add", "keep me").envelope["item"]["id"] == "it_1"
    refused = agentapps("run", package, "--", "remove", "it_1")
    assert (refused.exit_status, refused.error_code) == (5, "CONFIRMATION_REQUIRED")
    assert refused.envelope["error"]["details"] == {"gate": "confirmation", "command": "remove"}
    assert (tmp_path / "state" / "items.json").read_text() == '[{"id": "it_1", "title": "keep me"}]'
    approved = agentapps("run", package, "--approve", "--", "remove", "it_1")
    assert approved.envelope["ok"] is True
    assert (tmp_path / "state" / "items.json").read_text() == "[]"


@pytest.mark.parametrize(
    "before", [["--"], ["--human"], ["--confirm"], ["-x"]], ids=["double-dash", "human", "confirm", "short"]
)
def test_nothing_may_come_before_the_command(
    agentapps: Callable[..., ToolkitResult], tmp_path: Path, before: list[str]
) -> None:
    package = str(FIXTURES / "deletes-without-confirmation")
    agentapps("run", package, "--", "add", "keep me")
    refused = agentapps("run", package, "--", *before, "remove", "it_1", "--confirm")
    assert (refused.exit_status, refused.error_code) == (2, "USAGE_ERROR")
    assert (
        refused.envelope["error"]["message"]
        == f"{before[0]!r} comes before the command: put the command first."
    )
    assert (tmp_path / "state" / "items.json").read_text() == '[{"id": "it_1", "title": "keep me"}]'


def test_the_gate_matches_command_paths(agentapps: Callable[..., ToolkitResult], tmp_path: Path) -> None:
    package = str(FIXTURES / "command-paths")
    assert agentapps("run", package, "--", "items", "add", "keep me").envelope["item"]["id"] == "it_1"
    for args in (["items", "remove", "it_1", "--confirm"], ["items", "--confirm", "remove", "it_1"]):
        refused = agentapps("run", package, "--", *args)
        assert refused.error_code in ("CONFIRMATION_REQUIRED", "USAGE_ERROR")
        assert refused.envelope["command"] == "run"
    assert agentapps("run", package, "--", "items", "list").envelope["count"] == 1
    removed = agentapps("run", package, "--approve", "--", "items", "remove", "it_1", "--confirm")
    assert (removed.exit_status, removed.envelope["command"]) == (0, "items remove")
    assert (tmp_path / "state" / "items.json").read_text() == "[]"


HOSTILE_ARGS = ["$(touch pwned)", "; touch pwned", "`touch pwned`", "*", "a b", '"', "'", "$HOME", "\\", ""]


def test_a_shell_entry_runs_and_never_reads_the_arguments(
    agentapps: Callable[..., ToolkitResult], tmp_path: Path
) -> None:
    package = FIXTURES / "entry-is-a-shell-command"
    result = agentapps("run", str(package), "--", "echo", *HOSTILE_ARGS)
    item = result.envelope["item"]
    assert item["args"] == HOSTILE_ARGS
    assert item["cwd"] == str(package / "app")  # `cd app &&` ran
    assert item["environment"]["FIXTURE_GREETING"] == "hello"  # and so did the assignment
    assert not list(package.rglob("pwned"))
    assert not list(Path.cwd().glob("pwned"))


def test_an_entry_ending_in_a_redirection_never_touches_the_file_named_by_an_argument(
    agentapps: Callable[..., ToolkitResult], sandbox: Sandbox
) -> None:
    package = sandbox.copy("entry-ends-in-a-redirection")
    victim = sandbox.root / "victim.txt"
    victim.write_text("keep me\n")
    result = agentapps("run", str(package), "--", str(victim))
    assert (result.error_code, result.exit_status) == ("PACKAGE_INVALID", 10)
    assert victim.read_text() == "keep me\n"


def test_a_secret_in_the_callers_environment_is_not_visible_to_the_app(
    agentapps: Callable[..., ToolkitResult], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "do-not-leak")
    monkeypatch.setenv("SERVICE_TOKEN", "named-on-purpose")
    monkeypatch.setenv("LC_TIME", "C")
    package = str(FIXTURES / "entry-is-a-shell-command")
    seen = agentapps("run", package, "--", "echo").envelope["item"]["environment"]
    assert "do-not-leak" not in seen.values()
    assert "SERVICE_TOKEN" not in seen
    assert (seen["LC_TIME"], seen["AGENTIC_STATE_DIR"]) == ("C", str(tmp_path / "state"))
    named = agentapps("run", package, "--env", "SERVICE_TOKEN", "--", "echo").envelope["item"]["environment"]
    assert named["SERVICE_TOKEN"] == "named-on-purpose"
    assert "AWS_SECRET_ACCESS_KEY" not in named


# its time bound is seconds wide, far more than a test on the other core adds: not serial
def test_a_fifo_named_app_md_is_broken_and_never_waited_for(
    agentapps: Callable[..., ToolkitResult], sandbox: Sandbox
) -> None:
    package = sandbox.packages / "fifo"
    package.mkdir()
    os.mkfifo(package / "APP.md")
    started = time.monotonic()
    [entry] = agentapps("catalog", str(sandbox.packages)).envelope["items"]
    assert (entry["status"], entry["problem"]) == ("broken", f"{package / 'APP.md'} is not a regular file.")
    for command in (["activate"], ["run"], ["check"]):
        result = agentapps(*command, str(package))
        assert result.error_code == ("CHECK_FAILED" if command == ["check"] else "PACKAGE_INVALID")
    assert time.monotonic() - started < MARGIN


def test_a_package_holding_a_fifo_is_checked_without_copying_it(
    agentapps: Callable[..., ToolkitResult], sandbox: Sandbox
) -> None:
    package = sandbox.copy("valid-package")
    os.mkfifo(package / "app" / "pipe")
    os.mkfifo(package / "skills" / "pipe")
    result = agentapps("check", str(package))
    assert result.exit_status == 0
    assert sorted((finding["rule"], finding["where"]) for finding in findings(result)) == [
        (UNVERIFIED_RULE, "remove agentapps-check"),
        ("files.special", "app/pipe"),
        ("files.special", "skills/pipe"),
    ]


def test_yaml_is_read_by_the_1_2_core_schema(agentapps: Callable[..., ToolkitResult]) -> None:
    [entry] = agentapps("catalog", str(FIXTURES / "yaml-1-2-scalars")).envelope["items"]
    assert (entry["version"], entry["tags"]) == ("1.0", ["yaml", "on", "off", "Yes", "NO", "null"])
    item = agentapps("activate", str(FIXTURES / "yaml-1-2-scalars")).envelope["item"]
    assert item["frontmatter"]["metadata"] == {"<<": {"merged": "no"}, "released": "2026-04-01"}


@pytest.mark.parametrize(
    ("name", "problem"),
    [
        ("huge-number-in-frontmatter", "frontmatter holds a number longer than 30 digits (line 18)."),
        ("repeated-frontmatter-key", "frontmatter gives the key 'confirmationRequired' twice (line 19)."),
        ("repeats-a-skill", "skills: Value error, lists repeats-a-skill-usage more than once"),
        (
            "entry-ends-in-a-comment",
            'entry.command holds a comment: the arguments appended as "$@" would be lost',
        ),
        (
            "entry-ends-in-a-redirection",
            "entry.command must not end with a shell operator (; & | < > ( ) or \\), and it ends with '>'",
        ),
    ],
)
def test_a_broken_manifest_says_what_breaks_it(
    agentapps: Callable[..., ToolkitResult], name: str, problem: str
) -> None:
    [entry] = agentapps("catalog", str(FIXTURES / name)).envelope["items"]
    assert problem in entry["problem"]


@pytest.mark.parametrize("document", ["APP.md", "skills/valid-package-usage/SKILL.md", "schemas/x.json"])
def test_a_file_that_resolves_outside_the_package_is_never_read(
    agentapps: Callable[..., ToolkitResult], sandbox: Sandbox, document: str
) -> None:
    package = sandbox.copy("valid-package")
    secret = sandbox.root / "secret"
    target = package / document
    if document.endswith(".md"):
        secret.write_text(target.read_text() + "\nTOKEN=do-not-show\n")
    else:
        secret.write_text('{"type": "object"}')
    target.parent.mkdir(exist_ok=True)
    target.unlink(missing_ok=True)
    target.symlink_to(secret)
    check = agentapps("check", str(package))
    assert ("files.outside", "error") in {
        (finding["rule"], finding["severity"]) for finding in findings(check)
    }
    activated = agentapps("activate", str(package))
    [entry] = agentapps("catalog", str(package)).envelope["items"]
    if document.endswith(".md"):
        assert (activated.exit_status, activated.error_code) == (10, "PACKAGE_INVALID")
        assert "resolves outside the package" in activated.envelope["error"]["message"]
        assert "do-not-show" not in json.dumps(activated.envelope)
    assert entry["status"] == ("broken" if document == "APP.md" else "ok")


def test_activation_is_bounded_in_total(agentapps: Callable[..., ToolkitResult], sandbox: Sandbox) -> None:
    """Each document is at most 1 MiB; together at most 4 MiB (MAX_ACTIVATION_BYTES)."""
    package = sandbox.copy("valid-package")
    names = [f"big-{number}" for number in range(5)]
    for name in names:
        folder = package / "skills" / name
        folder.mkdir()
        body = "x" * (1024 * 1024 - 200) + "\n"
        (folder / "SKILL.md").write_text(f"---\nname: {name}\ndescription: Big.\n---\n{body}")
    app_md = package / "APP.md"
    app_md.write_text(
        app_md.read_text().replace("  - valid-package-usage\n", "".join(f"  - {n}\n" for n in names))
    )
    result = agentapps("activate", str(package))
    assert (result.exit_status, result.error_code) == (10, "PACKAGE_INVALID")
    assert result.envelope["error"]["message"].endswith(
        "APP.md and its skills hold more than 4194304 bytes together; activation returns at most that much."
    )


def test_check_warns_of_a_schema_ref_it_will_not_fetch(
    agentapps: Callable[..., ToolkitResult], sandbox: Sandbox
) -> None:
    package = sandbox.copy("valid-package")
    (package / "schemas").mkdir()
    refs = {"$ref": "https://example.org/item.json", "$defs": {"a": {"$ref": "#/$defs/b"}, "b": {}}}
    (package / "schemas" / "item.schema.json").write_text(json.dumps(refs))
    result = agentapps("check", str(package))
    assert result.exit_status == 0
    [warning] = [finding for finding in findings(result) if finding["rule"] == "schemas.refs"]
    assert (warning["severity"], warning["where"]) == ("warning", "schemas/item.schema.json")
    assert warning["message"].startswith("refers to https://example.org/item.json: a runtime never fetches")


def test_check_does_not_warn_of_a_ref_that_resolves_inside_the_schema_through_its_ids(
    agentapps: Callable[..., ToolkitResult], sandbox: Sandbox
) -> None:
    """`s.json` against the root's `$id` is the `$defs` entry whose `$id` it is: nothing outside
    the schema, so nothing unfetched, and the runtime applies that part too."""
    package = sandbox.copy("valid-package")
    (package / "schemas").mkdir()
    schema = {
        "$id": "https://example.org/root.json",
        "$defs": {"s": {"$id": "s.json", "type": "string"}},
        "properties": {"v": {"$ref": "s.json"}},
    }
    (package / "schemas" / "item.schema.json").write_text(json.dumps(schema))
    result = agentapps("check", str(package))
    assert result.exit_status == 0
    assert [finding for finding in findings(result) if finding["rule"].startswith("schemas.")] == []


def test_a_package_whose_path_is_not_utf8_is_listed_broken_with_escapes(
    agentapps: Callable[..., ToolkitResult], sandbox: Sandbox
) -> None:
    name = os.fsdecode(b"caf\xe9")
    shutil.copytree(FIXTURES / "valid-package", sandbox.packages / name)
    [entry] = agentapps("catalog", str(sandbox.packages)).envelope["items"]
    assert (entry["source"], entry["status"]) == (f"{sandbox.packages}/caf\\xe9", "broken")
    assert entry["problem"] == "its path is not UTF-8 text (it holds the byte 0xe9)."
