"""The package-author guide (docs/authoring.md), run as written: every `sh` line, in order and in one shell
(as a newcomer pastes them), from one empty folder, with the step-4 edit made from the guide's own
Python snippet and step 5's scenario saved as the guide says. It cannot drift."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

from agentapps.environment import without_agentic

ROOT = Path(__file__).resolve().parents[1]


def guide() -> str:
    return (ROOT / "docs" / "authoring.md").read_text()


def blocks(language: str) -> list[str]:
    return re.findall(rf"```{language}\n(.*?)```", guide(), flags=re.DOTALL)


def add_the_get_command(package: Path) -> None:
    """Steps 4 and 5 as a newcomer does them: the snippet into app/cli.py, `get` into APP.md, and
    a scenario for it."""
    [snippet] = [block for block in blocks("python") if "def get(" in block]
    cli = package / "app" / "cli.py"
    # Where the guide says: just above `app.prepare()`, the one line that starts so.
    text = cli.read_text()
    assert text.count("\napp.prepare()") == 1
    cli.write_text(text.replace("\napp.prepare()", "\n" + snippet + "\n\napp.prepare()"))
    app_md = package / "APP.md"
    text = app_md.read_text().replace("  - list\n", "  - list\n  - get\n", 1)
    app_md.write_text(text.replace("### `remove", "### `get <id>`\nFetch one entry.\n\n### `remove", 1))
    [scenario] = blocks("json")  # step 5's scenario for `get`, saved where the guide says
    (package / "scenarios" / "get-returns-one-entry.json").write_text(scenario)


def test_the_guide_runs_as_written(tmp_path: Path) -> None:
    env = {
        **without_agentic(),
        "PATH": os.pathsep.join([str(Path(sys.executable).parent), os.environ.get("PATH", "")]),
    }
    lines = [line for block in blocks("sh") for line in block.strip().splitlines()]
    assert lines[0].startswith("agentapps new my-bookmarks")
    sync = next(number for number, line in enumerate(lines) if line.startswith("agentapps sync"))
    # In one shell, as pasted: a line that leaves the shell in another folder breaks the next.
    # The step-4 edits come before `agentapps sync`, so the lines run in two shells, and the first
    # must end in the folder it began in, as pasting it all at once would go on from there.
    for part in (lines[:sync], lines[sync:]):
        if part[0].startswith("agentapps sync"):
            add_the_get_command(tmp_path / "my-bookmarks")
        script = "\n".join(["set -ex", *part, "pwd"])
        completed = subprocess.run(
            ["bash", "-c", script], cwd=tmp_path, env=env, capture_output=True, text=True
        )
        assert completed.returncode == 0, f"{completed.stdout}\n{completed.stderr}"
        assert Path(completed.stdout.splitlines()[-1]).resolve() == tmp_path.resolve()
    got = subprocess.run(
        [sys.executable, "app/cli.py", "get", "en_0001"],
        cwd=tmp_path / "my-bookmarks",
        capture_output=True,
        text=True,
    )
    assert '"text":"https://example.org/long-read"' in got.stdout
