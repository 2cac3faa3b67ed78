/*
 * queue.c: the edit queue, /NAME.edits: a lock-free ring that any number
 * of processes push edits into and the daemon pops from.
 *
 * - The ring is a Vyukov bounded queue with one consumer (the daemon).
 *   A producer can die between claiming a slot and publishing it; the
 *   daemon then waits claim_timeout_ns, timed from when it first saw the
 *   slot stuck (the producer may have died before writing claim_ns), and
 *   skips it by moving the slot's seq on with a CAS.  The producer publishes
 *   with a CAS too, so a late publish fails instead of slipping an entry
 *   into a later lap: nothing is applied twice, and a stalled producer
 *   learns its edit was dropped (GC_ETIMEOUT).  A per-entry check over the
 *   position and payload catches the one remaining hazard, a stalled
 *   producer's late stores landing in the slot's next occupant.  Producers
 *   never wait for the daemon except when the ring is full (bounded by
 *   their timeout), and the daemon never waits at all.
 * - Whoever may edit can write the whole queue object, header included, and
 *   can even shrink it.  So the daemon keeps its own copies of what it
 *   consumes by (capacity, claim timeout, head) and only publishes head; a
 *   scribbled tail can at worst make it skip entries as dead claims, never
 *   take one twice; pending counts are capped at the capacity; and
 *   gc_queue_intact / gc_queue_reset let it notice a damaged object (size
 *   by fstat, fixed fields) and make a fresh one.  (Reading a mapping past
 *   a shrunk object's end raises SIGBUS: the daemon guards against that
 *   itself, since a library must not own signal handlers.)
 * - The consumer's fields of struct gc_queue (head, stalled, stall_*) are
 *   the owner's, used only by the thread that pops (debug builds assert
 *   the owner; a second consumer thread would be a caller's bug that no
 *   cheap assert can see).
 */
#include "config.h"

#include "world_int.h"

#include <gridcrowd/util.h>

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

/* ---- The object ---------------------------------------------------------- */

static gc_queue_header *
queue_hdr(const gc_queue *q)
{
    return (gc_queue_header *)(void *)q->base;
}

static gc_queue_entry *
queue_entries(const gc_queue *q)
{
    return (gc_queue_entry *)(void *)(q->base + sizeof(gc_queue_header));
}

/* A fresh queue whose first position is `start` (0 for a new world; the
 * consumer's position when the queue is made again, so that positions and
 * edits_applied never go backwards). */
void
gc_queue_init(gc_queue *q, uint32_t capacity, uint64_t start)
{
    GC_ASSERT_OWNER(q); /* only the daemon makes a queue */
    assert(capacity >= 2 && (capacity & (capacity - 1)) == 0);
    q->cap = capacity;
    q->head = start;
    q->stalled = false;
    gc_queue_header *e = (gc_queue_header *)(void *)q->base;
    e->version = GC_QUEUE_VERSION;
    e->header_size = sizeof(gc_queue_header);
    e->total_size = gc_layout_queue_size(capacity);
    e->capacity = capacity;
    e->entry_size = sizeof(gc_queue_entry);
    e->pid = (int32_t)q->pid;
    e->claim_timeout_ns = q->claim_timeout_ns;
    /* Vyukov ring: slot i starts free for the position p in
     * [start, start + capacity) with p = i modulo the capacity. */
    gc_queue_entry *ent =
        (gc_queue_entry *)(void *)(q->base + sizeof(gc_queue_header));
    const uint64_t mask = capacity - 1;
    for (uint32_t i = 0; i < capacity; i++)
        atomic_store_explicit(&ent[i].seq, start + ((i - start) & mask),
                              memory_order_relaxed);
    atomic_store_explicit(&e->head, start, memory_order_relaxed);
    atomic_store_explicit(&e->tail, start, memory_order_relaxed);
    atomic_store_explicit(&e->magic, GC_QUEUE_MAGIC, memory_order_release);
}

/* ---- The ring ------------------------------------------------------------ */

static uint64_t
mix64(uint64_t h)
{
    h ^= h >> 30;
    h *= UINT64_C(0xbf58476d1ce4e5b9);
    h ^= h >> 27;
    h *= UINT64_C(0x94d049bb133111eb);
    h ^= h >> 31;
    return h;
}

/* The entry's check: its position and every payload field.  Not a defence
 * against a malicious writer (who can compute it too), but against a
 * stalled producer's late stores mixing into someone else's entry. */
static uint32_t
fbits(float f)
{
    uint32_t u;
    memcpy(&u, &f, sizeof u);
    return u;
}

static uint64_t
edit_check(uint64_t pos, const gc_edit *e)
{
    const uint64_t words[11] = {
        (uint64_t)e->op << 32 | e->type,
        (uint64_t)(uint32_t)e->x0 << 32 | (uint32_t)e->y0,
        (uint64_t)(uint32_t)e->x1 << 32 | (uint32_t)e->y1,
        (uint64_t)e->batch << 32 | e->sender_pid,
        e->client_token,
        (uint64_t)e->agent << 32 | e->target,
        (uint64_t)e->group << 32 | e->flags,
        (uint64_t)fbits(e->px) << 32 | fbits(e->py),
        (uint64_t)fbits(e->gx) << 32 | fbits(e->gy),
        (uint64_t)fbits(e->radius) << 32 | fbits(e->speed),
        (uint64_t)fbits(e->dist),
    };
    uint64_t h = mix64(pos ^ GC_QUEUE_MAGIC);
    for (int i = 0; i < 11; i++)
        h = mix64(h ^ words[i]);
    return h;
}

int
gc_queue_push(gc_queue *q, gc_edit *e, uint64_t timeout_ns)
{
    if (q == NULL || q->base == NULL)
        return GC_EINVAL;
    gc_queue_header *h = queue_hdr(q);
    gc_queue_entry *ent = queue_entries(q);
    const uint64_t cap = q->cap;
    const uint64_t start = gc_clock_ns();
    const uint64_t deadline =
        timeout_ns > UINT64_MAX - start ? UINT64_MAX : start + timeout_ns;

    uint64_t pos = atomic_load_explicit(&h->tail, memory_order_relaxed);
    gc_queue_entry *slot;
    for (;;) {
        slot = &ent[pos & (cap - 1)];
        /* Acquire: pairs with the daemon freeing the slot, so our payload
         * stores come after its reads of the last lap's entry. */
        uint64_t seq = atomic_load_explicit(&slot->seq, memory_order_acquire);
        int64_t dif = (int64_t)(seq - pos);
        if (dif == 0) {
            if (atomic_compare_exchange_weak_explicit(&h->tail, &pos, pos + 1,
                                                      memory_order_relaxed,
                                                      memory_order_relaxed))
                break;
            continue; /* pos now holds the current tail */
        }
        if (dif < 0) {
            /* Full: the slot still holds the entry from a lap ago. */
            if (gc_clock_ns() >= deadline)
                return GC_EFULL;
            struct timespec nap = {0, 100 * 1000};
            nanosleep(&nap, NULL);
            pos = atomic_load_explicit(&h->tail, memory_order_relaxed);
            continue;
        }
        /* Someone claimed pos before us, so tail has moved on (the release
         * publish we just saw was made after their claim).  If it has not,
         * the queue has been scribbled on. */
        uint64_t t = atomic_load_explicit(&h->tail, memory_order_relaxed);
        if (t == pos)
            return GC_ECORRUPT;
        pos = t;
    }

    /* Claimed position pos.  Fill the slot, then publish. */
    uint64_t now = gc_clock_ns();
    atomic_store_explicit(&slot->claim_ns, now, memory_order_relaxed);
    e->sender_pid = (uint32_t)getpid();
    e->claim_ns = now;
    e->position = pos;
    slot->op = e->op;
    slot->type = e->type;
    slot->x0 = e->x0;
    slot->y0 = e->y0;
    slot->x1 = e->x1;
    slot->y1 = e->y1;
    slot->batch = e->batch;
    slot->sender_pid = e->sender_pid;
    slot->client_token = e->client_token;
    slot->agent = e->agent;
    slot->target = e->target;
    slot->group = e->group;
    slot->flags = e->flags;
    slot->px = e->px;
    slot->py = e->py;
    slot->gx = e->gx;
    slot->gy = e->gy;
    slot->radius = e->radius;
    slot->speed = e->speed;
    slot->dist = e->dist;
    slot->check = edit_check(pos, e);
    /* A CAS, not a store: if the daemon gave up on this slot, it has moved
     * seq on, and the entry must not be published into a later lap. */
    uint64_t expect = pos;
    if (!atomic_compare_exchange_strong_explicit(&slot->seq, &expect, pos + 1,
                                                 memory_order_release,
                                                 memory_order_relaxed))
        return GC_ETIMEOUT;
    return GC_OK;
}

/* Move the head past position pos, freeing its slot for the next lap. */
static void
queue_release(gc_queue *q, gc_queue_entry *slot, uint64_t pos)
{
    GC_ASSERT_OWNER(q); /* the consumer's fields are the owner's */
    assert(pos == q->head);
    atomic_store_explicit(&slot->seq, pos + q->cap, memory_order_release);
    q->head = pos + 1;
    atomic_store_explicit(&queue_hdr(q)->head, pos + 1, memory_order_release);
    q->stalled = false;
}

int
gc_queue_pop(gc_queue *q, gc_edit *out)
{
    if (q == NULL)
        return GC_EINVAL;
    if (!q->owner)
        return GC_EPERM;
    if (q->base == NULL)
        return GC_EINVAL;
    gc_queue_header *h = queue_hdr(q);
    const uint64_t cap = q->cap;
    /* A header that is not ours any more (scribbled on, or truncated and
     * read back as zeros): take nothing; the owner checks the object with
     * gc_queue_intact and makes it again. */
    if (atomic_load_explicit(&h->magic, memory_order_relaxed) != GC_QUEUE_MAGIC)
        return GC_EBADMAGIC;
    /* Our own position, never the header's copy, which producers can
     * write: a scribbled head cannot make us take an entry twice. */
    const uint64_t pos = q->head;
    gc_queue_entry *slot = &queue_entries(q)[pos & (cap - 1)];

    for (;;) {
        uint64_t seq = atomic_load_explicit(&slot->seq, memory_order_acquire);
        if (seq == pos + 1) {
            memset(out, 0, sizeof *out);
            out->op = slot->op;
            out->type = slot->type;
            out->x0 = slot->x0;
            out->y0 = slot->y0;
            out->x1 = slot->x1;
            out->y1 = slot->y1;
            out->batch = slot->batch;
            out->sender_pid = slot->sender_pid;
            out->client_token = slot->client_token;
            out->agent = slot->agent;
            out->target = slot->target;
            out->group = slot->group;
            out->flags = slot->flags;
            out->px = slot->px;
            out->py = slot->py;
            out->gx = slot->gx;
            out->gy = slot->gy;
            out->radius = slot->radius;
            out->speed = slot->speed;
            out->dist = slot->dist;
            out->claim_ns =
                atomic_load_explicit(&slot->claim_ns, memory_order_relaxed);
            out->position = pos;
            uint64_t check = slot->check;
            queue_release(q, slot, pos);
            return check == edit_check(pos, out) ? GC_OK : GC_ECORRUPT;
        }
        if (seq != pos) {
            /* No legal state: a writer scribbled on the slot.  Reclaim it
             * rather than let the queue stop here. */
            memset(out, 0, sizeof *out);
            out->position = pos;
            queue_release(q, slot, pos);
            return GC_ECORRUPT;
        }
        /* Free, or claimed and not yet published. */
        uint64_t tail = atomic_load_explicit(&h->tail, memory_order_relaxed);
        if ((int64_t)(tail - pos) <= 0) {
            /* Empty.  A tail behind the head was scribbled on (producers
             * only move it forwards): put it back, or every producer
             * would find its slot "full" until it timed out. */
            if (tail != pos)
                atomic_compare_exchange_strong_explicit(&h->tail, &tail, pos,
                                                        memory_order_relaxed,
                                                        memory_order_relaxed);
            return GC_EAGAIN;
        }
        /* Claimed: time it from when we first saw it so, since the claimant
         * may have died before it wrote claim_ns. */
        uint64_t now = gc_clock_ns();
        if (!q->stalled || q->stall_pos != pos) {
            q->stalled = true;
            q->stall_pos = pos;
            q->stall_since_ns = now;
            return GC_EAGAIN;
        }
        if (now - q->stall_since_ns < q->claim_timeout_ns)
            return GC_EAGAIN;
        uint64_t expect = pos;
        if (atomic_compare_exchange_strong_explicit(
                &slot->seq, &expect, pos + cap, memory_order_acq_rel,
                memory_order_acquire)) {
            memset(out, 0, sizeof *out);
            out->position = pos;
            q->head = pos + 1;
            atomic_store_explicit(&h->head, pos + 1, memory_order_release);
            q->stalled = false;
            return GC_ETIMEOUT;
        }
        /* Published at the last moment: loop and take it. */
    }
}

uint64_t
gc_queue_pending(const gc_queue *q)
{
    if (q == NULL || q->base == NULL)
        return 0;
    gc_queue_header *h = queue_hdr(q);
    uint64_t head = gc_queue_head(q);
    uint64_t tail = atomic_load_explicit(&h->tail, memory_order_relaxed);
    /* Producers claim a position only once its slot is free, so at most
     * a ring's worth is ever pending; more means a scribbled tail. */
    uint64_t n = (int64_t)(tail - head) > 0 ? tail - head : 0;
    return n < q->cap ? n : q->cap;
}

uint64_t
gc_queue_head(const gc_queue *q)
{
    if (q == NULL || q->base == NULL)
        return 0;
    if (q->owner)
        return q->head;
    return atomic_load_explicit(&queue_hdr(q)->head, memory_order_acquire);
}

uint32_t
gc_queue_capacity(const gc_queue *q)
{
    return q != NULL && q->base != NULL ? q->cap : 0;
}

uint64_t
gc_queue_claim_timeout_ns(const gc_queue *q)
{
    return q != NULL && q->base != NULL ? q->claim_timeout_ns : 0;
}

int
gc_queue_intact(const gc_queue *q, gc_error *err)
{
    if (q == NULL)
        return gc_error_set(err, GC_EINVAL, NULL, 0, 0, "no edit queue");
    if (!q->owner)
        return GC_EPERM;
    if (q->base == NULL)
        return gc_error_set(err, GC_EINVAL, q->name, 0, 0,
                            "the edit queue is not open");
    struct stat st;
    if (fstat(q->fd, &st) != 0)
        return gc_shm_sys_error(errno, q->name, "fstat of", err);
    if (st.st_size < 0 || (uint64_t)st.st_size != (uint64_t)q->size)
        return gc_error_set(err, GC_ECORRUPT, q->name, 0, 0,
                            "resized to %lld bytes by another process "
                            "(it was %zu)",
                            (long long)st.st_size, q->size);
    /* Every fixed field as init_edits wrote it: tools refuse a queue
     * whose header does not validate. */
    const gc_queue_header *h = queue_hdr(q);
    if (atomic_load_explicit(&h->magic, memory_order_relaxed) !=
            GC_QUEUE_MAGIC ||
        h->version != GC_QUEUE_VERSION ||
        h->header_size != sizeof(gc_queue_header) ||
        h->total_size != (uint64_t)q->size || h->capacity != q->cap ||
        h->entry_size != sizeof(gc_queue_entry) || h->pid != (int32_t)q->pid ||
        h->flags != 0 || h->claim_timeout_ns != q->claim_timeout_ns)
        return gc_error_set(err, GC_ECORRUPT, q->name, 0, 0,
                            "header overwritten by another process");
    return GC_OK;
}

int
gc_queue_reset(gc_queue *q, gc_error *err)
{
    if (q == NULL)
        return gc_error_set(err, GC_EINVAL, NULL, 0, 0, "no edit queue");
    if (!q->owner)
        return gc_error_set(err, GC_EPERM, q->name, 0, 0,
                            "only the daemon can make the edit queue again");
    const uint64_t start = q->head;
    const uint32_t cap = q->cap;
    if (q->base != NULL) {
        /* We still hold its lock, so the name is still this object. */
        shm_unlink(q->name);
        munmap(q->base, q->size);
        q->base = NULL;
    }
    if (q->fd >= 0)
        close(q->fd);
    q->fd = -1;
    bool took = false;
    pid_t stale = 0;
    int rc = gc_shm_own(&q->spec, &q->fd, &took, &stale, err);
    if (rc != GC_OK)
        return rc;
    uint8_t *base = NULL;
    rc = gc_shm_map(q->fd, (size_t)q->spec.size, PROT_READ | PROT_WRITE,
                    q->name, &base, err);
    if (rc != GC_OK) {
        shm_unlink(q->name);
        close(q->fd);
        q->fd = -1;
        return rc;
    }
    q->base = base;
    q->size = (size_t)q->spec.size;
    gc_queue_init(q, cap, start);
    return GC_OK;
}

uint64_t
gc_queue_tail(const gc_queue *q)
{
    if (q == NULL || q->base == NULL)
        return 0;
    return atomic_load_explicit(&queue_hdr(q)->tail, memory_order_relaxed);
}

/* ---- Opening and the raw mapping ----------------------------------------- */

static int
check_queue_cb(const uint8_t *p, size_t size, const char *name, void *arg,
               gc_error *err)
{
    gc_queue *q = arg;
    return gc_layout_check_queue(p, size, name, q ? &q->cap : NULL,
                                 q ? &q->claim_timeout_ns : NULL, err);
}

int
gc_queue_attach(gc_queue *q, pid_t world_pid, const char *world_name,
                gc_error *err)
{
    int rc = gc_shm_attach(q->name, true, &q->fd, &q->base, &q->size,
                           check_queue_cb, q, err);
    if (rc != GC_OK)
        return rc;
    int32_t epid = queue_hdr(q)->pid;
    if (epid != (int32_t)world_pid)
        return gc_error_set(err, GC_ECORRUPT, q->name, 0, 0,
                            "edit queue belongs to pid %" PRId32
                            ", the world %s to pid %ld",
                            epid, world_name, (long)world_pid);
    q->pid = world_pid;
    q->opened = true;
    return GC_OK;
}

void
gc_queue_unmap(gc_queue *q)
{
    if (q->base != NULL)
        munmap(q->base, q->size);
    if (q->fd >= 0)
        close(q->fd);
    q->base = NULL;
    q->fd = -1;
}

const char *
gc_queue_name(const gc_queue *q)
{
    return q != NULL ? q->name : "(no edit queue)";
}

gc_queue_header *
gc_queue_hdr(const gc_queue *q)
{
    return q != NULL ? queue_hdr(q) : NULL;
}

size_t
gc_queue_size(const gc_queue *q)
{
    return q != NULL && q->base != NULL ? q->size : 0;
}
