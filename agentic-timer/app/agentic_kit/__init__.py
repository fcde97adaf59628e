"""The Agentic Applications kit: envelopes, errors, store, clock, IDs and dates.

This folder is the single source. Each package carries a byte-identical copy in its
``app/agentic_kit/`` (written by ``nox -s sync``) so that the package works on its own.
"""
