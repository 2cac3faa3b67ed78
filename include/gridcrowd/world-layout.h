/*
 * gridcrowd/world-layout.h: the raw layout of the two shared-memory objects,
 * in C only.
 *
 * The daemon creates two POSIX shared-memory objects:
 *
 *   /NAME        the world: header, cells, agent snapshot, statistics, the
 *                trace of one search and the whole path of one agent.
 *                Written by the daemon alone; viewers and tools map it
 *                read-only.
 *   /NAME.edits  the edit queue: the one object other processes write.
 *
 * This header is the layout contract between the processes.  Everything in
 * the objects is an offset or an index, never a pointer.  Each field says
 * who writes it and how it is protected.  "Fixed" means written once by the
 * daemon before the magic is published (release) and never again; a reader
 * that has validated the object (which loads the magic with acquire) may
 * read it with a plain load.  Every other field is an _Atomic, read and
 * written with the memory orders given beside it.
 *
 * Native byte order and alignment: the objects are shared between processes
 * on one machine, never written to disk or sent elsewhere.
 *
 * Why a header of its own: C11's _Atomic is not C++, so the handle API
 * (world.h, queue.h, edits.h, edit-client.h) keeps to plain types and
 * compiles in both languages, while this file, which the library, the tests
 * and the fuzz targets use, holds everything that is _Atomic.  It is
 * installed all the same: it is the versioned contract (GC_WORLD_VERSION,
 * GC_QUEUE_VERSION) a C program of another project needs to inspect an
 * object byte by byte, as our tests do.  Programs that only read or edit a
 * world need none of it: every field has an accessor in world.h or queue.h.
 */
#ifndef GRIDCROWD_WORLD_LAYOUT_H
#define GRIDCROWD_WORLD_LAYOUT_H

#ifdef __cplusplus
#error "gridcrowd/world-layout.h is C only (_Atomic); C++ uses world.h"
#endif

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include <gridcrowd/queue.h>
#include <gridcrowd/world.h>

/* "GCWORLD1" and "GCEDITS1", read as little-endian uint64. */
#define GC_WORLD_MAGIC UINT64_C(0x31444c524f574347)
#define GC_QUEUE_MAGIC UINT64_C(0x3153544944454347)
/* Version 2 added the path section (path_capacity, path); version 3 the
 * answers section (answer_capacity, answers). */
#define GC_WORLD_VERSION 3u
/* Version 2: entries of 128 bytes, with the agent commands' fields. */
#define GC_QUEUE_VERSION 2u

/* Sections start on this boundary (a cache line). */
#define GC_WORLD_ALIGN 64

/* ---- The world object -------------------------------------------------- */

/* Where a section lives: byte offset from the start of the object, size. */
typedef struct gc_world_section {
    uint64_t offset;
    uint64_t size;
} gc_world_section;

/*
 * The header, at offset 0.  The first cache line and a half are fixed; the
 * live fields have their own line so that readers polling the tick do not
 * share a line with anything the daemon writes for another reason; the last
 * line holds the fixed fields added since (version 2: the path section).
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

    /* Fixed, on a line of their own (version 2). */
    uint32_t path_capacity; /* fixed: waypoints the path section holds */
    uint32_t diag;          /* fixed: the daemon's gc_diag_rule */
    gc_world_section path;  /* fixed: gc_world_path_hdr + waypoints */
    /* The daemon's cost table and diagonal rule, for tools that search the
     * live cells themselves (gc_world_costs).  Fixed (written before the
     * magic); nav_flags 0 (a world made without publish_costs) means the
     * tools use the default costs. */
    float cost[GC_CELL_NTYPES]; /* fixed: per cell type, as gc_grid.cost */
    uint32_t nav_flags;         /* fixed: GC_WORLD_NAV_* */
    uint32_t answer_capacity;   /* fixed (version 3): answer slots */
    gc_world_section answers;   /* fixed (version 3): gc_world_answers_hdr
                                   + answer_capacity slots */
} gc_world_header;

/* gc_world_header.nav_flags */
#define GC_WORLD_NAV_COSTS 1u /* cost[] and diag hold the daemon's */

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
    _Atomic uint64_t tick[2];  /* the tick each buffer was taken at (the
                                  header's tick when it was published);
                                  relaxed, read inside seq.  Was reserved:
                                  0 from an older daemon */
    uint64_t reserved[4];
} gc_world_agents_hdr;

#define GC_WORLD_STATS_WORDS (sizeof(gc_world_stats) / sizeof(uint64_t))

/* The stats section: a seqlock (odd while the daemon writes) and the words.
 * Words are relaxed; seq is release / acquire. */
typedef struct gc_world_stats_area {
    _Atomic uint64_t seq;
    uint64_t reserved[7];
    _Atomic uint64_t word[32];
} gc_world_stats_area;

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
    _Atomic uint32_t agent_salt; /* its gc_world_agent.salt */
    _Atomic uint32_t count;     /* events stored, <= trace_capacity */
    _Atomic uint32_t truncated; /* 1: the search had more events */
    /* The agent whose searches should be traced.  Written by the daemon
     * (relaxed), on behalf of the viewer, which asks through the edit queue:
     * the viewer cannot write the world.  Not part of the seqlock. */
    _Atomic uint32_t request_agent;
    _Atomic uint32_t request_salt;
    uint32_t reserved[6];
} gc_world_trace_hdr;

/*
 * Head of the path section, followed by path_capacity waypoints, each stored
 * as one relaxed 64-bit word holding the bytes of a gc_vec2 (world units).
 * It holds the whole remaining path of one agent, the one the trace request
 * names (the viewer's selection): the snapshot's records carry only the
 * first GC_WORLD_PATH_POINTS.  The daemon republishes it every tick while
 * the request stands (the path shrinks as the agent walks, and changes when
 * it plans again).  seq is a seqlock (odd while the daemon writes; release /
 * acquire); the other fields are relaxed and read inside it.
 */
typedef struct gc_world_path_hdr {
    _Atomic uint64_t seq;
    _Atomic uint64_t tick;       /* tick the path was taken at */
    _Atomic uint32_t agent;      /* whose path, or GC_WORLD_NO_AGENT */
    _Atomic uint32_t agent_salt; /* its gc_world_agent.salt */
    _Atomic uint32_t count;      /* waypoints stored, <= path_capacity */
    _Atomic uint32_t path_len;   /* waypoints the agent has left in all,
                                    >= count (more: the path was cut) */
    uint64_t reserved[4];
} gc_world_path_hdr;

/*
 * The answers section: what became of the commands that asked for an
 * answer (every SPAWN, and any entry with GC_EDIT_F_ANSWER), keyed by the
 * sender's (sender_pid, client_token, queue position).  A ring of
 * answer_capacity slots written only by the daemon, between ticks, in the
 * order it deals with the commands: answer number k goes to slot
 * k % answer_capacity, overwriting the oldest, so a slow reader never
 * holds the daemon up; a reader that finds no answer for its command
 * after edits_applied passed its position knows that it was overwritten.
 *
 * Each slot is a seqlock: seq odd while the daemon writes it (release /
 * acquire), the words relaxed and read inside it.  `written` counts the
 * answers ever written (release, after the slot's seq is even again).
 * The world is read-only to everyone but the daemon, so nobody can forge
 * an answer; every reader can read every answer (the token travels in the
 * queue, which every producer can read too): a token keeps two tools'
 * answers apart, it is not a secret.
 */
typedef struct gc_world_answers_hdr {
    _Atomic uint64_t written;
    uint64_t reserved[7];
} gc_world_answers_hdr;

typedef struct gc_world_answer_slot {
    _Atomic uint64_t seq;
    _Atomic uint64_t position;   /* the command's queue position */
    _Atomic uint64_t token;      /* its client_token */
    _Atomic uint64_t tick;       /* the tick it was dealt with before */
    _Atomic uint32_t sender_pid; /* its sender_pid */
    _Atomic uint32_t op;         /* its op */
    _Atomic int32_t code;        /* 0: applied; else a negative gc_err */
    _Atomic uint32_t reason;     /* refused: gc_edit_reason + 1; else 0 */
    _Atomic uint32_t handle;     /* SPAWN applied: the new agent */
    uint32_t pad;
    uint64_t reserved;
} gc_world_answer_slot;

/* ---- The edit-queue object --------------------------------------------- */

/*
 * Header of /NAME.edits.  The queue is a bounded ring of `capacity` entries
 * (a power of two), after Dmitry Vyukov's bounded MPMC queue, with one
 * consumer: producers (tools, the viewer; any number, any process) claim a
 * position by advancing `tail` with a CAS, fill the entry and publish it
 * through the entry's own `seq`; the daemon consumes at `head`.  head and
 * tail live on their own cache lines.  See gc_queue_entry for the slot
 * protocol and gc_queue_pop for how a dead producer is survived.
 */
typedef struct gc_queue_header {
    _Atomic uint64_t magic;    /* fixed: GC_QUEUE_MAGIC, written last
                                  (release) */
    uint32_t version;          /* fixed: GC_QUEUE_VERSION */
    uint32_t header_size;      /* fixed: sizeof(gc_queue_header) */
    uint64_t total_size;       /* fixed */
    uint32_t capacity;         /* fixed: entries, a power of two */
    uint32_t entry_size;       /* fixed: sizeof(gc_queue_entry) */
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
} gc_queue_header;

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
typedef struct gc_queue_entry {
    _Atomic uint64_t seq;
    _Atomic uint64_t claim_ns; /* CLOCK_MONOTONIC when claimed (relaxed) */
    uint32_t op;               /* operation, defined by the edit work */
    uint32_t type;             /* cell type */
    int32_t x0, y0, x1, y1;    /* cell rectangle or line */
    uint32_t batch;            /* entries of one batch share this */
    uint32_t sender_pid;
    uint64_t client_token; /* chosen by the client, echoed in replies */
    uint64_t check;        /* hash of the position and the fields above
                              and below */
    /* Version 2: agent commands (gc_edit's fields of the same names). */
    uint32_t agent, target, group, flags;
    float px, py, gx, gy, radius, speed, dist;
    uint32_t reserved[5]; /* zero */
} gc_queue_entry;

/* ---- The raw mappings ---------------------------------------------------- */

#pragma GCC visibility push(default)

/* The world's mapping (read-only except on the owner's handle) and its
 * size, for tests and tools that inspect the raw layout. */
const void *gc_world_base(const gc_world *w);
size_t gc_world_size(const gc_world *w);
const gc_world_header *gc_world_hdr(const gc_world *w);

/* Sections, by their validated offsets, with their sizes. */
enum {
    GC_WORLD_SEC_CELLS = 0,
    GC_WORLD_SEC_AGENTS = 1,
    GC_WORLD_SEC_STATS = 2,
    GC_WORLD_SEC_TRACE = 3,
    GC_WORLD_SEC_PATH = 4,
    GC_WORLD_SEC_ANSWERS = 5
};
/* Start of section `which` in the mapping and its size; NULL when `which`
 * is not a section. */
const void *gc_world_section_at(const gc_world *w, int which, size_t *size);

/* The queue object's mapping (read-write), or NULL while it is not mapped
 * (never opened, or gc_queue_reset failed); its size in bytes. */
gc_queue_header *gc_queue_hdr(const gc_queue *q);
size_t gc_queue_size(const gc_queue *q);

#pragma GCC visibility pop

#endif
