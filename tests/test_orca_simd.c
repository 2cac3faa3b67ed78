/*
 * test_orca_simd.c: ORCA's vector paths (the neighbours' half-planes
 * four or eight at a time, agent_lines4 and agent_lines8 in src/orca.c;
 * the crowd's linear programs, four, eight or sixteen agents' in lanes,
 * gc_orca_programs_solve in src/orca-solve.c; the walls' lines of a
 * batch of programs, four or eight segments in lanes,
 * gc_orca_programs_lines in src/orca.c) against the scalar code they
 * replace, to the bit, inside whole steps; and the index's queries,
 * which scan one, eight or sixteen agents at a time (src/orca-index.c),
 * against brute force at every width.
 *
 * This file builds src/orca.c and src/orca-solve.c a second time with
 * GC_ORCA_SCALAR, which leaves only the scalar code, its public
 * functions renamed scalar_*, and calls both that build and the
 * library's on the same random input:
 * every velocity and every report must be equal bit for bit.  So the
 * SIMD path is held to the scalar code itself, not to a tolerance (the
 * crowd's results, which runs and tests compare across thread counts,
 * rest on this).  Inputs cover what the lanes handle apart: exact
 * overlaps and bodies on one point, tails of one to three neighbours
 * after the fours, crowds from sparse to infeasible, walls.  (test_orca's
 * test_agent_lines_batch_bitwise compares the lines themselves.)  Without
 * SSE2 both builds are the scalar code and the test says so.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <gridcrowd/orca.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The scalar build, renamed (the prototypes first: the library's header
 * is already included, so the sources' include of it adds none). */
void scalar_params_default(gc_orca_params *p);
int scalar_lines(const gc_orca_params *p, const gc_orca_agent *self,
                 const gc_orca_agent *nb, size_t n, const gc_orca_segment *seg,
                 size_t m, gc_orca_line *lines, size_t *n_obst);
int scalar_solve(const gc_orca_line *lines, size_t n, size_t n_obst,
                 gc_vec2 pref, float max_speed, gc_vec2 *out,
                 gc_orca_report *rep);
int scalar_velocity(const gc_orca_params *p, const gc_orca_agent *self,
                    gc_vec2 pref, float max_speed, const gc_orca_agent *nb,
                    size_t n, const gc_orca_segment *seg, size_t m,
                    gc_vec2 *out, gc_orca_report *rep);
int scalar_velocity_adaptive(const gc_orca_params *p,
                             const gc_orca_agent *self, gc_vec2 pref,
                             float max_speed, const gc_orca_agent *nb, size_t n,
                             const gc_orca_segment *seg, size_t m, gc_vec2 *out,
                             gc_orca_report *rep, int *step);

#define GC_ORCA_SCALAR 1
#define gc_orca_params_default scalar_params_default
#define gc_orca_lines scalar_lines
#define gc_orca_solve scalar_solve
#define gc_orca_velocity scalar_velocity
#define gc_orca_velocity_adaptive scalar_velocity_adaptive
#define gc_orca_velocity_fe scalar_velocity_fe
#define gc_orca_agent_lines scalar_agent_lines
#define gc_orca_program_lines scalar_program_lines
#define gc_orca_program_walls scalar_program_walls
#define gc_orca_programs_lines scalar_programs_lines
#define gc_orca_programs_solve scalar_programs_solve
#include "orca.c"
#include "orca-solve.c"
#undef gc_orca_params_default
#undef gc_orca_lines
#undef gc_orca_solve
#undef gc_orca_velocity
#undef gc_orca_velocity_adaptive
#undef gc_orca_velocity_fe
#undef gc_orca_agent_lines
#undef gc_orca_program_lines
#undef gc_orca_program_walls
#undef gc_orca_programs_lines
#undef gc_orca_programs_solve

#include "brute_knn.h"
#include "knn_int.h" /* gc_orca_grid_nearest_set */

/* The library's own (orca_int.h, included above under the scalar name;
 * gc_orca_lanes_widest is declared there and defined by the library). */
int gc_orca_velocity_fe(const gc_orca_params *p, const gc_orca_agent *self,
                        gc_vec2 pref, float max_speed, const gc_orca_agent *nb,
                        size_t n, const gc_orca_segment *seg, size_t m,
                        gc_vec2 *out, gc_orca_report *rep, bool *feasible);
int gc_orca_program_lines(const gc_orca_params *p, gc_orca_program *pr,
                          const gc_orca_segment *seg, size_t m);
int gc_orca_program_walls(const gc_orca_params *p, gc_orca_program *pr,
                          const gc_orca_segment *seg, size_t m);
void gc_orca_programs_lines(gc_orca_program *pr, size_t count);
void gc_orca_programs_solve(gc_orca_program *pr, size_t count);

/* Knuth's 64-bit linear congruential generator: its high bits. */
static uint64_t rng_state = 0x2545f4914f6cdd1dull;

static uint32_t
rng(void)
{
    rng_state = rng_state * 6364136223846793005ull + 1442695040888963407ull;
    return (uint32_t)(rng_state >> 33);
}

static float
urand(float lo, float hi)
{
    return lo + (hi - lo) * (float)(rng() % 1000000u) / 1000000.0f;
}

static gc_vec2
rvec(float lim)
{
    return (gc_vec2){urand(-lim, lim), urand(-lim, lim)};
}

static int
same_report(const gc_orca_report *a, const gc_orca_report *b)
{
    return a->feasible == b->feasible && a->n_lines == b->n_lines &&
           a->n_obstacle_lines == b->n_obstacle_lines &&
           a->first_failed == b->first_failed &&
           memcmp(&a->max_violation, &b->max_violation, sizeof(float)) == 0;
}

/*
 * The crowd's programs in lanes (gc_orca_programs_solve): a batch of up
 * to sixteen, each with the scalar build's answer to hold it to.  The
 * batch is answered when it reaches its size, drawn from 1 to 16 (one
 * program alone, a padded four, eight, a padded sixteen).
 */
static struct batch {
    gc_orca_program pr[GC_ORCA_LANES_MAX];
    gc_orca_params params[GC_ORCA_LANES_MAX];
    gc_orca_line want_lines[GC_ORCA_LANES_MAX][GC_ORCA_MAX_LINES];
    size_t want_n[GC_ORCA_LANES_MAX], want_obst[GC_ORCA_LANES_MAX];
    gc_vec2 want[GC_ORCA_LANES_MAX];
    bool want_fe[GC_ORCA_LANES_MAX];
    int id[GC_ORCA_LANES_MAX];
    size_t n, size;
    int solved;
    bool walls; /* programs taken by gc_orca_program_walls: make lines */
} batch;

static void
batch_solve(void)
{
    for (size_t k = 0; k < batch.n; k++) {
        batch.pr[k].out = (gc_vec2){NAN, NAN};
        batch.pr[k].feasible = !batch.want_fe[k];
    }
    /* The lines of the whole batch at once (its walls' in lanes), each
     * program's the scalar build's to the bit. */
    if (batch.walls)
        gc_orca_programs_lines(batch.pr, batch.n);
    for (size_t k = 0; batch.walls && k < batch.n; k++) {
        const gc_orca_program *q = &batch.pr[k];
        if (q->n_lines != batch.want_n[k] || q->n_obst != batch.want_obst[k] ||
            memcmp(q->lines, batch.want_lines[k],
                   q->n_lines * sizeof q->lines[0]) != 0)
            fail_msg("case %d, lane %zu of %zu: %zu lines (%zu of walls) "
                     "where the scalar code makes %zu (%zu), or they differ",
                     batch.id[k], k, batch.n, q->n_lines, q->n_obst,
                     batch.want_n[k], batch.want_obst[k]);
    }
    gc_orca_programs_solve(batch.pr, batch.n);
    for (size_t k = 0; k < batch.n; k++) {
        const gc_orca_program *q = &batch.pr[k];
        if (memcmp(&q->out, &batch.want[k], sizeof q->out) != 0 ||
            q->feasible != batch.want_fe[k])
            fail_msg("case %d, lane %zu of %zu: (%.9g, %.9g), %s, where the "
                     "scalar code gives (%.9g, %.9g), %s",
                     batch.id[k], k, batch.n, (double)q->out.x,
                     (double)q->out.y, q->feasible ? "feasible" : "infeasible",
                     (double)batch.want[k].x, (double)batch.want[k].y,
                     batch.want_fe[k] ? "feasible" : "infeasible");
    }
    batch.solved += (int)batch.n;
    batch.n = 0;
    batch.size = 1 + rng() % GC_ORCA_LANES_MAX;
}

/* A program to answer in the batch, the scalar build's answer given:
 * the caller fills it, then calls batch_added(). */
static gc_orca_program *
batch_add(int id, gc_vec2 want, bool want_fe)
{
    if (batch.n >= GC_ORCA_LANES_MAX) /* left so by a failed test */
        batch.n = 0;
    if (batch.size == 0)
        batch.size = 1 + rng() % GC_ORCA_LANES_MAX;
    batch.id[batch.n] = id;
    batch.want[batch.n] = want;
    batch.want_fe[batch.n] = want_fe;
    return &batch.pr[batch.n++];
}

static void
batch_added(void)
{
    if (batch.n >= batch.size)
        batch_solve();
}

/* A crowd round an agent, from sparse to packed tighter than the bodies
 * (infeasible), with exact overlaps and shared points now and then, and
 * walls: the whole step, library against scalar. */
static void
same_bits(unsigned widest)
{
    gc_orca_lanes_widest = widest;
    batch.walls = true;
    gc_orca_params p;
    gc_orca_params_default(&p);
    int infeasible = 0, with_walls = 0, degenerate = 0, shortened = 0;
    for (int it = 0; it < 20000; it++) {
        p.dt = it % 5 == 0 ? 1.0f / 60.0f : 0.25f;
        float spread = it % 3 == 0 ? 1.5f : (it % 3 == 1 ? 4.0f : 12.0f);
        gc_orca_agent self = {rvec(1.0f), rvec(2.0f), urand(0.2f, 0.6f)};
        size_t n = rng() % (GC_ORCA_MAX_NEIGHBOURS + 1);
        if (it % 2)
            n = n % 16; /* the crowd's usual few, tails of 1 to 3 */
        gc_orca_agent nb[GC_ORCA_MAX_NEIGHBOURS];
        for (size_t j = 0; j < n; j++) {
            nb[j] =
                (gc_orca_agent){rvec(spread), rvec(1.0f), urand(0.2f, 0.6f)};
            if (rng() % 16 == 0)
                nb[j].pos = self.pos; /* on one point */
            if (p.dt == 0.25f && rng() % 64 == 0) {
                /* overlapping, w = vrel - p / dt = 0 exactly */
                self.pos = (gc_vec2){0.0f, 0.0f};
                self.vel = (gc_vec2){0.5f, -1.0f};
                nb[j].pos = (gc_vec2){0.25f, -0.5f};
                nb[j].vel = (gc_vec2){-0.5f, 1.0f};
                self.radius = nb[j].radius = 0.6f;
                degenerate++;
            }
        }
        size_t m = it % 4 == 0 ? rng() % 9 : 0;
        gc_orca_segment seg[8];
        for (size_t j = 0; j < m; j++) {
            seg[j].a = rvec(spread);
            /* axis-parallel, as the grid's walls are, or any way */
            gc_vec2 d = rng() % 2 ? (gc_vec2){urand(-4, 4), 0.0f}
                                  : (gc_vec2){0.0f, urand(-4, 4)};
            if (rng() % 4 == 0)
                d = rvec(4.0f);
            seg[j].b = (gc_vec2){seg[j].a.x + d.x, seg[j].a.y + d.y};
        }
        p.time_horizon = urand(0.5f, 5.0f);
        p.time_horizon_obst = urand(0.3f, 10.0f);
        gc_vec2 pref = rvec(2.5f);
        float vmax = urand(0.5f, 2.0f);
        gc_vec2 want, got;
        gc_orca_report rw, rg;
        int cw =
            scalar_velocity(&p, &self, pref, vmax, nb, n, seg, m, &want, &rw);
        int cg =
            gc_orca_velocity(&p, &self, pref, vmax, nb, n, seg, m, &got, &rg);
        assert_int_equal(cg, cw);
        if (memcmp(&got, &want, sizeof got) != 0 || !same_report(&rg, &rw))
            fail_msg("case %d (%zu neighbours, %zu walls): (%.9g, %.9g) "
                     "where the scalar code gives (%.9g, %.9g), or the "
                     "reports differ",
                     it, n, m, (double)got.x, (double)got.y, (double)want.x,
                     (double)want.y);
        /* The crowd's call: the same answer, and whether it was
         * feasible without the report. */
        bool fe = !rw.feasible;
        cg = gc_orca_velocity_fe(&p, &self, pref, vmax, nb, n, seg, m, &got,
                                 NULL, &fe);
        assert_int_equal(cg, cw);
        if (memcmp(&got, &want, sizeof got) != 0 || fe != rw.feasible)
            fail_msg("case %d: gc_orca_velocity_fe gives (%.9g, %.9g), %s, "
                     "where the report says %s",
                     it, (double)got.x, (double)got.y,
                     fe ? "feasible" : "infeasible",
                     rw.feasible ? "feasible" : "infeasible");
        /* And in lanes, with the other programs of its batch: one alone
         * (gc_orca_program_lines) or the walls taken now, the lines made
         * with the batch's.  Its lines must be the scalar build's. */
        gc_orca_program *pr = batch_add(it, want, rw.feasible);
        size_t at = batch.n - 1;
        batch.params[at] = p;
        int sk = scalar_lines(&p, &self, nb, n, seg, m, batch.want_lines[at],
                              &batch.want_obst[at]);
        assert_true(sk >= 0);
        batch.want_n[at] = (size_t)sk;
        pr->self = self;
        pr->pref = pref;
        pr->max_speed = vmax;
        pr->n_nb = n;
        pr->over_known = false;
        memcpy(pr->nb, nb, n * sizeof nb[0]);
        if (it % 7 == 0)
            assert_int_equal(
                gc_orca_program_lines(&batch.params[at], pr, seg, m), cw);
        else {
            memcpy(pr->seg, seg, m * sizeof seg[0]); /* (seg is this case's) */
            assert_int_equal(
                gc_orca_program_walls(&batch.params[at], pr, pr->seg, m), cw);
        }
        batch_added();
        infeasible += !rw.feasible;
        with_walls += rw.n_obstacle_lines > 0;
        /* The adaptive horizon's, which remakes the lines at each. */
        int hw = it % 3 ? (int)(rng() % 8) : 0, hg = hw; /* hints */
        cw = scalar_velocity_adaptive(&p, &self, pref, vmax, nb, n, seg, m,
                                      &want, &rw, &hw);
        cg = gc_orca_velocity_adaptive(&p, &self, pref, vmax, nb, n, seg, m,
                                       &got, &rg, &hg);
        assert_int_equal(cg, cw);
        if (memcmp(&got, &want, sizeof got) != 0 || !same_report(&rg, &rw) ||
            hg != hw)
            fail_msg("case %d, adaptive: (%.9g, %.9g) at step %d where the "
                     "scalar code gives (%.9g, %.9g) at %d, or the reports "
                     "differ",
                     it, (double)got.x, (double)got.y, hg, (double)want.x,
                     (double)want.y, hw);
        shortened += hw > 0;
    }
    batch_solve();
    printf("# %s: 20000 steps the same, %d infeasible, %d with wall lines, "
           "%d neighbours with w = 0, %d on a shorter horizon; %d programs "
           "in lanes the same\n",
           widest == 4   ? "four lanes"
           : widest == 8 ? "up to eight lanes (AVX, where the CPU has it)"
           : widest == 16
               ? "up to sixteen lanes (AVX-512, where the CPU has it)"
               : "the lanes the library chooses for this CPU",
           infeasible, with_walls, degenerate, shortened, batch.solved);
    assert_int_equal(batch.solved, 20000);
    batch.solved = 0;
    assert_true(shortened > 1000);
    assert_true(degenerate > 1000);
    assert_true(infeasible > 2000 && infeasible < 18000);
    assert_true(with_walls > 500);
}

/*
 * The linear programs alone, on lines made to meet their corner cases:
 * directions from a few (the axes, the diagonals, each both ways, so
 * lines are often exactly parallel or opposite) and points on a coarse
 * lattice or at the origin (as a wall's line is when a body touches it),
 * so that bounds come out as exact zeros of either sign.  The four lines
 * at a time of lp1 must give the scalar code's answer here too.
 */
static void
test_solve_same_bits_degenerate(void **state)
{
    (void)state;
    gc_orca_lanes_widest = 16; /* (where the CPU has AVX-512) */
    batch.walls = false;       /* (the lines are given) */
    const float h = 0.70710678f;
    const gc_vec2 dirs[8] = {{1, 0}, {-1, 0}, {0, 1},  {0, -1},
                             {h, h}, {-h, -h}, {h, -h}, {-h, h}};
    int parallel_fail = 0, feasible = 0;
    for (int it = 0; it < 40000; it++) {
        size_t n = 4 + rng() % 20;
        gc_orca_line lines[GC_ORCA_MAX_LINES];
        for (size_t j = 0; j < n; j++) {
            lines[j].dir = dirs[rng() % 8];
            lines[j].point =
                rng() % 3 == 0
                    ? (gc_vec2){0.0f, 0.0f}
                    : (gc_vec2){(float)((int)(rng() % 5) - 2) * 0.5f,
                                (float)((int)(rng() % 5) - 2) * 0.5f};
            if (rng() % 8 == 0) /* -0 in a point */
                lines[j].point.x = -0.0f;
        }
        size_t n_obst = rng() % 3 == 0 ? rng() % (n + 1) : 0;
        gc_vec2 pref = rng() % 4 == 0 ? (gc_vec2){0.0f, 0.0f} : rvec(2.0f);
        float vmax = rng() % 4 == 0 ? 1.0f : urand(0.1f, 2.0f);
        gc_vec2 want, got;
        gc_orca_report rw, rg;
        int cw = scalar_solve(lines, n, n_obst, pref, vmax, &want, &rw);
        int cg = gc_orca_solve(lines, n, n_obst, pref, vmax, &got, &rg);
        assert_int_equal(cg, cw);
        if (memcmp(&got, &want, sizeof got) != 0 || !same_report(&rg, &rw))
            fail_msg("case %d (%zu lines, %zu hard): (%.9g, %.9g) where the "
                     "scalar code gives (%.9g, %.9g), or the reports differ",
                     it, n, n_obst, (double)got.x, (double)got.y,
                     (double)want.x, (double)want.y);
        /* In lanes: the lines past n_obst as neighbours' far from the
         * agent (none overlapping), so that the 3-D program holds the
         * first n_obst hard, as gc_orca_solve does. */
        gc_orca_program *pr = batch_add(it, want, rw.feasible);
        pr->self = (gc_orca_agent){{0.0f, 0.0f}, {0.0f, 0.0f}, 0.0f};
        pr->pref = pref;
        pr->max_speed = vmax;
        pr->n_nb = n - n_obst;
        pr->over_known = false;
        for (size_t j = 0; j < pr->n_nb; j++)
            pr->nb[j] = (gc_orca_agent){{1e3f, 0.0f}, {0.0f, 0.0f}, 0.0f};
        pr->n_lines = n;
        pr->n_obst = n_obst;
        memcpy(pr->lines, lines, n * sizeof lines[0]);
        batch_added();
        feasible += rw.feasible;
        parallel_fail += !rw.feasible && rw.first_failed >= 4;
    }
    batch_solve();
    printf("# 40000 programs the same, %d feasible, %d failing at line 4 or "
           "later; in lanes too\n",
           feasible, parallel_fail);
    assert_int_equal(batch.solved, 40000);
    batch.solved = 0;
    gc_orca_lanes_widest = 0;
    assert_true(feasible > 2000);
    assert_true(parallel_fail > 2000);
}

/* The library's choice: sixteen lanes where the CPU is AMD's with
 * AVX-512, eight where it has AVX, else four. */
static void
test_velocity_same_bits(void **state)
{
    (void)state;
    same_bits(0);
}

/* Sixteen lanes wherever the CPU has AVX-512, even where the library
 * would not choose them. */
static void
test_velocity_same_bits_sixteen(void **state)
{
    (void)state;
    same_bits(16);
    gc_orca_lanes_widest = 0;
}

/* At most eight lanes, as on a CPU with AVX but not AVX-512. */
static void
test_velocity_same_bits_eight(void **state)
{
    (void)state;
    same_bits(8);
    gc_orca_lanes_widest = 0;
}

/* Four lanes, as on a CPU without AVX. */
static void
test_velocity_same_bits_four(void **state)
{
    (void)state;
    same_bits(4);
    gc_orca_lanes_widest = 0;
}

/* ---- the index's scan -------------------------------------------------- */

/* The answer ids, d2 [0 .. n) of a query that does not sort, sorted as
 * brute_nearest's. */
static void
sort_answer(uint32_t *ids, float *d2, size_t n)
{
    for (size_t a = 1; a < n; a++)
        for (size_t b = a;
             b > 0 &&
             (d2[b - 1] > d2[b] || (d2[b - 1] == d2[b] && ids[b - 1] > ids[b]));
             b--) {
            float t = d2[b];
            d2[b] = d2[b - 1];
            d2[b - 1] = t;
            uint32_t u = ids[b];
            ids[b] = ids[b - 1];
            ids[b - 1] = u;
        }
}

/*
 * The index's queries scan one, eight or sixteen agents at a time
 * (src/orca-index.c, chosen with the lanes): each width gives brute
 * force's answer, sorted (gc_orca_grid_nearest_hint) or not
 * (gc_orca_grid_nearest_set, the crowd's draws).  Crowds sparse to
 * packed, coordinates on integers in some (ties at one distance, and at
 * the range), runs of every length past the vectors' ends, k up to 64
 * (the candidates cut many times).
 */
static void
test_index_scan_widths(void **state)
{
    (void)state;
    gc_orca_grid *g;
    assert_int_equal(gc_orca_grid_new(&g), 0);
    enum { N = 3000 };
    static float x[N], y[N];
    static const unsigned widths[] = {4, 8, 16, 0};
    long answered = 0, cut = 0;
    for (int round = 0; round < 8; round++) {
        size_t n = round == 0 ? 1 : (size_t)(N / (8 - round)) - (size_t)round;
        float side = round % 2 ? 40.0f : 300.0f;
        for (size_t i = 0; i < n; i++) {
            x[i] = round % 3 == 0 ? floorf(urand(0, side / 4)) : urand(0, side);
            y[i] = round % 3 == 0 ? floorf(urand(0, side / 4)) : urand(0, side);
        }
        assert_int_equal(gc_orca_grid_build(g, x, y, n, 1.5f + (float)round),
                         0);
        for (int q = 0; q < 400; q++) {
            size_t self = q % 3 ? rng() % n : SIZE_MAX;
            gc_vec2 at = {self < n ? x[self] : urand(-10, side + 10),
                          self < n ? y[self] : urand(-10, side + 10)};
            size_t k = q % 4 == 0 ? 33 + rng() % 32 : 1 + rng() % 16;
            float dist = q % 7 == 0 ? 5.0f : urand(1, 25);
            float hint = q % 2 ? INFINITY : urand(0, dist * dist);
            uint32_t want[64], ids[64];
            float wd[64], d2[64];
            size_t cnt =
                brute_nearest(x, y, n, self, at, k, dist, hint, want, wd);
            cut += cnt == k;
            for (size_t w = 0; w < sizeof widths / sizeof widths[0]; w++) {
                gc_orca_lanes_widest = widths[w];
                for (int sorted = 0; sorted < 2; sorted++) {
                    size_t got =
                        sorted ? gc_orca_grid_nearest_hint(g, at, self, k, dist,
                                                           hint, ids, d2)
                               : gc_orca_grid_nearest_set(g, at, self, k, dist,
                                                          hint, ids, d2);
                    if (!sorted)
                        sort_answer(ids, d2, got);
                    if (got != cnt)
                        fail_msg("round %d, query %d, lanes %u%s: %zu found, "
                                 "brute force %zu",
                                 round, q, widths[w], sorted ? "" : ", set",
                                 got, cnt);
                    for (size_t i = 0; i < cnt; i++)
                        if (ids[i] != want[i] || d2[i] != wd[i])
                            fail_msg("round %d, query %d, lanes %u%s: "
                                     "neighbour %zu is %u at %g, brute force "
                                     "%u at %g",
                                     round, q, widths[w], sorted ? "" : ", set",
                                     i, ids[i], (double)d2[i], want[i],
                                     (double)wd[i]);
                    answered++;
                }
            }
        }
    }
    gc_orca_lanes_widest = 0;
    gc_orca_grid_free(g);
    printf("# %ld answers the same as brute force, %ld queries cut to k\n",
           answered, cut);
    assert_true(cut > 1000);
}

int
main(void)
{
#if !defined(__SSE2__)
    printf("# no SSE2: both builds are the scalar code\n");
#endif
#if defined(__x86_64__) && defined(__GNUC__)
    printf("# this CPU %s AVX and %s AVX-512 (F and DQ)\n",
           __builtin_cpu_supports("avx") ? "has" : "has no",
           __builtin_cpu_supports("avx512f") &&
                   __builtin_cpu_supports("avx512dq")
               ? "has"
               : "has no");
    printf("# and is %s (the library takes sixteen lanes by default on "
           "AMD's alone)\n",
           __builtin_cpu_is("amd")     ? "AMD's"
           : __builtin_cpu_is("intel") ? "Intel's"
                                       : "neither AMD's nor Intel's");
#endif
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_velocity_same_bits),
        cmocka_unit_test(test_velocity_same_bits_sixteen),
        cmocka_unit_test(test_velocity_same_bits_eight),
        cmocka_unit_test(test_velocity_same_bits_four),
        cmocka_unit_test(test_solve_same_bits_degenerate),
        cmocka_unit_test(test_index_scan_widths),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
