"""Checks on what the user typed, shared by every app; each returns the clean value or raises
VALIDATION_ERROR. Apps call them before touching the state, so bad input never takes the lock."""

from __future__ import annotations

import errno
import os
import stat
import sys
from datetime import datetime, timedelta
from typing import BinaryIO, Protocol

from . import clock
from .dates import (
    DUE_FORMATS,
    OutOfRange,
    format_timestamp,
    near_readings,
    parse_after_bound,
    parse_bound,
    parse_due,
    parse_instant,
)
from .errors import AppError, validation_error
from .hints import BadValue
from .text import NOT_ONE_LINE, printable, quoted

STDIN_PATH = "-"
MAX_COUNT_DIGITS = 4000  # below Python's 4300-digit limit for turning text into an int
CHUNK_BYTES = 1024 * 1024  # what one read of a file or stdin asks for: no read is sized by the limit
_COUNT_HINT = "Give a whole number of 0 or more in ASCII digits, such as 20."


def check_text(
    field: str,
    value: str,
    *,
    max_chars: int,
    required: bool = False,
    single_line: bool = False,
    longer_text: str | None = None,
) -> str:
    """The value as given (a single-line field is trimmed), or VALIDATION_ERROR.

    A single-line field refuses control characters, line and paragraph separators, and bidi
    controls (text.NOT_ONE_LINE): nothing in it can start a new line or reorder what is shown.
    `longer_text` names the option that takes what does not fit on that line (`--description`).
    """
    if single_line:
        value = value.strip()
        if NOT_ONE_LINE.search(value):
            further = f"; put further lines or tabs in {longer_text}" if longer_text else ""
            raise validation_error(
                f"{field} must be one line, without control, line-separator or bidi-control characters.",
                f"Give the {field} as one line of plain text{further}.",
            )
    if required and not value.strip():
        raise validation_error(
            f"{field} must not be empty.", f"Give a {field} with at least one character that is not a space."
        )
    if required and not _shows_something(value):
        raise validation_error(
            f"{field} must not be empty.",
            f"Give a {field} with at least one character that shows: zero-width and other invisible "
            "characters alone are empty.",
        )
    if len(value) > max_chars:
        raise validation_error(
            f"{field} is {len(value)} characters; the limit is {max_chars}.",
            f"Shorten {field}.",
        )
    return value


# Categories of characters that show nothing of their own: separators, controls, format characters
# (zero-width, byte-order mark), surrogates, unassigned, and marks that only combine with another.
_SHOWS_NOTHING = frozenset({"Zs", "Zl", "Zp", "Cc", "Cf", "Cs", "Cn", "Mn", "Me"})
# Letters that show nothing: the Hangul fillers and the blank Braille pattern.
_BLANK_LETTERS = frozenset("\u115f\u1160\u3164\uffa0\u2800")


def _shows_something(value: str) -> bool:
    """Whether a character of the value shows: found by an outside review, a title of a zero-width
    space (U+200B), a byte-order mark or a Hangul filler alone passed as not empty."""
    if any(character.isascii() and character.isprintable() and character != " " for character in value):
        return True  # the common case, without unicodedata
    import unicodedata

    return any(
        unicodedata.category(character) not in _SHOWS_NOTHING and character not in _BLANK_LETTERS
        for character in value
    )


def check_due(option: str, value: str) -> str:
    """A due date or instant, normalised (see dates.parse_due)."""
    try:
        return parse_due(value)
    except ValueError as error:
        raise _bad_date(option, value, error) from None


def check_bound(option: str, value: str) -> datetime:
    """A date or instant used as a bound, as a UTC instant: a date is the start of its day in
    the user's zone (see dates.parse_bound)."""
    try:
        return parse_bound(value)
    except ValueError as error:
        raise _bad_date(option, value, error) from None


def check_after_bound(option: str, value: str) -> datetime:
    """A date or instant used as an "after" bound, as a UTC instant: a date is the end of its day
    in the user's zone (see dates.parse_after_bound)."""
    try:
        return parse_after_bound(value)
    except ValueError as error:
        raise _bad_date(option, value, error) from None


def _bad_date(option: str, value: str, error: ValueError) -> AppError:
    """What is wrong with the value, in the words of dates.DateError; the hint gives the value
    meant when the text nearly says it (`tomorrow`, `2026-12-3`), else the forms taken."""
    if isinstance(error, OutOfRange):
        hint = OutOfRange.hint
    else:
        try:
            instant = clock.now()
        except AppError:  # a bad AGENTIC_NOW: refused on its own by the command
            instant = None
        near = near_hint(option, value, instant) if instant is not None else None
        hint = near or f"Use {DUE_FORMATS}."
    return validation_error(f"{option} {quoted(value)} {error}.", hint)


def near_hint(option: str, value: str, now: datetime, *, instant_only: bool = False) -> str | None:
    """The option with the value `value` most likely means (dates.near_readings), as a hint; both
    readings of an ambiguous date, for the user to choose; None when it means none. With
    `instant_only` (a timer's end, which must be to come) a reading already past is said to be."""
    readings = near_readings(value, now, instant_only=instant_only)
    if instant_only and len(readings) == 2:  # a time shown twice: the moment still to come, if one is
        coming = [reading for reading in readings if parse_instant(reading.value) > now]
        readings = coming if len(coming) == 1 else readings
    if len(readings) == 2:
        first, second = readings
        return (
            f"It reads two ways: {option} {first.value} ({first.words}) or {option} {second.value} "
            f"({second.words}); ask the user which is meant."
        )
    if len(readings) != 1:
        return None
    (reading,) = readings
    if instant_only and parse_instant(reading.value) <= now:
        said = reading.words[0].upper() + reading.words[1:]
        passed = f"{said} ({reading.value}) has passed: the app's clock reads {format_timestamp(now)}"
        # The same clock time read as of tomorrow, as tomorrow's clocks show it (one they skip or
        # show twice is said to be); none past the last day the apps keep.
        tomorrow = near_readings(value, now + timedelta(days=1), instant_only=True)
        if not reading.words.startswith("today at ") or not tomorrow:
            return f"{passed}; give a later {option}."
        if len(tomorrow) == 2:
            return (
                f"{passed}; that time tomorrow reads two ways: {option} {tomorrow[0].value} or "
                f"{option} {tomorrow[1].value}; ask the user which is meant."
            )
        return f"{passed}; for that time tomorrow give {option} {tomorrow[0].value}."
    return f"Did you mean {option} {reading.value} ({reading.words})?"


def read_text_source(option: str, source: str, *, max_bytes: int) -> str:
    """The UTF-8 text of a file, or of stdin when `source` is "-", exactly as stored.

    Bytes are decoded without newline translation, so text round-trips byte for byte. A regular
    file past the limit is refused by its size, unread; anything else (a pipe) is read a chunk at
    a time and refused as soon as it passes the limit, so no read holds more than the limit.
    """
    if source == STDIN_PATH:
        data, where = _read_stdin(option, max_bytes), "stdin"
    else:
        data, where = _read_file(option, source, max_bytes), printable(source)
    if data is None:
        raise validation_error(
            f"{option} {where} is larger than the limit of {max_bytes} bytes.",
            f"Give at most {max_bytes} bytes: split the text.",
        )
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        raise validation_error(f"{option} {where} is not UTF-8 text.", "Save the text as UTF-8.") from None
    del data  # the text replaces it
    if "\x00" in text:
        raise validation_error(
            f"{option} {where} is binary, not text (it contains NUL bytes).", "Give a text file."
        )
    return text


class _Readable(Protocol):
    def read(self, size: int = -1, /) -> bytes: ...


def _read_bounded(stream: _Readable, max_bytes: int) -> bytearray | None:
    """Everything `stream` holds, or None once it passes `max_bytes`: read in chunks into one
    buffer that grows only as bytes arrive (one bytearray, no list of chunks joined at the end)."""
    fileno = getattr(stream, "fileno", None)
    if fileno is not None:
        try:
            status = os.fstat(fileno())
            if stat.S_ISREG(status.st_mode) and status.st_size - _position(stream) > max_bytes:
                return None  # a regular file says its size: past the limit, it is not read at all
        except (OSError, ValueError):
            pass  # not a real file (a test's stream, a closed descriptor): the read says what it is
    data = bytearray()
    while True:
        chunk = stream.read(min(CHUNK_BYTES, max_bytes + 1 - len(data)))
        if not chunk:
            return data
        data += chunk
        if len(data) > max_bytes:
            return None


def _position(stream: _Readable) -> int:
    tell = getattr(stream, "tell", None)
    try:
        return int(tell()) if tell is not None else 0
    except (OSError, ValueError):
        return 0  # a pipe cannot tell; its size (0) says nothing either


def _read_stdin(option: str, max_bytes: int) -> bytearray | None:
    """Stdin, bounded as `_read_bounded` says. A stdin that is closed (`<&-`) or open only for
    writing is the caller's mistake, not a bug: VALIDATION_ERROR."""
    stream = sys.stdin
    try:
        if stream is None:  # the process was started with no stdin at all
            raise OSError(errno.EBADF, "it is closed")
        buffer: BinaryIO | None = getattr(stream, "buffer", None)
        if buffer is None:  # a text stream with no bytes beneath it (a test's StringIO)
            return _read_bounded(_Encoded(stream.read()), max_bytes)
        return _read_bounded(buffer, max_bytes)
    except (OSError, ValueError) as error:
        reason = error.strerror if isinstance(error, OSError) and error.strerror else str(error)
        raise validation_error(
            f"{option} -: stdin cannot be read: {reason}.", "Pipe the text in, or give a file path."
        ) from None


class _Encoded:
    """A text already read, given back as UTF-8 bytes a chunk at a time."""

    def __init__(self, text: str) -> None:
        self._data = memoryview(text.encode())
        self._at = 0

    def read(self, size: int = -1, /) -> bytes:
        end = len(self._data) if size < 0 else self._at + size
        chunk = bytes(self._data[self._at : end])
        self._at += len(chunk)
        return chunk


def _read_file(option: str, source: str, max_bytes: int) -> bytearray | None:
    if not source:
        raise validation_error(
            f"{option} is empty.", f"Give a file path (absolute is safest), or {STDIN_PATH} for stdin."
        )
    where = printable(source)
    hint = _path_hint(source)
    try:
        # Stat first: a FIFO would block the open until a writer came, a device (/dev/zero) never
        # ends. O_NONBLOCK covers a FIFO swapped in after the stat; fstat then sees what was opened.
        _refuse_unless_regular(option, where, os.stat(source))
        descriptor = os.open(source, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
        with os.fdopen(descriptor, "rb") as handle:
            _refuse_unless_regular(option, where, os.fstat(descriptor))
            return _read_bounded(handle, max_bytes)
    except FileNotFoundError:
        raise validation_error(f"{option} {where}: no such file.", hint) from None
    except IsADirectoryError:
        raise validation_error(f"{option} {where} is a folder, not a file.", hint) from None
    except OSError as error:
        raise validation_error(f"{option} {where} cannot be read: {error.strerror}.", hint) from None


def _not_a_regular_file(status: os.stat_result) -> str | None:
    """What the path names when it is not a regular file (a folder is said apart); None if it is."""
    mode = status.st_mode
    if stat.S_ISREG(mode) or stat.S_ISDIR(mode):
        return None
    if stat.S_ISFIFO(mode):
        return "a FIFO (a named pipe)"
    if stat.S_ISSOCK(mode):
        return "a socket"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    return "not a file"


def _refuse_unless_regular(option: str, where: str, status: os.stat_result) -> None:
    if stat.S_ISDIR(status.st_mode):
        raise IsADirectoryError
    what = _not_a_regular_file(status)
    if what is not None:
        raise validation_error(
            f"{option} {where} is {what}, not a regular file: a path is read only when it names a file.",
            f"Give the path of a regular file, or {STDIN_PATH} and pipe the text on stdin.",
        )


def _path_hint(source: str) -> str:
    """A relative path is read from the working folder: where a runtime runs the app, its package
    root, which is seldom where the caller meant. Say where it was looked for."""
    if os.path.isabs(source):
        return f"Check the path, or give {STDIN_PATH} and pipe the text on stdin."
    resolved = printable(os.path.abspath(source))
    return (
        f"A relative path is read from the folder the app runs in (a runtime runs it from its "
        f"package root): here {resolved}. Give an absolute path, or {STDIN_PATH} and pipe the text on stdin."
    )


def count(value: str | int) -> int:
    """A count (`--limit N`): ASCII digits only, so ` 5`, `1_0`, `5.0` and `٥` are refused
    (Python's int() would take each). A typer `parser=`; a default arrives as an int."""
    if isinstance(value, int):
        return value
    if not (value.isascii() and value.isdigit()):
        raise BadValue(f"{quoted(value)} is not a whole number >= 0 (ASCII digits only).", _COUNT_HINT)
    digits = value.lstrip("0") or "0"
    if len(digits) > MAX_COUNT_DIGITS:  # past Python's own limit for int(); no count needs them
        raise BadValue(
            f"{quoted(value)} has {len(digits)} digits; a count has at most {MAX_COUNT_DIGITS}.", _COUNT_HINT
        )
    return int(digits)


def file_path(value: str) -> str:
    """A file path, or `-` for stdin (`--body-file`): the text as given. As the typer `parser=` of
    an option it marks the option's type as `path` in `describe`, so a runtime that passes text
    inline (an MCP client) knows this option would read a file on the machine instead."""
    return value
