"""The folder a case runs in, built fresh for it, and what the adapter is told about it.

    {case}/packages/<name>/   each package of the case: copied from the suite, then its `files`
                              written, its `fifos` made and its `sparse` files extended
    {case}/state/             AGENTIC_STATE_DIR, where the apps keep their state

The folder lies in the system's temporary folder, outside this suite's checkout and outside any
folder the caller trusts, so what is trusted is exactly what the case says: AGENTAPPS_TRUSTED names
the trusted packages' folders, and nothing else.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import shutil
import stat
import tempfile
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..environment import without_agentic
from ..scenarios import text
from .cases import Case, CaseError

TOKEN = "{case}"
TRUSTED_ENV = "AGENTAPPS_TRUSTED"
STATE_ENV = "AGENTIC_STATE_DIR"
# Written by Python when a fixture's app imports its own modules: not a change the case made.
SNAPSHOT_SKIPS = {"__pycache__"}
SNAPSHOT_READ_CAP = 64 * 1024 * 1024  # bytes of a file a snapshot reads; past it, size and time
# Bytes one snapshot hashes in all; past them, files are compared by size and time too, so a case
# that writes many large files costs a bounded read, and memory holds only a hash per file.
SNAPSHOT_TOTAL_CAP = 256 * 1024 * 1024
_CHUNK = 1024 * 1024


@dataclass(frozen=True)
class Workspace:
    root: Path  # resolved: answers hold resolved paths

    @property
    def packages(self) -> Path:
        return self.root / "packages"

    @property
    def state(self) -> Path:
        return self.root / "state"

    def package(self, name: str) -> Path:
        return self.packages / name

    def environment(self, case: Case, caller: Mapping[str, str] | None = None) -> dict[str, str]:
        """The adapter's environment: the caller's without any AGENTIC_* or AGENTAPPS_* setting, then
        the trusted folders, the state folder and the case's `env`."""
        chosen = without_agentic(caller, also=("AGENTAPPS_",))
        chosen[TRUSTED_ENV] = os.pathsep.join(str(self.package(name)) for name in case.trusted)
        chosen[STATE_ENV] = str(self.state)
        return chosen | dict(case.data.get("env", {}))

    def snapshot(self) -> dict[str, object]:
        """Every entry under the folder and what it holds (a FIFO is never opened)."""
        found: dict[str, object] = {}
        budget = SNAPSHOT_TOTAL_CAP
        for folder, subfolders, files in os.walk(self.root):
            subfolders[:] = [name for name in subfolders if name not in SNAPSHOT_SKIPS]
            for name in [*files, *subfolders]:
                path = Path(folder, name)
                mode = path.lstat().st_mode
                key = str(path.relative_to(self.root))
                if stat.S_ISLNK(mode):
                    found[key] = ("link", os.readlink(path))
                elif stat.S_ISREG(mode) and path.lstat().st_size > min(SNAPSHOT_READ_CAP, budget):
                    # A sparse file the case made, or past the total: never read; its size and time
                    # say a change.
                    found[key] = ("large", path.lstat().st_size, path.lstat().st_mtime_ns)
                elif stat.S_ISREG(mode):
                    size, digest = _hashed(path)
                    budget -= size
                    found[key] = ("file", size, digest)
                else:
                    found[key] = stat.S_IFMT(mode)
        return found

    def tokenised(self, value: Any) -> Any:
        """`value` with this folder's path written as {case} in every string, keys included."""
        if isinstance(value, str):
            return value.replace(str(self.root), TOKEN)
        if isinstance(value, list):
            return [self.tokenised(item) for item in value]
        if isinstance(value, dict):
            return {self.tokenised(key): self.tokenised(item) for key, item in value.items()}
        return value


def _hashed(path: Path) -> tuple[int, str]:
    """A file's size and SHA-256, read in chunks (never held whole), up to SNAPSHOT_READ_CAP."""
    digest = hashlib.sha256()
    size = 0
    with open(os.open(path, os.O_RDONLY | os.O_NOFOLLOW), "rb") as stream:  # never through a link
        while size <= SNAPSHOT_READ_CAP and (chunk := stream.read(_CHUNK)):
            digest.update(chunk)
            size += len(chunk)
    return size, digest.hexdigest()


@contextlib.contextmanager
def workspace(case: Case, *, keep: bool = False) -> Iterator[Workspace]:
    """A fresh folder laid out for the case, removed afterwards unless `keep` (to debug it)."""
    if keep:
        yield _laid_out(case, Path(tempfile.mkdtemp(prefix="agentapps-conformance-")).resolve())
        return
    with tempfile.TemporaryDirectory(prefix="agentapps-conformance-") as temp:
        yield _laid_out(case, Path(temp).resolve())


def _laid_out(case: Case, root: Path) -> Workspace:
    space = Workspace(root)
    space.packages.mkdir()
    space.state.mkdir()
    for name, package in case.packages.items():
        _build(case, space.package(name), package)
    return space


def _build(case: Case, target: Path, package: dict[str, Any]) -> None:
    if "from" in package:
        shutil.copytree(case.suite_root / package["from"], target, symlinks=True)
    else:
        target.mkdir()
    for relative, content in package.get("files", {}).items():
        path = _inside(target, relative)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.unlink(missing_ok=True)  # never write through a link the copy holds
        path.write_bytes(text(content).encode("utf-8"))
    for relative in package.get("fifos", []):
        path = _inside(target, relative)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.unlink(missing_ok=True)
        os.mkfifo(path)
    for relative, size in package.get("sparse", {}).items():
        path = _inside(target, relative)
        if not path.is_file() or path.is_symlink():
            raise CaseError(f"{relative}: sparse names no file the package holds.")
        os.truncate(path, size)  # a hole: no disk space, and no time to make


def _inside(package: Path, relative: str) -> Path:
    path = package / relative
    if not path.parent.resolve().is_relative_to(package.resolve()):
        raise CaseError(f"{relative} is not inside its package.")
    return path
