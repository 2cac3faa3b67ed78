/*
 * bench-record: the recorder's figures: frames per second written and
 * bytes per agent-frame, for many agents at synthetic positions.
 *
 *   bench-record [--agents N] [--frames N] [--map FILE] [--out FILE]
 *                [--realtime] [--buffer N]
 *   bench-record --sim TICKS --every K --map FILE [--agents N]
 *                [--threads N] [--out FILE]
 *
 * Defaults: 10000 agents, 300 frames, an open 520 x 520 grid (or the map
 * FILE, e.g. den520d), out /tmp/bench-record-PID.sqlite (removed after).
 * Agents walk in circles, so every position changes every frame; every
 * 100 frames one cell changes (a new geometry row).  Batch mode unless
 * --realtime.  Prints one line:
 *   frames F agents A push_s P total_s T fps_written W bytes B
 *   bytes_per_agent_frame X dropped D
 * where total_s runs from open to the end of close (the file complete)
 * and push_s is the time the caller spent in gc_recorder_push.
 *
 * With --sim, a real simulation instead (gc_sim: wandering agents, 60 Hz,
 * 2 threads by default) runs TICKS ticks in batch mode, recording every
 * K-th tick (K = 0: no recorder), and prints
 *   ticks T every K agents A sim_s S close_s C ticks_per_s R frames F
 *   bytes B bytes_per_agent_frame X
 * where ticks_per_s counts the whole run, the close that writes the last
 * frames included.
 * Exit codes: 0, 1 an error (printed), 2 usage.
 */
#include <gridcrowd/mapio.h>
#include <gridcrowd/record.h>
#include <gridcrowd/sim.h>
#include <gridcrowd/util.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "prog.h"

static long long
file_size(const char *path)
{
    struct stat sb;
    return stat(path, &sb) == 0 ? (long long)sb.st_size : -1;
}

/* --sim: ticks per second of a real run with and without recording. */
static int
bench_sim(long ticks, long every, long agents, long threads, const char *map,
          const char *out)
{
    gc_grid *g;
    gc_error err;
    if (!map) {
        prog_msg("--sim needs --map");
        return 2;
    }
    if (gc_map_load(&g, map, &err) != GC_OK) {
        prog_msg("%s", err.msg);
        return 1;
    }
    gc_sim_config cfg;
    gc_sim_config_init(&cfg);
    cfg.agents = (uint32_t)agents;
    cfg.threads = (int)threads;
    gc_sim *sim;
    if (gc_sim_new(&sim, g, &cfg, &err) != GC_OK) {
        prog_msg("%s", err.msg);
        gc_grid_free(g);
        return 1;
    }
    gc_recorder *r = NULL;
    gc_record_agent *ag = calloc((size_t)agents, sizeof *ag);
    int rc = ag ? 0 : 1;
    uint64_t t0 = gc_clock_ns();
    if (rc == 0 && every > 0) {
        gc_record_opts o;
        gc_record_opts_init(&o);
        o.fps = cfg.hz / (double)every;
        o.tick_every = (uint32_t)every;
        o.map_name = map;
        o.overwrite = true;
        if (gc_recorder_open(&r, out, &o, &err) != GC_OK) {
            prog_msg("%s", err.msg);
            rc = 1;
        }
    }
    long frames = 0;
    for (long t = 0; t < ticks && rc == 0; t++) {
        if (r && t % every == 0) {
            size_t n = gc_sim_agent_count(sim);
            for (size_t i = 0; i < n; i++) {
                const gc_agent *a = gc_sim_agent(sim, i);
                ag[i] = (gc_record_agent){.id = (uint32_t)i,
                                          .state = a->state,
                                          .x = a->pos.x,
                                          .y = a->pos.y,
                                          .heading = a->heading,
                                          .goal_x = a->goal.x,
                                          .goal_y = a->goal.y,
                                          .speed = cfg.motion.speed};
            }
            gc_record_frame f = {(uint64_t)t, ag, n, g};
            if (gc_recorder_push(r, &f) != GC_OK)
                rc = 1;
            frames++;
        }
        if (gc_sim_tick(sim) != GC_OK)
            rc = 1;
    }
    uint64_t t1 = gc_clock_ns();
    if (r && gc_recorder_close(r, &err) != GC_OK) {
        prog_msg("%s", err.msg);
        rc = 1;
    }
    uint64_t t2 = gc_clock_ns();
    long long bytes = r ? file_size(out) : 0;
    printf("ticks %ld every %ld agents %ld sim_s %.3f close_s %.3f "
           "ticks_per_s %.1f frames %ld bytes %lld bytes_per_agent_frame "
           "%.1f\n",
           ticks, every, agents, (double)(t1 - t0) / 1e9,
           (double)(t2 - t1) / 1e9, (double)ticks / ((double)(t2 - t0) / 1e9),
           frames, bytes,
           frames ? (double)bytes / ((double)frames * (double)agents) : 0.0);
    free(ag);
    gc_sim_free(sim);
    gc_grid_free(g);
    return rc;
}

int
main(int argc, char **argv)
{
    prog_init("bench-record");
    long agents = 10000, frames = 300, buffer = 64;
    long sim_ticks = 0, every = 0, threads = 2;
    const char *map = NULL, *out = NULL;
    bool realtime = false;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--agents") && i + 1 < argc)
            agents = strtol(argv[++i], NULL, 10);
        else if (!strcmp(argv[i], "--frames") && i + 1 < argc)
            frames = strtol(argv[++i], NULL, 10);
        else if (!strcmp(argv[i], "--buffer") && i + 1 < argc)
            buffer = strtol(argv[++i], NULL, 10);
        else if (!strcmp(argv[i], "--map") && i + 1 < argc)
            map = argv[++i];
        else if (!strcmp(argv[i], "--out") && i + 1 < argc)
            out = argv[++i];
        else if (!strcmp(argv[i], "--sim") && i + 1 < argc)
            sim_ticks = strtol(argv[++i], NULL, 10);
        else if (!strcmp(argv[i], "--every") && i + 1 < argc)
            every = strtol(argv[++i], NULL, 10);
        else if (!strcmp(argv[i], "--threads") && i + 1 < argc)
            threads = strtol(argv[++i], NULL, 10);
        else if (!strcmp(argv[i], "--realtime"))
            realtime = true;
        else {
            fprintf(stderr, "usage: bench-record [--agents N] [--frames N] "
                            "[--map FILE] [--out FILE] [--realtime] "
                            "[--buffer N]\n");
            return 2;
        }
    }
    if (agents < 1 || frames < 1 || buffer < 1 || every < 0 || threads < 1) {
        prog_msg("counts must be >= 1");
        return 2;
    }
    char tmp[256];
    if (!out) {
        snprintf(tmp, sizeof tmp, "/tmp/bench-record-%ld.sqlite",
                 (long)getpid());
        out = tmp;
    }
    if (sim_ticks > 0) {
        int rc = bench_sim(sim_ticks, every, agents, threads, map, out);
        if (out == tmp)
            unlink(out);
        return rc;
    }
    gc_grid *g;
    gc_error err;
    int rc = map ? gc_map_load(&g, map, &err) : gc_grid_new(&g, 520, 520);
    if (rc != GC_OK) {
        prog_msg("%s", map ? err.msg : gc_strerror(rc));
        return 1;
    }
    gc_record_agent *ag = calloc((size_t)agents, sizeof *ag);
    if (!ag) {
        prog_msg("out of memory");
        return 1;
    }
    gc_record_opts o;
    gc_record_opts_init(&o);
    o.fps = 10;
    o.overwrite = true;
    o.mode = realtime ? GC_RECORD_REALTIME : GC_RECORD_BATCH;
    o.buffer_frames = (uint32_t)buffer;
    gc_recorder *r;
    uint64_t t0 = gc_clock_ns(), in_push = 0;
    if (gc_recorder_open(&r, out, &o, &err) != GC_OK) {
        prog_msg("%s", err.msg);
        return 1;
    }
    float w = (float)g->width * g->cell_size,
          h = (float)g->height * g->cell_size;
    for (long f = 0; f < frames; f++) {
        if (f > 0 && f % 100 == 0) {
            int32_t x = (int32_t)(f / 100) % g->width;
            gc_grid_set(g, x, 0,
                        gc_grid_get(g, x, 0) == GC_CELL_OBSTACLE
                            ? GC_CELL_WALKABLE
                            : GC_CELL_OBSTACLE);
        }
        for (long i = 0; i < agents; i++) {
            float a = 0.05f * (float)f + (float)i;
            float cx = (float)(i % 97) / 97.0f * w,
                  cy = (float)(i % 89) / 89.0f * h;
            ag[i] = (gc_record_agent){.id = (uint32_t)i,
                                      .state = 2,
                                      .x = cx + 2.0f * cosf(a),
                                      .y = cy + 2.0f * sinf(a),
                                      .heading = a,
                                      .goal_x = (int32_t)(i % 97),
                                      .goal_y = (int32_t)(i % 89),
                                      .speed = 1.3f};
        }
        gc_record_frame fr = {(uint64_t)f, ag, (size_t)agents, g};
        uint64_t p0 = gc_clock_ns();
        rc = gc_recorder_push(r, &fr);
        in_push += gc_clock_ns() - p0;
        if (rc != GC_OK && rc != GC_EFULL) {
            gc_record_stats st;
            gc_recorder_stats(r, &st);
            prog_msg("%s", st.msg);
            break;
        }
    }
    gc_record_stats st;
    gc_recorder_stats(r, &st);
    rc = gc_recorder_close(r, &err);
    double total = (double)(gc_clock_ns() - t0) / 1e9;
    if (rc != GC_OK)
        prog_msg("%s", err.msg);
    long long bytes = file_size(out);
    uint64_t written = st.pushed; /* all pushed frames are written at close */
    printf("frames %llu agents %ld push_s %.3f total_s %.3f fps_written %.1f "
           "bytes %lld bytes_per_agent_frame %.1f dropped %llu\n",
           (unsigned long long)written, agents, (double)in_push / 1e9, total,
           (double)written / total, bytes,
           written ? (double)bytes / ((double)written * (double)agents) : 0.0,
           (unsigned long long)st.dropped);
    if (out == tmp)
        unlink(out);
    free(ag);
    gc_grid_free(g);
    return rc == GC_OK ? 0 : 1;
}
