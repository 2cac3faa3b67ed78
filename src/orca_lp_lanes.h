/*
 * orca_lp_lanes.h: lp2 (orca-solve.c) for LANES agents' programs at once,
 * one in each lane, one body for every lane width.  orca-solve.c
 * includes it once per width, having included orca_width.h for that
 * width and defined:
 *
 *   LP_FN                          the function's name
 *   V_LINES(src, px, py, dx, dy)   the lines *src[0 .. LANES) as vectors
 *
 * and undefines those two after.
 *
 * Each lane does lp2's and lp1's arithmetic (dir_opt false) operation for
 * operation, in their order, on the same single-precision values, and SSE's,
 * AVX's and AVX-512's arithmetic rounds as the scalar instructions do, so each
 * lane's answer and failing line are lp2's to the bit (tests/test_orca_simd.c
 * holds them to the scalar build).  Where the scalar lp2 branches, the lanes
 * take both ways and keep each lane's own, and two things differ without
 * changing an answer: lp1 takes every line before line i, where the scalar one
 * stops at the first that leaves no room (the bounds only tighten, so none
 * comes back), and a lane past its last line, or whose program already failed,
 * takes part masked.  lp1 runs for line i only when some lane's answer
 * violates it.
 */

static LANES_ATTR void
LP_FN(const gc_orca_program *const *pr, gc_vec2 *res, size_t *fail)
{
    static const gc_orca_line none; /* past a lane's last line */
    V lpx[GC_ORCA_MAX_LINES], lpy[GC_ORCA_MAX_LINES];
    V ldx[GC_ORCA_MAX_LINES], ldy[GC_ORCA_MAX_LINES];
    float cnt_f[LANES], r_f[LANES], ox_f[LANES], oy_f[LANES];
    size_t nmax = 0;
    for (int l = 0; l < LANES; l++) {
        size_t n = pr[l]->n_lines;
        fail[l] = n;
        cnt_f[l] = (float)n;
        r_f[l] = pr[l]->max_speed;
        ox_f[l] = pr[l]->pref.x;
        oy_f[l] = pr[l]->pref.y;
        nmax = n > nmax ? n : nmax;
    }
    for (size_t i = 0; i < nmax; i++) {
        const gc_orca_line *src[LANES];
        for (int l = 0; l < LANES; l++)
            src[l] = i < pr[l]->n_lines ? &pr[l]->lines[i] : &none;
        V_LINES(src, lpx[i], lpy[i], ldx[i], ldy[i]);
    }
    const V zero = V_ZERO(), sign = V_SET1(-0.0f), eps = V_SET1(GC_ORCA_EPS);
    const V inf = V_SET1(INFINITY), ninf = V_SET1(-INFINITY);
    V cnt = V_LOADU(cnt_f), r = V_LOADU(r_f);
    V ox = V_LOADU(ox_f), oy = V_LOADU(oy_f);
    V r2 = V_MUL(r, r);

    /* The start: opt, or opt cut to the speed disc. */
    V oo = V_ADD(V_MUL(ox, ox), V_MUL(oy, oy));
    V big = V_GT(oo, r2);
    V f = V_DIV(r, V_SQRT(oo));
    V rx = V_OR(V_AND(big, V_MUL(f, ox)), V_ANDNOT(big, ox));
    V ry = V_OR(V_AND(big, V_MUL(f, oy)), V_ANDNOT(big, oy));

    V done = zero; /* lanes whose program failed */
    for (size_t i = 0; i < nmax; i++) {
        V live = V_ANDNOT(done, V_GT(cnt, V_SET1((float)i)));
        V px = lpx[i], py = lpy[i], dx = ldx[i], dy = ldy[i];
        V sl = V_SUB(V_MUL(dx, V_SUB(ry, py)), V_MUL(dy, V_SUB(rx, px)));
        V viol = V_AND(live, V_LT(sl, zero));
        if (!V_MOVEMASK(viol))
            continue;
        /* lp1 on line i. */
        V pd = V_ADD(V_MUL(px, dx), V_MUL(py, dy));
        V disc = V_SUB(V_ADD(V_MUL(pd, pd), r2),
                       V_ADD(V_MUL(px, px), V_MUL(py, py)));
        V bad = V_LT(disc, zero); /* the line misses the speed disc */
        V sq = V_SQRT(disc);
        V npd = V_XOR(pd, sign);
        V tl = V_SUB(npd, sq), tr = V_ADD(npd, sq);
        for (size_t j = 0; j < i; j++) {
            V den = V_SUB(V_MUL(dx, ldy[j]), V_MUL(dy, ldx[j]));
            V num = V_SUB(V_MUL(ldx[j], V_SUB(py, lpy[j])),
                          V_MUL(ldy[j], V_SUB(px, lpx[j])));
            V par = V_LE(V_ANDNOT(sign, den), eps);
            bad = V_OR(bad, V_AND(par, V_LT(num, zero)));
            V t = V_DIV(num, den);
            V up = V_GE(den, zero);
            V hi = V_OR(V_AND(up, t), V_ANDNOT(up, inf));
            V lo = V_OR(V_AND(up, ninf), V_ANDNOT(up, t));
            hi = V_OR(V_AND(par, inf), V_ANDNOT(par, hi));
            lo = V_OR(V_AND(par, ninf), V_ANDNOT(par, lo));
            tr = V_MIN(tr, hi);
            tl = V_MAX(tl, lo);
        }
        bad = V_OR(bad, V_GT(tl, tr));
        V along = V_ADD(V_MUL(dx, V_SUB(ox, px)), V_MUL(dy, V_SUB(oy, py)));
        V t = V_MIN(V_MAX(along, tl), tr);
        V nx = V_ADD(px, V_MUL(t, dx)), ny = V_ADD(py, V_MUL(t, dy));
        V ok = V_ANDNOT(bad, viol);
        rx = V_OR(V_AND(ok, nx), V_ANDNOT(ok, rx));
        ry = V_OR(V_AND(ok, ny), V_ANDNOT(ok, ry));
        int failed = V_MOVEMASK(V_AND(viol, bad));
        if (failed) {
            done = V_OR(done, V_AND(viol, bad));
            for (int l = 0; l < LANES; l++)
                if (failed & 1 << l)
                    fail[l] = i;
        }
    }
    float rx_f[LANES], ry_f[LANES];
    V_STOREU(rx_f, rx);
    V_STOREU(ry_f, ry);
    for (int l = 0; l < LANES; l++)
        res[l] = (gc_vec2){rx_f[l], ry_f[l]};
}

#undef LP_FN
#undef V_LINES
