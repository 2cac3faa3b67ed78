/*
 * options.c: gridcrowdd's options, as one table.
 *
 * One table, opt_rows[] below, says everything about each option: its name,
 * the kind of argument, the range, the default, the unit, the field it sets
 * and its help text.  getopt_long's array, --help, the range checks, the
 * defaults and the "given twice" / "overrides" warnings are all made from
 * it, so an option is written in one place.  Options that need more than a
 * number or a string (--goals, --cost, --diag, --shm-mode, --edit-group)
 * name a parse function in their row (options-parse.c, with the number
 * parsers); it prints its own one-line message.
 * Every parse error is one line (prog.h) and exit code 2.
 */
#include "config.h"

#include <gridcrowd/orca.h>
#include <gridcrowd/astar.h>
#include <gridcrowd/grid.h>
#include <gridcrowd/version.h>

#include <getopt.h>
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "daemon.h"

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

#include "options_int.h"

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
    [O_SCENARIO] = {.name = "scenario",
                    .kind = ARG_TEXT,
                    .metavar = "FILE",
                    FIELD(scenario, FT_TEXT),
                    .help = "run a scenario file (JSON, docs/scenario.md): "
                            "its geometry, groups, sources, exits, events "
                            "and stop rule; --seed, --ticks, --max-agents "
                            "and the body flags --speed, --radius, "
                            "--turn-rate and --wander-radius override the "
                            "file's; --map, --cell-size, --agents and "
                            "--goals are refused"},
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
                .parse = opt_parse_cost,
                .help = "cost of walkable, high or low cells; repeatable"},
    [O_CELL_SIZE] = {.name = "cell-size",
                     REAL(1e-3, 1e6),
                     .metavar = "UNITS",
                     .def = "1",
                     .unit = "world units per cell",
                     FIELD(cell_size, FT_DOUBLE),
                     .help = "size of a cell"},
    [O_AGENTS] = {.name = "agents",
                  WHOLE(0, GC_WORLD_MAX_AGENTS),
                  .metavar = "N",
                  .def = "300",
                  .unit = "scen: at most the scenario's problems; 0: "
                          "none until spawned",
                  FIELD(sim.agents, FT_U32),
                  .section = "Agents",
                  .help = "number of agents at the start"},
    [O_MAX_AGENTS] = {.name = "max-agents",
                      WHOLE(1, GC_WORLD_MAX_AGENTS),
                      .metavar = "N",
                      .def = "4 x --agents, at least 1024",
                      .def_text = true,
                      .unit = "at least --agents",
                      FIELD(sim.max_agents, FT_U32),
                      .help = "most agents alive at once: room for "
                              "gridcrowd-ctl spawn"},
    [O_GOALS] = {.name = "goals",
                 .kind = ARG_CUSTOM,
                 .metavar = "MODE",
                 .def = "wander",
                 .off = offsetof(options, sim.goals),
                 .parse = opt_parse_goals,
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
                 .help = "agent speed; with bodies at most half a cell a "
                         "tick"},
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
                .parse = opt_parse_diag,
                .help = "no-corner-cut | never | one-free | always"},
    [O_AVOID] = {.name = "avoid",
                 .kind = ARG_CUSTOM,
                 .metavar = "MODEL",
                 .def = "orca",
                 .off = offsetof(options, sim.avoid),
                 .parse = opt_parse_avoid,
                 .section = "Bodies",
                 .help = "orca: bodies avoid each other (ORCA); "
                         "orca-adaptive: ORCA that looks less far ahead in a "
                         "crush (fewer and shallower overlaps, faster flows, "
                         "doors too fast for RiMEA 9); none: exact path "
                         "followers that pass through each other"},
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
    [O_NEIGHBOUR_DIST] = {.name = "neighbour-dist",
                          REAL(0, 1e6),
                          .metavar = "UNITS",
                          .def = "2 radii + 1 s of walking, at least 4 radii",
                          .def_text = true,
                          .unit = "world units",
                          FIELD(sim.neighbour_dist, FT_FLOAT),
                          .help = "ORCA: how far away agents are seen (RVO2's "
                                  "neighborDist)"},
    [O_MAX_SPEED] = {.name = "max-speed",
                     REAL(0, 1e6),
                     .metavar = "UNITS",
                     .def = "each agent's own speed",
                     .def_text = true,
                     .unit = "world units per second",
                     FIELD(sim.max_speed, FT_FLOAT),
                     .help = "ORCA: the fastest an agent may go to avoid "
                             "others (RVO2's maxSpeed)"},
    [O_TIME_GAP] = {.name = "time-gap",
                    REAL(0, 1e6),
                    .metavar = "S",
                    .def = "1 with --scenario, else 0 (off)",
                    .def_text = true,
                    .unit = "seconds",
                    FIELD(sim.time_gap, FT_FLOAT),
                    .help = "following: walk no faster than the gap to the "
                            "body ahead over this time (door flows as "
                            "people's)"},
    [O_REORDER] = {.name = "reorder",
                   REAL(0, 1e6),
                   .metavar = "S",
                   .def = "20",
                   .unit = "seconds; 0: never",
                   FIELD(sim.reorder, FT_FLOAT),
                   .help = "renumber the agents in the sim's arrays along "
                           "the map after the first tick and then this "
                           "often, so neighbours are read together (ids "
                           "never change)"},
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
                  .help = "path searches per tick, all threads together, "
                          "the first requests first; in real time also at "
                          "most 60% of a tick"},
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
    [O_LEAD] = {.name = "lead",
                WHOLE(0, 60),
                .metavar = "N",
                .def = "2",
                .unit = "ticks",
                FIELD(lead, FT_U32),
                .help = "in real time, run up to N ticks ahead of the clock, "
                        "so that a tick the machine slows is caught up before "
                        "the ticks after it are due; 0 starts every tick on "
                        "time"},
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
                    .parse = opt_parse_shm_mode,
                    .help = "octal mode of the world object; 0640 with "
                            "--edit-group when not given"},
    [O_EDIT_GROUP] = {.name = "edit-group",
                      .kind = ARG_CUSTOM,
                      .metavar = "GROUP",
                      .off = offsetof(options, edit_group),
                      .parse = opt_parse_group,
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
    [O_RECORD] = {.name = "record",
                  .kind = ARG_TEXT,
                  .metavar = "FILE",
                  FIELD(record, FT_TEXT),
                  .help = "record the run into FILE, JuPedSim's SQLite "
                          "trajectory format (version 3) plus gridcrowd's "
                          "tables; an existing file is refused (exit 5) "
                          "unless --record-overwrite"},
    [O_RECORD_EVERY] = {.name = "record-every",
                        WHOLE(1, UINT32_MAX),
                        .metavar = "N",
                        .def = "10 frames per simulated second",
                        .def_text = true,
                        .unit = "ticks per frame",
                        FIELD(record_every, FT_U32),
                        .help = "record every Nth tick"},
    [O_RECORD_OVERWRITE] = {.name = "record-overwrite",
                            .kind = ARG_NONE,
                            .flag = true,
                            FIELD(record_overwrite, FT_BOOL),
                            .help = "replace an existing --record file"},
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

const char *
option_name(int id)
{
    return id >= 0 && id < OPT_COUNT ? opt_rows[id].name : "?";
}

size_t
options_given(const options *o, gc_record_kv *out, size_t cap)
{
    size_t n = 0;
    for (int i = 0; i < OPT_COUNT && n < cap; i++)
        if (o->given[i] != NULL && opt_rows[i].name != NULL)
            out[n++] = (gc_record_kv){opt_rows[i].name, o->given[i]};
    return n;
}

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
        if (!opt_parse_u64(opt, arg, r->umin, r->umax, &u))
            return false;
        break;
    case ARG_REAL:
        if (!opt_parse_num(opt, arg, r->dmin, r->dmax, &d))
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

void
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
            prog_msg("warning: %s given twice",
                     shown(now, sizeof now, id, arg));
        else
            prog_msg("warning: %s overrides %s given before",
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
          "or scenario; 4 shared memory taken or not permitted; 5 stats or "
          "record file\nnot writable.\n",
          f);
}

/* See daemon.h. */
int
options_parse(options *o, int argc, char **argv)
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
        if (c < 256 || c >= 256 + OPT_COUNT)
            return prog_bad_option(EXIT_USAGE, c, argv, longs);
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
    if (optind < argc)
        return prog_usage(EXIT_USAGE, "unexpected argument '%s'", argv[optind]);
    int code = scenario_flags_check(o);
    if (code != 0)
        return code;
    if (o->given[O_EDIT_GROUP] != NULL) {
        /* Editing starts with attaching the world read-only, so the group
         * must be able to read it too. */
        if (o->given[O_SHM_MODE] == NULL)
            o->shm_mode = 0640;
        else if (!(o->shm_mode & 0040)) {
            prog_msg(
                "--edit-group %s: the group must be able to read the world "
                "too, but --shm-mode %04o does not let it (use 0640 or "
                "0644)",
                o->edit_group, o->shm_mode);
            return EXIT_USAGE;
        }
    }
    return -1;
}
