#!/bin/sh
# test_bench.sh: gridcrowd-bench end to end.
#
# Runs the program on a 7x5 map shipped in tests/data/bench/ whose optimal
# lengths were worked out by hand (bench.scen; bench-wrong.scen has one of
# them wrong on purpose, line 6; bench-bad.scen is malformed on line 3), and
# checks the exit codes, the JSON keys and the one-line errors.  When the
# Moving AI benchmarks are beside the repository (../shared), it also checks
# 200 problems of a real one.  make check sets GC_SRCDIR and GC_BUILDDIR, so
# this works in VPATH builds (make distcheck) too.
set -u

srcdir=${GC_SRCDIR:-$(cd "$(dirname "$0")/.." && pwd)}
builddir=${GC_BUILDDIR:-$srcdir}
shared=${GC_SHARED_DIR:-$srcdir/../shared}
bench=$builddir/tools/bench/gridcrowd-bench
data=$srcdir/tests/data/bench

tmp=$(mktemp -d "${TMPDIR:-/tmp}/gc-bench.XXXXXX") || exit 99
trap 'rm -rf "$tmp"' EXIT INT TERM

# TAP: one line a check, the plan at the end.
failures=0 checks=0
fail() {
    checks=$((checks + 1)) failures=$((failures + 1))
    echo "not ok $checks - $*"
}
ok() {
    checks=$((checks + 1))
    echo "ok $checks - $*"
}

# run ARGS...: run the program; sets $rc, output in $tmp/out and $tmp/err.
run() {
    "$bench" "$@" >"$tmp/out" 2>"$tmp/err"
    rc=$?
}

# key NAME: the first value of "NAME": in $tmp/out (numbers, true, false).
key() {
    sed -n "s/.*\"$1\":\([^,}]*\).*/\1/p" "$tmp/out" | head -n 1
}

lines() {
    wc -l <"$1" | tr -d ' '
}

expect_rc() { # WANT WHAT
    if [ "$rc" -ne "$1" ]; then
        fail "$2: exit $rc, want $1"
        sed 's/^/  stderr: /' "$tmp/err"
        return 1
    fi
    return 0
}

# --- every length optimal ---------------------------------------------------
run --json "$data/bench.scen"
if expect_rc 0 "bench.scen --json"; then
    p=$(key problems)
    o=$(key optimal)
    if [ "$p" = 9 ] && [ "$o" = 9 ] && [ "$(lines "$tmp/out")" = 1 ] &&
        [ ! -s "$tmp/err" ]; then
        ok "bench.scen: $o of $p optimal, one JSON line, quiet stderr"
    else
        fail "bench.scen: problems '$p' optimal '$o' (want 9, 9)"
        cat "$tmp/out" "$tmp/err"
    fi
    for k in file problems optimal mean_us median_us p99_us expanded_mean \
        expansions_per_s bytes_per_cell; do
        grep -q "\"$k\":" "$tmp/out" || fail "--json has no key '$k'"
    done
fi

# The table: a header and one row; --map gives the same answer.
run --map "$data/bench.map" --repeat 3 "$data/bench.scen"
if expect_rc 0 "--map --repeat 3"; then
    if [ "$(lines "$tmp/out")" = 2 ] && head -n 1 "$tmp/out" | grep -q '^file '; then
        ok "table: header and one row"
    else
        fail "table: want a header and one row"
        cat "$tmp/out"
    fi
fi

run --json --clock cpu "$data/bench.scen"
expect_rc 0 "--clock cpu" && [ "$(key clock)" = '"cpu"' ] &&
    ok "--clock cpu" || fail "--clock cpu: clock '$(key clock)'"

run --json --limit 4 "$data/bench.scen"
expect_rc 0 "--limit 4" && [ "$(key problems)" = 4 ] && ok "--limit 4" ||
    fail "--limit 4: problems '$(key problems)'"

# --algo: A* by default; jps and auto run jump point search (uniform costs,
# the Moving AI rule), every length still optimal; a rule JPS does not
# cover makes auto fall back to A* and jps a usage error.
run --json "$data/bench.scen"
[ "$(key algo)" = '"astar"' ] && ok "default algo astar" ||
    fail "default algo '$(key algo)'"
for a in jps auto; do
    run --json --algo $a "$data/bench.scen"
    if expect_rc 0 "--algo $a"; then
        [ "$(key algo)" = '"jps"' ] && [ "$(key optimal)" = 9 ] &&
            ok "--algo $a: jps ran, 9 optimal" ||
            fail "--algo $a: algo '$(key algo)' optimal '$(key optimal)'"
    fi
done
run --map "$data/bench.map" --algo jps "$data/bench.scen"
expect_rc 0 "--algo jps table" && head -n 1 "$tmp/out" | grep -q ' algo' &&
    sed -n 2p "$tmp/out" | grep -q ' jps' && ok "table: algo column says jps" ||
    fail "table: no algo column"
run --json --algo auto --diag always "$data/bench.scen"
expect_rc 0 "--algo auto --diag always" && [ "$(key algo)" = '"astar"' ] &&
    ok "--algo auto --diag always: astar" ||
    fail "--algo auto --diag always: algo '$(key algo)'"

# --- a wrong length ---------------------------------------------------------
run --json "$data/bench-wrong.scen"
if expect_rc 1 "bench-wrong.scen"; then
    if grep -q "bench-wrong.scen:6: (4,0) -> (6,2): expected 3.00000000, got 2.82842712" "$tmp/err" &&
        [ "$(key optimal)" = 8 ]; then
        ok "wrong length: exit 1, line 6 named"
    else
        fail "wrong length: line 6 not reported"
        cat "$tmp/out" "$tmp/err"
    fi
fi

# Other rules are reported, not judged: 4-connected lengths differ, exit 0.
run --json --diag never "$data/bench.scen"
expect_rc 0 "--diag never" && [ "$(key checked)" = false ] &&
    ok "--diag never: reported, not checked" ||
    fail "--diag never: checked '$(key checked)'"

# --- bad input and usage: one line on stderr, nothing on stdout, exit 2 -----
one_line_error() { # WHAT PATTERN
    if expect_rc 2 "$1"; then
        if [ "$(lines "$tmp/err")" = 1 ] && [ ! -s "$tmp/out" ] &&
            grep -q "^gridcrowd-bench: .*$2" "$tmp/err"; then
            ok "$1: $(cat "$tmp/err")"
        else
            fail "$1: want one line matching '$2' and no output"
            cat "$tmp/out" "$tmp/err"
        fi
    fi
}

run "$tmp/no-such.scen"
one_line_error "missing file" "no-such.scen"
run "$data/bench-bad.scen"
one_line_error "malformed scenario" "bench-bad.scen:3:"
run --map "$tmp/no-such.map" "$data/bench.scen"
one_line_error "missing --map" "no-such.map"
run --map "$srcdir/tests/data/tiny.map" "$data/bench.scen"
one_line_error "--map of another size" "bench.scen:2:"
sed 's/	bench\.map	7	5	5	4	/	other.map	7	5	5	4	/' \
    "$data/bench.scen" >"$tmp/two-maps.scen"
cp "$data/bench.map" "$tmp/bench.map"
run "$tmp/two-maps.scen"
one_line_error "two maps in one file" "two-maps.scen:9: names map 'other.map'"
run --frobnicate "$data/bench.scen"
one_line_error "unknown option" "--frobnicate"
run -x "$data/bench.scen"
one_line_error "unknown short option" "unknown option '-x' (see gridcrowd-bench --help)\$"
run "$data/bench.scen" --repeat
one_line_error "a missing value" "--repeat needs a value (see gridcrowd-bench --help)\$"
run --json=yes "$data/bench.scen"
one_line_error "a value for a flag" "--json takes no value"
run --repeat 0 "$data/bench.scen"
one_line_error "--repeat 0" "--repeat: '0' is not a whole number from 1 to 1000000"
run --limit 0x10 "$data/bench.scen"
one_line_error "--limit in hex" "--limit: '0x10' is not a whole number"
run --diag sideways "$data/bench.scen"
one_line_error "unknown rule" "sideways"
run --algo bfs "$data/bench.scen"
one_line_error "unknown algorithm" "--algo bfs"
run --algo jps --diag always "$data/bench.scen"
one_line_error "--algo jps where it does not apply" "invalid"
run
one_line_error "no file" "no scenario file"

run --help
expect_rc 0 "--help" && grep -q "Exit codes" "$tmp/out" && ok "--help" ||
    fail "--help: no exit codes listed"
run --version
expect_rc 0 "--version" &&
    grep -q '^gridcrowd-bench (gridcrowd) [0-9]' "$tmp/out" &&
    ok "--version: $(head -n 1 "$tmp/out")" ||
    fail "--version: first line '$(head -n 1 "$tmp/out")'"

# --- strings are JSON-escaped ---------------------------------------------
weird="$tmp/we\"ird\\name.scen"
cp "$data/bench.scen" "$weird" && cp "$data/bench.map" "$tmp/bench.map"
run --json "$weird"
if expect_rc 0 "odd file name"; then
    if grep -qF '"file":"'"$tmp"'/we\"ird\\name.scen"' "$tmp/out"; then
        ok "file name JSON-escaped"
    else
        fail "file name not escaped"
        cat "$tmp/out"
    fi
    if command -v python3 >/dev/null 2>&1; then
        python3 -c 'import json, sys; json.loads(sys.stdin.read())' \
            <"$tmp/out" && ok "output is valid JSON" ||
            fail "output is not valid JSON"
    fi
fi

# --- the libtcod peer -------------------------------------------------------
if "$bench" --version | grep -q 'libtcod peer: yes'; then
    run --json --peer libtcod --repeat 2 "$data/bench.scen"
    if expect_rc 0 "--peer libtcod"; then
        if [ "$(key peer_optimal)" = "$(key problems)" ] &&
            grep -q '"ratio":' "$tmp/out" && grep -q '"peer":"libtcod"' "$tmp/out"; then
            ok "--peer libtcod: peer_optimal $(key peer_optimal), ratio $(key ratio)"
        else
            fail "--peer libtcod: peer_optimal '$(key peer_optimal)'"
            cat "$tmp/out"
        fi
    fi
else
    run --peer libtcod "$data/bench.scen"
    if expect_rc 2 "--peer libtcod without libtcod" &&
        grep -qx 'gridcrowd-bench: --peer libtcod: not built with libtcod (install libtcod-dev and re-run configure)' "$tmp/err"; then
        ok "--peer libtcod: not built, says so"
    else
        fail "--peer libtcod without libtcod: wrong message"
        cat "$tmp/err"
    fi
fi

# --- a real Moving AI benchmark, when present -------------------------------
scen=$shared/benchmarks/movingai/random-64-64-20-random-1.scen
if [ -r "$scen" ]; then
    run --json --limit 200 "$scen"
    if expect_rc 0 "random-64-64-20"; then
        [ "$(key problems)" = 200 ] && [ "$(key optimal)" = 200 ] &&
            ok "random-64-64-20: 200 of 200 optimal" ||
            fail "random-64-64-20: optimal '$(key optimal)' of '$(key problems)'"
    fi
else
    checks=$((checks + 1))
    echo "ok $checks - # SKIP $scen not found"
fi

echo "1..$checks"
if [ "$failures" -ne 0 ]; then
    echo "# $failures failure(s)"
    exit 1
fi
exit 0
