"""gridcrowd: drive a running gridcrowd daemon from Python.

A thin layer over the C library (libgridcrowd) with ctypes only, for
Debian's python3; numpy is optional (World.positions() returns an array
when it is installed, a list of tuples otherwise).

    import gridcrowd
    with gridcrowd.attach("gridcrowd") as w:
        print(w.status())
        w.rect(3, 3, 8, 5, "wall", sync=True)
        for a in w.agents():
            print(a.id, a.x, a.y, a.state)
        p = w.path((0, 0), (31, 23), diag="one-free")
        print(p.cost, p.cells)

Everything runs in this process: reading the world copies it with the
library's torn-read-safe readers, edits go through the edit queue (the one
object a tool may write), and path queries search a copy of the live cells
here, never in the daemon's tick (gridcrowd/query.h).  Errors are
gridcrowd.Error, carrying the library's code, its symbolic name and the
message of gc_strerror or of the call's gc_error.

Which library is loaded: the file named by $GRIDCROWD_LIB; else, when this
module sits in a build tree (python/gridcrowd/ next to .libs/), the library
built there; else the installed one (the libdir recorded at build time,
then ctypes.util.find_library).
"""

import collections
import ctypes
import ctypes.util
import math
import operator
import os

__all__ = ["Error", "Refused", "World", "Agent", "Path", "Status", "attach",
           "library_path"]

# ---- Loading the library ------------------------------------------------


def _candidates():
    env = os.environ.get("GRIDCROWD_LIB")
    if env:
        return [env]
    here = os.path.dirname(os.path.abspath(__file__))
    out = []
    # The build layout: <top>/python/gridcrowd/__init__.py and
    # <top>/.libs/libgridcrowd.so (libtool's uninstalled library).
    top = os.path.dirname(os.path.dirname(here))
    built = os.path.join(top, ".libs", "libgridcrowd.so")
    if os.path.exists(built) and os.path.exists(
            os.path.join(top, "libgridcrowd.la")):
        out.append(built)
    try:
        from gridcrowd import _paths  # written by `make` (python/local.mk)
        out.append(os.path.join(_paths.LIBDIR, "libgridcrowd.so"))
    except ImportError:
        pass
    found = ctypes.util.find_library("gridcrowd")
    if found:
        out.append(found)
    out.append("libgridcrowd.so")
    return out


def _load():
    errors = []
    for path in _candidates():
        try:
            return ctypes.CDLL(path), path
        except OSError as e:
            errors.append(str(e))
    raise ImportError("gridcrowd: cannot load libgridcrowd (set "
                      "GRIDCROWD_LIB): " + "; ".join(errors))


_lib, _lib_path = _load()


def library_path():
    """The file the C library was loaded from."""
    return _lib_path


# ---- C types ------------------------------------------------------------

_u8, _u32, _i32, _u64 = (ctypes.c_uint8, ctypes.c_uint32, ctypes.c_int32,
                         ctypes.c_uint64)
_f, _d, _b, _sz = ctypes.c_float, ctypes.c_double, ctypes.c_bool, \
    ctypes.c_size_t
_p = ctypes.c_void_p


class _GcError(ctypes.Structure):
    _fields_ = [("code", ctypes.c_int), ("line", ctypes.c_int),
                ("col", ctypes.c_int), ("msg", ctypes.c_char * 512)]


class _Cell(ctypes.Structure):
    _fields_ = [("x", _i32), ("y", _i32)]


class _Vec2(ctypes.Structure):
    _fields_ = [("x", _f), ("y", _f)]


class _Agent(ctypes.Structure):
    _fields_ = [("id", _u32), ("salt", _u32), ("x", _f), ("y", _f),
                ("heading", _f), ("speed", _f), ("goal_x", _i32),
                ("goal_y", _i32), ("path_len", _u32), ("state", _u8),
                ("pad", _u8 * 3), ("path", _Vec2 * 8),
                ("radius", _f), ("vx", _f), ("vy", _f),
                ("group", _u32), ("reserved", _u32 * 2)]


class _Stats(ctypes.Structure):
    _fields_ = [("tick", _u64), ("uptime_ns", _u64), ("ticks_per_s", _d),
                ("agents", _u64 * 8), ("searches_total", _u64),
                ("searches_per_s", _d), ("search_us_mean", _d),
                ("search_us_p99", _d), ("expanded_mean", _d),
                ("overruns", _u64), ("edits_accepted", _u64),
                ("edits_rejected", _u64), ("reserved", _u64 * 13)]


class _Path(ctypes.Structure):
    _fields_ = [("cells", ctypes.POINTER(_Cell)), ("len", _sz), ("cap", _sz)]


class _AstarOpts(ctypes.Structure):
    _fields_ = [("diag", ctypes.c_int), ("heuristic", ctypes.c_int),
                ("weight", _d), ("max_expansions", _u64), ("partial", _b),
                ("smooth", _b), ("radius", _f), ("nav", _p), ("trace", _p),
                ("algo", ctypes.c_int)]


class _AstarStats(ctypes.Structure):
    _fields_ = [("status", ctypes.c_int), ("found", _b), ("partial", _b),
                ("cost", _d), ("expanded", _u64), ("opened", _u64),
                ("scanned", _u64), ("ns", _u64), ("algo", ctypes.c_int)]


class _Edit(ctypes.Structure):
    _fields_ = [("op", _u32), ("type", _u32), ("x0", _i32), ("y0", _i32),
                ("x1", _i32), ("y1", _i32), ("batch", _u32),
                ("sender_pid", _u32), ("client_token", _u64),
                ("claim_ns", _u64), ("position", _u64),
                ("agent", _u32), ("target", _u32), ("group", _u32),
                ("flags", _u32), ("px", _f), ("py", _f), ("gx", _f),
                ("gy", _f), ("radius", _f), ("speed", _f), ("dist", _f)]


class _Answer(ctypes.Structure):
    _fields_ = [("position", _u64), ("token", _u64), ("tick", _u64),
                ("sender_pid", _u32), ("op", _u32), ("code", ctypes.c_int32),
                ("reason", ctypes.c_int32), ("handle", _u32)]


class _SpawnSpec(ctypes.Structure):
    # gc_spawn_spec whole (sim.h): turn_rate and wander_radius were left
    # out, a struct 8 bytes shorter than the one the library is handed.
    _fields_ = [("x", _f), ("y", _f), ("has_goal", _b), ("goal_x", _f),
                ("goal_y", _f), ("radius", _f), ("speed", _f),
                ("group", _u32), ("turn_rate", _f), ("wander_radius", _f)]


class _EditSent(ctypes.Structure):
    _fields_ = [("sent", _sz), ("batch", _u32), ("wait_for", _u64)]


class _TraceInfo(ctypes.Structure):
    _fields_ = [("seq", _u64), ("tick", _u64), ("agent", _u32),
                ("salt", _u32), ("count", _sz), ("truncated", _b)]


class _TraceEvent(ctypes.Structure):
    _fields_ = [("cell", _u32), ("kind", _u8), ("pad", _u8 * 3)]


# The layout is the C library's: check the sizes it documents so that a
# mismatch fails at import, not as garbage later.
assert ctypes.sizeof(_Agent) == 128 and ctypes.sizeof(_Stats) == 256
assert ctypes.sizeof(_Edit) == 104 and ctypes.sizeof(_GcError) == 524
assert ctypes.sizeof(_Answer) == 48 and ctypes.sizeof(_SpawnSpec) == 40


def _fn(name, res, *args):
    f = getattr(_lib, name)
    f.restype = res
    f.argtypes = list(args)
    return f


_E = ctypes.POINTER(_GcError)
_gc_strerror = _fn("gc_strerror", ctypes.c_char_p, ctypes.c_int)
_gc_err_name = _fn("gc_err_name", ctypes.c_char_p, ctypes.c_int)
_attach = _fn("gc_world_attach", ctypes.c_int, ctypes.POINTER(_p),
              ctypes.c_char_p, ctypes.c_uint, _E)
_close = _fn("gc_world_close", None, _p)
_w_name = _fn("gc_world_name", ctypes.c_char_p, _p)
_w_width = _fn("gc_world_width", _i32, _p)
_w_height = _fn("gc_world_height", _i32, _p)
_w_cell_size = _fn("gc_world_cell_size", _f, _p)
_w_capacity = _fn("gc_world_agent_capacity", _u32, _p)
_w_trace_cap = _fn("gc_world_trace_capacity", _u32, _p)
_w_pid = _fn("gc_world_pid", ctypes.c_int, _p)
_w_state = _fn("gc_world_state", ctypes.c_uint, _p)
_w_state_name = _fn("gc_world_state_name", ctypes.c_char_p, ctypes.c_uint)
_w_tick = _fn("gc_world_tick", _u64, _p)
_w_generation = _fn("gc_world_generation", _u64, _p)
_w_agent_count = _fn("gc_world_agent_count", _u32, _p)
_w_owner_alive = _fn("gc_world_owner_alive", _b, _p)
_w_costs = _fn("gc_world_costs", _b, _p, ctypes.POINTER(_f),
               ctypes.POINTER(ctypes.c_int))
_w_edit_counts = _fn("gc_world_edit_counts", None, _p,
                     ctypes.POINTER(_u64), ctypes.POINTER(_u64),
                     ctypes.POINTER(_u64))
_w_read_stats = _fn("gc_world_read_stats", ctypes.c_int, _p,
                    ctypes.POINTER(_Stats))
_w_read_agents = _fn("gc_world_read_agents_at", ctypes.c_int, _p,
                     ctypes.POINTER(_Agent), _sz, ctypes.POINTER(_sz),
                     ctypes.POINTER(_u64), ctypes.POINTER(_u64))
_w_read_cells = _fn("gc_world_read_cells", ctypes.c_int, _p,
                    ctypes.POINTER(_u8), ctypes.POINTER(_u64))
_w_read_trace = _fn("gc_world_read_trace", ctypes.c_int, _p,
                    ctypes.POINTER(_TraceInfo), ctypes.POINTER(_TraceEvent),
                    _sz)
_w_queue = _fn("gc_world_queue", _p, _p)
_q_tail = _fn("gc_queue_tail", _u64, _p)
_agent_state_name = _fn("gc_agent_state_name", ctypes.c_char_p, ctypes.c_int)
_type_parse = _fn("gc_cell_type_parse", ctypes.c_int, ctypes.c_char_p)
_type_name = _fn("gc_cell_type_name", ctypes.c_char_p, ctypes.c_int)
_diag_parse = _fn("gc_diag_rule_parse", ctypes.c_int, ctypes.c_char_p)
_diag_name = _fn("gc_diag_rule_name", ctypes.c_char_p, ctypes.c_int)
_heur_parse = _fn("gc_heuristic_parse", ctypes.c_int, ctypes.c_char_p)
_algo_parse = _fn("gc_algo_parse", ctypes.c_int, ctypes.c_char_p)
_algo_name = _fn("gc_algo_name", ctypes.c_char_p, ctypes.c_int)
_edit_check = _fn("gc_edit_check", ctypes.c_int, ctypes.POINTER(_Edit),
                  _i32, _i32, ctypes.POINTER(ctypes.c_char_p))
_edit_send = _fn("gc_edit_send", ctypes.c_int, _p, ctypes.POINTER(_Edit),
                 _sz, ctypes.c_uint, _u64, ctypes.POINTER(_EditSent))
_edit_wait = _fn("gc_edit_wait", ctypes.c_int, _p, _u64, _u64)
_path_free = _fn("gc_path_free", None, ctypes.POINTER(_Path))
_query_new = _fn("gc_query_new", ctypes.c_int, ctypes.POINTER(_p), _p, _E)
_query_free = _fn("gc_query_free", None, _p)
_query_opts_init = _fn("gc_query_opts_init", None, _p,
                       ctypes.POINTER(_AstarOpts))
_query_path = _fn("gc_query_path", ctypes.c_int, _p, _Cell, _Cell,
                  ctypes.POINTER(_AstarOpts), ctypes.POINTER(_Path),
                  ctypes.POINTER(_AstarStats), _E)
_query_next = _fn("gc_query_next_step", ctypes.c_int, _p, _Cell, _Cell,
                  ctypes.POINTER(_AstarOpts), ctypes.POINTER(_Cell),
                  ctypes.POINTER(_AstarStats), _E)
_query_generation = _fn("gc_query_generation", _u64, _p)
_A = ctypes.POINTER(_Answer)
_ag_spawn = _fn("gc_edit_spawn", ctypes.c_int, _p, ctypes.POINTER(_SpawnSpec),
                _u64, ctypes.POINTER(_u32), _A)
_ag_remove = _fn("gc_edit_remove", ctypes.c_int, _p, _u32, _u64, _A)
_ag_point = _fn("gc_edit_goal_point", ctypes.c_int, _p, _u32, _f, _f, _u64,
                _A)
_ag_wander = _fn("gc_edit_goal_wander", ctypes.c_int, _p, _u32, _u64, _A)
_ag_stop = _fn("gc_edit_goal_stop", ctypes.c_int, _p, _u32, _u64, _A)
_ag_follow = _fn("gc_edit_goal_follow", ctypes.c_int, _p, _u32, _u32, _f,
                 _u64, _A)
_ag_speed = _fn("gc_edit_speed", ctypes.c_int, _p, _u32, _f, _u64, _A)
_ag_radius = _fn("gc_edit_radius", ctypes.c_int, _p, _u32, _f, _u64, _A)
_reason_name = _fn("gc_edit_reason_name", ctypes.c_char_p, ctypes.c_int)
_spawn_why = _fn("gc_edit_spawn_why", ctypes.c_char_p, _p,
                 ctypes.POINTER(_SpawnSpec), ctypes.c_int, ctypes.c_char_p,
                 ctypes.c_size_t)

# Constants of the C headers (edits.h, world.h, error.h).
_EDIT_SET, _EDIT_RECT, _EDIT_LINE, _EDIT_TRACE = 1, 2, 3, 5
_EDIT_SEND_EACH = 1
_NO_AGENT = 0xFFFFFFFF
_WORLD_ATTACH_QUEUE = 1
_GC_EINVAL, _GC_ERANGE, _GC_EOUTSIDE, _GC_EPERM = -2, -6, -8, -15
_INDEX_BITS = 20  # a handle: slot in the low bits, salt (>= 1) above

# ---- Errors -------------------------------------------------------------


class Error(Exception):
    """A library error: .code (negative gc_err), .name ("GC_EBLOCKED")
    and .message (the call's own message, or gc_strerror's)."""

    def __init__(self, code, message=None):
        self.code = code
        self.name = _gc_err_name(code).decode()
        self.message = message or _gc_strerror(code).decode()
        super().__init__("%s: %s" % (self.name, self.message))


class Refused(Error):
    """The daemon (or the library's check, for a command it would refuse)
    refused an agent command: .reason names why ("stale_agent",
    "blocked", "overlap", "capacity"...), .code is the library's code."""

    def __init__(self, code, reason, what=None, detail=None):
        self.reason = reason
        if detail is None:
            detail = _gc_strerror(code).decode()
        msg = "refused: %s (%s)" % (reason, detail)
        super().__init__(code, "%s: %s" % (what, msg) if what else msg)


def _raise(code, err=None, what=None):
    msg = err.msg.decode(errors="replace") if err is not None and \
        err.msg[:1] != b"" else _gc_strerror(code).decode()
    raise Error(code, "%s: %s" % (what, msg) if what else msg)


# ---- Results ------------------------------------------------------------

Agent = collections.namedtuple(
    "Agent", "id salt x y heading speed state goal path_len path group "
    "handle radius vx vy")
Agent.__doc__ = """One agent of the snapshot: position (x, y) and path in
world units, heading in radians, state a name ("moving"), goal a cell
(x, y), path the first waypoints remaining (at most 8) as (x, y); group
as spawned, and handle, what spawn() returned for it (slot id and salt);
radius the body's and (vx, vy) the last tick's velocity, world units (0
for path followers, --avoid none)."""

Status = collections.namedtuple(
    "Status", "name pid state width height cell_size tick generation "
    "agents agents_by_state ticks_per_s searches_total edits_accepted "
    "edits_rejected edits_pending")
Status.__doc__ = """The daemon's header and last published statistics.
state is "starting", "running" or "stopping" as the daemon set it, or
"dead" when its process is gone (killed) and its world was left behind;
agents_by_state maps state names to counts (states with none left out),
ticks_per_s and searches_total are the last figures it published."""

Path = collections.namedtuple(
    "Path", "cells cost expanded opened algo generation")
Path.__doc__ = """A path query's answer: cells [(x, y), ...] from start
to goal, its cost, cells expanded and opened, the algorithm that ran and
the world generation of the cells it searched."""

TraceEvent = collections.namedtuple("TraceEvent", "x y kind")
Trace = collections.namedtuple("Trace", "seq tick agent salt truncated events")

_TRACE_KINDS = {1: "open", 2: "close", 3: "path"}


_I32 = (-2 ** 31, 2 ** 31 - 1)
_U32 = (0, 2 ** 32 - 1)


def _int_in(v, bounds, code, fmt, *args):
    """v as an int inside bounds (inclusive), else Error(code, fmt % args):
    the C fields are 32 bits, and ctypes would wrap a larger number
    silently (2**32 + x set cell x, and removed another agent's handle)."""
    i = operator.index(v)
    if not bounds[0] <= i <= bounds[1]:
        raise Error(code, fmt % args)
    return i


def _cell_type(t):
    if isinstance(t, int):
        if not 0 <= t <= 255 or _type_name(t) is None:
            raise Error(_GC_EINVAL, "unknown cell type %d" % t)
        return t
    v = _type_parse(str(t).encode())
    if v < 0:
        raise Error(_GC_EINVAL, "unknown cell type %r (walkable, obstacle, "
                    "high, low, or a map glyph)" % (t,))
    return v


def _numpy():
    if os.environ.get("GRIDCROWD_NO_NUMPY"):
        return None
    try:
        import numpy
        return numpy
    except ImportError:
        return None


# ---- The world ----------------------------------------------------------


class World:
    """A handle on a running daemon's world (see attach).  Not shared
    between threads: open one per thread."""

    def __init__(self, name=None, timeout=10.0):
        self._w = None
        self._q = None
        self.timeout = timeout
        self._w = _p()
        err = _GcError()
        if name is not None and "\0" in name:
            raise Error(_GC_EINVAL, "shared-memory name %r holds a NUL "
                        "byte" % (name,))
        bname = None if name is None else name.encode()
        rc = _attach(ctypes.byref(self._w), bname, _WORLD_ATTACH_QUEUE,
                     ctypes.byref(err))
        if rc == _GC_EPERM:
            # A reader who may not write the queue can still look and ask
            # for paths; edits then fail with their own message.
            rc = _attach(ctypes.byref(self._w), bname, 0, ctypes.byref(err))
        if rc != 0:
            self._w = None
            _raise(rc, err)
        self.name = _w_name(self._w).decode()
        self.width = _w_width(self._w)
        self.height = _w_height(self._w)
        self.cell_size = _w_cell_size(self._w)
        self.capacity = _w_capacity(self._w)

    @property
    def timeout(self):
        """Seconds to wait for room in the queue and for sync: finite,
        0 or more (a negative one waited for ever)."""
        return self._timeout

    @timeout.setter
    def timeout(self, t):
        t = float(t)
        if not (math.isfinite(t) and t >= 0):
            raise Error(_GC_ERANGE, "timeout %r: expected a finite number of "
                        "seconds, 0 or more" % (t,))
        self._timeout = t

    # -- life --

    def close(self):
        """Detach (the daemon and its world stay).  Idempotent."""
        if self._q:
            _query_free(self._q)
            self._q = None
        if self._w:
            _close(self._w)
            self._w = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
        return False

    def __del__(self):
        try:
            self.close()
        except Exception:
            pass

    def _h(self):
        if not self._w:
            raise Error(_GC_EINVAL, "the world is closed")
        return self._w

    # -- reading --

    def status(self):
        """The header and the last published statistics, as a Status."""
        w = self._h()
        st = _Stats()
        rc = _w_read_stats(w, ctypes.byref(st))
        if rc != 0:
            _raise(rc, what="reading the statistics")
        acc, rej, pen = _u64(), _u64(), _u64()
        _w_edit_counts(w, ctypes.byref(acc), ctypes.byref(rej),
                       ctypes.byref(pen))
        by_state = {}
        for s in range(6):
            if st.agents[s]:
                by_state[_agent_state_name(s).decode()] = st.agents[s]
        # A daemon killed outright leaves its world saying "running".
        state = (_w_state_name(_w_state(w)).decode()
                 if _w_owner_alive(w) else "dead")
        return Status(self.name, _w_pid(w), state,
                      self.width, self.height, self.cell_size, _w_tick(w),
                      _w_generation(w), _w_agent_count(w), by_state,
                      st.ticks_per_s, st.searches_total, acc.value,
                      rej.value, pen.value)

    def tick(self):
        return _w_tick(self._h())

    def generation(self):
        """The grid generation: +1 per batch of cell changes."""
        return _w_generation(self._h())

    def alive(self):
        """Whether the daemon still owns this world."""
        return bool(_w_owner_alive(self._h()))

    def costs(self):
        """The daemon's cost table {type name: cost} and diagonal rule."""
        c = (_f * 4)()
        d = ctypes.c_int()
        _w_costs(self._h(), c, ctypes.byref(d))
        return ({_type_name(t).decode(): c[t] for t in range(4)},
                _diag_name(d.value).decode())

    def _read_agents(self):
        cap = max(self.capacity, 1)
        buf = (_Agent * cap)()
        n, seq, tick = _sz(), _u64(), _u64()
        rc = _w_read_agents(self._h(), buf, cap, ctypes.byref(n),
                            ctypes.byref(seq), ctypes.byref(tick))
        if rc != 0:
            _raise(rc, what="reading the agents")
        return buf, n.value, tick.value

    def agents(self):
        """The latest agent snapshot, a list of Agent.

        The daemon writes one every tick while a reader (this World among
        them) is attached, and four times a second while none is: the
        first snapshot after attaching may be up to 0.25 s old.
        """
        buf, n, _ = self._read_agents()
        out = []
        for a in buf[:n]:
            k = min(a.path_len, 8)
            out.append(Agent(a.id, a.salt, a.x, a.y, a.heading, a.speed,
                             _agent_state_name(a.state).decode(),
                             (a.goal_x, a.goal_y), a.path_len,
                             [(a.path[i].x, a.path[i].y) for i in range(k)],
                             a.group, (a.salt << 20) | a.id, a.radius,
                             a.vx, a.vy))
        return out

    def positions(self):
        """Agent positions (world units): an n x 2 float32 numpy array when
        numpy is installed, else a list of (x, y)."""
        buf, n, _ = self._read_agents()
        np = _numpy()
        if np is not None:
            # One copy out of the ctypes buffer, then the x, y columns.
            rec = np.frombuffer(buf, dtype=np.uint8,
                                count=n * 128).reshape(n, 128)
            return rec[:, 8:16].copy().view(np.float32).reshape(n, 2)
        return [(a.x, a.y) for a in buf[:n]]

    def cells(self):
        """The live cells: a list of rows of type numbers (a height x width
        uint8 numpy array when numpy is installed)."""
        w, h = self.width, self.height
        buf = (_u8 * (w * h))()
        rc = _w_read_cells(self._h(), buf, None)
        if rc != 0:
            _raise(rc, what="reading the cells")
        np = _numpy()
        if np is not None:
            return np.frombuffer(buf, dtype=np.uint8).reshape(h, w).copy()
        raw = bytes(buf)
        return [list(raw[y * w:(y + 1) * w]) for y in range(h)]

    def cell(self, x, y):
        """The type number of one cell (0 walkable, 1 obstacle, 2 high,
        3 low)."""
        if not (0 <= x < self.width and 0 <= y < self.height):
            raise Error(_GC_EOUTSIDE, "cell (%d, %d) is outside the %dx%d map"
                        % (x, y, self.width, self.height))
        row = self.cells()[y]
        return int(row[x])

    # -- edits --

    def _edit(self, op, x0, y0, x1=0, y1=0, t=0):
        for v in (x0, y0, x1, y1):
            _int_in(v, _I32, _GC_EOUTSIDE, "cell coordinate %d is outside "
                    "the %dx%d map", v, self.width, self.height)
        e = _Edit(op=op, type=t, x0=x0, y0=y0, x1=x1, y1=y1)
        why = ctypes.c_char_p()
        rc = _edit_check(ctypes.byref(e), self.width, self.height,
                         ctypes.byref(why))
        if rc != 0:
            names = {_EDIT_SET: "set", _EDIT_RECT: "rect",
                     _EDIT_LINE: "line"}
            what = "%s %s" % (names.get(op, "edit"), " ".join(
                str(v) for v in ((x0, y0) if op == _EDIT_SET
                                 else (x0, y0, x1, y1))))
            why = why.value.decode() if why.value else "?"
            if rc == _GC_EOUTSIDE:
                raise Error(rc, "%s: outside the %dx%d map (%s)"
                            % (what, self.width, self.height, why))
            raise Error(rc, "%s: %s (%s)" % (what, _gc_strerror(rc).decode(),
                                             why))
        return e

    def _send(self, edits, sync, each=False):
        arr = (_Edit * len(edits))(*edits)
        sent = _EditSent()
        q = _w_queue(self._h())
        if not q:
            raise Error(_GC_EPERM, "no write access to the edit queue of %s"
                        % self.name)
        rc = _edit_send(q, arr, len(edits), _EDIT_SEND_EACH if each else 0,
                        int(self.timeout * 1e9), ctypes.byref(sent))
        if rc != 0:
            _raise(rc, what="sending %d edit%s" % (
                len(edits), "" if len(edits) == 1 else "s"))
        if sync:
            return self._wait(sent.wait_for)
        return None

    def _wait(self, upto):
        rc = _edit_wait(self._h(), upto, int(self.timeout * 1e9))
        if rc != 0:
            _raise(rc, what="waiting for the daemon to apply the edits")
        return self.generation()

    def set(self, x, y, type, sync=False):
        """Set cell (x, y) to `type` (a name, a glyph or a number).  With
        sync, wait until applied and return the grid generation."""
        return self._send([self._edit(_EDIT_SET, x, y, t=_cell_type(type))],
                          sync)

    def rect(self, x0, y0, x1, y1, type, sync=False):
        """Fill the rectangle with corners (x0, y0), (x1, y1) inclusive."""
        return self._send([self._edit(_EDIT_RECT, x0, y0, x1, y1,
                                      _cell_type(type))], sync)

    def line(self, x0, y0, x1, y1, type, sync=False):
        """Draw the 8-connected line between two cells."""
        return self._send([self._edit(_EDIT_LINE, x0, y0, x1, y1,
                                      _cell_type(type))], sync)

    def batch(self, edits, sync=False):
        """Several edits applied together in one tick, or none of them.
        Each edit is a tuple: ("set", x, y, type), ("rect", x0, y0, x1, y1,
        type) or ("line", x0, y0, x1, y1, type).  All are checked before
        anything is sent."""
        ops = {"set": (_EDIT_SET, 2), "rect": (_EDIT_RECT, 4),
               "line": (_EDIT_LINE, 4)}
        built = []
        for ed in edits:
            if not ed or ed[0] not in ops or len(ed) != ops[ed[0]][1] + 2:
                raise Error(_GC_EINVAL, "bad edit %r: expected (\"set\", x, "
                            "y, type) or (\"rect\"|\"line\", x0, y0, x1, "
                            "y1, type)" % (ed,))
            op, n = ops[ed[0]]
            coords = list(ed[1:1 + n]) + [0] * (4 - n)
            built.append(self._edit(op, *coords, t=_cell_type(ed[-1])))
        if not built:
            return self.generation() if sync else None
        return self._send(built, sync)

    def sync(self):
        """Wait until every edit queued so far, by anyone, is applied;
        return the grid generation."""
        q = _w_queue(self._h())
        if not q:
            raise Error(_GC_EPERM, "no write access to the edit queue of %s"
                        % self.name)
        return self._wait(_q_tail(q))

    # -- agents --

    def _agent_call(self, what, fn, *args, sync=True, why=None):
        """Run one agent command; with sync, wait for its answer and raise
        Refused when the daemon refused it (why(code): its detail, when the
        code's message is not enough)."""
        ans = _Answer()
        ans.reason = -2
        rc = fn(self._h(), *args, int(self.timeout * 1e9),
                ctypes.byref(ans) if sync else None)
        if sync and ans.reason >= 0:
            raise Refused(ans.code, _reason_name(ans.reason).decode(), what,
                          why(ans.code) if why is not None else None)
        if rc != 0:
            if rc == -23:  # GC_EAGAIN
                raise Error(rc, "%s: the answer was overwritten before it "
                            "was read; the command's fate is unknown" % what)
            _raise(rc, what=what)
        return ans

    @staticmethod
    def _handle(agent):
        if isinstance(agent, Agent):
            return agent.handle
        return _int_in(agent, _U32, _GC_EINVAL,
                       "agent handle %d is not a handle (0 to 4294967295)",
                       agent)

    def spawn(self, x, y, goal=None, radius=0.0, speed=0.0, group=0):
        """Add an agent at world position (x, y), with an optional goal
        (x, y), radius and speed (0: the daemon's defaults) and group; wait
        for the daemon's answer and return the new agent's handle.  Raises
        Refused (reason "blocked", "out_of_bounds", "overlap", "capacity",
        "bad_value") when the daemon refuses it."""
        if goal is not None and len(goal) != 2:
            raise Error(_GC_EINVAL, "goal %r: expected (x, y) or None"
                        % (goal,))
        group = _int_in(group, _U32, _GC_ERANGE,
                        "group %d is not from 0 to 4294967295", group)
        sp = _SpawnSpec(x=x, y=y, has_goal=goal is not None,
                        goal_x=goal[0] if goal is not None else 0.0,
                        goal_y=goal[1] if goal is not None else 0.0,
                        radius=radius, speed=speed, group=group,
                        turn_rate=-1.0, wander_radius=-1.0)  # (defaults)
        h = _u32()
        # The answer does not say whether the position or the goal was
        # refused: the library finds out from the map.
        buf = ctypes.create_string_buffer(256)
        self._agent_call("spawn", lambda w, t, a: _ag_spawn(
            w, ctypes.byref(sp), t, ctypes.byref(h), a),
            why=lambda code: _spawn_why(self._h(), ctypes.byref(sp), code,
                                        buf, len(buf)).decode())
        return h.value

    def remove(self, agent, sync=False):
        """Remove an agent (a handle or an Agent).  With sync, wait and
        raise Refused ("stale_agent") if it was gone already."""
        self._agent_call("remove", _ag_remove, self._handle(agent), sync=sync)

    def goal(self, agent, goal, sync=False):
        """Give an agent a goal: a point (x, y) in world units, "wander"
        or "stop"."""
        h = self._handle(agent)
        if goal == "wander":
            self._agent_call("goal", _ag_wander, h, sync=sync)
        elif goal == "stop":
            self._agent_call("goal", _ag_stop, h, sync=sync)
        else:
            self._agent_call("goal", _ag_point, h, float(goal[0]),
                             float(goal[1]), sync=sync)

    def follow(self, agent, target, distance=0.0, sync=False):
        """Make an agent follow another, stopping `distance` world units
        from it."""
        self._agent_call("follow", _ag_follow, self._handle(agent),
                         self._handle(target), float(distance), sync=sync)

    def speed(self, agent, speed, sync=False):
        """Set an agent's speed (world units per second)."""
        self._agent_call("speed", _ag_speed, self._handle(agent),
                         float(speed), sync=sync)

    def radius(self, agent, radius, sync=False):
        """Set an agent's body radius (world units)."""
        self._agent_call("radius", _ag_radius, self._handle(agent),
                         float(radius), sync=sync)

    # -- tracing --

    def trace(self, agent, sync=False):
        """Ask the daemon to record the searches of `agent` (a handle as
        spawn returns, an Agent, a slot id, or None to stop) for viewers;
        read them back with last_trace()."""
        if agent is None:
            aid, salt = _NO_AGENT, 0
        elif not isinstance(agent, Agent) and operator.index(agent) >= \
                2 ** _INDEX_BITS:
            # A handle (its salt is at least 1, so it is never a slot id).
            h = self._handle(agent)
            aid, salt = h & (2 ** _INDEX_BITS - 1), h >> _INDEX_BITS
            if aid >= self.capacity:
                raise Error(_GC_EINVAL, "agent handle %d: slot %d does not "
                            "exist (the world has %d agent slots)"
                            % (h, aid, self.capacity))
        else:
            aid = agent.id if isinstance(agent, Agent) else \
                operator.index(agent)
            if not 0 <= aid < self.capacity:
                raise Error(_GC_EINVAL, "agent %d does not exist (the world "
                            "has %d agent slots)" % (aid, self.capacity))
            salt = agent.salt if isinstance(agent, Agent) else next(
                (a.salt for a in self.agents() if a.id == aid), 0)
        e = _Edit(op=_EDIT_TRACE, x0=ctypes.c_int32(aid).value,
                  y0=ctypes.c_int32(salt).value)
        return self._send([e], sync, each=True)

    def last_trace(self):
        """The latest published trace: a Trace with events (x, y, kind)."""
        cap = _w_trace_cap(self._h())
        buf = (_TraceEvent * max(cap, 1))()
        info = _TraceInfo()
        rc = _w_read_trace(self._h(), ctypes.byref(info), buf, cap)
        if rc != 0:
            _raise(rc, what="reading the trace")
        w = self.width
        ev = [TraceEvent(e.cell % w, e.cell // w,
                         _TRACE_KINDS.get(e.kind, e.kind))
              for e in buf[:info.count]]
        return Trace(info.seq, info.tick,
                     None if info.agent == _NO_AGENT else info.agent,
                     info.salt, bool(info.truncated), ev)

    # -- path queries --

    def _cell_arg(self, c, which):
        x, y = c
        for v in (x, y):
            _int_in(v, _I32, _GC_EOUTSIDE, "%s (%d, %d) is outside the %dx%d "
                    "map", which, x, y, self.width, self.height)
        return _Cell(x, y)

    def _query(self):
        if not self._q:
            q = _p()
            err = _GcError()
            rc = _query_new(ctypes.byref(q), self._h(), ctypes.byref(err))
            if rc != 0:
                _raise(rc, err)
            self._q = q
        return self._q

    def _opts(self, radius, diag, heuristic, smooth, algo, max_expansions):
        o = _AstarOpts()
        _query_opts_init(self._h(), ctypes.byref(o))
        if diag is not None:
            d = _diag_parse(diag.encode()) if isinstance(diag, str) else diag
            if d < 0:
                raise Error(_GC_EINVAL, "unknown diagonal rule %r "
                            "(no-corner-cut, never, one-free, always)"
                            % (diag,))
            o.diag = d
        if heuristic is not None:
            h = _heur_parse(heuristic.encode())
            if h < 0:
                raise Error(_GC_EINVAL, "unknown heuristic %r" % (heuristic,))
            o.heuristic = h
        if algo is not None:
            a = _algo_parse(algo.encode())
            if a < 0:
                raise Error(_GC_EINVAL, "unknown algorithm %r" % (algo,))
            o.algo = a
        o.radius = float(radius)
        o.smooth = bool(smooth)
        o.max_expansions = int(max_expansions)
        return o

    def path(self, start, goal, radius=0.0, diag=None, heuristic=None,
             smooth=False, algo=None, max_expansions=0):
        """The path from cell `start` to cell `goal` on the live grid, as a
        Path.  Searched here on a copy of the cells, priced with the
        daemon's costs; diag defaults to the daemon's rule; radius is in
        world units.  Raises Error (GC_EOUTSIDE, GC_EBLOCKED: the message
        says which end and why; GC_EUNREACHABLE; GC_ELIMIT)."""
        o = self._opts(radius, diag, heuristic, smooth, algo, max_expansions)
        p = _Path()
        st = _AstarStats()
        err = _GcError()
        q = self._query()
        try:
            rc = _query_path(q, self._cell_arg(start, "start"),
                             self._cell_arg(goal, "goal"), ctypes.byref(o),
                             ctypes.byref(p), ctypes.byref(st),
                             ctypes.byref(err))
            if rc != 0:
                _raise(rc, err)
            cells = [(p.cells[i].x, p.cells[i].y) for i in range(p.len)]
        finally:
            _path_free(ctypes.byref(p))
        return Path(cells, st.cost, st.expanded, st.opened,
                    _algo_name(st.algo).decode(), _query_generation(q))

    def next_step(self, start, goal, radius=0.0, diag=None, heuristic=None,
                  algo=None, max_expansions=0):
        """The neighbour of `start` to step to first on an optimal path to
        `goal` (start itself when they are equal), as (x, y).  Same options
        and errors as path()."""
        o = self._opts(radius, diag, heuristic, False, algo, max_expansions)
        nx = _Cell()
        err = _GcError()
        rc = _query_next(self._query(), self._cell_arg(start, "start"),
                         self._cell_arg(goal, "goal"),
                         ctypes.byref(o), ctypes.byref(nx), None,
                         ctypes.byref(err))
        if rc != 0:
            _raise(rc, err)
        return (nx.x, nx.y)

    # -- agent commands --
    #
    # spawn(x, y, goal=..., radius=..., speed=..., group=...) -> handle,
    # remove(handle), goal(handle, ...), follow(handle, target) go here once
    # the daemon takes agent commands through the queue (issue 11, second
    # half): each will build its queue entry like _edit() and, with
    # sync=True, wait for the daemon's answer to this sender.


def attach(name=None, timeout=10.0):
    """Attach to the world of a running daemon (None: the default name,
    "gridcrowd").  Raises Error: GC_ENOENT when there is no such world,
    GC_EPERM, GC_EBADMAGIC, GC_EVERSION, GC_ECORRUPT.  `timeout` (seconds)
    bounds waiting for room in the queue and for sync."""
    return World(name, timeout)
