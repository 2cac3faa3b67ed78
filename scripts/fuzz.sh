#!/usr/bin/env bash
# scripts/fuzz.sh: build the libFuzzer targets and fuzz each for a bounded time.
#
#   scripts/fuzz.sh [SECONDS]        (default 60 seconds per target)
#
# Builds in build-fuzz/ (ignored by git) with clang, --enable-fuzzing and
# --enable-sanitizers (ASan, UBSan, LeakSanitizer), then runs each target
# for SECONDS over a scratch copy of its seed corpus,
# tests/fuzz/corpus/TARGET/, as many at once as there are cores (each
# fuzzer is one process; GC_FUZZ_JOBS to change it).  Targets: map and
# scen (the parsers), world (the world and queue header validators and
# the readers after them), edits (the edit-entry validator and the
# applier's drain), scenario (scenario files, their grid and the runner
# on a model crowd), recording (edits to a recording, read by the report's
# reader and, when SDL2's headers are there, by the viewer's replay).  What
# the fuzzer adds stays in build-fuzz/run/TARGET/corpus/, never in the
# repository.  The build uses a
# copy of the sources (build-fuzz/src/, refreshed on every run) because
# automake refuses a second build directory beside an in-tree ./configure.
#
# A failure (a sanitizer report, a failed FUZZ_CHECK, a leak, a timeout, an
# out-of-memory) leaves its input in build-fuzz/run/TARGET/crash/ and the
# script prints the path.  Reproduce it with the printed command, fix the
# bug, then copy the input to tests/fuzz/corpus/KIND/regress-WHAT and add it
# to fuzz_corpus in Makefile.am so that `make check` replays it for ever.
#
# At the end it prints, per target: seconds, runs executed
# (stat::number_of_executed_units), executions per second, coverage (cov:
# edges, ft: features), corpus size and inputs added.
#
# Environment: GC_FUZZ_CC (clang), GC_FUZZ_BUILD (build-fuzz under the
# source tree), GC_FUZZ_MAX_LEN (largest input tried, 4096 bytes: the seeds
# are smaller, and large maps only repeat rows), GC_FUZZ_TARGETS (which
# targets, default "map scen world edits scenario recording"), GC_FUZZ_JOBS
# (how many fuzz at once, default the number of cores).
#
# Exit codes: 0 every target ran its time without a failure; 1 a target
# failed; 2 bad usage, or the build failed.
set -u

usage() {
    echo "usage: scripts/fuzz.sh [SECONDS]" >&2
    exit 2
}
[ $# -le 1 ] || usage
secs=${1:-60}
case $secs in
'' | *[!0-9]*) usage ;;
esac
[ "$secs" -ge 1 ] || usage

top=$(cd "$(dirname "$0")/.." && pwd)
build=${GC_FUZZ_BUILD:-$top/build-fuzz}
cc=${GC_FUZZ_CC:-clang}
max_len=${GC_FUZZ_MAX_LEN:-4096}
targets=${GC_FUZZ_TARGETS:-map scen world edits scenario recording}
jobs=${GC_FUZZ_JOBS:-$(nproc 2>/dev/null || echo 1)}
case $jobs in
'' | *[!0-9]* | 0) echo "fuzz: GC_FUZZ_JOBS must be a positive number" >&2; exit 2 ;;
esac

die() {
    echo "fuzz: $*" >&2
    exit 2
}

command -v "$cc" >/dev/null 2>&1 ||
    die "$cc not found (libFuzzer needs clang; set GC_FUZZ_CC)"
mkdir -p "$build" || die "cannot create $build"
build=$(cd "$build" && pwd)

# ---- build ------------------------------------------------------------------
# In a git checkout, copy the files git knows about (tracked or new, not
# ignored) with their times, so that make rebuilds only what changed; a
# tarball (no git) is built out of tree instead.
if git -C "$top" rev-parse --is-inside-work-tree >/dev/null 2>&1; then
    srcdir=$build/src
    objdir=$srcdir
    mkdir -p "$srcdir" || die "cannot create $srcdir"
    (cd "$top" && git ls-files -z --cached --others --exclude-standard |
        while IFS= read -r -d '' f; do
            [ -f "$f" ] && printf '%s\0' "$f"
        done | tar --null -T - -cf -) | tar -C "$srcdir" -xf - ||
        die "cannot copy the sources to $srcdir"
else
    srcdir=$top
    objdir=$build/obj
    mkdir -p "$objdir" || die "cannot create $objdir"
fi

if [ ! -f "$objdir/Makefile" ]; then
    if [ ! -x "$srcdir/configure" ]; then
        echo "fuzz: autoreconf -fi in $srcdir" >&2
        (cd "$srcdir" && autoreconf -fi >/dev/null 2>&1) ||
            die "autoreconf failed in $srcdir"
    fi
    # SDL2 stays (when found) for its headers: fuzz_recording compiles the
    # viewer's replay reader, whose view.h includes SDL.h.  Only the fuzz
    # targets are built, so nothing links SDL2.
    echo "fuzz: configuring in $objdir" >&2
    (cd "$objdir" && "$srcdir/configure" -q CC="$cc" --enable-fuzzing \
        --enable-sanitizers --without-libtcod) ||
        die "configure failed (see $objdir/config.log)"
fi
echo "fuzz: building the fuzz targets" >&2
bins=
for t in $targets; do
    bins="$bins tests/fuzz/fuzz_$t"
done
# shellcheck disable=SC2086
make -s -C "$objdir" -j2 $bins || die "the build failed"

# ---- fuzz -------------------------------------------------------------------
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1}

# A figure from libFuzzer's -print_final_stats=1 lines in $log.
final_stat() {
    sed -n "s/^stat::$1: *//p" "$log" | tail -n 1
}

# Fuzz target $1 for $secs s; its exit status and seconds into its run
# directory (the fuzzers run side by side, GC_FUZZ_JOBS at a time).
fuzz_one() {
    local t=$1 bin dir start
    bin=$objdir/tests/fuzz/fuzz_$t dir=$build/run/$t
    start=$(date +%s)
    "$bin" -max_total_time="$secs" -max_len="$max_len" -timeout=10 \
        -print_final_stats=1 -artifact_prefix="$dir/crash/" \
        "$dir/corpus" >"$dir/fuzz.log" 2>&1
    echo $? >"$dir/rc"
    echo $(($(date +%s) - start)) >"$dir/elapsed"
}

running=0
for t in $targets; do
    dir=$build/run/$t
    rm -rf "$dir"
    mkdir -p "$dir/corpus" "$dir/crash" || die "cannot create $dir"
    cp -p "$top/tests/fuzz/corpus/$t/"* "$dir/corpus/" ||
        die "no seed corpus in tests/fuzz/corpus/$t"
    seeds=$(find "$dir/corpus" -type f | wc -l)
    if [ "$running" -ge "$jobs" ]; then
        wait -n
        running=$((running - 1))
    fi
    echo "fuzz: fuzz_$t for $secs s over $seeds seeds (log: $dir/fuzz.log)" >&2
    fuzz_one "$t" &
    running=$((running + 1))
done
wait

failed=0
results=
for t in $targets; do
    bin=$objdir/tests/fuzz/fuzz_$t
    dir=$build/run/$t
    log=$dir/fuzz.log
    rc=$(cat "$dir/rc" 2>/dev/null || echo 1)
    elapsed=$(cat "$dir/elapsed" 2>/dev/null || echo '?')
    runs=$(final_stat number_of_executed_units)
    speed=$(final_stat average_exec_per_sec)
    added=$(final_stat new_units_added)
    last=$(grep -E '^#[0-9]+.* cov: ' "$log" | tail -n 1)
    cov=$(printf '%s\n' "$last" | sed -n 's/.* cov: \([0-9]*\).*/\1/p')
    ft=$(printf '%s\n' "$last" | sed -n 's/.* ft: \([0-9]*\).*/\1/p')
    corp=$(printf '%s\n' "$last" | sed -n 's/.* corp: \([^ ]*\).*/\1/p')

    if [ "$rc" -eq 0 ]; then
        result=ok
    else
        failed=1
        result="FAILED (exit $rc)"
        echo "fuzz: fuzz_$t failed, exit status $rc; its report:" >&2
        grep -E 'ERROR:|SUMMARY:|fuzz check failed|runtime error' "$log" |
            head -n 5 | sed 's/^/    /' >&2
        found=0
        for a in "$dir/crash/"*; do
            [ -f "$a" ] || continue
            found=1
            echo "fuzz: input saved as $a" >&2
            echo "fuzz:   reproduce: $bin $a" >&2
        done
        [ "$found" -eq 1 ] ||
            echo "fuzz: no input was saved; see $log" >&2
        echo "fuzz:   keep it: cp INPUT tests/fuzz/corpus/$t/regress-WHAT" \
            "and list it in Makefile.am" >&2
    fi
    results="$results$(printf '%-10s %7s %12s %8s %6s %7s %14s %6s  %s' \
        "fuzz_$t" "$elapsed" "${runs:-?}" "${speed:-?}" "${cov:-?}" \
        "${ft:-?}" "${corp:-?}" "${added:-?}" "$result")
"
done

echo
echo "fuzz: $secs s per target, inputs up to $max_len bytes, ASan+UBSan+LSan"
printf '%-10s %7s %12s %8s %6s %7s %14s %6s  %s\n' target seconds runs \
    exec/s cov ft corpus new result
printf '%s' "$results"
echo "fuzz: corpora (seeds + what was found): $build/run/*/corpus"
exit "$failed"
