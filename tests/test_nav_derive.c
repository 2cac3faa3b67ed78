/*
 * test_nav_derive.c: navigation data derived from a grid's for the same
 * grid with cells blocked (gc_nav_derive, src/nav-derive.c; the sim's jam
 * grid uses it).
 *
 * The reference is gc_nav_new on the blocked grid, from scratch.  On
 * random grids with random blocked sets (single cells, blobs, lines that
 * cut the map, cells on its border, cells listed twice or blocked
 * already) the derived data must have the same bitsets, neighbour masks,
 * types present and generation, and component labels that partition the
 * cells the same way under both connectivities.  Both of its ways to the
 * labels (repaired, relabelled) must be taken many times, so a check that
 * always gives up, or never does, fails here.  Then: a cut passage is
 * relabelled and a blob in a room is not; searches on the derived data
 * find what they find on fresh data; the errors; clearance comes back
 * with gc_nav_update.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <gridcrowd/astar.h>

#include "astar_int.h"
#include "test_rng.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* a and b label the same cells 0 and join the same cells (a bijection
 * between their labels). */
static void
assert_same_partition(const uint32_t *a, const uint32_t *b, size_t cells)
{
    uint32_t top = 0;
    for (size_t k = 0; k < cells; k++) {
        top = a[k] > top ? a[k] : top;
        top = b[k] > top ? b[k] : top;
    }
    uint32_t *ab = calloc((size_t)top + 1, sizeof *ab);
    uint32_t *ba = calloc((size_t)top + 1, sizeof *ba);
    assert_non_null(ab);
    assert_non_null(ba);
    for (size_t k = 0; k < cells; k++) {
        assert_int_equal(a[k] == 0, b[k] == 0);
        if (a[k] == 0)
            continue;
        if (ab[a[k]] == 0)
            ab[a[k]] = b[k];
        if (ba[b[k]] == 0)
            ba[b[k]] = a[k];
        assert_int_equal(ab[a[k]], b[k]);
        assert_int_equal(ba[b[k]], a[k]);
    }
    free(ab);
    free(ba);
}

/* Derived data d for g agrees with fresh data f for g. */
static void
assert_agrees(const gc_nav *d, const gc_nav *f, const gc_grid *g)
{
    size_t cells = (size_t)g->width * (size_t)g->height;
    assert_true(gc_nav_fresh(d, g));
    assert_null(d->clear);
    assert_null(d->clear4);
    assert_int_equal(d->present, f->present);
    assert_memory_equal(d->open8, f->open8, cells);
    assert_memory_equal(d->rows, f->rows,
                        ((size_t)g->height + 2) * f->row_words * 8);
    assert_memory_equal(d->cols, f->cols,
                        ((size_t)g->width + 2) * f->col_words * 8);
    assert_same_partition(d->comp4, f->comp4, cells);
    assert_same_partition(d->comp8, f->comp8, cells);
}

/* Add cell (x, y) to the list when on the map (duplicates allowed). */
static void
add(const gc_grid *g, uint32_t *list, size_t *n, int x, int y)
{
    if (x >= 0 && y >= 0 && x < g->width && y < g->height)
        list[(*n)++] = (uint32_t)(y * g->width + x);
}

/* A random set of cells to block: the kinds in the header. */
static size_t
random_blocked(const gc_grid *g, uint32_t *list, size_t cap)
{
    size_t n = 0;
    int w = g->width, h = g->height, kinds = 1 + rnd(3);
    for (int k = 0; k < kinds && n + 64 <= cap; k++)
        switch (rnd(5)) {
        case 0: /* scattered cells */
            for (int i = rnd(8); i >= 0; i--)
                add(g, list, &n, rnd(w), rnd(h));
            break;
        case 1: { /* a blob */
            int x = rnd(w), y = rnd(h);
            for (int i = 2 + rnd(20); i > 0 && n < cap; i--) {
                add(g, list, &n, x, y);
                x += rnd(3) - 1;
                y += rnd(3) - 1;
            }
            break;
        }
        case 2: /* a line across the map: often a cut */
            if (rnd(2)) {
                int x = rnd(w);
                for (int y = 0; y < h && n < cap; y++)
                    add(g, list, &n, x + (rnd(4) == 0 ? rnd(3) - 1 : 0), y);
            } else {
                int y = rnd(h);
                for (int x = 0; x < w && n < cap; x++)
                    add(g, list, &n, x, y);
            }
            break;
        case 3: /* on the border */
            add(g, list, &n, rnd(w), rnd(2) ? 0 : h - 1);
            add(g, list, &n, rnd(2) ? 0 : w - 1, rnd(h));
            break;
        default: /* listed twice */
            if (n > 0)
                list[n] = list[rnd((int)n)], n++;
            break;
        }
    return n;
}

/* g2 := g with list's cells obstacles. */
static gc_grid *
blocked_copy(const gc_grid *g, const uint32_t *list, size_t n)
{
    gc_grid *g2;
    assert_int_equal(gc_grid_clone(&g2, g), GC_OK);
    for (size_t i = 0; i < n; i++)
        assert_int_equal(gc_grid_set(g2,
                                     (int32_t)(list[i] % (uint32_t)g->width),
                                     (int32_t)(list[i] / (uint32_t)g->width),
                                     GC_CELL_OBSTACLE),
                         GC_OK);
    return g2;
}

static void
test_derive_against_fresh(void **state)
{
    (void)state;
    enum { SIDE = 40, CAP = 4 * SIDE * SIDE };
    uint32_t *list = malloc(CAP * sizeof *list);
    assert_non_null(list);
    int repaired = 0, relabelled = 0;
    gc_nav *d = NULL; /* reused across grids of one size */
    int dw = 0, dh = 0;
    for (int k = 0; k < 3000; k++) {
        int w = 1 + rnd(SIDE), h = 1 + rnd(SIDE);
        gc_grid *g;
        assert_int_equal(gc_grid_new(&g, w, h), GC_OK);
        random_grid(g);
        gc_nav *base, *fresh;
        assert_int_equal(gc_nav_new(&base, g), GC_OK);
        size_t n = random_blocked(g, list, CAP);
        gc_grid *g2 = blocked_copy(g, list, n);
        assert_int_equal(gc_nav_new(&fresh, g2), GC_OK);
        if (d != NULL && (w != dw || h != dh)) {
            gc_nav_free(d);
            d = NULL;
        }
        bool fresh_labels = false;
        assert_int_equal(gc_nav_derive(&d, base, g, g2, list, n, &fresh_labels),
                         GC_OK);
        dw = w;
        dh = h;
        assert_agrees(d, fresh, g2);
        (fresh_labels ? &relabelled : &repaired)[0]++;
        gc_nav_free(fresh);
        gc_nav_free(base);
        gc_grid_free(g2);
        gc_grid_free(g);
    }
    gc_nav_free(d);
    free(list);
    print_message("derived 3000: %d repaired, %d relabelled\n", repaired,
                  relabelled);
    assert_true(repaired > 600);
    assert_true(relabelled > 600);
}

/* Two rooms joined by a passage one cell wide at (4, 2). */
static gc_grid *
two_rooms(void)
{
    static const char *rows[] = {
        "...@...", "...@...", ".......", "...@...", "...@...",
    };
    gc_grid *g;
    assert_int_equal(gc_grid_new(&g, 7, 5), GC_OK);
    for (int y = 0; y < 5; y++)
        for (int x = 0; x < 7; x++)
            gc_grid_set(g, x, y,
                        rows[y][x] == '@' ? GC_CELL_OBSTACLE
                                          : GC_CELL_WALKABLE);
    return g;
}

static void
test_cut_and_blob(void **state)
{
    (void)state;
    gc_grid *g = two_rooms();
    gc_nav *base, *d = NULL;
    assert_int_equal(gc_nav_new(&base, g), GC_OK);
    gc_cell left = {0, 0}, right = {6, 4};
    assert_int_equal(gc_nav_component(base, GC_DIAG_NEVER, left),
                     gc_nav_component(base, GC_DIAG_NEVER, right));

    /* A blob in the left room splits nothing: repaired. */
    uint32_t blob[] = {1 * 7 + 1, 2 * 7 + 1};
    gc_grid *g2 = blocked_copy(g, blob, 2);
    bool fresh = true;
    assert_int_equal(gc_nav_derive(&d, base, g, g2, blob, 2, &fresh), GC_OK);
    assert_false(fresh);
    assert_int_equal(gc_nav_component(d, GC_DIAG_NEVER, left),
                     gc_nav_component(d, GC_DIAG_NEVER, right));
    assert_int_equal(gc_nav_component(d, GC_DIAG_ALWAYS, (gc_cell){1, 1}), 0);

    /* The passage blocked: relabelled, the rooms apart. */
    uint32_t cut[] = {2 * 7 + 3};
    gc_grid *g3 = blocked_copy(g, cut, 1);
    assert_int_equal(gc_nav_derive(&d, base, g, g3, cut, 1, &fresh), GC_OK);
    assert_true(fresh);
    for (int r = GC_DIAG_NEVER; r <= GC_DIAG_ALWAYS; r++)
        assert_int_not_equal(gc_nav_component(d, r, left),
                             gc_nav_component(d, r, right));

    /* A search on it: no way across; on the blob grid, the way round. */
    gc_astar *a;
    assert_int_equal(gc_astar_new(&a, 7, 5), GC_OK);
    gc_path p;
    gc_path_init(&p);
    gc_astar_opts o;
    gc_astar_opts_init(&o);
    o.nav = d;
    o.algo = GC_ALGO_JPS;
    gc_astar_stats st;
    assert_int_equal(gc_astar_find(a, g3, left, right, &o, &p, &st),
                     GC_EUNREACHABLE);
    assert_int_equal(st.expanded, 0); /* told by the labels */
    gc_nav *d2 = NULL, *f2;
    assert_int_equal(gc_nav_derive(&d2, base, g, g2, blob, 2, NULL), GC_OK);
    assert_int_equal(gc_nav_new(&f2, g2), GC_OK);
    gc_astar_stats sf;
    o.nav = d2;
    assert_int_equal(gc_astar_find(a, g2, left, right, &o, &p, &st), GC_OK);
    o.nav = f2;
    assert_int_equal(gc_astar_find(a, g2, left, right, &o, &p, &sf), GC_OK);
    assert_true(fabs(st.cost - sf.cost) < 1e-9);
    assert_true(st.cost > 0.0);

    /* No clearance: a search with a radius refuses the derived data, and
     * gc_nav_update brings it back, the same as fresh data's. */
    o.nav = d2;
    o.algo = GC_ALGO_AUTO;
    o.radius = 0.3f;
    assert_int_equal(gc_astar_find(a, g2, left, right, &o, &p, &st), GC_EINVAL);
    assert_true(gc_nav_memory(d2) < gc_nav_memory(f2));
    assert_int_equal(gc_grid_set(g2, 6, 0, GC_CELL_OBSTACLE), GC_OK);
    assert_int_equal(gc_nav_update(d2, g2), GC_OK);
    assert_int_equal(gc_nav_update(f2, g2), GC_OK);
    assert_non_null(d2->clear);
    assert_memory_equal(d2->clear, f2->clear, 35 * sizeof *f2->clear);
    assert_memory_equal(d2->clear4, f2->clear4, 35);
    assert_int_equal(gc_nav_memory(d2), gc_nav_memory(f2));
    assert_int_equal(gc_astar_find(a, g2, left, right, &o, &p, &st), GC_OK);

    gc_path_free(&p);
    gc_astar_free(a);
    gc_nav_free(f2);
    gc_nav_free(d2);
    gc_nav_free(d);
    gc_nav_free(base);
    gc_grid_free(g3);
    gc_grid_free(g2);
    gc_grid_free(g);
}

static void
test_derive_errors(void **state)
{
    (void)state;
    gc_grid *g = two_rooms();
    gc_nav *base, *d = NULL;
    assert_int_equal(gc_nav_new(&base, g), GC_OK);
    uint32_t one[] = {0};
    gc_grid *g2 = blocked_copy(g, one, 1);

    /* A listed cell passable in g2, or off the map. */
    uint32_t open_cell[] = {1};
    assert_int_equal(gc_nav_derive(&d, base, g, g2, open_cell, 1, NULL),
                     GC_EINVAL);
    uint32_t off[] = {35};
    assert_int_equal(gc_nav_derive(&d, base, g, g2, off, 1, NULL), GC_EINVAL);
    assert_null(d);
    /* A cell blocked but not listed, or another cell changed. */
    assert_int_equal(gc_nav_derive(&d, base, g, g2, NULL, 0, NULL), GC_EINVAL);
    assert_null(d);
    gc_grid_set(g2, 6, 4, GC_CELL_HIGH);
    assert_int_equal(gc_nav_derive(&d, base, g, g2, one, 1, NULL), GC_EINVAL);
    assert_null(d);
    gc_grid_set(g2, 6, 4, GC_CELL_WALKABLE);
    assert_int_equal(gc_nav_derive(&d, base, g, g2, one, 1, NULL), GC_OK);
    assert_true(gc_nav_fresh(d, g2));
    /* Reused data that an error left stale is fresh for no grid. */
    gc_grid_set(g2, 6, 3, GC_CELL_HIGH);
    assert_int_equal(gc_nav_derive(&d, base, g, g2, one, 1, NULL), GC_EINVAL);
    assert_false(gc_nav_fresh(d, g2));
    gc_grid_set(g2, 6, 3, GC_CELL_WALKABLE);
    /* A stale base, derived data as a base, the grid itself as g. */
    gc_grid_set(g, 6, 4, GC_CELL_HIGH);
    assert_int_equal(gc_nav_derive(&d, base, g, g2, one, 1, NULL), GC_EINVAL);
    gc_grid_set(g, 6, 4, GC_CELL_WALKABLE);
    assert_int_equal(gc_nav_update(base, g), GC_OK);
    assert_int_equal(gc_nav_derive(&d, base, g, g2, one, 1, NULL), GC_OK);
    gc_nav *dd = NULL;
    assert_int_equal(gc_nav_derive(&dd, d, g2, g2, NULL, 0, NULL), GC_EINVAL);
    assert_int_equal(gc_nav_derive(&dd, base, g, g, NULL, 0, NULL), GC_EINVAL);
    /* Another size. */
    gc_grid *small;
    assert_int_equal(gc_grid_new(&small, 3, 3), GC_OK);
    assert_int_equal(gc_nav_derive(&dd, base, g, small, NULL, 0, NULL),
                     GC_EINVAL);
    assert_null(dd);
    gc_grid_free(small);

    gc_nav_free(d);
    gc_nav_free(base);
    gc_grid_free(g2);
    gc_grid_free(g);
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_derive_against_fresh),
        cmocka_unit_test(test_cut_and_blob),
        cmocka_unit_test(test_derive_errors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
