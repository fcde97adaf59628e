"""Generated files of a package: the vendored kit in app/agentic_kit/ and the schemas/ folder.

`python -m agentapps.sync PKG...` rewrites them; `--check` only reports what is stale (the
drift tests and CI use that). Nothing here is edited by hand.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from .runtime import Package, load_entry_module

KIT_SOURCE = Path(__file__).resolve().parent.parent / "agentic_kit"
KIT_FOLDER = Path("app") / "agentic_kit"


def kit_files() -> dict[str, bytes]:
    return {path.name: path.read_bytes() for path in sorted(KIT_SOURCE.glob("*.py"))}


def expected_kit() -> dict[Path, bytes]:
    return {KIT_FOLDER / name: data for name, data in kit_files().items()}


def expected_schemas(package: Path) -> dict[Path, bytes]:
    return {
        Path("schemas") / name: (json.dumps(schema, indent=2, ensure_ascii=False) + "\n").encode()
        for name, schema in package_schemas(package).items()
    }


def package_schemas(package: Path) -> dict[str, dict[str, object]]:
    """Schemas built from the models the package's entry module names: ENTITY_MODEL, and
    LIST_ITEM_MODELS when list commands print other shapes."""
    # The kit is imported from its source first, so a stale vendored copy cannot shape the schemas.
    from typer.main import get_command

    from agentic_kit.schemas import envelope_schemas

    module = load_entry_module(Package(package))
    commands = sorted(getattr(get_command(module.app), "commands", {}))
    entity = module.ENTITY_MODEL.__name__
    entity_name = "".join(f"-{c.lower()}" if c.isupper() else c for c in entity).lstrip("-")
    list_models = tuple(getattr(module, "LIST_ITEM_MODELS", ()))
    return envelope_schemas(module.ENTITY_MODEL, entity_name, commands, list_models)


def stale_files(package: Path) -> list[Path]:
    """Generated files that are missing, differ, or (in the kit folder) should not be there."""
    return _stale(package, expected_kit(), KIT_FOLDER) + _stale(
        package, expected_schemas(package), Path("schemas")
    )


def sync(package: Path) -> list[Path]:
    """Rewrite what is stale, the kit first (the schemas are built by loading the app); return
    what changed."""
    changed = _write(package, expected_kit(), KIT_FOLDER)
    return changed + _write(package, expected_schemas(package), Path("schemas"))


def _stale(package: Path, expected: dict[Path, bytes], folder: Path) -> list[Path]:
    stale = [path for path, data in expected.items() if _read(package / path) != data]
    present = {path.relative_to(package) for path in (package / folder).glob("*") if path.is_file()}
    return stale + sorted(present - set(expected))


def _write(package: Path, expected: dict[Path, bytes], folder: Path) -> list[Path]:
    changed = _stale(package, expected, folder)
    for path in changed:
        target = package / path
        if path in expected:
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(expected[path])
        else:
            target.unlink()
    return changed


def _read(path: Path) -> bytes | None:
    try:
        return path.read_bytes()
    except FileNotFoundError:
        return None


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("packages", nargs="+", type=Path)
    parser.add_argument("--check", action="store_true", help="report stale files, change nothing")
    options = parser.parse_args(argv)
    status = 0
    for package in options.packages:
        changed = stale_files(package) if options.check else sync(package)
        for path in changed:
            print(f"{'stale' if options.check else 'wrote'} {package / path}")
        status |= bool(changed and options.check)
    return status


if __name__ == "__main__":
    sys.exit(main())
