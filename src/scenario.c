/*
 * scenario.c: loading a scenario file: reading it, handing it to jansson,
 * positions for messages, the scenario's memory, and the scenario's grid.
 *
 * jansson parses the text (duplicate keys refused) and reports syntax
 * errors with their line and column.  It keeps no position per value,
 * though, and a semantic error ("groups[1].speed.mean: 40 m/s is out of
 * range") must point at the value.  So the checker (scenario-json.c) keeps
 * the JSON path of the value it is looking at, and on an error
 * scn_locate() walks the original text along that path: skip white space,
 * find the member whose key matches (keys are unique: duplicates were
 * refused), or skip n elements of an array, and so on down.  The walk only
 * ever runs on text jansson has accepted, so it needs to know just enough
 * JSON to skip a value (strings with escapes, nesting); it is no second
 * parser, and it costs nothing unless there is an error.
 *
 * Memory: everything the scenario holds is allocated in its arena, a list
 * of blocks freed together, so that the checker can stop at the first error
 * with a longjmp (scn_fail) and leave nothing behind.
 */
#include "config.h"

#include <gridcrowd/scenario.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "scenario_int.h"

struct gc_scenario_mem_ {
    struct gc_scenario_mem_ *next;
    max_align_t data[];
};

void *
scn_alloc(scn_ctx *c, size_t n, size_t size)
{
    if (n == 0)
        n = 1;
    if (size != 0 && n > (SIZE_MAX - sizeof(struct gc_scenario_mem_)) / size)
        scn_fail(c, GC_ENOMEM, false, "%s", gc_strerror(GC_ENOMEM));
    struct gc_scenario_mem_ *m = calloc(1, sizeof *m + n * size);
    if (m == NULL)
        scn_fail(c, GC_ENOMEM, false, "%s", gc_strerror(GC_ENOMEM));
    m->next = c->s->mem_;
    c->s->mem_ = m;
    return m->data;
}

char *
scn_strdup(scn_ctx *c, const char *s)
{
    size_t n = strlen(s) + 1;
    char *d = scn_alloc(c, n, 1);
    memcpy(d, s, n);
    return d;
}

void
scn_push_key(scn_ctx *c, const char *key)
{
    if (c->depth < SCN_MAX_DEPTH)
        c->path[c->depth] = (scn_step){key, 0};
    c->depth++;
}

void
scn_push_index(scn_ctx *c, size_t i)
{
    if (c->depth < SCN_MAX_DEPTH)
        c->path[c->depth] = (scn_step){NULL, i};
    c->depth++;
}

void
scn_pop(scn_ctx *c)
{
    c->depth--;
}

int64_t
scn_name_get(scn_ctx *c, scn_names kind, const char *name)
{
    json_t *v = c->names[kind] ? json_object_get(c->names[kind], name) : NULL;
    return v != NULL ? json_integer_value(v) : -1;
}

void
scn_name_put(scn_ctx *c, scn_names kind, const char *name, int64_t i)
{
    if (c->names[kind] == NULL && (c->names[kind] = json_object()) == NULL)
        scn_fail(c, GC_ENOMEM, false, "%s", gc_strerror(GC_ENOMEM));
    if (json_object_set_new(c->names[kind], name, json_integer(i)) != 0)
        scn_fail(c, GC_ENOMEM, false, "%s", gc_strerror(GC_ENOMEM));
}

/* ---- positions ---------------------------------------------------------- */

static size_t
skip_ws(const scn_ctx *c, size_t i)
{
    while (i < c->len && (c->text[i] == ' ' || c->text[i] == '\t' ||
                          c->text[i] == '\n' || c->text[i] == '\r'))
        i++;
    return i;
}

/* Past the string that starts at i (on its opening quote). */
static size_t
skip_string(const scn_ctx *c, size_t i)
{
    for (i++; i < c->len; i++) {
        if (c->text[i] == '\\')
            i++;
        else if (c->text[i] == '"')
            return i + 1;
    }
    return c->len;
}

/* Past the value that starts at i. */
static size_t
skip_value(const scn_ctx *c, size_t i)
{
    if (i >= c->len)
        return c->len;
    if (c->text[i] == '"')
        return skip_string(c, i);
    if (c->text[i] == '{' || c->text[i] == '[') {
        int depth = 0;
        while (i < c->len) {
            char ch = c->text[i];
            if (ch == '"') {
                i = skip_string(c, i);
                continue;
            }
            if (ch == '{' || ch == '[')
                depth++;
            else if ((ch == '}' || ch == ']') && --depth == 0)
                return i + 1;
            i++;
        }
        return c->len;
    }
    while (i < c->len && !strchr(",}] \t\r\n", c->text[i]))
        i++;
    return i;
}

/* Does the key string at [i, j) (quotes included) decode to `key`? */
static bool
key_is(const scn_ctx *c, size_t i, size_t j, const char *key)
{
    size_t n = j - i - 2;
    if (memchr(c->text + i + 1, '\\', n) == NULL)
        return strlen(key) == n && memcmp(c->text + i + 1, key, n) == 0;
    /* An escaped key: let jansson decode it. */
    json_t *v = json_loadb(c->text + i, j - i, JSON_DECODE_ANY, NULL);
    bool same = json_is_string(v) && strcmp(json_string_value(v), key) == 0;
    json_decref(v);
    return same;
}

static bool
same_step(const scn_step *a, const scn_step *b)
{
    if ((a->key == NULL) != (b->key == NULL))
        return false;
    return a->key != NULL ? strcmp(a->key, b->key) == 0 : a->index == b->index;
}

/* Past `n` elements of an array, from the start of one of them. */
static size_t
skip_elements(const scn_ctx *c, size_t i, size_t n)
{
    for (size_t k = 0; k < n; k++) {
        i = skip_ws(c, skip_value(c, i));
        if (i >= c->len || c->text[i] != ',')
            return SIZE_MAX;
        i = skip_ws(c, i + 1);
    }
    return i;
}

/*
 * The walk remembers where the last path led (memo_off[d]: where the value
 * after d steps starts), and the next walk resumes from the longest common
 * prefix, skipping forward within an array when only the index grew.  The
 * checker asks for the line of every shape and event in turn, so without
 * the memo a file of n shapes would cost n walks from the top.
 */
size_t
scn_locate(scn_ctx *c, bool at_key)
{
    int depth = c->depth < SCN_MAX_DEPTH ? c->depth : SCN_MAX_DEPTH;
    /* For a key's position the last step is walked afresh. */
    int limit = at_key && depth > 0 ? depth - 1 : depth;
    if (c->memo_depth < 0) {
        c->memo_off[0] = skip_ws(c, 0);
        c->memo_depth = 0;
    }
    int d = 0;
    while (d < limit && d < c->memo_depth &&
           same_step(&c->path[d], &c->memo_path[d]))
        d++;
    size_t i = c->memo_off[d];
    if (d < limit && d < c->memo_depth && c->path[d].key == NULL &&
        c->memo_path[d].key == NULL &&
        c->path[d].index > c->memo_path[d].index) {
        i = skip_elements(c, c->memo_off[d + 1],
                          c->path[d].index - c->memo_path[d].index);
        if (i == SIZE_MAX) {
            c->memo_depth = 0;
            return 0;
        }
        c->memo_path[d] = c->path[d];
        c->memo_off[d + 1] = i;
        d++;
    }
    c->memo_depth = d;
    size_t key_at = i;
    for (; d < depth; d++) {
        const scn_step *st = &c->path[d];
        if (i >= c->len)
            return 0;
        if (st->key != NULL) {
            if (c->text[i] != '{')
                return 0;
            i = skip_ws(c, i + 1);
            for (;;) {
                if (i >= c->len || c->text[i] != '"')
                    return 0;
                size_t ks = i, ke = skip_string(c, i);
                i = skip_ws(c, ke);
                if (i >= c->len || c->text[i] != ':')
                    return 0;
                i = skip_ws(c, i + 1);
                if (key_is(c, ks, ke, st->key)) {
                    key_at = ks;
                    break;
                }
                i = skip_ws(c, skip_value(c, i));
                if (i >= c->len || c->text[i] != ',')
                    return 0;
                i = skip_ws(c, i + 1);
            }
        } else {
            if (c->text[i] != '[')
                return 0;
            i = skip_elements(c, skip_ws(c, i + 1), st->index);
            if (i == SIZE_MAX)
                return 0;
            key_at = i;
        }
        c->memo_path[d] = *st;
        c->memo_off[d + 1] = i;
        c->memo_depth = d + 1;
    }
    return at_key ? key_at : i;
}

void
scn_line_col(scn_ctx *c, size_t off, int *line, int *col)
{
    /* Resume from the last answer when it lies before `off`. */
    size_t from = 0;
    int l = 1, k = 1;
    if (c->lc_line > 0 && c->lc_off <= off) {
        from = c->lc_off;
        l = c->lc_line;
        k = c->lc_col;
    }
    for (size_t i = from; i < off && i < c->len; i++) {
        unsigned char ch = (unsigned char)c->text[i];
        if (ch == '\n') {
            l++;
            k = 1;
        } else if ((ch & 0xC0) != 0x80) { /* not a UTF-8 continuation */
            k++;
        }
    }
    c->lc_off = off < c->len ? off : c->len;
    c->lc_line = l;
    c->lc_col = k;
    *line = l;
    *col = k;
}

int
scn_line_here(scn_ctx *c)
{
    int line, col;
    scn_line_col(c, scn_locate(c, false), &line, &col);
    return line;
}

_Noreturn void
scn_fail(scn_ctx *c, int code, bool at_key, const char *fmt, ...)
{
    char path[256];
    size_t n = 0;
    path[0] = '\0';
    int depth = c->depth < SCN_MAX_DEPTH ? c->depth : SCN_MAX_DEPTH;
    for (int d = 0; d < depth && n < sizeof path; d++) {
        int w;
        if (c->path[d].key != NULL)
            w = snprintf(path + n, sizeof path - n, "%s%s", d ? "." : "",
                         c->path[d].key);
        else
            w = snprintf(path + n, sizeof path - n, "[%zu]", c->path[d].index);
        if (w < 0)
            break;
        n += (size_t)w;
    }
    char what[384];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);

    int line = 0, col = 0;
    if (code != GC_ENOMEM)
        scn_line_col(c, scn_locate(c, at_key), &line, &col);
    if (path[0] != '\0')
        gc_error_set(c->err, code, c->file, line, col, "%s: %s", path, what);
    else
        gc_error_set(c->err, code, c->file, line, col, "%s", what);
    c->code = code;
    longjmp(c->fail, 1);
}

/* ---- loading ------------------------------------------------------------ */

static void
mem_free(struct gc_scenario_mem_ *m)
{
    while (m != NULL) {
        struct gc_scenario_mem_ *next = m->next;
        free(m);
        m = next;
    }
}

void
gc_scenario_free(gc_scenario *s)
{
    if (s == NULL)
        return;
    gc_grid_free(s->map);
    struct gc_scenario_mem_ *m = s->mem_;
    free(s);
    mem_free(m);
}

/* The folder of `path` (with its trailing slash), "" for a bare name. */
static char *
dir_of(const char *path)
{
    const char *slash = strrchr(path, '/');
    size_t n = slash ? (size_t)(slash - path) + 1 : 0;
    char *d = malloc(n + 1);
    if (d != NULL) {
        memcpy(d, path, n);
        d[n] = '\0';
    }
    return d;
}

int
gc_scenario_parse(gc_scenario **out, const char *buf, size_t len,
                  const char *path, gc_error *err)
{
    gc_error_clear(err);
    if (out == NULL || (buf == NULL && len > 0))
        return gc_error_set(err, GC_EINVAL, path, 0, 0, "%s",
                            gc_strerror(GC_EINVAL));
    *out = NULL;
    const char *name = path != NULL ? path : "<memory>";

    json_error_t jerr;
    json_t *root = json_loadb(buf, len, JSON_REJECT_DUPLICATES, &jerr);
    if (root == NULL) {
        int code = json_error_code(&jerr) == json_error_out_of_memory
                       ? GC_ENOMEM
                       : GC_EPARSE;
        return gc_error_set(err, code, name, jerr.line > 0 ? jerr.line : 0,
                            jerr.column > 0 ? jerr.column : 0, "%s", jerr.text);
    }
    gc_scenario *s = calloc(1, sizeof *s);
    char *dir = dir_of(path != NULL ? path : "");
    if (s == NULL || dir == NULL) {
        free(s);
        free(dir);
        json_decref(root);
        return gc_error_set(err, GC_ENOMEM, name, 0, 0, "%s",
                            gc_strerror(GC_ENOMEM));
    }
    /* volatile: read after longjmp. */
    scn_ctx *volatile c = calloc(1, sizeof *c);
    if (c == NULL) {
        free(s);
        free(dir);
        json_decref(root);
        return gc_error_set(err, GC_ENOMEM, name, 0, 0, "%s",
                            gc_strerror(GC_ENOMEM));
    }
    c->file = name;
    c->text = buf;
    c->len = len;
    c->err = err;
    c->s = s;
    c->memo_depth = -1;
    int rc = GC_OK;
    if (setjmp(c->fail) == 0) {
        s->path = scn_strdup(c, name);
        scn_check_root(c, root, dir);
    } else {
        rc = c->code;
    }
    json_decref(root);
    for (size_t k = 0; k < sizeof c->names / sizeof c->names[0]; k++)
        json_decref(c->names[k]);
    free(dir);
    free(c);
    if (rc != GC_OK) {
        gc_scenario_free(s);
        return rc;
    }
    *out = s;
    return GC_OK;
}

int
gc_scenario_load(gc_scenario **out, const char *path, gc_error *err)
{
    gc_error_clear(err);
    if (out == NULL || path == NULL)
        return gc_error_set(err, GC_EINVAL, path, 0, 0, "%s",
                            gc_strerror(GC_EINVAL));
    *out = NULL;
    /* Opened without blocking, so that a FIFO nobody writes is refused
     * (not a regular file) instead of hanging the caller in open(). */
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) {
        int e = errno;
        return gc_error_set(err, gc_err_from_errno(e), path, 0, 0, "%s",
                            strerror(e));
    }
    struct stat st;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        close(fd);
        return gc_error_set(err, GC_EIO, path, 0, 0, "not a regular file");
    }
    FILE *f = fdopen(fd, "rb");
    if (f == NULL) {
        int e = errno;
        close(fd);
        return gc_error_set(err, gc_err_from_errno(e), path, 0, 0, "%s",
                            strerror(e));
    }
    if ((uintmax_t)st.st_size > GC_SCENARIO_MAX_FILE) {
        fclose(f);
        return gc_error_set(err, GC_ETOOBIG, path, 0, 0,
                            "file is %jd bytes, more than the limit of %zu",
                            (intmax_t)st.st_size, GC_SCENARIO_MAX_FILE);
    }
    size_t n = (size_t)st.st_size;
    char *buf = malloc(n ? n : 1);
    if (buf == NULL) {
        fclose(f);
        return gc_error_set(err, GC_ENOMEM, path, 0, 0, "%s",
                            gc_strerror(GC_ENOMEM));
    }
    size_t got = fread(buf, 1, n, f);
    int bad = ferror(f);
    fclose(f);
    if (bad || got != n) {
        free(buf);
        return gc_error_set(err, GC_EIO, path, 0, 0, "short read");
    }
    int rc = gc_scenario_parse(out, buf, n, path, err);
    free(buf);
    return rc;
}

int
gc_scenario_grid(const gc_scenario *s, gc_grid **out, gc_error *err)
{
    gc_error_clear(err);
    if (out == NULL || s == NULL)
        return gc_error_set(err, GC_EINVAL, NULL, 0, 0, "%s",
                            gc_strerror(GC_EINVAL));
    *out = NULL;
    gc_grid *g;
    int rc = s->map != NULL ? gc_grid_clone(&g, s->map)
                            : gc_grid_new(&g, s->grid_w, s->grid_h);
    if (rc != GC_OK)
        return gc_error_set(err, rc, s->path, 0, 0, "%s", gc_strerror(rc));
    g->cell_size = (float)s->cell_size;
    for (size_t i = 0; i < s->nshapes; i++) {
        rc =
            gc_scenario_shape_apply(g, s->cell_size, &s->shapes[i], NULL, NULL);
        if (rc != GC_OK) {
            gc_grid_free(g);
            return gc_error_set(err, rc, s->path, s->shapes[i].line, 0,
                                "geometry.shapes[%zu]: %s", i, gc_strerror(rc));
        }
    }
    *out = g;
    return GC_OK;
}
