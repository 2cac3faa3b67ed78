/*
 * world_int.h: what the world's files share and users do not see.
 *
 * The world is four files: shm.c (a named object's ownership by flock and
 * its takeover from a dead owner, for both objects), world-layout.c (the
 * layout contract: sizes, offsets, validation of both objects), world.c
 * (the handle: create, attach, close, accessors, seqlock publish and read)
 * and queue.c (the edit ring).  The structs are here so that each file
 * sees the handle; only these files may touch their fields.
 */
#ifndef GC_WORLD_INT_H
#define GC_WORLD_INT_H

#include <gridcrowd/world-layout.h>

#include <assert.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>
#include <time.h>

/* ---- Layout (world-layout.c) --------------------------------------------- */

/* Geometry of a world, computed at creation or copied out of a validated
 * header.  Never re-read from shared memory afterwards. */
typedef struct gc_layout {
    int32_t width, height;
    float cell_size;
    uint32_t capacity, trace_capacity, path_capacity, answer_capacity;
    uint64_t cells_off, cells_size;
    uint64_t agents_off, agents_size;
    uint64_t stats_off, stats_size;
    uint64_t trace_off, trace_size;
    uint64_t path_off, path_size;
    uint64_t answers_off, answers_size;
    uint64_t total;
    /* The daemon's cost table and diagonal rule (gc_world_costs), checked:
     * the defaults when the daemon published none. */
    float cost[GC_CELL_NTYPES];
    gc_diag_rule diag;
    bool costs_published;
} gc_layout;

/* Limits of the claim timeout: long enough for any live producer, short
 * enough that a dead one does not hold the queue for long. */
#define GC_CLAIM_TIMEOUT_MIN_NS UINT64_C(1000000)       /* 1 ms */
#define GC_CLAIM_TIMEOUT_MAX_NS UINT64_C(3600000000000) /* 1 h */

/* gc_grid_check_size with its message: GC_OK, or the check's code (or
 * `code` when not 0: GC_ECORRUPT for a header read from shared memory) with
 * err filled, naming `name`. */
int gc_layout_check_grid_size(int64_t width, int64_t height, const char *name,
                              int code, gc_error *err);
/* Fill the offsets and sizes of *l from its width, height and capacities. */
void gc_layout_compute(gc_layout *l);
/* Bytes of a queue object of `capacity` entries. */
uint64_t gc_layout_queue_size(uint32_t capacity);
/* Validate a world (filling *lay, may be NULL) or a queue (filling *capp
 * and *timeoutp, may be NULL); `name` (may be NULL) prefixes messages. */
int gc_layout_check_world(const uint8_t *p, size_t size, const char *name,
                          gc_layout *lay, gc_error *err);
int gc_layout_check_queue(const uint8_t *p, size_t size, const char *name,
                          uint32_t *capp, uint64_t *timeoutp, gc_error *err);

/* ---- Named objects (shm.c) ----------------------------------------------- */

/* How an object is made, and made again. */
typedef struct gc_shm_spec {
    const char *name;
    const char *kind; /* "world", "edit queue": for messages */
    mode_t mode;
    bool set_group; /* fchown the object to `group` */
    gid_t group;
    uint64_t size;
    uint64_t magic;
    size_t pid_off;
} gc_shm_spec;

/* Make spec->name ours: a new, locked, sized object, taking over one whose
 * owner died (*took, *stale_pid).  Nothing we created remains on error. */
int gc_shm_own(const gc_shm_spec *spec, int *fdp, bool *took, pid_t *stale_pid,
               gc_error *err);
/* Validates `size` bytes at p; arg is the caller's (gc_shm_attach). */
typedef int (*gc_shm_check)(const uint8_t *p, size_t size, const char *name,
                            void *arg, gc_error *err);
/* Open an existing object (O_RDONLY, or O_RDWR when writable), map it and
 * validate it with check before anything else reads it.  On error *fdp and
 * *basep may be set: the caller unmaps and closes. */
int gc_shm_attach(const char *name, bool writable, int *fdp, uint8_t **basep,
                  size_t *sizep, gc_shm_check check, void *arg, gc_error *err);
/* Lock an existing object nobody holds and that a gridcrowd daemon left
 * (to unlink it while holding the lock): *fdp, *pid (0 if none recorded);
 * *fdp is -1 when there is no such object.  GC_EBUSY (a live owner: *pid
 * names it when known), GC_EEXIST (someone else's object). */
int gc_shm_lock_stale(const gc_shm_spec *spec, int *fdp, pid_t *pid,
                      gc_error *err);
/* mmap a whole object, MAP_SHARED. */
int gc_shm_map(int fd, size_t size, int prot, const char *name, uint8_t **out,
               gc_error *err);
/* Messages for a failed shm_open and for any other failed system call. */
int gc_shm_open_error(int e, const char *name, const char *doing,
                      gc_error *err);
int gc_shm_sys_error(int e, const char *name, const char *doing, gc_error *err);

/* ---- The handles --------------------------------------------------------- */

/*
 * The edit queue's handle, inside its world's.  Process-local: only the
 * thread that drives the owner's handle (the daemon's simulation loop)
 * pops, and its consumer fields (head, stalled...) are that thread's.
 */
struct gc_queue {
    char name[GC_WORLD_NAME_MAX + sizeof GC_QUEUE_SUFFIX + 1];
    bool owner;  /* made by gc_world_create: may pop, check and reset */
    bool opened; /* owner, or attached with GC_WORLD_ATTACH_QUEUE */
    int fd;
    uint8_t *base; /* NULL when not mapped */
    size_t size;
    pid_t pid; /* the daemon's */
    /* From its validated header, or chosen at creation. */
    uint32_t cap;
    uint64_t claim_timeout_ns;
    /* The consumer's view of a claimed but unpublished head entry. */
    bool stalled;
    uint64_t stall_pos, stall_since_ns;
    /* The consumer's position (the owner's handle only).  The header's
     * head is a copy published for the tools; the daemon never reads it
     * back, since every producer can write that object. */
    uint64_t head;
    /* How the object was made, to make it again (gc_queue_reset).  Owner
     * only; spec.name points at name above. */
    gc_shm_spec spec;
};

struct gc_world_snap {
    gc_world_agent_slot *slots; /* the buffer being filled */
    uint32_t capacity;
    bool open;
};

struct gc_world {
    char name[GC_WORLD_NAME_MAX + 2];
    bool owner;
    int fd;
    uint8_t *base;
    size_t size;
    gc_layout lay;
    pid_t pid;
    /* The writer's state, owner only: touched by the one thread that
     * publishes (the simulation loop, between ticks). */
    gc_world_snap snap;
    bool cells_open;
    gc_queue queue;
};

/* Debug builds check the rules the comments state (SQLite's habit): only
 * the owner's handle writes; a seqlock writer starts from an even count. */
#define GC_ASSERT_OWNER(w) assert((w)->owner)

/* Sections of the world, by the handle's validated offsets. */
static inline gc_world_header *
world_hdr(const gc_world *w)
{
    return (gc_world_header *)(void *)w->base;
}

static inline gc_world_agents_hdr *
world_agents_hdr(const gc_world *w)
{
    return (gc_world_agents_hdr *)(void *)(w->base + w->lay.agents_off);
}

static inline gc_world_agent_slot *
world_agent_slots(const gc_world *w, unsigned buf)
{
    gc_world_agent_slot *s =
        (gc_world_agent_slot *)(void *)(w->base + w->lay.agents_off +
                                        sizeof(gc_world_agents_hdr));
    return s + (size_t)buf * w->lay.capacity;
}

static inline gc_world_stats_area *
world_stats_area(const gc_world *w)
{
    return (gc_world_stats_area *)(void *)(w->base + w->lay.stats_off);
}

static inline gc_world_trace_hdr *
world_trace_hdr(const gc_world *w)
{
    return (gc_world_trace_hdr *)(void *)(w->base + w->lay.trace_off);
}

static inline _Atomic uint64_t *
world_trace_words(const gc_world *w)
{
    return (_Atomic uint64_t *)(void *)(w->base + w->lay.trace_off +
                                        sizeof(gc_world_trace_hdr));
}

static inline gc_world_path_hdr *
world_path_hdr(const gc_world *w)
{
    return (gc_world_path_hdr *)(void *)(w->base + w->lay.path_off);
}

static inline _Atomic uint64_t *
world_path_words(const gc_world *w)
{
    return (_Atomic uint64_t *)(void *)(w->base + w->lay.path_off +
                                        sizeof(gc_world_path_hdr));
}

static inline gc_world_answers_hdr *
world_answers_hdr(const gc_world *w)
{
    return (gc_world_answers_hdr *)(void *)(w->base + w->lay.answers_off);
}

static inline gc_world_answer_slot *
world_answer_slots(const gc_world *w)
{
    return (gc_world_answer_slot *)(void *)(w->base + w->lay.answers_off +
                                            sizeof(gc_world_answers_hdr));
}

/* ---- Queue (queue.c) ----------------------------------------------------- */

/* A fresh, empty queue in q's mapping whose first position is `start`. */
void gc_queue_init(gc_queue *q, uint32_t capacity, uint64_t start);
/* Open, map and validate the queue object read-write (attaching). */
int gc_queue_attach(gc_queue *q, pid_t world_pid, const char *world_name,
                    gc_error *err);
/* Unmap and close; the object stays. */
void gc_queue_unmap(gc_queue *q);

#endif
