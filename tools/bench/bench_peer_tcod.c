/*
 * bench_peer_tcod.c: libtcod's A* as a peer for gridcrowd-bench.
 *
 * libtcod (1.18, path_c.c) asks a callback for the cost of each move,
 * cost(xFrom, yFrom, xTo, yTo); 0 means the move is blocked.  It multiplies
 * that value by the diagonal cost given to TCOD_path_new_using_function for
 * a diagonal move and by 1 for a straight one, so a callback that answers 1
 * for every legal move, with a diagonal cost of sqrt 2, prices a path
 * exactly as the Moving AI lengths do (straight 1, diagonal sqrt 2).  Its
 * heuristic is the Euclidean distance, which is admissible and consistent
 * for those costs; it sums costs in float, so we never read its costs back:
 * the benchmark takes the cells and measures the path itself.
 *
 * libtcod checks only that the target cell is on the map; whether a
 * diagonal may cut a corner is the callback's business, so the callback
 * applies the same diagonal rule as libgridcrowd, reading a private byte
 * per cell (1 = passable) copied from the grid when the peer is made.  A
 * diagonal cost of 0 makes libtcod 4-connected, which is how
 * GC_DIAG_NEVER is done.
 */
#include "config.h"

#include "bench_peer.h"

#include <libtcod/path.h>

#include <math.h>
#include <stdlib.h>

struct tcod_peer {
    TCOD_path_t path;
    uint8_t *open; /* width * height: 1 when passable */
    int width;
    gc_diag_rule rule;
};

static float
tcod_peer_cost(int x0, int y0, int x1, int y1, void *user)
{
    const struct tcod_peer *p = user;
    const uint8_t *open = p->open;
    int w = p->width;

    if (!open[y1 * w + x1])
        return 0.0f;
    if (x0 == x1 || y0 == y1)
        return 1.0f;
    /* A diagonal: the two cells beside it are on the map, since both its
     * ends are. */
    int a = open[y0 * w + x1], b = open[y1 * w + x0];
    switch (p->rule) {
    case GC_DIAG_NO_CORNER_CUT:
        return a && b ? 1.0f : 0.0f;
    case GC_DIAG_ONE_FREE:
        return a || b ? 1.0f : 0.0f;
    case GC_DIAG_ALWAYS:
        return 1.0f;
    case GC_DIAG_NEVER:
    default:
        return 0.0f;
    }
}

int
tcod_peer_new(tcod_peer **out, const gc_grid *g, gc_diag_rule rule)
{
    *out = NULL;
    struct tcod_peer *p = calloc(1, sizeof(*p));
    if (p == NULL)
        return GC_ENOMEM;
    size_t n = (size_t)g->width * (size_t)g->height;
    p->open = malloc(n);
    if (p->open == NULL) {
        free(p);
        return GC_ENOMEM;
    }
    for (int32_t y = 0; y < g->height; y++)
        for (int32_t x = 0; x < g->width; x++)
            p->open[gc_grid_index(g, x, y)] = gc_grid_passable(g, x, y);
    p->width = g->width;
    p->rule = rule;
    float diagonal = rule == GC_DIAG_NEVER ? 0.0f : (float)M_SQRT2;
    p->path = TCOD_path_new_using_function(g->width, g->height, tcod_peer_cost,
                                           p, diagonal);
    if (p->path == NULL) {
        free(p->open);
        free(p);
        return GC_ENOMEM;
    }
    *out = p;
    return GC_OK;
}

void
tcod_peer_free(tcod_peer *p)
{
    if (p == NULL)
        return;
    TCOD_path_delete(p->path);
    free(p->open);
    free(p);
}

bool
tcod_peer_find(tcod_peer *p, gc_cell start, gc_cell goal)
{
    return TCOD_path_compute(p->path, start.x, start.y, goal.x, goal.y);
}

int
tcod_peer_path(tcod_peer *p, gc_cell start, gc_path *out)
{
    /* TCOD_path_size counts the steps, not the start.  TCOD_path_get walks
     * from the start on every call, so read the steps with TCOD_path_walk,
     * which takes one step at a time (and re-checks it with the callback:
     * it cannot fail on the grid the path was found on). */
    size_t steps = (size_t)TCOD_path_size(p->path);
    int rc = gc_path_reserve(out, steps + 1);
    if (rc != GC_OK)
        return rc;
    out->cells[0] = start;
    out->len = 1;
    int x, y;
    while (out->len <= steps && TCOD_path_walk(p->path, &x, &y, false)) {
        gc_cell c = {x, y};
        out->cells[out->len++] = c;
    }
    return GC_OK;
}
