/*
 * scenario-raster.c: world-space shapes into grid cells.
 *
 * Every shape is taken to cell units first (a coordinate divided by the cell
 * size), so that cell (x, y) is the unit square [x, x+1] x [y, y+1].  Two
 * rules (gridcrowd/scenario.h):
 *
 * - OVERLAP, for obstacles: a cell is taken when the shape covers a part of
 *   it of positive area.  "Positive" means deeper than GC_RASTER_EPS cells,
 *   so that a shape drawn exactly on a cell line (a rect from 0.3 to 0.5 m
 *   with 0.1 m cells, whose ends land a rounding error past the line) does
 *   not take the neighbouring row or column, and a circle that only touches
 *   a corner leaves that cell free.  Why not the closed rule (touching
 *   counts)?  It would grow every rect drawn on cell lines by a row and a
 *   column, and a body in a free cell can touch the shape's edge but never
 *   enter it, which is what safety asks.
 * - CENTRE, for cost areas, walkable paint and areas: a cell is taken when
 *   the shape covers its centre, half-open like gc_grid_world_to_cell, so
 *   that two shapes sharing an edge never both take a cell.
 *
 * Polygons (and rects and wall segments, which are polygons) are exact
 * under OVERLAP with two passes, so that a concave polygon needs no
 * splitting: (1) every cell whose interior, shrunk by GC_RASTER_EPS, an edge
 * crosses with positive length holds part of the polygon's area on one side
 * of that edge; (2) any other cell is either wholly inside or wholly outside
 * (no edge enters it), and its centre tells which: pass (2) is the CENTRE
 * fill, even-odd, by scanlines through the rows' centres.  The cost is the
 * number of cells the edges cross plus the number of crossings of the edges
 * with the rows' centre lines, not the polygon's bounding box times its
 * vertices.  Self-crossing polygons are filled even-odd.
 *
 * Cells are gathered in a growing array, clipped to the grid, then sorted
 * (row, column) and made unique: a wall's pieces overlap.  Both sorts that
 * matter are linear in practice: crossings are bucketed by row, and the
 * cells are read back from a mark per cell of their bounding box.
 */
#include "config.h"

#include <gridcrowd/scenario.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "scenario_int.h"

typedef struct cellbuf {
    gc_cell *v;
    size_t n, cap;
    int32_t w, h;
    int rc; /* GC_ENOMEM once an append failed */
} cellbuf;

static void
cb_add(cellbuf *b, int64_t x, int64_t y)
{
    if (x < 0 || y < 0 || x >= b->w || y >= b->h || b->rc != GC_OK)
        return;
    if (b->n == b->cap) {
        size_t cap = b->cap ? b->cap * 2 : 64;
        gc_cell *nv = realloc(b->v, cap * sizeof *nv);
        if (nv == NULL) {
            b->rc = GC_ENOMEM;
            return;
        }
        b->v = nv;
        b->cap = cap;
    }
    b->v[b->n].x = (int32_t)x;
    b->v[b->n].y = (int32_t)y;
    b->n++;
}

/* Clamp a (possibly huge) cell range to [0, side - 1]. */
static int64_t
clampi(double v, int32_t side)
{
    if (!(v > 0))
        return 0;
    if (v > (double)side - 1)
        return (int64_t)side - 1;
    return (int64_t)v;
}

/* ---- rects ------------------------------------------------------------- */

static void
rect_cells(cellbuf *b, double x0, double y0, double x1, double y1,
           gc_raster_rule rule)
{
    double cx0, cx1, cy0, cy1;
    if (rule == GC_RASTER_OVERLAP) {
        /* Column c overlaps when x1 - c > eps and c + 1 - x0 > eps. */
        cx0 = floor(x0 - 1 + GC_RASTER_EPS) + 1;
        cx1 = ceil(x1 - GC_RASTER_EPS) - 1;
        cy0 = floor(y0 - 1 + GC_RASTER_EPS) + 1;
        cy1 = ceil(y1 - GC_RASTER_EPS) - 1;
    } else {
        /* Centre c + 0.5 in [x0, x1). */
        cx0 = ceil(x0 - 0.5);
        cx1 = ceil(x1 - 0.5) - 1;
        cy0 = ceil(y0 - 0.5);
        cy1 = ceil(y1 - 0.5) - 1;
    }
    if (cx1 < 0 || cy1 < 0 || cx0 > b->w - 1 || cy0 > b->h - 1 || cx0 > cx1 ||
        cy0 > cy1)
        return;
    int64_t ax = clampi(cx0, b->w), bx = clampi(cx1, b->w);
    int64_t ay = clampi(cy0, b->h), by = clampi(cy1, b->h);
    for (int64_t y = ay; y <= by; y++)
        for (int64_t x = ax; x <= bx; x++)
            cb_add(b, x, y);
}

/* ---- circles ----------------------------------------------------------- */

static void
circle_cells(cellbuf *b, double cx, double cy, double r, gc_raster_rule rule)
{
    if (cx + r < 0 || cy + r < 0 || cx - r > b->w || cy - r > b->h)
        return;
    int64_t ax = clampi(floor(cx - r), b->w), bx = clampi(floor(cx + r), b->w);
    int64_t ay = clampi(floor(cy - r), b->h), by = clampi(floor(cy + r), b->h);
    double rr = r - GC_RASTER_EPS;
    if (rule == GC_RASTER_OVERLAP && rr <= 0)
        return;
    for (int64_t y = ay; y <= by; y++) {
        for (int64_t x = ax; x <= bx; x++) {
            bool in;
            if (rule == GC_RASTER_OVERLAP) {
                /* Distance from the centre to the closed cell. */
                double dx = fmax(fmax((double)x - cx, 0), cx - (double)(x + 1));
                double dy = fmax(fmax((double)y - cy, 0), cy - (double)(y + 1));
                in = dx * dx + dy * dy < rr * rr;
            } else {
                double dx = (double)x + 0.5 - cx, dy = (double)y + 0.5 - cy;
                in = dx * dx + dy * dy <= r * r;
            }
            if (in)
                cb_add(b, x, y);
        }
    }
}

/* ---- polygons ---------------------------------------------------------- */

static int
double_cmp(const void *pa, const void *pb)
{
    double a = *(const double *)pa, b = *(const double *)pb;
    return (a > b) - (a < b);
}

/* The rows [*ra, *rb] of the grid whose centre lines edge a-c crosses under
 * the half-open rule (rows with a centre in [ymin, ymax)); false if none. */
static bool
edge_rows(const cellbuf *b, gc_point a, gc_point c, int64_t *ra, int64_t *rb)
{
    if (a.y == c.y)
        return false;
    double r0 = ceil(fmin(a.y, c.y) - 0.5), r1 = ceil(fmax(a.y, c.y) - 0.5) - 1;
    if (r1 < 0 || r0 > b->h - 1 || r0 > r1)
        return false;
    *ra = clampi(r0, b->h);
    *rb = clampi(r1, b->h);
    return true;
}

/*
 * Pass (2): the cells whose centres the polygon covers, even-odd, with the
 * half-open rule: a crossing at a row's centre line counts for the edge's
 * rows [ymin, ymax), a span takes the centres in [xa, xb).  The crossings
 * are bucketed by row (counted first, then placed), so only each row's own
 * crossings are sorted.
 */
static void
poly_centre(cellbuf *b, const gc_point *p, size_t n)
{
    size_t *start = calloc((size_t)b->h + 1, sizeof *start);
    if (start == NULL) {
        b->rc = GC_ENOMEM;
        return;
    }
    int64_t ra, rb;
    for (size_t i = 0; i < n; i++)
        if (edge_rows(b, p[i], p[(i + 1) % n], &ra, &rb))
            for (int64_t r = ra; r <= rb; r++)
                start[r + 1]++;
    for (int32_t r = 0; r < b->h; r++)
        start[r + 1] += start[r];
    size_t total = start[b->h];
    double *xs = total ? malloc(total * sizeof *xs) : NULL;
    size_t *fill = malloc((size_t)b->h * sizeof *fill);
    if ((total && xs == NULL) || fill == NULL) {
        b->rc = GC_ENOMEM;
        goto out;
    }
    memcpy(fill, start, (size_t)b->h * sizeof *fill);
    for (size_t i = 0; i < n; i++) {
        gc_point a = p[i], c = p[(i + 1) % n];
        if (!edge_rows(b, a, c, &ra, &rb))
            continue;
        for (int64_t r = ra; r <= rb; r++) {
            double yc = (double)r + 0.5;
            xs[fill[r]++] = a.x + (yc - a.y) * (c.x - a.x) / (c.y - a.y);
        }
    }
    /* No crossing on any row centre (a sliver between two lines): no
     * cell, and no arithmetic on the NULL xs. */
    for (int32_t r = 0; total > 0 && r < b->h; r++) {
        double *row = xs + start[r];
        size_t m = start[r + 1] - start[r];
        if (m > 1)
            qsort(row, m, sizeof *row, double_cmp);
        /* m is even: a closed polygon crosses a line an even number of
         * times under the half-open rule. */
        for (size_t i = 0; i + 1 < m; i += 2) {
            double c0 = ceil(row[i] - 0.5), c1 = ceil(row[i + 1] - 0.5) - 1;
            if (c1 < 0 || c0 > b->w - 1 || c0 > c1)
                continue;
            int64_t ca = clampi(c0, b->w), cbx = clampi(c1, b->w);
            for (int64_t x = ca; x <= cbx; x++)
                cb_add(b, x, r);
        }
    }
out:
    free(fill);
    free(xs);
    free(start);
}

/* True when segment a-c crosses the open box (x0, x1) x (y0, y1) along a
 * positive length (Liang-Barsky). */
static bool
seg_crosses_box(gc_point a, gc_point c, double x0, double y0, double x1,
                double y1)
{
    double t0 = 0, t1 = 1;
    double dx = c.x - a.x, dy = c.y - a.y;
    double pq[4][2] = {
        {-dx, a.x - x0}, {dx, x1 - a.x}, {-dy, a.y - y0}, {dy, y1 - a.y}};
    for (int k = 0; k < 4; k++) {
        double pk = pq[k][0], qk = pq[k][1];
        if (pk == 0) {
            if (qk <= 0)
                return false; /* parallel and outside (or on) that side */
            continue;
        }
        double t = qk / pk;
        if (pk < 0) {
            if (t > t0)
                t0 = t;
        } else if (t < t1) {
            t1 = t;
        }
        if (t0 >= t1)
            return false;
    }
    return t0 < t1;
}

/* Pass (1): the cells whose interior (shrunk by eps) edge a-c crosses. */
static void
edge_cells(cellbuf *b, gc_point a, gc_point c)
{
    double xlo = fmin(a.x, c.x), xhi = fmax(a.x, c.x);
    if (xhi < 0 || xlo > b->w || fmax(a.y, c.y) < 0 || fmin(a.y, c.y) > b->h)
        return;
    int64_t ca = clampi(floor(xlo), b->w), cbx = clampi(floor(xhi), b->w);
    double dx = c.x - a.x;
    for (int64_t x = ca; x <= cbx; x++) {
        /* The part of the edge inside column x, as a range of t. */
        double t0 = 0, t1 = 1;
        if (dx != 0) {
            double u0 = ((double)x - a.x) / dx, u1 = ((double)x + 1 - a.x) / dx;
            t0 = fmax(0, fmin(u0, u1));
            t1 = fmin(1, fmax(u0, u1));
            if (t0 > t1)
                continue;
        }
        double ya = a.y + t0 * (c.y - a.y), yb = a.y + t1 * (c.y - a.y);
        int64_t ra = clampi(floor(fmin(ya, yb)), b->h);
        int64_t rb = clampi(floor(fmax(ya, yb)), b->h);
        for (int64_t y = ra; y <= rb; y++)
            if (seg_crosses_box(a, c, (double)x + GC_RASTER_EPS,
                                (double)y + GC_RASTER_EPS,
                                (double)x + 1 - GC_RASTER_EPS,
                                (double)y + 1 - GC_RASTER_EPS))
                cb_add(b, x, y);
    }
}

static void
poly_cells(cellbuf *b, const gc_point *p, size_t n, gc_raster_rule rule)
{
    if (rule == GC_RASTER_OVERLAP)
        for (size_t i = 0; i < n; i++)
            edge_cells(b, p[i], p[(i + 1) % n]);
    poly_centre(b, p, n);
}

/* ---- walls ------------------------------------------------------------- */

static void
wall_cells(cellbuf *b, const gc_point *p, size_t n, double thick,
           gc_raster_rule rule)
{
    double h = thick / 2;
    for (size_t i = 0; i + 1 < n; i++) {
        double dx = p[i + 1].x - p[i].x, dy = p[i + 1].y - p[i].y;
        double len = hypot(dx, dy);
        if (!(len > 0))
            continue; /* the loader refuses repeated points */
        double nx = -dy / len * h, ny = dx / len * h;
        gc_point q[4] = {{p[i].x + nx, p[i].y + ny},
                         {p[i + 1].x + nx, p[i + 1].y + ny},
                         {p[i + 1].x - nx, p[i + 1].y - ny},
                         {p[i].x - nx, p[i].y - ny}};
        poly_cells(b, q, 4, rule);
        if (i > 0)
            circle_cells(b, p[i].x, p[i].y, h, rule);
    }
}

/* ---- the public functions ---------------------------------------------- */

static int
cell_cmp(const void *pa, const void *pb)
{
    const gc_cell *a = pa, *b = pb;
    if (a->y != b->y)
        return a->y < b->y ? -1 : 1;
    return (a->x > b->x) - (a->x < b->x);
}

/*
 * Sort b's cells (row, then column) and drop repeats.  When their bounding
 * box is not much larger than their number, a byte per box cell marks them
 * and they are read back in order (linear); otherwise qsort.
 */
static int
sort_unique(cellbuf *b)
{
    int32_t x0 = b->v[0].x, x1 = x0, y0 = b->v[0].y, y1 = y0;
    for (size_t i = 1; i < b->n; i++) {
        x0 = b->v[i].x < x0 ? b->v[i].x : x0;
        x1 = b->v[i].x > x1 ? b->v[i].x : x1;
        y0 = b->v[i].y < y0 ? b->v[i].y : y0;
        y1 = b->v[i].y > y1 ? b->v[i].y : y1;
    }
    size_t bw = (size_t)(x1 - x0) + 1, bh = (size_t)(y1 - y0) + 1;
    if (bw * bh <= 16 * b->n + 4096) {
        uint8_t *mark = calloc(bw * bh, 1);
        if (mark == NULL)
            return GC_ENOMEM;
        for (size_t i = 0; i < b->n; i++)
            mark[(size_t)(b->v[i].y - y0) * bw + (size_t)(b->v[i].x - x0)] = 1;
        size_t m = 0;
        for (size_t y = 0; y < bh; y++)
            for (size_t x = 0; x < bw; x++)
                if (mark[y * bw + x])
                    b->v[m++] = (gc_cell){(int32_t)(x0 + (int32_t)x),
                                          (int32_t)(y0 + (int32_t)y)};
        free(mark);
        b->n = m;
        return GC_OK;
    }
    qsort(b->v, b->n, sizeof *b->v, cell_cmp);
    size_t m = 1;
    for (size_t i = 1; i < b->n; i++)
        if (b->v[i].x != b->v[m - 1].x || b->v[i].y != b->v[m - 1].y)
            b->v[m++] = b->v[i];
    b->n = m;
    return GC_OK;
}

gc_raster_rule
gc_scenario_rule(int type)
{
    return type == GC_CELL_OBSTACLE ? GC_RASTER_OVERLAP : GC_RASTER_CENTRE;
}

int
gc_scenario_shape_cells(const gc_shape *s, int32_t w, int32_t h,
                        double cell_size, gc_raster_rule rule, gc_cell **out,
                        size_t *n)
{
    if (out != NULL)
        *out = NULL;
    if (n != NULL)
        *n = 0;
    if (s == NULL || out == NULL || n == NULL || w < 1 || h < 1 ||
        !(cell_size > 0) || !isfinite(cell_size) ||
        (rule != GC_RASTER_OVERLAP && rule != GC_RASTER_CENTRE))
        return GC_EINVAL;
    cellbuf b = {.w = w, .h = h};
    double k = 1.0 / cell_size;
    gc_point *tmp = NULL;
    if (s->kind == GC_SHAPE_POLYGON || s->kind == GC_SHAPE_WALL) {
        if (s->pts == NULL || s->npts < (s->kind == GC_SHAPE_WALL ? 2u : 3u))
            return GC_EINVAL;
        tmp = malloc(s->npts * sizeof *tmp);
        if (tmp == NULL)
            return GC_ENOMEM;
        for (size_t i = 0; i < s->npts; i++) {
            tmp[i].x = s->pts[i].x * k;
            tmp[i].y = s->pts[i].y * k;
        }
    }
    switch (s->kind) {
    case GC_SHAPE_RECT:
        rect_cells(&b, s->a.x * k, s->a.y * k, s->b.x * k, s->b.y * k, rule);
        break;
    case GC_SHAPE_CIRCLE:
        circle_cells(&b, s->a.x * k, s->a.y * k, s->radius * k, rule);
        break;
    case GC_SHAPE_POLYGON:
        poly_cells(&b, tmp, s->npts, rule);
        break;
    case GC_SHAPE_WALL:
        wall_cells(&b, tmp, s->npts, s->thickness * k, rule);
        break;
    case GC_SHAPE_CELLS:
        for (size_t i = 0; i < s->ncells; i++)
            cb_add(&b, s->cells[i].x, s->cells[i].y);
        break;
    default:
        free(tmp);
        return GC_EINVAL;
    }
    free(tmp);
    if (b.rc != GC_OK) {
        free(b.v);
        return b.rc;
    }
    if (b.n > 1 && sort_unique(&b) != GC_OK) {
        free(b.v);
        return GC_ENOMEM;
    }
    *out = b.v;
    *n = b.n;
    return GC_OK;
}

int
gc_scenario_shape_apply(gc_grid *g, double cell_size, const gc_shape *s,
                        gc_cell **changed, size_t *nchanged)
{
    if (changed != NULL)
        *changed = NULL;
    if (nchanged != NULL)
        *nchanged = 0;
    if (g == NULL || s == NULL || s->type < 0 || s->type >= GC_CELL_NTYPES)
        return GC_EINVAL;
    gc_cell *cells;
    size_t n;
    if (!(cell_size > 0))
        cell_size = g->cell_size;
    int rc = gc_scenario_shape_cells(s, g->width, g->height, cell_size,
                                     gc_scenario_rule(s->type), &cells, &n);
    if (rc != GC_OK)
        return rc;
    size_t m = 0;
    for (size_t i = 0; i < n; i++) {
        if (gc_grid_get(g, cells[i].x, cells[i].y) == s->type)
            continue;
        gc_grid_set(g, cells[i].x, cells[i].y, s->type);
        cells[m++] = cells[i];
    }
    if (changed != NULL && nchanged != NULL && m > 0) {
        *changed = cells;
        *nchanged = m;
    } else {
        free(cells);
    }
    return GC_OK;
}
