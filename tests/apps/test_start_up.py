"""What a command loads at start-up, and in what order: structural facts only (speed itself is
measured by `nox -s bench`, never asserted in a test)."""

from __future__ import annotations

import ast
import gc
import json
import subprocess
import sys
from pathlib import Path

import pytest

from agentapps.harness import AppRunner
from tests.packages import APPS, AppFacts


def loading_probe(run: str, program: str, watched: str) -> str:
    """A program for a fresh interpreter: `run` (one statement) runs as `program` would, given the
    command's words and its SystemExit caught; then stderr gets, as a JSON list, the names of the
    loaded modules that `watched` (an expression over `name`) picks."""
    return f"""
import json, runpy, sys
sys.argv = [{program!r}, *sys.argv[1:]]
try:
    {run}
except SystemExit:
    pass
print(json.dumps(sorted(name for name in sys.modules if {watched})), file=sys.stderr)
"""


RUN_THE_APP = 'runpy.run_path("app/cli.py", run_name="__main__")'
PROBE = loading_probe(
    RUN_THE_APP, "app/cli.py", 'name.split(".")[0] in {"filelock", "rich", "jsonschema", "yaml"}'
)


def probed(app: AppRunner, probe: str, args: tuple[str, ...]) -> subprocess.CompletedProcess[str]:
    """`probe` run by a fresh interpreter in the package's folder, given the command's words."""
    completed = subprocess.run(
        [sys.executable, "-c", probe, *args],
        cwd=app.package.root,
        env={"AGENTIC_STATE_DIR": str(app.state_dir), "PATH": ""},
        capture_output=True,
        text=True,
        check=False,
    )
    assert completed.returncode == 0, completed.stdout + completed.stderr
    return completed


def modules_loaded(app: AppRunner, args: tuple[str, ...]) -> list[str]:
    completed = probed(app, PROBE, args)
    loaded: list[str] = json.loads(completed.stderr.strip().splitlines()[-1])
    return loaded


@pytest.mark.parametrize("command", ["read", "write"])
def test_only_writes_import_filelock_and_nothing_imports_rich(
    app: AppRunner, facts: AppFacts, command: str
) -> None:
    app.run(*facts.write)
    loaded = modules_loaded(app, facts.read if command == "read" else facts.write)
    assert [name for name in loaded if name.split(".")[0] in {"rich", "jsonschema", "yaml"}] == []
    assert any(name.startswith("filelock") for name in loaded) == (command == "write")


ENTRY_SCRIPTS = [
    *(Path(__file__).resolve().parents[2] / facts.package / "app" / "cli.py" for facts in APPS),
    Path(__file__).resolve().parents[2] / "shared" / "agentapps" / "templates" / "package" / "app" / "cli.py",
]


@pytest.mark.parametrize("script", ENTRY_SCRIPTS, ids=lambda path: str(path.parents[1].name))
def test_sigint_is_set_to_end_the_run_quietly_before_any_other_import(script: Path) -> None:
    """Whatever runs before it is a window in which a SIGINT is Python's (a KeyboardInterrupt on
    stderr): nothing but the docstring and the import of the signal module itself (`_signal`: no
    Python code to load) may come first — not even `from __future__ import annotations`."""
    docstring, first, second = ast.parse(script.read_text()).body[:3]
    assert isinstance(docstring, ast.Expr)
    assert isinstance(docstring.value, ast.Constant)
    assert isinstance(first, ast.Import)
    assert [alias.name for alias in first.names] == ["_signal"]
    assert isinstance(second, ast.If)
    assert "_signal.signal(_signal.SIGINT, _signal.SIG_DFL)" in ast.unparse(second)


PLUGIN = "probe_pydantic_plugin"
# The installed plugin, and what finding plugins imports.
PLUGIN_LOADERS = f'name in ("{PLUGIN}", "importlib.metadata")'
LOADED = loading_probe(RUN_THE_APP, "app/cli.py", PLUGIN_LOADERS)


def installed_plugin(folder: Path) -> Path:
    """A folder holding a distribution with a pydantic plugin, as pip would install one: on the
    path, pydantic finds it by its entry point; loaded, it says so on stderr."""
    info = folder / "probe_pydantic_plugin-1.0.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: probe-pydantic-plugin\nVersion: 1.0\n")
    (info / "entry_points.txt").write_text(f"[pydantic]\nprobe = {PLUGIN}:plugin\n")
    (folder / f"{PLUGIN}.py").write_text(
        "import sys\nprint('the plugin is loaded', file=sys.stderr)\n"
        "class Plugin:\n"
        "    def new_schema_validator(self, *args, **kwargs):\n"
        "        return None, None, None\n"
        "plugin = Plugin()\n"
    )
    return folder


def test_a_model_built_elsewhere_loads_an_installed_pydantic_plugin(tmp_path: Path) -> None:
    """The plugin below is one pydantic loads: what the next test shows the apps never do."""
    completed = subprocess.run(
        [sys.executable, "-c", "import pydantic\nclass M(pydantic.BaseModel):\n    a: int\n"],
        env={"PYTHONPATH": str(installed_plugin(tmp_path / "site")), "PATH": ""},
        capture_output=True,
        text=True,
        check=True,
    )
    assert completed.stderr == "the plugin is loaded\n"


@pytest.mark.parametrize("command", ["read", "write"])
def test_no_command_loads_pydantic_plugins_nor_their_loader(
    app: AppRunner, facts: AppFacts, command: str, tmp_path: Path
) -> None:
    """An app's validation is its own (agentic_kit/plugins_off.py): an installed plugin is not
    loaded, and neither is importlib.metadata, which finding plugins costs every cold call."""
    app.run(*facts.write)
    args = facts.read if command == "read" else facts.write
    # One moment for both runs: a timer's reading is its elapsed time.
    env = {"AGENTIC_STATE_DIR": str(app.state_dir), "AGENTIC_NOW": "2026-04-02T00:00:00Z", "PATH": ""}
    plain = subprocess.run(
        [sys.executable, "app/cli.py", *args], cwd=app.package.root, env=env, capture_output=True
    )
    env["PYTHONPATH"] = str(installed_plugin(tmp_path / "site"))
    completed = subprocess.run(
        [sys.executable, "-c", LOADED, *args], cwd=app.package.root, env=env, capture_output=True, text=True
    )
    assert completed.returncode == plain.returncode == 0
    *said, loaded = completed.stderr.splitlines()
    assert said == []  # no plugin said it was loaded
    assert json.loads(loaded) == []
    if command == "read":  # the same answer, byte for byte, as without the plugin installed
        assert completed.stdout.encode() == plain.stdout


@pytest.mark.parametrize("script", ENTRY_SCRIPTS, ids=lambda path: str(path.parents[1].name))
def test_plugins_are_turned_off_before_anything_can_build_a_model(script: Path) -> None:
    """The first import after `os`, `sys` and the path: before typer, the kit and the app's own
    package, whose models (and typer's parsers) pydantic would build with its plugins."""
    imports = [
        node for node in ast.parse(script.read_text()).body if isinstance(node, ast.Import | ast.ImportFrom)
    ]
    names = [
        alias.name if isinstance(node, ast.Import) else node.module
        for node in imports
        for alias in node.names
    ]
    assert names[:4] == ["_signal", "os", "sys", "agentic_kit.plugins_off"]


COLLECTOR_PROBE = """
import atexit, gc, runpy, sys
atexit.register(lambda: print("collector", "on" if gc.isenabled() else "off", file=sys.stderr))
sys.argv = ["app/cli.py", *sys.argv[1:]]
runpy.run_path("app/cli.py", run_name="__main__")
"""


@pytest.mark.parametrize("command", ["read", "write"])
def test_a_run_as_the_program_turns_the_cycle_collector_off_and_an_importer_keeps_its_own(
    app: AppRunner, facts: AppFacts, command: str
) -> None:
    """Run as the program (`__main__`), the entry script turns the collector off before the
    modules load, for the rest of the process; a process that imports it (this test's, through
    the in-process harness) keeps the collector as it was."""
    args = facts.read if command == "read" else facts.write
    completed = probed(app, COLLECTOR_PROBE, args)
    assert json.loads(completed.stdout)["ok"] is True
    assert completed.stderr.splitlines()[-1] == "collector off"
    assert app.run(*args).envelope["ok"] is True
    assert gc.isenabled()


@pytest.mark.parametrize("script", ENTRY_SCRIPTS, ids=lambda path: str(path.parents[1].name))
def test_the_collector_is_turned_off_before_typer_loads(script: Path) -> None:
    body = ast.parse(script.read_text()).body
    typer_at = next(
        index
        for index, node in enumerate(body)
        if isinstance(node, ast.Import) and [alias.name for alias in node.names] == ["typer"]
    )
    guarded = [ast.unparse(node) for node in body[:typer_at] if isinstance(node, ast.If)]
    assert "if __name__ == '__main__':\n    gc.disable()" in guarded
