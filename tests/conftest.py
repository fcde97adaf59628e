"""Every test gets the harness; every app run gets its own state folder through it."""

pytest_plugins = ["agentapps.harness"]
