/*
 * nav.c: navigation data derived from one grid: connected components of the
 * passable cells, the clearance (distance) map, neighbour masks and
 * passability bitsets.
 *
 * Components.  Two labellings cover the four diagonal rules.  Under
 * GC_DIAG_NO_CORNER_CUT and GC_DIAG_ONE_FREE a diagonal move a -> b needs at
 * least one of the two orthogonal cells c beside it to be passable, and
 * a -> c -> b is then a 4-connected path; so these rules join exactly the
 * cells that 4-connectivity (GC_DIAG_NEVER) joins, and one labelling serves
 * all three.  GC_DIAG_ALWAYS is plain 8-connectivity.  Labels are 1, 2, ...
 * in scan order of each component's first cell; 0 marks impassable cells.
 * Each labelling is a breadth-first flood fill with a queue of cell indices
 * (one temporary array, freed before returning).
 *
 * Clearance.  The exact Euclidean distance transform of Felzenszwalb and
 * Huttenlocher ("Distance Transforms of Sampled Functions", 2012): first,
 * down each column, the distance to the nearest impassable cell in that
 * column, counting the rows just above and below the map as impassable (two
 * linear sweeps); then, along each row, the lower envelope of parabolas
 * rooted at every column's squared distance, with the columns just left and
 * right of the map as impassable sites.  Every cell outside the map that can
 * be nearest is in that one-cell ring (the nearest outside cell is straight
 * across a border), so this is the distance to the nearest impassable or
 * outside cell.  Squared distances are integers below 2^32 after the column
 * pass (at most (side / 2 + 1)^2) and are kept in a uint32 temporary.
 *
 * Bitsets.  For jump point search, one bit a cell (set when passable) per
 * row, and the same transposed (one line per column), so that a jump along
 * a row or a column tests 64 cells with a few word operations.  Lines are
 * padded with zero bits (see GC_NAV_PAD in astar_int.h).  With them the
 * set of cell types present in the grid, so that a search can tell whether
 * every passable cell costs the same without reading the cells.
 *
 * Neighbour masks.  One byte a cell, bit d set when the neighbour in
 * direction d (grid_int.h order) is on the map and passable: the input of
 * gc_dirs_from_open, so that A* reads a cell's neighbourhood in one load
 * instead of eight, with no bounds checks at the border.
 *
 * The data records the generation, the set of passable types and the cell
 * array it was computed from; the search refuses data that no longer match
 * its grid (GC_ESTALE) instead of answering from an old map.
 */
#include "config.h"

#include "astar_int.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

static bool
cell_passable(const gc_grid *g, const float *lut, size_t i)
{
    return isfinite(lut[g->cells[i]]);
}

/* Flood-fill labels into `lab` (which must be all zero) under 4- or
 * 8-connectivity, using `queue` (one entry per cell) as scratch. */
static void
label_components(const gc_grid *g, const float *lut, bool eight, uint32_t *lab,
                 uint32_t *queue)
{
    int32_t w = g->width, h = g->height;
    size_t n = (size_t)w * (size_t)h;
    int ndirs = eight ? 8 : 4;
    uint32_t next = 0;
    for (size_t s = 0; s < n; s++) {
        if (lab[s] != 0 || !cell_passable(g, lut, s))
            continue;
        uint32_t id = ++next;
        size_t head = 0, tail = 0;
        lab[s] = id;
        queue[tail++] = (uint32_t)s;
        while (head < tail) {
            uint32_t c = queue[head++];
            int32_t x = (int32_t)(c % (uint32_t)w),
                    y = (int32_t)(c / (uint32_t)w);
            for (int d = 0; d < ndirs; d++) {
                int32_t nx = x + gc_dir_dx[d], ny = y + gc_dir_dy[d];
                if (nx < 0 || ny < 0 || nx >= w || ny >= h)
                    continue;
                size_t ni = gc_grid_index(g, nx, ny);
                if (lab[ni] != 0 || !cell_passable(g, lut, ni))
                    continue;
                lab[ni] = id;
                queue[tail++] = (uint32_t)ni;
            }
        }
    }
}

/*
 * One row of the Felzenszwalb-Huttenlocher transform: f[0..m-1] are squared
 * distances (sites), out[q] = min_p (q - p)^2 + f[p].  v and z are scratch
 * of m and m + 1 entries.
 */
static void
edt_1d(const double *f, int32_t m, double *out, int32_t *v, double *z)
{
    int32_t k = 0;
    v[0] = 0;
    z[0] = -INFINITY;
    z[1] = INFINITY;
    for (int32_t q = 1; q < m; q++) {
        double s;
        /* Every f is finite, so s is too and z[0] = -inf stops the loop. */
        for (;;) {
            int32_t p = v[k];
            s = ((f[q] + (double)q * q) - (f[p] + (double)p * p)) /
                (2.0 * (double)(q - p));
            if (s > z[k])
                break;
            k--;
        }
        k++;
        v[k] = q;
        z[k] = s;
        z[k + 1] = INFINITY;
    }
    k = 0;
    for (int32_t q = 0; q < m; q++) {
        while (z[k + 1] < (double)q)
            k++;
        double d = (double)(q - v[k]);
        out[q] = d * d + f[v[k]];
    }
}

static int
compute_clearance(const gc_grid *g, const float *lut, float *clear)
{
    int32_t w = g->width, h = g->height;
    size_t n = (size_t)w * (size_t)h;
    int32_t side = (w > h ? w : h) + 2;
    uint32_t *col = malloc(n * sizeof *col);
    double *f = malloc((size_t)side * sizeof *f);
    double *out = malloc((size_t)side * sizeof *out);
    int32_t *v = malloc((size_t)side * sizeof *v);
    double *z = malloc(((size_t)side + 1) * sizeof *z);
    if (col == NULL || f == NULL || out == NULL || v == NULL || z == NULL) {
        free(col);
        free(f);
        free(out);
        free(v);
        free(z);
        return GC_ENOMEM;
    }

    /* Columns: rows -1 and h are walls, so every distance is finite.  Two
     * sweeps a row at a time (cache-friendly), `run` holding each column's
     * distance to the last wall seen. */
    uint32_t *run = (uint32_t *)v; /* side >= w entries of scratch */
    memset(run, 0, (size_t)w * sizeof *run);
    for (int32_t y = 0; y < h; y++)
        for (int32_t x = 0; x < w; x++) {
            size_t i = gc_grid_index(g, x, y);
            run[x] = cell_passable(g, lut, i) ? run[x] + 1 : 0;
            col[i] = run[x];
        }
    memset(run, 0, (size_t)w * sizeof *run);
    for (int32_t y = h - 1; y >= 0; y--)
        for (int32_t x = 0; x < w; x++) {
            size_t i = gc_grid_index(g, x, y);
            run[x] = cell_passable(g, lut, i) ? run[x] + 1 : 0;
            if (run[x] < col[i])
                col[i] = run[x];
            col[i] *= col[i];
        }

    /* Rows: sites at columns -1 .. w, the two ends walls (0). */
    for (int32_t y = 0; y < h; y++) {
        f[0] = 0.0;
        f[w + 1] = 0.0;
        for (int32_t x = 0; x < w; x++)
            f[x + 1] = (double)col[gc_grid_index(g, x, y)];
        edt_1d(f, w + 2, out, v, z);
        for (int32_t x = 0; x < w; x++) {
            size_t i = gc_grid_index(g, x, y);
            clear[i] = cell_passable(g, lut, i)
                           ? (float)(sqrt(out[x + 1]) - 0.5)
                           : 0.0f;
        }
    }
    free(col);
    free(f);
    free(out);
    free(v);
    free(z);
    return GC_OK;
}

/* Bitsets of passable cells by row and by column, and the types present. */
static void
compute_bits(gc_nav *n, const gc_grid *g, const float *lut)
{
    int32_t w = g->width, h = g->height;
    memset(n->rows, 0, (size_t)(h + 2) * n->row_words * sizeof *n->rows);
    memset(n->cols, 0, (size_t)(w + 2) * n->col_words * sizeof *n->cols);
    unsigned present = 0;
    for (int32_t y = 0; y < h; y++) {
        uint64_t *row = n->rows + (size_t)(y + 1) * n->row_words;
        size_t yb = (size_t)y + GC_NAV_PAD;
        for (int32_t x = 0; x < w; x++) {
            size_t i = gc_grid_index(g, x, y);
            uint8_t t = g->cells[i];
            if (t < GC_CELL_NTYPES)
                present |= 1u << t;
            if (!isfinite(lut[t]))
                continue;
            size_t xb = (size_t)x + GC_NAV_PAD;
            row[xb >> 6] |= (uint64_t)1 << (xb & 63);
            n->cols[(size_t)(x + 1) * n->col_words + (yb >> 6)] |= (uint64_t)1
                                                                   << (yb & 63);
        }
    }
    n->present = present;
    for (int32_t y = 0; y < h; y++)
        for (int32_t x = 0; x < w; x++)
            n->open8[gc_grid_index(g, x, y)] =
                (uint8_t)gc_grid_open_dirs(g->cells, lut, w, h, x, y);
}

/* Both labellings of g into n, with `queue` (a cell an entry) as scratch. */
static void
label_both(gc_nav *n, const gc_grid *g, const float *lut, uint32_t *queue)
{
    size_t cells = (size_t)g->width * (size_t)g->height;
    memset(n->comp4, 0, cells * sizeof *n->comp4);
    memset(n->comp8, 0, cells * sizeof *n->comp8);
    label_components(g, lut, false, n->comp4, queue);
    label_components(g, lut, true, n->comp8, queue);
}

void
gc_nav_label(gc_nav *n, const gc_grid *g, uint32_t *queue)
{
    float lut[256];
    gc_grid_cost_lut(g, lut);
    label_both(n, g, lut, queue);
}

/* Recompute everything for g into n's arrays (already sized). */
static int
compute(gc_nav *n, const gc_grid *g)
{
    size_t cells = (size_t)g->width * (size_t)g->height;
    float lut[256];
    gc_grid_cost_lut(g, lut);
    uint32_t *queue = malloc(cells * sizeof *queue);
    if (queue == NULL)
        return GC_ENOMEM;
    int rc = compute_clearance(g, lut, n->clear);
    if (rc != GC_OK) {
        free(queue);
        return rc;
    }
    for (size_t i = 0; i < cells; i++) {
        float q = floorf(4.0f * n->clear[i]);
        n->clear4[i] = q >= 255.0f ? 255 : q > 0.0f ? (uint8_t)q : 0;
    }
    label_both(n, g, lut, queue);
    free(queue);
    compute_bits(n, g, lut);
    n->cells = g->cells;
    n->generation = g->generation;
    n->pass_types = gc_nav_pass_types(g);
    return GC_OK;
}

gc_nav *
gc_nav_alloc(int32_t w, int32_t h, bool clearance)
{
    size_t cells = (size_t)w * (size_t)h;
    gc_nav *n = calloc(1, sizeof *n);
    if (n == NULL)
        return NULL;
    n->width = w;
    n->height = h;
    n->row_words = gc_nav_line_words(w);
    n->col_words = gc_nav_line_words(h);
    n->comp4 = malloc(cells * sizeof *n->comp4);
    n->comp8 = malloc(cells * sizeof *n->comp8);
    n->open8 = malloc(cells * sizeof *n->open8);
    n->rows = malloc(((size_t)h + 2) * n->row_words * sizeof *n->rows);
    n->cols = malloc(((size_t)w + 2) * n->col_words * sizeof *n->cols);
    if (clearance) {
        n->clear = malloc(cells * sizeof *n->clear);
        n->clear4 = malloc(cells * sizeof *n->clear4);
    }
    if (n->comp4 == NULL || n->comp8 == NULL || n->open8 == NULL ||
        n->rows == NULL || n->cols == NULL ||
        (clearance && (n->clear == NULL || n->clear4 == NULL))) {
        gc_nav_free(n);
        return NULL;
    }
    return n;
}

int
gc_nav_new(gc_nav **out, const gc_grid *g)
{
    if (out == NULL)
        return GC_EINVAL;
    *out = NULL;
    if (g == NULL || g->cells == NULL)
        return GC_EINVAL;
    int rc = gc_grid_check_size(g->width, g->height);
    if (rc != GC_OK)
        return rc;
    gc_nav *n = gc_nav_alloc(g->width, g->height, true);
    if (n == NULL)
        return GC_ENOMEM;
    rc = compute(n, g);
    if (rc != GC_OK) {
        gc_nav_free(n);
        return rc;
    }
    *out = n;
    return GC_OK;
}

void
gc_nav_free(gc_nav *n)
{
    if (n == NULL)
        return;
    free(n->comp4);
    free(n->comp8);
    free(n->clear);
    free(n->clear4);
    free(n->open8);
    free(n->rows);
    free(n->cols);
    free(n);
}

size_t
gc_nav_memory(const gc_nav *n)
{
    if (n == NULL)
        return 0;
    size_t cells = (size_t)n->width * (size_t)n->height;
    size_t clear = n->clear != NULL ? sizeof *n->clear + sizeof *n->clear4 : 0;
    return sizeof *n +
           cells * (sizeof *n->comp4 + sizeof *n->comp8 + clear +
                    sizeof *n->open8) +
           ((size_t)n->height + 2) * n->row_words * sizeof *n->rows +
           ((size_t)n->width + 2) * n->col_words * sizeof *n->cols;
}

int
gc_nav_update(gc_nav *n, const gc_grid *g)
{
    if (n == NULL || g == NULL || g->cells == NULL)
        return GC_EINVAL;
    if (g->width != n->width || g->height != n->height)
        return GC_EINVAL;
    if (gc_nav_fresh(n, g))
        return GC_OK;
    /* Data derived without clearance (gc_nav_derive) gets it back. */
    size_t cells = (size_t)g->width * (size_t)g->height;
    if (n->clear == NULL &&
        (n->clear = malloc(cells * sizeof *n->clear)) == NULL)
        return GC_ENOMEM;
    if (n->clear4 == NULL &&
        (n->clear4 = malloc(cells * sizeof *n->clear4)) == NULL)
        return GC_ENOMEM;
    return compute(n, g);
}

uint32_t
gc_nav_component(const gc_nav *n, gc_diag_rule rule, gc_cell c)
{
    if (c.x < 0 || c.y < 0 || c.x >= n->width || c.y >= n->height)
        return 0;
    size_t i = (size_t)c.y * (size_t)n->width + (size_t)c.x;
    return rule == GC_DIAG_ALWAYS ? n->comp8[i] : n->comp4[i];
}

float
gc_nav_clearance(const gc_nav *n, gc_cell c)
{
    return gc_nav_clear_at(n, c);
}

uint64_t
gc_nav_generation(const gc_nav *n)
{
    return n->generation;
}
