/*
 * host.c: a simulation in a shared-memory world (see gridcrowd/host.h).
 *
 * This is the loop body that gridcrowdd and the test stand-in each wrote
 * for themselves before: the order (drain, grid changed, trace, tick,
 * publish), the snapshot records, the statistics words, and what to do
 * when the edit queue was damaged by someone allowed to edit.
 *
 * Rules kept here:
 * - Everything runs on the program's simulation loop, between ticks,
 *   while the sim's workers are parked; the host has no thread and no
 *   lock of its own.
 * - A damaged queue (resized, header overwritten, or a fault the
 *   program's SIGBUS guard caught) is made again before the drain; the
 *   messages about it are limited to five a second, because an attack
 *   that repeats would otherwise flood the log.  When the queue cannot be
 *   made again, edits stop and the simulation goes on.
 * - The snapshot carries at most GC_WORLD_PATH_POINTS waypoints of each
 *   agent's path (path_len says how many remain in all).  The whole path
 *   goes to the world's path section for one agent: the one the trace
 *   request names (the viewer's selection), republished with every
 *   snapshot while the request stands, since the path shrinks as the agent
 *   walks; one "nobody" is published when the request is withdrawn.
 */
#include "config.h"

#include <gridcrowd/host.h>
#include <gridcrowd/queue.h>

#include "sim_int.h" /* gc_sim_parallel */

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct gc_host {
    gc_world *world;
    gc_grid *grid;
    gc_sim *sim;
    gc_host_report_fn *report;
    void *report_arg;
    gc_edit_applier *edits;
    gc_host_counts counts;
    /* The queue check: faults seen, and the message limiter. */
    unsigned long faults_seen;
    uint64_t said_window;
    unsigned said, quiet;
    /* The trace: the agent requested now (GC_WORLD_NO_AGENT: none). */
    uint32_t trace_agent;
    gc_world_trace_event *trace_buf;
    size_t trace_cap;
    /* The agent whose whole path was published last (GC_WORLD_NO_AGENT:
     * nobody's, or nothing yet). */
    uint32_t path_agent;
    /* Agents by state in the last records published without a sim. */
    uint64_t by_state[8];
    /* Whether edits were applied since the agents were last published
     * (gc_host_publish_due). */
    bool edited;
};

static void report(gc_host *h, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

static void
report(gc_host *h, const char *fmt, ...)
{
    if (h->report == NULL)
        return;
    char line[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    h->report(h->report_arg, line);
}

int
gc_host_grid(gc_world *w, const gc_grid *map, gc_grid **out)
{
    *out = NULL;
    if (map != NULL &&
        (map->width != gc_world_width(w) || map->height != gc_world_height(w)))
        return GC_EINVAL;
    gc_grid *g;
    int rc = gc_world_grid(w, &g);
    if (rc != GC_OK)
        return rc;
    gc_world_cells_begin(w);
    if (map != NULL)
        memcpy(g->cells, map->cells, (size_t)map->width * (size_t)map->height);
    gc_world_cells_end(w);
    if (map != NULL) {
        memcpy(g->cost, map->cost, sizeof g->cost);
        g->cell_size = map->cell_size;
    }
    *out = g;
    return GC_OK;
}

/*
 * The applier's on_agent: one checked agent command, applied to the
 * simulation between ticks (the drain runs on the loop's thread with the
 * workers parked).  The sim checks what the applier cannot: the map, the
 * handles, the room.
 */
static int
host_agent(void *arg, const gc_edit *e, uint32_t *handle)
{
    gc_host *h = arg;
    gc_sim *s = h->sim;
    switch (e->op) {
    case GC_EDIT_SPAWN: {
        gc_spawn_spec sp = {.x = e->px,
                            .y = e->py,
                            .has_goal = (e->flags & GC_EDIT_F_GOAL) != 0,
                            .goal_x = e->gx,
                            .goal_y = e->gy,
                            .radius = e->radius,
                            .speed = e->speed,
                            .group = e->group,
                            /* Not in the queue's entry: the defaults. */
                            .turn_rate = -1.0f,
                            .wander_radius = -1.0f};
        return gc_sim_spawn(s, &sp, handle, NULL);
    }
    case GC_EDIT_REMOVE:
        return gc_sim_remove(s, e->agent, NULL);
    case GC_EDIT_GOAL:
        switch (e->type) {
        case GC_EDIT_GOAL_POINT:
            return gc_sim_set_goal_point(s, e->agent, e->px, e->py, NULL);
        case GC_EDIT_GOAL_WANDER:
            return gc_sim_set_goal_wander(s, e->agent, NULL);
        case GC_EDIT_GOAL_STOP:
            return gc_sim_set_goal_stop(s, e->agent, NULL);
        case GC_EDIT_GOAL_FOLLOW:
            return gc_sim_set_goal_follow(s, e->agent, e->target, e->dist,
                                          NULL);
        }
        return GC_EINVAL;
    case GC_EDIT_SPEED:
        return gc_sim_set_speed(s, e->agent, e->speed, NULL);
    case GC_EDIT_RADIUS:
        return gc_sim_set_radius(s, e->agent, e->radius, NULL);
    }
    return GC_EINVAL;
}

int
gc_host_new(gc_host **out, const gc_host_config *cfg)
{
    *out = NULL;
    if (cfg == NULL || cfg->world == NULL || cfg->grid == NULL)
        return GC_EINVAL;
    gc_host *h = calloc(1, sizeof *h);
    if (h == NULL)
        return GC_ENOMEM;
    h->world = cfg->world;
    h->grid = cfg->grid;
    h->sim = cfg->sim;
    h->report = cfg->report;
    h->report_arg = cfg->report_arg;
    h->counts.edits_on = true;
    h->trace_agent = GC_WORLD_NO_AGENT;
    h->path_agent = GC_WORLD_NO_AGENT;
    gc_edit_applier_config ec;
    memset(&ec, 0, sizeof ec);
    ec.on_apply = cfg->on_edit;
    ec.on_apply_arg = cfg->on_edit_arg;
    if (h->sim != NULL) {
        ec.on_agent = host_agent;
        ec.on_agent_arg = h;
    }
    int rc = gc_edit_applier_new(&h->edits, &ec);
    if (rc == GC_OK && h->sim != NULL) {
        h->trace_cap = gc_world_trace_capacity(h->world);
        h->trace_buf =
            calloc(h->trace_cap ? h->trace_cap : 1, sizeof *h->trace_buf);
        if (h->trace_buf == NULL)
            rc = GC_ENOMEM;
    }
    if (rc != GC_OK) {
        gc_host_free(h);
        return rc;
    }
    *out = h;
    return GC_OK;
}

void
gc_host_free(gc_host *h)
{
    if (h == NULL)
        return;
    gc_edit_applier_free(h->edits);
    free(h->trace_buf);
    free(h);
}

/*
 * Whether the edit queue can be drained: yes when it is intact; when
 * someone resized it or scribbled on its header, or the program's SIGBUS
 * guard had to step in, say so and make a new one; when that fails, say
 * so and go on without edits.
 */
static bool
check_queue(gc_host *h, uint64_t now_ns, unsigned long faults)
{
    gc_error err;
    int rc = gc_queue_intact(gc_world_queue(h->world), &err);
    if (rc == GC_OK && faults == h->faults_seen)
        return true;
    /* Make the new queue first, then say so: whoever reads the message
     * finds the new queue in place. */
    gc_error reset_err;
    int reset_rc = gc_queue_reset(gc_world_queue(h->world), &reset_err);
    if (h->said_window == 0 || now_ns - h->said_window >= 1000000000ull) {
        h->said_window = now_ns;
        h->said = 0;
    }
    if (h->said < 5) {
        char more[64] = "";
        if (h->quiet > 0)
            snprintf(more, sizeof more, " (%u more since the last message)",
                     h->quiet);
        if (faults != h->faults_seen)
            report(h,
                   "%s: shrunk while the daemon was using it (SIGBUS "
                   "caught, %d so far); making a new edit queue%s",
                   gc_queue_name(gc_world_queue(h->world)), (int)faults, more);
        else
            report(h, "%s; making a new edit queue%s", err.msg, more);
        h->said++;
        h->quiet = 0;
    } else {
        h->quiet++;
    }
    h->faults_seen = faults;
    h->counts.queue_resets++;
    if (reset_rc != GC_OK) {
        report(h, "%s: no more edits until the daemon restarts",
               reset_err.msg);
        return false;
    }
    return true;
}

int
gc_host_edits(gc_host *h, uint64_t now_ns, unsigned long queue_faults,
              size_t *changed_out)
{
    const gc_cell *changed = NULL;
    size_t n_changed = 0;
    int rc = GC_OK;
    if (changed_out != NULL)
        *changed_out = 0;
    if (h->counts.edits_on)
        h->counts.edits_on = check_queue(h, now_ns, queue_faults);
    if (h->counts.edits_on) {
        uint64_t applied = gc_world_edits_applied(h->world);
        rc = gc_edit_applier_drain(h->edits, h->world, h->grid, now_ns,
                                   &changed, &n_changed);
        h->edited |= gc_world_edits_applied(h->world) != applied;
    }
    if (rc != GC_OK || n_changed == 0)
        return rc;
    /* The agents these cells touch plan again in the coming tick. */
    if (h->sim != NULL)
        rc = gc_sim_grid_changed(h->sim, changed, n_changed);
    h->counts.edit_batches++;
    if (changed_out != NULL)
        *changed_out = n_changed;
    return rc;
}

/* Whether the slot and salt of a trace request name a live agent.  Salt 0
 * (what tools wrote before agents could be removed) names whoever holds
 * the slot. */
static bool
requested_live(const gc_host *h, uint32_t agent, uint32_t salt)
{
    gc_agent_handle have = gc_sim_handle(h->sim, agent);
    return have != GC_AGENT_NONE &&
           (salt == 0 || gc_agent_handle_salt(have) == salt);
}

/* Follow the viewer's trace request (it asks through the edit queue, the
 * program records it in the world) and publish a finished trace. */
static void
trace_step(gc_host *h)
{
    uint32_t want, gen;
    gc_world_trace_request(h->world, &want, &gen);
    /* A request names an agent by slot and salt: one for an agent that
     * was removed (whatever now holds its slot) traces nobody. */
    if (!requested_live(h, want, gen))
        want = GC_WORLD_NO_AGENT;
    if (want != h->trace_agent &&
        gc_sim_trace_agent(h->sim, want, h->trace_cap) == GC_OK)
        h->trace_agent = want;
    uint32_t who;
    const gc_trace *tr = gc_sim_take_trace(h->sim, &who);
    if (tr == NULL)
        return;
    size_t n = tr->len < h->trace_cap ? tr->len : h->trace_cap;
    for (size_t k = 0; k < n; k++) {
        h->trace_buf[k].cell = tr->events[k].cell;
        h->trace_buf[k].kind = tr->events[k].kind;
    }
    gc_world_trace_publish(h->world, who,
                           gc_agent_handle_salt(gc_sim_handle(h->sim, who)),
                           h->counts.ticks, h->trace_buf,
                           tr->truncated ? h->trace_cap + 1 : n);
}

int
gc_host_tick(gc_host *h)
{
    if (h->sim != NULL) {
        trace_step(h);
        int rc = gc_sim_tick(h->sim);
        if (rc != GC_OK)
            return rc;
    }
    h->counts.ticks++;
    gc_world_set_tick(h->world, h->counts.ticks);
    return GC_OK;
}

void
gc_host_publish_path(gc_host *h, uint32_t agent, uint32_t salt,
                     const gc_vec2 *pts, size_t n)
{
    if (agent == GC_WORLD_NO_AGENT) {
        /* Said once: readers keep the last "nobody" as long as needed. */
        if (h->path_agent != GC_WORLD_NO_AGENT)
            gc_world_path_publish(h->world, GC_WORLD_NO_AGENT, 0,
                                  h->counts.ticks, NULL, 0);
    } else {
        gc_world_path_publish(h->world, agent, salt, h->counts.ticks, pts,
                              pts != NULL ? n : 0);
    }
    h->path_agent = agent;
}

/* The whole path of the agent the trace request names, straight from its
 * waypoint array: nobody's when it names no agent of the sim. */
static void
publish_requested_path(gc_host *h)
{
    uint32_t want, salt;
    gc_world_trace_request(h->world, &want, &salt);
    if (!requested_live(h, want, salt)) {
        gc_host_publish_path(h, GC_WORLD_NO_AGENT, 0, NULL, 0);
        return;
    }
    const gc_agent *a = gc_sim_agent(h->sim, want);
    uint32_t left = gc_agent_remaining(a);
    gc_host_publish_path(h, want,
                         gc_agent_handle_salt(gc_sim_handle(h->sim, want)),
                         left ? a->wp + a->wp_next : NULL, left);
}

/*
 * The snapshot's records of the sim's slots [lo, hi): the live agents,
 * packed from record `at`, up to the world's capacity `cap`.  A record's
 * id and salt are the agent's (the handle's two halves); the records go
 * in slot order, which is not the ids' (sim-order.c).  Read straight from the
 * sim's arrays and stored a block at a time: with 100,000 agents, the sim's
 * accessors (each checking the slot again), a store call per record and
 * memset's `rep stos` for each took a fifth of the records' time (on one
 * thread 2.14 ms, now 1.65).
 */
static void
store_agents(const gc_sim *sim, gc_world_snap *snap, uint32_t cap, size_t lo,
             size_t hi, uint32_t at)
{
    enum { BLOCK = 64 };
    /* (Zeroed by a copy, in vector stores.) */
    static const gc_world_agent blank;
    gc_world_agent recs[BLOCK];
    uint32_t n = 0;
    for (size_t i = lo; i < hi && at + n < cap; i++) {
        if (!gc_sim_alive(sim, (uint32_t)i))
            continue; /* a free slot */
        const gc_agent *a = &sim->agents[i];
        gc_world_agent *rec = &recs[n++];
        *rec = blank;
        rec->id = gc_sim_id_of(sim, (uint32_t)i);
        rec->salt = sim->slot[i].salt;
        rec->group = sim->slot[i].group;
        rec->x = a->pos.x;
        rec->y = a->pos.y;
        rec->heading = a->heading;
        rec->speed = a->state == GC_AGENT_MOVING ? a->speed : 0.0f;
        rec->goal_x = a->goal.x;
        rec->goal_y = a->goal.y;
        rec->state = a->state;
        rec->radius = a->radius;
        if (sim->body != NULL) {
            rec->vx = sim->body[i].vx;
            rec->vy = sim->body[i].vy;
        }
        uint32_t left = gc_agent_remaining(a);
        rec->path_len = left;
        for (uint32_t k = 0; k < left && k < GC_WORLD_PATH_POINTS; k++)
            rec->path[k] = a->wp[a->wp_next + k];
        if (n == BLOCK) {
            gc_world_agents_store(snap, at, recs, n);
            at += n;
            n = 0;
        }
    }
    gc_world_agents_store(snap, at, recs, n);
}

struct publish {
    const gc_sim *sim;
    gc_world_snap *snap;
    uint32_t cap;
    size_t n, live; /* slots; agents alive */
};

/* One worker's share of the records: a contiguous part of the slots,
 * from the record that the live agents below it put it at (every slot
 * below, without free slots, else counted). */
static void
publish_part(void *arg, unsigned part, unsigned parts)
{
    const struct publish *p = arg;
    size_t lo = p->n * part / parts, hi = p->n * (part + 1) / parts;
    size_t at = lo;
    if (p->live < p->n) {
        at = 0;
        for (size_t i = 0; i < lo; i++)
            at += gc_sim_alive(p->sim, (uint32_t)i);
    }
    if (at < p->cap)
        store_agents(p->sim, p->snap, p->cap, lo, hi, (uint32_t)at);
}

/* The rules are host.h's: edits since the last publish first, as they
 * must reach the next reader whether anyone is attached now or not. */
bool
gc_host_publish_due(const gc_host *h, bool batch, uint64_t since_ns)
{
    if (h->edited || since_ns >= 1000000000ull / 4)
        return true;
    if (batch && since_ns < 1000000000ull / 120)
        return false;
    return gc_world_watched(h->world);
}

/*
 * Every live agent, in slot order.  From gc_sim_prep_shared slots up the
 * sim's workers write them, each a part of the slots (with 100,000
 * agents the records took the loop's thread about a tenth of a tick at
 * 60 Hz, the other core waiting); below that the loop's thread alone, as
 * a hand-over costs more than it saves.  The records are the same either
 * way.
 */
void
gc_host_publish_agents(gc_host *h)
{
    h->edited = false;
    if (h->sim == NULL)
        return;
    gc_world_snap *snap = gc_world_agents_begin(h->world);
    if (snap == NULL)
        return;
    size_t n = gc_sim_agent_count(h->sim), live = gc_sim_live_count(h->sim);
    uint32_t cap = gc_world_agent_capacity(h->world);
    struct publish p = {h->sim, snap, cap, n, live};
    if (n >= gc_sim_prep_shared)
        gc_sim_parallel(h->sim, publish_part, &p);
    else
        publish_part(&p, 0, 1);
    gc_world_agents_publish(h->world, (uint32_t)(live < cap ? live : cap));
    publish_requested_path(h);
}

void
gc_host_publish_records(gc_host *h, const gc_world_agent *recs, uint32_t n)
{
    gc_world_snap *snap = gc_world_agents_begin(h->world);
    if (snap == NULL)
        return;
    uint32_t cap = gc_world_agent_capacity(h->world);
    if (n > cap)
        n = cap;
    gc_world_agents_store(snap, 0, recs, n);
    memset(h->by_state, 0, sizeof h->by_state);
    for (uint32_t i = 0; i < n; i++)
        if (recs[i].state < 8)
            h->by_state[recs[i].state]++;
    gc_world_agents_publish(h->world, n);
}

void
gc_host_publish_stats(gc_host *h, const gc_host_window *win, gc_sim_stats *out)
{
    gc_world_stats ws;
    memset(&ws, 0, sizeof ws);
    double secs = win->secs;
    ws.uptime_ns = win->uptime_ns;
    ws.ticks_per_s = secs > 0 ? (double)win->ticks / secs : 0.0;
    ws.overruns = win->overruns;
    if (h->sim != NULL) {
        gc_sim_stats st;
        gc_sim_stats_window(h->sim, &st);
        h->counts.searches_total += st.searches;
        ws.tick = st.ticks;
        for (int k = 0; k < GC_AGENT_NSTATES && k < 8; k++)
            ws.agents[k] = st.by_state[k];
        ws.searches_total = h->counts.searches_total;
        ws.searches_per_s = secs > 0 ? (double)st.searches / secs : 0.0;
        ws.search_us_mean = st.search_us_mean;
        ws.search_us_p99 = st.search_us_p99;
        ws.expanded_mean =
            st.searches ? (double)st.expanded / (double)st.searches : 0.0;
        if (out != NULL)
            *out = st;
    } else {
        ws.tick = h->counts.ticks;
        memcpy(ws.agents, h->by_state, sizeof ws.agents);
        if (out != NULL)
            memset(out, 0, sizeof *out);
    }
    gc_edit_counts ec;
    gc_edit_applier_counts(h->edits, &ec);
    ws.edits_accepted = ec.accepted;
    ws.edits_rejected = ec.rejected;
    gc_world_stats_publish(h->world, &ws);
}

void
gc_host_counts_get(const gc_host *h, gc_host_counts *out)
{
    *out = h->counts;
}

const gc_edit_applier *
gc_host_applier(const gc_host *h)
{
    return h->edits;
}
