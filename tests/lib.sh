# tests/lib.sh: helpers for the shell integration tests (sourced).
#
# Every test uses a shared-memory name unique to its process, waits for
# readiness by reading the world's state (never by sleeping), and removes
# what it made in an EXIT trap, even when it fails.

set -u
SRC=${GC_SRCDIR:-$(cd "$(dirname "$0")/.." && pwd)}
BUILD=${GC_BUILDDIR:-$SRC}
DAEMON=$BUILD/daemon/gridcrowdd
READER=$BUILD/tests/helpers/gc-test-reader
TMPD=$(mktemp -d "${TMPDIR:-/tmp}/gctest.XXXXXX")
SHM=gct$$-$(basename "$0" .test)
PIDS=
SHM_EXTRA= # more names the test makes, removed by the trap too

cleanup() {
    for p in $PIDS; do
        kill -KILL "$p" 2>/dev/null
        wait "$p" 2>/dev/null
    done
    for n in $SHM $SHM_EXTRA; do
        rm -f "/dev/shm/$n" "/dev/shm/$n.edits"
    done
    rm -rf "$TMPD"
}
trap cleanup EXIT

# The viewer, when it was built (SDL2); tests that use it skip those
# checks otherwise.  No display in tests: SDL's dummy video driver.
VIEW=$BUILD/tools/view/gridcrowd-view
have_view() { [ -x "$VIEW" ]; }
SDL_VIDEODRIVER=dummy
SDL_RENDER_DRIVER=software
export SDL_VIDEODRIVER SDL_RENDER_DRIVER

fails=0
checks=0
pass() { checks=$((checks + 1)); echo "ok $checks - $*"; }
skip() { checks=$((checks + 1)); echo "ok $checks - # SKIP $*"; }
fail() { checks=$((checks + 1)); fails=$((fails + 1)); echo "not ok $checks - $*"; }
check() { # check DESCRIPTION COMMAND...
    d=$1; shift
    if "$@"; then pass "$d"; else fail "$d"; fi
}
# check_status $? DESCRIPTION: passes when the status given (the last
# command's) is 0.  For a check of several conditions, `{ A && B; }` then
# check_status: in `check D A && B` check sees A alone and B's failure is
# lost.  The status is an argument, written first, because the tests run
# under bash, which sets $? to each command substitution's status as it
# expands a description such as "got $(cat "$err")": read inside the
# function, $? was that substitution's 0, and the check passed whatever
# had failed.  (tests/lint-checks.py finds both forms.)
check_status() {
    if [ "$1" -eq 0 ]; then pass "$2"; else fail "$2"; fi
}
# skip_all REASON: the whole test is skipped (TAP's "1..0 # SKIP").
skip_all() {
    echo "1..0 # SKIP $*"
    exit 0
}
finish() {
    echo "1..$checks"
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

# wait_for SECONDS COMMAND...: run COMMAND every 20 ms until it succeeds;
# fails after SECONDS.
wait_for() {
    _limit=$(($1 * 50))
    shift
    _w=0
    while ! "$@"; do
        _w=$((_w + 1))
        [ "$_w" -lt "$_limit" ] || return 1
        sleep 0.02
    done
}

# gone PID: the process has exited (a child not yet reaped is a zombie).
gone() {
    ! kill -0 "$1" 2>/dev/null ||
        [ "$(sed -n 's/^[0-9]* (.*) \(.\) .*/\1/p' "/proc/$1/stat" 2>/dev/null)" = Z ]
}

# Field from gc-test-reader's header line: field NAME LINE
field() { printf '%s\n' "$2" | tr ' ' '\n' | sed -n "s/^$1=//p"; }

no_objects_left() {
    [ ! -e "/dev/shm/$SHM" ] && [ ! -e "/dev/shm/$SHM.edits" ]
}
