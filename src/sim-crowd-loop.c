/*
 * sim-crowd-loop.c: the crowd's part of the loop's work between ticks.
 * Before the gate opens (gc_sim_crowd_prepare): every agent's position,
 * velocity, state and radius copied into the start-of-tick arrays that
 * the workers read in the tick, the furthest any agent moved (for the
 * candidate lists, sim-crowd-near.c), the neighbour index, and which
 * blocks hold agents that may plan.  After the tick
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
    /* The halves' sums and the blocks' plan requests, in slot order: the
     * same whoever stepped which. */
    for (size_t u = 0; u < gc_sim_halves(s->n); u++) {
        c->speed_sum += s->blk_speed[u];
        c->pref_sum += s->blk_pref[u];
    }
    size_t blocks = gc_sim_blocks(s->n);
    for (uint32_t b = 0; b < blocks; b++) {
        uint32_t ask[GC_SIM_CHUNK];
        uint32_t got = gc_sim_take_flagged(s, s->blk_ask, b, GC_SIM_F_ASK, ask);
        for (uint32_t q = 0; q < got; q++)
            gc_sim_enqueue(s, ask[q], false);
    }
}

/*
 * The start-of-tick copy and the index, shared out among the workers
 * (gc_sim_run) from gc_sim_prep_shared agents up; below that the loop's
 * thread does it all, as three hand-overs between the threads cost more
 * than they save (circle, two threads, the copy and index: 3,000 agents
 * 25 us alone against 33-36 shared; 10,000: 71-86 against 60-71;
 * 100,000: 1.39-1.76 ms against 0.76-1.19).  The copy goes by chunks of
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
        float moved = 0.0f;
        bool changed = false;
        for (uint32_t i = lo; i < hi; i++) {
            bool alive = gc_sim_alive(s, i);
            gc_vec2 p = s->agents[i].pos;
            if (alive != (s->st[i] != GC_SIM_ST_FREE))
                changed = true;
            else if (alive) {
                float dx = p.x - s->px[i], dy = p.y - s->py[i];
                float d = dx * dx + dy * dy;
                moved = d > moved ? d : moved;
            }
            s->px[i] = p.x;
            s->py[i] = p.y;
            s->vx[i] = s->body[i].vx;
            s->vy[i] = s->body[i].vy;
            s->st[i] = alive ? s->agents[i].state : GC_SIM_ST_FREE;
            s->pr[i] = gc_sim_body_radius(s, i);
        }
        struct gc_sim_prep *r = &s->prep[c];
        r->moved2 = moved;
        r->changed = changed;
        /* The bounds of what is indexed: every slot, unless there are
         * free ones (then the loop packs the live ones and takes their
         * bounds). */
        gc_orca_bounds_init(&r->box);
        if (!s->holes)
            gc_orca_bounds_add(&r->box, s->px, s->py, lo, hi);
    }
}

/* One of the index's steps that go by parts (gc_orca_grid_count or
 * _fill) over worker w's part of the indexed positions: the slots', or
 * the live agents' packed. */
static void
prep_index(gc_sim_worker *w,
           void (*step)(gc_orca_grid *g, const float *x, const float *y,
                        size_t lo, size_t hi, size_t part))
{
    gc_sim *s = w->sim;
    size_t lo, hi;
    if (prep_part(w, s->indexed, &lo, &hi))
        step(s->oidx, s->holes ? s->ix : s->px, s->holes ? s->iy : s->py, lo,
             hi, (size_t)w->id);
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

int
gc_sim_crowd_prepare(gc_sim *s)
{
    uint64_t t0 = gc_clock_ns();
    s->prep_parts = s->n >= gc_sim_prep_shared ? s->nworkers : 1;
    s->holes = s->live < s->n;
    gc_sim_take_reset(s);
    prep_run(s, prep_copy);
    /* The furthest any agent moved since the last tick started (by
     * walking or by being put somewhere), and whether one was added or
     * removed: what the candidate lists need (sim-crowd-near.c). */
    float moved = 0.0f;
    bool changed = false;
    gc_orca_bounds box;
    gc_orca_bounds_init(&box);
    for (size_t c = 0; c < gc_sim_prep_chunks(s->n); c++) {
        const struct gc_sim_prep *r = &s->prep[c];
        moved = r->moved2 > moved ? r->moved2 : moved;
        changed |= r->changed;
        gc_orca_bounds_join(&box, &r->box);
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
            s->ix[m] = s->px[i];
            s->iy[m] = s->py[i];
            s->live_slot[m] = i;
            s->slot_live[i] = m++;
        }
        gc_orca_bounds_add(&box, s->ix, s->iy, 0, m);
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
        uint32_t q =
            w->qlen < s->cfg.plan_budget ? w->qlen : s->cfg.plan_budget;
        for (uint32_t j = 0; j < q; j++)
            s->blk_plan[w->queue[(w->qhead + j) % w->qcap] / GC_SIM_CHUNK] = 1;
    }
    s->index_ns = gc_clock_ns() - t0;
    return rc;
}
