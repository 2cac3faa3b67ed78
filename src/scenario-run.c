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
 *   bucket index of the bodies rebuilt once per call (scenario-place.c,
 *   which also draws places, aims and makes agents; the runner's state is
 *   in scenario_int.h).
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

/* Draws a source's spawn makes before it waits for the next tick. */
#define SPAWN_TRIES 16

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

static scn_layer *
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
        r->layers[r->nlayers++] = (scn_layer){&sc->shapes[i], true};
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
        const scn_area_cells *ac = scn_run_area_get(r, &sc->exits[e].area);
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
        const scn_area_cells *ac = scn_run_area_get(r, &g->spawn);
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
            size_t j = scn_run_rnd_below(r, i);
            size_t t = perm[i - 1];
            perm[i - 1] = perm[j];
            perm[j] = t;
        }
        size_t cur = 0;
        int64_t made = 0;
        while (made < g->count) {
            while (
                cur < ac->n &&
                !scn_run_place_free(
                    r, scn_run_centre_of(r, ac->cells[perm[cur]]), g->radius))
                cur++;
            if (cur == ac->n)
                break;
            int rc = scn_run_make_agent(
                r, (int)gi, scn_run_centre_of(r, ac->cells[perm[cur]]));
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
        /* "its 1 agent does not fit", not "only 0 of its 1 agents". */
        if (made < g->count && g->count == 1)
            return gc_error_set(err, GC_ERANGE, sc->path, g->spawn.line, 0,
                                "group '%s': its 1 agent does not fit in its "
                                "spawn area (a body of radius %g, apart from "
                                "the walls)",
                                g->name, g->radius);
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
    const scn_run_source *rs = &r->src[s];
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
        r->layers[r->nlayers++] = (scn_layer){&ev->shape, true};
        r->model_dirty = true;
        return GC_OK;
    case GC_EVENT_REMOVE_SHAPE: {
        scn_layer *l = layer_named(r, ev->target);
        if (l == NULL || !l->on)
            return GC_OK; /* removed already, or added later in the file */
        l->on = false;
        r->model_dirty = true;
        return GC_OK;
    }
    case GC_EVENT_SET_GOAL:
        r->goal[ev->group] = &ev->goal;
        for (size_t i = 0; i < r->nagents; i++) {
            scn_run_agent *a = &r->agents[i];
            if (a->group != ev->group)
                continue;
            scn_body b;
            int rc = r->crowd.body(r->crowd.arg, a->h, &b);
            if (rc == GC_EGONE)
                continue; /* removed by an editor: after_tick lets it go */
            if (rc != GC_OK)
                return rc;
            a->step = 0;
            if (a->arrived) {
                a->arrived = false;
                r->arrived--;
            }
            scn_aim aim;
            rc = scn_run_aim_for(r, a, &ev->goal, b.pos, &aim);
            if (rc == GC_OK)
                rc = r->crowd.aim(r->crowd.arg, a->h, &aim);
            if (rc != GC_OK)
                return rc;
        }
        return GC_OK;
    case GC_EVENT_START_SOURCE: {
        scn_run_source *rs = &r->src[ev->source];
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
        scn_run_source *rs = &r->src[s];
        uint64_t due = source_due(r, s, now);
        if (due <= rs->made)
            continue;
        if (!indexed) {
            int rc = scn_run_index_rebuild(r);
            if (rc != GC_OK)
                return gc_error_set(err, rc, NULL, 0, 0, "%s", gc_strerror(rc));
            indexed = true;
        }
        const scn_area_cells *ac = scn_run_area_get(r, &so->area);
        if (ac == NULL)
            return gc_error_set(err, GC_ENOMEM, NULL, 0, 0, "%s",
                                gc_strerror(GC_ENOMEM));
        double radius = sc->groups[so->group].radius;
        while (rs->made < due) {
            bool placed = false;
            for (int t = 0; t < SPAWN_TRIES && ac->n > 0; t++) {
                gc_point p = scn_run_centre_of(
                    r, ac->cells[scn_run_rnd_below(r, ac->n)]);
                if (!scn_run_place_free(r, p, radius))
                    continue;
                int rc = scn_run_make_agent(r, so->group, p);
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
        scn_run_agent *a = &r->agents[i];
        scn_body b;
        rc = r->crowd.body(r->crowd.arg, a->h, &b);
        if (rc == GC_EGONE) {
            /* Removed from outside (gridcrowd-ctl remove): not the run's
             * to report as an error, nor an exit's leaver. */
            rc = GC_OK;
            if (a->arrived)
                r->arrived--;
            r->removed++;
            gone = true;
            continue;
        }
        if (rc != GC_OK)
            break;
        gc_cell c = scn_run_cell_of(r, b.pos);
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
            const scn_area_cells *ac = scn_run_area_get(r, &g->areas[a->step]);
            if (ac == NULL) {
                rc = GC_ENOMEM;
                break;
            }
            if (scn_run_area_has(ac, c) || b.arrived) {
                a->step++;
                scn_aim aim;
                rc = scn_run_aim_for(r, a, g, b.pos, &aim);
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
            scn_run_agent *a = &r->agents[j];
            if (!a->follows || present(r, a->target))
                continue;
            scn_body b;
            scn_aim aim;
            rc = r->crowd.body(r->crowd.arg, a->h, &b);
            if (rc == GC_OK)
                rc = scn_run_aim_for(r, a, r->goal[a->group], b.pos, &aim);
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
        const scn_run_source *rs = &r->src[s];
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
    out->removed = r->removed;
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
