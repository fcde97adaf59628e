"""The suite's own three apps, wherever the toolkit runs from.

From a checkout they are the folders at its root; from an installed wheel they are the copies the
wheel carries as package data under `agentapps/bundled/` (pyproject.toml). An installed app's
default state folder (`app/state/`) would lie inside the Python installation — shared, often
read-only, replaced on upgrade — so a runtime that starts one gives it the user's own data folder
(`AGENTIC_STATE_DIR`), unless the caller set that or the app's own variable.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from .gates import SUITE_ROOT, in_checkout

SUITE_APPS = ("agentic-to-do", "agentic-notes", "agentic-timer")
BUNDLED_ROOT = Path(__file__).resolve().parent / "bundled"
STATE_DIR_ENV = "AGENTIC_STATE_DIR"
DATA_FOLDER_NAME = "agentic-applications-suite"


def installed() -> bool:
    """Whether this toolkit is an installed suite carrying its apps (not a checkout)."""
    return not in_checkout() and all((BUNDLED_ROOT / name / "APP.md").is_file() for name in SUITE_APPS)


def suite_apps() -> list[Path]:
    """The three apps' folders: the installed copies, else the checkout's own."""
    base = BUNDLED_ROOT if installed() else SUITE_ROOT
    return [base / name for name in SUITE_APPS if (base / name / "APP.md").is_file()]


def is_installed_app(package_root: Path) -> bool:
    """Whether the folder is one of the apps an installed suite carries."""
    return installed() and package_root.resolve().is_relative_to(BUNDLED_ROOT)


def user_state_dir() -> Path:
    """The platform's per-user data folder for the suite (XDG on Linux, Application Support on
    macOS, AppData on Windows)."""
    import platformdirs

    return Path(platformdirs.user_data_dir(DATA_FOLDER_NAME, appauthor=False))


def state_dir_for(package_root: Path, environ: Mapping[str, str]) -> Path | None:
    """The folder an installed app is given as AGENTIC_STATE_DIR, or None: not an installed app,
    or the caller already says where its state lives."""
    if not is_installed_app(package_root):
        return None
    # An app's own variable (AGENTIC_TODO_STATE_FILE, ...) still wins: the kit reads it first.
    if environ.get(STATE_DIR_ENV):
        return None
    return user_state_dir()


def state_overrides(package_root: Path, environ: Mapping[str, str]) -> dict[str, str]:
    """The environment to add for this package's runs (empty unless it is an installed app)."""
    folder = state_dir_for(package_root, environ)
    return {} if folder is None else {STATE_DIR_ENV: str(folder)}


def is_fixture(package_root: Path) -> bool:
    """Whether the folder is one of the checkout's test fixtures (deliberately broken packages
    among them) or the conformance cases' packages (killed by a signal, talking on stderr, on
    purpose): never bundled, not listed or served by default."""
    resolved = package_root.resolve()
    return in_checkout() and any(resolved.is_relative_to(SUITE_ROOT / folder) for folder in FIXTURE_FOLDERS)


FIXTURE_FOLDERS = ("tests", "conformance")


def default_packages(cwd: Path, fixtures: bool = False) -> list[Path]:
    """The packages `catalog` and `mcp` find with no root given; the checkout's test fixtures only
    when asked for."""
    from .catalog import discover

    found = discover(default_roots(cwd))
    return found if fixtures else [root for root in found if not is_fixture(root)]


def default_roots(cwd: Path) -> list[Path]:
    """Where `catalog` and `mcp` look when given no root: the current folder inside the suite's
    checkout (as before), else the suite's own three apps — a client starts a server from a folder
    of its choosing (often / or the home folder), whose tree is no place to search."""
    if in_checkout() and cwd.resolve().is_relative_to(SUITE_ROOT):
        return [cwd]
    return suite_apps() or [cwd]
