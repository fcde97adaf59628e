"""A conformance package's entry: `list` answers an empty list."""

import json
import sys

if sys.argv[1:] == ["list"]:
    print(json.dumps({"ok": True, "command": "list", "count": 0, "items": []}))
    sys.exit(0)
unknown = {"code": "USAGE_ERROR", "message": "Unknown command."}
print(json.dumps({"ok": False, "command": None, "error": unknown}))
sys.exit(2)
