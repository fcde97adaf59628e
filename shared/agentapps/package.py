"""A package as a runtime loads it: its folder, its APP.md (manifest.py), the shell command
that runs its entry, and the envelope schemas its output must fit (schemas/); and, for in-process
runs, its Python entry module.
"""

from __future__ import annotations

import hashlib
import importlib.util
import json
import os
import shlex
import threading
from collections import OrderedDict
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
        validators: dict[bool, OutputSchema] = {}
        for ok, name in ((True, SUCCESS_SCHEMA), (False, ERROR_SCHEMA)):
            path = self.root / "schemas" / name
            if not os.path.lexists(path):
                continue
            try:
                raw = read_package_bytes(package_file(self.root, Path("schemas") / name))
            except (ManifestError, ValueError):
                continue  # schemas/ is optional and its format the package's own; check reports it
            validator = output_schema(raw)
            if validator is not None:
                validators[ok] = validator
        return validators

    def entry_argv(self, args: Sequence[str]) -> list[str]:
        """entry.command as a shell command; the arguments are "$@", so the shell never reads them."""
        return [SHELL, "-c", f'{self.manifest.entry.command.strip()} "$@"', self.name, *args]


@dataclass(frozen=True)
class OutputSchema:
    """One of a package's envelope schemas, judged by jsonschema-rs: whether a document fits (a
    list of 1,000 items in about a millisecond; every list an agent reads is checked) and, for one
    that does not, the first place it breaks the schema and why. Its regular expressions are the
    linear-time kind (`pattern` and `patternProperties` are ECMA-262 without lookaround or
    backreferences), so no pattern can hold a call past its timeout (a schema whose combinators
    multiply still can: docs/toolkit.md says so).

    Whether the schema applies (it passes its draft's metaschema, and jsonschema-rs can build it)
    is asked only for a document that does not fit: one that fits has nothing to report either
    way, and a one-shot `agentapps run` would otherwise pay for the check on every call."""

    schema: Any
    validator: Any | None  # jsonschema-rs's; None when it cannot be built (`build` says why)

    @cached_property
    def applies(self) -> bool:
        """Whether documents are judged by the schema: one that fails the metaschema, or that the
        runtime cannot build, judges nothing (`check` reports it: schemas.valid)."""
        return self.validator is not None and metaschema_problem(self.schema) is None

    def mismatches(self, document: Any) -> list[Mismatch]:
        """The first place the document breaks the schema (there may be more: listing every one
        of a long answer's costs time and memory without bound); none when the schema does not
        apply. A document jsonschema-rs fails to judge is not vouched for: one mismatch says so."""
        import jsonschema_rs

        if self.validator is None:
            return []
        try:
            if self.validator.is_valid(document) or not self.applies:
                return []
            self.validator.validate(document)
        except jsonschema_rs.ValidationError as error:
            return [Mismatch(error.message, tuple(error.instance_path))]
        except BaseException as error:
            if not failed_inside(error):
                raise
            return [Mismatch(f"it cannot be judged ({type(error).__name__}: {error})")]
        return [Mismatch("it does not fit, and jsonschema-rs cannot tell where")]


@dataclass(frozen=True)
class Mismatch:
    """Where a document breaks its schema (the path into it; empty at the top), and why."""

    message: str
    absolute_path: tuple[str | int, ...] = ()


def metaschema_problem(schema: Any) -> str | None:
    """Why the schema is not a JSON Schema by the metaschema of the draft its `$schema` names
    (2020-12 when it names none), or None when it is one. A `$schema` that names no draft the
    runtime knows is never fetched: the schema is not one it can judge by."""
    import jsonschema_rs

    try:
        jsonschema_rs.meta.validate(schema, registry=_registry_without_retrieval())
    except jsonschema_rs.ValidationError as error:
        return error.message
    except jsonschema_rs.ReferencingError:
        named = schema.get("$schema") if isinstance(schema, dict) else None
        return f"its $schema ({named!r}) names no draft this runtime knows, and none is fetched"
    except BaseException as error:
        if not failed_inside(error):
            raise
        return f"it cannot be checked against the metaschema ({type(error).__name__}: {error})"
    return None


@dataclass(frozen=True)
class Build:
    """What building a validator of a schema gave: the validator, or why there is none; and what
    the schema's `$ref`s point at outside it (never fetched: each is the empty schema)."""

    validator: Any | None
    problem: str | None
    unfetched: tuple[str, ...]


def build(schema: Any) -> Build:
    """jsonschema-rs for the schema: the draft its `$schema` names (2020-12 when it names none),
    `format` an annotation only, regular expressions of the linear-time kind, no `$ref` fetched
    (what one to a URL or another file refers to is the empty schema: that part is not applied;
    a place inside such a document cannot be found, and the schema is not built)."""
    import jsonschema_rs

    unfetched: list[str] = []

    def empty(uri: str) -> Any:
        unfetched.append(uri.removeprefix("json-schema:///"))  # a relative `$ref`, as written
        return {}

    try:
        built = jsonschema_rs.validator_for(
            schema, validate_formats=False, retriever=empty, pattern_options=jsonschema_rs.RegexOptions()
        )
    except BaseException as error:
        if not failed_inside(error):
            raise
        reason = (getattr(error, "message", None) or str(error) or type(error).__name__).splitlines()[0]
        if 'is not a "regex"' in reason:
            reason += " (a runtime runs patterns in linear time: no lookaround, no backreferences)"
        return Build(None, reason, tuple(unfetched))
    return Build(built, None, tuple(unfetched))


def _registry_without_retrieval() -> Any:
    import jsonschema_rs

    def refuse(uri: str) -> Any:
        raise ValueError(f"{uri} is not fetched")

    return jsonschema_rs.Registry([], retriever=refuse)


def failed_inside(error: BaseException) -> bool:
    """Whether `error` is one a schema or a document can cause inside jsonschema-rs: any Exception,
    or a panic of its Rust code (pyo3's PanicException derives from BaseException), never an
    interrupt or an exit."""
    return isinstance(error, Exception) or type(error).__name__ == "PanicException"


def read_package_bytes(path: Path) -> bytes:
    """A file of the package: a regular file of at most MAX_SCHEMA_BYTES. ManifestError when it
    cannot be read, ValueError when it is longer."""
    with open_regular_file(path) as handle:
        raw = handle.read(MAX_SCHEMA_BYTES + 1)
    if len(raw) > MAX_SCHEMA_BYTES:
        raise ValueError(f"longer than {MAX_SCHEMA_BYTES} bytes")
    return raw


def read_json_file(path: Path) -> Any:
    """A JSON file of the package: a regular file of at most MAX_SCHEMA_BYTES. ManifestError when
    it cannot be read, ValueError when it is not JSON."""
    return json.loads(read_package_bytes(path).decode("utf-8"))


# A schema's validators by the digest of the file's bytes: building one costs milliseconds (a
# second for the largest), and the harness and runtimes build a Package per step.
# The file is read every time, so an edited schema is a new key and is checked anew (a cache keyed
# on the bytes cannot serve a stale schema, whatever the file's mtime says). None: not a schema.
# Bounded by count and by the files' bytes: a schema's validator holds some 50 times its file's
# size in memory, so a server that serves many packages keeps at most one largest schema's worth.
_output_schemas: OrderedDict[bytes, tuple[int, OutputSchema | None]] = OrderedDict()
_output_schemas_lock = threading.Lock()
MAX_CACHED_SCHEMAS = 64  # a few per package; a long run over many packages keeps the latest
MAX_CACHED_SCHEMA_BYTES = MAX_SCHEMA_BYTES


def output_schema(raw: bytes) -> OutputSchema | None:
    """The validators of a schema file's bytes, built once per distinct content; None when the
    bytes are not UTF-8 JSON that Python reads (one that fails the metaschema does not apply:
    `OutputSchema.applies`)."""
    key = hashlib.sha256(raw).digest()
    with _output_schemas_lock:
        if key in _output_schemas:
            _output_schemas.move_to_end(key)
            return _output_schemas[key][1]
    built = _build_output_schema(raw)
    with _output_schemas_lock:
        _output_schemas[key] = (len(raw), built)
        while len(_output_schemas) > MAX_CACHED_SCHEMAS or (
            len(_output_schemas) > 1
            and sum(size for size, _ in _output_schemas.values()) > MAX_CACHED_SCHEMA_BYTES
        ):
            _output_schemas.popitem(last=False)
    return built


def _build_output_schema(raw: bytes) -> OutputSchema | None:
    try:
        schema = json.loads(raw.decode("utf-8"))
    except (ValueError, RecursionError):  # not UTF-8 JSON, or nested past what Python reads
        return None
    return OutputSchema(schema, build(schema).validator)


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
