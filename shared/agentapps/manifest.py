"""APP.md and SKILL.md: frontmatter as pydantic models, read without reading the body.

The catalog tier of progressive disclosure must stay cheap, so `read_frontmatter` reads the file
line by line and stops at the closing `---`: the body is never read, so it may be huge or not
even valid UTF-8.

A manifest comes from anywhere, so reading one can neither hang nor exhaust the runtime:
- only regular files are read (a FIFO named APP.md is refused, never opened for a blocking read);
- the frontmatter is at most MAX_FRONTMATTER_BYTES, a whole document (the activation tier) at most
  MAX_DOCUMENT_BYTES;
- YAML anchors and aliases are refused (no alias expansion), and so is any value JSON cannot carry,
  a key given twice in one mapping, and a number of more than MAX_NUMBER_DIGITS digits;
- a file that resolves outside its package (a symlink) is refused: reading it would show the
  package whatever the link points at.

YAML is read by the 1.2 core schema: only true/false are booleans (`on`, `no`, `Yes` are text),
no merge keys, no implicit timestamps. A plain scalar in a field the format types as text
(`version`, `name`, each entry of `commands`…) is its text as written: `version: 1.0` is "1.0".

What the format allows is accepted: keys this runtime does not know are kept (`model_extra`),
`entry` may be a plain string, and `commands` may hold command paths (`items remove`).
"""

from __future__ import annotations

import codecs
import copy
import hashlib
import json
import os
import re
import stat
import threading
from collections import OrderedDict
from pathlib import Path
from typing import IO, Annotated, Any, Literal

import yaml
from pydantic import AfterValidator, BaseModel, BeforeValidator, ConfigDict, Field, StringConstraints

FRONTMATTER_FENCE = b"---"
# A frontmatter longer than this is refused rather than read to the end of a huge file.
MAX_FRONTMATTER_BYTES = 64 * 1024
# APP.md or SKILL.md read whole (activation, check): larger is refused, not loaded into memory.
MAX_DOCUMENT_BYTES = 1024 * 1024
SUPPORTED_SCHEMA = "agentapplications/v1"
# A number in frontmatter with more digits than this is refused before it is converted (a
# 5,000-digit integer costs time to convert, and no field of the format needs one).
MAX_NUMBER_DIGITS = 30
# Fields the format types as text: a plain scalar there is its text as written.
APP_TEXT_FIELDS = frozenset(
    {"schema", "kind", "slug", "name", "description", "version", "license", "scheduling"}
)
APP_TEXT_LISTS = frozenset({"commands", "confirmationRequired", "skills", "tags"})
SKILL_TEXT_FIELDS = frozenset({"name", "description", "license", "compatibility", "allowed-tools"})


class ManifestError(Exception):
    """An APP.md or SKILL.md whose frontmatter cannot be read or does not fit the format."""


class UnsupportedSchema(ManifestError):
    """The APP.md declares a `schema` other than the one this runtime reads."""


def _one_line_command(command: str) -> str:
    if any(not character.isprintable() for character in command):
        raise ValueError("entry.command must be one line, without control characters")
    if not command.strip():
        # Found by an outside review: a blank entry ran its first argument as the program.
        raise ValueError('entry.command must name a program; it is blank, so the first of "$@" would run')
    operator = _trailing_operator(command)
    if operator:
        # The arguments are appended as "$@": after a control operator they would run as a
        # command, after a redirection the first would name a file to read or overwrite.
        raise ValueError(
            f"entry.command must not end with a shell operator (; & | < > ( ) or \\), "
            f"and it ends with {operator!r}"
        )
    problem = _where_arguments_would_land(command)
    if problem:
        raise ValueError(f'entry.command {problem}: the arguments appended as "$@" would be lost')
    if not _last_command_names_a_program(command):
        # Found by an outside review: `FOO=1` or `>/dev/null` ran the first argument as the program.
        raise ValueError(
            "entry.command must name a program: its last command holds only variable settings or "
            'redirections, so the first of "$@" would run'
        )
    return command


# Characters that make up sh's operators (control: ; & | ( ); redirection: < > and their
# forms 2> >> &> >| <> <& >& <<).
_OPERATOR_CHARACTERS = frozenset(";&|<>()")


def _trailing_operator(command: str) -> str | None:
    """The operator the command ends with, as sh reads it (outside quotes, not escaped), or None;
    a trailing `\\` counts too (it would escape the space before the arguments)."""
    plain: list[tuple[str, bool]] = []  # each character, and whether sh reads it unquoted
    quote: str | None = None
    escaped = False
    for character in command:
        if escaped:
            escaped = False
            plain.append((character, False))
        elif quote == "'":
            quote = None if character == "'" else quote
            plain.append((character, False))
        elif character == "\\":
            escaped = True
            plain.append((character, quote is None))
        elif quote == '"':
            quote = None if character == '"' else quote
            plain.append((character, False))
        else:
            quote = character if character in "'\"" else None
            plain.append((character, quote is None and character not in "'\""))
    while plain and plain[-1][1] and plain[-1][0].isspace():
        plain.pop()
    if plain and plain[-1] == ("\\", True):
        return "\\"
    tail = ""
    if len(plain) >= 3 and plain[-1] == ("-", True) and plain[-3:-1] == [("<", True), ("<", True)]:
        tail, plain = "-", plain[:-1]  # <<- (a here-document that strips tabs)
    while plain and plain[-1][1] and plain[-1][0] in _OPERATOR_CHARACTERS:
        tail = plain.pop()[0] + tail
    return tail if tail and tail != "-" else None


def _unquoted(command: str) -> tuple[list[int], str | None]:
    """Where sh reads the command's characters as they are (outside quotes, not escaped, not a
    quote or a backslash itself), and the quote left open at its end, if any."""
    found: list[int] = []
    quote: str | None = None
    escaped = False
    for at, character in enumerate(command):
        if escaped:
            escaped = False
        elif quote == "'":
            quote = None if character == "'" else quote
        elif character == "\\":
            escaped = True
        elif quote == '"':
            quote = None if character == '"' else quote
        elif character in "'\"":
            quote = character
        else:
            found.append(at)
    return found, quote


def _where_arguments_would_land(command: str) -> str | None:
    """Why `<command> "$@"` would not pass the arguments, as sh reads it: an unclosed quote, or a
    comment (`#` starting a word, outside quotes) that would swallow them."""
    plain, quote = _unquoted(command)
    for at in plain:
        previous = command[at - 1] if at else " "
        if command[at] == "#" and (previous.isspace() or previous in ";&|()<>"):
            return "holds a comment"
    return "leaves a quote open" if quote else None


# A shell word as sh reads it (quoted parts and escapes included), a variable setting, and a
# redirection with its word: what a simple command may hold besides its program and arguments.
_WORD = r"""(?:[^\s'"\\;&|<>()]|\\.|'[^']*'|"(?:[^"\\]|\\.)*")+"""
_SETTING = re.compile(rf"[A-Za-z_][A-Za-z0-9_]*=(?:{_WORD})?")
_REDIRECTION = re.compile(rf"[0-9]*(?:<<-|<<|>>|<>|<&|>&|>\||&>|<|>)\s*{_WORD}")


def _last_command_names_a_program(command: str) -> bool:
    """Whether the simple command that "$@" is appended to holds a word besides variable settings
    and redirections: else sh runs the first argument as the program."""
    start = 0
    for at in _unquoted(command)[0]:
        if command[at] in ";&|()" and not _in_a_redirection(command, at):
            start = at + 1  # a control operator: the last simple command starts after it
    rest = command[start:].strip()
    while rest:
        found = _SETTING.match(rest) or _REDIRECTION.match(rest)
        if found is None:
            return True
        rest = rest[found.end() :].lstrip()
    return False


def _in_a_redirection(command: str, at: int) -> bool:
    """Whether the `&` or `|` at `at` belongs to a redirection (`&>`, `>&`, `<&`, `>|`)."""
    character = command[at]
    after, before = command[at + 1 : at + 2], command[at - 1 : at] if at else ""
    return (character == "&" and (after == ">" or before in ("<", ">"))) or (
        character == "|" and before == ">"
    )


def _each_once(names: list[str]) -> list[str]:
    repeated = sorted({name for name in names if names.count(name) > 1})
    if repeated:
        raise ValueError(f"lists {', '.join(repeated)} more than once")
    return names


def _entry_mapping(value: Any) -> Any:
    """The format allows `entry: node app/cli.js` as well as `entry: {command: ...}`."""
    return {"command": value} if isinstance(value, str) else value


# A command name, or a command path: words separated by single spaces, none starting with "-".
CommandPath = Annotated[str, StringConstraints(pattern=r"^[^\s-]\S*( [^\s-]\S*)*$")]
# A skill shortname is the name of its folder under skills/, so it follows the Agent Skills name rule.
SkillName = Annotated[str, StringConstraints(max_length=64, pattern=r"^[a-z0-9]+(-[a-z0-9]+)*$")]


class Entry(BaseModel):
    model_config = ConfigDict(extra="allow")
    command: Annotated[str, Field(min_length=1), AfterValidator(_one_line_command)]


class AppManifest(BaseModel):
    """The APP.md frontmatter fields of Agent Applications v1; any other key is kept in
    `model_extra` (the format's tool-specific extensions belong in `metadata`, but a key this
    runtime does not know never breaks a package)."""

    model_config = ConfigDict(extra="allow")

    schema_id: str | None = Field(None, alias="schema")
    kind: Literal["app"] | None = None
    slug: str | None = Field(None, pattern=r"^[a-z0-9]+(-[a-z0-9]+)*$")
    name: str = Field(min_length=1)
    description: str = Field(min_length=1)
    version: str = Field(min_length=1)
    license: str | None = None
    authors: list[Any] | None = None
    tags: list[str] | None = None
    metadata: dict[str, Any] | None = None
    entry: Annotated[Entry, BeforeValidator(_entry_mapping)]
    commands: list[CommandPath]
    skills: Annotated[list[SkillName], AfterValidator(_each_once)]
    scheduling: Literal["supported", "notSupported"] | None = None
    confirmation_required: list[CommandPath] = Field(default_factory=list, alias="confirmationRequired")

    @property
    def unknown_keys(self) -> list[str]:
        return sorted(self.model_extra or {})


class SkillManifest(BaseModel):
    """The SKILL.md frontmatter keys that Agent Skills allows."""

    model_config = ConfigDict(extra="forbid", populate_by_name=True)

    name: str = Field(max_length=64, pattern=r"^[a-z0-9]+(-[a-z0-9]+)*$")
    description: str = Field(min_length=1, max_length=1024)
    license: str | None = None
    compatibility: str | None = None
    metadata: dict[str, str] | None = None
    allowed_tools: str | None = Field(None, alias="allowed-tools")


class _Refused(yaml.YAMLError):
    """What the frontmatter loader refuses, and on which line (1-based, counting the opening ---)."""

    def __init__(self, reason: str, mark: Any) -> None:
        super().__init__(reason)
        self.reason = reason
        self.line = mark.line + 2


_STR = "tag:yaml.org,2002:str"
_CORE = "tag:yaml.org,2002:"
# The tags of the YAML 1.2 core schema. Any other tag (!!binary, !!timestamp, !!set, a local
# !tag) is refused: read as text it would silently become something its author did not write.
_CORE_TAGS = frozenset(_CORE + name for name in ("str", "int", "float", "bool", "null", "map", "seq"))


class _FrontmatterLoader(yaml.SafeLoader):
    """Safe YAML by the 1.2 core schema, without what a hostile manifest could abuse: anchors and
    aliases (a few bytes can expand to gigabytes), a key given twice (the last would silently win:
    `confirmationRequired` written twice could drop a gate), numbers of huge length, and a tag
    outside the core schema."""

    def compose_node(self, parent: Any, index: Any) -> Any:
        event = self.peek_event()  # type: ignore[no-untyped-call]
        if isinstance(event, yaml.AliasEvent) or getattr(event, "anchor", None) is not None:
            raise _Refused(
                "uses a YAML anchor or alias; they are refused, since a few of them can expand to gigabytes",
                event.start_mark,
            )
        tag = getattr(event, "tag", None)  # an explicit tag only; "!" is YAML's "no particular tag"
        if tag not in (None, "!") and tag not in _CORE_TAGS:
            shown = "!!" + tag.removeprefix(_CORE) if tag.startswith(_CORE) else tag
            raise _Refused(f"uses the YAML tag {shown}, outside the core schema", event.start_mark)
        return super().compose_node(parent, index)

    def construct_mapping(self, node: Any, deep: bool = False) -> Any:
        seen = set()
        for key_node, _ in node.value:
            key = (key_node.tag, key_node.value) if isinstance(key_node, yaml.ScalarNode) else id(key_node)
            if key in seen:
                raise _Refused(f"gives the key {key_node.value!r} twice", key_node.start_mark)
            seen.add(key)
        return super().construct_mapping(node, deep)

    def construct_yaml_int(self, node: Any) -> int:
        text = str(node.value)
        if len(text) > MAX_NUMBER_DIGITS:
            raise _Refused(f"holds a number longer than {MAX_NUMBER_DIGITS} digits", node.start_mark)
        if text.startswith(("0o", "0x")):
            return int(text[2:], 8 if text[1] == "o" else 16)
        return int(text, 10)

    def construct_yaml_float(self, node: Any) -> float:
        text = str(node.value)
        if len(text) > MAX_NUMBER_DIGITS:
            raise _Refused(f"holds a number longer than {MAX_NUMBER_DIGITS} digits", node.start_mark)
        return float(text.lower().replace(".inf", "inf").replace(".nan", "nan"))

    def construct_yaml_bool(self, node: Any) -> bool:
        return str(node.value).lower() == "true"


# The YAML 1.2 core schema's implicit types; everything else in a plain scalar is a string.
_FrontmatterLoader.yaml_implicit_resolvers = {}
for _tag, _pattern, _first in (
    ("tag:yaml.org,2002:bool", r"true|True|TRUE|false|False|FALSE", "tTfF"),
    ("tag:yaml.org,2002:null", r"~|null|Null|NULL|", "~nN"),
    ("tag:yaml.org,2002:int", r"[-+]?[0-9]+|0o[0-7]+|0x[0-9a-fA-F]+", "-+0123456789"),
    (
        "tag:yaml.org,2002:float",
        r"[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?|[-+]?\.(inf|Inf|INF)|\.(nan|NaN|NAN)",
        "-+.0123456789",
    ),
):
    _FrontmatterLoader.add_implicit_resolver(
        _tag, re.compile(f"^(?:{_pattern})$"), [*_first, ""] if _tag.endswith("null") else list(_first)
    )
_FrontmatterLoader.add_constructor("tag:yaml.org,2002:int", _FrontmatterLoader.construct_yaml_int)
_FrontmatterLoader.add_constructor("tag:yaml.org,2002:float", _FrontmatterLoader.construct_yaml_float)
_FrontmatterLoader.add_constructor("tag:yaml.org,2002:bool", _FrontmatterLoader.construct_yaml_bool)


def _as_text(node: Any) -> None:
    """A plain scalar is read as the text it is written as."""
    if isinstance(node, yaml.ScalarNode) and node.style is None:
        node.tag = _STR


def _text_fields_as_written(root: Any, fields: frozenset[str], lists: frozenset[str]) -> None:
    if not isinstance(root, yaml.MappingNode):
        return
    for key_node, value_node in root.value:
        key = key_node.value if isinstance(key_node, yaml.ScalarNode) else None
        if key in fields:
            _as_text(value_node)
        elif key in lists and isinstance(value_node, yaml.SequenceNode):
            for item in value_node.value:
                _as_text(item)
        elif key == "entry" and fields is APP_TEXT_FIELDS:
            _as_text(value_node)  # `entry: <command>`, or its `command`
            _text_fields_as_written(value_node, frozenset({"command"}), frozenset())


def open_regular_file(path: Path) -> IO[bytes]:
    """Open a regular file for reading; anything else (a FIFO, a device, a folder) is a
    ManifestError. O_NONBLOCK keeps the open itself from waiting on a FIFO's writer."""
    try:
        descriptor = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
    except OSError as error:
        raise ManifestError(f"{path}: {error.strerror or error}.") from None
    if not stat.S_ISREG(os.fstat(descriptor).st_mode):
        os.close(descriptor)
        raise ManifestError(f"{path} is not a regular file.")
    os.set_blocking(descriptor, True)
    return os.fdopen(descriptor, "rb")


def _is_fence(line: bytes) -> bool:
    """A `---` line; trailing spaces or tabs (and CR) are tolerated, as editors leave them."""
    return line.rstrip() == FRONTMATTER_FENCE


def read_frontmatter(path: Path, *, skill: bool = False) -> dict[str, Any]:
    """The YAML mapping between the opening and closing `---`; nothing after is read. A UTF-8
    byte-order mark before the opening `---` is skipped."""
    lines: list[bytes] = []
    size = 0
    try:
        with open_regular_file(path) as handle:
            if not _is_fence(handle.readline(256).removeprefix(codecs.BOM_UTF8)):
                raise ManifestError(f"{path} does not start with a --- frontmatter line.")
            while True:
                # Bounded reads: a "line" of a gigabyte is never held in memory.
                line = handle.readline(MAX_FRONTMATTER_BYTES - size + 1)
                if not line:
                    raise ManifestError(f"{path}: frontmatter is never closed with ---.")
                if _is_fence(line):
                    break
                size += len(line)
                if size > MAX_FRONTMATTER_BYTES:
                    raise ManifestError(f"{path}: frontmatter is longer than {MAX_FRONTMATTER_BYTES} bytes.")
                lines.append(line)
    except OSError as error:
        raise ManifestError(f"{path}: {error.strerror or error}.") from None
    return _parsed_frontmatter(b"".join(lines), path, skill=skill)


# Parsed frontmatter by the digest of its bytes: the harness and the runtimes load a package per
# step, and the YAML parse is most of that. The file is read every time, so an edited APP.md or
# SKILL.md is a new key and is parsed anew; a refused frontmatter is never kept (it is parsed, and
# its error raised, each time).
_frontmatters: OrderedDict[tuple[bool, bytes], dict[str, Any]] = OrderedDict()
_frontmatters_lock = threading.Lock()
MAX_CACHED_FRONTMATTERS = 256  # an APP.md and a few SKILL.md per package


def _parsed_frontmatter(text: bytes, path: Path, *, skill: bool) -> dict[str, Any]:
    """parse_frontmatter, once per distinct text; each caller gets its own copy to change."""
    key = (skill, hashlib.sha256(text).digest())
    with _frontmatters_lock:
        cached = _frontmatters.get(key)
        if cached is not None:
            _frontmatters.move_to_end(key)
            return copy.deepcopy(cached)
    data = parse_frontmatter(text, path, skill=skill)
    with _frontmatters_lock:
        _frontmatters[key] = copy.deepcopy(data)
        while len(_frontmatters) > MAX_CACHED_FRONTMATTERS:
            _frontmatters.popitem(last=False)
    return data


def parse_frontmatter(text: bytes, path: Path, *, skill: bool = False) -> dict[str, Any]:
    """The frontmatter's YAML as data (see _FrontmatterLoader); ManifestError naming the problem.
    `skill`: a SKILL.md, whose text fields are those Agent Skills defines."""
    try:
        loader = _FrontmatterLoader(text.decode("utf-8"))
    except UnicodeDecodeError:
        raise ManifestError(f"{path}: frontmatter is not UTF-8 text.") from None
    try:
        node = loader.get_single_node()
        if skill:
            _text_fields_as_written(node, SKILL_TEXT_FIELDS, frozenset())
        else:
            _text_fields_as_written(node, APP_TEXT_FIELDS, APP_TEXT_LISTS)
        data = loader.construct_document(node) if node is not None else None
    except _Refused as error:
        raise ManifestError(f"{path}: frontmatter {error.reason} (line {error.line}).") from None
    except yaml.YAMLError as error:
        raise ManifestError(
            f"{path}: frontmatter is not valid YAML ({' '.join(str(error).split())})."
        ) from None
    except (RecursionError, MemoryError):
        raise ManifestError(f"{path}: frontmatter is nested too deeply.") from None
    finally:
        loader.dispose()
    if not isinstance(data, dict):
        raise ManifestError(f"{path}: frontmatter is not a mapping of fields.")
    try:
        json.dumps(data, allow_nan=False)
    except (TypeError, ValueError):
        raise ManifestError(
            f"{path}: frontmatter holds a value JSON cannot carry (binary, a set, NaN…)."
        ) from None
    return data


def read_document(path: Path) -> str:
    """A whole APP.md or SKILL.md as text: a regular file, at most MAX_DOCUMENT_BYTES, UTF-8."""
    try:
        with open_regular_file(path) as handle:
            data = handle.read(MAX_DOCUMENT_BYTES + 1)
    except OSError as error:
        raise ManifestError(f"{path}: {error.strerror or error}.") from None
    if len(data) > MAX_DOCUMENT_BYTES:
        raise ManifestError(f"{path} is longer than {MAX_DOCUMENT_BYTES} bytes.")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as error:
        raise ManifestError(f"{path} is not UTF-8 text (byte {error.start}).") from None


def read_body(path: Path) -> str:
    """Everything after the closing `---` (the activation tier)."""
    lines = read_document(path).removeprefix("\ufeff").splitlines(keepends=True)
    fence = FRONTMATTER_FENCE.decode()
    if lines and lines[0].rstrip() == fence:
        for number, line in enumerate(lines[1:], start=1):
            if line.rstrip() == fence:
                lines = lines[number + 1 :]
                break
    return "".join(lines).lstrip("\r\n")


def check_schema(data: dict[str, Any], path: Path) -> None:
    """UnsupportedSchema when the frontmatter declares a schema other than v1 (none is fine)."""
    declared = data.get("schema")
    if declared is not None and declared != SUPPORTED_SCHEMA:
        raise UnsupportedSchema(
            f"{path}: schema {declared!r} is not supported; this runtime reads {SUPPORTED_SCHEMA}."
        )


def package_file(package_dir: Path, relative: Path | str) -> Path:
    """A file of the package, refused (ManifestError) when it resolves outside the package: a
    symlink to /etc/… must not make the runtime show what it points at."""
    path = package_dir / relative
    try:
        root = package_dir.resolve()
        target = path.resolve()
    except (RuntimeError, OSError) as error:  # a symlink loop (RuntimeError before Python 3.13)
        raise ManifestError(f"{path} cannot be resolved ({error}); it is not read.") from None
    if not target.is_relative_to(root):
        raise ManifestError(f"{path} resolves outside the package (to {target}); it is not read.")
    return path


def load_app_manifest(package_dir: Path) -> AppManifest:
    path = package_file(package_dir, "APP.md")
    data = read_frontmatter(path)
    check_schema(data, path)
    return app_manifest_from(data, path)


def app_manifest_from(data: dict[str, Any], path: Path) -> AppManifest:
    """The frontmatter read from `path` as the v1 model; ManifestError naming the first problem."""
    from pydantic import ValidationError

    try:
        return AppManifest.model_validate(data)
    except ValidationError as error:
        raise ManifestError(f"{path}: {_first_problem(error)}") from None


def load_skill_manifest(skill_file: Path) -> SkillManifest:
    from pydantic import ValidationError

    data = read_frontmatter(skill_file, skill=True)
    try:
        return SkillManifest.model_validate(data)
    except ValidationError as error:
        raise ManifestError(f"{skill_file}: {_first_problem(error)}") from None


def skill_path(package_dir: Path, shortname: str) -> Path:
    """A shortname resolves by convention to skills/<shortname>/SKILL.md (shortnames are folder
    names, never paths: the manifest refuses anything else)."""
    return package_dir / "skills" / shortname / "SKILL.md"


def _first_problem(error: Any) -> str:
    first = error.errors()[0]
    where = ".".join(str(part) for part in first["loc"]) or "frontmatter"
    return f"{where}: {first['msg']}"
