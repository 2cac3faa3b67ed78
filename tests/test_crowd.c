/*
 * test_crowd.c: agents with bodies and avoidance (issue 10).
 *
 * - Bodies: planning on the inflated grid keeps every path cell at least
 *   the radius from a wall, and the search is still jump point search.
 * - Never in a wall: in a dense crowd, checked after every tick: no centre
 *   in an obstacle cell, no body deeper than GC_SIM_WALL_TOL in one.
 * - Head-on in an open field: two agents pass without overlapping.
 * - Head-on in a one-cell corridor: one yields, both arrive.
 * - Wanderers crossing a one-cell passage from both ends: none stalls
 *   for 30 s; a plan avoids a gap where an agent is stalled.
 * - Steering's fast visibility answers exactly as the cell walk; the
 *   wall segments from the edge map are the cell-by-cell scan's.
 * - Following (a time gap): the speed the gap ahead allows, by hand.
 * - Threads: 1, 2 and 3 workers give bit-identical positions, with and
 *   without turn rates.
 * - Turn rates under ORCA: turning back takes pi / rate and drifts little
 *   sideways; groups with different rates each keep their own.
 * - Circle and corridor with a few hundred agents: all arrive, no overlap
 *   deeper than the tolerance.
 * It links the library's objects (src/sim_int.h: the planning grid).
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "quick.h"

#include <gridcrowd/mapio.h>
#include <gridcrowd/sim.h>

#include "../src/sim_crowd_int.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Overlap allowed in the quality tests, as a fraction of 2r. */
#define DEPTH_TOL 0.10

static gc_grid *
grid_from(const char *const *rows, int w, int h)
{
    gc_grid *g;
    assert_int_equal(gc_grid_new(&g, w, h), GC_OK);
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++)
            gc_grid_set(g, x, y, gc_cell_type_from_glyph(rows[y][x]));
    return g;
}

static gc_grid *
open_grid(int w, int h)
{
    gc_grid *g;
    assert_int_equal(gc_grid_new(&g, w, h), GC_OK);
    return g;
}

/* Every body out of every wall (centre in none, depth within tol). */
static void
assert_out_of_walls(const gc_sim *s, float r)
{
    const gc_grid *g = gc_sim_grid(s);
    float cs = g->cell_size, tol = GC_SIM_WALL_TOL * cs + 1e-5f;
    for (size_t i = 0; i < gc_sim_agent_count(s); i++) {
        gc_vec2 p = gc_sim_agent(s, i)->pos;
        gc_cell c = gc_grid_world_to_cell(g, p);
        if (!gc_grid_passable(g, c.x, c.y))
            fail_msg("agent %zu at (%f, %f): centre in a wall", i, p.x, p.y);
        for (int32_t y = c.y - 2; y <= c.y + 2; y++)
            for (int32_t x = c.x - 2; x <= c.x + 2; x++) {
                if (gc_grid_passable(g, x, y))
                    continue;
                float qx =
                    fmaxf((float)x * cs, fminf(p.x, (float)(x + 1) * cs));
                float qy =
                    fmaxf((float)y * cs, fminf(p.y, (float)(y + 1) * cs));
                float d = hypotf(p.x - qx, p.y - qy);
                if (d < r - tol)
                    fail_msg("agent %zu at (%f, %f) reaches %f into wall "
                             "(%d, %d)",
                             i, p.x, p.y, r - d, x, y);
            }
    }
}

/* The deepest overlap between two bodies now, fraction of 2r. */
static double
deepest(const gc_sim *s, float r)
{
    double worst = 0.0;
    size_t n = gc_sim_agent_count(s);
    for (size_t i = 0; i < n; i++)
        for (size_t j = i + 1; j < n; j++) {
            gc_vec2 a = gc_sim_agent(s, i)->pos, b = gc_sim_agent(s, j)->pos;
            double d = hypot(a.x - b.x, a.y - b.y);
            double depth = (2.0 * r - d) / (2.0 * r);
            if (depth > worst)
                worst = depth;
        }
    return worst;
}

static void
scen_of(gc_scen *sc, const gc_cell *start, const gc_cell *goal, size_t n)
{
    memset(sc, 0, sizeof *sc);
    sc->entries = calloc(n, sizeof *sc->entries);
    assert_non_null(sc->entries);
    sc->len = n;
    for (size_t i = 0; i < n; i++) {
        sc->entries[i].start = start[i];
        sc->entries[i].goal = goal[i];
    }
}

static void
crowd_config(gc_sim_config *c, uint32_t n, float r)
{
    gc_sim_config_init(c);
    c->agents = n;
    c->radius = r;
    c->avoid = GC_AVOID_ORCA;
}

/* crowd_config for n bodies walking the problems start[i] -> goal[i],
 * which *sc holds (free its entries when done). */
static void
scen_crowd_config(gc_sim_config *c, gc_scen *sc, const gc_cell *start,
                  const gc_cell *goal, uint32_t n, float r)
{
    scen_of(sc, start, goal, n);
    crowd_config(c, n, r);
    c->goals = GC_GOALS_SCEN;
    c->scen = sc;
}

/* Tick until done (or `max` ticks), checking walls and, when depth_tol >=
 * 0, overlaps after every tick.  Returns the ticks run. */
static int
run_checked(gc_sim *s, float r, int max, double depth_tol, double *worst)
{
    double w = 0.0;
    int t = 0;
    for (; t < max && !gc_sim_done(s); t++) {
        assert_int_equal(gc_sim_tick(s), GC_OK);
        assert_out_of_walls(s, r);
        if (depth_tol >= 0.0) {
            double d = deepest(s, r);
            if (d > w)
                w = d;
        }
    }
    if (worst != NULL)
        *worst = w;
    return t;
}

/* All `n` agents arrived: a sim with none (a scenario read as empty)
 * is done at once and would pass the loop alone. */
static void
assert_all_arrived(const gc_sim *s, size_t n)
{
    assert_int_equal(gc_sim_agent_count(s), n);
    for (size_t i = 0; i < gc_sim_agent_count(s); i++)
        if (gc_sim_agent(s, i)->state != GC_AGENT_ARRIVED)
            fail_msg("agent %zu did not arrive: %s at (%f, %f)", i,
                     gc_agent_state_name(gc_sim_agent(s, i)->state),
                     gc_sim_agent(s, i)->pos.x, gc_sim_agent(s, i)->pos.y);
}

/* Agents' positions (x, y each) into out[2n]. */
static void
positions(const gc_sim *s, float *out, size_t n)
{
    assert_int_equal(gc_sim_agent_count(s), n);
    for (size_t i = 0; i < n; i++) {
        out[2 * i] = gc_sim_agent(s, i)->pos.x;
        out[2 * i + 1] = gc_sim_agent(s, i)->pos.y;
    }
}

/* How many of n agents stand further than d from where from[2n] had
 * them: the thread runs compare positions, which agree trivially if
 * nobody moves. */
static size_t
moved_from(const float *from, const float *now, size_t n, float d)
{
    size_t m = 0;
    for (size_t i = 0; i < n; i++)
        m += hypotf(now[2 * i] - from[2 * i],
                    now[2 * i + 1] - from[2 * i + 1]) > d;
    return m;
}

/* ---- bodies: planning for the radius ---------------------------------- */

static const char *rooms[] = {
    "@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@", "@..............@...............@",
    "@..............@...............@", "@..............................@",
    "@....@@@@@.............@@@@....@", "@....@@@@@.....................@",
    "@..............................@", "@..............................@",
    "@......................@.......@", "@..............@.......@.......@",
    "@.....@@.......@.......@.......@", "@..............@...............@",
    "@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@",
};

static void
test_inflated_planning(void **state)
{
    (void)state;
    gc_grid *g = grid_from(rooms, 32, 13);
    const float r = 1.2f;
    gc_sim_config c;
    crowd_config(&c, 20, r);
    c.avoid = GC_AVOID_NONE; /* exact followers: the walk is the plan */
    gc_sim *s;
    gc_error err;
    assert_int_equal(gc_sim_new(&s, g, &c, &err), GC_OK);
    gc_nav *wnav;
    assert_int_equal(gc_nav_new(&wnav, g), GC_OK);
    size_t checked = 0; /* waypoints checked: none would pass the loops */
    for (int t = 0; t < 600; t++) {
        assert_int_equal(gc_sim_tick(s), GC_OK);
        for (size_t i = 0; i < gc_sim_agent_count(s); i++) {
            const gc_agent *a = gc_sim_agent(s, i);
            for (uint32_t k = a->wp_next; k < a->wp_len; k++, checked++) {
                gc_cell cc = gc_grid_world_to_cell(g, a->wp[k]);
                assert_true(gc_nav_clearance(wnav, cc) >= r);
                if (k > a->wp_next) {
                    gc_cell pc = gc_grid_world_to_cell(g, a->wp[k - 1]);
                    assert_true(isfinite(gc_segment_cost(g, wnav, r, pc, cc)));
                }
            }
        }
    }
    /* Jump point search on the planning grid, as the sim calls it. */
    gc_astar *as;
    assert_int_equal(gc_astar_new(&as, 32, 13), GC_OK);
    gc_astar_opts o;
    gc_astar_opts_init(&o);
    o.nav = s->nav;
    gc_path p;
    gc_path_init(&p);
    gc_astar_stats st;
    assert_int_equal(gc_astar_find(as, s->pgrid, (gc_cell){3, 3},
                                   (gc_cell){28, 9}, &o, &p, &st),
                     GC_OK);
    assert_true(checked > 0);
    assert_int_equal(st.algo, GC_ALGO_JPS);
    assert_true(p.len >= 2);
    assert_int_equal(p.cells[p.len - 1].x, 28);
    assert_int_equal(p.cells[p.len - 1].y, 9);
    for (size_t k = 0; k < p.len; k++)
        assert_true(gc_nav_clearance(wnav, p.cells[k]) >= r);
    /* A wall added later inflates too: the agents' paths keep clear. */
    gc_grid_set(g, 20, 6, GC_CELL_OBSTACLE);
    gc_cell ch = {20, 6};
    assert_int_equal(gc_sim_grid_changed(s, &ch, 1), GC_OK);
    assert_int_equal(gc_nav_update(wnav, g), GC_OK);
    assert_false(gc_grid_passable(s->pgrid, 21, 7));
    checked = 0;
    for (int t = 0; t < 120; t++) {
        assert_int_equal(gc_sim_tick(s), GC_OK);
        for (size_t i = 0; i < gc_sim_agent_count(s); i++) {
            const gc_agent *a = gc_sim_agent(s, i);
            for (uint32_t k = a->wp_next; k < a->wp_len; k++, checked++)
                assert_true(gc_nav_clearance(
                                wnav, gc_grid_world_to_cell(g, a->wp[k])) >= r);
        }
    }
    assert_true(checked > 0);
    gc_path_free(&p);
    gc_astar_free(as);
    gc_nav_free(wnav);
    gc_sim_free(s);
    gc_grid_free(g);
}

/* ---- never in a wall --------------------------------------------------- */

static const char *maze[] = {
    "........................", "..@@@@@@@@@@@@@@@@@@@...",
    "..@.........@.......@...", "..@..@@@@...@...@@..@...",
    "..@..@@@@...@...@@..@...", "..@.........@.......@...",
    "..@.....@@@@@.......@...", "..@.................@...",
    "..@@@@@@@@@.@@@@@@@@@...", "............@...........",
    "....@@@.....@....@@@....", "............@...........",
};

static void
test_never_in_wall(void **state)
{
    (void)state;
    gc_grid *g = grid_from(maze, 24, 12);
    const float r = 0.4f;
    gc_sim_config c;
    crowd_config(&c, 120, r); /* about half the open cells */
    c.threads = 2;
    gc_sim *s;
    gc_error err;
    assert_int_equal(gc_sim_new(&s, g, &c, &err), GC_OK);
    run_checked(s, r, 1200, -1.0, NULL);
    gc_sim_stats st;
    gc_sim_stats_total(s, &st);
    assert_int_equal(st.in_wall, 0);
    printf("# dense: %llu arrivals, %llu stalled, pairs/tick %.2f\n",
           (unsigned long long)st.arrivals, (unsigned long long)st.stalled,
           st.overlaps_mean);
    assert_true(st.arrivals > 0);
    gc_sim_free(s);
    gc_grid_free(g);
}

/* ---- stall replans ----------------------------------------------------- */

/* The stall replan queues a blocked agent while it stays MOVING (it walks
 * on until the new path lands): the planner must search for it, not drop
 * it as a slot that stopped wanting a path (the crowdq + agents merge did,
 * and test_corridor's last agents never arrived).  Cheap, so it also runs
 * under valgrind, where test_corridor is skipped. */
static void
test_moving_agent_replanned(void **state)
{
    (void)state;
    gc_grid *g = open_grid(31, 21);
    const float r = 0.3f;
    gc_cell start[1] = {{2, 10}}, goal[1] = {{28, 10}};
    gc_scen sc;
    gc_sim_config c;
    scen_crowd_config(&c, &sc, start, goal, 1, r);
    gc_sim *s;
    gc_error err;
    assert_int_equal(gc_sim_new(&s, g, &c, &err), GC_OK);
    assert_int_equal(gc_sim_tick(s), GC_OK);
    assert_int_equal(gc_sim_agent(s, 0)->state, GC_AGENT_MOVING);
    gc_sim_stats st;
    gc_sim_stats_total(s, &st);
    uint64_t before = st.searches;
    gc_sim_enqueue(s, 0, false); /* as steer's stall replan does */
    assert_int_equal(gc_sim_tick(s), GC_OK);
    gc_sim_stats_total(s, &st);
    assert_int_equal(st.searches, before + 1);
    assert_false(s->flags[0] & GC_SIM_F_QUEUED);
    assert_int_equal(gc_sim_agent(s, 0)->state, GC_AGENT_MOVING);
    gc_sim_free(s);
    gc_scen_free(&sc);
    gc_grid_free(g);
}

/* ---- head-on meetings ------------------------------------------------- */

static void
test_head_on_open(void **state)
{
    (void)state;
    gc_grid *g = open_grid(31, 21);
    const float r = 0.4f;
    gc_cell start[2] = {{5, 10}, {25, 10}}, goal[2] = {{25, 10}, {5, 10}};
    gc_scen sc;
    gc_sim_config c;
    scen_crowd_config(&c, &sc, start, goal, 2, r);
    gc_sim *s;
    gc_error err;
    assert_int_equal(gc_sim_new(&s, g, &c, &err), GC_OK);
    double worst;
    run_checked(s, r, 60 * 30, 0.0, &worst);
    assert_all_arrived(s, 2);
    assert_true(worst <= 1e-3); /* no overlap at all, to float noise */
    gc_sim_free(s);
    gc_scen_free(&sc);
    gc_grid_free(g);
}

/*
 * The neighbour distance decides whom an agent avoids: two agents head on
 * 12 cells apart, each at 4 cells a second (radius 0.4: the default
 * distance is 2r + 4 = 4.8 cells).  By default neither sees the other in
 * the first ticks and both walk straight (no sideways velocity at all);
 * with a neighbour distance of 20 each sees the other at once and turns
 * aside.  Bad values are refused, naming the field.
 */
static float
sideways_after(float neighbour_dist, int ticks)
{
    gc_grid *g = open_grid(31, 21);
    gc_cell start[2] = {{9, 10}, {21, 10}}, goal[2] = {{25, 10}, {5, 10}};
    gc_scen sc;
    gc_sim_config c;
    scen_crowd_config(&c, &sc, start, goal, 2, 0.4f);
    c.neighbour_dist = neighbour_dist;
    gc_sim *s;
    gc_error err;
    assert_int_equal(gc_sim_new(&s, g, &c, &err), GC_OK);
    float most = 0.0f;
    for (int t = 0; t < ticks; t++) {
        assert_int_equal(gc_sim_tick(s), GC_OK);
        most = fmaxf(most, fabsf(s->body[0].vy));
        assert_true(fabsf(s->body[0].vx) > 1.0f); /* still on its way */
    }
    gc_sim_free(s);
    gc_scen_free(&sc);
    gc_grid_free(g);
    return most;
}

static void
test_neighbour_dist(void **state)
{
    (void)state;
    assert_true(sideways_after(0.0f, 10) == 0.0f);
    assert_true(sideways_after(20.0f, 10) > 0.1f);

    gc_grid *g = open_grid(8, 8);
    gc_sim_config c;
    crowd_config(&c, 2, 0.4f);
    c.neighbour_dist = -1.0f;
    gc_sim *s = NULL;
    gc_error err;
    assert_int_equal(gc_sim_new(&s, g, &c, &err), GC_ERANGE);
    assert_string_equal(err.msg, "neighbour distance must be >= 0");
    crowd_config(&c, 2, 0.4f);
    c.max_speed = NAN;
    assert_int_equal(gc_sim_new(&s, g, &c, &err), GC_ERANGE);
    assert_string_equal(err.msg, "max speed must be >= 0");
    assert_null(s);
    gc_grid_free(g);
}

/* The crush below: CRUSH_N bodies of radius CRUSH_R six to a point on
 * the four cells of a 2 x 2 square, their goals, each seeing
 * `neighbours` others. */
#define CRUSH_N 24
#define CRUSH_R 0.35f

static gc_sim *crush_sized(gc_grid **g, gc_scen *sc, int neighbours, int n,
                           int side, int threads);

static gc_sim *
crush_new(gc_grid **g, gc_scen *sc, int neighbours)
{
    return crush_sized(g, sc, neighbours, CRUSH_N, 2, 1);
}

/* n bodies on the side x side cells of a square, with `threads`, their
 * slots renumbered every crush_reorder seconds (src/sim-order.c). */
static float crush_reorder = (float)GC_SIM_REORDER_S;
static gc_sim *
crush_sized(gc_grid **g, gc_scen *sc, int neighbours, int n, int side,
            int threads)
{
    *g = open_grid(21, 21);
    gc_cell start[256], goal[256];
    assert_true(n <= 256);
    for (int i = 0; i < n; i++)
        start[i] = goal[i] =
            (gc_cell){10 + i % side, 10 + (i / side) % side};
    gc_sim_config c;
    scen_crowd_config(&c, sc, start, goal, (size_t)n, CRUSH_R);
    c.neighbours = neighbours;
    c.threads = threads;
    c.plan_budget = 256; /* all plan in the first tick, whatever the split */
    c.reorder = crush_reorder;
    gc_sim *s;
    gc_error err;
    assert_int_equal(gc_sim_new(&s, *g, &c, &err), GC_OK);
    return s;
}

/*
 * A crush ORCA alone untangles slowly: 24 bodies (radius 0.35) start six
 * to a point on the four cells of a 2 x 2 square, their goals.  With
 * more bodies on top of each other than the four neighbours it sees, its
 * linear program is infeasible.  Separation (sim-crowd.c) pushes them
 * apart: after 12 ticks (0.2 s) and from then on, no overlap is deeper
 * than 5% of 2r.  (ORCA alone: still 31% deep at tick 12.)
 */
static void
test_crush_separation(void **state)
{
    (void)state;
    const float r = CRUSH_R;
    gc_grid *g;
    gc_scen sc;
    gc_sim *s = crush_new(&g, &sc, 4);
    assert_int_equal(gc_sim_tick(s), GC_OK);
    assert_true(deepest(s, r) > 0.99); /* on top of each other */
    double worst = 0.0;
    for (int t = 1; t < 60; t++) {
        assert_int_equal(gc_sim_tick(s), GC_OK);
        assert_out_of_walls(s, r);
        if (t >= 11)
            worst = fmax(worst, deepest(s, r));
    }
    printf("# crush: deepest overlap %.3f of 2r from tick 12\n", worst);
    assert_true(worst <= 0.05);
    gc_sim_free(s);
    gc_scen_free(&sc);
    gc_grid_free(g);
}

/*
 * The same crush with the default 10 neighbours, seen pair by pair: bodies pushed about in it (by
 * their own infeasible programs and by separation's pushes) must not be
 * driven deeper into each other.  After every tick, no pair is deeper
 * than 8% of 2r (the contacts pass, sim-crowd.c) or than it was when the
 * tick started, whichever is more, but for what the pass's four sweeps
 * leave (a hundredth of 2r here).  Without the pass: 127 pairs went
 * deeper, by up to 0.65 of 2r.
 */
static void
test_crush_contacts(void **state)
{
    (void)state;
    const float r = CRUSH_R;
    enum { N = CRUSH_N };
    gc_grid *g;
    gc_scen sc;
    gc_sim *s = crush_new(&g, &sc, 10);
    double before[N][N];
    int deeper = 0, short_moves = 0;
    double most = 0.0;
    for (int t = 0; t < 120; t++) {
        /* Every move counts as travelled, the pass's too: no agent
         * moves further in a tick than its travelled grows. */
        gc_vec2 from[N];
        double trav[N];
        for (int i = 0; i < N; i++) {
            from[i] = gc_sim_agent(s, (size_t)i)->pos;
            trav[i] = gc_sim_agent(s, (size_t)i)->travelled;
        }
        for (int i = 0; i < N; i++)
            for (int j = i + 1; j < N; j++) {
                gc_vec2 a = gc_sim_agent(s, i)->pos;
                gc_vec2 b = gc_sim_agent(s, j)->pos;
                before[i][j] = (2.0 * r - hypot(a.x - b.x, a.y - b.y)) / (2 * r);
            }
        assert_int_equal(gc_sim_tick(s), GC_OK);
        assert_out_of_walls(s, r);
        for (int i = 0; i < N; i++) {
            const gc_agent *a = gc_sim_agent(s, (size_t)i);
            double moved = hypot(a->pos.x - from[i].x, a->pos.y - from[i].y);
            short_moves += a->travelled - trav[i] < moved - 1e-5;
        }
        for (int i = 0; i < N; i++)
            for (int j = i + 1; j < N; j++) {
                gc_vec2 a = gc_sim_agent(s, i)->pos;
                gc_vec2 b = gc_sim_agent(s, j)->pos;
                double d = (2.0 * r - hypot(a.x - b.x, a.y - b.y)) / (2 * r);
                double past = d - fmax(0.08, before[i][j]);
                if (past > 1e-4) {
                    deeper++;
                    most = fmax(most, past);
                }
            }
    }
    printf("# crush: %d pairs went deeper than the cap, by up to %.3f of 2r\n",
           deeper, most);
    assert_true(most <= 0.02);
    printf("# crush: %d agent-ticks moved further than they travelled\n",
           short_moves);
    assert_int_equal(short_moves, 0);
    gc_sim_free(s);
    gc_scen_free(&sc);
    gc_grid_free(g);
}

/* A crush of CRUSH_BIG bodies (three blocks of slots) on `threads`
 * workers, 90 ticks on: their positions into pos (x, y each). */
#define CRUSH_BIG 160
static void
crush_run(int threads, float *pos)
{
    gc_grid *g;
    gc_scen sc;
    gc_sim *s = crush_sized(&g, &sc, 10, CRUSH_BIG, 4, threads);
    static float from[2 * CRUSH_BIG];
    positions(s, from, CRUSH_BIG);
    for (int t = 0; t < 90; t++)
        assert_int_equal(gc_sim_tick(s), GC_OK);
    positions(s, pos, CRUSH_BIG);
    /* The pile spread: most moved half a cell (158 of 160). */
    assert_true(moved_from(from, pos, CRUSH_BIG, 0.5f) >= CRUSH_BIG / 2);
    gc_sim_free(s);
    gc_scen_free(&sc);
    gc_grid_free(g);
}

/* The contacts pass runs after the workers, in the ids' order: the
 * crush, where it acts, ends bit-identical for 1, 2 and 3 workers, and
 * with its slots renumbered every other tick (where bodies on one point
 * are told apart by id, not by slot). */
static void
test_crush_threads_identical(void **state)
{
    (void)state;
    float pos[4][2 * CRUSH_BIG];
    for (int k = 0; k < 3; k++)
        crush_run(k + 1, pos[k]);
    crush_reorder = 2.0f / 60.0f;
    crush_run(2, pos[3]);
    crush_reorder = (float)GC_SIM_REORDER_S;
    for (int k = 1; k < 4; k++)
        assert_memory_equal(pos[0], pos[k], sizeof pos[0]);
}

/* The crush, where most programs are infeasible with bodies overlapping,
 * ends bit-identical whether the crowd hands the solver the overlaps it
 * found (gc_sim_crowd_overlaps_known) or the solver tests them itself. */
static void
test_crush_overlaps_known(void **state)
{
    (void)state;
    float pos[2][2 * CRUSH_BIG];
    for (int k = 0; k < 2; k++) {
        gc_sim_crowd_overlaps_known = k == 0;
        crush_run(1, pos[k]);
    }
    gc_sim_crowd_overlaps_known = true;
    assert_memory_equal(pos[0], pos[1], sizeof pos[0]);
}

static const char *corridor1[] = {
    "@@@@@@@@@@@@@@@@@@@@@@@@@@", "@.....@@@@@@@@@@@@@@.....@",
    "@.....@@@@@@@@@@@@@@.....@", "@........................@",
    "@.....@@@@@@@@@@@@@@.....@", "@.....@@@@@@@@@@@@@@.....@",
    "@@@@@@@@@@@@@@@@@@@@@@@@@@",
};

static void
test_head_on_corridor(void **state)
{
    (void)state;
    gc_grid *g = grid_from(corridor1, 26, 7);
    const float r = 0.35f;
    gc_cell start[2] = {{2, 3}, {23, 3}}, goal[2] = {{23, 3}, {2, 3}};
    gc_scen sc;
    gc_sim_config c;
    scen_crowd_config(&c, &sc, start, goal, 2, r);
    gc_sim *s;
    gc_error err;
    assert_int_equal(gc_sim_new(&s, g, &c, &err), GC_OK);
    int t = run_checked(s, r, 60 * 60, -1.0, NULL);
    assert_all_arrived(s, 2);
    printf("# one-cell corridor resolved in %d ticks\n", t);
    gc_sim_free(s);
    gc_scen_free(&sc);
    gc_grid_free(g);
}

/* Two rooms joined by a passage one cell wide and eight long. */
static const char *two_rooms[] = {
    "@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@", "@......@@@@@@@@@@@@@@@@......@",
    "@......@@@@@@@@@@@@@@@@......@", "@......@@@@@@@@@@@@@@@@......@",
    "@............................@", "@......@@@@@@@@@@@@@@@@......@",
    "@......@@@@@@@@@@@@@@@@......@", "@......@@@@@@@@@@@@@@@@......@",
    "@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@",
};

/* 40 wanderers (radius 0.3, seed 7) in the two rooms, on `threads`
 * workers; *g gets the grid (the caller frees both). */
static gc_sim *
passage_sim(gc_grid **g, int threads)
{
    *g = grid_from(two_rooms, 30, 9);
    gc_sim_config c;
    crowd_config(&c, 40, 0.3f);
    c.seed = 7;
    c.threads = threads;
    gc_sim *s;
    gc_error err;
    assert_int_equal(gc_sim_new(&s, *g, &c, &err), GC_OK);
    return s;
}

/*
 * Wanderers crossing a one-cell passage 16 cells long from both ends: the
 * yield rule untangles a pair, not two queues pressing into the passage
 * from both ends.  A blocked wanderer draws a new goal (its goal is its
 * own choice; about half lie back the way it came), and plans avoid the
 * cells where agents are stalled (sim-jam.c), so the passage drains.
 * Sampled every simulated second for two minutes: no wanderer goes 30 s
 * (the issue's target) without progress, and the crowd keeps reaching
 * goals.  Before those rules: 44 s and 166 goals; with them 19 s and
 * 917.
 */
static void
test_wanderers_passage(void **state)
{
    (void)state;
    gc_grid *g;
    gc_sim *s = passage_sim(&g, 1);
    const float r = 0.3f;
    double longest = 0.0;
    uint64_t arrivals = 0;
    for (int sec = 0; sec < 120; sec++) {
        run_checked(s, r, 60, -1.0, NULL);
        gc_sim_stats st;
        gc_sim_stats_window(s, &st);
        arrivals += st.arrivals;
        if (st.stall_s_max > longest)
            longest = st.stall_s_max;
    }
    printf("# passage: longest stall %.1f s, %llu goals reached\n", longest,
           (unsigned long long)arrivals);
    assert_true(longest < 30.0);
    assert_true(arrivals >= 500);
    gc_sim_free(s);
    gc_grid_free(g);
}

/* Positions after 30 s of test_wanderers_passage's crowd on `threads`
 * workers, the jam scanned `slice` agents or cells a tick (0: the
 * default, the whole scan at once), into out[2n]; the jam grid must have
 * been in force. */
static void
passage_for_threads(int threads, uint32_t slice, float *out, size_t n)
{
    gc_grid *g;
    gc_sim *s = passage_sim(&g, threads);
    s->jam_slice = slice;
    float from[2 * 40];
    assert_true(n <= 40);
    positions(s, from, n);
    int jammed = 0;
    for (int t = 0; t < 30 * 60; t++) {
        assert_int_equal(gc_sim_tick(s), GC_OK);
        jammed += s->jam_active;
    }
    assert_true(jammed > 0);
    positions(s, out, n);
    /* A crowd standing still is jammed too: most walked (39 of 40). */
    assert_true(moved_from(from, out, n, 1.0f) >= n / 2);
    gc_sim_free(s);
    gc_grid_free(g);
}

/* Whether the jam grid's navigation data describes its cells: a cell has
 * a component exactly when it is open. */
static void
assert_jam_nav_fresh(const gc_sim *s)
{
    const gc_grid *j = s->jgrid;
    for (int32_t y = 0; y < j->height; y++)
        for (int32_t x = 0; x < j->width; x++) {
            bool open = gc_grid_passable(j, x, y);
            bool labelled =
                gc_nav_component(s->jnav, s->cfg.diag, (gc_cell){x, y}) != 0;
            if (open != labelled)
                fail_msg("jam grid (%d, %d): %s, but its data says %s", x, y,
                         open ? "open" : "blocked",
                         labelled ? "open" : "blocked");
        }
}

/*
 * A grid change while the jam grid is being built drops that build; the
 * next build, on the same spare grid, must not keep its stale data.  The
 * passage crowd for 40 s, with a corner of the far room painted or
 * cleared every third second between the scan and its install: whenever
 * a jam grid is in force its data matches its cells.
 */
static void
test_jam_dropped_build(void **state)
{
    (void)state;
    gc_grid *g;
    gc_sim *s = passage_sim(&g, 1);
    int checked = 0;
    for (int t = 0; t < 40 * 60; t++) {
        if (s->ticks % 180 == 15) {
            gc_cell cell = {27, 1 + (int32_t)(s->ticks / 180) % 2};
            gc_grid_set(g, cell.x, cell.y,
                        gc_grid_passable(g, cell.x, cell.y) ? GC_CELL_OBSTACLE
                                                            : GC_CELL_WALKABLE);
            assert_int_equal(gc_sim_grid_changed(s, &cell, 1), GC_OK);
        }
        assert_int_equal(gc_sim_tick(s), GC_OK);
        if (s->jam_active) {
            assert_jam_nav_fresh(s);
            checked++;
        }
    }
    assert_true(checked > 0);
    gc_sim_free(s);
    gc_grid_free(g);
}

/* Freeing the sim while the jam thread builds: the build reads the sim's
 * navigation data and planning grid, which gc_sim_free freed before it
 * joined the thread (a crash at the daemon's exit; under ASan or valgrind
 * a read after free here).  The passage crowd until a build is under way,
 * then freed at once. */
static void
test_jam_free_while_building(void **state)
{
    (void)state;
    gc_grid *g;
    gc_sim *s = passage_sim(&g, 1);
    int t = 0;
    while (!(s->jam_busy && s->jam_threaded) && t++ < 60 * 60)
        assert_int_equal(gc_sim_tick(s), GC_OK);
    assert_true(s->jam_busy && s->jam_threaded);
    gc_sim_free(s);
    gc_grid_free(g);
}

/* The jam grid is built beside the ticks (sim-jam.c) yet takes effect at
 * a fixed tick: the run is bit for bit the same on 1, 2 and 3 workers,
 * and so it is with the scan spread over ticks (five agents or cells a
 * tick), which walks a different run. */
static void
test_jam_threads_identical(void **state)
{
    (void)state;
    enum { N = 40 };
    static const uint32_t slices[] = {0, 5};
    float first[2][2 * N];
    for (int k = 0; k < 2; k++)
        for (int threads = 1; threads <= 3; threads++) {
            float p[2 * N];
            passage_for_threads(threads, slices[k], p, N);
            if (threads == 1)
                memcpy(first[k], p, sizeof p);
            else
                assert_memory_equal(p, first[k], sizeof p);
        }
    assert_true(memcmp(first[0], first[1], sizeof first[0]) != 0);
}

/* Between scans the jam scan's area map is all zero (sim-jam.c): a cell
 * left holding an area would be added to by the next scan. */
static void
assert_no_area(const gc_sim *s, const char *when)
{
    size_t cells = (size_t)s->pgrid->width * (size_t)s->pgrid->height;
    for (size_t k = 0; k < cells; k++)
        if (s->jarea[k] != 0.0f)
            fail_msg("tick %llu, cell %zu: area %g left %s",
                     (unsigned long long)s->ticks, k, (double)s->jarea[k],
                     when);
}

/*
 * A large crowd's jam scan is spread over ticks (JAM_SLICE agents or
 * cells a tick); it must find what the whole scan finds.  Two passage
 * crowds in step; at each whole second from 5 s to 40 s the first scans
 * at once, the second 1 to 7 agents or cells a call (the scan's calls
 * repeated at the same tick): the same cells jammed, in the same order,
 * the same build due at the same tick, started by the next tick after
 * its step.  They then walk on in step, and end where each other ends.
 */
static void
test_jam_sliced_scan(void **state)
{
    (void)state;
    gc_grid *ga, *gb;
    gc_sim *a = passage_sim(&ga, 1), *b = passage_sim(&gb, 1);
    size_t cells = (size_t)a->pgrid->width * (size_t)a->pgrid->height;
    int compared = 0, jammed = 0;
    for (int sec = 5; sec <= 40; sec++) {
        while (a->ticks < (uint64_t)sec * 60) {
            assert_int_equal(gc_sim_tick(a), GC_OK);
            assert_int_equal(gc_sim_tick(b), GC_OK);
        }
        if (a->jam_busy || b->jam_busy) /* a build not installed yet */
            continue;
        assert_int_equal(gc_sim_jam_update(a), GC_OK);
        assert_int_equal(a->jam_phase, JAM_IDLE);
        b->jam_slice = 1 + (uint32_t)sec % 7;
        int calls = 0;
        do {
            assert_int_equal(gc_sim_jam_update(b), GC_OK);
            calls++;
        } while (b->jam_phase != JAM_IDLE);
        b->jam_slice = 0;
        /* 40 agents, then each occupied cell judged and cleared. */
        assert_true(calls > 40 / 7);
        assert_int_equal(b->jam_marked, a->jam_marked);
        assert_int_equal(b->jam_occupied, a->jam_occupied);
        assert_memory_equal(b->jcells, a->jcells, cells);
        assert_memory_equal(b->jlist, a->jlist,
                            a->jam_marked * sizeof *a->jlist);
        assert_int_equal(b->jam_busy, a->jam_busy);
        if (a->jam_busy) {
            assert_int_equal(b->jam_due, a->jam_due);
            /* The build starts after the tick's step, not during it. */
            assert_true(a->jam_pending && !a->jam_threaded);
            assert_int_equal(gc_sim_tick(a), GC_OK);
            assert_int_equal(gc_sim_tick(b), GC_OK);
            assert_true(!a->jam_pending && a->jam_threaded);
        }
        assert_no_area(b, "after the scan");
        compared++;
        jammed += a->jam_marked > 0;
    }
    assert_true(compared >= 10);
    assert_true(jammed > 0);
    float pa[2 * 40], pb[2 * 40];
    positions(a, pa, 40);
    positions(b, pb, 40);
    assert_memory_equal(pa, pb, sizeof pa);
    gc_sim_free(a);
    gc_sim_free(b);
    gc_grid_free(ga);
    gc_grid_free(gb);
}

/*
 * A grid change in the middle of a spread scan drops it: what it read of
 * the old grid is not built, and the areas it summed go back to zero
 * (the next scan adds to them).  The passage crowd, scanned two agents or
 * cells a tick, a corner of the far room painted or cleared every 150
 * ticks: after each change no scan is under way and no area is left;
 * some changes caught a scan, later scans complete, and whenever a jam
 * grid is in force its data matches its cells.
 */
static void
test_jam_scan_dropped(void **state)
{
    (void)state;
    gc_grid *g;
    gc_sim *s = passage_sim(&g, 1);
    s->jam_slice = 2;
    int caught = 0, checked = 0;
    for (int t = 0; t < 40 * 60; t++) {
        if (t % 150 == 149) {
            caught += s->jam_phase != JAM_IDLE;
            gc_cell cell = {27, 1 + (int32_t)(t / 150) % 2};
            gc_grid_set(g, cell.x, cell.y,
                        gc_grid_passable(g, cell.x, cell.y) ? GC_CELL_OBSTACLE
                                                            : GC_CELL_WALKABLE);
            assert_int_equal(gc_sim_grid_changed(s, &cell, 1), GC_OK);
            assert_int_equal(s->jam_phase, JAM_IDLE);
            assert_no_area(s, "after a dropped scan");
        }
        assert_int_equal(gc_sim_tick(s), GC_OK);
        if (s->jam_active) {
            assert_jam_nav_fresh(s);
            checked++;
        }
    }
    printf("# spread scans: %d of 16 changes caught one, a jam in force in "
           "%d ticks\n",
           caught, checked);
    assert_true(caught >= 5);
    assert_true(checked > 0);
    gc_sim_free(s);
    gc_grid_free(g);
}

/* Two gaps in a wall, one cell each: at (4, 2) and at (4, 6). */
static const char *two_gaps[] = {
    "@@@@@@@@@@", "@...@....@", "@........@", "@...@....@", "@...@....@",
    "@...@....@", "@........@", "@...@....@", "@@@@@@@@@@",
};

/* The largest y among the waypoints of wanderer 0's plan from (1, 2) to
 * (8, 2) made once the jam scanned at tick 600 is in force, with wanderer
 * 1 standing in the upper gap then, stalled for 10 s when `jammed`.  With
 * `crowd` 2, eight more wanderers, none stalled, stand in and around the
 * gap: nine bodies of radius 0.3 in its 3 x 3 block of cells cover 0.283
 * of it, a crowd to sim-jam.c (JAM_PACKED, 0.28); with `crowd` 1, one
 * fewer (0.251). */
static float
jam_path_lowest(bool jammed, int crowd)
{
    static const gc_cell around[] = {{4, 2}, {3, 1}, {3, 2}, {3, 3},
                                     {5, 1}, {5, 2}, {5, 3}};
    gc_grid *g = grid_from(two_gaps, 10, 9);
    gc_sim_config c;
    uint32_t n = crowd == 2 ? 10 : crowd == 1 ? 9 : 2;
    crowd_config(&c, n, 0.3f);
    gc_sim *s;
    gc_error err;
    assert_int_equal(gc_sim_new(&s, g, &c, &err), GC_OK);
    s->agents[0].pos = gc_grid_cell_center(g, (gc_cell){1, 2});
    s->agents[0].goal = (gc_cell){8, 2};
    s->agents[1].pos = gc_grid_cell_center(g, (gc_cell){4, 2});
    for (uint32_t i = 2; i < n; i++) {
        gc_vec2 p = gc_grid_cell_center(g, around[(i - 2) % 7]);
        p.x += i - 2 < 7 ? -0.2f : 0.2f;
        s->agents[i].pos = p;
    }
    if (jammed) {
        s->agents[1].state = GC_AGENT_MOVING;
        s->body[1].progress_tick = 0;
        s->ticks = 600;                 /* 10 s without progress */
        s->body[0].progress_tick = 600; /* the other one is fresh */
    }
    /* The scan is at this tick; the jam takes effect half a second on
     * (sim-jam.c), and not before. */
    assert_int_equal(gc_sim_tick(s), GC_OK);
    for (int t = 1; t <= 30; t++) {
        assert_false(s->jam_active);
        assert_int_equal(gc_sim_tick(s), GC_OK);
    }
    assert_int_equal(s->jam_active, jammed || crowd == 2);
    /* Wanderer 0 plans afresh from (1, 2) to (8, 2) with it in force. */
    gc_agent_clear_path(&s->agents[0]);
    s->agents[0].pos = gc_grid_cell_center(g, (gc_cell){1, 2});
    s->agents[0].goal = (gc_cell){8, 2};
    s->agents[0].state = GC_AGENT_WAITING;
    s->body[0].progress_tick = s->ticks;
    gc_sim_enqueue(s, 0, false);
    assert_int_equal(gc_sim_tick(s), GC_OK);
    const gc_agent *a = gc_sim_agent(s, 0);
    assert_int_equal(a->state, GC_AGENT_MOVING);
    assert_int_equal(a->goal.x, 8);
    assert_int_equal(a->goal.y, 2);
    assert_true(a->wp_len > 0); /* none would read as the short way */
    float low = 0.0f;
    for (uint32_t k = 0; k < a->wp_len; k++)
        low = fmaxf(low, a->wp[k].y);
    gc_sim_free(s);
    gc_grid_free(g);
    return low;
}

/*
 * Round a jam (sim-jam.c): a wanderer stalled in the short way's gap
 * makes the next wanderer's plan take the other gap; with nobody stalled
 * there the plan goes straight through.  So does a crowd in and around
 * the gap, none of it stalled; one body fewer than a crowd does not.
 */
static void
test_jam_route(void **state)
{
    (void)state;
    assert_true(jam_path_lowest(false, 0) < 3.0f);
    assert_true(jam_path_lowest(true, 0) > 6.0f);
    assert_true(jam_path_lowest(false, 2) > 6.0f);
    assert_true(jam_path_lowest(false, 1) < 3.0f);
}

/* A dead-end pocket (row 3, open at its right end to the corridor of
 * row 1 through (8, 2)) under a wall one cell thick. */
static const char *pocket[] = {
    "@@@@@@@@@@", "@........@", "@@@@@@@@.@", "@........@", "@@@@@@@@@@",
};

/* A sim on `pocket` whose wanderers 1 to 3, stalled for 10 s in cells
 * (x0, 3) to (x0 + 2, 3), have jammed those cells in the jam grid now in
 * force; wanderer 0 stands free at (5, 1). */
static gc_sim *
pocket_jammed(gc_grid **gout, int32_t x0)
{
    gc_grid *g = grid_from(pocket, 10, 5);
    gc_sim_config c;
    crowd_config(&c, 4, 0.3f);
    gc_sim *s;
    gc_error err;
    assert_int_equal(gc_sim_new(&s, g, &c, &err), GC_OK);
    s->agents[0].pos = gc_grid_cell_center(g, (gc_cell){5, 1});
    for (uint32_t i = 1; i <= 3; i++) {
        s->agents[i].pos =
            gc_grid_cell_center(g, (gc_cell){x0 + (int32_t)i - 1, 3});
        s->agents[i].state = GC_AGENT_MOVING;
        s->body[i].progress_tick = 0;
    }
    s->ticks = 600; /* 10 s without progress: the scan jams their cells */
    s->body[0].progress_tick = 600;
    for (int t = 0; t <= 30; t++)
        assert_int_equal(gc_sim_tick(s), GC_OK);
    assert_true(s->jam_active);
    for (int32_t x = x0; x <= x0 + 2; x++)
        assert_false(gc_grid_passable(s->jgrid, x, 3));
    assert_true(gc_grid_passable(s->jgrid, 1, 1));
    *gout = g;
    return s;
}

/*
 * Out of a jam, on foot (sim-jam.c): three wanderers stalled in the
 * pocket's end jam its cells (1, 3) to (3, 3).  The one at the end plans
 * from the nearest free cell it can walk to, (4, 3) along the pocket, not
 * from the nearest by index, (1, 1) beyond the wall (which, in the same
 * component, it would press towards, into the pocket's corner).
 */
static void
test_jam_start_walkable(void **state)
{
    (void)state;
    gc_grid *g;
    gc_sim *s = pocket_jammed(&g, 1);
    s->agents[1].pos = gc_grid_cell_center(g, (gc_cell){1, 3});
    gc_cell start = {1, 3};
    assert_true(gc_sim_jam_route(s, 1, &start));
    assert_int_equal(start.x, 4);
    assert_int_equal(start.y, 3);
    gc_sim_free(s);
    gc_grid_free(g);
}

/* Wanderer 0's goal after it plans from (5, 1) to the pocket's end, (1, 3),
 * beyond the jam in (2, 3) to (4, 3); with `flow`, a goal the way the
 * crowd goes (GC_SIM_F_FLOW). */
static gc_cell
pocket_goal_after_plan(bool flow)
{
    gc_grid *g;
    gc_sim *s = pocket_jammed(&g, 2);
    gc_agent *a = &s->agents[0];
    gc_agent_clear_path(a);
    a->pos = gc_grid_cell_center(g, (gc_cell){5, 1});
    a->goal = (gc_cell){1, 3};
    a->state = GC_AGENT_WAITING;
    if (flow)
        s->flags[0] |= GC_SIM_F_FLOW;
    gc_sim_enqueue(s, 0, false);
    assert_int_equal(gc_sim_tick(s), GC_OK);
    assert_int_equal(a->state, GC_AGENT_MOVING);
    assert_false(s->flags[0] & GC_SIM_F_FLOW); /* one plan's worth */
    gc_cell goal = a->goal;
    gc_sim_free(s);
    gc_grid_free(g);
    return goal;
}

/*
 * A goal beyond a jam is drawn again on the wanderer's own side; not a
 * goal the crowd carries it to (flow_goal, sim-crowd-steer.c): that one
 * stays, and the plan goes to it.
 */
static void
test_jam_keeps_flow_goal(void **state)
{
    (void)state;
    gc_cell redrawn = pocket_goal_after_plan(false);
    assert_false(redrawn.x == 1 && redrawn.y == 3);
    gc_cell kept = pocket_goal_after_plan(true);
    assert_int_equal(kept.x, 1);
    assert_int_equal(kept.y, 3);
}

/* A room whose cell (5, 2) is a corner: walls above it and right of it. */
static const char *corner_room[] = {
    "@@@@@@@@@@@@@@@@@@@@", "@....@@@@@@@@@@@@@@@", "@.....@............@",
    "@.....@............@", "@..................@", "@..................@",
    "@@@@@@@@@@@@@@@@@@@@",
};

/* Agent 0 of a sim on corner_room, moving on a path from p to `goal`,
 * its start-of-tick arrays at p with velocity v, without progress for
 * `stalled` ticks as tick `now` (returned) starts. */
static uint64_t
steer_setup(gc_sim **out, gc_grid **gout, gc_vec2 p, gc_cell goal, gc_vec2 v,
            uint64_t stalled)
{
    gc_grid *g = grid_from(corner_room, 20, 7);
    gc_sim_config c;
    crowd_config(&c, 2, 0.3f); /* agent 1: a neighbour, far off */
    gc_sim *s;
    gc_error err;
    assert_int_equal(gc_sim_new(&s, g, &c, &err), GC_OK);
    s->ticks = 6000;
    s->agents[1].pos = (gc_vec2){18.5f, 5.5f};
    /* Nobody stalled since tick 0: the jam grid (built at this tick)
     * would block their start cells, wherever the placement put them. */
    s->body[0].progress_tick = s->body[1].progress_tick = s->ticks;
    assert_int_equal(gc_sim_tick(s), GC_OK); /* its own first goal */
    gc_agent *a = &s->agents[0];
    gc_agent_clear_path(a);
    a->goal = goal;
    a->pos = p;
    a->state = GC_AGENT_WAITING;
    gc_sim_enqueue(s, 0, false);
    for (int t = 0; t < 3 && a->state != GC_AGENT_MOVING; t++)
        assert_int_equal(gc_sim_tick(s), GC_OK); /* plans, walks a step */
    assert_int_equal(a->state, GC_AGENT_MOVING);
    a->pos = p;
    s->now[0].x = p.x;
    s->now[0].y = p.y;
    s->now[0].vx = v.x;
    s->now[0].vy = v.y;
    uint64_t now = s->ticks + 1;
    s->body[0].progress_tick = now - stalled;
    *out = s;
    *gout = g;
    return now;
}

/* Where agent 0 stands, as the tick's phases see it. */
static struct gc_sim_spot
steer_spot(const gc_sim *s)
{
    struct gc_sim_spot at;
    at.cell = gc_grid_cell_of(s->grid, s->agents[0].pos);
    at.clear_wall = 0.0f; /* near walls: every check is made */
    at.room_wall = at.room_plan = 0.0f;
    at.walls = true;
    return at;
}

/*
 * The turn-right tie-break (sim-crowd-steer.c), 3 s blocked: 60 degrees
 * to the right in the open; but not into a wall: pressed into the corner
 * at (5, 2), its way up and left past the wall above it, the turned
 * preference would head up into that wall, and it keeps its own.
 */
static void
test_turn_not_into_wall(void **state)
{
    (void)state;
    for (int corner = 0; corner < 2; corner++) {
        gc_vec2 p = corner ? (gc_vec2){5.69f, 2.31f} : (gc_vec2){12.5f, 4.5f};
        gc_cell goal = corner ? (gc_cell){3, 1} : (gc_cell){8, 4};
        gc_sim *s;
        gc_grid *g;
        uint64_t now = steer_setup(&s, &g, p, goal, (gc_vec2){0, 0}, 180);
        struct gc_sim_spot at = steer_spot(s);
        gc_vec2 pref = gc_sim_crowd_steer(s, 0, &at, now, NULL, NULL, 0);
        const gc_agent *a = &s->agents[0];
        gc_vec2 w = a->wp[a->wp_next];
        float want = atan2f(w.y - p.y, w.x - p.x);
        float got = atan2f(pref.y, pref.x);
        float turn = remainderf(got - want, 2.0f * (float)M_PI);
        printf("# %s: turned %.1f degrees\n", corner ? "corner" : "open",
               turn * 180.0f / (float)M_PI);
        assert_float_equal(turn, corner ? 0.0f : (float)M_PI / 3.0f, 1e-3f);
        /* And in the corner the preference moves it, clamped. */
        float step = sqrtf(pref.x * pref.x + pref.y * pref.y) * s->dt;
        gc_vec2 to = {p.x + pref.x * s->dt, p.y + pref.y * s->dt};
        gc_vec2 c = gc_sim_clamp_move(s->grid, p, to, 0.3f,
                                      GC_SIM_WALL_TOL * g->cell_size);
        assert_true(hypotf(c.x - p.x, c.y - p.y) > 0.5f * step);
        gc_sim_free(s);
        gc_grid_free(g);
    }
}

/*
 * Keep right not into a wall either (sim-crowd.c): agent 0, in the corner
 * at (5, 2) and blocked for 3 s, has its way left along the wall above
 * it turned 60 degrees right by the tie-break, which still walks it
 * along that wall; agent 1 comes the other way ahead of it, up and left,
 * so keep right would turn it 35 degrees more: into the wall, where ORCA
 * stops it dead.  It keeps the tie-break's turn and walks on.
 */
static void
test_keep_right_not_into_wall(void **state)
{
    (void)state;
    gc_vec2 p = {5.69f, 2.31f};
    gc_sim *s;
    gc_grid *g;
    steer_setup(&s, &g, p, (gc_cell){1, 2}, (gc_vec2){0, 0}, 180);
    s->body[0].vx = s->body[0].vy = 0.0f; /* blocked: the tick's start */
    s->agents[1].pos = (gc_vec2){3.5f, 1.5f};
    s->body[1].vx = 3.0f;
    s->body[1].vy = 0.0f;
    assert_int_equal(gc_sim_tick(s), GC_OK);
    const gc_agent *a = gc_sim_agent(s, 0);
    float dx = a->pos.x - p.x, dy = a->pos.y - p.y;
    printf("# moved (%.4f, %.4f) in a tick\n", dx, dy);
    /* The tie-break's turn along the wall: half its speed, leftwards. */
    assert_true(dx < -0.25f * a->speed * s->dt);
    gc_sim_free(s);
    gc_grid_free(g);
}

/*
 * A blocked wanderer's new goal (sim-crowd-steer.c, flow_goal) lies the
 * way it was carried: 16 cells on, or 8 where 16 would be outside the
 * room; pinned still, the way its neighbour goes; with neither moving, a
 * goal drawn at random as before.
 */
static void
test_flow_goal(void **state)
{
    (void)state;
    struct {
        gc_vec2 p, v, nv; /* nv: the neighbour's velocity */
        gc_cell want;
    } cases[] = {
        {{2.5f, 4.5f}, {2.0f, 0.0f}, {0, 0}, {18, 4}},
        {{9.5f, 4.5f}, {2.0f, 0.0f}, {0, 0}, {17, 4}},
        {{18.5f, 4.5f}, {0.0f, 0.0f}, {-3.0f, 0.0f}, {2, 4}},
        {{9.5f, 4.5f}, {0.1f, 0.0f}, {0.1f, 0.0f}, {-1, -1}},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        gc_sim *s;
        gc_grid *g;
        /* STALL_REPLAN: 5 s without progress. */
        uint64_t now =
            steer_setup(&s, &g, cases[k].p, (gc_cell){1, 4}, cases[k].v, 300);
        struct gc_sim_spot at = steer_spot(s);
        s->now[1].vx = cases[k].nv.x;
        s->now[1].vy = cases[k].nv.y;
        uint32_t ids[1] = {1};
        float d2[1] = {1.0f};
        (void)gc_sim_crowd_steer(s, 0, &at, now, ids, d2, 1);
        gc_cell goal = s->agents[0].goal;
        printf("# carried at (%.1f, %.1f): goal (%d, %d)\n", cases[k].v.x,
               cases[k].v.y, goal.x, goal.y);
        if (cases[k].want.x >= 0) {
            assert_int_equal(goal.x, cases[k].want.x);
            assert_int_equal(goal.y, cases[k].want.y);
        } else {
            assert_false(goal.x == 1 && goal.y == 4); /* a new one */
            assert_true(gc_grid_passable(s->pgrid, goal.x, goal.y));
        }
        /* to plan: asked in the step, queued by the loop after it */
        assert_true(s->flags[0] & GC_SIM_F_ASK);
        gc_sim_free(s);
        gc_grid_free(g);
    }
}

/*
 * Squeezing (sim-crowd-steer.c, gc_sim_crowd_margin), tick by tick, for a
 * wanderer: no squeeze before 5 s without progress; then the margin
 * shrinks from MARGIN to 0.9 over 10 s and stays there while the agent is
 * slow (even after a little progress); walking at half its speed it grows
 * back at the same rate.  An agent not walking, or with a goal someone
 * set, does not squeeze.
 */
static void
test_squeeze_margin(void **state)
{
    (void)state;
    gc_sim *s;
    gc_grid *g;
    uint64_t now = steer_setup(&s, &g, (gc_vec2){12.5f, 4.5f}, (gc_cell){16, 4},
                               (gc_vec2){0, 0}, 0);
    const uint64_t hz = 60, t0 = now;
    float sp = s->agents[0].speed, m = 0.0f;
    struct {
        float secs, speed; /* this long at this speed (x its own) */
        bool progress;     /* progress at every tick of it */
        float want;        /* the margin at its end */
    } steps[] = {
        {4.9f, 0.0f, false, MARGIN}, /* blocked, not yet 5 s */
        {5.1f, 0.0f, false, 1.0f},   /* 5 s of squeezing */
        {2.5f, 0.4f, true, 1.0f},    /* progress, slow: held */
        {12.5f, 0.4f, false, 0.9f},  /* blocked again, 7.5 s squeezing */
        {5.0f, 0.6f, true, 1.0f},    /* walking: grows back */
        {10.0f, 0.6f, true, MARGIN}, /* and stops at MARGIN */
    };
    s->body[0].progress_tick = now;
    for (size_t k = 0; k < sizeof steps / sizeof steps[0]; k++) {
        s->now[0].vx = steps[k].speed * sp;
        uint64_t end = now + (uint64_t)lroundf(steps[k].secs * (float)hz);
        for (; now < end; now++) {
            if (steps[k].progress)
                s->body[0].progress_tick = now;
            m = gc_sim_crowd_margin(s, 0, now);
        }
        printf("# %.1f s at %.1f x speed%s: margin %.3f at %.1f s\n",
               steps[k].secs, steps[k].speed,
               steps[k].progress ? ", progressing" : "", m,
               (double)(now - t0) / (double)hz);
        assert_float_equal(m, steps[k].want, 2e-3f);
    }
    /* No squeeze, however long pinned, for one not walking (arrived) or
     * with a goal someone set. */
    for (int k = 0; k < 2; k++) {
        assert_int_equal(s->slot[0].goal_kind, GC_SIM_GOAL_WANDER);
        if (k == 0)
            s->agents[0].state = GC_AGENT_ARRIVED;
        else
            s->slot[0].goal_kind = GC_SIM_GOAL_POINT;
        s->now[0].vx = 0.0f;
        s->body[0].progress_tick = now - 60 * hz;
        for (uint64_t e = now + 20 * hz; now < e; now++)
            m = gc_sim_crowd_margin(s, 0, now);
        assert_float_equal(m, MARGIN, 1e-6f);
        s->agents[0].state = GC_AGENT_MOVING;
        s->slot[0].goal_kind = GC_SIM_GOAL_WANDER;
    }
    gc_sim_free(s);
    gc_grid_free(g);
}

/*
 * Following (cfg.time_gap): agent 0 at (10, 10), radius 0.4, prefers
 * (2, 0).  Each neighbour is added in turn and the preference checked
 * against the rule worked by hand: no faster than the gap to the nearest
 * body ahead (in front, centre line within the two radii, not coming the
 * other way) over the time gap, never below 3% of the preferred speed,
 * the direction kept.  Without a time gap, nothing changes.
 */
static void
test_follow(void **state)
{
    (void)state;
    gc_grid *g = open_grid(31, 21);
    gc_sim_config c;
    crowd_config(&c, 8, 0.4f);
    gc_sim *s;
    gc_error err;
    assert_int_equal(gc_sim_new(&s, g, &c, &err), GC_OK);
    struct {
        float x, y, vx, vy;
        float want; /* agent 0's speed with it and those before it */
        const char *what;
    } nb[] = {
        {11.5f, 10.0f, 0.0f, 0.0f, 0.7f, "standing 1.5 ahead: gap 0.7"},
        {10.9f, 10.85f, 0.0f, 0.0f, 0.7f, "aside, centre line 0.85 off"},
        {10.9f, 10.0f, -1.0f, 0.0f, 0.7f, "0.9 ahead, coming the other way"},
        {9.2f, 10.0f, 2.0f, 0.0f, 0.7f, "behind"},
        {11.0f, 10.3f, 0.5f, 0.2f, 1.04403f - 0.8f, "going its way, 1.044"},
        {10.81f, 10.0f, 0.0f, 0.0f, 0.06f, "0.01 ahead: the floor"},
    };
    size_t n = sizeof nb / sizeof nb[0];
    uint32_t ids[8];
    float d2[8];
    s->now[0].x = 10.0f;
    s->now[0].y = 10.0f;
    for (size_t k = 0; k <= n; k++) {
        s->agents[k].radius = 0.4f;
        s->now[k].r = 0.4f;
    }
    gc_vec2 pref = {2.0f, 0.0f};
    for (size_t k = 0; k < n; k++) {
        uint32_t j = (uint32_t)k + 1;
        s->now[j].x = nb[k].x;
        s->now[j].y = nb[k].y;
        s->now[j].vx = nb[k].vx;
        s->now[j].vy = nb[k].vy;
        ids[k] = j;
        d2[k] = (nb[k].x - 10.0f) * (nb[k].x - 10.0f) +
                (nb[k].y - 10.0f) * (nb[k].y - 10.0f);
        s->cfg.time_gap = 1.0f;
        gc_vec2 v = gc_sim_crowd_follow(s, 0, pref, ids, d2, k + 1);
        printf("# + %s: (%.4f, %.4f)\n", nb[k].what, v.x, v.y);
        assert_float_equal(v.x, nb[k].want, 1e-4f);
        assert_float_equal(v.y, 0.0f, 1e-6f);
        s->cfg.time_gap = 2.0f; /* twice the gap: half the speed */
        v = gc_sim_crowd_follow(s, 0, pref, ids, d2, k + 1);
        assert_float_equal(v.x, fmaxf(nb[k].want / 2.0f, 0.06f), 1e-4f);
        s->cfg.time_gap = 0.0f;
        v = gc_sim_crowd_follow(s, 0, pref, ids, d2, k + 1);
        assert_true(v.x == pref.x && v.y == pref.y);
    }
    /* The direction is kept: the same crowd turned 90 degrees. */
    for (size_t k = 0; k < n; k++) {
        uint32_t j = (uint32_t)k + 1;
        float x = s->now[j].x - 10.0f, y = s->now[j].y - 10.0f;
        s->now[j].x = 10.0f - y;
        s->now[j].y = 10.0f + x;
        float vx = s->now[j].vx;
        s->now[j].vx = -s->now[j].vy;
        s->now[j].vy = vx;
    }
    s->cfg.time_gap = 1.0f;
    gc_vec2 v = gc_sim_crowd_follow(s, 0, (gc_vec2){0.0f, 2.0f}, ids, d2, n);
    assert_float_equal(v.x, 0.0f, 1e-4f);
    assert_float_equal(v.y, 0.06f, 1e-4f);
    gc_sim_free(s);
    gc_grid_free(g);
}

/* A corridor three cells high (rows 1 to 3). */
static const char *squeeze_corridor[] = {
    "@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@", "@..............................@",
    "@..............................@", "@..............................@",
    "@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@",
};

/*
 * Squeezing, end to end: two posts (bodies that never move: agents
 * standing stuck) across the corridor leave gaps a body fits through
 * (between them: 0.62 from each centre for radii summing to 0.6; beside
 * them 0.58 to the wall), but not at ORCA's margin (0.66).  The walker, a
 * wanderer (one that keeps its goal: no new goal when blocked), stands
 * before them until it squeezes, then passes and arrives, never in a
 * wall and never deeper into a post than 10% of 2r.
 */
static void
test_squeeze_posts(void **state)
{
    (void)state;
    gc_grid *g = grid_from(squeeze_corridor, 32, 5);
    const float r = 0.3f;
    gc_cell start[3] = {{3, 2}, {10, 1}, {10, 3}};
    gc_cell goal[3] = {{28, 2}, {10, 1}, {10, 3}};
    gc_scen sc;
    gc_sim_config c;
    scen_crowd_config(&c, &sc, start, goal, 3, r);
    gc_sim *s;
    gc_error err;
    assert_int_equal(gc_sim_new(&s, g, &c, &err), GC_OK);
    s->slot[0].goal_kind = GC_SIM_GOAL_WANDER;
    s->cfg.wander_repeat = false;
    assert_int_equal(gc_sim_tick(s), GC_OK); /* plans */
    for (uint32_t k = 1; k < 3; k++) {
        gc_agent *p = &s->agents[k];
        gc_agent_clear_path(p);
        p->state = GC_AGENT_STUCK;
        p->pos = (gc_vec2){10.5f, k == 1 ? 1.88f : 3.12f};
    }
    /* Done once the walker arrives: the posts are stuck for good. */
    int through = -1, t = 0;
    double worst = 0.0, d;
    for (; t < 60 * 40 && run_checked(s, r, 1, 0.0, &d) == 1; t++) {
        worst = d > worst ? d : worst;
        /* (By id: the slots are renumbered at 20 s.) */
        if (through < 0 && gc_sim_agent(s, 0)->pos.x > 10.5f)
            through = t;
    }
    printf("# past the posts at tick %d, arrived at tick %d, deepest %.3f "
           "of 2r\n",
           through, t, worst);
    assert_int_equal(gc_sim_agent(s, 0)->state, GC_AGENT_ARRIVED);
    assert_true(worst <= DEPTH_TOL);
    /* Not before it squeezes: 5 s blocked, then the margin must shrink
     * to 0.62 / 0.6 = 1.033, 3.3 s later. */
    assert_true(through > 60 * 8);
    gc_sim_free(s);
    gc_grid_free(g);
    free(sc.entries);
}

/*
 * Steering's visibility by the clearance map (gc_sim_visible_fast) gives
 * the cell walk's answer (gc_sim_visible) exactly: 20,000 segments of
 * every length on the rooms map and on an open field with posts, from
 * anywhere (inside walls too), with and without a step limit, and
 * without or with the byte map's room at the start (as steering passes
 * it), or a bound lower still (as steering carries it far from walls).  Both
 * answers occur in hundreds or thousands, and the bound alone decides thousands
 * on the field.
 */
static void
visible_fast_exact(gc_grid *g, int32_t w, int32_t h, int each_min,
                   int shortcut_min, int proofs_min)
{
    gc_nav *n;
    assert_int_equal(gc_nav_new(&n, g), GC_OK);
    uint64_t seed = 12345;
    int seen[2] = {0, 0}, shortcut = 0, proofs = 0, used = 0;
    float cs = g->cell_size, slack = GC_SIM_SIGHT_SLACK * cs;
    /* Carried from each segment to the next. */
    gc_sim_sight kept = {{0, 0}, {0, 0}, 0, 0};
    for (int k = 0; k < 20000; k++) {
        float v[4];
        for (int j = 0; j < 4; j++)
            v[j] = (float)(gc_sim_splitmix(&seed) % 100000) / 100000.0f *
                   (float)(j % 2 ? h : w);
        gc_vec2 a = {v[0], v[1]}, b = {v[2], v[3]};
        int64_t steps = k % 2 ? INT64_MAX : 1 + (int64_t)(k % 17);
        bool want = gc_sim_visible(g, a, b, steps);
        float low = (gc_nav_clear_low(n, gc_grid_cell_of(g, a)) - 0.92f) * cs;
        if (gc_sim_visible_fast(n, g, a, b, steps, -INFINITY) != want ||
            gc_sim_visible_fast(n, g, a, b, steps, low) != want ||
            gc_sim_visible_fast(n, g, a, b, steps, low - 3.0f * cs) != want)
            fail_msg("(%f, %f) -> (%f, %f), %lld steps: walk says %d", a.x, a.y,
                     b.x, b.y, (long long)steps, want);
        /* Kept sight: the walk's answer, whatever proof it holds (one for
         * another segment, from the iterations before, must not apply);
         * a proof it keeps holds from anywhere within the slack, the rim
         * included, as the walk says and as the kept answer says, and not
         * for another waypoint, step limit or generation of the maps.
         * (The discs are smaller than the walk's room by most of a cell,
         * so the walk alone would not notice a proof that carried a
         * quarter cell further than the narrowed march showed.) */
        gc_sim_sight before = kept;
        if (gc_sim_visible_kept(n, g, a, b, steps, low, &kept, 1) != want)
            fail_msg("kept: (%f, %f) -> (%f, %f), %lld steps: walk says %d",
                     a.x, a.y, b.x, b.y, (long long)steps, want);
        if (memcmp(&kept, &before, sizeof kept) != 0) {
            assert_true(want);
            proofs++;
            for (int j = 0; j < 16; j++) {
                float ang =
                    (float)(gc_sim_splitmix(&seed) % 3600) * 0.001745329f;
                float u = (float)(gc_sim_splitmix(&seed) % 1000) / 1000.0f;
                float rad = slack * sqrtf(0.98f) * 0.9999f * (j < 8 ? 1.0f : u);
                gc_vec2 a2 = {a.x + rad * cosf(ang), a.y + rad * sinf(ang)};
                gc_sim_sight held = kept;
                if (!gc_sim_visible(g, a2, b, steps) ||
                    !gc_sim_visible_kept(n, g, a2, b, steps, -INFINITY, &kept,
                                         1))
                    fail_msg("proof from (%f, %f) to (%f, %f), %lld steps, "
                             "fails at (%f, %f)",
                             a.x, a.y, b.x, b.y, (long long)steps, a2.x, a2.y);
                used += memcmp(&kept, &held, sizeof kept) == 0;
                /* Not for another waypoint, nor for another step limit. */
                gc_vec2 b2 = {(float)(gc_sim_splitmix(&seed) % 100000) /
                                  100000.0f * (float)w,
                              (float)(gc_sim_splitmix(&seed) % 100000) /
                                  100000.0f * (float)h};
                int64_t other = steps == INT64_MAX ? 1 + j % 3 : INT64_MAX;
                gc_sim_sight k2 = held, k3 = held;
                if (gc_sim_visible_kept(n, g, a2, b2, steps, -INFINITY, &k2,
                                        1) !=
                        gc_sim_visible(g, a2, b2, steps) ||
                    gc_sim_visible_kept(n, g, a2, b, other, -INFINITY, &k3,
                                        1) != gc_sim_visible(g, a2, b, other))
                    fail_msg("a proof from (%f, %f) to (%f, %f), %lld steps, "
                             "misused",
                             a.x, a.y, b.x, b.y, (long long)steps);
                kept = held;
            }
            /* Not for the next generation of the maps. */
            gc_sim_sight stale = kept;
            (void)gc_sim_visible_kept(n, g, a, b, steps, low, &stale, 2);
            assert_int_equal(stale.gen, 2);
        }
        float dx = b.x - a.x, dy = b.y - a.y;
        float need = sqrtf(dx * dx + dy * dy);
        if (steps < INT64_MAX / 2 &&
            ((float)steps + 2.0f) * 1.4142136f * cs < need)
            need = ((float)steps + 2.0f) * 1.4142136f * cs;
        shortcut += low > 0.25f * cs && low >= need;
        seen[want]++;
    }
    printf("# visible %d, not %d, by the bound alone %d; %d proofs kept, "
           "used %d times\n",
           seen[1], seen[0], shortcut, proofs, used);
    assert_true(seen[0] > each_min && seen[1] > each_min);
    assert_true(shortcut >= shortcut_min);
    assert_true(proofs >= proofs_min);
    assert_true(used >= 8 * proofs);
    gc_nav_free(n);
}

static void
test_visible_fast_exact(void **state)
{
    (void)state;
    gc_grid *g = grid_from(rooms, 32, 13);
    visible_fast_exact(g, 32, 13, 1000, 50, 1);
    gc_grid_free(g);
    /* An open field 90 cells square with a post every 30 cells: rooms
     * as wide as the bound's reach. */
    assert_int_equal(gc_grid_new(&g, 90, 90), GC_OK);
    for (int32_t y = 15; y < 90; y += 30)
        for (int32_t x = 15; x < 90; x += 30)
            gc_grid_set(g, x, y, GC_CELL_OBSTACLE);
    visible_fast_exact(g, 90, 90, 500, 1000, 1000);
    gc_grid_free(g);
}

/* The reference for test_wall_segments_exact: the cell-by-cell scan the
 * edge map replaced, asking every pair of cells across each boundary. */
static size_t
wall_segments_scan(const gc_grid *g, gc_vec2 p, float range,
                   gc_orca_segment *buf, size_t cap)
{
    float cs = g->cell_size;
    int32_t x0 = (int32_t)floorf((p.x - range) / cs);
    int32_t x1 = (int32_t)floorf((p.x + range) / cs);
    int32_t y0 = (int32_t)floorf((p.y - range) / cs);
    int32_t y1 = (int32_t)floorf((p.y + range) / cs);
    size_t m = 0;
    for (int pass = 0; pass < 2; pass++) {
        /* pass 0: rows of horizontal boundaries; 1: columns. */
        int32_t lo = pass ? x0 : y0, hi = pass ? x1 : y1;
        int32_t alo = pass ? y0 : x0, ahi = pass ? y1 : x1;
        for (int32_t u = lo; u <= hi + 1 && m < cap; u++) {
            int run = 0;
            int32_t from = 0;
            for (int32_t v = alo; v <= ahi + 1; v++) {
                int kind = 0;
                if (v <= ahi) {
                    bool a = pass ? gc_sim_open_cell(g, u - 1, v)
                                  : gc_sim_open_cell(g, v, u - 1);
                    bool b = pass ? gc_sim_open_cell(g, u, v)
                                  : gc_sim_open_cell(g, v, u);
                    kind = a == b ? 0 : (a ? 1 : 2);
                }
                if (kind == run)
                    continue;
                if (run != 0 && m < cap)
                    buf[m++] =
                        pass ? (gc_orca_segment){{(float)u * cs,
                                                  (float)from * cs},
                                                 {(float)u * cs, (float)v * cs}}
                             : (gc_orca_segment){
                                   {(float)from * cs, (float)u * cs},
                                   {(float)v * cs, (float)u * cs}};
                run = kind;
                from = v;
            }
        }
    }
    return m;
}

/* The wall segments from the edge map are the cell-by-cell scan's, in the
 * same order, bit for bit: on the rooms map and on a random one (a third
 * of the cells blocked), at random points and ranges (some reaching past
 * the grid's edges), with caps that cut the list short; and again after
 * the grid changes and the map is rebuilt. */
static void
test_wall_segments_exact(void **state)
{
    (void)state;
    gc_grid *maps[2] = {grid_from(rooms, 32, 13), grid_from(rooms, 32, 13)};
    uint64_t seed = 777;
    for (int32_t y = 0; y < 13; y++)
        for (int32_t x = 0; x < 32; x++)
            maps[1]->cells[gc_grid_index(maps[1], x, y)] =
                gc_sim_splitmix(&seed) % 3 == 0 ? GC_CELL_OBSTACLE
                                                : GC_CELL_WALKABLE;
    maps[1]->cell_size = 0.5f;
    size_t total = 0;
    for (int mi = 0; mi < 2; mi++) {
        gc_grid *g = maps[mi];
        gc_sim_edges e = {0};
        for (int round = 0; round < 2; round++) {
            assert_int_equal(gc_sim_edges_build(&e, g), GC_OK);
            float cs = g->cell_size;
            for (int k = 0; k < 5000; k++) {
                gc_vec2 p = {(float)(gc_sim_splitmix(&seed) % 100000) /
                                 100000.0f * 32.0f * cs,
                             (float)(gc_sim_splitmix(&seed) % 100000) /
                                 100000.0f * 13.0f * cs};
                float range =
                    (float)(gc_sim_splitmix(&seed) % 1000) / 100.0f * cs;
                size_t cap =
                    k % 5 == 0 ? 1 + (size_t)(k % 7) : GC_ORCA_MAX_SEGMENTS;
                gc_orca_segment want[GC_ORCA_MAX_SEGMENTS],
                    got[GC_ORCA_MAX_SEGMENTS];
                size_t nw = wall_segments_scan(g, p, range, want, cap);
                size_t ng = gc_sim_wall_segments(&e, cs, p, range, got, cap);
                if (ng != nw || memcmp(got, want, nw * sizeof *got) != 0)
                    fail_msg("map %d round %d (%f, %f) range %f cap %zu: %zu "
                             "segments, the scan finds %zu",
                             mi, round, p.x, p.y, range, cap, ng, nw);
                total += nw;
            }
            /* A change: a block of walls opened, others closed. */
            for (int32_t y = 3; y < 9; y++)
                for (int32_t x = 10; x < 20; x++)
                    g->cells[gc_grid_index(g, x, y)] =
                        (x + y) % 4 == 0 ? GC_CELL_OBSTACLE : GC_CELL_WALKABLE;
        }
        gc_sim_edges_free(&e);
        gc_grid_free(g);
    }
    printf("# %zu segments compared\n", total);
    assert_true(total > 10000);
}

/* The kept segments (gc_sim_wall_segments_kept) are the scan's, bit for
 * bit, call after call: walkers taking small steps (their boxes mostly
 * the last one's, so most answers come from what they kept: counted),
 * each with ranges of its own that change now and then, caps that cut
 * the list short, and the grid changed and its edges rebuilt between
 * rounds (what they kept must then be scanned again). */
/* The placement order's curve (gc_sim_hilbert_index) visits every cell
 * of a 64 x 64 square once, each step to a side neighbour: a Hilbert
 * curve, whose runs of indices stay in small squares. */
static void
test_hilbert_curve(void **state)
{
    (void)state;
    enum { B = 6, S = 1 << B };
    int32_t at_x[S * S], at_y[S * S];
    memset(at_x, 0xff, sizeof at_x);
    for (uint32_t y = 0; y < S; y++)
        for (uint32_t x = 0; x < S; x++) {
            uint64_t d = gc_sim_hilbert_index(B, x, y);
            assert_true(d < S * S);
            assert_int_equal(at_x[d], -1); /* once each */
            at_x[d] = (int32_t)x;
            at_y[d] = (int32_t)y;
        }
    for (int d = 1; d < S * S; d++)
        assert_int_equal(abs(at_x[d] - at_x[d - 1]) + abs(at_y[d] - at_y[d - 1]),
                         1);
    assert_true(gc_sim_hilbert_index(1, 0, 0) == 0);
    assert_true(gc_sim_hilbert_index(16, 65535, 0) == 65536ull * 65536ull - 1);
}

/*
 * The clearance bytes an agent keeps (gc_sim_spot_moved, carried from
 * cell to cell far from walls; gc_sim_spot_read) never exceed the maps'
 * at its cell: 200 walkers, 1,500 steps each to a neighbouring cell (now
 * and then a jump), over a field with walls and a planning grid with
 * more, the walls' map and the planning grid's apart and the same, and
 * across grid changes (a new generation).  Most steps are carried, and
 * many carried bytes are below the maps' (the bound is not the map).
 */
static void
spot_kept_bounds(bool same_maps)
{
    enum { W = 240, WALKERS = 200, STEPS = 1500 };
    gc_grid *g, *pg;
    assert_int_equal(gc_grid_new(&g, W, W), GC_OK);
    for (int32_t x = 20; x < 140; x++)
        gc_grid_set(g, x, 40, GC_CELL_OBSTACLE);
    gc_grid_set(g, 100, 110, GC_CELL_OBSTACLE);
    assert_int_equal(gc_grid_clone(&pg, g), GC_OK);
    for (int32_t y = 80; y < 130; y++)
        gc_grid_set(pg, 30, y, GC_CELL_OBSTACLE);
    gc_nav *wn, *pn;
    assert_int_equal(gc_nav_new(&wn, g), GC_OK);
    if (same_maps)
        pn = wn;
    else
        assert_int_equal(gc_nav_new(&pn, pg), GC_OK);
    uint64_t seed = 777;
    gc_sim_spot_kept kept[WALKERS];
    gc_cell at[WALKERS];
    memset(kept, 0, sizeof kept);
    for (int w = 0; w < WALKERS; w++)
        at[w] = (gc_cell){(int32_t)(gc_sim_splitmix(&seed) % W),
                          (int32_t)(gc_sim_splitmix(&seed) % W)};
    size_t steps = 0, carried = 0, below = 0;
    uint32_t gen = 1;
    for (int round = 0; round < 3; round++, gen++) {
        for (int t = 0; t < STEPS; t++)
            for (int w = 0; w < WALKERS; w++) {
                uint64_t r = gc_sim_splitmix(&seed);
                int32_t jump = r % 53 == 0 ? 3 : 1;
                at[w].x += jump * ((int32_t)((r >> 8) % 3) - 1);
                at[w].y += jump * ((int32_t)((r >> 24) % 3) - 1);
                at[w].x = at[w].x < -2 ? -2 : at[w].x > W + 1 ? W + 1 : at[w].x;
                at[w].y = at[w].y < -2 ? -2 : at[w].y > W + 1 ? W + 1 : at[w].y;
                gc_sim_spot_kept *k = &kept[w];
                bool moved = k->gen == gen && (k->x != at[w].x || k->y != at[w].y);
                if (gc_sim_spot_moved(k, gen, at[w]))
                    carried += moved;
                else
                    gc_sim_spot_read(k, gen, wn, pn, at[w]);
                uint8_t ww = gc_nav_clear4(wn, at[w]), pp = gc_nav_clear4(pn, at[w]);
                if (k->x != at[w].x || k->y != at[w].y || k->gen != gen ||
                    k->wall4 > ww || k->plan4 > pp)
                    fail_msg("round %d step %d walker %d at (%d, %d): kept %u "
                             "and %u at (%d, %d), the maps %u and %u",
                             round, t, w, at[w].x, at[w].y, k->wall4, k->plan4,
                             k->x, k->y, ww, pp);
                below += k->wall4 < ww;
                steps++;
            }
        /* A change: a wall into the field, where walkers are. */
        for (int32_t y = 100; y < 240; y++)
            gc_grid_set(g, 120 + 30 * round, y, GC_CELL_OBSTACLE);
        assert_int_equal(gc_nav_update(wn, g), GC_OK);
    }
    printf("# %zu steps, %zu carried, %zu below the map\n", steps, carried,
           below);
    assert_true(carried > steps / 10);
    assert_true(below > carried / 4);
    gc_nav_free(wn);
    if (!same_maps)
        gc_nav_free(pn);
    gc_grid_free(g);
    gc_grid_free(pg);
}

static void
test_spot_kept_bounds(void **state)
{
    (void)state;
    spot_kept_bounds(false);
    spot_kept_bounds(true);
}

static void
test_wall_segments_kept(void **state)
{
    (void)state;
    gc_grid *g = grid_from(rooms, 32, 13);
    uint64_t seed = 4242;
    gc_sim_edges e = {0};
    enum { WALKERS = 40, STEPS = 400 };
    gc_sim_walls kept[WALKERS];
    gc_vec2 at[WALKERS];
    float range[WALKERS];
    memset(kept, 0, sizeof kept);
    float cs = g->cell_size;
    for (int w = 0; w < WALKERS; w++) {
        at[w] = (gc_vec2){(float)(gc_sim_splitmix(&seed) % 3200) / 100.0f * cs,
                          (float)(gc_sim_splitmix(&seed) % 1300) / 100.0f * cs};
        range[w] = (float)(1 + gc_sim_splitmix(&seed) % 4) * 0.75f * cs;
    }
    size_t calls = 0, hits = 0, segs = 0;
    for (int round = 0; round < 3; round++) {
        assert_int_equal(gc_sim_edges_build(&e, g), GC_OK);
        for (int t = 0; t < STEPS; t++)
            for (int w = 0; w < WALKERS; w++) {
                at[w].x += ((float)(gc_sim_splitmix(&seed) % 201) - 100.0f) *
                           0.001f * cs;
                at[w].y += ((float)(gc_sim_splitmix(&seed) % 201) - 100.0f) *
                           0.001f * cs;
                if (gc_sim_splitmix(&seed) % 97 == 0)
                    range[w] = (float)(1 + gc_sim_splitmix(&seed) % 4) * 0.75f * cs;
                size_t cap = gc_sim_splitmix(&seed) % 13 == 0
                                 ? 1 + (size_t)(gc_sim_splitmix(&seed) % 4)
                                 : GC_ORCA_MAX_SEGMENTS;
                gc_orca_segment want[GC_ORCA_MAX_SEGMENTS],
                    buf[GC_ORCA_MAX_SEGMENTS];
                const gc_orca_segment *got = NULL;
                size_t nw = wall_segments_scan(g, at[w], range[w], want, cap);
                size_t ng = gc_sim_wall_segments_kept(
                    &e, cs, at[w], range[w], buf, cap, &kept[w], &got);
                calls++;
                hits += got == kept[w].seg;
                segs += nw;
                if (ng != nw || memcmp(got, want, nw * sizeof *got) != 0)
                    fail_msg("round %d step %d walker %d (%f, %f) range %f cap "
                             "%zu: %zu segments (%s), the scan finds %zu",
                             round, t, w, at[w].x, at[w].y, range[w], cap, ng,
                             got == kept[w].seg ? "kept" : "scanned", nw);
            }
        /* A change: walls opened and closed where the walkers are. */
        for (int32_t y = 2; y < 11; y++)
            for (int32_t x = 4; x < 28; x++)
                if ((x * 7 + y * 3 + round) % 5 == 0)
                    g->cells[gc_grid_index(g, x, y)] =
                        g->cells[gc_grid_index(g, x, y)] == GC_CELL_OBSTACLE
                            ? GC_CELL_WALKABLE
                            : GC_CELL_OBSTACLE;
    }
    printf("# %zu calls, %zu answered from what was kept, %zu segments\n",
           calls, hits, segs);
    assert_true(hits > calls / 2);
    assert_true(hits < calls);
    assert_true(segs > calls);
    gc_sim_edges_free(&e);
    gc_grid_free(g);
}

/* ---- threads ----------------------------------------------------------- */

/* Turn rates given by slot in the thread runs with rates: 0 (at once),
 * 90, 200 and 720 degrees per second. */
static const float thread_rates[] = {0.0f, 90.0f, 200.0f, 720.0f};

/* Positions after 400 ticks in out[2n]; with `heads`, the headings too
 * (heads[n]), and every agent's turn rate taken from thread_rates.  The
 * count budget of plans a tick: thread_budget (0: the default). */
static uint32_t thread_budget;
static void
run_for_threads(int threads, float *out, size_t n, float *heads)
{
    gc_grid *g = grid_from(maze, 24, 12);
    gc_sim_config c;
    crowd_config(&c, (uint32_t)n, 0.35f);
    c.threads = threads;
    if (thread_budget > 0)
        c.plan_budget = thread_budget;
    gc_sim *s;
    gc_error err;
    assert_int_equal(gc_sim_new(&s, g, &c, &err), GC_OK);
    for (size_t i = 0; heads != NULL && i < n; i++)
        assert_int_equal(gc_sim_set_turn_rate(s, gc_sim_handle(s, i),
                                              thread_rates[i % 4], &err),
                         GC_OK);
    float from[2 * 60];
    assert_true(n <= 60);
    positions(s, from, n);
    for (int t = 0; t < 400; t++)
        assert_int_equal(gc_sim_tick(s), GC_OK);
    positions(s, out, n);
    for (size_t i = 0; heads != NULL && i < n; i++)
        heads[i] = gc_sim_agent(s, i)->heading;
    /* Most walked off (58 or 60 of 60). */
    assert_true(moved_from(from, out, n, 1.0f) >= n / 2);
    gc_sim_free(s);
    gc_grid_free(g);
}

static void
test_threads_identical(void **state)
{
    (void)state;
    enum { N = 60 };
    float p1[2 * N], p2[2 * N], p3[2 * N];
    run_for_threads(1, p1, N, NULL);
    run_for_threads(2, p2, N, NULL);
    run_for_threads(3, p3, N, NULL);
    assert_memory_equal(p1, p2, sizeof p1);
    assert_memory_equal(p1, p3, sizeof p1);
}

/* The same with a budget of 2 plans a tick, which the 60 wanderers'
 * requests exceed all along: the tick's budget serves the first requests
 * to come in, whichever workers' queues hold them. */
static void
test_threads_identical_budget(void **state)
{
    (void)state;
    enum { N = 60 };
    float p1[2 * N], p2[2 * N], p3[2 * N];
    thread_budget = 2;
    run_for_threads(1, p1, N, NULL);
    run_for_threads(2, p2, N, NULL);
    run_for_threads(3, p3, N, NULL);
    thread_budget = 0;
    assert_memory_equal(p1, p2, sizeof p1);
    assert_memory_equal(p1, p3, sizeof p1);
}

/* The same with turn rates (each agent turns its own heading during the
 * tick): positions and headings bit-identical for 1, 2 and 3 workers. */
static void
test_threads_identical_turning(void **state)
{
    (void)state;
    enum { N = 60 };
    float p1[2 * N], p2[2 * N], p3[2 * N], h1[N], h2[N], h3[N];
    run_for_threads(1, p1, N, h1);
    run_for_threads(2, p2, N, h2);
    run_for_threads(3, p3, N, h3);
    assert_memory_equal(p1, p2, sizeof p1);
    assert_memory_equal(p1, p3, sizeof p1);
    assert_memory_equal(h1, h2, sizeof h1);
    assert_memory_equal(h1, h3, sizeof h1);
}

/* The same with the start-of-tick copy and the index shared out among
 * the workers however few the agents (gc_sim_prep_shared lowered): the
 * runs for 1, 2 and 3 workers are bit-identical to each other and to the
 * loop's thread doing it all. */
static void
test_threads_identical_shared_prepare(void **state)
{
    (void)state;
    enum { N = 60 };
    float p0[2 * N], p1[2 * N], p2[2 * N], p3[2 * N];
    run_for_threads(2, p0, N, NULL);
    unsigned keep = gc_sim_prep_shared;
    gc_sim_prep_shared = 1;
    run_for_threads(1, p1, N, NULL);
    run_for_threads(2, p2, N, NULL);
    run_for_threads(3, p3, N, NULL);
    gc_sim_prep_shared = keep;
    assert_memory_equal(p0, p1, sizeof p0);
    assert_memory_equal(p0, p2, sizeof p0);
    assert_memory_equal(p0, p3, sizeof p0);
}

/* The index built in parts (gc_orca_grid_shape, _count, _offsets, _fill:
 * as gc_sim_crowd_prepare shares it out) answers every query as
 * gc_orca_grid_build's does, to the bit and in the same order, whatever
 * the parts; on piles of agents at one point too (ties by index).  The
 * parts read the positions from records (as the simulation's gc_sim_now),
 * the whole from arrays.  A position that is not finite leaves it empty,
 * with GC_EINVAL. */
static void
test_index_in_parts(void **state)
{
    (void)state;
    enum { N = 3000 };
    static float x[N], y[N];
    static struct {
        float junk, y, x;
        uint8_t more;
    } rec[N];
    gc_orca_points pts = {&rec[0].x, &rec[0].y, sizeof rec[0]};
    uint32_t seed = 12345;
    gc_orca_grid *whole, *parts;
    assert_int_equal(gc_orca_grid_new(&whole), GC_OK);
    assert_int_equal(gc_orca_grid_new(&parts), GC_OK);
    for (size_t round = 0; round < 8; round++) {
        size_t n = round == 0 ? 1 : N / (8 - round) - round;
        for (size_t i = 0; i < n; i++) {
            seed = seed * 1664525u + 1013904223u;
            float u = (float)(seed >> 8) / 16777216.0f;
            seed = seed * 1664525u + 1013904223u;
            float v = (float)(seed >> 8) / 16777216.0f;
            /* Every third round on whole numbers: many at one point. */
            x[i] = round % 3 ? 300.0f * u : floorf(20.0f * u);
            y[i] = round % 3 ? 200.0f * v : floorf(20.0f * v);
            rec[i].x = x[i];
            rec[i].y = y[i];
            rec[i].junk = -1e9f;
        }
        float cell = round % 2 ? 7.5f : 2.0f;
        assert_int_equal(gc_orca_grid_build(whole, x, y, n, cell), GC_OK);
        size_t k = 1 + round % 4; /* 1 to 4 parts, of uneven sizes */
        gc_orca_bounds b, pb[4];
        gc_orca_bounds_init(&b);
        size_t cut[5] = {0};
        for (size_t p = 1; p < k; p++)
            cut[p] = n * p / k + (p == 1 && n > 2 ? 1 : 0);
        cut[k] = n;
        for (size_t p = 0; p < k; p++) {
            gc_orca_bounds_init(&pb[p]);
            gc_orca_bounds_add(&pb[p], &pts, cut[p], cut[p + 1]);
        }
        for (size_t p = k; p-- > 0;) /* joined in any order */
            gc_orca_bounds_join(&b, &pb[p]);
        assert_int_equal(gc_orca_grid_shape(parts, &b, n, cell, k), GC_OK);
        for (size_t p = k; p-- > 0;) /* counted in any order */
            gc_orca_grid_count(parts, &pts, cut[p], cut[p + 1], p);
        gc_orca_grid_offsets(parts);
        for (size_t p = 0; p < k; p++)
            gc_orca_grid_fill(parts, &pts, cut[p], cut[p + 1], p);
        size_t found = 0;
        for (size_t i = 0; i < n; i++) {
            uint32_t a[24], c[24];
            float ad[24], cd[24];
            gc_vec2 q = {x[i], y[i]};
            size_t na = gc_orca_grid_nearest(whole, q, i, 24, 9.0f, a, ad);
            size_t nc = gc_orca_grid_nearest(parts, q, i, 24, 9.0f, c, cd);
            assert_int_equal(na, nc);
            found += na;
            assert_memory_equal(a, c, na * sizeof *a);
            assert_memory_equal(ad, cd, na * sizeof *ad);
        }
        /* Not empty answers: the piles fill nearly all 24. */
        if (round > 0)
            assert_true(found >= (round % 3 ? n : 20 * n));
    }
    rec[7].x = NAN;
    gc_orca_bounds b;
    gc_orca_bounds_init(&b);
    gc_orca_bounds_add(&b, &pts, 0, 100);
    assert_false(b.finite);
    assert_int_equal(gc_orca_grid_shape(parts, &b, 100, 2.0f, 2), GC_EINVAL);
    uint32_t ids[4];
    float d2[4];
    assert_int_equal(
        gc_orca_grid_nearest(parts, (gc_vec2){x[0], y[0]}, SIZE_MAX, 4, 50.0f,
                             ids, d2),
        0);
    gc_orca_grid_free(whole);
    gc_orca_grid_free(parts);
}

/* ---- neighbour candidate lists ----------------------------------------- */

/* Agent i's neighbours as the tick that just ran found them (s->nbr),
 * against a brute-force K-nearest over every agent alive as it started
 * (s->px, s->py, s->st): nearest first, ties by slot, within the
 * neighbour distance; the same float distance the index computes. */
static void
assert_neighbours_exact(const gc_sim *s, uint32_t i, int tick)
{
    size_t k = (size_t)s->orca.max_neighbours;
    float nd = s->orca.neighbour_dist;
    float want_d[GC_ORCA_MAX_NEIGHBOURS];
    uint32_t want[GC_ORCA_MAX_NEIGHBOURS];
    size_t m = 0;
    for (uint32_t j = 0; j < s->n; j++) {
        if (j == i || s->now[j].st == GC_SIM_ST_FREE)
            continue;
        float dx = s->now[j].x - s->now[i].x, dy = s->now[j].y - s->now[i].y;
        float d = dx * dx + dy * dy;
        if (!(d < nd * nd))
            continue;
        /* Insert into the sorted k best (nearer, then lower slot). */
        size_t at = m < k ? m++ : k;
        while (at > 0 && want_d[at - 1] > d) {
            if (at < k) {
                want_d[at] = want_d[at - 1];
                want[at] = want[at - 1];
            }
            at--;
        }
        if (at < k) {
            want_d[at] = d;
            want[at] = j;
        }
    }
    const uint32_t *got = s->nbr + (size_t)i * k;
    if (s->nbr_n[i] != m)
        fail_msg("tick %d, agent %u: %u neighbours, brute force %zu", tick, i,
                 s->nbr_n[i], m);
    for (size_t c = 0; c < m; c++)
        if (got[c] != want[c])
            fail_msg("tick %d, agent %u: neighbour %zu is %u, brute force %u",
                     tick, i, c, got[c], want[c]);
}

/* Agent i's candidate list holds at most near_cap distinct slots, none
 * its own. */
static void
assert_list_sound(const gc_sim *s, uint32_t i, int tick)
{
    const uint32_t *list = s->near + (size_t)i * s->near_cap;
    if (s->near_n[i] > s->near_cap)
        fail_msg("tick %d, agent %u: %u candidates, room for %u", tick, i,
                 s->near_n[i], s->near_cap);
    for (uint32_t c = 0; c < s->near_n[i]; c++) {
        if (list[c] == i || list[c] >= s->n)
            fail_msg("tick %d, agent %u: candidate %u is slot %u", tick, i, c,
                     list[c]);
        for (uint32_t d = 0; d < c; d++)
            if (list[d] == list[c])
                fail_msg("tick %d, agent %u: slot %u is candidate %u and %u",
                         tick, i, list[c], d, c);
    }
}

/*
 * The candidate lists (sim-crowd-near.c) answer exactly as the index:
 * wanderers in a 20 x 20 room, every agent's neighbours checked against
 * brute force after every tick, while agents are removed, spawned (in
 * nobody's list yet) and put elsewhere (further than any walk).  Lists
 * do carry over between ticks, or this would test nothing.  Returns how
 * many of the lists seen after a tick were full (near_cap candidates:
 * complete only to the furthest one's distance).
 */
static long
lists_exact(uint32_t n, float nd)
{
    gc_grid *g = open_grid(20, 20);
    gc_sim_config c;
    crowd_config(&c, n, 0.3f);
    c.max_agents = n + 10;
    c.neighbour_dist = nd;
    c.threads = 2;
    gc_sim *s;
    gc_error err;
    assert_int_equal(gc_sim_new(&s, g, &c, &err), GC_OK);
    long kept = 0, full = 0;
    for (int t = 1; t <= 300; t++) {
        /* One out, at ticks 40, 80, ...; one in, 20 ticks later, into
         * the slot it left (a slot free when the tick started); one
         * put across the room at 10, 50, ...; and at 150 one out and
         * one in between the same two ticks. */
        uint32_t gone = (uint32_t)(t / 40) * 7u % n;
        if ((t % 40 == 0 || t == 150) &&
            gc_sim_resolve(s, gc_sim_handle(s, gone), NULL) == GC_OK)
            assert_int_equal(gc_sim_remove(s, gc_sim_handle(s, gone), &err),
                             GC_OK);
        for (int tries = 0; (t % 40 == 20 || t == 150) && tries < 400;
             tries++) {
            gc_spawn_spec sp = {.x = 0.5f + (float)(tries % 19),
                                .y = 0.5f + (float)(tries / 19 % 19),
                                .speed = 1.0f,
                                .wander_radius = -1.0f};
            if (gc_sim_spawn(s, &sp, NULL, &err) == GC_OK)
                break;
        }
        if (t % 40 == 10) {
            uint32_t far = (uint32_t)(t / 40) * 11u % n + 1u;
            gc_vec2 p = s->agents[far].pos;
            s->agents[far].pos = (gc_vec2){20.0f - p.x, 20.0f - p.y};
        }
        assert_int_equal(gc_sim_tick(s), GC_OK);
        for (uint32_t i = 0; i < s->n; i++) {
            if (s->now[i].st == GC_SIM_ST_FREE)
                continue;
            assert_neighbours_exact(s, i, t);
            assert_list_sound(s, i, t);
            kept += s->near_r[i] > 0.0f && s->near_t[i] < s->travel;
            full += s->near_n[i] == s->near_cap;
        }
    }
    assert_true(kept > (long)n * 300 / 2);
    gc_sim_free(s);
    gc_grid_free(g);
    return full;
}

/* 150 wanderers at the default neighbour distance (short lists). */
static void
test_neighbour_lists_exact(void **state)
{
    (void)state;
    lists_exact(150, 0.0f);
}

/*
 * 200 wanderers looking 12 cells out: lists that fill (near_cap), cut to
 * the nearest at the draw and complete only to the furthest kept, and
 * then put in order behind the agent's last neighbours.  The short lists
 * above never fill.
 */
static void
test_neighbour_lists_exact_full(void **state)
{
    (void)state;
    assert_true(lists_exact(200, 12.0f) > 200L * 300 / 2);
    /* 34 agents (33 while one is out), each seeing the whole room:
     * nearly every list is full, everyone else or all but the furthest.
     * A draw that wrote one entry past its own list, into the next
     * agent's (which then missed its nearest), failed only here. */
    assert_true(lists_exact(34, 100.0f) > 34L * 300 * 9 / 10);
}

/* ---- turn rates under avoidance ---------------------------------------- */

/* Spawn into s (open ground) at (x, y), heading 0 (east), with a goal at
 * (gx, gy), the given speed (cells per second) and turn rate (degrees per
 * second). */
static gc_agent_handle
spawn_turning(gc_sim *s, float x, float y, float gx, float gy, float speed,
              float deg)
{
    gc_spawn_spec sp = {.x = x,
                        .y = y,
                        .has_goal = true,
                        .goal_x = gx,
                        .goal_y = gy,
                        .speed = speed,
                        .turn_rate = deg,
                        .wander_radius = -1.0f};
    gc_agent_handle h = GC_AGENT_NONE;
    gc_error err;
    if (gc_sim_spawn(s, &sp, &h, &err) != GC_OK)
        fail_msg("spawn at (%g, %g): %s", (double)x, (double)y, err.msg);
    return h;
}

static gc_sim *
empty_crowd(gc_grid *g, uint32_t cap, float r, int threads)
{
    gc_sim_config c;
    crowd_config(&c, 0, r);
    c.max_agents = cap;
    c.threads = threads;
    gc_sim *s;
    gc_error err;
    if (gc_sim_new(&s, g, &c, &err) != GC_OK)
        fail_msg("gc_sim_new: %s", err.msg);
    return s;
}

/* Signed angle from a to b, in (-pi, pi]. */
static double
angle_off(double a, double b)
{
    return remainder(b - a, 2.0 * M_PI);
}

/*
 * Facing east, told to go west: with a turn rate under ORCA it turns in
 * place and then goes (as a path follower does), taking pi / rate seconds
 * to face west, within two ticks; it never moves east, and hardly
 * sideways: it goes along its way, at speed * cos(off) while its heading
 * is off by less than 90 degrees (along the heading it would drift
 * speed / (2 rate) sideways, 0.32 cells here).
 */
static void
turn_back(float deg)
{
    gc_grid *g = open_grid(41, 21);
    const float r = 0.4f, speed = 2.0f;
    const double rate = deg * M_PI / 180.0;
    gc_sim *s = empty_crowd(g, 1, r, 1);
    float x0 = 30.5f, y0 = 10.5f;
    gc_agent_handle h = spawn_turning(s, x0, y0, 5.5f, y0, speed, deg);
    size_t i;
    assert_int_equal(gc_sim_resolve(s, h, &i), GC_OK);
    double dt = s->dt;
    int first = -1, faced = -1;
    double side = 0.0, east = 0.0;
    for (int t = 1; t <= 1200 && faced < 0; t++) {
        assert_int_equal(gc_sim_tick(s), GC_OK);
        const gc_agent *a = gc_sim_agent(s, i);
        if (first < 0 && a->heading != 0.0f)
            first = t; /* the first tick that turned */
        if (first >= 0 && fabs(angle_off(a->heading, M_PI)) < 1e-3)
            faced = t;
        side = fmax(side, fabs(a->pos.y - y0));
        east = fmax(east, a->pos.x - x0);
    }
    assert_true(first > 0 && faced > 0);
    double took = (faced - first + 1) * dt, want = M_PI / rate;
    printf("# turn back at %g deg/s: %.3f s (pi / rate %.3f s), sideways "
           "%.4f cells\n",
           (double)deg, took, want, side);
    assert_true(fabs(took - want) <= 2.0 * dt + 1e-6);
    assert_true(east <= 1e-5);
    assert_true(side <= 0.02);
    /* Before this rule the crowd's heading was the move's: it faced west
     * after a single tick of motion. */
    assert_true(faced - first >= 50);
    /* And then it goes, and arrives. */
    for (int t = 0; t < 60 * 30 && !gc_sim_done(s); t++)
        assert_int_equal(gc_sim_tick(s), GC_OK);
    assert_int_equal(gc_sim_agent(s, i)->state, GC_AGENT_ARRIVED);
    gc_sim_free(s);
    gc_grid_free(g);
}

static void
test_turn_back_orca(void **state)
{
    (void)state;
    turn_back(180.0f);
}

/* A slow turner (6 s to turn back) is turning, not blocked: the stall
 * rules (turn right after 1 s, back off, plan again) leave it alone, so it
 * still turns in place in pi / rate and goes straight. */
static void
test_turn_back_slow_orca(void **state)
{
    (void)state;
    turn_back(30.0f);
}

/*
 * Two groups with different rates in one crowd, plus agents that turn at
 * once: all face east and go due south.  Each tick the slow group (45
 * degrees per second) turns at most 45 dt, the fast one (90) at most 90
 * dt, and each reaches south after (pi / 2) / rate seconds, within two
 * ticks; rate 0 faces south with its first move.  Then all arrive, out of
 * walls, with no overlap beyond the tolerance.
 */
static void
test_turn_groups_orca(void **state)
{
    (void)state;
    enum { PER = 4, N = 3 * PER };
    gc_grid *g = open_grid(40, 24);
    const float r = 0.4f;
    const float degs[3] = {45.0f, 90.0f, 0.0f};
    gc_sim *s = empty_crowd(g, N, r, 2);
    size_t idx[N];
    for (int k = 0; k < N; k++) {
        float x = 2.5f + 3.0f * (float)k;
        gc_agent_handle h =
            spawn_turning(s, x, 2.5f, x, 20.5f, 3.0f, degs[k / PER]);
        assert_int_equal(gc_sim_resolve(s, h, &idx[k]), GC_OK);
    }
    double dt = s->dt;
    int first[N], south[N];
    float prev[N];
    for (int k = 0; k < N; k++) {
        first[k] = south[k] = -1;
        prev[k] = 0.0f;
    }
    double worst = 0.0;
    for (int t = 1; t <= 240; t++) {
        assert_int_equal(gc_sim_tick(s), GC_OK);
        assert_out_of_walls(s, r);
        worst = fmax(worst, deepest(s, r));
        for (int k = 0; k < N; k++) {
            float hd = gc_sim_agent(s, idx[k])->heading;
            double step = fabs(angle_off(prev[k], hd));
            double cap = degs[k / PER] * M_PI / 180.0 * dt;
            if (degs[k / PER] > 0.0f && step > cap + 1e-5)
                fail_msg("agent %d (%g deg/s) turned %g rad in one tick", k,
                         (double)degs[k / PER], step);
            prev[k] = hd;
            if (first[k] < 0 && hd != 0.0f)
                first[k] = t;
            if (south[k] < 0 && fabs(angle_off(hd, M_PI / 2)) < 1e-3)
                south[k] = t;
        }
    }
    for (int k = 0; k < N; k++) {
        assert_true(first[k] > 0 && south[k] > 0);
        double took = (south[k] - first[k] + 1) * dt;
        double want = degs[k / PER] > 0.0f
                          ? (M_PI / 2) / (degs[k / PER] * M_PI / 180.0)
                          : dt;
        if (fabs(took - want) > 2.0 * dt + 1e-6)
            fail_msg("agent %d (%g deg/s) took %g s to face south, want %g", k,
                     (double)degs[k / PER], took, want);
    }
    for (int t = 0; t < 60 * 60 && !gc_sim_done(s); t++) {
        assert_int_equal(gc_sim_tick(s), GC_OK);
        assert_out_of_walls(s, r);
        worst = fmax(worst, deepest(s, r));
    }
    assert_all_arrived(s, N);
    assert_true(worst <= DEPTH_TOL);
    gc_sim_free(s);
    gc_grid_free(g);
}

/* ---- circle and corridor ---------------------------------------------- */

/* GC_TEST_QUICK=1 (CI's valgrind and distcheck stages) skips the two long
 * crowd runs, minutes under valgrind; CI's stages 1 to 3 run them. */
static void
test_circle(void **state)
{
    (void)state;
    if (gc_test_quick())
        skip(); /* minutes under valgrind; stages 1 to 3 run it */
    enum { N = 200 };
    /* One ring of radius 40 cells: 200 agents 1.26 cells apart, each
     * going to the antipodal cell. */
    int W = 91, cx = 45, cy = 45;
    gc_grid *g = open_grid(W, W);
    gc_cell start[N], goal[N];
    for (int i = 0; i < N; i++) {
        double a = 2.0 * M_PI * i / N;
        start[i] = (gc_cell){cx + (int)lround(40 * cos(a)),
                             cy + (int)lround(40 * sin(a))};
        goal[i] = (gc_cell){2 * cx - start[i].x, 2 * cy - start[i].y};
    }
    gc_scen sc;
    const float r = 0.4f;
    gc_sim_config c;
    scen_crowd_config(&c, &sc, start, goal, N, r);
    c.threads = 2;
    gc_sim *s;
    gc_error err;
    assert_int_equal(gc_sim_new(&s, g, &c, &err), GC_OK);
    double worst;
    int t = run_checked(s, r, 60 * 120, 1.0, &worst);
    gc_sim_stats st;
    gc_sim_stats_total(s, &st);
    printf("# circle %d: %d ticks, deepest %.3f of 2r, pairs/tick %.3f\n", N, t,
           worst, st.overlaps_mean);
    assert_all_arrived(s, N);
    assert_true(worst <= DEPTH_TOL);
    gc_sim_free(s);
    gc_scen_free(&sc);
    gc_grid_free(g);
}

static void
test_corridor(void **state)
{
    (void)state;
    if (gc_test_quick())
        skip(); /* minutes under valgrind; stages 1 to 3 run it */
    /* A corridor 6 cells wide (5 open) and 80 long; 100 agents at each
     * end, in rows of 5 across it, going to the other end, where their
     * goals are two cells apart along it (goals packed a cell apart would
     * make a wall of arrived bodies that later agents cannot cross). */
    enum { N = 200, W = 80, H = 8 };
    gc_grid *g = open_grid(W, H);
    for (int x = 0; x < W; x++) {
        gc_grid_set(g, x, 0, GC_CELL_OBSTACLE);
        gc_grid_set(g, x, H - 1, GC_CELL_OBSTACLE);
    }
    gc_cell start[N], goal[N];
    for (int i = 0; i < N / 2; i++) {
        int col = i / 5, row = 1 + i % 5;
        start[i] = (gc_cell){1 + col, row};
        goal[i] = (gc_cell){W - 41 + 2 * col, row};
        start[N / 2 + i] = (gc_cell){W - 2 - col, row};
        goal[N / 2 + i] = (gc_cell){40 - 2 * col, row};
    }
    gc_scen sc;
    const float r = 0.3f;
    gc_sim_config c;
    scen_crowd_config(&c, &sc, start, goal, N, r);
    c.threads = 2;
    gc_sim *s;
    gc_error err;
    assert_int_equal(gc_sim_new(&s, g, &c, &err), GC_OK);
    double worst;
    int t = run_checked(s, r, 60 * 180, 1.0, &worst);
    gc_sim_stats st;
    gc_sim_stats_total(s, &st);
    printf("# corridor %d: %d ticks, deepest %.3f of 2r, pairs/tick %.3f\n", N,
           t, worst, st.overlaps_mean);
    assert_all_arrived(s, N);
    assert_true(worst <= DEPTH_TOL);
    gc_sim_free(s);
    gc_scen_free(&sc);
    gc_grid_free(g);
}

/*
 * The step's headings in lanes (gc_sim_headings, sim-crowd-heading.c):
 * each the scalar gc_sim_heading_of's to the bit, for batches of every
 * length from 0 to 13 (the lanes and the tail) over moves of every
 * direction and size, the axes both ways and -0 among them.
 */
static void
heading_lanes_exact(void)
{
    enum { N = 13 };
    static const float edges[][2] = {
        {1.0f, 0.0f},   {0.0f, 1.0f},  {-1.0f, 0.0f},  {0.0f, -1.0f},
        {-1.0f, -0.0f}, {1.0f, -0.0f}, {-0.0f, 1.0f},  {-0.0f, -1.0f},
        {1.0f, 1.0f},   {-1.0f, 1.0f}, {-1.0f, -1.0f}, {1e-30f, -1e-30f},
        {3e38f, 1e-38f}};
    uint64_t r = 0x2545f4914f6cdd1dull;
    long mismatched = 0, compared = 0;
    for (long c = 0; c < 40000; c++) {
        float dx[N], dy[N], got[N];
        size_t n = (size_t)(c % (N + 1));
        for (size_t j = 0; j < n; j++) {
            r = r * 6364136223846793005ull + 1442695040888963407ull;
            if ((r >> 60) == 0) {
                dx[j] = edges[(r >> 32) % N][0];
                dy[j] = edges[(r >> 32) % N][1];
                continue;
            }
            double u = (double)(r >> 11) / 9007199254740992.0;
            double m = pow(10.0, (double)((r >> 8) % 13) - 6.0);
            dx[j] = (float)(m * cos(2.0 * M_PI * u));
            dy[j] = (float)(m * sin(2.0 * M_PI * u));
            if (dx[j] == 0.0f && dy[j] == 0.0f)
                dx[j] = 1.0f;
        }
        gc_sim_headings(dx, dy, got, n);
        for (size_t j = 0; j < n; j++, compared++) {
            float want = gc_sim_heading_of(dx[j], dy[j]);
            if (memcmp(&got[j], &want, sizeof want) != 0 && mismatched++ < 5)
                print_error("lanes' heading of (%.9g, %.9g): %.9g, scalar "
                            "%.9g\n",
                            dx[j], dy[j], got[j], want);
        }
    }
    assert_true(compared > 200000);
    assert_int_equal(mismatched, 0);
}

/*
 * The neighbours as the crowd gives them to the solver, those whose
 * bodies already overlap the agent's first
 * (gc_sim_crowd_overlaps_first): for random crowds around an agent, each
 * neighbour once, the overlapping ones first, each part in its order;
 * and where the program is infeasible, the very bits of the velocity
 * from the neighbours nearest first (the solver then takes the
 * overlapping bodies first in both).  The mask it returns is the
 * overlapping ones' in the new order, and a program handed that mask
 * (gc_orca_program's over) is answered to the bit as gc_orca_velocity
 * answers the same neighbours, testing them itself.
 */
static void
test_overlaps_first(void **state)
{
    (void)state;
    gc_orca_params p;
    gc_orca_params_default(&p);
    uint64_t r = 0x9e3779b97f4a7c15ull;
    int infeasible = 0, moved = 0;
    for (int c = 0; c < 3000; c++) {
        float u[4 + 4 * 12];
        for (size_t k = 0; k < sizeof u / sizeof u[0]; k++) {
            r = r * 6364136223846793005ull + 1442695040888963407ull;
            u[k] = (float)(r >> 40) / 16777216.0f; /* [0, 1) */
        }
        gc_orca_agent self = {{0.0f, 0.0f}, {2 * u[0] - 1, 2 * u[1] - 1}, 0.5f};
        gc_vec2 pref = {3 * u[2] - 1.5f, 3 * u[3] - 1.5f};
        size_t n = 1 + (size_t)c % 12;
        gc_orca_agent nb[12], got[12];
        uint64_t over = 0;
        for (size_t k = 0; k < n; k++) {
            const float *q = u + 4 + 4 * k;
            float d = 0.3f + 2.7f * q[0], a = 6.2831853f * q[1];
            nb[k] = (gc_orca_agent){
                {d * cosf(a), d * sinf(a)}, {2 * q[2] - 1, 2 * q[3] - 1}, 0.5f};
            over |= (uint64_t)gc_orca_overlapping(&self, &nb[k]) << k;
        }
        memcpy(got, nb, n * sizeof *nb);
        uint64_t now_over = gc_sim_crowd_overlaps_first(got, n, over);
        size_t j = 0;
        for (int pass = 0; pass < 2; pass++)
            for (size_t k = 0; k < n; k++)
                if ((over >> k & 1) != (uint64_t)pass)
                    assert_memory_equal(&got[j++], &nb[k], sizeof nb[k]);
        assert_int_equal(j, n);
        for (size_t k = 0; k < n; k++)
            assert_int_equal(now_over >> k & 1,
                             gc_orca_overlapping(&self, &got[k]));
        moved += (over & (over + 1)) != 0;
        gc_vec2 want, v;
        gc_orca_report rw, rv;
        assert_int_equal(
            gc_orca_velocity(&p, &self, pref, 2.0f, nb, n, NULL, 0, &want, &rw),
            0);
        assert_int_equal(
            gc_orca_velocity(&p, &self, pref, 2.0f, got, n, NULL, 0, &v, &rv),
            0);
        if (!rw.feasible) {
            infeasible++;
            assert_false(rv.feasible);
            assert_memory_equal(&v, &want, sizeof v);
        }
        static gc_orca_program pr; /* (54 KB) */
        pr.self = self;
        pr.pref = pref;
        pr.max_speed = 2.0f;
        pr.n_nb = n;
        pr.over = now_over;
        pr.over_known = true;
        memcpy(pr.nb, got, n * sizeof *got);
        assert_int_equal(gc_orca_program_lines(&p, &pr, NULL, 0), GC_OK);
        gc_orca_programs_solve(&pr, 1);
        assert_memory_equal(&pr.out, &v, sizeof v);
        assert_int_equal(pr.feasible, rv.feasible);
    }
    print_message("# %d reordered, %d infeasible\n", moved, infeasible);
    assert_true(moved > 300);
    assert_true(infeasible > 300);
}

/*
 * The crowd's headings (gc_sim_heading_of, sim_crowd_int.h) against the
 * exact angle in double, and libm's atan2f beside it: moves of every
 * direction (a fine sweep, the axes and the diagonals both ways, and
 * random ones over nine orders of magnitude), within 3.5e-7 rad; the
 * signs of the axes as atan2f gives them, -pi for (-1, -0) among them.
 */
static void
test_heading_of(void **state)
{
    (void)state;
    double worst = 0.0, worst_libm = 0.0;
    uint64_t r = 0x9e3779b97f4a7c15ull;
    long cases = gc_test_quick() ? 200000 : 2000000;
    for (long c = 0; c < cases; c++) {
        float dx, dy;
        if (c < 100000) { /* the sweep */
            double t = 2.0 * M_PI * (double)c / 100000.0;
            dx = (float)cos(t);
            dy = (float)sin(t);
        } else {
            r = r * 6364136223846793005ull + 1442695040888963407ull;
            double u = (double)(r >> 11) / 9007199254740992.0;
            r = r * 6364136223846793005ull + 1442695040888963407ull;
            double e = (double)(r >> 40) / 16777216.0 * 9.0 - 6.0;
            double m = pow(10.0, e);
            dx = (float)(m * cos(2.0 * M_PI * u));
            dy = (float)(m * sin(2.0 * M_PI * u) * ((r & 1) ? 1.0 : 0.37));
        }
        if (dx == 0.0f && dy == 0.0f)
            continue;
        double want = atan2((double)dy, (double)dx);
        double got = gc_sim_heading_of(dx, dy);
        double e = fabs(got - want), el = fabs(atan2f(dy, dx) - want);
        if (e > worst)
            worst = e;
        if (el > worst_libm)
            worst_libm = el;
        if (!(e <= 3.5e-7))
            fail_msg("heading of (%.9g, %.9g): %.9g, exact %.9g", dx, dy, got,
                     want);
    }
    printf("# headings: worst %.3g rad (libm's atan2f %.3g)\n", worst,
           worst_libm);
    heading_lanes_exact();
    const float axes[][3] = {
        {1.0f, 0.0f, 0.0f},           {0.0f, 1.0f, (float)M_PI_2},
        {-1.0f, 0.0f, (float)M_PI},   {0.0f, -1.0f, -(float)M_PI_2},
        {-1.0f, -0.0f, -(float)M_PI}, {1.0f, -0.0f, -0.0f},
        {1.0f, 1.0f, (float)M_PI_4},  {-1.0f, -1.0f, -3.0f * (float)M_PI_4},
    };
    for (size_t k = 0; k < sizeof axes / sizeof axes[0]; k++) {
        float h = gc_sim_heading_of(axes[k][0], axes[k][1]);
        assert_float_equal(h, atan2f(axes[k][1], axes[k][0]), 2.5e-7);
        assert_true(signbit(h) == signbit(atan2f(axes[k][1], axes[k][0])));
        assert_float_equal(h, axes[k][2], 2.5e-7);
    }
    assert_true(gc_sim_heading_of(0.0f, 0.0f) == atan2f(0.0f, 0.0f));
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_heading_of),
        cmocka_unit_test(test_overlaps_first),
        cmocka_unit_test(test_inflated_planning),
        cmocka_unit_test(test_never_in_wall),
        cmocka_unit_test(test_moving_agent_replanned),
        cmocka_unit_test(test_head_on_open),
        cmocka_unit_test(test_neighbour_dist),
        cmocka_unit_test(test_crush_separation),
        cmocka_unit_test(test_crush_contacts),
        cmocka_unit_test(test_crush_threads_identical),
        cmocka_unit_test(test_crush_overlaps_known),
        cmocka_unit_test(test_head_on_corridor),
        cmocka_unit_test(test_wanderers_passage),
        cmocka_unit_test(test_jam_route),
        cmocka_unit_test(test_jam_start_walkable),
        cmocka_unit_test(test_jam_keeps_flow_goal),
        cmocka_unit_test(test_turn_not_into_wall),
        cmocka_unit_test(test_keep_right_not_into_wall),
        cmocka_unit_test(test_flow_goal),
        cmocka_unit_test(test_squeeze_margin),
        cmocka_unit_test(test_squeeze_posts),
        cmocka_unit_test(test_jam_threads_identical),
        cmocka_unit_test(test_jam_sliced_scan),
        cmocka_unit_test(test_jam_scan_dropped),
        cmocka_unit_test(test_jam_dropped_build),
        cmocka_unit_test(test_jam_free_while_building),
        cmocka_unit_test(test_visible_fast_exact),
        cmocka_unit_test(test_wall_segments_exact),
        cmocka_unit_test(test_wall_segments_kept),
        cmocka_unit_test(test_spot_kept_bounds),
        cmocka_unit_test(test_hilbert_curve),
        cmocka_unit_test(test_threads_identical),
        cmocka_unit_test(test_threads_identical_turning),
        cmocka_unit_test(test_threads_identical_budget),
        cmocka_unit_test(test_threads_identical_shared_prepare),
        cmocka_unit_test(test_index_in_parts),
        cmocka_unit_test(test_turn_back_orca),
        cmocka_unit_test(test_turn_back_slow_orca),
        cmocka_unit_test(test_turn_groups_orca),
        cmocka_unit_test(test_neighbour_lists_exact),
        cmocka_unit_test(test_neighbour_lists_exact_full),
        cmocka_unit_test(test_follow),
        cmocka_unit_test(test_circle),
        cmocka_unit_test(test_corridor),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
