/*
 * record_int.h: what the recorder's files share (record.c, the writer
 * thread; record-db.c, the database file) and its test hooks.  Not
 * exported; tests link libgridcrowd_core.la.
 */
#ifndef GRIDCROWD_RECORD_INT_H
#define GRIDCROWD_RECORD_INT_H

#include <stdbool.h>
#include <stddef.h>

#include <sqlite3.h>

#include <gridcrowd/record.h>

/* The prepared statements, in gc_record_db.st. */
enum {
    GC_REC_ST_TRAJ,
    GC_REC_ST_AGENT,
    GC_REC_ST_FDATA,
    GC_REC_ST_FRAMES,
    GC_REC_ST_GEOM,
    GC_REC_ST_GRID,
    GC_REC_ST_EDIT,
    GC_REC_ST_META,
    GC_REC_ST_BEGIN,
    GC_REC_ST_COMMIT,
    GC_REC_ST_TRAJ_BLOCK, /* BLOCK_ROWS rows in one statement (made at open) */
    GC_REC_ST_AGENT_BLOCK,
    GC_REC_ST_N
};

/* Agents inserted by one statement: SQLite's cost per row is mostly the
 * statement's (step, reset, the VDBE's setup), so many rows per statement
 * roughly halve it.  10 parameters a row keeps well under SQLite's
 * parameter limit (32766). */
#define BLOCK_ROWS 64

/* The open database: the connection and its statements.  Used by one
 * thread at a time (the caller's at open and close, the writer's between). */
typedef struct gc_record_db {
    sqlite3 *db;
    sqlite3_stmt *st[GC_REC_ST_N];
    const char *path; /* borrowed from the recorder */
} gc_record_db;

/*
 * Create the file at `path` (see record.h's gc_recorder_open for what is
 * refused), write the schema, metadata (world bounds from `o` when
 * bounds_given, else 0 until the first grid) and options, and prepare the
 * statements.  GC_OK, or a gc_err with one line in err; nothing is left
 * behind on failure.
 */
int gc_record_db_create(gc_record_db *d, const char *path,
                        const gc_record_opts *o, bool bounds_given,
                        gc_error *err);

/* Finalize the statements and close the connection (NULL db allowed). */
void gc_record_db_close(gc_record_db *d);

/* Run a prepared statement to its end and reset it: SQLITE_DONE or the
 * error. */
int gc_record_db_step(sqlite3_stmt *s);

/* metadata(key) = value, or the number v as text ("%.17g"). */
int gc_record_db_put_meta(gc_record_db *d, const char *key, const char *value);
int gc_record_db_put_meta_num(gc_record_db *d, const char *key, double v);

/* Why the last call on `db` (the file `path`) failed, one line in buf:
 * "file size limit reached (ulimit -f)", "disk full", or SQLite's word. */
const char *gc_record_db_why(sqlite3 *db, const char *path, char *buf,
                             size_t size);

/*
 * Stall the writer thread (true) or let it go on (false): while stalled it
 * takes no frame and no edit from the buffer, so a test can fill the
 * buffer and watch real-time mode drop frames.  gc_recorder_close lifts the
 * stall.  Any thread.
 */
void gc_recorder_test_stall(gc_recorder *r, bool stall);

#endif
