# /// script
# requires-python = ">=3.11"
# dependencies = ["typer>=0.29", "filelock>=3.12", "pydantic>=2.7", "tzdata; sys_platform == 'win32'"]
# ///
"""__NAME_PY__: __DESCRIPTION_PY__

Run from the package root as `python3 app/cli.py <command> ...`. Each command checks its
input, runs one operation inside one store transaction (or one lock-free read), and returns a
payload that the kit's runner prints as exactly one JSON envelope.
"""

import _signal  # type: ignore[import-not-found]  # `signal`'s C core: it loads no Python code

# Before any other import, so that a SIGINT while they load ends the run quietly, as SIGTERM does
# (agentic_kit/interrupts.py), not with a traceback; hence no `from __future__`, which must come
# first. A background job's SIGINT stays ignored.
if __name__ == "__main__" and _signal.getsignal(_signal.SIGINT) is _signal.default_int_handler:
    _signal.signal(_signal.SIGINT, _signal.SIG_DFL)

import os
import sys

# No install step: the app's folder (the vendored kit, the app's package) goes first on the path.
sys.path.insert(0, os.path.dirname(os.path.realpath(__file__)))
# Then, before anything builds a model: pydantic's plugins off (agentic_kit/plugins_off.py says why).
import agentic_kit.plugins_off  # noqa: F401

# isort: split

import gc

# A run is one command in a process of its own, and no cycle it makes outlives it: the cycle
# collector stays off, sparing its passes over every object as the modules load and the state is
# read (about a twentieth of a call). A process that imports this script keeps its collector.
if __name__ == "__main__":
    gc.disable()

# Before typer: a Python without the app's dependencies answers with one JSON error, not a
# traceback (in an `if`, which ruff lets come before the imports; an importer gets ImportError).
from agentic_kit.requirements import exit_unless_installed

if __name__ == "__main__":
    exit_unless_installed()

from typing import Annotated

import typer

from __MODULE__ import operations
from __MODULE__.models import ID_PREFIX, TEXT_MAX_CHARS, EntriesState, Entry
from agentic_kit import (
    Confirm,
    Payload,
    check_id,
    check_text,
    item_payload,
    limit_option,
    limited_payload,
    new_app,
    remove_one,
    timestamp,
)

# What the toolkit reads of the app: its state (the model, the file in AGENTIC_STATE_DIR or
# app/state/, and the variable naming a file of its own), the item's model
# (schemas/entry.schema.json describes it) and the fields `--human` shows of each entry in a
# list. docs/authoring.md has the rest.
app = new_app(
    "__NAME_PY__: __DESCRIPTION_PY__",
    state=EntriesState,
    state_file="entries.json",
    state_env="__ENV__",
    entity=Entry,
    entity_name="entry",
    summary={"id": "{}", "text": "{}"},
)

EntryId = Annotated[str, typer.Argument(metavar="ID", help="An id such as en_0001.")]


@app.command(mutates=True)
def add(text: Annotated[str, typer.Argument(help="The entry (one line).")]) -> Payload:
    """Add an entry."""
    text = check_text("text", text, max_chars=TEXT_MAX_CHARS, required=True, single_line=True)
    stamp = timestamp()
    with app.store().transaction() as state:
        entry = operations.add_entry(state, text=text, now=stamp)
    return item_payload(entry)


@app.command("list")
def list_entries(limit: Annotated[int | None, limit_option("entries")] = None) -> Payload:
    """List entries in the order they were added."""
    return limited_payload(app.store().load().entries, limit)


@app.command(mutates=True, confirmation=True)
def remove(entry_id: EntryId, confirm: Confirm = False) -> Payload:
    """Delete an entry. The --confirm flag is required because the operation is destructive."""
    entry_id = check_id(ID_PREFIX, entry_id)
    # Without --confirm: NOT_FOUND for an unknown id, else CONFIRMATION_REQUIRED, nothing changed.
    return remove_one(
        app.store(), entry_id, confirm=confirm, find=operations.find_entry, remove=operations.remove_entry
    )


app.prepare()  # built once here: a warm process, which runs this body once, holds it
if __name__ == "__main__":
    app.main()
