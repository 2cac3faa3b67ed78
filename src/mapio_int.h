/*
 * mapio_int.h: what the map reader (mapio.c) and the scenario reader
 * (scen.c) share: the line reader, the error line "NAME:LINE:COL: what",
 * quoting bad input for it, whole numbers, and reading a file whole.  The
 * rules for untrusted input in mapio.c's design note hold for all of it.
 */
#ifndef GRIDCROWD_MAPIO_INT_H
#define GRIDCROWD_MAPIO_INT_H

#include <gridcrowd/error.h>

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* At most this many bytes of a bad token are quoted in a message. */
#define GC_MAPIO_QUOTE_MAX 40
/* What gc_mapio_quote writes at most, with its NUL. */
#define GC_MAPIO_QUOTE_BUF (GC_MAPIO_QUOTE_MAX * 4 + 4)

typedef struct gc_mapio_reader {
    const char *buf;
    size_t len;
    size_t pos;    /* start of the next line */
    size_t lineno; /* 1-based number of the line last returned, 0 before */
    const char *name;
} gc_mapio_reader;

/* A line without its LF or CRLF; col is 1-based. */
typedef struct gc_mapio_span {
    const char *s;
    size_t len;
    size_t col;
} gc_mapio_span;

static inline int
gc_mapio_clamp_int(size_t v)
{
    return v > INT_MAX ? INT_MAX : (int)v;
}

static inline bool
gc_mapio_is_space(char c)
{
    return c == ' ' || c == '\t';
}

/*
 * Quote s[0..n) into dst for a message: printable ASCII as is, other bytes
 * (and the quote and backslash) as \xNN, at most GC_MAPIO_QUOTE_MAX bytes then
 * "...". dst must hold GC_MAPIO_QUOTE_BUF bytes.
 */
const char *gc_mapio_quote(char *dst, const char *s, size_t n);

/* What a header line holds instead of the keyword wanted: 'word', or "an
 * empty line".  dst must hold GC_MAPIO_QUOTE_BUF + 2 bytes. */
const char *gc_mapio_quote_found(char *dst, const char *s, size_t n);

/* Start reading buf[0..len); name (NULL: "<memory>") is for messages. */
void gc_mapio_reader_init(gc_mapio_reader *r, const char *buf, size_t len,
                          const char *name);

/* True when nothing but spaces, tabs and line ends is left. */
bool gc_mapio_reader_at_end(const gc_mapio_reader *r);

/* Next line into *ln; false at the end of the input. */
bool gc_mapio_reader_next(gc_mapio_reader *r, gc_mapio_span *ln);

/* True when the line holds nothing but spaces, tabs and line ends. */
bool gc_mapio_span_blank(const gc_mapio_span *sp);

/* True when the span is exactly `word`. */
bool gc_mapio_span_is(const gc_mapio_span *sp, const char *word);

/*
 * Split a header line "keyword value": leading spaces skipped, the keyword
 * is the first run of non-space bytes, the value the rest with surrounding
 * spaces and tabs removed (empty when there is none).
 */
void gc_mapio_split_keyword(const gc_mapio_span *ln, gc_mapio_span *key,
                            gc_mapio_span *val);

/* Fill err with "NAME:LINE[:COL]: message" for the reader's current line
 * (col 0 leaves the column out); returns code. */
int gc_mapio_fail(const gc_mapio_reader *r, gc_error *err, int code, size_t col,
                  const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 5, 6)))
#endif
    ;

/*
 * The first line of a file, "KEYWORD VALUE", VALUE one of `values` (a
 * NULL-terminated list).  For messages, `want` names the whole line
 * ("'type octile'"), `what` the value ("map type") and `expect` the values
 * allowed ("'octile'").  GC_OK, or GC_EPARSE with err filled.
 */
int gc_mapio_header_line(gc_mapio_reader *r, gc_error *err, const char *keyword,
                         const char *const values[], const char *want,
                         const char *what, const char *expect);

enum { GC_MAPIO_NUM_OK, GC_MAPIO_NUM_SYNTAX, GC_MAPIO_NUM_RANGE };

/*
 * A whole number: an optional sign, then decimal digits and nothing else.
 * GC_MAPIO_NUM_RANGE when outside [lo, hi] (hi <= INT32_MAX); accumulation
 * stops once past hi, so any number of digits is safe.
 */
int gc_mapio_parse_int(const gc_mapio_span *sp, int64_t lo, int64_t hi,
                       int32_t *out);

/*
 * Read the whole file at path into a new buffer (*buf, *len; the caller
 * frees *buf), refusing directories and anything over GC_MAPIO_MAX_FILE;
 * see mapio.c for pipes, FIFOs and devices.  Returns a gc_err, err filled.
 */
int gc_mapio_read_file(const char *path, char **buf, size_t *len,
                       gc_error *err);

#endif
