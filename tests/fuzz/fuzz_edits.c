/*
 * fuzz_edits.c: fuzz target for the edit-entry validator (gc_edit_check,
 * gc_edit_cell_count) and the daemon's applier draining a queue of fuzzed
 * entries (gc_queue_pop, gc_edit_applier_drain).
 *
 * The input is a sequence of 28-byte records, each one edit and what to do
 * with it:
 *
 *   byte 0      mode: how it reaches the queue (below)
 *   byte 1, 2   op, type (any byte: 1..10 and 0..4 are the valid ones)
 *   byte 3      flags: 1 = the coordinates are small (c mod 20 - 2, so
 *               that many land on the map), 2 = batch = token mod 4,
 *               4 = the entry's flags come from token bits 24..27 (cell
 *               edits) / its cell fields stay set (agent commands)
 *   4..19       x0, y0, x1, y1 (int32)
 *   20..23      batch (uint32)
 *   24..27      token (uint32): client token, and the sizes of the extra
 *               validator call
 *
 * Agent commands (ops 6..10: SPAWN, REMOVE, GOAL, SPEED, RADIUS) take
 * their fields from the same bytes: the four coordinates' bits are floats
 * (with flag 1, small halves: c / 2), two of them px and py, the other two
 * going to the fields token bits 13..15 and 16..18 choose (gx, gy, radius,
 * speed, dist, or none); agent = token bits 8..9, target = bits 10..11,
 * group = bit 12, flags = token bits 0..1 (and bit 2 as an unknown flag
 * when token bit 20 is set).  The applier here has no simulation, so an
 * agent command that passes its check is refused as no_agents when it
 * applies, alone or at its batch's END.
 *
 * Every record is first checked alone: gc_edit_check against the world's
 * 16 x 12 map and against a map whose size comes from the token, compared
 * with a classification written here from the rules in edits.h (not from
 * edits.c); gc_edit_cell_count with 128-bit arithmetic.
 *
 * Then each record is pushed onto the queue of a world this process owns
 * (made once, 16 x 12 cells, 8 agents, a ring of 64) and drained by a fresh
 * applier, 64 records a round, the way the daemon drains between ticks.
 * Modes, by mode % 8: 0-4 pushed as a tool pushes it; 5 pushed, then its
 * payload scribbled on (the ring's check must catch it); 6 pushed, then its
 * slot's sequence set to a state no protocol step makes; 7 pushed, then the
 * queue header's head, capacity and claim timeout scribbled on (the
 * daemon must not care).  A last drain an hour later drops the batches
 * that never ended.
 *
 * A reference applier written here (one sender, the batch rules of
 * edits.h: members held until their END, all or nothing, poisoned by a bad
 * member, at most 64 open batches) replays the same records and must give
 * the same grid, the same accepted and rejected counts per reason, the
 * same generation bumps and the same changed-cell lists per drain.
 */
#include "fuzz.h"

#include <gridcrowd/edits.h>
#include <gridcrowd/world-layout.h>
#include <gridcrowd/world.h>

#include <math.h>
#include <sys/mman.h>
#include <unistd.h>

#define W 16
#define H 12
#define AGENTS 8
#define RING 64
#define REC 28
#define MODEL_OPEN 64 /* GC_EDIT_DEFAULT_OPEN_BATCHES */

/* ---- The validator, checked alone ---------------------------------------- */

static int
on(int32_t x, int32_t y, int32_t w, int32_t h)
{
    return x >= 0 && y >= 0 && x < w && y < h;
}

static unsigned __int128
span(int32_t a, int32_t b)
{
    int64_t d = (int64_t)a - (int64_t)b;
    return (unsigned __int128)(d < 0 ? -d : d) + 1;
}

/* Cells a SET, RECT or LINE covers, exactly, without saturation. */
static unsigned __int128
model_cells(const gc_edit *e)
{
    switch (e->op) {
    case GC_EDIT_SET:
        return 1;
    case GC_EDIT_RECT:
        return span(e->x0, e->x1) * span(e->y0, e->y1);
    case GC_EDIT_LINE: {
        unsigned __int128 dx = span(e->x0, e->x1), dy = span(e->y0, e->y1);
        return dx > dy ? dx : dy;
    }
    }
    return 0;
}

static int
fin(float f)
{
    return isfinite(f);
}

/* edits.h's rules for agent commands, in its order: goal kind, unused
 * fields and flags, handles, values.  NULL: accepted. */
static const char *
model_agent_reason(const gc_edit *e)
{
    uint32_t op = e->op;
    if (op == GC_EDIT_GOAL && (e->type < 1 || e->type > 4))
        return "bad_type";
    if (op != GC_EDIT_GOAL && e->type != 0)
        return "bad_field";
    if (e->x0 || e->y0 || e->x1 || e->y1)
        return "bad_field";
    uint32_t allowed = 1u | (op == GC_EDIT_SPAWN ? 2u : 0u);
    if (e->flags & ~allowed)
        return "bad_field";
    int spawn = op == GC_EDIT_SPAWN, point = op == GC_EDIT_GOAL && e->type == 1;
    int follow = op == GC_EDIT_GOAL && e->type == 4;
    int uses_pos = spawn || point, uses_goal = spawn && (e->flags & 2);
    int uses_rad = spawn || op == GC_EDIT_RADIUS;
    int uses_spd = spawn || op == GC_EDIT_SPEED;
    if ((spawn && e->agent) || (!follow && e->target) ||
        (!spawn && e->group) || (!uses_pos && (e->px != 0 || e->py != 0)) ||
        (!uses_goal && (e->gx != 0 || e->gy != 0)) ||
        (!uses_rad && e->radius != 0) || (!uses_spd && e->speed != 0) ||
        (!follow && e->dist != 0))
        return "bad_field";
    if ((!spawn && e->agent == 0) || (follow && e->target == 0) ||
        (follow && e->target == e->agent))
        return "bad_agent";
    if (!fin(e->px) || !fin(e->py) || !fin(e->gx) || !fin(e->gy) ||
        !fin(e->radius) || !fin(e->speed) || !fin(e->dist))
        return "bad_value";
    if ((op == GC_EDIT_SPEED && !(e->speed > 0)) ||
        (op == GC_EDIT_RADIUS && e->radius < 0) || e->dist < 0)
        return "bad_value";
    return NULL;
}

/* edits.h's rules, in its order: op, type, unused fields, batch fields,
 * bounds, size.  NULL: accepted. */
static const char *
model_reason(const gc_edit *e, int32_t w, int32_t h)
{
    if (e->op >= GC_EDIT_SPAWN && e->op <= GC_EDIT_RADIUS)
        return model_agent_reason(e);
    /* Cell edits: agent fields and flags other than ANSWER (any flag on
     * TRACE) are unused fields.  (decode never sets agent fields on
     * them, only flags.) */
    int extra = (e->flags & ~(e->op == GC_EDIT_TRACE ? 0u : 1u)) != 0;
    switch (e->op) {
    case GC_EDIT_SET:
        if (e->type >= GC_CELL_NTYPES)
            return "bad_type";
        if (e->x1 != 0 || e->y1 != 0 || extra)
            return "bad_field";
        return on(e->x0, e->y0, w, h) ? NULL : "out_of_bounds";
    case GC_EDIT_RECT:
    case GC_EDIT_LINE:
        if (e->type >= GC_CELL_NTYPES)
            return "bad_type";
        if (extra)
            return "bad_field";
        if (!on(e->x0, e->y0, w, h) || !on(e->x1, e->y1, w, h))
            return "out_of_bounds";
        return model_cells(e) > GC_EDIT_MAX_CELLS ? "too_big" : NULL;
    case GC_EDIT_BATCH_END:
        if (e->type != 0 || e->y0 != 0 || e->x1 != 0 || e->y1 != 0 || extra)
            return "bad_field";
        if (e->batch == 0 || e->x0 < 0 || e->x0 > (int32_t)GC_EDIT_MAX_BATCH)
            return "bad_batch";
        return NULL;
    case GC_EDIT_TRACE:
        if (e->type != 0 || e->x1 != 0 || e->y1 != 0 || extra)
            return "bad_field";
        return e->batch != 0 ? "bad_batch" : NULL;
    }
    return "bad_op";
}

static void
check_alone(const gc_edit *e, int32_t w, int32_t h)
{
    const char *why = "not set";
    int rc = gc_edit_check(e, w, h, &why);
    const char *want = model_reason(e, w, h);
    if (want == NULL) {
        FUZZ_CHECK(rc == GC_OK && why == NULL);
    } else {
        FUZZ_CHECK(why != NULL && strcmp(why, want) == 0);
        int code = strcmp(want, "out_of_bounds") == 0 ? GC_EOUTSIDE
                   : strcmp(want, "too_big") == 0     ? GC_ETOOBIG
                                                      : GC_EINVAL;
        FUZZ_CHECK(rc == code);
    }
    unsigned __int128 n = model_cells(e);
    uint64_t got = gc_edit_cell_count(e);
    FUZZ_CHECK(n > UINT64_MAX ? got == UINT64_MAX : got == (uint64_t)n);
}

/* ---- The reference applier ----------------------------------------------- */

typedef struct mbatch {
    int used, poisoned;
    uint32_t id;
    gc_edit *ent;
    uint32_t n;
} mbatch;

typedef struct model {
    uint8_t grid[W * H];
    uint8_t round_start[W * H];
    int round_changed; /* a cell's type changed this round */
    mbatch open[MODEL_OPEN];
    uint64_t accepted, rejected, by_reason[GC_EDIT_NREASONS];
    uint64_t generations;
} model;

static int
reason_index(const char *name)
{
    for (int r = 0; r < GC_EDIT_NREASONS; r++)
        if (strcmp(gc_edit_reason_name(r), name) == 0)
            return r;
    FUZZ_CHECK(!"unknown reason name");
    return 0;
}

static void
m_reject(model *m, int reason, uint64_t n)
{
    m->by_reason[reason] += n;
    m->rejected += n;
}

static void
m_put(model *m, int32_t x, int32_t y, uint8_t t)
{
    uint8_t *c = &m->grid[y * W + x];
    if (*c != t) {
        *c = t;
        m->round_changed = 1;
    }
}

static void
m_apply(model *m, const gc_edit *e)
{
    int32_t xa = e->x0 < e->x1 ? e->x0 : e->x1, xb = e->x0 ^ e->x1 ^ xa;
    int32_t ya = e->y0 < e->y1 ? e->y0 : e->y1, yb = e->y0 ^ e->y1 ^ ya;
    uint8_t t = (uint8_t)e->type;
    if (e->op == GC_EDIT_SET) {
        m_put(m, e->x0, e->y0, t);
    } else if (e->op == GC_EDIT_RECT) {
        for (int32_t y = ya; y <= yb; y++)
            for (int32_t x = xa; x <= xb; x++)
                m_put(m, x, y, t);
    } else {
        /* Bresenham from the end with the smaller x (then y). */
        int32_t x0 = e->x0, y0 = e->y0, x1 = e->x1, y1 = e->y1;
        if (x1 < x0 || (x1 == x0 && y1 < y0)) {
            int32_t tx = x0, ty = y0;
            x0 = x1, y0 = y1, x1 = tx, y1 = ty;
        }
        int32_t dx = x1 - x0, dy = -(y1 > y0 ? y1 - y0 : y0 - y1);
        int32_t sy = y0 < y1 ? 1 : -1, err = dx + dy;
        for (;;) {
            m_put(m, x0, y0, t);
            if (x0 == x1 && y0 == y1)
                break;
            int32_t e2 = 2 * err;
            if (e2 >= dy) {
                err += dy;
                x0++;
            }
            if (e2 <= dx) {
                err += dx;
                y0 += sy;
            }
        }
    }
}

static mbatch *
m_find(model *m, uint32_t id)
{
    for (int i = 0; i < MODEL_OPEN; i++)
        if (m->open[i].used && m->open[i].id == id)
            return &m->open[i];
    return NULL;
}

static mbatch *
m_get(model *m, uint32_t id)
{
    mbatch *b = m_find(m, id);
    for (int i = 0; b == NULL && i < MODEL_OPEN; i++)
        if (!m->open[i].used) {
            b = &m->open[i];
            memset(b, 0, sizeof *b);
            b->used = 1;
            b->id = id;
        }
    return b;
}

static void
m_close(mbatch *b)
{
    free(b->ent);
    memset(b, 0, sizeof *b);
}

/* An entry that reached the daemon intact. */
static void
m_entry(model *m, const gc_edit *e)
{
    const char *why = model_reason(e, W, H);
    if (why == NULL && e->op == GC_EDIT_TRACE &&
        (uint32_t)e->x0 != UINT32_MAX && (uint32_t)e->x0 >= AGENTS)
        why = "bad_agent";
    int agent_op = e->op >= GC_EDIT_SPAWN && e->op <= GC_EDIT_RADIUS;
    int member = e->op == GC_EDIT_SET || e->op == GC_EDIT_RECT ||
                 e->op == GC_EDIT_LINE || agent_op;
    if (why != NULL) {
        m_reject(m, reason_index(why), 1);
        if (member && e->batch != 0) {
            mbatch *b = m_get(m, e->batch);
            if (b != NULL)
                b->poisoned = 1;
        }
        return;
    }
    if (e->op == GC_EDIT_TRACE) {
        m->accepted++;
    } else if (e->op == GC_EDIT_BATCH_END) {
        mbatch *b = m_find(m, e->batch);
        if (b == NULL && e->x0 == 0) {
            m->accepted++;
        } else if (b == NULL || b->poisoned || b->n != (uint32_t)e->x0) {
            m_reject(m, GC_EDIT_R_BATCH_INCOMPLETE, (b ? b->n : 0) + 1);
        } else {
            /* In order; agent commands find no simulation here. */
            for (uint32_t i = 0; i < b->n; i++) {
                uint32_t op = b->ent[i].op;
                if (op >= GC_EDIT_SPAWN && op <= GC_EDIT_RADIUS) {
                    m_reject(m, GC_EDIT_R_NO_AGENTS, 1);
                } else {
                    m_apply(m, &b->ent[i]);
                    m->accepted++;
                }
            }
            m->accepted++;
        }
        if (b != NULL)
            m_close(b);
    } else if (e->batch != 0) {
        mbatch *b = m_get(m, e->batch);
        if (b == NULL) {
            m_reject(m, GC_EDIT_R_BATCH_OVERFLOW, 1);
            return;
        }
        gc_edit *ne = realloc(b->ent, (b->n + 1) * sizeof *ne);
        FUZZ_CHECK(ne != NULL);
        b->ent = ne;
        b->ent[b->n++] = *e;
    } else if (agent_op) {
        m_reject(m, GC_EDIT_R_NO_AGENTS, 1);
    } else {
        m_apply(m, e);
        m->accepted++;
    }
}

/* ---- The world and the real applier -------------------------------------- */

static gc_world *world;
static gc_grid *grid;

static void
teardown_world(void)
{
    gc_grid_free(grid);
    gc_world_destroy(world);
}

static void
setup_world(void)
{
    if (world != NULL)
        return;
    char name[64];
    snprintf(name, sizeof name, "gc-fuzz-edits-%ld", (long)getpid());
    gc_world_config cfg = {.name = name,
                           .width = W,
                           .height = H,
                           .agent_capacity = AGENTS,
                           .edits_capacity = RING,
                           .claim_timeout_ms = 1000};
    gc_error err;
    int rc = gc_world_create(&world, &cfg, NULL, &err);
    if (rc != GC_OK)
        fprintf(stderr, "fuzz_edits: %s\n", err.msg);
    FUZZ_CHECK(rc == GC_OK);
    FUZZ_CHECK(gc_world_grid(world, &grid) == GC_OK);
    atexit(teardown_world);
}

static gc_queue_entry *
slot_of(uint64_t pos)
{
    uint8_t *q = (uint8_t *)gc_queue_hdr(gc_world_queue(world));
    return (gc_queue_entry *)(void *)(q + sizeof(gc_queue_header)) +
           (pos & (RING - 1));
}

static gc_edit
decode(const uint8_t *r, uint8_t *mode)
{
    gc_edit e;
    memset(&e, 0, sizeof e);
    int32_t c[4];
    uint32_t batch, token;
    memcpy(c, r + 4, sizeof c);
    memcpy(&batch, r + 20, sizeof batch);
    memcpy(&token, r + 24, sizeof token);
    *mode = r[0];
    e.op = r[1];
    e.type = r[2];
    if (r[3] & 1)
        for (int k = 0; k < 4; k++)
            c[k] = (int32_t)((uint32_t)c[k] % 20) - 2;
    e.x0 = c[0];
    e.y0 = c[1];
    e.x1 = c[2];
    e.y1 = c[3];
    e.batch = (r[3] & 2) ? token % 4 : batch;
    e.client_token = token;
    if (e.op >= GC_EDIT_SPAWN && e.op <= GC_EDIT_RADIUS) {
        float f[4];
        for (int k = 0; k < 4; k++) {
            if (r[3] & 1)
                f[k] = (float)c[k] / 2.0f;
            else
                memcpy(&f[k], &c[k], sizeof f[k]);
        }
        if (!(r[3] & 4))
            e.x0 = e.y0 = e.x1 = e.y1 = 0;
        e.px = f[0];
        e.py = f[1];
        for (int k = 0; k < 2; k++) {
            float *to[8] = {&e.gx,    &e.gy,   &e.radius, &e.speed,
                            &e.dist,  NULL,    NULL,      NULL};
            float *p = to[(token >> (13 + 3 * k)) & 7];
            if (p != NULL)
                *p = f[2 + k];
        }
        e.agent = (token >> 8) & 3;
        e.target = (token >> 10) & 3;
        e.group = (token >> 12) & 1;
        e.flags = (token & 3) | ((token >> 20) & 1 ? 4u : 0u);
    } else if (r[3] & 4) {
        e.flags = (token >> 24) & 15;
    }
    return e;
}

/* One drain of the real applier at `now`, checked against the model. */
static void
drain(gc_edit_applier *a, model *m, uint64_t now)
{
    uint64_t gen = gc_world_generation(world);
    const gc_cell *changed;
    size_t n;
    FUZZ_CHECK(gc_edit_applier_drain(a, world, grid, now, &changed, &n) ==
               GC_OK);
    if (m->round_changed)
        m->generations++;
    FUZZ_CHECK(gc_world_generation(world) == gen + (m->round_changed ? 1 : 0));
    /* The changed list: each differing cell once, nothing else. */
    uint8_t listed[W * H] = {0};
    size_t differ = 0;
    for (size_t i = 0; i < n; i++) {
        FUZZ_CHECK(on(changed[i].x, changed[i].y, W, H));
        int idx = changed[i].y * W + changed[i].x;
        FUZZ_CHECK(!listed[idx]);
        listed[idx] = 1;
        FUZZ_CHECK(m->grid[idx] != m->round_start[idx]);
    }
    for (int i = 0; i < W * H; i++)
        differ += m->grid[i] != m->round_start[i];
    FUZZ_CHECK(differ == n);
    FUZZ_CHECK(memcmp(grid->cells, m->grid, sizeof m->grid) == 0);
    memcpy(m->round_start, m->grid, sizeof m->grid);
    m->round_changed = 0;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    size_t nrec = size / REC;
    for (size_t i = 0; i < nrec; i++) {
        uint8_t mode;
        gc_edit e = decode(data + i * REC, &mode);
        check_alone(&e, W, H);
        uint32_t t = (uint32_t)e.client_token;
        check_alone(&e, (int32_t)(1 + t % 100000),
                    (int32_t)(1 + (t / 100000) % 100000));
    }
    FUZZ_CHECK(gc_edit_check(NULL, W, H, NULL) == GC_EINVAL);

    setup_world();
    gc_queue_header *qh = gc_queue_hdr(gc_world_queue(world));
    const uint32_t cap0 = qh->capacity;
    const uint64_t claim0 = qh->claim_timeout_ns;
    memset(grid->cells, 0, W * H); /* a fresh, all-walkable map */
    static model m;
    memset(&m, 0, sizeof m);
    gc_edit_applier *a;
    FUZZ_CHECK(gc_edit_applier_new(&a, NULL) == GC_OK);
    gc_edit_counts c0;
    const uint64_t first = gc_queue_tail(gc_world_queue(world));
    const uint64_t t0 = UINT64_C(1) << 40;

    size_t i = 0;
    while (i < nrec) {
        size_t end = i + RING < nrec ? i + RING : nrec;
        for (; i < end; i++) {
            uint8_t mode;
            gc_edit e = decode(data + i * REC, &mode);
            FUZZ_CHECK(gc_queue_push(gc_world_queue(world), &e, 0) == GC_OK);
            gc_queue_entry *s = slot_of(e.position);
            switch (mode % 8) {
            case 5:
                s->x0 ^= 1 + (int32_t)(e.client_token & 0xff);
                m_reject(&m, GC_EDIT_R_CORRUPT, 1);
                break;
            case 6:
                atomic_store(&s->seq, e.position + 2 + e.client_token % 1000);
                m_reject(&m, GC_EDIT_R_CORRUPT, 1);
                break;
            case 7:
                atomic_store(&qh->head, e.client_token);
                qh->capacity = (uint32_t)e.client_token;
                qh->claim_timeout_ns = e.client_token;
                m_entry(&m, &e);
                break;
            default:
                m_entry(&m, &e);
            }
        }
        drain(a, &m, t0);
    }
    /* An hour later every batch without its END is dropped. */
    for (int k = 0; k < MODEL_OPEN; k++)
        if (m.open[k].used) {
            m_reject(&m, GC_EDIT_R_BATCH_TIMEOUT, m.open[k].n);
            m_close(&m.open[k]);
        }
    drain(a, &m, t0 + UINT64_C(3600) * 1000000000u);

    gc_edit_applier_counts(a, &c0);
    FUZZ_CHECK(c0.accepted == m.accepted && c0.rejected == m.rejected);
    for (int r = 0; r < GC_EDIT_NREASONS; r++)
        FUZZ_CHECK(c0.by_reason[r] == m.by_reason[r]);
    FUZZ_CHECK(c0.accepted + c0.rejected == nrec);
    FUZZ_CHECK(c0.staged == 0 && c0.open_batches == 0 && c0.pending == 0);
    FUZZ_CHECK(c0.generations == m.generations);
    FUZZ_CHECK(gc_queue_pending(gc_world_queue(world)) == 0);
    FUZZ_CHECK(gc_queue_head(gc_world_queue(world)) == first + nrec);
    FUZZ_CHECK(gc_world_edits_applied(world) == first + nrec);
    gc_edit_applier_free(a);

    /* Leave the header as it was made for the next input. */
    qh->capacity = cap0;
    qh->claim_timeout_ns = claim0;
    atomic_store(&qh->head, gc_queue_head(gc_world_queue(world)));
    gc_error err;
    FUZZ_CHECK(gc_queue_intact(gc_world_queue(world), &err) == GC_OK);
    return 0;
}
