/*
 * astar_int.h: what the astar, nav and smooth sources share but users do
 * not: the layout of gc_nav (the search reads its labels and clearance in
 * the inner loop), the per-search pricing helpers that gc_astar_find and
 * gc_polyline_cost must agree on, a test hook for the search stamp, and
 * what the pieces of the A* module share among themselves: the context's
 * layout, one search's parameters and results, and the entry points of
 * the search loop (astar-search.c) and path reading (astar-path.c).  The
 * open list and jump scanning, which the loop must inline, are in
 * astar-heap.h and jps.h.
 */
#ifndef GRIDCROWD_ASTAR_INT_H
#define GRIDCROWD_ASTAR_INT_H

#include <gridcrowd/astar.h>

#include "grid_int.h"

#include <math.h>

/*
 * Navigation data.  Written only by gc_nav_new / gc_nav_update /
 * gc_nav_derive; read-only (and so shareable between threads) in between.
 * Derived data has no clearance (clear and clear4 NULL): searches with a
 * radius refuse it.
 */
struct gc_nav {
    int32_t width, height;
    uint64_t generation;  /* grid generation the data describes */
    unsigned pass_types;  /* bit t set when type t was passable then */
    const uint8_t *cells; /* the cell array it was computed from */
    uint32_t *comp4;      /* labels under 4-connectivity, 0 = impassable */
    uint32_t *comp8;      /* labels under 8-connectivity (GC_DIAG_ALWAYS) */
    float *clear;         /* clearance in cells, 0 for impassable */
    uint8_t *clear4;      /* the same in quarter cells, rounded down and
                             at most 255: a quarter of the bytes, for the
                             crowd step's once-an-agent lookups (the float
                             map of a large grid does not stay in cache) */
    unsigned present;     /* bit t when some cell has type t */
    uint8_t *open8;       /* per cell: bit d when the neighbour in
                             direction d is on the map and passable */
    /* Passability bitsets for jump point search, one padded line of
     * line_words(side) words per row (`rows`, height + 2 lines: y + 1) and
     * per column (`cols`, width + 2 lines: x + 1); see GC_NAV_PAD. */
    size_t row_words, col_words;
    uint64_t *rows;
    uint64_t *cols;
};

/* gc_nav_clearance, inline (the crowd step's wall checks). */
static inline float
gc_nav_clear_at(const gc_nav *n, gc_cell c)
{
    if (c.x < 0 || c.y < 0 || c.x >= n->width || c.y >= n->height)
        return 0.0f;
    return n->clear[(size_t)c.y * (size_t)n->width + (size_t)c.x];
}

/* Fetch into the caches what gc_nav_clear_low(n, c) will read (the crowd
 * step asks it of every agent every tick: with 100,000 agents on a large
 * map a miss each, most of the step's first pass). */
static inline void
gc_nav_clear_prefetch(const gc_nav *n, gc_cell c)
{
    if (c.x >= 0 && c.y >= 0 && c.x < n->width && c.y < n->height)
        __builtin_prefetch(
            &n->clear4[(size_t)c.y * (size_t)n->width + (size_t)c.x]);
}

/* The byte of c in clear4 (0 off the map). */
static inline uint8_t
gc_nav_clear4(const gc_nav *n, gc_cell c)
{
    if (c.x < 0 || c.y < 0 || c.x >= n->width || c.y >= n->height)
        return 0;
    return n->clear4[(size_t)c.y * (size_t)n->width + (size_t)c.x];
}

/* A lower bound of gc_nav_clearance, within a quarter cell below 63.75
 * cells: for the crowd step's shortcuts, each of which only ever skips
 * work that would find nothing. */
static inline float
gc_nav_clear_low(const gc_nav *n, gc_cell c)
{
    return 0.25f * (float)gc_nav_clear4(n, c);
}

/*
 * A bitset line: bit GC_NAV_PAD + i is set when cell i of the row (or
 * column) is passable.  GC_NAV_PAD zero bits before cell 0 and at least two
 * zero words after the last cell make the cells just off the map read as
 * walls, and let a reader load any 64-bit window that starts at a bit from
 * 0 to the last cell's + 64 (two words) without bounds checks.  The lines
 * just above and below the map (rows -1 and height, columns -1 and width)
 * are all zero.
 */
#define GC_NAV_PAD 64

/* Words in a bitset line for `n` cells. */
static inline size_t
gc_nav_line_words(int32_t n)
{
    return ((size_t)n + 63) / 64 + 3;
}

/* Line of row y (-1 .. height) or column x (-1 .. width). */
static inline const uint64_t *
gc_nav_row(const gc_nav *n, int32_t y)
{
    return n->rows + (size_t)(y + 1) * n->row_words;
}

static inline const uint64_t *
gc_nav_col(const gc_nav *n, int32_t x)
{
    return n->cols + (size_t)(x + 1) * n->col_words;
}

/* Navigation data's arrays for a w x h grid, with or without clearance's;
 * NULL when out of memory.  Nothing computed. */
gc_nav *gc_nav_alloc(int32_t w, int32_t h, bool clearance);

/* Label n's components for g afresh (both labellings), with `queue` (a
 * cell an entry) as scratch. */
void gc_nav_label(gc_nav *n, const gc_grid *g, uint32_t *queue);

/*
 * Navigation data for g, a grid that is bg but for the cells listed in
 * blocked[0 .. count) (indices), which are impassable in g (passable or
 * not in bg), made from bg's data `base` (nav-derive.c): the same data
 * gc_nav_new makes, but without clearance, and with component labels
 * that may be numbered differently (equal exactly when a path joins two
 * cells).  *io is reused when not NULL (derived data, or any of the
 * grid's size), else allocated; the caller owns it (gc_nav_free).  base
 * must be fresh for bg and have clearance.  *relabelled (NULL
 * allowed) tells whether the components were labelled afresh (a blocked
 * cluster cut a passage) or repaired.  GC_EINVAL (base stale, sizes,
 * types, or cells that are not bg's but for the blocked ones), GC_ENOMEM; on an
 * error *io may be stale.
 */
int gc_nav_derive(gc_nav **io, const gc_nav *base, const gc_grid *bg,
                  const gc_grid *g, const uint32_t *blocked, size_t count,
                  bool *relabelled);

/* Bit t set when type t is passable under g's cost table. */
static inline unsigned
gc_nav_pass_types(const gc_grid *g)
{
    unsigned m = 0;
    for (int t = 0; t < GC_CELL_NTYPES; t++)
        if (gc_cost_passable(g->cost[t]))
            m |= 1u << t;
    return m;
}

/* True when nav describes g as it is now (same cells, generation and set
 * of passable types). */
static inline bool
gc_nav_fresh(const gc_nav *n, const gc_grid *g)
{
    return n->cells == g->cells && n->generation == g->generation &&
           n->pass_types == gc_nav_pass_types(g);
}

/*
 * What pricing a step or a segment needs: the grid, its cost table, and the
 * optional clearance limit.  A cell is blocked when it is off the map,
 * impassable, or (radius_cells > 0) has clearance below radius_cells.
 */
typedef struct gc_pricer {
    const gc_grid *g;
    const float *clear; /* NULL when radius_cells is 0 */
    float radius_cells;
    float lut[256];
} gc_pricer;

/* Fill `p` for g; nav may be NULL when radius_cells <= 0. */
void gc_pricer_init(gc_pricer *p, const gc_grid *g, const gc_nav *nav,
                    float radius_cells);

/* Cost of a grid step a -> b (adjacent) under `rule`, in double: its length
 * (1 or sqrt 2) times the cost of b; INFINITY when the move is not legal
 * with blocked cells (see gc_pricer) as walls. */
double gc_pricer_step(const gc_pricer *p, gc_cell a, gc_cell b,
                      gc_diag_rule rule);

/* Cost of one polyline piece a -> b: a grid step when a and b are adjacent,
 * else the segment cost; *maxc gets the dearest cell the piece enters. */
double gc_pricer_piece(const gc_pricer *p, gc_cell a, gc_cell b,
                       gc_diag_rule rule, double *maxc);

/* Sum of the pieces of `p` (0 for one passable cell, INFINITY when empty). */
double gc_pricer_polyline(const gc_pricer *pr, gc_diag_rule rule,
                          const gc_path *p);

/*
 * Whether the straight piece a -> b (a != b) is a cheapest way from a to
 * b for a body of radius_cells on g: one the pricer accepts (every cell it
 * touches open, no corner cut: gc_pricer_piece), entering only cells of
 * the cheapest passable type on the map (of the types nav, which
 * describes g, says are there; all types when nav is NULL).  No path of
 * steps and segments can then cost less (each piece costs at least its
 * length times that cost, and none is shorter than the straight line), so
 * a search and its smoothing could only match it.
 */
bool gc_straight_best(const gc_grid *g, const gc_nav *nav, float radius_cells,
                      gc_diag_rule rule, gc_cell a, gc_cell b);

/* Searches a context runs before its per-cell records are cleared once. */
#define GC_ASTAR_STAMP_MAX ((1u << 28) - 1)

/*
 * Test hook: set the context's search stamp, so that a test can reach the
 * wrap-around (where the per-cell records are cleared once) in a few
 * searches.  Not for production use.
 */
void gc_astar_debug_set_stamp(gc_astar *a, uint32_t stamp);

/* Largest open list any search of this context needed (entries). */
size_t gc_astar_debug_heap_peak(const gc_astar *a);

/* ---- the A* module's own pieces ---------------------------------------- */

#if defined(__GNUC__)
#define GC_INLINE static inline __attribute__((always_inline))
#define GC_NOINLINE static __attribute__((noinline))
#define GC_LIKELY(x) __builtin_expect(!!(x), 1)
#define GC_UNLIKELY(x) __builtin_expect(!!(x), 0)
#else
#define GC_INLINE static inline
#define GC_NOINLINE static
#define GC_LIKELY(x) (x)
#define GC_UNLIKELY(x) (x)
#endif

/* A cell's record, meta[c]: stamp << 4 | closed (bit 3) | direction of the
 * step that reached it (bits 0-2); see the design note of astar.c. */
#define GC_META_CLOSED 8u
#define GC_META_DIR 7u

/* The open list's array: GC_HEAP_PAD entries before index 0 so that each
 * group of four children is one GC_HEAP_ALIGN-byte line. */
#define GC_HEAP_ALIGN 64
#define GC_HEAP_PAD 3

struct gc_hent;

/*
 * The search context.  Owned by one thread at a time (gc_astar is not
 * shared): every field is written by gc_astar_new, gc_astar_find and the
 * search it runs, in the caller's thread.
 */
struct gc_astar {
    int32_t width, height;
    size_t ncells;
    uint32_t *meta;
    double *g;
    unsigned char *heap_mem; /* allocation holding the heap */
    struct gc_hent *heap;    /* heap_mem + GC_HEAP_PAD entries */
    size_t heap_cap;         /* entries */
    size_t heap_peak;        /* most entries any search held */
    uint32_t stamp;          /* of the last search */
    ptrdiff_t off[8];        /* index offset of direction d */
    /* Cost tables for the grid cost table in cost_key. */
    bool costs_valid;
    float cost_key[GC_CELL_NTYPES];
    uint8_t pass[256];              /* 1 when the byte is passable */
    double step[2][GC_CELL_NTYPES]; /* [diagonal][type] step cost */
};

/* One search: what gc_astar_find sets up, and what the loop returns. */
typedef struct gc_search {
    const uint8_t *cells;
    const float *clear; /* with a radius only */
    float rc;           /* radius in cells */
    int32_t w, h;
    uint32_t start, goal;
    uint32_t start_xy;
    int32_t gx, gy;
    gc_diag_rule rule;
    gc_heuristic near; /* metric for "nearest to the goal" (partial) */
    double hk1, hk2;   /* heuristic coefficients, scale and weight included */
    bool optimal;
    bool partial;
    uint64_t cap;
    gc_trace *trace;
    const gc_nav *nav; /* JPS: the bitsets */
    double unit;       /* JPS: the cost of every passable cell present */
    bool uniform;      /* every step costs its length times one cost, */
    double ucost;      /* this one */
    /* results */
    uint64_t expanded, opened, scanned;
    bool found, limited;
    int err;
    uint32_t best, best_xy; /* partial target */
    uint32_t end, end_xy;   /* where the path ends */
} gc_search;

/* Grow a's open list by half, keeping its first n entries (astar.c). */
int gc_astar_heap_grow(gc_astar *a, size_t n);

/* Fill the process-wide move tables once (astar-search.c); thread-safe. */
void gc_astar_tables_init(void);

/*
 * Run search s on a (astar-search.c): jump point search when jps, else the
 * A* instance for heuristic hk (not GC_HEUR_DEFAULT) with or without a
 * clearance radius.  Results, and s->err, are in s.
 */
void gc_astar_run(gc_astar *a, gc_search *s, gc_heuristic hk, bool rad,
                  bool jps);

/*
 * Read the path of an A* search back from `end` (at end_xy, y << 16 | x)
 * to the start, into out, start first, and its cost into *cost
 * (astar-path.c).  0 or GC_ENOMEM.
 */
int gc_astar_build_path(const gc_astar *a, const gc_search *s, uint32_t end,
                        uint32_t end_xy, gc_path *out, double *cost);

/* The same for a JPS search that found the goal: every cell walked. */
int gc_astar_build_path_jps(const gc_astar *a, const gc_search *s, gc_path *out,
                            double *cost);

/* Why GC_ALGO_JPS is refused (GC_EINVAL) for a search of g under o: the
 * first of jump point search's conditions (gc_algo in astar.h) that fails,
 * as a clause ("it gives no partial paths"); NULL when they all hold. */
const char *gc_astar_jps_why_not(const gc_grid *g, const gc_astar_opts *o);

#endif
