"""`agentapps conformance --human`: the rules passed and failed, grouped by tier, each failure with
its step and differences, then the summary line."""

from __future__ import annotations

from itertools import groupby
from typing import Any

TIERS = ("catalog", "activate", "run")


def human_report(summary: dict[str, Any], results: list[dict[str, Any]]) -> str:
    lines: list[str] = []
    ordered = sorted(results, key=lambda result: (_tier_order(result["tier"]), result["case"]))
    for tier, group in groupby(ordered, key=lambda result: result["tier"]):
        lines.append(tier)
        for result in group:
            verdict = "pass" if result["passed"] else "FAIL"
            rule = result["case"].split("/", 1)[-1]
            lines.append(f"  {verdict}  {result['level']:<8}  {rule}")
            if "folder" in result:
                lines += _indented(f"kept in {result['folder']}")
            if result["problem"]:
                lines += _indented(result["problem"])
            failure = result["failure"]
            if failure:
                lines += _indented(f"step {failure['step']} of {result['steps']}: {failure['operation']}")
                lines += [line for difference in failure["differences"] for line in _indented(difference)]
                said = (failure.get("stderr") or "").strip().splitlines()
                if said:  # often the cause (an adapter that cannot read what it was given)
                    lines += _indented(f"its stderr ends: {said[-1][:300]}")
    lines.append(summary["summary"])
    lines += _verdict(summary)
    return "\n".join(lines)


def _verdict(summary: dict[str, Any]) -> list[str]:
    """After a failure, which tier failed: the seed's required cases, or only this suite's own
    conventions (which a runtime need not keep). Nothing when every case passed."""
    if "required" not in summary or summary["passed"] == summary["cases"]:
        return []
    required_failed = summary["required"] - summary["requiredPassed"]
    suite_failed = summary["suite"] - summary["suitePassed"]
    if required_failed:
        return [f"{required_failed} of the seed's required cases failed: the runtime breaks the seed"]
    ran = "every case the seed requires passed" if summary["required"] else "no case the seed requires ran"
    return [f"{ran}; {suite_failed} of this suite's own conventions did not (a runtime need not keep them)"]


def _indented(text: str) -> list[str]:
    """The text under its rule, every line of it (an adapter's stdout quoted in a difference may
    run over several)."""
    return [f"        {line}".rstrip() for line in text.splitlines() or [""]]


def _tier_order(tier: str) -> int:
    return TIERS.index(tier) if tier in TIERS else len(TIERS)
