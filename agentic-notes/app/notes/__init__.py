"""Agentic Notes' domain: the note model, input checks, search, and operations over the state."""
