/*
 * sim-crowd-loop.c: the crowd's part of the loop's work between ticks.
 * Before the gate opens (gc_sim_crowd_prepare), or as the workers' first
 * part of the tick below gc_sim_prep_shared agents
 * (gc_sim_crowd_prepare_fused): every agent's position, velocity, state
 * and radius copied into the start-of-tick arrays that the workers read
 * in the tick, the furthest any agent moved (for the candidate lists,
 * sim-crowd-near.c), the neighbour index, and which blocks hold agents
 * that may plan.  After the tick
 * (gc_sim_crowd_after): the workers' figures summed, the contacts pass
 * (sim-crowd-contact.c), and the plan requests the step flagged queued
 * in slot order.  The tick itself is sim-crowd.c.
 */
#include "config.h"

#include <gridcrowd/util.h>

#include "orca_int.h"
#include "sim_crowd_int.h"

#include <math.h>
#include <string.h>

/* The agents of half block b (GC_SIM_HALF slots, the unit two workers
 * never share in a tick) that asked for a plan in the step (when
 * blk_ask[b] says any did), into out in slot order, their flags and
 * blk_ask[b] cleared.  Returns how many. */
static uint32_t
take_asks(gc_sim *s, uint32_t b, uint32_t *out)
{
    if (!s->blk_ask[b])
        return 0;
    s->blk_ask[b] = 0;
    uint32_t got = 0, lo = b * GC_SIM_HALF, e = gc_sim_half_end(lo, s->n);
    for (uint32_t i = lo; i < e; i++)
        if (s->flags[i] & GC_SIM_F_ASK) {
            s->flags[i] &= (uint8_t)~GC_SIM_F_ASK;
            out[got++] = i;
        }
    return got;
}

void
gc_sim_crowd_after(gc_sim *s)
{
    uint64_t pairs = 0, slowest = 0;
    for (int k = 0; k < s->nworkers; k++) {
        pairs += s->workers[k].tick_overlaps;
        if (s->workers[k].tick_avoid_ns > slowest)
            slowest = s->workers[k].tick_avoid_ns;
    }
    gc_sim_counters *c = &s->workers[0].win;
    c->overlaps += pairs;
    if (pairs > c->overlaps_max)
        c->overlaps_max = pairs;
    uint64_t t0 = gc_clock_ns();
    gc_sim_crowd_contacts(s);
    c->avoid_ns += s->index_ns + slowest + (gc_clock_ns() - t0);
    /* The halves' sums in slot order, the same whoever stepped which;
     * the plan requests queued in the ids' order, the same whatever the
     * slots' (the contacts pass is done with its lists). */
    uint32_t asks = 0;
    for (uint32_t u = 0; u < gc_sim_halves(s->n); u++) {
        c->speed_sum += s->blk_speed[u];
        c->pref_sum += s->blk_pref[u];
        asks += take_asks(s, u, s->contact_list + asks);
    }
    gc_sim_sort_by_id(s, s->contact_list, s->contact_next, asks);
    for (uint32_t q = 0; q < asks; q++)
        gc_sim_enqueue(s, s->contact_list[q], false);
}

/*
 * The start-of-tick copy and the index, shared out among the workers
 * (gc_sim_run) from gc_sim_prep_shared agents up; below that, with one
 * worker, the loop's thread does it all, and with more, the workers do
 * it as their tick's first part without a hand-over
 * (gc_sim_crowd_prepare_fused), as three hand-overs between the threads
 * cost more than they save (circle, two threads, the copy and index:
 * 3,000 agents 25 us alone against 33-36 shared; 10,000: 71-86 against
 * 60-71; 100,000: 1.39-1.76 ms against 0.76-1.19).  The copy goes by chunks of
 * GC_SIM_PREP_CHUNK slots, each worker's share of them first, as the
 * step's blocks go (gc_sim_take: it then steps what it copied), and
 * a worker still waking up is not waited for; the index's count and fill by one
 * contiguous part of the indexed agents a worker, in index order.  What
 * the chunks find (the furthest move, whether the live set changed, the
 * bounds) is joined by max, or and min, and the index answers the same
 * whatever the parts, so nothing depends on how many there are.
 */
unsigned gc_sim_prep_shared = 8192u;

/* Worker w's part [*lo, *hi) of `count` things, when it has one. */
static bool
prep_part(const gc_sim_worker *w, size_t count, size_t *lo, size_t *hi)
{
    size_t parts = (size_t)w->sim->prep_parts, id = (size_t)w->id;
    if (id >= parts)
        return false;
    *lo = count * id / parts;
    *hi = count * (id + 1) / parts;
    return true;
}

/* Run job on each part: on every worker, or on the loop's alone. */
static void
prep_run(gc_sim *s, void (*job)(gc_sim_worker *w))
{
    if (s->prep_parts > 1)
        gc_sim_run(s, job);
    else
        job(&s->workers[0]);
}

/* The positions the index holds: every slot's start-of-tick one, or,
 * with free slots, the live agents' packed (ix, iy). */
static gc_orca_points
indexed(const gc_sim *s)
{
    if (s->holes)
        return (gc_orca_points){s->ix, s->iy, sizeof *s->ix};
    return (gc_orca_points){&s->now[0].x, &s->now[0].y, sizeof *s->now};
}

/* The copy of slots [lo, hi), and what it found into *r. */
static void
copy_range(gc_sim *s, uint32_t lo, uint32_t hi, struct gc_sim_prep *r)
{
    float moved = 0.0f;
    bool changed = false;
    for (uint32_t i = lo; i < hi; i++) {
        bool alive = gc_sim_alive(s, i);
        gc_vec2 p = s->agents[i].pos;
        gc_sim_now *to = &s->now[i];
        if (alive != (to->st != GC_SIM_ST_FREE))
            changed = true;
        else if (alive) {
            float dx = p.x - to->x, dy = p.y - to->y;
            float d = dx * dx + dy * dy;
            moved = d > moved ? d : moved;
        }
        *to = (gc_sim_now){p.x,
                           p.y,
                           s->body[i].vx,
                           s->body[i].vy,
                           gc_sim_body_radius(s, i),
                           alive ? (uint8_t)s->agents[i].state
                                 : (uint8_t)GC_SIM_ST_FREE};
    }
    r->moved2 = moved;
    r->changed = changed;
    /* The bounds of what is indexed: every slot, unless there are free
     * ones (then the loop packs the live ones and takes their bounds). */
    gc_orca_bounds_init(&r->box);
    if (!s->holes) {
        gc_orca_points pts = indexed(s);
        gc_orca_bounds_add(&r->box, &pts, lo, hi);
    }
}

/* The copy, chunk by chunk as they come (a worker woken late finds
 * fewer left: its wake-up is not waited for). */
static void
prep_copy(gc_sim_worker *w)
{
    gc_sim *s = w->sim;
    size_t chunks = gc_sim_prep_chunks(s->n), c;
    for (uint32_t o = 0; gc_sim_take(s, w, chunks, &o, &c);) {
        uint32_t lo = (uint32_t)(c * GC_SIM_PREP_CHUNK);
        uint32_t hi = s->n - lo > GC_SIM_PREP_CHUNK ? lo + GC_SIM_PREP_CHUNK
                                                     : s->n;
        copy_range(s, lo, hi, &s->prep[c]);
    }
}

/* One of the index's steps that go by parts (gc_orca_grid_count or
 * _fill) over worker w's part of the indexed positions: the slots', or
 * the live agents' packed. */
static void
prep_index(gc_sim_worker *w,
           void (*step)(gc_orca_grid *g, const gc_orca_points *pts, size_t lo,
                        size_t hi, size_t part))
{
    gc_sim *s = w->sim;
    size_t lo, hi;
    gc_orca_points pts = indexed(s);
    if (prep_part(w, s->indexed, &lo, &hi))
        step(s->oidx, &pts, lo, hi, (size_t)w->id);
}

static void
prep_count(gc_sim_worker *w)
{
    prep_index(w, gc_orca_grid_count);
}

static void
prep_fill(gc_sim_worker *w)
{
    prep_index(w, gc_orca_grid_fill);
}

/*
 * After the copy, whose parts found r[0 .. parts): the index, and which
 * blocks may plan.  t0: when the preparation started.
 */
static int
prep_rest(gc_sim *s, const struct gc_sim_prep *r, size_t parts, uint64_t t0)
{
    /* The furthest any agent moved since the last tick started (by
     * walking or by being put somewhere), and whether one was added or
     * removed: what the candidate lists need (sim-crowd-near.c). */
    float moved = 0.0f;
    bool changed = false;
    gc_orca_bounds box;
    gc_orca_bounds_init(&box);
    for (size_t c = 0; c < parts; c++) {
        moved = r[c].moved2 > moved ? r[c].moved2 : moved;
        changed |= r[c].changed;
        gc_orca_bounds_join(&box, &r[c].box);
    }
    /* Rounded up: the lists' bound must never be short. */
    s->travel += sqrt((double)moved) * (1.0 + 1e-6);
    if (changed)
        for (uint32_t i = 0; i < s->n; i++)
            s->near_r[i] = -1.0f;
    uint32_t m = s->n;
    if (s->holes) {
        /* Free slots must not be anybody's neighbour: index the live. */
        m = 0;
        for (uint32_t i = 0; i < s->n; i++) {
            if (!gc_sim_alive(s, i))
                continue;
            s->ix[m] = s->now[i].x;
            s->iy[m] = s->now[i].y;
            s->live_slot[m] = i;
            s->slot_live[i] = m++;
        }
        gc_orca_points pts = indexed(s);
        gc_orca_bounds_add(&box, &pts, 0, m);
    }
    s->indexed = m;
    int rc = gc_orca_grid_shape(s->oidx, &box, m, s->orca.neighbour_dist / 2.0f,
                                (size_t)s->prep_parts);
    if (rc == GC_OK) {
        prep_run(s, prep_count);
        gc_orca_grid_offsets(s->oidx);
        prep_run(s, prep_fill);
    }
    /* The blocks to share out, and which of them hold agents that may
     * plan in this tick (every urgent request, and the budget's worth of
     * the queue: a time budget only plans fewer). */
    gc_sim_take_reset(s);
    atomic_store_explicit(&s->planned, 0, memory_order_relaxed);
    memset(s->blk_plan, 0, gc_sim_blocks(s->n));
    for (int k = 0; k < s->nworkers; k++) {
        const gc_sim_worker *w = &s->workers[k];
        for (uint32_t j = 0; j < w->ulen; j++)
            s->blk_plan[w->urgent[(w->uhead + j) % w->qcap] / GC_SIM_CHUNK] = 1;
        for (uint32_t j = 0; j < w->quota; j++)
            s->blk_plan[w->queue[(w->qhead + j) % w->qcap] / GC_SIM_CHUNK] = 1;
    }
    s->index_ns = gc_clock_ns() - t0;
    return rc;
}

/* fuse_rc until worker 0 has prepared the tick: no gc_err code (those
 * are 0 and below). */
#define FUSE_PENDING 1

int
gc_sim_crowd_prepare(gc_sim *s)
{
    uint64_t t0 = gc_clock_ns();
    s->holes = s->live < s->n;
    s->fused = s->nworkers > 1 && s->n < gc_sim_prep_shared;
    if (s->fused) {
        /* In the tick's job: gc_sim_crowd_prepare_fused. */
        atomic_store_explicit(&s->fuse_in, 0, memory_order_relaxed);
        atomic_store_explicit(&s->fuse_rc, FUSE_PENDING, memory_order_relaxed);
        return GC_OK;
    }
    s->prep_parts = s->n >= gc_sim_prep_shared ? s->nworkers : 1;
    gc_sim_take_reset(s);
    prep_run(s, prep_copy);
    return prep_rest(s, s->prep, gc_sim_prep_chunks(s->n), t0);
}

/*
 * Below gc_sim_prep_shared agents, with more than one worker, the
 * preparation is the tick job's first part (gc_sim_crowd_prepare only
 * arms it): each worker copies its own share of the blocks, the share it
 * steps (gc_sim_crowd_step), and once all have, worker 0 builds the
 * index while the others wait.  Handing the copy and the index's two
 * steps to the workers through the gate cost more than it saved (each
 * hand-over about 6 us on this VM; circle 1,000 on two threads), and the
 * loop's thread copying them all read every record the other core had
 * just written, and the other core then read the copies back: the
 * workers spent a fifth more CPU on a 1,000-agent step than one thread
 * did.  The copy's results and the index are the same whoever copied
 * what.  Returns the preparation's result, the same for every worker;
 * on an error nobody steps.
 */
int
gc_sim_crowd_prepare_fused(gc_sim_worker *w)
{
    gc_sim *s = w->sim;
    uint64_t t0 = gc_clock_ns();
    size_t k = (size_t)w->id, lo, hi;
    gc_sim_block_share(s, k, &lo, &hi);
    lo *= GC_SIM_CHUNK;
    hi = hi * GC_SIM_CHUNK < s->n ? hi * GC_SIM_CHUNK : s->n;
    copy_range(s, (uint32_t)lo, (uint32_t)hi, &s->prep[k]);
    atomic_fetch_add_explicit(&s->fuse_in, 1, memory_order_acq_rel);
    unsigned spins = 0;
    if (w->id != 0) {
        int rc;
        while ((rc = atomic_load_explicit(&s->fuse_rc, memory_order_acquire)) ==
               FUSE_PENDING)
            gc_sim_spin_turn(&spins, 4096);
        return rc;
    }
    /* Worker 0: once every copy is in, the rest. */
    while (atomic_load_explicit(&s->fuse_in, memory_order_acquire) <
           s->nworkers)
        gc_sim_spin_turn(&spins, 4096);
    s->prep_parts = 1;
    int rc = prep_rest(s, s->prep, (size_t)s->nworkers, t0);
    atomic_store_explicit(&s->fuse_rc, rc, memory_order_release);
    return rc;
}
