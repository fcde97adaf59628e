"""Deliberately wrong adapters: `agentapps`, each with one rule broken, to show that the cases
catch what they should and say so readably. Each is a command (`python3 -m
tests.conformance.adapters.ignores_trust catalog ROOT`) and, for fast tests, a `main(argv)`."""
