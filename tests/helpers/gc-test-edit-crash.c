/*
 * gc-test-edit-crash.c: a test-only edit-queue producer that misbehaves.
 *
 *   gc-test-edit-crash NAME
 *       Attach to world NAME with its edit queue, claim the next queue
 *       position the way gc_queue_push does (a CAS of the tail), write part
 *       of an entry, print the claimed position on stdout and kill itself
 *       with SIGKILL before publishing: the writer that dies between claim
 *       and publish, which the daemon must skip after the claim timeout.
 *
 *   gc-test-edit-crash --raw OP TYPE X0 Y0 X1 Y1 [BATCH] NAME
 *       Push one entry with exactly these fields, unchecked (an unknown op,
 *       a type or rectangle no tool would send), print its position, exit.
 *
 *   gc-test-edit-crash --damage HOW NAME
 *       Damage the queue object /NAME.edits as anyone allowed to edit
 *       could: truncate (to 0 bytes), grow (to twice its size), magic
 *       (zero the magic), header (scribble on the capacity and claim
 *       timeout), flap:SECONDS (shrink it to 0 and restore its size, over
 *       and over for SECONDS, reopening it by name each time since the
 *       daemon replaces it, to race the daemon's reads; prints how many
 *       times).  It opens the object directly, without validating it.
 *
 * Exit codes: killed by SIGKILL (first form); 0 pushed or damaged;
 * 1 attach or queue failure, message on stderr; 2 usage.
 */
#include "config.h"

#include <gridcrowd/util.h>
#include <gridcrowd/world-layout.h>
#include <gridcrowd/world.h>

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static int
usage(void)
{
    fprintf(stderr, "usage: gc-test-edit-crash NAME\n"
                    "       gc-test-edit-crash --raw OP TYPE X0 Y0 X1 Y1 "
                    "[BATCH] NAME\n"
                    "       gc-test-edit-crash --damage truncate|grow|magic|"
                    "header|flap:SECONDS NAME\n");
    return 2;
}

static bool
parse_num(const char *s, int64_t lo, int64_t hi, int64_t *out)
{
    char *end;
    errno = 0;
    long long v = strtoll(s, &end, 0);
    if (errno != 0 || end == s || *end != '\0' || v < lo || v > hi)
        return false;
    *out = v;
    return true;
}

/* Claim a position and die holding it. */
static int
claim_and_die(gc_world *w)
{
    gc_queue_header *h = gc_queue_hdr(gc_world_queue(w));
    gc_queue_entry *ent =
        (gc_queue_entry *)(void *)((uint8_t *)h + sizeof(gc_queue_header));
    const uint64_t cap = h->capacity; /* validated by gc_world_attach */
    struct timespec nap = {0, 1000 * 1000};
    for (int tries = 0; tries < 10000; tries++) {
        uint64_t pos = atomic_load(&h->tail);
        gc_queue_entry *slot = &ent[pos & (cap - 1)];
        uint64_t seq = atomic_load(&slot->seq);
        if (seq != pos) {
            nanosleep(&nap, NULL); /* full, or another producer won */
            continue;
        }
        if (!atomic_compare_exchange_strong(&h->tail, &pos, pos + 1))
            continue;
        /* Half an entry: what a producer killed mid-write leaves. */
        atomic_store(&slot->claim_ns, gc_clock_ns());
        slot->op = 1;
        slot->x0 = 0;
        printf("%" PRIu64 "\n", pos);
        fflush(stdout);
        raise(SIGKILL);
        return 1; /* not reached */
    }
    fprintf(stderr, "gc-test-edit-crash: %s: could not claim a position\n",
            gc_queue_name(gc_world_queue(w)));
    return 1;
}

/* --damage HOW NAME. */
static int
damage(const char *how, const char *name)
{
    char path[300];
    snprintf(path, sizeof path, "/%s%s", name[0] == '/' ? name + 1 : name,
             GC_QUEUE_SUFFIX);
    int fd = shm_open(path, O_RDWR, 0);
    struct stat st;
    if (fd < 0 || fstat(fd, &st) != 0) {
        fprintf(stderr, "gc-test-edit-crash: %s: %s\n", path, strerror(errno));
        return 1;
    }
    int rc = 0;
    if (strcmp(how, "truncate") == 0) {
        rc = ftruncate(fd, 0);
    } else if (strcmp(how, "grow") == 0) {
        rc = ftruncate(fd, st.st_size * 2);
    } else if (strcmp(how, "magic") == 0 || strcmp(how, "header") == 0) {
        gc_queue_header h;
        if (pread(fd, &h, sizeof h, 0) != (ssize_t)sizeof h) {
            rc = -1;
        } else {
            if (strcmp(how, "magic") == 0) {
                atomic_store(&h.magic, 0);
            } else {
                h.capacity = 1u << 30;
                h.claim_timeout_ns = UINT64_MAX;
            }
            /* Only the fixed fields: head and tail stay as they are. */
            rc = pwrite(fd, &h, offsetof(gc_queue_header, head), 0) ==
                         (ssize_t)offsetof(gc_queue_header, head)
                     ? 0
                     : -1;
        }
    } else if (strncmp(how, "flap:", 5) == 0) {
        double secs = atof(how + 5);
        struct timespec nap = {0, 200 * 1000};
        uint64_t t0 = gc_clock_ns();
        long flaps = 0;
        do {
            /* Open it by name each time: the daemon replaces it. */
            int f2 = shm_open(path, O_RDWR, 0);
            if (f2 >= 0) {
                if (ftruncate(f2, 0) != 0 || ftruncate(f2, st.st_size) != 0)
                    rc = -1;
                close(f2);
            }
            if (rc != 0)
                break;
            flaps++;
            nanosleep(&nap, NULL);
        } while ((double)(gc_clock_ns() - t0) / 1e9 < secs);
        printf("%ld\n", flaps);
    } else {
        close(fd);
        return usage();
    }
    if (rc != 0) {
        fprintf(stderr, "gc-test-edit-crash: %s: %s: %s\n", path, how,
                strerror(errno));
        close(fd);
        return 1;
    }
    close(fd);
    return 0;
}

int
main(int argc, char **argv)
{
    bool raw = false;
    if (argc == 4 && strcmp(argv[1], "--damage") == 0)
        return damage(argv[2], argv[3]);
    int64_t f[7] = {0};
    int i = 1;
    if (argc > 1 && strcmp(argv[1], "--raw") == 0) {
        raw = true;
        int nf = argc - 3; /* fields between --raw and NAME */
        if (nf != 6 && nf != 7)
            return usage();
        for (int k = 0; k < nf; k++)
            if (!parse_num(argv[2 + k], INT32_MIN, UINT32_MAX, &f[k]))
                return usage();
        i = 2 + nf;
    }
    if (i != argc - 1)
        return usage();
    const char *name = argv[i];

    gc_world *w;
    gc_error err;
    if (gc_world_attach(&w, name, GC_WORLD_ATTACH_QUEUE, &err) != GC_OK) {
        fprintf(stderr, "gc-test-edit-crash: %s\n", err.msg);
        return 1;
    }
    if (!raw)
        return claim_and_die(w);

    gc_edit e = {.op = (uint32_t)f[0],
                 .type = (uint32_t)f[1],
                 .x0 = (int32_t)f[2],
                 .y0 = (int32_t)f[3],
                 .x1 = (int32_t)f[4],
                 .y1 = (int32_t)f[5],
                 .batch = (uint32_t)f[6]};
    int rc = gc_queue_push(gc_world_queue(w), &e, UINT64_C(5000000000));
    if (rc != GC_OK) {
        fprintf(stderr, "gc-test-edit-crash: %s: push: %s\n",
                gc_queue_name(gc_world_queue(w)), gc_strerror(rc));
        gc_world_close(w);
        return 1;
    }
    printf("%" PRIu64 "\n", e.position);
    gc_world_close(w);
    return 0;
}
