/*
 * view_conn.c: the viewer's connection to a daemon.
 *
 * The viewer keeps its own copies of what it draws (cells, the agent
 * snapshot, statistics, the trace, the selected agent's whole path) and
 * refreshes them from the world each frame, copying only what changed:
 * cells when the grid generation moved, agents when a new snapshot is out,
 * the trace and the path when a new one is out.  Every
 * read goes through the library's torn-read-safe copies, so the daemon is
 * never blocked; a copy that keeps failing (GC_EBUSY) just leaves the last
 * one in place for this frame.
 *
 * Attaching asks for the edit queue too; when that is refused (the queue's
 * mode, most often) the viewer attaches read-only and remembers why, so that
 * painting can be refused with that reason.  A daemon is lost when it says
 * it is stopping, or when its object was unlinked or its pid is gone; the
 * copies outlive the handle so that the last picture stays on screen.
 */
#include "config.h"

#include "view.h"

#include <gridcrowd/edit-client.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Size the copies for the world just attached; keeps them when the
 * geometry is unchanged.  GC_ENOMEM leaves the connection detached. */
static int
fit_buffers(view_conn *c)
{
    int32_t w = gc_world_width(c->w), h = gc_world_height(c->w);
    size_t cap = gc_world_agent_capacity(c->w);
    if (w != c->width || h != c->height || c->cells == NULL) {
        uint8_t *cells = malloc((size_t)w * (size_t)h);
        if (cells == NULL)
            return GC_ENOMEM;
        free(c->cells);
        c->cells = cells;
        c->width = w;
        c->height = h;
        /* A new map: the old trace and path mean nothing on it. */
        c->trace_info = (gc_world_trace_info){0};
        c->trace_changed = true;
        c->path_info = (gc_world_path_info){0};
    }
    if (cap > c->agents_cap || c->agents == NULL) {
        gc_world_agent *a = malloc((cap ? cap : 1) * sizeof *a);
        if (a == NULL)
            return GC_ENOMEM;
        free(c->agents);
        c->agents = a;
        c->agents_cap = cap;
        c->nagents = 0;
    }
    if (c->trace != NULL && c->trace_cap < gc_world_trace_capacity(c->w)) {
        free(c->trace);
        c->trace = NULL;
        c->trace_cap = 0;
    }
    if (c->path != NULL && c->path_cap < gc_world_path_capacity(c->w)) {
        free(c->path);
        c->path = NULL;
        c->path_cap = 0;
    }
    c->cell_size = gc_world_cell_size(c->w);
    return GC_OK;
}

int
view_conn_open(view_conn *c, gc_error *err)
{
    gc_error edit_err;
    gc_world *w = NULL;
    snprintf(c->shown, sizeof c->shown, "%s%s",
             c->name != NULL && c->name[0] == '/' ? "" : "/",
             c->name != NULL ? c->name : GC_WORLD_DEFAULT_NAME);
    int rc = gc_world_attach(&w, c->name, GC_WORLD_ATTACH_QUEUE, &edit_err);
    if (rc == GC_EBADMAGIC) {
        /* A daemon still starting (no magic yet) may have finished since:
         * it makes its queue before it publishes the world, so a world
         * that now attaches has its queue too.  Without this try the
         * viewer stayed read-only, saying the daemon was still starting. */
        gc_world *ro = NULL;
        int ready = gc_world_attach(&ro, c->name, 0, err);
        if (ready != GC_OK)
            return ready;
        gc_world_close(ro);
        rc = gc_world_attach(&w, c->name, GC_WORLD_ATTACH_QUEUE, &edit_err);
    }
    c->can_edit = rc == GC_OK;
    if (rc != GC_OK) {
        rc = gc_world_attach(&w, c->name, 0, err);
        if (rc != GC_OK)
            return rc;
        snprintf(c->edit_why, sizeof c->edit_why, "%s", edit_err.msg);
    } else {
        c->edit_why[0] = '\0';
    }
    /* A daemon on its way out, or objects a dead one left behind, would be
     * lost again at once: not worth attaching to. */
    if (gc_world_state(w) == GC_WORLD_STOPPING || !gc_world_owner_alive(w)) {
        rc = gc_error_set(
            err, GC_ENOENT, NULL, 0, 0, "%s: daemon (pid %ld) is %s", c->shown,
            (long)gc_world_pid(w),
            gc_world_state(w) == GC_WORLD_STOPPING ? "stopping" : "gone");
        gc_world_close(w);
        return rc;
    }
    c->w = w;
    if ((rc = fit_buffers(c)) != GC_OK) {
        gc_world_close(w);
        c->w = NULL;
        return gc_error_set(err, rc, NULL, 0, 0, "%s: %s", c->shown,
                            gc_strerror(rc));
    }
    c->pid = (long)gc_world_pid(w);
    /* Whatever was copied came from another daemon. */
    c->cells_valid = false;
    c->snap_seq = UINT64_MAX;
    c->trace_info.seq = 0;
    c->path_info = (gc_world_path_info){0};
    c->next_check = 0;
    return GC_OK;
}

void
view_conn_close(view_conn *c)
{
    gc_world_close(c->w);
    c->w = NULL;
    c->can_edit = false;
}

void
view_conn_free(view_conn *c)
{
    view_conn_close(c);
    free(c->cells);
    free(c->agents);
    free(c->trace);
    free(c->path);
    c->cells = NULL;
    c->agents = NULL;
    c->trace = NULL;
    c->path = NULL;
}

bool
view_conn_lost(view_conn *c, double now)
{
    if (c->w == NULL)
        return true;
    if (gc_world_state(c->w) == GC_WORLD_STOPPING)
        return true;
    /* owner_alive costs an fstat and a kill(pid, 0): not every frame. */
    if (now >= c->next_check) {
        c->next_check = now + VIEW_POLL_S;
        return !gc_world_owner_alive(c->w);
    }
    return false;
}

static void
refresh_trace(view_conn *c)
{
    gc_world_trace_info info;
    if (gc_world_read_trace(c->w, &info, NULL, 0) != GC_OK ||
        info.seq == c->trace_info.seq)
        return;
    if (c->trace == NULL) {
        size_t cap = gc_world_trace_capacity(c->w);
        c->trace = malloc((cap ? cap : 1) * sizeof *c->trace);
        if (c->trace == NULL)
            return;
        c->trace_cap = cap;
    }
    if (gc_world_read_trace(c->w, &info, c->trace, c->trace_cap) == GC_OK) {
        c->trace_info = info;
        c->trace_changed = true;
    }
}

/* The whole path, when a new one is out; a path copy that keeps failing
 * leaves the last one (the drawer falls back to the record's waypoints
 * until one of the selected agent's arrives). */
static void
refresh_path(view_conn *c)
{
    gc_world_path_info info;
    if (gc_world_read_path(c->w, &info, NULL, 0) != GC_OK ||
        info.seq == c->path_info.seq)
        return;
    if (c->path == NULL) {
        size_t cap = gc_world_path_capacity(c->w);
        c->path = malloc((cap ? cap : 1) * sizeof *c->path);
        if (c->path == NULL)
            return;
        c->path_cap = cap;
    }
    if (gc_world_read_path(c->w, &info, c->path, c->path_cap) == GC_OK)
        c->path_info = info;
}

void
view_conn_refresh(view_conn *c, bool frozen, bool trace, bool path)
{
    if (c->w == NULL)
        return;
    gc_world_stats st;
    if (gc_world_read_stats(c->w, &st) == GC_OK)
        c->stats = st;
    c->tick = gc_world_tick(c->w);
    if (frozen && c->cells_valid)
        return;
    uint64_t gen, seq;
    if ((!c->cells_valid || gc_world_generation(c->w) != c->generation) &&
        gc_world_read_cells(c->w, c->cells, &gen) == GC_OK) {
        c->generation = gen;
        c->cells_valid = true;
        c->cells_changed = true;
    }
    /* A copy of no records gives the snapshot number cheaply. */
    size_t n;
    if (gc_world_read_agents(c->w, NULL, 0, &n, &seq) == GC_OK &&
        seq != c->snap_seq &&
        gc_world_read_agents(c->w, c->agents, c->agents_cap, &n, &seq) ==
            GC_OK) {
        c->nagents = n;
        c->snap_seq = seq;
        /* Once per new snapshot, not per frame: the agents are drawn
         * with one radius (one set of sprites), the largest. */
        float body = 0.0f;
        for (size_t i = 0; i < n; i++)
            if (c->agents[i].radius > body)
                body = c->agents[i].radius;
        c->body_radius = body;
    }
    /* After the snapshot: the daemon publishes the path right after it, so
     * the two are of the same tick or the path a little newer. */
    if (path)
        refresh_path(c);
    if (trace)
        refresh_trace(c);
}

int
view_conn_push(view_conn *c, gc_edit *e)
{
    if (c->w == NULL)
        return GC_EINVAL;
    if (!c->can_edit)
        return GC_EPERM;
    return gc_edit_send(gc_world_queue(c->w), e, 1, GC_EDIT_SEND_EACH,
                        VIEW_PUSH_TIMEOUT_NS, NULL);
}

long
view_conn_find(const view_conn *c, uint32_t id)
{
    /* Records are in the sim's slot order, the ids' until it renumbers
     * them (--reorder): try the record at the id first. */
    if (id < c->nagents && c->agents[id].id == id)
        return (long)id;
    for (size_t i = 0; i < c->nagents; i++)
        if (c->agents[i].id == id)
            return (long)i;
    return -1;
}
