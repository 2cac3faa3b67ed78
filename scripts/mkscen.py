#!/usr/bin/env python3
"""mkscen.py: write a Moving AI scenario file for a map.

    scripts/mkscen.py MAP COUNT SEED > SCEN

Picks COUNT random start/goal pairs (start != goal) among the passable cells
of MAP, reproducibly from SEED, and computes each optimal length with a
plain Dijkstra under the Moving AI rules: every passable cell costs 1 (the
map's cost types are ignored), 8-connected, a straight step costs 1 and a
diagonal step sqrt(2), and a diagonal step is allowed only when both
orthogonal cells beside it are passable (no corner cutting).  Passable cells
are '.', 'G', 'S' and 'R'; '@', 'O', 'T' and 'W' are obstacles (gridcrowd's
legend, which treats water as an obstacle).

The output is "version 1" and one tab-separated line per problem: bucket
(floor(length / 4)), map file name, width, height, start x, start y, goal x,
goal y, length with 8 decimals; lines are sorted by bucket.  This is how
maps/demo.scen was made:

    scripts/mkscen.py maps/demo.map 200 1 > maps/demo.scen

It is deliberately independent of libgridcrowd, so that the C search can be
checked against it.
"""
import heapq
import math
import os
import random
import sys

PASSABLE = set(".GSR")
SQRT2 = math.sqrt(2.0)


def read_map(path):
    with open(path, newline="") as f:
        lines = f.read().splitlines()
    head = {}
    i = 0
    while lines[i] != "map":
        key, value = lines[i].split()
        head[key] = value
        i += 1
    w, h = int(head["width"]), int(head["height"])
    rows = lines[i + 1:i + 1 + h]
    if len(rows) != h or any(len(r) != w for r in rows):
        sys.exit("mkscen: %s: rows do not match %d x %d" % (path, w, h))
    return w, h, rows


def dijkstra(w, h, rows, sx, sy):
    """Optimal length from (sx, sy) to every cell (math.inf if unreachable)."""
    free = lambda x, y: 0 <= x < w and 0 <= y < h and rows[y][x] in PASSABLE
    dist = [[math.inf] * w for _ in range(h)]
    dist[sy][sx] = 0.0
    heap = [(0.0, sx, sy)]
    while heap:
        d, x, y = heapq.heappop(heap)
        if d > dist[y][x]:
            continue
        for dx in (-1, 0, 1):
            for dy in (-1, 0, 1):
                if (dx, dy) == (0, 0) or not free(x + dx, y + dy):
                    continue
                if dx and dy and not (free(x + dx, y) and free(x, y + dy)):
                    continue  # no corner cutting
                nd = d + (SQRT2 if dx and dy else 1.0)
                if nd < dist[y + dy][x + dx]:
                    dist[y + dy][x + dx] = nd
                    heapq.heappush(heap, (nd, x + dx, y + dy))
    return dist


def main():
    if len(sys.argv) != 4:
        sys.exit("usage: mkscen.py MAP COUNT SEED > SCEN")
    path, count, seed = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    w, h, rows = read_map(path)
    cells = [(x, y) for y in range(h) for x in range(w) if rows[y][x] in PASSABLE]
    if len(cells) < 2:
        sys.exit("mkscen: %s: fewer than two passable cells" % path)
    rnd = random.Random(seed)
    problems = []
    while len(problems) < count:
        (sx, sy), (gx, gy) = rnd.sample(cells, 2)
        length = dijkstra(w, h, rows, sx, sy)[gy][gx]
        if math.isinf(length):
            continue  # unreachable: not a problem with an answer
        problems.append((int(length // 4), sx, sy, gx, gy, length))
    problems.sort(key=lambda p: p[0])  # stable: same order within a bucket
    name = os.path.basename(path)
    out = ["version 1"]
    for b, sx, sy, gx, gy, length in problems:
        out.append("%d\t%s\t%d\t%d\t%d\t%d\t%d\t%d\t%.8f"
                   % (b, name, w, h, sx, sy, gx, gy, length))
    sys.stdout.write("\n".join(out) + "\n")


if __name__ == "__main__":
    main()
