/*
 * orca_width.h: the vector operations of one lane width, for the
 * templates that run several lanes at once (orca_lanes.h, a neighbour's
 * half-plane in each lane; orca_lp_lanes.h, an agent's linear program in
 * each).  Include it with LANES defined as 4 (SSE), 8 (AVX) or 16
 * (AVX-512 F and DQ), after orca_simd.h; it first undefines what an
 * earlier width defined, so a file includes it again for the next
 * width.  It defines:
 *
 *   V              the vector type; LANES_ATTR, the attributes of a
 *                  function that uses it (AVX's or AVX-512's target, or
 *                  nothing)
 *   V_SET1(f), V_ZERO(), V_LOADU(float *)
 *   V_ADD, V_SUB, V_MUL, V_DIV, V_SQRT, V_MIN, V_MAX: lane by lane, each
 *                  rounding as the scalar instruction it replaces (no
 *                  fused multiply-add is enabled); V_MIN(a, b) is
 *                  a < b ? a : b and V_MAX(a, b) a > b ? a : b, as
 *                  gc_minf and gc_maxf
 *   V_AND, V_OR, V_ANDNOT(a, b) (~a & b), V_XOR
 *   V_GT, V_LT, V_GE, V_LE, V_EQ: ordered comparisons (false on a NaN),
 *                  all ones where true; V_MOVEMASK, a lane's sign bit
 *                  as bit `lane`
 *   V_STOREU(float *, v)
 */
#undef LANES_ATTR
#undef V
#undef V_SET1
#undef V_ZERO
#undef V_LOADU
#undef V_STOREU
#undef V_ADD
#undef V_SUB
#undef V_MUL
#undef V_DIV
#undef V_SQRT
#undef V_MIN
#undef V_MAX
#undef V_AND
#undef V_OR
#undef V_ANDNOT
#undef V_XOR
#undef V_GT
#undef V_LT
#undef V_GE
#undef V_LE
#undef V_EQ
#undef V_MOVEMASK
#undef V_MASKED_

#if LANES == 4
#define LANES_ATTR
#define V __m128
#define V_SET1 _mm_set1_ps
#define V_ZERO _mm_setzero_ps
#define V_LOADU _mm_loadu_ps
#define V_STOREU _mm_storeu_ps
#define V_ADD _mm_add_ps
#define V_SUB _mm_sub_ps
#define V_MUL _mm_mul_ps
#define V_DIV _mm_div_ps
#define V_SQRT _mm_sqrt_ps
#define V_MIN _mm_min_ps
#define V_MAX _mm_max_ps
#define V_AND _mm_and_ps
#define V_OR _mm_or_ps
#define V_ANDNOT _mm_andnot_ps
#define V_XOR _mm_xor_ps
#define V_GT _mm_cmpgt_ps
#define V_LT _mm_cmplt_ps
#define V_GE _mm_cmpge_ps
#define V_LE _mm_cmple_ps
#define V_EQ _mm_cmpeq_ps
#define V_MOVEMASK _mm_movemask_ps
#elif LANES == 8
#define LANES_ATTR __attribute__((target("avx")))
#define V __m256
#define V_SET1 _mm256_set1_ps
#define V_ZERO _mm256_setzero_ps
#define V_LOADU _mm256_loadu_ps
#define V_STOREU _mm256_storeu_ps
#define V_ADD _mm256_add_ps
#define V_SUB _mm256_sub_ps
#define V_MUL _mm256_mul_ps
#define V_DIV _mm256_div_ps
#define V_SQRT _mm256_sqrt_ps
#define V_MIN _mm256_min_ps
#define V_MAX _mm256_max_ps
#define V_AND _mm256_and_ps
#define V_OR _mm256_or_ps
#define V_ANDNOT _mm256_andnot_ps
#define V_XOR _mm256_xor_ps
/* SSE's cmpgt, cmplt, cmpge, cmple and cmpeq: ordered (false on a NaN). */
#define V_GT(a, b) _mm256_cmp_ps(a, b, _CMP_GT_OS)
#define V_LT(a, b) _mm256_cmp_ps(a, b, _CMP_LT_OS)
#define V_GE(a, b) _mm256_cmp_ps(a, b, _CMP_GE_OS)
#define V_LE(a, b) _mm256_cmp_ps(a, b, _CMP_LE_OS)
#define V_EQ(a, b) _mm256_cmp_ps(a, b, _CMP_EQ_OQ)
#define V_MOVEMASK _mm256_movemask_ps
#elif LANES == 16
/* AVX-512's comparisons give a mask register, not a vector: each is
 * made a vector of all-ones lanes (vpmovm2d), so the templates' AND,
 * OR and ANDNOT blends serve every width. */
#define LANES_ATTR GC_AVX512_ATTR
#define V __m512
#define V_SET1 _mm512_set1_ps
#define V_ZERO _mm512_setzero_ps
#define V_LOADU _mm512_loadu_ps
#define V_STOREU _mm512_storeu_ps
#define V_ADD _mm512_add_ps
#define V_SUB _mm512_sub_ps
#define V_MUL _mm512_mul_ps
#define V_DIV _mm512_div_ps
#define V_SQRT _mm512_sqrt_ps
#define V_MIN _mm512_min_ps
#define V_MAX _mm512_max_ps
#define V_AND _mm512_and_ps
#define V_OR _mm512_or_ps
#define V_ANDNOT _mm512_andnot_ps
#define V_XOR _mm512_xor_ps
#define V_MASKED_(m) _mm512_castsi512_ps(_mm512_movm_epi32(m))
#define V_GT(a, b) V_MASKED_(_mm512_cmp_ps_mask(a, b, _CMP_GT_OS))
#define V_LT(a, b) V_MASKED_(_mm512_cmp_ps_mask(a, b, _CMP_LT_OS))
#define V_GE(a, b) V_MASKED_(_mm512_cmp_ps_mask(a, b, _CMP_GE_OS))
#define V_LE(a, b) V_MASKED_(_mm512_cmp_ps_mask(a, b, _CMP_LE_OS))
#define V_EQ(a, b) V_MASKED_(_mm512_cmp_ps_mask(a, b, _CMP_EQ_OQ))
#define V_MOVEMASK(v) ((int)_mm512_movepi32_mask(_mm512_castps_si512(v)))
#else
#error "orca_width.h: LANES must be 4, 8 or 16"
#endif
