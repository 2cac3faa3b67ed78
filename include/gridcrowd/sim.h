/*
 * gridcrowd/sim.h: the simulation: agents, worker threads, the tick.
 *
 * A gc_sim owns its agents, one A* context per worker thread, the grid's
 * navigation data and the statistics.  It does not own the grid: the daemon
 * runs it on the grid that wraps the shared-memory cell section.
 *
 * A tick: every worker, in parallel, plans for its own agents that need a
 * path (within a per-tick budget of searches, fairly round-robin), then
 * moves each of its moving agents by speed * dt (avoid NONE), or, with
 * avoid ORCA, gives each of its agents a velocity that avoids the other
 * bodies and the walls (from every agent's position and velocity as the
 * tick started, indexed by the loop before the workers start) and moves
 * it, clamped against the walls (src/sim-crowd.c has the rules).  Agents are split among
 * workers by index (agent i belongs to worker i % threads), so with a given
 * seed and thread count a run is deterministic.  Between ticks, with the
 * workers parked, the caller may change cells and tell the sim
 * (gc_sim_grid_changed); only then may anyone write the grid.
 */
#ifndef GRIDCROWD_SIM_H
#define GRIDCROWD_SIM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <gridcrowd/common.h>
#include <gridcrowd/agent.h>
#include <gridcrowd/astar.h>
#include <gridcrowd/error.h>
#include <gridcrowd/grid.h>
#include <gridcrowd/mapio.h>

GC_BEGIN_DECLS

typedef enum gc_goal_mode {
    GC_GOALS_WANDER = 0, /* a random reachable cell, then another */
    GC_GOALS_POINT = 1,  /* one target cell for all */
    GC_GOALS_SCEN = 2    /* a .scen file: one agent per problem */
} gc_goal_mode;

/* Local avoidance between bodies. */
typedef enum gc_avoid {
    GC_AVOID_NONE = 0, /* exact path followers: bodies pass through each
                          other (the library default) */
    GC_AVOID_ORCA = 1, /* optimal reciprocal collision avoidance */
    GC_AVOID_ORCA_ADAPTIVE = 2 /* ORCA that looks less far ahead when its
                                  program is infeasible
                                  (gc_orca_velocity_adaptive) */
} gc_avoid;

/* Name ("none", "orca", "orca-adaptive"; NULL when out of range) and parse
 * (case-insensitive; -1 when unknown). */
const char *gc_avoid_name(gc_avoid a);
int gc_avoid_parse(const char *str);

typedef struct gc_sim_config {
    uint32_t agents;        /* number of agents at the start (scen mode:
                               problems used); may be 0 */
    uint32_t max_agents;    /* slots: the most agents alive at once (0:
                               `agents`; at least `agents`, at most
                               GC_SIM_MAX_AGENTS) */
    int threads;            /* worker threads, >= 1 */
    double hz;              /* ticks per simulated second (dt = 1 / hz) */
    gc_agent_params motion; /* speed and arrival radius in world units
                               (0 speed: 4 cells/s, a negative radius:
                               0.1 cell, converted by gc_sim_new from the
                               grid's cell size); turn rate in rad/s */
    gc_goal_mode goals;
    gc_cell point;         /* GC_GOALS_POINT target */
    const gc_scen *scen;   /* GC_GOALS_SCEN problems (borrowed) */
    const char *scen_name; /* its file name, for messages (may be NULL) */
    uint64_t seed;
    uint32_t plan_budget;   /* searches per tick, all workers together,
                               the first requests first (so the same run
                               whatever the workers), >= 1 */
    uint64_t plan_time_ns;  /* and stop planning once a worker has spent
                               this long in the tick (0: no limit); replans
                               after grid changes ignore the count budget
                               and get twice this time */
    bool smooth;            /* smooth planned paths */
    gc_diag_rule diag;      /* move rule */
    bool wander_repeat;     /* wander: a new goal after each arrival */
    uint32_t wander_radius; /* wander: goals within this many CELLS of
                               the agent in each axis (0: anywhere
                               reachable); cells, not world units */
    /* Bodies.  radius: every agent's body radius in world units (0: points,
     * the default).  Paths are planned for the body on the grid inflated
     * by it (a cell whose clearance is below the radius is blocked), so
     * jump point search still applies.  The rest apply with avoid ORCA. */
    float radius;
    gc_avoid avoid;      /* default GC_AVOID_NONE */
    uint32_t neighbours; /* ORCA: neighbours considered (0: 10; at most
                            GC_ORCA_MAX_NEIGHBOURS) */
    float horizon;       /* ORCA: time horizon in seconds between agents
                            (0: 2 s) */
    float neighbour_dist; /* ORCA: how far neighbours are looked for, world
                             units (0: 2 radii plus a second at the speed,
                             at least 4 radii) */
    float max_speed;      /* ORCA: the fastest an agent may go to avoid
                             others, world units/s (0, or below an agent's
                             own speed: its own speed) */
    float time_gap;       /* following, seconds (0: off, the default): an
                             agent walks no faster than the gap to the
                             nearest body ahead of it going its way
                             divided by time_gap (see gc_sim_crowd_follow
                             in src/sim-crowd-steer.c); 1 s gives a 1 m
                             door about 3 people a second */
    /* Follow: when the target moved and a moving follower plans again,
     * keep its path up to the kept cell nearest the target's new cell
     * (within 16 cells of it) and search only from
     * there, falling back to a full search (default true; false: always
     * a full search). */
    bool follow_reuse;
    /* With avoidance: after the first tick and then every this many
     * simulated seconds the agents' slots (where the sim's arrays hold
     * them) are renumbered along the map, so that the crowd step reads
     * neighbours that were read just before.  Ids and handles never
     * change (gc_sim_config_init: 20 s; 0: never). */
    float reorder;
} gc_sim_config;

/*
 * Units.  Positions, motion.speed (per second) and motion.arrive_radius are
 * world units: a cell is grid->cell_size world units wide.  Cells
 * (gc_cell) are used for goals (point, scen) and wander_radius.  The
 * defaults of speed and radius are given in cells and converted once, in
 * gc_sim_new, so that a caller never scales a value it was given in world
 * units.
 *
 * Turning.  With a turn rate, an agent turns towards its direction of
 * travel at that rate and then goes: its speed is scaled by the cosine of
 * the angle still between its heading and the direction of travel, so it
 * never moves more than 90 degrees off its heading (it turns in place).
 *
 * Defaults: 300 agents, 1 thread, 60 Hz, speed 4 cells/s, arrival radius
 * 0.1 cell, turn at once, wander, seed 1, budget 64, smoothing on, no
 * corner cutting, wander repeats, radius 0 (points), no avoidance, slots
 * renumbered every 20 s.
 */
void gc_sim_config_init(gc_sim_config *c);

/* Per-search timing figures over a window or over the whole run. */
typedef struct gc_sim_stats {
    uint64_t ticks;
    uint64_t searches; /* path searches run */
    uint64_t expanded; /* cells expanded by them */
    /* A whole plan: the search and the smoothing of its path. */
    double search_us_mean;
    double search_us_p99;
    /* Its two parts, means per search: the search alone, and smoothing
     * (0 with smoothing off). */
    double search_only_us_mean;
    double smooth_us_mean;
    uint64_t by_state[GC_AGENT_NSTATES]; /* agents in each state now */
    uint64_t arrivals; /* arrivals counted (wander: every goal) */
    uint64_t replans;  /* searches caused by grid changes */
    /* Plans of followers: joined onto their kept path (a short search
     * from near its end), or searched in full (the first plan, a target
     * that moved far, a failed joint search, a grid change). */
    uint64_t follow_reused, follow_full;
    /* From a grid change stopping an agent to the end of its new search. */
    uint64_t replan_delay_ticks_max; /* 1: planned in the very next tick */
    double replan_delay_ms_mean, replan_delay_ms_max;
    /* Bodies (avoid ORCA; zeros otherwise), measured each tick on the
     * positions the tick starts from.  Overlapping pairs: centres closer
     * than the sum of the radii. */
    double overlaps_mean;      /* pairs per tick */
    uint64_t overlaps_max;     /* most pairs in one tick */
    double overlap_depth_max;  /* deepest overlap, fraction of 2r */
    uint64_t in_wall;          /* agent-ticks with the centre in a wall
                                  cell or the body deeper in one than
                                  GC_SIM_WALL_TOL cell (must be 0) */
    uint64_t stalled;          /* moving agents with no progress towards
                                  their goal for 10 s, now */
    double stall_s_max;        /* the longest any moving agent has now gone
                                  without progress, seconds */
    double speed_ratio;        /* mean speed / mean preferred speed of the
                                  moving agents */
    uint64_t reorders;         /* renumberings of the slots so far
                                  (gc_sim_config.reorder) */
    double reorder_ms_max;     /* the longest of them, ms */
    double avoid_ms_mean;      /* avoidance per tick: the index build plus
                                  the slowest worker's neighbour queries,
                                  ORCA and motion (what RVO2's doStep
                                  does; steering and these figures are
                                  not in it) */
} gc_sim_stats;

/* How deep a body may reach into a wall cell, in cells (the centre never
 * enters one). */
#define GC_SIM_WALL_TOL 0.02f

typedef struct gc_sim gc_sim;

/*
 * Make a simulation on `g` (borrowed; must outlive the sim and change only
 * between ticks).  Places the agents: scen mode at the problems' starts,
 * otherwise on distinct random passable cells (GC_ERANGE with a message
 * when there are more agents than passable cells).  With avoidance on,
 * GC_ERANGE also when the default speed or max_speed is more than
 * GC_SIM_MAX_SPEED_CELLS_PER_TICK at cfg->hz.  Starts the worker
 * threads.  Errors fill `err` with one line.
 */
int gc_sim_new(gc_sim **out, gc_grid *g, const gc_sim_config *cfg,
               gc_error *err);

/* Stop and join the workers, free everything the sim owns. */
void gc_sim_free(gc_sim *s);

/* Run one tick of dt = 1 / hz simulated seconds. */
int gc_sim_tick(gc_sim *s);

/*
 * Tell the sim that cells changed (between ticks): navigation data is
 * recomputed, and every agent whose remaining path (from where it stands)
 * or own cell was touched by one of the `n` changed cells is marked for
 * replanning (`cells` may be NULL to replan every moving agent).  Stuck
 * and unreachable agents, and agents walking a partial path towards an
 * unreachable goal, are planned again after every change.  A wanderer cut
 * off from its goal draws a new one in its own component when it is
 * replanned.
 */
int gc_sim_grid_changed(gc_sim *s, const gc_cell *cells, size_t n);

/*
 * Record the searches of `agent` (UINT32_MAX: nobody) into a buffer of
 * `cap` events that the sim owns: opened and closed cells, then the path
 * found (GC_TRACE_PATH).  A moving agent is planned again at once so that
 * a trace appears promptly.  Between ticks only.  GC_ERANGE for an agent
 * that does not exist, GC_ENOMEM.
 */
int gc_sim_trace_agent(gc_sim *s, uint32_t agent, size_t cap);

/* The trace of a search finished since the last call, or NULL; *agent is
 * set to whose it is.  Valid until the next tick. */
const gc_trace *gc_sim_take_trace(gc_sim *s, uint32_t *agent);

/*
 * Agents (read between ticks only).  Agents have ids 0 ..
 * gc_sim_capacity() - 1, the index half of their handles, theirs from
 * spawn to removal (the sim may move agents about in its own arrays; the
 * ids never change); a removed agent's id is free until a spawn reuses
 * it.  gc_sim_agent_count is the number of ids to scan: one more than
 * the highest id that was ever in use, so it never shrinks (free ids may
 * lie anywhere below it).  gc_sim_agent returns NULL for a free id and
 * past the count: every loop over the agents skips NULLs.
 * gc_sim_live_count is the number of agents alive.
 */
size_t gc_sim_agent_count(const gc_sim *s);
const gc_agent *gc_sim_agent(const gc_sim *s, size_t i);
size_t gc_sim_live_count(const gc_sim *s);

/* ---- Agents driven from outside ------------------------------------------
 *
 * Handles.  An agent is named by a handle: its slot index in the low
 * GC_AGENT_INDEX_BITS bits and the slot's generation salt (1 ..
 * GC_AGENT_SALT_MAX, never 0) above them, so a handle is never
 * GC_AGENT_NONE.  Removing an agent bumps its slot's salt, so every handle
 * of the removed agent fails with GC_EGONE, also after a spawn reused the
 * slot (Detour's salted dtPolyRef).  Spawns take the lowest free slot, so
 * the same calls give the same handles and a run reproduces.
 *
 * All the calls below are for the host's thread between ticks (never
 * during gc_sim_tick); their effect does not depend on the thread count.
 * Errors common to the calls taking a handle: GC_EINVAL for
 * GC_AGENT_NONE or a slot index past the capacity, GC_EGONE for a removed
 * agent.  `err` (may be NULL) gets one line saying what was refused.
 */
typedef uint32_t gc_agent_handle;
#define GC_AGENT_NONE 0u
#define GC_AGENT_INDEX_BITS 20
#define GC_AGENT_INDEX_MASK ((1u << GC_AGENT_INDEX_BITS) - 1u)
#define GC_AGENT_SALT_MAX ((1u << (32 - GC_AGENT_INDEX_BITS)) - 1u)
#define GC_SIM_MAX_AGENTS (1u << GC_AGENT_INDEX_BITS)
/* Largest body radius, in cells, and largest speed, in cells per tick
 * (beyond half a cell per tick the wall clamp of avoidance could step
 * over a thin wall). */
#define GC_SIM_MAX_RADIUS_CELLS 8.0f
#define GC_SIM_MAX_SPEED_CELLS_PER_TICK 0.5f

/* The slot index and the salt of a handle. */
static inline uint32_t
gc_agent_handle_index(gc_agent_handle h)
{
    return h & GC_AGENT_INDEX_MASK;
}
static inline uint32_t
gc_agent_handle_salt(gc_agent_handle h)
{
    return h >> GC_AGENT_INDEX_BITS;
}

typedef struct gc_spawn_spec {
    float x, y;          /* where, world units */
    bool has_goal;       /* false: the agent starts idle */
    float goal_x, goal_y; /* world units: the goal is the cell there */
    float radius;        /* world units; <= 0: the sim's default */
    float speed;         /* world units per second; <= 0: the default */
    uint32_t group;      /* a label for the caller (scenarios, viewer) */
    /* Profile.  turn_rate: DEGREES per second (< 0: the sim's default,
     * motion.turn_rate; 0: turns at once).  wander_radius: world units
     * (< 0: the sim's default, wander_radius cells; 0: anywhere
     * reachable); a wander goal is a cell within ceil(wander_radius /
     * cell_size) cells, in each axis, of the cell the agent stands in when
     * it draws the goal.  A zeroed spec thus turns at once and wanders
     * anywhere: say -1 for the defaults. */
    float turn_rate;
    float wander_radius;
} gc_spawn_spec;

/*
 * Add an agent, in the lowest free slot, and write its handle to *out
 * (may be NULL).  It stands exactly at (x, y), heading 0; with a goal it
 * waits for a path (planned in the next tick), else it is idle.
 * Refusals: GC_ECAPACITY (every slot is alive), GC_EOUTSIDE (the position
 * or the goal is off the map), GC_EBLOCKED (the position's or the goal's
 * cell is impassable), GC_EOVERLAP (the body reaches into a wall cell
 * deeper than GC_SIM_WALL_TOL, or overlaps another body: the message
 * says which, and whose), GC_ERANGE (radius above GC_SIM_MAX_RADIUS_CELLS
 * cells or speed above GC_SIM_MAX_SPEED_CELLS_PER_TICK, or not finite;
 * a turn rate above GC_SIM_MAX_TURN_RATE or a wander radius that is not
 * finite),
 * GC_ENOMEM.  Bodies overlap when both have a radius and their centres
 * are closer than the sum.
 */
int gc_sim_spawn(gc_sim *s, const gc_spawn_spec *sp, gc_agent_handle *out,
                 gc_error *err);

/* Remove an agent: its slot is free for the next spawn and its handles
 * are stale.  Agents following it stop (idle). */
int gc_sim_remove(gc_sim *s, gc_agent_handle h, gc_error *err);

/*
 * Goals.  point: the cell at world (x, y), planned for in the next tick
 * (GC_EOUTSIDE off the map, GC_EBLOCKED on an impassable cell); wander: a
 * random reachable cell, then another after each arrival (as wander
 * mode); stop: idle where it stands.  follow: walk towards another agent
 * and stop within stop_distance world units of its centre (< 0 or not
 * finite: GC_ERANGE; 0: as near as it gets), planning again as the
 * target moves (when the target's cell is more than max(2, stop_distance)
 * cells from the end of the path, or once a second while it is anywhere
 * but that cell; such a plan of a moving follower keeps its path up to
 * near its end and searches only from there, see
 * gc_sim_config.follow_reuse); an agent cannot follow itself
 * (GC_EINVAL); when the target is removed the follower stops.
 */
int gc_sim_set_goal_point(gc_sim *s, gc_agent_handle h, float x, float y,
                          gc_error *err);
int gc_sim_set_goal_wander(gc_sim *s, gc_agent_handle h, gc_error *err);
int gc_sim_set_goal_stop(gc_sim *s, gc_agent_handle h, gc_error *err);
int gc_sim_set_goal_follow(gc_sim *s, gc_agent_handle h,
                           gc_agent_handle target, float stop_distance,
                           gc_error *err);

/* The agent's speed (world units per second, > 0; GC_ERANGE as for
 * spawn) and body radius (world units, >= 0; 0 a point; GC_ERANGE as for
 * spawn).  A new radius plans the agent again: paths depend on it. */
int gc_sim_set_speed(gc_sim *s, gc_agent_handle h, float speed,
                     gc_error *err);
int gc_sim_set_radius(gc_sim *s, gc_agent_handle h, float radius,
                      gc_error *err);

/* The agent's turn rate in DEGREES per second (0: turns at once; < 0: the
 * sim's default; GC_ERANGE above GC_SIM_MAX_TURN_RATE or not finite) and
 * wander radius in world units (0: anywhere; < 0: the sim's default;
 * GC_ERANGE when not finite), as in gc_spawn_spec.  The turn rate applies
 * from the next tick, with or without avoidance (with avoid ORCA the
 * heading turns towards the preferred velocity and the agent goes along
 * it, slower while far off; ORCA may still side-step); the wander radius
 * from the next goal drawn. */
#define GC_SIM_MAX_TURN_RATE 100000.0f
int gc_sim_set_turn_rate(gc_sim *s, gc_agent_handle h, float deg_per_s,
                         gc_error *err);
int gc_sim_set_wander_radius(gc_sim *s, gc_agent_handle h, float radius,
                             gc_error *err);

/* The handle of agent `index` (its id), GC_AGENT_NONE for a free id or
 * past the capacity. */
gc_agent_handle gc_sim_handle(const gc_sim *s, size_t index);

/* The id of a live agent's handle in *index (may be NULL): GC_OK,
 * GC_EINVAL (GC_AGENT_NONE, index past the capacity), GC_EGONE (removed,
 * whether or not the id was reused). */
int gc_sim_resolve(const gc_sim *s, gc_agent_handle h, size_t *index);

/* The group agent `index` (its id) was spawned with (0 for agents the
 * sim placed, and for free ids). */
uint32_t gc_sim_agent_group(const gc_sim *s, size_t index);

/* Slots: gc_sim_config.max_agents resolved. */
size_t gc_sim_capacity(const gc_sim *s);

/* Agent i's velocity in world units per second as chosen in the last tick
 * (avoid ORCA), or {0, 0} without avoidance or past the last agent.  Call
 * between ticks. */
gc_vec2 gc_sim_agent_velocity(const gc_sim *s, size_t i);

/* The default body radius in world units (0: points); each agent's own
 * is gc_agent.radius. */
float gc_sim_radius(const gc_sim *s);

/* True when no agent can make more progress in scen or point mode (each
 * arrived, unreachable or stuck); always false in repeating wander mode. */
bool gc_sim_done(const gc_sim *s);

/* Figures since the last call (window) and since the start (total). */
void gc_sim_stats_window(gc_sim *s, gc_sim_stats *out);
void gc_sim_stats_total(const gc_sim *s, gc_sim_stats *out);

/* The motion parameters in world units, defaults resolved. */
const gc_agent_params *gc_sim_motion(const gc_sim *s);

/* The grid and navigation data the sim runs on. */
const gc_grid *gc_sim_grid(const gc_sim *s);

GC_END_DECLS
#endif
