# tools/bench/bench-lib.sh: what the benchmark scripts share (sourced by
# rvo2-peer and compare-builds).

# median: the median of the numbers on stdin, one a line, to three
# decimals; exit 1 when there are none.
median() {
    sort -n | awk '{a[NR] = $1} END {
        if (NR == 0) exit 1
        m = NR % 2 ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2
        printf "%.3f", m }'
}

# positive_count WHAT VALUE: exit 2 with a line unless VALUE is a whole
# number above 0 (PROG names the script).
positive_count() {
    case $2 in
    '' | *[!0-9]* | 0 | 0*)
        echo "$PROG: $1: '$2' is not a positive count" >&2
        exit 2
        ;;
    esac
}
