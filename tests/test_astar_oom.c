/*
 * test_astar_oom.c: the astar module when memory runs out.
 *
 * The astar, nav, smooth and grid sources are built into this program and
 * linked with -Wl,--wrap for malloc, calloc, realloc and aligned_alloc, so
 * a test can make the n-th allocation fail.  Every failure must come back as
 * GC_ENOMEM with nothing leaked (ASan and valgrind check that) and leave a
 * context that still answers correctly once memory is back.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <gridcrowd/astar.h>

#include <math.h>
#include <stdlib.h>

#include "oom.h"

static gc_grid *
open_grid(int w, int h)
{
    gc_grid *g;
    assert_int_equal(gc_grid_new(&g, w, h), GC_OK);
    for (int x = 2; x < w - 2; x += 4)
        gc_grid_set(g, x, h / 2, GC_CELL_OBSTACLE);
    return g;
}

/* gc_astar_new and gc_nav_new fail cleanly at every allocation they make
 * with memory to spare, and succeed once all of them are allowed. */
static void
test_new(void **state)
{
    (void)state;
    gc_grid *g = open_grid(40, 30);
    gc_astar *a;
    long made = atomic_load(&allocs);
    assert_int_equal(gc_astar_new(&a, 40, 30), GC_OK);
    long need = atomic_load(&allocs) - made;
    gc_astar_free(a);
    assert_true(need > 0);
    for (long k = 0; k <= need; k++) {
        a = (gc_astar *)1;
        fail_after = k;
        int rc = gc_astar_new(&a, 40, 30);
        fail_after = -1;
        if (k == need) {
            assert_int_equal(rc, GC_OK);
            gc_astar_free(a);
        } else {
            assert_int_equal(rc, GC_ENOMEM);
            assert_null(a);
        }
    }
    gc_nav *n;
    made = atomic_load(&allocs);
    assert_int_equal(gc_nav_new(&n, g), GC_OK);
    need = atomic_load(&allocs) - made;
    gc_nav_free(n);
    assert_true(need > 0);
    for (long k = 0; k <= need; k++) {
        n = (gc_nav *)1;
        fail_after = k;
        int rc = gc_nav_new(&n, g);
        fail_after = -1;
        if (k == need) {
            assert_int_equal(rc, GC_OK);
            gc_nav_free(n);
        } else {
            assert_int_equal(rc, GC_ENOMEM);
            assert_null(n);
        }
    }
    /* An update that runs out of memory, at any of its allocations, leaves
     * the data stale. */
    gc_nav *m;
    assert_int_equal(gc_nav_new(&n, g), GC_OK);
    assert_int_equal(gc_nav_new(&m, g), GC_OK);
    gc_grid_set(g, 0, 0, GC_CELL_OBSTACLE);
    made = atomic_load(&allocs);
    assert_int_equal(gc_nav_update(m, g), GC_OK);
    need = atomic_load(&allocs) - made;
    gc_nav_free(m);
    assert_true(need > 0);
    assert_int_equal(gc_astar_new(&a, 40, 30), GC_OK);
    gc_path p;
    gc_path_init(&p);
    gc_astar_opts o;
    gc_astar_opts_init(&o);
    o.nav = n;
    gc_cell s = {1, 1}, t = {38, 28};
    for (long k = 0; k < need; k++) {
        fail_after = k;
        int rc = gc_nav_update(n, g);
        fail_after = -1;
        assert_int_equal(rc, GC_ENOMEM);
        assert_true(gc_nav_generation(n) != g->generation);
        assert_int_equal(gc_astar_find(a, g, s, t, &o, &p, NULL), GC_ESTALE);
    }
    assert_int_equal(gc_nav_update(n, g), GC_OK);
    assert_int_equal(gc_astar_find(a, g, s, t, &o, &p, NULL), GC_OK);
    gc_path_free(&p);
    gc_astar_free(a);
    gc_nav_free(n);
    gc_grid_free(g);
}

/* A search whose open list cannot grow, or whose path cannot, fails with
 * GC_ENOMEM; the same context then answers as a fresh one.  Dijkstra over
 * a patchwork of road, grass and swamp has a ragged front with many
 * re-pushed cells: it needs more than the 256 entries a 64x64 context
 * starts with. */
static void
test_search(void **state)
{
    (void)state;
    gc_grid *g;
    assert_int_equal(gc_grid_new(&g, 64, 64), GC_OK);
    static const int types[3] = {GC_CELL_WALKABLE, GC_CELL_HIGH, GC_CELL_LOW};
    uint32_t r = 1;
    for (int i = 0; i < 64 * 64; i++) {
        r = r * 1103515245u + 12345u;
        gc_grid_set(g, i % 64, i / 64, types[(r >> 16) % 3]);
    }
    gc_astar *a;
    assert_int_equal(gc_astar_new(&a, 64, 64), GC_OK);
    size_t before = gc_astar_memory(a);
    gc_path p;
    gc_path_init(&p);
    gc_astar_opts o;
    gc_astar_opts_init(&o);
    o.heuristic = GC_HEUR_ZERO; /* a wide open list: it must grow */
    gc_cell s = {32, 32}, t = {0, 0};
    gc_astar_stats st;
    /* Room for any path, so the open list is all that can allocate. */
    assert_int_equal(gc_path_reserve(&p, 64 * 64), GC_OK);
    fail_after = 0;
    int rc = gc_astar_find(a, g, s, t, &o, &p, &st);
    fail_after = -1;
    assert_int_equal(rc, GC_ENOMEM);
    assert_int_equal(st.status, GC_ENOMEM);
    assert_int_equal(p.len, 0);
    assert_int_equal(gc_astar_memory(a), before);

    assert_int_equal(gc_astar_find(a, g, s, t, &o, &p, &st), GC_OK);
    assert_true(gc_astar_memory(a) > before); /* it grew this time */
    double cost = st.cost;
    gc_astar *fresh;
    assert_int_equal(gc_astar_new(&fresh, 64, 64), GC_OK);
    gc_path q;
    gc_path_init(&q);
    assert_int_equal(gc_astar_find(fresh, g, s, t, &o, &q, &st), GC_OK);
    assert_true(st.cost == cost);
    assert_int_equal(p.len, q.len);

    /* The caller's path cannot grow: not to its first cells, nor to the
     * path's length once it is found (the context, grown above, needs no
     * more). */
    gc_path_free(&p);
    long made = atomic_load(&allocs);
    assert_int_equal(gc_astar_find(a, g, s, t, NULL, &p, &st), GC_OK);
    long need = atomic_load(&allocs) - made;
    cost = st.cost;
    assert_true(need > 0);
    for (long k = 0; k < need; k++) {
        gc_path_free(&p);
        fail_after = k;
        rc = gc_astar_find(a, g, s, t, NULL, &p, &st);
        fail_after = -1;
        assert_int_equal(rc, GC_ENOMEM);
        assert_int_equal(st.status, GC_ENOMEM);
        assert_int_equal(p.len, 0);
    }
    gc_path_free(&p);
    assert_int_equal(gc_astar_find(a, g, s, t, NULL, &p, &st), GC_OK);
    assert_true(st.cost == cost);
    gc_path_free(&p);
    gc_path_free(&q);
    gc_astar_free(fresh);
    gc_astar_free(a);
    gc_grid_free(g);
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_new),
        cmocka_unit_test(test_search),
    };
    return cmocka_run_group_tests_name("astar_oom", tests, NULL, NULL);
}
