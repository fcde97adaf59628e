#!/bin/sh
# A minimal runtime, for replaying scenarios through something other than the built-in one:
# `relay.sh PACKAGE_PATH ARG...` runs the package's entry.command from its root and relays
# stdin, stdout and the exit status untouched.
set -eu
cd "$1"
shift
command=$(sed -n 's/^  command: //p' APP.md | head -n 1)
# entry.command is a shell command; the arguments follow it as "$@", so the shell never reads them.
exec sh -c "$command \"\$@\"" sh "$@"
