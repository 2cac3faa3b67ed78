/*
 * test_query.c: path queries on a live world (query.h) against the
 * independent Dijkstra of dijkstra.h.
 *
 * The test is the daemon here: it creates a world with a cost table of its
 * own, writes random cells into it between gc_world_cells_begin/end (and
 * the same cells into a reference grid it keeps), and attaches a second,
 * read-only handle, the way a tool does, to ask the queries.  Every answer
 * is checked against Dijkstra on the reference grid: the cost is optimal,
 * the path is legal and priced as reported, the next step starts an optimal
 * path, an unreachable goal says so, and the query sees each new
 * generation of cells.
 */
#include "config.h"

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <gridcrowd/query.h>
#include <gridcrowd/world.h>

#include "dijkstra.h"
#include "test_rng.h"
#include "world_unlink.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define W 41
#define H 29

static const float costs[GC_CELL_NTYPES] = {1.0f, INFINITY, 3.5f, 0.25f};

typedef struct fixture {
    char name[64];
    gc_world *owner;  /* the "daemon" */
    gc_world *reader; /* the tool's handle */
    gc_grid *ref;     /* the same cells, for the model */
    double *dist, *dist2;
    qent *heap;
} fixture;

/* After each test, even one that failed before end_world(): the
 * worlds' objects unlinked (tests/world_unlink.h). */
static int
unlink_worlds(void **state)
{
    (void)state;
    char name[64];
    snprintf(name, sizeof name, "gctq%ld", (long)getpid());
    gc_test_world_unlink(name);
    snprintf(name, sizeof name, "gctq%ld-sane", (long)getpid());
    gc_test_world_unlink(name);
    return 0;
}

static void
make_world(fixture *f, bool publish, float cell_size, gc_diag_rule diag)
{
    memset(f, 0, sizeof *f);
    snprintf(f->name, sizeof f->name, "gctq%ld", (long)getpid());
    gc_world_config cfg;
    memset(&cfg, 0, sizeof cfg);
    cfg.name = f->name;
    cfg.width = W;
    cfg.height = H;
    cfg.cell_size = cell_size;
    cfg.publish_costs = publish;
    memcpy(cfg.cost, costs, sizeof cfg.cost);
    cfg.diag = diag;
    gc_error err;
    int rc = gc_world_create(&f->owner, &cfg, NULL, &err);
    if (rc != GC_OK)
        print_error("create: %s\n", err.msg);
    assert_int_equal(rc, GC_OK);
    assert_int_equal(gc_world_set_state(f->owner, GC_WORLD_RUNNING), GC_OK);
    assert_int_equal(gc_world_attach(&f->reader, f->name, 0, &err), GC_OK);
    assert_int_equal(gc_grid_new(&f->ref, W, H), GC_OK);
    for (int t = 0; t < GC_CELL_NTYPES; t++)
        if (publish && t != GC_CELL_OBSTACLE)
            assert_int_equal(gc_grid_set_cost(f->ref, t, costs[t]), GC_OK);
    f->ref->cell_size = cell_size;
    f->dist = malloc(W * H * sizeof *f->dist);
    f->dist2 = malloc(W * H * sizeof *f->dist2);
    f->heap = malloc(8 * W * H * sizeof *f->heap);
    assert_non_null(f->dist);
    assert_non_null(f->dist2);
    assert_non_null(f->heap);
}

static void
end_world(fixture *f)
{
    free(f->dist);
    free(f->dist2);
    free(f->heap);
    gc_grid_free(f->ref);
    gc_world_close(f->reader);
    gc_world_destroy(f->owner);
}

/* Random cells, written to the world (one generation) and the model. */
static void
randomize(fixture *f, int wall_pct)
{
    assert_int_equal(gc_world_cells_begin(f->owner), GC_OK);
    uint8_t *cells = gc_world_cells(f->owner);
    for (int y = 0; y < H; y++)
        for (int x = 0; x < W; x++) {
            int r = rnd(100), t;
            if (r < wall_pct)
                t = GC_CELL_OBSTACLE;
            else if (r < wall_pct + 15)
                t = GC_CELL_HIGH;
            else if (r < wall_pct + 30)
                t = GC_CELL_LOW;
            else
                t = GC_CELL_WALKABLE;
            cells[y * W + x] = (uint8_t)t;
            assert_int_equal(gc_grid_set(f->ref, x, y, t), GC_OK);
        }
    assert_int_equal(gc_world_cells_end(f->owner), GC_OK);
}

static gc_cell
random_open(const fixture *f)
{
    for (;;) {
        gc_cell c = {rnd(W), rnd(H)};
        if (gc_grid_passable(f->ref, c.x, c.y))
            return c;
    }
}

static bool
near(double a, double b)
{
    return fabs(a - b) <= 1e-9 * (1.0 + fabs(b));
}

/* A returned grid path: starts and ends right, every step legal, its cost
 * (by the model) what the query reported. */
static void
check_path(const fixture *f, const model *m, gc_diag_rule rule,
           const gc_path *p, gc_cell s, gc_cell t, double cost)
{
    assert_true(p->len >= 1);
    assert_int_equal(p->cells[0].x, s.x);
    assert_int_equal(p->cells[0].y, s.y);
    assert_int_equal(p->cells[p->len - 1].x, t.x);
    assert_int_equal(p->cells[p->len - 1].y, t.y);
    double sum = 0.0;
    for (size_t i = 1; i < p->len; i++) {
        int dx = p->cells[i].x - p->cells[i - 1].x;
        int dy = p->cells[i].y - p->cells[i - 1].y;
        assert_true(abs(dx) <= 1 && abs(dy) <= 1 && (dx || dy));
        double c =
            model_step(m, p->cells[i - 1].x, p->cells[i - 1].y, dx, dy, rule);
        assert_true(isfinite(c));
        sum += c;
    }
    (void)f;
    if (!near(sum, cost))
        print_error("path cost %.12g, reported %.12g\n", sum, cost);
    assert_true(near(sum, cost));
}

static void
test_query_against_dijkstra(void **state)
{
    (void)state;
    fixture f;
    make_world(&f, true, 1.0f, GC_DIAG_ONE_FREE);
    gc_query *q;
    gc_error err;
    assert_int_equal(gc_query_new(&q, f.reader, &err), GC_OK);
    gc_path p;
    gc_path_init(&p);
    model m = {f.ref, NULL, 0.0f};
    int checked = 0, unreachable = 0;
    for (int round = 0; round < 12; round++) {
        randomize(&f, 10 + 3 * round);
        for (int rule = 0; rule <= GC_DIAG_ALWAYS; rule++) {
            gc_astar_opts o;
            gc_query_opts_init(f.reader, &o);
            assert_int_equal(o.diag, GC_DIAG_ONE_FREE); /* the daemon's */
            o.diag = (gc_diag_rule)rule;
            o.heuristic = rnd(2) ? GC_HEUR_DEFAULT : GC_HEUR_ZERO;
            for (int k = 0; k < 12; k++) {
                gc_cell s = random_open(&f), t = random_open(&f);
                dijkstra(&m, s, o.diag, f.dist, f.heap);
                double want = f.dist[t.y * W + t.x];
                gc_astar_stats st;
                int rc = gc_query_path(q, s, t, &o, &p, &st, &err);
                assert_int_equal(gc_query_generation(q),
                                 gc_world_generation(f.reader));
                if (!isfinite(want)) {
                    assert_int_equal(rc, GC_EUNREACHABLE);
                    assert_non_null(strstr(err.msg, "no path from"));
                    gc_cell nx;
                    assert_int_equal(
                        gc_query_next_step(q, s, t, &o, &nx, NULL, &err),
                        GC_EUNREACHABLE);
                    unreachable++;
                    continue;
                }
                if (rc != GC_OK)
                    print_error("query: %s\n", err.msg);
                assert_int_equal(rc, GC_OK);
                if (!near(st.cost, want))
                    print_error("round %d rule %d: cost %.12g, Dijkstra "
                                "%.12g\n",
                                round, rule, st.cost, want);
                assert_true(near(st.cost, want));
                check_path(&f, &m, o.diag, &p, s, t, st.cost);

                /* The next step starts an optimal path: its step cost
                 * plus the best cost from there is the best cost. */
                gc_cell nx = {-1, -1};
                rc = gc_query_next_step(q, s, t, &o, &nx, &st, &err);
                assert_int_equal(rc, GC_OK);
                if (s.x == t.x && s.y == t.y) {
                    assert_int_equal(nx.x, s.x);
                    assert_int_equal(nx.y, s.y);
                } else {
                    double c = model_step(&m, s.x, s.y, nx.x - s.x, nx.y - s.y,
                                          o.diag);
                    assert_true(abs(nx.x - s.x) <= 1 && abs(nx.y - s.y) <= 1 &&
                                isfinite(c));
                    dijkstra(&m, nx, o.diag, f.dist2, f.heap);
                    assert_true(near(c + f.dist2[t.y * W + t.x], want));
                }
                checked++;
            }
        }
    }
    /* Both outcomes were exercised. */
    assert_true(checked > 200);
    assert_true(unreachable > 0);
    gc_path_free(&p);
    gc_query_free(q);
    end_world(&f);
}

/* An edit between two queries: the second sees it (a new generation). */
static void
test_query_sees_edits(void **state)
{
    (void)state;
    fixture f;
    make_world(&f, true, 1.0f, GC_DIAG_NO_CORNER_CUT);
    randomize(&f, 0);
    gc_query *q;
    gc_error err;
    assert_int_equal(gc_query_new(&q, f.reader, &err), GC_OK);
    gc_path p;
    gc_path_init(&p);
    gc_cell s = {0, 14}, t = {40, 14};
    gc_astar_stats st;
    assert_int_equal(gc_query_path(q, s, t, NULL, &p, &st, &err), GC_OK);
    uint64_t g1 = gc_query_generation(q);

    /* A wall across the map but for one gap at the bottom. */
    assert_int_equal(gc_world_cells_begin(f.owner), GC_OK);
    uint8_t *cells = gc_world_cells(f.owner);
    for (int y = 0; y < H - 1; y++) {
        cells[y * W + 20] = GC_CELL_OBSTACLE;
        gc_grid_set(f.ref, 20, y, GC_CELL_OBSTACLE);
    }
    assert_int_equal(gc_world_cells_end(f.owner), GC_OK);
    assert_int_equal(gc_query_path(q, s, t, NULL, &p, &st, &err), GC_OK);
    assert_true(gc_query_generation(q) > g1);
    bool through_gap = false;
    for (size_t i = 0; i < p.len; i++) {
        assert_int_not_equal(gc_grid_get(f.ref, p.cells[i].x, p.cells[i].y),
                             GC_CELL_OBSTACLE);
        through_gap |= p.cells[i].x == 20 && p.cells[i].y == H - 1;
    }
    assert_true(through_gap);
    model m = {f.ref, NULL, 0.0f};
    dijkstra(&m, s, GC_DIAG_NO_CORNER_CUT, f.dist, f.heap);
    assert_true(near(st.cost, f.dist[t.y * W + t.x]));

    /* Close the gap: unreachable, at once (the nav data was updated). */
    assert_int_equal(gc_world_cells_begin(f.owner), GC_OK);
    cells[(H - 1) * W + 20] = GC_CELL_OBSTACLE;
    assert_int_equal(gc_world_cells_end(f.owner), GC_OK);
    assert_int_equal(gc_query_path(q, s, t, NULL, &p, &st, &err),
                     GC_EUNREACHABLE);
    assert_int_equal(st.expanded, 0);
    gc_path_free(&p);
    gc_query_free(q);
    end_world(&f);
}

/* Each end's failure names the end and the reason, with its own code. */
static void
test_query_errors(void **state)
{
    (void)state;
    fixture f;
    make_world(&f, true, 2.0f, GC_DIAG_NO_CORNER_CUT);
    randomize(&f, 0);
    assert_int_equal(gc_world_cells_begin(f.owner), GC_OK);
    gc_world_cells(f.owner)[5 * W + 5] = GC_CELL_OBSTACLE;
    assert_int_equal(gc_world_cells_end(f.owner), GC_OK);
    gc_query *q;
    gc_error err;
    assert_int_equal(gc_query_new(&q, f.reader, &err), GC_OK);
    gc_path p;
    gc_path_init(&p);
    gc_cell nx;

    assert_int_equal(gc_query_path(q, (gc_cell){-1, 0}, (gc_cell){3, 3}, NULL,
                                   &p, NULL, &err),
                     GC_EOUTSIDE);
    assert_string_equal(err.msg, "start (-1, 0) is outside the 41x29 map");
    assert_int_equal(err.code, GC_EOUTSIDE);
    assert_int_equal(p.len, 0);
    assert_int_equal(gc_query_next_step(q, (gc_cell){3, 3}, (gc_cell){3, 29},
                                        NULL, &nx, NULL, &err),
                     GC_EOUTSIDE);
    assert_string_equal(err.msg, "goal (3, 29) is outside the 41x29 map");
    assert_int_equal(gc_query_path(q, (gc_cell){0, 0}, (gc_cell){5, 5}, NULL,
                                   &p, NULL, &err),
                     GC_EBLOCKED);
    assert_string_equal(err.msg, "goal (5, 5) is impassable (obstacle)");
    assert_int_equal(gc_query_path(q, (gc_cell){5, 5}, (gc_cell){0, 0}, NULL,
                                   &p, NULL, &err),
                     GC_EBLOCKED);
    assert_string_equal(err.msg, "start (5, 5) is impassable (obstacle)");

    /* Radius in world units, cells of 2 units: radius 2 is 1 cell, which a
     * cell by the map's edge (clearance 0.5) lacks; (10, 10) has room. */
    gc_astar_opts o;
    gc_query_opts_init(f.reader, &o);
    o.radius = 2.0f;
    assert_int_equal(gc_query_path(q, (gc_cell){0, 10}, (gc_cell){10, 10}, &o,
                                   &p, NULL, &err),
                     GC_EBLOCKED);
    assert_string_equal(err.msg,
                        "start (0, 10) is too close to a wall for radius 2: "
                        "its clearance is 0.5 cells, it needs 1");
    assert_int_equal(gc_query_path(q, (gc_cell){2, 10}, (gc_cell){10, 10}, &o,
                                   &p, NULL, &err),
                     GC_OK);
    /* The path keeps its clearance all the way. */
    const gc_grid *g = gc_query_grid(q);
    gc_nav *nav;
    assert_int_equal(gc_nav_new(&nav, g), GC_OK);
    for (size_t i = 0; i < p.len; i++)
        assert_true(gc_nav_clearance(nav, p.cells[i]) >= 1.0f);
    gc_nav_free(nav);

    /* A bad option, and an expansion cap. */
    o.radius = 0.0f;
    o.diag = (gc_diag_rule)9;
    assert_int_equal(gc_query_path(q, (gc_cell){0, 0}, (gc_cell){40, 28}, &o,
                                   &p, NULL, &err),
                     GC_EINVAL);
    gc_query_opts_init(f.reader, &o);
    o.max_expansions = 3;
    o.algo = GC_ALGO_ASTAR;
    assert_int_equal(gc_query_path(q, (gc_cell){0, 0}, (gc_cell){40, 28}, &o,
                                   &p, NULL, &err),
                     GC_ELIMIT);
    assert_string_equal(err.msg, "no path found within 3 expansions");

    /* from == to: a one-cell path of cost 0, and the next step stays. */
    gc_astar_stats st;
    assert_int_equal(
        gc_query_path(q, (gc_cell){7, 7}, (gc_cell){7, 7}, NULL, &p, &st, &err),
        GC_OK);
    assert_int_equal(p.len, 1);
    assert_true(st.cost == 0.0);
    assert_int_equal(gc_query_next_step(q, (gc_cell){7, 7}, (gc_cell){7, 7},
                                        NULL, &nx, NULL, &err),
                     GC_OK);
    assert_int_equal(nx.x, 7);
    assert_int_equal(nx.y, 7);
    gc_path_free(&p);
    gc_query_free(q);
    end_world(&f);
}

/* The published costs reach the reader; an unpublished table reads as the
 * defaults; the one-shot calls agree with a query object. */
static void
test_world_costs_and_one_shot(void **state)
{
    (void)state;
    fixture f;
    float c[GC_CELL_NTYPES];
    gc_diag_rule d;
    make_world(&f, false, 1.0f, GC_DIAG_ALWAYS);
    assert_false(gc_world_costs(f.reader, c, &d));
    assert_true(c[GC_CELL_WALKABLE] == 1.0f && c[GC_CELL_HIGH] == 2.0f &&
                c[GC_CELL_LOW] == 0.5f && isinf(c[GC_CELL_OBSTACLE]));
    assert_int_equal(d, GC_DIAG_NO_CORNER_CUT);
    end_world(&f);

    make_world(&f, true, 1.0f, GC_DIAG_ALWAYS);
    assert_true(gc_world_costs(f.reader, c, &d));
    for (int t = 0; t < GC_CELL_NTYPES; t++)
        assert_memory_equal(&c[t], &costs[t], sizeof c[t]);
    assert_int_equal(d, GC_DIAG_ALWAYS);
    assert_true(gc_world_costs(f.owner, NULL, NULL));

    randomize(&f, 25);
    gc_query *q;
    gc_error err;
    assert_int_equal(gc_query_new(&q, f.reader, &err), GC_OK);
    gc_path p1, p2;
    gc_path_init(&p1);
    gc_path_init(&p2);
    int compared = 0;
    for (int k = 0; k < 20; k++) {
        gc_cell s = random_open(&f), t = random_open(&f);
        gc_astar_stats a, b;
        int r1 = gc_query_path(q, s, t, NULL, &p1, &a, &err);
        int r2 = gc_world_path(f.reader, s, t, NULL, &p2, &b, &err);
        assert_int_equal(r1, r2);
        if (r1 != GC_OK)
            continue;
        assert_true(a.cost == b.cost);
        assert_int_equal(p1.len, p2.len);
        gc_cell n1, n2;
        assert_int_equal(gc_query_next_step(q, s, t, NULL, &n1, NULL, &err),
                         GC_OK);
        assert_int_equal(
            gc_world_next_step(f.reader, s, t, NULL, &n2, NULL, &err), GC_OK);
        assert_int_equal(n1.x, n2.x);
        assert_int_equal(n1.y, n2.y);
        compared++;
    }
    /* Two calls that both fail agree trivially: most must have a path. */
    assert_true(compared > 10);
    gc_path_free(&p1);
    gc_path_free(&p2);
    gc_query_free(q);
    end_world(&f);
}

/* Published costs are untrusted on the reader's side: a wall stays a
 * wall, a cost that is not a passable number reads as a wall, an unknown
 * diagonal rule as the default. */
static void
test_world_costs_made_sane(void **state)
{
    (void)state;
    char name[64];
    snprintf(name, sizeof name, "gctq%ld-sane", (long)getpid());
    gc_world_config cfg;
    memset(&cfg, 0, sizeof cfg);
    cfg.name = name;
    cfg.width = 4;
    cfg.height = 3;
    cfg.publish_costs = true;
    cfg.cost[GC_CELL_WALKABLE] = 2.0f;
    cfg.cost[GC_CELL_OBSTACLE] = 1.0f;
    cfg.cost[GC_CELL_HIGH] = NAN;
    cfg.cost[GC_CELL_LOW] = -1.0f;
    cfg.diag = (gc_diag_rule)7;
    gc_world *owner, *reader;
    gc_error err;
    assert_int_equal(gc_world_create(&owner, &cfg, NULL, &err), GC_OK);
    assert_int_equal(gc_world_attach(&reader, name, 0, &err), GC_OK);
    float c[GC_CELL_NTYPES];
    gc_diag_rule d;
    assert_true(gc_world_costs(reader, c, &d));
    assert_true(c[GC_CELL_WALKABLE] == 2.0f);
    assert_true(isinf(c[GC_CELL_OBSTACLE]) && isinf(c[GC_CELL_HIGH]) &&
                isinf(c[GC_CELL_LOW]));
    assert_int_equal(d, GC_DIAG_NO_CORNER_CUT);
    /* The owner's handle says the same. */
    assert_true(gc_world_costs(owner, c, &d));
    assert_true(c[GC_CELL_WALKABLE] == 2.0f && isinf(c[GC_CELL_OBSTACLE]) &&
                isinf(c[GC_CELL_HIGH]) && isinf(c[GC_CELL_LOW]));
    assert_int_equal(d, GC_DIAG_NO_CORNER_CUT);
    gc_world_close(reader);
    gc_world_destroy(owner);
}

/* gc_astar_next_step on a plain grid, with and without a scratch path. */
static void
test_astar_next_step(void **state)
{
    (void)state;
    gc_grid *g;
    gc_astar *a;
    assert_int_equal(gc_grid_new(&g, 8, 3), GC_OK);
    assert_int_equal(gc_astar_new(&a, 8, 3), GC_OK);
    /* A wall at x = 3 with a gap at the bottom row. */
    gc_grid_set(g, 3, 0, GC_CELL_OBSTACLE);
    gc_grid_set(g, 3, 1, GC_CELL_OBSTACLE);
    gc_cell nx;
    gc_path scratch;
    gc_path_init(&scratch);
    assert_int_equal(gc_astar_next_step(a, g, (gc_cell){3, 2}, (gc_cell){7, 2},
                                        NULL, NULL, &nx, NULL),
                     GC_OK);
    assert_int_equal(nx.x, 4);
    assert_int_equal(nx.y, 2);
    gc_astar_opts o;
    gc_astar_opts_init(&o);
    o.smooth = true; /* ignored: the answer is a neighbour */
    assert_int_equal(gc_astar_next_step(a, g, (gc_cell){0, 0}, (gc_cell){7, 0},
                                        &o, &scratch, &nx, NULL),
                     GC_OK);
    assert_true(nx.x == 1 && (nx.y == 0 || nx.y == 1));
    assert_int_equal(gc_astar_next_step(a, g, (gc_cell){0, 0}, (gc_cell){3, 0},
                                        NULL, &scratch, &nx, NULL),
                     GC_EBLOCKED);
    assert_int_equal(gc_astar_next_step(a, g, (gc_cell){0, 0}, (gc_cell){1, 1},
                                        NULL, NULL, NULL, NULL),
                     GC_EINVAL);
    gc_path_free(&scratch);
    gc_astar_free(a);
    gc_grid_free(g);
}

int
main(void)
{
    rng_state = UINT64_C(0x5DEECE66D);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_teardown(test_query_against_dijkstra, unlink_worlds),
        cmocka_unit_test_teardown(test_query_sees_edits, unlink_worlds),
        cmocka_unit_test_teardown(test_query_errors, unlink_worlds),
        cmocka_unit_test_teardown(test_world_costs_and_one_shot, unlink_worlds),
        cmocka_unit_test_teardown(test_world_costs_made_sane, unlink_worlds),
        cmocka_unit_test_teardown(test_astar_next_step, unlink_worlds),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
