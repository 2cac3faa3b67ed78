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

#endif /* GRIDCROWD_KNN_INT_H */
