"""`agentapps new`: a new package from templates/package/, already conformant.

The template files are the generated files, with placeholders: __SLUG__ (__SLUG_YAML__ where
YAML reads it: quoted when it would read as a boolean or null), __MODULE__ (the domain package),
__ENV__ (the state file variable), and the name and description — raw in Markdown prose, as a
quoted YAML scalar in frontmatter (…_YAML__), escaped in Python strings (…_PY__).

A slug is refused when the package it makes could not work: its domain package would shadow a
module the app imports (the standard library, the kit, its dependencies), or its skill's
description would pass the Agent Skills limit.
After copying, the kit is vendored and schemas/ generated (sync), so `agentapps check` passes.
"""

from __future__ import annotations

import json
import keyword
import re
import shlex
import shutil
import sys
from pathlib import Path

import yaml

from agentic_kit.errors import AppError, ErrorCode, validation_error

from .sync import sync

TEMPLATE = Path(__file__).resolve().parent / "templates" / "package"
# A template file whose name ends so is written without the suffix: the template's APP.md is
# APP.md.template, so that the template folder is no package a catalog would find (and list as
# broken, its slug a placeholder).
TEMPLATE_SUFFIX = ".template"
# Written beside APP.md, so that a package kept in a repository of its own never commits the
# user's data or bytecode (written here, not from templates/: a dotfile is no package data).
GITIGNORE = (
    "# The app's state is the user's data, never part of the package.\n"
    "app/state/*\n!app/state/.gitkeep\n__pycache__/\n"
)
SLUG = re.compile(r"[a-z][a-z0-9]*(-[a-z0-9]+)*")
MAX_SLUG_CHARS = 58  # its skill is SLUG-usage, and a skill name has at most 64 characters
MAX_SKILL_DESCRIPTION_CHARS = 1024  # the Agent Skills limit
# The modules the generated app imports besides the standard library; its domain package, named
# after the slug, must not shadow any of them (app/ comes first on the app's import path).
APP_IMPORTS = {"agentic_kit", "typer", "filelock", "pydantic", "pydantic_core"}


def _slug_hint(slug: str) -> str:
    """A path where the slug goes is the folder to create it in: say how to give both."""
    path = Path(slug)
    if "/" in slug and SLUG.fullmatch(path.name) and len(path.name) <= MAX_SLUG_CHARS:
        return f"Give the slug and the folder apart: new {path.name} --dir {shlex.quote(str(path.parent))}"
    return "For example: my-bookmarks."


def check_slug(slug: str) -> str:
    if not SLUG.fullmatch(slug) or len(slug) > MAX_SLUG_CHARS:
        raise validation_error(
            f"{slug!r} is not a valid slug: kebab-case, starting with a letter, "
            f"at most {MAX_SLUG_CHARS} characters.",
            _slug_hint(slug),
        )
    module = slug.replace("-", "_")
    if keyword.iskeyword(module):
        raise validation_error(f"{slug!r} is a Python keyword; its domain package could not be imported.")
    if module in sys.stdlib_module_names or module in APP_IMPORTS or _installed(module):
        raise validation_error(
            f"{slug!r} would name the app's domain package {module}, which shadows the module "
            f"{module} the app or its libraries may import.",
            f"Choose a more specific slug, such as my-{slug}.",
        )
    return slug


def _installed(module: str) -> bool:
    """A top-level module of an installed distribution (typer's and pydantic's own dependencies
    among them), whatever folders this process has put on its import path."""
    from importlib.metadata import packages_distributions

    return module in packages_distributions()


def yaml_scalar(value: str) -> str:
    """`value` as a YAML scalar that reads back as that string: plain when it does (my-app),
    quoted when YAML would read it as something else (true, on, null, 1e3)."""
    return value if yaml.safe_load(value) == value else json.dumps(value, ensure_ascii=False)


def check_line(field: str, value: str) -> str:
    value = value.strip()
    if not value or not value.isprintable():
        raise validation_error(f"{field} must be one line of text, not empty.")
    return value


def create_package(
    slug: str, name: str | None, description: str | None, parent: Path
) -> tuple[Path, list[Path]]:
    """Write the package; on any failure nothing is left behind. Returns it and its files."""
    slug = check_slug(slug)
    name = check_line("--name", name if name is not None else slug.replace("-", " ").title())
    description = check_line(
        "--description",
        description if description is not None else f"Keeps {name} entries that agents add, list and remove.",
    )
    skill_description = (
        f"Operate {name} through its JSON CLI. Use when the user wants to add, list or remove "
        "entries that must persist between conversations."
    )
    excess = len(skill_description) - MAX_SKILL_DESCRIPTION_CHARS
    if excess > 0:
        raise validation_error(
            f"--name is too long: its skill's description would be {len(skill_description)} characters, "
            f"and Agent Skills allows {MAX_SKILL_DESCRIPTION_CHARS}.",
            f"Give a name of at most {len(name) - excess} characters.",
        )
    if parent.exists() and not parent.is_dir():
        raise validation_error(
            f"--dir {parent} is a file, not a folder.", "Give a folder (it is created if missing)."
        )
    target = parent / slug
    if target.exists() and (not target.is_dir() or any(target.iterdir())):
        raise AppError(
            ErrorCode.CONFLICT,
            f"{target} already exists and is not an empty folder.",
            "Choose another slug or --dir; nothing was written.",
        )
    module = slug.replace("-", "_")
    values = {
        "__SLUG__": slug,
        "__SLUG_YAML__": yaml_scalar(slug),
        "__MODULE__": module,
        "__ENV__": f"{module.upper()}_STATE_FILE",
        "__NAME__": name,
        "__DESCRIPTION__": description,
        "__NAME_YAML__": json.dumps(name, ensure_ascii=False),
        "__DESCRIPTION_YAML__": json.dumps(description, ensure_ascii=False),
        "__SKILL_DESCRIPTION_YAML__": json.dumps(skill_description, ensure_ascii=False),
        "__NAME_PY__": json.dumps(name)[1:-1],
        "__DESCRIPTION_PY__": json.dumps(description)[1:-1],
    }
    existed = target.exists()
    try:
        for source in sorted(TEMPLATE.rglob("*")):
            if source.is_dir() or "__pycache__" in source.parts:
                continue
            relative = _fill(str(source.relative_to(TEMPLATE)), values).removesuffix(TEMPLATE_SUFFIX)
            destination = target / relative
            destination.parent.mkdir(parents=True, exist_ok=True)
            destination.write_text(_fill(source.read_text(encoding="utf-8"), values), encoding="utf-8")
        (target / ".gitignore").write_text(GITIGNORE, encoding="utf-8")
        (target / "app" / "state").mkdir(parents=True, exist_ok=True)
        (target / "app" / "state" / ".gitkeep").touch()
        sync(target)
    except BaseException:
        if existed:
            for child in target.iterdir():
                shutil.rmtree(child) if child.is_dir() else child.unlink()
        else:
            shutil.rmtree(target, ignore_errors=True)
        raise
    files = sorted(path.relative_to(target) for path in target.rglob("*") if path.is_file())
    return target, [path for path in files if "__pycache__" not in path.parts]


def _fill(text: str, values: dict[str, str]) -> str:
    # Longest placeholders first, so __NAME_YAML__ is not read as __NAME__ + "_YAML__".
    for placeholder in sorted(values, key=len, reverse=True):
        text = text.replace(placeholder, values[placeholder])
    return text
