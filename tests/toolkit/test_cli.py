"""`agentapps` on the suite's own packages: the three tiers, the runtime's gates, and check."""

from __future__ import annotations

import json
import os
import shlex
import shutil
import signal
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.apps.test_start_up import PLUGIN_LOADERS, installed_plugin, loading_probe
from tests.packages import FACTS, PACKAGES
from tests.toolkit.conftest import FIXTURES, SUITE, ToolkitResult

CATALOG_KEYS = [
    "source", "trust", "status", "problem", "slug", "name", "description", "version", "kind", "scheduling",
    "commands", "confirmationRequired", "tags",
]  # fmt: skip


def test_catalog_lists_the_suite_packages_from_their_frontmatter(
    agentapps: Callable[..., ToolkitResult],
) -> None:
    result = agentapps("catalog", str(SUITE))
    ours = [entry for entry in result.envelope["items"] if Path(entry["source"]).parent == SUITE]
    assert [entry["slug"] for entry in ours] == sorted(PACKAGES)
    todo = next(entry for entry in ours if entry["slug"] == "agentic-to-do")
    assert list(todo) == CATALOG_KEYS
    assert (todo["status"], todo["trust"], todo["scheduling"], todo["confirmationRequired"]) == (
        "ok",
        "bundled",
        "supported",
        ["remove", "purge"],
    )


def test_catalog_at_the_repository_root_lists_no_template_and_no_build_output(
    agentapps: Callable[..., ToolkitResult], tmp_path: Path
) -> None:
    shown = agentapps("catalog", str(SUITE)).envelope["items"]
    broken = [Path(entry["source"]) for entry in shown if entry["status"] != "ok"]
    assert broken
    assert all(path.is_relative_to(FIXTURES) for path in broken)  # broken on purpose only
    assert not [entry for entry in shown if Path(entry["source"]).is_relative_to(SUITE / "shared")]
    # What `pip install .` leaves under build/ is a copy, never a package of its own.
    shutil.copytree(FIXTURES / "valid-package", tmp_path / "packages" / "valid-package")
    shutil.copytree(FIXTURES / "valid-package", tmp_path / "build" / "lib" / "valid-package")
    [entry] = agentapps("catalog", str(tmp_path)).envelope["items"]
    assert entry["source"] == str(tmp_path / "packages" / "valid-package")


def test_catalog_reads_only_the_frontmatter(agentapps: Callable[..., ToolkitResult], tmp_path: Path) -> None:
    package = tmp_path / "huge-body"
    shutil.copytree(FIXTURES / "valid-package", package)
    frontmatter = (package / "APP.md").read_bytes().split(b"\n---\n", 1)[0] + b"\n---\n"
    (package / "APP.md").write_bytes(frontmatter + b"\xff\xfe not UTF-8 \x80" * (3 * 1024 * 1024))
    [entry] = agentapps("catalog", str(tmp_path)).envelope["items"]
    assert (entry["status"], entry["slug"]) == ("ok", "valid-package")


def test_catalog_searches_several_roots_and_refuses_a_missing_one(
    agentapps: Callable[..., ToolkitResult],
) -> None:
    both = agentapps("catalog", str(SUITE / "agentic-notes"), str(FIXTURES / "hangs"))
    assert [entry["slug"] for entry in both.envelope["items"]] == ["agentic-notes", "hangs"]
    missing = agentapps("catalog", str(SUITE / "no-such-folder"))
    assert (missing.exit_status, missing.error_code) == (4, "NOT_FOUND")


def test_catalog_does_not_follow_a_symlinked_package_folder(
    agentapps: Callable[..., ToolkitResult], tmp_path: Path
) -> None:
    shutil.copytree(FIXTURES / "valid-package", tmp_path / "elsewhere" / "valid-package")
    (tmp_path / "root").mkdir()
    (tmp_path / "root" / "linked").symlink_to(tmp_path / "elsewhere")
    (tmp_path / "root" / "loop").symlink_to(tmp_path / "root")
    assert agentapps("catalog", str(tmp_path / "root")).envelope["items"] == []
    # A root given as a symlink is followed: the caller named it.
    [entry] = agentapps("catalog", str(tmp_path / "root" / "linked")).envelope["items"]
    assert entry["slug"] == "valid-package"


@pytest.mark.parametrize(
    ("trusted", "trust"), [(False, "untrusted"), (True, "trusted")], ids=["untrusted", "trusted"]
)
def test_trust_comes_from_where_the_package_is(
    agentapps: Callable[..., ToolkitResult],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    trusted: bool,
    trust: str,
) -> None:
    shutil.copytree(FIXTURES / "valid-package", tmp_path / "elsewhere" / "valid-package")
    if trusted:
        monkeypatch.setenv("AGENTAPPS_TRUSTED", str(tmp_path / "elsewhere"))
    [entry] = agentapps("catalog", str(tmp_path)).envelope["items"]
    assert entry["trust"] == trust


def test_catalog_filters_by_tag(agentapps: Callable[..., ToolkitResult]) -> None:
    def slugs(*tags: str) -> list[str]:
        options = [option for tag in tags for option in ("--tag", tag)]
        return [entry["slug"] for entry in agentapps("catalog", str(FIXTURES), *options).envelope["items"]]

    assert slugs("fixture") == ["command-paths", "valid-package"]
    assert slugs("fixture", "valid") == ["valid-package"]  # every tag given
    assert slugs("nothing-has-this") == []
    [entry] = agentapps("catalog", str(FIXTURES / "valid-package")).envelope["items"]
    assert entry["tags"] == ["fixture", "valid"]


def test_catalog_reports_an_unsupported_schema_with_what_it_says(
    agentapps: Callable[..., ToolkitResult],
) -> None:
    [entry] = agentapps("catalog", str(FIXTURES / "schema-v2")).envelope["items"]
    assert (entry["status"], entry["slug"], entry["version"]) == ("unsupported", "schema-v2", "0.1.0")
    assert entry["problem"].endswith(
        "schema 'agentapplications/v2' is not supported; this runtime reads agentapplications/v1."
    )


def test_tags_written_oddly_in_an_unsupported_manifest_never_break_the_filter(
    agentapps: Callable[..., ToolkitResult], tmp_path: Path
) -> None:
    (tmp_path / "future").mkdir()
    (tmp_path / "future" / "APP.md").write_text(
        "---\nschema: agentapplications/v2\ntags: [[a], {b: c}, d]\n---\n"
    )
    [entry] = agentapps("catalog", str(tmp_path)).envelope["items"]
    assert (entry["status"], entry["tags"]) == ("unsupported", [["a"], {"b": "c"}, "d"])
    assert [
        item["source"] for item in agentapps("catalog", str(tmp_path), "--tag", "d").envelope["items"]
    ] == [str(tmp_path / "future")]
    assert agentapps("catalog", str(tmp_path), "--tag", "a").envelope["items"] == []


def untrusted_copy(tmp_path: Path) -> Path:
    """A package outside the suite and outside AGENTAPPS_TRUSTED, whose every run writes a file
    beside its folder: whether that file appears says whether its code ran."""
    package = tmp_path / "downloads" / "writes-outside-its-folder"
    shutil.copytree(FIXTURES / "writes-outside-its-folder", package)
    return package


def scenario_for(package: Path) -> Path:
    path = package / "scenarios" / "lists.json"
    path.parent.mkdir()
    step = {"args": ["list"], "expect": {"exit": 0, "match": "subset", "envelope": {"ok": True}}}
    path.write_text(json.dumps({"description": "lists", "package": package.name, "steps": [step]}))
    return path


@pytest.mark.parametrize("command", ["run", "check", "replay", "sync"])
def test_every_command_that_runs_package_code_needs_trust_or_approval(
    agentapps: Callable[..., ToolkitResult], tmp_path: Path, command: str
) -> None:
    package = untrusted_copy(tmp_path)
    target = str(scenario_for(package)) if command == "replay" else str(package)
    args = [command, target, *(["--", "list"] if command == "run" else [])]
    refused = agentapps(*args)
    assert (refused.exit_status, refused.error_code) == (5, "CONFIRMATION_REQUIRED")
    assert refused.envelope["error"]["details"] == {"gate": "trust", "untrusted": [str(package)]}
    assert "--approve" in refused.envelope["error"]["hint"]
    assert not (package.parent / "written-by-writes-outside-its-folder").exists()
    if command != "sync":  # sync serves packages built on the kit; this one is not
        approved = agentapps(*args[:2], "--approve", *args[2:])
        assert approved.exit_status == 0, approved.envelope
        # Approved, it runs: check and replay are not sandboxes. (check runs a copy elsewhere.)
        assert (package.parent / "written-by-writes-outside-its-folder").exists() == (command != "check")


def test_a_folder_in_agentapps_trusted_needs_no_approval(
    agentapps: Callable[..., ToolkitResult], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    package = untrusted_copy(tmp_path)
    monkeypatch.setenv("AGENTAPPS_TRUSTED", str(tmp_path / "downloads"))
    assert agentapps("run", str(package), "--", "list").exit_status == 0


@pytest.mark.parametrize("command", ["run", "check", "replay", "mcp"])
@pytest.mark.parametrize(
    "option",
    [
        ["--timeout", "1e10"],
        ["--timeout", "inf"],
        ["--timeout", "nan"],
        ["--timeout", "1e308"],
        ["--timeout", "0"],
        ["--timeout", "1_0"],  # found by an outside review: ran as 10
        ["--timeout", "1e1"],
        ["--timeout", " 30"],
        ["--max-output", "0"],
        ["--max-output", "1e10"],
        ["--max-output", "10.0"],
        ["--max-output", "1_000"],
        ["--env", "NAME=value"],
    ],
    ids=lambda option: "=".join(option),
)
def test_numbers_and_names_are_checked_before_anything_runs(
    agentapps: Callable[..., ToolkitResult], tmp_path: Path, command: str, option: list[str]
) -> None:
    package = SUITE / "agentic-to-do"
    target = {"replay": str(FACTS["agentic-to-do"].scenarios / "get-returns-one-item.json")}.get(
        command, str(package)
    )
    tail = ["--", "add", "must not be written"] if command == "run" else []
    result = agentapps(command, target, *option, *tail)
    assert (result.exit_status, result.error_code) == (3, "VALIDATION_ERROR")
    assert not (tmp_path / "state").exists()


def test_a_refused_timeout_is_shown_as_given(agentapps: Callable[..., ToolkitResult]) -> None:
    result = agentapps("run", str(SUITE / "agentic-to-do"), "--timeout", "0.09999999999", "--", "list")
    assert result.envelope["error"]["message"] == (
        "Invalid value for '--timeout': 0.09999999999 is not a number of seconds from 0.1 to 86400."
    )


def test_a_refused_max_output_is_shown_as_given(agentapps: Callable[..., ToolkitResult]) -> None:
    result = agentapps("run", str(SUITE / "agentic-to-do"), "--max-output", "10.0", "--", "list")
    assert result.envelope["error"]["message"] == (
        "Invalid value for '--max-output': 10.0 is not a whole number of bytes from 1 to 1073741824."
    )


def test_activate_returns_the_body_and_every_skill(agentapps: Callable[..., ToolkitResult]) -> None:
    item = agentapps("activate", str(SUITE / "agentic-notes")).envelope["item"]
    assert item["body"].startswith("# Agentic Notes\n\n## Purpose")
    assert [skill["name"] for skill in item["skills"]] == ["agentic-notes-usage"]
    assert item["skills"][0]["frontmatter"]["name"] == "agentic-notes-usage"
    assert item["skills"][0]["body"].startswith("# Using Agentic Notes")


def test_activate_of_a_folder_without_app_md_is_not_found(agentapps: Callable[..., ToolkitResult]) -> None:
    assert agentapps("activate", str(FIXTURES / "no-app-md")).error_code == "NOT_FOUND"


def test_run_relays_the_apps_envelope_and_exit_status(agentapps: Callable[..., ToolkitResult]) -> None:
    added = agentapps(
        "run", str(SUITE / "agentic-to-do"), "--", "add", "Via the runtime", "--due-at", "2026-04-05"
    )
    assert (added.exit_status, added.envelope["command"], added.envelope["item"]["title"]) == (
        0,
        "add",
        "Via the runtime",
    )
    missing = agentapps("run", str(SUITE / "agentic-to-do"), "--", "get", "td_0404")
    assert (missing.exit_status, missing.error_code, missing.envelope["command"]) == (4, "NOT_FOUND", "get")


def test_run_gates_confirmation_commands_separately_from_the_apps_flag(
    agentapps: Callable[..., ToolkitResult],
) -> None:
    package = str(SUITE / "agentic-to-do")
    agentapps("run", package, "--", "add", "x")
    gated = agentapps("run", package, "--", "remove", "td_0001", "--confirm")
    assert (gated.exit_status, gated.error_code, gated.envelope["command"]) == (
        5,
        "CONFIRMATION_REQUIRED",
        "run",
    )
    app_refuses = agentapps("run", package, "--approve", "--", "remove", "td_0001")
    assert (app_refuses.error_code, app_refuses.envelope["command"]) == ("CONFIRMATION_REQUIRED", "remove")
    assert (
        agentapps("run", package, "--approve", "--", "remove", "td_0001", "--confirm").envelope["ok"] is True
    )


def test_check_passes_every_suite_package_with_no_errors_or_warnings(
    agentapps: Callable[..., ToolkitResult],
) -> None:
    result = agentapps("check", *(str(SUITE / name) for name in PACKAGES))
    assert result.exit_status == 0
    assert [(report["errors"], report["warnings"]) for report in result.envelope["items"]] == [(0, 0)] * 3


def test_check_never_touches_the_real_state(agentapps: Callable[..., ToolkitResult], tmp_path: Path) -> None:
    package = tmp_path / "agentic-to-do"
    shutil.copytree(SUITE / "agentic-to-do", package, ignore=shutil.ignore_patterns("todos.json*"))
    state = package / "app" / "state" / "todos.json"
    state.write_text('{"schemaVersion": 1, "nextId": 1, "items": []}\n')
    before = sorted(str(path) for path in package.rglob("*") if "__pycache__" not in path.parts)
    assert agentapps("check", str(package), "--approve").exit_status == 0
    assert state.read_text() == '{"schemaVersion": 1, "nextId": 1, "items": []}\n'
    assert sorted(str(path) for path in package.rglob("*") if "__pycache__" not in path.parts) == before


def test_check_runs_the_package_with_a_temporary_home(
    agentapps: Callable[..., ToolkitResult], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    package = tmp_path / "valid-package"
    shutil.copytree(FIXTURES / "valid-package", package)
    cli_py = package / "app" / "cli.py"
    # Every run writes into $HOME and names the HOME it saw in the witness file.
    cli_py.write_text(
        "import os, pathlib\n"
        "home = pathlib.Path(os.environ['HOME'])\n"
        "(home / '.written-by-check').write_text('x')\n"
        "with open(os.environ['WITNESS'], 'a') as witness:\n"
        "    witness.write(str(home) + '\\n')\n" + cli_py.read_text()
    )
    real_home = tmp_path / "home"
    real_home.mkdir()
    monkeypatch.setenv("HOME", str(real_home))
    monkeypatch.setenv("WITNESS", str(tmp_path / "witness"))
    agentapps("check", str(package), "--approve", "--env", "WITNESS")
    seen = set((tmp_path / "witness").read_text().splitlines())
    assert len(seen) == 1  # one temporary HOME for all the runs
    assert str(real_home) not in seen
    assert list(real_home.iterdir()) == []
    assert not Path(seen.pop()).exists()  # removed with the temporary state


def test_check_reports_an_entry_command_that_cannot_run(
    agentapps: Callable[..., ToolkitResult], tmp_path: Path
) -> None:
    package = tmp_path / "valid-package"
    shutil.copytree(FIXTURES / "valid-package", package)
    app_md = package / "APP.md"
    app_md.write_text(app_md.read_text().replace("python3 app/cli.py", "no-such-program app/cli.py"))
    result = agentapps("check", str(package), "--approve")
    [report] = result.envelope["error"]["details"]["items"]
    [finding] = report["findings"]
    assert (finding["rule"], finding["severity"]) == ("entry.runs", "error")
    assert finding["message"].startswith("entry.command could not run (sh exit 127, not found)")


def test_the_console_script_speaks_the_envelope_and_human_text() -> None:
    script = Path(sys.executable).parent / "agentapps"
    as_json = subprocess.run(
        [script, "check", str(FIXTURES / "unresolved-skill")], capture_output=True, text=True
    )
    envelope = json.loads(as_json.stdout)
    assert (as_json.returncode, envelope["error"]["code"]) == (13, "CHECK_FAILED")
    as_text = subprocess.run(
        [script, "check", str(FIXTURES / "unresolved-skill"), "--human"], capture_output=True, text=True
    )
    assert as_text.returncode == 13
    assert as_text.stdout.startswith(f"FAIL  {FIXTURES / 'unresolved-skill'}  (1 error, 1 warning)\n  error")
    assert "skills.resolve" in as_text.stdout


def test_the_toolkits_help_describes_its_own_version_and_an_apps_help_the_packages(
    agentapps: Callable[..., ToolkitResult],
) -> None:
    helped = agentapps("--help")
    assert helped.exit_status == 0
    toolkit_version = "--version   Print the toolkit's version (agentapps, as installed) and exit."
    assert toolkit_version in helped.envelope["help"]
    assert "version (APP.md's)" not in helped.envelope["help"]
    app_help = subprocess.run(
        [sys.executable, str(SUITE / "agentic-to-do" / "app" / "cli.py"), "--help"],
        capture_output=True,
        text=True,
        check=False,
    )
    package_version = "--version   Print the package's version (APP.md's) and exit."
    assert package_version in json.loads(app_help.stdout)["help"]


def test_an_approve_typed_after_dashes_is_refused_with_the_call_that_approves(
    agentapps: Callable[..., ToolkitResult],
) -> None:
    """`run PKG -- remove ID --confirm --approve`: --approve after `--` is the app's argument; the
    hint is the approved call, which works, and nothing is removed before it."""
    todo = str(SUITE / "agentic-to-do")
    assert agentapps("run", todo, "--", "add", "keep me").exit_status == 0
    refused = agentapps("run", todo, "--", "remove", "td_0001", "--confirm", "--approve")
    assert refused.error_code == "CONFIRMATION_REQUIRED"
    hint = refused.envelope["error"]["hint"]
    assert hint.endswith(f"`agentapps run {todo} --approve -- remove td_0001 --confirm`.")
    assert [item["id"] for item in agentapps("run", todo, "--", "list").envelope["items"]] == ["td_0001"]
    call = shlex.split(hint.rsplit("`", 2)[1])
    assert call[0] == "agentapps"
    removed = agentapps(*call[1:])
    assert removed.exit_status == 0
    assert agentapps("run", todo, "--", "list").envelope["items"] == []


@pytest.mark.parametrize(
    ("args", "approved"),
    [
        (["remove", "td_0001"], ["remove", "td_0001", "--confirm"]),
        (["remove", "td_0001", "--confirm"], ["remove", "td_0001", "--confirm"]),
        (["remove", "--", "td_0001"], ["remove", "--confirm", "--", "td_0001"]),
    ],
)
def test_the_approval_hint_is_the_whole_call_with_the_apps_own_confirm(
    agentapps: Callable[..., ToolkitResult], args: list[str], approved: list[str]
) -> None:
    """Found by an agent's day: `run PKG -- remove td_0007` hinted `run PKG --approve -- remove
    td_0007`, which the app refused (remove requires --confirm). The runtime reads the app's own
    flag from its describe and hints the call that works, once."""
    todo = str(SUITE / "agentic-to-do")
    assert agentapps("run", todo, "--", "add", "keep me").exit_status == 0
    refused = agentapps("run", todo, "--", *args)
    assert refused.error_code == "CONFIRMATION_REQUIRED"
    call = shlex.split(refused.envelope["error"]["hint"].rsplit("`", 2)[1])
    assert call == ["agentapps", "run", todo, "--approve", "--", *approved]
    assert [item["id"] for item in agentapps("run", todo, "--", "list").envelope["items"]] == ["td_0001"]
    removed = agentapps(*call[1:])
    assert removed.exit_status == 0, removed.envelope
    assert agentapps("run", todo, "--", "list").envelope["items"] == []


# The toolkit's own process, as the console script starts it, with what it loaded said at its end.
TOOLKIT_LOADED = loading_probe(
    'runpy.run_module("agentapps", run_name="__main__")', "agentapps", PLUGIN_LOADERS
)


@pytest.mark.parametrize(
    "args", [["catalog", str(SUITE)], ["activate", "agentic-to-do"], ["run", "agentic-to-do", "--", "list"]]
)
def test_the_toolkit_loads_no_pydantic_plugin_nor_their_loader(
    args: list[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The agentapps program turns pydantic's plugins off as the apps do (agentic_kit/plugins_off.py):
    an installed plugin is not loaded, nor importlib.metadata, which finding one costs every call."""
    site = installed_plugin(tmp_path / "site")
    monkeypatch.setenv("PYTHONPATH", str(site))
    monkeypatch.setenv("AGENTIC_STATE_DIR", str(tmp_path / "state"))
    completed = subprocess.run(
        [sys.executable, "-c", TOOLKIT_LOADED, *args], cwd=SUITE, capture_output=True, text=True, timeout=60
    )
    assert completed.returncode == 0, completed.stdout
    assert json.loads(completed.stdout)["ok"] is True
    *said, loaded = completed.stderr.splitlines()
    assert said == []  # no plugin said it was loaded
    assert json.loads(loaded) == []


def test_a_process_that_imports_the_toolkit_keeps_its_pydantic_plugins(tmp_path: Path) -> None:
    """Only the agentapps program turns them off (agentapps/console.py): a test run that loads the
    harness's pytest plugin, or a runtime built on the toolkit, still has its own."""
    program = "import agentapps.harness, agentapps.cli, pydantic\nclass M(pydantic.BaseModel):\n    a: int\n"
    completed = subprocess.run(
        [sys.executable, "-c", program],
        env={**os.environ, "PYTHONPATH": str(installed_plugin(tmp_path / "site"))},
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert (completed.returncode, completed.stderr) == (0, "the plugin is loaded\n")


# The agentapps program run as `python -m agentapps`, with a finder that notes, when the toolkit's
# cli is first looked for (its imports take a while), whether SIGINT is at its default action yet.
SIGINT_AT_THE_IMPORTS = """
import runpy, signal, sys
seen = []
class Probe:
    def find_spec(self, name, path=None, target=None):
        if name == "agentapps.cli":
            seen.append(signal.getsignal(signal.SIGINT) is signal.SIG_DFL)
sys.meta_path.insert(0, Probe())
sys.argv = ["agentapps", "--version"]
try:
    runpy.run_module("agentapps", run_name="__main__", alter_sys=True)
except SystemExit:
    pass
print(seen, signal.getsignal(signal.SIGINT) is signal.SIG_DFL, file=sys.stderr)
"""


def test_the_program_ends_quietly_on_a_sigint_while_it_imports() -> None:
    """Found by an outside review: a SIGINT while agentapps imported the toolkit (about half a
    second on a loaded machine) printed a KeyboardInterrupt traceback. The program puts SIGINT
    at its default action before those imports, as the apps do, and a run with a program
    leaves it there; a process that imports the toolkit keeps its own (the test process here)."""
    completed = subprocess.run(
        [sys.executable, "-c", SIGINT_AT_THE_IMPORTS], cwd=SUITE, capture_output=True, text=True, timeout=60
    )
    assert json.loads(completed.stdout)["ok"] is True
    assert completed.stderr.splitlines()[-1] == "[True] True"
    assert signal.getsignal(signal.SIGINT) is not signal.SIG_DFL


@pytest.mark.parametrize(
    ("runtime", "message"),
    [
        ("'unterminated", '--runtime "\'unterminated" cannot be read as a command (No closing quotation).'),
        ("", "--runtime is empty: it names the runtime's command."),
        ("  ", "--runtime is empty: it names the runtime's command."),
    ],
    ids=["quote-left-open", "empty", "blank"],
)
@pytest.mark.parametrize("command", ["replay", "conformance"])
def test_a_runtime_command_that_names_no_command_is_refused_before_anything_runs(
    agentapps: Callable[..., ToolkitResult], command: str, runtime: str, message: str
) -> None:
    """Found by an outside review: a quote left open was an INTERNAL_ERROR, and an empty
    --runtime ran the package folder itself (replay) or failed every case (conformance)."""
    path = (
        SUITE / "agentic-to-do" / "scenarios" / "version-prints-the-package-version-as-an-envelope.json"
        if command == "replay"
        else SUITE / "conformance" / "cases" / "run" / "two-json-documents-are-not-one.json"
    )
    refused = agentapps(command, "--runtime", runtime, str(path))
    assert (refused.exit_status, refused.error_code) == (3, "VALIDATION_ERROR")
    assert refused.envelope["error"]["message"] == message
    assert "--runtime '" in refused.envelope["error"]["hint"]


def test_check_fails_an_entry_script_that_is_not_a_file_of_the_package(
    agentapps: Callable[..., ToolkitResult], tmp_path: Path
) -> None:
    """Found by an outside review: `python3 app/nope.py` passed check (each run's failure only a
    warning); so did an app/ that is a relative symlink out of the package, whose code breaks the
    seed's rules where `run` follows the link."""
    missing = tmp_path / "missing" / "valid-package"
    shutil.copytree(FIXTURES / "valid-package", missing)
    manifest = missing / "APP.md"
    manifest.write_text(manifest.read_text().replace("python3 app/cli.py", "python3 app/nope.py"))
    outside = tmp_path / "linked" / "valid-package"
    shutil.copytree(FIXTURES / "valid-package", outside)
    shutil.move(outside / "app", tmp_path / "outside-app")
    (outside / "app").symlink_to(Path("..", "..", "outside-app"))
    for package, rule, said in (
        (missing, "entry.runs", "entry.command runs app/nope.py, which is not a file of the package."),
        (outside, "files.outside", f"{outside / 'app' / 'cli.py'} resolves outside the package"),
    ):
        result = agentapps("check", str(package), "--approve")
        assert (result.exit_status, result.error_code) == (13, "CHECK_FAILED"), result.envelope
        [report] = result.envelope["error"]["details"]["items"]
        errors = [finding for finding in report["findings"] if finding["severity"] == "error"]
        assert errors[0]["rule"] == rule, errors  # said before anything runs
        assert errors[0]["message"].startswith(said), errors[0]
        assert {finding["rule"] for finding in errors} <= {rule, "entry.runs"}, errors  # and its runs fail


@pytest.mark.parametrize(
    ("given", "said"),
    [
        ("nowhere-slug", "there is no such folder, and no package listed by `catalog` has that slug."),
        ("{tmp}/nowhere", "there is no such folder."),
        ("{tmp}", "it has no APP.md."),
    ],
    ids=["a-word", "a-missing-path", "a-folder-without-app-md"],
)
def test_run_names_what_is_missing_where_no_package_is(
    agentapps: Callable[..., ToolkitResult], tmp_path: Path, given: str, said: str
) -> None:
    """Found by an outside review: `run /nonexistent` spoke of a slug, though a path was given."""
    path = given.format(tmp=tmp_path)
    refused = agentapps("run", path, "--", "list")
    assert (refused.exit_status, refused.error_code) == (4, "NOT_FOUND")
    assert refused.envelope["error"]["message"] == f"No package at {path}: {said}"
