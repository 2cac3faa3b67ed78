#!/bin/sh
# The viewer's command line: help, version, bad arguments (exit 2), no
# daemon (exit 1 with one line naming the object), a screenshot it cannot
# write (exit 3), and falling back to read-only when the edit queue is
# refused.
. "$(dirname "$0")/view_lib.sh"

out=$TMP/out err=$TMP/err

"$VIEW" --help >"$out" 2>"$err" || fail "--help exited $?"
grep -q '^usage: gridcrowd-view' "$out" || fail "--help: no usage line"
grep -q 'Exit codes' "$out" || fail "--help: exit codes not documented"
[ ! -s "$err" ] || fail "--help wrote to stderr"
"$VIEW" --version >"$out" || fail "--version exited $?"
grep -q '^gridcrowd-view (gridcrowd) [0-9]' "$out" || fail "--version: $(cat "$out")"

# expect_usage WANT-IN-MESSAGE ARGS...: exit 2 and one line naming the
# problem (then the usage text for unknown options).
expect_usage() {
    _want=$1
    shift
    "$VIEW" "$@" >"$out" 2>"$err"
    _rc=$?
    [ "$_rc" -eq 2 ] || fail "$*: exit $_rc, expected 2"
    head -n 1 "$err" | grep -q "^gridcrowd-view: $_want" ||
        fail "$*: message '$(head -n 1 "$err")'"
}
expect_usage "--scale: expected" --scale 0
expect_usage "--scale: expected" --scale 2x
expect_usage "--fps: expected" --fps -1
expect_usage "--frames: expected" --screenshot x.bmp --frames 0
expect_usage "--frames: only with --screenshot" --frames 3
expect_usage "--bench-frames and --screenshot" --bench-frames 3 --screenshot x.bmp
expect_usage "--trace: expected an agent id" --trace me
expect_usage "--bogus: unknown option" --bogus
expect_usage "--shm: needs a value" --shm
expect_usage "extra: unexpected argument" extra

# No daemon: exit 1, one line, before any window is opened.
"$VIEW" --shm "$NAME" >"$out" 2>"$err"
rc=$?
[ "$rc" -eq 1 ] || fail "no daemon: exit $rc, expected 1"
[ "$(wc -l <"$err")" -eq 1 ] || fail "no daemon: $(cat "$err")"
grep -q "^gridcrowd-view: .*/$NAME.*does not exist" "$err" ||
    fail "no daemon: message '$(cat "$err")'"

start_world --map "$srcdir/tests/data/tiny.map" --agent 1.5,1.5,0,moving

# A screenshot that cannot be written is an SDL failure: exit 3.
"$VIEW" --shm "$NAME" --screenshot "$TMP/no/such/dir/x.bmp" 2>"$err"
rc=$?
[ "$rc" -eq 3 ] || fail "unwritable screenshot: exit $rc, expected 3"
grep -q "^gridcrowd-view: $TMP/no/such/dir/x.bmp: " "$err" ||
    fail "unwritable screenshot: message '$(cat "$err")'"

# With edit access the attach line says nothing more.
"$VIEW" --shm "$NAME" --log-attach --screenshot "$TMP/a.bmp" 2>"$err" ||
    fail "screenshot exited $?"
grep -q "^gridcrowd-view: attached to /$NAME (pid $world_pid)\$" "$err" ||
    fail "attach line '$(cat "$err")'"
stop_world

# Read-only: the world is readable by all, the edit queue by its owner only.
# Root reads anything, so as root the viewer runs as nobody.
start_world --map "$srcdir/tests/data/tiny.map" --world-mode 0644 \
    --edits-mode 0600
if [ "$(id -u)" -eq 0 ]; then
    command -v setpriv >/dev/null || {
        echo "read-only: skipped (root without setpriv)"
        exit 0
    }
    chmod 0777 "$TMP"
    as_other="setpriv --reuid=65534 --regid=65534 --clear-groups"
else
    # Our own object, but opened for writing against its mode.
    stop_world
    start_world --map "$srcdir/tests/data/tiny.map" --world-mode 0644 \
        --edits-mode 0400
    as_other=
fi
$as_other "$VIEW" --shm "$NAME" --log-attach --screenshot "$TMP/ro.bmp" \
    2>"$err" || fail "read-only screenshot exited $?: $(cat "$err")"
grep -q "^gridcrowd-view: attached to /$NAME (pid $world_pid), read-only: .*$NAME.edits" "$err" ||
    fail "read-only attach line '$(cat "$err")'"
[ -s "$TMP/ro.bmp" ] || fail "read-only: no screenshot"
stop_world
