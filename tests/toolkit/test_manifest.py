"""Reading APP.md and SKILL.md frontmatter: only the frontmatter, and clear errors when it is bad."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from pydantic import ValidationError

from agentapps import manifest
from agentapps.manifest import (
    AppManifest,
    ManifestError,
    UnsupportedSchema,
    load_app_manifest,
    read_body,
    read_frontmatter,
)

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


MINIMAL: dict[str, Any] = {
    "name": "Example",
    "description": "An example.",
    "version": "1",
    "entry": "python3 app/cli.py",
    "commands": ["list"],
    "skills": [],
}


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

    def readline(self, limit: int = -1) -> bytes:
        line: bytes = self.handle.readline(limit)
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
    real_open = manifest.open_regular_file

    def counting_open(path: Path) -> Any:
        readers.append(CountingReader(real_open(path)))
        return readers[-1]

    monkeypatch.setattr(manifest, "open_regular_file", counting_open)
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
        ("version: 0.1.0", "version: [1, 0]", "version: Input should be a valid string"),
        ("commands:\n  - list", "commands: list", "commands: Input should be a valid list"),
        ("name: Example", "name: Example\nscheduling: sometimes", "scheduling: Input should be"),
        ("name: Example", "name: Example\nslug: Not_Kebab", "slug: String should match pattern"),
        ("  - example-usage", "  - /tmp/elsewhere", "skills.0: String should match pattern"),
        ("  - example-usage", "  - ../../outside", "skills.0: String should match pattern"),
        ("  - list", "  - --list", "commands.0: String should match pattern"),
        ("  - list", "  - items  remove", "commands.0: String should match pattern"),
        ("command: python3 app/cli.py", "command: python3 app/cli.py;", "must not end with a shell operator"),
        ("command: python3 app/cli.py", 'command: "python3 app/cli.py\\nrm -rf ."', "must be one line"),
        ("command: python3 app/cli.py", 'command: ""', "entry.command: String should have at least 1"),
        ("command: python3 app/cli.py", 'command: "   "', "entry.command must name a program; it is blank"),
        ("command: python3 app/cli.py", "command: FOO=1", "entry.command must name a program: its last"),
        ("command: python3 app/cli.py", "command: \"  FOO=1  BAR='a b' \"", "must name a program: its last"),
        ("command: python3 app/cli.py", 'command: ">/dev/null"', "must name a program: its last"),
        ("command: python3 app/cli.py", 'command: "FOO=1 2>&1"', "must name a program: its last"),
        ("command: python3 app/cli.py", 'command: "cd app && FOO=1 >|out"', "must name a program: its last"),
    ],
)
def test_a_frontmatter_that_breaks_the_format_names_the_field(
    tmp_path: Path, old: str, new: str, problem: str
) -> None:
    write_app_md(tmp_path / "pkg", FRONTMATTER.replace(old, new))
    with pytest.raises(ManifestError, match=problem):
        load_app_manifest(tmp_path / "pkg")


# Every form of sh operator an entry could end with: after a control operator the arguments would
# run as a command, after a redirection the first argument would name a file to read or clobber.
ENDING_OPERATORS = [
    ";",
    ";;",
    "&",
    "&&",
    "|",
    "||",
    "(",
    ")",
    ">",
    "2>",
    ">>",
    "2>>",
    "&>",
    ">|",
    "<",
    "<<",
    "<<-",
    "<>",
    "<&",
    ">&",
    "2>&",
    "1<&",
    "\\",
]


@pytest.mark.parametrize("operator", ENDING_OPERATORS)
@pytest.mark.parametrize("space", ["", " ", "  "])
def test_an_entry_ending_in_a_shell_operator_is_refused(tmp_path: Path, operator: str, space: str) -> None:
    command = f"python3 app/cli.py{space}{operator}"
    write_app_md(tmp_path / "pkg", FRONTMATTER.replace("python3 app/cli.py", f"'{command}'"))
    with pytest.raises(ManifestError, match="must not end with a shell operator") as raised:
        load_app_manifest(tmp_path / "pkg")
    shown = operator.lstrip("12")  # in `2>` the operator is `>`; 2 names the stream
    assert f"it ends with {shown!r}" in str(raised.value)


@pytest.mark.parametrize(
    "command",
    [
        "python3 app/cli.py 2>&1",
        "python3 app/cli.py 2>/dev/null",
        "python3 app/cli.py '>'",
        'python3 app/cli.py ">"',
        "python3 app/cli.py \\>",
        "python3 app/cli.py --x=a|b".replace("|", "'|'"),
        "cd app && python3 cli.py",
        "python3 app/cli.py -",
        "NODE_ENV=production node app/cli.js",  # a setting, then the program
        "2>/dev/null python3 app/cli.py",  # a redirection, then the program
        "python3 app/cli.py &>/dev/null",
    ],
)
def test_an_operator_that_is_not_last_or_is_quoted_is_fine(tmp_path: Path, command: str) -> None:
    quoted = "'" + command.replace("'", "''") + "'"
    write_app_md(tmp_path / "pkg", FRONTMATTER.replace("python3 app/cli.py", quoted))
    assert load_app_manifest(tmp_path / "pkg").entry.command == command


def test_what_the_format_allows_is_accepted(tmp_path: Path) -> None:
    """Keys the format does not define are kept; `entry` may be a string; commands may be paths."""
    text = FRONTMATTER.replace("entry:\n  command: python3 app/cli.py", "entry: cd app && node cli.js")
    text = text.replace("  - list\n", "  - items list\n  - items remove\n")
    text = text.replace(
        "name: Example\n", "name: Example\nhomepage: https://example.org\nreleased: 2026-04-01\n"
    )
    write_app_md(tmp_path / "pkg", text)
    loaded = load_app_manifest(tmp_path / "pkg")
    assert loaded.entry.command == "cd app && node cli.js"
    assert loaded.commands == ["items list", "items remove"]
    assert loaded.unknown_keys == ["homepage", "released"]
    # A date stays the text it is (YAML 1.2, as JSON needs), whatever key holds it.
    assert loaded.model_extra == {"homepage": "https://example.org", "released": "2026-04-01"}


@pytest.mark.parametrize("schema", ["agentapplications/v2", "agentapplications/v0", "1"])
def test_a_schema_other_than_v1_is_unsupported(tmp_path: Path, schema: str) -> None:
    write_app_md(tmp_path / "pkg", FRONTMATTER.replace("---\nname:", f"---\nschema: {schema}\nname:", 1))
    with pytest.raises(UnsupportedSchema, match="is not supported; this runtime reads agentapplications/v1"):
        load_app_manifest(tmp_path / "pkg")


@pytest.mark.parametrize(
    ("extra", "problem"),
    [
        ("a: &x [1, 2]\nb: *x", "uses a YAML anchor or alias"),
        ("a: &x 1", "uses a YAML anchor or alias"),
        ("a: " + "[" * 5000 + "]" * 5000, "nested too deeply"),
        ("a: !!binary aGVsbG8=", "uses the YAML tag !!binary, outside the core schema"),
        ("a: !!set {x, y}", "uses the YAML tag !!set, outside the core schema"),
        ("a: .nan", "a value JSON cannot carry"),
    ],
)
def test_yaml_that_could_exhaust_or_confuse_the_runtime_is_refused(
    tmp_path: Path, extra: str, problem: str
) -> None:
    write_app_md(tmp_path / "pkg", FRONTMATTER.replace("name: Example\n", f"name: Example\n{extra}\n"))
    with pytest.raises(ManifestError, match=problem):
        read_frontmatter(tmp_path / "pkg" / "APP.md")


@pytest.mark.parametrize(
    "line",
    [
        "name: !!binary RXhhbXBsZQ==",  # a text field: it must not be read as the text "RXhhbXBsZQ=="
        "name: !!timestamp 2001-12-14",
        "name: !custom Example",
        "name: !<tag:example.com,2024:x> Example",
        "name: Example\ntags: [!!binary eA==]",
        "name: Example\nmetadata: !!omap [a: 1]",
        "name: Example\nextra: !!set {x}",
    ],
)
def test_a_yaml_tag_outside_the_core_schema_is_refused_wherever_it_is(tmp_path: Path, line: str) -> None:
    write_app_md(tmp_path / "pkg", FRONTMATTER.replace("name: Example", line))
    with pytest.raises(ManifestError, match=r"uses the YAML tag \S+, outside the core schema \(line \d+\)"):
        read_frontmatter(tmp_path / "pkg" / "APP.md")


def test_a_core_schema_tag_is_read_as_it_says(tmp_path: Path) -> None:
    write_app_md(
        tmp_path / "pkg",
        FRONTMATTER.replace("name: Example", "name: !!str Example\nextra: !!int '7'\nlist: !!seq [a]"),
    )
    data = read_frontmatter(tmp_path / "pkg" / "APP.md")
    assert (data["name"], data["extra"], data["list"]) == ("Example", 7, ["a"])


def test_a_fifo_named_app_md_is_refused_without_waiting_for_a_writer(tmp_path: Path) -> None:
    (tmp_path / "pkg").mkdir()
    os.mkfifo(tmp_path / "pkg" / "APP.md")
    with pytest.raises(ManifestError, match="is not a regular file"):
        read_frontmatter(tmp_path / "pkg" / "APP.md")
    with pytest.raises(ManifestError, match="is not a regular file"):
        read_body(tmp_path / "pkg" / "APP.md")


def test_a_frontmatter_line_without_end_is_read_only_to_the_limit(tmp_path: Path) -> None:
    path = write_app_md(tmp_path / "pkg", b"---\nname: " + b"x" * (64 * 1024 * 1024))
    with pytest.raises(ManifestError, match="frontmatter is longer than 65536 bytes"):
        read_frontmatter(path)


@pytest.mark.parametrize(
    ("body", "problem"),
    [(b"caf\xe9\n", "is not UTF-8 text"), (b"x" * (1024 * 1024 + 1), "is longer than 1048576 bytes")],
    ids=["not-utf-8", "too-long"],
)
def test_a_body_that_cannot_be_read_is_a_manifest_error(tmp_path: Path, body: bytes, problem: str) -> None:
    path = write_app_md(tmp_path / "pkg", FRONTMATTER.encode() + body)
    with pytest.raises(ManifestError, match=problem):
        read_body(path)


def test_a_body_after_crlf_fences_is_the_body(tmp_path: Path) -> None:
    path = write_app_md(tmp_path / "pkg", FRONTMATTER.replace("\n", "\r\n") + "\r\n# Example\r\n")
    assert read_body(path) == "# Example\r\n"


@pytest.mark.parametrize(
    ("command", "problem"),
    [
        ("python3 app/cli.py #", "holds a comment"),
        ("python3 app/cli.py # run it", "holds a comment"),
        ("cd app;# python3 cli.py", "holds a comment"),
        ("python3 'app/cli.py", "leaves a quote open"),
        ('python3 "app/cli.py', "leaves a quote open"),
    ],
)
def test_an_entry_whose_arguments_would_be_lost_is_refused(command: str, problem: str) -> None:
    with pytest.raises(ValidationError) as raised:
        AppManifest.model_validate({**MINIMAL, "entry": command})
    assert f'entry.command {problem}: the arguments appended as "$@" would be lost' in str(raised.value)


@pytest.mark.parametrize(
    "command",
    [
        "python3 app/cli.py",
        "echo a#b",
        "python3 'app/#cli.py'",
        'set -- "$#"; python3 app/cli.py',
        "x=\\# cmd",
    ],
)
def test_a_hash_that_starts_no_comment_is_fine(command: str) -> None:
    assert AppManifest.model_validate({**MINIMAL, "entry": command}).entry.command == command
