/*
 * sim-crowd.c: agents with bodies: avoidance (ORCA) each tick, progress
 * and stalls, and the figures.  The inflated planning grid and the wall
 * geometry (visibility, wall segments, the clamp) are in sim-crowd-grid.c.
 *
 * A tick with avoidance.  Before the gate opens the loop copies every
 * agent's position and velocity into flat arrays and indexes them
 * (gc_orca_grid; sim-crowd-loop.c, which also sums the figures after).
 * The workers then take blocks of GC_SIM_CHUNK slots, each its share
 * first (gc_sim_take, gc_sim_crowd_step), and, for each agent of a
 * block: measure the
 * figures on those start positions; pick a preferred velocity towards
 * the furthest waypoint it can see (at most LOOKAHEAD ahead, a straight
 * line through cells open in the planning grid, as DetourCrowd's
 * corridor does, so an agent pushed sideways never walks back to a
 * waypoint it passed); ask ORCA for a new velocity against its K nearest
 * neighbours (from the arrays; found through candidate lists that give
 * the index's answer, sim-crowd-near.c) and the wall edges near it
 * (edges of obstacle cells facing open cells, collinear edges merged);
 * move; and clamp the move against the walls.  A worker reads the
 * arrays, the index and the grids, all read-only in the tick, and writes
 * only the agents of its blocks, their blocks' sums and flags: the result
 * does not depend on the number of threads or on who took which block
 * (nor does who plans in which tick: the budget is the tick's,
 * gc_sim_plan_quotas).  Who takes which block is sim-crowd-share.c.
 *
 * Steering along the path, progress and the deadlock rules (ORCA's
 * head-on meetings in narrow passages, symmetric standoffs) are in
 * sim-crowd-steer.c, turn rates too.
 *
 * Crushes, first, with --avoid orca-adaptive (GC_AVOID_ORCA_ADAPTIVE):
 * when ORCA's program is infeasible, the agent looks less far ahead
 * (gc_orca_velocity_adaptive: the neighbours' horizon shortens
 * by 30% a step, at most 10 steps and not below a tick, to where its
 * program turns feasible, searched from last tick's step, which the
 * agent keeps; else the shortest's least-violation answer).
 * ORCA's 3-D program otherwise trades the long-horizon lines of bodies
 * still seconds from touching against the urgent lines of those
 * overlapping, and in a dense stream (half of circle 1,000's agent-ticks
 * are infeasible, with the margin below) the urgent lose: circle 10,000's
 * crush (its first 1,200 ticks) had 1.47% of N overlapping a tick, 24% of
 * 2r deep, and all arrived after 5,757 s; with it, 0.51%, 9.4% and
 * 2,283 s (0.071% of N a tick over the whole run).  Circle, corridor
 * and bottleneck 1,000 all arrived sooner too (4,084 -> 4,002 ticks,
 * 12,133 -> 10,092, 17,919 -> 14,890), at 12-28% more avoidance time on
 * one thread in their densest stretches (the lines are remade at each
 * horizon tried).  Not the default: it also lets doors pass more, and
 * RiMEA 9's flow with four exits came to 1.38-1.69 times the flow with
 * two (seeds 1 to 6), where the test wants about double (1.72 to 1.78
 * with plain ORCA).
 *
 * Then, after its move each agent pushes itself out of overlaps deeper
 * than 5% of the two radii, half of each (separation(), as DetourCrowd
 * handles collisions after integrating).  Wanderers also plan round
 * jams: sim-jam.c.  Last, after the tick, the contacts pass puts back
 * pairs that walked into each other within it: sim-crowd-contact.c.
 *
 * Counterflow: an agent with someone ahead coming the other way aims 35
 * degrees to the right of its way (keep right), so opposing streams form
 * lanes early instead of pressing head-on (15 degrees formed them too
 * late: corridor 1000 took 329 s, with 35 degrees 165 s); not when that
 * heads it into a wall (gc_sim_crowd_unwalled, as the turn-right
 * tie-break).  Avoidance sees bodies 10% larger than they are (MARGIN):
 * ORCA is exact only to first order in dt, and bodies aiming to just touch
 * graze each other.  A wanderer pinned in a crowd sees them smaller, down
 * to 10% less (squeezing, one of the deadlock rules).
 *
 * Goals in a crowd.  An agent arrives within max(arrival radius, body
 * radius) of its last waypoint; or after NEAR_TIME seconds within
 * NEAR_GOAL cells of it; or after NEAR_TIME seconds without progress
 * within 3 NEAR_GOAL cells plus three body widths (held back by those
 * already standing around the goal).  Arrived agents (point and scen goals)
 * keep their bodies: pushed off their goal by more than their radius they drift
 * back at half speed, so they settle on their own spots and leave others' free;
 * ORCA shares each avoidance between the two agents, and an arrived agent
 * touching one that was moving as the tick started steps away from it
 * (make_way: ORCA never pushes, so without it a band of arrived bodies
 * with gaps narrower than a body is a fence).  Wanderers draw a new goal as
 * before.
 *
 * Bodies of their own.  Each agent has its own radius and speed
 * (gc_agent.radius, .speed; a point counts as a hundredth of a cell):
 * overlaps, the clamp, ORCA's view of it and of each neighbour, and its
 * preferred speed use them.  Neighbours are looked for within the
 * default's distance, widened by the largest radius ever in use (rmax).
 * With free slots (removed agents) the index holds the live agents only,
 * in slot order, and queries translate back to slots
 * (gc_sim_crowd_nearest(), sim-crowd-near.c).

 */
#include "config.h"

#include <gridcrowd/util.h>

#include "grid_int.h"
#include "orca_int.h"
#include "sim_crowd_int.h"

#include <math.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>

#define PROGRESS 0.1f             /* cells nearer the next waypoint */
#define KEEP_RIGHT_COS 0.8191520f /* 35 degrees */
#define KEEP_RIGHT_SIN 0.5735764f
#define NEAR_GOAL 2.0f /* cells: this near the goal for NEAR_TIME s */
#define NEAR_TIME 3.0f /* counts as arrived */
#define SEP_MAX 0.5f   /* radii: the most an agent is pushed a tick */
#define SEP_FROM 0.05f /* of 2r: overlaps shallower than this are left */

/* ---- the tick ---------------------------------------------------------- */

/* How far from agent i ORCA looks for walls (RVO2's range). */
static inline float
wall_range(const gc_sim *s, uint32_t i)
{
    return s->orca.time_horizon_obst * s->orca.max_speed +
           gc_sim_body_radius(s, i);
}

/* Whether agent i's kept clearance bytes are for `cell` now. */
static inline bool
spot_kept_at(const gc_sim *s, uint32_t i, gc_cell cell)
{
    const gc_sim_spot_kept *k = &s->spot_kept[i];
    return k->gen == s->clear_gen && k->x == cell.x && k->y == cell.y;
}

/* Where agent i stands, from its cell (gc_grid_cell_of of its position,
 * which gc_sim_crowd_step_chunk computes a pass ahead to prefetch what this
 * reads: the clearance maps, when the bytes it keeps are not that cell's),
 * looking for walls within `range`. */
static struct gc_sim_spot
spot_at(gc_sim *s, uint32_t i, gc_cell cell, float range)
{
    struct gc_sim_spot at;
    const gc_nav *wn = s->wnav != NULL ? s->wnav : s->nav;
    gc_sim_spot_kept *k = &s->spot_kept[i];
    if (!spot_kept_at(s, i, cell))
        gc_sim_spot_read(k, s->clear_gen, wn, s->nav, cell);
    float cs = s->grid->cell_size;
    at.cell = cell;
    at.clear_wall = 0.25f * (float)k->wall4; /* gc_nav_clear_low */
    at.room_wall = (at.clear_wall - 0.92f) * cs;
    at.room_plan = wn == s->nav ? at.room_wall
                                : (0.25f * (float)k->plan4 - 0.92f) * cs;
    /* In open ground that saves a scan of every cell around the agent. */
    at.walls = at.clear_wall - 0.75f <= range / cs;
    return at;
}

/*
 * Overlaps with agents of higher index, and the wall check, at the
 * positions the tick starts from.  The agent's neighbour query (ids, d2:
 * its n nearest, nearest first) usually holds every overlapping one; only
 * when all of them overlap may there be more, and then the index is asked
 * again for everyone within 2r.
 */
static void
measure(gc_sim_worker *w, uint32_t i, const struct gc_sim_spot *at,
        const uint32_t *ids, const float *d2, size_t n, size_t k_asked)
{
    gc_sim *s = w->sim;
    float r = gc_sim_body_radius(s, i), rr = r + s->rmax;
    float r2 = rr * rr;
    gc_vec2 p = {s->now[i].x, s->now[i].y};
    uint32_t more_ids[GC_ORCA_MAX_NEIGHBOURS];
    float more_d2[GC_ORCA_MAX_NEIGHBOURS];
    if (n == k_asked && n > 0 && d2[n - 1] < r2) {
        n = gc_sim_crowd_nearest(s, p, i, GC_ORCA_MAX_NEIGHBOURS, rr, more_ids,
                                 more_d2);
        ids = more_ids;
        d2 = more_d2;
    }
    for (size_t k = 0; k < n && d2[k] < r2; k++) {
        float sum = r + s->now[ids[k]].r;
        if (ids[k] < i || d2[k] >= sum * sum)
            continue;
        w->tick_overlaps++;
        float depth = (sum - sqrtf(d2[k])) / sum;
        if (depth > w->win.depth_max)
            w->win.depth_max = depth;
    }
    float tol = GC_SIM_WALL_TOL * s->grid->cell_size;
    if (at->room_wall <= r && !gc_sim_body_ok(s->grid, p, r, tol))
        w->win.in_wall++;
}

/*
 * ORCA with only the walls' lines hard (gc_orca_velocity also holds hard
 * the lines of bodies already overlapping): for a squeezing wanderer,
 * which accepts closer contact to press into a gap (sim-crowd-steer.c);
 * its overlaps held hard pushed it back out of the gap.  den520d, seeds 1
 * to 4, longest stall: 36.8, 31.1, 21.3, 27.8 s so; 44.1, 28.9, 44.6,
 * 25.0 s with the overlaps hard for squeezers too.
 */
static int
squeeze_velocity(const gc_orca_params *op, const gc_orca_agent *self,
                 gc_vec2 pref, float vmax, const gc_orca_agent *nb, size_t n,
                 const gc_orca_segment *seg, size_t m, gc_vec2 *v,
                 gc_orca_report *rep)
{
    gc_orca_line lines[GC_ORCA_MAX_LINES];
    size_t n_obst;
    int k = gc_orca_lines(op, self, nb, n, seg, m, lines, &n_obst);
    if (k < 0)
        return k;
    return gc_orca_solve(lines, (size_t)k, n_obst, pref, vmax, v, rep);
}

/* Marks agent i in contact when its program had no velocity that
 * satisfied every line (or could not be made). */
static void
contact_unless(gc_sim *s, uint32_t i, bool feasible)
{
    if (!feasible)
        s->flags[i] |= GC_SIM_F_CONTACT;
}

/* (Why: sim_crowd_int.h.) */
uint64_t
gc_sim_crowd_overlaps_first(gc_orca_agent *nb, size_t n, uint64_t over)
{
    gc_orca_agent rest[GC_ORCA_MAX_NEIGHBOURS];
    size_t a = 0, b = 0;
    for (size_t k = 0; k < n; k++) {
        if (over >> k & 1)
            nb[a++] = nb[k]; /* (a <= k) */
        else
            rest[b++] = nb[k];
    }
    memcpy(nb + a, rest, b * sizeof *rest);
    return a < 64 ? (UINT64_C(1) << a) - 1 : ~UINT64_C(0);
}

bool gc_sim_crowd_overlaps_known = true;

/*
 * The new velocity: ORCA from pref against the n nearest neighbours ids
 * (squared distances nd2) and the walls near the agent.  The default
 * model's answer is left to the program pr, which avoid() makes ready
 * and gc_sim_crowd_step_chunk answers with the others of its group in
 * lanes (gc_orca_programs_lines, gc_orca_programs_solve): then it
 * returns true.  The other models,
 * and a program that cannot be made, answer at once in *v.
 */
static bool
avoid(gc_sim *s, uint32_t i, const struct gc_sim_spot *at, gc_vec2 pref,
      const uint32_t *ids, const float *nd2, size_t n, uint64_t now,
      gc_orca_program *pr, gc_vec2 *v)
{
    const gc_orca_params *op = &s->orca;
    float r = gc_sim_body_radius(s, i), cs = s->grid->cell_size;
    float vmax = s->agents[i].speed;
    if (s->cfg.max_speed > vmax)
        vmax = s->cfg.max_speed;

    /* ORCA against the start-of-tick arrays: the agent's own entry there
     * is its position as the tick starts (planning moved nobody). */
    /* Avoidance keeps a margin (MARGIN): ORCA's answer is exact only to
     * first order in dt, and bodies that aim to just touch graze each
     * other; aiming a tenth wider keeps the real bodies apart.  Less
     * for a wanderer squeezing out of a crush (sim-crowd-steer.c). */
    float mg = gc_sim_crowd_margin(s, i, now);
    float ra = r * mg;
    gc_orca_agent self = {
        {s->now[i].x, s->now[i].y}, {s->now[i].vx, s->now[i].vy}, ra};
    gc_orca_agent *nb = pr->nb;
    /* Keep right: with someone coming the other way ahead, aim a little
     * to the right (y grows downwards), so that counterflows form lanes
     * instead of pressing head-on, which ORCA alone resolves slowly.
     * Whether anyone is: a flag over all of them, without a branch per
     * neighbour (which mispredicted often), taken as they are copied. */
    bool oncoming = false;
    for (size_t k = 0; k < n; k++) {
        uint32_t o = ids[k];
        nb[k] = (gc_orca_agent){{s->now[o].x, s->now[o].y},
                                {s->now[o].vx, s->now[o].vy},
                                s->now[o].r * mg};
        /* Two bodies on one point (a scenario may start two agents in
         * one cell) would get the same answer for ever: the higher id
         * is taken to be a hair to the right of the lower. */
        if (nd2[k] == 0.0f)
            nb[k].pos.x +=
                (gc_sim_id_of(s, o) > gc_sim_id_of(s, i) ? 1e-3f : -1e-3f) * r;
        float rx = nb[k].pos.x - self.pos.x, ry = nb[k].pos.y - self.pos.y;
        oncoming |= (rx * pref.x + ry * pref.y > 0.0f) &
                    (nb[k].vel.x * pref.x + nb[k].vel.y * pref.y < 0.0f);
    }
    /* Bodies already overlapping first (gc_sim_crowd_overlaps_first).
     * Nearest first as they come, they are first already unless radii
     * differ, and there are none when even the nearest is beyond the
     * widest pair (with a hair for rounding): most agents, most ticks. */
    float wide = ra + s->rmax * mg;
    uint64_t over = 0; /* bit k: nb[k]'s body overlaps the agent's */
    if (n > 0 && !(nd2[0] > wide * wide * (1.0f + 1e-5f))) {
        for (size_t k = 0; k < n; k++)
            over |= (uint64_t)gc_orca_overlapping(&self, &nb[k]) << k;
        if (over & (over + 1)) /* not already first */
            over = gc_sim_crowd_overlaps_first(nb, n, over);
    }
    /* (A zero preference has nobody ahead: the flag stays false.) */
    if (oncoming) {
        gc_vec2 q = {pref.x * KEEP_RIGHT_COS - pref.y * KEEP_RIGHT_SIN,
                     pref.x * KEEP_RIGHT_SIN + pref.y * KEEP_RIGHT_COS};
        pref = gc_sim_crowd_unwalled(s, i, at, pref, q);
    }
    /* Walls within range, unless the clearance map says there is none
     * (at->walls). */
    const gc_orca_segment *seg = pr->seg;
    size_t m = 0;
    if (at->walls)
        m = gc_sim_wall_segments_kept(&s->edges, cs, self.pos, wall_range(s, i),
                                      pr->seg, GC_ORCA_MAX_SEGMENTS,
                                      &s->walls[i], &seg);
    gc_orca_report rep;
    int rc;
    if (s->cfg.avoid == GC_AVOID_ORCA_ADAPTIVE) {
        rc = gc_orca_velocity_adaptive(op, &self, pref, vmax, nb, n, seg, m, v,
                                       &rep, &s->body[i].horizon_step);
    } else if (mg < MARGIN) {
        rc = squeeze_velocity(op, &self, pref, vmax, nb, n, seg, m, v, &rep);
    } else {
        pr->self = self;
        pr->pref = pref;
        pr->max_speed = vmax;
        pr->n_nb = n;
        pr->over = over; /* (so the solver need not test them again) */
        pr->over_known = gc_sim_crowd_overlaps_known;
        rc = gc_orca_program_walls(op, pr, seg, m);
        if (rc == GC_OK)
            return true; /* (its lines made with its group's) */
    }
    if (rc != GC_OK)
        *v = pref;
    contact_unless(s, i, rc == GC_OK && rep.feasible);
    return false;
}

/*
 * Separation, as DetourCrowd handles collisions after its integration:
 * ORCA's answer is only as good as its linear program, which in a crush
 * denser than its neighbours allow is infeasible, and then bodies
 * overlap (circle 10,000's centre: 38% of 2r deep before this, 13% with
 * it).  Each agent moves itself by half of each overlap deeper than
 * SEP_FROM of the two radii that it has with its neighbours at the
 * start-of-tick positions, away from them (the other half is the
 * neighbour's own push, by the same rule), at most SEP_MAX radii a tick.
 * Shallower overlaps, which ORCA's margin resolves on its own, are left
 * alone: pushing them broke the corridor's lanes (all arrived after 346 s
 * instead of 183).  Two bodies on one point part as
 * avoid() sees them: the higher index to the right.  A function of the
 * start-of-tick arrays and the agent's own neighbour list, so the thread
 * count still changes nothing.
 */
static gc_vec2
separation(const gc_sim *s, uint32_t i, const uint32_t *ids, const float *d2,
           size_t n)
{
    float r = gc_sim_body_radius(s, i);
    float px = s->now[i].x, py = s->now[i].y, sx = 0.0f, sy = 0.0f;
    /* Nearest first: past the widest pair's reach (no body is wider
     * than rmax) none can overlap, and the loop ends there. */
    float reach = (r + s->rmax) * (1.0f - SEP_FROM);
    for (size_t k = 0; k < n && d2[k] < reach * reach; k++) {
        float sum = (r + s->now[ids[k]].r) * (1.0f - SEP_FROM);
        if (d2[k] >= sum * sum)
            continue;
        float d = sqrtf(d2[k]), ux, uy = 0.0f;
        if (d > 1e-6f * sum) {
            ux = (px - s->now[ids[k]].x) / d;
            uy = (py - s->now[ids[k]].y) / d;
        } else {
            ux = gc_sim_id_of(s, ids[k]) < gc_sim_id_of(s, i) ? 1.0f : -1.0f;
        }
        float h = 0.5f * (sum - d);
        sx += ux * h;
        sy += uy * h;
    }
    float l2 = sx * sx + sy * sy, most = SEP_MAX * r;
    if (l2 > most * most) {
        float f = most / sqrtf(l2);
        sx *= f;
        sy *= f;
    }
    return (gc_vec2){sx, sy};
}

/* Move at v, then by the push (separation()), each clamped against the
 * walls.  The velocity kept is the move's: a push is not a walk, and
 * ORCA reads velocities as intentions.  Returns the distance walked (the
 * move at v, clamped; without the push), which the figures count. */
static float
move(gc_sim *s, uint32_t i, const struct gc_sim_spot *at, gc_vec2 v,
     gc_vec2 push, gc_vec2 *face)
{
    gc_agent *a = &s->agents[i];
    gc_sim_body *b = &s->body[i];
    float r = gc_sim_body_radius(s, i), cs = s->grid->cell_size;
    const float tol = GC_SIM_WALL_TOL * cs;

    gc_vec2 from = a->pos;
    gc_vec2 to = {from.x + v.x * s->dt, from.y + v.y * s->dt};
    float step = sqrtf(v.x * v.x + v.y * v.y) * s->dt;
    if (at->room_wall <= r + step)
        to = gc_sim_clamp_move(s->grid, from, to, r, tol);
    float mx = to.x - from.x, my = to.y - from.y;
    b->vx = mx / s->dt;
    b->vy = my / s->dt;
    float walked = sqrtf(mx * mx + my * my);
    /* The heading is the move's, set once the chunk has moved
     * (gc_sim_crowd_step_chunk: (0, 0) for none).  With a turn rate it is the
     * turned one (turn_then_go), not the direction ORCA's side-steps happened
     * to take. */
    bool faces = walked > 1e-6f * cs && !(s->slot[i].turn_rate > 0.0f);
    *face = faces ? (gc_vec2){mx, my} : (gc_vec2){0.0f, 0.0f};
    if (push.x != 0.0f || push.y != 0.0f) {
        gc_vec2 p = {to.x + push.x, to.y + push.y};
        float pl = sqrtf(push.x * push.x + push.y * push.y);
        to = at->room_wall <= r + step + pl
                 ? gc_sim_clamp_move(s->grid, to, p, r, tol)
                 : p;
        mx = to.x - from.x;
        my = to.y - from.y;
    }
    a->pos = to;
    float moved = sqrtf(mx * mx + my * my);
    a->travelled += moved;
    return walked;
}

/* After the move to a->pos (having walked `walked` of it): the figures'
 * speed sums, progress (the stall clock) and arrival.  The goal
 * bookkeeping, which RVO2's step leaves to its caller too (its examples
 * check for goals between steps). */
static void
progress(gc_sim_worker *w, uint32_t i, float walked, uint64_t now,
         double *speed_sum, double *pref_sum)
{
    gc_sim *s = w->sim;
    gc_agent *a = &s->agents[i];
    gc_sim_body *b = &s->body[i];
    float r = gc_sim_body_radius(s, i), cs = s->grid->cell_size;
    gc_vec2 to = a->pos;
    if (a->state != GC_AGENT_MOVING || a->wp_next >= a->wp_len)
        return;
    *speed_sum += walked / s->dt;
    *pref_sum += a->speed;
    gc_vec2 t = a->wp[a->wp_next];
    float dx = t.x - to.x, dy = t.y - to.y;
    float d = sqrtf(dx * dx + dy * dy);
    float rem = gc_sim_crowd_remaining(s, i, to);
    if (rem < b->best_rem - PROGRESS * cs) {
        b->best_rem = rem;
        b->progress_tick = now;
    }
    /* Arrival: near the last waypoint, within the arrival radius or the
     * body's radius, whichever is larger (a crowd cannot put every centre
     * on one point). */
    float arrive =
        s->cfg.motion.arrive_radius > r ? s->cfg.motion.arrive_radius : r;
    /* Or near it (NEAR_GOAL cells) for NEAR_TIME seconds: the crowd
     * already standing on and around the goal lets it come no nearer,
     * and pushing on would only shove them. */
    gc_vec2 gl = b->end; /* a->wp[a->wp_len - 1] */
    float dgx = gl.x - to.x, dgy = gl.y - to.y;
    float near = NEAR_GOAL * cs + r;
    if (dgx * dgx + dgy * dgy > near * near)
        b->near_tick = 0;
    else if (b->near_tick == 0)
        b->near_tick = now;
    bool held =
        b->near_tick != 0 && (float)(now - b->near_tick) * s->dt >= NEAR_TIME;
    /* Or, further out, held back behind agents that already arrived
     * around the goal (they keep their own spots) for NEAR_TIME s:
     * within 3 NEAR_GOAL cells and three bodies across (bodies wider
     * than a cell, as in RVO2's Circle, ring a goal further out). */
    float far = 3.0f * NEAR_GOAL * cs + 6.0f * r;
    if (dgx * dgx + dgy * dgy <= far * far &&
        (float)(now - b->progress_tick) * s->dt >= NEAR_TIME)
        held = true;
    if ((a->wp_next + 1 == a->wp_len && d <= arrive) || held) {
        b->near_tick = 0;
        a->wp_next = a->wp_len;
        a->state = GC_AGENT_ARRIVED;
        b->progress_tick = now;
        gc_sim_on_arrival(s, w, i);
    }
}

/*
 * The worker's agents, a chunk at a time, in four passes, so that the
 * avoidance step can be timed apart from steering, goals and the figures
 * (the figure to hold against RVO2's step, which takes preferred
 * velocities as given and leaves goals to its caller): find each agent's
 * neighbours (and where it stands); measure the figures and steer; avoid
 * and move; progress and arrival.  Every pass reads only the
 * start-of-tick arrays and writes only the agent's own record, and each
 * agent still runs its phases in the order they always ran, so the split
 * changes no position.  The neighbour lists live in the worker's scratch
 * (gc_sim_crowd_scratch).  A chunk is the live agents of a run of one or
 * two half blocks (GC_SIM_HALF slots each), as the workers take them
 * (gc_sim_crowd_step): the float sums of each half are its own.
 */

/* Neighbour distance: widened only once a larger body exists, so the
 * common case keeps the exact distance it always had. */
static float
neighbour_dist(const gc_sim *s)
{
    const gc_orca_params *op = &s->orca;
    return s->rmax > op->radius ? op->neighbour_dist + s->rmax - op->radius
                                : op->neighbour_dist;
}

/* Agents who[0 .. m): neighbours and spots; steering; avoidance and
 * motion.  Adds the first and last passes' time to *avoid_ns.  The float
 * sums of who[0 .. split) go to the scratch's first, of the rest to its
 * second. */
void
gc_sim_crowd_step_chunk(gc_sim_worker *w, gc_sim_crowd_scratch *c, uint32_t m,
                        uint32_t split, uint64_t *avoid_ns)
{
    gc_sim *s = w->sim;
    const size_t k = (size_t)s->orca.max_neighbours;
    const float nd = neighbour_dist(s);
    uint64_t now = s->ticks + 1; /* this tick */
    uint64_t t0 = gc_clock_ns();
    /* The cells first, and the clearance bytes spot_at() will read of
     * them fetched meanwhile, for the agents that have left the cell
     * whose bytes they keep (with 100,000 agents on a large map each
     * was a miss, two fifths of this pass's time outside the lists). */
    const gc_nav *wn = s->wnav != NULL ? s->wnav : s->nav;
    for (uint32_t j = 0; j < m; j++) {
        uint32_t i = c->who[j];
        gc_cell cell =
            gc_grid_cell_of(s->grid, (gc_vec2){s->now[i].x, s->now[i].y});
        c->at[j].cell = cell;
        if (gc_sim_spot_moved(&s->spot_kept[i], s->clear_gen, cell))
            continue;
        gc_nav_clear_prefetch(wn, cell);
        if (wn != s->nav)
            gc_nav_clear_prefetch(s->nav, cell);
    }
    for (uint32_t j = 0; j < m; j++) {
        uint32_t i = c->who[j];
        gc_vec2 p0 = {s->now[i].x, s->now[i].y};
        c->n[j] = (uint32_t)gc_sim_crowd_neighbours(
            s, i, p0, k, nd, c->ids + j * k, c->d2 + j * k);
        c->at[j] = spot_at(s, i, c->at[j].cell, wall_range(s, i));
        /* The walls it kept, read two passes on (with 100,000 agents a
         * miss each, when not fetched now). */
        if (c->at[j].walls) {
            __builtin_prefetch(&s->walls[i]);
            __builtin_prefetch((const char *)&s->walls[i] + 64);
        }
    }
    uint64_t t1 = gc_clock_ns();
    for (uint32_t j = 0; j < m; j++) {
        uint32_t i = c->who[j];
        /* The next waypoint steering will read four agents on: each
         * agent's path is its own allocation, and with 100,000 agents
         * its load was a miss, a third of steering's samples (open
         * ground, batch: 0.2 ms less a tick outside avoidance). */
        if (j + 4 < m) {
            const gc_agent *ahead = &s->agents[c->who[j + 4]];
            if (gc_agent_remaining(ahead) > 0)
                __builtin_prefetch(&ahead->wp[ahead->wp_next]);
        }
        const uint32_t *ids = c->ids + j * k;
        const float *d2 = c->d2 + j * k;
        measure(w, i, &c->at[j], ids, d2, c->n[j], k);
        c->go[j] = s->agents[i].state != GC_AGENT_STUCK;
        if (!c->go[j]) {
            s->body[i].vx = s->body[i].vy = 0.0f;
            continue;
        }
        c->pref[j] = gc_sim_crowd_follow(
            s, i,
            gc_sim_crowd_turn(
                s, i,
                gc_sim_crowd_steer(s, i, &c->at[j], now, ids, d2, c->n[j]),
                now),
            ids, d2, c->n[j]);
    }
    uint64_t t2 = gc_clock_ns();
    /* A group of agents at a time: the default model's programs of the
     * group answered together, in lanes, then each agent moved. */
    uint32_t faced = 0;
    for (uint32_t j0 = 0; j0 < m; j0 += GC_ORCA_LANES_MAX) {
        uint32_t j1 = m - j0 > GC_ORCA_LANES_MAX ? j0 + GC_ORCA_LANES_MAX : m;
        uint32_t wj[GC_ORCA_LANES_MAX]; /* whose program is c->prog[q] */
        size_t q = 0;
        for (uint32_t j = j0; j < j1; j++) {
            if (!c->go[j])
                continue;
            if (avoid(s, c->who[j], &c->at[j], c->pref[j], c->ids + j * k,
                      c->d2 + j * k, c->n[j], now, &c->prog[q], &c->v[j])) {
                wj[q++] = j;
            }
        }
        gc_orca_programs_lines(c->prog, q);
        gc_orca_programs_solve(c->prog, q);
        for (size_t l = 0; l < q; l++) {
            c->v[wj[l]] = c->prog[l].out;
            contact_unless(s, c->who[wj[l]], c->prog[l].feasible);
        }
        for (uint32_t j = j0; j < j1; j++) {
            if (!c->go[j])
                continue;
            uint32_t i = c->who[j];
            const uint32_t *ids = c->ids + j * k;
            const float *d2 = c->d2 + j * k;
            gc_vec2 face;
            c->walked[j] = move(s, i, &c->at[j], c->v[j],
                                separation(s, i, ids, d2, c->n[j]), &face);
            if (face.x != 0.0f || face.y != 0.0f) {
                c->face_j[faced] = j;
                c->face_x[faced] = face.x;
                c->face_y[faced++] = face.y;
            }
            float mx = s->agents[i].pos.x - s->now[i].x;
            float my = s->agents[i].pos.y - s->now[i].y;
            float m2 = mx * mx + my * my;
            if (m2 > w->tick_moved2)
                w->tick_moved2 = m2;
            if (s->flags[i] & GC_SIM_F_CONTACT) {
                float sl = gc_sim_crowd_contact_slack(s, i, d2, c->n[j], m2);
                s->contact_slack[i] = sl;
                float *least = &c->contact_least[j >= split];
                *least = sl < *least ? sl : *least;
            }
        }
    }
    /* The headings of the chunk's moves, in lanes (each one's chain of
     * dependent operations, a tenth of open ground's step, overlaps with
     * the others'). */
    gc_sim_headings(c->face_x, c->face_y, c->face_h, faced);
    for (uint32_t q = 0; q < faced; q++)
        s->agents[c->who[c->face_j[q]]].heading = c->face_h[q];
    *avoid_ns += (t1 - t0) + (gc_clock_ns() - t2);
    for (uint32_t j = 0; j < m; j++)
        if (c->go[j])
            progress(w, c->who[j], c->walked[j], now, &c->speed_sum[j >= split],
                     &c->pref_sum[j >= split]);
}
