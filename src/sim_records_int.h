/*
 * sim_records_int.h: the records the simulation keeps beside each agent
 * and each worker (sim_int.h's struct gc_sim holds arrays of them): the
 * per-agent flags and goal kinds, the slot's bookkeeping, the counters,
 * an agent's crowd state, its kept sight, walls and clearance bytes, its
 * start-of-tick record, the worker, the wall edges, the blocks the work
 * goes by, and the renumbering's state.  Who writes each and when is
 * said beside it.
 */
#ifndef GRIDCROWD_SIM_RECORDS_INT_H
#define GRIDCROWD_SIM_RECORDS_INT_H

#include <gridcrowd/sim.h>
#include <gridcrowd/util.h>

#include "astar_int.h" /* gc_astar, gc_path */
#include "orca_int.h"  /* gc_orca_segment */

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Per-agent flags beside gc_agent (s->flags[i]): written by the loop
 * between ticks and by the agent's own worker during a tick. */
enum {
    GC_SIM_F_QUEUED = 1u << 0,  /* on its worker's plan queue */
    GC_SIM_F_PARTIAL = 1u << 1, /* walking a partial path: unreachable on
                                   arrival */
    GC_SIM_F_REPLAN = 1u << 2,  /* queued because the grid changed */
    GC_SIM_F_FREE = 1u << 3,    /* the slot holds no agent */
    GC_SIM_F_REUSE = 1u << 4,   /* a follower waiting for a plan that may
                                   keep its waypoints (still held) and
                                   search only from near their end */
    GC_SIM_F_ASK = 1u << 5,     /* asked for a plan in the crowd step:
                                   queued by the loop after the tick */
    GC_SIM_F_FLOW = 1u << 6,    /* a blocked wanderer's goal the way the
                                   crowd goes: planned on the planning
                                   grid, not round jams (sim-jam.c) */
    GC_SIM_F_CONTACT = 1u << 7  /* its ORCA program was infeasible in the
                                   crowd step: its contacts are checked
                                   after the tick (blk_contact) */
};

/* What an agent's goal is (s->slot[i].goal_kind). */
enum {
    GC_SIM_GOAL_NONE = 0,   /* idle: stop */
    GC_SIM_GOAL_POINT = 1,  /* a cell someone set (point, scen, spawn) */
    GC_SIM_GOAL_WANDER = 2, /* random cells of its own component */
    GC_SIM_GOAL_FOLLOW = 3  /* another agent (slot.target) */
};

/*
 * Per-slot bookkeeping of agents driven from outside (sim-agents.c):
 * written only by the loop between ticks (spawn, remove, goals, the
 * follow update before each tick); goal_kind is read by the slot's worker
 * during a tick, and so are turn_rate and wander_cells.
 */
typedef struct gc_sim_slot {
    uint32_t salt;        /* generation of the slot, 1 .. GC_AGENT_SALT_MAX */
    uint32_t group;       /* as spawned */
    uint32_t target;      /* GOAL_FOLLOW: the handle followed */
    float stop_dist;      /* GOAL_FOLLOW: stop this near (world units) */
    gc_cell goal;         /* GOAL_POINT, GOAL_FOLLOW: the cell asked for
                             (gc_agent.goal becomes the end of a partial
                             path; this is what the next plan aims at) */
    uint8_t goal_kind;    /* GC_SIM_GOAL_* */
    uint64_t follow_tick; /* GOAL_FOLLOW: s->ticks at its last plan */
    /* The agent's own motion profile, read by its worker during a tick
     * (motion, wander goals): turn rate in radians per second (0: at
     * once) and wander radius in cells (0: anywhere reachable). */
    float turn_rate;
    uint32_t wander_cells;
} gc_sim_slot;

typedef struct gc_sim_counters {
    uint64_t searches, expanded, arrivals, replans;
    /* Follow plans: joined onto the kept path, or searched in full. */
    uint64_t follow_reused, follow_full;
    /* Time of the searches and of smoothing their paths, apart: smoothing
     * can cost several times the search it follows. */
    uint64_t search_ns_sum, smooth_ns_sum;
    /* From a grid change stopping an agent to its new plan. */
    uint64_t replan_ticks_max, replan_ns_sum, replan_ns_max;
    /* Bodies (sim-crowd.c): summed over ticks, maxima over ticks. */
    uint64_t overlaps, overlaps_max, in_wall, avoid_ns;
    float depth_max; /* fraction of 2r */
    double speed_sum, pref_sum;
} gc_sim_counters;

/* An agent's last proof that it could see a waypoint, good while it stays
 * near where it stood (gc_sim_visible_kept). */
typedef struct gc_sim_sight {
    gc_vec2 at;   /* where it stood */
    gc_vec2 wp;   /* the waypoint it saw */
    float cap;    /* the length its check covers at most (walk_cap) */
    uint32_t gen; /* the clearance maps' generation (gc_sim.clear_gen; 0:
                     none kept) */
} gc_sim_sight;

/*
 * One agent's crowd state (avoid ORCA), beside gc_agent: written by its
 * own worker during a tick (and by plan() in that worker), read by the
 * loop between ticks.
 */
typedef struct gc_sim_body {
    float vx, vy;           /* velocity chosen this tick */
    float best_rem;         /* shortest remaining walk seen on this path */
    float suffix;           /* walk from waypoint suffix_wp to the end */
    uint32_t suffix_wp;     /* UINT32_MAX: suffix to be computed */
    uint64_t progress_tick; /* last tick it made progress */
    uint64_t near_tick;     /* first tick of its current stay near its
                               goal (0: not near) */
    float squeeze;          /* 0 to 1: how far its margin has shrunk
                               (sim-crowd-steer.c, squeezing) */
    int horizon_step;       /* ORCA's horizon last tick, in steps of
                               GC_ORCA_SHORTEN (0: its own): where this
                               tick's search starts */
    gc_vec2 end;            /* the path's last waypoint, as the path was
                               set (gc_sim_body_reset): read every tick,
                               where the path's own is a cache miss */
    gc_sim_sight sight;     /* steering's last proof of sight */
} gc_sim_body;

/* One worker thread.  Everything in it is written by that worker during a
 * tick and by the loop only between ticks (stats, queues on a change). */
/* A worker's scratch for the crowd step (sim-crowd.c): the neighbour lists
 * of a chunk of GC_SIM_CHUNK agents. */
#define GC_SIM_CHUNK 64

/* Blocks of GC_SIM_CHUNK slots (the unit workers own and share out):
 * how many cover n slots, and the end of the one from slot `first`. */
static inline size_t
gc_sim_blocks(size_t n)
{
    return (n + GC_SIM_CHUNK - 1) / GC_SIM_CHUNK;
}

static inline uint32_t
gc_sim_block_end(uint32_t first, uint32_t n)
{
    return n - first > GC_SIM_CHUNK ? first + GC_SIM_CHUNK : n;
}

/* Halves of blocks, the unit the crowd step's work is taken by
 * (gc_sim_crowd_step): how many cover n slots, and the end of the one
 * from slot `first`. */
#define GC_SIM_HALF (GC_SIM_CHUNK / 2)
static inline size_t
gc_sim_halves(size_t n)
{
    return (n + GC_SIM_HALF - 1) / GC_SIM_HALF;
}

static inline uint32_t
gc_sim_half_end(uint32_t first, uint32_t n)
{
    return n - first > GC_SIM_HALF ? first + GC_SIM_HALF : n;
}
typedef struct gc_sim_crowd_scratch gc_sim_crowd_scratch;
int gc_sim_crowd_scratch_new(gc_sim_crowd_scratch **out, uint32_t cap);
void gc_sim_crowd_scratch_free(gc_sim_crowd_scratch *c);

typedef struct gc_sim_worker {
    gc_sim *sim;
    int id;
    pthread_t thread;
    bool started;
    gc_astar *astar;
    gc_path path;
    gc_path keep, jpath; /* a follower's kept cells; its joint search */
    /* Plan queues: agent indices, FIFO rings of capacity = own agent count.
     * `urgent` holds agents stopped by a grid change: all of them are
     * served on the next tick, ahead of the budgeted `queue`.  qseq[k]
     * is queue[k]'s place in the order requests came in (gc_sim.plan_seq),
     * and quota how many of the queue's first the worker plans in this
     * tick (gc_sim_plan_quotas). */
    uint32_t *queue, *urgent;
    uint64_t *qseq;
    uint32_t qcap, qhead, qlen, uhead, ulen, quota;
    gc_sim_counters win, total;
    gc_hist hwin, htotal; /* search times (gridcrowd/util.h) */
    int error;            /* first gc_err a worker could not handle (ENOMEM) */
    /* This tick's overlapping pairs and avoidance time, summed and
     * maximised by the loop after the tick into workers[0].win. */
    uint64_t tick_overlaps, tick_avoid_ns;
    /* The furthest, squared, any agent it stepped moved in this tick
     * (for the contacts pass after the tick). */
    float tick_moved2;
    /* The crowd's copy, then its step: how many units of this worker's
     * share have been taken, by it or, once others are done with
     * theirs, by them (gc_sim_take). */
    atomic_size_t next;
    gc_sim_crowd_scratch *crowd; /* owned */
} gc_sim_worker;

/* The wall edges of a grid, for gc_sim_wall_segments (which boundaries
 * lie between an open and a blocked cell, and which side is open): built
 * for `grid` by the loop when avoidance starts and after every change,
 * read-only in ticks. */
typedef struct gc_sim_edges {
    int32_t w, h;
    uint8_t *hk, *vk;
    uint32_t gen; /* counts the builds: what a gc_sim_walls was made for */
} gc_sim_edges;

/*
 * One agent's last wall segments (gc_sim_wall_segments_kept): those of the
 * box of cells [x0, x1] x [y0, y1], from the edges of build `gen` (0:
 * none kept).  The segments are a function of the box alone, and an
 * agent walks a small part of a cell a tick, so its box is most ticks the
 * last one's: the scan of the edge map around every agent near a wall
 * (a seventh of the corridor's avoidance step) is then a comparison.  At
 * most GC_SIM_WALLS_KEPT segments are kept; more are scanned every tick.
 * Fourteen fill four cache lines: on the generated 1,024-cell town with
 * 100,000 agents a fifth of the calls had more than eight, and the scans
 * of those (each row of the edge map a miss) were most of the scans;
 * more than fourteen were 0.6% of the calls.
 * Agent i's worker's in the tick, as the agent.
 */
#define GC_SIM_WALLS_KEPT 14
typedef struct gc_sim_walls {
    int32_t x0, y0, x1, y1;
    uint32_t gen, m;
    gc_orca_segment seg[GC_SIM_WALLS_KEPT];
    uint8_t pad_[8]; /* 256 bytes, four cache lines (gc_sim.walls is
                        aligned to them): the box and the first two
                        segments in the first */
} gc_sim_walls;
_Static_assert(sizeof(gc_sim_walls) == 256, "four cache lines a record");

/*
 * One agent's clearance bytes (gc_nav_clear4) at its cell (x, y), in the
 * walls' map (wall4) and the planning grid's (plan4), or lower bounds of
 * them (far from walls, carried from the cell before: gc_sim_spot_moved,
 * sim_crowd_int.h), from the clearance maps of generation `gen`
 * (gc_sim.clear_gen; 0: none kept).  Every use of them only skips work
 * that would find nothing.
 * An agent crosses a cell boundary every few ticks, and with 100,000
 * agents on a large map each read of the maps was a miss (two, with
 * bodies: a seventh of circle 100,000's tick); the records are read in
 * slot order.  Agent i's worker's in the tick, as the agent.
 */
/*
 * An agent as the tick starts, as the crowd step reads it for the
 * agents near it: its position, velocity, body radius
 * (gc_sim_body_radius) and state (GC_SIM_ST_FREE for a free slot).  One
 * record, not an array each: an agent's neighbours sit anywhere among
 * the slots once the crowd has wandered for minutes (their slots follow
 * the placement's order, not where they are now), and each of them read
 * is then one cache line, not six.
 */
typedef struct gc_sim_now {
    float x, y, vx, vy, r;
    uint8_t st;
} gc_sim_now;

typedef struct gc_sim_spot_kept {
    int32_t x, y;
    uint32_t gen;
    uint8_t wall4, plan4;
} gc_sim_spot_kept;

/* The renumbering of the slots (sim-order.c): every `every` ticks from
 * tick `next` (every 0: never).  Its scratch: buf, one per-agent array
 * at a time in the new order (cap records of `stride` bytes); from[k]
 * the old slot of new slot k and to[] its inverse; count the curve's
 * buckets (`buckets` of them: the Hilbert index over a side of 2^bits
 * cells, shifted right by `shift`).  done: renumberings so far; ns_max:
 * the longest one's time. */
typedef struct gc_sim_order {
    uint64_t every, next;
    unsigned bits, shift;
    uint32_t buckets;
    size_t stride;
    unsigned char *buf;
    uint32_t *from, *to, *count;
    uint64_t done, ns_max;
} gc_sim_order;

#endif
