/*
 * test_order.c: agents' ids and slots (src/sim-order.c).
 *
 * - A renumbering changes no agent: a crowd renumbered once walks on,
 *   tick for tick and bit for bit, as its twin never renumbered (every
 *   per-agent array moved, every list translated, or an agent would see
 *   other neighbours, keep another's walls or lose its plan).
 * - After it the live agents hold the first slots in the curve's order
 *   and the free slots follow in their ids' order; the id maps are
 *   inverse permutations.
 * - Ids, handles, groups and the trace keep naming the same agents;
 *   removed handles stay stale; spawns still take the lowest free id.
 * - Renumbered every 7 ticks, a crowd runs bit for bit the same on 1, 2
 *   and 3 workers, with the moves shared out among them or not, and as
 *   the same crowd never renumbered.
 */
#include "config.h"

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <gridcrowd/grid.h>
#include <gridcrowd/sim.h>

#include "../src/grid_int.h"
#include "../src/sim_int.h"

#include <math.h>
#include <string.h>

enum { SIDE = 40, AGENTS = 240 };

/* An open square with posts and two walls, so that many bodies keep wall
 * segments and clearance bytes from tick to tick. */
static gc_grid *
posts_grid(void)
{
    gc_grid *g;
    assert_int_equal(gc_grid_new(&g, SIDE, SIDE), GC_OK);
    for (int y = 4; y < SIDE; y += 6)
        for (int x = 3; x < SIDE; x += 7)
            gc_grid_set(g, x, y, GC_CELL_OBSTACLE);
    for (int x = 8; x < 30; x++)
        gc_grid_set(g, x, 20, GC_CELL_OBSTACLE);
    for (int y = 25; y < 37; y++)
        gc_grid_set(g, 20, y, GC_CELL_OBSTACLE);
    return g;
}

static gc_sim *
crowd(gc_grid *g, int threads, float reorder)
{
    gc_sim_config c;
    gc_sim_config_init(&c);
    c.agents = AGENTS;
    c.max_agents = AGENTS + 8;
    c.radius = 0.3f;
    c.avoid = GC_AVOID_ORCA;
    c.threads = threads;
    c.reorder = reorder;
    c.wander_radius = 10;
    c.seed = 11;
    /* Every request planned in the tick it is served: with the budget
     * binding, which agents plan in a tick depends on how the workers
     * share them (plan budgets are per worker). */
    c.plan_budget = 1000;
    gc_sim *s;
    gc_error err;
    assert_int_equal(gc_sim_new(&s, g, &c, &err), GC_OK);
    return s;
}

static void
ticks(gc_sim *s, int n)
{
    for (int t = 0; t < n; t++)
        assert_int_equal(gc_sim_tick(s), GC_OK);
}

/* Every live agent of a and b, by id, bit for bit: where it stands,
 * faces and goes, its state, goal and remaining waypoints, its
 * velocity and handle. */
static void
assert_same_agents(const gc_sim *a, const gc_sim *b)
{
    assert_int_equal(gc_sim_agent_count(a), gc_sim_agent_count(b));
    for (size_t id = 0; id < gc_sim_agent_count(a); id++) {
        const gc_agent *x = gc_sim_agent(a, id), *y = gc_sim_agent(b, id);
        assert_true((x == NULL) == (y == NULL));
        if (x == NULL)
            continue;
        assert_memory_equal(&x->pos, &y->pos, sizeof x->pos);
        assert_memory_equal(&x->heading, &y->heading, sizeof x->heading);
        assert_int_equal(x->state, y->state);
        assert_int_equal(x->goal.x, y->goal.x);
        assert_int_equal(x->goal.y, y->goal.y);
        assert_int_equal(gc_agent_remaining(x), gc_agent_remaining(y));
        assert_memory_equal(x->wp + x->wp_next, y->wp + y->wp_next,
                            gc_agent_remaining(x) * sizeof *x->wp);
        gc_vec2 u = gc_sim_agent_velocity(a, id),
                v = gc_sim_agent_velocity(b, id);
        assert_memory_equal(&u, &v, sizeof u);
        assert_int_equal(gc_sim_handle(a, id), gc_sim_handle(b, id));
        assert_int_equal(gc_sim_agent_group(a, id), gc_sim_agent_group(b, id));
    }
}

/* A list of slots of a, as ids, equal to one of b's. */
static void
assert_same_ids(const gc_sim *a, const uint32_t *la, const gc_sim *b,
                const uint32_t *lb, size_t n)
{
    for (size_t k = 0; k < n; k++)
        assert_int_equal(gc_sim_id_of(a, la[k]), gc_sim_id_of(b, lb[k]));
}

/* Every per-agent record of a and b, by id, byte for byte (and their
 * lists of other agents naming the same ids): what a renumbering must
 * move with each agent, whether or not the next ticks would show it
 * (a list of the wrong agents is drawn again, walls kept for another
 * box scanned again). */
static void
assert_same_records(const gc_sim *a, const gc_sim *b)
{
    size_t mn = (size_t)a->orca.max_neighbours, nc = a->near_cap;
#define SAME(field)                                                            \
    assert_memory_equal(&a->field[i], &b->field[j], sizeof a->field[i])
    for (size_t id = 0; id < a->n; id++) {
        uint32_t i = gc_sim_slot_of(a, id), j = gc_sim_slot_of(b, id);
        SAME(flags);
        SAME(slot);
        SAME(rng);
        if (!gc_sim_alive(a, i))
            continue;
        SAME(now);
        SAME(body);
        SAME(walls);
        SAME(spot_kept);
        SAME(nbr_n);
        SAME(near_n);
        SAME(near_r);
        SAME(near_x);
        SAME(near_y);
        SAME(near_t);
        SAME(contact_slack);
        assert_same_ids(a, a->nbr + i * mn, b, b->nbr + j * mn, a->nbr_n[i]);
        assert_same_ids(a, a->near + i * nc, b, b->near + j * nc, a->near_n[i]);
    }
#undef SAME
    /* The plan queues (one worker each): the same agents, in the same
     * order. */
    assert_int_equal(a->nworkers, 1);
    const gc_sim_worker *w = &a->workers[0], *v = &b->workers[0];
    assert_int_equal(w->qlen, v->qlen);
    for (uint32_t q = 0; q < w->qlen; q++)
        assert_int_equal(gc_sim_id_of(a, w->queue[(w->qhead + q) % w->qcap]),
                         gc_sim_id_of(b, v->queue[(v->qhead + q) % v->qcap]));
    assert_int_equal(w->ulen, v->ulen);
    for (uint32_t q = 0; q < w->ulen; q++)
        assert_int_equal(gc_sim_id_of(a, w->urgent[(w->uhead + q) % w->qcap]),
                         gc_sim_id_of(b, v->urgent[(v->uhead + q) % v->qcap]));
}

/* The maps inverse permutations; the live agents in slots [0, live) in
 * the curve's order; the free slots after them in their ids' order. */
static void
assert_ordered(const gc_sim *s)
{
    const gc_sim_order *o = &s->order;
    for (uint32_t k = 0; k < s->cap; k++) {
        assert_int_equal(s->id_slot[s->slot_id[k]], k);
        if (k >= s->n)
            assert_int_equal(s->slot_id[k], k);
    }
    uint64_t last = 0;
    for (uint32_t k = 0; k < s->live; k++) {
        assert_true(gc_sim_alive(s, k));
        gc_cell c = gc_grid_cell_of(s->grid, s->agents[k].pos);
        uint64_t key =
            gc_sim_hilbert_index(o->bits, (uint32_t)c.x, (uint32_t)c.y) >>
            o->shift;
        assert_true(key >= last);
        last = key;
    }
    for (uint32_t k = s->live; k < s->n; k++) {
        assert_false(gc_sim_alive(s, k));
        if (k > s->live)
            assert_true(s->slot_id[k] > s->slot_id[k - 1]);
    }
}

/* Whether any agent sits in another slot than its id's. */
static bool
moved_any(const gc_sim *s)
{
    for (uint32_t k = 0; k < s->n; k++)
        if (s->slot_id[k] != k)
            return true;
    return false;
}

static void
test_reorder_changes_no_agent(void **state)
{
    (void)state;
    gc_grid *g = posts_grid();
    gc_sim *a = crowd(g, 1, 0.0f), *b = crowd(g, 1, 0.0f);
    ticks(a, 150);
    ticks(b, 150);
    assert_same_agents(a, b);
    /* Plans waiting: new goals for some, in an order of their own, and a
     * traced agent planned again at once (the urgent queue). */
    gc_sim *both[2] = {a, b};
    for (int k = 0; k < 2; k++) {
        for (size_t q = 0; q < 20; q++) {
            size_t id = (q * 37) % AGENTS;
            assert_int_equal(gc_sim_set_goal_point(both[k],
                                                   gc_sim_handle(both[k], id),
                                                   2.5f, 2.5f, NULL),
                             GC_OK);
        }
        assert_int_equal(gc_sim_trace_agent(both[k], 77, 1024), GC_OK);
    }
    assert_true(b->workers[0].qlen >= 20);
    assert_int_equal(gc_sim_reorder(b), GC_OK);
    assert_true(moved_any(b));
    assert_ordered(b);
    assert_same_agents(a, b);
    assert_same_records(a, b);
    for (int t = 0; t < 240; t++) {
        assert_int_equal(gc_sim_tick(a), GC_OK);
        assert_int_equal(gc_sim_tick(b), GC_OK);
        assert_same_agents(a, b);
    }
    /* Still walking, and walking in the twin's steps. */
    gc_sim_stats sa, sb;
    gc_sim_stats_total(a, &sa);
    gc_sim_stats_total(b, &sb);
    assert_true(sa.arrivals > 50);
    assert_int_equal(sa.arrivals, sb.arrivals);
    assert_int_equal(sa.searches, sb.searches);
    gc_sim_free(a);
    gc_sim_free(b);
    gc_grid_free(g);
}

/* Spawn at the centre of the first cell, from the top left, where no
 * body stands within two radii (*sp's x and y say where). */
static void
spawn_clear(gc_sim *s, gc_spawn_spec *sp, gc_agent_handle *h)
{
    const gc_grid *g = gc_sim_grid(s);
    for (int y = 1; y < SIDE - 1; y++)
        for (int x = 1; x < SIDE - 1; x++) {
            if (!gc_grid_passable(g, x, y))
                continue;
            sp->x = (float)x + 0.5f;
            sp->y = (float)y + 0.5f;
            bool clear = true;
            for (size_t id = 0; clear && id < gc_sim_agent_count(s); id++) {
                const gc_agent *a = gc_sim_agent(s, id);
                clear = a == NULL ||
                        hypotf(a->pos.x - sp->x, a->pos.y - sp->y) > 0.7f;
            }
            if (clear && gc_sim_spawn(s, sp, h, NULL) == GC_OK)
                return;
        }
    fail_msg("no room to spawn");
}

static void
test_reorder_keeps_ids_and_handles(void **state)
{
    (void)state;
    gc_grid *g = posts_grid();
    gc_sim *s = crowd(g, 2, 0.0f);
    gc_error err;
    ticks(s, 60);
    gc_agent_handle gone[3];
    const size_t ids[3] = {5, 17, 40};
    for (int k = 0; k < 3; k++) {
        gone[k] = gc_sim_handle(s, ids[k]);
        assert_int_equal(gc_sim_remove(s, gone[k], &err), GC_OK);
    }
    /* A spawn takes the lowest free id, with a group to follow. */
    gc_spawn_spec sp = {.radius = -1.0f,
                        .speed = -1.0f,
                        .group = 7,
                        .turn_rate = -1.0f,
                        .wander_radius = -1.0f};
    gc_agent_handle h;
    spawn_clear(s, &sp, &h);
    assert_int_equal(gc_agent_handle_index(h), 5);
    gc_agent_handle all[AGENTS];
    gc_vec2 at[AGENTS];
    for (size_t id = 0; id < AGENTS; id++) {
        all[id] = gc_sim_handle(s, id);
        at[id] = gc_sim_agent(s, id) ? gc_sim_agent(s, id)->pos
                                     : (gc_vec2){-1.0f, -1.0f};
    }
    assert_int_equal(gc_sim_reorder(s), GC_OK);
    assert_true(moved_any(s));
    assert_ordered(s);
    for (size_t id = 0; id < AGENTS; id++) {
        assert_int_equal(gc_sim_handle(s, id), all[id]);
        if (all[id] == GC_AGENT_NONE)
            continue;
        size_t back = 99999;
        assert_int_equal(gc_sim_resolve(s, all[id], &back), GC_OK);
        assert_int_equal(back, id);
        assert_memory_equal(&gc_sim_agent(s, id)->pos, &at[id], sizeof at[id]);
    }
    assert_int_equal(gc_sim_agent_group(s, 5), 7);
    for (int k = 0; k < 3; k++)
        assert_int_equal(gc_sim_resolve(s, gone[k], NULL), GC_EGONE);
    /* Calls by handle reach the agent in its new slot. */
    assert_int_equal(gc_sim_set_speed(s, all[30], 0.5f, &err), GC_OK);
    assert_true(gc_sim_agent(s, 30)->speed == 0.5f);
    /* The free ids come back lowest first: 17, 40, then a new one. */
    for (size_t want = 0; want < 3; want++) {
        gc_agent_handle h2;
        spawn_clear(s, &sp, &h2);
        const uint32_t expect[3] = {17, 40, AGENTS};
        assert_int_equal(gc_agent_handle_index(h2), expect[want]);
        assert_true(gc_sim_agent(s, expect[want])->pos.y == sp.y);
    }
    ticks(s, 30);
    gc_sim_free(s);
    gc_grid_free(g);
}

/* The traced agent keeps its trace across a renumbering. */
static void
test_reorder_keeps_trace(void **state)
{
    (void)state;
    gc_grid *g = posts_grid();
    gc_sim *s = crowd(g, 1, 0.0f);
    ticks(s, 30);
    const uint32_t id = 123;
    assert_int_equal(gc_sim_trace_agent(s, id, 4096), GC_OK);
    assert_int_equal(gc_sim_reorder(s), GC_OK);
    assert_int_not_equal(gc_sim_slot_of(s, id), id);
    uint32_t who = UINT32_MAX;
    const gc_trace *tr = NULL;
    for (int t = 0; t < 10 && tr == NULL; t++) {
        ticks(s, 1);
        tr = gc_sim_take_trace(s, &who);
    }
    assert_non_null(tr);
    assert_int_equal(who, id);
    assert_true(tr->len > 0);
    gc_sim_free(s);
    gc_grid_free(g);
}

/* Positions by id after 420 ticks, renumbered every 7 (or never). */
static void
run_reordered(int threads, float *out, bool reorder)
{
    gc_grid *g = posts_grid();
    gc_sim *s = crowd(g, threads, reorder ? 7.0f / 60.0f : 0.0f);
    ticks(s, 420);
    assert_true(reorder ? s->order.done >= 59 : s->order.done == 0);
    for (size_t id = 0; id < AGENTS; id++) {
        out[2 * id] = gc_sim_agent(s, id)->pos.x;
        out[2 * id + 1] = gc_sim_agent(s, id)->pos.y;
    }
    gc_sim_free(s);
    gc_grid_free(g);
}

static void
test_reorder_threads_identical(void **state)
{
    (void)state;
    static float p[6][2 * AGENTS];
    run_reordered(1, p[0], true);
    run_reordered(2, p[1], true);
    run_reordered(3, p[2], true);
    /* The moves and the copy shared out among the workers. */
    unsigned keep = gc_sim_prep_shared;
    gc_sim_prep_shared = 1;
    run_reordered(2, p[3], true);
    run_reordered(3, p[4], true);
    gc_sim_prep_shared = keep;
    /* And the crowd never renumbered. */
    run_reordered(2, p[5], false);
    for (int k = 1; k < 6; k++)
        assert_memory_equal(p[0], p[k], sizeof p[0]);
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_reorder_changes_no_agent),
        cmocka_unit_test(test_reorder_keeps_ids_and_handles),
        cmocka_unit_test(test_reorder_keeps_trace),
        cmocka_unit_test(test_reorder_threads_identical),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
