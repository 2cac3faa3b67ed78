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

/* Direction d: E, S, W, N, then SE, SW, NW, NE. */
static const int8_t gc_dir_dx[8] = {1, 0, -1, 0, 1, -1, -1, 1};
static const int8_t gc_dir_dy[8] = {0, 1, 0, -1, 1, 1, -1, -1};
/* Orthogonal directions beside diagonal d (d = 4..7), as bit masks. */
static const uint8_t gc_dir_orth_mask[8] = {0, 0, 0, 0,
                                            (1u << 0) | (1u << 1),  /* SE: E S */
                                            (1u << 2) | (1u << 1),  /* SW: W S */
                                            (1u << 2) | (1u << 3),  /* NW: W N */
                                            (1u << 0) | (1u << 3)}; /* NE: E N */
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
        float c = g->cost[t];
        if (isfinite(c) && c > 0.0f)
            lut[t] = c;
    }
}

/*
 * Bit mask of the legal moves from (x, y), bit d for direction d.  `lut` is
 * the grid's cost table from gc_grid_cost_lut.  (x, y) must be on the map.
 */
static inline unsigned
gc_grid_legal_dirs(const uint8_t *cells, const float *lut, int32_t w,
                   int32_t h, int32_t x, int32_t y, gc_diag_rule rule)
{
    size_t i = (size_t)y * (size_t)w + (size_t)x;
    unsigned orth = 0;
    if (x + 1 < w && isfinite(lut[cells[i + 1]]))
        orth |= 1u << 0;
    if (y + 1 < h && isfinite(lut[cells[i + (size_t)w]]))
        orth |= 1u << 1;
    if (x > 0 && isfinite(lut[cells[i - 1]]))
        orth |= 1u << 2;
    if (y > 0 && isfinite(lut[cells[i - (size_t)w]]))
        orth |= 1u << 3;
    if (rule == GC_DIAG_NEVER)
        return orth;

    unsigned mask = orth;
    for (int d = 4; d < 8; d++) {
        int32_t nx = x + gc_dir_dx[d], ny = y + gc_dir_dy[d];
        if (nx < 0 || ny < 0 || nx >= w || ny >= h)
            continue;
        if (!isfinite(lut[cells[(size_t)ny * (size_t)w + (size_t)nx]]))
            continue;
        unsigned need = gc_dir_orth_mask[d];
        bool ok;
        switch (rule) {
        case GC_DIAG_NO_CORNER_CUT:
            ok = (orth & need) == need;
            break;
        case GC_DIAG_ONE_FREE:
            ok = (orth & need) != 0;
            break;
        default: /* GC_DIAG_ALWAYS */
            ok = true;
            break;
        }
        if (ok)
            mask |= 1u << d;
    }
    return mask;
}

#endif
