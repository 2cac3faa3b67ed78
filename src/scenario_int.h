/*
 * scenario_int.h: what the scenario loader's files share (scenario.c: the
 * file, the arena, positions and messages; scenario-json.c: the format's
 * keys, types and ranges).  Not for users.
 */
#ifndef GRIDCROWD_SCENARIO_INT_H
#define GRIDCROWD_SCENARIO_INT_H

#include <gridcrowd/edits.h>
#include <gridcrowd/scenario.h>

#include <jansson.h>
#include <setjmp.h>
#include <stdarg.h>

/* Deepest JSON path followed for messages (the format nests 6 deep). */
#define SCN_MAX_DEPTH 16

/* One step of the path from the root to the value being checked. */
typedef struct scn_step {
    const char *key; /* object member, or NULL for an array element */
    size_t index;
} scn_step;

/*
 * The loader's state.  The checker stops at the first error with
 * scn_fail(), which fills the gc_error and longjmps back to
 * gc_scenario_parse: everything allocated on the way lives in the
 * scenario's arena (scn_alloc) or in the JSON tree, and both are freed
 * there, so no check needs a cleanup path of its own.
 */
typedef struct scn_ctx {
    const char *file; /* name in messages */
    const char *text; /* the file's bytes, to find positions */
    size_t len;
    gc_error *err;
    jmp_buf fail;
    int code; /* the code scn_fail set */
    gc_scenario *s;
    scn_step path[SCN_MAX_DEPTH];
    int depth;
    /* scn_locate's and scn_line_col's memory of their last answer. */
    scn_step memo_path[SCN_MAX_DEPTH];
    size_t memo_off[SCN_MAX_DEPTH + 1];
    int memo_depth; /* -1: nothing yet */
    size_t lc_off;
    int lc_line, lc_col; /* 0: nothing yet */
    json_t *names[4];    /* per scn_names kind: name -> index (a hash) */
} scn_ctx;

/* The kinds of names, each unique within its kind. */
typedef enum scn_names {
    SCN_SHAPE = 0, /* geometry shapes i, then add events nshapes + j */
    SCN_GROUP = 1,
    SCN_EXIT = 2,
    SCN_SOURCE = 3
} scn_names;

/* The index registered for `name`, or -1.  A jansson object serves as the
 * hash table, so a file of 20,000 ids is not checked in n^2 steps. */
int64_t scn_name_get(scn_ctx *c, scn_names kind, const char *name);
void scn_name_put(scn_ctx *c, scn_names kind, const char *name, int64_t i);

/* Memory owned by the scenario, freed at once by gc_scenario_free.  Zeroed.
 * Fails (GC_ENOMEM) through scn_fail. */
void *scn_alloc(scn_ctx *c, size_t n, size_t size);
char *scn_strdup(scn_ctx *c, const char *s);

/* Enter / leave a member or an element of the current value. */
void scn_push_key(scn_ctx *c, const char *key);
void scn_push_index(scn_ctx *c, size_t i);
void scn_pop(scn_ctx *c);

/*
 * Stop loading with `code` and the message "FILE:LINE:COL: PATH: what".
 * The position is that of the current value (at_key false) or of the key
 * that names it (at_key true, for an unknown key); the path is written as
 * "groups[2].speed.mean" (left out at the root).
 */
_Noreturn void scn_fail(scn_ctx *c, int code, bool at_key, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 4, 5)))
#endif
    ;

/* 1-based line and column of byte `off` of the text (columns count UTF-8
 * characters, as jansson's do). */
void scn_line_col(scn_ctx *c, size_t off, int *line, int *col);

/* Byte offset of the current value (or its key) in the text, found by
 * walking the path; 0 when the walk fails (it cannot on text that jansson
 * accepted). */
size_t scn_locate(scn_ctx *c, bool at_key);

/* The line of the current value (scn_locate, then scn_line_col). */
int scn_line_here(scn_ctx *c);

/* ---- scenario-json.c: values, shapes, the geometry ------------------------
 * Each reads the current value (the caller pushed its path) or member `key`
 * of object `o` (pushed here), and fails through scn_fail. */

/* A number's allowed range (inclusive, but for lo when lo_open) and unit. */
typedef struct scn_range {
    double lo, hi;
    bool lo_open;
    const char *unit;
} scn_range;

const char *scn_json_kind(const json_t *v); /* "a number", "an array"... */
void scn_expect_object(scn_ctx *c, const json_t *v);
void scn_expect_array(scn_ctx *c, const json_t *v, size_t min);
/* Refuse any key of `o` not in the NULL-terminated `allowed`. */
void scn_check_keys(scn_ctx *c, json_t *o, const char *const *allowed);
/* The index in `keys` of the one key of `o` among them (`what`: "a goal"). */
size_t scn_one_of(scn_ctx *c, json_t *o, const char *const *keys,
                  const char *what);
_Noreturn void scn_missing(scn_ctx *c, const char *key);
double scn_num(scn_ctx *c, const json_t *v, scn_range r);
/* Member `key` as a number, `def` when absent (an error when required). */
double scn_get_num(scn_ctx *c, json_t *o, const char *key, scn_range r,
                   double def, bool required);
int64_t scn_int(scn_ctx *c, const json_t *v, int64_t lo, int64_t hi,
                const char *unit);
int64_t scn_get_int(scn_ctx *c, json_t *o, const char *key, int64_t lo,
                    int64_t hi, const char *unit, int64_t def);
/* A non-empty string (the JSON tree's), or the member's copy in the arena
 * (NULL when absent and not required). */
const char *scn_str(scn_ctx *c, const json_t *v);
const char *scn_get_str(scn_ctx *c, json_t *o, const char *key, bool required);
bool scn_get_bool(scn_ctx *c, json_t *o, const char *key, bool def);
gc_point scn_point(scn_ctx *c, const json_t *v); /* [x, y], world units */
/* A shape (area false; `def_type` when it has no "type") or an area. */
void scn_shape(scn_ctx *c, json_t *o, bool area, int def_type, gc_shape *sh);
/* Member `key` of `o`, a required area. */
void scn_area_member(scn_ctx *c, json_t *o, const char *key, gc_shape *sh);
/* The geometry section: size or map, cell size, shapes. */
void scn_check_geometry(scn_ctx *c, json_t *g, const char *dir);

/* ---- scenario-crowd.c ------------------------------------------------------
 * Check the document's root and fill c->s; `dir` is the scenario's folder,
 * for the map. */
void scn_check_root(scn_ctx *c, json_t *root, const char *dir);

/* ---- scenario-run.c: the population a run drives --------------------------
 *
 * Everything the runner does to agents goes through these four calls, so
 * that it runs on the simulation (scenario-sim.c points them at gc_sim's
 * spawn, remove and goal calls) or, in tests, on a model population.  A
 * handle names one agent for its life and is never reused while the run
 * holds it. */
typedef uint64_t scn_agent;

typedef struct scn_spawn {
    double x, y;      /* world units */
    double radius;    /* body, world units */
    double speed;     /* world units per second */
    double turn_rate; /* radians per second, 0: at once */
    int group;
} scn_spawn;

typedef enum scn_aim_kind {
    SCN_AIM_STOP = 0,   /* stand */
    SCN_AIM_POINT = 1,  /* walk to point */
    SCN_AIM_WANDER = 2, /* random goals within radius of point */
    SCN_AIM_FOLLOW = 3  /* follow agent target */
} scn_aim_kind;

typedef struct scn_aim {
    scn_aim_kind kind;
    gc_point point;
    double radius;
    scn_agent target;
} scn_aim;

typedef struct scn_body {
    gc_point pos;
    bool arrived; /* at its point goal */
} scn_body;

typedef struct scn_pop {
    void *arg;
    /* A new agent with its first aim; GC_EBLOCKED when the population
     * refuses the place (the runner tries another), GC_ENOMEM, GC_ERANGE
     * (full). */
    int (*spawn)(void *arg, const scn_spawn *sp, const scn_aim *aim,
                 scn_agent *out);
    int (*remove)(void *arg, scn_agent a);
    int (*aim)(void *arg, scn_agent a, const scn_aim *aim);
    int (*body)(void *arg, scn_agent a, scn_body *out);
} scn_crowd;

/* gc_scenario_run_new on a population of the caller's (copied). */
int scn_run_new_crowd(gc_scenario_run **out, const gc_scenario *sc,
                      const scn_crowd *crowd, const gc_scenario_run_config *cfg,
                      gc_error *err);

/* The run's model of the grid (the map, the shapes, the events fired). */
const gc_grid *scn_run_model(const gc_scenario_run *r);

/* ---- scenario-run.c and scenario-place.c: the runner's state -------------
 *
 * scenario-run.c drives the run (set-up, events, sources, exits, figures);
 * scenario-place.c draws, finds free places and aims and makes agents.
 * Both touch this state only on the program's simulation thread, between
 * ticks: no field is shared with another thread. */
/* An area's cells, sorted (row, column), for membership and draws. */
typedef struct scn_area_cells {
    const gc_shape *shape; /* the key */
    gc_cell *cells;
    size_t n;
} scn_area_cells;

typedef struct scn_run_agent {
    scn_agent h;
    int group;
    uint32_t step; /* route: the area being walked to */
    gc_point home; /* where it was made (wander's centre) */
    double radius;
    bool arrived; /* counted in `arrived` */
    int32_t exit; /* exits goal: the exit aimed at, -1 */
    bool follows; /* aim FOLLOW given with a live target */
    scn_agent target;
} scn_run_agent;

typedef struct scn_run_source {
    bool enabled;
    double start;  /* when the current run of the source began */
    uint64_t base; /* agents made before that run */
    uint64_t made;
} scn_run_source;

/* A layer of the model: a geometry shape or an event's shape. */
typedef struct scn_layer {
    const gc_shape *shape;
    bool on;
} scn_layer;

struct gc_scenario_run {
    const gc_scenario *sc;
    scn_crowd crowd;
    gc_scenario_run_config cfg;
    double dt;
    uint64_t tick; /* ticks completed */
    uint64_t rng;

    gc_grid *model;    /* the grid the scenario says now */
    bool model_dirty;  /* layers changed: rebuild, send the difference */
    scn_layer *layers; /* geometry shapes, then events' shapes as fired */
    size_t nlayers;
    gc_edit *edits; /* scratch for an event's edits */
    size_t edits_cap;

    int32_t *exit_of; /* per cell: exit index, -1 */
    scn_area_cells *areas;
    size_t nareas, areas_cap;

    const gc_scenario_goal **goal; /* per group: its goal now */
    scn_run_agent *agents;
    size_t nagents, agents_cap;
    scn_run_source *src;
    uint32_t *order; /* events sorted by (fire tick, file order) */
    size_t next_event;

    /* Body index: bucket of side `bsize`, head per bucket, next per entry
     * (entries index `pts`). */
    double bsize;
    int32_t bw, bh;
    int32_t *bhead;
    int32_t *bnext;
    gc_point *bpts;
    double *brad;
    size_t bn, bcap;
    double max_radius;

    /* Figures. */
    uint64_t spawned, from_sources, left, removed, arrived, blocked,
        events_fired;
    uint64_t cells_edited;
    uint64_t *left_by_exit;
    double *last_by_exit;
    double evac_time;
    uint64_t *speed_n;
    double *speed_min, *speed_max;
};

/* The run's splitmix64 stream: a draw in [0, n), n > 0. */
size_t scn_run_rnd_below(gc_scenario_run *r, size_t n);

/* An area's cells, computed once per shape and kept for the run; NULL
 * when out of memory. */
const scn_area_cells *scn_run_area_get(gc_scenario_run *r, const gc_shape *s);

/* True when cell c is one of the area's. */
bool scn_run_area_has(const scn_area_cells *a, gc_cell c);

/* The cell holding point p, and a cell's centre, in world units. */
gc_cell scn_run_cell_of(const gc_scenario_run *r, gc_point p);
gc_point scn_run_centre_of(const gc_scenario_run *r, gc_cell c);

/* Index every present agent's body where it stands now. */
int scn_run_index_rebuild(gc_scenario_run *r);

/* True when a body of `radius` at p overlaps no obstacle cell and no body
 * of the index.  Touching is allowed (distance == sum of radii). */
bool scn_run_place_free(const gc_scenario_run *r, gc_point p, double radius);

/* The aim for agent `a` under goal `g` standing at `pos`. */
int scn_run_aim_for(gc_scenario_run *r, scn_run_agent *a,
                    const gc_scenario_goal *g, gc_point pos, scn_aim *out);

/* Make an agent of group `gi` at p (a free place); GC_EBLOCKED when the
 * population refuses the place. */
int scn_run_make_agent(gc_scenario_run *r, int gi, gc_point p);

#endif
