/*
 * sim-agents.c: agents driven from outside: handles, spawn and remove,
 * goals (point, wander, stop, follow), speed and radius, and the follow
 * update before each tick.
 *
 * Rules kept:
 *   - Everything here runs on the loop's thread between ticks, with the
 *     workers parked on the gate (sim.c): no field needs a lock, and what
 *     a call does depends only on the sim's state, never on the number of
 *     threads.
 *   - A handle is id plus salt (sim.h); the id's slot holds the agent
 *     (sim-order.c).  An id's salt (kept in its slot's gc_sim_slot) is
 *     bumped when its agent is removed, so old handles fail with GC_EGONE
 *     even after the id is reused; the salt skips 0, so no handle is
 *     GC_AGENT_NONE.  Spawns take the lowest free id (free_lo bounds the
 *     scan), so the same calls give the same handles in every run.
 *   - Per-agent arrays are allocated for the capacity in gc_sim_new: a
 *     spawn never reallocates.  A removed agent may still be on its
 *     worker's plan queue; it stays there (QUEUED stays set, so the slot
 *     is never queued twice and the rings cannot overflow) and the
 *     planner skips any slot that is not waiting for a path when popped.
 *   - Refusals change nothing.  Every check is done before the first
 *     write.
 */
#include "config.h"

#include "grid_int.h"
#include "sim_int.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ---- handles --------------------------------------------------------- */

static gc_agent_handle
make_handle(uint32_t index, uint32_t salt)
{
    return (salt << GC_AGENT_INDEX_BITS) | index;
}

/* The handle of the agent in slot i (alive). */
static gc_agent_handle
handle_of_slot(const gc_sim *s, uint32_t i)
{
    return make_handle(gc_sim_id_of(s, i), s->slot[i].salt);
}

gc_agent_handle
gc_sim_handle(const gc_sim *s, size_t index)
{
    if (index >= s->n || !gc_sim_alive(s, gc_sim_slot_of(s, index)))
        return GC_AGENT_NONE;
    return handle_of_slot(s, gc_sim_slot_of(s, index));
}

int
gc_sim_slot_resolve(const gc_sim *s, gc_agent_handle h, uint32_t *slot)
{
    uint32_t id = gc_agent_handle_index(h);
    if (h == GC_AGENT_NONE || id >= s->cap)
        return GC_EINVAL;
    uint32_t i = gc_sim_slot_of(s, id);
    if (!gc_sim_alive(s, i) || s->slot[i].salt != gc_agent_handle_salt(h))
        return GC_EGONE;
    if (slot != NULL)
        *slot = i;
    return GC_OK;
}

int
gc_sim_resolve(const gc_sim *s, gc_agent_handle h, size_t *index)
{
    int rc = gc_sim_slot_resolve(s, h, NULL);
    if (rc == GC_OK && index != NULL)
        *index = gc_agent_handle_index(h);
    return rc;
}

uint32_t
gc_sim_agent_group(const gc_sim *s, size_t index)
{
    return index < s->n && gc_sim_alive(s, gc_sim_slot_of(s, index))
               ? s->slot[gc_sim_slot_of(s, index)].group
               : 0;
}

/* Resolve h for a call to its slot, with a message on failure. */
static int
agent_of(const gc_sim *s, gc_agent_handle h, uint32_t *out, gc_error *err)
{
    uint32_t i = 0;
    int rc = gc_sim_slot_resolve(s, h, &i);
    if (rc == GC_EINVAL)
        return gc_error_set(err, rc, NULL, 0, 0,
                            "agent handle %#x names no agent (capacity %u)",
                            (unsigned)h, s->cap);
    if (rc == GC_EGONE)
        return gc_error_set(err, rc, NULL, 0, 0,
                            "agent %#x (id %u) was removed", (unsigned)h,
                            gc_agent_handle_index(h));
    *out = i;
    return GC_OK;
}

/* ---- checks ------------------------------------------------------------ */

static int
check_radius(const gc_sim *s, float r, gc_error *err)
{
    float max = GC_SIM_MAX_RADIUS_CELLS * s->grid->cell_size;
    if (!isfinite(r) || r < 0.0f || r > max)
        return gc_error_set(err, GC_ERANGE, NULL, 0, 0,
                            "radius %g is not from 0 to %g (%g cells)",
                            (double)r, (double)max,
                            (double)GC_SIM_MAX_RADIUS_CELLS);
    return GC_OK;
}

static int
check_speed(const gc_sim *s, float v, gc_error *err)
{
    float max = gc_sim_speed_limit(s->grid->cell_size, s->dt);
    if (!isfinite(v) || v <= 0.0f || v > max)
        return gc_error_set(err, GC_ERANGE, NULL, 0, 0,
                            "speed %g is not above 0 and at most %g "
                            "(%g cells a tick)",
                            (double)v, (double)max,
                            (double)GC_SIM_MAX_SPEED_CELLS_PER_TICK);
    return GC_OK;
}

/* Whether a body of radius r at p reaches more than GC_SIM_WALL_TOL cells
 * into an impassable cell (the rule the crowd's clamp keeps). */
static bool
body_in_wall(const gc_grid *g, gc_vec2 p, float r)
{
    float cs = g->cell_size, tol = GC_SIM_WALL_TOL * cs;
    if (r <= tol)
        return false;
    int32_t x0 = (int32_t)floorf((p.x - r) / cs);
    int32_t x1 = (int32_t)floorf((p.x + r) / cs);
    int32_t y0 = (int32_t)floorf((p.y - r) / cs);
    int32_t y1 = (int32_t)floorf((p.y + r) / cs);
    for (int32_t y = y0; y <= y1; y++)
        for (int32_t x = x0; x <= x1; x++) {
            if (gc_grid_passable(g, x, y))
                continue;
            float lx = (float)x * cs, ly = (float)y * cs;
            float qx = fminf(fmaxf(p.x, lx), lx + cs);
            float qy = fminf(fmaxf(p.y, ly), ly + cs);
            float dx = p.x - qx, dy = p.y - qy;
            if (sqrtf(dx * dx + dy * dy) < r - tol)
                return true;
        }
    return false;
}

/* The first live body (radius > 0) overlapping a body of radius r at p
 * (slot `self` excluded), or UINT32_MAX. */
static uint32_t
body_overlap(const gc_sim *s, gc_vec2 p, float r, uint32_t self)
{
    if (r <= 0.0f)
        return UINT32_MAX;
    for (uint32_t j = 0; j < s->n; j++) {
        if (j == self || !gc_sim_alive(s, j) || s->agents[j].radius <= 0.0f)
            continue;
        float sum = r + s->agents[j].radius;
        float dx = s->agents[j].pos.x - p.x, dy = s->agents[j].pos.y - p.y;
        if (dx * dx + dy * dy < sum * sum)
            return j;
    }
    return UINT32_MAX;
}

/* ---- goals ------------------------------------------------------------- */

/* Drop a follow goal (keeps the follower count right). */
static void
unfollow(gc_sim *s, uint32_t i)
{
    if (s->slot[i].goal_kind == GC_SIM_GOAL_FOLLOW)
        s->followers--;
    s->slot[i].goal_kind = GC_SIM_GOAL_NONE;
    s->slot[i].target = GC_AGENT_NONE;
}

/* Agent i's goal cell: the one its plans aim at (slot) and shows. */
static void
set_goal_cell(gc_sim *s, uint32_t i, gc_cell c)
{
    s->agents[i].goal = c;
    s->slot[i].goal = c;
}

/* Agent i needs a path to its goal: it waits, and goes on its queue. */
static void
want_path(gc_sim *s, uint32_t i)
{
    gc_agent *a = &s->agents[i];
    gc_agent_clear_path(a);
    s->flags[i] &= (uint8_t)~GC_SIM_F_REUSE;
    a->state = GC_AGENT_WAITING;
    s->flags[i] &= (uint8_t)~GC_SIM_F_PARTIAL;
    gc_sim_enqueue(s, i, false);
}

static void
stop_agent(gc_sim *s, uint32_t i, uint8_t state)
{
    gc_agent *a = &s->agents[i];
    gc_agent_clear_path(a);
    s->flags[i] &= (uint8_t)~GC_SIM_F_REUSE;
    a->state = state;
    s->flags[i] &= (uint8_t)~GC_SIM_F_PARTIAL;
    if (s->body != NULL)
        s->body[i].vx = s->body[i].vy = 0.0f;
}

int
gc_sim_set_goal_point(gc_sim *s, gc_agent_handle h, float x, float y,
                      gc_error *err)
{
    uint32_t i = 0;
    gc_cell c;
    int rc = agent_of(s, h, &i, err);
    if (rc == GC_OK)
        rc = gc_grid_check_point(s->grid, "goal", x, y, &c, err);
    if (rc != GC_OK)
        return rc;
    unfollow(s, i);
    s->slot[i].goal_kind = GC_SIM_GOAL_POINT;
    set_goal_cell(s, i, c);
    want_path(s, i);
    return GC_OK;
}

int
gc_sim_set_goal_wander(gc_sim *s, gc_agent_handle h, gc_error *err)
{
    uint32_t i = 0;
    int rc = agent_of(s, h, &i, err);
    if (rc != GC_OK)
        return rc;
    unfollow(s, i);
    s->slot[i].goal_kind = GC_SIM_GOAL_WANDER;
    gc_cell here;
    gc_sim_plan_cell(s, s->agents[i].pos, &here);
    s->agents[i].goal = gc_sim_random_goal(s, i, here);
    want_path(s, i);
    return GC_OK;
}

int
gc_sim_set_goal_stop(gc_sim *s, gc_agent_handle h, gc_error *err)
{
    uint32_t i = 0;
    int rc = agent_of(s, h, &i, err);
    if (rc != GC_OK)
        return rc;
    unfollow(s, i);
    stop_agent(s, i, GC_AGENT_IDLE);
    return GC_OK;
}

/* The cell a follower heads for: the planning cell under its target. */
static gc_cell
target_cell(const gc_sim *s, uint32_t t)
{
    gc_cell c;
    if (!gc_sim_plan_cell(s, s->agents[t].pos, &c))
        c = gc_grid_world_to_cell(s->grid, s->agents[t].pos);
    return c;
}

static int32_t
cheb(gc_cell a, gc_cell b)
{
    int32_t dx = abs(a.x - b.x), dy = abs(a.y - b.y);
    return dx > dy ? dx : dy;
}

/* A follower whose target moved, but not out of the neighbourhood of its
 * path's end, plans again after this long all the same (seconds). */
#define FOLLOW_REFRESH_S 1.0

/*
 * One follower, before a tick: stop near the target; else head for the
 * target's cell when the agent is not walking there already, or when the
 * target has left the neighbourhood of the cell its path ends in (more
 * than max(2, stop distance) cells from it), so a target moving a little
 * costs no search; or, when the target's cell changed at all, once
 * FOLLOW_REFRESH_S passed since the last plan (the end of a path planned
 * for where the target was drifts off otherwise).  `force`: plan now
 * whatever the state.
 */
static void
follow_one(gc_sim *s, uint32_t i, bool force)
{
    gc_sim_slot *sl = &s->slot[i];
    gc_agent *a = &s->agents[i];
    uint32_t t;
    if (gc_sim_slot_resolve(s, sl->target, &t) != GC_OK) {
        unfollow(s, i);
        stop_agent(s, i, GC_AGENT_IDLE);
        return;
    }
    const gc_agent *ta = &s->agents[t];
    float cs = s->grid->cell_size;
    float dx = ta->pos.x - a->pos.x, dy = ta->pos.y - a->pos.y;
    float d = sqrtf(dx * dx + dy * dy);
    float near = sl->stop_dist > s->cfg.motion.arrive_radius
                     ? sl->stop_dist
                     : s->cfg.motion.arrive_radius;
    if (d <= near) {
        if (a->state != GC_AGENT_ARRIVED)
            stop_agent(s, i, GC_AGENT_ARRIVED);
        set_goal_cell(s, i, target_cell(s, (uint32_t)t));
        return;
    }
    gc_cell tc = target_cell(s, (uint32_t)t);
    int32_t slack = (int32_t)ceilf(sl->stop_dist / cs);
    if (slack < 2)
        slack = 2;
    bool replan = force;
    switch (a->state) {
    case GC_AGENT_MOVING:
    case GC_AGENT_WAITING: {
        uint64_t refresh = (uint64_t)ceil(FOLLOW_REFRESH_S * s->cfg.hz);
        int32_t moved = cheb(tc, sl->goal);
        replan = replan || moved > slack ||
                 (moved > 0 && a->state == GC_AGENT_MOVING &&
                  s->ticks - sl->follow_tick >= refresh);
        break;
    }
    case GC_AGENT_ARRIVED:
    case GC_AGENT_IDLE: {
        /* At the end of its path, the target out of reach: go on, unless
         * it stands in the target's own cell already. */
        gc_cell own;
        gc_sim_plan_cell(s, a->pos, &own);
        replan = replan || cheb(tc, own) > 0;
        break;
    }
    default: /* unreachable or stuck: only a new target cell helps */
        replan = replan || cheb(tc, sl->goal) > 0;
        break;
    }
    if (!replan)
        return;
    sl->follow_tick = s->ticks;
    set_goal_cell(s, i, tc);
    if (!force && a->state == GC_AGENT_MOVING && s->cfg.follow_reuse &&
        !(s->flags[i] & GC_SIM_F_PARTIAL) && a->wp_next < a->wp_len) {
        /* Keep the waypoints: the plan may join onto them (sim-plan.c).
         * It waits, as for any plan, so the path held is the one planned
         * against; a grid change before the plan drops it. */
        a->state = GC_AGENT_WAITING;
        s->flags[i] |= GC_SIM_F_REUSE;
        gc_sim_enqueue(s, i, false);
        return;
    }
    want_path(s, i);
}

int
gc_sim_set_goal_follow(gc_sim *s, gc_agent_handle h, gc_agent_handle target,
                       float stop_distance, gc_error *err)
{
    uint32_t i = 0, t = 0;
    int rc = agent_of(s, h, &i, err);
    if (rc == GC_OK)
        rc = agent_of(s, target, &t, err);
    if (rc != GC_OK)
        return rc;
    if (i == t)
        return gc_error_set(err, GC_EINVAL, NULL, 0, 0,
                            "agent %#x cannot follow itself", (unsigned)h);
    if (!isfinite(stop_distance) || stop_distance < 0.0f)
        return gc_error_set(err, GC_ERANGE, NULL, 0, 0,
                            "stop distance %g must be >= 0",
                            (double)stop_distance);
    if (s->slot[i].goal_kind != GC_SIM_GOAL_FOLLOW)
        s->followers++;
    s->slot[i].goal_kind = GC_SIM_GOAL_FOLLOW;
    s->slot[i].target = target;
    s->slot[i].stop_dist = stop_distance;
    follow_one(s, i, true);
    return GC_OK;
}

void
gc_sim_follow_update(gc_sim *s)
{
    for (uint32_t i = 0; i < s->n; i++)
        if (gc_sim_alive(s, i) && s->slot[i].goal_kind == GC_SIM_GOAL_FOLLOW)
            follow_one(s, i, false);
}

/* ---- speed and radius -------------------------------------------------- */

int
gc_sim_set_speed(gc_sim *s, gc_agent_handle h, float speed, gc_error *err)
{
    uint32_t i = 0;
    int rc = agent_of(s, h, &i, err);
    if (rc == GC_OK)
        rc = check_speed(s, speed, err);
    if (rc != GC_OK)
        return rc;
    s->agents[i].speed = speed;
    return GC_OK;
}

int
gc_sim_set_radius(gc_sim *s, gc_agent_handle h, float radius, gc_error *err)
{
    uint32_t i = 0;
    int rc = agent_of(s, h, &i, err);
    if (rc == GC_OK)
        rc = check_radius(s, radius, err);
    if (rc != GC_OK)
        return rc;
    gc_agent *a = &s->agents[i];
    if (a->radius == radius)
        return GC_OK;
    a->radius = radius;
    if (s->body != NULL && gc_sim_body_radius(s, i) > s->rmax)
        s->rmax = gc_sim_body_radius(s, i);
    /* Its path was planned for the old body: plan again. */
    if (a->state == GC_AGENT_MOVING || a->state == GC_AGENT_WAITING ||
        a->state == GC_AGENT_UNREACHABLE || a->state == GC_AGENT_STUCK)
        want_path(s, i);
    return GC_OK;
}

/* ---- turn rate and wander radius ---------------------------------------- */

/* Degrees per second (< 0: the default) to the slot's radians per second. */
static int
resolve_turn(const gc_sim *s, float deg, float *out, gc_error *err)
{
    if (!(deg <= GC_SIM_MAX_TURN_RATE) || !isfinite(deg))
        return gc_error_set(err, GC_ERANGE, NULL, 0, 0,
                            "turn rate %g deg/s is out of range (at most %g)",
                            (double)deg, (double)GC_SIM_MAX_TURN_RATE);
    *out = deg < 0.0f ? s->cfg.motion.turn_rate
                      : deg * (float)(3.14159265358979323846 / 180.0);
    return GC_OK;
}

/* World units (< 0: the default) to the slot's cells.  The small slack
 * keeps a radius that is a whole number of cells from rounding up. */
static int
resolve_wander(const gc_sim *s, float r, uint32_t *out, gc_error *err)
{
    if (!isfinite(r))
        return gc_error_set(err, GC_ERANGE, NULL, 0, 0,
                            "wander radius %g is not finite", (double)r);
    if (r < 0.0f) {
        *out = s->cfg.wander_radius;
        return GC_OK;
    }
    double c = ceil((double)r / (double)s->grid->cell_size - 1e-4);
    *out = c <= 0 ? 0 : c >= 1e9 ? 1000000000u : (uint32_t)c;
    return GC_OK;
}

int
gc_sim_set_turn_rate(gc_sim *s, gc_agent_handle h, float deg_per_s,
                     gc_error *err)
{
    uint32_t i = 0;
    float rate = 0.0f;
    int rc = agent_of(s, h, &i, err);
    if (rc == GC_OK)
        rc = resolve_turn(s, deg_per_s, &rate, err);
    if (rc == GC_OK)
        s->slot[i].turn_rate = rate;
    return rc;
}

int
gc_sim_set_wander_radius(gc_sim *s, gc_agent_handle h, float radius,
                         gc_error *err)
{
    uint32_t i = 0, cells = 0;
    int rc = agent_of(s, h, &i, err);
    if (rc == GC_OK)
        rc = resolve_wander(s, radius, &cells, err);
    if (rc == GC_OK)
        s->slot[i].wander_cells = cells;
    return rc;
}

/* ---- spawn and remove -------------------------------------------------- */

int
gc_sim_spawn(gc_sim *s, const gc_spawn_spec *sp, gc_agent_handle *out,
             gc_error *err)
{
    if (out != NULL)
        *out = GC_AGENT_NONE;
    if (s->live >= s->cap)
        return gc_error_set(err, GC_ECAPACITY, NULL, 0, 0,
                            "all %u agent slots are in use", s->cap);
    gc_cell at, goal = {0, 0};
    int rc = gc_grid_check_point(s->grid, "position", sp->x, sp->y, &at, err);
    if (rc != GC_OK)
        return rc;
    if (sp->has_goal) {
        rc = gc_grid_check_point(s->grid, "goal", sp->goal_x, sp->goal_y, &goal,
                                 err);
        if (rc != GC_OK)
            return rc;
    }
    /* <= 0 asks for the default; NaN is not <= 0 and is refused. */
    float r = sp->radius <= 0.0f ? s->cfg.radius : sp->radius;
    float v = sp->speed <= 0.0f ? s->cfg.motion.speed : sp->speed;
    float turn = 0.0f;
    uint32_t wcells = 0;
    if ((rc = check_radius(s, r, err)) != GC_OK ||
        (rc = check_speed(s, v, err)) != GC_OK ||
        (rc = resolve_turn(s, sp->turn_rate, &turn, err)) != GC_OK ||
        (rc = resolve_wander(s, sp->wander_radius, &wcells, err)) != GC_OK)
        return rc;
    gc_vec2 p = {sp->x, sp->y};
    if (body_in_wall(s->grid, p, r))
        return gc_error_set(err, GC_EOVERLAP, NULL, 0, 0,
                            "a body of radius %g at (%g, %g) overlaps a wall",
                            (double)r, (double)p.x, (double)p.y);
    uint32_t j = body_overlap(s, p, r, UINT32_MAX);
    if (j != UINT32_MAX)
        return gc_error_set(
            err, GC_EOVERLAP, NULL, 0, 0,
            "a body of radius %g at (%g, %g) overlaps agent %#x at (%g, %g)",
            (double)r, (double)p.x, (double)p.y, (unsigned)handle_of_slot(s, j),
            (double)s->agents[j].pos.x, (double)s->agents[j].pos.y);

    /* The lowest free id: a hole below n, else id n (whose slot is n). */
    uint32_t id = s->free_lo;
    while (id < s->n && gc_sim_alive(s, gc_sim_slot_of(s, id)))
        id++;
    if (id == s->n)
        s->n++;
    s->free_lo = id + 1;
    uint32_t i = gc_sim_slot_of(s, id);

    gc_agent *a = &s->agents[i];
    gc_agent_release(a);
    gc_agent_init(a, p, 0.0f);
    a->radius = r;
    a->speed = v;
    set_goal_cell(s, i, at);
    /* QUEUED stays: a removed agent may still sit on a plan queue. */
    s->flags[i] &= GC_SIM_F_QUEUED;
    s->slot[i].group = sp->group;
    s->slot[i].turn_rate = turn;
    s->slot[i].wander_cells = wcells;
    s->slot[i].target = GC_AGENT_NONE;
    s->slot[i].goal_kind = GC_SIM_GOAL_NONE;
    if (s->body != NULL) {
        memset(&s->body[i], 0, sizeof s->body[i]);
        s->body[i].suffix_wp = UINT32_MAX;
        s->body[i].progress_tick = s->ticks + 1;
        if (gc_sim_body_radius(s, i) > s->rmax)
            s->rmax = gc_sim_body_radius(s, i);
    }
    s->live++;
    if (sp->has_goal) {
        s->slot[i].goal_kind = GC_SIM_GOAL_POINT;
        set_goal_cell(s, i, goal);
        want_path(s, i);
    }
    if (out != NULL)
        *out = handle_of_slot(s, i);
    return GC_OK;
}

int
gc_sim_remove(gc_sim *s, gc_agent_handle h, gc_error *err)
{
    uint32_t i = 0;
    int rc = agent_of(s, h, &i, err);
    if (rc != GC_OK)
        return rc;
    unfollow(s, i);
    stop_agent(s, i, GC_AGENT_IDLE);
    gc_agent_release(&s->agents[i]);
    s->flags[i] = (uint8_t)((s->flags[i] & GC_SIM_F_QUEUED) | GC_SIM_F_FREE);
    s->slot[i].salt =
        s->slot[i].salt >= GC_AGENT_SALT_MAX ? 1 : s->slot[i].salt + 1;
    s->slot[i].group = 0;
    s->live--;
    if (gc_sim_id_of(s, i) < s->free_lo)
        s->free_lo = gc_sim_id_of(s, i);
    if (s->trace_agent == i)
        s->trace_agent = UINT32_MAX;
    /* Whoever followed it stops now, not at the next tick. */
    for (uint32_t k = 0; s->followers > 0 && k < s->n; k++)
        if (gc_sim_alive(s, k) && s->slot[k].goal_kind == GC_SIM_GOAL_FOLLOW &&
            s->slot[k].target == h) {
            unfollow(s, k);
            stop_agent(s, k, GC_AGENT_IDLE);
        }
    return GC_OK;
}
