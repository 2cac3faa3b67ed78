# tests/lib.sh: helpers for the shell integration tests (sourced).
#
# Every test uses a shared-memory name unique to its process, waits for
# readiness by reading the world's state (never by sleeping), and removes
# what it made in an EXIT trap, even when it fails.

set -u
SRC=${GC_SRCDIR:-$(cd "$(dirname "$0")/.." && pwd)}
BUILD=${GC_BUILDDIR:-$SRC}
DAEMON=$BUILD/src/gridcrowdd
READER=$BUILD/tools/gc-test-reader
TMPD=$(mktemp -d "${TMPDIR:-/tmp}/gctest.XXXXXX")
SHM=gct$$-$(basename "$0" .test)
PIDS=

cleanup() {
    for p in $PIDS; do
        kill -KILL "$p" 2>/dev/null
        wait "$p" 2>/dev/null
    done
    rm -f "/dev/shm/$SHM" "/dev/shm/$SHM.edits"
    rm -rf "$TMPD"
}
trap cleanup EXIT

fails=0
checks=0
pass() { checks=$((checks + 1)); echo "ok $checks - $*"; }
fail() { checks=$((checks + 1)); fails=$((fails + 1)); echo "not ok $checks - $*"; }
check() { # check DESCRIPTION COMMAND...
    d=$1; shift
    if "$@"; then pass "$d"; else fail "$d"; fi
}
finish() {
    echo "# $checks checks, $fails failed"
    [ "$fails" -eq 0 ]
    exit $?
}

# Start the daemon in the background; its pid in DPID, stderr in $TMPD/d.err.
start_daemon() {
    "$DAEMON" --shm "$SHM" "$@" 2>"$TMPD/d.err" &
    DPID=$!
    PIDS="$PIDS $DPID"
}

# Field from gc-test-reader's header line: field NAME LINE
field() { printf '%s\n' "$2" | tr ' ' '\n' | sed -n "s/^$1=//p"; }

no_objects_left() {
    [ ! -e "/dev/shm/$SHM" ] && [ ! -e "/dev/shm/$SHM.edits" ]
}
