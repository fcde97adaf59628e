"""The app an author builds: `new_app(...)` gives an AgenticApp, a typer app whose commands
(`@app.command(mutates=..., confirmation=...)`) each take `--human`, which carries the app's
state declaration, its models and its --human summary, and which builds the one model of its
commands (model.py) that describe, the hints, --human, --version and the MCP schemas all read.

Running it is the runner's job (runner.py): `app.main()` hands the process's command line to it.
"""

from __future__ import annotations

import functools
import inspect
import re
import sys
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, Generic, TypedDict, TypeVar, Unpack

import typer
from typing_extensions import TypeVar as DefaultingTypeVar  # `default=` on Python 3.11

from . import human, runner, settings
from .envelope import Envelope, Payload, error_envelope, item_payload, success_envelope
from .errors import EXIT_OK, AppError, ErrorCode
from .model import (
    HELP_FLAGS,
    HUMAN_FLAG,
    VERSION_FLAG,
    AppModel,
    CommandTraits,
    app_model,
    build_conversions,
)
from .store import WARM_MODULE, StateFile, StateStore, VersionedState

if TYPE_CHECKING:
    from pydantic import BaseModel

__all__ = ["AgenticApp", "AppOptions", "new_app"]

CommandFunction = TypeVar("CommandFunction", bound=Callable[..., Any])
AppStateT = DefaultingTypeVar("AppStateT", bound=VersionedState, default=VersionedState, covariant=True)
_KIT = __name__.partition(".")[0]  # the kit's own package: its commands (describe) name no app
_HUMAN_HELP = "Print readable text instead of JSON."


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

    program = "app/cli.py"  # the name its help gives the program
    # What --help says of --version; a program that is no package (the toolkit) says its own.
    version_help = "Print the package's version (APP.md's) and exit."

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
            add_completion=False,
            rich_markup_mode=None,
            pretty_exceptions_enable=False,
            context_settings={"help_option_names": list(HELP_FLAGS)},
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
        self._model: tuple[int, AppModel] | None = None  # see model()
        # The app's own options, before any command: typer lists them in the app's --help, and
        # the runner reads them (it answers --version before any command).
        app_options: Any = lambda human=False, version=False: None  # noqa: E731 - a signature to hold
        app_options.__signature__ = inspect.Signature(
            [_flag("human", HUMAN_FLAG, _HUMAN_HELP), _flag("version", VERSION_FLAG, self.version_help)]
        )
        self.callback()(app_options)
        self.command("describe")(self._describe)

    def command(
        self, name: str | None = None, *, mutates: bool = False, confirmation: bool = False, **kwargs: Any
    ) -> Callable[[CommandFunction], CommandFunction]:
        """Register a command; `mutates` and `confirmation` are what `describe` reports of it."""
        register = super().command(name, **kwargs)

        def decorator(function: CommandFunction) -> CommandFunction:
            command_name = name or function.__name__.replace("_", "-")
            if self._entry_folder is None and function.__module__.partition(".")[0] != _KIT:
                # Resolved as the script is read, before any command runs in whatever folder.
                self._entry_folder = Path(function.__code__.co_filename).resolve().parent
            self.traits[command_name] = CommandTraits(function, mutates, confirmation)
            register(_with_human_flag(function))
            return function

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
        runner.main(self)

    def model(self) -> AppModel:
        """The app's model, built once per set of commands: a warm runtime or a test runs it many
        times, and a command registered later is seen (the key is how many there are)."""
        if self._model is None or self._model[0] != len(self.traits):
            self._model = (len(self.traits), app_model(typer.main.get_command(self), self.traits))
        return self._model[1]

    def prepare(self) -> None:
        """Build the model now, once every command is defined (the last line of a script's body):
        the work a run does first, done where a warm process, which runs the body once, holds it
        for every call. A cold run pays the same, once. A warm process (the one that has
        `agentapps_warm`) also builds what converts every command's values, which a cold run
        builds for its one command only."""
        model = self.model()
        if WARM_MODULE in sys.modules:
            build_conversions(model)

    def outcome(self, command: str | None, result: object) -> tuple[Envelope, int]:
        """The envelope and exit status of what a command returned: a payload is a success."""
        if isinstance(result, dict):
            return success_envelope(command, result), EXIT_OK
        error = AppError(ErrorCode.INTERNAL_ERROR, f"Command {command} returned no result.")
        return error_envelope(command, error), error.exit_status

    def render_human(self, envelope: Envelope, sorted_by: str | None = None) -> str:
        """The envelope as --human prints it; a list sorted by a key shows what the key reads
        (`--sort updated`: each item's updatedAt), so that it reads as sorted."""
        from .sorting import SHOWN_FOR_KEY  # only --human asks

        field, shown = SHOWN_FOR_KEY.get(sorted_by or "", ("", ""))
        summary = self.summary if not field or field in self.summary else {**self.summary, field: shown}
        return human.render(envelope, summary, self.durations)

    def version(self) -> str:
        """The package's version: the `version` of its APP.md frontmatter, read only when asked.
        The package root is the folder above the entry script's (`app/cli.py`)."""
        folder = self._entry_folder
        try:
            text = (folder.parent / "APP.md").read_text(encoding="utf-8") if folder else ""
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

        return item_payload(describe_app(self.model().group, self.traits))


def _flag(name: str, option: str, help_text: str) -> inspect.Parameter:
    return inspect.Parameter(
        name,
        inspect.Parameter.KEYWORD_ONLY,
        default=False,
        annotation=Annotated[bool, typer.Option(option, help=help_text)],
    )


def _with_human_flag(function: Callable[..., Any]) -> Callable[..., Any]:
    """The command as typer registers it: its own parameters and --human, which every command
    takes (`list --human`) and which changes how the envelope is printed, nothing else."""

    @functools.wraps(function)
    def command(*args: Any, human: bool = False, **kwargs: Any) -> Any:
        return function(*args, **kwargs)

    signature = inspect.signature(function, eval_str=True)
    command.__signature__ = signature.replace(  # type: ignore[attr-defined]
        parameters=[*signature.parameters.values(), _flag("human", HUMAN_FLAG, _HUMAN_HELP)]
    )
    return command


class AppOptions(TypedDict, total=False):
    """What an app may declare besides what new_app requires (AgenticApp's options of that name)."""

    list_items: tuple[type[BaseModel], ...]
    item_models: tuple[type[BaseModel], ...]
    envelopes: tuple[Any, ...]
    durations: Mapping[str, str]


def new_app(
    help_text: str,
    *,
    state: type[AppStateT],
    state_file: str,
    state_env: str,
    entity: type[BaseModel],
    entity_name: str,
    summary: Mapping[str, str],
    **optional: Unpack[AppOptions],
) -> AgenticApp[AppStateT]:
    """An app's AgenticApp, with what every app must declare: its state (the model, the file's
    name, the variable naming a file of its own), its entity and name, its --human summary; and
    any of AppOptions (a name not among them is a type error, and a TypeError naming it)."""
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
