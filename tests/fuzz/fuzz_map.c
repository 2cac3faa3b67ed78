/*
 * fuzz_map.c: fuzz target for gc_map_parse.
 *
 * Any bytes go in.  A failure must leave no grid, return one of the parse
 * codes and fill the gc_error with one printable line naming the file and a
 * line and column that exist in the input.  A success must give a grid
 * inside the documented limits, with default costs, whose cells are the
 * glyphs of the input's last `height` non-blank lines read with a legend
 * written out here (not grid.c's), and which survives gc_map_format and
 * gc_map_parse unchanged and formats again to the same bytes.
 */
#include "fuzz.h"

#include <gridcrowd/mapio.h>

#include <math.h>
#include <string.h>

#define NAME "fuzz.map"

/* The legend of mapio.h. */
static int
legend(unsigned char c)
{
    switch (c) {
    case '.':
    case 'G':
        return GC_CELL_WALKABLE;
    case '@':
    case 'O':
    case 'T':
    case 'W':
        return GC_CELL_OBSTACLE;
    case 'S':
        return GC_CELL_HIGH;
    case 'R':
        return GC_CELL_LOW;
    }
    return -1;
}

static int
is_blank(char c)
{
    return c == ' ' || c == '\t' || c == '\r' || c == '\n';
}

/*
 * The rows are the last h lines once trailing blank lines are dropped
 * (rows hold glyphs only, so no row ends in a blank byte), each w glyphs,
 * preceded by the "map" line.
 */
static void
check_cells(const gc_grid *g, const char *buf, size_t len)
{
    size_t w = (size_t)g->width, h = (size_t)g->height;
    size_t stop = len;
    while (stop > 0 && is_blank(buf[stop - 1]))
        stop--;
    for (size_t k = 0; k < h; k++) {
        size_t y = h - 1 - k;
        size_t start = stop;
        while (start > 0 && buf[start - 1] != '\n')
            start--;
        size_t end = stop;
        if (end > start && buf[end - 1] == '\r')
            end--;
        FUZZ_CHECK(end - start == w);
        for (size_t x = 0; x < w; x++)
            FUZZ_CHECK(legend((unsigned char)buf[start + x]) ==
                       g->cells[y * w + x]);
        FUZZ_CHECK(start > 0); /* the header comes first */
        stop = start - 1;
    }
    /* The line before the rows: "map", perhaps with spaces around. */
    size_t start = stop;
    while (start > 0 && buf[start - 1] != '\n')
        start--;
    size_t end = stop;
    if (end > start && buf[end - 1] == '\r')
        end--;
    while (start < end && (buf[start] == ' ' || buf[start] == '\t'))
        start++;
    while (end > start && (buf[end - 1] == ' ' || buf[end - 1] == '\t'))
        end--;
    FUZZ_CHECK(end - start == 3 && memcmp(buf + start, "map", 3) == 0);
}

static void
check_round_trip(const gc_grid *g)
{
    char *text, *again;
    size_t tlen, alen;
    FUZZ_CHECK(gc_map_format(g, &text, &tlen) == GC_OK);
    FUZZ_CHECK(strlen(text) == tlen);
    FUZZ_CHECK(tlen > (size_t)g->height * ((size_t)g->width + 1));

    gc_grid *g2;
    gc_error err;
    FUZZ_CHECK(gc_map_parse(&g2, text, tlen, NAME, &err) == GC_OK);
    FUZZ_CHECK(g2 != NULL);
    FUZZ_CHECK(gc_grid_equal(g, g2));
    FUZZ_CHECK(gc_map_format(g2, &again, &alen) == GC_OK);
    FUZZ_CHECK(alen == tlen && memcmp(text, again, tlen) == 0);
    free(again);
    gc_grid_free(g2);
    free(text);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *buf = (const char *)data;
    static gc_grid sentinel;
    gc_grid *g = &sentinel; /* must be overwritten, even on failure */
    gc_error err;
    int rc = gc_map_parse(&g, buf, size, NAME, &err);
    if (rc != GC_OK) {
        FUZZ_CHECK(g == NULL);
        fuzz_check_failure(rc, &err, NAME, buf, size);
        return 0;
    }

    FUZZ_CHECK(g != NULL);
    FUZZ_CHECK(err.code == GC_OK && err.msg[0] == '\0');
    FUZZ_CHECK(g->width >= 1 && g->width <= GC_GRID_MAX_SIDE);
    FUZZ_CHECK(g->height >= 1 && g->height <= GC_GRID_MAX_SIDE);
    size_t cells = (size_t)g->width * (size_t)g->height;
    FUZZ_CHECK(cells <= GC_GRID_MAX_CELLS);
    FUZZ_CHECK(cells <= size); /* every cell is a byte of the input */
    FUZZ_CHECK(g->cells != NULL && g->owns_cells);
    FUZZ_CHECK(g->cell_size == 1.0f);
    FUZZ_CHECK(g->cost[GC_CELL_WALKABLE] == 1.0f);
    FUZZ_CHECK(isinf(g->cost[GC_CELL_OBSTACLE]));
    FUZZ_CHECK(g->cost[GC_CELL_HIGH] == 2.0f);
    FUZZ_CHECK(g->cost[GC_CELL_LOW] == 0.5f);
    for (size_t i = 0; i < cells; i++)
        FUZZ_CHECK(g->cells[i] < GC_CELL_NTYPES);

    check_cells(g, buf, size);
    check_round_trip(g);
    gc_grid_free(g);
    return 0;
}
