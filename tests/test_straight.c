/*
 * test_straight.c: plans without a search for goals in straight sight.
 *
 * gc_straight_best (src/smooth.c) says a straight piece is a cheapest way
 * between two cells.  On random grids with every cost table the search
 * tests use, with and without a body's clearance, for every diagonal
 * rule, each piece it accepts must be walkable (every cell it touches open
 * in the model, and its end reached by the model's moves) and cost no more
 * than the cheapest path of the Dijkstra in dijkstra.h (an independent
 * model that shares no code with it).  On grids where every passable
 * cell costs the same it must accept exactly the pieces the pricer can
 * walk, so a check that never fires fails too.
 *
 * The sim's planner (src/sim-plan.c) takes that piece as the plan, with
 * smoothing on: an agent in sight of its goal on open ground gets the
 * one waypoint and no cell is expanded; smoothing off, a cheaper type
 * elsewhere on the map or a dearer cell on the line bring the search
 * back.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <gridcrowd/astar.h>
#include <gridcrowd/sim.h>

#include "astar_int.h"
#include "dijkstra.h"
#include "test_rng.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

/*
 * Every cell the segment between the centres of a and b touches (its
 * closed square meets the segment, corners included) is open under the
 * model: the "walkable" of the header for a piece longer than one step
 * (grid_int.h: no corner is cut at any angle), worked out here from the
 * geometry rather than by the library's supercover walk.  In half-cell
 * units the segment runs from 2a + 1 to 2b + 1 and cell (x, y) is the
 * square [2x, 2x + 2] x [2y, 2y + 2]; the numbers are small integers, so
 * the divisions tell touching from missing exactly.  The cells checked
 * are added to *checked.
 */
static bool
touched_open(const model *m, gc_cell a, gc_cell b, long *checked)
{
    double px = 2.0 * a.x + 1.0, py = 2.0 * a.y + 1.0;
    double dx = 2.0 * (b.x - a.x), dy = 2.0 * (b.y - a.y);
    int x0 = a.x < b.x ? a.x : b.x, x1 = a.x < b.x ? b.x : a.x;
    int y0 = a.y < b.y ? a.y : b.y, y1 = a.y < b.y ? b.y : a.y;
    for (int y = y0; y <= y1; y++)
        for (int x = x0; x <= x1; x++) {
            double lo = 0.0, hi = 1.0;
            const double p[2] = {px, py}, d[2] = {dx, dy};
            const double s0[2] = {2.0 * x, 2.0 * y};
            for (int k = 0; k < 2; k++) {
                if (d[k] == 0.0) {
                    if (p[k] < s0[k] || p[k] > s0[k] + 2.0)
                        hi = -1.0;
                    continue;
                }
                double t1 = (s0[k] - p[k]) / d[k];
                double t2 = (s0[k] + 2.0 - p[k]) / d[k];
                lo = fmax(lo, fmin(t1, t2));
                hi = fmin(hi, fmax(t1, t2));
            }
            if (lo > hi)
                continue;
            (*checked)++;
            if (!open_cell(m, x, y))
                return false;
        }
    return true;
}

static void
test_straight_against_dijkstra(void **state)
{
    (void)state;
    static const gc_diag_rule rules[] = {GC_DIAG_NO_CORNER_CUT, GC_DIAG_NEVER,
                                         GC_DIAG_ONE_FREE, GC_DIAG_ALWAYS};
    enum { SIDE = 32 };
    double *dist = malloc(SIDE * SIDE * sizeof *dist);
    qent *heap = malloc(8 * SIDE * SIDE * sizeof *heap);
    assert_non_null(dist);
    assert_non_null(heap);
    long accepted = 0, uniform_pairs = 0, touched = 0;
    for (int k = 0; k < 800; k++) {
        int w = 4 + rnd(SIDE - 3), h = 4 + rnd(SIDE - 3);
        gc_grid *g;
        assert_int_equal(gc_grid_new(&g, w, h), GC_OK);
        random_grid(g);
        bool uniform = uniform_present(g);
        gc_nav *nav;
        assert_int_equal(gc_nav_new(&nav, g), GC_OK);
        float rc = k % 3 == 0 ? (float)(rnd(15) / 10.0) : 0.0f;
        gc_diag_rule rule = rules[k % 4];
        model m = {g, nav, rc};
        for (int q = 0; q < 24; q++) {
            gc_cell a = {rnd(w), rnd(h)}, b = {rnd(w), rnd(h)};
            bool best = gc_straight_best(g, nav, rc, rule, a, b);
            gc_cell two[2] = {a, b};
            gc_path p = {two, 2, 2};
            double seg = gc_polyline_cost(g, nav, rc, rule, &p);
            if (uniform && (a.x != b.x || a.y != b.y)) {
                uniform_pairs++;
                if (best != (bool)isfinite(seg))
                    fail_msg("grid %d: (%d, %d) -> (%d, %d) at one cost: "
                             "straight_best %d, piece cost %g",
                             k, a.x, a.y, b.x, b.y, best, seg);
            }
            if (!best)
                continue;
            accepted++;
            assert_true(isfinite(seg));
            /* One step follows the diagonal rule; a longer piece may
             * touch no blocked cell, corners included. */
            int sx = b.x - a.x, sy = b.y - a.y;
            bool step = abs(sx) <= 1 && abs(sy) <= 1;
            if (step ? !isfinite(model_step(&m, a.x, a.y, sx, sy, rule))
                     : !touched_open(&m, a, b, &touched))
                fail_msg("grid %d rule %d r %g: (%d, %d) -> (%d, %d): "
                         "accepted, not walkable",
                         k, (int)rule, (double)rc, a.x, a.y, b.x, b.y);
            dijkstra(&m, a, rule, dist, heap);
            double d = dist[b.y * w + b.x];
            /* Walkable, so the grid's moves reach b too: an infinite d
             * would pass the comparison below whatever seg is. */
            if (!isfinite(d))
                fail_msg("grid %d rule %d r %g: (%d, %d) -> (%d, %d): "
                         "straight %.9g, Dijkstra finds no way",
                         k, (int)rule, (double)rc, a.x, a.y, b.x, b.y, seg);
            if (!(d >= seg * (1.0 - 1e-9)))
                fail_msg("grid %d rule %d r %g: (%d, %d) -> (%d, %d): "
                         "straight %.9g, Dijkstra %.9g",
                         k, (int)rule, (double)rc, a.x, a.y, b.x, b.y, seg, d);
        }
        gc_nav_free(nav);
        gc_grid_free(g);
    }
    /* Both branches ran, often (1,296 and 6,474 pairs). */
    assert_true(accepted > 600);
    assert_true(uniform_pairs > 3000);
    print_message("%ld accepted, %ld touched cells checked\n", accepted,
                  touched);
    assert_true(touched > 2 * accepted);
    /* Same cell, off the map, a wall at either end: never. */
    gc_grid *g;
    assert_int_equal(gc_grid_new(&g, 8, 8), GC_OK);
    gc_grid_set(g, 5, 5, GC_CELL_OBSTACLE);
    gc_cell c = {1, 1};
    assert_false(gc_straight_best(g, NULL, 0.0f, GC_DIAG_ALWAYS, c, c));
    assert_false(
        gc_straight_best(g, NULL, 0.0f, GC_DIAG_ALWAYS, c, (gc_cell){8, 1}));
    assert_false(
        gc_straight_best(g, NULL, 0.0f, GC_DIAG_ALWAYS, c, (gc_cell){5, 5}));
    assert_false(
        gc_straight_best(g, NULL, 0.0f, GC_DIAG_ALWAYS, (gc_cell){5, 5}, c));
    /* In sight: yes with the nav data, which says no road is on the
     * map; without it, a road (cost 0.5) might be, and the answer is
     * no. */
    gc_nav *nav;
    assert_int_equal(gc_nav_new(&nav, g), GC_OK);
    assert_true(
        gc_straight_best(g, nav, 0.0f, GC_DIAG_ALWAYS, c, (gc_cell){6, 2}));
    assert_false(
        gc_straight_best(g, NULL, 0.0f, GC_DIAG_ALWAYS, c, (gc_cell){6, 2}));
    gc_nav_free(nav);
    gc_grid_free(g);
    free(dist);
    free(heap);
}

/* ---- the planner ----------------------------------------------------------
 */

/* One agent at (2.5, 2.5) with the goal cell (30, 14) on a 40 x 20 map of
 * open ground, `mark` (a glyph) at (mx, my) unless 0, one tick planned:
 * the agent's waypoints left and the cells the sim's searches expanded. */
static void
plan_once(bool smooth, char mark, int mx, int my, uint32_t *left,
          uint64_t *expanded, gc_vec2 *last)
{
    gc_grid *g;
    assert_int_equal(gc_grid_new(&g, 40, 20), GC_OK);
    if (mark != 0)
        gc_grid_set(g, mx, my, gc_cell_type_from_glyph(mark));
    gc_sim_config c;
    gc_sim_config_init(&c);
    c.agents = 0;
    c.max_agents = 1;
    c.threads = 1;
    c.smooth = smooth;
    gc_sim *s;
    gc_error err;
    if (gc_sim_new(&s, g, &c, &err) != GC_OK)
        fail_msg("gc_sim_new: %s", err.msg);
    gc_spawn_spec sp = {.x = 2.5f,
                        .y = 2.5f,
                        .has_goal = true,
                        .goal_x = 30.5f,
                        .goal_y = 14.5f,
                        .turn_rate = -1.0f,
                        .wander_radius = -1.0f};
    if (gc_sim_spawn(s, &sp, NULL, &err) != GC_OK)
        fail_msg("spawn: %s", err.msg);
    assert_int_equal(gc_sim_tick(s), GC_OK);
    const gc_agent *a = gc_sim_agent(s, 0);
    assert_non_null(a);
    assert_int_equal(a->state, GC_AGENT_MOVING);
    *left = a->wp_len - a->wp_next;
    *last = a->wp[a->wp_len - 1];
    gc_sim_stats st;
    gc_sim_stats_total(s, &st);
    assert_int_equal(st.searches, 1);
    *expanded = st.expanded;
    gc_sim_free(s);
    gc_grid_free(g);
}

static void
test_planner_straight(void **state)
{
    (void)state;
    uint32_t left;
    uint64_t expanded;
    gc_vec2 last;
    /* In sight, open ground: the goal alone, nothing expanded. */
    plan_once(true, 0, 0, 0, &left, &expanded, &last);
    assert_int_equal(left, 1);
    assert_int_equal(expanded, 0);
    assert_true(last.x == 30.5f && last.y == 14.5f);
    /* A wall off the line changes nothing. */
    plan_once(true, '@', 30, 3, &left, &expanded, &last);
    assert_int_equal(left, 1);
    assert_int_equal(expanded, 0);
    /* Smoothing off: the grid's path, searched. */
    plan_once(false, 0, 0, 0, &left, &expanded, &last);
    assert_true(left > 2);
    assert_true(expanded > 0);
    /* A road anywhere (a cheaper type: the line may not be the cheapest
     * way), or swamp on the line (dearer): searched. */
    plan_once(true, 'R', 35, 2, &left, &expanded, &last);
    assert_true(expanded > 0);
    plan_once(true, 'S', 16, 8, &left, &expanded, &last);
    assert_true(expanded > 0);
    assert_true(last.x == 30.5f && last.y == 14.5f);
    /* A wall on the line: searched, and around it. */
    plan_once(true, '@', 16, 8, &left, &expanded, &last);
    assert_true(expanded > 0);
    assert_true(left >= 2);
}

int
main(void)
{
    rng_state = UINT64_C(0x5EED5EED12345678);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_straight_against_dijkstra),
        cmocka_unit_test(test_planner_straight),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
