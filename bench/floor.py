"""The stack's floor T: the cheapest CLI on this stack. The benchmark divides every command's time
by this script's, measured in the same run.

It imports filelock and pydantic's BaseModel, defines a typer app with two commands, and runs
one that prints `{}`:  python3 bench/floor.py hello
"""

import filelock  # noqa: F401
import typer
from pydantic import BaseModel  # noqa: F401

app = typer.Typer()


@app.command()
def hello() -> None:
    print("{}")


@app.command()
def other() -> None:
    print("{}")


if __name__ == "__main__":
    app()
