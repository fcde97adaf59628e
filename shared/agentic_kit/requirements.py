"""What an app needs besides the standard library, checked before any of it is imported.

An entry script calls `exit_unless_installed()` before `import typer`: a Python without the
dependencies then answers with one INTERNAL_ERROR envelope (exit status 1) naming what is missing,
the interpreter that lacks it, and the command that installs it, instead of a traceback. This
module imports only the standard library, and `agentic_kit/__init__.py` imports nothing at load,
so reaching it needs none of the dependencies.
"""

from __future__ import annotations

import importlib.util
import os
import sys
from collections.abc import Sequence

# The script header's dependencies (PEP 723), as the modules they install.
NEEDED = ("typer", "filelock", "pydantic")


def missing(needed: Sequence[str] = NEEDED) -> list[str]:
    """The modules among `needed` this Python cannot import, in order; found without importing."""
    absent = []
    for name in needed:
        try:
            found = importlib.util.find_spec(name) is not None
        except (ImportError, ValueError):  # a broken or half-imported package cannot be used either
            found = False
        if not found:
            absent.append(name)
    return absent


def exit_unless_installed(needed: Sequence[str] = NEEDED) -> None:
    """Return when every module is importable; otherwise print the error envelope and exit 1.

    No command has been read yet, so the envelope's `command` is null, as the runner gives it for
    arguments that name no command."""
    absent = missing(needed)
    if not absent:
        return
    import json  # only now: a run with its dependencies pays for nothing but the look-up
    import shlex

    python = sys.executable or "python3"
    names = " ".join(absent)
    script = sys.argv[0] if sys.argv and sys.argv[0] else os.path.join("app", "cli.py")
    uv_call = shlex.join(["uv", "run", script, *sys.argv[1:]])
    plural = "s" if len(absent) > 1 else ""
    envelope = {
        "ok": False,
        "command": None,
        "error": {
            "code": "INTERNAL_ERROR",
            "message": (
                f"This Python ({python}) cannot import the module{plural} the app needs: "
                f"{', '.join(absent)}. Nothing was read or saved."
            ),
            "hint": (
                f"Install {names} into that Python, then run the command again: "
                f"`{shlex.quote(python)} -m pip install {' '.join(NEEDED)}`; or run it with uv, "
                f"which installs what the script's header names: `{uv_call}`."
            ),
        },
    }
    text = json.dumps(envelope, ensure_ascii=False, separators=(",", ":")) + "\n"
    stream = getattr(sys.stdout, "buffer", None)
    try:
        if stream is not None:
            # backslashreplace: a path whose bytes were not UTF-8 still prints.
            stream.write(text.encode("utf-8", "backslashreplace"))
            stream.flush()
        elif sys.stdout is not None:
            sys.stdout.write(text)
            sys.stdout.flush()
    except OSError:
        pass  # stdout closed: the exit status still says it failed
    raise SystemExit(1)
