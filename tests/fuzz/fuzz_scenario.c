/*
 * fuzz_scenario.c: fuzz target for scenario files and their runner.
 *
 * Each input is parsed as a scenario (gc_scenario_parse, from memory: a
 * "map" key names a file and fails cleanly, as it must).  A failure must
 * report one printable line that starts with the file's name and a line
 * and column.  A success is rasterised (gc_scenario_grid) and, when small
 * enough to stay fast (a grid of at most 2^16 cells, at most 2000 agents
 * at the start), run for up to 50 ticks at 10 Hz on a model crowd that
 * walks straight at its goals (scenario_int.h's scn_crowd), with the
 * events' edits checked like queue edits (gc_edit_check) and applied to a
 * live grid.  Invariants after every tick: every agent made is present or
 * has left, once (spawned == present + left; the exits' counts add up to
 * left); the runner never uses a handle it let go; the live grid is the
 * runner's model.
 */
#include "fuzz.h"

#include <gridcrowd/edits.h>
#include <gridcrowd/scenario.h>

#include "../../src/scenario_int.h"

#include <math.h>
#include <string.h>

#define NAME "fuzz.json"

typedef struct fz_agent {
    gc_point pos;
    double speed;
    scn_aim aim;
    int removed;
} fz_agent;

typedef struct fz_crowd {
    fz_agent *a;
    size_t n, cap;
    size_t removed;
    gc_grid *live;
} fz_crowd;

static fz_agent *
fz_get(fz_crowd *c, scn_agent h)
{
    FUZZ_CHECK(h >= 1 && h <= c->n && !c->a[h - 1].removed);
    return &c->a[h - 1];
}

static int
fz_spawn(void *arg, const scn_spawn *sp, const scn_aim *aim, scn_agent *out)
{
    fz_crowd *c = arg;
    FUZZ_CHECK(isfinite(sp->x) && isfinite(sp->y) && sp->speed > 0);
    if (c->n == c->cap) {
        size_t cap = c->cap ? 2 * c->cap : 64;
        fz_agent *p = realloc(c->a, cap * sizeof *p);
        if (p == NULL)
            return GC_ENOMEM;
        c->a = p;
        c->cap = cap;
    }
    c->a[c->n] = (fz_agent){{sp->x, sp->y}, sp->speed, *aim, 0};
    *out = ++c->n;
    return GC_OK;
}

static int
fz_remove(void *arg, scn_agent h)
{
    fz_crowd *c = arg;
    fz_get(c, h)->removed = 1;
    c->removed++;
    return GC_OK;
}

static int
fz_aim(void *arg, scn_agent h, const scn_aim *aim)
{
    fz_get(arg, h)->aim = *aim;
    return GC_OK;
}

static int
fz_body(void *arg, scn_agent h, scn_body *out)
{
    fz_agent *a = fz_get(arg, h);
    out->pos = a->pos;
    out->arrived = a->aim.kind == SCN_AIM_POINT && a->pos.x == a->aim.point.x &&
                   a->pos.y == a->aim.point.y;
    return GC_OK;
}

static void
fz_tick(fz_crowd *c, double dt)
{
    for (size_t i = 0; i < c->n; i++) {
        fz_agent *a = &c->a[i];
        if (a->removed || a->aim.kind != SCN_AIM_POINT)
            continue;
        double dx = a->aim.point.x - a->pos.x, dy = a->aim.point.y - a->pos.y;
        double d = hypot(dx, dy), step = a->speed * dt;
        if (d <= step || !(d > 0))
            a->pos = a->aim.point;
        else {
            a->pos.x += dx / d * step;
            a->pos.y += dy / d * step;
        }
    }
}

static int
fz_edits(void *arg, gc_edit *e, size_t n)
{
    fz_crowd *c = arg;
    FUZZ_CHECK(n > 0);
    for (size_t i = 0; i < n; i++) {
        FUZZ_CHECK(gc_edit_check(&e[i], c->live->width, c->live->height,
                                 NULL) == GC_OK);
        int32_t x1 = e[i].op == GC_EDIT_RECT ? e[i].x1 : e[i].x0;
        for (int32_t x = e[i].x0; x <= x1; x++)
            gc_grid_set(c->live, x, e[i].y0, (int)e[i].type);
    }
    return GC_OK;
}

static void
run(const gc_scenario *sc)
{
    int64_t start = 0;
    for (size_t g = 0; g < sc->ngroups; g++)
        start += sc->groups[g].count;
    if ((int64_t)sc->grid_w * sc->grid_h > 65536 || start > 2000)
        return;
    fz_crowd c;
    memset(&c, 0, sizeof c);
    if (gc_scenario_grid(sc, &c.live, NULL) != GC_OK)
        return;
    scn_crowd crowd = {&c, fz_spawn, fz_remove, fz_aim, fz_body};
    gc_scenario_run_config cfg = {10, sc->seed, fz_edits, &c};
    gc_scenario_run *r = NULL;
    if (scn_run_new_crowd(&r, sc, &crowd, &cfg, NULL) == GC_OK) {
        int rc = gc_scenario_run_start(r, NULL);
        for (int t = 0; t < 50 && rc == GC_OK; t++) {
            rc = gc_scenario_run_before_tick(r, NULL);
            if (rc != GC_OK)
                break;
            fz_tick(&c, 0.1);
            rc = gc_scenario_run_after_tick(r, NULL);
            if (rc != GC_OK)
                break;
            gc_scenario_counts k;
            gc_scenario_run_counts(r, &k);
            FUZZ_CHECK(k.spawned == c.n);
            FUZZ_CHECK(k.spawned == k.present + k.left);
            FUZZ_CHECK(k.left == c.removed);
            uint64_t sum = 0;
            for (size_t e = 0; e < k.nexits; e++)
                sum += k.left_by_exit[e];
            FUZZ_CHECK(sum == k.left);
            FUZZ_CHECK(gc_grid_equal(c.live, scn_run_model(r)));
            if (gc_scenario_run_done(r))
                break;
        }
        FUZZ_CHECK(rc == GC_OK || rc == GC_ERANGE || rc == GC_ENOMEM);
    }
    gc_scenario_run_free(r);
    gc_grid_free(c.live);
    free(c.a);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    gc_scenario *sc = NULL;
    gc_error err;
    memset(&err, 0, sizeof err);
    int rc = gc_scenario_parse(&sc, (const char *)data, size, NAME, &err);
    if (rc != GC_OK) {
        FUZZ_CHECK(sc == NULL);
        FUZZ_CHECK(rc < 0);
        FUZZ_CHECK(err.msg[0] != '\0' &&
                   memchr(err.msg, '\0', sizeof err.msg) != NULL);
        FUZZ_CHECK(strncmp(err.msg, NAME ":", strlen(NAME ":")) == 0 ||
                   rc == GC_ENOMEM);
        return 0;
    }
    FUZZ_CHECK(sc != NULL);
    run(sc);
    gc_scenario_free(sc);
    return 0;
}
