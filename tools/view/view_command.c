/*
 * view_command.c: agent commands from the viewer: key `a` spawns an agent
 * at the pointer, a right click sends the selected agent to the point
 * under the pointer.
 *
 * Both go through the edit queue like painting (view_conn_push), checked
 * first with the daemon's rules (gc_edit_check), and never wait: the
 * daemon answers every spawn in the world's answer ring, but the viewer
 * does not need the handle (the new agent appears in the next snapshot,
 * and a click selects it).  A refusal by the daemon (a wall, a body in
 * the way, no room) is counted in its edit statistics; the overlay says
 * what was sent.  A read-only viewer says it cannot.
 */
#include "config.h"

#include <gridcrowd/edits.h>
#include <gridcrowd/sim.h>

#include <math.h>

#include "view.h"

/* The world position (world units) under window pixel (mx, my). */
static void
world_at(const view_state *s, int mx, int my, float *x, float *y)
{
    float cs = s->conn.cell_size > 0 ? s->conn.cell_size : 1;
    *x = (float)((mx - s->cam.ox) / s->cam.zoom) * cs;
    *y = (float)((my - s->cam.oy) / s->cam.zoom) * cs;
}

/* Whether commands can be sent; says why not. */
static bool
can_send(view_state *s, const char *what)
{
    if (s->conn.w == NULL) {
        view_message(s, false, "%s refused: no daemon", what);
        return false;
    }
    if (!s->conn.can_edit) {
        view_message(s, false, "%s refused: read-only viewer (%s)", what,
                     s->conn.edit_why);
        return false;
    }
    return true;
}

static void
send(view_state *s, gc_edit *e, const char *what, float x, float y)
{
    const char *why;
    if (gc_edit_check(e, s->conn.width, s->conn.height, &why) != GC_OK) {
        view_message(s, false, "%s dropped: %s", what, why);
        return;
    }
    int rc = view_conn_push(&s->conn, e);
    if (rc != GC_OK)
        view_message(s, false, "%s dropped: %s", what,
                     rc == GC_EFULL ? "the edit queue is full"
                                    : gc_strerror(rc));
    else
        view_message(s, false, "%s sent: (%.1f, %.1f)", what, (double)x,
                     (double)y);
}

void
view_command_spawn(view_state *s, int mx, int my)
{
    if (!can_send(s, "spawn"))
        return;
    gc_edit e = {.op = GC_EDIT_SPAWN};
    world_at(s, mx, my, &e.px, &e.py);
    send(s, &e, "spawn", e.px, e.py);
}

void
view_command_goal(view_state *s, int mx, int my)
{
    if (s->sel == GC_WORLD_NO_AGENT) {
        view_message(s, false, "goal: select an agent first (click it)");
        return;
    }
    if (!can_send(s, "goal"))
        return;
    gc_edit e = {.op = GC_EDIT_GOAL, .type = GC_EDIT_GOAL_POINT};
    /* The selection is the slot and its salt: the handle. */
    e.agent = (s->sel_gen << GC_AGENT_INDEX_BITS) | s->sel;
    world_at(s, mx, my, &e.px, &e.py);
    send(s, &e, "goal", e.px, e.py);
}
