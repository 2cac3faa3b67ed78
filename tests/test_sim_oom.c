/*
 * test_sim_oom.c: the simulation's tick when memory runs out.
 *
 * Linked with the library's objects (libgridcrowd_core) and -Wl,--wrap
 * for malloc, calloc, realloc and aligned_alloc (oom.h), so that a test
 * can make the allocations from the k-th on fail.  A crowd with bodies
 * whose tick runs out of memory returns GC_ENOMEM on one thread or on
 * several (where the start of the tick, copy and index, is the workers'
 * own first step: gc_sim_crowd_prepare_fused), every worker comes back,
 * and once memory is back the same sim ticks on and its agents walk.
 * ASan and valgrind check that nothing leaks.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <gridcrowd/sim.h>

#include <math.h>
#include <stdlib.h>

#include "oom.h"
#include "quick.h"

/* A crowd of `agents` with bodies on an open 48 x 48 grid, all bound for
 * one cell: no wanderers, so no jam map built on a thread of its own
 * (which would take its share of the failing allocations whenever it
 * ran). */
static gc_sim *
crowd_new(gc_grid **g, int threads, uint32_t agents)
{
    assert_int_equal(gc_grid_new(g, 48, 48), GC_OK);
    gc_sim_config c;
    gc_sim_config_init(&c);
    c.agents = agents;
    c.threads = threads;
    c.radius = 0.3f;
    c.avoid = GC_AVOID_ORCA;
    c.goals = GC_GOALS_POINT;
    c.point = (gc_cell){40, 40};
    gc_sim *s = NULL;
    gc_error err;
    assert_int_equal(gc_sim_new(&s, *g, &c, &err), GC_OK);
    return s;
}

/* The summed distance of every agent from where it stood in `was`. */
static double
moved_from(const gc_sim *s, const gc_vec2 *was)
{
    double d = 0.0;
    for (size_t i = 0; i < gc_sim_agent_count(s); i++) {
        gc_vec2 p = gc_sim_agent(s, i)->pos;
        d += hypot(p.x - was[i].x, p.y - was[i].y);
    }
    return d;
}

/*
 * For 1, 2 and 3 workers: the first tick with the allocations failing
 * from the k-th on, for every k until one succeeds (every fifth in the
 * quick form), and none may succeed before k reaches the number of
 * allocations the tick makes with memory to spare (a refusal it let pass
 * would end the loop early, untested).  A failed tick
 * returns GC_ENOMEM; the first allocation of a fresh crowd's tick is its
 * neighbour index's, before anyone plans or steps, so there nobody has
 * moved.  Then, memory back, the sim ticks 30 times with GC_OK and its
 * agents have walked: an agent whose search ran out of memory plans
 * again.
 */
static void
test_tick_out_of_memory(void **state)
{
    (void)state;
    enum { N = 200 };
    for (int threads = 1; threads <= 3; threads++) {
        /* The allocations a fresh crowd's first tick makes with memory to
         * spare: each is a point where it must fail. */
        gc_grid *g;
        gc_sim *s = crowd_new(&g, threads, N);
        long before = atomic_load(&allocs);
        assert_int_equal(gc_sim_tick(s), GC_OK);
        long need = atomic_load(&allocs) - before;
        gc_sim_free(s);
        gc_grid_free(g);
        assert_true(need > 0);
        int failed = 0;
        bool ok = false;
        /* (Quick, under valgrind: every fifth k past the first few.) */
        long stride = gc_test_quick() ? 5 : 1;
        for (long k = 0; k < 400 && !ok; k += k < 3 ? 1 : stride) {
            s = crowd_new(&g, threads, N);
            gc_vec2 was[N];
            for (size_t i = 0; i < N; i++)
                was[i] = gc_sim_agent(s, i)->pos;
            atomic_store(&fail_after, k);
            int rc = gc_sim_tick(s);
            atomic_store(&fail_after, -1);
            if (rc == GC_OK) {
                /* Not before every allocation it needs was allowed: one
                 * refused must not pass unreported. */
                if (k < need)
                    fail_msg("%d thread(s): the tick ran with allocation %ld "
                             "of %ld refused",
                             threads, k + 1, need);
                ok = true;
            } else {
                assert_int_equal(rc, GC_ENOMEM);
                if (k == 0)
                    assert_true(moved_from(s, was) == 0.0);
                failed++;
            }
            for (int t = 0; t < 30; t++)
                assert_int_equal(gc_sim_tick(s), GC_OK);
            assert_true(moved_from(s, was) > 0.5 * N);
            gc_sim_free(s);
            gc_grid_free(g);
        }
        print_message("# %d thread(s): %d ticks failed before one ran "
                      "(%ld allocations)\n",
                      threads, failed, need);
        assert_true(ok);
        assert_true(failed > 0);
    }
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_tick_out_of_memory),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
