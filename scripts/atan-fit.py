#!/usr/bin/env python3
"""atan-fit.py: the coefficients of gc_sim_heading_of (src/sim_crowd_int.h).

Fits atan(a) ~ a + a^3 Q(a^2) on [0, 1], Q of degree 6, to the smallest
largest error (Lawson's iteration: least squares on Chebyshev nodes,
reweighted by each node's error), in double, and prints that error and
Q's coefficients from the constant term up.  Python's standard library
only.

    scripts/atan-fit.py
"""
import math

DEGREE = 7  # coefficients of Q
NODES = 2000


def solve(a, b):
    """a x = b by Gauss-Jordan elimination with partial pivoting."""
    n = len(b)
    m = [row[:] + [v] for row, v in zip(a, b)]
    for c in range(n):
        p = max(range(c, n), key=lambda r: abs(m[r][c]))
        m[c], m[p] = m[p], m[c]
        for r in range(n):
            if r != c:
                f = m[r][c] / m[c][c]
                for k in range(c, n + 1):
                    m[r][k] -= f * m[c][k]
    return [m[i][n] / m[i][i] for i in range(n)]


def main():
    xs = [(1 - math.cos(math.pi * (i + 0.5) / NODES)) / 2 for i in range(NODES)]
    xs = [x for x in xs if x > 1e-4]
    w = [1.0] * len(xs)
    for _ in range(60):
        a = [[0.0] * DEGREE for _ in range(DEGREE)]
        b = [0.0] * DEGREE
        for x, wx in zip(xs, w):
            t = x * x
            basis = [x ** 3 * t ** j for j in range(DEGREE)]
            y = math.atan(x) - x
            for i in range(DEGREE):
                b[i] += wx * basis[i] * y
                for j in range(DEGREE):
                    a[i][j] += wx * basis[i] * basis[j]
        q = solve(a, b)
        errs = [abs(x + sum(q[j] * x ** 3 * (x * x) ** j for j in range(DEGREE))
                    - math.atan(x)) for x in xs]
        worst = max(errs)
        w = [wx * (e / worst + 1e-3) for wx, e in zip(w, errs)]
        total = sum(w)
        w = [wx / total * len(w) for wx in w]
    print("largest error %.3g" % worst)
    for c in q:
        print("%.9e" % c)


if __name__ == "__main__":
    main()
