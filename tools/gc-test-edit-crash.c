/*
 * gc-test-edit-crash.c: a test-only edit-queue producer that misbehaves.
 *
 *   gc-test-edit-crash NAME
 *       Attach to world NAME with its edit queue, claim the next queue
 *       position the way gc_edits_push does (a CAS of the tail), write part
 *       of an entry, print the claimed position on stdout and kill itself
 *       with SIGKILL before publishing: the writer that dies between claim
 *       and publish, which the daemon must skip after the claim timeout.
 *
 *   gc-test-edit-crash --raw OP TYPE X0 Y0 X1 Y1 [BATCH] NAME
 *       Push one entry with exactly these fields, unchecked (an unknown op,
 *       a type or rectangle no tool would send), print its position, exit.
 *
 * Exit codes: killed by SIGKILL (first form); 0 pushed (second form);
 * 1 attach or queue failure, message on stderr; 2 usage.
 */
#include "config.h"

#include <gridcrowd/world.h>

#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static int
usage(void)
{
    fprintf(stderr, "usage: gc-test-edit-crash NAME\n"
                    "       gc-test-edit-crash --raw OP TYPE X0 Y0 X1 Y1 "
                    "[BATCH] NAME\n");
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
    gc_edits_header *h = gc_world_edits(w);
    gc_edit_entry *ent =
        (gc_edit_entry *)(void *)((uint8_t *)h + sizeof(gc_edits_header));
    const uint64_t cap = h->capacity; /* validated by gc_world_attach */
    struct timespec nap = {0, 1000 * 1000};
    for (int tries = 0; tries < 10000; tries++) {
        uint64_t pos = atomic_load(&h->tail);
        gc_edit_entry *slot = &ent[pos & (cap - 1)];
        uint64_t seq = atomic_load(&slot->seq);
        if (seq != pos) {
            nanosleep(&nap, NULL); /* full, or another producer won */
            continue;
        }
        if (!atomic_compare_exchange_strong(&h->tail, &pos, pos + 1))
            continue;
        /* Half an entry: what a producer killed mid-write leaves. */
        struct timespec ts;
        clock_gettime(CLOCK_MONOTONIC, &ts);
        atomic_store(&slot->claim_ns,
                     (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec);
        slot->op = 1;
        slot->x0 = 0;
        printf("%" PRIu64 "\n", pos);
        fflush(stdout);
        raise(SIGKILL);
        return 1; /* not reached */
    }
    fprintf(stderr, "gc-test-edit-crash: %s: could not claim a position\n",
            gc_world_edits_name(w));
    return 1;
}

int
main(int argc, char **argv)
{
    bool raw = false;
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
    if (gc_world_attach(&w, name, GC_WORLD_ATTACH_EDITS, &err) != GC_OK) {
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
    int rc = gc_edits_push(w, &e, UINT64_C(5000000000));
    if (rc != GC_OK) {
        fprintf(stderr, "gc-test-edit-crash: %s: push: %s\n",
                gc_world_edits_name(w), gc_strerror(rc));
        gc_world_close(w);
        return 1;
    }
    printf("%" PRIu64 "\n", e.position);
    gc_world_close(w);
    return 0;
}
