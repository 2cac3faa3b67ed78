/*
 * astar.c: the A* module's public face: the reusable search context, its
 * options, names and path buffers, and gc_astar_find, which checks a
 * request, prices it and runs the search.
 *
 * The module's pieces: astar.c (this file), astar-heap.h (the open list,
 * inline), astar-search.c (the one search loop, for A* and jump point
 * search), jps.h (jump scanning) and astar-path.c (reading paths back).
 *
 * Per-cell records, 12 bytes a cell, sized once by gc_astar_new:
 *   meta[c]  uint32: search stamp (28 bits) << 4 | closed (1 bit) << 3 |
 *            direction of the step that reached c (3 bits, grid_int.h
 *            order), from which the path is read back;
 *   g[c]     double: cost of the best path found to c, summed in double so
 *            that 1000-step paths stay exact to ~1e-13 (float would drift
 *            by ~1e-4).
 * A record belongs to the current search only when its stamp is current;
 * stamps grow by one per search, so with cur = stamp << 4, "meta < cur"
 * means untouched this search, "meta >= (cur | 8)" closed, anything between
 * open: one compare each, and nothing is cleared between searches.  When
 * the 28-bit stamp would wrap (after 2^28 - 1 searches) the records are
 * cleared once and the stamps start again from 1.
 *
 * The open list (astar-heap.h) lives in the context too: its array starts
 * at ncells / 16 entries (1 byte a cell) and grows by half when a search
 * needs more, which is rare and amortised; on the Moving AI maps den520d,
 * Berlin_1_256 and maze-128-128-2 (uniform costs, octile, no corner
 * cutting) the peaks were 5002, 6514 and 109 entries, so the context stays
 * at 13 to 14 bytes a cell.
 *
 * Jump point search (see jps.h) answers instead of A* when it gives the
 * same answer: no corner cutting, no radius, weight <= 1, octile, nav
 * given, and every passable type present costing the same (jps_applies).
 */
#include "config.h"

#include <gridcrowd/util.h>

#include "astar-heap.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#define STAMP_MAX GC_ASTAR_STAMP_MAX

/* ---- names -------------------------------------------------------------- */

static const char *const heur_names[] = {
    [GC_HEUR_DEFAULT] = "default",     [GC_HEUR_OCTILE] = "octile",
    [GC_HEUR_MANHATTAN] = "manhattan", [GC_HEUR_EUCLIDEAN] = "euclidean",
    [GC_HEUR_CHEBYSHEV] = "chebyshev", [GC_HEUR_ZERO] = "zero",
};
#define NHEUR ((int)(sizeof heur_names / sizeof heur_names[0]))

static const char *const rule_names[] = {
    [GC_DIAG_NO_CORNER_CUT] = "no-corner-cut",
    [GC_DIAG_NEVER] = "never",
    [GC_DIAG_ONE_FREE] = "one-free",
    [GC_DIAG_ALWAYS] = "always",
};
#define NRULE ((int)(sizeof rule_names / sizeof rule_names[0]))

const char *
gc_heuristic_name(gc_heuristic h)
{
    return (int)h >= 0 && (int)h < NHEUR ? heur_names[h] : NULL;
}

int
gc_heuristic_parse(const char *s)
{
    if (s == NULL)
        return GC_EINVAL;
    for (int i = 0; i < NHEUR; i++)
        if (strcasecmp(s, heur_names[i]) == 0)
            return i;
    if (strcasecmp(s, "dijkstra") == 0)
        return GC_HEUR_ZERO;
    return GC_EINVAL;
}

static const char *const algo_names[] = {
    [GC_ALGO_AUTO] = "auto",
    [GC_ALGO_ASTAR] = "astar",
    [GC_ALGO_JPS] = "jps",
};
#define NALGO ((int)(sizeof algo_names / sizeof algo_names[0]))

const char *
gc_algo_name(gc_algo a)
{
    return (int)a >= 0 && (int)a < NALGO ? algo_names[a] : NULL;
}

int
gc_algo_parse(const char *s)
{
    if (s == NULL)
        return GC_EINVAL;
    for (int i = 0; i < NALGO; i++)
        if (strcasecmp(s, algo_names[i]) == 0)
            return i;
    return GC_EINVAL;
}

const char *
gc_diag_rule_name(gc_diag_rule r)
{
    return (int)r >= 0 && (int)r < NRULE ? rule_names[r] : NULL;
}

int
gc_diag_rule_parse(const char *s)
{
    if (s == NULL)
        return GC_EINVAL;
    for (int i = 0; i < NRULE; i++)
        if (strcasecmp(s, rule_names[i]) == 0)
            return i;
    return GC_EINVAL;
}

void
gc_astar_opts_init(gc_astar_opts *o)
{
    memset(o, 0, sizeof *o);
    o->diag = GC_DIAG_NO_CORNER_CUT;
    o->heuristic = GC_HEUR_DEFAULT;
}

/* ---- paths --------------------------------------------------------------- */

void
gc_path_init(gc_path *p)
{
    p->cells = NULL;
    p->len = 0;
    p->cap = 0;
}

void
gc_path_free(gc_path *p)
{
    if (p == NULL)
        return;
    free(p->cells);
    gc_path_init(p);
}

int
gc_path_reserve(gc_path *p, size_t n)
{
    if (n <= p->cap)
        return GC_OK;
    size_t cap = p->cap * 2;
    if (cap < n)
        cap = n;
    if (cap < 16)
        cap = 16;
    if (cap > SIZE_MAX / sizeof *p->cells)
        return GC_ENOMEM;
    gc_cell *c = realloc(p->cells, cap * sizeof *c);
    if (c == NULL)
        return GC_ENOMEM;
    p->cells = c;
    p->cap = cap;
    return GC_OK;
}

/* ---- context ------------------------------------------------------------- */

static int
heap_alloc(gc_astar *a, size_t cap)
{
    size_t bytes = (cap + GC_HEAP_PAD) * sizeof(gc_hent);
    bytes = (bytes + GC_HEAP_ALIGN - 1) / GC_HEAP_ALIGN * GC_HEAP_ALIGN;
    unsigned char *mem = aligned_alloc(GC_HEAP_ALIGN, bytes);
    if (mem == NULL)
        return GC_ENOMEM;
    a->heap_mem = mem;
    a->heap = (gc_hent *)(void *)(mem + GC_HEAP_PAD * sizeof(gc_hent));
    a->heap_cap = cap;
    return GC_OK;
}

/* Grow the heap by half, keeping its first n entries.  Cold: a search
 * needs it only when it holds more open entries than any search before.
 * Half rather than double keeps the overshoot, and so the memory, small. */
int
gc_astar_heap_grow(gc_astar *a, size_t n)
{
    unsigned char *old_mem = a->heap_mem;
    gc_hent *old = a->heap;
    size_t cap = a->heap_cap + a->heap_cap / 2 + 4;
    if (cap > SIZE_MAX / sizeof(gc_hent) - GC_HEAP_PAD - GC_HEAP_ALIGN)
        return GC_ENOMEM;
    if (heap_alloc(a, cap) != GC_OK) {
        a->heap_mem = old_mem;
        a->heap = old;
        return GC_ENOMEM;
    }
    memcpy(a->heap, old, n * sizeof *old);
    free(old_mem);
    return GC_OK;
}

int
gc_astar_new(gc_astar **out, int32_t width, int32_t height)
{
    if (out == NULL)
        return GC_EINVAL;
    *out = NULL;
    int rc = gc_grid_check_size(width, height);
    if (rc != GC_OK)
        return rc;
    gc_astar *a = calloc(1, sizeof *a);
    if (a == NULL)
        return GC_ENOMEM;
    a->width = width;
    a->height = height;
    a->ncells = (size_t)width * (size_t)height;
    /* Zero stamps: every record reads as untouched by search 1. */
    a->meta = calloc(a->ncells, sizeof *a->meta);
    /* Zeroed although a g counts only under a current stamp: the inner
     * loop loads it before it knows, and should never load garbage. */
    a->g = calloc(a->ncells, sizeof *a->g);
    size_t cap = a->ncells / 16;
    if (cap < 64)
        cap = 64;
    if (a->meta == NULL || a->g == NULL || heap_alloc(a, cap) != GC_OK) {
        gc_astar_free(a);
        return GC_ENOMEM;
    }
    for (int d = 0; d < 8; d++)
        a->off[d] = (ptrdiff_t)gc_dir_dy[d] * width + gc_dir_dx[d];
    gc_astar_tables_init();
    *out = a;
    return GC_OK;
}

void
gc_astar_free(gc_astar *a)
{
    if (a == NULL)
        return;
    free(a->meta);
    free(a->g);
    free(a->heap_mem);
    free(a);
}

size_t
gc_astar_memory(const gc_astar *a)
{
    if (a == NULL)
        return 0;
    size_t heap = (a->heap_cap + GC_HEAP_PAD) * sizeof(gc_hent);
    heap = (heap + GC_HEAP_ALIGN - 1) / GC_HEAP_ALIGN * GC_HEAP_ALIGN;
    return sizeof *a + a->ncells * (sizeof *a->meta + sizeof *a->g) + heap;
}

void
gc_astar_debug_set_stamp(gc_astar *a, uint32_t stamp)
{
    a->stamp = stamp > STAMP_MAX ? STAMP_MAX : stamp;
}

size_t
gc_astar_debug_heap_peak(const gc_astar *a)
{
    return a->heap_peak;
}

/* Rebuild the per-type tables when the grid's cost table changed. */
static void
update_costs(gc_astar *a, const gc_grid *g)
{
    if (a->costs_valid && memcmp(a->cost_key, g->cost, sizeof a->cost_key) == 0)
        return;
    float lut[256];
    gc_grid_cost_lut(g, lut);
    for (int b = 0; b < 256; b++)
        a->pass[b] = isfinite(lut[b]) ? 1 : 0;
    for (int t = 0; t < GC_CELL_NTYPES; t++) {
        double c = isfinite(lut[t]) ? (double)lut[t] : INFINITY;
        a->step[0][t] = 1.0 * c;
        a->step[1][t] = GC_SQRT2 * c;
    }
    memcpy(a->cost_key, g->cost, sizeof a->cost_key);
    a->costs_valid = true;
}

/* Start a new search number; clear the records once when stamps wrap. */
static void
next_stamp(gc_astar *a)
{
    if (a->stamp >= STAMP_MAX) {
        memset(a->meta, 0, a->ncells * sizeof *a->meta);
        a->stamp = 0;
    }
    a->stamp++;
}

static bool
on_map(const gc_grid *g, gc_cell c)
{
    return gc_grid_in_bounds(g, c.x, c.y);
}

/*
 * The one cost of every passable type present in g, or 0 when they differ
 * (1 when none is present: no search runs there).  nav must be fresh.  Types
 * absent from the grid may cost anything: the presence mask is nav's, the costs
 * are the grid's as they are now.
 */
static double
uniform_cost(const gc_nav *nav, const gc_grid *g)
{
    unsigned types = nav->present & nav->pass_types;
    float c = 0.0f;
    for (int t = 0; t < GC_CELL_NTYPES; t++) {
        if (!(types & (1u << t)))
            continue;
        if (c != 0.0f && g->cost[t] != c)
            return 0.0;
        c = g->cost[t];
    }
    return c != 0.0f ? (double)c : 1.0;
}

/* Dearest passable type of g's cost table (0 if none). */
static float
max_cost(const gc_grid *g)
{
    float m = 0.0f;
    for (int t = 0; t < GC_CELL_NTYPES; t++)
        if (gc_cost_passable(g->cost[t]) && g->cost[t] > m)
            m = g->cost[t];
    return m;
}

/* Why jump point search would not give this search's answer (see gc_algo
 * in astar.h), given unit = uniform_cost (0 without nav); NULL when it
 * would.  The one statement of its conditions. */
static const char *
jps_why_not(const gc_astar_opts *o, double unit)
{
    if (o->diag != GC_DIAG_NO_CORNER_CUT)
        return "it needs the diagonal rule no-corner-cut";
    if (o->radius > 0.0f)
        return "it plans for no radius";
    if (o->weight > 1.0)
        return "it runs unweighted only (weight at most 1)";
    if (o->partial)
        return "it gives no partial paths";
    if (o->nav == NULL)
        return "it needs the navigation data (nav)";
    if (o->heuristic != GC_HEUR_DEFAULT && o->heuristic != GC_HEUR_OCTILE)
        return "it needs the default or octile heuristic";
    if (!(unit > 0.0))
        return "the passable cell types on the map do not all cost the "
               "same (it needs uniform costs)";
    return NULL;
}

static bool
jps_applies(const gc_astar_opts *o, double unit)
{
    return jps_why_not(o, unit) == NULL;
}

/* See astar_int.h. */
const char *
gc_astar_jps_why_not(const gc_grid *g, const gc_astar_opts *o)
{
    const gc_nav *nav = o->nav;
    bool fits = nav != NULL && g != NULL && nav->width == g->width &&
                nav->height == g->height;
    return jps_why_not(o, fits ? uniform_cost(nav, g) : 0.0);
}

static int
finish(gc_astar_stats *stats, gc_astar_stats *st, uint64_t t0, int rc)
{
    st->status = rc;
    st->ns = gc_clock_ns() - t0;
    if (stats != NULL)
        *stats = *st;
    return rc;
}

/* Check gc_astar_find's arguments; *rc gets the radius in cells (0 for
 * none).  GC_OK, GC_EINVAL or (nav out of date) GC_ESTALE. */
static int
check_args(const gc_astar *a, const gc_grid *g, const gc_path *out,
           const gc_astar_opts *opts, float *rc)
{
    if (a == NULL || g == NULL || g->cells == NULL || out == NULL ||
        g->width != a->width || g->height != a->height)
        return GC_EINVAL;
    if ((unsigned)opts->diag > GC_DIAG_ALWAYS ||
        (unsigned)opts->algo > GC_ALGO_JPS ||
        (unsigned)opts->heuristic > GC_HEUR_ZERO || isnan(opts->weight) ||
        !(opts->radius >= 0.0f) || isinf(opts->radius) ||
        (opts->trace != NULL && opts->trace->cap > 0 &&
         opts->trace->events == NULL))
        return GC_EINVAL;
    const gc_nav *nav = opts->nav;
    if (opts->radius > 0.0f) {
        if (nav == NULL || nav->clear == NULL || !(g->cell_size > 0.0f) ||
            !isfinite(g->cell_size))
            return GC_EINVAL;
        *rc = opts->radius / g->cell_size;
    }
    if (nav != NULL) {
        if (nav->width != g->width || nav->height != g->height)
            return GC_EINVAL;
        if (!gc_nav_fresh(nav, g))
            return GC_ESTALE;
    }
    return GC_OK;
}

/*
 * Fill s for a search of g from start to goal (both passable, distinct)
 * under opts, rc, unit (uniform_cost, 0 without nav) and jps, and start a
 * new search number in a.  Returns the heuristic, GC_HEUR_DEFAULT resolved.
 */
static gc_heuristic
setup_search(gc_search *s, gc_astar *a, const gc_grid *g,
             const gc_astar_opts *opts, gc_cell start, gc_cell goal, float rc,
             double unit, bool jps)
{
    const gc_nav *nav = opts->nav;
    size_t si = gc_grid_index(g, start.x, start.y);
    size_t gi = gc_grid_index(g, goal.x, goal.y);
    gc_heuristic hk = opts->heuristic;
    if (hk == GC_HEUR_DEFAULT)
        hk = opts->diag == GC_DIAG_NEVER ? GC_HEUR_MANHATTAN : GC_HEUR_OCTILE;
    double weight = opts->weight > 1.0 ? opts->weight : 1.0;
    double scale = (double)gc_grid_min_cost(g) * weight;
    *s = (gc_search){0};
    s->cells = g->cells;
    s->clear = rc > 0.0f ? nav->clear : NULL;
    s->rc = rc;
    s->w = g->width;
    s->h = g->height;
    s->start = (uint32_t)si;
    s->goal = (uint32_t)gi;
    s->start_xy = (uint32_t)start.y << 16 | (uint32_t)start.x;
    s->gx = goal.x;
    s->gy = goal.y;
    s->rule = opts->diag;
    s->hk1 = scale;
    s->hk2 = scale * (GC_SQRT2 - 1.0);
    /* Manhattan overestimates diagonal moves: not optimal, so no repair. */
    s->optimal = weight <= 1.0 &&
                 !(hk == GC_HEUR_MANHATTAN && opts->diag != GC_DIAG_NEVER);
    s->partial = opts->partial;
    s->near = hk != GC_HEUR_ZERO            ? hk
              : opts->diag == GC_DIAG_NEVER ? GC_HEUR_MANHATTAN
                                            : GC_HEUR_OCTILE;
    s->cap = opts->max_expansions ? opts->max_expansions : UINT64_MAX;
    s->trace = opts->trace;
    s->best = s->start;
    s->best_xy = s->start_xy;
    next_stamp(a);
    s->nav = nav;
    s->uniform = unit > 0.0 || gc_grid_min_cost(g) == max_cost(g);
    s->ucost = unit > 0.0 ? unit : (double)gc_grid_min_cost(g);
    if (jps) {
        /* Every step costs unit times its length: h needs no other scale,
         * and a cheaper type that is absent does not weaken it. */
        s->unit = unit;
        s->hk1 = unit;
        s->hk2 = unit * (GC_SQRT2 - 1.0);
    }
    return hk;
}

int
gc_astar_find(gc_astar *a, const gc_grid *g, gc_cell start, gc_cell goal,
              const gc_astar_opts *opts, gc_path *out, gc_astar_stats *stats)
{
    uint64_t t0 = gc_clock_ns();
    gc_astar_stats st = {0};
    st.cost = INFINITY;
    if (out != NULL)
        out->len = 0;
    gc_astar_opts defaults;
    if (opts == NULL) {
        gc_astar_opts_init(&defaults);
        opts = &defaults;
    }
    if (opts->trace != NULL) {
        opts->trace->len = 0;
        opts->trace->truncated = false;
    }

    /* Arguments. */
    float rc = 0.0f;
    int err = check_args(a, g, out, opts, &rc);
    if (err != GC_OK)
        return finish(stats, &st, t0, err);
    const gc_nav *nav = opts->nav;
    double unit = nav != NULL ? uniform_cost(nav, g) : 0.0;
    bool jps = jps_applies(opts, unit);
    if (opts->algo == GC_ALGO_JPS && !jps)
        return finish(stats, &st, t0, GC_EINVAL);
    if (opts->algo == GC_ALGO_ASTAR)
        jps = false;
    st.algo = jps ? GC_ALGO_JPS : GC_ALGO_ASTAR;

    /* Endpoints. */
    if (!on_map(g, start) || !on_map(g, goal))
        return finish(stats, &st, t0, GC_EOUTSIDE);
    size_t si = gc_grid_index(g, start.x, start.y);
    size_t gi = gc_grid_index(g, goal.x, goal.y);
    update_costs(a, g);
    if (!a->pass[g->cells[si]] || !a->pass[g->cells[gi]] ||
        (rc > 0.0f && (nav->clear[si] < rc || nav->clear[gi] < rc)))
        return finish(stats, &st, t0, GC_EBLOCKED);
    if (gc_path_reserve(out, 1) != GC_OK)
        return finish(stats, &st, t0, GC_ENOMEM);
    if (si == gi) {
        out->cells[0] = start;
        out->len = 1;
        st.found = true;
        st.cost = 0.0;
        return finish(stats, &st, t0, GC_OK);
    }
    if (nav != NULL && !opts->partial &&
        gc_nav_component(nav, opts->diag, start) !=
            gc_nav_component(nav, opts->diag, goal))
        return finish(stats, &st, t0, GC_EUNREACHABLE);

    /* The search. */
    gc_search s;
    gc_heuristic hk = setup_search(&s, a, g, opts, start, goal, rc, unit, jps);
    gc_astar_run(a, &s, hk, rc > 0.0f, jps);
    st.expanded = s.expanded;
    st.opened = s.opened;
    st.scanned = s.scanned;
    if (s.err != GC_OK)
        return finish(stats, &st, t0, s.err);

    int ret;
    uint32_t end, end_xy;
    if (s.found) {
        ret = GC_OK;
        end = s.goal;
        end_xy = (uint32_t)goal.y << 16 | (uint32_t)goal.x;
    } else {
        ret = s.limited ? GC_ELIMIT : GC_EUNREACHABLE;
        if (!opts->partial)
            return finish(stats, &st, t0, ret);
        end = s.best;
        end_xy = s.best_xy;
    }
    double cost;
    int brc = jps ? gc_astar_build_path_jps(a, &s, out, &cost)
                  : gc_astar_build_path(a, &s, end, end_xy, out, &cost);
    if (brc != GC_OK)
        return finish(stats, &st, t0, brc);
    if (opts->smooth) {
        gc_path_smooth(g, nav, rc, opts->diag, out);
        gc_pricer pr;
        gc_pricer_init(&pr, g, nav, rc);
        cost = gc_pricer_polyline(&pr, opts->diag, out);
    }
    st.found = s.found;
    st.partial = !s.found;
    st.cost = cost;
    return finish(stats, &st, t0, ret);
}
