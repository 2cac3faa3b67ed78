/*
 * world.c: the shared-memory world and the edit-queue object.
 *
 * The daemon creates /NAME (the world) and /NAME.edits (the edit queue); the
 * viewer and the tools attach.  The layout is in gridcrowd/world.h; this file
 * keeps these rules:
 *
 * - Ownership is an flock.  The creator takes LOCK_EX on each object's fd and
 *   holds it until it closes the fd, so the kernel drops it the moment the
 *   daemon dies, however it dies.  A new daemon that finds an object tries
 *   LOCK_EX|LOCK_NB: if someone holds it, a live process owns the object and
 *   we refuse, naming the pid from the header when there is a valid one; if
 *   we get it, the owner is gone and we unlink and recreate.  This is
 *   stronger than kill(pid, 0) on the recorded pid, which says "alive" when
 *   the pid has been reused by an unrelated process, and says nothing about
 *   a daemon that died (or is still starting) before it wrote its header.
 *   The pid is used only for messages and gc_world_owner_alive.
 * - Races between daemons starting at once are settled by the lock: after
 *   locking, an object whose link count is 0 has been replaced under us and
 *   we start again; a holder of the lock is the only one allowed to unlink.
 *   A bounded loop gives up with GC_EBUSY.
 * - Creation: O_CREAT|O_EXCL, lock, fchmod (the mode is applied exactly, not
 *   filtered by the umask), ftruncate (so every byte starts zero), mmap, fill
 *   the header, and publish the magic last with a release store.  A reader
 *   that sees the magic sees a complete header.
 * - Attaching maps the world PROT_READ from an O_RDONLY descriptor, so the
 *   mapping can never be made writable, and validates every field against
 *   the fstat size before reading anything else.  The handle keeps its own
 *   copy of the validated geometry: readers never re-read sizes or offsets
 *   from shared memory, so a corrupted header after attach cannot make them
 *   read out of bounds.  (The daemon never shrinks the object; a process
 *   that could would need write access, which readers do not grant.)
 * - Every concurrent field is an _Atomic with an explicit order.  Snapshot
 *   records, statistics and trace events are copied word by word with relaxed
 *   atomics inside a sequence-counter protocol, which keeps in-process readers
 *   ThreadSanitizer-clean.  The cell bytes are the exception: the daemon's
 *   gc_grid writes them with plain stores, so readers copy them with memcpy
 *   inside the cells_seq seqlock; they are meant for other processes.
 * - Readers never block the daemon: they retry a torn copy a bounded number
 *   of times (GC_WORLD_READ_ATTEMPTS, with sched_yield) and then say GC_EBUSY.
 * - The agent snapshot's sequence counts half-steps (odd while the writer
 *   fills a buffer), so a reader can tell exactly when the buffer it copied
 *   was handed back to the writer: with a plain count of publishes, the
 *   writer already refills that buffer while the count has moved by only
 *   one, and a reader that tolerates one publish would accept torn copies.
 * - The edit queue is a Vyukov bounded ring with one consumer (the daemon).
 *   A producer can die between claiming a slot and publishing it; the
 *   daemon then waits claim_timeout_ns, timed from when it first saw the
 *   slot stuck (the producer may have died before writing claim_ns), and
 *   skips it by moving the slot's seq on with a CAS.  The producer publishes
 *   with a CAS too, so a late publish fails instead of slipping an entry
 *   into a later lap: nothing is applied twice, and a stalled producer
 *   learns its edit was dropped (GC_ETIMEOUT).  A per-entry check over the
 *   position and payload catches the one remaining hazard, a stalled
 *   producer's late stores landing in the slot's next occupant.  Producers
 *   never wait for the daemon except when the ring is full (bounded by
 *   their timeout), and the daemon never waits at all.
 * - Whoever may edit can write the whole queue object, header included, and
 *   can even shrink it.  So the daemon keeps its own copies of what it
 *   consumes by (capacity, claim timeout, head) and only publishes head; a
 *   scribbled tail can at worst make it skip entries as dead claims, never
 *   take one twice; pending counts are capped at the capacity; and
 *   gc_world_edits_intact / gc_world_reset_edits let it notice a damaged
 *   object (size by fstat, fixed fields) and make a fresh one.  (Reading a
 *   mapping past a shrunk object's end raises SIGBUS: the daemon guards
 *   against that itself, since a library must not own signal handlers.)
 * - Taking over: only objects a gridcrowd daemon left behind (our magic, or
 *   none yet) are unlinked and remade; anything else under the name is
 *   someone else's, and creating refuses it (GC_EEXIST) rather than
 *   destroying it.
 */
#include "config.h"

#include <gridcrowd/world.h>

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <sched.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* ---- Layout pins --------------------------------------------------------- */

_Static_assert(GC_WORLD_NAME_MAX == NAME_MAX - (sizeof GC_EDITS_SUFFIX - 1),
               "name limit leaves room for the .edits suffix");
_Static_assert(sizeof(_Atomic uint64_t) == 8 && _Alignof(_Atomic uint64_t) == 8,
               "64-bit atomics are plain 8-byte words");
_Static_assert(sizeof(_Atomic uint32_t) == 4, "32-bit atomics are 4 bytes");
_Static_assert(ATOMIC_LLONG_LOCK_FREE == 2 && ATOMIC_INT_LOCK_FREE == 2,
               "atomics shared between processes must be lock-free");
_Static_assert(sizeof(float) == 4 && sizeof(double) == 8, "IEEE sizes");
_Static_assert(sizeof(pid_t) <= sizeof(int32_t), "pid fits the header");

_Static_assert(sizeof(gc_world_header) == 256, "world header size");
_Static_assert(sizeof(gc_world_header) % GC_WORLD_ALIGN == 0, "padded");
_Static_assert(offsetof(gc_world_header, magic) == 0, "magic first");
_Static_assert(offsetof(gc_world_header, version) == 8, "version");
_Static_assert(offsetof(gc_world_header, header_size) == 12, "header_size");
_Static_assert(offsetof(gc_world_header, total_size) == 16, "total_size");
_Static_assert(offsetof(gc_world_header, width) == 24, "width");
_Static_assert(offsetof(gc_world_header, cell_size) == 32, "cell_size");
_Static_assert(offsetof(gc_world_header, pid) == 36, "pid");
_Static_assert(offsetof(gc_world_header, agent_capacity) == 40, "capacity");
_Static_assert(offsetof(gc_world_header, trace_capacity) == 48, "trace cap");
_Static_assert(offsetof(gc_world_header, cells) == 64, "sections");
_Static_assert(offsetof(gc_world_header, trace) == 112, "trace section");
_Static_assert(offsetof(gc_world_header, state) == 128, "live line");
_Static_assert(offsetof(gc_world_header, tick) == 136, "tick");
_Static_assert(offsetof(gc_world_header, generation) == 144, "generation");
_Static_assert(offsetof(gc_world_header, cells_seq) == 152, "cells_seq");
_Static_assert(offsetof(gc_world_header, edits_accepted) == 160, "edits");
_Static_assert(offsetof(gc_world_header, edits_applied) == 184, "applied");

_Static_assert(sizeof(gc_world_agent) == 128, "agent record size");
_Static_assert(offsetof(gc_world_agent, state) == 36, "agent state");
_Static_assert(offsetof(gc_world_agent, path) == 40, "agent path");
_Static_assert(sizeof(gc_world_agent_slot) == sizeof(gc_world_agent),
               "a slot holds the bytes of a record");
_Static_assert(GC_WORLD_AGENT_WORDS == 16, "slot words");
_Static_assert(sizeof(gc_world_agents_hdr) == 64, "agents head");
_Static_assert(sizeof(gc_world_stats) == 256, "stats size");
_Static_assert(sizeof(gc_world_stats_area) == 64 + sizeof(gc_world_stats),
               "stats area");
_Static_assert(GC_WORLD_STATS_WORDS == 32, "stats words");
_Static_assert(sizeof(gc_world_trace_event) == 8, "trace event");
_Static_assert(sizeof(gc_world_trace_hdr) == 64, "trace head");

_Static_assert(sizeof(gc_edits_header) == 256, "edits header size");
_Static_assert(offsetof(gc_edits_header, pid) == 32, "edits pid");
_Static_assert(offsetof(gc_edits_header, head) == 64, "head on its line");
_Static_assert(offsetof(gc_edits_header, tail) == 128, "tail on its line");
_Static_assert(sizeof(gc_edit_entry) == 64, "edit entry size");
_Static_assert(offsetof(gc_edit_entry, op) == 16, "edit payload");
_Static_assert(offsetof(gc_edit_entry, check) == 56, "edit check");

/* ---- The handle ---------------------------------------------------------- */

/* Geometry of a world, computed at creation or copied out of a validated
 * header.  Never re-read from shared memory afterwards. */
typedef struct layout {
    int32_t width, height;
    float cell_size;
    uint32_t capacity, trace_capacity;
    uint64_t cells_off, cells_size;
    uint64_t agents_off, agents_size;
    uint64_t stats_off, stats_size;
    uint64_t trace_off, trace_size;
    uint64_t total;
} layout;

struct gc_world_snap {
    gc_world_agent_slot *slots; /* the buffer being filled */
    uint32_t capacity;
    bool open;
};

typedef struct object_spec {
    const char *name;
    const char *kind; /* "world", "edit queue": for messages */
    mode_t mode;
    bool set_group; /* fchown the object to `group` */
    gid_t group;
    uint64_t size;
    uint64_t magic;
    size_t pid_off;
} object_spec;

struct gc_world {
    char name[GC_WORLD_NAME_MAX + 2];
    char edits_name[GC_WORLD_NAME_MAX + sizeof GC_EDITS_SUFFIX + 1];
    bool owner;
    int fd, edits_fd;
    uint8_t *base;
    size_t size;
    uint8_t *edits_base;
    size_t edits_size;
    layout lay;
    pid_t pid;
    gc_world_snap snap;
    bool cells_open;
    /* The edit queue, from its validated header. */
    uint32_t edits_cap;
    uint64_t claim_timeout_ns;
    /* The consumer's view of a claimed but unpublished head entry. */
    bool stalled;
    uint64_t stall_pos, stall_since_ns;
    /* The consumer's position (the owner's handle only).  The header's
     * head is a copy published for the tools; the daemon never reads it
     * back, since every producer can write that object. */
    uint64_t head;
    /* How the queue object was made, to make it again
     * (gc_world_reset_edits).  Owner only. */
    object_spec edits_spec;
};

static gc_world_header *
hdr(const gc_world *w)
{
    return (gc_world_header *)(void *)w->base;
}

static gc_world_agents_hdr *
agents_hdr(const gc_world *w)
{
    return (gc_world_agents_hdr *)(void *)(w->base + w->lay.agents_off);
}

static gc_world_agent_slot *
agent_slots(const gc_world *w, unsigned buf)
{
    gc_world_agent_slot *s =
        (gc_world_agent_slot *)(void *)(w->base + w->lay.agents_off +
                                        sizeof(gc_world_agents_hdr));
    return s + (size_t)buf * w->lay.capacity;
}

static gc_world_stats_area *
stats_area(const gc_world *w)
{
    return (gc_world_stats_area *)(void *)(w->base + w->lay.stats_off);
}

static gc_world_trace_hdr *
trace_hdr(const gc_world *w)
{
    return (gc_world_trace_hdr *)(void *)(w->base + w->lay.trace_off);
}

static _Atomic uint64_t *
trace_words(const gc_world *w)
{
    return (_Atomic uint64_t *)(void *)(w->base + w->lay.trace_off +
                                        sizeof(gc_world_trace_hdr));
}

/* ---- Names and sizes ----------------------------------------------------- */

const char *
gc_world_state_name(unsigned state)
{
    switch (state) {
    case GC_WORLD_STARTING:
        return "starting";
    case GC_WORLD_RUNNING:
        return "running";
    case GC_WORLD_STOPPING:
        return "stopping";
    }
    return "unknown";
}

/* "/NAME" and "/NAME.edits" from a name with or without its leading '/'. */
static int
make_names(gc_world *w, const char *name, gc_error *err)
{
    if (name == NULL)
        name = GC_WORLD_DEFAULT_NAME;
    const char *n = name[0] == '/' ? name + 1 : name;
    size_t len = strlen(n);
    if (len == 0)
        return gc_error_set(err, GC_EINVAL, NULL, 0, 0,
                            "shared-memory name '%s' is empty", name);
    if (strchr(n, '/') != NULL)
        return gc_error_set(err, GC_EINVAL, NULL, 0, 0,
                            "shared-memory name '%s' contains '/' after its "
                            "first character",
                            name);
    if (len > GC_WORLD_NAME_MAX)
        return gc_error_set(err, GC_EINVAL, NULL, 0, 0,
                            "shared-memory name is %zu characters, longer "
                            "than the limit of %d",
                            len, GC_WORLD_NAME_MAX);
    if (strcmp(n, ".") == 0 || strcmp(n, "..") == 0)
        return gc_error_set(err, GC_EINVAL, NULL, 0, 0,
                            "shared-memory name '%s' is not allowed", name);
    w->name[0] = '/';
    memcpy(w->name + 1, n, len + 1);
    memcpy(w->edits_name, w->name, len + 1);
    memcpy(w->edits_name + len + 1, GC_EDITS_SUFFIX, sizeof GC_EDITS_SUFFIX);
    return GC_OK;
}

static uint64_t
align_up(uint64_t v)
{
    return (v + GC_WORLD_ALIGN - 1) & ~(uint64_t)(GC_WORLD_ALIGN - 1);
}

static uint64_t
agents_section_size(uint32_t capacity)
{
    return sizeof(gc_world_agents_hdr) +
           2 * (uint64_t)capacity * sizeof(gc_world_agent_slot);
}

static uint64_t
trace_section_size(uint32_t capacity)
{
    return sizeof(gc_world_trace_hdr) + (uint64_t)capacity * sizeof(uint64_t);
}

/* Sections in this order after the header, each 64-byte aligned. */
static void
compute_layout(layout *l)
{
    l->cells_off = sizeof(gc_world_header);
    l->cells_size = (uint64_t)l->width * (uint64_t)l->height;
    l->agents_off = align_up(l->cells_off + l->cells_size);
    l->agents_size = agents_section_size(l->capacity);
    l->stats_off = align_up(l->agents_off + l->agents_size);
    l->stats_size = sizeof(gc_world_stats_area);
    l->trace_off = align_up(l->stats_off + l->stats_size);
    l->trace_size = trace_section_size(l->trace_capacity);
    l->total = align_up(l->trace_off + l->trace_size);
}

static uint64_t
edits_total_size(uint32_t capacity)
{
    return sizeof(gc_edits_header) + (uint64_t)capacity * sizeof(gc_edit_entry);
}

static uint64_t
now_ns(clockid_t clock)
{
    struct timespec ts;
    clock_gettime(clock, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* ---- Validation ---------------------------------------------------------- */

static bool
grid_size_ok(int32_t width, int32_t height)
{
    return width >= 1 && height >= 1 && width <= GC_GRID_MAX_SIDE &&
           height <= GC_GRID_MAX_SIDE &&
           (uint64_t)width * (uint64_t)height <= GC_GRID_MAX_CELLS;
}

typedef struct section_check {
    const char *what;
    gc_world_section s;
    uint64_t expect;
} section_check;

/*
 * Both objects start with the same fields at the same offsets (magic,
 * version, header size, total size: pinned below), checked here once.
 * `what` names the kind in messages ("world", "edit queue").
 */
_Static_assert(offsetof(gc_edits_header, magic) == 0, "edits magic first");
_Static_assert(offsetof(gc_edits_header, version) ==
                       offsetof(gc_world_header, version) &&
                   offsetof(gc_edits_header, header_size) ==
                       offsetof(gc_world_header, header_size) &&
                   offsetof(gc_edits_header, total_size) ==
                       offsetof(gc_world_header, total_size),
               "the two headers share their first fields");

typedef struct object_kind {
    const char *what;      /* "world" */
    const char *a_what;    /* "a world" */
    const char *an_header; /* "a world header" */
    const char *starting;  /* hint on a too-small object, or "" */
    uint64_t magic;
    const char *magic_text; /* "GCWORLD1" */
    uint64_t other_magic;   /* the other kind's magic */
    const char *other_what; /* "edit queue" */
    uint32_t version;
    size_t header_size;
} object_kind;

static int
check_prefix(const uint8_t *p, size_t size, const char *name,
             const object_kind *k, gc_error *err)
{
    const gc_world_header *h = (const gc_world_header *)(const void *)p;
    if (p == NULL && size > 0)
        return gc_error_set(err, GC_EINVAL, name, 0, 0, "no mapping");
    if ((uintptr_t)p % 8 != 0)
        return gc_error_set(err, GC_EINVAL, name, 0, 0,
                            "mapping is not 8-byte aligned");
    if (size < sizeof(uint64_t))
        return gc_error_set(err, GC_ECORRUPT, name, 0, 0,
                            "object is %zu bytes, too small for %s "
                            "(%zu bytes)%s",
                            size, k->an_header, k->header_size, k->starting);
    uint64_t magic = atomic_load_explicit(&h->magic, memory_order_acquire);
    if (magic != k->magic) {
        if (magic == 0)
            return gc_error_set(err, GC_EBADMAGIC, name, 0, 0,
                                "no magic number (zero): not a gridcrowd %s, "
                                "or its daemon is still starting",
                                k->what);
        if (magic == k->other_magic)
            return gc_error_set(err, GC_EBADMAGIC, name, 0, 0,
                                "this is a gridcrowd %s, not %s", k->other_what,
                                k->a_what);
        return gc_error_set(err, GC_EBADMAGIC, name, 0, 0,
                            "bad magic 0x%016" PRIx64 " (expected 0x%016" PRIx64
                            ", \"%s\"): not a gridcrowd %s",
                            magic, k->magic, k->magic_text, k->what);
    }
    if (size < offsetof(gc_world_header, version) + sizeof h->version)
        return gc_error_set(err, GC_ECORRUPT, name, 0, 0,
                            "object is %zu bytes, too small for %s "
                            "(%zu bytes)",
                            size, k->an_header, k->header_size);
    if (h->version != k->version)
        return gc_error_set(err, GC_EVERSION, name, 0, 0,
                            "%s layout version %" PRIu32
                            ", but this program reads version %u",
                            k->what, h->version, k->version);
    if (size < k->header_size)
        return gc_error_set(err, GC_ECORRUPT, name, 0, 0,
                            "object is %zu bytes, too small for %s "
                            "(%zu bytes)",
                            size, k->an_header, k->header_size);
    if (h->header_size != k->header_size)
        return gc_error_set(err, GC_ECORRUPT, name, 0, 0,
                            "header size is %" PRIu32 " bytes, expected %zu",
                            h->header_size, k->header_size);
    if (h->total_size != (uint64_t)size)
        return gc_error_set(err, GC_ECORRUPT, name, 0, 0,
                            "object is %zu bytes, header says %" PRIu64, size,
                            h->total_size);
    return GC_OK;
}

static const object_kind world_kind = {
    "world",          "a world",
    "a world header", "; is a daemon still starting?",
    GC_WORLD_MAGIC,   "GCWORLD1",
    GC_EDITS_MAGIC,   "edit queue",
    GC_WORLD_VERSION, sizeof(gc_world_header)};
static const object_kind edits_kind = {
    "edit queue",           "an edit queue",
    "an edit queue header", "",
    GC_EDITS_MAGIC,         "GCEDITS1",
    GC_WORLD_MAGIC,         "world",
    GC_EDITS_VERSION,       sizeof(gc_edits_header)};

/*
 * Validate a world of `size` bytes at `p`; `name` (may be NULL) prefixes the
 * messages.  On success fills *lay.  Reads nothing outside [p, p + size):
 * each field is read only after checking that size covers it.
 */
static int
check_world(const uint8_t *p, size_t size, const char *name, layout *lay,
            gc_error *err)
{
    const gc_world_header *h = (const gc_world_header *)(const void *)p;
    const size_t hsize = sizeof(gc_world_header);
    int rc = check_prefix(p, size, name, &world_kind, err);
    if (rc != GC_OK)
        return rc;
    if (!grid_size_ok(h->width, h->height))
        return gc_error_set(err, GC_ECORRUPT, name, 0, 0,
                            "grid size %" PRId32 "x%" PRId32
                            " is out of range (1..%d a side, at most %zu "
                            "cells)",
                            h->width, h->height, GC_GRID_MAX_SIDE,
                            (size_t)GC_GRID_MAX_CELLS);
    if (!(isfinite(h->cell_size) && h->cell_size > 0.0f))
        return gc_error_set(err, GC_ECORRUPT, name, 0, 0,
                            "cell size %g is not a positive number",
                            (double)h->cell_size);
    if (h->pid <= 0)
        return gc_error_set(err, GC_ECORRUPT, name, 0, 0,
                            "owner pid %" PRId32 " is not a valid pid", h->pid);
    unsigned state = atomic_load_explicit(&h->state, memory_order_acquire);
    if (state < GC_WORLD_STARTING || state > GC_WORLD_STOPPING)
        return gc_error_set(err, GC_ECORRUPT, name, 0, 0,
                            "daemon state %u is not a known state", state);
    if (h->agent_record_size != sizeof(gc_world_agent))
        return gc_error_set(err, GC_ECORRUPT, name, 0, 0,
                            "agent record is %" PRIu32 " bytes, expected %zu",
                            h->agent_record_size, sizeof(gc_world_agent));
    if (h->agent_capacity > GC_WORLD_MAX_AGENTS)
        return gc_error_set(err, GC_ECORRUPT, name, 0, 0,
                            "agent capacity %" PRIu32 " exceeds the limit %u",
                            h->agent_capacity, GC_WORLD_MAX_AGENTS);
    uint32_t count =
        atomic_load_explicit(&h->agent_count, memory_order_relaxed);
    if (count > h->agent_capacity)
        return gc_error_set(err, GC_ECORRUPT, name, 0, 0,
                            "agent count %" PRIu32 " exceeds capacity %" PRIu32,
                            count, h->agent_capacity);
    if (h->trace_capacity < 1 || h->trace_capacity > GC_WORLD_TRACE_MAX)
        return gc_error_set(err, GC_ECORRUPT, name, 0, 0,
                            "trace capacity %" PRIu32
                            " is out of range (1..%u)",
                            h->trace_capacity, GC_WORLD_TRACE_MAX);

    const uint64_t total = h->total_size;
    const section_check sec[4] = {
        {"cells", h->cells, (uint64_t)h->width * (uint64_t)h->height},
        {"agents", h->agents, agents_section_size(h->agent_capacity)},
        {"stats", h->stats, sizeof(gc_world_stats_area)},
        {"trace", h->trace, trace_section_size(h->trace_capacity)},
    };
    for (int i = 0; i < 4; i++) {
        const section_check *c = &sec[i];
        if (c->s.offset > total)
            return gc_error_set(err, GC_ECORRUPT, name, 0, 0,
                                "%s section offset %" PRIu64
                                " is past the end of the object (%" PRIu64
                                " bytes)",
                                c->what, c->s.offset, total);
        if (c->s.size > total - c->s.offset)
            return gc_error_set(
                err, GC_ECORRUPT, name, 0, 0,
                "%s section of %" PRIu64 " bytes at offset %" PRIu64
                " runs past the end of the object (%" PRIu64 " bytes)",
                c->what, c->s.size, c->s.offset, total);
        if (c->s.offset < hsize)
            return gc_error_set(err, GC_ECORRUPT, name, 0, 0,
                                "%s section at offset %" PRIu64
                                " overlaps the header (%zu bytes)",
                                c->what, c->s.offset, hsize);
        if (c->s.offset % GC_WORLD_ALIGN != 0)
            return gc_error_set(err, GC_ECORRUPT, name, 0, 0,
                                "%s section offset %" PRIu64
                                " is not %d-byte aligned",
                                c->what, c->s.offset, GC_WORLD_ALIGN);
        if (c->s.size != c->expect) {
            if (i == 0)
                return gc_error_set(err, GC_ECORRUPT, name, 0, 0,
                                    "cells section is %" PRIu64
                                    " bytes, but the grid is %" PRId32
                                    "x%" PRId32 " = %" PRIu64 " cells",
                                    c->s.size, h->width, h->height, c->expect);
            return gc_error_set(err, GC_ECORRUPT, name, 0, 0,
                                "%s section is %" PRIu64
                                " bytes, expected %" PRIu64,
                                c->what, c->s.size, c->expect);
        }
    }
    /* Both ends are within total (checked above), so no sum overflows. */
    for (int i = 0; i < 4; i++)
        for (int j = i + 1; j < 4; j++) {
            const gc_world_section *a = &sec[i].s, *b = &sec[j].s;
            if (a->offset < b->offset + b->size &&
                b->offset < a->offset + a->size)
                return gc_error_set(err, GC_ECORRUPT, name, 0, 0,
                                    "%s and %s sections overlap", sec[i].what,
                                    sec[j].what);
        }

    if (lay != NULL) {
        lay->width = h->width;
        lay->height = h->height;
        lay->cell_size = h->cell_size;
        lay->capacity = h->agent_capacity;
        lay->trace_capacity = h->trace_capacity;
        lay->cells_off = h->cells.offset;
        lay->cells_size = h->cells.size;
        lay->agents_off = h->agents.offset;
        lay->agents_size = h->agents.size;
        lay->stats_off = h->stats.offset;
        lay->stats_size = h->stats.size;
        lay->trace_off = h->trace.offset;
        lay->trace_size = h->trace.size;
        lay->total = total;
    }
    return GC_OK;
}

int
gc_world_validate(const void *base, size_t size, gc_error *err)
{
    return check_world(base, size, NULL, NULL, err);
}

/* Limits of the claim timeout: long enough for any live producer, short
 * enough that a dead one does not hold the queue for long. */
#define CLAIM_TIMEOUT_MIN_NS UINT64_C(1000000)       /* 1 ms */
#define CLAIM_TIMEOUT_MAX_NS UINT64_C(3600000000000) /* 1 h */

static int
check_edits(const uint8_t *p, size_t size, const char *name, uint32_t *capp,
            uint64_t *timeoutp, gc_error *err)
{
    const gc_edits_header *h = (const gc_edits_header *)(const void *)p;
    int rc = check_prefix(p, size, name, &edits_kind, err);
    if (rc != GC_OK)
        return rc;
    if (h->entry_size != sizeof(gc_edit_entry))
        return gc_error_set(err, GC_ECORRUPT, name, 0, 0,
                            "edit entry is %" PRIu32 " bytes, expected %zu",
                            h->entry_size, sizeof(gc_edit_entry));
    uint32_t cap = h->capacity;
    if (cap < 2 || cap > GC_EDITS_MAX_CAPACITY || (cap & (cap - 1)) != 0)
        return gc_error_set(err, GC_ECORRUPT, name, 0, 0,
                            "queue capacity %" PRIu32
                            " is not a power of two in 2..%u",
                            cap, GC_EDITS_MAX_CAPACITY);
    if (edits_total_size(cap) != h->total_size)
        return gc_error_set(err, GC_ECORRUPT, name, 0, 0,
                            "%" PRIu32 " entries need %" PRIu64
                            " bytes, header says %" PRIu64,
                            cap, edits_total_size(cap), h->total_size);
    if (h->pid <= 0)
        return gc_error_set(err, GC_ECORRUPT, name, 0, 0,
                            "owner pid %" PRId32 " is not a valid pid", h->pid);
    if (h->claim_timeout_ns < CLAIM_TIMEOUT_MIN_NS ||
        h->claim_timeout_ns > CLAIM_TIMEOUT_MAX_NS)
        return gc_error_set(err, GC_ECORRUPT, name, 0, 0,
                            "claim timeout %" PRIu64
                            " ns is out of range (1 ms..1 h)",
                            h->claim_timeout_ns);
    if (capp != NULL)
        *capp = cap;
    if (timeoutp != NULL)
        *timeoutp = h->claim_timeout_ns;
    return GC_OK;
}

int
gc_edits_validate(const void *base, size_t size, gc_error *err)
{
    return check_edits(base, size, NULL, NULL, NULL, err);
}

/* ---- System-call errors -------------------------------------------------- */

static int
open_error(int e, const char *name, const char *doing, gc_error *err)
{
    switch (e) {
    case EACCES:
    case EPERM:
        return gc_error_set(err, GC_EPERM, NULL, 0, 0,
                            "permission denied %s %s", doing, name);
    case ENOENT:
        return gc_error_set(err, GC_ENOENT, NULL, 0, 0,
                            "no daemon: shared-memory object %s does not "
                            "exist",
                            name);
    case EINVAL:
    case ENAMETOOLONG:
        return gc_error_set(err, GC_EINVAL, NULL, 0, 0,
                            "%s %s: invalid name: %s", doing, name,
                            strerror(e));
    }
    return gc_error_set(err, GC_ESYS, NULL, 0, 0, "%s %s: %s", doing, name,
                        strerror(e));
}

static int
sys_error(int e, const char *name, const char *doing, gc_error *err)
{
    return gc_error_set(err, GC_ESYS, NULL, 0, 0, "%s %s: %s", doing, name,
                        strerror(e));
}

/* ---- Ownership: create, or take over from a dead owner ------------------- */

/* The pid in the header of an existing object, or 0 when it has none: too
 * small, wrong magic, or not yet written. */
static pid_t
recorded_pid(int fd, uint64_t magic, size_t pid_off)
{
    uint8_t buf[64];
    ssize_t n = pread(fd, buf, sizeof buf, 0);
    if (n < 0 || (size_t)n < pid_off + sizeof(int32_t))
        return 0;
    uint64_t m;
    int32_t pid;
    memcpy(&m, buf, sizeof m);
    memcpy(&pid, buf + pid_off, sizeof pid);
    return m == magic && pid > 0 ? (pid_t)pid : 0;
}

/*
 * Whether an existing object nobody holds may be taken over: only what a
 * gridcrowd daemon of this kind leaves behind, i.e. our magic, or no magic
 * yet (zero, or too short to hold one: a daemon that died while starting).
 * Anything else belongs to someone else, and unlinking it would destroy
 * their data; the caller refuses with GC_EEXIST.  Fills *found.
 */
static bool
ours_to_take(int fd, uint64_t magic, uint64_t *found)
{
    uint64_t m = 0;
    ssize_t n = pread(fd, &m, sizeof m, 0);
    *found = m;
    return n < (ssize_t)sizeof m || m == 0 || m == magic;
}

/*
 * Make `spec->name` ours: a new, locked, sized object.  Existing objects are
 * taken over when nobody holds their lock (*took, *stale_pid).  Returns the
 * descriptor in *fdp.  On error, nothing we created remains.
 */
static int
own_object(const object_spec *spec, int *fdp, bool *took, pid_t *stale_pid,
           gc_error *err)
{
    const char *name = spec->name;
    for (int attempt = 0; attempt < 8; attempt++) {
        int fd = shm_open(name, O_RDWR | O_CREAT | O_EXCL, spec->mode);
        if (fd >= 0) {
            struct stat st;
            int e;
            if (flock(fd, LOCK_EX | LOCK_NB) != 0) {
                /* Another daemon found our fresh, empty object and is
                 * replacing it; what it makes we will find next round. */
                e = errno;
                close(fd);
                if (e == EWOULDBLOCK)
                    continue;
                return sys_error(e, name, "locking", err);
            }
            if (fstat(fd, &st) != 0) {
                e = errno;
                shm_unlink(name);
                close(fd);
                return sys_error(e, name, "fstat of", err);
            }
            if (st.st_nlink == 0) { /* replaced before we locked it */
                close(fd);
                continue;
            }
            /* The group first: fchmod then gives the group its bits. */
            if (spec->set_group && fchown(fd, (uid_t)-1, spec->group) != 0) {
                e = errno;
                shm_unlink(name);
                close(fd);
                if (e == EPERM || e == EACCES)
                    return gc_error_set(
                        err, GC_EPERM, NULL, 0, 0,
                        "setting the group of %s to gid %ld: %s (the "
                        "daemon must be root or a member of that group)",
                        name, (long)spec->group, strerror(e));
                return gc_error_set(err, GC_ESYS, NULL, 0, 0,
                                    "setting the group of %s to gid %ld: %s",
                                    name, (long)spec->group, strerror(e));
            }
            if (fchmod(fd, spec->mode) != 0) {
                e = errno;
                shm_unlink(name);
                close(fd);
                return sys_error(e, name, "setting the mode of", err);
            }
            if (ftruncate(fd, (off_t)spec->size) != 0) {
                e = errno;
                shm_unlink(name);
                close(fd);
                return gc_error_set(err, GC_ESYS, NULL, 0, 0,
                                    "sizing %s to %" PRIu64 " bytes: %s", name,
                                    spec->size, strerror(e));
            }
            *fdp = fd;
            return GC_OK;
        }
        if (errno != EEXIST)
            return open_error(errno, name, "creating", err);

        /* It exists.  Reading it and locking it need no write access. */
        fd = shm_open(name, O_RDONLY, 0);
        if (fd < 0) {
            if (errno == ENOENT) /* gone meanwhile: try again */
                continue;
            return open_error(errno, name, "opening existing", err);
        }
        if (flock(fd, LOCK_EX | LOCK_NB) != 0) {
            int e = errno;
            pid_t pid = recorded_pid(fd, spec->magic, spec->pid_off);
            close(fd);
            if (e != EWOULDBLOCK)
                return sys_error(e, name, "locking", err);
            if (pid > 0)
                return gc_error_set(err, GC_EBUSY, NULL, 0, 0,
                                    "shared-memory object %s is held by live "
                                    "process %ld",
                                    name, (long)pid);
            return gc_error_set(err, GC_EBUSY, NULL, 0, 0,
                                "shared-memory object %s is held by a live "
                                "process that has not written its pid yet",
                                name);
        }
        struct stat st;
        if (fstat(fd, &st) != 0) {
            int e = errno;
            close(fd);
            return sys_error(e, name, "fstat of", err);
        }
        if (st.st_nlink == 0) { /* someone replaced it first */
            close(fd);
            continue;
        }
        /* Nobody holds it: its owner is dead, if it ever was ours. */
        uint64_t found;
        if (!ours_to_take(fd, spec->magic, &found)) {
            close(fd);
            return gc_error_set(err, GC_EEXIST, NULL, 0, 0,
                                "shared-memory object %s exists and is not a "
                                "gridcrowd %s (magic 0x%016" PRIx64
                                "): not taking it over; remove it or choose "
                                "another name",
                                name, spec->kind, found);
        }
        /* We hold the lock, so the name still refers to this object while
         * we unlink it. */
        pid_t pid = recorded_pid(fd, spec->magic, spec->pid_off);
        if (shm_unlink(name) != 0 && errno != ENOENT) {
            int e = errno;
            close(fd);
            if (e == EACCES || e == EPERM)
                return gc_error_set(err, GC_EPERM, NULL, 0, 0,
                                    "cannot take over stale %s: permission "
                                    "denied",
                                    name);
            return sys_error(e, name, "unlinking stale", err);
        }
        close(fd);
        *took = true;
        *stale_pid = pid;
    }
    return gc_error_set(err, GC_EBUSY, NULL, 0, 0,
                        "shared-memory object %s: gave up after repeated "
                        "races with another process creating it",
                        name);
}

static void
world_unmap(gc_world *w)
{
    if (w->base != NULL)
        munmap(w->base, w->size);
    if (w->edits_base != NULL)
        munmap(w->edits_base, w->edits_size);
    if (w->fd >= 0)
        close(w->fd);
    if (w->edits_fd >= 0)
        close(w->edits_fd);
    w->base = w->edits_base = NULL;
    w->fd = w->edits_fd = -1;
}

static gc_world *
world_alloc(void)
{
    gc_world *w = calloc(1, sizeof *w);
    if (w != NULL)
        w->fd = w->edits_fd = -1;
    return w;
}

static int
check_config(const gc_world_config *cfg, layout *l, uint32_t *edits_cap,
             uint64_t *claim_timeout_ns, gc_error *err)
{
    if (!grid_size_ok(cfg->width, cfg->height)) {
        int code = cfg->width < 1 || cfg->height < 1 ? GC_EINVAL : GC_ETOOBIG;
        return gc_error_set(err, code, NULL, 0, 0,
                            "grid size %" PRId32 "x%" PRId32
                            " is out of range (1..%d a side, at most %zu "
                            "cells)",
                            cfg->width, cfg->height, GC_GRID_MAX_SIDE,
                            (size_t)GC_GRID_MAX_CELLS);
    }
    float cs = cfg->cell_size == 0.0f ? 1.0f : cfg->cell_size;
    if (!(isfinite(cs) && cs > 0.0f))
        return gc_error_set(err, GC_EINVAL, NULL, 0, 0,
                            "cell size %g is not a positive number",
                            (double)cs);
    if (cfg->agent_capacity > GC_WORLD_MAX_AGENTS)
        return gc_error_set(err, GC_ETOOBIG, NULL, 0, 0,
                            "agent capacity %" PRIu32 " exceeds the limit %u",
                            cfg->agent_capacity, GC_WORLD_MAX_AGENTS);
    uint64_t cells = (uint64_t)cfg->width * (uint64_t)cfg->height;
    uint32_t tcap = cfg->trace_capacity;
    if (tcap == 0)
        tcap = cells * 2 < GC_WORLD_TRACE_DEFAULT ? (uint32_t)(cells * 2)
                                                  : GC_WORLD_TRACE_DEFAULT;
    if (tcap > GC_WORLD_TRACE_MAX)
        return gc_error_set(err, GC_ETOOBIG, NULL, 0, 0,
                            "trace capacity %" PRIu32 " exceeds the limit %u",
                            tcap, GC_WORLD_TRACE_MAX);
    uint32_t ecap =
        cfg->edits_capacity ? cfg->edits_capacity : GC_EDITS_DEFAULT_CAPACITY;
    if (ecap < 2 || ecap > GC_EDITS_MAX_CAPACITY || (ecap & (ecap - 1)) != 0)
        return gc_error_set(err, GC_EINVAL, NULL, 0, 0,
                            "edit queue capacity %" PRIu32
                            " is not a power of two in 2..%u",
                            ecap, GC_EDITS_MAX_CAPACITY);
    uint64_t tmo = cfg->claim_timeout_ms ? cfg->claim_timeout_ms : 2000;
    if (tmo * 1000000 > CLAIM_TIMEOUT_MAX_NS)
        return gc_error_set(err, GC_EINVAL, NULL, 0, 0,
                            "claim timeout %" PRIu32
                            " ms is out of range (1 ms..1 h)",
                            cfg->claim_timeout_ms);
    l->width = cfg->width;
    l->height = cfg->height;
    l->cell_size = cs;
    l->capacity = cfg->agent_capacity;
    l->trace_capacity = tcap;
    compute_layout(l);
    *edits_cap = ecap;
    *claim_timeout_ns = tmo * 1000000;
    return GC_OK;
}

static void
init_world(gc_world *w)
{
    gc_world_header *h = hdr(w);
    const layout *l = &w->lay;
    h->version = GC_WORLD_VERSION;
    h->header_size = sizeof(gc_world_header);
    h->total_size = l->total;
    h->width = l->width;
    h->height = l->height;
    h->cell_size = l->cell_size;
    h->pid = (int32_t)w->pid;
    h->agent_capacity = l->capacity;
    h->agent_record_size = sizeof(gc_world_agent);
    h->trace_capacity = l->trace_capacity;
    h->created_ns = now_ns(CLOCK_REALTIME);
    h->cells = (gc_world_section){l->cells_off, l->cells_size};
    h->agents = (gc_world_section){l->agents_off, l->agents_size};
    h->stats = (gc_world_section){l->stats_off, l->stats_size};
    h->trace = (gc_world_section){l->trace_off, l->trace_size};
    atomic_store_explicit(&h->state, GC_WORLD_STARTING, memory_order_relaxed);

    gc_world_trace_hdr *t = trace_hdr(w);
    atomic_store_explicit(&t->agent, GC_WORLD_NO_AGENT, memory_order_relaxed);
    atomic_store_explicit(&t->request_agent, GC_WORLD_NO_AGENT,
                          memory_order_relaxed);
    /* Last: a reader that sees the magic sees everything above. */
    atomic_store_explicit(&h->magic, GC_WORLD_MAGIC, memory_order_release);
}

/* A fresh queue whose first position is `start` (0 for a new world; the
 * consumer's position when the queue is made again, so that positions and
 * edits_applied never go backwards). */
static void
init_edits(gc_world *w, uint32_t capacity, uint64_t start)
{
    w->edits_cap = capacity;
    w->head = start;
    w->stalled = false;
    gc_edits_header *e = (gc_edits_header *)(void *)w->edits_base;
    e->version = GC_EDITS_VERSION;
    e->header_size = sizeof(gc_edits_header);
    e->total_size = edits_total_size(capacity);
    e->capacity = capacity;
    e->entry_size = sizeof(gc_edit_entry);
    e->pid = (int32_t)w->pid;
    e->claim_timeout_ns = w->claim_timeout_ns;
    /* Vyukov ring: slot i starts free for the position p in
     * [start, start + capacity) with p = i modulo the capacity. */
    gc_edit_entry *ent =
        (gc_edit_entry *)(void *)(w->edits_base + sizeof(gc_edits_header));
    const uint64_t mask = capacity - 1;
    for (uint32_t i = 0; i < capacity; i++)
        atomic_store_explicit(&ent[i].seq, start + ((i - start) & mask),
                              memory_order_relaxed);
    atomic_store_explicit(&e->head, start, memory_order_relaxed);
    atomic_store_explicit(&e->tail, start, memory_order_relaxed);
    atomic_store_explicit(&e->magic, GC_EDITS_MAGIC, memory_order_release);
}

static int
map_object(int fd, size_t size, int prot, const char *name, uint8_t **out,
           gc_error *err)
{
    void *p = mmap(NULL, size, prot, MAP_SHARED, fd, 0);
    if (p == MAP_FAILED)
        return sys_error(errno, name, "mapping", err);
    *out = p;
    return GC_OK;
}

int
gc_world_create(gc_world **out, const gc_world_config *cfg,
                gc_world_takeover *took, gc_error *err)
{
    gc_world_takeover tk = {0};
    int rc;

    *out = NULL;
    if (took != NULL)
        *took = tk;
    if (cfg == NULL)
        return gc_error_set(err, GC_EINVAL, NULL, 0, 0, "no configuration");
    gc_world *w = world_alloc();
    if (w == NULL)
        return gc_error_set(err, GC_ENOMEM, NULL, 0, 0,
                            "out of memory creating a world handle");
    uint32_t ecap = 0;
    if ((rc = make_names(w, cfg->name, err)) != GC_OK ||
        (rc = check_config(cfg, &w->lay, &ecap, &w->claim_timeout_ns, err)) !=
            GC_OK) {
        free(w);
        return rc;
    }
    if (w->lay.total > SIZE_MAX || w->lay.total > (uint64_t)INT64_MAX) {
        uint64_t total = w->lay.total;
        free(w);
        return gc_error_set(err, GC_ETOOBIG, NULL, 0, 0,
                            "world of %" PRIu64 " bytes is too big to map",
                            total);
    }
    w->owner = true;
    w->pid = getpid();

    object_spec ws = {w->name,
                      "world",
                      cfg->world_mode ? cfg->world_mode : 0600,
                      cfg->set_group,
                      cfg->group,
                      w->lay.total,
                      GC_WORLD_MAGIC,
                      offsetof(gc_world_header, pid)};
    object_spec es = {w->edits_name,
                      "edit queue",
                      cfg->edits_mode ? cfg->edits_mode : 0600,
                      cfg->set_group,
                      cfg->group,
                      edits_total_size(ecap),
                      GC_EDITS_MAGIC,
                      offsetof(gc_edits_header, pid)};
    w->edits_spec = es;
    rc = own_object(&ws, &w->fd, &tk.world, &tk.world_pid, err);
    if (rc != GC_OK)
        goto fail;
    rc = own_object(&es, &w->edits_fd, &tk.edits, &tk.edits_pid, err);
    if (rc != GC_OK)
        goto fail;
    w->size = (size_t)w->lay.total;
    w->edits_size = (size_t)es.size;
    rc = map_object(w->fd, w->size, PROT_READ | PROT_WRITE, w->name, &w->base,
                    err);
    if (rc != GC_OK)
        goto fail;
    rc = map_object(w->edits_fd, w->edits_size, PROT_READ | PROT_WRITE,
                    w->edits_name, &w->edits_base, err);
    if (rc != GC_OK)
        goto fail;
    init_world(w);
    init_edits(w, ecap, 0);
    w->snap.capacity = w->lay.capacity;
    if (took != NULL)
        *took = tk;
    *out = w;
    return GC_OK;

fail:
    /* Unlink only what we created: own_object leaves nothing on error. */
    if (w->fd >= 0)
        shm_unlink(w->name);
    if (w->edits_fd >= 0)
        shm_unlink(w->edits_name);
    world_unmap(w);
    free(w);
    return rc;
}

/* ---- Attaching ----------------------------------------------------------- */

/* Open, size and map one object for a reader, then validate it. */
static int
attach_object(gc_world *w, bool world, bool writable, gc_error *err)
{
    const char *name = world ? w->name : w->edits_name;
    int *fdp = world ? &w->fd : &w->edits_fd;
    uint8_t **basep = world ? &w->base : &w->edits_base;
    size_t *sizep = world ? &w->size : &w->edits_size;
    int fd = shm_open(name, writable ? O_RDWR : O_RDONLY, 0);
    if (fd < 0)
        return open_error(errno, name, "opening", err);
    *fdp = fd;
    struct stat st;
    if (fstat(fd, &st) != 0)
        return sys_error(errno, name, "fstat of", err);
    if (st.st_size < 0 || (uint64_t)st.st_size > SIZE_MAX)
        return gc_error_set(err, GC_ECORRUPT, name, 0, 0,
                            "object size %lld cannot be mapped",
                            (long long)st.st_size);
    size_t size = (size_t)st.st_size;
    if (size < 256) {
        /* Too small to be anything: validate a copy so that the message is
         * the same as for any other short object (mmap of 0 bytes fails). */
        uint64_t buf[32] = {0};
        ssize_t n = size > 0 ? pread(fd, buf, size, 0) : 0;
        if (n < 0)
            return sys_error(errno, name, "reading", err);
        int rc = world ? check_world((uint8_t *)buf, (size_t)n, name, NULL, err)
                       : check_edits((uint8_t *)buf, (size_t)n, name, NULL,
                                     NULL, err);
        if (rc == GC_OK) /* cannot happen: a header is 256 bytes */
            rc = gc_error_set(err, GC_ECORRUPT, name, 0, 0, "object too small");
        return rc;
    }
    int rc = map_object(fd, size, writable ? PROT_READ | PROT_WRITE : PROT_READ,
                        name, basep, err);
    if (rc != GC_OK)
        return rc;
    *sizep = size;
    return world ? check_world(*basep, size, name, &w->lay, err)
                 : check_edits(*basep, size, name, &w->edits_cap,
                               &w->claim_timeout_ns, err);
}

int
gc_world_attach(gc_world **out, const char *name, unsigned flags, gc_error *err)
{
    int rc;
    *out = NULL;
    gc_world *w = world_alloc();
    if (w == NULL)
        return gc_error_set(err, GC_ENOMEM, NULL, 0, 0,
                            "out of memory creating a world handle");
    if ((rc = make_names(w, name, err)) != GC_OK)
        goto fail;
    rc = attach_object(w, true, false, err);
    if (rc != GC_OK)
        goto fail;
    w->pid = (pid_t)hdr(w)->pid;
    if (flags & GC_WORLD_ATTACH_EDITS) {
        rc = attach_object(w, false, true, err);
        if (rc != GC_OK)
            goto fail;
        int32_t epid = ((gc_edits_header *)(void *)w->edits_base)->pid;
        if (epid != (int32_t)w->pid) {
            rc = gc_error_set(err, GC_ECORRUPT, w->edits_name, 0, 0,
                              "edit queue belongs to pid %" PRId32
                              ", the world %s to pid %ld",
                              epid, w->name, (long)w->pid);
            goto fail;
        }
    }
    *out = w;
    return GC_OK;

fail:
    world_unmap(w);
    free(w);
    return rc;
}

void
gc_world_close(gc_world *w)
{
    if (w == NULL)
        return;
    world_unmap(w);
    free(w);
}

void
gc_world_destroy(gc_world *w)
{
    if (w == NULL)
        return;
    if (w->owner) {
        /* Still holding the locks: nobody can have replaced the objects. */
        shm_unlink(w->name);
        shm_unlink(w->edits_name);
    }
    gc_world_close(w);
}

/* ---- Accessors ----------------------------------------------------------- */

const char *
gc_world_name(const gc_world *w)
{
    return w->name;
}

const char *
gc_world_edits_name(const gc_world *w)
{
    return w->edits_name;
}

bool
gc_world_is_owner(const gc_world *w)
{
    return w->owner;
}

const void *
gc_world_base(const gc_world *w)
{
    return w->base;
}

size_t
gc_world_size(const gc_world *w)
{
    return w->size;
}

const gc_world_header *
gc_world_hdr(const gc_world *w)
{
    return hdr(w);
}

gc_edits_header *
gc_world_edits(const gc_world *w)
{
    return (gc_edits_header *)(void *)w->edits_base;
}

size_t
gc_world_edits_size(const gc_world *w)
{
    return w->edits_base != NULL ? w->edits_size : 0;
}

int32_t
gc_world_width(const gc_world *w)
{
    return w->lay.width;
}

int32_t
gc_world_height(const gc_world *w)
{
    return w->lay.height;
}

float
gc_world_cell_size(const gc_world *w)
{
    return w->lay.cell_size;
}

uint32_t
gc_world_agent_capacity(const gc_world *w)
{
    return w->lay.capacity;
}

uint32_t
gc_world_trace_capacity(const gc_world *w)
{
    return w->lay.trace_capacity;
}

pid_t
gc_world_pid(const gc_world *w)
{
    return w->pid;
}

unsigned
gc_world_state(const gc_world *w)
{
    return atomic_load_explicit(&hdr(w)->state, memory_order_acquire);
}

uint64_t
gc_world_tick(const gc_world *w)
{
    return atomic_load_explicit(&hdr(w)->tick, memory_order_acquire);
}

uint64_t
gc_world_generation(const gc_world *w)
{
    return atomic_load_explicit(&hdr(w)->generation, memory_order_acquire);
}

uint32_t
gc_world_agent_count(const gc_world *w)
{
    uint32_t n =
        atomic_load_explicit(&hdr(w)->agent_count, memory_order_relaxed);
    return n <= w->lay.capacity ? n : w->lay.capacity;
}

uint64_t
gc_world_edits_applied(const gc_world *w)
{
    return atomic_load_explicit(&hdr(w)->edits_applied, memory_order_acquire);
}

bool
gc_world_owner_alive(const gc_world *w)
{
    struct stat st;
    if (fstat(w->fd, &st) != 0 || st.st_nlink == 0)
        return false;
    return kill(w->pid, 0) == 0 || errno == EPERM;
}

/* ---- Writing ------------------------------------------------------------- */

int
gc_world_set_state(gc_world *w, unsigned state)
{
    if (!w->owner)
        return GC_EPERM;
    if (state < GC_WORLD_STARTING || state > GC_WORLD_STOPPING)
        return GC_EINVAL;
    atomic_store_explicit(&hdr(w)->state, state, memory_order_release);
    return GC_OK;
}

int
gc_world_set_tick(gc_world *w, uint64_t tick)
{
    if (!w->owner)
        return GC_EPERM;
    atomic_store_explicit(&hdr(w)->tick, tick, memory_order_release);
    return GC_OK;
}

int
gc_world_set_edit_counts(gc_world *w, uint64_t accepted, uint64_t rejected,
                         uint64_t pending)
{
    if (!w->owner)
        return GC_EPERM;
    gc_world_header *h = hdr(w);
    atomic_store_explicit(&h->edits_accepted, accepted, memory_order_relaxed);
    atomic_store_explicit(&h->edits_rejected, rejected, memory_order_relaxed);
    atomic_store_explicit(&h->edits_pending, pending, memory_order_relaxed);
    return GC_OK;
}

int
gc_world_set_edits_applied(gc_world *w, uint64_t position)
{
    if (!w->owner)
        return GC_EPERM;
    atomic_store_explicit(&hdr(w)->edits_applied, position,
                          memory_order_release);
    return GC_OK;
}

uint8_t *
gc_world_cells(gc_world *w)
{
    return w->owner ? w->base + w->lay.cells_off : NULL;
}

int
gc_world_grid(gc_world *w, gc_grid **out)
{
    *out = NULL;
    if (!w->owner)
        return GC_EPERM;
    int rc = gc_grid_wrap(out, w->lay.width, w->lay.height, gc_world_cells(w));
    if (rc == GC_OK)
        (*out)->cell_size = w->lay.cell_size;
    return rc;
}

/*
 * Seqlock writer half: make `seq` odd, then order the data stores after it
 * (the release fence pairs with the reader's acquire fence: a reader that
 * sees any data store of this write also sees the odd count).
 */
static void
seq_write_begin(_Atomic uint64_t *seq)
{
    uint64_t s = atomic_load_explicit(seq, memory_order_relaxed);
    atomic_store_explicit(seq, s | 1, memory_order_release);
    atomic_thread_fence(memory_order_release);
}

static void
seq_write_end(_Atomic uint64_t *seq)
{
    uint64_t s = atomic_load_explicit(seq, memory_order_relaxed);
    atomic_store_explicit(seq, (s | 1) + 1, memory_order_release);
}

int
gc_world_cells_begin(gc_world *w)
{
    if (!w->owner)
        return GC_EPERM;
    if (w->cells_open)
        return GC_EINVAL;
    w->cells_open = true;
    seq_write_begin(&hdr(w)->cells_seq);
    return GC_OK;
}

int
gc_world_cells_end(gc_world *w)
{
    if (!w->owner)
        return GC_EPERM;
    if (!w->cells_open)
        return GC_EINVAL;
    gc_world_header *h = hdr(w);
    uint64_t g = atomic_load_explicit(&h->generation, memory_order_relaxed);
    atomic_store_explicit(&h->generation, g + 1, memory_order_relaxed);
    seq_write_end(&h->cells_seq);
    w->cells_open = false;
    return GC_OK;
}

gc_world_snap *
gc_world_agents_begin(gc_world *w)
{
    if (!w->owner)
        return NULL;
    gc_world_agents_hdr *ah = agents_hdr(w);
    uint64_t s = atomic_load_explicit(&ah->seq, memory_order_relaxed);
    if (!w->snap.open) {
        /* Odd: "filling snapshot s/2 + 1".  Release (not relaxed) so that a
         * reader that loads this value still synchronizes with the publish
         * before it; the fence orders the record stores after it. */
        s |= 1;
        atomic_store_explicit(&ah->seq, s, memory_order_release);
        atomic_thread_fence(memory_order_release);
    }
    /* Snapshot k lives in buffer (k - 1) & 1; we fill k = s/2 + 1. */
    w->snap.slots = agent_slots(w, (unsigned)((s >> 1) & 1));
    w->snap.open = true;
    return &w->snap;
}

int
gc_world_agent_store(gc_world_snap *s, uint32_t i, const gc_world_agent *rec)
{
    if (!s->open)
        return GC_EINVAL;
    if (i >= s->capacity)
        return GC_ERANGE;
    uint64_t words[GC_WORLD_AGENT_WORDS];
    memcpy(words, rec, sizeof words);
    gc_world_agent_slot *slot = &s->slots[i];
    for (size_t k = 0; k < GC_WORLD_AGENT_WORDS; k++)
        atomic_store_explicit(&slot->word[k], words[k], memory_order_relaxed);
    return GC_OK;
}

int
gc_world_agents_publish(gc_world *w, uint32_t count)
{
    if (!w->owner)
        return GC_EPERM;
    if (!w->snap.open)
        return GC_EINVAL;
    if (count > w->lay.capacity)
        return GC_ERANGE;
    gc_world_agents_hdr *ah = agents_hdr(w);
    uint64_t s = atomic_load_explicit(&ah->seq, memory_order_relaxed);
    atomic_store_explicit(&ah->count[(s >> 1) & 1], count,
                          memory_order_relaxed);
    atomic_store_explicit(&hdr(w)->agent_count, count, memory_order_relaxed);
    atomic_store_explicit(&ah->seq, s + 1, memory_order_release);
    w->snap.open = false;
    return GC_OK;
}

int
gc_world_stats_publish(gc_world *w, const gc_world_stats *st)
{
    if (!w->owner)
        return GC_EPERM;
    gc_world_stats_area *a = stats_area(w);
    uint64_t words[GC_WORLD_STATS_WORDS];
    memcpy(words, st, sizeof words);
    seq_write_begin(&a->seq);
    for (size_t k = 0; k < GC_WORLD_STATS_WORDS; k++)
        atomic_store_explicit(&a->word[k], words[k], memory_order_relaxed);
    seq_write_end(&a->seq);
    return GC_OK;
}

int
gc_world_trace_publish(gc_world *w, uint32_t agent, uint32_t generation,
                       uint64_t tick, const gc_world_trace_event *ev, size_t n)
{
    if (!w->owner)
        return GC_EPERM;
    gc_world_trace_hdr *t = trace_hdr(w);
    _Atomic uint64_t *words = trace_words(w);
    size_t m = n < w->lay.trace_capacity ? n : w->lay.trace_capacity;
    seq_write_begin(&t->seq);
    atomic_store_explicit(&t->tick, tick, memory_order_relaxed);
    atomic_store_explicit(&t->agent, agent, memory_order_relaxed);
    atomic_store_explicit(&t->agent_generation, generation,
                          memory_order_relaxed);
    atomic_store_explicit(&t->count, (uint32_t)m, memory_order_relaxed);
    atomic_store_explicit(&t->truncated, m < n, memory_order_relaxed);
    for (size_t i = 0; i < m; i++) {
        uint64_t word;
        gc_world_trace_event e = ev[i];
        memset(e.pad, 0, sizeof e.pad);
        memcpy(&word, &e, sizeof word);
        atomic_store_explicit(&words[i], word, memory_order_relaxed);
    }
    seq_write_end(&t->seq);
    return GC_OK;
}

int
gc_world_set_trace_request(gc_world *w, uint32_t agent, uint32_t generation)
{
    if (!w->owner)
        return GC_EPERM;
    gc_world_trace_hdr *t = trace_hdr(w);
    atomic_store_explicit(&t->request_generation, generation,
                          memory_order_relaxed);
    atomic_store_explicit(&t->request_agent, agent, memory_order_relaxed);
    return GC_OK;
}

/* ---- Reading ------------------------------------------------------------- */

int
gc_world_read_cells(const gc_world *w, uint8_t *buf, uint64_t *generation)
{
    gc_world_header *h = hdr(w);
    const uint8_t *cells = w->base + w->lay.cells_off;
    for (int attempt = 0; attempt < GC_WORLD_READ_ATTEMPTS; attempt++) {
        uint64_t s1 = atomic_load_explicit(&h->cells_seq, memory_order_acquire);
        if ((s1 & 1) == 0) {
            uint64_t g =
                atomic_load_explicit(&h->generation, memory_order_relaxed);
            memcpy(buf, cells, (size_t)w->lay.cells_size);
            atomic_thread_fence(memory_order_acquire);
            uint64_t s2 =
                atomic_load_explicit(&h->cells_seq, memory_order_relaxed);
            if (s1 == s2) {
                if (generation != NULL)
                    *generation = g;
                return GC_OK;
            }
        }
        sched_yield();
    }
    return GC_EBUSY;
}

int
gc_world_read_agents(const gc_world *w, gc_world_agent *out, size_t cap,
                     size_t *count, uint64_t *seq)
{
    gc_world_agents_hdr *ah = agents_hdr(w);
    const uint32_t capacity = w->lay.capacity;
    for (int attempt = 0; attempt < GC_WORLD_READ_ATTEMPTS; attempt++) {
        uint64_t s1 = atomic_load_explicit(&ah->seq, memory_order_acquire);
        uint64_t n = s1 >> 1;
        size_t got = 0;
        bool bad = false;
        if (n > 0) {
            unsigned b = (unsigned)((n - 1) & 1);
            uint32_t c =
                atomic_load_explicit(&ah->count[b], memory_order_relaxed);
            if (c > capacity) {
                bad = true;
                c = 0;
            }
            got = c < cap ? c : cap;
            const gc_world_agent_slot *slots = agent_slots(w, b);
            for (size_t i = 0; i < got; i++) {
                uint64_t words[GC_WORLD_AGENT_WORDS];
                for (size_t k = 0; k < GC_WORLD_AGENT_WORDS; k++)
                    words[k] = atomic_load_explicit(&slots[i].word[k],
                                                    memory_order_relaxed);
                memcpy(&out[i], words, sizeof words);
            }
        }
        atomic_thread_fence(memory_order_acquire);
        uint64_t s2 = atomic_load_explicit(&ah->seq, memory_order_relaxed);
        /* Buffer (n-1)&1 is refilled only from snapshot n+2 on, announced
         * by seq = 2n+3.  Unsigned: a seq that went backwards retries. */
        if (s2 - (s1 & ~(uint64_t)1) < 3) {
            if (bad)
                return GC_ECORRUPT;
            *count = got;
            if (seq != NULL)
                *seq = n;
            return GC_OK;
        }
        sched_yield();
    }
    return GC_EBUSY;
}

int
gc_world_read_stats(const gc_world *w, gc_world_stats *out)
{
    gc_world_stats_area *a = stats_area(w);
    for (int attempt = 0; attempt < GC_WORLD_READ_ATTEMPTS; attempt++) {
        uint64_t s1 = atomic_load_explicit(&a->seq, memory_order_acquire);
        if ((s1 & 1) == 0) {
            uint64_t words[GC_WORLD_STATS_WORDS];
            for (size_t k = 0; k < GC_WORLD_STATS_WORDS; k++)
                words[k] =
                    atomic_load_explicit(&a->word[k], memory_order_relaxed);
            atomic_thread_fence(memory_order_acquire);
            if (atomic_load_explicit(&a->seq, memory_order_relaxed) == s1) {
                memcpy(out, words, sizeof words);
                return GC_OK;
            }
        }
        sched_yield();
    }
    return GC_EBUSY;
}

int
gc_world_read_trace(const gc_world *w, gc_world_trace_info *info,
                    gc_world_trace_event *out, size_t cap)
{
    gc_world_trace_hdr *t = trace_hdr(w);
    const _Atomic uint64_t *words = trace_words(w);
    for (int attempt = 0; attempt < GC_WORLD_READ_ATTEMPTS; attempt++) {
        uint64_t s1 = atomic_load_explicit(&t->seq, memory_order_acquire);
        if ((s1 & 1) == 0) {
            gc_world_trace_info in;
            in.seq = s1 >> 1;
            in.tick = atomic_load_explicit(&t->tick, memory_order_relaxed);
            in.agent = atomic_load_explicit(&t->agent, memory_order_relaxed);
            in.generation = atomic_load_explicit(&t->agent_generation,
                                                 memory_order_relaxed);
            uint32_t c = atomic_load_explicit(&t->count, memory_order_relaxed);
            in.truncated =
                atomic_load_explicit(&t->truncated, memory_order_relaxed) != 0;
            bool bad = c > w->lay.trace_capacity;
            size_t m = bad ? 0 : (c < cap ? c : cap);
            for (size_t i = 0; i < m; i++) {
                uint64_t word =
                    atomic_load_explicit(&words[i], memory_order_relaxed);
                memcpy(&out[i], &word, sizeof word);
            }
            atomic_thread_fence(memory_order_acquire);
            if (atomic_load_explicit(&t->seq, memory_order_relaxed) == s1) {
                if (bad)
                    return GC_ECORRUPT;
                in.count = m;
                in.truncated = in.truncated || m < c;
                *info = in;
                return GC_OK;
            }
        }
        sched_yield();
    }
    return GC_EBUSY;
}

void
gc_world_trace_request(const gc_world *w, uint32_t *agent, uint32_t *generation)
{
    gc_world_trace_hdr *t = trace_hdr(w);
    if (agent != NULL)
        *agent = atomic_load_explicit(&t->request_agent, memory_order_relaxed);
    if (generation != NULL)
        *generation =
            atomic_load_explicit(&t->request_generation, memory_order_relaxed);
}

/* ---- Sections ------------------------------------------------------------ */

const void *
gc_world_section_at(const gc_world *w, int which, size_t *size)
{
    uint64_t off, sz;
    switch (which) {
    case GC_WORLD_SEC_CELLS:
        off = w->lay.cells_off, sz = w->lay.cells_size;
        break;
    case GC_WORLD_SEC_AGENTS:
        off = w->lay.agents_off, sz = w->lay.agents_size;
        break;
    case GC_WORLD_SEC_STATS:
        off = w->lay.stats_off, sz = w->lay.stats_size;
        break;
    case GC_WORLD_SEC_TRACE:
        off = w->lay.trace_off, sz = w->lay.trace_size;
        break;
    default:
        if (size != NULL)
            *size = 0;
        return NULL;
    }
    if (size != NULL)
        *size = (size_t)sz;
    return w->base + off;
}

/* ---- The edit queue ------------------------------------------------------ */

static gc_edits_header *
edits_hdr(const gc_world *w)
{
    return (gc_edits_header *)(void *)w->edits_base;
}

static gc_edit_entry *
edits_entries(const gc_world *w)
{
    return (gc_edit_entry *)(void *)(w->edits_base + sizeof(gc_edits_header));
}

static uint64_t
mix64(uint64_t h)
{
    h ^= h >> 30;
    h *= UINT64_C(0xbf58476d1ce4e5b9);
    h ^= h >> 27;
    h *= UINT64_C(0x94d049bb133111eb);
    h ^= h >> 31;
    return h;
}

/* The entry's check: its position and every payload field.  Not a defence
 * against a malicious writer (who can compute it too), but against a
 * stalled producer's late stores mixing into someone else's entry. */
static uint64_t
edit_check(uint64_t pos, const gc_edit *e)
{
    const uint64_t words[5] = {
        (uint64_t)e->op << 32 | e->type,
        (uint64_t)(uint32_t)e->x0 << 32 | (uint32_t)e->y0,
        (uint64_t)(uint32_t)e->x1 << 32 | (uint32_t)e->y1,
        (uint64_t)e->batch << 32 | e->sender_pid,
        e->client_token,
    };
    uint64_t h = mix64(pos ^ GC_EDITS_MAGIC);
    for (int i = 0; i < 5; i++)
        h = mix64(h ^ words[i]);
    return h;
}

int
gc_edits_push(gc_world *w, gc_edit *e, uint64_t timeout_ns)
{
    if (w->edits_base == NULL)
        return GC_EINVAL;
    gc_edits_header *h = edits_hdr(w);
    gc_edit_entry *ent = edits_entries(w);
    const uint64_t cap = w->edits_cap;
    const uint64_t start = now_ns(CLOCK_MONOTONIC);
    const uint64_t deadline =
        timeout_ns > UINT64_MAX - start ? UINT64_MAX : start + timeout_ns;

    uint64_t pos = atomic_load_explicit(&h->tail, memory_order_relaxed);
    gc_edit_entry *slot;
    for (;;) {
        slot = &ent[pos & (cap - 1)];
        /* Acquire: pairs with the daemon freeing the slot, so our payload
         * stores come after its reads of the last lap's entry. */
        uint64_t seq = atomic_load_explicit(&slot->seq, memory_order_acquire);
        int64_t dif = (int64_t)(seq - pos);
        if (dif == 0) {
            if (atomic_compare_exchange_weak_explicit(&h->tail, &pos, pos + 1,
                                                      memory_order_relaxed,
                                                      memory_order_relaxed))
                break;
            continue; /* pos now holds the current tail */
        }
        if (dif < 0) {
            /* Full: the slot still holds the entry from a lap ago. */
            if (now_ns(CLOCK_MONOTONIC) >= deadline)
                return GC_EFULL;
            struct timespec nap = {0, 100 * 1000};
            nanosleep(&nap, NULL);
            pos = atomic_load_explicit(&h->tail, memory_order_relaxed);
            continue;
        }
        /* Someone claimed pos before us, so tail has moved on (the release
         * publish we just saw was made after their claim).  If it has not,
         * the queue has been scribbled on. */
        uint64_t t = atomic_load_explicit(&h->tail, memory_order_relaxed);
        if (t == pos)
            return GC_ECORRUPT;
        pos = t;
    }

    /* Claimed position pos.  Fill the slot, then publish. */
    uint64_t now = now_ns(CLOCK_MONOTONIC);
    atomic_store_explicit(&slot->claim_ns, now, memory_order_relaxed);
    e->sender_pid = (uint32_t)getpid();
    e->claim_ns = now;
    e->position = pos;
    slot->op = e->op;
    slot->type = e->type;
    slot->x0 = e->x0;
    slot->y0 = e->y0;
    slot->x1 = e->x1;
    slot->y1 = e->y1;
    slot->batch = e->batch;
    slot->sender_pid = e->sender_pid;
    slot->client_token = e->client_token;
    slot->check = edit_check(pos, e);
    /* A CAS, not a store: if the daemon gave up on this slot, it has moved
     * seq on, and the entry must not be published into a later lap. */
    uint64_t expect = pos;
    if (!atomic_compare_exchange_strong_explicit(&slot->seq, &expect, pos + 1,
                                                 memory_order_release,
                                                 memory_order_relaxed))
        return GC_ETIMEOUT;
    return GC_OK;
}

/* Move the head past position pos, freeing its slot for the next lap. */
static void
edits_release(gc_world *w, gc_edit_entry *slot, uint64_t pos)
{
    atomic_store_explicit(&slot->seq, pos + w->edits_cap, memory_order_release);
    w->head = pos + 1;
    atomic_store_explicit(&edits_hdr(w)->head, pos + 1, memory_order_release);
    w->stalled = false;
}

int
gc_edits_pop(gc_world *w, gc_edit *out)
{
    if (!w->owner)
        return GC_EPERM;
    if (w->edits_base == NULL)
        return GC_EINVAL;
    gc_edits_header *h = edits_hdr(w);
    const uint64_t cap = w->edits_cap;
    /* A header that is not ours any more (scribbled on, or truncated and
     * read back as zeros): take nothing; the owner checks the object with
     * gc_world_edits_intact and makes it again. */
    if (atomic_load_explicit(&h->magic, memory_order_relaxed) != GC_EDITS_MAGIC)
        return GC_EBADMAGIC;
    /* Our own position, never the header's copy, which producers can
     * write: a scribbled head cannot make us take an entry twice. */
    const uint64_t pos = w->head;
    gc_edit_entry *slot = &edits_entries(w)[pos & (cap - 1)];

    for (;;) {
        uint64_t seq = atomic_load_explicit(&slot->seq, memory_order_acquire);
        if (seq == pos + 1) {
            memset(out, 0, sizeof *out);
            out->op = slot->op;
            out->type = slot->type;
            out->x0 = slot->x0;
            out->y0 = slot->y0;
            out->x1 = slot->x1;
            out->y1 = slot->y1;
            out->batch = slot->batch;
            out->sender_pid = slot->sender_pid;
            out->client_token = slot->client_token;
            out->claim_ns =
                atomic_load_explicit(&slot->claim_ns, memory_order_relaxed);
            out->position = pos;
            uint64_t check = slot->check;
            edits_release(w, slot, pos);
            return check == edit_check(pos, out) ? 1 : GC_ECORRUPT;
        }
        if (seq != pos) {
            /* No legal state: a writer scribbled on the slot.  Reclaim it
             * rather than let the queue stop here. */
            memset(out, 0, sizeof *out);
            out->position = pos;
            edits_release(w, slot, pos);
            return GC_ECORRUPT;
        }
        /* Free, or claimed and not yet published. */
        uint64_t tail = atomic_load_explicit(&h->tail, memory_order_relaxed);
        if ((int64_t)(tail - pos) <= 0) {
            /* Empty.  A tail behind the head was scribbled on (producers
             * only move it forwards): put it back, or every producer
             * would find its slot "full" until it timed out. */
            if (tail != pos)
                atomic_compare_exchange_strong_explicit(&h->tail, &tail, pos,
                                                        memory_order_relaxed,
                                                        memory_order_relaxed);
            return 0;
        }
        /* Claimed: time it from when we first saw it so, since the claimant
         * may have died before it wrote claim_ns. */
        uint64_t now = now_ns(CLOCK_MONOTONIC);
        if (!w->stalled || w->stall_pos != pos) {
            w->stalled = true;
            w->stall_pos = pos;
            w->stall_since_ns = now;
            return 0;
        }
        if (now - w->stall_since_ns < w->claim_timeout_ns)
            return 0;
        uint64_t expect = pos;
        if (atomic_compare_exchange_strong_explicit(
                &slot->seq, &expect, pos + cap, memory_order_acq_rel,
                memory_order_acquire)) {
            memset(out, 0, sizeof *out);
            out->position = pos;
            w->head = pos + 1;
            atomic_store_explicit(&h->head, pos + 1, memory_order_release);
            w->stalled = false;
            return GC_ETIMEOUT;
        }
        /* Published at the last moment: loop and take it. */
    }
}

uint64_t
gc_edits_pending(const gc_world *w)
{
    if (w->edits_base == NULL)
        return 0;
    gc_edits_header *h = edits_hdr(w);
    uint64_t head = gc_edits_head(w);
    uint64_t tail = atomic_load_explicit(&h->tail, memory_order_relaxed);
    /* Producers claim a position only once its slot is free, so at most
     * a ring's worth is ever pending; more means a scribbled tail. */
    uint64_t n = (int64_t)(tail - head) > 0 ? tail - head : 0;
    return n < w->edits_cap ? n : w->edits_cap;
}

uint64_t
gc_edits_head(const gc_world *w)
{
    if (w->edits_base == NULL)
        return 0;
    if (w->owner)
        return w->head;
    return atomic_load_explicit(&edits_hdr(w)->head, memory_order_acquire);
}

uint32_t
gc_edits_capacity(const gc_world *w)
{
    return w->edits_base != NULL ? w->edits_cap : 0;
}

uint64_t
gc_edits_claim_timeout_ns(const gc_world *w)
{
    return w->edits_base != NULL ? w->claim_timeout_ns : 0;
}

int
gc_world_edits_intact(const gc_world *w, gc_error *err)
{
    if (!w->owner)
        return GC_EPERM;
    if (w->edits_base == NULL)
        return gc_error_set(err, GC_EINVAL, w->edits_name, 0, 0,
                            "the edit queue is not open");
    struct stat st;
    if (fstat(w->edits_fd, &st) != 0)
        return sys_error(errno, w->edits_name, "fstat of", err);
    if (st.st_size < 0 || (uint64_t)st.st_size != (uint64_t)w->edits_size)
        return gc_error_set(err, GC_ECORRUPT, w->edits_name, 0, 0,
                            "resized to %lld bytes by another process "
                            "(it was %zu)",
                            (long long)st.st_size, w->edits_size);
    /* Every fixed field as init_edits wrote it: tools refuse a queue
     * whose header does not validate. */
    const gc_edits_header *h = edits_hdr(w);
    if (atomic_load_explicit(&h->magic, memory_order_relaxed) !=
            GC_EDITS_MAGIC ||
        h->version != GC_EDITS_VERSION ||
        h->header_size != sizeof(gc_edits_header) ||
        h->total_size != (uint64_t)w->edits_size ||
        h->capacity != w->edits_cap || h->entry_size != sizeof(gc_edit_entry) ||
        h->pid != (int32_t)w->pid || h->flags != 0 ||
        h->claim_timeout_ns != w->claim_timeout_ns)
        return gc_error_set(err, GC_ECORRUPT, w->edits_name, 0, 0,
                            "header overwritten by another process");
    return GC_OK;
}

int
gc_world_reset_edits(gc_world *w, gc_error *err)
{
    if (!w->owner)
        return gc_error_set(err, GC_EPERM, w->edits_name, 0, 0,
                            "only the daemon can make the edit queue again");
    const uint64_t start = w->head;
    const uint32_t cap = w->edits_cap;
    if (w->edits_base != NULL) {
        /* We still hold its lock, so the name is still this object. */
        shm_unlink(w->edits_name);
        munmap(w->edits_base, w->edits_size);
        w->edits_base = NULL;
    }
    if (w->edits_fd >= 0)
        close(w->edits_fd);
    w->edits_fd = -1;
    bool took = false;
    pid_t stale = 0;
    int rc = own_object(&w->edits_spec, &w->edits_fd, &took, &stale, err);
    if (rc != GC_OK)
        return rc;
    uint8_t *base = NULL;
    rc = map_object(w->edits_fd, (size_t)w->edits_spec.size,
                    PROT_READ | PROT_WRITE, w->edits_name, &base, err);
    if (rc != GC_OK) {
        shm_unlink(w->edits_name);
        close(w->edits_fd);
        w->edits_fd = -1;
        return rc;
    }
    w->edits_base = base;
    w->edits_size = (size_t)w->edits_spec.size;
    init_edits(w, cap, start);
    return GC_OK;
}

uint64_t
gc_edits_tail(const gc_world *w)
{
    if (w->edits_base == NULL)
        return 0;
    return atomic_load_explicit(&edits_hdr(w)->tail, memory_order_relaxed);
}
