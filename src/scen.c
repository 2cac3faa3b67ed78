/*
 * scen.c: reading Moving AI scenario files (".scen": "version 1", then one
 * problem a line: bucket, map, map size, start, goal, optimal length).
 *
 * The rules of mapio.c's design note hold here too, through the text
 * reader they share (mapio_int.h): the parser sees exactly (buf, len),
 * every defect is one "FILE:LINE:COL: what" line, integers are parsed by
 * hand and saturate, and the optimal length goes to strtod only after its
 * token is checked to hold decimal syntax alone.  Given a grid, each
 * problem's map size and cells are checked against it.
 */
#include "config.h"

#include <gridcrowd/mapio.h>

#include "mapio_int.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- scenarios ----------------------------------------------------------- */

enum {
    F_BUCKET,
    F_MAP,
    F_WIDTH,
    F_HEIGHT,
    F_SX,
    F_SY,
    F_GX,
    F_GY,
    F_OPTIMAL,
    F_COUNT
};

static const char *const field_name[F_COUNT] = {
    "bucket",  "map",    "map width", "map height",    "start x",
    "start y", "goal x", "goal y",    "optimal length"};

/* Split a problem line into up to F_COUNT + 1 fields; returns how many. */
static size_t
split_fields(const gc_mapio_span *ln, gc_mapio_span f[F_COUNT + 1])
{
    size_t nf = 0, i = 0;
    while (nf < F_COUNT + 1) {
        while (i < ln->len && gc_mapio_is_space(ln->s[i]))
            i++;
        if (i >= ln->len)
            break;
        size_t start = i;
        while (i < ln->len && !gc_mapio_is_space(ln->s[i]))
            i++;
        f[nf++] = (gc_mapio_span){ln->s + start, i - start, start + 1};
    }
    return nf;
}

/* A non-negative decimal number: digits, one optional point, exponent. */
static bool
parse_length(const gc_mapio_span *sp, double *out)
{
    char tmp[64];
    if (sp->len == 0 || sp->len >= sizeof tmp)
        return false;
    for (size_t i = 0; i < sp->len; i++) {
        char c = sp->s[i];
        if (!((c >= '0' && c <= '9') || c == '.' || c == 'e' || c == 'E' ||
              c == '+' || c == '-'))
            return false;
    }
    memcpy(tmp, sp->s, sp->len);
    tmp[sp->len] = '\0';
    char *end;
    errno = 0;
    double v = strtod(tmp, &end);
    if (end != tmp + sp->len || errno == ERANGE || !isfinite(v) || v < 0)
        return false;
    *out = v;
    return true;
}

static int
parse_entry(gc_mapio_reader *r, const gc_mapio_span *ln, const gc_grid *g,
            gc_scen_entry *e, gc_error *err)
{
    char q[GC_MAPIO_QUOTE_BUF];
    gc_mapio_span f[F_COUNT + 1];
    size_t nf = split_fields(ln, f);
    if (nf < F_COUNT) {
        size_t end = f[nf - 1].col + f[nf - 1].len; /* nf >= 1: not blank */
        return gc_mapio_fail(r, err, GC_EPARSE, end,
                             "missing field '%s' (field %zu of %d)",
                             field_name[nf], nf + 1, F_COUNT);
    }
    if (nf > F_COUNT)
        return gc_mapio_fail(
            r, err, GC_EPARSE, f[F_COUNT].col,
            "extra field '%s' after the %d fields of a problem",
            gc_mapio_quote(q, f[F_COUNT].s, f[F_COUNT].len), F_COUNT);

    memset(e, 0, sizeof *e);
    e->line = gc_mapio_clamp_int(r->lineno);
    int rc = gc_mapio_parse_int(&f[F_BUCKET], 0, INT32_MAX, &e->bucket);
    if (rc != GC_MAPIO_NUM_OK)
        return gc_mapio_fail(
            r, err, rc == GC_MAPIO_NUM_RANGE ? GC_ERANGE : GC_EPARSE,
            f[F_BUCKET].col,
            "bucket must be a whole number from 0 to %d, got '%s'", INT32_MAX,
            gc_mapio_quote(q, f[F_BUCKET].s, f[F_BUCKET].len));

    const gc_mapio_span *m = &f[F_MAP];
    if (m->len >= sizeof e->map)
        return gc_mapio_fail(r, err, GC_ETOOBIG, m->col,
                             "map name is %zu bytes long, the limit is %zu",
                             m->len, sizeof e->map - 1);
    for (size_t i = 0; i < m->len; i++)
        if ((unsigned char)m->s[i] < 0x20 || m->s[i] == 0x7f)
            return gc_mapio_fail(r, err, GC_EPARSE, m->col + i,
                                 "map name contains the byte '%s'",
                                 gc_mapio_quote(q, m->s + i, 1));
    memcpy(e->map, m->s, m->len);
    e->map[m->len] = '\0';

    int32_t *sides[2] = {&e->map_width, &e->map_height};
    for (int k = 0; k < 2; k++) {
        const gc_mapio_span *sp = &f[F_WIDTH + k];
        rc = gc_mapio_parse_int(sp, 1, GC_GRID_MAX_SIDE, sides[k]);
        if (rc != GC_MAPIO_NUM_OK)
            return gc_mapio_fail(
                r, err, rc == GC_MAPIO_NUM_RANGE ? GC_ERANGE : GC_EPARSE,
                sp->col, "%s must be a whole number from 1 to %d, got '%s'",
                field_name[F_WIDTH + k], GC_GRID_MAX_SIDE,
                gc_mapio_quote(q, sp->s, sp->len));
        int32_t want = g == NULL ? 0 : k == 0 ? g->width : g->height;
        if (g != NULL && *sides[k] != want)
            return gc_mapio_fail(r, err, GC_ERANGE, sp->col,
                                 "%s %d differs from the grid's %s %d",
                                 field_name[F_WIDTH + k], (int)*sides[k],
                                 k == 0 ? "width" : "height", (int)want);
    }

    int32_t *coords[4] = {&e->start.x, &e->start.y, &e->goal.x, &e->goal.y};
    for (int k = 0; k < 4; k++) {
        const gc_mapio_span *sp = &f[F_SX + k];
        rc = gc_mapio_parse_int(sp, 0, INT32_MAX, coords[k]);
        if (rc != GC_MAPIO_NUM_OK)
            return gc_mapio_fail(
                r, err, rc == GC_MAPIO_NUM_RANGE ? GC_ERANGE : GC_EPARSE,
                sp->col, "%s must be a whole number >= 0, got '%s'",
                field_name[F_SX + k], gc_mapio_quote(q, sp->s, sp->len));
        int32_t side = k % 2 == 0 ? e->map_width : e->map_height;
        if (*coords[k] >= side)
            return gc_mapio_fail(r, err, GC_ERANGE, sp->col,
                                 "%s %d is off the %d x %d map",
                                 field_name[F_SX + k], (int)*coords[k],
                                 (int)e->map_width, (int)e->map_height);
    }

    if (!parse_length(&f[F_OPTIMAL], &e->optimal))
        return gc_mapio_fail(
            r, err, GC_EPARSE, f[F_OPTIMAL].col,
            "optimal length must be a number >= 0, got '%s'",
            gc_mapio_quote(q, f[F_OPTIMAL].s, f[F_OPTIMAL].len));
    return GC_OK;
}

void
gc_scen_free(gc_scen *s)
{
    if (s == NULL)
        return;
    free(s->entries);
    memset(s, 0, sizeof *s);
}

int
gc_scen_parse(gc_scen *out, const char *buf, size_t len, const char *name,
              const gc_grid *g, gc_error *err)
{
    gc_error_clear(err);
    if (out == NULL)
        return gc_error_set(err, GC_EINVAL, name, 0, 0, "no output scenario");
    memset(out, 0, sizeof *out);
    if (buf == NULL && len > 0)
        return gc_error_set(err, GC_EINVAL, name, 0, 0, "no input buffer");

    gc_mapio_reader r;
    gc_mapio_reader_init(&r, buf, len, name);
    gc_mapio_span ln;

    static const char *const versions[] = {"1", "1.0", NULL};
    int rc = gc_mapio_header_line(&r, err, "version", versions, "'version 1'",
                                  "scenario version", "1 or 1.0");
    if (rc != GC_OK)
        return rc;

    gc_scen s = {0};
    size_t cap = 0;
    while (gc_mapio_reader_next(&r, &ln)) {
        if (gc_mapio_span_blank(&ln))
            continue;
        /* A line starting with "//" opens a trailer that ends the problem
         * list: the Moving AI distribution of arena.map.scen carries a
         * citation block after its problems.  Nothing after it is read. */
        if (ln.len >= 2 && ln.s[0] == '/' && ln.s[1] == '/')
            break;
        if (s.len == cap) {
            size_t ncap = cap == 0 ? 64 : cap * 2;
            gc_scen_entry *ne = NULL;
            if (ncap <= SIZE_MAX / sizeof *ne)
                ne = realloc(s.entries, ncap * sizeof *ne);
            if (ne == NULL) {
                rc = gc_mapio_fail(&r, err, GC_ENOMEM, 0, "%s",
                                   gc_strerror(GC_ENOMEM));
                break;
            }
            s.entries = ne;
            cap = ncap;
        }
        rc = parse_entry(&r, &ln, g, &s.entries[s.len], err);
        if (rc != GC_OK)
            break;
        s.len++;
    }
    if (rc != GC_OK) {
        gc_scen_free(&s);
        return rc;
    }
    if (s.len > 0)
        memcpy(s.map, s.entries[0].map, sizeof s.map);
    *out = s;
    return GC_OK;
}

int
gc_scen_load(gc_scen *out, const char *path, const gc_grid *g, gc_error *err)
{
    gc_error_clear(err);
    if (out == NULL || path == NULL)
        return gc_error_set(err, GC_EINVAL, path, 0, 0, "%s",
                            gc_strerror(GC_EINVAL));
    memset(out, 0, sizeof *out);
    char *buf;
    size_t len;
    int rc = gc_mapio_read_file(path, &buf, &len, err);
    if (rc != GC_OK)
        return rc;
    rc = gc_scen_parse(out, buf, len, path, g, err);
    free(buf);
    return rc;
}

int
gc_scen_map_path(const char *scen_path, const char *map, char *buf, size_t size)
{
    if (scen_path == NULL || map == NULL || map[0] == '\0' || buf == NULL ||
        size == 0)
        return GC_EINVAL;
    size_t dir = 0;
    if (map[0] != '/') {
        const char *slash = strrchr(scen_path, '/');
        if (slash != NULL)
            dir = (size_t)(slash - scen_path) + 1;
    }
    size_t mlen = strlen(map);
    if (dir > size - 1 || mlen > size - 1 - dir) {
        buf[0] = '\0';
        return GC_ETOOBIG;
    }
    memmove(buf, scen_path, dir);
    memcpy(buf + dir, map, mlen + 1);
    return GC_OK;
}
