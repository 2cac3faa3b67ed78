/*
 * gridcrowd/astar.h: the reusable A* search context, navigation data,
 * heuristics, paths and smoothing.
 *
 * A context (gc_astar) is sized once for a grid size and then serves any
 * number of searches on any grid of that size with no allocation and no
 * clearing per search: per-cell records are stamped with a search number.
 * One context per thread; contexts share nothing.
 *
 * Navigation data (gc_nav) is derived from one grid and shared read-only by
 * every context that searches it: connected-component labels of the passable
 * cells (so that a goal in another component is answered "unreachable" at
 * once), a clearance map (distance to the nearest impassable cell, for
 * agents with a body), each cell's passable neighbours (A* reads them in
 * one byte) and bitsets of passable cells that jump point search scans.
 * It must be recomputed (gc_nav_update) after the grid changes; a search
 * given stale navigation data fails with GC_ESTALE rather than answer from
 * an old map.
 *
 * Costs: a step costs its length (1, or sqrt 2 diagonally) times the cost of
 * the cell entered.  Path costs are summed in double precision, so lengths
 * are exact to well within 1e-6 on maps of the sizes we support.
 */
#ifndef GRIDCROWD_ASTAR_H
#define GRIDCROWD_ASTAR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <gridcrowd/common.h>
#include <gridcrowd/error.h>
#include <gridcrowd/grid.h>

GC_BEGIN_DECLS

typedef enum gc_heuristic {
    GC_HEUR_DEFAULT = 0, /* octile when 8-connected, Manhattan when 4 */
    GC_HEUR_OCTILE,
    GC_HEUR_MANHATTAN, /* admissible only for 4-connected moves */
    GC_HEUR_EUCLIDEAN,
    GC_HEUR_CHEBYSHEV,
    GC_HEUR_ZERO /* Dijkstra */
} gc_heuristic;

/* Name ("default", "octile", "manhattan", "euclidean", "chebyshev",
 * "zero"; NULL when out of range) and parse (case-insensitive, "dijkstra"
 * for zero; GC_EINVAL when unknown or NULL: a heuristic is never negative,
 * so `< 0` tells). */
const char *gc_heuristic_name(gc_heuristic h);
int gc_heuristic_parse(const char *s);

/*
 * The search algorithm.  GC_ALGO_AUTO (the default) runs jump point search
 * when it gives the same answer as A* and is faster, which is when all of
 * these hold: diag is GC_DIAG_NO_CORNER_CUT, every passable cell type
 * present in the grid has the same cost, radius is 0, weight <= 1, the
 * heuristic is the default or octile, no partial path is asked for and
 * nav is given (jumps scan its bitsets); A* otherwise.  GC_ALGO_JPS
 * insists on jump point search and fails with GC_EINVAL where it does not
 * apply; GC_ALGO_ASTAR insists on A*.
 *
 * Jump point search (Harabor and Grastien, for moves without corner
 * cutting) expands only jump points: cells where an optimal path may have
 * to turn, found by scanning rows and columns 64 cells at a time.  Its
 * answers are exactly as optimal as A*'s and its paths are full grid
 * paths (every cell walked, not just the jump points), but it expands
 * and opens far fewer cells, so stats->expanded, stats->opened, the trace
 * and max_expansions count jump points, not cells.
 */
typedef enum gc_algo {
    GC_ALGO_AUTO = 0, /* JPS where it applies, else A* */
    GC_ALGO_ASTAR,
    GC_ALGO_JPS
} gc_algo;

/* Name ("auto", "astar", "jps"; NULL when out of range) and parse
 * (case-insensitive; GC_EINVAL when unknown or NULL). */
const char *gc_algo_name(gc_algo a);
int gc_algo_parse(const char *s);

/* Name of a diagonal rule ("no-corner-cut", "never", "one-free", "always";
 * NULL when out of range) and parse (case-insensitive; GC_EINVAL when
 * unknown or NULL). */
const char *gc_diag_rule_name(gc_diag_rule r);
int gc_diag_rule_parse(const char *s);

/* A trace of one search: cells in the order they were opened and closed,
 * for the viewer.  A cell is recorded OPEN when it first enters the open
 * list (and again if the search reopens it) and CLOSE when it is expanded;
 * the goal is recorded CLOSE when the search reaches it.  The caller owns
 * `events` (capacity `cap`); a search resets `len` and `truncated`, records
 * at most `cap` events and sets `truncated` past that. */
enum {
    GC_TRACE_OPEN = 1,  /* cell pushed on the open list */
    GC_TRACE_CLOSE = 2, /* cell expanded (closed) */
    GC_TRACE_PATH = 3   /* cell on the path found (the daemon adds these) */
};
typedef struct gc_trace_event {
    uint32_t cell; /* cell index y * width + x */
    uint8_t kind;  /* GC_TRACE_OPEN or GC_TRACE_CLOSE */
} gc_trace_event;
typedef struct gc_trace {
    gc_trace_event *events;
    size_t cap;
    size_t len;
    bool truncated;
} gc_trace;

typedef struct gc_astar_opts {
    gc_diag_rule diag;        /* default GC_DIAG_NO_CORNER_CUT */
    gc_heuristic heuristic;   /* default by connectivity */
    double weight;            /* <= 1: optimal (default); > 1: weighted A*,
                                 at most `weight` times the best cost */
    uint64_t max_expansions;  /* 0: no cap; else stop with GC_ELIMIT */
    bool partial;             /* when the goal cannot be reached (or the cap
                                 is hit), return the path to the reachable
                                 cell nearest the goal */
    bool smooth;              /* drop collinear waypoints, then pull string */
    float radius;             /* agent radius in world units; cells whose
                                 clearance (in cells) is less than
                                 radius / cell_size are blocked, for the
                                 diagonal rules too; needs nav */
    const struct gc_nav *nav; /* optional; enables the component check;
                                 must describe the grid as it is now */
    gc_trace *trace;          /* optional */
    gc_algo algo;             /* default GC_ALGO_AUTO, see gc_algo */
} gc_astar_opts;

/* Fill `o` with the defaults (all zero: 8-connected, no corner cutting,
 * octile, optimal, no cap, no smoothing, algorithm chosen by the search).
 * Manhattan with diagonal moves is allowed but overestimates, so that search is
 * not optimal. */
void gc_astar_opts_init(gc_astar_opts *o);

/* A path: cells from start to goal inclusive (after smoothing, only the
 * waypoints kept).  The caller owns it; a search grows `cells` when it is
 * too small (amortised: reuse the path and it stops allocating). */
typedef struct gc_path {
    gc_cell *cells;
    size_t len;
    size_t cap;
} gc_path;

/* An empty path owning nothing. */
void gc_path_init(gc_path *p);
/* Free the cells and leave p empty (NULL allowed). */
void gc_path_free(gc_path *p);
/* Make room for n cells (GC_ENOMEM); keeps the cells already there. */
int gc_path_reserve(gc_path *p, size_t n);

/* Figures of one search. */
typedef struct gc_astar_stats {
    int status;        /* what gc_astar_find returned */
    bool found;        /* a path to the goal itself */
    bool partial;      /* a path to the nearest reachable cell instead */
    double cost;       /* cost of the returned path, by gc_polyline_cost
                          (after smoothing); INFINITY when none */
    uint64_t expanded; /* cells expanded (closed); jump points for JPS */
    uint64_t opened;   /* pushes on the open list */
    uint64_t scanned;  /* JPS: cells its jumps looked at, the walls that
                          ended them included (0 for A*) */
    uint64_t ns;       /* wall time of the search, nanoseconds */
    gc_algo algo;      /* GC_ALGO_ASTAR or GC_ALGO_JPS: what ran (or would
                          have: set once the options are checked) */
} gc_astar_stats;

typedef struct gc_astar gc_astar;

/*
 * New context for grids of width x height.  Returns GC_EINVAL, GC_ETOOBIG
 * (the grid limits of grid.h), GC_ENOMEM.  The caller owns *out and frees it
 * with gc_astar_free.
 */
int gc_astar_new(gc_astar **out, int32_t width, int32_t height);
void gc_astar_free(gc_astar *a);

/* Bytes the context holds now: per-cell records (12 bytes a cell) plus the
 * open list, which starts at 1 byte a cell and grows (by half) only
 * when a search needs more; it never shrinks. */
size_t gc_astar_memory(const gc_astar *a);

/*
 * Search from `start` to `goal` on `g` (same size as the context; GC_EINVAL
 * otherwise).  `opts` may be NULL for the defaults.  On GC_OK `out` holds
 * the path (start == goal gives a one-cell path of cost 0).  The default
 * search is optimal on every cost table (to 1e-10 relative): h is scaled by
 * gc_grid_min_cost.  Ties on f go to the larger g.  Errors:
 *   GC_EINVAL        bad argument or option (radius > 0 without nav;
 *                    GC_ALGO_JPS where jump point search does not apply)
 *   GC_ESTALE        opts->nav describes an older state of g (or another
 *                    grid); gc_nav_update it
 *   GC_EOUTSIDE      start or goal off the map
 *   GC_EBLOCKED      start or goal impassable (or inside the radius)
 *   GC_EUNREACHABLE  no path (at once, with nothing expanded, when nav
 *                    puts the goal in another component)
 *   GC_ELIMIT        max_expansions cells expanded without reaching it
 *   GC_ENOMEM        the open list could not grow
 * With opts->partial, GC_EUNREACHABLE and GC_ELIMIT still return that code
 * but `out` holds the path to the expanded cell nearest the goal (by the
 * heuristic's distance, octile or Manhattan for the zero heuristic; ties
 * to the cheaper) and stats->partial is set; the component check then
 * does not cut the search short.  Otherwise `out` is empty on error.
 * Allocates only to grow `out` or (rarely) the open list.  `stats` may be
 * NULL.
 */
int gc_astar_find(gc_astar *a, const gc_grid *g, gc_cell start, gc_cell goal,
                  const gc_astar_opts *opts, gc_path *out,
                  gc_astar_stats *stats);

/*
 * The first step of an optimal path from `start` to `goal`, the question a
 * turn-based game asks each turn: gc_astar_find with smoothing off (the
 * answer must be a neighbour), then the path's second cell in *next, or
 * `start` itself when start == goal.  The path is built in `scratch` (may
 * be NULL: one is allocated and freed here; pass one to stop allocating).
 * Same options, errors and stats as gc_astar_find; *next is set on GC_OK,
 * and with opts->partial also when a partial path of two or more cells was
 * returned (a step towards the nearest reachable cell).
 */
int gc_astar_next_step(gc_astar *a, const gc_grid *g, gc_cell start,
                       gc_cell goal, const gc_astar_opts *opts,
                       gc_path *scratch, gc_cell *next,
                       gc_astar_stats *stats);

/* Cost of a path of adjacent cells under `rule`: the sum, in double, of
 * the step costs (length 1 or sqrt 2 in double times the cell cost; the
 * float gc_grid_step_cost agrees to float precision).  INFINITY if a step
 * is not legal or not adjacent, or for an empty path; 0 for one passable
 * cell. */
double gc_path_cost(const gc_grid *g, const gc_path *p, gc_diag_rule rule);

/*
 * Cost of the straight segment between the centres of cells a and b: its
 * length in cells times the dearest cell whose interior it crosses, its start
 * cell excepted.  INFINITY if any cell it touches (including, where it passes
 * exactly through a cell corner, every cell at that corner) is impassable, or
 * has clearance below `radius_cells` (nav may be NULL when that is 0).
 * For a diagonal step between adjacent cells this is the grid step cost
 * under the no-corner-cut rule.
 */
double gc_segment_cost(const gc_grid *g, const struct gc_nav *nav,
                       float radius_cells, gc_cell a, gc_cell b);

/*
 * Cost of a waypoint path: adjacent waypoints are priced as grid steps
 * under `rule` (with cells inside radius_cells blocked), others with
 * gc_segment_cost (equal consecutive waypoints cost 0).  This prices grid
 * paths (where it equals gc_path_cost) and smoothed paths alike.
 */
double gc_polyline_cost(const gc_grid *g, const struct gc_nav *nav,
                        float radius_cells, gc_diag_rule rule,
                        const gc_path *p);

/*
 * Smooth a grid path in place: drop collinear waypoints, then replace runs
 * of waypoints by one straight segment wherever that segment's cost is
 * finite, no more than the run's cost, and it crosses no cell dearer than
 * the dearest cell of the run (greedy: from each kept waypoint to the
 * farthest acceptable one).  A straight run is merged under the same test.
 * The result never costs more (by gc_polyline_cost, up to 1e-12 relative
 * rounding per merge) than the path it came from, and never touches an
 * impassable cell or cuts a corner.  A path that is not finite under these
 * rules is left as it is.  Allocates nothing.
 */
void gc_path_smooth(const gc_grid *g, const struct gc_nav *nav,
                    float radius_cells, gc_diag_rule rule, gc_path *p);

/* ---- Navigation data --------------------------------------------------- */

typedef struct gc_nav gc_nav;

/* Compute navigation data for `g` (O(cells)).  Caller owns *out
 * (gc_nav_free).  Errors: GC_EINVAL, GC_ETOOBIG, GC_ENOMEM. */
int gc_nav_new(gc_nav **out, const gc_grid *g);
void gc_nav_free(gc_nav *n); /* NULL allowed */

/* Recompute if the grid's generation, its cells or the set of passable
 * types changed (cheap no-op otherwise).  The grid must keep its size
 * (GC_EINVAL).  On GC_ENOMEM the data stays stale. */
int gc_nav_update(gc_nav *n, const gc_grid *g);

/* Component label of a cell (0 for impassable or outside).  Two passable
 * cells have equal labels exactly when a path joins them under `rule`. */
uint32_t gc_nav_component(const gc_nav *n, gc_diag_rule rule, gc_cell c);

/* Clearance of a cell in cells: Euclidean distance from its centre to the
 * centre of the nearest impassable cell or of the nearest cell outside the
 * map, minus 0.5 (so a cell next to a wall has clearance 0.5).  0 for an
 * impassable cell. */
float gc_nav_clearance(const gc_nav *n, gc_cell c);

/* Bytes the data holds: 13 a cell (labels, clearance, neighbour masks)
 * plus the bitsets of passable cells by row and by column (about 2 bits a
 * cell). */
size_t gc_nav_memory(const gc_nav *n);

/* The grid generation this data was computed for. */
uint64_t gc_nav_generation(const gc_nav *n);

GC_END_DECLS
#endif
