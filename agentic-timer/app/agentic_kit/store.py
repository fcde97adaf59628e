"""The store: one JSON state file per app, read without a lock, written under one.

- Path: the app's own env var (a file), else AGENTIC_STATE_DIR (a folder), else app/state/.
- A write holds a filelock on `<state>.lock` from the read through the rename, so two writers
  can never both read the old state and one of them lose its change.
- The new state goes to a temp file in the same folder, is fsynced, then `os.replace`d over the
  old one and the folder is fsynced: a reader or a crash sees the old file or the new, never a mix.
  The file keeps its mode; a symlinked state file is written through to its target.
- A file that is not valid JSON or does not fit the model is STATE_CORRUPT and is never touched.
"""

from __future__ import annotations

import contextlib
import json
import os
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any, ClassVar, Generic, TypeVar

from pydantic import BaseModel, ConfigDict, ValidationError
from pydantic.alias_generators import to_camel

from .errors import AppError, ErrorCode, validation_error

STATE_DIR_ENV = "AGENTIC_STATE_DIR"
LOCK_TIMEOUT_ENV = "AGENTIC_LOCK_TIMEOUT"
DEFAULT_LOCK_TIMEOUT = 10.0


class CamelModel(BaseModel):
    """Python names in snake_case, JSON names in camelCase, unknown keys refused."""

    model_config = ConfigDict(
        alias_generator=to_camel,
        populate_by_name=True,
        extra="forbid",
        # Every field is always printed, so the output schema marks defaulted fields required too.
        json_schema_serialization_defaults_required=True,
    )


class VersionedState(CamelModel):
    """What every state file holds besides its items: its format version and the ID counter."""

    SCHEMA_VERSION: ClassVar[int] = 1

    schema_version: int
    next_id: int = 1

    def take_id(self) -> int:
        number = self.next_id
        self.next_id += 1
        return number


StateT = TypeVar("StateT", bound=VersionedState)


def resolve_state_path(file_env: str, file_name: str, app_dir: Path) -> Path:
    """Where the state lives: $<file_env>, else $AGENTIC_STATE_DIR/<file_name>, else app/state/."""
    explicit = os.environ.get(file_env)
    if explicit:
        return Path(explicit)
    folder = os.environ.get(STATE_DIR_ENV)
    if folder:
        return Path(folder) / file_name
    return app_dir / "state" / file_name


def lock_timeout() -> float:
    raw = os.environ.get(LOCK_TIMEOUT_ENV)
    if not raw:
        return DEFAULT_LOCK_TIMEOUT
    try:
        seconds = float(raw)
    except ValueError:
        seconds = -1.0
    if not seconds >= 0:  # also refuses NaN
        raise validation_error(
            f"{LOCK_TIMEOUT_ENV}={raw!r} is not a number of seconds >= 0.",
            f"Unset {LOCK_TIMEOUT_ENV} or set it like 10.",
        )
    return seconds


def _io_error(action: str, path: Path, error: OSError) -> AppError:
    reason = error.strerror or type(error).__name__
    return AppError(
        ErrorCode.STATE_IO_ERROR,
        f"Cannot {action} state file {path}: {reason}.",
        "Check that the path exists, is writable and the disk has space.",
    )


class StateStore(Generic[StateT]):
    def __init__(self, path: Path, model: type[StateT]) -> None:
        self.path = path
        self.model = model

    @property
    def target(self) -> Path:
        """The real file behind the path, so a symlink stays a link and its target is written."""
        return Path(os.path.realpath(self.path))

    def load(self) -> StateT:
        """The current state, without a lock: `os.replace` makes every read see a whole file."""
        state, _ = self._read(self.target)
        return state

    @contextlib.contextmanager
    def transaction(self) -> Iterator[StateT]:
        """Lock, read, let the caller change the state, write it if it changed, unlock.

        If the caller raises, nothing is written.
        """
        import filelock  # only writers need it; reads stay cheap

        timeout = lock_timeout()  # a bad setting is refused before anything is created
        target = self.target
        try:
            target.parent.mkdir(parents=True, exist_ok=True)
        except OSError as error:
            raise _io_error("create the folder of", self.path, error) from None
        lock = filelock.FileLock(str(target) + ".lock", timeout=timeout)
        try:
            lock.acquire()
        except filelock.Timeout:
            raise AppError(
                ErrorCode.STATE_LOCKED,
                f"State file {self.path} is locked by another process.",
                "Another command is writing; try again in a moment.",
            ) from None
        except OSError as error:
            raise _io_error("lock", self.path, error) from None
        try:
            _remove_stale_temp_files(target)
            state, original = self._read(target)
            yield state
            updated = self._serialise(state)
            if updated != original:
                self._write(target, updated)
        finally:
            lock.release()

    def _read(self, target: Path) -> tuple[StateT, bytes | None]:
        try:
            raw = target.read_bytes()
        except FileNotFoundError:
            return self.model(schema_version=self.model.SCHEMA_VERSION), None
        except OSError as error:
            raise _io_error("read", self.path, error) from None
        return self._parse(raw), raw

    def _parse(self, raw: bytes) -> StateT:
        try:
            # One pass in pydantic-core parses and validates: the cost of every command at 10,000 items.
            state = self.model.model_validate_json(raw)
        except ValidationError as error:
            raise self._diagnose(raw, error) from None
        if state.schema_version > self.model.SCHEMA_VERSION:
            raise self._newer(state.schema_version)
        return state

    def _diagnose(self, raw: bytes, error: ValidationError) -> AppError:
        """Say why a file failed: not JSON, from a newer version, or not the model's shape."""
        try:
            document: Any = json.loads(raw)
        except (UnicodeDecodeError, json.JSONDecodeError):
            return self._corrupt("is not valid JSON")
        version = document.get("schemaVersion") if isinstance(document, dict) else None
        if isinstance(version, int) and version > self.model.SCHEMA_VERSION:
            return self._newer(version)
        first = error.errors()[0]
        where = ".".join(str(part) for part in first["loc"]) or "the top level"
        return self._corrupt(f"does not fit the state model ({where}: {first['msg']})")

    def _newer(self, version: int) -> AppError:
        return self._corrupt(
            f"was written by a newer version of the app (schema version {version}; "
            f"this app reads {self.model.SCHEMA_VERSION})",
            hint="Upgrade the app; the file was left as it is.",
        )

    def _corrupt(self, reason: str, hint: str | None = None) -> AppError:
        return AppError(
            ErrorCode.STATE_CORRUPT,
            f"State file {self.path} {reason}.",
            hint or "The file was left as it is: repair it, or move it aside to start empty.",
        )

    def _serialise(self, state: StateT) -> bytes:
        return state.model_dump_json(by_alias=True).encode() + b"\n"

    def _write(self, target: Path, data: bytes) -> None:
        folder = target.parent
        try:
            mode = target.stat().st_mode & 0o7777
        except FileNotFoundError:
            mode = 0o666 & ~_current_umask()
        except OSError as error:
            raise _io_error("write", self.path, error) from None
        for path, what in ((target, "file"), (folder, "folder")):
            if path.exists() and not _writable(path):
                raise AppError(
                    ErrorCode.STATE_IO_ERROR,
                    f"Cannot write state file {self.path}: its {what} is read-only.",
                    f"Make the {what} writable to change the state; nothing was changed.",
                )
        temp_name: str | None = None
        try:
            fd, temp_name = tempfile.mkstemp(dir=folder, prefix=_temp_prefix(target), suffix=".tmp")
            with os.fdopen(fd, "wb") as temp:
                os.fchmod(temp.fileno(), mode)
                temp.write(data)
                temp.flush()
                os.fsync(temp.fileno())
            os.replace(temp_name, target)
            temp_name = None
            _fsync_folder(folder)
        except OSError as error:
            raise _io_error("write", self.path, error) from None
        finally:
            if temp_name is not None:
                with contextlib.suppress(OSError):
                    os.unlink(temp_name)


def _writable(path: Path) -> bool:
    """Writable, and marked so: a file or folder with no write bit is read-only to us even when
    we run as root (who may write anything), because someone marked it that way on purpose."""
    return os.access(path, os.W_OK) and bool(path.stat().st_mode & 0o222)


def _temp_prefix(target: Path) -> str:
    return f".{target.name}."


def _remove_stale_temp_files(target: Path) -> None:
    """Temp files of a writer that was killed mid-write. Only a lock holder writes temp files,
    and we hold the lock, so any that exist are left over."""
    for leftover in target.parent.glob(_temp_prefix(target) + "*.tmp"):
        with contextlib.suppress(OSError):
            leftover.unlink()


def _current_umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def _fsync_folder(folder: Path) -> None:
    """Make the rename itself durable; some filesystems cannot fsync a folder, which is fine."""
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)
