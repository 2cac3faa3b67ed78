/*
 * smooth.c: pricing of grid steps, straight segments and waypoint paths,
 * and path smoothing.
 *
 * All prices are doubles: a step costs its length (1, or sqrt 2 as a double)
 * times the float cost of the cell entered, computed exactly as the search
 * computes it, so that a path's price here equals the g the search found to
 * the last bit when summed in the same order.
 *
 * Segments.  A straight segment between two cell centres is walked along
 * its supercover (gc_supercover in grid_int.h, exact integer arithmetic):
 * every cell it touches must be open, including the two beside a grid
 * corner it passes exactly through (the no-corner-cut rule, extended to
 * any angle).  A segment is priced at its length times the dearest cell
 * it enters (the start cell excepted), which for a diagonal step between
 * neighbours is exactly the grid step cost.
 *
 * Smoothing.  First every straight run of equal steps is tried as one
 * segment, then a greedy string pull: from each kept waypoint, extend to
 * the farthest later waypoint whose segment is acceptable, stopping at the
 * first that is not.  A replacement is acceptable when its price is finite,
 * no more than the price of the run it replaces, and it enters no cell
 * dearer than the dearest cell of that run; so smoothing never makes a path
 * dearer and never pulls a path across a wall, a corner or a costly patch
 * it went around.  "No more than" allows a relative 1e-12 for rounding: a
 * straight run of k equal steps and the one segment over it are the same
 * price, computed in a different order.
 */
#include "config.h"

#include "astar_int.h"

#include <stdlib.h>

void
gc_pricer_init(gc_pricer *p, const gc_grid *g, const gc_nav *nav,
               float radius_cells)
{
    p->g = g;
    p->radius_cells = radius_cells > 0.0f ? radius_cells : 0.0f;
    p->clear = (p->radius_cells > 0.0f && nav != NULL) ? nav->clear : NULL;
    if (p->clear == NULL)
        p->radius_cells = 0.0f;
    gc_grid_cost_lut(g, p->lut);
}

/* True when (x, y) is off the map, impassable, or too close to a wall. */
static bool
blocked(const gc_pricer *p, int32_t x, int32_t y)
{
    const gc_grid *g = p->g;
    if (!gc_grid_in_bounds(g, x, y))
        return true;
    size_t i = gc_grid_index(g, x, y);
    if (!isfinite(p->lut[g->cells[i]]))
        return true;
    return p->clear != NULL && p->clear[i] < p->radius_cells;
}

static double
cell_cost(const gc_pricer *p, int32_t x, int32_t y)
{
    return (double)p->lut[p->g->cells[gc_grid_index(p->g, x, y)]];
}

double
gc_pricer_step(const gc_pricer *p, gc_cell a, gc_cell b, gc_diag_rule rule)
{
    int d = gc_dir_of(b.x - a.x, b.y - a.y);
    if (d < 0 || blocked(p, a.x, a.y) || blocked(p, b.x, b.y))
        return INFINITY;
    unsigned open = 0;
    for (int k = 0; k < 8; k++)
        if (!blocked(p, a.x + gc_dir_dx[k], a.y + gc_dir_dy[k]))
            open |= 1u << k;
    if (!((gc_dirs_from_open(open, rule) >> d) & 1u))
        return INFINITY;
    return (d < 4 ? 1.0 : GC_SQRT2) * cell_cost(p, b.x, b.y);
}

/* The price of a segment of nx by ny cells whose dearest entered cell
 * costs mx. */
static double
segment_price(int64_t nx, int64_t ny, double mx)
{
    if (nx == 0 || ny == 0)
        return (double)(nx + ny) * mx;
    if (nx == ny)
        return (double)nx * GC_SQRT2 * mx;
    return sqrt((double)(nx * nx + ny * ny)) * mx;
}

/* Walk the segment between the centres of a and b (gc_supercover): false
 * when it touches a blocked cell; else *maxc is the dearest cell entered. */
static bool
walk(const gc_pricer *p, gc_cell a, gc_cell b, double *maxc)
{
    *maxc = 0.0;
    if (blocked(p, a.x, a.y) || blocked(p, b.x, b.y))
        return false;
    gc_supercover it;
    gc_supercover_init(&it, a, b);
    gc_cell c;
    bool entered;
    double mx = 0.0;
    while (gc_supercover_next(&it, &c, &entered)) {
        if (blocked(p, c.x, c.y))
            return false;
        if (entered) {
            double cc = cell_cost(p, c.x, c.y);
            if (cc > mx)
                mx = cc;
        }
    }
    *maxc = mx;
    return true;
}

static double
segment(const gc_pricer *p, gc_cell a, gc_cell b, double *maxc)
{
    if (!walk(p, a, b, maxc))
        return INFINITY;
    return segment_price(llabs((int64_t)b.x - a.x), llabs((int64_t)b.y - a.y),
                         *maxc);
}

double
gc_pricer_piece(const gc_pricer *p, gc_cell a, gc_cell b, gc_diag_rule rule,
                double *maxc)
{
    int32_t ax = b.x - a.x, ay = b.y - a.y;
    if (ax >= -1 && ax <= 1 && ay >= -1 && ay <= 1 && (ax | ay) != 0) {
        double c = gc_pricer_step(p, a, b, rule);
        *maxc = isfinite(c) ? cell_cost(p, b.x, b.y) : 0.0;
        return c;
    }
    return segment(p, a, b, maxc);
}

double
gc_pricer_polyline(const gc_pricer *pr, gc_diag_rule rule, const gc_path *p)
{
    if (p == NULL || p->len == 0)
        return INFINITY;
    if (blocked(pr, p->cells[0].x, p->cells[0].y))
        return INFINITY;
    double sum = 0.0, maxc;
    for (size_t i = 1; i < p->len; i++)
        sum += gc_pricer_piece(pr, p->cells[i - 1], p->cells[i], rule, &maxc);
    return sum;
}

bool
gc_straight_best(const gc_grid *g, const gc_nav *nav, float radius_cells,
                 gc_diag_rule rule, gc_cell a, gc_cell b)
{
    if (g == NULL || (a.x == b.x && a.y == b.y))
        return false;
    gc_pricer pr;
    gc_pricer_init(&pr, g, nav, radius_cells);
    if (blocked(&pr, a.x, a.y))
        return false;
    double maxc;
    if (!isfinite(gc_pricer_piece(&pr, a, b, rule, &maxc)))
        return false;
    /* The cheapest type on the map (any type, without its nav data). */
    float least = INFINITY;
    for (int t = 0; t < GC_CELL_NTYPES; t++)
        if (nav == NULL || (nav->present >> t & 1u))
            least = pr.lut[t] < least ? pr.lut[t] : least;
    return maxc <= (double)least;
}

double
gc_path_cost(const gc_grid *g, const gc_path *p, gc_diag_rule rule)
{
    if (g == NULL || p == NULL || p->len == 0)
        return INFINITY;
    gc_pricer pr;
    gc_pricer_init(&pr, g, NULL, 0.0f);
    if (blocked(&pr, p->cells[0].x, p->cells[0].y))
        return INFINITY;
    double sum = 0.0;
    for (size_t i = 1; i < p->len; i++)
        sum += gc_pricer_step(&pr, p->cells[i - 1], p->cells[i], rule);
    return sum;
}

double
gc_segment_cost(const gc_grid *g, const gc_nav *nav, float radius_cells,
                gc_cell a, gc_cell b)
{
    if (g == NULL)
        return INFINITY;
    gc_pricer pr;
    gc_pricer_init(&pr, g, nav, radius_cells);
    double maxc;
    return segment(&pr, a, b, &maxc);
}

double
gc_polyline_cost(const gc_grid *g, const gc_nav *nav, float radius_cells,
                 gc_diag_rule rule, const gc_path *p)
{
    if (g == NULL)
        return INFINITY;
    gc_pricer pr;
    gc_pricer_init(&pr, g, nav, radius_cells);
    return gc_pricer_polyline(&pr, rule, p);
}

/* Direction of a -> b reduced to lowest terms, for collinearity. */
static void
unit_dir(gc_cell a, gc_cell b, int64_t *ux, int64_t *uy)
{
    int64_t dx = (int64_t)b.x - a.x, dy = (int64_t)b.y - a.y;
    int64_t m = dx < 0 ? -dx : dx, n = dy < 0 ? -dy : dy;
    while (n != 0) {
        int64_t t = m % n;
        m = n;
        n = t;
    }
    if (m == 0)
        m = 1;
    *ux = dx / m;
    *uy = dy / m;
}

static bool
acceptable(double seg, double segmax, double run, double runmax)
{
    return isfinite(seg) && segmax <= runmax && seg <= run + run * 1e-12;
}

/*
 * One pass over the waypoints c[0..n-1], keeping c[0] and c[n-1]: with
 * `collinear` only runs of equal direction are merged, otherwise greedy
 * string pulling.  Pieces are priced as they are needed rather than kept
 * in a side table, so smoothing allocates nothing.  Returns the new count;
 * c is rewritten in place (the write index never passes the read index).
 */
static size_t
pull(const gc_pricer *pr, gc_diag_rule rule, gc_cell *c, size_t n,
     bool collinear)
{
    size_t out = 1, i = 0;
    while (i + 1 < n) {
        size_t best = i + 1;
        double run, runmax;
        run = gc_pricer_piece(pr, c[i], c[i + 1], rule, &runmax);
        int64_t ux = 0, uy = 0;
        /* A collinear run's segment c[i] -> c[k] touches exactly the cells
         * its pieces' segments touch (each piece starts on a centre on the
         * line), so it is walked piece by piece as the run grows rather
         * than from c[i] each time: linear in the run, not quadratic (a
         * search's path of 600 single steps cost 180,000 cell visits). */
        bool open = true;
        double segmax = 0.0;
        if (collinear) {
            unit_dir(c[i], c[i + 1], &ux, &uy);
            open = walk(pr, c[i], c[i + 1], &segmax);
        }
        for (size_t k = i + 2; k < n; k++) {
            double m, s;
            if (collinear) {
                int64_t vx, vy;
                unit_dir(c[k - 1], c[k], &vx, &vy);
                if (vx != ux || vy != uy)
                    break;
            }
            run += gc_pricer_piece(pr, c[k - 1], c[k], rule, &m);
            if (m > runmax)
                runmax = m;
            if (collinear) {
                open = open && walk(pr, c[k - 1], c[k], &m);
                segmax = m > segmax ? m : segmax;
                m = open ? segmax : 0.0;
                s = open ? segment_price(llabs((int64_t)c[k].x - c[i].x),
                                         llabs((int64_t)c[k].y - c[i].y), m)
                         : INFINITY;
            } else {
                s = gc_pricer_piece(pr, c[i], c[k], rule, &m);
            }
            if (!acceptable(s, m, run, runmax))
                break;
            best = k;
        }
        c[out++] = c[best];
        i = best;
    }
    return out;
}

void
gc_path_smooth(const gc_grid *g, const gc_nav *nav, float radius_cells,
               gc_diag_rule rule, gc_path *p)
{
    if (g == NULL || p == NULL || p->len < 3)
        return;
    gc_pricer pr;
    gc_pricer_init(&pr, g, nav, radius_cells);
    /* Not a path under these rules: leave it as it is. */
    if (!isfinite(gc_pricer_polyline(&pr, rule, p)))
        return;
    size_t n = pull(&pr, rule, p->cells, p->len, true);
    p->len = pull(&pr, rule, p->cells, n, false);
}
