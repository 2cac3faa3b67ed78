/*
 * gc-astar-bench: time the A* context on Moving AI scenario files, and
 * libtcod's A* on the same problems when it is built in.
 *
 *   gc-astar-bench [-r RUNS] [-n] SCEN...
 *
 * For each scenario file: load its map with uniform costs, solve every
 * problem once to check it (optimal length within 1e-4, no corner cutting,
 * octile), then time RUNS passes over all the problems with one context and
 * print the median pass as mean microseconds a search, with expansions a
 * second and the context's bytes a cell.  -n leaves libtcod out.  The
 * machine should be quiet: the figures are wall-clock.
 *
 * Exit codes: 0 all problems solved at their lengths; 1 bad usage or a file
 * that cannot be read; 2 a problem came out wrong.
 */
#include "config.h"

#include <gridcrowd/astar.h>
#include <gridcrowd/mapio.h>

#ifdef HAVE_LIBTCOD
#include <libtcod.h>
#endif

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define PROG "gc-astar-bench"
#define MAXRUNS 101

static double
now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static int
cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double
median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    return v[n / 2];
}

#ifdef HAVE_LIBTCOD
/* Median seconds for a pass of libtcod's A* over the problems. */
static double
time_tcod(const gc_grid *g, const gc_scen *sc, int runs)
{
    TCOD_map_t map = TCOD_map_new(g->width, g->height);
    for (int32_t y = 0; y < g->height; y++)
        for (int32_t x = 0; x < g->width; x++) {
            bool open = gc_grid_passable(g, x, y);
            TCOD_map_set_properties(map, x, y, open, open);
        }
    TCOD_path_t path = TCOD_path_new_using_map(map, 1.41421356f);
    double t[MAXRUNS];
    for (int r = 0; r < runs; r++) {
        double t0 = now();
        for (size_t i = 0; i < sc->len; i++) {
            const gc_scen_entry *e = &sc->entries[i];
            TCOD_path_compute(path, e->start.x, e->start.y, e->goal.x,
                              e->goal.y);
        }
        t[r] = now() - t0;
    }
    TCOD_path_delete(path);
    TCOD_map_delete(map);
    return median(t, runs);
}
#endif

/* Check and time one scenario file; returns an exit code. */
static int
bench_file(const char *scen_path, int runs, bool peer)
{
    gc_error err;
    gc_scen sc;
    char map_path[4096];
    gc_grid *g = NULL;
    if (gc_scen_load(&sc, scen_path, NULL, &err) != GC_OK) {
        fprintf(stderr, PROG ": %s\n", err.msg);
        return 1;
    }
    if (sc.len == 0 ||
        gc_scen_map_path(scen_path, sc.entries[0].map, map_path,
                         sizeof map_path) != GC_OK ||
        gc_map_load(&g, map_path, &err) != GC_OK) {
        fprintf(stderr, PROG ": %s: %s\n", scen_path,
                sc.len == 0 ? "no problems" : err.msg);
        gc_scen_free(&sc);
        return 1;
    }
    gc_grid_set_uniform(g);
    gc_astar *a;
    gc_path p;
    gc_path_init(&p);
    gc_astar_opts o;
    gc_astar_opts_init(&o);
    o.diag = GC_DIAG_NO_CORNER_CUT;
    o.heuristic = GC_HEUR_OCTILE;
    int rc = gc_astar_new(&a, g->width, g->height);
    if (rc != GC_OK) {
        fprintf(stderr, PROG ": %s: %s\n", map_path, gc_strerror(rc));
        gc_grid_free(g);
        gc_scen_free(&sc);
        return 1;
    }
    int status = 0;
    uint64_t expanded = 0;
    for (size_t i = 0; i < sc.len; i++) {
        const gc_scen_entry *e = &sc.entries[i];
        gc_astar_stats st;
        rc = gc_astar_find(a, g, e->start, e->goal, &o, &p, &st);
        if (rc != GC_OK || !(fabs(st.cost - e->optimal) <= 1e-4)) {
            fprintf(stderr, PROG ": %s:%d: %s, cost %.8f, optimal %.8f\n",
                    scen_path, e->line, gc_err_name(rc), st.cost, e->optimal);
            status = 2;
        }
        expanded += st.expanded;
    }
    double t[MAXRUNS];
    for (int r = 0; r < runs; r++) {
        double t0 = now();
        for (size_t i = 0; i < sc.len; i++) {
            const gc_scen_entry *e = &sc.entries[i];
            gc_astar_find(a, g, e->start, e->goal, &o, &p, NULL);
        }
        t[r] = now() - t0;
    }
    double pass = median(t, runs), n = (double)sc.len;
    const char *base = strrchr(scen_path, '/');
    printf("%-38s %5zu problems %7.0f exp/search %8.1f us/search "
           "%6.2f M exp/s %5.2f B/cell",
           base != NULL ? base + 1 : scen_path, sc.len, (double)expanded / n,
           pass * 1e6 / n, (double)expanded / pass * 1e-6,
           (double)gc_astar_memory(a) / ((double)g->width * (double)g->height));
#ifdef HAVE_LIBTCOD
    if (peer) {
        double tp = time_tcod(g, &sc, runs);
        printf(" | libtcod %8.1f us/search, ratio %.3f", tp * 1e6 / n,
               pass / tp);
    }
#else
    (void)peer;
#endif
    printf("\n");
    gc_path_free(&p);
    gc_astar_free(a);
    gc_grid_free(g);
    gc_scen_free(&sc);
    return status;
}

static void
usage(void)
{
    fprintf(stderr, "usage: " PROG " [-r RUNS] [-n] SCEN...\n");
    exit(1);
}

int
main(int argc, char **argv)
{
    int runs = 5, c;
    bool peer = true;
    while ((c = getopt(argc, argv, "r:n")) != -1) {
        switch (c) {
        case 'r':
            runs = atoi(optarg);
            if (runs < 1 || runs > MAXRUNS) {
                fprintf(stderr, PROG ": -r: runs must be 1..%d\n", MAXRUNS);
                return 1;
            }
            break;
        case 'n':
            peer = false;
            break;
        default:
            usage();
        }
    }
    if (optind == argc)
        usage();
    int status = 0;
    for (int i = optind; i < argc; i++) {
        int rc = bench_file(argv[i], runs, peer);
        if (rc > status)
            status = rc;
    }
    return status;
}
