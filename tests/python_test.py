"""tests/python_test.py: the gridcrowd Python module against a real daemon.

Run by tests/python.test, which sets GRIDCROWD_LIB (the library of this
build), PYTHONPATH (python/ and tests/) and GC_* like every test.  Prints
TAP.  Starts its own daemon under a name unique to this process, waits for
it by reading the world's state, and removes everything in a finally.

Checks: attach, status, agents (and positions, with and without numpy),
cells against the map file, the published costs, edits with sync and
their effect on the cells and on the agents' plans, an atomic batch, a
refused batch that sends nothing, sync, trace, path and next_step against
the independent Dijkstra of tests/dijkstra.py, and the errors (no such
world, cells off the map or impassable, bad types, a closed handle).
"""
import math
import os
import sys

import gridcrowd
from dijkstra import DEFAULT_COSTS, dijkstra, read_map, step_cost
from gc_tap import check, run_daemon, skip, wait_running, wait_until

SRC = os.environ.get("GC_SRCDIR", ".")
NAME = "gct%d-python" % os.getpid()
MAP = os.path.join(SRC, "maps", "small.map")
COSTS = dict(DEFAULT_COSTS, high=3.0, low=0.25)
TYPES = ["walkable", "obstacle", "high", "low"]


def raises(fn, code_name):
    """The gridcrowd.Error fn raises, if its name is code_name, else None."""
    try:
        fn()
    except gridcrowd.Error as e:
        return e if e.name == code_name else None
    return None


def test(d):
    check("the module loads the library of this build",
          os.path.samefile(gridcrowd.library_path(),
                           os.environ["GRIDCROWD_LIB"]),
          gridcrowd.library_path())
    check("daemon becomes ready (status says running)",
          wait_running(NAME))
    w = gridcrowd.attach(NAME)

    # ---- reading ----
    st = w.status()
    check("status: pid, size, cell size, state",
          (st.pid, st.width, st.height, st.cell_size, st.state)
          == (d.pid, 32, 24, 1.0, "running"), st)
    check("status: 20 agents", st.agents == 20, st)
    ag = w.agents()
    check("agents: 20, distinct ids 0..19",
          sorted(a.id for a in ag) == list(range(20)), ag[:2])
    check("agents: on the map, states named",
          all(0 <= a.x < 32 and 0 <= a.y < 24 and isinstance(a.state, str)
              for a in ag))
    # positions: numpy when installed, a list either way.
    try:
        import numpy  # noqa: F401
        have_np = True
    except ImportError:
        have_np = False
    pos = w.positions()
    if have_np:
        check("positions: a 20 x 2 float32 array",
              getattr(pos, "shape", None) == (20, 2) and
              str(pos.dtype) == "float32", type(pos))
    else:
        skip("numpy is not installed")
    os.environ["GRIDCROWD_NO_NUMPY"] = "1"
    lst = w.positions()
    check("positions without numpy: a list of 20 (x, y)",
          isinstance(lst, list) and len(lst) == 20 and
          all(len(p) == 2 for p in lst))
    cells = w.cells()
    rows = read_map(MAP)
    check("cells: the map the daemon was started with",
          [[TYPES[t] for t in r] for r in cells] == rows)
    del os.environ["GRIDCROWD_NO_NUMPY"]
    if have_np:
        arr = w.cells()
        check("cells with numpy: a 24 x 32 array equal to the list",
              arr.shape == (24, 32) and arr.tolist() == cells)
    costs, rule = w.costs()
    check("costs: the daemon's --cost table and --diag",
          costs == {"walkable": 1.0, "obstacle": math.inf, "high": 3.0,
                    "low": 0.25} and rule == "one-free", (costs, rule))

    # ---- path queries against Dijkstra ----
    def agree(s, t, diag):
        r = read_map_live(w)
        dist = dijkstra(r, COSTS, diag, s)
        want = dist.get(t, math.inf)
        try:
            p = w.path(s, t, diag=diag)
        except gridcrowd.Error as e:
            return not math.isfinite(want) and e.name == "GC_EUNREACHABLE", \
                (e, want)
        if not math.isclose(p.cost, want, rel_tol=1e-9):
            return False, (p.cost, want)
        total = sum(step_cost(r, COSTS, diag, a, b)
                    for a, b in zip(p.cells, p.cells[1:]))
        if p.cells[0] != s or p.cells[-1] != t or \
                not math.isclose(total, want, rel_tol=1e-9):
            return False, ("bad path", p.cells, total)
        n = w.next_step(s, t, diag=diag)
        if s == t:
            return n == s, n
        first = step_cost(r, COSTS, diag, s, n)
        rest = dijkstra(r, COSTS, diag, n).get(t, math.inf)
        return math.isclose(first + rest, want, rel_tol=1e-9), \
            ("next", n, first + rest, want)

    pairs = [((0, 0), (31, 23)), ((31, 0), (0, 22)), ((2, 5), (29, 17)),
             ((9, 6), (9, 6)), ((0, 10), (31, 13))]
    for diag in ("one-free", "no-corner-cut", "never", "always"):
        res = [agree(s, t, diag) for s, t in pairs]
        check("path and next_step = Dijkstra, diag %s" % diag,
              all(ok for ok, _ in res), [x for ok, x in res if not ok])
    p = w.path((0, 0), (31, 23))
    check("path: the daemon's rule by default, the world's generation",
          p.generation == w.generation() and p.expanded > 0)
    ps = w.path((0, 0), (31, 23), smooth=True)
    check("path smooth=True: fewer waypoints, no dearer",
          len(ps.cells) < len(p.cells) and ps.cost <= p.cost + 1e-9)
    check("path radius: an end by the map's edge is refused",
          raises(lambda: w.path((0, 0), (5, 0), radius=0.6), "GC_EBLOCKED"))

    # ---- edits ----
    g0 = w.generation()
    g1 = w.rect(18, 10, 31, 12, "wall", sync=True)
    c = w.cells()
    check("rect with sync: returns the new generation", g1 == g0 + 1,
          (g0, g1))
    check("rect with sync: exactly those cells are walls",
          all((c[y][x] == 1) == ((18 <= x <= 31 and 10 <= y <= 12) or
                                 rows[y][x] == "obstacle")
              for y in range(24) for x in range(32)))
    check("path after the edit = Dijkstra on the new cells",
          agree((20, 0), (20, 23), "one-free")[0])

    # The agents replan around the new wall: soon no remaining waypoint of
    # an agent standing on open ground is inside it.
    st0 = w.status().searches_total

    def replanned():
        live = w.cells()
        seen = 0  # waypoints looked at: none would pass on empty paths
        for a in w.agents():
            cx, cy = int(a.x), int(a.y)
            if live[cy][cx] == 1:
                continue  # walled in where it stood
            for (x, y) in a.path:
                seen += 1
                if live[int(y)][int(x)] == 1:
                    return False
        return seen > 0 and w.status().searches_total > st0
    check("agents replan: no waypoint inside the new wall, more searches",
          wait_until(10, replanned))

    g2 = w.batch([("set", 0, 0, "S"), ("rect", 1, 0, 2, 0, "R"),
                  ("line", 0, 23, 3, 23, "wall")], sync=True)
    c = w.cells()
    check("batch with sync: one generation for three edits", g2 == g1 + 1,
          (g1, g2))
    check("batch: every edit applied",
          c[0][0] == 2 and c[0][1] == 3 and c[0][2] == 3 and
          all(c[23][x] == 1 for x in range(4)))
    e = raises(lambda: w.batch([("set", 5, 5, "S"), ("set", 99, 0, "S")],
                               sync=True), "GC_EOUTSIDE")
    check("batch with a cell off the map: GC_EOUTSIDE, says which",
          e is not None and "set 99 0" in e.message, e)
    check("a refused batch sends nothing",
          w.sync() == g2 and w.cells()[5][5] == c[5][5])
    check("set with sync then line without: sync() sees both",
          w.set(4, 4, "low", sync=True) == g2 + 1 and
          w.line(6, 6, 8, 8, "high") is None and w.sync() >= g2 + 2 and
          w.cells()[7][7] == 2)

    # ---- trace ----
    w.trace(3, sync=True)
    check("trace: the daemon traces the agent asked for",
          wait_until(10, lambda: w.last_trace().agent == 3 and
                     len(w.last_trace().events) > 0))
    w.trace(None, sync=True)

    # ---- errors ----
    e = raises(lambda: gridcrowd.attach(NAME + "-none"), "GC_ENOENT")
    check("attach to no such world: GC_ENOENT with the library's message",
          e is not None and e.code == -4 and "does not exist" in e.message,
          e)
    e = raises(lambda: w.path((0, 0), (40, 3)), "GC_EOUTSIDE")
    check("path to a cell off the map: GC_EOUTSIDE naming the goal",
          e is not None and e.message ==
          "goal (40, 3) is outside the 32x24 map", e)
    e = raises(lambda: w.path((0, 0), (31, 23), diag="no-corner-cut",
                              algo="jps"), "GC_EINVAL")
    check("algo jps on a map of several costs: says why, and what to use",
          e is not None and e.message == "jump point search does not "
          "apply: the passable cell types on the map do not all cost the "
          "same (it needs uniform costs); use algorithm astar or auto", e)
    e = raises(lambda: w.next_step((5, 2), (0, 0)), "GC_EBLOCKED")
    check("next_step from a wall: GC_EBLOCKED naming the start",
          e is not None and e.message == "start (5, 2) is impassable "
          "(obstacle)", e)
    e = raises(lambda: w.path((20, 0), (20, 23), diag="sideways"),
               "GC_EINVAL")
    check("an unknown diagonal rule: GC_EINVAL", e is not None, e)
    e = raises(lambda: w.set(0, 0, "lava"), "GC_EINVAL")
    check("an unknown cell type: GC_EINVAL", e is not None, e)
    e = raises(lambda: w.set(-1, 0, "wall"), "GC_EOUTSIDE")
    check("set off the map: GC_EOUTSIDE", e is not None, e)
    check("Error is an Exception with code, name and message",
          issubclass(gridcrowd.Error, Exception) and e.code < 0 and
          str(e).startswith("GC_EOUTSIDE: "))

    # ---- closing ----
    with gridcrowd.attach(NAME) as w2:
        check("context manager: attached", w2.tick() > 0)
    check("context manager: closed on exit",
          raises(w2.status, "GC_EINVAL") is not None)
    w.close()
    w.close()
    check("close twice is harmless; a closed handle raises",
          raises(lambda: w.path((0, 0), (1, 1)), "GC_EINVAL") is not None)
    check("the daemon is still running", d.poll() is None)


def read_map_live(w):
    c = w.cells()
    return [[TYPES[t] for t in r] for r in
            (c.tolist() if hasattr(c, "tolist") else c)]


def main():
    return run_daemon(
        NAME, ["--map", MAP, "--agents", "20", "--threads", "1", "--quiet",
               "--cost", "high=3", "--cost", "low=0.25", "--diag", "one-free"],
        test)


if __name__ == "__main__":
    sys.exit(main())
