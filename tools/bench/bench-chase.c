/*
 * bench-chase.c: agents chasing moving targets, the library's follow goal
 * against the naive way, in one run.
 *
 *   bench-chase [--map FILE] [--chasers N] [--targets K] [--ticks T]
 *               [--threads N] [--rounds R]
 *
 * K targets wander; N chasers (chaser i after target i % K) start on
 * spread-out open cells.  Three runs from the same start, repeated R times
 * in turn (full, reuse, naive, full, ...) so that a drift of the machine
 * touches all three alike; the medians over the rounds close the output:
 *   full:   gc_sim_set_goal_follow(chaser, target, 2 cells) once, with
 *           follow_reuse off: the sim plans again only when the target has
 *           left the neighbourhood of the cell the chaser's path ends in,
 *           each time a full search;
 *   reuse:  the same with follow_reuse on: such a plan keeps the chaser's
 *           path up to near its end and searches only from there (counted
 *           joined, or full when it falls back);
 *   naive:  before every tick each chaser gets the target's position as a
 *           new point goal, i.e. one search per chaser per tick (the way
 *           seed code for a Unity chaser searches every frame).
 * Both with a plan budget large enough that every request is served in
 * its tick, no avoidance, points.  Prints per run: ticks/s (wall clock,
 * ticks run as fast as they go), searches/s and per tick, cells expanded
 * per tick, follow plans joined and full, and the mean distance from
 * chaser to target at the end (cells).
 */
#include "config.h"

#include <gridcrowd/mapio.h>
#include <gridcrowd/sim.h>
#include <gridcrowd/util.h>

#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "prog.h"

#define PROG "bench-chase"

typedef struct opts {
    const char *map;
    long chasers, targets, ticks;
    int threads, rounds;
} opts;

enum { M_FULL, M_REUSE, M_NAIVE, NMODES };
static const char *const mode_names[NMODES] = {"full", "reuse", "naive"};

/* One run's figures, for the medians. */
typedef struct figures {
    double tps, expanded_per_tick;
} figures;

/* The k-th open cell of a stride walk over the map (spread, repeatable). */
static gc_cell
open_cell(const gc_grid *g, uint64_t *k)
{
    size_t n = (size_t)g->width * (size_t)g->height;
    for (;;) {
        *k += 7919;
        size_t at = (size_t)(*k % n);
        gc_cell c = {(int32_t)(at % (size_t)g->width),
                     (int32_t)(at / (size_t)g->width)};
        if (gc_grid_passable(g, c.x, c.y))
            return c;
    }
}

static int
run(const opts *o, gc_grid *g, int mode, figures *fig)
{
    bool naive = mode == M_NAIVE;
    gc_sim_config c;
    gc_sim_config_init(&c);
    c.follow_reuse = mode == M_REUSE;
    c.agents = 0;
    c.max_agents = (uint32_t)(o->chasers + o->targets);
    c.threads = o->threads;
    c.plan_budget = (uint32_t)(o->chasers + o->targets);
    c.seed = 5;
    gc_sim *s;
    gc_error err;
    if (gc_sim_new(&s, g, &c, &err) != GC_OK) {
        fprintf(stderr, "bench-chase: %s\n", err.msg);
        return 1;
    }
    gc_agent_handle *t = calloc((size_t)o->targets, sizeof *t);
    gc_agent_handle *h = calloc((size_t)o->chasers, sizeof *h);
    uint64_t k = 0;
    float cs = g->cell_size;
    for (long i = 0; i < o->targets + o->chasers; i++) {
        gc_cell at = open_cell(g, &k);
        gc_spawn_spec sp = {.x = ((float)at.x + 0.5f) * cs,
                            .y = ((float)at.y + 0.5f) * cs,
                            .turn_rate = -1.0f,
                            .wander_radius = -1.0f};
        gc_agent_handle *out = i < o->targets ? &t[i] : &h[i - o->targets];
        if (gc_sim_spawn(s, &sp, out, &err) != GC_OK) {
            fprintf(stderr, "bench-chase: %s\n", err.msg);
            return 1;
        }
    }
    for (long i = 0; i < o->targets; i++)
        gc_sim_set_goal_wander(s, t[i], NULL);
    if (!naive)
        for (long i = 0; i < o->chasers; i++)
            gc_sim_set_goal_follow(s, h[i], t[i % o->targets], 2.0f * cs, NULL);
    uint64_t t0 = gc_clock_ns();
    for (long tick = 0; tick < o->ticks; tick++) {
        if (naive)
            for (long i = 0; i < o->chasers; i++) {
                size_t ti;
                gc_sim_resolve(s, t[i % o->targets], &ti);
                const gc_agent *ta = gc_sim_agent(s, ti);
                gc_sim_set_goal_point(s, h[i], ta->pos.x, ta->pos.y, NULL);
            }
        if (gc_sim_tick(s) != GC_OK) {
            fprintf(stderr, "bench-chase: tick failed\n");
            return 1;
        }
    }
    double secs = (double)(gc_clock_ns() - t0) / 1e9;
    gc_sim_stats st;
    gc_sim_stats_total(s, &st);
    double dsum = 0;
    for (long i = 0; i < o->chasers; i++) {
        size_t a, b;
        gc_sim_resolve(s, h[i], &a);
        gc_sim_resolve(s, t[i % o->targets], &b);
        gc_vec2 p = gc_sim_agent(s, a)->pos, q = gc_sim_agent(s, b)->pos;
        dsum += hypot(p.x - q.x, p.y - q.y) / cs;
    }
    fig->tps = (double)o->ticks / secs;
    fig->expanded_per_tick = (double)st.expanded / (double)o->ticks;
    printf("%-6s %ld chasers, %ld targets, %ld ticks: %.1f ticks/s, "
           "%.0f searches/s (%.1f a tick), %.0f cells expanded a tick, "
           "%.1f us a search, follow plans %llu joined %llu full, mean "
           "distance at the end %.1f cells\n",
           mode_names[mode], o->chasers, o->targets, o->ticks, fig->tps,
           (double)st.searches / secs, (double)st.searches / (double)o->ticks,
           fig->expanded_per_tick, st.search_us_mean,
           (unsigned long long)st.follow_reused,
           (unsigned long long)st.follow_full, dsum / (double)o->chasers);
    fflush(stdout);
    free(t);
    free(h);
    gc_sim_free(s);
    return 0;
}

static int
cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static double
median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2.0;
}

static void
usage(void)
{
    printf("usage: " PROG " [OPTION...]\n"
           "Agents chasing wandering targets: the follow goal (full "
           "plans, then\n"
           "reused ones) against a point goal set every tick; one line a "
           "run, then\n"
           "the medians over the rounds.\n"
           "  --map FILE     the Moving AI map (default\n"
           "                 ../shared/benchmarks/movingai/den520d.map)\n"
           "  --chasers N    chasers (default 1000)\n"
           "  --targets K    targets, chaser i after target i %% K "
           "(default 10)\n"
           "  --ticks T      ticks a run (default 600)\n"
           "  --threads N    worker threads (default 2)\n"
           "  --rounds R     rounds of the three runs, 1 to 99 (default 1)\n"
           "  --help         this text\n"
           "Exit codes: 0 ran; 1 the map did not load or a run failed; 2 bad "
           "command line.\n");
}

/* A whole number for option `name` in [lo, hi], or exit 2 saying why. */
static long
count(const char *name, const char *arg, double lo, double hi)
{
    double v;
    if (!prog_number(name, arg, lo, hi, true, &v))
        exit(2);
    return (long)v;
}

int
main(int argc, char **argv)
{
    opts o = {"../shared/benchmarks/movingai/den520d.map", 1000, 10, 600, 2, 1};
    static const struct option lo[] = {
        {"map", required_argument, NULL, 'f'},
        {"chasers", required_argument, NULL, 'n'},
        {"targets", required_argument, NULL, 'k'},
        {"ticks", required_argument, NULL, 't'},
        {"threads", required_argument, NULL, 'j'},
        {"rounds", required_argument, NULL, 'r'},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0}};
    prog_init(PROG);
    /* ':' and opterr 0: a bad option is our one line, not getopt's two. */
    opterr = 0;
    int c;
    while ((c = getopt_long(argc, argv, ":f:n:k:t:j:r:h", lo, NULL)) != -1) {
        switch (c) {
        case 'f':
            o.map = optarg;
            break;
        case 'n':
            o.chasers = count("--chasers", optarg, 1, GC_SIM_MAX_AGENTS);
            break;
        case 'k':
            o.targets = count("--targets", optarg, 1, GC_SIM_MAX_AGENTS);
            break;
        case 't':
            o.ticks = count("--ticks", optarg, 1, 1e9);
            break;
        case 'j':
            o.threads = (int)count("--threads", optarg, 1, 256);
            break;
        case 'r':
            o.rounds = (int)count("--rounds", optarg, 1, 99);
            break;
        case 'h':
            usage();
            return 0;
        default:
            return prog_bad_option(2, c, argv, lo);
        }
    }
    if (optind < argc)
        return prog_usage(2, "unexpected argument '%s'", argv[optind]);
    if (o.chasers + o.targets > GC_SIM_MAX_AGENTS)
        return prog_usage(2,
                          "--chasers and --targets: %ld agents in all, "
                          "more than %ld",
                          o.chasers + o.targets, (long)GC_SIM_MAX_AGENTS);
    gc_grid *g;
    gc_error err;
    if (gc_map_load(&g, o.map, &err) != GC_OK) {
        prog_msg("%s", err.msg);
        return 1;
    }
    figures f[NMODES][99];
    int rc = 0;
    for (int r = 0; r < o.rounds && rc == 0; r++)
        for (int m = 0; m < NMODES && rc == 0; m++)
            rc = run(&o, g, m, &f[m][r]);
    for (int m = 0; rc == 0 && m < NMODES; m++) {
        double tps[99], exp[99];
        for (int r = 0; r < o.rounds; r++) {
            tps[r] = f[m][r].tps;
            exp[r] = f[m][r].expanded_per_tick;
        }
        printf("median of %d: %-6s %.1f ticks/s, %.0f cells expanded a "
               "tick\n",
               o.rounds, mode_names[m], median(tps, o.rounds),
               median(exp, o.rounds));
    }
    gc_grid_free(g);
    return rc;
}
