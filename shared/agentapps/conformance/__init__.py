"""Conformance: what any Agent Applications runtime must do, as cases any language can run.

A case (conformance/cases/<tier>/<rule>.json, format in conformance/case.schema.json) names the
packages it needs, the operations a runtime is asked for — catalog, activate, run, with their
inputs — and what each answer must contain. A runtime answers through an adapter, one command
that speaks the protocol (protocol.py; answers in conformance/protocol.schema.json); `agentapps`
itself is one. `run_cases` runs every case in a fresh folder (workspace.py) and reports, per case,
pass or every difference by JSON path (expectations.py), and a summary line.

    cases.py         the case format: finding, loading and checking case files
    workspace.py     the folder a case runs in, and the environment that tells the adapter of it
    protocol.py      calling an adapter and reading its answer
    expectations.py  what an answer must contain, and where it differs
    suite.py         running cases, and who passed what
    report.py        the --human table
"""

from __future__ import annotations

from .cases import SUITE_COLLECTION, Case, CaseError, case_files, load_case
from .protocol import Adapter, AdapterCannotStart, AdapterTimedOut, Reply, command_adapter
from .report import human_report
from .suite import CaseResult, ConformanceRun, run_case, run_cases

__all__ = [
    "SUITE_COLLECTION",
    "Adapter",
    "AdapterCannotStart",
    "AdapterTimedOut",
    "Case",
    "CaseError",
    "CaseResult",
    "ConformanceRun",
    "Reply",
    "case_files",
    "command_adapter",
    "human_report",
    "load_case",
    "run_case",
    "run_cases",
]
