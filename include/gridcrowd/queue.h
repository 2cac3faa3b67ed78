/*
 * gridcrowd/queue.h: the edit queue, /NAME.edits, a bounded lock-free ring
 * that any number of processes push edits into and the daemon pops from.
 *
 * Names.  The edit subsystem has three parts under two prefixes:
 *   gc_queue_*   the ring and its object (this header): push, pop, pending,
 *                head, tail, validate, intact, reset.  A gc_queue belongs
 *                to a gc_world handle (gc_world_queue) and lives as long as
 *                it does.
 *   gc_edit_*    what an entry means and what is done with it: gc_edit (one
 *                entry), gc_edit_check, the daemon's applier (edits.h) and
 *                the client half: batches, waiting, diffing (edit-client.h).
 * The object keeps its name, NAME.edits: that is part of the protocol
 * between processes, not of the C API.
 *
 * The raw layout of the object (gc_queue_header, gc_queue_entry) is in the
 * C-only gridcrowd/world-layout.h; this header compiles as C and as C++.
 */
#ifndef GRIDCROWD_QUEUE_H
#define GRIDCROWD_QUEUE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <gridcrowd/common.h>
#include <gridcrowd/error.h>

GC_BEGIN_DECLS

/* The queue's object name is the world's plus this suffix. */
#define GC_QUEUE_SUFFIX ".edits"
#define GC_QUEUE_DEFAULT_CAPACITY 4096u
#define GC_QUEUE_MAX_CAPACITY (1u << 20)

/* A process-local handle on an edit queue; see gc_world_queue. */
typedef struct gc_queue gc_queue;

/* An edit as producers give it and the daemon receives it.  What the
 * fields mean is in edits.h. */
typedef struct gc_edit {
    uint32_t op, type;
    int32_t x0, y0, x1, y1;
    uint32_t batch;
    uint32_t sender_pid; /* set by gc_queue_push */
    uint64_t client_token;
    uint64_t claim_ns; /* set by gc_queue_push (CLOCK_MONOTONIC) */
    uint64_t position; /* set by push and pop: its queue position */
    /* Agent commands (queue layout version 2; edits.h gives their
     * meaning); zero in cell edits.  Positions and values are plain
     * floats in world units. */
    uint32_t agent;   /* the agent's handle (gc_agent_handle) */
    uint32_t target;  /* GOAL follow: the followed agent's handle */
    uint32_t group;   /* SPAWN: the new agent's group */
    uint32_t flags;   /* GC_EDIT_F_* */
    float px, py;     /* SPAWN: position; GOAL point: the point */
    float gx, gy;     /* SPAWN with GC_EDIT_F_GOAL: the goal */
    float radius;     /* SPAWN (<= 0: default), RADIUS */
    float speed;      /* SPAWN (<= 0: default), SPEED */
    float dist;       /* GOAL follow: the stop distance */
} gc_edit;

/*
 * Check that `size` bytes at `base` (8-byte aligned) are a well-formed
 * edit-queue object of this layout version (see gc_world_validate).
 */
int gc_queue_validate(const void *base, size_t size, gc_error *err);

/* "/NAME.edits" (for messages; a placeholder for NULL). */
const char *gc_queue_name(const gc_queue *q);

/*
 * Put an edit on the queue (any process that attached with
 * GC_WORLD_ATTACH_QUEUE, or the owner).  Waits up to timeout_ns while the
 * queue is full, then returns GC_EFULL.  Returns GC_ETIMEOUT if the daemon
 * gave up waiting for this entry (the producer stalled longer than the
 * claim timeout between claim and publish): the edit was dropped and will
 * never be applied.  On success e->position, sender_pid and claim_ns are
 * set.  GC_EINVAL on a NULL queue or one that is not mapped.
 */
int gc_queue_push(gc_queue *q, gc_edit *e, uint64_t timeout_ns);

/*
 * Take the next edit (the daemon only: GC_EPERM otherwise).  Returns GC_OK
 * and fills *out, or GC_EAGAIN when there is nothing to take now: the queue
 * is empty, or its next entry is claimed but not yet published.  An entry that stays
 * claimed but unpublished for the header's claim_timeout_ns (measured from
 * when this handle first saw it so, since the producer's own claim_ns may
 * not be written yet) is skipped: that call returns GC_ETIMEOUT, with
 * out->position set, and the next call goes on with the entry after it.  An
 * entry whose check fails, or a slot in an impossible state, is skipped with
 * GC_ECORRUPT.  When the queue header's magic is not there any more
 * (scribbled on, or the object truncated), takes nothing and returns
 * GC_EBADMAGIC.  Never blocks.  GC_EINVAL on a NULL or unmapped queue.
 */
int gc_queue_pop(gc_queue *q, gc_edit *out);

/* Entries claimed but not yet consumed (tail - head), for the counters;
 * never more than the capacity, whatever a producer wrote in the tail.
 * 0 on a NULL or unmapped queue, as are the four below. */
uint64_t gc_queue_pending(const gc_queue *q);

/* The next position the daemon will consume: on the owner's handle its own
 * copy (never read back from the queue, which producers can write); on
 * others the header's head (acquire). */
uint64_t gc_queue_head(const gc_queue *q);

/* The next position a producer will claim (the queue's tail; relaxed).
 * Every entry pushed before this call returned has a smaller position: a
 * tool waits for gc_world_edits_applied to reach it. */
uint64_t gc_queue_tail(const gc_queue *q);

/* Entries in the ring and the claim timeout, as validated at attach or
 * chosen at creation (not re-read from the queue). */
uint32_t gc_queue_capacity(const gc_queue *q);
uint64_t gc_queue_claim_timeout_ns(const gc_queue *q);

/*
 * The daemon's check that nobody damaged its queue object: its size (fstat)
 * and every fixed header field are as gc_world_create made them.  GC_OK, or
 * GC_ECORRUPT with a message ("/NAME.edits: resized to 0 bytes by another
 * process (it was 262400)", "... header overwritten by another process");
 * GC_EPERM on a reader's handle, GC_EINVAL when not mapped.  Anyone allowed
 * to edit can write that object, shrink it or scribble on it; gc_queue_pop
 * then takes nothing (GC_EBADMAGIC) until the owner makes it again.
 */
int gc_queue_intact(const gc_queue *q, gc_error *err);

/*
 * Make the edit queue again (the daemon, after gc_queue_intact failed):
 * unlink the damaged object, create, size, lock and map a new one with the
 * same name, mode and group, empty, whose positions continue from the
 * daemon's (so edits_applied never goes back).  Producers attached to the
 * old object lose what they push there; tools attach afresh for each
 * command.  Entries held in open batches stay with the applier.  The new
 * mapping replaces the old one.  On error the queue is not mapped (push and
 * pop say GC_EINVAL, gc_queue_hdr is NULL; a later reset may succeed) and
 * nothing is left in /dev/shm; errors as gc_world_create's.
 */
int gc_queue_reset(gc_queue *q, gc_error *err);

GC_END_DECLS
#endif
