/*
 * ctl-edit.c: gridcrowd-ctl's edits one by one (set, rect, line, trace)
 * and waiting for them (sync, --sync): building an edit from the command
 * line, checking it with the daemon's rules, sending it through the
 * library's edit client and turning its results into messages and exit
 * codes.
 */
#include "config.h"

#include <gridcrowd/edit-client.h>
#include <gridcrowd/edits.h>
#include <gridcrowd/world.h>

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ctl.h"

/* See ctl.h. */
int
build_edit(uint32_t op, int n, char **args, gc_edit *e, char *msg, size_t msgsz)
{
    int need = op == GC_EDIT_SET ? 3 : 5;
    if (n != need) {
        snprintf(msg, msgsz, "expected %s, got %d argument%s",
                 op == GC_EDIT_SET ? "X Y TYPE" : "X0 Y0 X1 Y1 TYPE", n,
                 n == 1 ? "" : "s");
        return EX_USAGE;
    }
    int32_t c[4] = {0};
    for (int i = 0; i < need - 1; i++)
        if (!parse_coord(args[i], &c[i])) {
            snprintf(msg, msgsz, "coordinate '%s' is not an integer", args[i]);
            return EX_USAGE;
        }
    int type = gc_cell_type_parse(args[need - 1]);
    if (type < 0) {
        snprintf(msg, msgsz,
                 "unknown cell type '%s' (use walkable, obstacle, high, "
                 "low, or a map glyph: . G @ O T W S R)",
                 args[need - 1]);
        return EX_REJECTED;
    }
    memset(e, 0, sizeof *e);
    e->op = op;
    e->type = (uint32_t)type;
    e->x0 = c[0];
    e->y0 = c[1];
    if (op != GC_EDIT_SET) {
        e->x1 = c[2];
        e->y1 = c[3];
    }
    return EX_OK;
}

static bool
on_map(int32_t x, int32_t y, int32_t w, int32_t h)
{
    return x >= 0 && y >= 0 && x < w && y < h;
}

/* See ctl.h. */
int
check_edit(const gc_edit *e, int32_t w, int32_t h, char *msg, size_t msgsz)
{
    const char *reason;
    int rc = gc_edit_check(e, w, h, &reason);
    if (rc == GC_OK)
        return EX_OK;
    if (rc == GC_EOUTSIDE) {
        int32_t x = e->x0, y = e->y0;
        if (on_map(x, y, w, h))
            x = e->x1, y = e->y1;
        snprintf(msg, msgsz,
                 "cell (%" PRId32 ", %" PRId32 ") is outside the %" PRId32
                 "x%" PRId32 " map (x 0..%" PRId32 ", y 0..%" PRId32 ")",
                 x, y, w, h, w - 1, h - 1);
    } else if (rc == GC_ETOOBIG) {
        snprintf(msg, msgsz,
                 "%" PRIu64 " cells is more than one edit may change (%zu)",
                 gc_edit_cell_count(e), (size_t)GC_EDIT_MAX_CELLS);
    } else {
        snprintf(msg, msgsz, "edit refused: %s", reason);
    }
    return EX_REJECTED;
}

/* "set 1 2 wall": the command line of an edit, for messages. */
void
join_args(char *buf, size_t size, const char *cmd, int n, char **args)
{
    size_t len = (size_t)snprintf(buf, size, "%s", cmd);
    for (int i = 0; i < n && len < size; i++)
        len += (size_t)snprintf(buf + len, size - len, " %s", args[i]);
}

/* ---- Sending and waiting ------------------------------------------------- */

/* Say why pushing an edit failed; return the exit code.  ctl-agent.c's
 * commands end here too for the errors of the push itself. */
int
push_error(gc_world *w, int rc, const char *what)
{
    switch (rc) {
    case GC_EFULL:
        return prog_fail(EX_TIMEOUT, what,
                         "edit queue %s stayed full for %g s; is the daemon "
                         "running?",
                         gc_queue_name(gc_world_queue(w)), timeout_s);
    case GC_ETIMEOUT:
        return prog_fail(
            EX_TIMEOUT, what,
            "the daemon dropped the edit: this process took longer "
            "than the queue's claim timeout to write it");
    case GC_ECORRUPT:
        return prog_fail(EX_REFUSED, what, "edit queue %s is corrupt",
                         gc_queue_name(gc_world_queue(w)));
    }
    return prog_fail(EX_FAILED, what, "%s", gc_strerror(rc));
}

/*
 * Wait until the daemon has dealt with every queue position below `upto`
 * (gc_edit_wait), then print the grid generation.  EX_TIMEOUT after the
 * timeout, EX_NODAEMON if the daemon goes away meanwhile.
 */
int
wait_applied(gc_world *w, uint64_t upto, const char *what)
{
    int rc = gc_edit_wait(w, upto, timeout_ns());
    switch (rc) {
    case GC_OK:
        printf("%" PRIu64 "\n", gc_world_generation(w));
        return fflush(stdout) == 0
                   ? EX_OK
                   : prog_fail(EX_FAILED, what, "%s", strerror(errno));
    case GC_ETIMEOUT:
        return prog_fail(EX_TIMEOUT, what,
                         "timed out after %g s: the daemon has applied edits "
                         "up to queue position %" PRIu64
                         ", waiting for %" PRIu64,
                         timeout_s, gc_world_edits_applied(w), upto);
    case GC_ENOENT:
        return prog_fail(EX_NODAEMON, what,
                         "the daemon (pid %ld) went away before applying the "
                         "edits",
                         (long)gc_world_pid(w));
    }
    return prog_fail(EX_FAILED, what, "%s", gc_strerror(rc));
}

/* After an --each send that timed out: how far it got. */
static void
say_progress(gc_world *w, const gc_edit *ed, size_t sent, size_t n,
             const char *what)
{
    prog_say(what, "%zu of %zu edits sent, %zu of them applied", sent, n,
             gc_edit_count_applied(w, ed, sent));
}

/*
 * Send n checked edits (gc_edit_send): one batch unless `each`, then wait
 * when `sync`.  A batch is all or nothing: if sending stops halfway, the
 * daemon drops what it got after its batch timeout.
 */
int
send_all(gc_world *w, gc_edit *ed, size_t n, bool each, bool sync,
         const char *what)
{
    gc_edit_sent sent;
    int rc = gc_edit_send(gc_world_queue(w), ed, n,
                          each ? GC_EDIT_SEND_EACH : 0, timeout_ns(), &sent);
    if (rc != GC_OK) {
        int ex = push_error(w, rc, what);
        if (sent.batch != 0 && ex == EX_TIMEOUT && sent.sent > 0 &&
            sent.sent < n)
            prog_say(what, "the batch was not completed, so none of it will "
                           "be applied");
        else if (sent.batch == 0 && n > 1 && ex == EX_TIMEOUT)
            say_progress(w, ed, sent.sent, n, what);
        return ex;
    }
    if (!sync)
        return EX_OK;
    /* Nothing sent: nothing to wait for, but say where the grid is. */
    int ex = wait_applied(w, sent.wait_for, what);
    if (ex == EX_TIMEOUT && sent.batch == 0 && n > 1)
        say_progress(w, ed, sent.sent, n, what);
    return ex;
}

/* set, rect, line. */
int
cmd_edit(const char *cmd, int n, char **args, cmd_opts *o)
{
    uint32_t op = strcmp(cmd, "set") == 0    ? GC_EDIT_SET
                  : strcmp(cmd, "rect") == 0 ? GC_EDIT_RECT
                                             : GC_EDIT_LINE;
    char what[256], msg[256];
    join_args(what, sizeof what, cmd, n, args);
    gc_edit e;
    int rc = build_edit(op, n, args, &e, msg, sizeof msg);
    if (rc != EX_OK)
        return prog_fail(rc, what, "%s", msg);
    gc_world *w;
    if ((rc = attach(&w, true, what)) != EX_OK)
        return rc;
    rc = check_edit(&e, gc_world_width(w), gc_world_height(w), msg, sizeof msg);
    if (rc != EX_OK)
        rc = prog_fail(rc, what, "%s", msg);
    else
        rc = send_all(w, &e, 1, true, o->sync, what);
    gc_world_close(w);
    return rc;
}

int
cmd_trace(const char *cmd, int n, char **args, cmd_opts *o)
{
    char what[256];
    join_args(what, sizeof what, cmd, n, args);
    uint32_t agent = GC_WORLD_NO_AGENT;
    if (strcmp(args[0], "none") != 0) {
        int32_t v;
        if (!parse_coord(args[0], &v))
            return prog_fail(EX_USAGE, what,
                             "expected an agent number or 'none', got '%s'",
                             args[0]);
        if (v < 0)
            return prog_fail(EX_REJECTED, what, "agent %s does not exist",
                             args[0]);
        agent = (uint32_t)v;
    }
    gc_world *w;
    int rc = attach(&w, true, what);
    if (rc != EX_OK)
        return rc;
    uint32_t cap = gc_world_agent_capacity(w), salt = 0;
    if (agent != GC_WORLD_NO_AGENT && agent >= cap) {
        gc_world_close(w);
        /* (args[0] as given: parse_coord clamps what int32 cannot hold) */
        return prog_fail(EX_REJECTED, what,
                         "agent %s does not exist (the world has %" PRIu32
                         " agent slots)",
                         args[0], cap);
    }
    if (agent != GC_WORLD_NO_AGENT) {
        /* Trace the agent now in that slot: its salt. */
        gc_world_agent *ag = calloc(cap, sizeof *ag);
        size_t count = 0;
        if (ag != NULL &&
            gc_world_read_agents(w, ag, cap, &count, NULL) == GC_OK)
            for (size_t i = 0; i < count; i++)
                if (ag[i].id == agent)
                    salt = ag[i].salt;
        free(ag);
    }
    gc_edit e = {
        .op = GC_EDIT_TRACE, .x0 = (int32_t)agent, .y0 = (int32_t)salt};
    rc = send_all(w, &e, 1, true, o->sync, what);
    gc_world_close(w);
    return rc;
}

int
cmd_sync(const char *cmd, int n, char **args, cmd_opts *o)
{
    gc_world *w;
    int rc = attach(&w, true, cmd);
    if (rc != EX_OK)
        return rc;
    rc = wait_applied(w, gc_queue_tail(gc_world_queue(w)), cmd);
    gc_world_close(w);
    return rc;
}
