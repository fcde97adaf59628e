"""`describe`: an app's commands as data — arguments, options, what changes state, what needs
confirmation — and the error code table. Built from the app's command model (model.py), the one
the runner reads a command line with, so it cannot drift.

Only `describe` imports this module, and the schema generator, for the shapes below.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from typing_extensions import TypedDict  # `closed=True` on Python 3.11 too; pydantic reads it

from .errors import EXIT_STATUS, ErrorCode
from .model import HUMAN_FLAG, Command, CommandTraits, Parameter, command_models


# What `describe` prints; JSON names, hence camelCase keys. schemas.py puts them in schemas/.
class ArgumentDescription(TypedDict, closed=True):
    name: str
    type: str
    required: bool
    repeatable: bool
    default: Any
    choices: list[str] | None
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
    """`group` is the app's command as typer makes it; `traits` what the app recorded of each."""
    return {
        "commands": [_command(each) for each in command_models(group, traits).values()],
        "errors": [{"code": code, "exit": status} for code, status in EXIT_STATUS.items()],
    }


def _command(command: Command) -> CommandDescription:
    return {
        "name": command.name,
        "summary": command.summary,
        "mutatesState": command.mutates,
        "confirmationRequired": command.confirmation,
        "arguments": [_argument(each) for each in command.arguments],
        # --human is the runner's, the same on every command: not the command's own.
        "options": [_option(each) for each in command.options if each.option != HUMAN_FLAG],
    }


def _argument(param: Parameter) -> ArgumentDescription:
    return {
        "name": param.metavar.lower().rstrip("."),
        "type": param.type,
        "required": param.required,
        "repeatable": param.repeatable,
        "default": param.default,
        "choices": param.choices,  # a Literal or Enum argument's values, as an option's
        "help": param.help,
    }


def _option(param: Parameter) -> OptionDescription:
    return {
        "name": param.option,
        "type": param.type,
        "required": param.required,
        "repeatable": param.repeatable,
        "default": param.default,
        "choices": param.choices,
        "help": param.help,
    }
