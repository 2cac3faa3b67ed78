/*
 * gc-test-record: prints the walkable-area WKT (gc_record_walkable_wkt) of
 * grids, and records short runs, for tests/record-file.test to check with
 * python3 (shapely, sqlite3) the way PedPy reads them.
 *
 *   gc-test-record random SEED COUNT   COUNT random grids
 *   gc-test-record map FILE [CELL]     the map in FILE (cell size CELL)
 *   gc-test-record record OUT MAP TICKS AGENTS
 *                                   record a wander run on MAP into OUT,
 *                                   every tick at 10 Hz, with a wall of
 *                                   obstacles painted along column 1
 *                                   halfway (an edit: a new geometry)
 *
 * One line per grid: "WIDTH HEIGHT CELL_SIZE PASSABLE<TAB>WKT".  Random
 * grids are 1..24 cells a side, of every density, with a cell size of
 * 0.5, 1 or 0.4 (not a power of two: the text is the float's shortest).
 * Exit codes: 0, 1 a library error, 2 usage.
 */
#include <gridcrowd/mapio.h>
#include <gridcrowd/record.h>
#include <gridcrowd/sim.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static uint64_t rng;

static uint32_t
next(void)
{
    rng = rng * 6364136223846793005ull + 1442695040888963407ull;
    return (uint32_t)(rng >> 33);
}

static int
print(const gc_grid *g)
{
    char *wkt;
    int rc = gc_record_walkable_wkt(g, &wkt, NULL);
    if (rc != GC_OK) {
        fprintf(stderr, "gc-test-record: %s\n", gc_strerror(rc));
        return 1;
    }
    size_t passable = 0;
    for (int32_t y = 0; y < g->height; y++)
        for (int32_t x = 0; x < g->width; x++)
            passable += gc_grid_passable(g, x, y);
    printf("%d %d %.9g %zu\t%s\n", g->width, g->height, (double)g->cell_size,
           passable, wkt);
    free(wkt);
    return 0;
}

static int
record(const char *out, const char *map, long ticks, long agents)
{
    gc_grid *g;
    gc_error err;
    if (gc_map_load(&g, map, &err) != GC_OK) {
        fprintf(stderr, "gc-test-record: %s\n", err.msg);
        return 1;
    }
    gc_sim_config cfg;
    gc_sim_config_init(&cfg);
    cfg.agents = (uint32_t)agents;
    cfg.hz = 10;
    gc_sim *sim;
    if (gc_sim_new(&sim, g, &cfg, &err) != GC_OK) {
        fprintf(stderr, "gc-test-record: %s\n", err.msg);
        gc_grid_free(g);
        return 1;
    }
    gc_record_opts o;
    gc_record_opts_init(&o);
    o.fps = 10;
    o.map_name = map;
    o.overwrite = true;
    gc_recorder *r;
    if (gc_recorder_open(&r, out, &o, &err) != GC_OK) {
        fprintf(stderr, "gc-test-record: %s\n", err.msg);
        gc_sim_free(sim);
        gc_grid_free(g);
        return 1;
    }
    gc_record_agent *ag = calloc((size_t)agents, sizeof *ag);
    int rc = ag ? 0 : 1;
    for (long t = 0; t < ticks && rc == 0; t++) {
        if (t == ticks / 2) {
            /* Column 1 becomes a wall where it is passable: an edit. */
            for (int32_t y = 0; y < g->height; y++)
                gc_grid_set(g, 1, y, GC_CELL_OBSTACLE);
            gc_sim_grid_changed(sim, NULL, 0);
            gc_record_edit e = {(uint64_t)t, 2, GC_CELL_OBSTACLE, 1,
                                0,           1, g->height - 1};
            gc_recorder_edit(r, &e);
        }
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
        if (gc_recorder_push(r, &f) != GC_OK || gc_sim_tick(sim) != GC_OK)
            rc = 1;
    }
    if (gc_recorder_close(r, &err) != GC_OK) {
        fprintf(stderr, "gc-test-record: %s\n", err.msg);
        rc = 1;
    }
    free(ag);
    gc_sim_free(sim);
    gc_grid_free(g);
    return rc;
}

int
main(int argc, char **argv)
{
    if (argc == 6 && strcmp(argv[1], "record") == 0)
        return record(argv[2], argv[3], strtol(argv[4], NULL, 10),
                      strtol(argv[5], NULL, 10));
    if (argc >= 3 && strcmp(argv[1], "map") == 0) {
        gc_grid *g;
        gc_error err;
        if (gc_map_load(&g, argv[2], &err) != GC_OK) {
            fprintf(stderr, "gc-test-record: %s\n", err.msg);
            return 1;
        }
        if (argc > 3)
            g->cell_size = strtof(argv[3], NULL);
        int rc = print(g);
        gc_grid_free(g);
        return rc;
    }
    if (argc != 4 || strcmp(argv[1], "random") != 0) {
        fprintf(stderr, "usage: gc-test-record random SEED COUNT | map FILE "
                        "[CELL] | record OUT MAP TICKS AGENTS\n");
        return 2;
    }
    rng = strtoull(argv[2], NULL, 10);
    long count = strtol(argv[3], NULL, 10);
    static const float sizes[] = {0.5f, 1.0f, 0.4f};
    for (long i = 0; i < count; i++) {
        int w = 1 + (int)(next() % 24), h = 1 + (int)(next() % 24);
        uint32_t density = next() % 101;
        gc_grid *g;
        if (gc_grid_new(&g, w, h) != GC_OK)
            return 1;
        g->cell_size = sizes[i % 3];
        for (int y = 0; y < h; y++)
            for (int x = 0; x < w; x++)
                if (next() % 100 < density)
                    gc_grid_set(g, x, y, GC_CELL_OBSTACLE);
        int rc = print(g);
        gc_grid_free(g);
        if (rc)
            return rc;
    }
    return 0;
}
