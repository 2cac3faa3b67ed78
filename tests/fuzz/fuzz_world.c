/*
 * fuzz_world.c: fuzz target for the shared-memory header validators,
 * gc_world_validate and gc_queue_validate, and for what an attaching
 * program reads after them.
 *
 * The input is the whole object.  It is copied into a buffer of exactly its
 * size (malloc: 16-byte aligned, as the validators require 8), so that
 * AddressSanitizer or valgrind see any read past the end.  Both validators
 * must return one of their documented codes with a one-line printable
 * message, or GC_OK; and GC_OK must mean what world.h promises, checked
 * here field by field with arithmetic written out independently:
 * magic, version, sizes against the input's size, geometry in range, every
 * section inside the object, aligned, clear of the header and of the
 * others, of the size its geometry implies, agent count within capacity.
 *
 * A world that validates is then written into a POSIX shared-memory object
 * of this process and attached with gc_world_attach, exactly as
 * gridcrowd-ctl and the viewer attach, and every reader runs on it: cells,
 * agents, statistics, trace, trace request, path.  Counts inside the
 * sections are not part of the header and may be anything: the readers must
 * refuse them (GC_ECORRUPT) rather than copy past their capacity.
 */
#include "fuzz.h"

#include <gridcrowd/world-layout.h>
#include <gridcrowd/world.h>

#include <fcntl.h>
#include <math.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

static int
one_line(const gc_error *err)
{
    return fuzz_msg_printable(err->msg, sizeof err->msg) &&
           strchr(err->msg, '\n') == NULL;
}

static int
aligned(uint64_t v)
{
    return v % GC_WORLD_ALIGN == 0;
}

/* [off, off + size) inside [256, total), no overflow. */
static int
inside(const gc_world_section *s, uint64_t total)
{
    return s->offset >= sizeof(gc_world_header) && s->offset <= total &&
           s->size <= total - s->offset;
}

static int
apart(const gc_world_section *a, const gc_world_section *b)
{
    return a->offset + a->size <= b->offset || b->offset + b->size <= a->offset;
}

static void
check_world_ok(const uint8_t *p, size_t size)
{
    gc_world_header h;
    FUZZ_CHECK(size >= sizeof h);
    memcpy(&h, p, sizeof h);
    uint64_t magic;
    memcpy(&magic, p, sizeof magic);
    FUZZ_CHECK(magic == GC_WORLD_MAGIC);
    FUZZ_CHECK(h.version == GC_WORLD_VERSION);
    FUZZ_CHECK(h.header_size == 256 && h.total_size == size);
    FUZZ_CHECK(h.width >= 1 && h.width <= GC_GRID_MAX_SIDE);
    FUZZ_CHECK(h.height >= 1 && h.height <= GC_GRID_MAX_SIDE);
    uint64_t cells = (uint64_t)h.width * (uint64_t)h.height;
    FUZZ_CHECK(cells <= GC_GRID_MAX_CELLS);
    FUZZ_CHECK(isfinite(h.cell_size) && h.cell_size > 0);
    FUZZ_CHECK(h.pid > 0);
    uint32_t state, count;
    memcpy(&state, p + offsetof(gc_world_header, state), sizeof state);
    memcpy(&count, p + offsetof(gc_world_header, agent_count), sizeof count);
    FUZZ_CHECK(state >= GC_WORLD_STARTING && state <= GC_WORLD_STOPPING);
    FUZZ_CHECK(h.agent_record_size == 128);
    FUZZ_CHECK(h.agent_capacity <= GC_WORLD_MAX_AGENTS);
    FUZZ_CHECK(count <= h.agent_capacity);
    FUZZ_CHECK(h.trace_capacity >= 1 && h.trace_capacity <= GC_WORLD_TRACE_MAX);
    FUZZ_CHECK(h.path_capacity >= 1 && h.path_capacity <= GC_WORLD_PATH_MAX);
    FUZZ_CHECK(h.answer_capacity >= 1 &&
               h.answer_capacity <= GC_WORLD_ANSWERS_MAX);

    const gc_world_section *s[6] = {&h.cells, &h.agents, &h.stats,
                                    &h.trace, &h.path,   &h.answers};
    const uint64_t want[6] = {cells, 64 + 2 * (uint64_t)h.agent_capacity * 128,
                              64 + 256, 64 + 8 * (uint64_t)h.trace_capacity,
                              64 + 8 * (uint64_t)h.path_capacity,
                              64 + 64 * (uint64_t)h.answer_capacity};
    for (int i = 0; i < 6; i++) {
        FUZZ_CHECK(inside(s[i], size));
        FUZZ_CHECK(aligned(s[i]->offset));
        FUZZ_CHECK(s[i]->size == want[i]);
        for (int j = 0; j < i; j++)
            FUZZ_CHECK(apart(s[i], s[j]));
    }
}

static void
check_edits_ok(const uint8_t *p, size_t size)
{
    gc_queue_header h;
    FUZZ_CHECK(size >= sizeof h);
    memcpy(&h, p, sizeof h);
    uint64_t magic;
    memcpy(&magic, p, sizeof magic);
    FUZZ_CHECK(magic == GC_QUEUE_MAGIC);
    FUZZ_CHECK(h.version == GC_QUEUE_VERSION && h.header_size == 256);
    FUZZ_CHECK(h.total_size == size && h.entry_size == 128);
    FUZZ_CHECK(h.capacity >= 2 && h.capacity <= GC_QUEUE_MAX_CAPACITY);
    FUZZ_CHECK((h.capacity & (h.capacity - 1)) == 0);
    FUZZ_CHECK(256 + 128 * (uint64_t)h.capacity == size);
    FUZZ_CHECK(h.pid > 0);
    FUZZ_CHECK(h.claim_timeout_ns >= 1000000 &&
               h.claim_timeout_ns <= UINT64_C(3600000000000));
}

/* ---- Attaching a world that validated ------------------------------------ */

static char shm_name[64];
static int shm_fd = -1;

static void
remove_object(void)
{
    if (shm_fd >= 0)
        shm_unlink(shm_name);
}

/* The fuzzed bytes as a shared-memory object; 0 or -1. */
static int
write_object(const uint8_t *p, size_t size)
{
    if (shm_fd < 0) {
        snprintf(shm_name, sizeof shm_name, "/gc-fuzz-world-%ld",
                 (long)getpid());
        shm_unlink(shm_name);
        shm_fd = shm_open(shm_name, O_RDWR | O_CREAT | O_EXCL, 0600);
        if (shm_fd < 0)
            return -1;
        atexit(remove_object);
    }
    if (ftruncate(shm_fd, 0) != 0 || ftruncate(shm_fd, (off_t)size) != 0)
        return -1;
    size_t done = 0;
    while (done < size) {
        ssize_t n = pwrite(shm_fd, p + done, size - done, (off_t)done);
        if (n <= 0)
            return -1;
        done += (size_t)n;
    }
    return 0;
}

static void
read_everything(void)
{
    gc_world *w;
    gc_error err;
    int rc = gc_world_attach(&w, shm_name, 0, &err);
    /* It validated as bytes; as an object it must attach the same. */
    FUZZ_CHECK(rc == GC_OK);

    const int32_t width = gc_world_width(w), height = gc_world_height(w);
    size_t ncells = (size_t)width * (size_t)height;
    uint8_t *cells = malloc(ncells);
    FUZZ_CHECK(cells != NULL);
    uint64_t gen;
    /* The fuzzed cells_seq may be odd for ever: busy, never a torn copy. */
    rc = gc_world_read_cells(w, cells, &gen);
    FUZZ_CHECK(rc == GC_OK || rc == GC_EBUSY);
    free(cells);

    const uint32_t cap = gc_world_agent_capacity(w);
    gc_world_agent *ag = malloc((cap ? cap : 1) * sizeof *ag);
    FUZZ_CHECK(ag != NULL);
    size_t count = (size_t)-1;
    uint64_t seq;
    rc = gc_world_read_agents(w, ag, cap, &count, &seq);
    FUZZ_CHECK(rc == GC_OK || rc == GC_ECORRUPT || rc == GC_EBUSY);
    if (rc == GC_OK)
        FUZZ_CHECK(count <= cap);
    /* A smaller buffer is never overrun. */
    if (cap > 1) {
        rc = gc_world_read_agents(w, ag, 1, &count, &seq);
        FUZZ_CHECK(rc != GC_OK || count <= 1);
    }
    free(ag);
    FUZZ_CHECK(gc_world_agent_count(w) <= cap);

    gc_world_stats st;
    rc = gc_world_read_stats(w, &st);
    FUZZ_CHECK(rc == GC_OK || rc == GC_EBUSY);

    const uint32_t tcap = gc_world_trace_capacity(w);
    gc_world_trace_event *ev = malloc((size_t)tcap * sizeof *ev);
    FUZZ_CHECK(ev != NULL);
    gc_world_trace_info info;
    rc = gc_world_read_trace(w, &info, ev, tcap);
    FUZZ_CHECK(rc == GC_OK || rc == GC_ECORRUPT || rc == GC_EBUSY);
    if (rc == GC_OK)
        FUZZ_CHECK(info.count <= tcap);
    rc = gc_world_read_trace(w, &info, NULL, 0);
    FUZZ_CHECK(rc != GC_OK || info.count == 0);
    free(ev);
    uint32_t agent, agen;
    gc_world_trace_request(w, &agent, &agen);

    const uint32_t pcap = gc_world_path_capacity(w);
    gc_vec2 *pts = malloc((size_t)pcap * sizeof *pts);
    FUZZ_CHECK(pts != NULL);
    gc_world_path_info pinfo;
    rc = gc_world_read_path(w, &pinfo, pts, pcap);
    FUZZ_CHECK(rc == GC_OK || rc == GC_ECORRUPT || rc == GC_EBUSY);
    if (rc == GC_OK)
        FUZZ_CHECK(pinfo.count <= pcap && pinfo.count <= pinfo.path_len);
    rc = gc_world_read_path(w, &pinfo, NULL, 0);
    FUZZ_CHECK(rc != GC_OK || pinfo.count == 0);
    free(pts);

    (void)gc_world_state(w);
    (void)gc_world_tick(w);
    (void)gc_world_generation(w);
    (void)gc_world_edits_applied(w);
    gc_world_close(w);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    uint8_t *buf = malloc(size > 0 ? size : 1);
    FUZZ_CHECK(buf != NULL);
    if (size > 0)
        memcpy(buf, data, size);

    gc_error err;
    gc_error_clear(&err);
    int rc = gc_world_validate(buf, size, &err);
    if (rc == GC_OK) {
        check_world_ok(buf, size);
    } else {
        FUZZ_CHECK(rc == GC_EBADMAGIC || rc == GC_EVERSION ||
                   rc == GC_ECORRUPT);
        FUZZ_CHECK(err.code == rc && one_line(&err));
    }
    gc_error_clear(&err);
    int erc = gc_queue_validate(buf, size, &err);
    if (erc == GC_OK) {
        check_edits_ok(buf, size);
    } else {
        FUZZ_CHECK(erc == GC_EBADMAGIC || erc == GC_EVERSION ||
                   erc == GC_ECORRUPT);
        FUZZ_CHECK(err.code == erc && one_line(&err));
    }
    FUZZ_CHECK(rc != GC_OK || erc != GC_OK); /* not both at once */

    /* Every shorter prefix of a valid object is refused. */
    if (rc == GC_OK || erc == GC_OK) {
        for (size_t cut = 0; cut < size; cut += 1 + cut / 2) {
            uint8_t *pre = malloc(cut > 0 ? cut : 1);
            FUZZ_CHECK(pre != NULL);
            memcpy(pre, buf, cut);
            FUZZ_CHECK(gc_world_validate(pre, cut, NULL) != GC_OK);
            FUZZ_CHECK(gc_queue_validate(pre, cut, NULL) != GC_OK);
            free(pre);
        }
    }

    if (rc == GC_OK && write_object(buf, size) == 0)
        read_everything();
    free(buf);
    return 0;
}
