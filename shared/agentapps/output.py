"""What a package's CLI gave back, read the way Agent Applications v1 says: stdout as exactly one
JSON document, and every shortfall sorted by the seed's words:
- violations break what the format says must hold — parseable JSON on success, a non-zero exit on
  failure, `ok` (when given) a boolean that agrees with the exit status, an envelope that matches
  the package's own schemas/, output within the cap; a runtime never relays these as success;
- warnings miss what it strongly recommends — a structured JSON error on failure, `ok` on success.
"""

from __future__ import annotations

import json
import re
import sys
from dataclasses import dataclass, field
from typing import Any

from agentic_kit.store import unique_keys
from agentic_kit.text import undecodable_byte

from .package import Package

# An app's document may nest arrays and objects this deep; deeper is a CONTRACT_VIOLATION, so no
# parser, validator or comparison of the runtime's can run out of stack on it.
MAX_NESTING = 100


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
    # Only arrays and objects go on the stack: an answer of thousands of items is mostly strings.
    stack = [(document, 1)] if isinstance(document, (dict, list)) else []
    while stack:
        value, depth = stack.pop()
        deepest = max(deepest, depth)
        if depth <= MAX_NESTING:  # past the limit, deeper does not matter
            children = value.values() if isinstance(value, dict) else value
            stack += [(child, depth + 1) for child in children if isinstance(child, (dict, list))]
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
                message = f"envelope does not match its schema at {where}: {mismatch.message}"
                violations.append(Problem("schemas.outputs", _cut(message)))
    return invocation


# A mismatch quotes the value it judged and names its place, either of which can be a whole
# megabyte answer's worth: the message says the start of it and how long it was.
MISMATCH_CHARACTERS = 500


def _cut(message: str) -> str:
    if len(message) <= MISMATCH_CHARACTERS:
        return message
    return f"{message[:MISMATCH_CHARACTERS]}… ({len(message):,} characters)"
