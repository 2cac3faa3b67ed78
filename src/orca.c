/*
 * orca.c: ORCA local avoidance: the half-planes.
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
 * legs, two end arcs, the facing side).  The linear programs that take
 * the lines are in orca-solve.c; the neighbour index and the tick
 * (gc_orca_step) in orca-index.c; the neighbour's line (agent_line) and
 * the vector helpers, which all three use, are inline in orca_int.h.
 *
 * Rules kept:
 *   - No randomness and no order-dependent state: constraints are processed
 *     in a fixed order (segments nearest first, ties by index; neighbours
 *     nearest first, ties by index, as the index returns them), so one
 *     agent's answer is a pure function of the previous tick.
 *   - No allocation per agent: lines and scratch live on the stack, bounded
 *     by GC_ORCA_MAX_LINES.
 *   - Float throughout (see orca.h for why it is precise enough);
 *     GC_ORCA_EPS is the tolerance of parallel-line and constraint tests.
 */
#include "config.h"

#include <gridcrowd/orca.h>

#include "orca_int.h"
#include "orca_simd.h"

#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#if !defined(GC_ORCA_SCALAR)
unsigned gc_orca_lanes_widest = 0;
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
 * more than as eight and two agent_line()s (at the twenty-ninth stop
 * 3.9% with the padding copied, 2.4% with it read in place).  Five to
 * seven are padded to eight where the CPU has AVX: the wanderers of the
 * 100,000-agent open ground have as many neighbours often, and their
 * four lanes and one to three agent_line()s took a twelfth of the CPU
 * (1.3% off the avoidance step padded).  A padded call reads the last
 * neighbour again in its lanes past the tail (orca_lanes.h), and its
 * lines go through a buffer.
 */
#if defined(ORCA_SSE2)
/* Four agents' pos.x, pos.y, vel.x, vel.y as four vectors; four lines
 * from their four coordinates' vectors. */
#define LOAD4(o, A, B, C, D)                                                   \
    GC_LOAD4(&(o)[LANE_(0)].pos.x, &(o)[LANE_(1)].pos.x, &(o)[LANE_(2)].pos.x, \
             &(o)[LANE_(3)].pos.x, A, B, C, D)
#define STORE4(out, A, B, C, D)                                                \
    GC_STORE4(&(out)[0].point.x, &(out)[1].point.x, &(out)[2].point.x,         \
              &(out)[3].point.x, A, B, C, D)

#define LANES 4
#include "orca_width.h"
#define LANES_FN agent_lines4
#define LANES_CORE agent_core4
#define PAIRS_FN agent_pairs4
#define V_LOAD(o, px, py, vx, vy) LOAD4(o, px, py, vx, vy)
#define V_RADII(o)                                                             \
    _mm_setr_ps(o[LANE_(0)].radius, o[LANE_(1)].radius, o[LANE_(2)].radius,    \
                o[LANE_(3)].radius)
#define V_STORE(out, qx, qy, dx, dy) STORE4(out, qx, qy, dx, dy)
#include "orca_lanes.h"
#undef LANES
#endif

#if defined(ORCA_AVX)
#define LANES 8
#include "orca_width.h"
#define LANES_FN agent_lines8
#define LANES_CORE agent_core8
#define PAIRS_FN agent_pairs8
#define V_LOAD(o, px, py, vx, vy)                                              \
    GC_LOAD8(&(o)[LANE_(0)].pos.x, &(o)[LANE_(1)].pos.x, &(o)[LANE_(2)].pos.x, \
             &(o)[LANE_(3)].pos.x, &(o)[LANE_(4)].pos.x, &(o)[LANE_(5)].pos.x, \
             &(o)[LANE_(6)].pos.x, &(o)[LANE_(7)].pos.x, px, py, vx, vy)
#define V_RADII(o)                                                             \
    _mm256_setr_ps(o[LANE_(0)].radius, o[LANE_(1)].radius, o[LANE_(2)].radius, \
                   o[LANE_(3)].radius, o[LANE_(4)].radius, o[LANE_(5)].radius, \
                   o[LANE_(6)].radius, o[LANE_(7)].radius)
#define V_STORE(out, qx, qy, dx, dy)                                           \
    do {                                                                       \
        STORE4(out, _mm256_castps256_ps128(qx), _mm256_castps256_ps128(qy),    \
               _mm256_castps256_ps128(dx), _mm256_castps256_ps128(dy));        \
        STORE4((out) + 4, _mm256_extractf128_ps(qx, 1),                        \
               _mm256_extractf128_ps(qy, 1), _mm256_extractf128_ps(dx, 1),     \
               _mm256_extractf128_ps(dy, 1));                                  \
    } while (0)
#include "orca_lanes.h"
#undef LANES
#endif

#if defined(ORCA_SSE2)
typedef void (*lanes_fn)(const gc_orca_agent *a, const gc_orca_agent *o,
                         size_t used, float inv_tau, float inv_dt,
                         gc_orca_line *out);

/* The lines of o[0 .. rest), fewer than `width`, by one call of a
 * `width`-lane function, through a buffer. */
static void
tail(lanes_fn lanes, const gc_orca_agent *a, const gc_orca_agent *o,
     size_t rest, float inv_tau, float inv_dt, gc_orca_line *out)
{
    gc_orca_line tmp[8];
    lanes(a, o, rest, inv_tau, inv_dt, tmp);
    memcpy(out, tmp, rest * sizeof *tmp);
}
#endif

/* The lines of o[0 .. n) in lanes, but for a tail of one or two, which
 * is left to the caller: returns where it starts (n when none). */
static size_t
agent_lines_head(const gc_orca_agent *a, const gc_orca_agent *o, size_t n,
                 float inv_tau, float inv_dt, gc_orca_line *out)
{
    size_t i = 0;
#if defined(ORCA_AVX)
    if (n >= 5 && gc_orca_lanes_eight()) {
        for (; i + 8 <= n; i += 8)
            agent_lines8(a, o + i, 8, inv_tau, inv_dt, out + i);
        if (n - i >= 5) { /* five to seven: one call */
            tail(agent_lines8, a, o + i, n - i, inv_tau, inv_dt, out + i);
            return n;
        }
    }
#endif
#if defined(ORCA_SSE2)
    for (; i + 4 <= n; i += 4)
        agent_lines4(a, o + i, 4, inv_tau, inv_dt, out + i);
    if (n - i == 3) { /* three: one call */
        tail(agent_lines4, a, o + i, n - i, inv_tau, inv_dt, out + i);
        return n;
    }
#else
    (void)a, (void)o, (void)n, (void)inv_tau, (void)inv_dt, (void)out;
#endif
    return i;
}

void
gc_orca_agent_lines(const gc_orca_agent *a, const gc_orca_agent *o, size_t n,
                    float inv_tau, float inv_dt, gc_orca_line *out)
{
    for (size_t i = agent_lines_head(a, o, n, inv_tau, inv_dt, out); i < n; i++)
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

/*
 * The walls' lines of an agent, into lines[0 ..): its segments seg[0 ..
 * m) nearest first, ties by index, so that the near wall's line can cover
 * the ones behind it (wall_order), each segment's line unless covered.
 * With `made`, segment j's line is made[j] already (when bit j of
 * made_ok is set; else it has none); made may lie in lines past m.
 * Returns how many lines.
 */
static size_t
wall_lines(const gc_orca_params *p, const gc_orca_agent *self,
           const gc_orca_segment *seg, size_t m, const gc_orca_line *made,
           uint64_t made_ok, gc_orca_line *lines)
{
    if (m == 0)
        return 0;
    size_t k = 0;
    uint8_t order[GC_ORCA_MAX_SEGMENTS];
    wall_order(self->pos, seg, m, order);
    float inv = 1.0f / p->time_horizon_obst;
    float rho = self->radius * inv;
    for (size_t i = 0; i < m; i++) {
        const gc_orca_segment *sg = &seg[order[i]];
        gc_vec2 a = sub(sg->a, self->pos), b = sub(sg->b, self->pos);
        /* Covered: the whole scaled capsule is on the forbidden side of
         * an earlier wall line, whose permitted side holds the origin,
         * so its whole velocity obstacle is excluded too. */
        gc_vec2 A = scale(inv, a), B = scale(inv, b);
        bool covered = false;
        for (size_t j = 0; j < k && !covered; j++)
            covered = slack(&lines[j], A) <= -rho + GC_ORCA_EPS &&
                      slack(&lines[j], B) <= -rho + GC_ORCA_EPS;
        if (covered)
            continue;
        if (made != NULL) {
            if (made_ok >> order[i] & 1)
                lines[k++] = made[order[i]];
        } else if (segment_line(a, b, self->radius, inv, self->vel,
                                &lines[k])) {
            k++;
        }
    }
    return k;
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
    size_t k = wall_lines(p, self, seg, m, NULL, 0, lines);
    *n_obst = k;
    float inv_tau = 1.0f / p->time_horizon, inv_dt = 1.0f / p->dt;
    gc_orca_agent_lines(self, nb, n, inv_tau, inv_dt, lines + k);
    return (int)(k + n);
}

/* ---- the crowd's programs: their walls' lines in lanes ------------------ */

int
gc_orca_program_walls(const gc_orca_params *p, gc_orca_program *pr,
                      const gc_orca_segment *seg, size_t m)
{
    if (!p || !pr || pr->n_nb > GC_ORCA_MAX_NEIGHBOURS ||
        m > GC_ORCA_MAX_SEGMENTS || (m && !seg) || !(pr->max_speed >= 0) ||
        !isfinite(pr->max_speed))
        return GC_EINVAL;
    pr->params = p;
    pr->walls = seg;
    pr->n_seg = m;
    return 0;
}

#if defined(ORCA_SSE2)
#define LANES 4
#include "orca_width.h"
#define SEG_FN seg_lines4
#include "orca_seg_lanes.h"
#undef SEG_FN
#undef LANES
#endif

#if defined(ORCA_AVX)
#define LANES 8
#include "orca_width.h"
#define SEG_FN seg_lines8
#include "orca_seg_lanes.h"
#undef SEG_FN
#undef LANES
#endif

/* Where program pr keeps its segments' lines until its walls' lines are
 * taken from them: the end of its lines, which wall_lines() reaches only
 * after reading them (it writes line k < m while reading line m' >= m). */
static inline gc_orca_line *
made_lines(gc_orca_program *pr)
{
    return pr->lines + GC_ORCA_MAX_LINES - pr->n_seg;
}

/* Segments' lines, up to eight a call, for the pairs (program q[l],
 * segment j[l]) of a batch. */
struct seg_batch {
    size_t n;
    uint32_t q[8];
    uint8_t j[8];
    float ax[8], ay[8], bx[8], by[8], r[8], vx[8], vy[8], inv[8];
};

static void
seg_flush(gc_orca_program *pr, struct seg_batch *sb)
{
    size_t n = sb->n;
    if (n == 0)
        return;
    sb->n = 0;
#if defined(ORCA_SSE2)
    float qx[8], qy[8], dx[8], dy[8];
    int touch;
    /* Lanes past n repeat the first. */
    for (size_t l = n; l < 8; l++) {
        sb->ax[l] = sb->ax[0];
        sb->ay[l] = sb->ay[0];
        sb->bx[l] = sb->bx[0];
        sb->by[l] = sb->by[0];
        sb->r[l] = sb->r[0];
        sb->vx[l] = sb->vx[0];
        sb->vy[l] = sb->vy[0];
        sb->inv[l] = sb->inv[0];
    }
#if defined(ORCA_AVX)
    if (n > 4 && gc_orca_lanes_eight())
        touch = seg_lines8(sb->ax, sb->ay, sb->bx, sb->by, sb->r, sb->vx,
                           sb->vy, sb->inv, qx, qy, dx, dy);
    else
#endif
    {
        touch = seg_lines4(sb->ax, sb->ay, sb->bx, sb->by, sb->r, sb->vx,
                           sb->vy, sb->inv, qx, qy, dx, dy);
        if (n > 4)
            touch |= seg_lines4(sb->ax + 4, sb->ay + 4, sb->bx + 4, sb->by + 4,
                                sb->r + 4, sb->vx + 4, sb->vy + 4, sb->inv + 4,
                                qx + 4, qy + 4, dx + 4, dy + 4)
                     << 4;
    }
#else
    int touch = (1 << n) - 1; /* every lane by segment_line() */
#endif
    for (size_t l = 0; l < n; l++) {
        gc_orca_program *q = &pr[sb->q[l]];
        gc_orca_line *out = &made_lines(q)[sb->j[l]];
        bool ok = true;
        if (touch >> l & 1) {
            gc_vec2 a = {sb->ax[l], sb->ay[l]}, b = {sb->bx[l], sb->by[l]};
            gc_vec2 v = {sb->vx[l], sb->vy[l]};
            ok = segment_line(a, b, sb->r[l], sb->inv[l], v, out);
        }
#if defined(ORCA_SSE2)
        else
            *out = (gc_orca_line){{qx[l], qy[l]}, {dx[l], dy[l]}};
#endif
        q->seg_ok |= (uint64_t)ok << sb->j[l];
    }
}

/* The neighbours' lines left by agent_lines_head (a tail of one or two
 * an agent), eight (or four) agents' at a time (agent_pairs8), each lane
 * its own agent: ten neighbours are eight in one agent's lanes and two
 * here, where agent_line() took the two alone, at four times a lane's
 * cost each. */
struct pair_batch {
    size_t n;
    const gc_orca_agent *a[8], *o[8];
    float itau[8], idt[8];
    gc_orca_line *out[8];
};

static void
pair_flush(struct pair_batch *tb)
{
    size_t n = tb->n, l = 0;
    tb->n = 0;
#if defined(ORCA_SSE2)
    if (n > 1) {
        gc_orca_line tmp[8];
        for (size_t k = n; k < 8; k++) { /* (lanes past n repeat the first) */
            tb->a[k] = tb->a[0];
            tb->o[k] = tb->o[0];
            tb->itau[k] = tb->itau[0];
            tb->idt[k] = tb->idt[0];
        }
#if defined(ORCA_AVX)
        if (n > 4 && gc_orca_lanes_eight())
            agent_pairs8(tb->a, tb->o, tb->itau, tb->idt, tmp);
        else
#endif
        {
            agent_pairs4(tb->a, tb->o, tb->itau, tb->idt, tmp);
            if (n > 4)
                agent_pairs4(tb->a + 4, tb->o + 4, tb->itau + 4, tb->idt + 4,
                             tmp + 4);
        }
        for (; l < n; l++)
            *tb->out[l] = tmp[l];
    }
#endif
    for (; l < n; l++)
        *tb->out[l] = agent_line(tb->a[l], tb->o[l], tb->itau[l], tb->idt[l]);
}

/*
 * The lines of programs pr[0 .. count), each made ready by
 * gc_orca_program_walls: as gc_orca_lines makes them, to the bit, but
 * every segment's line first, eight segments of any of the programs at
 * a time in lanes (orca_seg_lanes.h), and then each program's walls'
 * lines taken from them (wall_lines).  A segment a nearer wall's line
 * covers gets its line made all the same, which the lanes make cheap:
 * one at a time, each through divisions and square roots on one chain,
 * the walls' lines were a ninth of the corridor's avoidance step.
 */
void
gc_orca_programs_lines(gc_orca_program *pr, size_t count)
{
    struct seg_batch sb;
    sb.n = 0;
    for (size_t q = 0; q < count; q++) {
        pr[q].seg_ok = 0;
        const gc_orca_agent *self = &pr[q].self;
        float inv = 1.0f / pr[q].params->time_horizon_obst;
        for (size_t j = 0; j < pr[q].n_seg; j++) {
            size_t l = sb.n++;
            sb.q[l] = (uint32_t)q;
            sb.j[l] = (uint8_t)j;
            gc_vec2 a = sub(pr[q].walls[j].a, self->pos);
            gc_vec2 b = sub(pr[q].walls[j].b, self->pos);
            sb.ax[l] = a.x;
            sb.ay[l] = a.y;
            sb.bx[l] = b.x;
            sb.by[l] = b.y;
            sb.r[l] = self->radius;
            sb.vx[l] = self->vel.x;
            sb.vy[l] = self->vel.y;
            sb.inv[l] = inv;
            if (sb.n == 8)
                seg_flush(pr, &sb);
        }
    }
    seg_flush(pr, &sb);
    struct pair_batch tb;
    tb.n = 0;
    for (size_t q = 0; q < count; q++) {
        gc_orca_program *g = &pr[q];
        const gc_orca_params *p = g->params;
        size_t k = wall_lines(p, &g->self, g->walls, g->n_seg, made_lines(g),
                              g->seg_ok, g->lines);
        g->n_obst = k;
        g->n_lines = k + g->n_nb;
        float itau = 1.0f / p->time_horizon, idt = 1.0f / p->dt;
        gc_orca_line *out = g->lines + k;
        for (size_t i =
                 agent_lines_head(&g->self, g->nb, g->n_nb, itau, idt, out);
             i < g->n_nb; i++) {
            size_t l = tb.n++;
            tb.a[l] = &g->self;
            tb.o[l] = &g->nb[i];
            tb.itau[l] = itau;
            tb.idt[l] = idt;
            tb.out[l] = &out[i];
            if (tb.n == 8)
                pair_flush(&tb);
        }
    }
    pair_flush(&tb);
}
