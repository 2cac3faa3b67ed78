/*
 * test_scenario_run.c: the scenario runner (src/scenario-run.c) on a model
 * crowd.
 *
 * The runner reaches agents only through scn_crowd (scenario_int.h), so
 * these tests give it a model population whose agents walk straight at
 * their point goal at their own speed: simple enough to reason about, so
 * that each rule of the runner can be checked exactly (a source's count at
 * every tick, every agent that left counted once and only once, an event's
 * edits at its tick and not before, the same run for the same seed), and
 * every shipped scenario is run through it to the end or its time limit
 * with the books balanced at every tick.  The daemon's TAP tests run the
 * same scenarios on the real simulation.
 */
#include "config.h"

#include <gridcrowd/edits.h>
#include <gridcrowd/scenario.h>

#include "../src/scenario_int.h"

#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "quick.h"

/* ---- the model crowd ----------------------------------------------------- */

typedef struct model_agent {
    gc_point pos;
    gc_point start; /* where it was made */
    double speed, radius;
    int group;
    scn_aim aim;
    bool removed;
    bool outside; /* removed by an editor: its handle answers GC_EGONE */
    bool told;    /* the runner has heard so */
} model_agent;

typedef struct model {
    model_agent *a; /* handle h is a[h - 1]: handles are never reused */
    size_t n, cap;
    uint64_t removes, bad_calls;
} model;

static int
m_spawn(void *arg, const scn_spawn *sp, const scn_aim *aim, scn_agent *out)
{
    model *m = arg;
    if (m->n == m->cap) {
        m->cap = m->cap ? 2 * m->cap : 64;
        m->a = realloc(m->a, m->cap * sizeof *m->a);
        assert_non_null(m->a);
    }
    m->a[m->n] = (model_agent){.pos = {sp->x, sp->y},
                               .start = {sp->x, sp->y},
                               .speed = sp->speed,
                               .radius = sp->radius,
                               .group = sp->group,
                               .aim = *aim};
    *out = ++m->n;
    return GC_OK;
}

static model_agent *
m_get(model *m, scn_agent h)
{
    if (h == 0 || h > m->n || m->a[h - 1].removed) {
        m->bad_calls++; /* the runner used a handle it had let go */
        return NULL;
    }
    return &m->a[h - 1];
}

static int
m_remove(void *arg, scn_agent h)
{
    model *m = arg;
    model_agent *a = m_get(m, h);
    if (a == NULL)
        return GC_EINVAL;
    a->removed = true;
    m->removes++;
    return GC_OK;
}

static int
m_aim(void *arg, scn_agent h, const scn_aim *aim)
{
    model *m = arg;
    model_agent *a = m_get(m, h);
    if (a == NULL)
        return GC_EINVAL;
    a->aim = *aim;
    return GC_OK;
}

/* An editor's remove (gridcrowd-ctl remove), behind the runner's back:
 * the agent is gone, and its handle answers GC_EGONE, as gc_sim_resolve's
 * does for a removed agent. */
static void
m_remove_outside(model *m, scn_agent h)
{
    m->a[h - 1].removed = true;
    m->a[h - 1].outside = true;
}

static int
m_body(void *arg, scn_agent h, scn_body *out)
{
    model *m = arg;
    if (h > 0 && h <= m->n && m->a[h - 1].outside) {
        if (m->a[h - 1].told)
            m->bad_calls++; /* asked again after hearing it was gone */
        m->a[h - 1].told = true;
        return GC_EGONE;
    }
    model_agent *a = m_get(m, h);
    if (a == NULL)
        return GC_EINVAL;
    out->pos = a->pos;
    out->arrived = a->aim.kind == SCN_AIM_POINT && a->pos.x == a->aim.point.x &&
                   a->pos.y == a->aim.point.y;
    return GC_OK;
}

/* One tick of dt: straight at the point goal (walls ignored). */
static void
m_tick(model *m, double dt)
{
    for (size_t i = 0; i < m->n; i++) {
        model_agent *a = &m->a[i];
        if (a->removed || a->aim.kind != SCN_AIM_POINT)
            continue;
        double dx = a->aim.point.x - a->pos.x, dy = a->aim.point.y - a->pos.y;
        double d = hypot(dx, dy), step = a->speed * dt;
        if (d <= step)
            a->pos = a->aim.point;
        else {
            a->pos.x += dx / d * step;
            a->pos.y += dy / d * step;
        }
    }
}

static scn_crowd
m_crowd(model *m)
{
    memset(m, 0, sizeof *m);
    return (scn_crowd){m, m_spawn, m_remove, m_aim, m_body};
}

/* ---- the edits sink: applies them to a grid, notes the tick ------------- */

typedef struct sink {
    gc_grid *grid; /* applied here (checked first, as the applier does) */
    uint64_t calls;
    uint64_t last_tick; /* runner's ticks done when called */
    uint64_t *tick_now;
    size_t cells;
} sink;

static int
sink_edits(void *arg, gc_edit *e, size_t n)
{
    sink *s = arg;
    s->calls++;
    s->last_tick = *s->tick_now;
    for (size_t i = 0; i < n; i++) {
        assert_int_equal(
            gc_edit_check(&e[i], s->grid->width, s->grid->height, NULL), GC_OK);
        int32_t x1 = e[i].op == GC_EDIT_RECT ? e[i].x1 : e[i].x0;
        for (int32_t x = e[i].x0; x <= x1; x++) {
            gc_grid_set(s->grid, x, e[i].y0, (int)e[i].type);
            s->cells++;
        }
    }
    return GC_OK;
}

/* ---- helpers ------------------------------------------------------------- */

/* GC_TEST_QUICK=1 (CI's valgrind stage): shorter runs. */
static int
ticks(int n)
{
    return gc_test_quick() ? n / 10 : n;
}

static gc_scenario *
parse(const char *json)
{
    gc_scenario *sc = NULL;
    gc_error err;
    int rc = gc_scenario_parse(&sc, json, strlen(json), "test.json", &err);
    if (rc != GC_OK)
        fail_msg("%s", err.msg);
    return sc;
}

static gc_scenario *
load(const char *rel)
{
    char path[4096];
    const char *d = getenv("GC_SRCDIR");
    snprintf(path, sizeof path, "%s/%s", d && *d ? d : ".", rel);
    gc_scenario *sc = NULL;
    gc_error err;
    if (gc_scenario_load(&sc, path, &err) != GC_OK)
        fail_msg("%s", err.msg);
    return sc;
}

static gc_scenario_run *
run_new(const gc_scenario *sc, model *m, double hz, uint64_t seed, sink *sk)
{
    scn_crowd c = m_crowd(m);
    gc_scenario_run_config cfg = {hz, seed, sk ? sink_edits : NULL, sk};
    gc_scenario_run *r = NULL;
    gc_error err;
    if (scn_run_new_crowd(&r, sc, &c, &cfg, &err) != GC_OK)
        fail_msg("%s", err.msg);
    return r;
}

static void
step(gc_scenario_run *r, model *m, double hz)
{
    gc_error err;
    if (gc_scenario_run_before_tick(r, &err) != GC_OK)
        fail_msg("%s", err.msg);
    m_tick(m, 1.0 / hz);
    if (gc_scenario_run_after_tick(r, &err) != GC_OK)
        fail_msg("%s", err.msg);
}

/* The books balance: every agent made is present, left or was removed
 * by an editor, once. */
static void
check_books(const gc_scenario_run *r, const model *m)
{
    gc_scenario_counts c;
    gc_scenario_run_counts(r, &c);
    assert_int_equal(c.spawned, c.present + c.left + c.removed);
    uint64_t outside = 0;
    for (size_t i = 0; i < m->n; i++)
        outside += m->a[i].outside;
    assert_int_equal(c.removed, outside);
    assert_int_equal(c.spawned, m->n);
    assert_int_equal(c.left, m->removes);
    assert_int_equal(m->bad_calls, 0);
    uint64_t sum = 0;
    for (size_t e = 0; e < c.nexits; e++)
        sum += c.left_by_exit[e];
    assert_int_equal(sum, c.left);
    size_t live = 0;
    for (size_t i = 0; i < m->n; i++)
        live += !m->a[i].removed;
    assert_int_equal(live, c.present);
}

/* ---- sources ------------------------------------------------------------- */

/* Agents a source of (start, end, rate, total) owes at time t: the k-th at
 * start + k / rate, counted directly. */
static uint64_t
owed(double start, double end, double rate, int64_t total, double t)
{
    uint64_t n = 0;
    for (int64_t k = 0; total < 0 || k < total; k++) {
        double due = start + (double)k / rate;
        if (due > t + 1e-9 || due >= end - 1e-9)
            break;
        n++;
    }
    return n;
}

static void
test_source_rate(void **state)
{
    (void)state;
    static const char *json =
        "{\"version\": 1, \"geometry\": {\"size\": [20, 10], "
        "\"cell_size\": 0.5},"
        " \"groups\": [{\"name\": \"g\", \"radius\": 0.2}],"
        " \"sources\": [{\"name\": \"a\", \"group\": \"g\","
        "   \"area\": {\"rect\": [[0, 0], [20, 10]]},"
        "   \"rate\": 4, \"start\": 1, \"end\": 3, \"total\": 100},"
        "  {\"name\": \"b\", \"group\": \"g\","
        "   \"area\": {\"rect\": [[0, 0], [20, 10]]},"
        "   \"rate\": 10, \"start\": 0.5, \"total\": 7}],"
        " \"stop\": {\"time_limit\": 10}}";
    gc_scenario *sc = parse(json);
    model m;
    const double hz = 10;
    gc_scenario_run *r = run_new(sc, &m, hz, 1, NULL);
    assert_int_equal(gc_scenario_run_start(r, NULL), GC_OK);
    for (int n = 1; n <= 60; n++) {
        gc_error err;
        assert_int_equal(gc_scenario_run_before_tick(r, &err), GC_OK);
        double t = (n - 1) / hz;
        uint64_t want = owed(1, 3, 4, 100, t) + owed(0.5, INFINITY, 10, 7, t);
        gc_scenario_counts c;
        gc_scenario_run_counts(r, &c);
        if (c.spawned != want)
            fail_msg("tick %d (t = %g s): %llu agents made, want %llu", n, t,
                     (unsigned long long)c.spawned, (unsigned long long)want);
        assert_int_equal(c.blocked, 0);
        m_tick(&m, 1 / hz);
        assert_int_equal(gc_scenario_run_after_tick(r, &err), GC_OK);
        check_books(r, &m);
    }
    /* At known ticks, by hand: 8 from a (1, 1.25, ..., 2.75), 7 from b. */
    gc_scenario_counts c;
    gc_scenario_run_counts(r, &c);
    assert_int_equal(c.spawned, 15);
    assert_int_equal(c.from_sources, 15);
    gc_scenario_run_free(r);
    gc_scenario_free(sc);
    free(m.a);
}

/* A spawn with no free place waits and is counted; it happens once the
 * place is free. */
static void
test_source_blocked(void **state)
{
    (void)state;
    static const char *json =
        "{\"version\": 1, \"geometry\": {\"size\": [10, 2], \"cell_size\": 1},"
        " \"groups\": [{\"name\": \"g\", \"radius\": 0.25,"
        "   \"speed\": 1, \"goal\": {\"point\": [9.5, 0.5]}}],"
        " \"sources\": [{\"group\": \"g\","
        "   \"area\": {\"cells\": [[0, 0]]}, \"rate\": 100, \"total\": 3}],"
        " \"stop\": {\"time_limit\": 30}}";
    gc_scenario *sc = parse(json);
    model m;
    /* 8 Hz at 1 m/s: 0.125 m a tick, exact in binary.  A place frees when
     * the body before has gone 0.5 m (two radii): 4 ticks. */
    gc_scenario_run *r = run_new(sc, &m, 8, 1, NULL);
    assert_int_equal(gc_scenario_run_start(r, NULL), GC_OK);
    static const struct {
        int ticks;
        uint64_t spawned, blocked;
    } want[] = {{1, 1, 0}, {4, 1, 3}, {5, 2, 4},
                {8, 2, 7}, {9, 3, 7}, {100, 3, 7}};
    int done = 0;
    for (size_t k = 0; k < sizeof want / sizeof *want; k++) {
        while (done < want[k].ticks) {
            step(r, &m, 8);
            done++;
        }
        gc_scenario_counts c;
        gc_scenario_run_counts(r, &c);
        assert_int_equal(c.spawned, want[k].spawned);
        assert_int_equal(c.blocked, want[k].blocked);
        /* Until the first arrives, they walk one line at one speed: the
         * bodies never overlapped. */
        for (size_t i = 0; want[k].ticks < 60 && i < m.n; i++)
            for (size_t j = i + 1; j < m.n; j++)
                assert_true(hypot(m.a[i].pos.x - m.a[j].pos.x,
                                  m.a[i].pos.y - m.a[j].pos.y) >= 0.5 - 1e-9);
    }
    gc_scenario_run_free(r);
    gc_scenario_free(sc);
    free(m.a);
}

/* ---- exits --------------------------------------------------------------- */

static void
test_exits_count(void **state)
{
    (void)state;
    static const char *json =
        "{\"version\": 1, \"geometry\": {\"size\": [20, 10], "
        "\"cell_size\": 0.5},"
        " \"exits\": [{\"name\": \"west\", \"area\": {\"rect\": [[0, 0], "
        "[0.5, 10]]}},"
        "  {\"name\": \"east\", \"area\": {\"rect\": [[19.5, 0], [20, 10]]}}],"
        " \"groups\": [{\"name\": \"g\", \"count\": 60, \"radius\": 0.2,"
        "   \"spawn\": {\"rect\": [[4, 0], [16, 10]]},"
        "   \"speed\": {\"mean\": 1.3, \"sd\": 0.3, \"min\": 0.5, \"max\": 2},"
        "   \"goal\": {\"exits\": \"all\"}}],"
        " \"sources\": [{\"group\": \"g\", \"area\": {\"rect\": [[9, 0], "
        "[11, 10]]}, \"rate\": 2, \"start\": 1, \"end\": 6}],"
        " \"stop\": {\"time_limit\": 100}}";
    gc_scenario *sc = parse(json);
    model m;
    gc_scenario_run *r = run_new(sc, &m, 20, 7, NULL);
    assert_int_equal(gc_scenario_run_start(r, NULL), GC_OK);
    check_books(r, &m);
    int ticks = 0;
    while (!gc_scenario_run_done(r)) {
        step(r, &m, 20);
        check_books(r, &m);
        ticks++;
        assert_true(ticks < 2000);
    }
    gc_scenario_counts c;
    gc_scenario_run_counts(r, &c);
    assert_int_equal(c.spawned, 70);
    assert_int_equal(c.left, 70);
    assert_int_equal(c.present, 0);
    /* Each left by the exit nearer to where it was made (x < 10: west). */
    uint64_t west = 0;
    for (size_t i = 0; i < m.n; i++)
        west += m.a[i].pos.x < 10;
    assert_int_equal(c.left_by_exit[0], west);
    assert_int_equal(c.left_by_exit[1], 70 - west);
    /* The evacuation time is the tick of the last exit, which ended it. */
    assert_true(fabs(c.evacuation_time - c.time) < 1e-9);
    gc_scenario_run_free(r);
    gc_scenario_free(sc);
    free(m.a);
}

/* Agents an editor removes (their handles answer GC_EGONE) are let go:
 * the tick after goes on (it failed with "agent was removed (stale
 * handle)"), they are counted as removed, not as present or as leavers,
 * the runner never asks for them again, and the rest still all leave. */
static void
test_removed_outside(void **state)
{
    (void)state;
    static const char *json =
        "{\"version\": 1, \"geometry\": {\"size\": [20, 10], "
        "\"cell_size\": 0.5},"
        " \"exits\": [{\"name\": \"east\", \"area\": {\"rect\": [[19.5, 0], "
        "[20, 10]]}}],"
        " \"groups\": [{\"name\": \"g\", \"count\": 20, \"radius\": 0.2,"
        "   \"spawn\": {\"rect\": [[2, 0], [8, 10]]},"
        "   \"goal\": {\"exits\": \"all\"}}],"
        " \"stop\": {\"time_limit\": 100}}";
    gc_scenario *sc = parse(json);
    model m;
    gc_scenario_run *r = run_new(sc, &m, 20, 3, NULL);
    assert_int_equal(gc_scenario_run_start(r, NULL), GC_OK);
    step(r, &m, 20);
    m_remove_outside(&m, 1);
    m_remove_outside(&m, 7);
    step(r, &m, 20);
    check_books(r, &m);
    gc_scenario_counts c;
    gc_scenario_run_counts(r, &c);
    assert_int_equal(c.removed, 2);
    assert_int_equal(c.present, 18);
    assert_true(m.a[0].told && m.a[6].told);
    int ticks = 0;
    while (!gc_scenario_run_done(r)) {
        step(r, &m, 20);
        check_books(r, &m);
        assert_true(++ticks < 2000);
    }
    gc_scenario_run_counts(r, &c);
    assert_int_equal(c.spawned, 20);
    assert_int_equal(c.left, 18);
    assert_int_equal(c.removed, 2);
    assert_int_equal(c.present, 0);
    gc_scenario_run_free(r);
    gc_scenario_free(sc);
    free(m.a);
}

/* ---- events -------------------------------------------------------------- */

static void
test_events_at_tick(void **state)
{
    (void)state;
    static const char *json =
        "{\"version\": 1, \"geometry\": {\"size\": [10, 10], "
        "\"cell_size\": 1,"
        "  \"shapes\": [{\"rect\": [[0, 0], [1, 1]], \"id\": \"corner\"}]},"
        " \"groups\": [{\"name\": \"g\", \"count\": 1,"
        "   \"spawn\": {\"cells\": [[5, 5]]}}],"
        " \"events\": ["
        "  {\"time\": 2.05, \"paint\": {\"rect\": [[3, 3], [6, 4]]}},"
        "  {\"time\": 1, \"add\": {\"id\": \"door\", \"rect\": [[8, 0], [9, "
        "10]]}},"
        "  {\"time\": 1.5, \"remove\": \"door\"},"
        "  {\"time\": 1.5, \"remove\": \"corner\"}],"
        " \"stop\": {\"time_limit\": 5}}";
    gc_scenario *sc = parse(json);
    gc_grid *live = NULL;
    assert_int_equal(gc_scenario_grid(sc, &live, NULL), GC_OK);
    model m;
    uint64_t ticks_done = 0;
    sink sk = {live, 0, 0, &ticks_done, 0};
    const double hz = 10;
    gc_scenario_run *r = run_new(sc, &m, hz, 1, &sk);
    assert_int_equal(gc_scenario_run_start(r, NULL), GC_OK);
    /* Before the tick whose interval holds the event's time: add at 1 s
     * before tick 11 (10 done), remove at 1.5 s before tick 16, paint at
     * 2.05 s before tick 21. */
    for (int n = 1; n <= 30; n++) {
        ticks_done = (uint64_t)n - 1;
        step(r, &m, hz);
        uint8_t door = gc_grid_get(live, 8, 5);
        uint8_t paint = gc_grid_get(live, 4, 3);
        uint8_t corner = gc_grid_get(live, 0, 0);
        assert_int_equal(door, n >= 11 && n < 16 ? GC_CELL_OBSTACLE
                                                 : GC_CELL_WALKABLE);
        assert_int_equal(corner, n < 16 ? GC_CELL_OBSTACLE : GC_CELL_WALKABLE);
        assert_int_equal(paint, n >= 21 ? GC_CELL_OBSTACLE : GC_CELL_WALKABLE);
        /* The live grid is the runner's model at every tick. */
        assert_true(gc_grid_equal(live, scn_run_model(r)));
    }
    assert_int_equal(sk.calls, 3); /* the two removes at one tick: one call */
    assert_int_equal(sk.last_tick, 20);
    gc_scenario_counts c;
    gc_scenario_run_counts(r, &c);
    assert_int_equal(c.events_fired, 4);
    /* door 10 + 10 back, corner 1, paint 3 x 1 (rows 3: x 3..5). */
    assert_int_equal(c.cells_edited, sk.cells);
    assert_int_equal(c.cells_edited, 10 + 10 + 1 + 3);
    gc_scenario_run_free(r);
    gc_scenario_free(sc);
    gc_grid_free(live);
    free(m.a);
}

/* A set_goal event turns a group; stop/start_source pause a source. */
static void
test_events_goal_source(void **state)
{
    (void)state;
    static const char *json =
        "{\"version\": 1, \"geometry\": {\"size\": [20, 10], "
        "\"cell_size\": 0.5},"
        " \"exits\": [{\"name\": \"w\", \"area\": {\"rect\": [[0, 0], [0.5, "
        "10]]}},"
        "  {\"name\": \"e\", \"area\": {\"rect\": [[19.5, 0], [20, 10]]}}],"
        " \"groups\": [{\"name\": \"g\", \"count\": 10, \"speed\": 1,"
        "   \"spawn\": {\"rect\": [[8, 0], [12, 10]]},"
        "   \"goal\": {\"exits\": [\"e\"]}}],"
        " \"sources\": [{\"name\": \"s\", \"group\": \"g\", \"rate\": 1,"
        "   \"area\": {\"rect\": [[9, 0], [11, 10]]}}],"
        " \"events\": [{\"time\": 2, \"set_goal\": {\"group\": \"g\", "
        "\"goal\": {\"exits\": [\"w\"]}}},"
        "  {\"time\": 3, \"stop_source\": \"s\"},"
        "  {\"time\": 6, \"start_source\": \"s\"}],"
        " \"stop\": {\"time_limit\": 40}}";
    gc_scenario *sc = parse(json);
    model m;
    gc_scenario_run *r = run_new(sc, &m, 10, 3, NULL);
    assert_int_equal(gc_scenario_run_start(r, NULL), GC_OK);
    for (int n = 1; n <= 80; n++) {
        step(r, &m, 10);
        check_books(r, &m);
    }
    /* Made at 0, 1, 2 (then stopped at 3), again at 6 and 7: 5 + 10. */
    gc_scenario_counts c;
    gc_scenario_run_counts(r, &c);
    assert_int_equal(c.spawned, 15);
    while (!gc_scenario_run_done(r))
        step(r, &m, 10);
    gc_scenario_run_counts(r, &c);
    /* Everyone turned west at 2 s: nobody had reached the east (>= 7.5 m
     * at 1 m/s), so all left west: the 15 made by 7 s at least (37 of
     * the 47 made by 40 s today). */
    assert_int_equal(c.left_by_exit[1], 0);
    assert_int_equal(c.left_by_exit[0], c.left);
    assert_true(c.left >= 15);
    gc_scenario_run_free(r);
    gc_scenario_free(sc);
    free(m.a);
}

/* ---- reproducibility ----------------------------------------------------- */

static void
run_station(uint64_t seed, gc_point *out, size_t cap, size_t *n, size_t *moved)
{
    gc_scenario *sc = load("scenarios/station.json");
    gc_grid *live = NULL;
    assert_int_equal(gc_scenario_grid(sc, &live, NULL), GC_OK);
    model m;
    uint64_t td = 0;
    sink sk = {live, 0, 0, &td, 0};
    gc_scenario_run *r = run_new(sc, &m, 10, seed, &sk);
    assert_int_equal(gc_scenario_run_start(r, NULL), GC_OK);
    for (int i = 0; i < ticks(800); i++) {
        step(r, &m, 10);
        check_books(r, &m);
    }
    *n = m.n < cap ? m.n : cap;
    *moved = 0;
    for (size_t i = 0; i < *n; i++) {
        out[i] = m.a[i].pos;
        *moved +=
            m.a[i].pos.x != m.a[i].start.x || m.a[i].pos.y != m.a[i].start.y;
    }
    gc_scenario_run_free(r);
    gc_scenario_free(sc);
    gc_grid_free(live);
    free(m.a);
}

static void
test_same_seed_same_run(void **state)
{
    (void)state;
    enum { CAP = 1000 };
    static gc_point a[CAP], b[CAP], c[CAP];
    size_t na, nb, nc, moved_a, moved_b, moved_c;
    run_station(1, a, CAP, &na, &moved_a);
    run_station(1, b, CAP, &nb, &moved_b);
    run_station(2, c, CAP, &nc, &moved_c);
    print_message("station: %zu agents, %zu moved; seed 2: %zu, %zu moved\n",
                  na, moved_a, nc, moved_c);
    assert_int_equal(na, nb);
    assert_true(na >= 300);
    /* The crowd walked: a run whose agents all stood where they were made
     * would compare the places drawn and nothing of the run. */
    assert_true(moved_a > na / 2);
    assert_int_equal(moved_b, moved_a);
    assert_memory_equal(a, b, na * sizeof *a);
    assert_true(nc != na || memcmp(a, c, na * sizeof *a) != 0);
}

/* ---- groups -------------------------------------------------------------- */

/* RiMEA test 7: every drawn speed inside its age group's range. */
static void
test_rimea7_speeds(void **state)
{
    (void)state;
    gc_scenario *sc = load("scenarios/rimea-07-speeds.json");
    static const double lo[4] = {0.58, 1.41, 0.68, 0.46};
    static const double hi[4] = {1.61, 1.54, 1.41, 0.76};
    assert_int_equal(sc->ngroups, 4);
    for (uint64_t seed = 1; seed <= 20; seed++) {
        model m;
        gc_scenario_run *r = run_new(sc, &m, 10, seed, NULL);
        assert_int_equal(gc_scenario_run_start(r, NULL), GC_OK);
        for (size_t g = 0; g < 4; g++) {
            uint64_t n;
            double mn, mx;
            assert_int_equal(gc_scenario_run_speeds(r, g, &n, &mn, &mx), GC_OK);
            assert_int_equal(n, 50);
            assert_true(mn >= lo[g] && mx <= hi[g]);
        }
        assert_int_equal(m.n, 4 * 50); /* the speeds the crowd was given */
        for (size_t i = 0; i < m.n; i++)
            assert_true(m.a[i].speed >= lo[m.a[i].group] &&
                        m.a[i].speed <= hi[m.a[i].group]);
        gc_scenario_run_free(r);
        free(m.a);
    }
    gc_scenario_free(sc);
}

/* Bodies are placed apart and off the walls; a group that cannot fit is
 * refused by name. */
static void
test_group_placement(void **state)
{
    (void)state;
    gc_scenario *sc = load("scenarios/rimea-09-four-exits.json");
    model m;
    gc_scenario_run *r = run_new(sc, &m, 10, 1, NULL);
    assert_int_equal(gc_scenario_run_start(r, NULL), GC_OK);
    const gc_grid *g = scn_run_model(r);
    assert_int_equal(m.n, 1000); /* the loop below has bodies to check */
    for (size_t i = 0; i < m.n; i++) {
        gc_cell c = {(int32_t)floor(m.a[i].pos.x / sc->cell_size),
                     (int32_t)floor(m.a[i].pos.y / sc->cell_size)};
        assert_true(gc_grid_passable(g, c.x, c.y));
        for (size_t j = i + 1; j < m.n; j++)
            assert_true(hypot(m.a[i].pos.x - m.a[j].pos.x,
                              m.a[i].pos.y - m.a[j].pos.y) >=
                        m.a[i].radius + m.a[j].radius - 1e-9);
    }
    gc_scenario_run_free(r);
    gc_scenario_free(sc);
    free(m.a);

    static const char *json =
        "{\"version\": 1, \"geometry\": {\"size\": [2, 2], \"cell_size\": 1},"
        " \"groups\": [{\"name\": \"crowd\", \"count\": 5, \"radius\": 0.4,"
        "   \"spawn\": {\"rect\": [[0, 0], [2, 2]]}}]}";
    sc = parse(json);
    r = run_new(sc, &m, 10, 1, NULL);
    gc_error err;
    assert_int_equal(gc_scenario_run_start(r, &err), GC_ERANGE);
    assert_non_null(strstr(err.msg, "group 'crowd': only 4 of its 5 agents"));
    gc_scenario_run_free(r);
    gc_scenario_free(sc);
    free(m.a);
}

/* Every shipped scenario runs on the model crowd with its books balanced
 * at every tick, to its end or 3000 ticks. */
static void
test_shipped_run(void **state)
{
    (void)state;
    static const char *files[] = {
        "bottleneck.json",         "corridor.json",
        "crossing.json",           "station.json",
        "rimea-01-corridor.json",  "rimea-06-corner.json",
        "rimea-07-speeds.json",    "rimea-09-four-exits.json",
        "rimea-09-two-exits.json", "rimea-12-bottleneck.json"};
    for (size_t f = 0; f < sizeof files / sizeof *files; f++) {
        char rel[256];
        snprintf(rel, sizeof rel, "scenarios/%s", files[f]);
        gc_scenario *sc = load(rel);
        gc_grid *live = NULL;
        assert_int_equal(gc_scenario_grid(sc, &live, NULL), GC_OK);
        model m;
        uint64_t td = 0;
        sink sk = {live, 0, 0, &td, 0};
        gc_scenario_run *r = run_new(sc, &m, 10, 1, &sk);
        gc_error err;
        if (gc_scenario_run_start(r, &err) != GC_OK)
            fail_msg("%s: %s", files[f], err.msg);
        for (int i = 0; i < ticks(3000) && !gc_scenario_run_done(r); i++) {
            step(r, &m, 10);
            check_books(r, &m);
        }
        /* Books that balance because nobody was made, or because nobody
         * ever left, prove nothing: agents were made and some left (all of
         * them today; under GC_TEST_QUICK at least 1 of each file's). */
        gc_scenario_counts c;
        gc_scenario_run_counts(r, &c);
        if (c.spawned == 0 || c.left == 0)
            fail_msg("%s: %llu agents made, %llu left", files[f],
                     (unsigned long long)c.spawned, (unsigned long long)c.left);
        gc_scenario_run_free(r);
        gc_scenario_free(sc);
        gc_grid_free(live);
        free(m.a);
    }
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_source_rate),
        cmocka_unit_test(test_source_blocked),
        cmocka_unit_test(test_exits_count),
        cmocka_unit_test(test_removed_outside),
        cmocka_unit_test(test_events_at_tick),
        cmocka_unit_test(test_events_goal_source),
        cmocka_unit_test(test_same_seed_same_run),
        cmocka_unit_test(test_rimea7_speeds),
        cmocka_unit_test(test_group_placement),
        cmocka_unit_test(test_shipped_run),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
