/*
 * report-read.c: the recording, read through SQLite.
 *
 * Two kinds of file are read: gridcrowd's own (gridcrowd/record.h: the
 * JuPedSim tables plus gc_*), and a plain JuPedSim trajectory file (the
 * four standard tables), from which the pictures come from positions
 * alone.  The only tables required are metadata (for fps) and
 * trajectory_data; the geometry gives the walls when it is one simple
 * POLYGON or MULTIPOLYGON, and gridcrowd's tables add the agents' states
 * (for arrivals), the options and the map's name.
 *
 * The file is opened read-only and never changed.  Frames are streamed
 * through one prepared statement in (frame, id) order, which the index on
 * (frame, id) both recorders write gives without sorting; a file without
 * it is sorted by SQLite's external sorter, on disk, not in our memory.
 */
#include "config.h"

#include "report.h"

#include "prog.h"
#include "recording.h"

#include <errno.h>
#include <math.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static bool
has_table(sqlite3 *db, const char *name)
{
    sqlite3_stmt *st;
    bool yes = false;
    if (sqlite3_prepare_v2(db,
                           "SELECT 1 FROM sqlite_master WHERE type = 'table' "
                           "AND name = ?",
                           -1, &st, NULL) != SQLITE_OK)
        return false;
    sqlite3_bind_text(st, 1, name, -1, SQLITE_STATIC);
    yes = sqlite3_step(st) == SQLITE_ROW;
    sqlite3_finalize(st);
    return yes;
}

/* Does `sql` prepare?  (The columns a query names exist.) */
static bool
prepares(sqlite3 *db, const char *sql)
{
    sqlite3_stmt *st;
    int rc = sqlite3_prepare_v2(db, sql, -1, &st, NULL);
    sqlite3_finalize(st);
    return rc == SQLITE_OK;
}

/* One metadata value as a new string, or NULL. */
static char *
meta_text(sqlite3 *db, const char *key)
{
    sqlite3_stmt *st;
    char *v = NULL;
    if (sqlite3_prepare_v2(db, "SELECT value FROM metadata WHERE key = ?", -1,
                           &st, NULL) != SQLITE_OK)
        return NULL;
    sqlite3_bind_text(st, 1, key, -1, SQLITE_STATIC);
    if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_text(st, 0))
        v = strdup((const char *)sqlite3_column_text(st, 0));
    sqlite3_finalize(st);
    return v;
}

/* A metadata number into *out; false when absent or not a finite number. */
static bool
meta_num(sqlite3 *db, const char *key, double *out)
{
    char *s = meta_text(db, key), *end;
    bool ok = false;
    if (s) {
        errno = 0;
        double v = strtod(s, &end);
        ok = end != s && *end == '\0' && errno == 0 && isfinite(v);
        if (ok)
            *out = v;
    }
    free(s);
    return ok;
}

static int64_t
query_int(sqlite3 *db, const char *sql, int64_t dflt)
{
    sqlite3_stmt *st;
    int64_t v = dflt;
    if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK)
        return dflt;
    if (sqlite3_step(st) == SQLITE_ROW &&
        sqlite3_column_type(st, 0) != SQLITE_NULL)
        v = sqlite3_column_int64(st, 0);
    sqlite3_finalize(st);
    return v;
}

static int
read_options(sqlite3 *db, rep_info *in)
{
    sqlite3_stmt *st;
    if (!has_table(db, "gc_options") ||
        sqlite3_prepare_v2(db, "SELECT key, value FROM gc_options", -1, &st,
                           NULL) != SQLITE_OK)
        return GC_OK;
    int rc = GC_OK;
    while (sqlite3_step(st) == SQLITE_ROW) {
        rep_kv *o = realloc(in->options, (in->n_options + 1) * sizeof *o);
        if (!o) {
            rc = GC_ENOMEM;
            break;
        }
        in->options = o;
        const char *k = (const char *)sqlite3_column_text(st, 0);
        const char *v = (const char *)sqlite3_column_text(st, 1);
        o[in->n_options].key = strdup(k ? k : "");
        o[in->n_options].value = strdup(v ? v : "");
        in->n_options++;
        if (!o[in->n_options - 1].key || !o[in->n_options - 1].value) {
            rc = GC_ENOMEM;
            break;
        }
    }
    sqlite3_finalize(st);
    return rc;
}

/* The walkable area of the first frame (frame_data names its geometry),
 * or of the first geometry row when there is no frame_data. */
static void
read_area(sqlite3 *db, rep_info *in)
{
    snprintf(in->area_note, sizeof in->area_note, "no geometry: no walls");
    if (!has_table(db, "geometry") ||
        !prepares(db, "SELECT hash, wkt FROM geometry"))
        return;
    const char *sql =
        has_table(db, "frame_data") &&
                prepares(db, "SELECT frame, geometry_hash FROM frame_data")
            ? "SELECT wkt FROM geometry WHERE hash = (SELECT geometry_hash "
              "FROM frame_data ORDER BY frame LIMIT 1) UNION ALL "
              "SELECT wkt FROM (SELECT wkt FROM geometry LIMIT 1)"
            : "SELECT wkt FROM geometry LIMIT 1";
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK)
        return;
    if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_text(st, 0)) {
        const char *wkt = (const char *)sqlite3_column_text(st, 0);
        if (rep_area_parse(wkt, &in->area) == GC_OK && in->area.n_rings > 0) {
            in->have_area = true;
            in->area_note[0] = '\0';
        } else {
            snprintf(in->area_note, sizeof in->area_note,
                     "the geometry is not a simple polygon: no walls");
        }
    }
    sqlite3_finalize(st);
}

/* A number column: an integer or a real (SQLite stores no NaN). */
static bool
is_number(sqlite3_stmt *st, int col)
{
    int t = sqlite3_column_type(st, col);
    return t == SQLITE_INTEGER || t == SQLITE_FLOAT;
}

/* Bounds from the positions, when the metadata has none: GC_OK, GC_EPARSE
 * when the positions are not numbers, or -1 when the read failed. */
static int
bounds_from_rows(sqlite3 *db, rep_info *in)
{
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(db,
                           "SELECT min(pos_x), max(pos_x), min(pos_y), "
                           "max(pos_y) FROM trajectory_data",
                           -1, &st, NULL) != SQLITE_OK)
        return -1;
    int rc = -1;
    if (sqlite3_step(st) == SQLITE_ROW) {
        rc = GC_EPARSE;
        if (is_number(st, 0) && is_number(st, 1) && is_number(st, 2) &&
            is_number(st, 3)) {
            in->xmin = sqlite3_column_double(st, 0);
            in->xmax = sqlite3_column_double(st, 1);
            in->ymin = sqlite3_column_double(st, 2);
            in->ymax = sqlite3_column_double(st, 3);
            rc = GC_OK;
        }
    }
    sqlite3_finalize(st);
    return rc;
}

/* min(frame) or max(frame) (`sql`) into *out: 1, 0 when there are no
 * rows, -1 when it is not an integer (some frame is a text or a blob),
 * -2 when the read failed. */
static int
frame_end(sqlite3 *db, const char *sql, int64_t *out)
{
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK)
        return -2;
    int r = -2;
    if (sqlite3_step(st) == SQLITE_ROW) {
        int t = sqlite3_column_type(st, 0);
        r = t == SQLITE_NULL ? 0 : t == SQLITE_INTEGER ? 1 : -1;
        if (r == 1)
            *out = sqlite3_column_int64(st, 0);
    }
    sqlite3_finalize(st);
    return r;
}

/* A failed read's code: a damaged file is bad input (GC_EPARSE, exit 3),
 * anything else a read error (GC_EIO). */
static int
read_code(sqlite3 *db)
{
    int e = sqlite3_errcode(db);
    return e == SQLITE_CORRUPT || e == SQLITE_NOTADB ? GC_EPARSE : GC_EIO;
}

/* "PATH: why", `why` escaped: SQLite's errors quote the file (a damaged
 * schema's bytes), and the message must stay one printable line. */
static int
fail(gc_error *err, int code, const char *path, const char *why)
{
    char buf[sizeof err->msg];
    prog_escape(buf, sizeof buf, why);
    gc_error_set(err, code, NULL, 0, 0, "%s: %s", path, buf);
    return code;
}

int
rep_read_open(rep_read *r, const char *path, gc_error *err)
{
    memset(r, 0, sizeof *r);
    rep_info *in = &r->info;
    in->path = path;
    in->dropped = -1;
    in->edits = -1;
    int rc;
    struct stat sb;
    if (stat(path, &sb) != 0)
        return fail(err, errno == ENOENT ? GC_ENOENT : GC_EIO, path,
                    strerror(errno));
    if (!S_ISREG(sb.st_mode))
        return fail(err, GC_EINVAL, path, "not a regular file");
    if (sqlite3_open_v2(path, &r->db, SQLITE_OPEN_READONLY, NULL) != SQLITE_OK)
        return fail(err, GC_EIO, path,
                    r->db ? sqlite3_errmsg(r->db) : "cannot open");
    sqlite3 *db = r->db;
    /* The first read of the schema tells a database from anything else. */
    int src = sqlite3_exec(db, "SELECT count(*) FROM sqlite_master", NULL, NULL,
                           NULL);
    if (src == SQLITE_NOTADB)
        return fail(err, GC_EPARSE, path, "not an SQLite database");
    if (src != SQLITE_OK)
        return fail(err, GC_EIO, path, sqlite3_errmsg(db));
    if (!has_table(db, "trajectory_data") || !has_table(db, "metadata"))
        return fail(err, GC_EPARSE, path,
                    "not a trajectory recording (no table trajectory_data "
                    "or metadata)");
    if (!prepares(db, "SELECT frame, id, pos_x, pos_y FROM trajectory_data"))
        return fail(err, GC_EPARSE, path,
                    "not a trajectory recording (trajectory_data has no "
                    "frame, id, pos_x, pos_y)");
    if (!prepares(db, "SELECT key, value FROM metadata"))
        return fail(err, GC_EPARSE, path,
                    "not a trajectory recording (metadata has no key, "
                    "value)");
    /* Within these the durations (frames / fps) stay finite. */
    if (!meta_num(db, "fps", &in->fps) || !(in->fps >= REP_MIN_FPS) ||
        !(in->fps <= REP_MAX_FPS))
        return fail(err, GC_EPARSE, path,
                    "metadata: fps is missing or not a number from " REP_TEXT(
                        REP_MIN_FPS) " to " REP_TEXT(REP_MAX_FPS));
    int lo = frame_end(db, "SELECT min(frame) FROM trajectory_data",
                       &in->first_frame);
    int hi = lo < 1 ? lo
                    : frame_end(db, "SELECT max(frame) FROM trajectory_data",
                                &in->last_frame);
    if (lo == -2 || hi == -2)
        return fail(err, read_code(db), path, sqlite3_errmsg(db));
    if (lo == 0 || hi == 0)
        return fail(err, GC_EPARSE, path, "trajectory_data holds no rows");
    if (lo < 0 || hi < 0 || in->first_frame < 0 ||
        in->last_frame > REC_MAX_FRAME)
        return fail(err, GC_EPARSE, path,
                    "trajectory_data: a frame is not a whole number from 0 "
                    "to 2^53");

    in->gridcrowd = has_table(db, "gc_agent_data") &&
                    prepares(db, "SELECT frame, id, state FROM gc_agent_data");
    double cs;
    if (meta_num(db, "gc_cell_size", &cs) && cs > 0)
        in->cell_size = cs;
    in->map = meta_text(db, "gc_map");
    in->status = meta_text(db, "gc_status");
    double d;
    /* A count, or unknown (no cast of 1e308 to an integer). */
    if (meta_num(db, "gc_dropped_frames", &d) && d >= 0 && d <= REC_MAX_FRAME)
        in->dropped = (int64_t)d;
    if (has_table(db, "gc_edits"))
        in->edits = query_int(db, "SELECT count(*) FROM gc_edits", -1);
    rc = read_options(db, in);
    if (rc != GC_OK)
        return fail(err, rc, path, gc_strerror(rc));
    read_area(db, in);

    if (!meta_num(db, "xmin", &in->xmin) || !meta_num(db, "xmax", &in->xmax) ||
        !meta_num(db, "ymin", &in->ymin) || !meta_num(db, "ymax", &in->ymax) ||
        !(in->xmax - in->xmin >= REP_MIN_EXTENT) ||
        !(in->ymax - in->ymin >= REP_MIN_EXTENT)) {
        rc = bounds_from_rows(db, in);
        if (rc == GC_EPARSE)
            return fail(err, rc, path,
                        "trajectory_data: a position is not a number");
        if (rc != GC_OK)
            return fail(err, read_code(db), path, sqlite3_errmsg(db));
        /* Take in the walls too, and keep an empty extent from vanishing. */
        for (size_t i = 0; in->have_area && i < in->area.n_points; i++) {
            double x = in->area.xy[2 * i], y = in->area.xy[2 * i + 1];
            in->xmin = fmin(in->xmin, x);
            in->xmax = fmax(in->xmax, x);
            in->ymin = fmin(in->ymin, y);
            in->ymax = fmax(in->ymax, y);
        }
        if (!(in->xmax - in->xmin >= REP_MIN_EXTENT))
            in->xmax = in->xmin + 1;
        if (!(in->ymax - in->ymin >= REP_MIN_EXTENT))
            in->ymax = in->ymin + 1;
    }
    /* Within these the bins' arithmetic stays finite (an infinite or a
     * denormal extent made bins of no size, or of infinite size). */
    if (!rec_bounds_ok(in->xmin, in->ymin, in->xmax, in->ymax))
        return fail(err, GC_EPARSE, path,
                    "positions, walls or bounds more than 1e12 units from "
                    "the origin");
    return GC_OK;
}

int
rep_read_frames(rep_read *r, rep_acc *acc,
                void (*progress)(int64_t frame, void *ud), void *ud,
                gc_error *err)
{
    const char *path = r->info.path;
    const char *sql =
        r->info.gridcrowd
            ? "SELECT t.frame, t.id, t.pos_x, t.pos_y, a.state "
              "FROM trajectory_data t LEFT JOIN gc_agent_data a "
              "ON a.frame = t.frame AND a.id = t.id ORDER BY t.frame, t.id"
            : "SELECT frame, id, pos_x, pos_y, NULL FROM trajectory_data "
              "ORDER BY frame, id";
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(r->db, sql, -1, &st, NULL) != SQLITE_OK)
        return fail(err, read_code(r->db), path, sqlite3_errmsg(r->db));
    int src, rc = GC_OK;
    int64_t frame = INT64_MIN;
    while ((src = sqlite3_step(st)) == SQLITE_ROW) {
        int64_t f = sqlite3_column_int64(st, 0);
        int64_t id = sqlite3_column_int64(st, 1);
        const char *bad = NULL;
        double x = sqlite3_column_double(st, 2),
               y = sqlite3_column_double(st, 3);
        /* What rep_read_open saw of the frames holds for every row, or
         * the file (an index, a page) is damaged. */
        if (sqlite3_column_type(st, 0) != SQLITE_INTEGER ||
            sqlite3_column_type(st, 1) != SQLITE_INTEGER)
            bad = "a frame or an id is not a whole number";
        else if (id < 0 || id > UINT32_MAX)
            bad = "the id is out of range (0 to 4294967295)";
        else if (f < r->info.first_frame || f > r->info.last_frame)
            bad = "a frame outside the first and last frame (a damaged "
                  "index?)";
        else if (f < frame)
            bad = "rows out of frame order (a damaged index?)";
        else if (!is_number(st, 2) || !is_number(st, 3) || !isfinite(x) ||
                 !isfinite(y))
            bad = "the position is not a finite number";
        if (bad) {
            gc_error_set(err, GC_EPARSE, NULL, 0, 0,
                         "%s: frame %lld, id %lld: %s", path, (long long)f,
                         (long long)id, bad);
            rc = GC_EPARSE;
            break;
        }
        int state = sqlite3_column_type(st, 4) == SQLITE_NULL
                        ? REP_STATE_UNKNOWN
                        : sqlite3_column_int(st, 4);
        if (f != frame && progress)
            progress(f, ud);
        frame = f;
        rc = rep_acc_add(acc, f, (uint32_t)id, x, y, state);
        if (rc != GC_OK) {
            /* The order and the numbers were checked: a row twice. */
            if (rc == GC_EINVAL)
                rc = GC_EPARSE;
            gc_error_set(err, rc, NULL, 0, 0, "%s: frame %lld, id %lld: %s",
                         path, (long long)f, (long long)id,
                         rc == GC_EPARSE ? "a second row for the same agent"
                                         : gc_strerror(rc));
            break;
        }
    }
    if (rc == GC_OK && src != SQLITE_DONE)
        rc = fail(err, read_code(r->db), path, sqlite3_errmsg(r->db));
    sqlite3_finalize(st);
    return rc;
}

void
rep_acc_config_for(rep_acc_config *cfg, const rep_info *in, double cell,
                   const rep_line *lines, size_t n_lines, size_t sample)
{
    *cfg = (rep_acc_config){
        .fps = in->fps,
        .first_frame = in->first_frame,
        .last_frame = in->last_frame,
        .xmin = in->xmin,
        .ymin = in->ymin,
        .xmax = in->xmax,
        .ymax = in->ymax,
        .cell = cell > 0 ? cell : in->cell_size,
        .lines = lines,
        .n_lines = n_lines,
        .sample = sample,
    };
    double side = fmax(in->xmax - in->xmin, in->ymax - in->ymin);
    if (!(cfg->cell > 0))
        cfg->cell = side / 100;
    /* A recording's cell larger than its map is one bin (a gc_cell_size
     * of 1e300 scaled the picture past what cairo can invert). */
    if (cell == 0 && cfg->cell > side)
        cfg->cell = side;
    /* The default is kept within the bins' limit; --cell is the user's. */
    while (cell == 0 && (((in->xmax - in->xmin) / cfg->cell) *
                                 ((in->ymax - in->ymin) / cfg->cell) >
                             REP_MAX_BINS / 2 ||
                         side / cfg->cell > REP_MAX_SIDE))
        cfg->cell *= 2;
}

void
rep_read_close(rep_read *r)
{
    rep_info *in = &r->info;
    free(in->map);
    free(in->status);
    for (size_t i = 0; i < in->n_options; i++) {
        free(in->options[i].key);
        free(in->options[i].value);
    }
    free(in->options);
    rep_area_free(&in->area);
    sqlite3_close(r->db);
    memset(r, 0, sizeof *r);
}
