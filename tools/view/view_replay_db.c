/*
 * view_replay_db.c: reading a recording for gridcrowd-view --replay.
 *
 * The file is opened read-only (SQLITE_OPEN_READONLY) and read on demand:
 * each frame is two prepared statements keyed by frame (trajectory_data
 * through JuPedSim's (frame, id) index, gc_agent_data through its primary
 * key), merged by id, so only a frame's rows are ever in memory and a
 * recording larger than memory replays.  The grid is read only when a
 * frame's generation differs from the one loaded; view_replay_db-grid.c
 * reads it (or rasterises a JuPedSim file's geometry).
 *
 * Checks before trusting the file: the 16-byte SQLite magic, and the page
 * count the header promises against the file's size (a truncated copy is
 * otherwise found only when a missing page is read, in the middle of a
 * replay).  Then the tables: our metadata key gc_format means a gridcrowd
 * recording, whose five tables must all be there; else trajectory_data
 * makes it a JuPedSim file, replayed with positions only.  Every SQLite
 * error afterwards (a corrupt page) is returned as one line; nothing here
 * exits.
 *
 * A JuPedSim file's geometry is WKT in world units with y growing upwards;
 * the viewer's world has y growing downwards from (0, 0).  Its positions
 * are moved by (-xmin, ymax - y) so that the picture is upright, over a
 * field of square cells small enough to show it (at most RASTER_MAX cells
 * a side), sized here from the file's bounds.
 */
#include "config.h"

#include "view_replay.h"

#include "prog.h"
#include "recording.h"

#include <errno.h>
#include <math.h>
#include <sqlite3.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define RASTER_MAX 1024

void
view_rdb_say(char *why, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(why, VIEW_RDB_WHY, fmt, ap);
    va_end(ap);
}

int
view_rdb_sql_fail(view_rdb *db, char *why, const char *what)
{
    /* Escaped: SQLite's errors may quote a damaged schema's bytes. */
    char msg[VIEW_RDB_WHY];
    prog_escape(msg, sizeof msg, sqlite3_errmsg(db->db));
    view_rdb_say(why, "%s: %s", what, msg);
    return -1;
}

/* ---- The header ------------------------------------------------------- */

static uint32_t
be32(const unsigned char *p)
{
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 |
           p[3];
}

/*
 * What SQLite would only find out page by page: not an SQLite file, or a
 * shorter file than its header says.  The header's page count is trusted
 * only when its "version valid for" matches the change counter, as SQLite
 * does; older writers leave it stale, and then the size is not checked.
 * Nor is it checked while a WAL file lies beside the database (a
 * recording being written): a checkpoint writes the header before the
 * pages that grow the file, so for a moment the header claims more than
 * the file holds (13 of 848 replays of a live recording were refused as
 * truncated), and SQLite reads such a database through the WAL under its
 * own locks, reporting a real truncation as an error when it meets it.
 */
static int
check_header(const char *path, char *why)
{
    struct stat st;
    if (stat(path, &st) != 0) {
        view_rdb_say(why, "%s", strerror(errno));
        return -1;
    }
    if (!S_ISREG(st.st_mode)) {
        view_rdb_say(why, "not a regular file");
        return -1;
    }
    if (st.st_size == 0) {
        view_rdb_say(why, "empty file, not a recording");
        return -1;
    }
    FILE *f = fopen(path, "rb");
    if (f == NULL) {
        view_rdb_say(why, "%s", strerror(errno));
        return -1;
    }
    unsigned char h[100];
    size_t got = fread(h, 1, sizeof h, f);
    fclose(f);
    if (got < sizeof h || memcmp(h, "SQLite format 3", 16) != 0) {
        view_rdb_say(why, "not an SQLite database");
        return -1;
    }
    uint32_t ps = (uint32_t)h[16] << 8 | h[17];
    if (ps == 1)
        ps = 65536;
    uint32_t pages = be32(h + 28);
    char wal[4096];
    struct stat wst;
    int wn = snprintf(wal, sizeof wal, "%s-wal", path);
    bool live = wn > 0 && (size_t)wn < sizeof wal && stat(wal, &wst) == 0;
    if (!live && be32(h + 24) == be32(h + 92) && pages > 0 &&
        (uint64_t)pages * ps > (uint64_t)st.st_size) {
        view_rdb_say(
            why, "truncated: the header says %llu bytes, the file holds %lld",
            (unsigned long long)pages * ps, (long long)st.st_size);
        return -1;
    }
    return 0;
}

/* ---- Opening ------------------------------------------------------------ */

/* Whether table `name` exists: 1, 0, or -1 with `why`. */
static int
has_table(view_rdb *db, const char *name, char *why)
{
    sqlite3_stmt *q;
    if (sqlite3_prepare_v2(db->db,
                           "SELECT 1 FROM sqlite_master WHERE type = 'table' "
                           "AND name = ?",
                           -1, &q, NULL) != SQLITE_OK)
        return view_rdb_sql_fail(db, why, "reading the schema");
    sqlite3_bind_text(q, 1, name, -1, SQLITE_STATIC);
    int rc = sqlite3_step(q);
    sqlite3_finalize(q);
    if (rc != SQLITE_ROW && rc != SQLITE_DONE)
        return view_rdb_sql_fail(db, why, "reading the schema");
    return rc == SQLITE_ROW;
}

/* A metadata value as a number: 1, 0 when absent or not a number, -1 when
 * the file cannot be read (with `why`). */
static int
meta_num(view_rdb *db, const char *key, double *out, char *why)
{
    sqlite3_stmt *q;
    if (sqlite3_prepare_v2(db->db, "SELECT value FROM metadata WHERE key = ?",
                           -1, &q, NULL) != SQLITE_OK)
        return view_rdb_sql_fail(db, why, "reading the metadata");
    sqlite3_bind_text(q, 1, key, -1, SQLITE_STATIC);
    int found = 0, rc = sqlite3_step(q);
    if (rc == SQLITE_ROW && sqlite3_column_type(q, 0) != SQLITE_NULL) {
        const char *t = (const char *)sqlite3_column_text(q, 0);
        char *end;
        double v = t != NULL ? strtod(t, &end) : 0;
        found = t != NULL && end != t && *end == '\0' && isfinite(v);
        if (found)
            *out = v;
    }
    sqlite3_finalize(q);
    if (rc != SQLITE_ROW && rc != SQLITE_DONE)
        return view_rdb_sql_fail(db, why, "reading the metadata");
    return found;
}

static int
prepare(view_rdb *db, int i, const char *sql, char *why)
{
    if (sqlite3_prepare_v3(db->db, sql, -1, SQLITE_PREPARE_PERSISTENT,
                           &db->st[i], NULL) != SQLITE_OK)
        return view_rdb_sql_fail(db, why, "not a recording this viewer reads");
    return 0;
}

static int
prepare_all(view_rdb *db, char *why)
{
    /* Frames are navigated in gc_frames (every frame, also one without
     * agents) in ours, in trajectory_data's index in JuPedSim's. */
    const char *ft = db->ours ? "gc_frames" : "trajectory_data";
    char le[128], gt[128], lt[128], has[128];
    snprintf(le, sizeof le, "SELECT max(frame) FROM %s WHERE frame <= ?", ft);
    snprintf(gt, sizeof gt, "SELECT min(frame) FROM %s WHERE frame > ?", ft);
    snprintf(lt, sizeof lt, "SELECT max(frame) FROM %s WHERE frame < ?", ft);
    snprintf(has, sizeof has, "SELECT 1 FROM %s WHERE frame = ? LIMIT 1", ft);
    if (prepare(db, VIEW_RDB_ST_TRAJ,
                "SELECT id, pos_x, pos_y FROM trajectory_data "
                "WHERE frame = ? ORDER BY id",
                why) != 0 ||
        prepare(db, VIEW_RDB_ST_LE, le, why) != 0 ||
        prepare(db, VIEW_RDB_ST_GT, gt, why) != 0 ||
        prepare(db, VIEW_RDB_ST_LT, lt, why) != 0 ||
        prepare(db, VIEW_RDB_ST_HAS, has, why) != 0)
        return -1;
    if (db->ours)
        return prepare(db, VIEW_RDB_ST_AGENT,
                       "SELECT id, heading, state, goal_x, goal_y, speed, "
                       "vel_x, vel_y FROM gc_agent_data WHERE frame = ? ORDER "
                       "BY id",
                       why) != 0 ||
                       prepare(db, VIEW_RDB_ST_FRAME,
                               "SELECT tick, generation FROM gc_frames "
                               "WHERE frame = ?",
                               why) != 0 ||
                       prepare(db, VIEW_RDB_ST_GRID,
                               "SELECT generation, width, height, "
                               "cell_size, map FROM gc_grids WHERE "
                               "generation <= ? ORDER BY generation DESC "
                               "LIMIT 1",
                               why) != 0
                   ? -1
                   : 0;
    /* A JuPedSim file's geometry is optional here: without it the agents
     * walk on a plain field over the bounds. */
    int g = has_table(db, "geometry", why),
        f = has_table(db, "frame_data", why);
    if (g < 0 || f < 0)
        return -1;
    if (g && f &&
        (sqlite3_prepare_v2(db->db,
                            "SELECT geometry_hash FROM frame_data "
                            "WHERE frame <= ? ORDER BY frame DESC LIMIT 1",
                            -1, &db->st[VIEW_RDB_ST_GEOHASH],
                            NULL) != SQLITE_OK ||
         sqlite3_prepare_v2(db->db, "SELECT wkt FROM geometry WHERE hash = ?",
                            -1, &db->st[VIEW_RDB_ST_WKT], NULL) != SQLITE_OK)) {
        sqlite3_finalize(db->st[VIEW_RDB_ST_GEOHASH]);
        db->st[VIEW_RDB_ST_GEOHASH] = NULL;
    }
    return 0;
}

int
view_rdb_one_int(view_rdb *db, int i, int64_t v, int64_t *out, bool *null,
                 char *why)
{
    sqlite3_stmt *q = db->st[i];
    sqlite3_reset(q);
    sqlite3_bind_int64(q, 1, v);
    int rc = sqlite3_step(q);
    *null = rc != SQLITE_ROW || sqlite3_column_type(q, 0) == SQLITE_NULL;
    if (!*null)
        *out = sqlite3_column_int64(q, 0);
    sqlite3_reset(q);
    if (rc != SQLITE_ROW && rc != SQLITE_DONE)
        return view_rdb_sql_fail(db, why, "reading frames");
    return 0;
}

static int
find_kind(view_rdb *db, char *why)
{
    static const char *const ours[] = {"gc_frames", "gc_agent_data", "gc_grids",
                                       "trajectory_data", "metadata"};
    int m = has_table(db, "metadata", why);
    if (m < 0)
        return -1;
    double fmt;
    int f = m ? meta_num(db, "gc_format", &fmt, why) : 0;
    if (f < 0)
        return -1;
    db->ours = f == 1;
    if (db->ours) {
        for (size_t i = 0; i < sizeof ours / sizeof ours[0]; i++) {
            int t = has_table(db, ours[i], why);
            if (t < 0)
                return -1;
            if (t == 0) {
                view_rdb_say(why, "a gridcrowd recording without its %s table",
                             ours[i]);
                return -1;
            }
        }
        return 0;
    }
    int t = has_table(db, "trajectory_data", why);
    if (t < 0)
        return -1;
    if (t == 0) {
        view_rdb_say(
            why, "not a gridcrowd or JuPedSim recording (no trajectory_data "
                 "table)");
        return -1;
    }
    /* Bounds place the field; without them it starts at the origin. */
    double xmax = 0, ymin = 0;
    int b[4] = {0, 0, 0, 0};
    if (m && ((b[0] = meta_num(db, "xmin", &db->xmin, why)) < 0 ||
              (b[1] = meta_num(db, "xmax", &xmax, why)) < 0 ||
              (b[2] = meta_num(db, "ymin", &ymin, why)) < 0 ||
              (b[3] = meta_num(db, "ymax", &db->ymax, why)) < 0))
        return -1;
    if (!b[0] || !b[1] || !b[2] || !b[3] || xmax <= db->xmin ||
        db->ymax <= ymin) {
        view_rdb_say(
            why, "no gridcrowd grid and no bounds (metadata xmin, xmax, ymin, "
                 "ymax) to draw on");
        return -1;
    }
    /* Beyond this the field's arithmetic overflows (an infinite extent
     * made an infinite cell and a NaN width). */
    if (!rec_bounds_ok(db->xmin, ymin, xmax, db->ymax)) {
        view_rdb_say(why, "bounds (metadata xmin, xmax, ymin, ymax) more "
                          "than 1e12 units from the origin");
        return -1;
    }
    /* Half a metre: a person is about a cell, as in our grids. */
    double cell = 0.5;
    while ((xmax - db->xmin) / cell > RASTER_MAX ||
           (db->ymax - ymin) / cell > RASTER_MAX)
        cell *= 2;
    db->raster_cell = cell;
    db->rw = (int32_t)ceil((xmax - db->xmin) / cell);
    db->rh = (int32_t)ceil((db->ymax - ymin) / cell);
    db->rw = db->rw < 1 ? 1 : db->rw;
    db->rh = db->rh < 1 ? 1 : db->rh;
    return 0;
}

int
view_rdb_open(view_rdb **out, const char *path, char *why)
{
    *out = NULL;
    if (check_header(path, why) != 0)
        return -1;
    view_rdb *db = calloc(1, sizeof *db);
    if (db == NULL) {
        view_rdb_say(why, "out of memory");
        return -1;
    }
    db->geohash = -1;
    if (sqlite3_open_v2(path, &db->db, SQLITE_OPEN_READONLY, NULL) !=
        SQLITE_OK) {
        if (db->db != NULL)
            view_rdb_sql_fail(db, why, "opening");
        else
            view_rdb_say(why, "opening: out of memory");
        view_rdb_close(db);
        return -1;
    }
    /* A corrupt page reads as an error, never as a crash. */
    sqlite3_extended_result_codes(db->db, 1);
    if (find_kind(db, why) != 0 || prepare_all(db, why) != 0)
        goto fail;
    db->fps = 10;
    double fps;
    int hf = meta_num(db, "fps", &fps, why);
    if (hf < 0)
        goto fail;
    if (hf && fps > 0)
        db->fps = fps;
    bool null;
    if (view_rdb_one_int(db, VIEW_RDB_ST_GT, INT64_MIN, &db->first, &null,
                         why) != 0)
        goto fail;
    if (null) {
        view_rdb_say(why, "no frames recorded");
        goto fail;
    }
    if (view_rdb_one_int(db, VIEW_RDB_ST_LE, INT64_MAX, &db->last, &null,
                         why) != 0)
        goto fail;
    /* Texts among the frames compare above every number: the first may
     * then be a text's number, and no frame at most INT64_MAX. */
    if (null || db->first < 0 || db->last > REC_MAX_FRAME ||
        db->first > db->last) {
        view_rdb_say(why, "the frame numbers are not whole numbers from 0 to "
                          "2^53");
        goto fail;
    }
    *out = db;
    return 0;
fail:
    view_rdb_close(db);
    return -1;
}

void
view_rdb_close(view_rdb *db)
{
    if (db == NULL)
        return;
    for (int i = 0; i < VIEW_RDB_ST_N; i++)
        sqlite3_finalize(db->st[i]);
    sqlite3_close(db->db);
    free(db);
}

int64_t
view_rdb_first(const view_rdb *db)
{
    return db->first;
}

int64_t
view_rdb_last(const view_rdb *db)
{
    return db->last;
}

double
view_rdb_fps(const view_rdb *db)
{
    return db->fps;
}

bool
view_rdb_ours(const view_rdb *db)
{
    return db->ours;
}

uint64_t
view_rdb_generation(const view_rdb *db)
{
    return db->generation;
}

int
view_rdb_seek(view_rdb *db, int64_t frame, int dir, int64_t *out, char *why)
{
    bool null;
    int64_t f = frame;
    if (view_rdb_one_int(db,
                         dir == 0  ? VIEW_RDB_ST_LE
                         : dir > 0 ? VIEW_RDB_ST_GT
                                   : VIEW_RDB_ST_LT,
                         frame, &f, &null, why) != 0)
        return -1;
    if (null)
        f = dir == 0 ? db->first : frame;
    *out = f;
    return 0;
}

int
view_rdb_has(view_rdb *db, int64_t frame, char *why)
{
    bool null;
    int64_t one = 0;
    if (view_rdb_one_int(db, VIEW_RDB_ST_HAS, frame, &one, &null, why) != 0)
        return -1;
    return !null;
}

/* ---- Frames ------------------------------------------------------------- */

static bool
reserve_agents(view_conn *c, size_t n)
{
    if (n <= c->agents_cap)
        return true;
    size_t cap = c->agents_cap ? c->agents_cap : 256;
    while (cap < n)
        cap *= 2;
    gc_world_agent *a = realloc(c->agents, cap * sizeof *a);
    if (a == NULL)
        return false;
    c->agents = a;
    c->agents_cap = cap;
    return true;
}

int
view_rdb_load(view_rdb *db, int64_t frame, view_conn *c, char *why)
{
    uint64_t tick = (uint64_t)frame;
    if (db->ours) {
        sqlite3_stmt *q = db->st[VIEW_RDB_ST_FRAME];
        sqlite3_reset(q);
        sqlite3_bind_int64(q, 1, frame);
        int rc = sqlite3_step(q);
        int64_t t = 0, gen = 0;
        if (rc == SQLITE_ROW) {
            t = sqlite3_column_int64(q, 0);
            gen = sqlite3_column_int64(q, 1);
        }
        sqlite3_reset(q);
        if (rc != SQLITE_ROW) {
            if (rc == SQLITE_DONE)
                view_rdb_say(why, "frame %lld is not in the file",
                             (long long)frame);
            else
                view_rdb_sql_fail(db, why, "reading gc_frames");
            return -1;
        }
        tick = (uint64_t)t;
        if ((!db->have_grid || (uint64_t)gen != db->generation) &&
            view_rdb_load_grid(db, (uint64_t)gen, c, why) != 0)
            return -1;
    } else if (view_rdb_load_field(db, frame, c, why) != 0) {
        return -1;
    }

    /* Rows of both tables come in id order: merge them. */
    sqlite3_stmt *t = db->st[VIEW_RDB_ST_TRAJ], *a = db->st[VIEW_RDB_ST_AGENT];
    sqlite3_reset(t);
    sqlite3_bind_int64(t, 1, frame);
    int ra = SQLITE_DONE;
    if (a != NULL) {
        sqlite3_reset(a);
        sqlite3_bind_int64(a, 1, frame);
        ra = sqlite3_step(a);
    }
    size_t n = 0;
    int rt;
    while ((rt = sqlite3_step(t)) == SQLITE_ROW) {
        if (!reserve_agents(c, n + 1)) {
            view_rdb_say(why, "out of memory");
            goto fail;
        }
        gc_world_agent *g = &c->agents[n];
        memset(g, 0, sizeof *g);
        int64_t id = sqlite3_column_int64(t, 0);
        g->id = (uint32_t)id;
        g->x = (float)sqlite3_column_double(t, 1);
        g->y = (float)sqlite3_column_double(t, 2);
        g->state = GC_AGENT_MOVING;
        if (!db->ours) {
            g->x = (float)(sqlite3_column_double(t, 1) - db->xmin);
            g->y = (float)(db->ymax - sqlite3_column_double(t, 2));
        }
        while (ra == SQLITE_ROW && sqlite3_column_int64(a, 0) < id)
            ra = sqlite3_step(a);
        if (ra == SQLITE_ROW && sqlite3_column_int64(a, 0) == id) {
            int64_t st = sqlite3_column_int64(a, 2);
            g->heading = (float)sqlite3_column_double(a, 1);
            g->state =
                st >= 0 && st < GC_AGENT_NSTATES ? (uint8_t)st : GC_AGENT_IDLE;
            g->goal_x = (int32_t)sqlite3_column_int64(a, 3);
            g->goal_y = (int32_t)sqlite3_column_int64(a, 4);
            g->speed = (float)sqlite3_column_double(a, 5);
            g->vx = (float)sqlite3_column_double(a, 6);
            g->vy = (float)sqlite3_column_double(a, 7);
        }
        n++;
    }
    if (rt != SQLITE_DONE || (ra != SQLITE_ROW && ra != SQLITE_DONE)) {
        view_rdb_sql_fail(db, why, "reading the frame");
        goto fail;
    }
    sqlite3_reset(t);
    if (a != NULL)
        sqlite3_reset(a);
    c->nagents = n;
    c->tick = tick;
    c->snap_seq = (uint64_t)frame + 1;
    return 0;
fail:
    sqlite3_reset(t);
    if (a != NULL)
        sqlite3_reset(a);
    return -1;
}

int
view_rdb_track(view_rdb *db, uint32_t id, gc_vec2 **pts, int64_t **frames,
               size_t *n, char *why)
{
    *pts = NULL;
    *frames = NULL;
    *n = 0;
    sqlite3_stmt *q;
    if (sqlite3_prepare_v2(db->db,
                           "SELECT frame, pos_x, pos_y FROM trajectory_data "
                           "WHERE id = ? ORDER BY frame",
                           -1, &q, NULL) != SQLITE_OK)
        return view_rdb_sql_fail(db, why, "reading a trajectory");
    sqlite3_bind_int64(q, 1, id);
    size_t cap = 0, k = 0;
    gc_vec2 *p = NULL;
    int64_t *f = NULL;
    int rc;
    while ((rc = sqlite3_step(q)) == SQLITE_ROW) {
        if (k == cap) {
            cap = cap ? 2 * cap : 256;
            gc_vec2 *np = realloc(p, cap * sizeof *np);
            int64_t *nf = np != NULL ? realloc(f, cap * sizeof *nf) : NULL;
            if (np != NULL)
                p = np;
            if (nf == NULL) {
                free(p);
                free(f);
                sqlite3_finalize(q);
                view_rdb_say(why, "out of memory");
                return -1;
            }
            f = nf;
        }
        f[k] = sqlite3_column_int64(q, 0);
        double x = sqlite3_column_double(q, 1), y = sqlite3_column_double(q, 2);
        if (!db->ours) {
            x -= db->xmin;
            y = db->ymax - y;
        }
        p[k].x = (float)x;
        p[k].y = (float)y;
        k++;
    }
    if (rc != SQLITE_DONE) {
        free(p);
        free(f);
        view_rdb_sql_fail(db, why, "reading a trajectory");
        sqlite3_finalize(q);
        return -1;
    }
    sqlite3_finalize(q);
    *pts = p;
    *frames = f;
    *n = k;
    return 0;
}
