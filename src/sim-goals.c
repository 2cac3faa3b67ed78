/*
 * sim-goals.c: where agents start and where they go.
 *
 * Components.  Passable cells are grouped by connected component (the nav
 * labels under the sim's move rule), rebuilt by the loop whenever the grid
 * changes and read-only during ticks.  A wander goal is drawn from the
 * cells of the agent's own component (optionally within the agent's own
 * wander radius, that many cells of it in each axis), so it is reachable by construction; a goal someone else
 * set (point, scen) may not be, and the planner deals with that.
 *
 * Determinism.  Placement uses one generator seeded by `seed`; each agent
 * draws its goals from its own generator seeded from (seed, index), so the
 * run does not depend on which thread served whom.  A gc_sim_worker draws only
 * for its own agents.
 */
#include "config.h"

#include "sim_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* ---- random numbers: splitmix64, one stream per agent ---------------------
 */

uint64_t
gc_sim_splitmix(uint64_t *s)
{
    uint64_t z = (*s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

uint32_t
gc_sim_rand_below(uint64_t *s, uint32_t n)
{
    return (uint32_t)(((gc_sim_splitmix(s) >> 32) * (uint64_t)n) >> 32);
}

/* ---- components ------------------------------------------------------------
 */

int
gc_sim_build_components(gc_sim *s)
{
    const gc_grid *g = s->pgrid;
    size_t cells = (size_t)g->width * (size_t)g->height;
    uint32_t max = 0;
    for (int32_t y = 0; y < g->height; y++)
        for (int32_t x = 0; x < g->width; x++) {
            uint32_t l = gc_nav_component(s->nav, s->cfg.diag, (gc_cell){x, y});
            if (l > max)
                max = l;
        }
    uint32_t *off = calloc((size_t)max + 2, sizeof *off);
    uint32_t *list = malloc(cells * sizeof *list);
    if (off == NULL || list == NULL) {
        free(off);
        free(list);
        return GC_ENOMEM;
    }
    for (int32_t y = 0; y < g->height; y++)
        for (int32_t x = 0; x < g->width; x++) {
            uint32_t l = gc_nav_component(s->nav, s->cfg.diag, (gc_cell){x, y});
            if (l != 0)
                off[l + 1]++;
        }
    for (uint32_t l = 1; l <= max + 1; l++)
        off[l] += off[l - 1];
    /* Fill using a running cursor per label (off[l] advances, then shift). */
    for (int32_t y = 0; y < g->height; y++)
        for (int32_t x = 0; x < g->width; x++) {
            uint32_t l = gc_nav_component(s->nav, s->cfg.diag, (gc_cell){x, y});
            if (l != 0)
                list[off[l]++] = (uint32_t)gc_grid_index(g, x, y);
        }
    for (uint32_t l = max + 1; l > 0; l--)
        off[l] = off[l - 1];
    off[0] = 0;
    free(s->comp_cells);
    free(s->comp_off);
    s->comp_cells = list;
    s->comp_off = off;
    s->comp_labels = max + 1;
    return GC_OK;
}

static uint32_t
passable_count(const gc_sim *s)
{
    return s->comp_off[s->comp_labels];
}

static gc_cell
cell_of_index(const gc_grid *g, uint32_t i)
{
    return (gc_cell){(int32_t)(i % (uint32_t)g->width),
                     (int32_t)(i / (uint32_t)g->width)};
}

uint64_t
gc_sim_hilbert_index(unsigned bits, uint32_t x, uint32_t y)
{
    uint64_t d = 0;
    for (uint32_t q = (uint32_t)1 << (bits - 1); q > 0; q >>= 1) {
        uint32_t rx = (x & q) != 0, ry = (y & q) != 0;
        d += (uint64_t)q * q * ((3u * rx) ^ ry);
        /* Turn the quadrant so that the curve in it starts and ends
         * where the next level's does. */
        if (ry == 0) {
            if (rx == 1) {
                x = q - 1 - (x & (q - 1));
                y = q - 1 - (y & (q - 1));
            }
            uint32_t t = x;
            x = y;
            y = t;
        }
        x &= q - 1;
        y &= q - 1;
    }
    return d;
}

static int
cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

/*
 * Cells cell[0 .. n) (indices of g) into the order of a Hilbert curve
 * over the map (ties, which distinct cells never have, by index); key
 * is scratch for n.  Slots in that order put agents that are near each
 * other near each other in memory: the crowd step reads every
 * neighbour's start-of-tick state, and with 100,000 agents placed in
 * random order most of those reads missed the caches.
 */
unsigned
gc_sim_hilbert_bits(const gc_grid *g)
{
    uint32_t side = (uint32_t)(g->width > g->height ? g->width : g->height);
    unsigned bits = 1;
    while (((uint32_t)1 << bits) < side)
        bits++;
    return bits;
}

static void
place_order(const gc_grid *g, uint32_t *cell, uint64_t *key, uint32_t n)
{
    /* Sides of at most GC_GRID_MAX_SIDE = 2^16: the curve's index fits
     * 32 bits, and the cell index (below 2^28) goes in the other 32. */
    unsigned bits = gc_sim_hilbert_bits(g);
    for (uint32_t i = 0; i < n; i++) {
        gc_cell c = cell_of_index(g, cell[i]);
        key[i] = gc_sim_hilbert_index(bits, (uint32_t)c.x, (uint32_t)c.y) << 32 |
                 cell[i];
    }
    qsort(key, n, sizeof *key, cmp_u64);
    for (uint32_t i = 0; i < n; i++)
        cell[i] = (uint32_t)key[i];
}

/*
 * A random cell of c's component, or c itself when it has none.  With a
 * wander radius (the agent's own, in cells), a cell of the component
 * within that many cells of c in
 * both axes, drawn by rejection (a few tries; then anywhere in the
 * component, so a small pocket never loops).
 */
gc_cell
gc_sim_random_goal(gc_sim *s, uint32_t agent, gc_cell c)
{
    uint32_t l = gc_nav_component(s->nav, s->cfg.diag, c);
    if (l == 0 || l >= s->comp_labels)
        return c;
    uint32_t lo = s->comp_off[l], hi = s->comp_off[l + 1];
    if (hi <= lo)
        return c;
    uint32_t r = s->slot[agent].wander_cells;
    for (int tries = 0; r > 0 && tries < 32; tries++) {
        gc_cell g = {c.x - (int32_t)r +
                         (int32_t)gc_sim_rand_below(&s->rng[agent], 2 * r + 1),
                     c.y - (int32_t)r +
                         (int32_t)gc_sim_rand_below(&s->rng[agent], 2 * r + 1)};
        if (gc_grid_in_bounds(s->pgrid, g.x, g.y) &&
            gc_nav_component(s->nav, s->cfg.diag, g) == l)
            return g;
    }
    return cell_of_index(
        s->pgrid,
        s->comp_cells[lo + gc_sim_rand_below(&s->rng[agent], hi - lo)]);
}

bool
gc_sim_same_component(const gc_sim *s, gc_cell from, gc_cell goal)
{
    uint32_t l = gc_nav_component(s->nav, s->cfg.diag, from);
    return l != 0 && l == gc_nav_component(s->nav, s->cfg.diag, goal);
}

int
gc_sim_place_agents(gc_sim *s, gc_error *err)
{
    const gc_grid *g = s->pgrid;
    if (s->cfg.goals == GC_GOALS_SCEN) {
        for (uint32_t i = 0; i < s->n; i++) {
            const gc_scen_entry *e = &s->cfg.scen->entries[i];
            if (!gc_grid_passable(g, e->start.x, e->start.y)) {
                /* Open on the map but closed to planning: too near a
                 * wall for the body. */
                char why[160] = "not a passable cell of the map";
                if (g != s->grid &&
                    gc_grid_passable(s->grid, e->start.x, e->start.y))
                    snprintf(why, sizeof why,
                             "too near a wall for a body of radius %g "
                             "(cells nearer a wall than the radius are "
                             "closed to planning); use a smaller --radius",
                             (double)s->cfg.radius);
                return gc_error_set(
                    err, GC_EBLOCKED,
                    s->cfg.scen_name ? s->cfg.scen_name : "scenario", e->line,
                    0, "start (%d, %d) is %s", e->start.x, e->start.y, why);
            }
            gc_agent_init(&s->agents[i], gc_grid_cell_center(g, e->start), 0);
            s->agents[i].goal = e->goal;
        }
        return GC_OK;
    }
    uint32_t np = passable_count(s);
    if (s->n > np)
        return gc_error_set(err, GC_ERANGE, NULL, 0, 0,
                            "%u agent%s not fit on %u passable cell%s", s->n,
                            s->n == 1 ? " does" : "s do", np,
                            np == 1 ? "" : "s");
    if (s->cfg.goals == GC_GOALS_POINT &&
        !gc_grid_in_bounds(g, s->cfg.point.x, s->cfg.point.y))
        return gc_error_set(err, GC_EOUTSIDE, NULL, 0, 0,
                            "goal point (%d, %d) is outside the %dx%d map",
                            s->cfg.point.x, s->cfg.point.y, g->width,
                            g->height);
    /* Distinct cells: a partial Fisher-Yates shuffle of the passable
     * list; then the cells drawn in the order of a Hilbert curve over the
     * map, so that agents near each other have slots near each other
     * (place_order). */
    uint32_t *pick = malloc((size_t)np * sizeof *pick);
    uint64_t *key = malloc((size_t)s->n * sizeof *key);
    if (pick == NULL || key == NULL) {
        free(pick);
        free(key);
        return gc_error_set(err, GC_ENOMEM, NULL, 0, 0, "out of memory");
    }
    memcpy(pick, s->comp_cells, (size_t)np * sizeof *pick);
    uint64_t rng = s->cfg.seed ^ 0x5EEDull;
    for (uint32_t i = 0; i < s->n; i++) {
        uint32_t j = i + gc_sim_rand_below(&rng, np - i);
        uint32_t t = pick[i];
        pick[i] = pick[j];
        pick[j] = t;
    }
    place_order(g, pick, key, s->n);
    free(key);
    for (uint32_t i = 0; i < s->n; i++) {
        gc_cell c = cell_of_index(g, pick[i]);
        float heading =
            (float)(gc_sim_rand_below(&rng, 3600) / 3600.0 * 6.283185307 -
                    3.141592653);
        gc_agent_init(&s->agents[i], gc_grid_cell_center(g, c), heading);
        s->agents[i].goal = s->cfg.goals == GC_GOALS_POINT
                                ? s->cfg.point
                                : gc_sim_random_goal(s, i, c);
    }
    free(pick);
    return GC_OK;
}
