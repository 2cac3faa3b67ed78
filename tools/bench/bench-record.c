/*
 * bench-record: the recorder's figures: frames per second written and
 * bytes per agent-frame, for many agents at synthetic positions.
 *
 *   bench-record [--agents N] [--frames N] [--map FILE] [--out FILE]
 *                [--realtime] [--buffer N]
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
 * Exit codes: 0, 1 an error (printed), 2 usage.
 */
#include <gridcrowd/mapio.h>
#include <gridcrowd/record.h>
#include <gridcrowd/util.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int
main(int argc, char **argv)
{
    long agents = 10000, frames = 300, buffer = 64;
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
        else if (!strcmp(argv[i], "--realtime"))
            realtime = true;
        else {
            fprintf(stderr, "usage: bench-record [--agents N] [--frames N] "
                            "[--map FILE] [--out FILE] [--realtime] "
                            "[--buffer N]\n");
            return 2;
        }
    }
    if (agents < 1 || frames < 1 || buffer < 1) {
        fprintf(stderr, "bench-record: counts must be >= 1\n");
        return 2;
    }
    gc_grid *g;
    gc_error err;
    int rc = map ? gc_map_load(&g, map, &err) : gc_grid_new(&g, 520, 520);
    if (rc != GC_OK) {
        fprintf(stderr, "bench-record: %s\n", map ? err.msg : gc_strerror(rc));
        return 1;
    }
    char tmp[256];
    if (!out) {
        snprintf(tmp, sizeof tmp, "/tmp/bench-record-%ld.sqlite",
                 (long)getpid());
        out = tmp;
    }
    gc_record_agent *ag = calloc((size_t)agents, sizeof *ag);
    if (!ag) {
        fprintf(stderr, "bench-record: out of memory\n");
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
        fprintf(stderr, "bench-record: %s\n", err.msg);
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
            fprintf(stderr, "bench-record: %s\n", st.msg);
            break;
        }
    }
    gc_record_stats st;
    gc_recorder_stats(r, &st);
    rc = gc_recorder_close(r, &err);
    double total = (double)(gc_clock_ns() - t0) / 1e9;
    if (rc != GC_OK)
        fprintf(stderr, "bench-record: %s\n", err.msg);
    struct stat sb;
    long long bytes = stat(out, &sb) == 0 ? (long long)sb.st_size : -1;
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
