"""tests/gc_tap.py: what the Python tests against a real daemon share
(tests/python_test.py and tests/python_agents_test.py, run by
tests/python.test and tests/python-agents.test, which put tests/ on
PYTHONPATH).

TAP: check() and skip() number the checks, run_daemon() prints the plan
last.  run_daemon() owns one daemon's life around a test: started under
the test's unique shared-memory name with stderr to a file, stopped with
SIGTERM (killed after 10 s), its stderr echoed as TAP comments and its
objects in /dev/shm removed even when the test raises; a crash in the test
is a failed check, not a silent exit.
"""
import os
import signal
import subprocess
import sys
import time

import gridcrowd

BUILD = os.environ.get("GC_BUILDDIR", os.environ.get("GC_SRCDIR", "."))

checks = 0
fails = 0


def check(desc, cond, detail=None):
    global checks, fails
    checks += 1
    if cond:
        print("ok %d - %s" % (checks, desc))
    else:
        fails += 1
        print("not ok %d - %s" % (checks, desc))
        if detail is not None:
            print("# " + str(detail).replace("\n", "\n# "))
    sys.stdout.flush()


def skip(why):
    """A check that cannot run here, counted as passed."""
    global checks
    checks += 1
    print("ok %d - # SKIP %s" % (checks, why))
    sys.stdout.flush()


def wait_until(seconds, pred):
    """Whether pred() becomes true within `seconds` (asked every 20 ms)."""
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        if pred():
            return True
        time.sleep(0.02)
    return pred()


def wait_running(name, seconds=20):
    """Whether the world `name` can be attached and says it is running
    within `seconds`: readiness read from the world, not slept for."""
    def ready():
        try:
            with gridcrowd.attach(name) as w:
                return w.status().state == "running"
        except gridcrowd.Error:
            return False
    return wait_until(seconds, ready)


def run_daemon(name, args, test):
    """Start gridcrowdd --shm `name` with `args`, call test(daemon) (a
    subprocess.Popen), stop the daemon and check that it exited cleanly and
    removed its objects.  Prints the plan; returns the exit status."""
    errfile = os.path.join(os.environ.get("TMPDIR", "/tmp"), name + ".err")
    err = open(errfile, "w")
    d = subprocess.Popen(
        [os.path.join(BUILD, "daemon", "gridcrowdd"), "--shm", name] + args,
        stderr=err)
    try:
        test(d)
    except Exception:  # a crash is a failed check, not a silent exit
        import traceback
        check("the test ran to the end", False, traceback.format_exc())
    finally:
        d.send_signal(signal.SIGTERM)
        try:
            d.wait(10)
        except subprocess.TimeoutExpired:
            d.kill()
            d.wait()
        err.close()
        with open(errfile) as f:
            for line in f:
                print("# daemon: " + line.rstrip())
        os.unlink(errfile)
        for n in (name, name + ".edits"):
            try:
                os.unlink("/dev/shm/" + n)
            except FileNotFoundError:
                pass
    check("the daemon exited cleanly and removed its objects",
          d.returncode == 0 and not os.path.exists("/dev/shm/" + name),
          d.returncode)
    print("1..%d" % checks)
    print("# %d checks, %d failed" % (checks, fails))
    return 1 if fails else 0
