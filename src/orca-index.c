/*
 * orca-index.c: the ORCA neighbour index (agents bucketed on a uniform
 * grid, K-nearest queries) and gc_orca_step, one tick of avoidance over a
 * range of agents.  The half-planes and the linear programs it calls are
 * in orca.c and orca-solve.c; agent_line() and the vector helpers come
 * inline from orca_int.h.
 *
 * Rules kept:
 *   - No randomness and no order-dependent state: a query returns the
 *     nearest agents, ties by index, whatever the bucket layout, and each
 *     agent's velocity is a pure function of the previous tick.
 *   - No allocation in queries or the tick: the index allocates only when
 *     it grows (in gc_orca_grid_build).
 */
#include "config.h"

#include <gridcrowd/orca.h>

#include "knn_int.h"
#include "orca_int.h"
#include "orca_simd.h"

#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

/* ---- the neighbour index ------------------------------------------------ */

/*
 * Every field is written only by gc_orca_grid_build and read by queries;
 * the caller orders a build before the queries that use it (the
 * simulation builds between ticks, then starts its agent threads), so no
 * field needs a lock or an atomic.
 */
struct gc_orca_grid {
    float cell, inv_cell; /* bucket width and its inverse */
    float ox, oy;         /* lower corner of bucket (0, 0) */
    int32_t w, h;         /* buckets across and down */
    size_t n;             /* agents indexed */
    size_t cap_n, cap_cells;
    uint32_t *start;  /* w * h + 1: bucket c is [start[c], start[c + 1]) */
    uint32_t *idx;    /* agent index, in bucket order */
    float *sx, *sy;   /* positions in bucket order (queries scan these) */
    uint32_t *cellof; /* build scratch: each agent's bucket */
    /* Build scratch: parts rows of w * h counters, one row per part of
     * the agents counted on its own (gc_orca_grid_count), then each
     * part's next place in every bucket (gc_orca_grid_offsets). */
    uint32_t *counts;
    size_t parts, cap_counts;
};

int
gc_orca_grid_new(gc_orca_grid **out)
{
    gc_orca_grid *g = calloc(1, sizeof *g);
    if (!g)
        return GC_ENOMEM;
    g->cell = g->inv_cell = 1.0f;
    *out = g;
    return 0;
}

void
gc_orca_grid_free(gc_orca_grid *g)
{
    if (!g)
        return;
    free(g->start);
    free(g->idx);
    free(g->sx);
    free(g->sy);
    free(g->cellof);
    free(g->counts);
    free(g);
}

static void
grid_empty(gc_orca_grid *g)
{
    g->n = 0;
    g->w = g->h = 0;
}

int
gc_orca_grid_build(gc_orca_grid *g, const float *x, const float *y, size_t n,
                   float cell)
{
    if (!g || n >= UINT32_MAX || (n && (!x || !y)))
        return GC_EINVAL;
    gc_orca_points pts = {x, y, sizeof *x};
    gc_orca_bounds b;
    gc_orca_bounds_init(&b);
    gc_orca_bounds_add(&b, &pts, 0, n);
    int rc = gc_orca_grid_shape(g, &b, n, cell, 1);
    if (rc != 0)
        return rc;
    gc_orca_grid_count(g, &pts, 0, n, 0);
    gc_orca_grid_offsets(g);
    gc_orca_grid_fill(g, &pts, 0, n, 0);
    return 0;
}

void
gc_orca_bounds_init(gc_orca_bounds *b)
{
    b->x0 = b->y0 = INFINITY;
    b->x1 = b->y1 = -INFINITY;
    b->finite = true;
}

void
gc_orca_bounds_add(gc_orca_bounds *b, const gc_orca_points *pts, size_t lo,
                   size_t hi)
{
    for (size_t i = lo; i < hi; i++) {
        float x = gc_orca_point(pts->x, pts->stride, i);
        float y = gc_orca_point(pts->y, pts->stride, i);
        b->finite &= isfinite(x) && isfinite(y);
        b->x0 = gc_minf(b->x0, x);
        b->x1 = gc_maxf(b->x1, x);
        b->y0 = gc_minf(b->y0, y);
        b->y1 = gc_maxf(b->y1, y);
    }
}

void
gc_orca_bounds_join(gc_orca_bounds *b, const gc_orca_bounds *o)
{
    b->finite &= o->finite;
    b->x0 = gc_minf(b->x0, o->x0);
    b->x1 = gc_maxf(b->x1, o->x1);
    b->y0 = gc_minf(b->y0, o->y0);
    b->y1 = gc_maxf(b->y1, o->y1);
}

/* realloc(p, bytes), or p when that fails (clearing *ok): an array
 * that cannot grow is kept as it was. */
static void *
resize(void *p, size_t bytes, bool *ok)
{
    void *q = realloc(p, bytes);
    if (!q)
        *ok = false;
    return q ? q : p;
}

/* Grow the array *p to hold at least `need` (*cap counts its room).
 * False when out of memory (*p is kept). */
static bool
grow_u32(uint32_t **p, size_t *cap, size_t need)
{
    if (need <= *cap)
        return true;
    size_t c = need + need / 2 + 16;
    bool ok = true;
    *p = resize(*p, c * sizeof **p, &ok);
    if (ok)
        *cap = c;
    return ok;
}

/* Room for n agents in the four per-agent arrays, which share one
 * capacity.  False when out of memory. */
static bool
grow_agents(gc_orca_grid *g, size_t n)
{
    if (n <= g->cap_n)
        return true;
    size_t cap = n + n / 2 + 16;
    bool ok = true;
    g->idx = resize(g->idx, cap * sizeof *g->idx, &ok);
    g->sx = resize(g->sx, cap * sizeof *g->sx, &ok);
    g->sy = resize(g->sy, cap * sizeof *g->sy, &ok);
    g->cellof = resize(g->cellof, cap * sizeof *g->cellof, &ok);
    if (ok)
        g->cap_n = cap;
    return ok;
}

int
gc_orca_grid_shape(gc_orca_grid *g, const gc_orca_bounds *b, size_t n,
                   float cell, size_t parts)
{
    if (!g || !(cell > 0) || !isfinite(cell) || n >= UINT32_MAX || parts < 1)
        return GC_EINVAL;
    if (!b->finite) {
        grid_empty(g);
        return GC_EINVAL;
    }
    float x0 = b->x0, y0 = b->y0, x1 = b->x1, y1 = b->y1;
    if (n == 0)
        x0 = y0 = x1 = y1 = 0;

    /* Bound the bucket count by n / 2 + 64 by widening buckets: the
     * extent in doubles, since a float product could overflow for wide
     * boxes.  Each tick zeroes and sums every bucket's count, once a
     * part: with 100,000 wanderers on open ground (1,024 x 1,024 cells)
     * the buckets of 4n + 64 cost more than wider buckets' extra
     * candidates (55.5 ticks/s against 60.6 in batch, the medians of
     * four runs; n + 64: 57.8). */
    double ex = (double)x1 - x0, ey = (double)y1 - y0;
    double limit = 0.5 * (double)n + 64.0;
    double c = cell;
    if ((ex / c + 1) * (ey / c + 1) > limit) {
        /* Solve (ex/c + 1)(ey/c + 1) <= limit for c, then nudge up. */
        double A = limit - 1, Bq = ex + ey, C = ex * ey;
        c = (Bq + sqrt(Bq * Bq + 4 * A * C)) / (2 * A);
        while ((floor(ex / c) + 1) * (floor(ey / c) + 1) > limit)
            c *= 1.0001;
    }
    int32_t w = (int32_t)floor(ex / c) + 1, h = (int32_t)floor(ey / c) + 1;
    size_t cells = (size_t)w * (size_t)h;

    bool ok = grow_agents(g, n);
    ok = ok && grow_u32(&g->start, &g->cap_cells, cells + 1);
    ok = ok && grow_u32(&g->counts, &g->cap_counts, cells * parts);
    if (!ok) {
        grid_empty(g);
        return GC_ENOMEM;
    }

    g->cell = (float)c;
    g->inv_cell = (float)(1.0 / c);
    g->ox = x0;
    g->oy = y0;
    g->w = w;
    g->h = h;
    g->n = n;
    g->parts = parts;
    return 0;
}

void
gc_orca_grid_count(gc_orca_grid *g, const gc_orca_points *pts, size_t lo,
                   size_t hi, size_t part)
{
    size_t cells = (size_t)g->w * (size_t)g->h;
    uint32_t *cnt = g->counts + part * cells;
    memset(cnt, 0, cells * sizeof *cnt);
    for (size_t i = lo; i < hi; i++) {
        float x = gc_orca_point(pts->x, pts->stride, i);
        float y = gc_orca_point(pts->y, pts->stride, i);
        int32_t cx = (int32_t)((x - g->ox) * g->inv_cell);
        int32_t cy = (int32_t)((y - g->oy) * g->inv_cell);
        /* Rounding in inv_cell can land the far edge one bucket out. */
        cx = cx < g->w ? cx : g->w - 1;
        cy = cy < g->h ? cy : g->h - 1;
        uint32_t cid = (uint32_t)cy * (uint32_t)g->w + (uint32_t)cx;
        g->cellof[i] = cid;
        cnt[cid]++;
    }
}

void
gc_orca_grid_offsets(gc_orca_grid *g)
{
    size_t cells = (size_t)g->w * (size_t)g->h, parts = g->parts;
    uint32_t at = 0;
    for (size_t c = 0; c < cells; c++) {
        g->start[c] = at;
        for (size_t p = 0; p < parts; p++) {
            uint32_t k = g->counts[p * cells + c];
            g->counts[p * cells + c] = at;
            at += k;
        }
    }
    g->start[cells] = at;
}

void
gc_orca_grid_fill(gc_orca_grid *g, const gc_orca_points *pts, size_t lo,
                  size_t hi, size_t part)
{
    uint32_t *next = g->counts + part * (size_t)g->w * (size_t)g->h;
    for (size_t i = lo; i < hi; i++) {
        uint32_t at = next[g->cellof[i]]++;
        g->idx[at] = (uint32_t)i;
        g->sx[at] = gc_orca_point(pts->x, pts->stride, i);
        g->sy[at] = gc_orca_point(pts->y, pts->stride, i);
    }
}

/*
 * The candidates: keys in no order, m of them (knn_int.h: squared
 * distance above agent index).  The scan appends every agent within the
 * bound without a branch (about half of those it looks at pass, so a
 * branch per agent mispredicted half the time).  When it fills, and
 * after the first 3 x 3 buckets, it is cut to the k nearest by selection
 * (knn_select: sorting first made 2.5 us queries in dense crowds, where a
 * hundred candidates pile up; selecting, 1 us), and the bound shrinks to
 * the k-th: none further out can be among them.  At the end the k kept
 * are sorted, except for the crowd's candidate lists, which sort what they
 * need themselves (gc_orca_grid_nearest_set).  (Keeping k sorted keys all
 * along cost a pass over k slots per entry: most of the query's time.)
 */
#define SCAN_BATCH 32
#define KNN_CAP (2 * GC_ORCA_MAX_NEIGHBOURS + SCAN_BATCH)
struct knn {
    float qx, qy;
    uint32_t self;
    uint32_t k;
    uint32_t m;  /* candidates in keys */
    float bound; /* squared distance: none further can be among the k */
    float slop;  /* rounding margin for bucket geometry, units */
    int wide;    /* agents a scan takes at a time: 1, 8 or 16 (scan_run) */
    uint64_t keys[KNN_CAP];
};

/* Keep the k nearest candidates, and bound the rest of the scan by the
 * k-th of them. */
static void
knn_cut(struct knn *s)
{
    if (s->m <= s->k)
        return;
    knn_select(s->keys, s->m, s->k);
    s->m = s->k;
    float b = knn_dist(s->keys[s->k - 1]);
    if (b < s->bound)
        s->bound = b;
}

/* Append the bucket-ordered agents [a, e) within the bound, a batch at a
 * time (a batch always fits: after a cut at most k are left). */
static inline void
scan_run1(const gc_orca_grid *g, uint32_t a, uint32_t e, struct knn *s)
{
    const float *restrict sx = g->sx, *restrict sy = g->sy;
    const uint32_t *restrict gi = g->idx;
    uint64_t *restrict keys = s->keys;
    const float qx = s->qx, qy = s->qy;
    const uint32_t self = s->self;
    while (a < e) {
        if (s->m + SCAN_BATCH > KNN_CAP)
            knn_cut(s);
        uint32_t end = e - a > SCAN_BATCH ? a + SCAN_BATCH : e, m = s->m;
        const float bound = s->bound;
        for (; a < end; a++) {
            float dx = sx[a] - qx, dy = sy[a] - qy;
            float d = dx * dx + dy * dy;
            uint32_t i = gi[a];
            keys[m] = knn_key(d, i);
            m += (uint32_t)(d <= bound) & (uint32_t)(i != self);
        }
        s->m = m;
    }
}

#if defined(ORCA_AVX512)
/*
 * scan_run sixteen agents at a time: their distances in one vector, and
 * the keys of those within the bound packed to the end of the keys (the
 * scalar loop's work per agent, and a cut when 16 more might not fit).
 * The same candidates, but for those a cut at another moment left out
 * (each further than the k-th then, so never an answer): the answers
 * are the scalar loop's.
 */
static GC_AVX512_ATTR void
scan_run16(const gc_orca_grid *g, uint32_t a, uint32_t e, struct knn *s)
{
    const __m512 qx = _mm512_set1_ps(s->qx), qy = _mm512_set1_ps(s->qy);
    const __m512i self = _mm512_set1_epi32((int)s->self);
    for (; a < e; a += 16) {
        if (s->m + 16 > KNN_CAP)
            knn_cut(s);
        uint32_t left = e - a;
        __mmask16 in =
            left >= 16 ? (__mmask16)0xFFFF : (__mmask16)((1u << left) - 1u);
        __m512 x = _mm512_maskz_loadu_ps(in, g->sx + a);
        __m512 y = _mm512_maskz_loadu_ps(in, g->sy + a);
        __m512i id = _mm512_maskz_loadu_epi32(in, g->idx + a);
        __m512 dx = _mm512_sub_ps(x, qx), dy = _mm512_sub_ps(y, qy);
        __m512 d = _mm512_add_ps(_mm512_mul_ps(dx, dx), _mm512_mul_ps(dy, dy));
        __mmask16 keep = _mm512_mask_cmp_ps_mask(
            in, d, _mm512_set1_ps(s->bound), _CMP_LE_OQ);
        keep = _mm512_mask_cmpneq_epi32_mask(keep, id, self);
        if (!keep)
            continue;
        /* Each key the distance's bits over the index (knn_key). */
        __m512i db = _mm512_maskz_compress_epi32(keep, _mm512_castps_si512(d));
        __m512i ic = _mm512_maskz_compress_epi32(keep, id);
        __m512i k0 = _mm512_or_si512(
            _mm512_slli_epi64(_mm512_cvtepu32_epi64(_mm512_castsi512_si256(db)),
                              32),
            _mm512_cvtepu32_epi64(_mm512_castsi512_si256(ic)));
        _mm512_storeu_si512((void *)(s->keys + s->m), k0);
        unsigned got = (unsigned)__builtin_popcount((unsigned)keep);
        if (got > 8) {
            __m512i k1 = _mm512_or_si512(
                _mm512_slli_epi64(
                    _mm512_cvtepu32_epi64(_mm512_extracti64x4_epi64(db, 1)),
                    32),
                _mm512_cvtepu32_epi64(_mm512_extracti64x4_epi64(ic, 1)));
            _mm512_storeu_si512((void *)(s->keys + s->m + 8), k1);
        }
        s->m += got;
    }
}
#endif

#if defined(ORCA_AVX)
/* scan_run eight at a time (AVX2, which has no compress: the keys of
 * those within the bound, a fifth of them or so, are written one by
 * one). */
static __attribute__((target("avx2"))) void
scan_run8(const gc_orca_grid *g, uint32_t a, uint32_t e, struct knn *s)
{
    const __m256 qx = _mm256_set1_ps(s->qx), qy = _mm256_set1_ps(s->qy);
    const __m256i self = _mm256_set1_epi32((int)s->self);
    const __m256i iota = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
    for (; a < e; a += 8) {
        if (s->m + 8 > KNN_CAP)
            knn_cut(s);
        __m256i in = _mm256_cmpgt_epi32(_mm256_set1_epi32((int)(e - a)), iota);
        __m256 x = _mm256_maskload_ps(g->sx + a, in);
        __m256 y = _mm256_maskload_ps(g->sy + a, in);
        __m256i id = _mm256_maskload_epi32((const int *)(g->idx + a), in);
        __m256 dx = _mm256_sub_ps(x, qx), dy = _mm256_sub_ps(y, qy);
        __m256 d = _mm256_add_ps(_mm256_mul_ps(dx, dx), _mm256_mul_ps(dy, dy));
        __m256 ok = _mm256_and_ps(
            _mm256_cmp_ps(d, _mm256_set1_ps(s->bound), _CMP_LE_OQ),
            _mm256_castsi256_ps(
                _mm256_andnot_si256(_mm256_cmpeq_epi32(id, self), in)));
        unsigned keep = (unsigned)_mm256_movemask_ps(ok);
        if (!keep)
            continue;
        float dv[8];
        uint32_t iv[8];
        _mm256_storeu_ps(dv, d);
        _mm256_storeu_si256((__m256i *)(void *)iv, id);
        for (; keep != 0; keep &= keep - 1) {
            unsigned b = (unsigned)__builtin_ctz(keep);
            s->keys[s->m++] = knn_key(dv[b], iv[b]);
        }
    }
}
#endif

/* How many agents a query's scan takes at a time: as the ORCA lanes are
 * chosen (orca_simd.h), sixteen where the CPU takes sixteen lanes best,
 * eight where it has AVX2, else one.  Every width gives the same
 * answers (tests/test_orca_simd.c). */
static int
scan_width(void)
{
#if defined(ORCA_AVX512)
    if (gc_orca_lanes_sixteen())
        return 16;
#endif
#if defined(ORCA_AVX)
    if (gc_orca_lanes_eight() && __builtin_cpu_supports("avx2"))
        return 8;
#endif
    return 1;
}

static inline void
scan_run(const gc_orca_grid *g, uint32_t a, uint32_t e, struct knn *s)
{
#if defined(ORCA_AVX512)
    if (s->wide == 16) {
        scan_run16(g, a, e, s);
        return;
    }
#endif
#if defined(ORCA_AVX)
    if (s->wide == 8) {
        scan_run8(g, a, e, s);
        return;
    }
#endif
    scan_run1(g, a, e, s);
}

/*
 * Scan the buckets of row `by` within reach of q, except columns [sx0,
 * sx1] (already scanned; an empty range when sx0 > sx1).  False when the
 * whole row is beyond the bound (and so every row further out).
 */
static bool
scan_row(const gc_orca_grid *g, int32_t by, int32_t sx0, int32_t sx1,
         struct knn *s)
{
    float cs = g->cell;
    float y0 = g->oy + (float)by * cs;
    float dy = y0 - s->qy > 0 ? y0 - s->qy : s->qy - (y0 + cs);
    dy = dy - s->slop > 0 ? dy - s->slop : 0;
    if (dy * dy > s->bound)
        return false;
    float half = sqrtf(s->bound - dy * dy) + s->slop;
    float lo = (s->qx - half - g->ox) * g->inv_cell;
    float hi = (s->qx + half - g->ox) * g->inv_cell;
    if (hi < 0 || lo >= (float)g->w)
        return true;
    int32_t bx0 = lo > 0 ? (int32_t)lo : 0;
    int32_t bx1 = hi < (float)(g->w - 1) ? (int32_t)hi : g->w - 1;
    const uint32_t *st = g->start + (uint32_t)by * (uint32_t)g->w;
    if (sx0 > sx1 || bx1 < sx0 || bx0 > sx1) {
        scan_run(g, st[bx0], st[bx1 + 1], s);
        return true;
    }
    if (bx0 < sx0)
        scan_run(g, st[bx0], st[sx0], s);
    if (bx1 > sx1)
        scan_run(g, st[sx1 + 1], st[bx1 + 1], s);
    return true;
}

size_t
gc_orca_grid_nearest(const gc_orca_grid *g, gc_vec2 q, size_t self, size_t k,
                     float dist, uint32_t *idx, float *d2)
{
    return gc_orca_grid_nearest_hint(g, q, self, k, dist, INFINITY, idx, d2);
}

/* gc_orca_grid_nearest_hint, sorted or not (gc_orca_grid_nearest_set). */
static size_t
nearest(const gc_orca_grid *g, gc_vec2 q, size_t self, size_t k, float dist,
        float hint, bool sorted, uint32_t *idx, float *d2)
{
    if (!g || g->n == 0 || k == 0 || !(dist > 0) || !isfinite(dist) ||
        !isfinite(q.x) || !isfinite(q.y))
        return 0;
    struct knn s;
    s.qx = q.x;
    s.qy = q.y;
    s.self = self < g->n ? (uint32_t)self : UINT32_MAX;
    s.k = (uint32_t)(k < GC_ORCA_MAX_NEIGHBOURS ? k : GC_ORCA_MAX_NEIGHBOURS);
    s.bound = dist * dist;
    s.wide = scan_width();
    /* Kept only below `limit`: the range's own key with index 0, which
     * every agent strictly inside the range is below and none at the
     * range; or, with a hint nearer than the range (k agents are known to
     * lie within it), the hint's key with the largest index, which every
     * agent at the hint is below: the k nearest are all within it, and
     * the scan looks no further. */
    uint64_t limit = knn_key(s.bound, 0);
    if (hint < s.bound) {
        if (hint < 0.0f)
            return 0; /* nobody is nearer than that */
        s.bound = hint;
        limit = knn_key(s.bound, UINT32_MAX);
    }
    s.m = 0;
    /* Bucket edges are computed two ways (oy + by * cell here, a product
     * by 1 / cell in the build); a margin of a few ulps of the largest
     * coordinate keeps an agent on an edge from being missed. */
    s.slop = g->cell * 1e-4f +
             (fabsf(q.x) + fabsf(q.y) + fabsf(g->ox) + fabsf(g->oy)) * 1e-6f;

    /* First the 3 x 3 buckets around q's (clamped to the grid): they
     * hold the nearest agents in all but sparse crowds, so the bound
     * shrinks to about the k-th distance before the rest is looked at and
     * most agents further out fail on distance alone. */
    float fy = (q.y - g->oy) * g->inv_cell, fx = (q.x - g->ox) * g->inv_cell;
    int32_t cy = fy < 0 ? -1 : fy >= (float)g->h ? g->h : (int32_t)fy;
    int32_t cx = fx < 0 ? 0 : fx >= (float)g->w ? g->w - 1 : (int32_t)fx;
    int32_t ccy = cy < 0 ? 0 : cy >= g->h ? g->h - 1 : cy;
    int32_t bx0 = cx > 0 ? cx - 1 : 0, bx1 = cx < g->w - 1 ? cx + 1 : cx;
    int32_t by0 = ccy > 0 ? ccy - 1 : 0, by1 = ccy < g->h - 1 ? ccy + 1 : ccy;
    for (int32_t by = by0; by <= by1; by++) {
        const uint32_t *st = g->start + (uint32_t)by * (uint32_t)g->w;
        scan_run(g, st[bx0], st[bx1 + 1], &s);
    }
    knn_cut(&s);

    /* Then rows outward from q's row, alternately below and above, each
     * stopping at its first row beyond the bound; in a row only the
     * buckets within reach in x, adjacent in memory: one linear pass. */
    bool down = true, up = true;
    for (int32_t o = 0; down || up; o++) {
        if (down) {
            int32_t by = cy - o;
            bool blk = by >= by0 && by <= by1;
            if (by < 0)
                down = false;
            else if (by < g->h &&
                     !scan_row(g, by, blk ? bx0 : 1, blk ? bx1 : 0, &s))
                down = false;
        }
        if (up && o > 0) {
            int32_t by = cy + o;
            bool blk = by >= by0 && by <= by1;
            if (by >= g->h)
                up = false;
            else if (by >= 0 &&
                     !scan_row(g, by, blk ? bx0 : 1, blk ? bx1 : 0, &s))
                up = false;
        }
    }
    knn_cut(&s);
    uint32_t cnt = 0;
    if (sorted) {
        knn_sort(s.keys, s.m);
        for (; cnt < s.m && s.keys[cnt] < limit; cnt++) {
            idx[cnt] = (uint32_t)s.keys[cnt];
            if (d2)
                d2[cnt] = knn_dist(s.keys[cnt]);
        }
        return cnt;
    }
    for (uint32_t j = 0; j < s.m; j++) {
        idx[cnt] = (uint32_t)s.keys[j];
        if (d2)
            d2[cnt] = knn_dist(s.keys[j]);
        cnt += s.keys[j] < limit;
    }
    return cnt;
}

size_t
gc_orca_grid_nearest_hint(const gc_orca_grid *g, gc_vec2 q, size_t self,
                          size_t k, float dist, float hint, uint32_t *idx,
                          float *d2)
{
    return nearest(g, q, self, k, dist, hint, true, idx, d2);
}

size_t
gc_orca_grid_nearest_set(const gc_orca_grid *g, gc_vec2 q, size_t self,
                         size_t k, float dist, float hint, uint32_t *idx,
                         float *d2)
{
    return nearest(g, q, self, k, dist, hint, false, idx, d2);
}

/* ---- one tick ------------------------------------------------------------ */

int
gc_orca_step(const gc_orca_params *p, const gc_orca_grid *g,
             const gc_orca_state *s, gc_orca_segment_fn segs, void *segs_ctx,
             size_t begin, size_t end, float *out_vx, float *out_vy)
{
    if (!params_valid(p) || !g || !s || begin > end || end > s->n ||
        g->n != s->n || !out_vx || !out_vy ||
        (s->n &&
         (!s->px || !s->py || !s->vx || !s->vy || !s->pref_x || !s->pref_y)))
        return GC_EINVAL;

    size_t k = (size_t)p->max_neighbours;
    float inv_tau = 1.0f / p->time_horizon, inv_dt = 1.0f / p->dt;
    /* Agents are taken in bucket order, not index order: consecutive
     * queries then look at the same buckets, which stay in cache (with
     * indices unrelated to places, as in a real crowd, index order made
     * a 100,000-agent step half as fast again).  Each agent's answer
     * depends on nothing but the inputs, so the order changes no bit. */
    const bool all = begin == 0 && end == s->n;
    for (size_t at = 0; at < s->n; at++) {
        size_t i = g->idx[at];
        if (!all && (i < begin || i >= end))
            continue;
        uint32_t ids[GC_ORCA_MAX_NEIGHBOURS];
        float d2[GC_ORCA_MAX_NEIGHBOURS];
        gc_orca_agent self = {
            {s->px[i], s->py[i]},
            {s->vx[i], s->vy[i]},
            s->radius ? s->radius[i] : p->radius,
        };
        float vmax = s->max_speed ? s->max_speed[i] : p->max_speed;
        gc_vec2 pref = {s->pref_x[i], s->pref_y[i]};
        gc_orca_line lines[GC_ORCA_MAX_LINES];
        size_t nl = 0, n_obst = 0;

        if (segs) {
            gc_orca_segment sb[GC_ORCA_MAX_SEGMENTS];
            float range = p->time_horizon_obst * vmax + self.radius;
            size_t m =
                segs(segs_ctx, self.pos, range, sb, GC_ORCA_MAX_SEGMENTS);
            if (m > GC_ORCA_MAX_SEGMENTS)
                m = GC_ORCA_MAX_SEGMENTS;
            int r = gc_orca_lines(p, &self, NULL, 0, sb, m, lines, &n_obst);
            if (r < 0)
                return r;
            nl = (size_t)r;
        }
        size_t cnt =
            gc_orca_grid_nearest(g, self.pos, i, k, p->neighbour_dist, ids, d2);
        for (size_t j = 0; j < cnt; j++) {
            uint32_t o = ids[j];
            gc_orca_agent other = {
                {s->px[o], s->py[o]},
                {s->vx[o], s->vy[o]},
                s->radius ? s->radius[o] : p->radius,
            };
            lines[nl++] = agent_line(&self, &other, inv_tau, inv_dt);
        }
        gc_vec2 v;
        int r = gc_orca_solve(lines, nl, n_obst, pref, vmax, &v, NULL);
        if (r < 0)
            return r;
        out_vx[i] = v.x;
        out_vy[i] = v.y;
    }
    return 0;
}
