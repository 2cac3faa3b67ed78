# tests/view_lib.sh: what the viewer's shell tests share (sourced, not run).
#
# Sets VIEW, WORLD, READER, BMP (the programs), NAME (a shared-memory name
# unique to this test run), TMP (a scratch directory), and a trap that stops
# every process the test started and removes NAME's objects and TMP however
# the test ends.  Each test is one TAP case: "ok 1" when it ends with status
# 0, "not ok 1" with the reason from fail(); skip_all skips it (TAP's
# "1..0 # SKIP"), as when the viewer was not built.
set -u

srcdir=${GC_SRCDIR:-$(cd "$(dirname "$0")/.." && pwd)}
builddir=${GC_BUILDDIR:-$srcdir}
VIEW=$builddir/tools/view/gridcrowd-view
WORLD=$builddir/tests/helpers/gc-test-world
READER=$builddir/tests/helpers/gc-test-reader
BMP=$builddir/tests/helpers/gc-test-bmp
DAEMON=$builddir/daemon/gridcrowdd
CTL=$builddir/tools/ctl/gridcrowd-ctl
skipped=
skip_all() {
    skipped=1
    echo "1..0 # SKIP $*"
    exit 0
}
if [ ! -x "$VIEW" ]; then
    skip_all "gridcrowd-view was not built (SDL2 missing or --without-sdl2)"
fi

NAME=gctest-$(basename "$0" .test)-$$
TMP=$(mktemp -d "${TMPDIR:-/tmp}/$NAME.XXXXXX")
# No display in tests: SDL's dummy video driver and software renderer.  (The
# offscreen driver also works, but it probes EGL, whose libraries leak what
# a sanitizer build then reports at exit.)
SDL_VIDEODRIVER=dummy
SDL_RENDER_DRIVER=software
export SDL_VIDEODRIVER SDL_RENDER_DRIVER
unset DISPLAY WAYLAND_DISPLAY

started=
failed=
view_cleanup() {
    _rc=$?
    if [ -n "$skipped" ]; then
        : # the plan said 1..0
    elif [ "$_rc" -eq 0 ]; then
        echo "ok 1 - $(basename "$0" .test)"
    elif [ -z "$failed" ]; then
        echo "not ok 1 - $(basename "$0" .test): exit status $_rc"
    fi
    [ -n "$skipped" ] || echo "1..1"
    for p in $started; do
        kill -TERM "$p" 2>/dev/null
    done
    for p in $started; do
        wait "$p" 2>/dev/null
    done
    rm -f "/dev/shm/$NAME" "/dev/shm/$NAME.edits"
    rm -rf "$TMP"
}
trap view_cleanup EXIT
trap 'exit 1' HUP INT TERM

fail() {
    echo "FAIL: $*" >&2
    failed=1
    echo "not ok 1 - $(basename "$0" .test): $*"
    exit 1
}

# wait_for SECONDS COMMAND...: run COMMAND every 50 ms until it succeeds;
# fails after SECONDS.
wait_for() {
    _limit=$(($1 * 20))
    shift
    _i=0
    while ! "$@"; do
        _i=$((_i + 1))
        [ "$_i" -lt "$_limit" ] || return 1
        sleep 0.05
    done
}

# start_xvfb: a private X server for real input, exported as DISPLAY,
# ready when this returns.  Display numbers come from a wide range by pid,
# so that tests side by side never share one and a number is not reused
# while a server that just had it may still hold its socket; Xvfb writes
# the number on -displayfd only once it listens, and exits if the number is
# taken, when the next one is tried.
start_xvfb() {
    _d=$((1000 + $$ % 30000))
    _last=$((_d + 20))
    while :; do
        : >"$TMP/xvfb.display"
        Xvfb ":$_d" -displayfd 3 -screen 0 1024x768x24 -nolisten tcp -noreset \
            3>"$TMP/xvfb.display" 2>"$TMP/xvfb.err" &
        _xvfb=$!
        _listening() {
            grep -q '^[0-9][0-9]*$' "$TMP/xvfb.display" && return 0
            kill -0 "$_xvfb" 2>/dev/null || return 0
            return 1
        }
        wait_for 20 _listening || {
            kill "$_xvfb" 2>/dev/null
            fail "Xvfb :$_d did not start in 20 s: $(tail -n 1 "$TMP/xvfb.err")"
        }
        if kill -0 "$_xvfb" 2>/dev/null; then
            started="$started $_xvfb"
            break
        fi
        wait "$_xvfb" 2>/dev/null
        _d=$((_d + 1))
        [ "$_d" -le "$_last" ] ||
            fail "no free X display: $(tr "\n" " " <"$TMP/xvfb.err")"
    done
    DISPLAY=:$_d
    export DISPLAY
    unset SDL_VIDEODRIVER
    wait_for 10 xdotool getmouselocation >/dev/null 2>&1 ||
        fail "Xvfb $DISPLAY does not answer: $(tail -n 1 "$TMP/xvfb.err")"
}

# start_viewer ARGS...: the viewer with ARGS, run in TMP (where key s
# saves), its stderr in TMP/view.err, its pid in view; returns once its
# window is up, which viewer_window sets in win and focuses.  A viewer
# that finds the display unusable (exit 3: SDL's X11 driver failed to
# connect, which a loaded CI machine saw once in some hundred runs) while
# the display answers xdotool is started again, up to twice: that is the
# X server's moment, not the viewer's bug.  The third time fails.
start_viewer() {
    _tries=0
    while :; do
        (cd "$TMP" && exec "$VIEW" "$@" 2>"$TMP/view.err") &
        view=$!
        started="$started $view"
        _tries=$((_tries + 1))
        viewer_window "$view" && return 0
        [ "$_tries" -lt 3 ] && xdotool getmouselocation >/dev/null 2>&1 ||
            fail "the viewer exited 3 (no usable display) $_tries times, \
the last: $(tr "\n" " " <"$TMP/view.err")"
        echo "# the viewer saw no usable display; $DISPLAY answers: again" >&2
    done
}

# viewer_window PID: sets win to the window of the viewer PID, waiting up
# to 20 s for it to appear (a search can also fail while windows come and
# go, so it is retried), and focuses it.  Returns 1 when the viewer exited
# 3 (no usable display) first; fails the test on any other exit.
viewer_window() {
    _nodisplay=
    _found() {
        win=$(xdotool search --pid "$1" --name gridcrowd-view 2>/dev/null |
            head -n 1)
        [ -n "$win" ] || {
            kill -0 "$1" 2>/dev/null || {
                wait "$1"
                _st=$?
                if [ "$_st" -eq 3 ]; then
                    _nodisplay=1
                    return 0
                fi
                fail "the viewer exited $_st before showing a window: \
$(tr "\n" " " <"$TMP/view.err")"
            }
            return 1
        }
    }
    wait_for 20 _found "$1" ||
        fail "no viewer window after 20 s: $(tr "\n" " " <"$TMP/view.err")"
    [ -z "$_nodisplay" ] || return 1
    xdotool windowfocus --sync "$win" 2>/dev/null
}

# start_world ARGS...: a gc-test-world on NAME, ready (running) on return;
# its pid in world_pid.
start_world() {
    "$WORLD" --shm "$NAME" "$@" &
    world_pid=$!
    started="$started $world_pid"
    "$READER" -w running -t 30 "$NAME" >/dev/null ||
        fail "gc-test-world $* did not start"
}

# stop_world: SIGTERM; it must exit 0 and leave no objects behind.
stop_world() {
    kill -TERM "$world_pid"
    wait "$world_pid"
    _rc=$?
    [ "$_rc" -eq 0 ] || fail "gc-test-world exited $_rc on SIGTERM"
    [ ! -e "/dev/shm/$NAME" ] && [ ! -e "/dev/shm/$NAME.edits" ] ||
        fail "shared-memory objects left behind"
}

# tick: the world's tick now.
tick() {
    "$READER" "$NAME" | sed -n 's/.* tick=\([0-9]*\) .*/\1/p'
}

# pixel FILE X Y: the RRGGBB of a pixel of a BMP.  Called as $(pixel ...),
# its fail ends only that subshell and the caller gets "not ok ..." for a
# colour, which near reads as black: where black would pass, check its
# status too.
pixel() {
    "$BMP" "$1" "$2" "$3" || fail "reading pixel ($2, $3) of $1"
}

# near RRGGBB RRGGBB [TOLERANCE]: each channel within TOLERANCE (24).
near() {
    _t=${3:-24}
    for _k in 1 3 5; do
        _a=$(printf '%d' "0x$(echo "$1" | cut -c"$_k-$((_k + 1))")")
        _b=$(printf '%d' "0x$(echo "$2" | cut -c"$_k-$((_k + 1))")")
        _d=$((_a - _b))
        [ "$_d" -le "$_t" ] && [ "$_d" -ge "-$_t" ] || return 1
    done
}

# expect_pixel WHAT FILE X Y RRGGBB: the pixel is near the colour.
expect_pixel() {
    _got=$(pixel "$2" "$3" "$4")
    near "$_got" "$5" || fail "$1: pixel ($3, $4) is $_got, expected $5"
}

# expect_dark WHAT FILE X Y: every channel below 0x40 (the heading mark).
expect_dark() {
    _got=$(pixel "$2" "$3" "$4") || fail "$1: cannot read pixel ($3, $4) of $2"
    near "$_got" 202020 32 || fail "$1: pixel ($3, $4) is $_got, expected dark"
}
