/*
 * gridcrowd/edits.h: what goes through the edit queue, and the daemon's
 * side of it: checking and applying edits between ticks.
 *
 * The queue itself (a bounded ring in /NAME.edits, gc_edits_push and
 * gc_edits_pop) is in world.h.  This header gives the entries their
 * meaning.  An edit is untrusted input: every field is checked before
 * anything is applied, and a bad entry is counted by reason, never applied.
 *
 * Operations (gc_edit.op):
 *   GC_EDIT_SET    cell (x0, y0) becomes `type`
 *   GC_EDIT_RECT   every cell of the inclusive rectangle (x0, y0)-(x1, y1)
 *   GC_EDIT_LINE   every cell of the line (x0, y0)-(x1, y1) (Bresenham)
 *   GC_EDIT_BATCH_END  closes batch `batch` of this sender: the entries
 *                  with a non-zero `batch` are held until their END arrives
 *                  and then applied together in one tick; x0 holds the
 *                  number of entries the batch should have
 *   GC_EDIT_TRACE  ask the daemon to record the searches of agent x0
 *                  (generation y0) for the viewer; x0 = UINT32_MAX: none
 * `type` is a GC_CELL_* value; cells outside the map, unknown ops or types,
 * rectangles or lines longer than GC_EDIT_MAX_CELLS are rejected whole.
 */
#ifndef GRIDCROWD_EDITS_H
#define GRIDCROWD_EDITS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <gridcrowd/error.h>
#include <gridcrowd/grid.h>
#include <gridcrowd/world.h>

#ifdef __cplusplus
extern "C" {
#endif

enum {
    GC_EDIT_SET = 1,
    GC_EDIT_RECT = 2,
    GC_EDIT_LINE = 3,
    GC_EDIT_BATCH_END = 4,
    GC_EDIT_TRACE = 5
};

/* Largest number of cells one RECT or LINE may touch. */
#define GC_EDIT_MAX_CELLS ((size_t)1 << 24)

#ifdef __cplusplus
}
#endif
#endif
