/*
 * bench-chase.c: agents chasing moving targets, the library's follow goal
 * against the naive way, in one run.
 *
 *   bench-chase [--map FILE] [--chasers N] [--targets K] [--ticks T]
 *               [--threads N]
 *
 * K targets wander; N chasers (chaser i after target i % K) start on
 * spread-out open cells.  Two runs from the same start:
 *   follow: gc_sim_set_goal_follow(chaser, target, 2 cells) once; the sim
 *           plans again only when the target has left the neighbourhood
 *           of the cell the chaser's path ends in;
 *   naive:  before every tick each chaser gets the target's position as a
 *           new point goal, i.e. one search per chaser per tick (the way
 *           seed code for a Unity chaser searches every frame).
 * Both with a plan budget large enough that every request is served in
 * its tick, no avoidance, points.  Prints per run: ticks/s (wall clock,
 * ticks run as fast as they go), searches/s and per tick, and the mean
 * distance from chaser to target at the end (cells).
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

typedef struct opts {
    const char *map;
    long chasers, targets, ticks;
    int threads;
} opts;

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
run(const opts *o, gc_grid *g, bool naive)
{
    gc_sim_config c;
    gc_sim_config_init(&c);
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
    printf("%-6s %ld chasers, %ld targets, %ld ticks: %.1f ticks/s, "
           "%.0f searches/s (%.1f a tick), %.1f us a search, mean distance "
           "at the end %.1f cells\n",
           naive ? "naive" : "follow", o->chasers, o->targets, o->ticks,
           (double)o->ticks / secs, (double)st.searches / secs,
           (double)st.searches / (double)o->ticks, st.search_us_mean,
           dsum / (double)o->chasers);
    free(t);
    free(h);
    gc_sim_free(s);
    return 0;
}

int
main(int argc, char **argv)
{
    opts o = {"../shared/benchmarks/movingai/den520d.map", 1000, 10, 600, 2};
    static const struct option lo[] = {
        {"map", required_argument, NULL, 'f'},
        {"chasers", required_argument, NULL, 'n'},
        {"targets", required_argument, NULL, 'k'},
        {"ticks", required_argument, NULL, 't'},
        {"threads", required_argument, NULL, 'j'},
        {NULL, 0, NULL, 0}};
    int c;
    while ((c = getopt_long(argc, argv, "f:n:k:t:j:", lo, NULL)) != -1) {
        switch (c) {
        case 'f':
            o.map = optarg;
            break;
        case 'n':
            o.chasers = atol(optarg);
            break;
        case 'k':
            o.targets = atol(optarg);
            break;
        case 't':
            o.ticks = atol(optarg);
            break;
        case 'j':
            o.threads = atoi(optarg);
            break;
        default:
            fprintf(stderr, "usage: bench-chase [--map FILE] [--chasers N] "
                            "[--targets K] [--ticks T] [--threads N]\n");
            return 2;
        }
    }
    if (o.chasers < 1 || o.targets < 1 || o.ticks < 1 || o.threads < 1) {
        fprintf(stderr, "bench-chase: counts must be >= 1\n");
        return 2;
    }
    gc_grid *g;
    gc_error err;
    if (gc_map_load(&g, o.map, &err) != GC_OK) {
        fprintf(stderr, "bench-chase: %s\n", err.msg);
        return 1;
    }
    int rc = run(&o, g, false);
    if (rc == 0)
        rc = run(&o, g, true);
    gc_grid_free(g);
    return rc;
}
