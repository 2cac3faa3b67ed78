/*
 * record-geometry.c: the walkable area of a grid as WKT polygons, for the
 * recorder's geometry table (JuPedSim's format, read by PedPy).
 *
 * The area is the union of the passable cells, cell (x, y) being the square
 * [x, x+1] x [y, y+1] in grid units.  Its boundary is made of unit edges
 * between a passable cell and an impassable or off-map one.  Each such
 * edge is directed so that the passable cell is on its mathematical left
 * (the direction turned by +90 degrees, (dx, dy) -> (-dy, dx), points into
 * it); then every shell runs counter-clockwise and every hole clockwise in
 * the usual x-right, y-up sense, i.e. shells have a positive shoelace area
 * in the coordinates as written.
 *
 * Rings are traced by following, at each vertex, the outgoing boundary edge
 * that turns most to the left (left, then straight, then right).  Every
 * vertex has as many incoming as outgoing boundary edges (0, 1 or 2), so
 * this rule makes a permutation of the edges and its cycles are closed
 * rings.  A vertex with two of each is a pinch: two passable cells meet
 * only at that corner.  Turning left there keeps the ring on the same
 * passable cell, so two cells touching at a corner belong to different
 * rings unless another path joins them; when it does, one ring would pass
 * the pinch twice and touch itself, which OGC (GEOS, shapely) calls
 * invalid.  So the tracer splits a ring wherever it comes back to a pinch
 * it already holds: the loop is cut off as a ring of its own.  The pieces
 * are simple rings that touch others only at pinch points, as validity
 * allows (a hole may touch its shell or another hole at one point).
 *
 * Which rings form one polygon: the interior of the area falls apart into
 * the 4-connected sets of passable cells (two cells that share only a
 * corner are not joined through the corner point), so every set is one
 * polygon.  Its cells are labelled by a breadth-first search, a ring takes
 * the label of the passable cell left of its first edge, and each label has
 * exactly one ring of positive area (its shell) and any number of negative
 * ones (its holes).  That is checked, not assumed (GC_ECORRUPT).
 *
 * Memory: a label (4 bytes) and a queue slot (4 bytes) per cell, a visited
 * bit per edge and the ring points; nothing is kept after the call.
 */
#include "config.h"

#include <gridcrowd/record.h>
#include <gridcrowd/util.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Directions: E, S, W, N.  Turning left (+90 degrees) is d + 1. */
static const int dir_dx[4] = {1, 0, -1, 0};
static const int dir_dy[4] = {0, 1, 0, -1};

typedef struct geo_ctx {
    const gc_grid *g;
    int32_t w, h;
    uint8_t *pass;   /* (w + 2) * (h + 2): passable, with a border */
    uint8_t *hvis;   /* visited bits of horizontal edges: w * (h + 1) */
    uint8_t *vvis;   /* and vertical edges: (w + 1) * h */
    uint32_t *stack; /* vertices of the ring being traced (indices) */
    size_t stack_len, stack_cap;
    /* Pinch vertices -> their position on the stack, open addressing;
     * an entry is current only when stack[pos] is that vertex. */
    uint64_t *pinch_key; /* vertex index + 1; 0 = empty */
    size_t *pinch_pos;
    size_t pinch_cap;        /* power of two */
    int32_t *pts;            /* corner points, x y pairs, of every ring */
    size_t pts_len, pts_cap; /* in points */
    struct geo_ring {
        size_t off, n;  /* points */
        int64_t area2;  /* twice the signed area, grid units */
        uint32_t first; /* vertex index of its first point: (y, x) order */
        uint32_t label;
    } * rings;
    size_t n_rings, rings_cap;
} geo_ctx;

static inline bool
passable(const geo_ctx *c, int32_t x, int32_t y)
{
    return c->pass[(size_t)(y + 1) * (size_t)(c->w + 2) + (size_t)(x + 1)];
}

static inline uint32_t
vertex_index(const geo_ctx *c, int32_t vx, int32_t vy)
{
    return (uint32_t)((size_t)vy * (size_t)(c->w + 1) + (size_t)vx);
}

/* The passable cell left of the edge leaving (vx, vy) in direction d. */
static void
left_cell(int32_t vx, int32_t vy, int d, int32_t *cx, int32_t *cy)
{
    /* E: (vx, vy); S: (vx-1, vy); W: (vx-1, vy-1); N: (vx, vy-1). */
    *cx = vx - (d == 1 || d == 2);
    *cy = vy - (d == 2 || d == 3);
}

/* True when the edge leaving (vx, vy) in direction d is a boundary edge
 * with the passable cell on its left. */
static bool
edge_ok(const geo_ctx *c, int32_t vx, int32_t vy, int d)
{
    int32_t lx, ly;
    left_cell(vx, vy, d, &lx, &ly);
    /* The right cell is the left one moved by the left normal's opposite:
     * normal of d is (-dy, dx), pointing left. */
    int32_t rx = lx + dir_dy[d], ry = ly - dir_dx[d];
    return passable(c, lx, ly) && !passable(c, rx, ry);
}

/* The visited bit of the edge leaving (vx, vy) in direction d. */
static uint8_t *
edge_bit(geo_ctx *c, int32_t vx, int32_t vy, int d, uint8_t *mask)
{
    size_t i;
    if (d == 0 || d == 2) { /* horizontal edge from min x */
        int32_t x = d == 0 ? vx : vx - 1;
        i = (size_t)vy * (size_t)c->w + (size_t)x;
        *mask = (uint8_t)(1u << (i & 7));
        return &c->hvis[i >> 3];
    }
    int32_t y = d == 1 ? vy : vy - 1;
    i = (size_t)y * (size_t)(c->w + 1) + (size_t)vx;
    *mask = (uint8_t)(1u << (i & 7));
    return &c->vvis[i >> 3];
}

static bool
is_pinch(const geo_ctx *c, int32_t vx, int32_t vy)
{
    bool nw = passable(c, vx - 1, vy - 1), ne = passable(c, vx, vy - 1);
    bool sw = passable(c, vx - 1, vy), se = passable(c, vx, vy);
    return nw == se && ne == sw && nw != ne;
}

static size_t *
pinch_slot(geo_ctx *c, uint32_t v, bool insert)
{
    uint64_t key = (uint64_t)v + 1;
    size_t m = c->pinch_cap - 1;
    size_t i = (size_t)((key * 0x9E3779B97F4A7C15ull) >> 20) & m;
    for (;;) {
        if (c->pinch_key[i] == key)
            return &c->pinch_pos[i];
        if (c->pinch_key[i] == 0) {
            if (!insert)
                return NULL;
            c->pinch_key[i] = key;
            return &c->pinch_pos[i];
        }
        i = (i + 1) & m;
    }
}

static int
stack_push(geo_ctx *c, uint32_t v)
{
    if (c->stack_len == c->stack_cap) {
        size_t cap = c->stack_cap ? c->stack_cap * 2 : 256;
        uint32_t *p = realloc(c->stack, cap * sizeof *p);
        if (!p)
            return GC_ENOMEM;
        c->stack = p;
        c->stack_cap = cap;
    }
    c->stack[c->stack_len++] = v;
    return GC_OK;
}

/* Make the vertices stack[from .. stack_len) a ring: keep its corners,
 * starting at the smallest (y, x), and measure it. */
static int
emit_ring(geo_ctx *c, size_t from)
{
    size_t n = c->stack_len - from;
    const uint32_t *s = c->stack + from;
    uint32_t row = (uint32_t)c->w + 1;
    if (c->n_rings == c->rings_cap) {
        size_t cap = c->rings_cap ? c->rings_cap * 2 : 16;
        struct geo_ring *p = realloc(c->rings, cap * sizeof *p);
        if (!p)
            return GC_ENOMEM;
        c->rings = p;
        c->rings_cap = cap;
    }
    if (c->pts_cap - c->pts_len < n) {
        size_t cap = c->pts_cap ? c->pts_cap : 256;
        while (cap - c->pts_len < n)
            cap *= 2;
        int32_t *p = realloc(c->pts, cap * 2 * sizeof *p);
        if (!p)
            return GC_ENOMEM;
        c->pts = p;
        c->pts_cap = cap;
    }
    /* The smallest corner: vertex indices order by (y, x) already. */
    size_t first = SIZE_MAX;
    for (size_t i = 0; i < n; i++) {
        uint32_t a = s[(i + n - 1) % n], b = s[i], d = s[(i + 1) % n];
        bool corner = (int64_t)b - (int64_t)a != (int64_t)d - (int64_t)b;
        if (corner && (first == SIZE_MAX || b < s[first]))
            first = i;
    }
    struct geo_ring *r = &c->rings[c->n_rings];
    r->off = c->pts_len;
    r->n = 0;
    r->area2 = 0;
    for (size_t k = 0; k < n; k++) {
        size_t i = (first + k) % n;
        uint32_t a = s[(i + n - 1) % n], b = s[i], d = s[(i + 1) % n];
        if ((int64_t)b - (int64_t)a == (int64_t)d - (int64_t)b)
            continue;
        c->pts[2 * c->pts_len] = (int32_t)(b % row);
        c->pts[2 * c->pts_len + 1] = (int32_t)(b / row);
        c->pts_len++;
        r->n++;
    }
    r->first = s[first];
    for (size_t k = 0; k < r->n; k++) {
        const int32_t *p = &c->pts[2 * (r->off + k)];
        const int32_t *q = &c->pts[2 * (r->off + (k + 1) % r->n)];
        r->area2 += (int64_t)p[0] * q[1] - (int64_t)q[0] * p[1];
    }
    c->n_rings++;
    return GC_OK;
}

/* Trace the cycle of boundary edges that starts with the edge leaving
 * (sx, sy) in direction d0, cutting off loops at pinches. */
static int
trace(geo_ctx *c, const uint32_t *labels, int32_t sx, int32_t sy, int d0)
{
    int rc;
    int32_t x = sx, y = sy;
    int d = d0;
    uint32_t v0 = vertex_index(c, sx, sy);
    size_t first_ring = c->n_rings;
    c->stack_len = 0;
    if ((rc = stack_push(c, v0)) != GC_OK)
        return rc;
    if (is_pinch(c, sx, sy))
        *pinch_slot(c, v0, true) = 0;
    for (;;) {
        uint8_t mask, *bit = edge_bit(c, x, y, d, &mask);
        *bit |= mask;
        x += dir_dx[d];
        y += dir_dy[d];
        int nd = -1;
        for (int k = 1; k >= -1; k--) {
            int t = (d + 4 + k) & 3;
            if (edge_ok(c, x, y, t)) {
                nd = t;
                break;
            }
        }
        if (nd < 0)
            return GC_ECORRUPT; /* cannot happen: in and out edges pair */
        uint32_t v = vertex_index(c, x, y);
        if (v == v0 && nd == d0) {
            if ((rc = emit_ring(c, 0)) != GC_OK)
                return rc;
            break;
        }
        if (is_pinch(c, x, y)) {
            size_t *pos = pinch_slot(c, v, true);
            if (*pos < c->stack_len && c->stack[*pos] == v) {
                size_t at = *pos;
                if ((rc = emit_ring(c, at)) != GC_OK)
                    return rc;
                c->stack_len = at;
            }
            *pos = c->stack_len;
        }
        if ((rc = stack_push(c, v)) != GC_OK)
            return rc;
        d = nd;
    }
    for (size_t i = first_ring; i < c->n_rings; i++) {
        struct geo_ring *r = &c->rings[i];
        const int32_t *p = &c->pts[2 * r->off], *q = &c->pts[2 * (r->off + 1)];
        int dd = q[0] > p[0] ? 0 : q[1] > p[1] ? 1 : q[0] < p[0] ? 2 : 3;
        int32_t lx, ly;
        left_cell(p[0], p[1], dd, &lx, &ly);
        r->label = labels[(size_t)ly * (size_t)c->w + (size_t)lx];
    }
    return GC_OK;
}

/* 4-connected components of the passable cells, numbered from 1 in
 * row-major order of their first cell; 0 for impassable cells. */
static int
label_cells(geo_ctx *c, uint32_t **out, uint32_t *count)
{
    size_t n = (size_t)c->w * (size_t)c->h;
    uint32_t *lab = calloc(n ? n : 1, sizeof *lab);
    uint32_t *queue = malloc((n ? n : 1) * sizeof *queue);
    if (!lab || !queue) {
        free(lab);
        free(queue);
        return GC_ENOMEM;
    }
    uint32_t next = 0;
    for (size_t i = 0; i < n; i++) {
        int32_t x = (int32_t)(i % (size_t)c->w),
                y = (int32_t)(i / (size_t)c->w);
        if (lab[i] || !passable(c, x, y))
            continue;
        next++;
        size_t qh = 0, qt = 0;
        lab[i] = next;
        queue[qt++] = (uint32_t)i;
        while (qh < qt) {
            uint32_t j = queue[qh++];
            int32_t jx = (int32_t)(j % (uint32_t)c->w);
            int32_t jy = (int32_t)(j / (uint32_t)c->w);
            for (int d = 0; d < 4; d++) {
                int32_t nx = jx + dir_dx[d], ny = jy + dir_dy[d];
                if (!passable(c, nx, ny))
                    continue;
                size_t k = (size_t)ny * (size_t)c->w + (size_t)nx;
                if (!lab[k]) {
                    lab[k] = next;
                    queue[qt++] = (uint32_t)k;
                }
            }
        }
    }
    free(queue);
    *out = lab;
    *count = next;
    return GC_OK;
}

/* ---- text ---------------------------------------------------------------- */

typedef struct sbuf {
    char *s;
    size_t len, cap;
    bool oom;
} sbuf;

static void
sb_add(sbuf *b, const char *s, size_t n)
{
    if (b->oom)
        return;
    if (b->cap - b->len <= n) {
        size_t cap = b->cap ? b->cap : 256;
        while (cap - b->len <= n)
            cap *= 2;
        char *p = realloc(b->s, cap);
        if (!p) {
            b->oom = true;
            return;
        }
        b->s = p;
        b->cap = cap;
    }
    memcpy(b->s + b->len, s, n);
    b->len += n;
    b->s[b->len] = '\0';
}

static void
sb_str(sbuf *b, const char *s)
{
    sb_add(b, s, strlen(s));
}

/* The shortest decimal text that reads back as the float v, without an
 * exponent (not every WKT reader takes one). */
static void
sb_num(sbuf *b, float v)
{
    char t[64];
    if (v == (float)(int64_t)v && v > -1e15f && v < 1e15f) {
        snprintf(t, sizeof t, "%lld", (long long)v);
    } else {
        /* (Past 1e5 a fraction needs more digits than %g's exponent
         * takes over at, so only a small v gets one.) */
        gc_float_text(t, v);
        if (strchr(t, 'e')) {
            /* Tiny or huge: fixed notation with enough digits, trimmed. */
            snprintf(t, sizeof t, "%.12f", (double)v);
            size_t n = strlen(t);
            while (n > 1 && t[n - 1] == '0')
                t[--n] = '\0';
            if (n > 1 && t[n - 1] == '.')
                t[--n] = '\0';
        }
    }
    sb_str(b, t);
}

static void
sb_ring(sbuf *b, const geo_ctx *c, const struct geo_ring *r, float cs)
{
    sb_str(b, "(");
    for (size_t k = 0; k <= r->n; k++) {
        const int32_t *p = &c->pts[2 * (r->off + k % r->n)];
        if (k)
            sb_str(b, ", ");
        sb_num(b, (float)p[0] * cs);
        sb_str(b, " ");
        sb_num(b, (float)p[1] * cs);
    }
    sb_str(b, ")");
}

/* Rings ordered by label, the shell first, then holes by first point. */
static int
ring_cmp(const void *pa, const void *pb)
{
    const struct geo_ring *a = pa, *b = pb;
    if (a->label != b->label)
        return a->label < b->label ? -1 : 1;
    bool sa = a->area2 > 0, sb = b->area2 > 0;
    if (sa != sb)
        return sa ? -1 : 1;
    return a->first < b->first ? -1 : a->first > b->first;
}

static void
geo_free(geo_ctx *c)
{
    free(c->pass);
    free(c->hvis);
    free(c->vvis);
    free(c->stack);
    free(c->pinch_key);
    free(c->pinch_pos);
    free(c->pts);
    free(c->rings);
}

int
gc_record_walkable_wkt(const gc_grid *g, char **out, size_t *len)
{
    if (out)
        *out = NULL;
    if (len)
        *len = 0;
    if (!g || !out || !g->cells ||
        gc_grid_check_size(g->width, g->height) != GC_OK ||
        !(g->cell_size > 0.0f))
        return GC_EINVAL;
    geo_ctx c = {.g = g, .w = g->width, .h = g->height};
    size_t w = (size_t)c.w, h = (size_t)c.h;
    uint32_t *labels = NULL, n_labels = 0;
    int rc = GC_ENOMEM;
    c.pass = calloc((w + 2) * (h + 2), 1);
    c.hvis = calloc((w * (h + 1) + 7) / 8, 1);
    c.vvis = calloc(((w + 1) * h + 7) / 8, 1);
    if (!c.pass || !c.hvis || !c.vvis)
        goto done;
    for (int32_t y = 0; y < c.h; y++)
        for (int32_t x = 0; x < c.w; x++)
            c.pass[(size_t)(y + 1) * (w + 2) + (size_t)(x + 1)] =
                gc_grid_passable(g, x, y);
    size_t pinches = 0;
    for (int32_t y = 0; y <= c.h; y++)
        for (int32_t x = 0; x <= c.w; x++)
            pinches += is_pinch(&c, x, y);
    c.pinch_cap = 16;
    while (c.pinch_cap < 2 * pinches + 2)
        c.pinch_cap *= 2;
    c.pinch_key = calloc(c.pinch_cap, sizeof *c.pinch_key);
    c.pinch_pos = calloc(c.pinch_cap, sizeof *c.pinch_pos);
    if (!c.pinch_key || !c.pinch_pos)
        goto done;
    if ((rc = label_cells(&c, &labels, &n_labels)) != GC_OK)
        goto done;
    /* Every ring holds a horizontal edge, so scanning those finds all. */
    for (int32_t y = 0; y <= c.h; y++)
        for (int32_t x = 0; x < c.w; x++) {
            uint8_t mask;
            if (edge_ok(&c, x, y, 0)) {
                if (!(*edge_bit(&c, x, y, 0, &mask) & mask) &&
                    (rc = trace(&c, labels, x, y, 0)) != GC_OK)
                    goto done;
            } else if (edge_ok(&c, x + 1, y, 2)) {
                if (!(*edge_bit(&c, x + 1, y, 2, &mask) & mask) &&
                    (rc = trace(&c, labels, x + 1, y, 2)) != GC_OK)
                    goto done;
            }
        }
    if (c.n_rings) /* qsort takes no NULL, even for 0 elements */
        qsort(c.rings, c.n_rings, sizeof *c.rings, ring_cmp);
    /* Exactly one shell per label, holes after it. */
    rc = GC_ECORRUPT;
    {
        uint32_t seen = 0;
        for (size_t i = 0; i < c.n_rings; i++) {
            const struct geo_ring *r = &c.rings[i];
            if (r->area2 > 0) {
                if (r->label != seen + 1)
                    goto done;
                seen = r->label;
            } else if (r->label != seen || r->area2 == 0) {
                goto done;
            }
        }
        if (seen != n_labels)
            goto done;
    }
    sbuf b = {0};
    float cs = g->cell_size;
    if (n_labels == 0) {
        sb_str(&b, "POLYGON EMPTY");
    } else {
        sb_str(&b, n_labels == 1 ? "POLYGON (" : "MULTIPOLYGON (");
        for (size_t i = 0; i < c.n_rings; i++) {
            bool shell = c.rings[i].area2 > 0;
            if (shell && i > 0)
                sb_str(&b, n_labels == 1 ? "" : "), ");
            else if (i > 0)
                sb_str(&b, ", ");
            if (shell && n_labels > 1)
                sb_str(&b, "(");
            sb_ring(&b, &c, &c.rings[i], cs);
        }
        sb_str(&b, n_labels > 1 ? "))" : ")");
    }
    if (b.oom) {
        free(b.s);
        rc = GC_ENOMEM;
        goto done;
    }
    *out = b.s;
    if (len)
        *len = b.len;
    rc = GC_OK;
done:
    free(labels);
    geo_free(&c);
    return rc;
}

int64_t
gc_record_wkt_hash(const char *wkt)
{
    uint64_t h = 0xcbf29ce484222325ull;
    for (const unsigned char *p = (const unsigned char *)wkt; p && *p; p++) {
        h ^= *p;
        h *= 0x100000001b3ull;
    }
    return (int64_t)(h & (uint64_t)INT64_MAX);
}
