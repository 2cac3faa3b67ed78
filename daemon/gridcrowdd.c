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
 *   0  ran and stopped cleanly (SIGINT, SIGTERM, --ticks, --duration, or
 *      every agent done in scen/point batch runs)
 *   1  failure while running (out of memory, a system call failed)
 *   2  bad command line
 *   3  bad input: a map or scenario that fails to load or does not fit
 *   4  shared memory: the name is taken by a live daemon, or by an object
 *      that is not a gridcrowd one; permission denied (--edit-group: the
 *      group cannot be given)
 *   5  the --stats-json file cannot be written
 * On every exit after the shared-memory objects were created, they are
 * removed; a stats file is written atomically (temp file + rename) and no
 * temp file is left behind.
 */
#include "config.h"

#include <gridcrowd/agent.h>
#include <gridcrowd/astar.h>
#include <gridcrowd/edits.h>
#include <gridcrowd/grid.h>
#include <gridcrowd/host.h>
#include <gridcrowd/mapio.h>
#include <gridcrowd/sim.h>
#include <gridcrowd/version.h>
#include <gridcrowd/world.h>

#include <errno.h>
#include <getopt.h>
#include <grp.h>
#include <limits.h>
#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
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

typedef struct options {
    const char *map;
    bool uniform;
    float costs[GC_CELL_NTYPES];
    bool cost_set[GC_CELL_NTYPES];
    double cell_size;
    bool agents_set;
    gc_sim_config sim;
    bool speed_set;
    const char *scen;
    uint64_t ticks;
    double duration;
    bool batch;
    const char *shm;
    unsigned shm_mode;
    bool shm_mode_set;
    const char *edit_group; /* as given, for messages */
    bool edit_group_set;
    gid_t edit_gid;
    const char *stats_json;
    bool quiet;
} options;

static void
usage(FILE *f)
{
    fprintf(
        f,
        "Usage: gridcrowdd [OPTIONS]\n"
        "Run a crowd simulation on a grid in POSIX shared memory.  With no "
        "options,\n"
        "a demo: the built-in town map, 300 wandering agents, real time, "
        "until\n"
        "SIGINT.  Attach with gridcrowd-ctl or gridcrowd-view.\n"
        "\n"
        "Map and costs:\n"
        "  --map FILE            Moving AI .map file (default: built-in demo "
        "map)\n"
        "  --uniform             every passable cell costs 1 (Moving AI "
        "lengths)\n"
        "  --cost TYPE=VALUE     cost of walkable, high or low cells "
        "(defaults\n"
        "                        1, 2, 0.5); repeatable\n"
        "  --cell-size UNITS     world units per cell (default 1)\n"
        "Agents:\n"
        "  --agents N            number of agents (default 300; scen: all "
        "lines)\n"
        "  --goals MODE          wander | point:X,Y | scen:FILE (default "
        "wander)\n"
        "  --wander-radius CELLS wander goals within this many cells of the\n"
        "                        agent (default 0: anywhere reachable)\n"
        "  --speed UNITS         world units per second (default 4 cells/s)\n"
        "  --arrive-radius UNITS arrival radius (default 0.1 cell)\n"
        "  --turn-rate RAD       turn rate in radians/s, 0 = at once (default "
        "0)\n"
        "  --seed N              random seed (default 1)\n"
        "  --smooth, --no-smooth smooth planned paths (default on)\n"
        "  --diag RULE           no-corner-cut | never | one-free | always\n"
        "                        (default no-corner-cut)\n"
        "Running:\n"
        "  --threads N           agent threads (default: online cores)\n"
        "  --hz N                ticks per second (default 60)\n"
        "  --plan-budget N       path searches per thread per tick (default "
        "64;\n"
        "                        in real time also at most 60%% of a tick)\n"
        "  --ticks N             stop after N ticks\n"
        "  --duration SECONDS    stop after this much wall time\n"
        "  --batch               run ticks as fast as possible, not in real "
        "time;\n"
        "                        scen/point runs end when every agent is done\n"
        "  --shm NAME            shared-memory name (default gridcrowd)\n"
        "  --shm-mode MODE       octal mode of the world object (default "
        "0600;\n"
        "                        0640 with --edit-group)\n"
        "  --edit-group GROUP    let GROUP (a name or a gid) edit: both "
        "objects get\n"
        "                        that group, the edit queue mode 0660\n"
        "  --stats-json FILE     write the summary as JSON at the end\n"
        "  --quiet               no per-second figures\n"
        "  --help, --version\n"
        "\n"
        "Exit codes: 0 stopped cleanly; 1 failure while running; 2 bad "
        "command\n"
        "line; 3 bad map or scenario; 4 shared memory taken or not permitted;\n"
        "5 stats file not writable.\n");
}

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
        o->edit_group_set = true;
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
    o->edit_group_set = true;
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

enum {
    OPT_MAP = 256,
    OPT_UNIFORM,
    OPT_COST,
    OPT_CELL_SIZE,
    OPT_AGENTS,
    OPT_THREADS,
    OPT_HZ,
    OPT_SPEED,
    OPT_ARRIVE,
    OPT_TURN,
    OPT_GOALS,
    OPT_SEED,
    OPT_TICKS,
    OPT_DURATION,
    OPT_BATCH,
    OPT_BUDGET,
    OPT_SMOOTH,
    OPT_NO_SMOOTH,
    OPT_SHM,
    OPT_SHM_MODE,
    OPT_STATS,
    OPT_QUIET,
    OPT_DIAG,
    OPT_HELP,
    OPT_WANDER_RADIUS,
    OPT_EDIT_GROUP,
    OPT_VERSION
};

/* Returns -1 to go on, else the exit code. */
static int
parse_args(options *o, int argc, char **argv)
{
    static const struct option longs[] = {
        {"map", required_argument, 0, OPT_MAP},
        {"uniform", no_argument, 0, OPT_UNIFORM},
        {"cost", required_argument, 0, OPT_COST},
        {"cell-size", required_argument, 0, OPT_CELL_SIZE},
        {"agents", required_argument, 0, OPT_AGENTS},
        {"threads", required_argument, 0, OPT_THREADS},
        {"hz", required_argument, 0, OPT_HZ},
        {"speed", required_argument, 0, OPT_SPEED},
        {"arrive-radius", required_argument, 0, OPT_ARRIVE},
        {"turn-rate", required_argument, 0, OPT_TURN},
        {"goals", required_argument, 0, OPT_GOALS},
        {"seed", required_argument, 0, OPT_SEED},
        {"ticks", required_argument, 0, OPT_TICKS},
        {"duration", required_argument, 0, OPT_DURATION},
        {"batch", no_argument, 0, OPT_BATCH},
        {"plan-budget", required_argument, 0, OPT_BUDGET},
        {"smooth", no_argument, 0, OPT_SMOOTH},
        {"no-smooth", no_argument, 0, OPT_NO_SMOOTH},
        {"shm", required_argument, 0, OPT_SHM},
        {"shm-mode", required_argument, 0, OPT_SHM_MODE},
        {"edit-group", required_argument, 0, OPT_EDIT_GROUP},
        {"stats-json", required_argument, 0, OPT_STATS},
        {"quiet", no_argument, 0, OPT_QUIET},
        {"diag", required_argument, 0, OPT_DIAG},
        {"wander-radius", required_argument, 0, OPT_WANDER_RADIUS},
        {"help", no_argument, 0, OPT_HELP},
        {"version", no_argument, 0, OPT_VERSION},
        {0, 0, 0, 0},
    };
    double d;
    uint64_t u;
    opterr = 0;
    for (;;) {
        int longi = 0;
        int c = getopt_long(argc, argv, ":", longs, &longi);
        if (c == -1)
            break;
        switch (c) {
        case OPT_MAP:
            o->map = optarg;
            break;
        case OPT_UNIFORM:
            o->uniform = true;
            break;
        case OPT_COST:
            if (!parse_cost(o, optarg))
                return EXIT_USAGE;
            break;
        case OPT_CELL_SIZE:
            if (!parse_num("--cell-size", optarg, 1e-3, 1e6, &d))
                return EXIT_USAGE;
            o->cell_size = d;
            break;
        case OPT_AGENTS:
            if (!parse_u64("--agents", optarg, 1, 10000000, &u))
                return EXIT_USAGE;
            o->sim.agents = (uint32_t)u;
            o->agents_set = true;
            break;
        case OPT_THREADS:
            if (!parse_u64("--threads", optarg, 1, 256, &u))
                return EXIT_USAGE;
            o->sim.threads = (int)u;
            break;
        case OPT_HZ:
            if (!parse_num("--hz", optarg, 1, 10000, &d))
                return EXIT_USAGE;
            o->sim.hz = d;
            break;
        case OPT_SPEED:
            if (!parse_num("--speed", optarg, 1e-6, 1e6, &d))
                return EXIT_USAGE;
            o->sim.motion.speed = (float)d;
            o->speed_set = true;
            break;
        case OPT_ARRIVE:
            if (!parse_num("--arrive-radius", optarg, 0, 1e6, &d))
                return EXIT_USAGE;
            o->sim.motion.arrive_radius = (float)d;
            break;
        case OPT_TURN:
            if (!parse_num("--turn-rate", optarg, 0, 1e6, &d))
                return EXIT_USAGE;
            o->sim.motion.turn_rate = (float)d;
            break;
        case OPT_GOALS:
            if (!parse_goals(o, optarg))
                return EXIT_USAGE;
            break;
        case OPT_SEED:
            if (!parse_u64("--seed", optarg, 0, UINT64_MAX, &u))
                return EXIT_USAGE;
            o->sim.seed = u;
            break;
        case OPT_TICKS:
            if (!parse_u64("--ticks", optarg, 1, UINT64_MAX / 2, &u))
                return EXIT_USAGE;
            o->ticks = u;
            break;
        case OPT_DURATION:
            if (!parse_num("--duration", optarg, 1e-3, 1e9, &d))
                return EXIT_USAGE;
            o->duration = d;
            break;
        case OPT_BATCH:
            o->batch = true;
            break;
        case OPT_BUDGET:
            if (!parse_u64("--plan-budget", optarg, 1, 1000000, &u))
                return EXIT_USAGE;
            o->sim.plan_budget = (uint32_t)u;
            break;
        case OPT_SMOOTH:
            o->sim.smooth = true;
            break;
        case OPT_NO_SMOOTH:
            o->sim.smooth = false;
            break;
        case OPT_SHM:
            o->shm = optarg;
            break;
        case OPT_SHM_MODE: {
            char *end;
            errno = 0;
            unsigned long m = strtoul(optarg, &end, 8);
            if (*optarg == '\0' || *end != '\0' || errno || m > 0777 ||
                (m & 0600) != 0600) {
                msg("--shm-mode: expected an octal mode from 0600 to 0777 "
                    "that keeps owner read and write, got '%s'",
                    optarg);
                return EXIT_USAGE;
            }
            o->shm_mode = (unsigned)m;
            o->shm_mode_set = true;
            break;
        }
        case OPT_EDIT_GROUP:
            if (!parse_group(o, optarg))
                return EXIT_USAGE;
            break;
        case OPT_STATS:
            o->stats_json = optarg;
            break;
        case OPT_QUIET:
            o->quiet = true;
            break;
        case OPT_WANDER_RADIUS:
            if (!parse_u64("--wander-radius", optarg, 0, 65536, &u))
                return EXIT_USAGE;
            o->sim.wander_radius = (uint32_t)u;
            break;
        case OPT_DIAG: {
            int r = gc_diag_rule_parse(optarg);
            if (r < 0) {
                msg("--diag: expected no-corner-cut, never, one-free or "
                    "always, got '%s'",
                    optarg);
                return EXIT_USAGE;
            }
            o->sim.diag = (gc_diag_rule)r;
            break;
        }
        case OPT_HELP:
            usage(stdout);
            return 0;
        case OPT_VERSION:
            printf("gridcrowdd %s\n", gc_version());
            return 0;
        case ':':
            msg("%s needs a value (see --help)", argv[optind - 1]);
            return EXIT_USAGE;
        default:
            msg("unknown option '%s' (see --help)", argv[optind - 1]);
            return EXIT_USAGE;
        }
    }
    if (optind < argc) {
        msg("unexpected argument '%s' (see --help)", argv[optind]);
        return EXIT_USAGE;
    }
    if (o->edit_group_set) {
        /* Editing starts with attaching the world read-only, so the group
         * must be able to read it too. */
        if (!o->shm_mode_set)
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

/* ---- the stats file: made at start so an unwritable path fails early, then
 * written at the end and renamed into place ---------------------------------
 */

typedef struct stats_file {
    const char *path;
    char tmp[PATH_MAX];
    FILE *f;
} stats_file;

static bool
stats_file_open(stats_file *sf, const char *path)
{
    sf->path = path;
    sf->f = NULL;
    if (path == NULL)
        return true;
    int n = snprintf(sf->tmp, sizeof sf->tmp, "%s.XXXXXX", path);
    if (n < 0 || (size_t)n >= sizeof sf->tmp) {
        msg("--stats-json: %s: path too long", path);
        return false;
    }
    int fd = mkstemp(sf->tmp);
    if (fd < 0) {
        msg("--stats-json: %s: cannot write: %s", path, strerror(errno));
        return false;
    }
    sf->f = fdopen(fd, "w");
    if (sf->f == NULL) {
        msg("--stats-json: %s: %s", path, strerror(errno));
        close(fd);
        unlink(sf->tmp);
        return false;
    }
    return true;
}

/* Forget the temp file (error paths). */
static void
stats_file_abort(stats_file *sf)
{
    if (sf->f == NULL)
        return;
    fclose(sf->f);
    unlink(sf->tmp);
    sf->f = NULL;
}

static bool
stats_file_commit(stats_file *sf)
{
    if (sf->f == NULL)
        return true;
    bool ok = fflush(sf->f) == 0 && !ferror(sf->f);
    ok = (fclose(sf->f) == 0) && ok;
    sf->f = NULL;
    if (ok && rename(sf->tmp, sf->path) == 0)
        return true;
    msg("--stats-json: %s: %s", sf->path, strerror(errno));
    unlink(sf->tmp);
    return false;
}

/* ---- the run ------------------------------------------------------------- */

typedef struct run_figures {
    uint64_t ticks;
    double wall_s;
    uint64_t overruns, overruns_after_1s;
    gc_sim_stats total;
    uint64_t edit_batches; /* ticks whose edits changed cells */
} run_figures;

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
            "%.0f paths/s  path %.1f us mean %.1f us p99  %.0f "
            "expanded/path\n",
            prog, (unsigned long long)st->ticks,
            (double)ticks_in_window * per_s,
            (unsigned long long)st->by_state[GC_AGENT_MOVING],
            (unsigned long long)st->by_state[GC_AGENT_WAITING],
            (unsigned long long)st->by_state[GC_AGENT_ARRIVED],
            (unsigned long long)st->by_state[GC_AGENT_STUCK],
            (unsigned long long)st->by_state[GC_AGENT_UNREACHABLE],
            (double)st->arrivals * per_s, (double)st->searches * per_s,
            st->search_us_mean, st->search_us_p99,
            st->searches ? (double)st->expanded / (double)st->searches : 0.0);
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
        fprintf(
            f,
            "{\"ticks\": %llu, \"wall_s\": %.6f, \"ticks_per_s\": %.3f, "
            "\"agents\": %zu, \"arrived\": %llu, \"unreachable\": %llu, "
            "\"stuck\": %llu, \"moving\": %llu, \"waiting\": %llu, "
            "\"arrivals\": %llu, \"searches\": %llu, "
            "\"searches_per_s\": %.3f, \"search_us_mean\": %.3f, "
            "\"search_us_p99\": %.3f, \"expanded_mean\": %.3f, "
            "\"replans\": %llu, \"overruns\": %llu, "
            "\"overruns_after_1s\": %llu, \"edit_batches\": %llu, "
            "\"replan_delay_ticks_max\": %llu, "
            "\"replan_delay_ms_mean\": %.3f, "
            "\"replan_delay_ms_max\": %.3f, \"threads\": %d, "
            "\"batch\": %s, \"hz\": %.3f, \"max_rss_kb\": %ld}\n",
            (unsigned long long)fig->ticks, fig->wall_s, tps, agents,
            (unsigned long long)t->by_state[GC_AGENT_ARRIVED],
            (unsigned long long)t->by_state[GC_AGENT_UNREACHABLE],
            (unsigned long long)t->by_state[GC_AGENT_STUCK],
            (unsigned long long)t->by_state[GC_AGENT_MOVING],
            (unsigned long long)t->by_state[GC_AGENT_WAITING],
            (unsigned long long)t->arrivals, (unsigned long long)t->searches,
            sps, t->search_us_mean, t->search_us_p99,
            t->searches ? (double)t->expanded / (double)t->searches : 0.0,
            (unsigned long long)t->replans, (unsigned long long)fig->overruns,
            (unsigned long long)fig->overruns_after_1s,
            (unsigned long long)fig->edit_batches,
            (unsigned long long)t->replan_delay_ticks_max,
            t->replan_delay_ms_mean, t->replan_delay_ms_max, o->sim.threads,
            o->batch ? "true" : "false", o->sim.hz, max_rss_kb());
        return;
    }
    fprintf(f,
            "%s: summary: %llu ticks in %.2f s (%.1f ticks/s), %zu agents: "
            "%llu arrived, %llu unreachable, %llu stuck, %llu moving, %llu "
            "waiting; %llu arrivals; %llu searches (%.0f/s, %.1f us mean, "
            "%.1f us p99); %llu overruns; max RSS %ld KiB\n",
            prog, (unsigned long long)fig->ticks, fig->wall_s, tps, agents,
            (unsigned long long)t->by_state[GC_AGENT_ARRIVED],
            (unsigned long long)t->by_state[GC_AGENT_UNREACHABLE],
            (unsigned long long)t->by_state[GC_AGENT_STUCK],
            (unsigned long long)t->by_state[GC_AGENT_MOVING],
            (unsigned long long)t->by_state[GC_AGENT_WAITING],
            (unsigned long long)t->arrivals, (unsigned long long)t->searches,
            sps, t->search_us_mean, t->search_us_p99,
            (unsigned long long)fig->overruns, max_rss_kb());
}

/* ---- set-up ------------------------------------------------------------- */

static int
load_map(const options *o, gc_grid **g)
{
    gc_error err;
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
    if (sigaction(SIGINT, &sa, NULL) != 0 || sigaction(SIGTERM, &sa, NULL) != 0)
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
    return (rc == GC_EBUSY || rc == GC_EPERM || rc == GC_EEXIST ||
            rc == GC_EINVAL)
               ? EXIT_SHM
               : EXIT_RUNTIME;
}

int
main(int argc, char **argv)
{
    options o;
    memset(&o, 0, sizeof o);
    gc_sim_config_init(&o.sim);
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    o.sim.threads = cores > 0 ? (int)(cores < 256 ? cores : 256) : 1;
    o.shm = "gridcrowd";
    o.shm_mode = 0600;

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
    if (o.sim.goals == GC_GOALS_SCEN) {
        if (gc_scen_load(&scen, o.scen, map, &err) != GC_OK) {
            msg("%s", err.msg);
            code = EXIT_INPUT;
            goto out;
        }
        scen_loaded = true;
        if (scen.len == 0) {
            msg("%s: no problems in the scenario", o.scen);
            code = EXIT_INPUT;
            goto out;
        }
        o.sim.scen = &scen;
        o.sim.scen_name = o.scen;
        if (!o.agents_set || o.sim.agents > scen.len)
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
    if (o.edit_group_set) {
        wc.set_group = true;
        wc.group = o.edit_gid;
        wc.edits_mode = 0660;
    }
    gc_world_takeover took;
    int rc = gc_world_create(&world, &wc, &took, &err);
    if (rc != GC_OK) {
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
            msg("stopping on %s", stop_signal == SIGINT ? "SIGINT" : "SIGTERM");
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
