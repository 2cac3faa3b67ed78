/*
 * astar-search.c: the one best-first search loop of the A* module, for A*
 * and for jump point search.
 *
 * The loop (search_loop) pops the open list (astar-heap.h), skips stale
 * entries, closes the cell, handles the goal and the exactness repairs
 * below, and hands the cell to a successor generator, the "expansion
 * policy" of warthog's flexible_astar done in C: an always-inline function
 * chosen by a constant argument, so that each instantiation keeps only its
 * own generator's code.  expand_grid relaxes a cell's grid neighbours (A*);
 * expand_jps relaxes the jump points that the jumps of jps.h find.
 * Both open a cell through the same relax, so records, keys and repairs
 * are the same.
 *
 * Exactness.  Ordering by a float f is what makes the g tie-break work
 * (equal real f values summed in different orders differ in their last
 * double bits, but round to the same float), but a float orders only to
 * ~6e-8 relative: two nodes whose f differ by less may pop in the wrong
 * order, and a node may close with a g slightly above its best.  The
 * optimal search (weight <= 1, admissible heuristic) repairs that instead
 * of accepting it: a closed cell reached again with a g smaller by more
 * than 1e-10 relative (real improvement, not summation noise) is reopened,
 * and when the goal is first popped the search goes on popping while the
 * float key is not above the goal's, expanding only cells whose exact f
 * (recomputed in double) is below the goal's g by more than that tolerance.
 * So the answer is optimal to 1e-10 relative, not to float precision, at
 * the price of a few pops after the goal.  Weighted searches stop at the
 * first pop of the goal and never reopen.  Jump point search is always
 * optimal.
 *
 * Inner loop.  The A* loop is instantiated per heuristic, with and without
 * a clearance radius, and lean (octile, no radius, trace or partial path:
 * the common case) with and without uniform costs, so that those are
 * constants and their tests vanish; JPS has one instance (octile, uniform,
 * no radius, no partial path).  With nav, a cell's passable neighbours are
 * one byte of its neighbour masks; without, interior cells read their
 * eight neighbours with no bounds checks (border cells take a checked
 * path) through a passability table.  The moves to relax are one lookup in
 * a process-wide table filled from gc_dirs_from_open (grid_int.h, the one
 * implementation of the diagonal rules), by rule, neighbourhood and the
 * direction the cell was reached from: the cell we came from is left out,
 * and with uniform costs so is every neighbour the parent could enter
 * itself (see prune_always), which could never be improved.  The eight
 * relaxations are unrolled with constant directions, so each neighbour's
 * offsets are addressing modes.  Step costs come from a per-type table of
 * doubles built from gc_grid_cost_lut and kept while the grid's cost table
 * is unchanged (with uniform costs, from two constants); h is computed
 * once per push and lives in the heap key.  On grids whose records pass
 * 1 MiB, the neighbourhood of the heap's new top is prefetched while a
 * cell is expanded.
 *
 * Measured (gridcrowd-bench --clock cpu --repeat 5 --peer libtcod, uniform
 * costs, octile, no corner cutting, nav given, on a 2-core AMD EPYC VM):
 * A* den520d 114 us a search (23 M expansions/s), Berlin_1_256 132 us
 * (22 M/s), maze-128-128-2 160 us (30 M/s); libtcod's A* on the same
 * problems takes 590, 780 and 510 us.  JPS: 8.8, 10.3 and 50 us,
 * expanding 66, 99 and 736 jump points a search where A* expands 2643,
 * 2932 and 4788 cells.  The open list peaked at 5002, 6514 and 109
 * entries on those maps, so the context stays at 13 to 14 bytes a cell.
 *
 * A search runs in the caller's thread on a context it owns; the move
 * tables are written once (pthread_once) and only read after.
 */
#include "config.h"

#include "astar-heap.h"
#include "jps.h"

#include <pthread.h>

/* Cells from which the records (12 bytes a cell) pass 1 MiB and the search
 * prefetches them; below, they stay in the caches. */
#define PREFETCH_MIN_CELLS 87382
/* Relative improvement that counts as real rather than rounding noise. */
#define REOPEN_TOL 1e-10

/* The successor generators (search_loop's EXP). */
enum { EXPAND_GRID, EXPAND_JPS };

/* Bit of the direction pointing back along direction d. */
static const uint8_t back_bit[8] = {1u << 2, 1u << 3, 1u << 0, 1u << 1,
                                    1u << 6, 1u << 7, 1u << 4, 1u << 5};

/*
 * Moves a cell c reached in direction d (from its parent p = c - d) need not
 * relax when every step costs the same length-for-length: those to a cell
 * n next to both that p could enter itself.  p relaxed n when it was
 * expanded, and by the triangle inequality of step lengths (1 or sqrt 2
 * each side, so p -> n is at least 2 - sqrt 2 shorter than p -> c -> n) the
 * way through c can never improve it.  So skipping them changes nothing
 * but the work: the same cells are opened and expanded in the same order.
 * Reached diagonally, c skips p and the two orthogonal cells towards p
 * (straight moves for p).  Reached straight, c skips p and, on each side
 * where the cell beside p is open (prune_t: its direction from c), that
 * cell and the side cell (prune_m): p enters the first straight and the
 * second diagonally, legal under every rule but GC_DIAG_NEVER since both
 * cells beside that diagonal (the first, and c) are open.
 */
#define B(d) (1u << (d))
static const uint8_t prune_always[8] = {B(2),
                                        B(3),
                                        B(0),
                                        B(1),
                                        B(6) | B(3) | B(2),
                                        B(7) | B(3) | B(0),
                                        B(4) | B(1) | B(0),
                                        B(5) | B(1) | B(2)};
static const uint8_t prune_t1[8] = {6, 7, 7, 4, 0, 0, 0, 0};
static const uint8_t prune_m1[8] = {
    B(3) | B(6), B(0) | B(7), B(3) | B(7), B(0) | B(4), 0, 0, 0, 0};
static const uint8_t prune_t2[8] = {5, 6, 4, 5, 0, 0, 0, 0};
static const uint8_t prune_m2[8] = {
    B(1) | B(5), B(2) | B(6), B(1) | B(4), B(2) | B(5), 0, 0, 0, 0};
#undef B

/*
 * Move tables, filled once for the process (pthread_once in gc_astar_new)
 * and read-only after: legal_moves[rule][open] is gc_dirs_from_open (the
 * one implementation of the rules); child_moves[shortcut][rule][d][open]
 * is what a cell reached in direction d relaxes: its legal moves less the
 * way back, and with shortcut (uniform costs) less what prune_always and
 * the side pairs skip, under every rule with diagonals.  One lookup
 * instead of the arithmetic: 3% on maze-128-128-2.
 */
static uint8_t legal_moves[4][256];
static uint8_t child_moves[2][4][8][256];
static pthread_once_t move_tables_once = PTHREAD_ONCE_INIT;

static void
move_tables_init(void)
{
    for (int r = 0; r < 4; r++)
        for (unsigned o = 0; o < 256; o++) {
            unsigned legal = gc_dirs_from_open(o, (gc_diag_rule)r);
            legal_moves[r][o] = (uint8_t)legal;
            for (unsigned d = 0; d < 8; d++) {
                unsigned skip = back_bit[d];
                child_moves[0][r][d][o] = (uint8_t)(legal & ~skip);
                if (r != GC_DIAG_NEVER) {
                    unsigned t1 = (o >> prune_t1[d]) & 1u;
                    unsigned t2 = (o >> prune_t2[d]) & 1u;
                    skip = prune_always[d] | (prune_m1[d] & -t1) |
                           (prune_m2[d] & -t2);
                }
                child_moves[1][r][d][o] = (uint8_t)(legal & ~skip);
            }
        }
}

void
gc_astar_tables_init(void)
{
    pthread_once(&move_tables_once, move_tables_init);
}

/* Heuristic distance from (x, y) to the goal, times the coefficients: for
 * octile hk1 * max + hk2 * min with hk2 = hk1 * (sqrt 2 - 1). */
GC_INLINE double
heur(int kind, int32_t x, int32_t y, int32_t gx, int32_t gy, double hk1,
     double hk2)
{
    int32_t ax = x - gx, ay = y - gy;
    ax = ax < 0 ? -ax : ax;
    ay = ay < 0 ? -ay : ay;
    int32_t mx = ax > ay ? ax : ay, mn = ax > ay ? ay : ax;
    switch (kind) {
    case GC_HEUR_OCTILE:
        return hk1 * (double)mx + hk2 * (double)mn;
    case GC_HEUR_MANHATTAN:
        return hk1 * (double)(ax + ay);
    case GC_HEUR_EUCLIDEAN:
        return hk1 * sqrt((double)ax * ax + (double)ay * ay);
    case GC_HEUR_CHEBYSHEV:
        return hk1 * (double)mx;
    default:
        return 0.0;
    }
}

GC_INLINE void
trace_add(gc_trace *t, uint32_t cell, uint8_t kind)
{
    if (t->len < t->cap) {
        t->events[t->len].cell = cell;
        t->events[t->len].kind = kind;
        t->len++;
    } else {
        t->truncated = true;
    }
}

/* Prefetch the line at base + off bytes.  The address may lie outside the
 * array (a row above the first): it is formed as an integer, never as an
 * out-of-bounds pointer, and a prefetch never faults. */
GC_INLINE void
prefetch(const void *base, ptrdiff_t off)
{
#if defined(__GNUC__)
    __builtin_prefetch((const void *)((uintptr_t)base + (uintptr_t)off));
#else
    (void)base;
    (void)off;
#endif
}

/* Index offset of direction d on a grid of width w (d a constant). */
GC_INLINE ptrdiff_t
dir_off(const int d, ptrdiff_t w)
{
    return (ptrdiff_t)gc_dir_dy[d] * w + gc_dir_dx[d];
}

/* What every relaxation reads; constant through a search. */
typedef struct sconst {
    uint32_t *meta;
    double *gv;
    double step[2][GC_CELL_NTYPES];
    double ustep[2]; /* UNI and JPS: the step costs of every passable cell */
    ptrdiff_t w;
    int32_t gx, gy;
    double hk1, hk2;
    uint32_t cur, closed;
    bool optimal;
    gc_trace *trace;
} sconst;

GC_INLINE void
sconst_init(sconst *k, const gc_astar *a, const gc_search *s, const bool JPS,
            const bool LEAN)
{
    k->meta = a->meta;
    k->gv = a->g;
    if (!JPS)
        memcpy(k->step, a->step, sizeof k->step);
    /* JPS: every step costs unit times its length. */
    const double u = JPS ? s->unit : s->ucost;
    k->ustep[0] = u;
    k->ustep[1] = GC_SQRT2 * u;
    k->w = s->w;
    k->gx = s->gx;
    k->gy = s->gy;
    k->hk1 = s->hk1;
    k->hk2 = s->hk2;
    k->cur = a->stamp << 4;
    k->closed = k->cur | GC_META_CLOSED;
    k->optimal = JPS ? true : s->optimal;
    k->trace = LEAN ? NULL : s->trace;
}

/*
 * Offer cell nb (at nxy, `dist` steps from c in direction D, a constant)
 * the cost ng; nm and og are its record and g.  A cell untouched this
 * search is always improved; a touched one when the new g is smaller; a
 * closed one only when it is smaller by more than the reopening tolerance,
 * which is rarely even asked.  A* traces a cell when it opens or reopens
 * it, JPS (JPS) at every improvement.  Returns GC_ENOMEM or GC_OK.
 */
GC_INLINE int
relax(gc_astar *a, gc_open *o, const sconst *k, const int HK, const int D,
      const bool JPS, uint32_t c, uint32_t xy, int32_t dist, double ng,
      uint32_t nm, double og, uint64_t *opened)
{
    if (nm >= k->cur && !(ng < og))
        return GC_OK;
    if (GC_UNLIKELY(nm >= k->closed)) {
        /* Closed: reopen only for a real improvement. */
        if (!k->optimal || !(ng < og - og * REOPEN_TOL))
            return GC_OK;
    }
    const uint32_t nb = (uint32_t)((ptrdiff_t)c + dir_off(D, k->w) * dist);
    if (k->trace != NULL && (JPS || nm < k->cur || nm >= k->closed))
        trace_add(k->trace, nb, GC_TRACE_OPEN);
    k->gv[nb] = ng;
    k->meta[nb] = k->cur | (uint32_t)D;
    const uint32_t nxy =
        xy + (uint32_t)(dist * ((int32_t)gc_dir_dy[D] * 65536 + gc_dir_dx[D]));
    const double f =
        ng + heur(HK, (int32_t)(nxy & 0xFFFF), (int32_t)(nxy >> 16), k->gx,
                  k->gy, k->hk1, k->hk2);
    gc_hent ne = {gc_hkey(f, ng), nb, nxy};
    (*opened)++;
    return gc_open_add(a, o, ne);
}

/* ---- A*: the grid neighbours -------------------------------------------- */

/* What expand_grid reads; constant through a search. */
typedef struct gridgen {
    const uint8_t *cells, *pass, *open8, *legal, *moves;
    const float *clear;
    float rc;
    int32_t w, h;
    uint32_t iw, ih; /* interior: x - 1 < iw and y - 1 < ih, unsigned */
    uint32_t start;
} gridgen;

GC_INLINE void
gridgen_init(gridgen *gg, const gc_astar *a, const gc_search *s)
{
    gg->cells = s->cells;
    gg->pass = a->pass;
    gg->open8 = s->nav != NULL ? s->nav->open8 : NULL;
    gg->legal = legal_moves[s->rule];
    gg->moves = &child_moves[s->uniform][s->rule][0][0];
    gg->clear = s->clear;
    gg->rc = s->rc;
    gg->w = s->w;
    gg->h = s->h;
    gg->iw = (uint32_t)s->w - 2;
    gg->ih = (uint32_t)s->h - 2;
    gg->start = s->start;
}

/* Bit d set when c's neighbour in direction d is on the map, passable and
 * (RAD) clear enough. */
GC_INLINE unsigned
open_mask(const gridgen *gg, const bool RAD, uint32_t c, int32_t x, int32_t y)
{
    const ptrdiff_t W = gg->w;
    unsigned open;
    const uint8_t *p = gg->cells + c, *pass = gg->pass;
    if (gg->open8 != NULL) {
        open = gg->open8[c];
    } else if (GC_LIKELY((uint32_t)x - 1 < gg->iw &&
                         (uint32_t)y - 1 < gg->ih)) {
        open = (unsigned)pass[p[dir_off(0, W)]] |
               (unsigned)pass[p[dir_off(1, W)]] << 1 |
               (unsigned)pass[p[dir_off(2, W)]] << 2 |
               (unsigned)pass[p[dir_off(3, W)]] << 3 |
               (unsigned)pass[p[dir_off(4, W)]] << 4 |
               (unsigned)pass[p[dir_off(5, W)]] << 5 |
               (unsigned)pass[p[dir_off(6, W)]] << 6 |
               (unsigned)pass[p[dir_off(7, W)]] << 7;
    } else {
        open = 0;
        for (int d = 0; d < 8; d++) {
            int32_t nx = x + gc_dir_dx[d], ny = y + gc_dir_dy[d];
            if (nx >= 0 && ny >= 0 && nx < gg->w && ny < gg->h &&
                pass[gg->cells[(size_t)ny * (size_t)gg->w + (size_t)nx]])
                open |= 1u << d;
        }
    }
    if (RAD) {
        for (unsigned b = open; b != 0; b &= b - 1) {
            int d = __builtin_ctz(b);
            if (gg->clear[(ptrdiff_t)c + (ptrdiff_t)gc_dir_dy[d] * W +
                          gc_dir_dx[d]] < gg->rc)
                open &= ~(1u << d);
        }
    }
    return open;
}

/* Relax the grid step from c (at xy, cost gc; p, mc and gp point at its
 * cell byte, record and g) in direction D, a constant, so that every
 * offset is an addressing mode. */
GC_INLINE int
relax_step(gc_astar *a, gc_open *o, const sconst *k, const int HK, const int D,
           const bool UNI, uint32_t c, uint32_t xy, double gc, const uint8_t *p,
           const uint32_t *mc, const double *gp, uint64_t *opened)
{
    const ptrdiff_t off = dir_off(D, k->w);
    const double ng = gc + (UNI ? k->ustep[D >= 4] : k->step[D >= 4][p[off]]);
    return relax(a, o, k, HK, D, false, c, xy, 1, ng, mc[off], gp[off], opened);
}

/* A*'s successor generator: relax the moves c (record m, at xy, x, y, cost
 * gc) makes.  Returns GC_ENOMEM or GC_OK. */
GC_INLINE int
expand_grid(gc_astar *a, gc_open *o, const sconst *k, const gridgen *gg,
            const int HK, const bool RAD, const bool UNI, uint32_t c,
            uint32_t m, uint32_t xy, int32_t x, int32_t y, double gc,
            uint64_t *opened)
{
    const unsigned open = open_mask(gg, RAD, c, x, y);
    const uint8_t *p = gg->cells + c;
    const uint32_t *mc = k->meta + c;
    const double *gp = k->gv + c;
    /* The cell we came from is closed with a smaller g: skip it, and
     * with uniform costs what it reached itself (see prune_always). */
    const unsigned mask = GC_LIKELY(c != gg->start)
                              ? gg->moves[(m & GC_META_DIR) << 8 | open]
                              : gg->legal[open];
#define RELAX(D)                                                               \
    if (mask & (1u << (D))) {                                                  \
        int err =                                                              \
            relax_step(a, o, k, HK, D, UNI, c, xy, gc, p, mc, gp, opened);     \
        if (GC_UNLIKELY(err != GC_OK))                                         \
            return err;                                                        \
    }
    RELAX(0)
    RELAX(1)
    RELAX(2)
    RELAX(3)
    RELAX(4)
    RELAX(5)
    RELAX(6)
    RELAX(7)
#undef RELAX
    return GC_OK;
}

/* ---- JPS: the jump points ------------------------------------------------ */

/* JPS's successor generator: relax the jump points c (record m, at xy, x,
 * y, cost gc; `first` when c is the start) reaches.  GC_ENOMEM or GC_OK. */
GC_INLINE int
expand_jps(gc_astar *a, gc_open *o, const sconst *k, gc_jumper *j, uint32_t c,
           uint32_t m, bool first, uint32_t xy, int32_t x, int32_t y, double gc,
           uint64_t *opened)
{
    const int from = GC_UNLIKELY(first) ? -1 : (int)(m & GC_META_DIR);
    const unsigned dirs = gc_jps_directions(j, from, x, y);
    const double cs = k->ustep[0], cd = k->ustep[1];
#define RELAX(D)                                                               \
    if (dirs & (1u << (D))) {                                                  \
        const int32_t n = gc_jps_jump(j, D, x, y);                             \
        if (n != 0) {                                                          \
            const uint32_t nb =                                                \
                (uint32_t)((ptrdiff_t)c + dir_off(D, k->w) * n);               \
            int err = relax(a, o, k, GC_HEUR_OCTILE, D, true, c, xy, n,        \
                            gc + (double)n * ((D) < 4 ? cs : cd), k->meta[nb], \
                            k->gv[nb], opened);                                \
            if (GC_UNLIKELY(err != GC_OK))                                     \
                return err;                                                    \
        }                                                                      \
    }
    RELAX(0)
    RELAX(1)
    RELAX(2)
    RELAX(3)
    RELAX(4)
    RELAX(5)
    RELAX(6)
    RELAX(7)
#undef RELAX
    return GC_OK;
}

/* ---- the loop ------------------------------------------------------------ */

/* Open the start, alone, in a fresh open list o. */
GC_INLINE void
open_start(gc_open *o, gc_astar *a, const gc_search *s, const sconst *k,
           const int HK)
{
    const uint32_t xy = s->start_xy;
    a->g[s->start] = 0.0;
    a->meta[s->start] = k->cur;
    double f = heur(HK, (int32_t)(xy & 0xFFFF), (int32_t)(xy >> 16), k->gx,
                    k->gy, k->hk1, k->hk2);
    gc_hent e = {gc_hkey(f, 0.0), s->start, xy};
    gc_open_init(o, a, e);
    if (k->trace != NULL)
        trace_add(k->trace, s->start, GC_TRACE_OPEN);
}

/* The heap's new top is likely next but one: start fetching its
 * neighbourhood (cell t, rows of W cells) now, while a cell is expanded. */
GC_INLINE void
prefetch_around(const uint32_t *meta, const double *gv, ptrdiff_t t,
                ptrdiff_t W)
{
    prefetch(meta, (t - W) * (ptrdiff_t)sizeof *meta);
    prefetch(meta, (t + W) * (ptrdiff_t)sizeof *meta);
    prefetch(gv, (t - W) * (ptrdiff_t)sizeof *gv);
    prefetch(gv, t * (ptrdiff_t)sizeof *gv);
    prefetch(gv, (t + W) * (ptrdiff_t)sizeof *gv);
}

/*
 * The search proper.  EXP (successor generator), HK (heuristic), RAD
 * (clearance radius in use), LEAN (no trace, no partial path) and UNI
 * (uniform costs) are constants at every call site, so each instantiation
 * keeps only its own code.  See the design note for the rules it keeps.
 */
GC_INLINE void
search_loop(gc_astar *a, gc_search *s, const int EXP, const int HK,
            const bool RAD, const bool LEAN, const bool UNI)
{
    const bool JPS = EXP == EXPAND_JPS;
    sconst k;
    sconst_init(&k, a, s, JPS, LEAN);
    gridgen gg = {0};
    if (!JPS)
        gridgen_init(&gg, a, s);
    gc_jumper j = {0};
    if (JPS)
        j = (gc_jumper){s->nav->rows,
                        s->nav->cols,
                        s->nav->row_words,
                        s->nav->col_words,
                        s->gx,
                        s->gy,
                        0};
    uint32_t *meta = a->meta;
    double *gv = a->g;
    /* Records that stay in the caches are there already: fetching ahead
     * only costs instructions (3% on maze-128-128-2 and on den520d). */
    const bool prefetching = !JPS && a->ncells >= PREFETCH_MIN_CELLS;
    const ptrdiff_t W = s->w;
    const uint32_t goal = s->goal, start = s->start;
    const bool partial = !JPS && !LEAN && s->partial;
    uint64_t expanded = 0, opened = 1;
    const uint64_t cap_exp = s->cap;
    uint32_t best = s->start, best_xy = s->start_xy;
    double best_d = INFINITY, best_g = INFINITY;
    bool found = false;
    double goal_g = INFINITY;
    uint32_t goal_fk = 0;
    int err = GC_OK;

    gc_open o;
    open_start(&o, a, s, &k, HK);
    for (;;) {
        gc_hent e;
        if (!gc_open_pop(&o, &e))
            break;
        if (found && (uint32_t)(e.key >> 32) > goal_fk)
            break;
        const uint32_t c = e.cell;
        if (o.n > 0 && prefetching)
            prefetch_around(meta, gv, o.heap[0].cell, W);
        const uint32_t m = meta[c];
        if (m >= k.closed)
            continue; /* an outdated entry of a closed cell */
        const double gc = gv[c];
        if (GC_UNLIKELY(c == goal)) {
            meta[c] = m | GC_META_CLOSED;
            if (k.trace != NULL)
                trace_add(k.trace, c, GC_TRACE_CLOSE);
            found = true;
            goal_g = gc;
            goal_fk = gc_fbits(gc);
            if (!k.optimal)
                break;
            continue;
        }
        const int32_t x = (int32_t)(e.xy & 0xFFFF), y = (int32_t)(e.xy >> 16);
        if (GC_UNLIKELY(found)) {
            /* After the goal: only what could still improve it. */
            double f = gc + heur(HK, x, y, k.gx, k.gy, k.hk1, k.hk2);
            if (f >= goal_g - goal_g * REOPEN_TOL)
                continue;
        }
        if (GC_UNLIKELY(expanded >= cap_exp)) {
            s->limited = true;
            break;
        }
        meta[c] = m | GC_META_CLOSED;
        expanded++;
        if (k.trace != NULL)
            trace_add(k.trace, c, GC_TRACE_CLOSE);
        if (partial) {
            double d = heur(s->near, x, y, k.gx, k.gy, 1.0, GC_SQRT2 - 1.0);
            if (d < best_d || (d == best_d && gc < best_g)) {
                best_d = d;
                best_g = gc;
                best = c;
                best_xy = e.xy;
            }
        }
        err = JPS ? expand_jps(a, &o, &k, &j, c, m, c == start, e.xy, x, y, gc,
                               &opened)
                  : expand_grid(a, &o, &k, &gg, HK, RAD, UNI, c, m, e.xy, x, y,
                                gc, &opened);
        if (GC_UNLIKELY(err != GC_OK))
            break;
    }
    s->err = err;
    s->found = found;
    s->best = best;
    s->best_xy = best_xy;
    s->expanded = expanded;
    s->opened = opened;
    if (JPS)
        s->scanned = j.scanned;
    if (o.peak > a->heap_peak)
        a->heap_peak = o.peak;
}

#define INSTANCE(name, exp, hk, rad, lean, uni)                                \
    GC_NOINLINE void name(gc_astar *a, gc_search *s)                           \
    {                                                                          \
        search_loop(a, s, exp, hk, rad, lean, uni);                            \
    }
/* The common case (octile, no radius, no trace, no partial path) gets its
 * own copy without their tests. */
INSTANCE(search_octile_lean, EXPAND_GRID, GC_HEUR_OCTILE, false, true, false)
INSTANCE(search_octile_lean_uni, EXPAND_GRID, GC_HEUR_OCTILE, false, true, true)
INSTANCE(search_octile, EXPAND_GRID, GC_HEUR_OCTILE, false, false, false)
INSTANCE(search_manhattan, EXPAND_GRID, GC_HEUR_MANHATTAN, false, false, false)
INSTANCE(search_euclidean, EXPAND_GRID, GC_HEUR_EUCLIDEAN, false, false, false)
INSTANCE(search_chebyshev, EXPAND_GRID, GC_HEUR_CHEBYSHEV, false, false, false)
INSTANCE(search_zero, EXPAND_GRID, GC_HEUR_ZERO, false, false, false)
INSTANCE(search_octile_r, EXPAND_GRID, GC_HEUR_OCTILE, true, false, false)
INSTANCE(search_manhattan_r, EXPAND_GRID, GC_HEUR_MANHATTAN, true, false, false)
INSTANCE(search_euclidean_r, EXPAND_GRID, GC_HEUR_EUCLIDEAN, true, false, false)
INSTANCE(search_chebyshev_r, EXPAND_GRID, GC_HEUR_CHEBYSHEV, true, false, false)
INSTANCE(search_zero_r, EXPAND_GRID, GC_HEUR_ZERO, true, false, false)
/* Jump point search: octile, uniform, no radius, never partial. */
INSTANCE(search_jps, EXPAND_JPS, GC_HEUR_OCTILE, false, false, false)
#undef INSTANCE

void
gc_astar_run(gc_astar *a, gc_search *s, gc_heuristic hk, bool rad, bool jps)
{
    static void (*const plain[])(gc_astar *, gc_search *) = {
        [GC_HEUR_OCTILE] = search_octile,
        [GC_HEUR_MANHATTAN] = search_manhattan,
        [GC_HEUR_EUCLIDEAN] = search_euclidean,
        [GC_HEUR_CHEBYSHEV] = search_chebyshev,
        [GC_HEUR_ZERO] = search_zero,
    };
    static void (*const radius[])(gc_astar *, gc_search *) = {
        [GC_HEUR_OCTILE] = search_octile_r,
        [GC_HEUR_MANHATTAN] = search_manhattan_r,
        [GC_HEUR_EUCLIDEAN] = search_euclidean_r,
        [GC_HEUR_CHEBYSHEV] = search_chebyshev_r,
        [GC_HEUR_ZERO] = search_zero_r,
    };
    if (jps)
        search_jps(a, s);
    else if (!rad && hk == GC_HEUR_OCTILE && s->trace == NULL && !s->partial)
        (s->uniform ? search_octile_lean_uni : search_octile_lean)(a, s);
    else
        (rad ? radius : plain)[hk](a, s);
}
