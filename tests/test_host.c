/*
 * test_host.c: the library's host, as a program that embeds gc_sim uses it
 * (gridcrowd/host.h): a world made in this process, edits pushed through
 * the real queue, ticks, and a reader attached the way the viewer attaches
 * that sees the sim's agents, the tick, the statistics and the changed
 * cells.  Also: a queue someone shrank is made again and reported; a host
 * without a sim publishes the records it is given; the whole path of the
 * agent the trace request names goes to the world's path section, however
 * long (the records hold 8 waypoints); the records of a large crowd,
 * written by the sim's workers, are the ones one thread writes; the
 * records are due every tick while a reader is attached, four times a
 * second while none is, and after edits.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <gridcrowd/edits.h>
#include <gridcrowd/host.h>
#include <gridcrowd/util.h>

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "world_unlink.h"

static char name[64];

/* A world of w x h cells (21 x 10 unless given) with room for `agents`
 * records. */
static gc_world *
make_world_sized(uint32_t agents, int32_t w, int32_t h)
{
    snprintf(name, sizeof name, "gct%d-host", (int)getpid());
    gc_world_config wc;
    memset(&wc, 0, sizeof wc);
    wc.name = name;
    wc.width = w;
    wc.height = h;
    wc.agent_capacity = agents;
    gc_world *wo;
    gc_error err;
    assert_int_equal(gc_world_create(&wo, &wc, NULL, &err), GC_OK);
    return wo;
}

/* After each test, even one that failed before destroying its world:
 * its objects unlinked (tests/world_unlink.h). */
static int
unlink_world(void **state)
{
    (void)state;
    if (name[0] != '\0')
        gc_test_world_unlink(name);
    return 0;
}

static gc_world *
make_world(uint32_t agents)
{
    return make_world_sized(agents, 21, 10);
}

typedef struct said {
    int n;
    char last[256];
} said;

static void
on_report(void *arg, const char *line)
{
    said *s = arg;
    s->n++;
    snprintf(s->last, sizeof s->last, "%s", line);
}

/* A host of sim on grid in w, without a report function. */
static gc_host *
quiet_host(gc_world *w, gc_grid *grid, gc_sim *sim)
{
    gc_host_config hc = {w, grid, sim, NULL, NULL, NULL, NULL};
    gc_host *h;
    assert_int_equal(gc_host_new(&h, &hc), GC_OK);
    return h;
}

/* A sim of `agents` on grid, every other setting the default. */
static gc_sim *
default_sim(gc_grid *grid, size_t agents)
{
    gc_sim_config c;
    gc_sim_config_init(&c);
    c.agents = agents;
    gc_sim *sim;
    gc_error err;
    assert_int_equal(gc_sim_new(&sim, grid, &c, &err), GC_OK);
    return sim;
}

static void
push_column(gc_world *w, int32_t x, uint32_t type)
{
    gc_edit e;
    memset(&e, 0, sizeof e);
    e.op = GC_EDIT_RECT;
    e.type = type;
    e.x0 = x;
    e.y0 = 0;
    e.x1 = x;
    e.y1 = 9;
    assert_int_equal(gc_queue_push(gc_world_queue(w), &e, 0), GC_OK);
}

static void
test_embedded_sim_publishes(void **state)
{
    (void)state;
    gc_world *w = make_world(20);
    gc_grid *map, *grid;
    assert_int_equal(gc_grid_new(&map, 21, 10), GC_OK);
    gc_grid_set(map, 0, 0, GC_CELL_OBSTACLE);
    assert_int_equal(gc_host_grid(w, map, &grid), GC_OK);
    assert_int_equal(gc_grid_get(grid, 0, 0), GC_CELL_OBSTACLE);

    gc_sim *sim = default_sim(grid, 20);
    gc_error err;
    said s = {0, ""};
    gc_host_config hc = {w, grid, sim, on_report, &s, NULL, NULL};
    gc_host *h;
    assert_int_equal(gc_host_new(&h, &hc), GC_OK);

    gc_world *r;
    assert_int_equal(gc_world_attach(&r, name, GC_WORLD_ATTACH_QUEUE, &err),
                     GC_OK);
    for (int t = 0; t < 30; t++) {
        size_t changed = 99;
        assert_int_equal(gc_host_edits(h, gc_clock_ns(), 0, &changed), GC_OK);
        assert_int_equal(changed, 0);
        assert_int_equal(gc_host_tick(h), GC_OK);
        gc_host_publish_agents(h);
    }
    assert_int_equal(gc_world_tick(r), 30);
    gc_world_agent recs[20];
    size_t n = 0;
    assert_int_equal(gc_world_read_agents(r, recs, 20, &n, NULL), GC_OK);
    assert_int_equal(n, 20);
    for (size_t i = 0; i < n; i++) {
        const gc_agent *a = gc_sim_agent(sim, i);
        assert_int_equal(recs[i].id, i);
        assert_float_equal(recs[i].x, a->pos.x, 0);
        assert_float_equal(recs[i].y, a->pos.y, 0);
        assert_int_equal(recs[i].state, a->state);
        assert_int_equal(recs[i].path_len, gc_agent_remaining(a));
    }

    /* An edit through the real queue: drained, applied, told to the sim. */
    push_column(r, 10, GC_CELL_OBSTACLE);
    size_t changed = 0;
    assert_int_equal(gc_host_edits(h, gc_clock_ns(), 0, &changed), GC_OK);
    assert_int_equal(changed, 10);
    assert_int_equal(gc_grid_get(grid, 10, 5), GC_CELL_OBSTACLE);
    for (int t = 0; t < 60; t++) {
        assert_int_equal(gc_host_edits(h, gc_clock_ns(), 0, NULL), GC_OK);
        assert_int_equal(gc_host_tick(h), GC_OK);
        for (size_t i = 0; i < 20; i++) {
            gc_cell at = gc_grid_world_to_cell(grid, gc_sim_agent(sim, i)->pos);
            assert_true(at.x != 10 || gc_sim_agent(sim, i)->pos.x == 10.0f ||
                        gc_sim_agent(sim, i)->pos.x == 11.0f);
        }
    }
    gc_host_publish_agents(h);
    uint8_t cells[21 * 10];
    assert_int_equal(gc_world_read_cells(r, cells, NULL), GC_OK);
    assert_int_equal(cells[5 * 21 + 10], GC_CELL_OBSTACLE);

    /* Statistics of a window, as a reader sees them. */
    gc_host_window win = {1.0, 60, 2000000000ull, 3};
    gc_sim_stats st;
    gc_host_publish_stats(h, &win, &st);
    gc_world_stats ws;
    assert_int_equal(gc_world_read_stats(r, &ws), GC_OK);
    assert_int_equal(ws.tick, 90);
    assert_int_equal(ws.uptime_ns, 2000000000ull);
    assert_float_equal(ws.ticks_per_s, 60.0, 1e-9);
    assert_int_equal(ws.overruns, 3);
    uint64_t sum = 0;
    for (int k = 0; k < 8; k++)
        sum += ws.agents[k];
    assert_int_equal(sum, 20);
    assert_true(ws.searches_total > 0);
    assert_int_equal(ws.searches_total, st.searches);
    assert_int_equal(ws.edits_accepted, 1);
    gc_host_counts hcnt;
    gc_host_counts_get(h, &hcnt);
    assert_int_equal(hcnt.ticks, 90);
    assert_int_equal(hcnt.edit_batches, 1);
    assert_int_equal(hcnt.queue_resets, 0);
    assert_true(hcnt.edits_on);
    assert_int_equal(s.n, 0);

    /* Someone shrinks the queue: made again, said once, edits go on. */
    char path[128];
    snprintf(path, sizeof path, "/%s.edits", name);
    int fd = shm_open(path, O_RDWR, 0);
    assert_true(fd >= 0);
    assert_int_equal(ftruncate(fd, 0), 0);
    close(fd);
    gc_world_close(r);
    assert_int_equal(gc_host_edits(h, gc_clock_ns(), 0, NULL), GC_OK);
    gc_host_counts_get(h, &hcnt);
    assert_int_equal(hcnt.queue_resets, 1);
    assert_int_equal(s.n, 1);
    assert_non_null(strstr(s.last, "making a new edit queue"));
    assert_int_equal(gc_world_attach(&r, name, GC_WORLD_ATTACH_QUEUE, &err),
                     GC_OK);
    push_column(r, 10, GC_CELL_WALKABLE);
    assert_int_equal(gc_host_edits(h, gc_clock_ns(), 0, &changed), GC_OK);
    assert_int_equal(changed, 10);
    /* A fault the program's SIGBUS guard caught: made again too. */
    gc_world_close(r);
    assert_int_equal(gc_host_edits(h, gc_clock_ns(), 1, NULL), GC_OK);
    gc_host_counts_get(h, &hcnt);
    assert_int_equal(hcnt.queue_resets, 2);
    assert_non_null(strstr(s.last, "SIGBUS caught, 1 so far"));

    gc_host_free(h);
    gc_sim_free(sim);
    gc_grid_free(grid);
    gc_grid_free(map);
    gc_world_destroy(w);
}

/* When the records are due (gc_host_publish_due): every tick while a
 * reader is attached (120 times a second in batch), four times a second
 * while none is, and after edits were applied since the last publish. */
static void
test_publish_due(void **state)
{
    (void)state;
    const uint64_t ms = 1000000ull;
    gc_world *w = make_world(4);
    gc_grid *map, *grid;
    assert_int_equal(gc_grid_new(&map, 21, 10), GC_OK);
    assert_int_equal(gc_host_grid(w, map, &grid), GC_OK);
    gc_sim *sim = default_sim(grid, 4);
    gc_host *h = quiet_host(w, grid, sim);
    gc_error err;

    /* Nobody reads. */
    assert_false(gc_host_publish_due(h, false, 0));
    assert_false(gc_host_publish_due(h, false, 249 * ms));
    assert_true(gc_host_publish_due(h, false, 250 * ms));
    assert_false(gc_host_publish_due(h, true, 100 * ms));
    assert_true(gc_host_publish_due(h, true, 250 * ms));

    /* A reader. */
    gc_world *r;
    assert_int_equal(gc_world_attach(&r, name, GC_WORLD_ATTACH_QUEUE, &err),
                     GC_OK);
    assert_true(gc_host_publish_due(h, false, 0));
    assert_false(gc_host_publish_due(h, true, 8 * ms));
    assert_true(gc_host_publish_due(h, true, 9 * ms));

    /* It leaves an edit behind: due once drained, until published. */
    push_column(r, 10, GC_CELL_OBSTACLE);
    gc_world_close(r);
    assert_false(gc_host_publish_due(h, false, 0));
    assert_int_equal(gc_host_edits(h, gc_clock_ns(), 0, NULL), GC_OK);
    assert_true(gc_host_publish_due(h, false, 0));
    assert_true(gc_host_publish_due(h, true, 0));
    assert_int_equal(gc_host_tick(h), GC_OK);
    assert_true(gc_host_publish_due(h, false, 0));
    gc_host_publish_agents(h);
    assert_false(gc_host_publish_due(h, false, 0));
    /* An empty queue drained is no edit. */
    assert_int_equal(gc_host_edits(h, gc_clock_ns(), 0, NULL), GC_OK);
    assert_false(gc_host_publish_due(h, false, 0));

    gc_host_free(h);
    gc_sim_free(sim);
    gc_grid_free(grid);
    gc_grid_free(map);
    gc_world_destroy(w);
}

static void
test_records_without_sim(void **state)
{
    (void)state;
    gc_world *w = make_world(4);
    gc_grid *grid;
    assert_int_equal(gc_host_grid(w, NULL, &grid), GC_OK);
    gc_host_config hc = {w, grid, NULL, NULL, NULL, NULL, NULL};
    gc_host *h;
    assert_int_equal(gc_host_new(&h, &hc), GC_OK);
    gc_world_agent recs[5];
    memset(recs, 0, sizeof recs);
    for (uint32_t i = 0; i < 5; i++) {
        recs[i].id = i;
        recs[i].x = 1.5f + (float)i;
        recs[i].y = 2.5f;
        recs[i].state = i < 3 ? GC_AGENT_MOVING : GC_AGENT_ARRIVED;
    }
    gc_host_publish_records(h, recs, 5); /* one past capacity: dropped */
    assert_int_equal(gc_host_tick(h), GC_OK);
    gc_host_window win = {0.5, 15, 500000000ull, 0};
    gc_host_publish_stats(h, &win, NULL);

    gc_world *r;
    gc_error err;
    assert_int_equal(gc_world_attach(&r, name, 0, &err), GC_OK);
    gc_world_agent got[4];
    size_t n = 0;
    assert_int_equal(gc_world_read_agents(r, got, 4, &n, NULL), GC_OK);
    assert_int_equal(n, 4);
    assert_float_equal(got[3].x, 4.5f, 0);
    gc_world_stats ws;
    assert_int_equal(gc_world_read_stats(r, &ws), GC_OK);
    assert_int_equal(ws.tick, 1);
    assert_float_equal(ws.ticks_per_s, 30.0, 1e-9);
    assert_int_equal(ws.agents[GC_AGENT_MOVING], 3);
    assert_int_equal(ws.agents[GC_AGENT_ARRIVED], 1);
    assert_int_equal(gc_world_tick(r), 1);
    gc_world_close(r);
    gc_host_free(h);
    gc_grid_free(grid);
    gc_world_destroy(w);
}

/* The on_edit hook: told each applied SET/RECT/LINE, in order, as
 * checked; nothing for an entry that is rejected or only staged. */
typedef struct told {
    int n;
    gc_edit e[4];
} told;

static void
on_edit(void *arg, const gc_edit *e)
{
    told *t = arg;
    if (t->n < 4)
        t->e[t->n] = *e;
    t->n++;
}

static void
test_edit_hook(void **state)
{
    (void)state;
    gc_world *w = make_world(4);
    gc_grid *grid;
    assert_int_equal(gc_host_grid(w, NULL, &grid), GC_OK);
    told t = {0};
    gc_host_config hc = {w, grid, NULL, NULL, NULL, on_edit, &t};
    gc_host *h;
    assert_int_equal(gc_host_new(&h, &hc), GC_OK);
    push_column(w, 3, GC_CELL_OBSTACLE);
    gc_edit bad;
    memset(&bad, 0, sizeof bad);
    bad.op = GC_EDIT_SET;
    bad.x0 = 1000; /* off the map: rejected, not told */
    assert_int_equal(gc_queue_push(gc_world_queue(w), &bad, 0), GC_OK);
    push_column(w, 5, GC_CELL_HIGH);
    assert_int_equal(gc_host_edits(h, gc_clock_ns(), 0, NULL), GC_OK);
    assert_int_equal(t.n, 2);
    assert_int_equal(t.e[0].op, GC_EDIT_RECT);
    assert_int_equal(t.e[0].x0, 3);
    assert_int_equal(t.e[0].y1, 9);
    assert_int_equal(t.e[0].type, GC_CELL_OBSTACLE);
    assert_int_equal(t.e[1].x0, 5);
    assert_int_equal(t.e[1].type, GC_CELL_HIGH);
    gc_host_free(h);
    gc_grid_free(grid);
    gc_world_destroy(w);
}

/*
 * A comb of walls on the 21x10 map, open at alternate ends, so that the
 * path from the left edge to the right one turns at every wall: far more
 * than a record's 8 waypoints, smoothed or not.
 */
static void
comb(gc_grid *map)
{
    for (int32_t x = 2; x < 20; x += 3)
        for (int32_t y = 0; y < 10; y++)
            if (y != ((x / 3) % 2 == 0 ? 9 : 0))
                gc_grid_set(map, x, y, GC_CELL_OBSTACLE);
}

static void
test_whole_path_of_requested_agent(void **state)
{
    (void)state;
    gc_world *w = make_world(2);
    gc_grid *map, *grid;
    assert_int_equal(gc_grid_new(&map, 21, 10), GC_OK);
    comb(map);
    assert_int_equal(gc_host_grid(w, map, &grid), GC_OK);

    gc_scen_entry e[2];
    memset(e, 0, sizeof e);
    for (int i = 0; i < 2; i++) {
        e[i].map_width = 21;
        e[i].map_height = 10;
        e[i].start = (gc_cell){0, 4 + i};
        e[i].goal = (gc_cell){20, 4 + i};
        e[i].line = 2 + i;
    }
    gc_scen scen = {e, 2, "comb.map"};
    gc_sim_config c;
    gc_sim_config_init(&c);
    c.agents = 2;
    c.goals = GC_GOALS_SCEN;
    c.scen = &scen;
    gc_sim *sim;
    gc_error err;
    assert_int_equal(gc_sim_new(&sim, grid, &c, &err), GC_OK);
    gc_host *h = quiet_host(w, grid, sim);
    gc_world *r;
    assert_int_equal(gc_world_attach(&r, name, 0, &err), GC_OK);

    /* Nobody asked: no path is published. */
    assert_int_equal(gc_host_tick(h), GC_OK);
    gc_host_publish_agents(h);
    gc_world_path_info info;
    gc_vec2 pts[256];
    assert_int_equal(gc_world_read_path(r, &info, pts, 256), GC_OK);
    assert_int_equal(info.seq, 0);

    /* The viewer asks about agent 1 (the edit applier records it so). */
    assert_int_equal(gc_world_set_trace_request(w, 1, 0), GC_OK);
    for (int t = 0; t < 3; t++) {
        assert_int_equal(gc_host_tick(h), GC_OK);
        gc_host_publish_agents(h);
        const gc_agent *a = gc_sim_agent(sim, 1);
        uint32_t left = gc_agent_remaining(a);
        assert_true(left > GC_WORLD_PATH_POINTS);
        assert_int_equal(gc_world_read_path(r, &info, pts, 256), GC_OK);
        assert_int_equal(info.agent, 1);
        /* The salt is real: a fresh slot's first generation. */
        assert_int_equal(info.salt, 1);
        assert_int_equal(info.salt,
                         gc_agent_handle_salt(gc_sim_handle(sim, 1)));
        assert_int_equal(info.tick, 2 + t);
        assert_int_equal(info.path_len, left);
        assert_int_equal(info.count, left);
        assert_false(info.truncated);
        for (uint32_t k = 0; k < left; k++) {
            assert_float_equal(pts[k].x, a->wp[a->wp_next + k].x, 0);
            assert_float_equal(pts[k].y, a->wp[a->wp_next + k].y, 0);
        }
        /* The record in the snapshot holds only the first 8. */
        gc_world_agent recs[2];
        size_t n = 0;
        assert_int_equal(gc_world_read_agents(r, recs, 2, &n, NULL), GC_OK);
        assert_int_equal(recs[1].path_len, left);
        assert_memory_equal(recs[1].path, pts,
                            GC_WORLD_PATH_POINTS * sizeof pts[0]);
    }
    /* The last waypoint is the goal cell's centre: the path runs to its
     * end. */
    assert_float_equal(pts[info.count - 1].x, 20.5f, 0);
    assert_float_equal(pts[info.count - 1].y, 5.5f, 0);

    /* Withdrawn, or an agent that does not exist: nobody's path. */
    uint64_t seq = info.seq;
    assert_int_equal(gc_world_set_trace_request(w, GC_WORLD_NO_AGENT, 0),
                     GC_OK);
    gc_host_publish_agents(h);
    assert_int_equal(gc_world_read_path(r, &info, pts, 256), GC_OK);
    assert_int_equal(info.seq, seq + 1);
    assert_int_equal(info.agent, GC_WORLD_NO_AGENT);
    assert_int_equal(info.count, 0);
    gc_host_publish_agents(h); /* said once */
    assert_int_equal(gc_world_read_path(r, &info, pts, 256), GC_OK);
    assert_int_equal(info.seq, seq + 1);
    assert_int_equal(gc_world_set_trace_request(w, 7, 0), GC_OK);
    gc_host_publish_agents(h);
    assert_int_equal(gc_world_read_path(r, &info, pts, 256), GC_OK);
    assert_int_equal(info.agent, GC_WORLD_NO_AGENT);

    gc_world_close(r);
    gc_host_free(h);
    gc_sim_free(sim);
    gc_grid_free(grid);
    gc_grid_free(map);
    gc_world_destroy(w);
}

/* Agent i's record as the sim's public accessors give it, every byte
 * that is not a field zero. */
static void
expected_record(const gc_sim *sim, size_t i, gc_world_agent *rec)
{
    const gc_agent *a = gc_sim_agent(sim, i);
    memset(rec, 0, sizeof *rec);
    rec->id = (uint32_t)i;
    rec->salt = gc_agent_handle_salt(gc_sim_handle(sim, i));
    rec->group = gc_sim_agent_group(sim, i);
    rec->x = a->pos.x;
    rec->y = a->pos.y;
    rec->heading = a->heading;
    rec->speed = a->state == GC_AGENT_MOVING ? a->speed : 0.0f;
    rec->goal_x = a->goal.x;
    rec->goal_y = a->goal.y;
    rec->state = a->state;
    rec->radius = a->radius;
    gc_vec2 v = gc_sim_agent_velocity(sim, i);
    rec->vx = v.x;
    rec->vy = v.y;
    rec->path_len = gc_agent_remaining(a);
    for (uint32_t k = 0; k < rec->path_len && k < GC_WORLD_PATH_POINTS; k++)
        rec->path[k] = a->wp[a->wp_next + k];
}

/*
 * From gc_sim_prep_shared (8,192) slots up the sim's workers write the
 * records, each a part of the slots.  9,000 agents on three workers,
 * with free slots in the first and the last part and none in the middle:
 * the records are the live agents in slot order, each byte as the sim's
 * public accessors give it (points, then bodies, whose velocities and
 * radii are not zero); and a world with room for fewer holds the first
 * of them.
 */
static void
test_records_shared_out(void **state)
{
    (void)state;
    enum { N = 9000, W = 200, H = 100 };
    static const uint32_t rooms[] = {N, N - 800};
    gc_world_agent *recs = malloc(N * sizeof *recs);
    assert_non_null(recs);
    for (size_t k = 0; k < 4; k++) {
        gc_world *w = make_world_sized(rooms[k % 2], W, H);
        gc_grid *map, *grid;
        assert_int_equal(gc_grid_new(&map, W, H), GC_OK);
        assert_int_equal(gc_host_grid(w, map, &grid), GC_OK);
        gc_sim_config c;
        gc_sim_config_init(&c);
        c.agents = N;
        c.threads = 3;
        c.avoid = k < 2 ? GC_AVOID_NONE : GC_AVOID_ORCA;
        c.radius = k < 2 ? 0.0f : 0.3f;
        c.seed = 5;
        c.plan_budget = 512; /* a tick's: many bodies moving by tick 4 */
        gc_sim *sim;
        gc_error err;
        assert_int_equal(gc_sim_new(&sim, grid, &c, &err), GC_OK);
        gc_host *h = quiet_host(w, grid, sim);
        for (int t = 0; t < 3; t++)
            assert_int_equal(gc_host_tick(h), GC_OK);
        static const size_t gone[] = {0, 7, 1200, 8998};
        for (size_t j = 0; j < 4; j++)
            assert_int_equal(
                gc_sim_remove(sim, gc_sim_handle(sim, gone[j]), &err), GC_OK);
        assert_int_equal(gc_host_tick(h), GC_OK);
        gc_host_publish_agents(h);

        size_t n = 0;
        assert_int_equal(gc_world_read_agents(w, recs, N, &n, NULL), GC_OK);
        assert_int_equal(n, rooms[k % 2] < N - 4 ? rooms[k % 2] : N - 4);
        size_t r = 0, moving = 0;
        for (size_t i = 0; i < gc_sim_agent_count(sim) && r < n; i++) {
            const gc_agent *a = gc_sim_agent(sim, i);
            if (a == NULL)
                continue;
            const gc_world_agent *g = &recs[r++];
            gc_world_agent want;
            expected_record(sim, i, &want);
            if (memcmp(g, &want, sizeof want) != 0)
                fail_msg("world %zu: record %zu is slot %u at (%g, %g), "
                         "v (%g, %g), want slot %zu at (%g, %g), v (%g, %g), "
                         "or another field differs",
                         k, r - 1, g->id, (double)g->x, (double)g->y,
                         (double)g->vx, (double)g->vy, i, (double)want.x,
                         (double)want.y, (double)want.vx, (double)want.vy);
            moving += g->vx != 0.0f && g->radius == 0.3f;
        }
        assert_int_equal(r, n);
        print_message("# world %zu: %zu of %zu records with a body moving\n", k,
                      moving, n);
        if (k >= 2) /* bodies: their velocities and radii are in them */
            assert_true(moving > n / 20);
        gc_host_free(h);
        gc_sim_free(sim);
        gc_grid_free(grid);
        gc_grid_free(map);
        gc_world_destroy(w);
    }
    free(recs);
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_teardown(test_embedded_sim_publishes, unlink_world),
        cmocka_unit_test_teardown(test_publish_due, unlink_world),
        cmocka_unit_test_teardown(test_records_without_sim, unlink_world),
        cmocka_unit_test_teardown(test_edit_hook, unlink_world),
        cmocka_unit_test_teardown(test_whole_path_of_requested_agent,
                                  unlink_world),
        cmocka_unit_test_teardown(test_records_shared_out, unlink_world),
    };
    return cmocka_run_group_tests_name("host", tests, NULL, NULL);
}
