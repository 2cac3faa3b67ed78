/*
 * gc-test-world.c: a test-only stand-in for the daemon, for the viewer's
 * tests and benchmarks.
 *
 *   gc-test-world [--shm NAME] (--map FILE | --size WxH) [options]
 *
 * Creates a world from a map, places agents exactly where it is told,
 * publishes a snapshot every tick at --hz, and runs until SIGTERM or SIGINT,
 * when it sets the state to stopping and destroys the objects.  Unlike the
 * real daemon it plans nothing, so a test knows every pixel the viewer
 * should draw.  It shares the daemon's loop body, the library's host
 * (gridcrowd/host.h), without a simulation: the same edit draining and
 * queue repair, the same snapshot and statistics publishing, of agent
 * records it makes itself; it answers a TRACE request with a made-up trace
 * of the requested agent, and publishes that agent's whole path each tick,
 * as the daemon does.
 *
 * Options:
 *   --agent X,Y,HEADING,STATE[,GX,GY]  an agent at world position (X, Y),
 *                     heading in degrees (0 east, 90 south: world y grows
 *                     downwards), STATE an agent state name, goal cell
 *                     (GX, GY) (default: its own cell); repeatable
 *   --waypoint X,Y    append a waypoint (world units) to the last agent;
 *                     any number: the record carries the first 8, and the
 *                     whole path goes to the world's path section while
 *                     the agent is the one the viewer asked about
 *   --body R,VX,VY    give the last agent a body: radius R and velocity
 *                     (VX, VY), world units (per second), as the host
 *                     publishes them for a crowd
 *   --random N        N more agents on random passable cells, moving
 *   --seed S          seed of --random (default 1)
 *   --move            moving agents walk straight on at --speed, turning
 *                     away from obstacles and edges
 *   --speed F         world units per second (default 4)
 *   --hz N            ticks per second (default 30)
 *   --trace AGENT     publish a made-up trace of AGENT's search at start
 *   --world-mode M, --edits-mode M   octal modes of the objects (0600)
 *
 * The made-up trace of an agent: the passable cells of the line from its
 * cell to its goal cell (gc_line_walk, as the daemon paints a LINE) are PATH,
 * the passable cells next to that line CLOSE and the ring beyond them OPEN;
 * each closed cell is first opened, as in a search.
 *
 * Exit codes: 0 stopped by a signal; 1 the world could not be created (the
 * message says why); 2 usage.
 */
#include "config.h"

#include <gridcrowd/host.h>
#include <gridcrowd/mapio.h>
#include <gridcrowd/util.h>
#include <gridcrowd/world.h>

#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define PROG "gc-test-world"

/* Every waypoint --waypoint gave an agent; its record has the first 8. */
typedef struct fake_path {
    gc_vec2 *p;
    uint32_t n, cap;
} fake_path;

typedef struct fake {
    gc_world *w;
    gc_grid *g; /* over the world's cells */
    gc_host *host;
    uint32_t traced;   /* agent of the last trace request seen */
    gc_world_agent *a; /* records as published, waypoints included */
    uint32_t n, cap;
    fake_path *paths; /* one per record */
    float speed;
    bool move;
    uint64_t rng;
} fake;

static volatile sig_atomic_t stop_flag;

static void
on_signal(int sig)
{
    (void)sig;
    stop_flag = 1;
}

static int
usage(void)
{
    fprintf(stderr,
            "usage: " PROG " [--shm NAME] (--map FILE | --size WxH) "
            "[--agent X,Y,HEADING,STATE[,GX,GY]]... [--waypoint X,Y]... "
            "[--body R,VX,VY]... "
            "[--random N] [--seed S] [--move] [--speed F] [--hz N] "
            "[--trace AGENT] [--world-mode M] [--edits-mode M]\n");
    return 2;
}

static uint32_t
rnd(fake *f)
{
    /* xorshift64*: deterministic for a seed, good enough for placement. */
    f->rng ^= f->rng >> 12;
    f->rng ^= f->rng << 25;
    f->rng ^= f->rng >> 27;
    return (uint32_t)((f->rng * UINT64_C(2685821657736338717)) >> 32);
}

static int
parse_state(const char *s)
{
    for (int st = 0; st < GC_AGENT_NSTATES; st++)
        if (strcmp(s, gc_agent_state_name(st)) == 0)
            return st;
    return -1;
}

static gc_world_agent *
add_agent(fake *f)
{
    if (f->n == f->cap) {
        uint32_t cap = f->cap ? f->cap * 2 : 16;
        gc_world_agent *a = realloc(f->a, cap * sizeof *a);
        if (a == NULL)
            return NULL;
        f->a = a;
        fake_path *p = realloc(f->paths, cap * sizeof *p);
        if (p == NULL)
            return NULL;
        f->paths = p;
        f->cap = cap;
    }
    f->paths[f->n] = (fake_path){NULL, 0, 0};
    gc_world_agent *a = &f->a[f->n];
    memset(a, 0, sizeof *a);
    a->id = f->n++;
    a->salt = 0; /* no removal yet: see gc_world_agent.salt */
    return a;
}

/* "X,Y,HEADING,STATE[,GX,GY]" */
static int
parse_agent(fake *f, const char *arg)
{
    char st[32];
    float x, y, hd;
    int gx = INT32_MIN, gy = INT32_MIN, n;
    if (sscanf(arg, "%f,%f,%f,%31[a-z]%n,%d,%d", &x, &y, &hd, st, &n, &gx,
               &gy) < 4)
        return -1;
    int state = parse_state(st);
    if (state < 0)
        return -1;
    gc_world_agent *a = add_agent(f);
    if (a == NULL)
        return -1;
    a->x = x;
    a->y = y;
    a->heading = hd * (float)M_PI / 180.0f;
    a->state = (uint8_t)state;
    a->speed = state == GC_AGENT_MOVING ? f->speed : 0;
    a->goal_x = gx != INT32_MIN ? gx : (int32_t)x;
    a->goal_y = gy != INT32_MIN ? gy : (int32_t)y;
    return 0;
}

/* Append (x, y) to the path of the last agent. */
static int
add_waypoint(fake *f, float x, float y)
{
    gc_world_agent *a = &f->a[f->n - 1];
    fake_path *p = &f->paths[f->n - 1];
    if (p->n == p->cap) {
        uint32_t cap = p->cap ? p->cap * 2 : 8;
        gc_vec2 *v = realloc(p->p, cap * sizeof *v);
        if (v == NULL)
            return -1;
        p->p = v;
        p->cap = cap;
    }
    p->p[p->n++] = (gc_vec2){x, y};
    if (a->path_len < GC_WORLD_PATH_POINTS)
        a->path[a->path_len] = (gc_vec2){x, y};
    a->path_len = p->n;
    return 0;
}

/* The whole path of the agent the viewer asked about, through the host
 * (nobody's when it names no agent of ours). */
static void
publish_path(fake *f)
{
    uint32_t want;
    gc_world_trace_request(f->w, &want, NULL);
    if (want >= f->n)
        gc_host_publish_path(f->host, GC_WORLD_NO_AGENT, 0, NULL, 0);
    else
        gc_host_publish_path(f->host, want, f->a[want].salt, f->paths[want].p,
                             f->paths[want].n);
}

static void
place_random(fake *f, uint32_t count)
{
    const gc_grid *g = f->g;
    for (uint32_t i = 0; i < count; i++) {
        int32_t x, y;
        int tries = 0;
        do {
            x = (int32_t)(rnd(f) % (uint32_t)g->width);
            y = (int32_t)(rnd(f) % (uint32_t)g->height);
        } while (!gc_grid_passable(g, x, y) && ++tries < 1000);
        gc_world_agent *a = add_agent(f);
        if (a == NULL)
            return;
        gc_vec2 c = gc_grid_cell_center(g, (gc_cell){x, y});
        a->x = c.x;
        a->y = c.y;
        a->heading = (float)(rnd(f) % 360) * (float)M_PI / 180.0f;
        a->state = GC_AGENT_MOVING;
        a->speed = f->speed;
        a->goal_x = (int32_t)(rnd(f) % (uint32_t)g->width);
        a->goal_y = (int32_t)(rnd(f) % (uint32_t)g->height);
    }
}

/* Walk straight on; turn by a random angle instead of entering an
 * impassable cell or leaving the map. */
static void
move_agents(fake *f, float dt)
{
    for (uint32_t i = 0; i < f->n; i++) {
        gc_world_agent *r = &f->a[i];
        if (r->state != GC_AGENT_MOVING)
            continue;
        for (int attempt = 0; attempt < 8; attempt++) {
            float nx = r->x + cosf(r->heading) * f->speed * dt;
            float ny = r->y + sinf(r->heading) * f->speed * dt;
            gc_cell c = gc_grid_world_to_cell(f->g, (gc_vec2){nx, ny});
            if (gc_grid_passable(f->g, c.x, c.y)) {
                r->x = nx;
                r->y = ny;
                break;
            }
            r->heading = gc_heading_turn(
                0, r->heading + (float)(90 + rnd(f) % 180) * (float)M_PI / 180,
                0);
        }
    }
}

/* The made-up trace described at the top of the file. */
static void
publish_trace(fake *f, uint32_t id)
{
    if (id >= f->n)
        return;
    const gc_grid *g = f->g;
    size_t cells = (size_t)g->width * (size_t)g->height;
    uint8_t *kind = calloc(cells, 1);
    gc_world_trace_event *ev = malloc(3 * cells * sizeof *ev);
    if (kind == NULL || ev == NULL)
        goto out;
    const gc_world_agent *r = &f->a[id];
    gc_cell a = gc_grid_world_to_cell(g, (gc_vec2){r->x, r->y});
    gc_cell b = {r->goal_x, r->goal_y}, c;
    gc_line_walk lw;
    gc_line_walk_init(&lw, a, b);
    while (gc_line_walk_next(&lw, &c)) {
        for (int ry = -2; ry <= 2; ry++)
            for (int rx = -2; rx <= 2; rx++) {
                if (!gc_grid_passable(g, c.x + rx, c.y + ry))
                    continue;
                int k = rx == 0 && ry == 0             ? GC_TRACE_PATH
                        : abs(rx) <= 1 && abs(ry) <= 1 ? GC_TRACE_CLOSE
                                                       : GC_TRACE_OPEN;
                uint8_t *p = &kind[gc_grid_index(g, c.x + rx, c.y + ry)];
                if (*p < k)
                    *p = (uint8_t)k;
            }
    }
    size_t n = 0;
    for (int k = GC_TRACE_OPEN; k <= GC_TRACE_PATH; k++)
        for (size_t i = 0; i < cells; i++)
            if (kind[i] >= k && (k != GC_TRACE_PATH || kind[i] == k))
                ev[n++] = (gc_world_trace_event){(uint32_t)i, (uint8_t)k, {0}};
    gc_world_trace_publish(f->w, id, r->salt, gc_world_tick(f->w), ev, n);
out:
    free(kind);
    free(ev);
}

static double
now_s(void)
{
    return (double)gc_clock_ns() * 1e-9;
}

/* Tick at `hz` until a signal: edits, trace, motion, publish (the
 * daemon's order, through the same host). */
static void
run(fake *f, double hz)
{
    double start = now_s(), second = start;
    uint64_t tick = 0, second_tick = 0;
    struct timespec next;
    clock_gettime(CLOCK_MONOTONIC, &next);
    long step_ns = (long)(1e9 / hz);
    while (!stop_flag) {
        next.tv_nsec += step_ns;
        while (next.tv_nsec >= 1000000000L) {
            next.tv_nsec -= 1000000000L;
            next.tv_sec++;
        }
        while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &next, NULL) ==
                   EINTR &&
               !stop_flag)
            ;
        /* A failed drain leaves the edits for the next tick. */
        gc_host_edits(f->host, gc_clock_ns(), 0, NULL);
        uint32_t want;
        gc_world_trace_request(f->w, &want, NULL);
        if (want != f->traced) {
            f->traced = want;
            publish_trace(f, want);
        }
        if (f->move)
            move_agents(f, (float)(1.0 / hz));
        gc_host_publish_records(f->host, f->a, f->n);
        publish_path(f);
        gc_host_tick(f->host);
        tick++;
        double t = now_s();
        if (t - second >= 1.0) {
            gc_host_window win = {t - second, tick - second_tick,
                                  (uint64_t)((t - start) * 1e9), 0};
            second = t;
            second_tick = tick;
            gc_host_publish_stats(f->host, &win, NULL);
        }
    }
}

int
main(int argc, char **argv)
{
    fake f = {.speed = 4.0f, .rng = 1};
    const char *name = NULL, *map = NULL;
    int32_t width = 0, height = 0;
    uint32_t nrandom = 0, trace = GC_WORLD_NO_AGENT;
    double hz = 30;
    mode_t world_mode = 0600, edits_mode = 0600;
    gc_grid *src = NULL;
    gc_error err;

    /* Two passes: the map first, so that --random knows where to go. */
    for (int i = 1; i < argc; i++) {
        const char *o = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        bool has_arg = strcmp(o, "--move") != 0;
        if (has_arg && v == NULL)
            return usage();
        if (strcmp(o, "--shm") == 0)
            name = v;
        else if (strcmp(o, "--map") == 0)
            map = v;
        else if (strcmp(o, "--size") == 0) {
            if (sscanf(v, "%dx%d", &width, &height) != 2)
                return usage();
        } else if (strcmp(o, "--speed") == 0)
            f.speed = strtof(v, NULL);
        else if (strcmp(o, "--hz") == 0)
            hz = atof(v);
        else if (strcmp(o, "--seed") == 0)
            f.rng = strtoull(v, NULL, 10) * 2 + 1;
        else if (strcmp(o, "--random") == 0)
            nrandom = (uint32_t)strtoul(v, NULL, 10);
        else if (strcmp(o, "--trace") == 0)
            trace = (uint32_t)strtoul(v, NULL, 10);
        else if (strcmp(o, "--world-mode") == 0)
            world_mode = (mode_t)strtoul(v, NULL, 8);
        else if (strcmp(o, "--edits-mode") == 0)
            edits_mode = (mode_t)strtoul(v, NULL, 8);
        else if (strcmp(o, "--move") == 0)
            f.move = true;
        else if (strcmp(o, "--agent") != 0 && strcmp(o, "--waypoint") != 0 &&
                 strcmp(o, "--body") != 0)
            return usage();
        i += has_arg;
    }
    if (hz <= 0 || f.speed <= 0 || (map == NULL) == (width <= 0))
        return usage();
    if (map != NULL) {
        if (gc_map_load(&src, map, &err) != GC_OK) {
            fprintf(stderr, PROG ": %s\n", err.msg);
            return 1;
        }
        width = src->width;
        height = src->height;
    }

    gc_world_config cfg = {.name = name,
                           .width = width,
                           .height = height,
                           .agent_capacity = nrandom + (uint32_t)argc,
                           .world_mode = world_mode,
                           .edits_mode = edits_mode};
    if (gc_world_create(&f.w, &cfg, NULL, &err) != GC_OK) {
        fprintf(stderr, PROG ": %s\n", err.msg);
        gc_grid_free(src);
        return 1;
    }
    int status = 1;
    f.traced = GC_WORLD_NO_AGENT;
    if (gc_host_grid(f.w, src, &f.g) != GC_OK)
        goto out;
    gc_host_config hc = {f.w, f.g, NULL, NULL, NULL, NULL, NULL};
    if (gc_host_new(&f.host, &hc) != GC_OK)
        goto out;

    for (int i = 1; i + 1 < argc; i++) {
        if (strcmp(argv[i], "--agent") == 0) {
            if (parse_agent(&f, argv[++i]) != 0) {
                fprintf(stderr,
                        PROG ": --agent %s: expected X,Y,HEADING,STATE"
                             "[,GX,GY] with a known state\n",
                        argv[i]);
                status = 2;
                goto out;
            }
        } else if (strcmp(argv[i], "--body") == 0) {
            float r, vx, vy;
            if (f.n == 0 || sscanf(argv[++i], "%f,%f,%f", &r, &vx, &vy) != 3) {
                status = usage();
                goto out;
            }
            f.a[f.n - 1].radius = r;
            f.a[f.n - 1].vx = vx;
            f.a[f.n - 1].vy = vy;
        } else if (strcmp(argv[i], "--waypoint") == 0) {
            float x, y;
            if (f.n == 0 || sscanf(argv[++i], "%f,%f", &x, &y) != 2) {
                status = usage();
                goto out;
            }
            if (add_waypoint(&f, x, y) != 0) {
                fprintf(stderr, PROG ": out of memory\n");
                goto out;
            }
        } else if (strcmp(argv[i], "--move") != 0) {
            i++;
        }
    }
    place_random(&f, nrandom);

    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGINT, &sa, NULL);

    gc_host_publish_records(f.host, f.a, f.n);
    gc_host_window win = {0, 0, 0, 0};
    gc_host_publish_stats(f.host, &win, NULL);
    if (trace != GC_WORLD_NO_AGENT) {
        gc_world_set_trace_request(f.w, trace, 1);
        f.traced = trace;
        publish_trace(&f, trace);
    }
    gc_world_set_state(f.w, GC_WORLD_RUNNING);

    run(&f, hz);
    gc_world_set_state(f.w, GC_WORLD_STOPPING);
    status = 0;
out:
    gc_host_free(f.host);
    gc_grid_free(f.g);
    gc_grid_free(src);
    for (uint32_t i = 0; i < f.n; i++)
        free(f.paths[i].p);
    free(f.paths);
    free(f.a);
    gc_world_destroy(f.w);
    return status;
}
