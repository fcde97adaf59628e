"""Running cases through an adapter: each case in a fresh folder, step by step, until a step
differs; then, over all of them, who passed what."""

from __future__ import annotations

import shlex
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from ..output import NOT_JSON
from .cases import Case, CaseError, operation_of
from .expectations import catalog_view, changed_paths, differences
from .protocol import (
    Adapter,
    AdapterCannotStart,
    AdapterTimedOut,
    call_limit,
    operation_argv,
    read_answer,
    shown,
    step_stdin,
)
from .workspace import TOKEN, TRUSTED_ENV, Workspace, workspace

EXCERPT_CHARS = 2000


@dataclass
class StepFailure:
    step: int  # 1-based
    operation: str  # AGENTAPPS_TRUSTED=... and the adapter's arguments, the case folder as {case}
    differences: list[str]
    exit_status: int | None = None
    stdout: str = ""
    stderr: str = ""

    def as_dict(self) -> dict[str, Any]:
        return {
            "step": self.step,
            "operation": self.operation,
            "differences": self.differences,
            "exitStatus": self.exit_status,
            "stdout": self.stdout[:EXCERPT_CHARS],
            "stderr": self.stderr[:EXCERPT_CHARS],
        }


@dataclass
class CaseResult:
    case: Case
    failure: StepFailure | None = None
    problem: str | None = None  # the case could not be run at all
    folder: str | None = None  # where the case's folder was kept (--keep)

    @property
    def passed(self) -> bool:
        return self.failure is None and self.problem is None

    def as_dict(self) -> dict[str, Any]:
        return {
            "case": self.case.name,
            "path": str(self.case.path),
            "tier": self.case.tier,
            "level": self.case.level,
            "description": self.case.data["description"],
            "passed": self.passed,
            "steps": len(self.case.steps),
            "problem": self.problem,
            "failure": None if self.failure is None else self.failure.as_dict(),
            **({} if self.folder is None else {"folder": self.folder}),
        }


@dataclass
class ConformanceRun:
    """Every case's result, in the order given, for one runtime."""

    runtime: str
    results: list[CaseResult] = field(default_factory=list)

    @property
    def failed(self) -> list[CaseResult]:
        return [result for result in self.results if not result.passed]

    @property
    def required_failed(self) -> list[CaseResult]:
        """The failed cases the seed requires of every runtime (the rest are this suite's own)."""
        return [result for result in self.failed if result.case.level == "required"]

    def counts(self) -> dict[str, int]:
        required = [result for result in self.results if result.case.level == "required"]
        return {
            "cases": len(self.results),
            "passed": sum(result.passed for result in self.results),
            "required": len(required),
            "requiredPassed": sum(result.passed for result in required),
            "suite": len(self.results) - len(required),
            "suitePassed": sum(result.passed for result in self.results if result.case.level != "required"),
        }

    @property
    def summary(self) -> str:
        """One line a README badge can quote: `agentapps: 51/51 cases, 22/22 required`."""
        counts = self.counts()
        return (
            f"{self.runtime}: {counts['passed']}/{counts['cases']} cases, "
            f"{counts['requiredPassed']}/{counts['required']} required"
        )

    def as_dict(self) -> dict[str, Any]:
        # conforms: no case the seed requires failed, whatever this suite's own cases gave.
        conforms = not self.required_failed
        return {"runtime": self.runtime, "summary": self.summary, **self.counts(), "conforms": conforms}


def run_case(case: Case, adapter: Adapter, *, keep: bool = False) -> CaseResult:
    """Every step of the case, in its own fresh folder; the first step that differs ends it.
    With `keep` the folder stays, and the result says where."""
    result = CaseResult(case)
    try:
        with workspace(case, keep=keep) as space:
            if keep:
                result.folder = str(space.root)
            env = space.environment(case)
            for number, step in enumerate(case.steps, start=1):
                result.failure = run_step(step, number, case, space, env, adapter)
                if result.failure is not None:
                    break
    except CaseError as error:
        result.problem = str(error)
    except AdapterCannotStart as error:
        result.problem = f"the adapter cannot start: {error}"
    return result


def run_step(
    step: dict[str, Any], number: int, case: Case, space: Workspace, env: dict[str, str], adapter: Adapter
) -> StepFailure | None:
    """One operation through the adapter, compared with what the step expects: None when it gave
    that."""
    argv = operation_argv(step, space)
    # The operation as a shell line, with what the user trusts: a failed trust case says it.
    trusted = shlex.quote(env[TRUSTED_ENV]).replace(str(space.root), TOKEN)
    operation = f"{TRUSTED_ENV}={trusted} {shown(argv, space)}"
    watched = bool(step["expect"].get("unchanged"))
    before = space.snapshot() if watched else {}
    try:
        reply = adapter(argv, env, step_stdin(step), call_limit(step))
    except AdapterTimedOut:
        # Which operation hung, and for how long, so the runtime's author can run it alone.
        limit = f"{call_limit(step):g}"
        return StepFailure(
            number,
            operation,
            [f"the adapter did not answer `{operation_of(step)}` within {limit} s (killed): {operation}"],
        )
    raw, problems = read_answer(case, step, reply)
    found = [space.tokenised(problem) for problem in problems]
    view = catalog_view(raw, space) if operation_of(step) == "catalog" else {}
    answer = NOT_JSON if raw is NOT_JSON else space.tokenised(raw)
    changed = changed_paths(before, space.snapshot()) if watched else []
    found += differences(step["expect"], reply.exit_status, answer, space.tokenised(view), changed)
    if not found:
        return None
    stdout, stderr = (
        space.tokenised(stream.decode("utf-8", "replace")) for stream in (reply.stdout, reply.stderr)
    )
    return StepFailure(number, operation, found, reply.exit_status, stdout, stderr)


def run_cases(
    cases: Sequence[Case], adapter: Adapter, runtime: str, *, jobs: int = 1, keep: bool = False
) -> ConformanceRun:
    """Each case through the adapter (each in its own folder, so they may run side by side)."""
    if jobs <= 1:
        return ConformanceRun(runtime, [run_case(case, adapter, keep=keep) for case in cases])
    from concurrent.futures import ThreadPoolExecutor

    with ThreadPoolExecutor(max_workers=jobs) as pool:
        return ConformanceRun(runtime, list(pool.map(lambda case: run_case(case, adapter, keep=keep), cases)))
