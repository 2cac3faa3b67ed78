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
 * The file itself (schema, statements, error lines) is record-db.c.
 */
#include "config.h"

#include <gridcrowd/mapio.h>
#include <gridcrowd/record.h>
#include <gridcrowd/util.h>

#include "record_int.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <pthread.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

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
    gc_record_db d;
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

/* ---- the writer ------------------------------------------------------------
 */

/* Stop the recording for SQLite's error `what` (writer thread). */
static void
writer_fail(gc_recorder *r, const char *what)
{
    char msg[sizeof r->stats.msg], why[160];
    snprintf(msg, sizeof msg, "%s: %s: %s", r->path, what,
             gc_record_db_why(r->d.db, r->path, why, sizeof why));
    if (r->in_txn)
        sqlite3_exec(r->d.db, "ROLLBACK", NULL, NULL, NULL);
    r->in_txn = false;
    pthread_mutex_lock(&r->mu);
    /* The frames rolled back are not in the file: written counts them no
     * more (the per-second line said 90 written of a file holding 0). */
    r->stats.written -= r->txn_frames;
    r->txn_frames = 0;
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

static bool
txn_begin(gc_recorder *r)
{
    if (r->in_txn)
        return true;
    if (gc_record_db_step(r->d.st[GC_REC_ST_BEGIN]) != SQLITE_DONE) {
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
    if (gc_record_db_step(r->d.st[GC_REC_ST_COMMIT]) != SQLITE_DONE) {
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
    sqlite3_stmt *s = r->d.st[GC_REC_ST_GEOM];
    sqlite3_bind_int64(s, 1, h);
    sqlite3_bind_text(s, 2, wkt, (int)wkt_len, SQLITE_STATIC);
    bool ok = gc_record_db_step(s) == SQLITE_DONE;
    sqlite3_clear_bindings(s);
    if (ok) {
        s = r->d.st[GC_REC_ST_GRID];
        sqlite3_bind_int64(s, 1, (sqlite3_int64)sl->generation);
        sqlite3_bind_int64(s, 2, sl->frame);
        sqlite3_bind_int64(s, 3, (sqlite3_int64)sl->tick);
        sqlite3_bind_int(s, 4, g->width);
        sqlite3_bind_int(s, 5, g->height);
        sqlite3_bind_double(s, 6, (double)g->cell_size);
        sqlite3_bind_text(s, 7, map, (int)map_len, SQLITE_STATIC);
        sqlite3_bind_int64(s, 8, h);
        ok = gc_record_db_step(s) == SQLITE_DONE;
        sqlite3_clear_bindings(s);
    }
    if (ok && !r->bounds_done) {
        double cs = (double)g->cell_size;
        ok = gc_record_db_put_meta_num(&r->d, "xmin", 0) == SQLITE_DONE &&
             gc_record_db_put_meta_num(&r->d, "xmax", g->width * cs) ==
                 SQLITE_DONE &&
             gc_record_db_put_meta_num(&r->d, "ymin", 0) == SQLITE_DONE &&
             gc_record_db_put_meta_num(&r->d, "ymax", g->height * cs) ==
                 SQLITE_DONE;
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
        sqlite3_stmt *t =
            r->d.st[block ? GC_REC_ST_TRAJ_BLOCK : GC_REC_ST_TRAJ];
        sqlite3_stmt *a =
            r->d.st[block ? GC_REC_ST_AGENT_BLOCK : GC_REC_ST_AGENT];
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
        if (gc_record_db_step(t) != SQLITE_DONE ||
            gc_record_db_step(a) != SQLITE_DONE)
            goto fail;
        i += rows;
    }
    sqlite3_stmt *s = r->d.st[GC_REC_ST_FDATA];
    sqlite3_bind_int64(s, 1, sl->frame);
    sqlite3_bind_int64(s, 2, r->geom_hash);
    if (gc_record_db_step(s) != SQLITE_DONE)
        goto fail;
    s = r->d.st[GC_REC_ST_FRAMES];
    sqlite3_bind_int64(s, 1, sl->frame);
    sqlite3_bind_int64(s, 2, (sqlite3_int64)sl->tick);
    sqlite3_bind_int64(s, 3, (sqlite3_int64)sl->generation);
    sqlite3_bind_int64(s, 4, (sqlite3_int64)sl->n);
    if (gc_record_db_step(s) != SQLITE_DONE)
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
    sqlite3_stmt *s = r->d.st[GC_REC_ST_EDIT];
    for (size_t i = 0; i < n; i++) {
        sqlite3_bind_int64(s, 1, (sqlite3_int64)e[i].tick);
        sqlite3_bind_int64(s, 2, e[i].op);
        sqlite3_bind_int64(s, 3, e[i].type);
        sqlite3_bind_int(s, 4, e[i].x0);
        sqlite3_bind_int(s, 5, e[i].y0);
        sqlite3_bind_int(s, 6, e[i].x1);
        sqlite3_bind_int(s, 7, e[i].y1);
        if (gc_record_db_step(s) != SQLITE_DONE) {
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
    bool ok = gc_record_db_put_meta(&r->d, "gc_frames", t) == SQLITE_DONE;
    snprintf(t, sizeof t, "%llu", (unsigned long long)st.dropped);
    ok = ok &&
         gc_record_db_put_meta(&r->d, "gc_dropped_frames", t) == SQLITE_DONE;
    ok = ok && gc_record_db_put_meta(
                   &r->d, "gc_status",
                   st.status == GC_OK ? "complete" : st.msg) == SQLITE_DONE;
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
    sqlite3_exec(r->d.db, "PRAGMA wal_checkpoint(TRUNCATE)", NULL, NULL, NULL);
    sqlite3_exec(r->d.db, "PRAGMA journal_mode=DELETE", NULL, NULL, NULL);
    return NULL;
}

/* ---- the caller's side ------------------------------------------------------
 */

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
    int rc = gc_record_db_create(&r->d, r->path, o, r->bounds_given, err);
    if (rc != GC_OK) {
        free_recorder(r);
        return rc;
    }
    r->bounds_done = r->bounds_given;
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
        gc_record_db_close(&r->d);
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
    /* Every column is NOT NULL, and SQLite stores a NaN as NULL: one
     * such value failed the writer's insert and stopped the recording.
     * The frame is refused here instead, and the recording goes on. */
    for (size_t i = 0; i < f->n_agents; i++) {
        const gc_record_agent *g = &f->agents[i];
        if (!isfinite(g->x) || !isfinite(g->y) || !isfinite(g->heading) ||
            !isfinite(g->speed) || !isfinite(g->radius) || !isfinite(g->vx) ||
            !isfinite(g->vy))
            return GC_EINVAL;
    }
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
    gc_record_db_close(&r->d);
    pthread_cond_destroy(&r->not_full);
    pthread_cond_destroy(&r->wake);
    pthread_mutex_destroy(&r->mu);
    free_recorder(r);
    return rc;
}
