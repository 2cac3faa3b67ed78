/*
 * gridcrowd/scenario.h: scenario files (JSON): geometry in world units,
 * groups, sources, exits, timed events, the stop rule and the seed; and the
 * rasteriser that turns world-space shapes into grid cells.
 *
 * The format is documented key by key in docs/scenario.md.  Loading reads
 * the file with jansson (duplicate keys refused), then checks every key
 * against the format: unknown keys are refused, every number is
 * range-checked with its unit, and names (groups, exits, sources, shape ids)
 * are resolved to indices.  Every error fills the caller's gc_error with one
 * line that names the file, the line and column and what is wrong:
 *
 *     scn.json:12:18: groups[1].speed.mean: 40 m/s is out of range
 *         (0.01 to 15 m/s)
 *
 * Syntax errors take their position from jansson; semantic errors take the
 * position of the offending value (or of the offending key, for an unknown
 * key), found by walking the file's text along the value's JSON path.
 *
 * Units: lengths in world units (metres in the shipped scenarios), times in
 * seconds, speeds in world units per second, turn rates in degrees per
 * second.  World coordinates have x to the right and y downwards with (0, 0)
 * at the top-left corner of the grid, as in gridcrowd/grid.h: cell (x, y)
 * covers [x * cell_size, (x + 1) * cell_size) and likewise in y.
 *
 * Everything a loaded scenario holds (strings, arrays, the map grid) is
 * owned by the gc_scenario and freed by gc_scenario_free; the structures
 * below are read-only for callers.
 */
#ifndef GRIDCROWD_SCENARIO_H
#define GRIDCROWD_SCENARIO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <gridcrowd/common.h>
#include <gridcrowd/error.h>
#include <gridcrowd/grid.h>
#include <gridcrowd/queue.h>
#include <gridcrowd/sim.h>

GC_BEGIN_DECLS

/* Largest scenario file read (256 MiB); larger files fail GC_ETOOBIG. */
#define GC_SCENARIO_MAX_FILE ((size_t)256 << 20)

/* A point in world units (double: shapes are drawn in world units and only
 * the rasteriser turns them into cells). */
typedef struct gc_point {
    double x, y;
} gc_point;

typedef enum gc_shape_kind {
    GC_SHAPE_RECT = 0,    /* a, b: the min and max corners */
    GC_SHAPE_CIRCLE = 1,  /* a: the centre; radius */
    GC_SHAPE_POLYGON = 2, /* pts[npts]: vertices in order, >= 3, closed */
    GC_SHAPE_WALL = 3,    /* pts[npts]: a polyline, >= 2; thickness */
    GC_SHAPE_CELLS = 4    /* cells[ncells]: grid cells, not world units */
} gc_shape_kind;

/*
 * A shape of the geometry, of an event, or an area (a spawn area, an exit, a
 * goal area, a source's area: then `type` is -1).
 */
typedef struct gc_shape {
    gc_shape_kind kind;
    int type;         /* GC_CELL_* painted; -1 for an area */
    const char *id;   /* name given in the file, or NULL */
    gc_point a, b;    /* rect corners (a <= b), circle centre (a) */
    double radius;    /* circle, > 0 */
    double thickness; /* wall, > 0 */
    gc_point *pts;    /* polygon vertices, wall points */
    size_t npts;
    gc_cell *cells; /* cell list */
    size_t ncells;
    int line; /* line of the shape's object in the file */
} gc_shape;

/* A speed: fixed (sd 0, min = max = mean) or a normal distribution with
 * mean and standard deviation, redrawn until inside [min, max]. */
typedef struct gc_speed_dist {
    double mean, sd, min, max; /* world units per second */
} gc_speed_dist;

typedef enum gc_goal_kind {
    GC_GOAL_NONE = 0,   /* stand still */
    GC_GOAL_POINT = 1,  /* point */
    GC_GOAL_AREA = 2,   /* areas[0] */
    GC_GOAL_EXITS = 3,  /* the nearest of exits[nexits] (indices) */
    GC_GOAL_ROUTE = 4,  /* areas[0..nareas) in order */
    GC_GOAL_WANDER = 5, /* random goals within radius of the spawn point */
    GC_GOAL_FOLLOW = 6  /* an agent of group `group` */
} gc_goal_kind;

typedef struct gc_scenario_goal {
    gc_goal_kind kind;
    gc_point point;
    gc_shape *areas;
    size_t nareas;
    int *exits; /* indices into gc_scenario.exits */
    size_t nexits;
    double radius; /* wander, world units */
    int group;     /* follow: index into gc_scenario.groups */
} gc_scenario_goal;

typedef struct gc_scenario_group {
    const char *name;
    int64_t count;       /* agents placed at the start */
    bool has_spawn;      /* false: agents come only from sources */
    gc_shape spawn;      /* spawn area */
    double radius;       /* body radius, world units */
    gc_speed_dist speed; /* world units per second */
    double turn_rate;    /* degrees per second; 0 turns at once */
    gc_scenario_goal goal;
} gc_scenario_group;

typedef struct gc_scenario_source {
    const char *name; /* or NULL */
    int group;        /* index into gc_scenario.groups */
    gc_shape area;
    double rate;       /* agents per second */
    double start, end; /* seconds; end INFINITY: no end */
    int64_t total;     /* most agents it makes; -1: no limit */
    bool enabled;      /* running from `start` (false: waits for an event) */
} gc_scenario_source;

typedef struct gc_scenario_exit {
    const char *name;
    gc_shape area;
} gc_scenario_exit;

typedef enum gc_event_kind {
    GC_EVENT_PAINT = 0,        /* shape.type painted over shape: a grid edit */
    GC_EVENT_ADD_SHAPE = 1,    /* shape drawn (may have an id) */
    GC_EVENT_REMOVE_SHAPE = 2, /* target: shape id to take away */
    GC_EVENT_SET_GOAL = 3,     /* group's goal becomes goal */
    GC_EVENT_START_SOURCE = 4, /* source starts */
    GC_EVENT_STOP_SOURCE = 5   /* source stops */
} gc_event_kind;

typedef struct gc_scenario_event {
    double time; /* seconds from the start */
    gc_event_kind kind;
    gc_shape shape;        /* PAINT, ADD_SHAPE */
    const char *target;    /* REMOVE_SHAPE: the shape id */
    int group;             /* SET_GOAL */
    gc_scenario_goal goal; /* SET_GOAL */
    int source;            /* START_SOURCE, STOP_SOURCE */
    int line;              /* line of the event's object */
} gc_scenario_event;

typedef struct gc_scenario_stop {
    bool when_done;    /* stop when no agent is left moving and no source
                          can make more */
    double time_limit; /* seconds; INFINITY: none */
} gc_scenario_stop;

typedef struct gc_scenario {
    const char *path;       /* the file, as given */
    const char *name;       /* "name" key, or NULL */
    const char *map_path;   /* the map, resolved against the file's folder,
                               or NULL */
    gc_grid *map;           /* the loaded map, or NULL */
    double width, height;   /* world size, world units */
    double cell_size;       /* world units per cell */
    int32_t grid_w, grid_h; /* cells */
    gc_shape *shapes;
    size_t nshapes;
    gc_scenario_group *groups;
    size_t ngroups;
    gc_scenario_source *sources;
    size_t nsources;
    gc_scenario_exit *exits;
    size_t nexits;
    gc_scenario_event *events; /* in file order (times need not be sorted) */
    size_t nevents;
    gc_scenario_stop stop;
    uint64_t seed;
    struct gc_scenario_mem_ *mem_; /* the allocations: not for callers */
} gc_scenario;

/*
 * Read and check the scenario file at `path`; a map it names is read
 * relative to the file's folder.  On success *out is a new scenario owned by
 * the caller (gc_scenario_free); on failure *out is NULL, `err` (may be
 * NULL) holds "FILE:LINE:COL: what" and the code is GC_ENOENT, GC_EPERM,
 * GC_EIO (files), GC_ETOOBIG (over GC_SCENARIO_MAX_FILE, a grid past
 * grid.h's limits), GC_EPARSE (syntax, a wrong type, an unknown or missing
 * key, an unknown name), GC_ERANGE (a number out of range), GC_ENOMEM, or a
 * map file's error (its own message, prefixed by the scenario's position of
 * the "map" key).  Numbers are read by jansson, independent of the locale.
 */
int gc_scenario_load(gc_scenario **out, const char *path, gc_error *err);

/* As gc_scenario_load, from exactly `len` bytes of `buf`; `path` names the
 * file in messages and anchors a relative map path ("<memory>" and the
 * current folder when NULL). */
int gc_scenario_parse(gc_scenario **out, const char *buf, size_t len,
                      const char *path, gc_error *err);

/* Free a scenario and everything it owns.  NULL is allowed. */
void gc_scenario_free(gc_scenario *s);

/*
 * The scenario's grid: the map (or walkable cells of the world size), with
 * cell_size set, and the geometry's shapes drawn over it in file order by
 * gc_scenario_shape_apply.  The caller owns *out (gc_grid_free).  Errors:
 * GC_ENOMEM, GC_EINVAL (NULL arguments).
 */
int gc_scenario_grid(const gc_scenario *s, gc_grid **out, gc_error *err);

/*
 * How a shape becomes cells (docs/scenario.md, "Rasterisation"):
 *   GC_RASTER_OVERLAP: every cell that the shape overlaps with positive area
 *     (depth > GC_RASTER_EPS of a cell; a shape that only touches a cell's
 *     edge or corner leaves it alone).  Obstacles use it: no body standing
 *     in a free cell can reach into an obstacle shape.
 *   GC_RASTER_CENTRE: every cell whose centre the shape covers (half-open:
 *     a centre on a rect's or polygon's left/top edge is in, on its
 *     right/bottom edge out; on a circle's rim in).  Cost areas, walkable
 *     paint and areas use it.
 * A wall is the union of one rectangle per segment (the segment widened by
 * thickness / 2 each side, ends cut square) and a disc of diameter
 * thickness at each inner point (round joins).  A cell list is its cells.
 * Cells off the grid are dropped.
 */
typedef enum gc_raster_rule {
    GC_RASTER_OVERLAP = 0,
    GC_RASTER_CENTRE = 1
} gc_raster_rule;

#define GC_RASTER_EPS 1e-9

/* The rule a painted cell type uses: OVERLAP for GC_CELL_OBSTACLE, CENTRE
 * for every other type. */
gc_raster_rule gc_scenario_rule(int type);

/*
 * The cells of shape `s` on a grid of w x h cells of `cell_size` world
 * units, under `rule`: a new array in *out (sorted by row, then column, no
 * duplicates; the caller frees it with free(); NULL when empty) and its
 * length in *n.  Errors: GC_EINVAL (bad arguments), GC_ENOMEM.
 */
int gc_scenario_shape_cells(const gc_shape *s, int32_t w, int32_t h,
                            double cell_size, gc_raster_rule rule,
                            gc_cell **out, size_t *n);

/*
 * Draw s->type over grid `g` under that type's rule, for the geometry and
 * for shapes added at run time.  `cell_size` is the scenario's
 * (gc_scenario.cell_size, a double: the grid's float would move cell lines
 * by a rounding error, enough to take a row past a line); 0 uses the
 * grid's.  When `changed`
 * is not NULL it receives the cells whose type changed (sorted as above;
 * free() it), and *nchanged their count.  Errors: GC_EINVAL (an area, a bad
 * type), GC_ENOMEM (the grid is then unchanged).
 */
int gc_scenario_shape_apply(gc_grid *g, double cell_size, const gc_shape *s,
                            gc_cell **changed, size_t *nchanged);

/* ---- Running a scenario (src/scenario-run.c) ------------------------------
 *
 * A gc_scenario_run drives a simulation from a loaded scenario: it places
 * the groups, makes the sources' agents, removes the agents that reach an
 * exit, fires the events at their tick and says when the run is done.  The
 * program calls it around each tick, between ticks (the workers parked):
 *
 *     gc_scenario_run_start           once, before the first tick
 *     loop:
 *       gc_scenario_run_before_tick   events, then sources, for the tick
 *       (the program drains its edit queue: the events' grid edits)
 *       gc_sim_tick
 *       gc_scenario_run_after_tick    exits, arrivals, routes, followers
 *       gc_scenario_run_done          the scenario's stop rule
 *
 * Time.  Tick n (from 1) simulates [(n - 1) dt, n dt) with dt = 1 / hz.  An
 * event at time T fires in gc_scenario_run_before_tick of the tick n whose
 * interval holds T, n = floor(T * hz) + 1: after n - 1 ticks its effect is
 * not there yet, after n ticks it is.  A source's k-th agent (k from 0) is
 * due at start + k / rate (while that is before `end`, k < total): before
 * tick n, exactly the agents due at or before (n - 1) dt have been made,
 * unless a spawn was blocked (see below).
 *
 * Grid edits.  Paint, add and remove events change the scenario's model of
 * the grid (the map, then the geometry's shapes, then the events' shapes in
 * the order they fired, without the removed ones); the cells whose type
 * that changes go to the config's `edits` callback as gc_edit entries (a
 * RECT per run of equal cells in a row), which the daemon pushes onto its
 * edit queue as one batch, so that its applier checks, counts and applies
 * them like any other edit, before the tick.
 *
 * Spawning.  An agent is put at the centre of a cell of its area (drawn
 * with the run's seed) only where its body overlaps no obstacle cell and no
 * other body.  A group's agents that do not all fit fail the start
 * (GC_ERANGE, the message names the group).  A source's agent that finds no
 * free place in 16 draws waits and tries again before the next tick; each
 * such wait is counted (gc_scenario_counts.blocked).
 *
 * Speeds.  A fixed speed is used as given; a distribution is drawn (normal,
 * Box-Muller, from the run's seed) and drawn again until it lies in
 * [min, max].  The same scenario, seed and hz give the same spawns, draws
 * and events.
 */

typedef struct gc_scenario_run gc_scenario_run;

/* The edits of an event (n >= 1), to apply before the coming tick: the
 * daemon pushes them as one batch onto its queue.  Return 0, or a negative
 * gc_err that stops the run (gc_scenario_run_before_tick returns it). */
typedef int gc_scenario_edits_fn(void *arg, gc_edit *e, size_t n);

typedef struct gc_scenario_run_config {
    double hz;     /* ticks per simulated second, > 0 */
    uint64_t seed; /* the run's seed (the daemon passes the file's, or
                      --seed's) */
    gc_scenario_edits_fn *edits; /* NULL: grid events are refused
                                    (GC_EINVAL from before_tick) */
    void *edits_arg;
} gc_scenario_run_config;

/* Figures of a run so far.  Every agent made is present, has left or
 * was removed: spawned == present + left + removed at every call. */
typedef struct gc_scenario_counts {
    uint64_t tick;                /* ticks after which these were taken */
    double time;                  /* tick / hz, seconds */
    uint64_t spawned;             /* groups' and sources' agents made */
    uint64_t from_sources;        /* of which by sources */
    uint64_t present;             /* in the simulation now */
    uint64_t arrived;             /* present and at their goal (not left) */
    uint64_t left;                /* removed at an exit: sum of left_by_exit */
    const uint64_t *left_by_exit; /* [nexits], owned by the run */
    const double *last_by_exit;   /* [nexits]: time of each exit's last
                                     leaver, -1 before any */
    size_t nexits;
    double evacuation_time; /* time of the last exit, -1 before any */
    uint64_t blocked;       /* source spawns that waited a tick */
    uint64_t events_fired;
    uint64_t cells_edited; /* cells the events' edits changed */
    uint64_t removed;      /* removed from outside the scenario (an
                              editor's remove): the run lets them go */
} gc_scenario_counts;

/*
 * A run of `sc` (borrowed: it must outlive the run) on `sim` (borrowed;
 * made with no agents and max_agents room for the scenario), under `cfg`.
 * The caller owns *out (gc_scenario_run_free).  GC_EINVAL, GC_ENOMEM;
 * GC_ERANGE when a group's fastest speed is more than the simulation
 * takes at cfg's tick rate (GC_SIM_MAX_SPEED_CELLS_PER_TICK).
 */
int gc_scenario_run_new(gc_scenario_run **out, const gc_scenario *sc,
                        gc_sim *sim, const gc_scenario_run_config *cfg,
                        gc_error *err);

/* Free a run (NULL allowed).  Agents it made stay in the sim. */
void gc_scenario_run_free(gc_scenario_run *r);

/* Place the groups' agents (time 0).  GC_ERANGE with a message naming the
 * group when its agents do not fit in its spawn area, the sim's errors. */
int gc_scenario_run_start(gc_scenario_run *r, gc_error *err);

/* Before the next tick: fire its events (edits through cfg.edits), make
 * the sources' due agents.  Errors from the sim or the edits callback. */
int gc_scenario_run_before_tick(gc_scenario_run *r, gc_error *err);

/* After a tick: remove the agents standing in an exit (counted there), set
 * the next goal of route walkers and the target of followers, count the
 * arrived.  Errors from the sim. */
int gc_scenario_run_after_tick(gc_scenario_run *r, gc_error *err);

/* The scenario's stop rule: the time limit passed, or (when_done) no
 * agent is left that has not arrived, no source can make more and no
 * set_goal or start_source event is still to come. */
bool gc_scenario_run_done(const gc_scenario_run *r);

/* The figures so far (left_by_exit stays valid until the run is freed). */
void gc_scenario_run_counts(const gc_scenario_run *r, gc_scenario_counts *out);

/* The speeds drawn for group `g` so far: how many, their least and
 * greatest (0, 0 when none).  GC_ERANGE for a bad group. */
int gc_scenario_run_speeds(const gc_scenario_run *r, size_t g, uint64_t *n,
                           double *min, double *max);

GC_END_DECLS
#endif
