/*
 * test_grid.c: cell types, costs, coordinates and the move rules.
 *
 * Move legality is checked against a table written out by hand for a small
 * map, for every diagonal rule, rather than against the rule code itself.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <gridcrowd/grid.h>

#include <float.h>
#include <math.h>
#include <string.h>

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
    gc_grid *g = grid_from(3, 3, "..."
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
    g = grid_from(3, 3, "..."
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
    gc_grid *g = grid_from(3, 3, ".SR"
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
        cmocka_unit_test(test_step_cost),
    };
    return cmocka_run_group_tests_name("grid", tests, NULL, NULL);
}
