"""The three packages have the layout `agentapps new` makes, so a package author who reads either
learns one shape: the same top-level entries, and the same app/ (its entry, the vendored kit, a
state folder, one domain package), with each package's tests replaying its own scenarios."""

from __future__ import annotations

from pathlib import Path

import pytest

from agentapps.scaffold import create_package
from tests.packages import PACKAGES, SUITE

# What is generated or left by a run, not part of the layout a package author writes.
IGNORED = {"__pycache__", ".pytest_cache"}


def entries(folder: Path) -> set[str]:
    """Top-level entries, a folder marked with a trailing slash."""
    return {
        path.name + ("/" if path.is_dir() else "") for path in folder.iterdir() if path.name not in IGNORED
    }


def app_shape(package: Path) -> set[str]:
    """app/'s entries with the domain package (the one folder holding an __init__.py besides the
    kit) named by its role instead of its name."""
    shape = set()
    for name in entries(package / "app"):
        domain = (
            name.endswith("/")
            and name != "agentic_kit/"
            and (package / "app" / name / "__init__.py").is_file()
        )
        shape.add("DOMAIN/" if domain else name)
    return shape


def test_the_suite_names_every_package_in_the_tree() -> None:
    assert sorted(PACKAGES) == sorted(
        path.name for path in SUITE.glob("agentic-*") if (path / "APP.md").is_file()
    )


@pytest.fixture(scope="module")
def generated(tmp_path_factory: pytest.TempPathFactory) -> Path:
    package, _ = create_package("my-bookmarks", None, None, tmp_path_factory.mktemp("new"))
    return package


@pytest.mark.parametrize("package", PACKAGES)
def test_a_package_has_the_top_level_entries_agentapps_new_makes(generated: Path, package: str) -> None:
    assert entries(SUITE / package) == entries(generated) == {
        ".gitignore", "APP.md", "app/", "schemas/", "scenarios/", "skills/", "tests/"
    }  # fmt: skip


@pytest.mark.parametrize("package", PACKAGES)
def test_a_package_has_the_app_folder_agentapps_new_makes(generated: Path, package: str) -> None:
    assert (
        app_shape(SUITE / package) == app_shape(generated) == {"cli.py", "agentic_kit/", "state/", "DOMAIN/"}
    )


@pytest.mark.parametrize("package", PACKAGES)
def test_a_package_keeps_flat_scenarios_and_one_test_file_like_a_new_one(
    generated: Path, package: str
) -> None:
    for root in (SUITE / package, generated):
        assert {path.suffix for path in (root / "scenarios").iterdir()} == {".json"}, root
        tests = [path for path in (root / "tests").iterdir() if path.name not in IGNORED]
        assert [path.name for path in tests] == [f"test_{app_module(root)}.py"], root


def app_module(package: Path) -> str:
    (domain,) = [
        path.name
        for path in (package / "app").iterdir()
        if path.is_dir() and path.name != "agentic_kit" and (path / "__init__.py").is_file()
    ]
    return domain
