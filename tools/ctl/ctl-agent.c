/*
 * ctl-agent.c: gridcrowd-ctl's agent commands: spawn, remove, goal,
 * follow, speed, radius.
 *
 *   spawn X Y [--goal X Y] [--radius R] [--speed V] [--group G]
 *   remove H
 *   goal H X Y | goal H wander | goal H stop
 *   follow H TARGET [--distance D]
 *   speed H V
 *   radius H R
 *
 * Positions and lengths are world units (floats), handles as `spawn`
 * prints them (decimal, or 0x hex).  A command is built here, checked
 * with the daemon's own rules (gc_edit_check: a NaN, a negative speed...
 * exit 4 before anything is sent), and sent through the library's agent
 * client (edit-client.h).  spawn always waits for its answer and prints
 * the new handle; the others wait only with --sync and then print
 * "applied", or fail with "refused: REASON" and exit 4.  Batch files take
 * the same lines (build_agent_edit).
 */
#include "config.h"

#include <gridcrowd/edit-client.h>
#include <gridcrowd/edits.h>
#include <gridcrowd/world.h>

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ctl.h"

bool
is_agent_command(const char *name)
{
    static const char *const names[] = {"spawn",  "remove", "goal",
                                        "follow", "speed",  "radius"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (strcmp(name, names[i]) == 0)
            return true;
    return false;
}

static bool
parse_float(const char *s, float *out)
{
    char *end;
    errno = 0;
    float v = strtof(s, &end);
    if (end == s || *end != '\0' || errno == ERANGE)
        return false;
    *out = v;
    return true;
}

static bool
parse_handle(const char *s, uint32_t *out)
{
    char *end;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 0);
    if (end == s || *end != '\0' || errno == ERANGE || v > UINT32_MAX ||
        s[0] == '-')
        return false;
    *out = (uint32_t)v;
    return true;
}

/* Take a float option's value from args[*i + 1]. */
static bool
opt_float(int n, char **args, int *i, float *out, const char *opt, char *msg,
          size_t msgsz)
{
    if (*i + 1 >= n || !parse_float(args[*i + 1], out)) {
        snprintf(msg, msgsz, "%s needs a number, got '%s'", opt,
                 *i + 1 < n ? args[*i + 1] : "nothing");
        return false;
    }
    (*i)++;
    return true;
}

/* See ctl.h. */
int
build_agent_edit(const char *name, int n, char **args, gc_edit *e,
                 unsigned *flags, char *msg, size_t msgsz)
{
    memset(e, 0, sizeof *e);
    *flags = 0;
    /* Options first: --sync, --json, and each command's own. */
    char *pos[16];
    int np = 0;
    for (int i = 0; i < n; i++) {
        const char *a = args[i];
        if (strcmp(a, "--sync") == 0) {
            *flags |= O_SYNC;
        } else if (strcmp(a, "--json") == 0) {
            *flags |= O_JSON;
        } else if (strcmp(name, "spawn") == 0 && strcmp(a, "--goal") == 0) {
            if (!opt_float(n, args, &i, &e->gx, a, msg, msgsz) ||
                !opt_float(n, args, &i, &e->gy, a, msg, msgsz))
                return EX_USAGE;
            e->flags |= GC_EDIT_F_GOAL;
        } else if (strcmp(name, "spawn") == 0 && strcmp(a, "--radius") == 0) {
            if (!opt_float(n, args, &i, &e->radius, a, msg, msgsz))
                return EX_USAGE;
        } else if (strcmp(name, "spawn") == 0 && strcmp(a, "--speed") == 0) {
            if (!opt_float(n, args, &i, &e->speed, a, msg, msgsz))
                return EX_USAGE;
        } else if (strcmp(name, "spawn") == 0 && strcmp(a, "--group") == 0) {
            /* A label, decimal (unlike a handle, never hex: "010" is
             * ten). */
            unsigned long long g;
            if (i + 1 >= n || !prog_count(args[i + 1], UINT32_MAX, &g)) {
                snprintf(msg, msgsz,
                         "--group needs a whole number from 0 to %" PRIu32
                         ", got '%s'",
                         UINT32_MAX, i + 1 < n ? args[i + 1] : "nothing");
                return EX_USAGE;
            }
            e->group = (uint32_t)g;
            i++;
        } else if (strcmp(name, "follow") == 0 &&
                   strcmp(a, "--distance") == 0) {
            if (!opt_float(n, args, &i, &e->dist, a, msg, msgsz))
                return EX_USAGE;
        } else if (strncmp(a, "--", 2) == 0 && a[2] != '\0' &&
                   !(a[2] >= '0' && a[2] <= '9')) {
            snprintf(msg, msgsz, "unknown option '%s' (see --help)", a);
            return EX_USAGE;
        } else if (np < 16) {
            pos[np++] = args[i];
        } else {
            snprintf(msg, msgsz, "too many arguments");
            return EX_USAGE;
        }
    }
    const char *usage = NULL;
    if (strcmp(name, "spawn") == 0) {
        e->op = GC_EDIT_SPAWN;
        if (np != 2 || !parse_float(pos[0], &e->px) ||
            !parse_float(pos[1], &e->py))
            usage = "X Y (world units)";
    } else {
        if (np < 1 || !parse_handle(pos[0], &e->agent)) {
            snprintf(msg, msgsz, "expected an agent handle first, got '%s'",
                     np > 0 ? pos[0] : "nothing");
            return EX_USAGE;
        }
        if (strcmp(name, "remove") == 0) {
            e->op = GC_EDIT_REMOVE;
            if (np != 1)
                usage = "H";
        } else if (strcmp(name, "goal") == 0) {
            e->op = GC_EDIT_GOAL;
            if (np == 2 && strcmp(pos[1], "wander") == 0) {
                e->type = GC_EDIT_GOAL_WANDER;
            } else if (np == 2 && strcmp(pos[1], "stop") == 0) {
                e->type = GC_EDIT_GOAL_STOP;
            } else {
                e->type = GC_EDIT_GOAL_POINT;
                if (np != 3 || !parse_float(pos[1], &e->px) ||
                    !parse_float(pos[2], &e->py))
                    usage = "H X Y, H wander or H stop";
            }
        } else if (strcmp(name, "follow") == 0) {
            e->op = GC_EDIT_GOAL;
            e->type = GC_EDIT_GOAL_FOLLOW;
            if (np != 2 || !parse_handle(pos[1], &e->target))
                usage = "H TARGET [--distance D]";
        } else if (strcmp(name, "speed") == 0) {
            e->op = GC_EDIT_SPEED;
            if (np != 2 || !parse_float(pos[1], &e->speed))
                usage = "H V (world units per second)";
        } else {
            e->op = GC_EDIT_RADIUS;
            if (np != 2 || !parse_float(pos[1], &e->radius))
                usage = "H R (world units)";
        }
    }
    if (usage != NULL) {
        snprintf(msg, msgsz, "expected %s", usage);
        return EX_USAGE;
    }
    return EX_OK;
}

/* Why a command got no answer, as an exit code with its message: what
 * waiting for the answer can add to the push's own errors (push_error).
 * GC_ETIMEOUT is the answer's here, as gc_edit_command gives it for both. */
static int
transport_error(gc_world *w, int rc, const char *what)
{
    switch (rc) {
    case GC_ETIMEOUT:
        return prog_fail(EX_TIMEOUT, what, "no answer within %g s", timeout_s);
    case GC_ENOENT:
        return prog_fail(EX_NODAEMON, what, "the daemon (pid %ld) went away",
                         (long)gc_world_pid(w));
    case GC_EAGAIN:
        return prog_fail(EX_TIMEOUT, what,
                         "the answer was lost: more than %u answers came "
                         "after it before it was read; its fate is unknown",
                         gc_world_answer_capacity(w));
    }
    return push_error(w, rc, what);
}

int
cmd_agent(const char *cmd, int n, char **args, cmd_opts *o)
{
    (void)o;
    char what[256], msg[256];
    join_args(what, sizeof what, cmd, n, args);
    gc_edit e;
    unsigned flags;
    int rc = build_agent_edit(cmd, n, args, &e, &flags, msg, sizeof msg);
    if (rc != EX_OK)
        return prog_fail(rc, cmd, "%s", msg);
    gc_world *w;
    if ((rc = attach(&w, true, what)) != EX_OK)
        return rc;
    /* The daemon's own check first: a clear message, nothing sent. */
    const char *reason;
    if (gc_edit_check(&e, gc_world_width(w), gc_world_height(w), &reason) !=
        GC_OK) {
        gc_world_close(w);
        return prog_fail(EX_REJECTED, what, "refused: %s", reason);
    }
    bool json = (flags & O_JSON) != 0;
    bool wait = e.op == GC_EDIT_SPAWN || (flags & O_SYNC) != 0;
    gc_world_answer ans;
    memset(&ans, 0, sizeof ans);
    ans.reason = -2; /* no answer read */
    int r = gc_edit_command(w, &e, timeout_ns(), wait ? &ans : NULL);
    if (ans.reason >= 0) {
        const char *why = gc_edit_reason_name(ans.reason);
        if (json)
            printf("{\"applied\": false, \"reason\": \"%s\", \"code\": "
                   "\"%s\"}\n",
                   why ? why : "unknown", gc_err_name(ans.code));
        /* A spawn's answer does not say which point it refused: the
         * library finds out from the map. */
        char detail[256];
        if (e.op == GC_EDIT_SPAWN) {
            gc_spawn_spec sp = {.x = e.px,
                                .y = e.py,
                                .has_goal = (e.flags & GC_EDIT_F_GOAL) != 0,
                                .goal_x = e.gx,
                                .goal_y = e.gy};
            gc_edit_spawn_why(w, &sp, ans.code, detail, sizeof detail);
        } else {
            snprintf(detail, sizeof detail, "%s", gc_strerror(ans.code));
        }
        rc = prog_fail(EX_REJECTED, what, "refused: %s (%s)",
                       why ? why : "unknown", detail);
    } else if (r != GC_OK) {
        rc = transport_error(w, r, what);
    } else if (e.op == GC_EDIT_SPAWN) {
        if (json)
            printf("{\"handle\": %" PRIu32 ", \"slot\": %" PRIu32
                   ", \"salt\": %" PRIu32 ", \"tick\": %" PRIu64 "}\n",
                   ans.handle, gc_agent_handle_index(ans.handle),
                   gc_agent_handle_salt(ans.handle), ans.tick);
        else
            printf("%" PRIu32 "\n", ans.handle);
    } else if (wait) {
        if (json)
            printf("{\"applied\": true, \"tick\": %" PRIu64 "}\n", ans.tick);
        else
            printf("applied\n");
    }
    if (fflush(stdout) != 0 && rc == EX_OK)
        rc = prog_fail(EX_FAILED, what, "writing the output: %s",
                       strerror(errno));
    gc_world_close(w);
    return rc;
}
