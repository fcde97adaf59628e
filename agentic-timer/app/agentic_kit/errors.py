"""The error codes every app speaks, and the exit status each one gives."""

from __future__ import annotations

from enum import StrEnum

from .text import printable


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

# The one table of exit statuses; APP.md files and docs/runtime.md repeat it.
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
    """A failure the user or agent can act on; the runner turns it into an error envelope, whose
    `error` is `body()` and whose exit status is the code's in the table above."""

    def __init__(self, code: ErrorCode, message: str, hint: str | None = None) -> None:
        super().__init__(message)
        self.code: str = str(code)
        self.message = message
        self.hint = hint
        self.exit_status: int = EXIT_STATUS[code]

    def body(self) -> dict[str, object]:
        """The envelope's `error`. A message and hint may quote a path or value holding bytes that
        were not UTF-8: they are shown as \\xNN, so the envelope can always be printed."""
        body: dict[str, object] = {"code": self.code, "message": printable(self.message)}
        if self.hint:
            body["hint"] = printable(self.hint)
        return body


def validation_error(message: str, hint: str | None = None) -> AppError:
    return AppError(ErrorCode.VALIDATION_ERROR, message, hint)


def not_found(
    entity: str, entity_id: str, list_command: str = "list", search_command: str | None = None
) -> AppError:
    """`search_command`: the app's search, offered beside the list where its skill says to search."""
    run = f"`{list_command}` or `{search_command}`" if search_command else f"`{list_command}`"
    return AppError(
        ErrorCode.NOT_FOUND, f"No {entity} with id {entity_id}.", f"Run {run} to see the ids that exist."
    )


def confirmation_required(command: str) -> AppError:
    return AppError(
        ErrorCode.CONFIRMATION_REQUIRED,
        f"{command} requires --confirm.",
        f"Ask the user, then run `{command}` again with --confirm.",
    )
