/*
 * recording.c: gridcrowdd's --record: the file opened with the run's
 * settings, a frame every `every` ticks and each edit handed to the
 * recorder (gridcrowd/record.h, which writes them on its own thread),
 * and its figures taken for the summary at the end.  See daemon.h.
 */
#include "config.h"

#include <gridcrowd/agent.h>
#include <gridcrowd/record.h>
#include <gridcrowd/sim.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>

#include "daemon.h"
#include "default_map.h"

static void
record_said_stop(recording *r)
{
    if (r->said_stop)
        return;
    gc_record_stats st;
    gc_recorder_stats(r->rec, &st);
    prog_msg("recording stopped: %s; the simulation goes on",
             st.msg[0] ? st.msg : gc_strerror(st.status));
    r->said_stop = true;
}

/* The host's edit hook: an edit takes effect in the next tick, so it is
 * recorded with that tick's number (frames of that tick and later show
 * it). */
void
record_edit(void *arg, const gc_edit *e)
{
    recording *r = arg;
    if (r->rec == NULL)
        return;
    gc_record_edit re = {r->tick + 1, e->op, e->type, e->x0,
                         e->y0,       e->x1, e->y1};
    if (gc_recorder_edit(r->rec, &re) == GC_EIO)
        record_said_stop(r);
}

/* Hand the sim's agents and the live grid to the recorder as the frame
 * of tick r->tick.  Fails only for lack of memory (the run goes on). */
void
record_frame(recording *r, const gc_sim *sim, const gc_grid *grid)
{
    size_t n = gc_sim_agent_count(sim);
    if (n > r->cap) {
        gc_record_agent *p = realloc(r->agents, n * sizeof *p);
        if (p == NULL)
            return;
        r->agents = p;
        r->cap = n;
    }
    size_t m = 0;
    for (size_t i = 0; i < n; i++) {
        const gc_agent *a = gc_sim_agent(sim, i);
        if (a == NULL)
            continue;                              /* a free slot: removed */
        gc_vec2 v = gc_sim_agent_velocity(sim, i); /* 0 without avoidance */
        r->agents[m++] = (gc_record_agent){
            .id = (uint32_t)i,
            .state = (uint8_t)a->state,
            .x = a->pos.x,
            .y = a->pos.y,
            .heading = a->heading,
            .goal_x = a->goal.x,
            .goal_y = a->goal.y,
            .speed = a->state == GC_AGENT_MOVING ? a->speed : 0.0f,
            .radius = a->radius,
            .vx = v.x,
            .vy = v.y};
    }
    gc_record_frame f = {r->tick, r->agents, m, grid};
    if (gc_recorder_push(r->rec, &f) == GC_EIO)
        record_said_stop(r);
}

/*
 * Open the --record file: frames at hz / every per simulated second, the
 * map's bounds in world units, the options given.  Returns 0 or
 * EXIT_STATS (one line said).  An existing file is refused unless
 * --record-overwrite: a recording is the result of a run, and a typo must
 * not destroy the last one.
 */
int
record_open(const options *o, const gc_grid *map, recording *r)
{
    r->every = o->record_every;
    if (r->every == 0) {
        double e = floor(o->sim.hz / 10.0 + 0.5);
        r->every = e < 1 ? 1 : (uint32_t)e;
    }
    gc_record_kv kv[OPT_COUNT];
    gc_record_opts ro;
    gc_record_opts_init(&ro);
    ro.fps = o->sim.hz / r->every;
    ro.tick_every = r->every;
    ro.xmin = 0;
    ro.ymin = 0;
    ro.xmax = (double)map->width * map->cell_size;
    ro.ymax = (double)map->height * map->cell_size;
    ro.cell_size = map->cell_size;
    ro.map_name = o->scenario != NULL ? o->scenario
                  : o->map != NULL    ? o->map
                                      : gc_default_map_name;
    ro.options = kv;
    ro.n_options = options_given(o, kv, OPT_COUNT);
    ro.mode = o->batch ? GC_RECORD_BATCH : GC_RECORD_REALTIME;
    ro.overwrite = o->record_overwrite;
    gc_error err;
    int rc = gc_recorder_open(&r->rec, o->record, &ro, &err);
    if (rc == GC_EEXIST) {
        prog_msg("%s: the file exists; pass --record-overwrite to replace it",
                 o->record);
        return EXIT_STATS;
    }
    if (rc != GC_OK) {
        if (rc == GC_EINVAL && err.msg[0] == '\0')
            prog_msg("%s: %s", o->record, gc_strerror(rc));
        else
            prog_msg("%s", err.msg);
        return EXIT_STATS;
    }
    return 0;
}

/* Finish the recording: write out what was accepted, take its figures
 * for the summary.  A recording that stopped does not fail the run. */
void
record_close(const options *o, recording *r, run_figures *fig)
{
    gc_record_stats st;
    gc_recorder_stats(r->rec, &st);
    gc_error err;
    err.msg[0] = '\0';
    int rc = gc_recorder_close(r->rec, &err);
    r->rec = NULL;
    fig->recording = true;
    fig->rec = st;
    if (rc == GC_OK && st.status == GC_OK) {
        /* Every accepted frame was written and committed by close. */
        fig->rec.written = fig->rec.committed = st.pushed;
    } else {
        /* What survives is what was committed before the stop. */
        fig->rec.written = st.committed;
        if (fig->rec.status == GC_OK)
            fig->rec.status = rc;
        if (st.msg[0] == '\0')
            snprintf(fig->rec.msg, sizeof fig->rec.msg, "%s",
                     err.msg[0] ? err.msg : gc_strerror(rc));
        if (!r->said_stop)
            prog_msg("recording stopped: %s", fig->rec.msg);
    }
    struct stat sb;
    fig->rec_bytes = stat(o->record, &sb) == 0 ? (uint64_t)sb.st_size : 0;
}
