"""Pydantic plugins off in an app's process, imported by the entry script before any model is built.

pydantic asks `pydantic.plugin._loader.get_plugins()` for the plugins each time it builds a
validator (each model; each option typer parses); the first ask imports `importlib.metadata`
(email, zipfile, csv, ...) and reads the entry points of every installed distribution: about a
tenth of a cold call's CPU, in every call. Its only public switch, `PYDANTIC_DISABLE_PLUGINS`,
skips the reading but not the import, and is the environment's, not the app's.

Off, because an app's answers are its own and must not depend on what else is installed beside
it: a plugin (an experimental pydantic API; logfire's is the one in use) only observes
validation, so a user who has one installed loses its record of the app's validations, and no
longer sees, on the app's stderr, the warning a plugin that fails to load prints, nor an error
its handlers raise inside the app's validation.

So this module stands in for `pydantic.plugin._loader` before pydantic loads it: `get_plugins`
answers none. Any other name pydantic may ask of that private module loads the real one in its
place (plugins then on, as without this module): a pydantic that changes it still runs, at the
old cost. Once the real module is loaded (plugins already found), it is left as it is.
"""

from __future__ import annotations

import importlib
import sys
import types
from typing import Any

LOADER = "pydantic.plugin._loader"


def _get_plugins(*_: object, **__: object) -> tuple[()]:
    return ()


def _real(name: str) -> Any:
    """The real loader's `name`, the real loader taking this module's place."""
    if name.startswith("__"):  # what the import system and others probe (`__path__`, `__file__`)
        raise AttributeError(name)
    if sys.modules.get(LOADER) is _STAND_IN:
        del sys.modules[LOADER]
    return getattr(importlib.import_module(LOADER), name)


_STAND_IN = types.ModuleType(LOADER, "pydantic plugins off (agentic_kit.plugins_off)")
_STAND_IN.get_plugins = _get_plugins  # type: ignore[attr-defined]
_STAND_IN.__getattr__ = _real  # type: ignore[method-assign]  # PEP 562: any other name
sys.modules.setdefault(LOADER, _STAND_IN)
