"""The runner: one command line in, exactly one envelope out, and the exit status.

The line is read once, against the app's command model (model.py; app.py builds it), and each
value converted by typer, through its public API only. The app's options are flags, so the
command is the first word that is none: the words before it are read as the app's options, those
after it as the command's, and every answer names the command so found (null for a word that is
no command of the app). Every outcome speaks the envelope: a command's result, a line that cannot
be read, an AppError, and any unexpected exception (INTERNAL_ERROR, with no traceback on stdout
or stderr).

`--human` is an option like any other — of the app (`--human list`) and of every command
(`list --human`) — never picked out of the raw argument list: a value that reads `--human`
(`add --body --human`) stays a value. A USAGE_ERROR (a command line that cannot be read: no
command or an unknown one, an unknown option, an option without its value or given twice, an
argument missing or too many) always comes as JSON, wherever --human stands: whether it was meant
cannot be told from a line that cannot be read. So does an argument that is not UTF-8.

When stdout cannot be written (a reader that closed the pipe, a full disk, a closed descriptor),
nothing more can be said there: the run exits with its own status, so the status still tells the
outcome (0: the command succeeded, and its change is saved), and writes one line on stderr saying
so — nothing for a closed pipe, whose reader chose to stop reading.
"""

from __future__ import annotations

import io
import os
import signal
import sys
from collections.abc import Callable, Sequence
from contextlib import redirect_stdout
from typing import Protocol

import typer

from . import hints, interrupts, settings, stdio
from .envelope import Envelope, error_envelope, help_envelope, to_json, to_plain, version_envelope
from .errors import EXIT_OK, AppError, ErrorCode, validation_error
from .model import (
    AppModel,
    Line,
    call_refusal,
    command_values,
    read_app_options,
    read_command_options,
    with_the_call,
)
from .text import printable, undecodable_byte

__all__ = ["App", "main", "run"]


class App(Protocol):
    """What the runner asks of an app (app.py's AgenticApp, the toolkit's ToolkitApp)."""

    program: str  # the name its help gives the program

    def model(self) -> AppModel: ...
    def version(self) -> str: ...
    def outcome(self, command: str | None, result: object) -> tuple[Envelope, int]: ...
    def render_human(self, envelope: Envelope, sorted_by: str | None = None) -> str: ...


def run(app: App, argv: Sequence[str] | None = None, render: Callable[[Envelope], str] | None = None) -> int:
    """Run one command line against `app` and print its envelope to stdout (text with --human).

    In-process callers (tests, warm runtimes) keep their own signal handling: a SIGINT or SIGTERM
    held back while a commit or the print was under way reaches them when this returns.
    """
    with interrupts.one_run(ends_the_process=False):
        return _run(app, argv, render)


def main(app: App) -> None:
    """The `if __name__ == "__main__"` of every app (`app.main()`): UTF-8 stdout, then exit with
    the status.

    The process ends with this run, so an interrupt held back for the commit or the print is
    never delivered: the run it was meant to stop is over, and has said so.
    """
    interrupts.end_runs_quietly()
    stdio.occupy_closed_standard_streams()
    if isinstance(sys.stdout, io.TextIOWrapper):
        sys.stdout.reconfigure(encoding="utf-8")
    if hasattr(signal, "SIGXFSZ"):
        # Past a file-size limit, a write must fail with an error we can report, not kill us.
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
    with interrupts.one_run(ends_the_process=True):
        status = _run(app, None, None)
    if _run_by_the_interpreter():
        _end_the_process(status)
    sys.exit(status)


def _run_by_the_interpreter() -> bool:
    """Whether the interpreter itself runs, as the program, the script that called main: the
    script's module-level code (`__main__`'s) is the outermost frame, and it called main itself
    or through the app's `main()` (a console script through its wrapper). Code of any other
    kind on the way (a test runner, runpy, a warm runtime's child, a profiler, a program that
    execs the script) makes it a host, which is given the SystemExit and ends as it will."""
    frame = sys._getframe(2)  # main's caller
    for _ in range(2):
        if frame.f_back is None:
            program = sys.modules.get("__main__")
            return (
                program is not None
                and frame.f_globals is vars(program)
                and frame.f_code.co_name == "<module>"
                and not sys.flags.inspect
            )
        frame = frame.f_back
    return False


def _end_the_process(status: int) -> None:
    """End the process as the interpreter ends it after the script (threads joined, atexit
    handlers run, stdout and stderr flushed), but without its teardown: freeing every object and
    module one by one, and a collection of cycles over all of them, which the operating system
    makes moot when it takes the process back. That was about a tenth of every call's time.
    Should a stream not flush (the answer already did, so stdout never should), the interpreter
    ends the process as ever: its message, and status 120."""
    import atexit

    try:
        _flush_standard_streams()
    except Exception:  # noqa: BLE001 - the interpreter's own exit says it, as it always did
        return
    threading = sys.modules.get("threading")
    if threading is not None:
        threading._shutdown()  # what the interpreter calls at exit
    atexit._run_exitfuncs()
    try:
        _flush_standard_streams()  # what an atexit handler wrote
    except Exception:  # noqa: BLE001
        atexit._clear()  # they ran: the interpreter's exit only says why the flush failed
        return
    os._exit(status)


def _flush_standard_streams() -> None:
    for stream in (sys.stdout, sys.stderr):
        if stream is not None and not stream.closed:
            stream.flush()


def _run(app: App, argv: Sequence[str] | None, render: Callable[[Envelope], str] | None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    model = app.model()
    at = command_at(args)
    # The command every answer names, a refusal's too: none for a word that is no command of the app.
    command = args[at] if at < len(args) and args[at] in model.commands else None
    line = Line()
    with settings.one_run() as run:  # its settings and commits: to tell a failure after a commit
        try:
            # A command may print; only the envelope reaches stdout.
            with redirect_stdout(io.StringIO()):
                envelope, status = _answer(app, model, args, at, line)
        except AppError as error:
            envelope, status = _failure(command, error)
        except (typer.Abort, EOFError):
            envelope, status = _failure(command, AppError(ErrorCode.USAGE_ERROR, "Aborted."))
        except Exception as error:  # noqa: BLE001 - the last line of defence must catch everything
            envelope, status = _internal_error(command, error, committed=run.commits > 0)
    as_text = line.human and not _is_usage_error(envelope)
    try:
        if not as_text:
            text = to_json(envelope)
        elif render is not None:
            text = render(to_plain(envelope))
        else:  # a sorted list shows what it is sorted by
            text = app.render_human(to_plain(envelope), sorted_by=line.sorted_by)
    except Exception as error:  # noqa: BLE001 - whatever went wrong, stdout gets one envelope
        envelope, status = _internal_error(command, error, committed=run.commits > 0)
        text = to_json(envelope)
    interrupts.hold()  # the answer is printed whole or, if interrupted before this, not at all
    stdio.print_answer(text, status)
    return status


def command_at(args: Sequence[str]) -> int:
    """Where the command stands in the line: the app's options are flags, so it is the first word
    that is none (`-` is a word: stdin's name) or the word after `--`; len(args) when none is."""
    for index, word in enumerate(args):
        if word == "--":
            return index + 1
        if word == "-" or not word.startswith("-"):
            return index
    return len(args)


def _answer(app: App, model: AppModel, args: list[str], at: int, line: Line) -> tuple[Envelope, int]:
    for number, arg in enumerate(args, start=1):  # refused before any word is read
        byte = undecodable_byte(arg)
        if byte is not None:
            raise validation_error(
                f"Argument {number} is not UTF-8 text (it holds the byte {byte}).",
                "Give every argument as UTF-8 text.",
            )
    read_app_options(model, args[:at], line)  # every word before the command is one of them
    root = typer.Context(model.group, info_name=app.program, **model.group.context_settings)
    if line.help:
        return help_envelope(None, root.get_help() + "\n"), EXIT_OK
    if line.version:  # the app's option, answered before any command is read
        return version_envelope(app.version()), EXIT_OK
    if at == len(args):  # no arguments, or only the app's options (`--human`)
        names = ", ".join(sorted(model.commands))
        hint = f"Run one of: {names} (add --help to any of them)."
        raise AppError(ErrorCode.USAGE_ERROR, "No command given.", hint)
    name, words = args[at], args[at + 1 :]
    command = model.commands.get(name)
    if command is None:
        raise hints.unknown_command(
            name,
            list(model.commands),
            words,
            lambda near, call: call_refusal(model, model.commands[near], call),
            before=args[:at],
        )
    ctx = typer.Context(command.command, parent=root, info_name=name, **command.command.context_settings)
    reading = read_command_options(model, command, words)
    line.human = line.human or reading.human
    if reading.help:
        return help_envelope(name, ctx.get_help() + "\n"), EXIT_OK
    ctx.params = command_values(command, ctx, reading, words)
    sort = ctx.params.get("sort")  # every app's --sort (sorting.py): --human shows what it reads
    line.sorted_by = None if sort is None else str(sort)
    with root, ctx:
        try:
            result = command.command.invoke(ctx)
        except hints.OtherValue as error:  # its hint's call is written from the words typed
            raise with_the_call(error, command, reading) from None
    return app.outcome(name, result)


def _is_usage_error(envelope: object) -> bool:
    """Whether the answer says the command line could not be read. A command may return any
    document (the toolkit's `run` relays what an app printed), so nothing of its shape is assumed."""
    error = envelope.get("error") if isinstance(envelope, dict) and envelope.get("ok") is False else None
    return isinstance(error, dict) and error.get("code") == ErrorCode.USAGE_ERROR


def _internal_error(command: str | None, error: Exception, *, committed: bool) -> tuple[Envelope, int]:
    stdio.note(f"internal error: {type(error).__name__}: {printable(str(error))}")
    if os.environ.get("AGENTIC_DEBUG") and sys.stderr is not None:
        import traceback

        traceback.print_exc()
    hint = (
        "The change was saved before the error: read it back before trying again. "
        if committed
        else "Nothing was saved by this command. "
    )
    return _failure(
        command,
        AppError(
            ErrorCode.INTERNAL_ERROR,
            f"Unexpected internal error ({type(error).__name__}).",
            hint + "Please report it with the arguments used.",
        ),
    )


def _failure(command: str | None, error: AppError) -> tuple[Envelope, int]:
    return error_envelope(command, error), error.exit_status
