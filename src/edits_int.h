/*
 * edits_int.h: what the edit queue's daemon-side files share.
 *
 * The applier is two files: edits-check.c (the entry check and the reason
 * table) and edits.c (staging, batches, applying, draining).  The applier
 * needs the check's reason as a number, which the public gc_edit_check
 * gives only as a name, so the classifier is shared here.
 */
#ifndef GC_EDITS_INT_H
#define GC_EDITS_INT_H

#include <gridcrowd/edits.h>

#include <stdint.h>

/* The GC_EDIT_R_* reason `e` is rejected for, or -1 when it passes, judged
 * on its fields and the map's width and height alone.  Order: op, type,
 * unused fields, batch fields, bounds, size; agent commands: goal kind,
 * unused fields and flags, handles, values.  `e` must not be NULL. */
int gc_edit_classify(const gc_edit *e, int32_t width, int32_t height);

#endif /* GC_EDITS_INT_H */
