"""Helpers for the reliability tests: the writer and reader processes, and reading a state file."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

from agentapps.environment import without_agentic

HERE = Path(__file__).resolve().parent


def child_environment(state_dir: Path, **extra: str) -> dict[str, str]:
    return {**without_agentic(), "AGENTIC_STATE_DIR": str(state_dir), **extra}


def start_writer(
    package: Path, env: dict[str, str], seed: int, count: int, mode: str
) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, str(HERE / "writer.py"), str(package), str(seed), str(count), mode],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def acknowledged(output: str) -> list[dict[str, Any]]:
    """The writes a writer printed in full: a line cut short by a kill was never acknowledged."""
    return [json.loads(line) for line in output.splitlines(keepends=True) if line.endswith("\n")]


def stored_entities(state_file: Path) -> tuple[dict[str, Any], dict[str, dict[str, Any]]]:
    """The state document, and its entities by id (whatever the app calls its list)."""
    document = json.loads(state_file.read_bytes())
    entities = next(value for value in document.values() if isinstance(value, list))
    return document, {entity["id"]: entity for entity in entities}


def id_number(entity_id: str) -> int:
    return int(entity_id.split("_")[1])
