/*
 * scenario-sim.c: the scenario runner's crowd (scn_crowd) on a gc_sim.
 *
 * Four calls, each a thin mapping onto the simulation's runtime agent API
 * (gridcrowd/sim.h: gc_sim_spawn, gc_sim_remove, the gc_sim_set_goal_*
 * calls, gc_sim_resolve), so that everything the runner decides stays in
 * scenario-run.c and is tested there on a model crowd.  Each agent gets
 * its group's turn rate (at spawn) and wander radius (with a wander aim,
 * so that an event giving the group a new wander goal brings its radius).
 *
 * A refused place (the sim's own check of walls and bodies, which may be
 * stricter than the runner's by its wall tolerance) comes back to the
 * runner as GC_EBLOCKED, and the runner tries another.
 */
#include "config.h"

#include <gridcrowd/scenario.h>
#include <gridcrowd/sim.h>

#include "scenario_int.h"
#include "sim_int.h" /* gc_sim_speed_limit */

#include <string.h>

static int
aim_apply(gc_sim *s, gc_agent_handle h, const scn_aim *aim)
{
    switch (aim->kind) {
    case SCN_AIM_POINT:
        return gc_sim_set_goal_point(s, h, (float)aim->point.x,
                                     (float)aim->point.y, NULL);
    case SCN_AIM_WANDER: {
        /* The group's radius, the agent's own: groups differ. */
        int rc = gc_sim_set_wander_radius(s, h, (float)aim->radius, NULL);
        return rc != GC_OK ? rc : gc_sim_set_goal_wander(s, h, NULL);
    }
    case SCN_AIM_FOLLOW:
        /* Stop a body's width short of the leader. */
        return gc_sim_set_goal_follow(s, h, (gc_agent_handle)aim->target, 0,
                                      NULL);
    case SCN_AIM_STOP:
        return gc_sim_set_goal_stop(s, h, NULL);
    }
    return GC_EINVAL;
}

static int
sim_spawn(void *arg, const scn_spawn *sp, const scn_aim *aim, scn_agent *out)
{
    gc_sim *s = arg;
    gc_spawn_spec spec;
    memset(&spec, 0, sizeof spec);
    spec.x = (float)sp->x;
    spec.y = (float)sp->y;
    spec.has_goal = aim->kind == SCN_AIM_POINT;
    spec.goal_x = (float)aim->point.x;
    spec.goal_y = (float)aim->point.y;
    spec.radius = (float)sp->radius;
    spec.speed = (float)sp->speed;
    spec.group = (uint32_t)sp->group;
    spec.turn_rate = (float)(sp->turn_rate * 180.0 / 3.14159265358979323846);
    spec.wander_radius = -1.0f; /* set with a wander aim (aim_apply) */
    gc_agent_handle h;
    int rc = gc_sim_spawn(s, &spec, &h, NULL);
    if (rc == GC_EOVERLAP || rc == GC_EBLOCKED || rc == GC_EOUTSIDE)
        return GC_EBLOCKED;
    if (rc != GC_OK)
        return rc;
    if (aim->kind != SCN_AIM_POINT) {
        rc = aim_apply(s, h, aim);
        if (rc != GC_OK) {
            gc_sim_remove(s, h, NULL);
            return rc;
        }
    }
    *out = h;
    return GC_OK;
}

static int
sim_remove(void *arg, scn_agent a)
{
    return gc_sim_remove(arg, (gc_agent_handle)a, NULL);
}

static int
sim_aim(void *arg, scn_agent a, const scn_aim *aim)
{
    int rc = aim_apply(arg, (gc_agent_handle)a, aim);
    /* A point goal on a cell a grid event closed: the agent waits where it
     * is (the runner aims it again when its group's goal changes). */
    if (rc == GC_EBLOCKED || rc == GC_EOUTSIDE)
        rc = gc_sim_set_goal_stop(arg, (gc_agent_handle)a, NULL);
    return rc;
}

static int
sim_body(void *arg, scn_agent a, scn_body *out)
{
    gc_sim *s = arg;
    size_t i;
    int rc = gc_sim_resolve(s, (gc_agent_handle)a, &i);
    if (rc != GC_OK)
        return rc;
    const gc_agent *ag = gc_sim_agent(s, i);
    out->pos = (gc_point){ag->pos.x, ag->pos.y};
    out->arrived = ag->state == GC_AGENT_ARRIVED;
    return GC_OK;
}

/*
 * Every group's fastest speed must be one the simulation takes at this
 * tick rate (GC_SIM_MAX_SPEED_CELLS_PER_TICK, as gc_sim_spawn checks
 * it): checked before anyone is made, so that the message says which
 * group and what to change, and a source's first agent cannot stop a
 * run that has started.
 */
static int
check_speeds(const gc_scenario *sc, const gc_sim *sim, double hz, gc_error *err)
{
    float max = gc_sim_speed_limit(sim->grid->cell_size, sim->dt);
    for (size_t g = 0; g < sc->ngroups; g++) {
        const gc_scenario_group *gr = &sc->groups[g];
        if ((float)gr->speed.max <= max)
            continue;
        return gc_error_set(
            err, GC_ERANGE, sc->path, gr->has_spawn ? gr->spawn.line : 0, 0,
            "group '%s': speeds up to %g m/s are more than %g cells a tick "
            "at %g Hz (at most %g m/s); raise --hz or lower the speeds",
            gr->name, gr->speed.max, (double)GC_SIM_MAX_SPEED_CELLS_PER_TICK,
            hz, (double)max);
    }
    return GC_OK;
}

int
gc_scenario_run_new(gc_scenario_run **out, const gc_scenario *sc, gc_sim *sim,
                    const gc_scenario_run_config *cfg, gc_error *err)
{
    if (sim == NULL)
        return gc_error_set(err, GC_EINVAL, NULL, 0, 0,
                            "scenario run: no simulation");
    scn_crowd c = {sim, sim_spawn, sim_remove, sim_aim, sim_body};
    int rc = scn_run_new_crowd(out, sc, &c, cfg, err);
    if (rc == GC_OK && (rc = check_speeds(sc, sim, cfg->hz, err)) != GC_OK) {
        gc_scenario_run_free(*out);
        *out = NULL;
    }
    return rc;
}
