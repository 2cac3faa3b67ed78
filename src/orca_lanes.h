/*
 * orca_lanes.h: the neighbours' half-planes several at a time, one body
 * for every lane width.  src/orca.c includes it once per width, having
 * included orca_width.h for that width (LANES, how many neighbours a
 * call takes; V and its operations) and defined:
 *
 *   LANES_FN       the function's name (agent_lines4, agent_lines8)
 *   LANES_CORE     its arithmetic's (agent_core4, agent_core8)
 *   PAIRS_FN       the name of the one whose lanes each take their own
 *                  agent (agent_pairs4, agent_pairs8)
 *   V_LOAD(o, px, py, vx, vy)      the agents o[LANE_(0 .. LANES)]'s pos
 *                                  and vel as vectors
 *   V_RADII(o)                     their radii
 *   V_STORE(out, qx, qy, dx, dy)   LANES lines from vectors
 *
 * and undefines those after.  The function's first `used` lanes
 * hold o[0 .. used), and the others repeat o[used - 1] (LANE_(j) is
 * lane j's neighbour), so that a tail of fewer than LANES neighbours is
 * one call that reads none past it and copies none (their lines, from
 * the lanes past `used`, are the caller's to drop).
 *
 * Each lane does agent_line()'s arithmetic operation for operation, in its
 * order, on the same single-precision values; SSE's and AVX's arithmetic round
 * exactly as the scalar instructions they replace, and no fused multiply-add is
 * enabled, so every line is agent_line()'s to the bit (tests/test_orca_simd.c
 * holds each width to the scalar build).  The lanes compute all three of
 * agent_line()'s cases (arc or overlap disc, left leg, right leg) and keep each
 * lane's own: branch-free, where the scalar cases mispredicted often.  A lane
 * in the one degenerate case (an overlap whose relative velocity aims exactly
 * at parting in one dt) is done again by agent_line().
 */

/* The lines' arithmetic, lane by lane: agent (apx, apy), velocity (avx,
 * avy), radius ar; neighbour (px, py), (vx, vy), ro; 1 / tau and 1 / dt.
 * Returns the lanes to do again by agent_line() (bit l). */
static inline LANES_ATTR int
LANES_CORE(V apx, V apy, V avx, V avy, V ar, V px, V py, V vx, V vy, V ro,
           V itau, V idt, V *oqx, V *oqy, V *odx, V *ody)
{
    const V zero = V_ZERO(), one = V_SET1(1.0f), sign = V_SET1(-0.0f);
    const V all = V_EQ(zero, zero);

    px = V_SUB(px, apx); /* p = o - a */
    py = V_SUB(py, apy);
    V wrx = V_SUB(avx, vx), wry = V_SUB(avy, vy); /* vrel */
    V R = V_ADD(ar, ro);
    V d2 = V_ADD(V_MUL(px, px), V_MUL(py, py));
    V R2 = V_MUL(R, R);
    V apart = V_GT(d2, R2);

    /* w = vrel - p / tau apart, vrel - p / dt in an overlap. */
    V inv = V_OR(V_AND(apart, itau), V_ANDNOT(apart, idt));
    V wx = V_SUB(wrx, V_MUL(inv, px));
    V wy = V_SUB(wry, V_MUL(inv, py));
    V w2 = V_ADD(V_MUL(wx, wx), V_MUL(wy, wy));
    V wp = V_ADD(V_MUL(wx, px), V_MUL(wy, py));
    V arc = V_AND(V_LT(wp, zero), V_GT(V_MUL(wp, wp), V_MUL(R2, w2)));
    V disc = V_OR(V_ANDNOT(apart, all), arc);

    /* The disc's boundary (the cut-off arc, or the overlap's disc). */
    V wl = V_SQRT(w2);
    V iw = V_DIV(one, wl);
    V uwx = V_MUL(iw, wx), uwy = V_MUL(iw, wy);
    V ud = V_SUB(V_MUL(R, inv), wl);
    V dx = uwy, dy = V_XOR(uwx, sign);
    V ux = V_MUL(ud, uwx), uy = V_MUL(ud, uwy);

    /* The legs. */
    V leg = V_SQRT(V_SUB(d2, R2));
    V left = V_GT(V_SUB(V_MUL(px, wy), V_MUL(py, wx)), zero);
    V il = V_DIV(one, d2);
    V ir = V_XOR(il, sign); /* -1 / d2, exactly: one division */
    V lx = V_MUL(il, V_SUB(V_MUL(px, leg), V_MUL(py, R)));
    V ly = V_MUL(il, V_ADD(V_MUL(px, R), V_MUL(py, leg)));
    V rx = V_MUL(ir, V_ADD(V_MUL(px, leg), V_MUL(py, R)));
    V ry = V_MUL(ir, V_ADD(V_MUL(V_XOR(px, sign), R), V_MUL(py, leg)));
    V gx = V_OR(V_AND(left, lx), V_ANDNOT(left, rx));
    V gy = V_OR(V_AND(left, ly), V_ANDNOT(left, ry));
    V t = V_ADD(V_MUL(wrx, gx), V_MUL(wry, gy));
    V gux = V_SUB(V_MUL(t, gx), wrx);
    V guy = V_SUB(V_MUL(t, gy), wry);

    dx = V_OR(V_AND(disc, dx), V_ANDNOT(disc, gx));
    dy = V_OR(V_AND(disc, dy), V_ANDNOT(disc, gy));
    ux = V_OR(V_AND(disc, ux), V_ANDNOT(disc, gux));
    uy = V_OR(V_AND(disc, uy), V_ANDNOT(disc, guy));
    const V half = V_SET1(0.5f);
    *oqx = V_ADD(avx, V_MUL(half, ux));
    *oqy = V_ADD(avy, V_MUL(half, uy));
    *odx = dx;
    *ody = dy;
    return V_MOVEMASK(V_ANDNOT(apart, V_EQ(wl, zero)));
}

#define LANE_(j) ((size_t)(j) < used ? (size_t)(j) : used - 1)
static LANES_ATTR void
LANES_FN(const gc_orca_agent *a, const gc_orca_agent *o, size_t used,
         float inv_tau, float inv_dt, gc_orca_line *out)
{
    V px, py, vx, vy, qx, qy, dx, dy;
    V_LOAD(o, px, py, vx, vy);
    int odd = LANES_CORE(V_SET1(a->pos.x), V_SET1(a->pos.y), V_SET1(a->vel.x),
                         V_SET1(a->vel.y), V_SET1(a->radius), px, py, vx, vy,
                         V_RADII(o), V_SET1(inv_tau), V_SET1(inv_dt), &qx, &qy,
                         &dx, &dy);
    V_STORE(out, qx, qy, dx, dy);
    for (int j = 0; j < LANES; j++)
        if (odd & 1 << j)
            out[j] = agent_line(a, &o[LANE_(j)], inv_tau, inv_dt);
}

/* Lines of LANES pairs, each lane its own agent: lane l's line is
 * agent_line(a[l], o[l], itau[l], idt[l]), to the bit. */
static LANES_ATTR void
PAIRS_FN(const gc_orca_agent *const *a, const gc_orca_agent *const *o,
         const float *itau, const float *idt, gc_orca_line *out)
{
    float f[10][LANES];
    for (int l = 0; l < LANES; l++) {
        f[0][l] = a[l]->pos.x;
        f[1][l] = a[l]->pos.y;
        f[2][l] = a[l]->vel.x;
        f[3][l] = a[l]->vel.y;
        f[4][l] = a[l]->radius;
        f[5][l] = o[l]->pos.x;
        f[6][l] = o[l]->pos.y;
        f[7][l] = o[l]->vel.x;
        f[8][l] = o[l]->vel.y;
        f[9][l] = o[l]->radius;
    }
    V qx, qy, dx, dy;
    int odd =
        LANES_CORE(V_LOADU(f[0]), V_LOADU(f[1]), V_LOADU(f[2]), V_LOADU(f[3]),
                   V_LOADU(f[4]), V_LOADU(f[5]), V_LOADU(f[6]), V_LOADU(f[7]),
                   V_LOADU(f[8]), V_LOADU(f[9]), V_LOADU(itau), V_LOADU(idt),
                   &qx, &qy, &dx, &dy);
    V_STORE(out, qx, qy, dx, dy);
    for (int j = 0; j < LANES; j++)
        if (odd & 1 << j)
            out[j] = agent_line(a[j], o[j], itau[j], idt[j]);
}
#undef LANE_

#undef LANES_FN
#undef LANES_CORE
#undef PAIRS_FN
#undef V_LOAD
#undef V_RADII
#undef V_STORE
