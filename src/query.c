/*
 * query.c: path queries on a running daemon's grid (query.h).
 *
 * The rules it keeps:
 *
 * - Nothing here runs in the daemon or writes the world.  A query copies
 *   the cells with gc_world_read_cells (a seqlock read that retries, never
 *   blocking the daemon) into a grid of its own, and searches that copy.
 *   The answer is therefore exact for the cells of one generation, the one
 *   gc_query_generation names, even while the daemon edits the grid.
 * - The copy is priced as the simulation prices its cells: the world's
 *   published cost table (gc_world_costs) and cell size, and the daemon's
 *   diagonal rule unless the caller chooses another.
 * - Everything is sized once (gc_query_new).  The navigation data (the
 *   component labels that answer "unreachable" at once, the clearance that
 *   radius needs) is recomputed only when the world's generation moved:
 *   the copy's grid generation is the world's plus one (the nav data of a
 *   fresh grid describes generation 0, the all-walkable cells).
 * - Before a search both ends are checked here, so that the error names
 *   the end and the reason; gc_astar_find would give the same code without
 *   saying which end.
 */
#include "config.h"

#include <gridcrowd/query.h>

#include "astar_int.h"

#include <inttypes.h>
#include <math.h>
#include <stdlib.h>

struct gc_query {
    const gc_world *world; /* not owned */
    gc_grid *grid;         /* the copy; owns its cells */
    gc_astar *astar;
    gc_nav *nav;
    uint64_t generation; /* world generation of the copy; 0: none yet */
    bool copied;         /* a refresh succeeded */
    gc_path scratch;     /* next_step's path, kept to stop allocating */
};

int
gc_query_new(gc_query **out, const gc_world *w, gc_error *err)
{
    if (out == NULL || w == NULL)
        return gc_error_set(err, GC_EINVAL, NULL, 0, 0,
                            "gc_query_new: no world");
    *out = NULL;
    gc_query *q = calloc(1, sizeof *q);
    if (q == NULL)
        return gc_error_set(err, GC_ENOMEM, NULL, 0, 0,
                            "out of memory for a path query");
    q->world = w;
    gc_path_init(&q->scratch);
    int32_t width = gc_world_width(w), height = gc_world_height(w);
    int rc = gc_grid_new(&q->grid, width, height);
    if (rc == GC_OK)
        rc = gc_astar_new(&q->astar, width, height);
    if (rc == GC_OK)
        rc = gc_nav_new(&q->nav, q->grid);
    if (rc != GC_OK) {
        gc_query_free(q);
        return gc_error_set(err, rc, NULL, 0, 0,
                            "path query for a %" PRId32 "x%" PRId32
                            " world: %s",
                            width, height, gc_strerror(rc));
    }
    /* gc_world_costs has already made the table sane (an obstacle is a
     * wall, a bad cost a wall), so it is copied as it is rather than
     * through gc_grid_set_cost, which refuses walls. */
    gc_world_costs(w, q->grid->cost, NULL);
    q->grid->cell_size = gc_world_cell_size(w);
    *out = q;
    return GC_OK;
}

void
gc_query_free(gc_query *q)
{
    if (q == NULL)
        return;
    gc_path_free(&q->scratch);
    gc_nav_free(q->nav);
    gc_astar_free(q->astar);
    gc_grid_free(q->grid);
    free(q);
}

int
gc_query_refresh(gc_query *q, gc_error *err)
{
    if (q == NULL)
        return gc_error_set(err, GC_EINVAL, NULL, 0, 0, "no query");
    uint64_t gen = 0;
    int rc = gc_world_read_cells(q->world, q->grid->cells, &gen);
    if (rc != GC_OK) {
        /* The copy may be torn: make the next refresh recompute. */
        q->copied = false;
        q->grid->generation = 0;
        return gc_error_set(err, rc, NULL, 0, 0, "reading the cells of %s: %s",
                            gc_world_name(q->world), gc_strerror(rc));
    }
    q->generation = gen;
    q->copied = true;
    q->grid->generation = gen + 1;
    rc = gc_nav_update(q->nav, q->grid);
    if (rc != GC_OK)
        return gc_error_set(err, rc, NULL, 0, 0, "navigation data for %s: %s",
                            gc_world_name(q->world), gc_strerror(rc));
    return GC_OK;
}

const gc_grid *
gc_query_grid(const gc_query *q)
{
    return q->grid;
}

uint64_t
gc_query_generation(const gc_query *q)
{
    return q->generation;
}

void
gc_query_opts_init(const gc_world *w, gc_astar_opts *o)
{
    gc_astar_opts_init(o);
    if (w != NULL)
        gc_world_costs(w, NULL, &o->diag);
}

/* Check one end of a query: on the map, passable, room for the radius
 * (in cells, 0 for none).  `what` is "start" or "goal". */
static int
check_end(const gc_query *q, const char *what, gc_cell c, float radius,
          float rcells, gc_error *err)
{
    const gc_grid *g = q->grid;
    if (!gc_grid_in_bounds(g, c.x, c.y))
        return gc_error_set(err, GC_EOUTSIDE, NULL, 0, 0,
                            "%s (%" PRId32 ", %" PRId32
                            ") is outside the %" PRId32 "x%" PRId32 " map",
                            what, c.x, c.y, g->width, g->height);
    if (!gc_grid_passable(g, c.x, c.y)) {
        const char *tn = gc_cell_type_name(gc_grid_get(g, c.x, c.y));
        return gc_error_set(err, GC_EBLOCKED, NULL, 0, 0,
                            "%s (%" PRId32 ", %" PRId32 ") is impassable (%s)",
                            what, c.x, c.y, tn != NULL ? tn : "unknown type");
    }
    /* The comparison gc_astar_find makes, in the same float arithmetic. */
    float cl = gc_nav_clearance(q->nav, c);
    if (rcells > 0.0f && cl < rcells)
        return gc_error_set(err, GC_EBLOCKED, NULL, 0, 0,
                            "%s (%" PRId32 ", %" PRId32
                            ") is too close to a wall for radius %g: its "
                            "clearance is %g cells, it needs %g",
                            what, c.x, c.y, (double)radius, (double)cl,
                            (double)rcells);
    return GC_OK;
}

/* Options for a search on q's copy, and the ends checked. */
static int
prepare(gc_query *q, gc_cell from, gc_cell to, const gc_astar_opts *o,
        gc_astar_opts *use, gc_error *err)
{
    if (q == NULL)
        return gc_error_set(err, GC_EINVAL, NULL, 0, 0, "no query");
    if (o != NULL)
        *use = *o;
    else
        gc_query_opts_init(q->world, use);
    use->nav = q->nav;
    if (!q->copied) {
        int rc = gc_query_refresh(q, err);
        if (rc != GC_OK)
            return rc;
    }
    float rcells = 0.0f;
    if (use->radius > 0.0f && isfinite(use->radius))
        rcells = use->radius / q->grid->cell_size;
    int rc = check_end(q, "start", from, use->radius, rcells, err);
    if (rc == GC_OK)
        rc = check_end(q, "goal", to, use->radius, rcells, err);
    return rc;
}

/* The message for a search that failed past the end checks. */
static int
search_error(const gc_query *q, int rc, gc_cell from, gc_cell to,
             const gc_astar_opts *o, gc_error *err)
{
    const char *why_not_jps =
        rc == GC_EINVAL ? gc_astar_jps_why_not(q->grid, o) : NULL;
    const char *rule = gc_diag_rule_name(o->diag);
    switch (rc) {
    case GC_EUNREACHABLE:
        return gc_error_set(err, rc, NULL, 0, 0,
                            "no path from (%" PRId32 ", %" PRId32
                            ") to (%" PRId32 ", %" PRId32 ") under %s%s",
                            from.x, from.y, to.x, to.y,
                            rule != NULL ? rule : "?",
                            o->radius > 0.0f ? " with that radius" : "");
    case GC_ELIMIT:
        return gc_error_set(err, rc, NULL, 0, 0,
                            "no path found within %" PRIu64 " expansions",
                            o->max_expansions);
    case GC_EINVAL:
        if (o->algo == GC_ALGO_JPS && why_not_jps != NULL)
            return gc_error_set(err, rc, NULL, 0, 0,
                                "jump point search does not apply: %s; use "
                                "algorithm astar or auto",
                                why_not_jps);
        return gc_error_set(err, rc, NULL, 0, 0,
                            "invalid search options (diagonal rule, "
                            "heuristic, algorithm, weight or radius)");
    default:
        return gc_error_set(err, rc, NULL, 0, 0, "path search: %s",
                            gc_strerror(rc));
    }
}

int
gc_query_search(gc_query *q, gc_cell from, gc_cell to, const gc_astar_opts *o,
                gc_path *out, gc_astar_stats *st, gc_error *err)
{
    gc_astar_opts use;
    if (out == NULL)
        return gc_error_set(err, GC_EINVAL, NULL, 0, 0, "no path to fill");
    out->len = 0;
    int rc = prepare(q, from, to, o, &use, err);
    if (rc != GC_OK)
        return rc;
    rc = gc_astar_find(q->astar, q->grid, from, to, &use, out, st);
    if (rc != GC_OK)
        return search_error(q, rc, from, to, &use, err);
    gc_error_clear(err);
    return GC_OK;
}

int
gc_query_path(gc_query *q, gc_cell from, gc_cell to, const gc_astar_opts *o,
              gc_path *out, gc_astar_stats *st, gc_error *err)
{
    int rc = gc_query_refresh(q, err);
    if (rc != GC_OK)
        return rc;
    return gc_query_search(q, from, to, o, out, st, err);
}

int
gc_query_next_step(gc_query *q, gc_cell from, gc_cell to,
                   const gc_astar_opts *o, gc_cell *next, gc_astar_stats *st,
                   gc_error *err)
{
    if (next == NULL)
        return gc_error_set(err, GC_EINVAL, NULL, 0, 0, "no cell to fill");
    int rc = gc_query_refresh(q, err);
    if (rc != GC_OK)
        return rc;
    gc_astar_opts use;
    rc = prepare(q, from, to, o, &use, err);
    if (rc != GC_OK)
        return rc;
    rc = gc_astar_next_step(q->astar, q->grid, from, to, &use, &q->scratch,
                            next, st);
    if (rc != GC_OK)
        return search_error(q, rc, from, to, &use, err);
    gc_error_clear(err);
    return GC_OK;
}

int
gc_world_path(const gc_world *w, gc_cell from, gc_cell to,
              const gc_astar_opts *o, gc_path *out, gc_astar_stats *st,
              gc_error *err)
{
    gc_query *q;
    int rc = gc_query_new(&q, w, err);
    if (rc != GC_OK)
        return rc;
    rc = gc_query_path(q, from, to, o, out, st, err);
    gc_query_free(q);
    return rc;
}

int
gc_world_next_step(const gc_world *w, gc_cell from, gc_cell to,
                   const gc_astar_opts *o, gc_cell *next, gc_astar_stats *st,
                   gc_error *err)
{
    gc_query *q;
    int rc = gc_query_new(&q, w, err);
    if (rc != GC_OK)
        return rc;
    rc = gc_query_next_step(q, from, to, o, next, st, err);
    gc_query_free(q);
    return rc;
}
