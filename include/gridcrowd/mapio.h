/*
 * gridcrowd/mapio.h: maps (Moving AI .map and our legend) and .scen files.
 *
 * Map format (movingai.com/benchmarks/formats.html):
 *     type octile
 *     height H
 *     width W
 *     map
 *     H rows of W cell glyphs
 * Legend: '.' 'G' walkable; '@' 'O' 'T' 'W' obstacle; 'S' high-cost; 'R'
 * low-cost.  Lines may end in LF or CRLF.  Sides must be 1..GC_GRID_MAX_SIDE
 * and the cell count at most GC_GRID_MAX_CELLS (grid.h).  Writing uses the
 * canonical glyph of each type ('.', '@', 'S', 'R'), so a map written and
 * read back gives the identical grid, and writing it again the identical
 * bytes.
 *
 * Header lines are exactly "type octile", then "height H" and "width W" in
 * either order, then "map" (keywords in lower case, separated from their
 * value by spaces or tabs).  Every row must have exactly W cells; the last
 * row's line end is optional and blank lines after the last row are
 * ignored.  Anything else is an error, never a guess.
 *
 * Every error fills the caller's gc_error (which may be NULL) with one line
 * naming the file, the 1-based line and column, and what is wrong, e.g.
 *     maps/x.map:12:7: unknown cell 'q'
 *     maps/x.map:7: expected 5 rows, file ends after 3
 * Bytes that are not printable ASCII are shown as \xNN.  Codes: GC_EPARSE
 * for malformed text, GC_ERANGE for a number outside its range (including
 * a scenario coordinate off the map), GC_ETOOBIG for a map or file past the
 * documented limits, GC_ENOENT / GC_EPERM / GC_EIO for files that cannot
 * be read, GC_ENOMEM.  On failure nothing is returned and nothing leaks.
 *
 * The parse functions read exactly `len` bytes of `buf`, which need not be
 * NUL-terminated and may hold any bytes (they are fuzzed).  Numbers in .scen
 * files are read with strtod, so LC_NUMERIC must be "C" (the default).
 */
#ifndef GRIDCROWD_MAPIO_H
#define GRIDCROWD_MAPIO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <gridcrowd/common.h>
#include <gridcrowd/error.h>
#include <gridcrowd/grid.h>

GC_BEGIN_DECLS

/*
 * Largest file gc_map_load and gc_scen_load read (1 GiB): the biggest legal
 * map, 2^28 cells, takes about 270 MB, so a larger file is a mistake (or
 * /dev/zero) and is refused with GC_ETOOBIG before it is read into memory.
 */
#define GC_MAPIO_MAX_FILE ((size_t)1 << 30)

/*
 * Read the map file at `path`; messages name the file as `path`.  On success
 * *out is a new grid (default costs, cell_size 1) owned by the caller, who
 * frees it with gc_grid_free; on failure *out is NULL.  Errors: GC_ENOENT
 * (no such file), GC_EPERM (not readable), GC_EIO (a directory, a read
 * error), GC_ETOOBIG (over GC_MAPIO_MAX_FILE), GC_EPARSE, GC_ERANGE,
 * GC_ENOMEM, GC_EINVAL (NULL out or path).  Never blocks on a FIFO that
 * nobody writes (it reads as empty); a file whose size fstat does not know
 * (a pipe, a device) is read only up to its first NUL byte, which neither
 * format holds, so /dev/zero fails at once with GC_EPARSE.  The same holds
 * for gc_scen_load.
 */
int gc_map_load(gc_grid **out, const char *path, gc_error *err);

/*
 * Parse a map from memory: exactly len bytes of buf, which need not be
 * NUL-terminated.  `name` is the file name used in messages ("<memory>" when
 * NULL).  Ownership and errors as gc_map_load.
 */
int gc_map_parse(gc_grid **out, const char *buf, size_t len, const char *name,
                 gc_error *err);

/*
 * Write `g` in map format to `path`, replacing the file if it exists (the
 * write is not atomic: write to a temporary name and rename() it where a
 * reader may look at the file meanwhile).  GC_EIO with the reason on
 * failure, GC_EINVAL / GC_ECORRUPT as gc_map_format.
 */
int gc_map_save(const gc_grid *g, const char *path, gc_error *err);

/*
 * Format `g` into a new NUL-terminated buffer owned by the caller (free()),
 * its length without the NUL in *len (len may be NULL).  GC_EINVAL for a NULL
 * or malformed grid (sides or cells out of the limits), GC_ECORRUPT when a
 * cell byte is not a known type, GC_ENOMEM; *out is NULL on failure.
 */
int gc_map_format(const gc_grid *g, char **out, size_t *len);

/* One scenario problem. */
typedef struct gc_scen_entry {
    int32_t bucket;
    char map[256]; /* map file named by the line (at most 255 bytes:
                      a longer name is an error, never truncated) */
    int32_t map_width, map_height;
    gc_cell start, goal;
    double optimal; /* optimal length as given */
    int line;       /* line in the file */
} gc_scen_entry;

typedef struct gc_scen {
    gc_scen_entry *entries;
    size_t len;
    char map[256]; /* map name of the first entry */
} gc_scen;

/*
 * Read a .scen file ("version 1" or "version 1.0" first line, then one
 * problem per line: nine fields separated by tabs or spaces, so a map name
 * cannot contain either; blank lines are skipped; a line starting with
 * "//" ends the problems and opens a trailer that is not read, as in the
 * Moving AI arena.map.scen).  Start and goal must lie
 * inside the map size the line gives, and when `g` is not NULL that size
 * must be g's (GC_ERANGE naming line and column otherwise).  Passability is
 * not checked.  On success the caller owns *out and frees it with
 * gc_scen_free; on failure *out is empty (and gc_scen_free on it is a
 * no-op).  Errors and `name` as for maps.
 */
int gc_scen_load(gc_scen *out, const char *path, const gc_grid *g,
                 gc_error *err);
int gc_scen_parse(gc_scen *out, const char *buf, size_t len, const char *name,
                  const gc_grid *g, gc_error *err);
/* Free the entries of `s` and empty it.  NULL is allowed. */
void gc_scen_free(gc_scen *s);

/*
 * Path of the map a scenario names: `map` (the entry's map field) looked up
 * in the scenario file's directory ("a/b.scen" + "m.map" -> "a/m.map"); an
 * absolute `map` is used as it is.  Writes a NUL-terminated path into buf
 * (GC_ETOOBIG if it does not fit, GC_EINVAL for NULL or empty arguments).
 */
int gc_scen_map_path(const char *scen_path, const char *map, char *buf,
                     size_t size);

GC_END_DECLS
#endif
