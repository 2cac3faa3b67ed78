/*
 * report-calc.c: gridcrowd-report's figures, from rows in frame order.
 *
 * A recording can be larger than memory (10,000 agents for thousands of
 * frames is hundreds of millions of rows), so nothing here keeps rows:
 * each one updates fixed-size sums (the density and speed bins, the flow
 * bins of each line) and the one record kept per agent (where it was last
 * seen, when it first appeared and arrived).  Only the sample's
 * trajectories grow with the length of the run, and they are bounded by
 * --sample agents.
 *
 * The sample must not depend on the order ids come in, nor need a first
 * pass to learn every id: it is the `sample` ids with the smallest
 * rep_sample_key, kept in a max-heap.  A newcomer with a smaller key than
 * the heap's largest evicts it and takes its place; as an id is new when
 * it first appears, its track is then whole from its first point.
 *
 * A step (an agent's previous row to this one) carries its speed and its
 * line crossings.  Speeds are measured from the positions, not read from
 * the file: gridcrowd's speed column is the agent's nominal speed, and a
 * plain JuPedSim file has none.
 */
#include "config.h"

#include "report.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ---- lines -----------------------------------------------------------------
 */

int
rep_line_parse(const char *s, rep_line *out)
{
    double v[4];
    const char *p = s;
    for (int i = 0; i < 4; i++) {
        char *end;
        errno = 0;
        v[i] = strtod(p, &end);
        if (end == p || errno == ERANGE || !isfinite(v[i]))
            return GC_EINVAL;
        p = end;
        while (*p == ' ')
            p++;
        if (i < 3) {
            if (*p != ',')
                return GC_EINVAL;
            p++;
        }
    }
    if (*p != '\0' || (v[0] == v[2] && v[1] == v[3]))
        return GC_EINVAL;
    *out = (rep_line){v[0], v[1], v[2], v[3]};
    return GC_OK;
}

int
rep_line_cross(const rep_line *l, double px, double py, double qx, double qy)
{
    double dx = l->x1 - l->x0, dy = l->y1 - l->y0;
    /* The side of each end: s >= 0 is behind the line (forwards, along
     * the normal (dy, -dx), s falls), s < 0 in front. */
    double sp = dx * (py - l->y0) - dy * (px - l->x0);
    double sq = dx * (qy - l->y0) - dy * (qx - l->x0);
    int dir;
    if (sp >= 0 && sq < 0)
        dir = 1;
    else if (sp < 0 && sq >= 0)
        dir = -1;
    else
        return 0;
    /* The step's line meets the infinite line; is that on the segment?
     * Its two ends must not lie strictly on one side of the step. */
    double ex = qx - px, ey = qy - py;
    double ta = ex * (l->y0 - py) - ey * (l->x0 - px);
    double tb = ex * (l->y1 - py) - ey * (l->x1 - px);
    if ((ta > 0 && tb > 0) || (ta < 0 && tb < 0))
        return 0;
    return dir;
}

/* ---- WKT -------------------------------------------------------------------
 */

typedef struct wkt {
    const char *p;
    rep_area *a;
    size_t cap_xy, cap_rings;
} wkt;

static void
wkt_space(wkt *w)
{
    while (isspace((unsigned char)*w->p))
        w->p++;
}

/* Is the next word `word` (case-insensitive)?  Consumes it if so. */
static bool
wkt_word(wkt *w, const char *word)
{
    wkt_space(w);
    size_t n = strlen(word);
    if (strncasecmp(w->p, word, n) != 0 || isalpha((unsigned char)w->p[n]))
        return false;
    w->p += n;
    return true;
}

static bool
wkt_char(wkt *w, char c)
{
    wkt_space(w);
    if (*w->p != c)
        return false;
    w->p++;
    return true;
}

static int
wkt_ring(wkt *w)
{
    rep_area *a = w->a;
    if (!wkt_char(w, '('))
        return GC_EPARSE;
    size_t n = 0;
    do {
        double v[2];
        for (int i = 0; i < 2; i++) {
            char *end;
            wkt_space(w);
            v[i] = strtod(w->p, &end);
            if (end == w->p || !isfinite(v[i]))
                return GC_EPARSE;
            w->p = end;
        }
        if (a->n_points == w->cap_xy) {
            size_t cap = w->cap_xy ? 2 * w->cap_xy : 64;
            double *xy = realloc(a->xy, cap * 2 * sizeof *xy);
            if (!xy)
                return GC_ENOMEM;
            a->xy = xy;
            w->cap_xy = cap;
        }
        a->xy[2 * a->n_points] = v[0];
        a->xy[2 * a->n_points + 1] = v[1];
        a->n_points++;
        n++;
    } while (wkt_char(w, ','));
    if (!wkt_char(w, ')') || n < 3)
        return GC_EPARSE;
    if (a->n_rings == w->cap_rings) {
        size_t cap = w->cap_rings ? 2 * w->cap_rings : 16;
        size_t *rl = realloc(a->ring_len, cap * sizeof *rl);
        if (!rl)
            return GC_ENOMEM;
        a->ring_len = rl;
        w->cap_rings = cap;
    }
    a->ring_len[a->n_rings++] = n;
    return GC_OK;
}

static int
wkt_polygon(wkt *w)
{
    if (!wkt_char(w, '('))
        return GC_EPARSE;
    do {
        int rc = wkt_ring(w);
        if (rc != GC_OK)
            return rc;
    } while (wkt_char(w, ','));
    return wkt_char(w, ')') ? GC_OK : GC_EPARSE;
}

int
rep_area_parse(const char *text, rep_area *out)
{
    memset(out, 0, sizeof *out);
    wkt w = {.p = text, .a = out};
    int rc = GC_EPARSE;
    if (wkt_word(&w, "POLYGON")) {
        rc = wkt_word(&w, "EMPTY") ? GC_OK : wkt_polygon(&w);
    } else if (wkt_word(&w, "MULTIPOLYGON")) {
        if (wkt_word(&w, "EMPTY")) {
            rc = GC_OK;
        } else if (wkt_char(&w, '(')) {
            do
                rc = wkt_polygon(&w);
            while (rc == GC_OK && wkt_char(&w, ','));
            if (rc == GC_OK && !wkt_char(&w, ')'))
                rc = GC_EPARSE;
        }
    }
    wkt_space(&w);
    if (rc == GC_OK && *w.p != '\0')
        rc = GC_EPARSE;
    if (rc != GC_OK)
        rep_area_free(out);
    return rc;
}

void
rep_area_free(rep_area *a)
{
    free(a->ring_len);
    free(a->xy);
    memset(a, 0, sizeof *a);
}

/* ---- agents ----------------------------------------------------------------
 */

#define EMPTY_SLOT INT64_MIN /* rep_agent.last of an unused table slot */

uint64_t
rep_sample_key(uint32_t id)
{
    /* splitmix64's finaliser: a bijection on 64 bits, so no two ids
     * share a key and the sample is well defined. */
    uint64_t z = (uint64_t)id + 0x9e3779b97f4a7c15u;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
    return z ^ (z >> 31);
}

static size_t
agent_hash(uint32_t id, size_t cap)
{
    return (size_t)(rep_sample_key(id) & (cap - 1));
}

static rep_agent *
agent_find(const rep_acc *a, uint32_t id)
{
    size_t mask = a->cap_agents - 1;
    for (size_t i = agent_hash(id, a->cap_agents);; i = (i + 1) & mask) {
        rep_agent *g = &a->agents[i];
        if (g->last == EMPTY_SLOT)
            return NULL;
        if (g->id == id)
            return g;
    }
}

static rep_agent *
agent_insert(rep_agent *tab, size_t cap, uint32_t id)
{
    size_t mask = cap - 1;
    size_t i = agent_hash(id, cap);
    while (tab[i].last != EMPTY_SLOT)
        i = (i + 1) & mask;
    tab[i].id = id;
    return &tab[i];
}

static rep_agent *
agents_new_table(size_t cap)
{
    rep_agent *t = malloc(cap * sizeof *t);
    if (t)
        for (size_t i = 0; i < cap; i++)
            t[i].last = EMPTY_SLOT;
    return t;
}

/* Make room for one more agent (load at most one half). */
static int
agents_reserve(rep_acc *a)
{
    if (2 * (a->n_agents + 1) <= a->cap_agents)
        return GC_OK;
    size_t cap = a->cap_agents ? 2 * a->cap_agents : 1024;
    rep_agent *t = agents_new_table(cap);
    if (!t)
        return GC_ENOMEM;
    for (size_t i = 0; i < a->cap_agents; i++)
        if (a->agents[i].last != EMPTY_SLOT)
            *agent_insert(t, cap, a->agents[i].id) = a->agents[i];
    free(a->agents);
    a->agents = t;
    a->cap_agents = cap;
    return GC_OK;
}

/* ---- the sample ------------------------------------------------------------
 */

static uint64_t
heap_key(const rep_acc *a, size_t i)
{
    return a->tracks[a->heap[i]].key;
}

static void
heap_swap(rep_acc *a, size_t i, size_t j)
{
    size_t t = a->heap[i];
    a->heap[i] = a->heap[j];
    a->heap[j] = t;
}

static void
heap_up(rep_acc *a, size_t i)
{
    while (i > 0 && heap_key(a, (i - 1) / 2) < heap_key(a, i)) {
        heap_swap(a, i, (i - 1) / 2);
        i = (i - 1) / 2;
    }
}

static void
heap_down(rep_acc *a, size_t i)
{
    for (;;) {
        size_t l = 2 * i + 1, r = l + 1, m = i;
        if (l < a->n_tracks && heap_key(a, l) > heap_key(a, m))
            m = l;
        if (r < a->n_tracks && heap_key(a, r) > heap_key(a, m))
            m = r;
        if (m == i)
            return;
        heap_swap(a, i, m);
        i = m;
    }
}

/* A new agent: take it into the sample if its key is among the smallest. */
static void
sample_offer(rep_acc *a, rep_agent *g)
{
    size_t max = a->cfg.sample;
    uint64_t key = rep_sample_key(g->id);
    if (max == 0)
        return;
    if (a->n_tracks < max) {
        size_t t = a->n_tracks++;
        a->tracks[t].key = key;
        a->tracks[t].id = g->id;
        a->tracks[t].n = 0;
        a->heap[t] = t;
        heap_up(a, t);
        g->slot = (int32_t)t;
        return;
    }
    if (key >= heap_key(a, 0))
        return;
    size_t t = a->heap[0];
    rep_agent *old = agent_find(a, a->tracks[t].id);
    if (old)
        old->slot = -1;
    a->tracks[t].key = key;
    a->tracks[t].id = g->id;
    a->tracks[t].n = 0;
    heap_down(a, 0);
    g->slot = (int32_t)t;
}

static int
track_push(rep_track *t, double x, double y)
{
    if (t->n == t->cap) {
        size_t cap = t->cap ? 2 * t->cap : 64;
        float *xy = realloc(t->xy, cap * 2 * sizeof *xy);
        if (!xy)
            return GC_ENOMEM;
        t->xy = xy;
        t->cap = cap;
    }
    t->xy[2 * t->n] = (float)x;
    t->xy[2 * t->n + 1] = (float)y;
    t->n++;
    return GC_OK;
}

/* ---- the accumulator
 * --------------------------------------------------------- */

int
rep_acc_init(rep_acc *a, const rep_acc_config *cfg)
{
    memset(a, 0, sizeof *a);
    a->frame = -1;
    a->max_frame_seen = -1;
    if (!(cfg->fps > 0) || !isfinite(cfg->fps) || !(cfg->cell > 0) ||
        !isfinite(cfg->cell) || !(cfg->xmax > cfg->xmin) ||
        !(cfg->ymax > cfg->ymin) || cfg->n_lines > REP_MAX_LINES ||
        cfg->last_frame < cfg->first_frame || cfg->sample > (1u << 24))
        return GC_EINVAL;
    a->cfg = *cfg;
    a->cfg.lines = NULL;
    /* A tolerance so that 32 / 1 is 32 bins, not 33 for a rounding. */
    double nx = ceil((cfg->xmax - cfg->xmin) / cfg->cell - 1e-9);
    double ny = ceil((cfg->ymax - cfg->ymin) / cfg->cell - 1e-9);
    if (nx < 1)
        nx = 1;
    if (ny < 1)
        ny = 1;
    if (nx * ny > REP_MAX_BINS || nx > REP_MAX_SIDE || ny > REP_MAX_SIDE)
        return GC_EINVAL;
    a->nx = (int)nx;
    a->ny = (int)ny;
    size_t nb = (size_t)a->nx * (size_t)a->ny;
    a->count = calloc(nb, sizeof *a->count);
    a->speed_sum = calloc(nb, sizeof *a->speed_sum);
    a->speed_n = calloc(nb, sizeof *a->speed_n);
    /* Flow in one-second bins, coarser for long runs (at most 300). */
    double dur = (double)(cfg->last_frame - cfg->first_frame) / cfg->fps;
    a->flow_bin_s = dur > 300 ? dur / 300 : 1.0;
    a->n_flow_bins = (size_t)(dur / a->flow_bin_s) + 1;
    for (size_t i = 0; i < cfg->n_lines; i++) {
        a->flows[i].line = cfg->lines[i];
        a->flows[i].fwd = calloc(a->n_flow_bins, sizeof(uint32_t));
        a->flows[i].bwd = calloc(a->n_flow_bins, sizeof(uint32_t));
        if (!a->flows[i].fwd || !a->flows[i].bwd)
            goto nomem;
    }
    a->cfg.n_lines = cfg->n_lines;
    if (cfg->sample) {
        a->tracks = calloc(cfg->sample, sizeof *a->tracks);
        a->heap = calloc(cfg->sample, sizeof *a->heap);
        if (!a->tracks || !a->heap)
            goto nomem;
    }
    if (!a->count || !a->speed_sum || !a->speed_n)
        goto nomem;
    return GC_OK;
nomem:
    rep_acc_free(a);
    return GC_ENOMEM;
}

void
rep_acc_free(rep_acc *a)
{
    free(a->count);
    free(a->speed_sum);
    free(a->speed_n);
    free(a->agents);
    for (size_t i = 0; i < a->cfg.sample && a->tracks; i++)
        free(a->tracks[i].xy);
    free(a->tracks);
    free(a->heap);
    for (size_t i = 0; i < REP_MAX_LINES; i++) {
        free(a->flows[i].fwd);
        free(a->flows[i].bwd);
    }
    memset(a, 0, sizeof *a);
}

/* The bin of (x, y), or -1 outside the extent. */
static long
bin_of(const rep_acc *a, double x, double y)
{
    const rep_acc_config *c = &a->cfg;
    if (!(x >= c->xmin && x <= c->xmax && y >= c->ymin && y <= c->ymax))
        return -1;
    long ix = (long)((x - c->xmin) / c->cell);
    long iy = (long)((y - c->ymin) / c->cell);
    /* The far edges belong to the last bins. */
    if (ix >= a->nx)
        ix = a->nx - 1;
    if (iy >= a->ny)
        iy = a->ny - 1;
    return iy * a->nx + ix;
}

int
rep_acc_add(rep_acc *a, int64_t frame, uint32_t id, double x, double y,
            int state)
{
    if (frame < a->frame || frame == EMPTY_SLOT || !isfinite(x) || !isfinite(y))
        return GC_EINVAL;
    int rc = agents_reserve(a);
    if (rc != GC_OK)
        return rc;
    rep_agent *g = agent_find(a, id);
    if (g && g->last == frame)
        return GC_EINVAL; /* the same id twice in a frame */
    if (frame != a->frame) {
        a->frame = frame;
        a->frames++;
    }
    if (frame > a->max_frame_seen)
        a->max_frame_seen = frame;
    long bin = bin_of(a, x, y);
    a->agent_frames++;
    if (bin >= 0)
        a->count[bin] += 1;
    else
        a->outside++;

    if (!g) {
        g = agent_insert(a->agents, a->cap_agents, id);
        a->n_agents++;
        g->first = frame;
        g->arrived = -1;
        g->slot = -1;
        sample_offer(a, g);
    } else {
        double dt = (double)(frame - g->last) / a->cfg.fps;
        if (g->last_state != REP_STATE_ARRIVED) {
            double v = hypot(x - g->x, y - g->y) / dt;
            a->speed_total += v;
            a->speed_count++;
            if (bin >= 0) {
                a->speed_sum[bin] += v;
                a->speed_n[bin]++;
            }
        }
        double t = (double)(frame - a->cfg.first_frame) / a->cfg.fps;
        size_t fb = t > 0 ? (size_t)(t / a->flow_bin_s) : 0;
        if (fb >= a->n_flow_bins)
            fb = a->n_flow_bins - 1;
        for (size_t i = 0; i < a->cfg.n_lines; i++) {
            rep_flow *f = &a->flows[i];
            int c = rep_line_cross(&f->line, g->x, g->y, x, y);
            if (c > 0) {
                f->forward++;
                f->fwd[fb]++;
            } else if (c < 0) {
                f->backward++;
                f->bwd[fb]++;
            }
        }
    }
    /* A track ends where its agent arrived: what it does while it waits
     * at its goal (jostled by the crowd there) is not its walk. */
    bool walking = g->arrived < 0;
    if (state == REP_STATE_ARRIVED && g->arrived < 0)
        g->arrived = frame;
    if (g->slot >= 0 && walking &&
        track_push(&a->tracks[g->slot], x, y) != GC_OK)
        return GC_ENOMEM;
    g->last = frame;
    g->last_state = state;
    g->x = x;
    g->y = y;
    return GC_OK;
}

static int
cmp_double(const void *p, const void *q)
{
    double a = *(const double *)p, b = *(const double *)q;
    return (a > b) - (a < b);
}

int
rep_acc_travel(const rep_acc *a, rep_travel *out)
{
    memset(out, 0, sizeof *out);
    out->evacuation_s = -1;
    if (a->n_agents == 0)
        return GC_OK;
    out->t = malloc(a->n_agents * sizeof *out->t);
    if (!out->t)
        return GC_ENOMEM;
    int64_t last_end = INT64_MIN;
    for (size_t i = 0; i < a->cap_agents; i++) {
        const rep_agent *g = &a->agents[i];
        if (g->last == EMPTY_SLOT)
            continue;
        int64_t end;
        if (g->arrived >= 0) {
            end = g->arrived;
            out->arrived++;
        } else if (g->last < a->max_frame_seen) {
            end = g->last; /* left the recording: it went out */
            out->left++;
        } else {
            out->unfinished++;
            continue;
        }
        out->t[out->n++] = (double)(end - g->first) / a->cfg.fps;
        if (end > last_end)
            last_end = end;
    }
    qsort(out->t, out->n, sizeof *out->t, cmp_double);
    if (out->unfinished == 0)
        out->evacuation_s =
            (double)(last_end - a->cfg.first_frame) / a->cfg.fps;
    return GC_OK;
}

static int
cmp_track(const void *p, const void *q)
{
    const rep_track *a = *(const rep_track *const *)p;
    const rep_track *b = *(const rep_track *const *)q;
    return (a->id > b->id) - (a->id < b->id);
}

int
rep_acc_tracks(const rep_acc *a, const rep_track ***out, size_t *n)
{
    *out = NULL;
    *n = 0;
    if (a->n_tracks == 0)
        return GC_OK;
    const rep_track **t = malloc(a->n_tracks * sizeof *t);
    if (!t)
        return GC_ENOMEM;
    for (size_t i = 0; i < a->n_tracks; i++)
        t[i] = &a->tracks[i];
    qsort(t, a->n_tracks, sizeof *t, cmp_track);
    *out = t;
    *n = a->n_tracks;
    return GC_OK;
}

double
rep_acc_density(const rep_acc *a, size_t i)
{
    if (a->frames == 0)
        return 0;
    return a->count[i] / (double)a->frames / (a->cfg.cell * a->cfg.cell);
}

double
rep_acc_speed(const rep_acc *a, size_t i)
{
    return a->speed_n[i] ? a->speed_sum[i] / a->speed_n[i] : -1.0;
}
