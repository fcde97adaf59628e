"""One model of each command of an app, built once from its typed signatures: typer reads each
signature into a command, and this reads that command's parameters (names, flags, metavars,
defaults, help) and the signature's annotations (types, choices, a `parser=`). `describe`, the
runner's reading of a command line and the hints it gives all read this model; the MCP input
schemas are made from `describe`.
"""

from __future__ import annotations

import typing
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from enum import Enum
from types import UnionType
from typing import Any, Literal, NamedTuple, Union, get_args, get_origin

HUMAN_FLAG = "--human"
VERSION_FLAG = "--version"
HELP_FLAGS = ("--help", "-h")


class CommandTraits(NamedTuple):
    """What an app records of each command it registers, for `describe`."""

    function: Callable[..., Any]
    mutates: bool
    confirmation: bool


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

    def named(self, option: str) -> Parameter | None:
        return next((each for each in self.options if option in each.names), None)


def app_options(group: Any) -> tuple[Parameter, ...]:
    """The options the app itself takes before the command (--human, --version)."""
    return tuple(_parameter(param, bool) for param in group.params)


def command_models(group: Any, traits: Mapping[str, CommandTraits]) -> dict[str, Command]:
    """Every command of the app, in the order it was registered."""
    models: dict[str, Command] = {}
    for name, command in group.commands.items():
        trait = traits[name]
        annotations = typing.get_type_hints(trait.function, include_extras=True)
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
