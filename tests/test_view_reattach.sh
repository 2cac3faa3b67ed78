#!/bin/sh
# A viewer attached while its daemon stops waits and reattaches when a
# daemon with the same name starts again; with --exit-on-detach it exits 0
# instead.  The viewer runs with a (headless) window, as a user runs it.
. "$(dirname "$0")/view_lib.sh"

log=$TMP/view.err
attaches() {
    grep -c "^gridcrowd-view: attached to /$NAME (pid [0-9]*)\$" "$log"
}
# attached N: the viewer has attached N times (wait_for runs it each time).
attached() {
    test "$(attaches)" -eq "$1"
}
gone() {
    ! kill -0 "$1" 2>/dev/null
}

start_world --map "$srcdir/tests/data/tiny.map" --agent 1.5,1.5,0,moving
first=$world_pid
"$VIEW" --shm "$NAME" --fps 30 --log-attach 2>"$log" &
view=$!
started="$started $view"
wait_for 10 attached 1 || fail "no first attach: $(cat "$log")"

stop_world
wait_for 10 grep -q "^gridcrowd-view: detached from /$NAME: daemon stopped" \
    "$log" || fail "no detach: $(cat "$log")"
kill -0 "$view" 2>/dev/null || fail "the viewer exited when the daemon stopped"

start_world --map "$srcdir/maps/small.map" --agent 3.5,3.5,0,waiting
[ "$world_pid" != "$first" ] || fail "same daemon pid twice"
wait_for 10 attached 2 || fail "no reattach: $(cat "$log")"
grep -q "attached to /$NAME (pid $world_pid)" "$log" ||
    fail "reattached to the wrong daemon: $(cat "$log")"

# SIGTERM ends the viewer cleanly.
kill -TERM "$view"
wait "$view"
rc=$?
[ "$rc" -eq 0 ] || fail "viewer exited $rc on SIGTERM"

# --exit-on-detach: exit 0 when the daemon stops.
: >"$log"
"$VIEW" --shm "$NAME" --fps 30 --log-attach --exit-on-detach 2>"$log" &
view=$!
started="$started $view"
wait_for 10 attached 1 || fail "no attach: $(cat "$log")"
stop_world
wait_for 10 gone "$view" ||
    fail "--exit-on-detach: still running"
wait "$view"
rc=$?
[ "$rc" -eq 0 ] || fail "--exit-on-detach: exit $rc, expected 0"
