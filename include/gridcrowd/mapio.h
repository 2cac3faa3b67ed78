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
 * Every parse error fills the caller's gc_error with one line naming the
 * file, the 1-based line and column, and what is wrong, e.g.
 *     maps/x.map:12:7: unknown cell 'q'
 */
#ifndef GRIDCROWD_MAPIO_H
#define GRIDCROWD_MAPIO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <gridcrowd/error.h>
#include <gridcrowd/grid.h>

#ifdef __cplusplus
extern "C" {
#endif

/*
 * Read a map file.  `name` is used in messages (may equal path).  On success
 * *out is a new grid owned by the caller.  Errors: GC_ENOENT, GC_EIO,
 * GC_EPARSE, GC_ERANGE, GC_ETOOBIG, GC_ENOMEM.
 */
int gc_map_load(gc_grid **out, const char *path, gc_error *err);

/* Parse a map from memory (len bytes, need not be NUL-terminated); `name`
 * is the file name used in messages. */
int gc_map_parse(gc_grid **out, const char *buf, size_t len,
                 const char *name, gc_error *err);

/* Write `g` in map format to `path` (GC_EIO with the reason on failure). */
int gc_map_save(const gc_grid *g, const char *path, gc_error *err);

/* Format `g` into a new NUL-terminated buffer owned by the caller (free()). */
int gc_map_format(const gc_grid *g, char **out, size_t *len);

/* One scenario problem. */
typedef struct gc_scen_entry {
    int32_t bucket;
    char map[256];        /* map file named by the line */
    int32_t map_width, map_height;
    gc_cell start, goal;
    double optimal;       /* optimal length as given */
    int line;             /* line in the file */
} gc_scen_entry;

typedef struct gc_scen {
    gc_scen_entry *entries;
    size_t len;
    char map[256];        /* map name of the first entry */
} gc_scen;

/*
 * Read a .scen file ("version 1" or "version 1.0" first line, then one
 * tab- or space-separated problem per line; blank lines are skipped).
 * When `g` is not NULL, each line's map size must match g's and coordinates
 * must lie on the map (GC_ERANGE naming line and column otherwise).  On
 * success the caller owns *out and frees it with gc_scen_free.
 */
int gc_scen_load(gc_scen *out, const char *path, const gc_grid *g,
                 gc_error *err);
int gc_scen_parse(gc_scen *out, const char *buf, size_t len, const char *name,
                  const gc_grid *g, gc_error *err);
void gc_scen_free(gc_scen *s);

/*
 * Path of the map a scenario names: `map` (the entry's map field) looked up
 * in the scenario file's directory.  Writes into buf (GC_ETOOBIG if it does
 * not fit).
 */
int gc_scen_map_path(const char *scen_path, const char *map, char *buf,
                     size_t size);

#ifdef __cplusplus
}
#endif
#endif
