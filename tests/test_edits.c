/*
 * test_edits.c: the daemon's edit applier, without a daemon.
 *
 * Each test creates a world of its own (named after the test process's pid
 * and a counter), pushes edits through an attached handle as a tool would,
 * and drains them with a gc_edit_applier the way the daemon does between
 * ticks.  The teardown unlinks the objects even when an assertion failed,
 * and checks that they are gone.
 *
 * The model test follows STYLE.md: several producer threads push random
 * edits, good and bad, batched and not, while the main thread drains; the
 * producers log every position the queue gave them, and the log, sorted by
 * position, is replayed by a deliberately simple reference (written here,
 * sharing no code with src/edits.c) onto a plain grid.  Grids and counters
 * must agree, and every drain's changed-cell list must be exactly the cells
 * that differ between copies taken before and after it.
 *
 * Children made with fork() never use the CMocka assertions.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <gridcrowd/edit-client.h>
#include <gridcrowd/edits.h>
#include <gridcrowd/util.h>
#include <gridcrowd/world-layout.h>
#include <gridcrowd/world.h>

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <inttypes.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define SEC UINT64_C(1000000000)

/* ---- Fixture ------------------------------------------------------------- */

typedef struct fixture {
    char name[64];
    gc_world_config cfg;
    gc_edit_applier_config acfg;
    gc_world *owner;
    gc_world *tool; /* attached with the queue, as gridcrowd-ctl is */
    gc_grid *grid;  /* over the owner's cells */
    gc_edit_applier *ap;
} fixture;

static int
setup(void **state)
{
    static int counter;
    fixture *f = calloc(1, sizeof *f);
    if (f == NULL)
        return -1;
    snprintf(f->name, sizeof f->name, "gc-test-edits-%ld-%d", (long)getpid(),
             counter++);
    f->cfg = (gc_world_config){.name = f->name,
                               .width = 16,
                               .height = 12,
                               .agent_capacity = 8,
                               .edits_capacity = 64};
    *state = f;
    return 0;
}

static bool
shm_exists(const char *name, const char *suffix)
{
    char path[128];
    struct stat st;
    snprintf(path, sizeof path, "/dev/shm/%s%s", name, suffix);
    return stat(path, &st) == 0;
}

static int
teardown(void **state)
{
    fixture *f = *state;
    gc_edit_applier_free(f->ap);
    gc_grid_free(f->grid);
    gc_world_close(f->tool);
    gc_world_destroy(f->owner);
    bool left = shm_exists(f->name, "") || shm_exists(f->name, ".edits");
    char n[80];
    snprintf(n, sizeof n, "/%s", f->name);
    shm_unlink(n);
    snprintf(n, sizeof n, "/%s.edits", f->name);
    shm_unlink(n);
    free(f);
    return left ? -1 : 0;
}

/* Create the world, a tool's handle, the grid and the applier. */
static void
start(fixture *f)
{
    gc_error err;
    int rc = gc_world_create(&f->owner, &f->cfg, NULL, &err);
    if (rc != GC_OK)
        fail_msg("create: %s", err.msg);
    rc = gc_world_attach(&f->tool, f->name, GC_WORLD_ATTACH_QUEUE, &err);
    if (rc != GC_OK)
        fail_msg("attach: %s", err.msg);
    assert_int_equal(gc_world_grid(f->owner, &f->grid), GC_OK);
    assert_int_equal(gc_edit_applier_new(&f->ap, &f->acfg), GC_OK);
}

static uint64_t
push(fixture *f, gc_edit e)
{
    assert_int_equal(gc_queue_push(gc_world_queue(f->tool), &e, SEC), GC_OK);
    return e.position;
}

static gc_edit
ed(uint32_t op, uint32_t type, int32_t x0, int32_t y0, int32_t x1, int32_t y1,
   uint32_t batch)
{
    return (gc_edit){.op = op,
                     .type = type,
                     .x0 = x0,
                     .y0 = y0,
                     .x1 = x1,
                     .y1 = y1,
                     .batch = batch};
}

static gc_edit
set(int32_t x, int32_t y, uint32_t type)
{
    return ed(GC_EDIT_SET, type, x, y, 0, 0, 0);
}

static gc_edit
end(uint32_t batch, int32_t count)
{
    return ed(GC_EDIT_BATCH_END, 0, count, 0, 0, 0, batch);
}

typedef struct drained {
    const gc_cell *cells;
    size_t n;
    uint64_t gen_before, gen_after;
} drained;

static drained
drain_at(fixture *f, uint64_t now)
{
    drained d = {.gen_before = gc_world_generation(f->tool)};
    assert_int_equal(
        gc_edit_applier_drain(f->ap, f->owner, f->grid, now, &d.cells, &d.n),
        GC_OK);
    d.gen_after = gc_world_generation(f->tool);
    return d;
}

static drained
drain(fixture *f)
{
    return drain_at(f, gc_clock_ns());
}

static gc_edit_counts
counts(fixture *f)
{
    gc_edit_counts c;
    gc_edit_applier_counts(f->ap, &c);
    uint64_t sum = 0;
    for (int r = 0; r < GC_EDIT_NREASONS; r++)
        sum += c.by_reason[r];
    assert_int_equal(sum, c.rejected);
    /* What the header says is what the applier counted. */
    const gc_world_header *h = gc_world_hdr(f->tool);
    assert_int_equal(atomic_load(&h->edits_accepted), c.accepted);
    assert_int_equal(atomic_load(&h->edits_rejected), c.rejected);
    assert_int_equal(atomic_load(&h->edits_pending), c.pending);
    assert_int_equal(gc_world_edits_applied(f->tool), c.applied);
    /* And the accessor says the same as the raw header. */
    uint64_t acc, rej, pend;
    gc_world_edit_counts(f->tool, &acc, &rej, &pend);
    assert_int_equal(acc, c.accepted);
    assert_int_equal(rej, c.rejected);
    assert_int_equal(pend, c.pending);
    return c;
}

/* The cells as a tool reads them. */
static void
read_cells(fixture *f, uint8_t *buf)
{
    assert_int_equal(gc_world_read_cells(f->tool, buf, NULL), GC_OK);
}

/* Whether `list` holds each cell in which a and b differ, exactly once. */
static void
assert_changed_is_diff(const uint8_t *a, const uint8_t *b, int32_t w, int32_t h,
                       const gc_cell *list, size_t n)
{
    size_t cells = (size_t)w * (size_t)h, diff = 0;
    uint8_t *hit = calloc(cells, 1);
    assert_non_null(hit);
    for (size_t i = 0; i < n; i++) {
        assert_true(list[i].x >= 0 && list[i].x < w);
        assert_true(list[i].y >= 0 && list[i].y < h);
        size_t idx = (size_t)list[i].y * (size_t)w + (size_t)list[i].x;
        assert_int_equal(hit[idx], 0); /* no duplicates */
        hit[idx] = 1;
        assert_int_not_equal(a[idx], b[idx]);
    }
    for (size_t i = 0; i < cells; i++)
        diff += a[i] != b[i];
    assert_int_equal(diff, n);
    free(hit);
}

/* ---- The reference: a plain model of the edit rules ---------------------- */
/*
 * Written from the rules in edits.h, not from src/edits.c: different loops,
 * no staging limits (the tests stay under them), no clock.
 */

static bool
ref_inside(int32_t x, int32_t y, int32_t w, int32_t h)
{
    return 0 <= x && x < w && 0 <= y && y < h;
}

/* True when `e` passes every check for a w x h map with `agents` slots. */
static bool
ref_valid(const gc_edit *e, int32_t w, int32_t h, uint32_t agents)
{
    if (e->op == GC_EDIT_SET)
        return e->type < 4 && e->x1 == 0 && e->y1 == 0 &&
               ref_inside(e->x0, e->y0, w, h);
    if (e->op == GC_EDIT_RECT || e->op == GC_EDIT_LINE) {
        if (e->type >= 4 || !ref_inside(e->x0, e->y0, w, h) ||
            !ref_inside(e->x1, e->y1, w, h))
            return false;
        int64_t dx = llabs((long long)e->x1 - e->x0) + 1;
        int64_t dy = llabs((long long)e->y1 - e->y0) + 1;
        int64_t n = e->op == GC_EDIT_RECT ? dx * dy : (dx > dy ? dx : dy);
        return n <= (int64_t)GC_EDIT_MAX_CELLS;
    }
    if (e->op == GC_EDIT_BATCH_END)
        return e->type == 0 && e->y0 == 0 && e->x1 == 0 && e->y1 == 0 &&
               e->batch != 0 && e->x0 >= 0 &&
               e->x0 <= (int32_t)GC_EDIT_MAX_BATCH;
    if (e->op == GC_EDIT_TRACE)
        return e->type == 0 && e->x1 == 0 && e->y1 == 0 && e->batch == 0 &&
               ((uint32_t)e->x0 == UINT32_MAX || (uint32_t)e->x0 < agents);
    return false;
}

/* The Bresenham line of edits.h: from the endpoint with the smaller x (then
 * y), err = dx + dy with dy <= 0, as usually written. */
static void
ref_line(uint8_t *c, int32_t w, int32_t x0, int32_t y0, int32_t x1, int32_t y1,
         uint8_t t)
{
    if (x1 < x0 || (x1 == x0 && y1 < y0)) {
        int32_t tx = x0, ty = y0;
        x0 = x1, y0 = y1, x1 = tx, y1 = ty;
    }
    int32_t dx = abs(x1 - x0), sx = x0 < x1 ? 1 : -1;
    int32_t dy = -abs(y1 - y0), sy = y0 < y1 ? 1 : -1;
    int32_t err = dx + dy;
    for (;;) {
        c[(size_t)y0 * (size_t)w + (size_t)x0] = t;
        if (x0 == x1 && y0 == y1)
            break;
        int32_t e2 = 2 * err;
        if (e2 >= dy) {
            err += dy;
            x0 += sx;
        }
        if (e2 <= dx) {
            err += dx;
            y0 += sy;
        }
    }
}

static void
ref_apply(uint8_t *c, int32_t w, const gc_edit *e)
{
    uint8_t t = (uint8_t)e->type;
    if (e->op == GC_EDIT_SET) {
        c[(size_t)e->y0 * (size_t)w + (size_t)e->x0] = t;
    } else if (e->op == GC_EDIT_RECT) {
        int32_t xa = e->x0 < e->x1 ? e->x0 : e->x1;
        int32_t xb = e->x0 < e->x1 ? e->x1 : e->x0;
        int32_t ya = e->y0 < e->y1 ? e->y0 : e->y1;
        int32_t yb = e->y0 < e->y1 ? e->y1 : e->y0;
        for (int32_t y = ya; y <= yb; y++)
            for (int32_t x = xa; x <= xb; x++)
                c[(size_t)y * (size_t)w + (size_t)x] = t;
    } else if (e->op == GC_EDIT_LINE) {
        ref_line(c, w, e->x0, e->y0, e->x1, e->y1, t);
    }
}

typedef struct ref_batch {
    uint32_t pid, id;
    bool poisoned;
    gc_edit *ent;
    size_t n, cap;
} ref_batch;

typedef struct ref_model {
    int32_t w, h;
    uint32_t agents;
    uint8_t *cells;
    ref_batch b[256];
    size_t nb;
    uint64_t accepted, rejected;
} ref_model;

static ref_batch *
ref_find(ref_model *m, uint32_t pid, uint32_t id, bool make)
{
    for (size_t i = 0; i < m->nb; i++)
        if (m->b[i].pid == pid && m->b[i].id == id)
            return &m->b[i];
    if (!make)
        return NULL;
    assert_true(m->nb < 256);
    m->b[m->nb] = (ref_batch){.pid = pid, .id = id};
    return &m->b[m->nb++];
}

static void
ref_forget(ref_model *m, ref_batch *b)
{
    free(b->ent);
    *b = m->b[--m->nb];
}

static void
ref_feed(ref_model *m, const gc_edit *e)
{
    bool member =
        e->op == GC_EDIT_SET || e->op == GC_EDIT_RECT || e->op == GC_EDIT_LINE;
    if (!ref_valid(e, m->w, m->h, m->agents)) {
        m->rejected++;
        if (member && e->batch != 0)
            ref_find(m, e->sender_pid, e->batch, true)->poisoned = true;
        return;
    }
    if (e->op == GC_EDIT_TRACE) {
        m->accepted++;
    } else if (e->op == GC_EDIT_BATCH_END) {
        ref_batch *b = ref_find(m, e->sender_pid, e->batch, false);
        size_t n = b ? b->n : 0;
        if (b != NULL && !b->poisoned && n == (size_t)e->x0) {
            for (size_t i = 0; i < n; i++)
                ref_apply(m->cells, m->w, &b->ent[i]);
            m->accepted += n + 1;
        } else if (b == NULL && e->x0 == 0) {
            m->accepted++;
        } else {
            m->rejected += n + 1;
        }
        if (b != NULL)
            ref_forget(m, b);
    } else if (e->batch != 0) {
        ref_batch *b = ref_find(m, e->sender_pid, e->batch, true);
        if (b->n == b->cap) {
            b->cap = b->cap ? 2 * b->cap : 8;
            b->ent = realloc(b->ent, b->cap * sizeof *b->ent);
            assert_non_null(b->ent);
        }
        b->ent[b->n++] = *e;
    } else {
        ref_apply(m->cells, m->w, e);
        m->accepted++;
    }
}

/* Batches whose END never came are dropped. */
static void
ref_finish(ref_model *m)
{
    while (m->nb > 0) {
        m->rejected += m->b[0].n;
        ref_forget(m, &m->b[0]);
    }
}

/* ---- Checking ------------------------------------------------------------ */

static void
check_is(gc_edit e, int32_t w, int32_t h, int rc, const char *reason)
{
    const char *got = "unset";
    assert_int_equal(gc_edit_check(&e, w, h, &got), rc);
    if (reason == NULL)
        assert_null(got);
    else
        assert_string_equal(got, reason);
}

static void
test_check(void **state)
{
    (void)state;
    const int32_t W = 10, H = 8;
    /* Good ones. */
    check_is(set(0, 0, GC_CELL_OBSTACLE), W, H, GC_OK, NULL);
    check_is(set(9, 7, GC_CELL_LOW), W, H, GC_OK, NULL);
    check_is(ed(GC_EDIT_RECT, 2, 9, 7, 0, 0, 0), W, H, GC_OK, NULL);
    check_is(ed(GC_EDIT_LINE, 0, 9, 0, 0, 7, 3), W, H, GC_OK, NULL);
    check_is(end(5, 0), W, H, GC_OK, NULL);
    check_is(end(5, (int32_t)GC_EDIT_MAX_BATCH), W, H, GC_OK, NULL);
    check_is(ed(GC_EDIT_TRACE, 0, -1, 0, 0, 0, 0), W, H, GC_OK, NULL);
    check_is(ed(GC_EDIT_TRACE, 0, 3, 99, 0, 0, 0), W, H, GC_OK, NULL);

    /* Ops. */
    check_is(ed(0, 0, 0, 0, 0, 0, 0), W, H, GC_EINVAL, "bad_op");
    /* 6 .. 10 are the agent commands now: the first op past them. */
    check_is(ed(GC_EDIT_RADIUS + 1, 0, 0, 0, 0, 0, 0), W, H, GC_EINVAL,
             "bad_op");
    check_is(ed(UINT32_MAX, 0, 0, 0, 0, 0, 0), W, H, GC_EINVAL, "bad_op");
    /* Types. */
    check_is(set(1, 1, GC_CELL_NTYPES), W, H, GC_EINVAL, "bad_type");
    check_is(set(1, 1, UINT32_MAX), W, H, GC_EINVAL, "bad_type");
    check_is(ed(GC_EDIT_RECT, 200, 0, 0, 1, 1, 0), W, H, GC_EINVAL, "bad_type");
    /* Unused fields. */
    check_is(ed(GC_EDIT_SET, 1, 1, 1, 1, 1, 0), W, H, GC_EINVAL, "bad_field");
    check_is(ed(GC_EDIT_BATCH_END, 1, 0, 0, 0, 0, 1), W, H, GC_EINVAL,
             "bad_field");
    check_is(ed(GC_EDIT_BATCH_END, 0, 1, 1, 0, 0, 1), W, H, GC_EINVAL,
             "bad_field");
    check_is(ed(GC_EDIT_TRACE, 1, 0, 0, 0, 0, 0), W, H, GC_EINVAL, "bad_field");
    check_is(ed(GC_EDIT_TRACE, 0, 0, 0, 0, 1, 0), W, H, GC_EINVAL, "bad_field");
    /* Bounds, every coordinate on both sides. */
    check_is(set(-1, 0, 1), W, H, GC_EOUTSIDE, "out_of_bounds");
    check_is(set(0, -1, 1), W, H, GC_EOUTSIDE, "out_of_bounds");
    check_is(set(10, 0, 1), W, H, GC_EOUTSIDE, "out_of_bounds");
    check_is(set(0, 8, 1), W, H, GC_EOUTSIDE, "out_of_bounds");
    check_is(set(INT32_MIN, INT32_MAX, 1), W, H, GC_EOUTSIDE, "out_of_bounds");
    for (int k = 0; k < 4; k++) {
        int32_t c[4] = {1, 1, 2, 2};
        c[k] = k % 2 ? H : W;
        check_is(ed(GC_EDIT_RECT, 1, c[0], c[1], c[2], c[3], 0), W, H,
                 GC_EOUTSIDE, "out_of_bounds");
        c[k] = -1;
        check_is(ed(GC_EDIT_LINE, 1, c[0], c[1], c[2], c[3], 0), W, H,
                 GC_EOUTSIDE, "out_of_bounds");
    }
    /* An absurd rectangle is out of bounds, whichever way round. */
    check_is(ed(GC_EDIT_RECT, 1, INT32_MAX, INT32_MAX, INT32_MIN, INT32_MIN, 0),
             W, H, GC_EOUTSIDE, "out_of_bounds");
    /* Size: only a map of more than 2^24 cells can hold a rectangle too big
     * to apply in one go. */
    const int32_t S = GC_GRID_MAX_SIDE;
    check_is(ed(GC_EDIT_RECT, 1, 0, 0, S - 1, S - 1, 0), S, S, GC_ETOOBIG,
             "too_big");
    check_is(ed(GC_EDIT_RECT, 1, 0, 0, 4095, 4095, 0), S, S, GC_OK, NULL);
    check_is(ed(GC_EDIT_RECT, 1, 0, 0, 4096, 4095, 0), S, S, GC_ETOOBIG,
             "too_big");
    check_is(ed(GC_EDIT_LINE, 1, 0, 0, S - 1, S - 1, 0), S, S, GC_OK, NULL);
    /* Batch fields. */
    check_is(end(0, 1), W, H, GC_EINVAL, "bad_batch");
    check_is(end(3, -1), W, H, GC_EINVAL, "bad_batch");
    check_is(end(3, (int32_t)GC_EDIT_MAX_BATCH + 1), W, H, GC_EINVAL,
             "bad_batch");
    check_is(ed(GC_EDIT_TRACE, 0, 1, 0, 0, 0, 9), W, H, GC_EINVAL, "bad_batch");
    /* No reason asked for. */
    gc_edit e = set(99, 0, 1);
    assert_int_equal(gc_edit_check(&e, W, H, NULL), GC_EOUTSIDE);
    assert_int_equal(gc_edit_check(NULL, W, H, NULL), GC_EINVAL);

    /* Cell counts. */
    e = ed(GC_EDIT_RECT, 1, 5, 1, 2, 7, 0);
    assert_int_equal(gc_edit_cell_count(&e), 4 * 7);
    e = ed(GC_EDIT_LINE, 1, 5, 1, 2, 7, 0);
    assert_int_equal(gc_edit_cell_count(&e), 7);
    e = set(3, 3, 1);
    assert_int_equal(gc_edit_cell_count(&e), 1);
    e = end(1, 3);
    assert_int_equal(gc_edit_cell_count(&e), 0);
    e = ed(GC_EDIT_RECT, 1, INT32_MIN, INT32_MIN, INT32_MAX, INT32_MAX, 0);
    assert_int_equal(gc_edit_cell_count(&e), UINT64_MAX); /* 2^64 saturates */
    e = ed(GC_EDIT_RECT, 1, INT32_MIN, 0, INT32_MAX, 0, 0);
    assert_int_equal(gc_edit_cell_count(&e), UINT64_C(1) << 32);
}

static void
test_reason_names(void **state)
{
    (void)state;
    static const char *want[GC_EDIT_NREASONS] = {
        "bad_op",        "bad_type",       "bad_field", "out_of_bounds",
        "too_big",       "bad_batch",      "bad_agent", "batch_incomplete",
        "batch_timeout", "batch_overflow", "no_memory", "corrupt",
        "dead_claim",    "bad_value",      "stale_agent", "capacity",
        "blocked",       "overlap",        "no_agents"};
    for (int r = 0; r < GC_EDIT_NREASONS; r++)
        assert_string_equal(gc_edit_reason_name(r), want[r]);
    assert_null(gc_edit_reason_name(-1));
    assert_null(gc_edit_reason_name(GC_EDIT_NREASONS));
}

/* ---- Applying ------------------------------------------------------------ */

static void
test_apply(void **state)
{
    fixture *f = *state;
    start(f);
    const int32_t W = f->cfg.width, H = f->cfg.height;
    size_t cells = (size_t)W * (size_t)H;
    uint8_t before[16 * 12], after[16 * 12], want[16 * 12];
    read_cells(f, before);
    memcpy(want, before, cells);

    push(f, set(3, 2, GC_CELL_OBSTACLE));
    push(f, ed(GC_EDIT_RECT, GC_CELL_HIGH, 9, 6, 7, 4, 0)); /* reversed */
    push(f, ed(GC_EDIT_LINE, GC_CELL_LOW, 15, 11, 10, 8, 0));
    push(f, set(8, 5, GC_CELL_WALKABLE)); /* punches a hole in the rect */
    want[2 * W + 3] = GC_CELL_OBSTACLE;
    for (int y = 4; y <= 6; y++)
        for (int x = 7; x <= 9; x++)
            want[y * W + x] = GC_CELL_HIGH;
    ref_line(want, W, 10, 8, 15, 11, GC_CELL_LOW);
    want[5 * W + 8] = GC_CELL_WALKABLE;

    drained d = drain(f);
    read_cells(f, after);
    assert_memory_equal(after, want, cells);
    assert_changed_is_diff(before, after, W, H, d.cells, d.n);
    assert_int_equal(d.n, 1 + 8 + 6); /* the hole never changed */
    assert_int_equal(d.gen_after, d.gen_before + 1);
    assert_int_equal(f->grid->generation, 1);
    gc_edit_counts c = counts(f);
    assert_int_equal(c.accepted, 4);
    assert_int_equal(c.rejected, 0);
    assert_int_equal(c.pending, 0);
    assert_int_equal(c.applied, 4);
    assert_int_equal(c.cells_changed, d.n);
    assert_int_equal(c.generations, 1);

    /* Nothing to do: no generation, nothing changed. */
    d = drain(f);
    assert_int_equal(d.n, 0);
    assert_null(d.cells);
    assert_int_equal(d.gen_after, d.gen_before);

    /* Setting cells to what they are is accepted, changes nothing, and
     * bumps no generation. */
    push(f, set(3, 2, GC_CELL_OBSTACLE));
    push(f, ed(GC_EDIT_RECT, GC_CELL_HIGH, 7, 4, 7, 6, 0));
    d = drain(f);
    assert_int_equal(d.n, 0);
    assert_int_equal(d.gen_after, d.gen_before);
    c = counts(f);
    assert_int_equal(c.accepted, 6);
    assert_int_equal(c.applied, 6);

    /* A cell changed and changed back in one drain is not reported (the
     * generation moved: the cells were written). */
    push(f, set(0, 0, GC_CELL_OBSTACLE));
    push(f, set(0, 0, GC_CELL_WALKABLE));
    push(f, set(1, 0, GC_CELL_OBSTACLE));
    d = drain(f);
    assert_int_equal(d.n, 1);
    assert_int_equal(d.cells[0].x, 1);
    assert_int_equal(d.cells[0].y, 0);
    assert_int_equal(d.gen_after, d.gen_before + 1);
    /* The daemon's gc_grid sees what the tools see. */
    assert_int_equal(gc_grid_get(f->grid, 1, 0), GC_CELL_OBSTACLE);
    assert_int_equal(gc_grid_get(f->grid, 0, 0), GC_CELL_WALKABLE);
}

/* Lines: both directions give the same cells, max(|dx|,|dy|) + 1 of them,
 * 8-connected, endpoints included; the whole map through every pair of
 * a few points. */
static void
test_lines(void **state)
{
    fixture *f = *state;
    f->cfg.edits_capacity = 4;
    start(f);
    const int32_t W = f->cfg.width, H = f->cfg.height;
    const size_t cells = (size_t)W * (size_t)H;
    const gc_cell pts[] = {{0, 0}, {15, 11}, {3, 9},  {12, 2},
                           {7, 7}, {7, 0},   {0, 11}, {15, 10}};
    const size_t np = sizeof pts / sizeof pts[0];
    uint8_t got[16 * 12], want[16 * 12];
    for (size_t i = 0; i < np; i++)
        for (size_t j = 0; j < np; j++)
            for (int dir = 0; dir < 2; dir++) {
                gc_cell a = dir ? pts[j] : pts[i], b = dir ? pts[i] : pts[j];
                /* Clear, then draw. */
                push(f, ed(GC_EDIT_RECT, 0, 0, 0, W - 1, H - 1, 0));
                push(f, ed(GC_EDIT_LINE, 1, a.x, a.y, b.x, b.y, 0));
                drain(f);
                read_cells(f, got);
                memset(want, 0, cells);
                ref_line(want, W, pts[i].x, pts[i].y, pts[j].x, pts[j].y, 1);
                assert_memory_equal(got, want, cells);
                size_t n = 0;
                for (size_t k = 0; k < cells; k++)
                    n += got[k];
                size_t dx = (size_t)abs(a.x - b.x), dy = (size_t)abs(a.y - b.y);
                assert_int_equal(n, (dx > dy ? dx : dy) + 1);
                assert_int_equal(got[(size_t)a.y * W + a.x], 1);
                assert_int_equal(got[(size_t)b.y * W + b.x], 1);
                /* 8-connected: every cell but the ends has 2 neighbours on
                 * the line or more. */
                for (int32_t y = 0; y < H; y++)
                    for (int32_t x = 0; x < W; x++) {
                        if (!got[(size_t)y * W + x] || n == 1)
                            continue;
                        int nb = 0;
                        for (int32_t v = y - 1; v <= y + 1; v++)
                            for (int32_t u = x - 1; u <= x + 1; u++)
                                if ((u != x || v != y) && u >= 0 && v >= 0 &&
                                    u < W && v < H && got[(size_t)v * W + u])
                                    nb++;
                        assert_true(nb >= 1);
                    }
            }
    /* And one fixed example, worked out by hand: (0,0)-(5,2). */
    push(f, ed(GC_EDIT_RECT, 0, 0, 0, W - 1, H - 1, 0));
    push(f, ed(GC_EDIT_LINE, 1, 5, 2, 0, 0, 0));
    drain(f);
    read_cells(f, got);
    const gc_cell hand[] = {{0, 0}, {1, 0}, {2, 1}, {3, 1}, {4, 2}, {5, 2}};
    memset(want, 0, cells);
    for (size_t k = 0; k < 6; k++)
        want[(size_t)hand[k].y * W + hand[k].x] = 1;
    assert_memory_equal(got, want, cells);
}

/* ---- Rejections ---------------------------------------------------------- */

static void
expect_reason(fixture *f, int reason, uint64_t n)
{
    gc_edit_counts c = counts(f);
    for (int r = 0; r < GC_EDIT_NREASONS; r++)
        if (r != reason && c.by_reason[r] != 0)
            fail_msg("unexpected %" PRIu64 " rejected as %s",
                     (uint64_t)c.by_reason[r], gc_edit_reason_name(r));
    assert_int_equal(c.by_reason[reason], n);
}

static void
test_reject_each(void **state)
{
    fixture *f = *state;
    start(f);
    const int32_t W = f->cfg.width, H = f->cfg.height;
    const size_t cells = (size_t)W * (size_t)H;
    uint8_t before[16 * 12], after[16 * 12];
    read_cells(f, before);
    struct {
        gc_edit e;
        int reason;
    } bad[] = {
        {ed(0, 1, 1, 1, 0, 0, 0), GC_EDIT_R_BAD_OP},
        {ed(77, 1, 1, 1, 0, 0, 0), GC_EDIT_R_BAD_OP},
        {set(1, 1, 4), GC_EDIT_R_BAD_TYPE},
        {set(1, 1, 255), GC_EDIT_R_BAD_TYPE},
        {ed(GC_EDIT_SET, 1, 1, 1, 2, 0, 0), GC_EDIT_R_BAD_FIELD},
        {set(16, 0, 1), GC_EDIT_R_OUT_OF_BOUNDS},
        {set(0, -1, 1), GC_EDIT_R_OUT_OF_BOUNDS},
        {ed(GC_EDIT_RECT, 1, 0, 0, 1000000, 1000000, 0),
         GC_EDIT_R_OUT_OF_BOUNDS},
        {ed(GC_EDIT_LINE, 1, -5, 0, 3, 3, 0), GC_EDIT_R_OUT_OF_BOUNDS},
        {end(0, 0), GC_EDIT_R_BAD_BATCH},
        {ed(GC_EDIT_TRACE, 0, 1, 0, 0, 0, 4), GC_EDIT_R_BAD_BATCH},
        {ed(GC_EDIT_TRACE, 0, 8, 0, 0, 0, 0), GC_EDIT_R_BAD_AGENT},
        {ed(GC_EDIT_TRACE, 0, -2, 0, 0, 0, 0), GC_EDIT_R_BAD_AGENT},
    };
    uint64_t per[GC_EDIT_NREASONS] = {0};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        push(f, bad[i].e);
        per[bad[i].reason]++;
    }
    drained d = drain(f);
    read_cells(f, after);
    assert_memory_equal(before, after, cells);
    assert_int_equal(d.n, 0);
    assert_int_equal(d.gen_after, d.gen_before);
    gc_edit_counts c = counts(f);
    assert_int_equal(c.accepted, 0);
    assert_int_equal(c.rejected, sizeof bad / sizeof bad[0]);
    for (int r = 0; r < GC_EDIT_NREASONS; r++)
        assert_int_equal(c.by_reason[r], per[r]);
    /* Every position has been dealt with. */
    assert_int_equal(c.applied, sizeof bad / sizeof bad[0]);
    assert_int_equal(c.pending, 0);

    /* And good edits behind them go through. */
    push(f, set(2, 2, GC_CELL_OBSTACLE));
    d = drain(f);
    assert_int_equal(d.n, 1);
    assert_int_equal(counts(f).accepted, 1);
}

static void
test_reject_too_big(void **state)
{
    fixture *f = *state;
    /* The smallest world that can hold a rectangle over 2^24 cells. */
    f->cfg.width = 4097;
    f->cfg.height = 4097;
    f->cfg.agent_capacity = 0;
    f->cfg.trace_capacity = 16;
    start(f);
    push(f, ed(GC_EDIT_RECT, 1, 4096, 4096, 0, 0, 0));
    push(f, ed(GC_EDIT_RECT, 1, 4096, 4096, 4000, 4090, 0));
    drained d = drain(f);
    expect_reason(f, GC_EDIT_R_TOO_BIG, 1);
    assert_int_equal(d.n, 97 * 7);
    assert_int_equal(counts(f).accepted, 1);
}

/* An entry scribbled after publishing fails the ring's check. */
static void
test_reject_corrupt(void **state)
{
    fixture *f = *state;
    start(f);
    uint64_t pos = push(f, set(1, 1, 1));
    gc_queue_header *h = gc_queue_hdr(gc_world_queue(f->tool));
    gc_queue_entry *ent = (gc_queue_entry *)(void *)((uint8_t *)h + 256);
    ent[pos & (h->capacity - 1)].x0 = 2;
    push(f, set(3, 3, 1));
    drained d = drain(f);
    expect_reason(f, GC_EDIT_R_CORRUPT, 1);
    assert_int_equal(d.n, 1);
    assert_int_equal(d.cells[0].x, 3);
}

static void
test_trace(void **state)
{
    fixture *f = *state;
    start(f);
    uint32_t agent, gen;
    gc_world_trace_request(f->tool, &agent, &gen);
    assert_int_equal(agent, GC_WORLD_NO_AGENT);
    push(f, ed(GC_EDIT_TRACE, 0, 7, 42, 0, 0, 0));
    drained d = drain(f);
    assert_int_equal(d.gen_after, d.gen_before);
    gc_world_trace_request(f->tool, &agent, &gen);
    assert_int_equal(agent, 7);
    assert_int_equal(gen, 42);
    push(f, ed(GC_EDIT_TRACE, 0, (int32_t)GC_WORLD_NO_AGENT, 0, 0, 0, 0));
    drain(f);
    gc_world_trace_request(f->tool, &agent, &gen);
    assert_int_equal(agent, GC_WORLD_NO_AGENT);
    gc_edit_counts c = counts(f);
    assert_int_equal(c.accepted, 2);
    assert_int_equal(c.applied, 2);
}

/*
 * The queue header is written by producers too: the applier takes the
 * capacity, claim timeout and head from the daemon's handle, so scribbled
 * values change nothing, and it takes nothing from a queue whose magic is
 * gone (the daemon then checks and remakes it).
 */
static void
test_untrusted_queue_header(void **state)
{
    fixture *f = *state;
    f->cfg.claim_timeout_ms = 2000;
    f->acfg.batch_timeout_ms = 10; /* raised to 2 s + 1 s */
    start(f);
    gc_queue_header *h = gc_queue_hdr(gc_world_queue(f->tool));
    h->capacity = 1u << 31;
    h->claim_timeout_ns = UINT64_MAX;
    atomic_store(&h->head, 12345);
    const uint64_t t0 = 1000 * SEC;
    push(f, set(1, 1, 1));
    push(f, ed(GC_EDIT_SET, 1, 2, 1, 0, 0, 8)); /* a batch never ended */
    drained d = drain_at(f, t0);
    assert_int_equal(d.n, 1);
    gc_edit_counts c = counts(f);
    assert_int_equal(c.accepted, 1);
    assert_int_equal(c.staged, 1);
    assert_int_equal(c.applied, 1); /* the daemon's head, not 12345 */
    /* The batch times out after 3 s, not after an hour and a second. */
    drain_at(f, t0 + 3 * SEC + 1);
    expect_reason(f, GC_EDIT_R_BATCH_TIMEOUT, 1);

    /* Magic gone: nothing is taken, nothing counted, the drain is OK. */
    push(f, set(5, 5, 1));
    atomic_store(&h->magic, 0);
    d = drain_at(f, t0 + 4 * SEC);
    assert_int_equal(d.n, 0);
    c = counts(f);
    assert_int_equal(c.accepted, 1);
    assert_int_equal(c.rejected, 1);
    assert_int_equal(c.pending, 1);
}

/* ---- Batches ------------------------------------------------------------- */

static void
test_batch_held_until_end(void **state)
{
    fixture *f = *state;
    start(f);
    uint8_t before[16 * 12], after[16 * 12];
    const size_t cells = 16 * 12;
    read_cells(f, before);

    push(f, ed(GC_EDIT_SET, 1, 1, 1, 0, 0, 77));
    push(f, ed(GC_EDIT_RECT, 2, 4, 4, 5, 5, 77));
    push(f, ed(GC_EDIT_SET, 3, 9, 9, 0, 0, 99)); /* another batch */
    drained d = drain(f);
    assert_int_equal(d.n, 0);
    assert_int_equal(d.gen_after, d.gen_before);
    read_cells(f, after);
    assert_memory_equal(before, after, cells);
    gc_edit_counts c = counts(f);
    assert_int_equal(c.staged, 3);
    assert_int_equal(c.open_batches, 2);
    assert_int_equal(c.pending, 3);
    assert_int_equal(c.applied, 0); /* held back by the staged entries */
    assert_int_equal(c.accepted, 0);

    /* An unbatched edit behind them applies at once; edits_applied stays
     * at the first staged entry. */
    push(f, set(0, 11, 1));
    d = drain(f);
    assert_int_equal(d.n, 1);
    assert_int_equal(counts(f).applied, 0);

    /* The END applies batch 77 whole, in one generation. */
    push(f, end(77, 2));
    d = drain(f);
    assert_int_equal(d.n, 1 + 4);
    assert_int_equal(d.gen_after, d.gen_before + 1);
    c = counts(f);
    assert_int_equal(c.accepted, 1 + 3);
    assert_int_equal(c.staged, 1);
    assert_int_equal(c.applied, 2); /* batch 99's entry at position 2 */
    assert_int_equal(c.batches_applied, 1);

    /* Batch 99 and a fresh batch close in the same drain: one generation,
     * and edits_applied reaches the tail. */
    push(f, ed(GC_EDIT_LINE, 1, 0, 0, 3, 0, 5));
    push(f, end(5, 1));
    push(f, end(99, 1));
    /* An empty batch is a no-op that is accepted. */
    push(f, end(1234, 0));
    d = drain(f);
    assert_int_equal(d.n, 4 + 1);
    assert_int_equal(d.gen_after, d.gen_before + 1);
    c = counts(f);
    assert_int_equal(c.staged, 0);
    assert_int_equal(c.open_batches, 0);
    assert_int_equal(c.applied, 9);
    assert_int_equal(c.accepted, 9);
    assert_int_equal(c.batches_applied, 3);
    assert_int_equal(c.rejected, 0);
}

static void
test_batch_rejected_whole(void **state)
{
    fixture *f = *state;
    start(f);
    uint8_t before[16 * 12], after[16 * 12];
    const size_t cells = 16 * 12;
    read_cells(f, before);

    /* One bad member sinks the batch, even though the count matches what
     * was staged... */
    push(f, ed(GC_EDIT_SET, 1, 1, 1, 0, 0, 10));
    push(f, ed(GC_EDIT_SET, 1, 99, 1, 0, 0, 10));
    push(f, ed(GC_EDIT_SET, 1, 2, 2, 0, 0, 10));
    push(f, end(10, 2));
    /* ...a count that is too small or too big sinks it too... */
    push(f, ed(GC_EDIT_SET, 1, 3, 3, 0, 0, 11));
    push(f, end(11, 2));
    push(f, ed(GC_EDIT_SET, 1, 4, 4, 0, 0, 12));
    push(f, ed(GC_EDIT_SET, 1, 5, 5, 0, 0, 12));
    push(f, end(12, 1));
    /* ...and an END for a batch nobody sent is rejected alone. */
    push(f, end(13, 3));
    drained d = drain(f);
    read_cells(f, after);
    assert_memory_equal(before, after, cells);
    assert_int_equal(d.gen_after, d.gen_before);
    gc_edit_counts c = counts(f);
    assert_int_equal(c.by_reason[GC_EDIT_R_OUT_OF_BOUNDS], 1);
    assert_int_equal(c.by_reason[GC_EDIT_R_BATCH_INCOMPLETE], 3 + 2 + 3 + 1);
    assert_int_equal(c.rejected, 10);
    assert_int_equal(c.accepted, 0);
    assert_int_equal(c.batches_dropped, 4);
    assert_int_equal(c.open_batches, 0);
    assert_int_equal(c.applied, 10);
}

/* A batch whose END never comes is dropped after the timeout, and only
 * then; the floor of the timeout is the claim timeout plus a second. */
static void
test_batch_timeout(void **state)
{
    fixture *f = *state;
    f->cfg.claim_timeout_ms = 2000;
    f->acfg.batch_timeout_ms = 10; /* raised to 2 s + 1 s */
    start(f);
    const uint64_t t0 = 1000 * SEC;
    push(f, ed(GC_EDIT_SET, 1, 1, 1, 0, 0, 8));
    push(f, ed(GC_EDIT_SET, 1, 2, 1, 0, 0, 8));
    drain_at(f, t0);
    assert_int_equal(counts(f).staged, 2);
    drain_at(f, t0 + 2 * SEC);
    assert_int_equal(counts(f).staged, 2);
    /* Activity restarts the clock. */
    push(f, ed(GC_EDIT_SET, 1, 3, 1, 0, 0, 8));
    drain_at(f, t0 + 2 * SEC);
    drain_at(f, t0 + 4 * SEC);
    gc_edit_counts c = counts(f);
    assert_int_equal(c.staged, 3);
    assert_int_equal(c.applied, 0);
    assert_int_equal(c.pending, 3);
    drained d = drain_at(f, t0 + 5 * SEC + 1);
    assert_int_equal(d.n, 0);
    expect_reason(f, GC_EDIT_R_BATCH_TIMEOUT, 3);
    c = counts(f);
    assert_int_equal(c.staged, 0);
    assert_int_equal(c.pending, 0);
    assert_int_equal(c.applied, 3);
    assert_int_equal(c.batches_dropped, 1);
    /* The END, late, finds nothing: rejected alone, nothing applied. */
    push(f, end(8, 3));
    d = drain_at(f, t0 + 6 * SEC);
    assert_int_equal(d.n, 0);
    c = counts(f);
    assert_int_equal(c.by_reason[GC_EDIT_R_BATCH_INCOMPLETE], 1);
    assert_int_equal(c.applied, 4);
    uint8_t after[16 * 12] = {0}, zero[16 * 12] = {0};
    read_cells(f, after);
    assert_memory_equal(after, zero, sizeof zero);
}

/* A batch is never timed out while the queue still holds entries the
 * drain did not get to. */
static void
test_batch_not_expired_behind_backlog(void **state)
{
    fixture *f = *state;
    f->acfg.max_pops = 2;
    start(f);
    const uint64_t t0 = 1000 * SEC;
    push(f, ed(GC_EDIT_SET, 1, 1, 1, 0, 0, 8));
    drain_at(f, t0);
    for (int i = 0; i < 5; i++)
        push(f, set(i, 5, 1));
    push(f, end(8, 1));
    drain_at(f, t0 + 100 * SEC); /* takes 2: the END is still queued */
    assert_int_equal(counts(f).staged, 1);
    drain_at(f, t0 + 100 * SEC);
    drained d = drain_at(f, t0 + 100 * SEC);
    assert_int_equal(d.n, 1 + 1); /* (4,5) and the batch's (1,1) */
    gc_edit_counts c = counts(f);
    assert_int_equal(c.batches_applied, 1);
    assert_int_equal(c.rejected, 0);
    assert_int_equal(c.accepted, 1 + 5 + 1);
}

static void
test_batch_overflow(void **state)
{
    fixture *f = *state;
    f->acfg.max_open_batches = 2;
    f->acfg.max_staged = 3;
    start(f);
    /* Three batches at once: the third has no slot. */
    push(f, ed(GC_EDIT_SET, 1, 0, 0, 0, 0, 1));
    push(f, ed(GC_EDIT_SET, 1, 1, 0, 0, 0, 2));
    push(f, ed(GC_EDIT_SET, 1, 2, 0, 0, 0, 3));
    push(f, end(3, 1));
    push(f, end(1, 1));
    /* Batch 2 grows past max_staged: (1,0), (3,0), (4,0) staged, the
     * last two refused. */
    push(f, ed(GC_EDIT_SET, 1, 3, 0, 0, 0, 2));
    push(f, ed(GC_EDIT_SET, 1, 4, 0, 0, 0, 2));
    push(f, ed(GC_EDIT_SET, 1, 5, 0, 0, 0, 2));
    push(f, ed(GC_EDIT_SET, 1, 6, 0, 0, 0, 2));
    push(f, end(2, 5));
    drained d = drain(f);
    /* Batch 1 applied; 3 and 2 rejected whole. */
    assert_int_equal(d.n, 1);
    assert_int_equal(d.cells[0].x, 0);
    gc_edit_counts c = counts(f);
    assert_int_equal(c.by_reason[GC_EDIT_R_BATCH_OVERFLOW], 1 + 2);
    /* batch 3: its END; batch 2: 3 staged and its END */
    assert_int_equal(c.by_reason[GC_EDIT_R_BATCH_INCOMPLETE], 1 + 4);
    assert_int_equal(c.accepted, 2);
    assert_int_equal(c.batches_applied, 1);
    assert_int_equal(c.open_batches, 0);
    assert_int_equal(c.applied, 10);
}

/* ---- Floods, bounds, arguments ------------------------------------------- */

static void
test_drain_bounded(void **state)
{
    fixture *f = *state;
    f->cfg.edits_capacity = 16;
    f->acfg.max_pops = 5;
    start(f);
    for (int i = 0; i < 16; i++)
        push(f, set(i, 0, 1));
    drained d = drain(f);
    assert_int_equal(d.n, 5);
    gc_edit_counts c = counts(f);
    assert_int_equal(c.pending, 11);
    assert_int_equal(c.applied, 5);
    /* The cell budget stops a drain after the entry that crosses it. */
    gc_edit_applier_free(f->ap);
    f->acfg = (gc_edit_applier_config){.cell_budget = 3};
    assert_int_equal(gc_edit_applier_new(&f->ap, &f->acfg), GC_OK);
    d = drain(f);
    assert_int_equal(d.n, 3);
    push(f, ed(GC_EDIT_RECT, 2, 0, 1, 15, 11, 0)); /* 176 cells */
    for (;;) {
        d = drain(f);
        if (counts(f).pending == 0)
            break;
        assert_true(d.n >= 1);
    }
    uint8_t got[16 * 12];
    read_cells(f, got);
    for (int i = 0; i < 16; i++)
        assert_int_equal(got[i], 1);
    for (int i = 16; i < 16 * 12; i++)
        assert_int_equal(got[i], 2);
}

typedef struct flood {
    gc_world *w;
    int n;
    int rc;
} flood;

static void *
flood_main(void *arg)
{
    flood *fl = arg;
    for (int i = 0; i < fl->n; i++) {
        gc_edit e = set(i % 16, (i / 16) % 12, (uint32_t)(1 + i % 3));
        int rc = gc_queue_push(gc_world_queue(fl->w), &e, 10 * SEC);
        if (rc != GC_OK) {
            fl->rc = rc;
            return NULL;
        }
    }
    return NULL;
}

/* Ten times the queue's capacity, pushed while the drains go on. */
static void
test_flood(void **state)
{
    fixture *f = *state;
    f->cfg.edits_capacity = 32;
    start(f);
    flood fl = {.w = f->tool, .n = 320};
    pthread_t t;
    assert_int_equal(pthread_create(&t, NULL, flood_main, &fl), 0);
    uint64_t deadline = gc_clock_ns() + 30 * SEC;
    while (counts(f).accepted < 320) {
        assert_true(gc_clock_ns() < deadline);
        drain(f);
        sched_yield();
    }
    assert_int_equal(pthread_join(t, NULL), 0);
    assert_int_equal(fl.rc, 0);
    gc_edit_counts c = counts(f);
    assert_int_equal(c.accepted, 320);
    assert_int_equal(c.rejected, 0);
    assert_int_equal(c.applied, 320);
    uint8_t got[16 * 12];
    read_cells(f, got);
    /* Edit i sets cell i mod 192; the last write to each cell wins. */
    for (int idx = 0; idx < 16 * 12; idx++) {
        int last = idx + 16 * 12 < 320 ? idx + 16 * 12 : idx;
        assert_int_equal(got[idx], 1 + last % 3);
    }
}

static void
test_arguments(void **state)
{
    fixture *f = *state;
    start(f);
    assert_int_equal(gc_edit_applier_new(NULL, NULL), GC_EINVAL);
    gc_edit_applier_free(NULL);
    const gc_cell *ch = (const gc_cell *)1;
    size_t n = 99;
    assert_int_equal(gc_edit_applier_drain(NULL, f->owner, f->grid, 0, &ch, &n),
                     GC_EINVAL);
    assert_null(ch);
    assert_int_equal(n, 0);
    assert_int_equal(
        gc_edit_applier_drain(f->ap, f->tool, f->grid, 0, NULL, NULL),
        GC_EPERM);
    gc_grid *other;
    assert_int_equal(gc_grid_new(&other, 5, 5), GC_OK);
    assert_int_equal(
        gc_edit_applier_drain(f->ap, f->owner, other, 0, NULL, NULL),
        GC_EINVAL);
    gc_grid_free(other);
    /* A same-size grid of its own is allowed (the world's cells are then
     * untouched, but the generation still counts the change). */
    assert_int_equal(gc_grid_new(&other, 16, 12), GC_OK);
    push(f, set(1, 1, 1));
    uint64_t gen = gc_world_generation(f->tool);
    assert_int_equal(gc_edit_applier_drain(f->ap, f->owner, other, 0, &ch, &n),
                     GC_OK);
    assert_int_equal(n, 1);
    assert_int_equal(gc_grid_get(other, 1, 1), 1);
    assert_int_equal(gc_grid_get(f->grid, 1, 1), 0);
    assert_int_equal(gc_world_generation(f->tool), gen + 1);
    assert_int_equal(other->generation, 1);
    gc_grid_free(other);

    /* The caller holding the cells open: changes go inside its pair. */
    assert_int_equal(gc_world_cells_begin(f->owner), GC_OK);
    uint64_t g0 = gc_world_generation(f->tool);
    push(f, set(2, 2, 1));
    assert_int_equal(
        gc_edit_applier_drain(f->ap, f->owner, f->grid, 0, &ch, &n), GC_OK);
    assert_int_equal(n, 1);
    assert_int_equal(gc_world_generation(f->tool), g0);
    assert_int_equal(gc_world_cells_end(f->owner), GC_OK);
    assert_int_equal(gc_world_generation(f->tool), g0 + 1);

    gc_edit_counts c;
    gc_edit_applier_counts(f->ap, &c);
    assert_int_equal(c.accepted, 2);
}

/* ---- A producer that dies between claim and publish ---------------------- */

/* Claim a position the way the crash helper does, then die. */
static void
claim_and_die_child(const char *name)
{
    char helper[1024];
    const char *dir = getenv("GC_BUILDDIR");
    if (dir != NULL) {
        snprintf(helper, sizeof helper, "%s/tests/helpers/gc-test-edit-crash", dir);
        if (access(helper, X_OK) == 0) {
            int fd = open("/dev/null", O_WRONLY);
            if (fd >= 0)
                dup2(fd, 1);
            execl(helper, helper, name, (char *)NULL);
        }
    }
    /* No helper (a run outside make check): do what it does. */
    gc_world *w;
    if (gc_world_attach(&w, name, GC_WORLD_ATTACH_QUEUE, NULL) != GC_OK)
        _exit(1);
    gc_queue_header *h = gc_queue_hdr(gc_world_queue(w));
    gc_queue_entry *ent = (gc_queue_entry *)(void *)((uint8_t *)h + 256);
    uint64_t pos = atomic_load(&h->tail);
    if (atomic_load(&ent[pos & (h->capacity - 1)].seq) != pos ||
        !atomic_compare_exchange_strong(&h->tail, &pos, pos + 1))
        _exit(1);
    raise(SIGKILL);
    _exit(1);
}

static void
crash_producer(fixture *f)
{
    fflush(NULL);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0)
        claim_and_die_child(f->name);
    int status;
    assert_int_equal(waitpid(pid, &status, 0), pid);
    assert_true(WIFSIGNALED(status));
    assert_int_equal(WTERMSIG(status), SIGKILL);
}

static void
test_dead_claim(void **state)
{
    fixture *f = *state;
    f->cfg.claim_timeout_ms = 50;
    start(f);
    push(f, set(0, 0, 1));
    crash_producer(f); /* position 1 */
    push(f, set(1, 0, 1));
    /* A batch that loses a member to a dead producer: batch 4 is (2,0),
     * [dead], (3,0), END 3 (as if the dead claim had been its member). */
    push(f, ed(GC_EDIT_SET, 1, 2, 0, 0, 0, 4));
    crash_producer(f); /* position 4 */
    push(f, ed(GC_EDIT_SET, 1, 3, 0, 0, 0, 4));
    push(f, end(4, 3));

    drained d = drain(f);
    assert_int_equal(d.n, 1); /* (0,0); stalled at position 1 */
    gc_edit_counts c = counts(f);
    assert_int_equal(c.applied, 1);
    assert_int_equal(c.pending, 6);
    struct timespec nap = {0, 60 * 1000 * 1000};
    nanosleep(&nap, NULL);
    d = drain(f); /* skips 1, applies (1,0), stages (2,0), stalls at 4 */
    assert_int_equal(d.n, 1);
    assert_int_equal(d.cells[0].x, 1);
    nanosleep(&nap, NULL);
    d = drain(f);
    assert_int_equal(d.n, 0);
    c = counts(f);
    assert_int_equal(c.by_reason[GC_EDIT_R_DEAD_CLAIM], 2);
    assert_int_equal(c.by_reason[GC_EDIT_R_BATCH_INCOMPLETE], 3);
    assert_int_equal(c.rejected, 5);
    assert_int_equal(c.accepted, 2);
    assert_int_equal(c.applied, 7);
    assert_int_equal(c.pending, 0);
    /* And the queue goes on. */
    push(f, set(5, 5, 1));
    d = drain(f);
    assert_int_equal(d.n, 1);
    assert_int_equal(counts(f).applied, 8);
}

/* ---- The model check ----------------------------------------------------- */

#define MODEL_THREADS 4
#define MODEL_EDITS 1500

typedef struct producer {
    gc_world *w;
    int id;
    uint64_t rng;
    gc_edit *log; /* every edit the queue took, with its position; read by
                     the main thread only after joining */
    size_t n;
    int rc;
    atomic_bool finished; /* release when the log is complete */
} producer;

static uint64_t
rnd(producer *p)
{
    p->rng ^= p->rng << 13;
    p->rng ^= p->rng >> 7;
    p->rng ^= p->rng << 17;
    return p->rng;
}

static int32_t
coord(producer *p, int32_t side)
{
    /* Mostly on the map, sometimes just off it, rarely far off. */
    uint64_t r = rnd(p) % 100;
    if (r < 90)
        return (int32_t)(rnd(p) % (uint64_t)side);
    if (r < 98)
        return rnd(p) & 1 ? -1 : side;
    return (int32_t)(uint32_t)rnd(p);
}

static gc_edit
random_edit(producer *p, int32_t w, int32_t h)
{
    gc_edit e = {0};
    uint64_t r = rnd(p) % 100;
    e.op = r < 40   ? GC_EDIT_SET
           : r < 65 ? GC_EDIT_RECT
           : r < 90 ? GC_EDIT_LINE
           : r < 95 ? GC_EDIT_TRACE
                    : (uint32_t)(rnd(p) % 10);
    e.type = rnd(p) % 50 == 0 ? 4 + (uint32_t)(rnd(p) % 250)
                              : (uint32_t)(rnd(p) % 4);
    e.x0 = coord(p, w);
    e.y0 = coord(p, h);
    if (e.op == GC_EDIT_RECT || e.op == GC_EDIT_LINE) {
        e.x1 = coord(p, w);
        e.y1 = coord(p, h);
    }
    if (e.op == GC_EDIT_TRACE) {
        e.type = 0;
        e.x0 = rnd(p) % 4 == 0 ? -1 : (int32_t)(rnd(p) % 14); /* 12 slots */
    }
    if (rnd(p) % 100 == 0)
        e.y1 = 1; /* a stray field */
    return e;
}

static bool
model_push(producer *p, gc_edit e)
{
    int rc = gc_queue_push(gc_world_queue(p->w), &e, 30 * SEC);
    if (rc != GC_OK) {
        p->rc = rc;
        return false;
    }
    p->log[p->n++] = e;
    return true;
}

static void model_produce(producer *p);

static void *
model_producer(void *arg)
{
    producer *p = arg;
    model_produce(p);
    atomic_store_explicit(&p->finished, true, memory_order_release);
    return NULL;
}

static void
model_produce(producer *p)
{
    const int32_t W = gc_world_width(p->w), H = gc_world_height(p->w);
    uint32_t next_batch = 1;
    int unended = 0;
    for (int i = 0; i < MODEL_EDITS;) {
        if (rnd(p) % 8 != 0) {
            if (!model_push(p, random_edit(p, W, H)))
                return;
            i++;
            continue;
        }
        /* A batch of 1..6 members, ended with the right count, a wrong
         * one, or (a few times) never. */
        uint32_t id = (uint32_t)p->id << 20 | next_batch++;
        int n = 1 + (int)(rnd(p) % 6);
        for (int k = 0; k < n; k++, i++) {
            gc_edit e = random_edit(p, W, H);
            if (e.op == GC_EDIT_TRACE || e.op > GC_EDIT_TRACE ||
                e.op == GC_EDIT_BATCH_END)
                e.op = GC_EDIT_SET;
            if (e.op == GC_EDIT_SET)
                e.x1 = e.y1 = 0;
            e.batch = id;
            if (!model_push(p, e))
                return;
        }
        uint64_t r = rnd(p) % 20;
        if (r == 0 && unended < 3) {
            unended++;
            continue;
        }
        if (!model_push(p, end(id, r == 1 ? n + 1 : r == 2 ? n - 1 : n)))
            return;
    }
}

static int
by_position(const void *a, const void *b)
{
    uint64_t x = ((const gc_edit *)a)->position,
             y = ((const gc_edit *)b)->position;
    return x < y ? -1 : x > y;
}

static void
test_model(void **state)
{
    fixture *f = *state;
    f->cfg.width = 24;
    f->cfg.height = 16;
    f->cfg.agent_capacity = 12;
    f->cfg.edits_capacity = 64;
    start(f);
    const int32_t W = 24, H = 16;
    const size_t cells = (size_t)W * H;

    producer p[MODEL_THREADS];
    gc_world *handles[MODEL_THREADS];
    pthread_t t[MODEL_THREADS];
    for (int i = 0; i < MODEL_THREADS; i++) {
        assert_int_equal(
            gc_world_attach(&handles[i], f->name, GC_WORLD_ATTACH_QUEUE, NULL),
            GC_OK);
        p[i] = (producer){.w = handles[i],
                          .id = i + 1,
                          .rng = 0x9e3779b97f4a7c15u * (uint64_t)(i + 1),
                          .log = calloc(2 * MODEL_EDITS, sizeof(gc_edit))};
        assert_non_null(p[i].log);
        assert_int_equal(pthread_create(&t[i], NULL, model_producer, &p[i]), 0);
    }

    /* Drain while they push, checking each drain against copies of the
     * cells taken around it.  The clock stands still, so no batch times
     * out before the end. */
    uint8_t *before = malloc(cells), *after = malloc(cells);
    assert_non_null(before);
    assert_non_null(after);
    uint64_t deadline = gc_clock_ns() + 120 * SEC;
    for (;;) {
        int done = 0;
        for (int i = 0; i < MODEL_THREADS; i++)
            done += atomic_load_explicit(&p[i].finished, memory_order_acquire);
        if (done == MODEL_THREADS && gc_queue_pending(gc_world_queue(f->owner)) == 0)
            break;
        assert_true(gc_clock_ns() < deadline);
        read_cells(f, before);
        drained d = drain_at(f, SEC);
        read_cells(f, after);
        assert_changed_is_diff(before, after, W, H, d.cells, d.n);
        assert_true(d.gen_after - d.gen_before <= 1);
        if (d.n > 0)
            assert_int_equal(d.gen_after, d.gen_before + 1);
        if (d.n == 0)
            sched_yield();
    }
    size_t total = 0;
    for (int i = 0; i < MODEL_THREADS; i++) {
        assert_int_equal(pthread_join(t[i], NULL), 0);
        assert_int_equal(p[i].rc, 0);
        total += p[i].n;
        gc_world_close(handles[i]);
    }
    /* Whatever arrived after the loop saw the queue empty. */
    drain_at(f, SEC);
    /* Batches left without an END time out. */
    drain_at(f, 100 * SEC);

    /* Replay the merged log. */
    gc_edit *log = malloc(total * sizeof *log);
    assert_non_null(log);
    size_t k = 0;
    for (int i = 0; i < MODEL_THREADS; i++) {
        memcpy(log + k, p[i].log, p[i].n * sizeof *log);
        k += p[i].n;
        free(p[i].log);
    }
    qsort(log, total, sizeof *log, by_position);
    for (size_t i = 0; i < total; i++)
        assert_int_equal(log[i].position, i); /* every position, once */
    ref_model m = {.w = W, .h = H, .agents = 12};
    m.cells = calloc(cells, 1);
    assert_non_null(m.cells);
    for (size_t i = 0; i < total; i++)
        ref_feed(&m, &log[i]);
    ref_finish(&m);

    read_cells(f, after);
    assert_memory_equal(after, m.cells, cells);
    gc_edit_counts c = counts(f);
    assert_int_equal(c.accepted, m.accepted);
    assert_int_equal(c.rejected, m.rejected);
    assert_int_equal(c.accepted + c.rejected, total);
    assert_int_equal(c.applied, total);
    assert_int_equal(c.pending, 0);
    assert_int_equal(c.by_reason[GC_EDIT_R_DEAD_CLAIM], 0);
    assert_int_equal(c.by_reason[GC_EDIT_R_CORRUPT], 0);
    /* The mix exercised what it should. */
    assert_true(c.batches_applied > 50);
    assert_true(c.by_reason[GC_EDIT_R_BATCH_INCOMPLETE] > 10);
    assert_true(c.by_reason[GC_EDIT_R_BATCH_TIMEOUT] > 0);
    assert_true(c.by_reason[GC_EDIT_R_OUT_OF_BOUNDS] > 10);
    assert_true(c.by_reason[GC_EDIT_R_BAD_TYPE] > 10);
    assert_true(c.by_reason[GC_EDIT_R_BAD_OP] > 10);
    free(m.cells);
    free(log);
    free(before);
    free(after);
}

/* ---- The client half (edit-client.h) ------------------------------------- */

/* gc_edit_send: a batch shares one id, ends with its count, applies in one
 * drain; --each sends them bare; gc_edit_wait sees them applied. */
static void
test_client_send(void **state)
{
    fixture *f = *state;
    start(f);
    gc_queue *q = gc_world_queue(f->tool);
    gc_edit e[3] = {set(1, 1, 1), set(2, 2, 2),
                    ed(GC_EDIT_RECT, 3, 4, 4, 5, 6, 0)};
    gc_edit_sent s;
    assert_int_equal(gc_edit_send(q, e, 3, 0, SEC, &s), GC_OK);
    assert_int_equal(s.sent, 3);
    assert_int_not_equal(s.batch, 0);
    for (int i = 0; i < 3; i++) {
        assert_int_equal(e[i].batch, s.batch);
        assert_int_equal(e[i].position, (uint64_t)i);
    }
    assert_int_equal(s.wait_for, 4); /* after the END at position 3 */
    /* Nothing applied yet: a short wait times out. */
    assert_int_equal(gc_edit_wait(f->tool, s.wait_for, SEC / 50),
                     GC_ETIMEOUT);
    assert_int_equal(gc_edit_count_applied(f->tool, e, 3), 0);
    drained d = drain(f);
    assert_int_equal(d.n, 1 + 1 + 6);
    assert_int_equal(d.gen_after, d.gen_before + 1);
    assert_int_equal(counts(f).batches_applied, 1);
    assert_int_equal(gc_edit_wait(f->tool, s.wait_for, SEC), GC_OK);
    assert_int_equal(gc_edit_count_applied(f->tool, e, 3), 3);

    /* One by one: no batch, no END. */
    gc_edit one[2] = {set(0, 0, 1), set(0, 1, 1)};
    assert_int_equal(gc_edit_send(q, one, 2, GC_EDIT_SEND_EACH, SEC, &s),
                     GC_OK);
    assert_int_equal(s.batch, 0);
    assert_int_equal(one[0].batch, 0);
    assert_int_equal(s.wait_for, one[1].position + 1);
    drain(f);
    assert_int_equal(counts(f).batches_applied, 1);
    assert_int_equal(gc_edit_wait(f->tool, s.wait_for, SEC), GC_OK);

    /* A batch that cannot be one is refused before anything is sent; a
     * world without a queue cannot send. */
    assert_int_equal(gc_edit_send(q, e, GC_EDIT_MAX_BATCH + 1, 0, SEC, &s),
                     GC_ETOOBIG);
    assert_int_equal(s.sent, 0);
    assert_int_equal(gc_edit_send(NULL, e, 1, 0, SEC, &s), GC_EINVAL);
    /* A batch id is never 0. */
    for (int i = 0; i < 100; i++)
        assert_int_not_equal(gc_edit_batch_id(), 0);
}

/* gc_edit_diff: the edits turn cur into want, touch only differing cells,
 * merge runs into rectangles, and send a lone cell as SET. */
static void
test_client_diff(void **state)
{
    (void)state;
    enum { W = 7, H = 5 };
    uint8_t cur[W * H] = {0}, want[W * H] = {0};
    for (int y = 1; y <= 3; y++) /* a 3x3 block of walls */
        for (int x = 2; x <= 4; x++)
            want[y * W + x] = GC_CELL_OBSTACLE;
    want[0 * W + 6] = GC_CELL_LOW;          /* a lone cell */
    cur[4 * W + 0] = want[4 * W + 0] = 2;   /* same on both sides */
    gc_edit *e = NULL;
    size_t n = 0;
    uint64_t cells = 0;
    assert_int_equal(gc_edit_diff(cur, want, W, H, &e, &n, &cells), GC_OK);
    assert_int_equal(cells, 9 + 1);
    assert_int_equal(n, 2);
    /* Apply them by hand: cur becomes want, and each edit checks.  One is
     * the lone cell, as a SET; the other the block, as a RECT. */
    size_t sets = 0;
    for (size_t i = 0; i < n; i++) {
        assert_int_equal(gc_edit_check(&e[i], W, H, NULL), GC_OK);
        int32_t x1 = e[i].op == GC_EDIT_SET ? e[i].x0 : e[i].x1;
        int32_t y1 = e[i].op == GC_EDIT_SET ? e[i].y0 : e[i].y1;
        if (e[i].op == GC_EDIT_SET) {
            assert_int_equal(e[i].x0, 6);
            assert_int_equal(e[i].y0, 0);
            sets++;
        } else {
            assert_int_equal(e[i].op, GC_EDIT_RECT);
        }
        for (int32_t y = e[i].y0; y <= y1; y++)
            for (int32_t x = e[i].x0; x <= x1; x++)
                cur[y * W + x] = (uint8_t)e[i].type;
    }
    assert_int_equal(sets, 1);
    assert_memory_equal(cur, want, sizeof cur);
    free(e);
    /* Nothing to change: no edits. */
    assert_int_equal(gc_edit_diff(cur, want, W, H, &e, &n, &cells), GC_OK);
    assert_int_equal(n, 0);
    assert_int_equal(cells, 0);
    free(e);
    assert_int_equal(gc_edit_diff(cur, want, 0, H, &e, &n, NULL), GC_EINVAL);
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_check),
        cmocka_unit_test(test_reason_names),
        cmocka_unit_test_setup_teardown(test_apply, setup, teardown),
        cmocka_unit_test_setup_teardown(test_lines, setup, teardown),
        cmocka_unit_test_setup_teardown(test_reject_each, setup, teardown),
        cmocka_unit_test_setup_teardown(test_reject_too_big, setup, teardown),
        cmocka_unit_test_setup_teardown(test_reject_corrupt, setup, teardown),
        cmocka_unit_test_setup_teardown(test_trace, setup, teardown),
        cmocka_unit_test_setup_teardown(test_untrusted_queue_header, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_batch_held_until_end, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_batch_rejected_whole, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_batch_timeout, setup, teardown),
        cmocka_unit_test_setup_teardown(test_batch_not_expired_behind_backlog,
                                        setup, teardown),
        cmocka_unit_test_setup_teardown(test_batch_overflow, setup, teardown),
        cmocka_unit_test_setup_teardown(test_drain_bounded, setup, teardown),
        cmocka_unit_test_setup_teardown(test_flood, setup, teardown),
        cmocka_unit_test_setup_teardown(test_arguments, setup, teardown),
        cmocka_unit_test_setup_teardown(test_dead_claim, setup, teardown),
        cmocka_unit_test_setup_teardown(test_model, setup, teardown),
        cmocka_unit_test_setup_teardown(test_client_send, setup, teardown),
        cmocka_unit_test(test_client_diff),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
