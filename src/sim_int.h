/*
 * sim_int.h: what the files of the simulation share (sim.c, sim-plan.c,
 * sim-goals.c, sim-stats.c, sim-crowd.c, sim-crowd-grid.c, sim-agents.c).
 *
 * One concept over several files, tmux style: sim.c owns the handle, the
 * tick and the worker gate; sim-plan.c the plan queues, the search of one
 * agent and the replanning after grid changes; sim-goals.c components,
 * random numbers, placement and goals; sim-stats.c the histogram and the
 * counters; sim_records_int.h the records kept beside each agent and
 * each worker.  Every field below says who writes it and when; the gate's
 * mutex gives the happens-before edges between the loop (between ticks)
 * and the workers (during a tick), so nothing here needs atomics.
 */
#ifndef GRIDCROWD_SIM_INT_H
#define GRIDCROWD_SIM_INT_H

#include <gridcrowd/orca.h>
#include <gridcrowd/sim.h>
#include <gridcrowd/util.h>

#include "astar_int.h" /* gc_nav, gc_nav_clear_at, gc_grid_cell_of */
#include "orca_int.h"  /* gc_orca_bounds */

#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdbool.h>
#include <stdint.h>

#include "sim_records_int.h" /* the per-agent and per-worker records */

struct gc_sim {
    gc_grid *grid; /* the real cells: walls for bodies, avoidance */
    /* The planning grid: `grid` itself for points, else `inflated`, the
     * grid with every cell whose clearance is below the body radius
     * blocked (owned).  nav describes pgrid; wnav describes grid when
     * they differ (its clearance makes the inflation), else NULL.  All
     * rebuilt by the loop between ticks, read-only in ticks. */
    gc_grid *pgrid;
    gc_grid *inflated;
    gc_nav *nav;
    gc_nav *wnav;
    gc_sim_edges edges; /* grid's wall edges (avoidance only) */
    gc_sim_config cfg;  /* motion defaults resolved to world units */
    float dt;
    uint64_t hz;        /* ticks a second, lroundf(1 / dt), at least 1 */
    /* Slots.  cap: the arrays below hold cap agents; n: slots ever used
     * (the ones loops scan, free ones among them flagged GC_SIM_F_FREE);
     * live: agents alive.  Loop only, between ticks. */
    uint32_t cap, n, live;
    uint32_t followers; /* agents with GOAL_FOLLOW (loop only) */
    uint32_t free_lo;   /* no free id below this (loop only) */
    gc_sim_slot *slot;  /* as the flags */
    /* Ids (the accessors' and handles' agent numbers) and slots (where the
     * arrays hold an agent), inverse permutations, the identity from n
     * up (sim-order.c); order: their renumbering.  Loop only. */
    uint32_t *id_slot, *slot_id;
    gc_sim_order order;
    gc_agent *agents;   /* agent i: its worker in a tick, the loop between */
    uint8_t *flags;     /* GC_SIM_F_*, as the agents */
    uint64_t *rng;      /* per-agent goal generators, as the agents */
    /* Passable cells grouped by component (nav labels, cfg.diag rule):
     * cells of label L are comp_cells[comp_off[L] .. comp_off[L + 1]).
     * Rebuilt by the loop between ticks, read-only in ticks. */
    uint32_t *comp_cells;
    uint32_t *comp_off;
    uint32_t comp_labels;
    uint8_t *changed; /* 1 for cells changed by the current edit batch */
    /* When each agent was stopped for a replan (set by the loop between
     * ticks, read by the owning worker). */
    uint64_t *stop_ns, *stop_tick;
    /* Trace of the requested agent's next search.  Set between ticks by
     * the loop; during a tick only the worker owning trace_agent writes
     * trace and trace_fresh. */
    uint32_t trace_agent;
    gc_trace trace;
    bool trace_fresh;
    int nworkers;
    gc_sim_worker *workers;
    /* The gate (sim.c): workers 1 .. nworkers - 1 wait on it between
     * ticks; worker 0 is the loop's thread.  quit is protected by
     * gate_mu; phase and done are atomic (spun on), changed under it
     * where a sleeper must be woken. */
    pthread_mutex_t gate_mu;
    pthread_cond_t gate_go, gate_done;
    bool gate;
    _Atomic uint64_t phase;
    _Atomic uint64_t done; /* workers other than 0 done with the tick */
    /* What a phase of the gate runs on every worker: the tick, or a
     * part of the loop's work between ticks (gc_sim_run).  Set by the
     * loop before it opens the gate. */
    void (*job)(gc_sim_worker *w);
    /* gc_sim_parallel's function and its argument, for its job. */
    void (*par_fn)(void *ctx, unsigned part, unsigned parts);
    void *par_ctx;
    bool quit;
    uint64_t ticks; /* finished ticks; written by the loop only */
    /* The order plan requests came in (gc_sim_enqueue): the loop's get
     * plan_seq, counted up; those made by workers during a tick (in_tick)
     * get tick_seq plus the agent's id, and plan_seq moves past them all
     * after the tick.  So which requests a tick's count budget serves
     * does not depend on the workers (gc_sim_plan_quotas). */
    uint64_t plan_seq, tick_seq;
    bool in_tick;
    /* Avoidance (avoid ORCA).  now: every agent as the tick starts, and
     * oidx their index: written by the loop before it opens the gate,
     * read-only for the workers, so an agent's new velocity depends on
     * nothing a worker writes and the result is the same for any number
     * of threads. */
    gc_orca_params orca;
    gc_orca_grid *oidx;
    gc_sim_now *now;
    /* With free slots below n, the index holds the live agents only:
     * ix, iy their positions and live_slot[k] the slot of entry k (in
     * slot order, so ties between neighbours still go by slot index).
     * Written by the loop before the gate opens.  indexed: how many the
     * index holds (n, or the live ones); prep_parts: into how many parts
     * gc_sim_crowd_prepare shares its work (1, or one a worker). */
    bool holes;
    uint32_t indexed;
    int prep_parts;
    /* Whether this tick's preparation is the job's first part
     * (gc_sim_crowd_prepare_fused): fuse_in counts the workers whose
     * copies are in, fuse_rc is its result once worker 0 has finished
     * it (a positive value until then). */
    bool fused;
    atomic_int fuse_in, fuse_rc;
    /* The start-of-tick copy in chunks of GC_SIM_PREP_CHUNK slots, taken
     * by the workers through gc_sim_take: what each chunk found (the
     * furthest any agent moved, squared; whether one was added or
     * removed; the bounds of the positions copied). */
    struct gc_sim_prep {
        float moved2;
        bool changed;
        gc_orca_bounds box;
    } *prep;
    float rmax; /* the largest body radius ever alive (loop only) */
    float *ix, *iy;
    uint32_t *live_slot, *slot_live;
    /* Each agent's neighbours (slots) found in its last tick, nbr_n[i]
     * of them at nbr[i * max_neighbours]: written and read only by the
     * agent's own worker, as a bound for this tick's query (their
     * distances now bound the k-th nearest; the answer is exact
     * whatever they hold). */
    uint32_t *nbr;
    uint8_t *nbr_n;
    /* Candidate lists (sim-crowd-near.c): agent i's near_n[i] slots at
     * near[i * near_cap] held, when drawn, every other live agent nearer
     * than near_r[i] to (near_x[i], near_y[i]), and near_t[i] was
     * `travel` then.  travel sums, over ticks, the furthest any agent
     * moved between two ticks' starts (the loop's, in
     * gc_sim_crowd_prepare).  A list is the agent's own worker's in the
     * tick; the loop sets every near_r negative (draw again) when an
     * agent is added. */
    uint32_t *near;
    uint8_t *near_n;
    uint32_t near_cap;
    float *near_r, *near_x, *near_y;
    double *near_t;
    double travel;
    gc_sim_body *body; /* as the agents */
    gc_sim_walls *walls; /* as the agents: their last wall segments */
    gc_sim_spot_kept *spot_kept; /* as the agents: their clearance bytes */
    /* Moves on (never to 0) at every change of the grid, before its
     * clearance maps change: what a gc_sim_spot_kept was read from.
     * Loop only, between ticks. */
    uint32_t clear_gen;
    /* The jam grid (sim-jam.c): pgrid with the cells of agents stalled
     * for a few seconds blocked, and its navigation data (both owned).
     * Read-only in ticks; used only while jam_active.  The next one
     * (jgrid2, jnav2) is built by jam_thread while jam_busy, from the
     * end of the loop's scan (over one tick or a few) to its install at
     * tick jam_due; the loop touches neither until it has joined the
     * thread. */
    gc_grid *jgrid, *jgrid2;
    gc_nav *jnav, *jnav2;
    uint8_t *jcells; /* the next jam grid's cells, as it is scanned */
    uint32_t *jlist; /* its cells blocked, jam_cells2 of them (cap) */
    float *jarea;    /* the bodies' area in each planning cell, as scanned
                        (all zero between scans) */
    uint32_t *jocc;  /* the scan's cells with someone in them (cap) */
    /* The scan under way (over a few ticks in a large crowd): its phase,
     * the next agent slot or index into jocc, the cells in jocc and in
     * jlist so far. */
    enum { JAM_IDLE, JAM_AGENTS, JAM_CROWDS, JAM_CLEAR } jam_phase;
    uint32_t jam_next, jam_occupied, jam_marked;
    uint32_t jam_slice; /* a tick's share of the scan (0: JAM_SLICE) */
    bool jam_active;
    uint32_t jam_cells, jam_cells2;
    bool jam_busy;     /* jam_thread runs (or ran: not joined yet) */
    bool jam_pending;  /* busy, but the build not started yet */
    bool jam_threaded; /* it was started (else built in the loop) */
    pthread_t jam_thread;
    uint64_t jam_due;   /* the tick its result takes effect */
    int jam_rc;         /* its result (written by it alone) */
    uint64_t win_tick0; /* s->ticks at the last window (loop only) */
    uint64_t index_ns;  /* the last index build's time (loop only) */
    /* Sharing the crowd step out (sim-crowd.c): each worker steps its
     * share of the half blocks (GC_SIM_HALF slots), mostly two at a
     * time, then takes the ones others have not reached yet.  A half's
     * figures that are sums of floats go to blk_speed, blk_pref (added
     * up in slot order after the tick, so they do not depend on who took
     * which half), and a half's agents' plan requests are flagged
     * (GC_SIM_F_ASK, blk_ask) and queued by the loop after the tick, in
     * slot order, as a worker walking its own agents queued them (per
     * half, as the contacts' blk_contact: two workers may step the two
     * halves of a block at once, and must not write one flag).  A half's
     * blk_contact is the least contact_slack of its agents flagged
     * GC_SIM_F_CONTACT in the tick (INFINITY: none), so that the
     * contacts pass reads the flags of a half only when one of them may
     * need it; each worker clears the flags of a half as it steps it.
     * Agents plan first, on their own workers (gc_sim_plan_queued):
     * blocks holding an agent that may plan in the tick (blk_plan, set by
     * the loop) are stepped only once every worker has planned (planned
     * counts them). */
    atomic_int planned;
    double *blk_speed, *blk_pref;
    uint8_t *blk_ask, *blk_plan;
    float *blk_contact;
    /* The contacts pass after the tick (sim-crowd.c): the bodies to
     * check in a sweep and in the next, and the sweep that last listed
     * each (contact_stamp: the last sweep's). */
    uint32_t *contact_list, *contact_next, *contact_mark;
    uint32_t contact_stamp;
    /* For an agent flagged GC_SIM_F_CONTACT: how far its nearest
     * neighbour was, as the tick started, from contact deeper than the
     * pass allows (with the largest body), less how far the agent
     * moved.  Unless someone moved further than that, no contact of its
     * can need the pass. */
    float *contact_slack;
};

/* ---- sim-goals.c: random numbers, components, placement, goals ---- */

uint64_t gc_sim_splitmix(uint64_t *s);
uint32_t gc_sim_rand_below(uint64_t *s, uint32_t n);
/* The distance along a Hilbert curve filling the square of side 2^bits
 * (1 to 16) of cell (x, y) (both below 2^bits): the order the agents a
 * simulation places get their slots in. */
uint64_t gc_sim_hilbert_index(unsigned bits, uint32_t x, uint32_t y);
/* The least bits (at least 1) whose square covers grid g. */
unsigned gc_sim_hilbert_bits(const gc_grid *g);
/* Group the passable cells by component (GC_ENOMEM). */
int gc_sim_build_components(gc_sim *s);
/* A random cell of c's component (c itself when it has none). */
gc_cell gc_sim_random_goal(gc_sim *s, uint32_t agent, gc_cell c);
/* Whether `goal` lies in the component of `from`. */
bool gc_sim_same_component(const gc_sim *s, gc_cell from, gc_cell goal);
/* Place the agents and give them their first goals (gc_sim_new). */
int gc_sim_place_agents(gc_sim *s, gc_error *err);

/* ---- sim-plan.c: queues, planning, grid changes ---- */

/* Put agent i on its worker's queue (urgent: served first, no budget). */
void gc_sim_enqueue(gc_sim *s, uint32_t i, bool urgent);
/* In a tick: agent i wants a plan.  Queued at once by path followers'
 * workers (each walks its own agents); flagged for the loop to queue
 * after the tick in the crowd step (workers share blocks out). */
void gc_sim_ask_plan(gc_sim *s, uint32_t i);
/* The passable cell the agent at p stands in (false: all are walls). */
bool gc_sim_own_cell(const gc_grid *g, gc_vec2 p, gc_cell *out);
/* Serve the worker's queues within the tick's budgets. */
void gc_sim_plan_queued(gc_sim_worker *w);
/*
 * Follow's reuse of a path.  `keep` is the still-good path a follower
 * walks (its own cell first, then the cells of its waypoints, each
 * consecutive pair a valid step or straight segment).  Take as joint J
 * the kept cell (not the first) nearest `target` by octile distance among
 * those within 2 * max_cells of the path's end along it (ties: the
 * later), search from J to `target` with `o` (no partial path, smoothing
 * off, expansions capped) into `scratch`, and write keep[0 .. J] followed
 * by the search's path to `out`, unsmoothed.  GC_ERANGE when J is more
 * than max_cells cells (octile) from the target, else the search's error
 * (GC_ELIMIT, GC_EUNREACHABLE, ...): the caller then searches in full.
 * *st gets the joint search's figures, *joint J's index.
 *
 * Bound: when the kept path is an optimal path from keep[0] (a suffix of
 * one), the joined path costs at most the optimal cost from keep[0] to the
 * target plus twice the joint search's cost (triangle inequality: cost
 * (keep[0], J) <= opt(keep[0], target) + opt(J, target) on costs that are
 * symmetric), so at most 2 * max_cells * sqrt(2) cell-costs more.
 */
#define GC_SIM_JOIN_MAX_CELLS 16
int gc_sim_join_path(gc_astar *astar, const gc_grid *g, const gc_astar_opts *o,
                     const gc_path *keep, gc_cell target, int32_t max_cells,
                     gc_path *scratch, gc_path *out, gc_astar_stats *st,
                     size_t *joint);
/* What happens when agent i arrives (next wander goal, unreachable). */
void gc_sim_on_arrival(gc_sim *s, gc_sim_worker *w, uint32_t i);

/* ---- sim-crowd.c: bodies, inflation, avoidance ---- */

/* Set up avoidance and the planning grid (gc_sim_new, before placement). */
int gc_sim_crowd_init(gc_sim *s);
void gc_sim_crowd_free(gc_sim *s);
/* Rebuild the inflated grid after a change of `grid` and mark in
 * s->changed (when not NULL) every cell whose blocking changed. */
int gc_sim_inflate(gc_sim *s);
/* The loop's part of a tick, before the gate opens: snapshot and index
 * (or, s->fused, only arming gc_sim_crowd_prepare_fused). */
int gc_sim_crowd_prepare(gc_sim *s);
/* With s->fused, the tick job's first part, on every worker. */
int gc_sim_crowd_prepare_fused(gc_sim_worker *w);
#define GC_SIM_PREP_CHUNK 4096u
static inline size_t
gc_sim_prep_chunks(size_t n)
{
    return (n + GC_SIM_PREP_CHUNK - 1) / GC_SIM_PREP_CHUNK;
}
/* From how many slots gc_sim_crowd_prepare shares its work among the
 * workers (tests lower it, before any simulation runs, to have small
 * crowds take the shared path too). */
extern unsigned gc_sim_prep_shared;
/* Run job on every worker (worker 0 on the caller's thread) and wait for
 * them all: one phase of the gate.  Between ticks, from the loop. */
void gc_sim_run(gc_sim *s, void (*job)(gc_sim_worker *w));

/* fn(ctx, part, parts) on every worker, part its index (0 on the
 * caller's thread) and parts the number of workers, and wait for them
 * all: the loop's own work between ticks shared out, for the host
 * (host.c) as for the sim.  The parts must touch nothing in common. */
void gc_sim_parallel(gc_sim *s, void (*fn)(void *ctx, unsigned part,
                                           unsigned parts),
                     void *ctx);

/* The loop's part after the tick: the tick's figures. */
void gc_sim_crowd_after(gc_sim *s);
/* A worker's part of a tick after planning: avoid, move, measure. */
void gc_sim_crowd_step(gc_sim_worker *w);
/* The planning cell of an agent at p: its own cell when passable in the
 * planning grid, else the nearest that is within two cells. */
bool gc_sim_plan_cell(const gc_sim *s, gc_vec2 p, gc_cell *out);
/* Reset agent i's progress record (it got a new path). */
void gc_sim_body_reset(gc_sim *s, uint32_t i);

/* ---- sim-crowd-grid.c: the ORCA set-up, inflation, wall geometry ---- */

/* Whether a body of radius r may stand at p: the centre out of every wall
 * cell of g and the body at most `tol` deep in any. */
bool gc_sim_body_ok(const gc_grid *g, gc_vec2 p, float r, float tol);
/* The clamp: where a body at `from` ends up when it asks to go to `to`. */
gc_vec2 gc_sim_clamp_move(const gc_grid *g, gc_vec2 from, gc_vec2 to, float r,
                          float tol);
/* Can a body walk straight from a to b through the planning grid g (for at
 * most max_steps cells)? */
bool gc_sim_visible(const gc_grid *g, gc_vec2 a, gc_vec2 b, int64_t max_steps);
/* gc_sim_visible's answer, found by the clearance map n of g first
 * (defined after gc_sim_wall_room, below).  room_low is at most
 * (gc_nav_clear_low(n, a's cell) - 0.92) times the cell size, the byte
 * map's room at a (-INFINITY when not known): the map is not read there. */
bool gc_sim_visible_fast(const gc_nav *n, const gc_grid *g, gc_vec2 a,
                         gc_vec2 b, int64_t max_steps, float room_low);
/* gc_sim_visible_fast's answer, with a proof kept from tick to tick: true
 * at once while `kept` (of maps of generation gen) holds for b from a point
 * within GC_SIM_SIGHT_SLACK cells of a, else as gc_sim_visible_fast, and
 * kept is renewed when its march can prove sight from the whole disc. */
bool gc_sim_visible_kept(const gc_nav *n, const gc_grid *g, gc_vec2 a,
                         gc_vec2 b, int64_t max_steps, float room_low,
                         gc_sim_sight *kept, uint32_t gen);
#define GC_SIM_SIGHT_SLACK 0.25f
/* Build (or rebuild, reusing the memory) e for g.  GC_ENOMEM (e keeps
 * what it had). */
int gc_sim_edges_build(gc_sim_edges *e, const gc_grid *g);
void gc_sim_edges_free(gc_sim_edges *e);
/* Wall segments within `range` of p (cells cs wide), collinear edges
 * merged; at most cap into buf; returns how many. */
size_t gc_sim_wall_segments(const gc_sim_edges *e, float cs, gc_vec2 p,
                            float range, gc_orca_segment *buf, size_t cap);
/* The same segments, from *kept when it holds them (the same box, the
 * same build of e), else scanned into buf and kept in *kept when they
 * fit: *out points at them, in kept or in buf. */
size_t gc_sim_wall_segments_kept(const gc_sim_edges *e, float cs, gc_vec2 p,
                                 float range, gc_orca_segment *buf, size_t cap,
                                 gc_sim_walls *kept,
                                 const gc_orca_segment **out);

/* gc_grid_passable without the calls: the wall scans ask it of every
 * cell around every agent, every tick, so it stays inline here. */
static inline bool
gc_sim_open_cell(const gc_grid *g, int32_t x, int32_t y)
{
    if (x < 0 || y < 0 || x >= g->width || y >= g->height)
        return false;
    uint8_t t = g->cells[(size_t)y * (size_t)g->width + (size_t)x];
    return t < GC_CELL_NTYPES && gc_cost_passable(g->cost[t]);
}

/*
 * A lower bound of the distance from p to the nearest blocked cell of the
 * grid that n describes, world units (negative: maybe none).  The
 * clearance is centre to centre minus half a cell; to the nearest point
 * of that cell's square is at least 0.21 cell less, and p is at most
 * 0.71 cell from its own cell's centre.  The tick asks it first, so that
 * in open ground the wall scans are skipped: no body there can touch a
 * wall, no straight walk of that length can meet one.
 */
static inline float
gc_sim_wall_room(const gc_nav *n, const gc_grid *g, gc_vec2 p)
{
    gc_cell c = gc_grid_cell_of(g, p);
    return (gc_nav_clear_at(n, c) - 0.92f) * g->cell_size;
}

/* ---- sim-jam.c: planning around jams ---- */

/* Each tick (loop, between ticks): from each whole second, scan the
 * agents for the next jam grid (a share of them a tick in a large crowd),
 * then build it beside the ticks; install it when due.  GC_ENOMEM. */
int gc_sim_jam_update(gc_sim *s);
/* A grid change: no plan uses the jam grid until it is rebuilt (a build
 * under way is waited for and dropped, a scan under way dropped). */
void gc_sim_jam_drop(gc_sim *s);
/* After the tick's step (loop): start the build a scan ended with in
 * this tick, if any.  Started before the step, the jam thread took a
 * share of the cores from the agent threads during it (open ground,
 * 100,000 wanderers: 2.75 ms of CPU, that tick 3 ms longer); after it,
 * a real-time loop is about to sleep, and the build mostly fits there. */
void gc_sim_jam_start(gc_sim *s);
/* Wait for a build under way; free the jam grids. */
void gc_sim_jam_free(gc_sim *s);
/* Whether wanderer i (planning on the shared planning grid from *start)
 * should plan on the jam grid; if so *start may move to a free cell near
 * it, and a goal only beyond a jam is drawn again. */
bool gc_sim_jam_route(gc_sim *s, uint32_t i, gc_cell *start);

/* Before a tick (loop): each worker's quota, the requests of the count
 * budget taken from all queues in the order they came in. */
void gc_sim_plan_quotas(gc_sim *s);
/* gc_sim_enqueue with the request's place in the order (sim-order.c,
 * carrying the queues over). */
void gc_sim_enqueue_seq(gc_sim *s, uint32_t i, bool urgent, uint64_t seq);

/* ---- sim-agents.c: spawn, remove, goals, follow ---- */

/* gc_sim.st of a free slot (no agent state has this value). */
#define GC_SIM_ST_FREE 0xFF

/* The worker that owns agent i (plans it; moves it, for path
 * followers): blocks of GC_SIM_CHUNK slots dealt round the workers, so
 * that a burst of plans in one region of the crowd is shared out. */
static inline uint32_t
gc_sim_owner(const gc_sim *s, uint32_t i)
{
    return (i / GC_SIM_CHUNK) % (uint32_t)s->nworkers;
}

/* The first slot of worker k's j-th block (gc_sim_owner of each of its
 * slots is k); s->n or more past its last.  Whoever walks a worker's
 * blocks walks them through this, so that it and the plan queues agree
 * on who owns what. */
static inline uint64_t
gc_sim_owned_block(const gc_sim *s, uint32_t k, uint32_t j)
{
    return ((uint64_t)j * (uint64_t)s->nworkers + k) * GC_SIM_CHUNK;
}

/*
 * The crowd's work between and in its ticks (the start-of-tick copy by
 * chunks, the step by blocks) goes by shares: worker k's share of
 * `units` is the contiguous [units * k / nw, units * (k + 1) / nw).
 * Slots are in spatial order (placement's Hilbert curve), so a share is
 * one region of the crowd, and a worker reads mostly what it wrote
 * itself: its agents' records, their start-of-tick copies, and most of
 * their neighbours'.  Dealt round by blocks, half of what each read had
 * been written by the other core, and two threads spent a third more
 * CPU on the same step than one (circle 100,000).
 *
 * Worker w's next unit: from its own share first, then from each other
 * worker's in turn, each taken through that worker's `next` (reset to 0
 * by the loop before each use), so a worker that is slow (planning, off
 * its core, woken late) leaves the rest of its share to the others.
 * *o is the share being taken from, counted from w's own (0 to start).
 * False when every unit is taken.
 */
static inline bool
gc_sim_take(gc_sim *s, const gc_sim_worker *w, size_t units, uint32_t *o,
            size_t *unit)
{
    size_t nw = (size_t)s->nworkers;
    for (; *o < nw; (*o)++) {
        size_t k = ((size_t)w->id + *o) % nw;
        size_t j = atomic_fetch_add_explicit(&s->workers[k].next, 1,
                                             memory_order_relaxed);
        size_t lo = units * k / nw, hi = units * (k + 1) / nw;
        if (j < hi - lo) {
            *unit = lo + j;
            return true;
        }
    }
    return false;
}

/* Before a use of gc_sim_take (the loop's, between phases). */
static inline void
gc_sim_take_reset(gc_sim *s)
{
    for (int k = 0; k < s->nworkers; k++)
        atomic_store_explicit(&s->workers[k].next, 0, memory_order_relaxed);
}

/* A spinning thread's pause: kinder to the other hyperthread. */
static inline void
gc_sim_cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#endif
}

/* One turn of a wait for another worker within a tick: a pause, and a
 * yield once *spins has passed `yield_after` (the other may be off its
 * core). */
static inline void
gc_sim_spin_turn(unsigned *spins, unsigned yield_after)
{
    gc_sim_cpu_relax();
    if (++*spins > yield_after)
        sched_yield();
}

/* Worker k's share of the blocks of the crowd's n slots, [*lo, *hi)
 * (contiguous, whole blocks): what it copies at a small tick's start
 * (gc_sim_crowd_prepare_fused) and steps first (gc_sim_crowd_step). */
static inline void
gc_sim_block_share(const gc_sim *s, size_t k, size_t *lo, size_t *hi)
{
    size_t blocks = gc_sim_blocks(s->n), nw = (size_t)s->nworkers;
    *lo = blocks * k / nw;
    *hi = blocks * (k + 1) / nw;
}

/* Whether agents have bodies and avoid each other (an ORCA model). */
static inline bool
gc_sim_bodies(const gc_sim *s)
{
    return s->cfg.avoid != GC_AVOID_NONE;
}

/* The fastest an agent may be given, world units a second, on cells of
 * cell_size at ticks of dt seconds (GC_SIM_MAX_SPEED_CELLS_PER_TICK):
 * what spawns, the sim's own defaults and a scenario's groups are held
 * to. */
static inline float
gc_sim_speed_limit(float cell_size, float dt)
{
    return GC_SIM_MAX_SPEED_CELLS_PER_TICK * cell_size / dt;
}

/* ---- sim-order.c: ids and slots ---- */

/* Seconds between renumberings by default (gc_sim_config_init). */
#define GC_SIM_REORDER_S 20.0
/* The id maps, identity (gc_sim_new; GC_ENOMEM). */
int gc_sim_ids_new(gc_sim *s);
/* The renumbering's period and scratch, with bodies (GC_ENOMEM). */
int gc_sim_order_new(gc_sim *s);
void gc_sim_order_free(gc_sim *s);
/* Renumber the slots now (loop only, between ticks, not while the jam
 * scan walks the slots; GC_ENOMEM for its scratch, made once, without a
 * period), or when due. */
int gc_sim_reorder(gc_sim *s);
void gc_sim_reorder_if_due(gc_sim *s);

/* Slots slots[0 .. n) sorted by their ids (tmp: n more): what is done
 * in slot order and depends on the order is done in the ids', so that a
 * renumbering changes no run. */
void gc_sim_sort_by_id(const gc_sim *s, uint32_t *slots, uint32_t *tmp,
                       size_t n);

/* The slot of a live agent's handle in *slot (may be NULL): as
 * gc_sim_resolve, which gives its id. */
int gc_sim_slot_resolve(const gc_sim *s, gc_agent_handle h, uint32_t *slot);

/* The slot of agent id (below cap), and the id of slot i. */
static inline uint32_t
gc_sim_slot_of(const gc_sim *s, size_t id)
{
    return s->id_slot[id];
}
static inline uint32_t
gc_sim_id_of(const gc_sim *s, uint32_t slot)
{
    return s->slot_id[slot];
}

/* Whether slot i holds an agent. */
static inline bool
gc_sim_alive(const gc_sim *s, uint32_t i)
{
    return i < s->n && !(s->flags[i] & GC_SIM_F_FREE);
}
/* Agent i's body radius for avoidance: its own, or a hundredth of a cell
 * for a point (ORCA needs a body). */
static inline float
gc_sim_body_radius(const gc_sim *s, uint32_t i)
{
    float r = s->agents[i].radius;
    return r > 0.0f ? r : 0.01f * s->grid->cell_size;
}
/* Whether agent i plans on the shared planning grid (its radius is the
 * sim's default) rather than by plain A* with its own clearance. */
static inline bool
gc_sim_own_radius(const gc_sim *s, uint32_t i)
{
    return s->agents[i].radius != s->cfg.radius;
}
/* Before a tick: followers whose target moved away plan again, those
 * near it stop, those whose target is gone go idle. */
void gc_sim_follow_update(gc_sim *s);

#endif
