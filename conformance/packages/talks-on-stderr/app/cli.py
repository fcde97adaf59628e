"""A conformance package whose `list` talks on stderr: only stdout holds the result."""

import json
import sys

print("loading the list...", file=sys.stderr, flush=True)
print('{"not": "the result"', file=sys.stderr, flush=True)
if sys.argv[1:] == ["list"]:
    print(json.dumps({"ok": True, "command": "list", "count": 0, "items": []}), flush=True)
    print("done.", file=sys.stderr)
    sys.exit(0)
unknown = {"code": "USAGE_ERROR", "message": "Unknown command."}
print(json.dumps({"ok": False, "command": None, "error": unknown}))
sys.exit(2)
