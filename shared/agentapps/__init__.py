"""agentapps: the suite's toolkit — manifests, a reference runtime, the pytest harness, sync."""

# Before any of the toolkit's modules builds a model: pydantic's plugins off, as in every app
# (agentic_kit/plugins_off.py says why). Finding them imports importlib.metadata and reads every
# installed distribution's entry points, about a tenth of each `agentapps` call's CPU.
import agentic_kit.plugins_off  # noqa: F401
