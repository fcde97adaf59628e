"""The contract between an app and the toolkit: sync and the harness read only the entry script's
`app`, made by the kit's `new_app`, which carries the models, the schema file's name and
the --human summary. Nothing else of the script's module is read."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

from agentapps.harness import AppRunner
from agentapps.sync import package_app

from .conftest import SUITE


def _agentapps(*args: str) -> tuple[int, dict[str, Any]]:
    """`agentapps` as its own process: a package's script is loaded once per process, and these
    tests change it between calls."""
    done = subprocess.run(
        [str(Path(sys.executable).parent / "agentapps"), *args], capture_output=True, text=True, check=False
    )
    return done.returncode, json.loads(done.stdout)


def _new(tmp_path: Path) -> Path:
    assert _agentapps("new", "bookmarks", "--dir", str(tmp_path))[0] == 0
    return tmp_path / "bookmarks"


def _edit(path: Path, old: str, new: str) -> None:
    text = path.read_text()
    assert old in text, f"{path} no longer holds {old!r}"
    path.write_text(text.replace(old, new))


def _sync(package: Path) -> tuple[int, dict[str, Any]]:
    return _agentapps("sync", str(package), "--approve")


def test_each_app_carries_its_models_and_its_schema_names() -> None:
    carried = {
        name: (
            app.entity.__name__ if app.entity else None,
            app.entity_name,
            [m.__name__ for m in app.list_items],
        )
        for name in ("agentic-to-do", "agentic-notes", "agentic-timer")
        for app in [package_app(SUITE / name)]
    }
    assert carried == {
        "agentic-to-do": ("TodoItem", "todo-item", []),
        "agentic-notes": ("Note", "note", ["NoteSummary", "SearchHit", "TagCount"]),
        "agentic-timer": ("TimerView", "timer-view", []),
    }
    for name, (_, entity_name, _) in carried.items():
        assert (SUITE / name / "schemas" / f"{entity_name}.schema.json").is_file()


def test_an_app_importing_the_kit_under_another_name_runs_in_process(tmp_path: Path) -> None:
    package = _new(tmp_path)
    cli = package / "app" / "cli.py"
    _edit(cli, "import typer\n", "import typer\n\nimport agentic_kit as kit\n")
    _edit(cli, "\napp = new_app(", "\napp = kit.new_app(")
    added = AppRunner(package, tmp_path / "state").run("add", "https://example.org")
    assert (added.exit_status, added.item["id"]) == (0, "en_0001")


def test_the_schema_file_is_named_by_the_app_not_by_its_class(tmp_path: Path) -> None:
    package = _new(tmp_path)
    _edit(package / "app" / "cli.py", 'entity_name="entry",', 'entity_name="bookmark",')
    status, envelope = _sync(package)
    done = envelope["items"][0]
    assert status == 0
    assert "schemas/bookmark.schema.json" in done["written"]
    assert done["removed"] == ["schemas/entry.schema.json"]  # generated once, unchanged, no longer
    schema = json.loads((package / "schemas" / "bookmark.schema.json").read_text())
    assert schema["title"] == "One bookmark as every command returns it"


def test_an_entry_script_without_a_kit_app_is_refused_by_sync_and_changes_nothing(tmp_path: Path) -> None:
    package = _new(tmp_path)
    _edit(package / "app" / "cli.py", "\napp = new_app(", "\nmain_app = new_app(")
    (package / "app" / "cli.py").write_text(
        (package / "app" / "cli.py")
        .read_text()
        .replace("@app.", "@main_app.")
        .replace(" app.", " main_app.")
        .replace("\napp.", "\nmain_app.")
    )
    before = sorted((package / "schemas").iterdir())
    status, envelope = _sync(package)
    assert (status, envelope["error"]["code"]) == (10, "PACKAGE_INVALID")
    assert "no `app` made by the kit's new_app" in envelope["error"]["message"]
    assert sorted((package / "schemas").iterdir()) == before
