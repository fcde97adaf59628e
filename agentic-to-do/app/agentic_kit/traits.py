"""What an app records of each command it registers: the runner writes it, `describe` reads it.

Its own module, so that neither of those two imports the other for it.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, NamedTuple


class CommandTraits(NamedTuple):
    """What an app records of each command it registers, for `describe`."""

    function: Callable[..., Any]
    mutates: bool
    confirmation: bool
