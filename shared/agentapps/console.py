"""The `agentapps` program: the console script, and `python -m agentapps`.

pydantic's plugins go off first, before any of the toolkit's modules builds a model, as in every
app (agentic_kit/plugins_off.py says why): finding them imports importlib.metadata and reads every
installed distribution's entry points, about a tenth of each call's CPU. Only in the program's own
process: one that imports the toolkit (a test run through the harness's pytest plugin, a runtime
built on the toolkit) keeps its plugins, and its own SIGINT.
"""

import _signal  # type: ignore[import-not-found]  # `signal`'s C core: it loads no Python code

# Before the imports, which take a while: a SIGINT meanwhile ends the program quietly, as SIGTERM
# does, not with a KeyboardInterrupt traceback (found by an outside review); as every app does
# (agentic_kit/interrupts.py). Nothing has started by then. A background job's SIGINT stays ignored.
if _signal.getsignal(_signal.SIGINT) is _signal.default_int_handler:
    _signal.signal(_signal.SIGINT, _signal.SIG_DFL)

import agentic_kit.plugins_off  # noqa: F401 - first of the rest: cli's imports build models
from agentapps.cli import main

__all__ = ["main"]
