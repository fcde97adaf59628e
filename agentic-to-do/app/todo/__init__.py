"""Agentic To-Do's domain: the item model, input checks and operations over the state."""
