/*
 * sim_crowd_int.h: what the parts of the crowd step share: sim-crowd.c
 * (the tick: avoidance, motion, figures), sim-crowd-near.c (each agent's
 * neighbours), sim-crowd-steer.c (preferred velocities along the path,
 * progress, the deadlock rules, turning) and sim-crowd-contact.c (the
 * contacts pass after the tick).  Included only by those.
 */
#ifndef GRIDCROWD_SIM_CROWD_INT_H
#define GRIDCROWD_SIM_CROWD_INT_H

#include "sim_int.h"

#include <math.h>

#define MARGIN 1.1f /* avoidance sees bodies this much larger */

/*
 * Where an agent stands as its tick starts, looked up once: every phase
 * (the wall figure, steering, the wall scan, the clamp) asks the clearance
 * at that same point.  The compact map's lower bound (gc_nav_clear_low):
 * each use only decides whether to skip work that would find nothing
 * (an exact check, a scan, a clamp), so a bound a little low costs a
 * little work and changes no answer.  room: as gc_sim_wall_room there, in
 * the walls' grid (wall) and in the planning grid (plan).
 */
struct gc_sim_spot {
    gc_cell cell;
    float clear_wall; /* at most gc_nav_clearance, cells */
    float room_wall, room_plan;
    bool walls; /* walls may lie within ORCA's range of it (unless the
                   clearance says none do): avoid() scans for them, and
                   the first pass prefetches what it kept of them */
};

/* k := the clearance bytes of `cell` in the walls' map wn and the
 * planning grid's pn, maps of generation gen. */
static inline void
gc_sim_spot_read(gc_sim_spot_kept *k, uint32_t gen, const gc_nav *wn,
                 const gc_nav *pn, gc_cell cell)
{
    k->x = cell.x;
    k->y = cell.y;
    k->gen = gen;
    k->wall4 = gc_nav_clear4(wn, cell);
    k->plan4 = wn == pn ? k->wall4 : gc_nav_clear4(pn, cell);
}

/*
 * The agent whose bytes k are has moved to `cell` (maps of generation
 * gen): keep bounds for it without reading the maps when it can, and say
 * whether it did.  The clearance is the exact distance from a cell's
 * centre to the nearest blocked cell's (less half a cell), which changes
 * by at most the distance between two centres: 1 cell, or sqrt 2
 * diagonally, 4 or 5.66 quarter cells, so a byte (floor of 4 clearance,
 * at most the clearance) less 5 or 6 bounds the next cell's from below,
 * with room to spare for the float rounding.  Only far from walls
 * (GC_SIM_SPOT_DERIVE cells and more after the step): a bound too low to
 * skip the work its uses skip (the wall scan within a couple of cells,
 * steering's visibility check, about 26 cells: gc_sim_visible_fast) would
 * cost more than the read.
 */
#define GC_SIM_SPOT_DERIVE 28 /* cells */
static inline bool
gc_sim_spot_moved(gc_sim_spot_kept *k, uint32_t gen, gc_cell cell)
{
    if (k->gen != gen)
        return false;
    int32_t dx = cell.x - k->x, dy = cell.y - k->y;
    if (dx == 0 && dy == 0)
        return true;
    if (dx < -1 || dx > 1 || dy < -1 || dy > 1)
        return false;
    int drop = dx != 0 && dy != 0 ? 6 : 5;
    if (k->wall4 < 4 * GC_SIM_SPOT_DERIVE + drop ||
        k->plan4 < 4 * GC_SIM_SPOT_DERIVE + drop)
        return false;
    k->wall4 = (uint8_t)(k->wall4 - drop);
    k->plan4 = (uint8_t)(k->plan4 - drop);
    k->x = cell.x;
    k->y = cell.y;
    return true;
}

/* gc_sim_heading_of's polynomial Q (its coefficients, highest first) and
 * its reflections' angles, shared with the step's lanes
 * (sim-crowd-heading.c). */
#define GC_SIM_ATAN_Q_LEN 7
static const float gc_sim_atan_q[GC_SIM_ATAN_Q_LEN] = {
    -4.355309709e-03f, 2.303978732e-02f, -5.777308938e-02f, 9.794198632e-02f,
    -1.397656875e-01f, 1.996270160e-01f, -3.333165888e-01f,
};
#define GC_SIM_HALF_PI 1.57079637f
#define GC_SIM_PI 3.14159274f

/*
 * atan2f(dy, dx) of a move (dx, dy) not (0, 0), within 3.5e-7 rad of
 * the exact angle (libm's atan2f: 2.6e-7; tests/test_crowd.c measures
 * both): the heading the crowd step writes for every agent that moved,
 * every tick.  libm's atan2f, with its special cases, took 8% of circle
 * 1,000's avoidance step; this is one division and a polynomial, without
 * a branch.  atan(a) for a = min / max in [0, 1] is a + a^3 Q(a^2), Q a
 * near-minimax fit of degree 6 (scripts/atan-fit.py made it), then
 * reflected into the octant of (dx, dy).  Only headings use it: where an
 * angle steers (turn rates), libm's atan2f stays, and no position
 * changes.  (0, 0) goes to atan2f.
 */

static inline float
gc_sim_heading_of(float dx, float dy)
{
    float ax = fabsf(dx), ay = fabsf(dy);
    float hi = ax > ay ? ax : ay, lo = ax > ay ? ay : ax;
    if (!(hi > 0.0f))
        return atan2f(dy, dx);
    float a = lo / hi, t = a * a;
    float q = gc_sim_atan_q[0];
    for (int k = 1; k < GC_SIM_ATAN_Q_LEN; k++)
        q = q * t + gc_sim_atan_q[k];
    float r = a + a * t * q;
    r = ay > ax ? GC_SIM_HALF_PI - r : r;
    r = dx < 0.0f ? GC_SIM_PI - r : r;
    return copysignf(r, dy);
}

/* out[j] = gc_sim_heading_of(dx[j], dy[j]) for j < n, none of them
 * (0, 0): the same floats, four at a time in SSE2 lanes where the CPU
 * has them (sim-crowd-heading.c). */
void gc_sim_headings(const float *dx, const float *dy, float *out, size_t n);

/*
 * The neighbours nb[0 .. n) whose bits are set in `over` (those whose
 * bodies already overlap the agent's: gc_orca_overlapping) first, then
 * the others, each part in its order (sim-crowd.c).  When a program is
 * infeasible and bodies overlap, the solver takes their lines first
 * (gc_orca_velocity); made in that order, its first pass over the lines
 * is already that one, and it does not take them twice (in circle 1,000
 * half the programs are infeasible, most of those with an overlap, and
 * the second pass was a twentieth of the run).  Neighbours come nearest
 * first, so with equal radii the overlapping ones lead already; this
 * puts them there when radii differ.  A feasible program's answer is
 * the same optimum in any order, to rounding.  Returns the overlapping
 * ones' bits in the new order (the lowest popcount(over)), which the
 * crowd hands the solver (gc_orca_program's over) so that it need not
 * test them again.
 */
uint64_t gc_sim_crowd_overlaps_first(gc_orca_agent *nb, size_t n,
                                     uint64_t over);

/* Whether the crowd hands the solver the overlaps it found (true; the
 * tests compare runs with it false, the solver testing them itself). */
extern bool gc_sim_crowd_overlaps_known;

/* gc_orca_grid_nearest of agent i (its own bucket entry excluded), in
 * slots (sim-crowd-near.c). */
size_t gc_sim_crowd_nearest(const gc_sim *s, gc_vec2 q, uint32_t i, size_t k,
                            float dist, uint32_t *ids, float *d2);

/* The same answer for agent i at its start-of-tick position q, from its
 * candidate list where the list vouches for it (sim-crowd-near.c); also
 * records it as the agent's last neighbours (nbr). */
size_t gc_sim_crowd_neighbours(gc_sim *s, uint32_t i, gc_vec2 q, size_t k,
                               float nd, uint32_t *ids, float *d2);

/* The walk left to agent i from p along its path. */
float gc_sim_crowd_remaining(gc_sim *s, uint32_t i, gc_vec2 p);

/* Agent i's preferred velocity, with the deadlock rules; may send it to
 * plan again.  ids, nd2: its n nearest neighbours (squared distances). */
gc_vec2 gc_sim_crowd_steer(gc_sim *s, uint32_t i, const struct gc_sim_spot *at,
                           uint64_t now, const uint32_t *ids, const float *nd2,
                           size_t n);

/* q, agent i's preference pref turned, unless q heads into a wall: then
 * pref. */
gc_vec2 gc_sim_crowd_unwalled(const gc_sim *s, uint32_t i,
                              const struct gc_sim_spot *at, gc_vec2 pref,
                              gc_vec2 q);

/* The margin avoidance keeps round agent i's body and its neighbours'
 * this tick: MARGIN, less while a pinned wanderer squeezes (a deadlock
 * rule).  Call once a tick: it updates the agent's squeeze. */
float gc_sim_crowd_margin(gc_sim *s, uint32_t i, uint64_t now);

/* Turn then go (an agent with a turn rate): the preference handed on. */
gc_vec2 gc_sim_crowd_turn(gc_sim *s, uint32_t i, gc_vec2 pref, uint64_t now);

/* The contacts pass, after the tick, on the loop's thread
 * (sim-crowd-contact.c). */
void gc_sim_crowd_contacts(gc_sim *s);

/* Agent i's contact_slack (sim_int.h), from its neighbours' squared
 * distances d2[0 .. n) as the tick started, nearest first, and its own
 * move this tick, squared. */
float gc_sim_crowd_contact_slack(const gc_sim *s, uint32_t i, const float *d2,
                                 size_t n, float moved2);

/* Following (cfg.time_gap): pref slowed to the gap ahead over the time
 * gap.  ids, nd2: the n nearest neighbours (squared distances). */
gc_vec2 gc_sim_crowd_follow(const gc_sim *s, uint32_t i, gc_vec2 pref,
                            const uint32_t *ids, const float *nd2, size_t n);

/* A worker's scratch for the crowd step: the chunk's agents, their
 * neighbour lists and what each pass hands the next (sim-crowd.c), the
 * run's halves' sums, and the runs put aside (sim-crowd-share.c). */
struct gc_sim_crowd_scratch {
    uint32_t who[GC_SIM_CHUNK];
    uint32_t n[GC_SIM_CHUNK];
    struct gc_sim_spot at[GC_SIM_CHUNK];
    gc_vec2 pref[GC_SIM_CHUNK];
    gc_vec2 v[GC_SIM_CHUNK]; /* the velocities avoidance chose */
    float walked[GC_SIM_CHUNK];
    /* The moves that set a heading (move()), as slot j and (x, y), and
     * their headings. */
    uint32_t face_j[GC_SIM_CHUNK];
    float face_x[GC_SIM_CHUNK], face_y[GC_SIM_CHUNK], face_h[GC_SIM_CHUNK];
    bool go[GC_SIM_CHUNK];
    double speed_sum[2], pref_sum[2]; /* the run's halves' */
    float contact_least[2];           /* the halves' blk_contact (sim_int.h) */
    uint32_t *later; /* runs put aside in this tick (owned): 2u + len - 1 */
    gc_orca_program
        prog[GC_ORCA_LANES_MAX]; /* a group's (gc_sim_crowd_step_chunk) */
    uint32_t ids[GC_SIM_CHUNK * GC_ORCA_MAX_NEIGHBOURS];
    float d2[GC_SIM_CHUNK * GC_ORCA_MAX_NEIGHBOURS];
};

/* Agents c->who[0 .. m) through the step's passes (sim-crowd.c): the
 * float sums of who[0 .. split) to the scratch's first, the rest to its
 * second; the first and last passes' time added to *avoid_ns. */
void gc_sim_crowd_step_chunk(gc_sim_worker *w, gc_sim_crowd_scratch *c,
                             uint32_t m, uint32_t split, uint64_t *avoid_ns);

#endif
