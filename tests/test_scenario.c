/*
 * test_scenario.c: scenario files (src/scenario*.c): the parser on a file
 * that uses every key, one bad file per error path with its exact message
 * and position, the rasteriser against cells computed by hand, the shipped
 * scenarios (scenarios/), and the load time of a generated scenario with
 * 100,000 polygon vertices (a tenth under GC_TEST_QUICK=1).
 *
 * Pictures: a rasterised shape is drawn as rows of '#' (taken) and '.'
 * (left), top row first, so that an expected result reads like the
 * drawing it was computed from.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "quick.h"

#include <gridcrowd/mapio.h>
#include <gridcrowd/scenario.h>
#include <gridcrowd/util.h>

#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* ---- helpers ------------------------------------------------------------- */

/* GC_TEST_QUICK=1 (CI's valgrind stage) makes the generated files a tenth
 * of their size. */

static void
src_path(char *buf, size_t size, const char *rel)
{
    const char *d = getenv("GC_SRCDIR");
    if (d == NULL || *d == '\0')
        d = ".";
    int n = snprintf(buf, size, "%s/%s", d, rel);
    assert_true(n > 0 && (size_t)n < size);
}

/* The picture of cells[n] on a w x h grid (a static buffer). */
static const char *
picture(const gc_cell *cells, size_t n, int32_t w, int32_t h)
{
    static char buf[4096];
    assert_true((size_t)((w + 1) * h) < sizeof buf);
    for (int32_t y = 0; y < h; y++) {
        memset(buf + y * (w + 1), '.', (size_t)w);
        buf[y * (w + 1) + w] = '\n';
    }
    buf[(w + 1) * h] = '\0';
    for (size_t i = 0; i < n; i++) {
        assert_true(cells[i].x >= 0 && cells[i].x < w);
        assert_true(cells[i].y >= 0 && cells[i].y < h);
        buf[cells[i].y * (w + 1) + cells[i].x] = '#';
        /* Sorted by row, then column, without duplicates. */
        if (i > 0)
            assert_true(
                cells[i - 1].y < cells[i].y ||
                (cells[i - 1].y == cells[i].y && cells[i - 1].x < cells[i].x));
    }
    return buf;
}

/* Rasterise `s` on a w x h grid of `cs` cells under `rule` and compare the
 * picture with `want`. */
static void
check_cells(const gc_shape *s, int32_t w, int32_t h, double cs,
            gc_raster_rule rule, const char *want)
{
    gc_cell *cells;
    size_t n;
    assert_int_equal(gc_scenario_shape_cells(s, w, h, cs, rule, &cells, &n),
                     GC_OK);
    assert_string_equal(picture(cells, n, w, h), want);
    free(cells);
}

static gc_shape
rect(double x0, double y0, double x1, double y1)
{
    gc_shape s = {.kind = GC_SHAPE_RECT, .type = GC_CELL_OBSTACLE};
    s.a = (gc_point){x0, y0};
    s.b = (gc_point){x1, y1};
    return s;
}

static gc_shape
circle(double x, double y, double r)
{
    gc_shape s = {.kind = GC_SHAPE_CIRCLE, .type = GC_CELL_OBSTACLE};
    s.a = (gc_point){x, y};
    s.radius = r;
    return s;
}

static gc_shape
poly(gc_shape_kind kind, gc_point *pts, size_t n, double thickness)
{
    gc_shape s = {.kind = kind, .type = GC_CELL_OBSTACLE};
    s.pts = pts;
    s.npts = n;
    s.thickness = thickness;
    return s;
}

/* ---- rasterisation ------------------------------------------------------- */

/* A rect drawn on cell lines takes exactly the cells inside, even when its
 * ends land a rounding error past the lines (0.3 / 0.1 is 2.9999999999999996):
 * positive overlap, not touching, counts. */
static void
test_rect_on_lines(void **state)
{
    (void)state;
    gc_shape s = rect(0.3, 0.1, 0.5, 0.4);
    const char *want = "......\n"
                       "...##.\n"
                       "...##.\n"
                       "...##.\n"
                       "......\n";
    check_cells(&s, 6, 5, 0.1, GC_RASTER_OVERLAP, want);
    check_cells(&s, 6, 5, 0.1, GC_RASTER_CENTRE, want);
}

/* A rect inside one cell: the obstacle rule takes the cell, the centre rule
 * does not (the centre is not covered). */
static void
test_rect_inside_cell(void **state)
{
    (void)state;
    gc_shape s = rect(1.2, 1.2, 1.4, 1.4);
    check_cells(&s, 3, 3, 1.0, GC_RASTER_OVERLAP, "...\n.#.\n...\n");
    check_cells(&s, 3, 3, 1.0, GC_RASTER_CENTRE, "...\n...\n...\n");
    /* Off the grid on three sides: clipped. */
    s = rect(-5, -5, 1.5, 0.5);
    check_cells(&s, 3, 3, 1.0, GC_RASTER_OVERLAP, "##.\n...\n...\n");
}

/* A 0.01 thick wall along a cell line takes both rows it lies on; in the
 * middle of a row, that row only.  Its ends are cut square: x from 0.5 to
 * 3.5 takes columns 0 to 3. */
static void
test_thin_wall(void **state)
{
    (void)state;
    gc_point on_line[] = {{0.5, 2.0}, {3.5, 2.0}};
    gc_shape s = poly(GC_SHAPE_WALL, on_line, 2, 0.01);
    check_cells(&s, 5, 4, 1.0, GC_RASTER_OVERLAP,
                ".....\n####.\n####.\n.....\n");
    gc_point mid[] = {{0.5, 1.5}, {3.5, 1.5}};
    s = poly(GC_SHAPE_WALL, mid, 2, 0.01);
    check_cells(&s, 5, 4, 1.0, GC_RASTER_OVERLAP,
                ".....\n####.\n.....\n.....\n");
}

/* A 0.01 thick diagonal wall through the cells' corners: the cells it
 * crosses, and both cells beside each corner it passes, because the
 * wall's width reaches into them (by 0.005 * sqrt 2 at the corner): no
 * diagonal gap is left to squeeze through. */
static void
test_diagonal_wall(void **state)
{
    (void)state;
    gc_point p[] = {{0, 0}, {4, 4}};
    gc_shape s = poly(GC_SHAPE_WALL, p, 2, 0.01);
    check_cells(&s, 4, 4, 1.0, GC_RASTER_OVERLAP, "##..\n###.\n.###\n..##\n");
    /* The same wall in world units of 0.5 m cells. */
    gc_point q[] = {{0, 0}, {2, 2}};
    s = poly(GC_SHAPE_WALL, q, 2, 0.005);
    check_cells(&s, 4, 4, 0.5, GC_RASTER_OVERLAP, "##..\n###.\n.###\n..##\n");
}

/* Joints are round: the L's outer corner cell (3, 0) is taken by the disc
 * at the joint.  Under the centre rule (a 1 m road) the half-open edges
 * decide. */
static void
test_wall_joint(void **state)
{
    (void)state;
    gc_point p[] = {{1, 1}, {3, 1}, {3, 3}};
    gc_shape s = poly(GC_SHAPE_WALL, p, 3, 0.5);
    check_cells(&s, 5, 5, 1.0, GC_RASTER_OVERLAP,
                ".###.\n.###.\n..##.\n.....\n.....\n");
    s = poly(GC_SHAPE_WALL, p, 3, 1.0);
    check_cells(&s, 5, 5, 1.0, GC_RASTER_CENTRE,
                ".##..\n..#..\n..#..\n.....\n.....\n");
}

/* A circle through the corners of the four corner cells leaves them: it
 * only touches them.  A circle of radius 1 touches eight cells at an edge
 * midpoint and takes only the four around its centre; a hair larger, it
 * takes those eight too. */
static void
test_circle_corner(void **state)
{
    (void)state;
    gc_shape s = circle(2, 2, sqrt(2.0));
    check_cells(&s, 4, 4, 1.0, GC_RASTER_OVERLAP, ".##.\n####\n####\n.##.\n");
    s = circle(2, 2, 1.0);
    check_cells(&s, 4, 4, 1.0, GC_RASTER_OVERLAP, "....\n.##.\n.##.\n....\n");
    s = circle(2, 2, 1.01);
    check_cells(&s, 4, 4, 1.0, GC_RASTER_OVERLAP, ".##.\n####\n####\n.##.\n");
    /* Centre rule: the centres within the radius. */
    s = circle(2, 2, 1.0);
    check_cells(&s, 4, 4, 1.0, GC_RASTER_CENTRE, "....\n.##.\n.##.\n....\n");
    s = circle(2, 2, 1.6);
    check_cells(&s, 4, 4, 1.0, GC_RASTER_CENTRE, ".##.\n####\n####\n.##.\n");
}

/* A concave U: on cell lines, and shifted half a cell, where the notch
 * between the legs must stay free under both rules. */
static void
test_concave_polygon(void **state)
{
    (void)state;
    gc_point u[] = {{1, 1}, {5, 1}, {5, 4}, {4, 4},
                    {4, 2}, {2, 2}, {2, 4}, {1, 4}};
    gc_shape s = poly(GC_SHAPE_POLYGON, u, 8, 0);
    const char *want = "......\n.####.\n.#..#.\n.#..#.\n......\n";
    check_cells(&s, 6, 5, 1.0, GC_RASTER_OVERLAP, want);
    check_cells(&s, 6, 5, 1.0, GC_RASTER_CENTRE, want);

    gc_point v[8];
    for (size_t i = 0; i < 8; i++)
        v[i] = (gc_point){u[i].x + 0.5, u[i].y + 0.5};
    s = poly(GC_SHAPE_POLYGON, v, 8, 0);
    check_cells(&s, 7, 6, 1.0, GC_RASTER_OVERLAP,
                ".......\n.#####.\n.#####.\n.##.##.\n.##.##.\n.......\n");
    check_cells(&s, 7, 6, 1.0, GC_RASTER_CENTRE,
                ".......\n.####..\n.#..#..\n.#..#..\n.......\n.......\n");

    /* Clockwise or counter-clockwise: the same cells. */
    gc_point r[8];
    for (size_t i = 0; i < 8; i++)
        r[i] = v[7 - i];
    s = poly(GC_SHAPE_POLYGON, r, 8, 0);
    check_cells(&s, 7, 6, 1.0, GC_RASTER_OVERLAP,
                ".......\n.#####.\n.#####.\n.##.##.\n.##.##.\n.......\n");
}

/* A triangle inside one cell, and a diagonal edge: the cells an edge
 * crosses are taken even when their centres are outside. */
static void
test_small_polygon(void **state)
{
    (void)state;
    gc_point t[] = {{1.2, 1.2}, {1.4, 1.2}, {1.3, 1.4}};
    gc_shape s = poly(GC_SHAPE_POLYGON, t, 3, 0);
    check_cells(&s, 3, 3, 1.0, GC_RASTER_OVERLAP, "...\n.#.\n...\n");
    check_cells(&s, 3, 3, 1.0, GC_RASTER_CENTRE, "...\n...\n...\n");
    /* The triangle below the diagonal of a 4 x 4 square. */
    gc_point d[] = {{0, 0}, {4, 4}, {0, 4}};
    s = poly(GC_SHAPE_POLYGON, d, 3, 0);
    check_cells(&s, 4, 4, 1.0, GC_RASTER_OVERLAP, "#...\n##..\n###.\n####\n");
    /* The centres on the diagonal are on the triangle's right edge: out. */
    check_cells(&s, 4, 4, 1.0, GC_RASTER_CENTRE, "....\n#...\n##..\n###.\n");
}

/* ---- an independent model of the polygon rules ---------------------------
 * Written from the definitions, not from the rasteriser's method: a cell
 * overlaps a polygon when the polygon clipped to the cell (Sutherland-
 * Hodgman, exact for a concave polygon against a convex window) has an
 * area; a centre is covered when a ray to the right crosses an odd number
 * of edges (edges taken half-open in y, a crossing counted when strictly
 * right of the centre: the same half-open rule). */

static size_t
clip_half(const gc_point *in, size_t n, gc_point *out, int axis, double v,
          int keep_below)
{
    size_t m = 0;
    for (size_t i = 0; i < n; i++) {
        gc_point a = in[i], b = in[(i + 1) % n];
        double da = (axis ? a.y : a.x) - v, db = (axis ? b.y : b.x) - v;
        if (keep_below) {
            da = -da;
            db = -db;
        }
        if (da >= 0)
            out[m++] = a;
        if ((da >= 0) != (db >= 0)) {
            double t = da / (da - db);
            out[m++] = (gc_point){a.x + t * (b.x - a.x), a.y + t * (b.y - a.y)};
        }
    }
    return m;
}

static double
model_overlap_area(const gc_point *p, size_t n, int x, int y)
{
    gc_point a[64], b[64];
    assert_true(n <= 16);
    memcpy(a, p, n * sizeof *p);
    n = clip_half(a, n, b, 0, x, 0);
    n = clip_half(b, n, a, 0, x + 1, 1);
    n = clip_half(a, n, b, 1, y, 0);
    n = clip_half(b, n, a, 1, y + 1, 1);
    double s2 = 0;
    for (size_t i = 0; i < n; i++)
        s2 += a[i].x * a[(i + 1) % n].y - a[(i + 1) % n].x * a[i].y;
    return fabs(s2) / 2;
}

static bool
model_centre_in(const gc_point *p, size_t n, double cx, double cy)
{
    bool in = false;
    for (size_t i = 0; i < n; i++) {
        gc_point a = p[i], b = p[(i + 1) % n];
        if ((a.y <= cy && cy < b.y) || (b.y <= cy && cy < a.y)) {
            double x = a.x + (cy - a.y) * (b.x - a.x) / (b.y - a.y);
            if (x > cx)
                in = !in;
        }
    }
    return in;
}

/* 300 random star-shaped (simple, mostly concave) polygons of 3 to 16
 * vertices, partly off a 12 x 10 grid, under both rules, against the
 * model. */
static void
test_polygon_model(void **state)
{
    (void)state;
    srand(12345);
    enum { W = 12, H = 10 };
    for (int trial = 0; trial < 300; trial++) {
        size_t n = 3 + (size_t)(rand() % 14);
        gc_point p[16];
        double cx = -2 + 16.0 * rand() / RAND_MAX;
        double cy = -2 + 14.0 * rand() / RAND_MAX;
        for (size_t i = 0; i < n; i++) {
            double a =
                2 * M_PI * ((double)i + 0.8 * rand() / RAND_MAX) / (double)n;
            double r = 0.2 + 5.0 * rand() / RAND_MAX;
            p[i] = (gc_point){cx + r * cos(a), cy + r * sin(a)};
        }
        gc_shape s = poly(GC_SHAPE_POLYGON, p, n, 0);
        for (int rule = 0; rule < 2; rule++) {
            gc_cell *cells;
            size_t nc;
            assert_int_equal(gc_scenario_shape_cells(&s, W, H, 1.0,
                                                     (gc_raster_rule)rule,
                                                     &cells, &nc),
                             GC_OK);
            char got[W * H], want[W * H];
            memset(got, 0, sizeof got);
            for (size_t i = 0; i < nc; i++)
                got[cells[i].y * W + cells[i].x] = 1;
            free(cells);
            for (int y = 0; y < H; y++)
                for (int x = 0; x < W; x++)
                    want[y * W + x] =
                        rule == GC_RASTER_OVERLAP
                            ? model_overlap_area(p, n, x, y) > 1e-12
                            : model_centre_in(p, n, x + 0.5, y + 0.5);
            for (int k = 0; k < W * H; k++)
                if (got[k] != want[k])
                    fail_msg("trial %d, %s rule, cell (%d, %d): got %d, the "
                             "model %d",
                             trial, rule ? "centre" : "overlap", k % W, k / W,
                             got[k], want[k]);
        }
    }
}

/* Drawing over a grid lists only the cells whose type changed. */
static void
test_shape_apply(void **state)
{
    (void)state;
    gc_grid *g;
    assert_int_equal(gc_grid_new(&g, 4, 4), GC_OK);
    assert_int_equal(gc_grid_set(g, 1, 1, GC_CELL_OBSTACLE), GC_OK);
    uint64_t gen = g->generation;
    gc_shape s = rect(0, 0, 2, 2);
    gc_cell *changed;
    size_t n;
    assert_int_equal(gc_scenario_shape_apply(g, 0, &s, &changed, &n), GC_OK);
    assert_int_equal(n, 3);
    assert_string_equal(picture(changed, n, 4, 4), "##..\n#...\n....\n....\n");
    free(changed);
    assert_true(g->generation > gen);
    assert_int_equal(gc_grid_get(g, 1, 1), GC_CELL_OBSTACLE);

    /* Again: nothing changes, nothing is listed. */
    assert_int_equal(gc_scenario_shape_apply(g, 0, &s, &changed, &n), GC_OK);
    assert_int_equal(n, 0);
    assert_null(changed);

    /* A cost area takes the centres (over the obstacle at (1, 0): shapes
     * are drawn in order); walkable paint opens a door. */
    s = rect(1.5, 0, 4, 1);
    s.type = GC_CELL_HIGH;
    assert_int_equal(gc_scenario_shape_apply(g, 0, &s, NULL, NULL), GC_OK);
    s = rect(0, 0, 1, 1);
    s.type = GC_CELL_WALKABLE;
    assert_int_equal(gc_scenario_shape_apply(g, 0, &s, NULL, NULL), GC_OK);
    const char glyphs[] = ".SSS";
    for (int x = 0; x < 4; x++)
        assert_int_equal(gc_cell_type_glyph(gc_grid_get(g, x, 0)), glyphs[x]);

    /* Areas (type -1) are not painted. */
    s.type = -1;
    assert_int_equal(gc_scenario_shape_apply(g, 0, &s, NULL, NULL), GC_EINVAL);
    assert_int_equal(
        gc_scenario_shape_cells(NULL, 4, 4, 1, GC_RASTER_CENTRE, &changed, &n),
        GC_EINVAL);
    gc_grid_free(g);
}

/* ---- the parser ---------------------------------------------------------- */

static gc_scenario *
load_ok(const char *rel)
{
    char path[1024];
    src_path(path, sizeof path, rel);
    gc_scenario *s = NULL;
    gc_error err;
    int rc = gc_scenario_load(&s, path, &err);
    if (rc != GC_OK)
        fail_msg("%s: %s", rel, err.msg);
    assert_non_null(s);
    return s;
}

/* good.json uses every key once; check that each arrived where it should. */
static void
test_good(void **state)
{
    (void)state;
    gc_scenario *s = load_ok("tests/data/scenario/good.json");
    assert_string_equal(s->name, "every key");
    assert_int_equal(s->seed, 7);
    assert_null(s->map);
    assert_true(s->width == 10 && s->height == 8 && s->cell_size == 0.5);
    assert_int_equal(s->grid_w, 20);
    assert_int_equal(s->grid_h, 16);

    assert_int_equal(s->nshapes, 5);
    assert_int_equal(s->shapes[0].kind, GC_SHAPE_RECT);
    assert_int_equal(s->shapes[0].type, GC_CELL_OBSTACLE);
    assert_int_equal(s->shapes[0].line, 10);
    assert_int_equal(s->shapes[1].kind, GC_SHAPE_WALL);
    assert_int_equal(s->shapes[1].npts, 3);
    assert_true(s->shapes[1].thickness == 0.1);
    assert_string_equal(s->shapes[1].id, "inner");
    assert_int_equal(s->shapes[2].kind, GC_SHAPE_CIRCLE);
    assert_int_equal(s->shapes[2].type, GC_CELL_HIGH);
    assert_true(s->shapes[2].radius == 0.75);
    assert_int_equal(s->shapes[3].kind, GC_SHAPE_POLYGON);
    assert_int_equal(s->shapes[3].type, GC_CELL_LOW);
    assert_int_equal(s->shapes[4].kind, GC_SHAPE_CELLS);
    assert_int_equal(s->shapes[4].ncells, 2);
    assert_int_equal(s->shapes[4].cells[1].x, 19);

    assert_int_equal(s->nexits, 2);
    assert_string_equal(s->exits[1].name, "south");
    assert_int_equal(s->exits[1].area.type, -1);

    assert_int_equal(s->ngroups, 6);
    const gc_scenario_group *w = &s->groups[0];
    assert_int_equal(w->count, 20);
    assert_true(w->has_spawn);
    assert_true(w->radius == 0.25 && w->turn_rate == 360);
    assert_true(w->speed.mean == 1.34 && w->speed.sd == 0.26 &&
                w->speed.min == 0.8 && w->speed.max == 1.8);
    assert_int_equal(w->goal.kind, GC_GOAL_EXITS);
    assert_int_equal(w->goal.nexits, 2);
    assert_int_equal(w->goal.exits[1], 1);
    /* A fixed speed and the defaults. */
    assert_true(s->groups[1].speed.mean == 1.0 && s->groups[1].speed.sd == 0 &&
                s->groups[1].speed.min == 1.0 && s->groups[1].speed.max == 1.0);
    assert_true(s->groups[1].radius == 0.2 && s->groups[1].turn_rate == 0);
    assert_int_equal(s->groups[1].goal.kind, GC_GOAL_ROUTE);
    assert_int_equal(s->groups[1].goal.nareas, 2);
    assert_int_equal(s->groups[1].goal.areas[1].kind, GC_SHAPE_POLYGON);
    assert_int_equal(s->groups[2].count, 0);
    assert_true(s->groups[2].speed.mean == 1.34);
    assert_int_equal(s->groups[2].goal.kind, GC_GOAL_FOLLOW);
    assert_int_equal(s->groups[2].goal.group, 1);
    assert_int_equal(s->groups[3].goal.kind, GC_GOAL_WANDER);
    assert_true(s->groups[3].goal.radius == 2.5);
    assert_int_equal(s->groups[4].goal.kind, GC_GOAL_POINT);
    assert_true(s->groups[4].goal.point.x == 1 &&
                s->groups[4].goal.point.y == 7);
    assert_int_equal(s->groups[5].goal.kind, GC_GOAL_NONE);
    assert_int_equal(s->groups[5].spawn.kind, GC_SHAPE_CELLS);

    assert_int_equal(s->nsources, 2);
    assert_int_equal(s->sources[0].group, 2);
    assert_true(s->sources[0].rate == 0.5 && s->sources[0].start == 2 &&
                s->sources[0].end == 40);
    assert_int_equal(s->sources[0].total, 10);
    assert_true(s->sources[0].enabled);
    assert_true(isinf(s->sources[1].end));
    assert_int_equal(s->sources[1].total, -1);
    assert_false(s->sources[1].enabled);

    assert_int_equal(s->nevents, 7);
    assert_int_equal(s->events[0].kind, GC_EVENT_PAINT);
    assert_int_equal(s->events[0].shape.type, GC_CELL_OBSTACLE);
    assert_int_equal(s->events[1].kind, GC_EVENT_ADD_SHAPE);
    assert_string_equal(s->events[1].shape.id, "bench");
    assert_int_equal(s->events[2].kind, GC_EVENT_REMOVE_SHAPE);
    assert_string_equal(s->events[2].target, "bench");
    assert_string_equal(s->events[3].target, "inner");
    assert_int_equal(s->events[4].kind, GC_EVENT_SET_GOAL);
    assert_int_equal(s->events[4].group, 0);
    assert_int_equal(s->events[4].goal.nexits, 2);
    assert_int_equal(s->events[5].kind, GC_EVENT_START_SOURCE);
    assert_int_equal(s->events[5].source, 1);
    assert_int_equal(s->events[6].kind, GC_EVENT_STOP_SOURCE);
    assert_true(s->events[6].time == 50);
    assert_int_equal(s->events[6].line, 55);

    assert_true(s->stop.when_done);
    assert_true(s->stop.time_limit == 600);

    /* The grid: the wall, the circle of high cost, the low triangle, the
     * two corner cells, drawn in file order. */
    gc_grid *g;
    gc_error err;
    assert_int_equal(gc_scenario_grid(s, &g, &err), GC_OK);
    assert_true(g->cell_size == 0.5f);
    assert_int_equal(gc_grid_get(g, 0, 0), GC_CELL_OBSTACLE);
    assert_int_equal(gc_grid_get(g, 0, 1), GC_CELL_WALKABLE);
    assert_int_equal(gc_grid_get(g, 4, 3), GC_CELL_OBSTACLE);
    assert_int_equal(gc_grid_get(g, 12, 9), GC_CELL_OBSTACLE);
    assert_int_equal(gc_grid_get(g, 13, 9), GC_CELL_WALKABLE);
    assert_int_equal(gc_grid_get(g, 15, 11), GC_CELL_HIGH);
    assert_int_equal(gc_grid_get(g, 2, 10), GC_CELL_LOW);
    assert_int_equal(gc_grid_get(g, 19, 15), GC_CELL_OBSTACLE);
    gc_grid_free(g);
    gc_scenario_free(s);
}

/* A map with shapes drawn over it: a door opened in its top wall, a thin
 * wall across the room (over the 'S' cell), a low-cost cell. */
static void
test_map_shapes(void **state)
{
    (void)state;
    gc_scenario *s = load_ok("tests/data/scenario/map-shapes.json");
    assert_non_null(s->map);
    assert_non_null(strstr(s->map_path, "tests/data/scenario/room.map"));
    assert_int_equal(s->grid_w, 6);
    assert_int_equal(s->grid_h, 4);
    assert_true(s->width == 3.0 && s->height == 2.0);
    gc_grid *g;
    assert_int_equal(gc_scenario_grid(s, &g, NULL), GC_OK);
    char *text;
    size_t len;
    assert_int_equal(gc_map_format(g, &text, &len), GC_OK);
    assert_string_equal(text, "type octile\nheight 4\nwidth 6\nmap\n"
                              "@@.@@@\n"
                              "@...R@\n"
                              "@@@@@@\n"
                              "@@@@@@\n");
    free(text);
    /* The map itself is left as it was read. */
    assert_int_equal(gc_grid_get(s->map, 3, 2), GC_CELL_HIGH);
    gc_grid_free(g);
    gc_scenario_free(s);
}

/* One bad file per error path: the code and the exact message after
 * "FILE:" ({DIR} stands for the data folder, in a message that names
 * another file). */
static const struct {
    const char *file;
    int code;
    const char *msg;
} bad_files[] = {
    {"bad-cell-size.json", GC_ERANGE,
     "2:45: geometry.cell_size: 0 m is out of range (0.001 to 100 m)"},
    {"bad-cell-type.json", GC_EPARSE,
     "3:51: geometry.shapes[0].type: unknown cell type 'lava' "
     "(obstacle, high, low, walkable)"},
    {"bad-cells-fraction.json", GC_EPARSE,
     "3:31: geometry.shapes[0].cells[0][1]: expected an integer, found "
     "a fraction"},
    {"bad-cells-range.json", GC_ERANGE,
     "3:36: geometry.shapes[0].cells[1][0]: 4 cells is out of range (0 "
     "to 3 cells)"},
    {"bad-circle-radius.json", GC_ERANGE,
     "3:45: geometry.shapes[0].radius: -1 m is out of range (more than "
     "0, at most 1e+06 m)"},
    {"bad-coord.json", GC_ERANGE,
     "3:49: geometry.shapes[0].polygon[2][1]: 3e+07 m is out of range "
     "(-1e+06 to 1e+06 m)"},
    {"bad-count-fraction.json", GC_EPARSE,
     "3:37: groups[0].count: expected an integer, found a fraction"},
    {"bad-count.json", GC_ERANGE,
     "3:37: groups[0].count: -3 agents is out of range (0 to 10000000 "
     "agents)"},
    {"bad-duplicate.json", GC_EPARSE,
     "4:8: duplicate object key near '\"seed\"'"},
    {"bad-escaped-key.json", GC_EPARSE,
     "2:57: geometry.shapes[0].rect: expected two opposite corners "
     "[[x0, y0], [x1, y1]], found a number"},
    {"bad-event-add-dup.json", GC_EPARSE,
     "3:66: events[0].add.id: shape id 'door' is already used by "
     "geometry.shapes[0]"},
    {"bad-event-goal.json", GC_EPARSE,
     "4:38: events[0].set_goal: missing key 'goal'"},
    {"bad-event-none.json", GC_EPARSE,
     "3:14: events[0]: an event needs one of: paint, add, remove, "
     "set_goal, start_source, stop_source"},
    {"bad-event-notime.json", GC_EPARSE, "3:14: events[0]: missing key 'time'"},
    {"bad-event-remove.json", GC_EPARSE,
     "3:36: events[0].remove: no shape with id 'door' in the geometry "
     "or in an earlier add event"},
    {"bad-event-source.json", GC_EPARSE,
     "3:41: events[0].stop_source: no source named 's'"},
    {"bad-event-time.json", GC_ERANGE,
     "3:23: events[0].time: -1 s is out of range (0 to 1e+07 s)"},
    {"bad-event-two.json", GC_EPARSE,
     "3:63: events[0].remove: 'paint' and 'remove' both given: an event "
     "has one"},
    {"bad-exit-dup.json", GC_EPARSE,
     "4:22: exits[1].name: exit name 'x' is already used by exits[0]"},
    {"bad-goal-all.json", GC_EPARSE,
     "3:46: groups[0].goal.exits: \"all\" exits, but the scenario has "
     "none"},
    {"bad-goal-exit.json", GC_EPARSE,
     "4:52: groups[0].goal.exits[1]: no exit named 'y'"},
    {"bad-goal-follow-self.json", GC_EPARSE,
     "3:47: groups[0].goal.follow: a group cannot follow itself"},
    {"bad-goal-follow.json", GC_EPARSE,
     "3:47: groups[0].goal.follow: no group named 'b'"},
    {"bad-goal-none.json", GC_EPARSE,
     "3:36: groups[0].goal: a goal needs one of: point, area, exits, "
     "route, wander, follow"},
    {"bad-goal-point.json", GC_ERANGE,
     "3:46: groups[0].goal.point: (5, 1) m is outside the world (0 to "
     "4, 0 to 4 m)"},
    {"bad-group-dup.json", GC_EPARSE,
     "3:38: groups[1].name: group name 'a' is already used by groups[0]"},
    {"bad-group-noname.json", GC_EPARSE, "3:14: groups[0]: missing key 'name'"},
    {"bad-map-and-size.json", GC_EPARSE,
     "2:35: geometry.size: 'map' and 'size' both given: the map sets "
     "the size"},
    {"bad-map-missing.json", GC_ENOENT,
     "2:23: geometry.map: cannot read the map: {DIR}nowhere.map: No "
     "such file or directory"},
    {"bad-missing-geometry.json", GC_EPARSE, "1:1: missing key 'geometry'"},
    {"bad-name-empty.json", GC_EPARSE,
     "2:11: name: expected a name, found \"\""},
    {"bad-no-size.json", GC_EPARSE,
     "2:15: geometry: the geometry needs 'map' or 'size'"},
    {"bad-no-spawn.json", GC_EPARSE, "3:14: groups[0]: missing key 'spawn'"},
    {"bad-point-type.json", GC_EPARSE,
     "3:49: geometry.shapes[0].polygon[2][1]: expected a number (m), "
     "found a string"},
    {"bad-polygon-flat.json", GC_ERANGE,
     "3:28: geometry.shapes[0].polygon: the polygon has no area"},
    {"bad-polygon-short.json", GC_EPARSE,
     "3:28: geometry.shapes[0].polygon: expected at least 3 elements, "
     "found 2"},
    {"bad-radius-on-rect.json", GC_EPARSE,
     "3:43: geometry.shapes[0].radius: 'radius' belongs to a circle, "
     "not a rect"},
    {"bad-radius.json", GC_ERANGE,
     "3:38: groups[0].radius: 7 m is out of range (0.01 to 5 m)"},
    {"bad-rect-empty.json", GC_ERANGE,
     "3:25: geometry.shapes[0].rect: the rect has no area (its corners "
     "share an x or a y)"},
    {"bad-root-type.json", GC_EPARSE,
     "1:1: expected an object, found an array"},
    {"bad-route-empty.json", GC_EPARSE,
     "3:46: groups[0].goal.route: expected at least 1 element, found 0"},
    {"bad-seed.json", GC_ERANGE,
     "2:11: seed: -1 is out of range (0 to 9007199254740992)"},
    {"bad-shape-id-dup.json", GC_EPARSE,
     "4:49: geometry.shapes[1].id: shape id 'a' is already used by "
     "geometry.shapes[0]"},
    {"bad-shape-kind.json", GC_EPARSE,
     "3:16: geometry.shapes[0]: a shape needs one of: rect, polygon, "
     "circle, wall, cells"},
    {"bad-shape-two-kinds.json", GC_EPARSE,
     "3:43: geometry.shapes[0].circle: 'rect' and 'circle' both given: "
     "a shape has one"},
    {"bad-source-enabled.json", GC_EPARSE,
     "4:88: sources[0].enabled: expected true or false, found a string"},
    {"bad-source-end.json", GC_ERANGE,
     "5:36: sources[0].end: 5 s is not after the start, 10 s"},
    {"bad-source-group.json", GC_EPARSE,
     "3:25: sources[0].group: no group named 'nobody'"},
    {"bad-source-norate.json", GC_EPARSE,
     "4:15: sources[0]: missing key 'rate'"},
    {"bad-source-rate.json", GC_ERANGE,
     "4:74: sources[0].rate: 0 agents/s is out of range (more than 0, "
     "at most 10000 agents/s)"},
    {"bad-source-total.json", GC_ERANGE,
     "4:86: sources[0].total: 0 agents is out of range (1 to 1000000000 "
     "agents)"},
    {"bad-speed-max.json", GC_ERANGE,
     "3:58: groups[0].speed.max: 1 m/s is below the mean, 1.2 m/s"},
    {"bad-speed-mean.json", GC_EPARSE,
     "3:37: groups[0].speed: missing key 'mean'"},
    {"bad-speed-min.json", GC_ERANGE,
     "3:58: groups[0].speed.min: 1.5 m/s is above the mean, 1.2 m/s"},
    {"bad-speed-type.json", GC_EPARSE,
     "3:37: groups[0].speed: expected a speed (m/s) or {\"mean\", "
     "\"sd\", \"min\", \"max\"}, found a string"},
    {"bad-speed.json", GC_ERANGE,
     "5:24: groups[0].speed.mean: 40 m/s is out of range (0.01 to 15 "
     "m/s)"},
    {"bad-stop-limit.json", GC_ERANGE,
     "3:26: stop.time_limit: 0 s is out of range (more than 0, at most "
     "1e+07 s)"},
    {"bad-stop.json", GC_EPARSE,
     "3:11: stop: unknown stop rule 'later' (\"done\", \"never\" or "
     "{\"when_done\", \"time_limit\"})"},
    {"bad-syntax.json", GC_EPARSE, "4:1: string or '}' expected near '}'"},
    {"bad-thickness.json", GC_ERANGE,
     "3:56: geometry.shapes[0].thickness: 0 m is out of range (more "
     "than 0, at most 1000 m)"},
    {"bad-too-big.json", GC_ETOOBIG,
     "2:24: geometry.size: 100000 x 100000 m at 0.5 m a cell is 200000 "
     "x 200000 cells, past the grid's limits (65536 a side, 268435456 "
     "cells)"},
    {"bad-turn.json", GC_ERANGE,
     "3:41: groups[0].turn_rate: -1 deg/s is out of range (0 to 100000 "
     "deg/s)"},
    {"bad-unknown-nested.json", GC_EPARSE,
     "5:29: groups[0].speed.stdev: unknown key 'stdev' (expected one "
     "of: mean, sd, min, max)"},
    {"bad-unknown-root.json", GC_EPARSE,
     "3:3: sed: unknown key 'sed' (expected one of: version, name, "
     "description, seed, geometry, exits, groups, sources, events, stop)"},
    {"bad-utf8-col.json", GC_ERANGE,
     "2:44: geometry.size[1]: -4 m is out of range (more than 0, at "
     "most 1e+06 m)"},
    {"bad-version.json", GC_ERANGE,
     "2:14: version: 2 is out of range (1 to 1)"},
    {"bad-wall-area.json", GC_EPARSE,
     "3:36: exits[0].area.wall: unknown key 'wall' (expected one of: "
     "rect, polygon, circle, radius, cells)"},
    {"bad-wall-repeat.json", GC_ERANGE,
     "3:42: geometry.shapes[0].wall[2]: repeats the point before it"},
    {"bad-wander.json", GC_ERANGE,
     "3:47: groups[0].goal.wander: 0 m is out of range (more than 0, at "
     "most 1e+06 m)"},
};

static void
test_bad_files(void **state)
{
    (void)state;
    char dir[1024];
    src_path(dir, sizeof dir, "tests/data/scenario/");
    for (size_t i = 0; i < sizeof bad_files / sizeof bad_files[0]; i++) {
        char path[1200], want[4096];
        snprintf(path, sizeof path, "%s%s", dir, bad_files[i].file);
        /* The message, with {DIR} replaced and "path:" before it. */
        const char *m = bad_files[i].msg, *d = strstr(m, "{DIR}");
        if (d != NULL)
            snprintf(want, sizeof want, "%s:%.*s%s%s", path, (int)(d - m), m,
                     dir, d + 5);
        else
            snprintf(want, sizeof want, "%s:%s", path, m);
        gc_scenario *s = (gc_scenario *)1;
        gc_error err;
        int rc = gc_scenario_load(&s, path, &err);
        if (rc != bad_files[i].code || strcmp(err.msg, want) != 0)
            fail_msg("%s: got %s \"%s\", want %s \"%s\"", bad_files[i].file,
                     gc_err_name(rc), err.msg, gc_err_name(bad_files[i].code),
                     want);
        assert_null(s);
        assert_int_equal(err.code, rc);
        /* line and col agree with the message (jansson's or ours). */
        char lc[32];
        snprintf(lc, sizeof lc, ":%d:%d: ", err.line, err.col);
        assert_non_null(strstr(err.msg, lc));
    }
}

/* Every bad-*.json file in the folder is in the table, so a new error
 * file cannot be forgotten. */
static void
test_bad_files_listed(void **state)
{
    (void)state;
    char dir[1024];
    src_path(dir, sizeof dir, "tests/data/scenario");
    DIR *dp = opendir(dir);
    assert_non_null(dp);
    size_t n = 0;
    struct dirent *de;
    while ((de = readdir(dp)) != NULL) {
        if (strncmp(de->d_name, "bad-", 4) != 0)
            continue;
        bool found = false;
        for (size_t i = 0; i < sizeof bad_files / sizeof bad_files[0]; i++)
            found = found || strcmp(bad_files[i].file, de->d_name) == 0;
        if (!found)
            fail_msg("%s is not in bad_files[]", de->d_name);
        n++;
    }
    closedir(dp);
    assert_int_equal(n, sizeof bad_files / sizeof bad_files[0]);
}

/* From memory: no NUL after the text, errors named "<memory>", bad
 * arguments, a file that is not there. */
static void
test_parse_memory(void **state)
{
    (void)state;
    const char text[] = "{\"geometry\": {\"size\": [2, 1]}, \"seed\": 3}";
    char *buf = malloc(sizeof text - 1);
    memcpy(buf, text, sizeof text - 1);
    gc_scenario *s;
    gc_error err;
    assert_int_equal(gc_scenario_parse(&s, buf, sizeof text - 1, NULL, &err),
                     GC_OK);
    assert_int_equal(s->seed, 3);
    assert_int_equal(s->grid_w, 2);
    assert_int_equal(s->grid_h, 1);
    assert_true(s->stop.when_done && isinf(s->stop.time_limit));
    assert_int_equal(s->ngroups, 0);
    assert_null(s->name);
    gc_scenario_free(s);
    free(buf);

    const char bad[] = "{\"geometry\": {\"size\": [2, 1]}, \"seed\": 0.5}";
    assert_int_equal(gc_scenario_parse(&s, bad, sizeof bad - 1, NULL, &err),
                     GC_EPARSE);
    assert_string_equal(err.msg, "<memory>:1:40: seed: expected an integer, "
                                 "found a fraction");
    assert_int_equal(gc_scenario_parse(&s, "", 0, "x.json", &err), GC_EPARSE);
    assert_int_equal(err.line, 1);
    assert_int_equal(gc_scenario_parse(NULL, bad, 3, NULL, &err), GC_EINVAL);
    assert_int_equal(gc_scenario_load(&s, "/nonexistent/x.json", &err),
                     GC_ENOENT);
    assert_string_equal(err.msg,
                        "/nonexistent/x.json: No such file or directory");
    assert_int_equal(gc_scenario_load(&s, "/", &err), GC_EIO);
    assert_int_equal(gc_scenario_grid(NULL, NULL, NULL), GC_EINVAL);
    gc_scenario_free(NULL);
}

/* Cells of an area that are walkable on grid g. */
static size_t
walkable_cells(const gc_grid *g, const gc_scenario *s, const gc_shape *a)
{
    gc_cell *cells;
    size_t n, free_cells = 0;
    assert_int_equal(gc_scenario_shape_cells(a, g->width, g->height,
                                             s->cell_size, GC_RASTER_CENTRE,
                                             &cells, &n),
                     GC_OK);
    for (size_t i = 0; i < n; i++)
        free_cells += gc_grid_passable(g, cells[i].x, cells[i].y);
    free(cells);
    return free_cells;
}

/* A column or row of the grid as glyphs, for the RiMEA geometry checks. */
static int
count_walkable_column(const gc_grid *g, int32_t x)
{
    int n = 0;
    for (int32_t y = 0; y < g->height; y++)
        n += gc_grid_passable(g, x, y);
    return n;
}

/* Every shipped scenario parses and rasterises; every group that starts
 * with agents has at least that many walkable cells in its spawn area, and
 * every exit a goal names has walkable cells.  The RiMEA files have the
 * guideline's geometry. */
static void
test_shipped(void **state)
{
    (void)state;
    static const char *const files[] = {
        "bottleneck.json",         "corridor.json",
        "crossing.json",           "station.json",
        "rimea-01-corridor.json",  "rimea-06-corner.json",
        "rimea-07-speeds.json",    "rimea-09-four-exits.json",
        "rimea-09-two-exits.json", "rimea-12-bottleneck.json"};
    const size_t nfiles = sizeof files / sizeof files[0];
    char dir[1024];
    src_path(dir, sizeof dir, "scenarios");
    DIR *dp = opendir(dir);
    assert_non_null(dp);
    size_t seen = 0;
    struct dirent *de;
    while ((de = readdir(dp)) != NULL) {
        size_t len = strlen(de->d_name);
        if (len < 5 || strcmp(de->d_name + len - 5, ".json") != 0)
            continue;
        bool listed = false;
        for (size_t i = 0; i < nfiles; i++)
            listed = listed || strcmp(files[i], de->d_name) == 0;
        if (!listed)
            fail_msg("scenarios/%s is not in the test's list", de->d_name);
        seen++;
    }
    closedir(dp);
    assert_int_equal(seen, nfiles);

    for (size_t f = 0; f < nfiles; f++) {
        char rel[256];
        snprintf(rel, sizeof rel, "scenarios/%s", files[f]);
        gc_scenario *s = load_ok(rel);
        gc_grid *g;
        gc_error err;
        assert_int_equal(gc_scenario_grid(s, &g, &err), GC_OK);
        for (size_t i = 0; i < s->ngroups; i++) {
            const gc_scenario_group *gr = &s->groups[i];
            if (gr->count > 0 &&
                walkable_cells(g, s, &gr->spawn) < (size_t)gr->count)
                fail_msg("%s: group %s: fewer walkable spawn cells than "
                         "%lld agents",
                         files[f], gr->name, (long long)gr->count);
            for (size_t k = 0; k < gr->goal.nexits; k++)
                if (walkable_cells(g, s, &s->exits[gr->goal.exits[k]].area) ==
                    0)
                    fail_msg("%s: exit %s is walled in", files[f],
                             s->exits[gr->goal.exits[k]].name);
        }
        for (size_t i = 0; i < s->nsources; i++)
            assert_true(walkable_cells(g, s, &s->sources[i].area) > 0);

        if (strcmp(files[f], "rimea-01-corridor.json") == 0) {
            /* 40 m x 2 m: 160 columns of 8 free cells. */
            assert_int_equal(g->width, 160);
            for (int32_t x = 0; x < g->width; x++)
                assert_int_equal(count_walkable_column(g, x), 8);
            assert_true(s->groups[0].speed.mean == 1.33 &&
                        s->groups[0].speed.sd == 0);
            assert_int_equal(s->groups[0].count, 1);
        } else if (strcmp(files[f], "rimea-06-corner.json") == 0) {
            /* The inner block (0..10 m)^2 is wall; the corridor 2 m. */
            for (int32_t y = 0; y < 40; y++)
                for (int32_t x = 0; x < 40; x++)
                    assert_int_equal(gc_grid_get(g, x, y), GC_CELL_OBSTACLE);
            assert_int_equal(count_walkable_column(g, 20), 8);
            assert_int_equal(s->groups[0].count, 20);
        } else if (strcmp(files[f], "rimea-07-speeds.json") == 0) {
            /* The guideline's table (after Weidmann), m/s. */
            const double lo[] = {0.58, 1.41, 0.68, 0.46};
            const double hi[] = {1.61, 1.54, 1.41, 0.76};
            assert_int_equal(s->ngroups, 4);
            for (size_t i = 0; i < 4; i++) {
                assert_true(s->groups[i].speed.min == lo[i]);
                assert_true(s->groups[i].speed.max == hi[i]);
            }
        } else if (strncmp(files[f], "rimea-09", 8) == 0) {
            /* 30 m x 20 m of free floor, 1000 people, 1 m exits. */
            assert_int_equal(s->groups[0].count, 1000);
            assert_int_equal(count_walkable_column(g, 60), 80);
            bool two = strstr(files[f], "two") != NULL;
            assert_int_equal(s->groups[0].goal.nexits, two ? 2 : 4);
            for (size_t k = 0; k < 4; k++)
                assert_int_equal(walkable_cells(g, s, &s->exits[k].area),
                                 two && k >= 2 ? 0 : 4);
        } else if (strcmp(files[f], "rimea-12-bottleneck.json") == 0) {
            /* The corridor (x 11..16 m) is 1 m wide, the rooms 10 m. */
            assert_int_equal(count_walkable_column(g, 54), 4);
            assert_int_equal(count_walkable_column(g, 20), 40);
            assert_int_equal(count_walkable_column(g, 80), 40);
            assert_int_equal(s->groups[0].count, 150);
        }
        gc_grid_free(g);
        gc_scenario_free(s);
    }
}

/* A scenario with one polygon of 100,000 vertices (a jagged ring), written
 * to the temporary folder: the load time and the raster time are printed
 * (no assertion on them), and an error at the last vertex is found at its
 * line and column. */
static void
test_load_time(void **state)
{
    (void)state;
    const char *tmp = getenv("TMPDIR");
    char path[512];
    snprintf(path, sizeof path, "%s/gc-test-scenario-%ld.json",
             tmp && *tmp ? tmp : "/tmp", (long)getpid());
    const int NV = gc_test_quick() ? 10000 : 100000;
    for (int pass = 0; pass < 2; pass++) {
        FILE *f = fopen(path, "w");
        assert_non_null(f);
        fprintf(f, "{\n  \"geometry\": {\"size\": [200, 200], \"cell_size\": "
                   "0.25,\n    \"shapes\": [{\"polygon\": [\n");
        for (int i = 0; i < NV; i++) {
            double a = 2 * M_PI * i / NV, r = 80 + (i % 2 ? 3 : 0);
            double x = 100 + r * cos(a), y = 100 + r * sin(a);
            if (pass == 1 && i == NV - 1)
                y = -2e6;
            fprintf(f, "      [%.4f, %.4f]%s\n", x, y, i + 1 < NV ? "," : "");
        }
        fprintf(f, "    ]}]\n  }\n}\n");
        fclose(f);

        gc_scenario *s;
        gc_error err;
        uint64_t t0 = gc_clock_ns();
        int rc = gc_scenario_load(&s, path, &err);
        uint64_t t1 = gc_clock_ns();
        if (pass == 1) {
            assert_int_equal(rc, GC_ERANGE);
            assert_int_equal(err.line, 3 + NV);
            assert_int_equal(err.col, 18);
            char want[128];
            snprintf(want, sizeof want,
                     "geometry.shapes[0].polygon[%d][1]: -2e+06 m is out",
                     NV - 1);
            assert_non_null(strstr(err.msg, want));
            print_message("scenario: error at vertex %d found in %.1f ms\n", NV,
                          (double)(t1 - t0) / 1e6);
            break;
        }
        assert_int_equal(rc, GC_OK);
        assert_int_equal(s->shapes[0].npts, NV);
        gc_grid *g;
        assert_int_equal(gc_scenario_grid(s, &g, NULL), GC_OK);
        uint64_t t2 = gc_clock_ns();
        /* The ring's inside is taken, the corners of the world are not. */
        assert_int_equal(gc_grid_get(g, 400, 400), GC_CELL_OBSTACLE);
        assert_int_equal(gc_grid_get(g, 0, 0), GC_CELL_WALKABLE);
        print_message("scenario: %d polygon vertices: load %.1f ms, "
                      "rasterise (800 x 800 cells) %.1f ms\n",
                      NV, (double)(t1 - t0) / 1e6, (double)(t2 - t1) / 1e6);
        gc_grid_free(g);
        gc_scenario_free(s);
    }
    unlink(path);
}

/* 20,000 shapes and 20,000 events: every shape's and event's line is
 * recorded, which must not cost a walk from the top of the file each. */
static void
test_load_many_shapes(void **state)
{
    (void)state;
    const char *tmp = getenv("TMPDIR");
    char path[512];
    snprintf(path, sizeof path, "%s/gc-test-scenario-many-%ld.json",
             tmp && *tmp ? tmp : "/tmp", (long)getpid());
    const int NS = gc_test_quick() ? 2000 : 20000;
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fprintf(f, "{\n  \"geometry\": {\"size\": [200, 200], \"cell_size\": "
               "0.5,\n    \"shapes\": [\n");
    for (int i = 0; i < NS; i++)
        fprintf(f, "      {\"rect\": [[%d, %d], [%d.5, %d.5]]}%s\n", i % 199,
                i / 199 % 199, i % 199, i / 199 % 199, i + 1 < NS ? "," : "");
    fprintf(f, "    ]\n  },\n  \"events\": [\n");
    for (int i = 0; i < NS; i++)
        fprintf(f,
                "    {\"time\": %d, \"add\": {\"id\": \"s%d\", "
                "\"circle\": [50, 50], \"radius\": 1}}%s\n",
                i, i, i + 1 < NS ? "," : "");
    fprintf(f, "  ]\n}\n");
    fclose(f);
    gc_scenario *s;
    gc_error err;
    uint64_t t0 = gc_clock_ns();
    int rc = gc_scenario_load(&s, path, &err);
    uint64_t t1 = gc_clock_ns();
    unlink(path);
    if (rc != GC_OK)
        fail_msg("%s", err.msg);
    assert_int_equal(s->nshapes, NS);
    assert_int_equal(s->shapes[0].line, 4);
    assert_int_equal(s->shapes[NS - 1].line, 3 + NS);
    assert_int_equal(s->events[0].line, 7 + NS);
    assert_int_equal(s->events[NS - 1].line, 6 + 2 * NS);
    print_message("scenario: %d shapes and %d events (each with its line): "
                  "load %.1f ms\n",
                  NS, NS, (double)(t1 - t0) / 1e6);
    gc_scenario_free(s);
}

/* A FIFO nobody writes, a directory and a device are refused at once with
 * one line (a FIFO used to block the caller in open()). */
static void
test_not_regular(void **state)
{
    (void)state;
    char dir[] = "/tmp/gc-scen-XXXXXX";
    assert_non_null(mkdtemp(dir));
    char fifo[64];
    snprintf(fifo, sizeof fifo, "%s/s.json", dir);
    assert_int_equal(mkfifo(fifo, 0600), 0);
    const char *paths[] = {fifo, dir, "/dev/null"};
    for (size_t i = 0; i < 3; i++) {
        gc_scenario *s = NULL;
        gc_error err;
        assert_int_equal(gc_scenario_load(&s, paths[i], &err), GC_EIO);
        assert_null(s);
        char want[128];
        snprintf(want, sizeof want, "%s: not a regular file", paths[i]);
        assert_string_equal(err.msg, want);
    }
    gc_scenario *s = NULL;
    gc_error err;
    assert_int_equal(gc_scenario_load(&s, "/nonexistent/x.json", &err),
                     GC_ENOENT);
    assert_int_equal(unlink(fifo), 0);
    assert_int_equal(rmdir(dir), 0);
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_rect_on_lines),
        cmocka_unit_test(test_rect_inside_cell),
        cmocka_unit_test(test_thin_wall),
        cmocka_unit_test(test_diagonal_wall),
        cmocka_unit_test(test_wall_joint),
        cmocka_unit_test(test_circle_corner),
        cmocka_unit_test(test_concave_polygon),
        cmocka_unit_test(test_small_polygon),
        cmocka_unit_test(test_polygon_model),
        cmocka_unit_test(test_shape_apply),
        cmocka_unit_test(test_good),
        cmocka_unit_test(test_map_shapes),
        cmocka_unit_test(test_bad_files),
        cmocka_unit_test(test_bad_files_listed),
        cmocka_unit_test(test_parse_memory),
        cmocka_unit_test(test_shipped),
        cmocka_unit_test(test_not_regular),
        cmocka_unit_test(test_load_time),
        cmocka_unit_test(test_load_many_shapes),
    };
    return cmocka_run_group_tests_name("scenario", tests, NULL, NULL);
}
