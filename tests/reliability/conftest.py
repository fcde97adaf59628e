"""Helpers for the reliability tests: the writer and reader processes, and reading a state file."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

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


@dataclass
class ForkedWriter:
    """A writer forked by `writer_forks`: its pid, its stdout (a FIFO) to read, and the writer
    process that forked it, which alone can wait for it."""

    pid: int
    stdout: IO[str]
    server: subprocess.Popen[str]

    def kill(self) -> str:
        """SIGKILL it and wait until it is gone; what it printed that was not read yet."""
        os.kill(self.pid, signal.SIGKILL)
        with self.stdout:
            rest = self.stdout.read()
        status = int(ask(self.server, f"reap {self.pid}"))
        assert os.WIFSIGNALED(status)
        assert os.WTERMSIG(status) == signal.SIGKILL  # killed, not ended (nor failed)
        return rest


def ask(server: subprocess.Popen[str], line: str) -> str:
    assert server.stdin is not None
    assert server.stdout is not None
    server.stdin.write(line + "\n")
    server.stdin.flush()
    return server.stdout.readline().strip()


@contextmanager
def writer_forks(package: Path, env: dict[str, str], fifos: Path) -> Iterator[Callable[..., ForkedWriter]]:
    """Writers forked from one writer process that has loaded the app (writer.py's serve):
    `start(seed, count, mode)` gives one, already started, as start_writer would."""
    server = subprocess.Popen(
        [sys.executable, str(HERE / "writer.py"), str(package), "serve"],
        env=env,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    made = 0

    def start(seed: int, count: int, mode: str) -> ForkedWriter:
        nonlocal made
        made += 1
        fifo = fifos / f"writer-{made}"
        os.mkfifo(fifo)
        pid = int(ask(server, f"start {seed} {count} {mode} {fifo}"))
        return ForkedWriter(pid, fifo.open(encoding="utf-8"), server)  # opened once the writer opens it

    try:
        yield start
    finally:
        assert server.stdin is not None
        server.stdin.close()
        assert server.wait(timeout=60) == 0


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
