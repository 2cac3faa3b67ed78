/*
 * view_replay.c: playing a recording (gridcrowd-view --replay FILE).
 *
 * The replay drives the live viewer's picture: each frame it asks the
 * recording (view_replay_db.c) for the frame the clock has reached, which
 * fills the same copies a daemon's snapshot fills (s->conn), and calls
 * view_draw_frame.  conn.w stays NULL: nothing here touches a daemon.  On
 * top of that picture it adds two things: the selected agent's whole
 * trajectory, read once from the file when the selection changes (past in
 * ink, future faint), and a slider along the bottom edge.
 *
 * The clock: `pos` is a position in frame numbers; playing advances it by
 * the wall time times the file's fps times the speed (2^speed_exp), and the
 * frame shown is the last recorded frame at or before it, so a real-time
 * recording with dropped frames plays at its true pace.  Stepping, keys and
 * the slider set `pos`; a frame is read only when the one shown changes.
 *
 * A read error in the middle (a corrupt page) ends the replay with one line
 * and VIEW_EXIT_REPLAY, as a bad file does at the start.
 */
#include "config.h"

#include "view_draw_int.h"
#include "view_replay.h"

#include "prog.h"

#include <gridcrowd/util.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PROG "gridcrowd-view"
#define SPEED_MIN (-6) /* 1/64 */
#define SPEED_MAX 6    /* 64x */
#define PAGE_SECONDS 10.0

struct view_replay {
    view_rdb *db;
    const char *path;
    int64_t first, last;
    double fps;
    int64_t frame; /* shown, loaded into s->conn */
    double pos;    /* the clock, in frames */
    bool playing;
    int speed_exp;  /* speed 2^speed_exp */
    bool scrubbing; /* the slider is held */
    /* The selected agent's trajectory, as read for track_id. */
    uint32_t track_id; /* GC_WORLD_NO_AGENT: none read */
    gc_vec2 *track;
    int64_t *track_frames;
    size_t ntrack;
    SDL_Vertex *v; /* its triangles */
    int *ix;
    size_t vcap;
    bool failed; /* a read failed: the message is printed, stop */
};

static double
now_s(void)
{
    return (double)gc_clock_ns() * 1e-9;
}

static int
replay_fail(view_state *s, const char *why)
{
    prog_msg("%s: %s", s->opt.replay, why);
    if (s->replay != NULL)
        s->replay->failed = true;
    return VIEW_EXIT_REPLAY;
}

/* Show frame f (a recorded one). */
static int
show(view_state *s, int64_t f)
{
    struct view_replay *r = s->replay;
    char why[VIEW_RDB_WHY];
    if (f == r->frame)
        return 0;
    if (view_rdb_load(r->db, f, &s->conn, why) != 0) {
        char line[VIEW_RDB_WHY + 32];
        snprintf(line, sizeof line, "frame %lld: %s", (long long)f, why);
        replay_fail(s, line);
        return -1;
    }
    r->frame = f;
    return 0;
}

/* Show the recorded frame at or before the clock. */
static int
show_pos(view_state *s)
{
    struct view_replay *r = s->replay;
    char why[VIEW_RDB_WHY];
    int64_t want = (int64_t)floor(r->pos), f;
    if (want == r->frame)
        return 0;
    if (view_rdb_seek(r->db, want, 0, &f, why) != 0) {
        replay_fail(s, why);
        return -1;
    }
    return show(s, f);
}

/* Step to the next (dir 1) or previous (dir -1) recorded frame. */
static void
step(view_state *s, int dir)
{
    struct view_replay *r = s->replay;
    char why[VIEW_RDB_WHY];
    int64_t f;
    r->playing = false;
    if (view_rdb_seek(r->db, r->frame, dir, &f, why) != 0) {
        replay_fail(s, why);
        return;
    }
    r->pos = (double)f;
    show(s, f);
}

static void
jump(view_state *s, double to)
{
    struct view_replay *r = s->replay;
    r->pos = to < (double)r->first  ? (double)r->first
             : to > (double)r->last ? (double)r->last
                                    : to;
    show_pos(s);
}

int
view_replay_open(view_state *s)
{
    struct view_replay *r = calloc(1, sizeof *r);
    if (r == NULL)
        return replay_fail(s, "out of memory");
    s->replay = r;
    r->path = s->opt.replay;
    r->track_id = GC_WORLD_NO_AGENT;
    r->frame = INT64_MIN;
    char why[VIEW_RDB_WHY];
    if (view_rdb_open(&r->db, r->path, why) != 0)
        return replay_fail(s, why);
    r->first = view_rdb_first(r->db);
    r->last = view_rdb_last(r->db);
    r->fps = view_rdb_fps(r->db);
    if (s->show_velocities && !view_rdb_ours(r->db)) {
        prog_say("--show-velocities",
                 "%s is a JuPedSim file: positions only, no velocities",
                 r->path);
        return VIEW_EXIT_USAGE;
    }
    int64_t f = r->first;
    if (s->opt.frame >= 0) {
        int has = view_rdb_has(r->db, s->opt.frame, why);
        if (has < 0)
            return replay_fail(s, why);
        if (has == 0) {
            prog_say("--frame",
                     "%lld is not a frame of %s (its frames are %lld to "
                     "%lld)",
                     (long long)s->opt.frame, r->path, (long long)r->first,
                     (long long)r->last);
            return VIEW_EXIT_USAGE;
        }
        f = s->opt.frame;
    }
    r->pos = (double)f;
    if (show(s, f) != 0)
        return VIEW_EXIT_REPLAY;
    /* The recording's name stands where the daemon's would. */
    const char *base = strrchr(r->path, '/');
    snprintf(s->conn.shown, sizeof s->conn.shown, "%s",
             base != NULL ? base + 1 : r->path);
    if (s->opt.select_agent >= 0) {
        s->sel = (uint32_t)s->opt.select_agent;
        s->sel_gen = 0;
        s->opt.select_agent = -1;
    }
    return -1;
}

void
view_replay_close(view_state *s)
{
    struct view_replay *r = s->replay;
    if (r == NULL)
        return;
    view_rdb_close(r->db);
    free(r->track);
    free(r->track_frames);
    free(r->v);
    free(r->ix);
    free(r);
    s->replay = NULL;
}

/*
 * A JuPedSim file records no goals: the selected agent's goal ring goes
 * where its trajectory ends, where it was going.
 */
static void
goal_from_track(view_state *s)
{
    struct view_replay *r = s->replay;
    view_conn *c = &s->conn;
    long i = s->sel == GC_WORLD_NO_AGENT ? -1 : view_conn_find(c, s->sel);
    if (view_rdb_ours(r->db) || i < 0 || r->track_id != s->sel ||
        r->ntrack == 0 || !(c->cell_size > 0))
        return;
    c->agents[i].goal_x =
        (int32_t)floorf(r->track[r->ntrack - 1].x / c->cell_size);
    c->agents[i].goal_y =
        (int32_t)floorf(r->track[r->ntrack - 1].y / c->cell_size);
}

/* Read the selected agent's trajectory when the selection changed. */
static void
sync_track(view_state *s)
{
    struct view_replay *r = s->replay;
    goal_from_track(s);
    if (s->sel == r->track_id)
        return;
    free(r->track);
    free(r->track_frames);
    r->track = NULL;
    r->track_frames = NULL;
    r->ntrack = 0;
    r->track_id = s->sel;
    if (s->sel == GC_WORLD_NO_AGENT)
        return;
    char why[VIEW_RDB_WHY];
    if (view_rdb_track(r->db, s->sel, &r->track, &r->track_frames, &r->ntrack,
                       why) != 0)
        replay_fail(s, why);
    goal_from_track(s);
}

/* ---- Status, help ------------------------------------------------------- */

void
view_replay_status(const view_state *s, char *buf, size_t n)
{
    const struct view_replay *r = s->replay;
    char speed[16], fps[32] = "";
    if (r->speed_exp >= 0)
        snprintf(speed, sizeof speed, "x%d", 1 << r->speed_exp);
    else
        snprintf(speed, sizeof speed, "x1/%d", 1 << -r->speed_exp);
    if (s->fps > 0)
        snprintf(fps, sizeof fps, " | %.0f fps", s->fps);
    snprintf(buf, n,
             "replay %s | frame %lld of %lld..%lld | tick %llu | %.2f s | %zu "
             "agents | %s %s%s",
             s->conn.shown, (long long)r->frame, (long long)r->first,
             (long long)r->last, (unsigned long long)s->conn.tick,
             (double)r->frame / r->fps, s->conn.nagents,
             r->playing ? "playing" : "paused", speed, fps);
}

static const char *const help_lines[] = {
    "space        play / pause",
    "right, left  one frame forward / back (pauses)",
    "up, down     play faster / slower (x2, x1/2)",
    "Home, End    first / last frame",
    "PgUp, PgDn   10 recorded seconds back / forward",
    "slider       drag along the bottom edge to scrub",
    "click        select an agent: its whole trajectory",
    "wheel, drag  zoom, pan; f fits the map",
    "p            every agent's path (none in a recording)",
    "v            every agent's velocity (none in a JuPedSim file)",
    "o            overlay on/off",
    "s            save the window as gridcrowd-view-TICK.bmp",
    "h            this help",
    "q, Escape    quit",
};

const char *const *
view_replay_help(size_t *n)
{
    *n = sizeof help_lines / sizeof help_lines[0];
    return help_lines;
}

/* ---- Input -------------------------------------------------------------- */

/* The slider's track, in window pixels. */
static void
bar_rect(const view_state *s, float *x0, float *x1, float *y0, float *y1)
{
    *x0 = 8;
    *x1 = (float)s->win_w - 8;
    *y1 = (float)s->win_h - 3;
    *y0 = *y1 - (VIEW_REPLAY_BAR_H - 6);
}

static bool
on_bar(const view_state *s, int x, int y)
{
    return s->show_overlay && y >= s->win_h - VIEW_REPLAY_BAR_H && x >= 0 &&
           x < s->win_w;
}

static void
scrub_to(view_state *s, int x)
{
    struct view_replay *r = s->replay;
    float x0, x1, y0, y1;
    bar_rect(s, &x0, &x1, &y0, &y1);
    double t = ((double)x - x0) / (x1 - x0);
    t = t < 0 ? 0 : t > 1 ? 1 : t;
    r->playing = false;
    jump(s, (double)r->first + t * (double)(r->last - r->first) + 0.5);
}

/* The replay's own keys and the slider; true when the event is taken. */
static bool
replay_event(view_state *s, const SDL_Event *e)
{
    struct view_replay *r = s->replay;
    switch (e->type) {
    case SDL_KEYDOWN:
        switch (e->key.keysym.sym) {
        case SDLK_SPACE:
            if (!r->playing && r->frame >= r->last)
                jump(s, (double)r->first); /* play again from the start */
            r->playing = !r->playing;
            return true;
        case SDLK_RIGHT:
        case SDLK_PERIOD:
            step(s, 1);
            return true;
        case SDLK_LEFT:
        case SDLK_COMMA:
            step(s, -1);
            return true;
        case SDLK_UP:
        case SDLK_RIGHTBRACKET:
            r->speed_exp += r->speed_exp < SPEED_MAX;
            return true;
        case SDLK_DOWN:
        case SDLK_LEFTBRACKET:
            r->speed_exp -= r->speed_exp > SPEED_MIN;
            return true;
        case SDLK_HOME:
            jump(s, (double)r->first);
            return true;
        case SDLK_END:
            jump(s, (double)r->last);
            return true;
        case SDLK_PAGEUP:
            jump(s, floor(r->pos) - PAGE_SECONDS * r->fps);
            return true;
        case SDLK_PAGEDOWN:
            jump(s, floor(r->pos) + PAGE_SECONDS * r->fps);
            return true;
        case SDLK_t:
            view_message(s, false, "a recording holds no search traces");
            return true;
        case SDLK_v: /* ours records them: the live key draws them */
            if (view_rdb_ours(r->db))
                return false;
            view_message(s, false, "a JuPedSim file holds no velocities");
            return true;
        default:
            return false;
        }
    case SDL_MOUSEBUTTONDOWN:
        if (e->button.button == SDL_BUTTON_LEFT && s->press_button == 0 &&
            on_bar(s, e->button.x, e->button.y)) {
            r->scrubbing = true;
            scrub_to(s, e->button.x);
            return true;
        }
        return false;
    case SDL_MOUSEMOTION:
        if (r->scrubbing) {
            scrub_to(s, e->motion.x);
            return true;
        }
        return false;
    case SDL_MOUSEBUTTONUP:
        if (r->scrubbing && e->button.button == SDL_BUTTON_LEFT) {
            r->scrubbing = false;
            return true;
        }
        return false;
    default:
        return false;
    }
}

/* ---- Drawing ------------------------------------------------------------ */

static bool
track_reserve(struct view_replay *r, size_t segs)
{
    if (segs <= r->vcap)
        return true;
    SDL_Vertex *v = realloc(r->v, segs * 4 * sizeof *v);
    if (v == NULL)
        return false;
    r->v = v;
    int *ix = realloc(r->ix, segs * 6 * sizeof *ix);
    if (ix == NULL)
        return false;
    r->ix = ix;
    r->vcap = segs;
    return true;
}

int
view_replay_draw_track(struct view_draw *d, const view_state *s)
{
    struct view_replay *r = s->replay;
    if (s->sel == GC_WORLD_NO_AGENT || r->track_id != s->sel || r->ntrack < 2 ||
        !track_reserve(r, r->ntrack))
        return 0;
    float cs = s->conn.cell_size > 0 ? s->conn.cell_size : 1;
    float w = (float)(s->cam.zoom * 0.05);
    w = w < 2 ? 2 : w > 4 ? 4 : w;
    SDL_Color past = view_ink, future = {0x10, 0x10, 0x10, 0x60};
    int nv = 0, ni = 0;
    for (size_t i = 0; i + 1 < r->ntrack; i++) {
        float x0 = (float)(s->cam.ox + r->track[i].x / cs * s->cam.zoom);
        float y0 = (float)(s->cam.oy + r->track[i].y / cs * s->cam.zoom);
        float x1 = (float)(s->cam.ox + r->track[i + 1].x / cs * s->cam.zoom);
        float y1 = (float)(s->cam.oy + r->track[i + 1].y / cs * s->cam.zoom);
        float dx = x1 - x0, dy = y1 - y0, len = sqrtf(dx * dx + dy * dy);
        if (len < 1e-3f)
            continue;
        float nx = -dy / len * w / 2, ny = dx / len * w / 2;
        /* A segment is past once the frame shown has reached its end. */
        SDL_Color c = r->track_frames[i + 1] <= r->frame ? past : future;
        r->v[nv] = (SDL_Vertex){{x0 + nx, y0 + ny}, c, {0, 0}};
        r->v[nv + 1] = (SDL_Vertex){{x1 + nx, y1 + ny}, c, {0, 0}};
        r->v[nv + 2] = (SDL_Vertex){{x1 - nx, y1 - ny}, c, {0, 0}};
        r->v[nv + 3] = (SDL_Vertex){{x0 - nx, y0 - ny}, c, {0, 0}};
        int q[6] = {nv, nv + 1, nv + 2, nv, nv + 2, nv + 3};
        memcpy(r->ix + ni, q, sizeof q);
        nv += 4;
        ni += 6;
    }
    if (ni == 0)
        return 0;
    SDL_SetRenderDrawBlendMode(d->r, SDL_BLENDMODE_BLEND);
    return SDL_RenderGeometry(d->r, NULL, r->v, nv, r->ix, ni);
}

void
view_replay_draw_bar(struct view_draw *d, const view_state *s)
{
    const struct view_replay *r = s->replay;
    if (!s->show_overlay)
        return;
    float x0, x1, y0, y1;
    bar_rect(s, &x0, &x1, &y0, &y1);
    double span = (double)(r->last - r->first);
    float t = span > 0 ? (float)((double)(r->frame - r->first) / span) : 1;
    float kx = x0 + t * (x1 - x0);
    SDL_SetRenderDrawBlendMode(d->r, SDL_BLENDMODE_BLEND);
    SDL_SetRenderDrawColor(d->r, 0x10, 0x12, 0x16, 0xc8);
    SDL_FRect bg = {x0 - 5, y0 - 3, x1 - x0 + 10, y1 - y0 + 6};
    SDL_RenderFillRectF(d->r, &bg);
    SDL_SetRenderDrawColor(d->r, 0x70, 0x70, 0x70, 0xff);
    SDL_FRect track = {x0, (y0 + y1) / 2 - 1, x1 - x0, 3};
    SDL_RenderFillRectF(d->r, &track);
    SDL_SetRenderDrawColor(d->r, 0x1e, 0x66, 0xf5, 0xff);
    SDL_FRect done = {x0, (y0 + y1) / 2 - 1, kx - x0, 3};
    SDL_RenderFillRectF(d->r, &done);
    SDL_SetRenderDrawColor(d->r, 0xf0, 0xf0, 0xf0, 0xff);
    SDL_FRect knob = {kx - 3, y0, 6, y1 - y0};
    SDL_RenderFillRectF(d->r, &knob);
}

/* ---- Running ------------------------------------------------------------ */

/* The off-screen canvas of --screenshot and --bench-frames, refused past
 * the screenshot limits. */
static int
offscreen(view_state *s, view_canvas *c)
{
    int w, h;
    memset(c, 0, sizeof *c);
    view_initial(s, true, &w, &h);
    if (w > VIEW_SHOT_MAX_SIDE || h > VIEW_SHOT_MAX_SIDE ||
        (long)w * h > VIEW_SHOT_MAX_PIXELS) {
        prog_say("--scale",
                 "the picture would be %dx%d pixels; the most is %ld a side "
                 "and %ld in all",
                 w, h, VIEW_SHOT_MAX_SIDE, VIEW_SHOT_MAX_PIXELS);
        return VIEW_EXIT_USAGE;
    }
    return view_canvas_offscreen(c, w, h);
}

static int
run_screenshot(view_state *s)
{
    view_canvas c;
    int status = offscreen(s, &c);
    if (status != VIEW_EXIT_OK)
        goto out;
    /* As a live screenshot's frames follow the running world, each one
     * after the first is the next recorded frame (the last stays). */
    for (int i = 0; i < s->opt.frames; i++) {
        s->now = now_s();
        if (i > 0 && s->replay->frame < s->replay->last)
            step(s, 1);
        sync_track(s);
        if (s->replay->failed) {
            status = VIEW_EXIT_REPLAY;
            goto out;
        }
        if (view_draw_frame(c.d, s) != 0) {
            status = view_sdl_fail("drawing");
            goto out;
        }
    }
    status = view_canvas_save(&c, s->opt.screenshot);
out:
    view_canvas_free(&c);
    return status;
}

/* --bench-frames N: read and draw N frames off screen, each the next one
 * recorded (from the first again after the last), and print the rate. */
static int
run_bench(view_state *s)
{
    struct view_replay *r = s->replay;
    view_canvas c;
    int status = offscreen(s, &c);
    if (status != VIEW_EXIT_OK)
        goto out;
    size_t agents = 0;
    double t0 = now_s(), reading = 0;
    for (long i = 0; i < s->opt.bench_frames; i++) {
        double tr = now_s();
        if (i > 0 && r->frame >= r->last)
            show(s, r->first);
        else if (i > 0)
            step(s, 1);
        reading += now_s() - tr;
        if (r->failed) {
            status = VIEW_EXIT_REPLAY;
            goto out;
        }
        s->now = now_s();
        if (view_draw_frame(c.d, s) != 0) {
            status = view_sdl_fail("drawing");
            goto out;
        }
        SDL_RenderPresent(c.r);
        agents += s->conn.nagents;
    }
    double secs = now_s() - t0;
    printf(PROG ": replay: %ld frames in %.3f s: %.1f frames/s (%.2f ms "
                "reading, %.2f ms drawing a frame; %.0f agents a frame, %dx%d "
                "map, %dx%d pixels, off screen, software renderer)\n",
           s->opt.bench_frames, secs, (double)s->opt.bench_frames / secs,
           1e3 * reading / (double)s->opt.bench_frames,
           1e3 * (secs - reading) / (double)s->opt.bench_frames,
           (double)agents / (double)s->opt.bench_frames, (int)s->conn.width,
           (int)s->conn.height, s->win_w, s->win_h);
out:
    view_canvas_free(&c);
    return status;
}

static void
set_title(SDL_Window *win, const view_state *s)
{
    char t[1024];
    view_replay_status(s, t, sizeof t);
    SDL_SetWindowTitle(win, t);
}

static int
run_window(view_state *s)
{
    struct view_replay *r = s->replay;
    int w, h, status = VIEW_EXIT_OK;
    view_initial(s, false, &w, &h);
    view_canvas c;
    if ((status = view_canvas_window(&c, w, h)) != VIEW_EXIT_OK)
        goto out;
    double last = now_s(), fps_t0 = last, title_at = 0;
    long fps_frames = 0;
    while (!s->quit && !r->failed) {
        double t0 = now_s();
        s->now = t0;
        SDL_Event e;
        while (SDL_PollEvent(&e))
            if (!replay_event(s, &e))
                view_input_event(s, &e);
        if (s->quit || r->failed)
            break;
        if (r->playing) {
            r->pos += (t0 - last) * r->fps * ldexp(1.0, r->speed_exp);
            if (r->pos >= (double)r->last) {
                r->pos = (double)r->last;
                r->playing = false;
            }
            if (show_pos(s) != 0)
                break;
        }
        last = t0;
        sync_track(s);
        if (r->failed)
            break;
        if (SDL_GetWindowFlags(c.win) & SDL_WINDOW_MINIMIZED) {
            SDL_Delay(100);
            continue;
        }
        int ow, oh;
        if (SDL_GetRendererOutputSize(c.r, &ow, &oh) == 0) {
            s->win_w = ow;
            s->win_h = oh;
        }
        if ((status = view_canvas_show(&c, s)) != VIEW_EXIT_OK)
            break;
        fps_frames++;
        double t = now_s();
        if (t - fps_t0 >= 1.0) {
            s->fps = (double)fps_frames / (t - fps_t0);
            fps_t0 = t;
            fps_frames = 0;
        }
        if (t >= title_at) {
            set_title(c.win, s);
            title_at = t + 0.5;
        }
        if (s->opt.fps > 0) {
            double left = t0 + 1.0 / s->opt.fps - now_s();
            if (left > 0)
                SDL_Delay((Uint32)(left * 1000));
        }
    }
    if (r->failed)
        status = VIEW_EXIT_REPLAY;
out:
    view_canvas_free(&c);
    return status;
}

int
view_replay_run(view_state *s)
{
    if (s->opt.screenshot != NULL)
        return run_screenshot(s);
    if (s->opt.bench_frames > 0)
        return run_bench(s);
    return run_window(s);
}
