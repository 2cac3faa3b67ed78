/*
 * fuzz_recording.c: fuzz target for the two programs that read a
 * recording: gridcrowd-report (tools/report/report-read.c) and, when SDL2
 * is there to compile it, gridcrowd-view --replay
 * (tools/view/view_replay_db.c and view_replay_db-grid.c).
 *
 * Bytes mutated at random are almost never an SQLite file, so the input is
 * not the file: it is a program of edits to a small valid recording.  The
 * recording is made once, at start-up, by the library's recorder
 * (gc_recorder: 8 frames of 4 agents on a 6 x 4 grid, an edit halfway, so
 * two grids and two geometries, and two options), then copied into
 * memory.  Each input deserialises that copy into an in-memory database,
 * applies its edits with SQL (values of every type in any row or column,
 * rows deleted, copied or added by the thousand, tables and columns and
 * indexes dropped, constraints removed, metadata rewritten, WKT and map
 * texts replaced), serialises it, flips or cuts the bytes it names, and
 * writes it to a file under /dev/shm (removed again, with any -wal, -shm
 * or -journal beside it; after a failed check it stays, and the next run
 * removes it once its process is gone).  Then each reader reads the file the
 * way its program does, and must end in one of its documented ways:
 *
 * - report: rep_read_open fails with GC_EPARSE, GC_ENOENT, GC_EINVAL,
 *   GC_EIO or GC_ENOMEM (exit 3, or 1 for memory) and one printable line
 *   that starts with the file name; or it succeeds, and then the bins the
 *   program would choose (rep_acc_config_for, no --cell) are accepted by
 *   rep_acc_init (else the program would blame a --cell never given), and
 *   rep_read_frames ends with GC_OK or GC_EPARSE (exit 3: a bad file is
 *   not a "failure while running") and such a line; with bit 3 of byte 0
 *   the pictures and the page are made too (rep_draw_all, rep_html_write
 *   at --size 320, into a directory beside the file), which must succeed.
 * - view: every call returns 0 or -1 with one printable line in `why`;
 *   it opens, loads the first frame, steps forwards and backwards, loads
 *   the last and reads an agent's trajectory, as the replay does.
 *
 * Input: byte 0 chooses the readers (bits 0-1: both, report, view, both),
 * the report's pictures (bit 3) and a file in WAL mode (bit 2: a recording
 * copied without its -wal and -shm); then up to 64 edits, one byte of
 * opcode and its arguments each, a missing byte read as 0 (see edit()).
 * AddressSanitizer, UBSan and libFuzzer's memory limit find the rest.
 */
#include "fuzz.h"

#include "report.h"
#ifdef GC_FUZZ_VIEW
#include "view_replay.h"
#endif

#include <gridcrowd/grid.h>
#include <gridcrowd/record.h>

#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <signal.h>
#include <sqlite3.h>
#include <stdbool.h>
#include <sys/stat.h>
#include <unistd.h>

/* ---- The input --------------------------------------------------------- */

typedef struct in {
    const uint8_t *p;
    size_t n, pos;
} in;

static uint8_t
u8(in *s)
{
    return s->pos < s->n ? s->p[s->pos++] : 0;
}

static uint64_t
u64(in *s)
{
    uint64_t v = 0;
    for (int i = 0; i < 8; i++)
        v = v << 8 | u8(s);
    return v;
}

/* ---- The recording ----------------------------------------------------- */

static unsigned char *base;
static size_t base_len;
static char path[128];

static void
die(const char *what, const char *why)
{
    fprintf(stderr, "fuzz_recording: %s: %s\n", what, why);
    abort();
}

/* The report's directory, and what is in it. */
static void
remove_dir(void)
{
    static const char *const files[] = {
        "density.png", "speed.png",  "trajectories.png", "traveltime.png",
        "flow.png",    "index.html", "report.json",      "",
    };
    for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
        char p[200];
        snprintf(p, sizeof p, "%s.d/%s", path, files[i]);
        if (files[i][0] != '\0')
            unlink(p);
        else
            rmdir(p);
    }
}

static void
remove_file(void)
{
    static const char *const side[] = {"", "-wal", "-shm", "-journal"};
    for (size_t i = 0; i < sizeof side / sizeof side[0]; i++) {
        char p[160];
        snprintf(p, sizeof p, "%s%s", path, side[i]);
        unlink(p);
    }
}

/* A failed check aborts with the file still there (it is the recording
 * that failed): files of processes that are gone are removed at start. */
static void
remove_stale(const char *dir)
{
    DIR *d = opendir(dir);
    struct dirent *e;
    while (d != NULL && (e = readdir(d)) != NULL) {
        long pid;
        int n = 0;
        if (sscanf(e->d_name, "gc-fuzz-rec-%ld.sqlite%n", &pid, &n) != 1 ||
            n == 0 || pid <= 0 || kill((pid_t)pid, 0) == 0 || errno != ESRCH)
            continue;
        char p[300];
        snprintf(p, sizeof p, "%s/%s", dir, e->d_name);
        if (strcmp(e->d_name + n, ".d") == 0) {
            snprintf(path, sizeof path, "%s/gc-fuzz-rec-%ld.sqlite", dir, pid);
            remove_dir();
        } else {
            unlink(p);
        }
    }
    if (d != NULL)
        closedir(d);
}

/* Record the base recording with the library's recorder, in rollback mode
 * (an in-memory database has no WAL), and keep its bytes. */
static void
make_base(void)
{
    const char *dir = access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp";
    remove_stale(dir);
    snprintf(path, sizeof path, "%s/gc-fuzz-rec-%ld.sqlite", dir,
             (long)getpid());
    remove_file();
    gc_grid *g;
    if (gc_grid_new(&g, 6, 4) != GC_OK)
        die("grid", "out of memory");
    g->cell_size = 0.5f;
    gc_grid_set(g, 2, 1, GC_CELL_OBSTACLE);
    gc_grid_set(g, 3, 1, GC_CELL_OBSTACLE);
    static const gc_record_kv opts[] = {{"agents", "4"}, {"seed", "7"}};
    gc_record_opts o;
    gc_record_opts_init(&o);
    o.map_name = "fuzz.map";
    o.cell_size = 0.5f;
    o.options = opts;
    o.n_options = 2;
    o.overwrite = true;
    gc_recorder *r;
    gc_error err;
    if (gc_recorder_open(&r, path, &o, &err) != GC_OK)
        die("recorder", err.msg);
    for (uint64_t t = 0; t < 8; t++) {
        if (t == 4) {
            for (int32_t y = 0; y < 4; y++)
                gc_grid_set(g, 4, y, GC_CELL_OBSTACLE);
            gc_record_edit e = {t, 2, GC_CELL_OBSTACLE, 4, 0, 4, 3};
            gc_recorder_edit(r, &e);
        }
        gc_record_agent a[4];
        for (uint32_t i = 0; i < 4; i++)
            a[i] = (gc_record_agent){
                .id = i * 3 + 1,
                .state = (uint8_t)(t >= 6 && i == 0 ? 3 : 1),
                .x = 0.25f + 0.2f * (float)t,
                .y = 0.25f + 0.5f * (float)i,
                .heading = 0.1f * (float)i,
                .goal_x = 5,
                .goal_y = (int32_t)i,
                .speed = 1.0f,
                .radius = 0.2f,
                .vx = 1.0f,
            };
        /* One agent leaves before the end. */
        gc_record_frame f = {t, a, t < 7 ? 4u : 3u, g};
        if (gc_recorder_push(r, &f) != GC_OK)
            die("recorder", "push failed");
    }
    if (gc_recorder_close(r, &err) != GC_OK)
        die("recorder", err.msg);
    /* cairo's and fontconfig's caches, as the program releases them. */
    atexit(rep_draw_cleanup);
    gc_grid_free(g);
    sqlite3 *db;
    if (sqlite3_open(path, &db) != SQLITE_OK ||
        sqlite3_exec(db, "PRAGMA journal_mode=DELETE", NULL, NULL, NULL) !=
            SQLITE_OK)
        die(path, sqlite3_errmsg(db));
    sqlite3_close(db);
    FILE *f = fopen(path, "rb");
    if (f == NULL)
        die(path, "cannot read");
    base = malloc(1 << 20);
    base_len = base != NULL ? fread(base, 1, 1 << 20, f) : 0;
    fclose(f);
    remove_file();
    if (base_len == 0 || base_len == 1 << 20)
        die(path, "the base recording is empty or too big");
}

/* ---- Edits ------------------------------------------------------------- */

static const char *const tables[] = {
    "metadata",  "trajectory_data", "geometry", "frame_data", "gc_agent_data",
    "gc_frames", "gc_grids",        "gc_edits", "gc_options",
};
#define NT (sizeof tables / sizeof tables[0])

/* Each table's columns (after a DROP COLUMN a statement naming one just
 * fails, which is fine). */
static const char *const columns[NT][10] = {
    {"key", "value"},
    {"frame", "id", "pos_x", "pos_y"},
    {"hash", "wkt"},
    {"frame", "geometry_hash"},
    {"frame", "id", "heading", "state", "goal_x", "goal_y", "speed", "radius",
     "vel_x", "vel_y"},
    {"frame", "tick", "generation", "agents"},
    {"generation", "frame", "tick", "width", "height", "cell_size", "map",
     "geometry_hash"},
    {"seq", "tick", "op", "type", "x0", "y0", "x1", "y1"},
    {"key", "value"},
};

static size_t
ncols(size_t t)
{
    size_t n = 0;
    while (n < 10 && columns[t][n] != NULL)
        n++;
    return n;
}

static const char *const meta_keys[] = {
    "fps",          "xmin",
    "xmax",         "ymin",
    "ymax",         "version",
    "gc_format",    "gc_map",
    "gc_cell_size", "gc_tick_every",
    "gc_mode",      "gc_status",
    "gc_frames",    "gc_dropped_frames",
};

static const int64_t ints[] = {
    0,          1,
    -1,         2,
    3,          7,
    255,        256,
    65535,      INT32_MAX,
    INT32_MIN,  UINT32_MAX,
    1LL << 32,  1LL << 53,
    INT64_MAX,  INT64_MIN,
    -INT64_MAX, 1000000000,
    100000,     -1000000,
    1LL << 62,  -(1LL << 62),
};

static const double reals[] = {
    0.0,      -0.0,      0.5, 1.0, -1.0, 1e-300, 1e300, -1e300, 1e308, 1e-320,
    INFINITY, -INFINITY, NAN, 1e9, -1e9, 3.5,    1e18,  1e19,   4e9,   0.001,
};

static const char *const texts[] = {
    "",
    "x",
    "10",
    "0",
    "-5",
    "1e308",
    "-1e308",
    "1e999",
    "nan",
    "inf",
    "0x10",
    " 5",
    "5 ",
    "1e-320",
    "POLYGON EMPTY",
    "MULTIPOLYGON EMPTY",
    "POLYGON ((0 0",
    "MULTIPOLYGON (((0 0",
    "POLYGON ((0 0, 3 0, 3 2, 0 2, 0 0))",
    "POLYGON ((0 0, 3 0, 3 2, 0 2, 0 0), (1 1, 2 1, 2 1.5, 1 1))",
    "MULTIPOLYGON (((0 0, 1 0, 1 1, 0 0)), ((2 0, 3 0, 3 1, 2 0)))",
    "POLYGON ((0 0, 1e300 0, 0 1e300, 0 0))",
    "POLYGON ((-1e300 -1e300, 1e300 0, 0 1e300, -1e300 -1e300))",
    "POLYGON ((0 0 0, 1 0 0, 1 1 0, 0 0 0))",
    "POLYGON ((0 0, 1 0, 1 1, 0 0)",
    "POLYGON ((nan 0, 1 0, 1 1, nan 0))",
    "POLYGON (((((((((",
    "LINESTRING (0 0, 1 1)",
    "((((,,,))))",
    "1 2 3 4 5 6 7 8 9",
    "type octile\nheight 4\nwidth 6\nmap\n......\n......\n......\n......\n",
    "type octile\nheight 1\nwidth 1\nmap\n.\n",
    "type octile\nheight 4\nwidth 6\nmap\n",
    "type octile\nheight 100000\nwidth 100000\nmap\n",
    "type octile\nheight 2\nwidth 3\nmap\n@@@\n...\n",
    "recording",
    "finished",
    "realtime",
    "batch",
};

static const char *const dict_sql[] = {
    "UPDATE trajectory_data SET frame = frame * 1000000000000000",
    "UPDATE trajectory_data SET frame = -frame - 1",
    "UPDATE trajectory_data SET frame = frame + 9223372036854775800",
    "UPDATE trajectory_data SET frame = frame - 9223372036854775800",
    "UPDATE trajectory_data SET pos_x = pos_x * 1e300",
    "UPDATE trajectory_data SET pos_y = -pos_y * 1e300",
    "UPDATE trajectory_data SET id = id + 4294967290",
    "UPDATE trajectory_data SET id = 7",
    "UPDATE trajectory_data SET frame = 5",
    "UPDATE gc_frames SET frame = frame * 1000000000000",
    "UPDATE gc_frames SET generation = generation + 100",
    "UPDATE gc_agent_data SET frame = frame + 1",
    "UPDATE gc_grids SET generation = generation - 1",
    "UPDATE frame_data SET geometry_hash = geometry_hash + 1",
    "UPDATE geometry SET hash = hash + 1",
    "UPDATE metadata SET value = 'x' || value",
    "DELETE FROM gc_frames WHERE frame = (SELECT max(frame) FROM gc_frames)",
    "DELETE FROM trajectory_data WHERE frame = 0",
    "DELETE FROM gc_grids",
    "DELETE FROM geometry",
    "DELETE FROM metadata WHERE key = 'gc_format'",
    "DELETE FROM metadata WHERE key LIKE '_m%'",
    "INSERT INTO trajectory_data SELECT frame, id, pos_x, pos_y FROM "
    "trajectory_data",
    "INSERT INTO trajectory_data SELECT frame + 100, id, pos_y, pos_x FROM "
    "trajectory_data",
    "CREATE INDEX fuzz_idx ON trajectory_data(id, frame)",
    "DROP INDEX frame_id_idx",
    "DROP INDEX geometry_hash",
    "CREATE VIEW v AS SELECT * FROM trajectory_data",
    "ALTER TABLE trajectory_data RENAME TO t2; CREATE VIEW trajectory_data AS "
    "SELECT * FROM t2",
    "ALTER TABLE trajectory_data RENAME COLUMN pos_x TO px",
    "ALTER TABLE gc_agent_data RENAME COLUMN state TO st",
    "CREATE TABLE trajectory_data(x)",
    "DROP TABLE trajectory_data; CREATE TABLE trajectory_data(frame, id, "
    "pos_x, "
    "pos_y)",
    "DROP TABLE metadata; CREATE TABLE metadata(key, value)",
    "UPDATE gc_grids SET map = replace(map, '.', '@')",
    "UPDATE gc_grids SET width = width + 1",
    "UPDATE gc_grids SET cell_size = 0",
    "UPDATE geometry SET wkt = replace(wkt, ',', ' ')",
    "UPDATE geometry SET wkt = replace(wkt, '0', '1e300')",
    "PRAGMA writable_schema = ON; UPDATE sqlite_master SET rootpage = 2 WHERE "
    "name = 'frame_id_idx'; PRAGMA writable_schema = OFF",
    "PRAGMA writable_schema = ON; UPDATE sqlite_master SET sql = 'CREATE "
    "TABLE trajectory_data(frame, id)' WHERE name = 'trajectory_data'; "
    "PRAGMA writable_schema = OFF",
    "PRAGMA writable_schema = ON; UPDATE sqlite_master SET rootpage = 3 WHERE "
    "name = 'gc_frames'; PRAGMA writable_schema = OFF",
};

/* A value bound to parameter i of st, chosen by the input. */
static void
bind_value(in *s, sqlite3_stmt *st, int i)
{
    uint8_t kind = u8(s) % 9;
    switch (kind) {
    case 0:
        sqlite3_bind_null(st, i);
        break;
    case 1:
        sqlite3_bind_int64(st, i, ints[u8(s) % (sizeof ints / sizeof *ints)]);
        break;
    case 2:
        sqlite3_bind_int64(st, i, (int64_t)u64(s));
        break;
    case 3:
        sqlite3_bind_double(st, i,
                            reals[u8(s) % (sizeof reals / sizeof *reals)]);
        break;
    case 4: {
        uint64_t b = u64(s);
        double d;
        memcpy(&d, &b, sizeof d);
        sqlite3_bind_double(st, i, d);
        break;
    }
    case 5:
        sqlite3_bind_text(st, i, texts[u8(s) % (sizeof texts / sizeof *texts)],
                          -1, SQLITE_STATIC);
        break;
    case 6:
    case 7: {
        /* Bytes of the input, as text or as a blob. */
        size_t len = u8(s) % 65;
        if (len > s->n - s->pos)
            len = s->n - s->pos;
        if (kind == 6)
            sqlite3_bind_text(st, i, (const char *)s->p + s->pos, (int)len,
                              SQLITE_TRANSIENT);
        else
            sqlite3_bind_blob(st, i, s->p + s->pos, (int)len, SQLITE_TRANSIENT);
        s->pos += len;
        break;
    }
    default: {
        /* A long text: a piece of the input (or of a WKT) repeated, up to
         * 256 KiB, so that long geometries and maps are tried (by
         * default a zigzag, "POLYGON ((0 0" + ", 0 0, 1e-3 5" * n + "))"). */
        size_t len = u8(s) % 33, reps = (size_t)u8(s) * 64 + 1;
        const char *piece = ", 0 0, 1e-3 5";
        size_t plen = strlen(piece);
        if (len > 0) {
            if (len > s->n - s->pos)
                len = s->n - s->pos;
            piece = (const char *)s->p + s->pos;
            plen = len;
            s->pos += len;
        }
        const char *head = texts[u8(s) % (sizeof texts / sizeof *texts)];
        size_t hl = strlen(head);
        if (plen * reps > (1u << 18))
            reps = (1u << 18) / (plen ? plen : 1);
        char *t = malloc(hl + plen * reps + 3);
        if (t == NULL) {
            sqlite3_bind_null(st, i);
            break;
        }
        memcpy(t, head, hl);
        size_t n = hl;
        for (size_t k = 0; k < reps; k++, n += plen)
            memcpy(t + n, piece, plen);
        t[n++] = ')';
        t[n++] = ')';
        t[n] = '\0';
        sqlite3_bind_text(st, i, t, (int)n, free);
        break;
    }
    }
}

/* Run `sql` with its one parameter (if any) bound from the input; a failure
 * (a dropped table, a constraint) is part of the game. */
static void
run(sqlite3 *db, in *s, const char *sql)
{
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK)
        return;
    for (int i = 1; i <= sqlite3_bind_parameter_count(st); i++)
        bind_value(s, st, i);
    while (sqlite3_step(st) == SQLITE_ROW)
        ;
    sqlite3_finalize(st);
}

/* The rows a selector byte names: all of them, or the k-th. */
static void
where_row(char *buf, size_t n, size_t t, uint8_t sel)
{
    const char *key =
        strcmp(tables[t], "gc_agent_data") == 0 ? "(frame, id)" : "rowid";
    if (sel == 255)
        snprintf(buf, n, "1");
    else
        snprintf(buf, n, "%s = (SELECT %s FROM %s LIMIT 1 OFFSET %d)", key,
                 strcmp(key, "rowid") == 0 ? "rowid" : "frame, id", tables[t],
                 sel % 64);
}

typedef struct flip {
    uint32_t off;
    uint8_t x;
} flip;

#define MAX_FLIPS 16

static void
edit(sqlite3 *db, in *s, flip *flips, size_t *nflips, size_t *cut)
{
    char sql[512], w[200];
    uint8_t op = u8(s) % 12;
    size_t t = u8(s) % NT;
    const char *tab = tables[t];
    switch (op) {
    case 0: { /* one column of a row, or of every row */
        const char *col = columns[t][u8(s) % ncols(t)];
        where_row(w, sizeof w, t, u8(s));
        snprintf(sql, sizeof sql, "UPDATE OR IGNORE %s SET %s = ? WHERE %s",
                 tab, col, w);
        run(db, s, sql);
        break;
    }
    case 1: /* delete a row, or every row */
        where_row(w, sizeof w, t, u8(s));
        snprintf(sql, sizeof sql, "DELETE FROM %s WHERE %s", tab, w);
        run(db, s, sql);
        break;
    case 2: /* a copy of a row */
        snprintf(sql, sizeof sql,
                 "INSERT OR IGNORE INTO %s SELECT * FROM %s LIMIT 1 OFFSET %d",
                 tab, tab, u8(s) % 64);
        run(db, s, sql);
        break;
    case 3:
        snprintf(sql, sizeof sql, "DROP TABLE %s", tab);
        run(db, s, sql);
        break;
    case 4:
        snprintf(sql, sizeof sql, "ALTER TABLE %s DROP COLUMN %s", tab,
                 columns[t][u8(s) % ncols(t)]);
        run(db, s, sql);
        break;
    case 5: /* the same rows without types, constraints or indexes */
        snprintf(sql, sizeof sql,
                 "ALTER TABLE %s RENAME TO fuzz_old; CREATE TABLE %s AS "
                 "SELECT * FROM fuzz_old; DROP TABLE fuzz_old",
                 tab, tab);
        sqlite3_exec(db, sql, NULL, NULL, NULL);
        break;
    case 6: { /* a metadata value */
        uint8_t k = u8(s);
        snprintf(sql, sizeof sql,
                 "INSERT OR REPLACE INTO metadata VALUES('%s', ?)",
                 meta_keys[k % (sizeof meta_keys / sizeof *meta_keys)]);
        run(db, s, sql);
        break;
    }
    case 7: /* a statement from the dictionary */
        sqlite3_exec(db, dict_sql[u8(s) % (sizeof dict_sql / sizeof *dict_sql)],
                     NULL, NULL, NULL);
        break;
    case 8: { /* up to 4080 trajectory rows: frames a + i * b, ids i % m */
        int n = (int)u8(s) * 16;
        int m = u8(s) % 64 + 1;
        snprintf(sql, sizeof sql,
                 "WITH RECURSIVE r(i) AS (SELECT 0 UNION ALL SELECT i + 1 "
                 "FROM r WHERE i + 1 < %d) "
                 "INSERT OR IGNORE INTO trajectory_data SELECT ?1 + i * ?2, "
                 "i %% %d, (i * 7 %% 13) * ?3, (i * 5 %% 11) * ?3 FROM r",
                 n, m);
        run(db, s, sql);
        break;
    }
    case 9: /* the same for gc_agent_data and gc_frames, from the rows */
        sqlite3_exec(db,
                     "INSERT OR IGNORE INTO gc_agent_data SELECT frame, id, 0, "
                     "1, 0, 0, 1, 0, 0, 0 FROM trajectory_data; INSERT OR "
                     "IGNORE INTO gc_frames SELECT DISTINCT frame, frame, 0, "
                     "0 FROM trajectory_data",
                     NULL, NULL, NULL);
        break;
    case 10: /* flip a byte of the file */
        if (*nflips < MAX_FLIPS) {
            flips[*nflips].off = (uint32_t)u8(s) << 16 | (uint32_t)u8(s) << 8;
            flips[*nflips].off |= u8(s);
            flips[*nflips].x = u8(s);
            (*nflips)++;
        }
        break;
    default: /* cut the file */
        *cut = (size_t)u8(s) << 8 | u8(s);
        break;
    }
}

/* ---- The readers ------------------------------------------------------- */

static int
one_line(const char *msg, size_t size)
{
    return fuzz_msg_printable(msg, size) && strchr(msg, '\n') == NULL;
}

static void
report_error(const gc_error *err)
{
    if (!one_line(err->msg, sizeof err->msg))
        fprintf(stderr, "the message: %.*s\n", (int)sizeof err->msg, err->msg);
    FUZZ_CHECK(one_line(err->msg, sizeof err->msg));
    size_t pl = strlen(path);
    FUZZ_CHECK(strncmp(err->msg, path, pl) == 0 && err->msg[pl] == ':');
}

/* The pictures and the page, as the program makes them (at the smallest
 * --size), into a directory beside the file, removed again. */
static void
draw_report(const rep_info *info, const rep_acc *acc, const rep_travel *tr)
{
    char dir[160];
    snprintf(dir, sizeof dir, "%s.d", path);
    FUZZ_CHECK(mkdir(dir, 0700) == 0);
    rep_out out = {
        .dir = dir, .size = 320, .info = info, .acc = acc, .travel = tr};
    gc_error err;
    gc_error_clear(&err);
    int rc = rep_draw_all(&out, &err);
    if (rc == GC_OK)
        rc = rep_html_write(&out, &err);
    /* Nothing about the recording may fail the drawing. */
    if (rc != GC_OK)
        fprintf(stderr, "the message: %s\n", err.msg);
    FUZZ_CHECK(rc == GC_OK || rc == GC_ENOMEM);
    remove_dir();
}

static void
read_report(bool draw)
{
    gc_error err;
    gc_error_clear(&err);
    rep_read rd;
    int rc = rep_read_open(&rd, path, &err);
    if (rc != GC_OK) {
        FUZZ_CHECK(rc == GC_EPARSE || rc == GC_ENOENT || rc == GC_EINVAL ||
                   rc == GC_EIO || rc == GC_ENOMEM);
        FUZZ_CHECK(err.code == rc);
        report_error(&err);
        rep_read_close(&rd);
        return;
    }
    const rep_info *info = &rd.info;
    FUZZ_CHECK(info->fps > 0 && isfinite(info->fps));
    FUZZ_CHECK(info->first_frame <= info->last_frame);
    static const rep_line lines[2] = {{1, -10, 1, 10}, {-10, 1, 10, 1}};
    rep_acc_config cfg;
    rep_acc_config_for(&cfg, info, 0, lines, 2, 200);
    rep_acc acc;
    rc = rep_acc_init(&acc, &cfg);
    /* GC_EINVAL would be reported as a bad --cell, which was not given. */
    FUZZ_CHECK(rc == GC_OK || rc == GC_ENOMEM);
    if (rc != GC_OK) {
        rep_read_close(&rd);
        return;
    }
    gc_error_clear(&err);
    rc = rep_read_frames(&rd, &acc, NULL, NULL, &err);
    if (rc != GC_OK) {
        /* A bad file is exit 3 (GC_EPARSE); GC_EIO would be exit 1. */
        FUZZ_CHECK(rc == GC_EPARSE || rc == GC_ENOMEM);
        FUZZ_CHECK(err.code == rc);
        report_error(&err);
    } else {
        rep_travel tr = {.evacuation_s = -1};
        if (rep_acc_travel(&acc, &tr) == GC_OK) {
            for (size_t i = 0; i < tr.n; i++)
                FUZZ_CHECK(!isnan(tr.t[i]));
            if (draw)
                draw_report(info, &acc, &tr);
            free(tr.t);
        }
    }
    rep_acc_free(&acc);
    rep_read_close(&rd);
}

#ifdef GC_FUZZ_VIEW
static void
view_check(int rc, const char *why)
{
    FUZZ_CHECK(rc == 0 || rc == -1);
    if (rc != 0 && !(one_line(why, VIEW_RDB_WHY) && why[0] != '\0'))
        fprintf(stderr, "the message: %.*s\n", VIEW_RDB_WHY, why);
    if (rc != 0)
        FUZZ_CHECK(one_line(why, VIEW_RDB_WHY) && why[0] != '\0');
}

static void
read_view(void)
{
    char why[VIEW_RDB_WHY];
    memset(why, 0, sizeof why);
    view_rdb *db;
    int rc = view_rdb_open(&db, path, why);
    view_check(rc, why);
    if (rc != 0)
        return;
    FUZZ_CHECK(view_rdb_first(db) <= view_rdb_last(db));
    FUZZ_CHECK(view_rdb_fps(db) > 0 && isfinite(view_rdb_fps(db)));
    view_conn c;
    memset(&c, 0, sizeof c);
    int64_t f = view_rdb_first(db), g;
    rc = view_rdb_seek(db, f, 0, &g, why);
    view_check(rc, why);
    /* The first frames, a step back, the last frame. */
    for (int k = 0; k < 6 && rc == 0; k++) {
        rc = view_rdb_load(db, g, &c, why);
        view_check(rc, why);
        if (rc == 0) {
            FUZZ_CHECK(c.cells != NULL && c.width > 0 && c.height > 0);
            FUZZ_CHECK((size_t)c.width * (size_t)c.height <= (1u << 24));
        }
        rc = view_rdb_seek(db, g, k == 4 ? -1 : 1, &g, why);
        view_check(rc, why);
    }
    rc = view_rdb_has(db, view_rdb_first(db), why);
    FUZZ_CHECK(rc == 0 || rc == 1 || rc == -1);
    if (rc < 0)
        view_check(rc, why);
    rc = view_rdb_load(db, view_rdb_last(db), &c, why);
    view_check(rc, why);
    if (c.nagents > 0) {
        gc_vec2 *pts;
        int64_t *frames;
        size_t n;
        rc = view_rdb_track(db, c.agents[0].id, &pts, &frames, &n, why);
        view_check(rc, why);
        if (rc == 0) {
            free(pts);
            free(frames);
        }
    }
    free(c.cells);
    free(c.agents);
    view_rdb_close(db);
}
#endif

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (base == NULL)
        make_base();
    in s = {data, size, 0};
    uint8_t mode = u8(&s);
    sqlite3 *db;
    if (sqlite3_open(":memory:", &db) != SQLITE_OK)
        die("sqlite3_open", "out of memory");
    unsigned char *copy = sqlite3_malloc64(base_len);
    if (copy == NULL)
        die("sqlite3_malloc64", "out of memory");
    memcpy(copy, base, base_len);
    if (sqlite3_deserialize(db, "main", copy, base_len, base_len,
                            SQLITE_DESERIALIZE_FREEONCLOSE |
                                SQLITE_DESERIALIZE_RESIZEABLE) != SQLITE_OK)
        die("sqlite3_deserialize", sqlite3_errmsg(db));
        /* Edits that double a table 64 times stop at 8 MiB (SQLITE_FULL),
         * not in an out-of-memory of the fuzzer's own making. */
#ifdef SQLITE_FCNTL_SIZE_LIMIT /* SQLite 3.33 */
    sqlite3_int64 limit = 8 << 20;
    sqlite3_file_control(db, "main", SQLITE_FCNTL_SIZE_LIMIT, &limit);
#endif
    flip flips[MAX_FLIPS];
    size_t nflips = 0, cut = 0;
    for (int k = 0; k < 64 && s.pos < s.n; k++)
        edit(db, &s, flips, &nflips, &cut);
    sqlite3_int64 len = 0;
    unsigned char *img = sqlite3_serialize(db, "main", &len, 0);
    sqlite3_close(db);
    if (img == NULL)
        return 0;
    for (size_t i = 0; i < nflips; i++)
        if (len > 0)
            img[flips[i].off % (uint64_t)len] ^= flips[i].x;
    if (cut > 0 && (sqlite3_int64)cut < len)
        len = (sqlite3_int64)cut;
    FILE *f = fopen(path, "wb");
    if (f == NULL || fwrite(img, 1, (size_t)len, f) != (size_t)len ||
        fclose(f) != 0)
        die(path, "cannot write");
    sqlite3_free(img);
    if (mode & 4) {
        sqlite3 *w;
        if (sqlite3_open(path, &w) == SQLITE_OK)
            sqlite3_exec(w, "PRAGMA journal_mode=WAL", NULL, NULL, NULL);
        sqlite3_close(w);
    }
    if ((mode & 3) != 2)
        read_report(mode & 8);
#ifdef GC_FUZZ_VIEW
    if ((mode & 3) != 1)
        read_view();
#endif
    remove_file();
    return 0;
}
