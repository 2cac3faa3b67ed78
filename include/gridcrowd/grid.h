/*
 * gridcrowd/grid.h: cells, cell types and costs, coordinates, neighbours.
 *
 * A grid is width x height cells stored row-major, one byte per cell: the
 * cell's type.  A type's cost comes from the grid's cost table; a type whose
 * cost is not a finite number > 0 is impassable.  Cell (x, y) has x the
 * column and y the row, (0, 0) at the top left, as in Moving AI files.
 *
 * World positions are floats in world units.  A cell is `cell_size` units
 * wide; the centre of cell (x, y) is ((x + 0.5) * cell_size,
 * (y + 0.5) * cell_size), and world y grows downwards.
 *
 * The cell bytes may belong to the grid (gc_grid_new) or to someone else
 * (gc_grid_wrap: the daemon wraps the cell section of its shared-memory
 * world).  The grid is not thread-safe: readers may share it only while no
 * one writes (the simulation changes cells between ticks, with the agent
 * threads parked).
 */
#ifndef GRIDCROWD_GRID_H
#define GRIDCROWD_GRID_H

#include <float.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <gridcrowd/common.h>
#include <gridcrowd/error.h>

GC_BEGIN_DECLS

/* Cell types: the byte stored per cell. */
enum {
    GC_CELL_WALKABLE = 0, /* '.', 'G': cost 1.0 */
    GC_CELL_OBSTACLE = 1, /* '@', 'O', 'T', 'W': impassable */
    GC_CELL_HIGH = 2,     /* 'S': weeds, swamp, cost 2.0 */
    GC_CELL_LOW = 3,      /* 'R': road, cost 0.5 */
    GC_CELL_NTYPES = 4
};

/*
 * Documented limits.  Neither side may exceed GC_GRID_MAX_SIDE and the cell
 * count may not exceed GC_GRID_MAX_CELLS (2^28), so that a cell index fits in
 * 28 bits (the A* context packs flags beside it) and every size computed from
 * a cell count fits comfortably in size_t.
 */
#define GC_GRID_MAX_SIDE 65536
#define GC_GRID_MAX_CELLS ((size_t)1 << 28)

/*
 * The limits above as one check, for every place that accepts a size (a
 * new grid, a map file, a search context, a shared-memory world): GC_OK,
 * GC_EINVAL for a side < 1, GC_ETOOBIG past the limits.  64-bit sides, so
 * that a size read from a file or from shared memory is checked before it
 * is narrowed.
 */
int gc_grid_check_size(int64_t width, int64_t height);

/* Diagonal-move rules for 8-connected movement. */
typedef enum gc_diag_rule {
    GC_DIAG_NO_CORNER_CUT = 0, /* both orthogonal neighbours passable (default,
                                  the Moving AI rule) */
    GC_DIAG_NEVER = 1,         /* no diagonal moves: 4-connected */
    GC_DIAG_ONE_FREE = 2,      /* at least one orthogonal neighbour passable */
    GC_DIAG_ALWAYS = 3         /* any diagonal whose target is passable */
} gc_diag_rule;

/* A cell coordinate. */
typedef struct gc_cell {
    int32_t x, y;
} gc_cell;

/* A world position. */
typedef struct gc_vec2 {
    float x, y;
} gc_vec2;

typedef struct gc_grid {
    int32_t width, height;
    uint8_t *cells;     /* width * height type bytes, row-major */
    float cost[GC_CELL_NTYPES]; /* per type; impassable: not finite or <= 0 */
    float cell_size;    /* world units per cell, > 0 (default 1) */
    uint64_t generation; /* bumped by every change through this API */
    bool owns_cells;    /* cells freed by gc_grid_free */
} gc_grid;

/*
 * The passable-cost rule, once: a cost is passable when it is a finite
 * number > 0; INFINITY, NaN, zero and negative costs are walls.
 */
static inline bool
gc_cost_passable(float cost)
{
    /* NaN fails both comparisons, INFINITY the second. */
    return cost > 0.0f && cost <= FLT_MAX;
}

/* Default cost of a type (1, INFINITY, 2, 0.5); INFINITY for unknown. */
float gc_cell_default_cost(int type);

/* Lower-case name of a type ("walkable", "obstacle", "high", "low"), or
 * NULL when out of range. */
const char *gc_cell_type_name(int type);

/* Type from a name (as above, also "high-cost", "low-cost", "wall") or from a
 * one-character map glyph ('.', '@', 'S', 'R', ...); GC_EINVAL if unknown
 * (a type is never negative, so `< 0` tells). */
int gc_cell_type_parse(const char *s);

/* Type of a map glyph, or GC_EINVAL if the glyph is not in the legend. */
int gc_cell_type_from_glyph(char c);

/* The canonical glyph written for a type ('.', '@', 'S', 'R'). */
char gc_cell_type_glyph(int type);

/*
 * New grid of width x height walkable cells with the default cost table and
 * cell_size 1.  Returns GC_EINVAL for a side < 1, GC_ETOOBIG past the limits
 * above, GC_ENOMEM.  The caller owns *out and frees it with gc_grid_free.
 */
int gc_grid_new(gc_grid **out, int32_t width, int32_t height);

/*
 * Grid over cells that the caller owns and keeps alive for the grid's life
 * (e.g. a shared-memory section).  The cell bytes are not touched.
 */
int gc_grid_wrap(gc_grid **out, int32_t width, int32_t height,
                 uint8_t *cells);

/* Free a grid and, if it owns them, its cells.  NULL is allowed. */
void gc_grid_free(gc_grid *g);

/* Deep copy: a new grid owning a copy of the cells, same costs and size. */
int gc_grid_clone(gc_grid **out, const gc_grid *g);

/* True when both grids have the same size, cells, costs and cell size. */
bool gc_grid_equal(const gc_grid *a, const gc_grid *b);

/* Set a type's cost.  Obstacle stays impassable; a value must be finite and
 * > 0 (GC_ERANGE otherwise); GC_EINVAL for an unknown type. */
int gc_grid_set_cost(gc_grid *g, int type, float cost);

/* Make every passable type cost 1 (what Moving AI scenario lengths assume). */
void gc_grid_set_uniform(gc_grid *g);

/* Cheapest cost among passable types, the heuristic's scale; 0 if none. */
float gc_grid_min_cost(const gc_grid *g);

static inline bool
gc_grid_in_bounds(const gc_grid *g, int32_t x, int32_t y)
{
    return x >= 0 && y >= 0 && x < g->width && y < g->height;
}

static inline size_t
gc_grid_index(const gc_grid *g, int32_t x, int32_t y)
{
    return (size_t)y * (size_t)g->width + (size_t)x;
}

/* Type of cell (x, y); GC_CELL_OBSTACLE outside the map. */
static inline int
gc_grid_get(const gc_grid *g, int32_t x, int32_t y)
{
    /* The cast keeps both arms int: C++ warns when an enumerator meets an
     * integer in a conditional. */
    return gc_grid_in_bounds(g, x, y) ? (int)g->cells[gc_grid_index(g, x, y)]
                                      : (int)GC_CELL_OBSTACLE;
}

/* True when (x, y) is on the map and its type's cost is finite and > 0. */
bool gc_grid_passable(const gc_grid *g, int32_t x, int32_t y);

/* Cost of entering (x, y): its type's cost; INFINITY when impassable. */
float gc_grid_cell_cost(const gc_grid *g, int32_t x, int32_t y);

/* Set one cell (GC_EOUTSIDE, GC_EINVAL for a bad type); bumps generation
 * when the type changes. */
int gc_grid_set(gc_grid *g, int32_t x, int32_t y, int type);

/* Fill every cell with `type`; bumps generation. */
int gc_grid_fill(gc_grid *g, int type);

/* World position of the centre of cell c. */
gc_vec2 gc_grid_cell_center(const gc_grid *g, gc_cell c);

/* Cell containing world position p (may be outside the map: check with
 * gc_grid_in_bounds).  Positions on a border belong to the cell right/below. */
gc_cell gc_grid_world_to_cell(const gc_grid *g, gc_vec2 p);

/*
 * The 8-connected line of cells between cells a and b: the one rule for
 * every program that turns a stroke into cells.  The daemon paints a LINE
 * edit with it, the viewer previews a stroke with it, so that what the
 * viewer shows is what the daemon paints.
 *
 * Integer Bresenham: max(|dx|, |dy|) + 1 cells, a and b included, one step
 * along the longer axis each (diagonal steps when |dx| == |dy|).  The walk
 * runs from the canonical start, the end with the smaller x (the smaller y
 * when the x are equal), so a-b and b-a give the same cells in the same
 * order.  Each cell is the one nearest the segment between the two centres
 * on its column (rows, when |dy| > |dx|); where the segment passes exactly
 * half-way between two cells, the one nearer the canonical end wins.
 *
 *     gc_line_walk lw;
 *     gc_cell c;
 *     gc_line_walk_init(&lw, a, b);
 *     while (gc_line_walk_next(&lw, &c))
 *         ...
 *
 * Any int32 coordinates are allowed (the cells need not be on a map), and
 * nothing is allocated.  The fields are the walk's state, not for callers.
 */
typedef struct gc_line_walk {
    int64_t x, y, x1, y1; /* the next cell, the last cell */
    int64_t dx, dy, err;  /* |x1 - x0|, |y1 - y0|, Bresenham's error */
    int32_t sy;           /* +1 or -1: the step in y */
    bool done;            /* the last cell was yielded */
} gc_line_walk;

/* Start a walk from a to b (in the canonical order above). */
void gc_line_walk_init(gc_line_walk *w, gc_cell a, gc_cell b);

/* The next cell in *c and true, or false once the walk has yielded the
 * last one (and on every call after that). */
bool gc_line_walk_next(gc_line_walk *w, gc_cell *c);

/* One move to a neighbour. */
typedef struct gc_step {
    gc_cell to;
    float cost; /* step length (1 or sqrt 2) times the cost of `to` */
} gc_step;

/*
 * The legal moves from (x, y), at most 8, written to out[] (orthogonal ones
 * first: E, S, W, N, then SE, SW, NW, NE), returning how many.  With
 * GC_DIAG_NEVER the grid is 4-connected; otherwise diagonals follow `rule`.
 * A move is legal only into a passable cell on the map.  Returns 0 when
 * (x, y) itself is outside the map.
 */
int gc_grid_neighbors(const gc_grid *g, int32_t x, int32_t y,
                      gc_diag_rule rule, gc_step out[8]);

/* True when the move from a to an adjacent cell b is legal under `rule`. */
bool gc_grid_move_legal(const gc_grid *g, gc_cell a, gc_cell b,
                        gc_diag_rule rule);

/* Cost of the step a -> b (adjacent): its length times the cost of b;
 * INFINITY when the move is not legal under `rule`. */
float gc_grid_step_cost(const gc_grid *g, gc_cell a, gc_cell b,
                        gc_diag_rule rule);

GC_END_DECLS
#endif
