/*
 * tools/bench/bench_peer.h: the libtcod peer of gridcrowd-bench.
 *
 * gridcrowd-bench times libgridcrowd's A* and, on request, libtcod's A* on
 * the same problems in the same process.  This header is the whole surface
 * of the peer, so that the benchmark itself never includes a libtcod header
 * and builds unchanged without libtcod (bench_peer_tcod.c is compiled only
 * when configure found it, and HAVE_LIBTCOD is defined then).
 */
#ifndef GRIDCROWD_BENCH_PEER_H
#define GRIDCROWD_BENCH_PEER_H

#include <gridcrowd/astar.h>
#include <gridcrowd/grid.h>

typedef struct tcod_peer tcod_peer;

/*
 * A libtcod path object for grids like `g`, with a move-cost callback that
 * follows `rule` exactly as libgridcrowd does (GC_DIAG_NEVER makes libtcod
 * 4-connected).  The passable cells of `g` are copied, so `g` may change or
 * go after this returns.  Returns GC_ENOMEM; the caller owns *out and frees
 * it with tcod_peer_free.
 */
int tcod_peer_new(tcod_peer **out, const gc_grid *g, gc_diag_rule rule);
void tcod_peer_free(tcod_peer *p);

/* Search from start to goal: true when libtcod found a path.  This is the
 * part the benchmark times; nothing else is done here. */
bool tcod_peer_find(tcod_peer *p, gc_cell start, gc_cell goal);

/* The path of the last successful tcod_peer_find, start and goal included,
 * into `out` (grown as needed).  Returns GC_ENOMEM. */
int tcod_peer_path(tcod_peer *p, gc_cell start, gc_path *out);

#endif
