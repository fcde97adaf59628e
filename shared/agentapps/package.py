"""A package as a runtime loads it: its folder, its APP.md (manifest.py), the shell command
that runs its entry, and the envelope schemas its output must fit (schemas/); and, for in-process
runs, its Python entry module.
"""

from __future__ import annotations

import importlib.util
import json
import os
import shlex
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from types import ModuleType
from typing import Any

from .manifest import AppManifest, ManifestError, load_app_manifest, open_regular_file, package_file

SUCCESS_SCHEMA = "success-envelope.schema.json"


ERROR_SCHEMA = "error-envelope.schema.json"


MAX_SCHEMA_BYTES = 16 * 1024 * 1024  # a schema file larger than this is not read


SHELL = "/bin/sh"


_entry_modules: dict[Path, ModuleType] = {}


@dataclass
class Package:
    root: Path

    @cached_property
    def manifest(self) -> AppManifest:
        return load_app_manifest(self.root)

    @property
    def name(self) -> str:
        return self.manifest.slug or self.root.name

    @cached_property
    def schema_validators(self) -> dict[bool, OutputSchema]:
        """ok → the schema that envelope must fit, for the schemas the package ships."""
        from jsonschema import Draft202012Validator
        from jsonschema.exceptions import SchemaError

        validators: dict[bool, OutputSchema] = {}
        for ok, name in ((True, SUCCESS_SCHEMA), (False, ERROR_SCHEMA)):
            path = self.root / "schemas" / name
            if not os.path.lexists(path):
                continue
            try:
                schema = read_json_file(package_file(self.root, Path("schemas") / name))
                Draft202012Validator.check_schema(schema)
            except (ManifestError, ValueError, SchemaError):
                continue  # schemas/ is optional and its format the package's own; check reports it
            validators[ok] = OutputSchema(
                Draft202012Validator(schema, registry=offline_registry()), _fast_validator(schema)
            )
        return validators

    def entry_argv(self, args: Sequence[str]) -> list[str]:
        """entry.command as a shell command; the arguments are "$@", so the shell never reads them."""
        return [SHELL, "-c", f'{self.manifest.entry.command.strip()} "$@"', self.name, *args]


@dataclass(frozen=True)
class OutputSchema:
    """One of a package's envelope schemas. jsonschema-rs says whether a document fits (a list of
    1,000 items in about a millisecond, where jsonschema takes some 200: every list an agent
    reads is checked); jsonschema, only for a document that does not fit, says where and why."""

    precise: Any  # a jsonschema Draft202012Validator
    fast: Any | None  # a jsonschema_rs validator; None when it cannot be built (a $ref not fetched)

    def mismatches(self, document: Any) -> list[Any]:
        """Where the document breaks the schema; none when the schema itself cannot be applied (a
        `$ref` this runtime will not fetch): the package's schemas are its own business."""
        from referencing.exceptions import Unresolvable

        if self.fast is not None:
            try:
                if self.fast.is_valid(document):
                    return []
            except Exception:  # noqa: BLE001 - what it cannot hold (a huge integer), jsonschema judges
                pass
        try:
            return list(self.precise.iter_errors(document))
        except Unresolvable:
            return []


def _fast_validator(schema: Any) -> Any | None:
    """jsonschema-rs for the schema, under jsonschema's rules here: draft 2020-12 unless the schema
    says otherwise, `format` an annotation only, no `$ref` fetched. None when it cannot be built:
    jsonschema alone then judges, as before."""
    import jsonschema_rs

    def refuse(uri: str) -> Any:
        raise ValueError(f"{uri} is not fetched")

    try:
        return jsonschema_rs.validator_for(schema, validate_formats=False, retriever=refuse)
    except Exception:  # noqa: BLE001 - a schema it cannot compile is jsonschema's to judge
        return None


def offline_registry() -> Any:
    """A jsonschema registry that retrieves nothing: a `$ref` to a URL or a file is never fetched
    (a schema of the package's own cannot make the runtime read the network or the disk); what it
    refers to stays unresolved, and `check` reports it (schemas.refs)."""
    from referencing import Registry
    from referencing.exceptions import NoSuchResource

    def refuse(uri: str) -> Any:
        raise NoSuchResource(uri)

    return Registry(retrieve=refuse)  # type: ignore[call-arg]


def read_json_file(path: Path) -> Any:
    """A JSON file of the package: a regular file of at most MAX_SCHEMA_BYTES. ManifestError when
    it cannot be read, ValueError when it is not JSON."""
    with open_regular_file(path) as handle:
        raw = handle.read(MAX_SCHEMA_BYTES + 1)
    if len(raw) > MAX_SCHEMA_BYTES:
        raise ValueError(f"longer than {MAX_SCHEMA_BYTES} bytes")
    return json.loads(raw.decode("utf-8"))


def load_entry_module(package: Package) -> ModuleType:
    """Import a package's Python entry script in this process (once), for in-process runs.

    Only an entry of the form `python3 <script>.py` can be loaded this way.
    """
    argv = shlex.split(package.manifest.entry.command)
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
