/*
 * gridcrowd-view.c: the SDL2 live viewer of a running gridcrowd daemon.
 *
 * main parses the options, attaches (view_conn.c), opens a window or an
 * off-screen surface and runs the frame loop: events (view_input.c), the
 * connection (lost daemon -> wait and reattach every VIEW_POLL_S), a fresh
 * copy of the world, a frame (view_draw.c).  The loop never waits on the
 * daemon: reads are lock-free copies and edits time out after a couple of
 * milliseconds.
 */
#include "config.h"

#include "view.h"
#include "view_replay.h"

#include "prog.h"

#include <gridcrowd/util.h>
#include <gridcrowd/version.h>

#include <getopt.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#define PROG "gridcrowd-view"
/* How long --screenshot waits for the daemon's first snapshot. */
#define SNAPSHOT_WAIT_S 10.0
/* How long a screenshot then waits for the selected agent's whole path. */
#define PATH_WAIT_S 2.0
/* The most --frame and --bench-frames take: far past any run, and exact
 * as prog_number's double. */
#define MAX_COUNT 1e15

static const char usage_text[] =
    "usage: " PROG " [--shm NAME] [--scale PIXELS] [--fps N] "
    "[--exit-on-detach]\n"
    "       [--screenshot FILE.bmp [--frames N]] [--bench-frames N]\n"
    "       [--show-paths] [--show-velocities] [--select AGENT] "
    "[--trace AGENT]\n"
    "       [--log-attach]\n"
    "       " PROG " --replay FILE.sqlite [--frame N] [--scale PIXELS] "
    "[--fps N]\n"
    "       [--screenshot FILE.bmp [--frames N]] [--bench-frames N] "
    "[--select AGENT]\n";

static const char help_text[] =
    "Watch a running gridcrowd daemon: cells in their type colours, agents\n"
    "as discs coloured by state with a heading mark, the selected agent's\n"
    "path and the trace of its last search.\n"
    "\n"
    "  --shm NAME         the daemon's world (default " GC_WORLD_DEFAULT_NAME
    ")\n"
    "  --scale PIXELS     pixels per cell (default: the largest that fits\n"
    "                     the screen, at most 1600x1000, at least 1)\n"
    "  --fps N            frames per second, 0 uncapped (default 60)\n"
    "  --exit-on-detach   exit 0 when the daemon stops, instead of waiting\n"
    "                     for it to start again\n"
    "  --screenshot FILE.bmp  render without a window, write the last\n"
    "                     frame as a BMP and exit (at most 16384 pixels a\n"
    "                     side and 67108864 in all)\n"
    "  --frames N         frames rendered for --screenshot (default 1)\n"
    "  --bench-frames N   render N frames uncapped, print frames per second\n"
    "                     and exit\n"
    "  --show-paths       start with every agent's path shown (key p;\n"
    "                     not with --replay: a recording has no paths)\n"
    "  --show-velocities  start with every agent's velocity shown (key v;\n"
    "                     with --replay, as recorded; not for a JuPedSim\n"
    "                     file: it has none)\n"
    "  --select AGENT     select AGENT (as a click on it does)\n"
    "  --trace AGENT      select AGENT and show its trace (key t)\n"
    "  --log-attach       print a line on stderr at each attach and detach\n"
    "  --replay FILE.sqlite  play a recording (gridcrowdd --record, or a\n"
    "                     JuPedSim trajectory file: positions only) instead\n"
    "                     of watching a daemon\n"
    "  --frame N          with --replay: start at recorded frame N (the\n"
    "                     frame --screenshot draws; default the first;\n"
    "                     with --frames N it draws N recorded frames from\n"
    "                     there and saves the last)\n"
    "                     --bench-frames with --replay reads and draws N\n"
    "                     frames off screen and prints frames per second\n"
    "  --help, --version\n"
    "\n"
    "Mouse: wheel zooms around the pointer, drag pans, click selects an\n"
    "agent, right click sends the selected agent there, shift-drag paints\n"
    "obstacles, ctrl-drag paints walkable cells.\n"
    "Keys: p paths, v velocities, t trace, a spawn an agent at the\n"
    "pointer, space freeze, f fit, o overlay, h help, s save the window\n"
    "as gridcrowd-view-TICK.bmp, + and - zoom, q or Escape quit.\n"
    "Replay keys: space play/pause, right/left a frame forward/back, up/down\n"
    "faster/slower, Home/End first/last frame, PageUp/PageDown 10 recorded\n"
    "seconds back/forward; drag the slider at the bottom to scrub; click an\n"
    "agent to draw its whole trajectory.\n"
    "\n"
    "Exit codes: 0 done; 1 no daemon, or attaching was refused; 2 bad\n"
    "arguments; 3 no display to open a window on, or SDL could not open a\n"
    "window, draw or save; 4 --replay: the file is missing, not a\n"
    "recording (gridcrowd or JuPedSim), truncated, corrupt, or lacks a\n"
    "table (one line names the file and why).\n";

static double
now_s(void)
{
    return (double)gc_clock_ns() * 1e-9;
}

/*
 * Whether a screenshot may be written under this name.  SDL alone writes
 * only BMP, and a BMP under another name (x.png) misleads whoever opens it,
 * so the name must end in ".bmp" (any case) after at least one character.
 */
static bool
bmp_name(const char *path)
{
    const char *base = strrchr(path, '/');
    base = base != NULL ? base + 1 : path;
    size_t n = strlen(base);
    return n > 4 && strcasecmp(base + n - 4, ".bmp") == 0;
}

/* The options that depend on others; -1 when they fit together. */
static int
check_combinations(view_opts *o, bool frames_given, bool fps_given)
{
    if (o->frame >= 0 && o->replay == NULL) {
        prog_say("--frame", "only with --replay");
        return VIEW_EXIT_USAGE;
    }
    if (o->replay != NULL) {
        /* What needs a daemon. */
        const char *bad = o->shm != NULL      ? "--shm"
                          : o->exit_on_detach ? "--exit-on-detach"
                          : o->log_attach     ? "--log-attach"
                          : o->trace          ? "--trace"
                                              : NULL;
        if (bad != NULL) {
            prog_say(bad, "needs a daemon; it does not mix with --replay");
            return VIEW_EXIT_USAGE;
        }
        /* What a recording does not hold: no paths (the drawing would
         * silently show nothing).  Velocities are in gridcrowd's
         * recordings; view_replay_open refuses them for a JuPedSim file. */
        if (o->show_paths) {
            prog_say("--show-paths", "a recording holds none; it does not mix "
                                     "with --replay");
            return VIEW_EXIT_USAGE;
        }
    }
    if (frames_given && o->screenshot == NULL) {
        prog_say("--frames", "only with --screenshot");
        return VIEW_EXIT_USAGE;
    }
    if (o->bench_frames > 0 && o->screenshot != NULL) {
        prog_msg("--bench-frames and --screenshot do not mix");
        return VIEW_EXIT_USAGE;
    }
    /* A benchmark measures the drawing, not the frame cap. */
    if (o->bench_frames > 0 && !fps_given)
        o->fps = 0;
    return -1;
}

static int
parse_args(int argc, char **argv, view_opts *o)
{
    enum {
        O_SHM = 256,
        O_SCALE,
        O_FPS,
        O_EXIT,
        O_SHOT,
        O_FRAMES,
        O_BENCH,
        O_PATHS,
        O_VELOCITIES,
        O_SELECT,
        O_TRACE,
        O_LOG,
        O_REPLAY,
        O_FRAME,
        O_HELP,
        O_VERSION
    };
    static const struct option longs[] = {
        {"shm", required_argument, NULL, O_SHM},
        {"scale", required_argument, NULL, O_SCALE},
        {"fps", required_argument, NULL, O_FPS},
        {"exit-on-detach", no_argument, NULL, O_EXIT},
        {"screenshot", required_argument, NULL, O_SHOT},
        {"frames", required_argument, NULL, O_FRAMES},
        {"bench-frames", required_argument, NULL, O_BENCH},
        {"show-paths", no_argument, NULL, O_PATHS},
        {"show-velocities", no_argument, NULL, O_VELOCITIES},
        {"select", required_argument, NULL, O_SELECT},
        {"trace", required_argument, NULL, O_TRACE},
        {"log-attach", no_argument, NULL, O_LOG},
        {"replay", required_argument, NULL, O_REPLAY},
        {"frame", required_argument, NULL, O_FRAME},
        {"help", no_argument, NULL, O_HELP},
        {"version", no_argument, NULL, O_VERSION},
        {NULL, 0, NULL, 0}};
    bool frames_given = false, fps_given = false;
    long selected = -1, traced = -1; /* --select's and --trace's agents */
    double v;
    int c;
    opterr = 0;
    while ((c = getopt_long(argc, argv, ":", longs, NULL)) != -1) {
        switch (c) {
        case O_SHM:
            o->shm = optarg;
            break;
        case O_SCALE:
            if (!prog_number("--scale", optarg, 1, 1024, true, &v))
                return VIEW_EXIT_USAGE;
            o->scale = (int)v;
            break;
        case O_FPS:
            if (!prog_number("--fps", optarg, 0, 1000, true, &v))
                return VIEW_EXIT_USAGE;
            o->fps = (int)v;
            fps_given = true;
            break;
        case O_EXIT:
            o->exit_on_detach = true;
            break;
        case O_SHOT:
            if (!bmp_name(optarg)) {
                prog_say("--screenshot",
                         "%s: only BMP is written; give a name ending in .bmp",
                         optarg);
                return VIEW_EXIT_USAGE;
            }
            o->screenshot = optarg;
            break;
        case O_FRAMES:
            if (!prog_number("--frames", optarg, 1, 100000, true, &v))
                return VIEW_EXIT_USAGE;
            o->frames = (int)v;
            frames_given = true;
            break;
        case O_BENCH:
            if (!prog_number("--bench-frames", optarg, 1, MAX_COUNT, true, &v))
                return VIEW_EXIT_USAGE;
            o->bench_frames = (long)v;
            break;
        case O_PATHS:
            o->show_paths = true;
            break;
        case O_VELOCITIES:
            o->show_velocities = true;
            break;
        case O_SELECT:
        case O_TRACE:
            if (!prog_number(c == O_TRACE ? "--trace" : "--select", optarg, 0,
                             GC_WORLD_MAX_AGENTS - 1, true, &v))
                return VIEW_EXIT_USAGE;
            *(c == O_TRACE ? &traced : &selected) = (long)v;
            break;
        case O_LOG:
            o->log_attach = true;
            break;
        case O_REPLAY:
            o->replay = optarg;
            break;
        case O_FRAME:
            if (!prog_number("--frame", optarg, 0, MAX_COUNT, true, &v))
                return VIEW_EXIT_USAGE;
            o->frame = (long)v;
            break;
        case O_HELP:
            printf("%s\n%s", usage_text, help_text);
            exit(VIEW_EXIT_OK);
        case O_VERSION:
            printf(PROG " (gridcrowd) %s\n", gc_version());
            exit(VIEW_EXIT_OK);
        default:
            return prog_bad_option(VIEW_EXIT_USAGE, c, argv, longs);
        }
    }
    if (optind < argc)
        return prog_usage(VIEW_EXIT_USAGE, "unexpected argument '%s'",
                          argv[optind]);
    /* --trace selects the agent it traces: with --select too, one. */
    if (traced >= 0 && selected >= 0 && traced != selected) {
        prog_msg("--select %ld and --trace %ld name two agents; --trace "
                 "selects the one it traces",
                 selected, traced);
        return VIEW_EXIT_USAGE;
    }
    o->trace = traced >= 0;
    if (traced >= 0 || selected >= 0)
        o->select_agent = traced >= 0 ? traced : selected;
    return check_combinations(o, frames_given, fps_given);
}

static void
log_attach(const view_state *s)
{
    if (!s->opt.log_attach)
        return;
    if (s->conn.can_edit)
        prog_msg("attached to %s (pid %ld)", s->conn.shown, s->conn.pid);
    else
        prog_msg("attached to %s (pid %ld), read-only: %s", s->conn.shown,
                 s->conn.pid, s->conn.edit_why);
}

/* Forget painted cells the daemon now shows, or that it never applied. */
static void
prune_paint(view_state *s)
{
    const view_conn *c = &s->conn;
    size_t k = 0;
    for (size_t i = 0; i < s->npaint; i++) {
        const view_paint *p = &s->paint[i];
        bool done =
            c->cells_valid && p->x < c->width && p->y < c->height &&
            c->cells[(size_t)p->y * (size_t)c->width + (size_t)p->x] == p->type;
        if (!done && s->now - p->when < 2.0)
            s->paint[k++] = *p;
    }
    s->npaint = k;
}

/*
 * One step of the connection: notice a lost daemon, look for a new one,
 * refresh the copies.  Returns false when the viewer should exit (lost
 * daemon with --exit-on-detach).
 */
static bool
step_connection(view_state *s, double *next_attach)
{
    view_conn *c = &s->conn;
    if (c->w != NULL && view_conn_lost(c, s->now)) {
        if (s->opt.log_attach)
            prog_msg("detached from %s: daemon stopped", c->shown);
        view_conn_close(c);
        s->trace_sent = false;
        if (s->opt.exit_on_detach)
            return false;
        *next_attach = s->now + VIEW_POLL_S;
    } else if (c->w == NULL && s->now >= *next_attach) {
        *next_attach = s->now + VIEW_POLL_S;
        int32_t w = c->width, h = c->height;
        gc_error err;
        if (view_conn_open(c, &err) == GC_OK) {
            log_attach(s);
            if (w != c->width || h != c->height)
                view_fit(s);
            view_sync_trace(s);
        }
    }
    if (c->w != NULL) {
        view_conn_refresh(c, s->frozen, s->show_trace,
                          s->sel != GC_WORLD_NO_AGENT);
        /* --select or --trace AGENT: once the snapshot shows it. */
        long i = s->opt.select_agent < 0
                     ? -1
                     : view_conn_find(c, (uint32_t)s->opt.select_agent);
        if (i >= 0) {
            s->show_trace = s->show_trace || s->opt.trace;
            view_select(s, c->agents[i].id, c->agents[i].salt);
            s->opt.select_agent = -1;
            view_conn_refresh(c, s->frozen, s->show_trace, true);
        }
    }
    prune_paint(s);
    return true;
}

static void
set_title(SDL_Window *win, const view_state *s)
{
    char t[1024];
    const view_conn *c = &s->conn;
    if (c->w == NULL)
        snprintf(t, sizeof t, PROG ": waiting for daemon %s", c->shown);
    else
        snprintf(t, sizeof t,
                 PROG ": %s | tick %llu | %.1f ticks/s | %zu agents | %.0f "
                      "fps%s%s%s%s",
                 c->shown, (unsigned long long)c->tick, c->stats.ticks_per_s,
                 c->nagents, s->fps, s->frozen ? " | frozen" : "",
                 c->can_edit ? "" : " | read-only",
                 s->msg[0] != '\0' && s->now < s->msg_until ? " | " : "",
                 s->msg[0] != '\0' && s->now < s->msg_until ? s->msg : "");
    SDL_SetWindowTitle(win, t);
}

/* Sleep what is left of this frame's share of a second. */
static void
pace(const view_state *s, double frame_start)
{
    int fps = s->opt.fps;
    if (s->conn.w == NULL && (fps == 0 || fps > 20))
        fps = 20; /* nothing moves while waiting */
    if (fps == 0)
        return;
    double left = frame_start + 1.0 / fps - now_s();
    if (left > 0)
        SDL_Delay((Uint32)(left * 1000));
}

/*
 * Whether SDL found a display a window can be seen on.  With no display
 * (no DISPLAY, or one nobody answers at) SDL 2.26 falls back to its
 * offscreen driver by itself, and the window would be drawn where nobody
 * can see it until the viewer is killed: say so and give up instead (exit
 * 3, as the help says).  A driver the user chose in SDL_VIDEODRIVER is
 * theirs to choose, the tests' dummy driver included.
 */
static bool
display_usable(void)
{
    const char *drv = SDL_GetCurrentVideoDriver();
    if (getenv("SDL_VIDEODRIVER") != NULL || drv == NULL ||
        (strcmp(drv, "offscreen") != 0 && strcmp(drv, "dummy") != 0))
        return true;
    const char *display = getenv("DISPLAY");
    if (display == NULL || *display == '\0')
        prog_say("no display to open a window on",
                 "DISPLAY is not set (--screenshot FILE.bmp draws without "
                 "one)");
    else
        prog_say("no display to open a window on",
                 "cannot open DISPLAY '%s' (--screenshot FILE.bmp draws "
                 "without one)",
                 display);
    return false;
}

/* Whether the selected agent's whole path has been asked for and has not
 * arrived: a screenshot waits for it rather than draw the record's first
 * 8 waypoints.  (A read-only viewer cannot ask, and draws those.) */
static bool
path_pending(const view_state *s)
{
    const gc_world_path_info *pi = &s->conn.path_info;
    return s->sel != GC_WORLD_NO_AGENT && s->trace_sent &&
           !(pi->seq > 0 && pi->agent == s->sel);
}

static int
run_screenshot(view_state *s)
{
    int w, h, status = VIEW_EXIT_OK;
    view_initial(s, true, &w, &h);
    if (w > VIEW_SHOT_MAX_SIDE || h > VIEW_SHOT_MAX_SIDE ||
        (long)w * h > VIEW_SHOT_MAX_PIXELS) {
        /* Only --scale makes a map of up to 8192x8192 cells too big. */
        char what[32] = "";
        if (s->opt.scale > 0)
            snprintf(what, sizeof what, "--scale %d", s->opt.scale);
        prog_say(what,
                 "the screenshot would be %dx%d pixels; the most is %ld a "
                 "side and %ld in all (a %dx%d map at %s)",
                 w, h, VIEW_SHOT_MAX_SIDE, VIEW_SHOT_MAX_PIXELS,
                 (int)s->conn.width, (int)s->conn.height,
                 s->opt.scale > 0 ? "this scale: use a smaller --scale"
                                  : "1 pixel a cell");
        return VIEW_EXIT_USAGE;
    }
    view_canvas c;
    if ((status = view_canvas_offscreen(&c, w, h)) != VIEW_EXIT_OK)
        goto out;
    /* Give a daemon that has just started time to publish a snapshot. */
    double next_attach = 0, give_up = now_s() + SNAPSHOT_WAIT_S;
    double path_since = 0; /* when the snapshot came */
    for (;;) {
        s->now = now_s();
        step_connection(s, &next_attach);
        bool snap = s->conn.w != NULL && s->conn.snap_seq > 0 &&
                    s->conn.snap_seq != UINT64_MAX;
        /* A daemon publishes the path with its next snapshot: a path that
         * does not come soon is not coming (a copy of a world, a stalled
         * daemon), and the record's waypoints will do. */
        if (snap && path_since == 0)
            path_since = s->now;
        if (snap && (!path_pending(s) || s->now > path_since + PATH_WAIT_S))
            break;
        if (s->now > give_up) {
            if (!snap)
                prog_msg("%s: no agent snapshot after %.0f s; drawing the "
                         "cells only",
                         s->conn.shown, SNAPSHOT_WAIT_S);
            break;
        }
        SDL_Delay(10);
    }
    for (int i = 0; i < s->opt.frames; i++) {
        double t0 = now_s();
        s->now = t0;
        if (i > 0)
            step_connection(s, &next_attach);
        if (view_draw_frame(c.d, s) != 0) {
            status = view_sdl_fail("drawing");
            goto out;
        }
        if (i + 1 < s->opt.frames)
            pace(s, t0);
    }
    status = view_canvas_save(&c, s->opt.screenshot);
out:
    view_canvas_free(&c);
    return status;
}

static int
run_window(view_state *s)
{
    int w, h, status = VIEW_EXIT_OK;
    view_initial(s, false, &w, &h);
    view_canvas c;
    if ((status = view_canvas_window(&c, w, h)) != VIEW_EXIT_OK)
        goto out;
    SDL_RendererInfo info;
    const char *rname = SDL_GetRendererInfo(c.r, &info) == 0 ? info.name : "?";

    double next_attach = 0, fps_t0 = now_s(), title_at = 0;
    double bench_t0 = fps_t0;
    long fps_frames = 0, frames = 0;
    while (!s->quit) {
        double t0 = now_s();
        s->now = t0;
        SDL_Event e;
        while (SDL_PollEvent(&e))
            view_input_event(s, &e);
        if (s->quit)
            break;
        if (SDL_GetWindowFlags(c.win) & SDL_WINDOW_MINIMIZED) {
            /* Keep noticing the daemon, draw nothing. */
            if (!step_connection(s, &next_attach))
                break;
            SDL_Delay(100);
            continue;
        }
        int ow, oh;
        if (SDL_GetRendererOutputSize(c.r, &ow, &oh) == 0) {
            s->win_w = ow;
            s->win_h = oh;
        }
        if (!step_connection(s, &next_attach))
            break;
        if ((status = view_canvas_show(&c, s)) != VIEW_EXIT_OK)
            break;
        frames++;
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
        if (s->opt.bench_frames > 0 && frames == s->opt.bench_frames) {
            double secs = t - bench_t0;
            printf(PROG ": %ld frames in %.3f s: %.1f frames/s (%zu agents, "
                        "%dx%d map, %dx%d window, %s renderer)\n",
                   frames, secs, (double)frames / secs, s->conn.nagents,
                   (int)s->conn.width, (int)s->conn.height, s->win_w, s->win_h,
                   rname);
            break;
        }
        pace(s, t0);
    }
out:
    view_canvas_free(&c);
    return status;
}

int
main(int argc, char **argv)
{
    prog_init(PROG);
    view_state s;
    memset(&s, 0, sizeof s);
    s.opt.fps = 60;
    s.opt.frames = 1;
    s.opt.select_agent = -1;
    s.opt.frame = -1;
    int rc = parse_args(argc, argv, &s.opt);
    if (rc >= 0)
        return rc;
    s.sel = GC_WORLD_NO_AGENT;
    s.paint_type = -1;
    s.show_paths = s.opt.show_paths;
    s.show_velocities = s.opt.show_velocities;
    s.show_overlay = true;
    s.conn.name = s.opt.shm;
    s.now = now_s();

    gc_error err;
    /* Drawn off screen: a screenshot, and a replay's benchmark. */
    bool off = s.opt.screenshot != NULL ||
               (s.opt.replay != NULL && s.opt.bench_frames > 0);
    if (s.opt.replay != NULL) {
        if ((rc = view_replay_open(&s)) >= 0) {
            view_replay_close(&s);
            view_conn_free(&s.conn);
            return rc;
        }
    } else if (view_conn_open(&s.conn, &err) != GC_OK) {
        prog_msg("%s", err.msg);
        return VIEW_EXIT_NODAEMON;
    }
    log_attach(&s);

    if (off && getenv("SDL_VIDEODRIVER") == NULL)
        setenv("SDL_VIDEODRIVER", "offscreen", 1);
    SDL_SetHint(SDL_HINT_RENDER_BATCHING, "1");
    SDL_SetHint(SDL_HINT_RENDER_VSYNC, "0");
    if (SDL_Init(SDL_INIT_VIDEO) != 0 && off) {
        /* An SDL built without the offscreen driver has the dummy one. */
        setenv("SDL_VIDEODRIVER", "dummy", 1);
        rc = SDL_Init(SDL_INIT_VIDEO);
    } else {
        rc = SDL_WasInit(SDL_INIT_VIDEO) ? 0 : -1;
    }
    if (rc != 0) {
        rc = view_sdl_fail("starting SDL video");
    } else {
        if (s.opt.replay != NULL)
            rc = off || display_usable() ? view_replay_run(&s) : VIEW_EXIT_SDL;
        else if (s.opt.screenshot != NULL)
            rc = run_screenshot(&s);
        else
            rc = display_usable() ? run_window(&s) : VIEW_EXIT_SDL;
        SDL_Quit();
    }
    /* Stop asking about an agent nobody will look at. */
    if (s.trace_sent) {
        s.sel = GC_WORLD_NO_AGENT;
        view_sync_trace(&s);
    }
    view_replay_close(&s);
    view_conn_free(&s.conn);
    return rc;
}
