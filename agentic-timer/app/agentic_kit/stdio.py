"""The standard streams of a run: descriptors a process was started without, and the one print
of the answer, which may find stdout closed, full or gone (the runner's last word is here)."""

from __future__ import annotations

import contextlib
import errno
import io
import os
import sys


def occupy_closed_standard_streams() -> None:
    """A process started with stdin, stdout or stderr closed (`>&-`) has that descriptor free, and
    the next file opened (a lock, a temp file) would take its number, where a stray write meant for
    the stream would land. /dev/null takes it instead; Python already knows the stream as None."""
    for fd in (0, 1, 2):
        try:
            os.fstat(fd)
        except OSError:
            with contextlib.suppress(OSError):
                opened = os.open(os.devnull, os.O_RDWR)
                if opened != fd:  # a lower descriptor was free too: it is filled on its own turn
                    os.dup2(opened, fd)
                    os.close(opened)


def print_answer(text: str, status: int) -> None:
    try:
        if sys.stdout is None:  # started with stdout closed
            raise OSError(errno.EBADF, "stdout is closed")
        sys.stdout.write(text + "\n")
        sys.stdout.flush()
    except (OSError, ValueError) as error:  # EPIPE, ENOSPC, EBADF, EIO; ValueError: a closed stream
        _stdout_failed(error, status)


def _stdout_failed(error: Exception, status: int) -> None:
    """Nothing more can be said on stdout: the run keeps its own exit status, which tells the
    outcome (0: done, and saved if it was a change), and stdout is pointed at /dev/null, so the
    interpreter's last flush at exit cannot fail again (a traceback and status 120). stderr gets
    one line saying so — but for a reader that closed the pipe, which chose to stop reading
    (`| head -1`) and, as with any Unix tool, is told nothing."""
    if not isinstance(error, BrokenPipeError):
        reason = (error.strerror if isinstance(error, OSError) else None) or str(error)
        note(f"The answer could not be written to stdout ({reason}); exit status {status} is the command's.")
    if sys.stdout is None:
        return
    with contextlib.suppress(OSError, ValueError, io.UnsupportedOperation):
        fd = sys.stdout.fileno()
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, fd)
        os.close(devnull)


def note(line: str) -> None:
    """A line on stderr, if there is one (a process may be started without it)."""
    if sys.stderr is not None:
        with contextlib.suppress(OSError, ValueError):
            print(line, file=sys.stderr, flush=True)
