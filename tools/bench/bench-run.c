/*
 * bench-run.c: gridcrowd-bench's work on one scenario file: load its map
 * (kept for the next file that names it), time every search, judge every
 * path from its cells, and keep the figures of each run.
 *
 * Searches are timed on the clock --clock chose (read_clock): the
 * monotonic clock, or this thread's CPU time, which gc_clock_ns (always
 * CLOCK_MONOTONIC) cannot give.
 */
#include "config.h"

#include <gridcrowd/astar.h>
#include <gridcrowd/error.h>
#include <gridcrowd/grid.h>
#include <gridcrowd/mapio.h>
#include <gridcrowd/util.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"

/* ---- small helpers ----------------------------------------------------- */

/* The clock --clock chose, in nanoseconds. */
static uint64_t
read_clock(clockid_t clock)
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

double
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

void
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
        uint64_t t0 = read_clock(o->clock);
        int rc =
            gc_astar_find(m->astar, m->grid, e->start, e->goal, &so, path, &st);
        uint64_t t1 = read_clock(o->clock);
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
        uint64_t t0 = read_clock(o->clock);
        bool found = tcod_peer_find(m->peer, e->start, e->goal);
        uint64_t t1 = read_clock(o->clock);
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

/* ---- one file ---------------------------------------------------------- */

/* The exit code for a library error: 3 for memory, 2 for the rest. */
static int
fail(int rc, const gc_error *err, const char *what)
{
    return prog_fail_err(rc == GC_ENOMEM ? EXIT_NOMEM : EXIT_USAGE, rc, err,
                         what);
}

/* See bench.h. */
int
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
                prog_msg("%s:%d: names map '%s' but line %d names '%s' (give "
                         "--map to use one map for all)",
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
