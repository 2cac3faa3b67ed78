/*
 * orca.c: ORCA local avoidance: the half-planes and the linear programs.
 *
 * Each agent turns every neighbour and every nearby wall into a half-plane
 * of permitted velocities (an "ORCA line") and takes the permitted velocity
 * nearest its preferred one.  A neighbour's line comes from the velocity
 * obstacle (the relative velocities that collide within the time horizon,
 * a cone cut off by a disc): u is the smallest change of relative velocity
 * that leaves it, and the agent takes half of u (the neighbour, running
 * the same rule, takes the other half).  A wall's line is the tangent to
 * its velocity obstacle at the point nearest the current velocity, with
 * full responsibility.  The math follows the paper and RVO2's published
 * construction; the wall case is our own: a free-standing two-sided
 * segment, whose obstacle is a cone over a capsule, and the tangent is
 * found by taking the nearest of the five pieces of its boundary (two
 * legs, two end arcs, the facing side).  The neighbour index and the tick
 * (gc_orca_step) are in orca-index.c; the neighbour's line (agent_line)
 * and the vector helpers, which both files use, are inline in orca_int.h.
 *
 * Rules kept:
 *   - No randomness and no order-dependent state: constraints are processed
 *     in a fixed order (segments nearest first, ties by index; neighbours
 *     nearest first, ties by index, as the index returns them), so one
 *     agent's answer is a pure function of the previous tick.
 *   - No allocation per agent: lines and scratch live on the stack, bounded
 *     by GC_ORCA_MAX_LINES.
 *   - Float throughout (see orca.h for why it is precise enough); EPS is
 *     the tolerance of parallel-line and constraint tests.
 */
#include "config.h"

#include <gridcrowd/orca.h>

#include "orca_int.h"

#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
/* The four-at-a-time neighbours' half-planes use SSE2 (every x86-64).
 * GC_ORCA_SCALAR builds the scalar code alone: tests/test_orca_simd.c
 * builds this file so and holds the two to the same bits. */
#if defined(__SSE2__) && !defined(GC_ORCA_SCALAR)
#define ORCA_SSE2 1
#include <xmmintrin.h>
#endif
/* Eight at a time with AVX, where the CPU has it (chosen at run time:
 * the build does not assume it).  GCC and clang on x86-64 only. */
#if defined(ORCA_SSE2) && defined(__x86_64__) && defined(__GNUC__)
#define ORCA_AVX 1
#include <immintrin.h>
#endif

#define EPS 1e-5f

#if !defined(GC_ORCA_SCALAR)
bool gc_orca_lanes_four = false;
#endif

void
gc_orca_params_default(gc_orca_params *p)
{
    p->time_horizon = 10.0f;
    p->time_horizon_obst = 10.0f;
    p->dt = 0.25f;
    p->neighbour_dist = 15.0f;
    p->max_neighbours = 10;
    p->radius = 1.5f;
    p->max_speed = 2.0f;
}

/* ---- constraints -------------------------------------------------------- */

/* The line with outward normal m through q: permitted side is along m. */
static inline gc_orca_line
line_normal(gc_vec2 q, gc_vec2 m)
{
    gc_orca_line l = {q, v2(m.y, -m.x)};
    return l;
}

/* Unit tangent directions from the origin to the disc (e, r), |e| > r:
 * ccw is the counter-clockwise one.  *leg is the distance to the tangent
 * point. */
static void
tangents(gc_vec2 e, float r, gc_vec2 *ccw, gc_vec2 *cw, float *leg)
{
    float e2 = dot(e, e);
    float l = sqrtf(gc_maxf(e2 - r * r, 0.0f));
    *ccw = scale(1.0f / e2, v2(e.x * l - e.y * r, e.x * r + e.y * l));
    *cw = scale(1.0f / e2, v2(e.x * l + e.y * r, -e.x * r + e.y * l));
    *leg = l;
}

struct cand {
    float dist;
    gc_orca_line line;
};

static inline void
cand_offer(struct cand *best, float dist, gc_orca_line l)
{
    if (dist < best->dist) {
        best->dist = dist;
        best->line = l;
    }
}

/*
 * The line for a wall segment (a, b) relative to the agent, radius r,
 * current velocity v.  Returns false when the segment gives no line (a
 * degenerate touch).  The velocity obstacle is the union of s * K for s >=
 * 1 / tau, K the capsule (segment grown by r): a convex cone truncated by
 * the side of K / tau that faces the origin.  The line is its tangent at
 * the boundary point nearest v (for v inside as well as outside: the
 * obstacle is convex, so either way the tangent half-plane excludes it).
 */
static bool
segment_line(gc_vec2 a, gc_vec2 b, float r, float inv_tau, gc_vec2 v,
             gc_orca_line *out)
{
    gc_vec2 ab = sub(b, a);
    float l2 = dot(ab, ab);
    float s = l2 > 0 ? gc_minf(gc_maxf(-dot(a, ab) / l2, 0.0f), 1.0f) : 0.0f;
    gc_vec2 c = add(a, scale(s, ab));
    float c2 = dot(c, c);

    if (c2 <= r * r) {
        /* Touching already: forbid moving closer, allow sliding along. */
        gc_vec2 m;
        if (c2 > 0)
            m = scale(-1.0f / sqrtf(c2), c);
        else if (l2 > 0) /* centre on the segment: leave to its right */
            m = scale(1.0f / sqrtf(l2), v2(ab.y, -ab.x));
        else
            return false;
        *out = line_normal(v2(0, 0), m);
        return true;
    }

    /* The legs: the most counter-clockwise and most clockwise tangents
     * over both end discs (the capsule subtends less than a half-turn from
     * outside it, so det() orders them). */
    gc_vec2 accw, acw, bccw, bcw;
    float aleg, bleg;
    tangents(a, r, &accw, &acw, &aleg);
    tangents(b, r, &bccw, &bcw, &bleg);
    gc_vec2 L = accw, Rt = acw;
    float Lstart = aleg * inv_tau, Rstart = aleg * inv_tau;
    if (det(accw, bccw) > 0) {
        L = bccw;
        Lstart = bleg * inv_tau;
    }
    if (det(acw, bcw) < 0) {
        Rt = bcw;
        Rstart = bleg * inv_tau;
    }

    struct cand best = {INFINITY, {{0, 0}, {1, 0}}};
    gc_orca_line leftleg = {v2(0, 0), L};
    gc_orca_line rightleg = {v2(0, 0), scale(-1.0f, Rt)};
    float t = gc_maxf(dot(v, L), Lstart);
    gc_vec2 d = sub(v, scale(t, L));
    cand_offer(&best, dot(d, d), leftleg);
    t = gc_maxf(dot(v, Rt), Rstart);
    d = sub(v, scale(t, Rt));
    cand_offer(&best, dot(d, d), rightleg);

    /* The truncation: the side of the capsule K / tau facing the origin,
     * made of the two end arcs and one straight side.  A boundary point q
     * with outward normal m faces the origin when dot(m, q) <= 0. */
    gc_vec2 A = scale(inv_tau, a), B = scale(inv_tau, b), AB = sub(B, A);
    float rho = r * inv_tau;
    gc_vec2 va = sub(v, A), vb = sub(v, B);
    float la = sqrtf(dot(va, va)), lb = sqrtf(dot(vb, vb));
    if (la > 0) {
        gc_vec2 m = scale(1.0f / la, va);
        gc_vec2 q = add(A, scale(rho, m));
        if (dot(m, AB) <= 0 && dot(m, q) <= 0) {
            float e = la - rho;
            cand_offer(&best, e * e, line_normal(q, m));
        }
    }
    if (lb > 0) {
        gc_vec2 m = scale(1.0f / lb, vb);
        gc_vec2 q = add(B, scale(rho, m));
        if (dot(m, AB) >= 0 && dot(m, q) <= 0) {
            float e = lb - rho;
            cand_offer(&best, e * e, line_normal(q, m));
        }
    }
    float L2 = dot(AB, AB);
    if (L2 > 0) {
        gc_vec2 n = scale(1.0f / sqrtf(L2), v2(-AB.y, AB.x));
        if (dot(n, A) > 0) /* the normal on the origin's side */
            n = scale(-1.0f, n);
        float sv = dot(va, AB) / L2;
        if (sv >= 0 && sv <= 1 && dot(n, A) + rho <= 0) {
            gc_vec2 q = add(add(A, scale(sv, AB)), scale(rho, n));
            float e = dot(va, n) - rho;
            cand_offer(&best, e * e, line_normal(q, n));
        }
    }
    *out = best.line;
    return true;
}

/*
 * Neighbours' lines, four at a time where SSE2 is there (every x86-64),
 * eight at a time where the CPU also has AVX (asked at run time): one
 * body for both widths, orca_lanes.h, whose lines are agent_line()'s to
 * the bit (tests/test_orca_simd.c holds both widths to the scalar build,
 * tests/test_orca.c the lines themselves, and the crowd's runs end on
 * the same tick with the same positions).  A tail of one or two
 * neighbours is done by agent_line(), of three padded to four: ten
 * neighbours as eight and a padded four cost circle 1,000's step 3.7%
 * more than as eight and two agent_line()s.
 */
#if defined(ORCA_SSE2)
/* Four agents' pos.x, pos.y, vel.x, vel.y as four vectors; four lines
 * from their four coordinates' vectors. */
#define LOAD4(o, A, B, C, D)                                                   \
    do {                                                                       \
        A = _mm_loadu_ps(&(o)[0].pos.x);                                       \
        B = _mm_loadu_ps(&(o)[1].pos.x);                                       \
        C = _mm_loadu_ps(&(o)[2].pos.x);                                       \
        D = _mm_loadu_ps(&(o)[3].pos.x);                                       \
        _MM_TRANSPOSE4_PS(A, B, C, D);                                         \
    } while (0)
#define STORE4(out, A, B, C, D)                                                \
    do {                                                                       \
        __m128 a_ = (A), b_ = (B), c_ = (C), d_ = (D);                         \
        _MM_TRANSPOSE4_PS(a_, b_, c_, d_);                                     \
        _mm_storeu_ps(&(out)[0].point.x, a_);                                  \
        _mm_storeu_ps(&(out)[1].point.x, b_);                                  \
        _mm_storeu_ps(&(out)[2].point.x, c_);                                  \
        _mm_storeu_ps(&(out)[3].point.x, d_);                                  \
    } while (0)

#define LANES_FN agent_lines4
#define LANES_ATTR
#define LANES 4
#define V __m128
#define V_SET1 _mm_set1_ps
#define V_ZERO _mm_setzero_ps
#define V_ADD _mm_add_ps
#define V_SUB _mm_sub_ps
#define V_MUL _mm_mul_ps
#define V_DIV _mm_div_ps
#define V_SQRT _mm_sqrt_ps
#define V_AND _mm_and_ps
#define V_OR _mm_or_ps
#define V_ANDNOT _mm_andnot_ps
#define V_XOR _mm_xor_ps
#define V_GT _mm_cmpgt_ps
#define V_LT _mm_cmplt_ps
#define V_EQ _mm_cmpeq_ps
#define V_MOVEMASK _mm_movemask_ps
#define V_LOAD(o, px, py, vx, vy) LOAD4(o, px, py, vx, vy)
#define V_RADII(o) _mm_setr_ps(o[0].radius, o[1].radius, o[2].radius, o[3].radius)
#define V_STORE(out, qx, qy, dx, dy) STORE4(out, qx, qy, dx, dy)
#include "orca_lanes.h"
#endif

#if defined(ORCA_AVX)
static inline __attribute__((target("avx"))) __m256
join(__m128 lo, __m128 hi)
{
    return _mm256_insertf128_ps(_mm256_castps128_ps256(lo), hi, 1);
}

#define LANES_FN agent_lines8
#define LANES_ATTR __attribute__((target("avx")))
#define LANES 8
#define V __m256
#define V_SET1 _mm256_set1_ps
#define V_ZERO _mm256_setzero_ps
#define V_ADD _mm256_add_ps
#define V_SUB _mm256_sub_ps
#define V_MUL _mm256_mul_ps
#define V_DIV _mm256_div_ps
#define V_SQRT _mm256_sqrt_ps
#define V_AND _mm256_and_ps
#define V_OR _mm256_or_ps
#define V_ANDNOT _mm256_andnot_ps
#define V_XOR _mm256_xor_ps
/* SSE's cmpgt, cmplt and cmpeq: ordered (false on a NaN), as here. */
#define V_GT(a, b) _mm256_cmp_ps(a, b, _CMP_GT_OS)
#define V_LT(a, b) _mm256_cmp_ps(a, b, _CMP_LT_OS)
#define V_EQ(a, b) _mm256_cmp_ps(a, b, _CMP_EQ_OQ)
#define V_MOVEMASK _mm256_movemask_ps
#define V_LOAD(o, px, py, vx, vy)                                              \
    do {                                                                       \
        __m128 x0, y0, u0, w0, x1, y1, u1, w1;                                 \
        LOAD4(o, x0, y0, u0, w0);                                              \
        LOAD4((o) + 4, x1, y1, u1, w1);                                        \
        px = join(x0, x1);                                                     \
        py = join(y0, y1);                                                     \
        vx = join(u0, u1);                                                     \
        vy = join(w0, w1);                                                     \
    } while (0)
#define V_RADII(o)                                                             \
    _mm256_setr_ps(o[0].radius, o[1].radius, o[2].radius, o[3].radius,         \
                   o[4].radius, o[5].radius, o[6].radius, o[7].radius)
#define V_STORE(out, qx, qy, dx, dy)                                           \
    do {                                                                       \
        STORE4(out, _mm256_castps256_ps128(qx), _mm256_castps256_ps128(qy),    \
               _mm256_castps256_ps128(dx), _mm256_castps256_ps128(dy));        \
        STORE4((out) + 4, _mm256_extractf128_ps(qx, 1),                        \
               _mm256_extractf128_ps(qy, 1), _mm256_extractf128_ps(dx, 1),     \
               _mm256_extractf128_ps(dy, 1));                                  \
    } while (0)
#include "orca_lanes.h"

/* Whether to take eight at a time: the CPU has AVX, and no test asked
 * for four (gc_orca_lanes_four, orca_int.h). */
static inline bool
lanes_eight(void)
{
    return !gc_orca_lanes_four && __builtin_cpu_supports("avx");
}
#endif

static void
agent_lines(const gc_orca_agent *a, const gc_orca_agent *o, size_t n,
            float inv_tau, float inv_dt, gc_orca_line *out)
{
    size_t i = 0;
#if defined(ORCA_AVX)
    if (n >= 8 && lanes_eight())
        for (; i + 8 <= n; i += 8)
            agent_lines8(a, o + i, inv_tau, inv_dt, out + i);
#endif
#if defined(ORCA_SSE2)
    for (; i + 4 <= n; i += 4)
        agent_lines4(a, o + i, inv_tau, inv_dt, out + i);
    size_t rest = n - i;
    if (rest == 3) { /* padded with the last one */
        gc_orca_agent pad[4];
        gc_orca_line tmp[4];
        for (size_t j = 0; j < 4; j++)
            pad[j] = o[i + (j < rest ? j : rest - 1)];
        agent_lines4(a, pad, inv_tau, inv_dt, tmp);
        for (size_t j = 0; j < rest; j++) /* (a call for 3 lines) */
            out[i + j] = tmp[j];
        return;
    }
#endif
    for (; i < n; i++)
        out[i] = agent_line(a, &o[i], inv_tau, inv_dt);
}

/* The squared distance from the origin to segment (a, b) (relative to
 * the agent). */
static inline float
segment_dist2(gc_vec2 a, gc_vec2 ab)
{
    float l2 = dot(ab, ab);
    float s = l2 > 0 ? gc_minf(gc_maxf(-dot(a, ab) / l2, 0.0f), 1.0f) : 0;
    gc_vec2 c = add(a, scale(s, ab));
    return dot(c, c);
}

/*
 * The order of the segments seg[0 .. m) round `pos`, nearest first, ties
 * by index, into order[0 .. m).  Each segment's place is its rank: how
 * many come before it (key: the distance's bits, which order as the
 * distances do, being non-negative, then the index; distinct, so the
 * ranks are a permutation whatever the input).  Without a branch per
 * comparison: the insertion sort this replaced mispredicted on every
 * other one, a third of the wall lines' time on a town.  The distances
 * are computed four at a time where SSE2 is there, with segment_dist2's
 * operations lane by lane.  Fewer than four keep the insertion sort (the
 * same order): the keys cost a corridor's two or three walls 2.5% of the
 * avoidance step.
 */
static void
wall_order(gc_vec2 pos, const gc_orca_segment *seg, size_t m, uint8_t *order)
{
    float dist[GC_ORCA_MAX_SEGMENTS];
    size_t i = 0;
    if (m < 4) {
        /* A few: an insertion sort, whose few comparisons cost less
         * than the keys (a corridor's walls, two or three, in the
         * same order tick after tick). */
        for (; i < m; i++) {
            float d = segment_dist2(sub(seg[i].a, pos),
                                    sub(seg[i].b, seg[i].a));
            size_t j = i;
            while (j > 0 && dist[j - 1] > d) {
                dist[j] = dist[j - 1];
                order[j] = order[j - 1];
                j--;
            }
            dist[j] = d;
            order[j] = (uint8_t)i;
        }
        return;
    }
#if defined(ORCA_SSE2)
    const __m128 zero = _mm_setzero_ps(), one = _mm_set1_ps(1.0f);
    const __m128 px = _mm_set1_ps(pos.x), py = _mm_set1_ps(pos.y);
    for (; i + 4 <= m; i += 4) {
        /* Four segments, a row each, turned into four columns. */
        __m128 ax = _mm_loadu_ps(&seg[i].a.x),
               ay = _mm_loadu_ps(&seg[i + 1].a.x),
               bx = _mm_loadu_ps(&seg[i + 2].a.x),
               by = _mm_loadu_ps(&seg[i + 3].a.x);
        _MM_TRANSPOSE4_PS(ax, ay, bx, by);
        __m128 abx = _mm_sub_ps(bx, ax), aby = _mm_sub_ps(by, ay);
        ax = _mm_sub_ps(ax, px);
        ay = _mm_sub_ps(ay, py);
        __m128 l2 = _mm_add_ps(_mm_mul_ps(abx, abx), _mm_mul_ps(aby, aby));
        __m128 d = _mm_add_ps(_mm_mul_ps(ax, abx), _mm_mul_ps(ay, aby));
        __m128 q = _mm_div_ps(_mm_xor_ps(d, _mm_set1_ps(-0.0f)), l2);
        q = _mm_min_ps(_mm_max_ps(q, zero), one);
        q = _mm_and_ps(_mm_cmpgt_ps(l2, zero), q);
        __m128 cx = _mm_add_ps(ax, _mm_mul_ps(q, abx)),
               cy = _mm_add_ps(ay, _mm_mul_ps(q, aby));
        _mm_storeu_ps(dist + i,
                      _mm_add_ps(_mm_mul_ps(cx, cx), _mm_mul_ps(cy, cy)));
    }
#endif
    for (; i < m; i++)
        dist[i] = segment_dist2(sub(seg[i].a, pos), sub(seg[i].b, seg[i].a));
    uint64_t key[GC_ORCA_MAX_SEGMENTS];
    for (i = 0; i < m; i++) {
        uint32_t bits;
        memcpy(&bits, &dist[i], sizeof bits);
        key[i] = (uint64_t)bits << 32 | i;
    }
    for (i = 0; i < m; i++) {
        size_t r = 0;
        for (size_t j = 0; j < m; j++)
            r += key[j] < key[i];
        order[r] = (uint8_t)i;
    }
}

int
gc_orca_lines(const gc_orca_params *p, const gc_orca_agent *self,
              const gc_orca_agent *nb, size_t n, const gc_orca_segment *seg,
              size_t m, gc_orca_line *lines, size_t *n_obst)
{
    if (!params_valid(p) || !self || !lines || !n_obst ||
        n > GC_ORCA_MAX_NEIGHBOURS || m > GC_ORCA_MAX_SEGMENTS || (n && !nb) ||
        (m && !seg))
        return GC_EINVAL;

    size_t k = 0;
    if (m > 0) {
        /* Nearest first, ties by index, so that the near wall's line can
         * cover the ones behind it (wall_order). */
        uint8_t order[GC_ORCA_MAX_SEGMENTS];
        wall_order(self->pos, seg, m, order);
        float inv = 1.0f / p->time_horizon_obst;
        float rho = self->radius * inv;
        for (size_t i = 0; i < m; i++) {
            const gc_orca_segment *sg = &seg[order[i]];
            gc_vec2 a = sub(sg->a, self->pos), b = sub(sg->b, self->pos);
            /* Covered: the whole scaled capsule is on the forbidden side
             * of an earlier wall line, whose permitted side holds the
             * origin, so its whole velocity obstacle is excluded too. */
            gc_vec2 A = scale(inv, a), B = scale(inv, b);
            bool covered = false;
            for (size_t j = 0; j < k && !covered; j++)
                covered = slack(&lines[j], A) <= -rho + EPS &&
                          slack(&lines[j], B) <= -rho + EPS;
            if (covered)
                continue;
            if (segment_line(a, b, self->radius, inv, self->vel, &lines[k]))
                k++;
        }
    }
    *n_obst = k;
    float inv_tau = 1.0f / p->time_horizon, inv_dt = 1.0f / p->dt;
    agent_lines(self, nb, n, inv_tau, inv_dt, lines + k);
    return (int)(k + n);
}

/* ---- the linear programs ------------------------------------------------ */

/*
 * Best point on line i within the speed disc and left of lines [0, i).
 * With dir_opt, `opt` is a unit direction and the point furthest along it
 * is wanted; otherwise the point nearest `opt`.  False when empty.
 */
static bool
lp1(const gc_orca_line *lines, size_t i, float radius, gc_vec2 opt,
    bool dir_opt, gc_vec2 *res)
{
    const gc_orca_line *li = &lines[i];
    float pd = dot(li->point, li->dir);
    float disc = pd * pd + radius * radius - dot(li->point, li->point);
    if (disc < 0)
        return false; /* the line misses the speed disc */
    float sq = sqrtf(disc);
    float tl = -pd - sq, tr = -pd + sq;
    for (size_t j = 0; j < i; j++) {
        const gc_orca_line *lj = &lines[j];
        float den = det(li->dir, lj->dir);
        float num = det(lj->dir, sub(li->point, lj->point));
        if (fabsf(den) <= EPS) {
            if (num < 0)
                return false; /* parallel, and line i is outside j */
            continue;
        }
        float t = num / den;
#if defined(ORCA_SSE2)
        /* Without a branch on the side (den's sign came half and half,
         * and mispredicted so; GCC keeps a branch for the plain C): the
         * bound t does not tighten takes an infinity, which leaves it
         * as it was.  minss and maxss are gc_minf and gc_maxf (a < b ?
         * a : b, a > b ? a : b), so the bounds are the scalar code's. */
        __m128 up = _mm_cmpge_ss(_mm_set_ss(den), _mm_setzero_ps());
        __m128 vt = _mm_set_ss(t);
        __m128 hi = _mm_or_ps(_mm_and_ps(up, vt),
                              _mm_andnot_ps(up, _mm_set_ss(INFINITY)));
        __m128 lo = _mm_or_ps(_mm_and_ps(up, _mm_set_ss(-INFINITY)),
                              _mm_andnot_ps(up, vt));
        tr = _mm_cvtss_f32(_mm_min_ss(_mm_set_ss(tr), hi));
        tl = _mm_cvtss_f32(_mm_max_ss(_mm_set_ss(tl), lo));
#else
        if (den >= 0)
            tr = gc_minf(tr, t);
        else
            tl = gc_maxf(tl, t);
#endif
        if (tl > tr)
            return false;
    }
    float t;
    if (dir_opt)
        t = dot(opt, li->dir) > 0 ? tr : tl;
    else
        t = gc_minf(gc_maxf(dot(li->dir, sub(opt, li->point)), tl), tr);
    *res = add(li->point, scale(t, li->dir));
    return true;
}

/* Returns n when every line is satisfied, else the first line that could
 * not be (res then holds the best point before it). */
static size_t
lp2(const gc_orca_line *lines, size_t n, float radius, gc_vec2 opt,
    bool dir_opt, gc_vec2 *res)
{
    if (dir_opt)
        *res = scale(radius, opt);
    else if (dot(opt, opt) > radius * radius)
        *res = scale(radius / sqrtf(dot(opt, opt)), opt);
    else
        *res = opt;
    for (size_t i = 0; i < n; i++) {
        if (slack(&lines[i], *res) < 0) {
            gc_vec2 keep = *res;
            if (!lp1(lines, i, radius, opt, dir_opt, res)) {
                *res = keep;
                return i;
            }
        }
    }
    return n;
}

/*
 * Infeasible: keep lines [0, n_obst) hard and minimise the largest
 * violation of the rest.  For each line i that the current answer violates
 * more than the best so far, solve in the plane of "equal violation" with
 * the lines before it: each pair (i, j) gives the bisector on which both
 * are violated equally, and the answer moves as far as possible away from
 * line i's forbidden side.
 *
 * The bisector is the set det(dj - di, v) = det(dj, pj) - det(di, pi),
 * and its point is the one nearest the origin, computed from that
 * equation.  (RVO2 takes the two lines' intersection, or their midpoint
 * when parallel.  For lines a hair from antiparallel, as between two
 * bodies overlapping an agent from opposite sides, the intersection lies
 * thousands of units out, and lp1's test of the line against the speed
 * disc, pd * pd + r * r - p * p, then cancels to noise of a few units
 * squared in float: the answer came out at 4 times the top speed, and a
 * body ran into its neighbour, 13% of 2r deep, in circle 10,000.)
 */
static void
lp3(const gc_orca_line *lines, size_t n, size_t n_obst, size_t begin,
    float radius, gc_vec2 *res, gc_orca_line *proj)
{
    float dist = 0;
    for (size_t i = begin; i < n; i++) {
        if (-slack(&lines[i], *res) <= dist)
            continue;
        size_t k = 0;
        for (; k < n_obst; k++) /* the walls' (often none: no call) */
            proj[k] = lines[k];
        for (size_t j = n_obst; j < i; j++) {
            float dt = det(lines[i].dir, lines[j].dir);
            if (fabsf(dt) <= EPS && dot(lines[i].dir, lines[j].dir) > 0)
                continue; /* same direction: j adds nothing */
            gc_vec2 d = sub(lines[j].dir, lines[i].dir);
            float d2 = dot(d, d);
            float c = det(lines[j].dir, lines[j].point) -
                      det(lines[i].dir, lines[i].point);
            /* det(d, v) = c: the normal (-d.y, d.x), at c / |d| from 0. */
            gc_orca_line l = {scale(c / d2, v2(-d.y, d.x)),
                              scale(1.0f / sqrtf(d2), d)};
            proj[k++] = l;
        }
        gc_vec2 keep = *res;
        gc_vec2 away = v2(-lines[i].dir.y, lines[i].dir.x);
        if (lp2(proj, k, radius, away, true, res) < k)
            *res = keep; /* only by rounding: the program is feasible */
        dist = -slack(&lines[i], *res);
    }
}

/* The report on the answer res to lines [0, n) (when rep is not NULL):
 * lp2 failed at line `fail` (n when it did not), and `hard` lines were
 * kept hard. */
static void
report(const gc_orca_line *lines, size_t n, size_t n_obst, size_t hard,
       size_t fail, gc_vec2 res, gc_orca_report *rep)
{
    if (!rep)
        return;
    float worst = 0;
    for (size_t i = 0; i < n; i++)
        worst = gc_maxf(worst, -slack(&lines[i], res));
    rep->feasible = fail == n;
    rep->n_lines = (int)n;
    rep->n_obstacle_lines = (int)n_obst;
    rep->n_hard_lines = (int)hard;
    rep->first_failed = (int)fail;
    rep->max_violation = worst;
}

static inline bool
overlapping(const gc_orca_agent *a, const gc_orca_agent *o)
{
    gc_vec2 d = sub(o->pos, a->pos);
    float R = a->radius + o->radius;
    return !(dot(d, d) > R * R); /* agent_line's test */
}

/*
 * The 3-D program of an agent's lines (walls [0, n_obst), then one per
 * neighbour nb[0 .. n)) after lp2 failed at line *fail leaving *res.
 * When some of the neighbours' bodies already overlap the agent's, the
 * program is taken again with their lines after the walls' (each part in
 * its order), and when lp2 then fails past them, the walls' and theirs
 * can be satisfied together and the 3-D program holds them all hard: it
 * otherwise trades the overlaps' one-tick lines against the long-horizon
 * lines of bodies still apart, and in a dense stream the urgent ones lose
 * (circle 10,000's crush went 24% of 2r deep with 1.5% of N overlapping a
 * tick; 5.5% and 0.013% with the overlaps hard).  Only then: a feasible
 * program, or one without overlaps, costs what it did.  Sets *fail to the
 * line lp2 failed on in the order taken (all, rarely, when the second
 * lp2 found the program feasible after all) and returns the lines held
 * hard.
 */
static size_t
infeasible(const gc_orca_line *lines, size_t n_obst, const gc_orca_agent *self,
           const gc_orca_agent *nb, size_t n, gc_vec2 pref, float max_speed,
           size_t *fail, gc_vec2 *res)
{
    gc_orca_line ord[GC_ORCA_MAX_LINES], proj[GC_ORCA_MAX_LINES];
    bool ov[GC_ORCA_MAX_NEIGHBOURS];
    size_t all = n_obst + n, hard = n_obst;
    for (size_t i = 0; i < n; i++) {
        ov[i] = overlapping(self, &nb[i]);
        if (ov[i])
            ord[hard++] = lines[n_obst + i];
    }
    if (hard == n_obst) {
        lp3(lines, all, n_obst, *fail, max_speed, res, proj);
        return n_obst;
    }
    for (size_t i = 0; i < n_obst; i++)
        ord[i] = lines[i];
    for (size_t i = 0, k = hard; i < n; i++)
        if (!ov[i])
            ord[k++] = lines[n_obst + i];
    *fail = lp2(ord, all, max_speed, pref, false, res);
    if (*fail < hard)
        hard = n_obst; /* the overlaps and walls cannot all be satisfied */
    if (*fail < all)
        lp3(ord, all, hard, *fail, max_speed, res, proj);
    return hard;
}

/* The answer of gc_orca_velocity[_adaptive] after lp2 failed at line
 * `fail` of lines[0, all) (all when it did not), and its report.
 * Returns whether the program was feasible (the report's `feasible`). */
static bool
finish(const gc_orca_line *lines, size_t all, size_t n_obst,
       const gc_orca_agent *self, const gc_orca_agent *nb, size_t n,
       gc_vec2 pref, float max_speed, size_t fail, gc_vec2 *res,
       gc_orca_report *rep)
{
    size_t hard = n_obst;
    if (fail < all)
        hard =
            infeasible(lines, n_obst, self, nb, n, pref, max_speed, &fail, res);
    report(lines, all, n_obst, hard, fail, *res, rep);
    return fail == all;
}

int
gc_orca_solve(const gc_orca_line *lines, size_t n, size_t n_obst, gc_vec2 pref,
              float max_speed, gc_vec2 *out, gc_orca_report *rep)
{
    if (n > GC_ORCA_MAX_LINES || n_obst > n || (n && !lines) || !out ||
        !(max_speed >= 0) || !isfinite(max_speed))
        return GC_EINVAL;
    gc_vec2 res;
    size_t fail = lp2(lines, n, max_speed, pref, false, &res);
    if (fail < n) {
        gc_orca_line proj[GC_ORCA_MAX_LINES];
        lp3(lines, n, n_obst, fail, max_speed, &res, proj);
    }
    report(lines, n, n_obst, n_obst, fail, res, rep);
    *out = res;
    return 0;
}

int
gc_orca_velocity(const gc_orca_params *p, const gc_orca_agent *self,
                 gc_vec2 pref, float max_speed, const gc_orca_agent *nb,
                 size_t n, const gc_orca_segment *seg, size_t m, gc_vec2 *out,
                 gc_orca_report *rep)
{
    return gc_orca_velocity_fe(p, self, pref, max_speed, nb, n, seg, m, out,
                               rep, NULL);
}

int
gc_orca_velocity_fe(const gc_orca_params *p, const gc_orca_agent *self,
                    gc_vec2 pref, float max_speed, const gc_orca_agent *nb,
                    size_t n, const gc_orca_segment *seg, size_t m,
                    gc_vec2 *out, gc_orca_report *rep, bool *feasible)
{
    gc_orca_line lines[GC_ORCA_MAX_LINES];
    size_t n_obst;
    int k = gc_orca_lines(p, self, nb, n, seg, m, lines, &n_obst);
    if (k < 0)
        return k;
    if (!(max_speed >= 0) || !isfinite(max_speed) || !out)
        return GC_EINVAL;
    size_t all = (size_t)k;
    gc_vec2 res;
    size_t fail = lp2(lines, all, max_speed, pref, false, &res);
    bool ok =
        finish(lines, all, n_obst, self, nb, n, pref, max_speed, fail, &res, rep);
    if (feasible)
        *feasible = ok;
    *out = res;
    return 0;
}

/* lp2 over lines [0, n_obst + n) with the neighbours' lines remade at
 * horizon tau (the walls' lines [0, n_obst) as they are). */
static size_t
lp2_at(const gc_orca_params *p, const gc_orca_agent *self, gc_vec2 pref,
       float max_speed, const gc_orca_agent *nb, size_t n, gc_orca_line *lines,
       size_t n_obst, float tau, gc_vec2 *res)
{
    agent_lines(self, nb, n, 1.0f / tau, 1.0f / p->dt, lines + n_obst);
    return lp2(lines, n_obst + n, max_speed, pref, false, res);
}

/*
 * Only the last program that fails needs the 3-D program (the costly
 * part of an infeasible one): the others are tested by lp2 alone, whose
 * answer, when it succeeds, is gc_orca_solve's.  A search from a hint
 * walks the ladder from it, one step at a time (a crowd's agent keeps
 * last tick's step, and its edge moves little from tick to tick); with
 * none, the shortest horizon first, then bisection.
 */
int
gc_orca_velocity_adaptive(const gc_orca_params *p, const gc_orca_agent *self,
                          gc_vec2 pref, float max_speed,
                          const gc_orca_agent *nb, size_t n,
                          const gc_orca_segment *seg, size_t m, gc_vec2 *out,
                          gc_orca_report *rep, int *step)
{
    gc_orca_line lines[GC_ORCA_MAX_LINES];
    size_t n_obst;
    int k = gc_orca_lines(p, self, nb, n, seg, m, lines, &n_obst);
    if (k < 0)
        return k;
    if (!(max_speed >= 0) || !isfinite(max_speed) || !out)
        return GC_EINVAL;
    size_t all = (size_t)k;
    gc_vec2 res;
    size_t fail = lp2(lines, all, max_speed, pref, false, &res);
    /* The horizons, only when they are needed (most programs are
     * feasible as asked): each GC_ORCA_SHORTEN of the last, none below
     * dt. */
    float tau[GC_ORCA_SHORTEN_STEPS + 1] = {p->time_horizon};
    int last = 0;
    while (fail < all && n > 0 && last < GC_ORCA_SHORTEN_STEPS &&
           tau[last] * GC_ORCA_SHORTEN >= p->dt) {
        tau[last + 1] = tau[last] * GC_ORCA_SHORTEN;
        last++;
    }
    int hint = step && *step > 0 ? (*step < last ? *step : last) : 0;
    int at = 0, made = 0; /* made: the horizon the lines are at */
    if (fail < all && last > 0) {
        at = made = hint > 0 ? hint : last;
        fail = lp2_at(p, self, pref, max_speed, nb, n, lines, n_obst, tau[at],
                      &res);
    }
    if (fail < all && at > 0 && at < last) {
        /* Infeasible at the hint: down the ladder to the first feasible,
         * or the shortest's 3-D program. */
        while (fail < all && at < last) {
            at = made = at + 1;
            fail = lp2_at(p, self, pref, max_speed, nb, n, lines, n_obst,
                          tau[at], &res);
        }
    } else if (fail == all && at > 1) {
        /* Feasible at tau[hi] (res is its answer), infeasible at tau[lo]:
         * from a hint, up the ladder while the next is feasible; else
         * bisection. */
        int lo = hint > 0 ? at - 1 : 0, hi = at;
        gc_vec2 keep = res;
        while (hi - lo > 1 || (hint > 0 && lo > 0)) {
            int mid = hint > 0 ? lo : lo + (hi - lo) / 2;
            gc_vec2 r;
            made = mid;
            if (lp2_at(p, self, pref, max_speed, nb, n, lines, n_obst, tau[mid],
                       &r) == all) {
                hi = mid;
                keep = r;
                if (hint > 0)
                    lo = mid - 1;
            } else if (hint > 0) {
                break;
            } else {
                lo = mid;
            }
        }
        res = keep;
        if (made != hi) /* the answer's own lines, for the report */
            agent_lines(self, nb, n, 1.0f / tau[hi], 1.0f / p->dt,
                        lines + n_obst);
        at = hi;
    }
    finish(lines, all, n_obst, self, nb, n, pref, max_speed, fail, &res, rep);
    *out = res;
    if (step)
        *step = at;
    return 0;
}
