"""A conformance package that answers with the call it got (arguments and stdin), or prints the
exact stdout a case asks for with `print KIND`."""

import json
import sys


def nested(depth):
    """A document whose arrays and objects nest `depth` levels deep, the outermost an object."""
    return '{"ok": true, "deep": ' + "[" * (depth - 1) + "]" * (depth - 1) + "}"


PRINTS = {
    "not-utf-8": b'{"ok": true, "text": "\xff"}\n',
    "lone-surrogate": b'{"ok": true, "text": "\\ud800"}\n',
    "repeated-key": b'{"ok": false, "ok": true}\n',
    "nested-100": nested(100).encode() + b"\n",
    "nested-101": nested(101).encode() + b"\n",
}

args = sys.argv[1:]
if args[:1] == ["print"] and len(args) == 2 and args[1] in PRINTS:
    sys.stdout.buffer.write(PRINTS[args[1]])
    sys.exit(0)
if args[:1] != ["print"]:
    command = "items remove" if args[:2] == ["items", "remove"] else (args[:1] or [None])[0]
    call = {"ok": True, "command": command, "args": args, "stdin": sys.stdin.read()}
    print(json.dumps(call))
    sys.exit(0)
unknown = {"code": "USAGE_ERROR", "message": f"print takes one of {sorted(PRINTS)}."}
print(json.dumps({"ok": False, "command": "print", "error": unknown}))
sys.exit(2)
