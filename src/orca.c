/*
 * orca.c: ORCA local avoidance, its linear programs and the neighbour index.
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
 * legs, two end arcs, the facing side).
 *
 * Rules kept:
 *   - No randomness and no order-dependent state: constraints are processed
 *     in a fixed order (segments nearest first, ties by index; neighbours
 *     nearest first, ties by index, as the index returns them), so one
 *     agent's answer is a pure function of the previous tick.
 *   - No allocation per agent: lines and scratch live on the stack, bounded
 *     by GC_ORCA_MAX_LINES; the index allocates only when it grows.
 *   - Float throughout (see orca.h for why it is precise enough); EPS is
 *     the tolerance of parallel-line and constraint tests.
 */
#include "config.h"

#include <gridcrowd/orca.h>

#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#define EPS 1e-5f

/* fmaxf/fminf are library calls at -O2 (they must handle NaN); ours are
 * two instructions. */
static inline float
gc_maxf(float a, float b)
{
    return a > b ? a : b;
}

static inline float
gc_minf(float a, float b)
{
    return a < b ? a : b;
}

static inline gc_vec2
v2(float x, float y)
{
    gc_vec2 r = {x, y};
    return r;
}

static inline gc_vec2
add(gc_vec2 a, gc_vec2 b)
{
    return v2(a.x + b.x, a.y + b.y);
}

static inline gc_vec2
sub(gc_vec2 a, gc_vec2 b)
{
    return v2(a.x - b.x, a.y - b.y);
}

static inline gc_vec2
scale(float s, gc_vec2 a)
{
    return v2(s * a.x, s * a.y);
}

static inline float
dot(gc_vec2 a, gc_vec2 b)
{
    return a.x * b.x + a.y * b.y;
}

/* Positive when b is counter-clockwise from a. */
static inline float
det(gc_vec2 a, gc_vec2 b)
{
    return a.x * b.y - a.y * b.x;
}

/* How far v is on the permitted (left) side of l; negative: violated. */
static inline float
slack(const gc_orca_line *l, gc_vec2 v)
{
    return det(l->dir, sub(v, l->point));
}

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

static bool
params_valid(const gc_orca_params *p)
{
    return p && p->time_horizon > 0 && p->time_horizon_obst > 0 && p->dt > 0 &&
           isfinite(p->time_horizon) && isfinite(p->time_horizon_obst) &&
           isfinite(p->dt) && p->neighbour_dist >= 0 &&
           isfinite(p->neighbour_dist) && p->max_neighbours >= 0 &&
           p->max_neighbours <= GC_ORCA_MAX_NEIGHBOURS && p->radius >= 0 &&
           isfinite(p->radius) && p->max_speed >= 0 && isfinite(p->max_speed);
}

/* ---- constraints -------------------------------------------------------- */

/*
 * The line for neighbour `o` of agent `a`.  p is o's position relative to
 * a, w the relative velocity, R the sum of the radii.  Outside an overlap
 * the velocity obstacle is the cone from the origin tangent to the disc
 * (p, R), cut off by the disc (p / tau, R / tau); its nearest boundary
 * point to the relative velocity is on the cut-off arc when the relative
 * velocity lies behind the arc's centre (seen from p) within the cone, on
 * a leg otherwise.  Inside an overlap, the obstacle for one dt is the disc
 * (p / dt, R / dt), and its boundary is pushed to: get apart within a tick.
 */
static gc_orca_line
agent_line(const gc_orca_agent *a, const gc_orca_agent *o, float inv_tau,
           float inv_dt)
{
    gc_vec2 p = sub(o->pos, a->pos);
    gc_vec2 vrel = sub(a->vel, o->vel);
    float R = a->radius + o->radius;
    float d2 = dot(p, p), R2 = R * R;
    gc_vec2 dir, u;

    if (d2 > R2) {
        gc_vec2 w = sub(vrel, scale(inv_tau, p));
        float w2 = dot(w, w), wp = dot(w, p);
        if (wp < 0 && wp * wp > R2 * w2) {
            float wl = sqrtf(w2);
            gc_vec2 uw = scale(1.0f / wl, w);
            dir = v2(uw.y, -uw.x);
            u = scale(R * inv_tau - wl, uw);
        } else {
            float leg = sqrtf(d2 - R2);
            if (det(p, w) > 0) /* the left leg */
                dir = scale(1.0f / d2,
                            v2(p.x * leg - p.y * R, p.x * R + p.y * leg));
            else /* the right leg, directed so its outside is on the left */
                dir = scale(-1.0f / d2,
                            v2(p.x * leg + p.y * R, -p.x * R + p.y * leg));
            u = sub(scale(dot(vrel, dir), dir), vrel);
        }
    } else {
        gc_vec2 w = sub(vrel, scale(inv_dt, p));
        float wl = sqrtf(dot(w, w));
        gc_vec2 uw;
        /* w = 0 only when the relative velocity aims exactly at getting
         * apart in one dt: any direction is then a boundary normal; moving
         * away from the other's centre is the natural one. */
        if (wl > 0)
            uw = scale(1.0f / wl, w);
        else if (d2 > 0)
            uw = scale(-1.0f / sqrtf(d2), p);
        else
            uw = v2(1.0f, 0.0f);
        dir = v2(uw.y, -uw.x);
        u = scale(R * inv_dt - wl, uw);
    }
    gc_orca_line l = {add(a->vel, scale(0.5f, u)), dir};
    return l;
}

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
        /* Nearest first, ties by index (insertion sort: m is small), so
         * that the near wall's line can cover the ones behind it. */
        uint8_t order[GC_ORCA_MAX_SEGMENTS];
        float dist[GC_ORCA_MAX_SEGMENTS];
        for (size_t i = 0; i < m; i++) {
            gc_vec2 a = sub(seg[i].a, self->pos), ab = sub(seg[i].b, seg[i].a);
            float l2 = dot(ab, ab);
            float s =
                l2 > 0 ? gc_minf(gc_maxf(-dot(a, ab) / l2, 0.0f), 1.0f) : 0;
            gc_vec2 c = add(a, scale(s, ab));
            float dd = dot(c, c);
            size_t j = i;
            while (j > 0 && dist[j - 1] > dd) {
                dist[j] = dist[j - 1];
                order[j] = order[j - 1];
                j--;
            }
            dist[j] = dd;
            order[j] = (uint8_t)i;
        }
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
    for (size_t i = 0; i < n; i++)
        lines[k++] = agent_line(self, &nb[i], inv_tau, inv_dt);
    return (int)k;
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
        if (den >= 0)
            tr = gc_minf(tr, t);
        else
            tl = gc_maxf(tl, t);
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
        memcpy(proj, lines, n_obst * sizeof *proj);
        k = n_obst;
        for (size_t j = n_obst; j < i; j++) {
            gc_orca_line l;
            float dt = det(lines[i].dir, lines[j].dir);
            if (fabsf(dt) <= EPS) {
                if (dot(lines[i].dir, lines[j].dir) > 0)
                    continue; /* same direction: j adds nothing */
                l.point = scale(0.5f, add(lines[i].point, lines[j].point));
            } else {
                float t =
                    det(lines[j].dir, sub(lines[i].point, lines[j].point)) / dt;
                l.point = add(lines[i].point, scale(t, lines[i].dir));
            }
            gc_vec2 d = sub(lines[j].dir, lines[i].dir);
            l.dir = scale(1.0f / sqrtf(dot(d, d)), d);
            proj[k++] = l;
        }
        gc_vec2 keep = *res;
        gc_vec2 away = v2(-lines[i].dir.y, lines[i].dir.x);
        if (lp2(proj, k, radius, away, true, res) < k)
            *res = keep; /* only by rounding: the program is feasible */
        dist = -slack(&lines[i], *res);
    }
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
    *out = res;
    if (rep) {
        float worst = 0;
        for (size_t i = 0; i < n; i++)
            worst = gc_maxf(worst, -slack(&lines[i], res));
        rep->feasible = fail == n;
        rep->n_lines = (int)n;
        rep->n_obstacle_lines = (int)n_obst;
        rep->first_failed = (int)fail;
        rep->max_violation = worst;
    }
    return 0;
}

int
gc_orca_velocity(const gc_orca_params *p, const gc_orca_agent *self,
                 gc_vec2 pref, float max_speed, const gc_orca_agent *nb,
                 size_t n, const gc_orca_segment *seg, size_t m, gc_vec2 *out,
                 gc_orca_report *rep)
{
    gc_orca_line lines[GC_ORCA_MAX_LINES];
    size_t n_obst;
    int k = gc_orca_lines(p, self, nb, n, seg, m, lines, &n_obst);
    if (k < 0)
        return k;
    return gc_orca_solve(lines, (size_t)k, n_obst, pref, max_speed, out, rep);
}

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
    if (!g || !(cell > 0) || !isfinite(cell) || n >= UINT32_MAX ||
        (n && (!x || !y)))
        return GC_EINVAL;
    float x0 = INFINITY, y0 = INFINITY, x1 = -INFINITY, y1 = -INFINITY;
    for (size_t i = 0; i < n; i++) {
        if (!isfinite(x[i]) || !isfinite(y[i])) {
            grid_empty(g);
            return GC_EINVAL;
        }
        x0 = gc_minf(x0, x[i]);
        x1 = gc_maxf(x1, x[i]);
        y0 = gc_minf(y0, y[i]);
        y1 = gc_maxf(y1, y[i]);
    }
    if (n == 0)
        x0 = y0 = x1 = y1 = 0;

    /* Bound the bucket count by 4n + 64 by widening buckets: the extent
     * in doubles, since a float product could overflow for wide boxes. */
    double ex = (double)x1 - x0, ey = (double)y1 - y0;
    double limit = 4.0 * (double)n + 64.0;
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

    if (n > g->cap_n) {
        size_t cap = n + n / 2 + 16;
        uint32_t *idx = realloc(g->idx, cap * sizeof *idx);
        if (idx)
            g->idx = idx;
        float *sx = realloc(g->sx, cap * sizeof *sx);
        if (sx)
            g->sx = sx;
        float *sy = realloc(g->sy, cap * sizeof *sy);
        if (sy)
            g->sy = sy;
        uint32_t *co = realloc(g->cellof, cap * sizeof *co);
        if (co)
            g->cellof = co;
        if (!idx || !sx || !sy || !co) {
            grid_empty(g);
            return GC_ENOMEM;
        }
        g->cap_n = cap;
    }
    if (cells + 1 > g->cap_cells) {
        size_t cap = cells + cells / 2 + 16;
        uint32_t *st = realloc(g->start, cap * sizeof *st);
        if (!st) {
            grid_empty(g);
            return GC_ENOMEM;
        }
        g->start = st;
        g->cap_cells = cap;
    }

    g->cell = (float)c;
    g->inv_cell = (float)(1.0 / c);
    g->ox = x0;
    g->oy = y0;
    g->w = w;
    g->h = h;
    g->n = n;
    memset(g->start, 0, (cells + 1) * sizeof *g->start);
    for (size_t i = 0; i < n; i++) {
        int32_t cx = (int32_t)((x[i] - x0) * g->inv_cell);
        int32_t cy = (int32_t)((y[i] - y0) * g->inv_cell);
        /* Rounding in inv_cell can land the far edge one bucket out. */
        cx = cx < w ? cx : w - 1;
        cy = cy < h ? cy : h - 1;
        uint32_t cid = (uint32_t)cy * (uint32_t)w + (uint32_t)cx;
        g->cellof[i] = cid;
        g->start[cid + 1]++;
    }
    for (size_t cc = 0; cc < cells; cc++)
        g->start[cc + 1] += g->start[cc];
    /* Fill in index order, advancing start[c] to the bucket's end, then
     * shift back: agents keep index order inside a bucket. */
    for (size_t i = 0; i < n; i++) {
        uint32_t at = g->start[g->cellof[i]]++;
        g->idx[at] = (uint32_t)i;
        g->sx[at] = x[i];
        g->sy[at] = y[i];
    }
    memmove(g->start + 1, g->start, cells * sizeof *g->start);
    g->start[0] = 0;
    return 0;
}

/*
 * The candidate list: k keys in increasing order.  A key packs the squared
 * distance (a float >= 0, whose bits order as its value does) above the
 * agent index, so "nearer, then lower index" is one integer comparison.
 * Empty slots hold the key of the range itself with index 0, which every
 * agent strictly inside the range beats and none at the range does; so
 * the list is always "full" and its last key is always the one to beat.
 */
struct knn {
    float qx, qy;
    uint32_t self;
    uint32_t k;
    float bound; /* the distance part of keys[k - 1] */
    float slop;  /* rounding margin for bucket geometry, units */
    uint64_t keys[GC_ORCA_MAX_NEIGHBOURS];
};

static inline uint64_t
knn_key(float d, uint32_t i)
{
    uint32_t bits;
    memcpy(&bits, &d, sizeof bits);
    return (uint64_t)bits << 32 | i;
}

static inline float
knn_dist(uint64_t key)
{
    uint32_t bits = (uint32_t)(key >> 32);
    float d;
    memcpy(&d, &bits, sizeof d);
    return d;
}

/*
 * Scan bucket-ordered agents [a, e).  Most fail on distance alone; the
 * list and its bound stay in registers for the run.
 */
static inline void
scan_run(const gc_orca_grid *g, uint32_t a, uint32_t e, struct knn *s)
{
    const float *restrict sx = g->sx, *restrict sy = g->sy;
    const uint32_t *restrict gi = g->idx;
    uint64_t *restrict keys = s->keys;
    const float qx = s->qx, qy = s->qy;
    const uint32_t k = s->k, self = s->self;
    float bound = s->bound;
    uint64_t worst = keys[k - 1];
    for (; a < e; a++) {
        float dx = sx[a] - qx, dy = sy[a] - qy;
        float d = dx * dx + dy * dy;
        if (d > bound)
            continue;
        uint32_t i = gi[a];
        uint64_t key = knn_key(d, i);
        if (key >= worst || i == self)
            continue;
        uint32_t j = k - 1;
        while (j > 0 && keys[j - 1] > key) {
            keys[j] = keys[j - 1];
            j--;
        }
        keys[j] = key;
        worst = keys[k - 1];
        bound = knn_dist(worst);
    }
    s->bound = bound;
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
    if (!g || g->n == 0 || k == 0 || !(dist > 0) || !isfinite(dist) ||
        !isfinite(q.x) || !isfinite(q.y))
        return 0;
    struct knn s;
    s.qx = q.x;
    s.qy = q.y;
    s.self = self < g->n ? (uint32_t)self : UINT32_MAX;
    s.k = (uint32_t)(k < GC_ORCA_MAX_NEIGHBOURS ? k : GC_ORCA_MAX_NEIGHBOURS);
    s.bound = dist * dist;
    /* Strictly inside the range: the range's own key, index 0, is beaten
     * by every nearer agent and by no agent at the range. */
    for (uint32_t j = 0; j < s.k; j++)
        s.keys[j] = knn_key(s.bound, 0);
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
    uint64_t empty = knn_key(dist * dist, 0);
    uint32_t cnt = 0;
    for (; cnt < s.k && s.keys[cnt] < empty; cnt++) {
        idx[cnt] = (uint32_t)s.keys[cnt];
        if (d2)
            d2[cnt] = knn_dist(s.keys[cnt]);
    }
    return cnt;
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
