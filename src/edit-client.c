/*
 * edit-client.c: the client half of the edit protocol (edit-client.h).
 *
 * Until this file it lived inside gridcrowd-ctl, and any other program that
 * wanted to edit the grid atomically had to copy it.  The rules it keeps:
 *
 * - A batch is the edits, each with the batch id, then a BATCH_END whose
 *   x0 is their number.  The daemon names a batch by (sender pid, id), so
 *   ids are drawn from the clock and the pid, never 0, and a process that
 *   sends several batches takes a new id for each.
 * - Waiting is by queue position: the world's edits_applied says up to
 *   which position everything has been applied or rejected.  Positions are
 *   the queue's, shared by every producer, so "every edit I pushed is done"
 *   is "edits_applied passed my last position".  The wait polls with a
 *   growing nap (1 ms to 20 ms: an edit normally lands within a tick) and
 *   checks the daemon's liveness every 100 ms rather than every poll, since
 *   that costs an fstat and a kill(0).
 * - Nothing here writes the world, and nothing blocks the daemon.
 */
#include "config.h"

#include <gridcrowd/edit-client.h>
#include <gridcrowd/util.h>

#include <stdbool.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

uint32_t
gc_edit_batch_id(void)
{
    uint64_t h = gc_clock_ns() ^ ((uint64_t)getpid() << 32);
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    h ^= (uint64_t)ts.tv_nsec * UINT64_C(0x9e3779b97f4a7c15);
    h ^= h >> 31;
    h *= UINT64_C(0xbf58476d1ce4e5b9);
    h ^= h >> 29;
    uint32_t id = (uint32_t)h;
    return id != 0 ? id : 1;
}

int
gc_edit_send(gc_queue *q, gc_edit *ed, size_t n, unsigned flags,
             uint64_t timeout_ns, gc_edit_sent *out)
{
    gc_edit_sent s = {0, 0, 0};
    if (out != NULL)
        *out = s;
    if (q == NULL || (ed == NULL && n > 0) || gc_queue_capacity(q) == 0)
        return GC_EINVAL;
    bool each = (flags & GC_EDIT_SEND_EACH) != 0 || n <= 1;
    if (!each && n > GC_EDIT_MAX_BATCH)
        return GC_ETOOBIG;
    s.batch = each ? 0 : gc_edit_batch_id();
    int rc = GC_OK;
    for (size_t i = 0; i < n; i++) {
        ed[i].batch = s.batch;
        if ((rc = gc_queue_push(q, &ed[i], timeout_ns)) != GC_OK)
            goto out;
        s.sent++;
        s.wait_for = ed[i].position + 1;
    }
    if (s.batch != 0) {
        gc_edit end = {
            .op = GC_EDIT_BATCH_END, .x0 = (int32_t)n, .batch = s.batch};
        if ((rc = gc_queue_push(q, &end, timeout_ns)) != GC_OK)
            goto out;
        s.wait_for = end.position + 1;
    }
out:
    if (out != NULL)
        *out = s;
    return rc;
}

int
gc_edit_wait(const gc_world *w, uint64_t upto, uint64_t timeout_ns)
{
    if (w == NULL)
        return GC_EINVAL;
    const uint64_t start = gc_clock_ns();
    uint64_t nap_ns = 1000000, last_check = start;
    for (;;) {
        if (gc_world_edits_applied(w) >= upto)
            return GC_OK;
        uint64_t now = gc_clock_ns();
        if (now - start >= timeout_ns)
            return GC_ETIMEOUT;
        if (now - last_check >= 100000000u) {
            last_check = now;
            if (!gc_world_owner_alive(w) ||
                gc_world_state(w) == GC_WORLD_STOPPING)
                return GC_ENOENT;
        }
        struct timespec ts = {0, (long)nap_ns};
        nanosleep(&ts, NULL);
        if (nap_ns < 20000000)
            nap_ns = nap_ns * 2 > 20000000 ? 20000000 : nap_ns * 2;
    }
}

size_t
gc_edit_count_applied(const gc_world *w, const gc_edit *ed, size_t n)
{
    const uint64_t applied = gc_world_edits_applied(w);
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        k += ed[i].position < applied;
    return k;
}

/* ---- Diffing a grid against a map ---------------------------------------- */

/* A growable list of edits. */
typedef struct edit_list {
    gc_edit *e;
    size_t n, cap;
} edit_list;

static bool
edit_list_add(edit_list *l, const gc_edit *e)
{
    if (l->n == l->cap) {
        size_t cap = l->cap ? 2 * l->cap : 256;
        gc_edit *ne = realloc(l->e, cap * sizeof *ne);
        if (ne == NULL)
            return false;
        l->e = ne;
        l->cap = cap;
    }
    l->e[l->n++] = *e;
    return true;
}

/* The run of differing cells of one wanted type that starts at (x, y):
 * its last x. */
static int32_t
run_end(const uint8_t *cur, const uint8_t *want, int32_t w, int32_t x, size_t i)
{
    int32_t x1 = x;
    while (x1 + 1 < w &&
           cur[i + (size_t)(x1 + 1 - x)] != want[i + (size_t)(x1 + 1 - x)] &&
           want[i + (size_t)(x1 + 1 - x)] == want[i])
        x1++;
    return x1;
}

int
gc_edit_diff(const uint8_t *cur, const uint8_t *want, int32_t width,
             int32_t height, gc_edit **out, size_t *n, uint64_t *cells)
{
    if (out == NULL || n == NULL)
        return GC_EINVAL;
    *out = NULL;
    *n = 0;
    if (cells != NULL)
        *cells = 0;
    if (cur == NULL || want == NULL || width < 1 || height < 1)
        return GC_EINVAL;
    /* Rectangles still open from the row above, in x order. */
    edit_list res = {0}, open = {0}, next = {0};
    uint64_t ncells = 0;
    bool ok = true;
    for (int32_t y = 0; y <= height && ok; y++) {
        size_t k = 0; /* next open rectangle to match */
        next.n = 0;
        for (int32_t x = 0; y < height && x < width && ok;) {
            size_t i = (size_t)y * (size_t)width + (size_t)x;
            if (cur[i] == want[i]) {
                x++;
                continue;
            }
            int32_t x1 = run_end(cur, want, width, x, i);
            ncells += (uint64_t)(x1 - x + 1);
            gc_edit r = {.op = GC_EDIT_RECT,
                         .type = want[i],
                         .x0 = x,
                         .y0 = y,
                         .x1 = x1,
                         .y1 = y};
            /* Close the open rectangles that end left of this run. */
            while (k < open.n && open.e[k].x0 < x)
                ok = ok && edit_list_add(&res, &open.e[k++]);
            if (k < open.n && open.e[k].x0 == x && open.e[k].x1 == x1 &&
                open.e[k].type == r.type) {
                r.y0 = open.e[k].y0; /* extend it down */
                k++;
            }
            ok = ok && edit_list_add(&next, &r);
            x = x1 + 1;
        }
        while (k < open.n && ok)
            ok = edit_list_add(&res, &open.e[k++]);
        edit_list t = open;
        open = next;
        next = t;
    }
    free(open.e);
    free(next.e);
    if (!ok) {
        free(res.e);
        return GC_ENOMEM;
    }
    /* A single cell goes as SET. */
    for (size_t i = 0; i < res.n; i++)
        if (res.e[i].x0 == res.e[i].x1 && res.e[i].y0 == res.e[i].y1) {
            res.e[i].op = GC_EDIT_SET;
            res.e[i].x1 = res.e[i].y1 = 0;
        }
    *out = res.e;
    *n = res.n;
    if (cells != NULL)
        *cells = ncells;
    return GC_OK;
}
