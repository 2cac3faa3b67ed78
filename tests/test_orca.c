/*
 * test_orca.c: ORCA constraints, linear programs, neighbour index and step.
 *
 * The constraints are checked against an independent model written here in
 * double precision.  It does not follow the case analysis of src/orca.c
 * (cut-off circle, legs, arcs): it uses the support function of the
 * velocity obstacle.  For a neighbour at relative position p, combined
 * radius R and horizon tau, the obstacle is the union of s * disc(p, R)
 * over s >= 1 / tau; its support in direction n is (p.n + R) / tau where
 * p.n + R <= 0, and infinite elsewhere.  The ORCA normal is the n that
 * minimises f(n) = h(n) - w.n (w the relative velocity): f is minus the
 * distance to the obstacle outside it and the depth inside, the same
 * formula on both sides.  The line is then v.n >= v_self.n + f / 2.  An
 * overlap uses the disc (p / dt, R / dt), whose support is finite
 * everywhere.  Walls use the capsule's support max(a.n, b.n) + r the same
 * way, with full responsibility.  The minimum is found by dense sampling
 * of n and a golden-section refinement.
 *
 * Then a brute-force search over a dense grid of velocities finds the
 * feasible velocity nearest the preferred one (or, when none is feasible,
 * the one with the smallest largest violation), and the solver's answer
 * must be as good within the grid step.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

/* gc_test_quick() (GC_TEST_QUICK=1, CI's valgrind stage): a fifth of the
 * constraint cases against the model, and a coarser brute-force velocity
 * grid (its tolerance follows its step). */
#include "brute_knn.h"
#include "quick.h"

#include <gridcrowd/orca.h>

#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- a small deterministic generator ------------------------------------ */

static uint64_t rng_state = 0x9e3779b97f4a7c15ull;

static uint32_t
rng(void)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return (uint32_t)(rng_state >> 11);
}

static double
urand(double lo, double hi)
{
    return lo + (hi - lo) * (rng() / 2097152.0 / 1024.0);
}

/* ---- the independent model ---------------------------------------------- */

typedef struct {
    double nx, ny; /* unit normal: permitted is v.n >= c */
    double c;
} hp;

struct vo {
    int kind;                 /* 0 agent cone, 1 agent disc (overlap), 2 wall */
    double px, py, R;         /* agent: relative position, combined radius */
    double ax, ay, bx, by, r; /* wall: relative ends, radius */
    double inv;               /* 1 / horizon (or 1 / dt for the disc) */
    double wx, wy;            /* velocity whose distance is measured */
};

/* Support of the obstacle in direction (nx, ny); HUGE_VAL if infinite. */
static double
support(const struct vo *o, double nx, double ny)
{
    double base;
    switch (o->kind) {
    case 0:
        base = o->px * nx + o->py * ny + o->R;
        /* tolerance: a leg's normal has base 0 up to rounding */
        return base <= 1e-5 * o->R ? base * o->inv : HUGE_VAL;
    case 1:
        return (o->px * nx + o->py * ny + o->R) * o->inv;
    default: {
        double sa = o->ax * nx + o->ay * ny, sb = o->bx * nx + o->by * ny;
        base = (sa > sb ? sa : sb) + o->r;
        return base <= 1e-5 * o->r ? base * o->inv : HUGE_VAL;
    }
    }
}

static double
fval(const struct vo *o, double th)
{
    double nx = cos(th), ny = sin(th);
    double h = support(o, nx, ny);
    return h == HUGE_VAL ? HUGE_VAL : h - (o->wx * nx + o->wy * ny);
}

/* The minimum of f over directions: its value and angle. */
static double
fmin_dir(const struct vo *o, double *theta)
{
    enum { S = 20000 };
    double best = HUGE_VAL, bt = 0;
    for (int i = 0; i < S; i++) {
        double th = 2 * M_PI * i / S;
        double f = fval(o, th);
        if (f < best) {
            best = f;
            bt = th;
        }
    }
    double lo = bt - 2 * M_PI / S, hi = bt + 2 * M_PI / S;
    const double g = (sqrt(5.0) - 1) / 2;
    for (int it = 0; it < 60; it++) {
        double m1 = hi - g * (hi - lo), m2 = lo + g * (hi - lo);
        if (fval(o, m1) < fval(o, m2))
            hi = m2;
        else
            lo = m1;
    }
    double th = (lo + hi) / 2;
    if (fval(o, th) < best) {
        best = fval(o, th);
        bt = th;
    }
    *theta = bt;
    return best;
}

static struct vo
agent_vo(const gc_orca_params *p, const gc_orca_agent *a,
         const gc_orca_agent *b)
{
    struct vo o = {0};
    o.px = (double)b->pos.x - a->pos.x;
    o.py = (double)b->pos.y - a->pos.y;
    o.R = (double)a->radius + b->radius;
    o.wx = (double)a->vel.x - b->vel.x;
    o.wy = (double)a->vel.y - b->vel.y;
    if (o.px * o.px + o.py * o.py > o.R * o.R) {
        o.kind = 0;
        o.inv = 1.0 / p->time_horizon;
    } else {
        o.kind = 1;
        o.inv = 1.0 / p->dt;
    }
    return o;
}

static hp
agent_hp(const gc_orca_params *p, const gc_orca_agent *a,
         const gc_orca_agent *b, double *fout)
{
    struct vo o = agent_vo(p, a, b);
    double th;
    double f = fmin_dir(&o, &th);
    hp h = {cos(th), sin(th), 0};
    h.c = h.nx * a->vel.x + h.ny * a->vel.y + f / 2;
    if (fout)
        *fout = f;
    return h;
}

static struct vo
wall_vo(const gc_orca_params *p, const gc_orca_agent *a,
        const gc_orca_segment *s)
{
    struct vo o = {0};
    o.kind = 2;
    o.ax = (double)s->a.x - a->pos.x;
    o.ay = (double)s->a.y - a->pos.y;
    o.bx = (double)s->b.x - a->pos.x;
    o.by = (double)s->b.y - a->pos.y;
    o.r = a->radius;
    o.inv = 1.0 / p->time_horizon_obst;
    o.wx = a->vel.x;
    o.wy = a->vel.y;
    return o;
}

/* Distance from the agent's centre to the wall, relative coordinates. */
static double
wall_dist(const struct vo *o, double *cx, double *cy)
{
    double dx = o->bx - o->ax, dy = o->by - o->ay, l2 = dx * dx + dy * dy;
    double s = l2 > 0 ? -(o->ax * dx + o->ay * dy) / l2 : 0;
    s = s < 0 ? 0 : s > 1 ? 1 : s;
    *cx = o->ax + s * dx;
    *cy = o->ay + s * dy;
    return sqrt(*cx * *cx + *cy * *cy);
}

static hp
wall_hp(const gc_orca_params *p, const gc_orca_agent *a,
        const gc_orca_segment *s)
{
    struct vo o = wall_vo(p, a, s);
    double cx, cy, d = wall_dist(&o, &cx, &cy);
    if (d <= o.r) {
        hp h = {-cx / d, -cy / d, 0};
        return h;
    }
    double th;
    fmin_dir(&o, &th);
    hp h = {cos(th), sin(th), 0};
    h.c = support(&o, h.nx, h.ny);
    return h;
}

static double
hp_slack(const hp *h, double vx, double vy)
{
    return h->nx * vx + h->ny * vy - h->c;
}

static double
line_slack(const gc_orca_line *l, double vx, double vy)
{
    return (double)l->dir.x * (vy - l->point.y) -
           (double)l->dir.y * (vx - l->point.x);
}

/* ---- the brute-force solver --------------------------------------------- */

struct brute {
    int feasible; /* a sample satisfied every half-plane */
    double best;  /* its distance to pref, or the least max violation */
    double vx, vy;
};

static struct brute
brute_solve(const hp *h, int n, int n_hard, double prefx, double prefy,
            double vmax, double step)
{
    struct brute b = {0, HUGE_VAL, 0, 0};
    double least = HUGE_VAL;
    for (double x = -vmax; x <= vmax; x += step)
        for (double y = -vmax; y <= vmax; y += step) {
            if (x * x + y * y > vmax * vmax)
                continue;
            double worst = 0, hard = 0;
            for (int i = 0; i < n; i++) {
                double s = -hp_slack(&h[i], x, y);
                if (i < n_hard)
                    hard = s > hard ? s : hard;
                else
                    worst = s > worst ? s : worst;
            }
            if (hard > 0)
                continue;
            if (worst <= 0) {
                double d = hypot(x - prefx, y - prefy);
                if (!b.feasible || d < b.best) {
                    b.feasible = 1;
                    b.best = d;
                    b.vx = x;
                    b.vy = y;
                }
            } else if (!b.feasible && worst < least) {
                least = worst;
            }
        }
    if (!b.feasible)
        b.best = least;
    return b;
}

/* The half-planes of lines[0 .. k) for brute_solve. */
static void
lines_hp(const gc_orca_line *lines, int k, hp *h)
{
    for (int i = 0; i < k; i++) {
        h[i].nx = -lines[i].dir.y;
        h[i].ny = lines[i].dir.x;
        h[i].c = h[i].nx * lines[i].point.x + h[i].ny * lines[i].point.y;
    }
}

static gc_orca_agent
random_agent(double spread)
{
    gc_orca_agent a;
    a.pos.x = (float)urand(-spread, spread);
    a.pos.y = (float)urand(-spread, spread);
    a.vel.x = (float)urand(-2, 2);
    a.vel.y = (float)urand(-2, 2);
    a.radius = (float)urand(0.3, 1.5);
    return a;
}

/* ---- constraints against the model -------------------------------------- */

static void
test_agent_lines_match_model(void **state)
{
    (void)state;
    gc_orca_params p;
    gc_orca_params_default(&p);
    int overlaps = 0;
    const int cases = gc_test_quick() ? 600 : 3000;
    for (int it = 0; it < cases; it++) {
        gc_orca_agent a = random_agent(0), b = random_agent(6);
        if (it % 5 == 0) { /* overlapping bodies */
            b.pos.x = (float)urand(-1, 1);
            b.pos.y = (float)urand(-1, 1);
        }
        gc_orca_line l;
        size_t no;
        assert_int_equal(gc_orca_lines(&p, &a, &b, 1, NULL, 0, &l, &no), 1);
        assert_int_equal(no, 0);
        double f;
        agent_hp(&p, &a, &b, &f);
        struct vo o = agent_vo(&p, &a, &b);
        overlaps += o.kind == 1;
        /* The solver's normal and its f: f = 2 (offset - n.v_self). */
        double nx = -l.dir.y, ny = l.dir.x;
        assert_true(fabs(hypot(nx, ny) - 1) < 1e-4);
        double off = nx * l.point.x + ny * l.point.y;
        double f_orca = 2 * (off - (nx * a.vel.x + ny * a.vel.y));
        double scale = 1 + fabs(f);
        if (fabs(f_orca - f) > 2e-3 * scale)
            fail_msg("case %d: f orca %.6f model %.6f", it, f_orca, f);
        /* and its normal achieves the minimum (ties make it not unique) */
        double fm = fval(&o, atan2(ny, nx));
        if (!(fabs(fm - f) < 2e-3 * scale))
            fail_msg("case %d: f at orca normal %.6f model min %.6f", it, fm,
                     f);
    }
    assert_true(overlaps > cases / 10);
}

/*
 * Lines for many neighbours at once (four at a time in SIMD where the
 * machine has it) are the one-neighbour lines (computed one by one) to
 * the bit: apart, overlapping, on one point, and the degenerate overlap
 * whose relative velocity aims exactly at parting in one dt.
 */
static void
test_agent_lines_batch_bitwise(void **state)
{
    (void)state;
    gc_orca_params p;
    gc_orca_params_default(&p);
    int overlaps = 0, degenerate = 0;
    const int cases = gc_test_quick() ? 200 : 1000;
    for (int it = 0; it < cases; it++) {
        gc_orca_agent a = random_agent(0);
        size_t n = 1 + rng() % GC_ORCA_MAX_NEIGHBOURS;
        gc_orca_agent nb[GC_ORCA_MAX_NEIGHBOURS];
        for (size_t j = 0; j < n; j++) {
            nb[j] = random_agent(it % 2 ? 3 : 8);
            switch (rng() % 8) {
            case 0: /* overlapping */
                nb[j].pos.x = a.pos.x + (float)urand(-1, 1);
                nb[j].pos.y = a.pos.y + (float)urand(-1, 1);
                break;
            case 1: /* on one point */
                nb[j].pos = a.pos;
                break;
            case 2: /* w = vrel - p / dt = 0 exactly (dt 0.25) */
                a.pos = (gc_vec2){0.0f, 0.0f};
                a.vel = (gc_vec2){0.5f, -1.0f};
                nb[j].pos = (gc_vec2){0.25f, -0.5f};
                nb[j].vel = (gc_vec2){-0.5f, 1.0f};
                degenerate++;
                break;
            default:
                break;
            }
            float dx = nb[j].pos.x - a.pos.x, dy = nb[j].pos.y - a.pos.y;
            float R = a.radius + nb[j].radius;
            overlaps += dx * dx + dy * dy <= R * R;
        }
        gc_orca_line all[GC_ORCA_MAX_NEIGHBOURS];
        size_t no;
        assert_int_equal(gc_orca_lines(&p, &a, nb, n, NULL, 0, all, &no),
                         (int)n);
        for (size_t j = 0; j < n; j++) {
            gc_orca_line one;
            assert_int_equal(
                gc_orca_lines(&p, &a, &nb[j], 1, NULL, 0, &one, &no), 1);
            if (memcmp(&one, &all[j], sizeof one) != 0)
                fail_msg("case %d, neighbour %zu of %zu: batch (%a %a | %a "
                         "%a) one (%a %a | %a %a)",
                         it, j, n, all[j].point.x, all[j].point.y, all[j].dir.x,
                         all[j].dir.y, one.point.x, one.point.y, one.dir.x,
                         one.dir.y);
        }
    }
    assert_true(overlaps > cases / 2);
    assert_true(degenerate > cases / 10);
}

static void
test_wall_lines_match_model(void **state)
{
    (void)state;
    gc_orca_params p;
    gc_orca_params_default(&p);
    p.time_horizon_obst = 2.0f;
    int touching = 0;
    const int cases = gc_test_quick() ? 600 : 3000;
    for (int it = 0; it < cases; it++) {
        gc_orca_agent a = random_agent(0);
        gc_orca_segment s;
        s.a.x = (float)urand(-6, 6);
        s.a.y = (float)urand(-6, 6);
        if (it % 3 == 0) { /* axis-aligned, like cell edges */
            s.b = s.a;
            if (rng() & 1)
                s.b.x += (float)urand(-8, 8);
            else
                s.b.y += (float)urand(-8, 8);
        } else {
            s.b.x = (float)urand(-6, 6);
            s.b.y = (float)urand(-6, 6);
        }
        gc_orca_line l;
        size_t no;
        assert_int_equal(gc_orca_lines(&p, &a, NULL, 0, &s, 1, &l, &no), 1);
        assert_int_equal(no, 1);
        struct vo o = wall_vo(&p, &a, &s);
        double cx, cy;
        double nx = -l.dir.y, ny = l.dir.x;
        double off = nx * l.point.x + ny * l.point.y;
        if (wall_dist(&o, &cx, &cy) <= o.r) {
            touching++;
            hp h = wall_hp(&p, &a, &s);
            assert_true(fabs(off) < 1e-5);
            assert_true(nx * h.nx + ny * h.ny > 1 - 1e-4);
            continue;
        }
        double th;
        double f = fmin_dir(&o, &th);
        double scale = 1 + fabs(f);
        /* The line supports the obstacle at its normal ... */
        double h = support(&o, nx, ny);
        if (!(h < HUGE_VAL && fabs(h - off) < 2e-3 * scale))
            fail_msg("case %d: offset %.6f support %.6f", it, off, h);
        /* ... at the boundary point nearest the current velocity. */
        double fm = fval(&o, atan2(ny, nx));
        if (!(fabs(fm - f) < 2e-3 * scale))
            fail_msg("case %d: f at orca normal %.6f model min %.6f", it, fm,
                     f);
    }
    assert_true(touching > cases / 60);
}

/* nb[0 .. n) into out, those whose bodies overlap self's first, each
 * part in its order. */
static void
overlaps_first(const gc_orca_agent *self, const gc_orca_agent *nb, int n,
               gc_orca_agent *out)
{
    int o = 0;
    for (int pass = 0; pass < 2; pass++)
        for (int i = 0; i < n; i++) {
            gc_vec2 d = {nb[i].pos.x - self->pos.x, nb[i].pos.y - self->pos.y};
            float R = self->radius + nb[i].radius;
            if ((d.x * d.x + d.y * d.y > R * R) == pass)
                out[o++] = nb[i];
        }
}

/*
 * The whole solver against brute force over the model's half-planes, for
 * random neighbour sets: feasible whenever a sample is, and no farther
 * from pref than the best sample; when nothing is feasible, no worse a
 * largest violation than the best sample, and when the half-planes of the
 * bodies already overlapping can be satisfied together (a sample does),
 * they are held hard: satisfied, with the largest violation taken over
 * the others against the best sample that satisfies them.
 */
static void
test_velocity_against_brute_force(void **state)
{
    (void)state;
    gc_orca_params p;
    gc_orca_params_default(&p);
    const double step = gc_test_quick() ? 0.04 : 0.01, vmax = 2.0;
    int feasible = 0, infeasible = 0, hard_held = 0, hard_refused = 0;
    for (int it = 0; it < 160; it++) {
        gc_orca_agent self = random_agent(0);
        int n = 1 + (int)(rng() % 10);
        gc_orca_agent nb[10];
        hp h[10];
        double spread = it % 2 ? 4 : 9; /* crowded and sparse */
        for (int i = 0; i < n; i++) {
            nb[i] = random_agent(spread);
            h[i] = agent_hp(&p, &self, &nb[i], NULL);
        }
        gc_vec2 pref = {(float)urand(-1.5, 1.5), (float)urand(-1.5, 1.5)};
        gc_vec2 v;
        gc_orca_report rep;
        assert_int_equal(gc_orca_velocity(&p, &self, pref, (float)vmax, nb,
                                          (size_t)n, NULL, 0, &v, &rep),
                         0);
        assert_int_equal(rep.n_lines, n);
        assert_true(hypot(v.x, v.y) <= vmax + 1e-4);
        struct brute b = brute_solve(h, n, 0, pref.x, pref.y, vmax, step);
        double worst = 0;
        for (int i = 0; i < n; i++) {
            double s = -hp_slack(&h[i], v.x, v.y);
            worst = s > worst ? s : worst;
        }
        /* The overlaps' half-planes first: infeasible, they are hard when
         * they can be satisfied together. */
        hp ho[10];
        int n_ov = 0;
        for (int i = 0; i < n; i++)
            if (hypot(nb[i].pos.x - self.pos.x, nb[i].pos.y - self.pos.y) <=
                self.radius + nb[i].radius)
                ho[n_ov++] = h[i];
        for (int i = 0, k = n_ov; i < n; i++)
            if (hypot(nb[i].pos.x - self.pos.x, nb[i].pos.y - self.pos.y) >
                self.radius + nb[i].radius)
                ho[k++] = h[i];
        if (!b.feasible && n_ov > 0) {
            struct brute bh =
                brute_solve(ho, n_ov, 0, pref.x, pref.y, vmax, step);
            if (bh.feasible && rep.n_hard_lines != n_ov)
                fail_msg("case %d: brute force satisfies the %d overlaps at "
                         "(%.3f, %.3f), orca held %d lines hard",
                         it, n_ov, bh.vx, bh.vy, rep.n_hard_lines);
            if (rep.n_hard_lines == n_ov) {
                hard_held++;
                for (int i = 0; i < n_ov; i++)
                    if (-hp_slack(&ho[i], v.x, v.y) > 2e-3)
                        fail_msg("case %d: orca violates overlap %d by %.6f",
                                 it, i, -hp_slack(&ho[i], v.x, v.y));
                b = brute_solve(ho, n, n_ov, pref.x, pref.y, vmax, step);
                assert_false(b.feasible);
            }
        }
        if (!b.feasible && rep.n_hard_lines == 0 && n_ov > 0)
            hard_refused++;
        /* The public pieces give the same bits: infeasible, the
         * overlapping neighbours first and n_hard_lines held hard;
         * feasible, in the order given. */
        gc_orca_agent ord[10], first[10];
        overlaps_first(&self, nb, n, first);
        memcpy(ord, rep.feasible ? nb : first, (size_t)n * sizeof *ord);
        gc_orca_line lines[10];
        size_t n_obst;
        gc_vec2 w;
        assert_int_equal(
            gc_orca_lines(&p, &self, ord, (size_t)n, NULL, 0, lines, &n_obst),
            n);
        assert_int_equal(gc_orca_solve(lines, (size_t)n,
                                       (size_t)rep.n_hard_lines, pref,
                                       (float)vmax, &w, NULL),
                         0);
        assert_memory_equal(&w, &v, sizeof w);
        /* Given the overlapping neighbours first already (as the crowd
         * gives them), the solver takes the lines once: infeasible, the
         * same bits as above; feasible, the order given. */
        gc_vec2 vf;
        gc_orca_report rf;
        assert_int_equal(gc_orca_velocity(&p, &self, pref, (float)vmax, first,
                                          (size_t)n, NULL, 0, &vf, &rf),
                         0);
        assert_int_equal(rf.feasible, rep.feasible);
        if (!rep.feasible) {
            assert_memory_equal(&vf, &v, sizeof vf);
            assert_int_equal(rf.n_hard_lines, rep.n_hard_lines);
            assert_int_equal(rf.first_failed, rep.first_failed);
        } else {
            assert_int_equal(gc_orca_lines(&p, &self, first, (size_t)n, NULL, 0,
                                           lines, &n_obst),
                             n);
            assert_int_equal(
                gc_orca_solve(lines, (size_t)n, 0, pref, (float)vmax, &w, NULL),
                0);
            assert_memory_equal(&w, &vf, sizeof w);
        }
        if (b.feasible) {
            feasible++;
            if (!rep.feasible)
                fail_msg("case %d: brute force found (%.3f, %.3f), orca "
                         "reports infeasible",
                         it, b.vx, b.vy);
            if (worst > 2e-3)
                fail_msg("case %d: orca violates a model line by %.6f", it,
                         worst);
            double d = hypot(v.x - pref.x, v.y - pref.y);
            if (d > b.best + step * 1.5)
                fail_msg("case %d: orca %.5f from pref, brute force %.5f", it,
                         d, b.best);
        } else {
            infeasible++;
            if (worst > b.best + step * 2)
                fail_msg("case %d: orca's largest violation %.5f, brute "
                         "force %.5f",
                         it, worst, b.best);
        }
    }
    assert_true(feasible > 40);
    assert_true(infeasible > 10);
    print_message("# %d feasible, %d infeasible; overlaps held hard in %d, "
                  "infeasible together in %d\n",
                  feasible, infeasible, hard_held, hard_refused);
    assert_true(hard_held > 5); /* both ways of an infeasible crush */
    assert_true(hard_refused > 0);
}

/*
 * The adaptive horizon against its definition, built here from the
 * public pieces: the horizons tau * GC_ORCA_SHORTEN^j down to dt; with a
 * feasible program at time_horizon, gc_orca_velocity's answer to the bit;
 * else, when the shortest horizon's program is feasible, the answer at an
 * edge of the ladder (feasible there, infeasible one step longer; checked
 * against every horizon's own program); else the shortest's
 * least-violation answer, or, where a middle step is feasible after all,
 * its edge.  Searches with no hint and from random hints
 * (a crowd's agent passes last tick's step).  Crowds from sparse to
 * packed, with walls now and then.
 */
static void
test_velocity_adaptive(void **state)
{
    (void)state;
    gc_orca_params p;
    gc_orca_params_default(&p);
    int plain = 0, shortened = 0, hopeless = 0, hinted = 0, nonmono = 0;
    for (int it = 0; it < 3000; it++) {
        p.dt = it % 3 == 0 ? 1.0f / 60.0f : 0.25f;
        p.time_horizon = (float)urand(0.5, 10);
        p.time_horizon_obst = (float)urand(0.3, 3);
        gc_orca_agent self = random_agent(0);
        size_t n = 1 + rng() % 12, m = it % 4 == 0 ? rng() % 3 : 0;
        gc_orca_agent nb[12];
        gc_orca_segment sg[3];
        for (size_t i = 0; i < n; i++)
            nb[i] = random_agent(it % 3 == 0 ? 2 : (it % 3 == 1 ? 4 : 9));
        for (size_t i = 0; i < m; i++) {
            double ang = urand(0, 2 * M_PI), d = urand(2, 6);
            sg[i].a = (gc_vec2){(float)(d * cos(ang)), (float)(d * sin(ang))};
            sg[i].b = (gc_vec2){sg[i].a.x + (float)urand(-3, 3),
                                sg[i].a.y + (float)urand(-3, 3)};
        }
        gc_vec2 pref = {(float)urand(-1.5, 1.5), (float)urand(-1.5, 1.5)};
        float vmax = 2.0f;
        int step = it % 2 ? 0 : (int)(rng() % (GC_ORCA_SHORTEN_STEPS + 3));
        hinted += step > 0;
        gc_vec2 v;
        gc_orca_report rep;
        assert_int_equal(gc_orca_velocity_adaptive(&p, &self, pref, vmax, nb, n,
                                                   sg, m, &v, &rep, &step),
                         0);
        /* The ladder, and each horizon's own program. */
        float tau[GC_ORCA_SHORTEN_STEPS + 1] = {p.time_horizon};
        int last = 0;
        while (last < GC_ORCA_SHORTEN_STEPS &&
               tau[last] * GC_ORCA_SHORTEN >= p.dt) {
            tau[last + 1] = tau[last] * GC_ORCA_SHORTEN;
            last++;
        }
        gc_vec2 at[GC_ORCA_SHORTEN_STEPS + 1];
        gc_orca_report rat[GC_ORCA_SHORTEN_STEPS + 1];
        for (int j = 0; j <= last; j++) {
            gc_orca_params q = p;
            q.time_horizon = tau[j];
            assert_int_equal(gc_orca_velocity(&q, &self, pref, vmax, nb, n, sg,
                                              m, &at[j], &rat[j]),
                             0);
        }
        bool some = false; /* a step feasible, the shortest not */
        for (int j = 1; j < last; j++)
            some |= rat[j].feasible && !rat[last].feasible;
        nonmono += some;
        int want;
        if (rat[0].feasible) {
            want = 0;
            plain++;
        } else if (!rat[last].feasible && step == last) {
            /* (Feasibility need not grow down the ladder: searched from a
             * hint, a middle step's edge may be found instead.) */
            want = last;
            hopeless++;
        } else {
            /* An edge: feasible there, infeasible one step longer. */
            want = step;
            if (want < 1 || want > last)
                fail_msg("case %d: step %d is not on the ladder (1 to %d)", it,
                         step, last);
            if (!rat[want].feasible || rat[want - 1].feasible)
                fail_msg("case %d: step %d is not an edge of the feasible "
                         "horizons",
                         it, want);
            shortened++;
        }
        if (step != want || memcmp(&v, &at[want], sizeof v) != 0)
            fail_msg("case %d: (%.7g, %.7g) at step %d, want (%.7g, %.7g) "
                     "at step %d",
                     it, (double)v.x, (double)v.y, step, (double)at[want].x,
                     (double)at[want].y, want);
        assert_int_equal(rep.feasible, rat[want].feasible);
        assert_int_equal(rep.first_failed, rat[want].first_failed);
        assert_true(rep.max_violation == rat[want].max_violation);
        assert_true(hypot(v.x, v.y) <= vmax + 1e-4);
    }
    printf("# %d feasible as asked, %d with a shorter horizon, %d infeasible "
           "even at the shortest (%d of them with a longer one feasible); %d "
           "searched from a hint\n",
           plain, shortened, hopeless, nonmono, hinted);
    assert_true(plain > 300 && shortened > 300 && hopeless > 100);
    assert_true(nonmono > 0);
    assert_true(hinted > 1000);

    /* Bad arguments, as gc_orca_velocity's. */
    gc_orca_agent self = random_agent(0),
                  nb[2] = {random_agent(2), random_agent(2)};
    gc_vec2 v, pref = {1, 0};
    int step = 3;
    assert_int_equal(gc_orca_velocity_adaptive(&p, &self, pref, NAN, nb, 2,
                                               NULL, 0, &v, NULL, &step),
                     GC_EINVAL);
    assert_int_equal(gc_orca_velocity_adaptive(&p, &self, pref, 1.0f, nb, 2,
                                               NULL, 0, NULL, NULL, &step),
                     GC_EINVAL);
    assert_int_equal(gc_orca_velocity_adaptive(&p, &self, pref, 1.0f, nb,
                                               GC_ORCA_MAX_NEIGHBOURS + 1, NULL,
                                               0, &v, NULL, &step),
                     GC_EINVAL);
    assert_int_equal(step, 3); /* untouched on an error */
}

/*
 * The answer against the agents themselves: if every neighbour takes the
 * mirror change of velocity (half the avoidance each), no pair collides
 * within the time horizon.  Independent of any half-plane.
 */
static void
test_velocity_avoids_reciprocally(void **state)
{
    (void)state;
    gc_orca_params p;
    gc_orca_params_default(&p);
    int checked = 0;
    for (int it = 0; it < 2000; it++) {
        gc_orca_agent a = random_agent(0), b = random_agent(8);
        double px = b.pos.x - a.pos.x, py = b.pos.y - a.pos.y;
        double R = a.radius + b.radius;
        if (px * px + py * py <= R * R)
            continue;
        gc_vec2 pref = {(float)urand(-1.5, 1.5), (float)urand(-1.5, 1.5)};
        gc_vec2 v;
        gc_orca_report rep;
        assert_int_equal(
            gc_orca_velocity(&p, &a, pref, 4.0f, &b, 1, NULL, 0, &v, &rep), 0);
        if (!rep.feasible)
            continue;
        /* B changes by -(v - va): relative velocity 2v - va - vb. */
        double wx = 2.0 * v.x - a.vel.x - b.vel.x;
        double wy = 2.0 * v.y - a.vel.y - b.vel.y;
        double ww = wx * wx + wy * wy;
        double t = ww > 0 ? (px * wx + py * wy) / ww : 0;
        t = t < 0 ? 0 : t > p.time_horizon ? p.time_horizon : t;
        double dx = px - t * wx, dy = py - t * wy;
        if (sqrt(dx * dx + dy * dy) < R - 1e-3)
            fail_msg("case %d: closest approach %.5f < %.5f at t %.3f", it,
                     sqrt(dx * dx + dy * dy), R, t);
        checked++;
    }
    assert_true(checked > 1000);
}

/*
 * What the solver reports holds: when feasible, every line it built is
 * satisfied; when not, the wall lines still are (when the walls alone
 * leave room), the reported largest violation is the true one, and no
 * sampled velocity does better.
 */
static void
test_report_is_true(void **state)
{
    (void)state;
    gc_orca_params p;
    gc_orca_params_default(&p);
    p.time_horizon_obst = 2.0f;
    int feasible = 0, infeasible = 0;
    for (int it = 0; it < 150; it++) {
        gc_orca_agent self = random_agent(0);
        self.pos.x = self.pos.y = 0;
        size_t n = 1 + rng() % 12, m = rng() % 3;
        gc_orca_agent nb[12];
        gc_orca_segment sg[3];
        for (size_t i = 0; i < n; i++)
            nb[i] = random_agent(it % 2 ? 4 : 10);
        for (size_t i = 0; i < m; i++) {
            /* walls kept clear of the agent so they leave room */
            double ang = urand(0, 2 * M_PI), d = urand(3, 8);
            double cx = d * cos(ang), cy = d * sin(ang);
            double len = urand(1, 6);
            sg[i].a.x = (float)(cx - len * sin(ang));
            sg[i].a.y = (float)(cy + len * cos(ang));
            sg[i].b.x = (float)(cx + len * sin(ang));
            sg[i].b.y = (float)(cy - len * cos(ang));
        }
        gc_orca_line lines[GC_ORCA_MAX_LINES];
        size_t no;
        int k = gc_orca_lines(&p, &self, nb, n, sg, m, lines, &no);
        assert_true(k >= (int)n);
        assert_true(no <= m);
        gc_vec2 pref = {(float)urand(-1.5, 1.5), (float)urand(-1.5, 1.5)};
        gc_vec2 v;
        gc_orca_report rep;
        assert_int_equal(
            gc_orca_solve(lines, (size_t)k, no, pref, 2.0f, &v, &rep), 0);
        assert_int_equal(rep.n_lines, k);
        assert_int_equal(rep.n_obstacle_lines, (int)no);
        double worst = 0, hard = 0;
        for (int i = 0; i < k; i++) {
            double s = -line_slack(&lines[i], v.x, v.y);
            worst = s > worst ? s : worst;
            if (i < (int)no)
                hard = s > hard ? s : hard;
        }
        assert_true(fabs(worst - rep.max_violation) < 1e-4);
        if (rep.feasible) {
            feasible++;
            assert_int_equal(rep.first_failed, k);
            if (worst > 1e-4)
                fail_msg("case %d: reported feasible, violation %.6f", it,
                         worst);
            continue;
        }
        infeasible++;
        assert_true(rep.first_failed < k);
        hp h[GC_ORCA_MAX_LINES];
        lines_hp(lines, k, h);
        struct brute b = brute_solve(h, k, (int)no, pref.x, pref.y, 2.0, 0.01);
        assert_false(b.feasible);
        if (b.best < HUGE_VAL) { /* walls leave room */
            if (hard > 1e-4)
                fail_msg("case %d: a wall line is violated by %.6f", it, hard);
            if (worst > b.best + 0.02)
                fail_msg("case %d: violation %.5f, brute force %.5f", it, worst,
                         b.best);
        }
    }
    assert_true(feasible > 20);
    assert_true(infeasible > 20);
}

/*
 * Squeezed between two: two lines a hair from antiparallel whose permitted
 * sides do not meet (an agent overlapped from opposite sides), among a few
 * others.  Their bisector meets them thousands of units out, and an
 * infeasible program built on that point answered up to 4 times the top
 * speed (circle 10,000: a body then ran into its neighbour, 13% of 2r
 * deep).  The answer must stay within the speed disc, and its largest
 * violation must be no worse than the best of a dense grid of velocities.
 * The angle between the two sweeps from below EPS (taken as parallel) to
 * a hundredth of a radian.
 */
static void
test_infeasible_near_antiparallel(void **state)
{
    (void)state;
    const double step = gc_test_quick() ? 0.02 : 0.005;
    int cases = 0;
    for (int it = 0; it < 120; it++) {
        double ang =
            pow(10.0, -6.5 + 4.5 * (it % 40) / 39.0) * (it % 2 ? 1 : -1);
        double tilt = urand(-M_PI, M_PI), gap = urand(0.2, 0.8);
        double mid = urand(-0.6, 0.6);
        /* In a frame turned by tilt: line 0 wants y >= mid + gap / 2
         * along +x, line 1 wants y <= mid - gap / 2 along -x, turned by
         * ang against it. */
        double c = cos(tilt), sn = sin(tilt);
        gc_orca_line lines[8];
        double y0 = mid + gap / 2, y1 = mid - gap / 2;
        lines[0].point = (gc_vec2){(float)(-sn * y0), (float)(c * y0)};
        lines[0].dir = (gc_vec2){(float)c, (float)sn};
        lines[1].point = (gc_vec2){(float)(-sn * y1), (float)(c * y1)};
        lines[1].dir =
            (gc_vec2){(float)-cos(tilt + ang), (float)-sin(tilt + ang)};
        int k = 2 + (int)(rng() % 4);
        for (int i = 2; i < k; i++) {
            double a = urand(0, 2 * M_PI), o = urand(-0.9, 0.5);
            lines[i].point =
                (gc_vec2){(float)(o * cos(a)), (float)(o * sin(a))};
            lines[i].dir = (gc_vec2){(float)-sin(a), (float)cos(a)};
        }
        gc_vec2 pref = {(float)urand(-1, 1), (float)urand(-1, 1)}, v;
        gc_orca_report rep;
        assert_int_equal(
            gc_orca_solve(lines, (size_t)k, 0, pref, 1.0f, &v, &rep), 0);
        if (hypot(v.x, v.y) > 1.0 + 1e-4)
            fail_msg("case %d (angle %.3g): answer (%.4f, %.4f) outside the "
                     "speed disc",
                     it, ang, v.x, v.y);
        assert_false(rep.feasible);
        hp h[8];
        lines_hp(lines, k, h);
        struct brute b = brute_solve(h, k, 0, pref.x, pref.y, 1.0, step);
        assert_false(b.feasible);
        if (rep.max_violation > b.best + 2 * step)
            fail_msg("case %d (angle %.3g): violation %.5f, brute force %.5f",
                     it, ang, rep.max_violation, b.best);
        cases++;
    }
    assert_int_equal(cases, 120);

    /* The agent of circle 10,000 that ran at 4 m/s (top speed 1),
     * squeezed between neighbours 1 and 2. */
    gc_orca_params p;
    gc_orca_params_default(&p);
    p.time_horizon = 10.0f;
    p.time_horizon_obst = 1.5f;
    p.dt = 0.25f;
    p.max_speed = 1.0f;
    const float rr = 0x1.a66668p+0f;
    gc_orca_agent self = {
        {0x1.7d0596p+8f, 0x1.21f58ap+8f}, {-0x1.297p-1f, 0x1.26ap-1f}, rr};
    const float nbv[10][4] = {
        {0x1.7fc24ap+8f, 0x1.237b0cp+8f, -0x1.108p-1f, 0x1.ba6p-2f},
        {0x1.7ce836p+8f, 0x1.1ecf58p+8f, -0x1.71p-3f, 0x1.2c2p-1f},
        {0x1.7cfbep+8f, 0x1.2521bcp+8f, -0x1.7acp-2f, 0x1.28fp-1f},
        {0x1.7a248ap+8f, 0x1.23a94ap+8f, -0x1.bfep-2f, 0x1.1e6p-1f},
        {0x1.7fdf74p+8f, 0x1.1fd6c8p+8f, -0x1.bp-8f, 0x1.2ap-4f},
        {0x1.7862a8p+8f, 0x1.2103fep+8f, -0x1.614p-2f, 0x1.0dap-1f},
        {0x1.799708p+8f, 0x1.1e149cp+8f, -0x1.37p-2f, 0x1.21ep-1f},
        {0x1.82573cp+8f, 0x1.21c042p+8f, -0x1.b9cp-2f, 0x1.467p-1f},
        {0x1.7fd6cep+8f, 0x1.2699f2p+8f, -0x1.79cp-3f, 0x1.898p-2f},
        {0x1.7f31b8p+8f, 0x1.1c869ep+8f, -0x1.e54p-2f, 0x1.214p-2f}};
    gc_orca_agent nb[10];
    for (int i = 0; i < 10; i++)
        nb[i] =
            (gc_orca_agent){{nbv[i][0], nbv[i][1]}, {nbv[i][2], nbv[i][3]}, rr};
    gc_orca_line lines[GC_ORCA_MAX_LINES];
    size_t no;
    int k = gc_orca_lines(&p, &self, nb, 10, NULL, 0, lines, &no);
    assert_int_equal(k, 10);
    gc_vec2 pref = {-0x1.ee868ap-2f, 0x1.c056p-1f}, v;
    gc_orca_report rep;
    assert_int_equal(gc_orca_solve(lines, 10, 0, pref, 1.0f, &v, &rep), 0);
    assert_false(rep.feasible);
    if (hypot(v.x, v.y) > 1.0 + 1e-4)
        fail_msg("circle 10,000's agent: answer (%.4f, %.4f) outside the "
                 "speed disc",
                 v.x, v.y);
    hp h[10];
    lines_hp(lines, 10, h);
    struct brute b = brute_solve(h, 10, 0, pref.x, pref.y, 1.0, step);
    if (rep.max_violation > b.best + 2 * step)
        fail_msg("circle 10,000's agent: violation %.5f, brute force %.5f",
                 rep.max_violation, b.best);
}

/* A velocity that enters a wall's obstacle: does moving at v for the
 * horizon come within r of the segment? */
static double
wall_clearance(const gc_orca_params *p, const gc_orca_agent *a,
               const gc_orca_segment *s, gc_vec2 v)
{
    double best = HUGE_VAL;
    for (int i = 0; i <= 400; i++) {
        double t = p->time_horizon_obst * i / 400.0;
        gc_orca_agent moved = *a;
        moved.pos.x = (float)(a->pos.x + t * v.x);
        moved.pos.y = (float)(a->pos.y + t * v.y);
        struct vo o = wall_vo(p, &moved, s);
        double cx, cy, d = wall_dist(&o, &cx, &cy);
        best = d < best ? d : best;
    }
    return best;
}

static void
test_velocity_clears_walls(void **state)
{
    (void)state;
    gc_orca_params p;
    gc_orca_params_default(&p);
    p.time_horizon_obst = 2.0f;
    int checked = 0;
    for (int it = 0; it < 400; it++) {
        gc_orca_agent self = random_agent(0);
        self.pos.x = self.pos.y = 0;
        gc_orca_segment sg[4];
        size_t m = 1 + rng() % 4;
        for (size_t i = 0; i < m; i++) {
            do {
                sg[i].a.x = (float)urand(-6, 6);
                sg[i].a.y = (float)urand(-6, 6);
                sg[i].b.x = (float)urand(-6, 6);
                sg[i].b.y = (float)urand(-6, 6);
                struct vo o = wall_vo(&p, &self, &sg[i]);
                double cx, cy;
                if (wall_dist(&o, &cx, &cy) > self.radius * 1.2)
                    break;
            } while (1);
        }
        gc_vec2 pref = {(float)urand(-2, 2), (float)urand(-2, 2)};
        gc_vec2 v;
        gc_orca_report rep;
        assert_int_equal(
            gc_orca_velocity(&p, &self, pref, 2.0f, NULL, 0, sg, m, &v, &rep),
            0);
        if (!rep.feasible)
            continue;
        for (size_t i = 0; i < m; i++) {
            double c = wall_clearance(&p, &self, &sg[i], v);
            if (c < self.radius - 1e-3)
                fail_msg("case %d: wall %zu comes within %.5f < %.5f", it, i, c,
                         (double)self.radius);
        }
        checked++;
    }
    assert_true(checked > 300);
}

static void
test_invalid_arguments(void **state)
{
    (void)state;
    gc_orca_params p;
    gc_orca_params_default(&p);
    gc_orca_agent a = {{0, 0}, {0, 0}, 1}, nb[GC_ORCA_MAX_NEIGHBOURS + 1];
    memset(nb, 0, sizeof nb);
    gc_vec2 v, pref = {1, 0};
    assert_int_equal(gc_orca_velocity(&p, &a, pref, 1, nb,
                                      GC_ORCA_MAX_NEIGHBOURS + 1, NULL, 0, &v,
                                      NULL),
                     GC_EINVAL);
    gc_orca_params bad = p;
    bad.dt = 0;
    assert_int_equal(
        gc_orca_velocity(&bad, &a, pref, 1, NULL, 0, NULL, 0, &v, NULL),
        GC_EINVAL);
    bad = p;
    bad.max_neighbours = GC_ORCA_MAX_NEIGHBOURS + 1;
    assert_int_equal(
        gc_orca_velocity(&bad, &a, pref, 1, NULL, 0, NULL, 0, &v, NULL),
        GC_EINVAL);
    assert_int_equal(
        gc_orca_velocity(&p, &a, pref, NAN, NULL, 0, NULL, 0, &v, NULL),
        GC_EINVAL);
    /* No neighbours: pref, clipped to the speed limit. */
    pref.x = 3;
    assert_int_equal(
        gc_orca_velocity(&p, &a, pref, 2, NULL, 0, NULL, 0, &v, NULL), 0);
    assert_true(fabsf(v.x - 2) < 1e-6f && v.y == 0);

    gc_orca_grid *g;
    assert_int_equal(gc_orca_grid_new(&g), 0);
    float x[2] = {0, NAN}, y[2] = {0, 0};
    assert_int_equal(gc_orca_grid_build(g, x, y, 2, 1), GC_EINVAL);
    assert_int_equal(gc_orca_grid_build(g, x, y, 1, 0), GC_EINVAL);
    assert_int_equal(gc_orca_grid_build(g, x, y, 1, 1), 0);
    gc_orca_state s = {0};
    float out[2];
    s.n = 2;
    assert_int_equal(gc_orca_step(&p, g, &s, NULL, NULL, 0, 2, out, out + 1),
                     GC_EINVAL);
    gc_orca_grid_free(g);
}

/* ---- small simulations -------------------------------------------------- */

struct sim {
    gc_orca_params p;
    int n;
    float px[8], py[8], vx[8], vy[8], gx[8], gy[8], nvx[8], nvy[8];
    float prefx[8], prefy[8];
    const gc_orca_segment *walls;
    size_t nwalls;
};

static size_t
sim_walls(void *ctx, gc_vec2 pos, float range, gc_orca_segment *buf, size_t cap)
{
    const struct sim *s = ctx;
    size_t k = 0;
    for (size_t i = 0; i < s->nwalls && k < cap; i++)
        buf[k++] = s->walls[i];
    (void)pos;
    (void)range;
    return k;
}

static void
sim_run(struct sim *s, int steps, double *min_gap, double *min_wall,
        int *arrived)
{
    gc_orca_grid *g;
    assert_int_equal(gc_orca_grid_new(&g), 0);
    *min_gap = HUGE_VAL;
    *min_wall = HUGE_VAL;
    float dt = s->p.dt;
    for (int t = 0; t < steps; t++) {
        for (int i = 0; i < s->n; i++) {
            float dx = s->gx[i] - s->px[i], dy = s->gy[i] - s->py[i];
            float d = sqrtf(dx * dx + dy * dy);
            float sp = fminf(1.0f, d / dt);
            s->prefx[i] = d > 0 ? dx / d * sp : 0;
            s->prefy[i] = d > 0 ? dy / d * sp : 0;
        }
        assert_int_equal(
            gc_orca_grid_build(g, s->px, s->py, (size_t)s->n, 7.5f), 0);
        gc_orca_state st = {(size_t)s->n, s->px,    s->py, s->vx, s->vy,
                            s->prefx,     s->prefy, NULL,  NULL};
        assert_int_equal(gc_orca_step(&s->p, g, &st,
                                      s->nwalls ? sim_walls : NULL, s, 0,
                                      (size_t)s->n, s->nvx, s->nvy),
                         0);
        for (int i = 0; i < s->n; i++) {
            s->vx[i] = s->nvx[i];
            s->vy[i] = s->nvy[i];
            s->px[i] += s->vx[i] * dt;
            s->py[i] += s->vy[i] * dt;
        }
        for (int i = 0; i < s->n; i++) {
            for (int j = i + 1; j < s->n; j++) {
                double d = hypot(s->px[i] - s->px[j], s->py[i] - s->py[j]);
                *min_gap = fmin(*min_gap, d - 2 * s->p.radius);
            }
            for (size_t w = 0; w < s->nwalls; w++) {
                gc_orca_agent a = {{s->px[i], s->py[i]}, {0, 0}, s->p.radius};
                struct vo o = wall_vo(&s->p, &a, &s->walls[w]);
                double cx, cy;
                *min_wall =
                    fmin(*min_wall, wall_dist(&o, &cx, &cy) - s->p.radius);
            }
        }
    }
    *arrived = 0;
    for (int i = 0; i < s->n; i++)
        *arrived += hypot(s->gx[i] - s->px[i], s->gy[i] - s->py[i]) < 0.5;
    gc_orca_grid_free(g);
}

static void
test_head_on_pass(void **state)
{
    (void)state;
    struct sim s = {0};
    gc_orca_params_default(&s.p);
    s.p.radius = 0.5f;
    s.n = 2;
    s.px[0] = -10;
    s.gx[0] = 10;
    s.px[1] = 10;
    s.gx[1] = -10;
    double gap, wall;
    int arrived;
    sim_run(&s, 200, &gap, &wall, &arrived);
    assert_true(gap >= -1e-4);
    assert_int_equal(arrived, 2);
}

static void
test_four_cross(void **state)
{
    (void)state;
    struct sim s = {0};
    gc_orca_params_default(&s.p);
    s.p.radius = 0.5f;
    s.n = 4;
    /* Diagonals of an X, starts at slightly different distances: an
     * exactly symmetric four-way crossing is an equilibrium of ORCA (each
     * agent's answer is pinned by the other three; RVO2 stalls the same
     * way), which the tie-free starts of a real crowd never are. */
    const float c[4][2] = {
        {-6, -6}, {6.4f, 6.4f}, {6.2f, -6.2f}, {-6.6f, 6.6f}};
    for (int i = 0; i < 4; i++) {
        s.px[i] = c[i][0];
        s.py[i] = c[i][1];
        s.gx[i] = -c[i][0];
        s.gy[i] = -c[i][1];
    }
    double gap, wall;
    int arrived;
    sim_run(&s, 400, &gap, &wall, &arrived);
    assert_true(gap >= -1e-4);
    assert_int_equal(arrived, 4);
}

static void
test_wall_never_penetrated(void **state)
{
    (void)state;
    /* Straight at a wall, obliquely, at its end, and into a corner. */
    const gc_orca_segment walls[3] = {
        {{-5, 5}, {5, 5}}, {{5, 5}, {5, -5}}, {{-12, -3}, {-12, 3}}};
    const float starts[5][4] = {{0, 0, 0, 12},
                                {-3, 0, 8, 10},
                                {4.5f, 0, 4.5f, 12},
                                {0, 0, 9, 9},
                                {-6, 0, -20, 0}};
    for (int k = 0; k < 5; k++) {
        struct sim s = {0};
        gc_orca_params_default(&s.p);
        s.p.radius = 0.5f;
        s.p.time_horizon_obst = 2.0f;
        s.n = 1;
        s.px[0] = starts[k][0];
        s.py[0] = starts[k][1];
        s.gx[0] = starts[k][2];
        s.gy[0] = starts[k][3];
        s.walls = walls;
        s.nwalls = 3;
        double gap, wall;
        int arrived;
        sim_run(&s, 300, &gap, &wall, &arrived);
        if (wall < -1e-4)
            fail_msg("start %d: penetrated the wall by %.5f", k, -wall);
        /* It came up against the wall (to 0 in every case): one that
         * stood still would never penetrate it either. */
        if (wall > 1e-3)
            fail_msg("start %d: never reached the wall, %.5f off", k, wall);
    }
}

/* ---- the index ---------------------------------------------------------- */

static void
test_grid_nearest_against_sort(void **state)
{
    (void)state;
    gc_orca_grid *g;
    assert_int_equal(gc_orca_grid_new(&g), 0);
    enum { N = 2000 };
    static float x[N], y[N];
    for (int round = 0; round < 6; round++) {
        size_t n = round == 0 ? 1 : (size_t)(N / (6 - round));
        double side = round % 2 ? 60 : 400;
        for (size_t i = 0; i < n; i++) {
            /* integer coordinates in half the rounds: many distance ties */
            x[i] = (float)(round % 3 == 0 ? floor(urand(0, side / 4))
                                          : urand(0, side));
            y[i] = (float)(round % 3 == 0 ? floor(urand(0, side / 4))
                                          : urand(0, side));
        }
        float cell = round < 3 ? 7.5f : 2.0f + round;
        assert_int_equal(gc_orca_grid_build(g, x, y, n, cell), 0);
        for (int q = 0; q < 300; q++) {
            size_t self = q % 3 ? rng() % n : SIZE_MAX;
            gc_vec2 at = {self < n ? x[self] : (float)urand(-20, side + 20),
                          self < n ? y[self] : (float)urand(-20, side + 20)};
            /* Up to 64 in some: the candidate list is cut many times. */
            size_t k = q % 5 == 0 ? 40 + rng() % 25 : 1 + rng() % 16;
            float dist = (float)urand(1, 30);
            if (q % 7 == 0)
                dist = 5; /* integer ties at exactly the range: excluded */
            uint32_t ids[64], want[64];
            float d2[64], wd[64];
            size_t got = gc_orca_grid_nearest(g, at, self, k, dist, ids, d2);
            size_t cnt =
                brute_nearest(x, y, n, self, at, k, dist, INFINITY, want, wd);
            assert_int_equal(got, cnt);
            for (size_t i = 0; i < cnt; i++) {
                assert_int_equal(ids[i], want[i]);
                assert_true(d2[i] == wd[i]);
            }
            /* With a hint: the same answer from any hint at or above the
             * k-th distance (when there are k), and from a smaller one
             * exactly those within it. */
            float hints[4] = {INFINITY, cnt == k ? wd[k - 1] : INFINITY,
                              cnt == k ? wd[k - 1] * (float)urand(1, 3)
                                       : INFINITY,
                              cnt > 1 ? wd[rng() % (cnt - 1)] : -1.0f};
            for (int h = 0; h < 4; h++) {
                size_t in = 0;
                while (in < cnt && wd[in] <= hints[h])
                    in++;
                got = gc_orca_grid_nearest_hint(g, at, self, k, dist, hints[h],
                                                ids, d2);
                assert_int_equal(got, in);
                for (size_t i = 0; i < in; i++) {
                    assert_int_equal(ids[i], want[i]);
                    assert_true(d2[i] == wd[i]);
                }
            }
        }
    }
    /* Scattered points: buckets widen rather than grow without bound. */
    x[0] = -1e6f;
    y[0] = -1e6f;
    x[1] = 1e6f;
    y[1] = 1e6f;
    assert_int_equal(gc_orca_grid_build(g, x, y, 2, 0.5f), 0);
    uint32_t id;
    gc_vec2 q = {1e6f, 1e6f};
    assert_int_equal(gc_orca_grid_nearest(g, q, SIZE_MAX, 1, 1, &id, NULL), 1);
    assert_int_equal(id, 1);
    assert_int_equal(gc_orca_grid_build(g, x, y, 0, 1), 0);
    assert_int_equal(gc_orca_grid_nearest(g, q, SIZE_MAX, 1, 1, &id, NULL), 0);
    gc_orca_grid_free(g);
}

/* ---- the step, split across threads ------------------------------------- */

struct crowd {
    gc_orca_params p;
    gc_orca_grid *g;
    gc_orca_state s;
    float *out_x, *out_y;
    size_t begin, end;
};

static size_t
crowd_walls(void *ctx, gc_vec2 pos, float range, gc_orca_segment *buf,
            size_t cap)
{
    /* walls: the edges of the cells x = 10 * i, y in [0, 1], read-only */
    (void)ctx;
    size_t k = 0;
    for (int i = -6; i <= 6 && k < cap; i++) {
        gc_orca_segment s = {{10.0f * i, 0}, {10.0f * i + 1, 0}};
        if (fabsf(pos.x - 10.0f * i) < range && fabsf(pos.y) < range)
            buf[k++] = s;
    }
    return k;
}

static void *
crowd_thread(void *arg)
{
    struct crowd *c = arg;
    int r = gc_orca_step(&c->p, c->g, &c->s, crowd_walls, NULL, c->begin,
                         c->end, c->out_x, c->out_y);
    return (void *)(intptr_t)r;
}

static void
test_step_split_same_bits(void **state)
{
    (void)state;
    enum { N = 900 };
    static float px[N], py[N], vx[N], vy[N], fx[N], fy[N], rad[N];
    static float one_x[N], one_y[N], two_x[N], two_y[N];
    for (int i = 0; i < N; i++) {
        px[i] = (float)urand(-60, 60);
        py[i] = (float)urand(-60, 60);
        vx[i] = (float)urand(-1, 1);
        vy[i] = (float)urand(-1, 1);
        fx[i] = (float)urand(-1, 1);
        fy[i] = (float)urand(-1, 1);
        rad[i] = (float)urand(0.3, 1);
    }
    struct crowd c = {0};
    gc_orca_params_default(&c.p);
    assert_int_equal(gc_orca_grid_new(&c.g), 0);
    assert_int_equal(gc_orca_grid_build(c.g, px, py, N, 7.5f), 0);
    gc_orca_state s = {N, px, py, vx, vy, fx, fy, rad, NULL};
    c.s = s;
    assert_int_equal(
        gc_orca_step(&c.p, c.g, &s, crowd_walls, NULL, 0, N, one_x, one_y), 0);
    for (size_t split = 1; split < N; split += 337) {
        struct crowd a = c, b = c;
        a.begin = 0;
        a.end = split;
        b.begin = split;
        b.end = N;
        a.out_x = b.out_x = two_x;
        a.out_y = b.out_y = two_y;
        memset(two_x, 0xff, sizeof two_x);
        memset(two_y, 0xff, sizeof two_y);
        pthread_t ta, tb;
        assert_int_equal(pthread_create(&ta, NULL, crowd_thread, &a), 0);
        assert_int_equal(pthread_create(&tb, NULL, crowd_thread, &b), 0);
        void *ra, *rb;
        assert_int_equal(pthread_join(ta, &ra), 0);
        assert_int_equal(pthread_join(tb, &rb), 0);
        assert_int_equal((intptr_t)ra, 0);
        assert_int_equal((intptr_t)rb, 0);
        assert_memory_equal(one_x, two_x, sizeof one_x);
        assert_memory_equal(one_y, two_y, sizeof one_y);
    }
    /* inputs untouched */
    gc_orca_grid_free(c.g);
}

/* The squared distance from p to segment s, as gc_orca_lines sorts by it
 * (the reference below). */
static float
seg_dist2(gc_vec2 p, const gc_orca_segment *s)
{
    float ax = s->a.x - p.x, ay = s->a.y - p.y;
    float abx = s->b.x - s->a.x, aby = s->b.y - s->a.y;
    float l2 = abx * abx + aby * aby;
    float t = 0;
    if (l2 > 0) {
        t = -(ax * abx + ay * aby) / l2;
        t = t > 0.0f ? t : 0.0f;
        t = t < 1.0f ? t : 1.0f;
    }
    float cx = ax + t * abx, cy = ay + t * aby;
    return cx * cx + cy * cy;
}

/* The wall lines are taken nearest segment first, ties by index: a
 * set's lines are those of the documented rule applied here in the
 * order a plain insertion sort gives (each segment's own line, unless a
 * line taken before covers its capsule), bit for bit.  Segments on a
 * coarse lattice, from 1 to 64 of them, half the sets in mirror pairs
 * about the agent (exact ties whose lines differ); walls' lines cover
 * others. */
static void
test_wall_order_nearest_first(void **state)
{
    (void)state;
    gc_orca_params p;
    gc_orca_params_default(&p);
    p.time_horizon_obst = 2.0f;
    int ties = 0, covered = 0;
    uint64_t keep = rng_state; /* the later tests' draws stay theirs */
    for (int it = 0; it < 4000; it++) {
        size_t m = 1 + rng() % (it % 4 == 0 ? GC_ORCA_MAX_SEGMENTS : 12);
        gc_orca_segment seg[GC_ORCA_MAX_SEGMENTS], sorted[GC_ORCA_MAX_SEGMENTS];
        for (size_t i = 0; i < m; i++) {
            float x = (float)((int)(rng() % 9) - 4), y = (float)((int)(rng() % 9) - 4);
            float len = (float)(1 + rng() % 3);
            seg[i].a = (gc_vec2){x, y};
            seg[i].b = rng() % 2 ? (gc_vec2){x + len, y} : (gc_vec2){x, y + len};
        }
        gc_orca_agent self = {{(float)urand(-0.4, 0.4), (float)urand(-0.4, 0.4)},
                              {(float)urand(-1, 1), (float)urand(-1, 1)},
                              0.3f};
        if (it % 2) {
            /* At the origin, with segments in mirror pairs (x to -x):
             * each pair ties, and their lines differ. */
            self.pos = (gc_vec2){0.0f, 0.0f};
            for (size_t i = 1; i < m; i += 2) {
                seg[i].a = (gc_vec2){-seg[i - 1].a.x, seg[i - 1].a.y};
                seg[i].b = (gc_vec2){-seg[i - 1].b.x, seg[i - 1].b.y};
            }
        }
        /* The reference: a stable insertion sort by distance. */
        float d[GC_ORCA_MAX_SEGMENTS];
        for (size_t i = 0; i < m; i++) {
            float di = seg_dist2(self.pos, &seg[i]);
            size_t j = i;
            while (j > 0 && d[j - 1] > di) {
                d[j] = d[j - 1];
                sorted[j] = sorted[j - 1];
                j--;
            }
            ties += j > 0 && d[j - 1] == di;
            d[j] = di;
            sorted[j] = seg[i];
        }
        /* Then the documented rule in that order: a segment whose
         * scaled capsule lies wholly on the forbidden side of a line
         * already taken is covered; any other adds its own line (its
         * line alone, which no order can change). */
        gc_orca_line got[GC_ORCA_MAX_LINES], want[GC_ORCA_MAX_LINES];
        size_t nw = 0, ng;
        float inv = 1.0f / p.time_horizon_obst, rho = self.radius * inv;
        for (size_t i = 0; i < m; i++) {
            gc_vec2 A = {inv * (sorted[i].a.x - self.pos.x),
                         inv * (sorted[i].a.y - self.pos.y)};
            gc_vec2 B = {inv * (sorted[i].b.x - self.pos.x),
                         inv * (sorted[i].b.y - self.pos.y)};
            bool cov = false;
            for (size_t j = 0; j < nw && !cov; j++) {
                const gc_orca_line *l = &want[j];
                float sa = l->dir.x * (A.y - l->point.y) -
                           l->dir.y * (A.x - l->point.x);
                float sb = l->dir.x * (B.y - l->point.y) -
                           l->dir.y * (B.x - l->point.x);
                cov = sa <= -rho + 1e-5f && sb <= -rho + 1e-5f;
            }
            size_t one;
            if (!cov)
                nw += (size_t)gc_orca_lines(&p, &self, NULL, 0, &sorted[i], 1,
                                            &want[nw], &one);
        }
        int kg = gc_orca_lines(&p, &self, NULL, 0, seg, m, got, &ng);
        assert_int_equal(kg, (int)nw);
        assert_int_equal(ng, nw);
        if (memcmp(got, want, nw * sizeof *got) != 0)
            fail_msg("case %d: %zu segments, the wall lines differ from the "
                     "nearest-first order's", it, m);
        covered += nw < m;
    }
    printf("# 4000 sets: %d ties in distance, %d with covered segments\n",
           ties, covered);
    rng_state = keep;
    assert_true(ties > 1000);
    assert_true(covered > 1000);
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_agent_lines_match_model),
        cmocka_unit_test(test_agent_lines_batch_bitwise),
        cmocka_unit_test(test_wall_lines_match_model),
        cmocka_unit_test(test_wall_order_nearest_first),
        cmocka_unit_test(test_velocity_against_brute_force),
        cmocka_unit_test(test_velocity_adaptive),
        cmocka_unit_test(test_velocity_avoids_reciprocally),
        cmocka_unit_test(test_report_is_true),
        cmocka_unit_test(test_infeasible_near_antiparallel),
        cmocka_unit_test(test_velocity_clears_walls),
        cmocka_unit_test(test_invalid_arguments),
        cmocka_unit_test(test_head_on_pass),
        cmocka_unit_test(test_four_cross),
        cmocka_unit_test(test_wall_never_penetrated),
        cmocka_unit_test(test_grid_nearest_against_sort),
        cmocka_unit_test(test_step_split_same_bits),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
