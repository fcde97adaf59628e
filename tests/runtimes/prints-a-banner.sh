#!/bin/sh
# A deliberately wrong runtime: like relay.sh, but it prints a line of its own on stdout first.
set -eu
cd "$1"
shift
echo "running $*"
command=$(sed -n 's/^  command: //p' APP.md | head -n 1)
exec sh -c "$command \"\$@\"" sh "$@"
