/*
 * gridcrowd/agent.h: one agent's state and motion.
 *
 * An agent walks a list of waypoints (world positions, cell centres of its
 * planned path) at a fixed speed.  Each tick it covers exactly speed * dt
 * along the polyline: it passes intermediate waypoints exactly and carries
 * the rest of the tick's distance onto the next segment, so it never leaves
 * the segments of a legal path and therefore never enters an impassable
 * cell.  It has arrived when it is within the arrival radius of the last
 * waypoint.  Its heading is atan2(dy, dx) of the direction of travel
 * (radians, world y grows downwards), turned at most turn_rate * dt per tick
 * when a turn rate is set.
 *
 * The agent owns its waypoint buffer; the buffer grows to fit the longest
 * path the agent has had and is then reused.  Agents are not thread-safe:
 * each is updated by the one simulation thread that owns it.
 */
#ifndef GRIDCROWD_AGENT_H
#define GRIDCROWD_AGENT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <gridcrowd/common.h>
#include <gridcrowd/astar.h>
#include <gridcrowd/error.h>
#include <gridcrowd/grid.h>

GC_BEGIN_DECLS

/* Agent states: the vocabulary shared by the daemon, the world snapshot
 * (one byte per agent) and every reader. */
typedef enum gc_agent_state {
    GC_AGENT_IDLE = 0,        /* no goal */
    GC_AGENT_WAITING = 1,     /* has a goal, waiting for a path */
    GC_AGENT_MOVING = 2,      /* following a path */
    GC_AGENT_ARRIVED = 3,     /* reached its goal */
    GC_AGENT_STUCK = 4,       /* walled in: no passable cell reachable */
    GC_AGENT_UNREACHABLE = 5, /* its goal cannot be reached */
    GC_AGENT_NSTATES = 6
} gc_agent_state;

/* "idle", "waiting", "moving", "arrived", "stuck", "unreachable";
 * "unknown" for anything else. */
const char *gc_agent_state_name(int state);

typedef struct gc_agent_params {
    float speed;         /* world units per second, > 0 */
    float arrive_radius; /* world units, >= 0 */
    float turn_rate;     /* radians per second; 0 turns at once */
} gc_agent_params;

typedef struct gc_agent {
    gc_vec2 pos;      /* world position */
    float heading;    /* radians, atan2(dy, dx) */
    uint8_t state;    /* gc_agent_state */
    gc_cell goal;     /* goal cell (valid unless IDLE) */
    gc_vec2 *wp;      /* waypoints, owned */
    uint32_t wp_len;  /* waypoints in wp */
    uint32_t wp_next; /* index of the waypoint being walked to */
    uint32_t wp_cap;  /* capacity of wp */
    double travelled; /* world units walked since creation */
    /* The agent's own body radius (world units, 0: a point) and speed
     * (world units per second, > 0).  A simulation fills both with its
     * defaults and changes them only between ticks (gc_sim_set_radius,
     * gc_sim_set_speed); gc_agent_init sets them to 0. */
    float radius;
    float speed;
} gc_agent;

/* Start an agent at `pos`, facing `heading`, idle, with no waypoints. */
void gc_agent_init(gc_agent *a, gc_vec2 pos, float heading);

/* Free the waypoint buffer (the agent is left idle and empty). */
void gc_agent_release(gc_agent *a);

/*
 * Give the agent the path `p` (cells, start first) as waypoints at the
 * centres of its cells on `g`, and set it MOVING towards its last cell.  The
 * first cell, where the agent stands, is skipped when the agent is already
 * at its centre.  A one-cell path leaves a single waypoint.  GC_EINVAL for
 * an empty path, GC_ENOMEM (the agent keeps its old path then).
 */
int gc_agent_set_path(gc_agent *a, const gc_grid *g, const gc_path *p);

/* Forget the waypoints (state unchanged). */
void gc_agent_clear_path(gc_agent *a);

/* Number of waypoints still ahead, the one being walked to included. */
static inline uint32_t
gc_agent_remaining(const gc_agent *a)
{
    return a->wp_len - a->wp_next;
}

/*
 * Advance a MOVING agent by dt seconds under `pr`.  Returns true when the
 * agent arrived during this step (its state is then ARRIVED; it stops where
 * it is, on the last waypoint or within the arrival radius of it).  Agents
 * in any other state do not move.
 */
bool gc_agent_step(gc_agent *a, float dt, const gc_agent_params *pr);

/* Heading turned from `from` towards `to` by at most `max_turn` radians
 * (any max_turn <= 0 turns at once), the result in (-pi, pi]. */
float gc_heading_turn(float from, float to, float max_turn);

/* Turn then go: the share of its speed an agent heading `heading` moves at
 * towards direction `want` (radians): the cosine of the angle between
 * them, 0 when that is 90 degrees or more (it turns in place first).
 * Path followers and the crowd both use it. */
float gc_heading_go(float heading, float want);

GC_END_DECLS
#endif
