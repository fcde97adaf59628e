"""`describe`: an app's commands as data — arguments, options, what changes state, what needs
confirmation — and the error code table. Built from the typer app itself, so it cannot drift."""

from __future__ import annotations

from enum import Enum
from types import UnionType
from typing import Any, Union, get_args, get_origin

from .errors import EXIT_STATUS


def describe_app(group: Any, traits: dict[str, tuple[bool, bool]]) -> dict[str, Any]:
    """`group` is the app's click group; `traits` maps a command to (mutates, needs confirmation)."""
    commands = []
    for name, command in group.commands.items():
        mutates, confirmation = traits.get(name, (False, False))
        # --help and --human are the runner's, the same on every command: not the command's own.
        parameters = [param for param in command.params if param.name not in ("help", "human")]
        commands.append(
            {
                "name": name,
                "summary": (command.help or "").strip().splitlines()[0] if command.help else "",
                "mutatesState": mutates,
                "confirmationRequired": confirmation,
                "arguments": [
                    _argument(param) for param in parameters if param.param_type_name == "argument"
                ],
                "options": [_option(param) for param in parameters if param.param_type_name == "option"],
            }
        )
    return {
        "commands": commands,
        "errors": [{"code": code.value, "exit": status} for code, status in EXIT_STATUS.items()],
    }


def _argument(param: Any) -> dict[str, Any]:
    return {
        "name": (param.metavar or param.name).lower().rstrip("."),
        "type": _type_name(param),
        "required": bool(param.required),
        "repeatable": param.nargs == -1,
        "default": _default(param),
        "help": getattr(param, "help", None) or "",
    }


def _option(param: Any) -> dict[str, Any]:
    return {
        "name": max(param.opts, key=len),
        "type": "flag" if param.is_flag else _type_name(param),
        "required": bool(param.required),
        "repeatable": bool(param.multiple),
        "default": _default(param),
        "choices": _choices(param),
        "help": param.help or "",
    }


def _base_annotation(param: Any) -> Any:
    """The parameter's Python type without Optional or list around it."""
    annotation = getattr(getattr(param, "type_descriptor", None), "annotation", str)
    while get_origin(annotation) in (list, Union, UnionType):
        annotation = next(arg for arg in get_args(annotation) if arg is not type(None))
    return annotation


def _type_name(param: Any) -> str:
    from .inputs import file_path

    # The option's typer `parser=`, read where describe reads the annotation.
    info = getattr(getattr(param, "type_descriptor", None), "parameter_info", None)
    if getattr(info, "parser", None) is file_path:
        return "path"
    annotation = _base_annotation(param)
    if isinstance(annotation, type) and issubclass(annotation, Enum):
        return "string"
    return {int: "integer", float: "number", bool: "boolean"}.get(annotation, "string")


def _choices(param: Any) -> list[str] | None:
    annotation = _base_annotation(param)
    if isinstance(annotation, type) and issubclass(annotation, Enum):
        return [str(member.value) for member in annotation]
    return None


def _default(param: Any) -> Any:
    default = param.default
    if isinstance(default, Enum):
        return default.value
    if isinstance(default, list | tuple):
        return list(default) or None
    return default if isinstance(default, str | int | float | bool) else None
