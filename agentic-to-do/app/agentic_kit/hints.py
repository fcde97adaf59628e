"""Every refusal of a command line says how to fix it: the nearest command to a word that is none,
and the suite's own words for what the parser refuses (a value outside its choices, an argument
missing or one too many, an unknown option, an option without its value).

The runner turns typer's parse errors into these; nothing here depends on typer's wording.
"""

from __future__ import annotations

import difflib
import re
import shlex
from collections.abc import Callable, Collection, Mapping, Sequence

import typer

from .errors import AppError, ErrorCode, validation_error
from .text import quoted, shortened

# Words an agent reaches for, and the command each means in an app that has it. A word may mean
# several commands (an app has at most one of them); the first the app has is the one suggested.
_MEANINGS: Mapping[tuple[str, ...], str] = {
    ("complete", "stop"): "done finish",
    ("complete",): "check close",
    ("reopen",): "undo uncomplete uncheck unfinish undone incomplete",
    ("remove",): "delete del rm erase drop",
    ("stop", "remove"): "cancel",
    ("stop",): "end halt",
    ("search", "list"): "find grep query",
    ("list",): "ls all",
    ("get",): "show view read",
    ("add", "start"): "new create",
    ("update",): "edit change set rename retitle",
    ("resume",): "continue unpause",
    ("pause",): "hold",
    ("start",): "begin",
    ("describe",): "help",
}
SYNONYMS: Mapping[str, tuple[str, ...]] = {
    word: meanings for meanings, words in _MEANINGS.items() for word in words.split()
}

# A word after `--` stays a value; quoting it in a hint only when the shell needs it.
_PLAIN_WORDS = re.compile(r"[\w@%+=:,./-]+")


class OtherValue(AppError):
    """A command's refusal of one option's value whose fix is the same call with another value
    (`list --tag -home`: `list --tag home`). The command cannot see the words typed; the runner
    writes the call from them, keeping every other word, as a choice's hint is written (the hint
    then ends with it). `same`: whether a value as typed is the one refused (the command may have
    normalised it)."""

    def __init__(
        self, message: str, hint: str, option: str, instead: str, same: Callable[[str], bool]
    ) -> None:
        super().__init__(ErrorCode.VALIDATION_ERROR, message, hint)
        self.option = option
        self.instead = instead
        self.same = same

    def in_call(self, command: str, words: Sequence[str], at: int, typed: str) -> AppError:
        """The refusal with the call: `words` as typed after the command, `words[at]` ending with
        the value `typed` (`--tag -home`'s second word, or `--tag=-home`)."""
        call = list(words)
        call[at] = call[at][: len(call[at]) - len(typed)] + self.instead
        if not _pasteable(call):
            return AppError(ErrorCode.VALIDATION_ERROR, self.message, f"{self.hint} {self.instead}.")
        return AppError(ErrorCode.VALIDATION_ERROR, self.message, f"{self.hint} `{_call(command, call)}`.")


class BadValue(typer.BadParameter):
    """A value a typer `parser=` refuses, with the hint that fixes it (the runner shows both)."""

    def __init__(self, message: str, hint: str) -> None:
        super().__init__(message)
        self.hint = hint


def nearest_command(word: str, commands: Sequence[str]) -> str | None:
    """The command the word most likely meant: itself in another case, a synonym the app has, or
    the closest spelling (difflib); None when nothing is close."""
    folded = word.strip().casefold()
    if folded in commands:
        return folded
    meant = next((command for command in SYNONYMS.get(folded, ()) if command in commands), None)
    if meant is not None:
        return meant
    close = difflib.get_close_matches(folded, list(commands), n=1, cutoff=0.6)
    # `un` and a command means its opposite (`uncomplete`), never that command: found outside.
    if close and folded.startswith("un") and close[0] == folded[2:]:
        return None
    return close[0] if close else None


def unknown_command(
    word: str,
    commands: Sequence[str],
    words: Sequence[str] = (),
    refusal_of: Callable[[str, Sequence[str]], AppError | None] | None = None,
    before: Sequence[str] = (),
) -> AppError:
    """`words`: what was typed after the word, kept in the call the hint suggests (`lst --status
    open`: `list --status open`), as a choice's hint keeps the rest of its call, when
    `refusal_of(command, words)` is None: read as that command's line, it is not refused in turn.
    `before`: the app's options typed before the word (`--human`), kept before the command."""
    near = nearest_command(word, commands)
    listed = ", ".join(commands)
    hint = ""
    if near:
        refused = refusal_of(near, words) if refusal_of is not None else None
        hint = (
            f"Did you mean `{' '.join([*before, _call(near, words)])}`? "
            if refused is None and _pasteable(before, words)
            else f"Did you mean {near}? {_still_refused(refused) if refused is not None else ''}"
        )
    return AppError(
        ErrorCode.USAGE_ERROR,
        f"{quoted(word)} is not a command of this app.",
        f"{hint}The commands are: {listed} (add --help to any of them).",
    )


def _still_refused(refused: AppError, listed: str = "") -> str:
    """What a corrected call would still meet, in words: its refusal's message and hint, without
    the list of options (`listed`) that the hint around it gives once."""
    hint = refused.hint or ""
    parts = [refused.message, *(hint.split(listed) if listed else [hint])]
    return " ".join(["The call would still be refused:", *(part.strip() for part in parts if part.strip())])


def shell_word(word: str) -> str:
    """The word as it would be typed in a shell: bare when plain, else quoted (double quotes when
    they are enough, as people write them). A word with a newline or another unprintable character
    is single-quoted with the character itself inside, as a POSIX shell reads it back: a display
    form (`'a\\nb'`) would give a backslash and an `n`. (--human shows such a character escaped.)"""
    if word and _PLAIN_WORDS.fullmatch(word):
        return word
    if word.isprintable() and not any(char in word for char in '"$`\\!'):
        return f'"{word}"'
    return shlex.quote(word)


# A call's words are kept whole (a word cut short would make the call read or store something
# else): a hint is never longer than the command line it answers.
CALL_WORD_MAX_CHARS = 131_072  # Linux's longest single argument (MAX_ARG_STRLEN): none typed is longer


def _call(command: str, words: Sequence[str]) -> str:
    return " ".join([command, *(shell_word(shortened(word, CALL_WORD_MAX_CHARS)) for word in words)])


def _pasteable(*calls: Sequence[str]) -> bool:
    """Whether the words can stand in a hint between backticks: a word holding a backtick would
    end the call there, and what follows could read as a call of its own (`x` `remove td_0001
    --confirm` #`, found outside). A hint with such a word says what to change in words."""
    return not any("`" in word for call in calls for word in call)


def bad_choice(
    option: str, value: str, choices: Sequence[str], command: str, words: Sequence[str] = (), at: int = -1
) -> AppError:
    """`words`, what was typed after the command, and `at`, the word holding the value (-1: none):
    the example is that call with the value replaced, so that it keeps the command's ID and every
    other option. The value ends its word: `--priority urgent`'s second word, `--priority=urgent`.
    Only a choice close to the value (difflib, as for a command) makes a call: one far from it
    (`done` for `completed`, `active` for `stopped`) would change the meaning, so the hint then
    lists the choices alone."""
    listed = ", ".join(choices)
    close = difflib.get_close_matches(value.casefold(), list(choices), n=1, cutoff=0.6)
    message = f"{option} {quoted(value)} is not one of: {listed}."
    if not close:
        return validation_error(
            message,
            "Give the one of those values that was meant: none is close enough to "
            f"{quoted(value) if _pasteable([value]) else 'the value given'} to guess.",
        )
    typed = list(words)
    if at >= 0:
        typed[at] = typed[at][: len(typed[at]) - len(value)] + close[0]
    if at >= 0 and not _pasteable(typed):
        return validation_error(message, f"Did you mean {close[0]}? Give {option} {close[0]}.")
    call = _call(command, typed) if at >= 0 else f"{command} {option} {close[0]}"
    return validation_error(message, f"Did you mean {close[0]}? `{call}`.")


def bad_value(option: str, message: str, hint: str | None, command: str) -> AppError:
    return validation_error(
        f"{option} {message}", hint or f"Run `{command} --help` to see what {option} takes."
    )


def missing_argument(
    command: str, missing: Sequence[tuple[str, str]], given: Sequence[str], options: Sequence[str]
) -> AppError:
    """`missing`: the arguments not given, each (METAVAR, help); `given`: the arguments typed
    before them; `options`: the options typed, as typed. The hint says in words where each goes,
    with no call: any value in one would be a placeholder or a guess, stored as if meant."""
    names = [metavar.rstrip(".") for metavar, _ in missing]
    after = _call(command, given) if _pasteable(given) else f"{command} and the arguments given"
    before = f", before {_call('', options).strip()}" if options and _pasteable(options) else ""
    helps = [help_text.rstrip(".") for _, help_text in missing]
    what = "; ".join(f"{name}: {text}" for name, text in zip(names, helps, strict=True) if text)
    # An ID, and each word of a repeatable argument (TAG...), is one value without spaces.
    one_word = all(metavar.endswith("...") or metavar == "ID" for metavar, _ in missing)
    several = "" if one_word else " Quote a value of several words."
    return AppError(
        ErrorCode.USAGE_ERROR,
        f"{command} needs its {names[0]} argument.",
        f"Type the {' and then the '.join(names)} after {after}{before}"
        + (f"; {what}." if what else ".")
        + several,
    )


def missing_option(
    command: str, option: str, metavar: str, help_text: str, call: Sequence[str] | None = None
) -> AppError:
    """A required option left out: name the option, not its value's metavar, as an argument; in
    words, as a missing argument is (a call would hold a placeholder for its value). `call`: the
    words after the command when a word typed alone was most likely the option's value."""
    if call is not None and _pasteable(call):
        return AppError(
            ErrorCode.USAGE_ERROR,
            f"{command} needs its {option} option, and takes no argument.",
            f"Give the {metavar} as {option}'s value: `{_call(command, call)}`.",
        )
    return AppError(
        ErrorCode.USAGE_ERROR,
        f"{command} needs its {option} option.",
        f"Add {option} and its {metavar} to the call"
        + (f"; {metavar}: {help_text.rstrip('.')}." if help_text else "."),
    )


def missing_value(option: str, metavar: str, help_text: str, choices: Sequence[str] | None) -> AppError:
    takes = f"one of {', '.join(choices)}" if choices else help_text.rstrip(".")
    return AppError(
        ErrorCode.USAGE_ERROR,
        f"{option} needs a value.",
        # In words, not as a call: the value is the user's, and a call would hold its placeholder.
        f"Type its {metavar} right after {option}" + (f"; {metavar}: {takes}." if takes else "."),
    )


def option_taken_as_value(
    command: str, option: str, metavar: str, value: str, extra: Sequence[str], meant: str | None = None
) -> AppError:
    """An option whose value is another option's name, with words left over (`update ID --title
    --priority low`): most likely its value was left out. Said in words: the value is the user's.
    `meant`: the option a misspelt name most likely is (`--title --priorty low`)."""
    left = " ".join(quoted(word) for word in extra)
    what = f"{value} looks like {meant}, an option" if meant else f"{value} is an option"
    return AppError(
        ErrorCode.USAGE_ERROR,
        f"{option} took {quoted(value)} as its {metavar}, so {left} {'is' if len(extra) == 1 else 'are'} "
        f"left over; {what} of {command}.",
        f"Type the {metavar} right after {option}, then {meant or value} and its value. To give the text "
        f"{value} itself, write {option}={value}.",
    )


def near_option(name: str, options: Sequence[str]) -> str | None:
    """The option a misspelt name most likely is (difflib, as for a command), compared without
    the dashes every option shares (else `--status` is "close" to `--tag`); None when none is close."""
    bare = {option.lstrip("-"): option for option in options if not negates(name, option)}
    close = difflib.get_close_matches(name.lower().lstrip("-"), list(bare), n=1, cutoff=0.6)
    return bare[close[0]] if close else None


# Words of a name that make an option's opposite (`--do-not-confirm`, `--confirm-off`), and the
# same glued to its start or end (`--noconfirm`, `--unconfirmed`, `--disconfirm`, `--confirmno`).
_NEGATION_WORDS = frozenset(
    {"no", "not", "non", "dont", "don't", "never", "skip", "without", "off", "false", "disable", "cancel"}
)
_NEGATION_PREFIXES = ("without", "never", "skip", "dont", "anti", "dis", "not", "non", "no", "un")
_NEGATION_SUFFIXES = ("never", "false", "not", "off", "no")


def _negated(name: str) -> str | None:
    """The rest of `name` when it holds a negation (`--do-not-confirm`: `confirm`), else None."""
    word = name.lower().lstrip("-")
    parts = [part for part in re.split(r"[-_\s]+", word) if part]
    kept = [part for part in parts if part not in _NEGATION_WORDS and part != "do"]
    if kept and len(kept) < len(parts):
        return "-".join(kept)
    prefix = next((each for each in _NEGATION_PREFIXES if word.startswith(each)), None)
    if prefix is not None and len(word) > len(prefix) + 2:
        return word[len(prefix) :].lstrip("-_'")
    suffix = next((each for each in _NEGATION_SUFFIXES if word.endswith(each)), None)
    if suffix is not None and len(word) > len(suffix) + 2:
        return word[: -len(suffix)].rstrip("-_'")
    return None


def negates(name: str, option: str) -> bool:
    """Whether `name` is `option` (or nearly) with a negation the option lacks: its opposite,
    never to be guessed as it (`--no-confirm`, `--confirm-not`, `--skip-confirm`: no `--confirm`)."""
    rest, meant = _negated(name), option.lstrip("-")
    if not rest or _negated(option) is not None:
        return False
    return rest.startswith(meant) or meant.startswith(rest) or _ratio(rest, meant) >= 0.8


def _closer_elsewhere(
    name: str, options: Sequence[str], elsewhere: Mapping[str, Sequence[str]]
) -> str | None:
    """Another command's option that `name` (in lowercase) is, or nearly is and is closer to than
    to any of `options` (`--untagg`: update's --untag, not add's --tag); None when it is one of
    `options`, or none is that close. Nearly: difflib's ratio at least 0.85, a stricter bar than a
    guess among the command's own options (0.6), as the guess sends the call to another command."""
    if name in options:
        return None
    theirs = {option.lstrip("-"): option for each in elsewhere.values() for option in each}
    if name in theirs.values():
        return name
    bare = name.lstrip("-")
    close = difflib.get_close_matches(
        bare,
        [each for each in theirs if theirs[each] not in options and not negates(name, theirs[each])],
        n=1,
        cutoff=0.85,
    )
    if not close:
        return None
    mine = near_option(name, options)
    closer = mine is None or _ratio(bare, close[0]) > _ratio(bare, mine.lstrip("-"))
    return theirs[close[0]] if closer else None


def _owned(option: str, elsewhere: Mapping[str, Sequence[str]]) -> str:
    """`an option of remove and purge`: the commands that have `option`."""
    owners = [command for command, options in elsewhere.items() if option in options]
    return f"an option of {' and '.join([', '.join(owners[:-1]), owners[-1]] if len(owners) > 1 else owners)}"


def _ratio(one: str, other: str) -> float:
    return difflib.SequenceMatcher(None, one, other).ratio()


# Values that say no: a flag given one (`--confirm=no`) is never told to be given alone.
_NO = frozenset({"no", "n", "false", "f", "0", "off", "none", "never"})


def flag_with_value(option: str, value: str = "") -> AppError:
    said_no = value.strip().lower() in _NO
    return AppError(
        ErrorCode.USAGE_ERROR,
        f"{option} is a flag and takes no value.",
        f"To say no, leave {option} out." if said_no else f"Give {option} alone, without `=VALUE`.",
    )


def unknown_option(
    command: str | None,
    given: str,
    options: Sequence[str],
    takes_argument: bool,
    app_options: Sequence[str] = (),
    elsewhere: Mapping[str, Sequence[str]] | None = None,
    fixed: Sequence[str] = (),
    as_value: bool = False,
    apart: Mapping[str, Sequence[str]] | None = None,
    typed: Sequence[str] = (),
    at: int = -1,
    valued: Collection[str] = (),
    refusal_of: Callable[[Sequence[str]], AppError | None] | None = None,
) -> AppError:
    """`given` is the whole argument as typed. One that is not shaped like an option (`-1 bug`,
    `-buy milk`) is most likely a value that starts with a dash: the fix is `--` before it, and
    `fixed` is that call's words after the command (`--tag home -- -x`: options before `--`, every
    other word in the order typed); `as_value`: one shaped like an option (`--x`) would be taken
    as a value there too, so a hint that guesses no option offers that call. `elsewhere`: the app's
    other commands and their options, for an option that belongs to one of them (timer
    `list --due-before` is `due --before`). A misspelt name is hinted with the call as typed, the
    name corrected (`typed`, the words after the command; `valued`: the command's options that
    take a value, whose next word is never renamed), when `refusal_of` that call is None: read
    as it stands, it must not be refused in turn (an option given twice, words left over...)."""
    owner = f"{command} has" if command else "The app has"
    message = f"{owner} no option {quoted(given)}."
    call = _call(command or "", fixed or ["--", given]).strip()
    dashed = f"A value that starts with - goes after `--`, and options before it: `{call}`."
    if not _pasteable(fixed or [given], *(apart or {}).values()):
        call, apart = "", {}
        dashed = "A value that starts with - goes after `--`, and options before it."
    if apart:  # `fixed` holds options that cannot go together: one call for each of them
        calls = " or ".join(f"`{_call(command or '', each)}`" for each in apart.values())
        dashed = (
            "A value that starts with - goes after `--`, and options before it, but "
            f"{' and '.join(apart)} cannot go together: give one, {calls}."
        )
    if takes_argument and not given.startswith("--"):
        return AppError(ErrorCode.USAGE_ERROR, message, dashed)
    # Names are compared in lowercase: `--TITLE` is hinted as `--titel` is.
    name = given.split("=", 1)[0].lower()
    if command and name in app_options:
        return AppError(
            ErrorCode.USAGE_ERROR, message, f"{name} is an option of the app: give it before the command."
        )
    # Another command's option, or a name closer to one of those than to any of this command's, is
    # that command's (`--Clear-due-at`, `--untagg`), not a misspelling of this one's (--due-at,
    # --tag: the opposite meaning).
    # The opposite of an option gets no guess at all, not the next closest either
    # (`--no-clear-due-at` is not `--clear-repeat`, found outside), unless it is nearly an option
    # that is itself a negation (`--untagg`: update's --untag).
    everywhere = [*options, *(option for each in (elsewhere or {}).values() for option in each)]
    negatives = [option for option in everywhere if _negated(option) is not None]
    opposite = any(negates(name, option) for option in everywhere) and near_option(name, negatives) is None
    theirs = _closer_elsewhere(name, options, elsewhere or {}) if command and not opposite else None
    right = None if opposite or theirs else near_option(name, options)
    if opposite:
        guess = ""
    elif theirs is not None and theirs != name:
        guess = f"Did you mean {theirs}? It is {_owned(theirs, elsewhere or {})}. "
    else:
        guess = f"Did you mean {right}? " if right else _guess_elsewhere(name, elsewhere)
    # Only for a word shaped as a long option (`--priorty`): `-new title` is a value, not a name.
    shaped = 0 <= at < len(typed) and typed[at].startswith("--") and not any(c.isspace() for c in typed[at])
    where = f"Options of {command}" if command else "The app's options (before the command)"
    listed = f"{where}: {', '.join(options)}."
    if right and command and shaped:
        corrected = _renamed(typed, typed[at].partition("=")[0], right, valued)
        refused = refusal_of(corrected) if refusal_of is not None else None
        still = f"{_still_refused(refused, listed)} " if refused is not None else ""
        guess = (
            f"Did you mean {right}: `{_call(command, corrected)}`? "
            if refused is None and _pasteable(corrected)
            else f"Did you mean {right}? {still}"
        )
    value = (
        f" If {given} is a value, it goes after `--`: `{call}`."
        if as_value and fixed and not guess and call
        else ""
    )
    return AppError(ErrorCode.USAGE_ERROR, message, f"{guess}{listed}{value}")


def _renamed(typed: Sequence[str], misspelt: str, right: str, valued: Collection[str]) -> list[str]:
    """The words with each option named `misspelt` (`--priorty`, `--priorty=high`) named `right`,
    before any `--`: not a word that is an option's value (`--description --priorty`), read as
    the command line is read, left to right."""
    takes = set(valued) | ({misspelt} if right in valued else set())
    renamed: list[str] = []
    value_next = False
    for place, word in enumerate(typed):
        if not value_next and word == "--":
            return [*renamed, *typed[place:]]  # after it, every word is a value
        name = word.partition("=")[0]
        if value_next:
            value_next = False
        else:
            if name == misspelt:
                word = right + word[len(misspelt) :]
            value_next = name in takes and "=" not in word
        renamed.append(word)
    return renamed


def argument_as_option(command: str, given: str, metavar: str, call: Sequence[str] | None) -> AppError:
    """An option named after one of the command's arguments (`extend tm_0001 --duration 5m`):
    the argument is given as it is, without the name; `call` is the call so, None when its value
    is missing or starts with a dash (said in words: the call may be refused again)."""
    takes = f"{command} takes {metavar.rstrip('.')} as an argument, without {given}"
    return AppError(
        ErrorCode.USAGE_ERROR,
        f"{command} has no option {quoted(given)}.",
        f"{takes}: `{_call(command, call)}`."
        if call is not None and _pasteable(call)
        else f"{takes}: give its value alone (one that starts with - after --, the options before it).",
    )


def options_after_dashes(
    command: str, moved: Sequence[str], options: Sequence[str], apart: Mapping[str, Sequence[str]]
) -> AppError:
    """Options typed after `--`, which makes every later word a value: `moved` is the call with
    them before `--`, as the fix; `apart`, when that call would hold options that cannot go
    together, is each such option and the call keeping it alone (each a call that works)."""
    words = " ".join(quoted(word) for word in options)
    calls = " or ".join(f"`{_call(command, each)}`" for each in apart.values())
    hint = f"but {' and '.join(apart)} cannot go together: give one, {calls}" if apart else ""
    if not _pasteable(moved, *apart.values()):
        fix = "Options go before `--`" + (
            f", but {' and '.join(apart)} cannot go together." if apart else "."
        )
    else:
        fix = (
            f"Options go before `--`, {hint}."
            if apart
            else f"Options go before `--`: `{_call(command, moved)}`."
        )
    return AppError(
        ErrorCode.USAGE_ERROR,
        f"{command} reads every word after `--` as a value; {words} "
        f"{'is an option' if len(options) == 1 else 'are options'} of {command}.",
        fix,
    )


def _guess_elsewhere(name: str, elsewhere: Mapping[str, Sequence[str]] | None) -> str:
    """Where the option lives when another command has it (`--confirm is an option of remove.`),
    or the call most likely meant when another command has its last word as an option (timer
    `list --due-before`: `Did you mean `due --before`?`)."""
    others = elsewhere or {}
    if any(name in options for options in others.values()):
        return f"{name} is {_owned(name, others)}. "
    word = name.lstrip("-")
    calls = [
        f"{command} {option}"
        for command, options in others.items()
        for option in options
        if word.endswith("-" + option.lstrip("-")) and not negates(name, option)
    ]
    return f"Did you mean `{calls[0]}`? " if calls else ""


def extra_arguments(
    command: str,
    arguments: Sequence[tuple[str, str | None]],
    extra: Sequence[str],
    options: Sequence[str] = (),
    after_dashes: bool = False,
    glued: Sequence[str] | None = None,
    apart: Callable[[Sequence[str]], Mapping[str, Sequence[str]]] | None = None,
    unread: Callable[[Sequence[str]], Sequence[str]] | None = None,
) -> AppError:
    """`arguments`: the command's (METAVAR, value taken) in order; `extra`: the words left over;
    `options`: the options given, as typed, which the fix keeps; `after_dashes`: the extra words
    were typed after `--`; `glued`: the call with each run of extra words quoted into the option
    value typed just before it (`--title -Book flights`) or into the last argument, when a run
    goes to an option; `apart(call)`: when the call holds options that cannot go together, each
    of them and the call without the others (a call for each is offered instead); `unread(call)`:
    the options whose value in the call their reader does not take (no call is offered then)."""
    words = " ".join(quoted(word) for word in extra)
    quote = "Quote a value of several words as one argument"

    def offer(call: Sequence[str]) -> str:
        # `start tea --duration 400 days` would be offered `start "tea days" --duration 400`:
        # refused in turn, and a label never meant.
        refused = unread(call) if unread is not None else ()
        if refused:
            takes = "it takes" if len(refused) == 1 else "they take"
            given = " and ".join(refused)
            return f"{quote}, and give {given} a value {takes}: run `{command} --help` to see its form."
        clash = apart(call) if apart is not None else {}
        if not _pasteable(call, *clash.values()):
            return f"{quote}." + (
                f" Give one of {' and '.join(clash)}: they cannot go together." if clash else ""
            )
        if not clash:
            return f"{quote}: `{_call(command, call)}`."
        calls = " or ".join(f"`{_call(command, each)}`" for each in clash.values())
        return f"{quote}, and give one of {' and '.join(clash)}, which cannot go together: {calls}."

    if not arguments and glued is not None:
        message = f"{command} takes no arguments; got {words}."
        return AppError(ErrorCode.USAGE_ERROR, message, offer(glued))
    if not arguments:
        return AppError(
            ErrorCode.USAGE_ERROR,
            f"{command} takes no arguments; got {words}.",
            f"Its options start with --: run `{command} --help` to see them.",
        )
    metavar, value = arguments[-1]
    takes = " ".join(name for name, _ in arguments)
    message = f"{command} takes {takes}; {words} {'is' if len(extra) == 1 else 'are'} extra."
    if glued is not None and not after_dashes:
        return AppError(ErrorCode.USAGE_ERROR, message, offer(glued))
    if metavar == "ID":
        hint = (
            f"A value goes to one of its options, before `--`: run `{command} --help` to see them."
            if after_dashes
            else f"Give one ID: run `{command}` once for each."
        )
        return AppError(ErrorCode.USAGE_ERROR, message, hint)
    taken = [each for _, each in arguments[:-1] if each is not None]
    values = [*taken, " ".join([value or "", *extra]).strip()]
    # A value that starts with - is read as one only after `--`, with the options before it.
    dashed = any(each.startswith("-") for each in values)
    ordered = [*options, "--", *values] if dashed else [*values, *options]
    return AppError(ErrorCode.USAGE_ERROR, message, offer(ordered))


def repeated_option(option: str) -> AppError:
    return AppError(
        ErrorCode.USAGE_ERROR,
        f"Option {option} was given more than once.",
        f"Give {option} once: which of the values was meant cannot be told.",
    )


def word_of_an_option(
    command: str,
    arguments: Sequence[tuple[str, str | None]],
    extra: Sequence[str],
    word: str,
    moved: Sequence[str],
    whole: Sequence[str],
) -> AppError:
    """Words left over whose first or last words read as an option's value (timer
    `start 10m tea time`): `moved` is the call with them given to the option, most likely
    the one meant, and `whole` the call with every word quoted into the argument; both work."""
    words = " ".join(quoted(each) for each in extra)
    takes = " ".join(name for name, _ in arguments)
    where = arguments[-1][0].lower()
    message = f"{command} takes {takes}; {words} {'is' if len(extra) == 1 else 'are'} extra."
    if not _pasteable(whole, moved):
        return AppError(
            ErrorCode.USAGE_ERROR,
            message,
            f"To keep {quoted(word)} in the {where}, quote every word as one; if it is {moved[0]}'s "
            f"value, give it as {moved[0]} {moved[1]}.",
        )
    return AppError(
        ErrorCode.USAGE_ERROR,
        message,
        f"To keep {quoted(word)} in the {where}, quote every word as one: `{_call(command, whole)}`; "
        f"if it is {moved[0]}'s value: `{_call(command, moved)}`.",
    )
