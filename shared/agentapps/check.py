"""`agentapps check`: does a package keep the Agent Applications v1 contract?

Each finding has a rule id, a severity (error or warning), a message and where it was found.
Errors fail the check. The package is run only as a temporary copy with a temporary state
folder, so its real state is never touched.

Check runs the package's code: it is not a sandbox, so the CLI applies the trust rule first.

Rules, in the order they run (warnings say so; every other finding is an error):
  files.app-md, files.app, files.skills         required files and folders (skills/ only when
                                                 skills are listed: `skills: []` needs none)
  files.special                                  a FIFO, socket or device in the package (warning:
                                                 it is not copied into the checked copy)
  files.outside                                  APP.md, a SKILL.md or a schema resolves outside the
                                                 package (a symlink): it is not read
  frontmatter.parse, frontmatter.fields          frontmatter readable; fields, types, allowed values
  frontmatter.schema                             `schema` other than agentapplications/v1 (error:
                                                 unsupported); no `schema` (warning)
  frontmatter.slug                               slug present (warning) and kebab-case (error)
  frontmatter.unknown                            keys the format does not define (warning: kept)
  frontmatter.description                        more than one sentence (warning)
  package.folder-name                            the folder is named after the slug (warning)
  skills.resolve, skills.valid                   skills resolve; each passes the Agent Skills validator
  body.text                                      the APP.md body is readable UTF-8 within the size limit
  body.sections, body.order                      recommended sections present, in order (warnings)
  body.scheduling                                `scheduling: supported` has a Scheduling section
  schemas.json, schemas.valid                    files in schemas/ are JSON and valid JSON Schema
                                                 that a runtime can apply (its patterns of the
                                                 linear-time kind: no lookaround, no backreferences);
                                                 warnings: the seed fixes no format for them
  schemas.refs                                   a `$ref` to anything but the same file (warning: the
                                                 runtime never fetches it, so that part is not applied)
  kit.copy                                       a vendored kit (app/agentic_kit/) that is not the kit
                                                 this agentapps carries as `agentapps sync` wrote it:
                                                 no sync-record.json, a file edited or removed since,
                                                 or an older kit version (warning: run `agentapps
                                                 sync`); a package without app/agentic_kit/ has none
  schemas.stale                                  a package built on the kit whose schemas/ are not what
                                                 `agentapps sync` would write from its app's models
                                                 (warning: the seed leaves schemas/ to the package;
                                                 an output they no longer describe is schemas.outputs)
  files.size                                     the package's files together (apparent size) are at
                                                 most MAX_PACKAGE_BYTES; larger is not copied or run
  entry.runs, entry.timeout                      entry.command runs from the package root, in time
  check.deadline                                 all runs of the package together passed the check's
                                                 deadline; the runs left are named, never passed
  cli.unknown-command                            an unknown command exits non-zero
  output.json, output.exit-status, output.size   success output is parseable JSON; `ok`, when given,
                                                 is a boolean that agrees with the exit status;
                                                 output stays within the cap
  output.structured-error, output.envelope       a failure without a structured JSON error, a success
                                                 without `ok` (warnings: recommended, not required)
  schemas.outputs                                every output validates against schemas/
  commands.match, commands.confirmation          declared commands and confirmations = what describe says
  commands.unverified                            no describe, so the two above cannot be checked (warning)
  confirmation.refuses                           each confirmationRequired command refuses without
                                                 its confirmation and changes nothing
  confirmation.unverified                        no entity could be created to aim the command at, so
                                                 its refusal proves nothing (warning: it says how to
                                                 declare sample arguments, below)
  check.samples                                  `metadata.agentapps.checkSamples` is not a mapping of
                                                 command to a list of strings (warning: not used)

Sample arguments. Check creates an entity to aim each confirmation-gated command at, giving a
creating command the word PLACEHOLDER; an app that validates that argument (a URL, an email)
refuses it. A package may declare what to give instead, under the frontmatter's `metadata` (the
seed's place for "fields a specific runtime or host tool needs"; no runtime is bound to read it):

    metadata:
      agentapps:
        checkSamples:
          add: ["ann@example.com"]        # a command (or path), then the arguments check appends

Declared commands are tried first, in order, then check's own guesses.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import shutil
import stat
import sys
import tempfile
import time
from collections.abc import Iterator
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from .environment import package_environment
from .errors import ToolkitError
from .manifest import (
    SUPPORTED_SCHEMA,
    AppManifest,
    ManifestError,
    UnsupportedSchema,
    check_schema,
    load_skill_manifest,
    package_file,
    read_body,
    read_document,
    read_frontmatter,
    skill_path,
)
from .output import Invocation
from .package import Package, build, metaschema_problem, read_json_file
from .process import TimedOut, run_bounded
from .runtime import RunOptions, RunTimedOut, invoke
from .snapshot import folder_snapshot
from .sync import KIT_FOLDER, kit_copy_problems
from .warm import python_entry

SECTIONS = ["Purpose", "CLI", "Commands", "Output", "State", "Scheduling", "Confirmations", "Skills"]
UNKNOWN_COMMAND = "__agentapps_check_unknown__"
PLACEHOLDER = "agentapps-check"
# sh's statuses for a command that could not run: not executable, not found.
SHELL_CANNOT_RUN = {126: "not executable", 127: "not found"}
# A sentence ends, and another starts: ". A", "! The" (a lower-case word after "e.g." does not count).
SENTENCE_BREAK = re.compile(r"[.!?]\s+[A-Z0-9`\"']")
# Check copies a package before running it: larger than this, counted by apparent size (a sparse
# file counts whole, as copying would write it whole), it is refused before anything is copied.
MAX_PACKAGE_BYTES = 256 * 1024 * 1024
# All runs of one package together may take this many times --timeout (each run takes at most
# --timeout); past it the runs left are reported as not run (check.deadline), never as passed.
DEADLINE_TIMEOUTS = 10
# Run in a child on the package's copy (it imports the package's entry script, so never in this
# process): the schemas/ files `agentapps sync` would write, change or remove, as JSON on the last line.
STALE_SCHEMAS = (
    "import json, sys\n"
    "from pathlib import Path\n"
    "from agentapps.sync import SCHEMA_FOLDER, plan\n"
    "stale = plan(Path(sys.argv[1])).stale\n"
    "print('\\n' + json.dumps([str(path) for path in stale if path.parent == SCHEMA_FOLDER]))\n"
)
# Where a package declares the arguments check gives its creating commands (see the docstring).
MAX_TARGET_CHARS = 1_000  # the longest created id check aims a command at: any real id fits
SAMPLES_HOW = (
    "declare the arguments check should give a creating command in APP.md's frontmatter: "
    '`metadata: {agentapps: {checkSamples: {"<command>": ["<argument>", ...]}}}`'
)


# Where each rule comes from. seed: the format's two source documents (its recommendations are
# warnings). agent-skills: the Agent Skills spec, for SKILL.md. runtime: what a runtime refuses so
# that running a package stays safe and bounded. suite: this suite's conventions, never errors.
SUITE_RULES = frozenset(
    {
        "files.app",
        "package.folder-name",
        "kit.copy",
        "commands.unverified",
        "confirmation.unverified",
        "contract.no-success",
        "body.scheduling",
        "check.samples",
        "schemas.stale",
        # The seed lists schemas/ as optional and fixes no format for its files: one that is not
        # a JSON Schema this runtime can apply is not applied, and said so (found by a runtime
        # author whose seed app kept command metadata there, failed "by a rule of the seed").
        "schemas.json",
        "schemas.valid",
    }
)
RUNTIME_RULES = frozenset(
    {"files.outside", "files.special", "files.size", "entry.timeout", "check.deadline", "output.size"}
)
AGENT_SKILLS_RULES = frozenset({"skills.valid"})


def rule_basis(rule: str) -> str:
    """`seed`, `agent-skills`, `runtime` or `suite`: where the rule comes from."""
    if rule in SUITE_RULES:
        return "suite"
    if rule in RUNTIME_RULES:
        return "runtime"
    if rule in AGENT_SKILLS_RULES:
        return "agent-skills"
    return "seed"


@dataclass
class Finding:
    rule: str
    severity: str  # "error" or "warning"
    message: str
    where: str
    basis: str = ""  # rule_basis(rule), set on creation

    def __post_init__(self) -> None:
        self.basis = rule_basis(self.rule)


@dataclass
class Report:
    source: str
    findings: list[Finding] = field(default_factory=list)

    def error(self, rule: str, message: str, where: str) -> None:
        if rule_basis(rule) == "suite":  # a convention of this suite is never an error
            self.warning(rule, message, where)
            return
        self.findings.append(Finding(rule, "error", message, where))

    def warning(self, rule: str, message: str, where: str) -> None:
        # Each warning once: every run of a package that never gives `ok` would repeat it.
        if not any(found.rule == rule and found.message == message for found in self.findings):
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


def check_package(root: Path, options: RunOptions | None = None) -> Report:
    report = Report(str(root))
    manifest = _check_static(root, report)
    if manifest is not None and (root / "app").is_dir() and _fits(root, report):
        with _temporary_copy(root, report) as (copy, state_dir, home):
            options = options or RunOptions(timeout=30.0)
            _Probe(Package(copy), manifest, state_dir, home, report, options).run_all()
    return report


def _fits(root: Path, report: Report) -> bool:
    """Whether the package's files together are at most MAX_PACKAGE_BYTES (apparent size, links
    not followed); a files.size error, and nothing copied or run, when they are not."""
    total = 0
    for folder, _, names in os.walk(root):
        for name in names:
            with contextlib.suppress(OSError):
                mode = os.lstat(os.path.join(folder, name))
                total += mode.st_size if stat.S_ISREG(mode.st_mode) else 0
        if total > MAX_PACKAGE_BYTES:
            report.error(
                "files.size",
                f"the package's files hold more than {MAX_PACKAGE_BYTES} bytes (apparent size); check "
                "copies a package before running it, so it is neither copied nor run: every rule that "
                "runs the package was not run.",
                str(root),
            )
            return False
    return True


def _check_static(root: Path, report: Report) -> AppManifest | None:
    """Everything that can be checked without running the package; the manifest if it is valid."""
    if not os.path.lexists(root / "APP.md"):
        report.error("files.app-md", "APP.md is missing.", str(root))
        return None
    if not (root / "app").is_dir():
        report.error("files.app", "app/ is missing.", str(root / "app"))
    try:
        package_file(root, "APP.md")
    except ManifestError as error:
        report.error("files.outside", str(error), "APP.md")
        return None
    try:
        data = read_frontmatter(root / "APP.md")
        check_schema(data, root / "APP.md")
    except UnsupportedSchema as error:
        report.error("frontmatter.schema", str(error), "APP.md frontmatter: schema")
        return None
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
    if manifest.skills and not (root / "skills").is_dir():
        report.error("files.skills", "skills/ is missing, and skills are listed.", str(root / "skills"))
    _check_frontmatter(root, manifest, report)
    _check_entry_script(root, manifest, report)
    _check_skills(root, manifest, report)
    _check_body(root, manifest, report)
    _check_schema_files(root, report)
    _check_kit_copy(root, report)
    return manifest


def _check_entry_script(root: Path, manifest: AppManifest, report: Report) -> None:
    """An entry that runs a Python script of the package (`python3 app/cli.py`) names a file of
    the package. Found by an outside review: a script that does not exist, or an app/ that is a
    symlink out of the package (its copy's link then pointing nowhere), passed with warnings
    only, as each run's plain-text failure is only a warning."""
    entry = python_entry(manifest.entry.command)
    if entry is None or os.path.isabs(entry[1]):
        return
    where = "APP.md frontmatter: entry.command"
    try:
        script = package_file(root, entry[1])
    except ManifestError as error:
        report.error("files.outside", str(error), where)
        return
    if not script.is_file():
        report.error(
            "entry.runs", f"entry.command runs {entry[1]}, which is not a file of the package.", where
        )


def _check_kit_copy(root: Path, report: Report) -> None:
    for problem in kit_copy_problems(root):
        report.warning("kit.copy", f"{problem} Run `agentapps sync` on the package.", str(KIT_FOLDER))


def _check_frontmatter(root: Path, manifest: AppManifest, report: Report) -> None:
    if manifest.schema_id is None:
        report.warning("frontmatter.schema", f"schema: {SUPPORTED_SCHEMA} is recommended.", "APP.md")
    if manifest.slug is None:
        report.warning("frontmatter.slug", "slug is recommended: runtimes refer to packages by it.", "APP.md")
    elif manifest.slug != root.name:
        report.warning(
            "package.folder-name", f"the folder is not named after the slug {manifest.slug!r}.", str(root)
        )
    unknown = manifest.unknown_keys + [f"entry.{key}" for key in sorted(manifest.entry.model_extra or {})]
    if unknown:
        report.warning(
            "frontmatter.unknown",
            f"keys the format does not define: {', '.join(unknown)}. They are kept, but no runtime "
            "is bound to read them; tool-specific extensions belong in `metadata`.",
            "APP.md frontmatter",
        )
    description = manifest.description.strip()
    if "\n" in description or SENTENCE_BREAK.search(description):
        report.warning(
            "frontmatter.description",
            "the description should be one sentence.",
            "APP.md frontmatter: description",
        )


def _check_skills(root: Path, manifest: AppManifest, report: Report) -> None:
    from skills_ref import validate

    for shortname in manifest.skills:
        path = skill_path(root, shortname)
        where = str(path.relative_to(root))
        if not os.path.lexists(path):
            report.error("skills.resolve", f"skill {shortname!r} does not resolve.", where)
            continue
        try:
            package_file(root, where)
        except ManifestError as error:
            report.error("files.outside", str(error), where)
            continue
        try:
            read_document(path)  # the validator reads it whole: only a regular UTF-8 file, bounded
            load_skill_manifest(path)  # what activate reads: no key twice, as in APP.md
        except ManifestError as error:
            report.error("skills.valid", str(error), where)
            continue
        for problem in validate(path.parent):
            report.error("skills.valid", problem, where)


def _check_body(root: Path, manifest: AppManifest, report: Report) -> None:
    try:
        body = read_body(root / "APP.md")
    except ManifestError as error:
        report.error("body.text", f"the body cannot be read: {error}", "APP.md")
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
    for path in sorted((root / "schemas").glob("*.json")) if (root / "schemas").is_dir() else []:
        where = str(path.relative_to(root))
        try:
            package_file(root, where)
        except ManifestError as error:
            report.error("files.outside", str(error), where)
            continue
        try:
            schema = read_json_file(path)
        except (ManifestError, ValueError, RecursionError) as error:
            report.warning("schemas.json", f"not valid JSON, so not applied: {error}.", where)
            continue
        problem = metaschema_problem(schema)
        if problem is not None:
            report.warning("schemas.valid", f"not a valid JSON Schema, so not applied: {problem}.", where)
            continue
        built = build(schema)
        unbuildable, elsewhere = built.problem, sorted(set(built.unfetched))
        if elsewhere:
            # A place inside a document never fetched cannot be found: the whole schema is not
            # applied then, which only the runtime's build can tell.
            whole = f" Here none of it is ({unbuildable})." if unbuildable else ""
            report.warning(
                "schemas.refs",
                f"refers to {', '.join(elsewhere)}: a runtime never fetches a schema from the network "
                f"or another file, so that part is not applied to outputs.{whole}",
                where,
            )
        elif unbuildable is not None:
            report.warning(
                "schemas.valid", f"a runtime cannot apply it, so it is not applied: {unbuildable}.", where
            )


class _Probe:
    """Runs the package copy and turns what it sees into findings."""

    def __init__(
        self,
        package: Package,
        manifest: AppManifest,
        state_dir: Path,
        home: Path,
        report: Report,
        options: RunOptions,
    ) -> None:
        self.package = package
        self.manifest = manifest
        self.state_dir = state_dir
        self.report = report
        self.options = options
        # A temporary HOME as well as temporary state: what the package writes under ~ (a cache,
        # a config file) is the check's, never the caller's.
        self.env = package_environment(
            options.env_names,
            inherit_agentic=False,
            overrides={"AGENTIC_STATE_DIR": str(state_dir), "HOME": str(home)},
        )
        self.stopped = False
        self.deadline = time.monotonic() + DEADLINE_TIMEOUTS * options.timeout
        # A command of the app's exited 0, so the seed's rule (JSON on success) was judged.
        self.exited_zero = False
        self.samples = _declared_samples(manifest, report)
        self.samples_refused: list[str] = []  # declared samples that created nothing

    def run_all(self) -> None:
        self._check_schemas_synced()
        unknown = self.run([UNKNOWN_COMMAND])
        if unknown is not None and unknown.exit_status == 0 and not unknown.violations:
            self.report.error(
                "cli.unknown-command", "an unknown command succeeded; it must exit non-zero.", UNKNOWN_COMMAND
            )
        description = self._describe()
        for command in self._read_only_commands(description):
            self.run([command])
        if description is None:
            # The seed's one hard rule is JSON on success, so some command must be seen to succeed:
            # without describe, each declared command not gated by confirmation, bare, until one
            # does (in the package's temporary copy, with temporary state: nothing of the caller's).
            for command in self._ungated_commands():
                result = self.run(command.split(" "))
                if result is not None and result.exit_status == 0:
                    break
        for command in self.manifest.confirmation_required:
            self._check_confirmation(command, description)
        if not self.exited_zero and not self.stopped:
            # Judged last: a creation from declared samples is a success seen too.
            self.report.warning(
                "contract.no-success",
                "no command check ran succeeded, so JSON on success (the seed's rule) was not "
                f"seen; a command that needs arguments is run only with samples: {SAMPLES_HOW}.",
                "APP.md commands",
            )

    def _check_schemas_synced(self) -> None:
        """schemas.stale, for a package built on the kit (app/agentic_kit/): sync builds its
        schemas/ from its app's models, so they should be what sync would write now. A package
        sync cannot load (no kit app, an import that fails) is not judged here: its runs are."""
        root = self.package.root
        if not (root / KIT_FOLDER).is_dir() or self.deadline <= time.monotonic():
            return
        try:
            # Bounded as a run of the package is, in a session of its own, ended first if check
            # is interrupted (found by an outside review: a plain child outlived check, its copy
            # left behind).
            done = run_bounded(
                [sys.executable, "-c", STALE_SCHEMAS, str(root)],
                cwd=root,
                env=self.env,
                stdin=b"",
                timeout=min(self.options.timeout, self.deadline - time.monotonic()),
                max_output=self.options.max_output,
            )
            lines = done.stdout.decode("utf-8", "replace").strip().splitlines()
            stale = json.loads((lines or ["null"])[-1])
        except (OSError, TimedOut, ValueError):
            return
        if done.exit_status != 0 or not isinstance(stale, list):
            return
        for path in stale:
            self.report.warning(
                "schemas.stale",
                f"{path} is not what `agentapps sync` would write from the app's models (missing, "
                "different, or generated no longer): run `agentapps sync` on the package, so that "
                "its outputs are checked against what the app prints now.",
                str(path),
            )

    def _ungated_commands(self) -> list[str]:
        gated = set(self.manifest.confirmation_required)
        return [command for command in self.manifest.commands if command not in gated]

    def run(self, args: list[str]) -> Invocation | None:
        """One run of the copy; what it breaks becomes findings. None when it could not run."""
        if self.stopped:
            return None
        where = " ".join(["entry.command", *args])
        left = self.deadline - time.monotonic()
        if left <= 0:
            self._past_deadline(where)
            return None
        try:
            invocation = invoke(
                self.package,
                args,
                env=self.env,
                timeout=min(self.options.timeout, left),
                max_output=self.options.max_output,
            )
        except RunTimedOut as error:
            if left < self.options.timeout:
                self._past_deadline(where)
                return None
            self.report.error("entry.timeout", f"{error}; no further runs were tried.", where)
            self.stopped = True
            return None
        except OSError as error:
            self.report.error("entry.runs", f"entry.command cannot start: {error}.", where)
            self.stopped = True
            return None
        except ToolkitError as error:  # the runtime could not check what it printed: a finding too
            self.report.error("schemas.outputs", error.message, where)
            return None
        reason = SHELL_CANNOT_RUN.get(invocation.exit_status)
        if reason is not None and not invocation.stdout.strip():
            first_line = (invocation.stderr.strip().splitlines() or [""])[0]
            self.report.error(
                "entry.runs",
                f"entry.command could not run (sh exit {invocation.exit_status}, {reason}): {first_line}",
                where,
            )
            self.stopped = True
            return None
        for problem in invocation.violations:
            self.report.error(problem.rule, problem.message, where)
        for problem in invocation.warnings:
            self.report.warning(problem.rule, problem.message, where)
        # describe is this suite"s, and the unknown command must fail: neither is the app"s own.
        if args not in (["describe"], [UNKNOWN_COMMAND]):
            self.exited_zero |= invocation.exit_status == 0
        return invocation

    def _past_deadline(self, where: str) -> None:
        """The check's deadline passed: this run and every one after it are not made."""
        self.report.error(
            "check.deadline",
            f"the runs of this package together passed the check's deadline of "
            f"{DEADLINE_TIMEOUTS * self.options.timeout:g} s ({DEADLINE_TIMEOUTS} × --timeout): "
            f"`{where}` and the runs after it were not made, so the rules they check are not verified.",
            where,
        )
        self.stopped = True

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
        item = described.envelope.get("item") if described.ok and described.envelope else None
        if not isinstance(item, dict) or not isinstance(item.get("commands"), list):
            # An app that fails while it starts (a TypeError in its set-up) says why only on stderr.
            said = (described.stderr.strip().splitlines() or [""])[-1]
            self.report.error(
                "entry.runs",
                "describe is declared but did not give its commands (an envelope with item.commands)"
                + (f"; its stderr ends: {said[:300]}" if said else "."),
                "entry.command describe",
            )
            return None
        commands = {
            command["name"]: command
            for command in item["commands"]
            if isinstance(command, dict) and isinstance(command.get("name"), str)
        }
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
        args = [*command.split(" "), target or PLACEHOLDER]
        before = folder_snapshot(self.package.root, self.state_dir, skip={"__pycache__"})
        result = self.run(args)
        if result is None:
            return
        refused = True
        if result.succeeded:
            refused = False
            self.report.error(
                "confirmation.refuses", f"{command} succeeded without its confirmation.", " ".join(args)
            )
        if folder_snapshot(self.package.root, self.state_dir, skip={"__pycache__"}) != before:
            refused = False
            self.report.error(
                "confirmation.refuses", f"{command} without its confirmation changed files.", " ".join(args)
            )
        if refused and target is None:
            # Aimed at an id that does not exist, a refusal may be NOT_FOUND: it proves nothing.
            tried = (
                f" The declared samples for {', '.join(self.samples_refused)} created nothing (no "
                "entity's `id` in a successful answer)."
                if self.samples_refused
                else ""
            )
            self.report.warning(
                "confirmation.unverified",
                f"no entity could be created to aim {command} at, so its refusal without "
                f"confirmation could not be verified.{tried} If creating needs a valid value, "
                f"{SAMPLES_HOW}.",
                " ".join(args),
            )

    def _create_entity(self, description: dict[str, Any] | None) -> str | None:
        """Make one entity: with the package's declared samples first, then with the first
        command that creates from text alone; its id, if any."""
        sampled = self._create_from_samples(description)
        if sampled is not None:
            return sampled
        if description is None:
            return self._create_without_describe()
        for name, command in description.items():
            if name in self.samples:
                continue  # tried with its samples
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
            created = _created_id(
                self.run([name] + [PLACEHOLDER for argument in arguments if argument.get("required")])
            )
            if created is not None:
                return created
        return None

    def _create_without_describe(self) -> str | None:
        """Without describe, each declared command not gated by confirmation, given one sample
        word, until one answers a new entity (its id: `_created_id`), as the seed's `add <title>` does."""
        for command in self._ungated_commands():
            if command in self.samples:
                continue  # tried with its samples
            created = _created_id(self.run([*command.split(" "), PLACEHOLDER]))
            if created is not None:
                return created
        return None

    def _create_from_samples(self, description: dict[str, Any] | None) -> str | None:
        """The declared samples, in order, each of a command the package has and does not gate."""
        known = set(description) if description is not None else set(self.manifest.commands)
        gated = set(self.manifest.confirmation_required)
        for command, arguments in self.samples.items():
            if command not in known or command in gated:
                continue
            created = _created_id(self.run([*command.split(" "), *arguments]))
            if created is not None:
                return created
            if command not in self.samples_refused:
                self.samples_refused.append(command)
        return None


def _created_id(created: Invocation | None) -> str | None:
    """The new entity's id from a successful answer, if it gave one: `item.id` (this suite's
    apps), else the answer's own `id`, else the `id` of the one object in the answer that has one
    (a seed app may answer under `todo`: the seed names no key). A string or a whole number; one
    no command line can carry (a NUL, past MAX_TARGET_CHARS) is no target."""
    envelope = (created.envelope or {}) if created is not None and created.ok else {}
    item = envelope.get("item")
    held = [value["id"] for value in envelope.values() if isinstance(value, dict) and "id" in value]
    candidates = [
        item.get("id") if isinstance(item, dict) else None,
        envelope.get("id"),
        held[0] if len(held) == 1 else None,
    ]
    found = next((candidate for candidate in candidates if candidate is not None), None)
    if isinstance(found, bool) or not isinstance(found, str | int):
        return None
    text = str(found)
    return text if "\x00" not in text and len(text) <= MAX_TARGET_CHARS else None


def _declared_samples(manifest: AppManifest, report: Report) -> dict[str, list[str]]:
    """`metadata.agentapps.checkSamples`: command → the arguments check appends to it. A value of
    another shape is reported (check.samples) and not used."""
    agentapps = (manifest.metadata or {}).get("agentapps")
    declared = agentapps.get("checkSamples") if isinstance(agentapps, dict) else None
    if declared is None:
        return {}
    if isinstance(declared, dict) and all(
        isinstance(command, str)
        and isinstance(arguments, list)
        and all(isinstance(argument, str) for argument in arguments)
        for command, arguments in declared.items()
    ):
        return {" ".join(command.split()): list(arguments) for command, arguments in declared.items()}
    report.warning(
        "check.samples",
        "metadata.agentapps.checkSamples must map each command to a list of strings (the "
        'arguments check appends to it, e.g. `add: ["ann@example.com"]`); it is not used.',
        "APP.md frontmatter: metadata",
    )
    return {}


@contextlib.contextmanager
def _temporary_copy(root: Path, report: Report) -> Iterator[tuple[Path, Path, Path]]:
    """A copy of the package, named like it, and an empty state folder and HOME beside it (not
    inside: a package may be named `state`); all removed afterwards. FIFOs, sockets and devices are
    not copied (copying a FIFO would wait for a writer forever)."""

    def special_files(folder: str, names: list[str]) -> set[str]:
        skipped = {"__pycache__"}
        for name in names:
            mode = os.lstat(os.path.join(folder, name)).st_mode
            if not (stat.S_ISREG(mode) or stat.S_ISDIR(mode) or stat.S_ISLNK(mode)):
                skipped.add(name)
                where = str(Path(folder, name).relative_to(root))
                report.warning(
                    "files.special", f"{where} is not a regular file or folder: it is not copied.", where
                )
        return skipped

    with tempfile.TemporaryDirectory(prefix="agentapps-check-") as scratch:
        copy = Path(scratch) / "package" / root.name
        shutil.copytree(root, copy, symlinks=True, ignore=special_files)
        state_dir = Path(scratch) / "state"
        state_dir.mkdir()
        home = Path(scratch) / "home"
        home.mkdir()
        yield copy, state_dir, home
