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
import subprocess
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from types import ModuleType
from typing import Any

from .manifest import AppManifest, load_app_manifest

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


def invoke(
    package: Package,
    args: Sequence[str],
    *,
    env: Mapping[str, str] | None = None,
    stdin: str | None = None,
    timeout: float = 60.0,
) -> Invocation:
    """Run the package's entry command from its root with `args` and check what comes back."""
    run_env = dict(os.environ if env is None else env)
    # `python3` in an entry command means the interpreter this runtime runs under.
    run_env["PATH"] = os.pathsep.join([str(Path(sys.executable).parent), run_env.get("PATH", "")])
    completed = subprocess.run(
        [*package.entry_argv(), *args],
        cwd=package.root,
        env=run_env,
        input=stdin,
        capture_output=True,
        text=True,
        encoding="utf-8",
        errors="replace",
        timeout=timeout,
        check=False,
    )
    return check_output(package, list(args), completed.returncode, completed.stdout, completed.stderr)


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
