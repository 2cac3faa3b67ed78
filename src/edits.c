/*
 * edits.c: the daemon's side of the edit queue: stage and apply.
 *
 * Between ticks the simulation loop calls gc_edit_applier_drain, which takes
 * what the queue holds and turns it into cell changes.  The rules it keeps:
 *
 * - Everything popped is untrusted.  gc_edit_classify (edits-check.c)
 *   looks at every field before anything is done with an entry; a bad
 *   entry is counted under one reason and goes no further.  Nothing from
 *   the queue is used as a size or an index before it has been checked
 *   against the map.  The queue header's own fields (capacity, claim
 *   timeout, head) are never read: producers can write that object, so
 *   the handle's copies are used.
 * - Exactly once.  The ring hands out each position once (gc_queue_pop
 *   frees the slot as it copies the entry out), so an entry arrives at most
 *   once; an unbatched entry is applied when it arrives, and a batch's
 *   entries are copied into the applier and applied once, when their END
 *   arrives, after which the batch is forgotten.  Nothing is ever applied
 *   from the queue's memory after the pop.
 * - All or nothing per batch.  A batch applies only if every entry named
 *   by its END's count arrived and was accepted.  An entry rejected by its
 *   check "poisons" its batch; a lost entry (dead claim, corrupt) makes the
 *   count differ.  Either way the whole batch is rejected at its END.
 * - Bounded.  At most max_open_batches batches and max_staged entries are
 *   held; at most max_pops entries are taken per drain, and no more once
 *   cell_budget cells were written, so that a flood delays the edits
 *   behind it, never the tick.  Memory for changes is reserved before an
 *   edit is applied, so an allocation failure rejects an edit whole rather
 *   than leaving it half done.
 * - One generation per tick with changes.  The cells are written inside
 *   one gc_world_cells_begin/end pair per drain, opened at the first write
 *   that changes a type.  edits_applied is published after the pair closes
 *   (release), so a tool that sees it pass its position sees its cells.
 * - Changed cells are deduplicated with a bitmap of the grid (1 bit a cell,
 *   allocated at the first drain) and reported only when their type at the
 *   end of the drain differs from the one at its start.
 * - Agent commands are checked like cell edits (every field, floats
 *   finite; edits-check.c) and applied by the caller's on_agent (the host
 *   hands them to the simulation), in queue order with the cell edits
 *   around them.  A batch stages them whole (a gc_edit each, beside the
 *   20-byte cell members).  What the simulation refuses is counted under
 *   the reason its code maps to (gc_edit_reason_of): the check cannot know
 *   that a cell is a wall, a handle stale or the world full.
 * - Answers.  Every SPAWN and every entry flagged GC_EDIT_F_ANSWER gets
 *   one answer in the world's answers section once its fate is known:
 *   applied (with the new handle for a SPAWN) or refused with its reason.
 *   Corrupt entries and dead claims get none: their sender fields are not
 *   to be trusted.
 */
#include "config.h"

#include "edits_int.h"

#include <stdlib.h>
#include <string.h>

/* ---- The applier --------------------------------------------------------- */

/* A checked batch member as staged: a SET, RECT or LINE in 20 bytes, an
 * agent command as the index of its whole gc_edit in the batch's cmds;
 * with what its answer needs when it asked for one. */
typedef struct staged {
    uint8_t op, type;
    bool answer; /* GC_EDIT_F_ANSWER or a SPAWN */
    int32_t x0, y0, x1, y1;
    uint32_t cmd;                /* agent command: index in cmds */
    uint64_t position, token;    /* answer: the entry's */
} staged;

/* One open batch of one sender.  Slots are reused; `used` marks live ones. */
typedef struct batch {
    bool used;
    bool poisoned;      /* one of its entries was rejected by its check */
    uint32_t pid, id;   /* (sender_pid, batch) */
    uint64_t first_pos; /* queue position of the first staged entry */
    uint64_t last_ns;   /* now_ns of the drain that last added to it */
    staged *ent;
    uint32_t n, cap;
    gc_edit *cmds; /* its agent commands, in order */
    uint32_t ncmds, cmds_cap;
} batch;

struct gc_edit_applier {
    gc_edit_applier_config cfg;
    batch *batches; /* cfg.max_open_batches slots */
    uint32_t open;  /* slots in use */
    uint64_t staged_total;
    gc_edit_counts counts;

    /* Change tracking, sized for the grid at the first drain. */
    int32_t width, height;
    uint8_t *seen;      /* 1 bit per cell: recorded in list this drain */
    gc_cell *list;      /* cells changed this drain, in first-change order;
                           compacted in place into what drain returns */
    uint8_t *list_orig; /* their type when the drain began */
    size_t list_n, list_cap;

    /* Per drain. */
    gc_world *w;
    uint8_t *cells;
    bool cells_open;      /* we called gc_world_cells_begin */
    bool cells_writing;   /* begin done (by us, or by the caller before us) */
    uint64_t cell_writes; /* cells visited this drain, for the budget */
};

int
gc_edit_applier_new(gc_edit_applier **out, const gc_edit_applier_config *cfg)
{
    if (out == NULL)
        return GC_EINVAL;
    *out = NULL;
    gc_edit_applier *a = calloc(1, sizeof *a);
    if (a == NULL)
        return GC_ENOMEM;
    if (cfg != NULL)
        a->cfg = *cfg;
    if (a->cfg.max_open_batches == 0)
        a->cfg.max_open_batches = GC_EDIT_DEFAULT_OPEN_BATCHES;
    if (a->cfg.max_staged == 0)
        a->cfg.max_staged = GC_EDIT_DEFAULT_STAGED;
    if (a->cfg.batch_timeout_ms == 0)
        a->cfg.batch_timeout_ms = GC_EDIT_DEFAULT_BATCH_TIMEOUT_MS;
    if (a->cfg.cell_budget == 0)
        a->cfg.cell_budget = GC_EDIT_DEFAULT_CELL_BUDGET;
    a->batches = calloc(a->cfg.max_open_batches, sizeof *a->batches);
    if (a->batches == NULL) {
        free(a);
        return GC_ENOMEM;
    }
    *out = a;
    return GC_OK;
}

static void
batch_close(gc_edit_applier *a, batch *b)
{
    a->staged_total -= b->n;
    a->open--;
    free(b->ent);
    free(b->cmds);
    memset(b, 0, sizeof *b);
}

static void
free_tracking(gc_edit_applier *a)
{
    free(a->seen);
    free(a->list);
    free(a->list_orig);
    a->seen = NULL;
    a->list = NULL;
    a->list_orig = NULL;
    a->list_n = a->list_cap = 0;
    a->width = a->height = 0;
}

void
gc_edit_applier_free(gc_edit_applier *a)
{
    if (a == NULL)
        return;
    for (uint32_t i = 0; i < a->cfg.max_open_batches; i++)
        if (a->batches[i].used)
            batch_close(a, &a->batches[i]);
    free(a->batches);
    free_tracking(a);
    free(a);
}

void
gc_edit_applier_counts(const gc_edit_applier *a, gc_edit_counts *out)
{
    *out = a->counts;
    out->staged = a->staged_total;
    out->open_batches = a->open;
}

static void
reject(gc_edit_applier *a, int reason, uint64_t n)
{
    a->counts.by_reason[reason] += n;
    a->counts.rejected += n;
}

/* Whether an entry gets an answer: every SPAWN, and what asked. */
static bool
wants_answer(const gc_edit *e)
{
    return e->op == GC_EDIT_SPAWN || (e->flags & GC_EDIT_F_ANSWER) != 0;
}

/* Answer (pid, token, position): applied (reason < 0, handle) or refused
 * with `reason`. */
static void
answer(gc_edit_applier *a, uint32_t pid, uint64_t token, uint64_t position,
       uint32_t op, int code, int reason, uint32_t handle)
{
    if (a->w == NULL)
        return;
    gc_world_answer ans = {.position = position,
                           .token = token,
                           .tick = gc_world_tick(a->w),
                           .sender_pid = pid,
                           .op = op,
                           .code = reason < 0 ? GC_OK : code,
                           .reason = reason < 0 ? -1 : reason,
                           .handle = handle};
    gc_world_answer_publish(a->w, &ans);
}

static void
answer_entry(gc_edit_applier *a, const gc_edit *e, int code, int reason,
             uint32_t handle)
{
    if (wants_answer(e))
        answer(a, e->sender_pid, e->client_token, e->position, e->op, code,
               reason, handle);
}

/* The gc_err an answer carries for a reason found by the check. */
static int
code_of_reason(int reason)
{
    switch (reason) {
    case GC_EDIT_R_OUT_OF_BOUNDS:
        return GC_EOUTSIDE;
    case GC_EDIT_R_TOO_BIG:
        return GC_ETOOBIG;
    case GC_EDIT_R_NO_MEMORY:
        return GC_ENOMEM;
    case GC_EDIT_R_BAD_VALUE:
        return GC_ERANGE;
    }
    return GC_EINVAL;
}

/* Count one entry rejected for `reason` and answer it with that reason's
 * code, if it wants an answer. */
static void
refuse_entry(gc_edit_applier *a, const gc_edit *e, int reason)
{
    reject(a, reason, 1);
    answer_entry(a, e, code_of_reason(reason), reason, 0);
}

/* Apply one checked agent command through on_agent; count it; answer. */
static void
apply_agent(gc_edit_applier *a, const gc_edit *e)
{
    uint32_t handle = 0;
    int code = a->cfg.on_agent != NULL
                   ? a->cfg.on_agent(a->cfg.on_agent_arg, e, &handle)
                   : GC_EINVAL;
    int reason = -1;
    if (a->cfg.on_agent == NULL)
        reason = GC_EDIT_R_NO_AGENTS;
    else if (code != GC_OK)
        reason = gc_edit_reason_of(code);
    if (reason < 0)
        a->counts.accepted++;
    else
        reject(a, reason, 1);
    answer_entry(a, e, code, reason, reason < 0 ? handle : 0);
}

/* ---- Writing cells ------------------------------------------------------- */

/* Make room for `more` further cells in the change list. */
static int
reserve_changes(gc_edit_applier *a, uint64_t more)
{
    uint64_t cells = (uint64_t)a->width * (uint64_t)a->height;
    /* A cell is listed once per drain, so the list never exceeds the grid. */
    uint64_t want = a->list_n + (more < cells ? more : cells);
    if (want > cells)
        want = cells;
    if (want <= a->list_cap)
        return GC_OK;
    uint64_t cap = a->list_cap ? a->list_cap : 64;
    while (cap < want)
        cap *= 2;
    if (cap > cells)
        cap = cells;
    gc_cell *list = realloc(a->list, cap * sizeof *list);
    if (list == NULL)
        return GC_ENOMEM;
    a->list = list;
    uint8_t *orig = realloc(a->list_orig, cap);
    if (orig == NULL)
        return GC_ENOMEM;
    a->list_orig = orig;
    a->list_cap = (size_t)cap;
    return GC_OK;
}

/* Cell (x, y) becomes `type`.  Room in the list was reserved beforehand. */
static void
put(gc_edit_applier *a, int32_t x, int32_t y, uint8_t type)
{
    size_t idx = (size_t)y * (size_t)a->width + (size_t)x;
    uint8_t *c = &a->cells[idx];
    if (*c == type)
        return;
    if (!a->cells_writing) {
        /* GC_EINVAL means the caller already holds the pair open: write
         * inside it and leave closing it to them. */
        a->cells_open = gc_world_cells_begin(a->w) == GC_OK;
        a->cells_writing = true;
    }
    uint8_t bit = (uint8_t)(1u << (idx & 7));
    if (!(a->seen[idx >> 3] & bit)) {
        a->seen[idx >> 3] |= bit;
        a->list[a->list_n] = (gc_cell){x, y};
        a->list_orig[a->list_n] = *c;
        a->list_n++;
    }
    *c = type;
}

/* Apply one checked SET, RECT or LINE. */
static void
apply_one(gc_edit_applier *a, const staged *s)
{
    int32_t x0 = s->x0, y0 = s->y0, x1 = s->x1, y1 = s->y1;
    if (a->cfg.on_apply != NULL) {
        gc_edit e = {.op = s->op,
                     .type = s->type,
                     .x0 = x0,
                     .y0 = y0,
                     .x1 = x1,
                     .y1 = y1};
        a->cfg.on_apply(a->cfg.on_apply_arg, &e);
    }
    switch (s->op) {
    case GC_EDIT_SET:
        put(a, x0, y0, s->type);
        break;
    case GC_EDIT_RECT: {
        if (x0 > x1) {
            int32_t t = x0;
            x0 = x1, x1 = t;
        }
        if (y0 > y1) {
            int32_t t = y0;
            y0 = y1, y1 = t;
        }
        for (int32_t y = y0; y <= y1; y++)
            for (int32_t x = x0; x <= x1; x++)
                put(a, x, y, s->type);
        break;
    }
    case GC_EDIT_LINE: {
        /* The one line rule (grid.h), the one the viewer previews with. */
        gc_line_walk lw;
        gc_cell c;
        gc_line_walk_init(&lw, (gc_cell){x0, y0}, (gc_cell){x1, y1});
        while (gc_line_walk_next(&lw, &c))
            put(a, c.x, c.y, s->type);
        break;
    }
    }
}

/*
 * Apply n checked entries of sender `pid` together, in order, or none of
 * them when the room to record their cell changes cannot be had.  Cell
 * edits are counted accepted here, agent commands (cmds[s.cmd]) by
 * apply_agent, which may refuse one alone.
 */
static int
apply_list(gc_edit_applier *a, const staged *s, uint32_t n,
           const gc_edit *cmds, uint32_t pid)
{
    uint64_t cells = 0;
    for (uint32_t i = 0; i < n; i++) {
        gc_edit e = {.op = s[i].op,
                     .x0 = s[i].x0,
                     .y0 = s[i].y0,
                     .x1 = s[i].x1,
                     .y1 = s[i].y1};
        cells += gc_edit_cell_count(&e);
    }
    if (reserve_changes(a, cells) != GC_OK)
        return GC_ENOMEM;
    for (uint32_t i = 0; i < n; i++) {
        if (gc_edit_is_agent_op(s[i].op)) {
            apply_agent(a, &cmds[s[i].cmd]);
            continue;
        }
        apply_one(a, &s[i]);
        a->counts.accepted++;
        if (s[i].answer)
            answer(a, pid, s[i].token, s[i].position, s[i].op, GC_OK, -1, 0);
    }
    a->cell_writes += cells;
    return GC_OK;
}

/* Answer the members of a batch refused whole for `reason`. */
static void
answer_members(gc_edit_applier *a, const batch *b, int reason)
{
    for (uint32_t i = 0; i < b->n; i++)
        if (b->ent[i].answer)
            answer(a, b->pid, b->ent[i].token, b->ent[i].position,
                   b->ent[i].op, code_of_reason(reason), reason, 0);
}

/* ---- Batches ------------------------------------------------------------- */

static batch *
batch_find(gc_edit_applier *a, uint32_t pid, uint32_t id)
{
    if (a->open == 0)
        return NULL;
    for (uint32_t i = 0; i < a->cfg.max_open_batches; i++) {
        batch *b = &a->batches[i];
        if (b->used && b->pid == pid && b->id == id)
            return b;
    }
    return NULL;
}

/* The batch (pid, id), opened if need be; NULL when no slot is free. */
static batch *
batch_get(gc_edit_applier *a, uint32_t pid, uint32_t id, uint64_t now_ns)
{
    batch *b = batch_find(a, pid, id);
    if (b != NULL)
        return b;
    if (a->open >= a->cfg.max_open_batches)
        return NULL;
    for (uint32_t i = 0; i < a->cfg.max_open_batches; i++) {
        b = &a->batches[i];
        if (!b->used) {
            memset(b, 0, sizeof *b);
            b->used = true;
            b->pid = pid;
            b->id = id;
            b->last_ns = now_ns;
            a->open++;
            return b;
        }
    }
    return NULL; /* not reached: open < max means a slot is free */
}

/* What staging or applying keeps of a checked entry (cmd 0: the caller
 * sets it for an agent command in a batch). */
static staged
staged_of(const gc_edit *e)
{
    return (staged){(uint8_t)e->op, (uint8_t)e->type, wants_answer(e),
                    e->x0,          e->y0,           e->x1,
                    e->y1,          0,               e->position,
                    e->client_token};
}

/* Hold a checked batch member until its END. */
static void
stage(gc_edit_applier *a, const gc_edit *e, uint64_t now_ns)
{
    batch *b = batch_get(a, e->sender_pid, e->batch, now_ns);
    if (b == NULL || b->n >= GC_EDIT_MAX_BATCH ||
        a->staged_total >= a->cfg.max_staged) {
        /* Its END will find the count short and reject the rest. */
        refuse_entry(a, e, GC_EDIT_R_BATCH_OVERFLOW);
        return;
    }
    if (b->n == b->cap) {
        uint32_t cap = b->cap ? b->cap * 2 : 16;
        if (cap > GC_EDIT_MAX_BATCH)
            cap = GC_EDIT_MAX_BATCH;
        staged *ent = realloc(b->ent, (size_t)cap * sizeof *ent);
        if (ent == NULL) {
            refuse_entry(a, e, GC_EDIT_R_NO_MEMORY);
            return;
        }
        b->ent = ent;
        b->cap = cap;
    }
    staged st = staged_of(e);
    if (gc_edit_is_agent_op(e->op)) {
        if (b->ncmds == b->cmds_cap) {
            uint32_t cap = b->cmds_cap ? b->cmds_cap * 2 : 8;
            gc_edit *cmds = realloc(b->cmds, (size_t)cap * sizeof *cmds);
            if (cmds == NULL) {
                refuse_entry(a, e, GC_EDIT_R_NO_MEMORY);
                return;
            }
            b->cmds = cmds;
            b->cmds_cap = cap;
        }
        st.cmd = b->ncmds;
        b->cmds[b->ncmds++] = *e;
    }
    if (b->n == 0)
        b->first_pos = e->position;
    b->ent[b->n++] = st;
    b->last_ns = now_ns;
    a->staged_total++;
}

/* A batch's END: apply the batch whole, or reject it whole. */
static void
batch_end(gc_edit_applier *a, const gc_edit *e)
{
    batch *b = batch_find(a, e->sender_pid, e->batch);
    uint32_t n = b != NULL ? b->n : 0;
    if (b == NULL && e->x0 == 0) {
        a->counts.accepted++; /* an empty batch: nothing to do */
        answer_entry(a, e, GC_OK, -1, 0);
        return;
    }
    int why = -1;
    if (b == NULL || b->poisoned || n != (uint32_t)e->x0)
        why = GC_EDIT_R_BATCH_INCOMPLETE;
    else if (apply_list(a, b->ent, n, b->cmds, b->pid) != GC_OK)
        why = GC_EDIT_R_NO_MEMORY;
    if (why >= 0) {
        reject(a, why, (uint64_t)n + 1);
        a->counts.batches_dropped++;
        if (b != NULL)
            answer_members(a, b, why);
        answer_entry(a, e, code_of_reason(why), why, 0);
    } else {
        a->counts.accepted++; /* the END; the members were counted */
        a->counts.batches_applied++;
        answer_entry(a, e, GC_OK, -1, 0);
    }
    if (b != NULL)
        batch_close(a, b);
}

/* Drop batches whose END has not come for the timeout. */
static void
expire(gc_edit_applier *a, uint64_t now_ns, uint64_t timeout_ns)
{
    for (uint32_t i = 0; a->open > 0 && i < a->cfg.max_open_batches; i++) {
        batch *b = &a->batches[i];
        if (!b->used || now_ns < b->last_ns ||
            now_ns - b->last_ns <= timeout_ns)
            continue;
        reject(a, GC_EDIT_R_BATCH_TIMEOUT, b->n);
        a->counts.batches_dropped++;
        answer_members(a, b, GC_EDIT_R_BATCH_TIMEOUT);
        batch_close(a, b);
    }
}

/* ---- Draining ------------------------------------------------------------ */

static void
handle(gc_edit_applier *a, gc_world *w, const gc_edit *e, uint64_t now_ns)
{
    int r = gc_edit_classify(e, a->width, a->height);
    if (r < 0 && e->op == GC_EDIT_TRACE &&
        (uint32_t)e->x0 != GC_WORLD_NO_AGENT &&
        (uint32_t)e->x0 >= gc_world_agent_capacity(w))
        r = GC_EDIT_R_BAD_AGENT;
    if (r >= 0) {
        refuse_entry(a, e, r);
        /* A batch member that fails its check sinks its batch.  (Its
         * sender and batch fields passed the ring's check, so they name
         * the batch as well as anything does.) */
        bool member = e->op == GC_EDIT_SET || e->op == GC_EDIT_RECT ||
                      e->op == GC_EDIT_LINE || gc_edit_is_agent_op(e->op);
        if (member && e->batch != 0) {
            batch *b = batch_get(a, e->sender_pid, e->batch, now_ns);
            if (b != NULL) {
                b->poisoned = true;
                b->last_ns = now_ns;
            }
        }
        return;
    }
    switch (e->op) {
    case GC_EDIT_TRACE:
        gc_world_set_trace_request(w, (uint32_t)e->x0, (uint32_t)e->y0);
        a->counts.accepted++;
        return;
    case GC_EDIT_BATCH_END:
        batch_end(a, e);
        return;
    }
    if (e->batch != 0) {
        stage(a, e, now_ns);
        return;
    }
    if (gc_edit_is_agent_op(e->op)) {
        apply_agent(a, e);
        return;
    }
    staged s = staged_of(e);
    if (apply_list(a, &s, 1, NULL, e->sender_pid) != GC_OK) {
        refuse_entry(a, e, GC_EDIT_R_NO_MEMORY);
    }
}

/* Size the change tracking for a width x height grid. */
static int
track_init(gc_edit_applier *a, int32_t width, int32_t height)
{
    if (a->seen != NULL && a->width == width && a->height == height)
        return GC_OK;
    free_tracking(a);
    size_t cells = (size_t)width * (size_t)height;
    a->seen = calloc((cells + 7) / 8, 1);
    if (a->seen == NULL)
        return GC_ENOMEM;
    a->width = width;
    a->height = height;
    return GC_OK;
}

/* The queue's capacity and claim timeout as the daemon created them, from
 * its handle: never from the queue header, which producers can write.
 * (Clamped all the same, in case a handle ever comes from elsewhere.) */
static void
queue_limits(const gc_world *w, uint64_t *cap, uint64_t *claim_ns)
{
    const gc_queue *q = gc_world_queue(w);
    uint64_t c = gc_queue_capacity(q), t = gc_queue_claim_timeout_ns(q);
    *cap = c < 2 ? 2 : c > GC_QUEUE_MAX_CAPACITY ? GC_QUEUE_MAX_CAPACITY : c;
    const uint64_t hour = UINT64_C(3600000000000);
    *claim_ns = t > hour ? hour : t;
}

int
gc_edit_applier_drain(gc_edit_applier *a, gc_world *w, gc_grid *g,
                      uint64_t now_ns, const gc_cell **changed,
                      size_t *n_changed)
{
    if (changed != NULL)
        *changed = NULL;
    if (n_changed != NULL)
        *n_changed = 0;
    if (a == NULL || w == NULL || g == NULL || g->cells == NULL)
        return GC_EINVAL;
    if (!gc_world_is_owner(w))
        return GC_EPERM;
    gc_queue *q = gc_world_queue(w);
    if (gc_queue_capacity(q) == 0 || g->width != gc_world_width(w) ||
        g->height != gc_world_height(w))
        return GC_EINVAL;
    int rc = track_init(a, g->width, g->height);
    if (rc != GC_OK)
        return rc;

    uint64_t cap, claim_ns;
    queue_limits(w, &cap, &claim_ns);
    uint64_t max_pops = a->cfg.max_pops ? a->cfg.max_pops : 4 * cap;
    uint64_t timeout_ns = (uint64_t)a->cfg.batch_timeout_ms * 1000000u;
    if (timeout_ns < claim_ns + UINT64_C(1000000000))
        timeout_ns = claim_ns + UINT64_C(1000000000);

    a->w = w;
    a->cells = g->cells;
    a->cells_open = a->cells_writing = false;
    a->cell_writes = 0;
    a->list_n = 0;

    bool emptied = false;
    for (uint64_t pops = 0;
         pops < max_pops && a->cell_writes < a->cfg.cell_budget; pops++) {
        gc_edit e;
        rc = gc_queue_pop(q, &e);
        if (rc == GC_EAGAIN) {
            emptied = true;
            break;
        }
        if (rc == GC_ETIMEOUT)
            reject(a, GC_EDIT_R_DEAD_CLAIM, 1);
        else if (rc == GC_ECORRUPT)
            reject(a, GC_EDIT_R_CORRUPT, 1);
        else if (rc == GC_OK)
            handle(a, w, &e, now_ns);
        else
            break; /* GC_EBADMAGIC: the queue object was damaged; the
                      daemon checks it (gc_queue_intact) */
    }
    /* Only a batch with nothing of it left in the queue can be late. */
    if (emptied)
        expire(a, now_ns, timeout_ns);

    /* Report what really changed, and clear the bitmap for next time. */
    size_t n = 0;
    for (size_t i = 0; i < a->list_n; i++) {
        gc_cell c = a->list[i];
        size_t idx = (size_t)c.y * (size_t)a->width + (size_t)c.x;
        a->seen[idx >> 3] &= (uint8_t) ~(1u << (idx & 7));
        if (a->cells[idx] != a->list_orig[i])
            a->list[n++] = c;
    }
    if (a->cells_writing) {
        if (a->cells_open)
            gc_world_cells_end(w);
        g->generation++;
        a->counts.generations++;
    }
    a->counts.cells_changed += n;

    /* Everything before the head has been dealt with, except what waits in
     * a batch. */
    uint64_t applied = gc_queue_head(q);
    for (uint32_t i = 0; a->open > 0 && i < a->cfg.max_open_batches; i++) {
        const batch *b = &a->batches[i];
        if (b->used && b->n > 0 && b->first_pos < applied)
            applied = b->first_pos;
    }
    if (applied < a->counts.applied)
        applied = a->counts.applied; /* never backwards */
    a->counts.applied = applied;
    a->counts.pending = gc_queue_pending(q) + a->staged_total;
    gc_world_set_edit_counts(w, a->counts.accepted, a->counts.rejected,
                             a->counts.pending);
    gc_world_set_edits_applied(w, applied);

    a->w = NULL;
    a->cells = NULL;
    if (changed != NULL)
        *changed = n > 0 ? a->list : NULL;
    if (n_changed != NULL)
        *n_changed = n;
    return GC_OK;
}
