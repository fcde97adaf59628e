"""APP.md and SKILL.md: frontmatter as pydantic models, read without reading the body.

The catalog tier of progressive disclosure must stay cheap, so `read_frontmatter` reads the file
line by line and stops at the closing `---`: the body is never read, so it may be huge or not
even valid UTF-8.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Literal

import yaml
from pydantic import BaseModel, ConfigDict, Field

FRONTMATTER_FENCE = b"---"
# A frontmatter longer than this is refused rather than read to the end of a huge file.
MAX_FRONTMATTER_BYTES = 64 * 1024


class ManifestError(Exception):
    """An APP.md or SKILL.md whose frontmatter cannot be read or does not fit the format."""


class Entry(BaseModel):
    model_config = ConfigDict(extra="forbid")
    command: str = Field(min_length=1)


class AppManifest(BaseModel):
    """The APP.md frontmatter fields of Agent Applications v1."""

    model_config = ConfigDict(extra="forbid", populate_by_name=True)

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
    entry: Entry
    commands: list[str]
    skills: list[str]
    scheduling: Literal["supported", "notSupported"] | None = None
    confirmation_required: list[str] = Field(default_factory=list, alias="confirmationRequired")


class SkillManifest(BaseModel):
    """The SKILL.md frontmatter keys that Agent Skills allows."""

    model_config = ConfigDict(extra="forbid", populate_by_name=True)

    name: str = Field(max_length=64, pattern=r"^[a-z0-9]+(-[a-z0-9]+)*$")
    description: str = Field(min_length=1, max_length=1024)
    license: str | None = None
    compatibility: str | None = None
    metadata: dict[str, str] | None = None
    allowed_tools: str | None = Field(None, alias="allowed-tools")


def read_frontmatter(path: Path) -> dict[str, Any]:
    """The YAML mapping between the opening and closing `---`; nothing after is read."""
    lines: list[bytes] = []
    size = 0
    try:
        with path.open("rb") as handle:
            if handle.readline().rstrip(b"\r\n") != FRONTMATTER_FENCE:
                raise ManifestError(f"{path} does not start with a --- frontmatter line.")
            for line in handle:
                if line.rstrip(b"\r\n") == FRONTMATTER_FENCE:
                    break
                size += len(line)
                if size > MAX_FRONTMATTER_BYTES:
                    raise ManifestError(f"{path}: frontmatter is longer than {MAX_FRONTMATTER_BYTES} bytes.")
                lines.append(line)
            else:
                raise ManifestError(f"{path}: frontmatter is never closed with ---.")
    except OSError as error:
        raise ManifestError(f"{path}: {error.strerror or error}.") from None
    try:
        data = yaml.safe_load(b"".join(lines).decode("utf-8"))
    except (UnicodeDecodeError, yaml.YAMLError) as error:
        raise ManifestError(f"{path}: frontmatter is not valid YAML ({error}).") from None
    if not isinstance(data, dict):
        raise ManifestError(f"{path}: frontmatter is not a mapping of fields.")
    return data


def read_body(path: Path) -> str:
    """Everything after the closing `---` (the activation tier)."""
    text = path.read_text(encoding="utf-8")
    _, _, rest = text.partition("\n---\n") if text.startswith("---\n") else ("", "", text)
    return rest.lstrip("\n")


def load_app_manifest(package_dir: Path) -> AppManifest:
    from pydantic import ValidationError

    data = read_frontmatter(package_dir / "APP.md")
    try:
        return AppManifest.model_validate(data)
    except ValidationError as error:
        raise ManifestError(f"{package_dir / 'APP.md'}: {_first_problem(error)}") from None


def load_skill_manifest(skill_file: Path) -> SkillManifest:
    from pydantic import ValidationError

    data = read_frontmatter(skill_file)
    try:
        return SkillManifest.model_validate(data)
    except ValidationError as error:
        raise ManifestError(f"{skill_file}: {_first_problem(error)}") from None


def skill_path(package_dir: Path, shortname: str) -> Path:
    """A shortname resolves by convention to skills/<shortname>/SKILL.md."""
    return package_dir / "skills" / shortname / "SKILL.md"


def _first_problem(error: Any) -> str:
    first = error.errors()[0]
    where = ".".join(str(part) for part in first["loc"]) or "frontmatter"
    return f"{where}: {first['msg']}"
