"""`python -m agentapps`: the same program as the `agentapps` console script."""

from agentapps.console import main

if __name__ == "__main__":
    main()
