"""The describe cache: `agentapps mcp` reads each package's describe at start-up, and running it
(a process per package) was most of start-up's time beyond importing the MCP SDK. A describe that
succeeded is kept on disk, keyed on everything it can depend on, so the next start-up reads it
back instead of running it — and can never be given a stale one:

- the bytes of every file of the package (APP.md, app/, schemas/, skills/, ...), each with its
  path, hashed (SHA-256): an edit is seen even when it keeps a file's size and modification time.
  Left out: `__pycache__` (compiled from the sources hashed) and `.git`, and app/state/ (the
  kit's default state folder: the data, which describe never reads; a state elsewhere is outside
  the package anyway);
- the environment the package runs under (the allow-listed variables, as describe sees them), the
  interpreter's path and version, and the toolkit's version.

A package larger than MAX_HASHED_FILES files or MAX_HASHED_BYTES bytes (a node_modules tree, a
data folder) is not cached: its describe runs every start-up, as before. A cache file that
cannot be read or does not parse is a miss, never an error. Only a describe that answered whole
is kept (one that failed or timed out is run again next time).

Where: $AGENTAPPS_CACHE_DIR when set, else the platform's per-user cache folder
(~/.cache/agentic-applications-suite on Linux), in describe/, one JSON file per key, written
atomically (a temporary file renamed into place), so two servers starting at once never read a
half-written one; each package folder keeps one file, its latest describe. Deleting the folder is always safe.
"""

from __future__ import annotations

import hashlib
import json
import os
import sys
import tempfile
from collections.abc import Mapping
from pathlib import Path
from typing import Any

CACHE_DIR_ENV = "AGENTAPPS_CACHE_DIR"
FORMAT = 1  # bumped when what is stored changes shape: an older file is then simply a miss
MAX_HASHED_FILES = 2_000
MAX_HASHED_BYTES = 16 * 1024 * 1024
NOT_HASHED = {"__pycache__", ".git"}


def cache_folder(environ: Mapping[str, str] | None = None) -> Path:
    """The folder describes are kept in (see the module's docstring)."""
    environ = os.environ if environ is None else environ
    chosen = environ.get(CACHE_DIR_ENV)
    if chosen:
        return Path(chosen) / "describe"
    import platformdirs

    from .suite import DATA_FOLDER_NAME

    return Path(platformdirs.user_cache_dir(DATA_FOLDER_NAME, appauthor=False)) / "describe"


def describe_key(root: Path, env: Mapping[str, str], toolkit_version: str) -> str | None:
    """The key of the package's describe as it is now, or None when it is not cached (too large,
    or a file that cannot be read: the describe is then run, never guessed)."""
    digest = hashlib.sha256()
    for part in (f"format {FORMAT}", str(root.resolve()), sys.executable, sys.version, toolkit_version):
        digest.update(part.encode("utf-8", "surrogatepass") + b"\0")
    digest.update(json.dumps(sorted(env.items()), ensure_ascii=False).encode("utf-8", "surrogatepass"))
    files, size = 0, 0
    try:
        for folder, folders, names in os.walk(root):
            here = Path(folder)
            relative = here.relative_to(root)
            if any((here / name).is_symlink() for name in folders):
                return None  # os.walk does not follow it: an edit inside would go unseen
            # Sorted, so the key never depends on the order the file system lists them in.
            folders[:] = sorted(
                name for name in folders if name not in NOT_HASHED and relative / name != Path("app/state")
            )
            for name in sorted(names):
                path = here / name
                if path.is_symlink() and not path.exists():
                    digest.update(f"dangling {relative / name} -> {os.readlink(path)}\0".encode())
                    continue
                data = path.read_bytes()
                files, size = files + 1, size + len(data)
                if files > MAX_HASHED_FILES or size > MAX_HASHED_BYTES:
                    return None
                digest.update(f"{relative / name}\0{len(data)}\0".encode("utf-8", "surrogatepass"))
                digest.update(data)
    except (OSError, ValueError):
        return None
    return digest.hexdigest()


def _file_name(root: Path, key: str) -> str:
    """`<package folder's hash>-<key>.json`: a package keeps one file, its latest describe."""
    where = hashlib.sha256(str(root.resolve()).encode("utf-8", "surrogatepass")).hexdigest()[:16]
    return f"{where}-{key}.json"


def cached_describe(root: Path, key: str, environ: Mapping[str, str] | None = None) -> list[Any] | None:
    """The describe's commands kept under `key`, or None (a miss)."""
    try:
        kept = json.loads((cache_folder(environ) / _file_name(root, key)).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    commands = kept.get("commands") if isinstance(kept, dict) else None
    return commands if isinstance(commands, list) and kept.get("key") == key else None


def keep_describe(
    root: Path, key: str, commands: list[Any], environ: Mapping[str, str] | None = None
) -> None:
    """Keeps the describe's commands under `key`, in place of the package's earlier one (so the
    cache holds one file a package folder); a cache that cannot be written is left alone
    (start-up goes on: the next one runs describe again)."""
    folder = cache_folder(environ)
    name = _file_name(root, key)
    try:
        folder.mkdir(parents=True, exist_ok=True)
        handle, temporary = tempfile.mkstemp(dir=folder, prefix=".describe-", suffix=".tmp")
        try:
            with os.fdopen(handle, "w", encoding="utf-8") as file:
                json.dump({"key": key, "commands": commands}, file, ensure_ascii=False)
            os.replace(temporary, folder / name)
        except BaseException:
            Path(temporary).unlink(missing_ok=True)
            raise
        for earlier in folder.glob(f"{name.split('-')[0]}-*.json"):
            if earlier.name != name:
                earlier.unlink(missing_ok=True)
    except OSError:
        pass
