/*
 * test_mapio.c: reading and writing maps and scenario files.
 *
 * Every error case checks the exact message, line and column, because those
 * are what a user sees.  Inputs are copied into buffers of exactly their
 * length (no NUL after them), so a parser that reads one byte too far shows
 * up under valgrind and AddressSanitizer.  The shipped maps are checked with
 * a flood fill and their scenario with a plain Dijkstra written here, not
 * with the library's own neighbour rules.  The Moving AI benchmarks are read
 * from $GC_SHARED_DIR when they are there, and the test is skipped when not.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <gridcrowd/mapio.h>

#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

/* ---- helpers ------------------------------------------------------------- */

static void
src_path(char *buf, size_t size, const char *rel)
{
    const char *d = getenv("GC_SRCDIR");
    if (d == NULL || *d == '\0')
        d = ".";
    int n = snprintf(buf, size, "%s/%s", d, rel);
    assert_true(n > 0 && (size_t)n < size);
}

/* A temporary file name (the file exists and is empty); unlink it after. */
static void
tmp_path(char *buf, size_t size)
{
    const char *d = getenv("TMPDIR");
    if (d == NULL || *d == '\0')
        d = "/tmp";
    int n = snprintf(buf, size, "%s/gc-test-mapio-XXXXXX", d);
    assert_true(n > 0 && (size_t)n < size);
    int fd = mkstemp(buf);
    assert_true(fd >= 0);
    close(fd);
}

/* The whole file at path, NUL-terminated for convenience. */
static char *
slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    size_t cap = 4096, n = 0;
    char *b = malloc(cap);
    assert_non_null(b);
    size_t got;
    while ((got = fread(b + n, 1, cap - n - 1, f)) > 0) {
        n += got;
        if (cap - n - 1 == 0) {
            cap *= 2;
            b = realloc(b, cap);
            assert_non_null(b);
        }
    }
    assert_false(ferror(f));
    fclose(f);
    b[n] = '\0';
    *len = n;
    return b;
}

/* Parse len bytes of text from a heap copy of exactly len bytes. */
static int
parse_map(const char *text, size_t len, gc_grid **g, gc_error *e)
{
    char *copy = malloc(len > 0 ? len : 1);
    assert_non_null(copy);
    memcpy(copy, text, len);
    int rc = gc_map_parse(g, copy, len, "x.map", e);
    free(copy);
    return rc;
}

static int
parse_scen(const char *text, size_t len, const gc_grid *g, gc_scen *s,
           gc_error *e)
{
    char *copy = malloc(len > 0 ? len : 1);
    assert_non_null(copy);
    memcpy(copy, text, len);
    int rc = gc_scen_parse(s, copy, len, "x.scen", g, e);
    free(copy);
    return rc;
}

static void
check_error(const char *what, int rc, const gc_error *e, int code, int line,
            int col, const char *msg)
{
    if (rc != code || e->code != code || e->line != line || e->col != col ||
        strcmp(e->msg, msg) != 0)
        print_error("case \"%s\": got %s line %d col %d \"%s\"\n", what,
                    gc_err_name(rc), e->line, e->col, e->msg);
    assert_string_equal(gc_err_name(rc), gc_err_name(code));
    assert_int_equal(e->code, code);
    assert_string_equal(e->msg, msg);
    assert_int_equal(e->line, line);
    assert_int_equal(e->col, col);
}

static gc_grid *
grid_from(int w, int h, const char *rows)
{
    gc_grid *g;
    assert_int_equal(gc_grid_new(&g, w, h), GC_OK);
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++) {
            int t = gc_cell_type_from_glyph(rows[y * w + x]);
            assert_true(t >= 0);
            g->cells[y * w + x] = (uint8_t)t;
        }
    return g;
}

/* ---- maps: what is accepted ---------------------------------------------- */

#define TINY                                                                   \
    "type octile\nheight 6\nwidth 8\nmap\n"                                    \
    "..RR..@.\n"                                                               \
    ".@RR..@.\n"                                                               \
    ".@RR.SS.\n"                                                               \
    "RRRRRRRR\n"                                                               \
    "..RR.SS.\n"                                                               \
    "@.RR..@@\n"
#define TINY_CELLS "..RR..@..@RR..@..@RR.SS.RRRRRRRR..RR.SS.@.RR..@@"

static void
test_parse_tiny(void **state)
{
    (void)state;
    gc_grid *g = NULL, *want = grid_from(8, 6, TINY_CELLS);
    gc_error e;
    assert_int_equal(parse_map(TINY, strlen(TINY), &g, &e), GC_OK);
    assert_non_null(g);
    assert_int_equal(e.code, GC_OK);
    assert_string_equal(e.msg, "");
    assert_true(gc_grid_equal(g, want));
    assert_int_equal(g->cells[2], GC_CELL_LOW);
    assert_int_equal(g->cells[6], GC_CELL_OBSTACLE);
    assert_int_equal(g->cells[2 * 8 + 5], GC_CELL_HIGH);
    assert_true(g->cost[GC_CELL_LOW] == 0.5f);
    assert_true(g->cell_size == 1.0f);
    assert_true(g->owns_cells);
    gc_grid_free(g);

    /* The same map from tests/data, through gc_map_load. */
    char path[4096];
    src_path(path, sizeof path, "tests/data/tiny.map");
    assert_int_equal(gc_map_load(&g, path, &e), GC_OK);
    assert_true(gc_grid_equal(g, want));
    gc_grid_free(g);
    gc_grid_free(want);
}

static void
test_legend(void **state)
{
    (void)state;
    const char *text = "type octile\nheight 1\nwidth 8\nmap\n.G@OTWSR\n";
    const int types[8] = {GC_CELL_WALKABLE, GC_CELL_WALKABLE, GC_CELL_OBSTACLE,
                          GC_CELL_OBSTACLE, GC_CELL_OBSTACLE, GC_CELL_OBSTACLE,
                          GC_CELL_HIGH,     GC_CELL_LOW};
    gc_grid *g;
    gc_error e;
    assert_int_equal(parse_map(text, strlen(text), &g, &e), GC_OK);
    for (int x = 0; x < 8; x++)
        assert_int_equal(g->cells[x], types[x]);
    char *out;
    size_t len;
    assert_int_equal(gc_map_format(g, &out, &len), GC_OK);
    assert_string_equal(out, "type octile\nheight 1\nwidth 8\nmap\n"
                             "..@@@@SR\n");
    assert_int_equal(len, strlen(out));
    free(out);
    gc_grid_free(g);
}

/* Variants of TINY that must give the same grid. */
static void
test_accepted_variants(void **state)
{
    (void)state;
    static const char *const variants[] = {
        /* width before height */
        "type octile\nwidth 8\nheight 6\nmap\n"
        "..RR..@.\n.@RR..@.\n.@RR.SS.\nRRRRRRRR\n..RR.SS.\n@.RR..@@\n",
        /* CRLF */
        "type octile\r\nheight 6\r\nwidth 8\r\nmap\r\n..RR..@.\r\n"
        ".@RR..@.\r\n.@RR.SS.\r\nRRRRRRRR\r\n..RR.SS.\r\n@.RR..@@\r\n",
        /* mixed line ends, no newline after the last row */
        "type octile\nheight 6\r\nwidth 8\nmap\r\n..RR..@.\n"
        ".@RR..@.\r\n.@RR.SS.\nRRRRRRRR\n..RR.SS.\r\n@.RR..@@",
        /* last row ends in CR alone */
        "type octile\nheight 6\nwidth 8\nmap\n..RR..@.\n"
        ".@RR..@.\n.@RR.SS.\nRRRRRRRR\n..RR.SS.\n@.RR..@@\r",
        /* blank lines (and blanks) after the last row */
        "type octile\nheight 6\nwidth 8\nmap\n..RR..@.\n"
        ".@RR..@.\n.@RR.SS.\nRRRRRRRR\n..RR.SS.\n@.RR..@@\n\n\r\n  \t\n\n",
        /* tabs, runs of spaces and trailing blanks in the header */
        "  type\toctile \nheight  6\t\nwidth\t 8\nmap  \n..RR..@.\n"
        ".@RR..@.\n.@RR.SS.\nRRRRRRRR\n..RR.SS.\n@.RR..@@\n",
        /* the other glyphs of each type */
        "type octile\nheight 6\nwidth 8\nmap\nGGRRGGO.\n"
        ".TRR..W.\n.@RR.SS.\nRRRRRRRR\n..RR.SS.\nWGRR..TO\n",
        /* leading zeros are still whole numbers */
        "type octile\nheight 006\nwidth +8\nmap\n..RR..@.\n"
        ".@RR..@.\n.@RR.SS.\nRRRRRRRR\n..RR.SS.\n@.RR..@@\n",
    };
    gc_grid *want = grid_from(8, 6, TINY_CELLS);
    for (size_t i = 0; i < sizeof variants / sizeof variants[0]; i++) {
        gc_grid *g = NULL;
        gc_error e;
        int rc = parse_map(variants[i], strlen(variants[i]), &g, &e);
        if (rc != GC_OK)
            print_error("variant %zu: %s\n", i, e.msg);
        assert_int_equal(rc, GC_OK);
        assert_true(gc_grid_equal(g, want));
        gc_grid_free(g);
    }
    gc_grid_free(want);

    /* A 1 x 1 map, no newline at all after the row. */
    gc_grid *g;
    gc_error e;
    const char *one = "type octile\nheight 1\nwidth 1\nmap\nS";
    assert_int_equal(parse_map(one, strlen(one), &g, &e), GC_OK);
    assert_int_equal(g->width, 1);
    assert_int_equal(g->cells[0], GC_CELL_HIGH);
    gc_grid_free(g);
}

/* ---- maps: errors -------------------------------------------------------- */

typedef struct map_case {
    const char *text;
    size_t len; /* 0: strlen(text) */
    int code;
    int line, col;
    const char *msg;
} map_case;

#define H34 "type octile\nheight 3\nwidth 4\nmap\n"
#define H38 "type octile\nheight 3\nwidth 8\nmap\n"

static const map_case map_cases[] = {
    /* empty, missing header, wrong keyword */
    {"", 0, GC_EPARSE, 1, 0, "x.map:1: file is empty, expected 'type octile'"},
    {"\n \r\n\t\n", 0, GC_EPARSE, 1, 0,
     "x.map:1: file is empty, expected 'type octile'"},
    {"....\n....\n", 0, GC_EPARSE, 1, 1,
     "x.map:1:1: expected 'type octile', got '....'"},
    {"typo octile\n", 0, GC_EPARSE, 1, 1,
     "x.map:1:1: expected 'type octile', got 'typo'"},
    {"\ntype octile\n", 0, GC_EPARSE, 1, 1,
     "x.map:1:1: expected 'type octile', got an empty line"},
    {"Type octile\n", 0, GC_EPARSE, 1, 1,
     "x.map:1:1: expected 'type octile', got 'Type'"},
    {"type tile\nheight 3\n", 0, GC_EPARSE, 1, 6,
     "x.map:1:6: unsupported map type 'tile', expected 'octile'"},
    {"type octile hex\n", 0, GC_EPARSE, 1, 6,
     "x.map:1:6: unsupported map type 'octile hex', expected 'octile'"},
    {"type\n", 0, GC_EPARSE, 1, 5, "x.map:1:5: missing value after 'type'"},
    {"type octile", 0, GC_EPARSE, 1, 0,
     "x.map:1: file ends in the header, expected 'height' or 'width'"},
    {"type octile\nheigth 3\n", 0, GC_EPARSE, 2, 1,
     "x.map:2:1: expected 'height' or 'width', got 'heigth'"},
    {"type octile\n\nheight 3\n", 0, GC_EPARSE, 2, 1,
     "x.map:2:1: expected 'height' or 'width', got an empty line"},
    {"type octile\nheight 3\n", 0, GC_EPARSE, 2, 0,
     "x.map:2: file ends in the header, expected 'width'"},
    {"type octile\nwidth 3\n\n\n", 0, GC_EPARSE, 2, 0,
     "x.map:2: file ends in the header, expected 'height'"},
    {"type octile\nheight 3\nheight 4\n", 0, GC_EPARSE, 3, 1,
     "x.map:3:1: expected 'width', got 'height'"},
    {"type octile\nheight 3\nwidth 4\n", 0, GC_EPARSE, 3, 0,
     "x.map:3: file ends in the header, expected 'map'"},
    {"type octile\nheight 3\nwidth 4\n....\n....\n....\n", 0, GC_EPARSE, 4, 1,
     "x.map:4:1: expected 'map', got '....'"},
    {"type octile\nheight 3\nwidth 4\nmap extra\n", 0, GC_EPARSE, 4, 5,
     "x.map:4:5: unexpected 'extra' after 'map'"},

    /* width and height: zero, negative, not numbers, junk, too large */
    {"type octile\nheight 0\nwidth 4\nmap\n", 0, GC_ERANGE, 2, 8,
     "x.map:2:8: height must be a whole number from 1 to 65536, got '0'"},
    {"type octile\nheight -3\nwidth 4\nmap\n", 0, GC_ERANGE, 2, 8,
     "x.map:2:8: height must be a whole number from 1 to 65536, got '-3'"},
    {"type octile\nheight abc\nwidth 4\nmap\n", 0, GC_EPARSE, 2, 8,
     "x.map:2:8: height must be a whole number from 1 to 65536, got 'abc'"},
    {"type octile\nheight 12abc\nwidth 4\nmap\n", 0, GC_EPARSE, 2, 8,
     "x.map:2:8: height must be a whole number from 1 to 65536, got '12abc'"},
    {"type octile\nheight 3 4\nwidth 4\nmap\n", 0, GC_EPARSE, 2, 8,
     "x.map:2:8: height must be a whole number from 1 to 65536, got '3 4'"},
    {"type octile\nheight 3.0\nwidth 4\nmap\n", 0, GC_EPARSE, 2, 8,
     "x.map:2:8: height must be a whole number from 1 to 65536, got '3.0'"},
    {"type octile\nheight -\nwidth 4\nmap\n", 0, GC_EPARSE, 2, 8,
     "x.map:2:8: height must be a whole number from 1 to 65536, got '-'"},
    {"type octile\nheight 65537\nwidth 4\nmap\n", 0, GC_ERANGE, 2, 8,
     "x.map:2:8: height must be a whole number from 1 to 65536, got '65537'"},
    {"type octile\nheight 123456789012345678901234567890\n", 0, GC_ERANGE, 2, 8,
     "x.map:2:8: height must be a whole number from 1 to 65536, "
     "got '123456789012345678901234567890'"},
    {"type octile\nheight 18446744073709551617\n", 0, GC_ERANGE, 2, 8,
     "x.map:2:8: height must be a whole number from 1 to 65536, "
     "got '18446744073709551617'"},
    {"type octile\nheight 3\nwidth 0\nmap\n", 0, GC_ERANGE, 3, 7,
     "x.map:3:7: width must be a whole number from 1 to 65536, got '0'"},
    {"type octile\nheight 3\nwidth x4\nmap\n", 0, GC_EPARSE, 3, 7,
     "x.map:3:7: width must be a whole number from 1 to 65536, got 'x4'"},
    {"type octile\nheight 3\nwidth\n", 0, GC_EPARSE, 3, 6,
     "x.map:3:6: missing value after 'width'"},
    {"type octile\nheight 65536\nwidth 65536\nmap\n", 0, GC_ETOOBIG, 3, 7,
     "x.map:3:7: map is 65536 x 65536 = 4294967296 cells, more than the "
     "limit of 268435456"},
    {"type octile\nwidth 16385\nheight 16384\nmap\n", 0, GC_ETOOBIG, 3, 8,
     "x.map:3:8: map is 16385 x 16384 = 268451840 cells, more than the "
     "limit of 268435456"},
    /* at the limit: the rows are checked before anything is allocated */
    {"type octile\nwidth 16384\nheight 16384\nmap\n", 0, GC_EPARSE, 4, 0,
     "x.map:4: expected 16384 rows, file ends after 0"},
    {"type octile\nwidth 65536\nheight 1\nmap\n...\n", 0, GC_EPARSE, 5, 4,
     "x.map:5:4: row is 3 cells long, expected 65536"},

    /* rows: too few, too many, short, long */
    {"type octile\nheight 5\nwidth 8\nmap\n........\n........\n........\n", 0,
     GC_EPARSE, 7, 0, "x.map:7: expected 5 rows, file ends after 3"},
    {"type octile\nheight 5\nwidth 8\nmap\n........\n........\n........", 0,
     GC_EPARSE, 7, 0, "x.map:7: expected 5 rows, file ends after 3"},
    {"type octile\nheight 5\nwidth 8\nmap\n........\n........\n........\n"
     "\n  \n",
     0, GC_EPARSE, 7, 0, "x.map:7: expected 5 rows, file ends after 3"},
    {"type octile\nheight 2\nwidth 8\nmap\n", 0, GC_EPARSE, 4, 0,
     "x.map:4: expected 2 rows, file ends after 0"},
    {"type octile\nheight 1\nwidth 8\nmap", 0, GC_EPARSE, 4, 0,
     "x.map:4: expected 1 row, file ends after 0"},
    {H34 "....\n....\n....\n....\n", 0, GC_EPARSE, 8, 1,
     "x.map:8:1: more rows than the declared height of 3"},
    {H34 "....\n....\n....\n\n\n  @@@@\n", 0, GC_EPARSE, 10, 3,
     "x.map:10:3: more rows than the declared height of 3"},
    {H34 "....\n....\n....\nx", 0, GC_EPARSE, 8, 1,
     "x.map:8:1: more rows than the declared height of 3"},
    {H38 "........\n...\n........\n", 0, GC_EPARSE, 6, 4,
     "x.map:6:4: row is 3 cells long, expected 8"},
    {H38 "........\n..........\n........\n", 0, GC_EPARSE, 6, 9,
     "x.map:6:9: row is 10 cells long, expected 8"},
    {H38 "........\n\n........\n", 0, GC_EPARSE, 6, 1,
     "x.map:6:1: row is 0 cells long, expected 8"},
    {H38 "........\n........\n.", 0, GC_EPARSE, 7, 2,
     "x.map:7:2: row is 1 cell long, expected 8"},
    {"type octile\r\nheight 3\r\nwidth 4\r\nmap\r\n....\r\n..\r\n....\r\n", 0,
     GC_EPARSE, 6, 3, "x.map:6:3: row is 2 cells long, expected 4"},

    /* unknown cells, printable or not */
    {H34 "..q.\n....\n....\n", 0, GC_EPARSE, 5, 3,
     "x.map:5:3: unknown cell 'q'"},
    {H34 "....\n....\n...\0\n", sizeof(H34 "....\n....\n...\0\n") - 1,
     GC_EPARSE, 7, 4, "x.map:7:4: unknown cell '\\x00'"},
    {H34 "....\n.\xff..\n....\n", 0, GC_EPARSE, 6, 2,
     "x.map:6:2: unknown cell '\\xff'"},
    {H34 "....\n....\n\t...\n", 0, GC_EPARSE, 7, 1,
     "x.map:7:1: unknown cell '\\x09'"},
    {H34 "..'.\n....\n....\n", 0, GC_EPARSE, 5, 3,
     "x.map:5:3: unknown cell '\\x27'"},
    {H34 "..\\.\n....\n....\n", 0, GC_EPARSE, 5, 3,
     "x.map:5:3: unknown cell '\\x5c'"},
    {H34 ".. .\n....\n....\n", 0, GC_EPARSE, 5, 3,
     "x.map:5:3: unknown cell ' '"},
    {H34 "..\r.\n....\n....\n", 0, GC_EPARSE, 5, 3,
     "x.map:5:3: unknown cell '\\x0d'"},
    {H34 "....  \n....\n....\n", 0, GC_EPARSE, 5, 5,
     "x.map:5:5: row is 6 cells long, expected 4"},
    {H34 "..q.....\n....\n....\n", 0, GC_EPARSE, 5, 3,
     "x.map:5:3: unknown cell 'q'"},
    /* long junk is quoted up to 40 bytes */
    {"type octile\nheight 3\nwidth "
     "11111111112222222222333333333344444444445555555555\n",
     0, GC_ERANGE, 3, 7,
     "x.map:3:7: width must be a whole number from 1 to 65536, got "
     "'1111111111222222222233333333334444444444...'"},
};

static void
test_map_errors(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof map_cases / sizeof map_cases[0]; i++) {
        const map_case *c = &map_cases[i];
        size_t len = c->len != 0 ? c->len : strlen(c->text);
        gc_grid *g = (gc_grid *)&g; /* must be reset to NULL */
        gc_error e;
        int rc = parse_map(c->text, len, &g, &e);
        check_error(c->text, rc, &e, c->code, c->line, c->col, c->msg);
        assert_null(g);
    }
}

static void
test_map_error_name_and_args(void **state)
{
    (void)state;
    gc_grid *g;
    gc_error e;
    assert_int_equal(gc_map_parse(&g, "", 0, NULL, &e), GC_EPARSE);
    assert_string_equal(e.msg,
                        "<memory>:1: file is empty, expected 'type octile'");
    assert_int_equal(gc_map_parse(&g, "x", 1, "maps/x.map", NULL), GC_EPARSE);
    assert_int_equal(gc_map_parse(NULL, "x", 1, "x.map", &e), GC_EINVAL);
    assert_int_equal(gc_map_parse(&g, NULL, 5, "x.map", &e), GC_EINVAL);
    assert_null(g);
    assert_int_equal(gc_map_load(&g, NULL, &e), GC_EINVAL);
    assert_int_equal(gc_map_format(NULL, NULL, NULL), GC_EINVAL);
}

/*
 * Every prefix of a good map, and every one-byte change to it, must give
 * either a grid or an error with a message, never a crash or a read past
 * the buffer (which the exact-length copies make visible to valgrind and
 * ASan).  A prefix is malformed text (GC_EPARSE); a change may be a
 * number out of range too (GC_ERANGE).  A grid that comes out must survive
 * a round trip, and enough of them come out that the round trip is run.
 */
static void
test_map_prefixes_and_mutations(void **state)
{
    (void)state;
    const char *text = TINY;
    size_t len = strlen(text);
    for (size_t k = 0; k <= len; k++) {
        gc_grid *g = NULL;
        gc_error e;
        int rc = parse_map(text, k, &g, &e);
        if (k >= len - 1) { /* whole, or without the last newline */
            assert_int_equal(rc, GC_OK);
            gc_grid_free(g);
        } else {
            /* Cut short, the text is malformed: GC_EPARSE (mapio.h). */
            assert_string_equal(gc_err_name(rc), gc_err_name(GC_EPARSE));
            assert_int_equal(e.code, GC_EPARSE);
            assert_null(g);
            assert_true(strncmp(e.msg, "x.map:", 6) == 0);
        }
    }
    static const char subst[] = {'\0', '\n', '\r', ' ', 'q', '9', '@', '-'};
    char *buf = malloc(len);
    assert_non_null(buf);
    size_t grids = 0;
    for (size_t i = 0; i < len; i++)
        for (size_t j = 0; j < sizeof subst; j++) {
            memcpy(buf, text, len);
            buf[i] = subst[j];
            gc_grid *g = NULL, *g2 = NULL;
            gc_error e;
            int rc = gc_map_parse(&g, buf, len, "x.map", &e);
            if (rc != GC_OK) {
                /* Malformed text or a number out of range (mapio.h). */
                if (rc != GC_EPARSE && rc != GC_ERANGE)
                    fail_msg("byte %zu as 0x%02x: %s", i,
                             (unsigned char)subst[j], gc_err_name(rc));
                assert_int_equal(e.code, rc);
                assert_null(g);
                assert_true(strncmp(e.msg, "x.map:", 6) == 0);
                continue;
            }
            grids++;
            char *out;
            size_t olen;
            assert_int_equal(gc_map_format(g, &out, &olen), GC_OK);
            assert_int_equal(parse_map(out, olen, &g2, &e), GC_OK);
            assert_true(gc_grid_equal(g, g2));
            free(out);
            gc_grid_free(g);
            gc_grid_free(g2);
        }
    free(buf);
    /* The round trip ran: 62 of the 696 changed maps are grids today
     * (an obstacle for a cell, a CR before a newline, ...). */
    assert_true(grids > 40);
}

/* ---- maps: writing ------------------------------------------------------- */

static void
test_round_trip(void **state)
{
    (void)state;
    static const int sizes[][2] = {{1, 1},  {1, 7},  {7, 1},    {13, 9},
                                   {64, 3}, {3, 64}, {100, 100}};
    srand(12345);
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
        gc_grid *g, *g2 = NULL;
        assert_int_equal(gc_grid_new(&g, sizes[i][0], sizes[i][1]), GC_OK);
        size_t n = (size_t)g->width * (size_t)g->height;
        for (size_t k = 0; k < n; k++)
            g->cells[k] = (uint8_t)(rand() % GC_CELL_NTYPES);
        char *a, *b;
        size_t alen, blen;
        gc_error e;
        assert_int_equal(gc_map_format(g, &a, &alen), GC_OK);
        assert_int_equal(alen, strlen(a));
        assert_int_equal(parse_map(a, alen, &g2, &e), GC_OK);
        assert_true(gc_grid_equal(g, g2));
        assert_int_equal(gc_map_format(g2, &b, &blen), GC_OK);
        assert_int_equal(alen, blen);
        assert_memory_equal(a, b, alen);
        free(a);
        free(b);
        gc_grid_free(g);
        gc_grid_free(g2);
    }

    /* Files already in canonical form come back byte for byte. */
    static const char *const files[] = {"tests/data/tiny.map", "maps/demo.map",
                                        "maps/small.map"};
    for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
        char path[4096];
        src_path(path, sizeof path, files[i]);
        size_t flen, olen;
        char *file = slurp(path, &flen), *out;
        gc_grid *g;
        gc_error e;
        assert_int_equal(gc_map_load(&g, path, &e), GC_OK);
        assert_int_equal(gc_map_format(g, &out, &olen), GC_OK);
        assert_int_equal(olen, flen);
        assert_string_equal(out, file);
        free(out);
        free(file);
        gc_grid_free(g);
    }
}

static void
test_format_rejects_bad_grids(void **state)
{
    (void)state;
    gc_grid *g;
    char *out = (char *)&out;
    size_t len = 99;
    assert_int_equal(gc_grid_new(&g, 3, 2), GC_OK);
    g->cells[4] = 9; /* not a type: a corrupt shared object, say */
    assert_int_equal(gc_map_format(g, &out, &len), GC_ECORRUPT);
    assert_null(out);
    assert_int_equal(len, 0);

    char path[4096];
    tmp_path(path, sizeof path);
    gc_error e;
    assert_int_equal(gc_map_save(g, path, &e), GC_ECORRUPT);
    char want[4200];
    snprintf(want, sizeof want, "%s: cannot write this grid: object is corrupt",
             path);
    assert_string_equal(e.msg, want);
    unlink(path);

    g->cells[4] = GC_CELL_LOW;
    g->width = 0;
    assert_int_equal(gc_map_format(g, &out, &len), GC_EINVAL);
    g->width = 3;
    assert_int_equal(gc_map_format(g, &out, NULL), GC_OK);
    assert_string_equal(out, "type octile\nheight 2\nwidth 3\nmap\n...\n.R.\n");
    free(out);
    gc_grid_free(g);
}

static void
test_save_and_load(void **state)
{
    (void)state;
    gc_grid *g = grid_from(8, 6, TINY_CELLS), *g2;
    char path[4096];
    tmp_path(path, sizeof path);
    gc_error e;
    assert_int_equal(gc_map_save(g, path, &e), GC_OK);
    assert_int_equal(gc_map_load(&g2, path, &e), GC_OK);
    assert_true(gc_grid_equal(g, g2));
    size_t len;
    char *text = slurp(path, &len);
    assert_string_equal(text, TINY);
    free(text);
    gc_grid_free(g2);
    unlink(path);

    /* A directory that does not exist. */
    char bad[4200], want[4300];
    snprintf(bad, sizeof bad, "%s.nodir/x.map", path);
    assert_int_equal(gc_map_save(g, bad, &e), GC_EIO);
    snprintf(want, sizeof want, "%s: No such file or directory", bad);
    assert_string_equal(e.msg, want);
    assert_int_equal(e.line, 0);

    /* A device that is always full: the error shows at flush or close. */
    if (access("/dev/full", W_OK) == 0) {
        assert_int_equal(gc_map_save(g, "/dev/full", &e), GC_EIO);
        assert_string_equal(e.msg, "/dev/full: No space left on device");
    }
    assert_int_equal(gc_map_save(g, NULL, &e), GC_EINVAL);
    gc_grid_free(g);
}

/* ---- files that cannot be read ------------------------------------------- */

static void
test_load_errors(void **state)
{
    (void)state;
    gc_grid *g = (gc_grid *)&g;
    gc_scen s;
    gc_error e;
    char path[4096], want[4200];

    src_path(path, sizeof path, "tests/data/no-such.map");
    assert_int_equal(gc_map_load(&g, path, &e), GC_ENOENT);
    assert_null(g);
    snprintf(want, sizeof want, "%s: No such file or directory", path);
    check_error("missing map", e.code, &e, GC_ENOENT, 0, 0, want);
    assert_int_equal(gc_scen_load(&s, path, NULL, &e), GC_ENOENT);
    assert_string_equal(e.msg, want);

    src_path(path, sizeof path, "tests/data");
    assert_int_equal(gc_map_load(&g, path, &e), GC_EIO);
    snprintf(want, sizeof want, "%s: Is a directory", path);
    check_error("directory", e.code, &e, GC_EIO, 0, 0, want);
    assert_int_equal(gc_scen_load(&s, path, NULL, &e), GC_EIO);
    assert_string_equal(e.msg, want);

    /* Not a regular file: read to its end, whose size fstat cannot tell. */
    if (access("/dev/null", R_OK) == 0) {
        assert_int_equal(gc_map_load(&g, "/dev/null", &e), GC_EPARSE);
        assert_string_equal(e.msg, "/dev/null:1: file is empty, expected "
                                   "'type octile'");
    }

    /* Over the limit: refused from its size, before reading (sparse file). */
    tmp_path(path, sizeof path);
    assert_int_equal(truncate(path, (off_t)GC_MAPIO_MAX_FILE + 1), 0);
    assert_int_equal(gc_map_load(&g, path, &e), GC_ETOOBIG);
    snprintf(want, sizeof want,
             "%s: file is 1073741825 bytes, more than the limit of "
             "1073741824",
             path);
    check_error("too big", e.code, &e, GC_ETOOBIG, 0, 0, want);
    assert_int_equal(gc_scen_load(&s, path, NULL, &e), GC_ETOOBIG);
    assert_null(s.entries);
    unlink(path);
}

static void
on_alarm(int sig)
{
    (void)sig;
    static const char m[] = "test_mapio: a load blocked for 10 s\n";
    if (write(2, m, sizeof m - 1) < 0)
        _exit(1);
    _exit(1);
}

/* Endless or silent inputs: /dev/zero is refused at its first byte (it was
 * read for a gigabyte first), and a FIFO that nobody writes reads as empty
 * instead of blocking forever (an alarm turns a hang into a failure). */
static void
test_load_endless(void **state)
{
    (void)state;
    gc_grid *g = (gc_grid *)&g;
    gc_scen s;
    gc_error e;
    signal(SIGALRM, on_alarm);
    alarm(10);
    if (access("/dev/zero", R_OK) == 0) {
        assert_int_equal(gc_map_load(&g, "/dev/zero", &e), GC_EPARSE);
        assert_null(g);
        assert_string_equal(e.msg, "/dev/zero:1:1: expected 'type octile', "
                                   "got '\\x00'");
        assert_int_equal(gc_scen_load(&s, "/dev/zero", NULL, &e), GC_EPARSE);
        assert_null(s.entries);
    }
    char path[4096], want[4200];
    tmp_path(path, sizeof path);
    unlink(path);
    assert_int_equal(mkfifo(path, 0600), 0);
    assert_int_equal(gc_map_load(&g, path, &e), GC_EPARSE);
    snprintf(want, sizeof want, "%s:1: file is empty, expected 'type octile'",
             path);
    assert_string_equal(e.msg, want);
    assert_int_equal(gc_scen_load(&s, path, NULL, &e), GC_EPARSE);
    unlink(path);
    alarm(0);
    signal(SIGALRM, SIG_DFL);
}

/* ---- scenarios ----------------------------------------------------------- */

static void
test_scen_parse(void **state)
{
    (void)state;
    const char *text = "version 1\n"
                       "0\tm.map\t8\t6\t1\t2\t3\t4\t5.5\n"
                       "\n"
                       "  12 m.map  8 6 0 0 7 5 9.00000000  \r\n"
                       "3\tother.map\t8\t6\t7\t5\t0\t0\t1e1\n";
    gc_scen s;
    gc_error e;
    gc_grid *g = grid_from(8, 6, TINY_CELLS);
    for (int with_grid = 0; with_grid < 2; with_grid++) {
        assert_int_equal(
            parse_scen(text, strlen(text), with_grid ? g : NULL, &s, &e),
            GC_OK);
        assert_int_equal(s.len, 3);
        assert_string_equal(s.map, "m.map");
        const gc_scen_entry *a = &s.entries[0], *b = &s.entries[1];
        assert_int_equal(a->bucket, 0);
        assert_string_equal(a->map, "m.map");
        assert_int_equal(a->map_width, 8);
        assert_int_equal(a->map_height, 6);
        assert_int_equal(a->start.x, 1);
        assert_int_equal(a->start.y, 2);
        assert_int_equal(a->goal.x, 3);
        assert_int_equal(a->goal.y, 4);
        assert_true(a->optimal == 5.5);
        assert_int_equal(a->line, 2);
        assert_int_equal(b->bucket, 12);
        assert_int_equal(b->goal.x, 7);
        assert_int_equal(b->goal.y, 5);
        assert_true(b->optimal == 9.0);
        assert_int_equal(b->line, 4);
        assert_string_equal(s.entries[2].map, "other.map");
        assert_true(s.entries[2].optimal == 10.0);
        gc_scen_free(&s);
        assert_null(s.entries);
        assert_int_equal(s.len, 0);
    }
    gc_grid_free(g);
    gc_scen_free(NULL);

    /* "version 1.0", CRLF, no problems at all. */
    const char *v10 = "version 1.0\r\n0 m.map 1 1 0 0 0 0 0\r\n";
    assert_int_equal(parse_scen(v10, strlen(v10), NULL, &s, &e), GC_OK);
    assert_int_equal(s.len, 1);
    gc_scen_free(&s);
    assert_int_equal(parse_scen("version 1\n\n", 11, NULL, &s, &e), GC_OK);
    assert_int_equal(s.len, 0);
    assert_null(s.entries);
    assert_string_equal(s.map, "");
    gc_scen_free(&s);

    /* A "//" line opens a trailer: problems before it are read, nothing
     * after it is, even lines that would not parse. */
    const char *trail = "version 1\n0\tm.map\t4\t4\t1\t1\t2\t2\t1.41421356\n"
                        "\n//////////\n  article{x,\n}\n0 m.map 4 4 9 9 9 9 1\n";
    assert_int_equal(parse_scen(trail, strlen(trail), NULL, &s, &e), GC_OK);
    assert_int_equal(s.len, 1);
    assert_int_equal(s.entries[0].goal.x, 2);
    gc_scen_free(&s);
    /* A single '/' is not a trailer. */
    const char *slash = "version 1\n/ m.map 4 4 1 1 2 2 1\n";
    assert_int_equal(parse_scen(slash, strlen(slash), NULL, &s, &e),
                     GC_EPARSE);
    assert_int_equal(e.line, 2);

    /* A map name of exactly 255 bytes fits. */
    char line[400];
    int n =
        snprintf(line, sizeof line, "version 1\n1 %0255d 9 9 1 1 2 2 1.4", 0);
    assert_int_equal(parse_scen(line, (size_t)n, NULL, &s, &e), GC_OK);
    assert_int_equal(strlen(s.entries[0].map), 255);
    gc_scen_free(&s);
}

/* Many problems: the entry array grows; an error at the end frees it. */
static void
test_scen_many(void **state)
{
    (void)state;
    size_t cap = 1 << 20, len = 0;
    char *buf = malloc(cap);
    assert_non_null(buf);
    len += (size_t)snprintf(buf, cap, "version 1\n");
    for (int i = 0; i < 5000; i++)
        len += (size_t)snprintf(
            buf + len, cap - len, "%d\tm.map\t100\t50\t%d\t%d\t%d\t%d\t%d.5\n",
            i / 10, i % 100, i % 50, 99 - i % 100, 49 - i % 50, i);
    gc_scen s;
    gc_error e;
    assert_int_equal(parse_scen(buf, len, NULL, &s, &e), GC_OK);
    assert_int_equal(s.len, 5000);
    assert_int_equal(s.entries[4999].start.x, 99);
    assert_int_equal(s.entries[4999].line, 5001);
    assert_true(s.entries[4999].optimal == 4999.5);
    gc_scen_free(&s);

    len += (size_t)snprintf(buf + len, cap - len, "1 m.map 100 50 0 0 0\n");
    assert_int_equal(parse_scen(buf, len, NULL, &s, &e), GC_EPARSE);
    assert_string_equal(
        e.msg, "x.scen:5002:21: missing field 'goal y' (field 8 of 9)");
    assert_null(s.entries);
    assert_int_equal(s.len, 0);
    free(buf);
}

typedef struct scen_case {
    const char *text;
    int code;
    int line, col;
    const char *msg;
} scen_case;

#define V1 "version 1\n"

static const scen_case scen_cases[] = {
    {"", GC_EPARSE, 1, 0, "x.scen:1: file is empty, expected 'version 1'"},
    {"0\tm.map\t8\t6\t1\t2\t3\t4\t5.5\n", GC_EPARSE, 1, 1,
     "x.scen:1:1: expected 'version 1', got '0'"},
    {"\nversion 1\n", GC_EPARSE, 1, 1,
     "x.scen:1:1: expected 'version 1', got an empty line"},
    {"version 2\n", GC_EPARSE, 1, 9,
     "x.scen:1:9: unsupported scenario version '2', expected 1 or 1.0"},
    {"version 1.00\n", GC_EPARSE, 1, 9,
     "x.scen:1:9: unsupported scenario version '1.00', expected 1 or 1.0"},
    {"version\n", GC_EPARSE, 1, 8, "x.scen:1:8: missing value after 'version'"},
    /* missing fields name the field and point just past the line */
    {V1 "0\tm.map\t8\t6\t1\t2\t3\n", GC_EPARSE, 2, 18,
     "x.scen:2:18: missing field 'goal y' (field 8 of 9)"},
    {V1 "0\tm.map\t8\t6\t1\t2\t3\t4  \n", GC_EPARSE, 2, 20,
     "x.scen:2:20: missing field 'optimal length' (field 9 of 9)"},
    {V1 "7\n", GC_EPARSE, 2, 2,
     "x.scen:2:2: missing field 'map' (field 2 of 9)"},
    {V1 "0 m.map 8 6 1 2 3 4 5.5 extra\n", GC_EPARSE, 2, 25,
     "x.scen:2:25: extra field 'extra' after the 9 fields of a problem"},
    /* numbers */
    {V1 "b m.map 8 6 1 2 3 4 5.5\n", GC_EPARSE, 2, 1,
     "x.scen:2:1: bucket must be a whole number from 0 to 2147483647, got "
     "'b'"},
    {V1 "-1 m.map 8 6 1 2 3 4 5.5\n", GC_ERANGE, 2, 1,
     "x.scen:2:1: bucket must be a whole number from 0 to 2147483647, got "
     "'-1'"},
    {V1 "0 m.map 8x 6 1 2 3 4 5.5\n", GC_EPARSE, 2, 9,
     "x.scen:2:9: map width must be a whole number from 1 to 65536, got "
     "'8x'"},
    {V1 "0 m.map 8 0 1 2 3 4 5.5\n", GC_ERANGE, 2, 11,
     "x.scen:2:11: map height must be a whole number from 1 to 65536, got "
     "'0'"},
    {V1 "0 m.map 8 6 -1 2 3 4 5.5\n", GC_ERANGE, 2, 13,
     "x.scen:2:13: start x must be a whole number >= 0, got '-1'"},
    {V1 "0 m.map 8 6 1 two 3 4 5.5\n", GC_EPARSE, 2, 15,
     "x.scen:2:15: start y must be a whole number >= 0, got 'two'"},
    {V1 "0 m.map 8 6 1 2 -3 4 5.5\n", GC_ERANGE, 2, 17,
     "x.scen:2:17: goal x must be a whole number >= 0, got '-3'"},
    {V1 "0 m.map 8 6 1 2 3 99999999999 5.5\n", GC_ERANGE, 2, 19,
     "x.scen:2:19: goal y must be a whole number >= 0, got '99999999999'"},
    {V1 "0 m.map 8 6 1 2 3 4 x\n", GC_EPARSE, 2, 21,
     "x.scen:2:21: optimal length must be a number >= 0, got 'x'"},
    {V1 "0 m.map 8 6 1 2 3 4 -5.5\n", GC_EPARSE, 2, 21,
     "x.scen:2:21: optimal length must be a number >= 0, got '-5.5'"},
    {V1 "0 m.map 8 6 1 2 3 4 nan\n", GC_EPARSE, 2, 21,
     "x.scen:2:21: optimal length must be a number >= 0, got 'nan'"},
    {V1 "0 m.map 8 6 1 2 3 4 1e999\n", GC_EPARSE, 2, 21,
     "x.scen:2:21: optimal length must be a number >= 0, got '1e999'"},
    {V1 "0 m.map 8 6 1 2 3 4 0x10\n", GC_EPARSE, 2, 21,
     "x.scen:2:21: optimal length must be a number >= 0, got '0x10'"},
    {V1 "0 m.map 8 6 1 2 3 4 5..5\n", GC_EPARSE, 2, 21,
     "x.scen:2:21: optimal length must be a number >= 0, got '5..5'"},
    /* coordinates off the map the line itself gives */
    {V1 "0 m.map 8 6 8 2 3 4 5.5\n", GC_ERANGE, 2, 13,
     "x.scen:2:13: start x 8 is off the 8 x 6 map"},
    {V1 "0 m.map 8 6 1 2 3 6 5.5\n", GC_ERANGE, 2, 19,
     "x.scen:2:19: goal y 6 is off the 8 x 6 map"},
    /* the map name */
    {V1 "0 m\001.map 8 6 1 2 3 4 5.5\n", GC_EPARSE, 2, 4,
     "x.scen:2:4: map name contains the byte '\\x01'"},
    /* the error is on the line where it is, after good lines */
    {V1 "0 m.map 8 6 1 2 3 4 5.5\n\n0 m.map 8 6 1 2 3 4\r\n", GC_EPARSE, 4, 20,
     "x.scen:4:20: missing field 'optimal length' (field 9 of 9)"},
};

static void
test_scen_errors(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof scen_cases / sizeof scen_cases[0]; i++) {
        const scen_case *c = &scen_cases[i];
        gc_scen s;
        gc_error e;
        int rc = parse_scen(c->text, strlen(c->text), NULL, &s, &e);
        check_error(c->text, rc, &e, c->code, c->line, c->col, c->msg);
        assert_null(s.entries);
        assert_int_equal(s.len, 0);
    }

    /* A map name longer than the buffer is an error, not a truncation. */
    char line[400];
    int n =
        snprintf(line, sizeof line, "version 1\n1 %0300d 9 9 1 1 2 2 1.4", 0);
    gc_scen s;
    gc_error e;
    int rc = parse_scen(line, (size_t)n, NULL, &s, &e);
    check_error("long name", rc, &e, GC_ETOOBIG, 2, 3,
                "x.scen:2:3: map name is 300 bytes long, the limit is 255");

    rc = gc_scen_parse(&s, "", 0, NULL, NULL, &e);
    check_error("no name", rc, &e, GC_EPARSE, 1, 0,
                "<memory>:1: file is empty, expected 'version 1'");
    assert_int_equal(gc_scen_parse(NULL, "", 0, "x", NULL, &e), GC_EINVAL);
    assert_int_equal(gc_scen_parse(&s, NULL, 3, "x", NULL, &e), GC_EINVAL);
}

/* With a grid, each line's map size must be the grid's. */
static void
test_scen_against_grid(void **state)
{
    (void)state;
    gc_grid *g = grid_from(8, 6, TINY_CELLS);
    static const scen_case cases[] = {
        {V1 "0 m.map 9 6 1 2 3 4 5.5\n", GC_ERANGE, 2, 9,
         "x.scen:2:9: map width 9 differs from the grid's width 8"},
        {V1 "0\tm.map\t8\t60\t1\t2\t3\t4\t5.5\n", GC_ERANGE, 2, 11,
         "x.scen:2:11: map height 60 differs from the grid's height 6"},
        {V1 "0 m.map 8 6 1 2 3 4 5.5\n0 m.map 8 6 1 2 3 40 5.5\n", GC_ERANGE, 3,
         19, "x.scen:3:19: goal y 40 is off the 8 x 6 map"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        gc_scen s;
        gc_error e;
        int rc = parse_scen(cases[i].text, strlen(cases[i].text), g, &s, &e);
        check_error(cases[i].text, rc, &e, cases[i].code, cases[i].line,
                    cases[i].col, cases[i].msg);
        assert_null(s.entries);
    }

    /* The same size without a grid is fine. */
    gc_scen s;
    gc_error e;
    assert_int_equal(
        parse_scen(cases[0].text, strlen(cases[0].text), NULL, &s, &e), GC_OK);
    gc_scen_free(&s);

    /* tests/data/tiny.scen against tests/data/tiny.map. */
    char path[4096], mpath[4096];
    src_path(path, sizeof path, "tests/data/tiny.scen");
    assert_int_equal(gc_scen_load(&s, path, g, &e), GC_OK);
    assert_int_equal(s.len, 6);
    assert_string_equal(s.map, "tiny.map");
    assert_int_equal(gc_scen_map_path(path, s.map, mpath, sizeof mpath), GC_OK);
    gc_grid *m;
    assert_int_equal(gc_map_load(&m, mpath, &e), GC_OK);
    assert_true(gc_grid_equal(m, g));
    gc_grid_free(m);
    gc_scen_free(&s);
    gc_grid_free(g);
}

static void
test_scen_map_path(void **state)
{
    (void)state;
    char buf[32];
    assert_int_equal(gc_scen_map_path("a/b/x.scen", "m.map", buf, sizeof buf),
                     GC_OK);
    assert_string_equal(buf, "a/b/m.map");
    assert_int_equal(gc_scen_map_path("x.scen", "m.map", buf, sizeof buf),
                     GC_OK);
    assert_string_equal(buf, "m.map");
    assert_int_equal(gc_scen_map_path("/x.scen", "m.map", buf, sizeof buf),
                     GC_OK);
    assert_string_equal(buf, "/m.map");
    assert_int_equal(gc_scen_map_path("s/x.scen", "d/m.map", buf, sizeof buf),
                     GC_OK);
    assert_string_equal(buf, "s/d/m.map");
    assert_int_equal(
        gc_scen_map_path("s/x.scen", "/abs/m.map", buf, sizeof buf), GC_OK);
    assert_string_equal(buf, "/abs/m.map");
    /* exactly fits: 9 + 1 bytes */
    assert_int_equal(gc_scen_map_path("a/b/x.scen", "m.map", buf, 10), GC_OK);
    assert_string_equal(buf, "a/b/m.map");
    assert_int_equal(gc_scen_map_path("a/b/x.scen", "m.map", buf, 9),
                     GC_ETOOBIG);
    assert_string_equal(buf, "");
    assert_int_equal(gc_scen_map_path("a/b/x.scen", "", buf, sizeof buf),
                     GC_EINVAL);
    assert_int_equal(gc_scen_map_path(NULL, "m", buf, sizeof buf), GC_EINVAL);
    assert_int_equal(gc_scen_map_path("x", "m", buf, 0), GC_EINVAL);
}

/* ---- the Moving AI benchmarks -------------------------------------------- */

static int
cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static bool
blank_line(const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (s[i] != ' ' && s[i] != '\t' && s[i] != '\r')
            return false;
    return true;
}

/*
 * One benchmark scenario: every problem line (nine tab-separated fields)
 * must be read.  Lines are counted here independently; any line after the
 * header that is not a problem must be refused, at that line.
 */
static void
check_movingai_scen(const char *path)
{
    size_t len;
    char *text = slurp(path, &len);
    size_t problems = 0, lines = 0, bad_line = 0, bad_off = 0;
    for (size_t off = 0; off < len;) {
        const char *s = text + off;
        const char *nl = memchr(s, '\n', len - off);
        size_t n = nl != NULL ? (size_t)(nl - s) : len - off;
        lines++;
        if (lines > 1 && bad_line == 0 && !blank_line(s, n)) {
            size_t tabs = 0;
            for (size_t i = 0; i < n; i++)
                tabs += s[i] == '\t';
            if (tabs == 8)
                problems++;
            else {
                bad_line = lines;
                bad_off = off;
            }
        }
        off += n + (nl != NULL);
    }

    gc_scen s;
    gc_error e;
    int rc = gc_scen_load(&s, path, NULL, &e);
    if (bad_line == 0) {
        if (rc != GC_OK)
            print_error("%s\n", e.msg);
        assert_int_equal(rc, GC_OK);
        assert_int_equal(s.len, lines - 1);
    } else {
        /* A trailer after the problems (arena.map.scen carries a citation
         * opened by a "//" line): the problems before it are all read. */
        assert_true(bad_off + 2 <= len && text[bad_off] == '/' &&
                    text[bad_off + 1] == '/');
        if (rc != GC_OK)
            print_error("%s\n", e.msg);
        assert_int_equal(rc, GC_OK);
    }
    assert_int_equal(s.len, problems);
    assert_true(s.len > 0);

    char mpath[4096];
    gc_grid *g;
    assert_int_equal(gc_scen_map_path(path, s.map, mpath, sizeof mpath), GC_OK);
    rc = gc_map_load(&g, mpath, &e);
    if (rc != GC_OK)
        print_error("%s\n", e.msg);
    assert_int_equal(rc, GC_OK);
    for (size_t i = 0; i < s.len; i++) {
        const gc_scen_entry *p = &s.entries[i];
        assert_string_equal(p->map, s.map);
        assert_int_equal(p->map_width, g->width);
        assert_int_equal(p->map_height, g->height);
        assert_true(gc_grid_in_bounds(g, p->start.x, p->start.y));
        assert_true(gc_grid_in_bounds(g, p->goal.x, p->goal.y));
        assert_true(p->optimal >= 0.0);
    }
    size_t n = s.len;
    gc_scen_free(&s);

    /* Read once more with the grid: sizes and coordinates are checked. */
    rc = gc_scen_parse(&s, text, bad_line ? bad_off : len, path, g, &e);
    assert_int_equal(rc, GC_OK);
    assert_int_equal(s.len, n);
    gc_scen_free(&s);
    gc_grid_free(g);
    free(text);
}

static void
test_movingai(void **state)
{
    (void)state;
    const char *shared = getenv("GC_SHARED_DIR");
    char dir[4096];
    snprintf(dir, sizeof dir, "%s/benchmarks/movingai",
             shared != NULL ? shared : "");
    DIR *d = shared != NULL && *shared != '\0' ? opendir(dir) : NULL;
    if (d == NULL) {
        print_message("no Moving AI benchmarks in '%s': skipped\n", dir);
        skip();
    }
    char *names[256];
    size_t n = 0;
    struct dirent *de;
    while ((de = readdir(d)) != NULL && n < 256) {
        size_t l = strlen(de->d_name);
        if (l > 5 && strcmp(de->d_name + l - 5, ".scen") == 0) {
            names[n] = strdup(de->d_name);
            assert_non_null(names[n]);
            n++;
        }
    }
    closedir(d);
    qsort(names, n, sizeof names[0], cmp_str);
    assert_true(n > 0);
    for (size_t i = 0; i < n; i++) {
        char path[8192];
        snprintf(path, sizeof path, "%s/%s", dir, names[i]);
        check_movingai_scen(path);
        free(names[i]);
    }
}

/* ---- our maps ------------------------------------------------------------ */

/* Count of passable cells reached from the first one, 4-connected, which
 * for 8-connected moves without corner cutting is the same relation. */
static size_t
flood_fill(const gc_grid *g, size_t *passable)
{
    size_t n = (size_t)g->width * (size_t)g->height, first = n;
    *passable = 0;
    for (size_t i = 0; i < n; i++)
        if (g->cells[i] != GC_CELL_OBSTACLE) {
            (*passable)++;
            if (first == n)
                first = i;
        }
    if (first == n)
        return 0;
    uint8_t *seen = calloc(n, 1);
    size_t *stack = malloc(n * sizeof *stack);
    assert_non_null(seen);
    assert_non_null(stack);
    size_t top = 0, reached = 0;
    stack[top++] = first;
    seen[first] = 1;
    while (top > 0) {
        size_t i = stack[--top];
        reached++;
        int x = (int)(i % (size_t)g->width), y = (int)(i / (size_t)g->width);
        static const int dx[4] = {1, -1, 0, 0}, dy[4] = {0, 0, 1, -1};
        for (int k = 0; k < 4; k++) {
            int nx = x + dx[k], ny = y + dy[k];
            if (nx < 0 || ny < 0 || nx >= g->width || ny >= g->height)
                continue;
            size_t j = (size_t)ny * (size_t)g->width + (size_t)nx;
            if (!seen[j] && g->cells[j] != GC_CELL_OBSTACLE) {
                seen[j] = 1;
                stack[top++] = j;
            }
        }
    }
    free(seen);
    free(stack);
    return reached;
}

static void
check_town_map(const char *rel, int min_w, int max_w, int min_h, int max_h)
{
    char path[4096];
    src_path(path, sizeof path, rel);
    gc_grid *g;
    gc_error e;
    int rc = gc_map_load(&g, path, &e);
    if (rc != GC_OK)
        print_error("%s\n", e.msg);
    assert_int_equal(rc, GC_OK);
    assert_in_range(g->width, min_w, max_w);
    assert_in_range(g->height, min_h, max_h);
    size_t count[GC_CELL_NTYPES] = {0};
    size_t n = (size_t)g->width * (size_t)g->height;
    for (size_t i = 0; i < n; i++)
        count[g->cells[i]]++;
    for (int t = 0; t < GC_CELL_NTYPES; t++)
        assert_true(count[t] > 0);
    size_t passable;
    size_t reached = flood_fill(g, &passable);
    assert_int_equal(reached, passable);
    assert_true(passable > n / 2);
    gc_grid_free(g);
}

static void
test_demo_map(void **state)
{
    (void)state;
    check_town_map("maps/demo.map", 96, 128, 64, 96);
    check_town_map("maps/small.map", 24, 40, 16, 32);
}

/* Plain Dijkstra, uniform costs, 8-connected, no corner cutting. */
typedef struct hnode {
    double d;
    size_t i;
} hnode;

static void
heap_push(hnode *h, size_t *n, hnode v)
{
    size_t k = (*n)++;
    while (k > 0 && h[(k - 1) / 2].d > v.d) {
        h[k] = h[(k - 1) / 2];
        k = (k - 1) / 2;
    }
    h[k] = v;
}

static hnode
heap_pop(hnode *h, size_t *n)
{
    hnode top = h[0], last = h[--*n];
    size_t k = 0;
    for (;;) {
        size_t c = 2 * k + 1;
        if (c >= *n)
            break;
        if (c + 1 < *n && h[c + 1].d < h[c].d)
            c++;
        if (h[c].d >= last.d)
            break;
        h[k] = h[c];
        k = c;
    }
    if (*n > 0)
        h[k] = last;
    return top;
}

static bool
open_cell(const gc_grid *g, int x, int y)
{
    return x >= 0 && y >= 0 && x < g->width && y < g->height &&
           g->cells[(size_t)y * (size_t)g->width + (size_t)x] !=
               GC_CELL_OBSTACLE;
}

static void
dijkstra(const gc_grid *g, gc_cell s, double *dist, hnode *heap)
{
    size_t n = (size_t)g->width * (size_t)g->height, hn = 0;
    for (size_t i = 0; i < n; i++)
        dist[i] = INFINITY;
    size_t si = (size_t)s.y * (size_t)g->width + (size_t)s.x;
    dist[si] = 0;
    heap_push(heap, &hn, (hnode){0, si});
    while (hn > 0) {
        hnode v = heap_pop(heap, &hn);
        if (v.d > dist[v.i])
            continue;
        int x = (int)(v.i % (size_t)g->width),
            y = (int)(v.i / (size_t)g->width);
        for (int dy = -1; dy <= 1; dy++)
            for (int dx = -1; dx <= 1; dx++) {
                if ((dx == 0 && dy == 0) || !open_cell(g, x + dx, y + dy))
                    continue;
                if (dx != 0 && dy != 0 &&
                    !(open_cell(g, x + dx, y) && open_cell(g, x, y + dy)))
                    continue;
                double nd = v.d + (dx != 0 && dy != 0 ? M_SQRT2 : 1.0);
                size_t j =
                    (size_t)(y + dy) * (size_t)g->width + (size_t)(x + dx);
                if (nd < dist[j]) {
                    dist[j] = nd;
                    heap_push(heap, &hn, (hnode){nd, j});
                }
            }
    }
}

static void
test_demo_scen(void **state)
{
    (void)state;
    char mpath[4096], spath[4096], path[4096];
    src_path(mpath, sizeof mpath, "maps/demo.map");
    src_path(spath, sizeof spath, "maps/demo.scen");
    gc_grid *g;
    gc_scen s;
    gc_error e;
    assert_int_equal(gc_map_load(&g, mpath, &e), GC_OK);
    int rc = gc_scen_load(&s, spath, g, &e);
    if (rc != GC_OK)
        print_error("%s\n", e.msg);
    assert_int_equal(rc, GC_OK);
    assert_in_range(s.len, 150, 250);
    assert_int_equal(gc_scen_map_path(spath, s.map, path, sizeof path), GC_OK);
    assert_string_equal(path, mpath);

    size_t n = (size_t)g->width * (size_t)g->height;
    double *dist = malloc(n * sizeof *dist);
    hnode *heap = malloc((8 * n + 1) * sizeof *heap);
    assert_non_null(dist);
    assert_non_null(heap);
    for (size_t i = 0; i < s.len; i++) {
        const gc_scen_entry *p = &s.entries[i];
        assert_true(open_cell(g, p->start.x, p->start.y));
        assert_true(open_cell(g, p->goal.x, p->goal.y));
        assert_int_equal(p->bucket, (int)floor(p->optimal / 4.0));
        dijkstra(g, p->start, dist, heap);
        double d =
            dist[(size_t)p->goal.y * (size_t)g->width + (size_t)p->goal.x];
        if (fabs(d - p->optimal) > 1e-4)
            print_error("line %d: optimal %.8f, Dijkstra %.8f\n", p->line,
                        p->optimal, d);
        assert_true(fabs(d - p->optimal) <= 1e-4);
    }
    free(dist);
    free(heap);
    gc_scen_free(&s);
    gc_grid_free(g);
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_parse_tiny),
        cmocka_unit_test(test_legend),
        cmocka_unit_test(test_accepted_variants),
        cmocka_unit_test(test_map_errors),
        cmocka_unit_test(test_map_error_name_and_args),
        cmocka_unit_test(test_map_prefixes_and_mutations),
        cmocka_unit_test(test_round_trip),
        cmocka_unit_test(test_format_rejects_bad_grids),
        cmocka_unit_test(test_save_and_load),
        cmocka_unit_test(test_load_errors),
        cmocka_unit_test(test_load_endless),
        cmocka_unit_test(test_scen_parse),
        cmocka_unit_test(test_scen_many),
        cmocka_unit_test(test_scen_errors),
        cmocka_unit_test(test_scen_against_grid),
        cmocka_unit_test(test_scen_map_path),
        cmocka_unit_test(test_movingai),
        cmocka_unit_test(test_demo_map),
        cmocka_unit_test(test_demo_scen),
    };
    return cmocka_run_group_tests_name("mapio", tests, NULL, NULL);
}
