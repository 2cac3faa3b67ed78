/*
 * test_grid.c: cell types, costs, coordinates and the move rules.
 *
 * Move legality is checked against a table written out by hand for a small
 * map, for every diagonal rule, rather than against the rule code itself.
 *
 * The line walk is checked three ways: against a brute-force model (for
 * each step along the longer axis, the nearest cell found by trying every
 * cell of the box) on every segment between two points of a 9x9 box;
 * against the cases issue 9 and the edit tests worked out by hand; and
 * against what the daemon's edit applier really paints for the same
 * segments, through a world of its own, so that "the viewer shows what the
 * daemon paints" is tested rather than assumed.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <gridcrowd/edits.h>
#include <gridcrowd/grid.h>
#include <gridcrowd/queue.h>
#include <gridcrowd/util.h>
#include <gridcrowd/world.h>

#include "grid_int.h" /* gc_ifloor */

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static gc_grid *
grid_from(int w, int h, const char *rows)
{
    gc_grid *g;
    assert_int_equal(gc_grid_new(&g, w, h), GC_OK);
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++) {
            int t = gc_cell_type_from_glyph(rows[y * w + x]);
            assert_true(t >= 0);
            assert_int_equal(gc_grid_set(g, x, y, t), GC_OK);
        }
    return g;
}

static void
test_types_and_names(void **state)
{
    (void)state;
    assert_int_equal(gc_cell_type_from_glyph('.'), GC_CELL_WALKABLE);
    assert_int_equal(gc_cell_type_from_glyph('G'), GC_CELL_WALKABLE);
    assert_int_equal(gc_cell_type_from_glyph('@'), GC_CELL_OBSTACLE);
    assert_int_equal(gc_cell_type_from_glyph('O'), GC_CELL_OBSTACLE);
    assert_int_equal(gc_cell_type_from_glyph('T'), GC_CELL_OBSTACLE);
    assert_int_equal(gc_cell_type_from_glyph('W'), GC_CELL_OBSTACLE);
    assert_int_equal(gc_cell_type_from_glyph('S'), GC_CELL_HIGH);
    assert_int_equal(gc_cell_type_from_glyph('R'), GC_CELL_LOW);
    assert_int_equal(gc_cell_type_from_glyph('q'), GC_EINVAL);
    assert_int_equal(gc_cell_type_parse("obstacle"), GC_CELL_OBSTACLE);
    assert_int_equal(gc_cell_type_parse("Wall"), GC_CELL_OBSTACLE);
    assert_int_equal(gc_cell_type_parse("low-cost"), GC_CELL_LOW);
    assert_int_equal(gc_cell_type_parse("R"), GC_CELL_LOW);
    assert_int_equal(gc_cell_type_parse("walk"), GC_EINVAL);
    assert_int_equal(gc_cell_type_parse(""), GC_EINVAL);
    assert_string_equal(gc_cell_type_name(GC_CELL_HIGH), "high");
    assert_null(gc_cell_type_name(7));
    assert_int_equal(gc_cell_type_glyph(GC_CELL_OBSTACLE), '@');
    assert_string_equal(gc_strerror(GC_EUNREACHABLE), "goal is unreachable");
    assert_string_equal(gc_err_name(GC_EPARSE), "GC_EPARSE");
    assert_string_equal(gc_strerror(-999), "unknown error");
}

static void
test_new_limits(void **state)
{
    (void)state;
    gc_grid *g = (gc_grid *)1;
    assert_int_equal(gc_grid_new(&g, 0, 5), GC_EINVAL);
    assert_null(g);
    assert_int_equal(gc_grid_new(&g, 5, -1), GC_EINVAL);
    assert_int_equal(gc_grid_new(&g, GC_GRID_MAX_SIDE + 1, 1), GC_ETOOBIG);
    assert_int_equal(gc_grid_new(&g, 65536, 65536), GC_ETOOBIG);
    assert_int_equal(gc_grid_new(&g, 3, 2), GC_OK);
    assert_int_equal(g->width, 3);
    assert_int_equal(g->height, 2);
    for (int i = 0; i < 6; i++)
        assert_int_equal(g->cells[i], GC_CELL_WALKABLE);
    gc_grid_free(g);
}

/* The one size rule that grids, maps, searches and worlds share. */
static void
test_check_size(void **state)
{
    (void)state;
    assert_int_equal(gc_grid_check_size(1, 1), GC_OK);
    assert_int_equal(gc_grid_check_size(GC_GRID_MAX_SIDE, 1), GC_OK);
    assert_int_equal(gc_grid_check_size(1, GC_GRID_MAX_SIDE), GC_OK);
    assert_int_equal(gc_grid_check_size(16384, 16384), GC_OK); /* 2^28 */
    assert_int_equal(gc_grid_check_size(16384, 16385), GC_ETOOBIG);
    assert_int_equal(gc_grid_check_size(GC_GRID_MAX_SIDE + 1, 1), GC_ETOOBIG);
    assert_int_equal(gc_grid_check_size(1, GC_GRID_MAX_SIDE + 1), GC_ETOOBIG);
    assert_int_equal(gc_grid_check_size(65536, 65536), GC_ETOOBIG);
    assert_int_equal(gc_grid_check_size(INT64_MAX, INT64_MAX), GC_ETOOBIG);
    assert_int_equal(gc_grid_check_size(0, 5), GC_EINVAL);
    assert_int_equal(gc_grid_check_size(5, -1), GC_EINVAL);
    assert_int_equal(gc_grid_check_size(INT64_MIN, 5), GC_EINVAL);
}

/* The one passable-cost rule: finite and > 0. */
static void
test_cost_passable(void **state)
{
    (void)state;
    assert_true(gc_cost_passable(1.0f));
    assert_true(gc_cost_passable(0.5f));
    assert_true(gc_cost_passable(FLT_MAX));
    assert_true(gc_cost_passable(FLT_TRUE_MIN));
    assert_false(gc_cost_passable(0.0f));
    assert_false(gc_cost_passable(-0.0f));
    assert_false(gc_cost_passable(-1.0f));
    assert_false(gc_cost_passable(INFINITY));
    assert_false(gc_cost_passable(-INFINITY));
    assert_false(gc_cost_passable(NAN));
    for (int t = 0; t < GC_CELL_NTYPES; t++)
        assert_int_equal(gc_cost_passable(gc_cell_default_cost(t)),
                         t != GC_CELL_OBSTACLE);
}

static void
test_costs(void **state)
{
    (void)state;
    gc_grid *g = grid_from(4, 1, ".@SR");
    assert_true(gc_grid_cell_cost(g, 0, 0) == 1.0f);
    assert_true(isinf(gc_grid_cell_cost(g, 1, 0)));
    assert_true(gc_grid_cell_cost(g, 2, 0) == 2.0f);
    assert_true(gc_grid_cell_cost(g, 3, 0) == 0.5f);
    assert_true(isinf(gc_grid_cell_cost(g, 4, 0)));
    assert_true(isinf(gc_grid_cell_cost(g, -1, 0)));
    assert_true(gc_grid_min_cost(g) == 0.5f);
    assert_int_equal(gc_grid_set_cost(g, GC_CELL_OBSTACLE, 1.0f), GC_ERANGE);
    assert_int_equal(gc_grid_set_cost(g, GC_CELL_HIGH, 0.0f), GC_ERANGE);
    assert_int_equal(gc_grid_set_cost(g, GC_CELL_HIGH, NAN), GC_ERANGE);
    assert_int_equal(gc_grid_set_cost(g, 9, 1.0f), GC_EINVAL);
    assert_int_equal(gc_grid_set_cost(g, GC_CELL_HIGH, 5.0f), GC_OK);
    assert_true(gc_grid_cell_cost(g, 2, 0) == 5.0f);
    gc_grid_set_uniform(g);
    assert_true(gc_grid_cell_cost(g, 2, 0) == 1.0f);
    assert_true(gc_grid_cell_cost(g, 3, 0) == 1.0f);
    assert_false(gc_grid_passable(g, 1, 0));
    assert_true(gc_grid_min_cost(g) == 1.0f);
    /* A byte that is no known type (a corrupt shared object) is a wall. */
    g->cells[0] = 200;
    assert_false(gc_grid_passable(g, 0, 0));
    gc_grid_free(g);
}

static void
test_set_generation(void **state)
{
    (void)state;
    gc_grid *g = grid_from(2, 2, "....");
    uint64_t gen = g->generation;
    assert_int_equal(gc_grid_set(g, 1, 1, GC_CELL_OBSTACLE), GC_OK);
    assert_true(g->generation == gen + 1);
    assert_int_equal(gc_grid_set(g, 1, 1, GC_CELL_OBSTACLE), GC_OK);
    assert_true(g->generation == gen + 1); /* no change, no bump */
    assert_int_equal(gc_grid_set(g, 2, 0, GC_CELL_OBSTACLE), GC_EOUTSIDE);
    assert_int_equal(gc_grid_set(g, 0, 0, 4), GC_EINVAL);
    assert_int_equal(gc_grid_get(g, 1, 1), GC_CELL_OBSTACLE);
    assert_int_equal(gc_grid_get(g, -1, 1), GC_CELL_OBSTACLE);

    gc_grid *c;
    assert_int_equal(gc_grid_clone(&c, g), GC_OK);
    assert_true(gc_grid_equal(g, c));
    gc_grid_set(c, 0, 0, GC_CELL_LOW);
    assert_false(gc_grid_equal(g, c));
    gc_grid_free(c);

    uint8_t cells[4] = {0, 1, 2, 3};
    gc_grid *w;
    assert_int_equal(gc_grid_wrap(&w, 2, 2, cells), GC_OK);
    assert_int_equal(gc_grid_get(w, 1, 1), GC_CELL_LOW);
    gc_grid_set(w, 0, 0, GC_CELL_HIGH);
    assert_int_equal(cells[0], GC_CELL_HIGH); /* wraps, does not copy */
    gc_grid_free(w);
    gc_grid_free(g);
}

static void
test_world_coords(void **state)
{
    (void)state;
    gc_grid *g = grid_from(4, 3, "............");
    g->cell_size = 2.0f;
    gc_cell c = {3, 1};
    gc_vec2 p = gc_grid_cell_center(g, c);
    assert_true(p.x == 7.0f && p.y == 3.0f);
    gc_cell back = gc_grid_world_to_cell(g, p);
    assert_int_equal(back.x, 3);
    assert_int_equal(back.y, 1);
    gc_vec2 edge = {2.0f, 4.0f}; /* border: belongs to the cell right/below */
    back = gc_grid_world_to_cell(g, edge);
    assert_int_equal(back.x, 1);
    assert_int_equal(back.y, 2);
    gc_vec2 neg = {-0.1f, 0.0f};
    back = gc_grid_world_to_cell(g, neg);
    assert_int_equal(back.x, -1);
    assert_false(gc_grid_in_bounds(g, back.x, back.y));
    gc_vec2 huge = {1e30f, -1e30f};
    back = gc_grid_world_to_cell(g, huge);
    assert_false(gc_grid_in_bounds(g, back.x, back.y));
    gc_grid_free(g);
}

/* gc_ifloor (src/grid_int.h) against floor(), clamped to int32_t: both
 * signs, exact integers and a hair either side, -0, the range's ends,
 * beyond them, infinities and not a number (the least). */
static int32_t
ifloor_ref(double q)
{
    if (isnan(q))
        return INT32_MIN;
    double f = floor(q);
    if (f <= -2147483648.0)
        return INT32_MIN;
    if (f >= 2147483520.0)
        return 2147483520;
    return (int32_t)f;
}

static void
test_ifloor(void **state)
{
    (void)state;
    const double fixed[] = {
        0.0,           -0.0,         0.5,           -0.5,
        1.0,           -1.0,         -1e-300,       1e-300,
        -2.0000001,    -1.9999999,   2147483519.0,  2147483519.9,
        2147483520.0,  2147483647.0, -2147483647.5, -2147483648.0,
        -2147483649.0, 1e30,         -1e30,         INFINITY,
        -INFINITY,     NAN};
    for (size_t k = 0; k < sizeof fixed / sizeof fixed[0]; k++)
        if (gc_ifloor(fixed[k]) != ifloor_ref(fixed[k]))
            fail_msg("gc_ifloor(%a) = %d, not %d", fixed[k],
                     gc_ifloor(fixed[k]), ifloor_ref(fixed[k]));
    unsigned seed = 7u;
    for (int k = 0; k < 200000; k++) {
        seed = seed * 1664525u + 1013904223u;
        double q = ((double)(int32_t)seed) / (double)(1u << (seed % 24));
        float f = (float)q; /* the callers' floats */
        for (int w = 0; w < 2; w++) {
            double x = w ? (double)f : q;
            if (gc_ifloor(x) != ifloor_ref(x))
                fail_msg("gc_ifloor(%a) = %d, not %d", x, gc_ifloor(x),
                         ifloor_ref(x));
        }
    }
}

/* Legal-move masks from the centre of a 3x3 map, by hand.  Bits follow the
 * grid.h order E S W N SE SW NW NE. */
static unsigned
mask_of(const gc_grid *g, gc_diag_rule rule)
{
    gc_step s[8];
    int n = gc_grid_neighbors(g, 1, 1, rule, s);
    static const int dx[8] = {1, 0, -1, 0, 1, -1, -1, 1};
    static const int dy[8] = {0, 1, 0, -1, 1, 1, -1, -1};
    unsigned m = 0;
    for (int i = 0; i < n; i++)
        for (int d = 0; d < 8; d++)
            if (s[i].to.x == 1 + dx[d] && s[i].to.y == 1 + dy[d])
                m |= 1u << d;
    return m;
}

static void
test_neighbors_rules(void **state)
{
    (void)state;
    /* Obstacle east of the centre. */
    gc_grid *g = grid_from(3, 3,
                           "..."
                           "..@"
                           "...");
    /* E blocked: orthogonals S W N; SE needs E,S; NE needs E,N. */
    assert_int_equal(mask_of(g, GC_DIAG_NEVER), 0x2u | 0x4u | 0x8u);
    assert_int_equal(mask_of(g, GC_DIAG_NO_CORNER_CUT),
                     0x2u | 0x4u | 0x8u | (1u << 5) | (1u << 6));
    assert_int_equal(mask_of(g, GC_DIAG_ONE_FREE), 0xEu | 0xF0u);
    assert_int_equal(mask_of(g, GC_DIAG_ALWAYS), 0xEu | 0xF0u);
    gc_grid_free(g);

    /* E and S blocked: SE squeezes between two walls. */
    g = grid_from(3, 3,
                  "..."
                  "..@"
                  ".@.");
    assert_int_equal(mask_of(g, GC_DIAG_NO_CORNER_CUT),
                     0x4u | 0x8u | (1u << 6));
    assert_int_equal(mask_of(g, GC_DIAG_ONE_FREE),
                     0x4u | 0x8u | (1u << 5) | (1u << 6) | (1u << 7));
    assert_int_equal(mask_of(g, GC_DIAG_ALWAYS), 0x4u | 0x8u | 0xF0u);
    gc_grid_free(g);

    /* Corner of the map: nothing outside is ever a neighbour. */
    g = grid_from(2, 2, "....");
    gc_step s[8];
    assert_int_equal(gc_grid_neighbors(g, 0, 0, GC_DIAG_ALWAYS, s), 3);
    assert_int_equal(gc_grid_neighbors(g, 5, 0, GC_DIAG_ALWAYS, s), 0);
    gc_grid_free(g);
}

static void
test_step_cost(void **state)
{
    (void)state;
    gc_grid *g = grid_from(3, 3,
                           ".SR"
                           "..."
                           "@..");
    gc_cell a = {1, 1};
    gc_cell n = {1, 0}, ne = {2, 0}, nw = {0, 0}, sw = {0, 2}, far = {3, 3};
    assert_true(gc_grid_step_cost(g, a, n, GC_DIAG_NO_CORNER_CUT) == 2.0f);
    assert_true(fabsf(gc_grid_step_cost(g, a, ne, GC_DIAG_NO_CORNER_CUT) -
                      0.5f * 1.41421356f) < 1e-6f);
    assert_true(fabsf(gc_grid_step_cost(g, a, nw, GC_DIAG_NO_CORNER_CUT) -
                      1.41421356f) < 1e-6f);
    assert_true(isinf(gc_grid_step_cost(g, a, sw, GC_DIAG_ALWAYS)));
    assert_true(isinf(gc_grid_step_cost(g, a, nw, GC_DIAG_NEVER)));
    assert_true(isinf(gc_grid_step_cost(g, a, far, GC_DIAG_ALWAYS)));
    assert_true(isinf(gc_grid_step_cost(g, a, a, GC_DIAG_ALWAYS)));

    gc_step s[8];
    int k = gc_grid_neighbors(g, 1, 1, GC_DIAG_NO_CORNER_CUT, s);
    /* E S W N all passable; SE SW(blocked target) NW NE. */
    assert_int_equal(k, 7);
    assert_int_equal(s[0].to.x, 2); /* orthogonal ones first, E first */
    assert_int_equal(s[0].to.y, 1);
    assert_true(s[0].cost == 1.0f);
    gc_grid_free(g);
}

/* ---- The line walk ------------------------------------------------------- */

#define BOX 9 /* every segment between two points of a BOX x BOX box */
#define LINE_MAX_CELLS 64

/* The walk's cells, in order. */
static size_t
walk(gc_cell a, gc_cell b, gc_cell *out, size_t cap)
{
    gc_line_walk lw;
    gc_cell c;
    size_t n = 0;
    gc_line_walk_init(&lw, a, b);
    while (gc_line_walk_next(&lw, &c)) {
        assert_true(n < cap);
        out[n++] = c;
    }
    /* Done stays done. */
    assert_false(gc_line_walk_next(&lw, &c));
    return n;
}

/*
 * The model, by brute force and from the rule in grid.h only: from the
 * canonical start, one cell per step along the longer axis; on each step
 * the cell of the box nearest the segment between the centres, measured
 * across the longer axis, found by trying every candidate; on a tie the
 * one nearer the canonical end.  Distances are kept as integers scaled by
 * the longer side, so the comparison is exact.
 */
static size_t
model(gc_cell a, gc_cell b, gc_cell *out)
{
    if (a.x > b.x || (a.x == b.x && a.y > b.y)) {
        gc_cell t = a;
        a = b;
        b = t;
    }
    long dx = b.x - a.x, dy = b.y - a.y; /* dx >= 0 */
    bool xmajor = dx >= labs(dy);
    long steps = xmajor ? dx : labs(dy), n = 0;
    for (long k = 0; k <= steps; k++) {
        long best = -1, best_d = 0;
        for (long v = 0; v < BOX; v++) {
            /* x-major: cell (a.x + k, v); y-major: (v, a.y + k * sign). */
            long d, to_end;
            if (xmajor) {
                d = labs((v - a.y) * dx - k * dy);
                to_end = labs(v - b.y);
            } else {
                long y = dy > 0 ? k : -k;
                d = labs((v - a.x) * dy - y * dx);
                to_end = labs(v - b.x);
            }
            long best_end = best < 0 ? 0 : labs(best - (xmajor ? b.y : b.x));
            if (best < 0 || d < best_d || (d == best_d && to_end < best_end)) {
                best = v;
                best_d = d;
            }
        }
        out[n++] = xmajor ? (gc_cell){(int32_t)(a.x + k), (int32_t)best}
                          : (gc_cell){(int32_t)best,
                                      (int32_t)(a.y + (dy > 0 ? k : -k))};
    }
    return (size_t)n;
}

static void
assert_cells_equal(const gc_cell *got, size_t ngot, const gc_cell *want,
                   size_t nwant, gc_cell a, gc_cell b)
{
    if (ngot != nwant)
        fail_msg("(%d,%d)-(%d,%d): %zu cells, expected %zu", a.x, a.y, b.x, b.y,
                 ngot, nwant);
    for (size_t i = 0; i < ngot; i++)
        if (got[i].x != want[i].x || got[i].y != want[i].y)
            fail_msg("(%d,%d)-(%d,%d): cell %zu is (%d,%d), expected (%d,%d)",
                     a.x, a.y, b.x, b.y, i, got[i].x, got[i].y, want[i].x,
                     want[i].y);
}

static void
test_line_walk_model(void **state)
{
    (void)state;
    gc_cell got[LINE_MAX_CELLS], back[LINE_MAX_CELLS], want[LINE_MAX_CELLS];
    for (int i = 0; i < BOX * BOX; i++)
        for (int j = 0; j < BOX * BOX; j++) {
            gc_cell a = {i % BOX, i / BOX}, b = {j % BOX, j / BOX};
            size_t n = walk(a, b, got, LINE_MAX_CELLS);
            assert_cells_equal(got, n, want, model(a, b, want), a, b);
            /* max(|dx|, |dy|) + 1 cells. */
            int dx = abs(a.x - b.x), dy = abs(a.y - b.y);
            assert_int_equal(n, (size_t)(dx > dy ? dx : dy) + 1);
            /* Both ends, from the canonical start. */
            bool a_first = a.x < b.x || (a.x == b.x && a.y <= b.y);
            gc_cell s = a_first ? a : b, e = a_first ? b : a;
            assert_int_equal(got[0].x, s.x);
            assert_int_equal(got[0].y, s.y);
            assert_int_equal(got[n - 1].x, e.x);
            assert_int_equal(got[n - 1].y, e.y);
            /* 8-connected: each step moves to one of the 8 neighbours. */
            for (size_t k = 1; k < n; k++) {
                int sx = got[k].x - got[k - 1].x, sy = got[k].y - got[k - 1].y;
                assert_true(abs(sx) <= 1 && abs(sy) <= 1 && (sx || sy));
            }
            /* b-a: the same cells in the same order. */
            assert_cells_equal(back, walk(b, a, back, LINE_MAX_CELLS), got, n,
                               b, a);
        }
}

static void
test_line_walk_by_hand(void **state)
{
    (void)state;
    gc_cell got[LINE_MAX_CELLS];
    /* Issue 9: a stroke from (2,1) to (0,0) is painted (0,0) (1,1) (2,1),
     * whichever way it is drawn; the viewer used to preview (1,0). */
    const gc_cell issue9[] = {{0, 0}, {1, 1}, {2, 1}};
    assert_cells_equal(got, walk((gc_cell){2, 1}, (gc_cell){0, 0}, got, 8),
                       issue9, 3, (gc_cell){2, 1}, (gc_cell){0, 0});
    assert_cells_equal(got, walk((gc_cell){0, 0}, (gc_cell){2, 1}, got, 8),
                       issue9, 3, (gc_cell){0, 0}, (gc_cell){2, 1});
    /* The edit tests' example: (5,2)-(0,0). */
    const gc_cell hand[] = {{0, 0}, {1, 0}, {2, 1}, {3, 1}, {4, 2}, {5, 2}};
    assert_cells_equal(got, walk((gc_cell){5, 2}, (gc_cell){0, 0}, got, 8),
                       hand, 6, (gc_cell){5, 2}, (gc_cell){0, 0});
    /* A vertical line runs down from the smaller y. */
    const gc_cell vert[] = {{3, -1}, {3, 0}, {3, 1}};
    assert_cells_equal(got, walk((gc_cell){3, 1}, (gc_cell){3, -1}, got, 8),
                       vert, 3, (gc_cell){3, 1}, (gc_cell){3, -1});
    /* One cell. */
    const gc_cell one[] = {{-7, 9}};
    assert_cells_equal(got, walk((gc_cell){-7, 9}, (gc_cell){-7, 9}, got, 8),
                       one, 1, (gc_cell){-7, 9}, (gc_cell){-7, 9});
}

/* The far corners of int32: no overflow, and the walk still ends at b. */
static void
test_line_walk_extremes(void **state)
{
    (void)state;
    gc_line_walk lw;
    gc_cell c;
    gc_line_walk_init(&lw, (gc_cell){INT32_MAX, INT32_MAX},
                      (gc_cell){INT32_MIN, INT32_MIN});
    assert_true(gc_line_walk_next(&lw, &c));
    assert_int_equal(c.x, INT32_MIN);
    assert_int_equal(c.y, INT32_MIN);
    assert_true(gc_line_walk_next(&lw, &c));
    assert_int_equal(c.x, INT32_MIN + 1);
    assert_int_equal(c.y, INT32_MIN + 1);

    /* 2^32 - 1 steps east and one down: dx - dy needs 64 bits. */
    gc_line_walk_init(&lw, (gc_cell){INT32_MIN, 0}, (gc_cell){INT32_MAX, 1});
    assert_true(gc_line_walk_next(&lw, &c));
    assert_int_equal(c.y, 0);
    gc_line_walk_init(&lw, (gc_cell){-1000, 5}, (gc_cell){1000, 5});
    size_t n = 0;
    while (gc_line_walk_next(&lw, &c)) {
        assert_int_equal(c.x, -1000 + (int32_t)n);
        assert_int_equal(c.y, 5);
        n++;
    }
    assert_int_equal(n, 2001);
}

/*
 * The daemon's painting: every segment of the box pushed as a LINE edit
 * and drained by the edit applier the daemon uses, into a world of this
 * test's own; the cells changed must be exactly the walk's.
 */
static void
test_line_walk_is_daemon_painting(void **state)
{
    (void)state;
    char name[64];
    snprintf(name, sizeof name, "gc-test-grid-%ld", (long)getpid());
    gc_world_config cfg = {.name = name,
                           .width = BOX,
                           .height = BOX,
                           .agent_capacity = 1,
                           .edits_capacity = 16};
    gc_world *owner, *tool;
    gc_grid *grid;
    gc_edit_applier *ap;
    gc_error err;
    if (gc_world_create(&owner, &cfg, NULL, &err) != GC_OK)
        fail_msg("create: %s", err.msg);
    if (gc_world_attach(&tool, name, GC_WORLD_ATTACH_QUEUE, &err) != GC_OK) {
        gc_world_destroy(owner);
        fail_msg("attach: %s", err.msg);
    }
    assert_int_equal(gc_world_grid(owner, &grid), GC_OK);
    assert_int_equal(gc_edit_applier_new(&ap, NULL), GC_OK);

    uint8_t got[BOX * BOX], want[BOX * BOX];
    gc_cell cells[LINE_MAX_CELLS];
    bool same = true;
    for (int i = 0; i < BOX * BOX && same; i++)
        for (int j = 0; j < BOX * BOX && same; j++) {
            gc_cell a = {i % BOX, i / BOX}, b = {j % BOX, j / BOX};
            gc_edit clear = {.op = GC_EDIT_RECT,
                             .type = GC_CELL_WALKABLE,
                             .x1 = BOX - 1,
                             .y1 = BOX - 1};
            gc_edit line = {.op = GC_EDIT_LINE,
                            .type = GC_CELL_OBSTACLE,
                            .x0 = a.x,
                            .y0 = a.y,
                            .x1 = b.x,
                            .y1 = b.y};
            assert_int_equal(
                gc_queue_push(gc_world_queue(tool), &clear, 1000000000u),
                GC_OK);
            assert_int_equal(
                gc_queue_push(gc_world_queue(tool), &line, 1000000000u), GC_OK);
            uint64_t now = gc_clock_ns();
            assert_int_equal(
                gc_edit_applier_drain(ap, owner, grid, now, NULL, NULL), GC_OK);
            assert_int_equal(gc_world_read_cells(tool, got, NULL), GC_OK);
            memset(want, GC_CELL_WALKABLE, sizeof want);
            size_t n = walk(a, b, cells, LINE_MAX_CELLS);
            for (size_t k = 0; k < n; k++)
                want[cells[k].y * BOX + cells[k].x] = GC_CELL_OBSTACLE;
            same = memcmp(got, want, sizeof want) == 0;
            if (!same)
                print_error("(%d,%d)-(%d,%d): the daemon painted other cells\n",
                            a.x, a.y, b.x, b.y);
        }
    gc_edit_counts counts;
    gc_edit_applier_counts(ap, &counts);
    gc_edit_applier_free(ap);
    gc_grid_free(grid);
    gc_world_close(tool);
    gc_world_destroy(owner);
    assert_true(same);
    assert_int_equal(counts.rejected, 0);
    assert_int_equal(counts.accepted, 2u * BOX * BOX * BOX * BOX);
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_types_and_names),
        cmocka_unit_test(test_new_limits),
        cmocka_unit_test(test_check_size),
        cmocka_unit_test(test_cost_passable),
        cmocka_unit_test(test_costs),
        cmocka_unit_test(test_set_generation),
        cmocka_unit_test(test_world_coords),
        cmocka_unit_test(test_neighbors_rules),
        cmocka_unit_test(test_ifloor),
        cmocka_unit_test(test_step_cost),
        cmocka_unit_test(test_line_walk_model),
        cmocka_unit_test(test_line_walk_by_hand),
        cmocka_unit_test(test_line_walk_extremes),
        cmocka_unit_test(test_line_walk_is_daemon_painting),
    };
    return cmocka_run_group_tests_name("grid", tests, NULL, NULL);
}
