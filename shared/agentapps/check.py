"""`agentapps check`: does a package keep the Agent Applications v1 contract?

Each finding has a rule id, a severity (error or warning), a message and where it was found.
Errors fail the check. The package is run only as a temporary copy with a temporary state
folder, so its real state is never touched.

Rules, in the order they run:
  files.app-md, files.app, files.skills         required files and folders
  frontmatter.parse, frontmatter.fields          frontmatter readable; fields, types, allowed values
  frontmatter.slug                               slug present (warning) and kebab-case (error)
  frontmatter.schema                             `schema: agentapplications/v1` (warning)
  package.folder-name                            the folder is named after the slug (warning)
  skills.resolve, skills.valid                   skills resolve; each passes the Agent Skills validator
  body.sections, body.order                      recommended sections present, in order (warnings)
  body.scheduling                                `scheduling: supported` has a Scheduling section
  schemas.json, schemas.valid                    files in schemas/ are JSON and valid JSON Schema
  entry.runs, entry.timeout                      entry.command runs from the package root, in time
  cli.unknown-command                            an unknown command exits non-zero with JSON
  output.json, output.exit-status                every output is one JSON envelope; exit agrees with ok
  schemas.outputs                                every output validates against schemas/
  commands.match, commands.confirmation          declared commands and confirmations = what describe says
  commands.unverified                            no describe, so the two above cannot be checked (warning)
  confirmation.refuses                           each confirmationRequired command refuses without
                                                 its confirmation and changes nothing
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import re
import shutil
import tempfile
from collections.abc import Iterator
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from .manifest import AppManifest, ManifestError, read_body, read_frontmatter, skill_path
from .runtime import Invocation, Package, RunTimedOut, invoke

SECTIONS = ["Purpose", "CLI", "Commands", "Output", "State", "Scheduling", "Confirmations", "Skills"]
UNKNOWN_COMMAND = "__agentapps_check_unknown__"
PLACEHOLDER = "agentapps-check"


@dataclass
class Finding:
    rule: str
    severity: str  # "error" or "warning"
    message: str
    where: str


@dataclass
class Report:
    source: str
    findings: list[Finding] = field(default_factory=list)

    def error(self, rule: str, message: str, where: str) -> None:
        self.findings.append(Finding(rule, "error", message, where))

    def warning(self, rule: str, message: str, where: str) -> None:
        self.findings.append(Finding(rule, "warning", message, where))

    def as_dict(self) -> dict[str, Any]:
        errors = sum(finding.severity == "error" for finding in self.findings)
        return {
            "source": self.source,
            "passed": errors == 0,
            "errors": errors,
            "warnings": len(self.findings) - errors,
            "findings": [asdict(finding) for finding in self.findings],
        }


def check_package(root: Path, *, timeout: float = 30.0) -> Report:
    report = Report(str(root))
    manifest = _check_static(root, report)
    if manifest is not None and (root / "app").is_dir():
        with _temporary_copy(root) as (copy, state_dir):
            _Probe(Package(copy), manifest, state_dir, report, timeout).run_all()
    return report


def _check_static(root: Path, report: Report) -> AppManifest | None:
    """Everything that can be checked without running the package; the manifest if it is valid."""
    if not (root / "APP.md").is_file():
        report.error("files.app-md", "APP.md is missing.", str(root))
        return None
    for folder, rule in (("app", "files.app"), ("skills", "files.skills")):
        if not (root / folder).is_dir():
            report.error(rule, f"{folder}/ is missing.", str(root / folder))
    try:
        data = read_frontmatter(root / "APP.md")
    except ManifestError as error:
        report.error("frontmatter.parse", str(error), "APP.md")
        return None
    try:
        manifest = AppManifest.model_validate(data)
    except ValidationError as error:
        for problem in error.errors():
            where = ".".join(str(part) for part in problem["loc"]) or "frontmatter"
            rule = "frontmatter.slug" if where == "slug" else "frontmatter.fields"
            report.error(rule, f"{where}: {problem['msg']}.", f"APP.md frontmatter: {where}")
        return None
    if manifest.slug is None:
        report.warning("frontmatter.slug", "slug is recommended: runtimes refer to packages by it.", "APP.md")
    elif manifest.slug != root.name:
        report.warning(
            "package.folder-name", f"the folder is not named after the slug {manifest.slug!r}.", str(root)
        )
    if manifest.schema_id != "agentapplications/v1":
        report.warning("frontmatter.schema", "schema: agentapplications/v1 is recommended.", "APP.md")
    _check_skills(root, manifest, report)
    _check_body(root, manifest, report)
    _check_schema_files(root, report)
    return manifest


def _check_skills(root: Path, manifest: AppManifest, report: Report) -> None:
    from skills_ref import validate

    for shortname in manifest.skills:
        path = skill_path(root, shortname)
        if not path.is_file():
            report.error(
                "skills.resolve", f"skill {shortname!r} does not resolve.", str(path.relative_to(root))
            )
            continue
        for problem in validate(path.parent):
            report.error("skills.valid", problem, str(path.relative_to(root)))


def _check_body(root: Path, manifest: AppManifest, report: Report) -> None:
    try:
        body = read_body(root / "APP.md")
    except (OSError, UnicodeDecodeError) as error:
        report.error("body.sections", f"the body cannot be read: {error}.", "APP.md")
        return
    headings = [
        heading for heading in re.findall(r"^## +(\w+)", body, flags=re.MULTILINE) if heading in SECTIONS
    ]
    expected = [
        section
        for section in SECTIONS
        if (section != "Scheduling" or manifest.scheduling == "supported")
        and (section != "Confirmations" or manifest.confirmation_required)
    ]
    missing = [section for section in expected if section not in headings]
    if missing:
        report.warning("body.sections", f"recommended sections missing: {', '.join(missing)}.", "APP.md body")
    if headings != sorted(headings, key=SECTIONS.index):
        report.warning(
            "body.order", f"sections are not in the recommended order: {', '.join(headings)}.", "APP.md body"
        )
    if manifest.scheduling == "supported" and "Scheduling" not in headings:
        report.error(
            "body.scheduling", "scheduling: supported, but the body has no Scheduling section.", "APP.md body"
        )


def _check_schema_files(root: Path, report: Report) -> None:
    from jsonschema import Draft202012Validator
    from jsonschema.exceptions import SchemaError

    for path in sorted((root / "schemas").glob("*.json")) if (root / "schemas").is_dir() else []:
        where = str(path.relative_to(root))
        try:
            schema = json.loads(path.read_text(encoding="utf-8"))
        except (UnicodeDecodeError, json.JSONDecodeError) as error:
            report.error("schemas.json", f"not valid JSON: {error}.", where)
            continue
        try:
            Draft202012Validator.check_schema(schema)
        except SchemaError as error:
            report.error("schemas.valid", f"not a valid JSON Schema: {error.message}.", where)


class _Probe:
    """Runs the package copy and turns what it sees into findings."""

    def __init__(
        self, package: Package, manifest: AppManifest, state_dir: Path, report: Report, timeout: float
    ) -> None:
        self.package = package
        self.manifest = manifest
        self.state_dir = state_dir
        self.report = report
        self.timeout = timeout
        self.env = {key: value for key, value in os.environ.items() if not key.startswith("AGENTIC_")}
        self.env["AGENTIC_STATE_DIR"] = str(state_dir)
        self.stopped = False

    def run_all(self) -> None:
        unknown = self.run([UNKNOWN_COMMAND])
        # Output that is not an envelope, or a wrong exit status, is already an output.* finding.
        if unknown is not None and unknown.ok:
            self.report.error(
                "cli.unknown-command",
                "an unknown command succeeded; it must fail with a JSON error.",
                UNKNOWN_COMMAND,
            )
        description = self._describe()
        for command in self._read_only_commands(description):
            self.run([command])
        for command in self.manifest.confirmation_required:
            self._check_confirmation(command, description)

    def run(self, args: list[str]) -> Invocation | None:
        """One run of the copy; contract violations become findings. None when it could not run."""
        if self.stopped:
            return None
        where = " ".join(["entry.command", *args])
        try:
            invocation = invoke(self.package, args, env=self.env, timeout=self.timeout)
        except RunTimedOut as error:
            self.report.error("entry.timeout", f"{error}; no further runs were tried.", where)
            self.stopped = True
            return None
        except OSError as error:
            self.report.error("entry.runs", f"entry.command cannot start: {error}.", where)
            self.stopped = True
            return None
        for violation in invocation.violations:
            self.report.error(_rule_of(violation), violation, where)
        return invocation

    def _describe(self) -> dict[str, Any] | None:
        if "describe" not in self.manifest.commands:
            self.report.warning(
                "commands.unverified",
                "no describe command, so declared commands cannot be compared.",
                "APP.md",
            )
            return None
        described = self.run(["describe"])
        if described is None or described.violations:
            return None  # already reported
        if not described.ok:
            self.report.error(
                "entry.runs", "describe is declared but did not succeed.", "entry.command describe"
            )
            return None
        assert described.envelope is not None
        item = described.envelope.get("item", {})
        commands = {command["name"]: command for command in item.get("commands", [])}
        declared = set(self.manifest.commands)
        if set(commands) != declared:
            extra, missing = sorted(set(commands) - declared), sorted(declared - set(commands))
            self.report.error(
                "commands.match",
                f"APP.md commands differ from the CLI's: not declared {extra}, not in the CLI {missing}.",
                "APP.md commands",
            )
        confirmed = sorted(name for name, command in commands.items() if command.get("confirmationRequired"))
        declared_confirmed = sorted(self.manifest.confirmation_required)
        if confirmed != declared_confirmed:
            self.report.error(
                "commands.confirmation",
                f"confirmationRequired is {declared_confirmed}, the CLI says {confirmed}.",
                "APP.md confirmationRequired",
            )
        return commands

    def _read_only_commands(self, description: dict[str, Any] | None) -> list[str]:
        """Commands that change nothing and need no argument: safe to run to see their output."""
        if description is None:
            return []
        return [
            name
            for name, command in description.items()
            if name != "describe"
            and not command.get("mutatesState")
            and not any(argument.get("required") for argument in command.get("arguments", []))
        ]

    def _check_confirmation(self, command: str, description: dict[str, Any] | None) -> None:
        target = self._create_entity(description)
        args = [command, target] if target else [command, PLACEHOLDER]
        before = _snapshot(self.package.root, self.state_dir)
        result = self.run(args)
        if result is None:
            return
        if result.ok:
            self.report.error(
                "confirmation.refuses", f"{command} succeeded without its confirmation.", " ".join(args)
            )
        if _snapshot(self.package.root, self.state_dir) != before:
            self.report.error(
                "confirmation.refuses", f"{command} without its confirmation changed files.", " ".join(args)
            )

    def _create_entity(self, description: dict[str, Any] | None) -> str | None:
        """Make one entity with the first command that creates from text alone; its id, if any."""
        for name, command in (description or {}).items():
            arguments = command.get("arguments", [])
            if (
                not command.get("mutatesState")
                or command.get("confirmationRequired")
                or any(argument.get("type") != "string" for argument in arguments)
                or any(option.get("required") for option in command.get("options", []))
            ):
                continue
            if any(argument.get("name") == "id" for argument in arguments):
                continue
            created = self.run([name] + [PLACEHOLDER for argument in arguments if argument.get("required")])
            item = (created.envelope or {}).get("item") if created is not None and created.ok else None
            if isinstance(item, dict) and isinstance(item.get("id"), str):
                return str(item["id"])
        return None


def _rule_of(violation: str) -> str:
    if violation.startswith("envelope does not match its schema"):
        return "schemas.outputs"
    if "exit status" in violation:
        return "output.exit-status"
    return "output.json"


@contextlib.contextmanager
def _temporary_copy(root: Path) -> Iterator[tuple[Path, Path]]:
    """A copy of the package, named like it, and an empty state folder; both removed afterwards."""
    with tempfile.TemporaryDirectory(prefix="agentapps-check-") as scratch:
        copy = Path(scratch) / root.name
        shutil.copytree(root, copy, symlinks=True, ignore=shutil.ignore_patterns("__pycache__"))
        state_dir = Path(scratch) / "state"
        state_dir.mkdir()
        yield copy, state_dir


def _snapshot(*folders: Path) -> dict[str, str]:
    """Path → content hash of every file under the folders (lock files aside: taking a lock is
    not a change)."""
    hashes = {}
    for folder in folders:
        for path in sorted(folder.rglob("*")):
            if path.is_file() and not path.name.endswith(".lock") and "__pycache__" not in path.parts:
                hashes[str(path)] = hashlib.sha256(path.read_bytes()).hexdigest()
    return hashes
