/*
 * gridcrowd/host.h: run a simulation in a shared-memory world.
 *
 * The glue between a gc_sim and a gc_world that every program publishing a
 * world needs, written once: the daemon, the test stand-in and any program
 * that embeds gc_sim and wants gridcrowd-ctl and the viewer to attach.
 * Each tick, between ticks, in this order:
 *
 *   1. gc_host_edits: check the edit queue (a queue someone shrank or
 *      scribbled on is made again, and said so), drain the edits into the
 *      grid, and tell the sim which cells changed;
 *   2. gc_host_tick: follow the viewer's trace request and publish a
 *      finished trace, run one tick, publish the tick number;
 *   3. gc_host_publish_agents when gc_host_publish_due says so (every
 *      tick while a reader is attached, four times a second while none
 *      is; with the whole path of the requested agent) and
 *      gc_host_publish_stats (once per window, a second say).
 *
 * Pacing, signals, options and printing stay with the program.  A host
 * without a sim (sim NULL) drains edits and publishes agent records the
 * program makes itself (gc_host_publish_records): the test stand-in puts
 * agents exactly where a test says.
 *
 * A host borrows the world, the grid and the sim, and owns the edit
 * applier and the trace buffer.  It is not thread-safe: the program's
 * simulation loop calls it, between ticks.
 */
#ifndef GRIDCROWD_HOST_H
#define GRIDCROWD_HOST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <gridcrowd/common.h>
#include <gridcrowd/edits.h>
#include <gridcrowd/error.h>
#include <gridcrowd/grid.h>
#include <gridcrowd/sim.h>
#include <gridcrowd/world.h>

GC_BEGIN_DECLS

typedef struct gc_host gc_host;

/* A one-line message about the edit queue (its damage and repair), without
 * a program-name prefix or newline.  `arg` is gc_host_config.report_arg. */
typedef void gc_host_report_fn(void *arg, const char *msg);

typedef struct gc_host_config {
    gc_world *world; /* borrowed: an owner's handle (gc_world_create) */
    gc_grid *grid;   /* borrowed: the grid over its cells (gc_host_grid) */
    gc_sim *sim;     /* borrowed, running on `grid`; NULL: no simulation */
    gc_host_report_fn *report; /* NULL: messages are dropped */
    void *report_arg;
    /* Told each edit the host's applier applies (SET, RECT, LINE, in
     * order, during gc_host_edits); NULL: nobody.  The daemon's recorder
     * keeps them (gc_edit_applier_config.on_apply). */
    void (*on_edit)(void *arg, const gc_edit *e);
    void *on_edit_arg;
} gc_host_config;

/* Counters since gc_host_new. */
typedef struct gc_host_counts {
    uint64_t ticks;          /* ticks run by gc_host_tick */
    uint64_t edit_batches;   /* gc_host_edits calls that changed cells */
    uint64_t queue_resets;   /* times the queue was found damaged and made
                                again */
    uint64_t searches_total; /* searches in the published windows */
    bool edits_on;           /* false once a queue could not be made again:
                                no more edits until the program restarts */
} gc_host_counts;

/* One window of figures for gc_host_publish_stats. */
typedef struct gc_host_window {
    double secs;        /* its length in wall seconds */
    uint64_t ticks;     /* ticks run in it */
    uint64_t uptime_ns; /* since the simulation started */
    uint64_t overruns;  /* ticks late so far (real time; 0 otherwise) */
} gc_host_window;

/*
 * Give the world's cells the content of `map` (NULL: leave them as they
 * are) in one batch (one grid generation), with its costs and cell size,
 * and return in *out the grid over the world's cells that the sim and the
 * host run on.  The caller frees *out with gc_grid_free before destroying
 * the world.  Errors as gc_world_grid's; GC_EINVAL when map's size is not
 * the world's.
 */
int gc_host_grid(gc_world *w, const gc_grid *map, gc_grid **out);

/* New host (GC_EINVAL without a world or grid, GC_ENOMEM).  The caller
 * owns *out and ends it with gc_host_free before the sim and the world. */
int gc_host_new(gc_host **out, const gc_host_config *cfg);

/* Free the host, its applier (edits staged in open batches are lost) and
 * its trace buffer.  NULL is a no-op. */
void gc_host_free(gc_host *h);

/*
 * Step 1, between ticks: check the queue and make it again when damaged
 * (reported through cfg.report, at most five messages a second), drain the
 * edits with the host's applier, and tell the sim the changed cells.
 * `queue_faults` is how many faults on the queue's mapping the program's
 * SIGBUS guard has caught so far (0 without one): a new count means the
 * queue was shrunk under the drain and is made again too.  The number of
 * changed cells goes to *changed (may be NULL).  Errors from the drain or
 * from gc_sim_grid_changed (GC_ENOMEM...); a queue that cannot be made
 * again is not an error: edits stop (gc_host_counts.edits_on).
 */
int gc_host_edits(gc_host *h, uint64_t now_ns, unsigned long queue_faults,
                  size_t *changed);

/* Step 2: follow the trace request and publish a finished trace (with a
 * sim), run one tick (gc_sim_tick's errors), publish the tick number. */
int gc_host_tick(gc_host *h);

/*
 * Whether step 3 is due after this tick, `since_ns` after the agents were
 * last published; `batch`: the loop runs ticks as fast as it can, not in
 * real time.  While a reader has the world attached (gc_world_watched):
 * after every tick in real time, at most 120 times a wall second in batch
 * (no reader can use more).  With none: four times a wall second, so that
 * one who attaches finds records at most a quarter of a second old
 * (with 100,000 agents the records are 7 to 10% of a tick).  And always
 * after edits were applied (gc_host_edits) since the last publish, so
 * that a tool that waited for its edit (gc_edit_wait) and exited finds
 * it in the next reader's records.  A program also publishes at its end.
 */
bool gc_host_publish_due(const gc_host *h, bool batch, uint64_t since_ns);

/* Step 3: publish the sim's agents as one snapshot (requires a sim), and
 * the whole remaining path of the agent the trace request names (the
 * viewer's selection) in the world's path section (gc_world_read_path). */
void gc_host_publish_agents(gc_host *h);

/*
 * Publish `n` waypoints (world units) as the whole remaining path of
 * `agent` (GC_WORLD_NO_AGENT: nobody's; published only once in a row),
 * at the host's tick.  gc_host_publish_agents does this for the requested
 * agent; a host without a sim calls it for the records it makes.  Waypoints
 * past the world's path capacity are dropped (the path length says so).
 */
void gc_host_publish_path(gc_host *h, uint32_t agent, uint32_t salt,
                          const gc_vec2 *pts, size_t n);

/* Publish `n` records the program made (a host without a sim).  Records
 * past the world's capacity are dropped. */
void gc_host_publish_records(gc_host *h, const gc_world_agent *recs,
                             uint32_t n);

/*
 * Publish the statistics of a window: with a sim, its window figures
 * (gc_sim_stats_window: the window is consumed, and copied to *out when
 * out is not NULL); without one, agents counted by state from the last
 * published records.  Edit counts come from the host's applier.
 */
void gc_host_publish_stats(gc_host *h, const gc_host_window *win,
                           gc_sim_stats *out);

/* The counters, and the applier (for its edit counts). */
void gc_host_counts_get(const gc_host *h, gc_host_counts *out);
const gc_edit_applier *gc_host_applier(const gc_host *h);

GC_END_DECLS
#endif
