/*
 * daemon.h: what the daemon's files share (gridcrowdd.c: main, signals and
 * pacing; options.c: the option table and its parser; report.c: the
 * per-second line, the summary and the stats file).  Program-side only.
 */
#ifndef GRIDCROWD_DAEMON_H
#define GRIDCROWD_DAEMON_H

#include <gridcrowd/agent.h>
#include <gridcrowd/edits.h>
#include <gridcrowd/record.h>
#include <gridcrowd/scenario.h>
#include <gridcrowd/sim.h>
#include <gridcrowd/util.h>

#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include "prog.h"

/* Exit codes (gridcrowdd.c's design note and --help list them). */
enum {
    EXIT_RUNTIME = 1,
    EXIT_USAGE = 2,
    EXIT_INPUT = 3,
    EXIT_SHM = 4,
    EXIT_STATS = 5 /* also the --record file */
};

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
    O_SCENARIO,
    O_UNIFORM,
    O_COST,
    O_CELL_SIZE,
    O_AGENTS,
    O_MAX_AGENTS,
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
    O_NEIGHBOUR_DIST,
    O_MAX_SPEED,
    O_TIME_GAP,
    O_REORDER,
    O_THREADS,
    O_HZ,
    O_BUDGET,
    O_TICKS,
    O_DURATION,
    O_BATCH,
    O_LEAD,
    O_SHM,
    O_SHM_MODE,
    O_EDIT_GROUP,
    O_STATS,
    O_RECORD,
    O_RECORD_EVERY,
    O_RECORD_OVERWRITE,
    O_QUIET,
    O_HELP,
    O_VERSION,
    OPT_COUNT
};

typedef struct options {
    const char *map;
    const char *scenario; /* --scenario FILE, NULL: none */
    bool uniform;
    float costs[GC_CELL_NTYPES];
    bool cost_set[GC_CELL_NTYPES];
    double cell_size;
    gc_sim_config sim;
    const char *scen;
    uint64_t ticks;
    double duration;
    bool batch;
    uint32_t lead; /* --lead: ticks the real-time loop may run ahead */
    const char *shm;
    unsigned shm_mode;
    const char *edit_group; /* as given, for messages */
    gid_t edit_gid;
    const char *stats_json;
    const char *record;     /* --record FILE, NULL: no recording */
    uint32_t record_every;  /* ticks per frame; 0: main computes it */
    bool record_overwrite;
    bool quiet;
    /* The argument each option was last given with ("" for a flag), NULL
     * when it was not given (or was overridden by another option that sets
     * the same field). */
    const char *given[OPT_COUNT];
} options;

/* Defaults from the table; main then fills the computed ones. */
void options_init(options *o);

/* Parse the command line into `o` (after options_init).  Returns -1 to go
 * on, else the exit code (0 after --help or --version). */
int options_parse(options *o, int argc, char **argv);

/* The options given, as name/argument pairs ("" for a flag) into
 * out[0..cap), for the recording; returns how many.  The strings live as
 * long as argv. */
size_t options_given(const options *o, gc_record_kv *out, size_t cap);

/* The option's name without "--". */
const char *option_name(int id);

/* What a file that is not a regular one is, for messages. */
const char *file_kind(mode_t m);

/* ---- the stats file (report.c) ------------------------------------------ */

typedef struct stats_file {
    const char *path;    /* as given, for messages */
    char dest[PATH_MAX]; /* renamed onto at the end */
    char tmp[PATH_MAX];  /* the temporary file ("" when in place) */
    FILE *f;
} stats_file;

/* Open --stats-json's file (nothing when path is NULL): false, message
 * printed, when it cannot be written. */
bool stats_file_open(stats_file *sf, const char *path);

/* Forget the file (error paths): the temporary file goes. */
void stats_file_abort(stats_file *sf);

/* Put the written summary in place: false, message printed, on error. */
bool stats_file_commit(stats_file *sf);

/* ---- the run's figures (report.c) --------------------------------------- */

typedef struct run_figures {
    uint64_t ticks;
    double wall_s;
    uint64_t overruns, overruns_after_1s;
    gc_sim_stats total;
    uint64_t edit_batches;    /* ticks whose edits changed cells */
    uint64_t snapshots;       /* agents' records published (publish_due) */
    uint64_t overruns_before; /* overruns when the window began */
    /* The loop's work per tick (the edits, the step, publishing, the
     * per-second figures; not the sleep) of the ticks that began after
     * the first second (tick_time_add), and in real time the most a tick
     * finished after its due time. */
    gc_hist tick_us;
    double tick_ms_max, late_ms_max;
    bool said_behind;         /* the falling-behind warning was given */
    /* --record: the recorder's figures at the end, the file's size. */
    bool recording;
    gc_record_stats rec;
    uint64_t rec_bytes;
    /* --scenario: its part of the summary (NULL: none). */
    const struct scenario_mode *scenario;
} run_figures;

/* ---- recording (--record; recording.c) -----------------------------------
 *
 * The recorder (gridcrowd/record.h) has its own writer thread; this loop
 * only hands it a frame every `every` ticks, between ticks and after
 * publishing, and each edit as the host applies it.  Everything here is
 * the simulation thread's alone.  Tick 0 (the start) is frame 0.  When
 * the recording stops (a full disk, a file-size limit) the simulation goes
 * on: one message then, and the summary says why.
 */
typedef struct recording {
    gc_recorder *rec;        /* NULL: not recording */
    uint32_t every;          /* ticks per frame */
    gc_record_agent *agents; /* one frame's agents (scratch) */
    size_t cap;
    uint64_t tick;  /* ticks run so far */
    bool said_stop; /* the stop message was given */
} recording;

/* Open the --record file: 0 or EXIT_STATS (one line said). */
int record_open(const options *o, const gc_grid *map, recording *r);

/* The host's edit hook (arg: the recording). */
void record_edit(void *arg, const gc_edit *e);

/* The frame of tick r->tick: the sim's agents and the live grid. */
void record_frame(recording *r, const gc_sim *sim, const gc_grid *grid);

/* Finish the recording; its figures into fig. */
void record_close(const options *o, recording *r, run_figures *fig);

/* A tick's work of `work_ns`, `late_ns` after its due time (0: on
 * time, or batch), into the tick-time figures. */
void tick_time_add(run_figures *fig, uint64_t work_ns, uint64_t late_ns);

/* The falling-behind warning, once, for a window of `secs` seconds. */
void warn_behind(const options *o, run_figures *fig, double secs,
                 uint64_t ticks_in_window, bool first_window);

/* The per-second line (not with --quiet); rec: the recorder's figures
 * (NULL: not recording); extra: text for the line's end (NULL: none). */
void print_second(const options *o, const gc_sim_stats *st, double secs,
                  uint64_t ticks_in_window, const gc_record_stats *rec,
                  const char *extra);

/* The batch run's progress line on a terminal; done clears it. */
void progress(const options *o, uint64_t tick, bool done);

/* The edit counters, when there were edits: totals and each reason. */
void write_edit_summary(FILE *f, const gc_edit_applier *ed);

/* ---- --scenario (scenario.c) ------------------------------------------- */

typedef struct scenario_mode {
    gc_scenario *sc;      /* the file, loaded */
    gc_scenario_run *run; /* running it on the sim */
    uint64_t seed;        /* the run's (the file's, or --seed) */
    const gc_sim *sim;    /* the simulation it runs on (the summary
                             checks its live count against `present`) */
} scenario_mode;

/* Refuse (EXIT_USAGE, one line naming both) a flag that makes no sense
 * with --scenario; 0 otherwise, or without one. */
int scenario_flags_check(const options *o);

/* Load the scenario: its grid into *map, its seed and the sim's per-run
 * settings into o (each flag that overrides the file says so).  0 or an
 * exit code (one line said). */
int scenario_load(options *o, scenario_mode *m, gc_grid **map);

/* Start the run on `sim`: the groups are placed; events' edits go onto
 * w's queue.  0 or an exit code (one line said). */
int scenario_start(const options *o, scenario_mode *m, gc_sim *sim,
                   gc_world *w);

/* The per-second line's scenario part (a static buffer), NULL when m is
 * NULL. */
const char *scenario_second_text(const scenario_mode *m);

/* The scenario's summary: a line, or a JSON object (the value of the
 * stats file's "scenario" key). */
void scenario_summary(FILE *f, bool json, const scenario_mode *m);

void scenario_free(scenario_mode *m);

/* gridcrowdd.c: false (message said) when `path` exists and is not a
 * regular file. */
bool regular_file(const char *path);

/* The summary: a line, or JSON for the stats file. */
void write_summary(FILE *f, bool json, const options *o, const run_figures *fig,
                   size_t agents);

#endif
