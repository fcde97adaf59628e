"""The warm process of one Python package: run by warm.py, never imported by the toolkit.

Started from the package root as `sh -c '<interpreter> "$@"' SLUG warm_server.py SCRIPT FD` — the
same shell, interpreter word, working folder and environment (less its AGENTIC_* settings) that a
cold call of `<interpreter> SCRIPT` gets — it imports what SCRIPT imports, says it is ready on the
control socket FD, then serves calls. Each call arrives on FD as four descriptors (the call's own
socket, stdin, stdout, stderr); the call's arguments and AGENTIC_* settings follow on the call's
socket. Each call is handed to a relay (the four descriptors, this process closing its copies at
once), forked before the call came (beside the call before it where a second core is free, else
once no call runs; if none waits, when the call comes), and reaped when it ends (a pidfd). The
relay leads a session of its own, has forked the call's child already, passes it the descriptors,
waits for it and says its exit status on the call's socket. The child leads a session of its own
and sets up what needs no call while it waits; then it says its pid on the call's socket, takes the
descriptors as 0, 1 and 2 and the call's environment, runs SCRIPT as `__main__`, then exits the way
the interpreter would. The stale check (a module file changed) is made before a call is handed
over. So a call that has started is nothing of this process's: killed between or during calls, it
takes no call with it, and the call's status is still said. It holds no lock and nothing of a call
between calls, runs single-threaded (a fork copies only the thread that forks), and ends when the
control socket closes; an idle pair ends with it.

A call's code may ask for work done ahead of the next calls, through the one module its child has
that a cold process lacks, `agentapps_warm` (`when_idle`): a hook that a module this process holds
names in its WARM_HOOKS (the kit's store: parse the state file the call read). This process never
runs them itself, so no call ever waits on them here: a spare call child, forked ahead, runs what
the last two calls both asked for (a steady state file) once no call runs (and, with a core of its
own, beside the call before it too), and only until its call comes, so that it holds the result
when the call comes (the kit's store takes that parse only while the file holds the very bytes
parsed); a call that comes while it works is run by another child, at once. Code finds the module
in sys.modules, never imports it; a cold run has none.

What a call imports that this process does not hold (a library's own lazy import, made as a
command runs: typer's adapters, pydantic's TypeAdapter) the child would import anew in every call.
So each child, as it ends, lists the modules it imported beyond those it was forked with, and
this process imports them once it is idle (`learn`): the next calls have them. No list of
names is kept here: what is learnt is what calls import, whatever the package. The list travels
in memory this process maps for the call (shared, anonymous) and reads once the relay has ended,
not on a descriptor: a call's child keeps no descriptor of this process's while the script runs,
as a cold process has none.

Only the standard library, and Python 3.9+: the package's interpreter runs this, not the toolkit's.
"""

from __future__ import annotations

import array
import ast
import atexit
import builtins
import contextlib
import functools
import importlib
import importlib.machinery
import importlib.util
import io
import json
import mmap
import os
import random
import select
import signal
import socket
import struct
import sys
import threading
import types
import weakref
from collections.abc import Callable, Container, Iterator
from typing import Any

_MAX_FDS = 4
# Said to a spare forked while a call ran, once no call runs: do the work asked now (before,
# it would compete with that call for a core, and read the state before that call wrote it).
_GO = b"G"
# Between a spare's child and its relay: may I start a piece of that work (`_BUSY`), yes
# (`_YES`), done (`_IDLE`). The relay never hands a call to a child at work.
_BUSY, _YES, _IDLE = b"B", b"Y", b"I"
_HEADER = struct.Struct("!Q")  # the length of a call's request, before its JSON
# What a call's child says it imported: a length, then `name NUL origin` lines (cut at a line).
_REPORT = struct.Struct("!Q")
_REPORT_SIZE = 1 << 16
_ASK = "\x01"  # a report line that is an ask (`when_idle`), not a module


def main() -> None:
    script, control_fd = sys.argv[1], int(sys.argv[2])
    # What a cold process starts with, before this one changes anything: every child gets it back.
    environ = dict(os.environ)
    handlers: dict[int, object] = {number: signal.getsignal(number) for number in signal.valid_signals()}
    mask = signal.pthread_sigmask(signal.SIG_BLOCK, ())
    # A cold run's sys.path[0] is the script's folder (resolved), and so is this one's for imports.
    script_path = os.path.abspath(script)
    sys.path[0] = os.path.dirname(os.path.realpath(script_path))
    control = socket.socket(fileno=control_fd)
    if not hasattr(os, "pidfd_open"):
        return  # it cannot wait for several children at once: the runtime runs this package cold
    script_signature = _signature(script_path)  # taken before it is read: a change meanwhile is seen
    sys.modules[_WARM_MODULE] = _warm_module()
    unseeded, held = preimport(script_path)
    if held is None:
        return  # the script's own body fails here: the runtime runs this package cold, as it fails there
    loaded = _module_files()
    loaded[script_path] = script_signature  # a changed script is compiled (and held) anew
    control.sendall(b"R")
    serve(control, script, script_path, environ, handlers, mask, loaded, unseeded, held)


def preimport(
    script_path: str, reads: list[str] | None = None
) -> tuple[weakref.WeakSet[random.Random], HeldScript | None]:
    """Import every module the script names in an import statement, and every module that the
    package's own modules (those in the script's folder) name anywhere in them, function bodies
    included: a lazy import, cheap for a cold run that does not need it (a writer's filelock), is
    paid here once instead of in every call's child. A failed import is the child's to meet,
    exactly as a cold run would. Then the script is compiled once and, when it has a main guard,
    its body is run once (`hold_script`); None when that body fails.

    All of it only while nothing read there is a call's own (`_watching_start_up`: an AGENTIC_*
    setting, the whole environment, the arguments): a script that reads its state file's setting
    once, at start-up, would read the warm process's. When something is, the package's own
    modules are let go and the script is run whole in every call, as a cold run does; the
    libraries stay imported. `reads` (given) gets what was read.

    Returns, besides, the random.Random instances these made without a seed (or last seeded with
    none): a cold run draws fresh ones, so every call's child reseeds them (one seeded with a
    value keeps the state that value gave it, as it would cold)."""
    unseeded: weakref.WeakSet[random.Random] = weakref.WeakSet()
    seen: list[str] = [] if reads is None else reads
    with _recording_unseeded(unseeded), _watching_start_up(seen):
        _import_all(script_path)
        held = hold_script(script_path)
        if held is not None and held.module is not None and _keeps_one_of(_WATCHES[-1][1], [held.module]):
            seen.append("the arguments")  # the script's body kept sys.argv itself
    if seen and held is not None:
        _let_go_of_own_modules(os.getcwd())  # the package root, as the runtime starts this
        held = _whole(script_path)
    return unseeded, held


# The watches in progress, innermost last: what each has seen read, and the sys.argv it put in
# place. An object one made and a module kept (`from os import environ`) notes into the watch of
# the moment, not the one it was made in.
_WATCHES: list[tuple[list[str], list[list[str]]]] = []


def _note(what: str) -> None:
    if _WATCHES:
        _WATCHES[-1][0].append(what)


class _WatchedEnviron(os._Environ):  # type: ignore[type-arg]
    """os.environ itself (the same mapping underneath), noting each read of what only a call has:
    a setting named AGENTIC_*, or the whole environment (iterated, copied, counted, shown)."""

    def __init__(self, real: Any) -> None:
        super().__init__(real._data, real.encodekey, real.decodekey, real.encodevalue, real.decodevalue)

    def __getitem__(self, key: Any) -> Any:  # get() and `in` read through it too
        if isinstance(key, str) and key.startswith("AGENTIC_"):
            _note(f"the setting {key}")
        return super().__getitem__(key)

    def __iter__(self) -> Iterator[Any]:
        _note("the whole environment")
        return super().__iter__()

    def __len__(self) -> int:
        _note("the whole environment")
        return super().__len__()

    def __repr__(self) -> str:
        _note("the whole environment")
        return super().__repr__()


class _WatchedArgv(list):  # type: ignore[type-arg]
    """sys.argv as the warm process has it, noting each read: a call brings its own."""


def _reading(name: str) -> Callable[..., Any]:
    method = getattr(list, name)

    def read(self: list[str], *args: Any) -> Any:
        _note("the arguments")
        return method(self, *args)

    read.__name__ = name
    return read


for _name in (
    "__getitem__", "__iter__", "__len__", "__contains__", "__reversed__", "__repr__", "__str__",
    "__eq__", "__ne__", "__lt__", "__le__", "__gt__", "__ge__", "__add__", "__mul__", "__rmul__",
    "copy", "index", "count",
):  # fmt: skip
    setattr(_WatchedArgv, _name, _reading(_name))


def _watched_argv(argv: list[str]) -> list[str]:
    """`argv` watched in the watch in progress (as it is, with none)."""
    if not _WATCHES:
        return argv
    watched = _WatchedArgv(argv)
    _WATCHES[-1][1].append(watched)
    return watched


@contextlib.contextmanager
def _watching_start_up(seen: list[str]) -> Iterator[None]:
    """While it lasts, os.environ and sys.argv (and sys.orig_argv) note in `seen` each read of
    what only a call has; and, as it ends, a module imported meanwhile that kept sys.argv itself
    (`from sys import argv`) has read it, as it will read the warm process's in every call."""
    environ, argv, orig = os.environ, sys.argv, getattr(sys, "orig_argv", None)  # 3.10 and later
    before = set(sys.modules)
    _WATCHES.append((seen, []))
    os.environ = _WatchedEnviron(environ)  # noqa: B003 - the same mapping underneath, watched
    sys.argv = _watched_argv(argv)
    if orig is not None:
        sys.orig_argv = _watched_argv(orig)
    try:
        yield
    finally:
        _, argvs = _WATCHES.pop()
        os.environ = environ  # noqa: B003 - the real one back
        sys.argv = argv
        if orig is not None:
            sys.orig_argv = orig
        if _keeps_one_of(argvs, [module for name, module in list(sys.modules.items()) if name not in before]):
            seen.append("the arguments")


def _keeps_one_of(watched: list[list[str]], modules: list[Any]) -> bool:
    """Whether a module's globals hold one of the watched objects itself."""
    ids = {id(each) for each in watched}
    return any(
        id(value) in ids for module in modules for value in list(getattr(module, "__dict__", {}).values())
    )


def _let_go_of_own_modules(root: str) -> None:
    """Forget the modules of the package (under its root, wherever the script put them on the
    path): every call's child imports them anew."""
    folder = os.path.realpath(root) + os.sep
    for name, module in list(sys.modules.items()):
        file = getattr(module, "__file__", None)
        if file and os.path.realpath(file).startswith(folder):
            del sys.modules[name]


def _whole(script_path: str) -> HeldScript:
    """The script compiled whole, run in every call (None as code when it does not compile)."""
    try:
        with open(script_path, "rb") as handle:
            return HeldScript(compile(handle.read(), script_path, "exec"), None)
    except (OSError, SyntaxError, ValueError):
        return HeldScript(None, None)


@contextlib.contextmanager
def _recording_unseeded(unseeded: weakref.WeakSet[random.Random]) -> Iterator[None]:
    """While it lasts, every random.Random seeded without a value joins `unseeded` (and one
    seeded with a value leaves it)."""
    seed = random.Random.seed

    def recording_seed(self: random.Random, a: Any = None, version: int = 2) -> None:
        (unseeded.add if a is None else unseeded.discard)(self)
        seed(self, a, version)

    random.Random.seed = recording_seed  # type: ignore[method-assign]
    try:
        yield
    finally:
        random.Random.seed = seed  # type: ignore[method-assign]


def learn(
    reported: list[tuple[str, str]],
    unseeded: weakref.WeakSet[random.Random],
    loaded: dict[str, tuple[int, int, int]],
) -> None:
    """Import the modules calls imported that this process lacks, as the preimport does: an
    unseeded generator they make is recorded, a failed import is ignored (the next child imports
    the module itself, as before). A module is imported only if this process finds it where the
    call found it (its spec's origin), under a parent it holds: a call that changed sys.path
    imported what a cold run of it would, not what this process would find. A module that reads
    what only a call has as it is imported (`_watching_start_up`) is let go again, with what it
    imported, and never learnt: each call imports it, as before. Each new module's file is then
    watched for changes like the rest."""
    with _recording_unseeded(unseeded):
        for name, origin in reported:
            parent = name.rpartition(".")[0]
            if name in sys.modules or name in _UNLEARNT or (parent and parent not in sys.modules):
                continue
            before, seen = set(sys.modules), list[str]()
            try:
                spec = importlib.util.find_spec(name)
                if spec is None or spec.origin != origin:
                    continue
                signature = _signature(origin) if spec.has_location else None
                with _watching_start_up(seen):
                    importlib.import_module(name)
            except BaseException:  # noqa: BLE001 - broken here: each call imports it as before
                continue
            if seen:
                _UNLEARNT.add(name)
                for added in set(sys.modules) - before:
                    del sys.modules[added]
                continue
            if signature is not None:
                loaded.setdefault(origin, signature)  # as it was before it was read
    for file, signature in _module_files(skip=loaded).items():
        loaded[file] = signature


# Modules a call imported that read what only a call has as they were imported: never learnt.
_UNLEARNT: set[str] = set()
_WARM_MODULE = "agentapps_warm"


def _warm_module() -> types.ModuleType:
    """`agentapps_warm`: what a call's code may ask for ahead of the next calls. `when_idle(module,
    hook, *args)` (strings) asks that the next calls' children each call
    `module.WARM_HOOKS[hook](*args)` while they wait for their calls (`wait_for_call`); the call's
    child records the asks, and says them with what it imported."""
    module = types.ModuleType(_WARM_MODULE, "What a warm process's calls may ask it for.")
    asked: list[tuple[str, ...]] = []

    def when_idle(module_name: str, hook: str, *args: str) -> None:
        ask = (module_name, hook, *args)
        if all(isinstance(part, str) for part in ask) and ask not in asked:
            asked.append(ask)

    module.when_idle = when_idle  # type: ignore[attr-defined]
    module.asked = asked  # type: ignore[attr-defined]
    return module


def steady_asks(recent: list[tuple[tuple[str, ...], ...]]) -> tuple[tuple[str, ...], ...]:
    """What the last two calls that asked for anything both asked for: the work a spare does ahead.
    Only these (found by an outside review: a child that parsed the files of the last few calls,
    each another state folder's, made its own call wait on parses it did not need, past its
    timeout where a cold call answered)."""
    if len(recent) < 2:
        return ()
    return tuple(ask for ask in recent[-1] if ask in recent[-2])


def wait_for_call(
    asked: tuple[tuple[str, ...], ...], at_once: bool, handover: socket.socket
) -> tuple[bytes, list[int]]:
    """In a spare call's child: wait for the call (what `handover` brings: the call's descriptors,
    or nothing once the relay is gone), doing what the last calls asked for (`when_idle`) while
    none has come — at once if `at_once`, and each time `_GO` comes. Each piece is a hook that a
    module the child holds names in its WARM_HOOKS (a module it lacks is not imported for it),
    started only once the relay said yes (`_BUSY`, `_YES`): a call that comes while the child
    works is handed to another child, so no call waits on work it may not need. A hook that
    fails is ignored: the call meets whatever it met, as it would without the hook."""
    go = at_once
    while True:
        if not go:
            message, fds = _receive(handover)
            if message == _GO and not fds:
                go = True
                continue
            return message, fds
        go = False
        for module_name, hook, *args in asked:
            hooks = getattr(sys.modules.get(module_name), "WARM_HOOKS", None)
            function = hooks.get(hook) if isinstance(hooks, dict) else None
            if not callable(function):
                continue
            handover.send(_BUSY)
            message, fds = _receive(handover)
            while message == _GO and not fds:  # the work is asked again once this pass is over
                go = True
                message, fds = _receive(handover)
            if message != _YES or fds:
                return message, fds  # the call has come: it does its own work
            with contextlib.suppress(BaseException):  # the call meets it itself, as without it
                function(*args)
            handover.send(_IDLE)


class HeldScript:
    """The script as the warm process holds it for every call: `code` is what a call's child runs
    as `__main__`, in `module` when the body is already run there, else in a new module (None
    when the script could not be compiled: the child compiles it and meets the error itself)."""

    def __init__(self, code: types.CodeType | None, module: types.ModuleType | None) -> None:
        self.code = code
        self.module = module


def hold_script(script_path: str) -> HeldScript | None:
    """Compile the script once (a call no longer pays for it) and, for a script with a main guard
    (a top-level `if` that tests `__name__`), run its body once, here, as `__main__`: the body of
    such a script is what importing it would run — the definitions, the app and its commands —
    and, like every module the script imports, it is the same in every call. A call's child then
    runs only the guarded statements, in their order, in that module. A script without a guard, or
    with a `from __future__` import (whose flags the two parts would not share), is run whole in
    every call. None when the body fails here: the package then runs cold, where it fails the same
    way (or, reading what only a call has, does not)."""
    try:
        with open(script_path, "rb") as handle:
            source = handle.read()
        tree = ast.parse(source, script_path)
        whole = compile(tree, script_path, "exec")
    except (OSError, SyntaxError, ValueError):
        return HeldScript(None, None)
    guarded = [statement for statement in tree.body if _tests_name(statement)]
    future = any(
        isinstance(statement, ast.ImportFrom) and statement.module == "__future__" for statement in tree.body
    )
    if not guarded or future:
        return HeldScript(whole, None)
    body = [statement for statement in tree.body if not _tests_name(statement)]
    module = _main_module(script_path)
    saved_path, saved_argv, saved_main = list(sys.path), sys.argv, sys.modules["__main__"]
    # The script as argv[0], as a cold run has it; a call brings its arguments (a read is noted).
    given = [list.__getitem__(saved_argv, 1)]  # the script as the command gave it: no read of the script's
    sys.argv = _watched_argv(given)
    sys.modules["__main__"] = module
    try:
        exec(compile(ast.Module(body=body, type_ignores=[]), script_path, "exec"), module.__dict__)
    except BaseException:  # noqa: BLE001 - the body fails here: cold runs will say how
        sys.path[:], sys.modules["__main__"] = saved_path, saved_main
        return None
    finally:
        sys.argv = saved_argv
    return HeldScript(compile(ast.Module(body=guarded, type_ignores=[]), script_path, "exec"), module)


def _tests_name(statement: ast.stmt) -> bool:
    """A top-level `if` whose test reads `__name__`: what runs only when the script is the entry."""
    return isinstance(statement, ast.If) and any(
        isinstance(node, ast.Name) and node.id == "__name__" for node in ast.walk(statement.test)
    )


def _main_module(script_path: str) -> types.ModuleType:
    """A `__main__` module as the interpreter makes one for a script."""
    module = types.ModuleType("__main__")
    module.__file__ = script_path
    module.__cached__ = None  # type: ignore[attr-defined]
    module.__loader__ = importlib.machinery.SourceFileLoader("__main__", script_path)
    module.__builtins__ = builtins  # type: ignore[attr-defined]
    return module


def _module_files(skip: Container[str] = ()) -> dict[str, tuple[int, int, int]]:
    """Each imported module's file (less those in `skip`) and its (size, mtime, inode): a change
    on disk (an upgrade, a pull, a sync) makes this process stale."""
    found: dict[str, tuple[int, int, int]] = {}
    for module in list(sys.modules.values()):
        file = getattr(module, "__file__", None)
        if isinstance(file, str) and file not in skip:
            found[file] = _signature(file)
    return found


def _signature(file: str) -> tuple[int, int, int]:
    try:
        info = os.stat(file)
    except OSError:
        return (-1, -1, -1)
    return (info.st_size, info.st_mtime_ns, info.st_ino)


def _stale(loaded: dict[str, tuple[int, int, int]]) -> bool:
    return any(_signature(file) != signature for file, signature in loaded.items())


def _import_all(script_path: str) -> None:
    folder = os.path.dirname(os.path.realpath(script_path)) + os.sep
    walked: set[str] = set()
    pending: list[tuple[str, str | None]] = [(script_path, None)]
    while pending:
        for path, package in pending:
            walked.add(path)
            for name, relative_to in _imported_names(path, package):
                try:
                    importlib.import_module(name, relative_to)
                except BaseException:  # noqa: BLE001 - not a module, or broken: the child will say
                    continue
        pending = sorted(
            {
                (file, module.__package__)
                for module in list(sys.modules.values())
                if (file := getattr(module, "__file__", None))
                and file.endswith(".py")
                and os.path.realpath(file).startswith(folder)
                and file not in walked
            }
        )


def _imported_names(path: str, package: str | None) -> list[tuple[str, str | None]]:
    """(module name, package it is relative to) for each import statement in the file."""
    try:
        with open(path, "rb") as handle:
            tree = ast.parse(handle.read(), path)
    except (OSError, SyntaxError, ValueError):
        return []
    names: list[tuple[str, str | None]] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names += [(alias.name, None) for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and (node.level == 0 or package):
            module = "." * node.level + (node.module or "")
            relative_to = package if node.level else None
            names += [(module, relative_to)] if node.module else []
            joined = module if module.endswith(".") else f"{module}."
            names += [(joined + alias.name, relative_to) for alias in node.names]
    return names


class _Pair:
    """A relay forked ahead of the call it will serve, with its child forked too, both waiting for
    the call's descriptors on `handover` (see `relay`). `report` is where the child says what it
    imported. `asked` is the work its child does ahead of the call (`wait_for_call`), once no call
    runs (`told`: at once when it was forked with none running, else once told `_GO`)."""

    def __init__(
        self,
        pid: int,
        handover: socket.socket,
        report: mmap.mmap,
        asked: tuple[tuple[str, ...], ...],
        told: bool,
    ) -> None:
        self.pid = pid
        self.pidfd = os.pidfd_open(pid)
        self.handover = handover
        self.report = report
        self.asked = asked
        self.told = told


def serve(
    control: socket.socket,
    script: str,
    script_path: str,
    environ: dict[str, str],
    handlers: dict[int, object],
    mask: set[int],
    loaded: dict[str, tuple[int, int, int]],
    unseeded: weakref.WeakSet[random.Random],
    held: HeldScript,
) -> None:
    """Serve calls until the control socket closes. Each call is handed to a relay and child
    forked ahead of it (`spare`): the two forks and what the child can set up before it knows its
    call (its session, environment less AGENTIC_*, signals, reseeded generators, the work asked
    ahead) are off the call's path. One spare at most. With a second core it is forked as soon as
    the last one is handed its call, beside that call, so that a call that follows another at once
    finds one ready (forked only once no call ran, calls one after another each forked their own
    and parsed their state themselves: 1.3 times as long for a get at 1,000 items); with one core,
    only once no call runs (forked beside a call, it took its time from that call: 1.5 times as
    long). A spare forked beside a call does the work asked at once, on its own core, and again
    once told `_GO` (no call runs any more), on the state as that call left it; one forked with no
    call running does it at once. A call that finds no spare forks its pair then. A spare is made
    anew after this process learns modules (the old one would lack them) or when what the last
    two calls asked for ahead changed, and it ends with this process: its relay waits on a socket
    whose other end only this process holds."""
    poller = select.poll()
    poller.register(control.fileno(), select.POLLIN)
    relays: dict[int, _Pair] = {}  # pidfd -> a relay, reaped when it ends (the spare's too)
    spare: _Pair | None = None
    known = frozenset(sys.modules)  # what a call's child is forked with
    reported: dict[str, str] = {}  # name -> origin: imported by calls, not yet learnt here
    tried: set[str] = set()  # each is learnt once at most: a failed import is not tried again
    recent: list[tuple[tuple[str, ...], ...]] = []  # what the last two calls that asked asked for
    # With a second core, the spare is forked beside the call it follows; with one, only once no
    # call runs (the forks would take their time from the call's own core).
    alongside = len(os.sched_getaffinity(0)) > 1

    def fork_pair(ahead: bool) -> _Pair:
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        report = mmap.mmap(-1, _REPORT_SIZE)
        asked = steady_asks(recent) if ahead else ()  # a pair forked for a call that waits: none
        told = not relays  # no call runs: the work asked is done at once
        pid = os.fork()
        if pid == 0:
            # Only this process's end of `handover` may stay open elsewhere: its close (this
            # process's death) is what ends an idle pair.
            control.close()
            ours.close()
            for other in relays.values():
                os.close(other.pidfd)
                other.handover.close()
                other.report.close()

            def start(handover: socket.socket, ahead: bool) -> None:
                # Beside a call, on a core of its own, the work asked is done at once too (on the
                # state as it is then) and again once told, on the state as that call left it.
                # A child forked for a call that came while another worked ahead does none.
                work = asked if ahead else ()
                at_once = ahead and (told or alongside)
                child(
                    script,
                    script_path,
                    environ,
                    handlers,
                    mask,
                    unseeded,
                    held,
                    known,
                    report,
                    work,
                    at_once,
                    handover,
                )

            relay(theirs, start)
        theirs.close()
        pair = _Pair(pid, ours, report, asked, told)
        relays[pair.pidfd] = pair
        poller.register(pair.pidfd, select.POLLIN)
        return pair

    while True:
        idle = reported or (spare is None and (alongside or not relays))
        events = poller.poll(0 if idle else None)
        if not events and reported:
            # Idle: no call waits. Learn what calls imported, so the next ones have it.
            learn(list(reported.items()), unseeded, loaded)
            tried.update(reported)
            reported.clear()
            known = frozenset(sys.modules)
            if spare is not None:
                spare.handover.close()  # it lacks what was just learnt: it ends, and is reaped
                spare = None
            continue
        if not events and spare is None and (alongside or not relays):
            spare = fork_pair(ahead=True)
            continue
        for descriptor, _ in events:
            if descriptor != control.fileno():
                pair = relays.pop(descriptor)
                poller.unregister(descriptor)
                os.close(descriptor)
                pair.handover.close()
                if pair is spare:
                    spare = None  # killed, or ended on its own: the next call forks its pair
                _, status = os.waitpid(pair.pid, 0)
                if os.WIFEXITED(status):  # a relay killed may have left its child writing there
                    imported, asks = _read_report(pair.report)
                    news = [(name, origin) for name, origin in imported if name not in known]
                    reported.update((name, origin) for name, origin in news if name not in tried)
                    if asks:
                        recent = [*recent[-1:], tuple(asks)]
                if spare is not None and spare.asked != steady_asks(recent):
                    # Forked while this call ran, before it said what it asked for: made anew
                    # to do what the last two calls asked, not what the two before them did.
                    spare.handover.close()
                    spare = None
                if spare is not None and not spare.told and all(p is spare for p in relays.values()):
                    # No call runs now: the spare does the work asked, on the state as the calls
                    # left it (a write's, not the one before it).
                    spare.told = True
                    with contextlib.suppress(OSError):  # it died: it is reaped as it ends
                        spare.handover.send(_GO)
                pair.report.close()
                continue
            try:
                message, fds = _receive(control)
            except OSError:
                return
            if not message:
                return  # the runtime closed the control socket: it is gone, and so is this
            if len(fds) != _MAX_FDS:
                for fd in fds:
                    os.close(fd)
                continue
            if _stale(loaded):
                # A module file changed since it was imported: a cold run would load the new one.
                # Ending before the call's child starts hands the call to a new warm process.
                return
            # The spare if it still waits (a relay killed meanwhile refuses the descriptors; it is
            # reaped once its pidfd says it ended), else a pair forked now.
            if spare is None or not _hand(spare, fds):
                _hand(fork_pair(ahead=False), fds)
            spare = None
            # The call is the relay's now: this process keeps nothing of it, so its own death
            # (killed between or during calls) cannot end a call that has started, nor hide how
            # it ended.
            for fd in fds:
                os.close(fd)


def _hand(pair: _Pair, fds: list[int]) -> bool:
    """Give a pair's relay the call's descriptors; False when it is gone."""
    try:
        pair.handover.sendmsg([b"C"], [(socket.SOL_SOCKET, socket.SCM_RIGHTS, array.array("i", fds))])
    except OSError:
        return False
    finally:
        pair.handover.close()
    return True


def _read_report(report: mmap.mmap) -> tuple[list[tuple[str, str]], list[tuple[str, ...]]]:
    """The (name, origin) pairs of the modules a call's child imported, and what it asked for
    (`when_idle`); none of either if it wrote nothing or nonsense."""
    try:
        (size,) = _REPORT.unpack_from(report)
        text = report[_REPORT.size : _REPORT.size + min(size, _REPORT_SIZE)].decode(
            "utf-8", "surrogateescape"
        )
    except (ValueError, struct.error):
        return [], []
    lines = [line for line in text.split("\n") if line]
    pairs = [line.split("\0") for line in lines if not line.startswith(_ASK)]
    asks = [tuple(line[len(_ASK) :].split("\0")) for line in lines if line.startswith(_ASK)]
    return [(pair[0], pair[1]) for pair in pairs if len(pair) == 2], [ask for ask in asks if len(ask) >= 2]


def _write_report(report: mmap.mmap, known: frozenset[str]) -> None:
    """Say, in `report`, what this child asked for (`when_idle`) and the modules it imported beyond
    those it was forked with: each one its own name names (not an alias such as os.path) with an
    origin to find it by again."""
    lines = []
    # What it asked for first: a line each, the parts that a line cannot hold left out.
    for ask in getattr(sys.modules.get(_WARM_MODULE), "asked", ()):
        if not any("\0" in part or "\n" in part for part in ask):
            lines.append(f"{_ASK}{chr(0).join(ask)}\n".encode("utf-8", "surrogateescape"))
    # Only the names it was not forked with are looked into: most calls import nothing new.
    for name in [name for name in sys.modules if name not in known]:
        spec = getattr(sys.modules.get(name), "__spec__", None)
        origin = getattr(spec, "origin", None)
        if getattr(spec, "name", None) != name or not isinstance(origin, str):
            continue
        lines.append(f"{name}\0{origin}\n".encode("utf-8", "surrogateescape"))
    payload = bytearray()
    for line in lines:
        if len(payload) + len(line) > _REPORT_SIZE - _REPORT.size:
            break  # the rest is learnt from a later call
        payload += line
    report[_REPORT.size : _REPORT.size + len(payload)] = payload
    _REPORT.pack_into(report, 0, len(payload))


def relay(handover: socket.socket, start_child: Callable[[socket.socket, bool], None]) -> None:
    """One call's relay, forked by the warm process: in a session of its own (out of the warm
    process's group), it forks the call's child at once, then waits on `handover` for the call's
    four descriptors and passes them on to the child; it waits for the child and says its exit
    status on the call's socket, as the shell of a cold call waits for its command. The child's
    parent is this process, not the warm process, so the status is known however the warm
    process fares. Given no call (the warm process ended or dropped this pair), it ends the
    child and waits for it. Never returns.

    The child starts each piece of work asked ahead only once this relay has said it may (`_YES`
    to its `_BUSY`), and says when it is done (`_IDLE`): a call that comes while it works is
    never made to wait on that work, nor handed to a child that would run it late, past the
    call's timeout (an outside review: the runtime, still waiting for the child's pid, gave up
    and the call ran after it). That child is killed, and a new one, doing nothing ahead, takes
    the call."""

    def fork_child(ahead: bool) -> tuple[int, socket.socket]:
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        pid = os.fork()
        if pid == 0:
            handover.close()
            ours.close()
            start_child(theirs, ahead)
        theirs.close()
        return pid, ours

    def end(pid: int) -> None:
        with contextlib.suppress(OSError):
            os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)

    try:
        os.setsid()
        pid, ours = fork_child(True)
        busy = False  # the child works ahead, as this relay allowed
        asking = False  # the child asked to, as the call came: what comes is the answer
        while True:
            ready, _, _ = select.select([ours, handover], [], [])
            if ours in ready:  # what the child said first: a call then finds it as it is
                said = ours.recv(1)
                if said == _IDLE:
                    busy = False
                elif said == _BUSY and select.select([handover], [], [], 0)[0]:
                    asking = True
                elif said == _BUSY:
                    busy = True
                    with contextlib.suppress(OSError):  # it died: its end is read next
                        ours.send(_YES)
                else:  # the child died as it waited (killed): a new one takes the call
                    ours.close()
                    os.waitpid(pid, 0)
                    pid, ours = fork_child(False)
                    busy = asking = False
                continue
            message, fds = _receive(handover)
            if message == _GO and not fds:  # passed on to the child, which waits for it
                with contextlib.suppress(OSError):
                    ours.send(_GO)
                    if asking:
                        asking, busy = False, True
                        ours.send(_YES)
                continue
            break
        handover.close()
        if len(fds) != _MAX_FDS:
            ours.close()
            end(pid)
            os._exit(0)
        call = socket.socket(fileno=fds[0])
        if busy:  # working ahead: the call does not wait on it
            ours.close()
            end(pid)
            pid, ours = fork_child(False)
        try:
            ours.sendmsg([b"C"], [(socket.SOL_SOCKET, socket.SCM_RIGHTS, array.array("i", fds))])
        except OSError:
            # The child died as it waited (killed): nothing of the call has run; a new one runs it.
            ours.close()
            os.waitpid(pid, 0)
            pid, ours = fork_child(False)
            ours.sendmsg([b"C"], [(socket.SOL_SOCKET, socket.SCM_RIGHTS, array.array("i", fds))])
        # Like the shell of a cold call, this keeps the call's stderr until the child is over,
        # to say there what signal ended it.
        for fd in fds[1:3]:
            os.close(fd)
        _, status = os.waitpid(pid, 0)
        # Kept open until then: a child about to ask for work ahead (`_BUSY`) as the call came
        # would meet a closed socket before it read the call.
        ours.close()
        _finish(call, fds[3], os.waitstatus_to_exitcode(status), status)
    except BaseException:  # noqa: BLE001 - the runtime sees the call's socket close unanswered
        pass
    os._exit(0)


def _finish(call: socket.socket, stderr: int, code: int, status: int) -> None:
    """Say how the child ended as the shell of a cold call (`sh -c`, dash) would: a child ended by
    signal N is exit status 128 + N, and the signal's name on stderr (not for SIGINT or SIGPIPE) —
    unless the runtime killed the call's group itself (it says `K` first), which would have
    killed that shell too: then the status is the signal's, and nothing is said."""
    call.setblocking(False)
    try:
        killed = call.recv(1) == b"K"
    except OSError:
        killed = False
    if code < 0 and not killed:
        number = -code
        if number not in (signal.SIGINT, signal.SIGPIPE):
            message = signal.strsignal(number) or f"Signal {number}"
            if os.WCOREDUMP(status):
                message += " (core dumped)"
            with contextlib.suppress(OSError):
                os.write(stderr, message.encode() + b"\n")
        code = 128 + number
    os.close(stderr)
    call.setblocking(True)
    with contextlib.suppress(OSError):  # unless the caller gave up on this call
        call.sendall(b"S%d\n" % code)
    call.close()


def _receive(control: socket.socket) -> tuple[bytes, list[int]]:
    fds_size = socket.CMSG_SPACE(_MAX_FDS * 4)
    message, ancillary, _, _ = control.recvmsg(1, fds_size)
    fds: list[int] = []
    for level, kind, data in ancillary:
        if level == socket.SOL_SOCKET and kind == socket.SCM_RIGHTS:
            fds += list(struct.unpack(f"{len(data) // 4}i", data[: len(data) - len(data) % 4]))
    return message, fds


def child(
    script: str,
    script_path: str,
    environ: dict[str, str],
    handlers: dict[int, object],
    mask: set[int],
    unseeded: weakref.WeakSet[random.Random],
    held: HeldScript,
    known: frozenset[str],
    report: mmap.mmap,
    asked: tuple[tuple[str, ...], ...],
    at_once: bool,
    handover: socket.socket,
) -> None:
    """The forked child: become a cold process and do what the last calls asked for (what needs
    no call first, while it waits for one), take the call's descriptors from `handover`, become
    that call's, run the script, exit. Given no call, it exits at once. Never returns."""
    fds: list[int] = []
    try:
        os.setsid()  # a session and group of its own, which the runtime kills whole
        os.environ.clear()
        os.environ.update({k: v for k, v in environ.items() if not k.startswith("AGENTIC_")})
        for number, handler in handlers.items():
            if signal.getsignal(number) is not handler and handler is not None:
                signal.signal(number, handler)  # type: ignore[arg-type]
        signal.pthread_sigmask(signal.SIG_SETMASK, mask)
        for generator in list(unseeded):  # random's own is reseeded at fork by random itself
            generator.seed()
        _, fds = wait_for_call(asked, at_once, handover)
        handover.close()
    except BaseException:  # noqa: BLE001 - nothing of a call has run; if it was given, say so
        os._exit(127 if fds else 0)
    if len(fds) != _MAX_FDS:
        os._exit(0)  # no call: its relay was given none, and says nothing
    try:
        call, streams = socket.socket(fileno=fds[0]), fds[1:]
        call.sendall(b"P%d\n" % os.getpid())
        request = json.loads(_read_request(call))
        call.close()
        for target, descriptor in enumerate(streams):
            os.dup2(descriptor, target)
            os.close(descriptor)
        os.closerange(3, os.sysconf("SC_OPEN_MAX") if hasattr(os, "sysconf") else 65536)
        os.chdir(request["cwd"])
        os.environ.update(request["agentic"])
        _fresh_stdio()
        sys.argv = [script, *request["args"]]
        sys.orig_argv = [*sys.orig_argv[:1], script, *request["args"]]
    except BaseException:  # noqa: BLE001 - the call could not be set up; nothing of it has run
        os._exit(127)
    os._exit(run_script(script_path, held, functools.partial(_write_report, report, known)))


def _read_request(call: socket.socket) -> bytes:
    header = _read_exactly(call, _HEADER.size)
    return _read_exactly(call, _HEADER.unpack(header)[0])


def _read_exactly(call: socket.socket, size: int) -> bytes:
    chunks = bytearray()
    while len(chunks) < size:
        chunk = call.recv(min(size - len(chunks), 1 << 20))
        if not chunk:
            raise EOFError
        chunks += chunk
    return bytes(chunks)


def _fresh_stdio() -> None:
    """sys.stdin, stdout and stderr built on descriptors 0, 1 and 2 as the interpreter builds them
    at start-up (same encoding, errors and buffering), so what a run writes is what it would write
    cold."""
    for number, name, mode in ((0, "stdin", "r"), (1, "stdout", "w"), (2, "stderr", "w")):
        old = getattr(sys, name)
        buffered: Any = io.open(number, mode + "b", closefd=False)  # noqa: SIM115, UP020
        buffered.raw.name = f"<{name}>"
        stream = io.TextIOWrapper(
            buffered,
            encoding=old.encoding,
            errors=old.errors,
            newline="\n",
            line_buffering=old.line_buffering,
            write_through=old.write_through,
        )
        stream.mode = mode  # type: ignore[misc]
        setattr(sys, name, stream)
        setattr(sys, f"__{name}__", stream)


def run_script(script_path: str, held: HeldScript, finished: Callable[[], None]) -> int:
    """Run the script as `__main__` (what of it the warm process does not hold) and finish as the
    interpreter does: SystemExit's code, a traceback (from the script's own frames) and 1 for an
    uncaught exception, then threads joined, atexit handlers run and the streams flushed (120 when
    that fails). An uncaught KeyboardInterrupt ends the process by SIGINT, as it does a cold one.
    `finished` is called once all of the script is over, before the process ends."""
    module = held.module or _main_module(script_path)
    sys.modules["__main__"] = module
    status = 0
    interrupted = False
    try:
        code = held.code
        if code is None:  # it did not compile in the warm process: the error is this call's to say
            with open(script_path, "rb") as handle:
                code = compile(handle.read(), script_path, "exec")
        exec(code, module.__dict__)
    except SystemExit as exit_:
        status = _exit_status(exit_.code)
    except BaseException as error:  # noqa: BLE001 - as the interpreter, which prints and exits 1
        tb = error.__traceback__
        tb = tb.tb_next if tb is not None else None  # this function's frame is not the script's
        sys.excepthook(type(error), error.with_traceback(tb), tb)
        status, interrupted = 1, isinstance(error, KeyboardInterrupt)
    threading_shutdown = getattr(threading, "_shutdown", None)
    if threading_shutdown is not None:
        threading_shutdown()
    atexit._run_exitfuncs()
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except Exception:  # noqa: BLE001
            status = 120
    with contextlib.suppress(BaseException):  # nothing of the call's: its status is settled
        finished()
    if interrupted:
        signal.signal(signal.SIGINT, signal.SIG_DFL)
        os.kill(os.getpid(), signal.SIGINT)
    return status


def _exit_status(code: object) -> int:
    if code is None:
        return 0
    if isinstance(code, int):
        # As the interpreter: the code as a C long, and -1 (so 255) for one past a C long's range.
        return code & 0xFF if -sys.maxsize - 1 <= code <= sys.maxsize else 0xFF
    with contextlib.suppress(Exception):
        print(code, file=sys.stderr)
    return 1


def print_reads(script: str) -> None:
    """`warm_server.py --reads SCRIPT`, from the package root: what the script, and the modules of
    its package, read at start-up that only a call has (JSON; [] when its body can be held)."""
    script_path = os.path.abspath(script)
    sys.path[0] = os.path.dirname(os.path.realpath(script_path))
    sys.argv = [sys.argv[0], script]  # as main() is given it
    sys.modules[_WARM_MODULE] = _warm_module()
    seen: list[str] = []
    preimport(script_path, seen)
    print(json.dumps(sorted(set(seen))))


if __name__ == "__main__":
    if sys.argv[1:2] == ["--reads"]:
        print_reads(sys.argv[2])
    else:
        main()
