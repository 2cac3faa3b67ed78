/*
 * grid_int.h: what other modules of libgridcrowd need from the grid but
 * users do not.  The move rules live here once, as inline functions, so that
 * gc_grid_neighbors and the A* inner loop can never disagree about which
 * moves are legal.
 */
#ifndef GRIDCROWD_GRID_INT_H
#define GRIDCROWD_GRID_INT_H

#include <gridcrowd/grid.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* floor(q) as an int32_t, clamped to its range (not a number: the least).
 * From 0 up by a truncation, which is the floor there: without SSE4.1
 * floor is a dozen instructions, and the crowd takes several a tick for
 * every agent (an eighth of the crowd step's own samples in circle 1,000
 * went to gc_grid_cell_of's).  A float argument is exact in double. */
static inline int32_t
gc_ifloor(double q)
{
    if (q >= 0.0 && q < 2147483520.0)
        return (int32_t)q;
    /* Clamp before converting: a value beyond int32 range is undefined
     * behaviour to convert.  Anything this far out is outside the map. */
    double f = floor(q);
    if (!(f > -2147483648.0))
        f = -2147483648.0;
    if (!(f < 2147483520.0))
        f = 2147483520.0;
    return (int32_t)f;
}

/* gc_grid_world_to_cell, inline: the crowd step asks it of every agent
 * several times a tick. */
static inline gc_cell
gc_grid_cell_of(const gc_grid *g, gc_vec2 p)
{
    gc_cell c = {gc_ifloor(p.x / g->cell_size), gc_ifloor(p.y / g->cell_size)};
    return c;
}

/* Direction d: E, S, W, N, then SE, SW, NW, NE. */
static const int8_t gc_dir_dx[8] = {1, 0, -1, 0, 1, -1, -1, 1};
static const int8_t gc_dir_dy[8] = {0, 1, 0, -1, 1, 1, -1, -1};
/* Orthogonal directions beside diagonal d (d = 4..7), as bit masks. */
static const uint8_t gc_dir_orth_mask[8] = {0,
                                            0,
                                            0,
                                            0,
                                            (1u << 0) | (1u << 1), /* SE: E S */
                                            (1u << 2) | (1u << 1), /* SW: W S */
                                            (1u << 2) | (1u << 3), /* NW: W N */
                                            (1u << 0) |
                                                (1u << 3)}; /* NE: E N */
#define GC_SQRT2 1.41421356237309504880

/* Direction index of the unit step (dx, dy), or -1. */
static inline int
gc_dir_of(int dx, int dy)
{
    for (int d = 0; d < 8; d++)
        if (gc_dir_dx[d] == dx && gc_dir_dy[d] == dy)
            return d;
    return -1;
}

/*
 * Per-byte cost table: lut[b] is the cost of entering a cell whose byte is b,
 * INFINITY for impassable types and for bytes that are not a known type (a
 * corrupt cell is treated as a wall, never as an index out of the table).
 */
static inline void
gc_grid_cost_lut(const gc_grid *g, float lut[256])
{
    for (int b = 0; b < 256; b++)
        lut[b] = INFINITY;
    for (int t = 0; t < GC_CELL_NTYPES; t++) {
        if (gc_cost_passable(g->cost[t]))
            lut[t] = g->cost[t];
    }
}

/*
 * The move rule itself, once: the mask of legal moves given `open`, whose
 * bit d is set when the neighbour in direction d is on the map and passable.
 * An orthogonal move needs only its target; a diagonal needs its target and,
 * by `rule`, both (no corner cutting), at least one (one-free) or neither
 * (always) of the two orthogonal cells beside it; GC_DIAG_NEVER allows no
 * diagonal.  Branch-free apart from the switch on the rule, because the A*
 * inner loop calls it on every expansion.
 */
static inline unsigned
gc_dirs_from_open(unsigned open, gc_diag_rule rule)
{
    unsigned orth = open & 0xFu;
    /* Bit i of `next` is orthogonal direction (i + 1) mod 4, so bit i of
     * orth & next says that both orthogonals beside diagonal 4 + i are open
     * (SE: E S, SW: S W, NW: W N, NE: N E; see gc_dir_orth_mask). */
    unsigned next = ((orth >> 1) | (orth << 3)) & 0xFu;
    switch (rule) {
    case GC_DIAG_NEVER:
        return orth;
    case GC_DIAG_NO_CORNER_CUT:
        return orth | (((orth & next) << 4) & open);
    case GC_DIAG_ONE_FREE:
        return orth | (((orth | next) << 4) & open);
    default: /* GC_DIAG_ALWAYS */
        return open & 0xFFu;
    }
}

/*
 * Bit mask of the neighbours of (x, y) that are on the map and passable, bit
 * d for direction d.  `lut` is the grid's cost table from gc_grid_cost_lut.
 * (x, y) must be on the map.
 */
static inline unsigned
gc_grid_open_dirs(const uint8_t *cells, const float *lut, int32_t w, int32_t h,
                  int32_t x, int32_t y)
{
    unsigned open = 0;
    for (int d = 0; d < 8; d++) {
        int32_t nx = x + gc_dir_dx[d], ny = y + gc_dir_dy[d];
        if (nx < 0 || ny < 0 || nx >= w || ny >= h)
            continue;
        if (isfinite(lut[cells[(size_t)ny * (size_t)w + (size_t)nx]]))
            open |= 1u << d;
    }
    return open;
}

/*
 * Bit mask of the legal moves from (x, y), bit d for direction d.  `lut` is
 * the grid's cost table from gc_grid_cost_lut.  (x, y) must be on the map.
 */
static inline unsigned
gc_grid_legal_dirs(const uint8_t *cells, const float *lut, int32_t w, int32_t h,
                   int32_t x, int32_t y, gc_diag_rule rule)
{
    return gc_dirs_from_open(gc_grid_open_dirs(cells, lut, w, h, x, y), rule);
}

/*
 * The cells a straight segment between the centres of cells a and b
 * touches, walked in exact integer arithmetic: in half-cell units the
 * segment crosses vertical grid line k at t = (2k + 1) / (2|dx|) and
 * horizontal line j at t = (2j + 1) / (2|dy|), and comparing (2k + 1)|dy|
 * with (2j + 1)|dx| says which comes first.  Equal means it passes exactly
 * through a grid corner: the two cells beside the corner are touched but not
 * entered, and the walk moves on diagonally (the no-corner-cut rule at any
 * angle).  The start cell is not yielded; b is the last cell yielded.
 *
 *     gc_supercover it;
 *     gc_supercover_init(&it, a, b);
 *     while (gc_supercover_next(&it, &c, &entered)) ...
 */
/*
 * The cells an exact segment from p to q passes through, in order (a grid
 * traversal after Amanatides and Woo), for segments that start anywhere in
 * a cell (an agent's position) rather than at a centre:
 *
 *     gc_ray r;
 *     gc_ray_init(&r, cell_size, p, q);
 *     for (int64_t k = 0; k <= r.steps; k++) {
 *         ... r.c is the current cell ...
 *         if (gc_ray_done(&r))
 *             break;
 *         bool corner = gc_ray_corner(&r, eps);
 *         ... through a corner: the cells on both sides, r.c + (sx, 0)
 *             and r.c + (0, sy), are touched too ...
 *         gc_ray_advance(&r, corner);
 *     }
 *
 * `steps` bounds the walk against a float surprise: each step moves one
 * cell towards `end`.
 */
typedef struct gc_ray {
    gc_cell c, end;
    int sx, sy;
    double tdx, tdy, tmx, tmy;
    int64_t steps;
} gc_ray;

static inline void
gc_ray_init(gc_ray *r, double cs, gc_vec2 p, gc_vec2 q)
{
    double px = p.x / cs, py = p.y / cs, qx = q.x / cs, qy = q.y / cs;
    r->c = (gc_cell){gc_ifloor(px), gc_ifloor(py)};
    r->end = (gc_cell){gc_ifloor(qx), gc_ifloor(qy)};
    double dx = qx - px, dy = qy - py;
    r->sx = dx > 0 ? 1 : (dx < 0 ? -1 : 0);
    r->sy = dy > 0 ? 1 : (dy < 0 ? -1 : 0);
    r->tdx = r->sx ? 1.0 / fabs(dx) : INFINITY;
    r->tdy = r->sy ? 1.0 / fabs(dy) : INFINITY;
    r->tmx = r->sx > 0   ? ((double)r->c.x + 1 - px) * r->tdx
             : r->sx < 0 ? (px - (double)r->c.x) * r->tdx
                         : INFINITY;
    r->tmy = r->sy > 0   ? ((double)r->c.y + 1 - py) * r->tdy
             : r->sy < 0 ? (py - (double)r->c.y) * r->tdy
                         : INFINITY;
    r->steps = 2 + (int64_t)llabs((long long)r->end.x - r->c.x) +
               (int64_t)llabs((long long)r->end.y - r->c.y);
}

/* The segment ends in the current cell. */
static inline bool
gc_ray_done(const gc_ray *r)
{
    /* (The cells' difference as one int: GCC merged the two compares
     * of `c == end` into one of 64 bits through the stack, whose load
     * from two 32-bit stores stalled on every step of the walk.) */
    return ((r->c.x ^ r->end.x) | (r->c.y ^ r->end.y)) == 0 ||
           (r->tmx > 1.0 && r->tmy > 1.0);
}

/* The next step goes through a corner, or within `eps` (a fraction of the
 * segment) of one. */
static inline bool
gc_ray_corner(const gc_ray *r, double eps)
{
    return fabs(r->tmx - r->tmy) < eps;
}

/* `d` where `on`, else +0 (whose sum with any t but -0 is t): a select
 * without a branch. */
static inline double
gc_ray_pick(bool on, double d)
{
    uint64_t bits;
    memcpy(&bits, &d, sizeof bits);
    bits &= -(uint64_t)on;
    memcpy(&d, &bits, sizeof d);
    return d;
}

/* To the next cell: diagonally through a corner, else across the nearer
 * side.  Without a branch on the side: along a slanted line the steps
 * alternate irregularly, and the branch mispredicted so (the walk of a
 * body's visibility check, 16 cells, was most of its time).  The sums
 * are the branching code's: a step not taken adds +0 to a tm that is
 * positive or infinite, and an axis the ray does not move on (tdx
 * infinite) never has the nearer side. */
static inline void
gc_ray_advance(gc_ray *r, bool corner)
{
    bool nx = r->tmx < r->tmy;
    bool bx = corner | nx, by = corner | !nx;
    r->c.x += r->sx & -(int)bx;
    r->c.y += r->sy & -(int)by;
    r->tmx += gc_ray_pick(bx, r->tdx);
    r->tmy += gc_ray_pick(by, r->tdy);
}

typedef struct gc_supercover {
    int32_t x, y, sx, sy;
    int64_t nx, ny, ix, iy;
    int corner; /* 1: second corner cell next; 2: the diagonal move next */
} gc_supercover;

static inline void
gc_supercover_init(gc_supercover *it, gc_cell a, gc_cell b)
{
    int64_t dx = (int64_t)b.x - a.x, dy = (int64_t)b.y - a.y;
    it->x = a.x;
    it->y = a.y;
    it->sx = dx > 0 ? 1 : -1;
    it->sy = dy > 0 ? 1 : -1;
    it->nx = dx < 0 ? -dx : dx;
    it->ny = dy < 0 ? -dy : dy;
    it->ix = it->iy = 0;
    it->corner = 0;
}

/* The next cell touched: *entered is false for a cell only touched at a
 * corner.  False when the walk has reached b. */
static inline bool
gc_supercover_next(gc_supercover *it, gc_cell *c, bool *entered)
{
    if (it->corner == 1) {
        *c = (gc_cell){it->x, it->y + it->sy};
        *entered = false;
        it->corner = 2;
        return true;
    }
    if (it->corner == 2) {
        it->x += it->sx;
        it->y += it->sy;
        it->ix++;
        it->iy++;
        it->corner = 0;
    } else {
        if (it->ix >= it->nx && it->iy >= it->ny)
            return false;
        int64_t tx = (2 * it->ix + 1) * it->ny, ty = (2 * it->iy + 1) * it->nx;
        if (it->ix < it->nx && (it->iy >= it->ny || tx < ty)) {
            it->x += it->sx;
            it->ix++;
        } else if (it->iy < it->ny && (it->ix >= it->nx || ty < tx)) {
            it->y += it->sy;
            it->iy++;
        } else {
            *c = (gc_cell){it->x + it->sx, it->y};
            *entered = false;
            it->corner = 1;
            return true;
        }
    }
    *c = (gc_cell){it->x, it->y};
    *entered = true;
    return true;
}

/*
 * Whether a spawn or goal point (x, y), named `what` ("position", "goal"),
 * lies on a passable cell of g: GC_OK with the cell in *out, GC_EOUTSIDE
 * off the map, GC_EBLOCKED in an impassable cell, each with its one-line
 * message in err.  The rule the simulation refuses points by, and the one
 * gc_edit_spawn_why explains a refusal with.
 */
int gc_grid_check_point(const gc_grid *g, const char *what, float x, float y,
                        gc_cell *out, gc_error *err);

#endif
