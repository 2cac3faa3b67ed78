/*
 * options-parse.c: gridcrowdd's option values read from strings: whole
 * numbers and finite numbers, whole strings only and ranges checked, and
 * the options that need a parser of their own (--goals, --edit-group,
 * --cost, --shm-mode, --diag, --avoid), which options.c's table names.
 * Each prints its own one-line message (prog.h) and returns false on a
 * bad value.
 */
#include "config.h"

#include <gridcrowd/astar.h>
#include <gridcrowd/grid.h>

#include <errno.h>
#include <grp.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "options_int.h"

/* ---- number parsing: whole strings only, ranges checked ------------------ */

bool
opt_parse_u64(const char *opt, const char *s, uint64_t min, uint64_t max,
              uint64_t *out)
{
    unsigned long long v;
    if (!prog_count(s, max, &v) || v < min) {
        prog_msg("%s: expected a whole number from %llu to %llu, got '%s'", opt,
                 (unsigned long long)min, (unsigned long long)max, s);
        return false;
    }
    *out = v;
    return true;
}

bool
opt_parse_num(const char *opt, const char *s, double min, double max,
              double *out)
{
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (!prog_decimal(s) || *end != '\0' || errno == ERANGE || !isfinite(v) ||
        v < min || v > max) {
        prog_msg("%s: expected a number from %g to %g, got '%s'", opt, min, max,
                 s);
        return false;
    }
    *out = v;
    return true;
}

/* ---- the options that need their own parser ------------------------------ */

bool
opt_parse_goals(options *o, const char *s)
{
    if (strcmp(s, "wander") == 0) {
        o->sim.goals = GC_GOALS_WANDER;
        return true;
    }
    if (strncmp(s, "point:", 6) == 0) {
        long x, y;
        char tail;
        if (sscanf(s + 6, "%ld,%ld%c", &x, &y, &tail) != 2 || x < 0 || y < 0 ||
            x > INT32_MAX || y > INT32_MAX) {
            prog_msg("--goals: expected point:X,Y with whole numbers, got '%s'",
                     s);
            return false;
        }
        o->sim.goals = GC_GOALS_POINT;
        o->sim.point = (gc_cell){(int32_t)x, (int32_t)y};
        return true;
    }
    if (strncmp(s, "scen:", 5) == 0 && s[5] != '\0') {
        o->sim.goals = GC_GOALS_SCEN;
        o->scen = s + 5;
        return true;
    }
    prog_msg("--goals: expected wander, point:X,Y or scen:FILE, got '%s'", s);
    return false;
}

/* --edit-group: a group name, or a number (a gid, whether or not the
 * group database names it). */
bool
opt_parse_group(options *o, const char *s)
{
    o->edit_group = s;
    if (*s == '\0') {
        prog_msg("--edit-group: expected a group name or gid, got ''");
        return false;
    }
    if (strspn(s, "0123456789") == strlen(s)) {
        uint64_t g;
        if (!opt_parse_u64("--edit-group", s, 0, (gid_t)-1 - 1, &g))
            return false;
        o->edit_gid = (gid_t)g;
        return true;
    }
    errno = 0;
    struct group *gr = getgrnam(s);
    if (gr == NULL) {
        if (errno != 0 && errno != ENOENT && errno != ESRCH && errno != EBADF &&
            errno != EPERM)
            prog_msg("--edit-group: looking up group '%s': %s", s,
                     strerror(errno));
        else
            prog_msg("--edit-group: no group named '%s'", s);
        return false;
    }
    o->edit_gid = gr->gr_gid;
    return true;
}

bool
opt_parse_cost(options *o, const char *s)
{
    const char *eq = strchr(s, '=');
    char type[32];
    if (eq == NULL || (size_t)(eq - s) >= sizeof type) {
        prog_msg("--cost: expected TYPE=VALUE, got '%s'", s);
        return false;
    }
    memcpy(type, s, (size_t)(eq - s));
    type[eq - s] = '\0';
    int t = gc_cell_type_parse(type);
    if (t < 0 || t == GC_CELL_OBSTACLE) {
        prog_msg("--cost: TYPE must be walkable, high or low, got '%s'", type);
        return false;
    }
    double v;
    if (!opt_parse_num("--cost", eq + 1, 1e-6, 1e6, &v))
        return false;
    o->costs[t] = (float)v;
    o->cost_set[t] = true;
    return true;
}

bool
opt_parse_shm_mode(options *o, const char *s)
{
    char *end;
    errno = 0;
    unsigned long m = strtoul(s, &end, 8);
    if (*s == '\0' || *end != '\0' || errno || m > 0777 || (m & 0600) != 0600) {
        prog_msg(
            "--shm-mode: expected an octal mode from 0600 to 0777 that keeps "
            "owner read and write, got '%s'",
            s);
        return false;
    }
    o->shm_mode = (unsigned)m;
    return true;
}

bool
opt_parse_diag(options *o, const char *s)
{
    int r = gc_diag_rule_parse(s);
    if (r < 0) {
        prog_msg(
            "--diag: expected no-corner-cut, never, one-free or always, got "
            "'%s'",
            s);
        return false;
    }
    o->sim.diag = (gc_diag_rule)r;
    return true;
}

bool
opt_parse_avoid(options *o, const char *s)
{
    int a = gc_avoid_parse(s);
    if (a < 0) {
        prog_msg("--avoid: expected orca, orca-adaptive or none, got '%s'", s);
        return false;
    }
    o->sim.avoid = (gc_avoid)a;
    return true;
}
