/*
 * record-db.c: the recorder's file: creating it with JuPedSim's schema
 * version 3 and gridcrowd's tables, the prepared statements, and the
 * one-line reasons for SQLite's errors.  The writer thread (record.c) uses
 * what this makes; nothing here knows about threads.
 *
 * Creating: an existing non-regular path is refused, an existing regular
 * file replaced only with o->overwrite, and any -wal, -shm or -journal
 * beside it removed first (SQLite would apply an old WAL to our new file).
 * The file is made with O_EXCL, so the errno of a missing directory or a
 * read-only place is reported as it is; then the schema, the metadata and
 * the options are written in one transaction, so a full disk at the start
 * is an error at open.  On any failure what was made is removed.
 *
 * Journal: WAL with synchronous=NORMAL.  A commit is in the WAL file (the
 * kernel's page cache) when COMMIT returns, so a process killed with
 * SIGKILL loses only its open transaction, and the next open replays the
 * WAL; a power cut may lose the last commits but never the file.  Readers
 * (a replay) can read while the recorder writes.
 */
#include "config.h"

#include <gridcrowd/record.h>

#include "record_int.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

static const char *const stmt_sql[GC_REC_ST_N] = {
    "INSERT INTO trajectory_data VALUES(?, ?, ?, ?)",
    "INSERT INTO gc_agent_data VALUES(?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
    "INSERT INTO frame_data VALUES(?, ?)",
    "INSERT INTO gc_frames VALUES(?, ?, ?, ?)",
    "INSERT OR IGNORE INTO geometry VALUES(?, ?)",
    "INSERT OR REPLACE INTO gc_grids VALUES(?, ?, ?, ?, ?, ?, ?, ?)",
    "INSERT INTO gc_edits(tick, op, type, x0, y0, x1, y1) "
    "VALUES(?, ?, ?, ?, ?, ?, ?)",
    "INSERT OR REPLACE INTO metadata VALUES(?, ?)",
    "BEGIN",
    "COMMIT",
    NULL,
    NULL,
};

/* JuPedSim's tables exactly, then ours. */
static const char schema_sql[] =
    "CREATE TABLE metadata(key TEXT NOT NULL UNIQUE PRIMARY KEY,"
    " value TEXT NOT NULL);"
    "CREATE TABLE trajectory_data(frame INTEGER NOT NULL,"
    " id INTEGER NOT NULL, pos_x REAL NOT NULL, pos_y REAL NOT NULL);"
    "CREATE INDEX frame_id_idx ON trajectory_data(frame, id);"
    "CREATE TABLE geometry(hash INTEGER NOT NULL, wkt TEXT NOT NULL);"
    "CREATE UNIQUE INDEX geometry_hash ON geometry(hash);"
    "CREATE TABLE frame_data(frame INTEGER NOT NULL,"
    " geometry_hash INTEGER NOT NULL);"
    "CREATE TABLE gc_agent_data(frame INTEGER NOT NULL, id INTEGER NOT NULL,"
    " heading REAL NOT NULL, state INTEGER NOT NULL,"
    " goal_x INTEGER NOT NULL, goal_y INTEGER NOT NULL,"
    " speed REAL NOT NULL, radius REAL NOT NULL,"
    " vel_x REAL NOT NULL, vel_y REAL NOT NULL,"
    " PRIMARY KEY(frame, id)) WITHOUT ROWID;"
    "CREATE TABLE gc_frames(frame INTEGER PRIMARY KEY NOT NULL,"
    " tick INTEGER NOT NULL, generation INTEGER NOT NULL,"
    " agents INTEGER NOT NULL);"
    "CREATE TABLE gc_grids(generation INTEGER PRIMARY KEY NOT NULL,"
    " frame INTEGER NOT NULL, tick INTEGER NOT NULL,"
    " width INTEGER NOT NULL, height INTEGER NOT NULL,"
    " cell_size REAL NOT NULL, map TEXT NOT NULL,"
    " geometry_hash INTEGER NOT NULL);"
    "CREATE TABLE gc_edits(seq INTEGER PRIMARY KEY NOT NULL,"
    " tick INTEGER NOT NULL, op INTEGER NOT NULL, type INTEGER NOT NULL,"
    " x0 INTEGER NOT NULL, y0 INTEGER NOT NULL,"
    " x1 INTEGER NOT NULL, y1 INTEGER NOT NULL);"
    "CREATE TABLE gc_options(key TEXT NOT NULL PRIMARY KEY,"
    " value TEXT NOT NULL);";

/* The largest size of `path` and its WAL. */
static off_t
db_size(const char *path)
{
    struct stat sb;
    off_t m = 0;
    char wal[4096];
    if (stat(path, &sb) == 0)
        m = sb.st_size;
    snprintf(wal, sizeof wal, "%s-wal", path);
    if (stat(wal, &sb) == 0 && sb.st_size > m)
        m = sb.st_size;
    return m;
}

/*
 * Why the last call on `db` (the file `path`) failed, as one line in buf.
 * SQLite reports a write cut short by a full disk as SQLITE_FULL but one
 * cut by the file-size limit (EFBIG, SIGXFSZ ignored) as a bare I/O error,
 * so a write error is explained by looking at the limit and the free space.
 */
const char *
gc_record_db_why(sqlite3 *db, const char *path, char *buf, size_t size)
{
    if (!db)
        return "out of memory";
    int ec = sqlite3_extended_errcode(db), se = sqlite3_system_errno(db);
    if ((ec & 0xff) == SQLITE_FULL || ec == SQLITE_IOERR_WRITE ||
        se == ENOSPC || se == EFBIG || se == EDQUOT) {
        struct rlimit rl;
        struct statvfs vs;
        if (se == EFBIG || (getrlimit(RLIMIT_FSIZE, &rl) == 0 &&
                            rl.rlim_cur != RLIM_INFINITY &&
                            (rlim_t)db_size(path) + 65536 >= rl.rlim_cur))
            snprintf(buf, size, "file size limit reached (ulimit -f)");
        else if ((ec & 0xff) == SQLITE_FULL || se == ENOSPC ||
                 (statvfs(path, &vs) == 0 &&
                  (uint64_t)vs.f_bavail * vs.f_frsize < (1u << 20)))
            snprintf(buf, size, "disk full");
        else if (se == EDQUOT)
            snprintf(buf, size, "disk quota exceeded");
        else
            snprintf(buf, size, "write failed%s%s", se ? ": " : "",
                     se ? strerror(se) : "");
    } else if ((ec & 0xff) == SQLITE_IOERR && se) {
        snprintf(buf, size, "%s (%s)", sqlite3_errmsg(db), strerror(se));
    } else {
        snprintf(buf, size, "%s", sqlite3_errmsg(db));
    }
    return buf;
}

/* Run a prepared statement to its end and reset it; SQLITE_DONE or the
 * error. */
int
gc_record_db_step(sqlite3_stmt *s)
{
    int rc = sqlite3_step(s);
    sqlite3_reset(s);
    return rc == SQLITE_ROW ? SQLITE_DONE : rc;
}

int
gc_record_db_put_meta(gc_record_db *d, const char *key, const char *value)
{
    sqlite3_stmt *s = d->st[GC_REC_ST_META];
    sqlite3_bind_text(s, 1, key, -1, SQLITE_STATIC);
    sqlite3_bind_text(s, 2, value, -1, SQLITE_TRANSIENT);
    return gc_record_db_step(s);
}

int
gc_record_db_put_meta_num(gc_record_db *d, const char *key, double v)
{
    char t[64];
    snprintf(t, sizeof t, "%.17g", v);
    return gc_record_db_put_meta(d, key, t);
}

void
gc_record_db_close(gc_record_db *d)
{
    for (int i = 0; i < GC_REC_ST_N; i++) {
        sqlite3_finalize(d->st[i]);
        d->st[i] = NULL;
    }
    sqlite3_close(d->db);
    d->db = NULL;
}

/* Remove `path` + `suffix` when it is there (a stale journal or WAL). */
static int
unlink_side(const char *path, const char *suffix, gc_error *err)
{
    size_t n = strlen(path) + strlen(suffix) + 1;
    char *p = malloc(n);
    if (!p)
        return gc_error_set(err, GC_ENOMEM, NULL, 0, 0, "%s: out of memory",
                            path);
    snprintf(p, n, "%s%s", path, suffix);
    int rc = GC_OK;
    if (unlink(p) != 0 && errno != ENOENT)
        rc = gc_error_set(err, GC_EIO, NULL, 0, 0, "%s: cannot remove: %s", p,
                          strerror(errno));
    free(p);
    return rc;
}

/* The single-row INSERT `one` ("... VALUES(?, ?)") with BLOCK_ROWS rows of
 * parameters: a new string (free()), or NULL. */
static char *
block_sql(const char *one)
{
    const char *values = strstr(one, "VALUES");
    size_t head = (size_t)(values - one) + strlen("VALUES");
    const char *row = one + head;
    size_t row_len = strlen(row);
    char *sql = malloc(head + BLOCK_ROWS * (row_len + 1) + 1);
    if (!sql)
        return NULL;
    memcpy(sql, one, head);
    size_t n = head;
    for (int k = 0; k < BLOCK_ROWS; k++) {
        if (k)
            sql[n++] = ',';
        memcpy(sql + n, row, row_len);
        n += row_len;
    }
    sql[n] = '\0';
    return sql;
}

/* Create the file and its schema; on failure remove what was made. */
int
gc_record_db_create(gc_record_db *d, const char *path, const gc_record_opts *o,
                    bool bounds_given, gc_error *err)
{
    d->path = path;
    struct stat sb;
    if (lstat(path, &sb) == 0) {
        if (!S_ISREG(sb.st_mode))
            return gc_error_set(err, GC_EINVAL, NULL, 0, 0,
                                "%s: exists and is not a regular file", path);
        if (!o->overwrite)
            return gc_error_set(err, GC_EEXIST, NULL, 0, 0,
                                "%s: exists (not replaced)", path);
        if (unlink(path) != 0)
            return gc_error_set(err, gc_err_from_errno(errno), NULL, 0, 0,
                                "%s: cannot replace: %s", path,
                                strerror(errno));
    }
    /* Journals of an older file by this name would be applied to ours. */
    int rc;
    if ((rc = unlink_side(path, "-wal", err)) != GC_OK ||
        (rc = unlink_side(path, "-shm", err)) != GC_OK ||
        (rc = unlink_side(path, "-journal", err)) != GC_OK)
        return rc;
    int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
    if (fd < 0)
        return gc_error_set(err, gc_err_from_errno(errno), NULL, 0, 0,
                            "%s: cannot create: %s", path, strerror(errno));
    close(fd);

    const char *what = "open";
    if (sqlite3_open_v2(path, &d->db,
                        SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX,
                        NULL) != SQLITE_OK)
        goto fail;
    sqlite3_extended_result_codes(d->db, 1);
    what = "cannot write";
    /* WAL: a commit survives the process; readers (a replay) may read
     * while we write.  NORMAL: no fsync per commit (a power cut may lose
     * the last commits, never the file). */
    sqlite3_stmt *s = NULL;
    if (sqlite3_prepare_v2(d->db, "PRAGMA journal_mode=WAL", -1, &s, NULL) !=
            SQLITE_OK ||
        sqlite3_step(s) != SQLITE_ROW ||
        strcmp((const char *)sqlite3_column_text(s, 0), "wal") != 0) {
        sqlite3_finalize(s);
        goto fail;
    }
    sqlite3_finalize(s);
    if (sqlite3_exec(d->db,
                     "PRAGMA synchronous=NORMAL;"
                     "PRAGMA wal_autocheckpoint=4096;"
                     "BEGIN;",
                     NULL, NULL, NULL) != SQLITE_OK ||
        sqlite3_exec(d->db, schema_sql, NULL, NULL, NULL) != SQLITE_OK)
        goto fail;
    for (int i = 0; i < GC_REC_ST_N; i++) {
        char *sql = NULL;
        if (i == GC_REC_ST_TRAJ_BLOCK || i == GC_REC_ST_AGENT_BLOCK) {
            sql = block_sql(i == GC_REC_ST_TRAJ_BLOCK
                                ? stmt_sql[GC_REC_ST_TRAJ]
                                : stmt_sql[GC_REC_ST_AGENT]);
            if (!sql) {
                what = "out of memory";
                goto fail;
            }
        }
        int prc =
            sqlite3_prepare_v3(d->db, sql ? sql : stmt_sql[i], -1,
                               SQLITE_PREPARE_PERSISTENT, &d->st[i], NULL);
        free(sql);
        if (prc != SQLITE_OK)
            goto fail;
    }
    char t[32];
    snprintf(t, sizeof t, "%d", GC_RECORD_JPS_VERSION);
    bool ok = gc_record_db_put_meta(d, "version", t) == SQLITE_DONE &&
              gc_record_db_put_meta_num(d, "fps", o->fps) == SQLITE_DONE;
    double b[4] = {0, 0, 0, 0};
    if (bounds_given) {
        b[0] = o->xmin;
        b[1] = o->xmax;
        b[2] = o->ymin;
        b[3] = o->ymax;
    }
    static const char *const bk[4] = {"xmin", "xmax", "ymin", "ymax"};
    for (int i = 0; i < 4 && ok; i++)
        ok = gc_record_db_put_meta_num(d, bk[i], b[i]) == SQLITE_DONE;
    snprintf(t, sizeof t, "%d", GC_RECORD_FORMAT);
    ok = ok && gc_record_db_put_meta(d, "gc_format", t) == SQLITE_DONE &&
         gc_record_db_put_meta(d, "gc_map", o->map_name ? o->map_name : "") ==
             SQLITE_DONE &&
         gc_record_db_put_meta_num(d, "gc_cell_size", (double)o->cell_size) ==
             SQLITE_DONE &&
         gc_record_db_put_meta_num(d, "gc_tick_every", o->tick_every) ==
             SQLITE_DONE &&
         gc_record_db_put_meta(d, "gc_mode",
                               o->mode == GC_RECORD_REALTIME
                                   ? "realtime"
                                   : "batch") == SQLITE_DONE &&
         gc_record_db_put_meta(d, "gc_status", "recording") == SQLITE_DONE;
    if (!ok)
        goto fail;
    if (sqlite3_prepare_v2(d->db,
                           "INSERT OR REPLACE INTO gc_options "
                           "VALUES(?, ?)",
                           -1, &s, NULL) != SQLITE_OK)
        goto fail;
    for (size_t i = 0; i < o->n_options && ok; i++) {
        sqlite3_bind_text(s, 1, o->options[i].key, -1, SQLITE_STATIC);
        sqlite3_bind_text(s, 2, o->options[i].value, -1, SQLITE_STATIC);
        ok = gc_record_db_step(s) == SQLITE_DONE;
    }
    sqlite3_finalize(s);
    if (!ok || sqlite3_exec(d->db, "COMMIT", NULL, NULL, NULL) != SQLITE_OK)
        goto fail;
    return GC_OK;
fail:;
    int ec = d->db ? sqlite3_extended_errcode(d->db) : SQLITE_NOMEM;
    char why[160];
    rc = gc_error_set(err, (ec & 0xff) == SQLITE_NOMEM ? GC_ENOMEM : GC_EIO,
                      NULL, 0, 0, "%s: %s: %s", path, what,
                      gc_record_db_why(d->db, d->path, why, sizeof why));
    gc_record_db_close(d);
    unlink(path);
    unlink_side(path, "-wal", NULL);
    unlink_side(path, "-shm", NULL);
    return rc;
}
