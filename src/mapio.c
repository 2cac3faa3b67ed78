/*
 * mapio.c: reading and writing Moving AI maps, and the text reader that
 * scen.c (scenario files) shares (mapio_int.h).
 *
 * Input is untrusted: the parsers see exactly (buf, len), never read past
 * len, never assume a NUL, and turn every defect into one gc_error line
 * "FILE:LINE:COL: what is wrong" instead of guessing.  All text is walked
 * line by line through a small reader that strips LF or CRLF; line and
 * column counters are size_t and clamped to INT_MAX only when reported, so
 * a huge buffer cannot overflow them.
 *
 * A map is parsed in two passes over its rows: the first only checks them,
 * the second fills a grid allocated after the check.  So a header that
 * declares a huge map costs no memory unless the file really holds that
 * many cells (which keeps a fuzzer, or a hostile file, from making us
 * allocate 256 MB for a 40-byte input).
 *
 * Numbers are parsed by hand for integers (saturating, so 30 digits are
 * "too large", not a wrapped value) and by strtod for the optimal length of
 * a scenario, after checking that the token holds only decimal syntax.
 * Files are read whole, up to GC_MAPIO_MAX_FILE bytes, with an fread loop
 * that checks ferror; a pipe or a device only up to its first NUL byte,
 * and a FIFO without a writer reads as empty (see gc_mapio_read_file).
 */
#include "config.h"

#include <gridcrowd/mapio.h>

#include "mapio_int.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

/* Name used in messages when the caller gives none. */
#define MEMORY_NAME "<memory>"

/* ---- messages ------------------------------------------------------------ */

/* See mapio_int.h. */
const char *
gc_mapio_quote(char *dst, const char *s, size_t n)
{
    static const char hex[] = "0123456789abcdef";
    size_t o = 0;
    size_t lim = n < GC_MAPIO_QUOTE_MAX ? n : GC_MAPIO_QUOTE_MAX;
    for (size_t i = 0; i < lim; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c >= 0x20 && c < 0x7f && c != '\'' && c != '\\') {
            dst[o++] = (char)c;
        } else {
            dst[o++] = '\\';
            dst[o++] = 'x';
            dst[o++] = hex[c >> 4];
            dst[o++] = hex[c & 15];
        }
    }
    if (n > lim) {
        memcpy(dst + o, "...", 3);
        o += 3;
    }
    dst[o] = '\0';
    return dst;
}

const char *
gc_mapio_quote_found(char *dst, const char *s, size_t n)
{
    if (n == 0)
        return "an empty line";
    dst[0] = '\'';
    gc_mapio_quote(dst + 1, s, n);
    strcat(dst, "'");
    return dst;
}

/* ---- reading lines ------------------------------------------------------- */

void
gc_mapio_reader_init(gc_mapio_reader *r, const char *buf, size_t len,
                     const char *name)
{
    r->buf = buf;
    r->len = len;
    r->pos = 0;
    r->lineno = 0;
    r->name = name != NULL ? name : MEMORY_NAME;
}

static bool
is_blank_byte(char c)
{
    return c == ' ' || c == '\t' || c == '\r' || c == '\n';
}

bool
gc_mapio_reader_at_end(const gc_mapio_reader *r)
{
    for (size_t i = r->pos; i < r->len; i++)
        if (!is_blank_byte(r->buf[i]))
            return false;
    return true;
}

bool
gc_mapio_reader_next(gc_mapio_reader *r, gc_mapio_span *ln)
{
    if (r->pos >= r->len)
        return false;
    const char *s = r->buf + r->pos;
    size_t rest = r->len - r->pos;
    const char *nl = memchr(s, '\n', rest);
    size_t n = nl != NULL ? (size_t)(nl - s) : rest;
    r->pos += nl != NULL ? n + 1 : n;
    if (n > 0 && s[n - 1] == '\r')
        n--;
    r->lineno++;
    ln->s = s;
    ln->len = n;
    ln->col = 1;
    return true;
}

bool
gc_mapio_span_blank(const gc_mapio_span *sp)
{
    for (size_t i = 0; i < sp->len; i++)
        if (!is_blank_byte(sp->s[i]))
            return false;
    return true;
}

bool
gc_mapio_span_is(const gc_mapio_span *sp, const char *word)
{
    size_t n = strlen(word);
    return sp->len == n && memcmp(sp->s, word, n) == 0;
}

void
gc_mapio_split_keyword(const gc_mapio_span *ln, gc_mapio_span *key,
                       gc_mapio_span *val)
{
    size_t i = 0, n = ln->len;
    while (i < n && gc_mapio_is_space(ln->s[i]))
        i++;
    size_t k = i;
    while (i < n && !gc_mapio_is_space(ln->s[i]))
        i++;
    *key = (gc_mapio_span){ln->s + k, i - k, k + 1};
    while (i < n && gc_mapio_is_space(ln->s[i]))
        i++;
    size_t end = n;
    while (end > i && gc_mapio_is_space(ln->s[end - 1]))
        end--;
    *val = (gc_mapio_span){ln->s + i, end - i, i + 1};
}

int
gc_mapio_fail(const gc_mapio_reader *r, gc_error *err, int code, size_t col,
              const char *fmt, ...)
{
    char msg[sizeof err->msg];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    size_t line = r->lineno > 0 ? r->lineno : 1;
    return gc_error_set(err, code, r->name, gc_mapio_clamp_int(line),
                        gc_mapio_clamp_int(col), "%s", msg);
}

/* ---- numbers ------------------------------------------------------------- */

int
gc_mapio_parse_int(const gc_mapio_span *sp, int64_t lo, int64_t hi,
                   int32_t *out)
{
    size_t i = 0;
    bool neg = false;
    if (sp->len > 0 && (sp->s[0] == '-' || sp->s[0] == '+')) {
        neg = sp->s[0] == '-';
        i = 1;
    }
    if (i >= sp->len)
        return GC_MAPIO_NUM_SYNTAX;
    int64_t v = 0;
    bool big = false;
    for (; i < sp->len; i++) {
        char c = sp->s[i];
        if (c < '0' || c > '9')
            return GC_MAPIO_NUM_SYNTAX;
        if (!big) {
            v = v * 10 + (c - '0');
            big = v > hi && v > -lo;
        }
    }
    if (big)
        return GC_MAPIO_NUM_RANGE;
    if (neg)
        v = -v;
    if (v < lo || v > hi)
        return GC_MAPIO_NUM_RANGE;
    *out = (int32_t)v;
    return GC_MAPIO_NUM_OK;
}

/* ---- maps ---------------------------------------------------------------- */

static const char *
plural(size_t n)
{
    return n == 1 ? "" : "s";
}

/* The value of a "height H" or "width W" line. */
static int
parse_side(const gc_mapio_reader *r, const gc_mapio_span *key,
           const gc_mapio_span *val, int32_t *out, gc_error *err)
{
    char q[GC_MAPIO_QUOTE_BUF];
    if (val->len == 0)
        return gc_mapio_fail(r, err, GC_EPARSE, key->col + key->len,
                             "missing value after '%.*s'", (int)key->len,
                             key->s);
    int rc = gc_mapio_parse_int(val, 1, GC_GRID_MAX_SIDE, out);
    if (rc != GC_MAPIO_NUM_OK)
        return gc_mapio_fail(
            r, err, rc == GC_MAPIO_NUM_RANGE ? GC_ERANGE : GC_EPARSE, val->col,
            "%.*s must be a whole number from 1 to %d, got '%s'", (int)key->len,
            key->s, GC_GRID_MAX_SIDE, gc_mapio_quote(q, val->s, val->len));
    return GC_OK;
}

/*
 * Check (and when g is not NULL, store) the h rows of w cells that start
 * at the reader's position, then that only blank lines follow.
 */
static int
scan_rows(gc_mapio_reader *r, int32_t w, int32_t h,
          const int8_t glyph_type[256], gc_grid *g, gc_error *err)
{
    char q[GC_MAPIO_QUOTE_BUF];
    gc_mapio_span ln;
    for (int32_t y = 0; y < h; y++) {
        if (gc_mapio_reader_at_end(r))
            return gc_mapio_fail(r, err, GC_EPARSE, 0,
                                 "expected %d row%s, file ends after %d",
                                 (int)h, plural((size_t)h), (int)y);
        gc_mapio_reader_next(r, &ln);
        size_t n = ln.len < (size_t)w ? ln.len : (size_t)w;
        uint8_t *row = g != NULL ? g->cells + (size_t)y * (size_t)w : NULL;
        for (size_t x = 0; x < n; x++) {
            int t = glyph_type[(unsigned char)ln.s[x]];
            if (t < 0)
                return gc_mapio_fail(r, err, GC_EPARSE, x + 1,
                                     "unknown cell '%s'",
                                     gc_mapio_quote(q, ln.s + x, 1));
            if (row != NULL)
                row[x] = (uint8_t)t;
        }
        if (ln.len != (size_t)w)
            return gc_mapio_fail(r, err, GC_EPARSE, n + 1,
                                 "row is %zu cell%s long, expected %d", ln.len,
                                 plural(ln.len), (int)w);
    }
    while (gc_mapio_reader_next(r, &ln)) {
        if (gc_mapio_span_blank(&ln))
            continue;
        size_t col = 1;
        while (is_blank_byte(ln.s[col - 1]))
            col++;
        return gc_mapio_fail(r, err, GC_EPARSE, col,
                             "more rows than the declared height of %d",
                             (int)h);
    }
    return GC_OK;
}

/* See mapio_int.h. */
int
gc_mapio_header_line(gc_mapio_reader *r, gc_error *err, const char *keyword,
                     const char *const values[], const char *want,
                     const char *what, const char *expect)
{
    char q[GC_MAPIO_QUOTE_BUF + 2];
    gc_mapio_span ln, key, val;
    if (gc_mapio_reader_at_end(r))
        return gc_mapio_fail(r, err, GC_EPARSE, 0, "file is empty, expected %s",
                             want);
    gc_mapio_reader_next(r, &ln);
    gc_mapio_split_keyword(&ln, &key, &val);
    if (!gc_mapio_span_is(&key, keyword))
        return gc_mapio_fail(r, err, GC_EPARSE, key.col, "expected %s, got %s",
                             want, gc_mapio_quote_found(q, key.s, key.len));
    if (val.len == 0)
        return gc_mapio_fail(r, err, GC_EPARSE, key.col + key.len,
                             "missing value after '%s'", keyword);
    for (size_t i = 0; values[i] != NULL; i++)
        if (gc_mapio_span_is(&val, values[i]))
            return GC_OK;
    return gc_mapio_fail(r, err, GC_EPARSE, val.col,
                         "unsupported %s '%s', expected %s", what,
                         gc_mapio_quote(q, val.s, val.len), expect);
}

int
gc_map_parse(gc_grid **out, const char *buf, size_t len, const char *name,
             gc_error *err)
{
    gc_error_clear(err);
    if (out == NULL)
        return gc_error_set(err, GC_EINVAL, name, 0, 0, "no output grid");
    *out = NULL;
    if (buf == NULL && len > 0)
        return gc_error_set(err, GC_EINVAL, name, 0, 0, "no input buffer");

    gc_mapio_reader r;
    gc_mapio_reader_init(&r, buf, len, name);
    char q[GC_MAPIO_QUOTE_BUF + 2];
    gc_mapio_span ln, key, val;

    static const char *const types[] = {"octile", NULL};
    int rc = gc_mapio_header_line(&r, err, "type", types, "'type octile'",
                                  "map type", "'octile'");
    if (rc != GC_OK)
        return rc;

    /* height and width, in either order, each once. */
    int32_t w = 0, h = 0;
    for (int i = 0; i < 2; i++) {
        const char *want = h == 0 && w == 0 ? "'height' or 'width'"
                           : h == 0         ? "'height'"
                                            : "'width'";
        if (gc_mapio_reader_at_end(&r))
            return gc_mapio_fail(&r, err, GC_EPARSE, 0,
                                 "file ends in the header, expected %s", want);
        gc_mapio_reader_next(&r, &ln);
        gc_mapio_split_keyword(&ln, &key, &val);
        int32_t *side = h == 0 && gc_mapio_span_is(&key, "height")  ? &h
                        : w == 0 && gc_mapio_span_is(&key, "width") ? &w
                                                                    : NULL;
        if (side == NULL)
            return gc_mapio_fail(&r, err, GC_EPARSE, key.col,
                                 "expected %s, got %s", want,
                                 gc_mapio_quote_found(q, key.s, key.len));
        rc = parse_side(&r, &key, &val, side, err);
        if (rc != GC_OK)
            return rc;
    }
    /* Both sides are within their limit: only the cell count can fail.
     * They fit in 17 bits, so the product in the message fits in size_t. */
    if (gc_grid_check_size(w, h) != GC_OK)
        return gc_mapio_fail(
            &r, err, GC_ETOOBIG, val.col,
            "map is %d x %d = %zu cells, more than the limit of %zu", (int)w,
            (int)h, (size_t)w * (size_t)h, (size_t)GC_GRID_MAX_CELLS);

    if (gc_mapio_reader_at_end(&r))
        return gc_mapio_fail(&r, err, GC_EPARSE, 0,
                             "file ends in the header, expected 'map'");
    gc_mapio_reader_next(&r, &ln);
    gc_mapio_split_keyword(&ln, &key, &val);
    if (!gc_mapio_span_is(&key, "map"))
        return gc_mapio_fail(&r, err, GC_EPARSE, key.col,
                             "expected 'map', got %s",
                             gc_mapio_quote_found(q, key.s, key.len));
    if (val.len != 0)
        return gc_mapio_fail(&r, err, GC_EPARSE, val.col,
                             "unexpected '%s' after 'map'",
                             gc_mapio_quote(q, val.s, val.len));

    int8_t glyph_type[256];
    for (int c = 0; c < 256; c++)
        glyph_type[c] = (int8_t)gc_cell_type_from_glyph((char)c);

    /* Pass 1 checks, pass 2 fills (see the note at the top). */
    gc_mapio_reader rows = r;
    rc = scan_rows(&r, w, h, glyph_type, NULL, err);
    if (rc != GC_OK)
        return rc;
    gc_grid *g;
    rc = gc_grid_new(&g, w, h);
    if (rc != GC_OK)
        return gc_error_set(err, rc, rows.name, 0, 0, "%s", gc_strerror(rc));
    rc = scan_rows(&rows, w, h, glyph_type, g, err);
    if (rc != GC_OK) { /* cannot happen: pass 1 accepted the same bytes */
        gc_grid_free(g);
        return rc;
    }
    *out = g;
    return GC_OK;
}

/* ---- files --------------------------------------------------------------- */

/*
 * Read the whole file at path into a new buffer (*buf, *len), refusing
 * directories and anything over GC_MAPIO_MAX_FILE.  Works for pipes and
 * devices too, whose size fstat does not know, with two guards:
 *
 * - The file is opened without blocking, so a FIFO that no one writes
 *   reads as empty at once instead of hanging the caller in open();
 *   blocking is then restored, so a pipe with a writer is waited for.
 * - Neither format has a NUL byte anywhere, so a file whose size is not
 *   known is read only up to its first NUL: the parser then reports the
 *   NUL where it is (every parse of a buffer holding one fails), and
 *   /dev/zero costs one buffer instead of a gigabyte.
 */
int
gc_mapio_read_file(const char *path, char **buf, size_t *len, gc_error *err)
{
    *buf = NULL;
    *len = 0;
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) {
        int e = errno;
        return gc_error_set(err, gc_err_from_errno(e), path, 0, 0, "%s", strerror(e));
    }
    struct stat st;
    if (fstat(fd, &st) != 0) {
        int e = errno;
        close(fd);
        return gc_error_set(err, GC_EIO, path, 0, 0, "%s", strerror(e));
    }
    if (S_ISDIR(st.st_mode)) {
        close(fd);
        return gc_error_set(err, GC_EIO, path, 0, 0, "%s", strerror(EISDIR));
    }
    int fl = fcntl(fd, F_GETFL);
    FILE *f = NULL;
    if (fl == -1 || fcntl(fd, F_SETFL, fl & ~O_NONBLOCK) == -1 ||
        (f = fdopen(fd, "rb")) == NULL) {
        int e = errno;
        close(fd);
        return gc_error_set(err, gc_err_from_errno(e), path, 0, 0, "%s", strerror(e));
    }
    const size_t limit = GC_MAPIO_MAX_FILE;
    if (S_ISREG(st.st_mode) && st.st_size > 0 &&
        (uintmax_t)st.st_size > limit) {
        fclose(f);
        return gc_error_set(err, GC_ETOOBIG, path, 0, 0,
                            "file is %jd bytes, more than the limit of %zu",
                            (intmax_t)st.st_size, limit);
    }

    /* One byte more than the expected size, so EOF is seen at once. */
    size_t cap = S_ISREG(st.st_mode) ? (size_t)st.st_size + 1 : 65536;
    size_t n = 0;
    char *b = NULL;
    int rc = GC_OK;
    for (;;) {
        if (b == NULL || n == cap) {
            if (b != NULL) {
                if (cap > limit) {
                    rc = gc_error_set(err, GC_ETOOBIG, path, 0, 0,
                                      "file is more than the limit of %zu "
                                      "bytes",
                                      limit);
                    break;
                }
                cap = cap <= limit / 2 ? cap * 2 : limit + 1;
            }
            char *nb = realloc(b, cap);
            if (nb == NULL) {
                rc = gc_error_set(err, GC_ENOMEM, path, 0, 0, "%s",
                                  gc_strerror(GC_ENOMEM));
                break;
            }
            b = nb;
        }
        errno = 0;
        size_t got = fread(b + n, 1, cap - n, f);
        const char *nul = S_ISREG(st.st_mode) ? NULL : memchr(b + n, 0, got);
        n += got;
        if (nul != NULL) {
            n = (size_t)(nul - b) + 1;
            break;
        }
        if (n < cap) { /* a short read: end of file or an error */
            if (ferror(f)) {
                int e = errno != 0 ? errno : EIO;
                rc = gc_error_set(err, GC_EIO, path, 0, 0, "%s", strerror(e));
            }
            break;
        }
    }
    fclose(f);
    if (rc != GC_OK) {
        free(b);
        return rc;
    }
    *buf = b;
    *len = n;
    return GC_OK;
}

int
gc_map_load(gc_grid **out, const char *path, gc_error *err)
{
    gc_error_clear(err);
    if (out == NULL || path == NULL)
        return gc_error_set(err, GC_EINVAL, path, 0, 0, "%s",
                            gc_strerror(GC_EINVAL));
    *out = NULL;
    char *buf;
    size_t len;
    int rc = gc_mapio_read_file(path, &buf, &len, err);
    if (rc != GC_OK)
        return rc;
    rc = gc_map_parse(out, buf, len, path, err);
    free(buf);
    return rc;
}

/* GC_OK when g's sizes are within the limits and every cell byte is a
 * known type. */
static int
check_grid(const gc_grid *g)
{
    if (g == NULL || g->cells == NULL ||
        gc_grid_check_size(g->width, g->height) != GC_OK)
        return GC_EINVAL;
    size_t n = (size_t)g->width * (size_t)g->height;
    for (size_t i = 0; i < n; i++)
        if (g->cells[i] >= GC_CELL_NTYPES)
            return GC_ECORRUPT;
    return GC_OK;
}

int
gc_map_format(const gc_grid *g, char **out, size_t *len)
{
    if (out == NULL)
        return GC_EINVAL;
    *out = NULL;
    if (len != NULL)
        *len = 0;
    int rc = check_grid(g);
    if (rc != GC_OK)
        return rc;

    char head[64];
    int hn =
        snprintf(head, sizeof head, "type octile\nheight %d\nwidth %d\nmap\n",
                 (int)g->height, (int)g->width);
    size_t w = (size_t)g->width, h = (size_t)g->height;
    /* At most 2^28 cells plus 2^16 line ends: no overflow. */
    size_t total = (size_t)hn + h * (w + 1);
    char *b = malloc(total + 1);
    if (b == NULL)
        return GC_ENOMEM;
    memcpy(b, head, (size_t)hn);
    char *p = b + hn;
    for (size_t y = 0; y < h; y++) {
        const uint8_t *row = g->cells + y * w;
        for (size_t x = 0; x < w; x++)
            *p++ = gc_cell_type_glyph(row[x]);
        *p++ = '\n';
    }
    *p = '\0';
    *out = b;
    if (len != NULL)
        *len = total;
    return GC_OK;
}

int
gc_map_save(const gc_grid *g, const char *path, gc_error *err)
{
    gc_error_clear(err);
    if (path == NULL)
        return gc_error_set(err, GC_EINVAL, NULL, 0, 0, "no path to save to");
    char *buf;
    size_t len;
    int rc = gc_map_format(g, &buf, &len);
    if (rc != GC_OK)
        return gc_error_set(err, rc, path, 0, 0, "cannot write this grid: %s",
                            gc_strerror(rc));
    FILE *f = fopen(path, "wb");
    if (f == NULL) {
        int e = errno;
        free(buf);
        return gc_error_set(err, GC_EIO, path, 0, 0, "%s", strerror(e));
    }
    /* Errors may show only at fflush or fclose (a full disk, NFS). */
    int e = 0;
    errno = 0;
    if (fwrite(buf, 1, len, f) != len || fflush(f) != 0)
        e = errno != 0 ? errno : EIO;
    errno = 0;
    if (fclose(f) != 0 && e == 0)
        e = errno != 0 ? errno : EIO;
    free(buf);
    if (e != 0)
        return gc_error_set(err, GC_EIO, path, 0, 0, "%s", strerror(e));
    return GC_OK;
}
