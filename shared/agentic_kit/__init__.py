"""The Agentic Applications kit: the runner, envelopes, errors, store, clock, IDs and dates.

This folder is the single source. Each package carries a byte-identical copy in its
``app/agentic_kit/`` (written by ``agentapps sync``), so that the package works on its own, and
beside it ``sync-record.json``: this version, a SHA-256 of the kit's files, and each file's own,
so that ``agentapps check`` can tell a copy that is stale or was edited by hand.

VERSION changes with what an app may rely on: 2.0 carries the app's models on the app
(``runner.new_app(help, entity=..., entity_name=..., summary=...)``).
"""

VERSION = "2.0"
