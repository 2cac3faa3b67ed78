/*
 * test_report: gridcrowd-report's figures (tools/report/report-calc.c),
 * fed rows by hand: the --line parser, line crossings against an
 * independent intersection model, the density bins (their sum is the
 * mean number of agents), speeds, flows in their time bins, travel times,
 * the trajectory sample (the same agents whatever the order of rows), and
 * the WKT reader.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "report.h"

/* ---- --line ------------------------------------------------------------- */

static void
test_line_parse(void **state)
{
    (void)state;
    rep_line l;
    assert_int_equal(rep_line_parse("1,2,3,4", &l), GC_OK);
    assert_true(l.x0 == 1 && l.y0 == 2 && l.x1 == 3 && l.y1 == 4);
    assert_int_equal(rep_line_parse("-1.5, 0,2e1 ,7", &l), GC_OK);
    assert_true(l.x0 == -1.5 && l.y0 == 0 && l.x1 == 20 && l.y1 == 7);
    static const char *const bad[] = {
        "",        "1,2,3",     "1,2,3,4,5", "1,2,3,x",      "1;2;3;4",
        "1,2,1,2", "nan,0,1,1", "inf,0,1,1", "1,2,3,4 junk", "1e999,0,1,1",
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        l = (rep_line){9, 9, 9, 9};
        assert_int_equal(rep_line_parse(bad[i], &l), GC_EINVAL);
        assert_true(l.x0 == 9); /* untouched */
    }
}

static void
test_line_cross_cases(void **state)
{
    (void)state;
    /* x = 5 from top to bottom: forwards is +x. */
    rep_line v = {5, 0, 5, 10};
    assert_int_equal(rep_line_cross(&v, 4, 5, 6, 5), 1);
    assert_int_equal(rep_line_cross(&v, 6, 5, 4, 5), -1);
    assert_int_equal(rep_line_cross(&v, 4, 5, 4.9, 5), 0);
    /* Past the segment's ends: no crossing. */
    assert_int_equal(rep_line_cross(&v, 4, 11, 6, 11), 0);
    assert_int_equal(rep_line_cross(&v, 4, -1, 6, -1), 0);
    /* Through an end exactly: a crossing. */
    assert_int_equal(rep_line_cross(&v, 4, 10, 6, 10), 1);
    /* Onto the line, then off it: one crossing in all, whichever way. */
    assert_int_equal(
        rep_line_cross(&v, 4, 5, 5, 5) + rep_line_cross(&v, 5, 5, 6, 5), 1);
    assert_int_equal(
        rep_line_cross(&v, 6, 5, 5, 5) + rep_line_cross(&v, 5, 5, 4, 5), -1);
    /* Onto the line and back: none. */
    assert_int_equal(
        rep_line_cross(&v, 4, 5, 5, 5) + rep_line_cross(&v, 5, 5, 4, 5), 0);
    /* Drawn the other way, forwards flips. */
    rep_line u = {5, 10, 5, 0};
    assert_int_equal(rep_line_cross(&u, 4, 5, 6, 5), -1);
    /* A horizontal line drawn left to right: forwards is -y (up). */
    rep_line h = {0, 3, 10, 3};
    assert_int_equal(rep_line_cross(&h, 2, 4, 2, 2), 1);
    assert_int_equal(rep_line_cross(&h, 2, 2, 2, 4), -1);
}

/* An independent model: the two segments' parameters by Cramer's rule. */
static int
model_cross(const rep_line *l, double px, double py, double qx, double qy)
{
    double rx = qx - px, ry = qy - py; /* step */
    double sx = l->x1 - l->x0, sy = l->y1 - l->y0;
    double den = rx * sy - ry * sx;
    if (den == 0)
        return 0;
    double t = ((l->x0 - px) * sy - (l->y0 - py) * sx) / den; /* on step */
    double u = ((l->x0 - px) * ry - (l->y0 - py) * rx) / den; /* on line */
    if (t <= 0 || t > 1 || u < 0 || u > 1)
        return 0;
    /* Forwards when the step goes along the normal (sy, -sx). */
    return rx * sy - ry * sx > 0 ? 1 : -1;
}

static double
rnd(unsigned *s)
{
    *s = *s * 1103515245u + 12345u;
    return (double)((*s >> 8) & 0xffff) / 65536.0 * 20 - 10;
}

static void
test_line_cross_model(void **state)
{
    (void)state;
    unsigned seed = 7;
    int checked = 0, crossed = 0;
    for (int i = 0; i < 200000; i++) {
        rep_line l = {rnd(&seed), rnd(&seed), rnd(&seed), rnd(&seed)};
        double px = rnd(&seed), py = rnd(&seed);
        double qx = rnd(&seed), qy = rnd(&seed);
        /* Leave out near-degenerate cases, where rounding decides. */
        double rx = qx - px, ry = qy - py;
        double sx = l.x1 - l.x0, sy = l.y1 - l.y0;
        double den = rx * sy - ry * sx;
        if (fabs(den) < 1e-3)
            continue;
        double t = ((l.x0 - px) * sy - (l.y0 - py) * sx) / den;
        double u = ((l.x0 - px) * ry - (l.y0 - py) * rx) / den;
        if (fabs(t) < 1e-6 || fabs(t - 1) < 1e-6 || fabs(u) < 1e-6 ||
            fabs(u - 1) < 1e-6)
            continue;
        int want = model_cross(&l, px, py, qx, qy);
        assert_int_equal(rep_line_cross(&l, px, py, qx, qy), want);
        checked++;
        crossed += want != 0;
    }
    assert_true(checked > 150000);
    assert_true(crossed > 10000);
}

/* ---- the accumulator ----------------------------------------------------- */

static rep_acc_config
config(double fps, int64_t last, size_t sample)
{
    return (rep_acc_config){.fps = fps,
                            .first_frame = 0,
                            .last_frame = last,
                            .xmin = 0,
                            .ymin = 0,
                            .xmax = 10,
                            .ymax = 4,
                            .cell = 1,
                            .sample = sample};
}

static void
test_acc_init_errors(void **state)
{
    (void)state;
    rep_acc a;
    rep_acc_config c = config(10, 9, 0);
    assert_int_equal(rep_acc_init(&a, &c), GC_OK);
    assert_int_equal(a.nx, 10);
    assert_int_equal(a.ny, 4);
    rep_acc_free(&a);
    c.fps = 0;
    assert_int_equal(rep_acc_init(&a, &c), GC_EINVAL);
    c = config(10, 9, 0);
    c.cell = 1e-4; /* 1e5 x 4e4 bins */
    assert_int_equal(rep_acc_init(&a, &c), GC_EINVAL);
    c = config(10, 9, 0);
    c.xmax = 40000; /* 160,000 bins, but wider than cairo's images */
    assert_int_equal(rep_acc_init(&a, &c), GC_EINVAL);
    c = config(10, 9, 0);
    c.xmax = c.xmin;
    assert_int_equal(rep_acc_init(&a, &c), GC_EINVAL);
    c = config(10, 9, 0);
    c.cell = 3; /* 10 / 3: a partial last bin */
    assert_int_equal(rep_acc_init(&a, &c), GC_OK);
    assert_int_equal(a.nx, 4);
    assert_int_equal(a.ny, 2);
    rep_acc_free(&a);
}

static void
test_acc_density(void **state)
{
    (void)state;
    rep_acc a;
    rep_acc_config c = config(10, 3, 0);
    assert_int_equal(rep_acc_init(&a, &c), GC_OK);
    /* 4 frames; 3 agents in each, then a fourth in the last two. */
    for (int f = 0; f < 4; f++) {
        assert_int_equal(rep_acc_add(&a, f, 1, 0.5, 0.5, 2), GC_OK);
        assert_int_equal(rep_acc_add(&a, f, 2, 9.5, 3.5, 2), GC_OK);
        assert_int_equal(rep_acc_add(&a, f, 3, 10, 4, 2), GC_OK); /* edge */
        if (f >= 2)
            assert_int_equal(rep_acc_add(&a, f, 4, 5.5, 1.5, 2), GC_OK);
    }
    assert_int_equal(a.frames, 4);
    assert_int_equal(a.agent_frames, 14);
    assert_int_equal(a.outside, 0);
    assert_true(rep_acc_density(&a, 0) == 1.0);
    assert_true(rep_acc_density(&a, 3 * 10 + 9) == 2.0); /* two agents */
    assert_true(rep_acc_density(&a, 1 * 10 + 5) == 0.5);
    double sum = 0;
    for (size_t i = 0; i < 40; i++)
        sum += rep_acc_density(&a, i);
    assert_true(fabs(sum - 14.0 / 4.0) < 1e-12); /* the mean agents */
    /* Out of order, twice in a frame, outside: refused or counted. */
    assert_int_equal(rep_acc_add(&a, 2, 1, 0.5, 0.5, 2), GC_EINVAL);
    assert_int_equal(rep_acc_add(&a, 3, 1, 0.5, 0.5, 2), GC_EINVAL);
    assert_int_equal(rep_acc_add(&a, 4, 9, 11, 0, 2), GC_OK);
    assert_int_equal(a.outside, 1);
    rep_acc_free(&a);
}

static void
test_acc_speed_and_flow(void **state)
{
    (void)state;
    rep_acc a;
    rep_line l = {5, -1, 5, 5};
    rep_acc_config c = config(10, 40, 2);
    c.lines = &l;
    c.n_lines = 1;
    assert_int_equal(rep_acc_init(&a, &c), GC_OK);
    assert_true(a.flow_bin_s == 1.0);
    assert_int_equal(a.n_flow_bins, 5);
    /* Agent 1 walks +x at 0.2 a frame (2 units/s), crossing x = 5 from
     * frame 24 to 25 (t = 2.5 s: bin 2); agent 2 walks back at 0.5 a frame
     * (5 units/s), crossing from frame 9 to 10 (bin 1); then it has arrived and
     * stands, and its speed no longer counts. */
    for (int f = 0; f <= 40; f++) {
        assert_int_equal(rep_acc_add(&a, f, 1, 0.1 + 0.2 * f, 0.5, 2), GC_OK);
        double x2 = f <= 16 ? 9.9 - 0.5 * f : 9.9 - 0.5 * 16;
        assert_int_equal(rep_acc_add(&a, f, 2, x2, 2.5, f >= 16 ? 3 : 2),
                         GC_OK);
    }
    assert_int_equal(a.flows[0].forward, 1);
    assert_int_equal(a.flows[0].backward, 1);
    assert_int_equal(a.flows[0].fwd[2], 1);
    assert_int_equal(a.flows[0].bwd[1], 1);
    /* Speeds: 40 steps of agent 1 at 2, and agent 2's 16 steps at 5 plus
     * none of its standing steps after arriving (frame 16 on). */
    assert_int_equal(a.speed_count, 40 + 16);
    assert_true(fabs(a.speed_total - (40 * 2.0 + 16 * 5.0)) < 1e-9);
    /* Bin (0, 0): agent 1 from x 0.1 to 0.9: steps into it at 2 u/s. */
    assert_true(fabs(rep_acc_speed(&a, 0) - 2.0) < 1e-9);
    assert_true(rep_acc_speed(&a, 3 * 10) < 0); /* nobody there */
    /* Both tracks kept; agent 2's ends at its arrival (frame 16). */
    const rep_track **t;
    size_t n;
    assert_int_equal(rep_acc_tracks(&a, &t, &n), GC_OK);
    assert_int_equal(n, 2);
    assert_int_equal(t[0]->id, 1);
    assert_int_equal(t[0]->n, 41);
    assert_int_equal(t[1]->id, 2);
    assert_int_equal(t[1]->n, 17);
    free(t);
    rep_travel tr;
    assert_int_equal(rep_acc_travel(&a, &tr), GC_OK);
    assert_int_equal(tr.n, 1);
    assert_int_equal(tr.arrived, 1);
    assert_int_equal(tr.unfinished, 1);
    assert_true(fabs(tr.t[0] - 1.6) < 1e-12);
    assert_true(tr.evacuation_s < 0); /* agent 1 still walks */
    free(tr.t);
    rep_acc_free(&a);
}

static void
test_acc_travel_left(void **state)
{
    (void)state;
    /* A plain file: no states; agents leave (their rows stop), but one
     * stays to the last frame and so is still walking at the end. */
    rep_acc a;
    rep_acc_config c = config(4, 20, 0);
    c.first_frame = 4;
    assert_int_equal(rep_acc_init(&a, &c), GC_OK);
    for (int f = 4; f <= 20; f++) {
        for (uint32_t id = 0; id < 4; id++) {
            int64_t from = 4 + 2 * id, to = id == 3 ? 20 : 10 + 4 * id;
            if (f >= from && f <= to)
                assert_int_equal(
                    rep_acc_add(&a, f, id, 1 + 0.1 * f, 1, REP_STATE_UNKNOWN),
                    GC_OK);
        }
    }
    rep_travel tr;
    assert_int_equal(rep_acc_travel(&a, &tr), GC_OK);
    /* Ends 10, 14, 18 before the last frame, 20: three left. */
    assert_int_equal(tr.n, 3);
    assert_int_equal(tr.left, 3);
    assert_int_equal(tr.arrived, 0);
    assert_int_equal(tr.unfinished, 1);
    assert_true(tr.t[0] == 6 / 4.0 && tr.t[1] == 8 / 4.0 &&
                tr.t[2] == 10 / 4.0);
    assert_true(tr.evacuation_s < 0);
    free(tr.t);
    rep_acc_free(&a);

    /* Every agent arrives (and stays, arrived): the evacuation time is
     * the last arrival, from the first frame. */
    c = config(10, 30, 0);
    assert_int_equal(rep_acc_init(&a, &c), GC_OK);
    for (int f = 0; f <= 30; f++)
        for (uint32_t id = 0; id < 3; id++)
            assert_int_equal(
                rep_acc_add(&a, f, id, 1, 1, f >= 5 + 7 * (int)id ? 3 : 2),
                GC_OK);
    assert_int_equal(rep_acc_travel(&a, &tr), GC_OK);
    assert_int_equal(tr.arrived, 3);
    assert_int_equal(tr.unfinished, 0);
    assert_true(tr.t[2] == 1.9);
    assert_true(tr.evacuation_s == 1.9);
    free(tr.t);
    rep_acc_free(&a);
}

static int
cmp_u64(const void *p, const void *q)
{
    uint64_t a = *(const uint64_t *)p, b = *(const uint64_t *)q;
    return (a > b) - (a < b);
}

/* 1000 agents: a third from frame 0, the rest appearing later; fed in
 * two different orders, the sample is the same 50 ids, those with the
 * smallest keys, each with every point it had. */
static void
run_sample(bool reverse, uint32_t *ids, size_t *npts)
{
    rep_acc a;
    rep_acc_config c = config(10, 29, 50);
    assert_int_equal(rep_acc_init(&a, &c), GC_OK);
    for (int f = 0; f < 30; f++) {
        for (uint32_t k = 0; k < 1000; k++) {
            uint32_t i = reverse ? 999 - k : k;
            uint32_t id = i * 7919u + 13;
            int start = i % 3 == 0 ? 0 : (int)(i % 29);
            if (f >= start)
                assert_int_equal(
                    rep_acc_add(&a, f, id, (i % 10) + 0.5, (f % 4) + 0.5, 2),
                    GC_OK);
        }
    }
    const rep_track **t;
    size_t n;
    assert_int_equal(rep_acc_tracks(&a, &t, &n), GC_OK);
    assert_int_equal(n, 50);
    for (size_t k = 0; k < n; k++) {
        ids[k] = t[k]->id;
        npts[k] = t[k]->n;
        if (k)
            assert_true(ids[k - 1] < ids[k]);
    }
    free(t);
    rep_acc_free(&a);
}

static void
test_sample(void **state)
{
    (void)state;
    uint32_t a[50], b[50];
    size_t na[50], nb[50];
    run_sample(false, a, na);
    run_sample(true, b, nb);
    assert_memory_equal(a, b, sizeof a);
    assert_memory_equal(na, nb, sizeof na);
    /* The model: every id's key, sorted; the 50 smallest. */
    uint64_t keys[1000], chosen[50];
    for (uint32_t i = 0; i < 1000; i++)
        keys[i] = rep_sample_key(i * 7919u + 13);
    qsort(keys, 1000, sizeof *keys, cmp_u64);
    for (size_t k = 0; k < 50; k++)
        chosen[k] = rep_sample_key(a[k]);
    qsort(chosen, 50, sizeof *chosen, cmp_u64);
    assert_memory_equal(keys, chosen, sizeof chosen);
    /* Each track is whole: one point per frame since the agent came. */
    for (size_t k = 0; k < 50; k++) {
        uint32_t i = (a[k] - 13) / 7919u;
        size_t start = i % 3 == 0 ? 0 : i % 29;
        assert_int_equal(na[k], 30 - start);
    }
}

/* ---- WKT ------------------------------------------------------------------
 */

static void
test_wkt(void **state)
{
    (void)state;
    rep_area ar;
    assert_int_equal(rep_area_parse("POLYGON ((0 0, 4 0, 4 3, 0 3, 0 0), "
                                    "(1 1, 1 2, 2 2, 2 1, 1 1))",
                                    &ar),
                     GC_OK);
    assert_int_equal(ar.n_rings, 2);
    assert_int_equal(ar.ring_len[0], 5);
    assert_int_equal(ar.ring_len[1], 5);
    assert_int_equal(ar.n_points, 10);
    assert_true(ar.xy[4] == 4 && ar.xy[5] == 3 && ar.xy[19] == 1);
    rep_area_free(&ar);
    assert_int_equal(rep_area_parse(" multipolygon(((0 0,1 0,1 1,0 0)),"
                                    "((2 2,3 2,3 3,2 2),(2.5 2.2,2.6 2.3,"
                                    "2.7 2.2,2.5 2.2)))",
                                    &ar),
                     GC_OK);
    assert_int_equal(ar.n_rings, 3);
    assert_true(ar.xy[2 * 8] == 2.5 && ar.xy[2 * 8 + 1] == 2.2);
    rep_area_free(&ar);
    assert_int_equal(rep_area_parse("POLYGON EMPTY", &ar), GC_OK);
    assert_int_equal(ar.n_rings, 0);
    rep_area_free(&ar);
    static const char *const bad[] = {
        "POLYGON Z ((0 0 1, 1 0 1, 1 1 1, 0 0 1))",
        "POLYGON ((0 0, 1 0, 1 1, 0 0)",
        "POLYGON ((0 0, 1 0))",
        "LINESTRING (0 0, 1 1)",
        "GEOMETRYCOLLECTION (POLYGON ((0 0, 1 0, 1 1, 0 0)))",
        "POLYGON ((0 0, 1 0, 1 1, 0 0)) extra",
        "POLYGONS ((0 0, 1 0, 1 1, 0 0))",
        "",
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        assert_int_equal(rep_area_parse(bad[i], &ar), GC_EPARSE);
        assert_null(ar.xy);
        assert_int_equal(ar.n_rings, 0);
    }
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_line_parse),
        cmocka_unit_test(test_line_cross_cases),
        cmocka_unit_test(test_line_cross_model),
        cmocka_unit_test(test_acc_init_errors),
        cmocka_unit_test(test_acc_density),
        cmocka_unit_test(test_acc_speed_and_flow),
        cmocka_unit_test(test_acc_travel_left),
        cmocka_unit_test(test_sample),
        cmocka_unit_test(test_wkt),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
