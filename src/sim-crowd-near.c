/*
 * sim-crowd-near.c: each agent's neighbours in the crowd step, the K
 * nearest within the neighbour distance, exactly as the ORCA index answers
 * (gc_orca_grid_nearest: nearest first, ties by slot), but mostly without
 * asking it.
 *
 * Candidate lists (Verlet lists, as molecular dynamics keeps them).  Every
 * few ticks an agent draws from the index the agents within its k-th
 * neighbour's distance plus a skin (NEAR_SKIN of the neighbour distance),
 * up to near_cap of them, and notes the radius r that the list is complete
 * to.  An agent outside the list was at least r away then; since then it
 * moved at most `travel` minus its value at the draw (the loop sums, each
 * tick, the furthest any agent moved: gc_sim_crowd_prepare), and the
 * agent itself moved by its own known amount.  So while the k nearest in
 * the list are nearer than r less both moves (less a margin for
 * rounding), nobody outside can be among them or tie with them, and the
 * list's answer is the index's, bit for bit.  When it is not, the agent
 * draws again, and when even a fresh list cannot vouch (more than
 * near_cap agents at one distance), it asks the index as before.
 *
 * A list is kept in the order of its last answer, its k nearest first,
 * so the next tick's selection finds them nearly in place.  Lists are
 * the agent's own record: read and written only by its worker in the
 * tick, reset by the loop between ticks when an agent is added (it is in
 * nobody's list) or removed (it must leave every list: resetting them
 * all, rare as removals are, saves checking each candidate each tick).
 * Which list an agent holds never changes its answer, so the thread
 * count and the order of the work still change nothing.
 */
#include "config.h"

#include "knn_int.h"
#include "sim_crowd_int.h"

#include <math.h>
#include <string.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#define NEAR_SKIN 0.25f /* of the neighbour distance */

/* gc_orca_grid_nearest_hint of agent i, in slots; or, not sorted,
 * gc_orca_grid_nearest_set. */
static size_t
nearest_hint(const gc_sim *s, gc_vec2 q, uint32_t i, size_t k, float dist,
             float hint, bool sorted, uint32_t *ids, float *d2)
{
    size_t (*query)(const gc_orca_grid *, gc_vec2, size_t, size_t, float, float,
                    uint32_t *, float *) =
        sorted ? gc_orca_grid_nearest_hint : gc_orca_grid_nearest_set;
    if (!s->holes)
        return query(s->oidx, q, i, k, dist, hint, ids, d2);
    size_t n = query(s->oidx, q, s->slot_live[i], k, dist, hint, ids, d2);
    for (size_t j = 0; j < n; j++)
        ids[j] = s->live_slot[ids[j]];
    return n;
}

size_t
gc_sim_crowd_nearest(const gc_sim *s, gc_vec2 q, uint32_t i, size_t k,
                     float dist, uint32_t *ids, float *d2)
{
    return nearest_hint(s, q, i, k, dist, INFINITY, true, ids, d2);
}

/*
 * A bound for agent i's query at q: the largest squared distance, at the
 * start-of-tick positions, of the k neighbours it found last tick, when
 * it found k and all of them were alive as the tick started (so are
 * indexed); else INFINITY (no bound).  A hair larger than computed, so
 * that rounding can never leave one of them just outside.
 */
static float
neighbour_hint(const gc_sim *s, uint32_t i, gc_vec2 q, size_t k)
{
    if (s->nbr_n[i] != k)
        return INFINITY;
    const uint32_t *prev = s->nbr + (size_t)i * k;
    float h = 0.0f;
    for (size_t j = 0; j < k; j++) {
        uint32_t o = prev[j];
        if (o >= s->n || o == i || s->now[o].st == GC_SIM_ST_FREE)
            return INFINITY; /* (flags are written in the tick) */
        float dx = s->now[o].x - q.x, dy = s->now[o].y - q.y;
        float d = dx * dx + dy * dy;
        h = d > h ? d : h;
    }
    return h * (1.0f + 1e-5f) + 1e-30f;
}

/*
 * The k nearest within nd of q (agent i's start-of-tick position) from
 * its list, into ids and d2: their count, or -1 when the list cannot
 * vouch for them.  Keeps the list in the answer's order.
 */
static int
from_list(gc_sim *s, uint32_t i, gc_vec2 q, size_t k, float nd, uint32_t *ids,
          float *d2)
{
    float r = s->near_r[i];
    if (!(r > 0.0f))
        return -1;
    float ox = q.x - s->near_x[i], oy = q.y - s->near_y[i];
    /* Rounding: distances here and in the draw are floats of coordinates
     * as large as q's; a margin far above their error. */
    float margin = 1e-4f * nd + 4e-6f * (fabsf(q.x) + fabsf(q.y));
    float room = r - sqrtf(ox * ox + oy * oy) -
                 (float)(s->travel - s->near_t[i]) - margin;
    if (!(room > 0.0f))
        return -1;

    uint32_t *list = s->near + (size_t)i * s->near_cap;
    uint32_t m = s->near_n[i], p = m < k ? m : (uint32_t)k;
    uint64_t keys[GC_ORCA_MAX_NEIGHBOURS];
    for (uint32_t c = 0; c < p; c++) {
        uint32_t j = list[c];
        float dx = s->now[j].x - q.x, dy = s->now[j].y - q.y;
        keys[c] = knn_key(dx * dx + dy * dy, j);
    }
    /* Only the k nearest need sorting: sort the first k, then let each
     * later one nearer than the k-th swap in, the k-th taking its slot
     * (rare: the list is in last tick's order).  The rest keep their
     * order, unsorted, and are compared by distance first, the key built
     * only on a tie or a swap; when nothing moved, the list is left as
     * it is. */
    bool reordered = false;
    for (uint32_t c = 1; c < p; c++)
        if (keys[c] < keys[c - 1]) {
            knn_insert(keys, c, keys[c]);
            reordered = true;
        }
    float kth = p > 0 ? knn_dist(keys[p - 1]) : 0.0f;
    for (uint32_t c = p; c < m; c++) {
        uint32_t j = list[c];
        float dx = s->now[j].x - q.x, dy = s->now[j].y - q.y;
        float d = dx * dx + dy * dy;
        if (d > kth)
            continue;
        uint64_t key = knn_key(d, j);
        if (key >= keys[p - 1])
            continue;
        list[c] = (uint32_t)keys[p - 1];
        knn_insert(keys, p - 1, key);
        kth = knn_dist(keys[p - 1]);
        reordered = true;
    }
    if (reordered)
        for (uint32_t c = 0; c < p; c++)
            list[c] = (uint32_t)keys[c];

    float nd2 = nd * nd;
    uint32_t cnt = 0;
    for (; cnt < p; cnt++) {
        float d = knn_dist(keys[cnt]);
        if (!(d < nd2))
            break;
        ids[cnt] = (uint32_t)keys[cnt];
        d2[cnt] = d;
    }
    /* Complete: everyone nearer than the k-th (or within nd, when fewer
     * than k are) is in the list. */
    float b = cnt == k ? d2[k - 1] : nd2;
    return b < room * room ? (int)cnt : -1;
}

/* Which of set[0 .. n) is `id`: a bit mask (none or one bit set).
 * Without a branch per entry (an id's place is as good as random). */
static inline uint64_t
place_of(const uint32_t *set, size_t n, uint32_t id)
{
    uint64_t mask = 0;
    size_t c = 0;
#if defined(__SSE2__)
    __m128i want = _mm_set1_epi32((int)id);
    for (; c + 4 <= n; c += 4) {
        __m128i got = _mm_loadu_si128((const __m128i *)(set + c));
        unsigned bits = (unsigned)_mm_movemask_ps(
            _mm_castsi128_ps(_mm_cmpeq_epi32(got, want)));
        mask |= (uint64_t)bits << c;
    }
#endif
    for (; c < n; c++)
        mask |= (uint64_t)(set[c] == id) << c;
    return mask;
}

/*
 * Draw agent i's list afresh at q: the agents within reach, at most
 * near_cap of them (the nearest).  Its last neighbours that are among
 * them come first, in their order (nearest first, a tick ago), then the
 * rest in the index's order.  from_list sorts what it needs: a list in
 * the index's order cost it about as much as the draw itself (783
 * against 868 cycles in circle 1,000, its comparisons mispredicted); in
 * this order it is nearly sorted, as on the ticks between draws, and
 * costs 161.  Which order a list holds never changes its answer.
 */
static void
draw_list(gc_sim *s, uint32_t i, gc_vec2 q, size_t k, float reach)
{
    /* (Each entry is written, and counted only when kept: one slot
     * beyond the last for the writes that are not.) */
    uint32_t set[GC_ORCA_MAX_NEIGHBOURS], list[GC_ORCA_MAX_NEIGHBOURS + 1];
    float d2[GC_ORCA_MAX_NEIGHBOURS];
    size_t n =
        nearest_hint(s, q, i, s->near_cap, reach, INFINITY, false, set, d2);
    const uint32_t *prev = s->nbr + (size_t)i * k;
    size_t pn = s->nbr_n[i] <= k ? s->nbr_n[i] : 0, out = 0;
    uint64_t taken = 0;
    for (size_t p = 0; p < pn; p++) {
        uint64_t at = place_of(set, n, prev[p]);
        list[out] = prev[p];
        out += at != 0;
        taken |= at;
    }
    for (size_t c = 0; c < n; c++) {
        list[out] = set[c];
        out += !(taken >> c & 1);
    }
    memcpy(s->near + (size_t)i * s->near_cap, list, n * sizeof *list);
    s->near_n[i] = (uint8_t)n;
    /* Full: complete only to the furthest one's distance (those at it
     * with a higher slot may be left out, and are no nearer). */
    float far = 0.0f;
    for (size_t j = 0; j < n; j++)
        far = d2[j] > far ? d2[j] : far;
    s->near_r[i] = n == s->near_cap ? sqrtf(far) : reach;
    s->near_x[i] = q.x;
    s->near_y[i] = q.y;
    s->near_t[i] = s->travel;
}

/*
 * An agent's skin, of the neighbour distance: NEAR_SKIN on average, but
 * from 0.6 to 1.4 times it by id (sim-order.c: not by slot, which a
 * renumbering changes).  Agents that start together and walk
 * at one speed (circle, corridor) would otherwise all draw on the same
 * tick and then every eighth or so: with 100,000 agents those ticks took
 * 21-23 ms and the others 13.  Different skins last different numbers of
 * ticks, and the draws spread out over the ticks after the first few.
 * Any skin gives the same answers.
 */
static inline float
near_skin(uint32_t id)
{
    float u = (float)((id * 2654435769u) >> 16) * (1.0f / 65536.0f);
    return NEAR_SKIN * (0.6f + 0.8f * u);
}

size_t
gc_sim_crowd_neighbours(gc_sim *s, uint32_t i, gc_vec2 q, size_t k, float nd,
                        uint32_t *ids, float *d2)
{
    bool lists = k > 0 && k < s->near_cap;
    int cnt = lists ? from_list(s, i, q, k, nd, ids, d2) : -1;
    if (cnt < 0) {
        /* Last tick's neighbours bound both the draw and the index. */
        float hint = neighbour_hint(s, i, q, k);
        if (lists) {
            float reach = hint < nd * nd ? sqrtf(hint) : nd;
            draw_list(s, i, q, k, reach + near_skin(gc_sim_id_of(s, i)) * nd);
            cnt = from_list(s, i, q, k, nd, ids, d2);
        }
        if (cnt < 0)
            cnt = (int)nearest_hint(s, q, i, k, nd, hint, true, ids, d2);
    }
    uint32_t *last = s->nbr + (size_t)i * k;
    for (int j = 0; j < cnt; j++) /* (a library call for ten ids) */
        last[j] = ids[j];
    s->nbr_n[i] = (uint8_t)cnt;
    return (size_t)cnt;
}
