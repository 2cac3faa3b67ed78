/*
 * brute_knn.h: the ORCA index's answer by brute force, for the tests that
 * hold the index to it (test_orca, test_orca_simd).
 */
#ifndef GRIDCROWD_TESTS_BRUTE_KNN_H
#define GRIDCROWD_TESTS_BRUTE_KNN_H

#include <gridcrowd/orca.h>

#include <stddef.h>
#include <stdint.h>

/* The k nearest of x, y [0 .. n) but `self` (SIZE_MAX: none) to q,
 * strictly within dist and, squared, at most `hint` (INFINITY: any),
 * into ids and d2, nearest first, ties by index: their count. */
static inline size_t
brute_nearest(const float *x, const float *y, size_t n, size_t self, gc_vec2 q,
              size_t k, float dist, float hint, uint32_t *ids, float *d2)
{
    size_t cnt = 0;
    for (size_t i = 0; i < n; i++) {
        float dx = x[i] - q.x, dy = y[i] - q.y;
        float d = dx * dx + dy * dy;
        if (i == self || !(d < dist * dist) || d > hint)
            continue;
        size_t j = cnt < k ? cnt++ : k;
        if (j == k && !(d < d2[k - 1] || (d == d2[k - 1] && i < ids[k - 1])))
            continue;
        if (j == k)
            j = k - 1;
        for (; j > 0 && (d2[j - 1] > d || (d2[j - 1] == d && ids[j - 1] > i));
             j--) {
            d2[j] = d2[j - 1];
            ids[j] = ids[j - 1];
        }
        d2[j] = d;
        ids[j] = (uint32_t)i;
    }
    return cnt;
}

#endif /* GRIDCROWD_TESTS_BRUTE_KNN_H */
