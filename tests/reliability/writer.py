"""A writer process for the reliability tests: it loads one app (in this process, once) and
makes a seeded sequence of writes, printing each envelope on its own line as soon as the write
is acknowledged — exactly what an agent would have seen.

    python writer.py PACKAGE_DIR SEED COUNT (mixed|add-update)

`mixed` cycles through the app's create, update, finish and remove commands on the entities this
writer created; `add-update` only creates and updates (for the crash test, where every printed
write must survive).

    python writer.py PACKAGE_DIR serve

loads the app once, then for each line `start SEED COUNT MODE FIFO` on stdin forks a writer that
prints to the FIFO and answers its pid, and for each `reap PID` waits for that writer to end and
answers its wait status: the crash test kills 25 writers in a row, and a fork is a writer at once,
where a new interpreter would first spend its start-up on imports before its first write.
"""

from __future__ import annotations

import contextlib
import importlib
import io
import json
import os
import random
import sys
import traceback
from collections.abc import Callable
from pathlib import Path
from typing import Any

from agentapps.package import Package, load_entry_module

# Per app: how to create an entity, and the writes that can follow on one of its entities.
CREATE: dict[str, Callable[[int], list[str]]] = {
    "agentic-to-do": lambda n: ["add", f"task {n}", "--description", f"made by write {n}"],
    "agentic-notes": lambda n: ["add", f"note {n}", "--body", f"body {n}", "--tag", "load"],
    "agentic-timer": lambda n: ["start", f"timer {n}", "--duration", "1h"],
}
FOLLOW_UPS: dict[str, list[Callable[[str, int], list[str]]]] = {
    "agentic-to-do": [
        lambda id_, n: ["update", id_, "--title", f"task renamed by write {n}"],
        lambda id_, n: ["complete", id_],
        lambda id_, n: ["reopen", id_],
        lambda id_, n: ["remove", id_, "--confirm"],
    ],
    "agentic-notes": [
        lambda id_, n: ["update", id_, "--body", f"body rewritten by write {n}"],
        lambda id_, n: ["tag", id_, f"w{n}"],
        lambda id_, n: ["append", id_, f"line {n}"],
        lambda id_, n: ["remove", id_, "--confirm"],
    ],
    "agentic-timer": [],  # chosen by the timer's status instead: see timer_follow_up
}
# The moves a timer allows in each status, so every write is a real one, never a CONFLICT.
TIMER_MOVES = {"running": ["pause", "stop"], "paused": ["resume", "stop"], "stopped": ["remove"]}
UPDATE_ONLY: dict[str, Callable[[str, int], list[str]]] = {
    "agentic-to-do": lambda id_, n: ["update", id_, "--title", f"title {n}"],
    "agentic-notes": lambda id_, n: ["update", id_, "--title", f"title {n}"],
    "agentic-timer": lambda id_, n: ["stop", id_],
}


def run(module: Any, args: list[str]) -> dict[str, Any]:
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        # The runner of the kit the app was made by (its vendored copy): beside its class's module.
        kit = type(module.app).__module__.rpartition(".")[0]
        importlib.import_module(f"{kit}.runner").run(module.app, args)
    envelope: dict[str, Any] = json.loads(out.getvalue())
    return envelope


def main(package_dir: str, seed: int, count: int, mode: str) -> None:
    package = Package(Path(package_dir))
    write(package.root.name, load_entry_module(package), seed, count, mode)


def serve(package_dir: str) -> None:
    package = Package(Path(package_dir))
    module = load_entry_module(package)
    for line in sys.stdin:
        match line.split():
            case ["start", seed, count, mode, fifo]:
                pid = os.fork()
                if pid == 0:  # the writer; it never returns to this loop
                    os._exit(forked_writer(package.root.name, module, int(seed), int(count), mode, fifo))
                print(pid, flush=True)
            case ["reap", pid]:
                _, status = os.waitpid(int(pid), 0)
                print(status, flush=True)


def forked_writer(slug: str, module: Any, seed: int, count: int, mode: str, fifo: str) -> int:
    """A forked writer's run, the FIFO its stdout: its exit status (it ends when its writes do,
    unless it is killed first; a failure is printed on stderr and ends it with 1)."""
    try:
        os.dup2(os.open(fifo, os.O_WRONLY), sys.stdout.fileno())
        write(slug, module, seed, count, mode)
        sys.stdout.flush()
    except BaseException:  # noqa: BLE001 - said on stderr; the test sees the status
        traceback.print_exc()
        return 1
    return 0


def write(slug: str, module: Any, seed: int, count: int, mode: str) -> None:
    rng = random.Random(seed)
    mine: dict[str, dict[str, Any]] = {}  # what this writer last saw of each entity it made
    for n in range(count):
        if not mine or rng.random() < 0.35:
            args = CREATE[slug](n)
        elif mode == "add-update":
            args = UPDATE_ONLY[slug](rng.choice(list(mine)), n)
        elif slug == "agentic-timer":
            target = rng.choice(list(mine))
            move = rng.choice(TIMER_MOVES[mine[target]["status"]])
            args = [move, target, "--confirm"] if move == "remove" else [move, target]
        else:
            args = rng.choice(FOLLOW_UPS[slug])(rng.choice(list(mine)), n)
        envelope = run(module, args)
        print(json.dumps({"args": args, "envelope": envelope}), flush=True)
        if not envelope["ok"]:
            continue
        if args[0] == "remove":
            del mine[args[1]]
        else:
            mine[envelope["item"]["id"]] = envelope["item"]


if __name__ == "__main__":
    if sys.argv[2:] == ["serve"]:
        serve(sys.argv[1])
    else:
        main(sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4])
