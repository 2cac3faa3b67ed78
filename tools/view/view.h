/*
 * view.h: what the parts of gridcrowd-view share.
 *
 * The viewer is one thread.  Each frame it handles the window's events
 * (view_input.c), refreshes its copy of the world (view_conn.c: attach,
 * reattach, copies of cells, agents, statistics and trace, edits sent to
 * the daemon), and draws that copy (view_draw.c, view_agents.c and
 * view_overlay.c, which share view_draw_int.h).  Nothing here writes the
 * world: the viewer maps it read-only and speaks to the daemon only through
 * the edit queue, with short timeouts, so a slow or dead daemon never stalls
 * a frame for long and a dead viewer leaves the daemon as it was.
 *
 * Screen and map: the camera maps cell coordinates (cells, floats; world
 * units divided by the cell size) to window pixels:
 *   screen = origin + cell * zoom
 * with zoom in pixels per cell.
 */
#ifndef GRIDCROWD_VIEW_H
#define GRIDCROWD_VIEW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <SDL.h>

#include <gridcrowd/edits.h>
#include <gridcrowd/world.h>

/* Exit codes, as documented in --help and README.md. */
enum {
    VIEW_EXIT_OK = 0,
    VIEW_EXIT_NODAEMON = 1, /* no daemon, or attaching was refused */
    VIEW_EXIT_USAGE = 2,    /* bad arguments */
    VIEW_EXIT_SDL = 3,      /* no display, or SDL could not open a window,
                               draw or save */
    VIEW_EXIT_REPLAY = 4    /* --replay: the file is missing, not a
                               recording, truncated or unreadable */
};

/* How long the viewer waits for room in the edit queue, per edit. */
#define VIEW_PUSH_TIMEOUT_NS (2 * 1000 * 1000)
/* How often a lost daemon is looked for, and a live one checked. */
#define VIEW_POLL_S 0.25

/* ---- The connection to the daemon (view_conn.c) ------------------------ */

typedef struct view_conn {
    const char *name;                  /* as given; NULL: the default */
    char shown[GC_WORLD_NAME_MAX + 2]; /* "/NAME", for messages */
    gc_world *w;                       /* NULL while detached */
    long pid;                          /* daemon of the last attach */
    bool can_edit;                     /* the edit queue is open */
    char edit_why[sizeof(((gc_error *)0)->msg)]; /* why it is not */

    /* The latest copies; they outlive a detach, so that the last picture
     * stays on screen while the viewer waits. */
    int32_t width, height; /* 0 before the first attach */
    float cell_size;
    uint8_t *cells;
    bool cells_valid;    /* cells hold `generation` of this attach */
    uint64_t generation; /* grid generation of `cells` */
    bool cells_changed;  /* set on a new copy; the drawer clears it */
    gc_world_agent *agents;
    size_t nagents, agents_cap;
    float body_radius; /* the largest body radius in `agents`, world
                          units (0: points, path followers) */
    uint64_t snap_seq; /* snapshot number of `agents` (0: none yet) */
    uint64_t tick;     /* the world's tick at the last refresh */
    gc_world_stats stats;
    gc_world_trace_event *trace; /* allocated when first wanted */
    size_t trace_cap;
    gc_world_trace_info trace_info; /* info.seq 0: none */
    bool trace_changed;             /* set on a new copy */
    /* The whole remaining path of the agent the viewer asked about (the
     * records carry 8 waypoints); allocated when first wanted. */
    gc_vec2 *path;
    size_t path_cap;
    gc_world_path_info path_info; /* info.seq 0: none */
    double next_check;              /* when owner_alive is asked next */
} view_conn;

/* Attach to the daemon `c->name`: with the edit queue when allowed, else
 * read-only (c->can_edit false, c->edit_why says why).  A daemon that is
 * stopping, or objects whose daemon is gone, count as no daemon (GC_ENOENT).
 * On failure the copies are kept and err says what is wrong.  Returns GC_OK
 * or the error of the read-only attempt. */
int view_conn_open(view_conn *c, gc_error *err);

/* Detach (the copies stay). */
void view_conn_close(view_conn *c);

/* Detach and free everything. */
void view_conn_free(view_conn *c);

/* True when the attached daemon is stopping, gone or replaced; checks its
 * pid at most every VIEW_POLL_S. */
bool view_conn_lost(view_conn *c, double now);

/* Copy what changed: statistics always; unless `frozen`, the cells when
 * the generation moved, the agent snapshot when a new one is out, the
 * trace when `trace` is true and a new one is out, and the whole path of
 * the requested agent when `path` is true and a new one is out. */
void view_conn_refresh(view_conn *c, bool frozen, bool trace, bool path);

/* Push one edit, waiting at most VIEW_PUSH_TIMEOUT_NS.  GC_EPERM without
 * edit access, GC_EINVAL while detached, else gc_edit_send's result. */
int view_conn_push(view_conn *c, gc_edit *e);

/* Index of agent `id` in the copy, or -1. */
long view_conn_find(const view_conn *c, uint32_t id);

/* ---- The viewer's state -------------------------------------------------- */

typedef struct view_opts {
    const char *shm;
    int scale; /* 0: fit the screen */
    int fps;   /* 0: uncapped */
    bool exit_on_detach;
    bool log_attach;
    const char *screenshot;
    int frames;        /* frames rendered for a screenshot */
    long bench_frames; /* 0: no benchmark */
    bool show_paths;
    bool show_velocities;
    long select_agent; /* -1: none */
    bool trace;        /* and show its trace */
    /* --replay FILE: a recording, not a daemon; --frame N: the frame it
     * shows first (-1: its first). */
    const char *replay;
    int64_t frame;
} view_opts;

typedef struct view_camera {
    double zoom;   /* pixels per cell */
    double ox, oy; /* window position of cell (0, 0)'s top-left corner */
} view_camera;

/* A cell painted by this viewer, drawn until the daemon's copy shows it. */
typedef struct view_paint {
    int32_t x, y;
    uint8_t type;
    double when;
} view_paint;

#define VIEW_PAINT_MAX 4096

typedef struct view_state {
    view_opts opt;
    view_conn conn;
    view_camera cam;
    int win_w, win_h; /* output size in pixels */
    double now;       /* seconds, monotonic, this frame */

    uint32_t sel, sel_gen; /* selected agent; GC_WORLD_NO_AGENT: none */
    bool show_paths, show_trace, frozen, show_help, show_overlay;
    bool show_velocities; /* key v: each agent's velocity as a line */
    bool quit;
    bool save_shot;  /* key s: save this frame as a BMP */
    bool trace_sent; /* the daemon was asked to trace `sel` */

    /* Mouse gesture in progress. */
    int press_button; /* 0: none */
    int press_x, press_y, last_x, last_y;
    bool dragged;
    int paint_type; /* -1: not painting */
    /* Shift and ctrl as of the last key event handled: SDL_GetModState()
     * is the state at the last pump, which may already include a release
     * queued after the click being handled. */
    SDL_Keymod mods;
    int32_t paint_cx, paint_cy;
    view_paint paint[VIEW_PAINT_MAX];
    size_t npaint;

    char msg[256]; /* transient message, shown until msg_until */
    double msg_until;
    double fps; /* frames drawn in the last second */
    /* Replaying a recording (view_replay.c) instead of watching a daemon:
     * it fills `conn`'s copies from the file, and conn.w stays NULL. */
    struct view_replay *replay;
} view_state;

/* A message in the overlay (and on stderr when `also_stderr`). */
void view_message(view_state *s, bool also_stderr, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

/* Fit the whole map in the window. */
void view_fit(view_state *s);

/* Select agent `id` (GC_WORLD_NO_AGENT: none) and ask the daemon about it
 * (view_sync_trace). */
void view_select(view_state *s, uint32_t id, uint32_t generation);

/* Ask the daemon about the selected agent (or nobody): the trace request
 * gets its searches traced and its whole path published, drawn in place of
 * the 8 waypoints of its record.  Called when the selection, the trace
 * switch or the attach change; a read-only viewer cannot ask. */
void view_sync_trace(view_state *s);

/* ---- Input (view_input.c) ------------------------------------------------ */

void view_input_event(view_state *s, const SDL_Event *e);

/* ---- Agent commands (view_command.c) -------------------------------------
 * Key a: spawn an agent at window pixel (mx, my); right click: send the
 * selected agent there.  Neither waits for the daemon. */
void view_command_spawn(view_state *s, int mx, int my);
void view_command_goal(view_state *s, int mx, int my);

/* ---- Drawing (view_draw.c, view_agents.c, view_overlay.c) ----------------
 */

typedef struct view_draw view_draw;

/* The palette, RGB. */
extern const uint8_t view_cell_rgb[GC_CELL_NTYPES][3];
extern const uint8_t view_agent_rgb[GC_AGENT_NSTATES][3];
extern const uint8_t view_trace_rgb[4][3]; /* by GC_TRACE_*; [0] unused */
extern const uint8_t view_heading_rgb[3];

/* A drawer for renderer r; NULL when out of memory or SDL fails (the SDL
 * message is in SDL_GetError). */
view_draw *view_draw_new(SDL_Renderer *r);
void view_draw_free(view_draw *d);

/* Draw one frame of s (without presenting it).  Returns 0, or -1 when SDL
 * failed (SDL_GetError). */
int view_draw_frame(view_draw *d, view_state *s);

/* Agent radius in pixels at the current zoom. */
float view_agent_radius(const view_state *s);

/* ---- Where to draw (view_canvas.c) ---------------------------------------
 *
 * What the live viewer and the replay share about their window or
 * off-screen picture.  The opens and saves return VIEW_EXIT_OK, or
 * VIEW_EXIT_SDL after printing one line. */

/* The largest window the viewer opens by itself. */
#define VIEW_BOX_W 1600
#define VIEW_BOX_H 1000
/* The largest screenshot: a side SDL's software renderer can address and a
 * 192 MiB BMP.  --scale 1000 on a 512x512 map would be 805 MB. */
#define VIEW_SHOT_MAX_SIDE 16384L
#define VIEW_SHOT_MAX_PIXELS (64L << 20)

/* The size of the window (or, with `screenshot`, of the picture) for the
 * attached map or the replayed recording, stored in s->win_w and s->win_h
 * and returned in *w and *h, and the first camera: the whole map at
 * --scale, or at the largest whole scale that fits VIEW_BOX_W x VIEW_BOX_H
 * (and the usable display, for a window).  A screenshot is exactly the map
 * at that scale; its caller refuses one past VIEW_SHOT_MAX_*.  Live viewer
 * and replay share it so that both draw a map the same size. */
void view_initial(view_state *s, bool screenshot, int *w, int *h);

/* prog_say(what, SDL's message); returns VIEW_EXIT_SDL. */
int view_sdl_fail(const char *what);

/* A window (win) or an off-screen surface (surf) with its renderer and a
 * drawer on it.  Used by one thread, the one that opened it. */
typedef struct view_canvas {
    SDL_Window *win;   /* NULL off screen */
    SDL_Surface *surf; /* NULL in a window */
    SDL_Renderer *r;
    view_draw *d;
} view_canvas;

/* Open a resizable w x h window named gridcrowd-view, its renderer and
 * drawer.  On failure *c holds what was opened: free it all the same. */
int view_canvas_window(view_canvas *c, int w, int h);

/* The same off screen: a w x h RGB surface and a software renderer, for
 * --screenshot and --bench-frames. */
int view_canvas_offscreen(view_canvas *c, int w, int h);

/* Present an off-screen canvas and save it as a 24-bit BMP at `path`. */
int view_canvas_save(view_canvas *c, const char *path);

/* Free what an open left in *c (any part may be NULL) and clear it. */
void view_canvas_free(view_canvas *c);

/* A window's frame: draw s, save it when key s asked (as
 * gridcrowd-view-TICK.bmp in the current directory, saying so in the
 * overlay), present it. */
int view_canvas_show(view_canvas *c, view_state *s);

#endif
