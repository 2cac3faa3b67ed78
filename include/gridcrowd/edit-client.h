/*
 * gridcrowd/edit-client.h: the client half of the edit protocol, for any
 * program that edits a running daemon's grid (gridcrowd-ctl, the viewer,
 * yours): send edits, as one atomic batch or one by one; wait until the
 * daemon has applied them, noticing if it dies; and turn "make the grid
 * look like this map" into a short list of rectangles.
 *
 * What the edits mean and the batch rules are in edits.h; the queue is in
 * queue.h.  A client attaches with gc_world_attach(..., GC_WORLD_ATTACH_QUEUE)
 * and passes gc_world_queue(w) here.  Compiles as C and as C++.
 */
#ifndef GRIDCROWD_EDIT_CLIENT_H
#define GRIDCROWD_EDIT_CLIENT_H

#include <stddef.h>
#include <stdint.h>

#include <gridcrowd/common.h>
#include <gridcrowd/edits.h>
#include <gridcrowd/queue.h>
#include <gridcrowd/sim.h>
#include <gridcrowd/world.h>

GC_BEGIN_DECLS

/*
 * A batch id for this process: random-ish and never 0, so that a reused
 * pid does not meet a batch of the process that had it before (the daemon
 * names a batch by sender pid and id).
 */
uint32_t gc_edit_batch_id(void);

/* gc_edit_send flags. */
enum {
    GC_EDIT_SEND_EACH = 1 /* push each edit on its own (no batch): each
                             applies as soon as the daemon drains it */
};

/* What gc_edit_send did, also when it failed part-way. */
typedef struct gc_edit_sent {
    size_t sent;       /* edits of ed[] pushed (a BATCH_END not counted) */
    uint32_t batch;    /* the batch id used; 0 when sent one by one */
    uint64_t wait_for; /* pass to gc_edit_wait to wait for everything that
                          was pushed: the last pushed entry's position + 1
                          (the BATCH_END included); 0 when nothing was */
} gc_edit_sent;

/*
 * Push ed[0..n) onto q.  Unless GC_EDIT_SEND_EACH (or n <= 1), as one
 * batch: each gets a fresh gc_edit_batch_id, and a BATCH_END with the count
 * follows, so that the daemon applies all of them in one tick or none.
 * Sets each edit's batch, and position, sender_pid and claim_ns as
 * gc_queue_push does.  Every push waits up to timeout_ns for room.  The
 * edits are not checked here: check them with gc_edit_check first, for a
 * clear message (the daemon checks again and counts a bad one as rejected).
 *
 * Returns GC_OK, or GC_EINVAL (no queue), GC_ETOOBIG (a batch of more than
 * GC_EDIT_MAX_BATCH edits: nothing is sent), or gc_queue_push's GC_EFULL,
 * GC_ETIMEOUT, GC_ECORRUPT for the push that failed, with *out (may be
 * NULL) saying what went before.  A batch that stops part-way is never
 * applied: the daemon drops it after its batch timeout.
 */
int gc_edit_send(gc_queue *q, gc_edit *ed, size_t n, unsigned flags,
                 uint64_t timeout_ns, gc_edit_sent *out);

/*
 * Wait until the daemon has dealt with (applied or rejected) every queue
 * position below `upto` (gc_world_edits_applied >= upto), polling from 1 ms
 * up to 20 ms.  Every 100 ms checks that the daemon is alive and not
 * stopping.  Returns GC_OK, GC_ETIMEOUT after timeout_ns, or GC_ENOENT when
 * the daemon went away (gc_world_pid names it).
 */
int gc_edit_wait(const gc_world *w, uint64_t upto, uint64_t timeout_ns);

/* How many of ed[0..n), pushed by gc_edit_send, the daemon has dealt with
 * so far (their position is below gc_world_edits_applied). */
size_t gc_edit_count_applied(const gc_world *w, const gc_edit *ed, size_t n);

/*
 * The edits that turn `cur` into `want` (both width x height cell types, as
 * gc_world_read_cells and gc_grid give them), touching only the cells that
 * differ: horizontal runs of one type, merged downwards into rectangles
 * while the row below has the same run; a single cell becomes a SET.
 * *out is allocated (NULL when there is nothing to change) and the caller
 * frees it with free(); *n gets the number of edits and *cells (may be
 * NULL) the number of cells they change.  GC_ENOMEM, GC_EINVAL.
 */
int gc_edit_diff(const uint8_t *cur, const uint8_t *want, int32_t width,
                 int32_t height, gc_edit **out, size_t *n, uint64_t *cells);

/* ---- Agent commands ------------------------------------------------------
 *
 * One agent command (edits.h) at a time, with its answer when the caller
 * wants one.  Each command gets a fresh random client_token
 * (gc_edit_token), so that its answer is told apart from every other
 * tool's.  `ans` NULL: the command is pushed and the call returns (the
 * daemon applies it in its next drain, or refuses it, unseen).  `ans` not
 * NULL: the command asks for an answer (GC_EDIT_F_ANSWER) and the call
 * waits for it up to timeout_ns, copies it to *ans and returns its code:
 * GC_OK when applied, else the code the daemon refused it with (ans->reason
 * names the reason, gc_edit_reason_name).  Other returns: gc_queue_push's
 * (GC_EFULL, GC_ETIMEOUT, GC_ECORRUPT), GC_ETIMEOUT (no answer in time),
 * GC_ENOENT (the daemon went away), GC_EAGAIN (the daemon answered, but
 * so many answers came after that the ring overwrote it before it was
 * read: the command's fate is unknown here).  Handles are sim.h's.
 */

/* A 64-bit random number for a client_token (getrandom, else the clock
 * and the pid mixed); never 0. */
uint64_t gc_edit_token(void);

/* Push e as is (a fresh token first) and, with ans, wait for its answer:
 * the primitive under the calls below. */
int gc_edit_command(gc_world *w, gc_edit *e, uint64_t timeout_ns,
                    gc_world_answer *ans);

/* Wait for the answer to e, pushed with GC_EDIT_F_ANSWER (or a SPAWN). */
int gc_edit_wait_answer(const gc_world *w, const gc_edit *e,
                        uint64_t timeout_ns, gc_world_answer *ans);

/* Spawn: always waits (the answer carries the handle, written to *out). */
int gc_edit_spawn(gc_world *w, const gc_spawn_spec *sp, uint64_t timeout_ns,
                  gc_agent_handle *out, gc_world_answer *ans);

/*
 * Why a SPAWN of `sp` was refused with `code` (its answer's code), as one
 * line without a newline in buf (n bytes; truncated to fit).  For
 * GC_EOUTSIDE and GC_EBLOCKED the answer does not say whether the position
 * or the goal was refused, so this finds out from the world's map as it is
 * now, by the daemon's rule (position first): "goal (99, 2) is off the
 * 32x24 map", "position (5.5, 4.5) is in impassable cell (5, 4)".  For
 * other codes, or when the map no longer shows which (an edit came
 * between), gc_strerror(code): among them GC_EOVERLAP, a body that would
 * reach into a wall or another agent, which the answer does not tell
 * apart.  Reads the world's cells (a copy of the map, allocated and
 * freed here); safe from any thread that may read the world.  Returns buf.
 */
const char *gc_edit_spawn_why(const gc_world *w, const gc_spawn_spec *sp,
                              int code, char *buf, size_t n);

int gc_edit_remove(gc_world *w, gc_agent_handle h, uint64_t timeout_ns,
                   gc_world_answer *ans);
int gc_edit_goal_point(gc_world *w, gc_agent_handle h, float x, float y,
                       uint64_t timeout_ns, gc_world_answer *ans);
int gc_edit_goal_wander(gc_world *w, gc_agent_handle h, uint64_t timeout_ns,
                        gc_world_answer *ans);
int gc_edit_goal_stop(gc_world *w, gc_agent_handle h, uint64_t timeout_ns,
                      gc_world_answer *ans);
int gc_edit_goal_follow(gc_world *w, gc_agent_handle h, gc_agent_handle target,
                        float stop_distance, uint64_t timeout_ns,
                        gc_world_answer *ans);
int gc_edit_speed(gc_world *w, gc_agent_handle h, float speed,
                  uint64_t timeout_ns, gc_world_answer *ans);
int gc_edit_radius(gc_world *w, gc_agent_handle h, float radius,
                   uint64_t timeout_ns, gc_world_answer *ans);

GC_END_DECLS
#endif
