/*
 * ctl.h: what gridcrowd-ctl's files share.
 *
 *   gridcrowd-ctl.c  main, global options, attaching, the command table
 *   ctl-read.c       status, agents, cells, clean: reading the world
 *   ctl-edit.c       set, rect, line, trace, sync: one edit, sending, waiting
 *   ctl-batch.c      apply and batch: many edits as one batch
 *   ctl-agent.c      spawn, remove, goal, follow, speed, radius
 *
 * Every command is `int cmd_x(const char *cmd, int n, char **args,
 * cmd_opts *o)`: the command's name, its positional arguments, its options;
 * it returns an exit code (EX_*) and prints its own message (prog.h) on
 * failure.
 */
#ifndef GRIDCROWD_CTL_H
#define GRIDCROWD_CTL_H

#include <gridcrowd/edit-client.h>
#include <gridcrowd/edits.h>
#include <gridcrowd/world.h>

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "prog.h"

/* Exit codes, as documented in --help and README.md. */
enum {
    EX_OK = 0,
    EX_NODAEMON = 1, /* no world by that name, or its daemon is gone */
    EX_USAGE = 2,    /* bad arguments, unreadable or malformed files */
    EX_REFUSED = 3,  /* bad magic, version or layout; permission denied */
    EX_REJECTED = 4, /* an edit refused here: off the map, unknown type... */
    EX_TIMEOUT = 5,  /* queue full, sync timed out, entry dropped */
    EX_FAILED = 6    /* anything else: system error, out of memory */
};

#define PROG "gridcrowd-ctl"
#define NS_PER_S 1000000000.0

/* Global settings (gridcrowd-ctl.c), set by main before any command. */
extern const char *shm_name; /* NULL: GC_WORLD_DEFAULT_NAME */
extern double timeout_s;

/* Options a command may take after its name. */
enum { O_JSON = 1, O_CSV = 2, O_SYNC = 4, O_EACH = 8, O_TIMEOUT = 16 };

typedef struct cmd_opts {
    bool json, csv, sync, each;
} cmd_opts;

typedef int (*cmd_fn)(const char *cmd, int n, char **args, cmd_opts *o);

/* ---- gridcrowd-ctl.c ---------------------------------------------------- */

/* --timeout in nanoseconds. */
uint64_t timeout_ns(void);

/* Why a read of an attached world failed, for messages. */
const char *read_why(int r);

/* Attach to the world (and its queue when `edits`); for editing, also
 * insist that its daemon is alive and not stopping.  EX_OK or the exit
 * code, message printed; on failure *w is NULL (nothing to close). */
int attach(gc_world **w, bool edits, const char *what);

/* A coordinate: an integer, clamped to int32 (so that it stays off any
 * map).  False when it is not an integer. */
bool parse_coord(const char *s, int32_t *out);

/* ---- ctl-edit.c --------------------------------------------------------- */

/* Parse "X Y TYPE" (SET) or "X0 Y0 X1 Y1 TYPE" (RECT, LINE) into e.
 * Syntax errors return EX_USAGE, an unknown type EX_REJECTED, with the
 * message in msg. */
int build_edit(uint32_t op, int n, char **args, gc_edit *e, char *msg,
               size_t msgsz);

/* Check e against the world's size with the daemon's rules; on failure a
 * message saying which cell or limit in msg and EX_REJECTED. */
int check_edit(const gc_edit *e, int32_t w, int32_t h, char *msg, size_t msgsz);

/* Send n checked edits: one batch unless `each`, then wait when `sync`.
 * Returns the exit code, message printed. */
int send_all(gc_world *w, gc_edit *ed, size_t n, bool each, bool sync,
             const char *what);

/* The command and its arguments as one line ("set 1 2 wall"), cut to fit
 * `size`, for the `what` of messages. */
void join_args(char *buf, size_t size, const char *cmd, int n, char **args);

/* Say why pushing to the world's edit queue failed (gc_queue_push's
 * GC_EFULL, GC_ETIMEOUT: the claim timed out, GC_ECORRUPT, or any other
 * code); returns the exit code. */
int push_error(gc_world *w, int rc, const char *what);

/* Wait until the daemon has dealt with every queue position below `upto`,
 * then print the grid generation.  Returns the exit code. */
int wait_applied(gc_world *w, uint64_t upto, const char *what);

int cmd_edit(const char *cmd, int n, char **args, cmd_opts *o);
int cmd_trace(const char *cmd, int n, char **args, cmd_opts *o);
int cmd_sync(const char *cmd, int n, char **args, cmd_opts *o);

/* ---- ctl-batch.c -------------------------------------------------------- */

int cmd_apply(const char *cmd, int n, char **args, cmd_opts *o);
int cmd_batch(const char *cmd, int n, char **args, cmd_opts *o);

/* ---- ctl-agent.c -------------------------------------------------------- */

/* Whether `name` is an agent command (spawn, remove, goal, follow, speed,
 * radius). */
bool is_agent_command(const char *name);

/* Parse an agent command's arguments (options anywhere: --sync, --json,
 * and the command's own) into e; *flags gets O_SYNC and O_JSON.  EX_OK,
 * or EX_USAGE with the message in msg. */
int build_agent_edit(const char *name, int n, char **args, gc_edit *e,
                     unsigned *flags, char *msg, size_t msgsz);

/* Run an agent command (o may be NULL: it parses its own options). */
int cmd_agent(const char *cmd, int n, char **args, cmd_opts *o);

/* ---- ctl-read.c --------------------------------------------------------- */

int cmd_status(const char *cmd, int n, char **args, cmd_opts *o);
int cmd_agents(const char *cmd, int n, char **args, cmd_opts *o);
int cmd_cells(const char *cmd, int n, char **args, cmd_opts *o);
int cmd_clean(const char *cmd, int n, char **args, cmd_opts *o);

#endif
