/*
 * world.c: the world handle: create, attach, close, destroy, accessors.
 *
 * The daemon creates /NAME (the world) and /NAME.edits (the edit queue); the
 * viewer and the tools attach.  The layout is in gridcrowd/world-layout.h,
 * checked by world-layout.c; owning a name is shm.c's; publishing and reading
 * under the seqlocks is world-snapshot.c's; the ring is queue.c's.  This file
 * keeps these rules:
 *
 * - Creation: own both objects (shm.c), map them read-write, fill the
 *   headers, and publish each magic last with a release store.  A reader
 *   that sees the magic sees a complete header.  On any error nothing we
 *   created is left in /dev/shm.
 * - Attaching maps the world PROT_READ from an O_RDONLY descriptor, so the
 *   mapping can never be made writable, and validates every field against
 *   the fstat size before reading anything else.  The handle keeps its own
 *   copy of the validated geometry: readers never re-read sizes or offsets
 *   from shared memory, so a corrupted header after attach cannot make them
 *   read out of bounds.  (The daemon never shrinks the object; a process
 *   that could would need write access, which readers do not grant.)
 * - Every attached handle holds a shared lock on byte 0 of the world's
 *   object (an open file description lock, which fcntl(2) keeps apart from
 *   shm.c's flocks), so the owner can ask whether anyone reads
 *   (gc_world_watched).  The kernel drops it with the descriptor: a reader
 *   that dies leaves no lock behind.
 * - Only the owner's handle writes the world.  Its setters say GC_EPERM on a
 *   reader's handle; debug builds also assert the rule where a caller has
 *   no way to get it wrong but by a bug of ours.
 */
#include "config.h"

#include "world_int.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

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
    memcpy(w->queue.name, w->name, len + 1);
    memcpy(w->queue.name + len + 1, GC_QUEUE_SUFFIX, sizeof GC_QUEUE_SUFFIX);
    return GC_OK;
}

static void
world_unmap(gc_world *w)
{
    if (w->base != NULL)
        munmap(w->base, w->size);
    if (w->fd >= 0)
        close(w->fd);
    w->base = NULL;
    w->fd = -1;
    gc_queue_unmap(&w->queue);
}

static gc_world *
world_alloc(void)
{
    gc_world *w = calloc(1, sizeof *w);
    if (w != NULL)
        w->fd = w->queue.fd = -1;
    return w;
}

static int
check_config(const gc_world_config *cfg, gc_layout *l, uint32_t *edits_cap,
             uint64_t *claim_timeout_ns, gc_error *err)
{
    int rc = gc_layout_check_grid_size(cfg->width, cfg->height, NULL, 0, err);
    if (rc != GC_OK)
        return rc;
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
    uint32_t pcap = cfg->path_capacity;
    if (pcap == 0)
        pcap = cells < GC_WORLD_PATH_DEFAULT ? (uint32_t)cells
                                             : GC_WORLD_PATH_DEFAULT;
    if (pcap > GC_WORLD_PATH_MAX)
        return gc_error_set(err, GC_ETOOBIG, NULL, 0, 0,
                            "path capacity %" PRIu32 " exceeds the limit %u",
                            pcap, GC_WORLD_PATH_MAX);
    uint32_t acap = cfg->answer_capacity ? cfg->answer_capacity
                                         : GC_WORLD_ANSWERS_DEFAULT;
    if (acap > GC_WORLD_ANSWERS_MAX)
        return gc_error_set(err, GC_ETOOBIG, NULL, 0, 0,
                            "answer capacity %" PRIu32
                            " exceeds the limit %u",
                            acap, GC_WORLD_ANSWERS_MAX);
    uint32_t ecap =
        cfg->edits_capacity ? cfg->edits_capacity : GC_QUEUE_DEFAULT_CAPACITY;
    if (ecap < 2 || ecap > GC_QUEUE_MAX_CAPACITY || (ecap & (ecap - 1)) != 0)
        return gc_error_set(err, GC_EINVAL, NULL, 0, 0,
                            "edit queue capacity %" PRIu32
                            " is not a power of two in 2..%u",
                            ecap, GC_QUEUE_MAX_CAPACITY);
    uint64_t tmo = cfg->claim_timeout_ms ? cfg->claim_timeout_ms : 2000;
    if (tmo * 1000000 > GC_CLAIM_TIMEOUT_MAX_NS)
        return gc_error_set(err, GC_EINVAL, NULL, 0, 0,
                            "claim timeout %" PRIu32
                            " ms is out of range (1 ms..1 h)",
                            cfg->claim_timeout_ms);
    l->width = cfg->width;
    l->height = cfg->height;
    l->cell_size = cs;
    l->capacity = cfg->agent_capacity;
    l->trace_capacity = tcap;
    l->path_capacity = pcap;
    l->answer_capacity = acap;
    /* Made sane by the rule readers apply when they attach (an obstacle,
     * or a cost that is not a passable number, is a wall; an unknown rule
     * the default), so that the owner's handle and the header agree with
     * what every reader sees. */
    l->costs_published = cfg->publish_costs;
    for (int t = 0; t < GC_CELL_NTYPES; t++) {
        float c = cfg->publish_costs ? cfg->cost[t] : gc_cell_default_cost(t);
        bool wall = t == GC_CELL_OBSTACLE || !gc_cost_passable(c);
        l->cost[t] = wall ? INFINITY : c;
    }
    l->diag = cfg->publish_costs && (unsigned)cfg->diag <= GC_DIAG_ALWAYS
                  ? cfg->diag
                  : GC_DIAG_NO_CORNER_CUT;
    gc_layout_compute(l);
    *edits_cap = ecap;
    *claim_timeout_ns = tmo * 1000000;
    return GC_OK;
}

static void
init_world(gc_world *w)
{
    GC_ASSERT_OWNER(w); /* readers map the world read-only */
    gc_world_header *h = world_hdr(w);
    const gc_layout *l = &w->lay;
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
    /* The date the world was made (for people, never for intervals: the
     * one clock that is not gc_clock_ns's). */
    struct timespec now;
    clock_gettime(CLOCK_REALTIME, &now);
    h->created_ns = (uint64_t)now.tv_sec * 1000000000u + (uint64_t)now.tv_nsec;
    h->cells = (gc_world_section){l->cells_off, l->cells_size};
    h->agents = (gc_world_section){l->agents_off, l->agents_size};
    h->stats = (gc_world_section){l->stats_off, l->stats_size};
    h->trace = (gc_world_section){l->trace_off, l->trace_size};
    h->path_capacity = l->path_capacity;
    h->path = (gc_world_section){l->path_off, l->path_size};
    h->answer_capacity = l->answer_capacity;
    h->answers = (gc_world_section){l->answers_off, l->answers_size};
    if (l->costs_published) {
        for (int t = 0; t < GC_CELL_NTYPES; t++)
            h->cost[t] = l->cost[t];
        h->diag = (uint32_t)l->diag;
        h->nav_flags = GC_WORLD_NAV_COSTS;
    }
    atomic_store_explicit(&h->state, GC_WORLD_STARTING, memory_order_relaxed);

    gc_world_trace_hdr *t = world_trace_hdr(w);
    atomic_store_explicit(&t->agent, GC_WORLD_NO_AGENT, memory_order_relaxed);
    atomic_store_explicit(&t->request_agent, GC_WORLD_NO_AGENT,
                          memory_order_relaxed);
    atomic_store_explicit(&world_path_hdr(w)->agent, GC_WORLD_NO_AGENT,
                          memory_order_relaxed);
    /* Last: a reader that sees the magic sees everything above. */
    atomic_store_explicit(&h->magic, GC_WORLD_MAGIC, memory_order_release);
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
        (rc = check_config(cfg, &w->lay, &ecap, &w->queue.claim_timeout_ns,
                           err)) != GC_OK) {
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
    w->owner = w->queue.owner = w->queue.opened = true;
    w->pid = w->queue.pid = getpid();

    gc_shm_spec ws = {w->name,
                      "world",
                      cfg->world_mode ? cfg->world_mode : 0600,
                      cfg->set_group,
                      cfg->group,
                      w->lay.total,
                      GC_WORLD_MAGIC,
                      offsetof(gc_world_header, pid)};
    gc_shm_spec es = {w->queue.name,
                      "edit queue",
                      cfg->edits_mode ? cfg->edits_mode : 0600,
                      cfg->set_group,
                      cfg->group,
                      gc_layout_queue_size(ecap),
                      GC_QUEUE_MAGIC,
                      offsetof(gc_queue_header, pid)};
    w->queue.spec = es;
    rc = gc_shm_own(&ws, &w->fd, &tk.world, &tk.world_pid, err);
    if (rc != GC_OK)
        goto fail;
    rc = gc_shm_own(&es, &w->queue.fd, &tk.edits, &tk.edits_pid, err);
    if (rc != GC_OK)
        goto fail;
    w->size = (size_t)w->lay.total;
    w->queue.size = (size_t)es.size;
    rc = gc_shm_map(w->fd, w->size, PROT_READ | PROT_WRITE, w->name, &w->base,
                    err);
    if (rc != GC_OK)
        goto fail;
    rc = gc_shm_map(w->queue.fd, w->queue.size, PROT_READ | PROT_WRITE,
                    w->queue.name, &w->queue.base, err);
    if (rc != GC_OK)
        goto fail;
    /* The queue first: a reader that sees the world's magic (stored last)
     * finds the queue made too, never a daemon half way through starting. */
    gc_queue_init(&w->queue, ecap, 0);
    init_world(w);
    w->snap.capacity = w->lay.capacity;
    if (took != NULL)
        *took = tk;
    *out = w;
    return GC_OK;

fail:
    /* Unlink only what we created: gc_shm_own leaves nothing on error. */
    if (w->fd >= 0)
        shm_unlink(w->name);
    if (w->queue.fd >= 0)
        shm_unlink(w->queue.name);
    world_unmap(w);
    free(w);
    return rc;
}

/* ---- Attaching ----------------------------------------------------------- */

static int
check_world_cb(const uint8_t *p, size_t size, const char *name, void *lay,
               gc_error *err)
{
    return gc_layout_check_world(p, size, name, lay, err);
}

/* Hold the readers' lock on fd (a reader's): byte 0 of the world's
 * object, shared.  Should the system refuse it, the reader still reads:
 * the daemon then publishes the agents four times a second instead of
 * every tick, which is all it loses. */
static void
watch(int fd)
{
#if defined(F_OFD_SETLK)
    struct flock fl = {.l_type = F_RDLCK, .l_whence = SEEK_SET, .l_len = 1};
    (void)fcntl(fd, F_OFD_SETLK, &fl);
#else
    (void)fd;
#endif
}

bool
gc_world_watched(const gc_world *w)
{
#if defined(F_OFD_GETLK)
    /* Would an exclusive lock on the byte conflict?  Only a reader's
     * shared one can (nobody else locks it). */
    struct flock fl = {.l_type = F_WRLCK, .l_whence = SEEK_SET, .l_len = 1};
    if (fcntl(w->fd, F_OFD_GETLK, &fl) != 0)
        return true;
    return fl.l_type != F_UNLCK;
#else
    (void)w;
    return true;
#endif
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
    rc = gc_shm_attach(w->name, false, &w->fd, &w->base, &w->size,
                       check_world_cb, &w->lay, err);
    if (rc != GC_OK)
        goto fail;
    w->pid = (pid_t)world_hdr(w)->pid;
    watch(w->fd);
    if (flags & GC_WORLD_ATTACH_QUEUE) {
        rc = gc_queue_attach(&w->queue, w->pid, w->name, err);
        if (rc != GC_OK)
            goto fail;
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
        shm_unlink(w->queue.name);
    }
    gc_world_close(w);
}

/* ---- Accessors ----------------------------------------------------------- */

const char *
gc_world_name(const gc_world *w)
{
    return w->name;
}

gc_queue *
gc_world_queue(const gc_world *w)
{
    /* The queue is the handle's: a const world still lets its user push. */
    return w->queue.opened ? (gc_queue *)&w->queue : NULL;
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
    return world_hdr(w);
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

bool
gc_world_costs(const gc_world *w, float cost[GC_CELL_NTYPES],
               gc_diag_rule *diag)
{
    if (cost != NULL)
        for (int t = 0; t < GC_CELL_NTYPES; t++)
            cost[t] = w->lay.cost[t];
    if (diag != NULL)
        *diag = w->lay.diag;
    return w->lay.costs_published;
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

uint32_t
gc_world_path_capacity(const gc_world *w)
{
    return w->lay.path_capacity;
}

pid_t
gc_world_pid(const gc_world *w)
{
    return w->pid;
}

uint64_t
gc_world_created_ns(const gc_world *w)
{
    return world_hdr(w)->created_ns; /* fixed: validated at attach */
}

unsigned
gc_world_state(const gc_world *w)
{
    return atomic_load_explicit(&world_hdr(w)->state, memory_order_acquire);
}

uint64_t
gc_world_tick(const gc_world *w)
{
    return atomic_load_explicit(&world_hdr(w)->tick, memory_order_acquire);
}

uint64_t
gc_world_generation(const gc_world *w)
{
    return atomic_load_explicit(&world_hdr(w)->generation,
                                memory_order_acquire);
}

uint32_t
gc_world_agent_count(const gc_world *w)
{
    uint32_t n =
        atomic_load_explicit(&world_hdr(w)->agent_count, memory_order_relaxed);
    return n <= w->lay.capacity ? n : w->lay.capacity;
}

uint64_t
gc_world_edits_applied(const gc_world *w)
{
    return atomic_load_explicit(&world_hdr(w)->edits_applied,
                                memory_order_acquire);
}

void
gc_world_edit_counts(const gc_world *w, uint64_t *accepted, uint64_t *rejected,
                     uint64_t *pending)
{
    const gc_world_header *h = world_hdr(w);
    if (accepted != NULL)
        *accepted =
            atomic_load_explicit(&h->edits_accepted, memory_order_relaxed);
    if (rejected != NULL)
        *rejected =
            atomic_load_explicit(&h->edits_rejected, memory_order_relaxed);
    if (pending != NULL)
        *pending =
            atomic_load_explicit(&h->edits_pending, memory_order_relaxed);
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
    atomic_store_explicit(&world_hdr(w)->state, state, memory_order_release);
    return GC_OK;
}

int
gc_world_set_tick(gc_world *w, uint64_t tick)
{
    if (!w->owner)
        return GC_EPERM;
    atomic_store_explicit(&world_hdr(w)->tick, tick, memory_order_release);
    return GC_OK;
}

int
gc_world_set_edit_counts(gc_world *w, uint64_t accepted, uint64_t rejected,
                         uint64_t pending)
{
    if (!w->owner)
        return GC_EPERM;
    gc_world_header *h = world_hdr(w);
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
    atomic_store_explicit(&world_hdr(w)->edits_applied, position,
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
    case GC_WORLD_SEC_PATH:
        off = w->lay.path_off, sz = w->lay.path_size;
        break;
    case GC_WORLD_SEC_ANSWERS:
        off = w->lay.answers_off, sz = w->lay.answers_size;
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

/* ---- Cleaning up after a dead daemon ------------------------------------- */

int
gc_world_clean(const char *name, gc_world_takeover *removed, gc_error *err)
{
    gc_world_takeover rm = {0};
    if (removed != NULL)
        *removed = rm;
    gc_world *w = world_alloc(); /* for its names only */
    if (w == NULL)
        return gc_error_set(err, GC_ENOMEM, NULL, 0, 0, "out of memory");
    int rc = make_names(w, name, err);
    int wfd = -1, qfd = -1;
    gc_shm_spec ws = {w->name,
                      "world",
                      0,
                      false,
                      0,
                      0,
                      GC_WORLD_MAGIC,
                      offsetof(gc_world_header, pid)};
    gc_shm_spec qs = {w->queue.name,
                      "edit queue",
                      0,
                      false,
                      0,
                      0,
                      GC_QUEUE_MAGIC,
                      offsetof(gc_queue_header, pid)};
    /* Both locked before either goes: a live daemon keeps both. */
    if (rc == GC_OK)
        rc = gc_shm_lock_stale(&ws, &wfd, &rm.world_pid, err);
    if (rc == GC_OK)
        rc = gc_shm_lock_stale(&qs, &qfd, &rm.edits_pid, err);
    if (rc == GC_OK && wfd < 0 && qfd < 0)
        rc = gc_error_set(err, GC_ENOENT, NULL, 0, 0,
                          "nothing to remove: neither %s nor %s exists",
                          w->name, w->queue.name);
    if (rc == GC_OK && wfd >= 0) {
        if (shm_unlink(w->name) != 0 && errno != ENOENT)
            rc = gc_shm_sys_error(errno, w->name, "removing", err);
        else
            rm.world = true;
    }
    if (rc == GC_OK && qfd >= 0) {
        if (shm_unlink(w->queue.name) != 0 && errno != ENOENT)
            rc = gc_shm_sys_error(errno, w->queue.name, "removing", err);
        else
            rm.edits = true;
    }
    if (wfd >= 0)
        close(wfd);
    if (qfd >= 0)
        close(qfd);
    free(w);
    if (removed != NULL)
        *removed = rm;
    return rc;
}
