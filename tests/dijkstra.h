/*
 * tests/dijkstra.h: the independent model the path tests check A* against.
 *
 * A plain Dijkstra over the grid, written from the documented rules (step
 * length 1 or sqrt 2 times the cost of the cell entered, the four diagonal
 * rules, clearance below the radius blocks a cell) and sharing no code with
 * the search: test_astar_props checks gc_astar_find against it on random
 * grids, test_query checks the live-grid queries.  Header-only, all static.
 */
#ifndef GC_TESTS_DIJKSTRA_H
#define GC_TESTS_DIJKSTRA_H

#include <gridcrowd/astar.h>

#include <math.h>
#include <stdbool.h>

static const int dx8[8] = {1, 0, -1, 0, 1, -1, -1, 1};
static const int dy8[8] = {0, 1, 0, -1, 1, 1, -1, -1};

typedef struct model {
    const gc_grid *g;
    const gc_nav *nav; /* with a radius */
    float rc;          /* radius in cells, 0 for none */
} model;

static inline bool
open_cell(const model *m, int x, int y)
{
    if (!isfinite(gc_grid_cell_cost(m->g, x, y)))
        return false;
    if (m->rc > 0.0f) {
        gc_cell c = {x, y};
        return gc_nav_clearance(m->nav, c) >= m->rc;
    }
    return true;
}

/* Cost of the move (x,y) -> (x+dx,y+dy) under `rule`, or INFINITY. */
static inline double
model_step(const model *m, int x, int y, int dx, int dy, gc_diag_rule rule)
{
    if (!open_cell(m, x + dx, y + dy))
        return INFINITY;
    if (dx != 0 && dy != 0) {
        bool a = open_cell(m, x + dx, y), b = open_cell(m, x, y + dy);
        switch (rule) {
        case GC_DIAG_NEVER:
            return INFINITY;
        case GC_DIAG_NO_CORNER_CUT:
            if (!(a && b))
                return INFINITY;
            break;
        case GC_DIAG_ONE_FREE:
            if (!(a || b))
                return INFINITY;
            break;
        case GC_DIAG_ALWAYS:
            break;
        }
        return sqrt(2.0) * (double)gc_grid_cell_cost(m->g, x + dx, y + dy);
    }
    return (double)gc_grid_cell_cost(m->g, x + dx, y + dy);
}

typedef struct qent {
    double d;
    int cell;
} qent;

/* Dijkstra from s: dist[] for every cell (INFINITY when unreachable). */
static inline void
dijkstra(const model *m, gc_cell s, gc_diag_rule rule, double *dist, qent *heap)
{
    int w = m->g->width, h = m->g->height, n = 0;
    for (int i = 0; i < w * h; i++)
        dist[i] = INFINITY;
    dist[s.y * w + s.x] = 0.0;
    heap[n++] = (qent){0.0, s.y * w + s.x};
    while (n > 0) {
        qent top = heap[0];
        qent last = heap[--n];
        int i = 0;
        for (;;) { /* binary heap sift-down */
            int c = 2 * i + 1;
            if (c >= n)
                break;
            if (c + 1 < n && heap[c + 1].d < heap[c].d)
                c++;
            if (!(heap[c].d < last.d))
                break;
            heap[i] = heap[c];
            i = c;
        }
        if (n > 0)
            heap[i] = last;
        if (top.d > dist[top.cell])
            continue;
        int x = top.cell % w, y = top.cell / w;
        for (int d = 0; d < 8; d++) {
            double c = model_step(m, x, y, dx8[d], dy8[d], rule);
            if (!isfinite(c))
                continue;
            int j = (y + dy8[d]) * w + x + dx8[d];
            double nd = top.d + c;
            if (nd < dist[j]) {
                dist[j] = nd;
                int k = n++;
                while (k > 0 && heap[(k - 1) / 2].d > nd) {
                    heap[k] = heap[(k - 1) / 2];
                    k = (k - 1) / 2;
                }
                heap[k] = (qent){nd, j};
            }
        }
    }
}

#endif
