"""The Agentic Applications kit: the app and its runner, envelopes, errors, store, clock, IDs, dates.

An entry script imports what it uses from here, `from agentic_kit import new_app, Payload, ...`:
the names below are the author's API (docs/authoring.md). Each is imported from its module when
first asked for, so a command loads only the modules its app uses; the modules themselves
(`agentic_kit.batch`, `.dates`, `.ids`, ...) hold the rest, for an app's own package.

This folder is the single source. Each package carries a byte-identical copy in its
``app/agentic_kit/`` (written by ``agentapps sync``), so that the package works on its own, and
beside it ``sync-record.json``: this version, a SHA-256 of the kit's files, and each file's own,
so that ``agentapps check`` can tell a copy that is stale or was edited by hand.

VERSION changes with what an app may rely on: 3.0 has the kit own the app's store (the app
declares it: ``new_app(help, state=..., state_file=..., state_env=..., entity=..., ...)``, and
opens it with ``app.store()``), and this facade.
"""

from typing import TYPE_CHECKING

VERSION = "3.0"

# Each name of the facade and the module it comes from.
_HOMES = {
    "AgenticApp": "app",
    "new_app": "app",
    "exclusive": "model",
    "option_in_words": "model",
    "AppError": "errors",
    "ErrorCode": "errors",
    "confirmation_required": "errors",
    "not_found": "errors",
    "validation_error": "errors",
    "Moment": "clock",
    "now": "clock",
    "timestamp": "clock",
    "Confirm": "commands",
    "change_one": "commands",
    "limit_option": "commands",
    "remove_one": "commands",
    "Payload": "envelope",
    "item_payload": "envelope",
    "limited_payload": "envelope",
    "list_payload": "envelope",
    "check_after_bound": "inputs",
    "check_bound": "inputs",
    "check_due": "inputs",
    "check_text": "inputs",
    "file_path": "inputs",
    "read_text_source": "inputs",
    "check_id": "ids",
    "check_query": "search",
    "SortKey": "sorting",
    "sort_items": "sorting",
    "sort_option": "sorting",
    "MAX_STATE_BYTES": "store",
    "normalise_tags": "tags",
    "quoted": "text",
    "format_timestamp": "dates",
    "to_ms": "dates",
}

if TYPE_CHECKING:  # what a type checker sees of the names; at run time __getattr__ loads them
    from . import backup as backup  # the modules an entry script uses as a namespace (backup.read_export)
    from . import batch as batch  # the modules an entry script uses as a namespace (batch.answer)
    from . import excerpts as excerpts
    from . import sorting as sorting
    from . import zones as zones
    from .app import AgenticApp as AgenticApp
    from .app import new_app as new_app
    from .clock import Moment as Moment
    from .clock import now as now
    from .clock import timestamp as timestamp
    from .commands import Confirm as Confirm
    from .commands import change_one as change_one
    from .commands import limit_option as limit_option
    from .commands import remove_one as remove_one
    from .dates import format_timestamp as format_timestamp
    from .dates import to_ms as to_ms
    from .envelope import Payload as Payload
    from .envelope import item_payload as item_payload
    from .envelope import limited_payload as limited_payload
    from .envelope import list_payload as list_payload
    from .errors import AppError as AppError
    from .errors import ErrorCode as ErrorCode
    from .errors import confirmation_required as confirmation_required
    from .errors import not_found as not_found
    from .errors import validation_error as validation_error
    from .ids import check_id as check_id
    from .inputs import check_after_bound as check_after_bound
    from .inputs import check_bound as check_bound
    from .inputs import check_due as check_due
    from .inputs import check_text as check_text
    from .inputs import file_path as file_path
    from .inputs import read_text_source as read_text_source
    from .model import exclusive as exclusive
    from .model import option_in_words as option_in_words
    from .search import check_query as check_query
    from .sorting import SortKey as SortKey
    from .sorting import sort_items as sort_items
    from .sorting import sort_option as sort_option
    from .store import MAX_STATE_BYTES as MAX_STATE_BYTES
    from .tags import normalise_tags as normalise_tags
    from .text import quoted as quoted


def __getattr__(name: str) -> object:
    """A facade name, imported from its module on first use (PEP 562); a module of the kit that is
    not yet imported is left to the import system (`from agentic_kit import batch`)."""
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    # The import statement's own path (not importlib's), as `from .store import X` would take.
    value: object = getattr(__import__(home, globals(), None, [name], 1), name)
    globals()[name] = value  # asked once: later uses are plain attribute reads
    return value


def __dir__() -> list[str]:
    return sorted([*globals(), *_HOMES])
