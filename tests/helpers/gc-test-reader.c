/*
 * gc-test-reader.c: a test-only reader of a running world, for shell tests.
 *
 *   gc-test-reader [-a] [-s] [-w STATE] [-t SECONDS] [-h SECONDS] NAME
 *
 * Attaches read-only to the world NAME and prints one line of header fields:
 *
 *   name=/NAME pid=P state=S tick=T generation=G agents=N capacity=C
 *   width=W height=H
 *
 * -a  then one line per agent of the latest snapshot:
 *     agent ID GEN X Y HEADING SPEED STATE GOAL_X GOAL_Y PATH_LEN
 * -s  then one line of statistics: stats tick=T ticks_per_s=F searches=N
 * -w  first wait until the world exists and is in STATE (starting, running,
 *     stopping), polling every 10 ms, for at most -t seconds (default 10).
 *     A script waits for a daemon's readiness this way instead of sleeping.
 * -h  at the end keep the world attached (a reader the daemon sees:
 *     gc_world_watched) for up to SECONDS, until its owner is gone.
 *
 * Exit codes: 0 printed; 1 attach or read failed (message on stderr);
 * 2 usage; 3 timed out waiting.
 */
#include "config.h"

#include <gridcrowd/util.h>
#include <gridcrowd/world.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static int
usage(void)
{
    fprintf(stderr, "usage: gc-test-reader [-a] [-s] [-w STATE] "
                    "[-t SECONDS] [-h SECONDS] NAME\n");
    return 2;
}

static int
parse_state(const char *s)
{
    for (unsigned st = GC_WORLD_STARTING; st <= GC_WORLD_STOPPING; st++)
        if (strcmp(s, gc_world_state_name(st)) == 0)
            return (int)st;
    return -1;
}

/* Attach, waiting for `want` (0: do not wait) for up to `timeout` s. */
static int
attach_waiting(gc_world **w, const char *name, int want, double timeout)
{
    struct timespec nap = {0, 10 * 1000 * 1000};
    gc_error err;
    /* A deadline on the clock, not a count of naps: a loaded machine
     * (make -j check) stretches every nap. */
    uint64_t start = gc_clock_ns();
    for (;;) {
        int rc = gc_world_attach(w, name, 0, &err);
        if (rc == GC_OK) {
            if (want == 0 || gc_world_state(*w) == (unsigned)want)
                return 0;
            gc_world_close(*w);
            *w = NULL;
        } else if (want == 0) {
            fprintf(stderr, "gc-test-reader: %s\n", err.msg);
            return 1;
        }
        if ((double)(gc_clock_ns() - start) / 1e9 >= timeout) {
            fprintf(stderr,
                    "gc-test-reader: %s: timed out waiting for "
                    "state %s\n",
                    name, gc_world_state_name((unsigned)want));
            return 3;
        }
        nanosleep(&nap, NULL);
    }
}

int
main(int argc, char **argv)
{
    bool agents = false, stats = false;
    int want = 0;
    double timeout = 10, hold = 0;
    int c;
    while ((c = getopt(argc, argv, "asw:t:h:")) != -1) {
        switch (c) {
        case 'a':
            agents = true;
            break;
        case 's':
            stats = true;
            break;
        case 'w':
            if ((want = parse_state(optarg)) < 0)
                return usage();
            break;
        case 't':
            timeout = atof(optarg);
            break;
        case 'h':
            hold = atof(optarg);
            break;
        default:
            return usage();
        }
    }
    if (optind + 1 != argc)
        return usage();

    gc_world *w = NULL;
    int rc = attach_waiting(&w, argv[optind], want, timeout);
    if (rc != 0)
        return rc;
    printf("name=%s pid=%ld state=%s tick=%llu generation=%llu agents=%u "
           "capacity=%u width=%d height=%d\n",
           gc_world_name(w), (long)gc_world_pid(w),
           gc_world_state_name(gc_world_state(w)),
           (unsigned long long)gc_world_tick(w),
           (unsigned long long)gc_world_generation(w), gc_world_agent_count(w),
           gc_world_agent_capacity(w), (int)gc_world_width(w),
           (int)gc_world_height(w));

    int status = 0;
    if (agents) {
        size_t cap = gc_world_agent_capacity(w), n = 0;
        gc_world_agent *a = calloc(cap ? cap : 1, sizeof *a);
        if (a == NULL ||
            (rc = gc_world_read_agents(w, a, cap, &n, NULL)) != GC_OK) {
            fprintf(stderr, "gc-test-reader: %s: reading agents: %s\n",
                    gc_world_name(w), a ? gc_strerror(rc) : "out of memory");
            status = 1;
        }
        for (size_t i = 0; status == 0 && i < n; i++)
            printf("agent %u %u %.3f %.3f %.3f %.3f %s %d %d %u\n", a[i].id,
                   a[i].salt, (double)a[i].x, (double)a[i].y,
                   (double)a[i].heading, (double)a[i].speed,
                   gc_agent_state_name(a[i].state), (int)a[i].goal_x,
                   (int)a[i].goal_y, a[i].path_len);
        free(a);
    }
    if (stats && status == 0) {
        gc_world_stats st;
        if ((rc = gc_world_read_stats(w, &st)) != GC_OK) {
            fprintf(stderr, "gc-test-reader: %s: reading stats: %s\n",
                    gc_world_name(w), gc_strerror(rc));
            status = 1;
        } else {
            printf("stats tick=%llu ticks_per_s=%.2f searches=%llu\n",
                   (unsigned long long)st.tick, st.ticks_per_s,
                   (unsigned long long)st.searches_total);
        }
    }
    fflush(stdout);
    struct timespec nap = {0, 10 * 1000 * 1000};
    for (uint64_t t0 = gc_clock_ns();
         (double)(gc_clock_ns() - t0) / 1e9 < hold && gc_world_owner_alive(w);)
        nanosleep(&nap, NULL);
    gc_world_close(w);
    return status;
}
