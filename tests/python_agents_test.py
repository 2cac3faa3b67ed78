"""tests/python_agents_test.py: the gridcrowd Python module's agent calls
(spawn, remove, goal, follow, speed, radius) against a real daemon
started with --agents 0.  Run by tests/python-agents.test (the same
environment as tests/python.test); prints TAP; starts its own daemon under
a name unique to this process and removes everything in a finally.

Checks: spawn returns a handle that the snapshot shows (slot, salt,
group); goals, follow, speed and radius applied (the agent arrives where
sent, the follower walks to its leader, the snapshot shows the speed and
the radius); every refusal raises Refused with its reason and the library's
code; a removed agent's handle stays stale after its slot is reused;
numbers too large for the C fields are refused rather than wrapped;
trace takes a handle.
"""
import math
import os
import sys

import gridcrowd
from gc_tap import check, run_daemon, wait_running, wait_until

SRC = os.environ.get("GC_SRCDIR", ".")
NAME = "gct%d-pyagents" % os.getpid()
MAP = os.path.join(SRC, "maps", "small.map")


def refused(fn, reason):
    """The Refused fn raises, if its reason is `reason`, else None."""
    try:
        fn()
    except gridcrowd.Refused as e:
        return e if e.reason == reason else None
    return None


def agent(w, h):
    return next((a for a in w.agents() if a.handle == h), None)


def state(w, h):
    """Agent h's state, or None while the snapshot does not show it yet
    (an answer comes when the command is applied, the snapshot a tick
    later)."""
    a = agent(w, h)
    return a.state if a is not None else None


def test():
    check("daemon becomes ready with no agents", wait_running(NAME))
    w = gridcrowd.attach(NAME)
    check("no agents", w.agents() == [])

    a = w.spawn(1.5, 0.5, radius=0.3, group=7)
    check("spawn returns a handle", isinstance(a, int) and a > 0, a)
    check("the snapshot shows it: slot, salt, group",
          wait_until(5, lambda: agent(w, a) is not None) and
          (agent(w, a).id, agent(w, a).salt, agent(w, a).group) == (0, 1, 7),
          agent(w, a))
    b = w.spawn(6.5, 0.5, goal=(12.5, 6.5), speed=3.0)
    check("spawn with a goal: the agent gets there",
          wait_until(15, lambda: state(w, b) == "arrived"),
          agent(w, b))
    g = agent(w, b).goal
    check("in its goal cell", g == (12, 6), g)

    w.goal(a, (1.5, 6.5), sync=True)
    check("goal (x, y): arrives",
          wait_until(15, lambda: state(w, a) == "arrived"), agent(w, a))
    w.goal(a, "wander", sync=True)
    w.goal(a, "stop", sync=True)
    check("goal stop: idle",
          wait_until(5, lambda: state(w, a) == "idle"), agent(w, a))
    w.radius(a, 0.25, sync=True)
    check("radius applied: the snapshot shows 0.25",
          wait_until(5, lambda: agent(w, a).radius == 0.25), agent(w, a))
    # b (spawned at speed 3) waits at (12.5, 6.5), 11 cells from a:
    # following at speed 2, it walks to within its distance (2) of a, its
    # body's edge to a's.
    w.speed(b, 2.0, sync=True)
    w.follow(b, a, distance=2.0, sync=True)
    speeds = set()

    def near_a():
        pa, pb = agent(w, a), agent(w, b)
        if pb.state == "moving":
            speeds.add(pb.speed)
        return math.hypot(pb.x - pa.x, pb.y - pa.y) < 4.0
    check("follow applied: b walks from 11 cells away to within 4 of a",
          not near_a() and wait_until(15, near_a), (agent(w, a),
                                                    agent(w, b)))
    check("speed applied: b walked at 2", speeds == {2.0}, speeds)

    for desc, fn, reason in [
            ("spawn in a wall", lambda: w.spawn(5.5, 4.5), "blocked"),
            ("spawn off the map", lambda: w.spawn(40, 1), "out_of_bounds"),
            ("spawn on a body", lambda: w.spawn(
                agent(w, a).x, agent(w, a).y, radius=0.3), "overlap"),
            ("spawn with a NaN", lambda: w.spawn(float("nan"), 1),
             "bad_value"),
            ("a goal in a wall", lambda: w.goal(a, (5.5, 4.5), sync=True),
             "blocked"),
            ("speed 0", lambda: w.speed(a, 0, sync=True), "bad_value"),
            ("radius 100", lambda: w.radius(a, 100, sync=True), "bad_value"),
            ("follow itself", lambda: w.follow(a, a, sync=True),
             "bad_agent")]:
        e = refused(fn, reason)
        check("%s: Refused, %s" % (desc, reason), e is not None)

    # The answer does not say which point was refused; the message must.
    e = refused(lambda: w.spawn(2.5, 8.5, goal=(5.5, 4.5)), "blocked")
    check("a goal in a wall: the message names the goal",
          e is not None and "goal (5.5, 4.5) is in impassable cell (5, 4)"
          in str(e), e)
    e = refused(lambda: w.spawn(2.5, 8.5, goal=(99, 2)), "out_of_bounds")
    check("a goal off the map: the message names the goal",
          e is not None and "goal (99, 2) is off the 32x24 map" in str(e), e)
    e = refused(lambda: w.spawn(5.5, 4.5, goal=(2.5, 8.5)), "blocked")
    check("a start in a wall: the message names the position",
          e is not None and "position (5.5, 4.5) is in impassable" in str(e),
          e)

    e = refused(lambda: w.spawn(5.5, 4.5), "blocked")
    check("Refused carries the code and its name",
          e is not None and e.code == -9 and e.name == "GC_EBLOCKED" and
          isinstance(e, gridcrowd.Error), e)

    w.remove(a, sync=True)
    check("removed: gone from the snapshot",
          wait_until(5, lambda: agent(w, a) is None))
    check("remove again: stale_agent",
          refused(lambda: w.remove(a, sync=True), "stale_agent") is not None)
    c = w.spawn(1.5, 0.5)
    check("the slot is reused with a new handle",
          c & 0xFFFFF == a & 0xFFFFF and c != a, (a, c))
    check("the old handle stays stale",
          refused(lambda: w.goal(a, "stop", sync=True),
                  "stale_agent") is not None)
    check("the new one works", w.goal(c, "stop", sync=True) is None)

    # Numbers a 32-bit field cannot hold are refused, not wrapped: 2**32
    # plus a live handle removed that agent, and a negative timeout waited
    # for ever.
    def error_code(fn):
        try:
            fn()
        except gridcrowd.Refused:
            return "refused"
        except gridcrowd.Error as e:
            return e.code
        return None
    check("remove(2**32 + handle): Error GC_EINVAL, the agent stays",
          error_code(lambda: w.remove(2 ** 32 + c, sync=True)) == -2 and
          agent(w, c) is not None, agent(w, c))
    check("spawn(group=-1): Error GC_ERANGE",
          error_code(lambda: w.spawn(1.5, 2.5, group=-1)) == -6)
    check("spawn(goal=()): Error GC_EINVAL, nothing spawned",
          error_code(lambda: w.spawn(1.5, 2.5, goal=())) == -2 and
          len(w.agents()) == 2, w.agents())
    check("set(2**32 + 1, 1): Error GC_EOUTSIDE",
          error_code(lambda: w.set(2 ** 32 + 1, 1, "walkable")) == -8)
    check("set(1, 1, 2**32): unknown cell type",
          error_code(lambda: w.set(1, 1, 2 ** 32)) == -2)
    check("path((2**32 + 1, 1), ...): Error GC_EOUTSIDE",
          error_code(lambda: w.path((2 ** 32 + 1, 1), (2, 2))) == -8)
    check("timeout -1: Error GC_ERANGE, the old one kept",
          error_code(lambda: setattr(w, "timeout", -1)) == -6 and
          w.timeout == 10.0, w.timeout)
    check("attach with a NUL in the name: Error GC_EINVAL",
          error_code(lambda: gridcrowd.attach(NAME + "\0junk")) == -2)
    # trace takes the handles spawn returns, as every agent call does.
    w.trace(c, sync=True)
    w.goal(c, (12.5, 6.5), sync=True)  # (a search to trace)
    check("trace(handle): traces its slot",
          wait_until(5, lambda: w.last_trace().agent == c & 0xFFFFF),
          w.last_trace().agent)
    w.trace(None, sync=True)
    w.close()


def main():
    return run_daemon(
        NAME, ["--map", MAP, "--agents", "0", "--threads", "1", "--quiet"],
        lambda d: test())


if __name__ == "__main__":
    sys.exit(main())
