/*
 * bench-orca.c: headless benchmark of ORCA avoidance (src/orca.c and
 * src/orca-index.c).
 *
 * Scenarios:
 *   circle    RVO2's Circle: agents evenly spaced on a ring of radius 200
 *             (250 agents on one ring, RVO2's spacing), more agents on
 *             further rings at the same spacing, so the annulus grows with
 *             sqrt(N); each walks to its antipodal point.
 *   corridor  two groups in a walled corridor (walls as segments) walk
 *             through each other to the far end.
 * Parameters are RVO2's Circle ones (gc_orca_params_default): radius 1.5,
 * preferred speed 1, max speed 2, dt 0.25, neighbour distance 15, 10
 * neighbours, time horizons 10.  Each step: preferred velocity towards the
 * goal at speed 1 (clipped to reach it), then the timed part (index build
 * and new velocities, split over the threads), then position += v * dt.
 *
 * Printed per run: mean and 95th percentile ms per step of the timed part
 * (wall clock) and its mean CPU time, overlapping pairs per step (mean,
 * max; a pair overlaps when its bodies interpenetrate by more than 0.1% of
 * 2r), the deepest overlap as a fraction of 2r, agents arrived (within r
 * of the goal), and the step at which all had arrived.
 *
 * Threads: T - 1 workers plus the main thread, each owning a fixed slice
 * of [0, N); two barriers per step.  The step reads only the previous
 * tick's arrays, so slices need no lock; arrays change only between the
 * barriers, on the main thread.  Every worker is joined at the end.
 *
 * main runs four phases: parse_opts, setup (arrays, scenario, workers),
 * run (the step loop, with count_overlaps untimed) and report.
 */
#include "config.h"

#include <gridcrowd/orca.h>
#include <gridcrowd/util.h>

#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "prog.h"

#define PROG "bench-orca"

struct bench {
    gc_orca_params p;
    int corridor;
    size_t n;
    float *px, *py, *vx, *vy, *nvx, *nvy, *gx, *gy, *prefx, *prefy;
    float wall_len, wall_w; /* corridor: x in [0, len], walls y = 0, w */
    gc_orca_grid *g;
    gc_orca_grid *og; /* the overlap counter's own index */
    gc_orca_state st;
};

/* Shared with the workers: written by the main thread only while every
 * worker waits at `start`, read by workers after it (the barrier orders
 * the accesses). */
struct pool {
    struct bench *b;
    int threads;
    int stop;
    int err; /* first error, written by a worker before `done` */
    pthread_barrier_t start, done;
    pthread_mutex_t err_lock; /* protects err */
};

struct worker {
    struct pool *pool;
    size_t begin, end;
    pthread_t tid;
};

static size_t
corridor_walls(void *ctx, gc_vec2 pos, float range, gc_orca_segment *buf,
               size_t cap)
{
    const struct bench *b = ctx;
    size_t k = 0;
    float x0 = fmaxf(pos.x - range, 0), x1 = fminf(pos.x + range, b->wall_len);
    if (x0 >= x1)
        return 0;
    /* Each wall clipped to the range: one merged segment, not cell edges
     * (see gc_orca_segment). */
    const float ys[2] = {0, b->wall_w};
    for (int i = 0; i < 2 && k < cap; i++)
        if (fabsf(pos.y - ys[i]) < range) {
            gc_orca_segment s = {{x0, ys[i]}, {x1, ys[i]}};
            buf[k++] = s;
        }
    return k;
}

static int
run_slice(struct bench *b, size_t begin, size_t end)
{
    return gc_orca_step(&b->p, b->g, &b->st,
                        b->corridor ? corridor_walls : NULL, b, begin, end,
                        b->nvx, b->nvy);
}

static void *
worker_main(void *arg)
{
    struct worker *w = arg;
    struct pool *pl = w->pool;
    for (;;) {
        pthread_barrier_wait(&pl->start);
        if (pl->stop)
            break;
        int r = run_slice(pl->b, w->begin, w->end);
        if (r < 0) {
            pthread_mutex_lock(&pl->err_lock);
            if (!pl->err)
                pl->err = r;
            pthread_mutex_unlock(&pl->err_lock);
        }
        pthread_barrier_wait(&pl->done);
    }
    return NULL;
}

static double
now_ms(void)
{
    return (double)gc_clock_ns() / 1e6;
}

/* CPU time of all threads: on a shared machine, wall time also counts
 * the time other processes held the cores. */
static double
cpu_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static int
cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static void
setup_circle(struct bench *b)
{
    const double r0 = 200, spacing = 2 * M_PI * 200 / 250;
    size_t i = 0;
    for (double R = r0; i < b->n; R += spacing) {
        size_t fit = (size_t)floor(2 * M_PI * R / spacing);
        size_t k = b->n - i < fit ? b->n - i : fit;
        for (size_t j = 0; j < k; j++, i++) {
            double a = 2 * M_PI * (double)j / (double)k;
            b->px[i] = (float)(R * cos(a));
            b->py[i] = (float)(R * sin(a));
            b->gx[i] = -b->px[i];
            b->gy[i] = -b->py[i];
        }
    }
}

static void
setup_corridor(struct bench *b)
{
    double scale = sqrt(fmax(1.0, (double)b->n / 1000.0));
    const double sp = 2 * M_PI * 200 / 250; /* the circle's spacing */
    b->wall_w = (float)(40 * scale);
    /* Rows of the two groups are offset by half a spacing: exactly
     * facing files are a symmetric standoff for ORCA, not a crowd. */
    size_t rows = (size_t)floor((b->wall_w - 4 - sp / 2) / sp) + 1;
    size_t half = (b->n + 1) / 2;
    size_t cols = (half + rows - 1) / rows;
    double block = (double)cols * sp;
    b->wall_len = (float)(2 * block + 30);
    for (size_t i = 0; i < b->n; i++) {
        size_t k = i < half ? i : i - half;
        double x = 5 + (double)(k / rows) * sp;
        double y =
            (b->wall_w - (double)(rows - 1) * sp) / 2 + (double)(k % rows) * sp;
        if (i >= half)
            x = b->wall_len - x;
        y += i < half ? -sp / 4 : sp / 4;
        b->px[i] = (float)x;
        b->py[i] = (float)y;
        b->gx[i] = (float)(b->wall_len - x);
        b->gy[i] = (float)y;
    }
}

static void
usage(FILE *f)
{
    fprintf(f, "usage: " PROG " [--scenario circle|corridor] [--agents N] "
               "[--threads T] [--steps S] [--cell F]\n"
               "  Run the crowd until every agent has arrived or S steps "
               "(default 20000),\n"
               "  T = 1 or 2 threads (default 1), N agents (default 1000),\n"
               "  index buckets F * neighbour distance wide (default 0.25).\n"
               "  Prints ms per step of avoidance (index build + velocities),\n"
               "  overlaps, arrivals.  Exit 0, 1 on error, 2 on bad usage.\n");
}

/* The command line. */
struct opts {
    int corridor;
    long n, threads, steps;
    double cellfrac; /* bucket width / neighbour distance */
};

/* Fills o from the command line; returns -1 to go on, else the exit
 * code (0 after --help, 2 on bad usage). */
static int
parse_opts(int argc, char **argv, struct opts *o)
{
    static const struct option opts[] = {
        {"scenario", required_argument, NULL, 's'},
        {"agents", required_argument, NULL, 'n'},
        {"threads", required_argument, NULL, 't'},
        {"steps", required_argument, NULL, 'S'},
        {"cell", required_argument, NULL, 'c'},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    o->corridor = 0;
    o->n = 1000;
    o->threads = 1;
    o->steps = 20000;
    /* Bucket width of the neighbour index: a quarter of the neighbour
     * distance (measured on circle 1,000 and 10,000 against 1/2 and 1/8:
     * wider buckets scan more agents, narrower ones more rows). */
    o->cellfrac = 0.25;
    int c;
    char *end;
    while ((c = getopt_long(argc, argv, "s:n:t:S:c:h", opts, NULL)) != -1) {
        switch (c) {
        case 'c':
            errno = 0;
            o->cellfrac = strtod(optarg, &end);
            if (errno || *end || !(o->cellfrac > 0.01 && o->cellfrac <= 4)) {
                prog_say("--cell", "bad fraction '%s'", optarg);
                return 2;
            }
            break;
        case 's':
            if (strcmp(optarg, "circle") == 0)
                o->corridor = 0;
            else if (strcmp(optarg, "corridor") == 0)
                o->corridor = 1;
            else {
                prog_say("--scenario", "unknown '%s'", optarg);
                return 2;
            }
            break;
        case 'n':
        case 't':
        case 'S': {
            errno = 0;
            long v = strtol(optarg, &end, 10);
            if (errno || *end || v < 1 || v > 10000000 ||
                (c == 't' && v > 64)) {
                prog_msg("-%c: bad number '%s'", c, optarg);
                return 2;
            }
            if (c == 'n')
                o->n = v;
            else if (c == 't')
                o->threads = v;
            else
                o->steps = v;
            break;
        }
        case 'h':
            usage(stdout);
            return 0;
        default:
            usage(stderr);
            return 2;
        }
    }
    if (optind < argc) {
        usage(stderr);
        return 2;
    }
    return -1;
}

#define N_ARRAYS 10

/* The bench's per-agent arrays, for allocating and freeing them. */
static void
bench_arrays(struct bench *b, float **arrays[N_ARRAYS])
{
    float **a[N_ARRAYS] = {&b->px,  &b->py, &b->vx, &b->vy,    &b->nvx,
                           &b->nvy, &b->gx, &b->gy, &b->prefx, &b->prefy};
    memcpy(arrays, a, sizeof a);
}

/* What the run loop measures, for the report. */
struct results {
    double *times; /* wall ms of each step's timed part */
    double cpu_sum, overl_sum, deepest;
    long overl_max, all_at, done_steps;
    size_t arrived;
};

/* Allocates everything, places the agents and starts the workers; returns
 * 0, or 1 (the exit code) after saying why. */
static int
setup(struct bench *b, const struct opts *o, struct pool *pool,
      struct worker **wp, struct results *res)
{
    memset(b, 0, sizeof *b);
    gc_orca_params_default(&b->p);
    b->corridor = o->corridor;
    b->n = (size_t)o->n;
    float **arrays[N_ARRAYS];
    bench_arrays(b, arrays);
    for (size_t i = 0; i < N_ARRAYS; i++)
        if (!(*arrays[i] = calloc(b->n, sizeof(float)))) {
            prog_say("setup", "out of memory");
            return 1;
        }
    memset(res, 0, sizeof *res);
    res->all_at = -1;
    res->times = malloc((size_t)o->steps * sizeof *res->times);
    if (!res->times || gc_orca_grid_new(&b->g) < 0 ||
        gc_orca_grid_new(&b->og) < 0) {
        prog_say("setup", "out of memory");
        return 1;
    }
    if (b->corridor)
        setup_corridor(b);
    else
        setup_circle(b);
    gc_orca_state st = {b->n,     b->px,    b->py, b->vx, b->vy,
                        b->prefx, b->prefy, NULL,  NULL};
    b->st = st;

    long threads = o->threads;
    memset(pool, 0, sizeof *pool);
    pool->b = b;
    pool->threads = (int)threads;
    pthread_barrier_init(&pool->start, NULL, (unsigned)threads);
    pthread_barrier_init(&pool->done, NULL, (unsigned)threads);
    pthread_mutex_init(&pool->err_lock, NULL);
    struct worker *w = calloc((size_t)threads, sizeof *w);
    if (!w) {
        prog_say("setup", "out of memory");
        return 1;
    }
    *wp = w;
    for (long t = 0; t < threads; t++) {
        w[t].pool = pool;
        w[t].begin = b->n * (size_t)t / (size_t)threads;
        w[t].end = b->n * (size_t)(t + 1) / (size_t)threads;
        if (t > 0 && pthread_create(&w[t].tid, NULL, worker_main, &w[t])) {
            prog_say("pthread_create", "failed");
            return 1;
        }
    }
    return 0;
}

/* Overlapping pairs after a step, each counted once (j > i), untimed;
 * raises *deepest.  Negative: the index could not be built. */
static long
count_overlaps(struct bench *b, double *deepest)
{
    const float r = b->p.radius;
    int err = gc_orca_grid_build(b->og, b->px, b->py, b->n, 2 * r);
    if (err < 0)
        return err;
    long pairs = 0;
    for (size_t i = 0; i < b->n; i++) {
        uint32_t ids[GC_ORCA_MAX_NEIGHBOURS];
        float d2[GC_ORCA_MAX_NEIGHBOURS];
        gc_vec2 q = {b->px[i], b->py[i]};
        size_t k = gc_orca_grid_nearest(b->og, q, i, GC_ORCA_MAX_NEIGHBOURS,
                                        2 * r, ids, d2);
        for (size_t j = 0; j < k; j++) {
            if (ids[j] < i)
                continue;
            double depth = (2 * r - sqrt(d2[j])) / (2 * r);
            *deepest = depth > *deepest ? depth : *deepest;
            /* Bodies that ORCA keeps in contact touch to within float
             * rounding: a pair counts when deeper than 0.1% of 2r. */
            pairs += depth > 1e-3;
        }
    }
    return pairs;
}

/* Steps until every agent has arrived or `steps` steps, then stops and
 * joins the workers.  Returns 0 or a negative gc_err. */
static int
run(struct bench *b, struct pool *pool, struct worker *w, const struct opts *o,
    struct results *res)
{
    const float r = b->p.radius, dt = b->p.dt;
    int err = 0;
    const float cell = (float)(b->p.neighbour_dist * o->cellfrac);
    for (long s = 0; s < o->steps; s++) {
        for (size_t i = 0; i < b->n; i++) {
            float dx = b->gx[i] - b->px[i], dy = b->gy[i] - b->py[i];
            float d = sqrtf(dx * dx + dy * dy);
            float sp = fminf(1.0f, d / dt);
            b->prefx[i] = d > 0 ? dx / d * sp : 0;
            b->prefy[i] = d > 0 ? dy / d * sp : 0;
        }
        double t0 = now_ms(), c0 = cpu_ms();
        err = gc_orca_grid_build(b->g, b->px, b->py, b->n, cell);
        if (err < 0)
            break;
        pthread_barrier_wait(&pool->start);
        int r0 = run_slice(b, w[0].begin, w[0].end);
        pthread_barrier_wait(&pool->done);
        res->times[s] = now_ms() - t0;
        res->cpu_sum += cpu_ms() - c0;
        res->done_steps = s + 1;
        err = r0 < 0 ? r0 : pool->err;
        if (err < 0)
            break;

        res->arrived = 0;
        for (size_t i = 0; i < b->n; i++) {
            b->vx[i] = b->nvx[i];
            b->vy[i] = b->nvy[i];
            b->px[i] += b->vx[i] * dt;
            b->py[i] += b->vy[i] * dt;
            float dx = b->gx[i] - b->px[i], dy = b->gy[i] - b->py[i];
            res->arrived += dx * dx + dy * dy <= r * r;
        }
        long pairs = count_overlaps(b, &res->deepest);
        if (pairs < 0) {
            err = (int)pairs;
            break;
        }
        res->overl_sum += (double)pairs;
        res->overl_max = pairs > res->overl_max ? pairs : res->overl_max;
        if (res->arrived == b->n) {
            res->all_at = s + 1;
            break;
        }
    }

    pool->stop = 1;
    pthread_barrier_wait(&pool->start);
    for (long t = 1; t < o->threads; t++)
        pthread_join(w[t].tid, NULL);
    return err;
}

/* The one line of figures (see the note at the top); sorts res->times. */
static void
report(const struct bench *b, const struct opts *o, struct results *res)
{
    long done_steps = res->done_steps;
    double *times = res->times;
    double sum = 0;
    for (long s = 0; s < done_steps; s++)
        sum += times[s];
    qsort(times, (size_t)done_steps, sizeof *times, cmp_double);
    double p95 =
        done_steps ? times[(size_t)((double)(done_steps - 1) * 0.95)] : 0;
    printf(
        "%s agents %zu threads %ld steps %ld: avoidance ms/step mean "
        "%.3f p95 %.3f (cpu %.3f); overlapping pairs/step mean %.3f max %ld; "
        "deepest %.4f of 2r; arrived %zu/%zu; all arrived at step ",
        b->corridor ? "corridor" : "circle", b->n, o->threads, done_steps,
        done_steps ? sum / (double)done_steps : 0.0, p95,
        done_steps ? res->cpu_sum / (double)done_steps : 0.0,
        done_steps ? res->overl_sum / (double)done_steps : 0.0, res->overl_max,
        res->deepest, res->arrived, b->n);
    if (res->all_at >= 0)
        printf("%ld\n", res->all_at);
    else
        printf("-\n");
}

int
main(int argc, char **argv)
{
    prog_init(PROG);
    struct opts o;
    int rc = parse_opts(argc, argv, &o);
    if (rc >= 0)
        return rc;

    struct bench b;
    struct pool pool;
    struct worker *w = NULL;
    struct results res;
    if (setup(&b, &o, &pool, &w, &res) != 0)
        return 1;
    int err = run(&b, &pool, w, &o, &res);
    if (err < 0) {
        prog_say("step", "%s", gc_strerror(err));
        return 1;
    }
    report(&b, &o, &res);

    pthread_barrier_destroy(&pool.start);
    pthread_barrier_destroy(&pool.done);
    pthread_mutex_destroy(&pool.err_lock);
    free(w);
    free(res.times);
    gc_orca_grid_free(b.og);
    gc_orca_grid_free(b.g);
    float **arrays[N_ARRAYS];
    bench_arrays(&b, arrays);
    for (size_t i = 0; i < N_ARRAYS; i++)
        free(*arrays[i]);
    return 0;
}
