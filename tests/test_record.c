/*
 * test_record.c: the recorder (src/record.c) and the walkable-area WKT
 * (src/record-geometry.c), checked with SQL through libsqlite3.
 *
 * - WKT of hand-made grids against hand-written text: one cell, an L, a
 *   ring with a hole, two cells touching at a corner, two holes touching at
 *   a corner, a hole touching the shell at a corner, a checkerboard.
 * - Random grids: the rings' shoelace areas add up to the passable cells
 *   times cell_size squared, shells positive and holes negative, and no
 *   ring passes a point twice.
 * - A recorded run of gc_sim on tests/data/tiny.map: JuPedSim's tables,
 *   columns, types and indices exactly; version 3, fps, bounds; one row
 *   per agent per frame with the positions pushed; a new geometry after an
 *   edit and frame_data pointing each frame at the right one; the grid
 *   text, the edit, the options; one file after close.
 * - 150 agents (rows inserted many per statement and one by one): every
 *   column of every row as pushed.
 * - Real time with a stalled writer and a tiny buffer: whole frames
 *   dropped, counted, and the count in the metadata.
 * - SIGKILL: a child records, the test kills it -9 and opens the file: it
 *   holds every frame the child had seen committed, each one whole.
 * - Full disk (RLIMIT_FSIZE in a child, SIGXFSZ ignored): at open, a
 *   one-line error and no file left; during the run, the recording stops,
 *   push returns at once and the status says why.
 * - Open errors: an existing file (refused, or replaced with overwrite), a
 *   directory, a missing directory.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <gridcrowd/mapio.h>
#include <gridcrowd/record.h>
#include <gridcrowd/sim.h>
#include <gridcrowd/util.h>

#include "record_int.h"

#include <math.h>
#include <signal.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static char tmpdir[256];

static int
setup_dir(void **state)
{
    (void)state;
    snprintf(tmpdir, sizeof tmpdir, "/tmp/gc-test-record-%ld-XXXXXX",
             (long)getpid());
    assert_non_null(mkdtemp(tmpdir));
    return 0;
}

static int
remove_dir(void **state)
{
    (void)state;
    char cmd[512];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmpdir);
    return system(cmd) == 0 ? 0 : -1;
}

static void
tmp_path(char *buf, size_t size, const char *name)
{
    snprintf(buf, size, "%s/%s", tmpdir, name);
}

/* ---- WKT ---- */

static gc_grid *
grid_from_rows(const char *const *rows, int w, int h)
{
    gc_grid *g;
    assert_int_equal(gc_grid_new(&g, w, h), GC_OK);
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++)
            assert_int_equal(
                gc_grid_set(g, x, y, gc_cell_type_from_glyph(rows[y][x])),
                GC_OK);
    return g;
}

static void
check_wkt(const char *const *rows, int w, int h, const char *want)
{
    gc_grid *g = grid_from_rows(rows, w, h);
    char *wkt;
    size_t len;
    assert_int_equal(gc_record_walkable_wkt(g, &wkt, &len), GC_OK);
    assert_string_equal(wkt, want);
    assert_int_equal(len, strlen(want));
    free(wkt);
    gc_grid_free(g);
}

static void
test_wkt_hand(void **state)
{
    (void)state;
    static const char *one[] = {"."};
    check_wkt(one, 1, 1, "POLYGON ((0 0, 1 0, 1 1, 0 1, 0 0))");
    static const char *none[] = {"@@"};
    check_wkt(none, 2, 1, "POLYGON EMPTY");
    static const char *ell[] = {".@", ".."};
    check_wkt(ell, 2, 2, "POLYGON ((0 0, 1 0, 1 1, 2 1, 2 2, 0 2, 0 0))");
    /* Every passable type counts; obstacles are holes. */
    static const char *ring[] = {".SR", "R@.", "..S"};
    check_wkt(ring, 3, 3,
              "POLYGON ((0 0, 3 0, 3 3, 0 3, 0 0), "
              "(1 1, 1 2, 2 2, 2 1, 1 1))");
    /* Two cells meeting at a corner: two polygons touching at a point. */
    static const char *corner[] = {".@", "@."};
    check_wkt(corner, 2, 2,
              "MULTIPOLYGON (((0 0, 1 0, 1 1, 0 1, 0 0)), "
              "((1 1, 2 1, 2 2, 1 2, 1 1)))");
    static const char *corner2[] = {"@.", ".@"};
    check_wkt(corner2, 2, 2,
              "MULTIPOLYGON (((1 0, 2 0, 2 1, 1 1, 1 0)), "
              "((0 1, 1 1, 1 2, 0 2, 0 1)))");
    /* Two holes meeting at a corner: split there, two rings. */
    static const char *holes[] = {"....", ".@..", "..@.", "...."};
    check_wkt(holes, 4, 4,
              "POLYGON ((0 0, 4 0, 4 4, 0 4, 0 0), "
              "(1 1, 1 2, 2 2, 2 1, 1 1), (2 2, 2 3, 3 3, 3 2, 2 2))");
    /* A hole meeting the shell at a corner (the map's edge). */
    static const char *bay[] = {"@...", ".@..", "....", "...."};
    check_wkt(bay, 4, 4,
              "POLYGON ((1 0, 4 0, 4 4, 0 4, 0 1, 1 1, 1 0), "
              "(1 1, 1 2, 2 2, 2 1, 1 1))");
    /* A checkerboard: every passable cell alone. */
    static const char *check[] = {".@.", "@.@", ".@."};
    check_wkt(check, 3, 3,
              "MULTIPOLYGON (((0 0, 1 0, 1 1, 0 1, 0 0)), "
              "((2 0, 3 0, 3 1, 2 1, 2 0)), ((1 1, 2 1, 2 2, 1 2, 1 1)), "
              "((0 2, 1 2, 1 3, 0 3, 0 2)), ((2 2, 3 2, 3 3, 2 3, 2 2)))");
    /* An island inside a hole, meeting nothing: a polygon of its own. */
    static const char *island[] = {".....", ".@@@.", ".@.@.", ".@@@.", "....."};
    check_wkt(island, 5, 5,
              "MULTIPOLYGON (((0 0, 5 0, 5 5, 0 5, 0 0), "
              "(1 1, 1 4, 4 4, 4 1, 1 1)), ((2 2, 3 2, 3 3, 2 3, 2 2)))");
    /* World units: cell_size scales every point. */
    gc_grid *g = grid_from_rows(ell, 2, 2);
    g->cell_size = 0.5f;
    char *wkt;
    assert_int_equal(gc_record_walkable_wkt(g, &wkt, NULL), GC_OK);
    assert_string_equal(
        wkt, "POLYGON ((0 0, 0.5 0, 0.5 0.5, 1 0.5, 1 1, 0 1, 0 0))");
    free(wkt);
    gc_grid_free(g);
    /* The hash is stable and tells texts apart. */
    assert_true(gc_record_wkt_hash("POLYGON EMPTY") >= 0);
    assert_true(gc_record_wkt_hash("POLYGON EMPTY") ==
                gc_record_wkt_hash("POLYGON EMPTY"));
    assert_true(gc_record_wkt_hash("POLYGON EMPTY") !=
                gc_record_wkt_hash("POLYGON EMPTY "));
    assert_int_equal(gc_record_walkable_wkt(NULL, &wkt, NULL), GC_EINVAL);
}

/* Sum of the rings' signed shoelace areas of a WKT text; checks that each
 * ring closes and passes no other point twice, and counts shells (positive
 * rings) and holes. */
static double
wkt_area(const char *wkt, int *shells, int *holes)
{
    double total = 0;
    *shells = *holes = 0;
    const char *p = wkt;
    while ((p = strchr(p, '(')) != NULL) {
        p++;
        if (*p == '(')
            continue;
        static double xs[4096], ys[4096];
        int n = 0;
        while (*p != ')') {
            char *end;
            assert_true(n < 4096);
            xs[n] = strtod(p, &end);
            ys[n] = strtod(end, &end);
            n++;
            p = end;
            if (*p == ',')
                p += 2;
        }
        assert_true(n >= 5);
        assert_true(xs[0] == xs[n - 1] && ys[0] == ys[n - 1]);
        for (int i = 0; i < n - 1; i++)
            for (int j = i + 1; j < n - 1; j++)
                assert_false(xs[i] == xs[j] && ys[i] == ys[j]);
        double a = 0;
        for (int i = 0; i < n - 1; i++)
            a += xs[i] * ys[i + 1] - xs[i + 1] * ys[i];
        a /= 2;
        if (a > 0)
            (*shells)++;
        else
            (*holes)++;
        total += a;
    }
    return total;
}

static void
test_wkt_random(void **state)
{
    (void)state;
    srand(7);
    for (int round = 0; round < 300; round++) {
        int w = 1 + rand() % 14, h = 1 + rand() % 14;
        int density = rand() % 100;
        gc_grid *g;
        assert_int_equal(gc_grid_new(&g, w, h), GC_OK);
        g->cell_size = round % 3 == 0 ? 0.5f : round % 3 == 1 ? 1.0f : 2.0f;
        size_t passable = 0;
        for (int y = 0; y < h; y++)
            for (int x = 0; x < w; x++) {
                int t = rand() % 100 < density
                            ? GC_CELL_OBSTACLE
                            : (rand() % 3 ? GC_CELL_WALKABLE : GC_CELL_HIGH);
                gc_grid_set(g, x, y, t);
                passable += t != GC_CELL_OBSTACLE;
            }
        char *wkt;
        assert_int_equal(gc_record_walkable_wkt(g, &wkt, NULL), GC_OK);
        int shells, holes;
        double area = wkt_area(wkt, &shells, &holes);
        double want = (double)passable * g->cell_size * g->cell_size;
        if (fabs(area - want) > 1e-9) {
            fprintf(stderr, "%dx%d: area %g, want %g: %s\n", w, h, area, want,
                    wkt);
            fail();
        }
        if (passable == 0)
            assert_string_equal(wkt, "POLYGON EMPTY");
        else
            assert_true(shells >= 1);
        assert_true(strncmp(wkt, shells > 1 ? "MULTIPOLYGON (" : "POLYGON",
                            shells > 1 ? 14 : 7) == 0);
        free(wkt);
        gc_grid_free(g);
    }
}

/* ---- SQL helpers ---- */

static sqlite3 *
db_open(const char *path)
{
    sqlite3 *db;
    assert_int_equal(sqlite3_open_v2(path, &db, SQLITE_OPEN_READWRITE, NULL),
                     SQLITE_OK);
    return db;
}

static int64_t
q_int(sqlite3 *db, const char *sql)
{
    sqlite3_stmt *s;
    if (sqlite3_prepare_v2(db, sql, -1, &s, NULL) != SQLITE_OK) {
        fprintf(stderr, "%s: %s\n", sql, sqlite3_errmsg(db));
        fail();
    }
    assert_int_equal(sqlite3_step(s), SQLITE_ROW);
    int64_t v = sqlite3_column_int64(s, 0);
    sqlite3_finalize(s);
    return v;
}

/* The first column of the first row as text, in buf. */
static const char *
q_text(sqlite3 *db, const char *sql, char *buf, size_t size)
{
    sqlite3_stmt *s;
    if (sqlite3_prepare_v2(db, sql, -1, &s, NULL) != SQLITE_OK) {
        fprintf(stderr, "%s: %s\n", sql, sqlite3_errmsg(db));
        fail();
    }
    assert_int_equal(sqlite3_step(s), SQLITE_ROW);
    snprintf(buf, size, "%s", (const char *)sqlite3_column_text(s, 0));
    sqlite3_finalize(s);
    return buf;
}

/* "name type notnull pk; ..." for every column of `table`. */
static const char *
columns(sqlite3 *db, const char *table, char *buf, size_t size)
{
    char sql[128];
    snprintf(sql, sizeof sql, "PRAGMA table_info(%s)", table);
    sqlite3_stmt *s;
    assert_int_equal(sqlite3_prepare_v2(db, sql, -1, &s, NULL), SQLITE_OK);
    buf[0] = '\0';
    while (sqlite3_step(s) == SQLITE_ROW) {
        size_t n = strlen(buf);
        snprintf(buf + n, size - n, "%s%s %s %d %d", n ? "; " : "",
                 (const char *)sqlite3_column_text(s, 1),
                 (const char *)sqlite3_column_text(s, 2),
                 sqlite3_column_int(s, 3), sqlite3_column_int(s, 5));
    }
    sqlite3_finalize(s);
    return buf;
}

static bool
file_exists(const char *path)
{
    struct stat sb;
    return stat(path, &sb) == 0;
}

static char *
side_path(const char *path, const char *suffix)
{
    static char buf[1024];
    snprintf(buf, sizeof buf, "%s%s", path, suffix);
    return buf;
}

/* ---- a recorded run ---- */

#define RUN_AGENTS 6
#define RUN_TICKS 40
#define RUN_EVERY 2
#define RUN_EDIT_TICK 20

static void
agents_of(const gc_sim *s, gc_record_agent *out, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        const gc_agent *a = gc_sim_agent(s, i);
        out[i] = (gc_record_agent){
            .id = (uint32_t)i + 1,
            .state = a->state,
            .x = a->pos.x,
            .y = a->pos.y,
            .heading = a->heading,
            .goal_x = a->goal.x,
            .goal_y = a->goal.y,
            .speed = 4.0f,
        };
    }
}

static void
test_record_run(void **state)
{
    (void)state;
    char path[512], tiny[512];
    tmp_path(path, sizeof path, "run.sqlite");
    const char *src = getenv("GC_SRCDIR");
    snprintf(tiny, sizeof tiny, "%s/tests/data/tiny.map", src ? src : ".");
    gc_grid *g;
    gc_error err;
    assert_int_equal(gc_map_load(&g, tiny, &err), GC_OK);

    gc_sim_config cfg;
    gc_sim_config_init(&cfg);
    cfg.agents = RUN_AGENTS;
    cfg.hz = 20;
    gc_sim *sim;
    assert_int_equal(gc_sim_new(&sim, g, &cfg, &err), GC_OK);

    gc_record_kv kv[] = {{"agents", "6"}, {"hz", "20"}};
    gc_record_opts o;
    gc_record_opts_init(&o);
    o.fps = cfg.hz / RUN_EVERY;
    o.tick_every = RUN_EVERY;
    o.map_name = "tiny.map";
    o.options = kv;
    o.n_options = 2;
    o.buffer_frames = 4;
    o.commit_frames = 3;
    gc_recorder *r;
    assert_int_equal(gc_recorder_open(&r, path, &o, &err), GC_OK);

    /* What was pushed, to compare with what the file holds. */
    static gc_record_agent pushed[RUN_TICKS / RUN_EVERY][RUN_AGENTS];
    uint64_t gen_before = g->generation, gen_after = 0;
    int frames = 0;
    for (int tick = 0; tick < RUN_TICKS; tick++) {
        if (tick == RUN_EDIT_TICK) {
            /* A wall across column 7, as the daemon would apply it. */
            for (int y = 0; y < g->height; y++)
                gc_grid_set(g, 7, y, GC_CELL_OBSTACLE);
            assert_int_equal(gc_sim_grid_changed(sim, NULL, 0), GC_OK);
            gc_record_edit e = {.tick = (uint64_t)tick,
                                .op = 2,
                                .type = GC_CELL_OBSTACLE,
                                .x0 = 7,
                                .y0 = 0,
                                .x1 = 7,
                                .y1 = g->height - 1};
            assert_int_equal(gc_recorder_edit(r, &e), GC_OK);
            gen_after = g->generation;
            assert_true(gen_after != gen_before);
        }
        if (tick % RUN_EVERY == 0) {
            agents_of(sim, pushed[frames], RUN_AGENTS);
            gc_record_frame f = {.tick = (uint64_t)tick,
                                 .agents = pushed[frames],
                                 .n_agents = RUN_AGENTS,
                                 .grid = g};
            assert_int_equal(gc_recorder_push(r, &f), GC_OK);
            frames++;
            /* The same frame again is refused. */
            assert_int_equal(gc_recorder_push(r, &f), GC_EINVAL);
        }
        assert_int_equal(gc_sim_tick(sim), GC_OK);
    }
    gc_record_stats st;
    assert_int_equal(gc_recorder_close(r, &err), GC_OK);
    (void)st;
    gc_sim_free(sim);
    /* One file: the WAL was checkpointed and removed. */
    assert_false(file_exists(side_path(path, "-wal")));

    sqlite3 *db = db_open(path);
    char buf[2048];
    /* JuPedSim's schema, exactly. */
    assert_string_equal(columns(db, "metadata", buf, sizeof buf),
                        "key TEXT 1 1; value TEXT 1 0");
    assert_string_equal(
        columns(db, "trajectory_data", buf, sizeof buf),
        "frame INTEGER 1 0; id INTEGER 1 0; pos_x REAL 1 0; pos_y REAL 1 0");
    assert_string_equal(columns(db, "geometry", buf, sizeof buf),
                        "hash INTEGER 1 0; wkt TEXT 1 0");
    assert_string_equal(columns(db, "frame_data", buf, sizeof buf),
                        "frame INTEGER 1 0; geometry_hash INTEGER 1 0");
    assert_string_equal(
        q_text(db,
               "SELECT group_concat(name || ':' || sql, ' | ') FROM "
               "(SELECT name, sql FROM sqlite_master WHERE type = 'index' AND "
               "sql IS NOT NULL ORDER BY name)",
               buf, sizeof buf),
        "frame_id_idx:CREATE INDEX frame_id_idx ON trajectory_data(frame, id)"
        " | geometry_hash:CREATE UNIQUE INDEX geometry_hash ON geometry(hash)");
    assert_int_equal(q_int(db, "SELECT \"unique\" FROM pragma_index_list("
                               "'geometry') WHERE name = 'geometry_hash'"),
                     1);
    assert_string_equal(
        columns(db, "gc_agent_data", buf, sizeof buf),
        "frame INTEGER 1 1; id INTEGER 1 2; heading REAL 1 0; "
        "state INTEGER 1 0; goal_x INTEGER 1 0; goal_y INTEGER 1 0; "
        "speed REAL 1 0; radius REAL 1 0; vel_x REAL 1 0; vel_y REAL 1 0");
    assert_string_equal(columns(db, "gc_frames", buf, sizeof buf),
                        "frame INTEGER 1 1; tick INTEGER 1 0; "
                        "generation INTEGER 1 0; agents INTEGER 1 0");
    assert_string_equal(columns(db, "gc_grids", buf, sizeof buf),
                        "generation INTEGER 1 1; frame INTEGER 1 0; "
                        "tick INTEGER 1 0; width INTEGER 1 0; "
                        "height INTEGER 1 0; cell_size REAL 1 0; "
                        "map TEXT 1 0; geometry_hash INTEGER 1 0");
    assert_string_equal(columns(db, "gc_edits", buf, sizeof buf),
                        "seq INTEGER 1 1; tick INTEGER 1 0; op INTEGER 1 0; "
                        "type INTEGER 1 0; x0 INTEGER 1 0; y0 INTEGER 1 0; "
                        "x1 INTEGER 1 0; y1 INTEGER 1 0");

    /* Metadata. */
    assert_string_equal(q_text(db,
                               "SELECT value FROM metadata WHERE key = "
                               "'version'",
                               buf, sizeof buf),
                        "3");
    assert_true(q_text(db, "SELECT value FROM metadata WHERE key = 'fps'", buf,
                       sizeof buf) != NULL);
    assert_true(strtod(buf, NULL) == 10.0);
    assert_int_equal(q_int(db, "SELECT value FROM metadata WHERE key='xmin'"),
                     0);
    assert_int_equal(q_int(db, "SELECT value FROM metadata WHERE key='xmax'"),
                     8);
    assert_int_equal(q_int(db, "SELECT value FROM metadata WHERE key='ymin'"),
                     0);
    assert_int_equal(q_int(db, "SELECT value FROM metadata WHERE key='ymax'"),
                     6);
    assert_string_equal(q_text(db,
                               "SELECT value FROM metadata WHERE key='gc_map'",
                               buf, sizeof buf),
                        "tiny.map");
    assert_string_equal(
        q_text(db, "SELECT value FROM metadata WHERE key='gc_status'", buf,
               sizeof buf),
        "complete");
    assert_int_equal(
        q_int(db, "SELECT value FROM metadata WHERE key='gc_frames'"), frames);
    assert_int_equal(
        q_int(db, "SELECT value FROM metadata WHERE key='gc_dropped_frames'"),
        0);
    assert_string_equal(
        q_text(db,
               "SELECT group_concat(key || '=' || value, ',') FROM "
               "(SELECT * FROM gc_options ORDER BY key)",
               buf, sizeof buf),
        "agents=6,hz=20");

    /* One row per agent per frame, frames numbered tick / every. */
    assert_int_equal(q_int(db, "SELECT count(*) FROM trajectory_data"),
                     frames * RUN_AGENTS);
    assert_int_equal(q_int(db, "SELECT count(*) FROM gc_agent_data"),
                     frames * RUN_AGENTS);
    assert_int_equal(
        q_int(db, "SELECT count(*) FROM (SELECT frame FROM trajectory_data "
                  "GROUP BY frame HAVING count(*) = 6)"),
        frames);
    assert_int_equal(q_int(db, "SELECT max(frame) FROM trajectory_data"),
                     frames - 1);
    assert_int_equal(q_int(db, "SELECT count(*) FROM gc_frames WHERE "
                               "tick != frame * 2"),
                     0);
    sqlite3_stmt *s;
    assert_int_equal(
        sqlite3_prepare_v2(db,
                           "SELECT t.frame, t.id, pos_x, pos_y, heading, "
                           "state, goal_x, goal_y, speed FROM trajectory_data "
                           "t JOIN gc_agent_data a USING (frame, id) "
                           "ORDER BY t.frame, t.id",
                           -1, &s, NULL),
        SQLITE_OK);
    int rows = 0;
    while (sqlite3_step(s) == SQLITE_ROW) {
        int fr = sqlite3_column_int(s, 0), id = sqlite3_column_int(s, 1);
        assert_true(fr >= 0 && fr < frames && id >= 1 && id <= RUN_AGENTS);
        const gc_record_agent *a = &pushed[fr][id - 1];
        assert_true((float)sqlite3_column_double(s, 2) == a->x);
        assert_true((float)sqlite3_column_double(s, 3) == a->y);
        assert_true((float)sqlite3_column_double(s, 4) == a->heading);
        assert_int_equal(sqlite3_column_int(s, 5), a->state);
        assert_int_equal(sqlite3_column_int(s, 6), a->goal_x);
        assert_int_equal(sqlite3_column_int(s, 7), a->goal_y);
        assert_true((float)sqlite3_column_double(s, 8) == 4.0f);
        rows++;
    }
    sqlite3_finalize(s);
    assert_int_equal(rows, frames * RUN_AGENTS);

    /* Two grid generations: two geometries, frames pointing at the right
     * one (the edit is applied before frame RUN_EDIT_TICK / RUN_EVERY). */
    assert_int_equal(q_int(db, "SELECT count(*) FROM geometry"), 2);
    assert_int_equal(q_int(db, "SELECT count(*) FROM gc_grids"), 2);
    assert_int_equal(q_int(db, "SELECT count(*) FROM frame_data"), frames);
    char sql[256];
    snprintf(sql, sizeof sql,
             "SELECT count(DISTINCT geometry_hash) FROM frame_data WHERE "
             "frame < %d",
             RUN_EDIT_TICK / RUN_EVERY);
    assert_int_equal(q_int(db, sql), 1);
    snprintf(sql, sizeof sql,
             "SELECT count(*) FROM frame_data f JOIN gc_grids g ON "
             "f.geometry_hash = g.geometry_hash WHERE (f.frame < %d) != "
             "(g.generation = %llu)",
             RUN_EDIT_TICK / RUN_EVERY, (unsigned long long)gen_before);
    assert_int_equal(q_int(db, sql), 0);
    snprintf(sql, sizeof sql,
             "SELECT frame FROM gc_grids WHERE generation = %llu",
             (unsigned long long)gen_after);
    assert_int_equal(q_int(db, sql), RUN_EDIT_TICK / RUN_EVERY);
    /* The geometry is the grid's WKT, and the grid its map text. */
    char *wkt, *map;
    assert_int_equal(gc_record_walkable_wkt(g, &wkt, NULL), GC_OK);
    assert_int_equal(gc_map_format(g, &map, NULL), GC_OK);
    snprintf(sql, sizeof sql, "SELECT wkt FROM geometry WHERE hash = %lld",
             (long long)gc_record_wkt_hash(wkt));
    static char big[8192];
    assert_string_equal(q_text(db, sql, big, sizeof big), wkt);
    snprintf(sql, sizeof sql,
             "SELECT map FROM gc_grids WHERE generation = "
             "%llu",
             (unsigned long long)gen_after);
    assert_string_equal(q_text(db, sql, big, sizeof big), map);
    free(wkt);
    free(map);
    assert_string_equal(
        q_text(db,
               "SELECT tick || ':' || op || ':' || type || ':' || x0 || ',' || "
               "y0 || '-' || x1 || ',' || y1 FROM gc_edits",
               buf, sizeof buf),
        "20:2:1:7,0-7,5");
    assert_string_equal(q_text(db, "PRAGMA integrity_check", buf, sizeof buf),
                        "ok");
    sqlite3_close(db);
    gc_grid_free(g);
}

/* ---- many agents: every column of every row ---- */

/* 150 agents: two whole blocks of rows per statement and 22 rows alone. */
static void
test_record_columns(void **state)
{
    (void)state;
    char path[512];
    tmp_path(path, sizeof path, "columns.sqlite");
    gc_grid *g;
    assert_int_equal(gc_grid_new(&g, 40, 30), GC_OK);
    gc_record_opts o;
    gc_record_opts_init(&o);
    o.tick_every = 3;
    gc_recorder *r;
    gc_error err;
    assert_int_equal(gc_recorder_open(&r, path, &o, &err), GC_OK);
    enum { N = 150, FRAMES = 5 };
    static gc_record_agent ag[FRAMES][N];
    for (int f = 0; f < FRAMES; f++) {
        for (int i = 0; i < N; i++)
            ag[f][i] = (gc_record_agent){.id = (uint32_t)(1000 + 7 * i),
                                         .state = (uint8_t)(i % 6),
                                         .x = 0.25f * i + f,
                                         .y = 0.125f * i - f,
                                         .heading = 0.01f * i,
                                         .goal_x = i % 40,
                                         .goal_y = i % 30,
                                         .speed = 1.5f + i,
                                         .radius = 0.2f + f,
                                         .vx = -0.5f * i,
                                         .vy = 0.75f * f};
        gc_record_frame fr = {.tick = (uint64_t)(3 * f + 1),
                              .agents = ag[f],
                              .n_agents = N,
                              .grid = g};
        assert_int_equal(gc_recorder_push(r, &fr), GC_OK);
    }
    assert_int_equal(gc_recorder_close(r, &err), GC_OK);
    sqlite3 *db = db_open(path);
    sqlite3_stmt *s;
    assert_int_equal(
        sqlite3_prepare_v2(db,
                           "SELECT t.frame, t.id, pos_x, pos_y, heading, "
                           "state, goal_x, goal_y, speed, radius, vel_x, vel_y "
                           "FROM trajectory_data t JOIN gc_agent_data a "
                           "USING (frame, id) ORDER BY t.frame, t.id",
                           -1, &s, NULL),
        SQLITE_OK);
    int rows = 0;
    while (sqlite3_step(s) == SQLITE_ROW) {
        int f = rows / N, i = rows % N;
        const gc_record_agent *a = &ag[f][i];
        assert_int_equal(sqlite3_column_int(s, 0), f); /* (3f + 1) / 3 */
        assert_int_equal(sqlite3_column_int(s, 1), a->id);
        assert_true((float)sqlite3_column_double(s, 2) == a->x);
        assert_true((float)sqlite3_column_double(s, 3) == a->y);
        assert_true((float)sqlite3_column_double(s, 4) == a->heading);
        assert_int_equal(sqlite3_column_int(s, 5), a->state);
        assert_int_equal(sqlite3_column_int(s, 6), a->goal_x);
        assert_int_equal(sqlite3_column_int(s, 7), a->goal_y);
        assert_true((float)sqlite3_column_double(s, 8) == a->speed);
        assert_true((float)sqlite3_column_double(s, 9) == a->radius);
        assert_true((float)sqlite3_column_double(s, 10) == a->vx);
        assert_true((float)sqlite3_column_double(s, 11) == a->vy);
        rows++;
    }
    sqlite3_finalize(s);
    assert_int_equal(rows, FRAMES * N);
    /* One grid generation: one geometry, one grid row, the open grid. */
    assert_int_equal(q_int(db, "SELECT count(*) FROM geometry"), 1);
    char buf[256];
    assert_string_equal(q_text(db, "SELECT wkt FROM geometry", buf, sizeof buf),
                        "POLYGON ((0 0, 40 0, 40 30, 0 30, 0 0))");
    assert_int_equal(q_int(db, "SELECT count(*) FROM gc_grids"), 1);
    assert_int_equal(q_int(db, "SELECT tick FROM gc_frames WHERE frame = 4"),
                     13);
    sqlite3_close(db);
    gc_grid_free(g);
}

/* A frame with a value that is not finite is refused (GC_EINVAL), and
 * the recording goes on: a NaN reached the NOT NULL column as NULL,
 * failed the insert and stopped the whole recording. */
static void
test_record_nonfinite(void **state)
{
    (void)state;
    char path[512];
    tmp_path(path, sizeof path, "nonfinite.sqlite");
    gc_grid *g;
    assert_int_equal(gc_grid_new(&g, 8, 8), GC_OK);
    gc_record_opts o;
    gc_record_opts_init(&o);
    gc_recorder *r;
    gc_error err;
    assert_int_equal(gc_recorder_open(&r, path, &o, &err), GC_OK);
    gc_record_agent ag[2] = {{.id = 1, .x = 1, .y = 1},
                             {.id = 2, .x = 2, .y = 2}};
    float *fields[] = {&ag[1].x,      &ag[1].y,  &ag[1].heading, &ag[1].speed,
                       &ag[1].radius, &ag[1].vx, &ag[1].vy};
    uint64_t tick = 0;
    for (size_t k = 0; k < sizeof fields / sizeof *fields; k++) {
        gc_record_frame fr = {
            .tick = tick++, .agents = ag, .n_agents = 2, .grid = g};
        assert_int_equal(gc_recorder_push(r, &fr), GC_OK);
        float was = *fields[k];
        *fields[k] = k % 2 ? INFINITY : NAN;
        fr.tick = tick++;
        assert_int_equal(gc_recorder_push(r, &fr), GC_EINVAL);
        *fields[k] = was;
    }
    gc_record_stats st;
    gc_recorder_stats(r, &st);
    assert_int_equal(st.status, GC_OK);
    assert_int_equal(gc_recorder_close(r, &err), GC_OK);
    sqlite3 *db = db_open(path);
    assert_int_equal(q_int(db, "SELECT count(*) FROM gc_frames"), 7);
    assert_int_equal(q_int(db, "SELECT count(*) FROM trajectory_data"), 14);
    sqlite3_close(db);
    gc_grid_free(g);
}

/* ---- real time: drops ---- */

static void
test_record_realtime_drops(void **state)
{
    (void)state;
    char path[512];
    tmp_path(path, sizeof path, "rt.sqlite");
    gc_grid *g;
    assert_int_equal(gc_grid_new(&g, 10, 10), GC_OK);
    gc_record_opts o;
    gc_record_opts_init(&o);
    o.mode = GC_RECORD_REALTIME;
    o.buffer_frames = 2;
    gc_recorder *r;
    gc_error err;
    assert_int_equal(gc_recorder_open(&r, path, &o, &err), GC_OK);
    gc_recorder_test_stall(r, true);
    gc_record_agent ag[3] = {
        {.id = 1, .x = 1}, {.id = 2, .x = 2}, {.id = 3, .x = 3}};
    int accepted = 0, dropped = 0;
    for (int t = 0; t < 10; t++) {
        gc_record_frame f = {
            .tick = (uint64_t)t, .agents = ag, .n_agents = 3, .grid = g};
        int rc = gc_recorder_push(r, &f);
        if (rc == GC_OK)
            accepted++;
        else if (rc == GC_EFULL)
            dropped++;
        else
            fail();
    }
    assert_int_equal(accepted, 2);
    assert_int_equal(dropped, 8);
    assert_int_equal(gc_recorder_dropped(r), 8);
    gc_record_stats st;
    gc_recorder_stats(r, &st);
    assert_int_equal(st.pushed, 2);
    assert_int_equal(st.dropped, 8);
    assert_int_equal(st.status, GC_OK);
    assert_string_equal(st.msg, "");
    gc_recorder_test_stall(r, false);
    assert_int_equal(gc_recorder_close(r, &err), GC_OK);

    sqlite3 *db = db_open(path);
    /* Whole frames only: frames 0 and 1, three agents each. */
    assert_int_equal(q_int(db, "SELECT count(*) FROM trajectory_data"), 6);
    assert_int_equal(q_int(db, "SELECT count(DISTINCT frame) FROM "
                               "trajectory_data"),
                     2);
    assert_int_equal(q_int(db, "SELECT max(frame) FROM trajectory_data"), 1);
    assert_int_equal(
        q_int(db, "SELECT value FROM metadata WHERE key='gc_dropped_frames'"),
        8);
    char buf[64];
    assert_string_equal(q_text(db,
                               "SELECT value FROM metadata WHERE key='gc_mode'",
                               buf, sizeof buf),
                        "realtime");
    sqlite3_close(db);
    gc_grid_free(g);
}

/* ---- SIGKILL ---- */

#define KILL_AGENTS 200

/* The child: record frames until killed, telling the parent through `fd`
 * how many frames are committed each time that grows. */
static void
kill_child(const char *path, int fd)
{
    gc_grid *g;
    if (gc_grid_new(&g, 64, 64) != GC_OK)
        _exit(2);
    gc_record_opts o;
    gc_record_opts_init(&o);
    o.commit_frames = 4;
    gc_recorder *r;
    if (gc_recorder_open(&r, path, &o, NULL) != GC_OK)
        _exit(3);
    static gc_record_agent ag[KILL_AGENTS];
    uint64_t told = 0;
    for (uint64_t t = 0;; t++) {
        for (int i = 0; i < KILL_AGENTS; i++)
            ag[i] = (gc_record_agent){
                .id = (uint32_t)i, .x = (float)t, .y = (float)i};
        gc_record_frame f = {
            .tick = t, .agents = ag, .n_agents = KILL_AGENTS, .grid = g};
        if (gc_recorder_push(r, &f) != GC_OK)
            _exit(4);
        gc_record_stats st;
        gc_recorder_stats(r, &st);
        if (st.committed != told) {
            told = st.committed;
            if (write(fd, &told, sizeof told) != sizeof told)
                _exit(5);
        }
        struct timespec nap = {0, 1000 * 1000};
        nanosleep(&nap, NULL);
    }
}

static void
test_record_sigkill(void **state)
{
    (void)state;
    char path[512];
    tmp_path(path, sizeof path, "kill.sqlite");
    int fds[2];
    assert_int_equal(pipe(fds), 0);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        close(fds[0]);
        kill_child(path, fds[1]);
    }
    close(fds[1]);
    uint64_t committed = 0, v;
    while (committed < 40 && read(fds[0], &v, sizeof v) == sizeof v)
        committed = v;
    assert_true(committed >= 40);
    kill(pid, SIGKILL);
    int status;
    assert_int_equal(waitpid(pid, &status, 0), pid);
    assert_true(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
    /* Anything the child wrote after the last message counts too. */
    while (read(fds[0], &v, sizeof v) == sizeof v)
        committed = v;
    close(fds[0]);

    sqlite3 *db = db_open(path);
    char buf[64];
    assert_string_equal(q_text(db, "PRAGMA integrity_check", buf, sizeof buf),
                        "ok");
    int64_t frames = q_int(db, "SELECT count(DISTINCT frame) FROM "
                               "trajectory_data");
    assert_true(frames >= (int64_t)committed);
    /* Frames 0 .. frames-1, each whole, and its frame_data row. */
    assert_int_equal(q_int(db, "SELECT max(frame) FROM trajectory_data"),
                     frames - 1);
    assert_int_equal(q_int(db, "SELECT count(*) FROM trajectory_data"),
                     frames * KILL_AGENTS);
    assert_int_equal(q_int(db, "SELECT count(*) FROM gc_agent_data"),
                     frames * KILL_AGENTS);
    assert_int_equal(q_int(db, "SELECT count(*) FROM frame_data"), frames);
    assert_int_equal(q_int(db, "SELECT count(*) FROM trajectory_data WHERE "
                               "pos_x != frame OR pos_y != id"),
                     0);
    assert_string_equal(
        q_text(db, "SELECT value FROM metadata WHERE key='gc_status'", buf,
               sizeof buf),
        "recording");
    sqlite3_close(db);
}

/* ---- full disk ---- */

/* The child under a file-size limit: returns through its exit code
 * 0 when every check passed, else the number of the failed one. */
static int
fsize_child(const char *path, rlim_t limit, bool expect_open_fail)
{
    signal(SIGXFSZ, SIG_IGN);
    struct rlimit rl = {limit, limit};
    if (setrlimit(RLIMIT_FSIZE, &rl) != 0)
        return 1;
    gc_grid *g;
    if (gc_grid_new(&g, 32, 32) != GC_OK)
        return 2;
    gc_record_opts o;
    gc_record_opts_init(&o);
    o.commit_frames = 2;
    gc_recorder *r;
    gc_error err;
    int rc = gc_recorder_open(&r, path, &o, &err);
    if (expect_open_fail) {
        gc_grid_free(g);
        if (rc != GC_EIO)
            return 3;
        /* One line naming the file and the reason; no file left. */
        if (strncmp(err.msg, path, strlen(path)) != 0 ||
            !strstr(err.msg, "file size limit") || strchr(err.msg, '\n'))
            return 4;
        if (file_exists(path) || file_exists(side_path(path, "-wal")))
            return 5;
        return 0;
    }
    if (rc != GC_OK)
        return 6;
    static gc_record_agent ag[1000];
    for (int i = 0; i < 1000; i++)
        ag[i] = (gc_record_agent){.id = (uint32_t)i, .x = 0.5f * i, .y = 1};
    gc_record_stats st = {0};
    int t;
    for (t = 0; t < 100000; t++) {
        gc_record_frame f = {
            .tick = (uint64_t)t, .agents = ag, .n_agents = 1000, .grid = g};
        rc = gc_recorder_push(r, &f);
        if (rc == GC_EIO)
            break;
        if (rc != GC_OK)
            return 7;
    }
    if (rc != GC_EIO)
        return 8;
    gc_recorder_stats(r, &st);
    if (st.status != GC_EIO || !strstr(st.msg, "file size limit") ||
        strncmp(st.msg, path, strlen(path)) != 0)
        return 9;
    /* From now on push returns at once. */
    uint64_t t0 = gc_clock_ns();
    for (int i = 0; i < 100; i++) {
        gc_record_frame f = {.tick = (uint64_t)(t + 1 + i),
                             .agents = ag,
                             .n_agents = 1000,
                             .grid = g};
        if (gc_recorder_push(r, &f) != GC_EIO)
            return 10;
    }
    if (gc_clock_ns() - t0 > 100u * 1000 * 1000)
        return 11;
    if (gc_recorder_close(r, &err) != GC_EIO ||
        !strstr(err.msg, "file size limit"))
        return 12;
    gc_grid_free(g);
    /* What was committed before the disk filled is readable. */
    sqlite3 *db;
    if (sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL) != SQLITE_OK)
        return 13;
    sqlite3_stmt *s;
    if (sqlite3_prepare_v2(db,
                           "SELECT count(*), count(DISTINCT frame) FROM "
                           "trajectory_data",
                           -1, &s, NULL) != SQLITE_OK ||
        sqlite3_step(s) != SQLITE_ROW)
        return 14;
    int64_t rows = sqlite3_column_int64(s, 0);
    int64_t frames = sqlite3_column_int64(s, 1);
    sqlite3_finalize(s);
    sqlite3_close(db);
    if (frames < 1 || rows != frames * 1000 || (uint64_t)frames < st.committed)
        return 15;
    /* written counts no frame the failed transaction rolled back. */
    if (st.written != (uint64_t)frames)
        return 16;
    return 0;
}

static void
run_fsize_child(const char *name, rlim_t limit, bool expect_open_fail)
{
    char path[512];
    tmp_path(path, sizeof path, name);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0)
        _exit(fsize_child(path, limit, expect_open_fail));
    int status;
    assert_int_equal(waitpid(pid, &status, 0), pid);
    assert_true(WIFEXITED(status));
    assert_int_equal(WEXITSTATUS(status), 0);
}

static void
test_record_full_disk(void **state)
{
    (void)state;
    run_fsize_child("full-open.sqlite", 2048, true);
    run_fsize_child("full-run.sqlite", 2 * 1024 * 1024, false);
}

/* ---- open errors ---- */

static void
test_record_open_errors(void **state)
{
    (void)state;
    char path[512];
    gc_record_opts o;
    gc_record_opts_init(&o);
    gc_recorder *r;
    gc_error err;

    /* A directory is not replaced. */
    assert_int_equal(gc_recorder_open(&r, tmpdir, &o, &err), GC_EINVAL);
    assert_null(r);
    assert_non_null(strstr(err.msg, "not a regular file"));

    /* A missing directory: one line naming the file. */
    tmp_path(path, sizeof path, "no/such/dir.sqlite");
    assert_int_equal(gc_recorder_open(&r, path, &o, &err), GC_ENOENT);
    assert_true(strncmp(err.msg, path, strlen(path)) == 0);
    assert_null(strchr(err.msg, '\n'));

    /* An existing file: refused, then replaced with overwrite. */
    tmp_path(path, sizeof path, "exists.sqlite");
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs("not a database\n", f);
    fclose(f);
    /* A stale WAL beside it must not be applied to the new file. */
    f = fopen(side_path(path, "-wal"), "w");
    assert_non_null(f);
    fputs("garbage", f);
    fclose(f);
    assert_int_equal(gc_recorder_open(&r, path, &o, &err), GC_EEXIST);
    assert_non_null(strstr(err.msg, "exists"));
    o.overwrite = true;
    assert_int_equal(gc_recorder_open(&r, path, &o, &err), GC_OK);
    assert_int_equal(gc_recorder_close(r, &err), GC_OK);
    sqlite3 *db = db_open(path);
    assert_int_equal(q_int(db, "SELECT value FROM metadata WHERE key = "
                               "'version'"),
                     3);
    assert_int_equal(q_int(db, "SELECT count(*) FROM trajectory_data"), 0);
    sqlite3_close(db);

    /* Bad options. */
    o.fps = 0;
    assert_int_equal(gc_recorder_open(&r, path, &o, &err), GC_EINVAL);
    gc_record_opts_init(&o);
    o.buffer_frames = 0;
    assert_int_equal(gc_recorder_open(&r, path, &o, &err), GC_EINVAL);
    assert_int_equal(gc_recorder_close(NULL, NULL), GC_OK);
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_wkt_hand),
        cmocka_unit_test(test_wkt_random),
        cmocka_unit_test(test_record_run),
        cmocka_unit_test(test_record_columns),
        cmocka_unit_test(test_record_nonfinite),
        cmocka_unit_test(test_record_realtime_drops),
        cmocka_unit_test(test_record_sigkill),
        cmocka_unit_test(test_record_full_disk),
        cmocka_unit_test(test_record_open_errors),
    };
    return cmocka_run_group_tests(tests, setup_dir, remove_dir);
}
