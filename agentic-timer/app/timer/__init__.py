"""Agentic Timer's domain: the timer model, its state machine, and what a timer reads at a moment."""
