#!/bin/sh
# tests/soak.sh (make soak): a long run under churn, to be run before a
# release; not part of make check.
#
#   SOAK_SECONDS=600 make soak        (the default: 10 minutes)
#
# A daemon runs in real time (60 ticks/s) on a 256x257 map (den520d from
# ../shared when it is there, else a generated one) with SOAK_AGENTS (2000)
# wandering agents, while a driver loop keeps doing, at random, about
# twice a second: single edits (set, rect, line), batches of 100, an apply
# of the original map (a large diff, every ~60 s), status/agents/cells
# reads, a gridcrowd-ctl killed with SIGKILL in the middle of sending or
# waiting, a producer that dies holding a queue claim, and (when the
# viewer is built) a viewer that attaches and is stopped, by SIGTERM or
# SIGKILL, a few seconds later.
#
# Every SOAK_SAMPLE (10) seconds it prints one sample: seconds, the
# daemon's resident memory (VmRSS from /proc/PID/status), its tick, the
# tick rate over the interval, edits accepted/rejected/pending.  It fails
# when, after the warm-up (SOAK_WARMUP, default the first 60 s or a fifth
# of the run, whichever is shorter):
#   - the resident memory grows above its value at the end of the warm-up
#     by more than 10% + 4 MiB (SOAK_RSS_PCT, SOAK_RSS_KB): shared memory
#     and the planners' buffers are all touched by then, and what the
#     daemon allocates afterwards is bounded, so growth past that is a leak;
#   - the tick rate over the last three samples falls more than 20%
#     (SOAK_RATE_PCT) below its rate over the first three samples after the
#     warm-up;
#   - the daemon dies, stops ticking, does not stop cleanly on SIGTERM, or
#     leaves objects behind.
# Exit codes: 0 passed; 1 failed (the reason is printed); 2 bad settings.
. "${GC_SRCDIR:-$(dirname "$0")/..}/tests/lib.sh"
. "$SRC/tests/ctl-lib.sh"

secs=${SOAK_SECONDS:-600}
every=${SOAK_SAMPLE:-10}
agents=${SOAK_AGENTS:-2000}
rss_pct=${SOAK_RSS_PCT:-10}
rss_kb=${SOAK_RSS_KB:-4096}
rate_pct=${SOAK_RATE_PCT:-20}
warm=$((secs / 5 < 60 ? secs / 5 : 60))
warm=${SOAK_WARMUP:-$warm}
for v in "$secs" "$every" "$agents" "$rss_pct" "$rss_kb" "$rate_pct" "$warm"; do
    case $v in '' | *[!0-9]*)
        echo "soak: settings must be whole numbers" >&2
        exit 2
        ;;
    esac
done
[ "$secs" -ge $((warm + 6 * every)) ] || {
    echo "soak: SOAK_SECONDS must leave six samples after the warm-up" >&2
    exit 2
}

map=${GC_SHARED_DIR:-$SRC/../shared}/benchmarks/movingai/den520d.map
if [ ! -f "$map" ]; then
    map=$TMPD/gen.map
    "$BUILD/tools/bench/gc-genmap" --seed 11 256 257 >"$map" || exit 1
fi
echo "soak: $secs s, $agents agents on $map, samples every $every s, warm-up $warm s"
start_daemon --map "$map" --agents "$agents" --threads 2 --quiet
wait_running || {
    echo "soak: FAIL: the daemon did not start: $(cat "$TMPD/d.err")"
    exit 1
}
W=$(jget width "$(ctl status --json)")
H=$(jget height "$(ctl status --json)")
cp "$map" "$TMPD/orig.map"

# ---- the driver -----------------------------------------------------------
# A small LCG, so a run can be repeated (SOAK_SEED).
seed=${SOAK_SEED:-1}
rnd() { # rnd N: a number 0..N-1 in $r
    seed=$(((seed * 1103515245 + 12345) % 2147483648))
    r=$(((seed / 65536) % $1))
}
rtype() {
    rnd 10
    case $r in 0 | 1 | 2 | 3) t=. ;; 4 | 5) t=@ ;; 6 | 7) t=S ;; *) t=R ;; esac
}
acts=0
# count KIND: one more action of that kind, for the closing figures.
count() { eval "n_$1=\$((\${n_$1:-0} + 1))"; }
driver() {
    # Wall-clock deadline in the driver's own clock.
    end=$(($(date +%s) + secs))
    next_apply=$(($(date +%s) + 60))
    while [ "$(date +%s)" -lt "$end" ]; do
        acts=$((acts + 1))
        rnd 100
        a=$r
        if [ "$(date +%s)" -ge "$next_apply" ]; then
            ctl apply "$TMPD/orig.map" >/dev/null 2>&1
            next_apply=$(($(date +%s) + 60))
            count apply
        elif [ "$a" -lt 30 ]; then
            rnd "$W"; x=$r; rnd "$H"; y=$r; rtype
            ctl set "$x" "$y" "$t" >/dev/null 2>&1
            count edit
        elif [ "$a" -lt 45 ]; then
            rnd "$((W - 8))"; x=$r; rnd "$((H - 8))"; y=$r; rnd 8; w=$r; rtype
            ctl rect "$x" "$y" "$((x + w))" "$((y + w))" "$t" >/dev/null 2>&1
            count edit
        elif [ "$a" -lt 55 ]; then
            rnd "$W"; x=$r; rnd "$H"; y=$r; rnd "$W"; x1=$r; rnd "$H"; y1=$r
            rtype
            ctl line "$x" "$y" "$x1" "$y1" "$t" >/dev/null 2>&1
            count edit
        elif [ "$a" -lt 65 ]; then
            rnd 1000
            awk -v s="$r" -v W="$W" -v H="$H" 'BEGIN { srand(s)
                for (i = 0; i < 100; i++)
                    print "set", int(rand() * W), int(rand() * H),
                        substr("..@SR", 1 + int(rand() * 5), 1) }' >"$TMPD/b"
            ctl batch "$TMPD/b" >/dev/null 2>&1
            count batch
        elif [ "$a" -lt 75 ]; then
            ctl status >/dev/null 2>&1
            ctl agents --csv >/dev/null 2>&1
            ctl cells >/dev/null 2>&1
            count read
        elif [ "$a" -lt 83 ]; then
            # A tool killed while sending a batch or an entry stream.
            awk -v W="$W" -v H="$H" 'BEGIN { srand()
                for (i = 0; i < 3000; i++)
                    print "set", int(rand() * W), int(rand() * H), "S" }' \
                >"$TMPD/big"
            rnd 2
            if [ "$r" -eq 0 ]; then
                ctl batch "$TMPD/big" >/dev/null 2>&1 &
            else
                ctl batch --each "$TMPD/big" >/dev/null 2>&1 &
            fi
            p=$!
            rnd 200
            sleep "0.$(printf '%03d' "$r")"
            kill -KILL "$p" 2>/dev/null
            wait "$p" 2>/dev/null
            count killed_sender
        elif [ "$a" -lt 87 ]; then
            ctl sync --timeout 30 >/dev/null 2>&1 &
            p=$!
            sleep 0.05
            kill -KILL "$p" 2>/dev/null
            wait "$p" 2>/dev/null
            count killed_sync
        elif [ "$a" -lt 90 ]; then
            # Dies holding a claim (in a subshell that outlives it, so
            # that sh has no "Killed" to say).
            ("$CRASH" "$SHM"; :) >/dev/null 2>&1
            count dead_claim
        elif have_view; then
            "$VIEW" --shm "$SHM" --fps 30 >/dev/null 2>&1 &
            p=$!
            rnd 4
            sleep $((r + 1))
            rnd 2
            if [ "$r" -eq 0 ]; then
                kill -TERM "$p"
                count viewer_term
            else
                kill -KILL "$p"
                count viewer_kill
            fi
            wait "$p" 2>/dev/null
        fi
        sleep 0.3
    done
    echo "$acts actions: $(set | sed -n "s/^n_\([a-z_]*\)='\{0,1\}\([0-9]*\)'\{0,1\}\$/\2 \1/p" |
        sort -k2 | tr '\n' ',' | sed 's/,$//; s/,/, /g')" >"$TMPD/acts"
}
driver &
drv=$!
PIDS="$PIDS $drv"

# ---- the samples ------------------------------------------------------------
rss() { sed -n 's/^VmRSS:[[:space:]]*\([0-9]*\) kB/\1/p' "/proc/$DPID/status"; }
t0=$(date +%s)
: >"$TMPD/samples"
printf 'soak: %6s %9s %9s %8s %9s %8s %7s\n' seconds rss_kb tick ticks/s \
    accepted rejected pending
prev_t=$t0
prev_tick=$(field tick "$("$READER" "$SHM")")
fail_why=
while :; do
    sleep "$every"
    now=$(date +%s)
    if ! kill -0 "$DPID" 2>/dev/null; then
        fail_why="the daemon died: $(tail -n 3 "$TMPD/d.err")"
        break
    fi
    tick=$(field tick "$("$READER" "$SHM")")
    s=$(ctl status --json 2>/dev/null)
    rate=$(awk -v a="$tick" -v b="$prev_tick" -v d="$((now - prev_t))" \
        'BEGIN { printf "%.1f", (d > 0 ? (a - b) / d : 0) }')
    line=$(printf '%6d %9d %9d %8s %9s %8s %7s' "$((now - t0))" "$(rss)" \
        "$tick" "$rate" "$(jget edits_accepted "$s")" \
        "$(jget edits_rejected "$s")" "$(jget edits_pending "$s")")
    echo "soak: $line"
    echo "$line" >>"$TMPD/samples"
    if [ "$tick" -le "$prev_tick" ]; then
        fail_why="the daemon stopped ticking (tick $tick)"
        break
    fi
    prev_t=$now
    prev_tick=$tick
    [ $((now - t0)) -lt "$secs" ] || break
done
wait "$drv" 2>/dev/null

# ---- the verdict --------------------------------------------------------------
if [ -z "$fail_why" ]; then
    verdict=$(awk -v warm="$warm" -v pct="$rss_pct" -v kb="$rss_kb" \
        -v rpct="$rate_pct" '
        $1 < warm { next }
        base_rss == "" { base_rss = $2; next } # the end of the warm-up
        { n++; rss[n] = $2; rate[n] = $4 }
        END {
            if (base_rss == "") base_rss = rss[1]
            max = 0
            for (i = 1; i <= n; i++) if (rss[i] > max) max = rss[i]
            limit = base_rss * (1 + pct / 100) + kb
            first = (rate[1] + rate[2] + rate[3]) / 3
            last = (rate[n - 2] + rate[n - 1] + rate[n]) / 3
            printf "rss %d kB after warm-up, max %d kB (limit %d kB, %+.1f%%); ",
                base_rss, max, limit, 100 * (max - base_rss) / base_rss
            printf "tick rate %.1f/s first, %.1f/s last (%+.1f%%, limit -%d%%)",
                first, last, 100 * (last - first) / first, rpct
            if (max > limit) print "; FAIL: resident memory grew"
            else if (last < first * (1 - rpct / 100)) print "; FAIL: tick rate fell"
            else print ""
        }' "$TMPD/samples")
    echo "soak: $verdict"
    case $verdict in *FAIL*) fail_why=${verdict#*FAIL: } ;; esac
fi

kill -TERM "$DPID" 2>/dev/null
wait "$DPID"
rc=$?
PIDS=
[ -n "$fail_why" ] || [ "$rc" -eq 0 ] || fail_why="SIGTERM: the daemon exited $rc"
[ -n "$fail_why" ] || no_objects_left || fail_why="objects left in /dev/shm"
echo "soak: driver: $(cat "$TMPD/acts" 2>/dev/null || echo '?')"
echo "soak: the daemon said:"
grep -E '^gridcrowdd: (summary|edits|edit queue)' "$TMPD/d.err" | sed 's/^/soak:   /'
if [ -n "$fail_why" ]; then
    echo "soak: FAIL: $fail_why"
    exit 1
fi
echo "soak: passed"
exit 0
