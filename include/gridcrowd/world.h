/*
 * gridcrowd/world.h: the shared-memory world, as a handle.
 *
 * The daemon creates two POSIX shared-memory objects: /NAME, the world
 * (cells, agent snapshot, statistics, the trace of one search, the whole
 * path of one agent), written by the daemon alone and mapped read-only by
 * everyone else; and /NAME.edits, the edit queue (queue.h), the one object
 * other processes write.
 *
 * A world is created by gc_world_create (the daemon) and opened by
 * gc_world_attach (everyone else); both give a process-local gc_world handle.
 * Attaching validates the whole layout against the object's real size
 * (fstat) before anything else is read; the handle then keeps its own copy
 * of the validated geometry, so a later change to the shared header cannot
 * make a reader index out of bounds.  Everything a program reads or writes
 * goes through the functions below; the raw layout, with its _Atomic
 * fields, is in the C-only gridcrowd/world-layout.h, so that this header
 * compiles as C and as C++.
 *
 * Returns: a function that can fail returns GC_OK or a negative gc_err.
 * Accessors return the value (from the handle, or read with the ordering
 * their comment gives).  Three functions return a pointer, and NULL from
 * them is an answer, not a failure, each with one meaning that its comment
 * gives: gc_world_queue (no queue on this handle), gc_world_cells and
 * gc_world_agents_begin (not the owner's handle).  Nothing here returns
 * NULL for an error that would need a code.
 */
#ifndef GRIDCROWD_WORLD_H
#define GRIDCROWD_WORLD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include <gridcrowd/common.h>
#include <gridcrowd/agent.h>
#include <gridcrowd/error.h>
#include <gridcrowd/grid.h>
#include <gridcrowd/queue.h>

GC_BEGIN_DECLS

/* ---- Vocabulary shared by the daemon, the tools and the viewer ---------- */

/* Daemon states (gc_world_state). */
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

/* Default object name; the queue is the same name plus GC_QUEUE_SUFFIX. */
#define GC_WORLD_DEFAULT_NAME "gridcrowd"
/* Longest name without the leading '/': NAME_MAX (255) minus the suffix. */
#define GC_WORLD_NAME_MAX 249

#define GC_WORLD_MAX_AGENTS (1u << 20)
#define GC_WORLD_TRACE_MAX (1u << 22)     /* largest trace capacity */
#define GC_WORLD_TRACE_DEFAULT (1u << 20) /* cap of the default capacity */
/* Waypoints in a snapshot record; the whole path of the agent the trace
 * request names is in the path section (gc_world_read_path). */
#define GC_WORLD_PATH_POINTS 8
#define GC_WORLD_PATH_MAX (1u << 22)     /* largest path capacity */
#define GC_WORLD_PATH_DEFAULT (1u << 18) /* cap of the default capacity */
/* Answers to commands (gc_world_answer): slots in the ring. */
#define GC_WORLD_ANSWERS_DEFAULT 4096u
#define GC_WORLD_ANSWERS_MAX (1u << 16)
/* Bounded retries of a reader that keeps seeing a write in progress. */
#define GC_WORLD_READ_ATTEMPTS 1000

/*
 * One agent in the snapshot.  This is the plain form callers use; in shared
 * memory a record is stored as GC_WORLD_AGENT_WORDS relaxed atomic 64-bit
 * words holding exactly these bytes (see gc_world_agent_slot).
 */
typedef struct gc_world_agent {
    uint32_t id;            /* agent index */
    uint32_t salt;          /* names this occupant of the index, so that
                               a stale reference fails cleanly after the
                               agent was removed and its index reused
                               (1 .. GC_AGENT_SALT_MAX) */
    float x, y;             /* position, world units */
    float heading;          /* radians, atan2(dy, dx), world y down */
    float speed;            /* world units per second */
    int32_t goal_x, goal_y; /* goal cell */
    uint32_t path_len;      /* waypoints remaining */
    uint8_t state;          /* GC_AGENT_* */
    uint8_t pad[3];         /* zero */
    gc_vec2 path[GC_WORLD_PATH_POINTS]; /* first min(path_len, 8) remaining
                                           waypoints, world units */
    /* Bodies (avoid ORCA; zeros for path followers, --avoid none): the
     * body radius and the velocity of the last tick, world units and
     * world units per second. */
    float radius;
    float vx, vy;
    uint32_t group;       /* as spawned; 0 for agents the daemon placed */
    uint32_t reserved[2]; /* zero */
} gc_world_agent;

/* The salt is the id's generation: (salt << GC_AGENT_INDEX_BITS) | id is
 * the agent's handle (sim.h). */

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

/* One trace event: a cell index (y * width + x) and a GC_TRACE_* kind. */
typedef struct gc_world_trace_event {
    uint32_t cell;
    uint8_t kind;
    uint8_t pad[3];
} gc_world_trace_event;

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
    uint32_t path_capacity;    /* waypoints of the whole-path section; 0:
                                  min(cells, GC_WORLD_PATH_DEFAULT) (a path
                                  has at most one waypoint a cell) */
    uint32_t edits_capacity;   /* 0: GC_QUEUE_DEFAULT_CAPACITY; power of 2 */
    uint32_t answer_capacity;  /* answer slots; 0: GC_WORLD_ANSWERS_DEFAULT */
    mode_t world_mode;         /* 0: 0600; applied exactly (umask ignored) */
    mode_t edits_mode;         /* 0: 0600 */
    uint32_t claim_timeout_ms; /* 0: 2000; see gc_queue_pop */
    bool set_group;            /* give both objects the group `group`
                                  (fchown, before the modes are applied) */
    gid_t group;
    bool publish_costs;        /* publish cost[] and diag for tools that
                                  search the live cells (gc_world_costs);
                                  false: tools assume the defaults */
    float cost[GC_CELL_NTYPES]; /* the simulation's cost table (gc_grid) */
    gc_diag_rule diag;         /* the simulation's diagonal rule */
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
 * with zeroed cells (all walkable), no snapshot and generation 0.  The
 * queue is made first: a reader that can attach the world can attach its
 * queue too.
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
    GC_WORLD_ATTACH_QUEUE = 1 /* also open the edit queue read-write */
};

/*
 * Attach to an existing world by name (NULL: the default), mapping it
 * read-only: the mapping can never be made writable.  Validates it with
 * gc_world_validate before trusting anything.  With GC_WORLD_ATTACH_QUEUE
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

/*
 * Remove what a dead daemon left under `name` (NULL: the default): /NAME
 * and /NAME.edits, each one that exists, when no live process holds it and
 * it is a gridcrowd object of its kind (or has no magic yet).  *removed
 * (may be NULL) says which went and the pids their headers named.  A live
 * daemon keeps both: GC_EBUSY, naming its pid ("... is held by live process
 * 1234: not removing it"), and nothing is removed.  GC_ENOENT when neither
 * exists; GC_EEXIST for an object that is not ours; GC_EINVAL (bad name),
 * GC_EPERM, GC_ESYS.
 */
int gc_world_clean(const char *name, gc_world_takeover *removed,
                   gc_error *err);

/* Unmap and close; the objects stay.  NULL is allowed. */
void gc_world_close(gc_world *w);

/* The owner's exit: unlink both objects, then close.  On a handle from
 * gc_world_attach it only closes.  NULL is allowed. */
void gc_world_destroy(gc_world *w);

/* ---- Accessors --------------------------------------------------------- */

const char *gc_world_name(const gc_world *w); /* "/NAME" */
bool gc_world_is_owner(const gc_world *w);

/*
 * The world's edit queue: on the owner's handle always, on others only when
 * attached with GC_WORLD_ATTACH_QUEUE; NULL otherwise (every gc_queue_*
 * function takes NULL as "no queue").  It belongs to the handle and ends
 * with it.
 */
gc_queue *gc_world_queue(const gc_world *w);

/* Validated geometry, from the handle (not re-read from shared memory). */
int32_t gc_world_width(const gc_world *w);
int32_t gc_world_height(const gc_world *w);
float gc_world_cell_size(const gc_world *w);
uint32_t gc_world_agent_capacity(const gc_world *w);
uint32_t gc_world_trace_capacity(const gc_world *w);
uint32_t gc_world_path_capacity(const gc_world *w);
pid_t gc_world_pid(const gc_world *w);
/* When the daemon created the world: CLOCK_REALTIME, in nanoseconds. */
uint64_t gc_world_created_ns(const gc_world *w);

/*
 * The daemon's cost table and diagonal rule, as it published them at
 * creation (gc_world_config.publish_costs), so that a tool searching a copy
 * of the cells (query.h) prices them as the simulation does.  Returns true
 * when the daemon published them; false (and the default costs and
 * GC_DIAG_NO_CORNER_CUT) otherwise.  An obstacle is always impassable, and
 * a published cost that is not a passable number reads as INFINITY.  Either
 * pointer may be NULL.
 */
bool gc_world_costs(const gc_world *w, float cost[GC_CELL_NTYPES],
                    gc_diag_rule *diag);

/* Live fields (acquire loads). */
unsigned gc_world_state(const gc_world *w);
uint64_t gc_world_tick(const gc_world *w);
uint64_t gc_world_generation(const gc_world *w);
uint32_t gc_world_agent_count(const gc_world *w);
/*
 * The edit-queue position up to which every entry has been applied or
 * rejected (acquire): a tool that pushed at position p and then sees a
 * value > p also sees the cells its edit changed.  Entries held in an open
 * batch hold it back.  Never decreases.
 */
uint64_t gc_world_edits_applied(const gc_world *w);

/* The daemon's edit counters as last published (relaxed loads: each is
 * current, the three are not one snapshot).  Any pointer may be NULL. */
void gc_world_edit_counts(const gc_world *w, uint64_t *accepted,
                          uint64_t *rejected, uint64_t *pending);

/*
 * Whether the daemon still owns this world: false once the object has been
 * unlinked (destroyed or taken over), or when its pid no longer exists.
 */
bool gc_world_owner_alive(const gc_world *w);

/*
 * Whether any reader has this world attached: each gc_world_attach handle
 * holds a shared lock on the world's object (an open file description
 * lock) from attach to gc_world_close, or to its process's end, however
 * that comes.  Meant for the owner, which publishes the agents' records
 * every tick only while someone may read them (they are 7 to 10% of a
 * tick with 100,000 agents).  True when the system cannot say.
 */
bool gc_world_watched(const gc_world *w);

/* ---- Writing (the daemon) ---------------------------------------------- */
/* All of these return GC_EPERM on a handle from gc_world_attach. */

/* Publish the daemon's state or tick (release). */
int gc_world_set_state(gc_world *w, unsigned state);
int gc_world_set_tick(gc_world *w, uint64_t tick);
/* Publish the edit counters (relaxed). */
int gc_world_set_edit_counts(gc_world *w, uint64_t accepted, uint64_t rejected,
                             uint64_t pending);
/* Publish the queue position up to which every edit has been applied or
 * rejected (gc_world_edits_applied), after the cells (release). */
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

/* Store records first .. first + n - 1 from recs[0 .. n) (relaxed atomic
 * stores; one call for a block of them).  GC_ERANGE when they run past
 * capacity (nothing stored), GC_EINVAL when the snapshot is not open. */
int gc_world_agents_store(gc_world_snap *s, uint32_t first,
                          const gc_world_agent *recs, uint32_t n);

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
int gc_world_trace_publish(gc_world *w, uint32_t agent, uint32_t salt,
                           uint64_t tick, const gc_world_trace_event *ev,
                           size_t n);

/* Record which agent the viewer asked to trace (GC_WORLD_NO_AGENT: none). */
int gc_world_set_trace_request(gc_world *w, uint32_t agent, uint32_t salt);

/*
 * Publish the whole remaining path of `agent` (GC_WORLD_NO_AGENT with n 0:
 * nobody's): the first path_capacity of the n waypoints (world units) are
 * stored, and the path length says n, so a reader can tell a cut path.
 * `pts` may be NULL when n is 0.
 */
int gc_world_path_publish(gc_world *w, uint32_t agent, uint32_t salt,
                          uint64_t tick, const gc_vec2 *pts, size_t n);

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
 * The daemon publishes one every tick while a reader is attached, and four
 * times a second while none is (gc_world_watched, gc_host_publish_due): the
 * first read after attaching may be up to a quarter of a second old.
 */
int gc_world_read_agents(const gc_world *w, gc_world_agent *out, size_t cap,
                         size_t *count, uint64_t *seq);

/* The same, and the tick the snapshot was taken at (the world's tick when
 * the daemon published it; may be NULL) to *tick. */
int gc_world_read_agents_at(const gc_world *w, gc_world_agent *out,
                            size_t cap, size_t *count, uint64_t *seq,
                            uint64_t *tick);

/* Copy the latest statistics (all zero before the first publish). */
int gc_world_read_stats(const gc_world *w, gc_world_stats *out);

/* What a trace copy holds. */
typedef struct gc_world_trace_info {
    uint64_t seq; /* traces published so far (0: none) */
    uint64_t tick;
    uint32_t agent; /* GC_WORLD_NO_AGENT when none */
    uint32_t salt;  /* the traced agent's gc_world_agent.salt */
    size_t count;   /* events copied to out */
    bool truncated; /* the search had more events than were stored or
                       than fitted in out */
} gc_world_trace_info;

/* Copy the latest trace: info, and up to cap events to out (may be NULL
 * when cap is 0). */
int gc_world_read_trace(const gc_world *w, gc_world_trace_info *info,
                        gc_world_trace_event *out, size_t cap);

/* What a path copy holds. */
typedef struct gc_world_path_info {
    uint64_t seq; /* paths published so far (0: none) */
    uint64_t tick;
    uint32_t agent;  /* GC_WORLD_NO_AGENT when none */
    uint32_t salt;   /* the agent's gc_world_agent.salt */
    size_t count;    /* waypoints copied to out */
    size_t path_len; /* waypoints the agent had left in all */
    bool truncated;  /* count < path_len: the section or out was too small */
} gc_world_path_info;

/* Copy the latest whole path: info, and up to cap waypoints to out (may be
 * NULL when cap is 0).  GC_ECORRUPT when the stored count exceeds the
 * capacity or the path length. */
int gc_world_read_path(const gc_world *w, gc_world_path_info *info,
                       gc_vec2 *out, size_t cap);

/* The trace request (relaxed loads). */
void gc_world_trace_request(const gc_world *w, uint32_t *agent,
                            uint32_t *salt);

/* ---- Answers to commands ------------------------------------------------
 *
 * The daemon answers every SPAWN and every entry sent with
 * GC_EDIT_F_ANSWER (edits.h) in a ring of answer slots in the world
 * (world-layout.h has the protocol), keyed by the sender's pid, its
 * client_token and the entry's queue position.  The ring overwrites its
 * oldest answers: a reader that waited too long finds its answer gone.
 */
typedef struct gc_world_answer {
    uint64_t position;   /* the command's queue position */
    uint64_t token;      /* its client_token */
    uint64_t tick;       /* the tick it was dealt with before */
    uint32_t sender_pid; /* its sender */
    uint32_t op;         /* its GC_EDIT_* op */
    int32_t code;        /* GC_OK: applied; else why not (gc_err) */
    int32_t reason;      /* refused: a gc_edit_reason; -1 when applied */
    uint32_t handle;     /* SPAWN applied: the new agent's handle */
} gc_world_answer;

/* Answer slots (the world's answer_capacity). */
uint32_t gc_world_answer_capacity(const gc_world *w);

/* Write one answer into the next slot (owner only, between ticks).
 * GC_EPERM on a reader's handle. */
int gc_world_answer_publish(gc_world *w, const gc_world_answer *a);

/*
 * Find the answer to the command (sender_pid, token, position) and copy
 * it to *out.  GC_OK; GC_EAGAIN when there is none (not answered yet, or,
 * once gc_world_edits_applied has passed the position, overwritten: the
 * caller tells which); GC_EBUSY when slots kept changing under the reader.
 * Reads every slot: a few hundred kilobytes at most.
 */
int gc_world_find_answer(const gc_world *w, uint32_t sender_pid,
                         uint64_t token, uint64_t position,
                         gc_world_answer *out);

GC_END_DECLS
#endif
