"""What a hostile package or argument list must never achieve through the runtime, each package
written into the test's own folder (tests/toolkit/hostile.py)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from mcp import ClientSession

from tests.toolkit.conftest import SUITE, ToolkitResult
from tests.toolkit.hostile import WIPES_ON_RESET, write_package
from tests.toolkit.test_mcp import run as run_mcp


@pytest.fixture
def trusted(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A folder whose packages are trusted, so `--approve` means the confirmation gate only."""
    folder = tmp_path / "packages"
    folder.mkdir()
    monkeypatch.setenv("AGENTAPPS_TRUSTED", str(folder))
    return folder


@pytest.mark.parametrize("flag", ["--help", "-h"])
def test_a_help_flag_after_a_gated_command_does_not_skip_the_gate(
    agentapps: Callable[..., ToolkitResult], tmp_path: Path, trusted: Path, flag: str
) -> None:
    package = write_package(
        trusted / "wipe", WIPES_ON_RESET, commands=("list", "reset"), confirmation=("reset",)
    )
    kept = tmp_path / "state" / "kept.txt"
    kept.parent.mkdir()
    kept.write_text("data")
    refused = agentapps("run", str(package), "--", "reset", flag)
    assert (refused.error_code, refused.exit_status) == ("CONFIRMATION_REQUIRED", 5)
    assert refused.envelope["error"]["details"] == {"gate": "confirmation", "command": "reset"}
    assert kept.read_text() == "data"


def test_a_help_flag_after_a_gated_command_does_not_skip_the_gate_over_mcp(tmp_path: Path) -> None:
    package = write_package(
        tmp_path / "packages" / "wipe", WIPES_ON_RESET, commands=("list", "reset"), confirmation=("reset",)
    )
    kept = tmp_path / "state" / "kept.txt"
    kept.parent.mkdir()
    kept.write_text("data")

    async def scenario(session: ClientSession) -> None:
        for args in (["-h"], ["--help"]):
            refused = await session.call_tool("wipe.reset", {"args": args})
            assert refused.is_error is True
            assert refused.structured_content is not None
            assert refused.structured_content["error"]["code"] == "CONFIRMATION_REQUIRED"
        assert kept.read_text() == "data"

    run_mcp(tmp_path, scenario, [str(package)], env={"AGENTAPPS_TRUSTED": str(tmp_path / "packages")})


@pytest.mark.parametrize("number", ["1e999", "-1e999", "1" + "0" * 400])
def test_a_number_past_the_largest_double_is_a_violation_never_relayed(
    agentapps: Callable[..., ToolkitResult], trusted: Path, number: str
) -> None:
    package = write_package(
        trusted / "overflows", f'print(\'{{"ok": true, "command": "list", "v": {number}}}\')'
    )
    result = agentapps("run", str(package), "--", "list")
    assert (result.error_code, result.exit_status) == ("CONTRACT_VIOLATION", 11)
    assert "is not a finite double" in result.envelope["error"]["message"]


def test_an_option_value_that_reads_like_an_option_stays_its_value_over_mcp(tmp_path: Path) -> None:
    """mcp sends each option as one word, `--name=value`: a value of `--human`, `--` or `-x` is
    never read as an option, by the runtime's gate or by the app."""
    roots = [str(SUITE / name) for name in ("agentic-to-do", "agentic-notes", "agentic-timer")]

    async def scenario(session: ClientSession) -> None:
        for value in ("--human", "--", "-x", "--confirm", "a=b"):
            added = await session.call_tool("agentic-to-do.add", {"title": "x", "description": value})
            assert added.is_error is not True, added.structured_content
            assert added.structured_content is not None
            assert added.structured_content["item"]["description"] == value
        note = await session.call_tool(
            "agentic-notes.add", {"title": "n", "body": "--human", "tag": ["--", "-x"]}
        )
        assert note.is_error is not True, note.structured_content
        assert note.structured_content is not None
        assert (note.structured_content["item"]["body"], note.structured_content["item"]["tags"]) == (
            "--human",
            ["--", "-x"],
        )
        # The app reads `--human` as the duration it is given, and refuses it as one.
        timer = await session.call_tool("agentic-timer.start", {"label": "t", "duration": "--human"})
        assert timer.structured_content is not None
        assert timer.structured_content["error"]["code"] == "VALIDATION_ERROR"

    run_mcp(tmp_path, scenario, roots)
