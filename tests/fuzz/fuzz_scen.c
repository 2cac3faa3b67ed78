/*
 * fuzz_scen.c: fuzz target for gc_scen_parse.
 *
 * Each input is parsed twice: with no grid, and with a fixed 16 x 16 grid.
 * A failure must leave the scenario empty and report like any parse error
 * (fuzz.h).  A success must hold one entry per non-blank line between the
 * version line and the first "//" line, each one matching its line as split
 * and read here (not by mapio.c), with its sizes inside the limits and its
 * start and goal inside those sizes.  The grid only adds constraints, so
 * the two parses must agree: with the grid it succeeds exactly when the
 * grid-less parse succeeds with every entry sized 16 x 16, gives the same
 * entries then, and otherwise fails no later in the file.
 */
#include "fuzz.h"

#include <gridcrowd/mapio.h>

#include <math.h>
#include <string.h>

#define NAME "fuzz.scen"
#define SIDE 16

static int
is_space(char c)
{
    return c == ' ' || c == '\t';
}

static int
is_blank_line(const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (!is_space(s[i]) && s[i] != '\r' && s[i] != '\n')
            return 0;
    return 1;
}

/* A whole number with an optional sign; INT64_MIN when the field is not
 * one or is beyond any int32_t. */
static int64_t
field_int(const char *s, size_t n)
{
    size_t i = 0;
    int neg = 0;
    if (n > 0 && (s[0] == '-' || s[0] == '+')) {
        neg = s[0] == '-';
        i = 1;
    }
    if (i == n)
        return INT64_MIN;
    int64_t v = 0;
    for (; i < n; i++) {
        if (s[i] < '0' || s[i] > '9')
            return INT64_MIN;
        v = v * 10 + (s[i] - '0');
        if (v > INT32_MAX)
            return INT64_MIN;
    }
    return neg ? -v : v;
}

/* Entry e against its line s[0..n), split here on spaces and tabs. */
static void
check_entry(const gc_scen_entry *e, const char *s, size_t n, size_t lineno)
{
    const char *f[10];
    size_t fl[10], nf = 0, i = 0;
    while (nf < 10) {
        while (i < n && is_space(s[i]))
            i++;
        if (i == n)
            break;
        f[nf] = s + i;
        while (i < n && !is_space(s[i]))
            i++;
        fl[nf] = (size_t)(s + i - f[nf]);
        nf++;
    }
    FUZZ_CHECK(nf == 9);
    FUZZ_CHECK(e->line > 0 && (size_t)e->line == lineno);

    FUZZ_CHECK(e->bucket >= 0 && field_int(f[0], fl[0]) == e->bucket);

    size_t ml = strnlen(e->map, sizeof e->map);
    FUZZ_CHECK(ml > 0 && ml < sizeof e->map);
    FUZZ_CHECK(ml == fl[1] && memcmp(e->map, f[1], ml) == 0);
    for (size_t k = 0; k < ml; k++)
        FUZZ_CHECK((unsigned char)e->map[k] >= 0x20 && e->map[k] != 0x7f);

    FUZZ_CHECK(e->map_width >= 1 && e->map_width <= GC_GRID_MAX_SIDE);
    FUZZ_CHECK(e->map_height >= 1 && e->map_height <= GC_GRID_MAX_SIDE);
    FUZZ_CHECK(field_int(f[2], fl[2]) == e->map_width);
    FUZZ_CHECK(field_int(f[3], fl[3]) == e->map_height);

    FUZZ_CHECK(field_int(f[4], fl[4]) == e->start.x);
    FUZZ_CHECK(field_int(f[5], fl[5]) == e->start.y);
    FUZZ_CHECK(field_int(f[6], fl[6]) == e->goal.x);
    FUZZ_CHECK(field_int(f[7], fl[7]) == e->goal.y);
    FUZZ_CHECK(e->start.x >= 0 && e->start.x < e->map_width);
    FUZZ_CHECK(e->start.y >= 0 && e->start.y < e->map_height);
    FUZZ_CHECK(e->goal.x >= 0 && e->goal.x < e->map_width);
    FUZZ_CHECK(e->goal.y >= 0 && e->goal.y < e->map_height);

    char tmp[64];
    FUZZ_CHECK(fl[8] < sizeof tmp);
    memcpy(tmp, f[8], fl[8]);
    tmp[fl[8]] = '\0';
    FUZZ_CHECK(isfinite(e->optimal) && e->optimal >= 0);
    FUZZ_CHECK(strtod(tmp, NULL) == e->optimal);
}

static void
check_success(const gc_scen *sc, const char *buf, size_t len)
{
    FUZZ_CHECK(sc->len == 0 || sc->entries != NULL);
    FUZZ_CHECK(strnlen(sc->map, sizeof sc->map) < sizeof sc->map);
    FUZZ_CHECK(strcmp(sc->map, sc->len > 0 ? sc->entries[0].map : "") == 0);

    fuzz_lines it = {buf, len, 0, 0};
    const char *s;
    size_t n, k = 0;
    FUZZ_CHECK(fuzz_next_line(&it, &s, &n)); /* "version 1" */
    while (fuzz_next_line(&it, &s, &n)) {
        if (is_blank_line(s, n))
            continue;
        if (n >= 2 && s[0] == '/' && s[1] == '/')
            break;
        FUZZ_CHECK(k < sc->len);
        check_entry(&sc->entries[k], s, n, it.lineno);
        k++;
    }
    FUZZ_CHECK(k == sc->len);
}

static void
check_parse(int rc, const gc_scen *sc, const gc_error *err, const char *buf,
            size_t len)
{
    if (rc == GC_OK) {
        FUZZ_CHECK(err->code == GC_OK && err->msg[0] == '\0');
        check_success(sc, buf, len);
    } else {
        FUZZ_CHECK(sc->entries == NULL && sc->len == 0 && sc->map[0] == '\0');
        fuzz_check_failure(rc, err, NAME, buf, len);
    }
}

static int
same_entry(const gc_scen_entry *a, const gc_scen_entry *b)
{
    return a->bucket == b->bucket && strcmp(a->map, b->map) == 0 &&
           a->map_width == b->map_width && a->map_height == b->map_height &&
           a->start.x == b->start.x && a->start.y == b->start.y &&
           a->goal.x == b->goal.x && a->goal.y == b->goal.y &&
           a->optimal == b->optimal && a->line == b->line;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *buf = (const char *)data;
    gc_grid *g;
    FUZZ_CHECK(gc_grid_new(&g, SIDE, SIDE) == GC_OK);

    gc_scen bare, fit;
    gc_error ebare, efit;
    /* Garbage in the outputs: the parser must empty them itself. */
    memset(&bare, 0xa5, sizeof bare);
    memset(&fit, 0xa5, sizeof fit);
    int rbare = gc_scen_parse(&bare, buf, size, NAME, NULL, &ebare);
    check_parse(rbare, &bare, &ebare, buf, size);
    int rfit = gc_scen_parse(&fit, buf, size, NAME, g, &efit);
    check_parse(rfit, &fit, &efit, buf, size);

    if (rfit == GC_OK) {
        FUZZ_CHECK(rbare == GC_OK);
        FUZZ_CHECK(fit.len == bare.len);
        FUZZ_CHECK(strcmp(fit.map, bare.map) == 0);
        for (size_t i = 0; i < fit.len; i++) {
            const gc_scen_entry *e = &fit.entries[i];
            FUZZ_CHECK(same_entry(e, &bare.entries[i]));
            FUZZ_CHECK(e->map_width == SIDE && e->map_height == SIDE);
            FUZZ_CHECK(gc_grid_in_bounds(g, e->start.x, e->start.y));
            FUZZ_CHECK(gc_grid_in_bounds(g, e->goal.x, e->goal.y));
        }
    } else if (rbare == GC_OK) {
        /* Only a size that is not the grid's can have failed it, and the
         * first such entry is where. */
        FUZZ_CHECK(rfit == GC_ERANGE);
        size_t i = 0;
        while (i < bare.len && bare.entries[i].map_width == SIDE &&
               bare.entries[i].map_height == SIDE)
            i++;
        FUZZ_CHECK(i < bare.len);
        FUZZ_CHECK(efit.line == bare.entries[i].line);
    } else if (rbare != GC_ENOMEM && rfit != GC_ENOMEM) {
        FUZZ_CHECK(efit.line <= ebare.line);
    }

    gc_scen_free(&bare);
    gc_scen_free(&fit);
    gc_scen_free(&fit); /* a no-op on an emptied scenario */
    gc_grid_free(g);
    return 0;
}
