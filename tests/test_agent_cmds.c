/*
 * test_agent_cmds.c: agent commands through the real edit queue
 * (edits.h: SPAWN, REMOVE, GOAL, SPEED, RADIUS), applied by the host to
 * its simulation between ticks, and their answers in the world.
 *
 * - Every command applied, with its answer (a spawn's carries the
 *   handle); the snapshot shows the new agent with its salt and group.
 * - Every refusal under its own reason, counted and answered with its
 *   code (the check's for the reason, or the simulation's): found by the
 *   check (bad_field, bad_agent, bad_type, bad_value) or by the simulation
 *   (stale_agent, blocked, out_of_bounds, overlap, capacity), and
 *   no_agents without a simulation.
 * - Batches: agent commands staged and applied at their END, in order.
 * - The answer ring overwrites the oldest: a reader that waited too long
 *   finds its answer gone (edits_applied passed it, no answer).
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <gridcrowd/edits.h>
#include <gridcrowd/host.h>
#include <gridcrowd/util.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "world_unlink.h"

/* 20 x 10: a wall down column 10 with a gap at (10, 5). */
static const char *rows[] = {
    "..........@.........", "..........@.........", "..........@.........",
    "..........@.........", "..........@.........", "....................",
    "..........@.........", "..........@.........", "..........@.........",
    "..........@.........",
};

typedef struct fixture {
    char name[64];
    gc_world *w, *r; /* owner; a tool attached with the queue */
    gc_grid *grid;
    gc_sim *sim;
    gc_host *h;
    uint64_t token;
} fixture;

/* The world's name: one per process, so that runs in parallel never
 * collide. */
static void
world_name(char *buf, size_t size)
{
    snprintf(buf, size, "gct%d-agentcmd", (int)getpid());
}

static void
setup_with(fixture *f, uint32_t cap, uint32_t answers, bool with_sim,
           float radius)
{
    memset(f, 0, sizeof *f);
    world_name(f->name, sizeof f->name);
    gc_world_config wc;
    memset(&wc, 0, sizeof wc);
    wc.name = f->name;
    wc.width = 20;
    wc.height = 10;
    wc.agent_capacity = cap;
    wc.answer_capacity = answers;
    gc_error err;
    assert_int_equal(gc_world_create(&f->w, &wc, NULL, &err), GC_OK);
    gc_grid *map;
    assert_int_equal(gc_grid_new(&map, 20, 10), GC_OK);
    for (int y = 0; y < 10; y++)
        for (int x = 0; x < 20; x++)
            gc_grid_set(map, x, y, gc_cell_type_from_glyph(rows[y][x]));
    assert_int_equal(gc_host_grid(f->w, map, &f->grid), GC_OK);
    gc_grid_free(map);
    if (with_sim) {
        gc_sim_config c;
        gc_sim_config_init(&c);
        c.agents = 0;
        c.max_agents = cap;
        c.radius = radius;
        assert_int_equal(gc_sim_new(&f->sim, f->grid, &c, &err), GC_OK);
    }
    gc_host_config hc = {f->w, f->grid, f->sim, NULL, NULL, NULL, NULL};
    assert_int_equal(gc_host_new(&f->h, &hc), GC_OK);
    assert_int_equal(
        gc_world_attach(&f->r, f->name, GC_WORLD_ATTACH_QUEUE, &err), GC_OK);
    f->token = 0x1234567800000000ull;
}

static void
teardown(fixture *f)
{
    gc_world_close(f->r);
    gc_host_free(f->h);
    gc_sim_free(f->sim);
    gc_grid_free(f->grid);
    gc_world_destroy(f->w);
}

/* After each test, even one that failed before its teardown(). */
static int
unlink_world(void **state)
{
    (void)state;
    char name[64];
    world_name(name, sizeof name);
    gc_test_world_unlink(name);
    return 0;
}

/* Push e (with a fresh token); its position. */
static uint64_t
send(fixture *f, gc_edit *e)
{
    e->client_token = ++f->token;
    assert_int_equal(gc_queue_push(gc_world_queue(f->r), e, 0), GC_OK);
    return e->position;
}

static void
drain(fixture *f)
{
    assert_int_equal(gc_host_edits(f->h, gc_clock_ns(), 0, NULL), GC_OK);
}

/* The answer to e, which must be there. */
static gc_world_answer
answer_of(fixture *f, const gc_edit *e)
{
    assert_true(gc_world_edits_applied(f->r) > e->position);
    gc_world_answer a;
    int rc = gc_world_find_answer(f->r, e->sender_pid, e->client_token,
                                  e->position, &a);
    if (rc != GC_OK)
        fail_msg("no answer for op %u at %llu: %s", e->op,
                 (unsigned long long)e->position, gc_strerror(rc));
    assert_int_equal(a.op, e->op);
    return a;
}

static gc_edit
spawn_cmd(float x, float y)
{
    gc_edit e;
    memset(&e, 0, sizeof e);
    e.op = GC_EDIT_SPAWN;
    e.px = x;
    e.py = y;
    return e;
}

static gc_edit
cmd(uint32_t op, uint32_t agent, uint32_t type)
{
    gc_edit e;
    memset(&e, 0, sizeof e);
    e.op = op;
    e.agent = agent;
    e.type = type;
    e.flags = GC_EDIT_F_ANSWER;
    return e;
}

/* e is refused for `reason`, and its answer carries `code`: the check's
 * code for the reason, or the simulation's own (gc_edit_reason_of). */
static void
expect_refused(fixture *f, gc_edit *e, int reason, int code)
{
    gc_edit_counts before, after;
    gc_edit_applier_counts(gc_host_applier(f->h), &before);
    send(f, e);
    drain(f);
    gc_edit_applier_counts(gc_host_applier(f->h), &after);
    assert_int_equal(after.by_reason[reason], before.by_reason[reason] + 1);
    assert_int_equal(after.rejected, before.rejected + 1);
    gc_world_answer a = answer_of(f, e);
    if (a.reason != reason)
        fail_msg("op %u refused as %s, not %s", e->op,
                 gc_edit_reason_name(a.reason), gc_edit_reason_name(reason));
    assert_string_equal(gc_err_name(a.code), gc_err_name(code));
    assert_int_equal(a.handle, 0);
}

static void
test_commands_and_answers(void **state)
{
    (void)state;
    fixture f;
    setup_with(&f, 4, 0, true, 0.0f);

    /* Spawn with a goal, a radius, a speed and a group. */
    gc_edit sp = spawn_cmd(2.5f, 2.5f);
    sp.flags = GC_EDIT_F_GOAL;
    sp.gx = 16.5f;
    sp.gy = 2.5f;
    sp.radius = 0.3f;
    sp.speed = 2.0f;
    sp.group = 42;
    send(&f, &sp);
    drain(&f);
    gc_world_answer a = answer_of(&f, &sp);
    assert_int_equal(a.code, GC_OK);
    assert_int_equal(a.reason, -1);
    gc_agent_handle h = a.handle;
    assert_int_not_equal(h, GC_AGENT_NONE);
    size_t i;
    assert_int_equal(gc_sim_resolve(f.sim, h, &i), GC_OK);
    const gc_agent *ag = gc_sim_agent(f.sim, i);
    assert_float_equal(ag->pos.x, 2.5f, 0.0f);
    assert_float_equal(ag->radius, 0.3f, 0.0f);
    assert_float_equal(ag->speed, 2.0f, 0.0f);
    assert_int_equal(ag->state, GC_AGENT_WAITING);
    assert_int_equal(ag->goal.x, 16);

    /* The snapshot: id, salt and group. */
    assert_int_equal(gc_host_tick(f.h), GC_OK);
    gc_host_publish_agents(f.h);
    gc_world_agent recs[4];
    size_t n = 0;
    assert_int_equal(gc_world_read_agents(f.r, recs, 4, &n, NULL), GC_OK);
    assert_int_equal(n, 1);
    assert_int_equal(recs[0].id, gc_agent_handle_index(h));
    assert_int_equal(recs[0].salt, gc_agent_handle_salt(h));
    assert_int_equal(recs[0].group, 42);

    /* Goals, speed and radius. */
    gc_edit g = cmd(GC_EDIT_GOAL, h, GC_EDIT_GOAL_STOP);
    send(&f, &g);
    drain(&f);
    assert_int_equal(answer_of(&f, &g).code, GC_OK);
    assert_int_equal(ag->state, GC_AGENT_IDLE);
    g = cmd(GC_EDIT_GOAL, h, GC_EDIT_GOAL_POINT);
    g.px = 5.5f;
    g.py = 8.5f;
    send(&f, &g);
    drain(&f);
    assert_int_equal(answer_of(&f, &g).code, GC_OK);
    assert_int_equal(ag->goal.x, 5);
    assert_int_equal(ag->goal.y, 8);
    g = cmd(GC_EDIT_GOAL, h, GC_EDIT_GOAL_WANDER);
    send(&f, &g);
    drain(&f);
    assert_int_equal(answer_of(&f, &g).code, GC_OK);
    gc_edit sp2 = spawn_cmd(6.5f, 6.5f);
    send(&f, &sp2);
    drain(&f);
    gc_agent_handle h2 = answer_of(&f, &sp2).handle;
    g = cmd(GC_EDIT_GOAL, h2, GC_EDIT_GOAL_FOLLOW);
    g.target = h;
    g.dist = 1.5f;
    send(&f, &g);
    drain(&f);
    assert_int_equal(answer_of(&f, &g).code, GC_OK);
    gc_edit v = cmd(GC_EDIT_SPEED, h, 0);
    v.speed = 3.0f;
    send(&f, &v);
    gc_edit rr = cmd(GC_EDIT_RADIUS, h, 0);
    rr.radius = 0.2f;
    send(&f, &rr);
    drain(&f);
    assert_int_equal(answer_of(&f, &v).code, GC_OK);
    assert_int_equal(answer_of(&f, &rr).code, GC_OK);
    assert_float_equal(ag->speed, 3.0f, 0.0f);
    assert_float_equal(ag->radius, 0.2f, 0.0f);

    /* Refused by the check. */
    gc_edit bad = spawn_cmd(3.5f, 3.5f);
    bad.x0 = 1;
    expect_refused(&f, &bad, GC_EDIT_R_BAD_FIELD, GC_EINVAL);
    bad = spawn_cmd(NAN, 3.5f);
    expect_refused(&f, &bad, GC_EDIT_R_BAD_VALUE, GC_ERANGE);
    bad = spawn_cmd(3.5f, 3.5f);
    bad.flags = 8;
    expect_refused(&f, &bad, GC_EDIT_R_BAD_FIELD, GC_EINVAL);
    bad = cmd(GC_EDIT_REMOVE, 0, 0);
    expect_refused(&f, &bad, GC_EDIT_R_BAD_AGENT, GC_EINVAL);
    bad = cmd(GC_EDIT_GOAL, h, 9);
    expect_refused(&f, &bad, GC_EDIT_R_BAD_TYPE, GC_EINVAL);
    bad = cmd(GC_EDIT_GOAL, h, GC_EDIT_GOAL_FOLLOW);
    bad.target = h2;
    bad.dist = -1.0f;
    expect_refused(&f, &bad, GC_EDIT_R_BAD_VALUE, GC_ERANGE);
    bad = cmd(GC_EDIT_SPEED, h, 0);
    bad.speed = 0.0f;
    expect_refused(&f, &bad, GC_EDIT_R_BAD_VALUE, GC_ERANGE);
    bad = cmd(GC_EDIT_RADIUS, h, 0);
    bad.radius = INFINITY;
    expect_refused(&f, &bad, GC_EDIT_R_BAD_VALUE, GC_ERANGE);

    /* Refused by the simulation. */
    bad = spawn_cmd(10.5f, 1.5f);
    expect_refused(&f, &bad, GC_EDIT_R_BLOCKED, GC_EBLOCKED);
    bad = spawn_cmd(25.0f, 1.5f);
    expect_refused(&f, &bad, GC_EDIT_R_OUT_OF_BOUNDS, GC_EOUTSIDE);
    bad = spawn_cmd(1.5f, 1.5f);
    bad.flags = GC_EDIT_F_GOAL;
    bad.gx = 10.5f;
    bad.gy = 0.5f;
    expect_refused(&f, &bad, GC_EDIT_R_BLOCKED, GC_EBLOCKED);
    bad = spawn_cmd(ag->pos.x + 0.1f, ag->pos.y);
    bad.radius = 0.3f;
    expect_refused(&f, &bad, GC_EDIT_R_OVERLAP, GC_EOVERLAP);
    bad = cmd(GC_EDIT_SPEED, h, 0);
    bad.speed = 1e6f;
    expect_refused(&f, &bad, GC_EDIT_R_BAD_VALUE, GC_ERANGE);

    /* Remove: applied, then stale for every command naming it. */
    gc_edit rm = cmd(GC_EDIT_REMOVE, h2, 0);
    send(&f, &rm);
    drain(&f);
    assert_int_equal(answer_of(&f, &rm).code, GC_OK);
    assert_int_equal(gc_sim_resolve(f.sim, h2, NULL), GC_EGONE);
    bad = cmd(GC_EDIT_REMOVE, h2, 0);
    expect_refused(&f, &bad, GC_EDIT_R_STALE_AGENT, GC_EGONE);
    bad = cmd(GC_EDIT_GOAL, h2, GC_EDIT_GOAL_STOP);
    expect_refused(&f, &bad, GC_EDIT_R_STALE_AGENT, GC_EGONE);
    bad = cmd(GC_EDIT_SPEED, h2, 0);
    bad.speed = 1.0f;
    expect_refused(&f, &bad, GC_EDIT_R_STALE_AGENT, GC_EGONE);
    bad = cmd(GC_EDIT_GOAL, h, GC_EDIT_GOAL_FOLLOW);
    bad.target = h2;
    expect_refused(&f, &bad, GC_EDIT_R_STALE_AGENT, GC_EGONE);
    /* The slot is reused with a new salt; the old handle stays stale. */
    gc_edit sp3 = spawn_cmd(7.5f, 7.5f);
    send(&f, &sp3);
    drain(&f);
    gc_agent_handle h3 = answer_of(&f, &sp3).handle;
    assert_int_equal(gc_agent_handle_index(h3), gc_agent_handle_index(h2));
    assert_int_not_equal(h3, h2);
    bad = cmd(GC_EDIT_RADIUS, h2, 0);
    bad.radius = 0.1f;
    expect_refused(&f, &bad, GC_EDIT_R_STALE_AGENT, GC_EGONE);

    /* Full: 4 slots. */
    gc_edit s4 = spawn_cmd(15.5f, 8.5f), s5 = spawn_cmd(17.5f, 8.5f);
    send(&f, &s4);
    send(&f, &s5);
    drain(&f);
    assert_int_equal(answer_of(&f, &s4).code, GC_OK);
    assert_int_equal(answer_of(&f, &s5).code, GC_OK);
    bad = spawn_cmd(15.5f, 3.5f);
    expect_refused(&f, &bad, GC_EDIT_R_CAPACITY, GC_ECAPACITY);

    /* A cell edit may ask for an answer too. */
    gc_edit c;
    memset(&c, 0, sizeof c);
    c.op = GC_EDIT_SET;
    c.type = GC_CELL_OBSTACLE;
    c.x0 = 0;
    c.y0 = 9;
    c.flags = GC_EDIT_F_ANSWER;
    send(&f, &c);
    drain(&f);
    assert_int_equal(answer_of(&f, &c).code, GC_OK);
    /* Unasked, none: though it was applied (an entry not yet dealt with
     * has no answer either). */
    c.flags = 0;
    c.y0 = 8;
    send(&f, &c);
    drain(&f);
    assert_true(gc_world_edits_applied(f.r) > c.position);
    uint8_t cells[20 * 10];
    assert_int_equal(gc_world_read_cells(f.r, cells, NULL), GC_OK);
    assert_int_equal(cells[8 * 20 + 0], GC_CELL_OBSTACLE);
    assert_int_equal(cells[9 * 20 + 0], GC_CELL_OBSTACLE);
    gc_world_answer none;
    assert_int_equal(gc_world_find_answer(f.r, c.sender_pid, c.client_token,
                                          c.position, &none),
                     GC_EAGAIN);
    teardown(&f);
}

static void
test_batches(void **state)
{
    (void)state;
    fixture f;
    setup_with(&f, 8, 0, true, 0.0f);
    uint32_t id = 77;
    gc_edit m[3] = {spawn_cmd(1.5f, 1.5f), spawn_cmd(2.5f, 1.5f),
                    spawn_cmd(10.5f, 2.5f)};
    for (int k = 0; k < 2; k++) {
        m[k].batch = id;
        send(&f, &m[k]);
    }
    drain(&f);
    /* Staged: nothing yet. */
    assert_int_equal(gc_sim_live_count(f.sim), 0);
    gc_edit end;
    memset(&end, 0, sizeof end);
    end.op = GC_EDIT_BATCH_END;
    end.batch = id;
    end.x0 = 2;
    end.flags = GC_EDIT_F_ANSWER;
    send(&f, &end);
    drain(&f);
    assert_int_equal(gc_sim_live_count(f.sim), 2);
    gc_world_answer a0 = answer_of(&f, &m[0]), a1 = answer_of(&f, &m[1]);
    assert_int_equal(a0.code, GC_OK);
    assert_int_equal(gc_agent_handle_index(a0.handle), 0);
    assert_int_equal(gc_agent_handle_index(a1.handle), 1);
    assert_int_equal(answer_of(&f, &end).code, GC_OK);
    /* A batch whose member is refused by the sim: the rest applies, the
     * refused one is answered with its reason. */
    id++;
    m[0] = spawn_cmd(3.5f, 3.5f);
    m[0].batch = id;
    m[2].batch = id;
    send(&f, &m[0]);
    send(&f, &m[2]);
    end.batch = id;
    send(&f, &end);
    drain(&f);
    assert_int_equal(answer_of(&f, &m[0]).code, GC_OK);
    assert_int_equal(answer_of(&f, &m[2]).reason, GC_EDIT_R_BLOCKED);
    assert_int_equal(gc_sim_live_count(f.sim), 3);
    /* A poisoned batch: nothing of it applies, all are answered. */
    id++;
    m[0] = spawn_cmd(4.5f, 4.5f);
    m[0].batch = id;
    m[1] = spawn_cmd(NAN, 4.5f);
    m[1].batch = id;
    send(&f, &m[0]);
    send(&f, &m[1]);
    end.batch = id;
    send(&f, &end);
    drain(&f);
    assert_int_equal(gc_sim_live_count(f.sim), 3);
    assert_int_equal(answer_of(&f, &m[0]).reason, GC_EDIT_R_BATCH_INCOMPLETE);
    assert_int_equal(answer_of(&f, &m[1]).reason, GC_EDIT_R_BAD_VALUE);
    assert_int_equal(answer_of(&f, &end).reason, GC_EDIT_R_BATCH_INCOMPLETE);
    teardown(&f);
}

static void
test_answer_ring_overwrites(void **state)
{
    (void)state;
    fixture f;
    setup_with(&f, 16, 4, true, 0.0f);
    gc_edit e[10];
    for (int k = 0; k < 10; k++) {
        e[k] = spawn_cmd(1.5f + (float)k, 1.5f + (float)(k % 2) * 5.0f);
        if (k >= 9)
            e[k].px = 11.5f;
        send(&f, &e[k]);
    }
    drain(&f);
    /* The last four are there; the first six were overwritten: their
     * position passed, and no answer: the reader can say it lost it. */
    for (int k = 0; k < 10; k++) {
        gc_world_answer a;
        int rc = gc_world_find_answer(f.r, e[k].sender_pid, e[k].client_token,
                                      e[k].position, &a);
        assert_true(gc_world_edits_applied(f.r) > e[k].position);
        assert_int_equal(rc, k < 6 ? GC_EAGAIN : GC_OK);
    }
    /* Someone else's token finds nothing. */
    gc_world_answer a;
    assert_int_equal(
        gc_world_find_answer(f.r, e[9].sender_pid, 1, e[9].position, &a),
        GC_EAGAIN);
    assert_int_equal(gc_world_find_answer(f.r, e[9].sender_pid + 1,
                                          e[9].client_token, e[9].position, &a),
                     GC_EAGAIN);
    teardown(&f);
}

static void
test_no_sim(void **state)
{
    (void)state;
    fixture f;
    setup_with(&f, 4, 0, false, 0.0f);
    gc_edit e = spawn_cmd(1.5f, 1.5f);
    expect_refused(&f, &e, GC_EDIT_R_NO_AGENTS, GC_EINVAL);
    teardown(&f);
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_teardown(test_commands_and_answers, unlink_world),
        cmocka_unit_test_teardown(test_batches, unlink_world),
        cmocka_unit_test_teardown(test_answer_ring_overwrites, unlink_world),
        cmocka_unit_test_teardown(test_no_sim, unlink_world),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
