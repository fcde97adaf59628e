"""One model of each command of an app, built once from its typed signatures: typer reads each
signature into a command, and this reads that command's parameters (names, flags, metavars,
defaults, help) and the signature's annotations (types, choices, a `parser=`). `describe`, the
runner's reading of a command line and the hints it gives all read this model; the MCP input
schemas are made from `describe`.
"""

from __future__ import annotations

import contextlib
import difflib
import typing
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from enum import Enum
from types import UnionType
from typing import Any, Literal, NamedTuple, TypeVar, Union, get_args, get_origin

import typer

from . import hints
from .errors import AppError, ErrorCode

HUMAN_FLAG = "--human"
VERSION_FLAG = "--version"
HELP_FLAGS = ("--help", "-h")
_NEARLY = 0.8  # how close a misspelt option's name must be to an argument's (difflib's ratio)


F = TypeVar("F", bound=Callable[..., Any])


class CommandTraits(NamedTuple):
    """What an app records of each command it registers, for `describe`."""

    function: Callable[..., Any]
    mutates: bool
    confirmation: bool


def exclusive(*groups: tuple[str, ...]) -> Callable[[F], F]:
    """Mark a command's options that cannot go together, at most one of each group (timer
    `start`: --duration, --due-at, --stopwatch): no hint suggests a call holding two of one group.
    The command still refuses them itself, with its own words."""

    def mark(function: F) -> F:
        function.exclusive_options = groups  # type: ignore[attr-defined]
        return function

    return mark


def option_in_words(option: str, reads: Callable[[str], str | None]) -> Callable[[F], F]:
    """Mark an option whose value an agent may type among the words of the command's last
    argument (timer `start 10m tea time`: `10m` is --duration's). `reads` gives the option's value
    words stand for (`10m`, `90 min`), or None. The hint for words left over then moves the
    longest run of first words that reads (else of last words) to the option, when neither it
    nor an option it cannot go with was given: quoting every word into the argument would store
    another meaning (a stopwatch labelled "10m tea time")."""

    def mark(function: F) -> F:
        function.options_in_words = ((option, reads),)  # type: ignore[attr-defined]
        return function

    return mark


@dataclass(frozen=True)
class Parameter:
    """An argument or an option of a command."""

    name: str  # the function's parameter name
    names: tuple[str, ...]  # an option's names (`--tag`); none for an argument
    metavar: str  # TAG, ID...: how a hint writes its value
    takes_value: bool  # False for a flag
    repeatable: bool  # an option given many times, an argument taking many words
    required: bool
    help: str
    type: str  # describe's type: string, integer, number, boolean, path, flag
    choices: list[str] | None
    default: Any  # as describe reports it
    param: Any  # typer's own parameter, which converts a value as typer does

    @property
    def option(self) -> str:
        """An option by its longest name (`--status`, not `-s`)."""
        return max(self.names, key=len)


@dataclass(frozen=True)
class Command:
    name: str
    summary: str
    mutates: bool
    confirmation: bool
    arguments: tuple[Parameter, ...]
    options: tuple[Parameter, ...]  # --human last, as every command has it
    command: Any  # typer's command: its help text, its call
    exclusive: tuple[tuple[str, ...], ...] = ()  # options that cannot go together (`exclusive`)
    # Options whose value may be typed as a word of the last argument (`option_in_words`).
    options_in_words: tuple[tuple[str, Callable[[str], str | None]], ...] = ()

    def named(self, option: str) -> Parameter | None:
        return next((each for each in self.options if option in each.names), None)


@dataclass(frozen=True)
class AppModel:
    group: Any  # the app as typer makes it: its help text
    options: tuple[Parameter, ...]  # the app's own, before the command (--human, --version)
    commands: dict[str, Command]


def app_model(group: Any, traits: Mapping[str, CommandTraits]) -> AppModel:
    """`group` is the app's command as typer makes it; `traits` what the app recorded of each."""
    options = tuple(_parameter(param, bool) for param in group.params)
    return AppModel(group, options, command_models(group, traits))


def build_conversions(model: AppModel) -> None:
    """Have typer build now what converts each value of every command: it builds a parameter's on
    its first value, in each process. A warm runtime's process calls this once, so that every call's
    child inherits them instead of building its command's again (a few ms a call). Each parameter
    is given no value (None), which builds it and reads none: no parser, file or check runs on it.
    A parameter with a callback of its own is left to its first call."""
    contexts = [(typer.Context(model.group), model.options)]
    contexts += [
        (typer.Context(command.command, info_name=name), (*command.arguments, *command.options))
        for name, command in model.commands.items()
    ]
    for ctx, parameters in contexts:
        for each in parameters:
            if each.param.callback is None:
                with contextlib.suppress(Exception):  # a required one is missing: built all the same
                    each.param.process_value(ctx, None)


def command_models(group: Any, traits: Mapping[str, CommandTraits]) -> dict[str, Command]:
    """Every command of the app, in the order it was registered."""
    models: dict[str, Command] = {}
    for name, command in group.commands.items():
        trait = traits[name]
        annotations = typing.get_type_hints(trait.function, include_extras=True)
        for param in command.params:
            # typer would show a repeatable option's value as its type (`--tag <list[str]>`).
            repeatable = param.param_type_name == "option" and param.multiple and not param.is_flag
            if repeatable and param.metavar is None and _choices(annotations.get(param.name, str)) is None:
                param.metavar = param.name.upper()
        parameters = [_parameter(param, annotations.get(param.name, str)) for param in command.params]
        models[name] = Command(
            name=name,
            # The docstring's first paragraph, one line: its first line alone may stop mid-sentence.
            summary=" ".join((command.help or "").strip().split("\n\n", 1)[0].split()),
            mutates=trait.mutates,
            confirmation=trait.confirmation,
            arguments=tuple(each for each in parameters if not each.names),
            options=tuple(each for each in parameters if each.names),
            command=command,
            exclusive=getattr(trait.function, "exclusive_options", ()),
            options_in_words=getattr(trait.function, "options_in_words", ()),
        )
    return models


def _parameter(param: Any, annotation: Any) -> Parameter:
    is_option = param.param_type_name == "option"
    flag = is_option and bool(param.is_flag)
    return Parameter(
        name=param.name,
        names=tuple(param.opts) if is_option else (),
        metavar=str(param.metavar or param.name.upper()),
        takes_value=not flag,
        repeatable=bool(param.multiple) if is_option else param.nargs == -1,
        required=bool(param.required),
        help=getattr(param, "help", None) or "",
        type="flag" if flag else _type_name(annotation),
        choices=_choices(annotation),
        default=_default(param.default),
        param=param,
    )


def _base_type(annotation: Any) -> Any:
    """The parameter's Python type without Annotated, Optional or list around it."""
    while True:
        origin = get_origin(annotation)
        if origin is typing.Annotated:
            annotation = get_args(annotation)[0]
        elif origin in (list, Union, UnionType):
            annotation = next(arg for arg in get_args(annotation) if arg is not type(None))
        else:
            return annotation


def _parser(annotation: Any) -> Any:
    """The typer `parser=` given in the annotation's metadata, if any."""
    metadata = get_args(annotation)[1:] if get_origin(annotation) is typing.Annotated else ()
    return next((getattr(info, "parser", None) for info in metadata if hasattr(info, "parser")), None)


def _type_name(annotation: Any) -> str:
    from .inputs import file_path

    if _parser(annotation) is file_path:
        return "path"
    base = _base_type(annotation)
    if _choices(annotation) is not None:
        return "string"
    return {int: "integer", float: "number", bool: "boolean"}.get(base, "string")


def _choices(annotation: Any) -> list[str] | None:
    """The values a parameter allows: a Literal's, or an Enum's."""
    base = _base_type(annotation)
    if get_origin(base) is Literal:
        return [str(value) for value in get_args(base)]
    if isinstance(base, type) and issubclass(base, Enum):
        return [str(member.value) for member in base]
    return None


def _default(default: Any) -> Any:
    if isinstance(default, Enum):
        return default.value
    if isinstance(default, list | tuple):
        return list(default) or None
    return default if isinstance(default, str | int | float | bool) else None


class Typed(NamedTuple):
    word: str
    param: Parameter | None  # the option the word names, or whose value it is
    value: str | None = None  # the option's value the word holds (`--tag=x`, or the word after `--tag`)


@dataclass
class Line:
    """What a command line gives, read against a command's (or the app's) options."""

    human: bool = False  # --human, the app's or the command's
    help: bool = False
    version: bool = False
    order: list[Parameter] = field(default_factory=list)  # each option as given, in order
    values: dict[str, list[str]] = field(default_factory=dict)  # each option's values
    words: list[str] = field(default_factory=list)  # the words that are no options
    dashes: int | None = None  # how many of those came before `--`, when it was given
    sorted_by: str | None = None  # the command's --sort, once its values are read
    # Every word as typed, with the option it names or holds the value of (None: an argument's
    # word, or `--`): the record a hint rebuilds the call from, without reading the words again.
    record: list[Typed] = field(default_factory=list)

    @property
    def options_typed(self) -> list[str]:
        """The options as typed, each with its value."""
        return [each.word for each in self.record if each.param is not None]

    def given(self, param: Parameter, value: str | None) -> None:
        self.order.append(param)
        if param.name == "help":
            self.help = True
        elif param.option == HUMAN_FLAG:
            self.human = True
        elif param.option == VERSION_FLAG:
            self.version = True
        if value is not None:
            self.values.setdefault(param.name, []).append(value)


def read_app_options(model: AppModel, args: Sequence[str], line: Line) -> list[str]:
    """Read the app's options (before the command) into `line`; the words from the command on."""
    return _read(args, [*model.options, _HELP], line, interspersed=False, unknown=_unknown_app_option)


def read_command_options(model: AppModel, command: Command, words: Sequence[str]) -> Line:
    """Read a command's options and words, refusing a line that cannot be read (an unknown
    option, one without its value, a flag given one, an option of one value given twice)."""
    line = Line()
    _read(
        words,
        [*command.options, _HELP],
        line,
        interspersed=True,
        unknown=_unknown_option(model, command, line),
    )
    _refuse_repeated_options(line.order)
    return line


def call_refusal(model: AppModel, command: Command, words: Sequence[str]) -> AppError | None:
    """What the command refuses of `words` as its line before it converts a value (an unknown
    option, an option given twice, a flag given a value, words left over, options that cannot go
    together), in the order it meets them, or None: a hint offers a call only where it reads.
    No value is converted (a file named is not read), so a value's own refusal is the call's."""
    try:
        line = read_command_options(model, command, words)
        _refuse_words_left_over(command, line, words)
    except AppError as refusal:
        return refusal
    apart = _apart(command, words)
    if apart:
        return AppError(
            ErrorCode.USAGE_ERROR,
            f"{' and '.join(apart)} cannot go together.",
            f"Give one of {', '.join(apart)}.",
        )
    return None


def command_values(command: Command, ctx: Any, line: Line, words: Sequence[str]) -> dict[str, Any]:
    """Each parameter's value, converted by typer (`ctx` is the command's), or the refusal:
    an argument or option missing, a value refused, words left over."""
    values = _values(command, ctx, line)
    _refuse_words_left_over(command, line, words)
    return values


def _refuse_words_left_over(command: Command, line: Line, words: Sequence[str]) -> None:
    """Words beyond the command's arguments, or an option's name typed after `--`, refused with
    what they most likely meant."""
    count = len(command.arguments)
    extra = [] if any(each.repeatable for each in command.arguments) else line.words[count:]
    # An option's name after `--` is never an id (`remove td_0001 -- --confirm`), and never
    # meant as a word left over: the fix moves it before `--`.
    if extra or any(_is_an_id_option(command, line, position) for position in range(len(line.words))):
        moved = _options_moved_before_dashes(command, words, line.dashes or 0)
        if moved is not None:
            raise hints.options_after_dashes(command.name, *moved, _apart(command, moved[0]))
    if extra:
        _refuse_an_option_taken_as_a_value(command, line, extra)
        taken = [(each.metavar, _raw(line, index)) for index, each in enumerate(command.arguments)]
        after_dashes = line.dashes is not None and line.dashes <= count
        glued = _joined(command, line.record, count)
        meant = _option_in_words(command, line, count) if glued is None else None
        if meant is not None:
            raise hints.word_of_an_option(command.name, taken, extra, *meant)
        raise hints.extra_arguments(
            command.name,
            taken,
            extra,
            line.options_typed,
            after_dashes,
            glued,
            apart=lambda call: _apart(command, call),
            unread=lambda call: _unread(command, call),
        )


def _unread(command: Command, call: Sequence[str]) -> list[str]:
    """The options of the call (before `--`) marked `option_in_words` whose value its reader does
    not take (`--duration 400`: a number alone): a call that keeps it would be refused in turn."""
    readers = dict(command.options_in_words)
    cut = list(call).index("--") if "--" in call else len(call)
    refused = []
    for at, word in enumerate(call[:cut]):
        name, equals, value = word.partition("=")
        reads = readers.get(name)
        if reads is None:
            continue
        if not equals:
            value = call[at + 1] if at + 1 < cut else ""
        if reads(value) is None and name not in refused:
            refused.append(name)
    return refused


def _refuse_an_option_taken_as_a_value(command: Command, line: Line, extra: Sequence[str]) -> None:
    """`update ID --title --priority low`: the title was left out, and --title took the next
    option's name as its value (as it may), so the words after it are that option's, not the
    title's: refused in words, never hinted as one value. `--title=--priority` is meant."""
    for each in line.record:
        value = each.value
        if (
            each.param is None
            or value is None
            or each.word != value  # its own word after the option, not `--title=--priority`
            or not value.startswith("--")
        ):
            continue
        name = value.split("=", 1)[0]
        # A misspelt name (`--title --priorty low`) too, found by an outside review: the words
        # quoted into the title would have stored "--priorty low".
        meant = None
        if command.named(name) is None:
            shaped = not any(char.isspace() for char in value)
            meant = hints.near_option(name, [option.option for option in command.options]) if shaped else None
            if meant is None:
                continue
        raise hints.option_taken_as_value(
            command.name, each.param.option, each.param.metavar, value, extra, meant
        )


def _option_in_words(command: Command, line: Line, count: int) -> tuple[str, list[str], list[str]] | None:
    """When the first words (else the last) of the last argument's words read as the value of an
    option marked `option_in_words`, and no option of its group was given: those words, the call
    with them moved to the option and the other words quoted into the argument, and the call with
    every word quoted into the argument (the other meaning, offered too)."""
    if count < 1 or command.arguments[-1].metavar.startswith("ID"):
        return None
    given = {param.option for param in line.order}
    before, words = line.words[: count - 1], line.words[count - 1 :]
    options = line.options_typed
    for option, reads in command.options_in_words:
        group = next((set(each) for each in command.exclusive if option in each), {option})
        if group & given:
            continue
        # The longest run of leading words that reads (`90 min` of `90 min tea`), else of trailing.
        runs = [(words[:size], words[size:]) for size in range(len(words) - 1, 0, -1)]
        runs += [(words[-size:], words[:-size]) for size in range(len(words) - 1, 0, -1)]
        for run, rest in runs:
            value = reads(" ".join(run))
            if value is not None:
                moved = [option, value, *_ordered(options, [*before, " ".join(rest)], first=True)]
                return " ".join(run), moved, _ordered(options, [*before, " ".join(words)], first=False)
    return None


def _ordered(options: Sequence[str], values: Sequence[str], *, first: bool) -> list[str]:
    """The options and the arguments' values of a call: the options `first` or after the values,
    and always before `--` and the values when a value starts with a dash."""
    if any(each.startswith("-") for each in values):
        return [*options, "--", *values]
    return [*options, *values] if first else [*values, *options]


def _joined(command: Command, record: Sequence[Typed], count: int) -> list[str] | None:
    """The words typed with each run of words past the command's `count` arguments quoted into
    what it follows: the value of a free-text option typed just before it (`add 'Plan sprint'
    --description Pick stories`: the description `Pick stories`, the title being given), read by
    the option's `option_in_words` reader when it has one (`--duration 15 min`: `15m`; a run it
    does not read goes to the argument), else the last argument's value (`add Plan sprint`).
    None when no run goes to an option (the arguments' own hint is given), `--` was given, or a
    run would join an ID or no argument."""
    readers = dict(command.options_in_words)
    last = command.arguments[-1] if command.arguments else None
    joins = last is not None and not last.repeatable and not last.metavar.startswith("ID")
    words: list[Typed] = []
    runs: dict[int, list[str]] = {}  # each option value's index in `words`: the words it got
    argument: int | None = None  # the last argument's index in `words`
    arguments = 0
    taken = 0  # words after an option that its reader reads with its value (`--duration 15 min`)
    for at, each in enumerate(record):
        if taken:
            taken -= 1
            runs.setdefault(len(words) - 1, []).append(each.word)
            continue
        if each.param is None and each.word == "--":
            return None
        taken = _read_on(record, at, readers)
        if each.param is not None or arguments < count:
            arguments += each.param is None
            if each.param is None:
                argument = len(words)
            words.append(each)
            continue
        before = words[-1] if words else None
        if before is not None and before.value is not None and _free_text(before.param):
            runs.setdefault(len(words) - 1, []).append(each.word)
        elif joins and argument is not None:
            runs.setdefault(argument, []).append(each.word)
        else:
            return None
    options = 0
    for at, run in sorted(runs.items()):
        typed = words[at]
        if typed.param is None:
            continue
        value = " ".join([typed.value or "", *run])
        reads = readers.get(typed.param.option)
        read = reads(value) if reads is not None else value
        if read is None:  # not the option's: the argument's words, as when no option came before
            if not joins or argument is None:
                return None
            runs.setdefault(argument, []).extend(run)
            continue
        words[at] = typed._replace(word=typed.word[: len(typed.word) - len(typed.value or "")] + read)
        options += 1
    if argument is not None and argument in runs:
        typed = words[argument]
        words[argument] = typed._replace(word=" ".join([typed.word, *runs[argument]]))
    return [each.word for each in words] if options else None


def _read_on(record: Sequence[Typed], at: int, readers: Mapping[str, Callable[[str], str | None]]) -> int:
    """How many of the plain words after the option's value typed at `record[at]` its reader
    reads with it; 0 for none. For a value it does not read alone (`--duration 15`), the fewest
    words that make it read (`min`); then, from what it reads, more only while each reading
    extends the last with smaller units (`1h` + `30m`: 1h30m). A reading the words would change
    (`20m` + `5 min`: 25m; `15 min` + `2 days`: 2d15m) leaves them to the label."""
    typed = record[at]
    reads = readers.get(typed.param.option) if typed.param is not None and typed.value is not None else None
    if reads is None:
        return 0
    words: list[str] = []
    for each in record[at + 1 :]:
        if each.param is not None or each.word == "--":
            break
        words.append(each.word)
    taken, reading = 0, reads(typed.value or "")
    for size in range(1, len(words) + 1):
        read = reads(" ".join([typed.value or "", *words[:size]]))
        if read is not None and (reading is None or (read != reading and read.startswith(reading))):
            taken, reading = size, read
    return taken


def _free_text(param: Parameter | None) -> bool:
    """An option whose one value may hold several words (a description, a body, a date)."""
    return param is not None and param.type == "string" and not param.repeatable and not param.choices


def _apart(command: Command, call: Sequence[str]) -> dict[str, list[str]]:
    """When the call's options (before `--`) hold two of a group that cannot go together: each
    of them, and the call without the group's others (each with its value)."""
    cut = list(call).index("--") if "--" in call else len(call)
    given = [param.option for word in call[:cut] if (param := command.named(word.split("=", 1)[0]))]
    for group in command.exclusive:
        clash = [option for option in group if option in given]
        if len(clash) > 1:
            return {option: _without(command, call, set(clash) - {option}) for option in clash}
    return {}


def _without(command: Command, call: Sequence[str], options: set[str]) -> list[str]:
    """The call without the named options before `--`, nor their values."""
    kept: list[str] = []
    skip = False
    for index, word in enumerate(call):
        param = command.named(word.split("=", 1)[0]) if "--" not in call[:index] else None
        if skip:
            skip = False
        elif param is not None and param.option in options:
            skip = param.takes_value and "=" not in word
        else:
            kept.append(word)
    return kept


def _is_an_id_option(command: Command, line: Line, position: int) -> bool:
    """Whether the word at `position` among the words was typed after `--`, names an option of
    the command, and would be read as an id."""
    word = line.words[position]
    if line.dashes is None or position < line.dashes or command.named(word.split("=", 1)[0]) is None:
        return False
    for index, argument in enumerate(command.arguments):
        if argument.repeatable or index == position:
            return argument.metavar.startswith("ID")
    return False


def _raw(reading: Line, index: int) -> str | None:
    return reading.words[index] if index < len(reading.words) else None


def _read(
    words: Sequence[str],
    options: Sequence[Parameter],
    line: Line,
    *,
    interspersed: bool,
    unknown: Callable[[Sequence[str], int, str], AppError],
) -> list[str]:
    """Read the options from `words` into `line` as typer reads them: `--name value`,
    `--name=value`, `-h`; `--` ends the options, and so does the first other word unless options
    may come after words (`interspersed`: a command's). Returns the words not read."""
    names = {name: param for param in options for name in param.names}
    index = 0
    while index < len(words):
        word = words[index]
        if word == "--":
            if not interspersed:
                return list(words[index + 1 :])
            line.dashes = len(line.words)
            line.words.extend(words[index + 1 :])
            line.record.extend(Typed(each, None) for each in words[index:])
            return []
        if word[:1] != "-" or len(word) == 1:
            if not interspersed:
                return list(words[index:])
            line.words.append(word)
            line.record.append(Typed(word, None))
            index += 1
            continue
        if word.startswith("--"):
            name, equals, value = word.partition("=")
            param = names.get(name)
            if param is None:
                raise unknown(words, index, name)
            index = _take(param, name, value if equals else None, words, index, line)
            continue
        for position in range(1, len(word)):  # short options, several in a word as `-hv`
            name = "-" + word[position]
            param = names.get(name)
            if param is None:
                raise unknown(words, index, name)
            if param.takes_value:
                index = _take(param, name, word[position + 1 :] or None, words, index, line)
                break
            line.given(param, None)
        else:
            line.record.append(Typed(word, param))
            index += 1
    return []


def _take(
    param: Parameter, name: str, value: str | None, words: Sequence[str], index: int, line: Line
) -> int:
    """Read one option at `words[index]` (its value given after `=` or in the same word, or else
    the next word) and return the index of the next word to read."""
    if not param.takes_value:
        if value is not None:
            if param is _HELP:
                raise AppError(
                    ErrorCode.USAGE_ERROR,
                    f"Option '{name}' does not take a value.",
                    "Run the command with --help to see its arguments and options.",
                )
            raise hints.flag_with_value(name, value)
        line.given(param, None)
        if param is not _HELP:
            line.record.append(Typed(words[index], param))
        return index + 1
    if value is not None:
        line.given(param, value)
        line.record.append(Typed(words[index], param, value))
        return index + 1
    # `--tag --` and `--tag -` give no tag: `--` ends the options and `-` is a path's stdin.
    if (
        index + 1 >= len(words)
        or words[index + 1] == "--"
        or (words[index + 1] == "-" and param.type != "path")
    ):
        raise hints.missing_value(name, param.metavar, param.help, param.choices)
    line.given(param, words[index + 1])
    line.record.extend([Typed(words[index], param), Typed(words[index + 1], param, words[index + 1])])
    return index + 2


def _refuse_repeated_options(order: Sequence[Parameter]) -> None:
    """An option that takes one value, given twice, is refused (typer would keep the last)."""
    seen: set[str] = set()
    for param in order:
        if param.takes_value and not param.repeatable:
            if param.name in seen:
                raise hints.repeated_option(param.option)
            seen.add(param.name)


def _values(command: Command, ctx: Any, line: Line) -> dict[str, Any]:
    """Each parameter's value, converted by typer, in typer's order: the options as first given,
    then the arguments, then the options not given; the first refusal is the answer."""
    words = iter(line.words)
    raw: dict[str, Any] = {}
    for param in command.arguments:
        raw[param.name] = tuple(words) if param.repeatable else next(words, None)
    for param in command.options:
        if param.name in line.values:
            raw[param.name] = line.values[param.name] if param.repeatable else line.values[param.name][0]
        elif param in line.order:
            raw[param.name] = True
    first_given = list(dict.fromkeys(each.name for each in line.order if each is not _HELP))
    order = [*first_given, *(each.name for each in command.arguments)]
    params = {each.name: each for each in (*command.arguments, *command.options)}
    values: dict[str, Any] = {}
    for name in [*order, *(name for name in params if name not in order)]:
        param = params[name]
        value = raw.get(name)
        if value is None or value == ():  # not given: its default
            value = param.param.get_default(ctx)
        if param.required and (value is None or value == ()):
            raise _missing(command, param, line)
        try:
            values[name] = param.param.process_value(ctx, value)
        except typer.BadParameter as error:
            raise _bad_value(command, param, raw.get(name), error, line) from None
    return values


def _missing(command: Command, param: Parameter, line: Line) -> AppError:
    if param.names:
        # `import backup.json`: a command with no argument, and one word typed where the option's
        # value was meant; the call gives it as that option's value.
        stray = line.words[0] if len(line.words) == 1 and not command.arguments else None
        call = [*line.options_typed, param.option, stray] if stray and param.takes_value else None
        return hints.missing_option(command.name, param.option, param.metavar, param.help, call)
    given = line.words[: command.arguments.index(param)]
    missing = [(each.metavar, each.help) for each in command.arguments[len(given) :] if each.required]
    return hints.missing_argument(command.name, missing, given, line.options_typed)


def _bad_value(
    command: Command, param: Parameter, given: object, error: typer.BadParameter, line: Line
) -> AppError:
    option = param.option if param.names else param.metavar
    if param.choices:
        value = given if isinstance(given, str) else ""
        # The value's word in the line reader's record (an argument's choice: no call to rebuild).
        at = [i for i, each in enumerate(line.record) if each.param is param and each.value == value]
        words = [each.word for each in line.record]
        return hints.bad_choice(option, value, param.choices, command.name, words, at[0] if at else -1)
    return hints.bad_value(option, error.message, getattr(error, "hint", None), command.name)


def with_the_call(error: hints.OtherValue, command: Command, line: Line) -> AppError:
    """A command's refusal of an option's value with the call that gives the value it names
    instead, written from the line as typed; as it came when the value is not found there."""
    for at, each in enumerate(line.record):
        named = each.param is not None and error.option in each.param.names
        if named and each.value is not None and error.same(each.value):
            return error.in_call(command.name, [typed.word for typed in line.record], at, each.value)
    return error


def _unknown_app_option(words: Sequence[str], index: int, name: str) -> AppError:
    word = words[index]
    return hints.unknown_option(
        None, word if word.startswith(name) else name, [HUMAN_FLAG, VERSION_FLAG], False, [VERSION_FLAG]
    )


def _unknown_option(
    model: AppModel, command: Command, line: Line
) -> Callable[[Sequence[str], int, str], AppError]:
    def refusal(words: Sequence[str], index: int, name: str) -> AppError:
        word = words[index]
        at_word = word.startswith(name)
        # A dash value is hinted after `--` with the words that follow it; an unknown option among
        # them (`add -x --tagg home`) would be glued into it there, so it is refused first.
        later = _unknown_long_option_after(command, words, index) if not word.startswith("--") else None
        if later is not None:
            return refusal(words, later, words[later].split("=", 1)[0])
        # The argument the word would fill as a value: a value it refuses is the answer, as the
        # call with `--` before the word would be refused the same way (extend -5m). Not for a
        # word shaped like a long option (`--foo`): that is an option the command lacks.
        slot = _argument_at(command, len(line.words))
        if at_word and slot is not None and _names_the_argument(slot, word):
            # With the call, or in words when its value starts with a dash or is missing: no
            # other option is guessed for it (`append nt_0001 --text -x` is no --text-file).
            return hints.argument_as_option(command.name, name, slot.metavar, _argument_named(words, index))
        refused = _value_refusal(command, slot, word) if at_word and slot is not None else None
        if refused is not None and slot is not None and not word.startswith("--"):
            raise hints.bad_value(slot.metavar, refused.message, getattr(refused, "hint", None), command.name)
        return hints.unknown_option(
            command.name,
            word if at_word else name,
            [each.option for each in command.options],
            # Whether a value could go after `--` here: not once every argument is given (update ID -x).
            slot is not None,
            app_options=[VERSION_FLAG],
            elsewhere={
                other.name: [each.option for each in other.options]
                for other in model.commands.values()
                if other is not command
            },
            fixed=(fixed := _with_dashes(command, words, index, len(line.words)) if at_word else []),
            apart=_apart(command, fixed) if fixed else None,
            typed=words if at_word else (),
            at=index,
            valued=[name for each in command.options if each.takes_value for name in each.names],
            refusal_of=lambda call: call_refusal(model, command, call),
            # Not for a word that reads as an option given a value (`search standup --status
            # open`, `--status=open`): after `--` it would be searched for, a changed meaning.
            # Nor for a value the argument would refuse (extend's DURATION refuses `--foo`).
            as_value=slot is not None
            and not slot.metavar.startswith("ID")
            and not _given_a_value(words, index)
            and refused is None,
        )

    return refusal


def _value_refusal(command: Command, slot: Parameter, word: str) -> typer.BadParameter | None:
    """The argument's refusal of `word` as its value, as typer converts it; None if it takes it."""
    try:
        ctx = typer.Context(command.command, info_name=command.name)
        slot.param.process_value(ctx, (word,) if slot.repeatable else word)
    except typer.BadParameter as error:
        return error
    return None


def _unknown_long_option_after(command: Command, words: Sequence[str], index: int) -> int | None:
    """The index of the first word after `words[index]`, and before any `--`, shaped like a long
    option (`--tagg`) that the command does not have; a known option's value is skipped."""
    position = index + 1
    while position < len(words) and words[position] != "--":
        word = words[position]
        param = command.named(word.split("=", 1)[0])
        if param is not None:
            position += len(_option_as_typed(param, words, position))
            continue
        if word.startswith("--") and len(word) > 2 and word not in HELP_FLAGS:
            return position
        position += 1
    return None


def _given_a_value(words: Sequence[str], index: int) -> bool:
    """Whether the unknown option at `words[index]` carries a value: `=VALUE`, or a next word
    that does not start with a dash, or any next word but `--` after a long option's name
    (`rename tm_0001 --label -x`: offered after `--`, the label would be "--label -x")."""
    following = words[index + 1] if index + 1 < len(words) else "--"
    long_name = words[index].startswith("--") and following != "--"
    return "=" in words[index] or not following.startswith("-") or long_name


def _argument_named(words: Sequence[str], index: int) -> list[str] | None:
    """For the unknown option at `words[index]` that names the argument its value would fill
    (`extend tm_0001 --duration 5m`, `get --id td_0001`), or nearly (`--duraton`, found outside:
    its value was read as the argument and refused as taking time away): the call's words with
    the value as that argument, the option's name left out; None when the value is missing or
    starts with a dash (the call would be refused again)."""
    _, equals, value = words[index].partition("=")
    rest = list(words[index + 1 :])
    if not equals:
        if not rest:
            return None
        value = rest.pop(0)
    if not value or value.startswith("-"):
        return None
    kept = [each for each in [*words[:index], value, *rest] if each not in HELP_FLAGS]
    return kept


def _names_the_argument(slot: Parameter, word: str) -> bool:
    """Whether the unknown option `word` is named after the argument `slot`, or nearly."""
    typed, argument = word.partition("=")[0].lstrip("-").casefold(), slot.metavar.rstrip(".").casefold()
    near = word.startswith("--") and difflib.SequenceMatcher(None, typed, argument).ratio() >= _NEARLY
    return typed == argument or near


def _argument_at(command: Command, position: int) -> Parameter | None:
    """The argument the word at `position` among the words would fill."""
    for index, argument in enumerate(command.arguments):
        if argument.repeatable or index == position:
            return argument
    return None


def _one_value_each(command: Command, taken: int, values: Sequence[str]) -> list[str]:
    """The words after `--` as the command's arguments would take them, `taken` having been
    given before: words past the last argument joined into it (one title of several words), so
    that the call, its words quoted, is not refused for words left over. An ID or a repeatable
    argument joins nothing (two ids are never one)."""
    arguments = command.arguments
    room = len(arguments) - taken
    if room < 1 or len(values) <= room or any(each.repeatable for each in arguments):
        return list(values)
    if arguments[-1].metavar.startswith("ID"):
        return list(values)
    return [*values[: room - 1], " ".join(values[room - 1 :])]


def _with_dashes(command: Command, words: Sequence[str], index: int, taken: int) -> list[str]:
    """The call's words with `--` before the value at `words[index]` that starts with a dash:
    the options typed after it (each with its value) move before `--`, every other word keeps its
    place and its order, and a help flag is left out (the call is the one meant, not its help)."""
    before = [word for word in words[:index] if word not in HELP_FLAGS]
    options: list[str] = []
    values: list[str] = []
    after = list(words[index + 1 :])
    position = 0
    while position < len(after):
        word = after[position]
        param = command.named(word.split("=", 1)[0])
        if word == "--":  # the call gets one `--`: options typed after this one move before it too
            position += 1
            continue
        if param is not None:
            given = _option_as_typed(param, after, position)
            position += len(given)
            if not _given_already(param, given, [*before, *options]):
                options.extend(given)
            continue
        if word not in HELP_FLAGS:
            values.append(word)
        position += 1
    return [*before, *options, "--", *_one_value_each(command, taken, [words[index], *values])]


def _option_as_typed(param: Parameter, words: Sequence[str], position: int) -> list[str]:
    """The option at `words[position]` with its value when that is the next word (`--tag home`);
    the word alone for a flag, `--tag=home`, or a value-taking option last in the line."""
    word = words[position]
    if param.takes_value and "=" not in word and position + 1 < len(words):
        return [word, words[position + 1]]
    return [word]


def _given_already(param: Parameter, given: Sequence[str], words: Sequence[str]) -> bool:
    """Whether the call's `words` already give the option as `given` does: a flag, or an option
    of one value with the same value (moved there, it would be given twice). Read as the line
    reader reads: `--opt VALUE` or `--opt=VALUE`."""
    if param.repeatable:
        return False
    if not param.takes_value:
        return any(word in param.names for word in words)
    value = given[0].split("=", 1)[1] if "=" in given[0] else (given[1] if len(given) > 1 else None)
    for at, word in enumerate(words):
        name, equals, inline = word.partition("=")
        if name in param.names:
            typed = inline if equals else (words[at + 1] if at + 1 < len(words) else None)
            if typed == value:
                return True
    return False


def _options_moved_before_dashes(
    command: Command, args: Sequence[str], taken: int
) -> tuple[list[str], list[str]] | None:
    """When words after `--` name the command's options (`add -- -x --tag home`): the call with
    them (and each one's value) moved before `--`, and the options so moved; None when none was.
    `taken`: the arguments given before `--`."""
    if "--" not in args:
        return None
    cut = list(args).index("--")
    moved: list[str] = []
    named: list[str] = []
    kept: list[str] = []
    after = list(args[cut + 1 :])
    index = 0
    while index < len(after):
        word = after[index]
        param = command.named(word.split("=", 1)[0])
        if param is not None:
            named.append(word.split("=", 1)[0])
            given = _option_as_typed(param, after, index)
            index += len(given)
            # One given before `--` already, the same way, is not moved: it would be given twice.
            if not _given_already(param, given, [*args[:cut], *moved]):
                moved.extend(given)
            continue
        kept.append(word)
        index += 1
    if not named:
        return None
    kept = _one_value_each(command, taken, kept)
    return [*args[:cut], *moved, *(["--", *kept] if kept else [])], named


# --help and -h, read as any flag; typer adds them to every help text itself.
_HELP = Parameter("help", HELP_FLAGS, "", False, False, False, "", "flag", None, False, None)
