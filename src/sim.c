/*
 * sim.c: the simulation handle, the tick and the worker gate.
 *
 * Threads.  The caller's thread runs the loop and is worker 0; `threads`
 * - 1 more workers have threads of their own.  Each worker owns blocks of
 * GC_SIM_CHUNK agents dealt round the workers (gc_sim_owner: it plans
 * them), one A* context and one path buffer; path followers move their
 * own agents, and the crowd step steps its share, one contiguous run of
 * blocks, then helps with the others' (gc_sim_take, sim-crowd.c).
 * A tick is one phase of a gate (a mutex, two condition variables, and
 * atomic phase and done counters that a worker spins on briefly before
 * sleeping: gc_sim_run): the loop bumps the phase and wakes the workers,
 * runs worker 0's share, and waits until the others have reported done.
 * (With bodies, large crowds take up to three phases more before the
 * tick: gc_sim_crowd_prepare's parts.)
 * Between ticks the workers are parked on the gate, so the loop may read
 * every agent, read the workers' counters and change the grid; the gate
 * gives the happens-before edges both ways (release and acquire on the
 * counters, and the mutex), so no other field needs atomics or locks.
 * (A pthread barrier cannot be released when a thread failed to start;
 * the gate's quit flag can.)
 *
 * The rest of the simulation is in sim-plan.c (queues, searches,
 * replanning after grid changes), sim-goals.c (components, placement,
 * goals), sim-agents.c (handles, spawn, remove, goals set from outside),
 * sim-crowd.c (bodies) and sim-stats.c (figures); sim_int.h is what they
 * share.
 *
 * Slots.  Every per-agent array is allocated once for the capacity
 * (max_agents), so a spawn between ticks never reallocates what a worker
 * holds a pointer into; loops scan the first n slots and skip free ones.
 *
 * Units.  Motion is in world units (gc_sim_config.motion); the defaults,
 * given in cells, are converted once, here, from the grid's cell size.
 */
#include "config.h"

#include "sim_int.h"

#include <gridcrowd/util.h>

#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

void
gc_sim_config_init(gc_sim_config *c)
{
    memset(c, 0, sizeof *c);
    c->agents = 300;
    c->threads = 1;
    c->hz = 60.0;
    c->motion.speed = 0.0f;          /* default: 4 cells per second */
    c->motion.arrive_radius = -1.0f; /* default: 0.1 cell */
    c->motion.turn_rate = 0.0f;
    c->goals = GC_GOALS_WANDER;
    c->seed = 1;
    c->plan_budget = 64;
    c->smooth = true;
    c->diag = GC_DIAG_NO_CORNER_CUT;
    c->wander_repeat = true;
    c->radius = 0.0f;
    c->avoid = GC_AVOID_NONE;
    c->follow_reuse = true;
    c->reorder = (float)GC_SIM_REORDER_S;
}

const char *
gc_avoid_name(gc_avoid a)
{
    switch (a) {
    case GC_AVOID_NONE:
        return "none";
    case GC_AVOID_ORCA:
        return "orca";
    case GC_AVOID_ORCA_ADAPTIVE:
        return "orca-adaptive";
    }
    return NULL;
}

int
gc_avoid_parse(const char *str)
{
    if (str == NULL)
        return -1;
    if (strcasecmp(str, "none") == 0)
        return GC_AVOID_NONE;
    if (strcasecmp(str, "orca") == 0)
        return GC_AVOID_ORCA;
    if (strcasecmp(str, "orca-adaptive") == 0)
        return GC_AVOID_ORCA_ADAPTIVE;
    return -1;
}

static void
worker_tick(gc_sim_worker *w)
{
    gc_sim *s = w->sim;
    if (gc_sim_bodies(s) && s->fused && gc_sim_crowd_prepare_fused(w) != GC_OK)
        return; /* (nobody steps: gc_sim_tick returns the error) */
    gc_sim_plan_queued(w);
    if (gc_sim_bodies(s)) {
        gc_sim_crowd_step(w);
        return;
    }
    gc_agent_params pr = s->cfg.motion;
    uint64_t first;
    for (uint32_t j = 0;
         (first = gc_sim_owned_block(s, (uint32_t)w->id, j)) < s->n; j++)
        for (uint32_t i = (uint32_t)first, e = gc_sim_block_end(i, s->n); i < e;
             i++) {
            gc_agent *a = &s->agents[i];
            if (a->state != GC_AGENT_MOVING)
                continue; /* free slots are idle */
            pr.speed = a->speed;
            pr.turn_rate = s->slot[i].turn_rate;
            if (gc_agent_step(a, s->dt, &pr))
                gc_sim_on_arrival(s, w, i);
        }
}

/*
 * The gate.  The loop's own thread is worker 0: it opens the gate for
 * the others, runs its share, and waits for them.  A worker that has
 * finished a tick spins for a while (GATE_SPIN_NS) before it sleeps on
 * the condition variable: ticks run back to back (a benchmark, a busy
 * daemon) then start within a microsecond, where waking a sleeping
 * thread took this machine about 300 us, most of a 1,000-agent tick.
 * At 60 Hz the spin ends long before the next tick and costs under 1%
 * of a core.  phase and done are atomic so that the spins can read them;
 * every wait ends under gate_mu, so no wake-up is lost.
 */
#define GATE_SPIN_NS 100000u

/* Spin while *v holds `old`, for at most GATE_SPIN_NS: whether it
 * changed. */
static bool
spin_while(const _Atomic uint64_t *v, uint64_t old)
{
    uint64_t t0 = 0;
    for (unsigned k = 0;; k++) {
        if (atomic_load_explicit(v, memory_order_acquire) != old)
            return true;
        gc_sim_cpu_relax();
        if ((k & 63) == 63) {
            uint64_t t = gc_clock_ns();
            if (t0 == 0)
                t0 = t;
            else if (t - t0 >= GATE_SPIN_NS)
                return false;
        }
    }
}

static void *
worker_main(void *arg)
{
    gc_sim_worker *w = arg;
    gc_sim *s = w->sim;
    uint64_t seen = 0;
    for (;;) {
        (void)spin_while(&s->phase, seen);
        pthread_mutex_lock(&s->gate_mu);
        while (atomic_load(&s->phase) == seen && !s->quit)
            pthread_cond_wait(&s->gate_go, &s->gate_mu);
        bool quit = s->quit;
        seen = atomic_load(&s->phase);
        pthread_mutex_unlock(&s->gate_mu);
        if (quit)
            return NULL;
        s->job(w);
        if (atomic_fetch_add_explicit(&s->done, 1, memory_order_acq_rel) + 1 ==
            (uint64_t)s->nworkers - 1) {
            pthread_mutex_lock(&s->gate_mu);
            pthread_cond_signal(&s->gate_done);
            pthread_mutex_unlock(&s->gate_mu);
        }
    }
}

void
gc_sim_run(gc_sim *s, void (*job)(gc_sim_worker *w))
{
    s->job = job;
    if (s->nworkers > 1) {
        atomic_store_explicit(&s->done, 0, memory_order_relaxed);
        pthread_mutex_lock(&s->gate_mu);
        atomic_fetch_add_explicit(&s->phase, 1, memory_order_release);
        pthread_cond_broadcast(&s->gate_go);
        pthread_mutex_unlock(&s->gate_mu);
    }
    job(&s->workers[0]);
    if (s->nworkers == 1)
        return;
    uint64_t want = (uint64_t)s->nworkers - 1, done;
    while ((done = atomic_load_explicit(&s->done, memory_order_acquire)) <
           want)
        if (!spin_while(&s->done, done))
            break;
    pthread_mutex_lock(&s->gate_mu);
    while (atomic_load(&s->done) < want)
        pthread_cond_wait(&s->gate_done, &s->gate_mu);
    pthread_mutex_unlock(&s->gate_mu);
}

static void
parallel_job(gc_sim_worker *w)
{
    gc_sim *s = w->sim;
    s->par_fn(s->par_ctx, (unsigned)w->id, (unsigned)s->nworkers);
}

void
gc_sim_parallel(gc_sim *s, void (*fn)(void *ctx, unsigned part, unsigned parts),
                void *ctx)
{
    s->par_fn = fn;
    s->par_ctx = ctx;
    gc_sim_run(s, parallel_job);
}

/* ---- life cycle ------------------------------------------------------------
 */

static int
check_config(const gc_sim_config *c, gc_error *err)
{
    if (c->threads < 1 || c->threads > 1024)
        return gc_error_set(err, GC_ERANGE, NULL, 0, 0,
                            "threads must be from 1 to 1024, got %d",
                            c->threads);
    if (!(c->hz > 0.0 && c->hz <= 100000.0))
        return gc_error_set(err, GC_ERANGE, NULL, 0, 0,
                            "hz must be above 0 and at most 100000");
    /* 0 speed and a negative radius ask for the defaults (in cells). */
    if (!(c->motion.speed >= 0.0f) || !isfinite(c->motion.speed))
        return gc_error_set(err, GC_ERANGE, NULL, 0, 0,
                            "speed must be a positive number");
    if (!isfinite(c->motion.arrive_radius))
        return gc_error_set(err, GC_ERANGE, NULL, 0, 0,
                            "arrival radius must be >= 0");
    if (!(c->motion.turn_rate >= 0.0f) || !isfinite(c->motion.turn_rate))
        return gc_error_set(err, GC_ERANGE, NULL, 0, 0,
                            "turn rate must be >= 0");
    if (c->plan_budget < 1)
        return gc_error_set(err, GC_ERANGE, NULL, 0, 0,
                            "plan budget must be at least 1");
    if (!(c->radius >= 0.0f) || !isfinite(c->radius))
        return gc_error_set(err, GC_ERANGE, NULL, 0, 0,
                            "radius must be >= 0");
    if (gc_avoid_name(c->avoid) == NULL)
        return gc_error_set(err, GC_EINVAL, NULL, 0, 0,
                            "unknown avoidance model %d", (int)c->avoid);
    if (c->neighbours > GC_ORCA_MAX_NEIGHBOURS)
        return gc_error_set(err, GC_ERANGE, NULL, 0, 0,
                            "neighbours must be at most %d",
                            GC_ORCA_MAX_NEIGHBOURS);
    if (!(c->horizon >= 0.0f) || !isfinite(c->horizon))
        return gc_error_set(err, GC_ERANGE, NULL, 0, 0,
                            "horizon must be >= 0");
    if (!(c->neighbour_dist >= 0.0f) || !isfinite(c->neighbour_dist))
        return gc_error_set(err, GC_ERANGE, NULL, 0, 0,
                            "neighbour distance must be >= 0");
    if (!(c->time_gap >= 0.0f) || !isfinite(c->time_gap))
        return gc_error_set(err, GC_ERANGE, NULL, 0, 0,
                            "time gap must be >= 0");
    if (!(c->max_speed >= 0.0f) || !isfinite(c->max_speed))
        return gc_error_set(err, GC_ERANGE, NULL, 0, 0,
                            "max speed must be >= 0");
    if (c->max_agents > GC_SIM_MAX_AGENTS ||
        (c->max_agents == 0 && c->agents > GC_SIM_MAX_AGENTS))
        return gc_error_set(err, GC_ERANGE, NULL, 0, 0,
                            "at most %u agents", GC_SIM_MAX_AGENTS);
    if (c->max_agents != 0 && c->max_agents < c->agents)
        return gc_error_set(err, GC_ERANGE, NULL, 0, 0,
                            "max agents (%u) is below the agents (%u)",
                            c->max_agents, c->agents);
    /* (Unchecked, a diagonal rule of 42 left every agent unreachable and
     * goals of 77 every agent arrived, without a word.) */
    if ((unsigned)c->diag > (unsigned)GC_DIAG_ALWAYS)
        return gc_error_set(err, GC_EINVAL, NULL, 0, 0,
                            "unknown diagonal rule %d", (int)c->diag);
    if ((unsigned)c->goals > (unsigned)GC_GOALS_SCEN)
        return gc_error_set(err, GC_EINVAL, NULL, 0, 0, "unknown goal mode %d",
                            (int)c->goals);
    if (c->goals == GC_GOALS_SCEN && c->scen == NULL)
        return gc_error_set(err, GC_EINVAL, NULL, 0, 0,
                            "scen goals need a scenario");
    return GC_OK;
}

/*
 * Bodies may not move more than GC_SIM_MAX_SPEED_CELLS_PER_TICK a tick:
 * the wall clamp looks only at where a move ends, so a longer step could
 * cross a thin wall.  The default speed (motion.speed 0: four cells a
 * second) and the most avoidance may ask (max_speed) are checked at the
 * tick rate, as each agent's own speed is at its spawn.
 */
static int
check_body_speed(const gc_sim_config *c, float cell_size, gc_error *err)
{
    float lim = gc_sim_speed_limit(cell_size, (float)(1.0 / c->hz));
    float v = c->motion.speed > 0.0f ? c->motion.speed : 4.0f * cell_size;
    const char *what = c->motion.speed > 0.0f ? "speed" : "the default speed";
    if (c->max_speed > v) {
        v = c->max_speed;
        what = "max speed";
    }
    if (v <= lim)
        return GC_OK;
    return gc_error_set(err, GC_ERANGE, NULL, 0, 0,
                        "%s %g units/s is more than %g cells a tick at %g "
                        "Hz (at most %g units/s for bodies); raise --hz or "
                        "lower the speed",
                        what, (double)v,
                        (double)GC_SIM_MAX_SPEED_CELLS_PER_TICK, c->hz,
                        (double)lim);
}

int
gc_sim_new(gc_sim **out, gc_grid *g, const gc_sim_config *cfg, gc_error *err)
{
    *out = NULL;
    int rc = check_config(cfg, err);
    if (rc == GC_OK && cfg->avoid != GC_AVOID_NONE)
        rc = check_body_speed(cfg, g->cell_size, err);
    if (rc != GC_OK)
        return rc;
    gc_sim *s = calloc(1, sizeof *s);
    if (s == NULL)
        return gc_error_set(err, GC_ENOMEM, NULL, 0, 0, "out of memory");
    s->grid = g;
    s->cfg = *cfg;
    s->dt = (float)(1.0 / cfg->hz);
    s->hz = (uint64_t)lroundf(1.0f / s->dt);
    if (s->hz == 0)
        s->hz = 1;
    /* World units from here on: the defaults are in cells, and this is
     * the one place they are converted (a radius the caller gave is in
     * world units already and is never scaled). */
    if (s->cfg.motion.speed == 0.0f)
        s->cfg.motion.speed = 4.0f * g->cell_size;
    if (s->cfg.motion.arrive_radius < 0.0f)
        s->cfg.motion.arrive_radius = 0.1f * g->cell_size;
    s->n = cfg->agents;
    if (cfg->goals == GC_GOALS_SCEN && cfg->scen->len < s->n)
        s->n = (uint32_t)cfg->scen->len;
    s->cap = cfg->max_agents ? cfg->max_agents : cfg->agents;
    if (s->cap < s->n)
        s->cap = s->n;
    s->live = s->n;
    s->free_lo = s->n;
    s->nworkers = cfg->threads;
    s->trace_agent = UINT32_MAX;

    rc = gc_sim_crowd_init(s);
    if (rc == GC_OK)
        rc = gc_sim_build_components(s);
    if (rc != GC_OK) {
        gc_error_set(err, rc, NULL, 0, 0, "navigation data: %s",
                     gc_strerror(rc));
        goto fail;
    }
    size_t cap = s->cap ? s->cap : 1;
    s->agents = calloc(cap, sizeof *s->agents);
    s->flags = calloc(cap, 1);
    s->rng = calloc(cap, sizeof *s->rng);
    s->slot = calloc(cap, sizeof *s->slot);
    s->workers = calloc((size_t)s->nworkers, sizeof *s->workers);
    if (!s->agents || !s->flags || !s->rng || !s->slot || !s->workers ||
        gc_sim_ids_new(s) != GC_OK) {
        rc = gc_error_set(err, GC_ENOMEM, NULL, 0, 0, "out of memory");
        goto fail;
    }
    for (uint32_t i = 0; i < s->cap; i++) {
        s->rng[i] = cfg->seed * 0x100000001B3ull + i;
        gc_sim_splitmix(&s->rng[i]);
        s->slot[i].salt = 1;
        s->slot[i].turn_rate = s->cfg.motion.turn_rate;
        s->slot[i].wander_cells = s->cfg.wander_radius;
        s->slot[i].goal_kind = cfg->goals == GC_GOALS_WANDER
                                   ? GC_SIM_GOAL_WANDER
                                   : GC_SIM_GOAL_POINT;
    }
    rc = gc_sim_place_agents(s, err);
    if (rc != GC_OK)
        goto fail;

    for (int k = 0; k < s->nworkers; k++) {
        gc_sim_worker *w = &s->workers[k];
        w->sim = s;
        w->id = k;
        gc_path_init(&w->path);
        gc_path_init(&w->keep);
        gc_path_init(&w->jpath);
        /* The most agents a worker owns: its share of the blocks. */
        uint32_t blocks = (uint32_t)gc_sim_blocks(s->cap);
        w->qcap = (blocks + (uint32_t)s->nworkers - 1) /
                      (uint32_t)s->nworkers * GC_SIM_CHUNK +
                  1;
        w->queue = malloc((size_t)w->qcap * sizeof *w->queue);
        w->urgent = malloc((size_t)w->qcap * sizeof *w->urgent);
        w->qseq = malloc((size_t)w->qcap * sizeof *w->qseq);
        rc = gc_astar_new(&w->astar, g->width, g->height);
        if (rc == GC_OK &&
            (gc_sim_crowd_scratch_new(&w->crowd, s->cap) != GC_OK ||
             w->queue == NULL || w->urgent == NULL || w->qseq == NULL))
            rc = GC_ENOMEM;
        if (rc != GC_OK) {
            gc_error_set(err, rc, NULL, 0, 0, "worker %d: %s", k,
                         gc_strerror(rc));
            goto fail;
        }
    }
    for (uint32_t i = 0; i < s->n; i++) {
        s->agents[i].radius = s->cfg.radius;
        s->agents[i].speed = s->cfg.motion.speed;
        s->slot[i].goal = s->agents[i].goal;
        s->agents[i].state = GC_AGENT_WAITING;
        gc_sim_enqueue(s, i, false);
    }

    if (pthread_mutex_init(&s->gate_mu, NULL) != 0)
        goto fail_threads;
    if (pthread_cond_init(&s->gate_go, NULL) != 0) {
        pthread_mutex_destroy(&s->gate_mu);
        goto fail_threads;
    }
    if (pthread_cond_init(&s->gate_done, NULL) != 0) {
        pthread_cond_destroy(&s->gate_go);
        pthread_mutex_destroy(&s->gate_mu);
        goto fail_threads;
    }
    s->gate = true;
    for (int k = 1; k < s->nworkers; k++) {
        if (pthread_create(&s->workers[k].thread, NULL, worker_main,
                           &s->workers[k]) != 0)
            goto fail_threads;
        s->workers[k].started = true;
    }
    *out = s;
    return GC_OK;

fail_threads:
    rc = gc_error_set(err, GC_ESYS, NULL, 0, 0,
                      "cannot start %d gc_sim_worker threads", s->nworkers);
fail:
    gc_sim_free(s);
    return rc;
}

void
gc_sim_free(gc_sim *s)
{
    if (s == NULL)
        return;
    if (s->gate) {
        /* Workers are parked on the gate between ticks (or never started):
         * wake them with quit set and join the ones that exist. */
        pthread_mutex_lock(&s->gate_mu);
        s->quit = true;
        atomic_fetch_add(&s->phase, 1); /* ends the spins too */
        pthread_cond_broadcast(&s->gate_go);
        pthread_mutex_unlock(&s->gate_mu);
        for (int k = 0; k < s->nworkers; k++)
            if (s->workers[k].started)
                pthread_join(s->workers[k].thread, NULL);
        pthread_cond_destroy(&s->gate_done);
        pthread_cond_destroy(&s->gate_go);
        pthread_mutex_destroy(&s->gate_mu);
    }
    if (s->workers != NULL)
        for (int k = 0; k < s->nworkers; k++) {
            gc_astar_free(s->workers[k].astar);
            gc_path_free(&s->workers[k].path);
            gc_path_free(&s->workers[k].keep);
            gc_path_free(&s->workers[k].jpath);
            free(s->workers[k].queue);
            free(s->workers[k].urgent);
            free(s->workers[k].qseq);
            gc_sim_crowd_scratch_free(s->workers[k].crowd);
        }
    if (s->agents != NULL)
        for (uint32_t i = 0; i < s->cap; i++)
            gc_agent_release(&s->agents[i]);
    free(s->workers);
    free(s->agents);
    free(s->slot);
    gc_sim_order_free(s);
    free(s->flags);
    free(s->rng);
    free(s->comp_cells);
    free(s->comp_off);
    free(s->changed);
    free(s->stop_ns);
    free(s->stop_tick);
    free(s->trace.events);
    gc_sim_crowd_free(s);
    free(s);
}

int
gc_sim_tick(gc_sim *s)
{
    if (gc_sim_bodies(s))
        gc_sim_reorder_if_due(s);
    if (s->followers > 0)
        gc_sim_follow_update(s);
    gc_sim_plan_quotas(s);
    if (gc_sim_bodies(s)) {
        int rc = gc_sim_jam_update(s);
        if (rc == GC_OK)
            rc = gc_sim_crowd_prepare(s);
        if (rc != GC_OK)
            return rc;
    }
    s->tick_seq = s->plan_seq;
    s->in_tick = true;
    gc_sim_run(s, worker_tick);
    s->in_tick = false;
    s->plan_seq = s->tick_seq + s->cap;
    if (gc_sim_bodies(s))
        gc_sim_jam_start(s);
    if (gc_sim_bodies(s) && s->fused) {
        int rc = atomic_load(&s->fuse_rc);
        if (rc != GC_OK)
            return rc;
    }
    s->ticks++;
    if (gc_sim_bodies(s))
        gc_sim_crowd_after(s);
    /* The first worker's error, every worker's cleared (one left set
     * was the next tick's result). */
    int e = GC_OK;
    for (int k = 0; k < s->nworkers; k++) {
        if (e == GC_OK)
            e = s->workers[k].error;
        s->workers[k].error = 0;
    }
    return e;
}

/* ---- queries ----------------------------------------------------------------
 */

size_t
gc_sim_agent_count(const gc_sim *s)
{
    return s->n;
}

const gc_agent *
gc_sim_agent(const gc_sim *s, size_t i)
{
    if (i >= s->n)
        return NULL;
    uint32_t k = gc_sim_slot_of(s, i);
    return gc_sim_alive(s, k) ? &s->agents[k] : NULL;
}

size_t
gc_sim_live_count(const gc_sim *s)
{
    return s->live;
}

size_t
gc_sim_capacity(const gc_sim *s)
{
    return s->cap;
}

gc_vec2
gc_sim_agent_velocity(const gc_sim *s, size_t i)
{
    if (i >= s->n || s->body == NULL || !gc_sim_alive(s, gc_sim_slot_of(s, i)))
        return (gc_vec2){0.0f, 0.0f};
    uint32_t k = gc_sim_slot_of(s, i);
    return (gc_vec2){s->body[k].vx, s->body[k].vy};
}

float
gc_sim_radius(const gc_sim *s)
{
    return s->cfg.radius;
}

const gc_agent_params *
gc_sim_motion(const gc_sim *s)
{
    return &s->cfg.motion;
}

const gc_grid *
gc_sim_grid(const gc_sim *s)
{
    return s->grid;
}

bool
gc_sim_done(const gc_sim *s)
{
    if (s->cfg.goals == GC_GOALS_WANDER && s->cfg.wander_repeat)
        return false;
    for (uint32_t i = 0; i < s->n; i++) {
        if (!gc_sim_alive(s, i))
            continue;
        uint8_t st = s->agents[i].state;
        if (st == GC_AGENT_MOVING || st == GC_AGENT_WAITING)
            return false;
        /* Agents given a wander or follow goal from outside go on. */
        uint8_t k = s->slot[i].goal_kind;
        if ((k == GC_SIM_GOAL_WANDER && s->cfg.wander_repeat) ||
            k == GC_SIM_GOAL_FOLLOW)
            return false;
    }
    return true;
}
