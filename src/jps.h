/*
 * jps.h: jump scanning, the successor generator of jump point search, as
 * inline functions.  The search loop (astar-search.c) jumps from every jump
 * point it expands; with the jumps out of line in a jps.c (one call a jump
 * point) JPS ran 12% more instructions (callgrind, the three Moving AI
 * maps) than with them inlined, their directions constants.
 *
 * On a grid whose passable cells present all cost the same, moving without
 * cutting corners, most of A*'s work is symmetric: many equally short paths
 * to each cell.  JPS (Harabor and Grastien; the rules for no corner cutting
 * are those of their 2014 paper) expands only jump points, with the same
 * search loop, open list, keys, records and exactness repairs as A*
 * (astar-search.c); this file finds a jump point's successors.  A straight
 * jump runs until a wall (nothing found), the goal, or a cell with a forced
 * neighbour: a side cell that is passable while the side cell of its
 * predecessor is a wall, so that the side can be reached best through this
 * cell.  A diagonal jump steps while the move is legal (both orthogonal
 * cells free, gc_dirs_from_open's rule) and stops at the goal or at a cell
 * from which a straight jump along either component finds something;
 * diagonal moves have no forced neighbours under this rule.  A jump point
 * reached straight goes on straight and turns to its forced sides, straight
 * and diagonally forward; one reached diagonally goes on diagonally and
 * along both components; the start goes every way.  Straight jumps scan the
 * nav bitsets (rows, or columns transposed) 64 cells a window: walls are
 * ~row, forced cells side & ~(side << 1), the goal one bit, and the first
 * set bit (ctz, clz going back) is the answer.
 *
 * The jumps only read the nav bitsets (read-only while a search runs, see
 * gc_nav) and count what they scan in the caller's gc_jumper, a local of
 * the search loop.
 */
#ifndef GRIDCROWD_JPS_H
#define GRIDCROWD_JPS_H

#include "astar_int.h"

/* What the jumps of one JPS search read: the nav bitsets and the goal;
 * scanned counts the cells they looked at. */
typedef struct gc_jumper {
    const uint64_t *rows, *cols;
    size_t rw, cw; /* words a line */
    int32_t gx, gy;
    uint64_t scanned;
} gc_jumper;

/* A position on a line no goal is at (see gc_jps_scan_up). */
#define GC_JPS_NOGOAL (-(1 << 24))

GC_INLINE const uint64_t *
gc_jps_row(const gc_jumper *j, int32_t y)
{
    return j->rows + (size_t)(y + 1) * j->rw;
}

GC_INLINE const uint64_t *
gc_jps_col(const gc_jumper *j, int32_t x)
{
    return j->cols + (size_t)(x + 1) * j->cw;
}

/* 1 when cell i of a line is passable (i from -1 to the line's length). */
GC_INLINE unsigned
gc_jps_bit(const uint64_t *line, int32_t i)
{
    size_t b = (size_t)(i + GC_NAV_PAD);
    return (unsigned)(line[b >> 6] >> (b & 63)) & 1u;
}

/* The 64 bits of a line from bit b on, bit b lowest. */
GC_INLINE uint64_t
gc_jps_window(const uint64_t *line, size_t b)
{
    size_t i = b >> 6;
    unsigned s = (unsigned)(b & 63);
    return line[i] >> s | (line[i + 1] << 1) << (63 - s);
}

/*
 * Jump along a line (a row, or a column of the transposed bitsets) from the
 * passable cell `pos` towards larger indices.  Returns the first cell that
 * is the goal (`goal`, GC_JPS_NOGOAL when it is not on this line ahead) or
 * has a forced neighbour: a cell beside it on line s1 or s2 is passable
 * while the one beside its predecessor is a wall, so the side cell can be
 * reached best through it.  Returns -1 when a wall comes first.  A window
 * holds the 64 cells from pos - 1: bit i is forced when side bit i is set
 * and bit i - 1 clear (side & ~(side << 1)); bits 0 and 1 were looked at
 * already, so each window moves on by 62.
 */
GC_INLINE int32_t
gc_jps_scan_up(gc_jumper *j, const uint64_t *s1, const uint64_t *cur,
               const uint64_t *s2, int32_t pos, int32_t goal)
{
    size_t b = (size_t)pos + GC_NAV_PAD - 1;
    int64_t gb = (int64_t)goal + GC_NAV_PAD - (int64_t)b;
    for (;;) {
        uint64_t a = gc_jps_window(s1, b), c = gc_jps_window(cur, b),
                 d = gc_jps_window(s2, b);
        uint64_t stop = (a & ~(a << 1)) | (d & ~(d << 1)) | ~c;
        if ((uint64_t)gb < 64)
            stop |= (uint64_t)1 << gb;
        stop &= ~(uint64_t)3;
        if (stop != 0) {
            int i = __builtin_ctzll(stop);
            int32_t at = (int32_t)((int64_t)b - GC_NAV_PAD + i);
            j->scanned += (uint64_t)(at - pos);
            return (c >> i & 1) ? at : -1;
        }
        b += 62;
        gb -= 62;
    }
}

/* The same towards smaller indices: the window ends at pos + 1 (bit 63),
 * a cell is forced when side bit i is set and bit i + 1 clear. */
GC_INLINE int32_t
gc_jps_scan_down(gc_jumper *j, const uint64_t *s1, const uint64_t *cur,
                 const uint64_t *s2, int32_t pos, int32_t goal)
{
    size_t b = (size_t)pos + GC_NAV_PAD - 62;
    int64_t gb = (int64_t)goal + GC_NAV_PAD - (int64_t)b;
    for (;;) {
        uint64_t a = gc_jps_window(s1, b), c = gc_jps_window(cur, b),
                 d = gc_jps_window(s2, b);
        uint64_t stop = (a & ~(a >> 1)) | (d & ~(d >> 1)) | ~c;
        if ((uint64_t)gb < 64)
            stop |= (uint64_t)1 << gb;
        /* Bits 62 and 63 were looked at already: shifted out rather than
         * masked, which needs no 64-bit constant in a register. */
        stop <<= 2;
        if (stop != 0) {
            int i = 61 - __builtin_clzll(stop);
            int32_t at = (int32_t)((int64_t)b - GC_NAV_PAD + i);
            j->scanned += (uint64_t)(pos - at);
            return (c >> i & 1) ? at : -1;
        }
        b -= 62;
        gb += 62;
    }
}

/* Jump from (x, y) in straight direction d (a constant): the distance to
 * the jump point, 0 when there is none. */
GC_INLINE int32_t
gc_jps_jump_straight(gc_jumper *j, const int d, int32_t x, int32_t y)
{
    /* The side lines are one line before and after: one multiply, not
     * three. */
    const uint64_t *l;
    int32_t at;
    switch (d) {
    case 0:
        l = gc_jps_row(j, y);
        at = gc_jps_scan_up(j, l - j->rw, l, l + j->rw, x,
                            y == j->gy && j->gx > x ? j->gx : GC_JPS_NOGOAL);
        return at < 0 ? 0 : at - x;
    case 1:
        l = gc_jps_col(j, x);
        at = gc_jps_scan_up(j, l - j->cw, l, l + j->cw, y,
                            x == j->gx && j->gy > y ? j->gy : GC_JPS_NOGOAL);
        return at < 0 ? 0 : at - y;
    case 2:
        l = gc_jps_row(j, y);
        at = gc_jps_scan_down(j, l - j->rw, l, l + j->rw, x,
                              y == j->gy && j->gx < x ? j->gx : GC_JPS_NOGOAL);
        return at < 0 ? 0 : x - at;
    default:
        l = gc_jps_col(j, x);
        at = gc_jps_scan_down(j, l - j->cw, l, l + j->cw, y,
                              x == j->gx && j->gy < y ? j->gy : GC_JPS_NOGOAL);
        return at < 0 ? 0 : y - at;
    }
}

/*
 * Jump from (x, y) in diagonal direction d (a constant): step while the
 * move is legal without cutting a corner (both orthogonal cells and the
 * target passable: the rule of gc_dirs_from_open), and stop at the goal or
 * at the first cell from which a straight jump along either component
 * finds something.  A diagonal move has no forced neighbours under this
 * rule.  Returns the number of steps, 0 when there is no jump point.
 */
GC_INLINE int32_t
gc_jps_jump_diag(gc_jumper *j, const int d, int32_t x, int32_t y)
{
    const int32_t dx = gc_dir_dx[d], dy = gc_dir_dy[d];
    const int h = dx > 0 ? 0 : 2, v = dy > 0 ? 1 : 3;
    for (int32_t k = 1;; k++) {
        const uint64_t *row = gc_jps_row(j, y);
        const uint64_t *next = dy > 0 ? row + j->rw : row - j->rw;
        if (!(gc_jps_bit(row, x + dx) & gc_jps_bit(next, x) &
              gc_jps_bit(next, x + dx)))
            return 0;
        x += dx;
        y += dy;
        j->scanned++;
        if (x == j->gx && y == j->gy)
            return k;
        if (gc_jps_jump_straight(j, h, x, y) != 0 ||
            gc_jps_jump_straight(j, v, x, y) != 0)
            return k;
    }
}

/* Diagonal combining straight directions d and e (perpendicular). */
static const uint8_t gc_jps_diag_of[4][4] = {
    {0, 4, 0, 7}, /* E: +S SE, +N NE */
    {4, 0, 5, 0}, /* S: +E SE, +W SW */
    {0, 5, 0, 6}, /* W: +S SW, +N NW */
    {7, 0, 6, 0}, /* N: +E NE, +W NW */
};

/*
 * The directions jump point (x, y), reached in direction `from` (-1 for the
 * start), goes on in.  The jumps themselves refuse illegal first steps.
 */
GC_INLINE unsigned
gc_jps_directions(const gc_jumper *j, int from, int32_t x, int32_t y)
{
    if (GC_UNLIKELY(from < 0))
        return 0xFFu;
    const int d = from;
    if (d >= 4)
        return 1u << d | gc_dir_orth_mask[d];
    /* The sides of a straight move are the two other axis directions; a
     * side is forced when its cell is passable and the one behind it
     * (beside the predecessor) is not. */
    unsigned dirs = 1u << d;
    const int32_t bx = x - gc_dir_dx[d], by = y - gc_dir_dy[d];
    for (int side = (d + 1) & 3, n = 0; n < 2; n++, side = (side + 2) & 3) {
        const int32_t sx = gc_dir_dx[side], sy = gc_dir_dy[side];
        if (gc_jps_bit(gc_jps_row(j, y + sy), x + sx) &&
            !gc_jps_bit(gc_jps_row(j, by + sy), bx + sx))
            dirs |= 1u << side | 1u << gc_jps_diag_of[d][side];
    }
    return dirs;
}

/* Jump from (x, y) in direction d (a constant): the number of steps to the
 * jump point found, 0 when there is none. */
GC_INLINE int32_t
gc_jps_jump(gc_jumper *j, const int d, int32_t x, int32_t y)
{
    return d < 4 ? gc_jps_jump_straight(j, d, x, y)
                 : gc_jps_jump_diag(j, d, x, y);
}

#endif
