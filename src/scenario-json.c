/*
 * scenario-json.c: reading the scenario format's values (numbers with
 * their ranges and units, names, points), its shapes and areas, and the
 * geometry section.  scenario-crowd.c reads the rest (exits, groups,
 * sources, events, stop) with the helpers here; docs/scenario.md is the
 * format's page for people, these two files are the same format for the
 * machine.
 *
 * Rules kept everywhere:
 * - Every object is checked against the list of its keys first, so a typo
 *   is an error that names the key and where it is, never a silent default.
 * - Every number is checked against its range and named with its unit;
 *   counts, seeds and cell coordinates must be JSON integers.
 * - Exactly one kind key per shape, area, goal and event, so a shape is
 *   never two things at once.
 * The first error stops the load (scn_fail longjmps): no helper returns on
 * an error, so callers never check.  Messages carry the position of the
 * offending value (scenario.c finds it from the path the helpers push).
 */
#include "config.h"

#include <gridcrowd/mapio.h>
#include <gridcrowd/scenario.h>

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "scenario_int.h"

/* Ranges, inclusive but for lo when lo_open. */
static const scn_range R_COORD = {-1e6, 1e6, false, "m"};
static const scn_range R_SIZE = {0, 1e6, true, "m"};
static const scn_range R_CELL_SIZE = {0.001, 100, false, "m"};
static const scn_range R_SHAPE_RADIUS = {0, 1e6, true, "m"};
static const scn_range R_THICKNESS = {0, 1000, true, "m"};

#define DEFAULT_THICKNESS 0.2

/* ---- values ------------------------------------------------------------- */

const char *
scn_json_kind(const json_t *v)
{
    switch (json_typeof(v)) {
    case JSON_OBJECT:
        return "an object";
    case JSON_ARRAY:
        return "an array";
    case JSON_STRING:
        return "a string";
    case JSON_INTEGER:
    case JSON_REAL:
        return "a number";
    case JSON_TRUE:
    case JSON_FALSE:
        return "a boolean";
    case JSON_NULL:
        return "null";
    }
    return "a value";
}

void
scn_expect_object(scn_ctx *c, const json_t *v)
{
    if (!json_is_object(v))
        scn_fail(c, GC_EPARSE, false, "expected an object, found %s",
                 scn_json_kind(v));
}

void
scn_expect_array(scn_ctx *c, const json_t *v, size_t min)
{
    if (!json_is_array(v))
        scn_fail(c, GC_EPARSE, false, "expected an array, found %s",
                 scn_json_kind(v));
    if (json_array_size(v) < min)
        scn_fail(c, GC_EPARSE, false,
                 "expected at least %zu element%s, found "
                 "%zu",
                 min, min == 1 ? "" : "s", json_array_size(v));
}

/* Refuse any key of object `o` not in the NULL-terminated `allowed`. */
void
scn_check_keys(scn_ctx *c, json_t *o, const char *const *allowed)
{
    const char *key;
    json_t *v;
    json_object_foreach(o, key, v)
    {
        bool ok = false;
        for (size_t i = 0; allowed[i] != NULL && !ok; i++)
            ok = strcmp(key, allowed[i]) == 0;
        if (ok)
            continue;
        char list[256];
        size_t n = 0;
        list[0] = '\0';
        for (size_t i = 0; allowed[i] != NULL && n < sizeof list; i++) {
            int w = snprintf(list + n, sizeof list - n, "%s%s", i ? ", " : "",
                             allowed[i]);
            if (w < 0)
                break;
            n += (size_t)w;
        }
        scn_push_key(c, key);
        scn_fail(c, GC_EPARSE, true, "unknown key '%s' (expected one of: %s)",
                 key, list);
    }
}

/* Exactly one of `keys` present in `o`: its index. */
size_t
scn_one_of(scn_ctx *c, json_t *o, const char *const *keys, const char *what)
{
    size_t found = SIZE_MAX;
    for (size_t i = 0; keys[i] != NULL; i++) {
        if (json_object_get(o, keys[i]) == NULL)
            continue;
        if (found != SIZE_MAX) {
            scn_push_key(c, keys[i]);
            scn_fail(c, GC_EPARSE, true,
                     "'%s' and '%s' both given: %s has "
                     "one",
                     keys[found], keys[i], what);
        }
        found = i;
    }
    if (found == SIZE_MAX) {
        char list[200];
        size_t n = 0;
        list[0] = '\0';
        for (size_t i = 0; keys[i] != NULL && n < sizeof list; i++) {
            int w = snprintf(list + n, sizeof list - n, "%s%s", i ? ", " : "",
                             keys[i]);
            if (w < 0)
                break;
            n += (size_t)w;
        }
        scn_fail(c, GC_EPARSE, false, "%s needs one of: %s", what, list);
    }
    return found;
}

_Noreturn void
scn_missing(scn_ctx *c, const char *key)
{
    scn_fail(c, GC_EPARSE, false, "missing key '%s'", key);
}

/* The current value as a number in r. */
double
scn_num(scn_ctx *c, const json_t *v, scn_range r)
{
    if (!json_is_number(v))
        scn_fail(c, GC_EPARSE, false, "expected a number (%s), found %s",
                 r.unit, scn_json_kind(v));
    double x = json_number_value(v);
    bool ok = (r.lo_open ? x > r.lo : x >= r.lo) && x <= r.hi;
    if (!ok && r.lo_open)
        scn_fail(c, GC_ERANGE, false,
                 "%g %s is out of range (more than %g, "
                 "at most %g %s)",
                 x, r.unit, r.lo, r.hi, r.unit);
    if (!ok)
        scn_fail(c, GC_ERANGE, false, "%g %s is out of range (%g to %g %s)", x,
                 r.unit, r.lo, r.hi, r.unit);
    return x;
}

/* Member `key` of `o` as a number in r, or `def` when absent (required:
 * an error). */
double
scn_get_num(scn_ctx *c, json_t *o, const char *key, scn_range r, double def,
            bool required)
{
    json_t *v = json_object_get(o, key);
    if (v == NULL) {
        if (required)
            scn_missing(c, key);
        return def;
    }
    scn_push_key(c, key);
    double x = scn_num(c, v, r);
    scn_pop(c);
    return x;
}

int64_t
scn_int(scn_ctx *c, const json_t *v, int64_t lo, int64_t hi, const char *unit)
{
    if (!json_is_integer(v))
        scn_fail(c, GC_EPARSE, false, "expected an integer, found %s",
                 json_is_real(v) ? "a fraction" : scn_json_kind(v));
    int64_t x = json_integer_value(v);
    const char *sp = unit[0] != '\0' ? " " : "";
    if (x < lo || x > hi)
        scn_fail(c, GC_ERANGE, false,
                 "%lld%s%s is out of range (%lld to "
                 "%lld%s%s)",
                 (long long)x, sp, unit, (long long)lo, (long long)hi, sp,
                 unit);
    return x;
}

int64_t
scn_get_int(scn_ctx *c, json_t *o, const char *key, int64_t lo, int64_t hi,
            const char *unit, int64_t def)
{
    json_t *v = json_object_get(o, key);
    if (v == NULL)
        return def;
    scn_push_key(c, key);
    int64_t x = scn_int(c, v, lo, hi, unit);
    scn_pop(c);
    return x;
}

const char *
scn_str(scn_ctx *c, const json_t *v)
{
    if (!json_is_string(v))
        scn_fail(c, GC_EPARSE, false, "expected a string, found %s",
                 scn_json_kind(v));
    if (json_string_length(v) == 0)
        scn_fail(c, GC_EPARSE, false, "expected a name, found \"\"");
    if (strlen(json_string_value(v)) != json_string_length(v))
        scn_fail(c, GC_EPARSE, false, "a name may not hold a NUL character");
    return json_string_value(v);
}

/* Member `key` of `o` as a string copied into the arena, or NULL. */
const char *
scn_get_str(scn_ctx *c, json_t *o, const char *key, bool required)
{
    json_t *v = json_object_get(o, key);
    if (v == NULL) {
        if (required)
            scn_missing(c, key);
        return NULL;
    }
    scn_push_key(c, key);
    const char *s = scn_strdup(c, scn_str(c, v));
    scn_pop(c);
    return s;
}

bool
scn_get_bool(scn_ctx *c, json_t *o, const char *key, bool def)
{
    json_t *v = json_object_get(o, key);
    if (v == NULL)
        return def;
    if (!json_is_boolean(v)) {
        scn_push_key(c, key);
        scn_fail(c, GC_EPARSE, false, "expected true or false, found %s",
                 scn_json_kind(v));
    }
    return json_is_true(v);
}

/* [x, y] in world units. */
gc_point
scn_point(scn_ctx *c, const json_t *v)
{
    if (!json_is_array(v) || json_array_size(v) != 2)
        scn_fail(c, GC_EPARSE, false, "expected a point [x, y], found %s",
                 json_is_array(v) ? "another array" : scn_json_kind(v));
    gc_point p;
    scn_push_index(c, 0);
    p.x = scn_num(c, json_array_get(v, 0), R_COORD);
    scn_pop(c);
    scn_push_index(c, 1);
    p.y = scn_num(c, json_array_get(v, 1), R_COORD);
    scn_pop(c);
    return p;
}

/* An array of at least `min` points, in the arena. */
static gc_point *
scn_points(scn_ctx *c, const json_t *v, size_t min, size_t *n)
{
    scn_expect_array(c, v, min);
    *n = json_array_size(v);
    gc_point *p = scn_alloc(c, *n, sizeof *p);
    for (size_t i = 0; i < *n; i++) {
        scn_push_index(c, i);
        p[i] = scn_point(c, json_array_get(v, i));
        scn_pop(c);
    }
    return p;
}

/* ---- shapes and areas --------------------------------------------------- */

static const char *const SHAPE_KINDS[] = {"rect", "polygon", "circle",
                                          "wall", "cells",   NULL};
static const char *const AREA_KINDS[] = {"rect", "polygon", "circle", "cells",
                                         NULL};
static const char *const SHAPE_KEYS[] = {
    "rect",      "polygon", "circle", "radius", "wall",
    "thickness", "cells",   "type",   "id",     NULL};
static const char *const AREA_KEYS[] = {"rect",   "polygon", "circle",
                                        "radius", "cells",   NULL};

/*
 * A shape (area false: the geometry's shapes, paint and add events) or an
 * area (area true: no type, no id, no wall), `def_type` its type when the
 * file gives none.
 */
void
scn_shape(scn_ctx *c, json_t *o, bool area, int def_type, gc_shape *sh)
{
    gc_scenario *s = c->s;
    scn_expect_object(c, o);
    scn_check_keys(c, o, area ? AREA_KEYS : SHAPE_KEYS);
    memset(sh, 0, sizeof *sh);
    sh->line = scn_line_here(c);
    const char *const *kinds = area ? AREA_KINDS : SHAPE_KINDS;
    const char *kind =
        kinds[scn_one_of(c, o, kinds, area ? "an area" : "a shape")];
    json_t *v = json_object_get(o, kind);
    if (json_object_get(o, "radius") != NULL && strcmp(kind, "circle") != 0) {
        scn_push_key(c, "radius");
        scn_fail(c, GC_EPARSE, true, "'radius' belongs to a circle, not a %s",
                 kind);
    }
    if (json_object_get(o, "thickness") != NULL && strcmp(kind, "wall") != 0) {
        scn_push_key(c, "thickness");
        scn_fail(c, GC_EPARSE, true, "'thickness' belongs to a wall, not a %s",
                 kind);
    }
    scn_push_key(c, kind);
    if (strcmp(kind, "rect") == 0) {
        sh->kind = GC_SHAPE_RECT;
        if (!json_is_array(v) || json_array_size(v) != 2)
            scn_fail(c, GC_EPARSE, false,
                     "expected two opposite corners "
                     "[[x0, y0], [x1, y1]], found %s",
                     scn_json_kind(v));
        size_t n;
        gc_point *p = scn_points(c, v, 2, &n);
        sh->a = (gc_point){fmin(p[0].x, p[1].x), fmin(p[0].y, p[1].y)};
        sh->b = (gc_point){fmax(p[0].x, p[1].x), fmax(p[0].y, p[1].y)};
        if (!(sh->b.x > sh->a.x) || !(sh->b.y > sh->a.y))
            scn_fail(c, GC_ERANGE, false,
                     "the rect has no area (its corners "
                     "share an x or a y)");
    } else if (strcmp(kind, "circle") == 0) {
        sh->kind = GC_SHAPE_CIRCLE;
        sh->a = scn_point(c, v);
        scn_pop(c);
        sh->radius = scn_get_num(c, o, "radius", R_SHAPE_RADIUS, 0, true);
        scn_push_key(c, kind);
    } else if (strcmp(kind, "polygon") == 0) {
        sh->kind = GC_SHAPE_POLYGON;
        sh->pts = scn_points(c, v, 3, &sh->npts);
        double a2 = 0; /* twice the signed area */
        for (size_t i = 0; i < sh->npts; i++) {
            gc_point p = sh->pts[i], q = sh->pts[(i + 1) % sh->npts];
            a2 += p.x * q.y - q.x * p.y;
        }
        if (a2 == 0)
            scn_fail(c, GC_ERANGE, false, "the polygon has no area");
    } else if (strcmp(kind, "wall") == 0) {
        sh->kind = GC_SHAPE_WALL;
        sh->pts = scn_points(c, v, 2, &sh->npts);
        for (size_t i = 1; i < sh->npts; i++) {
            if (sh->pts[i].x == sh->pts[i - 1].x &&
                sh->pts[i].y == sh->pts[i - 1].y) {
                scn_push_index(c, i);
                scn_fail(c, GC_ERANGE, false, "repeats the point before it");
            }
        }
        scn_pop(c);
        sh->thickness = scn_get_num(c, o, "thickness", R_THICKNESS,
                                    DEFAULT_THICKNESS, false);
        scn_push_key(c, kind);
    } else {
        sh->kind = GC_SHAPE_CELLS;
        scn_expect_array(c, v, 1);
        sh->ncells = json_array_size(v);
        sh->cells = scn_alloc(c, sh->ncells, sizeof *sh->cells);
        for (size_t i = 0; i < sh->ncells; i++) {
            json_t *e = json_array_get(v, i);
            scn_push_index(c, i);
            if (!json_is_array(e) || json_array_size(e) != 2)
                scn_fail(c, GC_EPARSE, false,
                         "expected a cell [x, y], found "
                         "%s",
                         scn_json_kind(e));
            scn_push_index(c, 0);
            sh->cells[i].x = (int32_t)scn_int(c, json_array_get(e, 0), 0,
                                              s->grid_w - 1, "cells");
            scn_pop(c);
            scn_push_index(c, 1);
            sh->cells[i].y = (int32_t)scn_int(c, json_array_get(e, 1), 0,
                                              s->grid_h - 1, "cells");
            scn_pop(c);
            scn_pop(c);
        }
    }
    scn_pop(c);

    sh->type = -1;
    if (!area) {
        sh->type = def_type;
        json_t *t = json_object_get(o, "type");
        if (t != NULL) {
            scn_push_key(c, "type");
            const char *name = scn_str(c, t);
            int ty = gc_cell_type_parse(name);
            if (ty < 0 || strlen(name) == 1)
                scn_fail(c, GC_EPARSE, false,
                         "unknown cell type '%s' "
                         "(obstacle, high, low, walkable)",
                         name);
            sh->type = ty;
            scn_pop(c);
        }
        sh->id = scn_get_str(c, o, "id", false);
    }
}

/* Member `key` of `o`, an area (required). */
void
scn_area_member(scn_ctx *c, json_t *o, const char *key, gc_shape *sh)
{
    json_t *v = json_object_get(o, key);
    if (v == NULL)
        scn_missing(c, key);
    scn_push_key(c, key);
    scn_shape(c, v, true, -1, sh);
    scn_pop(c);
}

/* ---- geometry ------------------------------------------------------------ */

static const char *const GEOMETRY_KEYS[] = {"map", "size", "cell_size",
                                            "shapes", NULL};

void
scn_check_geometry(scn_ctx *c, json_t *g, const char *dir)
{
    gc_scenario *s = c->s;
    scn_expect_object(c, g);
    scn_check_keys(c, g, GEOMETRY_KEYS);
    s->cell_size = scn_get_num(c, g, "cell_size", R_CELL_SIZE, 1.0, false);
    json_t *map = json_object_get(g, "map");
    json_t *size = json_object_get(g, "size");
    if (map != NULL && size != NULL) {
        scn_push_key(c, "size");
        scn_fail(c, GC_EPARSE, true,
                 "'map' and 'size' both given: the map "
                 "sets the size");
    }
    if (map != NULL) {
        scn_push_key(c, "map");
        const char *name = scn_str(c, map);
        char *full;
        if (name[0] == '/') {
            full = scn_strdup(c, name);
        } else {
            full = scn_alloc(c, strlen(dir) + strlen(name) + 1, 1);
            strcpy(full, dir);
            strcat(full, name);
        }
        s->map_path = full;
        gc_error merr;
        int rc = gc_map_load(&s->map, full, &merr);
        if (rc != GC_OK)
            scn_fail(c, rc, false, "cannot read the map: %s", merr.msg);
        scn_pop(c);
        s->map->cell_size = (float)s->cell_size;
        s->grid_w = s->map->width;
        s->grid_h = s->map->height;
        s->width = s->grid_w * s->cell_size;
        s->height = s->grid_h * s->cell_size;
    } else if (size != NULL) {
        scn_push_key(c, "size");
        gc_point p;
        if (!json_is_array(size) || json_array_size(size) != 2)
            scn_fail(c, GC_EPARSE, false, "expected [width, height], found %s",
                     scn_json_kind(size));
        scn_push_index(c, 0);
        p.x = scn_num(c, json_array_get(size, 0), R_SIZE);
        scn_pop(c);
        scn_push_index(c, 1);
        p.y = scn_num(c, json_array_get(size, 1), R_SIZE);
        scn_pop(c);
        /* A size a rounding error over a whole number of cells is that
         * number of cells. */
        double w = ceil(p.x / s->cell_size - 1e-9);
        double h = ceil(p.y / s->cell_size - 1e-9);
        int rc = gc_grid_check_size((int64_t)w, (int64_t)h);
        if (rc != GC_OK)
            scn_fail(c, rc, false,
                     "%g x %g m at %g m a cell is %.0f x %.0f "
                     "cells, past the grid's limits (%d a side, %zu cells)",
                     p.x, p.y, s->cell_size, w, h, GC_GRID_MAX_SIDE,
                     GC_GRID_MAX_CELLS);
        scn_pop(c);
        s->grid_w = (int32_t)w;
        s->grid_h = (int32_t)h;
        s->width = p.x;
        s->height = p.y;
    } else {
        scn_fail(c, GC_EPARSE, false, "the geometry needs 'map' or 'size'");
    }

    json_t *shapes = json_object_get(g, "shapes");
    if (shapes == NULL)
        return;
    scn_push_key(c, "shapes");
    scn_expect_array(c, shapes, 0);
    s->nshapes = json_array_size(shapes);
    s->shapes = scn_alloc(c, s->nshapes, sizeof *s->shapes);
    for (size_t i = 0; i < s->nshapes; i++) {
        scn_push_index(c, i);
        scn_shape(c, json_array_get(shapes, i), false, GC_CELL_OBSTACLE,
                  &s->shapes[i]);
        const char *id = s->shapes[i].id;
        if (id != NULL) {
            int64_t j = scn_name_get(c, SCN_SHAPE, id);
            if (j >= 0) {
                scn_push_key(c, "id");
                scn_fail(c, GC_EPARSE, false,
                         "shape id '%s' is already used by "
                         "geometry.shapes[%lld]",
                         id, (long long)j);
            }
            scn_name_put(c, SCN_SHAPE, id, (int64_t)i);
        }
        scn_pop(c);
    }
    scn_pop(c);
}
