"""The runner: parse the arguments, call one command, print exactly one envelope, return the status.

Every outcome speaks the envelope: a command's result, a typer/click parse error, an AppError,
and any unexpected exception (INTERNAL_ERROR, with no traceback on stdout or stderr).

`--human` is an option of the parser itself — of the app (`--human list`) and of every command
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

import contextlib
import contextvars
import errno
import functools
import io
import os
import re
import signal
import sys
from collections.abc import Callable, Mapping, Sequence
from contextlib import redirect_stdout
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, Generic, TypeVar

import typer

# typer (from 0.29) carries its own click as the private `typer._click` and exports only
# BadParameter of click's errors; the runner must also tell a line that cannot be read (UsageError)
# and a missing argument (MissingParameter, a BadParameter) from a bad value, and no public name
# gives them. So pyproject.toml and each app's PEP 723 block pin typer below 0.30, and
# tests/kit/test_typer_api.py names what moved on a release that moves either.
from typer._click.exceptions import BadOptionUsage, MissingParameter, NoSuchOption, UsageError
from typer.core import TyperCommand, TyperGroup
from typing_extensions import TypeVar as DefaultingTypeVar  # `default=` on Python 3.11

from . import hints, human, interrupts, settings
from .envelope import (
    Envelope,
    Payload,
    error_envelope,
    help_envelope,
    item_payload,
    success_envelope,
    to_json,
    to_plain,
    version_envelope,
)
from .errors import EXIT_OK, AppError, ErrorCode, validation_error
from .store import StateFile, StateStore, VersionedState
from .text import ECHO_MAX_CHARS, printable, shortened, undecodable_byte
from .traits import CommandTraits

if TYPE_CHECKING:
    from pydantic import BaseModel

HUMAN_FLAG = "--human"
VERSION_FLAG = "--version"
HELP_FLAGS = ["--help", "-h"]
_HUMAN = "human"  # the flag's name in the parser, and its key in the context's meta
_VERSION = "version"  # the app's --version flag's name in the parser
_COMMAND = "agentic.command"  # the key in the context's meta of the command being parsed
CommandFunction = TypeVar("CommandFunction", bound=Callable[..., Any])
AppStateT = DefaultingTypeVar("AppStateT", bound=VersionedState, default=VersionedState, covariant=True)
_KIT = __name__.partition(".")[0]  # the kit's own package: its commands (describe) name no app
_MESSAGE_MAX_CHARS = 500  # click's messages quote what was typed; none needs more


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


@functools.cache
def _version_option(help_text: str) -> Any:
    """The app's --version flag, built as --human is; the runner answers it before any command."""
    flag_app = typer.Typer(add_completion=False)

    @flag_app.command()
    def flag(
        version: Annotated[bool, typer.Option(VERSION_FLAG)] = False,
    ) -> None: ...

    option: Any = next(param for param in typer.main.get_command(flag_app).params if param.name == _VERSION)
    option.expose_value = False
    option.help = help_text  # set here: the annotation above is read as a string, in this module's globals
    return option


class _VersionAsked(Exception):
    """--version was given before the command: the answer is the version, whatever follows."""


class _TakesHumanFlag:
    """A click command or group whose parser knows --human, and records it when given as an option;
    and which refuses an option that takes one value given twice (click would keep the last)."""

    params: list[Any]

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.params.append(_human_option())

    def parse_args(self, ctx: Any, args: list[str]) -> list[str]:
        # The parser's own reading of the line, before any option is processed: --help stops the
        # processing, and a --human after it must still count.
        try:
            options, rest, order = self.make_parser(ctx).parse_args(args=list(args))  # type: ignore[attr-defined]
        except UsageError as error:
            error.ctx = error.ctx or ctx  # the parser leaves out whose line it was reading
            raise
        if options.get(_HUMAN):
            ctx.meta[_HUMAN] = True
        if isinstance(self, TyperCommand):
            ctx.meta[_COMMAND] = ctx.info_name  # whose --help this would be
        _refuse_repeated_options(order, args)
        if isinstance(self, TyperGroup) and options.get(_VERSION) and not set(args) & set(HELP_FLAGS):
            raise _VersionAsked
        try:
            parsed: list[str] = super().parse_args(ctx, args)  # type: ignore[misc]
        except UsageError as error:
            # click's plain UsageError after the options were processed: words left over.
            if type(error) is UsageError and isinstance(self, TyperCommand) and rest:
                moved = _options_moved_before_dashes(self, _typed_after_command(ctx.info_name))
                if moved is not None:
                    raise hints.options_after_dashes(ctx.info_name, *moved) from None
                raise _extra_arguments(self, ctx, options, rest) from None
            raise
        if isinstance(self, TyperGroup) and not rest:
            # Only the app's options (`--human`): the same answer as no arguments at all.
            raise _no_command(sorted(getattr(self, "commands", {})))
        return parsed


def _refuse_repeated_options(order: list[Any], args: Sequence[str]) -> None:
    seen: set[int] = set()
    for param in order:
        if param.param_type_name != "option" or param.multiple or param.is_flag or param.count:
            continue
        if id(param) in seen:
            raise hints.repeated_option(max(param.opts, key=len))
        seen.add(id(param))


# The whole command line of this run: the group's parser drops the `--` a command's parser would
# need to tell a value typed after it from an option.
_COMMAND_LINE: contextvars.ContextVar[tuple[str, ...]] = contextvars.ContextVar("command_line", default=())


def _typed_after_command(command: str) -> list[str]:
    """The words typed after the command's name, `--` included."""
    line = list(_COMMAND_LINE.get())
    return line[line.index(command) + 1 :] if command in line else []


def _options_moved_before_dashes(command: Any, args: Sequence[str]) -> tuple[list[str], list[str]] | None:
    """When words after `--` name the command's options (`add -- -x --tag home`): the call with
    them (and each one's value) moved before `--`, and the options so moved; None when none was."""
    if "--" not in args:
        return None
    cut = list(args).index("--")
    takes_value = {
        name: not (param.is_flag or param.count)
        for param in command.params
        if param.param_type_name == "option"
        for name in param.opts
    }
    moved: list[str] = []
    named: list[str] = []
    kept: list[str] = []
    after = list(args[cut + 1 :])
    index = 0
    while index < len(after):
        word = after[index]
        name = word.split("=", 1)[0]
        if name in takes_value:
            named.append(name)
            moved.append(word)
            if takes_value[name] and "=" not in word and index + 1 < len(after):
                index += 1
                moved.append(after[index])
        else:
            kept.append(word)
        index += 1
    if not named:
        return None
    return [*args[:cut], *moved, *(["--", *kept] if kept else [])], named


def _extra_arguments(command: Any, ctx: Any, options: dict[str, Any], rest: list[str]) -> AppError:
    arguments = [
        (_metavar(param), options.get(param.name))
        for param in command.params
        if param.param_type_name == "argument"
    ]
    return hints.extra_arguments(ctx.info_name, arguments, rest)


def _metavar(param: Any) -> str:
    return str(param.metavar or param.name.upper())


class AgenticCommand(_TakesHumanFlag, TyperCommand):
    pass


class AgenticGroup(_TakesHumanFlag, TyperGroup):
    # What --help says of --version; a program that is no package (the toolkit) says its own.
    version_help = "Print the package's version (APP.md's) and exit."

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.params.append(_version_option(self.version_help))

    def resolve_command(self, ctx: Any, args: list[str]) -> Any:
        # A word that is no command: name the commands and the nearest (a word starting with -
        # is an option, left to the parser).
        word = args[0]
        if not word.startswith("-") and self.get_command(ctx, word) is None:
            raise hints.unknown_command(word, list(self.commands))
        return super().resolve_command(ctx, args)


class AgenticApp(typer.Typer, Generic[AppStateT]):
    """A typer app whose commands say whether they change state or need confirmation, and which
    carries what the toolkit reads of it: this is the whole contract between an app and the
    toolkit (`agentapps sync` and the harness read only the entry script's `app`, an AgenticApp).

    - `state`, `state_file`, `state_env`: the model of the app's state, its file's name in the
      state folder, and the environment variable that names a file of its own; `store()` opens
      it for the run;
    - `entity`: the pydantic model of the item every item command prints; schemas/ describes it as
      `<entity_name>.schema.json` (the name is given, never derived from the class name);
    - `item_models`: other models an item command may print instead (a shorter view of the entity,
      as notes' writes print a note without its body);
    - `list_items`: the models list commands print per item, when not the entity itself;
    - `envelopes`: the app's own success shapes beyond an item and a list (closed TypedDicts);
    - `summary`: the fields --human shows of each item of a list, with their formats;
    - `durations`: the fields that hold milliseconds, each with the label --human shows it by (as
      a duration: `8m 23s`);
    - `traits`: each command's function and whether it changes state or needs confirmation.

    Every AgenticApp has `describe`, which reports its commands as data.
    """

    def __init__(
        self,
        help_text: str,
        *,
        state: type[AppStateT] | None = None,
        state_file: str = "",
        state_env: str = "",
        entity: type[BaseModel] | None = None,
        entity_name: str = "",
        list_items: tuple[type[BaseModel], ...] = (),
        envelopes: tuple[Any, ...] = (),
        summary: Mapping[str, str] | None = None,
        item_models: tuple[type[BaseModel], ...] = (),
        durations: Mapping[str, str] | None = None,
    ) -> None:
        super().__init__(
            help=help_text,
            cls=AgenticGroup,
            add_completion=False,
            rich_markup_mode=None,
            pretty_exceptions_enable=False,
            context_settings={"help_option_names": HELP_FLAGS},
        )
        self.state = StateFile(state, state_file, state_env) if state is not None else None
        self._entry_folder: Path | None = None  # the folder of the entry script: app/
        self.entity = entity
        self.entity_name = entity_name
        self.list_items = list_items
        self.envelopes = envelopes
        self.item_models = item_models
        self.summary: Mapping[str, str] = summary or {"id": "{}"}
        self.durations: Mapping[str, str] = durations or {}
        self.traits: dict[str, CommandTraits] = {}
        self.command("describe")(self._describe)

    def command(
        self, name: str | None = None, *, mutates: bool = False, confirmation: bool = False, **kwargs: Any
    ) -> Callable[[CommandFunction], CommandFunction]:
        """Register a command; `mutates` and `confirmation` are what `describe` reports of it."""
        register = super().command(name, cls=kwargs.pop("cls", AgenticCommand), **kwargs)

        def decorator(function: CommandFunction) -> CommandFunction:
            command_name = name or function.__name__.replace("_", "-")
            if self._entry_folder is None and function.__module__.partition(".")[0] != _KIT:
                # Resolved as the script is read, before any command runs in whatever folder.
                self._entry_folder = Path(function.__code__.co_filename).resolve().parent
            self.traits[command_name] = CommandTraits(function, mutates, confirmation)
            return register(function)

        return decorator

    def store(self) -> StateStore[AppStateT]:
        """The app's store for this run: the file its state declaration names (the app's own
        environment variable, else AGENTIC_STATE_DIR, else app/state/), with the run's settings,
        read and checked (a bad one refused) by the first store the run opens."""
        if self.state is None or self._entry_folder is None:
            raise AppError(
                ErrorCode.INTERNAL_ERROR,
                "The app declares no state (new_app's state=), or has no command of its own by "
                "whose file its folder is found.",
                "Nothing was read or changed. Please report it with the arguments used.",
            )
        path = self.state.path(self._entry_folder)
        run = settings.current_run()
        return StateStore(path, self.state.model, run.settings(), run)

    def main(self) -> None:
        """The `if __name__ == "__main__"` of the entry script: run the command line, exit."""
        main(self)

    def prepare(self) -> None:
        """The last line of the entry script's body: see `prepare`."""
        prepare(self)

    def outcome(self, command: str | None, result: object) -> tuple[Envelope, int]:
        """The envelope and exit status of what a command returned: a payload is a success."""
        if isinstance(result, dict):
            return success_envelope(command, result), EXIT_OK
        return _failure(command, AppError(ErrorCode.INTERNAL_ERROR, f"Command {command} returned no result."))

    def render_human(self, envelope: Envelope) -> str:
        """The envelope as --human prints it."""
        return human.render(envelope, self.summary, self.durations)

    def version(self) -> str:
        """The package's version: the `version` of its APP.md frontmatter, read only when asked.
        The package root is the folder above the entry script's (`app/cli.py`), found from the
        file its commands are written in."""
        entry = next(
            (trait.function for trait in self.traits.values() if trait.function.__module__ != __name__),
            None,
        )
        manifest = Path(entry.__code__.co_filename).resolve().parents[1] / "APP.md" if entry else None
        try:
            text = manifest.read_text(encoding="utf-8") if manifest is not None else ""
        except (OSError, UnicodeDecodeError):
            text = ""
        frontmatter = text.split("\n---", 1)[0] if text.startswith("---") else ""
        found = re.search(r"^version:[ \t]*['\"]?([^'\"\s]+)['\"]?[ \t]*$", frontmatter, re.MULTILINE)
        if found is None:
            raise AppError(
                ErrorCode.INTERNAL_ERROR,
                "The package's version cannot be read: its APP.md has no `version`.",
                "Nothing was read or changed. Please report it; the version is in APP.md's frontmatter.",
            )
        return found.group(1)

    def _describe(self) -> Payload:
        """Describe every command (arguments, options, effects) and the error codes, as JSON."""
        from .describe import describe_app  # only this command needs it

        return item_payload(describe_app(typer.main.get_command(self), self.traits))


def new_app(
    help_text: str,
    *,
    state: type[AppStateT],
    state_file: str,
    state_env: str,
    entity: type[BaseModel],
    entity_name: str,
    summary: Mapping[str, str],
    **optional: Any,
) -> AgenticApp[AppStateT]:
    """An app's AgenticApp, with what every app must declare: its state (the model, the file's
    name, the variable naming a file of its own), its entity and name, its --human summary.
    `optional` takes AgenticApp's other options: list_items, item_models, envelopes, durations."""
    return AgenticApp(
        help_text,
        state=state,
        state_file=state_file,
        state_env=state_env,
        entity=entity,
        entity_name=entity_name,
        summary=summary,
        **optional,
    )


def run(
    app: AgenticApp, argv: Sequence[str] | None = None, render: Callable[[Envelope], str] | None = None
) -> int:
    """Run one command line against `app` and print its envelope to stdout (text with --human).

    In-process callers (tests, warm runtimes) keep their own signal handling: a SIGINT or SIGTERM
    held back while a commit or the print was under way reaches them when this returns.
    """
    with interrupts.one_run(ends_the_process=False):
        return _run(app, argv, render or app.render_human)


def main(app: AgenticApp) -> None:
    """The `if __name__ == "__main__"` of every app: UTF-8 stdout, then exit with the status.

    The process ends with this run, so an interrupt held back for the commit or the print is
    never delivered: the run it was meant to stop is over, and has said so.
    """
    interrupts.end_runs_quietly()
    _occupy_closed_standard_streams()
    if isinstance(sys.stdout, io.TextIOWrapper):
        sys.stdout.reconfigure(encoding="utf-8")
    if hasattr(signal, "SIGXFSZ"):
        # Past a file-size limit, a write must fail with an error we can report, not kill us.
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
    with interrupts.one_run(ends_the_process=True):
        status = _run(app, None, app.render_human)
    sys.exit(status)


def _occupy_closed_standard_streams() -> None:
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


@functools.cache
def _click_group(app: AgenticApp) -> Any:
    """The app as a click group, built once: a warm runtime or a test runs it many times."""
    return typer.main.get_command(app)


def prepare(app: AgenticApp) -> None:
    """Build the app as click parses it now, once every command is defined (the last line of a
    script's body): the work a run does first, done where a warm process, which runs the body
    once, holds it for every call. A cold run pays the same, once."""
    _click_group(app)


def _run(app: AgenticApp, argv: Sequence[str] | None, render: Callable[[Envelope], str]) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    _COMMAND_LINE.set(tuple(args))
    group = _click_group(app)
    command_names = set(getattr(group, "commands", {}))
    command = next((arg for arg in args if not arg.startswith("-")), None)
    command = command if command in command_names else None
    with settings.one_run() as run:  # its settings and commits: to tell a failure after a commit
        envelope, status, want_human = _invoke(app, group, args, command, sorted(command_names), run)
    try:
        text = render(to_plain(envelope)) if want_human else to_json(envelope)
    except Exception as error:  # noqa: BLE001 - whatever went wrong, stdout gets one envelope
        envelope, status = _internal_error(command, error, committed=run.commits > 0)
        text = to_json(envelope)
    interrupts.hold()  # the answer is printed whole or, if interrupted before this, not at all
    _print_answer(text, status)
    return status


def _print_answer(text: str, status: int) -> None:
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
        _note(f"The answer could not be written to stdout ({reason}); exit status {status} is the command's.")
    if sys.stdout is None:
        return
    with contextlib.suppress(OSError, ValueError, io.UnsupportedOperation):
        fd = sys.stdout.fileno()
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, fd)
        os.close(devnull)


def _note(line: str) -> None:
    """A line on stderr, if there is one (a process may be started without it)."""
    if sys.stderr is not None:
        with contextlib.suppress(OSError, ValueError):
            print(line, file=sys.stderr, flush=True)


def _no_command(command_names: list[str]) -> AppError:
    return AppError(
        ErrorCode.USAGE_ERROR,
        "No command given.",
        f"Run one of: {', '.join(command_names)} (add --help to any of them).",
    )


def _invoke(
    app: AgenticApp,
    group: Any,
    args: list[str],
    command: str | None,
    command_names: list[str],
    run: settings.Run,
) -> tuple[Envelope, int, bool]:
    """The envelope, the exit status, and whether the answer is printed as text (--human)."""
    if not args:
        return (*_failure(command, _no_command(command_names)), False)
    for number, arg in enumerate(args, start=1):
        byte = undecodable_byte(arg)
        if byte is not None:
            not_text = validation_error(
                f"Argument {number} is not UTF-8 text (it holds the byte {byte}).",
                "Give every argument as UTF-8 text.",
            )
            return (*_failure(command, not_text), False)
    captured = io.StringIO()
    # The context is made here rather than by click's make_context, so that what parsing recorded
    # in its meta (--human, whose --help) is there even when parsing stopped at --help or failed.
    ctx = group.context_class(group, info_name="app/cli.py", **group.context_settings)
    try:
        # Help text is the only thing click prints itself; catch it so it travels in the envelope.
        with redirect_stdout(captured):
            with ctx.scope(cleanup=False):
                group.parse_args(ctx, args)
            with ctx:
                result = group.invoke(ctx)
        envelope, status = app.outcome(command, result)
    except typer.Exit:  # --help: click printed the text and ended the command
        envelope, status = help_envelope(ctx.meta.get(_COMMAND), captured.getvalue()), EXIT_OK
    except _VersionAsked:
        try:
            envelope, status = version_envelope(app.version()), EXIT_OK
        except AppError as error:
            envelope, status = _failure(command, error)
    except AppError as error:
        envelope, status = _failure(command, error)
    except UsageError as error:
        envelope, status = _failure(command, _parse_error(app, error, args))
    except (typer.Abort, EOFError):
        envelope, status = _failure(command, AppError(ErrorCode.USAGE_ERROR, "Aborted."))
    except Exception as error:  # noqa: BLE001 - the last line of defence must catch everything
        envelope, status = _internal_error(command, error, committed=run.commits > 0)
    return envelope, status, bool(ctx.meta.get(_HUMAN)) and not _is_usage_error(envelope)


def _is_usage_error(envelope: object) -> bool:
    """Whether the answer says the command line could not be read. A command may return any
    document (the toolkit's `run` relays what an app printed), so nothing of its shape is assumed."""
    error = envelope.get("error") if isinstance(envelope, dict) and envelope.get("ok") is False else None
    return isinstance(error, dict) and error.get("code") == ErrorCode.USAGE_ERROR


def _internal_error(command: str | None, error: Exception, *, committed: bool) -> tuple[Envelope, int]:
    _note(f"internal error: {type(error).__name__}: {printable(str(error))}")
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


def _parse_error(app: AgenticApp, error: UsageError, args: Sequence[str]) -> AppError:
    """What the parser refused, in the suite's words and with the fix (see hints.py). Each case
    reads what the parser knows of the parameter; only an error of a kind none of them knows
    keeps the parser's own message."""
    ctx = error.ctx
    command = ctx.info_name if ctx is not None and isinstance(ctx.command, TyperCommand) else None
    params = list(ctx.command.params) if ctx is not None else []
    param = getattr(error, "param", None)
    if isinstance(error, MissingParameter) and param is not None and command is not None:
        if param.param_type_name == "option":
            option = max(param.opts, key=len)
            return hints.missing_option(command, option, _metavar(param), getattr(param, "help", None) or "")
        arguments = [_metavar(each) for each in params if each.param_type_name == "argument"]
        return hints.missing_argument(command, _metavar(param), arguments, getattr(param, "help", None) or "")
    if isinstance(error, typer.BadParameter) and param is not None and command is not None:
        option = max(param.opts, key=len) if param.param_type_name == "option" else _metavar(param)
        choices = _choices(app, command, param.name)
        if choices:
            return hints.bad_choice(option, _given_value(option, args), choices, command)
        return hints.bad_value(option, error.message, getattr(error, "hint", None), command)
    if isinstance(error, NoSuchOption):
        given = _given_option(error.option_name, args)
        takes_argument = any(param.param_type_name == "argument" for param in params)
        options = _option_names(params)
        return hints.unknown_option(
            command,
            given,
            options,
            takes_argument and command is not None,
            app_options=[VERSION_FLAG],
            elsewhere=_options_elsewhere(ctx, command),
            typed_before=_typed_between(command, given, args),
            typed_after=_typed_after(command, given, args),
        )
    if isinstance(error, BadOptionUsage):
        taken: Any = next(
            (param for param in params if error.option_name in getattr(param, "opts", ())), None
        )
        if taken is not None and taken.is_flag:
            return hints.flag_with_value(error.option_name)
        if taken is not None and command is not None:
            help_text = taken.help or ""
            return hints.missing_value(
                error.option_name, _metavar(taken), help_text, _choices(app, command, taken.name)
            )
    hint = "Run the command with --help to see its arguments and options."
    return AppError(ErrorCode.USAGE_ERROR, _shorten_echoes(error.format_message(), args), hint)


def _typed_between(command: str | None, given: str, args: Sequence[str]) -> list[str]:
    """The words given after the command's name and before `given` (none before a command)."""
    after = list(args[args.index(command) + 1 :]) if command in args else []
    return after[: after.index(given)] if given in after else []


def _typed_after(command: str | None, given: str, args: Sequence[str]) -> list[str]:
    """The words given after `given`, the option the parser refused (none before a command)."""
    after = list(args[args.index(command) + 1 :]) if command in args else []
    return after[after.index(given) + 1 :] if given in after else []


def _option_names(params: Sequence[Any]) -> list[str]:
    """Each option of a command by its longest name (`--status`, not `-s`)."""
    return [max(param.opts, key=len) for param in params if param.param_type_name == "option"]


def _options_elsewhere(ctx: Any, command: str | None) -> dict[str, list[str]]:
    """The options of the app's other commands, by command (none when no command was read)."""
    group = ctx.parent.command if command is not None and ctx.parent is not None else None
    commands = getattr(group, "commands", {})
    return {name: _option_names(each.params) for name, each in commands.items() if name != command}


def _choices(app: AgenticApp, command: str, name: str | None) -> list[str] | None:
    """The values a parameter allows (an enum's), as `describe` reports them."""
    from .describe import parameter_choices  # only a refused value needs it

    trait = app.traits.get(command)
    return parameter_choices(trait.function, name) if trait is not None and name else None


def _given_value(option: str, args: Sequence[str]) -> str:
    """The value given to an option (once: a second time is refused before values are read)."""
    for index, arg in enumerate(args):
        if arg == "--":
            break
        if arg == option and index + 1 < len(args):
            return args[index + 1]
        if arg.startswith(option + "="):
            return arg[len(option) + 1 :]
    return ""


def _given_option(name: str, args: Sequence[str]) -> str:
    """The whole argument the parser read an unknown option from: `-1 bug` for its `-1`."""
    return next((arg for arg in args if arg == name or arg.startswith(name)), name)


def _shorten_echoes(message: str, args: Sequence[str]) -> str:
    """click's message with every long argument it quotes cut short, as the kit's own messages do,
    and at most a few lines long. Control and layout characters in the words it quotes are shown as
    escapes: whether --human was meant is unknown when the line cannot be read, and a terminal may
    show this JSON as it is."""
    for arg in sorted({arg for arg in args if len(arg) > ECHO_MAX_CHARS}, key=len, reverse=True):
        message = message.replace(arg, shortened(arg))
    return shortened(human.safe(message), _MESSAGE_MAX_CHARS)


def _failure(command: str | None, error: AppError) -> tuple[Envelope, int]:
    return error_envelope(command, error), error.exit_status
