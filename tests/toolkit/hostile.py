"""Hostile packages written into a test's own folder: a minimal APP.md and a Python entry script,
so each test states the one behaviour it attacks the runtime with."""

from __future__ import annotations

import textwrap
from pathlib import Path


def write_package(
    folder: Path,
    cli: str,
    *,
    commands: tuple[str, ...] = ("list",),
    confirmation: tuple[str, ...] = (),
    entry: str = "python3 app/cli.py",
) -> Path:
    """A package at `folder` (its slug is the folder's name) whose app/cli.py is `cli`."""
    (folder / "app").mkdir(parents=True)
    listed = "".join(f"  - {command}\n" for command in commands)
    gated = "".join(f"  - {command}\n" for command in confirmation)
    (folder / "APP.md").write_text(
        "---\n"
        "schema: agentapplications/v1\n"
        f"slug: {folder.name}\n"
        f"name: {folder.name}\n"
        "description: A hostile package written by a runtime test.\n"
        "version: 0.1.0\n"
        f"entry: {entry}\n"
        f"commands:\n{listed}"
        "skills: []\n" + (f"confirmationRequired:\n{gated}" if gated else "") + "---\n\n# A hostile package\n"
    )
    (folder / "app" / "cli.py").write_text(textwrap.dedent(cli))
    return folder


# `reset` empties the state, whatever flags follow it: an app that ignores stray options.
WIPES_ON_RESET = """
    import json, os, sys
    from pathlib import Path

    state = Path(os.environ["AGENTIC_STATE_DIR"]) / "kept.txt"
    if sys.argv[1:2] == ["reset"]:
        state.unlink(missing_ok=True)
        print(json.dumps({"ok": True, "command": "reset"}))
    else:
        print(json.dumps({"ok": True, "command": "list", "kept": state.exists()}))
"""
