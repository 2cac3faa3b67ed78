/*
 * edits-check.c: the edit queue's entry check and reason table.
 *
 * Everything popped from the queue is untrusted: gc_edit_classify looks at
 * every field of an entry (op, type, unused fields, batch fields, bounds,
 * size; for agent commands the handles and that every float is finite and
 * in range) against the map's size alone, and names the one reason it is
 * rejected.  It reads nothing but the entry, so producers (gc_edit_check)
 * and the applier (edits.c) judge an entry the same way.  What it cannot
 * know (a wall, a stale handle, a full world) the simulation reports, and
 * gc_edit_reason_of maps its code to a reason.
 */
#include "config.h"

#include "edits_int.h"

#include <math.h>

/* ---- Checking ------------------------------------------------------------ */

static const char *const reason_names[GC_EDIT_NREASONS] = {
    [GC_EDIT_R_BAD_OP] = "bad_op",
    [GC_EDIT_R_BAD_TYPE] = "bad_type",
    [GC_EDIT_R_BAD_FIELD] = "bad_field",
    [GC_EDIT_R_OUT_OF_BOUNDS] = "out_of_bounds",
    [GC_EDIT_R_TOO_BIG] = "too_big",
    [GC_EDIT_R_BAD_BATCH] = "bad_batch",
    [GC_EDIT_R_BAD_AGENT] = "bad_agent",
    [GC_EDIT_R_BATCH_INCOMPLETE] = "batch_incomplete",
    [GC_EDIT_R_BATCH_TIMEOUT] = "batch_timeout",
    [GC_EDIT_R_BATCH_OVERFLOW] = "batch_overflow",
    [GC_EDIT_R_NO_MEMORY] = "no_memory",
    [GC_EDIT_R_CORRUPT] = "corrupt",
    [GC_EDIT_R_DEAD_CLAIM] = "dead_claim",
    [GC_EDIT_R_BAD_VALUE] = "bad_value",
    [GC_EDIT_R_STALE_AGENT] = "stale_agent",
    [GC_EDIT_R_CAPACITY] = "capacity",
    [GC_EDIT_R_BLOCKED] = "blocked",
    [GC_EDIT_R_OVERLAP] = "overlap",
    [GC_EDIT_R_NO_AGENTS] = "no_agents",
};

int
gc_edit_reason_of(int code)
{
    switch (code) {
    case GC_EGONE:
    case GC_EINVAL:
        return GC_EDIT_R_STALE_AGENT;
    case GC_ECAPACITY:
        return GC_EDIT_R_CAPACITY;
    case GC_EBLOCKED:
        return GC_EDIT_R_BLOCKED;
    case GC_EOUTSIDE:
        return GC_EDIT_R_OUT_OF_BOUNDS;
    case GC_EOVERLAP:
        return GC_EDIT_R_OVERLAP;
    case GC_ERANGE:
        return GC_EDIT_R_BAD_VALUE;
    case GC_ENOMEM:
        return GC_EDIT_R_NO_MEMORY;
    }
    return GC_EDIT_R_BAD_VALUE;
}

const char *
gc_edit_reason_name(int reason)
{
    if (reason < 0 || reason >= GC_EDIT_NREASONS)
        return NULL;
    return reason_names[reason];
}

static uint64_t
span(int32_t a, int32_t b)
{
    int64_t d = (int64_t)a - (int64_t)b;
    return (uint64_t)(d < 0 ? -d : d) + 1;
}

uint64_t
gc_edit_cell_count(const gc_edit *e)
{
    switch (e->op) {
    case GC_EDIT_SET:
        return 1;
    case GC_EDIT_RECT: {
        uint64_t dx = span(e->x0, e->x1), dy = span(e->y0, e->y1);
        return dx > UINT64_MAX / dy ? UINT64_MAX : dx * dy; /* saturate */
    }
    case GC_EDIT_LINE: {
        uint64_t dx = span(e->x0, e->x1), dy = span(e->y0, e->y1);
        return dx > dy ? dx : dy;
    }
    }
    return 0;
}

static bool
in_map(int32_t x, int32_t y, int32_t width, int32_t height)
{
    return x >= 0 && y >= 0 && x < width && y < height;
}


/* Every agent field zero (cell edits, END, TRACE), flags aside. */
static bool
no_agent_fields(const gc_edit *e)
{
    return e->agent == 0 && e->target == 0 && e->group == 0 &&
           e->px == 0.0f && e->py == 0.0f && e->gx == 0.0f && e->gy == 0.0f &&
           e->radius == 0.0f && e->speed == 0.0f && e->dist == 0.0f;
}

/* An agent command's reason, or -1.  Order: the goal kind (bad_type),
 * unused fields and flags (bad_field), handles (bad_agent), values
 * (bad_value). */
static int
classify_agent(const gc_edit *e)
{
    if (e->op == GC_EDIT_GOAL &&
        (e->type < GC_EDIT_GOAL_POINT || e->type > GC_EDIT_GOAL_FOLLOW))
        return GC_EDIT_R_BAD_TYPE;
    if (e->op != GC_EDIT_GOAL && e->type != 0)
        return GC_EDIT_R_BAD_FIELD;
    if (e->x0 != 0 || e->y0 != 0 || e->x1 != 0 || e->y1 != 0)
        return GC_EDIT_R_BAD_FIELD;
    uint32_t allowed = GC_EDIT_F_ANSWER;
    if (e->op == GC_EDIT_SPAWN)
        allowed |= GC_EDIT_F_GOAL;
    if (e->flags & ~allowed)
        return GC_EDIT_R_BAD_FIELD;
    /* Which fields each command uses; the rest must be zero. */
    bool pos = false, goal = false, rad = false, spd = false, dist = false;
    bool agent = true, target = false, group = false;
    switch (e->op) {
    case GC_EDIT_SPAWN:
        pos = rad = spd = group = true;
        goal = (e->flags & GC_EDIT_F_GOAL) != 0;
        agent = false;
        break;
    case GC_EDIT_REMOVE:
        break;
    case GC_EDIT_GOAL:
        pos = e->type == GC_EDIT_GOAL_POINT;
        target = dist = e->type == GC_EDIT_GOAL_FOLLOW;
        break;
    case GC_EDIT_SPEED:
        spd = true;
        break;
    case GC_EDIT_RADIUS:
        rad = true;
        break;
    }
    if ((!agent && e->agent != 0) || (!target && e->target != 0) ||
        (!group && e->group != 0) || (!pos && (e->px != 0.0f || e->py != 0.0f)) ||
        (!goal && (e->gx != 0.0f || e->gy != 0.0f)) ||
        (!rad && e->radius != 0.0f) || (!spd && e->speed != 0.0f) ||
        (!dist && e->dist != 0.0f))
        return GC_EDIT_R_BAD_FIELD;
    if ((agent && e->agent == 0) || (target && e->target == 0) ||
        (target && e->target == e->agent))
        return GC_EDIT_R_BAD_AGENT; /* none, or following itself */
    if (!isfinite(e->px) || !isfinite(e->py) || !isfinite(e->gx) ||
        !isfinite(e->gy) || !isfinite(e->radius) || !isfinite(e->speed) ||
        !isfinite(e->dist))
        return GC_EDIT_R_BAD_VALUE;
    /* SPAWN takes <= 0 as "the default"; set values must be in range. */
    if ((e->op == GC_EDIT_SPEED && !(e->speed > 0.0f)) ||
        (e->op == GC_EDIT_RADIUS && e->radius < 0.0f) || e->dist < 0.0f)
        return GC_EDIT_R_BAD_VALUE;
    return -1;
}

/* The reason `e` is rejected, or -1 when it passes.  Order: op, type,
 * unused fields, batch fields, bounds, size. */
int
gc_edit_classify(const gc_edit *e, int32_t width, int32_t height)
{
    if (gc_edit_is_agent_op(e->op))
        return classify_agent(e);
    /* Flags other than ANSWER (none on TRACE) and agent fields are
     * unused fields of the cell ops. */
    uint32_t allowed = e->op == GC_EDIT_TRACE ? 0 : GC_EDIT_F_ANSWER;
    bool extra = (e->flags & ~allowed) != 0 || !no_agent_fields(e);
    switch (e->op) {
    case GC_EDIT_SET:
        if (e->type >= GC_CELL_NTYPES)
            return GC_EDIT_R_BAD_TYPE;
        if (e->x1 != 0 || e->y1 != 0 || extra)
            return GC_EDIT_R_BAD_FIELD;
        if (!in_map(e->x0, e->y0, width, height))
            return GC_EDIT_R_OUT_OF_BOUNDS;
        return -1;
    case GC_EDIT_RECT:
    case GC_EDIT_LINE:
        if (e->type >= GC_CELL_NTYPES)
            return GC_EDIT_R_BAD_TYPE;
        if (extra)
            return GC_EDIT_R_BAD_FIELD;
        if (!in_map(e->x0, e->y0, width, height) ||
            !in_map(e->x1, e->y1, width, height))
            return GC_EDIT_R_OUT_OF_BOUNDS;
        if (gc_edit_cell_count(e) > GC_EDIT_MAX_CELLS)
            return GC_EDIT_R_TOO_BIG;
        return -1;
    case GC_EDIT_BATCH_END:
        if (e->type != 0 || e->y0 != 0 || e->x1 != 0 || e->y1 != 0 || extra)
            return GC_EDIT_R_BAD_FIELD;
        if (e->batch == 0 || e->x0 < 0 || (uint32_t)e->x0 > GC_EDIT_MAX_BATCH)
            return GC_EDIT_R_BAD_BATCH;
        return -1;
    case GC_EDIT_TRACE:
        if (e->type != 0 || e->x1 != 0 || e->y1 != 0 || extra)
            return GC_EDIT_R_BAD_FIELD;
        if (e->batch != 0)
            return GC_EDIT_R_BAD_BATCH;
        return -1;
    }
    return GC_EDIT_R_BAD_OP;
}

int
gc_edit_check(const gc_edit *e, int32_t width, int32_t height,
              const char **reason)
{
    int r = e == NULL ? GC_EDIT_R_BAD_OP : gc_edit_classify(e, width, height);
    if (reason != NULL)
        *reason = r < 0 ? NULL : reason_names[r];
    switch (r) {
    case -1:
        return GC_OK;
    case GC_EDIT_R_OUT_OF_BOUNDS:
        return GC_EOUTSIDE;
    case GC_EDIT_R_TOO_BIG:
        return GC_ETOOBIG;
    }
    return GC_EINVAL;
}
