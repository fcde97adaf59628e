"""The store: one JSON state file per app, read without a lock, written under one.

- Path: the app's own env var (a file), else AGENTIC_STATE_DIR (a folder), else app/state/.
- A write holds a filelock on `<state>.lock` from the read through the rename, so two writers
  can never both read the old state and one of them lose its change.
- The new state goes to a temp file in the same folder, is fsynced, then `os.replace`d over the
  old one and the folder is fsynced: a reader or a crash sees the old file or the new, never a mix.
  The file keeps its mode; a symlinked state file is written through to its target, which must
  exist: a dangling symlink on the path is STATE_IO_ERROR, and nothing is created.
- A file an older version of the app wrote (a lower `schemaVersion`) loads as it is checked, then
  is upgraded in memory (`VersionedState.upgrade`); the first command that changes something
  saves the new version (one that changes nothing leaves the file as it is), and a file of a
  newer version is STATE_CORRUPT, never overwritten.
- Every load checks the whole file strictly: in pydantic's one pass, that it is UTF-8 JSON, every
  value has its exact type (no coercion: "2" is not 2) and every field keeps its rule (the
  model's patterns and bounds); in one more pass, that the state keeps its invariants
  (`VersionedState.problems`: IDs unique and in order, the counter past them, each app's own).
  A file that breaks any of it is STATE_CORRUPT, saying what is wrong, and is never touched. A
  write checks the invariants again before it commits, so the app never writes a state it would
  refuse to read.
- Only a regular file of at most MAX_STATE_BYTES is read: a FIFO or a device is STATE_IO_ERROR
  (opened without waiting for a writer), a larger file STATE_CORRUPT (no write makes one).
- Every command that reads or writes the state checks the settings (AGENTIC_NOW,
  AGENTIC_LOCK_TIMEOUT, AGENTIC_TZ) when it opens the store, whether or not it uses them: the
  run reads them once (settings.py) and the store is handed them.
- Nothing is created before it is known that it can be: a missing folder or the lock file only in
  a writable folder, and a lock file that cannot be made is STATE_IO_ERROR at once.
- The names of the store's own files (`<state>.lock`, `.<state>.<16 hex digits>.tmp`) are never a
  state file's: a state path of either form is refused, so one state's cleanup or lock never
  touches another app's state.
"""

from __future__ import annotations

import codecs
import contextlib
import gc
import os
import re
import secrets
import stat
import sys
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any, ClassVar, Generic, TypeVar

from pydantic import BaseModel, ConfigDict, Field, ValidationError
from pydantic.alias_generators import to_camel
from pydantic_core import from_json

from . import interrupts
from .dates import STORED_DUE_PATTERN, STORED_INSTANT_PATTERN
from .errors import AppError, ErrorCode, validation_error
from .ids import MAX_ID, HasId, id_problems
from .settings import Run, Settings
from .text import quoted

STATE_DIR_ENV = "AGENTIC_STATE_DIR"
# The largest state file read or written: 10,000 notes with 20 KiB bodies (about 200 MiB) fit
# more than twice over, while /dev/zero or a sparse 8 GB file cannot exhaust memory.
MAX_STATE_BYTES = 512 * 1024 * 1024
LOCK_SUFFIX = ".lock"
_TEMP_NAME = re.compile(r"\.(?P<state>.+)\.[0-9a-f]{16}\.tmp")


class CamelModel(BaseModel):
    """Python names in snake_case, JSON names in camelCase, unknown keys refused, and no value
    coerced to a field's type."""

    model_config = ConfigDict(
        alias_generator=to_camel,
        populate_by_name=True,
        extra="forbid",
        strict=True,
        # Every field is always printed, so the output schema marks defaulted fields required too.
        json_schema_serialization_defaults_required=True,
    )


def empty_list() -> list[Any]:
    """A new empty list: the default_factory for a list field. pydantic reads a factory's signature
    (does it take the data?), and that of the builtin `list` only by parsing its text signature
    (tokenize's patterns compiled first): in every run, for each model that uses it."""
    return []


# The forms the apps' models keep dates in (see dates.py): an instant in UTC with milliseconds,
# and a due (a date, or such an instant).
StoredInstant = Annotated[str, Field(pattern=STORED_INSTANT_PATTERN)]
StoredDue = Annotated[str, Field(pattern=STORED_DUE_PATTERN)]


class VersionedState(CamelModel):
    """What every state file holds besides its items: its format version and the ID counter.

    Each app's state names its entities (`entities`) and adds its own invariants (`problems`).
    """

    SCHEMA_VERSION: ClassVar[int] = 1

    schema_version: int = Field(ge=1)
    next_id: int = Field(1, ge=1, le=MAX_ID + 1)
    # Each item an import renumbered, by its id here: the exported id and createdAt it came from,
    # so a retried import is known after edits. Written only once there is one (backup.py).
    imported_from: dict[str, str] = Field(default_factory=dict, exclude_if=lambda origins: not origins)

    def take_id(self) -> int:
        number = self.next_id
        if number > MAX_ID:
            raise AppError(
                ErrorCode.CONFLICT,
                f"No id is left: this state has handed out every id up to {MAX_ID}.",
                "Move the state file aside to start a new one.",
            )
        self.next_id += 1
        return number

    def upgrade(self) -> None:
        """Bring a state an older version wrote (a lower schemaVersion) to SCHEMA_VERSION, in
        memory: the first command that changes something saves it so; a read, or a command that
        changes nothing, leaves the file as it is. The fields a newer version added were filled
        with their defaults as the file was read; an app whose upgrade changes more extends this."""
        self.schema_version = self.SCHEMA_VERSION

    def entities(self) -> Sequence[HasId]:
        """The state's entities, in the order they are kept."""
        return ()

    def problems(self) -> Iterator[str]:
        """Every invariant this state breaks, in words; the store reports the first.

        Apps extend it with their own (`yield from super().problems()` first).
        """
        yield from id_problems(self.entities(), self.next_id)


StateT = TypeVar("StateT", bound=VersionedState)


@dataclass(frozen=True)
class StateFile(Generic[StateT]):
    """What an app declares of its state, once (`new_app(..., state=StateFile(...))`): the model
    its file holds, the file's name in the state folder, and the environment variable that names
    a file of its own. The kit opens the store from it (AgenticApp.store)."""

    model: type[StateT]
    name: str
    env: str

    def path(self, app_dir: Path) -> Path:
        return resolve_state_path(self.env, self.name, app_dir)


def resolve_state_path(file_env: str, file_name: str, app_dir: Path) -> Path:
    """Where the state lives: $<file_env>, else $AGENTIC_STATE_DIR/<file_name>, else app/state/."""
    explicit = os.environ.get(file_env)
    if explicit:
        return _not_a_store_file_name(file_env, Path(explicit))
    folder = os.environ.get(STATE_DIR_ENV)
    if folder:
        return Path(folder) / file_name
    return app_dir / "state" / file_name


def _not_a_store_file_name(setting: str, path: Path) -> Path:
    """A state file may not take a name the store gives its own files: another state's lock or
    temp file (the cleanup of leftover temp files would delete it)."""
    if path.name.endswith(LOCK_SUFFIX) or _TEMP_NAME.fullmatch(path.name):
        raise validation_error(
            f"{setting} names {quoted(path.name)}, the form of the apps' own lock or temp files "
            f"(`<state>{LOCK_SUFFIX}`, `.<state>.<16 hex digits>.tmp`).",
            "Give the state file another name.",
        )
    return path


def _refuse_dangling_links(path: Path) -> None:
    """STATE_IO_ERROR when the path, or a folder on it, is a symlink whose target is missing."""
    absolute = Path(os.path.abspath(path))
    for step in (absolute, *absolute.parents):
        if os.path.islink(step) and not os.path.exists(step):
            raise AppError(
                ErrorCode.STATE_IO_ERROR,
                f"Cannot use state file {path}: {step} is a symlink to {os.readlink(step)}, "
                "which does not exist; nothing was changed.",
                "Point the symlink at an existing file (or folder), or remove it to let the app "
                "create the state there.",
            )


def _io_error(action: str, path: Path, error: OSError) -> AppError:
    reason = error.strerror or type(error).__name__
    return AppError(
        ErrorCode.STATE_IO_ERROR,
        f"Cannot {action} state file {path}: {reason}.",
        "Check that the path exists, is writable and the disk has space.",
    )


class StateStore(Generic[StateT]):
    """The state file at `path`, holding a `model`, used with the run's checked `settings`; each
    write it commits is counted in `run` (the runner's, when an app opens it: AgenticApp.store)."""

    def __init__(self, path: Path, model: type[StateT], settings: Settings, run: Run | None = None) -> None:
        self.path = path
        self.model = model
        self.settings = settings
        self.run = run

    @property
    def target(self) -> Path:
        """The real file behind the path, so a symlink stays a link and its target is written.

        A dangling symlink on the way (the file, or a folder above it) is STATE_IO_ERROR: writing
        through it would create its target, and any folders on the way, wherever it points (in
        a shared AGENTIC_STATE_DIR, at a path another user chose)."""
        _refuse_dangling_links(self.path)
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

        target = self.target
        self._prepare_lock(target)
        lock = filelock.FileLock(str(target) + LOCK_SUFFIX, timeout=self.settings.lock_timeout)
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
            # No file, and nothing in the state to keep (a purge of none): none is made either.
            nothing_to_make = original is None and updated == self._serialise(self._empty())
            if not nothing_to_make and not _is_file_of(updated, original):
                # Only a changed state is checked again: one that serialises to the bytes it was
                # read from holds the values whose invariants the read has just checked.
                problem = next(state.problems(), None)
                if problem is not None:  # a bug: refuse to write what the next read would refuse
                    raise AppError(
                        ErrorCode.INTERNAL_ERROR,
                        f"The change would leave the state inconsistent ({problem}).",
                        "Nothing was saved by this command. Please report it with the arguments used.",
                    )
                _check_size(len(updated) + 1)
                self._write(target, updated)
        finally:
            lock.release()

    def _prepare_lock(self, target: Path) -> None:
        """The state's folder and lock file, made only where they can be: in a folder that is
        writable (and marked so: a read-only folder stays untouched even for root), and a lock file
        that cannot be made is STATE_IO_ERROR now, not STATE_LOCKED after the whole wait."""
        lock_path = Path(str(target) + LOCK_SUFFIX)
        if os.path.lexists(lock_path):
            return
        existing = target.parent
        while not os.path.lexists(existing) and existing != existing.parent:
            existing = existing.parent
        if existing.is_dir() and not _writable(existing):
            raise AppError(
                ErrorCode.STATE_IO_ERROR,
                f"Cannot write state file {self.path}: the folder {existing} is read-only.",
                "Make the folder writable to change the state; nothing was changed.",
            )
        try:
            target.parent.mkdir(parents=True, exist_ok=True)
        except OSError as error:
            raise _io_error("create the folder of", self.path, error) from None
        try:
            os.close(os.open(lock_path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o666))
        except FileExistsError:
            pass  # another writer made it first: fine, the lock itself decides
        except OSError as error:
            raise _io_error("create the lock file of", self.path, error) from None

    def _read(self, target: Path) -> tuple[StateT, bytes | None]:
        try:
            raw = _read_regular_file(target, MAX_STATE_BYTES)
        except FileNotFoundError:
            return self._empty(), None
        except _NotARegularFile as error:
            raise AppError(
                ErrorCode.STATE_IO_ERROR,
                f"Cannot read state file {self.path}: it is {error}, not a regular file.",
                "Point the state at a regular file (or a path where one can be made); it was left as it is.",
            ) from None
        except _TooLarge:
            raise self._corrupt(
                f"is larger than {_size(MAX_STATE_BYTES)}, the most a state file of the app can hold"
            ) from None
        except OSError as error:
            raise _io_error("read", self.path, error) from None
        state = _take_parsed(target, self.model, raw)
        if state is None:
            state = self._parse(raw)
        if state.schema_version < self.model.SCHEMA_VERSION:
            state.upgrade()
            # Compared, for the write, with the form this version gives it: a command that changes
            # nothing leaves a file an older version wrote as it is.
            return state, self._serialise(state) + b"\n"
        _ask_to_keep_parsed(target, self.model)
        return state, raw

    def _empty(self) -> StateT:
        """The state of no file: nothing in it yet."""
        return self.model(schema_version=self.model.SCHEMA_VERSION)

    def _parse(self, raw: bytes) -> StateT:
        try:
            # One pass in pydantic-core parses and validates, types and field rules: the cost of
            # every command at 10,000 items. The invariants take one more pass, in Python.
            with _no_cycle_collection():
                state = self.model.model_validate_json(raw)
        except ValidationError as error:
            raise self._diagnose(raw, error) from None
        if state.schema_version > self.model.SCHEMA_VERSION:
            raise self._newer(state.schema_version)
        # pydantic keeps the last of two equal keys. A file this app wrote is its own canonical
        # form, which has none, so only another file pays for the slower check.
        if not _is_file_of(self._serialise(state), raw):
            repeated = _repeated_key(raw)
            if repeated is not None:
                raise self._corrupt(f"repeats the key {repeated!r} in one object; JSON keys are unique")
        problem = next(state.problems(), None)
        if problem is not None:
            raise self._corrupt(f"is inconsistent: {problem}")
        return state

    def _diagnose(self, raw: bytes, error: ValidationError) -> AppError:
        """Say why a file failed: what it is if it is not UTF-8 JSON, or that it is from a newer
        version, or where it leaves the model. Never parses it again with a parser that has
        limits of its own (depth, digits): whatever the file holds, the answer is STATE_CORRUPT."""
        not_json = _not_utf8_json(raw)
        if not_json:
            return self._corrupt(not_json)
        first = error.errors()[0]
        if first["type"] == "json_invalid":
            detail = first["msg"].removeprefix("Invalid JSON: ")
            return self._corrupt(f"is not valid JSON ({detail})")
        try:
            document: Any = from_json(raw)
        except ValueError:
            document = None
        if isinstance(document, dict):
            foreign = self._foreign(document)
            if foreign is not None:
                return foreign
        version = document.get("schemaVersion") if isinstance(document, dict) else None
        if isinstance(version, int) and version > self.model.SCHEMA_VERSION:
            return self._newer(version)
        where = ".".join(str(part) for part in first["loc"]) or "the top level"
        what = first["msg"]
        if first["type"] == "string_pattern_mismatch":  # the pattern itself would say little
            shown = repr(first["input"])
            what = f"{shown if len(shown) <= 60 else shown[:59] + '…'} is not in the form the app writes"
        return self._corrupt(f"does not fit the state model ({where}: {what})")

    def _foreign(self, document: dict[str, Any]) -> AppError | None:
        """STATE_CORRUPT saying the file is not this app's when it holds none of the keys that
        are this app's own (its list) but keys that are not (another app's list: a state path
        that names another app's file); None otherwise. Neither a newer version of this app nor
        a file to repair."""
        shared = {field.alias or name for name, field in VersionedState.model_fields.items()}
        own = {field.alias or name for name, field in self.model.model_fields.items()} - shared
        others = sorted(key for key in document if key not in own and key not in shared)
        if not own or own & document.keys() or not others:
            return None
        listed = ", ".join(quoted(key) for key in others[:3])
        return self._corrupt(
            f"is not a state file of this app: it holds no {', '.join(sorted(own))} but {listed}",
            hint="The state path may name another app's file: point this app at its own. The file was "
            "left as it is.",
        )

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
        """The state in the app's own form, as the file holds it but for its final newline: the
        serializer's own bytes (model_dump_json would make them a str, then bytes again, then a
        copy with the newline: three more copies of a file of many MiB at the peak of a read)."""
        return state.__pydantic_serializer__.to_json(state, by_alias=True)

    def _write(self, target: Path, data: bytes) -> None:
        """Make `data` and a final newline the state file, atomically and durably."""
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
        temp_name: Path | None = None
        try:
            temp_name = folder / _temp_name(target)
            fd = os.open(temp_name, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
            with os.fdopen(fd, "wb") as temp:
                os.fchmod(temp.fileno(), mode)
                temp.write(data)
                temp.write(b"\n")
                temp.flush()
                os.fsync(temp.fileno())
            # From here the write is as good as done: an interrupt waits until its envelope is out.
            interrupts.hold()
            os.replace(temp_name, target)
            temp_name = None
            if self.run is not None:
                self.run.commits += 1
            _fsync_folder(folder)
        except OSError as error:
            raise _io_error("write", self.path, error) from None
        finally:
            if temp_name is not None:
                with contextlib.suppress(OSError):
                    os.unlink(temp_name)


# --- What a warm runtime's call has parsed before it came -------------------------------------
# A warm runtime (agentapps' warm_server.py) runs each call in a child forked ahead of the call.
# Through the module it gives its children (`agentapps_warm`), a call that read a state asks that
# the next calls' children parse the same file while they wait for their calls (`keep_parsed`):
# the next call takes that parse instead of parsing the file again when the file holds the very
# same bytes. The same bytes parsed by the same code make the same state, refused or passed by the
# same checks: the parse is done ahead, none of what it checks is skipped. A call takes it once (a
# second read in one run parses anew). A cold run has no such module, and parses as ever.
WARM_MODULE = "agentapps_warm"  # what a warm runtime's process and its children have, a cold one not
_PARSED: dict[tuple[str, str], tuple[bytes, VersionedState]] = {}
_PARSED_KEPT = 4  # states held at most (a runtime may give each call a state folder of its own)


def _model_name(model: type[VersionedState]) -> str:
    return f"{model.__module__}:{model.__qualname__}"


def _take_parsed(target: Path, model: type[StateT], raw: bytes) -> StateT | None:
    """The state this process parsed ahead (keep_parsed) from these very bytes of this file, else
    None."""
    held = _PARSED.pop((str(target), _model_name(model)), None)
    if held is None or type(held[1]) is not model or held[0] != raw:
        return None
    return held[1]


def _ask_to_keep_parsed(target: Path, model: type[VersionedState]) -> None:
    warm = sys.modules.get(WARM_MODULE)
    if warm is not None:
        warm.when_idle(__name__, "keep_parsed", str(target), _model_name(model))


def keep_parsed(path: str, model_name: str) -> bool:
    """In a warm runtime's call child, before its call comes: parse the state file at `path` as
    the model `model_name` names (`module:qualname`, a model this process holds) and keep it for
    the call. True when it keeps a new one; False when it holds these bytes already, or the file
    does not load as a state of this version (the call then meets that itself, as a cold one
    would)."""
    module_name, _, qualname = model_name.partition(":")
    model: object = sys.modules.get(module_name)
    for part in qualname.split("."):
        model = getattr(model, part, None)
    if not (isinstance(model, type) and issubclass(model, VersionedState)):
        return False
    key = (path, model_name)
    held = _PARSED.pop(key, None)
    try:
        raw = _read_regular_file(Path(path), MAX_STATE_BYTES)
    except (OSError, _NotARegularFile, _TooLarge):
        return False
    if held is not None and held[0] == raw:
        _PARSED[key] = held
        return False
    try:
        state = StateStore(Path(path), model, Settings(lock_timeout=0.0))._parse(raw)
    except AppError:
        return False
    if state.schema_version != model.SCHEMA_VERSION:
        return False  # upgraded as each call reads it, which a held state would skip
    while len(_PARSED) >= _PARSED_KEPT:
        del _PARSED[next(iter(_PARSED))]  # the one kept longest ago
    _PARSED[key] = (raw, state)
    return True


# What a warm runtime's call child may be asked to call before its call, by name
# (agentapps_warm.when_idle).
WARM_HOOKS = {"keep_parsed": keep_parsed}


@contextlib.contextmanager
def _no_cycle_collection() -> Iterator[None]:
    """Python's cycle collector paused while a state is built: the state holds no cycles (models,
    lists and strings, each freed by its count as ever), but each of its tens of thousands of
    new containers counts toward the next collection, and a state of 10,000 entities set off
    some fifty, one of them a full pass over every object the process holds. Once it runs
    again, one collection of the young objects takes their place."""
    if not gc.isenabled():
        yield
        return
    gc.disable()
    try:
        yield
    finally:
        gc.enable()


class _NotARegularFile(Exception):
    """The state path is a FIFO, a device, a socket or a folder; the message says which."""


class _TooLarge(Exception):
    """The state file holds more than the store reads."""


def _read_regular_file(path: Path, max_bytes: int) -> bytes:
    """The bytes of a regular file of at most max_bytes. Opened without blocking, so a FIFO in the
    file's place cannot hold the command (and its lock) waiting for a writer; never reads more than
    max_bytes + 1, so /dev/zero or a sparse 8 GB file cannot exhaust memory."""
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
    try:
        status = os.fstat(fd)
        if not stat.S_ISREG(status.st_mode):
            raise _NotARegularFile(_kind_of_file(status.st_mode))
        if status.st_size > max_bytes:
            raise _TooLarge()
        # One read takes the whole file (and one byte more, to see a file that grew); what a size
        # of 0 hides (/proc) comes in further reads, each bounded.
        chunks: list[bytes] = []
        total, wanted = 0, status.st_size + 1
        while chunk := os.read(fd, wanted):
            chunks.append(chunk)
            total += len(chunk)
            if total > max_bytes:
                raise _TooLarge()
            wanted = min(max(total, 1 << 16), max_bytes + 1 - total)
        return chunks[0] if len(chunks) == 1 else b"".join(chunks)
    finally:
        os.close(fd)


def _kind_of_file(mode: int) -> str:
    for test, kind in (
        (stat.S_ISDIR, "a folder"),
        (stat.S_ISFIFO, "a FIFO (named pipe)"),
        (stat.S_ISCHR, "a character device"),
        (stat.S_ISBLK, "a block device"),
        (stat.S_ISSOCK, "a socket"),
    ):
        if test(mode):
            return kind
    return "a special file"


def _is_file_of(serialised: bytes, data: bytes | None) -> bool:
    """Whether `data` (a file's bytes, or None for no file) is `serialised` and its final newline,
    compared in place: no copy of either is made."""
    return (
        data is not None
        and len(data) == len(serialised) + 1
        and data.endswith(b"\n")
        and data.startswith(serialised)
    )


def _check_size(size: int) -> None:
    """A state the store would refuse to read is never written: past MAX_STATE_BYTES the state is
    full, like a counter past its last id."""
    if size > MAX_STATE_BYTES:
        raise AppError(
            ErrorCode.CONFLICT,
            f"The change would make the state file {_size(size)}, over its limit of "
            f"{_size(MAX_STATE_BYTES)}.",
            "Remove entities you no longer need, or move the state file aside to start a new one.",
        )


def _size(count: int) -> str:
    return f"{count / (1024 * 1024):g} MiB" if count % (1024 * 1024) == 0 else f"{count:,} bytes"


def _writable(path: Path) -> bool:
    """Writable, and marked so: a file or folder with no write bit is read-only to us even when
    we run as root (who may write anything), because someone marked it that way on purpose."""
    return os.access(path, os.W_OK) and bool(path.stat().st_mode & 0o222)


def _temp_name(target: Path) -> str:
    """`.<state name>.<16 hex digits>.tmp`: a name no other state file's temp file can have."""
    return f".{target.name}.{secrets.token_hex(8)}.tmp"


def _remove_stale_temp_files(target: Path) -> None:
    """Temp files of a writer of this state that was killed mid-write. Only this state's lock
    holder writes them, and we hold the lock, so any that exist are left over. The name must match
    exactly: `.a.json.notes.json.<hex>.tmp` belongs to another state, under another lock."""
    leftovers = []
    with contextlib.suppress(OSError), os.scandir(target.parent) as entries:
        leftovers = [entry.path for entry in entries if _is_temp_name_of(target.name, entry.name)]
    for leftover in leftovers:
        with contextlib.suppress(OSError):
            os.unlink(leftover)


def _is_temp_name_of(state_name: str, name: str) -> bool:
    match = _TEMP_NAME.fullmatch(name)
    return match is not None and match["state"] == state_name


class RepeatedKey(ValueError):
    """A JSON object holds a key twice (`json.loads` would silently keep the last)."""

    def __init__(self, key: str) -> None:
        super().__init__(f"an object repeats the key {key!r}")
        self.key = key


def unique_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """A `json.loads` object_pairs_hook: the object, or RepeatedKey naming the first key it repeats."""
    found = dict(pairs)
    if len(found) != len(pairs):
        seen: set[str] = set()
        for key, _ in pairs:
            if key in seen:
                raise RepeatedKey(key)
            seen.add(key)
    return found


def read_json(text: str | bytes) -> Any:
    """A JSON document other than a state file (an export to import), read as a state file is
    read: by pydantic-core, with its limits (nesting, digits), and as JSON only (NaN and Infinity
    are not). ValueError saying what is wrong, for anything it would not read: a crash of another
    parser's limits (RecursionError) never reaches the caller; a key given twice in one object is
    RepeatedKey."""
    document = from_json(text, allow_inf_nan=False)
    repeated = _repeated_key(text)
    if repeated is not None:
        raise RepeatedKey(repeated)
    return document


def _repeated_key(raw: str | bytes) -> str | None:
    """The first key that an object of the (already valid) JSON file holds twice, if any."""
    import json

    try:
        json.loads(raw, object_pairs_hook=unique_keys)
    except RepeatedKey as repeated:
        return repeated.key
    except (ValueError, RecursionError):
        return None  # pydantic-core read it; this parser's own limits say nothing about keys
    return None


def _not_utf8_json(raw: bytes) -> str | None:
    """What the file is, when it cannot be UTF-8 JSON at all; None when it may be."""
    if not raw.strip():
        return "is empty"
    if raw.startswith((codecs.BOM_UTF32_LE, codecs.BOM_UTF32_BE)):
        return "is UTF-32 text; state files are UTF-8 JSON"
    if raw.startswith(codecs.BOM_UTF8):
        return "starts with a byte-order mark; state files are UTF-8 JSON without one"
    if raw.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):
        return "is UTF-16 text; state files are UTF-8 JSON"
    if b"\x00" in raw:
        return "holds NUL bytes: it is binary, or UTF-16 or UTF-32 text; state files are UTF-8 JSON"
    try:
        raw.decode("utf-8")
    except UnicodeDecodeError as error:
        return f"is not UTF-8 text (byte {error.start} is not UTF-8); state files are UTF-8 JSON"
    return None


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
