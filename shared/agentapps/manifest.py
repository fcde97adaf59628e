"""APP.md and SKILL.md: frontmatter as pydantic models, read without reading the body.

The catalog tier of progressive disclosure must stay cheap, so `read_frontmatter` reads the file
line by line and stops at the closing `---`: the body is never read, so it may be huge or not
even valid UTF-8.

A manifest comes from anywhere, so reading one can neither hang nor exhaust the runtime:
- only regular files are read (a FIFO named APP.md is refused, never opened for a blocking read);
- the frontmatter is at most MAX_FRONTMATTER_BYTES, a whole document (the activation tier) at most
  MAX_DOCUMENT_BYTES;
- YAML anchors and aliases are refused (no alias expansion), and so is any value JSON cannot carry
  (timestamps stay strings, as in YAML 1.2).

What the format allows is accepted: keys this runtime does not know are kept (`model_extra`),
`entry` may be a plain string, and `commands` may hold command paths (`items remove`).
"""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path
from typing import IO, Annotated, Any, Literal

import yaml
from pydantic import AfterValidator, BaseModel, BeforeValidator, ConfigDict, Field, StringConstraints

FRONTMATTER_FENCE = b"---"
# A frontmatter longer than this is refused rather than read to the end of a huge file.
MAX_FRONTMATTER_BYTES = 64 * 1024
# APP.md or SKILL.md read whole (activation, check): larger is refused, not loaded into memory.
MAX_DOCUMENT_BYTES = 1024 * 1024
SUPPORTED_SCHEMA = "agentapplications/v1"


class ManifestError(Exception):
    """An APP.md or SKILL.md whose frontmatter cannot be read or does not fit the format."""


class UnsupportedSchema(ManifestError):
    """The APP.md declares a `schema` other than the one this runtime reads."""


def _one_line_command(command: str) -> str:
    if any(not character.isprintable() for character in command):
        raise ValueError("entry.command must be one line, without control characters")
    if command.rstrip().endswith((";", "&", "|", "\\")):
        # The arguments are appended as "$@": after an operator they would run as a command.
        raise ValueError("entry.command must not end with ; & | or \\")
    return command


def _entry_mapping(value: Any) -> Any:
    """The format allows `entry: node app/cli.js` as well as `entry: {command: ...}`."""
    return {"command": value} if isinstance(value, str) else value


# A command name, or a command path: words separated by single spaces, none starting with "-".
CommandPath = Annotated[str, StringConstraints(pattern=r"^[^\s-]\S*( [^\s-]\S*)*$")]
# A skill shortname is the name of its folder under skills/, so it follows the Agent Skills name rule.
SkillName = Annotated[str, StringConstraints(max_length=64, pattern=r"^[a-z0-9]+(-[a-z0-9]+)*$")]


class Entry(BaseModel):
    model_config = ConfigDict(extra="allow")
    command: Annotated[str, Field(min_length=1), AfterValidator(_one_line_command)]


class AppManifest(BaseModel):
    """The APP.md frontmatter fields of Agent Applications v1; any other key is kept in
    `model_extra` (the format's tool-specific extensions belong in `metadata`, but a key this
    runtime does not know never breaks a package)."""

    model_config = ConfigDict(extra="allow")

    schema_id: str | None = Field(None, alias="schema")
    kind: Literal["app"] | None = None
    slug: str | None = Field(None, pattern=r"^[a-z0-9]+(-[a-z0-9]+)*$")
    name: str = Field(min_length=1)
    description: str = Field(min_length=1)
    version: str = Field(min_length=1)
    license: str | None = None
    authors: list[Any] | None = None
    tags: list[str] | None = None
    metadata: dict[str, Any] | None = None
    entry: Annotated[Entry, BeforeValidator(_entry_mapping)]
    commands: list[CommandPath]
    skills: list[SkillName]
    scheduling: Literal["supported", "notSupported"] | None = None
    confirmation_required: list[CommandPath] = Field(default_factory=list, alias="confirmationRequired")

    @property
    def unknown_keys(self) -> list[str]:
        return sorted(self.model_extra or {})


class SkillManifest(BaseModel):
    """The SKILL.md frontmatter keys that Agent Skills allows."""

    model_config = ConfigDict(extra="forbid", populate_by_name=True)

    name: str = Field(max_length=64, pattern=r"^[a-z0-9]+(-[a-z0-9]+)*$")
    description: str = Field(min_length=1, max_length=1024)
    license: str | None = None
    compatibility: str | None = None
    metadata: dict[str, str] | None = None
    allowed_tools: str | None = Field(None, alias="allowed-tools")


class _AliasRefused(yaml.YAMLError):
    def __init__(self, line: int) -> None:
        super().__init__(f"line {line}")
        self.line = line


class _FrontmatterLoader(yaml.SafeLoader):
    """Safe YAML without anchors or aliases (a few bytes of aliases can expand to gigabytes) and
    without implicit timestamps (`2026-04-01` stays a string, as JSON needs)."""

    def compose_node(self, parent: Any, index: Any) -> Any:
        event = self.peek_event()  # type: ignore[no-untyped-call]
        if isinstance(event, yaml.AliasEvent) or getattr(event, "anchor", None) is not None:
            raise _AliasRefused(event.start_mark.line + 2)  # 1-based, after the opening ---
        return super().compose_node(parent, index)


_FrontmatterLoader.yaml_implicit_resolvers = {
    first: [(tag, pattern) for tag, pattern in resolvers if tag != "tag:yaml.org,2002:timestamp"]
    for first, resolvers in yaml.SafeLoader.yaml_implicit_resolvers.items()
}


def open_regular_file(path: Path) -> IO[bytes]:
    """Open a regular file for reading; anything else (a FIFO, a device, a folder) is a
    ManifestError. O_NONBLOCK keeps the open itself from waiting on a FIFO's writer."""
    try:
        descriptor = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
    except OSError as error:
        raise ManifestError(f"{path}: {error.strerror or error}.") from None
    if not stat.S_ISREG(os.fstat(descriptor).st_mode):
        os.close(descriptor)
        raise ManifestError(f"{path} is not a regular file.")
    os.set_blocking(descriptor, True)
    return os.fdopen(descriptor, "rb")


def read_frontmatter(path: Path) -> dict[str, Any]:
    """The YAML mapping between the opening and closing `---`; nothing after is read."""
    lines: list[bytes] = []
    size = 0
    try:
        with open_regular_file(path) as handle:
            if handle.readline(len(FRONTMATTER_FENCE) + 3).rstrip(b"\r\n") != FRONTMATTER_FENCE:
                raise ManifestError(f"{path} does not start with a --- frontmatter line.")
            while True:
                # Bounded reads: a "line" of a gigabyte is never held in memory.
                line = handle.readline(MAX_FRONTMATTER_BYTES - size + 1)
                if not line:
                    raise ManifestError(f"{path}: frontmatter is never closed with ---.")
                if line.rstrip(b"\r\n") == FRONTMATTER_FENCE:
                    break
                size += len(line)
                if size > MAX_FRONTMATTER_BYTES:
                    raise ManifestError(f"{path}: frontmatter is longer than {MAX_FRONTMATTER_BYTES} bytes.")
                lines.append(line)
    except OSError as error:
        raise ManifestError(f"{path}: {error.strerror or error}.") from None
    return parse_frontmatter(b"".join(lines), path)


def parse_frontmatter(text: bytes, path: Path) -> dict[str, Any]:
    try:
        data = yaml.load(text.decode("utf-8"), Loader=_FrontmatterLoader)  # a SafeLoader, refusing aliases
    except UnicodeDecodeError:
        raise ManifestError(f"{path}: frontmatter is not UTF-8 text.") from None
    except _AliasRefused as error:
        raise ManifestError(
            f"{path}: frontmatter uses a YAML anchor or alias (line {error.line}); they are refused, "
            "since a few of them can expand to gigabytes."
        ) from None
    except yaml.YAMLError as error:
        raise ManifestError(
            f"{path}: frontmatter is not valid YAML ({' '.join(str(error).split())})."
        ) from None
    except RecursionError:
        raise ManifestError(f"{path}: frontmatter is nested too deeply.") from None
    if not isinstance(data, dict):
        raise ManifestError(f"{path}: frontmatter is not a mapping of fields.")
    try:
        json.dumps(data, allow_nan=False)
    except (TypeError, ValueError):
        raise ManifestError(
            f"{path}: frontmatter holds a value JSON cannot carry (binary, a set, NaN…)."
        ) from None
    return data


def read_document(path: Path) -> str:
    """A whole APP.md or SKILL.md as text: a regular file, at most MAX_DOCUMENT_BYTES, UTF-8."""
    try:
        with open_regular_file(path) as handle:
            data = handle.read(MAX_DOCUMENT_BYTES + 1)
    except OSError as error:
        raise ManifestError(f"{path}: {error.strerror or error}.") from None
    if len(data) > MAX_DOCUMENT_BYTES:
        raise ManifestError(f"{path} is longer than {MAX_DOCUMENT_BYTES} bytes.")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as error:
        raise ManifestError(f"{path} is not UTF-8 text (byte {error.start}).") from None


def read_body(path: Path) -> str:
    """Everything after the closing `---` (the activation tier)."""
    lines = read_document(path).splitlines(keepends=True)
    if lines and lines[0].rstrip("\r\n") == FRONTMATTER_FENCE.decode():
        for number, line in enumerate(lines[1:], start=1):
            if line.rstrip("\r\n") == FRONTMATTER_FENCE.decode():
                lines = lines[number + 1 :]
                break
    return "".join(lines).lstrip("\r\n")


def check_schema(data: dict[str, Any], path: Path) -> None:
    """UnsupportedSchema when the frontmatter declares a schema other than v1 (none is fine)."""
    declared = data.get("schema")
    if declared is not None and declared != SUPPORTED_SCHEMA:
        raise UnsupportedSchema(
            f"{path}: schema {declared!r} is not supported; this runtime reads {SUPPORTED_SCHEMA}."
        )


def load_app_manifest(package_dir: Path) -> AppManifest:
    path = package_dir / "APP.md"
    data = read_frontmatter(path)
    check_schema(data, path)
    return app_manifest_from(data, path)


def app_manifest_from(data: dict[str, Any], path: Path) -> AppManifest:
    """The frontmatter read from `path` as the v1 model; ManifestError naming the first problem."""
    from pydantic import ValidationError

    try:
        return AppManifest.model_validate(data)
    except ValidationError as error:
        raise ManifestError(f"{path}: {_first_problem(error)}") from None


def load_skill_manifest(skill_file: Path) -> SkillManifest:
    from pydantic import ValidationError

    data = read_frontmatter(skill_file)
    try:
        return SkillManifest.model_validate(data)
    except ValidationError as error:
        raise ManifestError(f"{skill_file}: {_first_problem(error)}") from None


def skill_path(package_dir: Path, shortname: str) -> Path:
    """A shortname resolves by convention to skills/<shortname>/SKILL.md (shortnames are folder
    names, never paths: the manifest refuses anything else)."""
    return package_dir / "skills" / shortname / "SKILL.md"


def _first_problem(error: Any) -> str:
    first = error.errors()[0]
    where = ".".join(str(part) for part in first["loc"]) or "frontmatter"
    return f"{where}: {first['msg']}"
