/*
 * grid.c: the grid of typed cells, its cost table and coordinates.
 *
 * A cell is one byte, its type; costs live in a per-grid table so that a run
 * can reprice terrain without touching cells.  Impassable means "cost not a
 * finite number > 0"; obstacle is always impassable.  Bytes outside the known
 * types (possible only in a corrupt shared object) read as impassable.  The
 * move rules themselves are in grid_int.h, shared with the A* inner loop.
 *
 * The 8-connected line walk lives here too, once, because three programs
 * turn a stroke into cells (the daemon's applier, the viewer's preview, the
 * test stand-in's trace) and a copy that walked from the other end already
 * showed the user cells the daemon did not paint.
 */
#include "config.h"

#include "grid_int.h"

#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

static const struct {
    const char *name;
    char glyph;
    float cost;
} cell_types[GC_CELL_NTYPES] = {
    [GC_CELL_WALKABLE] = {"walkable", '.', 1.0f},
    [GC_CELL_OBSTACLE] = {"obstacle", '@', INFINITY},
    [GC_CELL_HIGH] = {"high", 'S', 2.0f},
    [GC_CELL_LOW] = {"low", 'R', 0.5f},
};

static bool
type_valid(int type)
{
    return type >= 0 && type < GC_CELL_NTYPES;
}

float
gc_cell_default_cost(int type)
{
    return type_valid(type) ? cell_types[type].cost : INFINITY;
}

const char *
gc_cell_type_name(int type)
{
    return type_valid(type) ? cell_types[type].name : NULL;
}

char
gc_cell_type_glyph(int type)
{
    return type_valid(type) ? cell_types[type].glyph : '?';
}

int
gc_cell_type_from_glyph(char c)
{
    switch (c) {
    case '.':
    case 'G':
        return GC_CELL_WALKABLE;
    case '@':
    case 'O':
    case 'T':
    case 'W':
        return GC_CELL_OBSTACLE;
    case 'S':
        return GC_CELL_HIGH;
    case 'R':
        return GC_CELL_LOW;
    }
    return GC_EINVAL;
}

int
gc_cell_type_parse(const char *s)
{
    static const struct {
        const char *alias;
        int type;
    } aliases[] = {
        {"wall", GC_CELL_OBSTACLE},     {"blocked", GC_CELL_OBSTACLE},
        {"high-cost", GC_CELL_HIGH},    {"swamp", GC_CELL_HIGH},
        {"low-cost", GC_CELL_LOW},      {"road", GC_CELL_LOW},
        {"free", GC_CELL_WALKABLE},     {"open", GC_CELL_WALKABLE},
    };
    if (s == NULL || *s == '\0')
        return GC_EINVAL;
    if (s[1] == '\0')
        return gc_cell_type_from_glyph(s[0]);
    for (int t = 0; t < GC_CELL_NTYPES; t++)
        if (strcasecmp(s, cell_types[t].name) == 0)
            return t;
    for (size_t i = 0; i < sizeof aliases / sizeof aliases[0]; i++)
        if (strcasecmp(s, aliases[i].alias) == 0)
            return aliases[i].type;
    return GC_EINVAL;
}

int
gc_grid_check_size(int64_t width, int64_t height)
{
    if (width < 1 || height < 1)
        return GC_EINVAL;
    /* Sides first: with both at most 2^16 the product cannot overflow. */
    if (width > GC_GRID_MAX_SIDE || height > GC_GRID_MAX_SIDE ||
        (uint64_t)width * (uint64_t)height > GC_GRID_MAX_CELLS)
        return GC_ETOOBIG;
    return GC_OK;
}

static void
init_header(gc_grid *g, int32_t width, int32_t height)
{
    g->width = width;
    g->height = height;
    for (int t = 0; t < GC_CELL_NTYPES; t++)
        g->cost[t] = cell_types[t].cost;
    g->cell_size = 1.0f;
    g->generation = 0;
}

int
gc_grid_new(gc_grid **out, int32_t width, int32_t height)
{
    *out = NULL;
    int rc = gc_grid_check_size(width, height);
    if (rc != GC_OK)
        return rc;
    gc_grid *g = calloc(1, sizeof *g);
    if (g == NULL)
        return GC_ENOMEM;
    g->cells = calloc((size_t)width * (size_t)height, 1);
    if (g->cells == NULL) {
        free(g);
        return GC_ENOMEM;
    }
    _Static_assert(GC_CELL_WALKABLE == 0, "calloc makes walkable cells");
    init_header(g, width, height);
    g->owns_cells = true;
    *out = g;
    return GC_OK;
}

int
gc_grid_wrap(gc_grid **out, int32_t width, int32_t height, uint8_t *cells)
{
    *out = NULL;
    if (cells == NULL)
        return GC_EINVAL;
    int rc = gc_grid_check_size(width, height);
    if (rc != GC_OK)
        return rc;
    gc_grid *g = calloc(1, sizeof *g);
    if (g == NULL)
        return GC_ENOMEM;
    init_header(g, width, height);
    g->cells = cells;
    g->owns_cells = false;
    *out = g;
    return GC_OK;
}

void
gc_grid_free(gc_grid *g)
{
    if (g == NULL)
        return;
    if (g->owns_cells)
        free(g->cells);
    free(g);
}

int
gc_grid_clone(gc_grid **out, const gc_grid *g)
{
    int rc = gc_grid_new(out, g->width, g->height);
    if (rc != GC_OK)
        return rc;
    memcpy((*out)->cells, g->cells, (size_t)g->width * (size_t)g->height);
    memcpy((*out)->cost, g->cost, sizeof g->cost);
    (*out)->cell_size = g->cell_size;
    (*out)->generation = g->generation;
    return GC_OK;
}

bool
gc_grid_equal(const gc_grid *a, const gc_grid *b)
{
    if (a->width != b->width || a->height != b->height ||
        a->cell_size != b->cell_size)
        return false;
    for (int t = 0; t < GC_CELL_NTYPES; t++) {
        /* INFINITY == INFINITY, so impassable types compare equal. */
        if (a->cost[t] != b->cost[t])
            return false;
    }
    return memcmp(a->cells, b->cells,
                  (size_t)a->width * (size_t)a->height) == 0;
}

int
gc_grid_set_cost(gc_grid *g, int type, float cost)
{
    if (!type_valid(type))
        return GC_EINVAL;
    if (type == GC_CELL_OBSTACLE || !gc_cost_passable(cost))
        return GC_ERANGE;
    g->cost[type] = cost;
    return GC_OK;
}

void
gc_grid_set_uniform(gc_grid *g)
{
    for (int t = 0; t < GC_CELL_NTYPES; t++)
        if (gc_cost_passable(g->cost[t]))
            g->cost[t] = 1.0f;
}

float
gc_grid_min_cost(const gc_grid *g)
{
    float m = 0.0f;
    for (int t = 0; t < GC_CELL_NTYPES; t++) {
        float c = g->cost[t];
        if (gc_cost_passable(c) && (m == 0.0f || c < m))
            m = c;
    }
    return m;
}

bool
gc_grid_passable(const gc_grid *g, int32_t x, int32_t y)
{
    return isfinite(gc_grid_cell_cost(g, x, y));
}

float
gc_grid_cell_cost(const gc_grid *g, int32_t x, int32_t y)
{
    if (!gc_grid_in_bounds(g, x, y))
        return INFINITY;
    uint8_t t = g->cells[gc_grid_index(g, x, y)];
    if (t >= GC_CELL_NTYPES)
        return INFINITY;
    float c = g->cost[t];
    return gc_cost_passable(c) ? c : INFINITY;
}

int
gc_grid_set(gc_grid *g, int32_t x, int32_t y, int type)
{
    if (!gc_grid_in_bounds(g, x, y))
        return GC_EOUTSIDE;
    if (!type_valid(type))
        return GC_EINVAL;
    uint8_t *c = &g->cells[gc_grid_index(g, x, y)];
    if (*c != (uint8_t)type) {
        *c = (uint8_t)type;
        g->generation++;
    }
    return GC_OK;
}

int
gc_grid_fill(gc_grid *g, int type)
{
    if (!type_valid(type))
        return GC_EINVAL;
    memset(g->cells, type, (size_t)g->width * (size_t)g->height);
    g->generation++;
    return GC_OK;
}

gc_vec2
gc_grid_cell_center(const gc_grid *g, gc_cell c)
{
    gc_vec2 p = {((float)c.x + 0.5f) * g->cell_size,
                 ((float)c.y + 0.5f) * g->cell_size};
    return p;
}

gc_cell
gc_grid_world_to_cell(const gc_grid *g, gc_vec2 p)
{
    return gc_grid_cell_of(g, p);
}

int
gc_grid_neighbors(const gc_grid *g, int32_t x, int32_t y, gc_diag_rule rule,
                  gc_step out[8])
{
    if (!gc_grid_in_bounds(g, x, y))
        return 0;
    float lut[256];
    gc_grid_cost_lut(g, lut);
    unsigned mask =
        gc_grid_legal_dirs(g->cells, lut, g->width, g->height, x, y, rule);
    int n = 0;
    for (int d = 0; d < 8; d++) {
        if (!(mask & (1u << d)))
            continue;
        gc_cell to = {x + gc_dir_dx[d], y + gc_dir_dy[d]};
        float len = d < 4 ? 1.0f : (float)GC_SQRT2;
        out[n].to = to;
        out[n].cost = len * lut[g->cells[gc_grid_index(g, to.x, to.y)]];
        n++;
    }
    return n;
}

bool
gc_grid_move_legal(const gc_grid *g, gc_cell a, gc_cell b, gc_diag_rule rule)
{
    if (!gc_grid_in_bounds(g, a.x, a.y))
        return false;
    int d = gc_dir_of(b.x - a.x, b.y - a.y);
    if (d < 0)
        return false;
    float lut[256];
    gc_grid_cost_lut(g, lut);
    return (gc_grid_legal_dirs(g->cells, lut, g->width, g->height, a.x, a.y,
                               rule) >>
            d) &
           1u;
}

float
gc_grid_step_cost(const gc_grid *g, gc_cell a, gc_cell b, gc_diag_rule rule)
{
    if (!gc_grid_move_legal(g, a, b, rule))
        return INFINITY;
    float len = (a.x != b.x && a.y != b.y) ? (float)GC_SQRT2 : 1.0f;
    return len * gc_grid_cell_cost(g, b.x, b.y);
}

/*
 * The line walk.  This is the Bresenham loop the daemon has painted LINE
 * edits with since the edit queue was written (edits.c's apply_one): the
 * canonical direction first, then err = dx - dy with both steps tested on
 * the same 2 * err, so that a diagonal step is one iteration.  The
 * arithmetic is 64-bit so that any two int32 cells work: dx and dy reach
 * 2^32 - 1 and 2 * err stays far inside int64.
 */
void
gc_line_walk_init(gc_line_walk *w, gc_cell a, gc_cell b)
{
    /* Canonical direction, so that a-b and b-a are the same cells: a tie
     * in the error term always goes the same way along the segment. */
    if (a.x > b.x || (a.x == b.x && a.y > b.y)) {
        gc_cell t = a;
        a = b;
        b = t;
    }
    w->x = a.x;
    w->y = a.y;
    w->x1 = b.x;
    w->y1 = b.y;
    w->dx = (int64_t)b.x - a.x;
    w->dy = b.y > a.y ? (int64_t)b.y - a.y : (int64_t)a.y - b.y;
    w->sy = b.y > a.y ? 1 : -1;
    w->err = w->dx - w->dy;
    w->done = false;
}

bool
gc_line_walk_next(gc_line_walk *w, gc_cell *c)
{
    if (w->done)
        return false;
    *c = (gc_cell){(int32_t)w->x, (int32_t)w->y};
    if (w->x == w->x1 && w->y == w->y1) {
        w->done = true;
        return true;
    }
    int64_t e2 = 2 * w->err;
    if (e2 >= -w->dy) {
        w->err -= w->dy;
        w->x++;
    }
    if (e2 <= w->dx) {
        w->err += w->dx;
        w->y += w->sy;
    }
    return true;
}

/* See grid_int.h. */
int
gc_grid_check_point(const gc_grid *g, const char *what, float x, float y,
                    gc_cell *out, gc_error *err)
{
    float cs = g->cell_size;
    gc_cell c = {0, 0};
    bool off = !isfinite(x) || !isfinite(y) || x < 0.0f || y < 0.0f ||
               x >= (float)g->width * cs || y >= (float)g->height * cs;
    if (!off) {
        c = gc_grid_world_to_cell(g, (gc_vec2){x, y});
        off = !gc_grid_in_bounds(g, c.x, c.y); /* rounding at the far edge */
    }
    if (off)
        return gc_error_set(err, GC_EOUTSIDE, NULL, 0, 0,
                            "%s (%g, %g) is off the %dx%d map", what, (double)x,
                            (double)y, g->width, g->height);
    if (!gc_grid_passable(g, c.x, c.y))
        return gc_error_set(err, GC_EBLOCKED, NULL, 0, 0,
                            "%s (%g, %g) is in impassable cell (%d, %d)", what,
                            (double)x, (double)y, c.x, c.y);
    *out = c;
    return GC_OK;
}
