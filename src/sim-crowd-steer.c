/*
 * sim-crowd-steer.c: an agent with a body picks its preferred velocity
 * along its path (the furthest waypoint it can see), measures its
 * progress, and breaks deadlocks; with a turn rate it turns, then goes;
 * with a time gap it keeps its distance to the body ahead.
 * The tick that calls these, avoidance and motion are in sim-crowd.c.
 *
 * Deadlocks (ORCA's head-on meetings in passages too narrow for two, and
 * symmetric standoffs).  Progress is the walk left along the path getting
 * shorter than it ever was on this path (by 0.1 cell); a new path starts
 * a new measure but is not progress itself.  Three rules, all functions
 * of the agent's own record and the previous tick's arrays, so they keep
 * the result independent of the thread count:
 *   - Turn right.  An agent without progress for STALL_TURN seconds that
 *     also moved slower than SLOW times its speed in the last tick turns
 *     its preferred velocity to the right, by TURN_RATE per second
 *     blocked, at most TURN_MAX.  Everyone turning the same way is the
 *     consistent tie-break a symmetric standoff lacks: two blocked
 *     agents facing each other both step to their own right and pass;
 *     in the middle of the circle the blocked core turns into a
 *     roundabout; in a corridor an agent pinned on the wrong side
 *     crosses to its own lane.  Only slow agents turn: one carried round
 *     a roundabout at speed is not blocked, and turning it further right
 *     would keep it circling.  Nor does one whose turned preference heads
 *     into a wall: pressed into a corner it would stay there.
 *   - Yield by id.  After STALL_YIELD seconds without progress, an
 *     agent whose nearest neighbour has a lower id yields: for
 *     STALL_YIELD_LEN seconds it prefers to back away from that
 *     neighbour at half speed (instead of turning), so in a one-cell
 *     corridor, where turning cannot help, the higher id backs out and
 *     the lower goes through.  (The id, not the slot: a renumbering,
 *     sim-order.c, must not hand the right of way to the other.)
 *   - Replan.  After STALL_REPLAN seconds it plans again from where it
 *     stands, walking on along its old path until the new one lands (a
 *     stop would restart the stall clock: blocked agents would never
 *     count as stalled).  Not in open ground (no wall within VIS_RANGE
 *     cells): there the new path would be the old straight line, and
 *     the replans of a blocked crowd cost more than its avoidance; only
 *     its progress is measured afresh from there, as after a new path.
 *     A wanderer chooses a new goal instead, the way the crowd carried
 *     it (flow_goal()).
 *   - Squeeze (wanderers).  From SQUEEZE_FROM seconds without progress,
 *     a wanderer that also moved slower than SLOW times its speed sees
 *     bodies (its own, its neighbours', the walls') with a margin that
 *     shrinks from MARGIN to SQUEEZE_MIN over SQUEEZE_RAMP seconds
 *     (gc_sim_crowd_margin()): pinned in a crowd, it accepts closer
 *     contact and presses into gaps a little narrower than ORCA's margin
 *     allows, as a person in a crush does, and the neighbours it comes
 *     within their own margins of step aside (ORCA's overlap case).  The
 *     margin grows back at the same rate once it walks at SLOW times its
 *     speed again (or stops walking), not at the first tenth of a cell
 *     of progress: back inside its full margin, ORCA pushed it out of
 *     the gap it was pressing into (den520d seed 3 below: 40.1 s).
 *     Without it, a wanderer in a pocket of a wall (a notch, a step of a
 *     staircase wall) with a dense stream passing it stood there for
 *     half a minute and more.  den520d, 10,000 bodies, 3 minutes, seeds
 *     1, 2 and 3: the longest stall 37.1, 32.7 and 30.9 s without it;
 *     28.9, 21.1 and 23.6 s with it, the deepest overlap 0.06-0.07 of 2r.
 *     Wanderers only: agents sent to goals someone set (an evacuation,
 *     RVO2's Circle) press all the same way, and squeezing there only
 *     compresses the crush.  Every agent squeezing: circle 1,000 had
 *     1.3% of N overlapping (0.0007% without), the bottleneck 0.19%
 *     and 21% of 2r deep; to a margin of 1 instead of 0.9, the
 *     bottleneck was still 17% of 2r deep.  (Also tried: a fixed margin
 *     of 0.9 from 10 s, 0.081 of 2r deep on den520d; of 0.95, 28.9 s on
 *     seed 1; spreading a blocked wanderer's flow goal 40 degrees either
 *     way, 47.4 s.)  The clamp still keeps every body out of the walls.
 * The cycle repeats every STALL_CYCLE seconds.  With no visible waypoint
 * it plans again at once.  Agents with no progress for 10 s count as
 * stalled.
 *
 * Turn rates.  An agent with one turns, then goes, as a path follower
 * does (agent.c): between steer and avoid its heading turns towards the
 * preferred velocity by at most rate * dt, and the preference shrinks by
 * gc_heading_go (gc_sim_crowd_turn()); its heading is the turned one, not the
 * move's.  Rate 0 skips both: those agents move bit for bit as before.
 */
#include "config.h"

#include <gridcrowd/util.h>

#include "grid_int.h"
#include "sim_crowd_int.h"

#include <math.h>
#include <stdlib.h>

#define LOOKAHEAD 6          /* waypoints tried ahead of the next */
#define VIS_RANGE 8          /* cells: how far visibility is checked */
#define STALL_YIELD 2.0f     /* s without progress before yielding */
#define STALL_YIELD_LEN 2.0f /* s of backing away */
#define STALL_REPLAN 5.0f    /* s without progress before replanning */
#define STALL_CYCLE 8.0f     /* s: the rule repeats */
#define STALL_TURN 1.0f      /* s without progress before turning */
#define TURN_RATE 0.5235988f /* radians per s blocked: 30 degrees */
#define TURN_MAX 1.0471976f  /* the most it turns: 60 degrees */
#define MAKE_WAY 0.5f     /* radii: arrived agents this near movers step away */
#define SLOW 0.5f         /* blocked: slower than this x speed */
#define FLOW_GOAL 16.0f   /* cells: a blocked wanderer's goal with the flow */
#define FLOW_MIN 0.05f    /* x speed: carried by the crowd */
#define SQUEEZE_FROM 5.0f /* s without progress before squeezing */
#define SQUEEZE_RAMP 10.0f /* s for the margin to shrink to the least */
#define SQUEEZE_MIN 0.9f   /* the least margin: bodies 10% smaller */

static float
seg_len(gc_vec2 a, gc_vec2 b)
{
    return sqrtf((b.x - a.x) * (b.x - a.x) + (b.y - a.y) * (b.y - a.y));
}

/* The walk left to agent i from p along its path: to its next waypoint,
 * then along the rest (the rest's length kept in the body, updated by
 * subtraction as the next waypoint moves on). */
float
gc_sim_crowd_remaining(gc_sim *s, uint32_t i, gc_vec2 p)
{
    const gc_agent *a = &s->agents[i];
    gc_sim_body *b = &s->body[i];
    if (a->wp_next >= a->wp_len)
        return 0.0f;
    if (b->suffix_wp != UINT32_MAX && b->suffix_wp <= a->wp_next) {
        for (uint32_t k = b->suffix_wp; k < a->wp_next; k++)
            b->suffix -= seg_len(a->wp[k], a->wp[k + 1]);
    } else {
        b->suffix = 0.0f;
        for (uint32_t k = a->wp_next; k + 1 < a->wp_len; k++)
            b->suffix += seg_len(a->wp[k], a->wp[k + 1]);
    }
    b->suffix_wp = a->wp_next;
    return seg_len(p, a->wp[a->wp_next]) +
           (b->suffix > 0.0f ? b->suffix : 0.0f);
}

/* A new path: progress is measured on it from here (the time of the last
 * progress stays: a replan is not progress).  The path starts at the
 * centre of the agent's cell, which the agent heads past at once: the
 * measure starts as if it did (straight to the second waypoint), else the
 * first step would shorten the walk by the detour and count as progress,
 * and every replan of a blocked agent would restart its stall clock.
 * Also keeps the path's last waypoint (gc_sim_body.end), which arrival
 * checks every tick. */
void
gc_sim_body_reset(gc_sim *s, uint32_t i)
{
    gc_sim_body *b = &s->body[i];
    const gc_agent *a = &s->agents[i];
    b->end = a->wp_len > 0 ? a->wp[a->wp_len - 1] : a->pos;
    b->suffix_wp = UINT32_MAX;
    b->best_rem = gc_sim_crowd_remaining(s, i, a->pos);
    if (a->wp_next + 1 < a->wp_len) {
        gc_vec2 p = a->pos, w0 = a->wp[a->wp_next], w1 = a->wp[a->wp_next + 1];
        float skip =
            b->best_rem - seg_len(p, w0) - seg_len(w0, w1) + seg_len(p, w1);
        if (skip < b->best_rem)
            b->best_rem = skip;
    }
}

/* Agent i's preferred velocity; false when it must plan again. */
static bool
preferred(gc_sim *s, uint32_t i, const struct gc_sim_spot *at, gc_vec2 *pref)
{
    gc_agent *a = &s->agents[i];
    *pref = (gc_vec2){0.0f, 0.0f};
    if (a->state == GC_AGENT_ARRIVED && a->wp_len > 0) {
        /* Pushed more than a cell off its goal: drift back at half
         * speed, so that arrived agents settle near their own spots and
         * leave the others' free; within a cell, no preference, so that
         * agents passing through can push them aside. */
        gc_vec2 t = s->body[i].end; /* a->wp[a->wp_len - 1] */
        float dx = t.x - a->pos.x, dy = t.y - a->pos.y;
        float d = sqrtf(dx * dx + dy * dy), r = gc_sim_body_radius(s, i);
        if (d > r) {
            float v = 0.5f * a->speed;
            if (d - r < v * s->dt)
                v = (d - r) / s->dt;
            *pref = (gc_vec2){dx / d * v, dy / d * v};
        }
        return true;
    }
    if (a->state != GC_AGENT_MOVING || a->wp_next >= a->wp_len)
        return true;
    uint32_t last = a->wp_next + LOOKAHEAD;
    if (last > a->wp_len - 1)
        last = a->wp_len - 1;
    uint32_t k = last + 1;
    /* Waypoints further on are taken only within VIS_RANGE cells, and
     * checked all the way; the next one only within VIS_RANGE cells of
     * the agent (beyond, the planned path vouches for it).  So a tick
     * costs at most a few short traversals per agent, not a walk down a
     * path hundreds of cells long. */
    const float cs = s->grid->cell_size, range = VIS_RANGE * cs;
    /* Within this of the agent no walk can meet a blocked cell. */
    const float proom = at->room_plan;
    gc_vec2 n0 = a->wp[a->wp_next];
    bool at_next = (n0.x - a->pos.x) * (n0.x - a->pos.x) +
                       (n0.y - a->pos.y) * (n0.y - a->pos.y) <=
                   cs * cs;
    while (k-- > a->wp_next) {
        float dx = a->wp[k].x - a->pos.x, dy = a->wp[k].y - a->pos.y;
        int64_t steps = INT64_MAX;
        if (k == a->wp_next || dx * dx + dy * dy > range * range) {
            /* Far: only the stretch near the agent is checked, for the
             * next waypoint, or for the one after it when the agent is
             * within a cell of the next (the leg between them is part of
             * the planned path). */
            if (k > a->wp_next && !(k == a->wp_next + 1 && at_next))
                continue;
            steps = 2 * (int64_t)VIS_RANGE;
        }
        if ((proom > 0.0f && dx * dx + dy * dy < proom * proom) ||
            gc_sim_visible_kept(s->nav, s->pgrid, a->pos, a->wp[k], steps,
                                proom, &s->body[i].sight, s->clear_gen))
            break;
    }
    if (k == UINT32_MAX || k < a->wp_next)
        return false;
    a->wp_next = k;
    gc_vec2 t = a->wp[k];
    float dx = t.x - a->pos.x, dy = t.y - a->pos.y;
    float d = sqrtf(dx * dx + dy * dy);
    if (d <= 0.0f)
        return true;
    float v = a->speed;
    if (k + 1 == a->wp_len && d < v * s->dt)
        v = d / s->dt; /* arrive, do not overshoot */
    *pref = (gc_vec2){dx / d * v, dy / d * v};
    return true;
}

static void
replan_now(gc_sim *s, uint32_t i)
{
    gc_agent_clear_path(&s->agents[i]);
    s->agents[i].state = GC_AGENT_WAITING;
    gc_sim_ask_plan(s, i);
}

/*
 * Make way: an arrived agent touching (within MAKE_WAY body radii of
 * contact) agents that were moving as the tick started prefers to step
 * away from them at half speed.  ORCA only avoids: it never pushes, so
 * a band of arrived bodies with gaps narrower than a body would be a
 * fence for those that still have to cross it (RVO2's Circle with
 * several rings: the last agents in found their way through the agents
 * standing on the other rings' goals shut).  Reads only the start of
 * tick arrays, as everything else in the step.
 */
static bool
make_way(const gc_sim *s, uint32_t i, const uint32_t *ids, const float *nd2,
         size_t n, gc_vec2 *pref)
{
    /* Contact is the two bodies' own radii (each widened by MARGIN, as
     * avoidance sees them) plus MAKE_WAY of this agent's radius. */
    float r = gc_sim_body_radius(s, i);
    float sx = 0.0f, sy = 0.0f;
    for (size_t k = 0; k < n; k++) {
        uint32_t j = ids[k];
        float reach = MARGIN * (r + s->now[j].r) + MAKE_WAY * r;
        if (nd2[k] >= reach * reach || s->now[j].st != GC_AGENT_MOVING ||
            nd2[k] <= 0.0f)
            continue;
        float d = sqrtf(nd2[k]);
        sx += (s->now[i].x - s->now[j].x) / d;
        sy += (s->now[i].y - s->now[j].y) / d;
    }
    float l = sqrtf(sx * sx + sy * sy);
    if (l <= 1e-3f)
        return false;
    float v = 0.5f * s->agents[i].speed;
    *pref = (gc_vec2){sx / l * v, sy / l * v};
    return true;
}

/* A turned preference q (the turn-right tie-break; keep right, in
 * sim-crowd.c), unless it heads into a wall (the clamp would cut a tick's
 * walk at it to less than half): then pref, as it was.  Turned into a
 * wall an agent pressed into a corner stays there for good (den520d:
 * 100 s), where its own way, along the wall, was open.  The two turns
 * add up: the tie-break's 60 degrees along a wall, then keep right's 35
 * for bodies coming the other way beyond that wall, pointed an agent at
 * the end of a dead-end pocket straight into the wall above it, and it
 * stood there for half a minute and more (den520d seeds 1 to 3). */
gc_vec2
gc_sim_crowd_unwalled(const gc_sim *s, uint32_t i,
                      const struct gc_sim_spot *at, gc_vec2 pref, gc_vec2 q)
{
    const gc_agent *a = &s->agents[i];
    float r = gc_sim_body_radius(s, i);
    float step = sqrtf(q.x * q.x + q.y * q.y) * s->dt;
    if (at->room_wall > r + step)
        return q;
    gc_vec2 to = {a->pos.x + q.x * s->dt, a->pos.y + q.y * s->dt};
    gc_vec2 got = gc_sim_clamp_move(s->grid, a->pos, to, r,
                                    GC_SIM_WALL_TOL * s->grid->cell_size);
    float gx = got.x - a->pos.x, gy = got.y - a->pos.y;
    return gx * gx + gy * gy >= 0.25f * step * step ? q : pref;
}

/* A blocked wanderer's next goal: FLOW_GOAL cells (or less) the way it
 * was carried last tick, when it moved at all (FLOW_MIN of its speed or
 * more), else the way its neighbours (ids, n) went on average, when they
 * did, and such a cell is open and joined to its own; else a random one.
 * In a dense counterflow the crowd carries an agent where it will: a
 * walker with no fixed goal goes with it, and makes progress again at
 * once, where a random goal across the stream kept it fighting the
 * stream (a minute and more without progress on den520d).  One pinned
 * still (against a wall, in a corner) goes the way the crowd around it
 * goes: den520d, 3 minutes, seeds 1, 2, 3: the longest stall 36, 54 and
 * 64 s when only its own motion counted, 37, 33 and 31 s with this.  A
 * goal with the flow is marked GC_SIM_F_FLOW: its plan is not routed
 * round jams (sim-plan.c). */
static gc_cell
flow_goal(gc_sim *s, uint32_t i, gc_cell here, const uint32_t *ids, size_t n)
{
    s->flags[i] &= (uint8_t)~GC_SIM_F_FLOW;
    float vx = s->now[i].vx, vy = s->now[i].vy, sp = s->agents[i].speed;
    float v = sqrtf(vx * vx + vy * vy);
    if (v < FLOW_MIN * sp && n > 0) {
        /* Pinned: the way the agents around it go. */
        vx = vy = 0.0f;
        for (size_t k = 0; k < n; k++) {
            vx += s->now[ids[k]].vx;
            vy += s->now[ids[k]].vy;
        }
        vx /= (float)n;
        vy /= (float)n;
        v = sqrtf(vx * vx + vy * vy);
    }
    if (v >= FLOW_MIN * sp && v > 0.0f) {
        float far = FLOW_GOAL, cs = s->grid->cell_size;
        uint32_t wr = s->slot[i].wander_cells;
        if (wr > 0 && (float)wr < far)
            far = (float)wr;
        for (float d = far; d >= 2.0f; d *= 0.5f) {
            gc_vec2 p = {s->now[i].x + vx / v * d * cs,
                         s->now[i].y + vy / v * d * cs};
            gc_cell g;
            if (gc_sim_plan_cell(s, p, &g) &&
                gc_sim_same_component(s, here, g)) {
                s->flags[i] |= GC_SIM_F_FLOW;
                return g;
            }
        }
    }
    return gc_sim_random_goal(s, i, here);
}

/* Agent i moved slower than SLOW times its speed last tick: blocked, for
 * the turn-right tie-break and squeezing. */
static bool
moved_slowly(const gc_sim *s, uint32_t i)
{
    float sp2 = s->now[i].vx * s->now[i].vx + s->now[i].vy * s->now[i].vy;
    float slow = SLOW * s->agents[i].speed;
    return sp2 < slow * slow;
}

/* The margin avoidance keeps round agent i's body and those it avoids in
 * tick `now`: MARGIN, less while it squeezes (see the note at the top).
 * Updates the agent's squeeze: one tick more of it while a pinned
 * wanderer, one less while walking at SLOW times its speed or more, not
 * walking, or not wandering. */
float
gc_sim_crowd_margin(gc_sim *s, uint32_t i, uint64_t now)
{
    const gc_agent *a = &s->agents[i];
    gc_sim_body *b = &s->body[i];
    float step = s->dt / SQUEEZE_RAMP;
    if (a->state != GC_AGENT_MOVING || !moved_slowly(s, i) ||
        s->slot[i].goal_kind != GC_SIM_GOAL_WANDER)
        b->squeeze = b->squeeze > step ? b->squeeze - step : 0.0f;
    else if (now > b->progress_tick &&
             (float)(now - b->progress_tick) * s->dt >= SQUEEZE_FROM)
        b->squeeze = b->squeeze < 1.0f - step ? b->squeeze + step : 1.0f;
    return MARGIN + (SQUEEZE_MIN - MARGIN) * b->squeeze;
}

/* The preferred velocity; may send the agent to plan again. */
gc_vec2
gc_sim_crowd_steer(gc_sim *s, uint32_t i, const struct gc_sim_spot *at,
                   uint64_t now, const uint32_t *ids, const float *nd2,
                   size_t n)
{
    gc_agent *a = &s->agents[i];
    gc_sim_body *b = &s->body[i];
    float r = gc_sim_body_radius(s, i), cs = s->grid->cell_size;

    if (a->state != GC_AGENT_MOVING)
        b->progress_tick = now;
    gc_vec2 pref;
    if (!preferred(s, i, at, &pref))
        replan_now(s, i); /* not progress: the stall clock runs on */
    if (a->state == GC_AGENT_ARRIVED)
        make_way(s, i, ids, nd2, n, &pref);
    /* The deadlock rule (see the note at the top). */
    if (a->state == GC_AGENT_MOVING) {
        uint64_t hz = s->hz;
        /* (A 64-bit division only past the first cycle: most agents
         * made progress within it, and the division was an eighth of
         * the steering's samples on the town.) */
        uint64_t since = now - b->progress_tick,
                 cycle = (uint64_t)(STALL_CYCLE * hz);
        uint64_t cyc = since < cycle ? since : since % cycle;
        if (now > b->progress_tick && cyc == (uint64_t)(STALL_REPLAN * hz)) {
            /* Walks on along its path until the new one lands: stopping
             * would put it in WAITING, which restarts the stall clock,
             * and a blocked agent would never count as stalled.  In open
             * ground the new path would be the old straight line: only
             * progress is measured afresh from here, as a new path would
             * be, without the search.  (So the queue holds a MOVING
             * agent: gc_sim_plan_queued must plan it, see wants_plan.) */
            if (s->slot[i].goal_kind == GC_SIM_GOAL_WANDER &&
                s->cfg.wander_repeat) {
                /* A wanderer's goal is its own choice: blocked, it
                 * chooses again, as a walker facing a jammed passage
                 * goes elsewhere; about half the new goals lie back the
                 * way it came, so a passage two streams filled drains
                 * from both ends. */
                gc_cell here;
                gc_sim_plan_cell(s, a->pos, &here);
                a->goal = flow_goal(s, i, here, ids, n);
                gc_sim_ask_plan(s, i);
            } else if (gc_sim_wall_room(s->nav, s->grid, a->pos) <
                       VIS_RANGE * cs) /* exact: this one decides */
                gc_sim_ask_plan(s, i);
            else
                gc_sim_body_reset(s, i);
        } else if (cyc >= (uint64_t)(STALL_YIELD * hz) &&
                   cyc < (uint64_t)((STALL_YIELD + STALL_YIELD_LEN) * hz)) {
            uint32_t j;
            float d2;
            gc_vec2 p = {s->now[i].x, s->now[i].y};
            if (gc_sim_crowd_nearest(s, p, i, 1, r + s->rmax + 0.5f * cs, &j,
                                     &d2) == 1 &&
                gc_sim_id_of(s, j) < gc_sim_id_of(s, i) && d2 > 0.0f) {
                float d = sqrtf(d2), v = 0.5f * a->speed;
                pref = (gc_vec2){(p.x - s->now[j].x) / d * v,
                                 (p.y - s->now[j].y) / d * v};
                return pref;
            }
        }
        /* The tie-break (see the note at the top): blocked, it turns its
         * preference to the right, more the longer it is blocked. */
        float st = (float)(now - b->progress_tick) * s->dt;
        if (st > STALL_TURN && moved_slowly(s, i)) {
            float ang = TURN_RATE * (st - STALL_TURN);
            if (ang > TURN_MAX)
                ang = TURN_MAX;
            float c = cosf(ang), sn = sinf(ang);
            pref = gc_sim_crowd_unwalled(
                s, i, at, pref,
                (gc_vec2){pref.x * c - pref.y * sn, pref.x * sn + pref.y * c});
        }
    }
    return pref;
}

/*
 * Turn then go, for an agent with a turn rate (gc_sim_slot.turn_rate > 0):
 * its heading turns towards the preferred velocity by at most rate * dt,
 * and the preference handed to ORCA keeps its direction but shrinks to
 * the share gc_heading_go gives (the rule path followers keep in
 * agent.c): it turns in place while facing 90 degrees or more away, and
 * its motion is never more than 90 degrees off the heading shown.  Not
 * along the heading: that drifted sideways by speed / (2 rate) in every
 * turn (a cell and more at 4 cells/s and 90 degrees/s), off the planned
 * line and towards walls, and the next preference then turned it back.
 * ORCA may still side-step from there for safety: the guarantees (no
 * overlap, never in a wall) stay ORCA's and the clamp's.  It reads and
 * writes only agent i's own heading, which no other worker reads during
 * the tick, so the thread count still changes nothing.  Turn rate 0 (or
 * no preference) leaves pref as it was: those agents move as before.
 *
 * Turning is not being blocked: while a moving agent still faces more than
 * TURN_MAX away from where it wants to go (more than the tie-break's own
 * turn can account for: a corner, a new goal), its stall clock does not
 * run, so a slow turner is not taken for a blocked agent and turned right,
 * backed off or sent to plan again half way through its turn.
 */
gc_vec2
gc_sim_crowd_turn(gc_sim *s, uint32_t i, gc_vec2 pref, uint64_t now)
{
    float rate = s->slot[i].turn_rate;
    if (!(rate > 0.0f) || (pref.x == 0.0f && pref.y == 0.0f))
        return pref;
    gc_agent *a = &s->agents[i];
    float want = atan2f(pref.y, pref.x);
    a->heading = gc_heading_turn(a->heading, want, rate * s->dt);
    float off = fabsf(remainderf(want - a->heading, 2.0f * (float)M_PI));
    if (a->state == GC_AGENT_MOVING && off > TURN_MAX)
        s->body[i].progress_tick = now;
    float f = gc_heading_go(a->heading, want);
    return (gc_vec2){pref.x * f, pref.y * f};
}

/*
 * Following (cfg.time_gap > 0): the speed of the preference is at most
 * the gap to the nearest body ahead, divided by the time gap, as in the
 * collision-free speed model of Tordeux, Chraibi and Seyfried (2016), the
 * speed function of JuPedSim's model of that name.  Ahead: in front along
 * the preferred direction, and within the strip the agent's body sweeps
 * (its centre line nearer than the two radii); the gap is the distance
 * between the bodies.  Not a body coming the other way (its velocity last
 * tick against the preferred direction): ORCA passes those, and waiting
 * for them deadlocked counterflows.  Never below FOLLOW_FLOOR times the
 * preferred speed: with none at all a blocked agent has nothing the
 * deadlock rules can turn, and two stopped bodies facing each other would
 * wait for each other for ever.  (A floor of 0.1 let the queue press
 * on: RiMEA 9's two doors passed 3.7 people a second each, not 2.9.)
 * What it brings is flow through a door that a crowd user recognises:
 * ORCA alone lets bodies pass a 1 m door two abreast at walking speed,
 * 6 to 9 people a second, where people pass about 2 to 3 (RiMEA 9's
 * 1,000 leave through two doors in 171 s with a time gap of 1 s, in 79 s
 * without; with four doors, 86 and 44 s).
 */
#define FOLLOW_FLOOR 0.03f

gc_vec2
gc_sim_crowd_follow(const gc_sim *s, uint32_t i, gc_vec2 pref,
                    const uint32_t *ids, const float *nd2, size_t n)
{
    float tg = s->cfg.time_gap;
    if (!(tg > 0.0f))
        return pref;
    float pl = sqrtf(pref.x * pref.x + pref.y * pref.y);
    if (pl == 0.0f)
        return pref;
    float ex = pref.x / pl, ey = pref.y / pl, r = gc_sim_body_radius(s, i);
    float gap = INFINITY;
    for (size_t k = 0; k < n; k++) {
        uint32_t j = ids[k];
        float rx = s->now[j].x - s->now[i].x, ry = s->now[j].y - s->now[i].y;
        float R = r + s->now[j].r;
        if (rx * ex + ry * ey > 0.0f && fabsf(rx * ey - ry * ex) < R &&
            s->now[j].vx * ex + s->now[j].vy * ey >= 0.0f)
            gap = fminf(gap, sqrtf(nd2[k]) - R);
    }
    float v = fmaxf(gap / tg, FOLLOW_FLOOR * pl);
    if (v >= pl)
        return pref;
    return (gc_vec2){ex * v, ey * v};
}
