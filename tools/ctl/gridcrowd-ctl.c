/*
 * gridcrowd-ctl.c: look at a running gridcrowd daemon and edit its grid.
 *
 *   gridcrowd-ctl [--shm NAME] [--timeout S] COMMAND [ARGS]
 *
 * A thin program over libgridcrowd: it attaches to the world (read-only,
 * plus the edit queue for the commands that edit), reads the header, the
 * statistics, the agent snapshot and the cells through the library's
 * torn-read-safe copies, and puts edits on the queue.  It never writes the
 * world.  Every edit is checked here first with the daemon's own rules
 * (gc_edit_check) so that a mistake gets a clear message and exit code 4
 * instead of a silent rejection; the daemon checks again anyway.
 *
 * Sending and waiting are the library's (gridcrowd/edit-client.h): batches,
 * waiting until the daemon applied the edits, diffing a map; this file only
 * turns their results into messages and exit codes.  An edit command with
 * --sync waits until the world's edits_applied passes the position of the
 * command's last entry; `sync` waits until it reaches the queue's tail as
 * it was when sync started, i.e. for every edit anyone queued before.
 *
 * Options after the command are parsed here rather than by getopt_long,
 * because coordinates may be negative ("set -1 0 wall" must say "outside
 * the map", not "unknown option -1"): an argument is an option only when it
 * starts with "--".
 */
#include "config.h"

#include "ctl-path.h"

#include <gridcrowd/agent.h>
#include <gridcrowd/edit-client.h>
#include <gridcrowd/edits.h>
#include <gridcrowd/mapio.h>
#include <gridcrowd/version.h>
#include <gridcrowd/world.h>

#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

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

/* Global settings. */
static const char *shm_name; /* NULL: GC_WORLD_DEFAULT_NAME */
static double timeout_s = 10;

/* Print "gridcrowd-ctl: what: why" and return `code`. */
static int fail(int code, const char *what, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

static int
fail(int code, const char *what, const char *fmt, ...)
{
    va_list ap;
    fflush(stdout);
    fprintf(stderr, "%s: ", PROG);
    if (what != NULL && what[0] != '\0')
        fprintf(stderr, "%s: ", what);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    return code;
}

static uint64_t
timeout_ns(void)
{
    return (uint64_t)(timeout_s * NS_PER_S);
}

/* Why a read of an attached world failed, for messages. */
static const char *
read_why(int r)
{
    switch (r) {
    case GC_EBUSY:
        return "it was being written every time it was read (gave up after "
               "1000 tries; is its daemon stuck halfway through a write?)";
    case GC_ECORRUPT:
        return "a count in it exceeds its capacity: the world is corrupt";
    }
    return gc_strerror(r);
}

/*
 * SIGBUS: another process shrank an object while this one had it mapped.
 * Only the queue can be (anyone allowed to edit can resize it; the daemon
 * then makes a new one), so say that and leave with the "refused" code
 * instead of dying of the signal.  write(2) and _exit are safe here.
 */
static void
on_sigbus(int sig)
{
    static const char m[] =
        PROG ": the edit queue was resized by another process while in use "
             "(the daemon makes a new one: try again)\n";
    (void)sig;
    ssize_t n = write(STDERR_FILENO, m, sizeof m - 1);
    (void)n;
    _exit(EX_REFUSED);
}

/* ---- Attaching ----------------------------------------------------------- */

/* Exit code for a gc_world_attach error. */
static int
attach_exit(int rc)
{
    switch (rc) {
    case GC_ENOENT:
        return EX_NODAEMON;
    case GC_EPERM:
    case GC_EBADMAGIC:
    case GC_EVERSION:
    case GC_ECORRUPT:
        return EX_REFUSED;
    case GC_EINVAL:
        return EX_USAGE;
    }
    return EX_FAILED;
}

/* Attach to the world (and its queue when `edits`); for editing, also
 * insist that its daemon is alive and not stopping. */
static int
attach(gc_world **w, bool edits, const char *what)
{
    gc_error err;
    int rc =
        gc_world_attach(w, shm_name, edits ? GC_WORLD_ATTACH_QUEUE : 0, &err);
    if (rc != GC_OK)
        return fail(attach_exit(rc), what, "%s", err.msg);
    if (edits) {
        if (!gc_world_owner_alive(*w)) {
            rc = fail(EX_NODAEMON, what,
                      "no daemon: %s was left by pid %ld, which is gone",
                      gc_world_name(*w), (long)gc_world_pid(*w));
            gc_world_close(*w);
            return rc;
        }
        if (gc_world_state(*w) == GC_WORLD_STOPPING) {
            rc = fail(EX_NODAEMON, what, "the daemon (pid %ld) is stopping",
                      (long)gc_world_pid(*w));
            gc_world_close(*w);
            return rc;
        }
    }
    return EX_OK;
}

/* ---- Arguments ----------------------------------------------------------- */

/* Options a command may take after its name. */
enum { O_JSON = 1, O_CSV = 2, O_SYNC = 4, O_EACH = 8, O_TIMEOUT = 16 };

typedef struct cmd_opts {
    bool json, csv, sync, each;
} cmd_opts;

static bool
parse_seconds(const char *s, double *out)
{
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (errno != 0 || end == s || *end != '\0' || !isfinite(v) || v < 0 ||
        v > 1e6)
        return false;
    *out = v;
    return true;
}

/*
 * Split argv (after the command name) into options and positional
 * arguments.  Only arguments starting with "--" are options ("--" ends
 * them); anything else, "-1" included, is positional.
 */
static int
parse_args(const char *cmd, unsigned allowed, int argc, char **argv,
           cmd_opts *o, char **pos, int *npos)
{
    static const struct {
        const char *name;
        unsigned flag;
    } names[] = {{"json", O_JSON},
                 {"csv", O_CSV},
                 {"sync", O_SYNC},
                 {"each", O_EACH},
                 {"timeout", O_TIMEOUT}};
    bool opts_done = false;
    *npos = 0;
    memset(o, 0, sizeof *o);
    for (int i = 0; i < argc; i++) {
        const char *a = argv[i];
        if (opts_done || strncmp(a, "--", 2) != 0) {
            pos[(*npos)++] = argv[i];
            continue;
        }
        if (a[2] == '\0') {
            opts_done = true;
            continue;
        }
        const char *name = a + 2, *eq = strchr(name, '=');
        size_t len = eq ? (size_t)(eq - name) : strlen(name);
        unsigned flag = 0;
        for (size_t k = 0; k < sizeof names / sizeof names[0]; k++)
            if (strlen(names[k].name) == len &&
                strncmp(names[k].name, name, len) == 0)
                flag = names[k].flag;
        if (flag == 0 || !(allowed & flag))
            return fail(EX_USAGE, cmd, "unknown option '%s' (see --help)", a);
        if (flag == O_TIMEOUT) {
            const char *v = eq ? eq + 1 : (i + 1 < argc ? argv[++i] : NULL);
            if (v == NULL || !parse_seconds(v, &timeout_s))
                return fail(EX_USAGE, cmd,
                            "--timeout needs a number of seconds, got '%s'",
                            v ? v : "nothing");
            continue;
        }
        if (eq != NULL)
            return fail(EX_USAGE, cmd, "option '--%.*s' takes no value",
                        (int)len, name);
        o->json |= flag == O_JSON;
        o->csv |= flag == O_CSV;
        o->sync |= flag == O_SYNC;
        o->each |= flag == O_EACH;
    }
    if (o->json && o->csv)
        return fail(EX_USAGE, cmd, "--json and --csv cannot be combined");
    return EX_OK;
}

/*
 * A coordinate: an integer.  Values past int32 are clamped, which keeps
 * them off any map, so that they are reported as outside it.
 */
static bool
parse_coord(const char *s, int32_t *out)
{
    char *end;
    errno = 0;
    long long v = strtoll(s, &end, 10);
    if (end == s || *end != '\0')
        return false;
    if (errno == ERANGE || v > INT32_MAX)
        v = v < 0 ? INT32_MIN : INT32_MAX;
    else if (v < INT32_MIN)
        v = INT32_MIN;
    *out = (int32_t)v;
    return true;
}

/* ---- Building and checking edits ----------------------------------------- */

/* Parse "X Y TYPE" (SET) or "X0 Y0 X1 Y1 TYPE" (RECT, LINE) into e.
 * Syntax errors return EX_USAGE, an unknown type EX_REJECTED, with the
 * message in msg. */
static int
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

/* Check e against the world's size with the daemon's rules; on failure a
 * message saying which cell or limit in msg and EX_REJECTED. */
static int
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
static void
join_args(char *buf, size_t size, const char *cmd, int n, char **args)
{
    size_t len = (size_t)snprintf(buf, size, "%s", cmd);
    for (int i = 0; i < n && len < size; i++)
        len += (size_t)snprintf(buf + len, size - len, " %s", args[i]);
}

/* ---- Sending and waiting ------------------------------------------------- */

/* Say why pushing an edit failed; return the exit code. */
static int
push_error(gc_world *w, int rc, const char *what)
{
    switch (rc) {
    case GC_EFULL:
        return fail(EX_TIMEOUT, what,
                    "edit queue %s stayed full for %g s; is the daemon "
                    "running?",
                    gc_queue_name(gc_world_queue(w)), timeout_s);
    case GC_ETIMEOUT:
        return fail(EX_TIMEOUT, what,
                    "the daemon dropped the edit: this process took longer "
                    "than the queue's claim timeout to write it");
    case GC_ECORRUPT:
        return fail(EX_REFUSED, what, "edit queue %s is corrupt",
                    gc_queue_name(gc_world_queue(w)));
    }
    return fail(EX_FAILED, what, "%s", gc_strerror(rc));
}

/*
 * Wait until the daemon has dealt with every queue position below `upto`
 * (gc_edit_wait), then print the grid generation.  EX_TIMEOUT after the
 * timeout, EX_NODAEMON if the daemon goes away meanwhile.
 */
static int
wait_applied(gc_world *w, uint64_t upto, const char *what)
{
    int rc = gc_edit_wait(w, upto, timeout_ns());
    switch (rc) {
    case GC_OK:
        printf("%" PRIu64 "\n", gc_world_generation(w));
        return fflush(stdout) == 0
                   ? EX_OK
                   : fail(EX_FAILED, what, "%s", strerror(errno));
    case GC_ETIMEOUT:
        return fail(EX_TIMEOUT, what,
                    "timed out after %g s: the daemon has applied edits "
                    "up to queue position %" PRIu64 ", waiting for %" PRIu64,
                    timeout_s, gc_world_edits_applied(w), upto);
    case GC_ENOENT:
        return fail(EX_NODAEMON, what,
                    "the daemon (pid %ld) went away before applying the "
                    "edits",
                    (long)gc_world_pid(w));
    }
    return fail(EX_FAILED, what, "%s", gc_strerror(rc));
}

/* After an --each send that timed out: how far it got. */
static void
say_progress(gc_world *w, const gc_edit *ed, size_t sent, size_t n,
             const char *what)
{
    fprintf(stderr, "%s: %s: %zu of %zu edits sent, %zu of them applied\n",
            PROG, what, sent, n, gc_edit_count_applied(w, ed, sent));
}

/*
 * Send n checked edits (gc_edit_send): one batch unless `each`, then wait
 * when `sync`.  A batch is all or nothing: if sending stops halfway, the
 * daemon drops what it got after its batch timeout.
 */
static int
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
            fprintf(stderr,
                    "%s: %s: the batch was not completed, so none of "
                    "it will be applied\n",
                    PROG, what);
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

/* ---- Commands ------------------------------------------------------------ */

typedef int (*cmd_fn)(const char *cmd, int n, char **args, cmd_opts *o);

static void
json_str(FILE *f, const char *s)
{
    fputc('"', f);
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\')
            fprintf(f, "\\%c", c);
        else if (c < 0x20)
            fprintf(f, "\\u%04x", c);
        else
            fputc(c, f);
    }
    fputc('"', f);
}

/* A float as JSON: null when not finite. */
static void
json_num(FILE *f, double v)
{
    if (isfinite(v))
        fprintf(f, "%.9g", v);
    else
        fputs("null", f);
}

static int
cmd_status(const char *cmd, int n, char **args, cmd_opts *o)
{
    gc_world *w;
    int rc = attach(&w, false, cmd);
    if (rc != EX_OK)
        return rc;
    gc_world_stats st;
    int r = gc_world_read_stats(w, &st);
    size_t cap = gc_world_agent_capacity(w), count = 0;
    gc_world_agent *ag = calloc(cap ? cap : 1, sizeof *ag);
    if (ag == NULL) {
        gc_world_close(w);
        return fail(EX_FAILED, cmd, "out of memory");
    }
    if (r == GC_OK)
        r = gc_world_read_agents(w, ag, cap, &count, NULL);
    if (r != GC_OK) {
        free(ag);
        rc = fail(r == GC_EBUSY ? EX_TIMEOUT : EX_REFUSED, cmd,
                  "reading %s: %s", gc_world_name(w), read_why(r));
        gc_world_close(w);
        return rc;
    }
    uint64_t by_state[GC_AGENT_NSTATES + 1] = {0};
    for (size_t i = 0; i < count; i++)
        by_state[ag[i].state < GC_AGENT_NSTATES ? ag[i].state
                                                : GC_AGENT_NSTATES]++;
    free(ag);

    uint64_t acc, rej, pend;
    gc_world_edit_counts(w, &acc, &rej, &pend);
    bool alive = gc_world_owner_alive(w);
    long pid = (long)gc_world_pid(w);
    const char *state = gc_world_state_name(gc_world_state(w));
    if (o->json) {
        printf("{\"name\": ");
        json_str(stdout, gc_world_name(w));
        printf(", \"pid\": %ld, \"state\": \"%s\", \"alive\": %s, "
               "\"width\": %d, \"height\": %d, \"cell_size\": ",
               (long)gc_world_pid(w), state, alive ? "true" : "false",
               (int)gc_world_width(w), (int)gc_world_height(w));
        json_num(stdout, gc_world_cell_size(w));
        printf(", \"tick\": %" PRIu64 ", \"ticks_per_s\": ", gc_world_tick(w));
        json_num(stdout, st.ticks_per_s);
        printf(", \"generation\": %" PRIu64 ", \"agents\": {",
               gc_world_generation(w));
        for (int s = 0; s < GC_AGENT_NSTATES; s++)
            printf("\"%s\": %" PRIu64 ", ", gc_agent_state_name(s),
                   by_state[s]);
        if (by_state[GC_AGENT_NSTATES] > 0)
            printf("\"unknown\": %" PRIu64 ", ", by_state[GC_AGENT_NSTATES]);
        printf("\"total\": %zu}, \"edits_accepted\": %" PRIu64
               ", \"edits_rejected\": %" PRIu64 ", \"edits_pending\": %" PRIu64
               ", \"edits_applied\": %" PRIu64 "}\n",
               count, acc, rej, pend, gc_world_edits_applied(w));
    } else {
        printf("world:      %s\n", gc_world_name(w));
        printf("daemon:     pid %ld, %s%s\n", (long)gc_world_pid(w), state,
               alive ? "" : " (not running)");
        printf("map:        %dx%d cells, cell size %g\n",
               (int)gc_world_width(w), (int)gc_world_height(w),
               (double)gc_world_cell_size(w));
        printf("tick:       %" PRIu64 " (%.1f ticks/s)\n", gc_world_tick(w),
               st.ticks_per_s);
        printf("agents:     %zu", count);
        const char *sep = " (";
        for (int s = 0; s < GC_AGENT_NSTATES; s++)
            if (by_state[s] > 0) {
                printf("%s%s %" PRIu64, sep, gc_agent_state_name(s),
                       by_state[s]);
                sep = ", ";
            }
        printf("%s\n", sep[0] == ',' ? ")" : "");
        printf("generation: %" PRIu64 "\n", gc_world_generation(w));
        printf("edits:      %" PRIu64 " accepted, %" PRIu64
               " rejected, %" PRIu64 " pending\n",
               acc, rej, pend);
    }
    gc_world_close(w);
    if (fflush(stdout) != 0)
        return fail(EX_FAILED, cmd, "writing: %s", strerror(errno));
    if (!alive)
        return fail(EX_NODAEMON, cmd, "no daemon: pid %ld is not running", pid);
    return EX_OK;
}

/* set, rect, line. */
static int
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
        return fail(rc, what, "%s", msg);
    gc_world *w;
    if ((rc = attach(&w, true, what)) != EX_OK)
        return rc;
    rc = check_edit(&e, gc_world_width(w), gc_world_height(w), msg, sizeof msg);
    if (rc != EX_OK)
        rc = fail(rc, what, "%s", msg);
    else
        rc = send_all(w, &e, 1, true, o->sync, what);
    gc_world_close(w);
    return rc;
}

static int
cmd_trace(const char *cmd, int n, char **args, cmd_opts *o)
{
    char what[256];
    join_args(what, sizeof what, cmd, n, args);
    uint32_t agent = GC_WORLD_NO_AGENT;
    if (strcmp(args[0], "none") != 0) {
        int32_t v;
        if (!parse_coord(args[0], &v))
            return fail(EX_USAGE, what,
                        "expected an agent number or 'none', got '%s'",
                        args[0]);
        if (v < 0)
            return fail(EX_REJECTED, what, "agent %" PRId32 " does not exist",
                        v);
        agent = (uint32_t)v;
    }
    gc_world *w;
    int rc = attach(&w, true, what);
    if (rc != EX_OK)
        return rc;
    uint32_t cap = gc_world_agent_capacity(w), salt = 0;
    if (agent != GC_WORLD_NO_AGENT && agent >= cap) {
        gc_world_close(w);
        return fail(EX_REJECTED, what,
                    "agent %" PRIu32 " does not exist (the world has %" PRIu32
                    " agent slots)",
                    agent, cap);
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

/* A growable list of edits, for the batch file. */
typedef struct edit_list {
    gc_edit *e;
    size_t n, cap;
} edit_list;

static bool
edit_list_add(edit_list *l, const gc_edit *e)
{
    if (l->n == l->cap) {
        size_t cap = l->cap ? 2 * l->cap : 256;
        gc_edit *ne = realloc(l->e, cap * sizeof *ne);
        if (ne == NULL)
            return false;
        l->e = ne;
        l->cap = cap;
    }
    l->e[l->n++] = *e;
    return true;
}

static int
cmd_apply(const char *cmd, int n, char **args, cmd_opts *o)
{
    char what[1100];
    snprintf(what, sizeof what, "%s %s", cmd, args[0]);
    gc_grid *map;
    gc_error err;
    int r = gc_map_load(&map, args[0], &err);
    if (r != GC_OK)
        return fail(r == GC_ENOMEM ? EX_FAILED : EX_USAGE, cmd, "%s", err.msg);
    gc_world *w;
    int rc = attach(&w, true, what);
    if (rc != EX_OK) {
        gc_grid_free(map);
        return rc;
    }
    const int32_t W = gc_world_width(w), H = gc_world_height(w);
    uint8_t *cur = NULL;
    gc_edit *ed = NULL;
    size_t ned = 0;
    uint64_t cells = 0;
    if (map->width != W || map->height != H) {
        rc = fail(EX_REJECTED, what,
                  "map is %" PRId32 "x%" PRId32 " but the world %s is %" PRId32
                  "x%" PRId32,
                  map->width, map->height, gc_world_name(w), W, H);
        goto out;
    }
    cur = malloc((size_t)W * (size_t)H);
    if (cur == NULL) {
        rc = fail(EX_FAILED, what, "out of memory");
        goto out;
    }
    if ((r = gc_world_read_cells(w, cur, NULL)) != GC_OK) {
        rc = fail(EX_TIMEOUT, what, "reading the cells of %s: %s",
                  gc_world_name(w), read_why(r));
        goto out;
    }
    if (gc_edit_diff(cur, map->cells, W, H, &ed, &ned, &cells) != GC_OK) {
        rc = fail(EX_FAILED, what, "out of memory");
        goto out;
    }
    if (ned > GC_EDIT_MAX_BATCH) {
        rc = fail(EX_REJECTED, what,
                  "the changes need %zu edits, more than one batch may hold "
                  "(%u); apply the map in parts",
                  ned, GC_EDIT_MAX_BATCH);
        goto out;
    }
    rc = send_all(w, ed, ned, false, o->sync, what);
    if (rc == EX_OK)
        fprintf(o->sync ? stderr : stdout,
                "%s: sent %" PRIu64 " cell%s in %zu edit%s\n", what, cells,
                cells == 1 ? "" : "s", ned, ned == 1 ? "" : "s");
out:
    free(ed);
    free(cur);
    gc_grid_free(map);
    gc_world_close(w);
    return rc;
}

/* Strip leading and trailing blanks in place. */
static char *
trim(char *s)
{
    while (*s == ' ' || *s == '\t')
        s++;
    size_t n = strlen(s);
    while (n > 0 && (s[n - 1] == ' ' || s[n - 1] == '\t' || s[n - 1] == '\n' ||
                     s[n - 1] == '\r'))
        s[--n] = '\0';
    return s;
}

/*
 * Read one line of at most size - 1 bytes into buf, without its newline.
 * Returns 1 for a line, 0 at the end of the input, -1 for a line too long,
 * -2 for a NUL byte (a text file has none: stop there rather than take the
 * rest as a blank line, so that /dev/zero ends at its first byte), -3 for
 * a read error.
 */
static int
read_line(FILE *in, char *buf, size_t size)
{
    size_t len = 0;
    int c;
    while ((c = getc(in)) != EOF && c != '\n') {
        if (c == '\0')
            return -2;
        if (len == size - 1)
            return -1;
        buf[len++] = (char)c;
    }
    buf[len] = '\0';
    if (c == EOF && (ferror(in) || len == 0))
        return ferror(in) ? -3 : 0;
    return 1;
}

static int
cmd_batch(const char *cmd, int n, char **args, cmd_opts *o)
{
    const char *path = args[0];
    bool std_in = strcmp(path, "-") == 0;
    const char *label = std_in ? "<stdin>" : path;
    FILE *in = std_in ? stdin : fopen(path, "r");
    if (in == NULL)
        return fail(EX_USAGE, cmd, "%s: %s", path, strerror(errno));

    /* Read and check everything before sending anything. */
    edit_list l = {0};
    char line[1024], what[1100], msg[256];
    int lineno = 0, rc = EX_OK;
    gc_world *w = NULL;
    snprintf(what, sizeof what, "%s %s", cmd, path);
    if ((rc = attach(&w, true, what)) != EX_OK)
        goto out;
    int got;
    while ((got = read_line(in, line, sizeof line)) > 0 || got == -1 ||
           got == -2) {
        lineno++;
        if (got == -1) {
            rc = fail(EX_USAGE, cmd, "%s:%d: line too long", label, lineno);
            goto out;
        }
        if (got == -2) {
            rc = fail(EX_USAGE, cmd, "%s:%d: NUL byte: not a text file", label,
                      lineno);
            goto out;
        }
        char *s = trim(line);
        if (*s == '\0' || *s == '#')
            continue;
        char *tok[8] = {NULL};
        int nt = 0;
        for (char *t = strtok(s, " \t"); t != NULL; t = strtok(NULL, " \t")) {
            if (nt == 8) {
                nt++;
                break;
            }
            tok[nt++] = t;
        }
        if (nt == 0)
            continue; /* not reached: s is not blank */
        uint32_t op = strcmp(tok[0], "set") == 0    ? GC_EDIT_SET
                      : strcmp(tok[0], "rect") == 0 ? GC_EDIT_RECT
                      : strcmp(tok[0], "line") == 0 ? GC_EDIT_LINE
                                                    : 0;
        if (op == 0) {
            rc = fail(EX_USAGE, cmd,
                      "%s:%d: unknown edit '%s' (set, rect or line)", label,
                      lineno, tok[0]);
            goto out;
        }
        gc_edit e;
        if (nt > 8)
            nt = 8;
        if ((rc = build_edit(op, nt - 1, tok + 1, &e, msg, sizeof msg)) !=
                EX_OK ||
            (rc = check_edit(&e, gc_world_width(w), gc_world_height(w), msg,
                             sizeof msg)) != EX_OK) {
            rc = fail(rc, cmd, "%s:%d: %s", label, lineno, msg);
            goto out;
        }
        if (!edit_list_add(&l, &e)) {
            rc = fail(EX_FAILED, cmd, "out of memory");
            goto out;
        }
    }
    if (got == -3) {
        rc = fail(EX_USAGE, cmd, "%s: %s", label, strerror(errno));
        goto out;
    }
    if (!o->each && l.n > GC_EDIT_MAX_BATCH) {
        rc = fail(EX_REJECTED, cmd,
                  "%s: %zu edits are more than one batch may hold (%u); use "
                  "--each to send them one by one",
                  label, l.n, GC_EDIT_MAX_BATCH);
        goto out;
    }
    rc = send_all(w, l.e, l.n, o->each, o->sync, what);
out:
    free(l.e);
    gc_world_close(w);
    if (!std_in)
        fclose(in);
    return rc;
}

static int
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

static int
cmd_agents(const char *cmd, int n, char **args, cmd_opts *o)
{
    gc_world *w;
    int rc = attach(&w, false, cmd);
    if (rc != EX_OK)
        return rc;
    size_t cap = gc_world_agent_capacity(w), count = 0;
    gc_world_agent *a = calloc(cap ? cap : 1, sizeof *a);
    uint64_t tick = 0; /* the tick the snapshot was taken at */
    int r = a == NULL ? GC_ENOMEM
                      : gc_world_read_agents_at(w, a, cap, &count, NULL, &tick);
    if (r != GC_OK) {
        free(a);
        rc = fail(r == GC_EBUSY    ? EX_TIMEOUT
                  : r == GC_ENOMEM ? EX_FAILED
                                   : EX_REFUSED,
                  cmd, "reading the agents of %s: %s", gc_world_name(w),
                  read_why(r));
        gc_world_close(w);
        return rc;
    }
    if (o->json)
        putchar('[');
    else if (o->csv)
        puts("tick,id,x,y,heading,state,goal_x,goal_y");
    else
        printf("%6s %10s %10s %8s %-11s %6s %6s\n", "id", "x", "y", "heading",
               "state", "goal_x", "goal_y");
    for (size_t i = 0; i < count; i++) {
        const gc_world_agent *g = &a[i];
        const char *state = gc_agent_state_name(g->state);
        if (o->json) {
            printf("%s{\"id\": %" PRIu32 ", \"x\": ", i ? ", " : "", g->id);
            json_num(stdout, g->x);
            fputs(", \"y\": ", stdout);
            json_num(stdout, g->y);
            fputs(", \"heading\": ", stdout);
            json_num(stdout, g->heading);
            printf(", \"state\": \"%s\", \"goal_x\": %" PRId32
                   ", \"goal_y\": %" PRId32 "}",
                   state, g->goal_x, g->goal_y);
        } else if (o->csv) {
            printf("%" PRIu64 ",%" PRIu32 ",%.9g,%.9g,%.9g,%s,%" PRId32
                   ",%" PRId32 "\n",
                   tick, g->id, (double)g->x, (double)g->y, (double)g->heading,
                   state, g->goal_x, g->goal_y);
        } else {
            printf("%6" PRIu32 " %10.3f %10.3f %8.3f %-11s %6" PRId32
                   " %6" PRId32 "\n",
                   g->id, (double)g->x, (double)g->y, (double)g->heading, state,
                   g->goal_x, g->goal_y);
        }
    }
    if (o->json)
        puts("]");
    free(a);
    gc_world_close(w);
    if (fflush(stdout) != 0)
        return fail(EX_FAILED, cmd, "writing: %s", strerror(errno));
    return EX_OK;
}

static int
cmd_cells(const char *cmd, int n, char **args, cmd_opts *o)
{
    gc_world *w;
    int rc = attach(&w, false, cmd);
    if (rc != EX_OK)
        return rc;
    const int32_t W = gc_world_width(w), H = gc_world_height(w);
    uint8_t *buf = malloc((size_t)W * (size_t)H);
    gc_grid *g = NULL;
    char *text = NULL;
    size_t len = 0;
    int r = buf == NULL ? GC_ENOMEM : gc_world_read_cells(w, buf, NULL);
    if (r == GC_OK)
        r = gc_grid_wrap(&g, W, H, buf);
    if (r == GC_OK)
        r = gc_map_format(g, &text, &len);
    if (r != GC_OK)
        rc = fail(r == GC_EBUSY    ? EX_TIMEOUT
                  : r == GC_ENOMEM ? EX_FAILED
                                   : EX_REFUSED,
                  cmd, "reading the cells of %s: %s", gc_world_name(w),
                  read_why(r));
    else if (fwrite(text, 1, len, stdout) != len || fflush(stdout) != 0)
        rc = fail(EX_FAILED, cmd, "writing: %s", strerror(errno));
    free(text);
    gc_grid_free(g);
    free(buf);
    gc_world_close(w);
    return rc;
}

/* Remove the objects of a daemon that died without removing them (kill -9,
 * a crash): never a live daemon's. */
static int
cmd_clean(const char *cmd, int n, char **args, cmd_opts *o)
{
    (void)n, (void)args, (void)o;
    gc_world_takeover rm;
    gc_error err;
    int r = gc_world_clean(shm_name, &rm, &err);
    switch (r) {
    case GC_OK:
        break;
    case GC_ENOENT:
        return fail(EX_NODAEMON, cmd, "%s", err.msg);
    case GC_EBUSY:
    case GC_EEXIST:
    case GC_EPERM:
        return fail(EX_REFUSED, cmd, "%s", err.msg);
    case GC_EINVAL:
        return fail(EX_USAGE, cmd, "%s", err.msg);
    default:
        return fail(EX_FAILED, cmd, "%s", err.msg);
    }
    pid_t pid = rm.world_pid > 0 ? rm.world_pid : rm.edits_pid;
    char name[GC_WORLD_NAME_MAX + 2];
    const char *base = shm_name ? shm_name : GC_WORLD_DEFAULT_NAME;
    snprintf(name, sizeof name, "/%s", base[0] == '/' ? base + 1 : base);
    printf("removed%s%s%s%s%s", rm.world ? " " : "", rm.world ? name : "",
           rm.edits ? " " : "", rm.edits ? name : "",
           rm.edits ? GC_QUEUE_SUFFIX : "");
    if (pid > 0)
        printf(", left by process %ld", (long)pid);
    putchar('\n');
    return fflush(stdout) == 0 ? EX_OK
                               : fail(EX_FAILED, cmd, "%s", strerror(errno));
}

/* ---- Main ---------------------------------------------------------------- */

static const struct command {
    const char *name;
    cmd_fn fn;
    unsigned opts;
    int min, max; /* positional arguments */
} commands[] = {
    {"status", cmd_status, O_JSON, 0, 0},
    {"set", cmd_edit, O_SYNC | O_TIMEOUT, 0, 64},
    {"rect", cmd_edit, O_SYNC | O_TIMEOUT, 0, 64},
    {"line", cmd_edit, O_SYNC | O_TIMEOUT, 0, 64},
    {"apply", cmd_apply, O_SYNC | O_TIMEOUT, 1, 1},
    {"batch", cmd_batch, O_SYNC | O_TIMEOUT | O_EACH, 1, 1},
    {"sync", cmd_sync, O_TIMEOUT, 0, 0},
    {"agents", cmd_agents, O_JSON | O_CSV, 0, 0},
    {"cells", cmd_cells, 0, 0, 0},
    {"trace", cmd_trace, O_SYNC | O_TIMEOUT, 1, 1},
    {"clean", cmd_clean, 0, 0, 0},
};

static void
help(FILE *f)
{
    fprintf(
        f,
        "usage: " PROG " [--shm NAME] [--timeout S] COMMAND [ARGS]\n"
        "\n"
        "Look at a running gridcrowd daemon and edit its grid.\n"
        "\n"
        "Commands:\n"
        "  status [--json]          daemon pid and state, map size, tick,\n"
        "                           ticks/s, agents by state, grid "
        "generation,\n"
        "                           edits accepted/rejected/pending\n"
        "  set X Y TYPE             set one cell\n"
        "  rect X0 Y0 X1 Y1 TYPE    fill a rectangle (corners inclusive, in\n"
        "                           any order)\n"
        "  line X0 Y0 X1 Y1 TYPE    draw a line (Bresenham, 8-connected)\n"
        "  apply FILE               make the grid equal to map FILE (same\n"
        "                           size): send the differing cells as one\n"
        "                           batch, applied in one tick\n"
        "  batch FILE|-             read set/rect/line lines (blank lines and\n"
        "                           '#' comments skipped), check them all,\n"
        "                           send them as one batch (--each: one by\n"
        "                           one, not atomic)\n"
        "  sync                     wait until every edit queued so far is\n"
        "                           applied, print the grid generation\n"
        "  agents [--json|--csv]    one row per agent: id, x, y (world "
        "units),\n"
        "                           heading (radians), state, goal cell;\n"
        "                           --csv starts each row with the tick\n"
        "  cells                    print the live grid in map format\n"
        "  trace AGENT|none         ask the daemon to trace an agent's "
        "searches\n"
        "  clean                    remove the objects a dead daemon left\n"
        "                           behind (never a live daemon's)\n"
        "  path X0 Y0 X1 Y1         the path on the live grid, searched here\n"
        "                           on a copy of the cells: cost, waypoints,\n"
        "                           cells expanded ([--json] [--radius R]\n"
        "                           [--diag RULE] [--heuristic H] [--smooth]\n"
        "                           [--algo A] [--max-expansions N]\n"
        "                           [--repeat N: time N queries])\n"
        "  next X0 Y0 X1 Y1         only the neighbour to step to first\n"
        "                           (same options)\n"
        "\n"
        "TYPE is a name: walkable (free, open), obstacle (wall, blocked),\n"
        "high (high-cost, swamp), low (low-cost, road); or a map glyph:\n"
        ". G walkable, @ O T W obstacle, S high, R low.  Coordinates are\n"
        "cells, x the column, y the row, (0, 0) at the top left.\n"
        "\n"
        "Options:\n"
        "  -s, --shm NAME   world to use (default " GC_WORLD_DEFAULT_NAME ")\n"
        "  --timeout S      how long to wait for room in a full queue and for\n"
        "                   --sync and sync (default 10 seconds); also after\n"
        "                   the command\n"
        "  --sync           (edit commands) wait until the edits are applied,\n"
        "                   then print the grid generation\n"
        "  -h, --help       show this help\n"
        "  -V, --version    show the version\n"
        "\n"
        "Exit codes:\n"
        "  0  success\n"
        "  1  no daemon: no such world, or its daemon is gone or stopping\n"
        "  2  bad arguments, or a file that cannot be read or parsed\n"
        "  3  the world or queue was refused (bad magic, version or layout),\n"
        "     permission was denied, or the queue was resized under it;\n"
        "     clean: the daemon is alive, or the object is not gridcrowd's\n"
        "  4  an edit was refused before sending: outside the map, unknown\n"
        "     type, too big, map of another size\n"
        "  5  timeout: the queue stayed full, sync timed out, or the daemon\n"
        "     dropped an entry\n"
        "  6  any other failure (system error, out of memory)\n"
        "  7  path, next: no path (unreachable, or --max-expansions hit);\n"
        "     an end outside the map or impassable exits 4\n");
}

int
main(int argc, char **argv)
{
    static const struct option longopts[] = {
        {"shm", required_argument, NULL, 's'},
        {"timeout", required_argument, NULL, 't'},
        {"help", no_argument, NULL, 'h'},
        {"version", no_argument, NULL, 'V'},
        {NULL, 0, NULL, 0}};
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_sigbus;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGBUS, &sa, NULL);

    int c;
    /* '+': stop at the command; its own options are parsed after it. */
    while ((c = getopt_long(argc, argv, "+s:hV", longopts, NULL)) != -1) {
        switch (c) {
        case 's':
            shm_name = optarg;
            break;
        case 't':
            if (!parse_seconds(optarg, &timeout_s))
                return fail(EX_USAGE, NULL,
                            "--timeout needs a number of seconds, got '%s'",
                            optarg);
            break;
        case 'h':
            help(stdout);
            return EX_OK;
        case 'V':
            printf(PROG " %s\n", gc_version());
            return EX_OK;
        default:
            fprintf(stderr, "Try '" PROG " --help'.\n");
            return EX_USAGE;
        }
    }
    if (optind >= argc)
        return fail(EX_USAGE, NULL, "no command given (see --help)");
    const char *name = argv[optind];
    /* Path queries parse their own options (ctl-path.c). */
    if (strcmp(name, "path") == 0 || strcmp(name, "next") == 0)
        return ctl_path_main(name, shm_name, argc - optind - 1,
                             argv + optind + 1);
    const struct command *cmd = NULL;
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
        if (strcmp(commands[i].name, name) == 0)
            cmd = &commands[i];
    if (cmd == NULL)
        return fail(EX_USAGE, NULL, "unknown command '%s' (see --help)", name);

    int n = argc - optind - 1, npos = 0;
    char **pos = calloc((size_t)n + 1, sizeof *pos);
    if (pos == NULL)
        return fail(EX_FAILED, name, "out of memory");
    cmd_opts o;
    int rc = parse_args(name, cmd->opts, n, argv + optind + 1, &o, pos, &npos);
    if (rc == EX_OK && (npos < cmd->min || npos > cmd->max))
        rc = fail(EX_USAGE, name, "expected %d argument%s, got %d (see --help)",
                  cmd->min, cmd->min == 1 ? "" : "s", npos);
    if (rc == EX_OK)
        rc = cmd->fn(name, npos, pos, &o);
    free(pos);
    return rc;
}
