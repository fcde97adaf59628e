"""Discovery, the catalog and activation: the first two tiers of progressive disclosure.

`discover` finds package folders (an APP.md) under some roots; `catalog_entry` is tier 1, what the
frontmatter says (with the package's trust level, gates.py), read without the body; `activate` is
tier 2, the APP.md body and every listed skill.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from agentic_kit.text import undecodable_byte

from .gates import trust_level
from .manifest import (
    ManifestError,
    UnsupportedSchema,
    app_manifest_from,
    check_schema,
    load_skill_manifest,
    package_file,
    read_body,
    read_frontmatter,
    skill_path,
)
from .package import Package

# What activation returns at most: the APP.md body and the skills' bodies together.
MAX_ACTIVATION_BYTES = 4 * 1024 * 1024


# Folders never searched for packages: tool caches, dependency trees and build output (a `pip
# install .` leaves copies of what it installs under build/).
SKIPPED_FOLDERS = {".git", ".nox", ".venv", "node_modules", "__pycache__", "site-packages", "build"}


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
