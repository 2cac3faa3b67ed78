/*
 * gc-genmap: write a generated map, for benchmarks that need a size no
 * shipped map has.
 *
 *   gc-genmap [--seed N] [--obstacles P] WIDTH HEIGHT > FILE.map
 *
 * The map is a town grid: blocks of random buildings (obstacles) between
 * two-cell roads (low cost), with patches of swamp (high cost) and single
 * obstacles scattered at density P (default 0.05) over the open ground.
 * Roads are never blocked, so the passable cells are one connected
 * component apart from pockets the scattered obstacles may close.
 *
 * Exit codes: 0 written; 1 out of memory or write error; 2 bad arguments.
 */
#include "config.h"

#include <gridcrowd/grid.h>
#include <gridcrowd/mapio.h>

#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static uint64_t rng;

static uint32_t
next(uint32_t n)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return (uint32_t)((rng >> 11) % n);
}

static void
fill(gc_grid *g, int x0, int y0, int x1, int y1, int type)
{
    for (int y = y0; y <= y1; y++)
        for (int x = x0; x <= x1; x++)
            gc_grid_set(g, x, y, type);
}

static void
usage(FILE *f)
{
    fprintf(f, "Usage: gc-genmap [--seed N] [--obstacles P] WIDTH HEIGHT\n"
               "Write a generated town map (all four cell types) to stdout.\n"
               "Exit codes: 0 written; 1 out of memory or write error; 2 "
               "bad arguments.\n");
}

int
main(int argc, char **argv)
{
    static const struct option longs[] = {
        {"seed", required_argument, 0, 's'},
        {"obstacles", required_argument, 0, 'o'},
        {"help", no_argument, 0, 'h'},
        {0, 0, 0, 0},
    };
    unsigned long long seed = 1;
    double density = 0.05;
    int c;
    while ((c = getopt_long(argc, argv, "", longs, NULL)) != -1) {
        char *end;
        switch (c) {
        case 's':
            errno = 0;
            seed = strtoull(optarg, &end, 10);
            if (*end || errno) {
                fprintf(stderr, "gc-genmap: --seed: not a number: '%s'\n",
                        optarg);
                return 2;
            }
            break;
        case 'o':
            density = strtod(optarg, &end);
            if (*end || !(density >= 0 && density <= 0.5)) {
                fprintf(stderr,
                        "gc-genmap: --obstacles: expected 0 to 0.5, got "
                        "'%s'\n",
                        optarg);
                return 2;
            }
            break;
        case 'h':
            usage(stdout);
            return 0;
        default:
            usage(stderr);
            return 2;
        }
    }
    if (argc - optind != 2) {
        usage(stderr);
        return 2;
    }
    int w = atoi(argv[optind]), h = atoi(argv[optind + 1]);
    gc_grid *g;
    int rc = gc_grid_new(&g, w, h);
    if (rc != GC_OK) {
        fprintf(stderr, "gc-genmap: %dx%d: %s\n", w, h, gc_strerror(rc));
        return rc == GC_ENOMEM ? 1 : 2;
    }
    rng = seed * 0x9E3779B97F4A7C15ull + 1;

    /* Blocks of 16 x 16 cells: a two-cell road on the block's top and left
     * edge, buildings inside, now and then a swamp patch instead. */
    const int B = 16;
    for (int by = 0; by < h; by += B)
        for (int bx = 0; bx < w; bx += B) {
            int x1 = bx + B - 1 < w - 1 ? bx + B - 1 : w - 1;
            int y1 = by + B - 1 < h - 1 ? by + B - 1 : h - 1;
            uint32_t kind = next(10);
            if (kind == 0) {
                fill(g, bx + 3, by + 3, x1 - 1, y1 - 1, GC_CELL_HIGH);
            } else if (kind <= 7) {
                for (int k = 0; k < 3; k++) {
                    int hx = bx + 3 + (int)next(8), hy = by + 3 + (int)next(8);
                    int hw = 2 + (int)next(4), hh = 2 + (int)next(4);
                    if (hx + hw > x1)
                        hw = x1 - hx;
                    if (hy + hh > y1)
                        hh = y1 - hy;
                    if (hw > 0 && hh > 0)
                        fill(g, hx, hy, hx + hw - 1, hy + hh - 1,
                             GC_CELL_OBSTACLE);
                }
            }
        }
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++)
            if (gc_grid_get(g, x, y) == GC_CELL_WALKABLE &&
                next(1000000) < (uint32_t)(density * 1e6))
                gc_grid_set(g, x, y, GC_CELL_OBSTACLE);
    for (int by = 0; by < h; by += B) {
        fill(g, 0, by, w - 1, by + 1 < h ? by + 1 : by, GC_CELL_LOW);
    }
    for (int bx = 0; bx < w; bx += B)
        fill(g, bx, 0, bx + 1 < w ? bx + 1 : bx, h - 1, GC_CELL_LOW);

    char *text;
    size_t len;
    rc = gc_map_format(g, &text, &len);
    gc_grid_free(g);
    if (rc != GC_OK) {
        fprintf(stderr, "gc-genmap: %s\n", gc_strerror(rc));
        return 1;
    }
    bool ok = fwrite(text, 1, len, stdout) == len && fflush(stdout) == 0;
    free(text);
    if (!ok) {
        fprintf(stderr, "gc-genmap: write: %s\n", strerror(errno));
        return 1;
    }
    return 0;
}
