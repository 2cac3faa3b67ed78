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

#include <gridcrowd/version.h>
#include <gridcrowd/world.h>

#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ctl.h"

/* Global settings. */
const char *shm_name; /* NULL: GC_WORLD_DEFAULT_NAME */
double timeout_s = 10;

uint64_t
timeout_ns(void)
{
    return (uint64_t)(timeout_s * NS_PER_S);
}

const char *
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

int
attach(gc_world **w, bool edits, const char *what)
{
    gc_error err;
    int rc =
        gc_world_attach(w, shm_name, edits ? GC_WORLD_ATTACH_QUEUE : 0, &err);
    if (rc != GC_OK)
        return prog_fail(attach_exit(rc), what, "%s", err.msg);
    if (edits) {
        if (!gc_world_owner_alive(*w)) {
            rc = prog_fail(EX_NODAEMON, what,
                           "no daemon: %s was left by pid %ld, which is gone",
                           gc_world_name(*w), (long)gc_world_pid(*w));
            gc_world_close(*w);
            *w = NULL; /* (callers close what attach leaves them) */
            return rc;
        }
        if (gc_world_state(*w) == GC_WORLD_STOPPING) {
            rc =
                prog_fail(EX_NODAEMON, what, "the daemon (pid %ld) is stopping",
                          (long)gc_world_pid(*w));
            gc_world_close(*w);
            *w = NULL;
            return rc;
        }
    }
    return EX_OK;
}

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
            return prog_fail(EX_USAGE, cmd, "unknown option '%s' (see --help)",
                             a);
        if (flag == O_TIMEOUT) {
            const char *v = eq ? eq + 1 : (i + 1 < argc ? argv[++i] : NULL);
            if (v == NULL || !parse_seconds(v, &timeout_s))
                return prog_fail(
                    EX_USAGE, cmd,
                    "--timeout needs a number of seconds, got '%s'",
                    v ? v : "nothing");
            continue;
        }
        if (eq != NULL)
            return prog_fail(EX_USAGE, cmd, "option '--%.*s' takes no value",
                             (int)len, name);
        o->json |= flag == O_JSON;
        o->csv |= flag == O_CSV;
        o->sync |= flag == O_SYNC;
        o->each |= flag == O_EACH;
    }
    if (o->json && o->csv)
        return prog_fail(EX_USAGE, cmd, "--json and --csv cannot be combined");
    return EX_OK;
}

/* Values past int32 are clamped, which keeps them off any map, so that
 * they are reported as outside it. */
bool
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
        "                           --json and --csv add the speed while\n"
        "                           walking, the body's radius and the\n"
        "                           last tick's velocity (vx, vy);\n"
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
        "  spawn X Y                add an agent at world position X Y and\n"
        "                           print its handle ([--goal X Y]\n"
        "                           [--radius R] [--speed V] [--group G]\n"
        "                           [--json]); waits for the daemon's answer;\n"
        "                           G, 0 to 4294967295 (default 0), is a\n"
        "                           label of yours kept with the agent and\n"
        "                           shown by agents --json and Python's\n"
        "                           agents(); the daemon uses it for nothing\n"
        "  remove H                 remove agent H\n"
        "  goal H X Y|wander|stop   give agent H a goal (world units)\n"
        "  follow H TARGET          agent H follows agent TARGET\n"
        "                           ([--distance D]: stop D from it)\n"
        "  speed H V                agent H's speed (world units/s)\n"
        "  radius H R               agent H's body radius (world units)\n"
        "                           Agent commands take --sync (wait, print\n"
        "                           applied, or refused: REASON and exit 4)\n"
        "                           and --json; batch files take their lines\n"
        "\n"
        "TYPE is a name: walkable (free, open), obstacle (wall, blocked),\n"
        "high (high-cost, swamp), low (low-cost, road); or a map glyph:\n"
        ". G walkable, @ O T W obstacle, S high, R low.  Coordinates are\n"
        "cells, x the column, y the row, (0, 0) at the top left.\n"
        "\n"
        "Options:\n"
        "  -s, --shm NAME   world to use (default " GC_WORLD_DEFAULT_NAME ")\n"
        "  --timeout S      how long to wait for room in a full queue, for\n"
        "                   --sync and sync, and for spawn's answer (default\n"
        "                   10 seconds); before the command, or after set,\n"
        "                   rect, line, apply, batch, trace or sync\n"
        "  --sync           (set, rect, line, apply, batch, trace) wait until\n"
        "                   the edits are applied, then print the grid\n"
        "                   generation\n"
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
    prog_init(PROG);
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_sigbus;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGBUS, &sa, NULL);

    int c;
    /* '+': stop at the command; its own options are parsed after it.
     * ':' and opterr 0: a bad option is our one line, not getopt's two. */
    opterr = 0;
    while ((c = getopt_long(argc, argv, "+:s:hV", longopts, NULL)) != -1) {
        switch (c) {
        case 's':
            shm_name = optarg;
            break;
        case 't':
            if (!parse_seconds(optarg, &timeout_s))
                return prog_fail(
                    EX_USAGE, NULL,
                    "--timeout needs a number of seconds, got '%s'", optarg);
            break;
        case 'h':
            help(stdout);
            return EX_OK;
        case 'V':
            printf(PROG " %s\n", gc_version());
            return EX_OK;
        default: /* ':' or '?' */
            return prog_bad_option(EX_USAGE, c, argv, longopts);
        }
    }
    if (optind >= argc)
        return prog_fail(EX_USAGE, NULL, "no command given (see --help)");
    const char *name = argv[optind];
    /* Path queries parse their own options (ctl-path.c). */
    if (strcmp(name, "path") == 0 || strcmp(name, "next") == 0)
        return ctl_path_main(name, shm_name, argc - optind - 1,
                             argv + optind + 1);
    /* So do the agent commands (ctl-agent.c). */
    if (is_agent_command(name))
        return cmd_agent(name, argc - optind - 1, argv + optind + 1, NULL);
    const struct command *cmd = NULL;
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
        if (strcmp(commands[i].name, name) == 0)
            cmd = &commands[i];
    if (cmd == NULL)
        return prog_fail(EX_USAGE, NULL, "unknown command '%s' (see --help)",
                         name);

    int n = argc - optind - 1, npos = 0;
    char **pos = calloc((size_t)n + 1, sizeof *pos);
    if (pos == NULL)
        return prog_fail(EX_FAILED, name, "out of memory");
    cmd_opts o;
    int rc = parse_args(name, cmd->opts, n, argv + optind + 1, &o, pos, &npos);
    if (rc == EX_OK && (npos < cmd->min || npos > cmd->max))
        rc = prog_fail(EX_USAGE, name,
                       "expected %d argument%s, got %d (see --help)", cmd->min,
                       cmd->min == 1 ? "" : "s", npos);
    if (rc == EX_OK)
        rc = cmd->fn(name, npos, pos, &o);
    free(pos);
    return rc;
}
