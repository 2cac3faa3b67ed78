/*
 * view_replay.h: gridcrowd-view --replay FILE.sqlite, the replay of a
 * recording (gridcrowd/record.h) with the live viewer's picture.
 *
 * view_replay_db.c reads the file (view_replay_db-grid.c its grids and
 * JuPedSim geometry): frames on demand, with prepared statements, into
 * the same copies (view_conn: cells, gc_world_agent records) that the live
 * viewer fills from shared memory, so that the drawing code is the same.
 * view_replay.c plays it: the play, pause, speed, step and scrub controls,
 * the slider, the selected agent's trajectory, and the window, screenshot
 * and benchmark loops.
 *
 * Everything here runs on the viewer's one thread.
 */
#ifndef GRIDCROWD_VIEW_REPLAY_H
#define GRIDCROWD_VIEW_REPLAY_H

#include "view.h"

#include <gridcrowd/common.h>

/* ---- The recording (view_replay_db.c) ----------------------------------- */

typedef struct view_rdb view_rdb;

/* How long an error line may be. */
#define VIEW_RDB_WHY 256

/*
 * Open the recording at `path` read-only (SQLITE_OPEN_READONLY) and check
 * it: an SQLite file whose header promises no more than the file holds,
 * with gridcrowd's tables (gc_format in its metadata) or at least
 * JuPedSim's trajectory_data, and at least one frame.  A JuPedSim file
 * from elsewhere replays positions only, over its geometry's WKT
 * rasterised into cells (walkable inside), or a walkable field over its
 * bounds when there is no geometry.  On failure returns -1 with one line
 * (without the file name) in `why`.  The caller frees *out with
 * view_rdb_close.
 */
int view_rdb_open(view_rdb **out, const char *path, char *why);
void view_rdb_close(view_rdb *db);

/* The first and last frame numbers, and frames per simulated second. */
int64_t view_rdb_first(const view_rdb *db);
int64_t view_rdb_last(const view_rdb *db);
double view_rdb_fps(const view_rdb *db);
/* True for a gridcrowd recording, false for a JuPedSim-only file. */
bool view_rdb_ours(const view_rdb *db);

/*
 * The recorded frame nearest `frame` in direction `dir`: 0 the last frame
 * at or before it (the first frame when there is none), +1 the first
 * after it, -1 the last before it (none: `frame` itself).  Frames of a
 * real-time run may have gaps (dropped frames).  0, or -1 with `why`.
 */
int view_rdb_seek(view_rdb *db, int64_t frame, int dir, int64_t *out,
                  char *why);

/* Whether `frame` was recorded (0: no, 1: yes, -1 error with `why`). */
int view_rdb_has(view_rdb *db, int64_t frame, char *why);

/*
 * Load `frame` into c: its agents (sorted by id) into c->agents and
 * c->nagents, c->tick, and the grid of its generation into c->cells,
 * c->width, c->height, c->cell_size when it differs from the one loaded
 * (then c->cells_changed).  0, or -1 with `why`; on failure c keeps what
 * it had.
 */
int view_rdb_load(view_rdb *db, int64_t frame, view_conn *c, char *why);

/* The grid generation of the loaded frame (0 for a JuPedSim file). */
uint64_t view_rdb_generation(const view_rdb *db);

/*
 * Every recorded position of agent `id`, in frame order: *pts (world
 * units, as c->agents hold them) and *frames, `*n` of each, new arrays the
 * caller frees.  The file has no index by agent, so this reads the whole
 * trajectory table once; it is called when the selection changes, never
 * per frame.  0, or -1 with `why`.
 */
int view_rdb_track(view_rdb *db, uint32_t id, gc_vec2 **pts, int64_t **frames,
                   size_t *n, char *why);

/* ---- Inside the recording (view_replay_db.c, view_replay_db-grid.c) ----- */

/* The prepared statements, opened once and reset after each use. */
enum {
    VIEW_RDB_ST_TRAJ,    /* id, x, y of a frame, by id */
    VIEW_RDB_ST_AGENT,   /* the rest of each row (ours) */
    VIEW_RDB_ST_FRAME,   /* tick and generation of a frame (ours) */
    VIEW_RDB_ST_GRID,    /* the grid of a generation (ours) */
    VIEW_RDB_ST_LE,      /* last frame <= ? */
    VIEW_RDB_ST_GT,      /* first frame > ? */
    VIEW_RDB_ST_LT,      /* last frame < ? */
    VIEW_RDB_ST_HAS,     /* is ? a frame */
    VIEW_RDB_ST_GEOHASH, /* geometry of a frame (JuPedSim) */
    VIEW_RDB_ST_WKT,     /* WKT of a geometry hash (JuPedSim) */
    VIEW_RDB_ST_N
};

/* Only the two view_replay_db files look inside; struct tags keep
 * sqlite3.h out of the viewer's other files. */
struct view_rdb {
    struct sqlite3 *db;
    struct sqlite3_stmt *st[VIEW_RDB_ST_N];
    bool ours;
    double fps;
    int64_t first, last;
    uint64_t generation; /* of the grid in the caller's copy */
    bool have_grid;      /* a grid was loaded into the copy */
    /* JuPedSim: the world moved to the viewer's, and the field. */
    double xmin, ymax, raster_cell;
    int32_t rw, rh;
    int64_t geohash; /* of the raster in the copy */
};

/* Format one error line into `why` (VIEW_RDB_WHY bytes). */
void view_rdb_say(char *why, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

/* `what` and SQLite's last error into `why`; returns -1. */
int view_rdb_sql_fail(view_rdb *db, char *why, const char *what);

/* One integer from the one-row statement st[i] bound to `v`; *null for
 * no row or NULL.  0, or -1 with `why`. */
int view_rdb_one_int(view_rdb *db, int i, int64_t v, int64_t *out, bool *null,
                     char *why);

/* Our grid of generation `gen` (or the last recorded before it) into c.
 * 0, or -1 with `why`; on failure c keeps what it had. */
int view_rdb_load_grid(view_rdb *db, uint64_t gen, view_conn *c, char *why);

/* A JuPedSim frame's field into c: its geometry when there is one, else
 * every cell walkable.  0, or -1 with `why`. */
int view_rdb_load_field(view_rdb *db, int64_t frame, view_conn *c, char *why);

/* ---- Playing it (view_replay.c) ----------------------------------------- */

/*
 * Open s->opt.replay into s->replay and load the first frame shown
 * (s->opt.frame, or the first).  Returns -1 when ready, else the exit code
 * after printing one line (VIEW_EXIT_REPLAY for a bad file,
 * VIEW_EXIT_USAGE for a --frame the file does not hold).
 */
int view_replay_open(view_state *s);

/* Run the replay with SDL video initialised: the window, or with
 * --screenshot one frame to a BMP, or with --bench-frames a benchmark.
 * Returns the exit code. */
int view_replay_run(view_state *s);

/* Free s->replay (NULL allowed). */
void view_replay_close(view_state *s);

/* The overlay's first line, for a replay. */
void view_replay_status(const view_state *s, char *buf, size_t n);

/* The replay's lines of the help overlay. */
const char *const *view_replay_help(size_t *n);

/* Pixels kept free at the bottom of the window for the slider. */
#define VIEW_REPLAY_BAR_H 18

struct view_draw;
/* The selected agent's trajectory (under the agents), and the slider (on
 * top); 0, or -1 when SDL failed. */
int view_replay_draw_track(struct view_draw *d, const view_state *s);
void view_replay_draw_bar(struct view_draw *d, const view_state *s);

#endif
