/*
 * world-snapshot.c: what the daemon publishes in the world and how anyone
 * reads it back: the cells, the agent snapshot, the statistics, the trace
 * and the whole path of one agent, each under its own sequence counter.
 *
 * - Every concurrent field is an _Atomic with an explicit order.  Snapshot
 *   records, statistics, trace events and waypoints are copied word by word
 *   with relaxed
 *   atomics inside a sequence-counter protocol, which keeps in-process readers
 *   ThreadSanitizer-clean.  The cell bytes are the exception: the daemon's
 *   gc_grid writes them with plain stores, so readers copy them with memcpy
 *   inside the cells_seq seqlock; they are meant for other processes.
 * - One writer: only the owner's handle publishes, from one thread (the
 *   simulation loop, between ticks).  The setters say GC_EPERM on a
 *   reader's handle; debug builds assert that a seqlock writer finds the
 *   count even (no other write in progress) when it begins.
 * - Readers never block the daemon: they retry a torn copy a bounded number
 *   of times (GC_WORLD_READ_ATTEMPTS, with sched_yield) and then say GC_EBUSY.
 * - The agent snapshot's sequence counts half-steps (odd while the writer
 *   fills a buffer), so a reader can tell exactly when the buffer it copied
 *   was handed back to the writer: with a plain count of publishes, the
 *   writer already refills that buffer while the count has moved by only
 *   one, and a reader that tolerates one publish would accept torn copies.
 */
#include "config.h"

#include "world_int.h"

#include <sched.h>
#include <string.h>

/*
 * Seqlock writer half: make `seq` odd, then order the data stores after it
 * (the release fence pairs with the reader's acquire fence: a reader that
 * sees any data store of this write also sees the odd count).
 */
static void
seq_write_begin(_Atomic uint64_t *seq)
{
    uint64_t s = atomic_load_explicit(seq, memory_order_relaxed);
    /* One writer: nobody else can be half-way through a write. */
    assert((s & 1) == 0);
    atomic_store_explicit(seq, s | 1, memory_order_release);
    atomic_thread_fence(memory_order_release);
}

static void
seq_write_end(_Atomic uint64_t *seq)
{
    uint64_t s = atomic_load_explicit(seq, memory_order_relaxed);
    assert((s & 1) == 1); /* a write we began */
    atomic_store_explicit(seq, (s | 1) + 1, memory_order_release);
}

/* Copy m 8-byte records out of a section's words (relaxed loads: the
 * caller's seqlock check decides whether the copy stands). */
static void
words_read(void *out, const _Atomic uint64_t *words, size_t m)
{
    for (size_t i = 0; i < m; i++) {
        uint64_t word = atomic_load_explicit(&words[i], memory_order_relaxed);
        memcpy((char *)out + i * sizeof word, &word, sizeof word);
    }
}

int
gc_world_cells_begin(gc_world *w)
{
    if (!w->owner)
        return GC_EPERM;
    if (w->cells_open)
        return GC_EINVAL;
    w->cells_open = true;
    seq_write_begin(&world_hdr(w)->cells_seq);
    return GC_OK;
}

int
gc_world_cells_end(gc_world *w)
{
    if (!w->owner)
        return GC_EPERM;
    if (!w->cells_open)
        return GC_EINVAL;
    gc_world_header *h = world_hdr(w);
    uint64_t g = atomic_load_explicit(&h->generation, memory_order_relaxed);
    atomic_store_explicit(&h->generation, g + 1, memory_order_relaxed);
    seq_write_end(&h->cells_seq);
    w->cells_open = false;
    return GC_OK;
}

gc_world_snap *
gc_world_agents_begin(gc_world *w)
{
    if (!w->owner)
        return NULL;
    gc_world_agents_hdr *ah = world_agents_hdr(w);
    uint64_t s = atomic_load_explicit(&ah->seq, memory_order_relaxed);
    /* The snapshot's seq is odd exactly while our snapshot is open. */
    assert((s & 1) == (w->snap.open ? 1u : 0u));
    if (!w->snap.open) {
        /* Odd: "filling snapshot s/2 + 1".  Release (not relaxed) so that a
         * reader that loads this value still synchronizes with the publish
         * before it; the fence orders the record stores after it. */
        s |= 1;
        atomic_store_explicit(&ah->seq, s, memory_order_release);
        atomic_thread_fence(memory_order_release);
    }
    /* Snapshot k lives in buffer (k - 1) & 1; we fill k = s/2 + 1. */
    w->snap.slots = world_agent_slots(w, (unsigned)((s >> 1) & 1));
    w->snap.open = true;
    return &w->snap;
}

int
gc_world_agents_store(gc_world_snap *s, uint32_t first,
                      const gc_world_agent *recs, uint32_t n)
{
    if (!s->open)
        return GC_EINVAL;
    if (first > s->capacity || n > s->capacity - first)
        return GC_ERANGE;
    assert(n == 0 || s->slots != NULL); /* set by the owner's begin */
    for (uint32_t r = 0; r < n; r++) {
        uint64_t words[GC_WORLD_AGENT_WORDS];
        memcpy(words, &recs[r], sizeof words);
        gc_world_agent_slot *slot = &s->slots[first + r];
        for (size_t k = 0; k < GC_WORLD_AGENT_WORDS; k++)
            atomic_store_explicit(&slot->word[k], words[k],
                                  memory_order_relaxed);
    }
    return GC_OK;
}

int
gc_world_agent_store(gc_world_snap *s, uint32_t i, const gc_world_agent *rec)
{
    return gc_world_agents_store(s, i, rec, 1);
}

int
gc_world_agents_publish(gc_world *w, uint32_t count)
{
    if (!w->owner)
        return GC_EPERM;
    if (!w->snap.open)
        return GC_EINVAL;
    if (count > w->lay.capacity)
        return GC_ERANGE;
    gc_world_agents_hdr *ah = world_agents_hdr(w);
    uint64_t s = atomic_load_explicit(&ah->seq, memory_order_relaxed);
    assert((s & 1) == 1); /* opened by gc_world_agents_begin */
    atomic_store_explicit(&ah->count[(s >> 1) & 1], count,
                          memory_order_relaxed);
    atomic_store_explicit(
        &ah->tick[(s >> 1) & 1],
        atomic_load_explicit(&world_hdr(w)->tick, memory_order_relaxed),
        memory_order_relaxed);
    atomic_store_explicit(&world_hdr(w)->agent_count, count,
                          memory_order_relaxed);
    atomic_store_explicit(&ah->seq, s + 1, memory_order_release);
    w->snap.open = false;
    return GC_OK;
}

int
gc_world_stats_publish(gc_world *w, const gc_world_stats *st)
{
    if (!w->owner)
        return GC_EPERM;
    gc_world_stats_area *a = world_stats_area(w);
    uint64_t words[GC_WORLD_STATS_WORDS];
    memcpy(words, st, sizeof words);
    seq_write_begin(&a->seq);
    for (size_t k = 0; k < GC_WORLD_STATS_WORDS; k++)
        atomic_store_explicit(&a->word[k], words[k], memory_order_relaxed);
    seq_write_end(&a->seq);
    return GC_OK;
}

int
gc_world_trace_publish(gc_world *w, uint32_t agent, uint32_t salt,
                       uint64_t tick, const gc_world_trace_event *ev, size_t n)
{
    if (!w->owner)
        return GC_EPERM;
    gc_world_trace_hdr *t = world_trace_hdr(w);
    _Atomic uint64_t *words = world_trace_words(w);
    size_t m = n < w->lay.trace_capacity ? n : w->lay.trace_capacity;
    seq_write_begin(&t->seq);
    atomic_store_explicit(&t->tick, tick, memory_order_relaxed);
    atomic_store_explicit(&t->agent, agent, memory_order_relaxed);
    atomic_store_explicit(&t->agent_salt, salt, memory_order_relaxed);
    atomic_store_explicit(&t->count, (uint32_t)m, memory_order_relaxed);
    atomic_store_explicit(&t->truncated, m < n, memory_order_relaxed);
    for (size_t i = 0; i < m; i++) {
        uint64_t word;
        gc_world_trace_event e = ev[i];
        memset(e.pad, 0, sizeof e.pad);
        memcpy(&word, &e, sizeof word);
        atomic_store_explicit(&words[i], word, memory_order_relaxed);
    }
    seq_write_end(&t->seq);
    return GC_OK;
}

int
gc_world_path_publish(gc_world *w, uint32_t agent, uint32_t salt, uint64_t tick,
                      const gc_vec2 *pts, size_t n)
{
    if (!w->owner)
        return GC_EPERM;
    if (pts == NULL && n > 0)
        return GC_EINVAL;
    gc_world_path_hdr *p = world_path_hdr(w);
    _Atomic uint64_t *words = world_path_words(w);
    size_t m = n < w->lay.path_capacity ? n : w->lay.path_capacity;
    seq_write_begin(&p->seq);
    atomic_store_explicit(&p->tick, tick, memory_order_relaxed);
    atomic_store_explicit(&p->agent, agent, memory_order_relaxed);
    atomic_store_explicit(&p->agent_salt, salt, memory_order_relaxed);
    atomic_store_explicit(&p->count, (uint32_t)m, memory_order_relaxed);
    /* m <= capacity <= GC_WORLD_PATH_MAX, so the clamp keeps len >= m. */
    atomic_store_explicit(&p->path_len,
                          n > UINT32_MAX ? UINT32_MAX : (uint32_t)n,
                          memory_order_relaxed);
    for (size_t i = 0; i < m; i++) {
        uint64_t word;
        memcpy(&word, &pts[i], sizeof word);
        atomic_store_explicit(&words[i], word, memory_order_relaxed);
    }
    seq_write_end(&p->seq);
    return GC_OK;
}

int
gc_world_set_trace_request(gc_world *w, uint32_t agent, uint32_t salt)
{
    if (!w->owner)
        return GC_EPERM;
    gc_world_trace_hdr *t = world_trace_hdr(w);
    atomic_store_explicit(&t->request_salt, salt, memory_order_relaxed);
    atomic_store_explicit(&t->request_agent, agent, memory_order_relaxed);
    return GC_OK;
}

/* ---- Reading ------------------------------------------------------------- */

int
gc_world_read_cells(const gc_world *w, uint8_t *buf, uint64_t *generation)
{
    gc_world_header *h = world_hdr(w);
    const uint8_t *cells = w->base + w->lay.cells_off;
    for (int attempt = 0; attempt < GC_WORLD_READ_ATTEMPTS; attempt++) {
        uint64_t s1 = atomic_load_explicit(&h->cells_seq, memory_order_acquire);
        if ((s1 & 1) == 0) {
            uint64_t g =
                atomic_load_explicit(&h->generation, memory_order_relaxed);
            memcpy(buf, cells, (size_t)w->lay.cells_size);
            atomic_thread_fence(memory_order_acquire);
            uint64_t s2 =
                atomic_load_explicit(&h->cells_seq, memory_order_relaxed);
            if (s1 == s2) {
                if (generation != NULL)
                    *generation = g;
                return GC_OK;
            }
        }
        sched_yield();
    }
    return GC_EBUSY;
}

int
gc_world_read_agents(const gc_world *w, gc_world_agent *out, size_t cap,
                     size_t *count, uint64_t *seq)
{
    return gc_world_read_agents_at(w, out, cap, count, seq, NULL);
}

int
gc_world_read_agents_at(const gc_world *w, gc_world_agent *out, size_t cap,
                        size_t *count, uint64_t *seq, uint64_t *tick)
{
    gc_world_agents_hdr *ah = world_agents_hdr(w);
    const uint32_t capacity = w->lay.capacity;
    for (int attempt = 0; attempt < GC_WORLD_READ_ATTEMPTS; attempt++) {
        uint64_t s1 = atomic_load_explicit(&ah->seq, memory_order_acquire);
        uint64_t n = s1 >> 1;
        size_t got = 0;
        uint64_t t = 0;
        bool bad = false;
        if (n > 0) {
            unsigned b = (unsigned)((n - 1) & 1);
            uint32_t c =
                atomic_load_explicit(&ah->count[b], memory_order_relaxed);
            t = atomic_load_explicit(&ah->tick[b], memory_order_relaxed);
            if (c > capacity) {
                bad = true;
                c = 0;
            }
            got = c < cap ? c : cap;
            const gc_world_agent_slot *slots = world_agent_slots(w, b);
            for (size_t i = 0; i < got; i++) {
                uint64_t words[GC_WORLD_AGENT_WORDS];
                for (size_t k = 0; k < GC_WORLD_AGENT_WORDS; k++)
                    words[k] = atomic_load_explicit(&slots[i].word[k],
                                                    memory_order_relaxed);
                memcpy(&out[i], words, sizeof words);
            }
        }
        atomic_thread_fence(memory_order_acquire);
        uint64_t s2 = atomic_load_explicit(&ah->seq, memory_order_relaxed);
        /* Buffer (n-1)&1 is refilled only from snapshot n+2 on, announced
         * by seq = 2n+3.  Unsigned: a seq that went backwards retries. */
        if (s2 - (s1 & ~(uint64_t)1) < 3) {
            if (bad)
                return GC_ECORRUPT;
            *count = got;
            if (seq != NULL)
                *seq = n;
            if (tick != NULL)
                *tick = t;
            return GC_OK;
        }
        sched_yield();
    }
    return GC_EBUSY;
}

int
gc_world_read_stats(const gc_world *w, gc_world_stats *out)
{
    gc_world_stats_area *a = world_stats_area(w);
    for (int attempt = 0; attempt < GC_WORLD_READ_ATTEMPTS; attempt++) {
        uint64_t s1 = atomic_load_explicit(&a->seq, memory_order_acquire);
        if ((s1 & 1) == 0) {
            uint64_t words[GC_WORLD_STATS_WORDS];
            for (size_t k = 0; k < GC_WORLD_STATS_WORDS; k++)
                words[k] =
                    atomic_load_explicit(&a->word[k], memory_order_relaxed);
            atomic_thread_fence(memory_order_acquire);
            if (atomic_load_explicit(&a->seq, memory_order_relaxed) == s1) {
                memcpy(out, words, sizeof words);
                return GC_OK;
            }
        }
        sched_yield();
    }
    return GC_EBUSY;
}

int
gc_world_read_trace(const gc_world *w, gc_world_trace_info *info,
                    gc_world_trace_event *out, size_t cap)
{
    gc_world_trace_hdr *t = world_trace_hdr(w);
    const _Atomic uint64_t *words = world_trace_words(w);
    for (int attempt = 0; attempt < GC_WORLD_READ_ATTEMPTS; attempt++) {
        uint64_t s1 = atomic_load_explicit(&t->seq, memory_order_acquire);
        if ((s1 & 1) == 0) {
            gc_world_trace_info in;
            in.seq = s1 >> 1;
            in.tick = atomic_load_explicit(&t->tick, memory_order_relaxed);
            in.agent = atomic_load_explicit(&t->agent, memory_order_relaxed);
            in.salt =
                atomic_load_explicit(&t->agent_salt, memory_order_relaxed);
            uint32_t c = atomic_load_explicit(&t->count, memory_order_relaxed);
            in.truncated =
                atomic_load_explicit(&t->truncated, memory_order_relaxed) != 0;
            bool bad = c > w->lay.trace_capacity;
            size_t m = bad ? 0 : (c < cap ? c : cap);
            words_read(out, words, m);
            atomic_thread_fence(memory_order_acquire);
            if (atomic_load_explicit(&t->seq, memory_order_relaxed) == s1) {
                if (bad)
                    return GC_ECORRUPT;
                in.count = m;
                in.truncated = in.truncated || m < c;
                *info = in;
                return GC_OK;
            }
        }
        sched_yield();
    }
    return GC_EBUSY;
}

int
gc_world_read_path(const gc_world *w, gc_world_path_info *info, gc_vec2 *out,
                   size_t cap)
{
    gc_world_path_hdr *p = world_path_hdr(w);
    const _Atomic uint64_t *words = world_path_words(w);
    for (int attempt = 0; attempt < GC_WORLD_READ_ATTEMPTS; attempt++) {
        uint64_t s1 = atomic_load_explicit(&p->seq, memory_order_acquire);
        if ((s1 & 1) == 0) {
            gc_world_path_info in;
            in.seq = s1 >> 1;
            in.tick = atomic_load_explicit(&p->tick, memory_order_relaxed);
            in.agent = atomic_load_explicit(&p->agent, memory_order_relaxed);
            in.salt =
                atomic_load_explicit(&p->agent_salt, memory_order_relaxed);
            uint32_t c = atomic_load_explicit(&p->count, memory_order_relaxed);
            uint32_t len =
                atomic_load_explicit(&p->path_len, memory_order_relaxed);
            bool bad = c > w->lay.path_capacity || c > len;
            size_t m = bad ? 0 : (c < cap ? c : cap);
            words_read(out, words, m);
            atomic_thread_fence(memory_order_acquire);
            if (atomic_load_explicit(&p->seq, memory_order_relaxed) == s1) {
                if (bad)
                    return GC_ECORRUPT;
                in.count = m;
                in.path_len = len;
                in.truncated = m < len;
                *info = in;
                return GC_OK;
            }
        }
        sched_yield();
    }
    return GC_EBUSY;
}

void
gc_world_trace_request(const gc_world *w, uint32_t *agent, uint32_t *salt)
{
    gc_world_trace_hdr *t = world_trace_hdr(w);
    if (agent != NULL)
        *agent = atomic_load_explicit(&t->request_agent, memory_order_relaxed);
    if (salt != NULL)
        *salt = atomic_load_explicit(&t->request_salt, memory_order_relaxed);
}
