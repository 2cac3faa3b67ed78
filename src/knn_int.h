/*
 * knn_int.h: the sort keys of K-nearest queries, shared by the ORCA index
 * (orca-index.c) and the crowd step's candidate lists (sim-crowd-near.c),
 * so that both order neighbours the same way to the bit.
 *
 * A key packs a squared distance (a float >= 0, whose bits order as its
 * value does) above an agent index, so "nearer, then lower index" is one
 * integer comparison.
 */
#ifndef GRIDCROWD_KNN_INT_H
#define GRIDCROWD_KNN_INT_H

#include <gridcrowd/orca.h>

#include <stddef.h>
#include <stdint.h>
#include <string.h>

static inline uint64_t
knn_key(float d, uint32_t i)
{
    uint32_t bits;
    memcpy(&bits, &d, sizeof bits);
    return (uint64_t)bits << 32 | i;
}

static inline float
knn_dist(uint64_t key)
{
    uint32_t bits = (uint32_t)(key >> 32);
    float d;
    memcpy(&d, &bits, sizeof d);
    return d;
}

/* Put key into the sorted keys[0 .. at), shifting the larger ones up
 * into slot at. */
static inline void
knn_insert(uint64_t *keys, uint32_t at, uint64_t key)
{
    for (; at > 0 && keys[at - 1] > key; at--)
        keys[at] = keys[at - 1];
    keys[at] = key;
}

/* Sort keys[0 .. m) (insertion: m is small, and nearly sorted input, as
 * a list kept in last tick's order is, costs about m steps). */
static inline void
knn_sort(uint64_t *keys, uint32_t m)
{
    for (uint32_t j = 1; j < m; j++)
        knn_insert(keys, j, keys[j]);
}

static inline void
knn_swap(uint64_t *keys, int32_t a, int32_t b)
{
    uint64_t t = keys[a];
    keys[a] = keys[b];
    keys[b] = t;
}

/*
 * Put the k smallest of keys[0 .. m) first, in no particular order but
 * with the k-th smallest at keys[k - 1] (1 <= k <= m): quickselect with
 * Hoare's partition round a median of three, the last few by insertion.
 * About m steps, where sorting m keys by insertion takes about m * m / 4
 * (the index cuts its candidates to k whenever 128 pile up).  Keys are
 * distinct (each holds its own index), so the k kept are the ones a sort
 * would keep.
 */
static inline void
knn_select(uint64_t *keys, uint32_t m, uint32_t k)
{
    int32_t lo = 0, hi = (int32_t)m - 1, want = (int32_t)k - 1;
    while (hi - lo > 12) {
        int32_t mid = lo + (hi - lo) / 2;
        if (keys[mid] < keys[lo])
            knn_swap(keys, lo, mid);
        if (keys[hi] < keys[lo])
            knn_swap(keys, lo, hi);
        if (keys[hi] < keys[mid])
            knn_swap(keys, mid, hi);
        uint64_t pivot = keys[mid];
        int32_t i = lo - 1, j = hi + 1;
        for (;;) {
            do
                i++;
            while (keys[i] < pivot);
            do
                j--;
            while (keys[j] > pivot);
            if (i >= j)
                break;
            knn_swap(keys, i, j);
        }
        /* keys[lo .. j] <= pivot <= keys[j + 1 .. hi] */
        if (want <= j)
            hi = j;
        else
            lo = j + 1;
    }
    knn_sort(keys + lo, (uint32_t)(hi - lo + 1));
}

/*
 * The index's K-nearest query (gc_orca_grid_nearest_hint, orca-index.c)
 * without its final sort, for the crowd step's candidate lists, which
 * sort what they need themselves: the same agents, in no particular
 * order.  Internal to the library.
 */
size_t gc_orca_grid_nearest_set(const gc_orca_grid *g, gc_vec2 q, size_t self,
                                size_t k, float dist, float hint, uint32_t *idx,
                                float *d2);

#endif /* GRIDCROWD_KNN_INT_H */
