/*
 * gridcrowd/query.h: path queries on a running daemon's grid, without an
 * agent.
 *
 * "How do I get from here to there on the map as it is now?" and, for a
 * turn-based game, "which neighbour do I step to first?".  The answer is
 * computed in the calling process, on a copy of the live cells taken with
 * gc_world_read_cells, never in the daemon's tick: a query costs the daemon
 * nothing, and many tools can ask at once.  The copy is priced with the
 * daemon's own cost table and (by default) its diagonal rule, which the
 * daemon publishes in the world (gc_world_costs), so a query's answer is the
 * one an agent of the simulation would plan on the same cells.
 *
 * A query object (gc_query) holds everything a search needs, sized once for
 * the world: a grid for the copy, an A* context and navigation data
 * (components, clearance).  Repeated queries reuse it and allocate nothing
 * except to grow the caller's path; the navigation data is recomputed only
 * when the world's generation moved since the last copy.  One query object
 * per thread.  gc_world_path and gc_world_next_step are the one-shot forms.
 */
#ifndef GRIDCROWD_QUERY_H
#define GRIDCROWD_QUERY_H

#include <stdint.h>

#include <gridcrowd/common.h>
#include <gridcrowd/astar.h>
#include <gridcrowd/error.h>
#include <gridcrowd/grid.h>
#include <gridcrowd/world.h>

GC_BEGIN_DECLS

typedef struct gc_query gc_query;

/*
 * New query object for world `w` (attached or created; it keeps a pointer:
 * `w` must outlive it).  Sizes a grid, an A* context and navigation data for
 * the world's grid (about 26 bytes a cell) and takes the world's cost table.
 * No cells are copied yet.  Errors: GC_EINVAL, GC_ENOMEM (message in err).
 * The caller owns *out and frees it with gc_query_free.
 */
int gc_query_new(gc_query **out, const gc_world *w, gc_error *err);

/* Free a query object.  NULL is allowed. */
void gc_query_free(gc_query *q);

/*
 * Copy the live cells now (gc_world_read_cells) and bring the navigation
 * data up to date when the world's generation changed.  gc_query_path and
 * gc_query_next_step call it first; call it alone to search several times
 * on one copy (with gc_query_search).  Errors: gc_world_read_cells's
 * GC_EBUSY (the daemon kept writing), GC_ENOMEM.
 */
int gc_query_refresh(gc_query *q, gc_error *err);

/* The copy of the cells (with the world's costs and cell size) and the
 * world generation it was taken at (0 before the first refresh).  The grid
 * belongs to q and changes at the next refresh. */
const gc_grid *gc_query_grid(const gc_query *q);
uint64_t gc_query_generation(const gc_query *q);

/*
 * Fill `o` with the defaults of a query on `w`: gc_astar_opts_init, with
 * the daemon's diagonal rule (gc_world_costs).  Set radius, heuristic,
 * weight, smooth, algo as the agents' options would be.
 */
void gc_query_opts_init(const gc_world *w, gc_astar_opts *o);

/*
 * Search from cell `from` to cell `to` on the current copy, without taking
 * a new one.  `o` may be NULL (gc_query_opts_init); o->nav is ignored (the
 * query's own navigation data is used, so radius works), every other
 * option applies.  Before searching, both ends are checked so that the
 * error says which end and why:
 *   GC_EOUTSIDE      "start (40, 3) is outside the 32x24 map"
 *   GC_EBLOCKED      "goal (5, 5) is impassable (obstacle)", or "goal
 *                    (1, 1) is too close to a wall for radius 0.6: its
 *                    clearance is 0.5 cells, it needs 0.6"
 *   GC_EUNREACHABLE  "no path from (0, 0) to (9, 9) under no-corner-cut"
 *   GC_ELIMIT        "no path found within 100 expansions"
 * and gc_astar_find's other codes (GC_EINVAL for a bad option).  On GC_OK
 * `out` holds the path as gc_astar_find gives it and `st` (may be NULL) its
 * figures; with o->partial, `out` may hold a partial path on
 * GC_EUNREACHABLE and GC_ELIMIT, as gc_astar_find says.
 */
int gc_query_search(gc_query *q, gc_cell from, gc_cell to,
                    const gc_astar_opts *o, gc_path *out, gc_astar_stats *st,
                    gc_error *err);

/* gc_query_refresh, then gc_query_search: the path on the live grid. */
int gc_query_path(gc_query *q, gc_cell from, gc_cell to, const gc_astar_opts *o,
                  gc_path *out, gc_astar_stats *st, gc_error *err);

/*
 * gc_query_refresh, then the first step of an optimal path from `from` to
 * `to` (gc_astar_next_step): *next is the neighbour to move to, or `from`
 * itself when from == to.  Same options and errors as gc_query_search
 * (o->smooth is ignored: the answer is always an adjacent cell).
 */
int gc_query_next_step(gc_query *q, gc_cell from, gc_cell to,
                       const gc_astar_opts *o, gc_cell *next,
                       gc_astar_stats *st, gc_error *err);

/* One-shot forms: a query object made, used once and freed.  Each call
 * allocates about 26 bytes a cell; keep a gc_query to ask repeatedly. */
int gc_world_path(const gc_world *w, gc_cell from, gc_cell to,
                  const gc_astar_opts *o, gc_path *out, gc_astar_stats *st,
                  gc_error *err);
int gc_world_next_step(const gc_world *w, gc_cell from, gc_cell to,
                       const gc_astar_opts *o, gc_cell *next,
                       gc_astar_stats *st, gc_error *err);

GC_END_DECLS
#endif
