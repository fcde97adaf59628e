"""Interrupts: what SIGINT and SIGTERM do to a run.

A run that has not begun to commit a change or to print its answer ends at once, by the signal
itself: it prints nothing and changes nothing (a temp file it leaves is removed by the next
write, and the kernel releases its lock), and its parent sees it killed by that signal (exit
status 130 or 143 in a shell). From the moment a change is about to be committed, or the answer
is about to be printed, both signals are held back: the run finishes, prints its whole envelope
and exits with its own status, and the held signal is dropped — the run it was meant to stop is
already over. So an interrupted run prints one whole, true envelope or nothing at all.

An app's `cli.py` does what `end_runs_quietly()` does as its very first statement after the
docstring, before any other import (so with no `from __future__` import), with `_signal` (the C
core of `signal`, which loads no Python code), so that an interrupt during start-up is quiet too;
`runner.main()` calls `end_runs_quietly()` again, for an entry script that does not. (Before that
first statement, while the Python interpreter itself starts — its `site` imports, compiling
`cli.py` — SIGINT is Python's: it may print a KeyboardInterrupt on stderr and exit with status 1,
or die by SIGINT after that traceback. Nothing has been read or written by then, and nothing is
on stdout.) In-process runs (tests, warm runtimes) never change how the host handles signals;
they only hold them back while a commit or a print is under way, and deliver them when the run
returns.
"""

from __future__ import annotations

import signal

_SIGNALS = {signal.SIGINT, signal.SIGTERM}
_CAN_HOLD = hasattr(signal, "pthread_sigmask")  # POSIX; elsewhere nothing is held

_run_under_way = False


def end_runs_quietly(module_name: str = "__main__") -> None:
    """From now on SIGINT, like SIGTERM, ends this process by the kernel's default action: no
    KeyboardInterrupt, so no traceback and no half-printed output. A SIGINT the parent chose to
    ignore (a background job) stays ignored.

    Called with a module's `__name__`, it acts only when that module is the entry script: imported
    rather than run (a runtime or a test running it in-process), the host's signals stay its own.
    """
    if module_name != "__main__":
        return
    if signal.getsignal(signal.SIGINT) is signal.default_int_handler:
        signal.signal(signal.SIGINT, signal.SIG_DFL)


class one_run:  # noqa: N801 - used as `with interrupts.one_run(...)`, a phrase
    """The span of one run, within which `hold()` takes effect. When the process ends with the run,
    what was held stays held (a pending signal dies with the process); otherwise the signal mask
    is put back and a held signal reaches the host now, once the run is over."""

    def __init__(self, *, ends_the_process: bool) -> None:
        self.ends_the_process = ends_the_process

    def __enter__(self) -> None:
        global _run_under_way
        self.outer = _run_under_way
        self.before = signal.pthread_sigmask(signal.SIG_BLOCK, ()) if _CAN_HOLD else set()
        _run_under_way = True

    def __exit__(self, *exc: object) -> None:
        global _run_under_way
        _run_under_way = self.outer
        if _CAN_HOLD and not self.ends_the_process:
            signal.pthread_sigmask(signal.SIG_SETMASK, self.before)


def hold() -> None:
    """Hold SIGINT and SIGTERM back until the run ends (pending, not lost): a commit or a print
    under way always finishes. Outside a run (the store used on its own) it does nothing."""
    if _run_under_way and _CAN_HOLD:
        signal.pthread_sigmask(signal.SIG_BLOCK, _SIGNALS)
