/*
 * gridcrowd/record.h: recording a run into SQLite, in JuPedSim's trajectory
 * format (so that PedPy and the field's tools read it) plus gridcrowd's own
 * tables for everything else a replay needs.
 *
 * The file holds JuPedSim's schema version 3, exactly:
 *
 *   metadata(key TEXT NOT NULL UNIQUE PRIMARY KEY, value TEXT NOT NULL)
 *       version = 3, fps, xmin, xmax, ymin, ymax (world units), and
 *       gridcrowd's keys, all named gc_*: gc_format (1), gc_map,
 *       gc_cell_size, gc_tick_every, gc_mode ("batch" / "realtime"), and
 *       at close gc_frames, gc_dropped_frames, gc_status ("complete" or
 *       the one-line reason the recording stopped).
 *   trajectory_data(frame INTEGER NOT NULL, id INTEGER NOT NULL,
 *                   pos_x REAL NOT NULL, pos_y REAL NOT NULL)
 *       index frame_id_idx ON trajectory_data(frame, id)
 *   geometry(hash INTEGER NOT NULL, wkt TEXT NOT NULL)
 *       unique index geometry_hash ON geometry(hash): the walkable area of
 *       each recorded grid generation (gc_record_walkable_wkt), hashed by
 *       gc_record_wkt_hash
 *   frame_data(frame INTEGER NOT NULL, geometry_hash INTEGER NOT NULL)
 *       each frame's geometry
 *
 * and gridcrowd's tables beside them:
 *
 *   gc_agent_data(frame, id, heading REAL, state INTEGER, goal_x INTEGER,
 *                 goal_y INTEGER, speed REAL, radius REAL, vel_x REAL,
 *                 vel_y REAL), PRIMARY KEY (frame, id), WITHOUT ROWID:
 *       the rest of each trajectory row (radius: the body's, 0 for
 *       points; velocity: as avoidance chose it, 0 without avoidance)
 *   gc_frames(frame INTEGER PRIMARY KEY, tick INTEGER, generation INTEGER,
 *             agents INTEGER): the tick and grid generation of each frame
 *   gc_grids(generation INTEGER PRIMARY KEY, frame INTEGER, tick INTEGER,
 *            width INTEGER, height INTEGER, cell_size REAL, map TEXT,
 *            geometry_hash INTEGER): the grid of each recorded generation
 *            in our map format (gc_map_format)
 *   gc_edits(seq INTEGER PRIMARY KEY, tick INTEGER, op INTEGER,
 *            type INTEGER, x0, y0, x1, y1 INTEGER): every applied edit
 *   gc_options(key TEXT NOT NULL PRIMARY KEY, value TEXT NOT NULL): the
 *            run's options as given to gc_recorder_open
 *
 * Every column is NOT NULL.  Positions are written as pushed: world units,
 * world y growing downwards (grid.h), so PedPy's plots, whose y grows
 * upwards, show the map mirrored top to bottom.  A frame is
 * tick / tick_every; its time is frame / fps seconds.
 *
 * Threads.  gc_recorder_open starts one writer thread, which owns the
 * database connection.  The caller hands it whole frames through a bounded
 * buffer (gc_recorder_push): in batch mode a full buffer makes push wait
 * (nothing is lost); in real-time mode it drops the whole frame and counts
 * it (never a torn frame).  The writer commits every commit_frames frames
 * or commit_ms milliseconds of wall time, whichever comes first, so a
 * process killed with SIGKILL leaves a database that opens and holds every
 * frame committed before the kill (WAL journal: gc_recorder_stats tells
 * how many were committed).  push, edit and close must be called from one
 * thread (the simulation loop); stats may be called from any.
 *
 * Errors.  At open, a file that cannot be created or written gives one
 * line in the caller's gc_error ("FILE: why").  During the run, a write
 * error (a full disk, a file-size limit) stops the recording: the frames
 * committed so far stay, push keeps returning at once (GC_EIO), and
 * gc_recorder_stats says why.  A program that may run under a file-size
 * limit (ulimit -f) must ignore SIGXFSZ, whose default action kills the
 * process: the library never changes signal dispositions.
 */
#ifndef GRIDCROWD_RECORD_H
#define GRIDCROWD_RECORD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <gridcrowd/common.h>
#include <gridcrowd/error.h>
#include <gridcrowd/grid.h>

GC_BEGIN_DECLS

/* JuPedSim's trajectory database version that we write. */
#define GC_RECORD_JPS_VERSION 3
/* Version of gridcrowd's own tables (metadata key gc_format). */
#define GC_RECORD_FORMAT 1

typedef enum gc_record_mode {
    GC_RECORD_BATCH = 0,   /* a full buffer makes push wait */
    GC_RECORD_REALTIME = 1 /* a full buffer drops the frame, counted */
} gc_record_mode;

/* One run option, stored in gc_options. */
typedef struct gc_record_kv {
    const char *key, *value;
} gc_record_kv;

typedef struct gc_record_opts {
    double fps;          /* frames per simulated second, finite, > 0 */
    uint32_t tick_every; /* ticks per frame (frame = tick / tick_every) */
    /* World bounds for metadata; when xmax <= xmin or ymax <= ymin they are
     * taken from the first frame's grid (0 .. width * cell_size, ...). */
    double xmin, xmax, ymin, ymax;
    float cell_size;             /* world units per cell (for metadata) */
    const char *map_name;        /* stored as gc_map (may be NULL) */
    const gc_record_kv *options; /* run options (copied at open) */
    size_t n_options;
    gc_record_mode mode;
    uint32_t buffer_frames; /* frames the buffer holds, >= 1 */
    uint32_t commit_frames; /* commit after this many frames, >= 1 */
    uint32_t commit_ms;     /* or after this much wall time, >= 1 */
    bool overwrite;         /* replace an existing regular file (else
                               GC_EEXIST) */
} gc_record_opts;

/* Defaults: fps 10, tick_every 1, no bounds (from the grid), cell size 1,
 * no map name, no options, batch mode, 64 frames buffered, commit every
 * 1000 frames or 1000 ms, never overwrite. */
void gc_record_opts_init(gc_record_opts *o);

/* One agent in a frame. */
typedef struct gc_record_agent {
    uint32_t id;            /* unique within a frame */
    uint8_t state;          /* gc_agent_state */
    float x, y;             /* world position */
    float heading;          /* radians */
    int32_t goal_x, goal_y; /* goal cell */
    float speed;            /* world units per second */
    float radius;           /* body radius, world units (0: points) */
    float vx, vy;           /* velocity (0 without avoidance) */
} gc_record_agent;

/* One frame, as the caller hands it over (everything is copied). */
typedef struct gc_record_frame {
    uint64_t tick;
    const gc_record_agent *agents;
    size_t n_agents;
    /* The grid the agents stand on (required).  The recorder copies it
     * whenever grid->generation differs from the last frame it accepted
     * (the first frame always), so the caller just passes it each time. */
    const gc_grid *grid;
} gc_record_frame;

/* One applied edit (an edit's cells, as the daemon applied them). */
typedef struct gc_record_edit {
    uint64_t tick;
    uint32_t op, type; /* GC_EDIT_* (edits.h) and GC_CELL_* */
    int32_t x0, y0, x1, y1;
} gc_record_edit;

/* Figures of a recording; `msg` is "" while it records normally. */
typedef struct gc_record_stats {
    uint64_t pushed;    /* frames accepted by push */
    uint64_t dropped;   /* frames dropped (real time, buffer full) */
    uint64_t written;   /* frames inserted by the writer (not those a
                           failed transaction rolled back) */
    uint64_t committed; /* frames committed: survive a SIGKILL */
    uint64_t edits;     /* edits accepted */
    int status;         /* GC_OK, or the error that stopped the writer */
    char msg[256];      /* one line: why it stopped */
} gc_record_stats;

typedef struct gc_recorder gc_recorder;

/*
 * Create the database at `path` with the schema above, write the metadata
 * and options, and start the writer thread.  An existing non-regular path
 * (a directory, a FIFO, a device) is refused with GC_EINVAL; an existing
 * regular file with GC_EEXIST unless o->overwrite, which replaces it (and
 * any -wal, -shm or -journal beside it).  A file that cannot be created or
 * written: GC_EIO (or GC_ENOENT, GC_EPERM), with one line "PATH: why" in
 * `err`.  GC_EINVAL for bad options, GC_ENOMEM.  The caller owns *out and
 * ends it with gc_recorder_close.
 */
int gc_recorder_open(gc_recorder **out, const char *path,
                     const gc_record_opts *o, gc_error *err);

/*
 * Hand one frame to the writer (copied; the caller keeps `f`).  Returns
 * GC_OK when accepted; GC_EFULL when dropped (real-time mode, buffer full;
 * counted); GC_EIO once the writer has stopped (see gc_recorder_stats;
 * returns at once); GC_EINVAL for a frame number not after the last one
 * accepted, a NULL grid or an agent with a value that is not finite (the
 * frame is not recorded; the recording goes on); GC_ENOMEM.  In batch
 * mode it waits while the buffer is full.  Ids must be unique within a
 * frame: a repeated one fails the writer's insert and stops the
 * recording (GC_EIO, the frames committed before it kept).
 */
int gc_recorder_push(gc_recorder *r, const gc_record_frame *f);

/* Record an applied edit (never waits; GC_EFULL past 1 << 20 edits queued,
 * GC_EIO once stopped). */
int gc_recorder_edit(gc_recorder *r, const gc_record_edit *e);

/* Figures so far (thread-safe). */
void gc_recorder_stats(gc_recorder *r, gc_record_stats *out);

/* Frames dropped so far (thread-safe). */
uint64_t gc_recorder_dropped(gc_recorder *r);

/*
 * Write out every frame accepted, write the final metadata (gc_frames,
 * gc_dropped_frames, gc_status), checkpoint the WAL into the file (the
 * finished recording is one file), join the writer and free everything.
 * Returns GC_OK, or the error that stopped the recording (its line in
 * `err`).  NULL is allowed.
 */
int gc_recorder_close(gc_recorder *r, gc_error *err);

/*
 * The walkable area of `g` as WKT in world units: the passable cells
 * merged into polygons along their boundaries.  One polygon per
 * 4-connected set of passable cells; shells counter-clockwise (positive
 * shoelace area in world coordinates), holes clockwise, each hole inside
 * its shell; no ring touches itself (where cells meet only at a corner the
 * rings are split there, so rings may touch each other at that point, as
 * OGC validity allows).  Collinear points are left out; each ring starts
 * at its point of smallest y, then x.  "POLYGON ((...), (hole), ...)" for
 * one polygon (as JuPedSim writes), "MULTIPOLYGON (((...)), ...)" for more
 * (PedPy's WalkableArea takes only one connected area), "POLYGON EMPTY"
 * when no cell is passable.  Numbers are the shortest text that reads back
 * as the float coordinate (cell_size times the grid line).
 * *out is a new NUL-terminated string owned by the caller (free()); *len
 * its length (len may be NULL).  GC_EINVAL, GC_ENOMEM.
 */
int gc_record_walkable_wkt(const gc_grid *g, char **out, size_t *len);

/* A stable 63-bit hash of a WKT text (FNV-1a, top bit cleared), for the
 * geometry table: the same text always gives the same number. */
int64_t gc_record_wkt_hash(const char *wkt);

GC_END_DECLS
#endif
