/*
 * test_astar_props.c: A* against an independent model on random grids.
 *
 * The model is a plain Dijkstra written here, with its own neighbour code
 * (the diagonal rules spelled out from grid.h's comments, passability from
 * gc_grid_cell_cost) and nothing from the astar sources.  On every grid,
 * for every diagonal rule and every heuristic admissible for it, the A*
 * answer must agree with the model: found exactly when Dijkstra reaches
 * the goal, at the same cost (1e-9 relative), along a legal path whose
 * steps add up to the reported cost.  Partial paths must end at a
 * reachable cell nearest the goal; smoothed paths must cost no more and,
 * checked by dense sampling rather than by the smoothing code's own walk,
 * never touch a wall or cut a corner.
 *
 * One context serves all the grids of each size, so the test also proves
 * that contexts are reused correctly; a second test compares 10,000
 * searches of a reused context with fresh contexts.  AUTO must pick jump
 * point search exactly where it applies, and a third test holds JPS to the
 * model on larger uniform-cost grids, alternating with A* in one context.
 *
 * The seed is fixed and printed on failure with the grid's number.
 * GC_TEST_QUICK=1 (for valgrind) runs a tenth of the grids.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "quick.h"

#include <gridcrowd/astar.h>

#include "dijkstra.h"
#include "test_rng.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SEED UINT64_C(0x9E3779B97F4A7C15)
#define MAXSIDE 64

static int grid_no;      /* for failure messages */
static const char *what; /* ditto */

#define CHECK(cond)                                                            \
    do {                                                                       \
        if (!(cond)) {                                                         \
            print_error("%s:%d: %s failed (seed %#llx, grid %d, %s)\n",        \
                        __FILE__, __LINE__, #cond, (unsigned long long)SEED,   \
                        grid_no, what);                                        \
            fail();                                                            \
        }                                                                      \
    } while (0)

static bool
close_to(double a, double b, double rel)
{
    return fabs(a - b) <= rel * (1.0 + fabs(b));
}

/* ---- the model ----------------------------------------------------------- */

/* The model (an independent Dijkstra) is in dijkstra.h. */

/* Heuristic distance as documented: octile, Manhattan, ... (unscaled). */
static double
heur_dist(gc_heuristic hk, gc_diag_rule rule, gc_cell a, gc_cell b)
{
    double ax = fabs((double)a.x - b.x), ay = fabs((double)a.y - b.y);
    double mx = ax > ay ? ax : ay, mn = ax > ay ? ay : ax;
    if (hk == GC_HEUR_DEFAULT || hk == GC_HEUR_ZERO)
        hk = rule == GC_DIAG_NEVER ? GC_HEUR_MANHATTAN : GC_HEUR_OCTILE;
    switch (hk) {
    case GC_HEUR_MANHATTAN:
        return ax + ay;
    case GC_HEUR_EUCLIDEAN:
        return sqrt(ax * ax + ay * ay);
    case GC_HEUR_CHEBYSHEV:
        return mx;
    default:
        return mx + (sqrt(2.0) - 1.0) * mn;
    }
}

/* ---- checks on answers -------------------------------------------------- */

/* A grid path from s to its last cell: adjacent legal steps whose model
 * costs add up to `cost`; returns the sum. */
static double
check_grid_path(const model *m, const gc_path *p, gc_cell s, gc_diag_rule rule,
                double cost)
{
    CHECK(p->len >= 1);
    CHECK(p->cells[0].x == s.x && p->cells[0].y == s.y);
    double sum = 0.0, fsum = 0.0;
    for (size_t i = 1; i < p->len; i++) {
        gc_cell a = p->cells[i - 1], b = p->cells[i];
        int dx = b.x - a.x, dy = b.y - a.y;
        CHECK(abs(dx) <= 1 && abs(dy) <= 1 && (dx | dy) != 0);
        CHECK(open_cell(m, b.x, b.y));
        if (m->rc == 0.0f) {
            CHECK(gc_grid_move_legal(m->g, a, b, rule));
            fsum += gc_grid_step_cost(m->g, a, b, rule);
        }
        double c = model_step(m, a.x, a.y, dx, dy, rule);
        CHECK(isfinite(c));
        sum += c;
    }
    CHECK(fabs(sum - cost) <= 1e-9 * (1.0 + cost));
    if (m->rc == 0.0f) {
        /* The grid's float step costs agree to float precision. */
        CHECK(close_to(fsum, cost, 1e-5));
        CHECK(fabs(gc_path_cost(m->g, p, rule) - cost) <= 1e-9 * (1 + cost));
    }
    return sum;
}

/* The cells containing (px +- e, py +- e) are all on the map and open. */
static bool
box_open(const model *m, double px, double py, double e)
{
    for (int k = 0; k < 4; k++) {
        double qx = px + (k & 1 ? e : -e), qy = py + (k & 2 ? e : -e);
        if (!open_cell(m, (int)floor(qx), (int)floor(qy)))
            return false;
    }
    return true;
}

/*
 * A smoothed path: from s to t, no dearer than `raw`; each piece is a legal
 * grid step or a segment that, sampled every 0.002 cells with a box of
 * half-side 0.002 around each sample, touches only open cells.  A segment
 * between cell centres on a 64x64 map that misses a grid corner misses it
 * by at least 0.5 / 91 cells, far more than the box, so a corner it passes
 * through exactly is caught and one it misses is not.
 */
static void
check_smoothed(const model *m, const gc_path *p, gc_cell s, gc_cell t,
               gc_diag_rule rule, double raw, double cost)
{
    CHECK(p->len >= 1);
    CHECK(p->cells[0].x == s.x && p->cells[0].y == s.y);
    CHECK(p->cells[p->len - 1].x == t.x && p->cells[p->len - 1].y == t.y);
    CHECK(cost <= raw * (1 + 1e-9) + 1e-12);
    CHECK(fabs(gc_polyline_cost(m->g, m->nav, m->rc, rule, p) - cost) <=
          1e-12 * (1 + cost));
    for (size_t i = 1; i < p->len; i++) {
        gc_cell a = p->cells[i - 1], b = p->cells[i];
        int dx = b.x - a.x, dy = b.y - a.y;
        if (abs(dx) <= 1 && abs(dy) <= 1) {
            CHECK(isfinite(model_step(m, a.x, a.y, dx, dy, rule)));
            continue;
        }
        double len = hypot(dx, dy);
        int n = (int)ceil(len / 0.002);
        for (int k = 0; k <= n; k++) {
            double u = (double)k / n;
            double px = a.x + 0.5 + u * dx, py = a.y + 0.5 + u * dy;
            CHECK(box_open(m, px, py, 0.002));
        }
    }
}

/* ---- random grids -------------------------------------------------------- */

/* A random cell, open if there is one after a few tries. */
static gc_cell
random_cell(const gc_grid *g)
{
    gc_cell c = {0, 0};
    for (int k = 0; k < 20; k++) {
        c.x = rnd(g->width);
        c.y = rnd(g->height);
        if (gc_grid_passable(g, c.x, c.y))
            break;
    }
    return c;
}

typedef struct sized {
    int w, h;
    gc_astar *a; /* one context for every grid of this size */
} sized;

static void
check_grid(sized *sz, gc_grid *g, double *dist, qent *heap, gc_path *p,
           gc_path *q)
{
    static const gc_heuristic heurs[] = {
        GC_HEUR_DEFAULT,   GC_HEUR_OCTILE,    GC_HEUR_MANHATTAN,
        GC_HEUR_EUCLIDEAN, GC_HEUR_CHEBYSHEV, GC_HEUR_ZERO,
    };
    int w = g->width;
    gc_nav *nav;
    assert_int_equal(gc_nav_new(&nav, g), GC_OK);
    model m = {g, nav, 0.0f};
    /* One grid in six is searched with a body radius. */
    float radius = 0.0f;
    if (rnd(6) == 0) {
        radius = (float)(rndf() * 1.5) * g->cell_size;
        m.rc = radius / g->cell_size;
    }
    gc_cell s = random_cell(g);
    gc_cell goals[3];
    for (int k = 0; k < 3; k++)
        goals[k] = random_cell(g);

    for (int rule = 0; rule < 4; rule++) {
        bool s_open = open_cell(&m, s.x, s.y);
        if (s_open)
            dijkstra(&m, s, (gc_diag_rule)rule, dist, heap);
        for (int k = 0; k < 3; k++) {
            gc_cell t = goals[k];
            bool t_open = open_cell(&m, t.x, t.y);
            double best = s_open ? dist[t.y * w + t.x] : INFINITY;
            for (size_t hi = 0; hi < sizeof heurs / sizeof heurs[0]; hi++) {
                gc_heuristic hk = heurs[hi];
                if (hk == GC_HEUR_MANHATTAN && rule != GC_DIAG_NEVER)
                    continue; /* inadmissible with diagonals */
                gc_astar_opts o;
                gc_astar_opts_init(&o);
                o.diag = (gc_diag_rule)rule;
                o.heuristic = hk;
                o.radius = radius;
                o.nav = (radius > 0.0f || rnd(2)) ? nav : NULL;
                gc_astar_stats st;
                what = gc_heuristic_name(hk);
                int rc = gc_astar_find(sz->a, g, s, t, &o, p, &st);
                CHECK(st.status == rc);
                /* AUTO picks JPS exactly when gc_algo says it applies. */
                bool jps = rule == GC_DIAG_NO_CORNER_CUT && radius == 0.0f &&
                           o.nav != NULL &&
                           (hk == GC_HEUR_DEFAULT || hk == GC_HEUR_OCTILE) &&
                           uniform_present(g);
                CHECK(st.algo == (jps ? GC_ALGO_JPS : GC_ALGO_ASTAR));
                if (!s_open || !t_open) {
                    CHECK(rc == GC_EBLOCKED);
                    continue;
                }
                if (!isfinite(best)) {
                    CHECK(rc == GC_EUNREACHABLE);
                    CHECK(!st.found);
                    CHECK(p->len == 0);
                    /* Another component: answered without a search. */
                    if (o.nav != NULL && radius == 0.0f)
                        CHECK(st.expanded == 0);
                    continue;
                }
                CHECK(rc == GC_OK);
                CHECK(st.found && !st.partial);
                CHECK(close_to(st.cost, best, 1e-9));
                CHECK(p->cells[p->len - 1].x == t.x &&
                      p->cells[p->len - 1].y == t.y);
                check_grid_path(&m, p, s, (gc_diag_rule)rule, st.cost);
                CHECK(st.expanded <= (uint64_t)g->width * g->height * 2);
                CHECK(st.opened >= st.expanded);

                /* Smoothing the same search. */
                if (hi == 0) {
                    double raw = st.cost;
                    o.smooth = true;
                    what = "smooth";
                    rc = gc_astar_find(sz->a, g, s, t, &o, q, &st);
                    CHECK(rc == GC_OK);
                    check_smoothed(&m, q, s, t, (gc_diag_rule)rule, raw,
                                   st.cost);
                    /* Smoothing a path twice changes nothing more. */
                    size_t len = q->len;
                    gc_path_smooth(g, nav, m.rc, (gc_diag_rule)rule, q);
                    CHECK(q->len <= len);
                }
            }

            /* Weighted: a path exactly when there is one, within the
             * bound. */
            gc_astar_opts o;
            gc_astar_opts_init(&o);
            o.diag = (gc_diag_rule)rule;
            o.weight = 1.0 + 2.0 * rndf();
            o.radius = radius;
            o.nav = nav;
            gc_astar_stats st;
            what = "weighted";
            int rc = gc_astar_find(sz->a, g, s, t, &o, p, &st);
            if (!s_open || !t_open) {
                CHECK(rc == GC_EBLOCKED);
                continue;
            }
            CHECK((rc == GC_OK) == isfinite(best));
            if (rc == GC_OK) {
                CHECK(st.cost <= o.weight * best * (1 + 1e-9) + 1e-9);
                CHECK(st.cost >= best * (1 - 1e-9) - 1e-9);
                check_grid_path(&m, p, s, (gc_diag_rule)rule, st.cost);
            }

            /* Partial: when the goal is out of reach, the path ends at a
             * reachable cell nearest the goal, reached optimally, the
             * cheapest among equally near ones. */
            if (!isfinite(best)) {
                gc_astar_opts_init(&o);
                o.diag = (gc_diag_rule)rule;
                o.partial = true;
                o.radius = radius;
                o.nav = nav;
                what = "partial";
                rc = gc_astar_find(sz->a, g, s, t, &o, p, &st);
                CHECK(rc == GC_EUNREACHABLE);
                CHECK(st.partial && !st.found);
                gc_cell e = p->cells[p->len - 1];
                double ge = dist[e.y * w + e.x];
                CHECK(close_to(st.cost, ge, 1e-9));
                check_grid_path(&m, p, s, (gc_diag_rule)rule, st.cost);
                double de = heur_dist(o.heuristic, (gc_diag_rule)rule, e, t);
                for (int y = 0; y < g->height; y++)
                    for (int x = 0; x < w; x++) {
                        double gx = dist[y * w + x];
                        if (!isfinite(gx))
                            continue;
                        gc_cell c = {x, y};
                        double dc =
                            heur_dist(o.heuristic, (gc_diag_rule)rule, c, t);
                        CHECK(dc >= de - 1e-12);
                        if (fabs(dc - de) <= 1e-12)
                            CHECK(gx >= ge - 1e-9 * (1 + ge));
                    }
            }
        }
    }
    /* Components agree with reachability in the model. */
    if (radius == 0.0f && open_cell(&m, s.x, s.y)) {
        static const gc_diag_rule fam[2] = {GC_DIAG_NEVER, GC_DIAG_ALWAYS};
        for (int f = 0; f < 2; f++) {
            dijkstra(&m, s, fam[f], dist, heap);
            uint32_t ls = gc_nav_component(nav, fam[f], s);
            for (int i = 0; i < w * g->height; i++) {
                gc_cell c = {i % w, i / w};
                uint32_t lc = gc_nav_component(nav, fam[f], c);
                CHECK((lc == 0) == !gc_grid_passable(g, c.x, c.y));
                CHECK((lc == ls) == isfinite(dist[i]));
            }
        }
    }
    gc_nav_free(nav);
}

static void
test_against_dijkstra(void **state)
{
    (void)state;
    rng_state = SEED;
    int ngrids = gc_test_quick() ? 200 : 2000;
    /* A pool of sizes, degenerate ones included, each with one context. */
    enum { NSIZES = 24 };
    sized sizes[NSIZES];
    int fixed[][2] = {{1, 1}, {1, 9}, {13, 1}, {2, 2}, {64, 64}, {3, 50}};
    for (int i = 0; i < NSIZES; i++) {
        if (i < (int)(sizeof fixed / sizeof fixed[0])) {
            sizes[i].w = fixed[i][0];
            sizes[i].h = fixed[i][1];
        } else {
            sizes[i].w = 1 + rnd(MAXSIDE);
            sizes[i].h = 1 + rnd(MAXSIDE);
        }
        assert_int_equal(gc_astar_new(&sizes[i].a, sizes[i].w, sizes[i].h),
                         GC_OK);
    }
    double *dist = malloc(MAXSIDE * MAXSIDE * sizeof *dist);
    qent *heap = malloc(8 * MAXSIDE * MAXSIDE * sizeof *heap);
    assert_non_null(dist);
    assert_non_null(heap);
    gc_path p, q;
    gc_path_init(&p);
    gc_path_init(&q);
    for (grid_no = 0; grid_no < ngrids; grid_no++) {
        sized *sz = &sizes[rnd(NSIZES)];
        gc_grid *g;
        assert_int_equal(gc_grid_new(&g, sz->w, sz->h), GC_OK);
        random_grid(g);
        check_grid(sz, g, dist, heap, &p, &q);
        gc_grid_free(g);
    }
    for (int i = 0; i < NSIZES; i++)
        gc_astar_free(sizes[i].a);
    gc_path_free(&p);
    gc_path_free(&q);
    free(dist);
    free(heap);
}

/* ---- jump point search ------------------------------------------------- */

/* A random grid whose passable cells all cost the same: walls at a random
 * density, sometimes with long walls broken by gaps (which make forced
 * neighbours on every side), and either walkable cells only (the absent
 * types keep unequal costs) or every passable type at one cost. */
static void
random_uniform_grid(gc_grid *g)
{
    int w = g->width, h = g->height;
    double wall = rndf() * 0.55;
    int walls = rnd(3); /* 0 none, 1 columns, 2 rows */
    int period = 2 + rnd(8);
    bool mixed = rnd(2);
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++) {
            int t = rndf() < wall ? GC_CELL_OBSTACLE : GC_CELL_WALKABLE;
            if ((walls == 1 && x % period == period - 1 && rnd(8)) ||
                (walls == 2 && y % period == period - 1 && rnd(8)))
                t = GC_CELL_OBSTACLE;
            if (t == GC_CELL_WALKABLE && mixed)
                t = rnd(3) == 0 ? GC_CELL_HIGH
                    : rnd(2)    ? GC_CELL_LOW
                                : GC_CELL_WALKABLE;
            gc_grid_set(g, x, y, t);
        }
    for (int t = 0; t < GC_CELL_NTYPES; t++)
        if (t != GC_CELL_OBSTACLE)
            gc_grid_set_cost(g, t, gc_cell_default_cost(t));
    if (mixed) {
        float c = rnd(2) ? 1.0f : (float)(0.1 + 3 * rndf());
        for (int t = 0; t < GC_CELL_NTYPES; t++)
            if (t != GC_CELL_OBSTACLE)
                gc_grid_set_cost(g, t, c);
    } else if (rnd(2)) {
        gc_grid_set_cost(g, GC_CELL_WALKABLE, (float)(0.1 + 3 * rndf()));
    }
}

/*
 * On uniform-cost grids up to 150 cells a side (so that jumps cross many
 * 64-cell windows), JPS (forced), A* (forced) and AUTO all agree with the
 * model: found exactly when Dijkstra reaches the goal, at its cost, along
 * a legal no-corner-cut path whose steps add up; AUTO runs JPS.  One
 * context per grid serves every search, JPS and A* alternating.
 */
static void
test_jps_against_dijkstra(void **state)
{
    (void)state;
    enum { JSIDE = 150 };
    rng_state = SEED ^ 0x1F5;
    int ngrids = gc_test_quick() ? 60 : 600;
    double *dist = malloc(JSIDE * JSIDE * sizeof *dist);
    qent *heap = malloc(8 * JSIDE * JSIDE * sizeof *heap);
    assert_non_null(dist);
    assert_non_null(heap);
    gc_path p, q;
    gc_path_init(&p);
    gc_path_init(&q);
    static const int sides[] = {1, 2, 3, 62, 63, 64, 65, 66, 127, 128, 129};
    const int nsides = (int)(sizeof sides / sizeof sides[0]);
    const gc_diag_rule ncc = GC_DIAG_NO_CORNER_CUT;
    uint64_t jps_expanded = 0, astar_expanded = 0;
    for (grid_no = 0; grid_no < ngrids; grid_no++) {
        int w = rnd(3) ? 1 + rnd(JSIDE) : sides[rnd(nsides)];
        int h = rnd(3) ? 1 + rnd(JSIDE) : sides[rnd(nsides)];
        gc_grid *g;
        assert_int_equal(gc_grid_new(&g, w, h), GC_OK);
        random_uniform_grid(g);
        CHECK(uniform_present(g));
        gc_nav *nav;
        assert_int_equal(gc_nav_new(&nav, g), GC_OK);
        gc_astar *a;
        assert_int_equal(gc_astar_new(&a, w, h), GC_OK);
        model m = {g, nav, 0.0f};
        for (int k = 0; k < 4; k++) {
            gc_cell s = random_cell(g);
            bool s_open = open_cell(&m, s.x, s.y);
            if (s_open)
                dijkstra(&m, s, ncc, dist, heap);
            for (int l = 0; l < 4; l++) {
                gc_cell t = random_cell(g);
                bool t_open = open_cell(&m, t.x, t.y);
                double best = s_open ? dist[t.y * w + t.x] : INFINITY;
                gc_astar_opts o;
                gc_astar_opts_init(&o);
                o.nav = nav;
                static const gc_algo algos[] = {GC_ALGO_JPS, GC_ALGO_ASTAR,
                                                GC_ALGO_AUTO};
                double cost[3];
                for (int ai = 0; ai < 3; ai++) {
                    o.algo = algos[ai];
                    what = gc_algo_name(o.algo);
                    gc_astar_stats st;
                    gc_path *r = ai == 1 ? &q : &p;
                    int rc = gc_astar_find(a, g, s, t, &o, r, &st);
                    CHECK(st.status == rc);
                    CHECK(st.algo == (ai == 1 ? GC_ALGO_ASTAR : GC_ALGO_JPS));
                    if (!s_open || !t_open) {
                        CHECK(rc == GC_EBLOCKED);
                        continue;
                    }
                    if (!isfinite(best)) {
                        CHECK(rc == GC_EUNREACHABLE);
                        CHECK(r->len == 0);
                        continue;
                    }
                    CHECK(rc == GC_OK);
                    CHECK(st.found && !st.partial);
                    CHECK(close_to(st.cost, best, 1e-9));
                    CHECK(r->cells[r->len - 1].x == t.x &&
                          r->cells[r->len - 1].y == t.y);
                    check_grid_path(&m, r, s, ncc, st.cost);
                    cost[ai] = st.cost;
                    if (ai == 0)
                        jps_expanded += st.expanded;
                    else if (ai == 1)
                        astar_expanded += st.expanded;
                }
                if (s_open && t_open && isfinite(best)) {
                    CHECK(close_to(cost[0], cost[1], 1e-9));
                    CHECK(cost[0] == cost[2]);
                }
            }
        }
        gc_astar_free(a);
        gc_nav_free(nav);
        gc_grid_free(g);
    }
    /* The point of it: far fewer expansions. */
    CHECK(jps_expanded * 2 < astar_expanded);
    gc_path_free(&p);
    gc_path_free(&q);
    free(dist);
    free(heap);
}

/* A context reused for many searches answers exactly as fresh ones. */
static void
test_reuse(void **state)
{
    (void)state;
    rng_state = SEED ^ 0x5555;
    int nsearch = gc_test_quick() ? 1000 : 10000;
    const int w = 24, h = 17;
    gc_astar *reused;
    assert_int_equal(gc_astar_new(&reused, w, h), GC_OK);
    gc_grid *g;
    assert_int_equal(gc_grid_new(&g, w, h), GC_OK);
    gc_path p, q;
    gc_path_init(&p);
    gc_path_init(&q);
    what = "reuse";
    int nfound = 0;
    for (grid_no = 0; grid_no < nsearch; grid_no++) {
        if (grid_no % 4 == 0)
            random_grid(g);
        gc_cell s = random_cell(g), t = random_cell(g);
        gc_astar_opts o;
        gc_astar_opts_init(&o);
        o.diag = (gc_diag_rule)rnd(4);
        o.partial = rnd(2);
        o.max_expansions = rnd(8) == 0 ? (uint64_t)rnd(100) + 1 : 0;
        gc_astar_stats sa, sb;
        int ra = gc_astar_find(reused, g, s, t, &o, &p, &sa);
        gc_astar *fresh;
        assert_int_equal(gc_astar_new(&fresh, w, h), GC_OK);
        int rb = gc_astar_find(fresh, g, s, t, &o, &q, &sb);
        gc_astar_free(fresh);
        CHECK(ra == rb);
        CHECK(sa.found == sb.found && sa.partial == sb.partial);
        CHECK(sa.cost == sb.cost || (isinf(sa.cost) && isinf(sb.cost)));
        CHECK(sa.expanded == sb.expanded && sa.opened == sb.opened);
        CHECK(p.len == q.len);
        CHECK(p.len == 0 ||
              memcmp(p.cells, q.cells, p.len * sizeof *p.cells) == 0);
        nfound += sa.found;
    }
    /* Equal answers prove nothing if both contexts failed every search. */
    CHECK(nfound > nsearch / 2);
    gc_astar_free(reused);
    gc_grid_free(g);
    gc_path_free(&p);
    gc_path_free(&q);
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_against_dijkstra),
        cmocka_unit_test(test_reuse),
        cmocka_unit_test(test_jps_against_dijkstra),
    };
    return cmocka_run_group_tests_name("astar_props", tests, NULL, NULL);
}
