/*
 * sim-crowd-share.c: the crowd step shared out among the workers.  Each
 * worker takes runs of half blocks (GC_SIM_HALF slots), its own share
 * first and then what the others have not reached, and steps each run's
 * live agents as one chunk (gc_sim_crowd_step_chunk, sim-crowd.c); runs
 * holding an agent that may plan in the tick wait until every worker has
 * planned.  A run's float sums and contacts go to its halves' slots, so
 * nothing depends on who took which run.  Also the workers' scratch for
 * the step.
 */
#include "config.h"

#include "sim_crowd_int.h"

#include <math.h>
#include <stdlib.h>

int
gc_sim_crowd_scratch_new(gc_sim_crowd_scratch **out, uint32_t cap)
{
    gc_sim_crowd_scratch *c = malloc(sizeof *c);
    size_t halves = gc_sim_halves(cap);
    if (c != NULL)
        c->later = malloc((halves > 0 ? halves : 1) * sizeof *c->later);
    if (c == NULL || c->later == NULL) {
        free(c);
        *out = NULL;
        return GC_ENOMEM;
    }
    *out = c;
    return GC_OK;
}

void
gc_sim_crowd_scratch_free(gc_sim_crowd_scratch *c)
{
    if (c != NULL)
        free(c->later);
    free(c);
}

/* Whether every worker has served its plan queues this tick. */
static bool
all_planned(const gc_sim *s)
{
    return atomic_load_explicit(&s->planned, memory_order_acquire) >=
           s->nworkers;
}

/* The run of halves [u, u + len) (len 1 or 2, in one block or two):
 * their live agents in one chunk. */
static void
step_run(gc_sim_worker *w, uint32_t u, uint32_t len, uint64_t *avoid_ns)
{
    gc_sim *s = w->sim;
    gc_sim_crowd_scratch *c = w->crowd;
    uint32_t m = 0, split = 0;
    for (uint32_t h = 0; h < len; h++) {
        uint32_t b = (u + h) * GC_SIM_HALF, e = gc_sim_half_end(b, s->n);
        for (uint32_t i = b; i < e; i++) {
            s->flags[i] &= (uint8_t)~GC_SIM_F_CONTACT; /* (this tick's) */
            if (gc_sim_alive(s, i))
                c->who[m++] = i;
        }
        if (h == 0)
            split = m;
    }
    c->speed_sum[0] = c->speed_sum[1] = c->pref_sum[0] = c->pref_sum[1] = 0.0;
    c->contact_least[0] = c->contact_least[1] = INFINITY;
    if (m > 0)
        gc_sim_crowd_step_chunk(w, c, m, split, avoid_ns);
    for (uint32_t h = 0; h < len; h++) {
        s->blk_speed[u + h] = c->speed_sum[h];
        s->blk_pref[u + h] = c->pref_sum[h];
        s->blk_contact[u + h] = c->contact_least[h];
    }
}

/*
 * Worker w's next run of halves, as gc_sim_take takes units from the
 * shares of the blocks (each share whole blocks, as the start-of-tick
 * copy's): two at a time, a whole block, while the share has four or
 * more left (a chunk of two halves keeps gc_sim_crowd_step_chunk's passes
 * long), then one, so that the last thing a worker takes, and the others may
 * wait for, is half as long.  (Circle 1,000 on two threads, blocks taken
 * whole: the slower worker's avoidance took 7% more than the two's
 * mean.  In halves the step took 1.5 to 4% less.)
 */
static bool
take_run(gc_sim *s, const gc_sim_worker *w, uint32_t *o, uint32_t *unit,
         uint32_t *len)
{
    size_t nw = (size_t)s->nworkers, units = gc_sim_halves(s->n);
    for (; *o < nw; (*o)++) {
        size_t k = ((size_t)w->id + *o) % nw, lo, hi;
        gc_sim_block_share(s, k, &lo, &hi);
        lo *= 2;
        hi = 2 * hi < units ? 2 * hi : units;
        size_t have = hi - lo;
        atomic_size_t *next = &s->workers[k].next;
        size_t seen = atomic_load_explicit(next, memory_order_relaxed);
        size_t want = seen < have && have - seen >= 4 ? 2 : 1;
        size_t j = atomic_fetch_add_explicit(next, want, memory_order_relaxed);
        if (j < have) {
            *unit = (uint32_t)(lo + j);
            *len = want == 2 && j + 1 < have ? 2 : 1;
            return true;
        }
    }
    return false;
}

/* Whether a run holds an agent that may plan in this tick. */
static bool
run_plans(const gc_sim *s, uint32_t u, uint32_t len)
{
    return s->blk_plan[u / 2] || s->blk_plan[(u + len - 1) / 2];
}

/*
 * The worker's halves: its share, then those of others' shares that
 * they have not taken yet (take_run).  An agent's step must see the
 * plan it gets in this tick, which its owner makes (gc_sim_plan_queued,
 * before this): a run holding an agent that may plan now (its block's
 * blk_plan) is put aside while any worker is still planning, and stepped
 * at the end, once all have planned (spinning, yielding when that takes
 * long).  So a worker with little to plan steps the others meanwhile.
 */
void
gc_sim_crowd_step(gc_sim_worker *w)
{
    gc_sim *s = w->sim;
    gc_sim_crowd_scratch *c = w->crowd;
    uint64_t avoid_ns = 0;
    w->tick_overlaps = 0;
    w->tick_moved2 = 0.0f;
    atomic_fetch_add_explicit(&s->planned, 1, memory_order_acq_rel);
    uint32_t later = 0, u, len;
    /* Its own share first, then the others' that are left. */
    for (uint32_t o = 0; take_run(s, w, &o, &u, &len);) {
        if (run_plans(s, u, len) && !all_planned(s))
            c->later[later++] = 2u * u + len - 1u;
        else
            step_run(w, u, len, &avoid_ns);
    }
    for (unsigned spins = 0; later > 0 && !all_planned(s);)
        gc_sim_spin_turn(&spins, 256);
    for (uint32_t j = 0; j < later; j++)
        step_run(w, c->later[j] / 2u, c->later[j] % 2u + 1u, &avoid_ns);
    w->tick_avoid_ns = avoid_ns;
}
