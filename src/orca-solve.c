/*
 * orca-solve.c: ORCA local avoidance: the linear programs.  An agent's
 * lines (orca.c) are taken in their order by the incremental 2-D program
 * (lp2, after RVO2's), and when no velocity satisfies them all, by the
 * 3-D program that keeps the walls' lines (and those of bodies already
 * overlapping) hard and minimises the largest violation of the rest
 * (lp3).  The crowd's calls (gc_orca_velocity_fe, the adaptive horizon)
 * are here too.  No randomness and no allocation: the answer is a pure
 * function of the lines, and scratch lives on the stack.
 */
#include "config.h"

#include <gridcrowd/orca.h>

#include "orca_int.h"
#include "orca_simd.h"

#include <math.h>
#include <stdbool.h>
#include <stddef.h>
#include <string.h>

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
        if (fabsf(den) <= GC_ORCA_EPS) {
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
            if (fabsf(dt) <= GC_ORCA_EPS && dot(lines[i].dir, lines[j].dir) > 0)
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
 * hard.  When the overlapping neighbours already come first (the
 * crowd's do: nearest first, and gc_sim_crowd_overlaps_first when radii
 * differ), the second lp2 would be the first again (*fail and *res are
 * lp2's over these lines as given, from every caller), and its answer is
 * taken as it is.  Which bodies overlap is tested here, unless `over`
 * gives it (gc_orca_program's, from the crowd, which tested them as it
 * ordered them): in circle 1,000 half the programs are infeasible, and
 * a third of those have no overlap at all (the corridor's: 43%).
 */
static size_t
infeasible(const gc_orca_line *lines, size_t n_obst, const gc_orca_agent *self,
           const gc_orca_agent *nb, size_t n, const uint64_t *over,
           gc_vec2 pref, float max_speed, size_t *fail, gc_vec2 *res)
{
    gc_orca_line ord[GC_ORCA_MAX_LINES], proj[GC_ORCA_MAX_LINES];
    bool ov[GC_ORCA_MAX_NEIGHBOURS];
    size_t all = n_obst + n, hard = n_obst;
    bool first = true; /* the overlapping ones are nb[0 .. hard - n_obst) */
    for (size_t i = 0; i < n; i++) {
        ov[i] =
            over != NULL ? *over >> i & 1 : gc_orca_overlapping(self, &nb[i]);
        if (ov[i])
            first &= hard++ == n_obst + i;
    }
    if (hard == n_obst) {
        lp3(lines, all, n_obst, *fail, max_speed, res, proj);
        return n_obst;
    }
    if (!first) { /* walls, the overlapping ones, the rest */
        size_t k = 0;
        for (; k < n_obst; k++)
            ord[k] = lines[k];
        for (int pass = 1; pass >= 0; pass--)
            for (size_t i = 0; i < n; i++)
                if (ov[i] == pass)
                    ord[k++] = lines[n_obst + i];
        lines = ord;
        *fail = lp2(lines, all, max_speed, pref, false, res);
    }
    if (*fail < hard)
        hard = n_obst; /* the overlaps and walls cannot all be satisfied */
    if (*fail < all)
        lp3(lines, all, hard, *fail, max_speed, res, proj);
    return hard;
}

/* The answer of gc_orca_velocity[_adaptive] after lp2 failed at line
 * `fail` of lines[0, all) (all when it did not), and its report.
 * Returns whether the program was feasible (the report's `feasible`).
 * over: which neighbours overlap self (gc_orca_program's), or NULL. */
static bool
finish(const gc_orca_line *lines, size_t all, size_t n_obst,
       const gc_orca_agent *self, const gc_orca_agent *nb, size_t n,
       const uint64_t *over, gc_vec2 pref, float max_speed, size_t fail,
       gc_vec2 *res, gc_orca_report *rep)
{
    size_t hard = n_obst;
    if (fail < all)
        hard = infeasible(lines, n_obst, self, nb, n, over, pref, max_speed,
                          &fail, res);
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
    bool ok = finish(lines, all, n_obst, self, nb, n, NULL, pref, max_speed,
                     fail, &res, rep);
    if (feasible)
        *feasible = ok;
    *out = res;
    return 0;
}

/* ---- several agents' programs at once ---------------------------------- */

#if defined(ORCA_SSE2)
#define LANES 4
#include "orca_width.h"
#define LP_FN lp2_lanes4
#define V_LINES(src, px, py, dx, dy)                                           \
    GC_LOAD4(&src[0]->point.x, &src[1]->point.x, &src[2]->point.x,             \
             &src[3]->point.x, px, py, dx, dy)
#include "orca_lp_lanes.h"
#undef LANES
#endif

#if defined(ORCA_AVX)
#define LANES 8
#include "orca_width.h"
#define LP_FN lp2_lanes8
#define V_LINES(src, px, py, dx, dy)                                           \
    GC_LOAD8(&src[0]->point.x, &src[1]->point.x, &src[2]->point.x,             \
             &src[3]->point.x, &src[4]->point.x, &src[5]->point.x,             \
             &src[6]->point.x, &src[7]->point.x, px, py, dx, dy)
#include "orca_lp_lanes.h"
#undef LANES
#endif

#if defined(ORCA_AVX512)
#define LANES 16
#include "orca_width.h"
#define LP_FN lp2_lanes16
#define V_LINES(src, px, py, dx, dy)                                           \
    do {                                                                       \
        const float *at_[16];                                                  \
        for (int l_ = 0; l_ < 16; l_++)                                        \
            at_[l_] = &src[l_]->point.x;                                       \
        gc_load16(at_, &px, &py, &dx, &dy);                                    \
    } while (0)
#include "orca_lp_lanes.h"
#undef LANES
#endif

int
gc_orca_program_lines(const gc_orca_params *p, gc_orca_program *pr,
                      const gc_orca_segment *seg, size_t m)
{
    if (!params_valid(p) || (m && !seg))
        return GC_EINVAL;
    if (m > 0) /* (seg need not outlive the call) */
        memmove(pr->seg, seg, m * sizeof *seg);
    int rc = gc_orca_program_walls(p, pr, pr->seg, m);
    if (rc == GC_OK)
        gc_orca_programs_lines(pr, 1);
    return rc;
}

/*
 * lp2 of programs pr[0 .. count) in lanes, as many at a time as the CPU
 * takes best (sixteen with AVX-512 on AMD's CPUs, eight with AVX, else
 * four: gc_orca_lanes_sixteen; the rest padded with an empty program), or
 * one by one (a single program, or no SSE2); then each failed one's 3-D
 * program alone.  Each answer is gc_orca_velocity_fe's to the bit.  On
 * circle 1,000, where the scalar lp2's branch on each line's slack
 * mispredicted often, it was a fifth of the step.  A lane's program is a
 * chain of dependent steps, line by line, so a wider vector answers more
 * programs in the same time: on an AMD EPYC sixteen lanes instead of
 * eight took the corridor's step 3.5% less (on an Intel Xeon, 6% more).
 */
void
gc_orca_programs_solve(gc_orca_program *pr, size_t count)
{
    gc_vec2 res[GC_ORCA_LANES_MAX];
    size_t fail[GC_ORCA_LANES_MAX];
    for (size_t at = 0; at < count;) {
        size_t w = 1;
#if defined(ORCA_SSE2)
        if (count - at > 1) {
            static const gc_orca_program empty;
            const gc_orca_program *lane[GC_ORCA_LANES_MAX];
            w = 4;
#if defined(ORCA_AVX)
            if (count - at > 4 && gc_orca_lanes_eight())
                w = 8;
#endif
#if defined(ORCA_AVX512)
            if (count - at > 8 && gc_orca_lanes_sixteen())
                w = 16;
#endif
            for (size_t l = 0; l < w; l++)
                lane[l] = at + l < count ? &pr[at + l] : &empty;
            switch (w) {
#if defined(ORCA_AVX512)
            case 16:
                lp2_lanes16(lane, res, fail);
                break;
#endif
#if defined(ORCA_AVX)
            case 8:
                lp2_lanes8(lane, res, fail);
                break;
#endif
            default:
                lp2_lanes4(lane, res, fail);
                break;
            }
            if (w > count - at)
                w = count - at;
        } else
#endif
            fail[0] = lp2(pr[at].lines, pr[at].n_lines, pr[at].max_speed,
                          pr[at].pref, false, &res[0]);
        for (size_t l = 0; l < w; l++) {
            gc_orca_program *q = &pr[at + l];
            q->feasible =
                finish(q->lines, q->n_lines, q->n_obst, &q->self, q->nb,
                       q->n_nb, q->over_known ? &q->over : NULL, q->pref,
                       q->max_speed, fail[l], &res[l], NULL);
            q->out = res[l];
        }
        at += w;
    }
}

/* lp2 over lines [0, n_obst + n) with the neighbours' lines remade at
 * horizon tau (the walls' lines [0, n_obst) as they are). */
static size_t
lp2_at(const gc_orca_params *p, const gc_orca_agent *self, gc_vec2 pref,
       float max_speed, const gc_orca_agent *nb, size_t n, gc_orca_line *lines,
       size_t n_obst, float tau, gc_vec2 *res)
{
    gc_orca_agent_lines(self, nb, n, 1.0f / tau, 1.0f / p->dt, lines + n_obst);
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
            gc_orca_agent_lines(self, nb, n, 1.0f / tau[hi], 1.0f / p->dt,
                        lines + n_obst);
        at = hi;
    }
    finish(lines, all, n_obst, self, nb, n, NULL, pref, max_speed, fail, &res,
           rep);
    *out = res;
    if (step)
        *step = at;
    return 0;
}
