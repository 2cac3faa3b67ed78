/*
 * test_sim.c: the simulation loop against known answers.
 *
 * - Determinism: same seed, one thread, two runs: identical final states.
 * - Threads: with 2 and 3 workers every agent is accounted for and never
 *   stands in an impassable cell, checked after every tick.
 * - Scen mode: every agent arrives, and with smoothing off the distance it
 *   walked equals the scenario's optimal length (our demo scenario always;
 *   the Moving AI dev files when ../shared is there).
 * - Errors: more agents than cells, an unreachable point goal.
 * - Edits: replanning the agents whose remaining walk (from where they
 *   stand) a new wall crosses; wanderers cut off from their goal draw one
 *   on their own side (issue 14); point goals reachable again are planned
 *   again; nobody ever stands in a wall.
 * - Units: motion in world units, defaults converted from cells.
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

/* 24 x 12 map with all four types and a wall with two gaps. */
static const char *small_rows[] = {
    "........................", "..RRRRRRRRRRRRRRRRRRR...",
    "..R.........@.......R...", "..R..SSSS...@...SS..R...",
    "..R..SSSS...@...SS..R...", "..R.........@.......R...",
    "..R.....@@@@@.......R...", "..R.................R...",
    "..RRRRRRRRRRRRRRRRRRR...", "............@...........",
    "....SSS.....@....@@@....", "............@...........",
};

static gc_grid *
small_grid(void)
{
    gc_grid *g;
    assert_int_equal(gc_grid_new(&g, 24, 12), GC_OK);
    for (int y = 0; y < 12; y++)
        for (int x = 0; x < 24; x++)
            gc_grid_set(g, x, y, gc_cell_type_from_glyph(small_rows[y][x]));
    return g;
}

static void
assert_all_in_passable_cells(const gc_sim *s)
{
    const gc_grid *g = gc_sim_grid(s);
    for (size_t i = 0; i < gc_sim_agent_count(s); i++) {
        const gc_agent *a = gc_sim_agent(s, i);
        assert_non_null(a);
        assert_true(a->state < GC_AGENT_NSTATES);
        gc_cell c = gc_grid_world_to_cell(g, a->pos);
        /* On a border the agent touches two cells; it must be in a passable
         * one: check the cell of a point nudged towards its waypoint too. */
        if (!gc_grid_passable(g, c.x, c.y)) {
            float fx = a->pos.x - floorf(a->pos.x);
            float fy = a->pos.y - floorf(a->pos.y);
            bool on_border = fx == 0.0f || fy == 0.0f;
            if (!on_border)
                fail_msg("agent %zu at (%f, %f) inside impassable cell "
                         "(%d, %d)",
                         i, a->pos.x, a->pos.y, c.x, c.y);
        }
    }
}

static void
run_ticks(gc_sim *s, int n)
{
    for (int t = 0; t < n; t++)
        assert_int_equal(gc_sim_tick(s), GC_OK);
}

static void
test_deterministic_one_thread(void **state)
{
    (void)state;
    gc_grid *g = small_grid();
    gc_sim_config c;
    gc_sim_config_init(&c);
    c.agents = 40;
    c.seed = 1234;
    c.motion.turn_rate = 3.0f;
    gc_sim *a, *b;
    gc_error err;
    assert_int_equal(gc_sim_new(&a, g, &c, &err), GC_OK);
    assert_int_equal(gc_sim_new(&b, g, &c, &err), GC_OK);
    run_ticks(a, 600);
    run_ticks(b, 600);
    gc_sim_stats st;
    gc_sim_stats_total(a, &st);
    assert_true(st.searches >= 40); /* each agent planned at least once */
    assert_true(st.arrivals > 0);   /* 10 s of wandering arrives somewhere */
    for (size_t i = 0; i < 40; i++) {
        const gc_agent *x = gc_sim_agent(a, i), *y = gc_sim_agent(b, i);
        assert_true(x->pos.x == y->pos.x && x->pos.y == y->pos.y);
        assert_true(x->heading == y->heading);
        assert_int_equal(x->state, y->state);
        assert_int_equal(x->goal.x, y->goal.x);
        assert_int_equal(x->goal.y, y->goal.y);
    }
    /* A different seed gives a different run. */
    c.seed = 99;
    gc_sim *d;
    assert_int_equal(gc_sim_new(&d, g, &c, &err), GC_OK);
    run_ticks(d, 600);
    int same = 0;
    for (size_t i = 0; i < 40; i++)
        same += gc_sim_agent(a, i)->pos.x == gc_sim_agent(d, i)->pos.x;
    assert_true(same < 40);
    gc_sim_free(a);
    gc_sim_free(b);
    gc_sim_free(d);
    gc_grid_free(g);
}

/*
 * Wanderers get their slots in the order of a Hilbert curve over the map
 * (sim-goals.c), so that agents near each other are near each other in
 * memory: on an open 256 x 256 field the starts of 5,000 agents in slot
 * order are a few cells apart on average (about 120 in the random order
 * they are drawn in), and the same seed places the same cells.
 */
static void
test_place_in_curve_order(void **state)
{
    (void)state;
    gc_grid *g;
    assert_int_equal(gc_grid_new(&g, 256, 256), GC_OK);
    gc_sim_config c;
    gc_sim_config_init(&c);
    c.agents = 5000;
    c.seed = 77;
    gc_sim *s;
    gc_error err;
    assert_int_equal(gc_sim_new(&s, g, &c, &err), GC_OK);
    double sum = 0.0, far = 0.0;
    for (size_t i = 1; i < 5000; i++) {
        gc_vec2 p = gc_sim_agent(s, i - 1)->pos, q = gc_sim_agent(s, i)->pos;
        double d = hypot((double)(q.x - p.x), (double)(q.y - p.y));
        sum += d;
        far = d > far ? d : far;
    }
    printf("# consecutive starts %.2f cells apart on average, %.1f at most\n",
           sum / 4999.0, far);
    assert_true(sum / 4999.0 < 8.0);
    gc_sim *t;
    assert_int_equal(gc_sim_new(&t, g, &c, &err), GC_OK);
    for (size_t i = 0; i < 5000; i++) {
        assert_true(gc_sim_agent(s, i)->pos.x == gc_sim_agent(t, i)->pos.x);
        assert_true(gc_sim_agent(s, i)->pos.y == gc_sim_agent(t, i)->pos.y);
    }
    gc_sim_free(s);
    gc_sim_free(t);
    gc_grid_free(g);
}

static void
test_threads_keep_every_agent(void **state)
{
    (void)state;
    gc_grid *g = small_grid();
    for (int threads = 2; threads <= 3; threads++) {
        gc_sim_config c;
        gc_sim_config_init(&c);
        c.agents = 150;
        c.threads = threads;
        c.plan_budget = 4; /* a backlog: the queue must drain fairly */
        c.motion.speed = 9.0f;
        gc_sim *s;
        gc_error err;
        assert_int_equal(gc_sim_new(&s, g, &c, &err), GC_OK);
        assert_int_equal(gc_sim_agent_count(s), 150);
        for (int t = 0; t < 400; t++) {
            assert_int_equal(gc_sim_tick(s), GC_OK);
            assert_all_in_passable_cells(s);
        }
        gc_sim_stats st;
        gc_sim_stats_total(s, &st);
        uint64_t total = 0;
        for (int k = 0; k < GC_AGENT_NSTATES; k++)
            total += st.by_state[k];
        assert_int_equal(total, 150);
        assert_int_equal(st.by_state[GC_AGENT_STUCK], 0);
        assert_int_equal(st.by_state[GC_AGENT_UNREACHABLE], 0);
        assert_true(st.searches >= 150);
        assert_true(st.arrivals > 50);
        assert_int_equal(st.ticks, 400);
        gc_sim_free(s);
    }
    gc_grid_free(g);
}

/* 150 wanderers on `threads` workers with a count budget of 4 plans a
 * tick (a backlog of first plans for the first 38 ticks): their
 * positions after 400 ticks into out[300], the searches into
 * *searches. */
static void
budget_run(int threads, float *out, uint64_t *searches)
{
    gc_grid *g = small_grid();
    gc_sim_config c;
    gc_sim_config_init(&c);
    c.agents = 150;
    c.threads = threads;
    c.plan_budget = 4;
    c.motion.speed = 9.0f;
    gc_sim *s;
    gc_error err;
    assert_int_equal(gc_sim_new(&s, g, &c, &err), GC_OK);
    for (int t = 0; t < 400; t++) {
        assert_int_equal(gc_sim_tick(s), GC_OK);
        /* Never more than the budget, whatever the workers, and all of
         * it while the backlog lasts. */
        gc_sim_stats st;
        gc_sim_stats_total(s, &st);
        assert_true(st.searches <= 4u * (uint64_t)(t + 1));
        if (t < 30)
            assert_int_equal(st.searches, 4u * (uint64_t)(t + 1));
    }
    for (size_t i = 0; i < 150; i++) {
        out[2 * i] = gc_sim_agent(s, i)->pos.x;
        out[2 * i + 1] = gc_sim_agent(s, i)->pos.y;
    }
    gc_sim_stats st;
    gc_sim_stats_total(s, &st);
    *searches = st.searches;
    gc_sim_free(s);
    gc_grid_free(g);
}

/* The count budget is the tick's, served in the order the requests came
 * in: which agents plan in a tick, and so the whole run, does not depend
 * on how many workers share the queues (it did while each worker had a
 * budget of its own). */
static void
test_threads_same_run_with_budget(void **state)
{
    (void)state;
    float p[3][300];
    uint64_t n[3];
    for (int k = 0; k < 3; k++)
        budget_run(k + 1, p[k], &n[k]);
    printf("# %llu searches in 400 ticks at 4 a tick\n",
           (unsigned long long)n[0]);
    for (int k = 1; k < 3; k++) {
        assert_int_equal(n[k], n[0]);
        assert_memory_equal(p[k], p[0], sizeof p[0]);
    }
}

/* Run a scenario to the end; every agent arrives and walks the optimal
 * length.  Returns the number of problems. */
static size_t
run_scenario(const char *scen_path, int threads)
{
    gc_error err;
    char map_path[4096];
    gc_scen scen;
    gc_grid *g;
    assert_int_equal(gc_scen_load(&scen, scen_path, NULL, &err), GC_OK);
    assert_int_equal(
        gc_scen_map_path(scen_path, scen.map, map_path, sizeof map_path),
        GC_OK);
    if (gc_map_load(&g, map_path, &err) != GC_OK)
        fail_msg("%s", err.msg);
    gc_grid_set_uniform(g);

    gc_sim_config c;
    gc_sim_config_init(&c);
    c.goals = GC_GOALS_SCEN;
    c.scen = &scen;
    c.agents = (uint32_t)scen.len;
    c.threads = threads;
    c.smooth = false;
    c.motion.arrive_radius = 0.0f;
    c.motion.speed = 20.0f;
    c.plan_budget = 1000;
    gc_sim *s;
    if (gc_sim_new(&s, g, &c, &err) != GC_OK)
        fail_msg("%s", err.msg);
    int ticks = 0;
    while (!gc_sim_done(s) && ticks < 100000) {
        assert_int_equal(gc_sim_tick(s), GC_OK);
        ticks++;
    }
    assert_true(gc_sim_done(s));
    for (size_t i = 0; i < scen.len; i++) {
        const gc_agent *a = gc_sim_agent(s, i);
        if (a->state != GC_AGENT_ARRIVED)
            fail_msg("%s line %d: agent %zu is %s", scen_path,
                     scen.entries[i].line, i, gc_agent_state_name(a->state));
        double want = scen.entries[i].optimal;
        /* Positions are floats: allow 1e-5 relative plus a little. */
        if (fabs(a->travelled - want) > 1e-3 + want * 2e-5)
            fail_msg("%s line %d: walked %.6f, optimal %.6f", scen_path,
                     scen.entries[i].line, a->travelled, want);
        gc_cell goal = scen.entries[i].goal;
        gc_vec2 centre = gc_grid_cell_center(g, goal);
        assert_true(fabsf(a->pos.x - centre.x) < 1e-3f);
        assert_true(fabsf(a->pos.y - centre.y) < 1e-3f);
    }
    size_t n = scen.len;
    gc_sim_free(s);
    gc_grid_free(g);
    gc_scen_free(&scen);
    return n;
}

static void
test_scen_demo_walks_optimal(void **state)
{
    (void)state;
    const char *src = getenv("GC_SRCDIR");
    char path[4096];
    snprintf(path, sizeof path, "%s/maps/demo.scen", src ? src : ".");
    assert_true(run_scenario(path, 2) > 100);
}

static void
test_scen_movingai_walks_optimal(void **state)
{
    (void)state;
    const char *shared = getenv("GC_SHARED_DIR");
    static const char *files[] = {"arena.map.scen",
                                  "random-64-64-20-random-1.scen",
                                  "room-64-64-8-random-1.scen"};
    char path[4096];
    snprintf(path, sizeof path, "%s/benchmarks/movingai/%s",
             shared ? shared : "../shared", files[0]);
    FILE *f = fopen(path, "r");
    if (f == NULL) {
        print_message("benchmarks not found at %s: skipped\n", path);
        skip();
    }
    fclose(f);
    for (size_t k = 0; k < sizeof files / sizeof files[0]; k++) {
        snprintf(path, sizeof path, "%s/benchmarks/movingai/%s",
                 shared ? shared : "../shared", files[k]);
        assert_true(run_scenario(path, 2) > 100);
    }
}

static void
test_errors(void **state)
{
    (void)state;
    gc_grid *g = small_grid();
    gc_sim_config c;
    gc_sim_config_init(&c);
    c.agents = 24 * 12;
    gc_sim *s = (gc_sim *)1;
    gc_error err;
    assert_int_equal(gc_sim_new(&s, g, &c, &err), GC_ERANGE);
    assert_null(s);
    assert_non_null(strstr(err.msg, "agents do not fit on"));

    gc_sim_config_init(&c);
    c.threads = 0;
    assert_int_equal(gc_sim_new(&s, g, &c, &err), GC_ERANGE);

    gc_sim_config_init(&c);
    c.agents = 10;
    c.goals = GC_GOALS_POINT;
    c.point = (gc_cell){30, 3};
    assert_int_equal(gc_sim_new(&s, g, &c, &err), GC_EOUTSIDE);
    assert_string_equal(err.msg, "goal point (30, 3) is outside the 24x12 map");

    /* Enums out of range are refused, not run (a rule of 42 left every
     * agent unreachable, goals of 77 every agent arrived). */
    gc_sim_config_init(&c);
    c.agents = 10;
    c.diag = (gc_diag_rule)42;
    assert_int_equal(gc_sim_new(&s, g, &c, &err), GC_EINVAL);
    assert_string_equal(err.msg, "unknown diagonal rule 42");
    c.diag = (gc_diag_rule)-3;
    assert_int_equal(gc_sim_new(&s, g, &c, &err), GC_EINVAL);
    gc_sim_config_init(&c);
    c.agents = 10;
    c.goals = (gc_goal_mode)77;
    assert_int_equal(gc_sim_new(&s, g, &c, &err), GC_EINVAL);
    assert_string_equal(err.msg, "unknown goal mode 77");
    assert_null(s);
    gc_grid_free(g);
}

static void
test_point_goal_unreachable(void **state)
{
    (void)state;
    gc_grid *g = small_grid();
    /* Wall in the goal (5,10)-(6,10) area: box the cell (5,10). */
    gc_cell goal = {5, 10};
    for (int dy = -1; dy <= 1; dy++)
        for (int dx = -1; dx <= 1; dx++)
            if (dx || dy)
                gc_grid_set(g, goal.x + dx, goal.y + dy, GC_CELL_OBSTACLE);
    gc_sim_config c;
    gc_sim_config_init(&c);
    c.agents = 10;
    c.goals = GC_GOALS_POINT;
    c.point = goal;
    c.motion.speed = 20.0f;
    gc_sim *s;
    gc_error err;
    assert_int_equal(gc_sim_new(&s, g, &c, &err), GC_OK);
    int ticks = 0;
    while (!gc_sim_done(s) && ticks < 5000) {
        assert_int_equal(gc_sim_tick(s), GC_OK);
        ticks++;
    }
    assert_true(gc_sim_done(s));
    gc_sim_stats st;
    gc_sim_stats_total(s, &st);
    assert_int_equal(st.by_state[GC_AGENT_UNREACHABLE], 10);
    /* Each walked to a cell next to the box, nearest the goal. */
    for (size_t i = 0; i < 10; i++) {
        gc_cell at = gc_grid_world_to_cell(g, gc_sim_agent(s, i)->pos);
        assert_true(abs(at.x - goal.x) <= 2 && abs(at.y - goal.y) <= 2);
    }
    gc_sim_free(s);
    gc_grid_free(g);
}

static void
test_grid_change_replans(void **state)
{
    (void)state;
    gc_grid *g = small_grid();
    gc_sim_config c;
    gc_sim_config_init(&c);
    c.agents = 30;
    gc_sim *s;
    gc_error err;
    assert_int_equal(gc_sim_new(&s, g, &c, &err), GC_OK);
    run_ticks(s, 5);
    gc_sim_stats st;
    gc_sim_stats_window(s, &st);
    /* Close the bottom gap in the wall at x = 12. */
    gc_grid_set(g, 12, 7, GC_CELL_OBSTACLE);
    gc_grid_set(g, 12, 8, GC_CELL_OBSTACLE);
    assert_int_equal(gc_sim_grid_changed(s, NULL, 0), GC_OK);
    run_ticks(s, 2);
    gc_sim_stats_window(s, &st);
    assert_true(st.replans > 0);
    for (int t = 0; t < 300; t++) {
        assert_int_equal(gc_sim_tick(s), GC_OK);
        assert_all_in_passable_cells(s);
    }
    gc_sim_free(s);
    gc_grid_free(g);
}

static void
test_trace_of_one_agent(void **state)
{
    (void)state;
    gc_grid *g = small_grid();
    gc_sim_config c;
    gc_sim_config_init(&c);
    c.agents = 20;
    c.threads = 2;
    gc_sim *s;
    gc_error err;
    assert_int_equal(gc_sim_new(&s, g, &c, &err), GC_OK);
    run_ticks(s, 3);
    uint32_t who = 99;
    assert_null(gc_sim_take_trace(s, &who));
    assert_int_equal(gc_sim_trace_agent(s, 500, 64), GC_ERANGE);
    assert_int_equal(gc_sim_trace_agent(s, 7, 4096), GC_OK);
    run_ticks(s, 1); /* the traced agent is planned again at once */
    const gc_trace *t = gc_sim_take_trace(s, &who);
    assert_non_null(t);
    assert_int_equal(who, 7);
    assert_null(gc_sim_take_trace(s, &who)); /* taken once */
    size_t open = 0, closed = 0, path = 0;
    uint32_t last = 0;
    for (size_t k = 0; k < t->len; k++) {
        open += t->events[k].kind == GC_TRACE_OPEN;
        closed += t->events[k].kind == GC_TRACE_CLOSE;
        if (t->events[k].kind == GC_TRACE_PATH) {
            path++;
            last = t->events[k].cell;
        }
    }
    assert_true(open >= closed && closed > 0);
    assert_true(path >= 1);
    const gc_agent *a = gc_sim_agent(s, 7);
    assert_int_equal(last, (uint32_t)gc_grid_index(g, a->goal.x, a->goal.y));
    /* Other agents' searches are not traced. */
    assert_int_equal(gc_sim_trace_agent(s, UINT32_MAX, 0), GC_OK);
    run_ticks(s, 200);
    assert_null(gc_sim_take_trace(s, &who));
    gc_sim_free(s);
    gc_grid_free(g);
}

static void
test_wander_radius(void **state)
{
    (void)state;
    gc_grid *g = small_grid();
    gc_sim_config c;
    gc_sim_config_init(&c);
    c.agents = 60;
    c.wander_radius = 3;
    c.motion.speed = 8.0f;
    gc_sim *s;
    gc_error err;
    assert_int_equal(gc_sim_new(&s, g, &c, &err), GC_OK);
    int far = 0;
    for (int t = 0; t < 300; t++) {
        /* Goals drawn since the last tick were drawn where the agent
         * stands now (it waits for its path). */
        for (size_t i = 0; i < 60; i++) {
            const gc_agent *a = gc_sim_agent(s, i);
            if (a->state != GC_AGENT_WAITING)
                continue;
            gc_cell at = gc_grid_world_to_cell(g, a->pos);
            if (abs(a->goal.x - at.x) > 3 || abs(a->goal.y - at.y) > 3)
                far++;
        }
        assert_int_equal(gc_sim_tick(s), GC_OK);
    }
    gc_sim_stats st;
    gc_sim_stats_total(s, &st);
    assert_true(st.arrivals > 60); /* short trips: many arrivals */
    /* The fallback (anywhere in the component) is for pockets only. */
    assert_true(far <= 2);
    gc_sim_free(s);
    gc_grid_free(g);
}

/* Two rooms joined by two corridors (rows 2 and 8). */
static gc_grid *
corridor_grid(void)
{
    static const char *rows[] = {
        "..........@@@@@@@@@@..........", "..........@@@@@@@@@@..........",
        "..............................", "..........@@@@@@@@@@..........",
        "..........@@@@@@@@@@..........", "..........@@@@@@@@@@..........",
        "..........@@@@@@@@@@..........", "..........@@@@@@@@@@..........",
        "..............................", "..........@@@@@@@@@@..........",
        "..........@@@@@@@@@@..........",
    };
    gc_grid *g;
    assert_int_equal(gc_grid_new(&g, 30, 11), GC_OK);
    for (int y = 0; y < 11; y++)
        for (int x = 0; x < 30; x++)
            gc_grid_set(g, x, y, gc_cell_type_from_glyph(rows[y][x]));
    return g;
}

/* Does the agent's remaining walk touch cell w?  Dense sampling along each
 * segment, independent of the library's segment walk. */
static bool
walk_touches(const gc_grid *g, const gc_agent *a, gc_cell w)
{
    gc_cell prev = gc_grid_world_to_cell(g, a->pos);
    if (prev.x == w.x && prev.y == w.y)
        return true;
    for (uint32_t k = a->wp_next; k < a->wp_len; k++) {
        gc_cell c = gc_grid_world_to_cell(g, a->wp[k]);
        gc_vec2 p0 = gc_grid_cell_center(g, prev);
        gc_vec2 p1 = gc_grid_cell_center(g, c);
        for (int t = 0; t <= 200; t++) {
            gc_vec2 p = {p0.x + (p1.x - p0.x) * (float)t / 200.0f,
                         p0.y + (p1.y - p0.y) * (float)t / 200.0f};
            gc_cell q = gc_grid_world_to_cell(g, p);
            if (q.x == w.x && q.y == w.y)
                return true;
        }
        prev = c;
    }
    return false;
}

static void
test_wall_across_corridor(void **state)
{
    (void)state;
    gc_grid *g = corridor_grid();
    gc_sim_config c;
    gc_sim_config_init(&c);
    c.agents = 40;
    c.threads = 2;
    c.goals = GC_GOALS_POINT;
    c.point = (gc_cell){27, 5};
    c.motion.speed = 3.0f;
    c.seed = 3;
    gc_sim *s;
    gc_error err;
    assert_int_equal(gc_sim_new(&s, g, &c, &err), GC_OK);
    run_ticks(s, 30);
    const gc_cell wall = {15, 2};
    int n_affected = 0;
    for (size_t i = 0; i < 40; i++)
        n_affected += gc_sim_agent(s, i)->state == GC_AGENT_MOVING &&
                      walk_touches(g, gc_sim_agent(s, i), wall);
    assert_true(n_affected >= 3); /* the upper corridor is in use */
    gc_sim_stats st;
    gc_sim_stats_window(s, &st);

    gc_grid_set(g, wall.x, wall.y, GC_CELL_OBSTACLE);
    assert_int_equal(gc_sim_grid_changed(s, &wall, 1), GC_OK);
    run_ticks(s, 2);
    gc_sim_stats_window(s, &st);
    /* Exactly the affected agents planned again, in the very next tick. */
    assert_int_equal(st.replans, n_affected);
    assert_int_equal(st.replan_delay_ticks_max, 1);
    assert_true(st.replan_delay_ms_max > 0.0 &&
                st.replan_delay_ms_max >= st.replan_delay_ms_mean);
    for (size_t i = 0; i < 40; i++) {
        const gc_agent *a = gc_sim_agent(s, i);
        if (a->state == GC_AGENT_ARRIVED)
            continue;
        assert_int_equal(a->state, GC_AGENT_MOVING);
        assert_false(walk_touches(g, a, wall));
    }
    int ticks = 0;
    while (!gc_sim_done(s) && ticks++ < 3000) {
        assert_int_equal(gc_sim_tick(s), GC_OK);
        assert_all_in_passable_cells(s);
    }
    gc_sim_stats_total(s, &st);
    assert_int_equal(st.by_state[GC_AGENT_ARRIVED], 40);
    gc_sim_free(s);
    gc_grid_free(g);
}

static void
test_wall_under_agent(void **state)
{
    (void)state;
    gc_grid *g = small_grid();
    gc_sim_config c;
    gc_sim_config_init(&c);
    c.agents = 20;
    gc_sim *s;
    gc_error err;
    assert_int_equal(gc_sim_new(&s, g, &c, &err), GC_OK);
    run_ticks(s, 10);
    /* A wall in the cell agent 4 stands in. */
    const gc_agent *a = gc_sim_agent(s, 4);
    gc_cell under = gc_grid_world_to_cell(g, a->pos);
    gc_vec2 before = a->pos;
    gc_grid_set(g, under.x, under.y, GC_CELL_OBSTACLE);
    assert_int_equal(gc_sim_grid_changed(s, &under, 1), GC_OK);
    gc_cell now = gc_grid_world_to_cell(g, a->pos);
    assert_true(gc_grid_passable(g, now.x, now.y));
    /* It left by the shortest way: to a neighbouring cell's centre. */
    assert_true(abs(now.x - under.x) <= 1 && abs(now.y - under.y) <= 1);
    assert_true(hypotf(a->pos.x - before.x, a->pos.y - before.y) < 1.5f);
    for (int t = 0; t < 100; t++) {
        assert_int_equal(gc_sim_tick(s), GC_OK);
        assert_all_in_passable_cells(s);
    }
    /* Every cell a wall: nobody can go anywhere, everybody is stuck. */
    gc_grid_fill(g, GC_CELL_OBSTACLE);
    assert_int_equal(gc_sim_grid_changed(s, NULL, 0), GC_OK);
    run_ticks(s, 2);
    for (size_t i = 0; i < 20; i++)
        assert_int_equal(gc_sim_agent(s, i)->state, GC_AGENT_STUCK);
    gc_sim_free(s);
    gc_grid_free(g);
}

/* Does the straight stretch from p to q pass through cell w?  Dense
 * sampling; returns how many of 400 samples fall in w. */
static int
stretch_samples_in(const gc_grid *g, gc_vec2 p, gc_vec2 q, gc_cell w)
{
    int n = 0;
    for (int t = 0; t <= 400; t++) {
        gc_vec2 r = {p.x + (q.x - p.x) * (float)t / 400.0f,
                     p.y + (q.y - p.y) * (float)t / 400.0f};
        gc_cell c = gc_grid_world_to_cell(g, r);
        n += c.x == w.x && c.y == w.y;
    }
    return n;
}

/* Does the stretch from p to q come within `m` of cell w's square? */
static bool
stretch_near(gc_vec2 p, gc_vec2 q, gc_cell w, float m)
{
    for (int t = 0; t <= 4000; t++) {
        float x = p.x + (q.x - p.x) * (float)t / 4000.0f;
        float y = p.y + (q.y - p.y) * (float)t / 4000.0f;
        if (x >= (float)w.x - m && x <= (float)w.x + 1 + m &&
            y >= (float)w.y - m && y <= (float)w.y + 1 + m)
            return true;
    }
    return false;
}

/*
 * Issue 15 item 1: an agent mid-way along a long straight (smoothed)
 * stretch, and a wall dropped on a cell of the rest of that stretch that a
 * walk from the centre of the agent's cell misses.  The agent must be
 * replanned and never enter the wall.
 */
static void
test_wall_across_own_stretch(void **state)
{
    (void)state;
    bool tried = false;
    for (int wait = 10; wait < 400 && !tried; wait += 3) {
        gc_grid *g;
        assert_int_equal(gc_grid_new(&g, 40, 24), GC_OK);
        gc_scen_entry e;
        memset(&e, 0, sizeof e);
        e.start = (gc_cell){1, 1};
        e.goal = (gc_cell){37, 19};
        gc_scen sc = {&e, 1, {0}};
        gc_sim_config c;
        gc_sim_config_init(&c);
        c.agents = 1;
        c.goals = GC_GOALS_SCEN;
        c.scen = &sc;
        c.motion.speed = 3.0f;
        gc_sim *s;
        gc_error err;
        assert_int_equal(gc_sim_new(&s, g, &c, &err), GC_OK);
        run_ticks(s, wait);
        const gc_agent *a = gc_sim_agent(s, 0);
        assert_int_equal(a->state, GC_AGENT_MOVING);
        gc_cell own = gc_grid_world_to_cell(g, a->pos);
        gc_vec2 next = a->wp[a->wp_next];
        gc_vec2 centre = gc_grid_cell_center(g, own);
        /* A cell well inside the rest of the stretch (many samples) that the
         * line from the centre of the agent's cell does not touch. */
        gc_cell wall = {-1, -1};
        for (int y = 0; y < 24 && wall.x < 0; y++)
            for (int x = 0; x < 40 && wall.x < 0; x++) {
                gc_cell w = {x, y};
                if ((x == own.x && y == own.y) ||
                    (x == e.goal.x && y == e.goal.y))
                    continue;
                if (stretch_samples_in(g, a->pos, next, w) >= 6 &&
                    !stretch_near(centre, next, w, 0.05f))
                    wall = w;
            }
        if (wall.x >= 0) {
            tried = true;
            gc_grid_set(g, wall.x, wall.y, GC_CELL_OBSTACLE);
            assert_int_equal(gc_sim_grid_changed(s, &wall, 1), GC_OK);
            int ticks = 0;
            while (!gc_sim_done(s) && ticks++ < 2000) {
                assert_int_equal(gc_sim_tick(s), GC_OK);
                assert_all_in_passable_cells(s);
            }
            assert_int_equal(gc_sim_agent(s, 0)->state, GC_AGENT_ARRIVED);
        }
        gc_sim_free(s);
        gc_grid_free(g);
    }
    assert_true(tried); /* the set-up found such a cell */
}

/* An open 21 x 10 map (issue 14's). */
static gc_grid *
open_grid(void)
{
    gc_grid *g;
    assert_int_equal(gc_grid_new(&g, 21, 10), GC_OK);
    return g;
}

/* A wall down column x (or open it again), told to the sim as one edit. */
static void
set_column(gc_sim *s, gc_grid *g, int32_t x, int type)
{
    gc_cell cells[10];
    for (int32_t y = 0; y < 10; y++) {
        gc_grid_set(g, x, y, (uint8_t)type);
        cells[y] = (gc_cell){x, y};
    }
    assert_int_equal(gc_sim_grid_changed(s, cells, 10), GC_OK);
}

/*
 * Issue 14: a wall across the middle of the map under 100 wanderers.  A
 * few ticks later none is unreachable, and afterwards every one keeps
 * arriving at goals in its own half.
 */
static void
test_wander_split(void **state)
{
    (void)state;
    gc_grid *g = open_grid();
    gc_sim_config c;
    gc_sim_config_init(&c);
    c.agents = 100;
    c.threads = 2;
    gc_sim *s;
    gc_error err;
    assert_int_equal(gc_sim_new(&s, g, &c, &err), GC_OK);
    run_ticks(s, 60);
    set_column(s, g, 10, GC_CELL_OBSTACLE);
    run_ticks(s, 3);
    gc_sim_stats st;
    gc_sim_stats_window(s, &st);
    assert_int_equal(st.by_state[GC_AGENT_UNREACHABLE], 0);
    assert_int_equal(st.by_state[GC_AGENT_STUCK], 0);

    gc_cell goal[100];
    int changes[100] = {0};
    for (size_t i = 0; i < 100; i++)
        goal[i] = gc_sim_agent(s, i)->goal;
    for (int t = 0; t < 1200; t++) {
        assert_int_equal(gc_sim_tick(s), GC_OK);
        assert_all_in_passable_cells(s);
        for (size_t i = 0; i < 100; i++) {
            const gc_agent *a = gc_sim_agent(s, i);
            assert_int_not_equal(a->state, GC_AGENT_UNREACHABLE);
            /* Its goal lies in its own half. */
            bool left = a->pos.x < 10.0f;
            if (left != (a->goal.x < 10))
                fail_msg("agent %zu at (%f, %f) has goal (%d, %d) across "
                         "the wall",
                         i, a->pos.x, a->pos.y, a->goal.x, a->goal.y);
            if (a->goal.x != goal[i].x || a->goal.y != goal[i].y) {
                changes[i]++;
                goal[i] = a->goal;
            }
        }
    }
    gc_sim_stats_window(s, &st);
    assert_true(st.arrivals >= 200);
    for (size_t i = 0; i < 100; i++)
        if (changes[i] < 2)
            fail_msg("agent %zu reached only %d goals in 20 s", i, changes[i]);
    gc_sim_free(s);
    gc_grid_free(g);
}

/*
 * Issue 14, point goals: a wall cuts the agents on the left off from the
 * goal; a second edit opens it again, (a) while they still walk their
 * partial paths towards the wall, (b) after all of them gave up.  Either
 * way every agent is planned again and arrives.
 */
static void
test_point_goal_reachable_again(void **state)
{
    (void)state;
    for (int late = 0; late < 2; late++) {
        gc_grid *g = open_grid();
        gc_sim_config c;
        gc_sim_config_init(&c);
        c.agents = 40;
        c.goals = GC_GOALS_POINT;
        c.point = (gc_cell){19, 5};
        c.seed = 7;
        gc_sim *s;
        gc_error err;
        assert_int_equal(gc_sim_new(&s, g, &c, &err), GC_OK);
        run_ticks(s, 2);
        set_column(s, g, 10, GC_CELL_OBSTACLE);
        if (late) {
            int ticks = 0;
            while (!gc_sim_done(s) && ticks++ < 3000)
                assert_int_equal(gc_sim_tick(s), GC_OK);
            gc_sim_stats st;
            gc_sim_stats_window(s, &st);
            assert_true(st.by_state[GC_AGENT_UNREACHABLE] > 0);
        } else {
            run_ticks(s, 3);
            size_t partial = 0;
            for (size_t i = 0; i < 40; i++) {
                const gc_agent *a = gc_sim_agent(s, i);
                partial += a->state == GC_AGENT_MOVING && a->pos.x < 9.0f;
            }
            assert_true(partial > 0); /* some still walk towards the wall */
        }
        set_column(s, g, 10, GC_CELL_WALKABLE);
        int ticks = 0;
        while (!gc_sim_done(s) && ticks++ < 3000) {
            assert_int_equal(gc_sim_tick(s), GC_OK);
            assert_all_in_passable_cells(s);
        }
        gc_sim_stats st;
        gc_sim_stats_total(s, &st);
        assert_int_equal(st.by_state[GC_AGENT_ARRIVED], 40);
        gc_sim_free(s);
        gc_grid_free(g);
    }
}

/*
 * Issue 15 item 5: motion is in world units.  With cell size 10 the
 * defaults become 40 units/s and a 1-unit radius; a radius given as 20
 * stays 20 (it was scaled to 200 by the daemon), and every agent stops
 * within 20 units of its goal's centre.
 */
static void
test_world_units(void **state)
{
    (void)state;
    gc_grid *g = open_grid();
    g->cell_size = 10.0f;
    gc_sim_config c;
    gc_sim_config_init(&c);
    c.agents = 30;
    gc_sim *s;
    gc_error err;
    assert_int_equal(gc_sim_new(&s, g, &c, &err), GC_OK);
    assert_float_equal(gc_sim_motion(s)->speed, 40.0f, 1e-6f);
    assert_float_equal(gc_sim_motion(s)->arrive_radius, 1.0f, 1e-6f);
    gc_sim_free(s);

    c.goals = GC_GOALS_POINT;
    c.point = (gc_cell){15, 5};
    c.motion.arrive_radius = 20.0f;
    assert_int_equal(gc_sim_new(&s, g, &c, &err), GC_OK);
    assert_float_equal(gc_sim_motion(s)->arrive_radius, 20.0f, 1e-6f);
    int ticks = 0;
    while (!gc_sim_done(s) && ticks++ < 3000)
        assert_int_equal(gc_sim_tick(s), GC_OK);
    gc_vec2 goal = gc_grid_cell_center(g, c.point);
    double far = 0;
    for (size_t i = 0; i < 30; i++) {
        const gc_agent *a = gc_sim_agent(s, i);
        assert_int_equal(a->state, GC_AGENT_ARRIVED);
        double d = hypot(a->pos.x - goal.x, a->pos.y - goal.y);
        if (d > 20.0 + 1e-3)
            fail_msg("agent %zu stopped %.1f units from its goal", i, d);
        if (d > far)
            far = d;
    }
    assert_true(far > 10.0); /* the radius was used, in world units */
    gc_sim_free(s);
    gc_grid_free(g);
}

/*
 * Issue 15 item 6, in the whole sim: 100 wanderers with a turn rate of
 * 3 rad/s.  In every tick, every agent that moved did so within 90 degrees
 * of its heading (before, agents slid along their paths at full speed
 * whatever way they faced), and they still arrive.
 */
static void
test_turn_then_go_crowd(void **state)
{
    (void)state;
    gc_grid *g = small_grid();
    gc_sim_config c;
    gc_sim_config_init(&c);
    c.agents = 100;
    c.motion.turn_rate = 3.0f;
    gc_sim *s;
    gc_error err;
    assert_int_equal(gc_sim_new(&s, g, &c, &err), GC_OK);
    gc_vec2 before[100];
    for (int t = 0; t < 600; t++) {
        for (size_t i = 0; i < 100; i++)
            before[i] = gc_sim_agent(s, i)->pos;
        assert_int_equal(gc_sim_tick(s), GC_OK);
        for (size_t i = 0; i < 100; i++) {
            const gc_agent *a = gc_sim_agent(s, i);
            float dx = a->pos.x - before[i].x, dy = a->pos.y - before[i].y;
            float d = sqrtf(dx * dx + dy * dy);
            /* Below a thousandth of a unit the direction of a float
             * difference is noise (positions near 20 resolve 2e-6). */
            if (d < 1e-3f)
                continue;
            float dot = (dx * cosf(a->heading) + dy * sinf(a->heading)) / d;
            if (dot < -1e-3f)
                fail_msg("tick %d: agent %zu moved %g (%.1f degrees off its "
                         "heading)",
                         t, i, (double)d, acos(dot) * 180 / 3.14159265358979);
        }
        assert_all_in_passable_cells(s);
    }
    gc_sim_stats st;
    gc_sim_stats_total(s, &st);
    assert_true(st.arrivals >= 100);
    gc_sim_free(s);
    gc_grid_free(g);
}

/* Set the door cells (20, 8..11) of door_grid to `type` and tell the sim. */
static void
set_door(gc_sim *s, gc_grid *g, int type)
{
    gc_cell cells[4];
    for (int k = 0; k < 4; k++) {
        cells[k] = (gc_cell){20, 8 + k};
        gc_grid_set(g, 20, 8 + k, (uint8_t)type);
    }
    assert_int_equal(gc_sim_grid_changed(s, cells, 4), GC_OK);
}

/*
 * Issue 15 item 1 as it was seen: a 4-cell door closed and opened again
 * 25 times under 600 fast wanderers.  No agent centre is ever inside a
 * wall, checked after every tick.
 */
static void
test_door_closings(void **state)
{
    (void)state;
    gc_grid *g;
    assert_int_equal(gc_grid_new(&g, 41, 20), GC_OK);
    for (int y = 0; y < 20; y++)
        gc_grid_set(g, 20, y, GC_CELL_OBSTACLE);
    gc_sim_config c;
    gc_sim_config_init(&c);
    c.agents = 600;
    c.threads = 2;
    c.motion.speed = 12.0f;
    c.seed = 5;
    gc_sim *s;
    gc_error err;
    assert_int_equal(gc_sim_new(&s, g, &c, &err), GC_OK);
    for (int round = 0; round < 25; round++) {
        set_door(s, g, GC_CELL_WALKABLE);
        for (int t = 0; t < 12 + round % 5; t++) {
            assert_int_equal(gc_sim_tick(s), GC_OK);
            assert_all_in_passable_cells(s);
        }
        set_door(s, g, GC_CELL_OBSTACLE);
        for (int t = 0; t < 12; t++) {
            assert_int_equal(gc_sim_tick(s), GC_OK);
            assert_all_in_passable_cells(s);
        }
    }
    gc_sim_free(s);
    gc_grid_free(g);
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_deterministic_one_thread),
        cmocka_unit_test(test_threads_keep_every_agent),
        cmocka_unit_test(test_threads_same_run_with_budget),
        cmocka_unit_test(test_place_in_curve_order),
        cmocka_unit_test(test_scen_demo_walks_optimal),
        cmocka_unit_test(test_scen_movingai_walks_optimal),
        cmocka_unit_test(test_errors),
        cmocka_unit_test(test_point_goal_unreachable),
        cmocka_unit_test(test_grid_change_replans),
        cmocka_unit_test(test_trace_of_one_agent),
        cmocka_unit_test(test_wander_radius),
        cmocka_unit_test(test_wall_across_corridor),
        cmocka_unit_test(test_wall_under_agent),
        cmocka_unit_test(test_wall_across_own_stretch),
        cmocka_unit_test(test_wander_split),
        cmocka_unit_test(test_point_goal_reachable_again),
        cmocka_unit_test(test_world_units),
        cmocka_unit_test(test_turn_then_go_crowd),
        cmocka_unit_test(test_door_closings),
    };
    return cmocka_run_group_tests_name("sim", tests, NULL, NULL);
}
