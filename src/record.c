/*
 * record.c: the recorder: frames from the simulation loop into a SQLite
 * file in JuPedSim's trajectory format, written by a thread of its own.
 *
 * Shape (Redis's bio.c is the model): the caller's thread copies each frame
 * into a slot of a ring of `buffer_frames` slots and hands it over under
 * one mutex; one writer thread takes slots in order, inserts them with
 * prepared statements inside large transactions and gives the slots back.
 * Only the caller's thread fills slots (one producer), so it copies a frame
 * into the free slot at the tail without holding the lock; the writer
 * touches only the slots between head and head + count.  A slot owns its
 * agent array (grown, then reused) and, when the grid changed, a clone of
 * the grid that the writer formats (map text, WKT) and frees: the
 * simulation loop pays only for a memcpy.
 *
 * Rules kept:
 * - Whole frames or nothing: a frame is in the buffer entirely or not at
 *   all; in the file it is inserted inside one transaction with its
 *   frame_data and gc_frames rows.
 * - Durability: WAL journal, synchronous=NORMAL.  A commit is in the WAL
 *   file before COMMIT returns, so a process killed with SIGKILL (not the
 *   machine) loses only the open transaction; the next open replays the
 *   WAL.  Transactions end every commit_frames frames or commit_ms of wall
 *   time (the writer wakes for the deadline when no frame comes).  At
 *   close the WAL is checkpointed and the journal switched back to DELETE,
 *   so a finished recording is one file.
 * - Errors: at open, one line for the caller's gc_error, and the half-made
 *   file is removed.  In the writer, the first SQLite error stops the
 *   recording: the open transaction is rolled back, the reason kept
 *   (status, msg), queued frames discarded, and push returns GC_EIO at once
 *   from then on.
 * - The connection belongs to the caller's thread during open and to the
 *   writer from pthread_create to its exit (SQLITE_OPEN_NOMUTEX: never two
 *   threads at once).
 */
#include "config.h"

#include <gridcrowd/mapio.h>
#include <gridcrowd/record.h>
#include <gridcrowd/util.h>

#include "record_int.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <pthread.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <time.h>
#include <unistd.h>

/* Edits queued at most before gc_recorder_edit says GC_EFULL. */
#define EDITS_MAX ((size_t)1 << 20)

typedef struct rec_slot {
    uint64_t tick;
    int64_t frame;
    uint64_t generation;
    gc_record_agent *agents; /* owned, n of cap used */
    size_t n, cap;
    gc_grid *grid; /* clone when the generation changed, else NULL */
} rec_slot;

enum {
    ST_TRAJ,
    ST_AGENT,
    ST_FDATA,
    ST_FRAMES,
    ST_GEOM,
    ST_GRID,
    ST_EDIT,
    ST_META,
    ST_BEGIN,
    ST_COMMIT,
    ST_TRAJ_BLOCK, /* BLOCK_ROWS rows in one statement (made at open) */
    ST_AGENT_BLOCK,
    ST_N
};

/* Agents inserted by one statement: SQLite's cost per row is mostly the
 * statement's (step, reset, the VDBE's setup), so many rows per statement
 * roughly halve it.  10 parameters a row keeps well under SQLite's
 * parameter limit (32766). */
#define BLOCK_ROWS 64

static const char *const stmt_sql[ST_N] = {
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

struct gc_recorder {
    /* Set by open, then read-only. */
    char *path;
    gc_record_opts opts; /* options/map_name pointers cleared: not kept */
    bool bounds_given;
    size_t cap; /* slots */
    /* Not under mu: a slot belongs to the caller's thread while it is
     * outside [head, head + count) and to the writer while inside; it
     * changes hands only when count changes, under mu. */
    rec_slot *slots;
    pthread_t thread;

    /* Caller's thread only (push, edit, close). */
    int64_t last_frame;
    bool have_frame;
    uint64_t last_gen;

    /* Writer thread only, from pthread_create until it exits (the caller's
     * thread before and after). */
    sqlite3 *db;
    sqlite3_stmt *st[ST_N];
    bool in_txn;
    uint32_t txn_frames;
    uint64_t txn_deadline_ns;
    int64_t geom_hash;
    bool bounds_done;

    /* Everything below is protected by mu. */
    pthread_mutex_t mu;
    pthread_cond_t wake;     /* writer waits: frames, edits, close, stall */
    pthread_cond_t not_full; /* producer waits: a slot became free */
    size_t head, count;      /* slots [head, head + count) are the writer's */
    gc_record_edit *edits;   /* queued edits */
    size_t n_edits, edits_cap;
    bool closing, stalled;
    gc_record_stats stats; /* status and msg set once by the writer */
};

static uint64_t
ms_to_ns(uint32_t ms)
{
    return (uint64_t)ms * 1000000u;
}

void
gc_record_opts_init(gc_record_opts *o)
{
    memset(o, 0, sizeof *o);
    o->fps = 10.0;
    o->tick_every = 1;
    o->cell_size = 1.0f;
    o->mode = GC_RECORD_BATCH;
    o->buffer_frames = 64;
    o->commit_frames = 1000;
    o->commit_ms = 1000;
}

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
static const char *
sql_why(sqlite3 *db, const char *path, char *buf, size_t size)
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

/* ---- the writer ------------------------------------------------------------
 */

/* Stop the recording for SQLite's error `what` (writer thread). */
static void
writer_fail(gc_recorder *r, const char *what)
{
    char msg[sizeof r->stats.msg], why[160];
    snprintf(msg, sizeof msg, "%s: %s: %s", r->path, what,
             sql_why(r->db, r->path, why, sizeof why));
    if (r->in_txn)
        sqlite3_exec(r->db, "ROLLBACK", NULL, NULL, NULL);
    r->in_txn = false;
    r->txn_frames = 0;
    pthread_mutex_lock(&r->mu);
    if (r->stats.status == GC_OK) {
        r->stats.status = GC_EIO;
        memcpy(r->stats.msg, msg, sizeof msg);
    }
    pthread_mutex_unlock(&r->mu);
}

static bool
stopped(gc_recorder *r)
{
    pthread_mutex_lock(&r->mu);
    bool s = r->stats.status != GC_OK;
    pthread_mutex_unlock(&r->mu);
    return s;
}

/* Run a prepared statement to its end and reset it; SQLITE_DONE or the
 * error. */
static int
step(sqlite3_stmt *s)
{
    int rc = sqlite3_step(s);
    sqlite3_reset(s);
    return rc == SQLITE_ROW ? SQLITE_DONE : rc;
}

static int
put_meta(gc_recorder *r, const char *key, const char *value)
{
    sqlite3_stmt *s = r->st[ST_META];
    sqlite3_bind_text(s, 1, key, -1, SQLITE_STATIC);
    sqlite3_bind_text(s, 2, value, -1, SQLITE_TRANSIENT);
    return step(s);
}

static int
put_meta_num(gc_recorder *r, const char *key, double v)
{
    char t[64];
    snprintf(t, sizeof t, "%.17g", v);
    return put_meta(r, key, t);
}

static bool
txn_begin(gc_recorder *r)
{
    if (r->in_txn)
        return true;
    if (step(r->st[ST_BEGIN]) != SQLITE_DONE) {
        writer_fail(r, "begin");
        return false;
    }
    r->in_txn = true;
    r->txn_frames = 0;
    r->txn_deadline_ns = gc_clock_ns() + ms_to_ns(r->opts.commit_ms);
    return true;
}

static bool
txn_commit(gc_recorder *r)
{
    if (!r->in_txn)
        return true;
    if (step(r->st[ST_COMMIT]) != SQLITE_DONE) {
        writer_fail(r, "commit");
        return false;
    }
    r->in_txn = false;
    pthread_mutex_lock(&r->mu);
    r->stats.committed += r->txn_frames;
    pthread_mutex_unlock(&r->mu);
    r->txn_frames = 0;
    return true;
}

/* A new grid generation: its map text, its walkable area, its row. */
static bool
write_grid(gc_recorder *r, const rec_slot *sl)
{
    const gc_grid *g = sl->grid;
    char *map = NULL, *wkt = NULL;
    size_t map_len = 0, wkt_len = 0;
    int rc = gc_map_format(g, &map, &map_len);
    if (rc == GC_OK)
        rc = gc_record_walkable_wkt(g, &wkt, &wkt_len);
    /* SQLite binds text lengths as int. */
    if (rc == GC_OK && (map_len > INT_MAX || wkt_len > INT_MAX))
        rc = GC_ETOOBIG;
    if (rc != GC_OK) {
        pthread_mutex_lock(&r->mu);
        if (r->stats.status == GC_OK) {
            r->stats.status = rc;
            snprintf(r->stats.msg, sizeof r->stats.msg,
                     "%s: grid generation %llu: %s", r->path,
                     (unsigned long long)sl->generation, gc_strerror(rc));
        }
        pthread_mutex_unlock(&r->mu);
        free(map);
        free(wkt);
        return false;
    }
    int64_t h = gc_record_wkt_hash(wkt);
    sqlite3_stmt *s = r->st[ST_GEOM];
    sqlite3_bind_int64(s, 1, h);
    sqlite3_bind_text(s, 2, wkt, (int)wkt_len, SQLITE_STATIC);
    bool ok = step(s) == SQLITE_DONE;
    sqlite3_clear_bindings(s);
    if (ok) {
        s = r->st[ST_GRID];
        sqlite3_bind_int64(s, 1, (sqlite3_int64)sl->generation);
        sqlite3_bind_int64(s, 2, sl->frame);
        sqlite3_bind_int64(s, 3, (sqlite3_int64)sl->tick);
        sqlite3_bind_int(s, 4, g->width);
        sqlite3_bind_int(s, 5, g->height);
        sqlite3_bind_double(s, 6, (double)g->cell_size);
        sqlite3_bind_text(s, 7, map, (int)map_len, SQLITE_STATIC);
        sqlite3_bind_int64(s, 8, h);
        ok = step(s) == SQLITE_DONE;
        sqlite3_clear_bindings(s);
    }
    if (ok && !r->bounds_done) {
        double cs = (double)g->cell_size;
        ok = put_meta_num(r, "xmin", 0) == SQLITE_DONE &&
             put_meta_num(r, "xmax", g->width * cs) == SQLITE_DONE &&
             put_meta_num(r, "ymin", 0) == SQLITE_DONE &&
             put_meta_num(r, "ymax", g->height * cs) == SQLITE_DONE;
        r->bounds_done = ok;
    }
    free(map);
    free(wkt);
    if (!ok)
        writer_fail(r, "writing a grid");
    else
        r->geom_hash = h;
    return ok;
}

static bool
write_frame(gc_recorder *r, const rec_slot *sl)
{
    if (!txn_begin(r))
        return false;
    if (sl->grid && !write_grid(r, sl))
        return false;
    size_t i = 0;
    while (i < sl->n) {
        /* A whole block when there are enough rows, else one at a time. */
        bool block = sl->n - i >= BLOCK_ROWS;
        size_t rows = block ? BLOCK_ROWS : 1;
        sqlite3_stmt *t = r->st[block ? ST_TRAJ_BLOCK : ST_TRAJ];
        sqlite3_stmt *a = r->st[block ? ST_AGENT_BLOCK : ST_AGENT];
        for (size_t k = 0; k < rows; k++) {
            const gc_record_agent *g = &sl->agents[i + k];
            int p = (int)k * 4;
            sqlite3_bind_int64(t, p + 1, sl->frame);
            sqlite3_bind_int64(t, p + 2, g->id);
            sqlite3_bind_double(t, p + 3, (double)g->x);
            sqlite3_bind_double(t, p + 4, (double)g->y);
            p = (int)k * 10;
            sqlite3_bind_int64(a, p + 1, sl->frame);
            sqlite3_bind_int64(a, p + 2, g->id);
            sqlite3_bind_double(a, p + 3, (double)g->heading);
            sqlite3_bind_int(a, p + 4, g->state);
            sqlite3_bind_int(a, p + 5, g->goal_x);
            sqlite3_bind_int(a, p + 6, g->goal_y);
            sqlite3_bind_double(a, p + 7, (double)g->speed);
            sqlite3_bind_double(a, p + 8, (double)g->radius);
            sqlite3_bind_double(a, p + 9, (double)g->vx);
            sqlite3_bind_double(a, p + 10, (double)g->vy);
        }
        if (step(t) != SQLITE_DONE || step(a) != SQLITE_DONE)
            goto fail;
        i += rows;
    }
    sqlite3_stmt *s = r->st[ST_FDATA];
    sqlite3_bind_int64(s, 1, sl->frame);
    sqlite3_bind_int64(s, 2, r->geom_hash);
    if (step(s) != SQLITE_DONE)
        goto fail;
    s = r->st[ST_FRAMES];
    sqlite3_bind_int64(s, 1, sl->frame);
    sqlite3_bind_int64(s, 2, (sqlite3_int64)sl->tick);
    sqlite3_bind_int64(s, 3, (sqlite3_int64)sl->generation);
    sqlite3_bind_int64(s, 4, (sqlite3_int64)sl->n);
    if (step(s) != SQLITE_DONE)
        goto fail;
    r->txn_frames++;
    pthread_mutex_lock(&r->mu);
    r->stats.written++;
    pthread_mutex_unlock(&r->mu);
    return true;
fail:;
    char what[64];
    snprintf(what, sizeof what, "frame %lld", (long long)sl->frame);
    writer_fail(r, what);
    return false;
}

static bool
write_edits(gc_recorder *r, const gc_record_edit *e, size_t n)
{
    if (n == 0)
        return true;
    if (!txn_begin(r))
        return false;
    sqlite3_stmt *s = r->st[ST_EDIT];
    for (size_t i = 0; i < n; i++) {
        sqlite3_bind_int64(s, 1, (sqlite3_int64)e[i].tick);
        sqlite3_bind_int64(s, 2, e[i].op);
        sqlite3_bind_int64(s, 3, e[i].type);
        sqlite3_bind_int(s, 4, e[i].x0);
        sqlite3_bind_int(s, 5, e[i].y0);
        sqlite3_bind_int(s, 6, e[i].x1);
        sqlite3_bind_int(s, 7, e[i].y1);
        if (step(s) != SQLITE_DONE) {
            writer_fail(r, "edit");
            return false;
        }
    }
    return true;
}

/* The metadata written at close; the recording's final word. */
static void
write_final(gc_recorder *r)
{
    /* After an error this still tries to say so in the file; a full disk
     * may refuse even that. */
    gc_record_stats st;
    gc_recorder_stats(r, &st);
    if (!txn_begin(r))
        return;
    char t[32];
    snprintf(t, sizeof t, "%llu", (unsigned long long)st.written);
    bool ok = put_meta(r, "gc_frames", t) == SQLITE_DONE;
    snprintf(t, sizeof t, "%llu", (unsigned long long)st.dropped);
    ok = ok && put_meta(r, "gc_dropped_frames", t) == SQLITE_DONE;
    ok = ok &&
         put_meta(r, "gc_status", st.status == GC_OK ? "complete" : st.msg) ==
             SQLITE_DONE;
    if (!ok) {
        writer_fail(r, "final metadata");
        return;
    }
    txn_commit(r);
}

static void *
writer_main(void *arg)
{
    gc_recorder *r = arg;
    gc_record_edit *edits = NULL;
    size_t edits_cap = 0;
    pthread_mutex_lock(&r->mu);
    for (;;) {
        /* Wait for work, the close, or the transaction's deadline. */
        bool timed_out = false;
        while (!r->closing &&
               (r->stalled || (r->count == 0 && r->n_edits == 0))) {
            if (r->in_txn) {
                struct timespec ts = {
                    (time_t)(r->txn_deadline_ns / 1000000000u),
                    (long)(r->txn_deadline_ns % 1000000000u)};
                if (pthread_cond_timedwait(&r->wake, &r->mu, &ts) ==
                    ETIMEDOUT) {
                    timed_out = true;
                    break;
                }
            } else {
                pthread_cond_wait(&r->wake, &r->mu);
            }
        }
        bool ok = r->stats.status == GC_OK;
        bool closing = r->closing;
        /* Take the queued edits (swap the arrays: no copy, no alloc). */
        size_t n_edits = 0;
        if (!timed_out && r->n_edits) {
            gc_record_edit *tmp = r->edits;
            size_t tcap = r->edits_cap;
            r->edits = edits;
            r->edits_cap = edits_cap;
            edits = tmp;
            edits_cap = tcap;
            n_edits = r->n_edits;
            r->n_edits = 0;
        }
        rec_slot *sl = !timed_out && r->count ? &r->slots[r->head] : NULL;
        pthread_mutex_unlock(&r->mu);

        if (ok && n_edits)
            ok = write_edits(r, edits, n_edits);
        if (ok && sl)
            ok = write_frame(r, sl);
        if (ok && r->in_txn &&
            (r->txn_frames >= r->opts.commit_frames ||
             gc_clock_ns() >= r->txn_deadline_ns))
            txn_commit(r);
        if (sl && sl->grid) {
            gc_grid_free(sl->grid);
            sl->grid = NULL;
        }

        pthread_mutex_lock(&r->mu);
        if (sl) {
            r->head = (r->head + 1) % r->cap;
            r->count--;
            pthread_cond_signal(&r->not_full);
        }
        if (closing && r->count == 0 && r->n_edits == 0)
            break;
    }
    pthread_mutex_unlock(&r->mu);
    free(edits);

    if (!stopped(r))
        txn_commit(r);
    write_final(r);
    /* One file again: move the WAL into the database and drop it. */
    sqlite3_exec(r->db, "PRAGMA wal_checkpoint(TRUNCATE)", NULL, NULL, NULL);
    sqlite3_exec(r->db, "PRAGMA journal_mode=DELETE", NULL, NULL, NULL);
    return NULL;
}

/* ---- the caller's side ------------------------------------------------------
 */

static void
close_db(gc_recorder *r)
{
    for (int i = 0; i < ST_N; i++) {
        sqlite3_finalize(r->st[i]);
        r->st[i] = NULL;
    }
    sqlite3_close(r->db);
    r->db = NULL;
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

static void
free_recorder(gc_recorder *r)
{
    if (!r)
        return;
    if (r->slots)
        for (size_t i = 0; i < r->cap; i++) {
            free(r->slots[i].agents);
            gc_grid_free(r->slots[i].grid);
        }
    free(r->slots);
    free(r->edits);
    free(r->path);
    free(r);
}

static int
errno_code(int e)
{
    switch (e) {
    case ENOENT:
    case ENOTDIR:
        return GC_ENOENT;
    case EACCES:
    case EPERM:
    case EROFS:
        return GC_EPERM;
    case ENOMEM:
        return GC_ENOMEM;
    default:
        return GC_EIO;
    }
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
static int
create_db(gc_recorder *r, const gc_record_opts *o, gc_error *err)
{
    const char *path = r->path;
    struct stat sb;
    if (lstat(path, &sb) == 0) {
        if (!S_ISREG(sb.st_mode))
            return gc_error_set(err, GC_EINVAL, NULL, 0, 0,
                                "%s: exists and is not a regular file", path);
        if (!o->overwrite)
            return gc_error_set(err, GC_EEXIST, NULL, 0, 0,
                                "%s: exists (not replaced)", path);
        if (unlink(path) != 0)
            return gc_error_set(err, errno_code(errno), NULL, 0, 0,
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
        return gc_error_set(err, errno_code(errno), NULL, 0, 0,
                            "%s: cannot create: %s", path, strerror(errno));
    close(fd);

    const char *what = "open";
    if (sqlite3_open_v2(path, &r->db,
                        SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX,
                        NULL) != SQLITE_OK)
        goto fail;
    sqlite3_extended_result_codes(r->db, 1);
    what = "cannot write";
    /* WAL: a commit survives the process; readers (a replay) may read
     * while we write.  NORMAL: no fsync per commit (a power cut may lose
     * the last commits, never the file). */
    sqlite3_stmt *s = NULL;
    if (sqlite3_prepare_v2(r->db, "PRAGMA journal_mode=WAL", -1, &s, NULL) !=
            SQLITE_OK ||
        sqlite3_step(s) != SQLITE_ROW ||
        strcmp((const char *)sqlite3_column_text(s, 0), "wal") != 0) {
        sqlite3_finalize(s);
        goto fail;
    }
    sqlite3_finalize(s);
    if (sqlite3_exec(r->db,
                     "PRAGMA synchronous=NORMAL;"
                     "PRAGMA wal_autocheckpoint=4096;"
                     "BEGIN;",
                     NULL, NULL, NULL) != SQLITE_OK ||
        sqlite3_exec(r->db, schema_sql, NULL, NULL, NULL) != SQLITE_OK)
        goto fail;
    for (int i = 0; i < ST_N; i++) {
        char *sql = NULL;
        if (i == ST_TRAJ_BLOCK || i == ST_AGENT_BLOCK) {
            sql = block_sql(i == ST_TRAJ_BLOCK ? stmt_sql[ST_TRAJ]
                                               : stmt_sql[ST_AGENT]);
            if (!sql) {
                what = "out of memory";
                goto fail;
            }
        }
        int prc =
            sqlite3_prepare_v3(r->db, sql ? sql : stmt_sql[i], -1,
                               SQLITE_PREPARE_PERSISTENT, &r->st[i], NULL);
        free(sql);
        if (prc != SQLITE_OK)
            goto fail;
    }
    char t[32];
    snprintf(t, sizeof t, "%d", GC_RECORD_JPS_VERSION);
    bool ok = put_meta(r, "version", t) == SQLITE_DONE &&
              put_meta_num(r, "fps", o->fps) == SQLITE_DONE;
    double b[4] = {0, 0, 0, 0};
    if (r->bounds_given) {
        b[0] = o->xmin;
        b[1] = o->xmax;
        b[2] = o->ymin;
        b[3] = o->ymax;
    }
    static const char *const bk[4] = {"xmin", "xmax", "ymin", "ymax"};
    for (int i = 0; i < 4 && ok; i++)
        ok = put_meta_num(r, bk[i], b[i]) == SQLITE_DONE;
    snprintf(t, sizeof t, "%d", GC_RECORD_FORMAT);
    ok = ok && put_meta(r, "gc_format", t) == SQLITE_DONE &&
         put_meta(r, "gc_map", o->map_name ? o->map_name : "") == SQLITE_DONE &&
         put_meta_num(r, "gc_cell_size", (double)o->cell_size) == SQLITE_DONE &&
         put_meta_num(r, "gc_tick_every", o->tick_every) == SQLITE_DONE &&
         put_meta(r, "gc_mode",
                  o->mode == GC_RECORD_REALTIME ? "realtime" : "batch") ==
             SQLITE_DONE &&
         put_meta(r, "gc_status", "recording") == SQLITE_DONE;
    if (!ok)
        goto fail;
    if (sqlite3_prepare_v2(r->db,
                           "INSERT OR REPLACE INTO gc_options "
                           "VALUES(?, ?)",
                           -1, &s, NULL) != SQLITE_OK)
        goto fail;
    for (size_t i = 0; i < o->n_options && ok; i++) {
        sqlite3_bind_text(s, 1, o->options[i].key, -1, SQLITE_STATIC);
        sqlite3_bind_text(s, 2, o->options[i].value, -1, SQLITE_STATIC);
        ok = step(s) == SQLITE_DONE;
    }
    sqlite3_finalize(s);
    if (!ok || sqlite3_exec(r->db, "COMMIT", NULL, NULL, NULL) != SQLITE_OK)
        goto fail;
    r->bounds_done = r->bounds_given;
    return GC_OK;
fail:;
    int ec = r->db ? sqlite3_extended_errcode(r->db) : SQLITE_NOMEM;
    char why[160];
    rc = gc_error_set(err, (ec & 0xff) == SQLITE_NOMEM ? GC_ENOMEM : GC_EIO,
                      NULL, 0, 0, "%s: %s: %s", path, what,
                      sql_why(r->db, r->path, why, sizeof why));
    close_db(r);
    unlink(path);
    unlink_side(path, "-wal", NULL);
    unlink_side(path, "-shm", NULL);
    return rc;
}

int
gc_recorder_open(gc_recorder **out, const char *path, const gc_record_opts *o,
                 gc_error *err)
{
    gc_error_clear(err);
    if (out)
        *out = NULL;
    if (!out || !path || !*path || !o)
        return gc_error_set(err, GC_EINVAL, NULL, 0, 0,
                            "recorder: missing argument");
    if (!(o->fps > 0 && isfinite(o->fps)) || o->tick_every < 1 ||
        o->buffer_frames < 1 || o->commit_frames < 1 || o->commit_ms < 1 ||
        !(o->cell_size > 0 && isfinite(o->cell_size)) ||
        (o->n_options && !o->options) ||
        (o->mode != GC_RECORD_BATCH && o->mode != GC_RECORD_REALTIME))
        return gc_error_set(err, GC_EINVAL, NULL, 0, 0,
                            "%s: bad recording options", path);
    for (size_t i = 0; i < o->n_options; i++)
        if (!o->options[i].key || !o->options[i].value)
            return gc_error_set(err, GC_EINVAL, NULL, 0, 0,
                                "%s: option %zu has no key or value", path, i);
    gc_recorder *r = calloc(1, sizeof *r);
    if (!r || !(r->path = strdup(path)) ||
        !(r->slots = calloc(o->buffer_frames, sizeof *r->slots))) {
        free_recorder(r);
        return gc_error_set(err, GC_ENOMEM, NULL, 0, 0, "%s: out of memory",
                            path);
    }
    r->cap = o->buffer_frames;
    r->opts = *o;
    r->opts.options = NULL;
    r->opts.n_options = 0;
    r->opts.map_name = NULL;
    r->bounds_given = o->xmax > o->xmin && o->ymax > o->ymin &&
                      isfinite(o->xmin) && isfinite(o->xmax) &&
                      isfinite(o->ymin) && isfinite(o->ymax);
    int rc = create_db(r, o, err);
    if (rc != GC_OK) {
        free_recorder(r);
        return rc;
    }
    pthread_condattr_t ca;
    bool ok = pthread_condattr_init(&ca) == 0;
    ok = ok && pthread_condattr_setclock(&ca, CLOCK_MONOTONIC) == 0;
    ok = ok && pthread_mutex_init(&r->mu, NULL) == 0;
    if (ok && pthread_cond_init(&r->wake, &ca) != 0) {
        pthread_mutex_destroy(&r->mu);
        ok = false;
    }
    if (ok && pthread_cond_init(&r->not_full, NULL) != 0) {
        pthread_cond_destroy(&r->wake);
        pthread_mutex_destroy(&r->mu);
        ok = false;
    }
    pthread_condattr_destroy(&ca);
    if (ok && pthread_create(&r->thread, NULL, writer_main, r) != 0) {
        pthread_cond_destroy(&r->not_full);
        pthread_cond_destroy(&r->wake);
        pthread_mutex_destroy(&r->mu);
        ok = false;
    }
    if (!ok) {
        close_db(r);
        free_recorder(r);
        return gc_error_set(err, GC_ESYS, NULL, 0, 0,
                            "%s: cannot start the writer thread", path);
    }
    *out = r;
    return GC_OK;
}

int
gc_recorder_push(gc_recorder *r, const gc_record_frame *f)
{
    if (!r || !f || !f->grid || (f->n_agents && !f->agents) ||
        f->n_agents > SIZE_MAX / sizeof(gc_record_agent))
        return GC_EINVAL;
    int64_t frame = (int64_t)(f->tick / r->opts.tick_every);
    if (r->have_frame && frame <= r->last_frame)
        return GC_EINVAL;
    pthread_mutex_lock(&r->mu);
    for (;;) {
        if (r->stats.status != GC_OK) {
            pthread_mutex_unlock(&r->mu);
            return GC_EIO;
        }
        if (r->count < r->cap)
            break;
        if (r->opts.mode == GC_RECORD_REALTIME) {
            r->stats.dropped++;
            pthread_mutex_unlock(&r->mu);
            return GC_EFULL;
        }
        pthread_cond_wait(&r->not_full, &r->mu);
    }
    /* The tail slot is free and only this thread fills it: copy unlocked. */
    rec_slot *sl = &r->slots[(r->head + r->count) % r->cap];
    pthread_mutex_unlock(&r->mu);

    if (sl->cap < f->n_agents) {
        gc_record_agent *p = realloc(sl->agents, f->n_agents * sizeof *p);
        if (!p)
            return GC_ENOMEM;
        sl->agents = p;
        sl->cap = f->n_agents;
    }
    if (f->n_agents)
        memcpy(sl->agents, f->agents, f->n_agents * sizeof *sl->agents);
    sl->n = f->n_agents;
    sl->tick = f->tick;
    sl->frame = frame;
    sl->generation = f->grid->generation;
    if (!r->have_frame || f->grid->generation != r->last_gen) {
        int rc = gc_grid_clone(&sl->grid, f->grid);
        if (rc != GC_OK)
            return rc;
    }

    pthread_mutex_lock(&r->mu);
    r->count++;
    r->stats.pushed++;
    pthread_cond_signal(&r->wake);
    pthread_mutex_unlock(&r->mu);
    r->have_frame = true;
    r->last_frame = frame;
    r->last_gen = f->grid->generation;
    return GC_OK;
}

int
gc_recorder_edit(gc_recorder *r, const gc_record_edit *e)
{
    if (!r || !e)
        return GC_EINVAL;
    int rc = GC_OK;
    pthread_mutex_lock(&r->mu);
    if (r->stats.status != GC_OK) {
        rc = GC_EIO;
    } else if (r->n_edits >= EDITS_MAX) {
        rc = GC_EFULL;
    } else {
        if (r->n_edits == r->edits_cap) {
            size_t cap = r->edits_cap ? r->edits_cap * 2 : 64;
            gc_record_edit *p = realloc(r->edits, cap * sizeof *p);
            if (!p) {
                pthread_mutex_unlock(&r->mu);
                return GC_ENOMEM;
            }
            r->edits = p;
            r->edits_cap = cap;
        }
        r->edits[r->n_edits++] = *e;
        r->stats.edits++;
        pthread_cond_signal(&r->wake);
    }
    pthread_mutex_unlock(&r->mu);
    return rc;
}

void
gc_recorder_stats(gc_recorder *r, gc_record_stats *out)
{
    pthread_mutex_lock(&r->mu);
    *out = r->stats;
    pthread_mutex_unlock(&r->mu);
}

uint64_t
gc_recorder_dropped(gc_recorder *r)
{
    pthread_mutex_lock(&r->mu);
    uint64_t d = r->stats.dropped;
    pthread_mutex_unlock(&r->mu);
    return d;
}

void
gc_recorder_test_stall(gc_recorder *r, bool stall)
{
    pthread_mutex_lock(&r->mu);
    r->stalled = stall;
    pthread_cond_signal(&r->wake);
    pthread_mutex_unlock(&r->mu);
}

int
gc_recorder_close(gc_recorder *r, gc_error *err)
{
    gc_error_clear(err);
    if (!r)
        return GC_OK;
    pthread_mutex_lock(&r->mu);
    r->closing = true;
    r->stalled = false;
    pthread_cond_signal(&r->wake);
    pthread_mutex_unlock(&r->mu);
    pthread_join(r->thread, NULL);
    /* The writer is gone: its fields are ours again. */
    int rc = r->stats.status;
    if (rc != GC_OK)
        gc_error_set(err, rc, NULL, 0, 0, "%s", r->stats.msg);
    close_db(r);
    pthread_cond_destroy(&r->not_full);
    pthread_cond_destroy(&r->wake);
    pthread_mutex_destroy(&r->mu);
    free_recorder(r);
    return rc;
}
