#!/bin/sh
# A viewer killed with SIGKILL does not disturb the daemon: ticks go on, the
# daemon still ends cleanly on SIGTERM (exit 0) and nothing is left in
# /dev/shm.  The viewer is killed while it is busy: drawing moving agents
# and asking for a trace through the edit queue.
. "$(dirname "$0")/view_lib.sh"

start_world --map "$srcdir/maps/small.map" --random 200 --move --hz 100
log=$TMP/view.err
"$VIEW" --shm "$NAME" --fps 0 --trace 0 --show-paths --log-attach 2>"$log" &
view=$!
started="$started $view"
wait_for 10 grep -q "attached to /$NAME" "$log" || fail "no attach: $(cat "$log")"

# ticked_past N: the world's tick is past N (wait_for runs it each time).
ticked_past() {
    test "$(tick)" -gt "$1"
}
before=$(tick)
kill -KILL "$view"
wait "$view" 2>/dev/null
wait_for 10 ticked_past $((before + 50)) ||
    fail "ticks stopped at $(tick) after the viewer was killed at $before"
kill -0 "$world_pid" || fail "the daemon died with the viewer"
stop_world
