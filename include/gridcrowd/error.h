/*
 * gridcrowd/error.h: result codes and parse-error details.
 *
 * Every library function that can fail returns 0 or a negative gc_err code.
 * One list, GC_ERR_MAP, generates the enum, the names and the messages, so
 * they can never disagree (the way libuv's UV_ERRNO_MAP does).  Where a
 * caller needs more than a code (a parse error's file, line and column), the
 * function also fills a caller-owned gc_error.
 */
#ifndef GRIDCROWD_ERROR_H
#define GRIDCROWD_ERROR_H

#include <stddef.h>

#include <gridcrowd/common.h>

GC_BEGIN_DECLS

/* X(NAME, value, message) */
#define GC_ERR_MAP(X)                                                        \
    X(NOMEM,       -1,  "out of memory")                                     \
    X(INVAL,       -2,  "invalid argument")                                  \
    X(IO,          -3,  "input/output error")                                \
    X(NOENT,       -4,  "no such file or object")                            \
    X(PARSE,       -5,  "malformed input")                                   \
    X(RANGE,       -6,  "value out of range")                                \
    X(TOOBIG,      -7,  "size exceeds the documented limit")                 \
    X(OUTSIDE,     -8,  "position outside the map")                          \
    X(BLOCKED,     -9,  "cell is impassable")                                \
    X(UNREACHABLE, -10, "goal is unreachable")                               \
    X(LIMIT,       -11, "expansion limit reached")                           \
    X(STALE,       -12, "navigation data is older than the grid")            \
    X(EXIST,       -13, "object already exists")                             \
    X(BUSY,        -14, "object is held by a live process")                  \
    X(PERM,        -15, "permission denied")                                 \
    X(BADMAGIC,    -16, "not a gridcrowd object (bad magic)")                \
    X(VERSION,     -17, "layout version mismatch")                           \
    X(CORRUPT,     -18, "object is corrupt")                                 \
    X(FULL,        -19, "queue is full")                                     \
    X(TIMEOUT,     -20, "timed out")                                         \
    X(SYS,         -21, "system call failed")                                \
    X(MISMATCH,    -22, "does not match the map")                            \
    X(AGAIN,       -23, "nothing to take now; try again later")         \
    X(GONE,        -24, "agent was removed (stale handle)")             \
    X(OVERLAP,     -25, "body would overlap a wall or another body")     \
    X(CAPACITY,    -26, "no room for another agent")

typedef enum gc_err {
    GC_OK = 0,
#define GC_ERR_ENUM_(name, val, msg) GC_E##name = (val),
    GC_ERR_MAP(GC_ERR_ENUM_)
#undef GC_ERR_ENUM_
} gc_err;

/* Message for a code ("goal is unreachable"); never NULL. */
const char *gc_strerror(int err);

/* Symbolic name for a code ("GC_EUNREACHABLE"); never NULL. */
const char *gc_err_name(int err);

/* The gc_err code for a system call's errno: ENOENT and ENOTDIR are
 * GC_ENOENT, EACCES, EPERM and EROFS GC_EPERM, ENOMEM GC_ENOMEM, anything
 * else GC_EIO. */
int gc_err_from_errno(int e);

/*
 * Details of a failure.  `msg` is one complete line without the program
 * name, e.g. "maps/x.map:12:7: unknown cell 'q'"; line and col are 1-based
 * and 0 when they do not apply.  Callers own the struct; functions that take
 * a `gc_error *` accept NULL.
 */
typedef struct gc_error {
    int code;      /* the gc_err returned */
    int line;      /* 1-based line of the offending input, or 0 */
    int col;       /* 1-based column, or 0 */
    char msg[512];
} gc_error;

/* Reset `e` to "no error". */
void gc_error_clear(gc_error *e);

/*
 * Fill `e` (if not NULL) with code, position and a printf-style message
 * prefixed by "file:line:col: " (only the parts that are known: file NULL,
 * line 0 or col 0 leave them out).  Returns `code`, so a caller can write
 * `return gc_error_set(e, GC_EPARSE, path, 3, 1, "...")`.
 */
int gc_error_set(gc_error *e, int code, const char *file, int line, int col,
                 const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 6, 7)))
#endif
    ;

GC_END_DECLS
#endif
