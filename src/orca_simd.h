/*
 * orca_simd.h: which vector paths the ORCA files build (orca.c, the
 * half-planes; orca-solve.c, the linear programs).  Included after
 * orca_int.h by those two alone.
 */
#ifndef GRIDCROWD_ORCA_SIMD_H
#define GRIDCROWD_ORCA_SIMD_H

/* Four at a time with SSE2 (every x86-64): the neighbours' half-planes,
 * the walls' distances, lp1's bounds.
 * GC_ORCA_SCALAR builds the scalar code alone: tests/test_orca_simd.c
 * builds both files so and holds the two to the same bits. */
#if defined(__SSE2__) && !defined(GC_ORCA_SCALAR)
#define ORCA_SSE2 1
#include <xmmintrin.h>
#endif
/* Eight at a time with AVX, and sixteen with AVX-512 (ORCA_AVX512),
 * where the CPU has them (chosen at run time: the build does not assume
 * them).  GCC and clang on x86-64 only. */
#if defined(ORCA_SSE2) && defined(__x86_64__) && defined(__GNUC__)
#define ORCA_AVX 1
#include <immintrin.h>
#endif

#if defined(ORCA_SSE2)
/* Four records of four floats each (from a, b, c, d: an agent's pos and
 * vel, a line's point and dir) as four vectors of one coordinate each,
 * and back. */
#define GC_LOAD4(a, b, c, d, A, B, C, D)                                       \
    do {                                                                       \
        A = _mm_loadu_ps(a);                                                   \
        B = _mm_loadu_ps(b);                                                   \
        C = _mm_loadu_ps(c);                                                   \
        D = _mm_loadu_ps(d);                                                   \
        _MM_TRANSPOSE4_PS(A, B, C, D);                                         \
    } while (0)
#define GC_STORE4(a, b, c, d, A, B, C, D)                                      \
    do {                                                                       \
        __m128 a_ = (A), b_ = (B), c_ = (C), d_ = (D);                         \
        _MM_TRANSPOSE4_PS(a_, b_, c_, d_);                                     \
        _mm_storeu_ps(a, a_);                                                  \
        _mm_storeu_ps(b, b_);                                                  \
        _mm_storeu_ps(c, c_);                                                  \
        _mm_storeu_ps(d, d_);                                                  \
    } while (0)
#endif

#if defined(ORCA_AVX)
/* Two four-lane vectors as one of eight, lo in lanes 0 to 3. */
static inline __attribute__((target("avx"))) __m256
gc_join(__m128 lo, __m128 hi)
{
    return _mm256_insertf128_ps(_mm256_castps128_ps256(lo), hi, 1);
}

/* Eight records of four floats each (from a0 .. a7) as four vectors of
 * one coordinate each. */
#define GC_LOAD8(a0, a1, a2, a3, a4, a5, a6, a7, A, B, C, D)                   \
    do {                                                                       \
        __m128 x0_, y0_, u0_, w0_, x1_, y1_, u1_, w1_;                         \
        GC_LOAD4(a0, a1, a2, a3, x0_, y0_, u0_, w0_);                          \
        GC_LOAD4(a4, a5, a6, a7, x1_, y1_, u1_, w1_);                          \
        A = gc_join(x0_, x1_);                                                 \
        B = gc_join(y0_, y1_);                                                 \
        C = gc_join(u0_, u1_);                                                 \
        D = gc_join(w0_, w1_);                                                 \
    } while (0)

/* Whether to take eight at a time: the CPU has AVX, and no test held
 * the lanes to four (gc_orca_lanes_widest, orca_int.h). */
static inline bool
gc_orca_lanes_eight(void)
{
    return (gc_orca_lanes_widest == 0 || gc_orca_lanes_widest >= 8) &&
           __builtin_cpu_supports("avx");
}

/* Sixteen at a time with AVX-512 (its F and DQ parts), where the CPU has
 * it. */
#define ORCA_AVX512 1
#define GC_AVX512_ATTR __attribute__((target("avx,avx512f,avx512dq")))

/* Sixteen records of four floats each, from p[0 .. 16), as four vectors
 * of one coordinate each. */
static inline GC_AVX512_ATTR void
gc_load16(const float *const *p, __m512 *A, __m512 *B, __m512 *C, __m512 *D)
{
    __m256 a0, b0, c0, d0, a1, b1, c1, d1;
    GC_LOAD8(p[0], p[1], p[2], p[3], p[4], p[5], p[6], p[7], a0, b0, c0, d0);
    GC_LOAD8(p[8], p[9], p[10], p[11], p[12], p[13], p[14], p[15], a1, b1, c1,
             d1);
    *A = _mm512_insertf32x8(_mm512_castps256_ps512(a0), a1, 1);
    *B = _mm512_insertf32x8(_mm512_castps256_ps512(b0), b1, 1);
    *C = _mm512_insertf32x8(_mm512_castps256_ps512(c0), c1, 1);
    *D = _mm512_insertf32x8(_mm512_castps256_ps512(d0), d1, 1);
}

/*
 * Whether to take sixteen at a time: the CPU has AVX-512 F and DQ, and
 * either a test asked for sixteen or, by default, the CPU is AMD's.
 * Every width gives the same bits (tests/test_orca_simd.c), so this is
 * a matter of speed alone.  On an AMD EPYC (Zen 4, which runs a 512-bit
 * operation as two 256-bit halves at full clock) sixteen lanes took the
 * corridor's step 3.5% below eight.  On an Intel Xeon with AVX-512
 * (Sapphire Rapids) the same programs took as long in isolation either
 * way (lp2 of 1,024 programs: 131 against 132 ns each), but the whole
 * crowd step ran 6 to 9% faster with eight lanes, the scalar code
 * between the programs too: the core clocks down while it runs 512-bit
 * arithmetic.  glibc's string functions avoid 512-bit registers on
 * Intel's server CPUs for the same reason (its Prefer_No_AVX512).
 */
static inline bool
gc_orca_lanes_sixteen(void)
{
    unsigned w = gc_orca_lanes_widest;
    return (w >= 16 || (w == 0 && __builtin_cpu_is("amd"))) &&
           __builtin_cpu_supports("avx512f") &&
           __builtin_cpu_supports("avx512dq");
}
#endif

#endif /* GRIDCROWD_ORCA_SIMD_H */
