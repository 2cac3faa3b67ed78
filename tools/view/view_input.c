/*
 * view_input.c: what the user's keys and mouse do to the viewer's state.
 *
 *   wheel        zoom around the pointer
 *   drag         pan (left button without modifiers, or the middle or right
 *                button); a left press released without moving selects
 *   shift-drag   paint obstacles; ctrl-drag paints walkable cells
 *   p t space    every agent's path, the selected agent's trace, freeze
 *   f o h        fit the map, overlay on/off, help; + and - zoom
 *   s            save the window as gridcrowd-view-TICK.bmp
 *   q Escape     quit
 *
 * Painting sends edits through the queue like any tool: the first cell of a
 * stroke as a SET, then one LINE from the previous mouse sample's cell to
 * the new one, so that a fast stroke has no gaps.  The daemon paints a
 * LINE with the library's gc_line_walk; the viewer walks the same line to
 * keep the part of a stroke that leaves the map (the daemon rejects a line
 * with an end outside it, so only the runs of cells inside the map are
 * sent), and shows at once (view_paint) the cells gc_line_walk gives for
 * each run it sends: exactly what the daemon will paint.  Each push waits at
 * most VIEW_PUSH_TIMEOUT_NS; a full queue drops the segment with a message
 * rather than stall the window.
 */
#include "config.h"

#include "view.h"

#include "prog.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MSG_SECONDS 5.0
#define CLICK_SLOP 3 /* pixels a click may move and still select */
#define ZOOM_MAX 512.0

void
view_message(view_state *s, bool also_stderr, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(s->msg, sizeof s->msg, fmt, ap);
    va_end(ap);
    s->msg_until = s->now + MSG_SECONDS;
    if (also_stderr)
        prog_msg("%s", s->msg);
}

void
view_fit(view_state *s)
{
    const view_conn *c = &s->conn;
    if (c->width <= 0 || c->height <= 0 || s->win_w <= 0 || s->win_h <= 0)
        return;
    double z = fmin((double)s->win_w / c->width, (double)s->win_h / c->height);
    /* Whole pixels per cell keep every cell the same size. */
    s->cam.zoom = z >= 1 ? floor(z) : z;
    s->cam.ox = floor((s->win_w - c->width * s->cam.zoom) / 2);
    s->cam.oy = floor((s->win_h - c->height * s->cam.zoom) / 2);
}

void
view_sync_trace(view_state *s)
{
    if (!s->conn.can_edit)
        return;
    /* Whether or not the trace is shown: the same request brings the
     * selected agent's whole path. */
    uint32_t want = s->sel;
    if (want == GC_WORLD_NO_AGENT && !s->trace_sent)
        return;
    gc_edit e = {.op = GC_EDIT_TRACE,
                 .x0 = (int32_t)want,
                 .y0 = want == GC_WORLD_NO_AGENT ? 0 : (int32_t)s->sel_gen};
    int rc = view_conn_push(&s->conn, &e);
    if (rc == GC_OK)
        s->trace_sent = want != GC_WORLD_NO_AGENT;
    else
        view_message(s, false, "could not ask for the trace: %s",
                     gc_strerror(rc));
}

void
view_select(view_state *s, uint32_t id, uint32_t generation)
{
    if (id == s->sel && generation == s->sel_gen)
        return;
    s->sel = id;
    s->sel_gen = generation;
    view_sync_trace(s);
}

static void
zoom_at(view_state *s, double factor, double mx, double my)
{
    double fit =
        fmin((double)s->win_w / (s->conn.width > 0 ? s->conn.width : 1),
             (double)s->win_h / (s->conn.height > 0 ? s->conn.height : 1));
    double z = s->cam.zoom * factor, zmin = fmin(fit / 4, 1.0);
    z = z < zmin ? zmin : z > ZOOM_MAX ? ZOOM_MAX : z;
    /* Keep the map point under the pointer where it is. */
    s->cam.ox = mx - (mx - s->cam.ox) * z / s->cam.zoom;
    s->cam.oy = my - (my - s->cam.oy) * z / s->cam.zoom;
    s->cam.zoom = z;
}

/* The cell under window pixel (mx, my), possibly outside the map. */
static void
cell_at(const view_state *s, int mx, int my, int32_t *cx, int32_t *cy)
{
    *cx = (int32_t)floor((mx - s->cam.ox) / s->cam.zoom);
    *cy = (int32_t)floor((my - s->cam.oy) / s->cam.zoom);
}

static bool
in_map(const view_state *s, int32_t x, int32_t y)
{
    return x >= 0 && y >= 0 && x < s->conn.width && y < s->conn.height;
}

/* Select the agent nearest the pointer within its disc (or a few pixels,
 * for tiny discs); nothing there clears the selection. */
static void
pick(view_state *s, int mx, int my)
{
    const view_conn *c = &s->conn;
    float r = view_agent_radius(s), reach = r < 6 ? 6 : r;
    float cs = c->cell_size > 0 ? c->cell_size : 1;
    double best = (double)reach * reach;
    long found = -1;
    for (size_t i = 0; i < c->nagents; i++) {
        double x = s->cam.ox + c->agents[i].x / cs * s->cam.zoom - mx;
        double y = s->cam.oy + c->agents[i].y / cs * s->cam.zoom - my;
        if (x * x + y * y <= best) {
            best = x * x + y * y;
            found = (long)i;
        }
    }
    if (found >= 0)
        view_select(s, c->agents[found].id, c->agents[found].salt);
    else
        view_select(s, GC_WORLD_NO_AGENT, 0);
}

static void
remember_paint(view_state *s, int32_t x, int32_t y)
{
    if (s->npaint == VIEW_PAINT_MAX) /* drop the oldest */
        memmove(s->paint, s->paint + 1,
                (VIEW_PAINT_MAX - 1) * sizeof *s->paint);
    else
        s->npaint++;
    s->paint[s->npaint - 1] =
        (view_paint){x, y, (uint8_t)s->paint_type, s->now};
}

static bool
push_run(view_state *s, int32_t x0, int32_t y0, int32_t x1, int32_t y1)
{
    bool one = x0 == x1 && y0 == y1;
    /* SET leaves x1 and y1 zero: the daemon rejects an edit whose unused
     * fields are not. */
    gc_edit e = {.op = one ? GC_EDIT_SET : GC_EDIT_LINE,
                 .type = (uint32_t)s->paint_type,
                 .x0 = x0,
                 .y0 = y0,
                 .x1 = one ? 0 : x1,
                 .y1 = one ? 0 : y1};
    const char *why;
    if (gc_edit_check(&e, s->conn.width, s->conn.height, &why) != GC_OK) {
        view_message(s, false, "paint dropped: %s", why);
        return false;
    }
    int rc = view_conn_push(&s->conn, &e);
    if (rc == GC_OK)
        return true;
    view_message(s, false, "paint dropped: %s",
                 rc == GC_EFULL ? "the edit queue is full" : gc_strerror(rc));
    return false;
}

/* Show the cells the daemon will paint for the run from a to b (its own
 * line, which near the map's edge may differ from that stretch of the
 * whole stroke), then send it. */
static void
paint_run(view_state *s, gc_cell a, gc_cell b)
{
    gc_line_walk lw;
    gc_cell c;
    gc_line_walk_init(&lw, a, b);
    while (gc_line_walk_next(&lw, &c))
        remember_paint(s, c.x, c.y);
    push_run(s, a.x, a.y, b.x, b.y);
}

/* Paint the line of cells from (x0, y0) to (x1, y1), sending the runs of it
 * that lie inside the map. */
static void
paint_line(view_state *s, int32_t x0, int32_t y0, int32_t x1, int32_t y1)
{
    gc_line_walk lw;
    gc_cell c, first = {0, 0}, last = {0, 0};
    bool in_run = false;
    gc_line_walk_init(&lw, (gc_cell){x0, y0}, (gc_cell){x1, y1});
    while (gc_line_walk_next(&lw, &c)) {
        if (in_map(s, c.x, c.y)) {
            if (!in_run)
                first = c;
            in_run = true;
            last = c;
        } else if (in_run) {
            paint_run(s, first, last);
            in_run = false;
        }
    }
    if (in_run)
        paint_run(s, first, last);
}

/* A refused stroke keeps paint_type PAINT_REFUSED until the button is
 * released, so that it neither pans nor selects. */
#define PAINT_NONE (-1)
#define PAINT_REFUSED (-2)

static void
paint_begin(view_state *s, int type, int mx, int my)
{
    s->paint_type = PAINT_REFUSED;
    if (s->conn.w == NULL) {
        view_message(s, false, "painting refused: no daemon");
        return;
    }
    if (!s->conn.can_edit) {
        view_message(s, false, "painting refused: read-only viewer (%s)",
                     s->conn.edit_why);
        return;
    }
    s->paint_type = type;
    cell_at(s, mx, my, &s->paint_cx, &s->paint_cy);
    paint_line(s, s->paint_cx, s->paint_cy, s->paint_cx, s->paint_cy);
}

static void
paint_move(view_state *s, int mx, int my)
{
    int32_t cx, cy;
    cell_at(s, mx, my, &cx, &cy);
    if (cx == s->paint_cx && cy == s->paint_cy)
        return;
    /* From the previous sample's cell: it is sent again, which is harmless
     * and keeps each LINE whole. */
    paint_line(s, s->paint_cx, s->paint_cy, cx, cy);
    s->paint_cx = cx;
    s->paint_cy = cy;
}

static void
key(view_state *s, const SDL_KeyboardEvent *k)
{
    switch (k->keysym.sym) {
    case SDLK_q:
    case SDLK_ESCAPE:
        s->quit = true;
        break;
    case SDLK_p:
        s->show_paths = !s->show_paths;
        break;
    case SDLK_v:
        s->show_velocities = !s->show_velocities;
        break;
    case SDLK_t:
        s->show_trace = !s->show_trace;
        if (s->show_trace && !s->conn.can_edit && s->conn.w != NULL)
            view_message(s, false,
                         "read-only viewer: showing the daemon's trace "
                         "without asking for it (%s)",
                         s->conn.edit_why);
        view_sync_trace(s);
        break;
    case SDLK_SPACE:
        s->frozen = !s->frozen;
        break;
    case SDLK_h:
        s->show_help = !s->show_help;
        break;
    case SDLK_a: {
        int mx, my;
        SDL_GetMouseState(&mx, &my);
        view_command_spawn(s, mx, my);
        break;
    }
    case SDLK_s:
        s->save_shot = true;
        break;
    case SDLK_o:
        s->show_overlay = !s->show_overlay;
        break;
    case SDLK_f:
    case SDLK_HOME:
        view_fit(s);
        break;
    case SDLK_PLUS:
    case SDLK_EQUALS:
    case SDLK_KP_PLUS:
        zoom_at(s, 1.25, s->win_w / 2.0, s->win_h / 2.0);
        break;
    case SDLK_MINUS:
    case SDLK_KP_MINUS:
        zoom_at(s, 1 / 1.25, s->win_w / 2.0, s->win_h / 2.0);
        break;
    default:
        break;
    }
}

void
view_input_event(view_state *s, const SDL_Event *e)
{
    switch (e->type) {
    case SDL_QUIT:
        s->quit = true;
        break;
    case SDL_KEYDOWN:
        s->mods = (SDL_Keymod)e->key.keysym.mod;
        key(s, &e->key);
        break;
    case SDL_KEYUP:
        s->mods = (SDL_Keymod)e->key.keysym.mod;
        break;
    case SDL_MOUSEWHEEL: {
        int mx, my;
        SDL_GetMouseState(&mx, &my);
        float y = e->wheel.preciseY;
        if (e->wheel.direction == SDL_MOUSEWHEEL_FLIPPED)
            y = -y;
        if (y != 0)
            zoom_at(s, pow(1.25, (double)y), mx, my);
        break;
    }
    case SDL_MOUSEBUTTONDOWN:
        if (s->press_button != 0)
            break;
        s->press_button = e->button.button;
        s->press_x = s->last_x = e->button.x;
        s->press_y = s->last_y = e->button.y;
        s->dragged = false;
        s->paint_type = PAINT_NONE;
        if (e->button.button == SDL_BUTTON_LEFT) {
            SDL_Keymod m = s->mods;
            if (m & KMOD_SHIFT)
                paint_begin(s, GC_CELL_OBSTACLE, e->button.x, e->button.y);
            else if (m & KMOD_CTRL)
                paint_begin(s, GC_CELL_WALKABLE, e->button.x, e->button.y);
        }
        break;
    case SDL_MOUSEMOTION:
        if (s->press_button == 0)
            break;
        if (s->paint_type >= 0) {
            paint_move(s, e->motion.x, e->motion.y);
        } else if (s->paint_type == PAINT_NONE) {
            if (abs(e->motion.x - s->press_x) + abs(e->motion.y - s->press_y) >
                CLICK_SLOP)
                s->dragged = true;
            if (s->dragged) {
                s->cam.ox += e->motion.x - s->last_x;
                s->cam.oy += e->motion.y - s->last_y;
            }
        }
        s->last_x = e->motion.x;
        s->last_y = e->motion.y;
        break;
    case SDL_MOUSEBUTTONUP:
        if (e->button.button != s->press_button)
            break;
        if (s->paint_type == PAINT_NONE && !s->dragged &&
            e->button.button == SDL_BUTTON_LEFT &&
            (s->conn.w != NULL || s->replay != NULL))
            pick(s, e->button.x, e->button.y);
        else if (!s->dragged && e->button.button == SDL_BUTTON_RIGHT)
            view_command_goal(s, e->button.x, e->button.y);
        s->press_button = 0;
        s->paint_type = PAINT_NONE;
        break;
    default:
        break;
    }
}
