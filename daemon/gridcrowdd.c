/*
 * gridcrowdd: the gridcrowd daemon.
 *
 * Thin by design: parse options, load the map and the goals, create the
 * shared-memory world, run the simulation loop, report figures, clean up.
 * Everything it does is in libgridcrowd, the loop body included (the host,
 * gridcrowd/host.h: edits, tick, publishing, queue repair); this file
 * decides only policy: defaults, messages, exit codes, signals, pacing and
 * the figures it prints.
 *
 * Exit codes (also in --help and README.md):
 *   0  ran and stopped cleanly (SIGINT, SIGTERM, SIGHUP, --ticks,
 *      --duration, or every agent done in scen/point batch runs)
 *   1  failure while running (out of memory, a system call failed)
 *   2  bad command line (a bad --shm name too)
 *   3  bad input: a map or scenario that fails to load or does not fit,
 *      or is not a regular file; a scenario for another map; a point goal
 *      on a wall
 *   4  shared memory: the name is taken by a live daemon, or by an object
 *      that is not a gridcrowd one; permission denied (--edit-group: the
 *      group cannot be given)
 *   5  the --stats-json file cannot be written
 * On every exit after the shared-memory objects were created, they are
 * removed.  A stats file that is a regular file (or absent) is written
 * atomically (temp file + rename) and no temp file is left behind; a FIFO
 * or a character device is written in place (see stats_file_open).
 */
#include "config.h"

#include <gridcrowd/agent.h>
#include <gridcrowd/astar.h>
#include <gridcrowd/edits.h>
#include <gridcrowd/grid.h>
#include <gridcrowd/host.h>
#include <gridcrowd/mapio.h>
#include <gridcrowd/orca.h>
#include <gridcrowd/sim.h>
#include <gridcrowd/version.h>
#include <gridcrowd/world.h>

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <grp.h>
#include <limits.h>
#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "default_map.h"

enum {
    EXIT_RUNTIME = 1,
    EXIT_USAGE = 2,
    EXIT_INPUT = 3,
    EXIT_SHM = 4,
    EXIT_STATS = 5
};

static const char *prog = "gridcrowdd";
static volatile sig_atomic_t stop_signal;

static void
on_signal(int sig)
{
    stop_signal = sig;
}

/*
 * The SIGBUS guard.  Anyone allowed to edit can shrink the queue object,
 * and touching a mapping past its object's new end raises SIGBUS.  The
 * host checks the object's size before each drain
 * (gc_queue_intact), but a shrink can land between that check and
 * the drain, or while a new queue is being made.  So while the simulation
 * thread is in gc_host_edits (guard_on; the agent threads are parked then,
 * and nothing else it touches can shrink: the world is the daemon's
 * alone), the handler puts an anonymous zero page over the faulting page
 * and returns, and the access reads zeros: gc_queue_pop takes nothing
 * from a header without its magic, and before the next drain the daemon
 * passes the hits (guard_hits) to the host, which makes a new queue.  Any
 * other SIGBUS is a real crash: the handler restores the default action
 * and the access faults again.  (mmap is not on POSIX's list of
 * async-signal-safe functions; on Linux it is a plain system call, and
 * this fault is synchronous, on the thread that made it.)
 */
static volatile sig_atomic_t guard_on;
static volatile sig_atomic_t guard_hits;
static uintptr_t guard_page = 4096;

static void
on_sigbus(int sig, siginfo_t *si, void *uc)
{
    (void)uc;
    if (guard_on && si->si_code == BUS_ADRERR) {
        uintptr_t page = (uintptr_t)si->si_addr & ~(guard_page - 1);
        if (mmap((void *)page, guard_page, PROT_READ | PROT_WRITE,
                 MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1,
                 0) != MAP_FAILED) {
            guard_hits++;
            return;
        }
    }
    signal(sig, SIG_DFL);
}

static void msg(const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 1, 2)))
#endif
    ;

static void
msg(const char *fmt, ...)
{
    va_list ap;
    fprintf(stderr, "%s: ", prog);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
}

/* ---- options --------------------------------------------------------------
 *
 * One table, opt_rows[] below, says everything about each option: its name,
 * the kind of argument, the range, the default, the unit, the field it sets
 * and its help text.  getopt_long's array, --help, the range checks, the
 * defaults and the "given twice" / "overrides" warnings are all made from
 * it, so an option is written in one place.  Options that need more than a
 * number or a string (--goals, --cost, --diag, --shm-mode, --edit-group)
 * name a parse function in their row; it prints its own one-line message.
 */

enum opt_id {
    O_MAP,
    O_UNIFORM,
    O_COST,
    O_CELL_SIZE,
    O_AGENTS,
    O_GOALS,
    O_WANDER_RADIUS,
    O_SPEED,
    O_ARRIVE,
    O_TURN,
    O_SEED,
    O_SMOOTH,
    O_NO_SMOOTH,
    O_DIAG,
    O_AVOID,
    O_RADIUS,
    O_NEIGHBOURS,
    O_HORIZON,
    O_THREADS,
    O_HZ,
    O_BUDGET,
    O_TICKS,
    O_DURATION,
    O_BATCH,
    O_SHM,
    O_SHM_MODE,
    O_EDIT_GROUP,
    O_STATS,
    O_QUIET,
    O_HELP,
    O_VERSION,
    OPT_COUNT
};

typedef struct options {
    const char *map;
    bool uniform;
    float costs[GC_CELL_NTYPES];
    bool cost_set[GC_CELL_NTYPES];
    double cell_size;
    gc_sim_config sim;
    const char *scen;
    uint64_t ticks;
    double duration;
    bool batch;
    const char *shm;
    unsigned shm_mode;
    const char *edit_group; /* as given, for messages */
    gid_t edit_gid;
    const char *stats_json;
    bool quiet;
    /* The argument each option was last given with ("" for a flag), NULL
     * when it was not given (or was overridden by another option that sets
     * the same field). */
    const char *given[OPT_COUNT];
} options;

typedef enum arg_kind {
    ARG_NONE,   /* a flag: stores the row's `flag` in a bool field */
    ARG_WHOLE,  /* a whole number from umin to umax */
    ARG_REAL,   /* a finite number from dmin to dmax */
    ARG_TEXT,   /* a string, kept as given (argv outlives the run) */
    ARG_CUSTOM, /* the row's parse function */
    ARG_ACTION  /* --help, --version: parse_args acts at once */
} arg_kind;

typedef enum field_type {
    FT_NONE, /* ARG_CUSTOM and ARG_ACTION: the parse function stores it */
    FT_BOOL,
    FT_INT,
    FT_U32,
    FT_U64,
    FT_FLOAT,
    FT_DOUBLE,
    FT_TEXT
} field_type;

typedef struct opt_row {
    const char *name; /* without the leading "--" */
    arg_kind kind;
    const char *metavar; /* the argument in --help */
    uint64_t umin, umax; /* ARG_WHOLE */
    double dmin, dmax;   /* ARG_REAL */
    /* The default.  Applied at start through the same parser as a value
     * on the command line, unless def_text: then it only describes, for
     * --help, a default that main computes (it depends on the machine or
     * on the map).  For a flag, non-NULL means "on by default". */
    const char *def;
    bool def_text;
    const char *unit; /* --help: what the number counts */
    /* The field set, as an offset in options.  Rows with the same offset
     * set the same thing (--smooth, --no-smooth): the later one overrides,
     * with a warning.  ARG_CUSTOM rows name the field their parser sets. */
    size_t off;
    field_type type;
    bool flag;       /* ARG_NONE: the value stored */
    bool repeatable; /* may be given again without a warning (--cost) */
    bool (*parse)(options *o, const char *arg); /* ARG_CUSTOM */
    const char *section; /* --help heading that starts at this row */
    const char *help;
} opt_row;

/* ---- number parsing: whole strings only, ranges checked ------------------ */

static bool
parse_u64(const char *opt, const char *s, uint64_t min, uint64_t max,
          uint64_t *out)
{
    char *end;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 10);
    if (*s == '\0' || *s == '-' || *s == '+' || *end != '\0' ||
        errno == ERANGE || v < min || v > max) {
        msg("%s: expected a whole number from %llu to %llu, got '%s'", opt,
            (unsigned long long)min, (unsigned long long)max, s);
        return false;
    }
    *out = v;
    return true;
}

static bool
parse_num(const char *opt, const char *s, double min, double max, double *out)
{
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (*s == '\0' || *end != '\0' || errno == ERANGE || !isfinite(v) ||
        v < min || v > max) {
        msg("%s: expected a number from %g to %g, got '%s'", opt, min, max, s);
        return false;
    }
    *out = v;
    return true;
}

/* ---- the options that need their own parser ------------------------------ */

static bool
parse_goals(options *o, const char *s)
{
    if (strcmp(s, "wander") == 0) {
        o->sim.goals = GC_GOALS_WANDER;
        return true;
    }
    if (strncmp(s, "point:", 6) == 0) {
        long x, y;
        char tail;
        if (sscanf(s + 6, "%ld,%ld%c", &x, &y, &tail) != 2 || x < 0 || y < 0 ||
            x > INT32_MAX || y > INT32_MAX) {
            msg("--goals: expected point:X,Y with whole numbers, got '%s'", s);
            return false;
        }
        o->sim.goals = GC_GOALS_POINT;
        o->sim.point = (gc_cell){(int32_t)x, (int32_t)y};
        return true;
    }
    if (strncmp(s, "scen:", 5) == 0 && s[5] != '\0') {
        o->sim.goals = GC_GOALS_SCEN;
        o->scen = s + 5;
        return true;
    }
    msg("--goals: expected wander, point:X,Y or scen:FILE, got '%s'", s);
    return false;
}

/* --edit-group: a group name, or a number (a gid, whether or not the
 * group database names it). */
static bool
parse_group(options *o, const char *s)
{
    o->edit_group = s;
    if (*s == '\0') {
        msg("--edit-group: expected a group name or gid, got ''");
        return false;
    }
    if (strspn(s, "0123456789") == strlen(s)) {
        uint64_t g;
        if (!parse_u64("--edit-group", s, 0, (gid_t)-1 - 1, &g))
            return false;
        o->edit_gid = (gid_t)g;
        return true;
    }
    errno = 0;
    struct group *gr = getgrnam(s);
    if (gr == NULL) {
        if (errno != 0 && errno != ENOENT && errno != ESRCH && errno != EBADF &&
            errno != EPERM)
            msg("--edit-group: looking up group '%s': %s", s, strerror(errno));
        else
            msg("--edit-group: no group named '%s'", s);
        return false;
    }
    o->edit_gid = gr->gr_gid;
    return true;
}

static bool
parse_cost(options *o, const char *s)
{
    const char *eq = strchr(s, '=');
    char type[32];
    if (eq == NULL || (size_t)(eq - s) >= sizeof type) {
        msg("--cost: expected TYPE=VALUE, got '%s'", s);
        return false;
    }
    memcpy(type, s, (size_t)(eq - s));
    type[eq - s] = '\0';
    int t = gc_cell_type_parse(type);
    if (t < 0 || t == GC_CELL_OBSTACLE) {
        msg("--cost: TYPE must be walkable, high or low, got '%s'", type);
        return false;
    }
    double v;
    if (!parse_num("--cost", eq + 1, 1e-6, 1e6, &v))
        return false;
    o->costs[t] = (float)v;
    o->cost_set[t] = true;
    return true;
}

static bool
parse_shm_mode(options *o, const char *s)
{
    char *end;
    errno = 0;
    unsigned long m = strtoul(s, &end, 8);
    if (*s == '\0' || *end != '\0' || errno || m > 0777 || (m & 0600) != 0600) {
        msg("--shm-mode: expected an octal mode from 0600 to 0777 that keeps "
            "owner read and write, got '%s'",
            s);
        return false;
    }
    o->shm_mode = (unsigned)m;
    return true;
}

static bool
parse_diag(options *o, const char *s)
{
    int r = gc_diag_rule_parse(s);
    if (r < 0) {
        msg("--diag: expected no-corner-cut, never, one-free or always, got "
            "'%s'",
            s);
        return false;
    }
    o->sim.diag = (gc_diag_rule)r;
    return true;
}

static bool
parse_avoid(options *o, const char *s)
{
    int a = gc_avoid_parse(s);
    if (a < 0) {
        msg("--avoid: expected orca or none, got '%s'", s);
        return false;
    }
    o->sim.avoid = (gc_avoid)a;
    return true;
}

/* ---- the table ----------------------------------------------------------- */

#define FIELD(f, t) .off = offsetof(options, f), .type = t
#define WHOLE(lo, hi) .kind = ARG_WHOLE, .umin = (lo), .umax = (hi)
#define REAL(lo, hi) .kind = ARG_REAL, .dmin = (lo), .dmax = (hi)

static const opt_row opt_rows[OPT_COUNT] = {
    [O_MAP] = {.name = "map",
               .kind = ARG_TEXT,
               .metavar = "FILE",
               .def = "the built-in demo map",
               .def_text = true,
               FIELD(map, FT_TEXT),
               .section = "Map and costs",
               .help = "Moving AI .map file, a regular file"},
    [O_UNIFORM] = {.name = "uniform",
                   .kind = ARG_NONE,
                   .flag = true,
                   FIELD(uniform, FT_BOOL),
                   .help = "every passable cell costs 1 (Moving AI lengths)"},
    [O_COST] = {.name = "cost",
                .kind = ARG_CUSTOM,
                .metavar = "TYPE=VALUE",
                .def = "1, 2, 0.5",
                .def_text = true,
                .off = offsetof(options, costs),
                .repeatable = true,
                .parse = parse_cost,
                .help = "cost of walkable, high or low cells; repeatable"},
    [O_CELL_SIZE] = {.name = "cell-size",
                     REAL(1e-3, 1e6),
                     .metavar = "UNITS",
                     .def = "1",
                     .unit = "world units per cell",
                     FIELD(cell_size, FT_DOUBLE),
                     .help = "size of a cell"},
    [O_AGENTS] = {.name = "agents",
                  WHOLE(1, GC_WORLD_MAX_AGENTS),
                  .metavar = "N",
                  .def = "300",
                  .unit = "scen: at most the scenario's problems",
                  FIELD(sim.agents, FT_U32),
                  .section = "Agents",
                  .help = "number of agents"},
    [O_GOALS] = {.name = "goals",
                 .kind = ARG_CUSTOM,
                 .metavar = "MODE",
                 .def = "wander",
                 .off = offsetof(options, sim.goals),
                 .parse = parse_goals,
                 .help = "wander | point:X,Y | scen:FILE; a scenario "
                         "must be for the --map map (or the demo map)"},
    [O_WANDER_RADIUS] = {.name = "wander-radius",
                         WHOLE(0, 65536),
                         .metavar = "CELLS",
                         .def = "0",
                         .unit = "cells; 0: anywhere reachable",
                         FIELD(sim.wander_radius, FT_U32),
                         .help = "wander goals within this many cells of "
                                 "the agent"},
    [O_SPEED] = {.name = "speed",
                 REAL(1e-6, 1e6),
                 .metavar = "UNITS",
                 .def = "4 cells/s",
                 .def_text = true,
                 .unit = "world units per second",
                 FIELD(sim.motion.speed, FT_FLOAT),
                 .help = "agent speed"},
    [O_ARRIVE] = {.name = "arrive-radius",
                  REAL(0, 1e6),
                  .metavar = "UNITS",
                  .def = "0.1 cell",
                  .def_text = true,
                  .unit = "world units",
                  FIELD(sim.motion.arrive_radius, FT_FLOAT),
                  .help = "arrival radius"},
    [O_TURN] = {.name = "turn-rate",
                REAL(0, 1e6),
                .metavar = "RAD",
                .def = "0",
                .unit = "radians per second; 0: at once",
                FIELD(sim.motion.turn_rate, FT_FLOAT),
                .help = "turn rate: agents turn, then go (slower while "
                        "far off their heading)"},
    [O_SEED] = {.name = "seed",
                WHOLE(0, UINT64_MAX),
                .metavar = "N",
                .def = "1",
                FIELD(sim.seed, FT_U64),
                .help = "random seed"},
    [O_SMOOTH] = {.name = "smooth",
                  .kind = ARG_NONE,
                  .def = "",
                  .flag = true,
                  FIELD(sim.smooth, FT_BOOL),
                  .help = "smooth planned paths"},
    [O_NO_SMOOTH] = {.name = "no-smooth",
                     .kind = ARG_NONE,
                     .flag = false,
                     FIELD(sim.smooth, FT_BOOL),
                     .help = "keep the grid paths the search finds"},
    [O_DIAG] = {.name = "diag",
                .kind = ARG_CUSTOM,
                .metavar = "RULE",
                .def = "no-corner-cut",
                .off = offsetof(options, sim.diag),
                .parse = parse_diag,
                .help = "no-corner-cut | never | one-free | always"},
    [O_AVOID] = {.name = "avoid",
                 .kind = ARG_CUSTOM,
                 .metavar = "MODEL",
                 .def = "orca",
                 .off = offsetof(options, sim.avoid),
                 .parse = parse_avoid,
                 .section = "Bodies",
                 .help = "orca: bodies avoid each other (ORCA); none: exact "
                         "path followers that pass through each other"},
    [O_RADIUS] = {.name = "radius",
                  REAL(0, 1e6),
                  .metavar = "UNITS",
                  .def = "0.35 cell",
                  .def_text = true,
                  .unit = "world units; 0: points",
                  FIELD(sim.radius, FT_FLOAT),
                  .help = "body radius; paths keep this far from walls"},
    [O_NEIGHBOURS] = {.name = "neighbours",
                      WHOLE(1, GC_ORCA_MAX_NEIGHBOURS),
                      .metavar = "N",
                      .def = "10",
                      FIELD(sim.neighbours, FT_U32),
                      .help = "ORCA: nearest agents each agent avoids"},
    [O_HORIZON] = {.name = "horizon",
                   REAL(1e-3, 1e6),
                   .metavar = "S",
                   .def = "2",
                   .unit = "seconds",
                   FIELD(sim.horizon, FT_FLOAT),
                   .help = "ORCA: how far ahead agents avoid each other"},
    [O_THREADS] = {.name = "threads",
                   WHOLE(1, 256),
                   .metavar = "N",
                   .def = "online cores",
                   .def_text = true,
                   FIELD(sim.threads, FT_INT),
                   .section = "Running",
                   .help = "agent threads"},
    [O_HZ] = {.name = "hz",
              REAL(1, 10000),
              .metavar = "N",
              .def = "60",
              .unit = "ticks per second",
              FIELD(sim.hz, FT_DOUBLE),
              .help = "tick rate; each tick is 1/N simulated seconds"},
    [O_BUDGET] = {.name = "plan-budget",
                  WHOLE(1, 1000000),
                  .metavar = "N",
                  .def = "64",
                  FIELD(sim.plan_budget, FT_U32),
                  .help = "path searches per thread per tick; in real time "
                          "also at most 60% of a tick"},
    [O_TICKS] = {.name = "ticks",
                 WHOLE(1, UINT64_MAX / 2),
                 .metavar = "N",
                 FIELD(ticks, FT_U64),
                 .help = "stop after N ticks"},
    [O_DURATION] = {.name = "duration",
                    REAL(1e-3, 1e9),
                    .metavar = "SECONDS",
                    FIELD(duration, FT_DOUBLE),
                    .help = "stop after this much wall time"},
    [O_BATCH] = {.name = "batch",
                 .kind = ARG_NONE,
                 .flag = true,
                 FIELD(batch, FT_BOOL),
                 .help = "run ticks as fast as possible, not in real time; "
                         "scen/point runs end when every agent is done"},
    [O_SHM] = {.name = "shm",
               .kind = ARG_TEXT,
               .metavar = "NAME",
               .def = GC_WORLD_DEFAULT_NAME,
               FIELD(shm, FT_TEXT),
               .help = "shared-memory name (the edit queue is NAME.edits)"},
    [O_SHM_MODE] = {.name = "shm-mode",
                    .kind = ARG_CUSTOM,
                    .metavar = "MODE",
                    .def = "0600",
                    .off = offsetof(options, shm_mode),
                    .parse = parse_shm_mode,
                    .help = "octal mode of the world object; 0640 with "
                            "--edit-group when not given"},
    [O_EDIT_GROUP] = {.name = "edit-group",
                      .kind = ARG_CUSTOM,
                      .metavar = "GROUP",
                      .off = offsetof(options, edit_group),
                      .parse = parse_group,
                      .help = "let GROUP (a name or a gid) edit: both "
                              "objects get that group, the edit queue "
                              "mode 0660"},
    [O_STATS] = {.name = "stats-json",
                 .kind = ARG_TEXT,
                 .metavar = "FILE",
                 FIELD(stats_json, FT_TEXT),
                 .help = "write the summary as JSON at the end: a regular "
                         "file (or a link to one) is replaced atomically; a "
                         "FIFO or a character device is written in place"},
    [O_QUIET] = {.name = "quiet",
                 .kind = ARG_NONE,
                 .flag = true,
                 FIELD(quiet, FT_BOOL),
                 .help = "no per-second figures"},
    [O_HELP] = {.name = "help", .kind = ARG_ACTION, .help = "this text"},
    [O_VERSION] = {.name = "version",
                   .kind = ARG_ACTION,
                   .help = "the version"},
};

#undef FIELD
#undef WHOLE
#undef REAL

/* Store a parsed value in the row's field. */
static void
store(options *o, const opt_row *r, uint64_t u, double d, const char *s)
{
    void *p = (char *)o + r->off;
    switch (r->type) {
    case FT_BOOL:
        *(bool *)p = r->flag;
        break;
    case FT_INT:
        *(int *)p = (int)u;
        break;
    case FT_U32:
        *(uint32_t *)p = (uint32_t)u;
        break;
    case FT_U64:
        *(uint64_t *)p = u;
        break;
    case FT_FLOAT:
        *(float *)p = (float)d;
        break;
    case FT_DOUBLE:
        *(double *)p = d;
        break;
    case FT_TEXT:
        *(const char **)p = s;
        break;
    case FT_NONE:
        break;
    }
}

/* Parse `arg` for row `r` into its field; false (message printed) when it
 * is out of range or malformed. */
static bool
set_option(options *o, const opt_row *r, const char *arg)
{
    char opt[64];
    snprintf(opt, sizeof opt, "--%s", r->name);
    uint64_t u = 0;
    double d = 0.0;
    switch (r->kind) {
    case ARG_WHOLE:
        if (!parse_u64(opt, arg, r->umin, r->umax, &u))
            return false;
        break;
    case ARG_REAL:
        if (!parse_num(opt, arg, r->dmin, r->dmax, &d))
            return false;
        break;
    case ARG_CUSTOM:
        return r->parse(o, arg);
    case ARG_NONE:
    case ARG_TEXT:
    case ARG_ACTION:
        break;
    }
    store(o, r, u, d, arg);
    return true;
}

/* Defaults from the table; main then fills the computed ones. */
static void
options_init(options *o)
{
    memset(o, 0, sizeof *o);
    gc_sim_config_init(&o->sim);
    for (int i = 0; i < OPT_COUNT; i++) {
        const opt_row *r = &opt_rows[i];
        if (r->def != NULL && !r->def_text && !set_option(o, r, r->def))
            abort(); /* a bad default in the table: a bug */
    }
}

/* "--name" or "--name ARG" into buf, for messages. */
static const char *
shown(char *buf, size_t n, int id, const char *arg)
{
    if (opt_rows[id].kind == ARG_NONE)
        snprintf(buf, n, "--%s", opt_rows[id].name);
    else
        snprintf(buf, n, "--%s %s", opt_rows[id].name, arg);
    return buf;
}

/*
 * Record that option `id` was given `arg`.  A second value for the same
 * field is not an error (scripts add options to a base command line), but
 * it is said: the later one wins.
 */
static void
note_given(options *o, int id, const char *arg)
{
    const opt_row *r = &opt_rows[id];
    char now[128], before[128];
    for (int k = 0; k < OPT_COUNT && !r->repeatable; k++) {
        const opt_row *q = &opt_rows[k];
        if (o->given[k] == NULL || q->kind == ARG_ACTION || q->off != r->off)
            continue;
        if (k == id && strcmp(o->given[k], arg) == 0)
            msg("warning: %s given twice", shown(now, sizeof now, id, arg));
        else
            msg("warning: %s overrides %s given before",
                shown(now, sizeof now, id, arg),
                shown(before, sizeof before, k, o->given[k]));
        o->given[k] = NULL;
    }
    o->given[id] = arg;
}

/* Print `text` from column `col`, wrapped before column 79; the first line
 * starts at column `at`. */
static void
wrap(FILE *f, const char *text, int at, int col)
{
    if (at >= col) {
        fputc('\n', f);
        at = 0;
    }
    fprintf(f, "%*s", col - at, "");
    int x = col;
    const char *s = text;
    while (*s != '\0') {
        while (*s == ' ')
            s++;
        int n = (int)strcspn(s, " ");
        if (n == 0)
            break;
        if (x > col && x + 1 + n > 79) {
            fprintf(f, "\n%*s", col, "");
            x = col;
        } else if (x > col) {
            fputc(' ', f);
            x++;
        }
        fprintf(f, "%.*s", n, s);
        x += n;
        s += n;
    }
    fputc('\n', f);
}

static void
usage(FILE *f)
{
    fputs("Usage: gridcrowdd [OPTIONS]\n"
          "Run a crowd simulation on a grid in POSIX shared memory.  With no "
          "options,\n"
          "a demo: the built-in town map, 300 wandering agents, real time, "
          "until\n"
          "SIGINT.  Attach with gridcrowd-ctl or gridcrowd-view.\n",
          f);
    for (int i = 0; i < OPT_COUNT; i++) {
        const opt_row *r = &opt_rows[i];
        if (r->section != NULL)
            fprintf(f, "%s%s:\n", i == 0 ? "\n" : "", r->section);
        else if (r->kind == ARG_ACTION && i > 0 &&
                 opt_rows[i - 1].kind != ARG_ACTION)
            fputs("Other:\n", f);
        char left[64], text[512];
        int at = snprintf(left, sizeof left, "  --%s%s%s", r->name,
                          r->metavar ? " " : "", r->metavar ? r->metavar : "");
        int n = snprintf(text, sizeof text, "%s", r->help);
        if (r->kind == ARG_NONE && r->def != NULL)
            snprintf(text + n, sizeof text - (size_t)n, " (the default)");
        else if (r->unit != NULL || r->def != NULL)
            snprintf(text + n, sizeof text - (size_t)n, " (%s%s%s%s)",
                     r->unit ? r->unit : "", r->unit && r->def ? "; " : "",
                     r->def ? (r->def_text ? "default: " : "default ") : "",
                     r->def ? r->def : "");
        fputs(left, f);
        wrap(f, text, at, 24);
    }
    fputs("\nExit codes: 0 stopped cleanly (SIGINT, SIGTERM, SIGHUP, --ticks, "
          "--duration,\n"
          "or every agent done); 1 failure while running; 2 bad command "
          "line; 3 bad map\n"
          "or scenario; 4 shared memory taken or not permitted; 5 stats file "
          "not writable.\n",
          f);
}

/* Returns -1 to go on, else the exit code. */
static int
parse_args(options *o, int argc, char **argv)
{
    struct option longs[OPT_COUNT + 1];
    for (int i = 0; i < OPT_COUNT; i++) {
        const opt_row *r = &opt_rows[i];
        bool arg = r->kind != ARG_NONE && r->kind != ARG_ACTION;
        longs[i] = (struct option){
            r->name, arg ? required_argument : no_argument, NULL, 256 + i};
    }
    longs[OPT_COUNT] = (struct option){NULL, 0, NULL, 0};
    opterr = 0;
    for (;;) {
        int c = getopt_long(argc, argv, ":", longs, NULL);
        if (c == -1)
            break;
        if (c == ':') {
            msg("%s needs a value (see --help)", argv[optind - 1]);
            return EXIT_USAGE;
        }
        if (c < 256 || c >= 256 + OPT_COUNT) {
            msg("unknown option '%s' (see --help)", argv[optind - 1]);
            return EXIT_USAGE;
        }
        int id = c - 256;
        if (id == O_HELP) {
            usage(stdout);
            return 0;
        }
        if (id == O_VERSION) {
            printf("gridcrowdd %s\n", gc_version());
            return 0;
        }
        const char *arg = optarg != NULL ? optarg : "";
        if (!set_option(o, &opt_rows[id], arg))
            return EXIT_USAGE;
        note_given(o, id, arg);
    }
    if (optind < argc) {
        msg("unexpected argument '%s' (see --help)", argv[optind]);
        return EXIT_USAGE;
    }
    if (o->given[O_EDIT_GROUP] != NULL) {
        /* Editing starts with attaching the world read-only, so the group
         * must be able to read it too. */
        if (o->given[O_SHM_MODE] == NULL)
            o->shm_mode = 0640;
        else if (!(o->shm_mode & 0040)) {
            msg("--edit-group %s: the group must be able to read the world "
                "too, but --shm-mode %04o does not let it (use 0640 or "
                "0644)",
                o->edit_group, o->shm_mode);
            return EXIT_USAGE;
        }
    }
    return -1;
}

/* What a file that is not a regular one is, for messages. */
static const char *
file_kind(mode_t m)
{
    return S_ISDIR(m)    ? "a directory"
           : S_ISFIFO(m) ? "a FIFO"
           : S_ISCHR(m)  ? "a character device"
           : S_ISBLK(m)  ? "a block device"
           : S_ISSOCK(m) ? "a socket"
                         : "not a file";
}

/* ---- time ------------------------------------------------------------------
 */

static uint64_t
now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static void
sleep_until(uint64_t t)
{
    struct timespec ts = {(time_t)(t / 1000000000ull),
                          (long)(t % 1000000000ull)};
    /* EINTR (a signal) just returns early: the loop checks stop_signal. */
    clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL);
}

/* ---- the stats file ---------------------------------------------------------
 *
 * Opened at start, so that a path that cannot be written fails before the
 * run, and written at the end.  How depends on what the path is (stat
 * follows symbolic links):
 *   absent, or a regular file: a temporary file beside it, renamed over it
 *     at the end, so a reader never sees half a summary and a failed run
 *     leaves nothing behind; a replaced file keeps its permission bits;
 *   a symbolic link to a regular file: the same at the link's target, so
 *     the link stays a link;
 *   a FIFO or a character device (a pipe from >(jq .), /dev/stdout,
 *     /dev/null): opened at start and written in place; a FIFO that nobody
 *     reads is refused rather than waited for;
 *   anything else (a directory, a block device, a socket, a link to
 *     nothing): refused.
 * Every refusal and write error is exit 5.  (It used to be the temporary
 * file and rename for every path, which replaced a link, a FIFO or a
 * device node by a regular 0600 file: as root, /dev/full was destroyed.)
 */

typedef struct stats_file {
    const char *path;    /* as given, for messages */
    char dest[PATH_MAX]; /* renamed onto at the end */
    char tmp[PATH_MAX];  /* the temporary file ("" when in place) */
    FILE *f;
} stats_file;

static bool
stats_file_in_place(stats_file *sf, const char *path, const struct stat *st)
{
    /* O_NONBLOCK: a FIFO with no reader fails with ENXIO instead of
     * blocking the daemon before it starts. */
    int fd = open(path, O_WRONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
    if (fd < 0) {
        if (errno == ENXIO && S_ISFIFO(st->st_mode))
            msg("--stats-json: %s: a FIFO that nobody reads", path);
        else
            msg("--stats-json: %s: cannot write: %s", path, strerror(errno));
        return false;
    }
    int fl = fcntl(fd, F_GETFL);
    if (fl == -1 || fcntl(fd, F_SETFL, fl & ~O_NONBLOCK) == -1 ||
        (sf->f = fdopen(fd, "w")) == NULL) {
        msg("--stats-json: %s: %s", path, strerror(errno));
        close(fd);
        return false;
    }
    return true;
}

static bool
stats_file_open(stats_file *sf, const char *path)
{
    sf->path = path;
    sf->tmp[0] = '\0';
    sf->f = NULL;
    if (path == NULL)
        return true;
    struct stat st, lst;
    bool exists = stat(path, &st) == 0;
    if (!exists && errno == ENOENT && lstat(path, &lst) == 0) {
        msg("--stats-json: %s: a symbolic link to nothing", path);
        return false;
    }
    if (exists && (S_ISFIFO(st.st_mode) || S_ISCHR(st.st_mode)))
        return stats_file_in_place(sf, path, &st);
    if (exists && !S_ISREG(st.st_mode)) {
        msg("--stats-json: %s: not a regular file, FIFO or character device "
            "(%s)",
            path, file_kind(st.st_mode));
        return false;
    }
    int n = snprintf(sf->dest, sizeof sf->dest, "%s", path);
    if (exists && lstat(path, &lst) == 0 && S_ISLNK(lst.st_mode) &&
        realpath(path, sf->dest) == NULL) {
        msg("--stats-json: %s: %s", path, strerror(errno));
        return false;
    }
    n = snprintf(sf->tmp, sizeof sf->tmp, "%s.XXXXXX", sf->dest);
    if (n < 0 || (size_t)n >= sizeof sf->tmp) {
        msg("--stats-json: %s: path too long", path);
        return false;
    }
    int fd = mkstemp(sf->tmp);
    if (fd < 0) {
        msg("--stats-json: %s: cannot write: %s", path, strerror(errno));
        return false;
    }
    if (exists)
        (void)fchmod(fd, st.st_mode & 07777); /* best effort */
    sf->f = fdopen(fd, "w");
    if (sf->f == NULL) {
        msg("--stats-json: %s: %s", path, strerror(errno));
        close(fd);
        unlink(sf->tmp);
        return false;
    }
    return true;
}

/* Forget the file (error paths): the temporary file goes. */
static void
stats_file_abort(stats_file *sf)
{
    if (sf->f == NULL)
        return;
    fclose(sf->f);
    if (sf->tmp[0] != '\0')
        unlink(sf->tmp);
    sf->f = NULL;
}

static bool
stats_file_commit(stats_file *sf)
{
    if (sf->f == NULL)
        return true;
    errno = 0;
    bool ok = fflush(sf->f) == 0 && !ferror(sf->f);
    int e = errno;
    if (fclose(sf->f) != 0 && ok) {
        ok = false;
        e = errno;
    }
    sf->f = NULL;
    if (ok && sf->tmp[0] == '\0')
        return true;
    if (ok && rename(sf->tmp, sf->dest) == 0)
        return true;
    if (ok)
        e = errno;
    msg("--stats-json: %s: %s", sf->path, strerror(e != 0 ? e : EIO));
    if (sf->tmp[0] != '\0')
        unlink(sf->tmp);
    return false;
}

/* ---- the run ------------------------------------------------------------- */

typedef struct run_figures {
    uint64_t ticks;
    double wall_s;
    uint64_t overruns, overruns_after_1s;
    gc_sim_stats total;
    uint64_t edit_batches;    /* ticks whose edits changed cells */
    uint64_t overruns_before; /* overruns when the window began */
    bool said_behind;         /* the falling-behind warning was given */
} run_figures;

/*
 * A real-time run that cannot keep its tick rate says so, once, with the
 * figures of the window that showed it (it used to say nothing: only the
 * per-second lines, hidden by --quiet, showed the rate).  Not for the
 * first window, which the first plans of every agent may fill, nor for a
 * last window under half a second.  Shown with --quiet too: a warning is
 * not a figure.
 */
static void
warn_behind(const options *o, run_figures *fig, double secs,
            uint64_t ticks_in_window, bool first_window)
{
    uint64_t over = fig->overruns - fig->overruns_before;
    fig->overruns_before = fig->overruns;
    if (o->batch || first_window || fig->said_behind || secs < 0.5)
        return;
    double rate = (double)ticks_in_window / secs;
    if (rate >= 0.95 * o->sim.hz)
        return;
    fig->said_behind = true;
    char span[32] = "second";
    if (secs >= 1.5)
        snprintf(span, sizeof span, "%.1f s", secs);
    msg("warning: falling behind real time: %.1f ticks/s of %g over the "
        "last %s, %llu overruns",
        rate, o->sim.hz, span, (unsigned long long)over);
}

/* The figures of bodies (avoid ORCA): a tail for the per-second line, or
 * JSON keys; "" without avoidance.  A static buffer: loop thread only. */
static const char *
bodies_text(const options *o, const gc_sim_stats *st, bool json)
{
    static char buf[512];
    if (o->sim.avoid != GC_AVOID_ORCA)
        return "";
    snprintf(buf, sizeof buf,
             json ? ", \"avoid\": \"orca\", \"radius\": %.4f, "
                    "\"overlaps_mean\": %.4f, \"overlaps_max\": %llu, "
                    "\"overlap_depth_max\": %.4f, \"in_wall\": %llu, "
                    "\"stalled\": %llu, \"speed_ratio\": %.4f, "
                    "\"avoid_ms_mean\": %.4f"
                  : "  bodies r %.2f: %.2f overlaps/tick (max %llu, deepest "
                    "%.3f of 2r) %llu in walls %llu stalled  speed %.2f of "
                    "preferred  avoid %.2f ms/tick",
             o->sim.radius, st->overlaps_mean,
             (unsigned long long)st->overlaps_max, st->overlap_depth_max,
             (unsigned long long)st->in_wall, (unsigned long long)st->stalled,
             st->speed_ratio, st->avoid_ms_mean);
    return buf;
}

static void
print_second(const options *o, const gc_sim_stats *st, double secs,
             uint64_t ticks_in_window)
{
    if (o->quiet)
        return;
    double per_s = secs > 0 ? 1.0 / secs : 0.0;
    fprintf(stderr,
            "%s: tick %llu  %.1f ticks/s  agents: %llu moving %llu waiting "
            "%llu arrived %llu stuck %llu unreachable  %.0f arrivals/s  "
            "%.0f paths/s  path %.1f us mean (search %.1f + smooth %.1f) "
            "%.1f us p99  %.0f expanded/path%s\n",
            prog, (unsigned long long)st->ticks,
            (double)ticks_in_window * per_s,
            (unsigned long long)st->by_state[GC_AGENT_MOVING],
            (unsigned long long)st->by_state[GC_AGENT_WAITING],
            (unsigned long long)st->by_state[GC_AGENT_ARRIVED],
            (unsigned long long)st->by_state[GC_AGENT_STUCK],
            (unsigned long long)st->by_state[GC_AGENT_UNREACHABLE],
            (double)st->arrivals * per_s, (double)st->searches * per_s,
            st->search_us_mean, st->search_only_us_mean, st->smooth_us_mean,
            st->search_us_p99,
            st->searches ? (double)st->expanded / (double)st->searches : 0.0,
            bodies_text(o, st, false));
}

static void
progress(const options *o, uint64_t tick, bool done)
{
    if (done) {
        fprintf(stderr, "\r\033[K");
        return;
    }
    if (o->ticks)
        fprintf(stderr, "\r%s: tick %llu/%llu (%.0f%%)\033[K", prog,
                (unsigned long long)tick, (unsigned long long)o->ticks,
                100.0 * (double)tick / (double)o->ticks);
    else
        fprintf(stderr, "\r%s: tick %llu\033[K", prog,
                (unsigned long long)tick);
}

/* The host's messages about the edit queue, as the daemon's own. */
static void
host_report(void *arg, const char *line)
{
    (void)arg;
    msg("%s", line);
}

/* Returns 0 or an exit code.  The loop body is the library's host
 * (gridcrowd/host.h); the daemon adds pacing, the SIGBUS guard around
 * the drain, and what it prints. */
static int
run(const options *o, gc_world *w, gc_host *host, gc_sim *sim, run_figures *fig)
{
    const uint64_t step = (uint64_t)(1e9 / o->sim.hz);
    const uint64_t start = now_ns();
    const bool show_progress = o->batch && isatty(STDERR_FILENO) && !o->quiet;
    uint64_t next = start + step;
    uint64_t win_start = start, win_ticks = 0;
    uint64_t last_publish = 0, last_progress = 0;
    const uint64_t duration_ns =
        o->duration > 0 ? (uint64_t)(o->duration * 1e9) : 0;

    gc_world_set_state(w, GC_WORLD_RUNNING);
    while (!stop_signal) {
        /* Edits from the queue, between ticks while the workers are
         * parked; the agents they touch plan again in this tick.  The
         * guard covers the host's work on the queue object, which anyone
         * allowed to edit can shrink under it. */
        guard_on = 1;
        int rc = gc_host_edits(host, now_ns(), (unsigned long)guard_hits, NULL);
        guard_on = 0;
        if (rc != GC_OK) {
            msg("applying edits: %s", gc_strerror(rc));
            return EXIT_RUNTIME;
        }
        rc = gc_host_tick(host);
        if (rc != GC_OK) {
            msg("tick %llu: %s", (unsigned long long)fig->ticks + 1,
                gc_strerror(rc));
            return EXIT_RUNTIME;
        }
        fig->ticks++;
        win_ticks++;
        uint64_t t = now_ns();

        bool finished = (o->ticks && fig->ticks >= o->ticks) ||
                        (duration_ns && t - start >= duration_ns) ||
                        (o->batch && gc_sim_done(sim));
        /* Real time: publish every tick.  Batch: at most 120 times a wall
         * second (readers cannot use more), and at the end. */
        if (!o->batch || finished || t - last_publish >= 1000000000ull / 120) {
            gc_host_publish_agents(host);
            last_publish = t;
        }
        if (t - win_start >= 1000000000ull || finished) {
            double secs = (double)(t - win_start) / 1e9;
            gc_sim_stats st;
            gc_host_window win = {secs, win_ticks, t - start, fig->overruns};
            gc_host_publish_stats(host, &win, &st);
            if (show_progress)
                progress(o, 0, true);
            print_second(o, &st, secs, win_ticks);
            warn_behind(o, fig, secs, win_ticks, win_start == start);
            win_start = t;
            win_ticks = 0;
        }
        if (show_progress && t - last_progress >= 100000000ull) {
            progress(o, fig->ticks, false);
            last_progress = t;
        }
        if (finished)
            break;
        if (!o->batch) {
            if (t > next) {
                fig->overruns++;
                if (t - start > 1000000000ull)
                    fig->overruns_after_1s++;
                /* Far behind (a stall, a debugger): drop the backlog
                 * rather than run a burst of ticks to catch up. */
                if (t - next > 250000000ull)
                    next = t;
            } else {
                sleep_until(next);
            }
            next += step;
        }
    }
    if (show_progress)
        progress(o, 0, true);
    fig->wall_s = (double)(now_ns() - start) / 1e9;
    gc_sim_stats_total(sim, &fig->total);
    gc_host_counts hc;
    gc_host_counts_get(host, &hc);
    fig->edit_batches = hc.edit_batches;
    return 0;
}

/* The edit counters, when there were edits: totals and each reason. */
static void
write_edit_summary(FILE *f, const gc_edit_applier *ed)
{
    gc_edit_counts c;
    gc_edit_applier_counts(ed, &c);
    if (c.accepted + c.rejected + c.pending == 0)
        return;
    fprintf(f, "%s: edits: %llu accepted, %llu rejected, %llu pending", prog,
            (unsigned long long)c.accepted, (unsigned long long)c.rejected,
            (unsigned long long)c.pending);
    const char *sep = " (";
    for (int r = 0; r < GC_EDIT_NREASONS; r++)
        if (c.by_reason[r] > 0) {
            fprintf(f, "%s%s %llu", sep, gc_edit_reason_name(r),
                    (unsigned long long)c.by_reason[r]);
            sep = ", ";
        }
    fprintf(f, "%s; %llu cells changed\n", sep[0] == ',' ? ")" : "",
            (unsigned long long)c.cells_changed);
}

static long
max_rss_kb(void)
{
    struct rusage ru;
    return getrusage(RUSAGE_SELF, &ru) == 0 ? ru.ru_maxrss : 0;
}

static void
write_summary(FILE *f, bool json, const options *o, const run_figures *fig,
              size_t agents)
{
    const gc_sim_stats *t = &fig->total;
    double tps = fig->wall_s > 0 ? (double)fig->ticks / fig->wall_s : 0.0;
    double sps = fig->wall_s > 0 ? (double)t->searches / fig->wall_s : 0.0;
    if (json) {
        fprintf(f,
                "{\"ticks\": %llu, \"wall_s\": %.6f, \"ticks_per_s\": %.3f, "
                "\"agents\": %zu, \"arrived\": %llu, \"unreachable\": %llu, "
                "\"stuck\": %llu, \"moving\": %llu, \"waiting\": %llu, "
                "\"arrivals\": %llu, \"searches\": %llu, "
                "\"searches_per_s\": %.3f, \"search_us_mean\": %.3f, "
                "\"search_us_p99\": %.3f, \"search_only_us_mean\": %.3f, "
                "\"smooth_us_mean\": %.3f, \"expanded_mean\": %.3f, "
                "\"replans\": %llu, \"overruns\": %llu, "
                "\"overruns_after_1s\": %llu, \"edit_batches\": %llu, "
                "\"replan_delay_ticks_max\": %llu, "
                "\"replan_delay_ms_mean\": %.3f, "
                "\"replan_delay_ms_max\": %.3f, \"threads\": %d, "
                "\"batch\": %s, \"hz\": %.3f, \"max_rss_kb\": %ld%s}\n",
                (unsigned long long)fig->ticks, fig->wall_s, tps, agents,
                (unsigned long long)t->by_state[GC_AGENT_ARRIVED],
                (unsigned long long)t->by_state[GC_AGENT_UNREACHABLE],
                (unsigned long long)t->by_state[GC_AGENT_STUCK],
                (unsigned long long)t->by_state[GC_AGENT_MOVING],
                (unsigned long long)t->by_state[GC_AGENT_WAITING],
                (unsigned long long)t->arrivals,
                (unsigned long long)t->searches, sps, t->search_us_mean,
                t->search_us_p99, t->search_only_us_mean, t->smooth_us_mean,
                t->searches ? (double)t->expanded / (double)t->searches : 0.0,
                (unsigned long long)t->replans,
                (unsigned long long)fig->overruns,
                (unsigned long long)fig->overruns_after_1s,
                (unsigned long long)fig->edit_batches,
                (unsigned long long)t->replan_delay_ticks_max,
                t->replan_delay_ms_mean, t->replan_delay_ms_max, o->sim.threads,
                o->batch ? "true" : "false", o->sim.hz, max_rss_kb(),
                bodies_text(o, t, true));
        return;
    }
    fprintf(f,
            "%s: summary: %llu ticks in %.2f s (%.1f ticks/s), %zu agents: "
            "%llu arrived, %llu unreachable, %llu stuck, %llu moving, %llu "
            "waiting; %llu arrivals; %llu searches (%.0f/s, %.1f us mean: "
            "%.1f search + %.1f smoothing, %.1f us p99); %llu overruns; max "
            "RSS %ld KiB\n",
            prog, (unsigned long long)fig->ticks, fig->wall_s, tps, agents,
            (unsigned long long)t->by_state[GC_AGENT_ARRIVED],
            (unsigned long long)t->by_state[GC_AGENT_UNREACHABLE],
            (unsigned long long)t->by_state[GC_AGENT_STUCK],
            (unsigned long long)t->by_state[GC_AGENT_MOVING],
            (unsigned long long)t->by_state[GC_AGENT_WAITING],
            (unsigned long long)t->arrivals, (unsigned long long)t->searches,
            sps, t->search_us_mean, t->search_only_us_mean, t->smooth_us_mean,
            t->search_us_p99, (unsigned long long)fig->overruns, max_rss_kb());
}

/* ---- set-up ------------------------------------------------------------- */

/*
 * Maps and scenarios are read whole, so refuse what is not a regular file
 * before reading it: a FIFO with no writer would block the daemon forever
 * and /dev/zero would be read for a gigabyte before the parser saw it.
 * stat follows symbolic links, so a link to a map is fine.  (The loader
 * opens without blocking too, so a file swapped for a FIFO after this
 * check still cannot hang the daemon.)  A path that cannot be stat'ed is
 * left to the loader, whose message says why.
 */
static bool
regular_file(const char *path)
{
    struct stat st;
    if (stat(path, &st) != 0 || S_ISREG(st.st_mode))
        return true;
    msg("%s: not a regular file (%s)", path, file_kind(st.st_mode));
    return false;
}

static const char *
base_name(const char *path)
{
    const char *slash = strrchr(path, '/');
    return slash != NULL ? slash + 1 : path;
}

/*
 * The scenario for --goals scen:FILE.  Its lines name their map; a
 * scenario for another map of the same size would load and run with every
 * problem meaningless, so the names must match the map's file name
 * (directories aside: Moving AI scenarios name the bare file), or the name
 * of the file a symbolic link to the map leads to.  Then the sizes are
 * checked by the loader.  Returns 0 or an exit code.
 */
static int
load_scen(const options *o, const gc_grid *map, gc_scen *scen)
{
    gc_error err;
    if (!regular_file(o->scen))
        return EXIT_INPUT;
    if (gc_scen_load(scen, o->scen, NULL, &err) != GC_OK) {
        msg("%s", err.msg);
        return EXIT_INPUT;
    }
    char demo[64];
    snprintf(demo, sizeof demo, "%s", base_name(gc_default_map_name));
    demo[strcspn(demo, " ")] = '\0'; /* "demo.map (built in)" */
    const char *want = o->map != NULL ? base_name(o->map) : demo;
    char real[PATH_MAX];
    const char *target = o->map != NULL && realpath(o->map, real) != NULL
                             ? base_name(real)
                             : want;
    for (size_t i = 0; i < scen->len; i++) {
        const gc_scen_entry *e = &scen->entries[i];
        const char *name = base_name(e->map);
        if (strcmp(name, want) == 0 || strcmp(name, target) == 0)
            continue;
        if (o->map != NULL)
            msg("%s:%d: the scenario is for map '%s', not for %s", o->scen,
                e->line, e->map, o->map);
        else
            msg("%s:%d: the scenario is for map '%s', not for the built-in "
                "%s: pass --map with its map file",
                o->scen, e->line, e->map, demo);
        gc_scen_free(scen);
        return EXIT_INPUT;
    }
    gc_scen_free(scen);
    if (gc_scen_load(scen, o->scen, map, &err) != GC_OK) {
        msg("%s", err.msg);
        return EXIT_INPUT;
    }
    if (scen->len == 0) {
        msg("%s: no problems in the scenario", o->scen);
        gc_scen_free(scen);
        return EXIT_INPUT;
    }
    return 0;
}

static int
load_map(const options *o, gc_grid **g)
{
    gc_error err;
    if (o->map != NULL && !regular_file(o->map))
        return EXIT_INPUT;
    int rc = o->map != NULL
                 ? gc_map_load(g, o->map, &err)
                 : gc_map_parse(g, gc_default_map, gc_default_map_len,
                                gc_default_map_name, &err);
    if (rc != GC_OK) {
        msg("%s", err.msg);
        return rc == GC_ENOMEM ? EXIT_RUNTIME : EXIT_INPUT;
    }
    if (o->uniform)
        gc_grid_set_uniform(*g);
    for (int t = 0; t < GC_CELL_NTYPES; t++)
        if (o->cost_set[t])
            gc_grid_set_cost(*g, t, o->costs[t]);
    if (o->cell_size > 0)
        (*g)->cell_size = (float)o->cell_size;
    return 0;
}

static int
setup_signals(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    /* No SA_RESTART: a signal interrupts the tick sleep at once. */
    /* SIGHUP too: closing the terminal of a foreground daemon must not
     * leave its shared-memory objects behind. */
    if (sigaction(SIGINT, &sa, NULL) != 0 ||
        sigaction(SIGTERM, &sa, NULL) != 0 || sigaction(SIGHUP, &sa, NULL) != 0)
        return -1;
    long page = sysconf(_SC_PAGESIZE);
    if (page > 0)
        guard_page = (uintptr_t)page;
    struct sigaction bus;
    memset(&bus, 0, sizeof bus);
    bus.sa_sigaction = on_sigbus;
    bus.sa_flags = SA_SIGINFO;
    sigemptyset(&bus.sa_mask);
    if (sigaction(SIGBUS, &bus, NULL) != 0)
        return -1;
    signal(SIGPIPE, SIG_IGN);
    return 0;
}

static void
report_takeover(const char *name, pid_t pid)
{
    /* Nobody held its lock, so its owner is gone; a live process with the
     * recorded pid is another one that got the pid since (or the object
     * was a copy). */
    if (pid > 0 && kill(pid, 0) != 0 && errno == ESRCH)
        msg("took over stale shared-memory object %s from dead process %d",
            name, (int)pid);
    else if (pid > 0)
        msg("took over stale shared-memory object %s: process %d named in "
            "it no longer holds it",
            name, (int)pid);
    else
        msg("took over stale shared-memory object %s, left without a "
            "header by a daemon that died while starting",
            name);
}

static int
shm_exit_code(int rc)
{
    /* GC_EINVAL is a bad --shm name: every other field gc_world_create
     * checks comes from the map or from ranges parse_args checked. */
    if (rc == GC_EINVAL)
        return EXIT_USAGE;
    return (rc == GC_EBUSY || rc == GC_EPERM || rc == GC_EEXIST) ? EXIT_SHM
                                                                 : EXIT_RUNTIME;
}

int
main(int argc, char **argv)
{
    options o;
    options_init(&o);
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    o.sim.threads = cores > 0 ? (int)(cores < 256 ? cores : 256) : 1;

    int code = parse_args(&o, argc, argv);
    if (code >= 0)
        return code;

    gc_grid *map = NULL, *grid = NULL;
    gc_scen scen = {0};
    gc_world *world = NULL;
    gc_sim *sim = NULL;
    gc_host *host = NULL;
    stats_file sf = {0};
    gc_error err;
    bool scen_loaded = false;

    code = load_map(&o, &map);
    if (code)
        goto out;
    /* A goal on a wall would send every agent on a partial path to the
     * nearest cell they can reach: never what a point goal means. */
    if (o.sim.goals == GC_GOALS_POINT &&
        gc_grid_in_bounds(map, o.sim.point.x, o.sim.point.y) &&
        !gc_grid_passable(map, o.sim.point.x, o.sim.point.y)) {
        msg("goal point (%d, %d) is not a passable cell of the map",
            (int)o.sim.point.x, (int)o.sim.point.y);
        code = EXIT_INPUT;
        goto out;
    }
    if (o.sim.goals == GC_GOALS_SCEN) {
        code = load_scen(&o, map, &scen);
        if (code)
            goto out;
        scen_loaded = true;
        o.sim.scen = &scen;
        o.sim.scen_name = o.scen;
        if (o.given[O_AGENTS] == NULL || o.sim.agents > scen.len)
            o.sim.agents = (uint32_t)scen.len;
    }
    /* Real time: a tick may spend at most 60% of its step planning, so the
     * first plans of many agents spread over ticks instead of overrunning. */
    if (!o.batch)
        o.sim.plan_time_ns = (uint64_t)(0.6e9 / o.sim.hz);
    if (!stats_file_open(&sf, o.stats_json)) {
        code = EXIT_STATS;
        goto out;
    }
    if (setup_signals() != 0) {
        msg("cannot install signal handlers: %s", strerror(errno));
        code = EXIT_RUNTIME;
        goto out;
    }

    gc_world_config wc;
    memset(&wc, 0, sizeof wc);
    wc.name = o.shm;
    wc.width = map->width;
    wc.height = map->height;
    wc.cell_size = map->cell_size;
    wc.agent_capacity = o.sim.agents;
    wc.world_mode = (mode_t)o.shm_mode;
    if (o.given[O_EDIT_GROUP] != NULL) {
        wc.set_group = true;
        wc.group = o.edit_gid;
        wc.edits_mode = 0660;
    }
    gc_world_takeover took;
    int rc = gc_world_create(&world, &wc, &took, &err);
    if (rc != GC_OK) {
        if (rc == GC_EINVAL)
            msg("--shm: %s", err.msg);
        else
            msg("%s", err.msg);
        code = shm_exit_code(rc);
        goto out;
    }
    if (took.world)
        report_takeover(gc_world_name(world), took.world_pid);
    if (took.edits)
        report_takeover(gc_queue_name(gc_world_queue(world)), took.edits_pid);

    /* The simulation runs on the cells in shared memory. */
    rc = gc_host_grid(world, map, &grid);
    if (rc != GC_OK) {
        msg("shared-memory grid: %s", gc_strerror(rc));
        code = EXIT_RUNTIME;
        goto out;
    }

    if (o.given[O_RADIUS] == NULL) /* the default, fitted to the demo map */
        o.sim.radius = 0.35f * grid->cell_size;
    rc = gc_sim_new(&sim, grid, &o.sim, &err);
    if (rc != GC_OK) {
        msg("%s", err.msg);
        code = rc == GC_ENOMEM || rc == GC_ESYS ? EXIT_RUNTIME : EXIT_INPUT;
        goto out;
    }
    gc_host_config hc = {world, grid, sim, host_report, NULL};
    if (gc_host_new(&host, &hc) != GC_OK) {
        msg("edit applier: %s", gc_strerror(GC_ENOMEM));
        code = EXIT_RUNTIME;
        goto out;
    }
    gc_host_publish_agents(host);
    if (!o.quiet)
        msg("running: %s %dx%d, %zu agents, %d threads, %s at %.0f Hz, "
            "shared memory /%s (pid %d)",
            o.map ? o.map : gc_default_map_name, map->width, map->height,
            gc_sim_agent_count(sim), o.sim.threads,
            o.batch ? "batch" : "real time", o.sim.hz, o.shm, (int)getpid());

    run_figures fig;
    memset(&fig, 0, sizeof fig);
    code = run(&o, world, host, sim, &fig);
    gc_world_set_state(world, GC_WORLD_STOPPING);
    if (code == 0) {
        if (stop_signal && !o.quiet)
            msg("stopping on %s", stop_signal == SIGINT   ? "SIGINT"
                                  : stop_signal == SIGHUP ? "SIGHUP"
                                                          : "SIGTERM");
        write_summary(stderr, false, &o, &fig, gc_sim_agent_count(sim));
        write_edit_summary(stderr, gc_host_applier(host));
        gc_host_counts counts;
        gc_host_counts_get(host, &counts);
        if (counts.queue_resets > 0)
            msg("edit queue: found damaged and made again %lu times "
                "(SIGBUS caught %d times)",
                (unsigned long)counts.queue_resets, (int)guard_hits);
        if (sf.f != NULL) {
            write_summary(sf.f, true, &o, &fig, gc_sim_agent_count(sim));
            if (!stats_file_commit(&sf))
                code = EXIT_STATS;
        }
    }

out:
    stats_file_abort(&sf);
    gc_host_free(host);
    gc_sim_free(sim);
    gc_grid_free(grid);
    if (world != NULL)
        gc_world_destroy(world);
    if (scen_loaded)
        gc_scen_free(&scen);
    gc_grid_free(map);
    return code;
}
