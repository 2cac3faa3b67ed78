/*
 * tests/test_rng.h: the random numbers of the property tests (splitmix64:
 * the same sequence on every platform, from the seed each test sets in
 * rng_state), the random grids they search, and whether a grid's costs
 * are one.  Header-only, all static.
 */
#ifndef GC_TESTS_TEST_RNG_H
#define GC_TESTS_TEST_RNG_H

#include <gridcrowd/grid.h>

#include <math.h>
#include <stdbool.h>
#include <stdint.h>

static uint64_t rng_state;

static inline uint64_t
rng(void)
{
    uint64_t z = (rng_state += UINT64_C(0x9E3779B97F4A7C15));
    z = (z ^ (z >> 30)) * UINT64_C(0xBF58476D1CE4E5B9);
    z = (z ^ (z >> 27)) * UINT64_C(0x94D049BB133111EB);
    return z ^ (z >> 31);
}

/* Uniform in [0, n). */
static inline int
rnd(int n)
{
    return (int)(rng() % (uint64_t)n);
}

/* Uniform in [0, 1). */
static inline double
rndf(void)
{
    return (double)(rng() >> 11) / 9007199254740992.0;
}

/* Walls, and often dear and cheap cells, under the default costs, one
 * cost for all or a random table; sometimes cells of another size. */
static inline void
random_grid(gc_grid *g)
{
    int w = g->width, h = g->height;
    double wall = rndf() * 0.45;
    double high = rnd(3) == 0 ? 0.0 : rndf() * 0.3;
    double low = rnd(3) == 0 ? 0.0 : rndf() * 0.3;
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++) {
            double r = rndf();
            int t = r < wall                ? GC_CELL_OBSTACLE
                    : r < wall + high       ? GC_CELL_HIGH
                    : r < wall + high + low ? GC_CELL_LOW
                                            : GC_CELL_WALKABLE;
            gc_grid_set(g, x, y, t);
        }
    /* Default costs, uniform costs, or a random table. */
    for (int t = 0; t < GC_CELL_NTYPES; t++)
        if (t != GC_CELL_OBSTACLE)
            gc_grid_set_cost(g, t, gc_cell_default_cost(t));
    switch (rnd(4)) {
    case 0:
        gc_grid_set_uniform(g);
        break;
    case 1:
        gc_grid_set_cost(g, GC_CELL_WALKABLE, (float)(0.2 + 3 * rndf()));
        gc_grid_set_cost(g, GC_CELL_HIGH, (float)(0.2 + 5 * rndf()));
        gc_grid_set_cost(g, GC_CELL_LOW, (float)(0.1 + 2 * rndf()));
        break;
    default:
        break;
    }
    g->cell_size = rnd(4) == 0 ? (float)(0.5 + 2 * rndf()) : 1.0f;
}

/* True when every passable cell of g costs the same (worked out from the
 * cells, not from the library's presence mask). */
static inline bool
uniform_present(const gc_grid *g)
{
    float c = 0.0f;
    for (int y = 0; y < g->height; y++)
        for (int x = 0; x < g->width; x++) {
            float v = gc_grid_cell_cost(g, x, y);
            if (!isfinite(v))
                continue;
            if (c != 0.0f && v != c)
                return false;
            c = v;
        }
    return true;
}

#endif
