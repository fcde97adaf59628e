"""Each package as a package: APP.md, SKILL.md, schemas/ and the vendored kit agree with the code."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from agentapps.harness import AppRunner
from agentapps.manifest import load_app_manifest, load_skill_manifest, read_body, skill_path
from agentapps.sync import stale_files
from agentic_kit.errors import EXIT_STATUS
from tests.packages import AppFacts

SECTIONS = ["Purpose", "CLI", "Commands", "Output", "State", "Scheduling", "Confirmations", "Skills"]
KIT_VARIABLES = {"AGENTIC_STATE_DIR", "AGENTIC_LOCK_TIMEOUT", "AGENTIC_NOW", "AGENTIC_TZ"}


def cli_commands(app: AppRunner) -> list[str]:
    usage = app.run("--help").envelope["help"]
    listed = usage.split("Commands:")[1]
    return [line.split()[0] for line in listed.strip().splitlines()]


def test_the_to_do_frontmatter_is_the_reference_contract() -> None:
    manifest = load_app_manifest(Path(__file__).resolve().parents[2] / "agentic-to-do")
    assert (manifest.schema_id, manifest.kind, manifest.slug) == (
        "agentapplications/v1",
        "app",
        "agentic-to-do",
    )
    assert manifest.name == "Agentic To-Do"
    assert manifest.commands == [
        *("add", "list", "due", "get", "search", "update", "complete", "reopen", "remove"),
        *("purge", "export", "import", "describe"),
    ]


def test_frontmatter_has_the_suite_conventions(app: AppRunner) -> None:
    manifest = app.package.manifest
    assert (manifest.schema_id, manifest.kind, manifest.slug) == (
        "agentapplications/v1",
        "app",
        app.package.root.name,
    )
    assert manifest.entry.command == "python3 app/cli.py"
    assert manifest.scheduling == "supported"
    # Every app confirms remove; the to-do also purge, which removes many at once.
    expected = ["remove", "purge"] if manifest.slug == "agentic-to-do" else ["remove"]
    assert manifest.confirmation_required == expected
    assert manifest.skills == [f"{manifest.slug}-usage"]
    assert ". " not in manifest.description  # one sentence
    assert len(manifest.description) <= 200


def test_declared_commands_are_exactly_the_cli_commands(app: AppRunner) -> None:
    assert sorted(app.package.manifest.commands) == sorted(cli_commands(app))


def test_describe_lists_exactly_the_declared_commands(app: AppRunner) -> None:
    described = app.run("describe").item["commands"]
    assert sorted(command["name"] for command in described) == sorted(app.package.manifest.commands)


def test_describe_marks_confirmation_exactly_as_the_manifest_does(app: AppRunner) -> None:
    described = app.run("describe").item["commands"]
    needs_confirmation = [command["name"] for command in described if command["confirmationRequired"]]
    assert needs_confirmation == app.package.manifest.confirmation_required
    assert all(command["mutatesState"] for command in described if command["confirmationRequired"])


def test_describe_lists_the_error_table(app: AppRunner) -> None:
    errors = app.run("describe").item["errors"]
    assert {error["code"]: error["exit"] for error in errors} == {
        code.value: s for code, s in EXIT_STATUS.items()
    }


def test_every_declared_command_has_its_own_subsection(app: AppRunner) -> None:
    body = read_body(app.package.root / "APP.md")
    documented = re.findall(r"^### `(\w+)", body, flags=re.MULTILINE)
    assert documented == app.package.manifest.commands


def test_body_sections_are_present_and_in_the_recommended_order(app: AppRunner) -> None:
    headings = re.findall(r"^## (\w+)", read_body(app.package.root / "APP.md"), flags=re.MULTILINE)
    assert headings == SECTIONS


def test_the_error_table_in_app_md_matches_the_kit(app: AppRunner) -> None:
    rows = re.findall(
        r"^\| `([A-Z_]+)` \| (\d+) \|", read_body(app.package.root / "APP.md"), flags=re.MULTILINE
    )
    assert {code: int(status) for code, status in rows} == {code.value: s for code, s in EXIT_STATUS.items()}


def test_every_environment_variable_the_code_reads_is_documented(app: AppRunner, facts: AppFacts) -> None:
    code = "".join(path.read_text() for path in (app.package.root / "app").rglob("*.py"))
    variables = set(re.findall(r'"(AGENTIC_[A-Z_]+)"', code)) - {"AGENTIC_DEBUG"}
    assert variables == KIT_VARIABLES | {facts.state_file_env}
    body = read_body(app.package.root / "APP.md")
    assert [name for name in sorted(variables) if f"`{name}`" not in body] == []


def test_the_skill_resolves_and_fits_agent_skills_rules(app: AppRunner) -> None:
    for shortname in app.package.manifest.skills:
        skill = load_skill_manifest(skill_path(app.package.root, shortname))
        assert skill.name == shortname
        assert len(skill_path(app.package.root, shortname).read_text().splitlines()) < 500


def test_the_skill_passes_the_reference_validator(app: AppRunner) -> None:
    validator = shutil.which("agentskills", path=str(Path(sys.executable).parent))
    assert validator is not None, "skills-ref must be installed with the test extra"
    for shortname in app.package.manifest.skills:
        folder = skill_path(app.package.root, shortname).parent
        completed = subprocess.run(
            [validator, "validate", str(folder)], capture_output=True, text=True, check=False
        )
        assert completed.returncode == 0, completed.stdout + completed.stderr


def test_the_entry_script_names_its_dependencies_inline(app: AppRunner) -> None:
    script = (app.package.root / "app" / "cli.py").read_text()
    block = re.search(r"^# /// script\n((?:#.*\n)+?)# ///$", script, flags=re.MULTILINE)
    assert block is not None
    metadata = tomllib.loads("\n".join(line[2:] for line in block.group(1).splitlines()))
    assert {re.split(r"[<>=; ]", dep)[0] for dep in metadata["dependencies"]} == {
        "typer",
        "filelock",
        "pydantic",
        "tzdata",  # only where the OS has no zone database: `sys_platform == 'win32'`
    }
    assert metadata["requires-python"] == ">=3.11"


@pytest.mark.parametrize("folder", ["app/agentic_kit", "schemas", "APP.md"])
def test_generated_files_are_up_to_date(app: AppRunner, folder: str) -> None:
    stale = [str(path) for path in stale_files(app.package.root) if str(path).startswith(folder)]
    assert stale == [], "run `nox -s sync` and commit the result"
