/*
 * astar.c: the reusable A* search context, heuristics and path buffers.
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
 * Open list: a 4-ary min-heap of 16-byte entries {key, cell, xy} with lazy
 * deletion (an entry whose cell is already closed is skipped when popped;
 * an improved cell is pushed again rather than moved).  The key is one
 * uint64 compare: the high half is f rounded to float, the low half is
 * ~(float)g, so equal f is broken towards the larger g (nearer the goal),
 * which keeps an octile search on a plateau of equal f from fanning out.
 * xy carries the cell's coordinates so that no division is needed to find
 * the neighbours' positions for the heuristic.  Children of entry i are
 * 4i+1..4i+4, one 64-byte line: the array is offset so those groups are
 * line-aligned.  A pop walks the hole down to a leaf with branch-free
 * selects of the least child and sifts the last entry up from there
 * (Floyd), which halved the search time against the textbook sift-down:
 * its branches were mispredicted at every level.  Beside the heap one
 * `next` slot holds the best child of the last expansion; when it beats
 * the heap's top it is expanded at once with no push or pop, which on open
 * ground (straight for the goal) saves a push and a pop per step.  The
 * heap starts at ncells / 16 entries (1 byte a cell) and grows by half when
 * a search needs more, which is rare and amortised; on the Moving AI maps
 * den520d, Berlin_1_256 and maze-128-128-2 (uniform costs, octile, no
 * corner cutting) the peaks were 5002, 6514 and 109 entries, so the
 * context stays at 13 to 14 bytes a cell.
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
 * first pop of the goal and never reopen.
 *
 * Inner loop.  One always-inline core is instantiated per heuristic, with
 * and without a clearance radius, and lean (octile, no radius, trace or
 * partial path: the common case) with and without uniform costs, so that
 * those are constants and their tests vanish.  With nav, a cell's
 * passable neighbours are one byte of its neighbour masks; without,
 * interior cells read their eight neighbours with no bounds checks (border
 * cells take a checked path) through a passability table.  The moves to
 * relax are one lookup in a process-wide table filled from
 * gc_dirs_from_open (grid_int.h, the one implementation of the diagonal
 * rules), by rule, neighbourhood and the direction the cell was reached
 * from: the cell we came from is left out, and with uniform costs so is
 * every neighbour the parent could enter itself (see prune_always), which
 * could never be improved.  The eight relaxations are unrolled with
 * constant directions, so each neighbour's offsets are addressing modes.
 * Step costs come from a per-type table of doubles built from
 * gc_grid_cost_lut and kept while the grid's cost table is unchanged (with
 * uniform costs, from two constants); h is computed once per push and lives
 * in the heap key.  On grids whose records pass 1 MiB, the neighbourhood of
 * the heap's new top is prefetched while a cell is expanded.  The heap
 * works in byte offsets, so no index is scaled.
 *
 * Jump point search.  On a grid whose passable cells present all cost the
 * same, moving without cutting corners, most of A*'s work is symmetric:
 * many equally short paths to each cell.  JPS (Harabor and Grastien; the
 * rules for no corner cutting are those of their 2014 paper) expands only
 * jump points, with the same open list, keys, records and exactness
 * repairs as A*.  A straight jump runs until a wall (nothing found), the
 * goal, or a cell with a forced neighbour: a side cell that is passable
 * while the side cell of its predecessor is a wall, so that the side can be
 * reached best through this cell.  A diagonal jump steps while the move is
 * legal (both orthogonal cells free, gc_dirs_from_open's rule) and stops at
 * the goal or at a cell from which a straight jump along either component
 * finds something; diagonal moves have no forced neighbours under this
 * rule.  A jump point reached straight goes on straight and turns to its
 * forced sides, straight and diagonally forward; one reached diagonally
 * goes on diagonally and along both components; the start goes every way.
 * Straight jumps scan the nav bitsets (rows, or columns transposed) 64
 * cells a window: walls are ~row, forced cells side & ~(side << 1), the goal
 * one bit, and the first set bit (ctz, clz going back) is the answer.  A
 * jump point's record keeps only the direction of its last step; the path
 * is read back by walking that way to the first cell of this search whose
 * cost plus the walk is no more than the jump point's (its parent, or a
 * cell on the same run that is as good), so no parent array is needed and
 * the context stays at 12 bytes a cell plus the open list.  The path
 * returned has every cell walked.
 *
 * Measured (gridcrowd-bench --clock cpu --repeat 5 --peer libtcod, uniform
 * costs, octile, no corner cutting, nav given, on a 2-core AMD EPYC VM):
 * A* den520d 114 us a search (23 M expansions/s), Berlin_1_256 132 us
 * (22 M/s), maze-128-128-2 160 us (30 M/s); libtcod's A* on the same
 * problems takes 590, 780 and 510 us.  JPS: 8.8, 10.3 and 50 us,
 * expanding 66, 99 and 736 jump points a search where A* expands 2643,
 * 2932 and 4788 cells.
 */
#include "config.h"

#include "astar_int.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#if defined(__GNUC__)
#define GC_INLINE static inline __attribute__((always_inline))
#define GC_NOINLINE static __attribute__((noinline))
#define GC_LIKELY(x) __builtin_expect(!!(x), 1)
#define GC_UNLIKELY(x) __builtin_expect(!!(x), 0)
#else
#define GC_INLINE static inline
#define GC_NOINLINE static
#define GC_LIKELY(x) (x)
#define GC_UNLIKELY(x) (x)
#endif

#define META_CLOSED 8u
#define META_DIR 7u
#define STAMP_MAX GC_ASTAR_STAMP_MAX
#define HEAP_ALIGN 64
#define HEAP_PAD 3 /* entries before index 0, see the note on alignment */
/* Cells from which the records (12 bytes a cell) pass 1 MiB and the search
 * prefetches them; below, they stay in the caches. */
#define PREFETCH_MIN_CELLS 87382
/* Relative improvement that counts as real rather than rounding noise. */
#define REOPEN_TOL 1e-10

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

typedef struct hent {
    uint64_t key;
    uint32_t cell;
    uint32_t xy; /* y << 16 | x */
} hent;
_Static_assert(sizeof(hent) == 16, "heap entries are 16 bytes");
_Static_assert(GC_GRID_MAX_SIDE <= 65536, "x and y fit in 16 bits each");

struct gc_astar {
    int32_t width, height;
    size_t ncells;
    uint32_t *meta;
    double *g;
    unsigned char *heap_mem; /* allocation holding the heap */
    hent *heap;              /* heap_mem + HEAP_PAD entries */
    size_t heap_cap;         /* entries */
    size_t heap_peak;        /* most entries any search held */
    uint32_t stamp;          /* of the last search */
    ptrdiff_t off[8];        /* index offset of direction d */
    /* Cost tables for the grid cost table in cost_key. */
    bool costs_valid;
    float cost_key[GC_CELL_NTYPES];
    uint8_t pass[256];              /* 1 when the byte is passable */
    double step[2][GC_CELL_NTYPES]; /* [diagonal][type] step cost */
};

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
        return -1;
    for (int i = 0; i < NHEUR; i++)
        if (strcasecmp(s, heur_names[i]) == 0)
            return i;
    if (strcasecmp(s, "dijkstra") == 0)
        return GC_HEUR_ZERO;
    return -1;
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
        return -1;
    for (int i = 0; i < NALGO; i++)
        if (strcasecmp(s, algo_names[i]) == 0)
            return i;
    return -1;
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
        return -1;
    for (int i = 0; i < NRULE; i++)
        if (strcasecmp(s, rule_names[i]) == 0)
            return i;
    return -1;
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
    size_t bytes = (cap + HEAP_PAD) * sizeof(hent);
    bytes = (bytes + HEAP_ALIGN - 1) / HEAP_ALIGN * HEAP_ALIGN;
    unsigned char *mem = aligned_alloc(HEAP_ALIGN, bytes);
    if (mem == NULL)
        return GC_ENOMEM;
    a->heap_mem = mem;
    a->heap = (hent *)(void *)(mem + HEAP_PAD * sizeof(hent));
    a->heap_cap = cap;
    return GC_OK;
}

/* Grow the heap by half, keeping its first n entries.  Cold: a search
 * needs it only when it holds more open entries than any search before.
 * Half rather than double keeps the overshoot, and so the memory, small. */
GC_NOINLINE int
heap_grow(gc_astar *a, size_t n)
{
    unsigned char *old_mem = a->heap_mem;
    hent *old = a->heap;
    size_t cap = a->heap_cap + a->heap_cap / 2 + 4;
    if (cap > SIZE_MAX / sizeof(hent) - HEAP_PAD - HEAP_ALIGN)
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
    if (width < 1 || height < 1)
        return GC_EINVAL;
    if (width > GC_GRID_MAX_SIDE || height > GC_GRID_MAX_SIDE ||
        (size_t)width * (size_t)height > GC_GRID_MAX_CELLS)
        return GC_ETOOBIG;
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
    pthread_once(&move_tables_once, move_tables_init);
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
    size_t heap = (a->heap_cap + HEAP_PAD) * sizeof(hent);
    heap = (heap + HEAP_ALIGN - 1) / HEAP_ALIGN * HEAP_ALIGN;
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

/* ---- the search ---------------------------------------------------------- */

typedef struct search {
    const uint8_t *cells;
    const float *clear; /* with a radius only */
    float rc;           /* radius in cells */
    int32_t w, h;
    uint32_t start, goal;
    uint32_t start_xy;
    int32_t gx, gy;
    gc_diag_rule rule;
    gc_heuristic near; /* metric for "nearest to the goal" (partial) */
    double hk1, hk2;   /* heuristic coefficients, scale and weight included */
    bool optimal;
    bool partial;
    uint64_t cap;
    gc_trace *trace;
    const gc_nav *nav; /* JPS: the bitsets */
    double unit;       /* JPS: the cost of every passable cell present */
    bool uniform;      /* every step costs its length times one cost, */
    double ucost;      /* this one */
    /* results */
    uint64_t expanded, opened, scanned;
    bool found, limited;
    int err;
    uint32_t best, best_xy; /* partial target */
    uint32_t end, end_xy;   /* where the path ends */
} search;

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

GC_INLINE uint32_t
fbits(double v)
{
    float f = (float)v;
    uint32_t b;
    memcpy(&b, &f, sizeof b);
    return b;
}

/* f and g are >= 0, so their float bit patterns order like the values. */
GC_INLINE uint64_t
mkkey(double f, double g)
{
    return (uint64_t)fbits(f) << 32 | (uint32_t)~fbits(g);
}

/* The heap works in byte offsets (entry index * 16) so that child and
 * parent positions need no scaling: the children of the entry at byte i
 * start at byte 4i + 16, its parent is at ((i - 16) / 64) * 16. */
#define HE ((size_t)sizeof(hent))
#define HAT(base, off) ((hent *)(void *)((base) + (off)))

GC_INLINE size_t
heap_parent(size_t i)
{
    return ((i - HE) >> 6) << 4;
}

/* Insert e into a heap of n entries (the slot at n is free). */
GC_INLINE void
heap_push(hent *h, size_t n, hent e)
{
    char *b = (char *)h;
    size_t i = n * HE;
    while (i > 0) {
        size_t p = heap_parent(i);
        if (HAT(b, p)->key <= e.key)
            break;
        *HAT(b, i) = *HAT(b, p);
        i = p;
    }
    *HAT(b, i) = e;
}

/*
 * Put e at the root of a heap of n entries (the root's old entry is gone)
 * and restore the heap, bottom-up (Floyd): walk the hole down to a leaf
 * always taking the least child, with branch-free selects, then sift e up
 * from there.  e is usually a late, large entry, so it rises little, and
 * the descent has no data-dependent branch to mispredict.
 */
GC_INLINE void
heap_sift_down(hent *h, size_t n, hent e)
{
    char *b = (char *)h;
    size_t i = 0, end = n * HE;
    for (;;) {
        size_t c = 4 * i + HE;
        if (c + 3 * HE >= end)
            break;
        const hent *q = HAT(b, c);
        uint64_t k0 = q[0].key, k1 = q[1].key, k2 = q[2].key, k3 = q[3].key;
        size_t x = k1 < k0 ? c + HE : c, y = k3 < k2 ? c + 3 * HE : c + 2 * HE;
        uint64_t kx = k1 < k0 ? k1 : k0, ky = k3 < k2 ? k3 : k2;
        size_t m = ky < kx ? y : x;
        *HAT(b, i) = *HAT(b, m);
        i = m;
    }
    size_t c = 4 * i + HE;
    if (c < end) {
        size_t m = c;
        for (size_t j = c + HE; j < end; j += HE)
            if (HAT(b, j)->key < HAT(b, m)->key)
                m = j;
        *HAT(b, i) = *HAT(b, m);
        i = m;
    }
    while (i > 0) {
        size_t p = heap_parent(i);
        if (HAT(b, p)->key <= e.key)
            break;
        *HAT(b, i) = *HAT(b, p);
        i = p;
    }
    *HAT(b, i) = e;
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

/* The open list: a heap plus the `next` slot (see core). */
typedef struct openlist {
    hent *heap;
    size_t n, cap, peak;
    hent next;
    bool have_next;
} openlist;

/* Add e to the open list; GC_ENOMEM if the heap cannot grow. */
GC_INLINE int
ol_add(gc_astar *a, openlist *o, hent e)
{
    if (!o->have_next) {
        o->next = e;
        o->have_next = true;
        return GC_OK;
    }
    if (e.key < o->next.key) {
        hent t = o->next;
        o->next = e;
        e = t;
    }
    if (GC_UNLIKELY(o->n == o->cap)) {
        if (heap_grow(a, o->n) != GC_OK)
            return GC_ENOMEM;
        o->heap = a->heap;
        o->cap = a->heap_cap;
    }
    heap_push(o->heap, o->n, e);
    o->n++;
    if (o->n > o->peak)
        o->peak = o->n;
    return GC_OK;
}

/* What every relaxation reads; constant through a search. */
typedef struct sconst {
    uint32_t *meta;
    double *gv;
    double step[2][GC_CELL_NTYPES];
    double ustep[2]; /* UNI: the step costs of every passable cell */
    ptrdiff_t w;
    int32_t gx, gy;
    double hk1, hk2;
    uint32_t cur, closed;
    bool optimal;
    gc_trace *trace;
} sconst;

/*
 * Relax the move from c (at xy, with cost gc; p, mc and gp point at its
 * cell byte, record and g) in direction D, a constant, so that every
 * offset is an addressing mode.  A cell untouched this search is always
 * improved; a touched one when the new g is smaller; a closed one only
 * when it is smaller by more than the reopening tolerance, which is rarely
 * even asked.  Returns GC_ENOMEM or GC_OK.
 */
GC_INLINE int
relax(gc_astar *a, openlist *o, const sconst *k, const int HK, const int D,
      const bool UNI, uint32_t c, uint32_t xy, double gc, const uint8_t *p,
      const uint32_t *mc, const double *gp, uint64_t *opened)
{
    const ptrdiff_t off = dir_off(D, k->w);
    const double ng = gc + (UNI ? k->ustep[D >= 4] : k->step[D >= 4][p[off]]);
    const uint32_t nm = mc[off];
    const double og = gp[off];
    if (nm >= k->cur && !(ng < og))
        return GC_OK;
    if (GC_UNLIKELY(nm >= k->closed)) {
        /* Closed: reopen only for a real improvement. */
        if (!k->optimal || !(ng < og - og * REOPEN_TOL))
            return GC_OK;
    }
    const uint32_t nb = (uint32_t)((ptrdiff_t)c + off);
    if (k->trace != NULL && (nm < k->cur || nm >= k->closed))
        trace_add(k->trace, nb, GC_TRACE_OPEN);
    k->gv[nb] = ng;
    k->meta[nb] = k->cur | (uint32_t)D;
    const uint32_t nxy =
        xy + (uint32_t)((int32_t)gc_dir_dy[D] * 65536 + gc_dir_dx[D]);
    const double f =
        ng + heur(HK, (int32_t)(nxy & 0xFFFF), (int32_t)(nxy >> 16), k->gx,
                  k->gy, k->hk1, k->hk2);
    hent ne = {mkkey(f, ng), nb, nxy};
    (*opened)++;
    return ol_add(a, o, ne);
}

/*
 * The search proper; HK (heuristic) and RAD (clearance radius in use) are
 * constants at every call site, so each instantiation keeps only its own
 * code.  See the design note for the rules it keeps.
 *
 * `next` holds the best child of the last expansion outside the heap: when
 * its key is below the heap's top it is what the heap would give next
 * anyway, so it is expanded without a push and a pop.  Going straight for
 * the goal on open ground this skips most heap work.
 */
GC_INLINE void
core(gc_astar *a, search *s, const int HK, const bool RAD, const bool LEAN,
     const bool UNI)
{
    sconst k;
    k.meta = a->meta;
    k.gv = a->g;
    memcpy(k.step, a->step, sizeof k.step);
    k.ustep[0] = s->ucost;
    k.ustep[1] = GC_SQRT2 * s->ucost;
    k.w = s->w;
    k.gx = s->gx;
    k.gy = s->gy;
    k.hk1 = s->hk1;
    k.hk2 = s->hk2;
    k.cur = a->stamp << 4;
    k.closed = k.cur | META_CLOSED;
    k.optimal = s->optimal;
    k.trace = LEAN ? NULL : s->trace;

    openlist o;
    o.heap = a->heap;
    o.n = 0;
    o.cap = a->heap_cap;
    o.peak = 0;
    o.have_next = false;

    uint32_t *meta = a->meta;
    double *gv = a->g;
    const uint8_t *cells = s->cells;
    const uint8_t *pass = a->pass;
    const uint8_t *open8 = s->nav != NULL ? s->nav->open8 : NULL;
    /* Records that stay in the caches are there already: fetching ahead
     * only costs instructions (3% on maze-128-128-2 and on den520d). */
    const bool prefetching = a->ncells >= PREFETCH_MIN_CELLS;
    const float *clear = s->clear;
    const float rc = s->rc;
    const int32_t w = s->w, h = s->h;
    const ptrdiff_t W = w;
    const uint32_t iw = (uint32_t)w - 2, ih = (uint32_t)h - 2;
    const uint32_t goal = s->goal, start = s->start;
    const gc_diag_rule rule = s->rule;
    const bool partial = !LEAN && s->partial;
    const uint8_t *legal = legal_moves[rule];
    const uint8_t *moves = &child_moves[s->uniform][rule][0][0];
    uint64_t expanded = 0, opened = 1;
    const uint64_t cap_exp = s->cap;
    uint32_t best = s->start, best_xy = s->start_xy;
    double best_d = INFINITY, best_g = INFINITY;
    bool found = false;
    double goal_g = INFINITY;
    uint32_t goal_fk = 0;
    int err = GC_OK;

    {
        uint32_t xy = s->start_xy;
        gv[start] = 0.0;
        meta[start] = k.cur;
        double f = heur(HK, (int32_t)(xy & 0xFFFF), (int32_t)(xy >> 16), k.gx,
                        k.gy, k.hk1, k.hk2);
        hent e = {mkkey(f, 0.0), start, xy};
        o.next = e;
        o.have_next = true;
        if (k.trace != NULL)
            trace_add(k.trace, start, GC_TRACE_OPEN);
    }

    for (;;) {
        hent e;
        if (o.have_next && (o.n == 0 || o.next.key <= o.heap[0].key)) {
            e = o.next;
            o.have_next = false;
        } else {
            if (o.n == 0)
                break;
            e = o.heap[0];
            if (o.have_next) {
                /* Push next and pop the top in one sift. */
                heap_sift_down(o.heap, o.n, o.next);
                o.have_next = false;
            } else if (--o.n > 0) {
                heap_sift_down(o.heap, o.n, o.heap[o.n]);
            }
        }
        if (found && (uint32_t)(e.key >> 32) > goal_fk)
            break;
        const uint32_t c = e.cell;
        if (o.n > 0 && prefetching) {
            /* The heap's new top is likely next but one: start fetching
             * its neighbourhood now, while this cell is expanded. */
            ptrdiff_t t = o.heap[0].cell;
            prefetch(meta, (t - W) * (ptrdiff_t)sizeof *meta);
            prefetch(meta, (t + W) * (ptrdiff_t)sizeof *meta);
            prefetch(gv, (t - W) * (ptrdiff_t)sizeof *gv);
            prefetch(gv, t * (ptrdiff_t)sizeof *gv);
            prefetch(gv, (t + W) * (ptrdiff_t)sizeof *gv);
        }
        const uint32_t m = meta[c];
        if (m >= k.closed)
            continue; /* an outdated entry of a closed cell */
        const double gc = gv[c];
        if (GC_UNLIKELY(c == goal)) {
            meta[c] = m | META_CLOSED;
            if (k.trace != NULL)
                trace_add(k.trace, c, GC_TRACE_CLOSE);
            found = true;
            goal_g = gc;
            goal_fk = fbits(gc);
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
        meta[c] = m | META_CLOSED;
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

        unsigned open;
        const uint8_t *p = cells + c;
        if (open8 != NULL) {
            open = open8[c];
        } else if (GC_LIKELY((uint32_t)x - 1 < iw && (uint32_t)y - 1 < ih)) {
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
                if (nx >= 0 && ny >= 0 && nx < w && ny < h &&
                    pass[cells[(size_t)ny * (size_t)w + (size_t)nx]])
                    open |= 1u << d;
            }
        }
        if (RAD) {
            for (unsigned b = open; b != 0; b &= b - 1) {
                int d = __builtin_ctz(b);
                if (clear[(ptrdiff_t)c + (ptrdiff_t)gc_dir_dy[d] * W +
                          gc_dir_dx[d]] < rc)
                    open &= ~(1u << d);
            }
        }

        const uint32_t *mc = meta + c;
        const double *gp = gv + c;
        /* The cell we came from is closed with a smaller g: skip it, and
         * with uniform costs what it reached itself (see prune_always). */
        const unsigned mask = GC_LIKELY(c != start)
                                  ? moves[(m & META_DIR) << 8 | open]
                                  : legal[open];
#define RELAX(D)                                                               \
    if (mask & (1u << (D))) {                                                  \
        err = relax(a, &o, &k, HK, D, UNI, c, e.xy, gc, p, mc, gp, &opened);   \
        if (GC_UNLIKELY(err != GC_OK))                                         \
            goto out;                                                          \
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
    }
out:
    s->err = err;
    s->found = found;
    s->best = best;
    s->best_xy = best_xy;
    s->expanded = expanded;
    s->opened = opened;
    if (o.peak > a->heap_peak)
        a->heap_peak = o.peak;
}

#define INSTANCE(name, hk, rad, lean, uni)                                     \
    GC_NOINLINE void name(gc_astar *a, search *s)                              \
    {                                                                          \
        core(a, s, hk, rad, lean, uni);                                        \
    }
/* The common case (octile, no radius, no trace, no partial path) gets its
 * own copy without their tests. */
INSTANCE(search_octile_lean, GC_HEUR_OCTILE, false, true, false)
INSTANCE(search_octile_lean_uni, GC_HEUR_OCTILE, false, true, true)
INSTANCE(search_octile, GC_HEUR_OCTILE, false, false, false)
INSTANCE(search_manhattan, GC_HEUR_MANHATTAN, false, false, false)
INSTANCE(search_euclidean, GC_HEUR_EUCLIDEAN, false, false, false)
INSTANCE(search_chebyshev, GC_HEUR_CHEBYSHEV, false, false, false)
INSTANCE(search_zero, GC_HEUR_ZERO, false, false, false)
INSTANCE(search_octile_r, GC_HEUR_OCTILE, true, false, false)
INSTANCE(search_manhattan_r, GC_HEUR_MANHATTAN, true, false, false)
INSTANCE(search_euclidean_r, GC_HEUR_EUCLIDEAN, true, false, false)
INSTANCE(search_chebyshev_r, GC_HEUR_CHEBYSHEV, true, false, false)
INSTANCE(search_zero_r, GC_HEUR_ZERO, true, false, false)
#undef INSTANCE

static void
run_search(gc_astar *a, search *s, gc_heuristic hk, bool rad)
{
    static void (*const plain[])(gc_astar *, search *) = {
        [GC_HEUR_OCTILE] = search_octile,
        [GC_HEUR_MANHATTAN] = search_manhattan,
        [GC_HEUR_EUCLIDEAN] = search_euclidean,
        [GC_HEUR_CHEBYSHEV] = search_chebyshev,
        [GC_HEUR_ZERO] = search_zero,
    };
    static void (*const radius[])(gc_astar *, search *) = {
        [GC_HEUR_OCTILE] = search_octile_r,
        [GC_HEUR_MANHATTAN] = search_manhattan_r,
        [GC_HEUR_EUCLIDEAN] = search_euclidean_r,
        [GC_HEUR_CHEBYSHEV] = search_chebyshev_r,
        [GC_HEUR_ZERO] = search_zero_r,
    };
    if (!rad && hk == GC_HEUR_OCTILE && s->trace == NULL && !s->partial)
        (s->uniform ? search_octile_lean_uni : search_octile_lean)(a, s);
    else
        (rad ? radius : plain)[hk](a, s);
}

/* ---- jump point search --------------------------------------------------- */

/* A position on a line no goal is at (see scan_up). */
#define NOGOAL (-(1 << 24))

/* What the jumps of one search read: the nav bitsets and the goal. */
typedef struct jumper {
    const uint64_t *rows, *cols;
    size_t rw, cw; /* words a line */
    int32_t gx, gy;
    uint64_t scanned;
} jumper;

GC_INLINE const uint64_t *
jrow(const jumper *j, int32_t y)
{
    return j->rows + (size_t)(y + 1) * j->rw;
}

GC_INLINE const uint64_t *
jcol(const jumper *j, int32_t x)
{
    return j->cols + (size_t)(x + 1) * j->cw;
}

/* 1 when cell i of a line is passable (i from -1 to the line's length). */
GC_INLINE unsigned
jbit(const uint64_t *line, int32_t i)
{
    size_t b = (size_t)(i + GC_NAV_PAD);
    return (unsigned)(line[b >> 6] >> (b & 63)) & 1u;
}

/* The 64 bits of a line from bit b on, bit b lowest. */
GC_INLINE uint64_t
window(const uint64_t *line, size_t b)
{
    size_t i = b >> 6;
    unsigned s = (unsigned)(b & 63);
    return line[i] >> s | (line[i + 1] << 1) << (63 - s);
}

/*
 * Jump along a line (a row, or a column of the transposed bitsets) from the
 * passable cell `pos` towards larger indices.  Returns the first cell that
 * is the goal (`goal`, NOGOAL when it is not on this line ahead) or has a
 * forced neighbour: a cell beside it on line s1 or s2 is passable while the
 * one beside its predecessor is a wall, so the side cell can be reached
 * best through it.  Returns -1 when a wall comes first.  A window holds the
 * 64 cells from pos - 1: bit i is forced when side bit i is set and bit
 * i - 1 clear (side & ~(side << 1)); bits 0 and 1 were looked at already,
 * so each window moves on by 62.
 */
GC_INLINE int32_t
scan_up(jumper *j, const uint64_t *s1, const uint64_t *cur, const uint64_t *s2,
        int32_t pos, int32_t goal)
{
    size_t b = (size_t)pos + GC_NAV_PAD - 1;
    int64_t gb = (int64_t)goal + GC_NAV_PAD - (int64_t)b;
    for (;;) {
        uint64_t a = window(s1, b), c = window(cur, b), d = window(s2, b);
        uint64_t stop = (a & ~(a << 1)) | (d & ~(d << 1)) | ~c;
        if ((uint64_t)gb < 64)
            stop |= (uint64_t)1 << gb;
        stop &= ~(uint64_t)3;
        if (stop != 0) {
            int i = __builtin_ctzll(stop);
            int32_t at = (int32_t)((int64_t)b - GC_NAV_PAD + i);
            j->scanned += (uint64_t)(at - pos);
            return (c >> i & 1) ? at : -1;
        }
        b += 62;
        gb -= 62;
    }
}

/* The same towards smaller indices: the window ends at pos + 1 (bit 63),
 * a cell is forced when side bit i is set and bit i + 1 clear. */
GC_INLINE int32_t
scan_down(jumper *j, const uint64_t *s1, const uint64_t *cur,
          const uint64_t *s2, int32_t pos, int32_t goal)
{
    size_t b = (size_t)pos + GC_NAV_PAD - 62;
    int64_t gb = (int64_t)goal + GC_NAV_PAD - (int64_t)b;
    for (;;) {
        uint64_t a = window(s1, b), c = window(cur, b), d = window(s2, b);
        uint64_t stop = (a & ~(a >> 1)) | (d & ~(d >> 1)) | ~c;
        if ((uint64_t)gb < 64)
            stop |= (uint64_t)1 << gb;
        stop &= ~(uint64_t)0 >> 2;
        if (stop != 0) {
            int i = 63 - __builtin_clzll(stop);
            int32_t at = (int32_t)((int64_t)b - GC_NAV_PAD + i);
            j->scanned += (uint64_t)(pos - at);
            return (c >> i & 1) ? at : -1;
        }
        b -= 62;
        gb += 62;
    }
}

/* Jump from (x, y) in straight direction d (a constant): the distance to
 * the jump point, 0 when there is none. */
GC_INLINE int32_t
jump_straight(jumper *j, const int d, int32_t x, int32_t y)
{
    int32_t at;
    switch (d) {
    case 0:
        at = scan_up(j, jrow(j, y - 1), jrow(j, y), jrow(j, y + 1), x,
                     y == j->gy && j->gx > x ? j->gx : NOGOAL);
        return at < 0 ? 0 : at - x;
    case 1:
        at = scan_up(j, jcol(j, x - 1), jcol(j, x), jcol(j, x + 1), y,
                     x == j->gx && j->gy > y ? j->gy : NOGOAL);
        return at < 0 ? 0 : at - y;
    case 2:
        at = scan_down(j, jrow(j, y - 1), jrow(j, y), jrow(j, y + 1), x,
                       y == j->gy && j->gx < x ? j->gx : NOGOAL);
        return at < 0 ? 0 : x - at;
    default:
        at = scan_down(j, jcol(j, x - 1), jcol(j, x), jcol(j, x + 1), y,
                       x == j->gx && j->gy < y ? j->gy : NOGOAL);
        return at < 0 ? 0 : y - at;
    }
}

/*
 * Jump from (x, y) in diagonal direction d (a constant): step while the
 * move is legal without cutting a corner (both orthogonal cells and the
 * target passable: the rule of gc_dirs_from_open), and stop at the goal or
 * at the first cell from which a straight jump along either component
 * finds something.  A diagonal move has no forced neighbours under this
 * rule.  Returns the number of steps, 0 when there is no jump point.
 */
GC_INLINE int32_t
jump_diag(jumper *j, const int d, int32_t x, int32_t y)
{
    const int32_t dx = gc_dir_dx[d], dy = gc_dir_dy[d];
    const int h = dx > 0 ? 0 : 2, v = dy > 0 ? 1 : 3;
    for (int32_t k = 1;; k++) {
        const uint64_t *row = jrow(j, y), *next = jrow(j, y + dy);
        if (!(jbit(row, x + dx) & jbit(next, x) & jbit(next, x + dx)))
            return 0;
        x += dx;
        y += dy;
        j->scanned++;
        if (x == j->gx && y == j->gy)
            return k;
        if (jump_straight(j, h, x, y) != 0 || jump_straight(j, v, x, y) != 0)
            return k;
    }
}

/*
 * Record the jump point `dist` steps from c (at xy, cost gc) in direction D
 * at cost ng, as relax does for a neighbour: pushed when untouched or
 * improved, a closed one reopened only for a real improvement.  Its record
 * keeps D; build_path_jps walks back along it to the parent.
 */
GC_INLINE int
jps_relax(gc_astar *a, openlist *o, const sconst *k, const int D, uint32_t c,
          uint32_t xy, int32_t dist, double ng, uint64_t *opened)
{
    const uint32_t nb = (uint32_t)((ptrdiff_t)c + dir_off(D, k->w) * dist);
    const uint32_t nm = k->meta[nb];
    const double og = k->gv[nb];
    if (nm >= k->cur && !(ng < og))
        return GC_OK;
    if (nm >= k->closed && !(ng < og - og * REOPEN_TOL))
        return GC_OK;
    if (k->trace != NULL)
        trace_add(k->trace, nb, GC_TRACE_OPEN);
    k->gv[nb] = ng;
    k->meta[nb] = k->cur | (uint32_t)D;
    const uint32_t nxy =
        xy + (uint32_t)(dist * ((int32_t)gc_dir_dy[D] * 65536 + gc_dir_dx[D]));
    const double f =
        ng + heur(GC_HEUR_OCTILE, (int32_t)(nxy & 0xFFFF), (int32_t)(nxy >> 16),
                  k->gx, k->gy, k->hk1, k->hk2);
    hent ne = {mkkey(f, ng), nb, nxy};
    (*opened)++;
    return ol_add(a, o, ne);
}

/* Diagonal combining straight directions d and e (perpendicular). */
static const uint8_t diag_of[4][4] = {
    {0, 4, 0, 7}, /* E: +S SE, +N NE */
    {4, 0, 5, 0}, /* S: +E SE, +W SW */
    {0, 5, 0, 6}, /* W: +S SW, +N NW */
    {7, 0, 6, 0}, /* N: +E NE, +W NW */
};

/*
 * Jump point search: the loop of core (same open list, keys, exactness
 * repairs and records) over jump points.  A cell reached by a straight
 * jump in direction d goes on in d and, for each side whose cell is
 * passable while the cell behind it is a wall (its forced neighbour),
 * turns to that side straight and diagonally; one reached diagonally goes
 * on diagonally and along both components; the start goes every way.  The
 * jumps themselves refuse illegal first steps.  Step costs are s->unit
 * (the one cost of every passable cell present) times the length.
 */
GC_NOINLINE void
jps_core(gc_astar *a, search *s)
{
    sconst k;
    k.meta = a->meta;
    k.gv = a->g;
    k.w = s->w;
    k.gx = s->gx;
    k.gy = s->gy;
    k.hk1 = s->hk1;
    k.hk2 = s->hk2;
    k.cur = a->stamp << 4;
    k.closed = k.cur | META_CLOSED;
    k.optimal = true;
    k.trace = s->trace;

    openlist o;
    o.heap = a->heap;
    o.n = 0;
    o.cap = a->heap_cap;
    o.peak = 0;
    o.have_next = false;

    const gc_nav *nav = s->nav;
    jumper j = {nav->rows, nav->cols, nav->row_words, nav->col_words, s->gx,
                s->gy,     0};
    uint32_t *meta = a->meta;
    double *gv = a->g;
    const uint32_t goal = s->goal, start = s->start;
    const double cs = s->unit, cd = GC_SQRT2 * s->unit;
    uint64_t expanded = 0, opened = 1;
    const uint64_t cap_exp = s->cap;
    bool found = false;
    double goal_g = INFINITY;
    uint32_t goal_fk = 0;
    int err = GC_OK;

    {
        uint32_t xy = s->start_xy;
        gv[start] = 0.0;
        meta[start] = k.cur;
        double f = heur(GC_HEUR_OCTILE, (int32_t)(xy & 0xFFFF),
                        (int32_t)(xy >> 16), k.gx, k.gy, k.hk1, k.hk2);
        o.next = (hent){mkkey(f, 0.0), start, xy};
        o.have_next = true;
        if (k.trace != NULL)
            trace_add(k.trace, start, GC_TRACE_OPEN);
    }

    for (;;) {
        hent e;
        if (o.have_next && (o.n == 0 || o.next.key <= o.heap[0].key)) {
            e = o.next;
            o.have_next = false;
        } else {
            if (o.n == 0)
                break;
            e = o.heap[0];
            if (o.have_next) {
                heap_sift_down(o.heap, o.n, o.next);
                o.have_next = false;
            } else if (--o.n > 0) {
                heap_sift_down(o.heap, o.n, o.heap[o.n]);
            }
        }
        if (found && (uint32_t)(e.key >> 32) > goal_fk)
            break;
        const uint32_t c = e.cell;
        const uint32_t m = meta[c];
        if (m >= k.closed)
            continue;
        const double gc = gv[c];
        if (GC_UNLIKELY(c == goal)) {
            meta[c] = m | META_CLOSED;
            if (k.trace != NULL)
                trace_add(k.trace, c, GC_TRACE_CLOSE);
            found = true;
            goal_g = gc;
            goal_fk = fbits(gc);
            continue;
        }
        const int32_t x = (int32_t)(e.xy & 0xFFFF), y = (int32_t)(e.xy >> 16);
        if (GC_UNLIKELY(found)) {
            double f =
                gc + heur(GC_HEUR_OCTILE, x, y, k.gx, k.gy, k.hk1, k.hk2);
            if (f >= goal_g - goal_g * REOPEN_TOL)
                continue;
        }
        if (GC_UNLIKELY(expanded >= cap_exp)) {
            s->limited = true;
            break;
        }
        meta[c] = m | META_CLOSED;
        expanded++;
        if (k.trace != NULL)
            trace_add(k.trace, c, GC_TRACE_CLOSE);

        unsigned dirs;
        if (GC_UNLIKELY(c == start)) {
            dirs = 0xFFu;
        } else {
            const int d = (int)(m & META_DIR);
            if (d >= 4) {
                dirs = 1u << d | gc_dir_orth_mask[d];
            } else {
                /* The sides of a straight move are the two other axis
                 * directions; a side is forced when its cell is passable
                 * and the one behind it (beside the predecessor) is not. */
                dirs = 1u << d;
                const int32_t bx = x - gc_dir_dx[d], by = y - gc_dir_dy[d];
                for (int side = (d + 1) & 3, n = 0; n < 2;
                     n++, side = (side + 2) & 3) {
                    const int32_t sx = gc_dir_dx[side], sy = gc_dir_dy[side];
                    if (jbit(jrow(&j, y + sy), x + sx) &&
                        !jbit(jrow(&j, by + sy), bx + sx))
                        dirs |= 1u << side | 1u << diag_of[d][side];
                }
            }
        }
#define JUMP(D)                                                                \
    if (dirs & (1u << (D))) {                                                  \
        int32_t n =                                                            \
            (D) < 4 ? jump_straight(&j, D, x, y) : jump_diag(&j, D, x, y);     \
        if (n != 0) {                                                          \
            err = jps_relax(a, &o, &k, D, c, e.xy, n,                          \
                            gc + (double)n * ((D) < 4 ? cs : cd), &opened);    \
            if (GC_UNLIKELY(err != GC_OK))                                     \
                goto out;                                                      \
        }                                                                      \
    }
        JUMP(0)
        JUMP(1)
        JUMP(2)
        JUMP(3)
        JUMP(4)
        JUMP(5)
        JUMP(6)
        JUMP(7)
#undef JUMP
    }
out:
    s->err = err;
    s->found = found;
    s->expanded = expanded;
    s->opened = opened;
    s->scanned = j.scanned;
    if (o.peak > a->heap_peak)
        a->heap_peak = o.peak;
}

/*
 * Walk back from jump point c (at x, y) to its parent: along the reverse of
 * the direction in its record, to the first cell of this search whose cost
 * plus the steps walked is no more than c's.  The parent that set c's cost
 * qualifies (its cost only fell since, and the sum is computed as
 * jps_core computed it), so the walk ends there at the latest; a cell met
 * before it is as good a parent, since it lies on the same straight run.
 * Returns the number of steps; with `cells`, writes the cells walked (the
 * parent last) downwards from cells[*at - 1].
 */
static int32_t
jps_parent(const gc_astar *a, const search *s, uint32_t *c, int32_t *x,
           int32_t *y, gc_cell *cells, size_t *at)
{
    const uint32_t cur = a->stamp << 4;
    const int d = (int)(a->meta[*c] & META_DIR);
    const double step = d < 4 ? s->unit : GC_SQRT2 * s->unit;
    const double gc = a->g[*c];
    const double lim = gc + gc * 1e-12;
    uint32_t p = *c;
    int32_t k = 0;
    do {
        p = (uint32_t)((ptrdiff_t)p - a->off[d]);
        *x -= gc_dir_dx[d];
        *y -= gc_dir_dy[d];
        k++;
        if (cells != NULL)
            cells[--*at] = (gc_cell){*x, *y};
    } while (!(a->meta[p] >= cur && a->g[p] + (double)k * step <= lim));
    *c = p;
    return k;
}

/* The full cell path from the start to the goal of a JPS search, and its
 * cost summed start first as build_path sums it. */
static int
build_path_jps(const gc_astar *a, const search *s, gc_path *out, double *cost)
{
    size_t len = 1;
    uint32_t c = s->goal;
    int32_t x = s->gx, y = s->gy;
    while (c != s->start)
        len += (size_t)jps_parent(a, s, &c, &x, &y, NULL, NULL);
    int rc = gc_path_reserve(out, len);
    if (rc != GC_OK)
        return rc;
    size_t at = len - 1;
    c = s->goal;
    x = s->gx;
    y = s->gy;
    out->cells[at] = (gc_cell){x, y};
    while (c != s->start)
        jps_parent(a, s, &c, &x, &y, out->cells, &at);
    out->len = len;
    double sum = 0.0;
    for (size_t i = 1; i < len; i++) {
        gc_cell p = out->cells[i - 1], q = out->cells[i];
        int diag = p.x != q.x && p.y != q.y;
        size_t qi = (size_t)q.y * (size_t)a->width + (size_t)q.x;
        sum += a->step[diag][s->cells[qi]];
    }
    *cost = sum;
    return GC_OK;
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

/*
 * Read the path back from `end` (at end_xy) to the start through the
 * direction bits, into out, start first.  Returns its cost, summed start
 * first exactly as gc_polyline_cost sums it.
 */
static int
build_path(const gc_astar *a, const search *s, uint32_t end, uint32_t end_xy,
           gc_path *out, double *cost)
{
    size_t len = 1;
    for (uint32_t c = end; c != s->start;
         c = (uint32_t)((ptrdiff_t)c - a->off[a->meta[c] & META_DIR]))
        len++;
    int rc = gc_path_reserve(out, len);
    if (rc != GC_OK)
        return rc;
    int32_t x = (int32_t)(end_xy & 0xFFFF), y = (int32_t)(end_xy >> 16);
    uint32_t c = end;
    for (size_t i = len; i-- > 0;) {
        out->cells[i].x = x;
        out->cells[i].y = y;
        if (i == 0)
            break;
        int d = (int)(a->meta[c] & META_DIR);
        c = (uint32_t)((ptrdiff_t)c - a->off[d]);
        x -= gc_dir_dx[d];
        y -= gc_dir_dy[d];
    }
    out->len = len;
    double sum = 0.0;
    for (size_t i = 1; i < len; i++) {
        gc_cell p = out->cells[i - 1], q = out->cells[i];
        int diag = p.x != q.x && p.y != q.y;
        size_t qi = (size_t)q.y * (size_t)a->width + (size_t)q.x;
        sum += a->step[diag][s->cells[qi]];
    }
    *cost = sum;
    return GC_OK;
}

static uint64_t
now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
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
        if (isfinite(g->cost[t]) && g->cost[t] > m)
            m = g->cost[t];
    return m;
}

/* Whether jump point search gives this search's answer (see gc_algo in
 * astar.h), given unit = uniform_cost (0 without nav). */
static bool
jps_applies(const gc_astar_opts *o, double unit)
{
    return o->diag == GC_DIAG_NO_CORNER_CUT && o->radius <= 0.0f &&
           o->weight <= 1.0 && !o->partial && o->nav != NULL &&
           (o->heuristic == GC_HEUR_DEFAULT ||
            o->heuristic == GC_HEUR_OCTILE) &&
           unit > 0.0;
}

static int
finish(gc_astar_stats *stats, gc_astar_stats *st, uint64_t t0, int rc)
{
    st->status = rc;
    st->ns = now_ns() - t0;
    if (stats != NULL)
        *stats = *st;
    return rc;
}

int
gc_astar_find(gc_astar *a, const gc_grid *g, gc_cell start, gc_cell goal,
              const gc_astar_opts *opts, gc_path *out, gc_astar_stats *stats)
{
    uint64_t t0 = now_ns();
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
    if (a == NULL || g == NULL || g->cells == NULL || out == NULL ||
        g->width != a->width || g->height != a->height)
        return finish(stats, &st, t0, GC_EINVAL);
    if ((unsigned)opts->diag > GC_DIAG_ALWAYS ||
        (unsigned)opts->algo > GC_ALGO_JPS ||
        (unsigned)opts->heuristic > GC_HEUR_ZERO || isnan(opts->weight) ||
        !(opts->radius >= 0.0f) || isinf(opts->radius) ||
        (opts->trace != NULL && opts->trace->cap > 0 &&
         opts->trace->events == NULL))
        return finish(stats, &st, t0, GC_EINVAL);
    const gc_nav *nav = opts->nav;
    float rc = 0.0f;
    if (opts->radius > 0.0f) {
        if (nav == NULL || !(g->cell_size > 0.0f) || !isfinite(g->cell_size))
            return finish(stats, &st, t0, GC_EINVAL);
        rc = opts->radius / g->cell_size;
    }
    if (nav != NULL) {
        if (nav->width != g->width || nav->height != g->height)
            return finish(stats, &st, t0, GC_EINVAL);
        if (!gc_nav_fresh(nav, g))
            return finish(stats, &st, t0, GC_ESTALE);
    }
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
    gc_heuristic hk = opts->heuristic;
    if (hk == GC_HEUR_DEFAULT)
        hk = opts->diag == GC_DIAG_NEVER ? GC_HEUR_MANHATTAN : GC_HEUR_OCTILE;
    double weight = opts->weight > 1.0 ? opts->weight : 1.0;
    double scale = (double)gc_grid_min_cost(g) * weight;
    search s = {0};
    s.cells = g->cells;
    s.clear = rc > 0.0f ? nav->clear : NULL;
    s.rc = rc;
    s.w = g->width;
    s.h = g->height;
    s.start = (uint32_t)si;
    s.goal = (uint32_t)gi;
    s.start_xy = (uint32_t)start.y << 16 | (uint32_t)start.x;
    s.gx = goal.x;
    s.gy = goal.y;
    s.rule = opts->diag;
    s.hk1 = scale;
    s.hk2 = scale * (GC_SQRT2 - 1.0);
    /* Manhattan overestimates diagonal moves: not optimal, so no repair. */
    s.optimal = weight <= 1.0 &&
                !(hk == GC_HEUR_MANHATTAN && opts->diag != GC_DIAG_NEVER);
    s.partial = opts->partial;
    s.near = hk != GC_HEUR_ZERO            ? hk
             : opts->diag == GC_DIAG_NEVER ? GC_HEUR_MANHATTAN
                                           : GC_HEUR_OCTILE;
    s.cap = opts->max_expansions ? opts->max_expansions : UINT64_MAX;
    s.trace = opts->trace;
    s.best = s.start;
    s.best_xy = s.start_xy;
    next_stamp(a);
    s.nav = nav;
    s.uniform = unit > 0.0 || gc_grid_min_cost(g) == max_cost(g);
    s.ucost = unit > 0.0 ? unit : (double)gc_grid_min_cost(g);
    if (jps) {
        /* Every step costs unit times its length: h needs no other scale,
         * and a cheaper type that is absent does not weaken it. */
        s.unit = unit;
        s.hk1 = unit;
        s.hk2 = unit * (GC_SQRT2 - 1.0);
        jps_core(a, &s);
    } else {
        run_search(a, &s, hk, rc > 0.0f);
    }
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
    int brc = jps ? build_path_jps(a, &s, out, &cost)
                  : build_path(a, &s, end, end_xy, out, &cost);
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
