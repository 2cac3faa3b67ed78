/*
 * edit-agents.c: the client half of the agent commands (edit-client.h):
 * build one command, push it, and wait for its answer.
 *
 * Rules kept:
 *   - Each command carries a fresh 64-bit random client_token, so that
 *     among the answers of many tools waiting at once each finds its own
 *     (the daemon keys them by pid, token and queue position; the world is
 *     read-only to tools, so none can forge another's).
 *   - Waiting is the edit client's: until edits_applied passes the
 *     command's position (the daemon writes the answer before it moves
 *     edits_applied on), then one search of the answer ring.  Not found by
 *     then means overwritten: GC_EAGAIN, never a wrong answer.
 *   - Nothing here writes the world, and nothing blocks the daemon.
 */
#include "config.h"

#include "grid_int.h"

#include <gridcrowd/edit-client.h>
#include <gridcrowd/util.h>

#include <stdio.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>

uint64_t
gc_edit_token(void)
{
    uint64_t t = 0;
    if (getrandom(&t, sizeof t, GRND_NONBLOCK) != (ssize_t)sizeof t) {
        /* No entropy yet (early boot): the clocks and the pid, mixed.
         * Tokens keep tools apart; they are not secrets. */
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        t = gc_clock_ns() ^ ((uint64_t)getpid() << 40) ^
            (uint64_t)ts.tv_nsec * UINT64_C(0x9e3779b97f4a7c15);
        t ^= t >> 31;
        t *= UINT64_C(0xbf58476d1ce4e5b9);
        t ^= t >> 29;
    }
    return t != 0 ? t : 1;
}

int
gc_edit_wait_answer(const gc_world *w, const gc_edit *e, uint64_t timeout_ns,
                    gc_world_answer *ans)
{
    if (w == NULL || e == NULL || ans == NULL)
        return GC_EINVAL;
    int rc = gc_edit_wait(w, e->position + 1, timeout_ns);
    if (rc != GC_OK)
        return rc;
    rc = gc_world_find_answer(w, e->sender_pid, e->client_token, e->position,
                              ans);
    if (rc != GC_OK)
        return rc; /* GC_EAGAIN: overwritten; GC_EBUSY */
    return ans->code;
}

int
gc_edit_command(gc_world *w, gc_edit *e, uint64_t timeout_ns,
                gc_world_answer *ans)
{
    if (w == NULL || e == NULL)
        return GC_EINVAL;
    e->client_token = gc_edit_token();
    if (ans != NULL)
        e->flags |= GC_EDIT_F_ANSWER;
    int rc = gc_queue_push(gc_world_queue(w), e, timeout_ns);
    if (rc != GC_OK || ans == NULL)
        return rc;
    return gc_edit_wait_answer(w, e, timeout_ns, ans);
}

static gc_edit
command(uint32_t op, gc_agent_handle h, uint32_t type)
{
    gc_edit e;
    memset(&e, 0, sizeof e);
    e.op = op;
    e.agent = h;
    e.type = type;
    return e;
}

/* The Python module mirrors the struct (python/gridcrowd: _SpawnSpec,
 * whose import checks the same size). */
_Static_assert(sizeof(gc_spawn_spec) == 40, "gc_spawn_spec's layout");

int
gc_edit_spawn(gc_world *w, const gc_spawn_spec *sp, uint64_t timeout_ns,
              gc_agent_handle *out, gc_world_answer *ans)
{
    if (out != NULL)
        *out = GC_AGENT_NONE;
    if (sp == NULL)
        return GC_EINVAL;
    gc_edit e = command(GC_EDIT_SPAWN, GC_AGENT_NONE, 0);
    e.px = sp->x;
    e.py = sp->y;
    if (sp->has_goal) {
        e.flags |= GC_EDIT_F_GOAL;
        e.gx = sp->goal_x;
        e.gy = sp->goal_y;
    }
    e.radius = sp->radius;
    e.speed = sp->speed;
    e.group = sp->group;
    gc_world_answer a;
    int rc = gc_edit_command(w, &e, timeout_ns, ans != NULL ? ans : &a);
    if (rc == GC_OK && out != NULL)
        *out = (ans != NULL ? ans : &a)->handle;
    return rc;
}

const char *
gc_edit_spawn_why(const gc_world *w, const gc_spawn_spec *sp, int code,
                  char *buf, size_t n)
{
    if (buf == NULL || n == 0)
        return buf;
    snprintf(buf, n, "%s", gc_strerror(code));
    if (w == NULL || sp == NULL || (code != GC_EOUTSIDE && code != GC_EBLOCKED))
        return buf;
    /* The world's map as the daemon's grid, asked by the daemon's rule
     * (gc_grid_check_point), the position first. */
    gc_grid *g;
    if (gc_grid_new(&g, gc_world_width(w), gc_world_height(w)) != GC_OK)
        return buf;
    gc_error err;
    gc_cell c;
    if (gc_world_read_cells(w, g->cells, NULL) == GC_OK) {
        gc_world_costs(w, g->cost, NULL);
        g->cell_size = gc_world_cell_size(w);
        if (gc_grid_check_point(g, "position", sp->x, sp->y, &c, &err) !=
                GC_OK ||
            (sp->has_goal &&
             gc_grid_check_point(g, "goal", sp->goal_x, sp->goal_y, &c, &err) !=
                 GC_OK))
            snprintf(buf, n, "%s", err.msg);
    }
    gc_grid_free(g);
    return buf;
}

int
gc_edit_remove(gc_world *w, gc_agent_handle h, uint64_t timeout_ns,
               gc_world_answer *ans)
{
    gc_edit e = command(GC_EDIT_REMOVE, h, 0);
    return gc_edit_command(w, &e, timeout_ns, ans);
}

int
gc_edit_goal_point(gc_world *w, gc_agent_handle h, float x, float y,
                   uint64_t timeout_ns, gc_world_answer *ans)
{
    gc_edit e = command(GC_EDIT_GOAL, h, GC_EDIT_GOAL_POINT);
    e.px = x;
    e.py = y;
    return gc_edit_command(w, &e, timeout_ns, ans);
}

int
gc_edit_goal_wander(gc_world *w, gc_agent_handle h, uint64_t timeout_ns,
                    gc_world_answer *ans)
{
    gc_edit e = command(GC_EDIT_GOAL, h, GC_EDIT_GOAL_WANDER);
    return gc_edit_command(w, &e, timeout_ns, ans);
}

int
gc_edit_goal_stop(gc_world *w, gc_agent_handle h, uint64_t timeout_ns,
                  gc_world_answer *ans)
{
    gc_edit e = command(GC_EDIT_GOAL, h, GC_EDIT_GOAL_STOP);
    return gc_edit_command(w, &e, timeout_ns, ans);
}

int
gc_edit_goal_follow(gc_world *w, gc_agent_handle h, gc_agent_handle target,
                    float stop_distance, uint64_t timeout_ns,
                    gc_world_answer *ans)
{
    gc_edit e = command(GC_EDIT_GOAL, h, GC_EDIT_GOAL_FOLLOW);
    e.target = target;
    e.dist = stop_distance;
    return gc_edit_command(w, &e, timeout_ns, ans);
}

int
gc_edit_speed(gc_world *w, gc_agent_handle h, float speed, uint64_t timeout_ns,
              gc_world_answer *ans)
{
    gc_edit e = command(GC_EDIT_SPEED, h, 0);
    e.speed = speed;
    return gc_edit_command(w, &e, timeout_ns, ans);
}

int
gc_edit_radius(gc_world *w, gc_agent_handle h, float radius,
               uint64_t timeout_ns, gc_world_answer *ans)
{
    gc_edit e = command(GC_EDIT_RADIUS, h, 0);
    e.radius = radius;
    return gc_edit_command(w, &e, timeout_ns, ans);
}
