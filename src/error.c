/*
 * error.c: the one table of result codes, and gc_error formatting.
 *
 * Names and messages are generated from GC_ERR_MAP in error.h, so adding a
 * code is one line there.  Unknown codes get a generic message rather than
 * NULL, so that a caller can always print what it got.
 */
#include "config.h"

#include <gridcrowd/error.h>

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

const char *
gc_strerror(int err)
{
    switch (err) {
    case GC_OK:
        return "success";
#define GC_ERR_MSG_(name, val, msg) \
    case GC_E##name:                \
        return msg;
        GC_ERR_MAP(GC_ERR_MSG_)
#undef GC_ERR_MSG_
    }
    return "unknown error";
}

const char *
gc_err_name(int err)
{
    switch (err) {
    case GC_OK:
        return "GC_OK";
#define GC_ERR_NAME_(name, val, msg) \
    case GC_E##name:                 \
        return "GC_E" #name;
        GC_ERR_MAP(GC_ERR_NAME_)
#undef GC_ERR_NAME_
    }
    return "GC_E?";
}

void
gc_error_clear(gc_error *e)
{
    if (e == NULL)
        return;
    e->code = GC_OK;
    e->line = 0;
    e->col = 0;
    e->msg[0] = '\0';
}

int
gc_error_set(gc_error *e, int code, const char *file, int line, int col,
             const char *fmt, ...)
{
    if (e == NULL)
        return code;
    e->code = code;
    e->line = line;
    e->col = col;

    size_t n = 0;
    int w = 0;
    if (file != NULL && line > 0 && col > 0)
        w = snprintf(e->msg, sizeof e->msg, "%s:%d:%d: ", file, line, col);
    else if (file != NULL && line > 0)
        w = snprintf(e->msg, sizeof e->msg, "%s:%d: ", file, line);
    else if (file != NULL)
        w = snprintf(e->msg, sizeof e->msg, "%s: ", file);
    if (w > 0)
        n = (size_t)w < sizeof e->msg ? (size_t)w : sizeof e->msg - 1;

    va_list ap;
    va_start(ap, fmt);
    vsnprintf(e->msg + n, sizeof e->msg - n, fmt, ap);
    va_end(ap);
    return code;
}

int
gc_err_from_errno(int e)
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
    }
    return GC_EIO;
}
