"""The stand-in for pydantic's plugin loader (agentic_kit/plugins_off.py), in fresh interpreters:
what it changes is process-wide."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

SHARED = Path(__file__).resolve().parents[2] / "shared"


def run(script: str) -> dict[str, object]:
    completed = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(script)],
        env={"PYTHONPATH": str(SHARED), "PATH": ""},
        capture_output=True,
        text=True,
        check=True,
    )
    assert completed.stderr == ""
    answer: dict[str, object] = json.loads(completed.stdout)
    return answer


def test_models_validate_as_ever_with_no_plugins_and_no_importlib_metadata() -> None:
    assert run(
        """
        import json, sys
        import agentic_kit.plugins_off
        import pydantic

        class Item(pydantic.BaseModel):
            n: int

        try:
            Item.model_validate_json('{"n": "x"}')
        except pydantic.ValidationError as error:
            refused = error.errors()[0]["type"]
        from pydantic.plugin._loader import get_plugins
        print(json.dumps({
            "item": Item.model_validate_json('{"n": 3}').model_dump(),
            "refused": refused,
            "adapter": pydantic.TypeAdapter(int).validate_python("4"),
            "plugins": list(get_plugins()),
            "metadata": "importlib.metadata" in sys.modules,
        }))
        """
    ) == {"item": {"n": 3}, "refused": "int_parsing", "adapter": 4, "plugins": [], "metadata": False}


def test_any_other_name_asked_of_the_loader_is_the_real_loaders() -> None:
    """A pydantic whose loader has more to it than `get_plugins` still runs: the real one is
    loaded in the stand-in's place (plugins on, as without it)."""
    assert run(
        """
        import json, sys
        import agentic_kit.plugins_off
        from pydantic.plugin._loader import PYDANTIC_ENTRY_POINT_GROUP
        import pydantic

        class Item(pydantic.BaseModel):
            n: int

        loader = sys.modules["pydantic.plugin._loader"]
        print(json.dumps({
            "group": PYDANTIC_ENTRY_POINT_GROUP,
            "real": loader.__file__.endswith("_loader.py"),
            "item": Item(n=1).model_dump(),
        }))
        """
    ) == {"group": "pydantic", "real": True, "item": {"n": 1}}


def test_a_loader_already_loaded_is_left_as_it_is() -> None:
    assert run(
        """
        import json, sys
        import pydantic.plugin._loader as real
        import agentic_kit.plugins_off
        print(json.dumps({"same": sys.modules["pydantic.plugin._loader"] is real}))
        """
    ) == {"same": True}
