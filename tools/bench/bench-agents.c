/*
 * bench-agents.c: the agent commands' figures against a running daemon.
 *
 *   bench-agents [--shm NAME] [--spawns N] [--commands M] [--seconds S]
 *
 * 1. Latency of `spawn --sync`: N spawns one after the other at open
 *    cells, each waiting for its answer (gc_edit_spawn): median and max
 *    from the push to the answer read, in ms.  (A drain happens once a
 *    tick, so at 60 Hz the median is about half a tick plus the tick.)
 * 2. Commands absorbed: M goal commands (wander, point, stop in turn, on
 *    the spawned agents) pushed without waiting, as fast as the queue
 *    takes them, then one wait until the daemon has dealt with the last:
 *    commands per second from the first push to that moment; repeated
 *    for S seconds when --seconds is given.  The spawned agents are
 *    removed at the end.
 *
 * Prints one line per figure.  Exit 0, or 1 with a message.
 */
#include "config.h"

#include <gridcrowd/edit-client.h>
#include <gridcrowd/util.h>
#include <gridcrowd/world.h>

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int
cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

int
main(int argc, char **argv)
{
    const char *name = NULL;
    long spawns = 200, commands = 100000;
    double seconds = 0;
    static const struct option lo[] = {
        {"shm", required_argument, NULL, 's'},
        {"spawns", required_argument, NULL, 'n'},
        {"commands", required_argument, NULL, 'm'},
        {"seconds", required_argument, NULL, 't'},
        {NULL, 0, NULL, 0}};
    int c;
    while ((c = getopt_long(argc, argv, "s:n:m:t:", lo, NULL)) != -1) {
        switch (c) {
        case 's':
            name = optarg;
            break;
        case 'n':
            spawns = atol(optarg);
            break;
        case 'm':
            commands = atol(optarg);
            break;
        case 't':
            seconds = atof(optarg);
            break;
        default:
            fprintf(stderr, "usage: bench-agents [--shm NAME] [--spawns N] "
                            "[--commands M] [--seconds S]\n");
            return 2;
        }
    }
    if (spawns < 1 || commands < 1) {
        fprintf(stderr, "bench-agents: --spawns and --commands must be >= 1\n");
        return 2;
    }
    gc_world *w;
    gc_error err;
    if (gc_world_attach(&w, name, GC_WORLD_ATTACH_QUEUE, &err) != GC_OK) {
        fprintf(stderr, "bench-agents: %s\n", err.msg);
        return 1;
    }
    int32_t W = gc_world_width(w), H = gc_world_height(w);
    float cs = gc_world_cell_size(w);
    uint8_t *cells = malloc((size_t)W * (size_t)H);
    gc_agent_handle *h = calloc((size_t)spawns, sizeof *h);
    uint64_t *lat = calloc((size_t)spawns, sizeof *lat);
    if (!cells || !h || !lat || gc_world_read_cells(w, cells, NULL) != GC_OK) {
        fprintf(stderr, "bench-agents: cannot read the cells\n");
        return 1;
    }
    /* Open cells, spread over the map by a stride. */
    long got = 0, refused = 0;
    size_t ncell = (size_t)W * (size_t)H, k = 0;
    for (long i = 0; i < spawns && got < spawns; k += 7919) {
        size_t at = k % ncell;
        if (k > 4000 * ncell)
            break;
        if (cells[at] == GC_CELL_OBSTACLE)
            continue;
        gc_spawn_spec sp = {.x = ((float)(at % (size_t)W) + 0.5f) * cs,
                            .y = ((float)(at / (size_t)W) + 0.5f) * cs};
        gc_world_answer ans;
        uint64_t t0 = gc_clock_ns();
        int rc = gc_edit_spawn(w, &sp, 10000000000ull, &h[got], &ans);
        uint64_t t1 = gc_clock_ns();
        i++;
        if (rc == GC_OK)
            lat[got++] = t1 - t0;
        else if (rc < 0 && ans.reason >= 0)
            refused++;
        else {
            fprintf(stderr, "bench-agents: spawn: %s\n", gc_strerror(rc));
            return 1;
        }
    }
    qsort(lat, (size_t)got, sizeof *lat, cmp_u64);
    printf("spawn --sync latency: %ld spawns (%ld refused): median %.2f ms, "
           "max %.2f ms\n",
           got, refused, got ? (double)lat[got / 2] / 1e6 : 0.0,
           got ? (double)lat[got - 1] / 1e6 : 0.0);
    if (got == 0)
        return 1;

    double t_end = (double)gc_clock_ns() / 1e9 + seconds;
    do {
        uint64_t t0 = gc_clock_ns(), last = 0;
        for (long i = 0; i < commands; i++) {
            gc_agent_handle a = h[i % got];
            gc_edit e;
            memset(&e, 0, sizeof e);
            e.op = GC_EDIT_GOAL;
            e.agent = a;
            e.type = i % 3 == 0   ? GC_EDIT_GOAL_WANDER
                     : i % 3 == 1 ? GC_EDIT_GOAL_STOP
                                  : GC_EDIT_GOAL_WANDER;
            int rc = gc_edit_command(w, &e, 10000000000ull, NULL);
            if (rc != GC_OK) {
                fprintf(stderr, "bench-agents: push: %s\n", gc_strerror(rc));
                return 1;
            }
            last = e.position;
        }
        uint64_t t1 = gc_clock_ns();
        if (gc_edit_wait(w, last + 1, 60000000000ull) != GC_OK) {
            fprintf(stderr, "bench-agents: the daemon did not catch up\n");
            return 1;
        }
        uint64_t t2 = gc_clock_ns();
        printf("commands absorbed: %ld goal commands in %.3f s: %.0f/s "
               "(pushing took %.3f s)\n",
               commands, (double)(t2 - t0) / 1e9,
               (double)commands / ((double)(t2 - t0) / 1e9),
               (double)(t1 - t0) / 1e9);
    } while ((double)gc_clock_ns() / 1e9 < t_end);

    for (long i = 0; i < got; i++)
        gc_edit_remove(w, h[i], 10000000000ull, NULL);
    gc_world_close(w);
    free(cells);
    free(h);
    free(lat);
    return 0;
}
