/*
 * world-layout.c: the layout contract of both shared-memory objects: section
 * sizes and offsets, the pins that hold the layout still, and validation.
 *
 * gridcrowd/world-layout.h declares the layout; this file computes a world's
 * geometry (sections in a fixed order after the header, each on a
 * GC_WORLD_ALIGN boundary) and checks an object before anyone trusts it:
 * magic, version, header and total size against the real size, geometry,
 * every section inside the object, aligned, clear of the header and of each
 * other.  Validation never reads outside [base, base + size): each field is
 * read only after checking that the size covers it, so the fuzz target
 * (tests/fuzz/fuzz_world.c) can throw any bytes at it.  The messages say
 * what is wrong in words a user can act on ("is a daemon still starting?").
 */
#include "config.h"

#include "world_int.h"

#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <string.h>

/* ---- Layout pins --------------------------------------------------------- */

_Static_assert(GC_WORLD_NAME_MAX == NAME_MAX - (sizeof GC_QUEUE_SUFFIX - 1),
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
_Static_assert(offsetof(gc_world_header, path_capacity) == 192,
               "version 2 fields on the last line");
_Static_assert(offsetof(gc_world_header, diag) == 196, "diag");
_Static_assert(offsetof(gc_world_header, path) == 200, "path section");
_Static_assert(offsetof(gc_world_header, cost) == 216, "costs");
_Static_assert(offsetof(gc_world_header, nav_flags) == 232, "nav flags");
_Static_assert(offsetof(gc_world_header, answer_capacity) == 236,
               "version 3: answers");
_Static_assert(offsetof(gc_world_header, answers) == 240, "answers section");
_Static_assert(sizeof(gc_world_answers_hdr) == 64, "answers head");
_Static_assert(sizeof(gc_world_answer_slot) == 64, "answer slot");

_Static_assert(sizeof(gc_world_agent) == 128, "agent record size");
_Static_assert(offsetof(gc_world_agent, radius) == 104 &&
                   offsetof(gc_world_agent, vx) == 108 &&
                   offsetof(gc_world_agent, vy) == 112 &&
                   offsetof(gc_world_agent, group) == 116,
               "agent record: body fields and group where reserved[0..3] were");
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
_Static_assert(sizeof(gc_world_path_hdr) == 64, "path head");
_Static_assert(sizeof(gc_vec2) == sizeof(uint64_t),
               "a waypoint is stored as one 64-bit word");

_Static_assert(sizeof(gc_queue_header) == 256, "edits header size");
_Static_assert(offsetof(gc_queue_header, pid) == 32, "edits pid");
_Static_assert(offsetof(gc_queue_header, head) == 64, "head on its line");
_Static_assert(offsetof(gc_queue_header, tail) == 128, "tail on its line");
_Static_assert(sizeof(gc_queue_entry) == 128, "edit entry size");
_Static_assert(offsetof(gc_queue_entry, op) == 16, "edit payload");
_Static_assert(offsetof(gc_queue_entry, check) == 56, "edit check");
_Static_assert(offsetof(gc_queue_entry, agent) == 64, "agent commands");

/* ---- Sizes and offsets --------------------------------------------------- */

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

static uint64_t
path_section_size(uint32_t capacity)
{
    return sizeof(gc_world_path_hdr) + (uint64_t)capacity * sizeof(uint64_t);
}

static uint64_t
answers_section_size(uint32_t capacity)
{
    return sizeof(gc_world_answers_hdr) +
           (uint64_t)capacity * sizeof(gc_world_answer_slot);
}

/* Sections in this order after the header, each 64-byte aligned. */
void
gc_layout_compute(gc_layout *l)
{
    l->cells_off = sizeof(gc_world_header);
    l->cells_size = (uint64_t)l->width * (uint64_t)l->height;
    l->agents_off = align_up(l->cells_off + l->cells_size);
    l->agents_size = agents_section_size(l->capacity);
    l->stats_off = align_up(l->agents_off + l->agents_size);
    l->stats_size = sizeof(gc_world_stats_area);
    l->trace_off = align_up(l->stats_off + l->stats_size);
    l->trace_size = trace_section_size(l->trace_capacity);
    l->path_off = align_up(l->trace_off + l->trace_size);
    l->path_size = path_section_size(l->path_capacity);
    l->answers_off = align_up(l->path_off + l->path_size);
    l->answers_size = answers_section_size(l->answer_capacity);
    l->total = align_up(l->answers_off + l->answers_size);
}

uint64_t
gc_layout_queue_size(uint32_t capacity)
{
    return sizeof(gc_queue_header) +
           (uint64_t)capacity * sizeof(gc_queue_entry);
}

/* ---- Validation ---------------------------------------------------------- */

int
gc_layout_check_grid_size(int64_t width, int64_t height, const char *name,
                          int code, gc_error *err)
{
    int rc = gc_grid_check_size(width, height);
    if (rc == GC_OK)
        return GC_OK;
    return gc_error_set(err, code != 0 ? code : rc, name, 0, 0,
                        "grid size %" PRId64 "x%" PRId64
                        " is out of range (1..%d a side, at most %zu cells)",
                        width, height, GC_GRID_MAX_SIDE,
                        (size_t)GC_GRID_MAX_CELLS);
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
_Static_assert(offsetof(gc_queue_header, magic) == 0, "edits magic first");
_Static_assert(offsetof(gc_queue_header, version) ==
                       offsetof(gc_world_header, version) &&
                   offsetof(gc_queue_header, header_size) ==
                       offsetof(gc_world_header, header_size) &&
                   offsetof(gc_queue_header, total_size) ==
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
    GC_QUEUE_MAGIC,   "edit queue",
    GC_WORLD_VERSION, sizeof(gc_world_header)};
static const object_kind queue_kind = {
    "edit queue",           "an edit queue",
    "an edit queue header", "",
    GC_QUEUE_MAGIC,         "GCEDITS1",
    GC_WORLD_MAGIC,         "world",
    GC_QUEUE_VERSION,       sizeof(gc_queue_header)};

/*
 * Copy the daemon's cost table and diagonal rule out of a validated header,
 * or the defaults when it published none.  They are untrusted like every
 * byte of the object, but no value can make a search index out of bounds,
 * so they are made sane rather than refused: an obstacle stays impassable,
 * a cost that is not a passable number becomes a wall, an unknown rule the
 * default one.
 */
static void
layout_costs(const gc_world_header *h, gc_layout *lay)
{
    bool pub = (h->nav_flags & GC_WORLD_NAV_COSTS) != 0;
    lay->costs_published = pub;
    for (int t = 0; t < GC_CELL_NTYPES; t++) {
        float c = pub ? h->cost[t] : gc_cell_default_cost(t);
        lay->cost[t] =
            t != GC_CELL_OBSTACLE && gc_cost_passable(c) ? c : INFINITY;
    }
    lay->diag = pub && h->diag <= GC_DIAG_ALWAYS ? (gc_diag_rule)h->diag
                                                 : GC_DIAG_NO_CORNER_CUT;
}

/*
 * Validate a world of `size` bytes at `p`; `name` (may be NULL) prefixes the
 * messages.  On success fills *lay.  Reads nothing outside [p, p + size):
 * each field is read only after checking that size covers it.
 */
int
gc_layout_check_world(const uint8_t *p, size_t size, const char *name,
                      gc_layout *lay, gc_error *err)
{
    const gc_world_header *h = (const gc_world_header *)(const void *)p;
    const size_t hsize = sizeof(gc_world_header);
    int rc = check_prefix(p, size, name, &world_kind, err);
    if (rc != GC_OK)
        return rc;
    rc = gc_layout_check_grid_size(h->width, h->height, name, GC_ECORRUPT, err);
    if (rc != GC_OK)
        return rc;
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
    if (h->path_capacity < 1 || h->path_capacity > GC_WORLD_PATH_MAX)
        return gc_error_set(err, GC_ECORRUPT, name, 0, 0,
                            "path capacity %" PRIu32 " is out of range (1..%u)",
                            h->path_capacity, GC_WORLD_PATH_MAX);

    if (h->answer_capacity < 1 || h->answer_capacity > GC_WORLD_ANSWERS_MAX)
        return gc_error_set(err, GC_ECORRUPT, name, 0, 0,
                            "answer capacity %" PRIu32
                            " is out of range (1..%u)",
                            h->answer_capacity, GC_WORLD_ANSWERS_MAX);

    const uint64_t total = h->total_size;
    enum { NSEC = 6 };
    const section_check sec[NSEC] = {
        {"cells", h->cells, (uint64_t)h->width * (uint64_t)h->height},
        {"agents", h->agents, agents_section_size(h->agent_capacity)},
        {"stats", h->stats, sizeof(gc_world_stats_area)},
        {"trace", h->trace, trace_section_size(h->trace_capacity)},
        {"path", h->path, path_section_size(h->path_capacity)},
        {"answers", h->answers, answers_section_size(h->answer_capacity)},
    };
    for (int i = 0; i < NSEC; i++) {
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
    for (int i = 0; i < NSEC; i++)
        for (int j = i + 1; j < NSEC; j++) {
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
        lay->path_capacity = h->path_capacity;
        lay->cells_off = h->cells.offset;
        lay->cells_size = h->cells.size;
        lay->agents_off = h->agents.offset;
        lay->agents_size = h->agents.size;
        lay->stats_off = h->stats.offset;
        lay->stats_size = h->stats.size;
        lay->trace_off = h->trace.offset;
        lay->trace_size = h->trace.size;
        lay->path_off = h->path.offset;
        lay->path_size = h->path.size;
        lay->answer_capacity = h->answer_capacity;
        lay->answers_off = h->answers.offset;
        lay->answers_size = h->answers.size;
        lay->total = total;
        layout_costs(h, lay);
    }
    return GC_OK;
}

int
gc_world_validate(const void *base, size_t size, gc_error *err)
{
    return gc_layout_check_world(base, size, NULL, NULL, err);
}

int
gc_layout_check_queue(const uint8_t *p, size_t size, const char *name,
                      uint32_t *capp, uint64_t *timeoutp, gc_error *err)
{
    const gc_queue_header *h = (const gc_queue_header *)(const void *)p;
    int rc = check_prefix(p, size, name, &queue_kind, err);
    if (rc != GC_OK)
        return rc;
    if (h->entry_size != sizeof(gc_queue_entry))
        return gc_error_set(err, GC_ECORRUPT, name, 0, 0,
                            "edit entry is %" PRIu32 " bytes, expected %zu",
                            h->entry_size, sizeof(gc_queue_entry));
    uint32_t cap = h->capacity;
    if (cap < 2 || cap > GC_QUEUE_MAX_CAPACITY || (cap & (cap - 1)) != 0)
        return gc_error_set(err, GC_ECORRUPT, name, 0, 0,
                            "queue capacity %" PRIu32
                            " is not a power of two in 2..%u",
                            cap, GC_QUEUE_MAX_CAPACITY);
    if (gc_layout_queue_size(cap) != h->total_size)
        return gc_error_set(err, GC_ECORRUPT, name, 0, 0,
                            "%" PRIu32 " entries need %" PRIu64
                            " bytes, header says %" PRIu64,
                            cap, gc_layout_queue_size(cap), h->total_size);
    if (h->pid <= 0)
        return gc_error_set(err, GC_ECORRUPT, name, 0, 0,
                            "owner pid %" PRId32 " is not a valid pid", h->pid);
    if (h->claim_timeout_ns < GC_CLAIM_TIMEOUT_MIN_NS ||
        h->claim_timeout_ns > GC_CLAIM_TIMEOUT_MAX_NS)
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
gc_queue_validate(const void *base, size_t size, gc_error *err)
{
    return gc_layout_check_queue(base, size, NULL, NULL, NULL, err);
}
