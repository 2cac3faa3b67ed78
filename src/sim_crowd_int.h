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
};

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

/* The slots of block b flagged `flag` (when blk[b] says any are), into
 * out in slot order, their flags and blk[b] cleared (sim-crowd-contact.c).
 * Returns how many. */
uint32_t gc_sim_take_flagged(gc_sim *s, uint8_t *blk, uint32_t b, uint8_t flag,
                             uint32_t *out);

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

#endif
