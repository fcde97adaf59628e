#!/bin/sh
# A deliberately wrong runtime: like relay.sh, but the app never sees the caller's stdin.
set -eu
cd "$1"
shift
command=$(sed -n 's/^  command: //p' APP.md | head -n 1)
exec sh -c "$command \"\$@\"" sh "$@" </dev/null
