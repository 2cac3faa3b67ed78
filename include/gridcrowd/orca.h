/*
 * gridcrowd/orca.h: local collision avoidance between agents with bodies
 * (ORCA, optimal reciprocal collision avoidance, van den Berg et al.).
 *
 * Three layers, each usable alone:
 *
 *   - gc_orca_lines / gc_orca_solve / gc_orca_velocity: one agent's new
 *     velocity from its neighbours and nearby wall segments.  Pure
 *     functions: no state, no allocation, safe from any number of threads.
 *   - gc_orca_grid: a spatial index of agent positions (a uniform grid of
 *     buckets filled by counting sort) answering "the K nearest agents
 *     within distance D" deterministically.
 *   - gc_orca_step: new velocities for a range [begin, end) of agents from
 *     read-only arrays of the previous tick, so that threads can split
 *     [0, N) without locks and get the same bits as one thread.
 *
 * Velocities are in units per second, positions in units (one grid cell is
 * one unit in gridcrowd), times in seconds.
 *
 * Precision: everything is float, as in RVO2.  Geometry is always taken
 * relative to the agent (a neighbour's relative position is one
 * subtraction, exact to half an ulp of the coordinates: under 0.001 units
 * on maps up to 16,384 cells wide, far below a body's radius), and the
 * linear programs work in velocity space where magnitudes stay under
 * max speed + radius / dt (about 10 units/s here), so their rounding error
 * is around 1e-6 units/s; constraints are tested with a 1e-5 tolerance.
 */
#ifndef GRIDCROWD_ORCA_H
#define GRIDCROWD_ORCA_H

#include <stddef.h>
#include <stdint.h>

#include <gridcrowd/common.h>
#include <gridcrowd/error.h>
#include <gridcrowd/grid.h> /* gc_vec2 */

GC_BEGIN_DECLS

/* Limits of the stack buffers used per agent (no allocation per call). */
#define GC_ORCA_MAX_NEIGHBOURS 64
#define GC_ORCA_MAX_SEGMENTS 64
#define GC_ORCA_MAX_LINES (GC_ORCA_MAX_NEIGHBOURS + GC_ORCA_MAX_SEGMENTS)

/* What an agent sees of another (or of itself): body and motion. */
typedef struct gc_orca_agent {
    gc_vec2 pos;
    gc_vec2 vel;
    float radius;
} gc_orca_agent;

/*
 * A static wall segment, for instance the edge of an obstacle cell.  It
 * blocks from both sides and its ends are rounded by the agent's radius.
 * Callers should merge collinear cell edges into one segment: at the
 * shared end of two separate collinear segments each one's velocity
 * obstacle ends in a leg, and an agent heading at that end is held back
 * harder than a single segment would (RVO2 avoids this with polygon
 * topology; a merged segment avoids it with no topology at all).
 */
typedef struct gc_orca_segment {
    gc_vec2 a, b;
} gc_orca_segment;

/*
 * A half-plane of permitted velocities: v is permitted when it lies on the
 * left of the line through `point` with unit direction `dir`, that is when
 * dir.x * (v.y - point.y) - dir.y * (v.x - point.x) >= 0.
 */
typedef struct gc_orca_line {
    gc_vec2 point;
    gc_vec2 dir;
} gc_orca_line;

typedef struct gc_orca_params {
    float time_horizon;      /* s: agents avoid collisions this far ahead */
    float time_horizon_obst; /* s: the same for wall segments */
    float dt;                /* s: the tick; overlaps resolve within one */
    float neighbour_dist;    /* units: neighbours farther are ignored */
    int max_neighbours;      /* K, at most GC_ORCA_MAX_NEIGHBOURS */
    float radius;            /* units: default body radius */
    float max_speed;         /* units/s: default speed limit */
} gc_orca_params;

/* RVO2's Circle example: horizons 10 s, dt 0.25 s, neighbour distance 15,
 * 10 neighbours, radius 1.5, max speed 2. */
void gc_orca_params_default(gc_orca_params *p);

typedef struct gc_orca_report {
    int feasible;         /* 1 when every line was satisfied (the 2-D LP) */
    int n_lines;          /* constraints built: obstacles first */
    int n_obstacle_lines; /* of which from wall segments */
    int n_hard_lines;     /* lines the 3-D program kept hard: the walls',
                             and in gc_orca_velocity[_adaptive] the
                             overlapping neighbours' when feasible with
                             them (see gc_orca_velocity: first_failed is
                             then in that order) */
    int first_failed;     /* first line the 2-D LP failed on, or n_lines */
    float max_violation;  /* largest distance of the answer on the wrong
                             side of a line, over all lines (0 if none) */
} gc_orca_report;

/*
 * Build the ORCA half-planes of `self` into `lines` (room for n + m lines
 * needed): first one per wall segment that is not already covered by an
 * earlier segment's line (segments are taken nearest first, ties by
 * index), with full responsibility and horizon time_horizon_obst; then one
 * per neighbour, in the given order, with half responsibility and horizon
 * time_horizon (or, when the bodies already overlap, a line that separates
 * them within one dt).  Sets *n_obst to the number of segment lines and
 * returns the total, or GC_EINVAL (bad parameters, n > GC_ORCA_MAX_NEIGHBOURS
 * or m > GC_ORCA_MAX_SEGMENTS).
 */
int gc_orca_lines(const gc_orca_params *p, const gc_orca_agent *self,
                  const gc_orca_agent *nb, size_t n, const gc_orca_segment *seg,
                  size_t m, gc_orca_line *lines, size_t *n_obst);

/*
 * The velocity nearest `pref` (clipped to max_speed) that satisfies every
 * line, by the incremental 2-D linear program taken in the given order (no
 * shuffling: the answer depends only on the input).  When no velocity
 * satisfies them all, the first n_obst lines are kept as hard constraints
 * and the answer minimises the largest violation of the others (the 3-D
 * program, as in RVO2).  Fills *rep when not NULL.  Returns 0 or GC_EINVAL
 * (n > GC_ORCA_MAX_LINES, n_obst > n, max_speed not finite or < 0).
 */
int gc_orca_solve(const gc_orca_line *lines, size_t n, size_t n_obst,
                  gc_vec2 pref, float max_speed, gc_vec2 *out,
                  gc_orca_report *rep);

/*
 * gc_orca_lines then gc_orca_solve: the new velocity of `self` given its
 * preferred velocity, speed limit, neighbours and nearby walls, except
 * when the program is infeasible and some neighbours' bodies already
 * overlap self's (radii as given): then the program is taken with those
 * neighbours first (each part in its given order), and their lines are
 * held hard with the walls' when the 2-D program satisfies them all: a
 * body already inside another gets out first, and the least violation is
 * over the lines of bodies still apart.  That is, to the bit,
 * gc_orca_solve(lines, k, n_hard_lines) over the lines gc_orca_lines
 * builds from the neighbours so ordered.  Returns 0 or GC_EINVAL as the
 * two do.
 */
int gc_orca_velocity(const gc_orca_params *p, const gc_orca_agent *self,
                     gc_vec2 pref, float max_speed, const gc_orca_agent *nb,
                     size_t n, const gc_orca_segment *seg, size_t m,
                     gc_vec2 *out, gc_orca_report *rep);

/*
 * gc_orca_velocity, looking less far ahead when it must.  When the
 * program is infeasible (a crush: ORCA's 3-D program then trades the
 * neighbours' long-horizon lines against the overlaps' urgent ones), the
 * neighbours' horizon shortens: the ladder of horizons is time_horizon
 * times GC_ORCA_SHORTEN^j, j = 1 .. at most GC_ORCA_SHORTEN_STEPS, none
 * below dt (the walls keep theirs).  The answer is that of a step j whose
 * program is feasible where step j - 1's is not (the edge, which is the
 * longest feasible horizon when feasibility only grows down the ladder):
 * searched from *step when step is not NULL and *step > 0 (a hint: last
 * tick's step for the same agent, walking the ladder one step at a time
 * from it), else from the shortest horizon by bisection.  When even the
 * shortest is infeasible, the shortest's least-violation answer, whose
 * binding lines are then the overlaps' and the walls' (feasibility need
 * not only grow down the ladder: from a hint at a feasible step above an
 * infeasible shortest, the answer is the edge found there).  Feasible at
 * time_horizon, the answer is gc_orca_velocity's.  *rep, when not NULL,
 * describes the program that gave the answer, and *step (when not NULL)
 * is set to its step (0: time_horizon).  Returns 0 or GC_EINVAL as
 * gc_orca_velocity.
 */
#define GC_ORCA_SHORTEN 0.7f
#define GC_ORCA_SHORTEN_STEPS 10
int gc_orca_velocity_adaptive(const gc_orca_params *p,
                              const gc_orca_agent *self, gc_vec2 pref,
                              float max_speed, const gc_orca_agent *nb,
                              size_t n, const gc_orca_segment *seg, size_t m,
                              gc_vec2 *out, gc_orca_report *rep, int *step);

/*
 * The spatial index.  Positions are bucketed by the cell of a uniform grid
 * laid over their bounding box; buckets are filled by counting sort, so a
 * build is O(N + cells) and keeps agents of one bucket in index order.  The
 * index owns all its memory, grows it on demand in gc_orca_grid_build and
 * never allocates in a query.  A built index is read-only: any number of
 * threads may query it at once; building while others query is a race the
 * caller must prevent (the simulation builds between ticks).
 */
typedef struct gc_orca_grid gc_orca_grid;

/* A new empty index in *out (free with gc_orca_grid_free).  GC_ENOMEM. */
int gc_orca_grid_new(gc_orca_grid **out);

void gc_orca_grid_free(gc_orca_grid *g);

/*
 * Index the n positions (x[i], y[i]) with buckets `cell` units wide (the
 * width grows when the box would need more than n / 2 + 64 buckets, so that
 * scattered agents cost no more memory than packed ones).  The arrays are
 * copied.  Returns 0, GC_EINVAL (cell not > 0, a position not finite, n
 * >= 2^32 - 1) or GC_ENOMEM (the index is then empty but valid).  A
 * quarter of the neighbour distance is a good width for crowds like RVO2's
 * circle (tools/bench/bench-orca --cell compares others).
 */
int gc_orca_grid_build(gc_orca_grid *g, const float *x, const float *y,
                       size_t n, float cell);

/*
 * The (at most k, and at most GC_ORCA_MAX_NEIGHBOURS) agents nearest q at
 * a distance < dist, excluding agent
 * `self` (pass SIZE_MAX to exclude none), ordered by squared distance then
 * by index (so the answer never depends on bucket order).  Writes indices
 * to idx[] and squared distances to d2[] (d2 may be NULL) and returns the
 * count.
 */
size_t gc_orca_grid_nearest(const gc_orca_grid *g, gc_vec2 q, size_t self,
                            size_t k, float dist, uint32_t *idx, float *d2);

/*
 * The same answer, faster when the caller knows k agents other than self
 * within a squared distance `hint` of q (for instance last tick's
 * neighbours, at their new positions: the largest of their squared
 * distances now): the scan then looks no further than the hint.  A hint
 * that is too small gives only the nearest within it; INFINITY (or any
 * hint >= dist * dist) is gc_orca_grid_nearest.
 */
size_t gc_orca_grid_nearest_hint(const gc_orca_grid *g, gc_vec2 q,
                                 size_t self, size_t k, float dist,
                                 float hint, uint32_t *idx, float *d2);

/*
 * Wall segments near an agent, for gc_orca_step: write at most cap
 * segments within `range` of pos into buf and return how many.  Called
 * concurrently from every thread running a step: it must only read shared
 * data.  Nearest first is not needed (gc_orca_lines sorts).
 */
typedef size_t (*gc_orca_segment_fn)(void *ctx, gc_vec2 pos, float range,
                                     gc_orca_segment *buf, size_t cap);

/*
 * The agents of one tick, structure of arrays, all read-only during the
 * step.  radius and max_speed may be NULL (the params' value for all).
 */
typedef struct gc_orca_state {
    size_t n;
    const float *px, *py;         /* previous tick's positions */
    const float *vx, *vy;         /* previous tick's velocities */
    const float *pref_x, *pref_y; /* preferred velocities */
    const float *radius;
    const float *max_speed;
} gc_orca_state;

/*
 * New velocities of agents [begin, end) into out_vx/out_vy[begin..end).
 * Neighbours come from `g`, which must index s->px/py (the same n); walls
 * from `segs` (may be NULL), asked for segments within time_horizon_obst *
 * max_speed + radius, as RVO2 does.  Reads only *p, *g and *s, writes only
 * out[begin, end): threads splitting [0, n) need no lock and produce the
 * same bits as one thread.  Returns 0 or GC_EINVAL (bad parameters, a range
 * outside [0, n), g built for another n).
 */
int gc_orca_step(const gc_orca_params *p, const gc_orca_grid *g,
                 const gc_orca_state *s, gc_orca_segment_fn segs,
                 void *segs_ctx, size_t begin, size_t end, float *out_vx,
                 float *out_vy);

GC_END_DECLS

#endif /* GRIDCROWD_ORCA_H */
