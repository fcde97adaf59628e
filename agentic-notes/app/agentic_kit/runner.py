"""The runner: parse the arguments, call one command, print exactly one envelope, return the status.

Every outcome speaks the envelope: a command's result, a typer/click parse error, an AppError,
and any unexpected exception (INTERNAL_ERROR, with no traceback on stdout or stderr).

`--human` is an option of the parser itself — of the app (`--human list`) and of every command
(`list --human`) — never picked out of the raw argument list: a value that reads `--human`
(`add --body --human`) stays a value. When the command line cannot be read at all (bytes that
are not UTF-8, an unknown option, an option without its value), whether --human was meant is
unknown, and the error comes as JSON.
"""

from __future__ import annotations

import functools
import io
import os
import signal
import sys
from collections.abc import Callable, Sequence
from contextlib import redirect_stdout
from typing import Annotated, Any, TypeVar

import typer
from typer._click import exceptions as click_exceptions
from typer.core import TyperCommand, TyperGroup

from . import human, interrupts
from .envelope import (
    Envelope,
    Passthrough,
    Payload,
    error_envelope,
    help_envelope,
    item_payload,
    success_envelope,
    to_json,
    to_plain,
)
from .errors import EXIT_OK, AppError, ErrorCode, validation_error
from .store import StateStore
from .text import printable, undecodable_byte

HUMAN_FLAG = "--human"
_HUMAN = "human"  # the flag's name in the parser, and its key in the context's meta
CommandFunction = TypeVar("CommandFunction", bound=Callable[..., Any])


@functools.cache
def _human_option() -> Any:
    """The --human flag, built by typer like any option (from a throwaway command, once) and kept
    out of the command's arguments: it changes how the envelope is printed, nothing else."""
    flag_app = typer.Typer(add_completion=False)

    @flag_app.command()
    def flag(
        human: Annotated[bool, typer.Option(HUMAN_FLAG, help="Print readable text instead of JSON.")] = False,
    ) -> None: ...

    option = next(param for param in typer.main.get_command(flag_app).params if param.name == _HUMAN)
    option.expose_value = False
    return option


class _TakesHumanFlag:
    """A click command or group whose parser knows --human, and records it when given as an option."""

    params: list[Any]

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.params.append(_human_option())

    def parse_args(self, ctx: Any, args: list[str]) -> list[str]:
        # The parser's own reading of the line, before any option is processed: --help stops the
        # processing, and a --human after it must still count.
        options, _, _ = self.make_parser(ctx).parse_args(args=list(args))  # type: ignore[attr-defined]
        if options.get(_HUMAN):
            ctx.meta[_HUMAN] = True
        parsed: list[str] = super().parse_args(ctx, args)  # type: ignore[misc]
        return parsed


class AgenticCommand(_TakesHumanFlag, TyperCommand):
    pass


class AgenticGroup(_TakesHumanFlag, TyperGroup):
    pass


class AgenticApp(typer.Typer):
    """A typer app whose commands say whether they change state or need confirmation.

    Every AgenticApp has `describe`, which reports its commands as data.
    """

    def __init__(self, help_text: str) -> None:
        super().__init__(
            help=help_text,
            cls=AgenticGroup,
            add_completion=False,
            rich_markup_mode=None,
            pretty_exceptions_enable=False,
            context_settings={"help_option_names": ["--help"]},
        )
        self.traits: dict[str, tuple[bool, bool]] = {}
        self.command("describe")(self._describe)

    def command(
        self, name: str | None = None, *, mutates: bool = False, confirmation: bool = False, **kwargs: Any
    ) -> Callable[[CommandFunction], CommandFunction]:
        """Register a command; `mutates` and `confirmation` are what `describe` reports of it."""
        register = super().command(name, cls=kwargs.pop("cls", AgenticCommand), **kwargs)

        def decorator(function: CommandFunction) -> CommandFunction:
            self.traits[name or function.__name__.replace("_", "-")] = (mutates, confirmation)
            return register(function)

        return decorator

    def _describe(self) -> Payload:
        """Describe every command (arguments, options, effects) and the error codes, as JSON."""
        from .describe import describe_app  # only this command needs it

        return item_payload(describe_app(typer.main.get_command(self), self.traits))


def new_app(help_text: str) -> AgenticApp:
    """A typer app set up for the envelope: no rich panels, no completion, no pretty tracebacks."""
    return AgenticApp(help_text)


def run(
    app: typer.Typer, argv: Sequence[str] | None = None, render: Callable[[Envelope], str] = human.render
) -> int:
    """Run one command line against `app` and print its envelope to stdout (text with --human).

    In-process callers (tests, warm runtimes) keep their own signal handling: a SIGINT or SIGTERM
    held back while a commit or the print was under way reaches them when this returns.
    """
    with interrupts.one_run(ends_the_process=False):
        return _run(app, argv, render)


def main(app: typer.Typer, render: Callable[[Envelope], str] = human.render) -> None:
    """The `if __name__ == "__main__"` of every app: UTF-8 stdout, then exit with the status.

    The process ends with this run, so an interrupt held back for the commit or the print is
    never delivered: the run it was meant to stop is over, and has said so.
    """
    interrupts.end_runs_quietly()
    if isinstance(sys.stdout, io.TextIOWrapper):
        sys.stdout.reconfigure(encoding="utf-8")
    if hasattr(signal, "SIGXFSZ"):
        # Past a file-size limit, a write must fail with an error we can report, not kill us.
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
    with interrupts.one_run(ends_the_process=True):
        status = _run(app, None, render)
    sys.exit(status)


@functools.cache
def _click_group(app: typer.Typer) -> Any:
    """The app as a click group, built once: a warm runtime or a test runs it many times."""
    return typer.main.get_command(app)


def _run(app: typer.Typer, argv: Sequence[str] | None, render: Callable[[Envelope], str]) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    group = _click_group(app)
    command_names = set(getattr(group, "commands", {}))
    command = next((arg for arg in args if not arg.startswith("-")), None)
    command = command if command in command_names else None
    commits_before = StateStore.commits  # to tell a failure after a commit from one before it
    envelope, status, want_human = _invoke(group, args, command, sorted(command_names), commits_before)
    try:
        text = render(to_plain(envelope)) if want_human else to_json(envelope)
    except Exception as error:  # noqa: BLE001 - whatever went wrong, stdout gets one envelope
        envelope, status = _internal_error(command, error, committed=StateStore.commits != commits_before)
        text = to_json(envelope)
    interrupts.hold()  # the answer is printed whole or, if interrupted before this, not at all
    try:
        sys.stdout.write(text + "\n")
        sys.stdout.flush()
    except BrokenPipeError:
        _stdout_gone()
    return status


def _stdout_gone() -> None:
    """The reader closed stdout before the answer: nothing more can be said, and the exit status
    still tells the outcome. stdout now points at /dev/null, so the interpreter's last flush at
    exit cannot fail again with a traceback."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
    except (OSError, ValueError, io.UnsupportedOperation):
        pass  # an in-process stdout without a descriptor: nothing is flushed at exit


def _invoke(
    group: Any, args: list[str], command: str | None, command_names: list[str], commits_before: int
) -> tuple[Envelope, int, bool]:
    """The envelope, the exit status, and whether --human was given as an option."""
    if not args:
        no_command = AppError(
            ErrorCode.USAGE_ERROR,
            "No command given.",
            f"Run one of: {', '.join(command_names)} (add --help to any of them).",
        )
        return (*_failure(command, no_command), False)
    for number, arg in enumerate(args, start=1):
        byte = undecodable_byte(arg)
        if byte is not None:
            not_text = validation_error(
                f"Argument {number} is not UTF-8 text (it holds the byte {byte}).",
                "Give every argument as UTF-8 text.",
            )
            return (*_failure(command, not_text), False)
    captured = io.StringIO()
    ctx = None
    try:
        # Help text is the only thing click prints itself; catch it so it travels in the envelope.
        with redirect_stdout(captured):
            ctx = group.make_context("app/cli.py", args)
            with ctx:
                result = group.invoke(ctx)
        envelope, status = _outcome(command, result)
    except typer.Exit:  # --help: click printed the text and ended the command
        envelope, status = help_envelope(command, captured.getvalue()), EXIT_OK
    except AppError as error:
        envelope, status = _failure(command, error)
    except click_exceptions.MissingParameter as error:
        envelope, status = _failure(command, _usage_error(error))
    except click_exceptions.BadParameter as error:
        # A value of the wrong type or outside its choices: the option was given, its value is bad.
        message = human.safe(error.format_message())
        envelope, status = _failure(command, AppError(ErrorCode.VALIDATION_ERROR, message))
    except click_exceptions.UsageError as error:
        envelope, status = _failure(command, _usage_error(error))
    except (typer.Abort, EOFError):
        envelope, status = _failure(command, AppError(ErrorCode.USAGE_ERROR, "Aborted."))
    except Exception as error:  # noqa: BLE001 - the last line of defence must catch everything
        envelope, status = _internal_error(command, error, committed=StateStore.commits != commits_before)
    return envelope, status, bool(ctx is not None and ctx.meta.get(_HUMAN))


def _outcome(command: str | None, result: object) -> tuple[Envelope, int]:
    if isinstance(result, Passthrough):
        return result.envelope, result.exit_status
    if isinstance(result, dict):
        return success_envelope(command, result), EXIT_OK
    return _failure(command, AppError(ErrorCode.INTERNAL_ERROR, f"Command {command} returned no result."))


def _internal_error(command: str | None, error: Exception, *, committed: bool) -> tuple[Envelope, int]:
    print(f"internal error: {type(error).__name__}: {printable(str(error))}", file=sys.stderr)
    if os.environ.get("AGENTIC_DEBUG"):
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


def _usage_error(error: click_exceptions.UsageError) -> AppError:
    """The parser's message quotes the words it could not read: control and layout characters in
    them are shown as escapes, since whether --human was meant is unknown when the line cannot be
    read, and a terminal may show this JSON as it is."""
    hint = "Run the command with --help to see its arguments and options."
    return AppError(ErrorCode.USAGE_ERROR, human.safe(error.format_message()), hint)


def _failure(command: str | None, error: AppError) -> tuple[Envelope, int]:
    return error_envelope(command, error), error.exit_status
