/*
 * sim-order.c: agents' ids and their slots, and the slots kept in the
 * order of where the agents stand.
 *
 * An agent's id is the index half of its handle: what the accessors
 * (gc_sim_agent, gc_sim_handle, ...), the world's records, recordings and
 * traces call it, from its spawn to its removal.  Its slot is where the
 * per-agent arrays hold it, and the crowd step walks the slots in order.
 * The two start equal; with avoidance the loop renumbers the slots after
 * the first tick and then every `reorder` simulated seconds
 * (gc_sim_config) along a Hilbert curve of the agents' cells, so that
 * the agents one after another in slot order stand near each other and
 * read the same neighbours' records while they are in the caches.  A
 * placement on the map's cells gives that order at the start (a
 * scenario's own need not), and wandering decays it
 * (docs/crowd-performance.md, the forty-first stop, has the figures).
 *
 * Rules kept:
 *   - slot_id and id_slot are inverse permutations of [0, n), and the
 *     identity from n up, so a spawn that opens slot n gets id n.
 *   - After a renumbering the live agents hold slots [0, live) in the
 *     curve's order (agents in one bucket of the curve in their old slot
 *     order), the free slots [live, n) in the order of their ids.
 *   - A renumbering changes no agent: every per-agent array moves with
 *     its agent (a free slot's salt with its id), the neighbour and
 *     candidate lists and the traced agent are translated, and the plan
 *     queues' entries go to their new owners' queues in the order their
 *     requests came in.  It depends on the sim's state alone and its
 *     parts write disjoint slots, so a run is the same for any number of
 *     threads.
 *   - Nor does it change the run: what goes by an agent's number in the
 *     step goes by its id (gc_sim_id_of: the right of way in a one-cell
 *     passage, bodies on one point told apart, the contacts pass, plan
 *     requests queued after the tick: gc_sim_sort_by_id).  Only
 *     neighbours at exactly one distance are still taken in slot order
 *     (docs/crowd-rules.md).
 *   - It waits while the jam scan walks the slots (sim-jam.c), which
 *     holds a slot between ticks.
 */
#include "config.h"

#include <gridcrowd/util.h>

#include "grid_int.h"
#include "sim_int.h"

#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

int
gc_sim_ids_new(gc_sim *s)
{
    size_t cap = s->cap ? s->cap : 1;
    s->id_slot = malloc(cap * sizeof *s->id_slot);
    s->slot_id = malloc(cap * sizeof *s->slot_id);
    if (s->id_slot == NULL || s->slot_id == NULL)
        return GC_ENOMEM;
    for (uint32_t i = 0; i < cap; i++)
        s->id_slot[i] = s->slot_id[i] = i;
    return GC_OK;
}

/* A queue entry carried over: its new slot, its place in the order. */
struct carried {
    uint64_t seq;
    uint32_t slot;
};

/* The widest per-agent record the renumbering moves (or queue entry it
 * carries over). */
static size_t
widest_record(const gc_sim *s)
{
    size_t w = sizeof *s->walls;
    size_t lists[] = {sizeof *s->agents,
                      sizeof *s->slot,
                      sizeof *s->body,
                      sizeof *s->now,
                      sizeof *s->spot_kept,
                      (size_t)s->orca.max_neighbours * sizeof *s->nbr,
                      (size_t)s->near_cap * sizeof *s->near,
                      sizeof(struct carried)};
    for (size_t k = 0; k < sizeof lists / sizeof lists[0]; k++)
        w = lists[k] > w ? lists[k] : w;
    return w;
}

static int scratch_new(gc_sim *s);

int
gc_sim_order_new(gc_sim *s)
{
    gc_sim_order *o = &s->order;
    double every = (double)s->cfg.reorder;
    if (every > 0.0) {
        o->every = (uint64_t)(every * (double)s->hz + 0.5);
        if (o->every == 0)
            o->every = 1;
        /* The first after the first tick: a scenario's placement need
         * not follow the map (the bench's corridor alternates its two
         * ends slot by slot, so both workers read every part of the
         * crowd: corridor 1,000 on two threads took 2.8% longer). */
        o->next = 1;
    }
    /* The curve's side covers the map; its index (2 * bits bits) is cut
     * to about as many buckets as there are slots, at least 2^10. */
    o->bits = gc_sim_hilbert_bits(s->grid);
    unsigned want = 10;
    while (want < 22 && ((uint32_t)1 << want) < s->cap)
        want++;
    if (want > 2 * o->bits)
        want = 2 * o->bits;
    o->shift = 2 * o->bits - want;
    o->buckets = (uint32_t)1 << want;
    o->stride = widest_record(s);
    return o->every > 0 ? scratch_new(s) : GC_OK;
}

/* The renumbering's scratch (GC_ENOMEM). */
static int
scratch_new(gc_sim *s)
{
    gc_sim_order *o = &s->order;
    size_t cap = s->cap ? s->cap : 1;
    size_t bytes = cap * o->stride;
    bytes = (bytes + 63) / 64 * 64;
    o->buf = aligned_alloc(64, bytes);
    o->from = malloc(cap * sizeof *o->from);
    o->to = malloc(cap * sizeof *o->to);
    o->count = malloc(((size_t)o->buckets + 1) * sizeof *o->count);
    if (!o->buf || !o->from || !o->to || !o->count)
        return GC_ENOMEM;
    /* Touched now, not in the first renumbering's tick: a first touch
     * of 25 MB (100,000 agents) took 40 ms there. */
    memset(o->buf, 0, bytes);
    memset(o->from, 0, cap * sizeof *o->from);
    memset(o->to, 0, cap * sizeof *o->to);
    memset(o->count, 0, ((size_t)o->buckets + 1) * sizeof *o->count);
    return GC_OK;
}

void
gc_sim_order_free(gc_sim *s)
{
    free(s->order.buf);
    free(s->order.from);
    free(s->order.to);
    free(s->order.count);
    free(s->id_slot);
    free(s->slot_id);
}

/* Whether the slots are due to be renumbered before this tick. */
static bool
due(const gc_sim *s)
{
    return s->order.every > 0 && s->ticks >= s->order.next &&
           s->jam_phase != JAM_AGENTS;
}

static void run_parts(gc_sim *s,
                      void (*fn)(void *ctx, unsigned part, unsigned parts),
                      void *ctx);
static void part_range(const gc_sim *s, unsigned part, unsigned parts,
                       size_t *lo, size_t *hi);

/* The curve's bucket of each live agent of a part of the slots, into
 * to[] (free slots: none). */
static void
keys_part(void *ctx, unsigned part, unsigned parts)
{
    gc_sim *s = ctx;
    gc_sim_order *o = &s->order;
    const gc_grid *g = s->grid;
    size_t lo, hi;
    part_range(s, part, parts, &lo, &hi);
    for (size_t i = lo; i < hi; i++) {
        if (!gc_sim_alive(s, (uint32_t)i))
            continue;
        gc_cell c = gc_grid_cell_of(g, s->agents[i].pos);
        int32_t x = c.x < 0 ? 0 : c.x >= g->width ? g->width - 1 : c.x;
        int32_t y = c.y < 0 ? 0 : c.y >= g->height ? g->height - 1 : c.y;
        o->to[i] = (uint32_t)(gc_sim_hilbert_index(o->bits, (uint32_t)x,
                                                   (uint32_t)y) >>
                              o->shift);
    }
}

/* The new order from the keys (keys_part): from[k] the old slot of new
 * slot k, to[] its inverse. */
static void
order_slots(gc_sim *s)
{
    gc_sim_order *o = &s->order;
    uint32_t n = s->n;
    memset(o->count, 0, ((size_t)o->buckets + 1) * sizeof *o->count);
    for (uint32_t i = 0; i < n; i++)
        if (gc_sim_alive(s, i))
            o->count[o->to[i] + 1]++;
    for (uint32_t b = 0; b < o->buckets; b++)
        o->count[b + 1] += o->count[b];
    for (uint32_t i = 0; i < n; i++)
        if (gc_sim_alive(s, i))
            o->from[o->count[o->to[i]]++] = i;
    for (uint32_t id = 0, m = s->live; m < n; id++)
        if (!gc_sim_alive(s, s->id_slot[id]))
            o->from[m++] = s->id_slot[id];
    for (uint32_t k = 0; k < n; k++)
        o->to[o->from[k]] = k;
}

/* The arrays to move (every per-agent array that outlives a tick), and
 * the parts' meeting point between a gather and its copy back. */
struct array {
    unsigned char *base; /* NULL: not made (nothing to move) */
    size_t stride;
};
struct moves {
    gc_sim *s;
    const struct array *arrays;
    size_t count;
    atomic_uint arrived, round;
};

static void
part_range(const gc_sim *s, unsigned part, unsigned parts, size_t *lo,
           size_t *hi)
{
    *lo = (size_t)s->n * part / parts;
    *hi = (size_t)s->n * (part + 1) / parts;
}

/* Slots [lo, hi) of array a gathered into the buffer in the new order. */
static void
gather(gc_sim_order *o, const struct array *a, size_t lo, size_t hi)
{
    size_t st = a->stride;
    const uint32_t *from = o->from;
    if (st == 1) {
        for (size_t k = lo; k < hi; k++)
            o->buf[k] = a->base[from[k]];
    } else if (st == 4) {
        uint32_t *d = (uint32_t *)(void *)o->buf;
        const uint32_t *b = (const uint32_t *)(const void *)a->base;
        for (size_t k = lo; k < hi; k++)
            d[k] = b[from[k]];
    } else if (st == 8) {
        uint64_t *d = (uint64_t *)(void *)o->buf;
        const uint64_t *b = (const uint64_t *)(const void *)a->base;
        for (size_t k = lo; k < hi; k++)
            d[k] = b[from[k]];
    } else {
        for (size_t k = lo; k < hi; k++)
            memcpy(o->buf + k * st, a->base + (size_t)from[k] * st, st);
    }
}

/* Every part waits here until all have come (the parts run at once, one
 * a worker: gc_sim_parallel). */
static void
meet(struct moves *m, unsigned parts)
{
    if (parts == 1)
        return;
    unsigned round = atomic_load_explicit(&m->round, memory_order_acquire);
    if (atomic_fetch_add_explicit(&m->arrived, 1, memory_order_acq_rel) + 1 ==
        parts) {
        atomic_store_explicit(&m->arrived, 0, memory_order_relaxed);
        atomic_fetch_add_explicit(&m->round, 1, memory_order_release);
        return;
    }
    unsigned spins = 0;
    while (atomic_load_explicit(&m->round, memory_order_acquire) == round)
        gc_sim_spin_turn(&spins, 4096);
}

static void lists_part(void *ctx, unsigned part, unsigned parts);

/* A part of the renumbering: its slots' keys, and once every part has
 * them the new order (part 0); then every array's move, gathered into
 * the buffer and once every part has gathered copied back; then its
 * lists translated.  One job, so that
 * in real time, where the workers sleep between ticks, they are woken once, not
 * twice an array (10,000 agents on den520d: 12.7 ms a renumbering in real time
 * against 1.4 in batch). */
static void
moves_part(void *ctx, unsigned part, unsigned parts)
{
    struct moves *m = ctx;
    gc_sim_order *o = &m->s->order;
    size_t lo, hi;
    part_range(m->s, part, parts, &lo, &hi);
    keys_part(m->s, part, parts);
    meet(m, parts);
    if (part == 0)
        order_slots(m->s);
    meet(m, parts);
    for (size_t k = 0; k < m->count; k++) {
        const struct array *a = &m->arrays[k];
        if (a->base == NULL)
            continue;
        gather(o, a, lo, hi);
        meet(m, parts);
        memcpy(a->base + lo * a->stride, o->buf + lo * a->stride,
               (hi - lo) * a->stride);
        meet(m, parts);
    }
    lists_part(m->s, part, parts);
}

/* Run fn on every worker, or on the loop's thread alone for a crowd
 * small enough that a hand-over costs more than it saves. */
static void
run_parts(gc_sim *s, void (*fn)(void *ctx, unsigned part, unsigned parts),
          void *ctx)
{
    if (s->nworkers > 1 && s->n >= gc_sim_prep_shared)
        gc_sim_parallel(s, fn, ctx);
    else
        fn(ctx, 0, 1);
}

/* The neighbour and candidate lists of slots in a part, translated. */
static void
lists_part(void *ctx, unsigned part, unsigned parts)
{
    gc_sim *s = ctx;
    const uint32_t *to = s->order.to;
    size_t lo, hi, mn = (size_t)s->orca.max_neighbours;
    part_range(s, part, parts, &lo, &hi);
    for (size_t k = lo; k < hi; k++) {
        if (!gc_sim_alive(s, (uint32_t)k))
            continue;
        uint32_t *nb = s->nbr + k * mn, *ne = s->near + k * s->near_cap;
        for (uint32_t j = 0; j < s->nbr_n[k]; j++)
            nb[j] = nb[j] < s->n ? to[nb[j]] : nb[j];
        for (uint32_t j = 0; j < s->near_n[k]; j++)
            ne[j] = ne[j] < s->n ? to[ne[j]] : ne[j];
    }
}

static int
cmp_carried(const void *a, const void *b)
{
    const struct carried *x = a, *y = b;
    return (x->seq > y->seq) - (x->seq < y->seq);
}

/* Every worker's queue of one kind (urgent or not), entries translated,
 * to their new owners' queues: the count-budgeted ones in the order
 * their requests came in (each queue must stay in it:
 * gc_sim_plan_quotas), the urgent ones (all served in the next tick) in
 * the order the workers held them. */
static void
carry_queue(gc_sim *s, bool urgent, struct carried *tmp)
{
    size_t m = 0;
    for (int k = 0; k < s->nworkers; k++) {
        gc_sim_worker *w = &s->workers[k];
        uint32_t *ring = urgent ? w->urgent : w->queue;
        uint32_t *head = urgent ? &w->uhead : &w->qhead;
        uint32_t *len = urgent ? &w->ulen : &w->qlen;
        for (uint32_t j = 0; j < *len; j++) {
            uint32_t at = (*head + j) % w->qcap;
            uint64_t seq = urgent ? (uint64_t)m : w->qseq[at];
            tmp[m] = (struct carried){seq, s->order.to[ring[at]]};
            m++;
        }
        *head = *len = 0;
    }
    if (!urgent)
        qsort(tmp, m, sizeof *tmp, cmp_carried);
    for (size_t q = 0; q < m; q++)
        s->flags[tmp[q].slot] &= (uint8_t)~GC_SIM_F_QUEUED;
    for (size_t q = 0; q < m; q++)
        gc_sim_enqueue_seq(s, tmp[q].slot, urgent, tmp[q].seq);
}

int
gc_sim_reorder(gc_sim *s)
{
    uint64_t t0 = gc_clock_ns();
    gc_sim_order *o = &s->order;
    if (o->buf == NULL) {
        /* Asked for without a period: its scratch, once. */
        int rc = scratch_new(s);
        if (rc != GC_OK)
            return rc;
    }
    /* Every per-agent array that outlives a tick (the rest are rebuilt
     * each tick: the index's packing, the contacts' lists). */
#define RECORD(a)                                                              \
    {                                                                          \
        (unsigned char *)(void *)s->a, sizeof *s->a                            \
    }
    const struct array arrays[] = {
        RECORD(agents),
        RECORD(flags),
        RECORD(rng),
        RECORD(slot),
        RECORD(slot_id),
        RECORD(stop_ns),
        RECORD(stop_tick),
        RECORD(now),
        RECORD(body),
        RECORD(walls),
        RECORD(spot_kept),
        RECORD(nbr_n),
        RECORD(near_n),
        RECORD(near_r),
        RECORD(near_x),
        RECORD(near_y),
        RECORD(near_t),
        RECORD(contact_mark),
        RECORD(contact_slack),
        {(unsigned char *)(void *)s->nbr,
         (size_t)s->orca.max_neighbours * sizeof *s->nbr},
        {(unsigned char *)(void *)s->near,
         (size_t)s->near_cap * sizeof *s->near},
    };
#undef RECORD
    struct moves m = {
        .s = s, .arrays = arrays, .count = sizeof arrays / sizeof arrays[0]};
    atomic_init(&m.arrived, 0);
    atomic_init(&m.round, 0);
    run_parts(s, moves_part, &m);
    for (uint32_t k = 0; k < s->n; k++)
        s->id_slot[s->slot_id[k]] = k;
    carry_queue(s, true, (struct carried *)(void *)o->buf);
    carry_queue(s, false, (struct carried *)(void *)o->buf);
    if (s->trace_agent < s->n)
        s->trace_agent = o->to[s->trace_agent];
    o->done++;
    uint64_t ns = gc_clock_ns() - t0;
    o->ns_max = ns > o->ns_max ? ns : o->ns_max;
    return GC_OK;
}

void
gc_sim_sort_by_id(const gc_sim *s, uint32_t *slots, uint32_t *tmp, size_t n)
{
    if (s->order.done == 0)
        return; /* every slot is its id */
    /* Bottom-up merge sort, runs of `w` merged from a into b. */
    uint32_t *a = slots, *b = tmp;
    const uint32_t *id = s->slot_id;
    for (size_t w = 1; w < n; w *= 2) {
        for (size_t lo = 0; lo < n; lo += 2 * w) {
            size_t mid = lo + w < n ? lo + w : n;
            size_t hi = lo + 2 * w < n ? lo + 2 * w : n;
            size_t i = lo, j = mid, k = lo;
            while (i < mid && j < hi)
                b[k++] = id[a[j]] < id[a[i]] ? a[j++] : a[i++];
            while (i < mid)
                b[k++] = a[i++];
            while (j < hi)
                b[k++] = a[j++];
        }
        uint32_t *t = a;
        a = b;
        b = t;
    }
    if (a != slots)
        memcpy(slots, a, n * sizeof *slots);
}

void
gc_sim_reorder_if_due(gc_sim *s)
{
    if (!due(s))
        return;
    (void)gc_sim_reorder(s); /* (its scratch was made with the sim) */
    s->order.next = s->ticks + s->order.every;
}
