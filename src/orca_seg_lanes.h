/*
 * orca_seg_lanes.h: wall segments' lines (segment_line, orca.c) several
 * at a time, one body for every lane width.  src/orca.c includes it once
 * per width, having included orca_width.h for that width, and defines
 * SEG_FN, the function's name, undefined after.
 *
 * Lane l takes the segment (a, b), relative to its agent, of radius r
 * and velocity v, with 1 / the walls' time horizon inv, from the arrays'
 * entry l, and leaves the line's point and direction in the out arrays'.
 * Each lane does segment_line()'s arithmetic operation for operation, in
 * its order, on the same single-precision values (no fused multiply-add
 * is enabled; division and square root are exact in both), so each line
 * is segment_line()'s to the bit.  The lanes compute all five pieces of
 * the boundary (two legs, two end arcs, the facing side) and keep the
 * nearest as segment_line() offers them, in its order, a later piece
 * taken only when strictly nearer.  Returns the lanes whose body already
 * touches its segment (bit l), whose lines are segment_line()'s other
 * case: the caller takes those from segment_line().
 */

static LANES_ATTR int
SEG_FN(const float *ax_f, const float *ay_f, const float *bx_f,
       const float *by_f, const float *r_f, const float *vx_f,
       const float *vy_f, const float *inv_f, float *qx_f, float *qy_f,
       float *dx_f, float *dy_f)
{
    const V zero = V_ZERO(), one = V_SET1(1.0f), sign = V_SET1(-0.0f);
    const V minus = V_SET1(-1.0f);
    V ax = V_LOADU(ax_f), ay = V_LOADU(ay_f);
    V bx = V_LOADU(bx_f), by = V_LOADU(by_f);
    V r = V_LOADU(r_f), vx = V_LOADU(vx_f), vy = V_LOADU(vy_f);
    V inv = V_LOADU(inv_f);

    /* The nearest point c of the segment: touching when within r. */
    V abx = V_SUB(bx, ax), aby = V_SUB(by, ay);
    V l2 = V_ADD(V_MUL(abx, abx), V_MUL(aby, aby));
    V s = V_DIV(V_XOR(V_ADD(V_MUL(ax, abx), V_MUL(ay, aby)), sign), l2);
    s = V_AND(V_GT(l2, zero), V_MIN(V_MAX(s, zero), one));
    V cx = V_ADD(ax, V_MUL(s, abx)), cy = V_ADD(ay, V_MUL(s, aby));
    V r2 = V_MUL(r, r);
    int touch = V_MOVEMASK(V_LE(V_ADD(V_MUL(cx, cx), V_MUL(cy, cy)), r2));

    /* tangents() of both ends: the leg's length l and unit directions. */
#define SEG_TANGENTS_(ex, ey, l, ccwx, ccwy, cwx, cwy)                         \
    do {                                                                       \
        V e2_ = V_ADD(V_MUL(ex, ex), V_MUL(ey, ey));                           \
        l = V_SQRT(V_MAX(V_SUB(e2_, r2), zero));                               \
        V i_ = V_DIV(one, e2_);                                                \
        ccwx = V_MUL(i_, V_SUB(V_MUL(ex, l), V_MUL(ey, r)));                   \
        ccwy = V_MUL(i_, V_ADD(V_MUL(ex, r), V_MUL(ey, l)));                   \
        cwx = V_MUL(i_, V_ADD(V_MUL(ex, l), V_MUL(ey, r)));                    \
        cwy = V_MUL(i_, V_ADD(V_MUL(V_XOR(ex, sign), r), V_MUL(ey, l)));       \
    } while (0)
    V la_, accwx, accwy, acwx, acwy, lb_, bccwx, bccwy, bcwx, bcwy;
    SEG_TANGENTS_(ax, ay, la_, accwx, accwy, acwx, acwy);
    SEG_TANGENTS_(bx, by, lb_, bccwx, bccwy, bcwx, bcwy);
#undef SEG_TANGENTS_

    /* The legs: the most counter-clockwise and most clockwise. */
    V astart = V_MUL(la_, inv), bstart = V_MUL(lb_, inv);
    V useb = V_GT(V_SUB(V_MUL(accwx, bccwy), V_MUL(accwy, bccwx)), zero);
    V Lx = V_OR(V_AND(useb, bccwx), V_ANDNOT(useb, accwx));
    V Ly = V_OR(V_AND(useb, bccwy), V_ANDNOT(useb, accwy));
    V Ls = V_OR(V_AND(useb, bstart), V_ANDNOT(useb, astart));
    useb = V_LT(V_SUB(V_MUL(acwx, bcwy), V_MUL(acwy, bcwx)), zero);
    V Rx = V_OR(V_AND(useb, bcwx), V_ANDNOT(useb, acwx));
    V Ry = V_OR(V_AND(useb, bcwy), V_ANDNOT(useb, acwy));
    V Rs = V_OR(V_AND(useb, bstart), V_ANDNOT(useb, astart));

    /* The legs (through the origin), the right one reversed. */
    V best = V_SET1(INFINITY), qx = zero, qy = zero, dx = one, dy = zero;
    V t = V_MAX(V_ADD(V_MUL(vx, Lx), V_MUL(vy, Ly)), Ls);
    V ddx = V_SUB(vx, V_MUL(t, Lx)), ddy = V_SUB(vy, V_MUL(t, Ly));
    V dist = V_ADD(V_MUL(ddx, ddx), V_MUL(ddy, ddy));
    V take = V_LT(dist, best);
    best = V_OR(V_AND(take, dist), V_ANDNOT(take, best));
    dx = V_OR(V_AND(take, Lx), V_ANDNOT(take, dx));
    dy = V_OR(V_AND(take, Ly), V_ANDNOT(take, dy));
    t = V_MAX(V_ADD(V_MUL(vx, Rx), V_MUL(vy, Ry)), Rs);
    ddx = V_SUB(vx, V_MUL(t, Rx));
    ddy = V_SUB(vy, V_MUL(t, Ry));
    dist = V_ADD(V_MUL(ddx, ddx), V_MUL(ddy, ddy));
    take = V_LT(dist, best);
    best = V_OR(V_AND(take, dist), V_ANDNOT(take, best));
    dx = V_OR(V_AND(take, V_MUL(minus, Rx)), V_ANDNOT(take, dx));
    dy = V_OR(V_AND(take, V_MUL(minus, Ry)), V_ANDNOT(take, dy));

    /* The truncation: the end arcs and the facing side. */
    V Ax = V_MUL(inv, ax), Ay = V_MUL(inv, ay);
    V Bx = V_MUL(inv, bx), By = V_MUL(inv, by);
    V ABx = V_SUB(Bx, Ax), ABy = V_SUB(By, Ay);
    V rho = V_MUL(r, inv);
    V vax = V_SUB(vx, Ax), vay = V_SUB(vy, Ay);
    V vbx = V_SUB(vx, Bx), vby = V_SUB(vy, By);
    V la = V_SQRT(V_ADD(V_MUL(vax, vax), V_MUL(vay, vay)));
    V lb = V_SQRT(V_ADD(V_MUL(vbx, vbx), V_MUL(vby, vby)));
#define SEG_OFFER_(ok, e, px, py, mx, my)                                      \
    do {                                                                       \
        V d_ = V_MUL(e, e);                                                    \
        V take_ = V_AND(ok, V_LT(d_, best));                                   \
        best = V_OR(V_AND(take_, d_), V_ANDNOT(take_, best));                  \
        qx = V_OR(V_AND(take_, px), V_ANDNOT(take_, qx));                      \
        qy = V_OR(V_AND(take_, py), V_ANDNOT(take_, qy));                      \
        dx = V_OR(V_AND(take_, my), V_ANDNOT(take_, dx));                      \
        dy = V_OR(V_AND(take_, V_XOR(mx, sign)), V_ANDNOT(take_, dy));         \
    } while (0)
    /* An end arc: at end E (la and va for A, lb and vb for B), taken when
     * its normal m faces the origin and lies beyond the end, which
     * `beyond` (V_LE at A, V_GE at B) tests of m against AB. */
#define SEG_ARC_(Ex, Ey, l, vex, vey, beyond)                                  \
    do {                                                                       \
        V f = V_DIV(one, l);                                                   \
        V mx = V_MUL(f, vex), my = V_MUL(f, vey);                              \
        V px = V_ADD(Ex, V_MUL(rho, mx)), py = V_ADD(Ey, V_MUL(rho, my));      \
        V ok =                                                                 \
            V_AND(V_GT(l, zero),                                               \
                  V_AND(beyond(V_ADD(V_MUL(mx, ABx), V_MUL(my, ABy)), zero),   \
                        V_LE(V_ADD(V_MUL(mx, px), V_MUL(my, py)), zero)));     \
        SEG_OFFER_(ok, V_SUB(l, rho), px, py, mx, my);                         \
    } while (0)
    SEG_ARC_(Ax, Ay, la, vax, vay, V_LE);
    SEG_ARC_(Bx, By, lb, vbx, vby, V_GE);
#undef SEG_ARC_
    {
        V L2 = V_ADD(V_MUL(ABx, ABx), V_MUL(ABy, ABy));
        V f = V_DIV(one, V_SQRT(L2));
        V nx = V_MUL(f, V_XOR(ABy, sign)), ny = V_MUL(f, ABx);
        V flip = V_GT(V_ADD(V_MUL(nx, Ax), V_MUL(ny, Ay)), zero);
        nx = V_OR(V_AND(flip, V_MUL(minus, nx)), V_ANDNOT(flip, nx));
        ny = V_OR(V_AND(flip, V_MUL(minus, ny)), V_ANDNOT(flip, ny));
        V sv = V_DIV(V_ADD(V_MUL(vax, ABx), V_MUL(vay, ABy)), L2);
        V ok = V_AND(
            V_AND(V_GT(L2, zero), V_GE(sv, zero)),
            V_AND(V_LE(sv, one),
                  V_LE(V_ADD(V_ADD(V_MUL(nx, Ax), V_MUL(ny, Ay)), rho), zero)));
        V px = V_ADD(V_ADD(Ax, V_MUL(sv, ABx)), V_MUL(rho, nx));
        V py = V_ADD(V_ADD(Ay, V_MUL(sv, ABy)), V_MUL(rho, ny));
        SEG_OFFER_(ok, V_SUB(V_ADD(V_MUL(vax, nx), V_MUL(vay, ny)), rho), px,
                   py, nx, ny);
    }
#undef SEG_OFFER_
    V_STOREU(qx_f, qx);
    V_STOREU(qy_f, qy);
    V_STOREU(dx_f, dx);
    V_STOREU(dy_f, dy);
    return touch;
}
