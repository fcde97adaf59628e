"""`describe`: an app's commands as data — arguments, options, what changes state, what needs
confirmation — and the error code table. Built from the app itself, so it cannot drift: click's
public view of each command (its parameters' names, flags, defaults, help) and the command
function's own annotations (each parameter's Python type and its typer `parser=`).

Only `describe` imports this module, and the schema generator, for the shapes below.
"""

from __future__ import annotations

import typing
from collections.abc import Callable, Mapping
from enum import Enum
from types import UnionType
from typing import Any, Union, get_args, get_origin

from typing_extensions import TypedDict  # `closed=True` on Python 3.11 too; pydantic reads it

from .errors import EXIT_STATUS, ErrorCode

if typing.TYPE_CHECKING:
    from .traits import CommandTraits


# What `describe` prints; JSON names, hence camelCase keys. schemas.py puts them in schemas/.
class ArgumentDescription(TypedDict, closed=True):
    name: str
    type: str
    required: bool
    repeatable: bool
    default: Any
    help: str


class OptionDescription(TypedDict, closed=True):
    name: str
    type: str
    required: bool
    repeatable: bool
    default: Any
    choices: list[str] | None
    help: str


class CommandDescription(TypedDict, closed=True):
    name: str
    summary: str
    mutatesState: bool
    confirmationRequired: bool
    arguments: list[ArgumentDescription]
    options: list[OptionDescription]


class ErrorDescription(TypedDict, closed=True):
    code: ErrorCode
    exit: int


class AppDescription(TypedDict, closed=True):
    commands: list[CommandDescription]
    errors: list[ErrorDescription]


def describe_app(group: Any, traits: Mapping[str, CommandTraits]) -> AppDescription:
    """`group` is the app's click group; `traits` what the app recorded of each command."""
    commands: list[CommandDescription] = []
    for name, command in group.commands.items():
        trait = traits[name]
        annotations = _annotations(trait.function)
        # --help and --human are the runner's, the same on every command: not the command's own.
        parameters = [param for param in command.params if param.name not in ("help", "human")]
        commands.append(
            {
                "name": name,
                # The docstring's first paragraph, one line: its first line alone may stop mid-sentence.
                "summary": " ".join((command.help or "").strip().split("\n\n", 1)[0].split()),
                "mutatesState": trait.mutates,
                "confirmationRequired": trait.confirmation,
                "arguments": [
                    _argument(param, annotations.get(param.name, str))
                    for param in parameters
                    if param.param_type_name == "argument"
                ],
                "options": [
                    _option(param, annotations.get(param.name, str))
                    for param in parameters
                    if param.param_type_name == "option"
                ],
            }
        )
    return {
        "commands": commands,
        "errors": [{"code": code, "exit": status} for code, status in EXIT_STATUS.items()],
    }


def parameter_choices(function: Callable[..., Any], name: str) -> list[str] | None:
    """The values a command's parameter allows, when it has a fixed set (an enum)."""
    annotation = _annotations(function).get(name)
    return _choices(annotation) if annotation is not None else None


def _annotations(function: Callable[..., Any]) -> dict[str, Any]:
    """Each parameter's annotation, `Annotated[...]` kept: its metadata holds typer's Option or
    Argument, whose `parser` says how the value is read."""
    hints = typing.get_type_hints(function, include_extras=True)
    hints.pop("return", None)
    return hints


def _argument(param: Any, annotation: Any) -> ArgumentDescription:
    return {
        "name": (param.metavar or param.name).lower().rstrip("."),
        "type": _type_name(annotation),
        "required": bool(param.required),
        "repeatable": param.nargs == -1,
        "default": _default(param),
        "help": getattr(param, "help", None) or "",
    }


def _option(param: Any, annotation: Any) -> OptionDescription:
    return {
        "name": max(param.opts, key=len),
        "type": "flag" if param.is_flag else _type_name(annotation),
        "required": bool(param.required),
        "repeatable": bool(param.multiple),
        "default": _default(param),
        "choices": _choices(annotation),
        "help": param.help or "",
    }


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
    if isinstance(base, type) and issubclass(base, Enum):
        return "string"
    return {int: "integer", float: "number", bool: "boolean"}.get(base, "string")


def _choices(annotation: Any) -> list[str] | None:
    base = _base_type(annotation)
    if isinstance(base, type) and issubclass(base, Enum):
        return [str(member.value) for member in base]
    return None


def _default(param: Any) -> Any:
    default = param.default
    if isinstance(default, Enum):
        return default.value
    if isinstance(default, list | tuple):
        return list(default) or None
    return default if isinstance(default, str | int | float | bool) else None
