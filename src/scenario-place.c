/*
 * scenario-place.c: where the scenario runner puts agents and where it
 * sends them (the runner's state is in scenario_int.h; scenario-run.c
 * drives it).
 *
 * It holds the run's random stream (splitmix64 seeded with the run's seed;
 * the callers draw in a fixed order so that a run is reproducible), the
 * areas' cell lists (sorted, computed once per shape), the bucket index of
 * the bodies that judges free space, the aims a goal gives an agent, and
 * the making of an agent.  Free space is judged on the model grid, never
 * on the simulation's: grid events reach the world only as edits.
 *
 * All of it runs on the program's simulation thread, between ticks.
 */
#include "config.h"

#include <gridcrowd/scenario.h>

#include "scenario_int.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define SCN_PI 3.14159265358979323846

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

size_t
scn_run_rnd_below(gc_scenario_run *r, size_t n)
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

const scn_area_cells *
scn_run_area_get(gc_scenario_run *r, const gc_shape *s)
{
    for (size_t i = 0; i < r->nareas; i++)
        if (r->areas[i].shape == s)
            return &r->areas[i];
    if (r->nareas == r->areas_cap) {
        size_t cap = r->areas_cap ? 2 * r->areas_cap : 16;
        scn_area_cells *p = realloc(r->areas, cap * sizeof *p);
        if (p == NULL)
            return NULL;
        r->areas = p;
        r->areas_cap = cap;
    }
    scn_area_cells *a = &r->areas[r->nareas];
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

bool
scn_run_area_has(const scn_area_cells *a, gc_cell c)
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

gc_cell
scn_run_cell_of(const gc_scenario_run *r, gc_point p)
{
    double cs = r->sc->cell_size;
    return (gc_cell){(int32_t)floor(p.x / cs), (int32_t)floor(p.y / cs)};
}

gc_point
scn_run_centre_of(const gc_scenario_run *r, gc_cell c)
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
area_point(gc_scenario_run *r, const scn_area_cells *a, double radius)
{
    if (a->n == 0)
        return (gc_point){0, 0};
    for (int i = 0; i < 64; i++) {
        gc_cell c = a->cells[scn_run_rnd_below(r, a->n)];
        if (passable(r, c) && wall_free(r, scn_run_centre_of(r, c), radius))
            return scn_run_centre_of(r, c);
    }
    for (size_t i = 0; i < a->n; i++)
        if (wall_free(r, scn_run_centre_of(r, a->cells[i]), radius))
            return scn_run_centre_of(r, a->cells[i]);
    for (size_t i = 0; i < a->n; i++)
        if (passable(r, a->cells[i]))
            return scn_run_centre_of(r, a->cells[i]);
    return scn_run_centre_of(r, a->cells[a->n / 2]);
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
int
scn_run_index_rebuild(gc_scenario_run *r)
{
    for (int32_t i = 0; i < r->bw * r->bh; i++)
        r->bhead[i] = -1;
    r->bn = 0;
    for (size_t i = 0; i < r->nagents; i++) {
        scn_body b;
        int rc = r->crowd.body(r->crowd.arg, r->agents[i].h, &b);
        if (rc == GC_EGONE)
            continue; /* removed by an editor (after_tick lets it go) */
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
bool
scn_run_place_free(const gc_scenario_run *r, gc_point p, double radius)
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
int
scn_run_aim_for(gc_scenario_run *r, scn_run_agent *a, const gc_scenario_goal *g,
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
        const scn_area_cells *ac = scn_run_area_get(r, &g->areas[i]);
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
                const scn_area_cells *ac =
                    scn_run_area_get(r, &r->sc->exits[g->exits[k]].area);
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
                            gc_point c = scn_run_centre_of(r, cc);
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
    scn_run_agent *p = realloc(r->agents, cap * sizeof *p);
    if (p == NULL)
        return GC_ENOMEM;
    r->agents = p;
    r->agents_cap = cap;
    return GC_OK;
}

/* Make an agent of group `gi` at p (a free place). */
int
scn_run_make_agent(gc_scenario_run *r, int gi, gc_point p)
{
    const gc_scenario_group *g = &r->sc->groups[gi];
    int rc = agents_reserve(r);
    if (rc != GC_OK)
        return rc;
    scn_run_agent *a = &r->agents[r->nagents];
    memset(a, 0, sizeof *a);
    a->group = gi;
    a->home = p;
    a->radius = g->radius;
    double speed = draw_speed(r, &g->speed);
    scn_aim aim;
    rc = scn_run_aim_for(r, a, r->goal[gi], p, &aim);
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
