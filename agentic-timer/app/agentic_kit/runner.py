"""The runner: parse the arguments, call one command, print exactly one envelope, return the status.

Every outcome speaks the envelope: a command's result, a typer/click parse error, an AppError,
and any unexpected exception (INTERNAL_ERROR, with no traceback on stdout or stderr).
"""

from __future__ import annotations

import io
import os
import signal
import sys
from collections.abc import Callable, Sequence
from contextlib import redirect_stdout
from typing import Any, TypeVar

import typer
from typer._click import exceptions as click_exceptions

from . import human
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
from .errors import EXIT_OK, AppError, ErrorCode

HUMAN_FLAG = "--human"
CommandFunction = TypeVar("CommandFunction", bound=Callable[..., Any])


class AgenticApp(typer.Typer):
    """A typer app whose commands say whether they change state or need confirmation.

    Every AgenticApp has `describe`, which reports its commands as data.
    """

    def __init__(self, help_text: str) -> None:
        super().__init__(
            help=help_text,
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
        register = super().command(name, **kwargs)

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
    """Run one command line against `app` and print its envelope to stdout (text with --human)."""
    args = list(sys.argv[1:] if argv is None else argv)
    want_human = _take_human_flag(args)
    group = typer.main.get_command(app)
    command_names = set(getattr(group, "commands", {}))
    command = next((arg for arg in args if not arg.startswith("-")), None)
    command = command if command in command_names else None
    envelope, status = _invoke(group, args, command, sorted(command_names))
    sys.stdout.write((render(to_plain(envelope)) if want_human else to_json(envelope)) + "\n")
    sys.stdout.flush()
    return status


def main(app: typer.Typer, render: Callable[[Envelope], str] = human.render) -> None:
    """The `if __name__ == "__main__"` of every app: UTF-8 stdout, then exit with the status."""
    if isinstance(sys.stdout, io.TextIOWrapper):
        sys.stdout.reconfigure(encoding="utf-8")
    if hasattr(signal, "SIGXFSZ"):
        # Past a file-size limit, a write must fail with an error we can report, not kill us.
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
    sys.exit(run(app, render=render))


def _take_human_flag(args: list[str]) -> bool:
    """Remove --human wherever it stands before a `--`, and say whether it was there."""
    end = args.index("--") if "--" in args else len(args)
    found = HUMAN_FLAG in args[:end]
    args[:end] = [arg for arg in args[:end] if arg != HUMAN_FLAG]
    return found


def _invoke(
    group: Any, args: list[str], command: str | None, command_names: list[str]
) -> tuple[Envelope, int]:
    if not args:
        return _failure(
            command,
            AppError(
                ErrorCode.USAGE_ERROR,
                "No command given.",
                f"Run one of: {', '.join(command_names)} (add --help to any of them).",
            ),
        )
    captured = io.StringIO()
    try:
        # Help text is the only thing click prints itself; catch it so it travels in the envelope.
        with redirect_stdout(captured):
            result = group.main(args=args, prog_name="app/cli.py", standalone_mode=False)
    except AppError as error:
        return _failure(command, error)
    except click_exceptions.MissingParameter as error:
        return _failure(command, _usage_error(error))
    except click_exceptions.BadParameter as error:
        # A value of the wrong type or outside its choices: the option was given, its value is bad.
        return _failure(command, AppError(ErrorCode.VALIDATION_ERROR, error.format_message()))
    except click_exceptions.UsageError as error:
        return _failure(command, _usage_error(error))
    except (typer.Abort, EOFError, KeyboardInterrupt):
        return _failure(command, AppError(ErrorCode.USAGE_ERROR, "Aborted."))
    except Exception as error:  # noqa: BLE001 - the last line of defence must catch everything
        print(f"internal error: {type(error).__name__}: {error}", file=sys.stderr)
        if os.environ.get("AGENTIC_DEBUG"):
            import traceback

            traceback.print_exc()
        return _failure(
            command,
            AppError(
                ErrorCode.INTERNAL_ERROR,
                f"Unexpected internal error ({type(error).__name__}).",
                "Nothing was saved by this command. Please report it with the arguments used.",
            ),
        )
    if isinstance(result, Passthrough):
        return result.envelope, result.exit_status
    if isinstance(result, dict):
        return success_envelope(command, result), EXIT_OK
    if captured.getvalue():
        # No payload but printed text: click answered --help itself.
        return help_envelope(command, captured.getvalue()), EXIT_OK
    return _failure(command, AppError(ErrorCode.INTERNAL_ERROR, f"Command {command} returned no result."))


def _usage_error(error: click_exceptions.UsageError) -> AppError:
    hint = "Run the command with --help to see its arguments and options."
    return AppError(ErrorCode.USAGE_ERROR, error.format_message(), hint)


def _failure(command: str | None, error: AppError) -> tuple[Envelope, int]:
    return error_envelope(command, error), error.exit_status
