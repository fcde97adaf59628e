"""The environment a package sees: chosen, never inherited whole.

A package gets the variables on the allow-list (the same idea as the MCP SDK's default stdio
environment), the `AGENTIC_*` settings of the suite's convention, and the variables the user names
(`--env NAME`). Anything else in the caller's environment — tokens, keys, cloud credentials —
stays with the caller. `invoke` then puts the runtime's own interpreter first on PATH.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Mapping

from agentic_kit.errors import validation_error

ALLOWED = frozenset({"PATH", "HOME", "USER", "LANG", "TZ", "TMPDIR", "TERM", "SHELL"})
ALLOWED_PREFIXES = ("LC_",)
AGENTIC_PREFIX = "AGENTIC_"
NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def admitted(name: str) -> bool:
    """Whether a variable of the caller's passes to a package without being named: on the
    allow-list, or an AGENTIC_* setting."""
    return name in ALLOWED or name.startswith((*ALLOWED_PREFIXES, AGENTIC_PREFIX))


def without_agentic(source: Mapping[str, str] | None = None, *, also: tuple[str, ...] = ()) -> dict[str, str]:
    """`source` (default: this process's environment) less every AGENTIC_* setting (and every
    variable starting with a prefix in `also`): where a test's, the harness's or an adapter's run
    starts, so no setting of the caller's, a state folder or a clock, reaches the app unasked."""
    environ = os.environ if source is None else source
    return {key: value for key, value in environ.items() if not key.startswith((AGENTIC_PREFIX, *also))}


def check_names(names: Iterable[str]) -> list[str]:
    """The names given to --env, refused unless each is a variable name (no `NAME=value`)."""
    checked = []
    for name in names:
        if not NAME.fullmatch(name):
            raise validation_error(
                f"--env takes a variable name, not {name!r}.",
                "Set the variable in the environment, then name it: --env NAME.",
            )
        checked.append(name)
    return checked


def package_environment(
    names: Iterable[str] = (),
    *,
    overrides: Mapping[str, str] | None = None,
    inherit_agentic: bool = True,
    source: Mapping[str, str] | None = None,
) -> dict[str, str]:
    """The allow-listed part of `source` (default: this process's environment), with `AGENTIC_*`
    unless `inherit_agentic` is false (check and replay pin their own), plus the variables named,
    plus `overrides`. A name that is not set is left out."""
    environ = os.environ if source is None else source
    chosen = {
        key: value
        for key, value in environ.items()
        if key in ALLOWED
        or key.startswith(ALLOWED_PREFIXES)
        or (inherit_agentic and key.startswith(AGENTIC_PREFIX))
    }
    chosen |= {name: environ[name] for name in names if name in environ}
    return chosen | dict(overrides or {})
