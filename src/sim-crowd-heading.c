/*
 * sim-crowd-heading.c: the headings of a chunk's moves, four at a time.
 *
 * gc_sim_heading_of (sim_crowd_int.h) is a division and a chain of seven
 * dependent multiply-adds, and the step wrote each agent's heading as it
 * moved, between its other work: on open ground with 100,000 wanderers
 * that chain was 3% of all the CPU, each agent waiting for its own.  The
 * step now keeps each chunk's moves and takes their headings here in one
 * go, each lane the scalar function's operations in its order (no fused
 * multiply-add, the coefficients its own, selects for its branches,
 * copysign by the sign bit), so
 * every heading is the scalar one's to the bit (tests/test_crowd.c holds
 * them to it).
 */
#include "config.h"

#include "sim_crowd_int.h"

#if defined(__SSE2__)
#include <emmintrin.h>

/* m ? a : b, lane by lane (m all ones or all zeros). */
static inline __m128
pick(__m128 m, __m128 a, __m128 b)
{
    return _mm_or_ps(_mm_and_ps(m, a), _mm_andnot_ps(m, b));
}

#endif

void
gc_sim_headings(const float *dx, const float *dy, float *out, size_t n)
{
    size_t j = 0;
#if defined(__SSE2__)
    const __m128 sign = _mm_set1_ps(-0.0f);
    for (; j + 4 <= n; j += 4) {
        __m128 x = _mm_loadu_ps(dx + j), y = _mm_loadu_ps(dy + j);
        __m128 ax = _mm_andnot_ps(sign, x), ay = _mm_andnot_ps(sign, y);
        __m128 xwide = _mm_cmpgt_ps(ax, ay);
        __m128 hi = pick(xwide, ax, ay), lo = pick(xwide, ay, ax);
        __m128 a = _mm_div_ps(lo, hi), t = _mm_mul_ps(a, a);
        __m128 q = _mm_set1_ps(gc_sim_atan_q[0]);
        for (int k = 1; k < GC_SIM_ATAN_Q_LEN; k++)
            q = _mm_add_ps(_mm_mul_ps(q, t), _mm_set1_ps(gc_sim_atan_q[k]));
        __m128 r = _mm_add_ps(a, _mm_mul_ps(_mm_mul_ps(a, t), q));
        r = pick(_mm_cmpgt_ps(ay, ax),
                 _mm_sub_ps(_mm_set1_ps(GC_SIM_HALF_PI), r), r);
        r = pick(_mm_cmplt_ps(x, _mm_setzero_ps()),
                 _mm_sub_ps(_mm_set1_ps(GC_SIM_PI), r), r);
        r = _mm_or_ps(_mm_andnot_ps(sign, r), _mm_and_ps(sign, y));
        _mm_storeu_ps(out + j, r);
    }
#endif
    for (; j < n; j++)
        out[j] = gc_sim_heading_of(dx[j], dy[j]);
}
