# /// script
# requires-python = ">=3.11"
# dependencies = ["typer>=0.29", "filelock>=3.12", "pydantic>=2.7", "tzdata; sys_platform == 'win32'"]
# ///
"""__NAME_PY__: __DESCRIPTION_PY__

Run from the package root as `python3 app/cli.py <command> ...`. Each command checks its
input, runs one operation inside one store transaction (or one lock-free read), and returns a
payload that the kit's runner prints as exactly one JSON envelope.
"""

import _signal  # type: ignore[import-not-found]  # `signal` without its enums: this runs at once

# The first statement after the docstring (so no `from __future__` import, which would have to
# come first; Python 3.11 needs none): from here on a SIGINT ends the run quietly, by the kernel's
# default action, as SIGTERM does (agentic_kit/interrupts.py says what each prints). Only when run
# as the entry, and when Python's own handler is set (a background job's SIGINT stays ignored);
# the Python interpreter's start-up, before this line, is Python's.
if __name__ == "__main__" and _signal.getsignal(_signal.SIGINT) is _signal.default_int_handler:
    _signal.signal(_signal.SIGINT, _signal.SIG_DFL)

import os
import sys

# A runtime runs `python3 app/cli.py` with no install step: the app's own folder, which holds the
# vendored kit and the domain package, goes first on the import path, for the imports below.
sys.path.insert(0, os.path.dirname(os.path.realpath(__file__)))

from pathlib import Path
from typing import Annotated

import typer

from __MODULE__ import operations
from __MODULE__.models import ID_PREFIX, TEXT_MAX_CHARS, EntriesState, Entry
from agentic_kit import runner
from agentic_kit.clock import timestamp
from agentic_kit.commands import Confirm, limit_option, remove_one
from agentic_kit.envelope import Payload, item_payload, limited_payload
from agentic_kit.ids import check_id
from agentic_kit.inputs import check_text
from agentic_kit.store import StateStore, resolve_state_path

APP_DIR = Path(__file__).resolve().parent
STATE_FILE_ENV = "__ENV__"
STATE_FILE_NAME = "entries.json"

# What the toolkit reads of the app: the item's model (schemas/entry.schema.json describes it) and
# the fields `--human` shows of each entry in a list. docs/authoring.md has the rest.
app = runner.new_app(
    "__NAME_PY__: __DESCRIPTION_PY__",
    entity=Entry,
    entity_name="entry",
    summary={"id": "{}", "text": "{}"},
)

EntryId = Annotated[str, typer.Argument(metavar="ID", help="An id such as en_0001.")]


def store() -> StateStore[EntriesState]:
    return StateStore(resolve_state_path(STATE_FILE_ENV, STATE_FILE_NAME, APP_DIR), EntriesState)


@app.command(mutates=True)
def add(text: Annotated[str, typer.Argument(help="The entry (one line).")]) -> Payload:
    """Add an entry."""
    text = check_text("text", text, max_chars=TEXT_MAX_CHARS, required=True, single_line=True)
    stamp = timestamp()
    with store().transaction() as state:
        entry = operations.add_entry(state, text=text, now=stamp)
    return item_payload(entry)


@app.command("list")
def list_entries(limit: Annotated[int | None, limit_option("entries")] = None) -> Payload:
    """List entries in the order they were added."""
    return limited_payload(store().load().entries, limit)


@app.command(mutates=True, confirmation=True)
def remove(entry_id: EntryId, confirm: Confirm = False) -> Payload:
    """Delete an entry. The --confirm flag is required because the operation is destructive."""
    entry_id = check_id(ID_PREFIX, entry_id)
    # Without --confirm: NOT_FOUND for an unknown id, else CONFIRMATION_REQUIRED, nothing changed.
    return remove_one(
        store(), entry_id, confirm=confirm, find=operations.find_entry, remove=operations.remove_entry
    )


if __name__ == "__main__":
    runner.main(app)
