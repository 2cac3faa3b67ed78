/*
 * gridcrowd-bench: time libgridcrowd's A* on Moving AI scenarios and check
 * every path length against the optimal length the scenario gives.
 *
 *     gridcrowd-bench [OPTIONS] FILE.scen...
 *
 * Each scenario is solved on its map (found beside the .scen file, or the
 * one --map names) with uniform costs and the Moving AI rules, one A*
 * context per map reused for every search.  We measure each search on the
 * monotonic clock around gc_astar_find alone, and judge each path from its
 * cells rather than from the cost the search reports: every step must be a
 * legal move (checked here, apart from the grid module's own rule code) and
 * the steps (1 straight, sqrt 2 diagonal) must add up to the optimal length
 * within 1e-4.  That way a search that reports the right cost for a wrong
 * path still fails.
 *
 * With --peer libtcod the same problems go to libtcod's A* in the same
 * process (bench_peer_tcod.c), interleaved per file: each run of a file
 * times both solvers one after the other, alternating which goes first, so
 * that both see the same machine and the same warm caches.  With --repeat N
 * a file is run N times and each figure is the median of its per-run
 * values, which damps noise from the rest of the machine; --clock cpu
 * times by the thread's CPU clock instead, which leaves out the time other
 * processes take when the machine is shared (it costs a system call per
 * reading, where the monotonic clock is read in user space).
 *
 * Exit codes: 0 every length optimal; 1 some length wrong; 2 usage error or
 * bad input; 3 out of memory.  Only our own lengths decide the exit code;
 * the peer's are reported (peer_optimal) but are libtcod's business.
 */
#include "config.h"

#include <gridcrowd/astar.h>
#include <gridcrowd/error.h>
#include <gridcrowd/grid.h>
#include <gridcrowd/mapio.h>
#include <gridcrowd/util.h>
#include <gridcrowd/version.h>

#include "bench_peer.h"

#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define PROG "gridcrowd-bench"

enum {
    EXIT_OPTIMAL = 0,
    EXIT_WRONG = 1,
    EXIT_USAGE = 2,
    EXIT_NOMEM = 3,
};

/* How close a length must be to the scenario's to count as optimal. */
#define LENGTH_EPSILON 1e-4
/* Wrong problems listed per file and solver. */
#define MAX_WRONG 5
/* Longest map path we build. */
#define MAP_PATH_MAX 4096

struct options {
    const char *map; /* --map, or NULL: the one each scenario names */
    unsigned repeat; /* runs per file, >= 1 */
    size_t limit;    /* problems per file; 0: all */
    bool json;
    bool peer; /* --peer libtcod */
    gc_astar_opts search;
    clockid_t clock; /* --clock: CLOCK_MONOTONIC or the thread's CPU time */
    bool checked;    /* lengths are judged against the optimal ones */
    bool progress;
};

/* A problem whose length was wrong, kept for the report. */
struct wrong {
    int line;
    gc_cell start, goal;
    double expected;
    double got;      /* NAN when there was no (valid) path */
    const char *why; /* what was wrong when got is NAN */
    char detail[96]; /* e.g. the illegal step */
};

/* One solver's figures on one file. */
struct tally {
    const char *who;  /* NULL: gridcrowd; else the peer's name */
    double *us;       /* n: times of the searches of the current run */
    double *run_mean; /* repeat: per-run figures */
    double *run_median;
    double *run_p99;
    double *run_eps; /* expansions per second */
    uint8_t *bad;    /* n: wrong in some run */
    size_t nbad;
    struct wrong wrong[MAX_WRONG];
    size_t nwrong;
    uint64_t expanded; /* total of the first run */
    unsigned algos;    /* bit a set when gc_algo a ran (gridcrowd only) */
    double length_sum; /* first run, problems with a valid path */
    double optimal_sum;
};

/* The map of the file being run, kept while the next file names the same
 * one (always, with --map). */
struct mapctx {
    char path[MAP_PATH_MAX];
    gc_grid *grid;
    gc_nav *nav; /* for jump point search */
    gc_astar *astar;
    tcod_peer *peer;
};

/* Progress on stderr, when it is a terminal. */
struct progress {
    bool on;
    bool shown;
    const char *name; /* the file's base name */
    unsigned run, runs;
    uint64_t last_ns; /* gc_clock_ns() when last shown */
};

/* ---- small helpers ----------------------------------------------------- */

static uint64_t
now_ns(clockid_t clock)
{
    struct timespec t;
    clock_gettime(clock, &t);
    return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

static int
cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Median of v[0..n) (sorts v). */
static double
median(double *v, size_t n)
{
    if (n == 0)
        return NAN;
    qsort(v, n, sizeof(*v), cmp_double);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2.0;
}

/* Nearest-rank percentile p (0..100] of v sorted ascending. */
static double
percentile_sorted(const double *v, size_t n, double p)
{
    if (n == 0)
        return NAN;
    size_t rank = (size_t)ceil(p / 100.0 * (double)n);
    if (rank < 1)
        rank = 1;
    if (rank > n)
        rank = n;
    return v[rank - 1];
}

static const char *
base_name(const char *path)
{
    const char *s = strrchr(path, '/');
    return s ? s + 1 : path;
}

/* Parse a decimal integer in [min, max]; false if s is anything else. */
static bool
parse_count(const char *s, unsigned long long min, unsigned long long max,
            unsigned long long *out)
{
    if (*s < '0' || *s > '9')
        return false;
    char *end;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 10);
    if (errno != 0 || *end != '\0' || v < min || v > max)
        return false;
    *out = v;
    return true;
}

/* ---- progress ---------------------------------------------------------- */

static void
progress_clear(struct progress *p)
{
    if (p->shown) {
        fputs("\r\033[K", stderr);
        fflush(stderr);
        p->shown = false;
    }
}

/* Show "name: what done/total", at most about ten times a second. */
static void
progress_show(struct progress *p, const char *what, size_t done, size_t total)
{
    if (!p->on)
        return;
    uint64_t t = gc_clock_ns();
    if (t - p->last_ns < 100000000u)
        return;
    p->last_ns = t;
    if (p->runs > 1)
        fprintf(stderr, "\r\033[K%s: run %u/%u: %s %zu/%zu", p->name,
                p->run + 1, p->runs, what, done, total);
    else
        fprintf(stderr, "\r\033[K%s: %s %zu/%zu", p->name, what, done, total);
    fflush(stderr);
    p->shown = true;
}

/* ---- path checks ------------------------------------------------------- */

/*
 * Length of `p` as a path from `start` to `goal` under `rule`, measured from
 * its cells: 1 per straight step and sqrt 2 per diagonal one.  NAN when it
 * is not such a path; then *why says what is wrong and `detail` where.
 * Legality is checked here with gc_grid_passable alone, independently of the
 * grid module's move rules.
 */
static double
path_length(const gc_grid *g, const gc_path *p, gc_cell start, gc_cell goal,
            gc_diag_rule rule, const char **why, char *detail, size_t size)
{
    detail[0] = '\0';
    if (p->len == 0) {
        *why = "empty path";
        return NAN;
    }
    gc_cell first = p->cells[0], last = p->cells[p->len - 1];
    if (first.x != start.x || first.y != start.y || last.x != goal.x ||
        last.y != goal.y) {
        *why = "path does not join start and goal";
        snprintf(detail, size, "(%d,%d) .. (%d,%d)", (int)first.x, (int)first.y,
                 (int)last.x, (int)last.y);
        return NAN;
    }
    size_t straight = 0, diagonal = 0;
    for (size_t i = 1; i < p->len; i++) {
        gc_cell a = p->cells[i - 1], b = p->cells[i];
        int32_t dx = b.x - a.x, dy = b.y - a.y;
        bool ok = dx >= -1 && dx <= 1 && dy >= -1 && dy <= 1 &&
                  (dx != 0 || dy != 0) && gc_grid_passable(g, b.x, b.y);
        if (ok && dx != 0 && dy != 0) {
            bool s1 = gc_grid_passable(g, b.x, a.y);
            bool s2 = gc_grid_passable(g, a.x, b.y);
            switch (rule) {
            case GC_DIAG_NO_CORNER_CUT:
                ok = s1 && s2;
                break;
            case GC_DIAG_ONE_FREE:
                ok = s1 || s2;
                break;
            case GC_DIAG_ALWAYS:
                break;
            case GC_DIAG_NEVER:
            default:
                ok = false;
                break;
            }
        }
        if (!ok) {
            *why = "illegal step";
            snprintf(detail, size, "step %zu (%d,%d) -> (%d,%d)", i, (int)a.x,
                     (int)a.y, (int)b.x, (int)b.y);
            return NAN;
        }
        if (dx != 0 && dy != 0)
            diagonal++;
        else
            straight++;
    }
    *why = NULL;
    return (double)straight + (double)diagonal * M_SQRT2;
}

/* Judge one problem's answer: `len` NAN for no valid path (with why). */
static void
tally_record(struct tally *t, size_t i, const gc_scen_entry *e, bool first_run,
             double len, const char *why, const char *detail)
{
    if (first_run && !isnan(len)) {
        t->length_sum += len;
        t->optimal_sum += e->optimal;
    }
    if (!isnan(len) && fabs(len - e->optimal) <= LENGTH_EPSILON)
        return;
    if (t->bad[i])
        return;
    t->bad[i] = 1;
    t->nbad++;
    if (t->nwrong < MAX_WRONG) {
        struct wrong *w = &t->wrong[t->nwrong++];
        w->line = e->line;
        w->start = e->start;
        w->goal = e->goal;
        w->expected = e->optimal;
        w->got = len;
        w->why = why;
        snprintf(w->detail, sizeof(w->detail), "%s", detail ? detail : "");
    }
}

static void
tally_free(struct tally *t)
{
    free(t->us);
    free(t->run_mean);
    free(t->run_median);
    free(t->run_p99);
    free(t->run_eps);
    free(t->bad);
}

static bool
tally_init(struct tally *t, const char *who, size_t n, unsigned repeat)
{
    memset(t, 0, sizeof(*t));
    t->who = who;
    /* + 1: calloc(0) may return NULL */
    t->us = calloc(n + 1, sizeof(*t->us));
    t->bad = calloc(n + 1, 1);
    t->run_mean = calloc(repeat, sizeof(double));
    t->run_median = calloc(repeat, sizeof(double));
    t->run_p99 = calloc(repeat, sizeof(double));
    t->run_eps = calloc(repeat, sizeof(double));
    if (!t->us || !t->bad || !t->run_mean || !t->run_median || !t->run_p99 ||
        !t->run_eps) {
        tally_free(t);
        return false;
    }
    return true;
}

/* Close run r: its mean, median and p99 from t->us, which it sorts. */
static void
tally_end_run(struct tally *t, unsigned r, size_t n, uint64_t expanded)
{
    double sum = 0.0;
    for (size_t i = 0; i < n; i++)
        sum += t->us[i];
    t->run_mean[r] = n ? sum / (double)n : NAN;
    t->run_median[r] = median(t->us, n);
    t->run_p99[r] = percentile_sorted(t->us, n, 99.0);
    t->run_eps[r] = sum > 0.0 ? (double)expanded / (sum / 1e6) : NAN;
}

/* ---- the runs ---------------------------------------------------------- */

static void
peer_free(tcod_peer *p)
{
#ifdef HAVE_LIBTCOD
    tcod_peer_free(p);
#else
    (void)p;
#endif
}

/* Load the map at `path` into m unless it is already there.  Returns a
 * gc_err and fills err. */
static int
mapctx_load(struct mapctx *m, const char *path, const struct options *o,
            gc_error *err)
{
    if (m->grid != NULL && strcmp(m->path, path) == 0)
        return GC_OK;
    peer_free(m->peer);
    gc_astar_free(m->astar);
    gc_nav_free(m->nav);
    gc_grid_free(m->grid);
    memset(m, 0, sizeof(*m));

    int rc = gc_map_load(&m->grid, path, err);
    if (rc != GC_OK)
        return rc;
    /* The Moving AI lengths assume every passable cell costs 1. */
    gc_grid_set_uniform(m->grid);
    rc = gc_astar_new(&m->astar, m->grid->width, m->grid->height);
    if (rc != GC_OK)
        return gc_error_set(err, rc, path, 0, 0, "%s", gc_strerror(rc));
    /* Navigation data, as the daemon gives it: jump point search scans its
     * bitsets, A* reads its neighbour masks.  Built here, outside the
     * timed searches, as the peer builds its map. */
    rc = gc_nav_new(&m->nav, m->grid);
    if (rc != GC_OK)
        return gc_error_set(err, rc, path, 0, 0, "%s", gc_strerror(rc));
#ifdef HAVE_LIBTCOD
    if (o->peer) {
        rc = tcod_peer_new(&m->peer, m->grid, o->search.diag);
        if (rc != GC_OK)
            return gc_error_set(err, rc, path, 0, 0, "libtcod: %s",
                                gc_strerror(rc));
    }
#else
    (void)o;
#endif
    snprintf(m->path, sizeof(m->path), "%s", path);
    return GC_OK;
}

static void
mapctx_free(struct mapctx *m)
{
    peer_free(m->peer);
    gc_astar_free(m->astar);
    gc_nav_free(m->nav);
    gc_grid_free(m->grid);
    memset(m, 0, sizeof(*m));
}

/* Solve the first n problems of s with libgridcrowd, run r. */
static int
run_gridcrowd(struct mapctx *m, const gc_scen *s, size_t n,
              const struct options *o, unsigned r, struct tally *t,
              gc_path *path, struct progress *pg)
{
    uint64_t expanded = 0;
    gc_astar_opts so = o->search;
    so.nav = m->nav;
    for (size_t i = 0; i < n; i++) {
        const gc_scen_entry *e = &s->entries[i];
        gc_astar_stats st;
        memset(&st, 0, sizeof(st));
        uint64_t t0 = now_ns(o->clock);
        int rc =
            gc_astar_find(m->astar, m->grid, e->start, e->goal, &so, path, &st);
        uint64_t t1 = now_ns(o->clock);
        t->us[i] = (double)(t1 - t0) / 1e3;
        if (rc == GC_ENOMEM || rc == GC_EINVAL)
            return rc;
        expanded += st.expanded;
        t->algos |= 1u << st.algo;

        const char *why = NULL;
        char detail[96] = "";
        double len = NAN;
        if (rc == GC_OK)
            len = path_length(m->grid, path, e->start, e->goal, o->search.diag,
                              &why, detail, sizeof(detail));
        else
            why = gc_strerror(rc);
        tally_record(t, i, e, r == 0, len, why, detail);
        progress_show(pg, "gridcrowd", i + 1, n);
    }
    if (r == 0)
        t->expanded = expanded;
    tally_end_run(t, r, n, expanded);
    return GC_OK;
}

#ifdef HAVE_LIBTCOD
/* Solve the first n problems of s with libtcod, run r. */
static int
run_peer(struct mapctx *m, const gc_scen *s, size_t n, const struct options *o,
         unsigned r, struct tally *t, gc_path *path, struct progress *pg)
{
    for (size_t i = 0; i < n; i++) {
        const gc_scen_entry *e = &s->entries[i];
        uint64_t t0 = now_ns(o->clock);
        bool found = tcod_peer_find(m->peer, e->start, e->goal);
        uint64_t t1 = now_ns(o->clock);
        t->us[i] = (double)(t1 - t0) / 1e3;

        const char *why = "no path";
        char detail[96] = "";
        double len = NAN;
        if (found) {
            int rc = tcod_peer_path(m->peer, e->start, path);
            if (rc != GC_OK)
                return rc;
            len = path_length(m->grid, path, e->start, e->goal, o->search.diag,
                              &why, detail, sizeof(detail));
        }
        tally_record(t, i, e, r == 0, len, why, detail);
        progress_show(pg, t->who, i + 1, n);
    }
    tally_end_run(t, r, n, 0);
    return GC_OK;
}
#endif

/* ---- output ------------------------------------------------------------ */

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

/* The heuristic a search uses, the default resolved as astar.h does. */
static const char *
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

struct figures {
    double mean, median, p99, eps;
};

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

static void
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

/* List the first wrong problems of a solver on stderr. */
static void
print_wrong(const char *file, const struct tally *t)
{
    for (size_t k = 0; k < t->nwrong; k++) {
        const struct wrong *w = &t->wrong[k];
        fprintf(stderr, PROG ": %s:%d: %s%s(%d,%d) -> (%d,%d): expected %.8f, ",
                file, w->line, t->who ? t->who : "", t->who ? ": " : "",
                (int)w->start.x, (int)w->start.y, (int)w->goal.x,
                (int)w->goal.y, w->expected);
        if (isnan(w->got))
            fprintf(stderr, "got %s%s%s\n", w->why ? w->why : "no path",
                    w->detail[0] ? ": " : "", w->detail);
        else
            fprintf(stderr, "got %.8f\n", w->got);
    }
    if (t->nbad > t->nwrong)
        fprintf(stderr, PROG ": %s: %s%s%zu more wrong\n", file,
                t->who ? t->who : "", t->who ? ": " : "", t->nbad - t->nwrong);
}

/* ---- one file ---------------------------------------------------------- */

/* The exit code for a library error: 3 for memory, 2 for the rest. */
static int
fail(int rc, const gc_error *err, const char *what)
{
    if (err && err->msg[0])
        fprintf(stderr, PROG ": %s\n", err->msg);
    else
        fprintf(stderr, PROG ": %s: %s\n", what, gc_strerror(rc));
    return rc == GC_ENOMEM ? EXIT_NOMEM : EXIT_USAGE;
}

/* Benchmark one scenario file; returns an exit code (0 or 1 when it ran). */
static int
bench_file(const char *file, const struct options *o, int file_width,
           struct mapctx *m)
{
    gc_error err;
    gc_scen s;
    char map_path[MAP_PATH_MAX];
    int rc;

    gc_error_clear(&err);
    memset(&s, 0, sizeof(s));
    if (o->map != NULL) {
        rc = mapctx_load(m, o->map, o, &err);
        if (rc != GC_OK)
            return fail(rc, &err, o->map);
        rc = gc_scen_load(&s, file, m->grid, &err);
        if (rc != GC_OK)
            return fail(rc, &err, file);
    } else {
        /* The map's name is inside the scenario: read it once to learn the
         * name, then again against the map so that the library checks
         * every line's map size and coordinates. */
        rc = gc_scen_load(&s, file, NULL, &err);
        if (rc != GC_OK)
            return fail(rc, &err, file);
        for (size_t i = 1; i < s.len; i++)
            if (strcmp(s.entries[i].map, s.entries[0].map) != 0) {
                fprintf(stderr,
                        PROG ": %s:%d: names map '%s' but line %d names "
                             "'%s' (give --map to use one map for all)\n",
                        file, s.entries[i].line, s.entries[i].map,
                        s.entries[0].line, s.entries[0].map);
                gc_scen_free(&s);
                return EXIT_USAGE;
            }
        if (s.len > 0) {
            rc = gc_scen_map_path(file, s.map, map_path, sizeof(map_path));
            if (rc != GC_OK) {
                gc_scen_free(&s);
                return fail(rc, NULL, file);
            }
            gc_scen_free(&s);
            rc = mapctx_load(m, map_path, o, &err);
            if (rc != GC_OK)
                return fail(rc, &err, map_path);
            rc = gc_scen_load(&s, file, m->grid, &err);
            if (rc != GC_OK)
                return fail(rc, &err, file);
        }
    }

    size_t n = s.len;
    if (o->limit > 0 && o->limit < n)
        n = o->limit;

    struct tally us, peer;
    bool have_peer = o->peer;
    if (!tally_init(&us, NULL, n, o->repeat)) {
        gc_scen_free(&s);
        return fail(GC_ENOMEM, NULL, file);
    }
    if (have_peer && !tally_init(&peer, "libtcod", n, o->repeat)) {
        tally_free(&us);
        gc_scen_free(&s);
        return fail(GC_ENOMEM, NULL, file);
    }
    gc_path path;
    gc_path_init(&path);
    struct progress pg = {
        .on = o->progress, .name = base_name(file), .runs = o->repeat};
    pg.last_ns = gc_clock_ns();

    rc = GC_OK;
    for (unsigned r = 0; r < o->repeat && rc == GC_OK; r++) {
        pg.run = r;
        /* Alternate which solver goes first, so that neither always gets
         * the caches the other warmed. */
        bool peer_first = have_peer && r % 2 == 1;
        for (int k = 0; k < 2 && rc == GC_OK; k++) {
            bool do_peer = (k == 0) == peer_first;
            if (do_peer && !have_peer)
                continue;
            if (!do_peer)
                rc = run_gridcrowd(m, &s, n, o, r, &us, &path, &pg);
#ifdef HAVE_LIBTCOD
            else
                rc = run_peer(m, &s, n, o, r, &peer, &path, &pg);
#endif
        }
    }
    progress_clear(&pg);

    int code = EXIT_OPTIMAL;
    if (rc != GC_OK) {
        code = fail(rc, NULL, file);
    } else {
        /* An empty scenario file loads no map. */
        bool have_map = o->map != NULL || s.len > 0;
        size_t cells =
            have_map ? (size_t)m->grid->width * (size_t)m->grid->height : 0;
        double bpc =
            cells ? (double)gc_astar_memory(m->astar) / (double)cells : NAN;
        print_row(o, file_width, file, have_map ? m->path : "", n, &us,
                  have_peer ? &peer : NULL, bpc);
        if (o->checked) {
            print_wrong(file, &us);
            if (us.nbad > 0)
                code = EXIT_WRONG;
        }
        if (have_peer && o->checked)
            print_wrong(file, &peer);
    }
    gc_path_free(&path);
    tally_free(&us);
    if (have_peer)
        tally_free(&peer);
    gc_scen_free(&s);
    return code;
}

/* ---- options ----------------------------------------------------------- */

/* The help text is kept as it prints; clang-format would re-wrap it. */
static void
usage(FILE *f)
{
#ifdef HAVE_LIBTCOD
    const char *tcod = "built in";
#else
    const char *tcod = "not built: install libtcod-dev and re-run configure";
#endif
    /* clang-format off */
    fprintf(f,
"Usage: " PROG " [OPTIONS] FILE.scen...\n"
"Time gridcrowd's A* on Moving AI scenario files and check every path\n"
"length against the optimal length the scenario gives.\n"
"\n"
"Each FILE.scen is solved on the map it names, looked up in the scenario's\n"
"directory, with uniform costs, 8-connected moves without corner cutting\n"
"and the octile heuristic, one A* context per map.  One line per file:\n"
"problems, how many lengths are optimal (within 1e-4), mean, median and\n"
"99th percentile microseconds per search, mean cells expanded, expansions\n"
"per second (millions), the context's bytes per cell and the algorithm.\n"
"With --algo jps, expanded counts jump points.\n"
"\n"
"Options:\n"
"  -m, --map FILE       solve every scenario on FILE (default: the map each\n"
"                       scenario names, beside it)\n"
"  -r, --repeat N       run each file N times and report the median of the\n"
"                       per-run figures (default 1)\n"
"  -n, --limit N        use only the first N problems of each file\n"
"                       (default: all)\n"
"  -c, --clock CLOCK    time searches by the 'wall' clock (default) or by\n"
"                       this thread's 'cpu' time, which leaves out the time\n"
"                       other processes take on a busy machine\n"
"  -p, --peer NAME      also solve every problem with NAME's A* and compare\n"
"                       times (ratio: ours / its); only 'libtcod' (%s)\n"
"  -j, --json           one JSON object per file and line instead of the\n"
"                       table\n"
"  -d, --diag RULE      diagonal rule: no-corner-cut (default), never,\n"
"                       one-free, always\n"
"  -H, --heuristic H    octile (default), manhattan, euclidean, chebyshev,\n"
"                       zero\n"
"  -a, --algo ALGO      astar (default), jps (jump point search, fails on\n"
"                       settings it does not apply to) or auto (jps where\n"
"                       it applies); the table's algo column says which ran\n"
"  -h, --help           show this help and exit\n"
"  -V, --version        show the version and exit\n"
"\n"
"Lengths are judged against the scenario's only under the Moving AI rules\n"
"(--diag no-corner-cut) with an admissible heuristic (any but manhattan).\n"
"With other settings they are reported (len/opt: total length over total\n"
"optimal length) and never fail the run.  The peer's lengths are reported\n"
"(peer_optimal) but never change the exit code.  Progress is shown on\n"
"stderr when it is a terminal.\n"
"\n"
"Exit codes:\n"
"  0  every length optimal\n"
"  1  some length wrong (the first few are listed on stderr)\n"
"  2  usage error, or an unreadable or malformed scenario or map\n"
"  3  out of memory\n",
            tcod);
    /* clang-format on */
}

/* One line "gridcrowd-bench: what (see gridcrowd-bench --help)". */
static int usage_error(const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 1, 2)))
#endif
    ;

static int
usage_error(const char *fmt, ...)
{
    va_list ap;
    fputs(PROG ": ", stderr);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputs(" (see " PROG " --help)\n", stderr);
    return EXIT_USAGE;
}

int
main(int argc, char **argv)
{
    static const struct option longopts[] = {
        {"map", required_argument, NULL, 'm'},
        {"repeat", required_argument, NULL, 'r'},
        {"limit", required_argument, NULL, 'n'},
        {"clock", required_argument, NULL, 'c'},
        {"peer", required_argument, NULL, 'p'},
        {"json", no_argument, NULL, 'j'},
        {"diag", required_argument, NULL, 'd'},
        {"heuristic", required_argument, NULL, 'H'},
        {"algo", required_argument, NULL, 'a'},
        {"help", no_argument, NULL, 'h'},
        {"version", no_argument, NULL, 'V'},
        {NULL, 0, NULL, 0},
    };
    struct options o;
    memset(&o, 0, sizeof(o));
    o.repeat = 1;
    o.clock = CLOCK_MONOTONIC;
    gc_astar_opts_init(&o.search);
    /* Plain A* unless asked: the comparison with libtcod's A* is A*'s. */
    o.search.algo = GC_ALGO_ASTAR;

    opterr = 0;
    int c;
    unsigned long long v;
    while ((c = getopt_long(argc, argv, ":m:r:n:c:p:jd:H:a:hV", longopts,
                            NULL)) != -1) {
        switch (c) {
        case 'm':
            o.map = optarg;
            break;
        case 'r':
            if (!parse_count(optarg, 1, 1000000, &v))
                return usage_error("--repeat: '%s' is not a count from 1",
                                   optarg);
            o.repeat = (unsigned)v;
            break;
        case 'n':
            if (!parse_count(optarg, 1, SIZE_MAX, &v))
                return usage_error("--limit: '%s' is not a count from 1",
                                   optarg);
            o.limit = (size_t)v;
            break;
        case 'c':
            if (strcmp(optarg, "wall") == 0)
                o.clock = CLOCK_MONOTONIC;
            else if (strcmp(optarg, "cpu") == 0)
                o.clock = CLOCK_THREAD_CPUTIME_ID;
            else
                return usage_error("--clock %s: unknown clock (wall, cpu)",
                                   optarg);
            break;
        case 'p':
            if (strcmp(optarg, "libtcod") != 0)
                return usage_error("--peer %s: unknown peer (known: libtcod)",
                                   optarg);
#ifndef HAVE_LIBTCOD
            fprintf(stderr,
                    PROG ": --peer libtcod: not built with libtcod "
                         "(install libtcod-dev and re-run configure)\n");
            return EXIT_USAGE;
#endif
            o.peer = true;
            break;
        case 'j':
            o.json = true;
            break;
        case 'a': {
            int a = gc_algo_parse(optarg);
            if (a < 0)
                return usage_error("--algo %s: unknown algorithm (astar, jps, "
                                   "auto)",
                                   optarg);
            o.search.algo = (gc_algo)a;
            break;
        }
        case 'd': {
            int r = gc_diag_rule_parse(optarg);
            if (r < 0)
                return usage_error("--diag %s: unknown rule (no-corner-cut, "
                                   "never, one-free, always)",
                                   optarg);
            o.search.diag = (gc_diag_rule)r;
            break;
        }
        case 'H': {
            int h = gc_heuristic_parse(optarg);
            if (h < 0)
                return usage_error("--heuristic %s: unknown heuristic "
                                   "(octile, manhattan, euclidean, "
                                   "chebyshev, zero)",
                                   optarg);
            o.search.heuristic = (gc_heuristic)h;
            break;
        }
        case 'h':
            usage(stdout);
            return EXIT_OPTIMAL;
        case 'V':
            printf(PROG " (" PACKAGE_NAME ") %s\n"
                        "libtcod peer: %s\n",
                   gc_version(),
#ifdef HAVE_LIBTCOD
                   "yes"
#else
                   "no"
#endif
            );
            return EXIT_OPTIMAL;
        case ':':
            return usage_error("%s: needs an argument", argv[optind - 1]);
        case '?':
        default:
            /* optopt is the letter of an unknown short option, 0 for an
             * unknown long one (whose text getopt has just passed). */
            if (optopt != 0 && strchr("mrncpjdHahV", optopt) == NULL)
                return usage_error("unknown option '-%c'", optopt);
            return usage_error("unknown option '%s'", argv[optind - 1]);
        }
    }
    if (optind >= argc)
        return usage_error("%s", "no scenario file given");

    /* Jump point search covers the Moving AI rule with octile only. */
    if (o.search.algo == GC_ALGO_JPS &&
        (o.search.diag != GC_DIAG_NO_CORNER_CUT ||
         (o.search.heuristic != GC_HEUR_DEFAULT &&
          o.search.heuristic != GC_HEUR_OCTILE)))
        return usage_error("--algo jps: invalid with --diag %s --heuristic "
                           "%s (jump point search needs no-corner-cut and "
                           "octile)",
                           gc_diag_rule_name(o.search.diag),
                           heuristic_name(&o.search));

    /* The scenario lengths are optimal lengths under the Moving AI rule;
     * any admissible heuristic must reproduce them, Manhattan need not. */
    o.checked = o.search.diag == GC_DIAG_NO_CORNER_CUT &&
                o.search.heuristic != GC_HEUR_MANHATTAN;
    o.progress = isatty(STDERR_FILENO);
    if (!o.checked)
        fprintf(stderr,
                PROG ": note: --diag %s --heuristic %s: lengths are "
                     "reported, not checked\n",
                gc_diag_rule_name(o.search.diag), heuristic_name(&o.search));

    int file_width = 4;
    for (int i = optind; i < argc; i++)
        if ((int)strlen(argv[i]) > file_width)
            file_width = (int)strlen(argv[i]);

    struct mapctx m;
    memset(&m, 0, sizeof(m));
    int code = EXIT_OPTIMAL;
    for (int i = optind; i < argc; i++) {
        int rc = bench_file(argv[i], &o, file_width, &m);
        if (rc == EXIT_WRONG)
            code = EXIT_WRONG;
        else if (rc != EXIT_OPTIMAL) {
            code = rc;
            break;
        }
    }
    mapctx_free(&m);
    return code;
}
