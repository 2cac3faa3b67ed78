/*
 * fuzz.h: what the fuzz targets share with libFuzzer and with replay.c.
 *
 * A fuzz target is one function, LLVMFuzzerTestOneInput, that libFuzzer
 * calls with each input (clang -fsanitize=fuzzer provides main) and that
 * replay.c calls with each file of the committed corpus in the ordinary
 * build.  A target reports a broken invariant with FUZZ_CHECK, which prints
 * the condition and aborts: libFuzzer saves the input as a crash, and
 * `make check` fails.  Not assert(): NDEBUG must not turn the checks off.
 */
#ifndef GRIDCROWD_TESTS_FUZZ_H
#define GRIDCROWD_TESTS_FUZZ_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gridcrowd/error.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static inline _Noreturn void
fuzz_fail(const char *file, int line, const char *what)
{
    fprintf(stderr, "%s:%d: fuzz check failed: %s\n", file, line, what);
    abort();
}

#define FUZZ_CHECK(cond)                                                       \
    ((cond) ? (void)0 : fuzz_fail(__FILE__, __LINE__, #cond))

/* Lines as the mapio reader sees them: split at LF, one CR before the LF
 * (or before the end) dropped; a final LF does not start another line. */
typedef struct fuzz_lines {
    const char *buf;
    size_t len, pos;
    size_t lineno; /* of the line last returned */
} fuzz_lines;

static inline int
fuzz_next_line(fuzz_lines *it, const char **s, size_t *n)
{
    if (it->pos >= it->len)
        return 0;
    size_t start = it->pos, end = start;
    while (end < it->len && it->buf[end] != '\n')
        end++;
    it->pos = end < it->len ? end + 1 : end;
    if (end > start && it->buf[end - 1] == '\r')
        end--;
    it->lineno++;
    *s = it->buf + start;
    *n = end - start;
    return 1;
}

/* Every byte of a message is printable ASCII (mapio.h: other bytes are
 * shown as \xNN), and the message is terminated inside its array. */
static inline int
fuzz_msg_printable(const char *msg, size_t size)
{
    for (size_t i = 0; i < size; i++) {
        unsigned char c = (unsigned char)msg[i];
        if (c == '\0')
            return i > 0;
        if (c < 0x20 || c > 0x7e)
            return 0;
    }
    return 0;
}

/* Length of line `lineno` (1-based) of buf, or -1 when there is none. */
static inline long
fuzz_line_length(const char *buf, size_t len, size_t lineno)
{
    fuzz_lines it = {buf, len, 0, 0};
    const char *s;
    size_t n;
    while (fuzz_next_line(&it, &s, &n))
        if (it.lineno == lineno)
            return (long)n;
    return -1;
}

/*
 * What every parse failure must look like: one of the parse codes, the
 * same code in the gc_error, a printable message that starts with the file
 * name, and a position on a line the input has (line 1 may be an empty
 * file), the column at most one past the end of that line.
 */
static inline void
fuzz_check_failure(int rc, const gc_error *err, const char *name,
                   const char *buf, size_t len)
{
    FUZZ_CHECK(rc == GC_EPARSE || rc == GC_ERANGE || rc == GC_ETOOBIG ||
               rc == GC_ENOMEM);
    FUZZ_CHECK(err->code == rc);
    FUZZ_CHECK(fuzz_msg_printable(err->msg, sizeof err->msg));
    size_t nl = strlen(name);
    FUZZ_CHECK(strncmp(err->msg, name, nl) == 0 && err->msg[nl] == ':');
    if (rc == GC_ENOMEM) /* reported without a position */
        return;
    FUZZ_CHECK(err->line >= 1 && err->col >= 0);
    long n = fuzz_line_length(buf, len, (size_t)err->line);
    if (err->col > 0)
        FUZZ_CHECK(n >= 0 && err->col <= n + 1);
    else
        FUZZ_CHECK(n >= 0 || err->line == 1);
}

#endif
