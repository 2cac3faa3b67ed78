/*
 * nav-derive.c: navigation data for a grid that is another grid with some
 * cells blocked, made from that grid's data instead of from scratch.
 *
 * The sim's jam grid (sim-jam.c) is its planning grid with the cells of a
 * jam blocked, rebuilt once a simulated second.  From scratch, a
 * 1,024 x 1,024 grid's data took about 60 ms of CPU (the clearance
 * transform and two flood fills of the whole map), a twentieth of a core
 * taken from the agent threads for a jam of a few dozen cells.  Derived,
 * it is a copy of the base's arrays and a few local repairs:
 *
 * - Bitsets and neighbour masks: the blocked cells' bits cleared, and the
 *   masks of the cells around them recomputed.
 * - Components: blocking cells never joins two components, but it can
 *   split one.  The blocked cells fall into clusters (8-adjacent blocked
 *   cells); around each, the passable cells next to it are joined to one
 *   another inside its bounding box grown by a cell, by a flood fill
 *   under each connectivity.  When they all are, no path through the
 *   cluster is lost (any path's detour through it goes round it inside
 *   the box), and the labels stand with the blocked cells' set to 0.
 *   When one cluster fails that test (a passage cut), or its box is large
 *   for its size, the components are labelled again from scratch.
 *   Either way two passable cells have equal labels exactly when a path
 *   joins them, as gc_nav_new's do, though the numbers may differ.
 * - Clearance: not made.  Blocking a cell changes the clearance of cells
 *   far across open ground (every cell nearer to it than to any other
 *   wall), so it costs what the transform does.  The data has none
 *   (clear and clear4 NULL), and serves searches of radius 0 only:
 *   gc_astar_find refuses a radius with it (GC_EINVAL).  The jam grid is
 *   inflated for the sim's radius already, and is searched at radius 0.
 */
#include "config.h"

#include "astar_int.h"

#include <stdlib.h>
#include <string.h>

/* A cluster's box may hold this many cells a blocked cell, plus a margin,
 * before the components are labelled afresh instead. */
#define BOX_PER_CELL 64
#define BOX_MARGIN 4096

struct derive {
    const gc_nav *base;
    gc_nav *n;
    int32_t w, h;
    uint32_t *seen;  /* per cell: the pass that last reached it, 0 never */
    uint32_t *queue; /* a cell a slot */
    uint32_t pass;
};

/* Newly blocked: passable in the base, not in the derived data yet. */
static bool
newly_blocked(const struct derive *d, size_t k)
{
    return d->base->comp8[k] != 0 && d->n->comp8[k] == 0;
}

static bool
open_now(const struct derive *d, int32_t x, int32_t y)
{
    return x >= 0 && y >= 0 && x < d->w && y < d->h &&
           d->n->comp8[(size_t)y * (size_t)d->w + (size_t)x] != 0;
}

struct box {
    int32_t x0, y0, x1, y1; /* inclusive */
};

/* The cluster of blocked cells 8-adjacent to `from`, by flood fill into
 * queue[0 .. *len); its bounding box grown by a cell, on the map. */
static struct box
cluster(struct derive *d, uint32_t from, size_t *len)
{
    uint32_t tag = ++d->pass;
    size_t head = 0, tail = 0;
    d->queue[tail++] = from;
    d->seen[from] = tag;
    struct box b = {INT32_MAX, INT32_MAX, INT32_MIN, INT32_MIN};
    while (head < tail) {
        uint32_t c = d->queue[head++];
        int32_t x = (int32_t)(c % (uint32_t)d->w),
                y = (int32_t)(c / (uint32_t)d->w);
        b.x0 = x < b.x0 ? x : b.x0;
        b.y0 = y < b.y0 ? y : b.y0;
        b.x1 = x > b.x1 ? x : b.x1;
        b.y1 = y > b.y1 ? y : b.y1;
        for (int k = 0; k < 8; k++) {
            int32_t nx = x + gc_dir_dx[k], ny = y + gc_dir_dy[k];
            if (nx < 0 || ny < 0 || nx >= d->w || ny >= d->h)
                continue;
            size_t ni = (size_t)ny * (size_t)d->w + (size_t)nx;
            if (d->seen[ni] != 0 || !newly_blocked(d, ni))
                continue;
            d->seen[ni] = tag;
            d->queue[tail++] = (uint32_t)ni;
        }
    }
    *len = tail;
    b.x0 = b.x0 > 0 ? b.x0 - 1 : 0;
    b.y0 = b.y0 > 0 ? b.y0 - 1 : 0;
    b.x1 = b.x1 < d->w - 1 ? b.x1 + 1 : d->w - 1;
    b.y1 = b.y1 < d->h - 1 ? b.y1 + 1 : d->h - 1;
    return b;
}

/* True when the passable cells next to the cluster queue[0 .. len) (by
 * the first `dirs` directions: 4 or 8) are joined inside box b by moves
 * of those directions.  The cluster stays at the front of the queue; the
 * fill uses the rest. */
static bool
joined_round(struct derive *d, size_t len, struct box b, int dirs)
{
    uint32_t tag = ++d->pass;
    uint32_t *q = d->queue + len;
    size_t head = 0, tail = 0;
    /* The fill starts from the first cell next to the cluster. */
    for (size_t i = 0; i < len && tail == 0; i++) {
        int32_t x = (int32_t)(d->queue[i] % (uint32_t)d->w),
                y = (int32_t)(d->queue[i] / (uint32_t)d->w);
        for (int k = 0; k < dirs && tail == 0; k++)
            if (open_now(d, x + gc_dir_dx[k], y + gc_dir_dy[k])) {
                size_t ni = (size_t)(y + gc_dir_dy[k]) * (size_t)d->w +
                            (size_t)(x + gc_dir_dx[k]);
                d->seen[ni] = tag;
                q[tail++] = (uint32_t)ni;
            }
    }
    while (head < tail) {
        uint32_t c = q[head++];
        int32_t x = (int32_t)(c % (uint32_t)d->w),
                y = (int32_t)(c / (uint32_t)d->w);
        for (int k = 0; k < dirs; k++) {
            int32_t nx = x + gc_dir_dx[k], ny = y + gc_dir_dy[k];
            if (nx < b.x0 || ny < b.y0 || nx > b.x1 || ny > b.y1 ||
                !open_now(d, nx, ny))
                continue;
            size_t ni = (size_t)ny * (size_t)d->w + (size_t)nx;
            if (d->seen[ni] == tag)
                continue;
            d->seen[ni] = tag;
            q[tail++] = (uint32_t)ni;
        }
    }
    /* Every cell next to the cluster reached. */
    for (size_t i = 0; i < len; i++) {
        int32_t x = (int32_t)(d->queue[i] % (uint32_t)d->w),
                y = (int32_t)(d->queue[i] / (uint32_t)d->w);
        for (int k = 0; k < dirs; k++) {
            int32_t nx = x + gc_dir_dx[k], ny = y + gc_dir_dy[k];
            if (open_now(d, nx, ny) &&
                d->seen[(size_t)ny * (size_t)d->w + (size_t)nx] != tag)
                return false;
        }
    }
    return true;
}

/* True when no cluster of the blocked cells in list[0 .. count) can split
 * a component (see the top). */
static bool
splits_none(struct derive *d, const uint32_t *list, size_t count)
{
    for (size_t i = 0; i < count; i++) {
        if (d->seen[list[i]] != 0 || !newly_blocked(d, list[i]))
            continue; /* in a cluster seen already, or no change */
        size_t len;
        struct box b = cluster(d, list[i], &len);
        size_t area = (size_t)(b.x1 - b.x0 + 1) * (size_t)(b.y1 - b.y0 + 1);
        if (area > BOX_PER_CELL * len + BOX_MARGIN ||
            !joined_round(d, len, b, 4) || !joined_round(d, len, b, 8))
            return false;
    }
    return true;
}

/* Block cell k in n: labels, bitsets. */
static void
block(gc_nav *n, size_t k)
{
    size_t x = k % (size_t)n->width, y = k / (size_t)n->width;
    n->comp4[k] = 0;
    n->comp8[k] = 0;
    size_t xb = x + GC_NAV_PAD, yb = y + GC_NAV_PAD;
    n->rows[(y + 1) * n->row_words + (xb >> 6)] &= ~((uint64_t)1 << (xb & 63));
    n->cols[(x + 1) * n->col_words + (yb >> 6)] &= ~((uint64_t)1 << (yb & 63));
}

int
gc_nav_derive(gc_nav **io, const gc_nav *base, const gc_grid *bg,
              const gc_grid *g, const uint32_t *blocked, size_t count,
              bool *relabelled)
{
    if (io == NULL || base == NULL || base->clear == NULL || bg == NULL ||
        !gc_nav_fresh(base, bg) || g == NULL || g->cells == NULL ||
        g->cells == bg->cells || (count > 0 && blocked == NULL) ||
        g->width != base->width || g->height != base->height ||
        gc_nav_pass_types(g) != base->pass_types)
        return GC_EINVAL;
    size_t cells = (size_t)g->width * (size_t)g->height;
    float lut[256];
    gc_grid_cost_lut(g, lut);
    for (size_t i = 0; i < count; i++)
        if (blocked[i] >= cells || isfinite(lut[g->cells[blocked[i]]]))
            return GC_EINVAL;
    gc_nav *n = *io;
    if (n != NULL && (n->width != base->width || n->height != base->height))
        return GC_EINVAL;
    struct derive d = {.base = base, .w = g->width, .h = g->height};
    d.seen = calloc(cells, sizeof *d.seen);
    d.queue = malloc(cells * sizeof *d.queue);
    if (n == NULL)
        n = gc_nav_alloc(base->width, base->height, false);
    if (d.seen == NULL || d.queue == NULL || n == NULL) {
        free(d.seen);
        free(d.queue);
        if (n != *io)
            gc_nav_free(n);
        return GC_ENOMEM;
    }
    d.n = n;
    free(n->clear);
    free(n->clear4);
    n->clear = NULL;
    n->clear4 = NULL;
    memcpy(n->comp4, base->comp4, cells * sizeof *n->comp4);
    memcpy(n->comp8, base->comp8, cells * sizeof *n->comp8);
    memcpy(n->open8, base->open8, cells * sizeof *n->open8);
    memcpy(n->rows, base->rows,
           ((size_t)n->height + 2) * n->row_words * sizeof *n->rows);
    memcpy(n->cols, base->cols,
           ((size_t)n->width + 2) * n->col_words * sizeof *n->cols);
    for (size_t i = 0; i < count; i++)
        block(n, blocked[i]);
    /* The grid must be the base's but for the blocked cells: checked, and
     * the types present taken, in one pass. */
    unsigned present = 0;
    int rc = GC_OK;
    for (size_t k = 0; k < cells; k++) {
        uint8_t t = g->cells[k];
        if (t < GC_CELL_NTYPES)
            present |= 1u << t;
        if (t != bg->cells[k] &&
            (isfinite(lut[t]) || (base->comp8[k] != 0 && n->comp8[k] != 0)))
            rc = GC_EINVAL; /* passable, or blocked but not listed */
    }
    for (size_t i = 0; i < count && rc == GC_OK; i++) {
        int32_t x = (int32_t)(blocked[i] % (uint32_t)d.w),
                y = (int32_t)(blocked[i] / (uint32_t)d.w);
        for (int32_t dy = -1; dy <= 1; dy++)
            for (int32_t dx = -1; dx <= 1; dx++)
                if (x + dx >= 0 && y + dy >= 0 && x + dx < d.w && y + dy < d.h)
                    n->open8[(size_t)(y + dy) * (size_t)d.w +
                             (size_t)(x + dx)] =
                        (uint8_t)gc_grid_open_dirs(g->cells, lut, d.w, d.h,
                                                   x + dx, y + dy);
    }
    bool fresh = false;
    if (rc == GC_OK && !splits_none(&d, blocked, count)) {
        fresh = true;
        gc_nav_label(n, g, d.queue);
    }
    free(d.seen);
    free(d.queue);
    if (rc != GC_OK) {
        if (n != *io)
            gc_nav_free(n);
        else
            n->cells = NULL; /* stale: fresh for no grid */
        return rc;
    }
    n->present = present;
    n->pass_types = base->pass_types;
    n->cells = g->cells;
    n->generation = g->generation;
    *io = n;
    if (relabelled != NULL)
        *relabelled = fresh;
    return GC_OK;
}
