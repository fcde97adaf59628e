"""The author's API: an entry script imports what it uses from the kit's facade (`agentic_kit`), a
small set of names, each loaded from its module only when asked for; the app declares its state
once and the kit opens the store; the kit's modules import one another without a cycle."""

from __future__ import annotations

import ast
import json
import subprocess
import sys
from pathlib import Path

import pytest

import agentic_kit
from agentic_kit import settings
from agentic_kit.store import StateStore, VersionedState

SUITE = Path(__file__).resolve().parents[2]
KIT = SUITE / "shared" / "agentic_kit"
MAX_FACADE_NAMES = 25
ENTRY_SCRIPTS = {
    **{name: SUITE / name / "app" / "cli.py" for name in ("agentic-to-do", "agentic-notes", "agentic-timer")},
    "template": SUITE / "shared" / "agentapps" / "templates" / "package" / "app" / "cli.py",
}


def _kit_imports(script: Path) -> list[tuple[str, str]]:
    """Each (module, name) the script imports from the kit, in order."""
    found = []
    for node in ast.walk(ast.parse(script.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and (node.module or "").partition(".")[0] == "agentic_kit":
            found += [(node.module or "", alias.name) for alias in node.names]
        elif isinstance(node, ast.Import):
            found += [
                (alias.name, "") for alias in node.names if alias.name.partition(".")[0] == "agentic_kit"
            ]
    return found


@pytest.mark.parametrize("script", ENTRY_SCRIPTS.values(), ids=list(ENTRY_SCRIPTS))
def test_an_entry_script_imports_at_most_25_names_and_only_from_the_facade(script: Path) -> None:
    imported = _kit_imports(script)
    # The preamble's two imports come first, by their modules, and are no part of what the app
    # uses: pydantic's plugins off (tests/apps/test_start_up.py requires it first), then the check
    # of the dependencies, which runs before typer can be imported (see the test below).
    assert imported[:2] == [PLUGINS_OFF, PREAMBLE]
    imported = imported[2:]
    assert imported
    assert {module for module, _ in imported} == {"agentic_kit"}
    assert len({name for _, name in imported}) <= MAX_FACADE_NAMES


PREAMBLE = ("agentic_kit.requirements", "exit_unless_installed")
PLUGINS_OFF = ("agentic_kit.plugins_off", "")


@pytest.mark.parametrize("script", ENTRY_SCRIPTS.values(), ids=list(ENTRY_SCRIPTS))
def test_an_entry_script_checks_its_dependencies_before_it_imports_any(script: Path) -> None:
    """Only the standard library and the kit's stdlib-only check run before `import typer`."""
    body = ast.parse(script.read_text(encoding="utf-8")).body
    typer_at = next(
        index
        for index, node in enumerate(body)
        if isinstance(node, ast.Import) and [alias.name for alias in node.names] == ["typer"]
    )
    before = body[:typer_at]
    check = next(
        index
        for index, node in enumerate(before)
        if isinstance(node, ast.ImportFrom)
        and (node.module, [alias.name for alias in node.names]) == (PREAMBLE[0], [PREAMBLE[1]])
    )
    assert "exit_unless_installed()" in ast.unparse(before[check + 1])
    preamble = {PREAMBLE[0], PLUGINS_OFF[0]}  # the kit's two, each importing the standard library only
    for node in before:
        if isinstance(node, ast.Import | ast.ImportFrom):
            names = [node.module or ""] if isinstance(node, ast.ImportFrom) else [a.name for a in node.names]
            names = [name for name in names if name not in preamble]
            assert all(name.partition(".")[0] in sys.stdlib_module_names for name in names), names
    for module in preamble:
        source = KIT / f"{module.rpartition('.')[2]}.py"
        for found in ast.walk(ast.parse(source.read_text(encoding="utf-8"))):
            if isinstance(found, ast.Import | ast.ImportFrom) and not getattr(found, "level", 0):
                names = (
                    [found.module or ""]
                    if isinstance(found, ast.ImportFrom)
                    else [a.name for a in found.names]
                )
                assert all(
                    name.partition(".")[0] in {*sys.stdlib_module_names, "__future__"} for name in names
                ), (
                    module,
                    names,
                )


@pytest.mark.parametrize("script", ENTRY_SCRIPTS.values(), ids=list(ENTRY_SCRIPTS))
def test_an_entry_script_declares_its_state_once_and_builds_no_store(script: Path) -> None:
    text = script.read_text(encoding="utf-8")
    tree = ast.parse(text)
    assert "def store(" not in text
    assert not [node for node in ast.walk(tree) if isinstance(node, ast.Name) and node.id == "StateStore"]
    calls = [
        node
        for node in ast.walk(tree)
        if isinstance(node, ast.Call)
        and isinstance(node.func, ast.Name | ast.Attribute)
        and (node.func.id if isinstance(node.func, ast.Name) else node.func.attr) == "new_app"
    ]
    assert len(calls) == 1
    assert {"state", "state_file", "state_env"} <= {keyword.arg for keyword in calls[0].keywords}


def test_every_facade_name_is_its_modules_own_object() -> None:
    for name, home in agentic_kit._HOMES.items():
        module = __import__(f"agentic_kit.{home}", fromlist=[name])
        assert getattr(agentic_kit, name) is getattr(module, name), name
    assert set(agentic_kit._HOMES) <= set(dir(agentic_kit))


def test_a_name_the_facade_does_not_have_is_an_attribute_error_and_a_module_still_imports() -> None:
    with pytest.raises(AttributeError, match="has no attribute 'no_such_name'"):
        agentic_kit.no_such_name  # noqa: B018 - the access is the test
    from agentic_kit import batch  # a module of the kit, not a facade name

    assert batch.__name__ == "agentic_kit.batch"


def _modules_after(code: str) -> list[str]:
    """The kit's modules loaded in a fresh interpreter after `code`, with a package's copy first on
    the path, as an entry script has it."""
    probe = (
        f"import sys; sys.path.insert(0, {str(SUITE / 'agentic-to-do' / 'app')!r}); {code}; "
        "import json; print(json.dumps(sorted(m for m in sys.modules if m.startswith('agentic_kit'))))"
    )
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    return list(json.loads(done.stdout))


def test_importing_the_facade_loads_no_module_and_a_name_loads_only_its_own() -> None:
    """A cold interpreter each: what a command's start-up loads is the point."""
    assert _modules_after("import agentic_kit") == ["agentic_kit"]
    from_the_facade = _modules_after("from agentic_kit import Payload")
    assert from_the_facade == _modules_after("from agentic_kit.envelope import Payload")
    assert not {"agentic_kit.app", "agentic_kit.runner"} & set(from_the_facade)


def _kit_import_graph() -> dict[str, set[str]]:
    """Each kit module and the kit modules it imports, at any level (a function's lazy import too,
    a type checker's too): a cycle through any of them is a cycle."""
    graph: dict[str, set[str]] = {}
    for path in sorted(KIT.glob("*.py")):
        imported: set[str] = set()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and node.level == 1:
                if node.module:
                    imported.add(node.module.partition(".")[0])
                else:
                    imported |= {alias.name for alias in node.names}
        graph[path.stem] = imported - {"__init__"}
    return graph


def test_no_kit_module_imports_itself_through_others() -> None:
    graph = _kit_import_graph()
    assert "describe" in graph["app"]  # a function's own import is in the graph too
    done: set[str] = set()

    def visit(module: str, path: tuple[str, ...]) -> None:
        assert module not in path, f"import cycle: {' -> '.join((*path, module))}"
        if module in done:
            return
        for imported in sorted(graph.get(module, set())):
            visit(imported, (*path, module))
        done.add(module)

    for module in graph:
        visit(module, ())


def test_every_kit_module_imports_first_and_alone() -> None:
    """What the graph cannot see (an import by the package's name, one made while running) fails
    here: each module is imported as the kit's first, the others unloaded before it."""
    probe = (
        "import importlib, sys\n"
        f"sys.path.insert(0, {str(SUITE / 'shared')!r})\n"
        f"for name in {sorted(path.stem for path in KIT.glob('*.py') if path.stem != '__init__')!r}:\n"
        "    for loaded in [m for m in sys.modules if m.partition('.')[0] == 'agentic_kit']:\n"
        "        del sys.modules[loaded]\n"
        "    importlib.import_module('agentic_kit.' + name)\n"
    )
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=False)
    assert (done.returncode, done.stderr) == (0, "")


class _Counter(VersionedState):
    pass


def test_a_run_reads_its_settings_once_and_a_store_outside_a_run_reads_them_afresh(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("AGENTIC_LOCK_TIMEOUT", "5")
    with settings.one_run() as run:
        first = settings.current_run().settings()
        monkeypatch.setenv("AGENTIC_LOCK_TIMEOUT", "7")  # the run keeps what it read
        assert settings.current_run() is run
        assert settings.current_run().settings() is first
        assert first.lock_timeout == 5.0
    assert settings.current_run() is not run
    assert settings.current_run().settings().lock_timeout == 7.0


@pytest.mark.parametrize(
    ("name", "value"),
    [("AGENTIC_NOW", "soon"), ("AGENTIC_LOCK_TIMEOUT", "-1"), ("AGENTIC_TZ", "Mars/Olympus")],
)
def test_each_setting_is_checked_when_read(monkeypatch: pytest.MonkeyPatch, name: str, value: str) -> None:
    monkeypatch.setenv(name, value)
    with pytest.raises(agentic_kit.AppError) as refused:
        settings.Settings.read()
    assert (refused.value.code, refused.value.exit_status) == ("VALIDATION_ERROR", 3)
    assert name in refused.value.message


def test_a_store_waits_for_the_lock_as_long_as_its_settings_say(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The store takes the lock timeout it was handed, not the environment's."""
    import filelock

    asked: list[float] = []
    real_lock = filelock.FileLock

    def recording_lock(path: str, timeout: float) -> filelock.BaseFileLock:
        asked.append(timeout)
        return real_lock(path, timeout=timeout)

    monkeypatch.setattr(filelock, "FileLock", recording_lock)
    monkeypatch.setenv("AGENTIC_LOCK_TIMEOUT", "30")
    run = settings.Run()
    store = StateStore(tmp_path / "state.json", _Counter, settings.Settings(lock_timeout=0.25), run)
    with store.transaction() as state:
        state.take_id()
    assert asked == [0.25]
    assert run.commits == 1
    with store.transaction():
        pass  # nothing changed: nothing committed
    assert run.commits == 1


def test_new_app_refuses_an_option_it_does_not_have_by_name() -> None:
    """new_app's options are typed (AppOptions): a misspelt one is a type error for mypy and, run
    anyway, a TypeError naming it, never an option silently dropped."""
    from pydantic import BaseModel

    class Item(BaseModel):
        id: str

    required: dict[str, object] = {
        "state": _Counter,
        "state_file": "counter.json",
        "state_env": "COUNTER_STATE_FILE",
        "entity": Item,
        "entity_name": "item",
        "summary": {"id": "{}"},
    }
    app = agentic_kit.new_app("A counter.", durations={"elapsedMs": "elapsed"}, **required)  # type: ignore[arg-type]
    assert app.durations == {"elapsedMs": "elapsed"}
    with pytest.raises(TypeError, match="list_itemz"):
        agentic_kit.new_app("A counter.", list_itemz=(Item,), **required)  # type: ignore[arg-type, call-arg]
