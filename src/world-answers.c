/*
 * world-answers.c: the answers section: the daemon's answers to commands
 * that asked for one, and the readers' search for their own.
 *
 * Rules kept (world-layout.h has the protocol):
 *   - One writer, the daemon's loop, between ticks; readers never block
 *     it.  Answer k goes to slot k % capacity, overwriting the oldest:
 *     a reader that is slow loses its answer, never the daemon its time.
 *   - Each slot is its own seqlock (odd while written); a reader copies a
 *     slot, checks seq before and after, and retries a torn copy a bounded
 *     number of times.
 *   - Readers trust nothing they read: a slot is matched on all three of
 *     (sender_pid, token, position), and nothing read is used as an index.
 */
#include "config.h"

#include "world_int.h"

#include <sched.h>
#include <string.h>

uint32_t
gc_world_answer_capacity(const gc_world *w)
{
    return w->lay.answer_capacity;
}

int
gc_world_answer_publish(gc_world *w, const gc_world_answer *a)
{
    if (w == NULL || a == NULL)
        return GC_EINVAL;
    if (!w->owner)
        return GC_EPERM;
    gc_world_answers_hdr *h = world_answers_hdr(w);
    uint64_t k = atomic_load_explicit(&h->written, memory_order_relaxed);
    gc_world_answer_slot *s =
        &world_answer_slots(w)[k % w->lay.answer_capacity];
    uint64_t seq = atomic_load_explicit(&s->seq, memory_order_relaxed);
    assert(seq % 2 == 0); /* a seqlock writer starts from an even count */
    atomic_store_explicit(&s->seq, seq + 1, memory_order_relaxed);
    atomic_thread_fence(memory_order_release);
    atomic_store_explicit(&s->position, a->position, memory_order_relaxed);
    atomic_store_explicit(&s->token, a->token, memory_order_relaxed);
    atomic_store_explicit(&s->tick, a->tick, memory_order_relaxed);
    atomic_store_explicit(&s->sender_pid, a->sender_pid, memory_order_relaxed);
    atomic_store_explicit(&s->op, a->op, memory_order_relaxed);
    atomic_store_explicit(&s->code, a->code, memory_order_relaxed);
    atomic_store_explicit(&s->reason, (uint32_t)(a->reason + 1),
                          memory_order_relaxed);
    atomic_store_explicit(&s->handle, a->handle, memory_order_relaxed);
    atomic_store_explicit(&s->seq, seq + 2, memory_order_release);
    atomic_store_explicit(&h->written, k + 1, memory_order_release);
    return GC_OK;
}

/* Copy slot s if it holds the answer asked for: 1 found, 0 not it, -1
 * torn (retry). */
static int
read_slot(const gc_world_answer_slot *s, uint32_t pid, uint64_t token,
          uint64_t position, gc_world_answer *out)
{
    uint64_t s1 = atomic_load_explicit(&s->seq, memory_order_acquire);
    if (s1 % 2 != 0)
        return -1;
    /* Cheap filter first: most slots are someone else's. */
    if (atomic_load_explicit(&s->token, memory_order_relaxed) != token ||
        atomic_load_explicit(&s->position, memory_order_relaxed) != position)
        return 0;
    gc_world_answer a;
    a.position = position;
    a.token = token;
    a.tick = atomic_load_explicit(&s->tick, memory_order_relaxed);
    a.sender_pid = atomic_load_explicit(&s->sender_pid, memory_order_relaxed);
    a.op = atomic_load_explicit(&s->op, memory_order_relaxed);
    a.code = atomic_load_explicit(&s->code, memory_order_relaxed);
    a.reason =
        (int32_t)atomic_load_explicit(&s->reason, memory_order_relaxed) - 1;
    a.handle = atomic_load_explicit(&s->handle, memory_order_relaxed);
    atomic_thread_fence(memory_order_acquire);
    uint64_t s2 = atomic_load_explicit(&s->seq, memory_order_relaxed);
    if (s2 != s1)
        return -1;
    if (a.sender_pid != pid)
        return 0;
    *out = a;
    return 1;
}

int
gc_world_find_answer(const gc_world *w, uint32_t sender_pid, uint64_t token,
                     uint64_t position, gc_world_answer *out)
{
    if (w == NULL || out == NULL)
        return GC_EINVAL;
    const gc_world_answer_slot *slots = world_answer_slots(w);
    for (uint32_t i = 0; i < w->lay.answer_capacity; i++) {
        int r = -1;
        for (int tries = 0; r < 0 && tries < GC_WORLD_READ_ATTEMPTS; tries++) {
            r = read_slot(&slots[i], sender_pid, token, position, out);
            if (r < 0)
                sched_yield();
        }
        if (r < 0)
            return GC_EBUSY;
        if (r == 1)
            return GC_OK;
    }
    return GC_EAGAIN;
}
