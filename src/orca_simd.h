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
/* Eight at a time with AVX, where the CPU has it (chosen at run time:
 * the build does not assume it).  GCC and clang on x86-64 only. */
#if defined(ORCA_SSE2) && defined(__x86_64__) && defined(__GNUC__)
#define ORCA_AVX 1
#include <immintrin.h>
#endif

#endif /* GRIDCROWD_ORCA_SIMD_H */
