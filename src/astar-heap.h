/*
 * astar-heap.h: the open list of the A* module, as inline functions, since
 * the search loop (astar-search.c) pushes and pops in its innermost loop
 * and must not pay a call for it.
 *
 * A 4-ary min-heap of 16-byte entries {key, cell, xy} with lazy deletion
 * (an entry whose cell is already closed is skipped when popped; an
 * improved cell is pushed again rather than moved).  The key is one uint64
 * compare: the high half is f rounded to float, the low half is ~(float)g,
 * so equal f is broken towards the larger g (nearer the goal), which keeps
 * an octile search on a plateau of equal f from fanning out.  xy carries
 * the cell's coordinates so that no division is needed to find the
 * neighbours' positions for the heuristic.  Children of entry i are
 * 4i+1..4i+4, one 64-byte line: the array is offset (GC_HEAP_PAD entries)
 * so those groups are line-aligned.  A pop walks the hole down to a leaf
 * with branch-free selects of the least child and sifts the last entry up
 * from there (Floyd), which halved the search time against the textbook
 * sift-down: its branches were mispredicted at every level.  Beside the
 * heap one `next` slot holds the best child of the last expansion; when it
 * beats the heap's top it is expanded at once with no push or pop, which on
 * open ground (straight for the goal) saves a push and a pop per step.  The
 * heap starts at ncells / 16 entries (1 byte a cell) and grows by half when
 * a search needs more (gc_astar_heap_grow), which is rare and amortised.
 * The heap works in byte offsets, so no index is scaled.
 */
#ifndef GRIDCROWD_ASTAR_HEAP_H
#define GRIDCROWD_ASTAR_HEAP_H

#include "astar_int.h"

#include <string.h>

typedef struct gc_hent {
    uint64_t key;
    uint32_t cell;
    uint32_t xy; /* y << 16 | x */
} gc_hent;
_Static_assert(sizeof(gc_hent) == 16, "heap entries are 16 bytes");
_Static_assert(GC_GRID_MAX_SIDE <= 65536, "x and y fit in 16 bits each");

GC_INLINE uint32_t
gc_fbits(double v)
{
    float f = (float)v;
    uint32_t b;
    memcpy(&b, &f, sizeof b);
    return b;
}

/* f and g are >= 0, so their float bit patterns order like the values. */
GC_INLINE uint64_t
gc_hkey(double f, double g)
{
    return (uint64_t)gc_fbits(f) << 32 | (uint32_t)~gc_fbits(g);
}

/* The heap works in byte offsets (entry index * 16) so that child and
 * parent positions need no scaling: the children of the entry at byte i
 * start at byte 4i + 16, its parent is at ((i - 16) / 64) * 16. */
#define GC_HE ((size_t)sizeof(gc_hent))
#define GC_HAT(base, off) ((gc_hent *)(void *)((base) + (off)))

GC_INLINE size_t
gc_heap_parent(size_t i)
{
    return ((i - GC_HE) >> 6) << 4;
}

/* Insert e into a heap of n entries (the slot at n is free). */
GC_INLINE void
gc_heap_push(gc_hent *h, size_t n, gc_hent e)
{
    char *b = (char *)h;
    size_t i = n * GC_HE;
    while (i > 0) {
        size_t p = gc_heap_parent(i);
        if (GC_HAT(b, p)->key <= e.key)
            break;
        *GC_HAT(b, i) = *GC_HAT(b, p);
        i = p;
    }
    *GC_HAT(b, i) = e;
}

/*
 * Put e at the root of a heap of n entries (the root's old entry is gone)
 * and restore the heap, bottom-up (Floyd): walk the hole down to a leaf
 * always taking the least child, with branch-free selects, then sift e up
 * from there.  e is usually a late, large entry, so it rises little, and
 * the descent has no data-dependent branch to mispredict.
 */
GC_INLINE void
gc_heap_sift_down(gc_hent *h, size_t n, gc_hent e)
{
    char *b = (char *)h;
    size_t i = 0, end = n * GC_HE;
    for (;;) {
        size_t c = 4 * i + GC_HE;
        if (c + 3 * GC_HE >= end)
            break;
        const gc_hent *q = GC_HAT(b, c);
        uint64_t k0 = q[0].key, k1 = q[1].key, k2 = q[2].key, k3 = q[3].key;
        size_t x = k1 < k0 ? c + GC_HE : c;
        size_t y = k3 < k2 ? c + 3 * GC_HE : c + 2 * GC_HE;
        uint64_t kx = k1 < k0 ? k1 : k0, ky = k3 < k2 ? k3 : k2;
        size_t m = ky < kx ? y : x;
        *GC_HAT(b, i) = *GC_HAT(b, m);
        i = m;
    }
    size_t c = 4 * i + GC_HE;
    if (c < end) {
        size_t m = c;
        for (size_t j = c + GC_HE; j < end; j += GC_HE)
            if (GC_HAT(b, j)->key < GC_HAT(b, m)->key)
                m = j;
        *GC_HAT(b, i) = *GC_HAT(b, m);
        i = m;
    }
    while (i > 0) {
        size_t p = gc_heap_parent(i);
        if (GC_HAT(b, p)->key <= e.key)
            break;
        *GC_HAT(b, i) = *GC_HAT(b, p);
        i = p;
    }
    *GC_HAT(b, i) = e;
}

/* The open list of one search: the context's heap plus the `next` slot.
 * A local of the search loop. */
typedef struct gc_open {
    gc_hent *heap;
    size_t n, cap, peak;
    gc_hent next;
    bool have_next;
} gc_open;

/* Start an open list of a's heap holding only e (in `next`). */
GC_INLINE void
gc_open_init(gc_open *o, gc_astar *a, gc_hent e)
{
    o->heap = a->heap;
    o->n = 0;
    o->cap = a->heap_cap;
    o->peak = 0;
    o->next = e;
    o->have_next = true;
}

/* Add e to the open list; GC_ENOMEM if the heap cannot grow. */
GC_INLINE int
gc_open_add(gc_astar *a, gc_open *o, gc_hent e)
{
    if (!o->have_next) {
        o->next = e;
        o->have_next = true;
        return GC_OK;
    }
    if (e.key < o->next.key) {
        gc_hent t = o->next;
        o->next = e;
        e = t;
    }
    if (GC_UNLIKELY(o->n == o->cap)) {
        if (gc_astar_heap_grow(a, o->n) != GC_OK)
            return GC_ENOMEM;
        o->heap = a->heap;
        o->cap = a->heap_cap;
    }
    gc_heap_push(o->heap, o->n, e);
    o->n++;
    if (o->n > o->peak)
        o->peak = o->n;
    return GC_OK;
}

/*
 * Take the least entry into *e; false when the list is empty.  `next`,
 * when it is not above the heap's top, is what the heap would give anyway:
 * it is taken with no heap work.  Otherwise the top is taken, and `next`
 * (or the last entry) fills its place in one sift.
 */
GC_INLINE bool
gc_open_pop(gc_open *o, gc_hent *e)
{
    if (o->have_next && (o->n == 0 || o->next.key <= o->heap[0].key)) {
        *e = o->next;
        o->have_next = false;
        return true;
    }
    if (o->n == 0)
        return false;
    *e = o->heap[0];
    if (o->have_next) {
        /* Push next and pop the top in one sift. */
        gc_heap_sift_down(o->heap, o->n, o->next);
        o->have_next = false;
    } else if (--o->n > 0) {
        gc_heap_sift_down(o->heap, o->n, o->heap[o->n]);
    }
    return true;
}

#endif
