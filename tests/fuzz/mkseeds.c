/*
 * mkseeds.c: write the seed corpora of fuzz_world and fuzz_edits.
 *
 *   make tests/fuzz/mkseeds && tests/fuzz/mkseeds tests/fuzz/corpus
 *
 * World seeds are real objects: a world is created with gc_world_create
 * (cells, an agent snapshot, statistics and a trace published), its bytes
 * are copied out of /dev/shm, and then bent one field at a time into every
 * kind of damage the validators name (bad magic, version, sizes, geometry,
 * sections past the end or overlapping, huge counts, truncation).  Queue
 * seeds are real edit-queue objects.  Edit seeds are record sequences in
 * fuzz_edits.c's format, one per rule of edits.h.  Run it again after a
 * layout change; the files it writes replace the committed ones (list new
 * names in fuzz_corpus in Makefile.am).
 *
 * Exit codes: 0 written; 1 a step failed (message on stderr); 2 usage.
 */
#include "config.h"

#include <gridcrowd/edits.h>
#include <gridcrowd/world-layout.h>
#include <gridcrowd/world.h>

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static const char *dir;

static void
die(const char *what)
{
    fprintf(stderr, "mkseeds: %s: %s\n", what, strerror(errno));
    exit(1);
}

static void
put(const char *kind, const char *name, const void *p, size_t n)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s/%s", dir, kind, name);
    FILE *f = fopen(path, "wb");
    if (f == NULL || fwrite(p, 1, n, f) != n || fclose(f) != 0)
        die(path);
}

/* The bytes of /dev/shm/NAME into *size bytes of malloc'd memory. */
static uint8_t *
slurp(const char *name, size_t *size)
{
    char path[300];
    snprintf(path, sizeof path, "/dev/shm/%s", name);
    int fd = open(path, O_RDONLY);
    struct stat st;
    if (fd < 0 || fstat(fd, &st) != 0)
        die(path);
    uint8_t *p = malloc((size_t)st.st_size);
    if (p == NULL || read(fd, p, (size_t)st.st_size) != st.st_size)
        die(path);
    close(fd);
    *size = (size_t)st.st_size;
    return p;
}

/* A live world of w x h with `agents` agents and something in every
 * section; its bytes, and its queue's. */
static uint8_t *
make_world(int32_t w, int32_t h, uint32_t agents, uint32_t ecap, size_t *size,
           uint8_t **queue, size_t *qsize)
{
    char name[64];
    snprintf(name, sizeof name, "gc-mkseeds-%ld", (long)getpid());
    gc_world_config cfg = {.name = name,
                           .width = w,
                           .height = h,
                           .cell_size = 1.5f,
                           .agent_capacity = agents,
                           .trace_capacity = 16,
                           .path_capacity = 12,
                           .edits_capacity = ecap};
    gc_world *wd;
    gc_error err;
    if (gc_world_create(&wd, &cfg, NULL, &err) != GC_OK) {
        fprintf(stderr, "mkseeds: %s\n", err.msg);
        exit(1);
    }
    gc_world_set_state(wd, GC_WORLD_RUNNING);
    gc_world_set_tick(wd, 42);
    gc_world_cells_begin(wd);
    uint8_t *cells = gc_world_cells(wd);
    for (int32_t i = 0; i < w * h; i++)
        cells[i] = (uint8_t)(i % GC_CELL_NTYPES);
    gc_world_cells_end(wd);
    gc_world_snap *s = gc_world_agents_begin(wd);
    for (uint32_t i = 0; i < agents; i++) {
        gc_world_agent a = {.id = i,
                            .x = 0.5f + (float)i,
                            .y = 0.5f,
                            .speed = 4,
                            .goal_x = 0,
                            .goal_y = 0,
                            .path_len = 1,
                            .state = 1};
        gc_world_agent_store(s, i, &a);
    }
    gc_world_agents_publish(wd, agents);
    gc_world_stats st = {.tick = 42, .ticks_per_s = 60, .searches_total = 3};
    gc_world_stats_publish(wd, &st);
    gc_world_trace_event ev[3] = {{0, 1, {0}}, {1, 2, {0}}, {2, 3, {0}}};
    gc_world_trace_publish(wd, 0, 0, 42, ev, 3);
    gc_vec2 path[10];
    for (int i = 0; i < 10; i++)
        path[i] = (gc_vec2){0.5f + (float)i, 0.5f};
    gc_world_path_publish(wd, 0, 0, 42, path, agents > 0 ? 10 : 0);
    for (uint64_t t = 0; t < 3; t++) {
        gc_edit e = {.op = GC_EDIT_SET, .type = 1, .client_token = t};
        gc_queue_push(gc_world_queue(wd), &e, 0);
    }
    uint8_t *p = slurp(name, size);
    char qname[80];
    snprintf(qname, sizeof qname, "%s.edits", name);
    *queue = slurp(qname, qsize);
    gc_world_destroy(wd);
    return p;
}

static gc_world_header *
H(uint8_t *p)
{
    return (gc_world_header *)(void *)p;
}

/* Write `base` bent by `bend` as world/NAME. */
#define BENT(name, stmt)                                                       \
    do {                                                                       \
        uint8_t *b = malloc(size);                                             \
        memcpy(b, base, size);                                                 \
        gc_world_header *h = H(b);                                             \
        (void)h;                                                               \
        stmt;                                                                  \
        put("world", name, b, size);                                           \
        free(b);                                                               \
    } while (0)

static void
world_seeds(void)
{
    size_t size, qsize;
    uint8_t *queue;
    uint8_t *base = make_world(4, 4, 2, 2, &size, &queue, &qsize);
    put("world", "valid-4x4.world", base, size);
    put("world", "valid-cap2.edits", queue, qsize);
    free(queue);
    {
        size_t s2, q2;
        uint8_t *w2 = make_world(7, 5, 3, 4, &s2, &queue, &q2);
        put("world", "valid-7x5.world", w2, s2);
        put("world", "valid-cap4.edits", queue, q2);
        free(w2);
        free(queue);
        w2 = make_world(1, 1, 0, 2, &s2, &queue, &q2);
        put("world", "valid-1x1-no-agents.world", w2, s2);
        free(w2);
        free(queue);
    }
    put("world", "bad-empty.world", base, 0);
    put("world", "bad-truncated-7.world", base, 7);
    put("world", "bad-truncated-12.world", base, 12);
    put("world", "bad-truncated-200.world", base, 200);
    put("world", "bad-truncated-half.world", base, size / 2);

    BENT("bad-magic.world", memcpy(b, "NOTOURS!", 8));
    BENT("bad-magic-edits.world", atomic_store(&h->magic, GC_QUEUE_MAGIC));
    BENT("bad-magic-zero.world", atomic_store(&h->magic, 0));
    BENT("bad-version.world", h->version = GC_WORLD_VERSION + 1);
    BENT("bad-version-1.world", h->version = 1);
    BENT("bad-header-size.world", h->header_size = 255);
    BENT("bad-total-size.world", h->total_size = size + 64);
    BENT("bad-width-zero.world", h->width = 0);
    BENT("bad-width-negative.world", h->width = -4);
    BENT("bad-width-huge.world", h->width = 1 << 30);
    BENT("bad-cells-too-many.world", (h->width = 65536, h->height = 65536));
    BENT("bad-cell-size-nan.world", h->cell_size = NAN);
    BENT("bad-cell-size-zero.world", h->cell_size = 0);
    BENT("bad-pid-zero.world", h->pid = 0);
    BENT("bad-state.world", atomic_store(&h->state, 9));
    BENT("bad-record-size.world", h->agent_record_size = 64);
    BENT("bad-capacity-huge.world", h->agent_capacity = UINT32_MAX);
    BENT("bad-capacity-bigger.world", h->agent_capacity = 3);
    BENT("bad-agent-count-huge.world", atomic_store(&h->agent_count, 1000));
    BENT("bad-trace-capacity-zero.world", h->trace_capacity = 0);
    BENT("bad-trace-capacity-huge.world", h->trace_capacity = UINT32_MAX);
    BENT("bad-cells-past-end.world", h->cells.offset = size + 64);
    BENT("bad-cells-offset-huge.world", h->cells.offset = UINT64_MAX - 8);
    BENT("bad-cells-size.world", h->cells.size = 17);
    BENT("bad-agents-size-huge.world", h->agents.size = UINT64_MAX);
    BENT("bad-agents-misaligned.world", h->agents.offset += 8);
    BENT("bad-stats-in-header.world", h->stats.offset = 64);
    BENT("bad-sections-overlap.world", h->trace.offset = h->stats.offset);
    BENT("bad-trace-runs-past-end.world", h->trace.offset = size - 64);
    BENT("bad-path-capacity-zero.world", h->path_capacity = 0);
    BENT("bad-path-capacity-huge.world", h->path_capacity = UINT32_MAX);
    BENT("bad-path-capacity-bigger.world", h->path_capacity = 13);
    BENT("bad-path-in-header.world", h->path.offset = 192);
    BENT("bad-path-overlaps-trace.world",
         (h->path.offset = h->trace.offset, h->path_capacity = 16,
          h->path.size = h->trace.size));
    BENT("bad-path-past-end.world", h->path.offset = size);
    /* Inside a valid header: counts the readers must refuse, and seqlocks
     * held odd for ever. */
    BENT("bad-snapshot-count-huge.world", {
        gc_world_agents_hdr *a =
            (gc_world_agents_hdr *)(void *)(b + h->agents.offset);
        atomic_store(&a->count[0], 1u << 30);
        atomic_store(&a->count[1], 1u << 30);
    });
    BENT("bad-trace-count-huge.world", {
        gc_world_trace_hdr *t =
            (gc_world_trace_hdr *)(void *)(b + h->trace.offset);
        atomic_store(&t->count, UINT32_MAX);
    });
    BENT("bad-path-count-huge.world", {
        gc_world_path_hdr *t =
            (gc_world_path_hdr *)(void *)(b + h->path.offset);
        atomic_store(&t->count, UINT32_MAX);
        atomic_store(&t->path_len, UINT32_MAX);
    });
    BENT("bad-path-count-past-length.world", {
        gc_world_path_hdr *t =
            (gc_world_path_hdr *)(void *)(b + h->path.offset);
        atomic_store(&t->path_len, 3);
    });
    BENT("busy-path-seq-odd.world", {
        gc_world_path_hdr *t =
            (gc_world_path_hdr *)(void *)(b + h->path.offset);
        atomic_store(&t->seq, 5);
    });
    BENT("busy-cells-seq-odd.world", atomic_store(&h->cells_seq, 7));

    /* Queue objects bent. */
    uint8_t *q = malloc(qsize);
    size_t s2, q2;
    uint8_t *w2 = make_world(4, 4, 2, 2, &s2, &queue, &q2);
    free(w2);
    memcpy(q, queue, qsize);
    ((gc_queue_header *)(void *)q)->capacity = 3;
    put("world", "bad-queue-capacity.edits", q, qsize);
    memcpy(q, queue, qsize);
    ((gc_queue_header *)(void *)q)->claim_timeout_ns = 0;
    put("world", "bad-queue-claim-timeout.edits", q, qsize);
    put("world", "bad-queue-truncated.edits", queue, 100);
    free(q);
    free(queue);
    free(base);
}

/* ---- Edit records (fuzz_edits.c's format) -------------------------------- */

typedef struct rec {
    uint8_t mode, op, type, flags;
    int32_t x0, y0, x1, y1;
    uint32_t batch, token;
} rec;

_Static_assert(sizeof(rec) == 28, "fuzz_edits.c's record");

#define R(...) ((rec){__VA_ARGS__})
#define SEED(name, ...)                                                        \
    do {                                                                       \
        const rec r[] = {__VA_ARGS__};                                         \
        put("edits", name, r, sizeof r);                                       \
    } while (0)

static void
edit_seeds(void)
{
    put("edits", "empty", "", 0);
    SEED("valid-sets", R(0, 1, 1, 0, 3, 2, 0, 0, 0, 1),
         R(0, 1, 2, 0, 15, 11, 0, 0, 0, 2), R(0, 1, 0, 0, 3, 2, 0, 0, 0, 3));
    SEED("valid-rect-line", R(0, 2, 1, 0, 1, 1, 6, 4, 0, 1),
         R(0, 2, 3, 0, 9, 9, 2, 3, 0, 2), R(0, 3, 2, 0, 0, 0, 15, 11, 0, 3),
         R(0, 3, 1, 0, 15, 0, 0, 11, 0, 4), R(0, 3, 0, 0, 5, 5, 5, 5, 0, 5));
    SEED("batch-complete", R(0, 1, 1, 0, 1, 1, 0, 0, 7, 1),
         R(0, 2, 2, 0, 2, 2, 4, 4, 7, 2), R(0, 4, 0, 0, 2, 0, 0, 0, 7, 3));
    SEED("batch-count-wrong", R(0, 1, 1, 0, 1, 1, 0, 0, 7, 1),
         R(0, 4, 0, 0, 2, 0, 0, 0, 7, 3));
    SEED("batch-poisoned", R(0, 1, 1, 0, 1, 1, 0, 0, 7, 1),
         R(0, 1, 1, 0, 99, 1, 0, 0, 7, 2), R(0, 4, 0, 0, 1, 0, 0, 0, 7, 3));
    SEED("batch-never-ended", R(0, 1, 1, 0, 1, 1, 0, 0, 9, 1),
         R(0, 1, 3, 0, 2, 1, 0, 0, 9, 2), R(0, 1, 2, 0, 4, 4, 0, 0, 0, 3));
    SEED("batch-empty-end", R(0, 4, 0, 0, 0, 0, 0, 0, 5, 1));
    SEED("batch-end-zero-id", R(0, 4, 0, 0, 1, 0, 0, 0, 0, 1));
    SEED("batch-end-huge-count", R(0, 4, 0, 0, 70000, 0, 0, 0, 3, 1));
    SEED("batch-small-ids", R(0, 1, 1, 2, 1, 1, 0, 0, 0, 5),
         R(0, 1, 2, 2, 2, 2, 0, 0, 0, 6), R(0, 4, 0, 2, 2, 0, 0, 0, 0, 9));
    SEED("trace", R(0, 5, 0, 0, 3, 1, 0, 0, 0, 1),
         R(0, 5, 0, 0, -1, 0, 0, 0, 0, 2), R(0, 5, 0, 0, 8, 0, 0, 0, 0, 3),
         R(0, 5, 0, 0, 1, 0, 0, 0, 4, 4));
    SEED("bad-op-type-field", R(0, 0, 0, 0, 1, 1, 0, 0, 0, 1),
         R(0, 9, 1, 0, 1, 1, 0, 0, 0, 2), R(0, 1, 4, 0, 1, 1, 0, 0, 0, 3),
         R(0, 1, 1, 0, 1, 1, 1, 0, 0, 4), R(0, 4, 1, 0, 1, 0, 0, 0, 2, 5));
    SEED("out-of-bounds", R(0, 1, 1, 0, 16, 0, 0, 0, 0, 1),
         R(0, 2, 1, 0, -1, 0, 3, 3, 0, 2), R(0, 3, 1, 0, 0, 0, 0, 12, 0, 3));
    SEED("too-big",
         R(0, 2, 1, 0, INT32_MIN, INT32_MIN, INT32_MAX, INT32_MAX, 0,
           4000000000u),
         R(0, 3, 1, 0, 0, 0, 20000000, 3, 0, 4000000000u),
         R(0, 2, 1, 0, 0, 0, 4999, 4999, 0, 3000050000u));
    SEED("small-coords", R(0, 2, 1, 1, 7, 8, 25, 30, 0, 1),
         R(0, 3, 2, 1, 100, 3, 41, 17, 0, 2));
    SEED("corrupt-payload", R(5, 1, 1, 0, 1, 1, 0, 0, 0, 1),
         R(0, 1, 2, 0, 2, 2, 0, 0, 0, 2));
    SEED("corrupt-seq", R(6, 1, 1, 0, 1, 1, 0, 0, 0, 1),
         R(0, 1, 2, 0, 2, 2, 0, 0, 0, 2));
    SEED("corrupt-batch-member", R(0, 1, 1, 0, 1, 1, 0, 0, 7, 1),
         R(5, 1, 1, 0, 2, 1, 0, 0, 7, 2), R(0, 4, 0, 0, 2, 0, 0, 0, 7, 3));
    SEED("scribbled-header", R(7, 1, 1, 0, 1, 1, 0, 0, 0, 12345),
         R(7, 1, 2, 0, 2, 2, 0, 0, 0, 0), R(0, 1, 3, 0, 3, 3, 0, 0, 0, 3));
    /* Agent commands (fuzz_edits.c's header has how the token bits
     * place the floats): spawn with a goal, remove, follow, speed,
     * radius, a batched spawn, a spawn at NaN, a remove of handle 0. */
    SEED("agent-commands", R(0, 6, 0, 1, 5, 6, 7, 8, 0, 65538),
         R(0, 7, 0, 1, 2, 2, 2, 2, 0, 368896),
         R(0, 8, 4, 1, 2, 2, 5, 2, 0, 362752),
         R(0, 9, 0, 1, 2, 2, 6, 2, 0, 352512),
         R(0, 10, 0, 1, 2, 2, 3, 2, 0, 344320),
         R(0, 6, 0, 1, 5, 6, 2, 2, 7, 368640),
         R(0, 4, 0, 0, 1, 0, 0, 0, 7, 3),
         R(0, 6, 0, 0, 0x7fc00000, 0, 0, 0, 0, 368640),
         R(0, 7, 0, 1, 2, 2, 2, 2, 0, 368640));
    /* More than a ring's worth: several drains, a batch across them. */
    rec many[140];
    for (int i = 0; i < 140; i++)
        many[i] = R(0, 1, (uint8_t)(i % 4), 0, i % 16, (i / 16) % 12, 0, 0,
                    i >= 60 && i < 70 ? 11 : 0, (uint32_t)i);
    many[70] = R(0, 4, 0, 0, 10, 0, 0, 0, 11, 70);
    put("edits", "many-across-drains", many, sizeof many);
}

int
main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: mkseeds CORPUS-DIR\n");
        return 2;
    }
    dir = argv[1];
    char path[1024];
    snprintf(path, sizeof path, "%s/world", dir);
    mkdir(path, 0755);
    snprintf(path, sizeof path, "%s/edits", dir);
    mkdir(path, 0755);
    world_seeds();
    edit_seeds();
    return 0;
}
