/*
 * bench-report.c: what gridcrowd-bench prints for a file: one table row
 * (after the header) or one JSON object per line on stdout, and the first
 * wrong problems of each solver on stderr.  Each figure of a file is the
 * median of its per-run figures (--repeat).
 */
#include "config.h"

#include <gridcrowd/astar.h>
#include <gridcrowd/util.h>

#include <math.h>
#include <stdio.h>

#include "bench.h"

/* A JSON number, or null when it is not finite. */
static void
json_number(FILE *f, const char *key, int prec, double v)
{
    fprintf(f, ",\"%s\":", key);
    if (isfinite(v))
        fprintf(f, "%.*f", prec, v);
    else
        fputs("null", f);
}

const char *
heuristic_name(const gc_astar_opts *s)
{
    gc_heuristic h = s->heuristic;
    if (h == GC_HEUR_DEFAULT)
        h = s->diag == GC_DIAG_NEVER ? GC_HEUR_MANHATTAN : GC_HEUR_OCTILE;
    return gc_heuristic_name(h);
}

/* The algorithms that ran: "astar", "jps", "astar+jps" (auto on a map where
 * JPS applies to some problems only) or "-" when nothing was searched. */
static const char *
algos_name(unsigned algos)
{
    bool a = algos & (1u << GC_ALGO_ASTAR), j = algos & (1u << GC_ALGO_JPS);
    return a && j ? "astar+jps" : a ? "astar" : j ? "jps" : "-";
}

/* A table cell: the number, or "-" when it is not finite. */
static void
table_number(int width, int prec, double v)
{
    if (isfinite(v))
        printf(" %*.*f", width, prec, v);
    else
        printf(" %*s", width, "-");
}

/* The figures of a file: the median of each per-run figure (which sorts
 * the per-run arrays: call it once, after the last run). */
static struct figures
tally_figures(struct tally *t, unsigned repeat)
{
    struct figures f;
    f.mean = median(t->run_mean, repeat);
    f.median = median(t->run_median, repeat);
    f.p99 = median(t->run_p99, repeat);
    f.eps = median(t->run_eps, repeat);
    return f;
}

/* The table's header, before its first row (so that a run that fails at
 * once prints its one error line and nothing else). */
static void
print_header(const struct options *o, int file_width)
{
    static bool printed;
    if (o->json || printed)
        return;
    printed = true;
    printf("%-*s %8s %8s %9s %9s %9s %9s %9s %6s", file_width, "file",
           "problems", "optimal", "mean_us", "median_us", "p99_us", "expanded",
           "Mexp/s", "B/cell");
    printf(" %-9s", "algo");
    if (!o->checked)
        printf(" %9s", "len/opt");
    if (o->peer)
        printf(" %12s %12s %6s", "peer_optimal", "peer_mean_us", "ratio");
    printf("\n");
}

void
print_row(const struct options *o, int file_width, const char *file,
          const char *map, size_t n, struct tally *us, struct tally *peer,
          double bytes_per_cell)
{
    struct figures f = tally_figures(us, o->repeat);
    double expanded_mean = n ? (double)us->expanded / (double)n : NAN;
    double length_ratio =
        us->optimal_sum > 0.0 ? us->length_sum / us->optimal_sum : NAN;
    struct figures pf = {NAN, NAN, NAN, NAN};
    if (peer)
        pf = tally_figures(peer, o->repeat);
    double ratio = pf.mean > 0.0 ? f.mean / pf.mean : NAN;

    print_header(o, file_width);
    if (o->json) {
        fputs("{\"file\":", stdout);
        gc_json_escape(stdout, file);
        fputs(",\"map\":", stdout);
        gc_json_escape(stdout, map);
        printf(",\"problems\":%zu,\"optimal\":%zu,\"checked\":%s", n,
               n - us->nbad, o->checked ? "true" : "false");
        printf(",\"diag\":");
        gc_json_escape(stdout, gc_diag_rule_name(o->search.diag));
        printf(",\"heuristic\":");
        gc_json_escape(stdout, heuristic_name(&o->search));
        printf(",\"algo\":\"%s\"", algos_name(us->algos));
        printf(",\"repeat\":%u,\"clock\":\"%s\"", o->repeat,
               o->clock == CLOCK_MONOTONIC ? "wall" : "cpu");
        json_number(stdout, "mean_us", 3, f.mean);
        json_number(stdout, "median_us", 3, f.median);
        json_number(stdout, "p99_us", 3, f.p99);
        json_number(stdout, "expanded_mean", 2, expanded_mean);
        json_number(stdout, "expansions_per_s", 0, f.eps);
        json_number(stdout, "bytes_per_cell", 3, bytes_per_cell);
        json_number(stdout, "length_ratio", 6, length_ratio);
        fputs(",\"wrong_lines\":[", stdout);
        for (size_t k = 0; k < us->nwrong; k++)
            printf("%s%d", k ? "," : "", us->wrong[k].line);
        fputs("]", stdout);
        if (peer) {
            fputs(",\"peer\":", stdout);
            gc_json_escape(stdout, peer->who);
            printf(",\"peer_optimal\":%zu", n - peer->nbad);
            json_number(stdout, "peer_mean_us", 3, pf.mean);
            json_number(stdout, "peer_median_us", 3, pf.median);
            json_number(stdout, "peer_p99_us", 3, pf.p99);
            json_number(stdout, "ratio", 4, ratio);
        }
        fputs("}\n", stdout);
    } else {
        printf("%-*s %8zu %8zu", file_width, file, n, n - us->nbad);
        table_number(9, 2, f.mean);
        table_number(9, 2, f.median);
        table_number(9, 2, f.p99);
        table_number(9, 1, expanded_mean);
        table_number(9, 2, f.eps / 1e6);
        table_number(6, 2, bytes_per_cell);
        printf(" %-9s", algos_name(us->algos));
        if (!o->checked)
            table_number(9, 5, length_ratio);
        if (peer) {
            printf(" %12zu", n - peer->nbad);
            table_number(12, 2, pf.mean);
            table_number(6, 3, ratio);
        }
        printf("\n");
    }
    fflush(stdout);
}

void
print_wrong(const char *file, const struct tally *t)
{
    for (size_t k = 0; k < t->nwrong; k++) {
        const struct wrong *w = &t->wrong[k];
        char got[160];
        if (isnan(w->got))
            snprintf(got, sizeof got, "%s%s%s", w->why ? w->why : "no path",
                     w->detail[0] ? ": " : "", w->detail);
        else
            snprintf(got, sizeof got, "%.8f", w->got);
        prog_msg("%s:%d: %s%s(%d,%d) -> (%d,%d): expected %.8f, got %s", file,
                 w->line, t->who ? t->who : "", t->who ? ": " : "",
                 (int)w->start.x, (int)w->start.y, (int)w->goal.x,
                 (int)w->goal.y, w->expected, got);
    }
    if (t->nbad > t->nwrong)
        prog_msg("%s: %s%s%zu more wrong", file, t->who ? t->who : "",
                 t->who ? ": " : "", t->nbad - t->nwrong);
}
