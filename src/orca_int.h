/*
 * orca_int.h: what the files of the ORCA module share (orca.c, the
 * half-planes; orca-solve.c, the linear programs; orca-index.c, the
 * neighbour index and the tick): their internal calls, and, static
 * inline, the vector helpers and agent_line(), which run once per
 * neighbour in gc_orca_step's inner loop, where a call across files
 * (there is no LTO) would cost the inlining they get in one file.
 * Included only by orca*.c.
 */
#ifndef GRIDCROWD_ORCA_INT_H
#define GRIDCROWD_ORCA_INT_H

#include <gridcrowd/orca.h>

#include <math.h>
#include <stdbool.h>

/* fmaxf/fminf are library calls at -O2 (they must handle NaN); ours are
 * two instructions. */
/* The widest lanes the vector paths may take: 16 (AVX-512, where the
 * CPU has it: the crowd's linear programs), 8 (AVX) or 4 (SSE2); 0, the
 * default, as the CPU prefers (gc_orca_lanes_sixteen, orca_simd.h).
 * Tests set it, before any thread runs, to hold them to fewer where the
 * CPU could take more, or to sixteen where it has AVX-512 but would not
 * take it (orca.c). */
extern unsigned gc_orca_lanes_widest;

/* The tolerance of parallel-line and constraint tests (orca.c,
 * orca-solve.c). */
#define GC_ORCA_EPS 1e-5f

/* The lines of neighbours o[0 .. n) for agent a at horizon 1 / inv_tau,
 * overlaps parted within 1 / inv_dt (agent_line()'s, eight or four at a
 * time where the CPU allows: orca.c). */
void gc_orca_agent_lines(const gc_orca_agent *a, const gc_orca_agent *o,
                         size_t n, float inv_tau, float inv_dt,
                         gc_orca_line *out);

/* gc_orca_velocity, telling also whether the program was feasible (the
 * report's `feasible`) when `feasible` is not NULL, without the report's
 * pass over every line: one agent's answer, which the crowd's programs
 * in lanes (gc_orca_programs_solve, below) give to the bit. */
int gc_orca_velocity_fe(const gc_orca_params *p, const gc_orca_agent *self,
                        gc_vec2 pref, float max_speed, const gc_orca_agent *nb,
                        size_t n, const gc_orca_segment *seg, size_t m,
                        gc_vec2 *out, gc_orca_report *rep, bool *feasible);

/* Whether o's body overlaps a's (agent_line's test, which gives such a
 * neighbour a line that separates the two within one dt). */
static inline bool
gc_orca_overlapping(const gc_orca_agent *a, const gc_orca_agent *o)
{
    float dx = o->pos.x - a->pos.x, dy = o->pos.y - a->pos.y;
    float R = a->radius + o->radius;
    return !(dx * dx + dy * dy > R * R);
}

/*
 * One agent's velocity program, for answering several at once: what
 * gc_orca_velocity_fe takes, the lines made of it and its answer.  The
 * caller fills self, pref, max_speed, nb and n_nb (the crowd builds its
 * neighbours in place), and over_known: when true, `over` holds which
 * neighbours' bodies overlap self's (bit k: gc_orca_overlapping(&self,
 * &nb[k]), as the crowd finds before it orders them), which the solver
 * then need not test again.  Then gc_orca_program_walls takes the walls
 * seg[0 .. m) (not copied: they, and p, whose validity is the caller's
 * (params_valid), must outlive the lines' making; pr->seg is a
 * buffer the caller may fill for it) and checks the program (GC_EINVAL
 * for too many neighbours or walls, or a max_speed that is negative or
 * not finite: nothing is made of it), gc_orca_programs_lines makes the
 * lines of programs pr[0 .. count) so taken, gc_orca_lines's to the bit,
 * the walls' of all of them and the neighbours' tails in lanes (orca.c),
 * and gc_orca_programs_solve answers programs whose lines are made: out
 * and feasible are, to the bit, gc_orca_velocity_fe's for the same input
 * (orca-solve.c).  gc_orca_program_lines is the first two for one
 * program, its walls copied and p checked.
 */
#define GC_ORCA_LANES_MAX 16
typedef struct gc_orca_program {
    const gc_orca_params *params; /* (gc_orca_program_walls) */
    gc_orca_agent self;
    gc_vec2 pref;
    float max_speed;
    size_t n_nb;
    uint64_t over; /* when over_known: bit k, nb[k] overlaps self */
    bool over_known;
    size_t n_lines, n_obst; /* the walls' lines [0, n_obst) first */
    gc_vec2 out;
    bool feasible;
    const gc_orca_segment *walls; /* [0 .. n_seg): gc_orca_program_walls */
    size_t n_seg;
    uint64_t seg_ok; /* (gc_orca_programs_lines' scratch) */
    gc_orca_agent nb[GC_ORCA_MAX_NEIGHBOURS];
    gc_orca_segment seg[GC_ORCA_MAX_SEGMENTS]; /* the caller's to fill */
    gc_orca_line lines[GC_ORCA_MAX_LINES];
} gc_orca_program;
int gc_orca_program_walls(const gc_orca_params *p, gc_orca_program *pr,
                          const gc_orca_segment *seg, size_t m);
void gc_orca_programs_lines(gc_orca_program *pr, size_t count);
int gc_orca_program_lines(const gc_orca_params *p, gc_orca_program *pr,
                          const gc_orca_segment *seg, size_t m);
void gc_orca_programs_solve(gc_orca_program *pr, size_t count);

/* Positions to index: agent i's at x and y, i * stride bytes on (the
 * stride sizeof (float) for arrays of their own, a record's size for
 * records that hold them). */
typedef struct gc_orca_points {
    const float *x, *y;
    size_t stride;
} gc_orca_points;

/* The float i * stride bytes on from p (pts->x or pts->y). */
static inline float
gc_orca_point(const float *p, size_t stride, size_t i)
{
    return *(const float *)(const void *)((const char *)p + i * stride);
}

/*
 * gc_orca_grid_build in steps, so that parts of the agents can be taken
 * by threads of their own (the simulation's workers): the bounds of each
 * part (gc_orca_bounds_*, joined), then the shape for the whole
 * (gc_orca_grid_shape: the buckets, and room for `parts` parts), then
 * each part's count (gc_orca_grid_count, agents [lo, hi) as part
 * `part`, the parts in index order and together all n), the offsets
 * (gc_orca_grid_offsets, once all are counted), and each part's fill
 * (gc_orca_grid_fill, the same ranges).  The index is the one
 * gc_orca_grid_build makes, whatever the parts: a bucket holds its
 * agents in index order, part 0's first.  gc_orca_grid_shape returns
 * GC_EINVAL (the index left empty when a position was not finite) or
 * GC_ENOMEM; the steps after it cannot fail.
 */
typedef struct gc_orca_bounds {
    float x0, y0, x1, y1;
    bool finite; /* every position added was finite */
} gc_orca_bounds;
void gc_orca_bounds_init(gc_orca_bounds *b);
void gc_orca_bounds_add(gc_orca_bounds *b, const gc_orca_points *pts, size_t lo,
                        size_t hi);
void gc_orca_bounds_join(gc_orca_bounds *b, const gc_orca_bounds *o);
int gc_orca_grid_shape(gc_orca_grid *g, const gc_orca_bounds *b, size_t n,
                       float cell, size_t parts);
void gc_orca_grid_count(gc_orca_grid *g, const gc_orca_points *pts, size_t lo,
                        size_t hi, size_t part);
void gc_orca_grid_offsets(gc_orca_grid *g);
void gc_orca_grid_fill(gc_orca_grid *g, const gc_orca_points *pts, size_t lo,
                       size_t hi, size_t part);

static inline float
gc_maxf(float a, float b)
{
    return a > b ? a : b;
}

static inline float
gc_minf(float a, float b)
{
    return a < b ? a : b;
}

static inline gc_vec2
v2(float x, float y)
{
    gc_vec2 r = {x, y};
    return r;
}

static inline gc_vec2
add(gc_vec2 a, gc_vec2 b)
{
    return v2(a.x + b.x, a.y + b.y);
}

static inline gc_vec2
sub(gc_vec2 a, gc_vec2 b)
{
    return v2(a.x - b.x, a.y - b.y);
}

static inline gc_vec2
scale(float s, gc_vec2 a)
{
    return v2(s * a.x, s * a.y);
}

static inline float
dot(gc_vec2 a, gc_vec2 b)
{
    return a.x * b.x + a.y * b.y;
}

/* Positive when b is counter-clockwise from a. */
static inline float
det(gc_vec2 a, gc_vec2 b)
{
    return a.x * b.y - a.y * b.x;
}

/* How far v is on the permitted (left) side of l; negative: violated. */
static inline float
slack(const gc_orca_line *l, gc_vec2 v)
{
    return det(l->dir, sub(v, l->point));
}

static inline bool
params_valid(const gc_orca_params *p)
{
    return p && p->time_horizon > 0 && p->time_horizon_obst > 0 && p->dt > 0 &&
           isfinite(p->time_horizon) && isfinite(p->time_horizon_obst) &&
           isfinite(p->dt) && p->neighbour_dist >= 0 &&
           isfinite(p->neighbour_dist) && p->max_neighbours >= 0 &&
           p->max_neighbours <= GC_ORCA_MAX_NEIGHBOURS && p->radius >= 0 &&
           isfinite(p->radius) && p->max_speed >= 0 && isfinite(p->max_speed);
}

/*
 * The line for neighbour `o` of agent `a`.  p is o's position relative to
 * a, w the relative velocity, R the sum of the radii.  Outside an overlap
 * the velocity obstacle is the cone from the origin tangent to the disc
 * (p, R), cut off by the disc (p / tau, R / tau); its nearest boundary
 * point to the relative velocity is on the cut-off arc when the relative
 * velocity lies behind the arc's centre (seen from p) within the cone, on
 * a leg otherwise.  Inside an overlap, the obstacle for one dt is the disc
 * (p / dt, R / dt), and its boundary is pushed to: get apart within a tick.
 */
static inline gc_orca_line
agent_line(const gc_orca_agent *a, const gc_orca_agent *o, float inv_tau,
           float inv_dt)
{
    gc_vec2 p = sub(o->pos, a->pos);
    gc_vec2 vrel = sub(a->vel, o->vel);
    float R = a->radius + o->radius;
    float d2 = dot(p, p), R2 = R * R;
    gc_vec2 dir, u;

    if (d2 > R2) {
        gc_vec2 w = sub(vrel, scale(inv_tau, p));
        float w2 = dot(w, w), wp = dot(w, p);
        if (wp < 0 && wp * wp > R2 * w2) {
            float wl = sqrtf(w2);
            gc_vec2 uw = scale(1.0f / wl, w);
            dir = v2(uw.y, -uw.x);
            u = scale(R * inv_tau - wl, uw);
        } else {
            float leg = sqrtf(d2 - R2);
            if (det(p, w) > 0) /* the left leg */
                dir = scale(1.0f / d2,
                            v2(p.x * leg - p.y * R, p.x * R + p.y * leg));
            else /* the right leg, directed so its outside is on the left */
                dir = scale(-1.0f / d2,
                            v2(p.x * leg + p.y * R, -p.x * R + p.y * leg));
            u = sub(scale(dot(vrel, dir), dir), vrel);
        }
    } else {
        gc_vec2 w = sub(vrel, scale(inv_dt, p));
        float wl = sqrtf(dot(w, w));
        gc_vec2 uw;
        /* w = 0 only when the relative velocity aims exactly at getting
         * apart in one dt: any direction is then a boundary normal; moving
         * away from the other's centre is the natural one. */
        if (wl > 0)
            uw = scale(1.0f / wl, w);
        else if (d2 > 0)
            uw = scale(-1.0f / sqrtf(d2), p);
        else
            uw = v2(1.0f, 0.0f);
        dir = v2(uw.y, -uw.x);
        u = scale(R * inv_dt - wl, uw);
    }
    gc_orca_line l = {add(a->vel, scale(0.5f, u)), dir};
    return l;
}

#endif /* GRIDCROWD_ORCA_INT_H */
