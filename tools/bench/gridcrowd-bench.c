/*
 * gridcrowd-bench: time libgridcrowd's A* on Moving AI scenarios and check
 * every path length against the optimal length the scenario gives.
 *
 *     gridcrowd-bench [OPTIONS] FILE.scen...
 *
 * Each scenario is solved on its map (found beside the .scen file, or the
 * one --map names) with uniform costs and the Moving AI rules, one A*
 * context per map reused for every search.  We measure each search on the
 * monotonic clock around gc_astar_find alone, and judge each path from its
 * cells rather than from the cost the search reports: every step must be a
 * legal move (checked here, apart from the grid module's own rule code) and
 * the steps (1 straight, sqrt 2 diagonal) must add up to the optimal length
 * within 1e-4.  That way a search that reports the right cost for a wrong
 * path still fails.
 *
 * With --peer libtcod the same problems go to libtcod's A* in the same
 * process (bench_peer_tcod.c), interleaved per file: each run of a file
 * times both solvers one after the other, alternating which goes first, so
 * that both see the same machine and the same warm caches.  With --repeat N
 * a file is run N times and each figure is the median of its per-run
 * values, which damps noise from the rest of the machine; --clock cpu
 * times by the thread's CPU clock instead, which leaves out the time other
 * processes take when the machine is shared (it costs a system call per
 * reading, where the monotonic clock is read in user space).
 *
 * Exit codes: 0 every length optimal; 1 some length wrong; 2 usage error or
 * bad input; 3 out of memory.  Only our own lengths decide the exit code;
 * the peer's are reported (peer_optimal) but are libtcod's business.
 */
#include "config.h"

#include <gridcrowd/astar.h>
#include <gridcrowd/grid.h>
#include <gridcrowd/version.h>

#include <getopt.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "bench.h"

/* ---- options ----------------------------------------------------------- */

/* The help text is kept as it prints; clang-format would re-wrap it. */
static void
usage(FILE *f)
{
#ifdef HAVE_LIBTCOD
    const char *tcod = "built in";
#else
    const char *tcod = "not built: install libtcod-dev and re-run configure";
#endif
    /* clang-format off */
    fprintf(f,
"Usage: " PROG " [OPTIONS] FILE.scen...\n"
"Time gridcrowd's A* on Moving AI scenario files and check every path\n"
"length against the optimal length the scenario gives.\n"
"\n"
"Each FILE.scen is solved on the map it names, looked up in the scenario's\n"
"directory, with uniform costs, 8-connected moves without corner cutting\n"
"and the octile heuristic, one A* context per map.  One line per file:\n"
"problems, how many lengths are optimal (within 1e-4), mean, median and\n"
"99th percentile microseconds per search, mean cells expanded, expansions\n"
"per second (millions), the context's bytes per cell and the algorithm.\n"
"With --algo jps, expanded counts jump points.\n"
"\n"
"Options:\n"
"  -m, --map FILE       solve every scenario on FILE (default: the map each\n"
"                       scenario names, beside it)\n"
"  -r, --repeat N       run each file N times and report the median of the\n"
"                       per-run figures (default 1)\n"
"  -n, --limit N        use only the first N problems of each file\n"
"                       (default: all)\n"
"  -c, --clock CLOCK    time searches by the 'wall' clock (default) or by\n"
"                       this thread's 'cpu' time, which leaves out the time\n"
"                       other processes take on a busy machine\n"
"  -p, --peer NAME      also solve every problem with NAME's A* and compare\n"
"                       times (ratio: ours / its); only 'libtcod' (%s)\n"
"  -j, --json           one JSON object per file and line instead of the\n"
"                       table\n"
"  -d, --diag RULE      diagonal rule: no-corner-cut (default), never,\n"
"                       one-free, always\n"
"  -H, --heuristic H    octile (default), manhattan, euclidean, chebyshev,\n"
"                       zero\n"
"  -a, --algo ALGO      astar (default), jps (jump point search, fails on\n"
"                       settings it does not apply to) or auto (jps where\n"
"                       it applies); the table's algo column says which ran\n"
"  -h, --help           show this help and exit\n"
"  -V, --version        show the version and exit\n"
"\n"
"Lengths are judged against the scenario's only under the Moving AI rules\n"
"(--diag no-corner-cut) with an admissible heuristic (any but manhattan).\n"
"With other settings they are reported (len/opt: total length over total\n"
"optimal length) and never fail the run.  The peer's lengths are reported\n"
"(peer_optimal) but never change the exit code.  Progress is shown on\n"
"stderr when it is a terminal.\n"
"\n"
"Exit codes:\n"
"  0  every length optimal\n"
"  1  some length wrong (the first few are listed on stderr)\n"
"  2  usage error, or an unreadable or malformed scenario or map\n"
"  3  out of memory\n",
            tcod);
    /* clang-format on */
}

/* The search's options: --algo, --diag, --heuristic.  Returns -1 when `c`
 * is not one of them or was parsed, else the exit code. */
static int
set_search_option(struct options *o, int c, const char *arg)
{
    switch (c) {
    case 'a': {
        int a = gc_algo_parse(arg);
        if (a < 0)
            return prog_usage(EXIT_USAGE,
                              "--algo %s: unknown algorithm (astar, jps, "
                              "auto)",
                              arg);
        o->search.algo = (gc_algo)a;
        break;
    }
    case 'd': {
        int r = gc_diag_rule_parse(arg);
        if (r < 0)
            return prog_usage(EXIT_USAGE,
                              "--diag %s: unknown rule (no-corner-cut, "
                              "never, one-free, always)",
                              arg);
        o->search.diag = (gc_diag_rule)r;
        break;
    }
    case 'H': {
        int h = gc_heuristic_parse(arg);
        if (h < 0)
            return prog_usage(EXIT_USAGE,
                              "--heuristic %s: unknown heuristic "
                              "(octile, manhattan, euclidean, "
                              "chebyshev, zero)",
                              arg);
        o->search.heuristic = (gc_heuristic)h;
        break;
    }
    }
    return -1;
}

/* One option with its argument, but --help, --version and errors of
 * getopt's own.  Returns -1 when it was parsed, else the exit code. */
static int
set_option(struct options *o, int c, const char *arg)
{
    double v;
    switch (c) {
    case 'm':
        o->map = arg;
        break;
    case 'r':
        if (!prog_number("--repeat", arg, 1, 1000000, true, &v))
            return EXIT_USAGE;
        o->repeat = (unsigned)v;
        break;
    case 'n':
        /* Far past any scenario file: the limit only has to be exact. */
        if (!prog_number("--limit", arg, 1, 1e15, true, &v))
            return EXIT_USAGE;
        o->limit = (size_t)v;
        break;
    case 'c':
        if (strcmp(arg, "wall") == 0)
            o->clock = CLOCK_MONOTONIC;
        else if (strcmp(arg, "cpu") == 0)
            o->clock = CLOCK_THREAD_CPUTIME_ID;
        else
            return prog_usage(EXIT_USAGE,
                              "--clock %s: unknown clock (wall, cpu)", arg);
        break;
    case 'p':
        if (strcmp(arg, "libtcod") != 0)
            return prog_usage(EXIT_USAGE,
                              "--peer %s: unknown peer (known: libtcod)", arg);
#ifndef HAVE_LIBTCOD
        return prog_fail(EXIT_USAGE, "--peer libtcod",
                         "not built with libtcod (install libtcod-dev and "
                         "re-run configure)");
#endif
        o->peer = true;
        break;
    case 'j':
        o->json = true;
        break;
    default:
        return set_search_option(o, c, arg);
    }
    return -1;
}

/* Parse the command line into o; returns -1 to go on, else the exit code
 * (EXIT_OPTIMAL after --help and --version). */
static int
parse_options(struct options *o, int argc, char **argv)
{
    static const struct option longopts[] = {
        {"map", required_argument, NULL, 'm'},
        {"repeat", required_argument, NULL, 'r'},
        {"limit", required_argument, NULL, 'n'},
        {"clock", required_argument, NULL, 'c'},
        {"peer", required_argument, NULL, 'p'},
        {"json", no_argument, NULL, 'j'},
        {"diag", required_argument, NULL, 'd'},
        {"heuristic", required_argument, NULL, 'H'},
        {"algo", required_argument, NULL, 'a'},
        {"help", no_argument, NULL, 'h'},
        {"version", no_argument, NULL, 'V'},
        {NULL, 0, NULL, 0},
    };
    opterr = 0;
    int c, code;
    while ((c = getopt_long(argc, argv, ":m:r:n:c:p:jd:H:a:hV", longopts,
                            NULL)) != -1) {
        switch (c) {
        case 'h':
            usage(stdout);
            return EXIT_OPTIMAL;
        case 'V':
            printf(PROG " (" PACKAGE_NAME ") %s\n"
                        "libtcod peer: %s\n",
                   gc_version(),
#ifdef HAVE_LIBTCOD
                   "yes"
#else
                   "no"
#endif
            );
            return EXIT_OPTIMAL;
        case ':':
        case '?':
            return prog_bad_option(EXIT_USAGE, c, argv, longopts);
        default:
            if ((code = set_option(o, c, optarg)) >= 0)
                return code;
        }
    }
    if (optind >= argc)
        return prog_usage(EXIT_USAGE, "%s", "no scenario file given");

    /* Jump point search covers the Moving AI rule with octile only. */
    if (o->search.algo == GC_ALGO_JPS &&
        (o->search.diag != GC_DIAG_NO_CORNER_CUT ||
         (o->search.heuristic != GC_HEUR_DEFAULT &&
          o->search.heuristic != GC_HEUR_OCTILE)))
        return prog_usage(EXIT_USAGE,
                          "--algo jps: invalid with --diag %s --heuristic "
                          "%s (jump point search needs no-corner-cut and "
                          "octile)",
                          gc_diag_rule_name(o->search.diag),
                          heuristic_name(&o->search));
    return -1;
}

int
main(int argc, char **argv)
{
    struct options o;
    prog_init(PROG);
    memset(&o, 0, sizeof(o));
    o.repeat = 1;
    o.clock = CLOCK_MONOTONIC;
    gc_astar_opts_init(&o.search);
    /* Plain A* unless asked: the comparison with libtcod's A* is A*'s. */
    o.search.algo = GC_ALGO_ASTAR;
    int code = parse_options(&o, argc, argv);
    if (code >= 0)
        return code;

    /* The scenario lengths are optimal lengths under the Moving AI rule;
     * any admissible heuristic must reproduce them, Manhattan need not. */
    o.checked = o.search.diag == GC_DIAG_NO_CORNER_CUT &&
                o.search.heuristic != GC_HEUR_MANHATTAN;
    o.progress = isatty(STDERR_FILENO);
    if (!o.checked)
        prog_msg("note: --diag %s --heuristic %s: lengths are reported, not "
                 "checked",
                 gc_diag_rule_name(o.search.diag), heuristic_name(&o.search));

    int file_width = 4;
    for (int i = optind; i < argc; i++)
        if ((int)strlen(argv[i]) > file_width)
            file_width = (int)strlen(argv[i]);

    struct mapctx m;
    memset(&m, 0, sizeof(m));
    code = EXIT_OPTIMAL;
    for (int i = optind; i < argc; i++) {
        int rc = bench_file(argv[i], &o, file_width, &m);
        if (rc == EXIT_WRONG)
            code = EXIT_WRONG;
        else if (rc != EXIT_OPTIMAL) {
            code = rc;
            break;
        }
    }
    mapctx_free(&m);
    return code;
}
