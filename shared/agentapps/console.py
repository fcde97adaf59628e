"""The `agentapps` program: the console script, and `python -m agentapps`.

pydantic's plugins go off first, before any of the toolkit's modules builds a model, as in every
app (agentic_kit/plugins_off.py says why): finding them imports importlib.metadata and reads every
installed distribution's entry points, about a tenth of each call's CPU. Only in the program's own
process: one that imports the toolkit (a test run through the harness's pytest plugin, a runtime
built on the toolkit) keeps its plugins.
"""

import agentic_kit.plugins_off  # noqa: F401 - first: cli's imports build models
from agentapps.cli import main

__all__ = ["main"]
