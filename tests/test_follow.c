/*
 * test_follow.c: a follower's re-plan that keeps the still-good part of its
 * path (src/sim-plan.c, gc_sim_join_path) and the follow goal on top of it.
 *
 * - The join, in random cases on random maps: the joined path is a valid
 *   path (it starts at the kept path's first cell and ends at the target,
 *   and gc_polyline_cost, which is finite only when every step and
 *   straight segment is passable and cuts no corner, is finite, before
 *   and after smoothing), and it costs at most the optimal cost from its
 *   start plus twice the joint search's cost (the bound of sim_int.h).
 * - A follower with reuse on reaches its stop distance, and its sim counts
 *   joined plans; with reuse off it counts none.
 *
 * Linked with the library's objects (libgridcrowd_core.la): the join is
 * internal.
 */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <gridcrowd/astar.h>
#include <gridcrowd/sim.h>

#include "../src/sim_int.h"

#include <math.h>
#include <stdlib.h>

static uint64_t rng_state = 12345;

static uint32_t
rnd(uint32_t n)
{
    return gc_sim_rand_below(&rng_state, n);
}

/* A W x H map with about `pct` percent walls. */
static gc_grid *
random_map(int32_t w, int32_t h, uint32_t pct)
{
    gc_grid *g;
    assert_int_equal(gc_grid_new(&g, w, h), GC_OK);
    for (int32_t y = 0; y < h; y++)
        for (int32_t x = 0; x < w; x++)
            if (rnd(100) < pct)
                gc_grid_set(g, x, y, GC_CELL_OBSTACLE);
    return g;
}

static gc_cell
random_open(const gc_grid *g)
{
    for (;;) {
        gc_cell c = {(int32_t)rnd((uint32_t)g->width),
                     (int32_t)rnd((uint32_t)g->height)};
        if (gc_grid_passable(g, c.x, c.y))
            return c;
    }
}

/* Optimal cost from a to b (no smoothing), or -1 when unreachable. */
static double
opt_cost(gc_astar *as, const gc_grid *g, gc_cell a, gc_cell b, gc_path *p)
{
    gc_astar_opts o;
    gc_astar_opts_init(&o);
    if (gc_astar_find(as, g, a, b, &o, p, NULL) != GC_OK)
        return -1.0;
    return gc_path_cost(g, p, o.diag);
}

static void
test_join_random(void **state)
{
    (void)state;
    int cases = 0, joined = 0, far = 0, failed = 0;
    for (int m = 0; m < 6; m++) {
        gc_grid *g = random_map(64, 48, 10 + 5 * (uint32_t)m);
        gc_astar *as;
        assert_int_equal(gc_astar_new(&as, g->width, g->height), GC_OK);
        gc_path old, keep, scratch, out, tmp;
        gc_path_init(&old);
        gc_path_init(&keep);
        gc_path_init(&scratch);
        gc_path_init(&out);
        gc_path_init(&tmp);
        gc_astar_opts o;
        gc_astar_opts_init(&o);
        for (int c = 0; c < 150; c++) {
            gc_cell s = random_open(g), e = random_open(g);
            if (opt_cost(as, g, s, e, &old) < 0 || old.len < 2)
                continue;
            bool smooth = c % 2 == 0;
            if (smooth)
                gc_path_smooth(g, NULL, 0.0f, o.diag, &old);
            /* The follower stands on one of the path's cells, the target
             * moved up to 12 cells from the path's end. */
            size_t k = rnd((uint32_t)(old.len - 1));
            assert_int_equal(gc_path_reserve(&keep, old.len - k), GC_OK);
            for (size_t j = k; j < old.len; j++)
                keep.cells[j - k] = old.cells[j];
            keep.len = old.len - k;
            gc_cell t;
            do {
                t = (gc_cell){e.x - 12 + (int32_t)rnd(25),
                              e.y - 12 + (int32_t)rnd(25)};
            } while (!gc_grid_in_bounds(g, t.x, t.y) ||
                     !gc_grid_passable(g, t.x, t.y));
            double fresh = opt_cost(as, g, keep.cells[0], t, &tmp);
            cases++;
            size_t jn = 0;
            gc_astar_stats st;
            int rc =
                gc_sim_join_path(as, g, &o, &keep, t, GC_SIM_JOIN_MAX_CELLS,
                                 &scratch, &out, &st, &jn);
            if (rc == GC_ERANGE) {
                far++;
                continue;
            }
            if (rc != GC_OK) {
                /* Only a search that could not get there (or was capped). */
                assert_true(rc == GC_EUNREACHABLE || rc == GC_ELIMIT ||
                            rc == GC_EBLOCKED);
                failed++;
                continue;
            }
            joined++;
            assert_true(fresh >= 0.0);
            assert_true(jn >= 1 && jn < keep.len);
            assert_int_equal(out.cells[0].x, keep.cells[0].x);
            assert_int_equal(out.cells[0].y, keep.cells[0].y);
            assert_int_equal(out.cells[out.len - 1].x, t.x);
            assert_int_equal(out.cells[out.len - 1].y, t.y);
            for (size_t j = 0; j <= jn; j++)
                assert_true(out.cells[j].x == keep.cells[j].x &&
                            out.cells[j].y == keep.cells[j].y);
            double cost = gc_polyline_cost(g, NULL, 0.0f, o.diag, &out);
            if (!isfinite(cost))
                fail_msg("map %d case %d: the joined path is not valid", m, c);
            double joint = opt_cost(as, g, keep.cells[jn], t, &tmp);
            double bound = fresh + 2.0 * joint + 1e-6;
            if (!(cost <= bound))
                fail_msg("map %d case %d: joined %.3f > fresh %.3f + 2 * "
                         "joint %.3f",
                         m, c, cost, fresh, joint);
            gc_path_smooth(g, NULL, 0.0f, o.diag, &out);
            double sc = gc_polyline_cost(g, NULL, 0.0f, o.diag, &out);
            assert_true(isfinite(sc) && sc <= cost + 1e-9 * cost);
        }
        gc_path_free(&old);
        gc_path_free(&keep);
        gc_path_free(&scratch);
        gc_path_free(&out);
        gc_path_free(&tmp);
        gc_astar_free(as);
        gc_grid_free(g);
    }
    print_message("join: %d cases, %d joined, %d too far, %d failed\n", cases,
                  joined, far, failed);
    assert_true(joined > cases / 2);
}

/* A follower after a wandering target on an open map, with reuse on or
 * off: it reaches its stop distance once the target stops. */
static void
follow_run(bool reuse, gc_sim_stats *out)
{
    gc_grid *g;
    assert_int_equal(gc_grid_new(&g, 60, 40), GC_OK);
    for (int32_t y = 5; y < 35; y++)
        gc_grid_set(g, 30, y, GC_CELL_OBSTACLE);
    gc_sim_config c;
    gc_sim_config_init(&c);
    c.agents = 0;
    c.max_agents = 2;
    c.follow_reuse = reuse;
    gc_sim *s;
    gc_error err;
    assert_int_equal(gc_sim_new(&s, g, &c, &err), GC_OK);
    gc_spawn_spec ts = {.x = 10.5f,
                        .y = 20.5f,
                        .speed = 2.0f,
                        .turn_rate = -1.0f,
                        .wander_radius = 6.0f};
    gc_spawn_spec fs = {
        .x = 50.5f, .y = 20.5f, .turn_rate = -1.0f, .wander_radius = -1.0f};
    gc_agent_handle t, f;
    assert_int_equal(gc_sim_spawn(s, &ts, &t, &err), GC_OK);
    assert_int_equal(gc_sim_spawn(s, &fs, &f, &err), GC_OK);
    assert_int_equal(gc_sim_set_goal_wander(s, t, &err), GC_OK);
    assert_int_equal(gc_sim_set_goal_follow(s, f, t, 2.0f, &err), GC_OK);
    for (int k = 0; k < 60 * 30; k++)
        assert_int_equal(gc_sim_tick(s), GC_OK);
    assert_int_equal(gc_sim_set_goal_stop(s, t, &err), GC_OK);
    for (int k = 0; k < 60 * 20; k++)
        assert_int_equal(gc_sim_tick(s), GC_OK);
    size_t fi, ti;
    assert_int_equal(gc_sim_resolve(s, f, &fi), GC_OK);
    assert_int_equal(gc_sim_resolve(s, t, &ti), GC_OK);
    const gc_agent *fa = gc_sim_agent(s, fi), *ta = gc_sim_agent(s, ti);
    float d = hypotf(fa->pos.x - ta->pos.x, fa->pos.y - ta->pos.y);
    if (!(d <= 2.0f))
        fail_msg("reuse %d: follower %.3f from its target", reuse, (double)d);
    assert_int_equal(fa->state, GC_AGENT_ARRIVED);
    gc_sim_stats_total(s, out);
    gc_sim_free(s);
    gc_grid_free(g);
}

static void
test_follow_reaches(void **state)
{
    (void)state;
    gc_sim_stats on, off;
    follow_run(true, &on);
    follow_run(false, &off);
    print_message("reuse: %llu joined, %llu full; without: %llu, %llu\n",
                  (unsigned long long)on.follow_reused,
                  (unsigned long long)on.follow_full,
                  (unsigned long long)off.follow_reused,
                  (unsigned long long)off.follow_full);
    assert_true(on.follow_reused > 0);
    assert_true(on.follow_full >= 1); /* the first plan */
    assert_int_equal(off.follow_reused, 0);
    assert_true(off.follow_full > 1);
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_join_random),
        cmocka_unit_test(test_follow_reaches),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
