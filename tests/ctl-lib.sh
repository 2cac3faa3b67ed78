# tests/ctl-lib.sh: gridcrowd-ctl helpers for the edit tests (sourced after
# tests/lib.sh, which provides SHM, SRC, BUILD, TMPD, DPID and the trap).

CTL=$BUILD/tools/ctl/gridcrowd-ctl
CRASH=$BUILD/tests/helpers/gc-test-edit-crash

ctl() { "$CTL" --shm "$SHM" "$@"; }

# A top-level value from gridcrowd-ctl's one-line JSON: jget KEY JSON.
# (Keys are unique in status --json; "total" is the one inside "agents".)
jget() {
    printf '%s\n' "$2" | sed -n "s/.*\"$1\": \"\{0,1\}\([^,\"}]*\).*/\1/p"
}

# Wait until `status --json` says running: poll, bounded (20 s), and stop
# early if the daemon died.
wait_running() {
    _i=0
    while [ $_i -lt 1000 ]; do
        _s=$(ctl status --json 2>/dev/null) &&
            [ "$(jget state "$_s")" = running ] && return 0
        kill -0 "$DPID" 2>/dev/null || return 1
        _i=$((_i + 1))
        sleep 0.02
    done
    return 1
}

# The glyph of cell (x, y) in a map file: glyph FILE X Y.
glyph() {
    awk -v x="$2" -v y="$3" 'NR == y + 5 { print substr($0, x + 1, 1) }' "$1"
}

# The reference for the edit tests: apply edit lines ("set X Y G",
# "rect X0 Y0 X1 Y1 G", "line X0 Y0 X1 Y1 G", G a canonical glyph . @ S R)
# to a map file, in order, and print the map.  Written from the rules in
# gridcrowd/edits.h, independently of the daemon: rectangles take their
# corners in any order; lines are Bresenham drawn from the endpoint with
# the smaller x (then y).
model() {
    awk '
    FNR == NR { if (FNR <= 4) head[FNR] = $0
                else row[FNR - 5] = $0
                h = FNR - 4; next }
    function put(x, y, g) {
        row[y] = substr(row[y], 1, x) g substr(row[y], x + 2)
    }
    function abs(v) { return v < 0 ? -v : v }
    $1 == "set" { put($2, $3, $4) }
    $1 == "rect" {
        xa = $2 < $4 ? $2 : $4; xb = $2 < $4 ? $4 : $2
        ya = $3 < $5 ? $3 : $5; yb = $3 < $5 ? $5 : $3
        for (y = ya; y <= yb; y++) for (x = xa; x <= xb; x++) put(x, y, $6)
    }
    $1 == "line" {
        x0 = $2; y0 = $3; x1 = $4; y1 = $5
        if (x1 < x0 || (x1 == x0 && y1 < y0)) {
            t = x0; x0 = x1; x1 = t; t = y0; y0 = y1; y1 = t
        }
        dx = abs(x1 - x0); sx = x0 < x1 ? 1 : -1
        dy = -abs(y1 - y0); sy = y0 < y1 ? 1 : -1
        err = dx + dy
        for (;;) {
            put(x0, y0, $6)
            if (x0 == x1 && y0 == y1) break
            e2 = 2 * err
            if (e2 >= dy) { err += dy; x0 += sx }
            if (e2 <= dx) { err += dx; y0 += sy }
        }
    }
    END { for (i = 1; i <= 4; i++) print head[i]
          for (y = 0; y < h; y++) print row[y] }
    ' "$1" "$2"
}
