/*
 * bench-crowd.c: headless benchmark of the simulation with bodies and
 * avoidance (issue 10): the whole tick (planning, avoidance, motion)
 * through the public API, on grid scenarios.
 *
 * Scenarios (cell size 1 world unit):
 *   circle      RVO2's Circle on a grid: agents on concentric rings of
 *               radius 200, 205, ... (RVO2's spacing along a ring, 2 pi
 *               200 / 250), each going to the antipodal cell; RVO2's
 *               parameters: radius 1.5, speed 1, dt 0.25 (4 Hz),
 *               neighbour distance 15, 10 neighbours, horizon 10 s;
 *               but the most an agent goes to avoid is its own speed,
 *               not RVO2's 2: at 2 ORCA's answers in the infeasible
 *               centre overlap (circle 1,000: 0.94% of N a tick, 453
 *               pairs at worst, against 0.0014% and 3), at the same
 *               cost (--max-speed 2 shows it).
 *   corridor    a corridor 12 cells wide; N/2 agents at each end in a
 *               block 10 agents across, going to the other end (goals
 *               two cells apart along the corridor);
 *               radius 0.35, speed 4, 60 Hz.
 *   bottleneck  a 40 x 40 room whose agents leave through a door 2 cells
 *               wide to a goal area outside; radius 0.35, speed 4, 60 Hz.
 *   den520d     10,000 wanderers (radius 0.3 cell, speed 4, 60 Hz) on the
 *               Moving AI map given with --map, for --ticks ticks.
 *
 * Printed per scenario and N: mean, p95 and (after the first simulated
 * second, as the 60 Hz target counts overruns) max ms per tick (whole
 * tick), the mean after the first simulated second ("steady": without
 * the first tick, which plans every agent), mean
 * ms of avoidance (the index build plus the slowest worker's neighbour
 * queries, ORCA and motion: what RVO2's step does, without steering along
 * the path and the figures), overlapping pairs per tick (mean, max), the
 * deepest overlap as a fraction of 2r, agents arrived, the tick when all had
 * arrived (- when not), stalled agents at the end, the longest any agent went
 * without progress (sampled once a simulated second), mean speed / preferred
 * speed, the CPU time of a tick (all threads; the ticks after the
 * first, which plans every agent: the figure to compare versions by on a
 * shared, noisy machine), and the path searches after the first tick
 * (replans: none in circle's first minutes).
 * --no-smooth plans without smoothing: the first tick of corridor 100,000
 * (paths 20,000 cells long) otherwise spends minutes smoothing, and in a
 * straight corridor the agents steer to the furthest visible waypoint
 * either way.
 * With --show N: every 50 simulated seconds (10 at 60 Hz) how many have
 * arrived and how many are stalled, and at the end the first N agents
 * that have not arrived (state, position, goal, velocity): where a
 * deadlock hunt starts.
 */
#include "config.h"

#include <gridcrowd/mapio.h>
#include <gridcrowd/sim.h>
#include <gridcrowd/util.h>

#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "prog.h"
#include <time.h>

#define PROG "bench-crowd"

static void
die(const char *what)
{
    fprintf(stderr, PROG ": %s\n", what);
    exit(1);
}

/* CPU time of the whole process (every thread), ms: on a shared machine
 * it moves far less than the wall clock with the other work. */
static double
cpu_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static int
cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static gc_scen
scen_alloc(size_t n)
{
    gc_scen sc;
    memset(&sc, 0, sizeof sc);
    sc.entries = calloc(n, sizeof *sc.entries);
    if (sc.entries == NULL)
        die("out of memory");
    sc.len = n;
    return sc;
}

static gc_grid *
open_grid(int32_t w, int32_t h)
{
    gc_grid *g;
    if (gc_grid_new(&g, w, h) != GC_OK)
        die("cannot make the grid");
    return g;
}

static void
circle(size_t n, gc_grid **gp, gc_scen *sc, gc_sim_config *c)
{
    const double spacing = 2.0 * M_PI * 200.0 / 250.0;
    double rmax = 200.0;
    for (size_t k = 0, left = n; left > 0; k++) {
        rmax = 200.0 + 5.0 * (double)k;
        size_t on = (size_t)floor(2.0 * M_PI * rmax / spacing);
        left = left > on ? left - on : 0;
    }
    int32_t half = (int32_t)ceil(rmax) + 5, w = 2 * half + 1;
    *gp = open_grid(w, w);
    *sc = scen_alloc(n);
    size_t i = 0;
    for (size_t k = 0; i < n; k++) {
        double r = 200.0 + 5.0 * (double)k;
        size_t on = (size_t)floor(2.0 * M_PI * r / spacing);
        if (on > n - i)
            on = n - i; /* the last ring: evenly spread too */
        for (size_t j = 0; j < on && i < n; j++, i++) {
            double a = 2.0 * M_PI * (double)j / (double)on;
            gc_cell s = {half + (int32_t)lround(r * cos(a)),
                         half + (int32_t)lround(r * sin(a))};
            sc->entries[i].start = s;
            sc->entries[i].goal = (gc_cell){2 * half - s.x, 2 * half - s.y};
        }
    }
    c->radius = 1.5f;
    c->motion.speed = 1.0f;
    c->hz = 4.0;
    c->neighbours = 10;
    c->horizon = 10.0f;
    c->neighbour_dist = 15.0f;
}

static void
corridor(size_t n, gc_grid **gp, gc_scen *sc, gc_sim_config *c)
{
    /* Goals two cells apart along the corridor: packed a cell apart,
     * arrived bodies would wall off the agents still coming through. */
    const int32_t wide = 12, depth = (int32_t)((n / 2 + 9) / 10);
    const int32_t len = 4 * depth + 40, h = wide + 2;
    gc_grid *g = open_grid(len + 2, h);
    for (int32_t x = 0; x < len + 2; x++) {
        gc_grid_set(g, x, 0, GC_CELL_OBSTACLE);
        gc_grid_set(g, x, h - 1, GC_CELL_OBSTACLE);
    }
    *gp = g;
    *sc = scen_alloc(n);
    for (size_t i = 0; i < n; i++) {
        size_t k = i / 2;
        int32_t col = (int32_t)(k / 10), row = 2 + (int32_t)(k % 10);
        if (i % 2 == 0) {
            sc->entries[i].start = (gc_cell){1 + col, row};
            sc->entries[i].goal = (gc_cell){len - 2 * depth + 1 + 2 * col, row};
        } else {
            sc->entries[i].start = (gc_cell){len - col, row};
            sc->entries[i].goal = (gc_cell){2 * depth - 2 * col, row};
        }
    }
    c->radius = 0.35f;
}

static void
bottleneck(size_t n, gc_grid **gp, gc_scen *sc, gc_sim_config *c)
{
    /* A room of side `side`, its right wall at x = side + 1 with a door 2
     * cells wide in the middle, and outside a field as big as the room
     * where every agent has its own goal cell. */
    int32_t side = (int32_t)ceil(sqrt((double)n) * 1.6) + 4;
    int32_t w = 2 * side + 6, h = side + 2;
    gc_grid *g = open_grid(w, h);
    for (int32_t y = 0; y < h; y++)
        if (y < h / 2 - 1 || y > h / 2)
            gc_grid_set(g, side + 1, y, GC_CELL_OBSTACLE);
    *gp = g;
    *sc = scen_alloc(n);
    int32_t per = (int32_t)ceil(sqrt((double)n));
    for (size_t i = 0; i < n; i++) {
        int32_t a = (int32_t)(i % (size_t)per), b = (int32_t)(i / (size_t)per);
        sc->entries[i].start = (gc_cell){1 + a * 3 / 2, 1 + b * 3 / 2};
        sc->entries[i].goal = (gc_cell){side + 4 + a * 3 / 2, 1 + b * 3 / 2};
    }
    c->radius = 0.35f;
}

static void
usage(FILE *f)
{
    fprintf(f,
            "usage: " PROG " [OPTION...]\n"
            "Runs one crowd scenario headlessly and prints one line of "
            "figures.\n"
            "  --scenario NAME       circle (default), corridor, bottleneck, "
            "den520d\n"
            "  --agents N            agents (default 1000)\n"
            "  --threads T           worker threads (default 2)\n"
            "  --ticks MAX           ticks to run at most (default 10 "
            "simulated minutes;\n"
            "                        den520d 600)\n"
            "  --map FILE            the Moving AI map (den520d)\n"
            "  --horizon S           ORCA time horizon (default the "
            "scenario's)\n"
            "  --neighbour-dist D    how far neighbours are looked for "
            "(default the\n"
            "                        scenario's: circle 15, as RVO2's Circle)\n"
            "  --max-speed V         the fastest an agent may go to avoid "
            "(default its speed)\n"
            "  --time-gap S          following: no faster than the gap "
            "ahead over S seconds\n"
            "                        (default 0, off, as RVO2)\n"
            "  --show N              progress every 10 or 50 simulated s, "
            "and the first N\n"
            "                        agents that have not arrived\n"
            "  --seed N              random seed: den520d's starts and goals "
            "(default 1)\n"
            "  --no-smooth           plan without smoothing\n"
            "  --avoid MODEL         orca (default) or orca-adaptive\n"
            "  --reorder S           renumber the slots every S simulated "
            "seconds, 0: never\n"
            "                        (default the sim's, 20)\n"
            "  --help                this text\n"
            "Exit codes: 0 ran; 1 the run failed; 2 bad command line.\n");
}

/* A number for option `name` in [lo, hi] (whole: a whole one), or exit 2
 * saying why (prog_number: "5x" is not 5). */
static double
number(const char *name, const char *arg, double lo, double hi, bool whole)
{
    double v;
    if (!prog_number(name, arg, lo, hi, whole, &v))
        exit(2);
    return v;
}

int
main(int argc, char **argv)
{
    const char *scenario = "circle", *map = NULL;
    size_t n = 1000;
    int threads = 2;
    uint64_t max_ticks = 0;
    float horizon = 0.0f;    /* 0: the scenario's */
    float ndist = -1.0f;     /* < 0: the scenario's */
    float max_speed = -1.0f; /* < 0: the scenario's */
    float time_gap = 0.0f;   /* 0: no following, as RVO2 */
    size_t show = 0;         /* agents not arrived to list at the end */
    bool smooth = true;
    uint64_t seed = 1;
    gc_avoid avoid = GC_AVOID_ORCA;
    float reorder = -1.0f; /* < 0: the sim's default */
    static const struct option longs[] = {
        {"scenario", required_argument, NULL, 's'},
        {"agents", required_argument, NULL, 'n'},
        {"threads", required_argument, NULL, 't'},
        {"ticks", required_argument, NULL, 'k'},
        {"map", required_argument, NULL, 'm'},
        {"horizon", required_argument, NULL, 'H'},
        {"neighbour-dist", required_argument, NULL, 'D'},
        {"max-speed", required_argument, NULL, 'V'},
        {"time-gap", required_argument, NULL, 'G'},
        {"show", required_argument, NULL, 'S'},
        {"seed", required_argument, NULL, 'R'},
        {"no-smooth", no_argument, NULL, 'N'},
        {"avoid", required_argument, NULL, 'A'},
        {"reorder", required_argument, NULL, 'O'},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0}};
    prog_init(PROG);
    /* ':' and opterr 0: a bad option is our one line, not getopt's two. */
    opterr = 0;
    int ch;
    while ((ch = getopt_long(argc, argv, ":s:n:t:k:m:H:D:V:G:S:R:NA:O:h", longs,
                             NULL)) != -1) {
        switch (ch) {
        case 's':
            scenario = optarg;
            break;
        case 'n':
            n = (size_t)number("--agents", optarg, 1, GC_SIM_MAX_AGENTS, true);
            break;
        case 't':
            threads = (int)number("--threads", optarg, 1, 256, true);
            break;
        case 'k':
            max_ticks = (uint64_t)number("--ticks", optarg, 1, 1e9, true);
            break;
        case 'm':
            map = optarg;
            break;
        case 'H':
            horizon = (float)number("--horizon", optarg, 1e-3, 1e6, false);
            break;
        case 'O':
            reorder = (float)number("--reorder", optarg, 0, 1e6, false);
            break;
        case 'D':
            ndist = (float)number("--neighbour-dist", optarg, 0, 1e6, false);
            break;
        case 'V':
            max_speed = (float)number("--max-speed", optarg, 0, 1e6, false);
            break;
        case 'G':
            time_gap = (float)number("--time-gap", optarg, 0, 1e6, false);
            break;
        case 'S':
            show = (size_t)number("--show", optarg, 0, 1e9, true);
            break;
        case 'R':
            seed =
                (uint64_t)number("--seed", optarg, 0, 9007199254740992.0, true);
            break;
        case 'N':
            smooth = false;
            break;
        case 'A': {
            int a = gc_avoid_parse(optarg);
            if (a != GC_AVOID_ORCA && a != GC_AVOID_ORCA_ADAPTIVE) {
                fprintf(stderr,
                        PROG ": --avoid: expected orca or orca-adaptive, got "
                             "'%s'\n",
                        optarg);
                return 2;
            }
            avoid = (gc_avoid)a;
            break;
        }
        case 'h':
            usage(stdout);
            return 0;
        default:
            return prog_bad_option(2, ch, argv, longs);
        }
    }
    if (optind < argc) {
        fprintf(stderr, PROG ": unexpected argument '%s' (see --help)\n",
                argv[optind]);
        return 2;
    }
    gc_sim_config c;
    gc_sim_config_init(&c);
    c.avoid = avoid;
    c.threads = threads;
    c.plan_budget = 1000000; /* everyone plans in the first tick */
    c.agents = (uint32_t)n;
    c.seed = seed;
    gc_grid *g = NULL;
    gc_scen sc;
    memset(&sc, 0, sizeof sc);
    if (strcmp(scenario, "circle") == 0) {
        circle(n, &g, &sc, &c);
    } else if (strcmp(scenario, "corridor") == 0) {
        corridor(n, &g, &sc, &c);
    } else if (strcmp(scenario, "bottleneck") == 0) {
        bottleneck(n, &g, &sc, &c);
    } else if (strcmp(scenario, "den520d") == 0) {
        gc_error err;
        if (map == NULL) {
            fprintf(stderr, PROG ": den520d needs --map FILE\n");
            return 2;
        }
        if (gc_map_load(&g, map, &err) != GC_OK)
            die(err.msg);
        gc_grid_set_uniform(g);
        c.radius = 0.3f;
        c.goals = GC_GOALS_WANDER;
        if (max_ticks == 0)
            max_ticks = 600;
    } else {
        fprintf(stderr,
                PROG ": --scenario: unknown '%s' (circle, corridor, "
                     "bottleneck or den520d)\n",
                scenario);
        return 2;
    }
    if (horizon > 0.0f)
        c.horizon = horizon;
    if (reorder >= 0.0f)
        c.reorder = reorder;
    if (ndist >= 0.0f)
        c.neighbour_dist = ndist;
    if (max_speed >= 0.0f)
        c.max_speed = max_speed;
    c.time_gap = time_gap;
    c.smooth = smooth;
    if (sc.len > 0) {
        c.goals = GC_GOALS_SCEN;
        c.scen = &sc;
    }
    if (max_ticks == 0)
        max_ticks = (uint64_t)(c.hz * 600.0); /* ten simulated minutes */

    gc_sim *s;
    gc_error err;
    if (gc_sim_new(&s, g, &c, &err) != GC_OK)
        die(err.msg);
    double *ms = malloc((size_t)max_ticks * sizeof *ms);
    if (ms == NULL)
        die("out of memory");
    uint64_t t = 0, all_at = 0;
    double stall_max = 0.0; /* the longest stall seen, s */
    double cpu0 = 0.0;      /* CPU time at the end of the first tick */
    uint64_t searches0 = 0; /* searches in the first tick */
    while (t < max_ticks) {
        uint64_t t0 = gc_clock_ns();
        if (gc_sim_tick(s) != GC_OK)
            die("tick failed");
        ms[t++] = (double)(gc_clock_ns() - t0) / 1e6;
        if (t == 1) {
            gc_sim_stats w;
            gc_sim_stats_total(s, &w);
            searches0 = w.searches;
            cpu0 = cpu_ms();
        }
        /* Once a simulated second: the longest stall so far. */
        if (t % (uint64_t)c.hz == 0) {
            gc_sim_stats w;
            gc_sim_stats_total(s, &w);
            if (w.stall_s_max > stall_max)
                stall_max = w.stall_s_max;
        }
        if (show > 0 && t % (uint64_t)(c.hz * (c.hz > 10 ? 10.0 : 50.0)) == 0) {
            gc_sim_stats w;
            gc_sim_stats_total(s, &w);
            printf("  t=%.0f s arrived %llu stalled %llu\n", (double)t / c.hz,
                   (unsigned long long)w.by_state[GC_AGENT_ARRIVED],
                   (unsigned long long)w.stalled);
        }
        if (sc.len > 0 && gc_sim_done(s)) {
            all_at = t;
            break;
        }
    }
    gc_sim_stats st;
    gc_sim_stats_total(s, &st);
    /* The slowest tick after the first simulated second, and their
     * mean (the steady state, without the first tick's planning). */
    double sum = 0.0, late_max = 0.0, late_sum = 0.0;
    for (uint64_t k = 0; k < t; k++) {
        sum += ms[k];
        if (k >= (uint64_t)c.hz) {
            late_sum += ms[k];
            if (ms[k] > late_max)
                late_max = ms[k];
        }
    }
    uint64_t late = t > (uint64_t)c.hz ? t - (uint64_t)c.hz : 0;
    qsort(ms, (size_t)t, sizeof *ms, cmp_double);
    double p95 = t ? ms[(size_t)((double)(t - 1) * 0.95)] : 0.0;
    char all[32] = "-";
    if (all_at)
        snprintf(all, sizeof all, "%llu", (unsigned long long)all_at);
    printf("%-10s N=%-6zu T=%d  tick %.3f ms mean %.3f p95 %.3f max after "
           "1 s  steady %.3f ms  avoid %.3f ms  "
           "overlaps/tick %.3f (%.4f%% of N) max %llu  deepest %.3f of 2r  "
           "in walls %llu  arrived %llu/%zu  all at tick %s  stalled %llu  "
           "longest stall %.1f s  speed %.2f  ticks %llu  cpu/tick %.3f ms  "
           "searches after the first tick %llu\n",
           scenario, gc_sim_agent_count(s), threads, sum / (double)(t ? t : 1),
           p95, late_max, late ? late_sum / (double)late : 0.0,
           st.avoid_ms_mean, st.overlaps_mean,
           100.0 * st.overlaps_mean / (double)gc_sim_agent_count(s),
           (unsigned long long)st.overlaps_max, st.overlap_depth_max,
           (unsigned long long)st.in_wall,
           (unsigned long long)st.by_state[GC_AGENT_ARRIVED],
           gc_sim_agent_count(s), all, (unsigned long long)st.stalled,
           stall_max, st.speed_ratio, (unsigned long long)t,
           t > 1 ? (cpu_ms() - cpu0) / (double)(t - 1) : 0.0,
           (unsigned long long)(st.searches - searches0));
    /* The first `show` agents that have not arrived: where they stand,
     * where they go, how fast: what a deadlock hunt starts from. */
    for (size_t i = 0, shown = 0; i < gc_sim_agent_count(s) && shown < show;
         i++) {
        const gc_agent *a = gc_sim_agent(s, i);
        if (a->state == GC_AGENT_ARRIVED)
            continue;
        gc_vec2 v = gc_sim_agent_velocity(s, i);
        printf("  agent %zu %s at (%.2f, %.2f) goal (%d, %d) v (%.2f, %.2f) "
               "wp %u/%u\n",
               i, gc_agent_state_name(a->state), a->pos.x, a->pos.y, a->goal.x,
               a->goal.y, v.x, v.y, a->wp_next, a->wp_len);
        shown++;
    }
    free(ms);
    gc_sim_free(s);
    gc_scen_free(&sc);
    gc_grid_free(g);
    return 0;
}
