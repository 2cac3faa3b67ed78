/*
 * test_astar.c: the A* context, navigation data and smoothing, on small maps
 * whose answers are worked out by hand in the comments.
 *
 * Maps are strings in the legend of grid.h ('.' walkable, '@' obstacle, 'S'
 * high cost 2, 'R' low cost 0.5), one row after another, built in memory
 * with gc_grid_new and gc_grid_set.  Costs are compared with a tolerance of
 * 1e-9: path costs are sums of doubles.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <gridcrowd/astar.h>

#include "astar_int.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SQRT2 1.41421356237309504880
#define EPS 1e-9

static gc_grid *
grid_from(int w, int h, const char *rows)
{
    gc_grid *g;
    assert_int_equal(gc_grid_new(&g, w, h), GC_OK);
    assert_int_equal((int)strlen(rows), w * h);
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++) {
            int t = gc_cell_type_from_glyph(rows[y * w + x]);
            assert_true(t >= 0);
            assert_int_equal(gc_grid_set(g, x, y, t), GC_OK);
        }
    return g;
}

static gc_cell
C(int x, int y)
{
    gc_cell c = {x, y};
    return c;
}

static void
assert_close(double got, double want)
{
    if (!(fabs(got - want) <= EPS)) {
        print_error("cost %.12f, expected %.12f\n", got, want);
        fail();
    }
}

/* Run one search with `o` (NULL: defaults); returns the status. */
static int
find(const gc_grid *g, gc_cell s, gc_cell t, const gc_astar_opts *o, gc_path *p,
     gc_astar_stats *st)
{
    gc_astar *a;
    assert_int_equal(gc_astar_new(&a, g->width, g->height), GC_OK);
    int rc = gc_astar_find(a, g, s, t, o, p, st);
    assert_int_equal(st->status, rc);
    gc_astar_free(a);
    return rc;
}

/* Every step of p is legal under `rule` and the cells run s .. t. */
static void
assert_path(const gc_grid *g, const gc_path *p, gc_cell s, gc_cell t,
            gc_diag_rule rule)
{
    assert_true(p->len >= 1);
    assert_int_equal(p->cells[0].x, s.x);
    assert_int_equal(p->cells[0].y, s.y);
    assert_int_equal(p->cells[p->len - 1].x, t.x);
    assert_int_equal(p->cells[p->len - 1].y, t.y);
    for (size_t i = 1; i < p->len; i++)
        assert_true(gc_grid_move_legal(g, p->cells[i - 1], p->cells[i], rule));
}

static void
test_names(void **state)
{
    (void)state;
    assert_string_equal(gc_heuristic_name(GC_HEUR_OCTILE), "octile");
    assert_string_equal(gc_heuristic_name(GC_HEUR_ZERO), "zero");
    assert_null(gc_heuristic_name((gc_heuristic)42));
    assert_int_equal(gc_heuristic_parse("manhattan"), GC_HEUR_MANHATTAN);
    assert_int_equal(gc_heuristic_parse("Euclidean"), GC_HEUR_EUCLIDEAN);
    assert_int_equal(gc_heuristic_parse("chebyshev"), GC_HEUR_CHEBYSHEV);
    assert_int_equal(gc_heuristic_parse("dijkstra"), GC_HEUR_ZERO);
    assert_int_equal(gc_heuristic_parse("default"), GC_HEUR_DEFAULT);
    assert_int_equal(gc_heuristic_parse("bogus"), GC_EINVAL);
    assert_int_equal(gc_heuristic_parse(NULL), GC_EINVAL);
    for (int h = GC_HEUR_DEFAULT; h <= GC_HEUR_ZERO; h++)
        assert_int_equal(gc_heuristic_parse(gc_heuristic_name(h)), h);

    assert_string_equal(gc_diag_rule_name(GC_DIAG_NO_CORNER_CUT),
                        "no-corner-cut");
    assert_string_equal(gc_diag_rule_name(GC_DIAG_ALWAYS), "always");
    assert_null(gc_diag_rule_name((gc_diag_rule)9));
    for (int r = GC_DIAG_NO_CORNER_CUT; r <= GC_DIAG_ALWAYS; r++)
        assert_int_equal(gc_diag_rule_parse(gc_diag_rule_name(r)), r);
    assert_int_equal(gc_diag_rule_parse("One-Free"), GC_DIAG_ONE_FREE);
    assert_int_equal(gc_diag_rule_parse("sometimes"), GC_EINVAL);

    gc_astar_opts o;
    memset(&o, 0xAB, sizeof o);
    gc_astar_opts_init(&o);
    assert_int_equal(o.diag, GC_DIAG_NO_CORNER_CUT);
    assert_int_equal(o.heuristic, GC_HEUR_DEFAULT);
    assert_true(o.weight == 0.0);
    assert_true(o.max_expansions == 0);
    assert_false(o.partial);
    assert_false(o.smooth);
    assert_true(o.radius == 0.0f);
    assert_null(o.nav);
    assert_null(o.trace);
    assert_int_equal(o.algo, GC_ALGO_AUTO);

    assert_string_equal(gc_algo_name(GC_ALGO_AUTO), "auto");
    assert_string_equal(gc_algo_name(GC_ALGO_ASTAR), "astar");
    assert_string_equal(gc_algo_name(GC_ALGO_JPS), "jps");
    assert_null(gc_algo_name((gc_algo)3));
    for (int a = GC_ALGO_AUTO; a <= GC_ALGO_JPS; a++)
        assert_int_equal(gc_algo_parse(gc_algo_name(a)), a);
    assert_int_equal(gc_algo_parse("JPS"), GC_ALGO_JPS);
    assert_int_equal(gc_algo_parse("dijkstra"), GC_EINVAL);
    assert_int_equal(gc_algo_parse(NULL), GC_EINVAL);
}

/* gc_dirs_from_open against the rule spelled out with gc_dir_orth_mask,
 * for every neighbourhood and rule. */
static void
test_rule_table(void **state)
{
    (void)state;
    for (int rule = 0; rule < 4; rule++)
        for (unsigned open = 0; open < 256; open++) {
            unsigned want = open & 0xFu;
            for (int d = 4; d < 8 && rule != GC_DIAG_NEVER; d++) {
                unsigned need = gc_dir_orth_mask[d];
                bool ok = (open >> d) & 1u;
                if (rule == GC_DIAG_NO_CORNER_CUT)
                    ok = ok && (open & need) == need;
                else if (rule == GC_DIAG_ONE_FREE)
                    ok = ok && (open & need) != 0;
                if (ok)
                    want |= 1u << d;
            }
            assert_int_equal(gc_dirs_from_open(open, (gc_diag_rule)rule), want);
        }
}

static void
test_straight_and_diagonal(void **state)
{
    (void)state;
    gc_path p;
    gc_path_init(&p);
    gc_astar_stats st;

    /* A 10-cell corridor: 9 straight steps. */
    gc_grid *g = grid_from(10, 1, "..........");
    assert_int_equal(find(g, C(0, 0), C(9, 0), NULL, &p, &st), GC_OK);
    assert_int_equal(p.len, 10);
    for (int i = 0; i < 10; i++)
        assert_int_equal(p.cells[i].x, i);
    assert_close(st.cost, 9.0);
    assert_true(st.found);
    assert_false(st.partial);
    /* Octile on a line is exact: only the corridor is expanded. */
    assert_int_equal(st.expanded, 9);
    assert_close(gc_path_cost(g, &p, GC_DIAG_NO_CORNER_CUT), 9.0);
    gc_grid_free(g);

    /* Open 5x5, corner to corner: 4 diagonal steps. */
    g = grid_from(5, 5, ".........................");
    assert_int_equal(find(g, C(0, 0), C(4, 4), NULL, &p, &st), GC_OK);
    assert_int_equal(p.len, 5);
    assert_close(st.cost, 4 * SQRT2);
    assert_path(g, &p, C(0, 0), C(4, 4), GC_DIAG_NO_CORNER_CUT);
    /* 4-connected: 8 steps, Manhattan by default. */
    gc_astar_opts o;
    gc_astar_opts_init(&o);
    o.diag = GC_DIAG_NEVER;
    assert_int_equal(find(g, C(0, 0), C(4, 4), &o, &p, &st), GC_OK);
    assert_int_equal(p.len, 9);
    assert_close(st.cost, 8.0);
    assert_path(g, &p, C(0, 0), C(4, 4), GC_DIAG_NEVER);
    /* A knight's move (2, 1): one diagonal and one straight. */
    assert_int_equal(find(g, C(1, 1), C(3, 2), NULL, &p, &st), GC_OK);
    assert_int_equal(p.len, 3);
    assert_close(st.cost, 1 + SQRT2);
    gc_grid_free(g);
    gc_path_free(&p);
}

static void
test_detour(void **state)
{
    (void)state;
    gc_path p;
    gc_path_init(&p);
    gc_astar_stats st;
    /*
     * A wall in column 3 with its gap at the bottom, from (1, 0) to (5, 0):
     *     . . . @ . . .
     *     . . . @ . . .
     *     . . . @ . . .
     *     . . . . . . .
     * The shortest route goes down to (3, 3) and back up.  Without corner
     * cutting: (1,0) (1,1) (2,2) (3,3) (4,2) (5,1) (5,0)?  The diagonal
     * (2,2)->(3,3) needs (3,2) open, which is wall, so it must go through
     * (2,3): (1,0) -> (1,1) -> (1,2) -> (2,3) -> (3,3) -> (4,3) ->
     * (5,2) -> (5,1) -> (5,0)?  Cheapest: 1 + 1 + sqrt2 + 1 + 1 + sqrt2 +
     * 1 + 1 = 6 + 2 sqrt2 (two diagonals, six straight steps).
     */
    gc_grid *g = grid_from(7, 4,
                           "...@..."
                           "...@..."
                           "...@..."
                           ".......");
    assert_int_equal(find(g, C(1, 0), C(5, 0), NULL, &p, &st), GC_OK);
    assert_close(st.cost, 6 + 2 * SQRT2);
    assert_path(g, &p, C(1, 0), C(5, 0), GC_DIAG_NO_CORNER_CUT);
    for (size_t i = 0; i < p.len; i++)
        if (p.cells[i].x == 3)
            assert_int_equal(p.cells[i].y, 3);

    /* Cutting corners, (2,2) -> (3,3) -> (4,2) are allowed with one free
     * orthogonal, so both halves are plain octile: (1,0) -> (3,3) is
     * 1 + 2 sqrt2, and back up the same: 2 + 4 sqrt2. */
    gc_astar_opts o;
    gc_astar_opts_init(&o);
    o.diag = GC_DIAG_ONE_FREE;
    assert_int_equal(find(g, C(1, 0), C(5, 0), &o, &p, &st), GC_OK);
    assert_close(st.cost, 2 + 4 * SQRT2);
    assert_path(g, &p, C(1, 0), C(5, 0), GC_DIAG_ONE_FREE);
    /* 4-connected: down 3, across 4, up 3. */
    o.diag = GC_DIAG_NEVER;
    assert_int_equal(find(g, C(1, 0), C(5, 0), &o, &p, &st), GC_OK);
    assert_close(st.cost, 10.0);
    gc_grid_free(g);
    gc_path_free(&p);
}

static void
test_corner_rules(void **state)
{
    (void)state;
    gc_path p;
    gc_path_init(&p);
    gc_astar_stats st;
    gc_astar_opts o;
    gc_astar_opts_init(&o);

    /* Two walls meeting at a corner: only "always" squeezes through. */
    gc_grid *g = grid_from(2, 2,
                           ".@"
                           "@.");
    static const int expect[4] = {
        [GC_DIAG_NO_CORNER_CUT] = GC_EUNREACHABLE,
        [GC_DIAG_NEVER] = GC_EUNREACHABLE,
        [GC_DIAG_ONE_FREE] = GC_EUNREACHABLE,
        [GC_DIAG_ALWAYS] = GC_OK,
    };
    for (int r = 0; r < 4; r++) {
        o.diag = (gc_diag_rule)r;
        assert_int_equal(find(g, C(0, 0), C(1, 1), &o, &p, &st), expect[r]);
    }
    assert_close(st.cost, SQRT2);
    assert_int_equal(p.len, 2);
    gc_grid_free(g);

    /* One wall beside the diagonal: one-free and always cut it (sqrt 2),
     * no-corner-cut and never go round (2). */
    g = grid_from(2, 2,
                  ".."
                  "@.");
    static const double cost[4] = {
        [GC_DIAG_NO_CORNER_CUT] = 2.0,
        [GC_DIAG_NEVER] = 2.0,
        [GC_DIAG_ONE_FREE] = SQRT2,
        [GC_DIAG_ALWAYS] = SQRT2,
    };
    for (int r = 0; r < 4; r++) {
        o.diag = (gc_diag_rule)r;
        assert_int_equal(find(g, C(0, 0), C(1, 1), &o, &p, &st), GC_OK);
        assert_close(st.cost, cost[r]);
        assert_path(g, &p, C(0, 0), C(1, 1), (gc_diag_rule)r);
    }
    gc_grid_free(g);
    gc_path_free(&p);
}

static void
test_weighted_costs(void **state)
{
    (void)state;
    gc_path p;
    gc_path_init(&p);
    gc_astar_stats st;
    /*
     * From (0,1) to (4,1), straight through the swamp costs 2+2+2+1 = 7.
     * The road costs: diagonal onto (1,0) 0.5 sqrt2, (2,0) 0.5, (3,0) 0.5,
     * diagonal down onto (4,1) 1 * sqrt2: 1 + 1.5 sqrt2 = 3.1213...
     * (all the way along the road and down is 0.5 * 5 + 1 = 3.5).
     */
    gc_grid *g = grid_from(5, 3,
                           "RRRRR"
                           ".SSS."
                           ".....");
    assert_int_equal(find(g, C(0, 1), C(4, 1), NULL, &p, &st), GC_OK);
    assert_close(st.cost, 1 + 1.5 * SQRT2);
    assert_path(g, &p, C(0, 1), C(4, 1), GC_DIAG_NO_CORNER_CUT);
    for (size_t i = 1; i + 1 < p.len; i++)
        assert_int_equal(p.cells[i].y, 0);
    assert_close(gc_path_cost(g, &p, GC_DIAG_NO_CORNER_CUT), st.cost);
    /* The heuristic is scaled by the cheapest cost (0.5), so the default
     * search stays optimal even though roads cost less than 1: the zero
     * heuristic (Dijkstra) agrees. */
    gc_astar_opts o;
    gc_astar_opts_init(&o);
    o.heuristic = GC_HEUR_ZERO;
    assert_int_equal(find(g, C(0, 1), C(4, 1), &o, &p, &st), GC_OK);
    assert_close(st.cost, 1 + 1.5 * SQRT2);
    /* Uniform costs: straight through, 4. */
    gc_grid_set_uniform(g);
    assert_int_equal(find(g, C(0, 1), C(4, 1), NULL, &p, &st), GC_OK);
    assert_close(st.cost, 4.0);
    /* A custom table: swamp at 0.25 makes the swamp the road. */
    assert_int_equal(gc_grid_set_cost(g, GC_CELL_HIGH, 0.25f), GC_OK);
    assert_int_equal(find(g, C(0, 1), C(4, 1), NULL, &p, &st), GC_OK);
    assert_close(st.cost, 0.75 + 1.0);
    gc_grid_free(g);
    gc_path_free(&p);
}

static const char *map20 = "...................."
                           "...................."
                           "......@@@@@@@@......"
                           ".............@......"
                           ".............@......"
                           "....@........@......"
                           "....@........@......"
                           "....@........@......"
                           "....@@@@@@...@......"
                           "...................."
                           "...................."
                           "..........SSSS......"
                           "..........SSSS......"
                           "...RRRRRRRRRRRRRRR.."
                           "...................."
                           "......@............."
                           "......@............."
                           "......@@@@@@@@@@@@.."
                           "...................."
                           "....................";

static void
test_each_heuristic(void **state)
{
    (void)state;
    gc_grid *g = grid_from(20, 20, map20);
    gc_path p;
    gc_path_init(&p);
    gc_astar_stats st;
    gc_astar_opts o;
    gc_astar_opts_init(&o);
    gc_cell s = C(1, 1), t = C(18, 19);

    /* Every admissible heuristic finds the same optimal cost; the zero
     * heuristic (Dijkstra) expands the most. */
    o.heuristic = GC_HEUR_ZERO;
    assert_int_equal(find(g, s, t, &o, &p, &st), GC_OK);
    double best = st.cost;
    uint64_t zero_expanded = st.expanded;
    assert_true(st.ns > 0); /* timed with CLOCK_MONOTONIC */
    static const gc_heuristic hs[] = {GC_HEUR_DEFAULT, GC_HEUR_OCTILE,
                                      GC_HEUR_EUCLIDEAN, GC_HEUR_CHEBYSHEV};
    for (size_t i = 0; i < sizeof hs / sizeof hs[0]; i++) {
        o.heuristic = hs[i];
        assert_int_equal(find(g, s, t, &o, &p, &st), GC_OK);
        assert_close(st.cost, best);
        assert_path(g, &p, s, t, GC_DIAG_NO_CORNER_CUT);
        assert_true(st.expanded < zero_expanded);
        assert_true(st.opened >= st.expanded);
    }
    /* Octile is the tightest of them here. */
    o.heuristic = GC_HEUR_OCTILE;
    assert_int_equal(find(g, s, t, &o, &p, &st), GC_OK);
    uint64_t octile_expanded = st.expanded;
    o.heuristic = GC_HEUR_CHEBYSHEV;
    assert_int_equal(find(g, s, t, &o, &p, &st), GC_OK);
    assert_true(octile_expanded <= st.expanded);

    /* 4-connected: Manhattan (the default) and zero agree. */
    o.diag = GC_DIAG_NEVER;
    o.heuristic = GC_HEUR_ZERO;
    assert_int_equal(find(g, s, t, &o, &p, &st), GC_OK);
    best = st.cost;
    zero_expanded = st.expanded;
    static const gc_heuristic h4[] = {GC_HEUR_DEFAULT, GC_HEUR_MANHATTAN,
                                      GC_HEUR_OCTILE, GC_HEUR_EUCLIDEAN,
                                      GC_HEUR_CHEBYSHEV};
    for (size_t i = 0; i < sizeof h4 / sizeof h4[0]; i++) {
        o.heuristic = h4[i];
        assert_int_equal(find(g, s, t, &o, &p, &st), GC_OK);
        assert_close(st.cost, best);
        assert_path(g, &p, s, t, GC_DIAG_NEVER);
        assert_true(st.expanded < zero_expanded);
    }
    gc_grid_free(g);
    gc_path_free(&p);
}

static void
test_weight(void **state)
{
    (void)state;
    gc_grid *g = grid_from(20, 20, map20);
    gc_grid_set_uniform(g);
    gc_path p;
    gc_path_init(&p);
    gc_astar_stats st;
    gc_astar_opts o;
    gc_astar_opts_init(&o);
    gc_cell s = C(8, 5), t = C(8, 19);
    assert_int_equal(find(g, s, t, &o, &p, &st), GC_OK);
    double best = st.cost;
    uint64_t optimal_expanded = st.expanded;
    /* Weighted A* still finds a path, within `weight` times the best. */
    o.weight = 3.0;
    assert_int_equal(find(g, s, t, &o, &p, &st), GC_OK);
    assert_path(g, &p, s, t, GC_DIAG_NO_CORNER_CUT);
    assert_true(st.cost >= best - EPS);
    assert_true(st.cost <= 3.0 * best + EPS);
    assert_true(st.expanded <= optimal_expanded);
    assert_close(gc_path_cost(g, &p, GC_DIAG_NO_CORNER_CUT), st.cost);
    /* A weight at or below 1 is the optimal search. */
    o.weight = 0.5;
    assert_int_equal(find(g, s, t, &o, &p, &st), GC_OK);
    assert_close(st.cost, best);
    gc_grid_free(g);
    gc_path_free(&p);
}

static void
test_expansion_cap(void **state)
{
    (void)state;
    gc_grid *g = grid_from(20, 1, "....................");
    gc_path p;
    gc_path_init(&p);
    gc_astar_stats st;
    gc_astar_opts o;
    gc_astar_opts_init(&o);
    o.max_expansions = 5;
    assert_int_equal(find(g, C(0, 0), C(19, 0), &o, &p, &st), GC_ELIMIT);
    assert_int_equal(st.expanded, 5);
    assert_int_equal(p.len, 0);
    assert_false(st.found);
    /* With partial: cells 0..4 were expanded, 4 is nearest the goal. */
    o.partial = true;
    assert_int_equal(find(g, C(0, 0), C(19, 0), &o, &p, &st), GC_ELIMIT);
    assert_true(st.partial);
    assert_false(st.found);
    assert_int_equal(p.len, 5);
    assert_int_equal(p.cells[4].x, 4);
    assert_close(st.cost, 4.0);
    /* A cap the search does not reach changes nothing. */
    o.max_expansions = 19;
    assert_int_equal(find(g, C(0, 0), C(19, 0), &o, &p, &st), GC_OK);
    assert_int_equal(p.len, 20);
    assert_true(st.found);
    gc_grid_free(g);
    gc_path_free(&p);
}

static void
test_partial_target(void **state)
{
    (void)state;
    /*
     * The goal (2,2) is walled in.  From (1,0), the reachable cells
     * nearest it (octile distance 2) are (2,0) with g = 1 and (0,2) with
     * g = 3 (round by (0,0) and (0,1): the diagonal (1,0)->(0,1) cuts the
     * wall at (1,1)); (4,2) and (2,4) are farther round.  Ties go to the
     * lower g: the partial path is (1,0) (2,0).
     */
    gc_grid *g = grid_from(5, 5,
                           "....."
                           ".@@@."
                           ".@.@."
                           ".@@@."
                           ".....");
    gc_path p;
    gc_path_init(&p);
    gc_astar_stats st;
    gc_astar_opts o;
    gc_astar_opts_init(&o);
    assert_int_equal(find(g, C(1, 0), C(2, 2), &o, &p, &st), GC_EUNREACHABLE);
    assert_int_equal(p.len, 0);
    assert_int_equal(st.expanded, 16); /* the whole ring */
    o.partial = true;
    assert_int_equal(find(g, C(1, 0), C(2, 2), &o, &p, &st), GC_EUNREACHABLE);
    assert_true(st.partial);
    assert_int_equal(p.len, 2);
    assert_int_equal(p.cells[1].x, 2);
    assert_int_equal(p.cells[1].y, 0);
    assert_close(st.cost, 1.0);

    /* Navigation data answers at once, with nothing expanded... */
    gc_nav *nav;
    assert_int_equal(gc_nav_new(&nav, g), GC_OK);
    o.nav = nav;
    o.partial = false;
    assert_int_equal(find(g, C(1, 0), C(2, 2), &o, &p, &st), GC_EUNREACHABLE);
    assert_int_equal(st.expanded, 0);
    assert_int_equal(st.opened, 0);
    /* ... unless a partial path is asked for. */
    o.partial = true;
    assert_int_equal(find(g, C(1, 0), C(2, 2), &o, &p, &st), GC_EUNREACHABLE);
    assert_int_equal(st.expanded, 16);
    assert_int_equal(p.len, 2);
    gc_nav_free(nav);
    gc_grid_free(g);
    gc_path_free(&p);
}

static void
test_endpoints(void **state)
{
    (void)state;
    gc_grid *g = grid_from(4, 3,
                           ".@.."
                           "...."
                           "..R.");
    gc_astar *a;
    assert_int_equal(gc_astar_new(&a, 4, 3), GC_OK);
    gc_path p;
    gc_path_init(&p);
    gc_astar_stats st;
    assert_int_equal(gc_astar_find(a, g, C(-1, 0), C(2, 2), NULL, &p, &st),
                     GC_EOUTSIDE);
    assert_int_equal(st.status, GC_EOUTSIDE);
    assert_int_equal(gc_astar_find(a, g, C(0, 0), C(4, 2), NULL, &p, &st),
                     GC_EOUTSIDE);
    assert_int_equal(gc_astar_find(a, g, C(0, 0), C(0, 3), NULL, &p, NULL),
                     GC_EOUTSIDE);
    assert_int_equal(gc_astar_find(a, g, C(1, 0), C(2, 2), NULL, &p, &st),
                     GC_EBLOCKED);
    assert_int_equal(gc_astar_find(a, g, C(0, 0), C(1, 0), NULL, &p, &st),
                     GC_EBLOCKED);
    assert_int_equal(p.len, 0);
    /* Start == goal: a one-cell path costing nothing. */
    assert_int_equal(gc_astar_find(a, g, C(2, 2), C(2, 2), NULL, &p, &st),
                     GC_OK);
    assert_int_equal(p.len, 1);
    assert_int_equal(p.cells[0].x, 2);
    assert_true(st.cost == 0.0);
    assert_true(st.found);
    assert_int_equal(st.expanded, 0);
    /* Wrong sizes and bad options. */
    gc_grid *other = grid_from(3, 3, ".........");
    assert_int_equal(gc_astar_find(a, other, C(0, 0), C(1, 1), NULL, &p, &st),
                     GC_EINVAL);
    gc_astar_opts o;
    gc_astar_opts_init(&o);
    o.radius = 0.5f; /* needs nav */
    assert_int_equal(gc_astar_find(a, g, C(0, 0), C(3, 2), &o, &p, &st),
                     GC_EINVAL);
    o.radius = -1.0f;
    assert_int_equal(gc_astar_find(a, g, C(0, 0), C(3, 2), &o, &p, &st),
                     GC_EINVAL);
    gc_astar_opts_init(&o);
    o.diag = (gc_diag_rule)7;
    assert_int_equal(gc_astar_find(a, g, C(0, 0), C(3, 2), &o, &p, &st),
                     GC_EINVAL);
    gc_astar_opts_init(&o);
    o.weight = NAN;
    assert_int_equal(gc_astar_find(a, g, C(0, 0), C(3, 2), &o, &p, &st),
                     GC_EINVAL);
    assert_int_equal(gc_astar_find(a, g, C(0, 0), C(3, 2), NULL, NULL, &st),
                     GC_EINVAL);
    /* The context still works after all that.  (0,0) -> (3,2): the wall
     * at (1,0) forbids the first diagonal, so down 1, right 1, diagonal
     * onto the road (2,2) at 0.5 sqrt2, right 1. */
    assert_int_equal(gc_astar_find(a, g, C(0, 0), C(3, 2), NULL, &p, &st),
                     GC_OK);
    assert_close(st.cost, 3 + 0.5 * SQRT2);

    gc_astar *bad = (gc_astar *)1;
    assert_int_equal(gc_astar_new(&bad, 0, 3), GC_EINVAL);
    assert_null(bad);
    assert_int_equal(gc_astar_new(&bad, GC_GRID_MAX_SIDE + 1, 1), GC_ETOOBIG);
    assert_int_equal(gc_astar_new(&bad, 65536, 65536), GC_ETOOBIG);
    gc_grid_free(other);
    gc_grid_free(g);
    gc_astar_free(a);
    gc_astar_free(NULL);
    gc_path_free(&p);
}

static void
test_nav_stale_and_components(void **state)
{
    (void)state;
    /*
     * Two rooms touching only at a corner: (1,1) and (2,2) are diagonal
     * neighbours whose orthogonals (2,1) and (1,2) are walls.
     */
    gc_grid *g = grid_from(4, 4,
                           "..@@"
                           "..@@"
                           "@@.."
                           "@@..");
    gc_nav *nav;
    assert_int_equal(gc_nav_new(&nav, g), GC_OK);
    assert_true(gc_nav_generation(nav) == g->generation);
    uint32_t a4 = gc_nav_component(nav, GC_DIAG_NO_CORNER_CUT, C(0, 0));
    uint32_t b4 = gc_nav_component(nav, GC_DIAG_NO_CORNER_CUT, C(3, 3));
    assert_true(a4 != 0 && b4 != 0 && a4 != b4);
    assert_int_equal(gc_nav_component(nav, GC_DIAG_NEVER, C(1, 1)), a4);
    assert_int_equal(gc_nav_component(nav, GC_DIAG_ONE_FREE, C(2, 2)), b4);
    assert_int_equal(gc_nav_component(nav, GC_DIAG_ALWAYS, C(0, 0)),
                     gc_nav_component(nav, GC_DIAG_ALWAYS, C(3, 3)));
    assert_int_equal(gc_nav_component(nav, GC_DIAG_ALWAYS, C(2, 0)), 0);
    assert_int_equal(gc_nav_component(nav, GC_DIAG_ALWAYS, C(9, 0)), 0);

    gc_path p;
    gc_path_init(&p);
    gc_astar_stats st;
    gc_astar_opts o;
    gc_astar_opts_init(&o);
    o.nav = nav;
    assert_int_equal(find(g, C(0, 0), C(3, 3), &o, &p, &st), GC_EUNREACHABLE);
    assert_int_equal(st.expanded, 0);
    o.diag = GC_DIAG_ALWAYS;
    assert_int_equal(find(g, C(0, 0), C(3, 3), &o, &p, &st), GC_OK);
    assert_close(st.cost, 3 * SQRT2);

    /* Change the grid: the data is stale until updated. */
    assert_int_equal(gc_grid_set(g, 2, 1, GC_CELL_WALKABLE), GC_OK);
    o.diag = GC_DIAG_NO_CORNER_CUT;
    assert_int_equal(find(g, C(0, 0), C(3, 3), &o, &p, &st), GC_ESTALE);
    assert_true(gc_nav_generation(nav) != g->generation);
    assert_int_equal(gc_nav_update(nav, g), GC_OK);
    assert_true(gc_nav_generation(nav) == g->generation);
    assert_int_equal(gc_nav_component(nav, GC_DIAG_NEVER, C(0, 0)),
                     gc_nav_component(nav, GC_DIAG_NEVER, C(3, 3)));
    assert_int_equal(find(g, C(0, 0), C(3, 3), &o, &p, &st), GC_OK);
    /* (0,0) (1,1)? needs (1,0),(0,1): fine; (1,1)->(2,1) E; (2,1)->(3,2)?
     * needs (3,1) wall: no; (2,1)->(2,2) S; (2,2)->(3,3) diag: 3 sqrt2 is
     * gone, it is sqrt2 + 1 + 1 + sqrt2. */
    assert_close(st.cost, 2 + 2 * SQRT2);
    /* An update with nothing new is a no-op; wrong sizes are refused. */
    assert_int_equal(gc_nav_update(nav, g), GC_OK);
    gc_grid *small = grid_from(2, 2, "....");
    assert_int_equal(gc_nav_update(nav, small), GC_EINVAL);
    /* Navigation data of another grid of the same size is not this grid's
     * (and a cost table that makes a type impassable is a new map). */
    gc_grid *twin;
    assert_int_equal(gc_grid_clone(&twin, g), GC_OK);
    assert_int_equal(find(twin, C(0, 0), C(3, 3), &o, &p, &st), GC_ESTALE);
    g->cost[GC_CELL_WALKABLE] = INFINITY;
    assert_int_equal(find(g, C(0, 0), C(0, 0), &o, &p, &st), GC_ESTALE);
    assert_int_equal(gc_nav_update(nav, g), GC_OK);
    assert_int_equal(gc_nav_component(nav, GC_DIAG_NEVER, C(0, 0)), 0);
    gc_grid_free(twin);
    gc_grid_free(small);
    gc_nav_free(nav);
    gc_nav_free(NULL);
    gc_grid_free(g);
    gc_path_free(&p);
}

/* Clearance by definition: distance between centres to the nearest
 * impassable cell or cell outside the map, minus 0.5. */
static double
brute_clearance(const gc_grid *g, int x, int y)
{
    if (!gc_grid_passable(g, x, y))
        return 0.0;
    double best = INFINITY;
    for (int v = -1; v <= g->height; v++)
        for (int u = -1; u <= g->width; u++) {
            if (gc_grid_passable(g, u, v))
                continue;
            double d = hypot(u - x, v - y);
            if (d < best)
                best = d;
        }
    return best - 0.5;
}

static void
test_clearance(void **state)
{
    (void)state;
    gc_grid *g = grid_from(12, 9,
                           "............"
                           "............"
                           "...@........"
                           "............"
                           "........@@.."
                           "............"
                           ".S.R........"
                           "............"
                           ".....@......");
    gc_nav *nav;
    assert_int_equal(gc_nav_new(&nav, g), GC_OK);
    for (int y = 0; y < g->height; y++)
        for (int x = 0; x < g->width; x++) {
            double want = brute_clearance(g, x, y);
            float got = gc_nav_clearance(nav, C(x, y));
            if (fabs(got - want) > 1e-5) {
                print_error("clearance(%d,%d) = %f, expected %f\n", x, y,
                            (double)got, want);
                fail();
            }
        }
    /* Worked by hand: next to the map's edge 0.5, under the wall at (3,2)
     * 0.5; (6,1): the top edge at 2 (walls (3,2) and (8,4) are farther,
     * sqrt 10 and sqrt 13) -> 1.5; (6,2): the wall (8,4) at sqrt 8. */
    assert_true(gc_nav_clearance(nav, C(0, 0)) == 0.5f);
    assert_true(gc_nav_clearance(nav, C(3, 3)) == 0.5f);
    assert_true(gc_nav_clearance(nav, C(3, 2)) == 0.0f);
    assert_true(fabsf(gc_nav_clearance(nav, C(6, 1)) - 1.5f) < 1e-6f);
    assert_true(fabs(gc_nav_clearance(nav, C(6, 2)) - (sqrt(8.0) - 0.5)) <
                1e-6);
    assert_true(gc_nav_clearance(nav, C(-1, 2)) == 0.0f);
    gc_nav_free(nav);
    gc_grid_free(g);

    /* Random maps against the definition. */
    uint64_t seed = 12345;
    for (int k = 0; k < 40; k++) {
        int w = 1 + k % 13, h = 1 + (k * 7) % 11;
        assert_int_equal(gc_grid_new(&g, w, h), GC_OK);
        for (int i = 0; i < w * h; i++) {
            seed = seed * 6364136223846793005ull + 1442695040888963407ull;
            if ((seed >> 33) % 100 < (uint64_t)(5 + k))
                gc_grid_set(g, i % w, i / w, GC_CELL_OBSTACLE);
        }
        assert_int_equal(gc_nav_new(&nav, g), GC_OK);
        for (int y = 0; y < h; y++)
            for (int x = 0; x < w; x++) {
                float c = gc_nav_clearance(nav, C(x, y));
                assert_true(fabs(c - brute_clearance(g, x, y)) < 1e-5);
                /* The compact map: below it, within a quarter cell. */
                float low = gc_nav_clear_low(nav, C(x, y));
                assert_true(low <= c && c - low < 0.25f);
            }
        assert_true(gc_nav_clear_low(nav, C(-1, 0)) == 0.0f);
        assert_true(gc_nav_clear_low(nav, C(w, 0)) == 0.0f);
        gc_nav_free(nav);
        gc_grid_free(g);
    }
    /* Open ground beyond 63.75 cells: the compact map saturates there. */
    assert_int_equal(gc_grid_new(&g, 300, 300), GC_OK);
    assert_int_equal(gc_nav_new(&nav, g), GC_OK);
    assert_true(gc_nav_clearance(nav, C(150, 150)) == 149.5f);
    assert_true(gc_nav_clear_low(nav, C(150, 150)) == 63.75f);
    assert_true(gc_nav_clear_low(nav, C(70, 150)) == 63.75f);
    assert_true(gc_nav_clear_low(nav, C(60, 150)) == 60.5f);
    gc_nav_free(nav);
    gc_grid_free(g);
}

static void
test_radius(void **state)
{
    (void)state;
    /*
     * Two 5x5 rooms joined by a corridor one cell wide (row 2, columns
     * 5..7), whose cells have clearance 0.5 (the walls are one row away).
     * The rooms' centres (2,2) and (10,2) have 2.5.  A body of radius 0.4
     * passes; 0.6 does not, and there is no other way.
     */
    gc_grid *g = grid_from(13, 5,
                           ".....@@@....."
                           ".....@@@....."
                           "............."
                           ".....@@@....."
                           ".....@@@.....");
    gc_nav *nav;
    assert_int_equal(gc_nav_new(&nav, g), GC_OK);
    assert_true(gc_nav_clearance(nav, C(6, 2)) == 0.5f);
    assert_true(gc_nav_clearance(nav, C(2, 2)) == 2.5f);
    gc_path p;
    gc_path_init(&p);
    gc_astar_stats st;
    gc_astar_opts o;
    gc_astar_opts_init(&o);
    o.nav = nav;
    o.radius = 0.4f;
    assert_int_equal(find(g, C(2, 2), C(10, 2), &o, &p, &st), GC_OK);
    assert_close(st.cost, 8.0);
    o.radius = 0.6f;
    assert_int_equal(find(g, C(2, 2), C(10, 2), &o, &p, &st), GC_EUNREACHABLE);
    assert_true(st.expanded > 0); /* same component: it had to look */
    /* Start or goal inside the radius is blocked. */
    assert_int_equal(find(g, C(0, 0), C(10, 2), &o, &p, &st), GC_EBLOCKED);
    /* Radius is in world units: with 2-unit cells, 0.9 units is 0.45
     * cells and fits; 1.2 units is 0.6 cells and does not. */
    g->cell_size = 2.0f;
    o.radius = 0.9f;
    assert_int_equal(find(g, C(2, 2), C(10, 2), &o, &p, &st), GC_OK);
    o.radius = 1.2f;
    assert_int_equal(find(g, C(2, 2), C(10, 2), &o, &p, &st), GC_EUNREACHABLE);
    gc_nav_free(nav);
    gc_grid_free(g);

    /* In a wide room the body keeps off the walls: from (2,2) to (2,6)
     * with radius 1.0 the path stays in the cells with clearance >= 1. */
    g = grid_from(9, 9,
                  "........."
                  "........."
                  "........."
                  "........."
                  "@@@@@@..."
                  "........."
                  "........."
                  "........."
                  ".........");
    assert_int_equal(gc_nav_new(&nav, g), GC_OK);
    o.nav = nav;
    o.radius = 1.0f;
    o.smooth = false;
    assert_int_equal(find(g, C(2, 2), C(2, 6), &o, &p, &st), GC_OK);
    for (size_t i = 0; i < p.len; i++)
        assert_true(gc_nav_clearance(nav, p.cells[i]) >= 1.0f);
    /* Without the radius it is shorter. */
    double wide = st.cost;
    o.radius = 0.0f;
    assert_int_equal(find(g, C(2, 2), C(2, 6), &o, &p, &st), GC_OK);
    assert_true(st.cost < wide);
    gc_nav_free(nav);
    gc_grid_free(g);
    gc_path_free(&p);
}

static void
test_trace(void **state)
{
    (void)state;
    gc_grid *g = grid_from(6, 1, "......");
    gc_trace_event ev[64];
    gc_trace tr = {ev, 64, 99, true};
    gc_path p;
    gc_path_init(&p);
    gc_astar_stats st;
    gc_astar_opts o;
    gc_astar_opts_init(&o);
    o.trace = &tr;
    assert_int_equal(find(g, C(0, 0), C(5, 0), &o, &p, &st), GC_OK);
    /* open 0, close 0, open 1, close 1, ..., open 5, close 5 (the goal). */
    assert_int_equal(tr.len, 12);
    assert_false(tr.truncated);
    for (int i = 0; i < 6; i++) {
        assert_int_equal(ev[2 * i].kind, GC_TRACE_OPEN);
        assert_int_equal(ev[2 * i].cell, i);
        assert_int_equal(ev[2 * i + 1].kind, GC_TRACE_CLOSE);
        assert_int_equal(ev[2 * i + 1].cell, i);
    }
    size_t closes = 0;
    for (size_t i = 0; i < tr.len; i++)
        closes += ev[i].kind == GC_TRACE_CLOSE;
    assert_int_equal(closes, st.expanded + 1);
    /* A small buffer keeps the first events and says so. */
    tr.cap = 3;
    assert_int_equal(find(g, C(0, 0), C(5, 0), &o, &p, &st), GC_OK);
    assert_int_equal(tr.len, 3);
    assert_true(tr.truncated);
    assert_int_equal(ev[2].cell, 1);
    gc_grid_free(g);
    gc_path_free(&p);
}

static void
test_segment_cost(void **state)
{
    (void)state;
    gc_grid *g = grid_from(5, 4,
                           "....."
                           ".@..."
                           "..S.."
                           ".....");
    /* Straight and diagonal neighbours: the grid step costs. */
    assert_close(gc_segment_cost(g, NULL, 0, C(2, 0), C(3, 0)), 1.0);
    assert_close(gc_segment_cost(g, NULL, 0, C(2, 1), C(3, 2)), SQRT2);
    assert_true(fabs(gc_segment_cost(g, NULL, 0, C(2, 1), C(3, 2)) -
                     gc_grid_step_cost(g, C(2, 1), C(3, 2),
                                       GC_DIAG_NO_CORNER_CUT)) < 1e-6);
    assert_close(gc_segment_cost(g, NULL, 0, C(3, 1), C(2, 2)), 2 * SQRT2);
    /* Into a wall, or past the corner of the wall at (1,1), is refused:
     * (2,0) -> (0,2) passes exactly through the corner point (2,1). */
    assert_true(isinf(gc_segment_cost(g, NULL, 0, C(0, 0), C(1, 1))));
    assert_true(isinf(gc_segment_cost(g, NULL, 0, C(1, 0), C(0, 1))));
    assert_true(isinf(gc_segment_cost(g, NULL, 0, C(2, 1), C(1, 2))));
    assert_true(isinf(gc_segment_cost(g, NULL, 0, C(2, 0), C(0, 2))));
    /* Through the corners (4,1) and (3,2), whose cells are all open, it is
     * fine: length 2 sqrt2 times the swamp (2,2) it enters. */
    assert_close(gc_segment_cost(g, NULL, 0, C(4, 0), C(2, 2)), 4 * SQRT2);
    /* (0,0) -> (4,2): slope 1/2 passes through the corners (1,1)/(2,1)?
     * Its cells: (0,0) (1,0) (1,1)... the line y = 0.5 + x/2 enters (1,1)
     * at x = 1.5 -> wall, so infinite. */
    assert_true(isinf(gc_segment_cost(g, NULL, 0, C(0, 0), C(4, 2))));
    /* (0,3) -> (4,3) along the bottom row: 4. */
    assert_close(gc_segment_cost(g, NULL, 0, C(0, 3), C(4, 3)), 4.0);
    /* (1,3) -> (4,1): crosses the swamp (2,2)? the line from (1.5,3.5)
     * to (4.5,1.5) has slope -2/3: at x = 2.5 it is at y = 2.83, in row 2
     * -> (2,2) is entered, so the price is length * 2. */
    assert_close(gc_segment_cost(g, NULL, 0, C(1, 3), C(4, 1)),
                 sqrt(13.0) * 2.0);
    /* Zero length costs nothing; outside costs everything. */
    assert_close(gc_segment_cost(g, NULL, 0, C(0, 0), C(0, 0)), 0.0);
    assert_true(isinf(gc_segment_cost(g, NULL, 0, C(0, 0), C(5, 0))));
    gc_grid_free(g);
}

static void
test_smooth(void **state)
{
    (void)state;
    gc_path p;
    gc_path_init(&p);
    gc_astar_stats st;
    gc_astar_opts o;
    gc_astar_opts_init(&o);
    o.smooth = true;

    /* An open diagonal corridor three cells wide: two waypoints. */
    gc_grid *g = grid_from(8, 8,
                           "..@@@@@@"
                           "...@@@@@"
                           "@...@@@@"
                           "@@...@@@"
                           "@@@...@@"
                           "@@@@...@"
                           "@@@@@..."
                           "@@@@@@..");
    assert_int_equal(find(g, C(0, 0), C(7, 7), &o, &p, &st), GC_OK);
    assert_int_equal(p.len, 2);
    assert_close(st.cost, 7 * SQRT2);
    gc_grid_free(g);

    /* A straight corridor: two waypoints, same cost. */
    g = grid_from(8, 1, "........");
    assert_int_equal(find(g, C(0, 0), C(7, 0), &o, &p, &st), GC_OK);
    assert_int_equal(p.len, 2);
    assert_close(st.cost, 7.0);
    gc_grid_free(g);

    /*
     * Round a wall: from (0,0) to (6,0) under the wall row 0 cols 2..4.
     *     . . @ @ @ . .
     *     . . . . . . .
     * The smoothed path never crosses the wall nor its corners: every
     * segment is finite and priced at most the grid path.
     */
    g = grid_from(7, 3,
                  "..@@@.."
                  "......."
                  ".......");
    o.smooth = false;
    assert_int_equal(find(g, C(0, 0), C(6, 0), &o, &p, &st), GC_OK);
    double raw = st.cost;
    o.smooth = true;
    assert_int_equal(find(g, C(0, 0), C(6, 0), &o, &p, &st), GC_OK);
    assert_true(st.cost <= raw + EPS);
    assert_true(p.len >= 3);
    for (size_t i = 1; i < p.len; i++)
        assert_true(
            isfinite(gc_segment_cost(g, NULL, 0, p.cells[i - 1], p.cells[i])));
    assert_close(gc_polyline_cost(g, NULL, 0, GC_DIAG_NO_CORNER_CUT, &p),
                 st.cost);
    gc_grid_free(g);

    /*
     * A swamp patch the grid path goes round is not cut through, even
     * when the straight line would be shorter: from (0,2) to (6,2) with
     * swamp in the middle, the road detour is kept.
     */
    g = grid_from(7, 5,
                  "......."
                  "......."
                  "..SSS.."
                  "......."
                  ".......");
    /* Straight through would cost 3 + 3 * 1.5 = 7.5; round, 4 + 2 sqrt2. */
    gc_grid_set_cost(g, GC_CELL_HIGH, 1.5f);
    assert_int_equal(find(g, C(0, 2), C(6, 2), &o, &p, &st), GC_OK);
    for (size_t i = 1; i < p.len; i++) {
        /* No piece enters a swamp cell: each costs its length. */
        gc_cell a = p.cells[i - 1], b = p.cells[i];
        double c = gc_segment_cost(g, NULL, 0, a, b);
        double len = hypot(b.x - a.x, b.y - a.y);
        assert_close(c, len * 1.0);
    }
    gc_grid_free(g);

    /*
     * A dearer cell the grid path went round is not crossed even when the
     * straight line would be cheaper: from (0,0) to (4,2) the grid path
     * (cost 2 + 2 sqrt2 = 4.83) avoids the swamp (2,1) at 1.05; the line
     * (0,0)-(4,2) enters it and would cost sqrt20 * 1.05 = 4.70.
     */
    g = grid_from(5, 3,
                  "....."
                  "..S.."
                  ".....");
    gc_grid_set_cost(g, GC_CELL_HIGH, 1.05f);
    assert_int_equal(find(g, C(0, 0), C(4, 2), &o, &p, &st), GC_OK);
    assert_true(p.len >= 3);
    for (size_t i = 1; i < p.len; i++) {
        gc_cell a = p.cells[i - 1], b = p.cells[i];
        assert_close(gc_segment_cost(g, NULL, 0, a, b),
                     hypot(b.x - a.x, b.y - a.y));
    }
    assert_true(st.cost <= 2 + 2 * SQRT2 + EPS);
    assert_true(isfinite(gc_segment_cost(g, NULL, 0, C(0, 0), C(4, 2))));
    assert_true(gc_segment_cost(g, NULL, 0, C(0, 0), C(4, 2)) < 2 + 2 * SQRT2);
    gc_grid_free(g);

    /* gc_path_smooth on its own leaves short and broken paths alone. */
    g = grid_from(3, 1, "...");
    assert_int_equal(gc_path_reserve(&p, 3), GC_OK);
    p.cells[0] = C(0, 0);
    p.cells[1] = C(2, 0);
    p.len = 2;
    gc_path_smooth(g, NULL, 0, GC_DIAG_NO_CORNER_CUT, &p);
    assert_int_equal(p.len, 2);
    p.cells[0] = C(0, 0);
    p.cells[1] = C(1, 0);
    p.cells[2] = C(2, 0);
    p.len = 3;
    gc_path_smooth(g, NULL, 0, GC_DIAG_NO_CORNER_CUT, &p);
    assert_int_equal(p.len, 2);
    assert_int_equal(p.cells[1].x, 2);
    gc_grid_free(g);
    gc_path_free(&p);
}

static void
test_path_helpers(void **state)
{
    (void)state;
    gc_path p;
    gc_path_init(&p);
    assert_null(p.cells);
    assert_int_equal(gc_path_reserve(&p, 5), GC_OK);
    assert_true(p.cap >= 5);
    gc_cell *keep = p.cells;
    assert_int_equal(gc_path_reserve(&p, 3), GC_OK);
    assert_ptr_equal(p.cells, keep);

    gc_grid *g = grid_from(3, 2,
                           ".S."
                           "@..");
    p.cells[0] = C(0, 0);
    p.cells[1] = C(1, 0);
    p.cells[2] = C(2, 1);
    p.len = 3;
    assert_close(gc_path_cost(g, &p, GC_DIAG_NO_CORNER_CUT), 2.0 + SQRT2);
    assert_close(gc_polyline_cost(g, NULL, 0, GC_DIAG_NO_CORNER_CUT, &p),
                 2.0 + SQRT2);
    p.cells[1] = C(1, 1); /* (0,0) -> (1,1) cuts the wall at (0,1) */
    assert_true(isinf(gc_path_cost(g, &p, GC_DIAG_NO_CORNER_CUT)));
    assert_close(gc_path_cost(g, &p, GC_DIAG_ONE_FREE), SQRT2 + 1.0);
    p.cells[1] = C(2, 0); /* not adjacent */
    assert_true(isinf(gc_path_cost(g, &p, GC_DIAG_ALWAYS)));
    p.len = 1;
    assert_true(gc_path_cost(g, &p, GC_DIAG_ALWAYS) == 0.0);
    p.len = 0;
    assert_true(isinf(gc_path_cost(g, &p, GC_DIAG_ALWAYS)));
    gc_path_free(&p);
    assert_null(p.cells);
    assert_int_equal(p.len, 0);
    assert_int_equal(p.cap, 0);
    gc_path_free(NULL);
    gc_grid_free(g);
}

static void
test_memory(void **state)
{
    (void)state;
    gc_grid *g;
    assert_int_equal(gc_grid_new(&g, 256, 256), GC_OK);
    for (int i = 0; i < 256 * 256; i += 7)
        if ((i / 256) % 4 != 0)
            gc_grid_set(g, i % 256, i / 256, GC_CELL_OBSTACLE);
    gc_astar *a;
    assert_int_equal(gc_astar_new(&a, 256, 256), GC_OK);
    size_t cells = 256 * 256;
    assert_true(gc_astar_memory(a) <= 16 * cells);
    gc_path p;
    gc_path_init(&p);
    gc_astar_stats st;
    gc_astar_opts o;
    gc_astar_opts_init(&o);
    o.heuristic = GC_HEUR_ZERO; /* the widest open list */
    assert_int_equal(gc_astar_find(a, g, C(0, 0), C(255, 255), &o, &p, &st),
                     GC_OK);
    assert_int_equal(gc_astar_find(a, g, C(128, 128), C(0, 255), &o, &p, &st),
                     GC_OK);
    if (gc_astar_memory(a) > 16 * cells) {
        print_error("%zu bytes for %zu cells\n", gc_astar_memory(a), cells);
        fail();
    }
    assert_true(gc_astar_memory(a) >= 12 * cells);
    gc_astar_free(a);
    gc_grid_free(g);
    gc_path_free(&p);
}

/*
 * Exact beyond float precision.  Cells cost 100, but (1,0) costs
 * 100.00003; from (0,0) to (20,20), 4-connected, every monotone path
 * avoiding (1,0) costs exactly 4000 and every one through it 4000.00003.
 * Both round to the same float f, and the tie-break prefers the larger g,
 * so the search first runs to the goal by way of (1,0) and closes it;
 * reaching it again 3e-5 cheaper must reopen it (a 7.5e-9 relative error
 * otherwise).  (Every type costs 100, so h is scaled by 100.)
 */
static void
test_exact_beyond_float(void **state)
{
    (void)state;
    gc_grid *g;
    assert_int_equal(gc_grid_new(&g, 21, 21), GC_OK);
    assert_int_equal(gc_grid_set_cost(g, GC_CELL_WALKABLE, 100.0f), GC_OK);
    assert_int_equal(gc_grid_set_cost(g, GC_CELL_HIGH, 100.00003f), GC_OK);
    assert_int_equal(gc_grid_set_cost(g, GC_CELL_LOW, 100.0f), GC_OK);
    assert_true(100.00003f > 100.0f);
    assert_int_equal(gc_grid_set(g, 1, 0, GC_CELL_HIGH), GC_OK);
    gc_path p;
    gc_path_init(&p);
    gc_astar_stats st;
    gc_astar_opts o;
    gc_astar_opts_init(&o);
    o.diag = GC_DIAG_NEVER;
    assert_int_equal(find(g, C(0, 0), C(20, 20), &o, &p, &st), GC_OK);
    assert_true(st.cost == 4000.0);
    assert_int_equal(p.cells[1].x, 0); /* not through (1,0) */
    o.diag = GC_DIAG_NO_CORNER_CUT;
    assert_int_equal(find(g, C(0, 0), C(20, 20), &o, &p, &st), GC_OK);
    assert_close(st.cost, 2000.0 * SQRT2);
    gc_grid_free(g);
    gc_path_free(&p);
}

/* ---- jump point search ----------------------------------------------------
 */

/* map20 with every passable type at cost 1. */
static gc_grid *
uniform20(void)
{
    gc_grid *g = grid_from(20, 20, map20);
    gc_grid_set_uniform(g);
    return g;
}

/* Run a search and return which algorithm it chose (or GC_EINVAL). */
static int
algo_of(const gc_grid *g, const gc_astar_opts *o)
{
    gc_path p;
    gc_path_init(&p);
    gc_astar_stats st;
    int rc = find(g, C(0, 0), C(19, 19), o, &p, &st);
    gc_path_free(&p);
    if (rc == GC_EINVAL)
        return GC_EINVAL;
    assert_true(rc == GC_OK || rc == GC_EUNREACHABLE);
    return (int)st.algo;
}

/* AUTO runs JPS exactly when every condition of gc_algo holds; forcing JPS
 * anywhere else is GC_EINVAL. */
static void
test_jps_choice(void **state)
{
    (void)state;
    gc_grid *g = grid_from(20, 20, map20); /* S cost 2 and R 0.5 present */
    gc_nav *nav;
    assert_int_equal(gc_nav_new(&nav, g), GC_OK);
    gc_astar_opts o;
    gc_astar_opts_init(&o);
    o.nav = nav;
    assert_int_equal(algo_of(g, &o), GC_ALGO_ASTAR);
    o.algo = GC_ALGO_JPS;
    assert_int_equal(algo_of(g, &o), GC_EINVAL);

    /* Equal costs: JPS, with nav still fresh (costs are no generation). */
    gc_grid_set_uniform(g);
    o.algo = GC_ALGO_AUTO;
    assert_int_equal(algo_of(g, &o), GC_ALGO_JPS);
    o.heuristic = GC_HEUR_OCTILE;
    assert_int_equal(algo_of(g, &o), GC_ALGO_JPS);
    o.algo = GC_ALGO_JPS;
    assert_int_equal(algo_of(g, &o), GC_ALGO_JPS);
    o.algo = GC_ALGO_ASTAR;
    assert_int_equal(algo_of(g, &o), GC_ALGO_ASTAR);
    /* Equal but not 1. */
    for (int t = 0; t < GC_CELL_NTYPES; t++)
        if (t != GC_CELL_OBSTACLE)
            assert_int_equal(gc_grid_set_cost(g, t, 2.5f), GC_OK);
    o.algo = GC_ALGO_AUTO;
    assert_int_equal(algo_of(g, &o), GC_ALGO_JPS);
    /* One present type dearer: A*. */
    assert_int_equal(gc_grid_set_cost(g, GC_CELL_HIGH, 2.6f), GC_OK);
    assert_int_equal(algo_of(g, &o), GC_ALGO_ASTAR);
    gc_grid_set_uniform(g);

    /* Each condition alone sends AUTO to A* and makes JPS invalid. */
    for (int k = 0; k < 9; k++) {
        gc_astar_opts_init(&o);
        o.nav = nav;
        switch (k) {
        case 0:
            o.diag = GC_DIAG_NEVER;
            break;
        case 1:
            o.diag = GC_DIAG_ONE_FREE;
            break;
        case 2:
            o.diag = GC_DIAG_ALWAYS;
            break;
        case 3:
            o.radius = 0.25f;
            break;
        case 4:
            o.weight = 1.5;
            break;
        case 5:
            o.heuristic = GC_HEUR_EUCLIDEAN;
            break;
        case 6:
            o.heuristic = GC_HEUR_ZERO;
            break;
        case 7:
            o.partial = true;
            break;
        default:
            o.nav = NULL;
            break;
        }
        assert_int_equal(algo_of(g, &o), GC_ALGO_ASTAR);
        o.algo = GC_ALGO_JPS;
        assert_int_equal(algo_of(g, &o), GC_EINVAL);
    }
    /* weight 1 is optimal: still JPS. */
    gc_astar_opts_init(&o);
    o.nav = nav;
    o.weight = 1.0;
    assert_int_equal(algo_of(g, &o), GC_ALGO_JPS);
    o.algo = (gc_algo)42;
    assert_int_equal(algo_of(g, &o), GC_EINVAL);
    gc_nav_free(nav);
    gc_grid_free(g);

    /* A type that is absent may cost anything: only walkable cells here,
     * and road (absent) at 0.5 does not stop JPS or weaken its answer. */
    g = grid_from(6, 3,
                  ".@...."
                  ".@.@.."
                  "...@..");
    assert_true(g->cost[GC_CELL_LOW] == 0.5f);
    assert_int_equal(gc_nav_new(&nav, g), GC_OK);
    gc_astar_opts_init(&o);
    o.nav = nav;
    gc_path p;
    gc_path_init(&p);
    gc_astar_stats st;
    assert_int_equal(find(g, C(0, 0), C(5, 0), &o, &p, &st), GC_OK);
    assert_int_equal(st.algo, GC_ALGO_JPS);
    /* Down, round the wall at (1,0..1), up to row 0 past (3,1..2): with
     * costs 1, as A* finds it. */
    gc_astar_stats sa;
    gc_path q;
    gc_path_init(&q);
    o.algo = GC_ALGO_ASTAR;
    assert_int_equal(find(g, C(0, 0), C(5, 0), &o, &q, &sa), GC_OK);
    assert_int_equal(sa.algo, GC_ALGO_ASTAR);
    assert_true(st.cost == sa.cost);
    assert_path(g, &p, C(0, 0), C(5, 0), GC_DIAG_NO_CORNER_CUT);
    gc_path_free(&p);
    gc_path_free(&q);
    gc_nav_free(nav);
    gc_grid_free(g);
}

/* JPS answers as A* does: same costs, full legal paths, same errors. */
static void
test_jps_answers(void **state)
{
    (void)state;
    gc_grid *g = uniform20();
    gc_nav *nav;
    assert_int_equal(gc_nav_new(&nav, g), GC_OK);
    assert_true(gc_nav_memory(nav) >= 12 * 400);
    gc_astar *a;
    assert_int_equal(gc_astar_new(&a, 20, 20), GC_OK);
    gc_path p, q;
    gc_path_init(&p);
    gc_path_init(&q);
    gc_astar_stats sj, sa;
    gc_astar_opts oj, oa;
    gc_astar_opts_init(&oj);
    oj.nav = nav;
    oj.algo = GC_ALGO_JPS;
    oa = oj;
    oa.algo = GC_ALGO_ASTAR;
    /* Every pair of a few cells, the same context alternating. */
    static const gc_cell cells[] = {{0, 0},  {19, 19}, {5, 6},  {14, 3},
                                    {3, 13}, {19, 0},  {0, 19}, {7, 16},
                                    {12, 7}, {18, 12}};
    size_t n = sizeof cells / sizeof cells[0];
    for (size_t i = 0; i < n; i++)
        for (size_t k = 0; k < n; k++) {
            gc_cell s = cells[i], t = cells[k];
            assert_int_equal(gc_astar_find(a, g, s, t, &oj, &p, &sj), GC_OK);
            assert_int_equal(gc_astar_find(a, g, s, t, &oa, &q, &sa), GC_OK);
            assert_int_equal(sj.algo, GC_ALGO_JPS);
            assert_int_equal(sa.algo, GC_ALGO_ASTAR);
            assert_close(sj.cost, sa.cost);
            assert_path(g, &p, s, t, GC_DIAG_NO_CORNER_CUT);
            assert_close(gc_path_cost(g, &p, GC_DIAG_NO_CORNER_CUT), sj.cost);
            assert_true(sj.expanded <= sa.expanded);
            assert_true(sa.scanned == 0);
            if (i != k)
                assert_true(sj.scanned > 0);
        }

    /* start == goal: one cell, cost 0. */
    assert_int_equal(gc_astar_find(a, g, C(5, 6), C(5, 6), &oj, &p, &sj),
                     GC_OK);
    assert_int_equal(p.len, 1);
    assert_true(sj.cost == 0.0);
    assert_int_equal(sj.algo, GC_ALGO_JPS);

    /* Blocked and outside as A*. */
    assert_int_equal(gc_astar_find(a, g, C(0, 0), C(6, 2), &oj, &p, &sj),
                     GC_EBLOCKED);
    assert_int_equal(gc_astar_find(a, g, C(0, 0), C(20, 2), &oj, &p, &sj),
                     GC_EOUTSIDE);

    /* A cap on jump points. */
    oj.max_expansions = 1;
    assert_int_equal(gc_astar_find(a, g, C(0, 0), C(19, 19), &oj, &p, &sj),
                     GC_ELIMIT);
    assert_int_equal(sj.expanded, 1);
    assert_int_equal(p.len, 0);
    oj.max_expansions = 0;

    /* Smoothing after JPS as after A*: never dearer than the raw path. */
    assert_int_equal(gc_astar_find(a, g, C(0, 0), C(19, 19), &oj, &p, &sj),
                     GC_OK);
    double raw = sj.cost;
    oj.smooth = true;
    assert_int_equal(gc_astar_find(a, g, C(0, 0), C(19, 19), &oj, &p, &sj),
                     GC_OK);
    assert_true(sj.cost <= raw * (1 + 1e-12));
    assert_true(p.len < 19 + 19);
    assert_close(gc_polyline_cost(g, nav, 0.0f, GC_DIAG_NO_CORNER_CUT, &p),
                 sj.cost);
    gc_astar_free(a);
    gc_nav_free(nav);
    gc_grid_free(g);

    /* Unreachable: another component, answered at once. */
    g = grid_from(7, 3,
                  "...@..."
                  "...@..."
                  "...@...");
    assert_int_equal(gc_nav_new(&nav, g), GC_OK);
    gc_astar_opts_init(&oj);
    oj.nav = nav;
    oj.algo = GC_ALGO_JPS;
    assert_int_equal(find(g, C(0, 0), C(6, 2), &oj, &p, &sj), GC_EUNREACHABLE);
    assert_int_equal(sj.expanded, 0);
    assert_int_equal(p.len, 0);
    assert_int_equal(sj.algo, GC_ALGO_JPS);
    /* Diagonally adjacent across a corner is no way either. */
    gc_nav_free(nav);
    gc_grid_free(g);
    g = grid_from(4, 4,
                  "..@."
                  "..@."
                  "@@.."
                  "....");
    assert_int_equal(gc_nav_new(&nav, g), GC_OK);
    oj.nav = nav;
    assert_int_equal(find(g, C(1, 1), C(2, 2), &oj, &p, &sj), GC_EUNREACHABLE);
    gc_nav_free(nav);
    gc_grid_free(g);
    gc_path_free(&p);
    gc_path_free(&q);
}

/* The trace of a JPS search records jump points: along an open row the
 * start jumps straight to the goal. */
static void
test_jps_trace(void **state)
{
    (void)state;
    gc_grid *g;
    assert_int_equal(gc_grid_new(&g, 70, 1), GC_OK);
    gc_nav *nav;
    assert_int_equal(gc_nav_new(&nav, g), GC_OK);
    gc_trace_event ev[64];
    gc_trace tr = {ev, 64, 99, true};
    gc_path p;
    gc_path_init(&p);
    gc_astar_stats st;
    gc_astar_opts o;
    gc_astar_opts_init(&o);
    o.trace = &tr;
    o.nav = nav;
    assert_int_equal(find(g, C(0, 0), C(69, 0), &o, &p, &st), GC_OK);
    assert_int_equal(st.algo, GC_ALGO_JPS);
    assert_int_equal(tr.len, 4);
    assert_false(tr.truncated);
    assert_int_equal(ev[0].kind, GC_TRACE_OPEN);
    assert_int_equal(ev[0].cell, 0);
    assert_int_equal(ev[1].kind, GC_TRACE_CLOSE);
    assert_int_equal(ev[1].cell, 0);
    assert_int_equal(ev[2].kind, GC_TRACE_OPEN);
    assert_int_equal(ev[2].cell, 69);
    assert_int_equal(ev[3].kind, GC_TRACE_CLOSE);
    assert_int_equal(ev[3].cell, 69);
    assert_int_equal(st.expanded, 1);
    assert_int_equal(st.opened, 2);
    /* 69 cells east, and the wall (off the map) that ends each jump west,
     * north and south; the diagonals fail at their first step. */
    assert_int_equal(st.scanned, 72);
    assert_int_equal(p.len, 70);
    for (int i = 0; i < 70; i++)
        assert_int_equal(p.cells[i].x, i);
    assert_close(st.cost, 69.0);
    gc_nav_free(nav);
    gc_grid_free(g);

    /* Around a pillar: every event is a jump point, opens match the count
     * of pushes and closes the expansions plus the goal. */
    g = uniform20();
    assert_int_equal(gc_nav_new(&nav, g), GC_OK);
    o.nav = nav;
    tr.len = 0;
    assert_int_equal(find(g, C(5, 3), C(10, 19), &o, &p, &st), GC_OK);
    assert_int_equal(st.algo, GC_ALGO_JPS);
    assert_false(tr.truncated);
    size_t opens = 0, closes = 0;
    for (size_t i = 0; i < tr.len; i++) {
        opens += ev[i].kind == GC_TRACE_OPEN;
        closes += ev[i].kind == GC_TRACE_CLOSE;
    }
    assert_int_equal(opens, st.opened);
    assert_int_equal(closes, st.expanded + 1);
    assert_int_equal(ev[tr.len - 1].kind, GC_TRACE_CLOSE);
    assert_int_equal(ev[tr.len - 1].cell, 19 * 20 + 10);
    gc_nav_free(nav);
    gc_grid_free(g);
    gc_path_free(&p);
}

/* With uniform costs A* skips the moves its parent covered and prices
 * steps without the cost table; that must change nothing but the work.
 * The same walls searched with nav (every passable type present costs 1)
 * and without it under a table whose absent types cost more (no shortcut
 * taken) give the same cells, costs and counts. */
static void
test_uniform_shortcuts(void **state)
{
    (void)state;
    char rows[401];
    for (int i = 0; i < 400; i++)
        rows[i] = map20[i] == '@' ? '@' : '.';
    rows[400] = '\0';
    gc_grid *g = grid_from(20, 20, rows);
    assert_int_equal(gc_grid_set_cost(g, GC_CELL_LOW, 1.0f), GC_OK);
    assert_true(g->cost[GC_CELL_HIGH] == 2.0f); /* absent */
    gc_nav *nav;
    assert_int_equal(gc_nav_new(&nav, g), GC_OK);
    gc_astar *a;
    assert_int_equal(gc_astar_new(&a, 20, 20), GC_OK);
    gc_path p, q;
    gc_path_init(&p);
    gc_path_init(&q);
    static const gc_cell ends[] = {{0, 0},  {19, 19}, {5, 6},  {14, 3},
                                   {3, 13}, {19, 0},  {0, 19}, {12, 7}};
    size_t n = sizeof ends / sizeof ends[0];
    for (int rule = 0; rule < 4; rule++)
        for (size_t i = 0; i < n; i++)
            for (size_t k = 0; k < n; k++) {
                gc_astar_opts o;
                gc_astar_opts_init(&o);
                o.algo = GC_ALGO_ASTAR;
                o.diag = (gc_diag_rule)rule;
                gc_astar_stats s1, s2;
                int r1 = gc_astar_find(a, g, ends[i], ends[k], &o, &p, &s1);
                o.nav = nav;
                int r2 = gc_astar_find(a, g, ends[i], ends[k], &o, &q, &s2);
                assert_int_equal(r1, r2);
                assert_true(s1.cost == s2.cost ||
                            (isinf(s1.cost) && isinf(s2.cost)));
                assert_int_equal(s1.expanded, s2.expanded);
                assert_int_equal(s1.opened, s2.opened);
                assert_int_equal(p.len, q.len);
                if (p.len > 0)
                    assert_memory_equal(p.cells, q.cells,
                                        p.len * sizeof *p.cells);
            }
    gc_astar_free(a);
    gc_nav_free(nav);
    gc_grid_free(g);
    gc_path_free(&p);
    gc_path_free(&q);
}

/* Searches straddling the stamp wrap-around give the same answers. */
static void
test_stamp_wrap(void **state)
{
    (void)state;
    gc_grid *g = grid_from(20, 20, map20);
    gc_astar *a, *fresh;
    assert_int_equal(gc_astar_new(&a, 20, 20), GC_OK);
    assert_int_equal(gc_astar_new(&fresh, 20, 20), GC_OK);
    gc_path p, q;
    gc_path_init(&p);
    gc_path_init(&q);
    gc_astar_stats st, sq;
    /* Jump point search too (its paths are read back through the
     * stamps), alternating with A*. */
    gc_grid_set_uniform(g);
    gc_nav *nav;
    assert_int_equal(gc_nav_new(&nav, g), GC_OK);
    gc_astar_opts o;
    gc_astar_opts_init(&o);
    o.nav = nav;
    gc_astar_debug_set_stamp(a, GC_ASTAR_STAMP_MAX - 5);
    for (int i = 0; i < 12; i++) {
        gc_cell s = C(i % 20, 0), t = C(19 - i, 19);
        o.algo = i % 2 ? GC_ALGO_JPS : GC_ALGO_ASTAR;
        assert_int_equal(gc_astar_find(a, g, s, t, &o, &p, &st), GC_OK);
        assert_int_equal(gc_astar_find(fresh, g, s, t, &o, &q, &sq), GC_OK);
        assert_int_equal(st.algo, o.algo);
        assert_true(st.cost == sq.cost);
        assert_int_equal(st.expanded, sq.expanded);
        assert_int_equal(p.len, q.len);
        assert_memory_equal(p.cells, q.cells, p.len * sizeof *p.cells);
    }
    gc_astar_free(a);
    gc_astar_free(fresh);
    gc_nav_free(nav);
    gc_grid_free(g);
    gc_path_free(&p);
    gc_path_free(&q);
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_names),
        cmocka_unit_test(test_rule_table),
        cmocka_unit_test(test_straight_and_diagonal),
        cmocka_unit_test(test_detour),
        cmocka_unit_test(test_corner_rules),
        cmocka_unit_test(test_weighted_costs),
        cmocka_unit_test(test_each_heuristic),
        cmocka_unit_test(test_weight),
        cmocka_unit_test(test_expansion_cap),
        cmocka_unit_test(test_partial_target),
        cmocka_unit_test(test_endpoints),
        cmocka_unit_test(test_nav_stale_and_components),
        cmocka_unit_test(test_clearance),
        cmocka_unit_test(test_radius),
        cmocka_unit_test(test_trace),
        cmocka_unit_test(test_segment_cost),
        cmocka_unit_test(test_smooth),
        cmocka_unit_test(test_path_helpers),
        cmocka_unit_test(test_memory),
        cmocka_unit_test(test_exact_beyond_float),
        cmocka_unit_test(test_stamp_wrap),
        cmocka_unit_test(test_uniform_shortcuts),
        cmocka_unit_test(test_jps_choice),
        cmocka_unit_test(test_jps_answers),
        cmocka_unit_test(test_jps_trace),
    };
    return cmocka_run_group_tests_name("astar", tests, NULL, NULL);
}
