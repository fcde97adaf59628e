"""The toolkit's own error codes, beyond the apps' table (shared/agentic_kit/errors.py).

The toolkit speaks the same envelope as the apps and uses their codes where they fit
(USAGE_ERROR, VALIDATION_ERROR, NOT_FOUND, CONFIRMATION_REQUIRED). These are for what only a
runtime can see.
"""

from __future__ import annotations

from agentic_kit.errors import EXIT_STATUS, AppError, ErrorCode

PACKAGE_INVALID = "PACKAGE_INVALID"  # the package breaks the format: APP.md, skills
CONTRACT_VIOLATION = "CONTRACT_VIOLATION"  # the app's output broke the CLI contract
TIMEOUT = "TIMEOUT"  # the app ran past --timeout and was killed
CHECK_FAILED = "CHECK_FAILED"  # `check` found at least one error
SCENARIO_FAILED = "SCENARIO_FAILED"  # `replay`: a step did not give what its scenario expects
CONFORMANCE_FAILED = "CONFORMANCE_FAILED"  # `conformance`: a runtime failed a case the seed requires
# `conformance`: every required case passed (the runtime does what the seed requires), but a case
# of this suite's own conventions failed: reported apart, so a runtime author can adopt the cases.
SUITE_CASES_FAILED = "SUITE_CASES_FAILED"
# The app failed (non-zero exit) without a structured JSON error, which the format recommends but
# does not require. Its exit status is the app's own, relayed (128 + N when signal N ended it),
# so it has no entry in the table below; error.details carries exitStatus, stdout and stderr.
APP_FAILED = "APP_FAILED"
# `mcp`: a tool's answer over the server's bound that cannot be paged (details.mayHaveTakenEffect).
ANSWER_TOO_LARGE = "ANSWER_TOO_LARGE"

TOOLKIT_EXIT_STATUS = {
    PACKAGE_INVALID: 10,
    CONTRACT_VIOLATION: 11,
    TIMEOUT: 12,
    CHECK_FAILED: 13,
    SCENARIO_FAILED: 14,
    CONFORMANCE_FAILED: 15,
    ANSWER_TOO_LARGE: 16,
    SUITE_CASES_FAILED: 17,
}


class ToolkitError(AppError):
    """An error of the toolkit's: one of its own codes, or an app's code with `details`, a JSON
    object its error body carries (the gate that refused, every report of a failed check, the
    app's own streams). The exit status is the code's, from the toolkit's table or the apps', or
    `exit_status` when given (APP_FAILED relays the app's own)."""

    def __init__(
        self,
        code: str,
        message: str,
        hint: str | None = None,
        *,
        details: dict[str, object] | None = None,
        exit_status: int | None = None,
    ) -> None:
        # AppError's constructor takes only the apps' codes; the fields it sets are set here.
        Exception.__init__(self, message)
        self.code = code
        self.message = message
        self.hint = hint
        self.details = details
        if exit_status is None:
            exit_status = TOOLKIT_EXIT_STATUS.get(code) or EXIT_STATUS[ErrorCode(code)]
        self.exit_status = exit_status

    def body(self) -> dict[str, object]:
        body = super().body()
        if self.details is not None:
            body["details"] = self.details
        return body


def toolkit_error(
    code: str, message: str, hint: str | None = None, details: dict[str, object] | None = None
) -> ToolkitError:
    return ToolkitError(code, message, hint, details=details)
