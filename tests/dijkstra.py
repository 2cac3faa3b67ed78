#!/usr/bin/env python3
"""tests/dijkstra.py: an independent Dijkstra for the path-query tests.

Written from the rules in gridcrowd/astar.h and grid.h, sharing no code
with the library: a step costs its length (1, or sqrt 2 diagonally) times
the cost of the cell entered; a diagonal step obeys the rule (no-corner-cut:
both orthogonal neighbours passable; never; one-free: at least one; always).

As a module: dijkstra(rows, costs, rule, start) -> {(x, y): cost}.
As a program, for the shell tests:

    dijkstra.py MAPFILE RULE X0 Y0 X1 Y1 [walkable high low]

prints the cost of the best path ("inf" when none) with 9 decimals, then
the best cost from each neighbour of (X0, Y0) to (X1, Y1) plus its step
("X Y TOTAL", one a line), so that a test can check that a next step starts
an optimal path.
"""
import heapq
import math
import sys

GLYPH_TYPE = {'.': 'walkable', 'G': 'walkable', '@': 'obstacle',
              'O': 'obstacle', 'T': 'obstacle', 'W': 'obstacle',
              'S': 'high', 'R': 'low'}
DEFAULT_COSTS = {'walkable': 1.0, 'high': 2.0, 'low': 0.5,
                 'obstacle': math.inf}


def read_map(path):
    """Rows of type names from a Moving AI map file (or its text)."""
    with open(path) as f:
        return parse_map(f.read())


def parse_map(text):
    lines = text.splitlines()
    i = lines.index('map')
    return [[GLYPH_TYPE[c] for c in line] for line in lines[i + 1:] if line]


def _cost(rows, costs, x, y):
    if y < 0 or y >= len(rows) or x < 0 or x >= len(rows[0]):
        return math.inf
    c = costs.get(rows[y][x], math.inf)
    return c if c > 0 and math.isfinite(c) else math.inf


def step_cost(rows, costs, rule, a, b):
    """Cost of the move a -> b (adjacent), math.inf when not legal."""
    (ax, ay), (bx, by) = a, b
    dx, dy = bx - ax, by - ay
    c = _cost(rows, costs, bx, by)
    if not math.isfinite(c) or max(abs(dx), abs(dy)) != 1:
        return math.inf
    if dx and dy:
        p = math.isfinite(_cost(rows, costs, ax + dx, ay))
        q = math.isfinite(_cost(rows, costs, ax, ay + dy))
        if rule == 'never' or (rule == 'no-corner-cut' and not (p and q)) \
                or (rule == 'one-free' and not (p or q)):
            return math.inf
        return math.sqrt(2.0) * c
    return c


def dijkstra(rows, costs, rule, start):
    dist = {start: 0.0}
    heap = [(0.0, start)]
    while heap:
        d, (x, y) = heapq.heappop(heap)
        if d > dist[(x, y)]:
            continue
        for dx in (-1, 0, 1):
            for dy in (-1, 0, 1):
                if dx == 0 and dy == 0:
                    continue
                n = (x + dx, y + dy)
                c = step_cost(rows, costs, rule, (x, y), n)
                if math.isfinite(c) and d + c < dist.get(n, math.inf):
                    dist[n] = d + c
                    heapq.heappush(heap, (d + c, n))
    return dist


def main(argv):
    rows = read_map(argv[1])
    rule = argv[2]
    x0, y0, x1, y1 = map(int, argv[3:7])
    costs = dict(DEFAULT_COSTS)
    if len(argv) > 7:
        costs.update(walkable=float(argv[7]), high=float(argv[8]),
                     low=float(argv[9]))
    best = dijkstra(rows, costs, rule, (x0, y0)).get((x1, y1), math.inf)
    print('%.9f' % best if math.isfinite(best) else 'inf')
    for dx in (-1, 0, 1):
        for dy in (-1, 0, 1):
            n = (x0 + dx, y0 + dy)
            c = step_cost(rows, costs, rule, (x0, y0), n)
            if (dx or dy) and math.isfinite(c):
                rest = dijkstra(rows, costs, rule, n).get((x1, y1), math.inf)
                if math.isfinite(rest):
                    print('%d %d %.9f' % (n[0], n[1], c + rest))
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv))
