/*
 * scenario.c: gridcrowdd --scenario FILE.json.
 *
 * The library runs the scenario (gridcrowd/scenario.h, gc_scenario_run);
 * this file decides the daemon's policy around it: which flags a scenario
 * refuses (they would set what the file says per group, or replace its
 * geometry), which it lets override the file (each said in one line), the
 * simulation's configuration taken from the file, where the events' grid
 * edits go (the world's own edit queue, so that the host's applier checks,
 * counts and applies them as it does everyone else's), and the scenario's
 * part of the per-second line and of the summary.
 *
 * Everything here runs on the simulation thread.
 */
#include "config.h"

#include <gridcrowd/edit-client.h>
#include <gridcrowd/scenario.h>
#include <gridcrowd/util.h>
#include <gridcrowd/world.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "daemon.h"

/* Flags a scenario refuses, and why (the file sets what they set). */
static const struct {
    int id;
    const char *why;
} refused[] = {
    {O_MAP, "the scenario has its own geometry (its \"map\" key names a map)"},
    {O_CELL_SIZE, "the scenario's geometry gives the cell size"},
    {O_AGENTS, "the scenario's groups and sources make the agents"},
    {O_GOALS, "the scenario's groups give the goals"},
};

/*
 * A group's profile flag given with --scenario: the same value for every
 * group, said once.  --speed and --radius are world units, as without a
 * scenario; --turn-rate radians per second (the file: degrees); a
 * --wander-radius in cells becomes world units for every wander goal,
 * the groups' and the events'.
 */
static void
profile_overrides(const options *o, gc_scenario *sc)
{
    if (o->given[O_SPEED] != NULL) {
        double v = o->sim.motion.speed;
        for (size_t g = 0; g < sc->ngroups; g++)
            sc->groups[g].speed = (gc_speed_dist){v, 0, v, v};
        prog_msg("--speed %s overrides the scenario's speeds: every agent "
                 "walks at %g units/s", o->given[O_SPEED], v);
    }
    if (o->given[O_RADIUS] != NULL) {
        for (size_t g = 0; g < sc->ngroups; g++)
            sc->groups[g].radius = o->sim.radius;
        prog_msg("--radius %s overrides the scenario's body radii",
                 o->given[O_RADIUS]);
    }
    if (o->given[O_TURN] != NULL) {
        for (size_t g = 0; g < sc->ngroups; g++)
            sc->groups[g].turn_rate = o->sim.motion.turn_rate * 180.0 / M_PI;
        prog_msg("--turn-rate %s overrides the scenario's turn rates",
                 o->given[O_TURN]);
    }
    if (o->given[O_WANDER_RADIUS] != NULL) {
        double r = o->sim.wander_radius * sc->cell_size;
        for (size_t g = 0; g < sc->ngroups; g++)
            if (sc->groups[g].goal.kind == GC_GOAL_WANDER)
                sc->groups[g].goal.radius = r;
        for (size_t e = 0; e < sc->nevents; e++)
            if (sc->events[e].goal.kind == GC_GOAL_WANDER)
                sc->events[e].goal.radius = r;
        prog_msg("--wander-radius %s overrides the scenario's wander radii: "
                 "%g units",
                 o->given[O_WANDER_RADIUS], r);
    }
}

int
scenario_flags_check(const options *o)
{
    if (o->scenario == NULL)
        return 0;
    for (size_t i = 0; i < sizeof refused / sizeof *refused; i++) {
        int id = refused[i].id;
        if (o->given[id] == NULL)
            continue;
        prog_msg("--%s cannot be used with --scenario: %s", option_name(id),
                 refused[i].why);
        return EXIT_USAGE;
    }
    return 0;
}

/* Agents alive at once, at most: the groups, and what each source can
 * make (its total, or its rate over its time; 10,000 for one that never
 * ends and has no total). */
static uint64_t
capacity(const gc_scenario *sc)
{
    double n = 0;
    for (size_t g = 0; g < sc->ngroups; g++)
        n += (double)sc->groups[g].count;
    for (size_t s = 0; s < sc->nsources; s++) {
        const gc_scenario_source *so = &sc->sources[s];
        if (so->total >= 0)
            n += (double)so->total;
        else if (isfinite(so->end))
            n += ceil(so->rate * (so->end - so->start)) + 1;
        else
            n += 10000;
    }
    return n < 1 ? 1 : n > 1e12 ? (uint64_t)1e12 : (uint64_t)n;
}

int
scenario_load(options *o, scenario_mode *m, gc_grid **map)
{
    gc_error err;
    if (!regular_file(o->scenario))
        return EXIT_INPUT;
    int rc = gc_scenario_load(&m->sc, o->scenario, &err);
    if (rc != GC_OK) {
        prog_msg("%s", err.msg);
        return rc == GC_ENOMEM ? EXIT_RUNTIME : EXIT_INPUT;
    }
    const gc_scenario *sc = m->sc;
    rc = gc_scenario_grid(sc, map, &err);
    if (rc != GC_OK) {
        prog_msg("%s: %s", o->scenario, gc_strerror(rc));
        return EXIT_RUNTIME;
    }
    if (o->uniform)
        gc_grid_set_uniform(*map);
    for (int t = 0; t < GC_CELL_NTYPES; t++)
        if (o->cost_set[t])
            gc_grid_set_cost(*map, t, o->costs[t]);

    /* Flags that override the file, each said once. */
    profile_overrides(o, m->sc);
    if (o->given[O_SEED] != NULL) {
        if (o->sim.seed != sc->seed)
            prog_msg("--seed %s overrides the scenario's seed %llu",
                     o->given[O_SEED], (unsigned long long)sc->seed);
    } else {
        o->sim.seed = sc->seed;
    }
    if (o->given[O_TICKS] != NULL && isfinite(sc->stop.time_limit))
        prog_msg("--ticks %s overrides the scenario's time limit %g s",
                 o->given[O_TICKS], sc->stop.time_limit);

    uint64_t cap = capacity(sc);
    uint64_t most = GC_WORLD_MAX_AGENTS < GC_SIM_MAX_AGENTS
                        ? GC_WORLD_MAX_AGENTS
                        : GC_SIM_MAX_AGENTS;
    if (cap > most)
        cap = most;
    o->sim.agents = 0;
    if (o->given[O_MAX_AGENTS] != NULL) {
        if (o->sim.max_agents != cap)
            prog_msg("--max-agents %s overrides the scenario's %llu "
                     "(its groups and sources)",
                     o->given[O_MAX_AGENTS], (unsigned long long)cap);
    } else {
        o->sim.max_agents = (uint32_t)cap;
    }
    o->sim.goals = GC_GOALS_WANDER; /* no agent of its own: the runner's */
    /* The largest body plans the default clearance.  Turn rates and
     * wander radii are each agent's own (its group's, given by the
     * runner at spawn). */
    double radius = 0;
    for (size_t g = 0; g < sc->ngroups; g++)
        radius = fmax(radius, sc->groups[g].radius);
    o->sim.radius = (float)radius;
    /* Every agent plans in the tick it needs to: a per-worker budget would
     * make who plans when depend on --threads, and a scenario's run must
     * not (batch runs are then the same with any thread count). */
    if (o->given[O_BUDGET] == NULL)
        o->sim.plan_budget = 1000000;
    return 0;
}

/* The events' edits: onto the world's own queue, as one batch, drained by
 * the host right after (gridcrowdd.c's loop calls before_tick first). */
static int
push_edits(void *arg, gc_edit *e, size_t n)
{
    gc_world *w = arg;
    for (size_t i = 0; i < n; i++) {
        const char *why;
        if (gc_edit_check(&e[i], gc_world_width(w), gc_world_height(w), &why) !=
            GC_OK)
            return GC_EINVAL;
    }
    gc_edit_sent sent;
    /* No wait: nobody drains while this thread pushes. */
    return gc_edit_send(gc_world_queue(w), e, n, 0, 0, &sent);
}

int
scenario_start(const options *o, scenario_mode *m, gc_sim *sim, gc_world *w)
{
    gc_error err;
    m->seed = o->sim.seed;
    m->sim = sim;
    gc_scenario_run_config cfg = {o->sim.hz, o->sim.seed, push_edits, w};
    int rc = gc_scenario_run_new(&m->run, m->sc, sim, &cfg, &err);
    if (rc == GC_OK)
        rc = gc_scenario_run_start(m->run, &err);
    if (rc != GC_OK) {
        prog_msg("%s", err.msg);
        return rc == GC_ENOMEM ? EXIT_RUNTIME : EXIT_INPUT;
    }
    return 0;
}

const char *
scenario_second_text(const scenario_mode *m)
{
    static char buf[1024];
    if (m == NULL || m->run == NULL)
        return NULL;
    gc_scenario_counts c;
    gc_scenario_run_counts(m->run, &c);
    int n = snprintf(buf, sizeof buf,
                     "  scenario t %.1f s: %llu made %llu present %llu left",
                     c.time, (unsigned long long)c.spawned,
                     (unsigned long long)c.present, (unsigned long long)c.left);
    /* By exit, when there are exits (no "()" for none). */
    for (size_t e = 0; e < c.nexits && n > 0 && (size_t)n < sizeof buf; e++)
        n += snprintf(buf + n, sizeof buf - (size_t)n, "%s%s %llu",
                      e ? ", " : " (", m->sc->exits[e].name,
                      (unsigned long long)c.left_by_exit[e]);
    if (n > 0 && (size_t)n < sizeof buf)
        n += snprintf(buf + n, sizeof buf - (size_t)n, "%s %llu blocked",
                      c.nexits > 0 ? ")" : "", (unsigned long long)c.blocked);
    if (c.removed > 0 && n > 0 && (size_t)n < sizeof buf)
        snprintf(buf + n, sizeof buf - (size_t)n, " %llu removed",
                 (unsigned long long)c.removed);
    return buf;
}

void
scenario_summary(FILE *f, bool json, const scenario_mode *m)
{
    gc_scenario_counts c;
    gc_scenario_run_counts(m->run, &c);
    const gc_scenario *sc = m->sc;
    if (json) {
        fputs("{\"file\": ", f);
        gc_json_escape(f, sc->path);
        fputs(", \"name\": ", f);
        if (sc->name != NULL)
            gc_json_escape(f, sc->name);
        else
            fputs("null", f);
        fprintf(
            f,
            ", \"seed\": %llu, \"time_s\": %.6f, \"spawned\": %llu, "
            "\"from_sources\": %llu, \"present\": %llu, \"arrived\": "
            "%llu, \"left\": %llu, \"removed\": %llu, \"blocked\": %llu, "
            "\"events_fired\": %llu, \"cells_edited\": %llu, "
            "\"sim_agents\": %zu, \"evacuation_time_s\": ",
            (unsigned long long)m->seed, c.time, (unsigned long long)c.spawned,
            (unsigned long long)c.from_sources, (unsigned long long)c.present,
            (unsigned long long)c.arrived, (unsigned long long)c.left,
            (unsigned long long)c.removed, (unsigned long long)c.blocked,
            (unsigned long long)c.events_fired,
            (unsigned long long)c.cells_edited, gc_sim_live_count(m->sim));
        if (c.evacuation_time >= 0)
            fprintf(f, "%.6f", c.evacuation_time);
        else
            fputs("null", f);
        fputs(", \"exits\": {", f);
        for (size_t e = 0; e < c.nexits; e++) {
            fputs(e ? ", " : "", f);
            gc_json_escape(f, sc->exits[e].name);
            fprintf(f, ": %llu", (unsigned long long)c.left_by_exit[e]);
        }
        fputs("}, \"exits_last_s\": {", f);
        for (size_t e = 0; e < c.nexits; e++) {
            fputs(e ? ", " : "", f);
            gc_json_escape(f, sc->exits[e].name);
            if (c.last_by_exit[e] >= 0)
                fprintf(f, ": %.6f", c.last_by_exit[e]);
            else
                fputs(": null", f);
        }
        fputs("}, \"speeds\": {", f);
        for (size_t g = 0; g < sc->ngroups; g++) {
            uint64_t n;
            double lo, hi;
            gc_scenario_run_speeds(m->run, g, &n, &lo, &hi);
            fputs(g ? ", " : "", f);
            gc_json_escape(f, sc->groups[g].name);
            fprintf(f, ": {\"n\": %llu, \"min\": %.6f, \"max\": %.6f}",
                    (unsigned long long)n, lo, hi);
        }
        fputs("}}", f);
        return;
    }
    fprintf(f,
            "%s: scenario %s: %.1f s simulated, %llu agent%s made, %llu "
            "left",
            prog_name(), sc->name ? sc->name : sc->path, c.time,
            (unsigned long long)c.spawned, prog_s(c.spawned),
            (unsigned long long)c.left);
    for (size_t e = 0; e < c.nexits; e++)
        fprintf(f, "%s%s %llu", e ? ", " : " (", sc->exits[e].name,
                (unsigned long long)c.left_by_exit[e]);
    fputs(c.nexits > 0 ? ")" : "", f);
    if (c.removed > 0)
        fprintf(f, ", %llu removed by an editor",
                (unsigned long long)c.removed);
    fprintf(f, ", %llu present, %llu arrived; ", (unsigned long long)c.present,
            (unsigned long long)c.arrived);
    if (c.evacuation_time >= 0)
        fprintf(f, "evacuation time %.2f s", c.evacuation_time);
    else
        fputs("nobody left", f);
    fprintf(f, "; %llu spawns waited, %llu events\n",
            (unsigned long long)c.blocked, (unsigned long long)c.events_fired);
}

void
scenario_free(scenario_mode *m)
{
    gc_scenario_run_free(m->run);
    gc_scenario_free(m->sc);
    m->run = NULL;
    m->sc = NULL;
}
