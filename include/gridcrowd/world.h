/*
 * gridcrowd/world.h: the shared-memory world and the edit-queue object.
 *
 * The daemon creates two POSIX shared-memory objects:
 *
 *   /NAME        the world: header, cells, agent snapshot, statistics and the
 *                trace of one search.  Written by the daemon alone; viewers
 *                and tools map it read-only.
 *   /NAME.edits  the edit queue: the one object other processes write.
 *
 * This header is the layout contract between the daemon, the tools and the
 * viewer.  Everything in the objects is an offset or an index, never a
 * pointer.  Each field says who writes it and how it is protected.  "Fixed"
 * means written once by the daemon before the magic is published (release)
 * and never again; a reader that has validated the object (which loads the
 * magic with acquire) may read it with a plain load.  Every other field is an
 * _Atomic, read and written with the memory orders given beside it.
 *
 * Native byte order and alignment: the objects are shared between processes
 * on one machine, never written to disk or sent elsewhere.
 *
 * A world is created by gc_world_create (the daemon) and opened by
 * gc_world_attach (everyone else); both give a process-local gc_world handle.
 * Attaching validates the whole layout against the object's real size
 * (fstat) before anything else is read; the handle then keeps its own copy
 * of the validated geometry, so a later change to the shared header cannot
 * make a reader index out of bounds.
 */
#ifndef GRIDCROWD_WORLD_H
#define GRIDCROWD_WORLD_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include <gridcrowd/common.h>
#include <gridcrowd/agent.h>
#include <gridcrowd/error.h>
#include <gridcrowd/grid.h>

GC_BEGIN_DECLS

/* ---- Vocabulary shared by the daemon, the tools and the viewer ---------- */

/* Daemon states (gc_world_header.state). */
enum {
    GC_WORLD_STARTING = 1, /* objects exist, map and agents being set up */
    GC_WORLD_RUNNING = 2,  /* ticking */
    GC_WORLD_STOPPING = 3  /* shutting down: readers should detach */
};

/* Agent states (gc_world_agent.state, gc_world_stats.agents[]) are the
 * GC_AGENT_* of agent.h; trace event kinds are the GC_TRACE_* of astar.h. */

/* "No agent" in agent-id fields. */
#define GC_WORLD_NO_AGENT UINT32_MAX

/* Lower-case names ("starting", "moving"); "unknown" when out of range. */
const char *gc_world_state_name(unsigned state);

/* ---- Limits and identity ----------------------------------------------- */

/* Default object name; the queue is the same name plus ".edits". */
#define GC_WORLD_DEFAULT_NAME "gridcrowd"
#define GC_EDITS_SUFFIX ".edits"
/* Longest name without the leading '/': NAME_MAX (255) minus the suffix. */
#define GC_WORLD_NAME_MAX 249

/* "GCWORLD1" and "GCEDITS1", read as little-endian uint64. */
#define GC_WORLD_MAGIC UINT64_C(0x31444c524f574347)
#define GC_EDITS_MAGIC UINT64_C(0x3153544944454347)
#define GC_WORLD_VERSION 1u
#define GC_EDITS_VERSION 1u

#define GC_WORLD_MAX_AGENTS (1u << 20)
#define GC_WORLD_TRACE_MAX (1u << 22)     /* largest trace capacity */
#define GC_WORLD_TRACE_DEFAULT (1u << 20) /* cap of the default capacity */
#define GC_EDITS_DEFAULT_CAPACITY 4096u
#define GC_EDITS_MAX_CAPACITY (1u << 20)
#define GC_WORLD_PATH_POINTS 8
/* Sections start on this boundary (a cache line). */
#define GC_WORLD_ALIGN 64
/* Bounded retries of a reader that keeps seeing a write in progress. */
#define GC_WORLD_READ_ATTEMPTS 1000

/* ---- The world object -------------------------------------------------- */

/* Where a section lives: byte offset from the start of the object, size. */
typedef struct gc_world_section {
    uint64_t offset;
    uint64_t size;
} gc_world_section;

/*
 * The header, at offset 0.  The first cache line and a half are fixed; the
 * live fields have their own line so that readers polling the tick do not
 * share a line with anything the daemon writes for another reason.
 */
typedef struct gc_world_header {
    /* Fixed.  Written last at creation with memory_order_release, so a
     * reader that loads it with acquire and sees GC_WORLD_MAGIC also sees
     * every fixed field below.  All zero while the daemon is starting. */
    _Atomic uint64_t magic;
    uint32_t version;           /* fixed: GC_WORLD_VERSION */
    uint32_t header_size;       /* fixed: sizeof(gc_world_header) */
    uint64_t total_size;        /* fixed: bytes in the object */
    int32_t width, height;      /* fixed: grid size in cells */
    float cell_size;            /* fixed: world units per cell */
    int32_t pid;                /* fixed: the daemon's pid */
    uint32_t agent_capacity;    /* fixed: records per snapshot buffer */
    uint32_t agent_record_size; /* fixed: sizeof(gc_world_agent) */
    uint32_t trace_capacity;    /* fixed: events in the trace section */
    uint32_t flags;             /* fixed: 0 (reserved) */
    uint64_t created_ns;        /* fixed: CLOCK_REALTIME at creation */
    gc_world_section cells;     /* fixed: width * height type bytes */
    gc_world_section agents;    /* fixed: gc_world_agents_hdr + 2 buffers */
    gc_world_section stats;     /* fixed: gc_world_stats_area */
    gc_world_section trace;     /* fixed: gc_world_trace_hdr + events */

    /* Live.  Written only by the daemon. */
    _Atomic uint32_t state;       /* GC_WORLD_*; release / acquire */
    _Atomic uint32_t agent_count; /* agents in the last snapshot; relaxed
                                     (a hint: the snapshot has its own) */
    _Atomic uint64_t tick;        /* simulation tick; release / acquire */
    _Atomic uint64_t generation;  /* grid generation: +1 per batch of cell
                                     changes; read it inside cells_seq */
    _Atomic uint64_t cells_seq;   /* seqlock over the cells and generation:
                                     odd while the daemon writes cells */
    /* Edit counters, for the edit-queue work; relaxed. */
    _Atomic uint64_t edits_accepted;
    _Atomic uint64_t edits_rejected;
    _Atomic uint64_t edits_pending;
    /* Edit-queue position up to which every entry has been applied or
     * rejected: every entry at a position below it is done with, so a tool
     * that pushed at position p and then sees edits_applied > p (acquire)
     * also sees the cells its edit changed.  Entries held in an open batch
     * (waiting for their BATCH_END) hold it back.  Written by the daemon
     * after the cell changes (release); never decreases. */
    _Atomic uint64_t edits_applied;
    uint64_t reserved[8]; /* zero; room for future fields */
} gc_world_header;

/*
 * One agent in the snapshot.  This is the plain form callers use; in shared
 * memory a record is stored as GC_WORLD_AGENT_WORDS relaxed atomic 64-bit
 * words holding exactly these bytes (see gc_world_agent_slot).
 */
typedef struct gc_world_agent {
    uint32_t id;            /* agent index */
    uint32_t generation;    /* bumped when the index is reused */
    float x, y;             /* position, world units */
    float heading;          /* radians, atan2(dy, dx), world y down */
    float speed;            /* world units per second */
    int32_t goal_x, goal_y; /* goal cell */
    uint32_t path_len;      /* waypoints remaining */
    uint8_t state;          /* GC_AGENT_* */
    uint8_t pad[3];         /* zero */
    gc_vec2 path[GC_WORLD_PATH_POINTS]; /* first min(path_len, 8) remaining
                                           waypoints, world units */
    uint32_t reserved[6];               /* zero */
} gc_world_agent;

#define GC_WORLD_AGENT_WORDS (sizeof(gc_world_agent) / sizeof(uint64_t))

/* A record as stored: the bytes of a gc_world_agent, word by word. */
typedef struct gc_world_agent_slot {
    _Atomic uint64_t word[16];
} gc_world_agent_slot;

/*
 * Head of the agents section, followed by two buffers of agent_capacity
 * slots each (buffer 0 at offset 64, buffer 1 right after it).
 *
 * Protocol (one writer, any number of readers, nobody blocks):
 *   seq counts half-steps.  seq == 2n: n snapshots published, writer idle.
 *   seq == 2n+1: the writer is filling snapshot n+1.  Snapshot k lives in
 *   buffer (k - 1) & 1, so the writer always fills the buffer that does not
 *   hold the latest snapshot.
 *   Writer (the simulation loop, between ticks): store seq = 2n+1 (release),
 *   release fence, store records and count[b] (relaxed), store seq = 2n+2
 *   (release).
 *   Reader: s1 = seq (acquire); n = s1 / 2; copy count[(n-1)&1] and the
 *   records (relaxed); acquire fence; s2 = seq (relaxed).  The buffer was
 *   being overwritten only if the writer began snapshot n+2, i.e. if
 *   s2 >= 2n+3; otherwise the copy is snapshot n, whole.
 */
typedef struct gc_world_agents_hdr {
    _Atomic uint64_t seq;
    _Atomic uint32_t count[2]; /* agents in each buffer; relaxed */
    uint64_t reserved[6];
} gc_world_agents_hdr;

/*
 * Statistics the daemon publishes (each second, or each tick).  All fields
 * are 8 bytes so that the stored form is GC_WORLD_STATS_WORDS words.
 */
typedef struct gc_world_stats {
    uint64_t tick;      /* tick at which the figures were taken */
    uint64_t uptime_ns; /* since the simulation started */
    double ticks_per_s;
    uint64_t agents[8]; /* agents by state, indexed by GC_AGENT_* */
    uint64_t searches_total;
    double searches_per_s;
    double search_us_mean;
    double search_us_p99;
    double expanded_mean; /* cells expanded per search */
    uint64_t overruns;    /* ticks that took longer than their step */
    uint64_t edits_accepted;
    uint64_t edits_rejected;
    uint64_t reserved[13];
} gc_world_stats;

#define GC_WORLD_STATS_WORDS (sizeof(gc_world_stats) / sizeof(uint64_t))

/* The stats section: a seqlock (odd while the daemon writes) and the words.
 * Words are relaxed; seq is release / acquire. */
typedef struct gc_world_stats_area {
    _Atomic uint64_t seq;
    uint64_t reserved[7];
    _Atomic uint64_t word[32];
} gc_world_stats_area;

/* One trace event: a cell index (y * width + x) and a GC_TRACE_* kind. */
typedef struct gc_world_trace_event {
    uint32_t cell;
    uint8_t kind;
    uint8_t pad[3];
} gc_world_trace_event;

/*
 * Head of the trace section, followed by trace_capacity events, each stored
 * as one relaxed 64-bit word holding the bytes of a gc_world_trace_event.
 * seq is a seqlock (odd while the daemon writes the trace; release /
 * acquire); the other fields are relaxed and read inside it.
 */
typedef struct gc_world_trace_hdr {
    _Atomic uint64_t seq;
    _Atomic uint64_t tick;  /* tick of the traced search */
    _Atomic uint32_t agent; /* traced agent, or GC_WORLD_NO_AGENT */
    _Atomic uint32_t agent_generation;
    _Atomic uint32_t count;     /* events stored, <= trace_capacity */
    _Atomic uint32_t truncated; /* 1: the search had more events */
    /* The agent whose searches should be traced.  Written by the daemon
     * (relaxed), on behalf of the viewer, which asks through the edit queue:
     * the viewer cannot write the world.  Not part of the seqlock. */
    _Atomic uint32_t request_agent;
    _Atomic uint32_t request_generation;
    uint32_t reserved[6];
} gc_world_trace_hdr;

/* ---- The edit-queue object --------------------------------------------- */

/*
 * Header of /NAME.edits.  The queue is a bounded ring of `capacity` entries
 * (a power of two), after Dmitry Vyukov's bounded MPMC queue, with one
 * consumer: producers (tools, the viewer; any number, any process) claim a
 * position by advancing `tail` with a CAS, fill the entry and publish it
 * through the entry's own `seq`; the daemon consumes at `head`.  head and
 * tail live on their own cache lines.  See gc_edit_entry for the slot
 * protocol and gc_edits_pop for how a dead producer is survived.
 */
typedef struct gc_edits_header {
    _Atomic uint64_t magic;    /* fixed: GC_EDITS_MAGIC, written last
                                  (release) */
    uint32_t version;          /* fixed: GC_EDITS_VERSION */
    uint32_t header_size;      /* fixed: sizeof(gc_edits_header) */
    uint64_t total_size;       /* fixed */
    uint32_t capacity;         /* fixed: entries, a power of two */
    uint32_t entry_size;       /* fixed: sizeof(gc_edit_entry) */
    int32_t pid;               /* fixed: the daemon's pid */
    uint32_t flags;            /* fixed: 0 */
    uint64_t claim_timeout_ns; /* fixed: how long the daemon waits for a
                                  claimed entry to be published before it
                                  skips it */
    uint64_t reserved0[2];
    _Atomic uint64_t head; /* next position the daemon consumes; written
                              only by the daemon (release) */
    uint64_t pad1[7];
    _Atomic uint64_t tail; /* next position a producer claims (CAS, relaxed:
                              the slot's seq carries the ordering) */
    uint64_t pad2[7];
    uint64_t reserved[8];
} gc_edits_header;

/*
 * One queue entry, the slot for positions p, p + capacity, p + 2 capacity...
 *
 *   seq == p            free for position p (or claimed, not yet published)
 *   seq == p + 1        position p published: the daemon may read it
 *   seq == p + capacity consumed or skipped: free for the next lap
 *
 * A producer that sees seq == p claims p by a CAS of tail from p to p + 1,
 * writes claim_ns and the payload, then publishes with a CAS of seq from p
 * to p + 1 (release).  The daemon reads the payload only after an acquire
 * load shows seq == p + 1, checks `check`, and frees the slot by storing
 * p + capacity (release).  If it gives up on a claimed entry it moves seq
 * from p to p + capacity with a CAS, so a late producer's publish fails and
 * it learns that its entry was dropped: an entry is applied at most once.
 * `check` covers the position and the payload, so that a producer stalled
 * past the timeout, still writing into a slot that has been handed to
 * another producer, cannot make a mixed entry pass.  Everything here is
 * untrusted input to the daemon.
 */
typedef struct gc_edit_entry {
    _Atomic uint64_t seq;
    _Atomic uint64_t claim_ns; /* CLOCK_MONOTONIC when claimed (relaxed) */
    uint32_t op;               /* operation, defined by the edit work */
    uint32_t type;             /* cell type */
    int32_t x0, y0, x1, y1;    /* cell rectangle or line */
    uint32_t batch;            /* entries of one batch share this */
    uint32_t sender_pid;
    uint64_t client_token; /* chosen by the client, echoed in replies */
    uint64_t check;        /* hash of the position and the fields above */
} gc_edit_entry;

/* An edit as producers give it and the daemon receives it. */
typedef struct gc_edit {
    uint32_t op, type;
    int32_t x0, y0, x1, y1;
    uint32_t batch;
    uint32_t sender_pid; /* set by gc_edits_push */
    uint64_t client_token;
    uint64_t claim_ns; /* set by gc_edits_push (CLOCK_MONOTONIC) */
    uint64_t position; /* set by push and pop: its queue position */
} gc_edit;

/* ---- Creating and attaching -------------------------------------------- */

/* A process-local handle on a created or attached world. */
typedef struct gc_world gc_world;

/* What gc_world_create makes.  Zero fields take the defaults. */
typedef struct gc_world_config {
    const char *name;          /* NULL: GC_WORLD_DEFAULT_NAME; a leading '/'
                                  is optional */
    int32_t width, height;     /* grid size in cells, required */
    float cell_size;           /* 0: 1.0 */
    uint32_t agent_capacity;   /* agents the snapshot can hold (may be 0) */
    uint32_t trace_capacity;   /* 0: min(2 * cells, GC_WORLD_TRACE_DEFAULT) */
    uint32_t edits_capacity;   /* 0: GC_EDITS_DEFAULT_CAPACITY; power of 2 */
    mode_t world_mode;         /* 0: 0600; applied exactly (umask ignored) */
    mode_t edits_mode;         /* 0: 0600 */
    uint32_t claim_timeout_ms; /* 0: 2000; see gc_edits_pop */
    bool set_group;            /* give both objects the group `group`
                                  (fchown, before the modes are applied) */
    gid_t group;
} gc_world_config;

/* Whether gc_world_create replaced objects left behind by a dead daemon. */
typedef struct gc_world_takeover {
    bool world, edits;          /* took over /NAME, /NAME.edits */
    pid_t world_pid, edits_pid; /* the dead owner's pid; 0 if the object had
                                   no valid header */
} gc_world_takeover;

/*
 * Create the world and its edit queue (the daemon).  Both objects are made
 * with O_CREAT|O_EXCL, sized, given their modes exactly, locked (flock, held
 * until close) and mapped read-write; the world starts in GC_WORLD_STARTING
 * with zeroed cells (all walkable), no snapshot and generation 0.
 *
 * When an object already exists: if a live process holds it, GC_EBUSY with a
 * message naming the pid ("shared-memory object /gridcrowd is held by live
 * process 1234"); otherwise its owner died, and the object is unlinked and
 * recreated and `took` (may be NULL) says so.  Only what a gridcrowd daemon
 * leaves behind is taken over (the object's magic is this kind's, or zero,
 * or the object is too short to hold one): anything else is someone else's
 * data, and GC_EEXIST refuses it with a message giving the magic found.
 * With cfg->set_group, both objects get that group; GC_EPERM when the
 * process may not give it (neither root nor a member).  Other errors:
 * GC_EINVAL (bad name or config, the message says which), GC_ETOOBIG,
 * GC_EPERM, GC_ESYS.  On any error nothing is left behind.  The caller owns
 * *out and ends it with gc_world_destroy (or gc_world_close to leave the
 * objects in place).
 */
int gc_world_create(gc_world **out, const gc_world_config *cfg,
                    gc_world_takeover *took, gc_error *err);

/* gc_world_attach flags. */
enum {
    GC_WORLD_ATTACH_EDITS = 1 /* also open the edit queue read-write */
};

/*
 * Attach to an existing world by name (NULL: the default), mapping it
 * read-only: the mapping can never be made writable.  Validates it with
 * gc_world_validate before trusting anything.  With GC_WORLD_ATTACH_EDITS
 * also opens, maps read-write and validates the edit queue.
 * Errors: GC_ENOENT ("no daemon: shared-memory object /NAME does not
 * exist"), GC_EPERM, GC_EBADMAGIC, GC_EVERSION, GC_ECORRUPT, GC_ESYS,
 * GC_EINVAL (bad name).  The caller owns *out and ends it with
 * gc_world_close.
 */
int gc_world_attach(gc_world **out, const char *name, unsigned flags,
                    gc_error *err);

/*
 * Check that `size` bytes at `base` (8-byte aligned) are a well-formed world
 * of this layout version: magic, version, header and total size against
 * `size`, geometry, every section inside the object, aligned, clear of the
 * header and of each other, and of the size its geometry implies, agent
 * count within capacity.  Never reads outside [base, base + size).  Returns
 * GC_OK or GC_EBADMAGIC, GC_EVERSION, GC_ECORRUPT, GC_EINVAL, each with a
 * message saying what is wrong.
 */
int gc_world_validate(const void *base, size_t size, gc_error *err);

/* The same for an edit-queue object. */
int gc_edits_validate(const void *base, size_t size, gc_error *err);

/* Unmap and close; the objects stay.  NULL is allowed. */
void gc_world_close(gc_world *w);

/* The owner's exit: unlink both objects, then close.  On a handle from
 * gc_world_attach it only closes.  NULL is allowed. */
void gc_world_destroy(gc_world *w);

/* ---- Accessors --------------------------------------------------------- */

const char *gc_world_name(const gc_world *w);       /* "/NAME" */
const char *gc_world_edits_name(const gc_world *w); /* "/NAME.edits" */
bool gc_world_is_owner(const gc_world *w);

/* The mapping, for tests and tools that inspect the raw layout. */
const void *gc_world_base(const gc_world *w);
size_t gc_world_size(const gc_world *w);
const gc_world_header *gc_world_hdr(const gc_world *w);
/* The edit queue mapping (read-write), or NULL when not opened. */
gc_edits_header *gc_world_edits(const gc_world *w);
size_t gc_world_edits_size(const gc_world *w);

/* Sections, by their validated offsets, with their sizes. */
enum {
    GC_WORLD_SEC_CELLS = 0,
    GC_WORLD_SEC_AGENTS = 1,
    GC_WORLD_SEC_STATS = 2,
    GC_WORLD_SEC_TRACE = 3
};
/* Start of section `which` in the mapping and its size; NULL when `which`
 * is not a section. */
const void *gc_world_section_at(const gc_world *w, int which, size_t *size);

/* Validated geometry, from the handle (not re-read from shared memory). */
int32_t gc_world_width(const gc_world *w);
int32_t gc_world_height(const gc_world *w);
float gc_world_cell_size(const gc_world *w);
uint32_t gc_world_agent_capacity(const gc_world *w);
uint32_t gc_world_trace_capacity(const gc_world *w);
pid_t gc_world_pid(const gc_world *w);

/* Live fields (acquire loads). */
unsigned gc_world_state(const gc_world *w);
uint64_t gc_world_tick(const gc_world *w);
uint64_t gc_world_generation(const gc_world *w);
uint32_t gc_world_agent_count(const gc_world *w);
/* gc_world_header.edits_applied (acquire): see there. */
uint64_t gc_world_edits_applied(const gc_world *w);

/*
 * Whether the daemon still owns this world: false once the object has been
 * unlinked (destroyed or taken over), or when its pid no longer exists.
 */
bool gc_world_owner_alive(const gc_world *w);

/* ---- Writing (the daemon) ---------------------------------------------- */
/* All of these return GC_EPERM on a handle from gc_world_attach. */

/* Publish the daemon's state or tick (release). */
int gc_world_set_state(gc_world *w, unsigned state);
int gc_world_set_tick(gc_world *w, uint64_t tick);
/* Publish the edit counters (relaxed). */
int gc_world_set_edit_counts(gc_world *w, uint64_t accepted, uint64_t rejected,
                             uint64_t pending);
/* Publish the queue position up to which every edit has been applied or
 * rejected (gc_world_header.edits_applied), after the cells (release). */
int gc_world_set_edits_applied(gc_world *w, uint64_t position);

/*
 * The cell bytes, writable, for the daemon; NULL for readers.  Change them
 * only between gc_world_cells_begin and gc_world_cells_end.
 */
uint8_t *gc_world_cells(gc_world *w);

/* A gc_grid over the cell section (gc_grid_wrap) with the world's cell size;
 * the caller frees it with gc_grid_free before destroying the world. */
int gc_world_grid(gc_world *w, gc_grid **out);

/* Bracket a batch of cell changes: begin makes cells_seq odd; end bumps the
 * generation and makes cells_seq even again.  Not nested. */
int gc_world_cells_begin(gc_world *w);
int gc_world_cells_end(gc_world *w);

/* Handle on the snapshot buffer being filled. */
typedef struct gc_world_snap gc_world_snap;

/*
 * Start a snapshot (the simulation loop only, between ticks): returns the
 * inactive buffer, or NULL on a reader's handle.  Store every record
 * 0..count-1 (the buffer holds the snapshot before last), then publish.
 * A second begin without publish keeps filling the same buffer.
 */
gc_world_snap *gc_world_agents_begin(gc_world *w);

/* Store record i (relaxed atomic stores).  GC_ERANGE past capacity. */
int gc_world_agent_store(gc_world_snap *s, uint32_t i,
                         const gc_world_agent *rec);

/* Publish the buffer with `count` records (release); also updates the
 * header's agent_count.  GC_EINVAL without begin, GC_ERANGE past capacity. */
int gc_world_agents_publish(gc_world *w, uint32_t count);

/* Publish a set of statistics (seqlock, relaxed words). */
int gc_world_stats_publish(gc_world *w, const gc_world_stats *st);

/*
 * Publish the trace of one search of `agent`: the first trace_capacity of
 * the n events are stored and `truncated` is set when there were more.
 */
int gc_world_trace_publish(gc_world *w, uint32_t agent, uint32_t generation,
                           uint64_t tick, const gc_world_trace_event *ev,
                           size_t n);

/* Record which agent the viewer asked to trace (GC_WORLD_NO_AGENT: none). */
int gc_world_set_trace_request(gc_world *w, uint32_t agent,
                               uint32_t generation);

/* ---- Reading (anyone) -------------------------------------------------- */
/*
 * Readers never block the daemon: they copy and retry when the copy may have
 * been torn, giving up with GC_EBUSY after GC_WORLD_READ_ATTEMPTS tries
 * (calling sched_yield between them).  GC_ECORRUPT when a count in shared
 * memory exceeds its capacity.
 */

/* Copy the width * height cell bytes to buf and the generation they belong
 * to (may be NULL) to *generation. */
int gc_world_read_cells(const gc_world *w, uint8_t *buf, uint64_t *generation);

/*
 * Copy the latest agent snapshot: min(count, cap) records to out, the number
 * copied to *count, the snapshot number (0: none published yet; may be
 * NULL) to *seq.  Pass cap >= gc_world_agent_capacity(w) to get them all.
 */
int gc_world_read_agents(const gc_world *w, gc_world_agent *out, size_t cap,
                         size_t *count, uint64_t *seq);

/* Copy the latest statistics (all zero before the first publish). */
int gc_world_read_stats(const gc_world *w, gc_world_stats *out);

/* What a trace copy holds. */
typedef struct gc_world_trace_info {
    uint64_t seq; /* traces published so far (0: none) */
    uint64_t tick;
    uint32_t agent; /* GC_WORLD_NO_AGENT when none */
    uint32_t generation;
    size_t count;   /* events copied to out */
    bool truncated; /* the search had more events than were stored or
                       than fitted in out */
} gc_world_trace_info;

/* Copy the latest trace: info, and up to cap events to out (may be NULL
 * when cap is 0). */
int gc_world_read_trace(const gc_world *w, gc_world_trace_info *info,
                        gc_world_trace_event *out, size_t cap);

/* The trace request (relaxed loads). */
void gc_world_trace_request(const gc_world *w, uint32_t *agent,
                            uint32_t *generation);

/* ---- The edit queue ---------------------------------------------------- */

/*
 * Put an edit on the queue (any process that attached with
 * GC_WORLD_ATTACH_EDITS, or the owner).  Waits up to timeout_ns while the
 * queue is full, then returns GC_EFULL.  Returns GC_ETIMEOUT if the daemon
 * gave up waiting for this entry (the producer stalled longer than the
 * claim timeout between claim and publish): the edit was dropped and will
 * never be applied.  On success e->position, sender_pid and claim_ns are
 * set.  GC_EINVAL on a handle without the queue.
 */
int gc_edits_push(gc_world *w, gc_edit *e, uint64_t timeout_ns);

/*
 * Take the next edit (the daemon only: GC_EPERM otherwise).  Returns 1 and
 * fills *out, or 0 when there is nothing to take now: the queue is empty, or
 * its next entry is claimed but not yet published.  An entry that stays
 * claimed but unpublished for the header's claim_timeout_ns (measured from
 * when this handle first saw it so, since the producer's own claim_ns may
 * not be written yet) is skipped: that call returns GC_ETIMEOUT, with
 * out->position set, and the next call goes on with the entry after it.  An
 * entry whose check fails, or a slot in an impossible state, is skipped with
 * GC_ECORRUPT.  When the queue header's magic is not there any more
 * (scribbled on, or the object truncated), takes nothing and returns
 * GC_EBADMAGIC.  Never blocks.
 */
int gc_edits_pop(gc_world *w, gc_edit *out);

/* Entries claimed but not yet consumed (tail - head), for the counters;
 * never more than the capacity, whatever a producer wrote in the tail. */
uint64_t gc_edits_pending(const gc_world *w);

/* The next position the daemon will consume: on the owner's handle its own
 * copy (never read back from the queue, which producers can write); on
 * others the header's head (acquire).  0 without the queue. */
uint64_t gc_edits_head(const gc_world *w);

/* Entries in the ring and the claim timeout, as validated at attach or
 * chosen at creation (not re-read from the queue); 0 without the queue. */
uint32_t gc_edits_capacity(const gc_world *w);
uint64_t gc_edits_claim_timeout_ns(const gc_world *w);

/*
 * The daemon's check that nobody damaged its queue object: its size (fstat)
 * and every fixed header field are as gc_world_create made them.  GC_OK, or
 * GC_ECORRUPT with a message ("/NAME.edits: resized to 0 bytes by another
 * process (it was 262400)", "... header overwritten by another process");
 * GC_EPERM on a reader's handle.  Anyone allowed to edit can write that
 * object, shrink it or scribble on it; gc_edits_pop then takes nothing
 * (GC_EBADMAGIC) until the owner makes the queue again.
 */
int gc_world_edits_intact(const gc_world *w, gc_error *err);

/*
 * Make the edit queue again (the daemon, after gc_world_edits_intact
 * failed): unlink the damaged object, create, size, lock and map a new one
 * with the same name, mode and group, empty, whose positions continue from
 * the daemon's (so edits_applied never goes back).  Producers attached to
 * the old object lose what they push there; tools attach afresh for each
 * command.  Entries held in open batches stay with the applier.  The new
 * mapping replaces the old one: gc_world_edits changes.  On error the
 * world has no queue (gc_world_edits is NULL) and nothing is left in
 * /dev/shm; errors as gc_world_create's.
 */
int gc_world_reset_edits(gc_world *w, gc_error *err);

/* The next position a producer will claim (the queue's tail; relaxed), or 0
 * without the queue.  Every entry pushed before this call returned has a
 * smaller position: a tool waits for gc_world_edits_applied to reach it. */
uint64_t gc_edits_tail(const gc_world *w);

GC_END_DECLS
#endif
