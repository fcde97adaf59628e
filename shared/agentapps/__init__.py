"""agentapps: the suite's toolkit — manifests, a reference runtime, the pytest harness, sync."""
