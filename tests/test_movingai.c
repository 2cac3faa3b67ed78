/*
 * test_movingai.c: every problem of every Moving AI scenario file in
 * $GC_SHARED_DIR/benchmarks/movingai solved at its optimal length.
 *
 * The lengths assume uniform costs, 8-connected moves without corner
 * cutting and octile distances; a correct optimal search reproduces each
 * within 1e-4 (the files give eight decimals).  One context per map serves
 * all of that map's problems; afterwards the context must hold at most 16
 * bytes a cell.  A second pass with navigation data and smoothing checks
 * that the component check never refuses a solvable problem and that the
 * smoothed paths cost no more.  Every problem is also solved by jump point
 * search, forced (GC_ALGO_JPS) and as AUTO chooses it, at the same optimal
 * length, along a path of legal steps from start to goal.  When the benchmark
 * directory is absent the test says so and skips; when it is there, it
 * must hold scenarios.  GC_TEST_QUICK=1 solves every tenth problem.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "quick.h"

#include <gridcrowd/astar.h>
#include <gridcrowd/mapio.h>

#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int
cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Sorted names of the .scen files in dir; NULL when dir does not exist.
 * A directory that exists but cannot be read fails the test. */
static char **
scen_files(const char *dir, size_t *n)
{
    DIR *d = opendir(dir);
    if (d == NULL) {
        if (errno != ENOENT)
            fail_msg("%s: %s", dir, strerror(errno));
        return NULL;
    }
    size_t len = 0, cap = 16;
    char **names = malloc(cap * sizeof *names);
    assert_non_null(names);
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        size_t l = strlen(e->d_name);
        if (l < 5 || strcmp(e->d_name + l - 5, ".scen") != 0)
            continue;
        if (len == cap) {
            cap *= 2;
            names = realloc(names, cap * sizeof *names);
            assert_non_null(names);
        }
        names[len] = strdup(e->d_name);
        assert_non_null(names[len]);
        len++;
    }
    closedir(d);
    qsort(names, len, sizeof *names, cmp_str);
    *n = len;
    return names;
}

static void
solve_file(const char *dir, const char *name, size_t *problems, double *worst)
{
    char scen_path[4096], map_path[4096];
    int w = snprintf(scen_path, sizeof scen_path, "%s/%s", dir, name);
    assert_true(w > 0 && (size_t)w < sizeof scen_path);
    gc_error err;
    gc_scen sc;
    int rc = gc_scen_load(&sc, scen_path, NULL, &err);
    if (rc != GC_OK) {
        print_error("%s\n", err.msg);
        fail();
    }
    assert_true(sc.len > 0);
    assert_int_equal(gc_scen_map_path(scen_path, sc.entries[0].map, map_path,
                                      sizeof map_path),
                     GC_OK);
    gc_grid *g;
    rc = gc_map_load(&g, map_path, &err);
    if (rc != GC_OK) {
        print_error("%s\n", err.msg);
        fail();
    }
    gc_grid_set_uniform(g);
    gc_nav *nav;
    assert_int_equal(gc_nav_new(&nav, g), GC_OK);
    gc_astar *a;
    assert_int_equal(gc_astar_new(&a, g->width, g->height), GC_OK);
    gc_path p;
    gc_path_init(&p);
    gc_astar_opts plain, jps, autom, fancy;
    gc_astar_opts_init(&plain);
    plain.diag = GC_DIAG_NO_CORNER_CUT;
    plain.heuristic = GC_HEUR_OCTILE;
    jps = plain;
    jps.nav = nav;
    jps.algo = GC_ALGO_JPS;
    autom = plain;
    autom.nav = nav;
    fancy = autom;
    fancy.smooth = true;
    uint64_t exp_astar = 0, exp_jps = 0;
    size_t step = gc_test_quick() ? 10 : 1;
    for (size_t i = 0; i < sc.len; i += step) {
        const gc_scen_entry *e = &sc.entries[i];
        assert_string_equal(e->map, sc.entries[0].map);
        assert_int_equal(e->map_width, g->width);
        assert_int_equal(e->map_height, g->height);
        gc_astar_stats st;
        rc = gc_astar_find(a, g, e->start, e->goal, &plain, &p, &st);
        double diff = fabs(st.cost - e->optimal);
        if (rc != GC_OK || !(diff <= 1e-4)) {
            print_error("%s:%d: (%d,%d)->(%d,%d): %s, cost %.8f, optimal "
                        "%.8f\n",
                        scen_path, e->line, e->start.x, e->start.y, e->goal.x,
                        e->goal.y, gc_err_name(rc), st.cost, e->optimal);
            fail();
        }
        if (diff > *worst)
            *worst = diff;
        assert_int_equal(st.algo, GC_ALGO_ASTAR); /* no nav: A* */
        exp_astar += st.expanded;
        double raw = st.cost;
        /* Jump point search, forced and chosen by AUTO (uniform costs, the
         * Moving AI rule, nav given), at the same optimal length. */
        for (int k = 0; k < 2; k++) {
            rc = gc_astar_find(a, g, e->start, e->goal, k ? &autom : &jps, &p,
                               &st);
            diff = fabs(st.cost - e->optimal);
            if (rc != GC_OK || !(diff <= 1e-4) || st.algo != GC_ALGO_JPS) {
                print_error("%s:%d: %s: (%d,%d)->(%d,%d): %s (%s), cost "
                            "%.8f, optimal %.8f\n",
                            scen_path, e->line, k ? "auto" : "jps", e->start.x,
                            e->start.y, e->goal.x, e->goal.y, gc_err_name(rc),
                            gc_algo_name(st.algo), st.cost, e->optimal);
                fail();
            }
            if (diff > *worst)
                *worst = diff;
            /* Summed as gc_path_cost sums it: exactly equal. */
            assert_true(gc_path_cost(g, &p, GC_DIAG_NO_CORNER_CUT) == st.cost);
            assert_int_equal(p.cells[0].x, e->start.x);
            assert_int_equal(p.cells[0].y, e->start.y);
            assert_int_equal(p.cells[p.len - 1].x, e->goal.x);
            assert_int_equal(p.cells[p.len - 1].y, e->goal.y);
        }
        exp_jps += st.expanded;
        rc = gc_astar_find(a, g, e->start, e->goal, &fancy, &p, &st);
        assert_int_equal(rc, GC_OK);
        assert_true(st.cost <= raw * (1 + 1e-9));
        (*problems)++;
    }
    size_t cells = (size_t)g->width * (size_t)g->height;
    if (gc_astar_memory(a) > 16 * cells) {
        print_error("%s: context holds %zu bytes for %zu cells\n", map_path,
                    gc_astar_memory(a), cells);
        fail();
    }
    printf("%s: %zu problems, %.2f bytes/cell, nav %.2f bytes/cell, "
           "expanded: A* %llu, JPS %llu\n",
           name, sc.len, (double)gc_astar_memory(a) / (double)cells,
           (double)gc_nav_memory(nav) / (double)cells,
           (unsigned long long)exp_astar, (unsigned long long)exp_jps);
    gc_path_free(&p);
    gc_astar_free(a);
    gc_nav_free(nav);
    gc_grid_free(g);
    gc_scen_free(&sc);
}

static void
test_movingai(void **state)
{
    (void)state;
    const char *shared = getenv("GC_SHARED_DIR");
    char dir[2048];
    int w = snprintf(dir, sizeof dir, "%s/benchmarks/movingai",
                     shared != NULL ? shared : "../shared");
    assert_true(w > 0 && (size_t)w < sizeof dir);
    size_t n = 0;
    char **names = scen_files(dir, &n);
    if (names == NULL) {
        printf("test_movingai: no %s: skipped\n", dir);
        skip();
        return;
    }
    /* The directory is there: a benchmark that compares nothing fails. */
    if (n == 0) {
        free(names);
        fail_msg("no .scen files in %s", dir);
    }
    size_t problems = 0;
    double worst = 0.0;
    for (size_t i = 0; i < n; i++) {
        solve_file(dir, names[i], &problems, &worst);
        free(names[i]);
    }
    free(names);
    printf("test_movingai: %zu problems in %zu files, worst error %.2e\n",
           problems, n, worst);
    assert_true(problems > 0);
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_movingai),
    };
    return cmocka_run_group_tests_name("movingai", tests, NULL, NULL);
}
