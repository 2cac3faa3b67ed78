/*
 * astar-path.c: reading a search's path back from the per-cell records.
 *
 * No parent array: each record keeps only the direction of the step that
 * reached its cell (see astar.c).  After A*, the path is read from its end
 * to the start one step at a time against those directions.  After jump
 * point search a jump point's record keeps the direction of its last jump,
 * and the path is read back by walking that way to the first cell of this
 * search whose cost plus the walk is no more than the jump point's (its
 * parent, or a cell on the same run that is as good), so the context stays
 * at 12 bytes a cell plus the open list.  The path returned has every cell
 * walked.  Both sum the cost start first, exactly as gc_polyline_cost sums
 * it, so the two always agree to the last bit.
 *
 * gc_astar_next_step is here too: it is a search read back as one step.
 *
 * Runs after the search, on records no one writes until the next search
 * of the same context (and so in the same thread).
 */
#include "config.h"

#include "astar_int.h"

/* Cost of the path out (adjacent cells), summed start first. */
static double
path_cost(const gc_astar *a, const gc_search *s, const gc_path *out)
{
    double sum = 0.0;
    for (size_t i = 1; i < out->len; i++) {
        gc_cell p = out->cells[i - 1], q = out->cells[i];
        int diag = p.x != q.x && p.y != q.y;
        size_t qi = (size_t)q.y * (size_t)a->width + (size_t)q.x;
        sum += a->step[diag][s->cells[qi]];
    }
    return sum;
}

int
gc_astar_build_path(const gc_astar *a, const gc_search *s, uint32_t end,
                    uint32_t end_xy, gc_path *out, double *cost)
{
    size_t len = 1;
    for (uint32_t c = end; c != s->start;
         c = (uint32_t)((ptrdiff_t)c - a->off[a->meta[c] & GC_META_DIR]))
        len++;
    int rc = gc_path_reserve(out, len);
    if (rc != GC_OK)
        return rc;
    int32_t x = (int32_t)(end_xy & 0xFFFF), y = (int32_t)(end_xy >> 16);
    uint32_t c = end;
    for (size_t i = len; i-- > 0;) {
        out->cells[i].x = x;
        out->cells[i].y = y;
        if (i == 0)
            break;
        int d = (int)(a->meta[c] & GC_META_DIR);
        c = (uint32_t)((ptrdiff_t)c - a->off[d]);
        x -= gc_dir_dx[d];
        y -= gc_dir_dy[d];
    }
    out->len = len;
    *cost = path_cost(a, s, out);
    return GC_OK;
}

/*
 * Walk back from jump point c (at x, y) to its parent: along the reverse of
 * the direction in its record, to the first cell of this search whose cost
 * plus the steps walked is no more than c's.  The parent that set c's cost
 * qualifies (its cost only fell since, and the sum is computed as the
 * search computed it), so the walk ends there at the latest; a cell met
 * before it is as good a parent, since it lies on the same straight run.
 * Returns the number of steps; with `cells`, writes the cells walked (the
 * parent last) downwards from cells[*at - 1].
 */
static int32_t
jps_parent(const gc_astar *a, const gc_search *s, uint32_t *c, int32_t *x,
           int32_t *y, gc_cell *cells, size_t *at)
{
    const uint32_t cur = a->stamp << 4;
    const int d = (int)(a->meta[*c] & GC_META_DIR);
    const double step = d < 4 ? s->unit : GC_SQRT2 * s->unit;
    const double gc = a->g[*c];
    const double lim = gc + gc * 1e-12;
    uint32_t p = *c;
    int32_t k = 0;
    do {
        p = (uint32_t)((ptrdiff_t)p - a->off[d]);
        *x -= gc_dir_dx[d];
        *y -= gc_dir_dy[d];
        k++;
        if (cells != NULL)
            cells[--*at] = (gc_cell){*x, *y};
    } while (!(a->meta[p] >= cur && a->g[p] + (double)k * step <= lim));
    *c = p;
    return k;
}

int
gc_astar_build_path_jps(const gc_astar *a, const gc_search *s, gc_path *out,
                        double *cost)
{
    size_t len = 1;
    uint32_t c = s->goal;
    int32_t x = s->gx, y = s->gy;
    while (c != s->start)
        len += (size_t)jps_parent(a, s, &c, &x, &y, NULL, NULL);
    int rc = gc_path_reserve(out, len);
    if (rc != GC_OK)
        return rc;
    size_t at = len - 1;
    c = s->goal;
    x = s->gx;
    y = s->gy;
    out->cells[at] = (gc_cell){x, y};
    while (c != s->start)
        jps_parent(a, s, &c, &x, &y, out->cells, &at);
    out->len = len;
    *cost = path_cost(a, s, out);
    return GC_OK;
}

int
gc_astar_next_step(gc_astar *a, const gc_grid *g, gc_cell start, gc_cell goal,
                   const gc_astar_opts *opts, gc_path *scratch, gc_cell *next,
                   gc_astar_stats *stats)
{
    if (next == NULL)
        return GC_EINVAL;
    gc_astar_opts o;
    if (opts != NULL)
        o = *opts;
    else
        gc_astar_opts_init(&o);
    /* A smoothed path's second waypoint may be many cells away. */
    o.smooth = false;
    gc_path local;
    gc_path_init(&local);
    gc_path *p = scratch != NULL ? scratch : &local;
    int rc = gc_astar_find(a, g, start, goal, &o, p, stats);
    if (rc == GC_OK && p->len >= 1)
        *next = p->len >= 2 ? p->cells[1] : p->cells[0];
    else if (rc != GC_OK && o.partial && p->len >= 2)
        *next = p->cells[1];
    gc_path_free(&local);
    return rc;
}
