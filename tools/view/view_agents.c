/*
 * view_agents.c: layers 4 and 5 of the picture (see view_draw.c): paths
 * and agents, drawn as batches of triangles (SDL_RenderGeometry), so that
 * 10,000 agents cost one batch rather than 10,000 draw calls; nothing is
 * drawn for an agent outside the window.
 *
 * Small agents are sprites, one per heading step, made once per radius and
 * tinted by state through the vertex colour; big ones (zoomed in) are exact
 * discs and needles.
 *
 * Size: agents with bodies are drawn at their body radius wherever that is
 * more than a pixel, so that the picture shows whether bodies overlap;
 * one radius for all (the largest in the snapshot: the sprites are made
 * per radius).  Points, and bodies zoomed out below a pixel, get the old
 * marker: 0.35 cell, at least 2 pixels.  With key v each agent's velocity
 * is a line from its centre to where it would be in one second.
 */
#include "config.h"

#include "view_draw_int.h"

#include <math.h>
#include <stdlib.h>

/* Agent sprites: one per heading step, SPRITE_COLS to a row of the atlas;
 * above SPRITE_MAX_R pixels agents are drawn as exact triangles instead. */
#define HEADINGS 32
#define SPRITE_COLS 8
#define SPRITE_MAX_R 40.0f

/* ---- The triangle batch ----------------------------------------------------
 */

static bool
reserve(view_draw *d, int nv, int ni)
{
    if (d->nv + nv > d->capv) {
        int cap = d->capv ? d->capv : 4096;
        while (cap < d->nv + nv)
            cap *= 2;
        SDL_Vertex *v = realloc(d->v, (size_t)cap * sizeof *v);
        if (v == NULL)
            return false;
        d->v = v;
        d->capv = cap;
    }
    if (d->ni + ni > d->capi) {
        int cap = d->capi ? d->capi : 8192;
        while (cap < d->ni + ni)
            cap *= 2;
        int *ix = realloc(d->ix, (size_t)cap * sizeof *ix);
        if (ix == NULL)
            return false;
        d->ix = ix;
        d->capi = cap;
    }
    return true;
}

static int
vert(view_draw *d, float x, float y, SDL_Color c)
{
    d->v[d->nv] = (SDL_Vertex){{x, y}, c, {0, 0}};
    return d->nv++;
}

static void
tri(view_draw *d, int a, int b, int c)
{
    d->ix[d->ni++] = a;
    d->ix[d->ni++] = b;
    d->ix[d->ni++] = c;
}

static int
flush(view_draw *d, SDL_BlendMode mode)
{
    int rc = 0;
    if (d->ni > 0) {
        SDL_SetRenderDrawBlendMode(d->r, mode);
        rc = SDL_RenderGeometry(d->r, NULL, d->v, d->nv, d->ix, d->ni);
    }
    d->nv = d->ni = 0;
    return rc;
}

/* Segments for a circle of r pixels: round enough to look round. */
static int
segments(float r)
{
    int n = r < 3 ? 6 : r < 6 ? 10 : r < 12 ? 16 : r < 24 ? 24 : 32;
    return n > MAX_SEGS ? MAX_SEGS : n;
}

static void
unit_circle(view_draw *d, int n)
{
    if (d->useg == n)
        return;
    for (int i = 0; i <= n; i++) {
        d->ucos[i] = cosf(2 * (float)M_PI * (float)i / (float)n);
        d->usin[i] = sinf(2 * (float)M_PI * (float)i / (float)n);
    }
    d->useg = n;
}

/* A filled disc; the unit circle must be set for n segments. */
static void
disc(view_draw *d, float x, float y, float r, SDL_Color c, int n)
{
    if (!reserve(d, n + 1, 3 * n))
        return;
    int o = vert(d, x, y, c);
    for (int i = 0; i < n; i++)
        vert(d, x + r * d->ucos[i], y + r * d->usin[i], c);
    for (int i = 0; i < n; i++)
        tri(d, o, o + 1 + i, o + 1 + (i + 1) % n);
}

static void
ring(view_draw *d, float x, float y, float r0, float r1, SDL_Color c, int n)
{
    if (!reserve(d, 2 * n, 6 * n))
        return;
    int o = d->nv;
    for (int i = 0; i < n; i++) {
        vert(d, x + r0 * d->ucos[i], y + r0 * d->usin[i], c);
        vert(d, x + r1 * d->ucos[i], y + r1 * d->usin[i], c);
    }
    for (int i = 0; i < n; i++) {
        int a = o + 2 * i, b = o + 2 * ((i + 1) % n);
        tri(d, a, a + 1, b + 1);
        tri(d, a, b + 1, b);
    }
}

/* A straight line w pixels wide, as a quad. */
static void
line(view_draw *d, float x0, float y0, float x1, float y1, float w, SDL_Color c)
{
    float dx = x1 - x0, dy = y1 - y0, len = sqrtf(dx * dx + dy * dy);
    if (len < 1e-3f || !reserve(d, 4, 6))
        return;
    float nx = -dy / len * w / 2, ny = dx / len * w / 2;
    int o = vert(d, x0 + nx, y0 + ny, c);
    vert(d, x1 + nx, y1 + ny, c);
    vert(d, x1 - nx, y1 - ny, c);
    vert(d, x0 - nx, y0 - ny, c);
    tri(d, o, o + 1, o + 2);
    tri(d, o, o + 2, o + 3);
}

/* ---- Agents and paths ------------------------------------------------------
 */

float
view_agent_radius(const view_state *s)
{
    float cs = s->conn.cell_size > 0 ? s->conn.cell_size : 1;
    float body = (float)(s->conn.body_radius / cs * s->cam.zoom);
    if (body > 1)
        return body;
    float r = (float)(0.35 * s->cam.zoom);
    return r < 2 ? 2 : r;
}

static void
to_screen(const view_state *s, float wx, float wy, float *x, float *y)
{
    float cs = s->conn.cell_size > 0 ? s->conn.cell_size : 1;
    *x = (float)(s->cam.ox + wx / cs * s->cam.zoom);
    *y = (float)(s->cam.oy + wy / cs * s->cam.zoom);
}

/*
 * The waypoints to draw for agent a: its whole remaining path when the
 * copy holds this agent's (the selected one's, once the daemon has
 * published it), else the first GC_WORLD_PATH_POINTS its record carries.
 */
static const gc_vec2 *
waypoints(const view_state *s, const gc_world_agent *a, size_t *n)
{
    const view_conn *c = &s->conn;
    const gc_world_path_info *pi = &c->path_info;
    if (c->path != NULL && pi->seq > 0 && pi->agent == a->id &&
        pi->salt == a->salt) {
        *n = pi->count;
        return c->path;
    }
    *n =
        a->path_len < GC_WORLD_PATH_POINTS ? a->path_len : GC_WORLD_PATH_POINTS;
    return a->path;
}

static void
path_of(view_draw *d, const view_state *s, const gc_world_agent *a, float w,
        SDL_Color c, bool dots)
{
    float px, py;
    to_screen(s, a->x, a->y, &px, &py);
    size_t n;
    const gc_vec2 *pts = waypoints(s, a, &n);
    for (size_t i = 0; i < n; i++) {
        float qx, qy;
        to_screen(s, pts[i].x, pts[i].y, &qx, &qy);
        line(d, px, py, qx, qy, w, c);
        if (dots)
            disc(d, qx, qy, w, c, d->useg);
        px = qx;
        py = qy;
    }
}

int
view_draw_paths(view_draw *d, const view_state *s, long sel)
{
    const view_conn *c = &s->conn;
    unit_circle(d, 8);
    if (s->show_paths)
        for (size_t i = 0; i < c->nagents; i++) {
            const gc_world_agent *a = &c->agents[i];
            uint8_t st = a->state < GC_AGENT_NSTATES ? a->state : 0;
            path_of(d, s, a, 1.25f, view_rgb(view_agent_rgb[st], 120), false);
        }
    if (sel >= 0) {
        const gc_world_agent *a = &c->agents[sel];
        float w = (float)(s->cam.zoom * 0.06);
        path_of(d, s, a, w < 2.5f ? 2.5f : w > 5 ? 5 : w, view_ink, true);
        /* The goal: a ring and a dot in its cell, whether or not the known
         * waypoints reach it (until the whole path arrives, the record's
         * first 8 are all we know). */
        float gx, gy, cs = c->cell_size > 0 ? c->cell_size : 1;
        to_screen(s, ((float)a->goal_x + 0.5f) * cs,
                  ((float)a->goal_y + 0.5f) * cs, &gx, &gy);
        float r = view_agent_radius(s) + 2;
        unit_circle(d, segments(r));
        ring(d, gx, gy, r - 2, r, view_ink, d->useg);
        disc(d, gx, gy, r / 4 < 1.5f ? 1.5f : r / 4, view_ink, d->useg);
    }
    return flush(d, SDL_BLENDMODE_BLEND);
}

/* The heading needle of an agent of radius r at the origin facing (hx, hy):
 * a dark triangle from just behind the centre to the rim. */
static void
needle(float r, float hx, float hy, float p[6])
{
    float w = r * 0.32f < 0.9f ? 0.9f : r * 0.32f;
    p[0] = hx * r * 0.95f;
    p[1] = hy * r * 0.95f;
    p[2] = -hx * r * 0.15f - hy * w;
    p[3] = -hy * r * 0.15f + hx * w;
    p[4] = -hx * r * 0.15f + hy * w;
    p[5] = -hy * r * 0.15f - hx * w;
}

static bool
in_triangle(const float p[6], float x, float y)
{
    float d1 = (x - p[2]) * (p[1] - p[3]) - (p[0] - p[2]) * (y - p[3]);
    float d2 = (x - p[4]) * (p[3] - p[5]) - (p[2] - p[4]) * (y - p[5]);
    float d3 = (x - p[0]) * (p[5] - p[1]) - (p[4] - p[0]) * (y - p[1]);
    bool neg = d1 < 0 || d2 < 0 || d3<0, pos = d1> 0 || d2 > 0 || d3 > 0;
    return !(neg && pos);
}

/*
 * The agent sprites for radius r: HEADINGS discs, white with the dark
 * needle, anti-aliased by 4x4 supersampling.  Drawn with the state colour
 * as vertex colour, the white takes that colour and the needle stays dark.
 * Made again only when the radius changes (zooming).
 */
static int
make_sprites(view_draw *d, float r)
{
    int size = (int)ceilf(2 * r) + 2;
    int rows = HEADINGS / SPRITE_COLS;
    SDL_Surface *sf = SDL_CreateRGBSurfaceWithFormat(
        0, size * SPRITE_COLS, size * rows, 32, SDL_PIXELFORMAT_ARGB8888);
    if (sf == NULL)
        return -1;
    const uint8_t *hc = view_heading_rgb;
    float c = (float)size / 2;
    for (int k = 0; k < HEADINGS; k++) {
        float p[6], a = 2 * (float)M_PI * (float)k / HEADINGS;
        needle(r, cosf(a), sinf(a), p);
        int ox = (k % SPRITE_COLS) * size, oy = (k / SPRITE_COLS) * size;
        for (int y = 0; y < size; y++) {
            uint32_t *row = (uint32_t *)(void *)((uint8_t *)sf->pixels +
                                                 (oy + y) * sf->pitch) +
                            ox;
            for (int x = 0; x < size; x++) {
                int in = 0, dark = 0;
                for (int sy = 0; sy < 4; sy++)
                    for (int sx = 0; sx < 4; sx++) {
                        float px = (float)x + ((float)sx + 0.5f) / 4 - c;
                        float py = (float)y + ((float)sy + 0.5f) / 4 - c;
                        if (px * px + py * py > r * r)
                            continue;
                        in++;
                        dark += in_triangle(p, px, py);
                    }
                /* Straight alpha: the colour of the covered samples. */
                uint32_t cr =
                    in ? (uint32_t)(255 * (in - dark) + hc[0] * dark) /
                             (uint32_t)in
                       : 0;
                uint32_t cg =
                    in ? (uint32_t)(255 * (in - dark) + hc[1] * dark) /
                             (uint32_t)in
                       : 0;
                uint32_t cb =
                    in ? (uint32_t)(255 * (in - dark) + hc[2] * dark) /
                             (uint32_t)in
                       : 0;
                uint32_t al = (uint32_t)(255 * in / 16);
                row[x] = al << 24 | cr << 16 | cg << 8 | cb;
            }
        }
    }
    SDL_Texture *t = SDL_CreateTextureFromSurface(d->r, sf);
    SDL_FreeSurface(sf);
    if (t == NULL)
        return -1;
    SDL_SetTextureBlendMode(t, SDL_BLENDMODE_BLEND);
    SDL_SetTextureScaleMode(t, SDL_ScaleModeNearest);
    if (d->sprites != NULL)
        SDL_DestroyTexture(d->sprites);
    d->sprites = t;
    d->sprite_r = r;
    d->sprite_size = size;
    return 0;
}

/* Agents as textured quads, one sprite each.  The software renderer turns
 * each such quad into a plain blit; others draw the batch in one call. */
static int
agents_sprites(view_draw *d, const view_state *s, float r)
{
    const view_conn *c = &s->conn;
    if ((d->sprites == NULL || d->sprite_r != r) && make_sprites(d, r) != 0)
        return -1;
    if (!reserve(d, (int)c->nagents * 4, (int)c->nagents * 6))
        return SDL_OutOfMemory();
    float size = (float)d->sprite_size, half = size / 2;
    float tw = 1.0f / SPRITE_COLS, th = 1.0f / (HEADINGS / SPRITE_COLS);
    for (size_t i = 0; i < c->nagents; i++) {
        const gc_world_agent *a = &c->agents[i];
        float x, y;
        to_screen(s, a->x, a->y, &x, &y);
        if (x < -half || y < -half || x > (float)s->win_w + half ||
            y > (float)s->win_h + half)
            continue;
        /* Whole pixels, so that each sprite is copied unscaled. */
        x = floorf(x - half + 0.5f);
        y = floorf(y - half + 0.5f);
        float h = a->heading / (2 * (float)M_PI) * HEADINGS;
        int k = ((int)lroundf(h) % HEADINGS + HEADINGS) % HEADINGS;
        float u = (float)(k % SPRITE_COLS) * tw,
              v = (float)(k / SPRITE_COLS) * th;
        uint8_t st = a->state < GC_AGENT_NSTATES ? a->state : 0;
        SDL_Color col = view_rgb(view_agent_rgb[st], 0xff);
        int o = d->nv;
        d->v[d->nv++] = (SDL_Vertex){{x, y}, col, {u, v}};
        d->v[d->nv++] = (SDL_Vertex){{x + size, y}, col, {u + tw, v}};
        d->v[d->nv++] =
            (SDL_Vertex){{x + size, y + size}, col, {u + tw, v + th}};
        d->v[d->nv++] = (SDL_Vertex){{x, y + size}, col, {u, v + th}};
        tri(d, o, o + 1, o + 2);
        tri(d, o, o + 2, o + 3);
    }
    int rc = 0;
    if (d->ni > 0)
        rc = SDL_RenderGeometry(d->r, d->sprites, d->v, d->nv, d->ix, d->ni);
    d->nv = d->ni = 0;
    return rc;
}

/* Agents as exact triangles: for big discs, where sprites would be large
 * and few agents are in view. */
static int
agents_triangles(view_draw *d, const view_state *s, float r)
{
    const view_conn *c = &s->conn;
    int n = segments(r);
    unit_circle(d, n);
    SDL_Color head = view_rgb(view_heading_rgb, 0xff);
    for (size_t i = 0; i < c->nagents; i++) {
        const gc_world_agent *a = &c->agents[i];
        float x, y, p[6];
        to_screen(s, a->x, a->y, &x, &y);
        if (x < -r || y < -r || x > (float)s->win_w + r ||
            y > (float)s->win_h + r)
            continue;
        uint8_t st = a->state < GC_AGENT_NSTATES ? a->state : 0;
        disc(d, x, y, r, view_rgb(view_agent_rgb[st], 0xff), n);
        if (!reserve(d, 3, 3))
            return SDL_OutOfMemory();
        needle(r, cosf(a->heading), sinf(a->heading), p);
        int o = vert(d, x + p[0], y + p[1], head);
        vert(d, x + p[2], y + p[3], head);
        vert(d, x + p[4], y + p[5], head);
        tri(d, o, o + 1, o + 2);
    }
    return flush(d, SDL_BLENDMODE_NONE);
}

/* Each agent's velocity: a line from its centre to where it would be in
 * one second, over the discs, in the ink colour. */
static int
velocities(view_draw *d, const view_state *s)
{
    const view_conn *c = &s->conn;
    for (size_t i = 0; i < c->nagents; i++) {
        const gc_world_agent *a = &c->agents[i];
        if (a->vx == 0.0f && a->vy == 0.0f)
            continue;
        float x0, y0, x1, y1;
        to_screen(s, a->x, a->y, &x0, &y0);
        to_screen(s, a->x + a->vx, a->y + a->vy, &x1, &y1);
        if ((x0 < 0 && x1 < 0) || (y0 < 0 && y1 < 0) ||
            (x0 > (float)s->win_w && x1 > (float)s->win_w) ||
            (y0 > (float)s->win_h && y1 > (float)s->win_h))
            continue;
        line(d, x0, y0, x1, y1, 2.0f, view_ink);
    }
    return flush(d, SDL_BLENDMODE_BLEND);
}

int
view_draw_agents(view_draw *d, const view_state *s, long sel)
{
    float r = view_agent_radius(s);
    /* Sprites come in quarter-pixel radii so that zooming does not remake
     * them every frame. */
    float rq = floorf(r * 4) / 4;
    if ((r <= SPRITE_MAX_R ? agents_sprites(d, s, rq)
                           : agents_triangles(d, s, r)) != 0)
        return -1;
    if (s->show_velocities && velocities(d, s) != 0)
        return -1;
    if (sel >= 0) {
        float x, y;
        to_screen(s, s->conn.agents[sel].x, s->conn.agents[sel].y, &x, &y);
        unit_circle(d, segments(r + 4));
        ring(d, x, y, r + 1.5f, r + 3.5f, view_ink, d->useg);
        ring(d, x, y, r + 3.5f, r + 4.5f, (SDL_Color){0xff, 0xff, 0xff, 0xc0},
             d->useg);
        return flush(d, SDL_BLENDMODE_BLEND);
    }
    return 0;
}
