#!/bin/sh
# A minimal runtime, for replaying scenarios through something other than the built-in one:
# `relay.sh PACKAGE_PATH ARG...` runs the package's entry.command from its root and relays
# stdin, stdout and the exit status untouched.
set -eu
cd "$1"
shift
command=$(sed -n 's/^  command: //p' APP.md | head -n 1)
# entry.command is a command line: split it into words on purpose.
# shellcheck disable=SC2086
exec $command "$@"
