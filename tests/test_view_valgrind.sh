#!/bin/sh
# A screenshot run under valgrind: no invalid access, nothing of ours
# leaked.  Skips without valgrind and in sanitizer builds (which valgrind
# cannot run).  SDL's own leaks are suppressed by tests/valgrind-sdl.supp.
. "$(dirname "$0")/view_lib.sh"

command -v valgrind >/dev/null || {
    echo "SKIP: no valgrind"
    exit 77
}
if grep -q __asan_init "$builddir/tools/.libs/gridcrowd-view" 2>/dev/null ||
    grep -q __tsan_init "$builddir/tools/.libs/gridcrowd-view" 2>/dev/null; then
    echo "SKIP: sanitizer build"
    exit 77
fi

start_world --map "$srcdir/maps/small.map" --random 40 --move \
    --agent 3.5,3.5,0,moving,20,10 --waypoint 4.5,4.5 --trace 40
log=$TMP/valgrind.log
"$builddir/libtool" --mode=execute valgrind --leak-check=full \
    --errors-for-leak-kinds=definite,indirect --num-callers=40 \
    --suppressions="$srcdir/tests/valgrind-sdl.supp" --error-exitcode=9 \
    "$VIEW" --shm "$NAME" --screenshot "$TMP/v.bmp" --frames 3 \
    --trace 40 --show-paths 2>"$log"
rc=$?
[ "$rc" -eq 0 ] || fail "valgrind: exit $rc: $(cat "$log")"
grep -q "ERROR SUMMARY: 0 errors" "$log" || fail "valgrind did not run: $(cat "$log")"
[ -s "$TMP/v.bmp" ] || fail "no screenshot"
stop_world
