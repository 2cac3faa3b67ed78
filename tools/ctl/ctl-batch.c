/*
 * ctl-batch.c: gridcrowd-ctl's many edits at once: apply (make the grid
 * equal to a map: the library diffs the two) and batch (read set/rect/line
 * lines from a file).  Everything is read and checked before anything is
 * sent, and it goes as one batch, which the daemon applies in one tick or
 * not at all (batch --each: one by one).
 */
#include "config.h"

#include <gridcrowd/edit-client.h>
#include <gridcrowd/edits.h>
#include <gridcrowd/mapio.h>
#include <gridcrowd/world.h>

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ctl.h"

/* A growable list of edits, for the batch file. */
typedef struct edit_list {
    gc_edit *e;
    size_t n, cap;
} edit_list;

static bool
edit_list_add(edit_list *l, const gc_edit *e)
{
    if (l->n == l->cap) {
        size_t cap = l->cap ? 2 * l->cap : 256;
        gc_edit *ne = realloc(l->e, cap * sizeof *ne);
        if (ne == NULL)
            return false;
        l->e = ne;
        l->cap = cap;
    }
    l->e[l->n++] = *e;
    return true;
}

int
cmd_apply(const char *cmd, int n, char **args, cmd_opts *o)
{
    char what[1100];
    snprintf(what, sizeof what, "%s %s", cmd, args[0]);
    gc_grid *map;
    gc_error err;
    int r = gc_map_load(&map, args[0], &err);
    if (r != GC_OK)
        return prog_fail(r == GC_ENOMEM ? EX_FAILED : EX_USAGE, cmd, "%s",
                         err.msg);
    gc_world *w;
    int rc = attach(&w, true, what);
    if (rc != EX_OK) {
        gc_grid_free(map);
        return rc;
    }
    const int32_t W = gc_world_width(w), H = gc_world_height(w);
    uint8_t *cur = NULL;
    gc_edit *ed = NULL;
    size_t ned = 0;
    uint64_t cells = 0;
    if (map->width != W || map->height != H) {
        rc = prog_fail(EX_REJECTED, what,
                       "map is %" PRId32 "x%" PRId32
                       " but the world %s is %" PRId32 "x%" PRId32,
                       map->width, map->height, gc_world_name(w), W, H);
        goto out;
    }
    cur = malloc((size_t)W * (size_t)H);
    if (cur == NULL) {
        rc = prog_fail(EX_FAILED, what, "out of memory");
        goto out;
    }
    if ((r = gc_world_read_cells(w, cur, NULL)) != GC_OK) {
        rc = prog_fail(EX_TIMEOUT, what, "reading the cells of %s: %s",
                       gc_world_name(w), read_why(r));
        goto out;
    }
    if (gc_edit_diff(cur, map->cells, W, H, &ed, &ned, &cells) != GC_OK) {
        rc = prog_fail(EX_FAILED, what, "out of memory");
        goto out;
    }
    if (ned > GC_EDIT_MAX_BATCH) {
        rc = prog_fail(
            EX_REJECTED, what,
            "the changes need %zu edits, more than one batch may hold "
            "(%u); apply the map in parts",
            ned, GC_EDIT_MAX_BATCH);
        goto out;
    }
    rc = send_all(w, ed, ned, false, o->sync, what);
    if (rc == EX_OK)
        fprintf(o->sync ? stderr : stdout,
                "%s: sent %" PRIu64 " cell%s in %zu edit%s\n", what, cells,
                cells == 1 ? "" : "s", ned, ned == 1 ? "" : "s");
out:
    free(ed);
    free(cur);
    gc_grid_free(map);
    gc_world_close(w);
    return rc;
}

/* Strip leading and trailing blanks in place. */
static char *
trim(char *s)
{
    while (*s == ' ' || *s == '\t')
        s++;
    size_t n = strlen(s);
    while (n > 0 && (s[n - 1] == ' ' || s[n - 1] == '\t' || s[n - 1] == '\n' ||
                     s[n - 1] == '\r'))
        s[--n] = '\0';
    return s;
}

/*
 * Read one line of at most size - 1 bytes into buf, without its newline.
 * Returns 1 for a line, 0 at the end of the input, -1 for a line too long,
 * -2 for a NUL byte (a text file has none: stop there rather than take the
 * rest as a blank line, so that /dev/zero ends at its first byte), -3 for
 * a read error.
 */
static int
read_line(FILE *in, char *buf, size_t size)
{
    size_t len = 0;
    int c;
    while ((c = getc(in)) != EOF && c != '\n') {
        if (c == '\0')
            return -2;
        if (len == size - 1)
            return -1;
        buf[len++] = (char)c;
    }
    buf[len] = '\0';
    if (c == EOF && (ferror(in) || len == 0))
        return ferror(in) ? -3 : 0;
    return 1;
}

int
cmd_batch(const char *cmd, int n, char **args, cmd_opts *o)
{
    const char *path = args[0];
    bool std_in = strcmp(path, "-") == 0;
    const char *label = std_in ? "<stdin>" : path;
    FILE *in = std_in ? stdin : fopen(path, "r");
    if (in == NULL)
        return prog_fail(EX_USAGE, cmd, "%s: %s", path, strerror(errno));

    /* Read and check everything before sending anything. */
    edit_list l = {0};
    char line[1024], what[1100], msg[256];
    int lineno = 0, rc = EX_OK;
    gc_world *w = NULL;
    snprintf(what, sizeof what, "%s %s", cmd, path);
    if ((rc = attach(&w, true, what)) != EX_OK)
        goto out;
    int got;
    while ((got = read_line(in, line, sizeof line)) > 0 || got == -1 ||
           got == -2) {
        lineno++;
        if (got == -1) {
            rc =
                prog_fail(EX_USAGE, cmd, "%s:%d: line too long", label, lineno);
            goto out;
        }
        if (got == -2) {
            rc = prog_fail(EX_USAGE, cmd, "%s:%d: NUL byte: not a text file",
                           label, lineno);
            goto out;
        }
        char *s = trim(line);
        if (*s == '\0' || *s == '#')
            continue;
        char *tok[16] = {NULL};
        int nt = 0;
        for (char *t = strtok(s, " \t"); t != NULL; t = strtok(NULL, " \t")) {
            if (nt == 16) {
                nt++;
                break;
            }
            tok[nt++] = t;
        }
        if (nt == 0)
            continue; /* not reached: s is not blank */
        if (nt <= 16 && is_agent_command(tok[0])) {
            /* An agent command: the same line as on the command line. */
            gc_edit e;
            unsigned f;
            const char *why;
            rc = build_agent_edit(tok[0], nt - 1, tok + 1, &e, &f, msg,
                                  sizeof msg);
            if (rc == EX_OK && gc_edit_check(&e, gc_world_width(w),
                                             gc_world_height(w),
                                             &why) != GC_OK) {
                snprintf(msg, sizeof msg, "refused: %s", why);
                rc = EX_REJECTED;
            }
            if (rc != EX_OK) {
                rc = prog_fail(rc, cmd, "%s:%d: %s", label, lineno, msg);
                goto out;
            }
            if (!edit_list_add(&l, &e)) {
                rc = prog_fail(EX_FAILED, cmd, "out of memory");
                goto out;
            }
            continue;
        }
        if (nt > 8)
            nt = 8;
        uint32_t op = strcmp(tok[0], "set") == 0    ? GC_EDIT_SET
                      : strcmp(tok[0], "rect") == 0 ? GC_EDIT_RECT
                      : strcmp(tok[0], "line") == 0 ? GC_EDIT_LINE
                                                    : 0;
        if (op == 0) {
            rc = prog_fail(EX_USAGE, cmd,
                           "%s:%d: unknown edit '%s' (set, rect, line, or "
                           "an agent command)",
                           label, lineno, tok[0]);
            goto out;
        }
        gc_edit e;
        if ((rc = build_edit(op, nt - 1, tok + 1, &e, msg, sizeof msg)) !=
                EX_OK ||
            (rc = check_edit(&e, gc_world_width(w), gc_world_height(w), msg,
                             sizeof msg)) != EX_OK) {
            rc = prog_fail(rc, cmd, "%s:%d: %s", label, lineno, msg);
            goto out;
        }
        if (!edit_list_add(&l, &e)) {
            rc = prog_fail(EX_FAILED, cmd, "out of memory");
            goto out;
        }
    }
    if (got == -3) {
        rc = prog_fail(EX_USAGE, cmd, "%s: %s", label, strerror(errno));
        goto out;
    }
    if (!o->each && l.n > GC_EDIT_MAX_BATCH) {
        rc = prog_fail(
            EX_REJECTED, cmd,
            "%s: %zu edits are more than one batch may hold (%u); use "
            "--each to send them one by one",
            label, l.n, GC_EDIT_MAX_BATCH);
        goto out;
    }
    rc = send_all(w, l.e, l.n, o->each, o->sync, what);
out:
    free(l.e);
    gc_world_close(w);
    if (!std_in)
        fclose(in);
    return rc;
}
