/*
 * ctl-path.c: gridcrowd-ctl's path queries, `path` and `next`.
 *
 *   gridcrowd-ctl path X0 Y0 X1 Y1 [--json] [--radius R] [--diag RULE]
 *                      [--heuristic H] [--smooth] [--max-expansions N]
 *                      [--repeat N]
 *   gridcrowd-ctl next X0 Y0 X1 Y1 [same options]
 *
 * Both run the search here, in the tool, on a copy of the live cells
 * (gridcrowd/query.h), never in the daemon's tick: the daemon is only read.
 * The cells are priced with the daemon's published costs and, unless
 * --diag says otherwise, its diagonal rule.
 *
 * Kept apart from gridcrowd-ctl.c (which only dispatches here and lists the
 * commands in --help) so that this file owns its arguments and messages.
 * Its options follow the rest of the tool: an argument is an option only
 * when it starts with "--", so negative coordinates stay positional (and are
 * reported as outside the map).  Exit codes are the tool's: 1 no daemon,
 * 2 bad arguments, 3 world refused, 4 an end outside the map or
 * impassable, 6 other failures, and 7 when no path exists.
 */
#include "config.h"

#include "ctl-path.h"
#include "ctl.h" /* parse_coord */
#include "prog.h"

#include <gridcrowd/query.h>
#include <gridcrowd/util.h>

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The tool's exit codes (gridcrowd-ctl.c documents them in --help). */
enum {
    PX_OK = 0,
    PX_NODAEMON = 1,
    PX_USAGE = 2,
    PX_REFUSED = 3,
    PX_REJECTED = 4, /* an end off the map, impassable, no room for R */
    PX_FAILED = 6,
    PX_NOPATH = 7 /* unreachable, or the expansion cap was hit */
};

typedef struct path_args {
    gc_cell from, to;
    gc_astar_opts opts;
    bool json;
    bool diag_given;
    unsigned long repeat; /* searches to time; 0: just answer */
} path_args;

static int
parse(const char *cmd, int argc, char **argv, path_args *pa)
{
    int32_t c[4];
    int npos = 0;
    bool done = false;
    memset(pa, 0, sizeof *pa);
    gc_astar_opts_init(&pa->opts);
    for (int i = 0; i < argc; i++) {
        const char *a = argv[i];
        if (done || strncmp(a, "--", 2) != 0) {
            if (npos == 4)
                return prog_fail(PX_USAGE, cmd,
                            "expected 4 arguments X0 Y0 X1 Y1 (see --help)");
            if (!parse_coord(a, &c[npos]))
                return prog_fail(PX_USAGE, cmd, "coordinate '%s' is not an integer",
                            a);
            npos++;
            continue;
        }
        if (a[2] == '\0') {
            done = true;
            continue;
        }
        const char *name = a + 2, *eq = strchr(name, '=');
        size_t len = eq ? (size_t)(eq - name) : strlen(name);
#define IS(s) (len == strlen(s) && strncmp(name, s, len) == 0)
        if (IS("json") || IS("smooth")) {
            if (eq != NULL)
                return prog_fail(PX_USAGE, cmd, "option '--%.*s' takes no value",
                            (int)len, name);
            if (IS("json"))
                pa->json = true;
            else
                pa->opts.smooth = true;
            continue;
        }
        if (!IS("radius") && !IS("diag") && !IS("heuristic") &&
            !IS("max-expansions") && !IS("repeat") && !IS("algo"))
            return prog_fail(PX_USAGE, cmd, "unknown option '%s' (see --help)", a);
        const char *v = eq ? eq + 1 : (i + 1 < argc ? argv[++i] : NULL);
        if (v == NULL)
            return prog_fail(PX_USAGE, cmd, "option '--%.*s' needs a value",
                        (int)len, name);
        if (IS("radius")) {
            char *end;
            errno = 0;
            double r = strtod(v, &end);
            if (errno != 0 || end == v || *end != '\0' || !(r >= 0.0) ||
                r > 1e6)
                return prog_fail(PX_USAGE, cmd,
                            "--radius needs a number of world units "
                            ">= 0, got '%s'",
                            v);
            pa->opts.radius = (float)r;
        } else if (IS("diag")) {
            int r = gc_diag_rule_parse(v);
            if (r < 0)
                return prog_fail(PX_USAGE, cmd,
                            "--diag: unknown rule '%s' (no-corner-cut, "
                            "never, one-free, always)",
                            v);
            pa->opts.diag = (gc_diag_rule)r;
            pa->diag_given = true;
        } else if (IS("heuristic")) {
            int h = gc_heuristic_parse(v);
            if (h < 0)
                return prog_fail(PX_USAGE, cmd,
                            "--heuristic: unknown heuristic '%s' (default, "
                            "octile, manhattan, euclidean, chebyshev, zero)",
                            v);
            pa->opts.heuristic = (gc_heuristic)h;
        } else if (IS("algo")) {
            int al = gc_algo_parse(v);
            if (al < 0)
                return prog_fail(PX_USAGE, cmd,
                            "--algo: unknown algorithm '%s' (auto, astar, "
                            "jps)",
                            v);
            pa->opts.algo = (gc_algo)al;
        } else {
            unsigned long long n;
            bool rep = IS("repeat");
            if (!prog_count(v, rep ? 10000000ull : UINT64_MAX, &n) ||
                (rep && n == 0))
                return prog_fail(PX_USAGE, cmd,
                            "--%.*s needs a %s integer, got '%s'", (int)len,
                            name, rep ? "positive" : "non-negative", v);
            if (rep)
                pa->repeat = (unsigned long)n;
            else
                pa->opts.max_expansions = n;
        }
#undef IS
    }
    if (npos != 4)
        return prog_fail(PX_USAGE, cmd,
                    "expected 4 arguments X0 Y0 X1 Y1, got %d (see --help)",
                    npos);
    pa->from = (gc_cell){c[0], c[1]};
    pa->to = (gc_cell){c[2], c[3]};
    return PX_OK;
}

static int
attach_code(int rc)
{
    switch (rc) {
    case GC_ENOENT:
        return PX_NODAEMON;
    case GC_EPERM:
    case GC_EBADMAGIC:
    case GC_EVERSION:
    case GC_ECORRUPT:
        return PX_REFUSED;
    case GC_EINVAL:
        return PX_USAGE;
    }
    return PX_FAILED;
}

static int
query_code(int rc)
{
    switch (rc) {
    case GC_EOUTSIDE:
    case GC_EBLOCKED:
        return PX_REJECTED;
    case GC_EUNREACHABLE:
    case GC_ELIMIT:
        return PX_NOPATH;
    case GC_EINVAL:
        return PX_USAGE;
    }
    return PX_FAILED;
}

static int
cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

/*
 * --repeat N: the same query N times on a query object, timing each whole
 * library call (copy of the cells included) and the search alone, and
 * print the medians and maxima.  The figure for "what does a path query
 * cost", without the process start and attach of a separate run.
 */
static int
run_repeat(const char *cmd, gc_query *q, const path_args *pa, bool next,
           gc_path *path)
{
    uint64_t *call = malloc(pa->repeat * sizeof *call);
    uint64_t *search = malloc(pa->repeat * sizeof *search);
    if (call == NULL || search == NULL) {
        free(call);
        free(search);
        return prog_fail(PX_FAILED, cmd, "out of memory");
    }
    gc_error err;
    gc_astar_stats st;
    for (unsigned long i = 0; i < pa->repeat; i++) {
        gc_cell nx;
        uint64_t t0 = gc_clock_ns();
        int rc = next ? gc_query_next_step(q, pa->from, pa->to, &pa->opts, &nx,
                                           &st, &err)
                      : gc_query_path(q, pa->from, pa->to, &pa->opts, path, &st,
                                      &err);
        call[i] = gc_clock_ns() - t0;
        search[i] = st.ns;
        if (rc != GC_OK) {
            free(call);
            free(search);
            return prog_fail(query_code(rc), cmd, "%s", err.msg);
        }
    }
    qsort(call, pa->repeat, sizeof *call, cmp_u64);
    qsort(search, pa->repeat, sizeof *search, cmp_u64);
    size_t m = pa->repeat / 2, last = pa->repeat - 1;
    if (pa->json)
        printf("{\"repeat\": %lu, \"call_us_median\": %.3f, "
               "\"call_us_max\": %.3f, \"search_us_median\": %.3f, "
               "\"search_us_max\": %.3f, \"expanded\": %" PRIu64 "}\n",
               pa->repeat, call[m] / 1e3, call[last] / 1e3, search[m] / 1e3,
               search[last] / 1e3, st.expanded);
    else
        printf("%lu queries: call median %.1f us, max %.1f us; search "
               "median %.1f us, max %.1f us; %" PRIu64 " expanded\n",
               pa->repeat, call[m] / 1e3, call[last] / 1e3, search[m] / 1e3,
               search[last] / 1e3, st.expanded);
    free(call);
    free(search);
    return PX_OK;
}

static void
print_path(const path_args *pa, const gc_path *p, const gc_astar_stats *st,
           uint64_t gen)
{
    if (pa->json) {
        printf("{\"from\": [%" PRId32 ", %" PRId32 "], \"to\": [%" PRId32
               ", %" PRId32 "], \"cost\": %.9g, \"expanded\": %" PRIu64
               ", \"opened\": %" PRIu64 ", \"algo\": \"%s\", \"diag\": "
               "\"%s\", \"generation\": %" PRIu64 ", \"path\": [",
               pa->from.x, pa->from.y, pa->to.x, pa->to.y, st->cost,
               st->expanded, st->opened, gc_algo_name(st->algo),
               gc_diag_rule_name(pa->opts.diag), gen);
        for (size_t i = 0; i < p->len; i++)
            printf("%s[%" PRId32 ", %" PRId32 "]", i ? ", " : "", p->cells[i].x,
                   p->cells[i].y);
        printf("]}\n");
        return;
    }
    printf("cost %.6f, %zu waypoints, %" PRIu64 " expanded (%s, %s), "
           "generation %" PRIu64 "\n",
           st->cost, p->len, st->expanded, gc_algo_name(st->algo),
           gc_diag_rule_name(pa->opts.diag), gen);
    for (size_t i = 0; i < p->len; i++)
        printf("%" PRId32 " %" PRId32 "\n", p->cells[i].x, p->cells[i].y);
}

int
ctl_path_main(const char *cmd, const char *world_name, int argc, char **argv)
{
    bool next = strcmp(cmd, "next") == 0;
    path_args pa;
    int code = parse(cmd, argc, argv, &pa);
    if (code != PX_OK)
        return code;
    gc_world *w;
    gc_error err;
    int rc = gc_world_attach(&w, world_name, 0, &err);
    if (rc != GC_OK)
        return prog_fail(attach_code(rc), cmd, "%s", err.msg);
    if (!pa.diag_given)
        gc_world_costs(w, NULL, &pa.opts.diag);
    gc_query *q = NULL;
    gc_path path;
    gc_path_init(&path);
    rc = gc_query_new(&q, w, &err);
    if (rc != GC_OK) {
        code = prog_fail(PX_FAILED, cmd, "%s", err.msg);
        goto out;
    }
    if (pa.repeat > 0) {
        code = run_repeat(cmd, q, &pa, next, &path);
        goto out;
    }
    gc_astar_stats st;
    gc_cell nx = {0, 0};
    rc = next ? gc_query_next_step(q, pa.from, pa.to, &pa.opts, &nx, &st, &err)
              : gc_query_path(q, pa.from, pa.to, &pa.opts, &path, &st, &err);
    if (rc != GC_OK) {
        code = prog_fail(query_code(rc), cmd, "%s", err.msg);
        goto out;
    }
    if (!next)
        print_path(&pa, &path, &st, gc_query_generation(q));
    else if (pa.json)
        printf("{\"from\": [%" PRId32 ", %" PRId32 "], \"to\": [%" PRId32
               ", %" PRId32 "], \"next\": [%" PRId32 ", %" PRId32
               "], \"cost\": %.9g, \"expanded\": %" PRIu64
               ", \"generation\": %" PRIu64 "}\n",
               pa.from.x, pa.from.y, pa.to.x, pa.to.y, nx.x, nx.y, st.cost,
               st.expanded, gc_query_generation(q));
    else
        printf("%" PRId32 " %" PRId32 "\n", nx.x, nx.y);
    if (fflush(stdout) != 0)
        code = prog_fail(PX_FAILED, cmd, "writing: %s", strerror(errno));
out:
    gc_path_free(&path);
    gc_query_free(q);
    gc_world_close(w);
    return code;
}
