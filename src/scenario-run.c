/*
 * scenario-run.c: running a loaded scenario around the simulation's ticks.
 *
 * The runner owns no agent: it asks a population (scn_crowd, scenario_int.h)
 * to make, aim and remove them, and reads their bodies back after each
 * tick.  It keeps its own list of the agents it made (handle, group, route
 * step, home point), in the order they were made, so that everything it
 * decides depends only on the scenario, the seed and the bodies' positions:
 * a run is reproducible whenever the simulation is.
 *
 * The rules it keeps:
 *
 * - Every agent made is either in the list (present) or counted once at
 *   the exit it left by: spawned == present + left after every call, and
 *   an agent is removed from the population in the same step as from the
 *   list.
 * - Randomness comes from one splitmix64 stream seeded with the run's seed,
 *   consumed in a fixed order (groups in file order, then per tick the
 *   sources in file order), never from the clock or from thread timing.
 * - Grid events never write the grid.  The runner keeps a model (the map,
 *   the geometry's shapes, then the events' shapes in firing order, less
 *   the removed ones), rebuilds it when an event changes it, and hands the
 *   cells that changed to the program as edits, which go through the same
 *   applier as everyone else's (gc_edit_applier): checked, counted, and
 *   applied between ticks.  A removed shape's cells thus return to what
 *   the map and the other shapes give, and a user's own edit on those
 *   cells in between is overwritten only where the model changed.
 * - Free space for a spawn is judged on the model grid and on the bodies
 *   as they stood after the last tick (plus those made since), through a
 *   bucket index of the bodies rebuilt once per call: a spawn costs the
 *   bodies near it, not all of them.
 *
 * All of it runs on the program's simulation thread, between ticks.
 */
#include "config.h"

#include <gridcrowd/edits.h>
#include <gridcrowd/scenario.h>

#include "scenario_int.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define SCN_PI 3.14159265358979323846

/* Draws a source's spawn makes before it waits for the next tick. */
#define SPAWN_TRIES 16

/* An area's cells, sorted (row, column), for membership and draws. */
typedef struct area_cells {
    const gc_shape *shape; /* the key */
    gc_cell *cells;
    size_t n;
} area_cells;

typedef struct run_agent {
    scn_agent h;
    int group;
    uint32_t step; /* route: the area being walked to */
    gc_point home; /* where it was made (wander's centre) */
    double radius;
    bool arrived; /* counted in `arrived` */
    int32_t exit; /* exits goal: the exit aimed at, -1 */
    bool follows; /* aim FOLLOW given with a live target */
    scn_agent target;
} run_agent;

typedef struct run_source {
    bool enabled;
    double start;  /* when the current run of the source began */
    uint64_t base; /* agents made before that run */
    uint64_t made;
} run_source;

/* A layer of the model: a geometry shape or an event's shape. */
typedef struct layer {
    const gc_shape *shape;
    bool on;
} layer;

struct gc_scenario_run {
    const gc_scenario *sc;
    scn_crowd crowd;
    gc_scenario_run_config cfg;
    double dt;
    uint64_t tick; /* ticks completed */
    uint64_t rng;

    gc_grid *model;   /* the grid the scenario says now */
    bool model_dirty; /* layers changed: rebuild, send the difference */
    layer *layers;    /* geometry shapes, then events' shapes as fired */
    size_t nlayers;
    gc_edit *edits; /* scratch for an event's edits */
    size_t edits_cap;

    int32_t *exit_of; /* per cell: exit index, -1 */
    area_cells *areas;
    size_t nareas, areas_cap;

    const gc_scenario_goal **goal; /* per group: its goal now */
    run_agent *agents;
    size_t nagents, agents_cap;
    run_source *src;
    uint32_t *order; /* events sorted by (fire tick, file order) */
    size_t next_event;

    /* Body index: bucket of side `bsize`, head per bucket, next per entry
     * (entries index `pts`). */
    double bsize;
    int32_t bw, bh;
    int32_t *bhead;
    int32_t *bnext;
    gc_point *bpts;
    double *brad;
    size_t bn, bcap;
    double max_radius;

    /* Figures. */
    uint64_t spawned, from_sources, left, arrived, blocked, events_fired;
    uint64_t cells_edited;
    uint64_t *left_by_exit;
    double *last_by_exit;
    double evac_time;
    uint64_t *speed_n;
    double *speed_min, *speed_max;
};

/* ---- randomness ---------------------------------------------------------- */

static uint64_t
rnd(gc_scenario_run *r)
{
    uint64_t z = (r->rng += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

/* Uniform in [0, 1). */
static double
rnd_unit(gc_scenario_run *r)
{
    return (double)(rnd(r) >> 11) * 0x1.0p-53;
}

static size_t
rnd_below(gc_scenario_run *r, size_t n)
{
    return n ? (size_t)(rnd(r) % n) : 0;
}

/* A speed of the distribution: redrawn until inside [min, max].  The loop
 * is bounded (a window far in a tail could take long): after 1000 draws
 * the last one is clamped, which the README's tolerance allows for. */
static double
draw_speed(gc_scenario_run *r, const gc_speed_dist *d)
{
    if (d->sd <= 0)
        return fmin(fmax(d->mean, d->min), d->max);
    double v = d->mean;
    for (int i = 0; i < 1000; i++) {
        double u1 = rnd_unit(r), u2 = rnd_unit(r);
        v = d->mean +
            d->sd * sqrt(-2.0 * log(1.0 - u1)) * cos(2.0 * SCN_PI * u2);
        if (v >= d->min && v <= d->max)
            return v;
    }
    return fmin(fmax(v, d->min), d->max);
}

/* ---- areas --------------------------------------------------------------- */

static bool wall_free(const gc_scenario_run *r, gc_point p, double radius);

static const area_cells *
area_get(gc_scenario_run *r, const gc_shape *s)
{
    for (size_t i = 0; i < r->nareas; i++)
        if (r->areas[i].shape == s)
            return &r->areas[i];
    if (r->nareas == r->areas_cap) {
        size_t cap = r->areas_cap ? 2 * r->areas_cap : 16;
        area_cells *p = realloc(r->areas, cap * sizeof *p);
        if (p == NULL)
            return NULL;
        r->areas = p;
        r->areas_cap = cap;
    }
    area_cells *a = &r->areas[r->nareas];
    a->shape = s;
    a->cells = NULL;
    a->n = 0;
    if (gc_scenario_shape_cells(s, r->model->width, r->model->height,
                                r->sc->cell_size, GC_RASTER_CENTRE, &a->cells,
                                &a->n) != GC_OK)
        return NULL;
    r->nareas++;
    return a;
}

static int
cell_cmp(gc_cell a, gc_cell b)
{
    if (a.y != b.y)
        return a.y < b.y ? -1 : 1;
    return a.x < b.x ? -1 : a.x > b.x;
}

static bool
area_has(const area_cells *a, gc_cell c)
{
    size_t lo = 0, hi = a->n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        int k = cell_cmp(a->cells[mid], c);
        if (k == 0)
            return true;
        if (k < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return false;
}

static gc_cell
cell_of(const gc_scenario_run *r, gc_point p)
{
    double cs = r->sc->cell_size;
    return (gc_cell){(int32_t)floor(p.x / cs), (int32_t)floor(p.y / cs)};
}

static gc_point
centre_of(const gc_scenario_run *r, gc_cell c)
{
    double cs = r->sc->cell_size;
    return (gc_point){(c.x + 0.5) * cs, (c.y + 0.5) * cs};
}

static bool
passable(const gc_scenario_run *r, gc_cell c)
{
    return gc_grid_in_bounds(r->model, c.x, c.y) &&
           gc_grid_passable(r->model, c.x, c.y);
}

/* A point of area `a` to walk to: a passable cell drawn from it (the
 * centre of its cells' bounding box when none is passable). */
static gc_point
area_point(gc_scenario_run *r, const area_cells *a, double radius)
{
    if (a->n == 0)
        return (gc_point){0, 0};
    for (int i = 0; i < 64; i++) {
        gc_cell c = a->cells[rnd_below(r, a->n)];
        if (passable(r, c) && wall_free(r, centre_of(r, c), radius))
            return centre_of(r, c);
    }
    for (size_t i = 0; i < a->n; i++)
        if (wall_free(r, centre_of(r, a->cells[i]), radius))
            return centre_of(r, a->cells[i]);
    for (size_t i = 0; i < a->n; i++)
        if (passable(r, a->cells[i]))
            return centre_of(r, a->cells[i]);
    return centre_of(r, a->cells[a->n / 2]);
}

/* ---- the body index ------------------------------------------------------ */

static int32_t
bucket_of(const gc_scenario_run *r, gc_point p)
{
    int32_t bx = (int32_t)floor(p.x / r->bsize);
    int32_t by = (int32_t)floor(p.y / r->bsize);
    bx = bx < 0 ? 0 : bx >= r->bw ? r->bw - 1 : bx;
    by = by < 0 ? 0 : by >= r->bh ? r->bh - 1 : by;
    return by * r->bw + bx;
}

static int
index_add(gc_scenario_run *r, gc_point p, double radius)
{
    if (r->bn == r->bcap) {
        size_t cap = r->bcap ? 2 * r->bcap : 256;
        gc_point *pts = realloc(r->bpts, cap * sizeof *pts);
        if (pts == NULL)
            return GC_ENOMEM;
        r->bpts = pts;
        double *rad = realloc(r->brad, cap * sizeof *rad);
        if (rad == NULL)
            return GC_ENOMEM;
        r->brad = rad;
        int32_t *next = realloc(r->bnext, cap * sizeof *next);
        if (next == NULL)
            return GC_ENOMEM;
        r->bnext = next;
        r->bcap = cap;
    }
    int32_t b = bucket_of(r, p);
    r->bpts[r->bn] = p;
    r->brad[r->bn] = radius;
    r->bnext[r->bn] = r->bhead[b];
    r->bhead[b] = (int32_t)r->bn;
    r->bn++;
    return GC_OK;
}

/* Index every present agent's body where it stands now. */
static int
index_rebuild(gc_scenario_run *r)
{
    for (int32_t i = 0; i < r->bw * r->bh; i++)
        r->bhead[i] = -1;
    r->bn = 0;
    for (size_t i = 0; i < r->nagents; i++) {
        scn_body b;
        int rc = r->crowd.body(r->crowd.arg, r->agents[i].h, &b);
        if (rc != GC_OK)
            return rc;
        rc = index_add(r, b.pos, r->agents[i].radius);
        if (rc != GC_OK)
            return rc;
    }
    return GC_OK;
}

/* True when a body of `radius` at p overlaps no obstacle cell and stays
 * on the grid: where the simulation's planner lets a body stand. */
static bool
wall_free(const gc_scenario_run *r, gc_point p, double radius)
{
    double cs = r->sc->cell_size;
    int32_t x0 = (int32_t)floor((p.x - radius) / cs);
    int32_t x1 = (int32_t)floor((p.x + radius) / cs);
    int32_t y0 = (int32_t)floor((p.y - radius) / cs);
    int32_t y1 = (int32_t)floor((p.y + radius) / cs);
    for (int32_t y = y0; y <= y1; y++)
        for (int32_t x = x0; x <= x1; x++) {
            /* Off the grid counts as a wall, as the simulation's own
             * check counts it. */
            if (!gc_grid_in_bounds(r->model, x, y))
                return false;
            if (gc_grid_passable(r->model, x, y))
                continue;
            /* Distance from p to the cell's square. */
            double dx = fmax(fmax(x * cs - p.x, p.x - (x + 1) * cs), 0);
            double dy = fmax(fmax(y * cs - p.y, p.y - (y + 1) * cs), 0);
            if (dx * dx + dy * dy < radius * radius - 1e-12)
                return false;
        }
    return true;
}

/* True when a body of `radius` at p overlaps no obstacle cell and no body
 * of the index.  Touching is allowed (distance == sum of radii). */
static bool
place_free(const gc_scenario_run *r, gc_point p, double radius)
{
    if (!wall_free(r, p, radius))
        return false;
    double reach = radius + r->max_radius;
    int32_t bx0 = (int32_t)floor((p.x - reach) / r->bsize);
    int32_t bx1 = (int32_t)floor((p.x + reach) / r->bsize);
    int32_t by0 = (int32_t)floor((p.y - reach) / r->bsize);
    int32_t by1 = (int32_t)floor((p.y + reach) / r->bsize);
    bx0 = bx0 < 0 ? 0 : bx0;
    by0 = by0 < 0 ? 0 : by0;
    bx1 = bx1 >= r->bw ? r->bw - 1 : bx1;
    by1 = by1 >= r->bh ? r->bh - 1 : by1;
    for (int32_t by = by0; by <= by1; by++)
        for (int32_t bx = bx0; bx <= bx1; bx++)
            for (int32_t i = r->bhead[by * r->bw + bx]; i >= 0;
                 i = r->bnext[i]) {
                double dx = r->bpts[i].x - p.x, dy = r->bpts[i].y - p.y;
                double d = radius + r->brad[i];
                if (dx * dx + dy * dy < d * d - 1e-12)
                    return false;
            }
    return true;
}

/* ---- goals --------------------------------------------------------------- */

/* The aim for agent `a` under goal `g` standing at `pos`. */
static int
aim_for(gc_scenario_run *r, run_agent *a, const gc_scenario_goal *g,
        gc_point pos, scn_aim *out)
{
    memset(out, 0, sizeof *out);
    a->follows = false;
    a->exit = -1;
    switch (g->kind) {
    case GC_GOAL_NONE:
        out->kind = SCN_AIM_STOP;
        return GC_OK;
    case GC_GOAL_POINT:
        out->kind = SCN_AIM_POINT;
        out->point = g->point;
        return GC_OK;
    case GC_GOAL_AREA:
    case GC_GOAL_ROUTE: {
        size_t i = g->kind == GC_GOAL_AREA ? 0 : a->step;
        if (i >= g->nareas)
            i = g->nareas - 1;
        const area_cells *ac = area_get(r, &g->areas[i]);
        if (ac == NULL)
            return GC_ENOMEM;
        out->kind = SCN_AIM_POINT;
        out->point = area_point(r, ac, a->radius);
        return GC_OK;
    }
    case GC_GOAL_EXITS: {
        /* The nearest cell of the nearest exit, as the crow flies: each
         * agent aims at its own cell of the door, so a crowd spreads over
         * the door's width rather than onto one point.  First the exit's
         * cells where the body fits (the planner refuses a goal a body
         * cannot stand on); then, for a door in a wall or on the map's
         * edge that no body fits in, the cells in front of it within a
         * body's width (the agent leaves by that exit when it arrives
         * there); last any open cell of the exit. */
        double best = INFINITY;
        gc_point bp = pos;
        const int32_t reach = (int32_t)ceil(a->radius / r->sc->cell_size) + 1;
        for (int pass = 0; pass < 3 && !isfinite(best); pass++)
            for (size_t k = 0; k < g->nexits; k++) {
                const area_cells *ac =
                    area_get(r, &r->sc->exits[g->exits[k]].area);
                if (ac == NULL)
                    return GC_ENOMEM;
                int32_t m = pass == 1 ? reach : 0;
                for (size_t j = 0; j < ac->n; j++)
                    for (int32_t dy = -m; dy <= m; dy++)
                        for (int32_t dx = -m; dx <= m; dx++) {
                            gc_cell cc = {ac->cells[j].x + dx,
                                          ac->cells[j].y + dy};
                            if (!passable(r, cc))
                                continue;
                            gc_point c = centre_of(r, cc);
                            if (pass < 2 && !wall_free(r, c, a->radius))
                                continue;
                            double d = hypot(c.x - pos.x, c.y - pos.y);
                            if (d < best) {
                                best = d;
                                bp = c;
                                a->exit = g->exits[k];
                            }
                        }
            }
        out->kind = isfinite(best) ? SCN_AIM_POINT : SCN_AIM_STOP;
        out->point = bp;
        return GC_OK;
    }
    case GC_GOAL_WANDER:
        out->kind = SCN_AIM_WANDER;
        out->point = a->home;
        out->radius = g->radius;
        return GC_OK;
    case GC_GOAL_FOLLOW: {
        /* The agents of the leading group are shared out in turn: the
         * k-th follower made takes the (k mod n)-th leader present. */
        size_t n = 0;
        for (size_t i = 0; i < r->nagents; i++)
            n += r->agents[i].group == g->group;
        if (n == 0) {
            out->kind = SCN_AIM_STOP;
            return GC_OK;
        }
        size_t want = (size_t)(a - r->agents) % n;
        for (size_t i = 0; i < r->nagents; i++)
            if (r->agents[i].group == g->group && want-- == 0) {
                out->kind = SCN_AIM_FOLLOW;
                out->target = a->target = r->agents[i].h;
                a->follows = true;
                break;
            }
        return GC_OK;
    }
    }
    return GC_EINVAL;
}

/* ---- making agents ------------------------------------------------------- */

static int
agents_reserve(gc_scenario_run *r)
{
    if (r->nagents < r->agents_cap)
        return GC_OK;
    size_t cap = r->agents_cap ? 2 * r->agents_cap : 64;
    run_agent *p = realloc(r->agents, cap * sizeof *p);
    if (p == NULL)
        return GC_ENOMEM;
    r->agents = p;
    r->agents_cap = cap;
    return GC_OK;
}

/* Make an agent of group `gi` at p (a free place). */
static int
make_agent(gc_scenario_run *r, int gi, gc_point p)
{
    const gc_scenario_group *g = &r->sc->groups[gi];
    int rc = agents_reserve(r);
    if (rc != GC_OK)
        return rc;
    run_agent *a = &r->agents[r->nagents];
    memset(a, 0, sizeof *a);
    a->group = gi;
    a->home = p;
    a->radius = g->radius;
    double speed = draw_speed(r, &g->speed);
    scn_aim aim;
    rc = aim_for(r, a, r->goal[gi], p, &aim);
    if (rc != GC_OK)
        return rc;
    scn_spawn sp = {p.x, p.y, g->radius, speed, g->turn_rate * SCN_PI / 180.0,
                    gi};
    rc = r->crowd.spawn(r->crowd.arg, &sp, &aim, &a->h);
    if (rc != GC_OK)
        return rc; /* GC_EBLOCKED: the caller tries another place */
    if (r->speed_n[gi] == 0 || speed < r->speed_min[gi])
        r->speed_min[gi] = speed;
    if (r->speed_n[gi] == 0 || speed > r->speed_max[gi])
        r->speed_max[gi] = speed;
    r->speed_n[gi]++;
    r->nagents++;
    r->spawned++;
    return index_add(r, p, g->radius);
}

/* ---- the model grid and the events' edits -------------------------------- */

static int
model_build(const gc_scenario_run *r, gc_grid **out)
{
    gc_grid *g = NULL;
    int rc;
    if (r->sc->map != NULL) {
        rc = gc_grid_clone(&g, r->sc->map);
        if (rc != GC_OK)
            return rc;
        g->cell_size = (float)r->sc->cell_size;
    } else {
        rc = gc_grid_new(&g, r->sc->grid_w, r->sc->grid_h);
        if (rc != GC_OK)
            return rc;
        g->cell_size = (float)r->sc->cell_size;
    }
    for (size_t i = 0; i < r->nlayers; i++) {
        if (!r->layers[i].on)
            continue;
        rc = gc_scenario_shape_apply(g, r->sc->cell_size, r->layers[i].shape,
                                     NULL, NULL);
        if (rc != GC_OK) {
            gc_grid_free(g);
            return rc;
        }
    }
    *out = g;
    return GC_OK;
}

static int
edits_put(gc_scenario_run *r, size_t *n, gc_edit e)
{
    if (*n == r->edits_cap) {
        size_t cap = r->edits_cap ? 2 * r->edits_cap : 64;
        gc_edit *p = realloc(r->edits, cap * sizeof *p);
        if (p == NULL)
            return GC_ENOMEM;
        r->edits = p;
        r->edits_cap = cap;
    }
    r->edits[(*n)++] = e;
    return GC_OK;
}

/* Rebuild the model after the layers changed and send the difference:
 * one RECT per run of cells of a row that take the same new type. */
static int
model_update(gc_scenario_run *r)
{
    gc_grid *g;
    int rc = model_build(r, &g);
    if (rc != GC_OK)
        return rc;
    size_t n = 0;
    for (int32_t y = 0; y < g->height && rc == GC_OK; y++) {
        int32_t x = 0;
        while (x < g->width) {
            size_t i = gc_grid_index(g, x, y);
            if (g->cells[i] == r->model->cells[i]) {
                x++;
                continue;
            }
            int32_t x1 = x;
            while (x1 + 1 < g->width &&
                   g->cells[i + (size_t)(x1 + 1 - x)] == g->cells[i] &&
                   g->cells[i + (size_t)(x1 + 1 - x)] !=
                       r->model->cells[i + (size_t)(x1 + 1 - x)])
                x1++;
            gc_edit e;
            memset(&e, 0, sizeof e);
            e.op = x1 == x ? GC_EDIT_SET : GC_EDIT_RECT;
            e.type = g->cells[i];
            e.x0 = x;
            e.y0 = y;
            if (x1 != x) {
                e.x1 = x1;
                e.y1 = y;
            }
            r->cells_edited += (uint64_t)(x1 - x + 1);
            rc = edits_put(r, &n, e);
            if (rc != GC_OK)
                break;
            x = x1 + 1;
        }
    }
    if (rc != GC_OK) {
        gc_grid_free(g);
        return rc;
    }
    gc_grid_free(r->model);
    r->model = g;
    if (n == 0)
        return GC_OK;
    if (r->cfg.edits == NULL)
        return GC_EINVAL;
    return r->cfg.edits(r->cfg.edits_arg, r->edits, n);
}

static layer *
layer_named(gc_scenario_run *r, const char *id)
{
    for (size_t i = r->nlayers; i-- > 0;)
        if (r->layers[i].shape->id != NULL &&
            strcmp(r->layers[i].shape->id, id) == 0)
            return &r->layers[i];
    return NULL;
}

/* ---- set-up -------------------------------------------------------------- */

static uint64_t
fire_tick(const gc_scenario_run *r, double t)
{
    return (uint64_t)floor(t * r->cfg.hz + 1e-9) + 1;
}

static const gc_scenario_run *sort_run; /* qsort has no argument */

static int
event_cmp(const void *pa, const void *pb)
{
    uint32_t a = *(const uint32_t *)pa, b = *(const uint32_t *)pb;
    uint64_t ta = fire_tick(sort_run, sort_run->sc->events[a].time);
    uint64_t tb = fire_tick(sort_run, sort_run->sc->events[b].time);
    if (ta != tb)
        return ta < tb ? -1 : 1;
    return a < b ? -1 : a > b;
}

int
scn_run_new_crowd(gc_scenario_run **out, const gc_scenario *sc,
                  const scn_crowd *crowd, const gc_scenario_run_config *cfg,
                  gc_error *err)
{
    if (out == NULL || sc == NULL || crowd == NULL || cfg == NULL ||
        !(cfg->hz > 0) || !isfinite(cfg->hz))
        return gc_error_set(err, GC_EINVAL, NULL, 0, 0,
                            "scenario run: bad arguments");
    *out = NULL;
    gc_scenario_run *r = calloc(1, sizeof *r);
    if (r == NULL)
        return gc_error_set(err, GC_ENOMEM, NULL, 0, 0, "%s",
                            gc_strerror(GC_ENOMEM));
    r->sc = sc;
    r->crowd = *crowd;
    r->cfg = *cfg;
    r->dt = 1.0 / cfg->hz;
    r->rng = cfg->seed;
    r->evac_time = -1;
    size_t ng = sc->ngroups ? sc->ngroups : 1;
    size_t nadd = 0;
    for (size_t i = 0; i < sc->nevents; i++)
        nadd += sc->events[i].kind == GC_EVENT_PAINT ||
                sc->events[i].kind == GC_EVENT_ADD_SHAPE;
    r->layers = calloc(sc->nshapes + nadd + 1, sizeof *r->layers);
    r->goal = calloc(ng, sizeof *r->goal);
    r->speed_n = calloc(ng, sizeof *r->speed_n);
    r->speed_min = calloc(ng, sizeof *r->speed_min);
    r->speed_max = calloc(ng, sizeof *r->speed_max);
    r->left_by_exit = calloc(sc->nexits + 1, sizeof *r->left_by_exit);
    r->last_by_exit = calloc(sc->nexits + 1, sizeof *r->last_by_exit);
    r->src = calloc(sc->nsources + 1, sizeof *r->src);
    r->order = calloc(sc->nevents + 1, sizeof *r->order);
    if (r->layers == NULL || r->goal == NULL || r->speed_n == NULL ||
        r->speed_min == NULL || r->speed_max == NULL ||
        r->left_by_exit == NULL || r->last_by_exit == NULL || r->src == NULL ||
        r->order == NULL)
        goto nomem;
    for (size_t i = 0; i < sc->nshapes; i++)
        r->layers[r->nlayers++] = (layer){&sc->shapes[i], true};
    if (model_build(r, &r->model) != GC_OK)
        goto nomem;
    int32_t w = r->model->width, h = r->model->height;
    r->exit_of = malloc((size_t)w * (size_t)h * sizeof *r->exit_of);
    if (r->exit_of == NULL)
        goto nomem;
    for (size_t i = 0; i < (size_t)w * (size_t)h; i++)
        r->exit_of[i] = -1;
    /* An exit's cells by the CENTRE rule; where two exits share a cell,
     * the first in the file counts it. */
    for (size_t e = sc->nexits; e-- > 0;) {
        const area_cells *ac = area_get(r, &sc->exits[e].area);
        if (ac == NULL)
            goto nomem;
        for (size_t j = 0; j < ac->n; j++)
            r->exit_of[gc_grid_index(r->model, ac->cells[j].x,
                                     ac->cells[j].y)] = (int32_t)e;
    }
    for (size_t e = 0; e < sc->nexits; e++)
        r->last_by_exit[e] = -1;
    for (size_t g = 0; g < sc->ngroups; g++) {
        r->goal[g] = &sc->groups[g].goal;
        if (sc->groups[g].radius > r->max_radius)
            r->max_radius = sc->groups[g].radius;
    }
    for (size_t s = 0; s < sc->nsources; s++) {
        r->src[s].enabled = sc->sources[s].enabled;
        r->src[s].start = sc->sources[s].start;
    }
    for (size_t i = 0; i < sc->nevents; i++)
        r->order[i] = (uint32_t)i;
    sort_run = r;
    qsort(r->order, sc->nevents, sizeof *r->order, event_cmp);
    sort_run = NULL;
    /* Buckets at least a body across, and at most 2^20 of them. */
    r->bsize = fmax(sc->cell_size, 2 * r->max_radius);
    double W = w * sc->cell_size, H = h * sc->cell_size;
    while ((W / r->bsize) * (H / r->bsize) > (double)(1 << 20))
        r->bsize *= 2;
    r->bw = (int32_t)ceil(W / r->bsize);
    r->bh = (int32_t)ceil(H / r->bsize);
    r->bw = r->bw < 1 ? 1 : r->bw;
    r->bh = r->bh < 1 ? 1 : r->bh;
    r->bhead = malloc((size_t)r->bw * (size_t)r->bh * sizeof *r->bhead);
    if (r->bhead == NULL)
        goto nomem;
    for (int32_t i = 0; i < r->bw * r->bh; i++)
        r->bhead[i] = -1;
    *out = r;
    return GC_OK;
nomem:
    gc_scenario_run_free(r);
    return gc_error_set(err, GC_ENOMEM, NULL, 0, 0, "%s",
                        gc_strerror(GC_ENOMEM));
}

void
gc_scenario_run_free(gc_scenario_run *r)
{
    if (r == NULL)
        return;
    gc_grid_free(r->model);
    free(r->layers);
    free(r->edits);
    free(r->exit_of);
    for (size_t i = 0; i < r->nareas; i++)
        free(r->areas[i].cells);
    free(r->areas);
    free(r->goal);
    free(r->agents);
    free(r->src);
    free(r->order);
    free(r->bhead);
    free(r->bnext);
    free(r->bpts);
    free(r->brad);
    free(r->left_by_exit);
    free(r->last_by_exit);
    free(r->speed_n);
    free(r->speed_min);
    free(r->speed_max);
    free(r);
}

const gc_grid *
scn_run_model(const gc_scenario_run *r)
{
    return r->model;
}

/* ---- start: the groups --------------------------------------------------- */

int
gc_scenario_run_start(gc_scenario_run *r, gc_error *err)
{
    const gc_scenario *sc = r->sc;
    for (size_t gi = 0; gi < sc->ngroups; gi++) {
        const gc_scenario_group *g = &sc->groups[gi];
        if (g->count == 0 || !g->has_spawn)
            continue;
        const area_cells *ac = area_get(r, &g->spawn);
        if (ac == NULL)
            return gc_error_set(err, GC_ENOMEM, NULL, 0, 0, "%s",
                                gc_strerror(GC_ENOMEM));
        /* The area's cells in a random order (Fisher-Yates); each agent
         * takes the next cell where its body fits.  A cell that does not
         * fit now never will (bodies do not move before the first tick),
         * so the cursor only goes forward: linear in the area. */
        size_t *perm = malloc((ac->n + 1) * sizeof *perm);
        if (perm == NULL)
            return gc_error_set(err, GC_ENOMEM, NULL, 0, 0, "%s",
                                gc_strerror(GC_ENOMEM));
        for (size_t i = 0; i < ac->n; i++)
            perm[i] = i;
        for (size_t i = ac->n; i > 1; i--) {
            size_t j = rnd_below(r, i);
            size_t t = perm[i - 1];
            perm[i - 1] = perm[j];
            perm[j] = t;
        }
        size_t cur = 0;
        int64_t made = 0;
        while (made < g->count) {
            while (
                cur < ac->n &&
                !place_free(r, centre_of(r, ac->cells[perm[cur]]), g->radius))
                cur++;
            if (cur == ac->n)
                break;
            int rc = make_agent(r, (int)gi, centre_of(r, ac->cells[perm[cur]]));
            if (rc == GC_EBLOCKED) {
                cur++; /* the simulation's own check refused the place */
                continue;
            }
            if (rc != GC_OK) {
                free(perm);
                return gc_error_set(err, rc, sc->path, g->spawn.line, 0,
                                    "group '%s': %s", g->name, gc_strerror(rc));
            }
            cur++;
            made++;
        }
        free(perm);
        if (made < g->count)
            return gc_error_set(err, GC_ERANGE, sc->path, g->spawn.line, 0,
                                "group '%s': only %lld of its %lld agents fit "
                                "in its spawn area (bodies of radius %g, "
                                "apart from the walls)",
                                g->name, (long long)made, (long long)g->count,
                                g->radius);
    }
    return GC_OK;
}

/* ---- before a tick: events, sources -------------------------------------- */

/* Agents a source owes by time t, all runs of it counted. */
static uint64_t
source_due(const gc_scenario_run *r, size_t s, double t)
{
    const gc_scenario_source *so = &r->sc->sources[s];
    const run_source *rs = &r->src[s];
    if (!rs->enabled || t < rs->start)
        return rs->made;
    /* The k-th agent of this run at start + k / rate, while before end. */
    double k_t = floor((t - rs->start) * so->rate + 1e-9);
    double due = k_t + 1;
    if (isfinite(so->end)) {
        double k_end = ceil((so->end - rs->start) * so->rate - 1e-9);
        if (k_end < due)
            due = k_end < 0 ? 0 : k_end;
    }
    double d = (double)rs->base + due;
    if (so->total >= 0 && d > (double)so->total)
        d = (double)so->total;
    return d < (double)rs->made ? rs->made : (uint64_t)d;
}

static int
fire(gc_scenario_run *r, const gc_scenario_event *ev)
{
    const gc_scenario *sc = r->sc;
    switch (ev->kind) {
    case GC_EVENT_PAINT:
    case GC_EVENT_ADD_SHAPE:
        r->layers[r->nlayers++] = (layer){&ev->shape, true};
        r->model_dirty = true;
        return GC_OK;
    case GC_EVENT_REMOVE_SHAPE: {
        layer *l = layer_named(r, ev->target);
        if (l == NULL || !l->on)
            return GC_OK; /* removed already, or added later in the file */
        l->on = false;
        r->model_dirty = true;
        return GC_OK;
    }
    case GC_EVENT_SET_GOAL:
        r->goal[ev->group] = &ev->goal;
        for (size_t i = 0; i < r->nagents; i++) {
            run_agent *a = &r->agents[i];
            if (a->group != ev->group)
                continue;
            scn_body b;
            int rc = r->crowd.body(r->crowd.arg, a->h, &b);
            if (rc != GC_OK)
                return rc;
            a->step = 0;
            if (a->arrived) {
                a->arrived = false;
                r->arrived--;
            }
            scn_aim aim;
            rc = aim_for(r, a, &ev->goal, b.pos, &aim);
            if (rc == GC_OK)
                rc = r->crowd.aim(r->crowd.arg, a->h, &aim);
            if (rc != GC_OK)
                return rc;
        }
        return GC_OK;
    case GC_EVENT_START_SOURCE: {
        run_source *rs = &r->src[ev->source];
        if (!rs->enabled) {
            rs->enabled = true;
            rs->start = fmax(sc->sources[ev->source].start, ev->time);
            rs->base = rs->made;
        }
        return GC_OK;
    }
    case GC_EVENT_STOP_SOURCE:
        /* What it owed and could not place yet is forgotten too. */
        r->src[ev->source].enabled = false;
        return GC_OK;
    }
    return GC_EINVAL;
}

int
gc_scenario_run_before_tick(gc_scenario_run *r, gc_error *err)
{
    const gc_scenario *sc = r->sc;
    const uint64_t n = r->tick + 1;
    const double now = (double)r->tick * r->dt;
    while (r->next_event < sc->nevents) {
        const gc_scenario_event *ev = &sc->events[r->order[r->next_event]];
        if (fire_tick(r, ev->time) > n)
            break;
        r->next_event++;
        r->events_fired++;
        int rc = fire(r, ev);
        if (rc != GC_OK)
            return gc_error_set(err, rc, sc->path, ev->line, 0,
                                "event at %g s: %s", ev->time, gc_strerror(rc));
    }
    /* The grid events of one tick go out as one set of edits (one batch,
     * one generation), whatever their number. */
    if (r->model_dirty) {
        r->model_dirty = false;
        int rc = model_update(r);
        if (rc != GC_OK)
            return gc_error_set(err, rc, sc->path, 0, 0,
                                "grid events at %g s: %s", now,
                                gc_strerror(rc));
    }
    bool indexed = false;
    for (size_t s = 0; s < sc->nsources; s++) {
        const gc_scenario_source *so = &sc->sources[s];
        run_source *rs = &r->src[s];
        uint64_t due = source_due(r, s, now);
        if (due <= rs->made)
            continue;
        if (!indexed) {
            int rc = index_rebuild(r);
            if (rc != GC_OK)
                return gc_error_set(err, rc, NULL, 0, 0, "%s", gc_strerror(rc));
            indexed = true;
        }
        const area_cells *ac = area_get(r, &so->area);
        if (ac == NULL)
            return gc_error_set(err, GC_ENOMEM, NULL, 0, 0, "%s",
                                gc_strerror(GC_ENOMEM));
        double radius = sc->groups[so->group].radius;
        while (rs->made < due) {
            bool placed = false;
            for (int t = 0; t < SPAWN_TRIES && ac->n > 0; t++) {
                gc_point p = centre_of(r, ac->cells[rnd_below(r, ac->n)]);
                if (!place_free(r, p, radius))
                    continue;
                int rc = make_agent(r, so->group, p);
                if (rc == GC_EBLOCKED)
                    continue;
                if (rc != GC_OK)
                    return gc_error_set(
                        err, rc, sc->path, so->area.line, 0, "source '%s': %s",
                        so->name ? so->name : "?", gc_strerror(rc));
                placed = true;
                break;
            }
            if (!placed) {
                /* Full: the rest of what it owes waits for the next tick
                 * (the area clears as agents walk off). */
                r->blocked++;
                break;
            }
            rs->made++;
            r->from_sources++;
        }
    }
    return GC_OK;
}

/* ---- after a tick: exits, arrivals, routes, followers -------------------- */

static bool
present(const gc_scenario_run *r, scn_agent h)
{
    for (size_t i = 0; i < r->nagents; i++)
        if (r->agents[i].h == h)
            return true;
    return false;
}

int
gc_scenario_run_after_tick(gc_scenario_run *r, gc_error *err)
{
    r->tick++;
    const double now = (double)r->tick * r->dt;
    size_t keep = 0, i;
    bool gone = false; /* someone left: followers check their target */
    int rc = GC_OK;
    for (i = 0; i < r->nagents; i++) {
        run_agent *a = &r->agents[i];
        scn_body b;
        rc = r->crowd.body(r->crowd.arg, a->h, &b);
        if (rc != GC_OK)
            break;
        gc_cell c = cell_of(r, b.pos);
        int32_t ex = gc_grid_in_bounds(r->model, c.x, c.y)
                         ? r->exit_of[gc_grid_index(r->model, c.x, c.y)]
                         : -1;
        /* An exit walker that arrived at its cell of the exit leaves by
         * it even when its centre stopped short of the exit's cells (the
         * simulation arrives within a radius of the goal). */
        if (ex < 0 && b.arrived && a->exit >= 0 &&
            r->goal[a->group]->kind == GC_GOAL_EXITS)
            ex = a->exit;
        if (ex >= 0) {
            rc = r->crowd.remove(r->crowd.arg, a->h);
            if (rc != GC_OK)
                break;
            if (a->arrived)
                r->arrived--;
            r->left++;
            r->left_by_exit[ex]++;
            r->last_by_exit[ex] = now;
            r->evac_time = now;
            gone = true;
            continue;
        }
        const gc_scenario_goal *g = r->goal[a->group];
        if (g->kind == GC_GOAL_ROUTE && a->step + 1 < g->nareas) {
            const area_cells *ac = area_get(r, &g->areas[a->step]);
            if (ac == NULL) {
                rc = GC_ENOMEM;
                break;
            }
            if (area_has(ac, c) || b.arrived) {
                a->step++;
                scn_aim aim;
                rc = aim_for(r, a, g, b.pos, &aim);
                if (rc == GC_OK)
                    rc = r->crowd.aim(r->crowd.arg, a->h, &aim);
                if (rc != GC_OK)
                    break;
                b.arrived = false;
            }
        }
        bool done =
            b.arrived && (g->kind == GC_GOAL_POINT || g->kind == GC_GOAL_AREA ||
                          g->kind == GC_GOAL_ROUTE || g->kind == GC_GOAL_EXITS);
        if (done != a->arrived) {
            a->arrived = done;
            if (done)
                r->arrived++;
            else
                r->arrived--;
        }
        r->agents[keep++] = *a;
    }
    if (rc != GC_OK) {
        /* Keep the list whole: the agents not looked at yet stay. */
        memmove(&r->agents[keep], &r->agents[i],
                (r->nagents - i) * sizeof *r->agents);
        r->nagents = keep + (r->nagents - i);
    } else {
        r->nagents = keep;
        for (size_t j = 0; gone && j < r->nagents; j++) {
            run_agent *a = &r->agents[j];
            if (!a->follows || present(r, a->target))
                continue;
            scn_body b;
            scn_aim aim;
            rc = r->crowd.body(r->crowd.arg, a->h, &b);
            if (rc == GC_OK)
                rc = aim_for(r, a, r->goal[a->group], b.pos, &aim);
            if (rc == GC_OK)
                rc = r->crowd.aim(r->crowd.arg, a->h, &aim);
            if (rc != GC_OK)
                break;
        }
    }
    if (rc != GC_OK)
        return gc_error_set(err, rc, NULL, 0, 0, "scenario tick %llu: %s",
                            (unsigned long long)r->tick, gc_strerror(rc));
    return GC_OK;
}

/* ---- stop and figures ---------------------------------------------------- */

bool
gc_scenario_run_done(const gc_scenario_run *r)
{
    const gc_scenario *sc = r->sc;
    double now = (double)r->tick * r->dt;
    if (now >= sc->stop.time_limit - 1e-9)
        return true;
    if (!sc->stop.when_done)
        return false;
    if (r->arrived < r->nagents)
        return false;
    for (size_t i = r->next_event; i < sc->nevents; i++) {
        gc_event_kind k = sc->events[r->order[i]].kind;
        if (k == GC_EVENT_SET_GOAL || k == GC_EVENT_START_SOURCE)
            return false;
    }
    for (size_t s = 0; s < sc->nsources; s++) {
        const gc_scenario_source *so = &sc->sources[s];
        const run_source *rs = &r->src[s];
        if (!rs->enabled)
            continue;
        if (so->total >= 0 && rs->made >= (uint64_t)so->total)
            continue;
        if (!isfinite(so->end) || now < so->end ||
            source_due(r, s, so->end) > rs->made)
            return false;
    }
    return true;
}

void
gc_scenario_run_counts(const gc_scenario_run *r, gc_scenario_counts *out)
{
    memset(out, 0, sizeof *out);
    out->tick = r->tick;
    out->time = (double)r->tick * r->dt;
    out->spawned = r->spawned;
    out->from_sources = r->from_sources;
    out->present = r->nagents;
    out->arrived = r->arrived;
    out->left = r->left;
    out->left_by_exit = r->left_by_exit;
    out->last_by_exit = r->last_by_exit;
    out->nexits = r->sc->nexits;
    out->evacuation_time = r->evac_time;
    out->blocked = r->blocked;
    out->events_fired = r->events_fired;
    out->cells_edited = r->cells_edited;
}

int
gc_scenario_run_speeds(const gc_scenario_run *r, size_t g, uint64_t *n,
                       double *min, double *max)
{
    if (g >= r->sc->ngroups)
        return GC_ERANGE;
    *n = r->speed_n[g];
    *min = r->speed_n[g] ? r->speed_min[g] : 0;
    *max = r->speed_n[g] ? r->speed_max[g] : 0;
    return GC_OK;
}
