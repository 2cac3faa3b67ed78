/*
 * sim.c: the simulation tick, worker threads, goals and statistics.
 *
 * Threads.  The caller's thread runs the loop; `threads` workers each own
 * the agents whose index is congruent to their id modulo the worker count,
 * one A* context and one path buffer.  A tick is one phase of a gate (a
 * mutex and two condition variables): the loop bumps the phase and wakes
 * the workers, each plans and moves its own agents and nothing else, and
 * the loop waits until all of them have reported done.  Between ticks the
 * workers are parked on the gate, so the loop may read every agent, read
 * the workers' counters and change the grid; the gate's mutex gives the
 * happens-before edges both ways, so no other field here needs atomics or
 * locks.  (A pthread barrier cannot be released when a thread failed to
 * start; the gate's quit flag can.)
 *
 * Planning.  An agent that needs a path is put on its worker's FIFO queue
 * (at most once: the QUEUED flag); each tick a worker pops at most
 * `plan_budget` of them, and with a time budget (real time) stops when the
 * tick's planning time is spent, so a burst of requests is served fairly
 * over the following ticks and a tick's cost stays bounded.  An agent
 * waiting for a path does not move.
 *
 * Grid changes.  Between ticks the loop tells the sim which cells changed.
 * Every moving agent whose remaining walk touches one (each segment walked
 * cell by cell with gc_supercover, the same walk that prices smoothed
 * segments) stops and goes on an urgent queue, served first in the next
 * tick regardless of the count budget (in real time up to twice the time
 * budget); an agent standing in a new wall is moved to the centre of the
 * nearest passable cell, or marked STUCK when there is none.  Stuck and
 * unreachable agents try again after every change.
 *
 * Goals.  Wander goals are drawn from the cells of the agent's own
 * connected component (optionally within wander_radius of it), so they are
 * always reachable; component cell lists are rebuilt when the grid
 * changes.  Point and scen goals may be
 * unreachable: the agent then gets the partial path to the cell nearest the
 * goal, walks it, and is counted UNREACHABLE; it never spins.
 *
 * Determinism.  Placement uses one generator seeded by `seed`; each agent
 * draws its goals from its own generator seeded from (seed, index), so the
 * run does not depend on which thread served whom.
 */
#include "config.h"

#include <gridcrowd/sim.h>

#include "grid_int.h"

#include <math.h>
#include <pthread.h>
#include <time.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Per-agent flags beside gc_agent. */
enum {
    F_QUEUED = 1u << 0,  /* on its worker's plan queue */
    F_PARTIAL = 1u << 1, /* walking a partial path: unreachable on arrival */
    F_REPLAN = 1u << 2   /* queued because the grid changed */
};

/*
 * Search-time histogram in microseconds: exact 1 us buckets below 1024 us,
 * then 64 buckets per octave (1.1% wide) up to 2^20 us; the last bucket
 * holds everything slower.  Percentiles are bucket upper bounds.
 */
#define H_LINEAR 1024
#define H_SUB 64
#define H_OCTAVES 10
#define H_BUCKETS (H_LINEAR + H_SUB * H_OCTAVES + 1)

typedef struct hist {
    uint32_t b[H_BUCKETS];
    uint64_t n;
    double sum_us;
} hist;

static unsigned
hist_bucket(double us)
{
    if (us < H_LINEAR)
        return us < 0 ? 0 : (unsigned)us;
    int e;
    double m = frexp(us / H_LINEAR, &e); /* us / 1024 = m * 2^e, m in [.5,1) */
    if (e > H_OCTAVES)
        return H_BUCKETS - 1;
    unsigned sub = (unsigned)((m - 0.5) * 2.0 * H_SUB);
    return H_LINEAR + (unsigned)(e - 1) * H_SUB +
           (sub < H_SUB ? sub : H_SUB - 1);
}

static double
hist_upper(unsigned i)
{
    if (i < H_LINEAR)
        return i + 1;
    if (i >= H_BUCKETS - 1)
        return ldexp(H_LINEAR, H_OCTAVES);
    unsigned o = (i - H_LINEAR) / H_SUB, sub = (i - H_LINEAR) % H_SUB;
    return ldexp(H_LINEAR, (int)o) * (1.0 + (sub + 1.0) / H_SUB);
}

static void
hist_add(hist *h, double us)
{
    h->b[hist_bucket(us)]++;
    h->n++;
    h->sum_us += us;
}

static void
hist_merge(hist *into, const hist *from)
{
    for (unsigned i = 0; i < H_BUCKETS; i++)
        into->b[i] += from->b[i];
    into->n += from->n;
    into->sum_us += from->sum_us;
}

static double
hist_quantile(const hist *h, double q)
{
    if (h->n == 0)
        return 0.0;
    uint64_t rank = (uint64_t)ceil(q * (double)h->n), seen = 0;
    for (unsigned i = 0; i < H_BUCKETS; i++) {
        seen += h->b[i];
        if (seen >= rank)
            return hist_upper(i);
    }
    return hist_upper(H_BUCKETS - 1);
}

typedef struct counters {
    uint64_t searches, expanded, arrivals, replans;
    /* Time of the searches and of smoothing their paths, apart: smoothing
     * can cost several times the search it follows. */
    uint64_t search_ns_sum, smooth_ns_sum;
    /* From a grid change stopping an agent to its new plan. */
    uint64_t replan_ticks_max, replan_ns_sum, replan_ns_max;
} counters;

typedef struct worker {
    gc_sim *sim;
    int id;
    pthread_t thread;
    bool started;
    gc_astar *astar;
    gc_path path;
    /* Plan queues: agent indices, FIFO rings of capacity = own agent count.
     * `urgent` holds agents stopped by a grid change: all of them are
     * served on the next tick, ahead of the budgeted `queue`. */
    uint32_t *queue, *urgent;
    uint32_t qcap, qhead, qlen, uhead, ulen;
    counters win, total;
    hist hwin, htotal;
    int error; /* first gc_err a worker could not handle (ENOMEM) */
} worker;

struct gc_sim {
    gc_grid *grid;
    gc_nav *nav;
    gc_sim_config cfg;
    float dt;
    uint32_t n;
    gc_agent *agents;
    uint8_t *flags;
    uint64_t *rng;
    /* Passable cells grouped by component (nav labels, cfg.diag rule):
     * cells of label L are comp_cells[comp_off[L] .. comp_off[L + 1]). */
    uint32_t *comp_cells;
    uint32_t *comp_off;
    uint32_t comp_labels;
    uint8_t *changed; /* 1 for cells changed by the current edit batch */
    /* When each agent was stopped for a replan (set by the loop between
     * ticks, read by the owning worker). */
    uint64_t *stop_ns, *stop_tick;
    /* Trace of the requested agent's next search.  Set between ticks by
     * the loop; during a tick only the worker owning trace_agent writes
     * trace and trace_fresh. */
    uint32_t trace_agent;
    gc_trace trace;
    bool trace_fresh;
    int nworkers;
    worker *workers;
    /* The gate: phase, done and quit are protected by gate_mu. */
    pthread_mutex_t gate_mu;
    pthread_cond_t gate_go, gate_done;
    bool gate;
    uint64_t phase;
    int done;
    bool quit;
    uint64_t ticks;
};

/* ---- random numbers: splitmix64, one stream per agent ---------------------
 */

static uint64_t
splitmix(uint64_t *s)
{
    uint64_t z = (*s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

static uint32_t
rand_below(uint64_t *s, uint32_t n)
{
    return (uint32_t)(((splitmix(s) >> 32) * (uint64_t)n) >> 32);
}

static uint64_t
mono_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

void
gc_sim_config_init(gc_sim_config *c)
{
    memset(c, 0, sizeof *c);
    c->agents = 300;
    c->threads = 1;
    c->hz = 60.0;
    c->motion.speed = 4.0f;
    c->motion.arrive_radius = 0.1f;
    c->motion.turn_rate = 0.0f;
    c->goals = GC_GOALS_WANDER;
    c->seed = 1;
    c->plan_budget = 64;
    c->smooth = true;
    c->diag = GC_DIAG_NO_CORNER_CUT;
    c->wander_repeat = true;
}

/* ---- components ------------------------------------------------------------
 */

static int
build_components(gc_sim *s)
{
    const gc_grid *g = s->grid;
    size_t cells = (size_t)g->width * (size_t)g->height;
    uint32_t max = 0;
    for (int32_t y = 0; y < g->height; y++)
        for (int32_t x = 0; x < g->width; x++) {
            uint32_t l = gc_nav_component(s->nav, s->cfg.diag, (gc_cell){x, y});
            if (l > max)
                max = l;
        }
    uint32_t *off = calloc((size_t)max + 2, sizeof *off);
    uint32_t *list = malloc(cells * sizeof *list);
    if (off == NULL || list == NULL) {
        free(off);
        free(list);
        return GC_ENOMEM;
    }
    for (int32_t y = 0; y < g->height; y++)
        for (int32_t x = 0; x < g->width; x++) {
            uint32_t l = gc_nav_component(s->nav, s->cfg.diag, (gc_cell){x, y});
            if (l != 0)
                off[l + 1]++;
        }
    for (uint32_t l = 1; l <= max + 1; l++)
        off[l] += off[l - 1];
    /* Fill using a running cursor per label (off[l] advances, then shift). */
    for (int32_t y = 0; y < g->height; y++)
        for (int32_t x = 0; x < g->width; x++) {
            uint32_t l = gc_nav_component(s->nav, s->cfg.diag, (gc_cell){x, y});
            if (l != 0)
                list[off[l]++] = (uint32_t)gc_grid_index(g, x, y);
        }
    for (uint32_t l = max + 1; l > 0; l--)
        off[l] = off[l - 1];
    off[0] = 0;
    free(s->comp_cells);
    free(s->comp_off);
    s->comp_cells = list;
    s->comp_off = off;
    s->comp_labels = max + 1;
    return GC_OK;
}

static uint32_t
passable_count(const gc_sim *s)
{
    return s->comp_off[s->comp_labels];
}

static gc_cell
cell_of_index(const gc_grid *g, uint32_t i)
{
    return (gc_cell){(int32_t)(i % (uint32_t)g->width),
                     (int32_t)(i / (uint32_t)g->width)};
}

/*
 * A random cell of c's component, or c itself when it has none.  With a
 * wander radius, a cell of the component within that many cells of c in
 * both axes, drawn by rejection (a few tries; then anywhere in the
 * component, so a small pocket never loops).
 */
static gc_cell
random_goal(gc_sim *s, uint32_t agent, gc_cell c)
{
    uint32_t l = gc_nav_component(s->nav, s->cfg.diag, c);
    if (l == 0 || l >= s->comp_labels)
        return c;
    uint32_t lo = s->comp_off[l], hi = s->comp_off[l + 1];
    if (hi <= lo)
        return c;
    uint32_t r = s->cfg.wander_radius;
    for (int tries = 0; r > 0 && tries < 32; tries++) {
        gc_cell g = {
            c.x - (int32_t)r + (int32_t)rand_below(&s->rng[agent], 2 * r + 1),
            c.y - (int32_t)r + (int32_t)rand_below(&s->rng[agent], 2 * r + 1)};
        if (gc_grid_in_bounds(s->grid, g.x, g.y) &&
            gc_nav_component(s->nav, s->cfg.diag, g) == l)
            return g;
    }
    return cell_of_index(
        s->grid, s->comp_cells[lo + rand_below(&s->rng[agent], hi - lo)]);
}

/* ---- planning -------------------------------------------------------------
 */

static void
enqueue_on(gc_sim *s, uint32_t i, bool urgent)
{
    if (s->flags[i] & F_QUEUED)
        return;
    worker *w = &s->workers[i % (uint32_t)s->nworkers];
    /* Capacity is the worker's agent count and an agent is queued at most
     * once (in one of the two rings), so neither ring can overflow. */
    if (urgent) {
        w->urgent[(w->uhead + w->ulen) % w->qcap] = i;
        w->ulen++;
    } else {
        w->queue[(w->qhead + w->qlen) % w->qcap] = i;
        w->qlen++;
    }
    s->flags[i] |= F_QUEUED;
}

static void
enqueue(gc_sim *s, uint32_t i)
{
    enqueue_on(s, i, false);
}

static uint32_t
ring_pop(uint32_t *ring, uint32_t cap, uint32_t *head, uint32_t *len)
{
    uint32_t i = ring[*head];
    *head = (*head + 1) % cap;
    (*len)--;
    return i;
}

/*
 * The passable cell the agent stands in.  An agent walks segments between
 * cell centres, so it may stand exactly on a cell border or corner beside a
 * wall; then it is in every cell whose closed square contains it, and any
 * passable one of those will do (the walk from there to that cell's centre
 * stays inside the cell).  False when all of them are impassable.
 */
static bool
own_cell(const gc_grid *g, gc_vec2 p, gc_cell *out)
{
    gc_cell c = gc_grid_world_to_cell(g, p);
    *out = c;
    if (gc_grid_passable(g, c.x, c.y))
        return true;
    float fx = p.x / g->cell_size, fy = p.y / g->cell_size;
    bool bx = fx == floorf(fx), by = fy == floorf(fy);
    for (int dy = by ? -1 : 0; dy <= 0; dy++)
        for (int dx = bx ? -1 : 0; dx <= 0; dx++) {
            gc_cell n = {c.x + dx, c.y + dy};
            if (gc_grid_passable(g, n.x, n.y)) {
                *out = n;
                return true;
            }
        }
    return false;
}

static void
plan(gc_sim *s, worker *w, uint32_t i)
{
    gc_agent *a = &s->agents[i];
    gc_cell start;
    own_cell(s->grid, a->pos, &start);
    gc_astar_opts o;
    gc_astar_opts_init(&o);
    o.diag = s->cfg.diag;
    o.smooth = false; /* done below, so that it is timed apart */
    o.nav = s->nav;
    /* Wander goals come from the agent's own component: no partial path is
     * ever needed, and without one the search takes its fastest form (jump
     * point search on a uniform-cost map).  Other goals need one only when
     * they lie in another component; in the agent's own the path is found
     * (there is no expansion cap), so ask for none there either. */
    o.partial = s->cfg.goals != GC_GOALS_WANDER &&
                gc_nav_component(s->nav, o.diag, start) !=
                    gc_nav_component(s->nav, o.diag, a->goal);
    bool traced = i == s->trace_agent && s->trace.events != NULL;
    if (traced)
        o.trace = &s->trace;
    gc_astar_stats st;
    int rc =
        gc_astar_find(w->astar, s->grid, start, a->goal, &o, &w->path, &st);
    /* What gc_astar_find does with o.smooth set, on the path it returns. */
    uint64_t smooth_ns = 0;
    if (s->cfg.smooth && w->path.len > 0) {
        uint64_t t0 = mono_ns();
        gc_path_smooth(s->grid, s->nav, 0.0f, o.diag, &w->path);
        smooth_ns = mono_ns() - t0;
    }
    if (traced) {
        /* The path found, after the search's own events. */
        for (size_t k = 0; k < w->path.len; k++) {
            if (s->trace.len == s->trace.cap) {
                s->trace.truncated = true;
                break;
            }
            gc_cell c = w->path.cells[k];
            s->trace.events[s->trace.len++] = (gc_trace_event){
                (uint32_t)gc_grid_index(s->grid, c.x, c.y), GC_TRACE_PATH};
        }
        s->trace_fresh = true;
    }

    w->win.searches++;
    w->win.expanded += st.expanded;
    w->win.search_ns_sum += st.ns;
    w->win.smooth_ns_sum += smooth_ns;
    if (s->flags[i] & F_REPLAN) {
        /* s->ticks counts finished ticks: this is tick s->ticks + 1. */
        uint64_t dt = s->ticks + 1 - s->stop_tick[i];
        uint64_t dns = mono_ns() - s->stop_ns[i];
        w->win.replans++;
        w->win.replan_ns_sum += dns;
        if (dns > w->win.replan_ns_max)
            w->win.replan_ns_max = dns;
        if (dt > w->win.replan_ticks_max)
            w->win.replan_ticks_max = dt;
    }
    hist_add(&w->hwin, (double)(st.ns + smooth_ns) / 1000.0);
    s->flags[i] &= (uint8_t) ~(F_REPLAN | F_PARTIAL);

    if (rc == GC_OK || ((rc == GC_EUNREACHABLE || rc == GC_ELIMIT) &&
                        st.partial && w->path.len > 0)) {
        int e = gc_agent_set_path(a, s->grid, &w->path);
        if (e != GC_OK) {
            if (w->error == 0)
                w->error = e;
            enqueue(s, i); /* try again next tick */
            return;
        }
        if (rc != GC_OK)
            s->flags[i] |= F_PARTIAL;
        return;
    }
    gc_agent_clear_path(a);
    if (rc == GC_EBLOCKED && !gc_grid_passable(s->grid, start.x, start.y))
        a->state = GC_AGENT_STUCK;
    else
        a->state = GC_AGENT_UNREACHABLE;
}

static void
on_arrival(gc_sim *s, worker *w, uint32_t i)
{
    gc_agent *a = &s->agents[i];
    if (s->flags[i] & F_PARTIAL) {
        a->state = GC_AGENT_UNREACHABLE;
        s->flags[i] &= (uint8_t)~F_PARTIAL;
        return;
    }
    w->win.arrivals++;
    if (s->cfg.goals == GC_GOALS_WANDER && s->cfg.wander_repeat) {
        gc_cell here;
        own_cell(s->grid, a->pos, &here);
        a->goal = random_goal(s, i, here);
        a->state = GC_AGENT_WAITING;
        enqueue(s, i);
    }
}

static void
worker_tick(worker *w)
{
    gc_sim *s = w->sim;
    uint64_t t0 = s->cfg.plan_time_ns ? mono_ns() : 0;
    /* Agents stopped by a grid change go first and ignore the count
     * budget; in real time they too stop at twice the planning time (about
     * a tick), so an edit flood cannot stall the loop: the rest stay
     * stopped and go first next tick. */
    while (w->ulen > 0) {
        if (s->cfg.plan_time_ns && mono_ns() - t0 >= 2 * s->cfg.plan_time_ns)
            break;
        uint32_t i = ring_pop(w->urgent, w->qcap, &w->uhead, &w->ulen);
        s->flags[i] &= (uint8_t)~F_QUEUED;
        plan(s, w, i);
    }
    for (uint32_t k = 0; k < s->cfg.plan_budget && w->qlen > 0; k++) {
        if (s->cfg.plan_time_ns && mono_ns() - t0 >= s->cfg.plan_time_ns)
            break;
        uint32_t i = ring_pop(w->queue, w->qcap, &w->qhead, &w->qlen);
        s->flags[i] &= (uint8_t)~F_QUEUED;
        plan(s, w, i);
    }
    for (uint32_t i = (uint32_t)w->id; i < s->n; i += (uint32_t)s->nworkers) {
        gc_agent *a = &s->agents[i];
        if (a->state == GC_AGENT_MOVING &&
            gc_agent_step(a, s->dt, &s->cfg.motion))
            on_arrival(s, w, i);
    }
}

static void *
worker_main(void *arg)
{
    worker *w = arg;
    gc_sim *s = w->sim;
    uint64_t seen = 0;
    for (;;) {
        pthread_mutex_lock(&s->gate_mu);
        while (s->phase == seen && !s->quit)
            pthread_cond_wait(&s->gate_go, &s->gate_mu);
        bool quit = s->quit;
        seen = s->phase;
        pthread_mutex_unlock(&s->gate_mu);
        if (quit)
            return NULL;
        worker_tick(w);
        pthread_mutex_lock(&s->gate_mu);
        if (++s->done == s->nworkers)
            pthread_cond_signal(&s->gate_done);
        pthread_mutex_unlock(&s->gate_mu);
    }
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
    if (!(c->motion.speed > 0.0f) || !isfinite(c->motion.speed))
        return gc_error_set(err, GC_ERANGE, NULL, 0, 0,
                            "speed must be a positive number");
    if (!(c->motion.arrive_radius >= 0.0f) ||
        !isfinite(c->motion.arrive_radius))
        return gc_error_set(err, GC_ERANGE, NULL, 0, 0,
                            "arrival radius must be >= 0");
    if (!(c->motion.turn_rate >= 0.0f) || !isfinite(c->motion.turn_rate))
        return gc_error_set(err, GC_ERANGE, NULL, 0, 0,
                            "turn rate must be >= 0");
    if (c->plan_budget < 1)
        return gc_error_set(err, GC_ERANGE, NULL, 0, 0,
                            "plan budget must be at least 1");
    if (c->goals == GC_GOALS_SCEN && c->scen == NULL)
        return gc_error_set(err, GC_EINVAL, NULL, 0, 0,
                            "scen goals need a scenario");
    return GC_OK;
}

static int
place_agents(gc_sim *s, gc_error *err)
{
    const gc_grid *g = s->grid;
    if (s->cfg.goals == GC_GOALS_SCEN) {
        for (uint32_t i = 0; i < s->n; i++) {
            const gc_scen_entry *e = &s->cfg.scen->entries[i];
            if (!gc_grid_passable(g, e->start.x, e->start.y))
                return gc_error_set(err, GC_EBLOCKED,
                                    s->cfg.scen_name ? s->cfg.scen_name
                                                     : "scenario",
                                    e->line, 0,
                                    "start (%d, %d) is not a passable "
                                    "cell of the map",
                                    e->start.x, e->start.y);
            gc_agent_init(&s->agents[i], gc_grid_cell_center(g, e->start), 0);
            s->agents[i].goal = e->goal;
        }
        return GC_OK;
    }
    uint32_t np = passable_count(s);
    if (s->n > np)
        return gc_error_set(err, GC_ERANGE, NULL, 0, 0,
                            "%u agents do not fit on %u passable cells", s->n,
                            np);
    if (s->cfg.goals == GC_GOALS_POINT &&
        !gc_grid_in_bounds(g, s->cfg.point.x, s->cfg.point.y))
        return gc_error_set(err, GC_EOUTSIDE, NULL, 0, 0,
                            "goal point (%d, %d) is outside the %dx%d map",
                            s->cfg.point.x, s->cfg.point.y, g->width,
                            g->height);
    /* Distinct cells: a partial Fisher-Yates shuffle of the passable list. */
    uint32_t *pick = malloc((size_t)np * sizeof *pick);
    if (pick == NULL)
        return gc_error_set(err, GC_ENOMEM, NULL, 0, 0, "out of memory");
    memcpy(pick, s->comp_cells, (size_t)np * sizeof *pick);
    uint64_t rng = s->cfg.seed ^ 0x5EEDull;
    for (uint32_t i = 0; i < s->n; i++) {
        uint32_t j = i + rand_below(&rng, np - i);
        uint32_t t = pick[i];
        pick[i] = pick[j];
        pick[j] = t;
        gc_cell c = cell_of_index(g, pick[i]);
        float heading = (float)(rand_below(&rng, 3600) / 3600.0 * 6.283185307 -
                                3.141592653);
        gc_agent_init(&s->agents[i], gc_grid_cell_center(g, c), heading);
        s->agents[i].goal = s->cfg.goals == GC_GOALS_POINT
                                ? s->cfg.point
                                : random_goal(s, i, c);
    }
    free(pick);
    return GC_OK;
}

int
gc_sim_new(gc_sim **out, gc_grid *g, const gc_sim_config *cfg, gc_error *err)
{
    *out = NULL;
    int rc = check_config(cfg, err);
    if (rc != GC_OK)
        return rc;
    gc_sim *s = calloc(1, sizeof *s);
    if (s == NULL)
        return gc_error_set(err, GC_ENOMEM, NULL, 0, 0, "out of memory");
    s->grid = g;
    s->cfg = *cfg;
    s->dt = (float)(1.0 / cfg->hz);
    s->n = cfg->agents;
    if (cfg->goals == GC_GOALS_SCEN && cfg->scen->len < s->n)
        s->n = (uint32_t)cfg->scen->len;
    s->nworkers = cfg->threads;
    s->trace_agent = UINT32_MAX;

    rc = gc_nav_new(&s->nav, g);
    if (rc == GC_OK)
        rc = build_components(s);
    if (rc != GC_OK) {
        gc_error_set(err, rc, NULL, 0, 0, "navigation data: %s",
                     gc_strerror(rc));
        goto fail;
    }
    s->agents = calloc(s->n ? s->n : 1, sizeof *s->agents);
    s->flags = calloc(s->n ? s->n : 1, 1);
    s->rng = calloc(s->n ? s->n : 1, sizeof *s->rng);
    s->workers = calloc((size_t)s->nworkers, sizeof *s->workers);
    if (!s->agents || !s->flags || !s->rng || !s->workers) {
        rc = gc_error_set(err, GC_ENOMEM, NULL, 0, 0, "out of memory");
        goto fail;
    }
    for (uint32_t i = 0; i < s->n; i++) {
        s->rng[i] = cfg->seed * 0x100000001B3ull + i;
        splitmix(&s->rng[i]);
    }
    rc = place_agents(s, err);
    if (rc != GC_OK)
        goto fail;

    for (int k = 0; k < s->nworkers; k++) {
        worker *w = &s->workers[k];
        w->sim = s;
        w->id = k;
        gc_path_init(&w->path);
        w->qcap = s->n / (uint32_t)s->nworkers + 1;
        w->queue = malloc((size_t)w->qcap * sizeof *w->queue);
        w->urgent = malloc((size_t)w->qcap * sizeof *w->urgent);
        rc = gc_astar_new(&w->astar, g->width, g->height);
        if (rc == GC_OK && (w->queue == NULL || w->urgent == NULL))
            rc = GC_ENOMEM;
        if (rc != GC_OK) {
            gc_error_set(err, rc, NULL, 0, 0, "A* context: %s",
                         gc_strerror(rc));
            goto fail;
        }
    }
    for (uint32_t i = 0; i < s->n; i++) {
        s->agents[i].state = GC_AGENT_WAITING;
        enqueue(s, i);
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
    for (int k = 0; k < s->nworkers; k++) {
        if (pthread_create(&s->workers[k].thread, NULL, worker_main,
                           &s->workers[k]) != 0)
            goto fail_threads;
        s->workers[k].started = true;
    }
    *out = s;
    return GC_OK;

fail_threads:
    rc = gc_error_set(err, GC_ESYS, NULL, 0, 0,
                      "cannot start %d worker threads", s->nworkers);
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
            free(s->workers[k].queue);
            free(s->workers[k].urgent);
        }
    if (s->agents != NULL)
        for (uint32_t i = 0; i < s->n; i++)
            gc_agent_release(&s->agents[i]);
    free(s->workers);
    free(s->agents);
    free(s->flags);
    free(s->rng);
    free(s->comp_cells);
    free(s->comp_off);
    free(s->changed);
    free(s->stop_ns);
    free(s->stop_tick);
    free(s->trace.events);
    gc_nav_free(s->nav);
    free(s);
}

int
gc_sim_tick(gc_sim *s)
{
    pthread_mutex_lock(&s->gate_mu);
    s->phase++;
    s->done = 0;
    pthread_cond_broadcast(&s->gate_go);
    while (s->done < s->nworkers)
        pthread_cond_wait(&s->gate_done, &s->gate_mu);
    pthread_mutex_unlock(&s->gate_mu);
    s->ticks++;
    for (int k = 0; k < s->nworkers; k++)
        if (s->workers[k].error != 0) {
            int e = s->workers[k].error;
            s->workers[k].error = 0;
            return e;
        }
    return GC_OK;
}

/* ---- grid changes ----------------------------------------------------------
 */

static bool
changed_at(const gc_sim *s, gc_cell c)
{
    return gc_grid_in_bounds(s->grid, c.x, c.y) &&
           s->changed[gc_grid_index(s->grid, c.x, c.y)];
}

/*
 * Does the rest of the agent's walk touch a changed cell?  It walks from
 * where it stands (on the segment ending at wp[wp_next], or inside its own
 * cell before the first waypoint) through every remaining waypoint; each
 * segment between cell centres is checked cell by cell along its
 * supercover, so an edit beside a long smoothed segment replans nobody.
 */
static bool
path_touched(const gc_sim *s, const gc_agent *a)
{
    const gc_grid *g = s->grid;
    gc_cell prev;
    if (!own_cell(g, a->pos, &prev) || changed_at(s, prev))
        return true;
    if (a->wp_next > 0)
        prev = gc_grid_world_to_cell(g, a->wp[a->wp_next - 1]);
    for (uint32_t k = a->wp_next; k < a->wp_len; k++) {
        gc_cell c = gc_grid_world_to_cell(g, a->wp[k]);
        gc_supercover it;
        gc_supercover_init(&it, prev, c);
        gc_cell t;
        bool entered;
        while (gc_supercover_next(&it, &t, &entered))
            if (changed_at(s, t))
                return true;
        prev = c;
    }
    return false;
}

/*
 * Move an agent whose cell became impassable to the centre of the nearest
 * passable cell (straight-line distance from where it stands), searching
 * rings of growing radius.  False when none lies within `max_r` cells.
 */
static bool
eject(gc_sim *s, gc_agent *a, int32_t max_r)
{
    const gc_grid *g = s->grid;
    gc_cell c = gc_grid_world_to_cell(g, a->pos);
    double best = INFINITY;
    gc_cell to = c;
    for (int32_t r = 1; r <= max_r && r - 1 <= best / g->cell_size; r++) {
        for (int32_t dy = -r; dy <= r; dy++)
            for (int32_t dx = -r; dx <= r; dx++) {
                if (abs(dx) != r && abs(dy) != r)
                    continue; /* ring only */
                gc_cell n = {c.x + dx, c.y + dy};
                if (!gc_grid_passable(g, n.x, n.y))
                    continue;
                gc_vec2 p = gc_grid_cell_center(g, n);
                double d = hypot(p.x - a->pos.x, p.y - a->pos.y);
                if (d < best) {
                    best = d;
                    to = n;
                }
            }
    }
    if (!isfinite(best))
        return false;
    a->pos = gc_grid_cell_center(g, to);
    a->travelled += best;
    return true;
}

static bool
standing_in_wall(const gc_sim *s, const gc_agent *a)
{
    gc_cell c;
    return !own_cell(s->grid, a->pos, &c);
}

int
gc_sim_grid_changed(gc_sim *s, const gc_cell *cells, size_t n)
{
    int rc = gc_nav_update(s->nav, s->grid);
    if (rc == GC_OK)
        rc = build_components(s);
    if (rc == GC_OK && s->stop_ns == NULL) {
        s->stop_ns = calloc(s->n ? s->n : 1, sizeof *s->stop_ns);
        s->stop_tick = calloc(s->n ? s->n : 1, sizeof *s->stop_tick);
        if (s->stop_ns == NULL || s->stop_tick == NULL)
            rc = GC_ENOMEM;
    }
    uint64_t now = mono_ns();
    if (rc == GC_OK && cells != NULL && s->changed == NULL) {
        s->changed =
            calloc((size_t)s->grid->width * (size_t)s->grid->height, 1);
        if (s->changed == NULL)
            rc = GC_ENOMEM;
    }
    if (rc != GC_OK)
        return rc;
    for (size_t k = 0; cells != NULL && k < n; k++)
        if (gc_grid_in_bounds(s->grid, cells[k].x, cells[k].y))
            s->changed[gc_grid_index(s->grid, cells[k].x, cells[k].y)] = 1;
    int32_t max_r =
        s->grid->width > s->grid->height ? s->grid->width : s->grid->height;
    for (uint32_t i = 0; i < s->n; i++) {
        gc_agent *a = &s->agents[i];
        bool replan = false;
        if (standing_in_wall(s, a)) {
            gc_agent_clear_path(a);
            if (!eject(s, a, max_r)) {
                a->state = GC_AGENT_STUCK;
                continue;
            }
            replan = a->state != GC_AGENT_IDLE;
        } else if (a->state == GC_AGENT_MOVING) {
            replan = cells == NULL || path_touched(s, a);
        } else if (a->state == GC_AGENT_STUCK ||
                   a->state == GC_AGENT_UNREACHABLE) {
            /* The change may have opened a way: try again. */
            replan = true;
        }
        if (!replan)
            continue;
        gc_agent_clear_path(a);
        a->state = GC_AGENT_WAITING;
        if (!(s->flags[i] & F_REPLAN)) {
            s->stop_ns[i] = now;
            s->stop_tick[i] = s->ticks;
        }
        s->flags[i] |= F_REPLAN;
        s->flags[i] &= (uint8_t)~F_PARTIAL;
        enqueue_on(s, i, true);
    }
    for (size_t k = 0; cells != NULL && k < n; k++)
        if (gc_grid_in_bounds(s->grid, cells[k].x, cells[k].y))
            s->changed[gc_grid_index(s->grid, cells[k].x, cells[k].y)] = 0;
    return GC_OK;
}

/* ---- tracing ------------------------------------------------------------ */

int
gc_sim_trace_agent(gc_sim *s, uint32_t agent, size_t cap)
{
    if (agent >= s->n) {
        s->trace_agent = UINT32_MAX;
        return agent == UINT32_MAX ? GC_OK : GC_ERANGE;
    }
    if (s->trace.events == NULL || s->trace.cap < cap) {
        gc_trace_event *ev = realloc(s->trace.events, cap * sizeof *ev);
        if (ev == NULL)
            return GC_ENOMEM;
        s->trace.events = ev;
        s->trace.cap = cap;
    }
    s->trace_agent = agent;
    s->trace_fresh = false;
    /* Plan it again now, so the viewer sees a search without waiting for
     * the agent's next arrival. */
    gc_agent *a = &s->agents[agent];
    if (a->state == GC_AGENT_MOVING) {
        gc_agent_clear_path(a);
        a->state = GC_AGENT_WAITING;
        enqueue_on(s, agent, true);
    }
    return GC_OK;
}

const gc_trace *
gc_sim_take_trace(gc_sim *s, uint32_t *agent)
{
    if (!s->trace_fresh)
        return NULL;
    s->trace_fresh = false;
    *agent = s->trace_agent;
    return &s->trace;
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
    return i < s->n ? &s->agents[i] : NULL;
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
        uint8_t st = s->agents[i].state;
        if (st == GC_AGENT_MOVING || st == GC_AGENT_WAITING)
            return false;
    }
    return true;
}

static void
fill_states(const gc_sim *s, gc_sim_stats *out)
{
    memset(out->by_state, 0, sizeof out->by_state);
    for (uint32_t i = 0; i < s->n; i++)
        out->by_state[s->agents[i].state < GC_AGENT_NSTATES ? s->agents[i].state
                                                            : GC_AGENT_IDLE]++;
    out->ticks = s->ticks;
}

static void
fill_counts(gc_sim_stats *out, const counters *c, const hist *h)
{
    out->searches = c->searches;
    out->expanded = c->expanded;
    out->arrivals = c->arrivals;
    out->replans = c->replans;
    out->replan_delay_ticks_max = c->replan_ticks_max;
    out->replan_delay_ms_mean =
        c->replans ? (double)c->replan_ns_sum / (double)c->replans / 1e6 : 0.0;
    out->replan_delay_ms_max = (double)c->replan_ns_max / 1e6;
    out->search_us_mean = h->n ? h->sum_us / (double)h->n : 0.0;
    out->search_us_p99 = hist_quantile(h, 0.99);
    out->search_only_us_mean =
        c->searches ? (double)c->search_ns_sum / (double)c->searches / 1e3
                    : 0.0;
    out->smooth_us_mean =
        c->searches ? (double)c->smooth_ns_sum / (double)c->searches / 1e3
                    : 0.0;
}

static void
add_counters(counters *into, const counters *c)
{
    into->searches += c->searches;
    into->expanded += c->expanded;
    into->arrivals += c->arrivals;
    into->replans += c->replans;
    into->search_ns_sum += c->search_ns_sum;
    into->smooth_ns_sum += c->smooth_ns_sum;
    into->replan_ns_sum += c->replan_ns_sum;
    if (c->replan_ns_max > into->replan_ns_max)
        into->replan_ns_max = c->replan_ns_max;
    if (c->replan_ticks_max > into->replan_ticks_max)
        into->replan_ticks_max = c->replan_ticks_max;
}

void
gc_sim_stats_window(gc_sim *s, gc_sim_stats *out)
{
    counters c = {0};
    hist *h = calloc(1, sizeof *h);
    for (int k = 0; k < s->nworkers; k++) {
        worker *w = &s->workers[k];
        add_counters(&c, &w->win);
        add_counters(&w->total, &w->win);
        memset(&w->win, 0, sizeof w->win);
        if (h != NULL)
            hist_merge(h, &w->hwin);
        hist_merge(&w->htotal, &w->hwin);
        memset(&w->hwin, 0, sizeof w->hwin);
    }
    fill_states(s, out);
    static const hist empty;
    fill_counts(out, &c, h != NULL ? h : &empty);
    free(h);
}

void
gc_sim_stats_total(const gc_sim *s, gc_sim_stats *out)
{
    counters c = {0};
    hist *h = calloc(1, sizeof *h);
    for (int k = 0; k < s->nworkers; k++) {
        const worker *w = &s->workers[k];
        add_counters(&c, &w->total);
        add_counters(&c, &w->win);
        if (h != NULL) {
            hist_merge(h, &w->htotal);
            hist_merge(h, &w->hwin);
        }
    }
    fill_states(s, out);
    static const hist empty;
    fill_counts(out, &c, h != NULL ? h : &empty);
    free(h);
}
