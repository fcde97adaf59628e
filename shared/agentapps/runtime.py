"""A reference runtime: load a package and invoke it the way Agent Applications v1 says.

`invoke` runs `entry.command` from the package root with the arguments appended, reads stdout
only, and reports every way the run breaks the CLI contract as a violation: stdout that is not
exactly one JSON document, an envelope without a boolean `ok`, an exit status that disagrees
with `ok`, and an envelope that does not validate against the package's schemas/.
"""

from __future__ import annotations

import importlib.util
import json
import os
import shlex
import signal
import subprocess
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from types import ModuleType
from typing import Any

from .manifest import (
    AppManifest,
    ManifestError,
    load_app_manifest,
    load_skill_manifest,
    read_body,
    skill_path,
)

SUCCESS_SCHEMA = "success-envelope.schema.json"
_entry_modules: dict[Path, ModuleType] = {}
ERROR_SCHEMA = "error-envelope.schema.json"


@dataclass
class Invocation:
    """One run of a package's CLI, as a runtime sees it."""

    args: list[str]
    exit_status: int
    stdout: str
    stderr: str
    envelope: dict[str, Any] | None
    violations: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return bool(self.envelope and self.envelope.get("ok") is True)


@dataclass
class Package:
    root: Path

    @cached_property
    def manifest(self) -> AppManifest:
        return load_app_manifest(self.root)

    @cached_property
    def schema_validators(self) -> dict[bool, Any]:
        """ok → a validator for that envelope, for the schemas the package ships."""
        from jsonschema import Draft202012Validator

        validators: dict[bool, Any] = {}
        for ok, name in ((True, SUCCESS_SCHEMA), (False, ERROR_SCHEMA)):
            path = self.root / "schemas" / name
            if path.is_file():
                validators[ok] = Draft202012Validator(json.loads(path.read_text(encoding="utf-8")))
        return validators

    def entry_argv(self) -> list[str]:
        return shlex.split(self.manifest.entry.command)


def load_entry_module(package: Package) -> ModuleType:
    """Import a package's Python entry script in this process (once), for in-process runs.

    Only an entry of the form `python3 <script>.py` can be loaded this way.
    """
    argv = package.entry_argv()
    if len(argv) != 2 or not argv[0].startswith("python") or not argv[1].endswith(".py"):
        raise ValueError(f"in-process runs need `python3 <script>.py`, not {shlex.join(argv)}")
    script = (package.root / argv[1]).resolve()
    if script not in _entry_modules:
        spec = importlib.util.spec_from_file_location(f"agentic_entry_{len(_entry_modules)}", script)
        if spec is None or spec.loader is None:
            raise ValueError(f"cannot load {script}")
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        _entry_modules[script] = module
    return _entry_modules[script]


class RunTimedOut(Exception):
    """The entry command ran past its timeout; it and its children were killed."""


def invoke(
    package: Package,
    args: Sequence[str],
    *,
    env: Mapping[str, str] | None = None,
    stdin: str | None = None,
    timeout: float = 60.0,
) -> Invocation:
    """Run the package's entry command from its root with `args` and check what comes back.

    Raises RunTimedOut past `timeout` seconds, and OSError when the command cannot start.
    """
    run_env = dict(os.environ if env is None else env)
    # `python3` in an entry command means the interpreter this runtime runs under.
    run_env["PATH"] = os.pathsep.join([str(Path(sys.executable).parent), run_env.get("PATH", "")])
    with subprocess.Popen(
        [*package.entry_argv(), *args],
        cwd=package.root,
        env=run_env,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        start_new_session=True,  # its own process group, so a timeout kills its children too
    ) as process:
        try:
            stdout, stderr = process.communicate((stdin or "").encode(), timeout=timeout)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.communicate()
            raise RunTimedOut(
                f"{shlex.join([*package.entry_argv(), *args])} ran past {timeout:g} s"
            ) from None
    return check_output(
        package,
        list(args),
        process.returncode,
        stdout.decode("utf-8", errors="replace"),
        stderr.decode("utf-8", errors="replace"),
    )


def check_output(package: Package, args: list[str], exit_status: int, stdout: str, stderr: str) -> Invocation:
    """Parse stdout as the envelope and list every contract violation."""
    violations: list[str] = []
    envelope: dict[str, Any] | None = None
    try:
        parsed = json.loads(stdout)
    except json.JSONDecodeError as error:
        violations.append(f"stdout is not exactly one JSON document ({error.msg}).")
    else:
        if isinstance(parsed, dict) and isinstance(parsed.get("ok"), bool):
            envelope = parsed
        else:
            violations.append("stdout is JSON but not an envelope with a boolean `ok`.")
    if envelope is not None:
        if envelope["ok"] and exit_status != 0:
            violations.append(f"`ok` is true but the exit status is {exit_status}.")
        if not envelope["ok"] and exit_status == 0:
            violations.append("`ok` is false but the exit status is 0.")
        validator = package.schema_validators.get(envelope["ok"])
        if validator is not None:
            for mismatch in validator.iter_errors(envelope):
                where = "/".join(str(part) for part in mismatch.absolute_path) or "(top)"
                violations.append(f"envelope does not match its schema at {where}: {mismatch.message}")
    return Invocation(args, exit_status, stdout, stderr, envelope, violations)


# Catalog and activation: the first two tiers of progressive disclosure.

SUITE_ROOT = Path(__file__).resolve().parents[2]
TRUSTED_ROOTS_ENV = "AGENTAPPS_TRUSTED"
# Folders never searched for packages: tool caches and dependency trees.
SKIPPED_FOLDERS = {".git", ".nox", ".venv", "node_modules", "__pycache__", "site-packages"}


def discover(roots: Sequence[Path]) -> list[Path]:
    """Package folders (folders with an APP.md) at or under the roots, sorted; never inside one."""
    found: set[Path] = set()
    for root in roots:
        if (root / "APP.md").is_file():
            found.add(root.resolve())
            continue
        for folder, subfolders, files in os.walk(root):
            if "APP.md" in files:
                found.add(Path(folder).resolve())
                subfolders.clear()  # packages do not nest
            else:
                subfolders[:] = [name for name in subfolders if name not in SKIPPED_FOLDERS]
    return sorted(found)


def trust_level(package_root: Path) -> str:
    """bundled: ships in this suite's checkout; trusted: under a folder named in AGENTAPPS_TRUSTED;
    untrusted: anywhere else, until the user approves its runs one by one."""
    resolved = package_root.resolve()
    if resolved.is_relative_to(SUITE_ROOT) and (SUITE_ROOT / "shared" / "agentapps").is_dir():
        return "bundled"
    trusted = [
        Path(entry).resolve() for entry in os.environ.get(TRUSTED_ROOTS_ENV, "").split(os.pathsep) if entry
    ]
    if any(resolved.is_relative_to(root) for root in trusted):
        return "trusted"
    return "untrusted"


def catalog_entry(package_root: Path) -> dict[str, Any]:
    """Tier 1: what the frontmatter says, read without the body; a broken package says why."""
    entry: dict[str, Any] = {"source": str(package_root), "trust": trust_level(package_root)}
    fields = (
        "slug",
        "name",
        "description",
        "version",
        "kind",
        "scheduling",
        "commands",
        "confirmationRequired",
    )
    try:
        manifest = load_app_manifest(package_root)
    except ManifestError as error:
        return {**entry, "status": "broken", "problem": str(error), **dict.fromkeys(fields)}
    listed = manifest.model_dump(by_alias=True)
    return {**entry, "status": "ok", "problem": None, **{field: listed[field] for field in fields}}


def activate(package: Package) -> dict[str, Any]:
    """Tier 2: the APP.md body and every listed skill, frontmatter and body. ManifestError when a
    skill does not resolve or does not fit Agent Skills."""
    skills = []
    for shortname in package.manifest.skills:
        path = skill_path(package.root, shortname)
        if not path.is_file():
            raise ManifestError(f"skill {shortname!r} does not resolve: {path} is missing.")
        skill = load_skill_manifest(path)
        if skill.name != shortname:
            raise ManifestError(f"{path}: name {skill.name!r} is not its folder's name {shortname!r}.")
        skills.append(
            {
                "name": shortname,
                "path": str(path.relative_to(package.root)),
                "frontmatter": skill.model_dump(by_alias=True, exclude_none=True),
                "body": read_body(path),
            }
        )
    return {
        "source": str(package.root),
        "slug": package.manifest.slug,
        "name": package.manifest.name,
        "version": package.manifest.version,
        "body": read_body(package.root / "APP.md"),
        "skills": skills,
    }
