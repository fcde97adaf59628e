"""Reading APP.md and SKILL.md frontmatter: only the frontmatter, and clear errors when it is bad."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from agentapps.manifest import ManifestError, load_app_manifest, read_body, read_frontmatter

FRONTMATTER = """---
name: Example
description: An example package for the manifest tests.
version: 0.1.0
entry:
  command: python3 app/cli.py
commands:
  - list
skills:
  - example-usage
---
"""


def write_app_md(folder: Path, text: str | bytes) -> Path:
    folder.mkdir(exist_ok=True)
    path = folder / "APP.md"
    path.write_bytes(text.encode() if isinstance(text, str) else text)
    return path


class CountingReader:
    """Wraps a binary file and counts the bytes handed to its reader."""

    def __init__(self, handle: Any) -> None:
        self.handle = handle
        self.consumed = 0

    def __enter__(self) -> CountingReader:
        return self

    def __exit__(self, *exc: object) -> None:
        self.handle.close()

    def readline(self) -> bytes:
        line: bytes = self.handle.readline()
        self.consumed += len(line)
        return line

    def __iter__(self) -> Iterator[bytes]:
        for line in self.handle:
            self.consumed += len(line)
            yield line


def test_the_frontmatter_is_read_without_reading_the_body(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A 16 MiB body that is not even UTF-8: reading it would be slow, decoding it would fail.
    path = write_app_md(tmp_path / "pkg", FRONTMATTER.encode() + b"\xff\xfe body \x80" * (2 * 1024 * 1024))
    readers: list[CountingReader] = []
    real_open = Path.open

    def counting_open(self: Path, *args: Any, **kwargs: Any) -> CountingReader:
        readers.append(CountingReader(real_open(self, *args, **kwargs)))
        return readers[-1]

    monkeypatch.setattr(Path, "open", counting_open)
    assert load_app_manifest(path.parent).name == "Example"
    assert [reader.consumed for reader in readers] == [len(FRONTMATTER.encode())]


def test_the_body_is_everything_after_the_frontmatter(tmp_path: Path) -> None:
    path = write_app_md(tmp_path / "pkg", FRONTMATTER + "\n# Example\n\nBody text.\n")
    assert read_body(path) == "# Example\n\nBody text.\n"


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ("name: x\n", "does not start with a --- frontmatter line"),
        ("---\nname: x\n", "never closed"),
        ("---\nname: [x\n---\n", "not valid YAML"),
        ("---\n- a list\n---\n", "not a mapping"),
    ],
)
def test_unreadable_frontmatter_is_a_manifest_error(tmp_path: Path, text: str, problem: str) -> None:
    path = write_app_md(tmp_path / "pkg", text)
    with pytest.raises(ManifestError, match=problem):
        read_frontmatter(path)


@pytest.mark.parametrize(
    ("old", "new", "problem"),
    [
        ("name: Example\n", "", "name: Field required"),
        ("version: 0.1.0", "version: 1.0", "version: Input should be a valid string"),
        ("commands:\n  - list", "commands: list", "commands: Input should be a valid list"),
        ("name: Example", "name: Example\nscheduling: sometimes", "scheduling: Input should be"),
        ("name: Example", "name: Example\nslug: Not_Kebab", "slug: String should match pattern"),
        ("name: Example", "name: Example\nunknown: 1", "unknown: Extra inputs are not permitted"),
    ],
)
def test_a_frontmatter_that_breaks_the_format_names_the_field(
    tmp_path: Path, old: str, new: str, problem: str
) -> None:
    write_app_md(tmp_path / "pkg", FRONTMATTER.replace(old, new))
    with pytest.raises(ManifestError, match=problem):
        load_app_manifest(tmp_path / "pkg")
