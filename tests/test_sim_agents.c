/*
 * test_sim_agents.c: agents driven from outside (sim.h: gc_sim_spawn and
 * the calls after it).
 *
 * - Handles: spawn into an empty sim, resolve, handle of a slot, capacity,
 *   live count, the agent's own fields.
 * - Every refusal of spawn, each with its code, and that a refusal changes
 *   nothing.
 * - Remove: stale handles fail with GC_EGONE for every call, after the
 *   removal and after the slot was reused; slots are reused lowest first;
 *   free slots read as NULL and count in no state.
 * - Goals: point (arrives in the goal cell), wander, stop, follow (stops
 *   near the target, goes idle when the target is removed) and their
 *   refusals.
 * - Speed and radius: an agent covers its own speed * dt a tick; a body
 *   too wide for a gap does not pass it while a point does; refusals.
 * - Avoidance with holes: a removed agent is nobody's neighbour.
 * - Determinism: one sequence of calls with 1 and 2 threads, with and
 *   without avoidance, gives identical runs.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <gridcrowd/mapio.h>
#include <gridcrowd/sim.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* 20 x 10: a wall down column 10 with a one-cell gap at (10, 5). */
static const char *rows[] = {
    "..........@.........", "..........@.........", "..........@.........",
    "..........@.........", "..........@.........", "....................",
    "..........@.........", "..........@.........", "..........@.........",
    "..........@.........",
};

static gc_grid *
map(void)
{
    gc_grid *g;
    assert_int_equal(gc_grid_new(&g, 20, 10), GC_OK);
    for (int y = 0; y < 10; y++)
        for (int x = 0; x < 20; x++)
            gc_grid_set(g, x, y, gc_cell_type_from_glyph(rows[y][x]));
    return g;
}

/* An empty sim (no agents placed) with room for `cap`. */
static gc_sim *
empty_sim(gc_grid *g, uint32_t cap, int threads, gc_avoid avoid, float radius)
{
    gc_sim_config c;
    gc_sim_config_init(&c);
    c.agents = 0;
    c.max_agents = cap;
    c.threads = threads;
    c.avoid = avoid;
    c.radius = radius;
    gc_sim *s;
    gc_error err;
    int rc = gc_sim_new(&s, g, &c, &err);
    if (rc != GC_OK)
        fail_msg("gc_sim_new: %s", err.msg);
    return s;
}

static gc_agent_handle
spawn_at(gc_sim *s, float x, float y)
{
    gc_spawn_spec sp = {.x = x, .y = y};
    gc_agent_handle h = GC_AGENT_NONE;
    gc_error err;
    int rc = gc_sim_spawn(s, &sp, &h, &err);
    if (rc != GC_OK)
        fail_msg("spawn at (%g, %g): %s", (double)x, (double)y, err.msg);
    assert_int_not_equal(h, GC_AGENT_NONE);
    return h;
}

static const gc_agent *
agent_of(const gc_sim *s, gc_agent_handle h)
{
    size_t i;
    assert_int_equal(gc_sim_resolve(s, h, &i), GC_OK);
    const gc_agent *a = gc_sim_agent(s, i);
    assert_non_null(a);
    return a;
}

static void
ticks(gc_sim *s, int n)
{
    for (int t = 0; t < n; t++)
        assert_int_equal(gc_sim_tick(s), GC_OK);
}

/* Two agents with their own turn rates (and a third with the sim's
 * default, at once) turn towards the same direction at their own rates. */
static void
test_turn_rate_per_agent(void **state)
{
    (void)state;
    gc_grid *g = map();
    gc_sim *s = empty_sim(g, 4, 1, GC_AVOID_NONE, 0.0f);
    gc_error err;
    /* Heading 0 (east), goal straight south: they must turn 90 degrees. */
    const float rates[3] = {45.0f, 90.0f, -1.0f};
    const float xs[3] = {2.5f, 5.5f, 7.5f};
    gc_agent_handle h[3];
    for (int k = 0; k < 3; k++) {
        gc_spawn_spec sp = {.x = xs[k], .y = 0.5f, .has_goal = true,
                            .goal_x = xs[k], .goal_y = 8.5f,
                            .turn_rate = rates[k], .wander_radius = -1.0f};
        assert_int_equal(gc_sim_spawn(s, &sp, &h[k], &err), GC_OK);
    }
    /* 30 ticks at 60 Hz: planned and moving from the first. */
    ticks(s, 30);
    const float deg = 3.14159265f / 180.0f;
    assert_float_equal(agent_of(s, h[0])->heading, 22.5f * deg, 1e-4);
    assert_float_equal(agent_of(s, h[1])->heading, 45.0f * deg, 1e-4);
    assert_float_equal(agent_of(s, h[2])->heading, 90.0f * deg, 1e-4);
    /* The slow one has walked less: it walks at speed * cos(off). */
    assert_true(agent_of(s, h[0])->travelled < agent_of(s, h[1])->travelled);
    ticks(s, 30);
    assert_float_equal(agent_of(s, h[0])->heading, 45.0f * deg, 1e-4);
    assert_float_equal(agent_of(s, h[1])->heading, 90.0f * deg, 1e-4);

    /* The setter: errors, then a new rate from the next tick. */
    assert_int_equal(gc_sim_set_turn_rate(s, h[0], NAN, &err), GC_ERANGE);
    assert_int_equal(gc_sim_set_turn_rate(s, h[0], 2e5f, &err), GC_ERANGE);
    /* (-inf was taken for "the default", as any negative rate is.) */
    assert_int_equal(gc_sim_set_turn_rate(s, h[0], -INFINITY, &err), GC_ERANGE);
    assert_int_equal(gc_sim_set_wander_radius(s, h[0], INFINITY, &err),
                     GC_ERANGE);
    assert_int_equal(gc_sim_set_turn_rate(s, GC_AGENT_NONE, 1.0f, &err),
                     GC_EINVAL);
    assert_int_equal(gc_sim_set_turn_rate(s, h[0], 0.0f, &err), GC_OK);
    ticks(s, 1);
    assert_float_equal(agent_of(s, h[0])->heading, 90.0f * deg, 1e-4);
    gc_spawn_spec bad = {.x = 12.5f, .y = 0.5f, .turn_rate = INFINITY};
    assert_int_equal(gc_sim_spawn(s, &bad, NULL, &err), GC_ERANGE);
    gc_sim_free(s);
    gc_grid_free(g);
}

/* Wanderers of two radii: every goal is drawn within the agent's own
 * radius (in cells, each axis) of the cell it stands in when it draws it;
 * the wider ones do go further. */
static void
test_wander_radius_per_agent(void **state)
{
    (void)state;
    gc_grid *g;
    assert_int_equal(gc_grid_new(&g, 40, 40), GC_OK);
    gc_sim *s = empty_sim(g, 16, 2, GC_AVOID_NONE, 0.0f);
    gc_error err;
    gc_agent_handle h[16];
    for (int k = 0; k < 16; k++) {
        gc_spawn_spec sp = {.x = 4.5f + 2.0f * (float)k, .y = 20.5f,
                            .speed = 8.0f, .turn_rate = -1.0f,
                            /* 2 cells, and 6 (5.5 rounds up) */
                            .wander_radius = k % 2 ? 5.5f : 2.0f};
        assert_int_equal(gc_sim_spawn(s, &sp, &h[k], &err), GC_OK);
        assert_int_equal(gc_sim_set_goal_wander(s, h[k], &err), GC_OK);
    }
    int drawn[2] = {0, 0}, wide[2] = {0, 0};
    gc_cell last[16];
    for (int k = 0; k < 16; k++)
        last[k] = (gc_cell){-1, -1};
    for (int t = 0; t < 600; t++) {
        for (int k = 0; k < 16; k++) {
            const gc_agent *a = agent_of(s, h[k]);
            if (a->state != GC_AGENT_WAITING ||
                (a->goal.x == last[k].x && a->goal.y == last[k].y))
                continue;
            /* A goal drawn since the last tick, where it stands. */
            last[k] = a->goal;
            gc_cell at = gc_grid_world_to_cell(g, a->pos);
            int r = k % 2 ? 6 : 2;
            int dx = abs(a->goal.x - at.x), dy = abs(a->goal.y - at.y);
            if (dx > r || dy > r)
                fail_msg("agent %d (radius %d) at (%d, %d) drew (%d, %d)", k,
                         r, at.x, at.y, a->goal.x, a->goal.y);
            drawn[k % 2]++;
            wide[k % 2] += dx > 2 || dy > 2;
        }
        assert_int_equal(gc_sim_tick(s), GC_OK);
    }
    assert_true(drawn[0] > 40 && drawn[1] > 20);
    assert_int_equal(wide[0], 0);
    assert_true(wide[1] > drawn[1] / 4);
    gc_sim_free(s);
    gc_grid_free(g);
}

static void
test_spawn_handles(void **state)
{
    (void)state;
    gc_grid *g = map();
    gc_sim *s = empty_sim(g, 4, 1, GC_AVOID_NONE, 0.0f);
    assert_int_equal(gc_sim_capacity(s), 4);
    assert_int_equal(gc_sim_agent_count(s), 0);
    assert_int_equal(gc_sim_live_count(s), 0);
    assert_null(gc_sim_agent(s, 0));
    assert_int_equal(gc_sim_handle(s, 0), GC_AGENT_NONE);

    gc_spawn_spec sp = {.x = 2.25f, .y = 3.5f, .speed = 2.0f, .group = 7};
    gc_agent_handle h[3];
    gc_error err;
    assert_int_equal(gc_sim_spawn(s, &sp, &h[0], &err), GC_OK);
    h[1] = spawn_at(s, 4.5f, 4.5f);
    h[2] = spawn_at(s, 15.5f, 2.5f);
    for (int k = 0; k < 3; k++) {
        size_t i = 99;
        assert_int_not_equal(h[k], GC_AGENT_NONE);
        assert_int_equal(gc_sim_resolve(s, h[k], &i), GC_OK);
        assert_int_equal(i, (size_t)k);
        assert_int_equal(gc_sim_handle(s, i), h[k]);
        assert_int_equal(gc_agent_handle_index(h[k]), k);
        assert_int_equal(gc_agent_handle_salt(h[k]), 1);
    }
    assert_int_equal(gc_sim_agent_count(s), 3);
    assert_int_equal(gc_sim_live_count(s), 3);
    const gc_agent *a = agent_of(s, h[0]);
    assert_float_equal(a->pos.x, 2.25f, 0.0f); /* exactly where asked */
    assert_float_equal(a->pos.y, 3.5f, 0.0f);
    assert_float_equal(a->speed, 2.0f, 0.0f);
    assert_float_equal(a->radius, 0.0f, 0.0f);
    assert_int_equal(a->state, GC_AGENT_IDLE); /* no goal: idle */
    assert_int_equal(gc_sim_agent_group(s, 0), 7);
    /* Defaults: the sim's speed. */
    assert_float_equal(agent_of(s, h[1])->speed, gc_sim_motion(s)->speed, 0.0f);
    /* An idle agent stays put. */
    ticks(s, 10);
    assert_float_equal(agent_of(s, h[0])->pos.x, 2.25f, 0.0f);
    gc_sim_free(s);
    gc_grid_free(g);
}

static void
expect_refused(gc_sim *s, const gc_spawn_spec *sp, int code, const char *says)
{
    gc_agent_handle h = 12345;
    gc_error err;
    gc_error_clear(&err);
    size_t live = gc_sim_live_count(s), count = gc_sim_agent_count(s);
    assert_int_equal(gc_sim_spawn(s, sp, &h, &err), code);
    assert_int_equal(err.code, code);
    assert_int_equal(h, GC_AGENT_NONE);
    if (says != NULL && strstr(err.msg, says) == NULL)
        fail_msg("refusal says \"%s\", not \"%s\"", err.msg, says);
    assert_int_equal(gc_sim_live_count(s), live);
    assert_int_equal(gc_sim_agent_count(s), count);
}

static void
test_spawn_refusals(void **state)
{
    (void)state;
    gc_grid *g = map();
    gc_sim *s = empty_sim(g, 3, 1, GC_AVOID_NONE, 0.4f);
    /* Off the map, NaN, in a wall, a goal off the map or in a wall. */
    expect_refused(s, &(gc_spawn_spec){.x = -0.5f, .y = 1.5f}, GC_EOUTSIDE,
                   "off");
    expect_refused(s, &(gc_spawn_spec){.x = 1.5f, .y = 10.0f}, GC_EOUTSIDE,
                   "off");
    expect_refused(s, &(gc_spawn_spec){.x = NAN, .y = 1.5f}, GC_EOUTSIDE, NULL);
    expect_refused(s, &(gc_spawn_spec){.x = 10.5f, .y = 1.5f}, GC_EBLOCKED,
                   "impassable");
    expect_refused(s,
                   &(gc_spawn_spec){.x = 1.5f,
                                    .y = 1.5f,
                                    .has_goal = true,
                                    .goal_x = 25.0f,
                                    .goal_y = 1.0f},
                   GC_EOUTSIDE, "goal");
    expect_refused(s,
                   &(gc_spawn_spec){.x = 1.5f,
                                    .y = 1.5f,
                                    .has_goal = true,
                                    .goal_x = 10.5f,
                                    .goal_y = 1.0f},
                   GC_EBLOCKED, "goal");
    /* A body of 0.4 centred 0.2 from the wall reaches into it. */
    expect_refused(s, &(gc_spawn_spec){.x = 9.8f, .y = 1.5f}, GC_EOVERLAP,
                   "wall");
    /* Bad radius and speed. */
    expect_refused(s, &(gc_spawn_spec){.x = 3.5f, .y = 1.5f, .radius = 9.0f},
                   GC_ERANGE, "radius");
    expect_refused(s, &(gc_spawn_spec){.x = 3.5f, .y = 1.5f, .radius = NAN},
                   GC_ERANGE, "radius");
    expect_refused(s, &(gc_spawn_spec){.x = 3.5f, .y = 1.5f, .speed = 1000.0f},
                   GC_ERANGE, "speed");
    expect_refused(s, &(gc_spawn_spec){.x = 3.5f, .y = 1.5f, .speed = INFINITY},
                   GC_ERANGE, "speed");
    /* Another body: 0.5 apart is closer than 0.4 + 0.4. */
    gc_agent_handle a = spawn_at(s, 3.5f, 1.5f);
    char who[32];
    snprintf(who, sizeof who, "agent %#x", (unsigned)a);
    expect_refused(s, &(gc_spawn_spec){.x = 4.0f, .y = 1.5f}, GC_EOVERLAP, who);
    /* Touching is not overlapping. */
    spawn_at(s, 4.3f, 1.5f);
    spawn_at(s, 6.5f, 6.5f);
    /* Full. */
    expect_refused(s, &(gc_spawn_spec){.x = 15.5f, .y = 5.5f}, GC_ECAPACITY,
                   "slots");
    gc_sim_free(s);
    gc_grid_free(g);
}

static void
test_remove_and_reuse(void **state)
{
    (void)state;
    gc_grid *g = map();
    gc_sim *s = empty_sim(g, 5, 1, GC_AVOID_NONE, 0.0f);
    gc_agent_handle h[5];
    for (int k = 0; k < 5; k++)
        h[k] = spawn_at(s, 1.5f + (float)k, 1.5f);
    gc_error err;
    assert_int_equal(gc_sim_remove(s, h[3], &err), GC_OK);
    assert_int_equal(gc_sim_remove(s, h[1], &err), GC_OK);
    assert_int_equal(gc_sim_live_count(s), 3);
    assert_int_equal(gc_sim_agent_count(s), 5); /* slots to scan */
    assert_null(gc_sim_agent(s, 1));
    assert_null(gc_sim_agent(s, 3));
    assert_non_null(gc_sim_agent(s, 4));
    assert_int_equal(gc_sim_handle(s, 1), GC_AGENT_NONE);
    /* Free slots count in no state. */
    gc_sim_stats st;
    gc_sim_stats_total(s, &st);
    uint64_t sum = 0;
    for (int k = 0; k < GC_AGENT_NSTATES; k++)
        sum += st.by_state[k];
    assert_int_equal(sum, 3);

    /* Every call on a removed agent: GC_EGONE, saying so. */
    gc_agent_handle old = h[1];
    size_t idx;
    assert_int_equal(gc_sim_resolve(s, old, &idx), GC_EGONE);
    assert_int_equal(gc_sim_remove(s, old, &err), GC_EGONE);
    assert_non_null(strstr(err.msg, "removed"));
    assert_int_equal(gc_sim_set_goal_point(s, old, 5.5f, 5.5f, &err), GC_EGONE);
    assert_int_equal(gc_sim_set_goal_wander(s, old, &err), GC_EGONE);
    assert_int_equal(gc_sim_set_goal_stop(s, old, &err), GC_EGONE);
    assert_int_equal(gc_sim_set_goal_follow(s, old, h[0], 1.0f, &err),
                     GC_EGONE);
    assert_int_equal(gc_sim_set_goal_follow(s, h[0], old, 1.0f, &err),
                     GC_EGONE);
    assert_int_equal(gc_sim_set_speed(s, old, 1.0f, &err), GC_EGONE);
    assert_int_equal(gc_sim_set_radius(s, old, 0.2f, &err), GC_EGONE);
    /* No handle, or a slot past the capacity: GC_EINVAL. */
    assert_int_equal(gc_sim_resolve(s, GC_AGENT_NONE, &idx), GC_EINVAL);
    assert_int_equal(gc_sim_remove(s, GC_AGENT_NONE, &err), GC_EINVAL);
    assert_int_equal(gc_sim_resolve(s, (1u << GC_AGENT_INDEX_BITS) | 5u, &idx),
                     GC_EINVAL);
    /* A salt that never was: GC_EGONE too. */
    assert_int_equal(gc_sim_resolve(s, (7u << GC_AGENT_INDEX_BITS) | 0u, &idx),
                     GC_EGONE);

    /* Reuse: lowest free slot first, with the next salt. */
    gc_agent_handle n1 = spawn_at(s, 7.5f, 7.5f);
    gc_agent_handle n3 = spawn_at(s, 8.5f, 7.5f);
    gc_agent_handle n5 = GC_AGENT_NONE;
    assert_int_equal(gc_agent_handle_index(n1), 1);
    assert_int_equal(gc_agent_handle_index(n3), 3);
    assert_int_equal(gc_agent_handle_salt(n1), 2);
    assert_int_not_equal(n1, old);
    /* The old handle still fails; the new one names the new agent. */
    assert_int_equal(gc_sim_resolve(s, old, &idx), GC_EGONE);
    assert_int_equal(gc_sim_resolve(s, h[3], &idx), GC_EGONE);
    assert_int_equal(gc_sim_resolve(s, n1, &idx), GC_OK);
    assert_int_equal(idx, 1);
    assert_float_equal(gc_sim_agent(s, 1)->pos.x, 7.5f, 0.0f);
    assert_int_equal(gc_sim_set_goal_stop(s, old, &err), GC_EGONE);
    /* Full again. */
    gc_spawn_spec sp = {.x = 9.5f, .y = 9.5f};
    assert_int_equal(gc_sim_spawn(s, &sp, &n5, &err), GC_ECAPACITY);
    assert_int_equal(gc_sim_live_count(s), 5);
    /* Salts wrap without ever making handle 0. */
    for (uint32_t k = 0; k < GC_AGENT_SALT_MAX + 2; k++) {
        assert_int_equal(gc_sim_remove(s, n1, &err), GC_OK);
        n1 = spawn_at(s, 7.5f, 7.5f);
        assert_int_equal(gc_agent_handle_index(n1), 1);
        assert_true(gc_agent_handle_salt(n1) >= 1);
    }
    gc_sim_free(s);
    gc_grid_free(g);
}

/* Tick until every listed agent is in `st` (at most max ticks). */
static void
until_state(gc_sim *s, const gc_agent_handle *h, int n, int st, int max)
{
    for (int t = 0; t < max; t++) {
        int ok = 0;
        for (int k = 0; k < n; k++)
            ok += agent_of(s, h[k])->state == st;
        if (ok == n)
            return;
        ticks(s, 1);
    }
    fail_msg("not all %s after %d ticks", gc_agent_state_name(st), max);
}

static void
test_goal_point_wander_stop(void **state)
{
    (void)state;
    gc_grid *g = map();
    gc_sim *s = empty_sim(g, 4, 1, GC_AVOID_NONE, 0.0f);
    gc_agent_handle a = spawn_at(s, 2.5f, 2.5f);
    gc_error err;
    /* Refusals change nothing. */
    assert_int_equal(gc_sim_set_goal_point(s, a, 10.5f, 0.5f, &err),
                     GC_EBLOCKED);
    assert_int_equal(gc_sim_set_goal_point(s, a, 20.0f, 0.5f, &err),
                     GC_EOUTSIDE);
    assert_int_equal(agent_of(s, a)->state, GC_AGENT_IDLE);
    /* Through the gap to the other side. */
    assert_int_equal(gc_sim_set_goal_point(s, a, 16.2f, 8.7f, &err), GC_OK);
    assert_int_equal(agent_of(s, a)->state, GC_AGENT_WAITING);
    until_state(s, &a, 1, GC_AGENT_ARRIVED, 60 * 20);
    gc_cell at = gc_grid_world_to_cell(g, agent_of(s, a)->pos);
    assert_int_equal(at.x, 16);
    assert_int_equal(at.y, 8);
    /* Wander: it gets going, and keeps going. */
    assert_int_equal(gc_sim_set_goal_wander(s, a, &err), GC_OK);
    ticks(s, 2);
    assert_int_equal(agent_of(s, a)->state, GC_AGENT_MOVING);
    gc_sim_stats st;
    gc_sim_stats_total(s, &st);
    uint64_t arrivals = st.arrivals;
    ticks(s, 60 * 30);
    gc_sim_stats_total(s, &st);
    assert_true(st.arrivals > arrivals + 1);
    assert_false(gc_sim_done(s));
    /* Stop: idle where it stands, and it stays. */
    ticks(s, 1);
    while (agent_of(s, a)->state != GC_AGENT_MOVING)
        ticks(s, 1);
    assert_int_equal(gc_sim_set_goal_stop(s, a, &err), GC_OK);
    gc_vec2 p = agent_of(s, a)->pos;
    ticks(s, 60);
    assert_int_equal(agent_of(s, a)->state, GC_AGENT_IDLE);
    assert_float_equal(agent_of(s, a)->pos.x, p.x, 0.0f);
    assert_float_equal(agent_of(s, a)->pos.y, p.y, 0.0f);
    gc_sim_free(s);
    gc_grid_free(g);
}

static void
test_follow(void **state)
{
    (void)state;
    gc_grid *g = map();
    gc_sim *s = empty_sim(g, 4, 1, GC_AVOID_NONE, 0.0f);
    gc_agent_handle t = spawn_at(s, 1.5f, 8.5f);
    gc_agent_handle f = spawn_at(s, 1.5f, 1.5f);
    gc_error err;
    assert_int_equal(gc_sim_set_goal_follow(s, f, f, 1.0f, &err), GC_EINVAL);
    assert_int_equal(gc_sim_set_goal_follow(s, f, t, -1.0f, &err), GC_ERANGE);
    assert_int_equal(gc_sim_set_goal_follow(s, f, t, NAN, &err), GC_ERANGE);
    assert_int_equal(agent_of(s, f)->state, GC_AGENT_IDLE);
    /* The target walks to the far corner, slowly; the follower keeps
     * within reach and stops 2 units from it when it stops. */
    assert_int_equal(gc_sim_set_speed(s, t, 2.0f, &err), GC_OK);
    assert_int_equal(gc_sim_set_goal_point(s, t, 18.5f, 1.5f, &err), GC_OK);
    assert_int_equal(gc_sim_set_goal_follow(s, f, t, 2.0f, &err), GC_OK);
    assert_int_equal(agent_of(s, f)->state, GC_AGENT_WAITING);
    until_state(s, &t, 1, GC_AGENT_ARRIVED, 60 * 30);
    ticks(s, 60 * 5);
    const gc_agent *fa = agent_of(s, f), *ta = agent_of(s, t);
    float d = hypotf(fa->pos.x - ta->pos.x, fa->pos.y - ta->pos.y);
    if (!(d <= 2.0f && d >= 1.0f))
        fail_msg("follower %.3f from its target", (double)d);
    assert_int_equal(fa->state, GC_AGENT_ARRIVED);
    assert_false(gc_sim_done(s)); /* a follower goes on when it moves */
    /* The target moves off again: the follower goes after it. */
    assert_int_equal(gc_sim_set_goal_point(s, t, 18.5f, 8.5f, &err), GC_OK);
    ticks(s, 60 * 2);
    assert_int_equal(agent_of(s, f)->state, GC_AGENT_MOVING);
    /* The target removed: the follower stops at once. */
    assert_int_equal(gc_sim_remove(s, t, &err), GC_OK);
    assert_int_equal(agent_of(s, f)->state, GC_AGENT_IDLE);
    ticks(s, 10);
    assert_int_equal(agent_of(s, f)->state, GC_AGENT_IDLE);
    gc_sim_free(s);
    gc_grid_free(g);
}

static void
test_speed_and_radius(void **state)
{
    (void)state;
    gc_grid *g = map();
    gc_sim *s = empty_sim(g, 4, 1, GC_AVOID_NONE, 0.0f);
    gc_agent_handle a = spawn_at(s, 1.5f, 0.5f);
    gc_agent_handle b = spawn_at(s, 1.5f, 3.5f);
    gc_error err;
    assert_int_equal(gc_sim_set_speed(s, a, 0.0f, &err), GC_ERANGE);
    assert_int_equal(gc_sim_set_speed(s, a, -1.0f, &err), GC_ERANGE);
    assert_int_equal(gc_sim_set_speed(s, a, 31.0f, &err), GC_ERANGE);
    assert_int_equal(gc_sim_set_speed(s, a, 3.0f, &err), GC_OK);
    assert_int_equal(gc_sim_set_speed(s, b, 1.5f, &err), GC_OK);
    assert_int_equal(gc_sim_set_goal_point(s, a, 8.5f, 0.5f, &err), GC_OK);
    assert_int_equal(gc_sim_set_goal_point(s, b, 8.5f, 3.5f, &err), GC_OK);
    ticks(s, 1); /* planned and a first step */
    float xa = agent_of(s, a)->pos.x, xb = agent_of(s, b)->pos.x;
    ticks(s, 30);
    assert_float_equal(agent_of(s, a)->pos.x - xa, 3.0f * 0.5f, 1e-3f);
    assert_float_equal(agent_of(s, b)->pos.x - xb, 1.5f * 0.5f, 1e-3f);

    /* Radius: a point goes through the one-cell gap; a body of 0.8
     * cannot (the gap's clearance is 0.5) and gets no further than its
     * side. */
    assert_int_equal(gc_sim_set_radius(s, a, -0.1f, &err), GC_ERANGE);
    assert_int_equal(gc_sim_set_radius(s, a, 8.5f, &err), GC_ERANGE);
    assert_int_equal(gc_sim_set_radius(s, a, NAN, &err), GC_ERANGE);
    assert_int_equal(gc_sim_remove(s, a, &err), GC_OK);
    assert_int_equal(gc_sim_remove(s, b, &err), GC_OK);
    gc_agent_handle p = spawn_at(s, 3.5f, 5.5f);
    gc_agent_handle w = spawn_at(s, 3.5f, 2.5f);
    assert_int_equal(gc_sim_set_radius(s, w, 0.8f, &err), GC_OK);
    assert_float_equal(agent_of(s, w)->radius, 0.8f, 0.0f);
    assert_int_equal(gc_sim_set_goal_point(s, p, 16.5f, 5.5f, &err), GC_OK);
    assert_int_equal(gc_sim_set_goal_point(s, w, 16.5f, 2.5f, &err), GC_OK);
    ticks(s, 60 * 15);
    assert_int_equal(agent_of(s, p)->state, GC_AGENT_ARRIVED);
    assert_true(agent_of(s, p)->pos.x > 11.0f);
    assert_true(agent_of(s, w)->pos.x < 10.0f);
    assert_int_equal(agent_of(s, w)->state, GC_AGENT_UNREACHABLE);
    /* Shrunk, it is planned again and goes through. */
    assert_int_equal(gc_sim_set_radius(s, w, 0.3f, &err), GC_OK);
    assert_int_equal(agent_of(s, w)->state, GC_AGENT_WAITING);
    ticks(s, 60 * 15);
    assert_int_equal(agent_of(s, w)->state, GC_AGENT_ARRIVED);
    assert_true(agent_of(s, w)->pos.x > 11.0f);
    gc_sim_free(s);
    gc_grid_free(g);
}

/* With avoidance, a removed agent is nobody's neighbour: a walker heads
 * straight through where it stood. */
static void
test_orca_holes(void **state)
{
    (void)state;
    gc_grid *g = map();
    gc_sim *s = empty_sim(g, 8, 2, GC_AVOID_ORCA, 0.3f);
    gc_agent_handle walker = spawn_at(s, 12.5f, 4.5f);
    gc_agent_handle blocker = spawn_at(s, 15.5f, 4.5f);
    spawn_at(s, 12.5f, 8.5f);
    gc_error err;
    assert_int_equal(gc_sim_remove(s, blocker, &err), GC_OK);
    /* A larger body in the freed slot's neighbourhood, elsewhere. */
    gc_spawn_spec sp = {.x = 16.5f, .y = 8.5f, .radius = 0.45f};
    gc_agent_handle big;
    assert_int_equal(gc_sim_spawn(s, &sp, &big, &err), GC_OK);
    assert_int_equal(gc_agent_handle_index(big), 1);
    assert_int_equal(gc_sim_remove(s, big, &err), GC_OK);
    assert_int_equal(gc_sim_set_goal_point(s, walker, 18.5f, 4.5f, &err),
                     GC_OK);
    for (int t = 0; t < 60 * 5; t++) {
        ticks(s, 1);
        const gc_agent *a = agent_of(s, walker);
        if (fabsf(a->pos.y - 4.5f) > 1e-3f)
            fail_msg("tick %d: the walker swerved to y %f", t,
                     (double)a->pos.y);
    }
    assert_int_equal(agent_of(s, walker)->state, GC_AGENT_ARRIVED);
    gc_sim_stats st;
    gc_sim_stats_total(s, &st);
    assert_int_equal(st.in_wall, 0);
    gc_sim_free(s);
    gc_grid_free(g);
}

/* One sequence of calls; the final state into out (x, y, state, handle
 * per slot). */
static void
scripted_run(int threads, gc_avoid avoid, float radius, double *out,
             size_t nout)
{
    gc_grid *g = map();
    gc_sim *s = empty_sim(g, 40, threads, avoid, radius);
    gc_agent_handle h[40];
    gc_error err;
    int n = 0;
    for (int y = 1; y < 10; y += 2)
        for (int x = 1; x < 20 && n < 30; x += 2) {
            if (x == 10 || x == 9 || x == 11)
                continue;
            h[n++] = spawn_at(s, (float)x + 0.5f, (float)y + 0.5f);
        }
    for (int k = 0; k < n; k++) {
        if (k % 3 == 0)
            assert_int_equal(gc_sim_set_goal_wander(s, h[k], &err), GC_OK);
        else if (k % 3 == 1)
            assert_int_equal(
                gc_sim_set_goal_point(s, h[k], (float)(k % 7) * 3.0f + 0.5f,
                                      (float)(k % 10) + 0.5f, &err),
                GC_OK);
        else
            assert_int_equal(
                gc_sim_set_goal_follow(s, h[k], h[k - 1], 1.5f, &err), GC_OK);
    }
    ticks(s, 60);
    for (int k = 0; k < n; k += 4)
        assert_int_equal(gc_sim_remove(s, h[k], &err), GC_OK);
    assert_int_equal(gc_sim_set_speed(s, h[1], 2.5f, &err), GC_OK);
    ticks(s, 30);
    for (int k = 0; k < 5; k++) {
        gc_spawn_spec sp = {.x = 10.5f,
                            .y = 5.5f,
                            .has_goal = true,
                            .goal_x = 1.5f + (float)k,
                            .goal_y = 9.5f};
        gc_agent_handle nh;
        if (gc_sim_spawn(s, &sp, &nh, &err) == GC_OK)
            ticks(s, 20); /* let it clear the spot */
    }
    ticks(s, 240);
    memset(out, 0, nout * sizeof *out);
    size_t walked = 0;
    for (size_t i = 0; i < gc_sim_agent_count(s) && 4 * i + 3 < nout; i++) {
        const gc_agent *a = gc_sim_agent(s, i);
        if (a == NULL)
            continue;
        walked += a->travelled > 2.0;
        out[4 * i] = a->pos.x;
        out[4 * i + 1] = a->pos.y;
        out[4 * i + 2] = a->state;
        out[4 * i + 3] = gc_sim_handle(s, i);
    }
    /* Runs that agree must have moved: most walked two cells or more
     * (21 to 23 of the 30 spawned). */
    assert_true(walked >= 15);
    gc_sim_free(s);
    gc_grid_free(g);
}

static void
test_deterministic_any_threads(void **state)
{
    (void)state;
    enum { N = 4 * 40 };
    static double one[N], two[N], again[N];
    for (int avoid = 0; avoid <= GC_AVOID_ORCA_ADAPTIVE; avoid++) {
        float radius = avoid ? 0.3f : 0.0f;
        scripted_run(1, (gc_avoid)avoid, radius, one, N);
        scripted_run(1, (gc_avoid)avoid, radius, again, N);
        scripted_run(2, (gc_avoid)avoid, radius, two, N);
        for (int k = 0; k < N; k++) {
            if (one[k] != again[k] || one[k] != two[k])
                fail_msg("avoid %d: value %d differs: %.9g, again %.9g, "
                         "2 threads %.9g",
                         avoid, k, one[k], again[k], two[k]);
        }
    }
}

static void
test_config(void **state)
{
    (void)state;
    gc_grid *g = map();
    gc_sim_config c;
    gc_sim_config_init(&c);
    gc_sim *s;
    gc_error err;
    c.agents = 10;
    c.max_agents = 5;
    assert_int_equal(gc_sim_new(&s, g, &c, &err), GC_ERANGE);
    c.max_agents = GC_SIM_MAX_AGENTS + 1;
    assert_int_equal(gc_sim_new(&s, g, &c, &err), GC_ERANGE);
    /* max_agents 0: the agents; placed agents have handles too. */
    c.max_agents = 0;
    assert_int_equal(gc_sim_new(&s, g, &c, &err), GC_OK);
    assert_int_equal(gc_sim_capacity(s), 10);
    assert_int_equal(gc_sim_live_count(s), 10);
    gc_agent_handle h = gc_sim_handle(s, 4);
    assert_int_equal(gc_agent_handle_index(h), 4);
    gc_spawn_spec sp = {.x = 0.5f, .y = 0.5f};
    assert_int_equal(gc_sim_spawn(s, &sp, NULL, &err), GC_ECAPACITY);
    assert_int_equal(gc_sim_remove(s, h, &err), GC_OK);
    /* Tracing a free slot is refused. */
    assert_int_equal(gc_sim_trace_agent(s, 4, 64), GC_ERANGE);
    ticks(s, 30);
    gc_sim_free(s);
    gc_grid_free(g);
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_spawn_handles),
        cmocka_unit_test(test_spawn_refusals),
        cmocka_unit_test(test_remove_and_reuse),
        cmocka_unit_test(test_goal_point_wander_stop),
        cmocka_unit_test(test_follow),
        cmocka_unit_test(test_speed_and_radius),
        cmocka_unit_test(test_orca_holes),
        cmocka_unit_test(test_deterministic_any_threads),
        cmocka_unit_test(test_config),
        cmocka_unit_test(test_turn_rate_per_agent),
        cmocka_unit_test(test_wander_radius_per_agent),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
