/*
 * view_replay_db-grid.c: the cells under a replayed frame, for
 * view_replay_db.c.
 *
 * A gridcrowd recording holds each grid generation in gc_grids as our map
 * text, parsed by gc_map_parse; gc_frames names each frame's generation,
 * and the grid is read only when it differs from the one loaded.
 *
 * A JuPedSim file has no grid: the walkable area of each frame's geometry
 * (WKT, y upwards) is rasterised with the even-odd rule into the square
 * cells view_replay_db.c sized from the bounds, flipped so that y grows
 * downwards as in the viewer's world; without a geometry every cell is
 * walkable.  A raster is redone only when the frame's geometry hash
 * changes.
 */
#include "config.h"

#include "view_replay.h"

#include <gridcrowd/mapio.h>

#include <math.h>
#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>

/* ---- Grids -------------------------------------------------------------- */

/* Replace the copy's cells with w x h bytes (taken over). */
static void
set_cells(view_conn *c, uint8_t *cells, int32_t w, int32_t h, float cs)
{
    free(c->cells);
    c->cells = cells;
    c->width = w;
    c->height = h;
    c->cell_size = cs;
    c->cells_valid = true;
    c->cells_changed = true;
}

int
view_rdb_load_grid(view_rdb *db, uint64_t gen, view_conn *c, char *why)
{
    sqlite3_stmt *q = db->st[VIEW_RDB_ST_GRID];
    sqlite3_reset(q);
    sqlite3_bind_int64(q, 1, (int64_t)gen);
    int rc = sqlite3_step(q);
    if (rc != SQLITE_ROW) {
        if (rc == SQLITE_DONE)
            view_rdb_say(why, "no grid recorded for generation %llu",
                         (unsigned long long)gen);
        else
            view_rdb_sql_fail(db, why, "reading a grid");
        sqlite3_reset(q);
        return -1;
    }
    int64_t w = sqlite3_column_int64(q, 1), h = sqlite3_column_int64(q, 2);
    double cs = sqlite3_column_double(q, 3);
    const char *map = (const char *)sqlite3_column_text(q, 4);
    int len = sqlite3_column_bytes(q, 4);
    gc_grid *g = NULL;
    gc_error err;
    rc = map != NULL ? gc_map_parse(&g, map, (size_t)len, "gc_grids", &err)
                     : GC_EPARSE;
    sqlite3_reset(q);
    if (rc != GC_OK) {
        view_rdb_say(why, "grid of generation %llu: %s",
                     (unsigned long long)gen,
                     map != NULL ? err.msg : "no map text");
        return -1;
    }
    if (g->width != w || g->height != h || !(cs > 0) || !isfinite(cs)) {
        view_rdb_say(why,
                     "grid of generation %llu: its size or cell size is wrong",
                     (unsigned long long)gen);
        gc_grid_free(g);
        return -1;
    }
    size_t n = (size_t)g->width * (size_t)g->height;
    uint8_t *cells = malloc(n);
    if (cells == NULL) {
        gc_grid_free(g);
        view_rdb_say(why, "out of memory");
        return -1;
    }
    memcpy(cells, g->cells, n);
    set_cells(c, cells, g->width, g->height, (float)cs);
    gc_grid_free(g);
    db->generation = gen;
    db->have_grid = true;
    return 0;
}

/* The points of a WKT text, ring by ring: ring i is pts[start[i] ..
 * start[i + 1]).  Only numbers, commas and parentheses matter; a third
 * coordinate (Z) is skipped. */
typedef struct rings {
    double *xy;
    size_t n, cap;
    size_t *start;
    size_t nr, rcap;
} rings;

static bool
rings_push(rings *r, double x, double y)
{
    if (r->n == r->cap) {
        size_t cap = r->cap ? 2 * r->cap : 256;
        double *p = realloc(r->xy, 2 * cap * sizeof *p);
        if (p == NULL)
            return false;
        r->xy = p;
        r->cap = cap;
    }
    r->xy[2 * r->n] = x;
    r->xy[2 * r->n + 1] = y;
    r->n++;
    return true;
}

static bool
rings_mark(rings *r)
{
    if (r->nr + 1 >= r->rcap) {
        size_t cap = r->rcap ? 2 * r->rcap : 16;
        size_t *p = realloc(r->start, cap * sizeof *p);
        if (p == NULL)
            return false;
        r->start = p;
        r->rcap = cap;
    }
    r->start[r->nr++] = r->n;
    return true;
}

static bool
wkt_rings(const char *s, rings *r)
{
    bool in_ring = false;
    double v[3];
    int nv = 0;
    while (*s != '\0') {
        char *end;
        if (*s == '(') {
            in_ring = false;
            nv = 0;
            s++;
        } else if (*s == ',' || *s == ')') {
            if (nv >= 2) {
                if (!in_ring && !rings_mark(r))
                    return false;
                in_ring = true;
                if (!rings_push(r, v[0], v[1]))
                    return false;
            }
            if (*s == ')')
                in_ring = false;
            nv = 0;
            s++;
        } else if (*s == '-' || *s == '+' || *s == '.' ||
                   (*s >= '0' && *s <= '9')) {
            double x = strtod(s, &end);
            if (end == s) {
                s++;
                continue;
            }
            if (nv < 3)
                v[nv++] = x;
            s = end;
        } else {
            s++;
        }
    }
    if (!rings_mark(r)) /* the end of the last ring */
        return false;
    r->nr--;
    return true;
}

static int
cmp_double(const void *p, const void *q)
{
    double a = *(const double *)p, b = *(const double *)q;
    return (a > b) - (a < b);
}

/* The copy's cells from the walkable area in `wkt`: even-odd over every
 * ring, sampled at cell centres. */
static int
raster(view_rdb *db, const char *wkt, view_conn *c, char *why)
{
    rings r = {0};
    size_t n = (size_t)db->rw * (size_t)db->rh;
    uint8_t *cells = malloc(n);
    double *xs = NULL;
    if (cells == NULL || !wkt_rings(wkt, &r) ||
        (xs = malloc((r.n + 1) * sizeof *xs)) == NULL) {
        free(cells);
        free(r.xy);
        free(r.start);
        view_rdb_say(why, "out of memory");
        return -1;
    }
    memset(cells, GC_CELL_OBSTACLE, n);
    double cs = db->raster_cell;
    for (int32_t y = 0; y < db->rh; y++) {
        /* The row's centre line in the file's world (y upwards). */
        double wy = db->ymax - ((double)y + 0.5) * cs;
        size_t nx = 0;
        for (size_t k = 0; k < r.nr; k++) {
            size_t a = r.start[k], b = r.start[k + 1];
            for (size_t i = a; i < b; i++) {
                size_t j = i + 1 < b ? i + 1 : a;
                double x0 = r.xy[2 * i], y0 = r.xy[2 * i + 1];
                double x1 = r.xy[2 * j], y1 = r.xy[2 * j + 1];
                if ((y0 <= wy) != (y1 <= wy)) {
                    /* NaN (from infinities) would unsettle the sort. */
                    double x = x0 + (wy - y0) / (y1 - y0) * (x1 - x0);
                    xs[nx++] = isnan(x) ? -INFINITY : x;
                }
            }
        }
        /* Sorted with qsort: a row of a real map crosses few edges, but
         * a damaged one may cross thousands (insertion sort took over two
         * minutes on 20 000 points in random order, qsort half a second). */
        qsort(xs, nx, sizeof *xs, cmp_double);
        for (size_t i = 0; i + 1 < nx; i += 2) {
            double a = (xs[i] - db->xmin) / cs - 0.5,
                   b = (xs[i + 1] - db->xmin) / cs - 0.5;
            /* Clamped as doubles: a point at 1e300 (or a NaN from
             * infinities) must not be cast to an integer. */
            if (!(b >= 0 && a <= (double)db->rw))
                continue;
            int64_t x0 = a > 0 ? (int64_t)ceil(a) : 0;
            int64_t x1 = b < (double)db->rw ? (int64_t)floor(b) : db->rw - 1;
            for (int64_t x = x0; x <= x1; x++)
                cells[(size_t)y * (size_t)db->rw + (size_t)x] =
                    GC_CELL_WALKABLE;
        }
    }
    free(xs);
    free(r.xy);
    free(r.start);
    set_cells(c, cells, db->rw, db->rh, (float)cs);
    return 0;
}

int
view_rdb_load_field(view_rdb *db, int64_t frame, view_conn *c, char *why)
{
    int64_t hash = 0;
    bool null = true;
    if (db->st[VIEW_RDB_ST_GEOHASH] != NULL &&
        view_rdb_one_int(db, VIEW_RDB_ST_GEOHASH, frame, &hash, &null, why) !=
            0)
        return -1;
    if (null) {
        if (db->have_grid)
            return 0;
        size_t n = (size_t)db->rw * (size_t)db->rh;
        uint8_t *cells = malloc(n);
        if (cells == NULL) {
            view_rdb_say(why, "out of memory");
            return -1;
        }
        memset(cells, GC_CELL_WALKABLE, n);
        set_cells(c, cells, db->rw, db->rh, (float)db->raster_cell);
        db->have_grid = true;
        return 0;
    }
    if (db->have_grid && hash == db->geohash)
        return 0;
    sqlite3_stmt *q = db->st[VIEW_RDB_ST_WKT];
    sqlite3_reset(q);
    sqlite3_bind_int64(q, 1, hash);
    int rc = sqlite3_step(q);
    if (rc != SQLITE_ROW) {
        if (rc == SQLITE_DONE)
            view_rdb_say(why, "frame %lld: no geometry %lld", (long long)frame,
                         (long long)hash);
        else
            view_rdb_sql_fail(db, why, "reading the geometry");
        sqlite3_reset(q);
        return -1;
    }
    const char *wkt = (const char *)sqlite3_column_text(q, 0);
    rc = raster(db, wkt != NULL ? wkt : "", c, why);
    sqlite3_reset(q);
    if (rc != 0)
        return -1;
    db->geohash = hash;
    db->have_grid = true;
    return 0;
}
