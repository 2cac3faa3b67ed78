/*
 * bench.h: what gridcrowd-bench's files share.
 *
 *   gridcrowd-bench.c  main, the options, --help
 *   bench-run.c        one file: its map, the timed runs, the path checks
 *   bench-report.c     the table or JSON row, the wrong problems
 */
#ifndef GRIDCROWD_BENCH_H
#define GRIDCROWD_BENCH_H

#include <gridcrowd/astar.h>
#include <gridcrowd/grid.h>
#include <gridcrowd/mapio.h>

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include "bench_peer.h"
#include "prog.h"

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

struct figures {
    double mean, median, p99, eps;
};

/* ---- bench-run.c -------------------------------------------------------- */

/* Median of v[0..n) (sorts v). */
double median(double *v, size_t n);

/* Benchmark one scenario file, its map kept in m for the next file;
 * prints its row and returns an exit code (0 or 1 when it ran). */
int bench_file(const char *file, const struct options *o, int file_width,
               struct mapctx *m);

void mapctx_free(struct mapctx *m);

/* ---- bench-report.c ----------------------------------------------------- */

/* The heuristic a search uses, the default resolved as astar.h does. */
const char *heuristic_name(const gc_astar_opts *s);

/* One file's row (table or JSON), after the header when it is the first. */
void print_row(const struct options *o, int file_width, const char *file,
               const char *map, size_t n, struct tally *us, struct tally *peer,
               double bytes_per_cell);

/* List the first wrong problems of a solver on stderr. */
void print_wrong(const char *file, const struct tally *t);

#endif
