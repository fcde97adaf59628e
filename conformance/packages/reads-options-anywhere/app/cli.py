"""A conformance package whose parser reads options anywhere, as a CLI built on command groups
does: `--verbose items remove it_1` and `items --verbose remove it_1` both remove it_1. It asks for
no --confirm of its own: `items remove` is in confirmationRequired, so asking is the runtime's."""

import json
import os
import sys
from pathlib import Path

STATE = Path(os.environ.get("AGENTIC_STATE_DIR") or Path(__file__).parent / "state") / "items.json"


def emit(command, payload, status=0):
    print(json.dumps({"ok": status == 0, "command": command, **payload}))
    sys.exit(status)


def fail(command, code, message, status):
    emit(command, {"error": {"code": code, "message": message}}, status)


def load():
    return json.loads(STATE.read_text()) if STATE.exists() else []


def save(items):
    STATE.parent.mkdir(parents=True, exist_ok=True)
    STATE.write_text(json.dumps(items))


def main(args):
    words = [arg for arg in args if not arg.startswith("-")]
    command, rest = " ".join(words[:2]), words[2:]
    items = load()
    if command == "items add" and rest:
        item = {"id": f"it_{len(items) + 1}", "title": rest[0]}
        save([*items, item])
        emit(command, {"item": item})
    if command == "items list":
        emit(command, {"count": len(items), "items": items})
    if command == "items remove" and rest:
        gone = [item for item in items if item["id"] == rest[0]]
        if not gone:
            fail(command, "NOT_FOUND", f"No item {rest[0]}.", 4)
        save([item for item in items if item["id"] != rest[0]])
        emit(command, {"item": gone[0]})
    fail(command or None, "USAGE_ERROR", f"Unknown command {command!r}.", 2)


main(sys.argv[1:])
