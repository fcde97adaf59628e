"""A reference runtime: load a package and invoke it the way Agent Applications v1 says.

`invoke` runs `entry.command` from the package root through POSIX `sh -c`, the arguments passed
as positional parameters ("$@", never spliced into the command string), with a chosen environment
(environment.py), a timeout and an output cap (process.py). It reads stdout only and sorts what
came back by the seed's words:
- violations break what the format says must hold — parseable JSON on success, a non-zero exit on
  failure, `ok` (when given) a boolean that agrees with the exit status, an envelope that matches
  the package's own schemas/, output within the cap; a runtime never relays these as success;
- warnings miss what it strongly recommends — a structured JSON error on failure, `ok` on success.
`relay` turns an invocation into what a runtime passes on: the app's document and exit status,
APP_FAILED for a failure without a structured error, or CONTRACT_VIOLATION.
"""

from __future__ import annotations

import importlib.util
import json
import os
import re
import shlex
import sys
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from types import ModuleType
from typing import Any

from agentic_kit.store import unique_keys
from agentic_kit.text import undecodable_byte

from .errors import APP_FAILED, CONTRACT_VIOLATION, TIMEOUT, ToolkitError, toolkit_error
from .gates import trust_level
from .manifest import (
    AppManifest,
    ManifestError,
    UnsupportedSchema,
    app_manifest_from,
    check_schema,
    load_app_manifest,
    load_skill_manifest,
    open_regular_file,
    package_file,
    read_body,
    read_frontmatter,
    skill_path,
)
from .process import Finished, TimedOut, relayed_status, run_bounded
from .warm import WarmRuntime

SUCCESS_SCHEMA = "success-envelope.schema.json"
ERROR_SCHEMA = "error-envelope.schema.json"
DEFAULT_TIMEOUT = 60.0
MAX_TIMEOUT = 24 * 60 * 60.0
DEFAULT_MAX_OUTPUT = 16 * 1024 * 1024  # bytes, on stdout and on stderr each
MAX_SCHEMA_BYTES = 16 * 1024 * 1024  # a schema file larger than this is not read
# What activation returns at most: the APP.md body and the skills' bodies together.
MAX_ACTIVATION_BYTES = 4 * 1024 * 1024
SHELL = "/bin/sh"
# An app's document may nest arrays and objects this deep; deeper is a CONTRACT_VIOLATION, so no
# parser, validator or comparison of the runtime's can run out of stack on it.
MAX_NESTING = 100
# How much of an app's stdout and stderr a failure envelope carries.
EXCERPT_CHARS = 2000
_entry_modules: dict[Path, ModuleType] = {}


class NotJson:
    """stdout that is not exactly one JSON document (JSON `null` is a document, so None cannot
    stand for this)."""

    def __repr__(self) -> str:
        return "NOT_JSON"


NOT_JSON = NotJson()


@dataclass(frozen=True)
class Problem:
    """One way an output falls short, with the check rule it breaks."""

    rule: str
    message: str

    def __str__(self) -> str:
        return self.message


@dataclass
class Invocation:
    """One run of a package's CLI, as a runtime sees it."""

    args: list[str]
    exit_status: int
    stdout: str
    stderr: str
    document: Any = NOT_JSON  # stdout parsed as JSON, or NOT_JSON
    violations: list[Problem] = field(default_factory=list)
    warnings: list[Problem] = field(default_factory=list)

    @property
    def envelope(self) -> dict[str, Any] | None:
        """The document when it is an envelope: an object with a boolean `ok`."""
        document = self.document
        if isinstance(document, dict) and isinstance(document.get("ok"), bool):
            return document
        return None

    @property
    def succeeded(self) -> bool:
        """Exit status 0 and nothing the format forbids."""
        return self.exit_status == 0 and not self.violations

    @property
    def ok(self) -> bool:
        """An envelope with `ok: true` (what the suite's own apps always give on success)."""
        return bool(self.envelope and self.envelope["ok"] is True)


@dataclass(frozen=True)
class RunOptions:
    """How every run of a package is bounded and what it sees beyond the allow-list: the CLI's
    --timeout, --max-output and --env."""

    timeout: float = DEFAULT_TIMEOUT
    max_output: int = DEFAULT_MAX_OUTPUT
    env_names: tuple[str, ...] = ()


class RunTimedOut(Exception):
    """The entry command ran past its timeout; it and its process group were killed."""


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


def invoke(
    package: Package,
    args: Sequence[str],
    *,
    env: Mapping[str, str] | None = None,
    stdin: str | int | None = None,
    timeout: float = DEFAULT_TIMEOUT,
    max_output: int = DEFAULT_MAX_OUTPUT,
    warm: WarmRuntime | None = None,
) -> Invocation:
    """Run the package's entry command from its root with `args` and check what comes back.

    With `warm`, a Python entry runs in a child of the package's warm process (warm.py), under
    the same rules and with the same result; anything else runs cold.

    `stdin` is text to feed the app (default: an empty stream), or a file descriptor it reads
    itself (`agentapps run` passes its own stdin on).

    `env` is the whole environment the package sees (default: environment.package_environment());
    the folder of this runtime's interpreter goes first on its PATH, so `python3` in an entry
    command is the interpreter the runtime runs under. Raises RunTimedOut past `timeout` seconds
    (the call returns within it plus process.EXIT_GRACE), and OSError when the shell cannot start.
    """
    from .environment import package_environment

    run_env = dict(package_environment() if env is None else env)
    run_env["PATH"] = os.pathsep.join([str(Path(sys.executable).parent), run_env.get("PATH", os.defpath)])
    given = stdin if isinstance(stdin, int) else (stdin or "").encode()
    deadline = time.monotonic() + timeout
    try:
        finished = None
        if warm is not None:
            finished = warm.run(
                package.root,
                package.manifest.entry.command,
                list(args),
                env=run_env,
                stdin=given,
                deadline=deadline,
                max_output=max_output,
            )
        if finished is None:  # run cold: not a Python script, or no warm process could start
            finished = run_bounded(
                package.entry_argv(args),
                cwd=package.root,
                env=run_env,
                stdin=given,
                timeout=max(deadline - time.monotonic(), 0.0),
                max_output=max_output,
            )
    except TimedOut:
        raise RunTimedOut(
            f"{package.manifest.entry.command} {shlex.join(args)} ran past {timeout:g} s"
        ) from None
    return finished_invocation(package, args, finished, max_output)


def finished_invocation(
    package: Package, args: Sequence[str], finished: Finished, max_output: int
) -> Invocation:
    """What a bounded run gave back, checked; output past the cap is a violation of its own."""
    # Bytes that are not UTF-8 become lone surrogates (shown as \\xNN when printed): stdout's are
    # named as a violation, stderr is only an excerpt.
    stdout, stderr = (
        stream.decode("utf-8", errors="surrogateescape") for stream in (finished.stdout, finished.stderr)
    )
    if finished.over_cap is not None:
        message = f"{finished.over_cap} passed the output cap of {max_output} bytes; the app was killed."
        return Invocation(
            list(args), finished.exit_status, stdout, stderr, violations=[Problem("output.size", message)]
        )
    return check_output(package, list(args), finished.exit_status, stdout, stderr)


def _reject_constant(name: str) -> None:
    raise ValueError(f"{name} is not JSON")


def _finite(text: str, value: float | int) -> float | int:
    """A number as read, refused past the largest finite double: JSON readers (and Python's
    writer, as `Infinity`) turn it into a value JSON cannot carry."""
    if abs(value) > sys.float_info.max:
        shown = text if len(text) <= 24 else f"{text[:20]}…"
        raise ValueError(f"{shown} is not a finite double")
    return value


def _finite_float(text: str) -> float:
    return float(_finite(text, float(text)))


def _finite_int(text: str) -> int:
    return int(_finite(text, int(text)))  # past 4300 digits int() itself refuses it


# A \uD800-\uDFFF escape: half of a pair, or a lone surrogate that no UTF-8 text can hold.
_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F][0-9a-fA-F]{2}")


def read_document(stdout: str) -> tuple[Any, str | None]:
    """stdout as exactly one JSON document, else NOT_JSON and why. JSON here is the format's:
    UTF-8 text holding valid Unicode (no lone surrogate, not even as a `\\ud800` escape), no NaN
    or Infinity (nor a number past the largest finite double, such as 1e999, which reads as one),
    no key twice in one object, nested at most MAX_NESTING deep, and integers of at most 4300
    digits (Python's limit on converting them)."""
    byte = undecodable_byte(stdout)
    if byte is not None:
        return NOT_JSON, f"stdout is not UTF-8 text (it holds the byte {byte})"
    if not stdout.strip():
        return NOT_JSON, "stdout is empty, not exactly one JSON document"
    try:
        document = json.loads(
            stdout,
            parse_constant=_reject_constant,
            parse_float=_finite_float,
            parse_int=_finite_int,
            object_pairs_hook=unique_keys,
        )
    except json.JSONDecodeError as error:
        return NOT_JSON, f"stdout is not exactly one JSON document ({error.msg})"
    except RecursionError:
        return NOT_JSON, f"stdout is nested deeper than {MAX_NESTING} levels"
    except ValueError as error:
        return NOT_JSON, f"stdout is not exactly one JSON document ({error})"
    if stdout.count("[") + stdout.count("{") > MAX_NESTING and nesting(document) > MAX_NESTING:
        return NOT_JSON, f"stdout is nested deeper than {MAX_NESTING} levels"
    if _SURROGATE_ESCAPE.search(stdout):
        try:
            json.dumps(document, ensure_ascii=False).encode("utf-8")
        except UnicodeEncodeError as error:
            shown = f"\\u{ord(error.object[error.start]):04x}"
            return NOT_JSON, f"stdout holds {shown}, a lone surrogate escape: not valid Unicode"
    return document, None


def nesting(document: Any) -> int:
    """How deep arrays and objects nest in the document, without recursion."""
    deepest = 0
    stack = [(document, 1)]
    while stack:
        value, depth = stack.pop()
        children = value.values() if isinstance(value, dict) else value if isinstance(value, list) else None
        if children is None:
            continue
        deepest = max(deepest, depth)
        if depth <= MAX_NESTING:  # past the limit, deeper does not matter
            stack += [(child, depth + 1) for child in children]
    return deepest


def parse_document(stdout: str) -> Any:
    """stdout as exactly one JSON document, else NOT_JSON (read_document says why)."""
    return read_document(stdout)[0]


def check_output(package: Package, args: list[str], exit_status: int, stdout: str, stderr: str) -> Invocation:
    """Parse stdout as the app's document and sort every shortfall into violations and warnings."""
    document, not_json = read_document(stdout)
    invocation = Invocation(args, exit_status, stdout, stderr, document)
    violations, warnings = invocation.violations, invocation.warnings
    document = invocation.document
    has_ok = isinstance(document, dict) and "ok" in document
    if has_ok and not isinstance(document["ok"], bool):
        violations.append(Problem("output.json", "`ok` is not a boolean."))
    elif exit_status == 0:
        if document is NOT_JSON:
            violations.append(Problem("output.json", f"{not_json}."))
        elif not has_ok:
            warnings.append(Problem("output.envelope", "the success output has no boolean `ok`."))
        elif document["ok"] is False:
            violations.append(Problem("output.exit-status", "`ok` is false but the exit status is 0."))
    elif not has_ok:
        warnings.append(
            Problem("output.structured-error", "a failure without a structured JSON error on stdout.")
        )
    elif document["ok"] is True:
        violations.append(
            Problem("output.exit-status", f"`ok` is true but the exit status is {exit_status}.")
        )
    if not violations and document is not NOT_JSON:
        validator = package.schema_validators.get(exit_status == 0)
        if validator is not None and (exit_status == 0 or has_ok):
            for mismatch in validator.mismatches(document):
                where = "/".join(str(part) for part in mismatch.absolute_path) or "(top)"
                violations.append(
                    Problem(
                        "schemas.outputs",
                        f"envelope does not match its schema at {where}: {mismatch.message}",
                    )
                )
    return invocation


def relay(invocation: Invocation) -> tuple[Any, int]:
    """What a runtime passes on: the app's document and exit status, when the format's musts hold
    and the app succeeded or failed with a structured error. Otherwise an AppError:
    CONTRACT_VIOLATION (exit 11), or APP_FAILED for a failure without a structured JSON error,
    exiting with the app's own status (128 + N when signal N ended it)."""
    if invocation.violations:
        broken = f"The app broke the CLI contract: {' '.join(map(str, invocation.violations))}"
        violations = [str(problem) for problem in invocation.violations]
        if invocation.exit_status == 0:
            # The app said it succeeded: whatever it did is done, only its answer is unusable.
            raise toolkit_error(
                CONTRACT_VIOLATION,
                f"{broken} The command ran (exit status 0) and may have taken effect.",
                "Do not retry blindly: read the state back (a list or get) to see what happened.",
                details=_excerpts(invocation, violations=violations, mayHaveTakenEffect=True),
            )
        raise toolkit_error(CONTRACT_VIOLATION, broken, details=_excerpts(invocation, violations=violations))
    if invocation.exit_status != 0 and invocation.envelope is None:
        status = relayed_status(invocation.exit_status)
        raise ToolkitError(
            APP_FAILED,
            f"The app failed with exit status {status} and no structured JSON error.",
            "Its stdout and stderr are in error.details; the app's own message is there.",
            exit_status=status,
            details=_excerpts(invocation),
        )
    return invocation.document, relayed_status(invocation.exit_status)


def run_and_relay(package: Package, args: Sequence[str], **options: Any) -> tuple[Any, int]:
    """`invoke` (with its keyword options) then `relay`; a timeout is TIMEOUT, a shell that cannot
    start is CONTRACT_VIOLATION."""
    try:
        invocation = invoke(package, args, **options)
    except RunTimedOut as error:
        raise toolkit_error(
            TIMEOUT,
            f"{error}; it was killed.",
            "It may have taken effect before it was killed: read the state back before retrying; "
            "raise --timeout if the command is slow.",
        ) from None
    except OSError as error:
        raise toolkit_error(CONTRACT_VIOLATION, f"entry.command cannot start: {error}.") from None
    return relay(invocation)


def _excerpts(invocation: Invocation, **extra: object) -> dict[str, object]:
    return {
        **extra,
        "exitStatus": relayed_status(invocation.exit_status),
        "stdout": invocation.stdout[:EXCERPT_CHARS],
        "stderr": invocation.stderr[:EXCERPT_CHARS],
    }


# Catalog and activation: the first two tiers of progressive disclosure.

# Folders never searched for packages: tool caches and dependency trees.
SKIPPED_FOLDERS = {".git", ".nox", ".venv", "node_modules", "__pycache__", "site-packages"}
CATALOG_FIELDS = (
    "slug",
    "name",
    "description",
    "version",
    "kind",
    "scheduling",
    "commands",
    "confirmationRequired",
    "tags",
)


def discover(roots: Sequence[Path]) -> list[Path]:
    """Package folders (folders with an APP.md) at or under the roots, sorted; never inside one."""
    found: set[Path] = set()
    for root in roots:
        if os.path.lexists(root / "APP.md"):
            found.add(root.resolve())
            continue
        for folder, subfolders, files in os.walk(root):
            if "APP.md" in files:
                found.add(Path(folder).resolve())
                subfolders.clear()  # packages do not nest
            else:
                subfolders[:] = [name for name in subfolders if name not in SKIPPED_FOLDERS]
    return sorted(found)


def catalog_entry(package_root: Path) -> dict[str, Any]:
    """Tier 1: what the frontmatter says, read without the body. `status` is ok, broken (with
    the problem) or unsupported (a schema other than v1: its fields as written, if any)."""
    entry: dict[str, Any] = {"source": str(package_root), "trust": trust_level(package_root)}

    def broken(problem: str) -> dict[str, Any]:
        return {**entry, "status": "broken", "problem": problem, **dict.fromkeys(CATALOG_FIELDS)}

    byte = undecodable_byte(str(package_root))
    if byte is not None:  # its source is shown with \xNN escapes
        return broken(f"its path is not UTF-8 text (it holds the byte {byte}).")
    try:
        path = package_file(package_root, "APP.md")
        data = read_frontmatter(path)
        check_schema(data, path)
        manifest = app_manifest_from(data, path)
    except UnsupportedSchema as error:
        fields = {name: data.get(name) for name in CATALOG_FIELDS}
        return {**entry, "status": "unsupported", "problem": str(error), **fields}
    except ManifestError as error:
        return broken(str(error))
    except Exception as error:  # noqa: BLE001 - one package never stops a scan, whatever it holds
        return broken(f"its APP.md cannot be read ({type(error).__name__}: {error}).")
    listed = manifest.model_dump(by_alias=True)
    return {**entry, "status": "ok", "problem": None, **{name: listed[name] for name in CATALOG_FIELDS}}


def activate(package: Package) -> dict[str, Any]:
    """Tier 2: the APP.md frontmatter (every key, unknown ones too) and body, and every listed
    skill, frontmatter and body. ManifestError when a document cannot be read, resolves outside
    the package, a skill does not resolve or does not fit Agent Skills, or the bodies together
    pass MAX_ACTIVATION_BYTES."""
    body = read_body(package_file(package.root, "APP.md"))
    size = len(body.encode())
    skills = []
    for shortname in package.manifest.skills:
        path = skill_path(package.root, shortname)
        if not os.path.lexists(path):
            raise ManifestError(f"skill {shortname!r} does not resolve: {path} is missing.")
        package_file(package.root, path.relative_to(package.root))
        skill = load_skill_manifest(path)
        if skill.name != shortname:
            raise ManifestError(f"{path}: name {skill.name!r} is not its folder's name {shortname!r}.")
        skill_body = read_body(path)
        skills.append(
            {
                "name": shortname,
                "path": str(path.relative_to(package.root)),
                "frontmatter": skill.model_dump(by_alias=True, exclude_none=True),
                "body": skill_body,
            }
        )
        size += len(skill_body.encode())
        if size > MAX_ACTIVATION_BYTES:
            raise ManifestError(
                f"{package.root}: APP.md and its skills hold more than {MAX_ACTIVATION_BYTES} bytes "
                "together; activation returns at most that much."
            )
    return {
        "source": str(package.root),
        "slug": package.manifest.slug,
        "name": package.manifest.name,
        "version": package.manifest.version,
        "frontmatter": package.manifest.model_dump(by_alias=True, exclude_none=True),
        "body": body,
        "skills": skills,
    }
