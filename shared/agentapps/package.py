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
from itertools import islice
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
    """One of a package's envelope schemas. jsonschema-rs says whether a document fits (a list of
    1,000 items in about a millisecond, where jsonschema takes some 200: every list an agent
    reads is checked) and, for one that does not, where and why: its regular expressions are
    ECMA-262's, as JSON Schema's `pattern` is, and run in linear time, so a package's backtracking
    pattern (`^(a+)+$`) cannot hold a call past its timeout, nor can a long list of mismatches.

    Whether the schema is one at all (the metaschema's verdict) is asked only for a document that
    does not fit: one that fits has nothing to report either way, and the verdict (importing
    jsonschema and checking the schema, some 65 ms) would otherwise be half the toolkit's own cost
    of an `agentapps run`. jsonschema judges alone where jsonschema-rs cannot: a schema it cannot
    build (a `$ref` not fetched), a document it cannot hold (an integer past 64 bits)."""

    schema: Any
    fast: Any | None  # a jsonschema_rs validator; None when it cannot be built (a $ref not fetched)

    @cached_property
    def precise(self) -> Any | None:
        """jsonschema's validator, or None when the schema fails the metaschema: not applied."""
        from jsonschema import Draft202012Validator

        if metaschema_problem(self.schema) is not None:
            return None
        return Draft202012Validator(self.schema, registry=offline_registry())

    @property
    def applies(self) -> bool:
        """Whether the schema passes the metaschema, so documents are judged by it."""
        return self.precise is not None

    def mismatches(self, document: Any) -> list[Mismatch]:
        """Where the document breaks the schema, at most MISMATCHES_LISTED of them and then one
        that counts the rest; none when the schema itself cannot be applied (it fails the
        metaschema, or holds a `$ref` this runtime will not fetch): the package's schemas are its
        own business."""
        if self.fast is not None:
            try:
                if self.fast.is_valid(document):
                    return []
                found = [
                    Mismatch(error.message, tuple(error.instance_path))
                    for error in self.fast.iter_errors(document)
                ]
            except Exception:  # noqa: BLE001 - what it cannot hold (a huge integer), jsonschema judges
                pass
            else:
                if not self.applies:
                    return []
                return _listed(found or [Mismatch("it does not fit, and jsonschema-rs cannot tell where")])
        if self.precise is None:
            return []
        try:
            # Lazily: a long list that breaks the schema item after item stops being read here.
            errors = islice(self.precise.iter_errors(document), MISMATCHES_LISTED + 1)
            found = [Mismatch(error.message, tuple(error.absolute_path)) for error in errors]
        except Exception:  # noqa: BLE001
            # What jsonschema cannot judge alone (a `$ref` not fetched, one that refers to itself,
            # a pattern Python's `re` refuses) is the schema's own business, never the runtime's
            # crash; no judge has said the document does not fit.
            return []
        if len(found) > MISMATCHES_LISTED:
            return [*_listed(found[:MISMATCHES_LISTED]), Mismatch("in more places, not listed", None)]
        return _listed(found)


# A document that breaks its schema is reported in a few lines: the first mismatches, each message
# cut short (one quotes the value it judged, which can be a whole megabyte answer), and a count.
MISMATCHES_LISTED = 20
MISMATCH_CHARACTERS = 500


@dataclass(frozen=True)
class Mismatch:
    """Where a document breaks its schema (the path into it; empty at the top), and why; with no
    path, how many more mismatches there are that are not listed."""

    message: str
    absolute_path: tuple[str | int, ...] | None = ()


def _listed(found: list[Mismatch]) -> list[Mismatch]:
    """The first MISMATCHES_LISTED, each message at most MISMATCH_CHARACTERS long, then how many
    more there are."""
    listed = [
        Mismatch(_cut(mismatch.message), mismatch.absolute_path) for mismatch in found[:MISMATCHES_LISTED]
    ]
    if len(found) > MISMATCHES_LISTED:
        listed.append(Mismatch(f"in {len(found) - MISMATCHES_LISTED:,} more places, not listed", None))
    return listed


def _cut(message: str) -> str:
    if len(message) <= MISMATCH_CHARACTERS:
        return message
    return f"{message[:MISMATCH_CHARACTERS]}… ({len(message):,} characters)"


def metaschema_problem(schema: Any) -> str | None:
    """Why the schema is not a JSON Schema (draft 2020-12's metaschema, its formats checked as
    jsonschema checks them), or None when it is one. One the check cannot even be made on (nested
    past Python's recursion, a pattern its regular expressions refuse) is not one either: a
    package's schema never crashes the runtime or check."""
    from jsonschema import Draft202012Validator
    from jsonschema.exceptions import SchemaError

    try:
        Draft202012Validator.check_schema(schema)
    except SchemaError as error:
        return error.message
    except Exception as error:  # noqa: BLE001 - whatever the check itself cannot get through
        return f"it cannot be checked against the metaschema ({type(error).__name__}: {error})"
    return None


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


# A schema's validators by the digest of the file's bytes: checking a schema against the
# metaschema costs tens of milliseconds, and the harness and runtimes build a Package per step.
# The file is read every time, so an edited schema is a new key and is checked anew (a cache keyed
# on the bytes cannot serve a stale schema, whatever the file's mtime says). None: not a schema.
_output_schemas: OrderedDict[bytes, OutputSchema | None] = OrderedDict()
_output_schemas_lock = threading.Lock()
MAX_CACHED_SCHEMAS = 64  # a few per package; a long run over many packages keeps the latest


def output_schema(raw: bytes) -> OutputSchema | None:
    """The validators of a schema file's bytes, built once per distinct content; None when the
    bytes are not UTF-8 JSON that Python reads (one that fails the metaschema does not apply:
    `OutputSchema.applies`)."""
    key = hashlib.sha256(raw).digest()
    with _output_schemas_lock:
        if key in _output_schemas:
            _output_schemas.move_to_end(key)
            return _output_schemas[key]
    built = _build_output_schema(raw)
    with _output_schemas_lock:
        _output_schemas[key] = built
        while len(_output_schemas) > MAX_CACHED_SCHEMAS:
            _output_schemas.popitem(last=False)
    return built


def _build_output_schema(raw: bytes) -> OutputSchema | None:
    try:
        schema = json.loads(raw.decode("utf-8"))
    except (ValueError, RecursionError):  # not UTF-8 JSON, or nested past what Python reads
        return None
    return OutputSchema(schema, _fast_validator(schema))


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
