"""The error codes every app speaks, and the exit status each one gives."""

from __future__ import annotations

from enum import StrEnum


class ErrorCode(StrEnum):
    USAGE_ERROR = "USAGE_ERROR"
    VALIDATION_ERROR = "VALIDATION_ERROR"
    NOT_FOUND = "NOT_FOUND"
    CONFIRMATION_REQUIRED = "CONFIRMATION_REQUIRED"
    CONFLICT = "CONFLICT"
    STATE_LOCKED = "STATE_LOCKED"
    STATE_CORRUPT = "STATE_CORRUPT"
    STATE_IO_ERROR = "STATE_IO_ERROR"
    INTERNAL_ERROR = "INTERNAL_ERROR"


EXIT_OK = 0

# The one table of exit statuses; APP.md files and the README repeat it.
EXIT_STATUS: dict[ErrorCode, int] = {
    ErrorCode.INTERNAL_ERROR: 1,
    ErrorCode.USAGE_ERROR: 2,
    ErrorCode.VALIDATION_ERROR: 3,
    ErrorCode.NOT_FOUND: 4,
    ErrorCode.CONFIRMATION_REQUIRED: 5,
    ErrorCode.CONFLICT: 6,
    ErrorCode.STATE_LOCKED: 7,
    ErrorCode.STATE_CORRUPT: 8,
    ErrorCode.STATE_IO_ERROR: 9,
}


class AppError(Exception):
    """A failure the user or agent can act on; the runner turns it into an error envelope.

    Apps use the codes above. A tool built on the kit (the agentapps runtime) may use codes of
    its own, giving their exit status, and attach `details` for the error body.
    """

    def __init__(
        self,
        code: ErrorCode | str,
        message: str,
        hint: str | None = None,
        *,
        exit_status: int | None = None,
        details: dict[str, object] | None = None,
    ) -> None:
        super().__init__(message)
        self.code = str(code)
        self.message = message
        self.hint = hint
        self.exit_status = exit_status if exit_status is not None else EXIT_STATUS[ErrorCode(code)]
        self.details = details


def validation_error(message: str, hint: str | None = None) -> AppError:
    return AppError(ErrorCode.VALIDATION_ERROR, message, hint)


def not_found(entity: str, entity_id: str, list_command: str = "list") -> AppError:
    return AppError(
        ErrorCode.NOT_FOUND,
        f"No {entity} with id {entity_id}.",
        f"Run `{list_command}` to see the ids that exist.",
    )


def confirmation_required(command: str) -> AppError:
    return AppError(
        ErrorCode.CONFIRMATION_REQUIRED,
        f"{command} requires --confirm.",
        f"Ask the user, then run `{command}` again with --confirm.",
    )
