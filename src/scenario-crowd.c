/*
 * scenario-crowd.c: the scenario's people and time: exits, groups (their
 * profile and goal), sources, events, the stop rule and the root object,
 * read with the helpers of scenario-json.c.
 *
 * - Names (groups, exits, sources, shape ids) are unique in their kind and
 *   resolved to indices here, so users of a gc_scenario never look a name
 *   up.
 * - Sections are read in dependency order (geometry, exits, the groups'
 *   names, groups, sources, events, stop), whatever their order in the
 *   file, so a name may be used before the section that defines it.
 */
#include "config.h"

#include <gridcrowd/mapio.h>
#include <gridcrowd/scenario.h>

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "scenario_int.h"

/* Ranges, inclusive but for lo when lo_open. */
static const scn_range R_AGENT_RADIUS = {0.01, 5, false, "m"};
static const scn_range R_SPEED = {0.01, 15, false, "m/s"};
static const scn_range R_SD = {0, 10, false, "m/s"};
static const scn_range R_TURN = {0, 100000, false, "deg/s"};
static const scn_range R_RATE = {0, 10000, true, "agents/s"};
static const scn_range R_TIME = {0, 1e7, false, "s"};
static const scn_range R_TIME_LIMIT = {0, 1e7, true, "s"};
static const scn_range R_WANDER = {0, 1e6, true, "m"};

#define MAX_COUNT 10000000          /* agents in a group at the start */
#define MAX_TOTAL 1000000000        /* agents a source makes */
#define MAX_SEED 9007199254740992LL /* 2^53: exact in every JSON reader */

#define DEFAULT_RADIUS 0.2
#define DEFAULT_SPEED 1.34

/* Register `name` as entry i of a list (`what` "exit", `list` "exits"); a
 * name used before is refused at the "name" key, naming its first user. */
static void
name_unique(scn_ctx *c, scn_names kind, const char *name, size_t i,
            const char *what, const char *list)
{
    int64_t j = scn_name_get(c, kind, name);
    if (j >= 0) {
        scn_push_key(c, "name");
        scn_fail(c, GC_EPARSE, false, "%s name '%s' is already used by %s[%lld]",
                 what, name, list, (long long)j);
    }
    scn_name_put(c, kind, name, (int64_t)i);
}

/* ---- exits --------------------------------------------------------------- */

static const char *const EXIT_KEYS[] = {"name", "area", NULL};

static void
exits_in(scn_ctx *c, json_t *v)
{
    gc_scenario *s = c->s;
    scn_expect_array(c, v, 0);
    s->nexits = json_array_size(v);
    s->exits = scn_alloc(c, s->nexits, sizeof *s->exits);
    for (size_t i = 0; i < s->nexits; i++) {
        json_t *o = json_array_get(v, i);
        scn_push_index(c, i);
        scn_expect_object(c, o);
        scn_check_keys(c, o, EXIT_KEYS);
        s->exits[i].name = scn_get_str(c, o, "name", true);
        name_unique(c, SCN_EXIT, s->exits[i].name, i, "exit", "exits");
        scn_area_member(c, o, "area", &s->exits[i].area);
        scn_pop(c);
    }
}

/* ---- goals --------------------------------------------------------------- */

static const char *const GOAL_KEYS[] = {"point",  "area",   "exits", "route",
                                        "wander", "follow", NULL};

static int
exit_index(scn_ctx *c, const json_t *v)
{
    const char *name = scn_str(c, v);
    int64_t i = scn_name_get(c, SCN_EXIT, name);
    if (i < 0)
        scn_fail(c, GC_EPARSE, false, "no exit named '%s'", name);
    return (int)i;
}

static int
group_index(scn_ctx *c, const json_t *v)
{
    const char *name = scn_str(c, v);
    int64_t i = scn_name_get(c, SCN_GROUP, name);
    if (i < 0)
        scn_fail(c, GC_EPARSE, false, "no group named '%s'", name);
    return (int)i;
}

/* A goal for group `self` (its index: a group cannot follow itself). */
static void
goal_in(scn_ctx *c, json_t *o, int self, gc_scenario_goal *g)
{
    gc_scenario *s = c->s;
    scn_expect_object(c, o);
    scn_check_keys(c, o, GOAL_KEYS);
    memset(g, 0, sizeof *g);
    size_t k = scn_one_of(c, o, GOAL_KEYS, "a goal");
    json_t *v = json_object_get(o, GOAL_KEYS[k]);
    scn_push_key(c, GOAL_KEYS[k]);
    switch (k) {
    case 0: /* point */
        g->kind = GC_GOAL_POINT;
        g->point = scn_point(c, v);
        if (g->point.x < 0 || g->point.y < 0 || g->point.x > s->width ||
            g->point.y > s->height)
            scn_fail(c, GC_ERANGE, false,
                     "(%g, %g) m is outside the world "
                     "(0 to %g, 0 to %g m)",
                     g->point.x, g->point.y, s->width, s->height);
        break;
    case 1: /* area */
        g->kind = GC_GOAL_AREA;
        g->nareas = 1;
        g->areas = scn_alloc(c, 1, sizeof *g->areas);
        scn_shape(c, v, true, -1, &g->areas[0]);
        break;
    case 2: /* exits */
        g->kind = GC_GOAL_EXITS;
        if (json_is_string(v) && strcmp(json_string_value(v), "all") == 0) {
            if (s->nexits == 0)
                scn_fail(c, GC_EPARSE, false,
                         "\"all\" exits, but the "
                         "scenario has none");
            g->nexits = s->nexits;
            g->exits = scn_alloc(c, g->nexits, sizeof *g->exits);
            for (size_t i = 0; i < g->nexits; i++)
                g->exits[i] = (int)i;
            break;
        }
        if (!json_is_array(v))
            scn_fail(c, GC_EPARSE, false,
                     "expected \"all\" or an array of "
                     "exit names, found %s",
                     scn_json_kind(v));
        scn_expect_array(c, v, 1);
        g->nexits = json_array_size(v);
        g->exits = scn_alloc(c, g->nexits, sizeof *g->exits);
        for (size_t i = 0; i < g->nexits; i++) {
            scn_push_index(c, i);
            g->exits[i] = exit_index(c, json_array_get(v, i));
            scn_pop(c);
        }
        break;
    case 3: /* route */
        g->kind = GC_GOAL_ROUTE;
        scn_expect_array(c, v, 1);
        g->nareas = json_array_size(v);
        g->areas = scn_alloc(c, g->nareas, sizeof *g->areas);
        for (size_t i = 0; i < g->nareas; i++) {
            scn_push_index(c, i);
            scn_shape(c, json_array_get(v, i), true, -1, &g->areas[i]);
            scn_pop(c);
        }
        break;
    case 4: /* wander */
        g->kind = GC_GOAL_WANDER;
        g->radius = scn_num(c, v, R_WANDER);
        break;
    default: /* follow */
        g->kind = GC_GOAL_FOLLOW;
        g->group = group_index(c, v);
        if (g->group == self)
            scn_fail(c, GC_EPARSE, false, "a group cannot follow itself");
        break;
    }
    scn_pop(c);
}

/* ---- groups -------------------------------------------------------------- */

static const char *const GROUP_KEYS[] = {
    "name", "count", "spawn", "radius", "speed", "turn_rate", "goal", NULL};
static const char *const SPEED_KEYS[] = {"mean", "sd", "min", "max", NULL};

static void
speed_in(scn_ctx *c, json_t *v, gc_speed_dist *sp)
{
    if (json_is_number(v)) {
        double x = scn_num(c, v, R_SPEED);
        *sp = (gc_speed_dist){x, 0, x, x};
        return;
    }
    if (!json_is_object(v))
        scn_fail(c, GC_EPARSE, false,
                 "expected a speed (m/s) or {\"mean\", "
                 "\"sd\", \"min\", \"max\"}, found %s",
                 scn_json_kind(v));
    scn_check_keys(c, v, SPEED_KEYS);
    sp->mean = scn_get_num(c, v, "mean", R_SPEED, 0, true);
    sp->sd = scn_get_num(c, v, "sd", R_SD, 0, false);
    sp->min = scn_get_num(c, v, "min", R_SPEED,
                          fmax(R_SPEED.lo, sp->mean - 3 * sp->sd), false);
    sp->max = scn_get_num(c, v, "max", R_SPEED,
                          fmin(R_SPEED.hi, sp->mean + 3 * sp->sd), false);
    if (sp->min > sp->mean) {
        scn_push_key(c, "min");
        scn_fail(c, GC_ERANGE, false, "%g m/s is above the mean, %g m/s",
                 sp->min, sp->mean);
    }
    if (sp->max < sp->mean) {
        scn_push_key(c, "max");
        scn_fail(c, GC_ERANGE, false, "%g m/s is below the mean, %g m/s",
                 sp->max, sp->mean);
    }
}

static void
groups_in(scn_ctx *c, json_t *v)
{
    gc_scenario *s = c->s;
    for (size_t i = 0; i < s->ngroups; i++) {
        gc_scenario_group *gr = &s->groups[i];
        json_t *o = json_array_get(v, i);
        scn_push_index(c, i);
        gr->count = scn_get_int(c, o, "count", 0, MAX_COUNT, "agents", 0);
        json_t *sp = json_object_get(o, "spawn");
        if (sp != NULL) {
            gr->has_spawn = true;
            scn_area_member(c, o, "spawn", &gr->spawn);
        } else if (gr->count > 0) {
            scn_missing(c, "spawn");
        }
        gr->radius =
            scn_get_num(c, o, "radius", R_AGENT_RADIUS, DEFAULT_RADIUS, false);
        json_t *speed = json_object_get(o, "speed");
        if (speed != NULL) {
            scn_push_key(c, "speed");
            speed_in(c, speed, &gr->speed);
            scn_pop(c);
        } else {
            gr->speed =
                (gc_speed_dist){DEFAULT_SPEED, 0, DEFAULT_SPEED, DEFAULT_SPEED};
        }
        gr->turn_rate = scn_get_num(c, o, "turn_rate", R_TURN, 0, false);
        json_t *goal = json_object_get(o, "goal");
        if (goal != NULL) {
            scn_push_key(c, "goal");
            goal_in(c, goal, (int)i, &gr->goal);
            scn_pop(c);
        }
        scn_pop(c);
    }
}

/* The groups' names, before anything that names a group is read. */
static void
group_names_in(scn_ctx *c, json_t *v)
{
    gc_scenario *s = c->s;
    scn_expect_array(c, v, 0);
    s->ngroups = json_array_size(v);
    s->groups = scn_alloc(c, s->ngroups, sizeof *s->groups);
    for (size_t i = 0; i < s->ngroups; i++) {
        json_t *o = json_array_get(v, i);
        scn_push_index(c, i);
        scn_expect_object(c, o);
        scn_check_keys(c, o, GROUP_KEYS);
        s->groups[i].name = scn_get_str(c, o, "name", true);
        name_unique(c, SCN_GROUP, s->groups[i].name, i, "group", "groups");
        scn_pop(c);
    }
}

/* ---- sources ------------------------------------------------------------- */

static const char *const SOURCE_KEYS[] = {
    "name", "group", "area", "rate", "start", "end", "total", "enabled", NULL};

static void
sources_in(scn_ctx *c, json_t *v)
{
    gc_scenario *s = c->s;
    scn_expect_array(c, v, 0);
    s->nsources = json_array_size(v);
    s->sources = scn_alloc(c, s->nsources, sizeof *s->sources);
    for (size_t i = 0; i < s->nsources; i++) {
        gc_scenario_source *src = &s->sources[i];
        json_t *o = json_array_get(v, i);
        scn_push_index(c, i);
        scn_expect_object(c, o);
        scn_check_keys(c, o, SOURCE_KEYS);
        src->name = scn_get_str(c, o, "name", false);
        if (src->name != NULL)
            name_unique(c, SCN_SOURCE, src->name, i, "source", "sources");
        json_t *g = json_object_get(o, "group");
        if (g == NULL)
            scn_missing(c, "group");
        scn_push_key(c, "group");
        src->group = group_index(c, g);
        scn_pop(c);
        scn_area_member(c, o, "area", &src->area);
        src->rate = scn_get_num(c, o, "rate", R_RATE, 0, true);
        src->start = scn_get_num(c, o, "start", R_TIME, 0, false);
        src->end = scn_get_num(c, o, "end", R_TIME, INFINITY, false);
        if (!(src->end > src->start)) {
            scn_push_key(c, "end");
            scn_fail(c, GC_ERANGE, false, "%g s is not after the start, %g s",
                     src->end, src->start);
        }
        src->total = scn_get_int(c, o, "total", 1, MAX_TOTAL, "agents", -1);
        src->enabled = scn_get_bool(c, o, "enabled", true);
        scn_pop(c);
    }
}

/* ---- events -------------------------------------------------------------- */

static const char *const EVENT_KEYS[] = {
    "time",     "paint",        "add",         "remove",
    "set_goal", "start_source", "stop_source", NULL};
static const char *const EVENT_ACTIONS[] = {
    "paint", "add", "remove", "set_goal", "start_source", "stop_source", NULL};
static const char *const SET_GOAL_KEYS[] = {"group", "goal", NULL};

static int
source_index(scn_ctx *c, const json_t *v)
{
    const char *name = scn_str(c, v);
    int64_t i = scn_name_get(c, SCN_SOURCE, name);
    if (i < 0)
        scn_fail(c, GC_EPARSE, false, "no source named '%s'", name);
    return (int)i;
}

static void
events_in(scn_ctx *c, json_t *v)
{
    gc_scenario *s = c->s;
    scn_expect_array(c, v, 0);
    s->nevents = json_array_size(v);
    s->events = scn_alloc(c, s->nevents, sizeof *s->events);
    for (size_t i = 0; i < s->nevents; i++) {
        gc_scenario_event *ev = &s->events[i];
        json_t *o = json_array_get(v, i);
        scn_push_index(c, i);
        scn_expect_object(c, o);
        scn_check_keys(c, o, EVENT_KEYS);
        ev->line = scn_line_here(c);
        ev->time = scn_get_num(c, o, "time", R_TIME, 0, true);
        size_t k = scn_one_of(c, o, EVENT_ACTIONS, "an event");
        json_t *a = json_object_get(o, EVENT_ACTIONS[k]);
        scn_push_key(c, EVENT_ACTIONS[k]);
        switch (k) {
        case 0: /* paint */
            ev->kind = GC_EVENT_PAINT;
            scn_shape(c, a, false, GC_CELL_OBSTACLE, &ev->shape);
            break;
        case 1: { /* add */
            ev->kind = GC_EVENT_ADD_SHAPE;
            scn_shape(c, a, false, GC_CELL_OBSTACLE, &ev->shape);
            const char *id = ev->shape.id;
            int64_t j = id != NULL ? scn_name_get(c, SCN_SHAPE, id) : -1;
            if (j >= 0) {
                bool geom = (size_t)j < s->nshapes;
                scn_push_key(c, "id");
                scn_fail(c, GC_EPARSE, false,
                         "shape id '%s' is already used by %s[%lld]", id,
                         geom ? "geometry.shapes" : "events",
                         (long long)(geom ? j : j - (int64_t)s->nshapes));
            }
            if (id != NULL)
                scn_name_put(c, SCN_SHAPE, id, (int64_t)(s->nshapes + i));
            break;
        }
        case 2: { /* remove */
            ev->kind = GC_EVENT_REMOVE_SHAPE;
            ev->target = scn_strdup(c, scn_str(c, a));
            if (scn_name_get(c, SCN_SHAPE, ev->target) < 0)
                scn_fail(c, GC_EPARSE, false,
                         "no shape with id '%s' in the geometry or in an "
                         "earlier add event",
                         ev->target);
            break;
        }
        case 3: { /* set_goal */
            ev->kind = GC_EVENT_SET_GOAL;
            scn_expect_object(c, a);
            scn_check_keys(c, a, SET_GOAL_KEYS);
            json_t *g = json_object_get(a, "group");
            if (g == NULL)
                scn_missing(c, "group");
            scn_push_key(c, "group");
            ev->group = group_index(c, g);
            scn_pop(c);
            json_t *goal = json_object_get(a, "goal");
            if (goal == NULL)
                scn_missing(c, "goal");
            scn_push_key(c, "goal");
            goal_in(c, goal, ev->group, &ev->goal);
            scn_pop(c);
            break;
        }
        default: /* start_source, stop_source */
            ev->kind = k == 4 ? GC_EVENT_START_SOURCE : GC_EVENT_STOP_SOURCE;
            ev->source = source_index(c, a);
            break;
        }
        scn_pop(c);
        scn_pop(c);
    }
}

/* ---- stop and the root --------------------------------------------------- */

static const char *const STOP_KEYS[] = {"when_done", "time_limit", NULL};

static void
stop_in(scn_ctx *c, json_t *v)
{
    gc_scenario_stop *st = &c->s->stop;
    if (json_is_string(v)) {
        const char *w = json_string_value(v);
        if (strcmp(w, "done") == 0)
            return;
        if (strcmp(w, "never") == 0) {
            st->when_done = false;
            return;
        }
        scn_fail(c, GC_EPARSE, false,
                 "unknown stop rule '%s' (\"done\", "
                 "\"never\" or {\"when_done\", \"time_limit\"})",
                 w);
    }
    if (!json_is_object(v))
        scn_fail(c, GC_EPARSE, false,
                 "expected \"done\", \"never\" or an "
                 "object, found %s",
                 scn_json_kind(v));
    scn_check_keys(c, v, STOP_KEYS);
    st->when_done = scn_get_bool(c, v, "when_done", true);
    st->time_limit =
        scn_get_num(c, v, "time_limit", R_TIME_LIMIT, INFINITY, false);
}

static const char *const ROOT_KEYS[] = {
    "version", "name",    "description", "seed", "geometry", "exits",
    "groups",  "sources", "events",      "stop", NULL};

void
scn_check_root(scn_ctx *c, json_t *root, const char *dir)
{
    gc_scenario *s = c->s;
    scn_expect_object(c, root);
    scn_check_keys(c, root, ROOT_KEYS);
    scn_get_int(c, root, "version", 1, 1, "", 1);
    s->name = scn_get_str(c, root, "name", false);
    json_t *d = json_object_get(root, "description");
    if (d != NULL && !json_is_string(d)) {
        scn_push_key(c, "description");
        scn_fail(c, GC_EPARSE, false, "expected a string, found %s",
                 scn_json_kind(d));
    }
    s->seed = (uint64_t)scn_get_int(c, root, "seed", 0, MAX_SEED, "", 1);
    s->stop = (gc_scenario_stop){true, INFINITY};

    json_t *g = json_object_get(root, "geometry");
    if (g == NULL)
        scn_missing(c, "geometry");
    scn_push_key(c, "geometry");
    scn_check_geometry(c, g, dir);
    scn_pop(c);

    struct {
        const char *key;
        void (*fn)(scn_ctx *, json_t *);
    } const sections[] = {{"exits", exits_in},   {"groups", group_names_in},
                          {"groups", groups_in}, {"sources", sources_in},
                          {"events", events_in}, {"stop", stop_in}};
    for (size_t i = 0; i < sizeof sections / sizeof sections[0]; i++) {
        json_t *v = json_object_get(root, sections[i].key);
        if (v == NULL)
            continue;
        scn_push_key(c, sections[i].key);
        sections[i].fn(c, v);
        scn_pop(c);
    }
}
