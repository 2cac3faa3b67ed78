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
 *   5  the --stats-json file or the --record file cannot be written (or
 *      the --record file exists and --record-overwrite was not given)
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
#include <gridcrowd/record.h>
#include <gridcrowd/sim.h>
#include <gridcrowd/util.h>
#include <gridcrowd/world.h>

#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "daemon.h"
#include "default_map.h"

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

/* ---- pacing ------------------------------------------------------------ */

static void
sleep_until(uint64_t t)
{
    struct timespec ts = {(time_t)(t / 1000000000ull),
                          (long)(t % 1000000000ull)};
    /* EINTR (a signal) just returns early: the loop checks stop_signal. */
    clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL);
}

/* The host's messages about the edit queue, as the daemon's own. */
static void
host_report(void *arg, const char *line)
{
    (void)arg;
    prog_msg("%s", line);
}

/* Returns 0 or an exit code.  The loop body is the library's host
 * (gridcrowd/host.h); the daemon adds pacing, the SIGBUS guard around
 * the drain, and what it prints. */
static int
run(const options *o, gc_world *w, gc_host *host, gc_sim *sim,
    const gc_grid *grid, recording *rec, run_figures *fig, scenario_mode *sm)
{
    const uint64_t step = (uint64_t)(1e9 / o->sim.hz);
    const uint64_t lead_ns = (uint64_t)o->lead * step;
    const uint64_t start = gc_clock_ns();
    const bool show_progress = o->batch && isatty(STDERR_FILENO) && !o->quiet;
    uint64_t next = start + step;
    uint64_t win_start = start, win_ticks = 0;
    uint64_t last_publish = 0, last_progress = 0;
    const uint64_t duration_ns =
        o->duration > 0 ? (uint64_t)(o->duration * 1e9) : 0;

    gc_world_set_state(w, GC_WORLD_RUNNING);
    if (rec->rec != NULL)
        record_frame(rec, sim, grid); /* frame 0: the start */
    while (!stop_signal) {
        const uint64_t began = gc_clock_ns();
        gc_error err;
        /* A scenario's events and sources for this tick; its grid events
         * go onto the queue and are drained just below. */
        if (sm != NULL && gc_scenario_run_before_tick(sm->run, &err) != GC_OK) {
            prog_msg("%s", err.msg);
            return EXIT_RUNTIME;
        }
        /* Edits from the queue, between ticks while the workers are
         * parked; the agents they touch plan again in this tick.  The
         * guard covers the host's work on the queue object, which anyone
         * allowed to edit can shrink under it. */
        guard_on = 1;
        int rc =
            gc_host_edits(host, gc_clock_ns(), (unsigned long)guard_hits, NULL);
        guard_on = 0;
        if (rc != GC_OK) {
            prog_msg("applying edits: %s", gc_strerror(rc));
            return EXIT_RUNTIME;
        }
        rc = gc_host_tick(host);
        if (rc != GC_OK) {
            prog_msg("tick %llu: %s", (unsigned long long)fig->ticks + 1,
                     gc_strerror(rc));
            return EXIT_RUNTIME;
        }
        if (sm != NULL && gc_scenario_run_after_tick(sm->run, &err) != GC_OK) {
            prog_msg("%s", err.msg);
            return EXIT_RUNTIME;
        }
        fig->ticks++;
        win_ticks++;
        rec->tick = fig->ticks;
        uint64_t t = gc_clock_ns();

        /* In real time, when the loop ran ahead of the clock (--lead),
         * --duration counts the tick as ending when it would have had it
         * started on time (at next - step): the same ticks in the same
         * time whatever the lead. */
        const uint64_t sched =
            o->batch || began >= next - step ? t : next - step + (t - began);
        bool finished = (o->ticks && fig->ticks >= o->ticks) ||
                        (duration_ns && sched - start >= duration_ns) ||
                        (sm != NULL ? gc_scenario_run_done(sm->run)
                                    : o->batch && gc_sim_done(sim));
        /* Every tick while someone reads them (gc_host_publish_due). */
        if (finished || gc_host_publish_due(host, o->batch, t - last_publish)) {
            gc_host_publish_agents(host);
            last_publish = t;
            fig->snapshots++;
        }
        if (rec->rec != NULL && fig->ticks % rec->every == 0)
            record_frame(rec, sim, grid);
        if (t - win_start >= 1000000000ull || finished) {
            double secs = (double)(t - win_start) / 1e9;
            gc_sim_stats st;
            gc_host_window win = {secs, win_ticks, t - start, fig->overruns};
            gc_host_publish_stats(host, &win, &st);
            if (show_progress)
                progress(o, 0, true);
            gc_record_stats rs;
            if (rec->rec != NULL)
                gc_recorder_stats(rec->rec, &rs);
            print_second(o, &st, secs, win_ticks, rec->rec != NULL ? &rs : NULL,
                         scenario_second_text(sm));
            warn_behind(o, fig, secs, win_ticks, win_start == start);
            win_start = t;
            win_ticks = 0;
        }
        if (show_progress && t - last_progress >= 100000000ull) {
            progress(o, fig->ticks, false);
            last_progress = t;
        }
        if (began - start >= 1000000000ull)
            tick_time_add(fig, gc_clock_ns() - began,
                          !o->batch && t > next ? t - next : 0);
        if (finished) {
            /* Ahead of the clock: the run ends when its last tick was
             * due to start, not before. */
            if (!o->batch && sched > t)
                sleep_until(sched);
            break;
        }
        if (!o->batch) {
            if (t > next) {
                fig->overruns++;
                if (t - start > 1000000000ull)
                    fig->overruns_after_1s++;
                /* Far behind (a stall, a debugger): drop the backlog
                 * rather than run a burst of ticks to catch up. */
                if (t - next > 250000000ull)
                    next = t;
            } else if (next - t > lead_ns) {
                /* The next tick may start up to --lead ticks before its
                 * time on the clock: a tick the machine slows then eats
                 * into that lead instead of making the ticks after it
                 * late. */
                sleep_until(next - lead_ns);
            }
            next += step;
        }
    }
    if (show_progress)
        progress(o, 0, true);
    fig->wall_s = (double)(gc_clock_ns() - start) / 1e9;
    gc_sim_stats_total(sim, &fig->total);
    gc_host_counts hc;
    gc_host_counts_get(host, &hc);
    fig->edit_batches = hc.edit_batches;
    return 0;
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
bool
regular_file(const char *path)
{
    struct stat st;
    if (stat(path, &st) != 0 || S_ISREG(st.st_mode))
        return true;
    prog_msg("%s: not a regular file (%s)", path, file_kind(st.st_mode));
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
        prog_msg("%s", err.msg);
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
            prog_msg("%s:%d: the scenario is for map '%s', not for %s", o->scen,
                     e->line, e->map, o->map);
        else
            prog_msg(
                "%s:%d: the scenario is for map '%s', not for the built-in "
                "%s: pass --map with its map file",
                o->scen, e->line, e->map, demo);
        gc_scen_free(scen);
        return EXIT_INPUT;
    }
    gc_scen_free(scen);
    if (gc_scen_load(scen, o->scen, map, &err) != GC_OK) {
        prog_msg("%s", err.msg);
        return EXIT_INPUT;
    }
    if (scen->len == 0) {
        prog_msg("%s: no problems in the scenario", o->scen);
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
        prog_msg("%s", err.msg);
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
    /* Under a file-size limit (ulimit -f) a write past it raises SIGXFSZ,
     * whose default kills the process: ignored, the write fails with
     * EFBIG, the recording stops and the simulation goes on. */
    signal(SIGXFSZ, SIG_IGN);
    return 0;
}

static void
report_takeover(const char *name, pid_t pid)
{
    /* Nobody held its lock, so its owner is gone; a live process with the
     * recorded pid is another one that got the pid since (or the object
     * was a copy). */
    if (pid > 0 && kill(pid, 0) != 0 && errno == ESRCH)
        prog_msg("took over stale shared-memory object %s from dead process %d",
                 name, (int)pid);
    else if (pid > 0)
        prog_msg("took over stale shared-memory object %s: process %d named in "
                 "it no longer holds it",
                 name, (int)pid);
    else
        prog_msg("took over stale shared-memory object %s, left without a "
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

/* Create the shared-memory world for `map`; returns 0 or an exit code. */
static int
create_world(const options *o, const gc_grid *map, gc_world **world)
{
    gc_world_config wc;
    memset(&wc, 0, sizeof wc);
    wc.name = o->shm;
    wc.width = map->width;
    wc.height = map->height;
    wc.cell_size = map->cell_size;
    wc.agent_capacity = o->sim.max_agents;
    wc.world_mode = (mode_t)o->shm_mode;
    /* So that `gridcrowd-ctl path` prices the cells as the agents do. */
    wc.publish_costs = true;
    memcpy(wc.cost, map->cost, sizeof wc.cost);
    wc.diag = o->sim.diag;
    if (o->given[O_EDIT_GROUP] != NULL) {
        wc.set_group = true;
        wc.group = o->edit_gid;
        wc.edits_mode = 0660;
    }
    gc_world_takeover took;
    gc_error err;
    int rc = gc_world_create(world, &wc, &took, &err);
    if (rc != GC_OK) {
        if (rc == GC_EINVAL)
            prog_msg("--shm: %s", err.msg);
        else
            prog_msg("%s", err.msg);
        return shm_exit_code(rc);
    }
    if (took.world)
        report_takeover(gc_world_name(*world), took.world_pid);
    if (took.edits)
        report_takeover(gc_queue_name(gc_world_queue(*world)), took.edits_pid);
    return 0;
}

/* After a clean run: the stop message, the summaries, the stats file.
 * Returns 0 or EXIT_STATS. */
static int
finish(const options *o, const run_figures *fig, gc_host *host, gc_sim *sim,
       stats_file *sf)
{
    if (stop_signal && !o->quiet)
        prog_msg("stopping on %s", stop_signal == SIGINT   ? "SIGINT"
                                   : stop_signal == SIGHUP ? "SIGHUP"
                                                           : "SIGTERM");
    write_summary(stderr, false, o, fig, gc_sim_live_count(sim));
    write_edit_summary(stderr, gc_host_applier(host));
    gc_host_counts counts;
    gc_host_counts_get(host, &counts);
    if (counts.queue_resets > 0)
        prog_msg("edit queue: found damaged and made again %lu times "
                 "(SIGBUS caught %d times)",
                 (unsigned long)counts.queue_resets, (int)guard_hits);
    if (sf->f != NULL) {
        write_summary(sf->f, true, o, fig, gc_sim_live_count(sim));
        if (!stats_file_commit(sf))
            return EXIT_STATS;
    }
    return 0;
}

int
main(int argc, char **argv)
{
    options o;
    prog_init("gridcrowdd");
    options_init(&o);
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    o.sim.threads = cores > 0 ? (int)(cores < 256 ? cores : 256) : 1;

    int code = options_parse(&o, argc, argv);
    if (code >= 0)
        return code;

    gc_grid *map = NULL, *grid = NULL;
    gc_scen scen = {0};
    recording recd = {0};
    gc_world *world = NULL;
    gc_sim *sim = NULL;
    gc_host *host = NULL;
    stats_file sf = {0};
    gc_error err;
    bool scen_loaded = false;
    scenario_mode scenario = {0};

    code = o.scenario != NULL ? scenario_load(&o, &scenario, &map)
                              : load_map(&o, &map);
    if (code)
        goto out;
    /* A goal on a wall would send every agent on a partial path to the
     * nearest cell they can reach: never what a point goal means. */
    if (o.sim.goals == GC_GOALS_POINT &&
        gc_grid_in_bounds(map, o.sim.point.x, o.sim.point.y) &&
        !gc_grid_passable(map, o.sim.point.x, o.sim.point.y)) {
        prog_msg("goal point (%d, %d) is not a passable cell of the map",
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
    /* Room for spawned agents: by default four times the start, at least
     * 1024 (a world started empty still takes a crowd), never past the
     * snapshot's limit. */
    if (o.scenario != NULL) {
        /* scenario_load sized it for the file's groups and sources. */
    } else if (o.given[O_MAX_AGENTS] == NULL) {
        uint64_t m = 4 * (uint64_t)o.sim.agents;
        if (m < 1024)
            m = 1024;
        if (m > GC_WORLD_MAX_AGENTS)
            m = GC_WORLD_MAX_AGENTS;
        if (m < o.sim.agents)
            m = o.sim.agents;
        o.sim.max_agents = (uint32_t)m;
    } else if (o.sim.max_agents < o.sim.agents) {
        prog_msg("--max-agents %u is below --agents %u", o.sim.max_agents,
                 o.sim.agents);
        code = EXIT_USAGE;
        goto out;
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
        prog_msg("cannot install signal handlers: %s", strerror(errno));
        code = EXIT_RUNTIME;
        goto out;
    }

    code = create_world(&o, map, &world);
    if (code)
        goto out;

    /* The simulation runs on the cells in shared memory. */
    int rc = gc_host_grid(world, map, &grid);
    if (rc != GC_OK) {
        prog_msg("shared-memory grid: %s", gc_strerror(rc));
        code = EXIT_RUNTIME;
        goto out;
    }

    if (o.given[O_RADIUS] == NULL && o.scenario == NULL)
        /* the default, fitted to the demo map */
        o.sim.radius = 0.35f * grid->cell_size;
    if (o.given[O_TIME_GAP] == NULL && o.scenario != NULL)
        /* pedestrians in metres: door flows as people's (not on the demo:
         * den520d's wanderers meet in one-cell passages, where following
         * jammed them, 5% of N overlapping) */
        o.sim.time_gap = 1.0f;
    rc = gc_sim_new(&sim, grid, &o.sim, &err);
    if (rc != GC_OK) {
        prog_msg("%s", err.msg);
        code = rc == GC_ENOMEM || rc == GC_ESYS ? EXIT_RUNTIME : EXIT_INPUT;
        goto out;
    }
    if (o.scenario != NULL) {
        code = scenario_start(&o, &scenario, sim, world);
        if (code)
            goto out;
    }
    if (o.record != NULL) {
        code = record_open(&o, map, &recd);
        if (code)
            goto out;
    }
    gc_host_config hc = {world, grid, sim, host_report, NULL, record_edit,
                         &recd};
    if (gc_host_new(&host, &hc) != GC_OK) {
        prog_msg("edit applier: %s", gc_strerror(GC_ENOMEM));
        code = EXIT_RUNTIME;
        goto out;
    }
    gc_host_publish_agents(host);
    if (!o.quiet)
        prog_msg("running: %s %dx%d, %zu agent%s, %d thread%s, %s at %.0f Hz, "
                 "shared memory /%s (pid %d)",
                 o.scenario ? o.scenario
                 : o.map    ? o.map
                            : gc_default_map_name,
                 map->width, map->height, gc_sim_live_count(sim),
                 prog_s(gc_sim_live_count(sim)), o.sim.threads,
                 prog_s((unsigned long long)o.sim.threads),
                 o.batch ? "batch" : "real time", o.sim.hz, o.shm,
                 (int)getpid());

    run_figures fig;
    memset(&fig, 0, sizeof fig);
    fig.scenario = o.scenario != NULL ? &scenario : NULL;
    code = run(&o, world, host, sim, grid, &recd, &fig,
               o.scenario != NULL ? &scenario : NULL);
    gc_world_set_state(world, GC_WORLD_STOPPING);
    if (recd.rec != NULL)
        record_close(&o, &recd, &fig);
    if (code == 0)
        code = finish(&o, &fig, host, sim, &sf);

out:
    stats_file_abort(&sf);
    if (recd.rec != NULL)
        gc_recorder_close(recd.rec, NULL);
    free(recd.agents);
    gc_host_free(host);
    gc_sim_free(sim);
    gc_grid_free(grid);
    if (world != NULL)
        gc_world_destroy(world);
    if (scen_loaded)
        gc_scen_free(&scen);
    scenario_free(&scenario);
    gc_grid_free(map);
    return code;
}
