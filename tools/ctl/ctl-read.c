/*
 * ctl-read.c: gridcrowd-ctl's commands that read the world (status, agents,
 * cells) and clean, which removes what a dead daemon left.  They attach
 * read-only and read through the library's torn-read-safe copies; they
 * never write the world.  JSON strings go through gc_json_escape, so the
 * output is valid JSON whatever bytes a name holds.
 */
#include "config.h"

#include <gridcrowd/agent.h>
#include <gridcrowd/mapio.h>
#include <gridcrowd/util.h>
#include <gridcrowd/world.h>

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ctl.h"

/* A float as JSON: null when not finite. */
static void
json_num(FILE *f, double v)
{
    if (isfinite(v))
        fprintf(f, "%.9g", v);
    else
        fputs("null", f);
}

/* A float as JSON in the fewest digits that read back as the same float
 * (a radius 0.3, not 0.300000012); null when not finite. */
static void
json_float(FILE *f, float v)
{
    char t[GC_FLOAT_TEXT];
    fputs(isfinite(v) ? gc_float_text(t, v) : "null", f);
}

/* `, "KEY": V` on stdout, V as json_float writes it. */
static void
json_float_field(const char *key, float v)
{
    printf(", \"%s\": ", key);
    json_float(stdout, v);
}

int
cmd_status(const char *cmd, int n, char **args, cmd_opts *o)
{
    gc_world *w;
    int rc = attach(&w, false, cmd);
    if (rc != EX_OK)
        return rc;
    gc_world_stats st;
    int r = gc_world_read_stats(w, &st);
    size_t cap = gc_world_agent_capacity(w), count = 0;
    gc_world_agent *ag = calloc(cap ? cap : 1, sizeof *ag);
    if (ag == NULL) {
        gc_world_close(w);
        return prog_fail(EX_FAILED, cmd, "out of memory");
    }
    if (r == GC_OK)
        r = gc_world_read_agents(w, ag, cap, &count, NULL);
    if (r != GC_OK) {
        free(ag);
        rc = prog_fail(r == GC_EBUSY ? EX_TIMEOUT : EX_REFUSED, cmd,
                       "reading %s: %s", gc_world_name(w), read_why(r));
        gc_world_close(w);
        return rc;
    }
    uint64_t by_state[GC_AGENT_NSTATES + 1] = {0};
    for (size_t i = 0; i < count; i++)
        by_state[ag[i].state < GC_AGENT_NSTATES ? ag[i].state
                                                : GC_AGENT_NSTATES]++;
    free(ag);

    uint64_t acc, rej, pend;
    gc_world_edit_counts(w, &acc, &rej, &pend);
    bool alive = gc_world_owner_alive(w);
    long pid = (long)gc_world_pid(w);
    const char *state = gc_world_state_name(gc_world_state(w));
    if (o->json) {
        printf("{\"name\": ");
        gc_json_escape(stdout, gc_world_name(w));
        printf(", \"pid\": %ld, \"state\": \"%s\", \"alive\": %s, "
               "\"width\": %d, \"height\": %d, \"cell_size\": ",
               (long)gc_world_pid(w), state, alive ? "true" : "false",
               (int)gc_world_width(w), (int)gc_world_height(w));
        json_float(stdout, gc_world_cell_size(w));
        printf(", \"tick\": %" PRIu64 ", \"ticks_per_s\": ", gc_world_tick(w));
        json_num(stdout, st.ticks_per_s);
        printf(", \"generation\": %" PRIu64 ", \"agents\": {",
               gc_world_generation(w));
        for (int s = 0; s < GC_AGENT_NSTATES; s++)
            printf("\"%s\": %" PRIu64 ", ", gc_agent_state_name(s),
                   by_state[s]);
        if (by_state[GC_AGENT_NSTATES] > 0)
            printf("\"unknown\": %" PRIu64 ", ", by_state[GC_AGENT_NSTATES]);
        printf("\"total\": %zu}, \"edits_accepted\": %" PRIu64
               ", \"edits_rejected\": %" PRIu64 ", \"edits_pending\": %" PRIu64
               ", \"edits_applied\": %" PRIu64 "}\n",
               count, acc, rej, pend, gc_world_edits_applied(w));
    } else {
        printf("world:      %s\n", gc_world_name(w));
        if (alive)
            printf("daemon:     pid %ld, %s\n", (long)gc_world_pid(w), state);
        else /* (killed: its world still says what it last was) */
            printf("daemon:     pid %ld, not running (its world was left %s)\n",
                   (long)gc_world_pid(w), state);
        printf("map:        %dx%d cells, cell size %g\n",
               (int)gc_world_width(w), (int)gc_world_height(w),
               (double)gc_world_cell_size(w));
        printf("tick:       %" PRIu64 " (%.1f ticks/s)\n", gc_world_tick(w),
               st.ticks_per_s);
        printf("agents:     %zu", count);
        const char *sep = " (";
        for (int s = 0; s < GC_AGENT_NSTATES; s++)
            if (by_state[s] > 0) {
                printf("%s%s %" PRIu64, sep, gc_agent_state_name(s),
                       by_state[s]);
                sep = ", ";
            }
        printf("%s\n", sep[0] == ',' ? ")" : "");
        printf("generation: %" PRIu64 "\n", gc_world_generation(w));
        printf("edits:      %" PRIu64 " accepted, %" PRIu64
               " rejected, %" PRIu64 " pending\n",
               acc, rej, pend);
    }
    gc_world_close(w);
    if (fflush(stdout) != 0)
        return prog_fail(EX_FAILED, cmd, "writing: %s", strerror(errno));
    if (!alive)
        return prog_fail(EX_NODAEMON, cmd, "no daemon: pid %ld is not running",
                         pid);
    return EX_OK;
}

int
cmd_agents(const char *cmd, int n, char **args, cmd_opts *o)
{
    gc_world *w;
    int rc = attach(&w, false, cmd);
    if (rc != EX_OK)
        return rc;
    size_t cap = gc_world_agent_capacity(w), count = 0;
    gc_world_agent *a = calloc(cap ? cap : 1, sizeof *a);
    uint64_t tick = 0; /* the tick the snapshot was taken at */
    int r = a == NULL ? GC_ENOMEM
                      : gc_world_read_agents_at(w, a, cap, &count, NULL, &tick);
    if (r != GC_OK) {
        free(a);
        rc = prog_fail(r == GC_EBUSY    ? EX_TIMEOUT
                       : r == GC_ENOMEM ? EX_FAILED
                                        : EX_REFUSED,
                       cmd, "reading the agents of %s: %s", gc_world_name(w),
                       read_why(r));
        gc_world_close(w);
        return rc;
    }
    if (o->json)
        putchar('[');
    else if (o->csv)
        puts("tick,id,x,y,heading,state,goal_x,goal_y,speed,radius,vx,vy");
    else
        printf("%6s %10s %10s %8s %-11s %6s %6s\n", "id", "x", "y", "heading",
               "state", "goal_x", "goal_y");
    for (size_t i = 0; i < count; i++) {
        const gc_world_agent *g = &a[i];
        const char *state = gc_agent_state_name(g->state);
        if (o->json) {
            printf("%s{\"id\": %" PRIu32, i ? ", " : "", g->id);
            json_float_field("x", g->x);
            json_float_field("y", g->y);
            json_float_field("heading", g->heading);
            /* The handle spawn printed: slot (id) and salt. */
            printf(", \"state\": \"%s\", \"goal_x\": %" PRId32
                   ", \"goal_y\": %" PRId32 ", \"salt\": %" PRIu32
                   ", \"handle\": %" PRIu32 ", \"group\": %" PRIu32,
                   state, g->goal_x, g->goal_y, g->salt,
                   (g->salt << GC_AGENT_INDEX_BITS) | g->id, g->group);
            /* The body (0 for path followers, --avoid none) and how it
             * moves: its speed while it walks, the last tick's velocity. */
            json_float_field("speed", g->speed);
            json_float_field("radius", g->radius);
            json_float_field("vx", g->vx);
            json_float_field("vy", g->vy);
            putchar('}');
        } else if (o->csv) {
            char t[7][GC_FLOAT_TEXT];
            printf("%" PRIu64 ",%" PRIu32 ",%s,%s,%s,%s,%" PRId32 ",%" PRId32
                   ",%s,%s,%s,%s\n",
                   tick, g->id, gc_float_text(t[0], g->x),
                   gc_float_text(t[1], g->y), gc_float_text(t[2], g->heading),
                   state, g->goal_x, g->goal_y, gc_float_text(t[3], g->speed),
                   gc_float_text(t[4], g->radius), gc_float_text(t[5], g->vx),
                   gc_float_text(t[6], g->vy));
        } else {
            printf("%6" PRIu32 " %10.3f %10.3f %8.3f %-11s %6" PRId32
                   " %6" PRId32 "\n",
                   g->id, (double)g->x, (double)g->y, (double)g->heading, state,
                   g->goal_x, g->goal_y);
        }
    }
    if (o->json)
        puts("]");
    free(a);
    gc_world_close(w);
    if (fflush(stdout) != 0)
        return prog_fail(EX_FAILED, cmd, "writing: %s", strerror(errno));
    return EX_OK;
}

int
cmd_cells(const char *cmd, int n, char **args, cmd_opts *o)
{
    gc_world *w;
    int rc = attach(&w, false, cmd);
    if (rc != EX_OK)
        return rc;
    const int32_t W = gc_world_width(w), H = gc_world_height(w);
    uint8_t *buf = malloc((size_t)W * (size_t)H);
    gc_grid *g = NULL;
    char *text = NULL;
    size_t len = 0;
    int r = buf == NULL ? GC_ENOMEM : gc_world_read_cells(w, buf, NULL);
    if (r == GC_OK)
        r = gc_grid_wrap(&g, W, H, buf);
    if (r == GC_OK)
        r = gc_map_format(g, &text, &len);
    if (r != GC_OK)
        rc = prog_fail(r == GC_EBUSY    ? EX_TIMEOUT
                       : r == GC_ENOMEM ? EX_FAILED
                                        : EX_REFUSED,
                       cmd, "reading the cells of %s: %s", gc_world_name(w),
                       read_why(r));
    else if (fwrite(text, 1, len, stdout) != len || fflush(stdout) != 0)
        rc = prog_fail(EX_FAILED, cmd, "writing: %s", strerror(errno));
    free(text);
    gc_grid_free(g);
    free(buf);
    gc_world_close(w);
    return rc;
}

/* Remove the objects of a daemon that died without removing them (kill -9,
 * a crash): never a live daemon's. */
int
cmd_clean(const char *cmd, int n, char **args, cmd_opts *o)
{
    (void)n, (void)args, (void)o;
    gc_world_takeover rm;
    gc_error err;
    int r = gc_world_clean(shm_name, &rm, &err);
    switch (r) {
    case GC_OK:
        break;
    case GC_ENOENT:
        return prog_fail(EX_NODAEMON, cmd, "%s", err.msg);
    case GC_EBUSY:
    case GC_EEXIST:
    case GC_EPERM:
        return prog_fail(EX_REFUSED, cmd, "%s", err.msg);
    case GC_EINVAL:
        return prog_fail(EX_USAGE, cmd, "%s", err.msg);
    default:
        return prog_fail(EX_FAILED, cmd, "%s", err.msg);
    }
    pid_t pid = rm.world_pid > 0 ? rm.world_pid : rm.edits_pid;
    char name[GC_WORLD_NAME_MAX + 2];
    const char *base = shm_name ? shm_name : GC_WORLD_DEFAULT_NAME;
    snprintf(name, sizeof name, "/%s", base[0] == '/' ? base + 1 : base);
    printf("removed%s%s%s%s%s", rm.world ? " " : "", rm.world ? name : "",
           rm.edits ? " " : "", rm.edits ? name : "",
           rm.edits ? GC_QUEUE_SUFFIX : "");
    if (pid > 0)
        printf(", left by process %ld", (long)pid);
    putchar('\n');
    return fflush(stdout) == 0
               ? EX_OK
               : prog_fail(EX_FAILED, cmd, "%s", strerror(errno));
}
