/*
 * gridcrowd/edits.h: what goes through the edit queue, and the daemon's
 * side of it: checking and applying edits between ticks.
 *
 * The queue itself (a bounded ring in /NAME.edits, gc_queue_push and
 * gc_queue_pop) is in queue.h, and the client half (batches, waiting,
 * diffing a map) in edit-client.h.  This header gives the entries their
 * meaning.  An edit is untrusted input: every field is checked before
 * anything is applied, and a bad entry is counted by reason, never applied.
 *
 * Operations (gc_edit.op):
 *   GC_EDIT_SET    cell (x0, y0) becomes `type`; x1 and y1 are 0
 *   GC_EDIT_RECT   every cell of the inclusive rectangle with corners
 *                  (x0, y0) and (x1, y1), given in any order (the corners
 *                  are normalised, so (5, 5)-(2, 3) is (2, 3)-(5, 5))
 *   GC_EDIT_LINE   every cell of the line between (x0, y0) and (x1, y1):
 *                  integer Bresenham, 8-connected, max(|dx|, |dy|) + 1
 *                  cells, drawn from the endpoint with the smaller x (the
 *                  smaller y on a tie), so both directions give the same
 *                  cells
 *   GC_EDIT_BATCH_END  closes batch `batch` of this sender: the entries
 *                  with a non-zero `batch` are held until their END arrives
 *                  and then applied together in one tick; x0 holds the
 *                  number of SET, RECT and LINE entries the batch has (the
 *                  END itself not counted, 0..GC_EDIT_MAX_BATCH); type, y0,
 *                  x1 and y1 are 0
 *   GC_EDIT_TRACE  ask the daemon to record the searches of agent x0
 *                  (salt y0, both read as uint32) for the viewer;
 *                  x0 = GC_WORLD_NO_AGENT (UINT32_MAX): none; type, x1, y1
 *                  and batch are 0
 *
 * Agent commands (queue layout version 2).  Agents are named by handle
 * (sim.h: slot index and generation salt); positions are world units,
 * carried as plain floats in the entry's float fields (never NaN or
 * infinite: such an entry is rejected as bad_value).  They can be batched
 * like cell edits (a batch's commands apply in order at its END; each
 * command may still be refused by the simulation when it applies, and
 * then only that command is refused, under its own reason).
 *   GC_EDIT_SPAWN  an agent at (px, py); with GC_EDIT_F_GOAL its goal is
 *                  (gx, gy); radius and speed (<= 0: the daemon's
 *                  defaults), group.  Always answered: the answer carries
 *                  the new agent's handle.
 *   GC_EDIT_REMOVE agent `agent`
 *   GC_EDIT_GOAL   agent `agent`; type is the goal: GC_EDIT_GOAL_POINT
 *                  (px, py), _WANDER, _STOP, or _FOLLOW agent `target`
 *                  (not itself: bad_agent), stopping `dist` (>= 0) from
 *                  it
 *   GC_EDIT_SPEED  agent `agent`'s speed becomes `speed` (> 0)
 *   GC_EDIT_RADIUS agent `agent`'s radius becomes `radius` (>= 0)
 * Checked in this order: op, the goal kind (bad_type), unused fields and
 * flags (bad_field), handles that must not be 0 (bad_agent), values
 * (bad_value); the map, the handles' life and the room are the
 * simulation's to check when it applies the command.
 * flags: GC_EDIT_F_ANSWER (any op but TRACE: the daemon answers it,
 * applied or refused with its reason, in the world's answers section,
 * keyed by (sender_pid, client_token, position): gc_world_find_answer;
 * a batch member is answered when its END comes), GC_EDIT_F_GOAL (SPAWN
 * only).  Other flags are bad_field.  Cell edits, BATCH_END and TRACE
 * must have every agent field zero.
 *
 * `type` is a GC_CELL_* value (GOAL: the goal kind).  Fields an operation
 * does not use must be zero.  Cells outside the map, unknown ops or types, rectangles or lines
 * of more than GC_EDIT_MAX_CELLS cells are rejected whole.  sender_pid and
 * client_token are not interpreted, except that (sender_pid, batch) names a
 * batch.
 *
 * Batches.  A batch is all-or-nothing: its entries are applied, in queue
 * order, when its END arrives and only if every one of them was accepted
 * and their number is the END's count; otherwise all of them are rejected
 * (reason batch_incomplete).  A batch whose END does not come within the
 * batch timeout (its sender died, or was stopped halfway) is dropped
 * (batch_timeout).  A sender picks batch ids that it does not reuse within
 * the batch timeout (gridcrowd-ctl takes random ones), and sends no more
 * than GC_EDIT_MAX_BATCH entries in one batch.  Unbatched entries apply in
 * the tick that drains them; a batch applies at the position of its END.
 */
#ifndef GRIDCROWD_EDITS_H
#define GRIDCROWD_EDITS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <gridcrowd/common.h>
#include <gridcrowd/error.h>
#include <gridcrowd/grid.h>
#include <gridcrowd/world.h>

GC_BEGIN_DECLS

enum {
    GC_EDIT_SET = 1,
    GC_EDIT_RECT = 2,
    GC_EDIT_LINE = 3,
    GC_EDIT_BATCH_END = 4,
    GC_EDIT_TRACE = 5,
    GC_EDIT_SPAWN = 6,
    GC_EDIT_REMOVE = 7,
    GC_EDIT_GOAL = 8,
    GC_EDIT_SPEED = 9,
    GC_EDIT_RADIUS = 10
};

/* GC_EDIT_GOAL's type. */
enum {
    GC_EDIT_GOAL_POINT = 1,
    GC_EDIT_GOAL_WANDER = 2,
    GC_EDIT_GOAL_STOP = 3,
    GC_EDIT_GOAL_FOLLOW = 4
};

/* gc_edit.flags */
#define GC_EDIT_F_ANSWER 1u /* answer it: applied or refused */
#define GC_EDIT_F_GOAL 2u   /* SPAWN: gx, gy is the goal */

/* Whether op is an agent command (SPAWN .. RADIUS). */
static inline int
gc_edit_is_agent_op(uint32_t op)
{
    return op >= GC_EDIT_SPAWN && op <= GC_EDIT_RADIUS;
}

/* Largest number of cells one RECT or LINE may touch. */
#define GC_EDIT_MAX_CELLS ((size_t)1 << 24)

/* Most SET, RECT and LINE entries in one batch. */
#define GC_EDIT_MAX_BATCH 65536u

/* Applier defaults (gc_edit_applier_config). */
#define GC_EDIT_DEFAULT_OPEN_BATCHES 64u
#define GC_EDIT_DEFAULT_STAGED (1u << 18)
#define GC_EDIT_DEFAULT_BATCH_TIMEOUT_MS 5000u
#define GC_EDIT_DEFAULT_CELL_BUDGET ((uint64_t)1 << 26)

/*
 * Why an entry was rejected.  Every rejected queue entry is counted under
 * exactly one reason, so the counts add up to the rejected total.
 */
typedef enum gc_edit_reason {
    GC_EDIT_R_BAD_OP = 0,       /* "bad_op": unknown operation */
    GC_EDIT_R_BAD_TYPE,         /* "bad_type": unknown cell type */
    GC_EDIT_R_BAD_FIELD,        /* "bad_field": an unused field not zero */
    GC_EDIT_R_OUT_OF_BOUNDS,    /* "out_of_bounds": a cell off the map */
    GC_EDIT_R_TOO_BIG,          /* "too_big": over GC_EDIT_MAX_CELLS */
    GC_EDIT_R_BAD_BATCH,        /* "bad_batch": END with batch 0 or a
                                   count out of range, batched TRACE */
    GC_EDIT_R_BAD_AGENT,        /* "bad_agent": TRACE of an agent index
                                   past the world's capacity */
    GC_EDIT_R_BATCH_INCOMPLETE, /* "batch_incomplete": the staged members
                                   and the END of a batch whose END came
                                   but whose entries did not all arrive
                                   and pass their check */
    GC_EDIT_R_BATCH_TIMEOUT,    /* "batch_timeout": a member of a batch
                                   whose END did not come in time */
    GC_EDIT_R_BATCH_OVERFLOW,   /* "batch_overflow": too many open batches,
                                   staged entries, or entries in one batch */
    GC_EDIT_R_NO_MEMORY,        /* "no_memory": the daemon could not
                                   allocate what applying it needed */
    GC_EDIT_R_CORRUPT,          /* "corrupt": the entry failed its check,
                                   or its slot was in no legal state */
    GC_EDIT_R_DEAD_CLAIM,       /* "dead_claim": claimed and never
                                   published within the claim timeout */
    /* Agent commands: found by the check (bad_value) or refused by the
     * simulation when applied (the rest). */
    GC_EDIT_R_BAD_VALUE,        /* "bad_value": a float not finite, or a
                                   speed, radius or distance out of range */
    GC_EDIT_R_STALE_AGENT,      /* "stale_agent": the handle names no live
                                   agent (removed, or never was) */
    GC_EDIT_R_CAPACITY,         /* "capacity": every agent slot in use */
    GC_EDIT_R_BLOCKED,          /* "blocked": position or goal in an
                                   impassable cell */
    GC_EDIT_R_OVERLAP,          /* "overlap": the body would overlap a
                                   wall or another body */
    GC_EDIT_R_NO_AGENTS,        /* "no_agents": the daemon runs no
                                   simulation */
    GC_EDIT_NREASONS
} gc_edit_reason;

/* The reason's name as above ("out_of_bounds"), or NULL when out of range. */
const char *gc_edit_reason_name(int reason);

/* The reason an agent command refused by the simulation with `code`
 * (sim.h) is counted under: GC_EGONE and GC_EINVAL stale_agent,
 * GC_ECAPACITY capacity, GC_EBLOCKED blocked, GC_EOUTSIDE out_of_bounds,
 * GC_EOVERLAP overlap, GC_ERANGE bad_value, GC_ENOMEM no_memory. */
int gc_edit_reason_of(int code);

/*
 * Check every field of `e` against a map of width x height cells: op, type,
 * unused fields, bounds, size, batch fields.  Returns GC_OK, or GC_EINVAL
 * (bad_op, bad_type, bad_field, bad_batch), GC_EOUTSIDE (out_of_bounds) or
 * GC_ETOOBIG (too_big) and, when `reason` is not NULL, the reason's name
 * (a static string; NULL on success).  TRACE's agent index is not checked
 * here: it depends on the world (the applier rejects it as bad_agent).
 * Tools call this before pushing, the daemon on everything it pops.
 */
int gc_edit_check(const gc_edit *e, int32_t width, int32_t height,
                  const char **reason);

/* Cells a SET, RECT or LINE covers: 1, the rectangle's area (UINT64_MAX
 * when that does not fit), max(|dx|, |dy|) + 1; 0 for other ops. */
uint64_t gc_edit_cell_count(const gc_edit *e);

/* ---- The daemon's applier ------------------------------------------------ */

/* Staging, counters and scratch space of the daemon's edit applier. */
typedef struct gc_edit_applier gc_edit_applier;

/* Zero fields take the defaults. */
typedef struct gc_edit_applier_config {
    uint32_t max_open_batches; /* batches staged at once; default
                                  GC_EDIT_DEFAULT_OPEN_BATCHES */
    uint32_t max_staged;       /* entries staged over all batches; default
                                  GC_EDIT_DEFAULT_STAGED */
    uint32_t batch_timeout_ms; /* default GC_EDIT_DEFAULT_BATCH_TIMEOUT_MS;
                                  never less than the queue's claim
                                  timeout + 1 s, since a batch's next entry
                                  can wait that long behind a dead claim */
    uint32_t max_pops;         /* entries taken per drain; default 4 times
                                  the queue's capacity */
    uint64_t cell_budget;      /* cell writes per drain after which it
                                  stops taking entries (the entry that
                                  crosses it is still applied whole);
                                  default GC_EDIT_DEFAULT_CELL_BUDGET */
    /* Called for each SET, RECT or LINE as it is applied (a batch's
     * members when its END applies them), in order, with the entry as
     * checked; NULL: nobody is told.  A recorder uses it to keep every
     * applied edit.  It runs inside the drain: it must not touch the
     * world or the grid. */
    void (*on_apply)(void *arg, const gc_edit *e);
    void *on_apply_arg;
    /* Apply one agent command that passed its check, in queue order (a
     * batch's at its END), and return GC_OK (SPAWN: the new handle in
     * *handle) or the code the simulation refused it with (its reason:
     * gc_edit_reason_of).  NULL: agent commands are refused (no_agents).  It
     * runs inside the drain, between ticks. */
    int (*on_agent)(void *arg, const gc_edit *e, uint32_t *handle);
    void *on_agent_arg;
} gc_edit_applier_config;

/* The applier's counters, cumulative since gc_edit_applier_new. */
typedef struct gc_edit_counts {
    uint64_t accepted;     /* entries applied: SET, RECT, LINE, the ENDs
                              of applied batches, TRACE */
    uint64_t rejected;     /* entries rejected: the sum of by_reason */
    uint64_t pending;      /* in the queue, not yet taken, plus staged
                              (as of the last drain) */
    uint64_t staged;       /* entries held in open batches */
    uint64_t open_batches; /* batches with staged or rejected entries
                              waiting for their END */
    uint64_t applied;      /* queue position published as edits_applied */
    uint64_t batches_applied;
    uint64_t batches_dropped; /* rejected at their END, or timed out */
    uint64_t cells_changed;   /* cells whose type changed, over all drains */
    uint64_t generations;     /* drains that changed cells: generation bumps */
    uint64_t by_reason[GC_EDIT_NREASONS];
} gc_edit_counts;

/*
 * New applier (cfg may be NULL: all defaults).  GC_ENOMEM; GC_EINVAL for a
 * NULL out.  The caller (the daemon) owns *out and ends it with
 * gc_edit_applier_free.  Staged batches live in the applier, not in the
 * queue: freeing it forgets them (their senders' edits are lost, which the
 * daemon only does when it exits).
 */
int gc_edit_applier_new(gc_edit_applier **out,
                        const gc_edit_applier_config *cfg);

/* Free the applier and everything it holds.  NULL is allowed. */
void gc_edit_applier_free(gc_edit_applier *a);

/*
 * The daemon's step between ticks, on the simulation thread with the agent
 * threads parked.  Takes every entry available from w's queue (at most
 * max_pops, and no more once cell_budget cell writes were done), checks
 * each one, applies the unbatched ones and every batch whose END came, in
 * queue order, to `g`, which must be the grid over w's cells
 * (gc_world_grid) or at least have w's size; handles TRACE requests; drops
 * batches that timed out (only once the queue has been emptied, so that a
 * batch whose entries are merely behind others is never dropped); and
 * publishes the counters and edits_applied in w's header.
 *
 * All cell changes of one call happen inside one gc_world_cells_begin/end
 * pair, opened only when a cell's type actually changes: the world's
 * generation (and g->generation) goes up by exactly one per call that
 * changed a cell's type (even if a later edit of the same call changed it
 * back), and not at all otherwise.  (If the caller already holds the pair
 * open, the changes go inside it and the caller's end bumps the world's
 * generation.)  An entry is applied at
 * most once (the queue gives each position once; a batch is forgotten when
 * it is applied or dropped).
 *
 * now_ns is CLOCK_MONOTONIC in nanoseconds (batch timeouts).  On return
 * *changed (may be NULL) points at the *n_changed (may be NULL) cells
 * whose type differs from what it was when the call began, each once, in
 * the order they first changed; the array belongs to the applier and
 * stays valid until its next drain or free.  The daemon passes them on to
 * the simulation for replanning.
 *
 * Returns GC_OK (also when entries were rejected: they are counted), or
 * GC_EINVAL (NULL arguments, no queue on w, g not of w's size), GC_EPERM
 * (w is not the owner's handle), GC_ENOMEM (before anything was taken).
 */
int gc_edit_applier_drain(gc_edit_applier *a, gc_world *w, gc_grid *g,
                          uint64_t now_ns, const gc_cell **changed,
                          size_t *n_changed);

/* Copy the counters.  Cheap; for the daemon's status line and summary. */
void gc_edit_applier_counts(const gc_edit_applier *a, gc_edit_counts *out);

GC_END_DECLS
#endif
