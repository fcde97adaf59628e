"""Readable text for `agentapps --human`: catalogs as a table, check reports as findings, replays
as each failed step with its differences, conformance runs as rules passed and failed by tier."""

from __future__ import annotations

import json
import shlex
from typing import Any

from agentic_kit import human as kit_human
from agentic_kit.envelope import Envelope

# A document `run` relays is shown by the fields any app's item may have, in this order (each app
# names its own for its --human: new_app(..., summary=...)).
RELAYED_SUMMARY = {
    "id": "{}",
    "status": "[{}]",
    "kind": "[{}]",
    "title": "{}",
    "label": "{}",
    "dueAt": "due {}",
}


def render(envelope: Envelope) -> str:
    if not _suite_shaped(envelope):
        # A document `run` relays is the app's own: the format only recommends `ok` and a
        # structured error, and fixes nothing else. Shown as JSON, it is shown whole.
        return json.dumps(envelope, ensure_ascii=False, indent=2)
    command = envelope.get("command")
    reports = _reports(envelope)
    if command == "check" and reports is not None:
        return "\n".join(_report(report) for report in reports)
    if command == "replay" and reports is not None:
        return _replay(reports)
    if command == "conformance" and reports is not None:
        from .conformance.report import human_report

        summary = envelope["summary"] if envelope["ok"] else envelope["error"]["details"]["summary"]
        return human_report(summary, reports)
    if command == "sync" and envelope.get("ok"):
        return "\n".join(_sync_lines(entry) for entry in envelope["items"])
    if command == "catalog" and envelope.get("ok"):
        return "\n".join(_catalog_line(entry) for entry in envelope["items"]) or "(no packages)"
    return kit_human.render(envelope, RELAYED_SUMMARY)


def _suite_shaped(envelope: Any) -> bool:
    """Whether the kit's renderer can read it: the suite's failure, help, list or item envelope."""
    if not isinstance(envelope, dict) or not isinstance(envelope.get("ok"), bool):
        return False
    if envelope["ok"] is False:
        error = envelope.get("error")
        return (
            isinstance(error, dict)
            and all(isinstance(error.get(key), str) for key in ("code", "message"))
            and isinstance(error.get("hint", ""), str)
        )
    if "help" in envelope:
        return isinstance(envelope["help"], str)
    if "items" in envelope:
        items, count = envelope["items"], envelope.get("count")
        return (
            isinstance(items, list)
            and all(isinstance(item, dict) for item in items)
            and isinstance(count, int)
            and isinstance(envelope.get("total", 0), int)
        )
    return isinstance(envelope.get("item"), dict)


def _reports(envelope: Envelope) -> list[dict[str, Any]] | None:
    if envelope.get("ok"):
        return envelope.get("items")
    details = envelope.get("error", {}).get("details") or {}
    items = details.get("items")
    return items if isinstance(items, list) else None


def _report(report: dict[str, Any]) -> str:
    verdict = "PASS" if report["passed"] else "FAIL"
    errors = kit_human.plural(report["errors"], "error")
    counts = f"{errors}, {kit_human.plural(report['warnings'], 'warning')}"
    lines = [f"{verdict}  {report['source']}  ({counts})"]
    for finding in report["findings"]:
        lines.append(
            f"  {finding['severity']:<7} {finding['rule']:<22} {finding['message']}  "
            f"[{finding['where']}; rule of the {finding.get('basis', 'seed')}]"
        )
    return "\n".join(lines)


def _sync_lines(entry: dict[str, Any]) -> str:
    done = [f"wrote    {path}" for path in entry["written"]]
    done += [f"removed  {path}" for path in entry["removed"]]
    done += [f"kept     {path}" for path in entry.get("kept", [])]
    return "\n".join([entry["source"], *(f"  {line}" for line in done or ["up to date"])])


def _catalog_line(entry: dict[str, Any]) -> str:
    if entry["status"] != "ok":
        return f"{entry['status'].upper()}  {entry['source']}  {entry['problem']}"
    return f"{entry['slug'] or '-':<20} {entry['version']:<8} {entry['trust']:<10} {entry['source']}"


def _replay(reports: list[dict[str, Any]]) -> str:
    lines = []
    for report in reports:
        if report["passed"]:
            continue
        if report["problem"]:
            lines.append(f"FAIL  {report['path']}\n  {report['problem']}")
            continue
        failure = report["failure"]
        lines.append(
            f"FAIL  {report['path']}  step {failure['step']} of {report['steps']}: "
            + shlex.join(failure["args"])
        )
        lines += [f"  {difference}" for difference in failure["differences"]]
    passed = sum(1 for report in reports if report["passed"])
    lines.append(f"{passed} of {kit_human.plural(len(reports), 'scenario')} passed.")
    return "\n".join(lines)
