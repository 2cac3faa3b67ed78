/*
 * report.h: gridcrowd-report's parts, shared by its files and its unit test.
 *
 *   report-calc.c  the figures, from rows handed over one at a time in
 *                  frame order (rep_acc): density and speed bins, flow
 *                  through lines, travel times, the trajectory sample;
 *                  the --line parser and the WKT reader.  Pure C, no
 *                  SQLite, no cairo: tests/test_report.c feeds it rows.
 *   report-read.c  the recording: checks it, reads its metadata, options
 *                  and walkable area, and streams trajectory_data through
 *                  one prepared statement into a rep_acc.
 *   report-draw.c  the PNG pictures, drawn with cairo.
 *   report-html.c  index.html and report.json.
 *
 * Names start with rep_: program-side, never part of libgridcrowd.
 * Functions return 0 or a negative gc_err code, as the library's do.
 * Nothing here is shared between threads: the program has one.
 */
#ifndef GRIDCROWD_REPORT_H
#define GRIDCROWD_REPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <gridcrowd/error.h>

#define REP_MAX_LINES 8         /* --line given at most this often */
#define REP_MAX_BINS (1u << 22) /* density bins over the map */
#define REP_MAX_SIDE 32767      /* bins a side: cairo's largest image */
#define REP_STATE_UNKNOWN (-1)  /* a plain JuPedSim file has no state */
#define REP_STATE_ARRIVED 3     /* GC_AGENT_ARRIVED (gridcrowd/agent.h) */
#define REP_MIN_EXTENT 1e-6 /* a narrower extent is taken as empty */
/* Frames per second a recording may have: the daemon writes hz / N, down
 * to 1 / 4294967295 (--hz 1, --record-every 4294967295), 2.3e-10.  Within
 * these and REC_MAX_FRAME (recording.h), a duration (frames / fps) is at most
 * 1e26 s. */
#define REP_MIN_FPS 1e-10
#define REP_MAX_FPS 1e9
/* A constant's text, for messages that quote it. */
#define REP_TEXT_(x) #x
#define REP_TEXT(x) REP_TEXT_(x)

/* ---- lines (--line) -------------------------------------------------------
 */

/* A line segment from (x0, y0) to (x1, y1), world units. */
typedef struct rep_line {
    double x0, y0, x1, y1;
} rep_line;

/* Parse "X0,Y0,X1,Y1" (four finite numbers, the two ends apart).
 * GC_EINVAL with nothing written to *out otherwise. */
int rep_line_parse(const char *s, rep_line *out);

/*
 * Does a step from p to q cross the line?  +1 forwards, -1 backwards, 0
 * not at all.  Forwards is the direction of the normal (y1 - y0, x0 - x1):
 * for a line drawn from top to bottom (y grows downwards) it is +x.  A
 * point exactly on the line's infinite extension counts as behind it (on
 * the backward side), so a step that ends on the line and the next that
 * leaves it forwards make one crossing, never two or none.  The crossing
 * point must lie on the segment, its ends included.
 */
int rep_line_cross(const rep_line *l, double px, double py, double qx,
                   double qy);

/* ---- walkable area (WKT) --------------------------------------------------
 */

/* The rings of a walkable area: shells and holes alike (filled with the
 * even-odd rule, a hole is a hole). */
typedef struct rep_area {
    size_t n_rings;
    size_t *ring_len; /* points in each ring */
    double *xy;       /* every ring's points, x then y, ring after ring */
    size_t n_points;
} rep_area;

/*
 * Read a WKT "POLYGON ((...), (...))", "MULTIPOLYGON (((...)), ...)" or
 * "POLYGON EMPTY" (no rings) into *out, 2-D coordinates only.  Anything
 * else (Z or M coordinates, other types, bad syntax) is GC_EPARSE: the
 * caller draws no walls then.  The caller frees *out with rep_area_free.
 */
int rep_area_parse(const char *wkt, rep_area *out);
void rep_area_free(rep_area *a);

/* ---- the figures -----------------------------------------------------------
 */

/* One agent, as the pass over the frames knows it. */
typedef struct rep_agent {
    uint32_t id;
    int32_t slot;    /* its place in the sample, -1: not sampled */
    int64_t first;   /* first frame seen */
    int64_t last;    /* last frame seen */
    int64_t arrived; /* first frame in state arrived, -1: never */
    int last_state;  /* state in frame `last` (REP_STATE_UNKNOWN) */
    double x, y;     /* position in frame `last` */
} rep_agent;

/* A sampled agent's trajectory, up to the frame it arrived. */
typedef struct rep_track {
    uint64_t key; /* rep_sample_key(id): the sample is the smallest keys */
    uint32_t id;
    float *xy; /* points, x then y */
    size_t n, cap;
} rep_track;

/* What rep_acc needs to know before the first row. */
typedef struct rep_acc_config {
    double fps;          /* frames per second, > 0 */
    int64_t first_frame; /* the recording's frame range */
    int64_t last_frame;
    double xmin, ymin, xmax, ymax; /* the bins' extent, world units */
    double cell;                   /* bin side, world units, > 0 */
    const rep_line *lines;         /* copied */
    size_t n_lines;
    size_t sample; /* agents whose trajectory is kept */
} rep_acc_config;

/* Crossings of one line, per time bin. */
typedef struct rep_flow {
    rep_line line;
    uint64_t forward, backward; /* totals */
    uint32_t *fwd, *bwd;        /* per flow bin (n_flow_bins each) */
} rep_flow;

typedef struct rep_acc {
    rep_acc_config cfg;
    /* Bins: nx * ny, row after row from (xmin, ymin). */
    int nx, ny;
    double *count;     /* agent-frames in each bin */
    double *speed_sum; /* sum of speeds of the agent-frames in each bin */
    uint32_t *speed_n; /* and how many there were */
    /* Agents: an open-addressing table keyed by id. */
    rep_agent *agents;
    size_t n_agents, cap_agents;
    /* The sample: a max-heap (by key) of indices into tracks. */
    rep_track *tracks;
    size_t n_tracks;
    size_t *heap;
    /* Flow through each line, in bins of flow_bin_s seconds. */
    rep_flow flows[REP_MAX_LINES];
    size_t n_flow_bins;
    double flow_bin_s;
    /* Totals. */
    int64_t frame;         /* the frame being added, -1 before any */
    uint64_t frames;       /* distinct frames seen */
    uint64_t agent_frames; /* rows */
    uint64_t outside;      /* rows outside the bins' extent */
    double speed_total;    /* over every agent-frame with a speed */
    uint64_t speed_count;
    int64_t max_frame_seen;
} rep_acc;

/* Allocate the bins and flows.  GC_EINVAL (bad fps, cell, extent, more
 * than REP_MAX_BINS bins or REP_MAX_SIDE a side), GC_ENOMEM.  rep_acc_free
 * ends it. */
int rep_acc_init(rep_acc *a, const rep_acc_config *cfg);
void rep_acc_free(rep_acc *a);

/*
 * One row: agent `id` at (x, y) in `frame`, in `state` (or
 * REP_STATE_UNKNOWN).  Rows come in frame order (within a frame any
 * order, each id once).  A step from the agent's previous row gives its
 * speed (distance / time; not counted while it stood arrived, as it then
 * waits at its goal) and its crossings.  GC_EINVAL for a frame before the
 * last one, GC_ENOMEM.
 */
int rep_acc_add(rep_acc *a, int64_t frame, uint32_t id, double x, double y,
                int state);

/* The sample's key of an id: a bijective mix, so the sample (the ids
 * with the smallest keys) is spread over the crowd and depends only on
 * the set of ids, not on the order they came in. */
uint64_t rep_sample_key(uint32_t id);

/* Travel times, seconds: each agent's first frame to its first frame in
 * state arrived, or to its last frame when it left before the recording
 * ended.  Agents still walking at the end have none. */
typedef struct rep_travel {
    double *t; /* sorted ascending */
    size_t n;
    size_t arrived; /* how many arrived (state) */
    size_t left;    /* how many left (plain files) */
    size_t unfinished;
    double evacuation_s; /* the last end, when every agent has one; -1 */
} rep_travel;

/* Fill *out from the agents seen so far.  Free out->t.  GC_ENOMEM. */
int rep_acc_travel(const rep_acc *a, rep_travel *out);

/* The sampled tracks in id order, pointers into `a` (valid until the next
 * rep_acc_add or rep_acc_free); *out is malloc'd, free() it.  GC_ENOMEM. */
int rep_acc_tracks(const rep_acc *a, const rep_track ***out, size_t *n);

/* Time-averaged agents per square unit in bin i (count / frames / area). */
double rep_acc_density(const rep_acc *a, size_t i);

/* Mean speed in bin i, or a negative number where no agent-frame had one. */
double rep_acc_speed(const rep_acc *a, size_t i);

/* ---- the recording
 * ----------------------------------------------------------- */

typedef struct rep_kv {
    char *key, *value;
} rep_kv;

/* What the report says about a recording besides the figures. */
typedef struct rep_info {
    const char *path;
    bool gridcrowd; /* gridcrowd's tables are there */
    double fps;
    double xmin, ymin, xmax, ymax;
    double cell_size; /* gc_cell_size; 0 in a plain file */
    int64_t first_frame, last_frame;
    char *map;       /* gc_map, or NULL */
    char *status;    /* gc_status, or NULL */
    int64_t dropped; /* gc_dropped_frames, -1: unknown */
    int64_t edits;   /* rows of gc_edits, -1: none */
    rep_kv *options; /* gc_options */
    size_t n_options;
    bool have_area;      /* walls known */
    rep_area area;       /* the walkable area of the first frame */
    char area_note[128]; /* why there are no walls, or "" */
} rep_info;

typedef struct rep_read {
    struct sqlite3 *db;
    rep_info info;
} rep_read;

/*
 * Open `path` read-only and check that it is a trajectory recording:
 * tables metadata and trajectory_data with their columns, fps > 0, at
 * least one row.  Reads the metadata, gridcrowd's options and the first
 * frame's walkable area.  GC_ENOENT (no such file), GC_EINVAL (not a
 * regular file), GC_EPARSE (not SQLite, or not a recording): the reason in
 * `err`.  rep_read_close ends it in any case.
 */
int rep_read_open(rep_read *r, const char *path, gc_error *err);

/* Stream every row into `acc`, in frame order, through one prepared
 * statement.  progress(frame, userdata) is called at each new frame (may
 * be NULL).  GC_EIO with the reason in `err`. */
int rep_read_frames(rep_read *r, rep_acc *acc,
                    void (*progress)(int64_t frame, void *ud), void *ud,
                    gc_error *err);

void rep_read_close(rep_read *r);

/* The figures' configuration for the recording `in`: bins of side `cell`
 * (0: its gc_cell_size, or a hundredth of its larger side, doubled until
 * the bins are within REP_MAX_BINS / 2 and REP_MAX_SIDE), `lines` and a
 * sample of `sample` tracks.  gridcrowd-report's and the fuzz target's. */
void rep_acc_config_for(rep_acc_config *cfg, const rep_info *in, double cell,
                        const rep_line *lines, size_t n_lines, size_t sample);

/* ---- the outputs
 * ---------------------------------------------------------------- */

/* What the pictures and the page show. */
typedef struct rep_out {
    const char *dir;
    int size; /* picture width, pixels */
    const rep_info *info;
    const rep_acc *acc;
    const rep_travel *travel;
    int map_w, map_h;   /* map pictures' size, set by rep_draw_maps */
    int plot_w, plot_h; /* histogram and flow pictures' size */
} rep_out;

/* The map pictures' height for a width of `size` pixels. */
void rep_draw_layout(rep_out *o);

/* density.png, speed.png, trajectories.png, traveltime.png and, with
 * lines, flow.png.  GC_EIO with "FILE: why" in `err`; GC_ENOMEM. */
int rep_draw_all(rep_out *o, gc_error *err);

/* Release cairo's and fontconfig's caches; last, after every picture. */
void rep_draw_cleanup(void);

/* index.html and report.json.  GC_EIO with "FILE: why" in `err`. */
int rep_html_write(const rep_out *o, gc_error *err);

#endif
