/*
 * sim-crowd-contact.c: the contacts pass, after the crowd step's tick.
 *
 * Separation (sim-crowd.c) sees only the overlaps the tick starts with;
 * a pair can still walk into each other within a tick when their
 * programs are infeasible (two bodies just apart in a dense crossing on
 * den520d, each turned by its least-violation answer into the other,
 * closed 0.12 cell in one tick).
 * An agent whose program was infeasible is flagged, and after the tick
 * each of its pairs that came deeper than CONTACT_FROM (8% of 2r) is put
 * back to that depth, or to its depth as the tick started when that was
 * deeper; a body moved so has its own pairs checked in the next sweep.
 * A bound skips most flagged agents unread: one whose nearest neighbour
 * started further from such a contact than it and the furthest-moving
 * agent together moved.  den520d's deepest overlap on seeds 2, 3 and 5
 * went from 0.112, 0.105 and 0.101 of 2r to 0.080 (so did seeds 1 to 7
 * all); circle, corridor and bottleneck never come 8% deep and run as
 * before, to the bit.
 */
#include "config.h"

#include "grid_int.h"
#include "sim_crowd_int.h"

#include <math.h>

#define CONTACT_FROM                                                           \
    0.08f                /* of 2r: deeper contacts made in a tick are undone */
#define CONTACT_SWEEPS 4 /* at most, a tick */

/*
 * Contacts after the tick: a pair whose bodies came nearer in the tick
 * than CONTACT_FROM of their radii' sum deep, one of which had an
 * infeasible program (or was moved here), is put back apart to that
 * depth (or to where they started, when that was nearer), each moving
 * half, clamped against the walls.  A body moved here may have been
 * pushed into another: its own contacts are checked in the next sweep,
 * CONTACT_SWEEPS at most.  Serial, in the order of the ids, then in the
 * order bodies were moved: the same for any number of threads, and
 * whatever the slots' order (sim-order.c).
 */
static bool
contact(gc_sim *s, uint32_t i, uint32_t j, float tol)
{
    gc_agent *ai = &s->agents[i], *aj = &s->agents[j];
    float ri = s->now[i].r, rj = s->now[j].r;
    float cap = (ri + rj) * (1.0f - CONTACT_FROM);
    float dx = ai->pos.x - aj->pos.x, dy = ai->pos.y - aj->pos.y;
    float d2 = dx * dx + dy * dy;
    if (d2 >= cap * cap || !gc_sim_alive(s, j)) /* most are apart */
        return false;
    float ox = s->now[i].x - s->now[j].x, oy = s->now[i].y - s->now[j].y;
    float d0 = sqrtf(ox * ox + oy * oy), d = sqrtf(d2);
    float want = d0 < cap ? d0 : cap;
    if (d >= want)
        return false;
    float ux, uy;
    if (d > 1e-6f * cap) {
        ux = dx / d;
        uy = dy / d;
    } else if (d0 > 1e-6f * cap) {
        ux = ox / d0;
        uy = oy / d0;
    } else {
        ux = gc_sim_id_of(s, i) < gc_sim_id_of(s, j) ? -1.0f : 1.0f;
        uy = 0.0f;
    }
    float h = 0.5f * (want - d);
    gc_vec2 ti = {ai->pos.x + ux * h, ai->pos.y + uy * h};
    gc_vec2 tj = {aj->pos.x - ux * h, aj->pos.y - uy * h};
    gc_vec2 was_i = ai->pos, was_j = aj->pos;
    ai->pos = gc_sim_clamp_move(s->grid, was_i, ti, ri, tol);
    aj->pos = gc_sim_clamp_move(s->grid, was_j, tj, rj, tol);
    /* Moved, as separation's push is counted (move()). */
    ai->travelled += hypotf(ai->pos.x - was_i.x, ai->pos.y - was_i.y);
    aj->travelled += hypotf(aj->pos.x - was_j.x, aj->pos.y - was_j.y);
    return true;
}

void
gc_sim_crowd_contacts(gc_sim *s)
{
    const size_t k = (size_t)s->orca.max_neighbours;
    const float tol = GC_SIM_WALL_TOL * s->grid->cell_size;
    uint32_t *list = s->contact_list, *next = s->contact_next, len = 0;
    float moved2 = 0.0f;
    for (int w = 0; w < s->nworkers; w++)
        if (s->workers[w].tick_moved2 > moved2)
            moved2 = s->workers[w].tick_moved2;
    float moved = sqrtf(moved2);
    size_t halves = gc_sim_halves(s->n);
    for (uint32_t b = 0; b < halves; b++) {
        /* (Most halves, most ticks, hold nobody the bound lets in.) */
        if (!(s->blk_contact[b] < moved))
            continue;
        uint32_t lo = b * GC_SIM_HALF, e = gc_sim_half_end(lo, s->n);
        for (uint32_t i = lo; i < e; i++)
            if ((s->flags[i] & GC_SIM_F_CONTACT) && s->contact_slack[i] < moved)
                list[len++] = i;
    }
    gc_sim_sort_by_id(s, list, next, len);
    for (int sweep = 0; sweep < CONTACT_SWEEPS && len > 0; sweep++) {
        uint32_t stamp = ++s->contact_stamp, more = 0;
        for (uint32_t q = 0; q < len; q++) {
            uint32_t i = list[q];
            const uint32_t *nb = s->nbr + (size_t)i * k;
            for (size_t m = 0; m < s->nbr_n[i]; m++) {
                uint32_t j = nb[m];
                if (!contact(s, i, j, tol))
                    continue;
                if (s->contact_mark[i] != stamp) {
                    s->contact_mark[i] = stamp;
                    next[more++] = i;
                }
                if (s->contact_mark[j] != stamp) {
                    s->contact_mark[j] = stamp;
                    next[more++] = j;
                }
            }
        }
        uint32_t *t = list;
        list = next;
        next = t;
        len = more;
    }
}

/* An agent's contact_slack (sim_int.h): its nearest neighbour's squared
 * distance d2[0] as the tick started, and its own move, squared.  A
 * little short, against rounding. */
float
gc_sim_crowd_contact_slack(const gc_sim *s, uint32_t i, const float *d2,
                           size_t n, float moved2)
{
    if (n == 0)
        return INFINITY;
    float cap = (s->now[i].r + s->rmax) * (1.0f - CONTACT_FROM);
    return (sqrtf(d2[0]) - cap - sqrtf(moved2)) * (1.0f - 1e-4f) - 1e-6f * cap;
}
