"""--human: readable text with the same exit status. Text is not an envelope, so it is not a scenario.

--human is an option of the parser (before the command or among its options), never a word picked
out of the arguments; and what an entity holds can never pose as output of its own.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from agentapps.harness import AppRunner
from agentic_kit import human
from tests.packages import AppFacts
from tests.states import encode, example

NOW = {"AGENTIC_NOW": "2026-04-01T00:00:00Z"}
LISTED = "td_0001  [open]  Write docs  due 2026-04-05\n(1 item)\n"


def test_human_flag_prints_text_instead_of_json(todo: AppRunner) -> None:
    assert todo.run("add", "Write docs", "--due-at", "2026-04-05", env=NOW).ok
    out = todo.run_human("list")
    assert out.exit_status == 0
    assert out.stdout == LISTED


@pytest.mark.parametrize(
    "args",
    [["--human", "list"], ["list", "--human"], ["list", "--status", "all", "--human", "--limit", "5"]],
)
def test_human_flag_is_an_option_of_the_app_and_of_every_command(todo: AppRunner, args: list[str]) -> None:
    assert todo.run("add", "Write docs", "--due-at", "2026-04-05", env=NOW).ok
    out = todo.run_text(*args)
    assert out.stdout.startswith("td_0001  [open]  Write docs")


@pytest.mark.parametrize("args", [["get", "--help", "--human"], ["get", "--human", "--help"]])
def test_human_flag_counts_on_either_side_of_help(todo: AppRunner, args: list[str]) -> None:
    out = todo.run_text(*args)
    assert (out.exit_status, out.stdout.startswith("Usage: app/cli.py get ")) == (0, True)


def test_human_flag_keeps_the_error_exit_status(todo: AppRunner) -> None:
    out = todo.run_human("get", "td_0404")
    assert out.exit_status == 4
    assert out.stdout.startswith("Error NOT_FOUND: No to-do with id td_0404.\nHint: ")


def test_human_flag_after_double_dash_is_an_argument(todo: AppRunner) -> None:
    assert todo.run("add", "--", "--human").item["title"] == "--human"


def test_a_multi_line_value_cannot_pose_as_a_field(todo: AppRunner) -> None:
    forged = "looks done\nstatus  completed\ncompletedAt  2026-04-01T00:00:00.000Z\n"
    assert todo.run("add", "Write docs", "--description", forged, env=NOW).ok
    lines = todo.run_human("get", "td_0001").stdout.splitlines()
    fields = [line.split()[0] for line in lines if line and not line.startswith(" ")]
    assert fields == [
        "id",
        "title",
        "description",
        "status",
        "dueAt",
        "createdAt",
        "updatedAt",
        "completedAt",
        "tags",
        "priority",
        "repeat",
    ]
    assert lines[2:6] == [
        "description  looks done",
        "             status  completed",
        "             completedAt  2026-04-01T00:00:00.000Z",
        "",
    ]
    assert lines[6] == "status       open"


@pytest.mark.parametrize(
    ("hidden", "shown"),
    [
        ("\u202e", "\\u202e"),  # right-to-left override
        ("\u2066", "\\u2066"),  # left-to-right isolate
        ("\u200f", "\\u200f"),  # right-to-left mark
        ("\u2028", "\\u2028"),  # line separator
        ("\u2029", "\\u2029"),  # paragraph separator
        ("\x1b[2J", "\\x1b[2J"),
        ("\x85", "\\x85"),
    ],
)
def test_human_output_escapes_layout_and_bidi_controls_as_it_escapes_c0_controls(
    app: AppRunner, facts: AppFacts, hidden: str, shown: str
) -> None:
    # Written straight into the state: the input checks refuse these in one-line fields, but a
    # state from before them, or edited by hand, may hold them anywhere.
    state = example(facts.package)
    entity = next(value for value in state.values() if isinstance(value, list))[0]
    entity["title" if "title" in entity else "label"] = f"a{hidden}b"
    app.state_dir.mkdir()
    app.state_file(facts.state_file).write_bytes(encode(state))
    for args in (["get", facts.first_id], ["list", *(["--status", "all"] if "label" in entity else [])]):
        out = app.run_human(*args).stdout
        assert f"a{shown}b" in out, args
        assert hidden not in out, args


@pytest.mark.parametrize(
    ("hidden", "shown"),
    [
        ("\u200b", "\\u200b"),  # zero-width space
        ("\u200c", "\\u200c"),  # zero-width non-joiner
        ("\u200d", "\\u200d"),  # zero-width joiner, between letters
        ("\u2060", "\\u2060"),  # word joiner
        ("\u2064", "\\u2064"),  # invisible plus
        ("\u206a", "\\u206a"),  # inhibit symmetric swapping
        ("\ufeff", "\\ufeff"),  # byte-order mark
        ("\xad", "\\xad"),  # soft hyphen
        ("\ufff9", "\\ufff9"),  # interlinear annotation anchor
        ("\U000e0041", "\\U000e0041"),  # tag letter A: text no one sees
        ("\u034f", "\\u034f"),  # combining grapheme joiner
        ("\u115f", "\\u115f"),  # Hangul choseong filler, blank as a space
        ("\u3164", "\\u3164"),  # Hangul filler
        ("\u180e", "\\u180e"),  # Mongolian vowel separator
    ],
)
def test_human_output_escapes_invisible_format_characters(todo: AppRunner, hidden: str, shown: str) -> None:
    assert todo.run("add", f"a{hidden}b", env=NOW).ok
    for args in (["get", "td_0001"], ["list"]):
        out = todo.run_human(*args).stdout
        assert f"a{shown}b" in out, args
        assert hidden not in out, args


def test_human_output_keeps_a_zero_width_joiner_inside_an_emoji(todo: AppRunner) -> None:
    emoji = "👩\u200d💻 and 🏳\ufe0f\u200d🌈"
    assert todo.run("add", emoji, env=NOW).ok
    assert f"title        {emoji}\n" in todo.run_human("get", "td_0001").stdout


def test_human_output_shows_values_as_json_does(timer: AppRunner, notes: AppRunner) -> None:
    assert timer.run("start", "tea", env=NOW).ok
    shown = timer.run_human("get", "tm_0001", env=NOW).stdout
    assert "isDue      false\n" in shown
    assert "duration   null\n" in shown
    assert notes.run("add", "x", "--tag", "a,b", "--tag", "c", env=NOW).ok
    assert 'tags       ["a,b", "c"]\n' in notes.run_human("get", "nt_0001").stdout


def test_describe_as_text_shows_its_commands_as_json(todo: AppRunner) -> None:
    shown = todo.run_human("describe").stdout
    for python_only in ("{'", "True", "None"):
        assert python_only not in shown
    fields: dict[str, list[str]] = {}
    name = ""
    for line in shown.splitlines():  # a field's name, then its value's lines indented under it
        if line.startswith(" "):
            fields[name].append(line[len("commands  ") :])
        else:
            name, _, value = line.partition(" ")
            fields[name] = [value.strip()]
    commands, errors = (json.loads("\n".join(fields[name])) for name in ("commands", "errors"))
    assert [command["name"] for command in commands][:2] == ["describe", "add"]
    assert errors[0] == {"code": "INTERNAL_ERROR", "exit": 1}


def test_a_human_error_message_stays_on_one_line(notes: AppRunner) -> None:
    """A newline or tab in a path a message or hint names is escaped, as other controls are."""
    out = notes.run_human("add", "x", "--body-file", "a\nb\tc")
    assert out.exit_status == 3
    error, hint = out.stdout.splitlines()
    assert error == "Error VALIDATION_ERROR: --body-file a\\nb\\tc: no such file."
    assert hint.startswith("Hint: A relative path is read from the folder the app runs in")
    assert f"{notes.package.root / 'a'}\\nb\\tc." in hint


def test_a_list_count_agrees_with_its_noun(todo: AppRunner) -> None:
    assert todo.run_human("list", env=NOW).stdout == "(0 items)\n"
    assert todo.run("add", "Write docs", env=NOW).ok
    assert todo.run_human("list", env=NOW).stdout.endswith("\n(1 item)\n")
    assert todo.run("add", "Ship it", env=NOW).ok
    assert todo.run_human("list", env=NOW).stdout.endswith("\n(2 items)\n")
    assert todo.run_human("list", "--limit", "1", env=NOW).stdout.endswith("\n(1 of 2 items)\n")
    assert todo.run("remove", "td_0002", "--confirm", env=NOW).ok
    assert todo.run_human("list", "--limit", "1", env=NOW).stdout.endswith("\n(1 of 1 item)\n")


def test_what_an_answer_adds_beside_its_items_is_shown_too(todo: AppRunner, tmp_path: Path) -> None:
    """complete's `next` (one item, or each by the id it follows), import's `ids`, export's
    `schemaVersion`: the text leaves out nothing the answer holds."""
    assert todo.run("add", "Water", "--due-at", "2026-04-02", "--repeat", "weekly", env=NOW).ok
    assert todo.run("add", "Feed", "--due-at", "2026-04-03", "--repeat", "daily", env=NOW).ok
    one = todo.run_human("complete", "td_0001", env=NOW).stdout
    assert one.endswith("\n\nnext:\ntd_0003  [open]  Water  due 2026-04-09\n")
    several = todo.run_human("complete", "td_0002", "td_0003", env=NOW).stdout
    assert several.endswith(
        "(2 items)\n\nnext:\ntd_0002  td_0004  [open]  Feed  due 2026-04-04\n"
        "td_0003  td_0005  [open]  Water  due 2026-04-16\n"
    )
    exported = todo.run("export", env=NOW)
    human = todo.run_human("export", env=NOW).stdout
    assert human.endswith("(5 items)\n\napp  agentic-to-do\n\nschemaVersion  2\n\nnextId  6\n")
    backup = tmp_path / "export.json"
    backup.write_text(exported.stdout)
    other = AppRunner(todo.package.root, tmp_path / "other-state")  # a list with an item: new ids
    # Made a minute later: an item with the id and createdAt of one in the export would be that item.
    assert other.run("add", "already there", env={"AGENTIC_NOW": "2026-04-01T00:01:00Z"}).ok
    imported = other.run_human("import", "--file", str(backup), env=NOW).stdout
    assert imported.endswith("\n\nids:\n" + "".join(f"td_000{n} → td_{n + 1:04d}\n" for n in range(1, 6)))


def test_a_tag_count_shows_each_of_its_fields(notes: AppRunner) -> None:
    assert notes.run("add", "a", "--tag", "home", "--tag", "work", env=NOW).ok
    assert notes.run("add", "b", "--tag", "home", env=NOW).ok
    assert notes.run_human("tags", env=NOW).stdout == "tag home  count 2\ntag work  count 1\n(2 items)\n"


def test_a_timer_shows_its_durations_as_a_person_reads_them(timer: AppRunner) -> None:
    assert timer.run("start", "tea", "--duration", "1h30m", env=NOW).ok
    later = {"AGENTIC_NOW": "2026-04-01T00:08:23.901Z"}  # 503,901 ms after the start
    assert timer.run_human("get", "tm_0001", env=later).stdout == (
        "id         tm_0001\n"
        "label      tea\n"
        "kind       countdown\n"
        "status     running\n"
        "duration   1h 30m\n"
        "dueAt      2026-04-01 01:30:00 +00:00\n"
        "startedAt  2026-04-01 00:00:00 +00:00\n"
        "pausedAt   null\n"
        "stoppedAt  null\n"
        "createdAt  2026-04-01 00:00:00 +00:00\n"
        "updatedAt  2026-04-01 00:00:00 +00:00\n"
        "elapsed    8m 23s\n"
        "remaining  1h 21m\n"
        "isDue      false\n"
    )


@pytest.mark.parametrize(
    ("milliseconds", "shown"),
    [
        (0, "0s"),
        (750, "750ms"),
        (1_000, "1s"),
        (59_999, "59s"),
        (60_000, "1m 00s"),
        (503_901, "8m 23s"),
        (3_599_999, "59m 59s"),
        (3_720_000, "1h 02m"),
        (86_399_999, "23h 59m"),
        (86_400_000, "1d 00h"),
        (277_200_000, "3d 05h"),
    ],
)
def test_a_duration_is_cut_to_its_two_largest_units(milliseconds: int, shown: str) -> None:
    assert human.duration(milliseconds) == shown


@pytest.mark.parametrize(("count", "shown"), [(0, "0 errors"), (1, "1 error"), (2, "2 errors")])
def test_a_count_agrees_with_its_noun(count: int, shown: str) -> None:
    assert human.plural(count, "error") == shown


def test_a_human_list_shows_the_priority_and_tags_its_sort_and_filters_read(
    todo: AppRunner, notes: AppRunner
) -> None:
    """Sorted by priority or filtered by tag, a list shows them, so it reads as sorted."""
    assert todo.run("add", "Read", env=NOW).ok
    tagged = ["--priority", "high", "--tag", "home", "--tag", "urgent"]
    assert todo.run("add", "Call plumber", *tagged, env=NOW).ok
    assert todo.run_human("list", "--sort", "priority", env=NOW).stdout == (
        "td_0002  [open]  !high  Call plumber  #home #urgent\ntd_0001  [open]  Read\n(2 items)\n"
    )
    assert notes.run("add", "Plumber", "--tag", "home", env=NOW).ok
    assert notes.run_human("list", "--tag", "home", env=NOW).stdout == "nt_0001  Plumber  #home\n(1 item)\n"


def test_a_list_sorted_by_updated_shows_when_each_changed(app: AppRunner, facts: AppFacts) -> None:
    """Found by an adversary: `list --human --sort updated` showed no moment in any app, so the
    list looked unsorted. Sorted so, each line ends with the item's updatedAt; unsorted, it
    shows the app's own fields alone."""
    later = {"AGENTIC_NOW": "2026-04-01T10:00:00Z"}
    assert app.run(*facts.write, env={"AGENTIC_NOW": "2026-04-01T09:00:00Z"}).ok
    assert app.run(*facts.write, env=later).ok
    status = ["--status", "all"] if facts.package == "agentic-timer" else []
    lines = app.run_human("list", "--sort", "updated", *status).stdout.splitlines()
    assert lines[0].endswith("updated 2026-04-01 09:00:00 +00:00"), lines
    assert lines[1].endswith("updated 2026-04-01 10:00:00 +00:00"), lines
    assert "updated" not in app.run_human("list", *status).stdout
